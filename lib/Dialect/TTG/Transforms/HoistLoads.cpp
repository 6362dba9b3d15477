//===- HoistLoads.cpp - start global loads before barrier-bound ops --------===//
//
// See the pass description (Passes.td): each tt.load moves up its block past
// ops that neither define its operands nor write memory, so that its latency
// overlaps the reductions, scans and conversions (barriers, once lowered)
// written before it.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_HOISTLOADS
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// Whether a load may move above `op`: it writes nothing and has no effects
/// the interface does not describe; regions only in reductions and scans
/// (whose combiners are pure).
bool mayCross(Operation *op) {
  if (op->getNumRegions() != 0 && !isa<tt::ReduceOp, tt::ScanOp>(op))
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

struct HoistLoads : public mlir::tessera::impl::HoistLoadsBase<HoistLoads> {
  void runOnOperation() override {
    SmallVector<tt::LoadOp> loads;
    getOperation().walk([&](tt::LoadOp load) { loads.push_back(load); });
    // Program order: each load moves after the loads before it have, so the
    // loads keep their order among themselves.
    for (tt::LoadOp load : loads) {
      if (load.getIsVolatile())
        continue;
      // Walk up from the load: ops that define a value the moving ops use
      // move with them where they are pure and regionless (address
      // arithmetic), ops that do not are crossed where they may be; the
      // moving ops go, in their order, before the first op crossed.
      Operation *op = load.getOperation();
      llvm::SetVector<Operation *> moving;
      moving.insert(op);
      auto feedsMoving = [&](Operation *prev) {
        for (Value r : prev->getResults())
          for (Operation *u : r.getUsers())
            if (moving.contains(u))
              return true;
        return false;
      };
      Operation *firstCrossed = nullptr;
      for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
        if (feedsMoving(prev)) {
          if (prev->getNumRegions() != 0 || !isMemoryEffectFree(prev))
            break;
          moving.insert(prev);
          continue;
        }
        if (isa<tt::LoadOp>(prev) || !mayCross(prev))
          break;
        firstCrossed = prev;
      }
      if (!firstCrossed)
        continue;
      // `moving` holds the load first, then its feeders from the nearest up:
      // move them in program order.
      SmallVector<Operation *> ordered(moving.rbegin(), moving.rend());
      for (Operation *m : ordered)
        m->moveBefore(firstCrossed);
    }
  }
};

} // namespace
