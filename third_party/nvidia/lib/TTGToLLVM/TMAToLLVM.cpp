//===- TMAToLLVM.cpp - mbarriers and TMA copies (sm_90) ----------------------===//
//
// The ttng barrier and TMA operations as inline PTX:
//   init / inval / arrive / expect_tx : one thread (thread 0 of the program)
//                                       where the op's predicate holds;
//   wait_barrier                      : every thread spins on try_wait.parity;
//   TMA copies                        : one thread issues
//     cp.async.bulk.tensor.<r>d.shared::cluster.global.mbarrier::complete_tx::bytes
//     (loads) or cp.async.bulk.tensor.<r>d.global.shared::cta.bulk_group plus
//     a commit (stores);
//   async_tma_store_wait              : cp.async.bulk.wait_group.read.
// A descriptor operand is the generic address of its CUtensorMap; a shared
// buffer the address of its first byte.
//
// Tensor maps made on the device (ttng.tensormap_create): the first warp
// zeroes 128 bytes of its shared scratch (rounded up to a 128-byte boundary),
// lane 0 sets every field with tensormap.replace (rank, address, sizes, byte
// strides, box, element strides, element type, swizzle, fill), and the warp
// copies the map to global memory with tensormap.cp_fenceproxy (a release to
// the tensormap proxy). ttng.tensormap_fenceproxy_acquire is run by thread 0,
// the thread that issues TMA copies.
//
// Boxes and the nvmma_shared layout: with a swizzle of W bytes, TMA moves
// boxes whose innermost extent is at most W bytes, and the nvmma layout
// stores the block as W-byte-wide column slabs one after another (each
// slab: all rows of W bytes, swizzled). A block whose inner extent is wider
// than W is therefore copied as innerBytes / W boxes, box j at inner
// coordinate + j * (W / element bytes) into slab j. The tensor map's box is
// the block shape with the inner extent cut to W bytes: the host encoder
// (NvidiaBackend.encode_tensor_map) uses the same rule.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/TTGToLLVM/TargetInfo.h"

#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"
#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Conversion/TTGToLLVM/Utility.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessera;

namespace {

Value inlineAsm(OpBuilder &b, Location loc, ValueRange operands, StringRef asmStr,
                StringRef constraints) {
  return ::tessera::nvidia::emitInlinePtx(b, loc, Type(), operands, asmStr, constraints);
}

/// The 32-bit shared-window address of a shared buffer (a ptr<3>).
Value sharedAddress(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

/// i1: this thread is the program's thread 0 (and `pred` holds, when given).
Value electOne(OpBuilder &b, Location loc, const TargetInfoBase &ti, Value pred = {}) {
  Value tid = ti.threadId(b, loc);
  Value first = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, i32Val(b, loc, 0));
  return pred ? LLVM::AndOp::create(b, loc, first, pred) : first;
}

template <typename Op>
struct BarrierPattern : public TesseraOpToLLVMPattern<Op> {
  using TesseraOpToLLVMPattern<Op>::TesseraOpToLLVMPattern;
  using OpAdaptor = typename Op::Adaptor;

  /// The op's PTX; `$0` is the predicate and `$1` the barrier's address.
  virtual std::string ptx(Op op) const = 0;
  virtual Value predicate(Op, OpAdaptor) const { return {}; }

  LogicalResult matchAndRewrite(Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (this->getTargetInfo().getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (mbarriers with transaction counts)");
    Value pred = electOne(rewriter, loc, this->getTargetInfo(), predicate(op, adaptor));
    inlineAsm(rewriter, loc, {pred, sharedAddress(rewriter, loc, adaptor.getAlloc())}, ptx(op),
              "b,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct InitBarrierConversion : BarrierPattern<ttng::InitBarrierOp> {
  using BarrierPattern::BarrierPattern;
  std::string ptx(ttng::InitBarrierOp op) const override {
    return "@$0 mbarrier.init.shared::cta.b64 [$1], " + std::to_string(op.getCount()) + ";";
  }
};

struct InvalBarrierConversion : BarrierPattern<ttng::InvalBarrierOp> {
  using BarrierPattern::BarrierPattern;
  std::string ptx(ttng::InvalBarrierOp) const override {
    return "@$0 mbarrier.inval.shared::cta.b64 [$1];";
  }
};

struct BarrierExpectConversion : BarrierPattern<ttng::BarrierExpectOp> {
  using BarrierPattern::BarrierPattern;
  std::string ptx(ttng::BarrierExpectOp op) const override {
    return "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], " +
           std::to_string(op.getSize()) + ";";
  }
  Value predicate(ttng::BarrierExpectOp, OpAdaptor adaptor) const override {
    return adaptor.getPred();
  }
};

struct ArriveBarrierConversion : BarrierPattern<ttng::ArriveBarrierOp> {
  using BarrierPattern::BarrierPattern;
  std::string ptx(ttng::ArriveBarrierOp op) const override {
    return "@$0 mbarrier.arrive.shared::cta.b64 _, [$1], " + std::to_string(op.getCount()) + ";";
  }
  Value predicate(ttng::ArriveBarrierOp, OpAdaptor adaptor) const override {
    return adaptor.getPred();
  }
};

struct WaitBarrierConversion : public TesseraOpToLLVMPattern<ttng::WaitBarrierOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::WaitBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (getTargetInfo().getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (mbarrier.try_wait)");
    Value parity = LLVM::AndOp::create(rewriter, loc, adaptor.getPhase(), i32Val(rewriter, loc, 1));
    // try_wait suspends for a while when the phase is not complete yet;
    // ${:uid} keeps the label unique per inlined copy.
    inlineAsm(rewriter, loc, {sharedAddress(rewriter, loc, adaptor.getAlloc()), parity},
              "{\n"
              ".reg .pred done;\n"
              "tessera_wait_${:uid}:\n"
              "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
              "@!done bra.uni tessera_wait_${:uid};\n"
              "}",
              "r,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The boxes a block is copied in: per box, its byte offset in the shared
/// buffer and the offset added to the innermost coordinate.
struct Box {
  int64_t sharedOffset, innerOffset;
};

SmallVector<Box> boxesOf(tt::TensorDescType desc, ttg::MemDescType buf) {
  auto enc = cast<ttg::NVMMASharedEncodingAttr>(buf.getEncoding());
  RankedTensorType block = desc.getBlockType();
  int64_t eltBytes = std::max<int64_t>(1, block.getElementTypeBitWidth() / 8);
  int64_t inner = block.getShape().back();
  int64_t outer = 1;
  for (int64_t d : block.getShape().drop_back())
    outer *= d;
  int64_t swizzle = enc.getSwizzlingByteWidth();
  int64_t perBox = swizzle ? std::min<int64_t>(inner, swizzle / eltBytes) : inner;
  SmallVector<Box> boxes;
  for (int64_t j = 0; j * perBox < inner; ++j)
    boxes.push_back({j * perBox * outer * eltBytes, j * perBox});
  return boxes;
}

/// "{$a, $b, ...}" for `count` operands from `first`, and the coordinate
/// values innermost first (PTX's order; the op's is outermost first), each
/// box's inner offset added.
std::string coordList(unsigned first, size_t count) {
  std::string s = "{";
  for (size_t i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + "}";
}

SmallVector<Value> ptxCoords(OpBuilder &b, Location loc, ValueRange coord, int64_t innerOffset) {
  SmallVector<Value> out(coord.begin(), coord.end());
  std::reverse(out.begin(), out.end());
  if (innerOffset)
    out[0] = LLVM::AddOp::create(b, loc, out[0], i32Val(b, loc, innerOffset));
  return out;
}

Value descriptorAddress(OpBuilder &b, Location loc, Value desc) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), desc);
}

Value offsetShared(OpBuilder &b, Location loc, Value base, int64_t bytes) {
  if (!bytes)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(bytes)});
}

struct TMALoadConversion : public TesseraOpToLLVMPattern<ttng::AsyncTMACopyGlobalToLocalOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (getTargetInfo().getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (TMA)");
    auto desc = op.getDesc().getType();
    auto buf = cast<ttg::MemDescType>(op.getResult().getType());
    size_t rank = desc.getBlockType().getRank();
    Value pred = electOne(rewriter, loc, getTargetInfo(), adaptor.getPred());
    Value tmap = descriptorAddress(rewriter, loc, adaptor.getDesc());
    Value bar = sharedAddress(rewriter, loc, adaptor.getBarrier());
    std::string text = "@$0 cp.async.bulk.tensor." + std::to_string(rank) +
                       "d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, " +
                       coordList(3, rank) + "], [$" + std::to_string(3 + rank) + "];";
    std::string constraints = "b,r,l";
    for (size_t i = 0; i < rank; ++i)
      constraints += ",r";
    constraints += ",r,~{memory}";
    for (const Box &box : boxesOf(desc, buf)) {
      SmallVector<Value> operands{pred,
                                  sharedAddress(rewriter, loc,
                                                offsetShared(rewriter, loc, adaptor.getResult(),
                                                             box.sharedOffset)),
                                  tmap};
      operands.append(ptxCoords(rewriter, loc, adaptor.getCoord(), box.innerOffset));
      operands.push_back(bar);
      inlineAsm(rewriter, loc, operands, text, constraints);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreConversion : public TesseraOpToLLVMPattern<ttng::AsyncTMACopyLocalToGlobalOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::AsyncTMACopyLocalToGlobalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (getTargetInfo().getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (TMA)");
    auto desc = op.getDesc().getType();
    auto buf = cast<ttg::MemDescType>(op.getSrc().getType());
    size_t rank = desc.getBlockType().getRank();
    Value pred = electOne(rewriter, loc, getTargetInfo());
    Value tmap = descriptorAddress(rewriter, loc, adaptor.getDesc());
    std::string text = "@$0 cp.async.bulk.tensor." + std::to_string(rank) +
                       "d.global.shared::cta.bulk_group [$1, " + coordList(2, rank) + "], [$" +
                       std::to_string(2 + rank) + "];";
    std::string constraints = "b,l";
    for (size_t i = 0; i < rank; ++i)
      constraints += ",r";
    constraints += ",r,~{memory}";
    for (const Box &box : boxesOf(desc, buf)) {
      SmallVector<Value> operands{pred, tmap};
      operands.append(ptxCoords(rewriter, loc, adaptor.getCoord(), box.innerOffset));
      operands.push_back(sharedAddress(
          rewriter, loc, offsetShared(rewriter, loc, adaptor.getSrc(), box.sharedOffset)));
      inlineAsm(rewriter, loc, operands, text, constraints);
    }
    inlineAsm(rewriter, loc, {pred}, "@$0 cp.async.bulk.commit_group;", "b,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitConversion : public TesseraOpToLLVMPattern<ttng::AsyncTMAStoreWaitOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::AsyncTMAStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (getTargetInfo().getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (TMA)");
    inlineAsm(rewriter, op.getLoc(), {},
              "cp.async.bulk.wait_group.read " + std::to_string(op.getPendings()) + ";",
              "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// Shared scratch of ttng.tensormap_create: 128 bytes on a 128-byte boundary
/// (scratch buffers are 16-byte aligned; the address is rounded up).
constexpr int64_t kTensormapBytes = 128;

struct TensormapCreateConversion : public TesseraOpToLLVMPattern<ttng::TensormapCreateOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::TensormapCreateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TargetInfoBase &ti = getTargetInfo();
    if (ti.getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (tensormap.replace)");
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op.emitOpError("needs shared memory; run ttg-allocate-shared-memory first");
    Value base = getSharedMemoryAddress(rewriter, loc, op, ti, offsetAttr.getInt());
    // The map's shared address, rounded up to 128 bytes.
    Value addr = sharedAddress(rewriter, loc, base);
    addr = LLVM::AndOp::create(rewriter, loc,
                               LLVM::AddOp::create(rewriter, loc, addr,
                                                   i32Val(rewriter, loc, kTensormapBytes - 1)),
                               i32Val(rewriter, loc, int32_t(-kTensormapBytes)));
    auto [lane, warp] = laneAndWarp(rewriter, loc, ti);
    Value warp0 = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, warp,
                                       i32Val(rewriter, loc, 0));
    Value lane0 = LLVM::AndOp::create(
        rewriter, loc, warp0,
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, lane,
                             i32Val(rewriter, loc, 0)));
    // 1. Zero the map: 4 bytes per lane of the first warp.
    Value mine = LLVM::AddOp::create(rewriter, loc, addr,
                                     LLVM::ShlOp::create(rewriter, loc, lane, i32Val(rewriter, loc, 2)));
    Value lanesCover = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, lane,
                                            i32Val(rewriter, loc, kTensormapBytes / 4));
    inlineAsm(rewriter, loc, {LLVM::AndOp::create(rewriter, loc, warp0, lanesCover), mine},
              "@$0 st.shared.b32 [$1], 0;", "b,r,~{memory}");
    inlineAsm(rewriter, loc, {warp0}, "@$0 bar.warp.sync -1;", "b,~{memory}");
    // 2. Every field, by lane 0 (dimension lists innermost first).
    auto replace = [&](StringRef field, StringRef type, std::optional<int> ord, Value v,
                       std::optional<int64_t> imm = std::nullopt) {
      std::string text = ("@$0 tensormap.replace.tile." + field + ".shared::cta.b1024." + type +
                          " [$1], ").str();
      if (ord)
        text += std::to_string(*ord) + ", ";
      SmallVector<Value> operands{lane0, addr};
      std::string constraints = "b,r";
      if (v) {
        text += "$2;";
        operands.push_back(v);
        constraints += type == "b64" ? ",l" : ",r";
      } else {
        text += std::to_string(*imm) + ";";
      }
      inlineAsm(rewriter, loc, operands, text, constraints + ",~{memory}");
    };
    size_t rank = adaptor.getGlobalDim().size();
    Value address = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                             adaptor.getGlobalAddress());
    replace("global_address", "b64", std::nullopt, address);
    replace("rank", "b32", std::nullopt, Value(), int64_t(rank) - 1);
    for (size_t i = 0; i < rank; ++i) {
      replace("box_dim", "b32", int(i), adaptor.getBoxDim()[i]);
      replace("global_dim", "b32", int(i), adaptor.getGlobalDim()[i]);
      if (i + 1 < rank)
        replace("global_stride", "b64", int(i), adaptor.getGlobalStride()[i]);
      replace("element_stride", "b32", int(i), adaptor.getElementStride()[i]);
    }
    replace("elemtype", "b32", std::nullopt, Value(), op.getElemType());
    replace("interleave_layout", "b32", std::nullopt, Value(), op.getInterleaveLayout());
    replace("swizzle_mode", "b32", std::nullopt, Value(), op.getSwizzleMode());
    replace("fill_mode", "b32", std::nullopt, Value(), op.getFillMode());
    inlineAsm(rewriter, loc, {warp0}, "@$0 bar.warp.sync -1;", "b,~{memory}");
    // 3. The warp copies the map out, released to the tensormap proxy.
    Value global = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                            adaptor.getDescPtr());
    inlineAsm(rewriter, loc, {warp0, global, addr},
              "@$0 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu"
              ".sync.aligned [$1], [$2], 128;",
              "b,l,r,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct TensormapAcquireConversion
    : public TesseraOpToLLVMPattern<ttng::TensormapFenceproxyAcquireOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::TensormapFenceproxyAcquireOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (getTargetInfo().getDescriptorBytes() == 0)
      return op.emitOpError("needs sm_90 or newer (fence.proxy.tensormap)");
    Value global = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                            adaptor.getDescPtr());
    inlineAsm(rewriter, loc, {electOne(rewriter, loc, getTargetInfo()), global},
              "@$0 fence.proxy.tensormap::generic.acquire.gpu [$1], 128;", "b,l,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The map's global address as the descriptor (a generic pointer: global
/// addresses are generic ones).
struct ReinterpretTensorDescConversion
    : public TesseraOpToLLVMPattern<ttng::ReinterpretTensorDescOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult matchAndRewrite(ttng::ReinterpretTensorDescOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type generic = getTypeConverter()->convertType(op.getType());
    Value raw = adaptor.getRawDesc();
    if (raw.getType() != generic)
      raw = LLVM::AddrSpaceCastOp::create(rewriter, op.getLoc(), generic, raw);
    rewriter.replaceOp(op, raw);
    return success();
  }
};

} // namespace

namespace tessera::nvidia {

std::optional<int64_t> getTMAScratchBytes(mlir::Operation *op) {
  if (isa<ttng::TensormapCreateOp>(op))
    return 2 * kTensormapBytes;
  return std::nullopt;
}

void populateTMAPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                         mlir::RewritePatternSet &patterns) {
  patterns.add<InitBarrierConversion, InvalBarrierConversion, BarrierExpectConversion,
               ArriveBarrierConversion, WaitBarrierConversion, TMALoadConversion,
               TMAStoreConversion, TMAStoreWaitConversion, TensormapCreateConversion,
               TensormapAcquireConversion, ReinterpretTensorDescConversion>(typeConverter);
}

} // namespace tessera::nvidia
