//===- AllocateSharedMemory.cpp - lay out shared memory -------------------- ===//

#include "tessera/Dialect/TTG/Transforms/Passes.h"

#include "tessera/Analysis/Allocation.h"
#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_ALLOCATESHAREDMEMORY
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

struct AllocateSharedMemoryPass
    : public mlir::tessera::impl::AllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  void runOnOperation() override {
    // 1. Lay out every function's shared memory, callees first (Allocation),
    //    with the scratch each op needs on the module's target.
    // 2. Record offsets and sizes on the ops, each function's need on it, and
    //    the largest kernel's in the module's ttg.shared.
    ModuleOp module = getOperation();
    auto i32 = IntegerType::get(&getContext(), 32);
    ModuleAllocation alloc(module, getSharedScratchSizeFn(module));
    if (alloc.failed())
      return signalPassFailure();
    for (Operation *fn : alloc.getFunctions()) {
      const Allocation *a = alloc.get(fn);
      for (const Allocation::Buffer &b : a->getBuffers()) {
        bool isExplicit = b.kind == Allocation::Kind::Explicit;
        b.owner->setAttr(isExplicit ? "ttg.allocation.offset" : "ttg.scratch_offset",
                         IntegerAttr::get(i32, b.offset));
        b.owner->setAttr(isExplicit ? "ttg.allocation.size" : "ttg.scratch_size",
                         IntegerAttr::get(i32, b.size));
      }
      if (a->getSharedMemorySize() > 0)
        fn->setAttr("ttg.func_shared", IntegerAttr::get(i32, a->getSharedMemorySize()));
    }
    module->setAttr("ttg.shared", IntegerAttr::get(i32, alloc.getKernelSharedMemorySize()));
  }
};

} // namespace
