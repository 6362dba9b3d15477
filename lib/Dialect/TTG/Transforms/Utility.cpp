//===- Utility.cpp - layout helpers shared by the TTGIR passes -----------===//

#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessera;

RankedTensorType mlir::tessera::withEncoding(RankedTensorType t, Attribute enc) {
  return RankedTensorType::get(t.getShape(), t.getElementType(), enc);
}

ttg::BlockedEncodingAttr mlir::tessera::getBlockedEncoding(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                                          ArrayRef<unsigned> sizePerThread,
                                                          ArrayRef<unsigned> order, int numWarps,
                                                          int threadsPerWarp) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(sizePerThread), tpw(rank, 1), wpc(rank, 1);
  int64_t lanes = threadsPerWarp;
  for (unsigned d : order) {
    int64_t t = std::clamp<int64_t>(lanes, 1, std::max<int64_t>(shape[d] / spt[d], 1));
    tpw[d] = t;
    lanes /= t;
  }
  tpw[order.back()] *= lanes;
  int64_t warps = numWarps;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(shape[d] / (tpw[d] * spt[d]), 1);
    int64_t w = std::clamp<int64_t>(warps, 1, room);
    wpc[d] = w;
    warps /= w;
  }
  wpc[order.back()] *= warps;
  return ttg::BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order,
                                       ttg::CTALayoutAttr::getDefault(ctx, rank));
}

ttg::BlockedEncodingAttr mlir::tessera::transposeBlocked(ttg::BlockedEncodingAttr b,
                                                        ArrayRef<int32_t> perm) {
  MLIRContext *ctx = b.getContext();
  SmallVector<unsigned> spt, tpw, wpc, order, inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm)) {
    spt.push_back(b.getSizePerThread()[p]);
    tpw.push_back(b.getThreadsPerWarp()[p]);
    wpc.push_back(b.getWarpsPerCTA()[p]);
    inv[p] = i;
  }
  for (unsigned o : b.getOrder())
    order.push_back(inv[o]);
  return ttg::BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order,
                                       ttg::CTALayoutAttr::getDefault(ctx, perm.size()));
}

ttg::BlockedEncodingAttr mlir::tessera::untransposeBlocked(ttg::BlockedEncodingAttr b,
                                                          ArrayRef<int32_t> perm) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = perm.size();
  SmallVector<unsigned> spt(rank), tpw(rank), wpc(rank), order;
  for (unsigned i = 0; i < rank; ++i) {
    spt[perm[i]] = b.getSizePerThread()[i];
    tpw[perm[i]] = b.getThreadsPerWarp()[i];
    wpc[perm[i]] = b.getWarpsPerCTA()[i];
  }
  for (unsigned o : b.getOrder())
    order.push_back(perm[o]);
  return ttg::BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order,
                                       ttg::CTALayoutAttr::getDefault(ctx, rank));
}

bool mlir::tessera::isElementwiseOp(Operation *op) {
  StringRef d = op->getName().getDialectNamespace();
  if ((d == "arith" || d == "math") && !isa<arith::ConstantOp>(op))
    return true;
  return isa<tt::AddPtrOp, tt::BitcastOp, tt::FpToFpOp, tt::IntToPtrOp, tt::PtrToIntOp,
             tt::ClampFOp, tt::PreciseSqrtOp, tt::PreciseDivFOp, tt::MulhiUIOp>(op) ||
         (isa<tt::ExternElementwiseOp>(op) && cast<tt::ExternElementwiseOp>(op).getPure());
}

int64_t mlir::tessera::conversionBytes(ttg::ConvertLayoutOp op) {
  return getViewOpScratchBytes(op);
}

namespace {

/// Recomputes the source of convert_layout ops in the target layout when it
/// is cheap, so that the convert disappears.
class Rematerializer {
public:
  Rematerializer(MLIRContext *ctx, bool rematerializeLoads)
      : ctx(ctx), rematerializeLoads(rematerializeLoads) {}

  /// `v` recomputed with `enc`, or null when that is not cheap.
  Value rematerialize(Value v, Attribute enc, OpBuilder &b, int depth = 0) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getEncoding() == enc)
      return v;
    if (depth > 16)
      return {};
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumResults() != 1 || def->getNumRegions())
      return {};
    auto newType = withEncoding(t, enc);
    auto cache = cacheOf(v, enc);
    if (cache)
      return cache;
    if (auto c = dyn_cast<ttg::ConvertLayoutOp>(def))
      return remember(v, enc, rematerialize(c.getSrc(), enc, b, depth + 1));
    SmallVector<Value> operands;
    bool ok = true;
    auto need = [&](Value operand, Attribute want) {
      Value r = rematerialize(operand, want, b, depth + 1);
      if (!r)
        ok = false;
      operands.push_back(r);
    };
    if (auto e = dyn_cast<tt::ExpandDimsOp>(def)) {
      auto dist = dyn_cast<ttg::DistributedEncodingTrait>(enc);
      if (!dist)
        return {};
      need(e.getSrc(), ttg::SliceEncodingAttr::get(ctx, e.getAxis(), dist));
    } else if (isa<tt::BroadcastOp>(def)) {
      need(def->getOperand(0), enc);
    } else if (auto trans = dyn_cast<tt::TransOp>(def)) {
      // The source layout is enc with its dims permuted back.
      auto blocked = dyn_cast<ttg::BlockedEncodingAttr>(enc);
      if (!blocked)
        return {};
      need(trans.getSrc(), untransposeBlocked(blocked, trans.getOrder()));
    } else if (isa<tt::MakeRangeOp, tt::SplatOp, arith::ConstantOp>(def) ||
               isElementwiseOp(def) || (rematerializeLoads && isSingleUseLoad(def))) {
      for (Value o : def->getOperands()) {
        auto ot = dyn_cast<RankedTensorType>(o.getType());
        if (!ot) {
          operands.push_back(o);
          continue;
        }
        need(o, enc);
      }
    } else {
      return {};
    }
    if (!ok)
      return {};
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(def);
    // Operands may be defined after `def` only if they were created now; they
    // are placed right before `def` too, so dominance holds.
    Operation *clone = b.clone(*def);
    clone->setOperands(operands);
    clone->getResult(0).setType(newType);
    if (auto cst = dyn_cast<arith::ConstantOp>(clone))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(newType));
    return remember(v, enc, clone->getResult(0));
  }

  void run(ModuleOp module) {
    bool changed = true;
    while (changed) {
      changed = false;
      cache.clear(); // clones may be erased below as dead code
      SmallVector<ttg::ConvertLayoutOp> converts;
      module.walk([&](ttg::ConvertLayoutOp c) { converts.push_back(c); });
      for (ttg::ConvertLayoutOp c : converts) {
        auto dst = cast<RankedTensorType>(c.getType());
        if (c.getSrc().getType() == dst) {
          c.getResult().replaceAllUsesWith(c.getSrc());
          c.erase();
          changed = true;
          continue;
        }
        OpBuilder b(c);
        if (Value r = rematerialize(c.getSrc(), dst.getEncoding(), b)) {
          c.getResult().replaceAllUsesWith(r);
          c.erase();
          changed = true;
        }
      }
      // Drop ops that became dead.
      SmallVector<Operation *> dead;
      module.walk([&](Operation *op) {
        if (op->use_empty() && op->getNumResults() && isPure(op))
          dead.push_back(op);
      });
      for (Operation *op : llvm::reverse(dead))
        if (op->use_empty())
          op->erase();
    }
  }

private:
  static bool isPure(Operation *op) {
    return isa<tt::MakeRangeOp, tt::SplatOp, arith::ConstantOp, tt::ExpandDimsOp,
               tt::BroadcastOp, ttg::ConvertLayoutOp>(op) ||
           isElementwiseOp(op) || (isa<tt::LoadOp>(op) && !cast<tt::LoadOp>(op).getIsVolatile());
  }
  static bool isSingleUseLoad(Operation *op) {
    auto load = dyn_cast<tt::LoadOp>(op);
    return load && load->hasOneUse() && !load.getIsVolatile() &&
           isa<RankedTensorType>(load.getPtr().getType());
  }
  Value cacheOf(Value v, Attribute enc) {
    auto it = cache.find({v.getAsOpaquePointer(), enc.getAsOpaquePointer()});
    return it == cache.end() ? Value() : it->second;
  }
  Value remember(Value v, Attribute enc, Value r) {
    if (r)
      cache[{v.getAsOpaquePointer(), enc.getAsOpaquePointer()}] = r;
    return r;
  }
  MLIRContext *ctx;
  bool rematerializeLoads;
  llvm::DenseMap<std::pair<void *, const void *>, Value> cache;
};

} // namespace

void mlir::tessera::rematerializeConversions(ModuleOp module, bool rematerializeLoads) {
  Rematerializer(module.getContext(), rematerializeLoads).run(module);
}

ttg::SwizzledSharedEncodingAttr mlir::tessera::getOperandSharedEncoding(RankedTensorType type) {
  auto blocked = cast<ttg::BlockedEncodingAttr>(type.getEncoding());
  SmallVector<unsigned> order(blocked.getOrder());
  int64_t bytes = std::max<int64_t>(1, getElementTypeOrSelf(type).getIntOrFloatBitWidth() / 8);
  int64_t inner = type.getDimSize(order[0]);
  unsigned vec = unsigned(std::max<int64_t>(1, std::min<int64_t>(16 / bytes, inner)));
  unsigned perPhase = unsigned(std::max<int64_t>(1, 128 / (inner * bytes)));
  unsigned maxPhase = unsigned(std::max<int64_t>(1, std::min<int64_t>(inner / vec, 8 / perPhase)));
  MLIRContext *ctx = type.getContext();
  return ttg::SwizzledSharedEncodingAttr::get(ctx, vec, perPhase, maxPhase, order,
                                              ttg::CTALayoutAttr::getDefault(ctx, 2));
}

Value mlir::tessera::inRangeAhead(OpBuilder &b, Location loc, Value iv, Value step, Value ub,
                                  int64_t ahead) {
  Type i64 = b.getI64Type();
  Value iv64 = arith::ExtSIOp::create(b, loc, i64, iv);
  Value step64 = arith::ExtSIOp::create(b, loc, i64, step);
  Value ub64 = arith::ExtSIOp::create(b, loc, i64, ub);
  Value k = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(ahead));
  Value at = arith::AddIOp::create(b, loc, iv64, arith::MulIOp::create(b, loc, step64, k));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, ub64);
}
