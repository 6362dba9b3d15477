//===- RemoveLayoutConversions.cpp - carry load layouts, drop conversions --===//
//
// 1. Forward propagation: every load's result layout is carried to the ops
//    computed from it (first load in program order wins where paths meet),
//    then every tensor-core result's layout through elementwise ops;
//    then every op gets the operand layouts it needs, with a convert_layout
//    where a value still has another layout.
// 2. Backward rematerialization (Utility.h): a convert whose source is cheap
//    is replaced by recomputing the source in the destination layout.
// Step 1 is tried on a copy of the module and kept only when the bytes the
// remaining conversions move through shared memory (weighted by loop depth)
// do not grow.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_REMOVELAYOUTCONVERSIONS
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// The layout of a tensor-core accumulator (a vendor's mma layout): any
/// distributed layout that is not blocked, a slice or a dot operand.
bool isAccumulatorLayout(Attribute enc) {
  return isa_and_nonnull<ttg::DistributedEncodingTrait>(enc) &&
         !isa<ttg::BlockedEncodingAttr, ttg::SliceEncodingAttr, ttg::DotOperandEncodingAttr>(enc);
}

bool isPropagatable(Attribute enc) {
  return isa_and_nonnull<ttg::BlockedEncodingAttr, ttg::SliceEncodingAttr>(enc) ||
         isAccumulatorLayout(enc);
}

/// Ops that take all their tensor operands in one layout and whose results
/// follow from it.
bool isUniform(Operation *op) {
  return isElementwiseOp(op) ||
         isa<tt::ReduceOp, tt::ScanOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::TransOp,
             ttg::ConvertLayoutOp>(op);
}

class ForwardPropagation {
public:
  explicit ForwardPropagation(MLIRContext *ctx) : ctx(ctx) {}

  void run(ModuleOp module) {
    // Anchors: loads, in program order, then tensor-core results (so that an
    // epilogue is computed in the accumulator's layout and converted once,
    // after it has narrowed).
    module.walk([&](tt::LoadOp load) {
      auto t = dyn_cast<RankedTensorType>(load.getType());
      if (t && isPropagatable(t.getEncoding()) && !isAccumulatorLayout(t.getEncoding()))
        setValue(load.getResult(), t.getEncoding());
    });
    module.walk([&](tt::DotOp dot) {
      if (isAccumulatorLayout(dot.getType().getEncoding()))
        setValue(dot.getResult(), dot.getType().getEncoding());
    });
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Attribute enc = valueEnc.lookup(v);
      for (OpOperand &use : v.getUses())
        visitUse(use, enc);
    }
    rewrite(module);
  }

private:
  void setValue(Value v, Attribute enc) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !isPropagatable(enc))
      return;
    if (valueEnc.try_emplace(v, enc).second)
      worklist.push_back(v);
  }

  void visitUse(OpOperand &use, Attribute enc) {
    Operation *op = use.getOwner();
    unsigned i = use.getOperandNumber();
    if (isUniform(op)) {
      // Accumulator layouts go through elementwise ops and conversions only.
      if (isAccumulatorLayout(enc) && !isElementwiseOp(op) && !isa<ttg::ConvertLayoutOp>(op))
        return;
      if (auto cvt = dyn_cast<ttg::ConvertLayoutOp>(op))
        if (!isPropagatable(cvt.getType().getEncoding()))
          return; // a dot operand, mma or shared layout: a requirement
      if (auto e = dyn_cast<tt::ExpandDimsOp>(op)) {
        auto slice = dyn_cast<ttg::SliceEncodingAttr>(enc);
        if (!slice || slice.getDim() != e.getAxis())
          return;
      }
      if (isa<tt::TransOp>(op) && !isa<ttg::BlockedEncodingAttr>(enc))
        return;
      if (!opEnc.try_emplace(op, enc).second)
        return;
      for (OpResult r : op->getResults()) {
        if (auto red = dyn_cast<tt::ReduceOp>(op)) {
          setValue(r, ttg::SliceEncodingAttr::get(ctx, red.getAxis(),
                                                  cast<ttg::DistributedEncodingTrait>(enc)));
        } else if (auto e = dyn_cast<tt::ExpandDimsOp>(op)) {
          setValue(r, cast<ttg::SliceEncodingAttr>(enc).getParent());
        } else if (auto trans = dyn_cast<tt::TransOp>(op)) {
          setValue(r, transposeBlocked(cast<ttg::BlockedEncodingAttr>(enc), trans.getOrder()));
        } else {
          setValue(r, enc);
        }
      }
      return;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      unsigned first = forOp.getNumControlOperands();
      if (i < first)
        return;
      setValue(forOp.getRegionIterArgs()[i - first], enc);
      setValue(forOp.getResult(i - first), enc);
      return;
    }
    if (isa<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
        setValue(forOp.getRegionIterArgs()[i], enc);
        setValue(forOp.getResult(i), enc);
      } else if (isa<scf::IfOp>(parent)) {
        setValue(parent->getResult(i), enc);
      }
    }
  }

  /// New types, then a convert wherever an operand's layout is not the one its
  /// op now needs.
  void rewrite(ModuleOp module) {
    DenseMap<Value, Type> orig;
    for (auto [v, enc] : valueEnc) {
      orig[v] = v.getType();
      v.setType(withEncoding(cast<RankedTensorType>(v.getType()), enc));
    }
    auto origType = [&](Value v) {
      auto it = orig.find(v);
      return it == orig.end() ? v.getType() : it->second;
    };
    module.walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!t)
          continue;
        Type want;
        unsigned i = operand.getOperandNumber();
        if (auto it = opEnc.find(op); it != opEnc.end()) {
          want = withEncoding(t, it->second);
        } else if (auto forOp = dyn_cast<scf::ForOp>(op);
                   forOp && i >= forOp.getNumControlOperands()) {
          want = forOp.getRegionIterArgs()[i - forOp.getNumControlOperands()].getType();
        } else if (isa<scf::YieldOp>(op) && isa<scf::ForOp, scf::IfOp>(op->getParentOp())) {
          want = op->getParentOp()->getResult(i).getType();
        } else {
          want = origType(operand.get());
        }
        if (want == t)
          continue;
        OpBuilder b(op);
        operand.set(ttg::ConvertLayoutOp::create(b, op->getLoc(), want, operand.get()));
      }
    });
  }

  MLIRContext *ctx;
  DenseMap<Value, Attribute> valueEnc;
  DenseMap<Operation *, Attribute> opEnc;
  SmallVector<Value> worklist;
};

} // namespace

int64_t mlir::tessera::conversionCost(ModuleOp module) {
  int64_t cost = 0;
  module.walk([&](ttg::ConvertLayoutOp cvt) {
    int64_t bytes = conversionBytes(cvt);
    for (Operation *p = cvt->getParentOp(); p && bytes; p = p->getParentOp())
      if (isa<scf::ForOp, scf::WhileOp>(p))
        bytes *= 16;
    cost += bytes;
  });
  return cost;
}

void mlir::tessera::removeLayoutConversions(ModuleOp module) {
  rematerializeConversions(module, /*rematerializeLoads=*/false);
  bool hasAnchors = false;
  module.walk([&](Operation *op) {
    if (isa<tt::LoadOp, tt::DotOp>(op))
      hasAnchors = true;
  });
  if (!hasAnchors)
    return;
  int64_t before = conversionCost(module);
  OwningOpRef<ModuleOp> trial = module.clone();
  ForwardPropagation(module.getContext()).run(*trial);
  rematerializeConversions(*trial, /*rematerializeLoads=*/false);
  if (conversionCost(*trial) > before)
    return;
  module.getBodyRegion().takeBody(trial->getBodyRegion());
}

namespace {

struct RemoveLayoutConversionsPass
    : public mlir::tessera::impl::RemoveLayoutConversionsBase<RemoveLayoutConversionsPass> {
  void runOnOperation() override { removeLayoutConversions(getOperation()); }
};

} // namespace
