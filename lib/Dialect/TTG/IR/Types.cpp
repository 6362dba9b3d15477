//===- Types.cpp - ttg types: memory descriptors and async tokens ---------===//

#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::ttg;

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/TTG/IR/TTGTypes.cpp.inc"

void TTGDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessera/Dialect/TTG/IR/TTGTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// AsyncTokenType
//===----------------------------------------------------------------------===//

/// `!ttg.async.token`, with nothing after it (the generated parser of a
/// parameterless type would ignore a `<...>` that follows).
Type AsyncTokenType::parse(AsmParser &parser) {
  if (succeeded(parser.parseOptionalLess())) {
    parser.emitError(parser.getCurrentLocation(),
                     "!ttg.async.token takes no parameters");
    return {};
  }
  return get(parser.getContext());
}

void AsyncTokenType::print(AsmPrinter &) const {}

//===----------------------------------------------------------------------===//
// MemDescType
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kMutable = "mutable";

/// `<` shape `x` element-type (`,` encoding)? (`,` memory-space)?
/// (`,` `mutable`)? (`,` alloc-shape)? `>`, as Triton prints it.
Type MemDescType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape, allocShape;
  Type elementType;
  Attribute encoding, memorySpace;
  bool isMutable = false;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(encoding))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword(kMutable)))
      isMutable = true;
    else if (parser.parseAttribute(memorySpace))
      return {};
  }
  // The allocation shape; an empty list after the comma is an error.
  bool hasAllocShape = false;
  auto parseAllocShape = [&]() -> ParseResult {
    hasAllocShape = true;
    SMLoc shapeLoc = parser.getCurrentLocation();
    if (parser.parseDimensionList(allocShape, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return failure();
    if (allocShape.empty())
      return parser.emitError(shapeLoc,
                              "expected 'mutable' or an allocation shape");
    return success();
  };
  if (!isMutable && memorySpace && succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword(kMutable)))
      isMutable = true;
    else if (parseAllocShape())
      return {};
  }
  if (!hasAllocShape && succeeded(parser.parseOptionalComma()) &&
      parseAllocShape())
    return {};
  if (parser.parseGreater())
    return {};
  if (!hasAllocShape)
    allocShape = shape;
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, elementType, encoding, memorySpace, isMutable,
                    allocShape);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType();
  if (getEncoding())
    printer << ", " << getEncoding();
  if (getMemorySpace())
    printer << ", " << getMemorySpace();
  if (getMutableMemory())
    printer << ", " << kMutable;
  if (getAllocShape() != getShape()) {
    printer << ", ";
    llvm::interleave(getAllocShape(), printer, "x");
  }
  printer << ">";
}

/// Largest number of elements of a memory descriptor: shared-memory offsets
/// are 32-bit, and the bound keeps element counts free of overflow.
static constexpr int64_t kMaxMemDescElements = INT32_MAX;

/// The product of positive values, saturated at INT64_MAX.
static int64_t product(ArrayRef<int64_t> values) {
  int64_t n = 1;
  for (int64_t v : values)
    n = (v > 0 && n > INT64_MAX / v) ? INT64_MAX : n * v;
  return n;
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding, Attribute memorySpace,
                                  bool mutableMemory,
                                  ArrayRef<int64_t> allocShape) {
  if (shape.empty())
    return emitError() << "a memory descriptor needs a rank of at least 1";
  if (llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return emitError() << "a memory descriptor needs positive dimensions, "
                          "but its shape is "
                       << tt::shapeToString(shape);
  if (llvm::any_of(allocShape, [](int64_t d) { return d <= 0; }))
    return emitError() << "a memory descriptor needs positive dimensions, "
                          "but its allocation shape is "
                       << tt::shapeToString(allocShape);
  if (product(allocShape) > kMaxMemDescElements)
    return emitError() << "a memory descriptor may hold at most "
                       << kMaxMemDescElements
                       << " elements, but its allocation shape "
                       << tt::shapeToString(allocShape) << " holds more";
  if (product(allocShape) < product(shape))
    return emitError() << "the allocation shape "
                       << tt::shapeToString(allocShape)
                       << " of a memory descriptor must hold at least its "
                          "shape "
                       << tt::shapeToString(shape);
  if (!elementType.isIntOrFloat())
    return emitError() << "a memory descriptor needs an integer or "
                          "floating-point element type, but it is "
                       << elementType;
  if (!encoding)
    return emitError() << "a memory descriptor needs a shared layout "
                          "(e.g. #ttg.swizzled_shared)";
  if (!isa<SharedEncodingTrait>(encoding))
    return emitError() << "a memory descriptor needs a shared layout "
                          "(e.g. #ttg.swizzled_shared), but "
                          "its layout is "
                       << encoding;
  if (!memorySpace)
    return emitError() << "a memory descriptor needs a memory space "
                          "(#ttg.shared_memory)";
  if (!isa<SharedMemorySpaceAttr>(memorySpace))
    return emitError() << "a memory descriptor needs the memory space "
                          "#ttg.shared_memory, but it is "
                       << memorySpace;
  return success();
}

MemDescType MemDescType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                   Type elementType) const {
  ArrayRef<int64_t> newShape = shape ? *shape : getShape();
  // A view of a whole allocation stays one; a partial view keeps its base.
  ArrayRef<int64_t> allocShape =
      getAllocShape() == getShape() ? newShape : getAllocShape();
  return MemDescType::get(newShape, elementType, getEncoding(),
                          getMemorySpace(), getMutableMemory(), allocShape);
}
