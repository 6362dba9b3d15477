//===- Verify.cpp - verification that points at source locations ------------===//

#include "tessera/Tools/Verify.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

static bool hasFilePosition(Location loc) {
  return static_cast<bool>(loc->findInstanceOf<FileLineColLoc>());
}

LogicalResult tessera::verifyWithSourceLocations(Operation *root) {
  SmallVector<std::pair<Operation *, Location>> saved;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (hasFilePosition(op->getLoc()))
      return;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
      if (hasFilePosition(p->getLoc())) {
        saved.push_back({op, op->getLoc()});
        op->setLoc(p->getLoc());
        return;
      }
    }
  });
  LogicalResult result = verify(root);
  for (auto &[op, loc] : saved)
    op->setLoc(loc);
  return result;
}

namespace {
struct VerifyWithSourceLocationsPass
    : public PassWrapper<VerifyWithSourceLocationsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyWithSourceLocationsPass)
  StringRef getArgument() const final { return "tessera-verify-input"; }
  StringRef getDescription() const final {
    return "Verify the input, reporting unlocated ops at their parent's location";
  }
  void runOnOperation() override {
    if (failed(tessera::verifyWithSourceLocations(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

std::unique_ptr<Pass> tessera::createVerifyWithSourceLocationsPass() {
  return std::make_unique<VerifyWithSourceLocationsPass>();
}
