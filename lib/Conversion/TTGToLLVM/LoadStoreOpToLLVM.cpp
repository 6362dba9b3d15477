//===- LoadStoreOpToLLVM.cpp - tt.load / tt.store through pointers -----------===//
//
// One access per element a thread owns: unmasked accesses are plain LLVM
// loads and stores; masked ones go through the target's predicated access
// (a false mask touches no memory and a load gives `other`, or zero).
// Not handled here: block pointers (rewritten to pointer tensors before),
// vectorized accesses (come with AxisInfo). An access with a cache modifier
// or eviction policy goes through the target's access too (unmasked: with a
// true predicate), which passes them to the hardware.
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

MemoryHints hintsOf(tt::CacheModifier cache, tt::EvictionPolicy evict) {
  MemoryHints h;
  switch (cache) {
  case tt::CacheModifier::NONE: h.cache = CacheOp::None; break;
  case tt::CacheModifier::CA: h.cache = CacheOp::CA; break;
  case tt::CacheModifier::CG: h.cache = CacheOp::CG; break;
  case tt::CacheModifier::CS: h.cache = CacheOp::CS; break;
  case tt::CacheModifier::CV: h.cache = CacheOp::CV; break;
  case tt::CacheModifier::WB: h.cache = CacheOp::WB; break;
  case tt::CacheModifier::WT: h.cache = CacheOp::WT; break;
  }
  switch (evict) {
  case tt::EvictionPolicy::NORMAL: h.evict = EvictHint::Normal; break;
  case tt::EvictionPolicy::EVICT_FIRST: h.evict = EvictHint::First; break;
  case tt::EvictionPolicy::EVICT_LAST: h.evict = EvictHint::Last; break;
  }
  return h;
}

Value trueValue(OpBuilder &b, Location loc) {
  return LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
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
    MemoryHints hints = hintsOf(op.getCache(), op.getEvict());
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i) {
      if (masks.empty() && (hints.isDefault() || op.getIsVolatile())) {
        results.push_back(LLVM::LoadOp::create(rewriter, loc, elt, ptrs[i], /*alignment=*/0,
                                               op.getIsVolatile()));
        continue;
      }
      Value other = others.empty()
                        ? Value(LLVM::ConstantOp::create(rewriter, loc, intTy,
                                                         rewriter.getIntegerAttr(intTy, 0)))
                        : bitsOf(rewriter, loc, others[i]);
      Value pred = masks.empty() ? trueValue(rewriter, loc) : masks[i];
      Value v = tc.getTargetInfo().loadPredicated(rewriter, loc, ptrs[i], intTy, pred,
                                                  other, op.getIsVolatile(), hints);
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
    MemoryHints hints = hintsOf(op.getCache(), op.getEvict());
    for (int64_t i = 0; i < n; ++i) {
      if (masks.empty() && hints.isDefault()) {
        LLVM::StoreOp::create(rewriter, loc, vals[i], ptrs[i]);
        continue;
      }
      Value pred = masks.empty() ? trueValue(rewriter, loc) : masks[i];
      tc.getTargetInfo().storePredicated(rewriter, loc, ptrs[i], bitsOf(rewriter, loc, vals[i]),
                                         pred, hints);
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
