//===- MemoryOpToLLVM.cpp - shared-memory buffers and asynchronous copies -===//
//
// A !ttg.memdesc becomes the shared-memory address of its first element; its
// encoding (swizzled_shared or a vendor's shared layout) says where every
// other element is: toSharedLinearLayout maps offsets to coordinates, and its
// inverse (an ExchangeLayout, coordinates to offsets) drives the accesses,
// which reuse the layout-conversion machinery: vectors where registers and
// offsets run together, 8 x 8 matrix loads for 16-bit tensor-core operands.
// ttg.local_alloc takes its offset from ttg-allocate-shared-memory;
// memdesc_index moves by whole buffers. Asynchronous copies become the
// target's global-to-shared copies (cp.async), grouped and waited for.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/ExchangeLayout.h"
#include "tessera/Conversion/TTGToLLVM/PatternBase.h"
#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Conversion/TTGToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/bit.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

int64_t bytesOf(Type elt) {
  if (isa<tt::PointerType>(elt))
    return 8;
  return std::max<int64_t>(elt.getIntOrFloatBitWidth() / 8, 1);
}

} // namespace

FailureOr<ExchangeLayout> mlir::tessera::getSharedBufferOffsets(Type memDescType) {
  auto type = dyn_cast<ttg::MemDescType>(memDescType);
  if (!type)
    return failure();
  std::optional<LinearLayout> ll = toSharedLinearLayout(type.getShape(), type.getEncoding());
  if (!ll)
    return failure();
  auto outDims = ll->getOutDims();
  int rank = int(outDims.size());
  // Coordinate bits, dim by dim, as one vector; offset bits likewise.
  SmallVector<int> dimBits;
  int n = 0;
  for (auto &[name, size] : outDims) {
    dimBits.push_back(llvm::Log2_32(size));
    n += dimBits.back();
  }
  const auto &bases = ll->getBases();
  if (bases.size() != 1 || int(bases.front().second.size()) != n || n > 30)
    return failure();
  auto flatten = [&](const LinearLayout::BasisVec &v) {
    uint32_t f = 0;
    int shift = 0;
    for (int d = 0; d < rank; ++d) {
      f |= uint32_t(v[d]) << shift;
      shift += dimBits[d];
    }
    return f;
  };
  // Gauss-Jordan over GF(2): rows (coordinate bits of offset bit i | 1 << i).
  SmallVector<std::pair<uint32_t, uint32_t>> rows;
  for (int i = 0; i < n; ++i)
    rows.push_back({flatten(bases.front().second[i]), uint32_t(1) << i});
  for (int bit = 0; bit < n; ++bit) {
    int pivot = -1;
    for (int r = bit; r < n; ++r)
      if ((rows[r].first >> bit) & 1) {
        pivot = r;
        break;
      }
    if (pivot < 0)
      return failure(); // not a bijection
    std::swap(rows[bit], rows[pivot]);
    for (int r = 0; r < n; ++r)
      if (r != bit && ((rows[r].first >> bit) & 1)) {
        rows[r].first ^= rows[bit].first;
        rows[r].second ^= rows[bit].second;
      }
  }
  ExchangeLayout x;
  x.elements = int64_t(1) << n;
  x.offsetOfBit.assign(rank, {});
  int flat = 0;
  for (int d = 0; d < rank; ++d)
    for (int i = 0; i < dimBits[d]; ++i)
      x.offsetOfBit[d].push_back(int32_t(rows[flat++].second));
  return x;
}

namespace {

/// Offsets (elements) of every group of `vector` registers of `ll` for this
/// thread through `x`: the lane/warp part XORed once, each group's constant
/// part XORed where the bits overlap and added where they do not.
SmallVector<Value> groupOffsets(OpBuilder &b, Location loc, const TargetInfoBase &ti,
                                const ExchangeLayout &x, const LinearLayout &ll, int32_t vector) {
  auto [lane, warp] = laneAndWarp(b, loc, ti);
  Value thread = i32Val(b, loc, 0);
  int32_t threadBits = 0;
  for (auto [dim, id] : {std::pair<StringRef, Value>{"lane", lane}, {"warp", warp}}) {
    if (!ll.hasInDim(dim))
      continue;
    for (int32_t bit = 0; bit < ll.getInDimSizeLog2(dim); ++bit) {
      int32_t off = x.offsetOf(ll.getBasis(dim, bit));
      if (off == 0)
        continue;
      threadBits |= off;
      Value set = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, id, i32Val(b, loc, bit)), i32Val(b, loc, 1));
      thread = arith::XOrIOp::create(b, loc, thread,
                                     arith::MulIOp::create(b, loc, set, i32Val(b, loc, off)));
    }
  }
  SmallVector<Value> out;
  SmallVector<SmallVector<int32_t>> regs = registerCoordinates(ll);
  for (size_t r = 0; r < regs.size(); r += vector) {
    int32_t c = x.offsetOf(regs[r]);
    Value v = thread;
    if (c & threadBits)
      v = arith::XOrIOp::create(b, loc, v, i32Val(b, loc, c & threadBits));
    if (c & ~threadBits)
      v = arith::AddIOp::create(b, loc, v, i32Val(b, loc, c & ~threadBits));
    out.push_back(v);
  }
  return out;
}

Value elementAddress(OpBuilder &b, Location loc, const TargetInfoBase &ti, Value base, Type elt,
                     Value offset) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), ti.getSharedAddressSpace());
  return LLVM::GEPOp::create(b, loc, ptrTy, elt, base, ValueRange{offset});
}

/// The access limits for elements of `t`: LLVM packs vectors of i1 into bits,
/// so booleans move one at a time.
BankModel limitsFor(RankedTensorType t) {
  BankModel limits;
  if (t.getElementType().isInteger(1))
    limits.maxVectorBytes = 1;
  return limits;
}

} // namespace

void mlir::tessera::writeThroughExchange(OpBuilder &b, Location loc,
                                         const TesseraLLVMTypeConverter &tc, Value value,
                                         RankedTensorType t, Value base, const ExchangeLayout &x,
                                         int32_t v) {
  const TargetInfoBase &ti = tc.getTargetInfo();
  Type elt = tc.convertElementType(t.getElementType());
  int64_t bytes = bytesOf(t.getElementType());
  LinearLayout ll = toLinearLayout(t);
  SmallVector<Value> elems = unpackStruct(b, loc, value);
  SmallVector<Value> offs = groupOffsets(b, loc, ti, x, ll, v);
  for (size_t r = 0; r < elems.size(); r += v) {
    Value addr = elementAddress(b, loc, ti, base, elt, offs[r / v]);
    if (v == 1) {
      LLVM::StoreOp::create(b, loc, elems[r], addr);
      continue;
    }
    auto vecTy = VectorType::get({v}, elt);
    Value vec = LLVM::UndefOp::create(b, loc, vecTy);
    for (int32_t i = 0; i < v; ++i)
      vec = LLVM::InsertElementOp::create(b, loc, vec, elems[r + i], i32Val(b, loc, i));
    LLVM::StoreOp::create(b, loc, vec, addr, v * bytes);
  }
}

Value mlir::tessera::readThroughExchange(OpBuilder &b, Location loc,
                                         const TesseraLLVMTypeConverter &tc, RankedTensorType t,
                                         Value base, const ExchangeLayout &x, int32_t v,
                                         ExchangeRead kind) {
  const TargetInfoBase &ti = tc.getTargetInfo();
  Type elt = tc.convertElementType(t.getElementType());
  int64_t bytes = bytesOf(t.getElementType());
  LinearLayout ll = toLinearLayout(t);
  SmallVector<Value> out(getElemsPerThread(t));
  if (kind != ExchangeRead::Vectors) {
    bool trans = kind == ExchangeRead::TransposedMatrices;
    auto basis = [&](StringRef dim, int bit) { return x.offsetOf(ll.getBasis(dim, bit)); };
    // Lane l gives row l % 8 of matrix l / 8.
    LinearLayout::BasisVec zero(ll.getNumOutDims(), 0);
    int32_t rowOff[3], matOff[2] = {basis("register", 1), basis("register", 2)};
    for (int i = 0; i < 3; ++i)
      rowOff[i] = trans ? (i == 0 ? basis("register", 0) : basis("lane", i - 1)) : basis("lane", 2 + i);
    auto [lane, warp] = laneAndWarp(b, loc, ti);
    Value thread = i32Val(b, loc, 0);
    int32_t threadBits = 0;
    auto addBit = [&](Value id, int bit, int32_t off) {
      if (off == 0)
        return;
      threadBits |= off;
      Value set = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, id, i32Val(b, loc, bit)), i32Val(b, loc, 1));
      thread = arith::XOrIOp::create(b, loc, thread,
                                     arith::MulIOp::create(b, loc, set, i32Val(b, loc, off)));
    };
    for (int i = 0; i < 3; ++i)
      addBit(lane, i, rowOff[i]);
    for (int i = 0; i < 2; ++i)
      addBit(lane, 3 + i, matOff[i]);
    if (ll.hasInDim("warp"))
      for (int32_t bit = 0; bit < ll.getInDimSizeLog2("warp"); ++bit)
        addBit(warp, bit, basis("warp", bit));
    SmallVector<SmallVector<int32_t>> coords = registerCoordinates(ll);
    auto pairTy = VectorType::get({2}, elt);
    for (size_t g = 0; g < coords.size(); g += 8) {
      int32_t c = x.offsetOf(coords[g]);
      Value off = thread;
      if (c & threadBits)
        off = arith::XOrIOp::create(b, loc, off, i32Val(b, loc, c & threadBits));
      if (c & ~threadBits)
        off = arith::AddIOp::create(b, loc, off, i32Val(b, loc, c & ~threadBits));
      SmallVector<Value> words =
          ti.loadMatrices(b, loc, elementAddress(b, loc, ti, base, elt, off), trans);
      for (int i = 0; i < 4; ++i) {
        Value pair = LLVM::BitcastOp::create(b, loc, pairTy, words[i]);
        for (int j = 0; j < 2; ++j)
          out[g + 2 * i + j] = LLVM::ExtractElementOp::create(b, loc, pair, i32Val(b, loc, j));
      }
    }
    return packStruct(b, loc, tc.convertType(t), out);
  }
  SmallVector<Value> offs = groupOffsets(b, loc, ti, x, ll, v);
  for (size_t r = 0; r < out.size(); r += v) {
    Value addr = elementAddress(b, loc, ti, base, elt, offs[r / v]);
    if (v == 1) {
      out[r] = LLVM::LoadOp::create(b, loc, elt, addr);
      continue;
    }
    Value vec = LLVM::LoadOp::create(b, loc, VectorType::get({v}, elt), addr, v * bytes);
    for (int32_t i = 0; i < v; ++i)
      out[r + i] = LLVM::ExtractElementOp::create(b, loc, vec, i32Val(b, loc, i));
  }
  return packStruct(b, loc, tc.convertType(t), out);
}

namespace {

/// Writes the registers of a tensor of type `t` (converted value `value`) to
/// the buffer at `base` laid out as `x`, in the widest vectors it allows.
void storeToBuffer(OpBuilder &b, Location loc, const TesseraLLVMTypeConverter &tc, Value value,
                   RankedTensorType t, Value base, const ExchangeLayout &x) {
  int32_t v = exchangeVector(x, toLinearLayout(t), bytesOf(t.getElementType()), limitsFor(t));
  writeThroughExchange(b, loc, tc, value, t, base, x, v);
}

/// Reads a tensor of type `t` from the buffer at `base` laid out as `x`:
/// 8 x 8 matrix loads where the target has them and the layout allows, else
/// the widest vectors.
Value loadFromBuffer(OpBuilder &b, Location loc, const TesseraLLVMTypeConverter &tc,
                     RankedTensorType t, Value base, const ExchangeLayout &x) {
  LinearLayout ll = toLinearLayout(t);
  int64_t bytes = bytesOf(t.getElementType());
  ExchangeRead kind = tc.getTargetInfo().supportsLoadMatrices() ? exchangeMatrixRead(x, ll, bytes)
                                                                : ExchangeRead::Vectors;
  return readThroughExchange(b, loc, tc, t, base, x, exchangeVector(x, ll, bytes, limitsFor(t)),
                             kind);
}

LogicalResult unsupportedBuffer(Operation *op, ttg::MemDescType type) {
  return op->emitError() << "shared-memory layout " << type.getEncoding()
                         << " has no lowering (it must be a bijection of the buffer's elements)";
}

struct LocalAllocConversion : public TesseraOpToLLVMPattern<ttg::LocalAllocOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::LocalAllocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>("ttg.allocation.offset");
    if (!offset)
      return op.emitError("a shared-memory buffer without an offset; run "
                          "ttg-allocate-shared-memory first");
    const auto &tc = getTesseraTypeConverter();
    Location loc = op.getLoc();
    Value base = getSharedMemoryAddress(rewriter, loc, op, tc.getTargetInfo(), offset.getInt());
    if (Value src = op.getSrc()) {
      FailureOr<ExchangeLayout> x = getSharedBufferOffsets(op.getType());
      if (failed(x))
        return unsupportedBuffer(op, op.getType());
      storeToBuffer(rewriter, loc, tc, adaptor.getSrc(), cast<RankedTensorType>(src.getType()),
                    base, *x);
      tc.getTargetInfo().fenceStoresForAsyncReaders(rewriter, loc, op.getType().getEncoding());
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LocalDeallocConversion : public TesseraOpToLLVMPattern<ttg::LocalDeallocOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::LocalDeallocOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op); // lifetimes were Allocation's business
    return success();
  }
};

struct MemDescIndexConversion : public TesseraOpToLLVMPattern<ttg::MemDescIndexOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::MemDescIndexOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ttg::MemDescType t = op.getType();
    auto srcType = cast<ttg::MemDescType>(op.getSrc().getType());
    if (srcType.getAllocShape() != srcType.getShape())
      return op.emitError("indexing a view of part of a larger buffer has no lowering yet");
    int64_t elems = 1;
    for (int64_t s : t.getShape())
      elems *= s;
    Location loc = op.getLoc();
    const auto &tc = getTesseraTypeConverter();
    Type elt = tc.convertElementType(t.getElementType());
    Value index = adaptor.getIndex();
    Value off = arith::MulIOp::create(rewriter, loc, index, i32Val(rewriter, loc, elems));
    rewriter.replaceOp(op, elementAddress(rewriter, loc, tc.getTargetInfo(), adaptor.getSrc(), elt, off));
    return success();
  }
};

/// A transposed view is the same address: its layout must describe the same
/// bytes (each element of the view at the offset of the source element it
/// stands for).
struct MemDescTransConversion : public TesseraOpToLLVMPattern<ttg::MemDescTransOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ttg::MemDescTransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ttg::MemDescType src = op.getSrc().getType(), dst = op.getType();
    FailureOr<ExchangeLayout> x = getSharedBufferOffsets(src), y = getSharedBufferOffsets(dst);
    ArrayRef<int32_t> order = op.getOrder();
    bool same = succeeded(x) && succeeded(y) && x->elements == y->elements;
    for (size_t d = 0; same && d < order.size(); ++d)
      same = y->offsetOfBit[d] == x->offsetOfBit[order[d]];
    if (!same)
      return op.emitOpError() << "cannot lower: the layout of " << dst
                              << " does not describe the bytes of " << src
                              << " transposed by the order";
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct LocalLoadConversion : public TesseraOpToLLVMPattern<ttg::LocalLoadOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::LocalLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ttg::MemDescType>(op.getSrc().getType());
    RankedTensorType t = op.getType();
    if (!supportsLinearLayout(t))
      return rewriter.notifyMatchFailure(op, "unsupported layout");
    FailureOr<ExchangeLayout> x = getSharedBufferOffsets(type);
    if (failed(x))
      return unsupportedBuffer(op, type);
    rewriter.replaceOp(op, loadFromBuffer(rewriter, op.getLoc(), getTesseraTypeConverter(), t,
                                          adaptor.getSrc(), *x));
    return success();
  }
};

struct LocalStoreConversion : public TesseraOpToLLVMPattern<ttg::LocalStoreOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::LocalStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ttg::MemDescType>(op.getDst().getType());
    RankedTensorType t = op.getSrc().getType();
    if (!supportsLinearLayout(t))
      return rewriter.notifyMatchFailure(op, "unsupported layout");
    FailureOr<ExchangeLayout> x = getSharedBufferOffsets(type);
    if (failed(x))
      return unsupportedBuffer(op, type);
    storeToBuffer(rewriter, op.getLoc(), getTesseraTypeConverter(), adaptor.getSrc(), t,
                  adaptor.getDst(), *x);
    getTargetInfo().fenceStoresForAsyncReaders(rewriter, op.getLoc(), type.getEncoding());
    rewriter.eraseOp(op);
    return success();
  }
};

/// async_copy_global_to_local: per group of consecutive elements (as many as
/// the op's `contiguity`, the source registers and the buffer's offsets allow,
/// 4 to 16 bytes) one background copy, zero-filled where the mask is off;
/// where the target has no such copies, or a group would be under 4 bytes,
/// the elements are loaded and stored at once (the copy is then complete
/// before any wait).
struct AsyncCopyConversion : public TesseraOpToLLVMPattern<ttg::AsyncCopyGlobalToLocalOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto ptrType = cast<RankedTensorType>(op.getSrc().getType());
    auto type = cast<ttg::MemDescType>(op.getDst().getType());
    if (!supportsLinearLayout(ptrType))
      return rewriter.notifyMatchFailure(op, "unsupported layout");
    Type eltType = type.getElementType();
    if (Value other = op.getOther()) {
      if (!matchPattern(other, m_AnyZeroFloat()) && !matchPattern(other, m_Zero()))
        return op.emitError("an asynchronous copy fills masked-off elements with zeros; `other` "
                            "must be zero (or absent)");
    }
    FailureOr<ExchangeLayout> x = getSharedBufferOffsets(type);
    if (failed(x))
      return unsupportedBuffer(op, type);
    const auto &tc = getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    Type elt = tc.convertElementType(eltType);
    int64_t bytes = bytesOf(eltType);
    LinearLayout ll = toLinearLayout(ptrType);
    // `contiguity` promises runs of consecutive addresses with equal mask
    // bits; a power of two of them per copy.
    BankModel limits;
    int32_t promised = int32_t(llvm::bit_floor(uint32_t(std::max<int32_t>(1, int32_t(op.getContiguity())))));
    int32_t v = std::min<int32_t>(exchangeVector(*x, ll, bytes, limits), promised);
    bool async = ti.supportsAsyncCopy() && v * bytes >= 4;
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    if (!async)
      v = 1;
    SmallVector<Value> offs = groupOffsets(rewriter, loc, ti, *x, ll, v);
    Value yes = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), rewriter.getBoolAttr(true));
    for (size_t r = 0; r < ptrs.size(); r += v) {
      Value dst = elementAddress(rewriter, loc, ti, adaptor.getDst(), elt, offs[r / v]);
      Value pred = masks.empty() ? yes : masks[r];
      if (async) {
        ti.copyAsync(rewriter, loc, dst, ptrs[r], int(v * bytes), pred);
        continue;
      }
      Type bits = rewriter.getIntegerType(unsigned(bytes * 8));
      Value val = ti.loadPredicated(rewriter, loc, ptrs[r], bits, pred,
                                    intVal(rewriter, loc, bits, 0), op.getIsVolatile());
      if (isa<LLVM::LLVMPointerType>(elt))
        val = LLVM::IntToPtrOp::create(rewriter, loc, elt, val);
      else if (elt != bits)
        val = LLVM::BitcastOp::create(rewriter, loc, elt, val);
      LLVM::StoreOp::create(rewriter, loc, val, dst);
    }
    rewriter.replaceOp(op, i32Val(rewriter, loc, 0));
    return success();
  }
};

struct AsyncCommitGroupConversion : public TesseraOpToLLVMPattern<ttg::AsyncCommitGroupOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::AsyncCommitGroupOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const TargetInfoBase &ti = getTesseraTypeConverter().getTargetInfo();
    if (ti.supportsAsyncCopy())
      ti.commitAsyncCopies(rewriter, op.getLoc());
    rewriter.replaceOp(op, i32Val(rewriter, op.getLoc(), 0));
    return success();
  }
};

struct AsyncWaitConversion : public TesseraOpToLLVMPattern<ttg::AsyncWaitOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttg::AsyncWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const TargetInfoBase &ti = getTesseraTypeConverter().getTargetInfo();
    if (ti.supportsAsyncCopy())
      ti.waitAsyncCopies(rewriter, op.getLoc(), int(op.getNum()));
    rewriter.replaceOp(op, i32Val(rewriter, op.getLoc(), 0));
    return success();
  }
};

} // namespace

void mlir::tessera::populateMemoryOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                   RewritePatternSet &patterns) {
  patterns.add<LocalAllocConversion, LocalDeallocConversion, MemDescIndexConversion, MemDescTransConversion,
               LocalLoadConversion, LocalStoreConversion, AsyncCopyConversion,
               AsyncCommitGroupConversion, AsyncWaitConversion>(typeConverter);
}
