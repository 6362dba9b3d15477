//===- ViewOpToLLVM.cpp - index creation and shape ops -----------------------===//
//
// make_range and splat build each thread's elements directly. broadcast,
// expand_dims, reshape, trans and convert_layout are register permutations
// when every thread already holds the elements it needs in the new layout
// (getRegisterPermutation decides it from the LinearLayouts); conversions
// that move data between threads go through shared memory (not lowered
// here yet: such ops fail to legalize with a diagnostic).
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Conversion/TTGToLLVM/ExchangeLayout.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

struct MakeRangeConversion : public TesseraOpToLLVMPattern<tt::MakeRangeOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::MakeRangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = getTesseraTypeConverter();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    if (!supportsLinearLayout(type))
      return rewriter.notifyMatchFailure(op, "unsupported layout");
    auto indices = emitIndices(rewriter, loc, tc.getTargetInfo(), type);
    int32_t start = static_cast<int32_t>(op.getStart());
    SmallVector<Value> elems;
    for (auto &idx : indices)
      elems.push_back(start == 0 ? idx[0]
                                 : LLVM::AddOp::create(rewriter, loc, idx[0],
                                                       i32Val(rewriter, loc, start))
                                       .getResult());
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(type), elems));
    return success();
  }
};

struct SplatConversion : public TesseraOpToLLVMPattern<tt::SplatOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Type st = getTypeConverter()->convertType(type);
    if (!st)
      return rewriter.notifyMatchFailure(op, "unsupported layout");
    SmallVector<Value> elems(getElemsPerThread(type), adaptor.getSrc());
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(), st, elems));
    return success();
  }
};

/// Shared by ops whose result holds, in each thread, elements the source
/// already holds in the same thread. `dstDimToSrcDim[i]` is the source dim
/// of result dim i (-1 for a new size-1 dim).
/// Replaces `op` by the registers `perm` of `src` (a converted tensor) as a
/// tensor of `dstType`.
void replaceByRegisters(Operation *op, Value src, ArrayRef<int32_t> perm,
                        RankedTensorType dstType, const TesseraLLVMTypeConverter &tc,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  SmallVector<Value> elems = unpackStruct(rewriter, loc, src);
  SmallVector<Value> out;
  for (int32_t r : perm)
    out.push_back(elems[r]);
  rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(dstType), out));
}

LogicalResult rewriteAsRegisterPermutation(Operation *op, Value src,
                                           RankedTensorType srcType,
                                           RankedTensorType dstType,
                                           ArrayRef<int32_t> dstDimToSrcDim,
                                           const TesseraLLVMTypeConverter &tc,
                                           ConversionPatternRewriter &rewriter) {
  if (!supportsLinearLayout(srcType) || !supportsLinearLayout(dstType))
    return rewriter.notifyMatchFailure(op, "unsupported layout");
  std::optional<SmallVector<int32_t>> perm = getRegisterPermutation(
      toLinearLayout(srcType), toLinearLayout(dstType), dstDimToSrcDim);
  if (!perm)
    return op->emitError("this change of layout moves data between threads, "
                         "which the GPU lowering does not support yet");
  replaceByRegisters(op, src, *perm, dstType, tc, rewriter);
  return success();
}

struct BroadcastConversion : public TesseraOpToLLVMPattern<tt::BroadcastOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType src = op.getSrc().getType(), dst = op.getType();
    // Result coordinates along broadcast dims map to coordinate 0 of the
    // source: compare with those dims dropped.
    SmallVector<int32_t> map;
    for (int64_t d = 0; d < dst.getRank(); ++d)
      map.push_back(src.getDimSize(d) == 1 && dst.getDimSize(d) != 1 ? -1 : d);
    return rewriteAsRegisterPermutation(op, adaptor.getSrc(), src, dst, map,
                                        getTesseraTypeConverter(), rewriter);
  }
};

struct ExpandDimsConversion : public TesseraOpToLLVMPattern<tt::ExpandDimsOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType src = op.getSrc().getType(), dst = op.getType();
    int32_t axis = static_cast<int32_t>(op.getAxis());
    SmallVector<int32_t> map;
    for (int32_t d = 0; d < dst.getRank(); ++d)
      map.push_back(d == axis ? -1 : (d < axis ? d : d - 1));
    return rewriteAsRegisterPermutation(op, adaptor.getSrc(), src, dst, map,
                                        getTesseraTypeConverter(), rewriter);
  }
};

struct TransConversion : public TesseraOpToLLVMPattern<tt::TransOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<int32_t> map(op.getOrder().begin(), op.getOrder().end());
    return rewriteAsRegisterPermutation(op, adaptor.getSrc(), op.getSrc().getType(),
                                        op.getType(), map, getTesseraTypeConverter(), rewriter);
  }
};

bool isRegisterPermutation(RankedTensorType src, RankedTensorType dst) {
  if (!supportsLinearLayout(src) || !supportsLinearLayout(dst))
    return false;
  SmallVector<int32_t> map;
  for (int32_t d = 0; d < dst.getRank(); ++d)
    map.push_back(d);
  return getRegisterPermutation(toLinearLayout(src), toLinearLayout(dst), map).has_value();
}

int64_t elementBytes(Type elt) {
  if (isa<tt::PointerType>(elt))
    return 8;
  return std::max<int64_t>(elt.getIntOrFloatBitWidth() / 8, 1);
}

/// Ops that rearrange elements between threads by their row-major position:
/// every source element is written to shared memory at a position computed
/// from its coordinates, a barrier, and every result element is read from
/// its position (a barrier before protects earlier users of the buffer).
/// Positions are element indices; `Place` maps (operand or result index,
/// row-major index within that tensor) to the buffer index.
struct SharedExchange {
  ConversionPatternRewriter &rewriter;
  Location loc;
  const TesseraLLVMTypeConverter &tc;
  const TargetInfoBase &ti;
  Value base;
  Type elt;

  Value rowMajor(RankedTensorType t, ArrayRef<Value> coords) {
    Value flat = i32Val(rewriter, loc, 0);
    for (int64_t d = 0; d < t.getRank(); ++d) {
      flat = LLVM::MulOp::create(rewriter, loc, flat, i32Val(rewriter, loc, t.getDimSize(d)));
      flat = LLVM::AddOp::create(rewriter, loc, flat, coords[d]);
    }
    return flat;
  }
  Value address(Value index) {
    auto smemPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), ti.getSharedAddressSpace());
    return LLVM::GEPOp::create(rewriter, loc, smemPtr, elt, base, ValueRange{index});
  }
  /// Writes `value` (a converted tensor of type `t`) at scale * rowMajor + shift.
  void write(Value value, RankedTensorType t, int64_t scale, int64_t shift) {
    SmallVector<Value> elems = unpackStruct(rewriter, loc, value);
    for (auto [v, coords] : llvm::zip(elems, emitIndices(rewriter, loc, ti, t)))
      LLVM::StoreOp::create(rewriter, loc, v, address(place(t, coords, scale, shift)));
  }
  /// Reads a tensor of type `t` from scale * rowMajor + shift.
  Value read(RankedTensorType t, int64_t scale, int64_t shift) {
    SmallVector<Value> out;
    for (auto &coords : emitIndices(rewriter, loc, ti, t))
      out.push_back(LLVM::LoadOp::create(rewriter, loc, elt, address(place(t, coords, scale, shift))));
    return packStruct(rewriter, loc, tc.convertType(t), out);
  }
  Value place(RankedTensorType t, ArrayRef<Value> coords, int64_t scale, int64_t shift) {
    Value i = rowMajor(t, coords);
    if (scale != 1)
      i = LLVM::MulOp::create(rewriter, loc, i, i32Val(rewriter, loc, scale));
    if (shift != 0)
      i = LLVM::AddOp::create(rewriter, loc, i, i32Val(rewriter, loc, shift));
    return i;
  }
};

/// Sets up a SharedExchange for `op` (whose scratch the allocator placed), or
/// fails with the reason.
FailureOr<SharedExchange> sharedExchange(Operation *op, ConversionPatternRewriter &rewriter,
                                         const TesseraLLVMTypeConverter &converter, Type element,
                                         ArrayRef<Type> tensors) {
  for (Type t : tensors)
    if (!supportsLinearLayout(cast<RankedTensorType>(t)))
      return rewriter.notifyMatchFailure(op, "unsupported layout");
  const auto &tc = converter;
  const TargetInfoBase &ti = tc.getTargetInfo();
  auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
  if (!offsetAttr) {
    op->emitError("this op moves data between threads through shared memory; run "
                  "ttg-allocate-shared-memory first");
    return failure();
  }
  Location loc = op->getLoc();
  Value base = getSharedMemoryAddress(rewriter, loc, op, ti, offsetAttr.getInt());
  return SharedExchange{rewriter, loc, tc, ti, base, tc.convertElementType(element)};
}

/// Replaces `op` by its source (converted value `converted` of type `src`)
/// laid out as `dst`, element i of the row-major order staying element i.
LogicalResult moveInRowMajorOrder(Operation *op, Value converted, RankedTensorType src,
                                  RankedTensorType dst, ConversionPatternRewriter &rewriter,
                                  const TesseraLLVMTypeConverter &converter) {
  auto x = sharedExchange(op, rewriter, converter, src.getElementType(), {src, dst});
  if (failed(x))
    return failure();
  x->write(converted, src, 1, 0);
  x->ti.barrier(rewriter, op->getLoc());
  rewriter.replaceOp(op, x->read(dst, 1, 0));
  return success();
}

constexpr llvm::StringLiteral kLoadedExchange = "ttg.loaded_exchange";

/// Whether the value a convert_layout moves through shared memory was loaded
/// from global memory in the same block (directly, or through element-wise
/// ops of one tensor operand) in more than one 16-byte access a thread.
/// ptxas then tends to interleave the exchange's shared stores with those
/// loads and reuse the first load's registers for a later one, so the later
/// loads wait for the first to arrive: a thread's loads are no longer in
/// flight together. A barrier before the stores keeps every load ahead of
/// them (run 133: the 8192² transposes 0.5-1.2% faster; a `membar.cta` in
/// its place gained less). markLoadedExchanges marks such conversions with
/// kLoadedExchange before the rewrite.
static bool loadsBeforeExchange(Value v, RankedTensorType type) {
  if (getElemsPerThread(type) * int64_t(elementBytes(type.getElementType())) <= 16)
    return false;
  Block *block = v.getParentBlock();
  for (int depth = 0; depth < 8; ++depth) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return false;
    if (isa<tt::LoadOp>(def))
      return true;
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1)
      return false;
    Value next;
    for (Value operand : def->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!isa<RankedTensorType>(operand.getType()) ||
          (producer && (isa<tt::SplatOp>(producer) || producer->hasTrait<OpTrait::ConstantLike>())))
        continue;
      if (next)
        return false; // two tensors meet here: not one value's loads
      next = operand;
    }
    if (!next)
      return false;
    v = next;
  }
  return false;
}

/// convert_layout: in registers when each thread already holds what it
/// needs; otherwise every thread writes its elements to shared memory where
/// chooseExchangeLayout puts them (vectors, XOR swizzles against bank
/// conflicts on both sides), a barrier, and every thread reads the elements
/// of its new layout.
struct ConvertLayoutConversion : public TesseraOpToLLVMPattern<ttg::ConvertLayoutOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  LogicalResult convertThroughSharedMemory(ttg::ConvertLayoutOp op, Value converted,
                                           RankedTensorType src, RankedTensorType dst,
                                           ConversionPatternRewriter &rewriter) const {
    auto x = sharedExchange(op, rewriter, getTesseraTypeConverter(), src.getElementType(), {src, dst});
    if (failed(x))
      return failure();
    Location loc = op.getLoc();
    BankModel banks;
    banks.loadMatrices = x->ti.supportsLoadMatrices();
    // LLVM packs vectors of i1 into bits: move booleans one at a time.
    if (src.getElementType().isInteger(1))
      banks.maxVectorBytes = 1;
    ExchangeLayout buf = chooseExchangeLayout(toLinearLayout(src), toLinearLayout(dst),
                                              elementBytes(src.getElementType()), banks);
    if (op->hasAttr(kLoadedExchange))
      x->ti.barrier(rewriter, loc);
    writeThroughExchange(rewriter, loc, x->tc, converted, src, x->base, buf, buf.writeVector);
    x->ti.barrier(rewriter, loc);
    rewriter.replaceOp(op, readThroughExchange(rewriter, loc, x->tc, dst, x->base, buf,
                                               buf.readVector, buf.read));
    return success();
  }

  LogicalResult
  matchAndRewrite(ttg::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    auto dst = cast<RankedTensorType>(op.getType());
    SmallVector<int32_t> map;
    for (int32_t d = 0; d < dst.getRank(); ++d)
      map.push_back(d);
    if (!supportsLinearLayout(src) || !supportsLinearLayout(dst))
      return rewriter.notifyMatchFailure(op, "unsupported layout");
    if (isRegisterPermutation(src, dst))
      return rewriteAsRegisterPermutation(op, adaptor.getSrc(), src, dst, map,
                                          getTesseraTypeConverter(), rewriter);
    return convertThroughSharedMemory(op, adaptor.getSrc(), src, dst, rewriter);
  }
};

/// The register renumbering that implements a reshape from `src` to `dst`
/// when no element changes thread, else std::nullopt.
std::optional<SmallVector<int32_t>> reshapeInRegisters(RankedTensorType src,
                                                       RankedTensorType dst) {
  if (!supportsLinearLayout(src) || !supportsLinearLayout(dst))
    return std::nullopt;
  SmallVector<int32_t> map;
  for (int32_t d = 0; d < dst.getRank(); ++d)
    map.push_back(d);
  return getRegisterPermutation(reshapeRowMajor(toLinearLayout(src), dst.getShape()),
                                toLinearLayout(dst), map);
}

/// tt.reshape: row-major order is kept (also a valid order when
/// allow_reorder is set). When every thread already holds the elements of
/// its result, registers are only renumbered; otherwise the elements move
/// through shared memory.
struct ReshapeConversion : public TesseraOpToLLVMPattern<tt::ReshapeOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType src = op.getSrc().getType(), dst = op.getType();
    if (std::optional<SmallVector<int32_t>> perm = reshapeInRegisters(src, dst)) {
      replaceByRegisters(op, adaptor.getSrc(), *perm, dst, getTesseraTypeConverter(), rewriter);
      return success();
    }
    return moveInRowMajorOrder(op, adaptor.getSrc(), src, dst, rewriter, getTesseraTypeConverter());
  }
};

/// tt.join: result[..., k] is operand k's element (k = 0, 1).
struct JoinConversion : public TesseraOpToLLVMPattern<tt::JoinOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::JoinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType a = op.getLhs().getType(), b = op.getRhs().getType(), dst = op.getType();
    auto x = sharedExchange(op, rewriter, getTesseraTypeConverter(), a.getElementType(), {a, b, dst});
    if (failed(x))
      return failure();
    x->write(adaptor.getLhs(), a, 2, 0);
    x->write(adaptor.getRhs(), b, 2, 1);
    x->ti.barrier(rewriter, op.getLoc());
    rewriter.replaceOp(op, x->read(dst, 1, 0));
    return success();
  }
};

/// tt.split: result k is src[..., k].
struct SplitConversion : public TesseraOpToLLVMPattern<tt::SplitOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType src = op.getSrc().getType();
    auto lhs = cast<RankedTensorType>(op.getOutLHS().getType());
    auto rhs = cast<RankedTensorType>(op.getOutRHS().getType());
    auto x = sharedExchange(op, rewriter, getTesseraTypeConverter(), src.getElementType(), {src, lhs, rhs});
    if (failed(x))
      return failure();
    x->write(adaptor.getSrc(), src, 1, 0);
    x->ti.barrier(rewriter, op.getLoc());
    Value l = x->read(lhs, 2, 0);
    Value r = x->read(rhs, 2, 1);
    rewriter.replaceOp(op, ValueRange{l, r});
    return success();
  }
};

/// tt.cat: rhs follows lhs in row-major order (along dimension 0).
struct CatConversion : public TesseraOpToLLVMPattern<tt::CatOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::CatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto a = cast<RankedTensorType>(op.getLhs().getType());
    auto b = cast<RankedTensorType>(op.getRhs().getType());
    auto dst = cast<RankedTensorType>(op.getType());
    auto x = sharedExchange(op, rewriter, getTesseraTypeConverter(), a.getElementType(), {a, b, dst});
    if (failed(x))
      return failure();
    x->write(adaptor.getLhs(), a, 1, 0);
    x->write(adaptor.getRhs(), b, 1, a.getNumElements());
    x->ti.barrier(rewriter, op.getLoc());
    rewriter.replaceOp(op, x->read(dst, 1, 0));
    return success();
  }
};


/// tt.gather: the source goes to shared memory by row-major position; each
/// result element reads the source position of its own coordinates with the
/// axis coordinate replaced by its index. An index outside the axis reads
/// position 0 of that row instead of memory past the buffer (the result is
/// unspecified there, as in Triton; the interpreter reports it).
struct GatherConversion : public TesseraOpToLLVMPattern<tt::GatherOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    RankedTensorType idx = op.getIndices().getType();
    auto dst = cast<RankedTensorType>(op.getType());
    if (idx.getEncoding() != dst.getEncoding())
      return op.emitOpError() << "needs the result in the indices' layout, got " << dst << " for " << idx;
    auto x = sharedExchange(op, rewriter, getTesseraTypeConverter(), src.getElementType(), {src, idx, dst});
    if (failed(x))
      return failure();
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    x->write(adaptor.getSrc(), src, 1, 0);
    x->ti.barrier(rewriter, loc);
    SmallVector<Value> indices = unpackStruct(rewriter, loc, adaptor.getIndices());
    int64_t n = src.getDimSize(axis);
    SmallVector<Value> out;
    for (auto [i, coords] : llvm::enumerate(emitIndices(rewriter, loc, x->ti, dst))) {
      Value k = indices[i];
      auto kt = cast<IntegerType>(k.getType());
      if (kt.getWidth() > 32)
        k = LLVM::TruncOp::create(rewriter, loc, rewriter.getI32Type(), k);
      else if (kt.getWidth() < 32)
        k = LLVM::SExtOp::create(rewriter, loc, rewriter.getI32Type(), k);
      Value ok = LLVM::AndOp::create(
          rewriter, loc,
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sge, k, i32Val(rewriter, loc, 0)),
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, k, i32Val(rewriter, loc, n)));
      if (kt.getWidth() > 32) { // the truncation must not wrap into range
        Value wide = indices[i];
        Value lo = LLVM::ConstantOp::create(rewriter, loc, kt, rewriter.getIntegerAttr(kt, 0));
        Value hi = LLVM::ConstantOp::create(rewriter, loc, kt, rewriter.getIntegerAttr(kt, n));
        ok = LLVM::AndOp::create(
            rewriter, loc,
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sge, wide, lo),
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, wide, hi));
      }
      SmallVector<Value> at(coords.begin(), coords.end());
      at[axis] = LLVM::SelectOp::create(rewriter, loc, ok, k, i32Val(rewriter, loc, 0));
      out.push_back(LLVM::LoadOp::create(rewriter, loc, x->elt, x->address(x->rowMajor(src, at))));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, x->tc.convertType(dst), out));
    return success();
  }
};

/// tt.histogram: counters in shared memory. Each thread zeroes the bins it
/// will read, then adds 1 with a shared-memory atomic for every element it
/// owns (copies in other threads or registers add nothing) whose value is in
/// range and whose mask is set; no branches: an element that does not count
/// adds 0 to bin 0.
struct HistogramConversion : public TesseraOpToLLVMPattern<tt::HistogramOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType src = op.getSrc().getType(), dst = op.getType();
    SmallVector<Type> tensors = {src, dst};
    if (op.getMask())
      tensors.push_back(op.getMask().getType());
    auto x = sharedExchange(op, rewriter, getTesseraTypeConverter(), dst.getElementType(), tensors);
    if (failed(x))
      return failure();
    Location loc = op.getLoc();
    const TargetInfoBase &ti = x->ti;
    Type cntTy = x->elt;
    int64_t bins = dst.getNumElements();
    Value zero = LLVM::ConstantOp::create(rewriter, loc, cntTy, rewriter.getIntegerAttr(cntTy, 0));
    for (auto &coords : emitIndices(rewriter, loc, ti, dst))
      LLVM::StoreOp::create(rewriter, loc, zero, x->address(coords[0]));
    ti.barrier(rewriter, loc);

    ::tessera::LinearLayout layout = toLinearLayout(src);
    Value owner = isOwnerThread(rewriter, loc, ti, layout);
    auto regCoords = registerCoordinates(layout);
    SmallVector<Value> vals = unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> masks;
    if (op.getMask())
      masks = unpackOrSplat(rewriter, loc, adaptor.getMask(), vals.size());
    auto srcTy = cast<IntegerType>(vals.front().getType());
    Value lo = LLVM::ConstantOp::create(rewriter, loc, srcTy, rewriter.getIntegerAttr(srcTy, 0));
    Value hi = LLVM::ConstantOp::create(rewriter, loc, srcTy, rewriter.getIntegerAttr(srcTy, bins));
    SmallVector<SmallVector<int32_t>> seen;
    for (auto [r, v] : llvm::enumerate(vals)) {
      if (llvm::is_contained(seen, regCoords[r]))
        continue; // a copy of an element this thread already counted
      seen.push_back(regCoords[r]);
      Value inRange = LLVM::AndOp::create(
          rewriter, loc, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sge, v, lo),
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, v, hi));
      Value counts = LLVM::AndOp::create(rewriter, loc, owner, inRange);
      if (!masks.empty())
        counts = LLVM::AndOp::create(rewriter, loc, counts, masks[r]);
      Value bin = srcTy.getWidth() > 32 ? Value(LLVM::TruncOp::create(rewriter, loc, rewriter.getI32Type(), v))
                  : srcTy.getWidth() < 32 ? Value(LLVM::SExtOp::create(rewriter, loc, rewriter.getI32Type(), v))
                                          : v;
      bin = LLVM::SelectOp::create(rewriter, loc, counts, bin, i32Val(rewriter, loc, 0));
      Value one = LLVM::ZExtOp::create(rewriter, loc, cntTy, counts);
      LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::add, x->address(bin), one,
                                LLVM::AtomicOrdering::monotonic);
    }
    ti.barrier(rewriter, loc);
    SmallVector<Value> out;
    for (auto &coords : emitIndices(rewriter, loc, ti, dst))
      out.push_back(LLVM::LoadOp::create(rewriter, loc, cntTy, x->address(coords[0])));
    rewriter.replaceOp(op, packStruct(rewriter, loc, x->tc.convertType(dst), out));
    return success();
  }
};

} // namespace

int64_t mlir::tessera::getViewOpScratchBytes(Operation *op) {
  if (auto g = dyn_cast<tt::GatherOp>(op)) {
    auto t = cast<RankedTensorType>(g.getSrc().getType());
    if (!supportsLinearLayout(t) || !supportsLinearLayout(g.getIndices().getType()))
      return 0;
    return t.getNumElements() * elementBytes(t.getElementType());
  }
  if (auto h = dyn_cast<tt::HistogramOp>(op)) {
    RankedTensorType t = h.getType();
    if (!supportsLinearLayout(t) || !supportsLinearLayout(h.getSrc().getType()))
      return 0;
    return t.getNumElements() * elementBytes(t.getElementType());
  }
  // Reshape (unless it stays in registers), join, split and cat exchange
  // through shared memory.
  if (auto r = dyn_cast<tt::ReshapeOp>(op);
      r && reshapeInRegisters(r.getSrc().getType(), r.getType()))
    return 0;
  if (isa<tt::ReshapeOp, tt::JoinOp, tt::CatOp>(op)) {
    auto t = cast<RankedTensorType>(op->getResult(0).getType());
    if (!supportsLinearLayout(t))
      return 0;
    return t.getNumElements() * elementBytes(t.getElementType());
  }
  if (auto split = dyn_cast<tt::SplitOp>(op)) {
    RankedTensorType t = split.getSrc().getType();
    if (!supportsLinearLayout(t))
      return 0;
    return t.getNumElements() * elementBytes(t.getElementType());
  }
  auto cvt = dyn_cast<ttg::ConvertLayoutOp>(op);
  if (!cvt)
    return 0;
  auto src = cast<RankedTensorType>(cvt.getSrc().getType());
  auto dst = cast<RankedTensorType>(cvt.getType());
  if (!supportsLinearLayout(src) || !supportsLinearLayout(dst) || isRegisterPermutation(src, dst))
    return 0;
  return src.getNumElements() * elementBytes(src.getElementType());
}

void mlir::tessera::populateViewOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<MakeRangeConversion, SplatConversion, BroadcastConversion,
               ExpandDimsConversion, TransConversion, ConvertLayoutConversion,
               ReshapeConversion, JoinConversion, SplitConversion, CatConversion,
               HistogramConversion, GatherConversion>(
      typeConverter);
}

void mlir::tessera::markLoadedExchanges(ModuleOp module) {
  module.walk([&](ttg::ConvertLayoutOp op) {
    auto src = dyn_cast<RankedTensorType>(op.getSrc().getType());
    // (Not where ttg-membar already put a barrier right before the op.)
    if (src && !isa_and_nonnull<ttg::BarrierOp>(op->getPrevNode()) && loadsBeforeExchange(op.getSrc(), src))
      op->setAttr(kLoadedExchange, UnitAttr::get(op.getContext()));
  });
}
