//===- ReduceOpToLLVM.cpp - tt.reduce ---------------------------------------===//
//
// 1. In each thread, combine the registers that hold elements of the same
//    output element (same coordinates once the axis is dropped), in register
//    order.
// 2. Across the lanes of a warp: a butterfly of shuffles over the lane bits
//    that move along the axis.
// 3. Across warps (when warp bits move along the axis): every warp writes its
//    partial results to shared scratch memory, a barrier, and every thread
//    combines the partials of its output elements (many partials: by
//    shuffles, one per lane; when every warp holds every output element, in
//    the first warp alone, which stores the totals for all threads to read
//    after a second barrier).
// The combine region is inlined at each step, so any combiner works.
// Not handled: layouts whose lane or warp bits move along the axis and
// another dim at once (reported as an error).
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/IR/IRMapping.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

/// Lane/warp bits of `layout` along `axis`; fails if a bit moves along the
/// axis and another dim.
std::optional<SmallVector<int32_t>> axisBits(const LinearLayout &layout,
                                             StringRef dim, int axis) {
  SmallVector<int32_t> bits;
  if (!layout.hasInDim(dim))
    return bits;
  for (int32_t b = 0; b < layout.getInDimSizeLog2(dim); ++b) {
    const auto &v = layout.getBasis(dim, b);
    if (v[axis] == 0)
      continue;
    for (size_t d = 0; d < v.size(); ++d)
      if (static_cast<int>(d) != axis && v[d] != 0)
        return std::nullopt;
    bits.push_back(b);
  }
  return bits;
}

struct Reduction {
  tt::ReduceOp op;
  RankedTensorType srcType;
  LinearLayout layout;
  int axis;
  SmallVector<int32_t> laneBits, warpBits;
  /// Keys (coordinates with the axis set to 0) in first-appearance order.
  SmallVector<SmallVector<int32_t>> keys;
  /// For each register, the index of its key.
  SmallVector<int32_t> keyOfRegister;
};

std::optional<Reduction> analyze(tt::ReduceOp op) {
  auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
  if (!supportsLinearLayout(srcType))
    return std::nullopt;
  Reduction r{op, srcType, toLinearLayout(srcType), static_cast<int>(op.getAxis()), {}, {}, {}, {}};
  auto lanes = axisBits(r.layout, "lane", r.axis);
  auto warps = axisBits(r.layout, "warp", r.axis);
  if (!lanes || !warps)
    return std::nullopt;
  r.laneBits = *lanes;
  r.warpBits = *warps;
  for (SmallVector<int32_t> c : registerCoordinates(r.layout)) {
    c[r.axis] = 0;
    auto it = llvm::find(r.keys, c);
    if (it == r.keys.end()) {
      r.keyOfRegister.push_back(r.keys.size());
      r.keys.push_back(c);
    } else {
      r.keyOfRegister.push_back(it - r.keys.begin());
    }
  }
  return r;
}

/// Number of output elements (product of the non-axis dims).
int64_t outputElements(const Reduction &r) {
  int64_t n = 1;
  for (int64_t d = 0; d < r.srcType.getRank(); ++d)
    if (d != r.axis)
      n *= r.srcType.getDimSize(d);
  return n;
}

/// The i32 whose bit i is bit `bits[i]` of `id`. A run of consecutive source
/// bits becomes one field, `(id >> bits[i]) & mask` moved to bit i (a warp's
/// index among sixteen warps along the axis is `warp & 15`, not four one-bit
/// terms, which LLVM turns into a chain of shared-memory address additions).
Value gatherBits(OpBuilder &b, Location loc, Value id, ArrayRef<int32_t> bits) {
  Value out;
  for (size_t i = 0; i < bits.size();) {
    size_t len = 1;
    while (i + len < bits.size() && bits[i + len] == bits[i] + int32_t(len))
      ++len;
    Value field = bits[i] == 0 ? id : LLVM::LShrOp::create(b, loc, id, i32Val(b, loc, bits[i])).getResult();
    field = LLVM::AndOp::create(b, loc, field, i32Val(b, loc, (int64_t(1) << len) - 1));
    if (i != 0)
      field = LLVM::ShlOp::create(b, loc, field, i32Val(b, loc, int32_t(i)));
    out = out ? LLVM::OrOp::create(b, loc, out, field).getResult() : field;
    i += len;
  }
  return out ? out : i32Val(b, loc, 0);
}

int64_t elementBytes(tt::ReduceOp op) {
  int64_t bytes = 0;
  for (Value v : op.getSrcs()) {
    Type t = cast<RankedTensorType>(v.getType()).getElementType();
    bytes += isa<tt::PointerType>(t) ? 8 : std::max<int64_t>(t.getIntOrFloatBitWidth() / 8, 1);
  }
  return bytes;
}

struct ReduceConversion : public TesseraOpToLLVMPattern<tt::ReduceOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  /// The kind of a reduction whose combiner is one integer min / max / add /
  /// and / or / xor of its two arguments over one operand, and whose lanes
  /// are all the warp's 32; none otherwise.
  static std::optional<AtomicRMWKind> wholeWarpKind(tt::ReduceOp op, const Reduction &red) {
    if (op.getSrcs().size() != 1)
      return std::nullopt;
    if (ttg::lookupThreadsPerWarp(op) != 32)
      return std::nullopt;
    SmallVector<int32_t> bits(red.laneBits.begin(), red.laneBits.end());
    llvm::sort(bits);
    if (bits != SmallVector<int32_t>{0, 1, 2, 3, 4})
      return std::nullopt;
    Block &block = op.getCombineOp().front();
    if (!llvm::hasSingleElement(block.without_terminator()))
      return std::nullopt;
    Operation &inner = block.front();
    if (inner.getNumOperands() != 2 || inner.getNumResults() != 1 ||
        block.getTerminator()->getOperand(0) != inner.getResult(0))
      return std::nullopt;
    Value a = block.getArgument(0), b = block.getArgument(1);
    if (!((inner.getOperand(0) == a && inner.getOperand(1) == b) ||
          (inner.getOperand(0) == b && inner.getOperand(1) == a)))
      return std::nullopt;
    if (!inner.getResult(0).getType().isInteger(32))
      return std::nullopt;
    if (isa<arith::AddIOp>(inner)) return AtomicRMWKind::Add;
    if (isa<arith::MaxSIOp>(inner)) return AtomicRMWKind::Max;
    if (isa<arith::MinSIOp>(inner)) return AtomicRMWKind::Min;
    if (isa<arith::MaxUIOp>(inner)) return AtomicRMWKind::UMax;
    if (isa<arith::MinUIOp>(inner)) return AtomicRMWKind::UMin;
    if (isa<arith::AndIOp>(inner)) return AtomicRMWKind::And;
    if (isa<arith::OrIOp>(inner)) return AtomicRMWKind::Or;
    if (isa<arith::XOrIOp>(inner)) return AtomicRMWKind::Xor;
    return std::nullopt;
  }

  SmallVector<Value> combine(ConversionPatternRewriter &rewriter, tt::ReduceOp op,
                             ArrayRef<Value> acc, ArrayRef<Value> cur) const {
    Block &block = op.getCombineOp().front();
    IRMapping map;
    unsigned n = acc.size();
    for (unsigned i = 0; i < n; ++i) {
      map.map(block.getArgument(i), acc[i]);
      map.map(block.getArgument(n + i), cur[i]);
    }
    for (Operation &inner : block.without_terminator())
      rewriter.clone(inner, map);
    SmallVector<Value> out;
    for (Value v : block.getTerminator()->getOperands())
      out.push_back(map.lookupOrDefault(v));
    return out;
  }

  LogicalResult
  matchAndRewrite(tt::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    std::optional<Reduction> red = analyze(op);
    if (!red)
      return op.emitOpError("the GPU lowering cannot reduce along this layout yet");
    unsigned numOperands = op.getSrcs().size();
    // 1. In-thread.
    SmallVector<SmallVector<Value>> regs; // [operand][register]
    for (Value v : adaptor.getSrcs())
      regs.push_back(unpackStruct(rewriter, loc, v));
    SmallVector<SmallVector<Value>> acc(red->keys.size()); // [key][operand]
    for (size_t r = 0; r < red->keyOfRegister.size(); ++r) {
      SmallVector<Value> cur;
      for (unsigned k = 0; k < numOperands; ++k)
        cur.push_back(regs[k][r]);
      auto &a = acc[red->keyOfRegister[r]];
      a = a.empty() ? cur : combine(rewriter, op, a, cur);
    }
    // 2. Across lanes: in one instruction where the target has one for this
    // combiner over the whole warp, else by butterflies.
    // Every accumulator reduced in one instruction, or none (a value reduced
    // once must not go through the butterflies again).
    std::optional<AtomicRMWKind> whole = wholeWarpKind(op, *red);
    if (whole) {
      SmallVector<Value> reduced;
      for (auto &a : acc)
        if (Value r = ti.warpReduceAll(rewriter, loc, a[0], *whole))
          reduced.push_back(r);
      if (reduced.size() == acc.size()) {
        for (auto [a, r] : llvm::zip(acc, reduced))
          a[0] = r;
      } else {
        whole.reset();
      }
    }
    for (int32_t bit : whole ? ArrayRef<int32_t>() : ArrayRef<int32_t>(red->laneBits))
      for (auto &a : acc) {
        SmallVector<Value> other;
        for (Value v : a)
          other.push_back(ti.shuffleXor(rewriter, loc, v, 1 << bit));
        a = combine(rewriter, op, a, other);
      }
    // 3. Across warps, through shared memory.
    if (!red->warpBits.empty()) {
      auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
      if (!offsetAttr)
        return op.emitError("reduction across warps needs shared memory; run ttg-allocate-shared-memory first");
      int64_t nOut = outputElements(*red);
      int64_t groups = int64_t(1) << red->warpBits.size();
      auto [lane, warp] = laneAndWarp(rewriter, loc, ti);
      // This warp's index among the warps along the axis.
      Value group = gatherBits(rewriter, loc, warp, red->warpBits);
      // Flat index of each key's output element, from the thread's runtime
      // coordinates (the axis coordinate is dropped).
      SmallVector<SmallVector<Value>> coords = emitIndices(rewriter, loc, ti, red->srcType);
      SmallVector<Value> flatOfKey(red->keys.size());
      for (size_t r = 0; r < red->keyOfRegister.size(); ++r) {
        int32_t key = red->keyOfRegister[r];
        if (flatOfKey[key])
          continue;
        Value flat = i32Val(rewriter, loc, 0);
        for (int64_t d = 0; d < red->srcType.getRank(); ++d) {
          if (d == red->axis)
            continue;
          flat = LLVM::MulOp::create(rewriter, loc, flat,
                                     i32Val(rewriter, loc, red->srcType.getDimSize(d)));
          flat = LLVM::AddOp::create(rewriter, loc, flat, coords[r][d]);
        }
        flatOfKey[key] = flat;
      }
      Value base = getSharedMemoryAddress(rewriter, loc, op, ti, offsetAttr.getInt());
      auto smemPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), ti.getSharedAddressSpace());
      // Buffers, one per operand: [groups][nOut] elements.
      SmallVector<Value> buffers;
      int64_t byteOffset = 0;
      for (unsigned k = 0; k < numOperands; ++k) {
        Type elt = acc[0][k].getType();
        buffers.push_back(LLVM::GEPOp::create(rewriter, loc, smemPtr, rewriter.getI8Type(), base,
                                              ValueRange{i32Val(rewriter, loc, byteOffset)}));
        int64_t bytes = isa<LLVM::LLVMPointerType>(elt) ? 8 : std::max<unsigned>(elt.getIntOrFloatBitWidth() / 8, 1);
        byteOffset += groups * nOut * bytes;
      }
      // Each buffer's row of this warp's partials, then a key's element in
      // it: keys at constant positions (a thread's rows) stay constant offsets
      // from one address, which LLVM stores as vectors.
      Value groupBase = LLVM::MulOp::create(rewriter, loc, group, i32Val(rewriter, loc, nOut));
      SmallVector<Value> rows;
      for (unsigned k = 0; k < numOperands; ++k)
        rows.push_back(LLVM::GEPOp::create(rewriter, loc, smemPtr, acc[0][k].getType(), buffers[k],
                                           ValueRange{groupBase}));
      for (size_t key = 0; key < acc.size(); ++key) {
        for (unsigned k = 0; k < numOperands; ++k) {
          Value v = acc[key][k];
          Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, v.getType(), rows[k], ValueRange{flatOfKey[key]});
          LLVM::StoreOp::create(rewriter, loc, v, p);
        }
      }
      ti.barrier(rewriter, loc);
      // Many partials (more than one 16-byte read of them): each lane of a
      // warp reads one partial, the lanes along the axis combine them by
      // shuffles (every lane of such a group has the same key), so a thread
      // holds one partial at a time instead of all of them, next to data
      // that is often still live (the row of a softmax or a cross-entropy).
      // When, besides, no warp bit moves along another dim, the first warp
      // alone holds every key: only its lanes read the partials and combine
      // them, the lanes of group 0 store the totals over the partials of
      // group 0, a barrier, and every thread reads its totals back. The
      // other warps wait at the barrier instead of each repeating the same
      // reads and shuffles. With four partials or fewer every thread reads
      // them directly: the second barrier costs more than the reads (runs
      // 165, 166: softmax 4096x1024 and layer norm 4096x1024, four warps,
      // 3-4% slower with the first-warp form).
      size_t logGroups = red->warpBits.size();
      bool viaShuffles = groups > 4 && red->laneBits.size() >= logGroups;
      bool firstWarpOnly =
          viaShuffles && llvm::all_of(llvm::seq<int32_t>(0, red->layout.getInDimSizeLog2("warp")), [&](int32_t b) {
            return llvm::is_contained(red->warpBits, b) ||
                   llvm::all_of(red->layout.getBasis("warp", b), [](int32_t x) { return x == 0; });
          });
      Value inFirstWarp, groupOfLane;
      if (viaShuffles) {
        groupOfLane = gatherBits(rewriter, loc, lane, ArrayRef<int32_t>(red->laneBits).take_front(logGroups));
        if (firstWarpOnly)
          inFirstWarp = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, ti.threadId(rewriter, loc),
                                             i32Val(rewriter, loc, ti.getWarpSize()));
        for (size_t key = 0; key < acc.size(); ++key) {
          Value idx = LLVM::AddOp::create(
              rewriter, loc, LLVM::MulOp::create(rewriter, loc, groupOfLane, i32Val(rewriter, loc, nOut)),
              flatOfKey[key]);
          SmallVector<Value> part;
          for (unsigned k = 0; k < numOperands; ++k) {
            Type t = acc[key][k].getType();
            Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, t, buffers[k], ValueRange{idx});
            if (firstWarpOnly)
              part.push_back(ti.loadSharedPredicated(rewriter, loc, p, t, inFirstWarp, acc[key][k]));
            else
              part.push_back(LLVM::LoadOp::create(rewriter, loc, t, p));
          }
          for (size_t i = 0; i < logGroups; ++i) {
            SmallVector<Value> other;
            for (Value v : part)
              other.push_back(ti.shuffleXor(rewriter, loc, v, 1 << red->laneBits[i]));
            part = combine(rewriter, op, part, other);
          }
          acc[key] = part;
        }
      }
      if (firstWarpOnly) {
        // Every lane of the first warp has read its partials before any
        // lane stores: a store follows the lane's shuffles, and a shuffle
        // waits for every lane's operand, which its load produced.
        Value storer = LLVM::AndOp::create(
            rewriter, loc, inFirstWarp,
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, groupOfLane, i32Val(rewriter, loc, 0)));
        for (size_t key = 0; key < acc.size(); ++key)
          for (unsigned k = 0; k < numOperands; ++k) {
            Value v = acc[key][k];
            Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, v.getType(), buffers[k], ValueRange{flatOfKey[key]});
            ti.storeSharedPredicated(rewriter, loc, p, v, storer);
          }
        ti.barrier(rewriter, loc);
        for (size_t key = 0; key < acc.size(); ++key)
          for (unsigned k = 0; k < numOperands; ++k) {
            Type t = acc[key][k].getType();
            Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, t, buffers[k], ValueRange{flatOfKey[key]});
            acc[key][k] = LLVM::LoadOp::create(rewriter, loc, t, p);
          }
      }
      for (size_t key = 0; key < acc.size() && !viaShuffles; ++key) {
        SmallVector<Value> total;
        for (int64_t g = 0; g < groups; ++g) {
          Value idx = LLVM::AddOp::create(rewriter, loc, i32Val(rewriter, loc, g * nOut), flatOfKey[key]);
          SmallVector<Value> part;
          for (unsigned k = 0; k < numOperands; ++k) {
            Type t = acc[key][k].getType();
            Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, t, buffers[k], ValueRange{idx});
            part.push_back(LLVM::LoadOp::create(rewriter, loc, t, p));
          }
          total = total.empty() ? part : combine(rewriter, op, total, part);
        }
        acc[key] = total;
      }
      // Barriers before the next op that touches these bytes come from
      // ttg-membar.
    }
    // 4. Results.
    SmallVector<Value> results;
    for (unsigned k = 0; k < numOperands; ++k) {
      Type resultType = op.getResult()[k].getType();
      auto rt = dyn_cast<RankedTensorType>(resultType);
      if (!rt) {
        results.push_back(acc[0][k]);
        continue;
      }
      if (!supportsLinearLayout(rt))
        return op.emitError("unsupported result layout of a reduction");
      SmallVector<Value> elems;
      for (SmallVector<int32_t> c : registerCoordinates(toLinearLayout(rt))) {
        c.insert(c.begin() + red->axis, 0);
        auto it = llvm::find(red->keys, c);
        if (it == red->keys.end())
          return op.emitError("a reduction result element has no source in this thread");
        elems.push_back(acc[it - red->keys.begin()][k]);
      }
      results.push_back(packStruct(rewriter, loc, tc.convertType(rt), elems));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

int64_t mlir::tessera::getScratchBytes(Operation *op) {
  auto red = dyn_cast<tt::ReduceOp>(op);
  if (!red)
    return 0;
  std::optional<Reduction> r = analyze(red);
  if (!r || r->warpBits.empty())
    return 0;
  return (int64_t(1) << r->warpBits.size()) * outputElements(*r) * elementBytes(red);
}

Value mlir::tessera::getSharedMemoryAddress(OpBuilder &b, Location loc, Operation *from,
                                            const TargetInfoBase &ti, int64_t offset) {
  auto module = from->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto smemPtr = LLVM::LLVMPointerType::get(ctx, ti.getSharedAddressSpace());
  auto fn = from->getParentOfType<LLVM::LLVMFuncOp>();
  if (fn && fn->hasAttr(kSharedBaseAttr) && !fn.getBody().empty()) {
    Value base = fn.getBody().front().getArguments().back();
    if (offset == 0)
      return base;
    return LLVM::GEPOp::create(b, loc, smemPtr, b.getI8Type(), base,
                               ValueRange{i32Val(b, loc, offset)});
  }
  return getModuleSharedMemoryAddress(b, loc, module, ti, offset);
}

Value mlir::tessera::getModuleSharedMemoryAddress(OpBuilder &b, Location loc, ModuleOp module,
                                                  const TargetInfoBase &ti, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  auto smemPtr = LLVM::LLVMPointerType::get(ctx, ti.getSharedAddressSpace());
  StringRef name = "global_smem";
  if (!module.lookupSymbol<LLVM::GlobalOp>(name)) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    if (ti.staticSharedMemory()) {
      // Sized as the module needs, internal, left undefined (its size is recorded
      // in the code object).
      int64_t bytes = 0;
      if (auto attr = module->getAttrOfType<IntegerAttr>("ttg.shared"))
        bytes = attr.getInt();
      auto arrayTy = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), std::max<int64_t>(bytes, 1));
      auto global = LLVM::GlobalOp::create(b, loc, arrayTy, /*isConstant=*/false,
                                           LLVM::Linkage::Internal, name, Attribute(),
                                           /*alignment=*/16, ti.getSharedAddressSpace());
      Block *init = b.createBlock(&global.getInitializerRegion());
      b.setInsertionPointToStart(init);
      LLVM::ReturnOp::create(b, loc, LLVM::UndefOp::create(b, loc, arrayTy).getResult());
    } else {
      auto arrayTy = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
      LLVM::GlobalOp::create(b, loc, arrayTy, /*isConstant=*/false, LLVM::Linkage::External, name,
                             Attribute(), /*alignment=*/16, ti.getSharedAddressSpace());
    }
  }
  Value base = LLVM::AddressOfOp::create(b, loc, smemPtr, name);
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, smemPtr, b.getI8Type(), base,
                             ValueRange{i32Val(b, loc, offset)});
}

void mlir::tessera::populateReduceOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                   RewritePatternSet &patterns) {
  patterns.add<ReduceConversion>(typeConverter);
}
