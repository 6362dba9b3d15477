//===- Dialect.cpp - the tt dialect, its types and inliner ---------------===//

#include "tessera/Dialect/TT/IR/Dialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera::tt;

#include "tessera/Dialect/TT/IR/TTDialect.cpp.inc"
#include "tessera/Dialect/TT/IR/TTEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/TT/IR/TTTypes.cpp.inc"

namespace {

/// Calls to tt.func inline unless the callee says `noinline = true`.
struct TTInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    if (auto func = dyn_cast<FuncOp>(callable))
      return !func.isNoInline();
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }

  /// A tt.return inside a multi-block callee becomes a branch to the block
  /// that follows the call.
  void handleTerminator(Operation *op, Block *newDest) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret)
      return;
    OpBuilder builder(op);
    cf::BranchOp::create(builder, op->getLoc(), newDest, ret.getOperands());
    op->erase();
  }

  /// A tt.return of a single-block callee forwards its operands.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto ret = cast<ReturnOp>(op);
    for (auto [from, to] : llvm::zip(valuesToRepl, ret.getOperands()))
      from.replaceAllUsesWith(to);
  }
};

} // namespace

void TTDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/TT/IR/TTOps.cpp.inc"
      >();
  addInterfaces<TTInlinerInterface>();
}

void TTDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessera/Dialect/TT/IR/TTTypes.cpp.inc"
      >();
}

Operation *TTDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static bool isScalarElement(Type t) {
  return t.isIntOrFloat() || isa<PointerType>(t);
}

Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int addressSpace = 1;
  if (parser.parseLess() || parser.parseType(pointee))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseInteger(addressSpace))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PointerType>(parser.getContext(), pointee,
                                        addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != 1)
    printer << ", " << getAddressSpace();
  printer << ">";
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, int addressSpace) {
  if (addressSpace < 0)
    return emitError() << "pointer address space must be non-negative, but is "
                       << addressSpace;
  if (auto tensor = dyn_cast<RankedTensorType>(pointeeType)) {
    if (!isScalarElement(tensor.getElementType()) ||
        isa<PointerType>(tensor.getElementType()))
      return emitError() << "a block pointer must point to a tensor of "
                            "integers or floats, but points to "
                         << pointeeType;
    return success();
  }
  if (!isScalarElement(pointeeType))
    return emitError() << "a pointer must point to an integer, a float, a "
                          "pointer or a ranked tensor, but points to "
                       << pointeeType;
  return success();
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType blockType) {
  if (!blockType.getElementType().isIntOrFloat())
    return emitError() << "a tensor descriptor's block must hold integers or "
                          "floats, but holds "
                       << blockType.getElementType();
  if (blockType.getRank() < 1 || blockType.getRank() > 5)
    return emitError() << "a tensor descriptor's block must have rank 1 to 5, "
                          "but has rank "
                       << blockType.getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

Type mlir::tessera::tt::getPointeeType(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike)) {
    auto ptr = dyn_cast<PointerType>(tensor.getElementType());
    if (!ptr)
      return {};
    // A tensor cannot hold tensors: a tensor of block pointers has no
    // loadable type, and its users' verifiers reject it.
    if (ptr.isBlockPointer())
      return ptrLike;
    return RankedTensorType::get(tensor.getShape(), ptr.getPointeeType(),
                                 tensor.getEncoding());
  }
  if (auto ptr = dyn_cast<PointerType>(ptrLike))
    return ptr.getPointeeType();
  return {};
}

Type mlir::tessera::tt::getBlockPointerBase(Type type) {
  auto ptr = dyn_cast<PointerType>(type);
  if (!ptr || !ptr.isBlockPointer())
    return type;
  return PointerType::get(
      cast<RankedTensorType>(ptr.getPointeeType()).getElementType(),
      ptr.getAddressSpace());
}

Type mlir::tessera::tt::getSameShapeWithElementType(Type type, Type element) {
  if (!type)
    return {};
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), element,
                                 tensor.getEncoding());
  return element;
}

Type mlir::tessera::tt::getI1SameShape(Type type) {
  if (!type)
    return {};
  return getSameShapeWithElementType(type, IntegerType::get(type.getContext(), 1));
}

ArrayRef<int64_t> mlir::tessera::tt::getShapeOrEmpty(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

std::string mlir::tessera::tt::shapeToString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

LogicalResult mlir::tessera::tt::checkModuleTensors(
    ModuleOp module, function_ref<LogicalResult(Operation *, RankedTensorType)> checkTensor) {
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    if (op->getParentOp() == module.getOperation() && !isa<SymbolOpInterface>(op)) {
      op->emitOpError() << "must be inside a function (only functions and globals may "
                           "appear at module level)";
      return WalkResult::interrupt();
    }
    auto check = [&](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return tensor ? checkTensor(op, tensor) : success();
    };
    for (Type t : op->getResultTypes())
      if (failed(check(t)))
        return WalkResult::interrupt();
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument a : b.getArguments())
          if (failed(check(a.getType())))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult mlir::tessera::tt::verifyTensorSizes(Operation *op) {
  // Kernel code lives in functions: an op directly in a module body (an
  // edited file) would reach lowerings that look for its function.
  if (!isa<FuncOp>(op) && isa_and_nonnull<ModuleOp>(op->getParentOp()))
    return op->emitOpError()
           << "must be inside a function (only functions may appear at module level)";
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    Type original = type;
    // Look into block pointers and descriptors: their blocks are tiles too.
    if (auto tensorOfPtrs = dyn_cast<RankedTensorType>(type))
      if (auto ptr = dyn_cast<PointerType>(tensorOfPtrs.getElementType()))
        if (ptr.isBlockPointer())
          type = ptr.getPointeeType();
    if (auto ptr = dyn_cast<PointerType>(type))
      type = ptr.getPointeeType();
    if (auto desc = dyn_cast<TensorDescType>(type))
      type = desc.getBlockType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    int64_t count = 1;
    for (int64_t d : tensor.getShape()) {
      if (d == ShapedType::kDynamic)
        return op->emitOpError() << what << " #" << index
                                 << " must have a static shape, but is "
                                 << type;
      if (d != 0 && count > kMaxTensorElements / d)
        count = kMaxTensorElements + 1;
      else
        count *= d;
    }
    if (count > kMaxTensorElements)
      return op->emitOpError()
             << what << " #" << index << " of type " << original
             << " has more than the " << kMaxTensorElements
             << " elements a tensor may hold";
    return success();
  };
  // A function's signature holds tiles too (its arguments are block
  // arguments, not operands).
  if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
      if (failed(check(t, "argument", i)))
        return failure();
    for (auto [i, t] : llvm::enumerate(fn.getResultTypes()))
      if (failed(check(t, "function result", i)))
        return failure();
  }
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v.getType(), "result", i)))
      return failure();
  return success();
}
