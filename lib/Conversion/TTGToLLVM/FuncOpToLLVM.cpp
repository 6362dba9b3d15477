//===- FuncOpToLLVM.cpp - functions, calls and program ids -------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// The LLVM type a function with (non-empty) `results` returns: the one
/// result, or a struct of them.
Type packedResultType(const TypeConverter &tc, TypeRange results) {
  SmallVector<Type> converted;
  for (Type t : results)
    converted.push_back(tc.convertType(t));
  if (converted.size() == 1)
    return converted[0];
  return LLVM::LLVMStructType::getLiteral(results[0].getContext(), converted);
}

struct FuncOpConversion : public TesseraOpToLLVMPattern<tt::FuncOp> {
  FuncOpConversion(TesseraLLVMTypeConverter &tc, int numWarps)
      : TesseraOpToLLVMPattern(tc), numWarps(numWarps) {}

  LogicalResult
  matchAndRewrite(tt::FuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    FunctionType type = op.getFunctionType();
    TypeConverter::SignatureConversion sig(type.getNumInputs());
    SmallVector<Type> argTypes;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      Type c = tc.convertType(t);
      if (!c)
        return rewriter.notifyMatchFailure(op, "unsupported argument type");
      sig.addInputs(i, c);
      argTypes.push_back(c);
    }
    // A kernel of a module with profiling scopes takes the global profile
    // buffer after its own arguments (see prof-lower-records); one with global
    // scratch takes its base last (see ttg-allocate-global-scratch).
    bool hiddenProfile = false;
    if (op.isPublic() && !op.isNoInline())
      if (auto size = op->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
              "prof.bytes_per_program"))
        hiddenProfile = size.getInt() > 0;
    if (hiddenProfile)
      argTypes.push_back(LLVM::LLVMPointerType::get(op.getContext(), 1));
    bool hiddenScratch = false;
    if (op.isPublic() && !op.isNoInline())
      if (auto size = op->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
              "ttg.global_scratch_memory_size"))
        hiddenScratch = size.getInt() > 0;
    if (hiddenScratch)
      argTypes.push_back(LLVM::LLVMPointerType::get(op.getContext(), 1));
    // A noinline function that uses shared memory gets its base from the
    // caller (the call's virtual buffer; see ttg-allocate-shared-memory).
    bool sharedBase = false;
    if (!(op.isPublic() && !op.isNoInline()))
      if (auto need = op->getAttrOfType<IntegerAttr>("ttg.func_shared"))
        sharedBase = need.getInt() > 0;
    if (sharedBase)
      argTypes.push_back(LLVM::LLVMPointerType::get(
          op.getContext(), tc.getTargetInfo().getSharedAddressSpace()));
    Type resultType =
        type.getNumResults() == 0
            ? Type(LLVM::LLVMVoidType::get(op.getContext()))
            : packedResultType(tc, type.getResults());
    auto fnType = LLVM::LLVMFunctionType::get(resultType, argTypes);
    bool isKernel = op.isPublic() && !op.isNoInline();
    auto newFunc = LLVM::LLVMFuncOp::create(
        rewriter, op.getLoc(), op.getName(), fnType,
        isKernel ? LLVM::Linkage::External : LLVM::Linkage::Internal);
    if (isKernel) {
      tc.getTargetInfo().markAsKernel(newFunc, numWarps * tc.getTargetInfo().getWarpSize());
      // A tensor-descriptor argument of a kernel is the descriptor object
      // itself, passed by value; the function sees its address.
      for (auto [i, t] : llvm::enumerate(type.getInputs())) {
        if (!isa<tt::TensorDescType>(t))
          continue;
        int bytes = tc.getTargetInfo().getDescriptorBytes();
        if (bytes == 0)
          return op.emitError() << "argument " << i << " is a tensor descriptor (" << t
                                << "), which this target passes to kernels only as the "
                                   "pointers, sizes and strides it is made of";
        newFunc.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                           TypeAttr::get(LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes)));
        newFunc.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), rewriter.getI64IntegerAttr(64));
        tc.getTargetInfo().markDescriptorArgument(newFunc, i);
      }
    }
    else
      newFunc->setAttr("passthrough", rewriter.getArrayAttr({rewriter.getStringAttr("noinline")}));
    rewriter.inlineRegionBefore(op.getBody(), newFunc.getBody(), newFunc.end());
    if (failed(rewriter.convertRegionTypes(&newFunc.getBody(), tc, &sig)))
      return failure();
    if (hiddenProfile) {
      unsigned index = type.getNumInputs();
      newFunc.getBody().front().addArgument(argTypes[index], op.getLoc());
      newFunc->setAttr(kProfileArgAttr, rewriter.getI32IntegerAttr(index));
    }
    if (hiddenScratch || sharedBase)
      newFunc.getBody().front().addArgument(argTypes.back(), op.getLoc());
    if (sharedBase)
      newFunc->setAttr(kSharedBaseAttr, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }

  int numWarps;
};

struct ReturnOpConversion : public TesseraOpToLLVMPattern<tt::ReturnOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange values = adaptor.getSrcs();
    if (values.empty()) {
      rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
      return success();
    }
    if (values.size() == 1) {
      rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, values[0]);
      return success();
    }
    SmallVector<Type> types;
    for (Value v : values)
      types.push_back(v.getType());
    auto st = LLVM::LLVMStructType::getLiteral(op.getContext(), types);
    Value packed = packStruct(rewriter, op.getLoc(), st, values);
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, packed);
    return success();
  }
};

struct CallOpConversion : public TesseraOpToLLVMPattern<tt::CallOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> operands(adaptor.getOperands());
    // A callee that uses shared memory works in this call's virtual buffer.
    if (auto off = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset")) {
      const auto &tc = this->getTesseraTypeConverter();
      operands.push_back(
          getSharedMemoryAddress(rewriter, loc, op, tc.getTargetInfo(), off.getInt()));
    }
    SmallVector<Type> results;
    for (Type t : op.getResultTypes())
      results.push_back(getTypeConverter()->convertType(t));
    Type ret = results.empty() ? Type(LLVM::LLVMVoidType::get(op.getContext()))
               : results.size() == 1
                   ? results[0]
                   : LLVM::LLVMStructType::getLiteral(op.getContext(), results);
    SmallVector<Type> argTypes;
    for (Value v : operands)
      argTypes.push_back(v.getType());
    auto fnType = LLVM::LLVMFunctionType::get(ret, argTypes);
    auto call = LLVM::CallOp::create(rewriter, loc, fnType, op.getCallee(), operands);
    if (results.empty()) {
      rewriter.eraseOp(op);
    } else if (results.size() == 1) {
      rewriter.replaceOp(op, call.getResult());
    } else {
      rewriter.replaceOp(op, unpackStruct(rewriter, loc, call.getResult()));
    }
    return success();
  }
};

template <typename OpTy, bool numPrograms>
struct ProgramIdConversion : public TesseraOpToLLVMPattern<OpTy> {
  ProgramIdConversion(TesseraLLVMTypeConverter &tc)
      : TesseraOpToLLVMPattern<OpTy>(tc), targetInfo(tc.getTargetInfo()) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int axis = static_cast<int>(op.getAxis());
    Value v = numPrograms ? targetInfo.numPrograms(rewriter, op.getLoc(), axis)
                          : targetInfo.programId(rewriter, op.getLoc(), axis);
    rewriter.replaceOp(op, v);
    return success();
  }
  const TargetInfoBase &targetInfo;
};

/// `ttg.global_scratch_alloc`: the kernel's hidden scratch base, plus this
/// program's region (linear program index × bytes per program), plus the
/// alloc's offset within the region.
struct GlobalScratchAllocConversion : public TesseraOpToLLVMPattern<ttg::GlobalScratchAllocOp> {
  GlobalScratchAllocConversion(TesseraLLVMTypeConverter &tc)
      : TesseraOpToLLVMPattern(tc), targetInfo(tc.getTargetInfo()) {}
  LogicalResult
  matchAndRewrite(ttg::GlobalScratchAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto offset = op->getAttrOfType<IntegerAttr>("ttg.global_scratch_offset");
    auto size = op->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
        "ttg.global_scratch_memory_size");
    if (!offset || !size)
      return op.emitOpError("has no scratch offset: run ttg-allocate-global-scratch first");
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!fn || fn.getBody().empty())
      return rewriter.notifyMatchFailure(op, "the enclosing function is not lowered yet");
    Value base = fn.getBody().front().getArguments().back();
    auto i64 = rewriter.getI64Type();
    auto ext = [&](Value v) { return LLVM::ZExtOp::create(rewriter, loc, i64, v).getResult(); };
    Value x = ext(targetInfo.programId(rewriter, loc, 0));
    Value y = ext(targetInfo.programId(rewriter, loc, 1));
    Value z = ext(targetInfo.programId(rewriter, loc, 2));
    Value nx = ext(targetInfo.numPrograms(rewriter, loc, 0));
    Value ny = ext(targetInfo.numPrograms(rewriter, loc, 1));
    // linear = x + nx * (y + ny * z)
    Value linear = LLVM::AddOp::create(
        rewriter, loc, x,
        LLVM::MulOp::create(rewriter, loc, nx,
                            LLVM::AddOp::create(rewriter, loc, y,
                                                LLVM::MulOp::create(rewriter, loc, ny, z))));
    Value perProgram = LLVM::ConstantOp::create(rewriter, loc, i64, size.getInt());
    Value bytes = LLVM::MulOp::create(rewriter, loc, linear, perProgram);
    if (offset.getInt() != 0)
      bytes = LLVM::AddOp::create(
          rewriter, loc, bytes, LLVM::ConstantOp::create(rewriter, loc, i64, offset.getInt()));
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, base.getType(), rewriter.getI8Type(), base,
                                             ValueRange{bytes});
    return success();
  }
  const TargetInfoBase &targetInfo;
};

struct BarrierConversion : public TesseraOpToLLVMPattern<ttg::BarrierOp> {
  BarrierConversion(TesseraLLVMTypeConverter &tc)
      : TesseraOpToLLVMPattern(tc), targetInfo(tc.getTargetInfo()) {}
  LogicalResult
  matchAndRewrite(ttg::BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    targetInfo.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
  const TargetInfoBase &targetInfo;
};

} // namespace

void mlir::tessera::populateFuncOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns,
    int numWarps) {
  patterns.add<FuncOpConversion>(typeConverter, numWarps);
  patterns.add<ReturnOpConversion, CallOpConversion>(typeConverter);
  patterns.add<ProgramIdConversion<tt::GetProgramIdOp, false>,
               ProgramIdConversion<tt::GetNumProgramsOp, true>, GlobalScratchAllocConversion,
               BarrierConversion>(
      typeConverter);
}
