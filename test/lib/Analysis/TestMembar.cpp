//===- TestMembar.cpp - test-print-membar -------------------------------------===//
//
// Prints, for every function, the ops the Membar analysis puts a barrier
// before (run after ttg-allocate-shared-memory):
//   membar @f: <n> barriers
//     barrier before <op name> <location>
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Pass/Pass.h"
#include "tessera/Analysis/Membar.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {
struct TestPrintMembarPass : public PassWrapper<TestPrintMembarPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintMembarPass)
  StringRef getArgument() const final { return "test-print-membar"; }
  StringRef getDescription() const final {
    return "Print the ops that need a barrier before them (after ttg-allocate-shared-memory).";
  }
  void runOnOperation() override {
    auto &os = llvm::outs();
    getOperation().walk([&](tt::FuncOp fn) {
      MembarAnalysis membar(fn);
      os << "membar @" << fn.getName() << ": " << membar.getBarriers().size() << " barriers\n";
      for (Operation *op : membar.getBarriers()) {
        os << "  barrier before " << op->getName() << " ";
        op->getLoc().print(os);
        os << "\n";
      }
    });
  }
};
} // namespace

void mlir::tessera::test::registerTestMembarPass() { PassRegistration<TestPrintMembarPass>(); }
