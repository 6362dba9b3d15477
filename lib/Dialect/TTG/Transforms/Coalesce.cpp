//===- Coalesce.cpp - layouts of global memory accesses from AxisInfo ------===//

#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <numeric>

namespace mlir::tessera {
#define GEN_PASS_DEF_COALESCE
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// How well a blocked layout `enc` serves an access through `ptr`: the
/// elements one vector access covers, then how many consecutive elements
/// the pointers have along the layout's fastest dim (lanes next to each
/// other touching neighbouring addresses). Larger is better.
std::pair<int64_t, int64_t> score(const ModuleAxisInfo &axis, Value ptr, const AxisInfo &info,
                                  ttg::BlockedEncodingAttr enc, int64_t elementBytes) {
  unsigned d = enc.getOrder()[0];
  int64_t vec = std::min<int64_t>(enc.getSizePerThread()[d],
                                  axis.getVectorElements(ptr, d, elementBytes, 16));
  int64_t run = std::min<int64_t>(info.getContiguity(d),
                                  int64_t(enc.getSizePerThread()[d]) * enc.getThreadsPerWarp()[d]);
  return {vec, run};
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
    SmallVector<std::pair<Operation *, ttg::BlockedEncodingAttr>> changes;
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
      // Dims by contiguity, most contiguous first; ties keep the current order.
      SmallVector<unsigned> order(current.getOrder());
      std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
        return info.getContiguity(a) > info.getContiguity(b);
      });
      unsigned fastest = order[0];
      int64_t threads = int64_t(numWarps) * threadsPerWarp;
      int64_t perThread = std::min<int64_t>(axis.getVectorElements(ptr, fastest, elementBytes, 16),
                                            std::max<int64_t>(type.getNumElements() / threads, 1));
      perThread = std::clamp<int64_t>(perThread, 1, type.getShape()[fastest]);
      SmallVector<unsigned> spt(rank, 1);
      spt[fastest] = perThread;
      auto wanted = getBlockedEncoding(ctx, type.getShape(), spt, order, numWarps, threadsPerWarp);
      if (wanted == current ||
          score(axis, ptr, info, wanted, elementBytes) <= score(axis, ptr, info, current, elementBytes))
        continue;
      changes.push_back({op, wanted});
    }

    for (auto [op, enc] : changes) {
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!t)
          continue;
        auto want = RankedTensorType::get(t.getShape(), t.getElementType(), enc);
        operand.set(ttg::ConvertLayoutOp::create(b, op->getLoc(), want, operand.get()));
      }
      b.setInsertionPointAfter(op);
      for (OpResult r : op->getResults()) {
        auto t = dyn_cast<RankedTensorType>(r.getType());
        if (!t)
          continue;
        r.setType(RankedTensorType::get(t.getShape(), t.getElementType(), enc));
        auto back = ttg::ConvertLayoutOp::create(b, op->getLoc(), t, r);
        r.replaceAllUsesExcept(back, back);
      }
    }
  }
};

} // namespace
