//===- Ops.cpp - ttg operations: verifiers, folds, custom syntax ----------===//

#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::ttg;

/// `0, 16` inside the brackets of ttg.memdesc_subslice.
static ParseResult parseOffsets(OpAsmParser &parser,
                                DenseI32ArrayAttr &offsets) {
  SmallVector<int32_t> values;
  if (parser.parseCommaSeparatedList([&] {
        int32_t v;
        if (parser.parseInteger(v))
          return failure();
        values.push_back(v);
        return success();
      }))
    return failure();
  offsets = parser.getBuilder().getDenseI32ArrayAttr(values);
  return success();
}

static void printOffsets(OpAsmPrinter &printer, Operation *,
                         DenseI32ArrayAttr offsets) {
  llvm::interleaveComma(offsets.asArrayRef(), printer);
}

#define GET_OP_CLASSES
#include "tessera/Dialect/TTG/IR/TTGOps.cpp.inc"

using tt::shapeToString;

namespace {

/// Same shape and element type for a tensor and a buffer (or two of either).
LogicalResult verifySameShapeAndElement(Operation *op, Type expected,
                                        Type actual, StringRef expectedWhat,
                                        StringRef actualWhat) {
  auto e = cast<ShapedType>(expected), a = cast<ShapedType>(actual);
  if (e.getShape() != a.getShape())
    return op->emitOpError()
           << "expected " << actualWhat << " to have the shape of "
           << expectedWhat << ", " << shapeToString(e.getShape())
           << ", but it has " << shapeToString(a.getShape());
  if (e.getElementType() != a.getElementType())
    return op->emitOpError()
           << "expected " << actualWhat << " to have the element type of "
           << expectedWhat << ", " << e.getElementType() << ", but it has "
           << a.getElementType();
  return success();
}

LogicalResult verifyMutable(Operation *op, MemDescType type, StringRef what) {
  if (!type.getMutableMemory())
    return op->emitOpError() << "expected " << what
                             << " to be a mutable buffer, but it is " << type;
  return success();
}

/// A view keeps layout (unless `sameLayout` is false), memory space and
/// mutability; its element type is the source's.
LogicalResult verifyViewOf(Operation *op, MemDescType src, MemDescType result,
                           bool sameLayout) {
  if (src.getElementType() != result.getElementType())
    return op->emitOpError()
           << "expected the result to have the source's element type "
           << src.getElementType() << ", but it has "
           << result.getElementType();
  if (sameLayout && src.getEncoding() != result.getEncoding())
    return op->emitOpError()
           << "expected the result to have the source's "
              "layout "
           << src.getEncoding() << ", but it has " << result.getEncoding();
  if (src.getMemorySpace() != result.getMemorySpace())
    return op->emitOpError() << "expected the result in the source's memory "
                                "space "
                             << src.getMemorySpace() << ", but it is in "
                             << result.getMemorySpace();
  if (src.getMutableMemory() != result.getMutableMemory())
    return op->emitOpError()
           << "expected the result to be "
           << (src.getMutableMemory() ? "mutable" : "immutable")
           << " like the source, but it is "
           << (result.getMutableMemory() ? "mutable" : "immutable");
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  return verifySameShapeAndElement(*this, getSrc().getType(), getType(),
                                   "the source", "the result");
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // A splat constant is the same constant in any layout.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  // convert(convert(x)) converts x directly.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult LocalAllocOp::verify() {
  MemDescType type = getType();
  if (type.getAllocShape() != type.getShape())
    return emitOpError() << "expected a whole allocation, whose allocation "
                            "shape equals its shape "
                         << shapeToString(type.getShape())
                         << ", but the allocation shape is "
                         << shapeToString(type.getAllocShape());
  if (std::optional<uint32_t> alignment = getAlignment())
    if (static_cast<int32_t>(*alignment) <= 0 ||
        !llvm::isPowerOf2_32(*alignment))
      return emitOpError() << "expected an alignment that is a positive "
                              "power of two, but it is "
                           << static_cast<int32_t>(*alignment);
  if (!getSrc()) {
    if (!type.getMutableMemory())
      return emitOpError() << "expected a mutable buffer when there is no "
                              "source (it would stay uninitialized), but the "
                              "result is "
                           << type;
    return success();
  }
  return verifySameShapeAndElement(*this, getSrc().getType(), type,
                                   "the source", "the buffer");
}

void LocalAllocOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  OpResult result = getOperation()->getOpResult(0);
  effects.emplace_back(MemoryEffects::Allocate::get(), result,
                       SharedMemory::get());
  if (getSrc())
    effects.emplace_back(MemoryEffects::Write::get(), result,
                         SharedMemory::get());
}

LogicalResult LocalDeallocOp::verify() {
  Operation *def = getSrc().getDefiningOp();
  if (def &&
      isa<MemDescIndexOp, MemDescSubsliceOp, MemDescTransOp, MemDescReshapeOp>(
          def))
    return emitOpError() << "expected a buffer made by ttg.local_alloc, but "
                            "the operand is a view made by '"
                         << def->getName() << "'";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifySameShapeAndElement(*this, getSrc().getType(), getType(),
                                   "the buffer", "the result");
}

LogicalResult LocalStoreOp::verify() {
  if (failed(verifyMutable(*this, getDst().getType(), "the destination")))
    return failure();
  return verifySameShapeAndElement(*this, getDst().getType(),
                                   getSrc().getType(), "the buffer",
                                   "the stored tensor");
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getRank() < 2)
    return emitOpError() << "expected a source of rank 2 or more (a stack of "
                            "buffers), but it has shape "
                         << shapeToString(src.getShape());
  if (result.getShape() != src.getShape().drop_front())
    return emitOpError() << "expected the result shape "
                         << shapeToString(src.getShape().drop_front())
                         << " (the source's without its first dimension), "
                            "but it is "
                         << shapeToString(result.getShape());
  if (src.getAllocShape().size() < 2 ||
      result.getAllocShape() != src.getAllocShape().drop_front())
    return emitOpError() << "expected the result's allocation shape "
                         << shapeToString(src.getAllocShape().drop_front())
                         << " (the source's without its first dimension), "
                            "but it is "
                         << shapeToString(result.getAllocShape());
  return verifyViewOf(*this, src, result, /*sameLayout=*/true);
}

LogicalResult MemDescSubsliceOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  ArrayRef<int32_t> offsets = getOffsets();
  if (result.getRank() != src.getRank())
    return emitOpError() << "expected a result of the source's rank "
                         << src.getRank() << ", but its shape is "
                         << shapeToString(result.getShape());
  if (static_cast<int64_t>(offsets.size()) != src.getRank())
    return emitOpError() << "expected " << src.getRank()
                         << " offsets (one per dimension), but got "
                         << offsets.size();
  for (int64_t d = 0; d < src.getRank(); ++d) {
    int64_t lo = offsets[d], hi = lo + result.getDimSize(d);
    if (lo < 0 || hi > src.getDimSize(d))
      return emitOpError() << "expected the slice [" << lo << ", " << hi
                           << ") of dimension " << d << " to lie within [0, "
                           << src.getDimSize(d) << ")";
  }
  if (result.getAllocShape() != src.getAllocShape())
    return emitOpError() << "expected the result to keep the source's "
                            "allocation shape "
                         << shapeToString(src.getAllocShape()) << ", but it is "
                         << shapeToString(result.getAllocShape());
  return verifyViewOf(*this, src, result, /*sameLayout=*/true);
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  ArrayRef<int32_t> order = getOrder();
  int64_t rank = src.getRank();
  llvm::SmallSet<int32_t, 8> seen;
  if (static_cast<int64_t>(order.size()) != rank ||
      llvm::any_of(order, [&](int32_t d) {
        return d < 0 || d >= rank || !seen.insert(d).second;
      }))
    return emitOpError() << "expected order to be a permutation of [0, " << rank
                         << "), but it is "
                         << shapeToString(SmallVector<int64_t>(order));
  SmallVector<int64_t> expected;
  for (int32_t d : order)
    expected.push_back(src.getDimSize(d));
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected the result shape "
                         << shapeToString(expected)
                         << " (the source's permuted by order), but it is "
                         << shapeToString(result.getShape());
  return verifyViewOf(*this, src, result, /*sameLayout=*/false);
}

LogicalResult MemDescReshapeOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getNumElements() != result.getNumElements())
    return emitOpError() << "expected the result to have the source's "
                         << src.getNumElements() << " elements, but its shape "
                         << shapeToString(result.getShape()) << " has "
                         << result.getNumElements();
  return verifyViewOf(*this, src, result, /*sameLayout=*/false);
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  MemDescType dst = getDst().getType();
  auto ptr = cast<tt::PointerType>(src.getElementType());
  if (ptr.isBlockPointer())
    return emitOpError() << "expected a tensor of scalar pointers, but got "
                         << src;
  if (failed(verifyMutable(*this, dst, "the destination")))
    return failure();
  if (dst.getShape() != src.getShape())
    return emitOpError() << "expected the buffer to have the pointers' shape "
                         << shapeToString(src.getShape()) << ", but it has "
                         << shapeToString(dst.getShape());
  if (dst.getElementType() != ptr.getPointeeType())
    return emitOpError() << "expected the buffer to hold the pointee type "
                         << ptr.getPointeeType() << ", but it holds "
                         << dst.getElementType();
  if (Value mask = getMask()) {
    Type expected = tt::getI1SameShape(src);
    if (mask.getType() != expected)
      return emitOpError() << "expected a mask of type " << expected
                           << ", but it is " << mask.getType();
  }
  if (Value other = getOther()) {
    Type expected = tt::getPointeeType(src);
    if (other.getType() != expected)
      return emitOpError() << "expected other of type " << expected
                           << " (the loaded type), but it is "
                           << other.getType();
  }
  int32_t contiguity = static_cast<int32_t>(getContiguity());
  if (contiguity < 1)
    return emitOpError() << "expected contiguity >= 1, but it is "
                         << contiguity;
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  int32_t num = static_cast<int32_t>(getNum());
  if (num < 0)
    return emitOpError() << "expected num >= 0 (groups left in flight), but "
                            "it is "
                         << num;
  return success();
}

//===----------------------------------------------------------------------===//
// Global scratch memory
//===----------------------------------------------------------------------===//

LogicalResult GlobalScratchAllocOp::verify() {
  auto expected = tt::PointerType::get(IntegerType::get(getContext(), 8),
                                       /*addressSpace=*/1);
  if (getType() != expected)
    return emitOpError() << "expected the result type " << expected
                         << ", but it is " << getType();
  int32_t nbytes = static_cast<int32_t>(getNbytes());
  int32_t alignment = static_cast<int32_t>(getAlignment());
  if (nbytes < 0)
    return emitOpError() << "expected nbytes >= 0, but it is " << nbytes;
  if (alignment <= 0 || !llvm::isPowerOf2_32(alignment))
    return emitOpError() << "expected an alignment that is a positive power "
                            "of two, but it is "
                         << alignment;
  return success();
}
