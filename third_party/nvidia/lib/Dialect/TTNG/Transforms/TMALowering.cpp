//===- TMALowering.cpp - tensor-descriptor accesses as TMA copies ----------===//
//
// ttng-tma-lowering (Passes.td says what it produces). The copies are
// synchronous: each load waits for its block, each store for its copy to
// have read shared memory; ttg-pipeline-style overlap is a later step.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Dialect/TTNG/Transforms/Passes.h"

#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"

#include "tessera/Analysis/AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tessera::ttng {
#define GEN_PASS_DEF_TMALOWERING
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

SmallVector<int64_t> ttng::tmaBoxShape(ArrayRef<int64_t> shape, int64_t elementBytes) {
  SmallVector<int64_t> box(shape.begin(), shape.end());
  int64_t swizzle = tmaSwizzleBytes(box.back() * elementBytes);
  if (swizzle)
    box.back() = std::min<int64_t>(box.back(), swizzle / elementBytes);
  return box;
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

/// Why `desc` cannot be copied by TMA here, or "".
std::string unsupported(Value desc) {
  auto type = cast<tt::TensorDescType>(desc.getType());
  if (type.getBlockType().getRank() != 2)
    return "a TMA copy of a block of rank " + std::to_string(type.getBlockType().getRank()) +
           " is not supported yet (2-D blocks only)";
  auto arg = dyn_cast<BlockArgument>(desc);
  auto fn = arg ? dyn_cast<tt::FuncOp>(arg.getOwner()->getParentOp()) : tt::FuncOp();
  if (!fn || !fn.isPublic() || fn.isNoInline())
    return "a TMA copy needs the descriptor to be an argument of the kernel (the tensor map "
           "the launcher encodes); this one is created in the kernel or passed through a call";
  return "";
}

/// The front end guards a copy through a tensor map whose inner offset it
/// cannot check while tracing: `scf.if (srem(off, k) == 0) { descriptor op }
/// else { pointer accesses }` (TMA needs 16-byte aligned inner offsets). Where
/// AxisInfo proves `off` divisible by k (pid * BLOCK, an argument the launcher
/// specialized as divisible by 16, ...), the condition becomes true, and
/// canonicalization drops the other branch.
void foldProvenGuards(ModuleOp m) {
  ModuleAxisInfo axis(m);
  SmallVector<arith::CmpIOp> proven;
  m.walk([&](scf::IfOp ifOp) {
    bool guardsCopy = false;
    ifOp.getThenRegion().walk([&](Operation *op) {
      guardsCopy |= isa<tt::DescriptorLoadOp, tt::DescriptorStoreOp>(op);
    });
    auto cmp = ifOp.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!guardsCopy || !cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
        !matchPattern(cmp.getRhs(), m_Zero()))
      return;
    auto rem = cmp.getLhs().getDefiningOp<arith::RemSIOp>();
    APInt k;
    if (!rem || !matchPattern(rem.getRhs(), m_ConstantInt(&k)) || k.getSExtValue() <= 0)
      return;
    AxisInfo info = axis.get(rem.getLhs());
    if (info.isInitialized() && info.getRank() >= 1 &&
        info.getDivisibility(0) % k.getSExtValue() == 0)
      proven.push_back(cmp);
  });
  for (arith::CmpIOp cmp : proven) {
    OpBuilder b(cmp);
    cmp.replaceAllUsesWith(arith::ConstantIntOp::create(b, cmp.getLoc(), 1, 1).getResult());
  }
}

struct TMALoweringPass : public ttng::impl::TMALoweringBase<TMALoweringPass> {
  void runOnOperation() override {
    ModuleOp m = getOperation();
    if (targetCapability(m) < 90)
      return;
    foldProvenGuards(m);
    MLIRContext *ctx = &getContext();
    auto barrierEnc = ttg::SwizzledSharedEncodingAttr::get(
        ctx, 1, 1, 1, {0}, ttg::CTALayoutAttr::getDefault(ctx, 1));
    auto barrierType = ttg::MemDescType::get({1}, IntegerType::get(ctx, 64), barrierEnc,
                                             ttg::SharedMemorySpaceAttr::get(ctx), true);
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
        int64_t bytes = block.getElementTypeBitWidth() / 8;
        for (int64_t d : block.getShape())
          bytes *= d;
        ttng::InitBarrierOp::create(b, loc, bar, 1);
        ttng::BarrierExpectOp::create(b, loc, bar, bytes, on);
        ttng::AsyncTMACopyGlobalToLocalOp::create(b, loc, desc, load.getIndices(), buf, bar, on);
        Value phase = arith::ConstantIntOp::create(b, loc, 0, 32);
        ttng::WaitBarrierOp::create(b, loc, bar, phase);
        ttng::InvalBarrierOp::create(b, loc, bar);
        Value v = ttg::LocalLoadOp::create(b, loc, load.getType(), buf, Value());
        load.replaceAllUsesWith(v);
        load.erase();
      } else {
        auto buf = ttg::LocalAllocOp::create(b, loc, blockBuffer(block, false), store.getSrc(),
                                             b.getI32IntegerAttr(kTMABufferAlignment));
        ttng::AsyncTMACopyLocalToGlobalOp::create(b, loc, desc, store.getIndices(), buf);
        ttng::AsyncTMAStoreWaitOp::create(b, loc, 0);
        store.erase();
      }
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
