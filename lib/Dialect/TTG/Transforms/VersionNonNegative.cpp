//===- VersionNonNegative.cpp - version a tail on the sign of index bases -===//
//
// See the pass description (Passes.td): wrapped indices `(s + range) % n`
// are runs only for s >= 0. Where AxisInfo cannot prove that, the tail of
// the function after s is cloned into an scf.if on s >= 0 whose then branch
// sees `max(s, 0)` (provably >= 0, equal to s there) and whose else branch
// is the original code.
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_VERSIONNONNEGATIVE
#define GEN_PASS_DEF_DROPSLOWVERSIONS
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

constexpr llvm::StringLiteral kVersionAttr = "tt.nonnegative_version";

/// Collects into `roots` the integer scalars whose being >= 0 makes the
/// integer tensor `v` >= 0 (elementwise, i32 overflow aside as in AxisInfo).
/// False where the sign of `v` depends on something else.
bool collectRoots(Value v, llvm::SetVector<Value> &roots, int depth = 16) {
  if (depth == 0)
    return false;
  if (knownNonNegative(v))
    return true;
  if (!isa<ShapedType>(v.getType())) {
    if (!v.getType().isSignlessInteger())
      return false;
    roots.insert(v);
    return true;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return false;
  auto rec = [&](Value w) { return collectRoots(w, roots, depth - 1); };
  if (isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::ReshapeOp, tt::TransOp,
          ttg::ConvertLayoutOp, arith::ExtSIOp, arith::RemSIOp, arith::ShLIOp>(op))
    return rec(op->getOperand(0));
  if (isa<arith::AddIOp, arith::MulIOp>(op))
    return rec(op->getOperand(0)) && rec(op->getOperand(1));
  return false;
}

/// Whether `v` reaches the pointer operand of a global memory access through
/// integer arithmetic, shape ops and pointer offsets.
bool reachesPointer(Value v) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value w = work.pop_back_val();
    if (!seen.insert(w).second)
      continue;
    for (OpOperand &use : w.getUses()) {
      Operation *user = use.getOwner();
      if (isa<tt::LoadOp, tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(user)) {
        if (use.getOperandNumber() == 0)
          return true;
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        // A pointer carried by a loop (advanced each iteration).
        if (loop.getTiedLoopResult(&use)) // an init value, not a bound
          work.push_back(loop.getTiedLoopRegionIterArg(&use));
        continue;
      }
      if (user->getNumRegions() != 0 || user->getNumResults() != 1)
        continue;
      if (isa<arith::ArithDialect>(user->getDialect()) ||
          isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::ReshapeOp, tt::TransOp,
              tt::AddPtrOp, ttg::ConvertLayoutOp>(user))
        work.push_back(user->getResult(0));
    }
  }
  return false;
}

/// Per global access of `fn` (in walk order), the most consecutive elements
/// one vector access may cover along any dimension.
SmallVector<int64_t> accessWidths(tt::FuncOp fn, const ModuleAxisInfo &axis) {
  SmallVector<int64_t> widths;
  fn.walk([&](Operation *op) {
    if (!isa<tt::LoadOp, tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(op))
      return;
    auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!type)
      return;
    Type pointee = cast<tt::PointerType>(type.getElementType()).getPointeeType();
    int64_t bytes = std::max<unsigned>(pointee.getIntOrFloatBitWidth() / 8, 1);
    int64_t best = 1;
    for (unsigned d = 0; d < type.getRank(); ++d)
      best = std::max(best, axis.getVectorElements(op->getOperand(0), d, bytes, 16));
    widths.push_back(best);
  });
  return widths;
}

/// Whether assuming `roots` >= 0 widens some global access of `fn`: AxisInfo
/// over a copy of the module in which each root is replaced by max(root, 0).
bool assumptionWidens(ModuleOp module, tt::FuncOp fn, ArrayRef<Value> roots,
                      ArrayRef<int64_t> before) {
  IRMapping map;
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone(map)));
  auto copyFn = cast<tt::FuncOp>(map.lookup(fn.getOperation()));
  for (Value root : roots) {
    Value r = map.lookup(root);
    OpBuilder b(r.getContext());
    if (auto arg = dyn_cast<BlockArgument>(r))
      b.setInsertionPointToStart(arg.getOwner());
    else
      b.setInsertionPointAfter(r.getDefiningOp());
    Value zero = arith::ConstantOp::create(b, r.getLoc(), b.getIntegerAttr(r.getType(), 0));
    auto max = arith::MaxSIOp::create(b, r.getLoc(), r, zero);
    r.replaceAllUsesExcept(max.getResult(), max.getOperation());
  }
  ModuleAxisInfo axis(*copy);
  SmallVector<int64_t> after = accessWidths(copyFn, axis);
  for (auto [b, a] : llvm::zip_equal(before, after))
    if (a > b)
      return true;
  return false;
}

/// The op of `block` that is or contains `op`.
Operation *ancestorIn(Block *block, Operation *op) { return block->findAncestorOpInBlock(*op); }

struct VersionNonNegative : public mlir::tessera::impl::VersionNonNegativeBase<VersionNonNegative> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<tt::FuncOp> fns;
    module.walk([&](tt::FuncOp fn) { fns.push_back(fn); });
    // The facts are computed again for each function: versioning a caller
    // duplicates its calls, which changes what a noinline callee's arguments
    // are known to be.
    for (tt::FuncOp fn : fns) {
      ModuleAxisInfo axis(module);
      version(fn, axis);
    }
  }

  void version(tt::FuncOp fn, const ModuleAxisInfo &axis) {
    if (fn.isExternal() || !fn.getBody().hasOneBlock())
      return;
    Block &entry = fn.getBody().front();
    auto ret = dyn_cast<tt::ReturnOp>(entry.getTerminator());
    if (!ret)
      return;

    // Position of each op of the entry block; arguments come before all.
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t n = 0;
    for (Operation &op : entry)
      position[&op] = ++n;
    auto rootPosition = [&](Value root) -> int64_t {
      if (auto arg = dyn_cast<BlockArgument>(root))
        return arg.getOwner() == &entry ? 0 : -1;
      Operation *def = root.getDefiningOp();
      return def->getBlock() == &entry ? position.lookup(def) : -1;
    };

    // Candidates: remainders of runs, feeding addresses, of a dividend whose
    // sign rests on entry-block scalars defined before the remainder.
    struct Candidate {
      int64_t at;
      llvm::SetVector<Value> roots;
    };
    SmallVector<Candidate> candidates;
    fn.walk([&](arith::RemSIOp rem) {
      for (Operation *p = rem->getParentOp(); p != fn; p = p->getParentOp())
        if (p->hasAttr(kVersionAttr))
          return;
      Value dividend = rem.getLhs();
      if (!isa<ShapedType>(dividend.getType()) || knownNonNegative(dividend))
        return;
      AxisInfo info = axis.get(dividend);
      if (!info.isInitialized() ||
          llvm::none_of(info.getContiguity(), [](int64_t c) { return c > 1; }))
        return;
      if (!reachesPointer(rem.getResult()))
        return;
      Candidate c;
      c.at = position.lookup(ancestorIn(&entry, rem));
      if (!collectRoots(dividend, c.roots) || c.roots.empty())
        return;
      for (Value root : c.roots) {
        int64_t p = rootPosition(root);
        if (p < 0 || p >= c.at)
          return;
      }
      candidates.push_back(std::move(c));
    });
    if (candidates.empty())
      return;

    // Keep the roots whose assumption widens an access (each alone, or all
    // together where no one alone does), and the candidates resting on them
    // only: code is not doubled for nothing (a wrapped row index scaled by a
    // row stride gains nothing from being a run).
    {
      llvm::SetVector<Value> all;
      for (const Candidate &c : candidates)
        all.insert(c.roots.begin(), c.roots.end());
      SmallVector<int64_t> before = accessWidths(fn, axis);
      llvm::SetVector<Value> useful;
      for (Value r : all)
        if (assumptionWidens(getOperation(), fn, {r}, before))
          useful.insert(r);
      if (useful.empty() && all.size() > 1 &&
          assumptionWidens(getOperation(), fn, all.getArrayRef(), before))
        useful = all;
      llvm::erase_if(candidates, [&](const Candidate &c) {
        return !llvm::all_of(c.roots, [&](Value r) { return useful.contains(r); });
      });
    }
    if (candidates.empty())
      return;

    // One split point after the last root; a candidate before it (its
    // remainder computed between two roots) is dropped, which may move the
    // split point earlier.
    int64_t split = 0;
    llvm::SetVector<Value> roots;
    for (bool changed = true; changed;) {
      changed = false;
      split = 0;
      for (const Candidate &c : candidates)
        for (Value r : c.roots)
          split = std::max(split, rootPosition(r));
      auto *it = llvm::find_if(candidates, [&](const Candidate &c) { return c.at <= split; });
      if (it != candidates.end()) {
        candidates.erase(it);
        changed = true;
      }
    }
    if (candidates.empty())
      return;
    for (const Candidate &c : candidates)
      roots.insert(c.roots.begin(), c.roots.end());

    // The tail: ops after the split point, the return excluded.
    SmallVector<Operation *> tail;
    for (Operation &op : entry)
      if (position.lookup(&op) > split && &op != ret.getOperation())
        tail.push_back(&op);
    if (tail.empty())
      return;

    OpBuilder b(tail.front());
    Location loc = ret.getLoc();
    Value cond;
    for (Value r : roots) {
      Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(r.getType(), 0));
      Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, r, zero);
      cond = cond ? arith::AndIOp::create(b, loc, cond, ge).getResult() : ge;
    }
    auto ifOp = scf::IfOp::create(b, loc, ret.getOperandTypes(), cond, /*withElseRegion=*/true);
    ifOp->setAttr(kVersionAttr, b.getUnitAttr());
    // Both blocks get their own yields below (the builder adds them only
    // for an if without results).
    for (Block *blk : {ifOp.thenBlock(), ifOp.elseBlock()})
      if (!blk->empty())
        blk->getTerminator()->erase();

    // Then: a copy seeing max(root, 0).
    {
      OpBuilder tb = OpBuilder::atBlockEnd(ifOp.thenBlock());
      IRMapping map;
      for (Value r : roots) {
        Value zero = arith::ConstantOp::create(tb, loc, tb.getIntegerAttr(r.getType(), 0));
        map.map(r, arith::MaxSIOp::create(tb, loc, r, zero).getResult());
      }
      for (Operation *op : tail)
        tb.clone(*op, map);
      SmallVector<Value> results;
      for (Value v : ret.getOperands())
        results.push_back(map.lookupOrDefault(v));
      scf::YieldOp::create(tb, loc, results);
    }
    // Else: the original ops.
    {
      Block *elseBlock = ifOp.elseBlock();
      for (Operation *op : tail)
        op->moveBefore(elseBlock, elseBlock->end());
      OpBuilder eb = OpBuilder::atBlockEnd(elseBlock);
      scf::YieldOp::create(eb, loc, ret.getOperands());
    }
    ret->setOperands(ifOp.getResults());
  }
};

struct DropSlowVersions : public mlir::tessera::impl::DropSlowVersionsBase<DropSlowVersions> {
  void runOnOperation() override {
    SmallVector<scf::IfOp> ifs;
    getOperation().walk([&](scf::IfOp op) {
      if (op->hasAttr(kVersionAttr))
        ifs.push_back(op);
    });
    for (scf::IfOp op : ifs) {
      Block *then = op.thenBlock();
      auto yield = cast<scf::YieldOp>(then->getTerminator());
      op.replaceAllUsesWith(yield.getOperands());
      yield->erase();
      op->getBlock()->getOperations().splice(op->getIterator(), then->getOperations());
      op->erase();
    }
  }
};

} // namespace
