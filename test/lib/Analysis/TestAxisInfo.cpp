//===- TestAxisInfo.cpp - test-print-alignment --------------------------------===//
//
// Emits a remark on every op with an integer or pointer result, giving the
// AxisInfo of that result (lit tests check them with -verify-diagnostics):
//   contiguity = [..], divisibility = [..], constancy = [..], constant_value = ..
// Ops the analysis never reached (unreachable code, a function nothing
// calls) get "<uninitialized>".
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {
struct TestPrintAlignmentPass : public PassWrapper<TestPrintAlignmentPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintAlignmentPass)
  StringRef getArgument() const final { return "test-print-alignment"; }
  StringRef getDescription() const final {
    return "Print the AxisInfo (contiguity, divisibility, constancy) of integer and pointer values "
           "as remarks.";
  }
  void runOnOperation() override {
    ModuleAxisInfo analysis(getOperation());
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        Type elt = getElementTypeOrSelf(result.getType());
        if (!isa<IntegerType, IndexType, tt::PointerType>(elt))
          continue;
        std::string text;
        llvm::raw_string_ostream os(text);
        analysis.get(result).print(os);
        op->emitRemark() << text;
      }
    });
  }
};
} // namespace

void mlir::tessera::test::registerTestAxisInfoPass() { PassRegistration<TestPrintAlignmentPass>(); }
