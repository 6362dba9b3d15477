//===- ScanOpToLLVM.cpp - tt.scan -----------------------------------------===//
//
// An inclusive scan along `axis`, for any associative combiner (not
// necessarily commutative), any number of operands, forward or reverse.
//
// Layouts: every register/lane/warp basis must move along the axis only (by
// a power of two) or not at all; then each bit a of an element's position
// along the axis comes from exactly one register, lane or warp bit, in any
// order. A reverse scan is a forward scan of the position with every axis bit
// flipped ("virtual" position v = p ^ (N - 1)), so below "position" means v.
//
// The scan runs over the axis bits from the lowest up. After bit a-1, every
// element knows, for its block (the 2^a positions sharing its bits >= a):
//   Q  the scan of its element within the part of the block it started with
//      (the lowest in-thread run, see 1.),
//   C  the combination of everything of the block before that part (its
//      carry; absent, statically or at run time through a flag, for the
//      first part), and
//   T  the block's total.
// Merging with the sibling block (the same positions with bit a flipped)
// takes the sibling's total T': the upper block's elements prepend T' to
// their carry, both get total T(lower) + T(upper). The result is C + Q.
//  1. The lowest axis bits that come from registers: a sequential scan of
//     each thread's runs of consecutive elements (Q, and T = its last value).
//  2. A higher register bit: T' is another register of the same thread.
//  3. A lane bit: T' by a butterfly shuffle; lower/upper known at run time.
//  4. A run of consecutive warp bits (m of them): every thread writes its
//     blocks' totals to shared scratch memory (offset from
//     ttg-allocate-shared-memory), a barrier, and every thread reads the 2^m
//     totals of its merged block, combines the ones before its own (its new
//     carry part) and all of them (the new total); a barrier protects the
//     buffer's next use.
// The combine region is inlined at every step; identical combines, selects
// and shuffles are emitted once (so registers that share a block share its
// shuffles and combines).
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/IR/IRMapping.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

#include <map>

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

enum class Source { Register, Lane, Warp };

/// Where one axis bit of an element's position comes from.
struct AxisBit {
  Source source;
  int32_t bit; // the bit of the register index / lane id / warp id
};

struct ScanPlan {
  RankedTensorType type;
  LinearLayout layout;
  int axis = 0;
  int64_t axisSize = 1;
  bool reverse = false;
  /// One entry per axis bit, lowest first.
  SmallVector<AxisBit> levels;
  /// Number of lowest axis bits that come from registers.
  int inThreadLevels = 0;
  /// Constant coordinates of each register (lane = warp = 0).
  SmallVector<SmallVector<int32_t>> regCoords;
  /// Number of positions along the other dims (product of their sizes).
  int64_t rows = 1;
};

FailureOr<ScanPlan> planScan(tt::ScanOp op, std::string &why) {
  auto type = cast<RankedTensorType>(op.getSrcs()[0].getType());
  if (!supportsLinearLayout(type)) {
    why = "its operand has no linear layout";
    return failure();
  }
  for (Value v : op.getSrcs())
    if (cast<RankedTensorType>(v.getType()).getEncoding() !=
        type.getEncoding()) {
      why = "its operands have different layouts";
      return failure();
    }
  for (Value v : op.getSrcs()) {
    Type elt = cast<RankedTensorType>(v.getType()).getElementType();
    if (!elt.isIntOrFloat() ||
        (isa<FloatType>(elt) && elt.getIntOrFloatBitWidth() == 8)) {
      llvm::raw_string_ostream os(why);
      os << "its elements are " << elt
         << " (pointers and 8-bit floats are not supported)";
      return failure();
    }
  }
  ScanPlan plan;
  plan.type = type;
  plan.layout = toLinearLayout(type);
  plan.axis = static_cast<int>(op.getAxis());
  plan.axisSize = type.getDimSize(plan.axis);
  plan.reverse = op.getReverse();
  plan.rows = type.getNumElements() / std::max<int64_t>(plan.axisSize, 1);
  if (!llvm::isPowerOf2_64(plan.axisSize)) {
    why = "the axis size is not a power of two";
    return failure();
  }
  int numLevels = llvm::Log2_64(plan.axisSize);
  SmallVector<std::optional<AxisBit>> levels(numLevels);
  for (auto [name, source] :
       {std::pair<StringRef, Source>{"register", Source::Register},
        {"lane", Source::Lane},
        {"warp", Source::Warp},
        {"block", Source::Warp}}) {
    if (!plan.layout.hasInDim(name))
      continue;
    for (int32_t b = 0; b < plan.layout.getInDimSizeLog2(name); ++b) {
      const LinearLayout::BasisVec &v = plan.layout.getBasis(name, b);
      int32_t along = v[plan.axis];
      if (along == 0)
        continue;
      for (size_t d = 0; d < v.size(); ++d)
        if (static_cast<int>(d) != plan.axis && v[d] != 0) {
          why = (Twine("a ") + name +
                 " bit moves along the axis and another dimension")
                    .str();
          return failure();
        }
      if (name == "block") {
        why = "the axis is split across CTAs";
        return failure();
      }
      if (!llvm::isPowerOf2_32(along)) {
        why = (Twine("a ") + name + " bit moves along the axis by " +
               Twine(along) + ", not a power of two")
                  .str();
        return failure();
      }
      int level = llvm::Log2_32(along);
      if (levels[level]) {
        why = "two layout bits move along the axis by the same amount";
        return failure();
      }
      levels[level] = AxisBit{source, b};
    }
  }
  for (auto &l : levels) {
    if (!l) {
      why = "the layout does not cover the axis";
      return failure();
    }
    plan.levels.push_back(*l);
  }
  while (plan.inThreadLevels < numLevels &&
         plan.levels[plan.inThreadLevels].source == Source::Register)
    ++plan.inThreadLevels;
  plan.regCoords = registerCoordinates(plan.layout);
  return plan;
}

int64_t elementBytes(Type t) {
  if (isa<tt::PointerType, LLVM::LLVMPointerType>(t))
    return 8;
  return std::max<int64_t>(t.getIntOrFloatBitWidth() / 8, 1);
}

/// Bytes of one element of every operand together.
int64_t operandBytes(tt::ScanOp op) {
  int64_t bytes = 0;
  for (Value v : op.getSrcs())
    bytes += elementBytes(cast<RankedTensorType>(v.getType()).getElementType());
  return bytes;
}

/// The runs of consecutive warp levels: (first level, number of levels).
SmallVector<std::pair<int, int>> warpRuns(const ScanPlan &plan) {
  SmallVector<std::pair<int, int>> runs;
  int n = plan.levels.size();
  for (int a = 0; a < n;) {
    if (plan.levels[a].source != Source::Warp) {
      ++a;
      continue;
    }
    int m = 0;
    while (a + m < n && plan.levels[a + m].source == Source::Warp)
      ++m;
    runs.push_back({a, m});
    a += m;
  }
  return runs;
}

/// Elements per operand of a warp round starting at axis level `a`: one slot
/// per (row, block of 2^a positions).
int64_t slotsOfRound(const ScanPlan &plan, int a) {
  return plan.rows * (plan.axisSize >> a);
}

using Tuple = SmallVector<Value, 2>;

/// Whether an element has a carry: statically not, statically yes, or at run
/// time (an i1).
struct Flag {
  enum Kind { No, Yes, Dynamic } kind = No;
  Value value;
};

/// Emits the scan of one op.
class ScanEmitter {
public:
  ScanEmitter(ConversionPatternRewriter &rewriter, Location loc, tt::ScanOp op,
              const TargetInfoBase &ti, const ScanPlan &plan)
      : rw(rewriter), loc(loc), op(op), ti(ti), plan(plan) {}

  /// acc (earlier positions) combined with cur (later positions).
  Tuple combine(const Tuple &acc, const Tuple &cur) {
    std::vector<const void *> key;
    for (Value v : acc)
      key.push_back(v.getAsOpaquePointer());
    for (Value v : cur)
      key.push_back(v.getAsOpaquePointer());
    auto it = combineMemo.find(key);
    if (it != combineMemo.end())
      return it->second;
    Block &block = op.getCombineOp().front();
    IRMapping map;
    unsigned n = acc.size();
    for (unsigned i = 0; i < n; ++i) {
      map.map(block.getArgument(i), acc[i]);
      map.map(block.getArgument(n + i), cur[i]);
    }
    for (Operation &inner : block.without_terminator())
      rw.clone(inner, map);
    Tuple out;
    for (Value v : block.getTerminator()->getOperands())
      out.push_back(map.lookupOrDefault(v));
    combineMemo[key] = out;
    return out;
  }

  Tuple select(Value cond, const Tuple &a, const Tuple &b) {
    Tuple out;
    for (auto [x, y] : llvm::zip(a, b)) {
      if (x == y) {
        out.push_back(x);
        continue;
      }
      std::vector<const void *> key = {cond.getAsOpaquePointer(),
                                       x.getAsOpaquePointer(),
                                       y.getAsOpaquePointer()};
      auto it = selectMemo.find(key);
      if (it == selectMemo.end())
        it = selectMemo
                 .insert({key, LLVM::SelectOp::create(rw, loc, cond, x, y)})
                 .first;
      out.push_back(it->second);
    }
    return out;
  }

  Tuple shuffleXor(const Tuple &t, int mask) {
    Tuple out;
    for (Value v : t) {
      auto key = std::make_pair(v.getAsOpaquePointer(), mask);
      auto it = shuffleMemo.find(key);
      if (it == shuffleMemo.end())
        it = shuffleMemo.insert({key, ti.shuffleXor(rw, loc, v, mask)}).first;
      out.push_back(it->second);
    }
    return out;
  }

  /// Bit `bit` of `id` (i32) as an i1, flipped for a reverse scan: whether
  /// the element is in the upper block at this level.
  Value upperBit(Value id, int bit) {
    Value v = LLVM::AndOp::create(
        rw, loc, LLVM::LShrOp::create(rw, loc, id, i32Val(rw, loc, bit)),
        i32Val(rw, loc, 1));
    return LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, v,
                                i32Val(rw, loc, plan.reverse ? 0 : 1));
  }

  /// The element merges with a sibling block of total `sibling` that lies
  /// before it when `upper` holds.
  void prependCarry(int e, const Tuple &sibling, Flag upper) {
    if (upper.kind == Flag::No)
      return;
    Tuple &c = carry[e];
    Flag &f = flags[e];
    Tuple candidate;
    if (f.kind == Flag::No)
      candidate = sibling;
    else if (f.kind == Flag::Yes)
      candidate = combine(sibling, c);
    else
      candidate = select(f.value, combine(sibling, c), sibling);
    if (upper.kind == Flag::Yes) {
      c = candidate;
      f = Flag{Flag::Yes, Value()};
      return;
    }
    // Dynamic: keep the old carry in lower blocks. Without an old carry, the
    // candidate may stand in: the flag says whether it counts.
    if (f.kind == Flag::No) {
      c = candidate;
      f = upper;
      return;
    }
    c = select(upper.value, candidate, c);
    if (f.kind == Flag::Dynamic)
      f.value = LLVM::OrOp::create(rw, loc, f.value, upper.value);
  }

  LogicalResult run(ValueRange srcs,
                    SmallVectorImpl<SmallVector<Value>> &results) {
    int numRegs = plan.regCoords.size();
    unsigned numOperands = srcs.size();
    SmallVector<SmallVector<Value>> regs; // [operand][register]
    for (Value v : srcs)
      regs.push_back(unpackStruct(rw, loc, v));
    auto elementOf = [&](int e) {
      Tuple t;
      for (unsigned k = 0; k < numOperands; ++k)
        t.push_back(regs[k][e]);
      return t;
    };
    prefix.assign(numRegs, Tuple());
    total.assign(numRegs, Tuple());
    carry.assign(numRegs, Tuple());
    flags.assign(numRegs, Flag());

    // 1. Sequential scan over the lowest register bits of the axis.
    int r0 = plan.inThreadLevels;
    int32_t lowMask = 0;
    for (int a = 0; a < r0; ++a)
      lowMask |= 1 << plan.levels[a].bit;
    for (int g = 0; g < numRegs; ++g) {
      if (g & lowMask)
        continue;
      Tuple acc;
      SmallVector<int> members;
      for (int t = 0; t < (1 << r0); ++t) {
        int e = g;
        for (int a = 0; a < r0; ++a)
          if (((t >> a) & 1) ^ (plan.reverse ? 1 : 0))
            e |= 1 << plan.levels[a].bit;
        acc = acc.empty() ? elementOf(e) : combine(acc, elementOf(e));
        prefix[e] = acc;
        members.push_back(e);
      }
      for (int e : members)
        total[e] = acc;
    }

    // 2.-4. The higher axis bits.
    Value lane, warp;
    int numLevels = plan.levels.size();
    for (int a = r0; a < numLevels;) {
      AxisBit lvl = plan.levels[a];
      if (lvl.source == Source::Register) {
        SmallVector<Tuple> old = total;
        for (int e = 0; e < numRegs; ++e) {
          int partner = e ^ (1 << lvl.bit);
          bool upper = ((e >> lvl.bit) & 1) ^ (plan.reverse ? 1 : 0);
          if (upper) {
            prependCarry(e, old[partner], Flag{Flag::Yes, Value()});
            total[e] = combine(old[partner], old[e]);
          } else {
            total[e] = combine(old[e], old[partner]);
          }
        }
        ++a;
        continue;
      }
      if (!lane)
        std::tie(lane, warp) = laneAndWarp(rw, loc, ti);
      if (lvl.source == Source::Lane) {
        Value upper = upperBit(lane, lvl.bit);
        for (int e = 0; e < numRegs; ++e) {
          Tuple sibling = shuffleXor(total[e], 1 << lvl.bit);
          prependCarry(e, sibling, Flag{Flag::Dynamic, upper});
          total[e] = combine(select(upper, sibling, total[e]),
                             select(upper, total[e], sibling));
        }
        ++a;
        continue;
      }
      int m = 0;
      while (a + m < numLevels && plan.levels[a + m].source == Source::Warp)
        ++m;
      if (failed(warpRound(a, m, numOperands)))
        return failure();
      a += m;
    }

    // Results: carry + prefix.
    results.assign(numOperands, SmallVector<Value>());
    for (int e = 0; e < numRegs; ++e) {
      Tuple r;
      switch (flags[e].kind) {
      case Flag::No:
        r = prefix[e];
        break;
      case Flag::Yes:
        r = combine(carry[e], prefix[e]);
        break;
      case Flag::Dynamic:
        r = select(flags[e].value, combine(carry[e], prefix[e]), prefix[e]);
        break;
      }
      for (unsigned k = 0; k < numOperands; ++k)
        results[k].push_back(r[k]);
    }
    return success();
  }

private:
  /// Axis levels a .. a+m-1 come from warp bits: through shared memory.
  LogicalResult warpRound(int a, int m, unsigned numOperands) {
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op.emitError("a scan across warps needs shared memory; run "
                          "ttg-allocate-shared-memory first");
    int numRegs = plan.regCoords.size();
    int axis = plan.axis;
    int64_t slotsPerRow = plan.axisSize >> a;
    int M = 1 << m;
    if (rowOf.empty()) {
      // Each register's row (flat index over the other dims) and virtual
      // position along the axis, at run time.
      SmallVector<SmallVector<Value>> coords =
          emitIndices(rw, loc, ti, plan.type);
      for (int e = 0; e < numRegs; ++e) {
        Value row;
        for (int64_t d = 0; d < plan.type.getRank(); ++d) {
          if (d == axis)
            continue;
          row = row ? LLVM::AddOp::create(
                          rw, loc,
                          LLVM::MulOp::create(
                              rw, loc, row,
                              i32Val(rw, loc, plan.type.getDimSize(d))),
                          coords[e][d])
                          .getResult()
                    : coords[e][d];
        }
        rowOf.push_back(row);
        Value pos = coords[e][axis];
        if (plan.reverse)
          pos = LLVM::XOrOp::create(rw, loc, pos,
                                    i32Val(rw, loc, plan.axisSize - 1));
        posOf.push_back(pos);
      }
    }
    auto smemPtr =
        LLVM::LLVMPointerType::get(rw.getContext(), ti.getSharedAddressSpace());
    Value base = getSharedMemoryAddress(rw, loc, op, ti, offsetAttr.getInt());
    SmallVector<Value> buffers;
    int64_t byteOffset = 0;
    for (unsigned k = 0; k < numOperands; ++k) {
      buffers.push_back(
          LLVM::GEPOp::create(rw, loc, smemPtr, rw.getI8Type(), base,
                              ValueRange{i32Val(rw, loc, byteOffset)}));
      byteOffset += slotsOfRound(plan, a) * elementBytes(total[0][k].getType());
    }
    // Registers in the same block at level `level` share a key.
    auto blockKey = [&](int e, int level) {
      SmallVector<int32_t> key = plan.regCoords[e];
      key[axis] >>= level;
      return key;
    };
    auto shr = [&](Value v, int s) {
      return s == 0 ? v
                    : LLVM::LShrOp::create(rw, loc, v, i32Val(rw, loc, s))
                          .getResult();
    };
    // The first slot of the element's row plus `v` (null: 0; no row: a 1-D
    // tensor).
    auto inRow = [&](int e, Value v) {
      if (!rowOf[e])
        return v ? v : i32Val(rw, loc, 0);
      Value first =
          LLVM::MulOp::create(rw, loc, rowOf[e], i32Val(rw, loc, slotsPerRow));
      return v ? LLVM::AddOp::create(rw, loc, first, v).getResult() : first;
    };
    // Write every block's total.
    std::map<SmallVector<int32_t>, bool> written;
    for (int e = 0; e < numRegs; ++e) {
      if (!written.insert({blockKey(e, a), true}).second)
        continue;
      Value slot = inRow(e, shr(posOf[e], a));
      for (unsigned k = 0; k < numOperands; ++k) {
        Value v = total[e][k];
        Value p = LLVM::GEPOp::create(rw, loc, smemPtr, v.getType(), buffers[k],
                                      ValueRange{slot});
        LLVM::StoreOp::create(rw, loc, v, p);
      }
    }
    ti.barrier(rw, loc);
    // Read the totals of the 2^m blocks that merge; combine.
    struct Merged {
      Tuple sibling; // the blocks before this thread's one, combined
      Value upper;   // whether there are any
      Tuple total;
    };
    std::map<SmallVector<int32_t>, Merged> merged;
    for (int e = 0; e < numRegs; ++e) {
      auto key = blockKey(e, a + m);
      auto it = merged.find(key);
      if (it == merged.end()) {
        // first slot of the merged block, and this block's index in it.
        Value first =
            (plan.axisSize >> (a + m)) == 1
                ? inRow(e, Value())
                : inRow(e, LLVM::ShlOp::create(rw, loc, shr(posOf[e], a + m),
                                               i32Val(rw, loc, m)));
        Value index = LLVM::AndOp::create(rw, loc, shr(posOf[e], a),
                                          i32Val(rw, loc, M - 1));
        SmallVector<Tuple> parts;
        for (int j = 0; j < M; ++j) {
          Value slot =
              j == 0 ? first
                     : LLVM::AddOp::create(rw, loc, first, i32Val(rw, loc, j))
                           .getResult();
          Tuple part;
          for (unsigned k = 0; k < numOperands; ++k) {
            Type t = total[e][k].getType();
            Value p = LLVM::GEPOp::create(rw, loc, smemPtr, t, buffers[k],
                                          ValueRange{slot});
            part.push_back(LLVM::LoadOp::create(rw, loc, t, p));
          }
          parts.push_back(part);
        }
        // before[j] = parts[0] + ... + parts[j-1]; before[M] is the total.
        SmallVector<Tuple> before(M + 1);
        before[1] = parts[0];
        for (int j = 1; j < M; ++j)
          before[j + 1] = combine(before[j], parts[j]);
        Tuple sibling = before[1];
        for (int j = 2; j < M; ++j) {
          Value is = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq,
                                          index, i32Val(rw, loc, j));
          sibling = select(is, before[j], sibling);
        }
        Value upper = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ne,
                                           index, i32Val(rw, loc, 0));
        it = merged.insert({key, Merged{sibling, upper, before[M]}}).first;
      }
      prependCarry(e, it->second.sibling,
                   Flag{Flag::Dynamic, it->second.upper});
      total[e] = it->second.total;
    }
    // Barriers before the buffer's next use come from ttg-membar.
    return success();
  }

  ConversionPatternRewriter &rw;
  Location loc;
  tt::ScanOp op;
  const TargetInfoBase &ti;
  const ScanPlan &plan;
  SmallVector<Tuple> prefix, total, carry;
  SmallVector<Flag> flags;
  SmallVector<Value> rowOf, posOf;
  std::map<std::vector<const void *>, Tuple> combineMemo;
  std::map<std::vector<const void *>, Value> selectMemo;
  std::map<std::pair<const void *, int>, Value> shuffleMemo;
};

struct ScanConversion : public TesseraOpToLLVMPattern<tt::ScanOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tt::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc =
        this->getTesseraTypeConverter();
    std::string why;
    FailureOr<ScanPlan> plan = planScan(op, why);
    if (failed(plan))
      return op.emitError()
             << "the GPU lowering cannot lower this scan: " << why;
    ScanEmitter emitter(rewriter, op.getLoc(), op, tc.getTargetInfo(), *plan);
    SmallVector<SmallVector<Value>> elems;
    if (failed(emitter.run(adaptor.getSrcs(), elems)))
      return failure();
    SmallVector<Value> results;
    for (auto [k, r] : llvm::enumerate(op.getResult())) {
      Type structType = tc.convertType(r.getType());
      if (!structType)
        return op.emitError("unsupported scan result type");
      results.push_back(
          packStruct(rewriter, op.getLoc(), structType, elems[k]));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

int64_t mlir::tessera::getScanScratchBytes(Operation *op) {
  auto scan = dyn_cast<tt::ScanOp>(op);
  if (!scan)
    return 0;
  std::string why;
  FailureOr<ScanPlan> plan = planScan(scan, why);
  if (failed(plan))
    return 0;
  int64_t bytes = 0;
  for (auto [a, m] : warpRuns(*plan))
    bytes = std::max(bytes, slotsOfRound(*plan, a) * operandBytes(scan));
  return bytes;
}

void mlir::tessera::populateScanOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<ScanConversion>(typeConverter);
}
