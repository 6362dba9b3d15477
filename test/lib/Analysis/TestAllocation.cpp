//===- TestAllocation.cpp - test-print-allocation ----------------------------===//
//
// Prints the Allocation analysis of every function, callees first:
//   allocation @f: <bytes> bytes
//     <kind> <size> bytes at <offset>, live [<start>, <end>]: <op name> <location>
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Pass/Pass.h"
#include "tessera/Analysis/Allocation.h"
#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {
struct TestPrintAllocationPass
    : public PassWrapper<TestPrintAllocationPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintAllocationPass)
  StringRef getArgument() const final { return "test-print-allocation"; }
  StringRef getDescription() const final {
    return "Print the shared-memory buffers of each function: kind, size, offset, lifetime.";
  }
  void runOnOperation() override {
    ModuleAllocation alloc(getOperation(), getSharedScratchSizeFn(getOperation()));
    if (alloc.failed())
      return signalPassFailure();
    auto &os = llvm::outs();
    for (Operation *fn : alloc.getFunctions()) {
      const Allocation *a = alloc.get(fn);
      os << "allocation @" << cast<tt::FuncOp>(fn).getName() << ": " << a->getSharedMemorySize()
         << " bytes\n";
      for (const Allocation::Buffer &b : a->getBuffers()) {
        os << "  " << Allocation::kindName(b.kind) << " " << b.size << " bytes at " << b.offset
           << ", live [" << b.start << ", " << b.end << "]: " << b.owner->getName() << " ";
        b.owner->getLoc().print(os);
        os << "\n";
      }
    }
    os << "kernel shared memory: " << alloc.getKernelSharedMemorySize() << " bytes\n";
  }
};
} // namespace

void mlir::tessera::test::registerTestAllocationPass() {
  PassRegistration<TestPrintAllocationPass>();
}
