//===- MmaV2DotOpToLLVM.cpp - tt.dot on mma.sync (sm_80+) ---------------------===//
//
// NVIDIA's tensor-core pattern family (TargetInfo::populateVendorPatterns),
// tried before the target-independent FMA lowering, for f16/bf16 dots with
// f32 accumulators and M, N, K multiples of 16, 8, 16:
// - operands already in the dot_op layouts (kWidth 2) of an nvidia_mma v2
//   accumulator (ttg-accelerate-matmul): the fragments are registers; one
//   mma.sync.m16n8k16 per 16x8 output tile and 16 of K.
// - otherwise:
//   1. A, B and C go to shared memory row-major; a barrier.
//   2. Each thread reads its fragments: A and B in the dot_op layouts of an
//      nvidia_mma v2 parent (warps over m, then n), C in that mma layout;
//      a barrier.
//   3. One mma.sync per 16x8 output tile and 16 of K.
//   4. The results go back through shared memory into the dot's layout.
// Anything else (other types, batched dots) is left to the FMA family.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/TTGToLLVM/TargetInfo.h"

#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include <map>

using namespace mlir;
using namespace mlir::tessera;

namespace {

int64_t align16(int64_t x) { return (x + 15) / 16 * 16; }

/// Warps over the output of a dot lowered to mma.sync: m first (as many as
/// 16-row tiles allow), the rest over n.
struct MmaPlan {
  unsigned wm, wn;
};

std::optional<MmaPlan> mmaPlan(tt::DotOp op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto numWarps = module ? module->getAttrOfType<IntegerAttr>("ttg.num-warps") : IntegerAttr();
  if (!numWarps)
    return std::nullopt;
  auto warps = ::tessera::nvidia::getMmaV2Warps(op.getA().getType(), op.getB().getType(),
                                                op.getC().getType(), numWarps.getInt());
  if (!warps)
    return std::nullopt;
  return MmaPlan{warps->first, warps->second};
}

/// Whether a dot's operands already are in dot_op layouts of an mma v2
/// accumulator layout (ttg-accelerate-matmul): its fragments are registers.
bool inMmaLayouts(tt::DotOp op) {
  auto mma = dyn_cast_or_null<ttg::NvidiaMmaEncodingAttr>(op.getC().getType().getEncoding());
  auto a = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(op.getA().getType().getEncoding());
  auto b = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(op.getB().getType().getEncoding());
  RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
  if (aT.getRank() != 2 || aT.getDimSize(0) % 16 || aT.getDimSize(1) % 16 ||
      bT.getDimSize(1) % 8)
    return false;
  return mma && a && b && mma.getVersionMajor() == 2 && a.getParent() == mma &&
         b.getParent() == mma && a.getKWidth() == 2 && b.getKWidth() == 2 &&
         op.getType().getEncoding() == mma && op.getC().getType().getElementType().isF32() &&
         (op.getA().getType().getElementType().isF16() ||
          op.getA().getType().getElementType().isBF16());
}

/// Bytes of the mma path's staging: A, B (16-byte aligned each) and the f32
/// accumulator.
int64_t mmaScratchBytes(tt::DotOp op) {
  RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
  int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
  return align16(M * K * 2) + align16(K * N * 2) + M * N * 4;
}

/// d = a * b + c on tensor cores, for operands in the dot_op layouts (kWidth
/// 2) of the mma v2 layout of c: registers are grouped into instruction tiles
/// by their constant coordinates (A: m tile, k tile -> 8 halves; B: k tile,
/// n tile -> 4; C: m, n -> 4, in the order of PTX's fragments), and each
/// output tile gets one mma.sync per 16 of K. Returns d in c's register
/// order; empty when a fragment is missing.
SmallVector<Value> mmaOnFragments(OpBuilder &rewriter, Location loc,
                                  RankedTensorType aOpT, RankedTensorType bOpT,
                                  RankedTensorType accT, ArrayRef<Value> aV, ArrayRef<Value> bV,
                                  ArrayRef<Value> cV, Type half, bool bf16) {
  Type i32 = rewriter.getI32Type();
  using Key = std::pair<int32_t, int32_t>;
  std::map<Key, SmallVector<Value>> aTiles, bTiles, cTiles;
  std::map<Key, SmallVector<unsigned>> cRegs;
  auto place = [](std::map<Key, SmallVector<Value>> &m, Key k, unsigned n, unsigned pos, Value v) {
    auto &t = m[k];
    t.resize(n);
    t[pos] = v;
  };
  for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(aOpT))))
    place(aTiles, {c[0] / 16, c[1] / 16}, 8,
          (c[1] % 2) + 2 * ((c[0] % 16) / 8) + 4 * ((c[1] % 16) / 8), aV[r]);
  for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(bOpT))))
    place(bTiles, {c[0] / 16, c[1] / 8}, 4, (c[0] % 2) + 2 * ((c[0] % 16) / 8), bV[r]);
  for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(accT)))) {
    Key k{c[0] / 16, c[1] / 8};
    unsigned pos = (c[1] % 2) + 2 * ((c[0] % 16) / 8);
    place(cTiles, k, 4, pos, cV[r]);
    auto &regs = cRegs[k];
    regs.resize(4);
    regs[pos] = r;
  }
  auto pack = [&](Value lo, Value hi) {
    auto vecTy = VectorType::get({2}, half);
    Value v = LLVM::UndefOp::create(rewriter, loc, vecTy);
    v = LLVM::InsertElementOp::create(rewriter, loc, v, lo, i32Val(rewriter, loc, 0));
    v = LLVM::InsertElementOp::create(rewriter, loc, v, hi, i32Val(rewriter, loc, 1));
    return LLVM::BitcastOp::create(rewriter, loc, i32, v).getResult();
  };
  SmallVector<Value> dV(cV.begin(), cV.end());
  for (auto &[ck, acc] : cTiles) {
    SmallVector<Value> d(acc.begin(), acc.end());
    if (llvm::any_of(d, [](Value v) { return !v; }))
      return {};
    for (auto &[ak, aFrag] : aTiles) {
      if (ak.first != ck.first)
        continue;
      auto bIt = bTiles.find({ak.second, ck.second});
      if (bIt == bTiles.end() || llvm::any_of(aFrag, [](Value v) { return !v; }) ||
          llvm::any_of(bIt->second, [](Value v) { return !v; }))
        return {};
      SmallVector<Value> a, b;
      for (int i = 0; i < 8; i += 2)
        a.push_back(pack(aFrag[i], aFrag[i + 1]));
      for (int i = 0; i < 4; i += 2)
        b.push_back(pack(bIt->second[i], bIt->second[i + 1]));
      d = ::tessera::nvidia::emitMma16816(rewriter, loc, a, b, d, bf16);
      if (d.size() != 4)
        return {};
    }
    for (unsigned i = 0; i < 4; ++i)
      dV[cRegs[ck][i]] = d[i];
  }
  return dV;
}

struct MmaV2DotConversion : public TesseraOpToLLVMPattern<tt::DotOp> {
  MmaV2DotConversion(const TesseraLLVMTypeConverter &tc)
      : TesseraOpToLLVMPattern(tc, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(tt::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    for (RankedTensorType t : {aT, bT, cT})
      if (!supportsLinearLayout(t))
        return rewriter.notifyMatchFailure(op, "unsupported layout");
    if (inMmaLayouts(op)) {
      SmallVector<Value> d = mmaOnFragments(
          rewriter, loc, aT, bT, cT, unpackStruct(rewriter, loc, adaptor.getA()),
          unpackStruct(rewriter, loc, adaptor.getB()), unpackStruct(rewriter, loc, adaptor.getC()),
          tc.convertElementType(aT.getElementType()), aT.getElementType().isBF16());
      if (d.empty())
        return op.emitOpError("internal error: an mma.sync fragment is missing");
      rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), d));
      return success();
    }
    std::optional<MmaPlan> plan = mmaPlan(op);
    if (!plan)
      return rewriter.notifyMatchFailure(op, "not an mma.sync dot (the FMA family lowers it)");
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op.emitError("tt.dot needs shared memory; run ttg-allocate-shared-memory first");
    return lowerWithMma(op, adaptor, rewriter, *plan, offsetAttr.getInt());
  }

  LogicalResult lowerWithMma(tt::DotOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                             MmaPlan plan, int64_t offset) const {
    const auto &tc = this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
    bool bf16 = aT.getElementType().isBF16();
    Type half = tc.convertElementType(aT.getElementType());
    Type f32 = rewriter.getF32Type();
    auto cta = ttg::CTALayoutAttr::getDefault(ctx, 2);
    auto mma = ttg::NvidiaMmaEncodingAttr::get(ctx, 2, 0, {plan.wm, plan.wn}, cta, {16, 8});
    auto aOpT = RankedTensorType::get({M, K}, aT.getElementType(),
                                      ttg::DotOperandEncodingAttr::get(ctx, 0, mma, 2));
    auto bOpT = RankedTensorType::get({K, N}, bT.getElementType(),
                                      ttg::DotOperandEncodingAttr::get(ctx, 1, mma, 2));
    auto accT = RankedTensorType::get({M, N}, cT.getElementType(), mma);

    auto smemPtr = LLVM::LLVMPointerType::get(ctx, ti.getSharedAddressSpace());
    Value base = getSharedMemoryAddress(rewriter, loc, op, ti, offset);
    auto at = [&](int64_t bytes) {
      return LLVM::GEPOp::create(rewriter, loc, smemPtr, rewriter.getI8Type(), base,
                                 ValueRange{i32Val(rewriter, loc, bytes)})
          .getResult();
    };
    Value aBase = base, bBase = at(align16(M * K * 2)),
          cBase = at(align16(M * K * 2) + align16(K * N * 2));
    auto addr = [&](Value buf, Type elt, ArrayRef<Value> c, int64_t cols) {
      Value flat = LLVM::AddOp::create(
          rewriter, loc, LLVM::MulOp::create(rewriter, loc, c[0], i32Val(rewriter, loc, cols)),
          c[1]);
      return LLVM::GEPOp::create(rewriter, loc, smemPtr, elt, buf, ValueRange{flat}).getResult();
    };
    auto store = [&](ValueRange values, RankedTensorType t, Value buf, Type elt, int64_t cols) {
      for (auto [v, c] : llvm::zip(values, emitIndices(rewriter, loc, ti, t)))
        LLVM::StoreOp::create(rewriter, loc, v, addr(buf, elt, c, cols));
    };
    auto load = [&](RankedTensorType t, Value buf, Type elt, int64_t cols) {
      SmallVector<Value> out;
      for (auto &c : emitIndices(rewriter, loc, ti, t))
        out.push_back(LLVM::LoadOp::create(rewriter, loc, elt, addr(buf, elt, c, cols)));
      return out;
    };

    // 1-2. Stage everything row-major, then read the fragments.
    store(unpackStruct(rewriter, loc, adaptor.getA()), aT, aBase, half, K);
    store(unpackStruct(rewriter, loc, adaptor.getB()), bT, bBase, half, N);
    store(unpackStruct(rewriter, loc, adaptor.getC()), cT, cBase, f32, N);
    ti.barrier(rewriter, loc);
    SmallVector<Value> aV = load(aOpT, aBase, half, K), bV = load(bOpT, bBase, half, N),
                       cV = load(accT, cBase, f32, N);
    ti.barrier(rewriter, loc);

    // 3. One mma.sync per 16x8 output tile and 16 of K.
    SmallVector<Value> dV = mmaOnFragments(rewriter, loc, aOpT, bOpT, accT, aV, bV, cV, half, bf16);
    if (dV.empty())
      return op.emitOpError("internal error: an mma.sync fragment is missing");

    // 4. Back to the result's layout through shared memory.
    store(dV, accT, cBase, f32, N);
    ti.barrier(rewriter, loc);
    SmallVector<Value> out = load(cT, cBase, f32, N);
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), out));
    return success();
  }
};

} // namespace

namespace tessera::nvidia {

std::optional<std::pair<unsigned, unsigned>>
getMmaV2Warps(RankedTensorType aT, RankedTensorType bT, RankedTensorType cT,
                               int numWarpsInt) {
  if (aT.getRank() != 2 || !cT.getElementType().isF32())
    return std::nullopt;
  Type elt = aT.getElementType();
  if (!(elt.isF16() || elt.isBF16()) || bT.getElementType() != elt)
    return std::nullopt;
  int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
  if (M % 16 || N % 8 || K % 16)
    return std::nullopt;
  if (numWarpsInt < 1)
    return std::nullopt;
  // Each warp reads the A rows and B columns of its tile from shared memory:
  // A is read once per warp along N, B once per warp along M. Pick the split
  // (wm x wn = numWarps, every warp at least one 16x8 instruction tile where
  // the shape allows) that reads the fewest elements, M * wn + N * wm per K;
  // ties go to more warps along M.
  unsigned numWarps = numWarpsInt;
  std::optional<std::pair<unsigned, unsigned>> best;
  int64_t bestCost = 0;
  for (unsigned wm = numWarps; wm >= 1; wm /= 2) {
    unsigned wn = numWarps / wm;
    if (wm * wn != numWarps)
      continue;
    bool fits = 16 * int64_t(wm) <= M && 8 * int64_t(wn) <= N;
    int64_t cost = M * int64_t(wn) + N * int64_t(wm);
    if (!fits)
      cost += int64_t(1) << 40; // only when nothing fits: replicate rather than fail
    if (!best || cost < bestCost) {
      best = std::make_pair(wm, wn);
      bestCost = cost;
    }
  }
  return best;
}

std::optional<int64_t> getMmaV2ScratchBytes(Operation *op) {
  auto dot = dyn_cast<tt::DotOp>(op);
  if (!dot || dot.getA().getType().getRank() != 2)
    return std::nullopt;
  for (RankedTensorType t : {dot.getA().getType(), dot.getB().getType(), dot.getC().getType()})
    if (!supportsLinearLayout(t))
      return std::nullopt;
  if (inMmaLayouts(dot))
    return 0;
  if (mmaPlan(dot))
    return mmaScratchBytes(dot);
  return std::nullopt;
}

void populateMmaV2DotPatterns(TesseraLLVMTypeConverter &typeConverter,
                                               RewritePatternSet &patterns) {
  patterns.add<MmaV2DotConversion>(typeConverter);
}

} // namespace tessera::nvidia
