//===- Dialect.h - the tt dialect -------------------------------*- C++ -*-===//
//
// Declarations of the tt dialect, its types, enums, interfaces and ops.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TT_IR_DIALECT_H
#define TESSERA_DIALECT_TT_IR_DIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessera/Dialect/TT/IR/TTDialect.h.inc"
#include "tessera/Dialect/TT/IR/TTEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/TT/IR/TTTypes.h.inc"

namespace mlir::tessera::tt {

/// The global memory that loads, stores and atomics touch.
struct GlobalMemory : public SideEffects::Resource::Base<GlobalMemory> {
  StringRef getName() final { return "<GlobalMemory>"; }
};

/// The type that a load through a value of type `ptrLike` produces:
/// `T` for `!tt.ptr<T>`, `tensor<SxT>` for `tensor<Sx!tt.ptr<T>>` (same
/// encoding), and the pointee tensor of a block pointer.
Type getPointeeType(Type ptrLike);
/// For a block pointer `!tt.ptr<tensor<SxT>, A>`, the scalar pointer
/// `!tt.ptr<T, A>` it is made from; other types are returned unchanged.
Type getBlockPointerBase(Type blockPointer);
/// An i1 type with the shape (and encoding) of `type`: i1 for a scalar.
Type getI1SameShape(Type type);
/// `type` with its element type replaced, keeping shape and encoding.
Type getSameShapeWithElementType(Type type, Type elementType);
/// Shape of a ranked tensor; empty for a scalar.
ArrayRef<int64_t> getShapeOrEmpty(Type type);
/// Prints a shape as [a, b, c] for diagnostics.
std::string shapeToString(ArrayRef<int64_t> shape);

/// Largest number of elements of one tensor (tile) in tt.
constexpr int64_t kMaxTensorElements = int64_t(1) << 20;

/// Checks every tensor operand and result of `op` against kMaxTensorElements.
LogicalResult verifyTensorSizes(Operation *op);

/// The input check of a lowering pass over a whole module: an op directly in
/// the module body that is not a symbol (function, global) is reported, and
/// `checkTensor` runs on every ranked tensor among the results and block
/// arguments of every op (it reports at the op it is given). Stops at the
/// first failure.
LogicalResult checkModuleTensors(
    ModuleOp module, function_ref<LogicalResult(Operation *, RankedTensorType)> checkTensor);

namespace OpTrait {
template <typename ConcreteType>
class TensorSizeIsBounded
    : public mlir::OpTrait::TraitBase<ConcreteType, TensorSizeIsBounded> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorSizes(op);
  }
};
} // namespace OpTrait

/// Constraint stand-in for TypesMatchWith: the parser uses the transform to
/// infer types, the op verifier checks them with specific messages.
inline bool checkedByVerifier(Type, Type) { return true; }

} // namespace mlir::tessera::tt

#include "tessera/Dialect/TT/IR/TTInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/TT/IR/TTOps.h.inc"

#endif // TESSERA_DIALECT_TT_IR_DIALECT_H
