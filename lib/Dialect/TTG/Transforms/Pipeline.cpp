//===- Pipeline.cpp - software pipelining of tensor-core operand loads ----===//
//
// A K loop that loads its dot operands from global memory each iteration
// waits for every load before its dot. With S stages, the loads of iteration
// i + S - 1 are started as background copies into a ring of S shared-memory
// buffers while iteration i computes:
//
//   prologue:  copies for iterations 0 .. S-2 (one commit group each)
//   loop i:    wait until iteration i's group has landed (S-2 groups may stay
//              in flight); read the operands from buffer i % S straight into
//              the dot's operand layouts; the dot; the copies for iteration
//              i + S - 1 into buffer (i + S - 1) % S, masked off past the
//              loop's end; commit
//   after:     wait for everything, free the ring
//
// Which loads: tt.load ops of the loop body (not nested) whose result feeds
// a conversion to a dot operand layout, with `other` zero or absent and not
// volatile, whose copies move at least 4 bytes at a time (AxisInfo), whose pointer, mask and `other` are computed from loop-invariant
// values, the induction variable, and loop-carried values that are
// themselves advanced only from such values (pointers bumped by a stride) —
// so they can be computed S - 1 iterations ahead (by ops free to speculate:
// they also run for iterations past the end). Loops that write memory
// (stores, atomics, calls), count with unsigned comparisons or have a
// non-i32 induction variable keep their form, as do the other loads. The number of stages is the loop's `tt.num_stages`
// (tl.range(..., num_stages=)) or the pass option (the launch's num_stages);
// fewer than 2 leaves the loop alone. A load stored into a vendor dot's
// operand buffer (a ttg.local_alloc read by the dot, or through a
// memdesc_trans) gets a ring of that buffer's layout, read by the dot in
// place; such dots then run asynchronously where the target allows (below).
//
// Operand loads that cannot be background copies (fewer than 4 bytes a copy:
// rows not proven aligned, e.g. an fp16 matrix whose row stride is not a
// multiple of 8) but whose addresses can be computed ahead are prefetched
// into registers one iteration ahead instead: iteration 0's load before the
// loop, and at the top of iteration i the load of iteration i + 1 (masked off
// past the end), carried to the next iteration. Its latency then overlaps
// the current iteration's dot rather than preceding it. Only tiles of at
// most 32 elements a thread are held so (64 in all), so the registers they
// take stay small next to the accumulator's.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Prof/IR/Dialect.h"
#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/Target/Backend.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_PIPELINE
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

bool isZeroOrAbsent(Value other) {
  return !other || matchPattern(other, m_AnyZeroFloat()) || matchPattern(other, m_Zero());
}

/// `op` as a ttg.local_alloc that stores a tensor into a buffer read by a
/// dot (a tensor-core dot whose operands live in shared memory), or null.
ttg::LocalAllocOp operandAlloc(Operation *op) {
  auto alloc = dyn_cast<ttg::LocalAllocOp>(op);
  if (!alloc || !alloc.getSrc() || alloc.getResult().use_empty())
    return {};
  for (Operation *u : alloc.getResult().getUsers()) {
    if (auto trans = dyn_cast<ttg::MemDescTransOp>(u)) {
      // A transposed view the dot reads.
      for (Operation *tu : trans.getResult().getUsers())
        if (!isa<tt::DotOpInterface>(tu))
          return {};
      continue;
    }
    if (!isa<tt::DotOpInterface>(u))
      return {};
  }
  return alloc;
}

/// The loads of `loop`'s body that feed dot operands and may be pipelined.
SmallVector<tt::LoadOp> operandLoads(scf::ForOp loop) {
  SmallVector<tt::LoadOp> out;
  for (auto load : loop.getBody()->getOps<tt::LoadOp>()) {
    auto type = dyn_cast<RankedTensorType>(load.getType());
    if (!type || type.getRank() != 2 || !isa_and_nonnull<ttg::BlockedEncodingAttr>(type.getEncoding()))
      continue;
    if (!isa<tt::PointerType>(getElementTypeOrSelf(load.getPtr().getType())) ||
        load.getIsVolatile() || !isZeroOrAbsent(load.getOther()))
      continue;
    bool feedsDot = llvm::any_of(load->getUsers(), [](Operation *u) {
      auto cvt = dyn_cast<ttg::ConvertLayoutOp>(u);
      return (cvt && isa<ttg::DotOperandEncodingAttr>(cvt.getType().getEncoding())) ||
             operandAlloc(u);
    });
    // Operand buffers of one shared layout at most.
    llvm::SmallPtrSet<Attribute, 2> allocLayouts;
    for (Operation *u : load->getUsers())
      if (auto alloc = operandAlloc(u))
        allocLayouts.insert(alloc.getType().getEncoding());
    if (feedsDot && allocLayouts.size() <= 1)
      out.push_back(load);
  }
  return out;
}

/// The ops of the body that compute the loads' operands and the next values
/// of the loop-carried values they read, in program order; fails when one of
/// them is not a pure op of the body's block, or reads a loop-carried value
/// that is not advanced the same way.
FailureOr<SmallVector<Operation *>> addressSlice(scf::ForOp loop, ArrayRef<tt::LoadOp> loads,
                                                 llvm::SetVector<unsigned> &carried) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work;
  for (tt::LoadOp l : loads)
    for (Value v : l->getOperands())
      work.push_back(v);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body)
        continue; // defined outside the loop
      if (arg == loop.getInductionVar())
        continue;
      unsigned j = arg.getArgNumber() - loop.getNumInductionVars();
      if (carried.insert(j))
        work.push_back(yield.getOperand(j));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(def))
      continue; // loop-invariant
    // Run for iterations ahead (also past the end): only ops that are free to
    // speculate (no memory effects, no division that may trap).
    if (def->getBlock() != body || def->getNumRegions() != 0 || !isPure(def))
      return failure();
    if (ops.insert(def))
      for (Value operand : def->getOperands())
        work.push_back(operand);
  }
  SmallVector<Operation *> ordered(ops.begin(), ops.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct Ring {
  tt::LoadOp load;
  Value buffer;             // memdesc<S x shape>
  ttg::MemDescType slot;    // memdesc<shape>
  int32_t contiguity = 1;
};

/// Clones the address slice for one iteration: `map` holds the induction
/// variable's and the carried values' values; afterwards it holds the
/// loads' operands and (through `next`) the carried values' next values.
void cloneSlice(OpBuilder &b, ArrayRef<Operation *> slice, IRMapping &map) {
  for (Operation *op : slice)
    b.clone(*op, map);
}

/// `mask` (or all-true) AND `inRange` (an i1), as a mask of `ptrType`'s shape.
Value maskIn(OpBuilder &b, Location loc, RankedTensorType ptrType, Value mask, Value inRange) {
  auto maskType = RankedTensorType::get(ptrType.getShape(), b.getI1Type(), ptrType.getEncoding());
  Value splat = tt::SplatOp::create(b, loc, maskType, inRange);
  return mask ? arith::AndIOp::create(b, loc, mask, splat).getResult() : splat;
}

void issueCopies(OpBuilder &b, Location loc, ArrayRef<Ring> rings, IRMapping &map, Value slot,
                 Value inRange) {
  for (Ring r : rings) {
    Value ptr = map.lookupOrDefault(r.load.getPtr());
    Value mask = r.load.getMask() ? map.lookupOrDefault(r.load.getMask()) : Value();
    Value other = r.load.getOther() ? map.lookupOrDefault(r.load.getOther()) : Value();
    auto ptrType = cast<RankedTensorType>(ptr.getType());
    Value view = ttg::MemDescIndexOp::create(b, loc, r.slot, r.buffer, slot);
    ttg::AsyncCopyGlobalToLocalOp::create(
        b, loc, ttg::AsyncTokenType::get(b.getContext()), ptr, view,
        maskIn(b, loc, ptrType, mask, inRange), other, r.load.getCache(), r.load.getEvict(),
        /*isVolatile=*/false, r.contiguity);
  }
  ttg::AsyncCommitGroupOp::create(b, loc, ttg::AsyncTokenType::get(b.getContext()), ValueRange{});
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// (x + 1) % n for 0 <= x < n.
Value nextSlot(OpBuilder &b, Location loc, Value x, int64_t n) {
  Value inc = arith::AddIOp::create(b, loc, x, i32Const(b, loc, 1));
  Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, inc, i32Const(b, loc, n));
  return arith::SelectOp::create(b, loc, wrap, i32Const(b, loc, 0), inc);
}

/// Elements each background copy of `load` may move: the layout's run along
/// the fastest dim, as far as AxisInfo proves the addresses consecutive and
/// aligned and the mask equal over it.
int32_t copyContiguity(tt::LoadOp load, const ModuleAxisInfo &axis) {
  auto type = cast<RankedTensorType>(load.getType());
  auto blocked = cast<ttg::BlockedEncodingAttr>(type.getEncoding());
  unsigned fast = blocked.getOrder()[0];
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  int64_t c = std::min<int64_t>(blocked.getSizePerThread()[fast],
                                axis.getVectorElements(load.getPtr(), fast, bytes));
  if (Value m = load.getMask()) {
    AxisInfo info = axis.get(m);
    c = info.isInitialized() && info.getRank() > fast ? std::min<int64_t>(c, info.getConstancy(fast)) : 1;
  }
  return int32_t(std::max<int64_t>(1, c));
}

/// Whether the loop may write global memory (stores, atomics, calls, …): a
/// load started iterations ahead would then miss what the loop writes before
/// it. Writes to shared memory (operand buffers) and profiling records (the
/// profiler's own buffer) do not count.
bool writesMemory(scf::ForOp loop) {
  bool writes = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<tt::LoadOp>(op) || isMemoryEffectFree(op) || isa<scf::YieldOp>(op))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance(); // its nested ops are visited
      writes = true;
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &e : effects)
      // Shared memory (operand buffers, fences) is not what the loads read.
      if (!isa<MemoryEffects::Read>(e.getEffect()) && e.getResource() != ttg::SharedMemory::get() &&
          e.getResource() != prof::ProfileBuffer::get()) {
        writes = true;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return writes;
}

/// `loop` replaced by one that also carries `inits`, their next values given
/// by `fn` at the end of the body. `fn` runs with the old body's block (its
/// arguments are the old induction variable and carried values, which the
/// grown loop's replace afterwards).
FailureOr<scf::ForOp> growLoop(scf::ForOp loop, ValueRange inits, const NewYieldValuesFn &fn) {
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> grown =
      loop.replaceWithAdditionalYields(rewriter, inits, /*replaceInitOperandUsesInLoop=*/false, fn);
  if (failed(grown))
    return failure();
  return cast<scf::ForOp>(grown->getOperation());
}

FailureOr<scf::ForOp> pipelineLoop(scf::ForOp loop, int64_t stages, const ModuleAxisInfo &axis,
                           const TargetInfoBase *targetInfo) {
  if (!loop.getInductionVar().getType().isInteger(32) || loop.getUnsignedCmp() || writesMemory(loop))
    return failure();
  // Only loads whose copies can run in the background (at least 4 bytes per
  // copy): the others stay where they are.
  SmallVector<tt::LoadOp> loads;
  for (tt::LoadOp load : operandLoads(loop)) {
    int64_t bytes = std::max<int64_t>(1, cast<RankedTensorType>(load.getType()).getElementTypeBitWidth() / 8);
    if (copyContiguity(load, axis) * bytes >= 4)
      loads.push_back(load);
  }
  // ... and whose operands can be computed ahead (not from loaded values).
  llvm::erase_if(loads, [&](tt::LoadOp load) {
    llvm::SetVector<unsigned> own;
    return failed(addressSlice(loop, {load}, own));
  });
  if (loads.empty())
    return failure();
  llvm::SetVector<unsigned> carried;
  FailureOr<SmallVector<Operation *>> slice = addressSlice(loop, loads, carried);
  if (failed(slice))
    return failure();
  Location loc = loop.getLoc();
  MLIRContext *ctx = loop.getContext();
  OpBuilder b(loop);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Attribute smem = ttg::SharedMemorySpaceAttr::get(ctx);

  // The rings.
  SmallVector<Ring> rings;
  for (tt::LoadOp load : loads) {
    auto type = cast<RankedTensorType>(load.getType());
    // A load stored into a dot's operand buffer fills a ring of that
    // buffer's layout (and alignment); one read into dot_op layouts, a ring
    // whose reads are conflict free.
    Attribute enc = getOperandSharedEncoding(type);
    IntegerAttr alignment;
    for (Operation *u : load->getUsers())
      if (ttg::LocalAllocOp alloc = operandAlloc(u)) {
        enc = alloc.getType().getEncoding();
        alignment = alloc.getAlignmentAttr();
      }
    SmallVector<int64_t> shape{stages};
    shape.append(type.getShape().begin(), type.getShape().end());
    auto bufType = ttg::MemDescType::get(shape, type.getElementType(), enc, smem, /*mutable=*/true);
    auto slotType = ttg::MemDescType::get(type.getShape(), type.getElementType(), enc, smem, true);
    Ring r{load, ttg::LocalAllocOp::create(b, loc, bufType, Value(), alignment).getResult(),
           slotType, copyContiguity(load, axis)};
    rings.push_back(r);
  }

  // Prologue: iterations 0 .. S-2.
  SmallVector<Value> cur;
  for (unsigned j : carried)
    cur.push_back(loop.getInitArgs()[j]);
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value iv = arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, step, i32Const(b, loc, s)));
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (auto [k, j] : llvm::enumerate(carried))
      map.map(loop.getRegionIterArgs()[j], cur[k]);
    cloneSlice(b, *slice, map);
    Value inRange = inRangeAhead(b, loc, lb, step, ub, s);
    issueCopies(b, loc, rings, map, i32Const(b, loc, s), inRange);
    for (auto [k, j] : llvm::enumerate(carried))
      cur[k] = map.lookupOrDefault(yield.getOperand(j));
  }

  // The loop carries the values S - 1 iterations ahead and the two slots.
  SmallVector<Value> inits(cur);
  inits.push_back(i32Const(b, loc, 0));
  inits.push_back(i32Const(b, loc, stages - 1));
  unsigned nAhead = carried.size();
  // Builds the copies of iteration i + S - 1 at the end of the body; the block
  // it is called in holds the induction variable and the carried values
  // (mergeBlocks remaps them into the grown loop afterwards).
  auto fn = [&](OpBuilder &yb, Location yl, ArrayRef<BlockArgument> args) -> SmallVector<Value> {
    Block *nb = yb.getInsertionBlock();
    Value ivNow = nb->getArgument(0);
    Value iv = arith::AddIOp::create(
        yb, yl, ivNow, arith::MulIOp::create(yb, yl, step, i32Const(yb, yl, stages - 1)));
    IRMapping map;
    map.map(ivNow, iv);
    for (auto [k, j] : llvm::enumerate(carried))
      map.map(nb->getArgument(1 + j), args[k]);
    cloneSlice(yb, *slice, map);
    Value inRange = inRangeAhead(yb, yl, ivNow, step, ub, stages - 1);
    issueCopies(yb, yl, rings, map, args[nAhead + 1], inRange);
    SmallVector<Value> next;
    for (unsigned j : carried)
      next.push_back(map.lookupOrDefault(yield.getOperand(j)));
    next.push_back(nextSlot(yb, yl, args[nAhead], stages));
    next.push_back(nextSlot(yb, yl, args[nAhead + 1], stages));
    return next;
  };
  FailureOr<scf::ForOp> grown = growLoop(loop, inits, fn);
  if (failed(grown))
    return failure();
  scf::ForOp newLoop = *grown;
  Block *body = newLoop.getBody();
  Value readSlot = body->getArgument(body->getNumArguments() - 2);

  // Iteration i: wait for its copies, read the operands from its buffer.
  OpBuilder ib = OpBuilder::atBlockBegin(body);
  ttg::AsyncWaitOp::create(ib, loc, ttg::AsyncTokenType::get(ctx), ValueRange{}, int32_t(stages - 2));
  for (const Ring &r : rings) {
    tt::LoadOp load = r.load;
    OpBuilder lb2(load);
    Value view = ttg::MemDescIndexOp::create(lb2, load.getLoc(), r.slot, r.buffer, readSlot);
    for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
      if (ttg::LocalAllocOp alloc = operandAlloc(user)) {
        // The dot reads the ring's slot itself (or a transposed view of it).
        for (Operation *u : llvm::make_early_inc_range(alloc.getResult().getUsers())) {
          auto trans = dyn_cast<ttg::MemDescTransOp>(u);
          if (!trans)
            continue;
          OpBuilder tb(trans);
          ttg::MemDescType t = trans.getType();
          auto viewT = ttg::MemDescType::get(t.getShape(), t.getElementType(), t.getEncoding(),
                                             t.getMemorySpace(), /*mutable=*/true);
          Value tv = ttg::MemDescTransOp::create(tb, trans.getLoc(), viewT, view, trans.getOrderAttr());
          trans.getResult().replaceAllUsesWith(tv);
          trans.erase();
        }
        alloc.getResult().replaceAllUsesWith(view);
        alloc.erase();
        continue;
      }
      auto cvt = dyn_cast<ttg::ConvertLayoutOp>(user);
      if (!cvt || !isa<ttg::DotOperandEncodingAttr>(cvt.getType().getEncoding()))
        continue;
      OpBuilder cb(cvt);
      Value v = ttg::LocalLoadOp::create(cb, cvt.getLoc(), cvt.getType(), view, Value());
      cvt.replaceAllUsesWith(v);
      cvt.erase();
    }
    if (!load->use_empty()) {
      Value v = ttg::LocalLoadOp::create(lb2, load.getLoc(), load.getType(), view, Value());
      load.replaceAllUsesWith(v);
    }
    load.erase();
  }

  // Dots that read only ring slots may run in the background, where the
  // target has asynchronous tensor-core dots (a buffer from before the loop
  // could be reused after it while another warpgroup's last dot still reads
  // it: the waits cover the calling warpgroup only). Each such dot's result
  // is only yielded (a loop-carried accumulator):
  // - when the dot accumulates into the carried value itself (its only use),
  //   a wait right after it leaves it in flight (at most one pending):
  //   iteration i's copies overwrite the slot dot i - 1 read, which that wait
  //   finished;
  // - otherwise (the carried value is first rescaled, as attention's output
  //   is), the next iteration waits for it right before the carried value's
  //   first use, which comes before that iteration's copies overwrite the slot
  //   the dot read.
  // After the loop, a wait for all.
  OpBuilder ab(newLoop->getContext());
  ab.setInsertionPointAfter(newLoop);
  if (targetInfo) {
    auto newYield = cast<scf::YieldOp>(body->getTerminator());
    llvm::SmallPtrSet<Value, 4> ringBuffers;
    for (const Ring &r : rings)
      ringBuffers.insert(r.buffer);
    SmallVector<tt::DotOpInterface> dots;
    for (auto dot : body->getOps<tt::DotOpInterface>())
      dots.push_back(dot);
    bool hasRecords = false;
    body->walk([&](prof::RecordOp) { hasRecords = true; });
    for (tt::DotOpInterface dot : dots) {
      Operation *op = dot.getOperation();
      if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
        continue;
      OpOperand &use = *op->getResult(0).getUses().begin();
      if (use.getOwner() != newYield)
        continue;
      unsigned j = use.getOperandNumber();
      BlockArgument carried = newLoop.getRegionIterArgs()[j];
      if (carried.use_empty())
        continue;
      bool safeBuffers = isa<ttg::MemDescType>(dot.getB().getType());
      for (Value v : {dot.getA(), dot.getB()}) {
        if (!isa<ttg::MemDescType>(v.getType()))
          continue;
        if (auto trans = v.getDefiningOp<ttg::MemDescTransOp>())
          v = trans.getSrc();
        auto index = v.getDefiningOp<ttg::MemDescIndexOp>();
        if (!index || !ringBuffers.contains(index.getSrc()))
          safeBuffers = false;
      }
      if (!safeBuffers)
        continue;
      OpBuilder db(op);
      if (dot.getC() == carried && carried.hasOneUse()) {
        Value waited = targetInfo->makeDotAsync(db, op, /*pending=*/1);
        if (!waited)
          continue;
        newYield.setOperand(j, waited);
      } else {
        // The first op of the body that uses the carried value.
        Operation *first = nullptr;
        for (Operation *user : carried.getUsers()) {
          Operation *top = body->findAncestorOpInBlock(*user);
          if (top && (!first || top->isBeforeInBlock(first)))
            first = top;
        }
        if (!first || !first->isBeforeInBlock(op))
          continue;
        if (!targetInfo->makeDotAsync(db, op, /*pending=*/-1))
          continue;
        OpBuilder wb(first);
        Value ready = targetInfo->waitForDots(wb, loc, carried, 0);
        carried.replaceAllUsesExcept(ready, ready.getDefiningOp());
      }
      Value res = newLoop.getResult(j);
      Value done;
      if (hasRecords) {
        // A loop with profiling records (prof.record): the wait only where
        // the loop ran; the path that skips it waits on its own (for
        // nothing) and yields the initial value. With one wait after the
        // join, the records' bookkeeping gives that path a block of its own
        // that materializes the initial accumulator before the wait, and
        // ptxas serializes the loop's wgmma pipeline (C7515; with the
        // initial value yielded before its own wait, C7514). Loops without
        // records keep the plain wait (attention measured slower with the
        // branch, run 108).
        Value ran = arith::CmpIOp::create(ab, loc, arith::CmpIPredicate::slt, newLoop.getLowerBound(),
                                          newLoop.getUpperBound());
        auto ifOp = scf::IfOp::create(ab, loc, TypeRange{res.getType()}, ran, /*withElse=*/true);
        OpBuilder tb = ifOp.getThenBodyBuilder();
        Value w = targetInfo->waitForDots(tb, loc, res, 0);
        scf::YieldOp::create(tb, loc, w);
        OpBuilder eb = ifOp.getElseBodyBuilder();
        (void)targetInfo->waitForDots(eb, loc, rings.front().buffer, 0);
        scf::YieldOp::create(eb, loc, newLoop.getInitArgs()[j]);
        done = ifOp.getResult(0);
        res.replaceUsesWithIf(done, [&](OpOperand &use) { return !ifOp->isAncestor(use.getOwner()); });
        ab.setInsertionPointAfter(ifOp);
      } else {
        done = targetInfo->waitForDots(ab, loc, res, 0);
        res.replaceAllUsesExcept(done, done.getDefiningOp());
      }
    }
  }

  // After the loop: nothing in flight, the rings freed.
  ttg::AsyncWaitOp::create(ab, loc, ttg::AsyncTokenType::get(ctx), ValueRange{}, 0);
  for (const Ring &r : rings)
    ttg::LocalDeallocOp::create(ab, loc, r.buffer);
  return newLoop;
}

/// Prefetches into registers, one iteration ahead, the operand loads of
/// `loop` that stayed loads (see the header). The caller has checked that the
/// loop writes no global memory (before ring pipelining added its own ops).
LogicalResult prefetchLoop(scf::ForOp loop, const ModuleAxisInfo &axis) {
  if (!loop.getInductionVar().getType().isInteger(32) || loop.getUnsignedCmp())
    return failure();
  // Not in the slow copy ttg-version-nonnegative keeps for negative values
  // (an else branch that rarely runs): its registers count for the whole
  // kernel.
  for (Operation *p = loop->getParentOp(); p; p = p->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(p); ifOp && ifOp->hasAttr("tt.nonnegative_version") &&
                                          ifOp.getElseRegion().isAncestor(loop->getParentRegion()))
      return failure();
  SmallVector<tt::LoadOp> loads;
  int64_t held = 0;
  for (tt::LoadOp load : operandLoads(loop)) {
    auto type = cast<RankedTensorType>(load.getType());
    int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    if (copyContiguity(load, axis) * bytes >= 4 || !supportsLinearLayout(type))
      continue; // a ring's (where the ring could not be built, neither can this)
    int64_t elems = toLinearLayout(type).getInDimSize("register");
    llvm::SetVector<unsigned> own;
    if (elems > 32 || held + elems > 64 || failed(addressSlice(loop, {load}, own)))
      continue;
    held += elems;
    loads.push_back(load);
  }
  if (loads.empty())
    return failure();
  llvm::SetVector<unsigned> carried;
  FailureOr<SmallVector<Operation *>> slice = addressSlice(loop, loads, carried);
  if (failed(slice))
    return failure();
  Location loc = loop.getLoc();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();

  // A copy of `load` with the operands `map` gives, masked off unless `inRange`.
  auto loadAhead = [&](OpBuilder &b, tt::LoadOp load, IRMapping &map, Value inRange) -> Value {
    Value ptr = map.lookupOrDefault(load.getPtr());
    Value mask = load.getMask() ? map.lookupOrDefault(load.getMask()) : Value();
    Value other = load.getOther() ? map.lookupOrDefault(load.getOther()) : Value();
    auto ptrType = cast<RankedTensorType>(ptr.getType());
    auto copy = tt::LoadOp::create(b, load.getLoc(), ptr, maskIn(b, loc, ptrType, mask, inRange), other,
                                   load.getCache(), load.getEvict(), /*isVolatile=*/false);
    copy->setDiscardableAttrs(load->getDiscardableAttrDictionary());
    return copy.getResult();
  };

  // Before the loop: iteration 0's loads.
  OpBuilder b(loop);
  IRMapping first;
  first.map(loop.getInductionVar(), lb);
  for (unsigned j : carried)
    first.map(loop.getRegionIterArgs()[j], loop.getInitArgs()[j]);
  cloneSlice(b, *slice, first);
  Value inRange0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  SmallVector<Value> inits;
  for (tt::LoadOp load : loads)
    inits.push_back(loadAhead(b, load, first, inRange0));

  // At the top of the body: iteration i + 1's loads (the carried values'
  // next values are computed there once more; CSE merges the copies).
  auto fn = [&](OpBuilder &yb, Location yl, ArrayRef<BlockArgument> args) -> SmallVector<Value> {
    // `nb` is the old body's block (the grown loop's arguments replace its
    // own afterwards); the old yield still stands at its end.
    Block *nb = yb.getInsertionBlock();
    OpBuilder tb = OpBuilder::atBlockBegin(nb);
    IRMapping now;
    cloneSlice(tb, *slice, now);
    IRMapping next;
    Value ivNow = nb->getArgument(0);
    next.map(ivNow, arith::AddIOp::create(tb, yl, ivNow, step));
    for (unsigned j : carried)
      next.map(nb->getArgument(1 + j), now.lookupOrDefault(yield.getOperand(j)));
    cloneSlice(tb, *slice, next);
    Value inRange = inRangeAhead(tb, yl, ivNow, step, ub, 1);
    SmallVector<Value> out;
    for (tt::LoadOp load : loads)
      out.push_back(loadAhead(tb, load, next, inRange));
    return out;
  };
  FailureOr<scf::ForOp> grown = growLoop(loop, inits, fn);
  if (failed(grown))
    return failure();
  scf::ForOp newLoop = *grown;
  unsigned base = newLoop.getNumRegionIterArgs() - loads.size();
  for (auto [k, load] : llvm::enumerate(loads)) {
    load.replaceAllUsesWith(newLoop.getRegionIterArgs()[base + k]);
    load.erase();
  }
  return success();
}

struct PipelinePass : public mlir::tessera::impl::PipelineBase<PipelinePass> {
  using PipelineBase::PipelineBase;
  // The target's asynchronous dots and their waits are ops of its dialect.
  void getDependentDialects(DialectRegistry &registry) const override {
    PipelineBase::getDependentDialects(registry);
    ::tessera::registerAllBackendDialects(registry);
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    if (loops.empty())
      return;
    std::unique_ptr<TargetInfoBase> targetInfo;
    if (auto target = module->getAttrOfType<StringAttr>("ttg.target"))
      targetInfo = createTargetInfo(target.getValue());
    for (scf::ForOp loop : loops) {
      int64_t stages = numStages;
      if (auto attr = loop->getAttrOfType<IntegerAttr>("tt.num_stages"))
        stages = attr.getInt();
      if (stages < 2)
        continue;
      // Facts of the module as it is now (an inner loop pipelined before
      // changed the values an outer one sees).
      if (writesMemory(loop))
        continue;
      ModuleAxisInfo axis(module);
      FailureOr<scf::ForOp> piped = pipelineLoop(loop, stages, axis, targetInfo.get());
      if (!registerPrefetch)
        continue;
      if (succeeded(piped))
        (void)prefetchLoop(*piped, ModuleAxisInfo(module));
      else
        (void)prefetchLoop(loop, axis);
    }
  }
};

} // namespace
