//===- Ops.cpp - ttng operations: verifiers and memory effects ------------===//

#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"

#include "mlir/IR/Builders.h"
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
