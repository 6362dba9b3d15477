//===- RemoveLayoutConversions.cpp - carry load layouts, drop conversions --===//
//
// 1. Forward propagation: every load's result layout is carried to the ops
//    computed from it (first load in program order wins where paths meet),
//    then every tensor-core result's layout through elementwise ops;
//    then every op gets the operand layouts it needs, with a convert_layout
//    where a value still has another layout.
// 2. Backward rematerialization (Utility.h): a convert whose source is cheap
//    is replaced by recomputing the source in the destination layout; a
//    value a loop carries and only converts to one layout (a pointer tile
//    bumped each iteration) is carried in that layout.
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
#include "llvm/ADT/SetVector.h"

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
    module.walk([&](tt::DotOpInterface dot) {
      Operation *op = dot.getOperation();
      auto t = op->getNumResults() == 1 ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                                        : RankedTensorType();
      if (t && isAccumulatorLayout(t.getEncoding()))
        setValue(op->getResult(0), t.getEncoding());
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
      // Accumulator layouts go through elementwise ops, conversions,
      // reductions (to slices of them: the row statistics of a softmax over
      // a dot's result), expand_dims and broadcasts — not through trans.
      if (isa<tt::TransOp>(op) && isAccumulatorLayout(enc))
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

/// A value an scf.for carries and converts, every iteration, to one layout
/// (a pointer tile bumped by a stride, loaded in a coalesced layout): if the
/// loop only converts it to that layout and advances it by elementwise ops
/// whose other operands are loop-invariant, the loop carries it in that
/// layout instead: the initial value (and the invariant operands) are
/// converted once before the loop, and the loop's result converted back
/// after it for its users.
bool carryConvertedIterArgs(scf::ForOp loop) {
  bool changed = false;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (unsigned j = 0; j < loop.getNumRegionIterArgs(); ++j) {
    BlockArgument arg = loop.getRegionIterArgs()[j];
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !isa_and_nonnull<ttg::BlockedEncodingAttr>(type.getEncoding()))
      continue;
    // The chain from the argument to the yielded value, and the conversions.
    Attribute target;
    SmallVector<ttg::ConvertLayoutOp> converts;
    SetVector<Operation *> chain;
    SmallVector<Value> work{arg};
    bool ok = true;
    while (!work.empty() && ok) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (auto cvt = dyn_cast<ttg::ConvertLayoutOp>(user)) {
          Attribute enc = cvt.getType().getEncoding();
          if (!isa<ttg::BlockedEncodingAttr>(enc) || (target && target != enc)) {
            ok = false;
            break;
          }
          target = enc;
          converts.push_back(cvt);
          continue;
        }
        if (user == yield.getOperation()) {
          if (use.getOperandNumber() != j)
            ok = false;
          continue;
        }
        if (user->getBlock() != body || !isElementwiseOp(user) || user->getNumResults() != 1 ||
            !isa<RankedTensorType>(user->getResult(0).getType())) {
          ok = false;
          break;
        }
        for (Value operand : user->getOperands())
          if (operand != v && !chain.contains(operand.getDefiningOp()) && operand != arg &&
              loop->isAncestor(operand.getParentBlock()->getParentOp()) &&
              operand.getParentBlock() == body) {
            // another in-loop value: only chain values may join
            Operation *def = operand.getDefiningOp();
            if (!def || !chain.contains(def))
              ok = false;
          }
        if (chain.insert(user))
          work.push_back(user->getResult(0));
      }
    }
    if (!ok || !target || converts.empty() || yield.getOperand(j) == arg)
      continue;
    if (!yield.getOperand(j).getDefiningOp() || !chain.contains(yield.getOperand(j).getDefiningOp()))
      continue;
    // Rewrite: the argument, the chain and the yielded value in `target`.
    OpBuilder before(loop);
    Value init = loop.getInitArgs()[j];
    auto newType = withEncoding(type, target);
    loop.getInitArgsMutable()[j].set(ttg::ConvertLayoutOp::create(before, loop.getLoc(), newType, init));
    arg.setType(newType);
    for (Operation *op : chain) {
      for (OpOperand &operand : op->getOpOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!t || withEncoding(t, target) == t)
          continue;
        // a loop-invariant operand: converted once, before the loop
        operand.set(ttg::ConvertLayoutOp::create(before, loop.getLoc(), withEncoding(t, target),
                                                 operand.get()));
      }
      auto rt = cast<RankedTensorType>(op->getResult(0).getType());
      op->getResult(0).setType(withEncoding(rt, target));
    }
    Value result = loop.getResult(j);
    result.setType(newType);
    if (!result.use_empty()) {
      OpBuilder after(loop->getContext());
      after.setInsertionPointAfter(loop);
      auto back = ttg::ConvertLayoutOp::create(after, loop.getLoc(), type, result);
      result.replaceAllUsesExcept(back, back);
    }
    for (ttg::ConvertLayoutOp cvt : converts) {
      cvt.replaceAllUsesWith(cvt.getSrc());
      cvt.erase();
    }
    changed = true;
  }
  return changed;
}

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
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  bool carried = false;
  for (scf::ForOp loop : loops)
    carried |= carryConvertedIterArgs(loop);
  if (carried)
    rematerializeConversions(module, /*rematerializeLoads=*/false);
  bool hasAnchors = false;
  module.walk([&](Operation *op) {
    if (isa<tt::LoadOp, tt::DotOpInterface>(op))
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
