//===- Allocation.cpp - shared-memory buffers, their lifetimes and offsets ------===//

#include "tessera/Analysis/Allocation.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// Ops whose memdesc result views (aliases) their memdesc operand.
bool isView(Operation *op) {
  return isa<ttg::MemDescIndexOp, ttg::MemDescSubsliceOp, ttg::MemDescTransOp,
             ttg::MemDescReshapeOp>(op);
}

int64_t bytesOf(ttg::MemDescType t) {
  int64_t n = 1;
  for (int64_t d : t.getShape())
    n *= d;
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  return n * std::max<int64_t>(bits / 8, 1);
}

int64_t alignUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

} // namespace

const char *Allocation::kindName(Kind k) {
  switch (k) {
  case Kind::Explicit:
    return "explicit";
  case Kind::Scratch:
    return "scratch";
  case Kind::Virtual:
    return "virtual";
  }
  return "?";
}

void Allocation::number(tt::FuncOp fn) {
  // Pre-order positions; an op's subtree ends at the last position inside it.
  int64_t next = 0;
  std::function<void(Operation *)> visit = [&](Operation *op) {
    points[op] = next++;
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (Operation &inner : b)
          visit(&inner);
    subtreeEnd[op] = next - 1;
  };
  visit(fn);
  lastPoint = next - 1;
}

void Allocation::addExplicit(Operation *alloc) {
  auto type = cast<ttg::MemDescType>(alloc->getResult(0).getType());
  int64_t align = 16;
  if (auto a = alloc->getAttrOfType<IntegerAttr>("alignment"))
    align = std::max<int64_t>(a.getInt(), 16); // vector accesses and ldmatrix assume 16
  int64_t start = points.lookup(alloc), end = start;
  // Every use, through views; a memdesc that leaves through a terminator or
  // a block argument (a loop-carried buffer) is kept to the end.
  SmallVector<Value> work{alloc->getResult(0)};
  unsigned id = buffers.size();
  while (!work.empty()) {
    Value v = work.pop_back_val();
    byValue[v] = id;
    for (Operation *user : v.getUsers()) {
      if (isView(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      // Leaving through a terminator, or into an op with regions (a loop's
      // init operand becomes its block argument): kept to the end, since
      // those aliases are not followed.
      if (user->hasTrait<OpTrait::IsTerminator>() || user->getNumRegions() > 0) {
        end = lastPoint;
        continue;
      }
      int64_t at = points.lookup(user);
      // A use inside a loop that does not hold the alloc: live through the
      // outermost such loop (later iterations use it again).
      for (Operation *p = user->getParentOp(); p && !p->isAncestor(alloc); p = p->getParentOp())
        if (isa<LoopLikeOpInterface>(p) || isa<scf::WhileOp>(p))
          at = std::max(at, subtreeEnd.lookup(p));
      end = std::max(end, at);
    }
  }
  byOwner[alloc] = id;
  buffers.push_back({id, Kind::Explicit, alloc, bytesOf(type), align, 0, start, end});
}

Allocation::Allocation(tt::FuncOp fn, const ScratchSizeFn &scratchSize,
                       const llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> &callees) {
  // 1. Number the program points.
  // 2. Collect buffers: explicit (local_alloc), scratch (ops the lowering says
  //    need it), virtual (calls of functions with shared memory).
  // 3. Give each buffer the lowest offset, aligned, that overlaps no buffer
  //    already placed whose lifetime overlaps its own (largest first).
  number(fn);
  fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<ttg::LocalAllocOp>(op)) {
      addExplicit(op);
      return;
    }
    int64_t p = points.lookup(op);
    if (auto call = dyn_cast<tt::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<tt::FuncOp>(op, call.getCalleeAttr());
      auto need = callee ? callees.lookup(callee) : std::pair<int64_t, int64_t>{0, 1};
      if (need.first > 0) {
        // The callee's offsets are relative to this buffer: it must be as
        // aligned as the callee's most aligned buffer.
        byOwner[op] = buffers.size();
        buffers.push_back({unsigned(buffers.size()), Kind::Virtual, op, need.first,
                           std::max<int64_t>(16, need.second), 0, p, p});
      }
      return;
    }
    if (int64_t size = scratchSize(op); size > 0) {
      byOwner[op] = buffers.size();
      buffers.push_back({unsigned(buffers.size()), Kind::Scratch, op, size, 16, 0, p, p});
    }
  });
  assignOffsets();
}

void Allocation::assignOffsets() {
  std::vector<unsigned> order(buffers.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  // Largest first, then earliest, then in creation order: a total order, so
  // std::sort is deterministic (std::stable_sort's temporary buffer is
  // deprecated in libstdc++ 12 and was the build's only warning).
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    if (buffers[a].start != buffers[b].start)
      return buffers[a].start < buffers[b].start;
    return a < b;
  });
  std::vector<unsigned> placed;
  for (unsigned i : order) {
    Buffer &b = buffers[i];
    SmallVector<const Buffer *> live;
    for (unsigned j : placed) {
      const Buffer &o = buffers[j];
      if (o.start <= b.end && b.start <= o.end)
        live.push_back(&o);
    }
    // Candidates: 0 and the end of every overlapping buffer; take the lowest
    // that fits.
    SmallVector<int64_t> candidates{0};
    for (const Buffer *o : live)
      candidates.push_back(alignUp(o->offset + o->size, b.alignment));
    llvm::sort(candidates);
    for (int64_t c : candidates) {
      c = alignUp(c, b.alignment);
      bool fits = llvm::all_of(live, [&](const Buffer *o) {
        return c + b.size <= o->offset || o->offset + o->size <= c;
      });
      if (fits) {
        b.offset = c;
        break;
      }
    }
    total = std::max(total, b.offset + b.size);
    placed.push_back(i);
  }
}

int64_t Allocation::getMaxAlignment() const {
  int64_t a = 1;
  for (const Buffer &b : buffers)
    a = std::max(a, b.alignment);
  return a;
}

const Allocation::Buffer *Allocation::getBuffer(Operation *owner) const {
  auto it = byOwner.find(owner);
  return it == byOwner.end() ? nullptr : &buffers[it->second];
}

const Allocation::Buffer *Allocation::getBufferOf(Value memdesc) const {
  auto it = byValue.find(memdesc);
  return it == byValue.end() ? nullptr : &buffers[it->second];
}

ModuleAllocation::ModuleAllocation(ModuleOp module, const ScratchSizeFn &scratchSize) {
  // Callees first (depth-first post-order over tt.call); a cycle is an error.
  llvm::DenseMap<Operation *, int> state; // 1: on the stack, 2: done
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> sizes;
  std::function<void(tt::FuncOp)> visit = [&](tt::FuncOp fn) {
    state[fn] = 1;
    fn.walk([&](tt::CallOp call) {
      if (hadError)
        return;
      auto callee = SymbolTable::lookupNearestSymbolFrom<tt::FuncOp>(call, call.getCalleeAttr());
      if (!callee)
        return;
      int s = state.lookup(callee);
      if (s == 1) {
        call.emitOpError("calls @") << callee.getName()
                                   << " recursively: shared memory cannot be allocated for recursion";
        hadError = true;
        return;
      }
      if (s == 0)
        visit(callee);
    });
    if (hadError)
      return;
    auto a = std::make_unique<Allocation>(fn, scratchSize, sizes);
    sizes[fn] = {a->getSharedMemorySize(), a->getMaxAlignment()};
    if (fn.isPublic() && !fn.isNoInline())
      kernelTotal = std::max(kernelTotal, a->getSharedMemorySize());
    allocations[fn] = std::move(a);
    order.push_back(fn);
    state[fn] = 2;
  };
  for (auto fn : module.getOps<tt::FuncOp>())
    if (!hadError && state.lookup(fn) == 0)
      visit(fn);
}

const Allocation *ModuleAllocation::get(Operation *fn) const {
  auto it = allocations.find(fn);
  return it == allocations.end() ? nullptr : it->second.get();
}
