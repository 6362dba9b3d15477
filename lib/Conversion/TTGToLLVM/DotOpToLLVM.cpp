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
// Boundary barriers come from ttg-membar. Operands may be in any layout with
// a LinearLayout (dot_op layouts included). Batched (3-D) dots have the batch
// as a leading index.
// Tensor cores are the vendor's own pattern family
// (TargetInfoBase::populateVendorPatterns), added with a higher benefit: this
// pattern lowers the dots a vendor pattern does not take.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"


using namespace mlir;
using namespace mlir::tessera;

namespace {

int64_t bytesOf(Type t) { return std::max<int64_t>(t.getIntOrFloatBitWidth() / 8, 1); }

struct DotConversion : public TesseraOpToLLVMPattern<tt::DotOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    if (aT.getRank() != 2 && aT.getRank() != 3)
      return op.emitOpError("dots of rank ") << aT.getRank() << " are not supported (2, or 3 with a batch)";
    for (RankedTensorType t : {aT, bT, cT})
      if (!supportsLinearLayout(t))
        return op.emitError("unsupported operand layout for a dot");
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op.emitError("tt.dot needs shared memory; run ttg-allocate-shared-memory first");
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
               << t << " " << ti.getFp8Requirement(t) << ")";
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
};

} // namespace

int64_t mlir::tessera::getDotScratchBytes(Operation *op) {
  auto dot = dyn_cast<tt::DotOp>(op);
  if (!dot || dot.getA().getType().getRank() < 2)
    return 0;
  auto aT = dot.getA().getType(), bT = dot.getB().getType();
  return aT.getNumElements() * bytesOf(aT.getElementType()) + bT.getNumElements() * bytesOf(bT.getElementType());
}

void mlir::tessera::populateDotOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                RewritePatternSet &patterns) {
  patterns.add<DotConversion>(typeConverter);
}
