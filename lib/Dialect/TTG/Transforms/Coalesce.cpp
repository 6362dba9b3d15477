//===- Coalesce.cpp - layouts of global memory accesses from AxisInfo ------===//

#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <numeric>

namespace mlir::tessera {
#define GEN_PASS_DEF_COALESCE
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// The mask of a memory access, or null.
Value maskOf(Operation *op) {
  if (auto load = dyn_cast<tt::LoadOp>(op))
    return load.getMask();
  if (auto store = dyn_cast<tt::StoreOp>(op))
    return store.getMask();
  if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op))
    return rmw.getMask();
  return {};
}

/// Consecutive elements along `dim` one vector access may cover: what the
/// pointers allow (contiguity, alignment, 16 bytes) and, with a mask, what
/// its constancy allows (the lowering splits a vector where the mask may
/// change).
int64_t vectorElements(const ModuleAxisInfo &axis, Operation *op, unsigned dim, int64_t elementBytes) {
  int64_t v = axis.getVectorElements(op->getOperand(0), dim, elementBytes, 16);
  if (Value mask = maskOf(op)) {
    AxisInfo m = axis.get(mask);
    v = (m.isInitialized() && dim < m.getRank()) ? std::min(v, m.getConstancy(dim)) : 1;
  }
  return std::max<int64_t>(v, 1);
}

/// How well a blocked layout `enc` serves an access: the elements one
/// vector access covers; then whether the lanes of one access touch
/// neighbouring addresses (no thread holds more consecutive elements than a
/// vector moves, which would leave gaps between lanes); then how many
/// consecutive elements the pointers have along the layout's fastest dim
/// within a warp. Larger is better.
std::tuple<int64_t, bool, int64_t> score(const AxisInfo &info, int64_t vecElems,
                                         ttg::BlockedEncodingAttr enc) {
  unsigned d = enc.getOrder()[0];
  int64_t perThread = enc.getSizePerThread()[d];
  int64_t run = std::min<int64_t>(info.getContiguity(d), perThread * enc.getThreadsPerWarp()[d]);
  return {std::min(perThread, vecElems), perThread <= vecElems && info.getContiguity(d) > 1, run};
}

struct CoalescePass : public mlir::tessera::impl::CoalesceBase<CoalescePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto intAttr = [&](StringRef name, int def) {
      auto a = module->getAttrOfType<IntegerAttr>(name);
      return a ? int(a.getInt()) : def;
    };
    int numWarps = intAttr("ttg.num-warps", 4);
    int threadsPerWarp = intAttr("ttg.threads-per-warp", 32);

    SmallVector<Operation *> accesses;
    module.walk([&](Operation *op) {
      if (!isa<tt::LoadOp, tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(op))
        return;
      auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      if (type && isa_and_nonnull<ttg::BlockedEncodingAttr>(type.getEncoding()))
        accesses.push_back(op);
    });
    if (accesses.empty())
      return;
    ModuleAxisInfo axis(module);

    // Decide every access first (the analysis describes the module as it is),
    // then rewrite.
    // Changes that widen vectors or lengthen a warp's run of consecutive
    // addresses are always made; those that only close gaps between lanes
    // only when they leave the module's conversions no more expensive.
    SmallVector<std::pair<Operation *, ttg::BlockedEncodingAttr>> changes, minor;
    for (Operation *op : accesses) {
      Value ptr = op->getOperand(0);
      auto type = cast<RankedTensorType>(ptr.getType());
      auto current = cast<ttg::BlockedEncodingAttr>(type.getEncoding());
      AxisInfo info = axis.get(ptr);
      if (!info.isInitialized() || info.getRank() != unsigned(type.getRank()))
        continue;
      Type pointee = cast<tt::PointerType>(type.getElementType()).getPointeeType();
      if (!pointee.isIntOrFloat())
        continue;
      int64_t elementBytes = std::max<unsigned>(pointee.getIntOrFloatBitWidth() / 8, 1);
      unsigned rank = type.getRank();
      // Dims by contiguity, most contiguous first; ties keep the current order
      // (std::sort on a total order: std::stable_sort's temporary buffer is
      // deprecated in libstdc++ 12).
      SmallVector<unsigned> order(current.getOrder());
      SmallVector<unsigned> position(rank);
      for (auto [i, d] : llvm::enumerate(order))
        position[d] = unsigned(i);
      std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
        if (info.getContiguity(a) != info.getContiguity(b))
          return info.getContiguity(a) > info.getContiguity(b);
        return position[a] < position[b];
      });
      unsigned fastest = order[0];
      int64_t threads = int64_t(numWarps) * threadsPerWarp;
      int64_t perThread = std::min<int64_t>(vectorElements(axis, op, fastest, elementBytes),
                                            std::max<int64_t>(type.getNumElements() / threads, 1));
      perThread = std::clamp<int64_t>(perThread, 1, type.getShape()[fastest]);
      SmallVector<unsigned> spt(rank, 1);
      spt[fastest] = perThread;
      auto wanted = getBlockedEncoding(ctx, type.getShape(), spt, order, numWarps, threadsPerWarp);
      auto want = score(info, vectorElements(axis, op, wanted.getOrder()[0], elementBytes), wanted);
      auto have = score(info, vectorElements(axis, op, current.getOrder()[0], elementBytes), current);
      if (wanted == current || want <= have)
        continue;
      // Wider vectors, or a warp touching a longer run of consecutive
      // addresses (the order follows contiguity), are worth a conversion.
      bool major = std::get<0>(want) > std::get<0>(have) || std::get<2>(want) > std::get<2>(have);
      (major ? changes : minor).push_back({op, wanted});
    }
    apply(changes);
    if (minor.empty())
      return;
    IRMapping map;
    OwningOpRef<ModuleOp> with(cast<ModuleOp>(module->clone(map)));
    OwningOpRef<ModuleOp> without = module.clone();
    SmallVector<std::pair<Operation *, ttg::BlockedEncodingAttr>> mapped;
    for (auto [op, enc] : minor)
      mapped.push_back({map.lookup(op), enc});
    apply(mapped);
    removeLayoutConversions(*with);
    removeLayoutConversions(*without);
    if (conversionCost(*with) <= conversionCost(*without))
      apply(minor);
  }

  /// Gives each op its layout: operands converted to it, results converted
  /// back.
  static void apply(ArrayRef<std::pair<Operation *, ttg::BlockedEncodingAttr>> changes) {
    for (auto [op, enc] : changes) {
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!t)
          continue;
        operand.set(ttg::ConvertLayoutOp::create(b, op->getLoc(), withEncoding(t, enc), operand.get()));
      }
      b.setInsertionPointAfter(op);
      for (OpResult r : op->getResults()) {
        auto t = dyn_cast<RankedTensorType>(r.getType());
        if (!t)
          continue;
        r.setType(withEncoding(t, enc));
        auto back = ttg::ConvertLayoutOp::create(b, op->getLoc(), t, r);
        r.replaceAllUsesExcept(back, back);
      }
    }
  }
};

} // namespace
