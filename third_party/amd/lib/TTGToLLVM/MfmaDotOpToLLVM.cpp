//===- MfmaDotOpToLLVM.cpp - tt.dot on AMD matrix cores (MFMA, WMMA) ---------===//
//
// AMD's matrix-core pattern family (TargetInfo::populateVendorPatterns), tried
// before the target-independent FMA lowering, for dots whose operands are in
// the dot_op layouts (kWidth 4) of an amd_mfma accumulator
// (ttg-accelerate-matmul, from getMfmaLayouts): registers are grouped into
// 16 x 16 instruction tiles by their constant coordinates (A: m tile, k tile
// -> 4 values; B: k tile, n tile -> 4; C: m tile, n tile -> 4, in the order of
// the ISA's operands), and each output tile gets one
// v_mfma_f32_16x16x16{f16,bf16} per 16 of K (int8 and, on CDNA3, fp8: kWidth 8,
// one v_mfma_{i32,f32}_16x16x32 per 32 of K, operands packed in an i64). The same for RDNA3's amd_wmma
// (kWidth 16: A and B tiles of 16 values per lane, C of 8: row 2 * i + lane
// / 16), one v_wmma_f32_16x16x16_{f16,bf16} per tile and 16 of K.
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/TTGToLLVM/TargetInfo.h"

#include "tessera/AMD/Dialect/TTG/AMDLayouts.h"

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

#include <map>

using namespace mlir;
using namespace mlir::tessera;

namespace {

bool isFp8(Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8; }

/// Whether an 8-bit float is an e5m2 format (the ISA's "bf8"; e4m3 is "fp8").
bool isBf8(Type t) { return isa<Float8E5M2Type, Float8E5M2FNUZType>(t); }

/// Whether the dot's operands are in the dot_op layouts (kWidth 4) of the
/// amd_mfma layout of its accumulator.
bool inMfmaLayouts(tt::DotOp op) {
  auto mfma = dyn_cast_or_null<ttg::AMDMfmaEncodingAttr>(op.getC().getType().getEncoding());
  auto a = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(op.getA().getType().getEncoding());
  auto b = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(op.getB().getType().getEncoding());
  RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
  if (aT.getRank() != 2 || aT.getDimSize(0) % 16 || bT.getDimSize(1) % 16)
    return false;
  Type elt = aT.getElementType();
  if (!mfma || !a || !b)
    return false;
  unsigned kWidth = mfma.getInstrShape()[2] / 4;
  Type acc = op.getC().getType().getElementType();
  bool fp8 = isFp8(elt) && isFp8(bT.getElementType());
  bool types = fp8                ? acc.isF32() && kWidth == 8
               : elt.isInteger(8) ? acc.isInteger(32) && (kWidth == 4 || kWidth == 8)
               : kWidth == 1      ? elt.isF32() && acc.isF32()
                                  : (elt.isF16() || elt.isBF16()) && kWidth == 4 && acc.isF32();
  return a.getParent() == mfma && b.getParent() == mfma && a.getKWidth() == kWidth &&
         b.getKWidth() == kWidth && op.getType().getEncoding() == mfma && types &&
         (fp8 || bT.getElementType() == elt) && aT.getDimSize(1) % mfma.getInstrShape()[2] == 0;
}

struct MfmaDotConversion : public TesseraOpToLLVMPattern<tt::DotOp> {
  MfmaDotConversion(const TesseraLLVMTypeConverter &tc) : TesseraOpToLLVMPattern(tc, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(tt::DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!inMfmaLayouts(op))
      return rewriter.notifyMatchFailure(op, "not in amd_mfma layouts (the FMA family lowers it)");
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    for (RankedTensorType t : {aT, bT, cT})
      if (!supportsLinearLayout(t))
        return rewriter.notifyMatchFailure(op, "unsupported layout");
    bool bf16 = aT.getElementType().isBF16();
    auto mfma = cast<ttg::AMDMfmaEncodingAttr>(cT.getEncoding());
    int32_t tileK = mfma.getInstrShape()[2], kWidth = tileK / 4;
    SmallVector<Value> aV = unpackStruct(rewriter, loc, adaptor.getA());
    SmallVector<Value> bV = unpackStruct(rewriter, loc, adaptor.getB());
    SmallVector<Value> cV = unpackStruct(rewriter, loc, adaptor.getC());

    using Key = std::pair<int32_t, int32_t>;
    std::map<Key, SmallVector<Value>> aTiles, bTiles, cTiles;
    std::map<Key, SmallVector<unsigned>> cRegs;
    auto place = [](std::map<Key, SmallVector<Value>> &m, Key k, unsigned n, unsigned pos, Value v) {
      auto &t = m[k];
      t.resize(n);
      t[pos] = v;
    };
    for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(aT))))
      place(aTiles, {c[0] / 16, c[1] / tileK}, kWidth, c[1] % kWidth, aV[r]);
    for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(bT))))
      place(bTiles, {c[0] / tileK, c[1] / 16}, kWidth, c[0] % kWidth, bV[r]);
    for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(cT)))) {
      Key k{c[0] / 16, c[1] / 16};
      place(cTiles, k, 4, c[0] % 4, cV[r]);
      auto &regs = cRegs[k];
      regs.resize(4);
      regs[c[0] % 4] = r;
    }

    bool int8 = aT.getElementType().isInteger(8);
    bool fp8 = isFp8(aT.getElementType());
    bool aBf8 = isBf8(aT.getElementType()), bBf8 = isBf8(bT.getElementType());
    auto accTy = VectorType::get(4, int8 ? Type(rewriter.getI32Type()) : Type(rewriter.getF32Type()));
    // bf16 operands go to the intrinsic as 16-bit integers.
    Type opElt = bf16 ? Type(rewriter.getI16Type()) : tc.convertElementType(aT.getElementType());
    auto opTy = VectorType::get(kWidth, opElt);
    // int8 operands go packed: 4 in an i32 (16x16x16i8), 8 in an i64
    // (16x16x32_i8); fp8 (held as i8) 8 in an i64.
    auto packed = [&](Value v) -> Value {
      if (!int8 && !fp8)
        return v;
      return LLVM::BitcastOp::create(rewriter, loc, rewriter.getIntegerType(8 * kWidth), v);
    };
    auto vec = [&](ArrayRef<Value> vals, VectorType ty) -> Value {
      if (ty.getNumElements() == 1) // fp32: one scalar per lane
        return vals[0];
      Value v = LLVM::UndefOp::create(rewriter, loc, ty);
      for (auto [i, x] : llvm::enumerate(vals)) {
        Value e = x;
        if (e.getType() != ty.getElementType())
          e = LLVM::BitcastOp::create(rewriter, loc, ty.getElementType(), e);
        v = LLVM::InsertElementOp::create(rewriter, loc, v, e, i32Val(rewriter, loc, i));
      }
      return v;
    };
    Value zero = i32Val(rewriter, loc, 0);
    SmallVector<Value> dV(cV.begin(), cV.end());
    for (auto &[ck, acc] : cTiles) {
      if (llvm::any_of(acc, [](Value v) { return !v; }))
        return op.emitOpError("internal error: an MFMA accumulator fragment is missing");
      Value d = vec(acc, accTy);
      for (auto &[ak, aFrag] : aTiles) {
        if (ak.first != ck.first)
          continue;
        auto bIt = bTiles.find({ak.second, ck.second});
        if (bIt == bTiles.end() || llvm::any_of(aFrag, [](Value v) { return !v; }) ||
            llvm::any_of(bIt->second, [](Value v) { return !v; }))
          return op.emitOpError("internal error: an MFMA operand fragment is missing");
        SmallVector<Value> args{packed(vec(aFrag, opTy)), packed(vec(bIt->second, opTy)), d, zero, zero,
                                zero};
        if (fp8 && aBf8 && bBf8)
          d = ROCDL::mfma_f32_16x16x32_bf8_bf8::create(rewriter, loc, accTy, args).getResult();
        else if (fp8 && aBf8)
          d = ROCDL::mfma_f32_16x16x32_bf8_fp8::create(rewriter, loc, accTy, args).getResult();
        else if (fp8 && bBf8)
          d = ROCDL::mfma_f32_16x16x32_fp8_bf8::create(rewriter, loc, accTy, args).getResult();
        else if (fp8)
          d = ROCDL::mfma_f32_16x16x32_fp8_fp8::create(rewriter, loc, accTy, args).getResult();
        else if (int8 && kWidth == 8)
          d = ROCDL::mfma_i32_16x16x32_i8::create(rewriter, loc, accTy, args).getResult();
        else if (int8)
          d = ROCDL::mfma_i32_16x16x16i8::create(rewriter, loc, accTy, args).getResult();
        else if (kWidth == 1)
          d = ROCDL::mfma_f32_16x16x4f32::create(rewriter, loc, accTy, args).getResult();
        else if (bf16)
          d = ROCDL::mfma_f32_16x16x16bf16_1k::create(rewriter, loc, accTy, args).getResult();
        else
          d = ROCDL::mfma_f32_16x16x16f16::create(rewriter, loc, accTy, args).getResult();
      }
      for (unsigned i = 0; i < 4; ++i)
        dV[cRegs[ck][i]] = LLVM::ExtractElementOp::create(rewriter, loc, d, i32Val(rewriter, loc, i));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), dV));
    return success();
  }
};

/// Whether the dot's operands are in the dot_op layouts (kWidth 16) of the
/// amd_wmma layout of its accumulator.
bool inWmmaLayouts(tt::DotOp op) {
  auto wmma = dyn_cast_or_null<ttg::AMDWmmaEncodingAttr>(op.getC().getType().getEncoding());
  auto a = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(op.getA().getType().getEncoding());
  auto b = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(op.getB().getType().getEncoding());
  RankedTensorType aT = op.getA().getType(), bT = op.getB().getType();
  if (aT.getRank() != 2 || aT.getDimSize(0) % 16 || aT.getDimSize(1) % 16 || bT.getDimSize(1) % 16)
    return false;
  Type elt = aT.getElementType();
  return wmma && a && b && a.getParent() == wmma && b.getParent() == wmma && a.getKWidth() == 16 &&
         b.getKWidth() == 16 && op.getType().getEncoding() == wmma &&
         op.getC().getType().getElementType().isF32() && (elt.isF16() || elt.isBF16()) &&
         bT.getElementType() == elt;
}

struct WmmaDotConversion : public TesseraOpToLLVMPattern<tt::DotOp> {
  WmmaDotConversion(const TesseraLLVMTypeConverter &tc) : TesseraOpToLLVMPattern(tc, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(tt::DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!inWmmaLayouts(op))
      return rewriter.notifyMatchFailure(op, "not in amd_wmma layouts");
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    for (RankedTensorType t : {aT, bT, cT})
      if (!supportsLinearLayout(t))
        return rewriter.notifyMatchFailure(op, "unsupported layout");
    bool bf16 = aT.getElementType().isBF16();
    SmallVector<Value> aV = unpackStruct(rewriter, loc, adaptor.getA());
    SmallVector<Value> bV = unpackStruct(rewriter, loc, adaptor.getB());
    SmallVector<Value> cV = unpackStruct(rewriter, loc, adaptor.getC());
    using Key = std::pair<int32_t, int32_t>;
    std::map<Key, SmallVector<Value>> aTiles, bTiles, cTiles;
    std::map<Key, SmallVector<unsigned>> cRegs;
    auto place = [](std::map<Key, SmallVector<Value>> &m, Key k, unsigned n, unsigned pos, Value v) {
      auto &t = m[k];
      t.resize(n);
      t[pos] = v;
    };
    for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(aT))))
      place(aTiles, {c[0] / 16, c[1] / 16}, 16, c[1] % 16, aV[r]);
    for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(bT))))
      place(bTiles, {c[0] / 16, c[1] / 16}, 16, c[0] % 16, bV[r]);
    for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(cT)))) {
      Key k{c[0] / 16, c[1] / 16};
      unsigned pos = (c[0] % 16) / 2;
      place(cTiles, k, 8, pos, cV[r]);
      auto &regs = cRegs[k];
      regs.resize(8);
      regs[pos] = r;
    }
    Type f32 = rewriter.getF32Type();
    auto accTy = VectorType::get(8, f32);
    Type opElt = bf16 ? Type(rewriter.getI16Type()) : tc.convertElementType(aT.getElementType());
    auto opTy = VectorType::get(16, opElt);
    auto vec = [&](ArrayRef<Value> vals, VectorType ty) {
      Value v = LLVM::UndefOp::create(rewriter, loc, ty);
      for (auto [i, x] : llvm::enumerate(vals)) {
        Value e = x;
        if (e.getType() != ty.getElementType())
          e = LLVM::BitcastOp::create(rewriter, loc, ty.getElementType(), e);
        v = LLVM::InsertElementOp::create(rewriter, loc, v, e, i32Val(rewriter, loc, i));
      }
      return v;
    };
    SmallVector<Value> dV(cV.begin(), cV.end());
    for (auto &[ck, acc] : cTiles) {
      if (llvm::any_of(acc, [](Value v) { return !v; }))
        return op.emitOpError("internal error: a WMMA accumulator fragment is missing");
      Value d = vec(acc, accTy);
      for (auto &[ak, aFrag] : aTiles) {
        if (ak.first != ck.first)
          continue;
        auto bIt = bTiles.find({ak.second, ck.second});
        if (bIt == bTiles.end() || llvm::any_of(aFrag, [](Value v) { return !v; }) ||
            llvm::any_of(bIt->second, [](Value v) { return !v; }))
          return op.emitOpError("internal error: a WMMA operand fragment is missing");
        Value a = vec(aFrag, opTy), b = vec(bIt->second, opTy);
        if (bf16)
          d = ROCDL::wmma_f32_16x16x16_bf16::create(rewriter, loc, accTy, a, b, d).getResult();
        else
          d = ROCDL::wmma_f32_16x16x16_f16::create(rewriter, loc, accTy, a, b, d).getResult();
      }
      for (unsigned i = 0; i < 8; ++i)
        dV[cRegs[ck][i]] = LLVM::ExtractElementOp::create(rewriter, loc, d, i32Val(rewriter, loc, i));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(cT), dV));
    return success();
  }
};

} // namespace

namespace tessera::amd {

std::optional<std::pair<unsigned, unsigned>> getMfmaWarps(RankedTensorType aT, RankedTensorType bT,
                                                          RankedTensorType cT, int numWarps) {
  if (aT.getRank() != 2 || numWarps < 1)
    return std::nullopt;
  if (!(aT.getElementType().isInteger(8) ? cT.getElementType().isInteger(32) : cT.getElementType().isF32()))
    return std::nullopt;
  Type elt = aT.getElementType();
  // fp8 operands may mix e4m3 and e5m2; the others have one type.
  bool fp8 = isFp8(elt) && isFp8(bT.getElementType());
  if (!fp8 && (!(elt.isF16() || elt.isBF16() || elt.isF32() || elt.isInteger(8)) ||
               bT.getElementType() != elt))
    return std::nullopt;
  int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
  if (M % 16 || N % 16 || K % (elt.isF32() ? 4 : (elt.isInteger(8) || fp8) ? 32 : 16))
    return std::nullopt;
  // Each warp reads the A rows and B columns of its tile: the split with the
  // fewest operand elements read (M * wn + N * wm per K) among those giving
  // every warp a 16 x 16 tile where the shape allows; ties go to more warps
  // along M.
  std::optional<std::pair<unsigned, unsigned>> best;
  int64_t bestCost = 0;
  for (unsigned wm = numWarps; wm >= 1; wm /= 2) {
    unsigned wn = numWarps / wm;
    if (wm * wn != unsigned(numWarps))
      continue;
    int64_t cost = M * int64_t(wn) + N * int64_t(wm);
    if (16 * int64_t(wm) > M || 16 * int64_t(wn) > N)
      cost += int64_t(1) << 40;
    if (!best || cost < bestCost) {
      best = std::make_pair(wm, wn);
      bestCost = cost;
    }
  }
  return best;
}

void populateMfmaDotPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns) {
  patterns.add<MfmaDotConversion, WmmaDotConversion>(typeConverter);
}

} // namespace tessera::amd
