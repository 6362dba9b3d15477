//===- DotOpToLLVM.cpp - tt.dot by fused multiply-adds -----------------------===//
//
// 1. Every thread writes its elements of A (M x K) and B (K x N) to shared
//    memory at their row-major positions; a barrier.
// 2. Each accumulator element (m, n) a thread owns gets, for k = 0..K-1,
//    acc += A[m][k] * B[k][n], reading A and B from shared memory. Registers
//    that share the same row (column) of the output share A (B) loads.
//    Floating-point inputs compute in the accumulator's type (fp16/bf16
//    upcast exactly, fp8 through the target's exact fp8 -> f16 conversion);
//    int8 accumulates in i32.
// Boundary barriers come from ttg-membar.
// On targets with mma.sync (hasMma16816), f16/bf16 dots with f32 accumulators
// and M, N, K multiples of 16, 8, 16 use tensor cores instead:
// 1. A, B and C go to shared memory row-major; a barrier.
// 2. Each thread reads its fragments: A and B in the dot_op layouts of an
//    nvidia_mma v2 parent (warps over m, then n), C in that mma layout;
//    a barrier.
// 3. For every 16x8 output tile, one mma.sync.m16n8k16 per 16 of K.
// 4. The results go back through shared memory into the dot's result layout.
// (ttg-accelerate-matmul puts dots in a K loop into mma / dot_op layouts
// instead; then the fragments are registers and only step 3 remains.)
// Batched (3-D) dots take the FMA path, the batch being a leading index.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include <map>

using namespace mlir;
using namespace mlir::tessera;

namespace {

int64_t bytesOf(Type t) { return std::max<int64_t>(t.getIntOrFloatBitWidth() / 8, 1); }

int64_t align16(int64_t x) { return (x + 15) / 16 * 16; }

/// Warps over the output of a dot lowered to mma.sync: m first (as many as
/// 16-row tiles allow), the rest over n.
struct MmaPlan {
  unsigned wm, wn;
};

std::optional<MmaPlan> mmaPlan(tt::DotOp op) {
  auto warps = getMmaV2Warps(op.getA().getType(), op.getB().getType(), op.getC().getType(),
                             op->getParentOfType<ModuleOp>());
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
/// order; empty when the target has no mma.sync or a fragment is missing.
SmallVector<Value> mmaOnFragments(OpBuilder &rewriter, Location loc, const TargetInfoBase &ti,
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
      d = ti.mma16816(rewriter, loc, a, b, d, bf16);
      if (d.size() != 4)
        return {};
    }
    for (unsigned i = 0; i < 4; ++i)
      dV[cRegs[ck][i]] = d[i];
  }
  return dV;
}

struct DotConversion : public ConvertOpToLLVMPattern<tt::DotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *static_cast<const TesseraLLVMTypeConverter *>(getTypeConverter());
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    if (aT.getRank() != 2 && aT.getRank() != 3)
      return op.emitOpError("dots of rank ") << aT.getRank() << " are not supported (2, or 3 with a batch)";
    for (RankedTensorType t : {aT, bT, cT})
      if (!supportsLinearLayout(t))
        return op.emitError("unsupported operand layout for a dot");
    if (inMmaLayouts(op)) {
      SmallVector<Value> d = mmaOnFragments(
          rewriter, loc, ti, aT, bT, cT, unpackStruct(rewriter, loc, adaptor.getA()),
          unpackStruct(rewriter, loc, adaptor.getB()), unpackStruct(rewriter, loc, adaptor.getC()),
          tc.convertElementType(aT.getElementType()), aT.getElementType().isBF16());
      if (d.empty())
        return op.emitOpError("the target has no mma.sync m16n8k16");
      rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), d));
      return success();
    }
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op.emitError("tt.dot needs shared memory; run ttg-allocate-shared-memory first");
    if (std::optional<MmaPlan> plan = mmaPlan(op))
      return lowerWithMma(op, adaptor, rewriter, *plan, offsetAttr.getInt());
    // A batched (3-D) dot has its batch first: every index below is shifted.
    const unsigned bd = aT.getRank() - 2;
    int64_t batch = bd ? aT.getDimSize(0) : 1;
    int64_t M = aT.getDimSize(bd), K = aT.getDimSize(bd + 1), N = bT.getDimSize(bd + 1);
    Type aElt = tc.convertElementType(aT.getElementType());
    Type bElt = tc.convertElementType(bT.getElementType());
    Type accElt = tc.convertElementType(cT.getElementType());
    // fp8 operands (held as i8) widen exactly to f16 through the target's
    // conversion, then to the accumulator's type.
    auto isFp8 = [](Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8; };
    Type aSrc = aT.getElementType(), bSrc = bT.getElementType();
    for (Type t : {aSrc, bSrc}) {
      if (!isFp8(t))
        continue;
      Value probe = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI8Type(),
                                             rewriter.getI8IntegerAttr(0));
      Value widened = ti.extFromFp8(rewriter, loc, probe, t);
      if (!widened)
        return op.emitOpError("fp8 dots are not supported on this target (converting ")
               << t << " needs sm_89 or newer)";
    }
    bool isInt = isa<IntegerType>(aT.getElementType());
    auto smemPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), ti.getSharedAddressSpace());
    Value base = getSharedMemoryAddress(rewriter, loc, op, ti, offsetAttr.getInt());
    Value aBase = base;
    Value bBase = LLVM::GEPOp::create(rewriter, loc, smemPtr, rewriter.getI8Type(), base,
                                      ValueRange{i32Val(rewriter, loc, batch * M * K * bytesOf(aElt))});
    auto store = [&](Value tensor, RankedTensorType t, Value buf, Type elt) {
      auto idx = emitIndices(rewriter, loc, ti, t);
      for (auto [v, c] : llvm::zip(unpackStruct(rewriter, loc, tensor), idx)) {
        // Row-major position over all dims.
        Value flat = c[0];
        for (unsigned d = 1; d < c.size(); ++d)
          flat = LLVM::AddOp::create(
              rewriter, loc,
              LLVM::MulOp::create(rewriter, loc, flat, i32Val(rewriter, loc, t.getDimSize(d))), c[d]);
        LLVM::StoreOp::create(rewriter, loc, v,
                              LLVM::GEPOp::create(rewriter, loc, smemPtr, elt, buf, ValueRange{flat}));
      }
    };
    store(adaptor.getA(), aT, aBase, aElt);
    store(adaptor.getB(), bT, bBase, bElt);
    ti.barrier(rewriter, loc);

    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getC());
    auto accIdx = emitIndices(rewriter, loc, ti, cT);
    // Registers with the same runtime row (column) share loads: group by the
    // constant register part of the coordinate.
    auto regCoords = registerCoordinates(toLinearLayout(cT));
    SmallVector<int32_t> rowKeys, colKeys;
    SmallVector<int32_t> rowOf(acc.size()), colOf(acc.size());
    // Keys: (batch, row) for A's rows and (batch, column) for B's columns.
    // Runtime bases: A[b][m][0] = (b*M + m)*K, B[b][0][n] = b*K*N + n.
    SmallVector<Value> rowBase, colBase;
    for (size_t r = 0; r < acc.size(); ++r) {
      int32_t b = bd ? regCoords[r][0] : 0;
      int32_t rowKey = b * int32_t(M) + regCoords[r][bd];
      int32_t colKey = b * int32_t(N) + regCoords[r][bd + 1];
      auto ri = llvm::find(rowKeys, rowKey);
      if (ri == rowKeys.end()) {
        rowOf[r] = rowKeys.size();
        rowKeys.push_back(rowKey);
        Value bm = accIdx[r][bd];
        if (bd)
          bm = LLVM::AddOp::create(
              rewriter, loc, LLVM::MulOp::create(rewriter, loc, accIdx[r][0], i32Val(rewriter, loc, M)),
              bm);
        rowBase.push_back(LLVM::MulOp::create(rewriter, loc, bm, i32Val(rewriter, loc, K)));
      } else {
        rowOf[r] = ri - rowKeys.begin();
      }
      auto ci = llvm::find(colKeys, colKey);
      if (ci == colKeys.end()) {
        colOf[r] = colKeys.size();
        colKeys.push_back(colKey);
        Value cb = accIdx[r][bd + 1];
        if (bd)
          cb = LLVM::AddOp::create(
              rewriter, loc,
              LLVM::MulOp::create(rewriter, loc, accIdx[r][0], i32Val(rewriter, loc, K * N)), cb);
        colBase.push_back(cb);
      } else {
        colOf[r] = ci - colKeys.begin();
      }
    }
    auto upcast = [&](Value v, Type src) -> Value {
      if (isFp8(src))
        v = ti.extFromFp8(rewriter, loc, v, src);
      if (v.getType() == accElt)
        return v;
      if (isInt)
        return LLVM::SExtOp::create(rewriter, loc, accElt, v);
      return LLVM::FPExtOp::create(rewriter, loc, accElt, v);
    };
    for (int64_t k = 0; k < K; ++k) {
      SmallVector<Value> aVals, bVals;
      for (Value rb : rowBase) {
        Value flat = LLVM::AddOp::create(rewriter, loc, rb, i32Val(rewriter, loc, k));
        Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, aElt, aBase, ValueRange{flat});
        aVals.push_back(upcast(LLVM::LoadOp::create(rewriter, loc, aElt, p), aSrc));
      }
      for (Value n : colBase) {
        Value flat = LLVM::AddOp::create(rewriter, loc, i32Val(rewriter, loc, k * N), n);
        Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, bElt, bBase, ValueRange{flat});
        bVals.push_back(upcast(LLVM::LoadOp::create(rewriter, loc, bElt, p), bSrc));
      }
      for (size_t r = 0; r < acc.size(); ++r) {
        Value a = aVals[rowOf[r]], b = bVals[colOf[r]];
        if (isInt)
          acc[r] = LLVM::AddOp::create(rewriter, loc, acc[r], LLVM::MulOp::create(rewriter, loc, a, b));
        else
          acc[r] = LLVM::FMAOp::create(rewriter, loc, a, b, acc[r]);
      }
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), acc));
    return success();
  }

  LogicalResult lowerWithMma(tt::DotOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                             MmaPlan plan, int64_t offset) const {
    const auto &tc = *static_cast<const TesseraLLVMTypeConverter *>(getTypeConverter());
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
    SmallVector<Value> dV = mmaOnFragments(rewriter, loc, ti, aOpT, bOpT, accT, aV, bV, cV, half, bf16);
    if (dV.empty())
      return op.emitOpError("the target has no mma.sync m16n8k16");

    // 4. Back to the result's layout through shared memory.
    store(dV, accT, cBase, f32, N);
    ti.barrier(rewriter, loc);
    SmallVector<Value> out = load(cT, cBase, f32, N);
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), out));
    return success();
  }
};

} // namespace

std::optional<std::pair<unsigned, unsigned>>
mlir::tessera::getMmaV2Warps(RankedTensorType aT, RankedTensorType bT, RankedTensorType cT,
                             ModuleOp module) {
  if (aT.getRank() != 2 || !cT.getElementType().isF32())
    return std::nullopt;
  Type elt = aT.getElementType();
  if (!(elt.isF16() || elt.isBF16()) || bT.getElementType() != elt)
    return std::nullopt;
  int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
  if (M % 16 || N % 8 || K % 16)
    return std::nullopt;
  auto target = module ? module->getAttrOfType<StringAttr>("ttg.target") : StringAttr();
  auto warps = module ? module->getAttrOfType<IntegerAttr>("ttg.num-warps") : IntegerAttr();
  if (!target || !warps)
    return std::nullopt;
  std::unique_ptr<TargetInfoBase> ti = createTargetInfo(target.getValue());
  if (!ti || !ti->hasMma16816())
    return std::nullopt;
  unsigned numWarps = warps.getInt(), wm = 1;
  while (wm * 2 <= numWarps && 16 * int64_t(wm) * 2 <= M)
    wm *= 2;
  return std::make_pair(wm, numWarps / wm);
}

int64_t mlir::tessera::getDotScratchBytes(Operation *op) {
  auto dot = dyn_cast<tt::DotOp>(op);
  if (!dot || dot.getA().getType().getRank() < 2 || inMmaLayouts(dot))
    return 0;
  if (mmaPlan(dot))
    return mmaScratchBytes(dot);
  auto aT = dot.getA().getType(), bT = dot.getB().getType();
  return aT.getNumElements() * bytesOf(aT.getElementType()) + bT.getNumElements() * bytesOf(bT.getElementType());
}

void mlir::tessera::populateDotOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                RewritePatternSet &patterns) {
  patterns.add<DotConversion>(typeConverter);
}
