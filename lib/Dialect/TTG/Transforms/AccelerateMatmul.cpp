//===- AccelerateMatmul.cpp - dots on tensor cores ----------------------------===//
//
// Target-independent: which dots go to tensor cores, and in which layouts, is
// the vendor's answer (TargetInfoBase::getTensorCoreLayouts); this pass puts
// the dots there and keeps K-loop accumulators in that layout.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TTG/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/Target/Backend.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_ACCELERATEMATMUL
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

struct AccelerateMatmulPass
    : public mlir::tessera::impl::AccelerateMatmulBase<AccelerateMatmulPass> {
  // A vendor's tensor-core dot may be an op of its own dialect.
  void getDependentDialects(DialectRegistry &registry) const override {
    AccelerateMatmulBase::getDependentDialects(registry);
    ::tessera::registerAllBackendDialects(registry);
  }

  void runOnOperation() override {
    // 0. Fold `acc + dot(a, b, 0)` into `dot(a, b, acc)`.
    // 1. Rewrite each dot the target's tensor cores can run into the
    //    accumulator / dot_op layouts its vendor names
    //    (TargetInfoBase::getTensorCoreLayouts), with conversions around it.
    // 2. Carry loop values that are only used converted to such an
    //    accumulator layout, and yielded from it, in that layout.
    // A vendor whose tensor cores read operands from shared memory builds
    // its own dot (TargetInfoBase::buildTensorCoreDot: NVIDIA's wgmma on
    // sm_90); the others get dot_op layouts in registers.
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // 0. `acc + dot(a, b, 0)` is `dot(a, b, acc)` when acc is available at
    //    the dot.
    DominanceInfo dom(module);
    module.walk([&](arith::AddFOp add) {
      for (unsigned i = 0; i < 2; ++i) {
        auto dot = add->getOperand(i).getDefiningOp<tt::DotOp>();
        if (!dot || !dot->hasOneUse() || dot.getType() != add.getType())
          continue;
        DenseElementsAttr zeros;
        if (!matchPattern(dot.getC(), m_Constant(&zeros)) || !zeros.isSplat() ||
            !zeros.getSplatValue<APFloat>().isZero())
          continue;
        Value acc = add->getOperand(1 - i);
        if (!dom.properlyDominates(acc, dot))
          continue;
        dot.getCMutable().assign(acc);
        add.getResult().replaceAllUsesWith(dot.getResult());
        add->erase();
        return;
      }
    });
    // 1. Each dot the target's tensor cores take, in the layouts the vendor
    //    names.
    std::unique_ptr<TargetInfoBase> targetInfo;
    if (auto target = module->getAttrOfType<StringAttr>("ttg.target"))
      targetInfo = createTargetInfo(target.getValue());
    auto warpsAttr = module->getAttrOfType<IntegerAttr>("ttg.num-warps");
    if (!targetInfo || !warpsAttr)
      return; // nothing to choose from: every dot stays on FMA units
    SmallVector<tt::DotOp> dots;
    module.walk([&](tt::DotOp d) { dots.push_back(d); });
    llvm::DenseSet<Attribute> accumulatorLayouts;
    for (tt::DotOp dot : dots) {
      // The vendor's own form (operands in shared memory) first.
      {
        OpBuilder b(dot);
        if (Value res = targetInfo->buildTensorCoreDot(b, dot, warpsAttr.getInt())) {
          auto resType = cast<RankedTensorType>(res.getType());
          accumulatorLayouts.insert(resType.getEncoding());
          b.setInsertionPointAfter(dot);
          auto back = ttg::ConvertLayoutOp::create(b, dot.getLoc(), dot.getType(), res);
          dot.getResult().replaceAllUsesWith(back.getResult());
          dot->erase();
          continue;
        }
      }
      std::optional<TargetInfoBase::TensorCoreLayouts> layouts =
          targetInfo->getTensorCoreLayouts(dot, warpsAttr.getInt());
      if (!layouts)
        layouts = upcastFp8Operands(dot, *targetInfo, warpsAttr.getInt());
      if (!layouts || dot.getC().getType().getEncoding() == layouts->accumulator)
        continue;
      Attribute acc = layouts->accumulator;
      auto parent = dyn_cast<ttg::DistributedEncodingTrait>(acc);
      if (!parent) {
        dot.emitOpError("internal error: the target's tensor-core accumulator layout ")
            << acc << " is not a distributed layout";
        return signalPassFailure();
      }
      accumulatorLayouts.insert(acc);
      OpBuilder b(dot);
      Location loc = dot.getLoc();
      auto convert = [&](Value v, Attribute enc) {
        auto t = cast<RankedTensorType>(v.getType());
        return ttg::ConvertLayoutOp::create(
                   b, loc, RankedTensorType::get(t.getShape(), t.getElementType(), enc), v)
            .getResult();
      };
      Value a = convert(dot.getA(), ttg::DotOperandEncodingAttr::get(ctx, 0, parent, layouts->kWidth));
      Value bb = convert(dot.getB(), ttg::DotOperandEncodingAttr::get(ctx, 1, parent, layouts->kWidth));
      Value c = convert(dot.getC(), acc);
      dot.getAMutable().assign(a);
      dot.getBMutable().assign(bb);
      dot.getCMutable().assign(c);
      RankedTensorType oldType = dot.getType();
      dot.getResult().setType(cast<RankedTensorType>(c.getType()));
      b.setInsertionPointAfter(dot);
      auto back = ttg::ConvertLayoutOp::create(b, loc, oldType, dot.getResult());
      dot.getResult().replaceAllUsesExcept(back.getResult(), back);
    }
    // 2. Loop accumulators stay in those layouts.
    module.walk([&](scf::ForOp loop) { carryInLayout(loop, accumulatorLayouts); });
  }

  /// A dot of fp8 operands (e5m2 / e4m3, either mix) that the tensor cores
  /// cannot take as such runs on them as an f16 dot: every fp8 value is exact
  /// in f16, and the products accumulate in f32 either way. Left on the FMA
  /// units, such a dot unrolls into thousands of scalar FMAs per thread. The
  /// operands get widening tt.fp_to_fp ops when the target accepts the f16
  /// form and converts fp8 (sm_89+ on NVIDIA); otherwise the dot is left
  /// unchanged.
  static std::optional<TargetInfoBase::TensorCoreLayouts>
  upcastFp8Operands(tt::DotOp dot, const TargetInfoBase &targetInfo, int numWarps) {
    auto isFp8 = [](Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8; };
    auto aType = cast<RankedTensorType>(dot.getA().getType());
    auto bType = cast<RankedTensorType>(dot.getB().getType());
    if (!isFp8(aType.getElementType()) || !isFp8(bType.getElementType()) ||
        !dot.getC().getType().getElementType().isF32())
      return std::nullopt;
    // The widening needs the target's fp8 conversions; without them the dot's
    // own lowering says why fp8 is not supported.
    if (!targetInfo.getFp8Requirement(aType.getElementType()).empty() ||
        !targetInfo.getFp8Requirement(bType.getElementType()).empty())
      return std::nullopt;
    OpBuilder b(dot);
    Type f16 = b.getF16Type();
    Value oldA = dot.getA(), oldB = dot.getB();
    auto widen = [&](Value v, RankedTensorType t) {
      return tt::FpToFpOp::create(b, dot.getLoc(),
                                  RankedTensorType::get(t.getShape(), f16, t.getEncoding()), v,
                                  tt::RoundingModeAttr())
          .getResult();
    };
    Value a = widen(oldA, aType), bb = widen(oldB, bType);
    dot.getAMutable().assign(a);
    dot.getBMutable().assign(bb);
    std::optional<TargetInfoBase::TensorCoreLayouts> layouts =
        targetInfo.getTensorCoreLayouts(dot, numWarps);
    if (!layouts) {
      dot.getAMutable().assign(oldA);
      dot.getBMutable().assign(oldB);
      a.getDefiningOp()->erase();
      bb.getDefiningOp()->erase();
    }
    return layouts;
  }

  /// Iter args whose only uses convert them to one of `layouts` and whose
  /// yielded value is converted from it switch to that layout.
  static void carryInLayout(scf::ForOp loop, const llvm::DenseSet<Attribute> &layouts) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      BlockArgument arg = loop.getRegionIterArgs()[i];
      auto argType = dyn_cast<RankedTensorType>(arg.getType());
      if (!argType || arg.use_empty())
        continue;
      Attribute enc;
      bool ok = true;
      for (Operation *user : arg.getUsers()) {
        auto cvt = dyn_cast<ttg::ConvertLayoutOp>(user);
        Attribute e = cvt ? cvt.getType().getEncoding() : Attribute();
        if (!cvt || !layouts.contains(e) || (enc && e != enc)) {
          ok = false;
          break;
        }
        enc = e;
      }
      auto yielded = yield.getOperand(i).getDefiningOp<ttg::ConvertLayoutOp>();
      if (!ok || !enc || !yielded || yielded.getSrc().getType().getEncoding() != enc)
        continue;
      auto newType = RankedTensorType::get(argType.getShape(), argType.getElementType(), enc);
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      // Before the loop: the init in the accumulator layout.
      Value init = ttg::ConvertLayoutOp::create(b, loc, newType, loop.getInitArgs()[i]);
      loop.getInitArgsMutable()[i].assign(init);
      // In the loop: the conversions of the arg go; the yield skips its own.
      arg.setType(newType);
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        user->getResult(0).replaceAllUsesWith(arg);
        user->erase();
      }
      yield.setOperand(i, yielded.getSrc());
      if (yielded->use_empty())
        yielded->erase();
      // After the loop: users see the old layout.
      Value res = loop.getResult(i);
      res.setType(newType);
      b.setInsertionPointAfter(loop);
      auto back = ttg::ConvertLayoutOp::create(b, loc, argType, res);
      res.replaceAllUsesExcept(back.getResult(), back);
    }
  }
};

} // namespace
