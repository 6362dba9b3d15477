//===- LoadStoreOpToLLVM.cpp - tt.load / tt.store through pointers -----------===//
//
// One access per element a thread owns: unmasked accesses are plain LLVM
// loads and stores; masked ones go through the target's predicated access
// (a false mask touches no memory and a load gives `other`, or zero).
// Not handled here: block pointers (rewritten to pointer tensors before),
// vectorized accesses (come with AxisInfo), cache modifiers.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

Value bitsOf(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<IntegerType>(t))
    return v;
  unsigned bits = isa<LLVM::LLVMPointerType>(t) ? 64 : t.getIntOrFloatBitWidth();
  Type it = b.getIntegerType(bits);
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::PtrToIntOp::create(b, loc, it, v);
  return LLVM::BitcastOp::create(b, loc, it, v);
}

Value fromBits(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::IntToPtrOp::create(b, loc, t, v);
  return LLVM::BitcastOp::create(b, loc, t, v);
}

struct LoadConversion : public TesseraOpToLLVMPattern<tt::LoadOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    if (auto p = dyn_cast<tt::PointerType>(op.getPtr().getType()); p && p.isBlockPointer())
      return op.emitError("block-pointer loads must be rewritten to pointer tensors before lowering");
    Type resultType = op.getType();
    Type elt = tc.convertElementType(resultType);
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    int64_t n = tensorType ? getElemsPerThread(tensorType) : 1;
    SmallVector<Value> ptrs = unpackOrSplat(rewriter, loc, adaptor.getPtr(), n);
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackOrSplat(rewriter, loc, adaptor.getMask(), n);
    if (adaptor.getOther())
      others = unpackOrSplat(rewriter, loc, adaptor.getOther(), n);
    unsigned bits = isa<LLVM::LLVMPointerType>(elt) ? 64 : elt.getIntOrFloatBitWidth();
    Type intTy = rewriter.getIntegerType(bits);
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i) {
      if (masks.empty()) {
        results.push_back(LLVM::LoadOp::create(rewriter, loc, elt, ptrs[i], /*alignment=*/0,
                                               op.getIsVolatile()));
        continue;
      }
      Value other = others.empty()
                        ? Value(LLVM::ConstantOp::create(rewriter, loc, intTy,
                                                         rewriter.getIntegerAttr(intTy, 0)))
                        : bitsOf(rewriter, loc, others[i]);
      Value v = tc.getTargetInfo().loadPredicated(rewriter, loc, ptrs[i], intTy, masks[i],
                                                  other, op.getIsVolatile());
      results.push_back(fromBits(rewriter, loc, v, elt));
    }
    if (!tensorType)
      rewriter.replaceOp(op, results[0]);
    else
      rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(tensorType), results));
    return success();
  }
};

struct StoreConversion : public TesseraOpToLLVMPattern<tt::StoreOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    if (auto p = dyn_cast<tt::PointerType>(op.getPtr().getType()); p && p.isBlockPointer())
      return op.emitError("block-pointer stores must be rewritten to pointer tensors before lowering");
    auto tensorType = dyn_cast<RankedTensorType>(op.getValue().getType());
    int64_t n = tensorType ? getElemsPerThread(tensorType) : 1;
    SmallVector<Value> ptrs = unpackOrSplat(rewriter, loc, adaptor.getPtr(), n);
    SmallVector<Value> vals = unpackOrSplat(rewriter, loc, adaptor.getValue(), n);
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackOrSplat(rewriter, loc, adaptor.getMask(), n);
    for (int64_t i = 0; i < n; ++i) {
      if (masks.empty()) {
        LLVM::StoreOp::create(rewriter, loc, vals[i], ptrs[i]);
        continue;
      }
      tc.getTargetInfo().storePredicated(rewriter, loc, ptrs[i], bitsOf(rewriter, loc, vals[i]),
                                         masks[i]);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tessera::populateLoadStoreOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<LoadConversion, StoreConversion>(typeConverter);
}
