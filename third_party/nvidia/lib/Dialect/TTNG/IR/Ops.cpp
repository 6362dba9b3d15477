//===- Ops.cpp - ttng operations: verifiers and memory effects ------------===//

#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::ttng;

#define GET_OP_CLASSES
#include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGOps.cpp.inc"

using tt::shapeToString;

//===----------------------------------------------------------------------===//
// WarpGroupDotOp
//===----------------------------------------------------------------------===//

LogicalResult WarpGroupDotOp::verify() {
  auto c = cast<RankedTensorType>(getC().getType());
  auto d = cast<RankedTensorType>(getD().getType());
  if (c != d)
    return emitOpError() << "expected the result to have the accumulator "
                            "type "
                         << c << ", but it is " << d;
  if (!isa<ttg::MemDescType>(getB().getType()))
    return emitOpError() << "expected b in shared memory (a !ttg.memdesc): "
                            "wgmma reads B only from shared memory, but b is "
                         << getB().getType();
  auto a = cast<ShapedType>(getA().getType());
  auto b = cast<ShapedType>(getB().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError() << "expected a, b and c of rank 2, but they have "
                            "ranks "
                         << a.getRank() << ", " << b.getRank() << " and "
                         << c.getRank();
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError() << "expected the K dimensions to match, but a is "
                         << shapeToString(a.getShape())
                         << " (K = " << a.getDimSize(1) << ") and b is "
                         << shapeToString(b.getShape())
                         << " (K = " << b.getDimSize(0) << ")";
  if (c.getDimSize(0) != a.getDimSize(0) || c.getDimSize(1) != b.getDimSize(1))
    return emitOpError() << "expected the accumulator shape to be [M, N] = "
                         << shapeToString({a.getDimSize(0), b.getDimSize(1)})
                         << ", but it is " << shapeToString(c.getShape());

  Type ae = a.getElementType(), be = b.getElementType(),
       ce = c.getElementType();
  bool bothFp8 = isa<FloatType>(ae) && isa<FloatType>(be) &&
                 ae.getIntOrFloatBitWidth() == 8 &&
                 be.getIntOrFloatBitWidth() == 8;
  if (ae != be && !bothFp8)
    return emitOpError() << "expected a and b of the same element type, but "
                            "got "
                         << ae << " and " << be;
  if (isa<IntegerType>(ae)) {
    if (!ce.isInteger(32))
      return emitOpError() << "expected an i32 accumulator for integer "
                              "operands, but it is "
                           << ce;
  } else if (!ce.isF32() && !ce.isF16()) {
    return emitOpError() << "expected an f32 or f16 accumulator for "
                            "floating-point operands, but it is "
                         << ce;
  }

  if (Attribute layout = c.getEncoding()) {
    auto mma = dyn_cast<ttg::NvidiaMmaEncodingAttr>(layout);
    if (!mma || !mma.isHopper())
      return emitOpError() << "expected the accumulator to have a "
                              "#ttg.nvidia_mma version 3 layout, but it has "
                           << layout;
  }
  if (auto aTensor = dyn_cast<RankedTensorType>(getA().getType()))
    if (Attribute layout = aTensor.getEncoding()) {
      auto dot = dyn_cast<ttg::DotOperandEncodingAttr>(layout);
      if (!dot || dot.getOpIdx() != 0 || dot.getParent() != c.getEncoding())
        return emitOpError()
               << "expected a in registers to have a #ttg.dot_op layout with "
                  "opIdx = 0 and the accumulator's layout as parent, but it "
                  "has "
               << layout;
    }
  int32_t maxImprecise = static_cast<int32_t>(getMaxNumImpreciseAcc());
  if (maxImprecise < 0)
    return emitOpError() << "expected maxNumImpreciseAcc >= 0, but it is "
                         << maxImprecise;
  return success();
}

void WarpGroupDotOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand *operand : {&getAMutable(), &getBMutable()})
    if (isa<ttg::MemDescType>(operand->get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), operand,
                           ttg::SharedMemory::get());
}

//===----------------------------------------------------------------------===//
// WarpGroupDotWaitOp
//===----------------------------------------------------------------------===//

LogicalResult WarpGroupDotWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  for (Value operand : operands)
    inferredReturnTypes.push_back(operand.getType());
  return success();
}

LogicalResult WarpGroupDotWaitOp::verify() {
  // The custom form `$inputs attr-dict : type($inputs)` cannot express an
  // empty list, and a wait that orders nothing has no use.
  if (getInputs().empty())
    return emitOpError() << "expected at least one operand (the dot results "
                            "and buffers the wait orders), but it has none";
  int32_t pendings = static_cast<int32_t>(getPendings());
  if (pendings < 0)
    return emitOpError() << "expected pendings >= 0 (dots left in flight), "
                            "but it is "
                         << pendings;
  return success();
}

//===----------------------------------------------------------------------===//
// mbarrier operations
//===----------------------------------------------------------------------===//

/// An mbarrier is one 64-bit word of shared memory: a `1xi64` buffer. Ops
/// that change its state need it mutable.
static LogicalResult verifyBarrier(Operation *op, Value alloc, StringRef what,
                                   bool needsMutable) {
  auto t = cast<ttg::MemDescType>(alloc.getType());
  if (t.getShape().size() != 1 || t.getShape()[0] != 1 ||
      !t.getElementType().isInteger(64))
    return op->emitOpError() << "expected " << what
                             << " to be an mbarrier, a 1xi64 buffer in shared "
                                "memory, but it is "
                             << t;
  if (needsMutable && !t.getMutableMemory())
    return op->emitOpError() << "expected " << what
                             << " to be mutable (the barrier's state "
                                "changes), but it is "
                             << t;
  return success();
}

// The hardware's counts: arrivals and transaction bytes are 20-bit fields.
static constexpr int64_t kMaxBarrierCount = (1 << 20) - 1;

LogicalResult InitBarrierOp::verify() {
  if (failed(verifyBarrier(*this, getAlloc(), "the operand", true)))
    return failure();
  int64_t count = static_cast<int32_t>(getCount());
  if (count < 1 || count > kMaxBarrierCount)
    return emitOpError() << "expected an arrival count in 1.." << kMaxBarrierCount
                         << ", but it is " << count;
  return success();
}

LogicalResult InvalBarrierOp::verify() {
  return verifyBarrier(*this, getAlloc(), "the operand", true);
}

LogicalResult BarrierExpectOp::verify() {
  if (failed(verifyBarrier(*this, getAlloc(), "the operand", true)))
    return failure();
  int64_t size = static_cast<int32_t>(getSize());
  if (size < 0 || size > kMaxBarrierCount)
    return emitOpError() << "expected a byte count in 0.." << kMaxBarrierCount
                         << ", but it is " << size;
  return success();
}

LogicalResult WaitBarrierOp::verify() {
  return verifyBarrier(*this, getAlloc(), "the operand", false);
}

LogicalResult ArriveBarrierOp::verify() {
  if (failed(verifyBarrier(*this, getAlloc(), "the operand", true)))
    return failure();
  int64_t count = static_cast<int32_t>(getCount());
  if (count < 1 || count > kMaxBarrierCount)
    return emitOpError() << "expected an arrival count in 1.." << kMaxBarrierCount
                         << ", but it is " << count;
  return success();
}

//===----------------------------------------------------------------------===//
// TMA copies
//===----------------------------------------------------------------------===//

/// What both directions check: one coordinate per dimension of the block, a
/// block the TMA unit can move (rank 1..5, each box dimension at most 256,
/// the innermost extent a multiple of 16 bytes), and a buffer of the block's
/// shape and element type in the NVMMA shared layout.
static LogicalResult verifyTMACopy(Operation *op, tt::TensorDescType desc,
                                   size_t numCoords, ttg::MemDescType buf,
                                   StringRef bufName) {
  RankedTensorType block = desc.getBlockType();
  int64_t rank = block.getRank();
  if (static_cast<int64_t>(numCoords) != rank)
    return op->emitOpError() << "expected " << rank
                             << " coordinates (one per dimension of the block "
                             << shapeToString(block.getShape()) << "), but it has "
                             << numCoords;
  if (rank < 1 || rank > 5)
    return op->emitOpError() << "expected a block of rank 1 to 5 (what TMA "
                                "copies), but it has rank "
                             << rank;
  for (int64_t d = 0; d < rank; ++d)
    if (block.getDimSize(d) > 256)
      return op->emitOpError() << "expected every block dimension to be at "
                                  "most 256 (TMA's box limit), but dimension "
                               << d << " is " << block.getDimSize(d);
  unsigned bits = block.getElementType().getIntOrFloatBitWidth();
  int64_t innerBytes = block.getShape().back() * bits / 8;
  if (innerBytes % 16)
    return op->emitOpError() << "expected the block's innermost extent to be a "
                                "multiple of 16 bytes (TMA's granule), but it is "
                             << innerBytes << " bytes ("
                             << block.getShape().back() << " x " << bits
                             << "-bit elements)";
  if (buf.getShape() != block.getShape() ||
      buf.getElementType() != block.getElementType())
    return op->emitOpError() << "expected " << bufName << " to hold the block "
                             << block << ", but it is " << buf;
  if (!isa<ttg::NVMMASharedEncodingAttr>(buf.getEncoding()))
    return op->emitOpError() << "expected " << bufName
                             << " in the #ttg.nvmma_shared layout (the "
                                "swizzle TMA writes and reads), but its layout "
                                "is "
                             << buf.getEncoding();
  return success();
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  auto result = cast<ttg::MemDescType>(getResult().getType());
  if (failed(verifyTMACopy(*this, getDesc().getType(), getCoord().size(), result,
                           "the destination")))
    return failure();
  if (!result.getMutableMemory())
    return emitOpError() << "expected a mutable destination buffer, but it is "
                         << result;
  return verifyBarrier(*this, getBarrier(), "the barrier", true);
}

LogicalResult AsyncTMACopyLocalToGlobalOp::verify() {
  return verifyTMACopy(*this, getDesc().getType(), getCoord().size(),
                       cast<ttg::MemDescType>(getSrc().getType()), "the source");
}

LogicalResult AsyncTMAStoreWaitOp::verify() {
  int32_t pendings = static_cast<int32_t>(getPendings());
  if (pendings < 0)
    return emitOpError() << "expected pendings >= 0 (stores left reading "
                            "shared memory), but it is "
                         << pendings;
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor maps made on the device
//===----------------------------------------------------------------------===//

LogicalResult TensormapCreateOp::verify() {
  size_t rank = getGlobalDim().size();
  if (rank < 1 || rank > 5)
    return emitOpError() << "expected 1 to 5 global dimensions (a tensor map's rank), but it has "
                         << rank;
  if (getBoxDim().size() != rank)
    return emitOpError() << "expected " << rank << " box dimensions (one per global dimension), "
                         << "but it has " << getBoxDim().size();
  if (getElementStride().size() != rank)
    return emitOpError() << "expected " << rank << " element strides (one per global dimension), "
                         << "but it has " << getElementStride().size();
  if (getGlobalStride().size() != rank - 1)
    return emitOpError() << "expected " << rank - 1 << " global strides (one per global dimension "
                         << "but the innermost), but it has " << getGlobalStride().size();
  struct Field {
    const char *name;
    int32_t value, max;
  } fields[] = {{"elem_type", int32_t(getElemType()), 15},
                {"interleave_layout", int32_t(getInterleaveLayout()), 2},
                {"swizzle_mode", int32_t(getSwizzleMode()), 4},
                {"fill_mode", int32_t(getFillMode()), 1}};
  for (const Field &f : fields)
    if (f.value < 0 || f.value > f.max)
      return emitOpError() << "expected " << f.name << " in 0.." << f.max
                           << " (its tensormap.replace encoding), but it is " << f.value;
  for (Value box : getBoxDim()) {
    APInt v;
    if (matchPattern(box, m_ConstantInt(&v)) &&
        (v.getSExtValue() < 1 || v.getSExtValue() > 256))
      return emitOpError() << "expected every box dimension in 1..256 (TMA's box limit), but one "
                           << "is " << v.getSExtValue();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Memory effects: on the buffers named, so that ttg-membar sees them
//===----------------------------------------------------------------------===//

namespace {
using EffectList =
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>;

void sharedRead(EffectList &effects, OpOperand &operand) {
  effects.emplace_back(MemoryEffects::Read::get(), &operand, ttg::SharedMemory::get());
}
void sharedWrite(EffectList &effects, OpOperand &operand) {
  effects.emplace_back(MemoryEffects::Write::get(), &operand, ttg::SharedMemory::get());
}
} // namespace

// Init and inval write the barrier word as ordinary memory: other threads'
// uses must be ordered after an init and before an inval (ttg-membar puts a
// CTA barrier there). Arrivals, expect-tx, the copies' completion and waits
// are the mbarrier's own atomic operations, which need no CTA barrier between
// them: on the buffer they are reads. They still change state, so each also
// writes the default resource (no buffer: ttg-membar ignores it), which keeps
// them from being erased as dead reads.
namespace {
void stateChange(EffectList &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}
} // namespace

void InitBarrierOp::getEffects(EffectList &effects) { sharedWrite(effects, getAllocMutable()); }
void InvalBarrierOp::getEffects(EffectList &effects) { sharedWrite(effects, getAllocMutable()); }
void BarrierExpectOp::getEffects(EffectList &effects) {
  sharedRead(effects, getAllocMutable());
  stateChange(effects);
}
void WaitBarrierOp::getEffects(EffectList &effects) {
  sharedRead(effects, getAllocMutable());
  stateChange(effects);
}
void ArriveBarrierOp::getEffects(EffectList &effects) {
  sharedRead(effects, getAllocMutable());
  stateChange(effects);
}

void AsyncTMACopyGlobalToLocalOp::getEffects(EffectList &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), tt::GlobalMemory::get());
  sharedWrite(effects, getResultMutable());
  sharedRead(effects, getBarrierMutable());
}

void AsyncTMACopyLocalToGlobalOp::getEffects(EffectList &effects) {
  sharedRead(effects, getSrcMutable());
  effects.emplace_back(MemoryEffects::Write::get(), tt::GlobalMemory::get());
}
