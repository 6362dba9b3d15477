//===- AllocateGlobalScratch.cpp - per-program global scratch -------------- ===//

#include "tessera/Dialect/TTG/Transforms/Passes.h"

#include "tessera/Dialect/TT/IR/Dialect.h"

#include <algorithm>
#include <limits>

namespace mlir::tessera {
#define GEN_PASS_DEF_ALLOCATEGLOBALSCRATCH
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

struct AllocateGlobalScratchPass
    : public mlir::tessera::impl::AllocateGlobalScratchBase<AllocateGlobalScratchPass> {
  void runOnOperation() override {
    // 1. Reject scratch in functions other than kernels (public, inlinable
    //    tt.funcs): only kernels receive the scratch base.
    // 2. Place each alloc at the next offset aligned as it asks.
    // 3. Round the total up to the largest alignment, so that every
    //    program's region (program index × total) keeps every alignment, and
    //    record total and alignment on the module.
    // Regions are not reused between allocs whose lifetimes do not overlap.
    ModuleOp module = getOperation();
    auto i32 = IntegerType::get(&getContext(), 32);
    int64_t total = 0, align = 1;
    bool failedAny = false;
    module.walk([&](ttg::GlobalScratchAllocOp op) {
      auto fn = op->getParentOfType<tt::FuncOp>();
      if (!fn || !fn.isPublic() || fn.isNoInline()) {
        op.emitOpError("global scratch is only supported in kernels (public functions that are "
                       "not noinline); inline the function that allocates it");
        failedAny = true;
        return;
      }
      int64_t a = op.getAlignment();
      total = (total + a - 1) / a * a;
      op->setAttr("ttg.global_scratch_offset", IntegerAttr::get(i32, total));
      total += op.getNbytes();
      align = std::max(align, a);
    });
    if (failedAny)
      return signalPassFailure();
    total = (total + align - 1) / align * align;
    if (total > std::numeric_limits<int32_t>::max()) {
      module.emitError() << "global scratch of " << total << " bytes per program exceeds 2^31 - 1";
      return signalPassFailure();
    }
    module->setAttr("ttg.global_scratch_memory_size", IntegerAttr::get(i32, total));
    module->setAttr("ttg.global_scratch_memory_alignment", IntegerAttr::get(i32, align));
  }
};

} // namespace
