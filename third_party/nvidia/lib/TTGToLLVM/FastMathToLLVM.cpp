//===- FastMathToLLVM.cpp - fp32 exp and division as Triton users expect --===//
//
// Triton's semantics, which ported kernels are tuned and tested against:
// fp32 `tl.exp` / `tl.exp2` run on the SFU's ex2.approx (exp as
// ex2.approx.f32(x * log2 e); exp2 as ex2.approx.ftz.f32, which flushes
// subnormal results to zero and so needs no range fix-up around the SFU
// instruction: two multiplies and a compare fewer per element, as Triton
// 3.6's own exp2 compiles on sm_90), and fp32 `/` is div.full.f32 (2 ulp); the
// correctly rounded forms are `tl.math.div_rn` and libdevice's functions.
// Other widths keep the generic lowering (libdevice, IEEE division).
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/TTGToLLVM/TargetInfo.h"

#include "tessera/Conversion/TTGToLLVM/PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

Value ptxF32(OpBuilder &b, Location loc, ValueRange operands, StringRef asmStr, StringRef constraints) {
  return LLVM::InlineAsmOp::create(b, loc, TypeRange{b.getF32Type()}, operands, asmStr, constraints,
                                   /*has_side_effects=*/false, /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None,
                                   LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                                   ArrayAttr())
      .getResult(0);
}

/// math.exp / math.exp2 on an f32 scalar (tensors are scalarized first).
template <typename OpTy>
struct ApproxExp : public TesseraOpToLLVMPattern<OpTy> {
  ApproxExp(TesseraLLVMTypeConverter &tc, bool natural)
      : TesseraOpToLLVMPattern<OpTy>(tc, /*benefit=*/3), natural(natural) {}
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    if (natural)
      x = LLVM::FMulOp::create(rewriter, loc, x,
                               LLVM::ConstantOp::create(rewriter, loc, rewriter.getF32Type(),
                                                        rewriter.getF32FloatAttr(1.4426950408889634f)));
    rewriter.replaceOp(op, ptxF32(rewriter, loc, {x},
                                  natural ? "ex2.approx.f32 $0, $1;" : "ex2.approx.ftz.f32 $0, $1;",
                                  "=f,f"));
    return success();
  }
  bool natural;
};

struct FullDiv : public TesseraOpToLLVMPattern<arith::DivFOp> {
  FullDiv(TesseraLLVMTypeConverter &tc) : TesseraOpToLLVMPattern(tc, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOp(op, ptxF32(rewriter, op.getLoc(), {adaptor.getLhs(), adaptor.getRhs()},
                                  "div.full.f32 $0, $1, $2;", "=f,f,f"));
    return success();
  }
};

} // namespace

void ::tessera::nvidia::populateFastMathPatterns(TesseraLLVMTypeConverter &typeConverter,
                                              RewritePatternSet &patterns) {
  patterns.add<ApproxExp<math::ExpOp>>(typeConverter, /*natural=*/true);
  patterns.add<ApproxExp<math::Exp2Op>>(typeConverter, /*natural=*/false);
  patterns.add<FullDiv>(typeConverter);
}
