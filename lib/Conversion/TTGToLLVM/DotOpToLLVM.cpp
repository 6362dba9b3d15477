//===- DotOpToLLVM.cpp - tt.dot by fused multiply-adds -----------------------===//
//
// 1. Every thread writes its elements of A (M x K) and B (K x N) to shared
//    memory at their row-major positions; a barrier.
// 2. Each accumulator element (m, n) a thread owns gets, for k = 0..K-1,
//    acc += A[m][k] * B[k][n], reading A and B from shared memory. Registers
//    that share the same row (column) of the output share A (B) loads.
//    Floating-point inputs compute in the accumulator's type (fp16/bf16
//    upcast exactly); int8 accumulates in i32.
// 3. A barrier protects the scratch buffer's next use.
// This is the correctness path; tensor-core lowering (mma.sync, wgmma)
// replaces it for performance. Not handled: batched (3-D) dots.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

int64_t bytesOf(Type t) { return std::max<int64_t>(t.getIntOrFloatBitWidth() / 8, 1); }

struct DotConversion : public ConvertOpToLLVMPattern<tt::DotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *static_cast<const TesseraLLVMTypeConverter *>(getTypeConverter());
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    RankedTensorType aT = op.getA().getType(), bT = op.getB().getType(), cT = op.getC().getType();
    if (aT.getRank() != 2)
      return op.emitOpError("batched dots are not lowered to the GPU yet");
    for (RankedTensorType t : {aT, bT, cT})
      if (!supportsLinearLayout(t))
        return op.emitError("unsupported operand layout for a dot");
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op.emitError("tt.dot needs shared memory; run ttg-allocate-shared-memory first");
    int64_t M = aT.getDimSize(0), K = aT.getDimSize(1), N = bT.getDimSize(1);
    Type aElt = tc.convertElementType(aT.getElementType());
    Type bElt = tc.convertElementType(bT.getElementType());
    Type accElt = tc.convertElementType(cT.getElementType());
    if (aT.getElementType().getIntOrFloatBitWidth() == 8 && isa<FloatType>(aT.getElementType()))
      return op.emitOpError("fp8 dots are not lowered to the GPU yet");
    bool isInt = isa<IntegerType>(aT.getElementType());
    auto smemPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), ti.getSharedAddressSpace());
    Value base = getSharedMemoryAddress(rewriter, loc, op, ti, offsetAttr.getInt());
    Value aBase = base;
    Value bBase = LLVM::GEPOp::create(rewriter, loc, smemPtr, rewriter.getI8Type(), base,
                                      ValueRange{i32Val(rewriter, loc, M * K * bytesOf(aElt))});
    auto store = [&](Value tensor, RankedTensorType t, Value buf, Type elt, int64_t cols) {
      auto idx = emitIndices(rewriter, loc, ti, t);
      for (auto [v, c] : llvm::zip(unpackStruct(rewriter, loc, tensor), idx)) {
        Value flat = LLVM::AddOp::create(
            rewriter, loc, LLVM::MulOp::create(rewriter, loc, c[0], i32Val(rewriter, loc, cols)), c[1]);
        LLVM::StoreOp::create(rewriter, loc, v,
                              LLVM::GEPOp::create(rewriter, loc, smemPtr, elt, buf, ValueRange{flat}));
      }
    };
    store(adaptor.getA(), aT, aBase, aElt, K);
    store(adaptor.getB(), bT, bBase, bElt, N);
    ti.barrier(rewriter, loc);

    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getC());
    auto accIdx = emitIndices(rewriter, loc, ti, cT);
    // Registers with the same runtime row (column) share loads: group by the
    // constant register part of the coordinate.
    auto regCoords = registerCoordinates(toLinearLayout(cT));
    SmallVector<int32_t> rowKeys, colKeys;
    SmallVector<int32_t> rowOf(acc.size()), colOf(acc.size());
    SmallVector<Value> rowVal, colVal;
    for (size_t r = 0; r < acc.size(); ++r) {
      auto ri = llvm::find(rowKeys, regCoords[r][0]);
      if (ri == rowKeys.end()) {
        rowOf[r] = rowKeys.size();
        rowKeys.push_back(regCoords[r][0]);
        rowVal.push_back(accIdx[r][0]);
      } else {
        rowOf[r] = ri - rowKeys.begin();
      }
      auto ci = llvm::find(colKeys, regCoords[r][1]);
      if (ci == colKeys.end()) {
        colOf[r] = colKeys.size();
        colKeys.push_back(regCoords[r][1]);
        colVal.push_back(accIdx[r][1]);
      } else {
        colOf[r] = ci - colKeys.begin();
      }
    }
    SmallVector<Value> rowBase, colPtr;
    for (Value m : rowVal)
      rowBase.push_back(LLVM::MulOp::create(rewriter, loc, m, i32Val(rewriter, loc, K)));
    auto upcast = [&](Value v) -> Value {
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
        aVals.push_back(upcast(LLVM::LoadOp::create(rewriter, loc, aElt, p)));
      }
      for (Value n : colVal) {
        Value flat = LLVM::AddOp::create(rewriter, loc, i32Val(rewriter, loc, k * N), n);
        Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, bElt, bBase, ValueRange{flat});
        bVals.push_back(upcast(LLVM::LoadOp::create(rewriter, loc, bElt, p)));
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
  if (!dot || dot.getA().getType().getRank() != 2)
    return 0;
  auto aT = dot.getA().getType(), bT = dot.getB().getType();
  return aT.getNumElements() * bytesOf(aT.getElementType()) + bT.getNumElements() * bytesOf(bT.getElementType());
}

void mlir::tessera::populateDotOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                RewritePatternSet &patterns) {
  patterns.add<DotConversion>(typeConverter);
}
