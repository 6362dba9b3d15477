//===- Canonicalize.cpp - folds and canonicalization patterns of tt ------===//
//
// Folds: splat/broadcast/expand_dims/reshape/trans of constants, identity
// broadcast/reshape/trans/bitcast, addptr and advance by zero.
// Patterns: chains of shape ops collapse (broadcast∘splat, broadcast∘broadcast,
// expand_dims∘splat, reshape∘splat, reshape∘reshape, trans∘splat,
// trans∘trans), addptr∘addptr merges offsets, loads and stores with a
// constant mask drop it (all true) or disappear (all false).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TT/IR/Dialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tessera::tt;

namespace {

/// A splat constant (scalar int/float or splat dense elements) reshaped to
/// `type`; null when `attr` is not such a constant.
Attribute reshapeSplatConstant(Attribute attr, ShapedType type) {
  if (!attr || isa<PointerType>(type.getElementType()))
    return {};
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    return SplatElementsAttr::get(type, splat.getSplatValue<Attribute>());
  return {};
}

/// True for a constant integer (or splat of one) equal to `value`.
bool isConstantInt(Value v, int64_t value) {
  APInt ap;
  if (matchPattern(v, m_ConstantInt(&ap)))
    return ap.getSExtValue() == value;
  return false;
}

enum class MaskKind { Unknown, AllTrue, AllFalse };

MaskKind classifyMask(Value mask) {
  if (!mask)
    return MaskKind::Unknown;
  if (matchPattern(mask, m_One()))
    return MaskKind::AllTrue;
  if (matchPattern(mask, m_Zero()))
    return MaskKind::AllFalse;
  return MaskKind::Unknown;
}

} // namespace

//===----------------------------------------------------------------------===//
// Folds
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getSrc();
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  bool identity = true;
  for (auto [i, d] : llvm::enumerate(getOrder()))
    identity &= static_cast<int32_t>(i) == d;
  if (identity && getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<BitcastOp>())
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
  return {};
}

OpFoldResult AddPtrOp::fold(FoldAdaptor) {
  if (isConstantInt(getOffset(), 0))
    return getPtr();
  return {};
}

OpFoldResult AdvanceOp::fold(FoldAdaptor) {
  if (llvm::all_of(getOffsets(), [](Value v) { return isConstantInt(v, 0); }))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// shape_op(splat x) -> splat x, for broadcast, expand_dims, reshape, trans.
template <typename OpTy>
struct ShapeOfSplat : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast x) -> broadcast x.
struct BroadcastOfBroadcast : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

/// reshape(reshape x) -> reshape x; the order may change if either may.
struct ReshapeOfReshape : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner || inner.getEfficientLayout() || op.getEfficientLayout())
      return failure();
    bool reorder = op.getAllowReorder() || inner.getAllowReorder();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc(),
                                           reorder, /*efficient_layout=*/false);
    return success();
  }
};

/// trans(trans x, inner), outer -> trans x, inner ∘ outer.
struct TransOfTrans : public OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<TransOp>();
    if (!inner)
      return failure();
    SmallVector<int32_t> order;
    for (int32_t d : op.getOrder())
      order.push_back(inner.getOrder()[d]);
    rewriter.replaceOpWithNewOp<TransOp>(op, op.getType(), inner.getSrc(),
                                         rewriter.getDenseI32ArrayAttr(order));
    return success();
  }
};

/// addptr(addptr p, a), b -> addptr p, a + b  (offsets of the same type).
struct AddPtrOfAddPtr : public OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), inner.getOffset(),
                                      op.getOffset());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(),
                                          sum);
    return success();
  }
};

/// A load whose mask is constant: all true drops mask and other; all false
/// (with `other`) is replaced by `other`.
struct LoadWithConstantMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    switch (classifyMask(op.getMask())) {
    case MaskKind::AllTrue:
      rewriter.modifyOpInPlace(op, [&] {
        op.getMaskMutable().clear();
        op.getOtherMutable().clear();
      });
      return success();
    case MaskKind::AllFalse:
      if (!op.getOther() || op.getIsVolatile())
        return failure();
      rewriter.replaceOp(op, op.getOther());
      return success();
    case MaskKind::Unknown:
      return failure();
    }
    return failure();
  }
};

/// A store whose mask is constant: all true drops it, all false erases it.
struct StoreWithConstantMask : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    switch (classifyMask(op.getMask())) {
    case MaskKind::AllTrue:
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
      return success();
    case MaskKind::AllFalse:
      rewriter.eraseOp(op);
      return success();
    case MaskKind::Unknown:
      return failure();
    }
    return failure();
  }
};

} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOfSplat<BroadcastOp>, BroadcastOfBroadcast>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ShapeOfSplat<ExpandDimsOp>>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOfSplat<ReshapeOp>, ReshapeOfReshape>(context);
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ShapeOfSplat<TransOp>, TransOfTrans>(context);
}

void AddPtrOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<AddPtrOfAddPtr>(context);
}

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<LoadWithConstantMask>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<StoreWithConstantMask>(context);
}
