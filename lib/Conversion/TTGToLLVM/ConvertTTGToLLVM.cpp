//===- ConvertTTGToLLVM.cpp - the TTGIR -> LLVM dialect pass -----------------===//

#include "tessera/Conversion/TTGToLLVM/Passes.h"

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
#include "tessera/Conversion/TTGToLLVM/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

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
    // 1. Ask every op how much scratch it needs when lowered.
    // 2. Give each a disjoint 16-byte-aligned range; record the total.
    // Does not reuse ranges of ops whose lifetimes do not overlap (the
    // Allocation analysis will) nor handle shared memory of called functions.
    ModuleOp module = getOperation();
    auto i32 = IntegerType::get(&getContext(), 32);
    int64_t total = 0;
    module.walk([&](Operation *op) {
      int64_t bytes = getScratchBytes(op) + getViewOpScratchBytes(op) +
                      getDotScratchBytes(op) +
                      getScanScratchBytes(op) + getAtomicScratchBytes(op);
      if (bytes == 0)
        return;
      total = (total + 15) / 16 * 16;
      op->setAttr("ttg.scratch_offset", IntegerAttr::get(i32, total));
      total += bytes;
    });
    module->setAttr("ttg.shared", IntegerAttr::get(i32, total));
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
