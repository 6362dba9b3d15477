//===- ConvertTTGToLLVM.cpp - the TTGIR -> LLVM dialect pass -----------------===//

#include "tessera/Conversion/TTGToLLVM/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/Prof/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"
#include "tessera/Target/Backend.h"


namespace mlir::tessera {
#define GEN_PASS_DEF_CONVERTTTGTOLLVM
#include "tessera/Conversion/TTGToLLVM/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

int64_t mlir::tessera::getSharedScratchBytes(Operation *op, const TargetInfoBase *targetInfo) {
  if (targetInfo)
    if (std::optional<int64_t> bytes = targetInfo->getVendorScratchBytes(op))
      return *bytes;
  return getScratchBytes(op) + getViewOpScratchBytes(op) + getDotScratchBytes(op) +
         getScanScratchBytes(op) + getAtomicScratchBytes(op);
}

std::function<int64_t(Operation *)> mlir::tessera::getSharedScratchSizeFn(ModuleOp module) {
  std::shared_ptr<TargetInfoBase> targetInfo;
  if (auto target = module->getAttrOfType<StringAttr>("ttg.target"))
    targetInfo = createTargetInfo(target.getValue());
  return [targetInfo](Operation *op) { return getSharedScratchBytes(op, targetInfo.get()); };
}

namespace {

struct ConvertTTGToLLVMPass
    : public mlir::tessera::impl::ConvertTTGToLLVMBase<ConvertTTGToLLVMPass> {
  using ConvertTTGToLLVMBase::ConvertTTGToLLVMBase;
  /// The vendors' dialects (their patterns create their ops): every
  /// registered backend's, since the target is only known from the module.
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertTTGToLLVMBase::getDependentDialects(registry);
    for (const std::string &name : ::tessera::getRegisteredBackendNames())
      ::tessera::lookupBackend(name)->registerDialects(registry);
  }

  void runOnOperation() override {
    // 1. Read the target and the number of warps from the module.
    // 2. Convert types (tensors -> per-thread structs) and ops: tt/ttg ops by
    //    the vendor's own patterns where it has some (tensor cores), else by
    //    Tessera's target-independent families; arith/math/cf by the
    //    upstream ones.
    // 3. Fail on anything left: an op the GPU lowering does not support yet is
    //    reported at its location.
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto target = module->getAttrOfType<StringAttr>("ttg.target");
    if (!target) {
      module.emitError("convert-ttg-to-llvm needs the module attribute ttg.target "
                       "(\"<backend>:<architecture>\")");
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
    // Every tensor of TTGIR has a layout that maps its elements to threads; a
    // tensor without one (TTIR given to this pass, or an edited file) is
    // reported at its op instead of reaching the lowering patterns.
    auto checkTensor = [](Operation *op, RankedTensorType tensor) -> LogicalResult {
      if (supportsLinearLayout(tensor))
        return success();
      if (!tensor.getEncoding())
        return op->emitOpError() << "has a tensor " << Type(tensor)
                                 << " without a layout encoding (convert-ttg-to-llvm lowers "
                                    "TTGIR: run convert-tt-to-ttg first)";
      return op->emitOpError() << "has a tensor " << Type(tensor)
                               << " whose encoding is not a distributed layout";
    };
    if (failed(tt::checkModuleTensors(module, checkTensor)))
      return signalPassFailure();

    LowerToLLVMOptions options(ctx);
    TesseraLLVMTypeConverter typeConverter(ctx, options, *targetInfo);
    RewritePatternSet patterns(ctx);
    populateFuncOpToLLVMPatterns(typeConverter, patterns, numWarps);
    populateViewOpToLLVMPatterns(typeConverter, patterns);
    populateMemoryOpToLLVMPatterns(typeConverter, patterns);
    // AxisInfo of the TTGIR, before any op is rewritten: the load/store
    // patterns ask it which accesses may be vectors, the elementwise ones
    // which elements are equal.
    // (Only a module with tensor loads or stores needs it.)
    std::optional<ModuleAxisInfo> axisInfo;
    bool tensorAccesses = false;
    module.walk([&](Operation *op) {
      if (isa<tt::LoadOp, tt::StoreOp>(op) && isa<RankedTensorType>(op->getOperand(0).getType()))
        tensorAccesses = true;
    });
    if (vectorize && tensorAccesses)
      axisInfo.emplace(module);
    markOffsetAccesses(module, *targetInfo);
    markOwnerStores(module);
    markLoadedExchanges(module);
    populateLoadStoreOpToLLVMPatterns(typeConverter, patterns, axisInfo ? &*axisInfo : nullptr);
    // Elementwise ops compute one value per run of equal elements (AxisInfo
    // constancy) that a thread holds.
    populateElementwiseOpToLLVMPatterns(typeConverter, patterns, axisInfo ? &*axisInfo : nullptr);
    populateReduceOpToLLVMPatterns(typeConverter, patterns);
    populateScanOpToLLVMPatterns(typeConverter, patterns);
    populateAtomicOpToLLVMPatterns(typeConverter, patterns);
    populateDotOpToLLVMPatterns(typeConverter, patterns);
    populatePrintAssertOpToLLVMPatterns(typeConverter, patterns);
    populateProfOpToLLVMPatterns(typeConverter, patterns, numWarps);
    targetInfo->populateVendorPatterns(typeConverter, patterns);
    arith::populateArithToLLVMConversionPatterns(typeConverter, patterns);
    populateMathToLLVMConversionPatterns(typeConverter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(typeConverter, patterns);

    LLVMConversionTarget conversionTarget(*ctx);
    // Ops of vendor dialects that the patterns create are legal: only what
    // is named illegal here must go.
    conversionTarget.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    conversionTarget.addIllegalDialect<tt::TTDialect, ttg::TTGDialect, arith::ArithDialect,
                                       math::MathDialect, cf::ControlFlowDialect,
                                       prof::ProfDialect>();
    conversionTarget.addLegalOp<ModuleOp>();
    targetInfo->addIllegalVendorOps(conversionTarget);
    if (failed(applyPartialConversion(module, conversionTarget, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
