//===- LinearLayoutConversions.h - ttg encodings as LinearLayouts -*- C++ -*-===//
//
// Every ttg layout converts to a LinearLayout from (register, lane, warp,
// block) to tensor coordinates (dim0, ..., dimN-1); shared layouts from an
// element offset to coordinates. Defined in
// lib/Dialect/TTG/IR/LinearLayoutConversions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_LINEARLAYOUTCONVERSIONS_H
#define TESSERA_DIALECT_TTG_IR_LINEARLAYOUTCONVERSIONS_H

#include "mlir/IR/BuiltinTypes.h"
#include "tessera/Tools/LinearLayout.h"

#include <optional>

namespace mlir::tessera {

/// The layout of a distributed tensor as a LinearLayout from (register, lane,
/// warp, block) to (dim0, ..., dimN-1).
::tessera::LinearLayout toLinearLayout(RankedTensorType type);

/// Whether `type`'s encoding has a LinearLayout (toLinearLayout aborts
/// otherwise).
bool supportsLinearLayout(RankedTensorType type);

/// `layout` (out dims dim0.., a row-major tensor) with its out dims reshaped
/// to `shape`, every element keeping its row-major position.
::tessera::LinearLayout reshapeRowMajor(const ::tessera::LinearLayout &layout,
                                        ArrayRef<int64_t> shape);

/// The layout of a shared-memory buffer (swizzled_shared, a vendor's shared
/// layouts through SharedEncodingTrait): from
/// the element offset in shared memory (in dim "offset") to the tensor
/// coordinates (dim0, dim1, ...); std::nullopt for other encodings.
std::optional<::tessera::LinearLayout> toSharedLinearLayout(ArrayRef<int64_t> shape,
                                                            Attribute encoding);

/// A CTA tile given by explicit bases over dim0 (rows x cols), repeated or
/// cut to cover `shape`, with a trivial block dim: for layouts defined by
/// their bases (a vendor's tensor-core fragments).
::tessera::LinearLayout fitTile2D(std::vector<::tessera::LinearLayout::InDimBases> bases,
                                  int32_t rows, int32_t cols, ArrayRef<int64_t> shape);

/// Offsets of a swizzled row-major stack of `shape`: the fastest dim
/// (`order[0]`) holds runs of `vec` elements whose run index is XOR-ed with
/// (row / perPhase) % maxPhase, rows along `order[1]`; `tileCols` > 0 splits
/// the fastest dim into tiles of that many elements stored one after another.
::tessera::LinearLayout swizzledSharedLayout(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                                             int64_t vec, int64_t perPhase, int64_t maxPhase,
                                             int64_t tileCols);

} // namespace mlir::tessera

#endif // TESSERA_DIALECT_TTG_IR_LINEARLAYOUTCONVERSIONS_H
