//===- Ops.cpp - tt operations: builders, parsers and verifiers ----------===//

#include "tessera/Dialect/TT/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::tessera::tt;

#define GET_OP_CLASSES
#include "tessera/Dialect/TT/IR/TTOps.cpp.inc"
#include "tessera/Dialect/TT/IR/TTInterfaces.cpp.inc"

namespace {

/// Shapes equal, both scalars or both tensors (encodings are not compared).
bool sameShape(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a);
  auto tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return !ta && !tb;
  return ta.getShape() == tb.getShape();
}

/// Same shape and element type, encodings not compared.
bool sameShapeAndElement(Type a, Type b) {
  return sameShape(a, b) && getElementTypeOrSelf(a) == getElementTypeOrSelf(b);
}

/// "shape [a, b]" for a tensor, "no shape (a scalar)" otherwise; reads
/// after "has" / "it has".
std::string describeShape(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return "shape " + shapeToString(tensor.getShape());
  return "no shape (a scalar)";
}

int64_t numElements(RankedTensorType t) { return t.getNumElements(); }

/// Checks that `order` is a permutation of [0, rank).
LogicalResult verifyPermutation(Operation *op, ArrayRef<int32_t> order,
                                int64_t rank, StringRef what) {
  if (static_cast<int64_t>(order.size()) != rank)
    return op->emitOpError() << "expected " << what << " to have " << rank
                             << " entries (the rank), but it has "
                             << order.size();
  llvm::SmallSet<int32_t, 8> seen;
  for (int32_t d : order) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << "expected " << what << " entries in [0, "
                               << rank << "), but found " << d;
    if (!seen.insert(d).second)
      return op->emitOpError() << "expected " << what
                               << " to be a permutation, but " << d
                               << " appears twice";
  }
  return success();
}

/// Checks boundaryCheck against a block pointer of the given rank.
LogicalResult verifyBoundaryCheck(Operation *op, ArrayRef<int32_t> dims,
                                  Type ptrType) {
  if (dims.empty())
    return success();
  auto ptr = dyn_cast<PointerType>(ptrType);
  if (!ptr || !ptr.isBlockPointer())
    return op->emitOpError()
           << "boundaryCheck applies only to block pointers, but the pointer "
              "is of type "
           << ptrType;
  int64_t rank = cast<RankedTensorType>(ptr.getPointeeType()).getRank();
  llvm::SmallSet<int32_t, 8> seen;
  for (int32_t d : dims) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << "boundaryCheck dimension " << d
                               << " is out of range for a block of rank "
                               << rank;
    if (!seen.insert(d).second)
      return op->emitOpError() << "boundaryCheck lists dimension " << d
                               << " twice";
  }
  return success();
}

bool isBlockPointer(Type t) {
  auto ptr = dyn_cast<PointerType>(t);
  return ptr && ptr.isBlockPointer();
}

} // namespace

//===----------------------------------------------------------------------===//
// FuncOp, CallOp, ReturnOp
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, ArrayRef<NamedAttribute> attrs,
                   ArrayRef<DictionaryAttr> argAttrs) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.attributes.append(attrs.begin(), attrs.end());
  state.addRegion();
  if (argAttrs.empty())
    return;
  call_interface_impl::addArgAndResultAttrs(
      builder, state, argAttrs, /*resultAttrs=*/{},
      getArgAttrsAttrName(state.name), getResAttrsAttrName(state.name));
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

bool FuncOp::isNoInline() {
  auto attr = (*this)->getAttrOfType<BoolAttr>("noinline");
  return attr && attr.getValue();
}

LogicalResult FuncOp::verify() {
  if (Attribute attr = (*this)->getAttr("noinline"); attr && !isa<BoolAttr>(attr))
    return emitOpError() << "expected 'noinline' to be a bool attribute, but "
                            "it is "
                         << attr;
  if (isExternal())
    return success();
  Block &entry = getBody().front();
  if (entry.getNumArguments() != getArgumentTypes().size())
    return emitOpError() << "expected the entry block to have "
                         << getArgumentTypes().size()
                         << " arguments (the function's), but it has "
                         << entry.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments()))
    if (arg.getType() != getArgumentTypes()[i])
      return emitOpError() << "entry block argument #" << i << " has type "
                           << arg.getType() << ", but the function type says "
                           << getArgumentTypes()[i];
  return success();
}

FunctionType CallOp::getCalleeType() {
  return FunctionType::get(getContext(), getOperandTypes(), getResultTypes());
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto fnAttr = (*this)->getAttrOfType<FlatSymbolRefAttr>("callee");
  if (!fnAttr)
    return emitOpError("requires a 'callee' symbol reference attribute");
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, fnAttr);
  if (!fn)
    return emitOpError() << "'" << fnAttr.getValue()
                         << "' does not name a tt.func";
  FunctionType type = fn.getFunctionType();
  if (type.getNumInputs() != getNumOperands())
    return emitOpError() << "expected " << type.getNumInputs()
                         << " operands for @" << fnAttr.getValue()
                         << ", but got " << getNumOperands();
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (getOperand(i).getType() != type.getInput(i))
      return emitOpError() << "operand #" << i << " has type "
                           << getOperand(i).getType() << ", but @"
                           << fnAttr.getValue() << " expects "
                           << type.getInput(i);
  if (type.getNumResults() != getNumResults())
    return emitOpError() << "expected " << type.getNumResults()
                         << " results from @" << fnAttr.getValue()
                         << ", but the call has " << getNumResults();
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    if (getResult(i).getType() != type.getResult(i))
      return emitOpError() << "result #" << i << " has type "
                           << getResult(i).getType() << ", but @"
                           << fnAttr.getValue() << " returns "
                           << type.getResult(i);
  return success();
}

LogicalResult ReturnOp::verify() {
  auto function = cast<FuncOp>((*this)->getParentOp());
  ArrayRef<Type> results = function.getResultTypes();
  if (getNumOperands() != results.size())
    return emitOpError() << "returns " << getNumOperands()
                         << " values, but the enclosing function returns "
                         << results.size();
  for (unsigned i = 0; i < results.size(); ++i)
    if (getOperand(i).getType() != results[i])
      return emitOpError() << "operand #" << i << " has type "
                           << getOperand(i).getType()
                           << ", but the enclosing function returns "
                           << results[i];
  return success();
}

//===----------------------------------------------------------------------===//
// Index creation and shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t start = static_cast<int32_t>(getStart());
  int64_t end = static_cast<int32_t>(getEnd());
  RankedTensorType type = getType();
  if (type.getRank() != 1)
    return emitOpError() << "expected a 1-D result, but it has rank "
                         << type.getRank();
  if (end <= start)
    return emitOpError() << "expected start < end, but got start = " << start
                         << " and end = " << end;
  if (type.getDimSize(0) != end - start)
    return emitOpError() << "expected the result to have end - start = "
                         << end - start << " elements, but it has "
                         << type.getDimSize(0);
  return success();
}

LogicalResult SplatOp::verify() {
  Type src = getSrc().getType();
  if (isa<RankedTensorType, TensorDescType>(src))
    return emitOpError() << "expected a scalar source, but got " << src;
  if (getType().getElementType() != src)
    return emitOpError() << "expected the result element type to be the "
                            "source type "
                         << src << ", but it is " << getType().getElementType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  if (src.getElementType() != res.getElementType())
    return emitOpError() << "expected the result element type to be "
                         << src.getElementType() << ", but it is "
                         << res.getElementType();
  if (src.getRank() != res.getRank())
    return emitOpError() << "expected the result to have the source's rank "
                         << src.getRank() << ", but it has rank "
                         << res.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (src.getDimSize(d) != 1 && src.getDimSize(d) != res.getDimSize(d))
      return emitOpError() << "cannot broadcast dimension " << d
                           << " of size " << src.getDimSize(d) << " to "
                           << res.getDimSize(d) << " (source shape "
                           << shapeToString(src.getShape())
                           << ", result shape "
                           << shapeToString(res.getShape())
                           << "); only size-1 dimensions broadcast";
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "expected axis in [0, " << src.getRank()
                         << "], but got " << axis;
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result shape " << shapeToString(expected)
                         << ", but got " << shapeToString(res.getShape());
  if (src.getElementType() != res.getElementType())
    return emitOpError() << "expected the result element type to be "
                         << src.getElementType() << ", but it is "
                         << res.getElementType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  if (src.getElementType() != res.getElementType())
    return emitOpError() << "expected the result element type to be "
                         << src.getElementType() << ", but it is "
                         << res.getElementType();
  if (numElements(src) != numElements(res))
    return emitOpError() << "expected the result to have the source's "
                         << numElements(src) << " elements, but shape "
                         << shapeToString(res.getShape()) << " has "
                         << numElements(res);
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  if (failed(verifyPermutation(*this, getOrder(), src.getRank(), "order")))
    return failure();
  if (src.getElementType() != res.getElementType())
    return emitOpError() << "expected the result element type to be "
                         << src.getElementType() << ", but it is "
                         << res.getElementType();
  SmallVector<int64_t> expected;
  for (int32_t d : getOrder())
    expected.push_back(src.getDimSize(d));
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result shape " << shapeToString(expected)
                         << " (the source shape permuted by the order), but "
                            "got "
                         << shapeToString(res.getShape());
  return success();
}

LogicalResult JoinOp::verify() {
  auto lhs = getLhs().getType();
  auto rhs = getRhs().getType();
  if (!sameShapeAndElement(lhs, rhs))
    return emitOpError() << "expected operands of the same type, but got "
                         << lhs << " and " << rhs;
  SmallVector<int64_t> expected(lhs.getShape());
  expected.push_back(2);
  if (getType().getShape() != ArrayRef<int64_t>(expected) ||
      getType().getElementType() != lhs.getElementType())
    return emitOpError() << "expected a result of shape "
                         << shapeToString(expected) << " and element type "
                         << lhs.getElementType() << ", but got " << getType();
  return success();
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType();
  if (src.getRank() < 1 || src.getShape().back() != 2)
    return emitOpError() << "expected a source whose last dimension is 2, but "
                            "its shape is "
                         << shapeToString(src.getShape());
  ArrayRef<int64_t> expected = src.getShape().drop_back();
  for (Type t : getResultTypes()) {
    auto r = cast<RankedTensorType>(t);
    if (r.getShape() != expected || r.getElementType() != src.getElementType())
      return emitOpError() << "expected results of shape "
                           << shapeToString(expected) << " and element type "
                           << src.getElementType() << ", but got " << r;
  }
  return success();
}

LogicalResult CatOp::verify() {
  auto lhs = getLhs().getType();
  auto rhs = getRhs().getType();
  auto res = getType();
  if (!sameShapeAndElement(lhs, rhs))
    return emitOpError() << "expected operands of the same type, but got "
                         << lhs << " and " << rhs;
  if (res.getElementType() != lhs.getElementType() ||
      res.getRank() != lhs.getRank())
    return emitOpError() << "expected a result of rank " << lhs.getRank()
                         << " and element type " << lhs.getElementType()
                         << ", but got " << res;
  if (numElements(res) != numElements(lhs) + numElements(rhs))
    return emitOpError() << "expected the result to hold "
                         << numElements(lhs) + numElements(rhs)
                         << " elements (both operands), but it holds "
                         << numElements(res);
  return success();
}

//===----------------------------------------------------------------------===//
// Casts and elementwise operations
//===----------------------------------------------------------------------===//

static unsigned bitWidthOf(Type t) {
  if (isa<PointerType>(t))
    return 64;
  return t.getIntOrFloatBitWidth();
}

LogicalResult BitcastOp::verify() {
  Type src = getSrc().getType(), res = getType();
  if (!sameShape(src, res))
    return emitOpError() << "expected the result to match the source, which has "
                         << describeShape(src) << ", but it has "
                         << describeShape(res);
  Type se = getElementTypeOrSelf(src), re = getElementTypeOrSelf(res);
  if (isa<TensorDescType>(se) || isa<TensorDescType>(re) ||
      isBlockPointer(se) || isBlockPointer(re))
    return emitOpError() << "cannot bitcast " << src << " to " << res;
  if (bitWidthOf(se) != bitWidthOf(re))
    return emitOpError() << "expected element types of equal width, but "
                         << se << " has " << bitWidthOf(se) << " bits and "
                         << re << " has " << bitWidthOf(re);
  return success();
}

LogicalResult FpToFpOp::verify() {
  Type src = getSrc().getType(), res = getType();
  if (!sameShape(src, res))
    return emitOpError() << "expected the result to match the source, which has "
                         << describeShape(src) << ", but it has "
                         << describeShape(res);
  Type se = getElementTypeOrSelf(src), re = getElementTypeOrSelf(res);
  if (re.getIntOrFloatBitWidth() < se.getIntOrFloatBitWidth() && !getRounding())
    return emitOpError() << "a narrowing conversion from " << se << " to "
                         << re << " needs a rounding mode (rtne or rtz)";
  return success();
}

LogicalResult IntToPtrOp::verify() {
  if (!sameShape(getSrc().getType(), getType()))
    return emitOpError() << "expected the result to match the source, which has "
                         << describeShape(getSrc().getType()) << ", but it has "
                         << describeShape(getType());
  return success();
}

LogicalResult PtrToIntOp::verify() {
  if (!sameShape(getSrc().getType(), getType()))
    return emitOpError() << "expected the result to match the source, which has "
                         << describeShape(getSrc().getType()) << ", but it has "
                         << describeShape(getType());
  return success();
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  int64_t pack = static_cast<int32_t>(getPackedElement());
  if (pack < 1)
    return emitOpError() << "expected packed_element >= 1, but got " << pack;
  if (getNumResults() == 0)
    return emitOpError("expected at least one result");
  Type ref = getResult().front().getType();
  for (Type t : llvm::concat<const Type>(getArgs().getTypes(),
                                         getResult().getTypes()))
    if (!sameShape(t, ref))
      return emitOpError() << "expected all operands and results to have the "
                              "first result's "
                           << describeShape(ref) << ", but found " << t;
  if (auto tensor = dyn_cast<RankedTensorType>(ref))
    if (tensor.getNumElements() % pack != 0)
      return emitOpError() << "the " << tensor.getNumElements()
                           << " elements do not divide into packs of "
                           << pack;
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  Type ptr = getPtr().getType(), off = getOffset().getType();
  if (isBlockPointer(getElementTypeOrSelf(ptr)))
    return emitOpError("cannot offset a block pointer; use tt.advance");
  if (!sameShape(ptr, off))
    return emitOpError() << "expected the offset to match the pointer, which has "
                         << describeShape(ptr) << ", but it has "
                         << describeShape(off);
  if (getType() != ptr)
    return emitOpError() << "expected the result type to be the pointer type "
                         << ptr << ", but it is " << getType();
  return success();
}

LogicalResult AdvanceOp::verify() {
  auto ptr = getPtr().getType();
  if (!ptr.isBlockPointer())
    return emitOpError() << "expected a block pointer, but got " << ptr;
  int64_t rank = cast<RankedTensorType>(ptr.getPointeeType()).getRank();
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "expected " << rank
                         << " offsets (the block's rank), but got "
                         << getOffsets().size();
  if (getType() != ptr)
    return emitOpError() << "expected the result type " << ptr
                         << ", but it is " << getType();
  return success();
}

LogicalResult MakeTensorPtrOp::verify() {
  PointerType res = getType();
  if (!res.isBlockPointer())
    return emitOpError() << "expected the result to be a block pointer, but "
                            "it is "
                         << res;
  auto block = cast<RankedTensorType>(res.getPointeeType());
  Type elem = getBase().getType().getPointeeType();
  if (block.getElementType() != elem)
    return emitOpError() << "expected the block element type to be the base "
                            "pointee "
                         << elem << ", but it is " << block.getElementType();
  int64_t rank = block.getRank();
  if (static_cast<int64_t>(getShape().size()) != rank ||
      static_cast<int64_t>(getStrides().size()) != rank ||
      static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "expected " << rank
                         << " shape, stride and offset values (the block's "
                            "rank), but got "
                         << getShape().size() << ", " << getStrides().size()
                         << " and " << getOffsets().size();
  return verifyPermutation(*this, getOrder(), rank, "order");
}

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other, CacheModifier cache,
                   EvictionPolicy evict, bool isVolatile) {
  build(builder, state, getPointeeType(ptr.getType()), ptr, mask, other,
        builder.getDenseI32ArrayAttr({}), /*padding=*/nullptr,
        CacheModifierAttr::get(builder.getContext(), cache),
        EvictionPolicyAttr::get(builder.getContext(), evict),
        builder.getBoolAttr(isVolatile));
}

static LogicalResult verifyLoadStore(Operation *op, Type ptrType, Value mask,
                                     Type valueType, StringRef valueName,
                                     ArrayRef<int32_t> boundaryCheck) {
  Type pointee = getPointeeType(ptrType);
  if (!pointee)
    return op->emitOpError() << "expected a pointer, a tensor of pointers or "
                                "a block pointer, but got "
                             << ptrType;
  if (isa<RankedTensorType>(ptrType) &&
      isBlockPointer(getElementTypeOrSelf(ptrType)))
    return op->emitOpError("tensors of block pointers are not supported");
  if (valueType != pointee && !sameShapeAndElement(valueType, pointee))
    return op->emitOpError() << "expected the " << valueName << " to be "
                             << pointee << " (what the pointer addresses), "
                             << "but it is " << valueType;
  if (mask) {
    if (isBlockPointer(ptrType))
      return op->emitOpError("a block-pointer access takes boundaryCheck, "
                             "not a mask");
    if (!sameShape(mask.getType(), ptrType))
      return op->emitOpError() << "expected the mask to match the pointer, which has "
                               << describeShape(ptrType) << ", but it has "
                               << describeShape(mask.getType());
  }
  return verifyBoundaryCheck(op, boundaryCheck, ptrType);
}

LogicalResult LoadOp::verify() {
  if (failed(verifyLoadStore(*this, getPtr().getType(), getMask(), getType(),
                             "result", getBoundaryCheck())))
    return failure();
  if (getOther()) {
    if (!getMask())
      return emitOpError("'other' is only meaningful with a mask");
    if (!sameShapeAndElement(getOther().getType(), getType()))
      return emitOpError() << "expected 'other' to be " << getType()
                           << ", but it is " << getOther().getType();
  }
  if (getPadding() && getBoundaryCheck().empty())
    return emitOpError("padding needs a boundaryCheck");
  CacheModifier cache = getCache();
  if (cache == CacheModifier::WB || cache == CacheModifier::WT)
    return emitOpError() << "cache modifier '" << stringifyCacheModifier(cache)
                         << "' applies to stores, not loads (loads take ca, cg, cs or cv)";
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       GlobalMemory::get());
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

LogicalResult StoreOp::verify() {
  if (failed(verifyLoadStore(*this, getPtr().getType(), getMask(),
                             getValue().getType(), "stored value",
                             getBoundaryCheck())))
    return failure();
  CacheModifier cache = getCache();
  if (cache == CacheModifier::CA || cache == CacheModifier::CV)
    return emitOpError() << "cache modifier '" << stringifyCacheModifier(cache)
                         << "' applies to loads, not stores (stores take wb, cg, cs or wt)";
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(),
                       GlobalMemory::get());
}

LogicalResult AtomicRMWOp::verify() {
  Type ptrType = getPtr().getType();
  if (isBlockPointer(getElementTypeOrSelf(ptrType)))
    return emitOpError("atomics do not take block pointers");
  Type pointee = getPointeeType(ptrType);
  if (!sameShapeAndElement(getVal().getType(), pointee))
    return emitOpError() << "expected the value to be " << pointee
                         << " (what the pointer addresses), but it is "
                         << getVal().getType();
  if (getMask() && !sameShape(getMask().getType(), ptrType))
    return emitOpError() << "expected the mask to match the pointer, which has "
                         << describeShape(ptrType) << ", but it has "
                         << describeShape(getMask().getType());
  if (!sameShapeAndElement(getType(), getVal().getType()))
    return emitOpError() << "expected the result to be " << getVal().getType()
                         << ", but it is " << getType();
  Type elem = getElementTypeOrSelf(getVal().getType());
  bool isInt = isa<IntegerType>(elem), isFloat = isa<FloatType>(elem);
  RMWOp op = getAtomicRmwOp();
  StringRef name = stringifyRMWOp(op);
  switch (op) {
  case RMWOp::FADD:
    if (!isFloat)
      return emitOpError() << "atomic '" << name
                           << "' needs a floating-point element type, but got "
                           << elem;
    break;
  case RMWOp::AND:
  case RMWOp::OR:
  case RMWOp::XOR:
  case RMWOp::ADD:
  case RMWOp::UMAX:
  case RMWOp::UMIN:
    if (!isInt)
      return emitOpError() << "atomic '" << name
                           << "' needs an integer element type, but got "
                           << elem;
    break;
  case RMWOp::MAX:
  case RMWOp::MIN:
  case RMWOp::XCHG:
    if (!isInt && !isFloat)
      return emitOpError() << "atomic '" << name
                           << "' needs an integer or floating-point element "
                              "type, but got "
                           << elem;
    break;
  }
  if (elem.getIntOrFloatBitWidth() < 16)
    return emitOpError() << "atomics need elements of at least 16 bits, but "
                           << elem << " has " << elem.getIntOrFloatBitWidth();
  return success();
}

void AtomicRMWOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(),
                       GlobalMemory::get());
}

LogicalResult AtomicCASOp::verify() {
  Type ptrType = getPtr().getType();
  if (isBlockPointer(getElementTypeOrSelf(ptrType)))
    return emitOpError("atomics do not take block pointers");
  Type pointee = getPointeeType(ptrType);
  for (auto [name, v] : {std::pair<StringRef, Value>{"comparand", getCmp()},
                        {"value", getVal()}})
    if (!sameShapeAndElement(v.getType(), pointee))
      return emitOpError() << "expected the " << name << " to be " << pointee
                           << " (what the pointer addresses), but it is "
                           << v.getType();
  if (!sameShapeAndElement(getType(), pointee))
    return emitOpError() << "expected the result to be " << pointee
                         << ", but it is " << getType();
  Type elem = getElementTypeOrSelf(pointee);
  if (!elem.isIntOrFloat())
    return emitOpError() << "atomic_cas needs integer or floating-point "
                            "elements, but got "
                         << elem;
  if (elem.getIntOrFloatBitWidth() < 16)
    return emitOpError() << "atomics need elements of at least 16 bits, but "
                         << elem << " has " << elem.getIntOrFloatBitWidth();
  return success();
}

void AtomicCASOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(),
                       GlobalMemory::get());
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

LogicalResult MakeTensorDescOp::verify() {
  RankedTensorType block = getType().getBlockType();
  Type elem = getBase().getType().getPointeeType();
  if (block.getElementType() != elem)
    return emitOpError() << "expected the block element type to be the base "
                            "pointee "
                         << elem << ", but it is " << block.getElementType();
  int64_t rank = block.getRank();
  if (static_cast<int64_t>(getShape().size()) != rank ||
      static_cast<int64_t>(getStrides().size()) != rank)
    return emitOpError() << "expected " << rank
                         << " shape and stride values (the block's rank), "
                            "but got "
                         << getShape().size() << " and "
                         << getStrides().size();
  return success();
}

/// A descriptor access moves a whole block; the tensor may drop leading
/// size-1 dimensions of the block.
static LogicalResult verifyDescriptorAccess(Operation *op, TensorDescType desc,
                                            size_t numIndices,
                                            RankedTensorType tensor,
                                            StringRef what) {
  RankedTensorType block = desc.getBlockType();
  if (static_cast<int64_t>(numIndices) != block.getRank())
    return op->emitOpError() << "expected " << block.getRank()
                             << " indices (the block's rank), but got "
                             << numIndices;
  if (tensor.getElementType() != block.getElementType())
    return op->emitOpError() << "expected the " << what
                             << " element type to be "
                             << block.getElementType() << ", but it is "
                             << tensor.getElementType();
  ArrayRef<int64_t> bs = block.getShape();
  ArrayRef<int64_t> ts = tensor.getShape();
  bool ok = ts.size() <= bs.size() && bs.take_back(ts.size()) == ts &&
            llvm::all_of(bs.drop_back(ts.size()),
                         [](int64_t d) { return d == 1; });
  if (!ok)
    return op->emitOpError() << "expected the " << what
                             << " to have the block shape "
                             << shapeToString(bs) << ", but it has "
                             << shapeToString(ts);
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(),
                                getIndices().size(), getType(), "result");
}

void DescriptorLoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getDescMutable(),
                       GlobalMemory::get());
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(),
                                getIndices().size(), getSrc().getType(),
                                "stored value");
}

void DescriptorStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getDescMutable(),
                       GlobalMemory::get());
}

//===----------------------------------------------------------------------===//
// Dot, reduce, scan, histogram, gather
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  auto d = getD().getType();
  int64_t rank = a.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "expected operands of rank 2 (or 3 with a batch "
                            "dimension), but a has rank "
                         << rank;
  if (b.getRank() != rank || c.getRank() != rank)
    return emitOpError() << "expected a, b and c of the same rank, but they "
                            "have ranks "
                         << rank << ", " << b.getRank() << " and "
                         << c.getRank();
  if (!sameShapeAndElement(c, d))
    return emitOpError() << "expected the result to have the accumulator "
                            "type "
                         << c << ", but it is " << d;
  int64_t m = rank - 2, k = rank - 1;
  if (a.getDimSize(k) != b.getDimSize(m))
    return emitOpError() << "expected the K dimensions to match, but a is "
                         << shapeToString(a.getShape()) << " (K = "
                         << a.getDimSize(k) << ") and b is "
                         << shapeToString(b.getShape()) << " (K = "
                         << b.getDimSize(m) << ")";
  if (a.getDimSize(m) != c.getDimSize(m) || b.getDimSize(k) != c.getDimSize(k))
    return emitOpError() << "expected the accumulator shape to be [M, N] = "
                         << shapeToString({a.getDimSize(m), b.getDimSize(k)})
                         << ", but it is " << shapeToString(c.getShape());
  if (rank == 3 && (a.getDimSize(0) != b.getDimSize(0) ||
                    a.getDimSize(0) != c.getDimSize(0)))
    return emitOpError() << "expected equal batch dimensions, but got "
                         << a.getDimSize(0) << ", " << b.getDimSize(0)
                         << " and " << c.getDimSize(0);
  Type ae = a.getElementType(), be = b.getElementType(),
       ce = c.getElementType();
  if (isa<IntegerType>(ae) != isa<IntegerType>(be))
    return emitOpError() << "expected a and b both integer or both "
                            "floating-point, but got "
                         << ae << " and " << be;
  if (isa<IntegerType>(ae) != isa<IntegerType>(ce))
    return emitOpError() << "expected an accumulator of the operands' kind ("
                         << (isa<IntegerType>(ae) ? "integer" : "float")
                         << "), but it is " << ce;
  bool bothFp8 = ae.getIntOrFloatBitWidth() == 8 &&
                 be.getIntOrFloatBitWidth() == 8 && isa<FloatType>(ae);
  if (ae != be && !bothFp8)
    return emitOpError() << "expected a and b of the same element type, but "
                            "got "
                         << ae << " and " << be;
  return success();
}

SmallVector<Type> ReduceOp::getElementTypes() {
  SmallVector<Type> types;
  for (Value v : getSrcs())
    types.push_back(cast<RankedTensorType>(v.getType()).getElementType());
  return types;
}

SmallVector<Type> ScanOp::getElementTypes() {
  SmallVector<Type> types;
  for (Value v : getSrcs())
    types.push_back(cast<RankedTensorType>(v.getType()).getElementType());
  return types;
}

/// Operands of a reduce or scan share one shape; the axis is in range.
static LogicalResult verifyCombineOperands(Operation *op, ValueRange srcs,
                                           int64_t axis) {
  if (srcs.empty())
    return op->emitOpError("expected at least one operand");
  auto first = cast<RankedTensorType>(srcs.front().getType());
  for (Value v : srcs.drop_front()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() != first.getShape())
      return op->emitOpError() << "expected all operands to have shape "
                               << shapeToString(first.getShape())
                               << ", but one has "
                               << shapeToString(t.getShape());
  }
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError() << "expected axis in [0, " << first.getRank()
                             << "), but got " << axis;
  return success();
}

/// The combiner takes two scalars per operand and returns one per operand,
/// all of the operands' element types.
static LogicalResult verifyCombiner(Operation *op, Region &region,
                                    ArrayRef<Type> elemTypes,
                                    StringRef returnName) {
  if (region.empty())
    return op->emitOpError("expected a combiner region with one block");
  Block &block = region.front();
  unsigned n = elemTypes.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError() << "expected the combiner to take " << 2 * n
                             << " arguments (two per operand, " << n
                             << " operand" << (n == 1 ? "" : "s")
                             << "), but it takes " << block.getNumArguments();
  for (unsigned i = 0; i < 2 * n; ++i)
    if (block.getArgument(i).getType() != elemTypes[i % n])
      return op->emitOpError() << "expected combiner argument #" << i
                               << " to be " << elemTypes[i % n]
                               << ", but it is "
                               << block.getArgument(i).getType();
  Operation *term = block.empty() ? nullptr : &block.back();
  if (!term || term->getName().getStringRef() != returnName)
    return op->emitOpError() << "expected the combiner to end with '"
                             << returnName << "'";
  if (term->getNumOperands() != n)
    return op->emitOpError() << "expected the combiner to return " << n
                             << " value" << (n == 1 ? "" : "s")
                             << ", but it returns " << term->getNumOperands();
  for (unsigned i = 0; i < n; ++i)
    if (term->getOperand(i).getType() != elemTypes[i])
      return op->emitOpError() << "expected combiner result #" << i
                               << " to be " << elemTypes[i] << ", but it is "
                               << term->getOperand(i).getType();
  return success();
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyCombineOperands(*this, getSrcs(), static_cast<int32_t>(getAxis()))))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "expected " << getSrcs().size()
                         << " results (one per operand), but got "
                         << getNumResults();
  auto srcType = cast<RankedTensorType>(getSrcs().front().getType());
  SmallVector<int64_t> shape(srcType.getShape());
  shape.erase(shape.begin() + getAxis());
  for (auto [i, res] : llvm::enumerate(getResultTypes())) {
    Type elem = cast<RankedTensorType>(getSrcs()[i].getType()).getElementType();
    if (shape.empty()) {
      if (res != elem)
        return emitOpError() << "expected result #" << i << " to be the "
                             << "scalar " << elem << ", but it is " << res;
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(res);
    if (!t || t.getShape() != ArrayRef<int64_t>(shape) ||
        t.getElementType() != elem)
      return emitOpError() << "expected result #" << i << " to have shape "
                           << shapeToString(shape) << " and element type "
                           << elem << ", but it is " << res;
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner(*this, getCombineOp(), getElementTypes(),
                        ReduceReturnOp::getOperationName());
}

LogicalResult ScanOp::verify() {
  if (failed(verifyCombineOperands(*this, getSrcs(), static_cast<int32_t>(getAxis()))))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "expected " << getSrcs().size()
                         << " results (one per operand), but got "
                         << getNumResults();
  for (auto [i, res] : llvm::enumerate(getResultTypes()))
    if (!sameShapeAndElement(res, getSrcs()[i].getType()))
      return emitOpError() << "expected result #" << i << " to be "
                           << getSrcs()[i].getType() << ", but it is " << res;
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner(*this, getCombineOp(), getElementTypes(),
                        ScanReturnOp::getOperationName());
}

LogicalResult HistogramOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  if (src.getRank() != 1 || res.getRank() != 1)
    return emitOpError() << "expected 1-D source and result, but they have "
                            "ranks "
                         << src.getRank() << " and " << res.getRank();
  if (getMask() && !sameShape(getMask().getType(), src))
    return emitOpError() << "expected the mask to match the source, which has "
                         << describeShape(src) << ", but it has "
                         << describeShape(getMask().getType());
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType();
  auto idx = getIndices().getType();
  auto res = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (src.getRank() != idx.getRank())
    return emitOpError() << "expected indices of the source's rank "
                         << src.getRank() << ", but they have rank "
                         << idx.getRank();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "expected axis in [0, " << src.getRank()
                         << "), but got " << axis;
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && src.getDimSize(d) != idx.getDimSize(d))
      return emitOpError() << "expected the indices to match the source in "
                              "dimension "
                           << d << " (" << src.getDimSize(d)
                           << "), but they have " << idx.getDimSize(d);
  if (res.getShape() != idx.getShape() ||
      res.getElementType() != src.getElementType())
    return emitOpError() << "expected a result of shape "
                         << shapeToString(idx.getShape())
                         << " and element type " << src.getElementType()
                         << ", but got " << res;
  return success();
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError() << "expected one isSigned flag per argument ("
                         << getArgs().size() << "), but got "
                         << getIsSigned().size();
  return success();
}

void PrintOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

void AssertOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

//===----------------------------------------------------------------------===//
// DotOpInterface
//===----------------------------------------------------------------------===//
// DotOp's getA/getB/getC come from its ODS accessors.
