//===- WgmmaToLLVM.cpp - Hopper warpgroup MMA (wgmma) ------------------------===//
//
// NVIDIA's sm_90 tensor-core path, in two halves:
//
// Choosing (ttg-accelerate-matmul, through TargetInfo::buildTensorCoreDot):
// an f16/bf16 tt.dot with an f32 accumulator (also fp8 e4m3/e5m2, and f32
// with inputPrecision = tf32: those two K-major only, A from shared memory),
// in a module whose warps form
// whole warpgroups (num_warps a multiple of 4), with M a multiple of 64 and
// power-of-two tiles, becomes
//   %a_s = ttg.local_alloc %a : #ttg.nvmma_shared  (each operand stored in the
//   %b_s = ttg.local_alloc %b : #ttg.nvmma_shared   hardware's swizzled order)
//   %d   = ttng.warp_group_dot %a_s, %b_s, %c      (#ttg.nvidia_mma v3)
// Each operand buffer keeps the order of the operand's register layout (the
// order its loads are coalesced in, so ttg-pipeline can fill it with cp.async
// of the same vectors); rows of min(128, fast extent x element bytes) bytes,
// swizzled as wgmma's 32/64/128-byte modes. Warpgroups go along M first
// (64 rows each), the rest along N; instrShape N is the warp column's N up
// to 256.
//
// Lowering: per warpgroup and per m64nN tile of its accumulator registers,
// one wgmma.mma_async per K step (16 for 16-bit types) with shared-memory
// matrix descriptors computed from the buffer's own layout (its inverse gives
// each tile's start offset; the 8-row stride and, for MN-major operands, the
// stride between swizzle-wide column slabs), between wgmma.fence and
// wgmma.commit_group; a synchronous dot waits for its group at once.
// ttng.warp_group_dot_wait becomes wgmma.wait_group with the waited-for
// registers tied through it, so that nothing reads them earlier.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/TTGToLLVM/TargetInfo.h"

#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"
#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SetVector.h"

#include <map>

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// Alignment of wgmma operand buffers: the 128-byte swizzle repeats every
/// 1024 bytes, and descriptors assume a buffer starts on that boundary.
constexpr int64_t kOperandAlignment = 1024;

Value inlineAsm(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                StringRef asmStr, StringRef constraints) {
  return ::tessera::nvidia::emitInlinePtx(b, loc, resultType, operands, asmStr, constraints);
}

/// The nvmma_shared layout for a wgmma operand of `type` (2-D, f16/bf16)
/// stored with its dim `fast` contiguous; `mnPerInstr` is the instruction's
/// extent along the operand's M or N dim (64 for A, instrShape N for B).
/// Null when no swizzled layout of at least 32-byte rows fits.
ttg::NVMMASharedEncodingAttr operandEncoding(RankedTensorType type, unsigned opIdx,
                                             unsigned fast, int64_t mnPerInstr) {
  MLIRContext *ctx = type.getContext();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  unsigned kDim = opIdx == 0 ? 1 : 0;
  int64_t rowBytes = std::min<int64_t>(128, type.getDimSize(fast) * bytes);
  // An MN-major operand: one instruction's M or N extent covers whole rows
  // of the swizzle pattern.
  if (fast != kDim)
    rowBytes = std::min<int64_t>(rowBytes, mnPerInstr * bytes);
  if (rowBytes < 32 || !isPow2(rowBytes))
    return {};
  return ttg::NVMMASharedEncodingAttr::get(ctx, unsigned(rowBytes), /*transposed=*/fast == 0,
                                           unsigned(bytes * 8), /*fp4Padded=*/false,
                                           ttg::CTALayoutAttr::getDefault(ctx, 2));
}

/// The dim a tensor's layout keeps contiguous in a thread (its blocked
/// order's first dim), else the last dim.
unsigned fastDim(RankedTensorType type) {
  if (auto blocked = dyn_cast_or_null<ttg::BlockedEncodingAttr>(type.getEncoding()))
    return blocked.getOrder()[0];
  return 1;
}

std::string ptxTypeName(Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (isa<Float8E5M2Type>(t))
    return "e5m2";
  return "";
}

bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// K of one wgmma: 32 bytes of each row of A and column of B.
int64_t wgmmaK(Type elt) { return 256 / elt.getIntOrFloatBitWidth(); }

/// The registers of `values` tied through `asmText` (which must not write
/// them): the returned values are the same bits, but only available after
/// the asm. 16/64-bit and non-f32 values travel as integers of their width.
SmallVector<Value> tieThroughAsm(OpBuilder &b, Location loc, ArrayRef<Value> values,
                                 StringRef asmText) {
  MLIRContext *ctx = b.getContext();
  if (values.empty()) {
    inlineAsm(b, loc, Type(), ValueRange{}, asmText, "~{memory}");
    return {};
  }
  SmallVector<Value> ins;
  SmallVector<Type> types;
  std::string outs, tied;
  for (auto [i, v] : llvm::enumerate(values)) {
    Type t = v.getType();
    Value in = v;
    const char *c;
    if (t.isF32()) {
      c = "f";
    } else {
      unsigned bits = t.getIntOrFloatBitWidth();
      Type it = IntegerType::get(ctx, std::max(bits, 16u));
      if (!t.isInteger(std::max(bits, 16u))) {
        if (isa<FloatType>(t))
          in = LLVM::BitcastOp::create(b, loc, IntegerType::get(ctx, bits), v);
        if (bits < 16)
          in = LLVM::ZExtOp::create(b, loc, it, in);
      }
      c = bits <= 16 ? "h" : bits <= 32 ? "r" : "l";
      t = it;
    }
    ins.push_back(in);
    types.push_back(t);
    outs += std::string(i ? "," : "") + "=" + c;
    tied += "," + std::to_string(i);
  }
  auto structTy = LLVM::LLVMStructType::getLiteral(ctx, types);
  Value res = inlineAsm(b, loc, structTy, ins, asmText, outs + tied);
  SmallVector<Value> out;
  for (auto [i, v] : llvm::enumerate(values)) {
    Value r = LLVM::ExtractValueOp::create(b, loc, res, int64_t(i));
    Type t = v.getType();
    if (r.getType() != t) {
      unsigned bits = t.getIntOrFloatBitWidth();
      if (bits < 16)
        r = LLVM::TruncOp::create(b, loc, IntegerType::get(ctx, bits), r);
      if (r.getType() != t)
        r = LLVM::BitcastOp::create(b, loc, t, r);
    }
    out.push_back(r);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// A wgmma matrix descriptor's fixed part, and how to find each tile's start.
struct OperandDescriptor {
  ExchangeLayout offsets;  // coordinates -> element offsets of the buffer
  int64_t bytes = 2;       // per element
  unsigned mnDim = 0, kDim = 1;
  bool kMajor = true;      // K contiguous (else M or N contiguous: transposed)
  uint64_t fixed = 0;      // LBO, SBO and swizzle mode fields

  int32_t offsetOf(int64_t mn, int64_t k) const {
    SmallVector<int32_t, 2> c(2, 0);
    c[mnDim] = int32_t(mn);
    c[kDim] = int32_t(k);
    return offsets.offsetOf(c);
  }
};

FailureOr<OperandDescriptor> describeOperand(Operation *op, Type memDescType, unsigned opIdx,
                                             int64_t kInstr, int64_t mnInstr) {
  auto type = cast<ttg::MemDescType>(memDescType);
  auto enc = dyn_cast_or_null<ttg::NVMMASharedEncodingAttr>(type.getEncoding());
  const char *name = opIdx == 0 ? "a" : "b";
  if (!enc || enc.getSwizzlingByteWidth() < 32 || enc.getFp4Padded())
    return op->emitOpError() << "wgmma reads operand " << name
                             << " from a #ttg.nvmma_shared buffer swizzled by 32, 64 or 128 "
                                "bytes, but it is "
                             << memDescType,
           failure();
  if (enc.getElementBitWidth() != type.getElementTypeBitWidth())
    return op->emitOpError() << "operand " << name << " of type " << memDescType
                             << " has a #ttg.nvmma_shared layout of " << enc.getElementBitWidth()
                             << "-bit elements",
           failure();
  // The descriptors assume the buffer starts on the swizzle pattern's
  // repeat (8 rows of the swizzle width).
  {
    Operation *def = op->getOperand(opIdx).getDefiningOp();
    while (def && isa<ttg::MemDescIndexOp, ttg::MemDescTransOp>(def))
      def = def->getOperand(0).getDefiningOp();
    if (auto alloc = dyn_cast_or_null<ttg::LocalAllocOp>(def)) {
      auto align = alloc.getAlignmentAttr();
      if (!align || align.getInt() < 8 * int64_t(enc.getSwizzlingByteWidth()))
        return op->emitOpError() << "operand " << name << " needs its buffer aligned to "
                                 << 8 * enc.getSwizzlingByteWidth()
                                 << " bytes (the swizzle's repeat): give its ttg.local_alloc "
                                    "that alignment",
               failure();
    }
  }
  OperandDescriptor d;
  d.bytes = type.getElementTypeBitWidth() / 8;
  d.kDim = opIdx == 0 ? 1 : 0;
  d.mnDim = 1 - d.kDim;
  unsigned fast = enc.getTransposed() ? 0 : 1;
  d.kMajor = fast == d.kDim;
  int64_t width = enc.getSwizzlingByteWidth();
  int64_t rowElems = width / d.bytes;
  ArrayRef<int64_t> shape = type.getShape();
  FailureOr<ExchangeLayout> offsets = getSharedBufferOffsets(type);
  if (failed(offsets) || shape.size() != 2 || shape[fast] < rowElems || shape[1 - fast] < 8 ||
      (!d.kMajor && mnInstr % rowElems) || (d.kMajor && kInstr * d.bytes > width))
    return op->emitOpError() << "operand " << name << " of type " << memDescType
                             << " does not hold whole " << width
                             << "-byte swizzle rows for wgmma tiles of " << mnInstr << " x "
                             << kInstr,
           failure();
  d.offsets = *offsets;
  // The stride between groups of 8 rows (rows run along the strided dim)
  // and, MN-major, between slabs of `rowElems` columns.
  int64_t sbo = d.kMajor ? d.offsetOf(8, 0) * d.bytes : d.offsetOf(0, 8) * d.bytes;
  int64_t lbo = 0;
  if (!d.kMajor && shape[d.mnDim] > rowElems)
    lbo = d.offsetOf(rowElems, 0) * d.bytes;
  uint64_t mode = width == 128 ? 1 : width == 64 ? 2 : 3;
  d.fixed = (uint64_t((lbo >> 4) & 0x3FFF) << 16) | (uint64_t((sbo >> 4) & 0x3FFF) << 32) |
            (mode << 62);
  return d;
}

struct WarpGroupDotConversion : public TesseraOpToLLVMPattern<ttng::WarpGroupDotOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ttng::WarpGroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = getTesseraTypeConverter();
    const TargetInfoBase &ti = getTargetInfo();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto dT = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<ttg::NvidiaMmaEncodingAttr>(dT.getEncoding());
    if (!mma || !mma.isHopper())
      return op.emitOpError("needs a #ttg.nvidia_mma version 3 accumulator");
    bool aInRegs = isa<RankedTensorType>(op.getA().getType());
    auto aShaped = cast<ShapedType>(op.getA().getType());
    Type elt = aShaped.getElementType();
    Type bElt = cast<ShapedType>(op.getB().getType()).getElementType();
    // f32 operands run as tf32 when the dot allows it (inputPrecision = tf32).
    bool tf32 = elt.isF32() && bElt.isF32() && op.getInputPrecision() == tt::InputPrecision::TF32;
    std::string ptxType = tf32 ? "tf32" : ptxTypeName(elt), bPtxType = tf32 ? "tf32" : ptxTypeName(bElt);
    bool fp8 = isFp8(elt);
    if (ptxType.empty() || bPtxType.empty() || fp8 != isFp8(bElt) || (!fp8 && elt != bElt) ||
        !dT.getElementType().isF32())
      return op.emitOpError() << "wgmma supports f16, bf16, fp8 (e4m3, e5m2) and tf32 (f32 with "
                                 "inputPrecision = tf32) operands with an f32 accumulator, but the "
                                 "operands are "
                              << elt << " and " << bElt << " and the accumulator "
                              << dT.getElementType();
    // 8- and 32-bit operands: wgmma reads them K-major from shared memory only.
    bool kMajorOnly = fp8 || tf32;
    if (kMajorOnly && aInRegs)
      return op.emitOpError() << "with " << elt << " operands reads a from shared memory only";
    int64_t K = aShaped.getShape()[1];
    const int64_t kInstr = wgmmaK(elt);
    int64_t instrN = mma.getInstrShape()[1];
    if (K % kInstr)
      return op.emitOpError() << "needs K to be a multiple of " << kInstr << ", but it is " << K;
    FailureOr<OperandDescriptor> aD = OperandDescriptor();
    std::map<std::pair<int32_t, int32_t>, SmallVector<Value>> aTiles;
    if (aInRegs) {
      // A's registers, grouped per 16 x 16 tile (the rows of one warp, 16 of
      // K) in the order of PTX's A fragment: (r, k..k+1), (r+8, k..k+1),
      // (r, k+8..k+9), (r+8, k+8..k+9), two 16-bit values per register.
      auto aT = cast<RankedTensorType>(op.getA().getType());
      auto dotEnc = dyn_cast_or_null<ttg::DotOperandEncodingAttr>(aT.getEncoding());
      if (!dotEnc || dotEnc.getOpIdx() != 0 || dotEnc.getParent() != mma || dotEnc.getKWidth() != 2)
        return op.emitOpError("operand a in registers needs the #ttg.dot_op layout (opIdx = 0, "
                              "kWidth = 2) of the accumulator's layout");
      SmallVector<Value> aV = unpackStruct(rewriter, loc, adaptor.getA());
      for (auto [r, c] : llvm::enumerate(registerCoordinates(toLinearLayout(aT)))) {
        auto &tile = aTiles[{c[0] / 16, c[1] / 16}];
        tile.resize(8);
        tile[(c[1] % 2) + 2 * ((c[0] % 16) / 8) + 4 * ((c[1] % 16) / 8)] = aV[r];
      }
    } else {
      aD = describeOperand(op, op.getA().getType(), 0, kInstr, 64);
    }
    FailureOr<OperandDescriptor> bD = describeOperand(op, op.getB().getType(), 1, kInstr, instrN);
    if (failed(aD) || failed(bD))
      return failure();
    // wgmma transposes only 16-bit operands: 8- and 32-bit ones must be stored K-major.
    if (kMajorOnly && (!aD->kMajor || !bD->kMajor))
      return op.emitOpError() << "with " << elt << " operands needs both buffers K-major (K contiguous: "
                                 "#ttg.nvmma_shared transposed = false for a, true for b), but "
                              << (aD->kMajor ? "b" : "a") << " is not";

    // The accumulator: blocks of instrN / 2 registers, each one m64nN tile
    // of a warpgroup in PTX's fragment order.
    LinearLayout ll = toLinearLayout(dT);
    SmallVector<SmallVector<int32_t>> regs = registerCoordinates(ll);
    int64_t block = instrN / 2;
    if (regs.empty() || int64_t(regs.size()) % block)
      return op.emitOpError("internal error: the accumulator does not split into wgmma tiles");
    for (size_t r = 0; r < regs.size(); ++r) {
      int64_t i = r % block;
      const auto &origin = regs[r - i];
      if (regs[r][0] != origin[0] + 8 * ((i / 2) % 2) || regs[r][1] != origin[1] + 8 * (i / 4) + i % 2)
        return op.emitOpError("internal error: the accumulator registers are not in wgmma's "
                              "fragment order");
    }
    // Where this warp's warpgroup sits: the warp bits above the first two.
    auto [lane, warpId] = laneAndWarp(rewriter, loc, ti);
    (void)lane;
    // The warp id as lane 0 has it: ptxas then knows the descriptors are the
    // same in every lane and keeps them in uniform registers (no move per
    // wgmma). All threads of the warpgroup run a wgmma together, so the
    // shuffle is never divergent.
    Value warp = LLVM::InlineAsmOp::create(
                     rewriter, loc, TypeRange{rewriter.getI32Type()}, ValueRange{warpId},
                     "shfl.sync.idx.b32 $0, $1, 0, 31, -1;", "=r,r", /*has_side_effects=*/false,
                     /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                     LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr())
                     .getResult(0);
    if (ll.getInDimSizeLog2("warp") < 2 || ll.getBasis("warp", 0) != LinearLayout::BasisVec{16, 0} ||
        ll.getBasis("warp", 1) != LinearLayout::BasisVec{32, 0})
      return op.emitOpError("internal error: the accumulator's warps do not form warpgroups");
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value aGroupOff = i32Val(rewriter, loc, 0), bGroupOff = i32Val(rewriter, loc, 0);
    int32_t aGroupBits = 0, bGroupBits = 0; // offset bits the warpgroup's position sets
    for (int32_t bit = 2; bit < ll.getInDimSizeLog2("warp"); ++bit) {
      const auto &basis = ll.getBasis("warp", bit);
      int32_t aOff = aInRegs ? 0 : aD->offsetOf(basis[0], 0), bOff = bD->offsetOf(basis[1], 0);
      if (!aOff && !bOff)
        continue;
      Value set = LLVM::AndOp::create(
          rewriter, loc, LLVM::LShrOp::create(rewriter, loc, warp, i32Val(rewriter, loc, bit)),
          i32Val(rewriter, loc, 1));
      aGroupBits |= aOff;
      bGroupBits |= bOff;
      if (aOff)
        aGroupOff = LLVM::XOrOp::create(
            rewriter, loc, aGroupOff, LLVM::MulOp::create(rewriter, loc, set, i32Val(rewriter, loc, aOff)));
      if (bOff)
        bGroupOff = LLVM::XOrOp::create(
            rewriter, loc, bGroupOff, LLVM::MulOp::create(rewriter, loc, set, i32Val(rewriter, loc, bOff)));
    }
    Value aBase = aInRegs ? Value() : LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getA());
    Value bBase = LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getB());
    // Each operand's descriptor for this warpgroup's tile origin, once; a
    // tile whose constant offset shares no bit with the warpgroup's part and
    // is a multiple of 16 bytes is that descriptor plus the offset / 16 (the
    // 14-bit address field cannot carry over: shared memory is under 256 KB).
    auto descriptorAt = [&](Value base, Value off, const OperandDescriptor &d) {
      Value addr = LLVM::AddOp::create(
          rewriter, loc, base, LLVM::MulOp::create(rewriter, loc, off, i32Val(rewriter, loc, d.bytes)));
      Value field = LLVM::AndOp::create(
          rewriter, loc, LLVM::LShrOp::create(rewriter, loc, addr, i32Val(rewriter, loc, 4)),
          i32Val(rewriter, loc, 0x3FFF));
      Value wide = LLVM::ZExtOp::create(rewriter, loc, i64, field);
      return LLVM::OrOp::create(rewriter, loc, wide,
                                LLVM::ConstantOp::create(rewriter, loc, i64,
                                                         rewriter.getI64IntegerAttr(int64_t(d.fixed))))
          .getResult();
    };
    Value aOrigin, bOrigin;
    auto descriptor = [&](Value base, Value groupOff, int32_t groupBits, Value &origin,
                          const OperandDescriptor &d, int32_t constOff) -> Value {
      int64_t bytes = int64_t(constOff) * d.bytes;
      if ((constOff & groupBits) == 0 && bytes % 16 == 0) {
        if (!origin)
          origin = descriptorAt(base, groupOff, d);
        if (bytes == 0)
          return origin;
        return LLVM::AddOp::create(rewriter, loc, origin,
                                   LLVM::ConstantOp::create(rewriter, loc, i64,
                                                            rewriter.getI64IntegerAttr(bytes >> 4)))
            .getResult();
      }
      Value off = LLVM::XOrOp::create(rewriter, loc, groupOff, i32Val(rewriter, loc, constOff));
      return descriptorAt(base, off, d);
    };
    Value useC = adaptor.getUseC()
                     ? LLVM::ZExtOp::create(rewriter, loc, i32, adaptor.getUseC()).getResult()
                     : i32Val(rewriter, loc, 1);

    // Operands: block accumulators (tied), then A (a descriptor, or four
    // registers), B's descriptor, the scale-d flag.
    int64_t aCount = aInRegs ? 4 : 1;
    std::string asmText;
    {
      llvm::raw_string_ostream os(asmText);
      os << "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $" << block + aCount + 1 << ", 0;\n\t"
         << "wgmma.mma_async.sync.aligned.m64n" << instrN << "k" << kInstr << ".f32." << ptxType
         << "." << bPtxType << " {";
      for (int64_t i = 0; i < block; ++i)
        os << (i ? ", " : "") << "$" << i;
      os << "}, ";
      if (aInRegs)
        os << "{$" << block << ", $" << block + 1 << ", $" << block + 2 << ", $" << block + 3 << "}";
      else
        os << "$" << block;
      os << ", $" << block + aCount << ", p, 1, 1";
      // The transpose immediates exist for 16-bit types only.
      if (!kMajorOnly) {
        if (!aInRegs)
          os << ", " << (aD->kMajor ? 0 : 1);
        os << ", " << (bD->kMajor ? 0 : 1);
      }
      os << ";\n}";
    }
    std::string constraints;
    for (int64_t i = 0; i < block; ++i)
      constraints += std::string(i ? "," : "") + "=f";
    constraints += aInRegs ? ",r,r,r,r,l,r" : ",l,l,r";
    Type halfTy = tc.convertElementType(elt);
    auto packPair = [&](Value lo, Value hi) {
      auto vecTy = VectorType::get({2}, halfTy);
      Value v = LLVM::UndefOp::create(rewriter, loc, vecTy);
      v = LLVM::InsertElementOp::create(rewriter, loc, v, lo, i32Val(rewriter, loc, 0));
      v = LLVM::InsertElementOp::create(rewriter, loc, v, hi, i32Val(rewriter, loc, 1));
      return LLVM::BitcastOp::create(rewriter, loc, i32, v).getResult();
    };
    for (int64_t i = 0; i < block; ++i)
      constraints += "," + std::to_string(i);
    auto resTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(block, rewriter.getF32Type()));

    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getC());
    if (int64_t(acc.size()) != int64_t(regs.size()))
      return op.emitOpError("internal error: accumulator size mismatch");
    // A zero accumulator (and no useC operand) is not read: the first K step
    // of each tile runs with scale-d = 0 on uninitialized registers.
    bool zeroC = false;
    DenseElementsAttr cInit;
    if (!adaptor.getUseC() && matchPattern(op.getC(), m_Constant(&cInit)) && cInit.isSplat() &&
        isa<FloatType>(cInit.getElementType()))
      zeroC = cInit.getSplatValue<APFloat>().isPosZero();
    Value firstUseC = useC;
    if (zeroC) {
      firstUseC = i32Val(rewriter, loc, 0);
      Value undef = LLVM::UndefOp::create(rewriter, loc, rewriter.getF32Type());
      for (Value &v : acc)
        v = undef;
    }
    // A's fragments, packed; then every register the instructions read goes
    // through wgmma.fence, so that all of them are written before it (ptxas
    // otherwise makes each wgmma wait for the registers written since).
    std::map<std::pair<int32_t, int32_t>, SmallVector<Value>> aPacked;
    SmallVector<Value> fenced;
    if (aInRegs) {
      for (auto &[key, tile] : aTiles) {
        if (llvm::any_of(tile, [](Value v) { return !v; }))
          return op.emitOpError("internal error: a register fragment of operand a is missing");
        for (int i = 0; i < 8; i += 2)
          aPacked[key].push_back(packPair(tile[i], tile[i + 1]));
        fenced.append(aPacked[key]);
      }
    }
    // Accumulators computed by other instructions (a rescaled output) are
    // fenced too; one that comes from a wgmma (a loop-carried accumulator,
    // maybe still in flight) is not touched.
    Operation *cDef = op.getC().getDefiningOp();
    bool fenceAcc = !zeroC && cDef && !isa<ttng::WarpGroupDotOp, ttng::WarpGroupDotWaitOp>(cDef);
    size_t accStart = fenced.size();
    if (fenceAcc)
      fenced.append(acc);
    fenced = tieThroughAsm(rewriter, loc, fenced, "wgmma.fence.sync.aligned;");
    if (fenceAcc)
      std::copy(fenced.begin() + accStart, fenced.end(), acc.begin());
    {
      size_t pos = 0;
      for (auto &[key, packed] : aPacked)
        for (Value &v : packed)
          v = fenced[pos++];
    }
    for (size_t start = 0; start < regs.size(); start += block) {
      int64_t m0 = regs[start][0], n0 = regs[start][1];
      Value scaleD = firstUseC;
      for (int64_t k0 = 0; k0 < K; k0 += kInstr) {
        SmallVector<Value> operands;
        if (aInRegs) {
          auto it = aPacked.find({int32_t(m0 / 16), int32_t(k0 / 16)});
          if (it == aPacked.end())
            return op.emitOpError("internal error: a register fragment of operand a is missing");
          operands.append(it->second.begin(), it->second.end());
        } else {
          operands.push_back(descriptor(aBase, aGroupOff, aGroupBits, aOrigin, *aD, aD->offsetOf(m0, k0)));
        }
        operands.push_back(descriptor(bBase, bGroupOff, bGroupBits, bOrigin, *bD, bD->offsetOf(n0, k0)));
        operands.push_back(scaleD);
        operands.append(acc.begin() + start, acc.begin() + start + block);
        Value res = inlineAsm(rewriter, loc, resTy, operands, asmText, constraints);
        for (int64_t i = 0; i < block; ++i)
          acc[start + i] = LLVM::ExtractValueOp::create(rewriter, loc, res, i);
        // Later K steps accumulate.
        scaleD = i32Val(rewriter, loc, 1);
      }
    }
    inlineAsm(rewriter, loc, Type(), ValueRange{}, "wgmma.commit_group.sync.aligned;", "~{memory}");
    if (!op.getIsAsync())
      acc = tieThroughAsm(rewriter, loc, acc, "wgmma.wait_group.sync.aligned 0;");
    rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(dT), acc));
    return success();
  }
};

struct WarpGroupDotWaitConversion : public TesseraOpToLLVMPattern<ttng::WarpGroupDotWaitOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ttng::WarpGroupDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Every register of the tensors waited for goes through the wait.
    SmallVector<Value> flat;
    SmallVector<size_t> counts;
    for (auto [orig, conv] : llvm::zip(op.getInputs(), adaptor.getInputs())) {
      if (isa<RankedTensorType>(orig.getType())) {
        SmallVector<Value> vs = unpackStruct(rewriter, loc, conv);
        counts.push_back(vs.size());
        flat.append(vs);
      } else {
        counts.push_back(0);
      }
    }
    std::string text = "wgmma.wait_group.sync.aligned " + std::to_string(op.getPendings()) + ";";
    SmallVector<Value> waited = tieThroughAsm(rewriter, loc, flat, text);
    SmallVector<Value> results;
    size_t pos = 0;
    for (auto [i, orig, conv] : llvm::enumerate(op.getInputs(), adaptor.getInputs())) {
      if (!isa<RankedTensorType>(orig.getType())) {
        results.push_back(conv);
        continue;
      }
      ArrayRef<Value> part(waited.begin() + pos, counts[i]);
      pos += counts[i];
      results.push_back(packStruct(rewriter, loc, conv.getType(), part));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct FenceAsyncSharedConversion : public TesseraOpToLLVMPattern<ttng::FenceAsyncSharedOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ttng::FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    inlineAsm(rewriter, op.getLoc(), Type(), ValueRange{},
              op.getBCluster() ? "fence.proxy.async.shared::cluster;"
                               : "fence.proxy.async.shared::cta;",
              "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

namespace tessera::nvidia {

std::optional<WgmmaPlan> getWgmmaPlan(RankedTensorType aT, RankedTensorType bT,
                                      RankedTensorType cT, int numWarps, bool allowTf32) {
  if (numWarps < 4 || numWarps % 4 || aT.getRank() != 2 || bT.getRank() != 2 ||
      !cT.getElementType().isF32())
    return std::nullopt;
  Type elt = aT.getElementType();
  bool fp8 = isFp8(elt) && isFp8(bT.getElementType());
  bool tf32 = allowTf32 && elt.isF32() && bT.getElementType().isF32();
  if (!fp8 && !tf32 && (!(elt.isF16() || elt.isBF16()) || bT.getElementType() != elt))
    return std::nullopt;
  int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
  if (!isPow2(M) || !isPow2(N) || !isPow2(K) || M % 64 || K % wgmmaK(elt) || N % 8)
    return std::nullopt;
  // Warpgroups along M first (64 rows each), the rest along N.
  unsigned groups = numWarps / 4, gm = 1;
  while (gm * 2 <= groups && M % (64 * (gm * 2)) == 0)
    gm *= 2;
  unsigned gn = groups / gm;
  if (N % (8 * gn))
    return std::nullopt;
  int64_t instrN = std::min<int64_t>(256, N / gn);
  if (instrN < 8 || !isPow2(instrN))
    return std::nullopt;
  // The accumulator must fit the registers a thread may have at this block
  // size (65536 per SM over the block's threads), with room for the rest.
  int64_t accRegs = M * N / (int64_t(numWarps) * 32);
  if (accRegs + 40 > std::min<int64_t>(255, 65536 / (int64_t(numWarps) * 32)))
    return std::nullopt;
  return WgmmaPlan{4 * gm, gn, unsigned(instrN)};
}

Value buildWgmmaDot(OpBuilder &b, Operation *op, int numWarps) {
  auto dot = dyn_cast<tt::DotOp>(op);
  if (!dot)
    return {};
  RankedTensorType cT = dot.getC().getType();
  // Each operand is stored as it is computed (a conversion before the store
  // would only move it through shared memory once more).
  auto source = [](Value v) {
    while (auto cvt = v.getDefiningOp<ttg::ConvertLayoutOp>()) {
      if (!isa<ttg::BlockedEncodingAttr>(cvt.getSrc().getType().getEncoding()))
        break;
      v = cvt.getSrc();
    }
    return v;
  };
  // A transposed operand (tt.trans of a blocked tensor) is stored as it is
  // and read through a transposed view of the buffer.
  auto untransposed = [&](Value v) -> Value {
    auto trans = v.getDefiningOp<tt::TransOp>();
    if (!trans || trans.getOrder() != ArrayRef<int32_t>{1, 0})
      return {};
    Value src = source(trans.getSrc());
    auto t = cast<RankedTensorType>(src.getType());
    return isa_and_nonnull<ttg::BlockedEncodingAttr>(t.getEncoding()) && t.getRank() == 2 ? src
                                                                                          : Value();
  };
  Value aV = source(dot.getA()), bV = source(dot.getB());
  auto aT = cast<RankedTensorType>(aV.getType()), bT = cast<RankedTensorType>(bV.getType());
  bool allowTf32 = dot.getInputPrecision() == tt::InputPrecision::TF32;
  std::optional<WgmmaPlan> plan = getWgmmaPlan(aT, bT, cT, numWarps, allowTf32);
  if (!plan)
    return {};
  auto loopOf = [](Operation *o) { return o->getParentOfType<scf::ForOp>(); };
  // A stays in registers when it is computed in the loop of the dot (e.g. the
  // probabilities of attention, from an earlier dot); a loaded or loop-invariant
  // A goes to shared memory like B.
  auto definedOutside = [&](Value v) {
    scf::ForOp loop = loopOf(dot);
    return loop && !loop->isAncestor(v.getParentRegion()->getParentOp()) &&
           v.getParentRegion()->getParentOp() != loop.getOperation();
  };
  // 8-bit and tf32 operands: wgmma takes them K-major only, and A from
  // shared memory.
  bool kMajorOnly = isFp8(aT.getElementType()) || aT.getElementType().isF32();
  bool aInRegs = !kMajorOnly && !aV.getDefiningOp<tt::LoadOp>() && !definedOutside(aV);
  Value bTransSrc = untransposed(bV);
  RankedTensorType bStoreT = bTransSrc ? cast<RankedTensorType>(bTransSrc.getType()) : bT;
  ttg::NVMMASharedEncodingAttr aEnc, bEnc;
  if (!aInRegs && !(aEnc = operandEncoding(aT, 0, kMajorOnly ? 1 : fastDim(aT), 64)))
    return {};
  if (kMajorOnly) {
    bEnc = operandEncoding(bT, 1, /*fast=K*/ 0, plan->instrN);
  } else if (bTransSrc) {
    // The buffer holds the N x K source, K contiguous (K-major for wgmma).
    bEnc = operandEncoding(bT, 1, 1 - fastDim(bStoreT), plan->instrN);
  } else {
    bEnc = operandEncoding(bT, 1, fastDim(bT), plan->instrN);
  }
  if (!bEnc)
    return {};
  MLIRContext *ctx = op->getContext();
  Location loc = dot.getLoc();
  auto mma = ttg::NvidiaMmaEncodingAttr::get(ctx, 3, 0, {plan->wm, plan->wn},
                                             ttg::CTALayoutAttr::getDefault(ctx, 2),
                                             {16, plan->instrN, unsigned(wgmmaK(aT.getElementType()))});
  Attribute smem = ttg::SharedMemorySpaceAttr::get(ctx);
  // Stores each operand once: before the outermost loop it does not change
  // in, else right before the dot. (The generic-proxy stores get their
  // fence.proxy.async in the lowering: fenceStoresForAsyncReaders.)
  auto alloc = [&](Value v, RankedTensorType t, Attribute enc) {
    OpBuilder::InsertionGuard guard(b);
    Operation *at = dot;
    for (scf::ForOp loop = loopOf(dot); loop; loop = loopOf(loop)) {
      Region *def = v.getParentRegion();
      if (loop->isAncestor(def->getParentOp()) || def->getParentOp() == loop.getOperation())
        break;
      at = loop;
    }
    b.setInsertionPoint(at);
    auto type = ttg::MemDescType::get(t.getShape(), t.getElementType(), enc, smem, /*mutable=*/false);
    Value buf = ttg::LocalAllocOp::create(b, loc, type, v, b.getI32IntegerAttr(kOperandAlignment));
    return buf;
  };
  Value a;
  if (aInRegs) {
    auto aOpT = RankedTensorType::get(aT.getShape(), aT.getElementType(),
                                      ttg::DotOperandEncodingAttr::get(ctx, 0, mma, 2));
    a = ttg::ConvertLayoutOp::create(b, loc, aOpT, aV);
  } else {
    a = alloc(aV, aT, aEnc);
  }
  Value bb;
  if (bTransSrc) {
    auto srcEnc = ttg::NVMMASharedEncodingAttr::get(ctx, bEnc.getSwizzlingByteWidth(), !bEnc.getTransposed(),
                                                    bEnc.getElementBitWidth(), false,
                                                    ttg::CTALayoutAttr::getDefault(ctx, 2));
    Value buf = alloc(bTransSrc, bStoreT, srcEnc);
    auto viewT = ttg::MemDescType::get(bT.getShape(), bT.getElementType(), bEnc, smem, false);
    bb = ttg::MemDescTransOp::create(b, loc, viewT, buf, b.getDenseI32ArrayAttr({1, 0}));
  } else {
    bb = alloc(bV, bT, bEnc);
  }
  auto accT = RankedTensorType::get(cT.getShape(), cT.getElementType(), mma);
  Value c = ttg::ConvertLayoutOp::create(b, loc, accT, dot.getC());
  auto wg = ttng::WarpGroupDotOp::create(b, loc, accT, a, bb, c, /*useC=*/Value(),
                                         dot.getInputPrecisionAttr(),
                                         dot.getMaxNumImpreciseAccAttr(), b.getBoolAttr(false));
  return wg.getResult();
}

Value makeWgmmaAsync(OpBuilder &b, Operation *op, int pending) {
  auto dot = dyn_cast<ttng::WarpGroupDotOp>(op);
  if (!dot || dot.getIsAsync())
    return {};
  dot.setIsAsync(true);
  if (pending < 0)
    return dot.getResult();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(dot);
  SmallVector<Value> inputs{dot.getResult()};
  for (Value v : {dot.getA(), dot.getB()})
    if (isa<ttg::MemDescType>(v.getType()))
      inputs.push_back(v);
  auto wait = ttng::WarpGroupDotWaitOp::create(b, dot.getLoc(), inputs, pending);
  return wait.getResult(0);
}

Value waitForWgmma(OpBuilder &b, Location loc, Value value, int pending) {
  return ttng::WarpGroupDotWaitOp::create(b, loc, ValueRange{value}, std::max(pending, 0)).getResult(0);
}

void populateWgmmaPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                           RewritePatternSet &patterns) {
  patterns.add<WarpGroupDotConversion, WarpGroupDotWaitConversion, FenceAsyncSharedConversion>(
      typeConverter);
}

} // namespace tessera::nvidia
