//===- TMALowering.cpp - tensor-descriptor accesses as TMA copies ----------===//
//
// ttng-tma-lowering and ttng-tma-operands (Passes.td says what each
// produces): descriptor accesses as TMA copies, K loops' loads pipelined over
// rings of buffers and mbarriers; warpgroup dots reading the ring slots.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Dialect/TTNG/Transforms/Passes.h"

#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"

#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessera::ttng {
#define GEN_PASS_DEF_TMALOWERING
#define GEN_PASS_DEF_TMAOPERANDS
#include "tessera/NVIDIA/Dialect/TTNG/Transforms/Passes.h.inc"
} // namespace mlir::tessera::ttng

using namespace mlir;
using namespace mlir::tessera;

int64_t ttng::tmaSwizzleBytes(int64_t innerBytes) {
  for (int64_t w : {128, 64, 32})
    if (innerBytes % w == 0)
      return w;
  return 0;
}

namespace {

/// Shared buffers TMA writes start on the 128-byte swizzle's 1024-byte
/// repeat.
constexpr int32_t kTMABufferAlignment = 1024;

int targetCapability(ModuleOp m) {
  auto target = m->getAttrOfType<StringAttr>("ttg.target");
  if (!target || !target.getValue().starts_with("cuda:"))
    return 0;
  int cc = 0;
  if (target.getValue().drop_front(5).getAsInteger(10, cc))
    return 0;
  return cc;
}

ttg::MemDescType blockBuffer(RankedTensorType block, bool mutableMemory) {
  MLIRContext *ctx = block.getContext();
  unsigned bits = block.getElementTypeBitWidth();
  int64_t innerBytes = block.getShape().back() * std::max(1u, bits / 8);
  auto enc = ttg::NVMMASharedEncodingAttr::get(
      ctx, unsigned(ttng::tmaSwizzleBytes(innerBytes)), /*transposed=*/false, bits,
      /*fp4Padded=*/false, ttg::CTALayoutAttr::getDefault(ctx, block.getRank()));
  return ttg::MemDescType::get(block.getShape(), block.getElementType(), enc,
                               ttg::SharedMemorySpaceAttr::get(ctx), mutableMemory);
}

/// Whether two buffers hold the same elements in the same layout (their
/// mutability aside).
bool sameBuffer(ttg::MemDescType a, ttg::MemDescType b) {
  return a.getShape() == b.getShape() && a.getElementType() == b.getElementType() &&
         a.getEncoding() == b.getEncoding();
}

/// Why `desc` cannot be copied by TMA here, or "".
std::string unsupported(Value desc) {
  auto type = cast<tt::TensorDescType>(desc.getType());
  if (type.getBlockType().getRank() != 2)
    return "a TMA copy of a block of rank " + std::to_string(type.getBlockType().getRank()) +
           " is not supported yet (2-D blocks only)";
  // A tensor map made in the kernel (tl.make_tensor_descriptor): its global
  // scratch is the kernel's.
  if (desc.getDefiningOp<ttng::ReinterpretTensorDescOp>() ||
      desc.getDefiningOp<tt::MakeTensorDescOp>()) {
    auto fn = desc.getParentRegion()->getParentOfType<tt::FuncOp>();
    if (!fn || !fn.isPublic() || fn.isNoInline())
      return "a tensor map made by tt.make_tensor_descriptor needs global scratch, which only "
             "a kernel has; this one is made in a function that is not the kernel";
    return "";
  }
  auto arg = dyn_cast<BlockArgument>(desc);
  auto fn = arg ? dyn_cast<tt::FuncOp>(arg.getOwner()->getParentOp()) : tt::FuncOp();
  if (!fn || !fn.isPublic() || fn.isNoInline())
    return "a TMA copy needs the descriptor to be an argument of the kernel (the tensor map "
           "the launcher encodes) or made in it by tt.make_tensor_descriptor; this one is "
           "passed through a call";
  return "";
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

/// The conjuncts of the i1 `cond` (through arith.andi).
void conjuncts(Value cond, llvm::SetVector<Value> &out) {
  if (auto a = cond.getDefiningOp<arith::AndIOp>()) {
    conjuncts(a.getLhs(), out);
    conjuncts(a.getRhs(), out);
    return;
  }
  out.insert(cond);
}

/// Whether the i1 `c` is a constant true, `x >= 0` with x known
/// non-negative, or `srem(x, k) == 0` with x divisible by k by AxisInfo.
bool provenTrue(Value c, ModuleAxisInfo &axis) {
  if (matchPattern(c, m_One()))
    return true;
  auto cmp = c.getDefiningOp<arith::CmpIOp>();
  if (!cmp || !matchPattern(cmp.getRhs(), m_Zero()))
    return false;
  if (cmp.getPredicate() == arith::CmpIPredicate::sge)
    return knownNonNegative(cmp.getLhs());
  if (cmp.getPredicate() != arith::CmpIPredicate::eq)
    return false;
  auto rem = cmp.getLhs().getDefiningOp<arith::RemSIOp>();
  APInt k;
  if (!rem || !matchPattern(rem.getRhs(), m_ConstantInt(&k)) || k.getSExtValue() <= 0)
    return false;
  AxisInfo info = axis.get(rem.getLhs());
  return info.isInitialized() && info.getRank() >= 1 &&
         info.getDivisibility(0) % k.getSExtValue() == 0;
}

/// Whether `ifOp` is a guard the front end put around a copy through a
/// tensor map: its then-block holds a descriptor access marked
/// tt.tma_guarded (the front end marks the copies it guards; a user's own if
/// around a descriptor access is not a guard), and its else-branch (the
/// pointer accesses) none.
bool isCopyGuard(scf::IfOp ifOp) {
  if (ifOp.getElseRegion().empty() || ifOp.getThenRegion().empty())
    return false;
  bool marked = llvm::any_of(ifOp.getThenRegion().front(), [](Operation &op) {
    return isa<tt::DescriptorLoadOp, tt::DescriptorStoreOp>(op) && op.hasAttr("tt.tma_guarded");
  });
  bool elseCopies = false;
  ifOp.getElseRegion().walk([&](Operation *op) {
    elseCopies |= isa<tt::DescriptorLoadOp, tt::DescriptorStoreOp>(op);
  });
  return marked && !elseCopies;
}

/// Replaces `ifOp` by the operations of one of its branches.
void inlineBranch(scf::IfOp ifOp, bool thenBranch) {
  Block &blk = thenBranch ? ifOp.getThenRegion().front() : ifOp.getElseRegion().front();
  auto yield = cast<scf::YieldOp>(blk.getTerminator());
  SmallVector<Value> results(yield.getOperands());
  yield.erase();
  ifOp->getBlock()->getOperations().splice(Block::iterator(ifOp), blk.getOperations());
  ifOp.replaceAllUsesWith(results);
  ifOp.erase();
}

/// The front end guards a copy through a tensor map with the conditions TMA
/// needs that it cannot check while tracing: `scf.if (c1 && c2 ...) {
/// descriptor op } else { pointer accesses }`. The conditions are 16-byte
/// alignments, `srem(x, k) == 0` (an inner offset, a tensor's address, a
/// row stride, the inner size), non-negative offsets of stores (`x >= 0`),
/// and for maps made in the kernel that every size is positive. Conditions AxisInfo proves (pid * BLOCK, arguments the
/// launcher specialized as divisible by 16, ...) are dropped; with none
/// left, the then-branch replaces the if (so that loop pipelining sees the
/// copy in the loop body). Where the rest does not change in the innermost
/// loop around the guard (a map's sizes), that loop is unswitched: `if (rest)
/// { loop, guards that test no more taken } else { loop, every guard's
/// pointer branch }`.
/// Whether `v` (a loaded block) reaches an operand a or b of a tt.dot through
/// layout conversions, transposes, casts and the results of the ifs that
/// yield it.
bool feedsDot(Value v) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    for (OpOperand &use : x.getUses()) {
      Operation *user = use.getOwner();
      if (auto dot = dyn_cast<tt::DotOp>(user)) {
        if (use.getOperandNumber() < 2)
          return true;
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        if (auto ifOp = dyn_cast<scf::IfOp>(yield->getParentOp()))
          work.push_back(ifOp.getResult(use.getOperandNumber()));
        continue;
      }
      if (isa<ttg::ConvertLayoutOp, tt::TransOp, tt::FpToFpOp, arith::ExtFOp, arith::TruncFOp,
              arith::SIToFPOp, arith::UIToFPOp, arith::BitcastOp, ttg::LocalAllocOp>(user))
        for (Value r : user->getResults())
          work.push_back(r);
    }
  }
  return false;
}

/// Whether the stored `v` is computed from a tt.dot's result (a matmul's
/// epilogue), through pure single-block ops and ifs' results.
bool fromDot(Value v) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty() && seen.size() < 256) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *def = x.getDefiningOp();
    if (!def)
      continue;
    if (isa<tt::DotOp>(def))
      return true;
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(x).getResultNumber();
      for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!r->empty())
          work.push_back(cast<scf::YieldOp>(r->front().getTerminator()).getOperand(i));
      continue;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(def)) {
      work.push_back(forOp.getYieldedValues()[cast<OpResult>(x).getResultNumber()]);
      continue;
    }
    if (def->getNumRegions() || !isPure(def))
      continue;
    work.append(def->getOperands().begin(), def->getOperands().end());
  }
  return false;
}

/// Whether TMA serves tensor cores in the guard's copy: its loads' blocks
/// reach a dot's operands, or its stores write a dot's results.
bool servesTensorCores(scf::IfOp ifOp) {
  bool serves = false;
  ifOp.getThenRegion().walk([&](Operation *op) {
    if (auto load = dyn_cast<tt::DescriptorLoadOp>(op))
      serves |= feedsDot(load.getResult());
    else if (auto store = dyn_cast<tt::DescriptorStoreOp>(op))
      serves |= fromDot(store.getSrc());
  });
  return serves;
}

void foldProvenGuards(ModuleOp m, bool allCopies) {
  ModuleAxisInfo axis(m);
  SmallVector<scf::IfOp> guards;
  m.walk([&](scf::IfOp ifOp) {
    if (isCopyGuard(ifOp))
      guards.push_back(ifOp);
  });
  // The policy: copies that do not serve tensor cores take their pointer
  // branch (one TMA round trip per program is slower for a copy).
  if (!allCopies) {
    SmallVector<scf::IfOp> tma;
    for (scf::IfOp ifOp : guards) {
      if (servesTensorCores(ifOp))
        tma.push_back(ifOp);
      else
        inlineBranch(ifOp, false);
    }
    guards = std::move(tma);
  }
  // Loops to unswitch, innermost first, with the conditions they test.
  llvm::MapVector<Operation *, llvm::SetVector<Value>> unswitch;
  for (scf::IfOp ifOp : guards) {
    llvm::SetVector<Value> all;
    conjuncts(ifOp.getCondition(), all);
    SmallVector<Value> rest;
    for (Value c : all)
      if (!provenTrue(c, axis))
        rest.push_back(c);
    if (rest.empty()) {
      inlineBranch(ifOp, true);
      continue;
    }
    if (rest.size() != all.size()) {
      OpBuilder b(ifOp);
      Value cond = rest.front();
      for (Value c : ArrayRef<Value>(rest).drop_front())
        cond = arith::AndIOp::create(b, ifOp.getLoc(), cond, c);
      ifOp.getConditionMutable().assign(cond);
    }
    auto loop = ifOp->getParentOfType<scf::ForOp>();
    if (loop && llvm::all_of(rest, [&](Value c) { return loop.isDefinedOutsideOfLoop(c); }))
      unswitch[loop].insert(rest.begin(), rest.end());
  }
  // Inner loops come before the loops around them: post-order.
  SmallVector<scf::ForOp> order;
  m.walk([&](scf::ForOp loop) {
    if (unswitch.count(loop))
      order.push_back(loop);
  });
  for (scf::ForOp loop : order) {
    const llvm::SetVector<Value> &conds = unswitch[loop];
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value cond = conds.front();
    for (Value c : conds.getArrayRef().drop_front())
      cond = arith::AndIOp::create(b, loc, cond, c);
    auto ifOp = scf::IfOp::create(b, loc, loop.getResultTypes(), cond, /*withElseRegion=*/true);
    for (bool taken : {true, false}) {
      Block &blk = taken ? ifOp.getThenRegion().front() : ifOp.getElseRegion().front();
      OpBuilder ib = OpBuilder::atBlockEnd(&blk);
      if (!blk.empty() && blk.back().hasTrait<OpTrait::IsTerminator>())
        ib.setInsertionPoint(&blk.back());
      auto copy = cast<scf::ForOp>(ib.clone(*loop));
      if (blk.empty() || !blk.back().hasTrait<OpTrait::IsTerminator>())
        scf::YieldOp::create(ib, loc, copy.getResults());
      else
        blk.back().setOperands(copy.getResults());
      SmallVector<scf::IfOp> inner;
      copy.walk([&](scf::IfOp g) {
        if (isCopyGuard(g))
          inner.push_back(g);
      });
      for (scf::IfOp g : inner) {
        llvm::SetVector<Value> cs;
        conjuncts(g.getCondition(), cs);
        // The pointer branch is always correct (TMA is the fast way): the
        // loop for tensors TMA cannot copy (an empty one) takes it, and keeps
        // no copies whose registers the fast loop would pay for.
        if (!taken)
          inlineBranch(g, false);
        else if (llvm::all_of(cs, [&](Value c) { return conds.contains(c); }))
          inlineBranch(g, true);
      }
    }
    loop.replaceAllUsesWith(ifOp.getResults());
    loop.erase();
  }
}

/// tt.make_tensor_descriptor (2-D, used by copies) as a tensor map written
/// into this program's global scratch: ttng.tensormap_create, the acquire
/// that orders it before TMA reads it, and the map as the descriptor. The
/// box and swizzle follow blockBuffer (the block's inner extent cut to the
/// swizzle width), as the host encoder does for kernel arguments.
void lowerDeviceDescriptors(ModuleOp m) {
  SmallVector<tt::MakeTensorDescOp> makes;
  m.walk([&](tt::MakeTensorDescOp op) { makes.push_back(op); });
  for (tt::MakeTensorDescOp make : makes) {
    if (make->use_empty()) {
      make.erase();
      continue;
    }
    RankedTensorType block = make.getType().getBlockType();
    if (block.getRank() != 2)
      continue; // its copies report it (unsupported)
    OpBuilder b(make);
    Location loc = make.getLoc();
    MLIRContext *ctx = b.getContext();
    int64_t elt = std::max<int64_t>(1, block.getElementTypeBitWidth() / 8);
    int64_t swizzle = ttng::tmaSwizzleBytes(block.getShape().back() * elt);
    auto scratch = ttg::GlobalScratchAllocOp::create(
        b, loc, tt::PointerType::get(IntegerType::get(ctx, 8), 1), b.getI32IntegerAttr(128),
        b.getI32IntegerAttr(128));
    SmallVector<Value> box, dims, strides, elementStrides;
    int64_t rank = block.getRank();
    for (int64_t i = rank - 1; i >= 0; --i) {
      int64_t extent = block.getDimSize(i);
      if (i == rank - 1 && swizzle)
        extent = std::min(extent, swizzle / elt);
      box.push_back(i32Const(b, loc, extent));
      dims.push_back(make.getShape()[i]);
      elementStrides.push_back(i32Const(b, loc, 1));
      if (i < rank - 1)
        strides.push_back(arith::MulIOp::create(b, loc, make.getStrides()[i],
                                                arith::ConstantIntOp::create(b, loc, elt, 64)));
    }
    // tensormap.replace's element types by size (copies move bits).
    int32_t elemType = elt == 1 ? 0 : elt == 2 ? 1 : elt == 4 ? 2 : 4;
    int32_t swizzleMode = swizzle == 128 ? 3 : swizzle == 64 ? 2 : swizzle == 32 ? 1 : 0;
    ttng::TensormapCreateOp::create(b, loc, scratch, make.getBase(), box, dims, strides,
                                    elementStrides, elemType, /*interleave_layout=*/0,
                                    swizzleMode, /*fill_mode=*/0);
    ttng::TensormapFenceproxyAcquireOp::create(b, loc, scratch);
    auto desc = ttng::ReinterpretTensorDescOp::create(b, loc, make.getType(), scratch);
    make.replaceAllUsesWith(desc.getResult());
    make.erase();
  }
}

int64_t blockBytes(RankedTensorType block) {
  int64_t bytes = std::max<int64_t>(1, block.getElementTypeBitWidth() / 8);
  for (int64_t d : block.getShape())
    bytes *= d;
  return bytes;
}

/// The pure ops of `loop`'s body that compute the loads' coordinates and the
/// next values of the loop-carried values they read (indices in `carried`),
/// from the induction variable and loop-invariant values, in program order;
/// fails on anything else (an op with effects or regions).
FailureOr<SmallVector<Operation *>> coordinateSlice(scf::ForOp loop,
                                                    ArrayRef<tt::DescriptorLoadOp> loads,
                                                    llvm::SetVector<unsigned> &carried) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work;
  for (tt::DescriptorLoadOp l : loads)
    work.append(l.getIndices().begin(), l.getIndices().end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body || arg == loop.getInductionVar())
        continue;
      // A loop-carried coordinate (offset += BLOCK): its next values are
      // computed ahead too.
      unsigned j = arg.getArgNumber() - loop.getNumInductionVars();
      if (carried.insert(j))
        work.push_back(yield.getOperand(j));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(def))
      continue;
    if (def->getBlock() != body || def->getNumRegions() != 0 || !isPure(def))
      return failure();
    if (ops.insert(def))
      work.append(def->getOperands().begin(), def->getOperands().end());
  }
  SmallVector<Operation *> ordered(ops.begin(), ops.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Pipelines the descriptor loads of `loop` over `stages` stages (Passes.td);
/// false when the loop does not qualify (its loads are then lowered one by
/// one).
bool pipelineLoop(scf::ForOp loop, int stages, Type barrierType) {
  if (stages < 2 || !loop.getInductionVar().getType().isInteger(32))
    return false;
  Block *body = loop.getBody();
  SmallVector<tt::DescriptorLoadOp> loads;
  for (auto l : body->getOps<tt::DescriptorLoadOp>())
    if (unsupported(l.getDesc()).empty() && loop.isDefinedOutsideOfLoop(l.getDesc()))
      loads.push_back(l);
  if (loads.empty())
    return false;
  bool writes = false;
  loop->walk([&](Operation *op) {
    writes |= isa<tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp, tt::CallOp, tt::DescriptorStoreOp>(op);
  });
  if (writes)
    return false;
  llvm::SetVector<unsigned> carried;
  FailureOr<SmallVector<Operation *>> slice = coordinateSlice(loop, loads, carried);
  if (failed(slice))
    return false;

  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Attribute smem = ttg::SharedMemorySpaceAttr::get(ctx);
  struct Ring {
    tt::DescriptorLoadOp load;
    Value buffer;
    ttg::MemDescType slot;
  };
  SmallVector<Ring> rings;
  int64_t bytes = 0;
  for (tt::DescriptorLoadOp load : loads) {
    RankedTensorType block = load.getDesc().getType().getBlockType();
    ttg::MemDescType slot = blockBuffer(block, true);
    SmallVector<int64_t> shape{stages};
    shape.append(block.getShape().begin(), block.getShape().end());
    auto bufType = ttg::MemDescType::get(shape, block.getElementType(), slot.getEncoding(), smem, true);
    rings.push_back({load,
                     ttg::LocalAllocOp::create(b, loc, bufType, Value(),
                                               b.getI32IntegerAttr(kTMABufferAlignment))
                         .getResult(),
                     slot});
    bytes += blockBytes(block);
  }
  auto barSlot = cast<ttg::MemDescType>(barrierType);
  auto barsType = ttg::MemDescType::get({stages, 1}, barSlot.getElementType(), barSlot.getEncoding(),
                                        smem, true);
  Value bars = ttg::LocalAllocOp::create(b, loc, barsType, Value(), IntegerAttr());
  auto barrierAt = [&](OpBuilder &ob, Value index) {
    return ttg::MemDescIndexOp::create(ob, loc, barSlot, bars, index).getResult();
  };
  for (int s = 0; s < stages; ++s)
    ttng::InitBarrierOp::create(b, loc, barrierAt(b, i32Const(b, loc, s)), 1);

  // Starts the copies of the iteration numbered `iter` (i32) where `inRange`
  // holds; `map` holds that iteration's induction variable and carried
  // values. Afterwards it also holds the slice's values (the carried values'
  // next ones among them).
  auto issue = [&](OpBuilder &ob, IRMapping &map, Value iter, Value inRange) {
    for (Operation *op : *slice)
      ob.clone(*op, map);
    Value slotIndex = arith::RemSIOp::create(ob, loc, iter, i32Const(ob, loc, stages));
    Value bar = barrierAt(ob, slotIndex);
    ttng::BarrierExpectOp::create(ob, loc, bar, bytes, inRange);
    for (Ring &r : rings) {
      SmallVector<Value> coords;
      for (Value c : r.load.getIndices())
        coords.push_back(map.lookupOrDefault(c));
      Value view = ttg::MemDescIndexOp::create(ob, loc, r.slot, r.buffer, slotIndex);
      ttng::AsyncTMACopyGlobalToLocalOp::create(ob, loc, r.load.getDesc(), coords, view, bar, inRange);
    }
  };

  // Prologue: iterations 0 .. S-2, the carried coordinates stepped along.
  SmallVector<Value> cur;
  for (unsigned j : carried)
    cur.push_back(loop.getInitArgs()[j]);
  for (int p = 0; p + 1 < stages; ++p) {
    IRMapping map;
    map.map(loop.getInductionVar(),
            arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, step, i32Const(b, loc, p)))
                .getResult());
    for (auto [k, j] : llvm::enumerate(carried))
      map.map(loop.getRegionIterArgs()[j], cur[k]);
    issue(b, map, i32Const(b, loc, p), inRangeAhead(b, loc, lb, step, ub, p));
    for (auto [k, j] : llvm::enumerate(carried))
      cur[k] = map.lookupOrDefault(yield.getOperand(j));
  }

  // Iteration j starts iteration j + S - 1 at its end. Carried coordinates:
  // the loop also carries their values S - 1 iterations ahead.
  auto issueAhead = [&](OpBuilder &ob, Value ivNow, ArrayRef<Value> aheadArgs,
                        ArrayRef<Value> carriedNow) -> SmallVector<Value> {
    IRMapping map;
    map.map(ivNow,
            arith::AddIOp::create(ob, loc, ivNow,
                                  arith::MulIOp::create(ob, loc, step, i32Const(ob, loc, stages - 1)))
                .getResult());
    for (auto [k, v] : llvm::enumerate(carriedNow))
      map.map(v, aheadArgs[k]);
    Value iterNow =
        arith::DivSIOp::create(ob, loc, arith::SubIOp::create(ob, loc, ivNow, lb), step);
    Value iterAhead = arith::AddIOp::create(ob, loc, iterNow, i32Const(ob, loc, stages - 1));
    issue(ob, map, iterAhead, inRangeAhead(ob, loc, ivNow, step, ub, stages - 1));
    SmallVector<Value> next;
    for (unsigned j : carried)
      next.push_back(map.lookupOrDefault(yield.getOperand(j)));
    return next;
  };
  if (carried.empty()) {
    OpBuilder eb(yield);
    issueAhead(eb, loop.getInductionVar(), {}, {});
  } else {
    // replaceWithAdditionalYields calls `fn` at the end of the new loop's
    // body, into which the old body has been merged: the slice's ops read the
    // new block's induction variable and carried values, which `fn` maps to
    // their values S - 1 iterations ahead (the new iter_args, `args`).
    IRRewriter rewriter(ctx);
    rewriter.setInsertionPoint(loop);
    auto fn = [&](OpBuilder &yb, Location, ArrayRef<BlockArgument> args) -> SmallVector<Value> {
      Block *nb = yb.getInsertionBlock();
      SmallVector<Value> carriedNow;
      for (unsigned j : carried)
        carriedNow.push_back(nb->getArgument(1 + j));
      SmallVector<Value> ahead(args.begin(), args.end());
      return issueAhead(yb, nb->getArgument(0), ahead, carriedNow);
    };
    FailureOr<LoopLikeOpInterface> grown =
        loop.replaceWithAdditionalYields(rewriter, cur, /*replaceInitOperandUsesInLoop=*/false, fn);
    if (failed(grown))
      return false;
    loop = cast<scf::ForOp>(grown->getOperation());
    body = loop.getBody();
  }

  // The body's start: wait for this iteration's blocks, read them.
  OpBuilder bb = OpBuilder::atBlockBegin(body);
  Value iv = loop.getInductionVar();
  Value iter = arith::DivSIOp::create(bb, loc, arith::SubIOp::create(bb, loc, iv, lb), step);
  Value slotIndex = arith::RemSIOp::create(bb, loc, iter, i32Const(bb, loc, stages));
  Value phase = arith::AndIOp::create(
      bb, loc, arith::DivSIOp::create(bb, loc, iter, i32Const(bb, loc, stages)), i32Const(bb, loc, 1));
  ttng::WaitBarrierOp::create(bb, loc, barrierAt(bb, slotIndex), phase);
  for (Ring &r : rings) {
    Value view = ttg::MemDescIndexOp::create(bb, loc, r.slot, r.buffer, slotIndex);
    auto v = ttg::LocalLoadOp::create(bb, loc, r.load.getType(), view, Value());
    v->setAttr("ttng.tma_slot", bb.getUnitAttr()); // see ttng-tma-operands
    r.load.replaceAllUsesWith(v.getResult());
    r.load.erase();
  }

  // After the loop: no copy is in flight (those past the end never started).
  OpBuilder ab(loop->getBlock(), ++Block::iterator(loop));
  for (int s = 0; s < stages; ++s)
    ttng::InvalBarrierOp::create(ab, loc, barrierAt(ab, i32Const(ab, loc, s)));
  return true;
}

struct TMALoweringPass : public ttng::impl::TMALoweringBase<TMALoweringPass> {
  using TMALoweringBase::TMALoweringBase;

  void runOnOperation() override {
    ModuleOp m = getOperation();
    if (targetCapability(m) < 90)
      return;
    foldProvenGuards(m, allCopies);
    lowerDeviceDescriptors(m);
    MLIRContext *ctx = &getContext();
    auto barrierEnc = ttg::SwizzledSharedEncodingAttr::get(
        ctx, 1, 1, 1, {0}, ttg::CTALayoutAttr::getDefault(ctx, 1));
    auto barrierType = ttg::MemDescType::get({1}, IntegerType::get(ctx, 64), barrierEnc,
                                             ttg::SharedMemorySpaceAttr::get(ctx), true);
    // Loops first (innermost first): their descriptor loads become pipelined
    // copies; what is left is lowered one by one below.
    SmallVector<scf::ForOp> loops;
    m.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      int stages = numStages;
      if (auto attr = loop->getAttrOfType<IntegerAttr>("tt.num_stages"))
        stages = int(attr.getInt());
      pipelineLoop(loop, stages, barrierType);
    }
    bool failed = false;
    m.walk([&](Operation *op) {
      auto load = dyn_cast<tt::DescriptorLoadOp>(op);
      auto store = dyn_cast<tt::DescriptorStoreOp>(op);
      if (!load && !store)
        return;
      Value desc = load ? load.getDesc() : store.getDesc();
      std::string why = unsupported(desc);
      if (!why.empty()) {
        op->emitOpError() << why;
        failed = true;
        return;
      }
      auto descType = cast<tt::TensorDescType>(desc.getType());
      RankedTensorType block = descType.getBlockType();
      Location loc = op->getLoc();
      OpBuilder b(op);
      if (load) {
        auto buf = ttg::LocalAllocOp::create(b, loc, blockBuffer(block, true), Value(),
                                             b.getI32IntegerAttr(kTMABufferAlignment));
        auto bar = ttg::LocalAllocOp::create(b, loc, barrierType, Value(), IntegerAttr());
        Value on = arith::ConstantIntOp::create(b, loc, 1, 1);
        ttng::InitBarrierOp::create(b, loc, bar, 1);
        ttng::BarrierExpectOp::create(b, loc, bar, blockBytes(block), on);
        ttng::AsyncTMACopyGlobalToLocalOp::create(b, loc, desc, load.getIndices(), buf, bar, on);
        Value phase = arith::ConstantIntOp::create(b, loc, 0, 32);
        ttng::WaitBarrierOp::create(b, loc, bar, phase);
        ttng::InvalBarrierOp::create(b, loc, bar);
        auto v = ttg::LocalLoadOp::create(b, loc, load.getType(), buf, Value());
        v->setAttr("ttng.tma_slot", b.getUnitAttr());
        load.replaceAllUsesWith(v.getResult());
        load.erase();
      } else {
        // A block stored as TMA loaded it (a copy) is stored from the load's
        // buffer: no round trip through registers. The buffer is not written
        // again in this block (a pipelined loop has no stores).
        Value src;
        if (auto ld = store.getSrc().getDefiningOp<ttg::LocalLoadOp>())
          if (ld->hasAttr("ttng.tma_slot") && ld->getBlock() == store->getBlock() &&
              sameBuffer(cast<ttg::MemDescType>(ld.getSrc().getType()), blockBuffer(block, false)))
            src = ld.getSrc();
        if (!src)
          src = ttg::LocalAllocOp::create(b, loc, blockBuffer(block, false), store.getSrc(),
                                          b.getI32IntegerAttr(kTMABufferAlignment));
        ttng::AsyncTMACopyLocalToGlobalOp::create(b, loc, desc, store.getIndices(), src);
        ttng::AsyncTMAStoreWaitOp::create(b, loc, 0);
        store.erase();
      }
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace

namespace {

/// The ring slot a value was read from by ttng-tma-lowering's pipeline, when
/// `v` is that read (a marked ttg.local_load) of 16-bit elements.
Value tmaSlotOf(Value v) {
  auto load = v.getDefiningOp<ttg::LocalLoadOp>();
  if (!load || !load->hasAttr("ttng.tma_slot") ||
      load.getType().getElementTypeBitWidth() != 16)
    return {};
  return load.getSrc();
}

struct TMAOperandsPass : public ttng::impl::TMAOperandsBase<TMAOperandsPass> {
  void runOnOperation() override {
    llvm::SetVector<Operation *> maybeDead;
    getOperation().walk([&](ttng::WarpGroupDotOp dot) {
      if (dot.getIsAsync())
        return;
      for (OpOperand *operand : {&dot.getAMutable(), &dot.getBMutable()}) {
        Operation *def = operand->get().getDefiningOp();
        Value slot;
        if (auto alloc = dyn_cast_or_null<ttg::LocalAllocOp>(def)) {
          if (alloc.getSrc())
            if (Value s = tmaSlotOf(alloc.getSrc()))
              if (sameBuffer(cast<ttg::MemDescType>(s.getType()), alloc.getType()))
                slot = s;
        } else if (auto cvt = dyn_cast_or_null<ttg::ConvertLayoutOp>(def)) {
          // Operand a from registers: read it from the slot instead when the
          // slot is K-major (as wgmma wants a from shared memory).
          if (operand == &dot.getAMutable())
            if (Value s = tmaSlotOf(cvt.getSrc()))
              if (auto enc = dyn_cast<ttg::NVMMASharedEncodingAttr>(
                      cast<ttg::MemDescType>(s.getType()).getEncoding()))
                if (!enc.getTransposed())
                  slot = s;
        }
        if (!slot)
          continue;
        operand->set(slot);
        maybeDead.insert(def);
      }
    });
    // The stores and conversions (and the reads feeding them) left unused.
    for (Operation *op : maybeDead) {
      if (!op->use_empty())
        continue;
      Operation *src = op->getOperand(0).getDefiningOp();
      op->erase();
      if (src && src->use_empty() && isa<ttg::LocalLoadOp>(src))
        src->erase();
    }
  }
};

} // namespace
