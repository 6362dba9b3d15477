//===- ConvertTTGToLLVM.cpp - the TTGIR -> LLVM dialect pass -----------------===//

#include "tessera/Conversion/TTGToLLVM/Passes.h"

#include "tessera/Analysis/Allocation.h"
#include "tessera/Analysis/Membar.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include <limits>

namespace mlir::tessera {
#define GEN_PASS_DEF_CONVERTTTGTOLLVM
#define GEN_PASS_DEF_ALLOCATESHAREDMEMORY
#define GEN_PASS_DEF_ALLOCATEGLOBALSCRATCH
#define GEN_PASS_DEF_MEMBAR
#include "tessera/Conversion/TTGToLLVM/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

int64_t mlir::tessera::getSharedScratchBytes(Operation *op) {
  return getScratchBytes(op) + getViewOpScratchBytes(op) + getDotScratchBytes(op) +
         getScanScratchBytes(op) + getAtomicScratchBytes(op);
}

namespace {

struct ConvertTTGToLLVMPass
    : public mlir::tessera::impl::ConvertTTGToLLVMBase<ConvertTTGToLLVMPass> {
  void runOnOperation() override {
    // 1. Read the target and the number of warps from the module.
    // 2. Convert types (tensors -> per-thread structs) and ops: tt/ttg ops by
    //    Tessera's patterns, arith/math/cf by the upstream ones.
    // 3. Fail on anything left: an op the GPU lowering does not support yet is
    //    reported at its location.
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto target = module->getAttrOfType<StringAttr>("ttg.target");
    if (!target) {
      module.emitError("convert-ttg-to-llvm needs the module attribute ttg.target (e.g. \"cuda:90\")");
      return signalPassFailure();
    }
    std::unique_ptr<TargetInfoBase> targetInfo = createTargetInfo(target.getValue());
    if (!targetInfo) {
      module.emitError() << "unknown target '" << target.getValue() << "'";
      return signalPassFailure();
    }
    int numWarps = 4;
    if (auto w = module->getAttrOfType<IntegerAttr>("ttg.num-warps"))
      numWarps = w.getInt();

    LowerToLLVMOptions options(ctx);
    TesseraLLVMTypeConverter typeConverter(ctx, options, *targetInfo);
    RewritePatternSet patterns(ctx);
    populateFuncOpToLLVMPatterns(typeConverter, patterns, numWarps);
    populateElementwiseOpToLLVMPatterns(typeConverter, patterns);
    populateViewOpToLLVMPatterns(typeConverter, patterns);
    populateLoadStoreOpToLLVMPatterns(typeConverter, patterns);
    populateReduceOpToLLVMPatterns(typeConverter, patterns);
    populateScanOpToLLVMPatterns(typeConverter, patterns);
    populateAtomicOpToLLVMPatterns(typeConverter, patterns);
    populateDotOpToLLVMPatterns(typeConverter, patterns);
    populatePrintAssertOpToLLVMPatterns(typeConverter, patterns);
    arith::populateArithToLLVMConversionPatterns(typeConverter, patterns);
    populateMathToLLVMConversionPatterns(typeConverter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(typeConverter, patterns);

    LLVMConversionTarget conversionTarget(*ctx);
    conversionTarget.addLegalDialect<NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
    conversionTarget.addIllegalDialect<tt::TTDialect, ttg::TTGDialect, arith::ArithDialect,
                                       math::MathDialect, cf::ControlFlowDialect>();
    conversionTarget.addLegalOp<ModuleOp>();
    if (failed(applyPartialConversion(module, conversionTarget, std::move(patterns))))
      return signalPassFailure();
  }
};

struct AllocateSharedMemoryPass
    : public mlir::tessera::impl::AllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  void runOnOperation() override {
    // 1. Lay out every function's shared memory, callees first (Allocation).
    // 2. Record offsets and sizes on the ops, each function's need on it, and
    //    the largest kernel's in the module's ttg.shared.
    ModuleOp module = getOperation();
    auto i32 = IntegerType::get(&getContext(), 32);
    ModuleAllocation alloc(module, getSharedScratchBytes);
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

struct MembarPass : public mlir::tessera::impl::MembarBase<MembarPass> {
  void runOnOperation() override {
    getOperation().walk([](tt::FuncOp fn) {
      MembarAnalysis membar(fn);
      for (Operation *op : membar.getBarriers()) {
        OpBuilder b(op);
        ttg::BarrierOp::create(b, op->getLoc());
      }
    });
  }
};

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
