//===- Membar.cpp - where shared-memory accesses need a barrier ---------------===//

#include "tessera/Analysis/Membar.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"

#include <limits>

using namespace mlir;
using namespace mlir::tessera;

namespace {

using Interval = MembarAnalysis::Interval;
constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

/// The shared-memory range of the buffer a memdesc value views: its
/// local_alloc's, through views; all of shared memory when unknown (a block
/// argument, a buffer from elsewhere).
Interval rangeOf(Value memdesc) {
  Operation *def = memdesc.getDefiningOp();
  // A constant slot of a buffer (memdesc_index of the allocation): that
  // slot's bytes only, slots being whole buffers one after another.
  if (auto index = dyn_cast_or_null<ttg::MemDescIndexOp>(def)) {
    APInt slot;
    auto alloc = index.getSrc().getDefiningOp<ttg::LocalAllocOp>();
    ttg::MemDescType t = index.getType();
    if (alloc && t.getElementType().isIntOrFloat() &&
        matchPattern(index.getIndex(), m_ConstantInt(&slot))) {
      auto off = alloc->getAttrOfType<IntegerAttr>("ttg.allocation.offset");
      auto size = alloc->getAttrOfType<IntegerAttr>("ttg.allocation.size");
      int64_t bytes = std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8);
      for (int64_t d : t.getShape())
        bytes *= d;
      int64_t start = slot.getSExtValue() * bytes;
      if (off && size && start >= 0 && start + bytes <= size.getInt())
        return {off.getInt() + start, off.getInt() + start + bytes};
    }
  }
  while (def && isa<ttg::MemDescIndexOp, ttg::MemDescSubsliceOp, ttg::MemDescTransOp,
                    ttg::MemDescReshapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  if (auto alloc = dyn_cast_or_null<ttg::LocalAllocOp>(def)) {
    auto off = alloc->getAttrOfType<IntegerAttr>("ttg.allocation.offset");
    auto size = alloc->getAttrOfType<IntegerAttr>("ttg.allocation.size");
    if (off && size)
      return {off.getInt(), off.getInt() + size.getInt()};
  }
  return {0, kAll};
}

void addUnique(SmallVector<Interval> &to, const SmallVector<Interval> &from) {
  for (const Interval &i : from)
    if (!llvm::is_contained(to, i))
      to.push_back(i);
}

bool conflicts(const MembarAnalysis::Accesses &pending, const MembarAnalysis::Accesses &op) {
  auto any = [](const SmallVector<Interval> &a, const SmallVector<Interval> &b) {
    for (const Interval &x : a)
      for (const Interval &y : b)
        if (x.intersects(y))
          return true;
    return false;
  };
  // write after read or write; read after write.
  return any(op.writes, pending.reads) || any(op.writes, pending.writes) ||
         any(op.reads, pending.writes);
}

} // namespace

MembarAnalysis::Accesses MembarAnalysis::accessesOf(Operation *op) {
  Accesses a;
  auto off = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
  auto size = op->getAttrOfType<IntegerAttr>("ttg.scratch_size");
  if (off && size && size.getInt() > 0) {
    Interval i{off.getInt(), off.getInt() + size.getInt()};
    a.reads.push_back(i);
    a.writes.push_back(i);
    return a;
  }
  if (auto alloc = dyn_cast<ttg::LocalAllocOp>(op)) {
    if (alloc.getSrc())
      a.writes.push_back(rangeOf(alloc.getResult()));
  } else if (auto load = dyn_cast<ttg::LocalLoadOp>(op)) {
    a.reads.push_back(rangeOf(load.getSrc()));
  } else if (auto store = dyn_cast<ttg::LocalStoreOp>(op)) {
    a.writes.push_back(rangeOf(store.getDst()));
  } else if (auto copy = dyn_cast<ttg::AsyncCopyGlobalToLocalOp>(op)) {
    a.writes.push_back(rangeOf(copy.getDst()));
  } else if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    // Other ops (a vendor's, e.g. a tensor-core dot reading its operands
    // from shared memory) by their effects on shared-memory buffers they
    // name. Effects on no buffer (fences) order nothing here.
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects) {
      Value v = e.getValue();
      if (!v || !isa<ttg::MemDescType>(v.getType()))
        continue;
      if (isa<MemoryEffects::Read>(e.getEffect()))
        a.reads.push_back(rangeOf(v));
      else if (isa<MemoryEffects::Write>(e.getEffect()))
        a.writes.push_back(rangeOf(v));
    }
  }
  return a;
}

bool MembarAnalysis::State::operator==(const State &o) const {
  auto same = [](const SmallVector<Interval> &a, const SmallVector<Interval> &b) {
    return a.size() == b.size() && llvm::all_of(a, [&](const Interval &i) {
             return llvm::is_contained(b, i);
           });
  };
  return same(pending.reads, o.pending.reads) && same(pending.writes, o.pending.writes);
}

void MembarAnalysis::State::join(const State &o) {
  addUnique(pending.reads, o.pending.reads);
  addUnique(pending.writes, o.pending.writes);
}

MembarAnalysis::State MembarAnalysis::visitOp(Operation *op, State in) {
  if (isa<ttg::BarrierOp>(op))
    return State{};
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    State out = visitRegion(ifOp.getThenRegion(), in);
    out.join(ifOp.getElseRegion().empty() ? in : visitRegion(ifOp.getElseRegion(), in));
    return out;
  }
  if (isa<scf::ForOp, scf::WhileOp>(op)) {
    // Iterate the body (for while: before, then after) until what is pending
    // at its entry stops growing; a later iteration sees the previous one's
    // accesses. Barriers found on the way stay (they only ever add). A for
    // loop exits from its entry state; a while loop right after its `before`
    // region.
    bool isWhile = isa<scf::WhileOp>(op);
    State entry = in;
    for (int iter = 0; iter < 64; ++iter) {
      State s = entry, afterBefore;
      for (auto [i, r] : llvm::enumerate(op->getRegions())) {
        s = visitRegion(r, s);
        if (i == 0)
          afterBefore = s;
      }
      State next = in;
      next.join(s);
      if (next == entry)
        return isWhile ? afterBefore : next;
      entry = next;
    }
    State all;
    all.pending.reads.push_back({0, kAll});
    all.pending.writes.push_back({0, kAll});
    return all;
  }
  Accesses acc = accessesOf(op);
  if (acc.empty())
    return in;
  if (conflicts(in.pending, acc)) {
    barriers.insert(op);
    in = State{};
  }
  addUnique(in.pending.reads, acc.reads);
  addUnique(in.pending.writes, acc.writes);
  return in;
}

MembarAnalysis::State MembarAnalysis::visitRegion(Region &region, State in) {
  if (region.empty())
    return in;
  if (region.hasOneBlock()) {
    for (Operation &op : region.front())
      in = visitOp(&op, in);
    return in;
  }
  // Several blocks: what is pending at a block's entry is the join of its
  // predecessors' exits; iterate to a fixed point. The region's result joins
  // the blocks that end it (no successors).
  llvm::DenseMap<Block *, State> entry, exit;
  entry[&region.front()] = in;
  bool changed = true;
  int iter = 0;
  for (; changed && iter < 256; ++iter) {
    changed = false;
    for (Block &b : region) {
      State s = entry.lookup(&b);
      for (Operation &op : b)
        s = visitOp(&op, s);
      if (!exit.count(&b) || !(exit[&b] == s)) {
        exit[&b] = s;
        changed = true;
      }
      for (Block *succ : b.getSuccessors()) {
        State e = entry.lookup(succ);
        State joined = e;
        joined.join(s);
        if (!entry.count(succ) || !(joined == e)) {
          entry[succ] = joined;
          changed = true;
        }
      }
    }
  }
  if (changed) {
    // No fixed point in time: a barrier before every access of the region,
    // and everything pending after it.
    region.walk([&](Operation *op) {
      if (!accessesOf(op).empty())
        barriers.insert(op);
    });
    State all;
    all.pending.reads.push_back({0, kAll});
    all.pending.writes.push_back({0, kAll});
    return all;
  }
  State out;
  for (Block &b : region)
    if (b.getNumSuccessors() == 0)
      out.join(exit.lookup(&b));
  return out;
}

MembarAnalysis::MembarAnalysis(Operation *function) {
  // 1. Start each function with nothing pending.
  // 2. Walk its body in program order, keeping the byte ranges read and
  //    written since the last barrier; an op whose accesses conflict with them
  //    gets a barrier before it, which clears them.
  // 3. Branches join their arms' states; loops and CFG regions iterate to a
  //    fixed point, so accesses of one iteration are seen by the next.
  for (Region &r : function->getRegions())
    visitRegion(r, State{});
}
