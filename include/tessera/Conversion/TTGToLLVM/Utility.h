//===- Utility.h - helpers shared by the TTGIR -> LLVM patterns -*- C++ -*-===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_UTILITY_H
#define TESSERA_CONVERSION_TTGTOLLVM_UTILITY_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"
#include "tessera/Tools/LinearLayout.h"

namespace mlir::tessera {

/// Converts tt/ttg types: a distributed tensor becomes an LLVM struct of the
/// elements one thread owns (in register order of its LinearLayout); tt
/// pointers become LLVM pointers; fp8 types become i8.
class TesseraLLVMTypeConverter : public LLVMTypeConverter {
public:
  TesseraLLVMTypeConverter(MLIRContext *ctx, const LowerToLLVMOptions &options,
                           const TargetInfoBase &targetInfo);
  const TargetInfoBase &getTargetInfo() const { return targetInfo; }
  /// The converted element type of a tensor (or of a scalar type).
  Type convertElementType(Type type) const;

private:
  const TargetInfoBase &targetInfo;
};

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

// toLinearLayout, supportsLinearLayout, reshapeRowMajor and
// toSharedLinearLayout: tessera/Dialect/TTG/IR/LinearLayoutConversions.h.

/// How many elements of `type` each thread holds.
int64_t getElemsPerThread(RankedTensorType type);

/// Coordinates (i32, one per tensor dim) of every element the current thread
/// holds, in register order.
SmallVector<SmallVector<Value>> emitIndices(OpBuilder &b, Location loc,
                                            const TargetInfoBase &targetInfo,
                                            RankedTensorType type);

/// The same coordinates as compile-time constants when lane and warp are 0:
/// the register part of the layout, which is XORed with the lane/warp part.
SmallVector<SmallVector<int32_t>>
registerCoordinates(const ::tessera::LinearLayout &layout);

/// For each register of `dst`, the register of `src` holding the same element
/// in the same thread, when every thread already holds what it needs (a
/// change of layout that moves no data across threads); std::nullopt
/// otherwise. `dropDims` are dims of `dst` that do not exist in `src` (size 1
/// in dst), and `srcDimOfDst[i]` the dim of `src` that dst dim i maps to.
std::optional<SmallVector<int32_t>>
getRegisterPermutation(const ::tessera::LinearLayout &src,
                       const ::tessera::LinearLayout &dst,
                       ArrayRef<int32_t> dstDimToSrcDim);

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Value packStruct(OpBuilder &b, Location loc, Type structType,
                 ValueRange elements);
SmallVector<Value> unpackStruct(OpBuilder &b, Location loc, Value value);
/// Unpacks a converted tensor operand, or repeats a scalar `count` times.
SmallVector<Value> unpackOrSplat(OpBuilder &b, Location loc, Value value,
                                 int64_t count);

Value i32Val(OpBuilder &b, Location loc, int64_t value);
Value intVal(OpBuilder &b, Location loc, Type type, int64_t value);

/// The thread's lane and warp ids.
std::pair<Value, Value> laneAndWarp(OpBuilder &b, Location loc,
                                    const TargetInfoBase &targetInfo);

/// True (i1) in the one thread of each group of threads that hold the same
/// elements of `layout` (the lane and warp bits that move no element are 0).
Value isOwnerThread(OpBuilder &b, Location loc, const TargetInfoBase &targetInfo,
                    const ::tessera::LinearLayout &layout);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTGTOLLVM_UTILITY_H
