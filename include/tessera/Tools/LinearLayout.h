//===- LinearLayout.h - GF(2)-linear maps behind every layout ---*- C++ -*-===//
//
// A LinearLayout maps input coordinates (e.g. register, lane, warp, block) to
// output coordinates (e.g. dim0, dim1) by a linear map over GF(2). Every
// distributed and shared layout of the compiler is expressed in it; index
// computation, vector width, layout conversion and swizzling derive from it.
//
// Model
// -----
// * The input dims and the output dims are ordered lists of named dims, each
//   of size 2^k (k >= 0). Names are unique within each list.
// * For every input dim and every bit i of it there is a basis vector: one
//   int32 per output dim, each in [0, out size). The layout maps an input
//   (x_0, ..., x_n) to the XOR of the basis vectors of all set bits of all
//   inputs, computed separately per output dim.
// * Flattening: a tuple of coordinates is flattened with the FIRST dim least
//   significant (fastest varying). The flattened input bits, in order, are
//   the bits of the first in dim, then those of the second, and so on; the
//   same holds for the output.
//
// Misuse (non-power-of-two sizes, unknown dim names, out-of-range values,
// mismatched dims) is a programmer error and aborts through
// llvm::report_fatal_error. Operations that can legitimately fail (inverting
// a non-invertible layout, ...) return std::nullopt.
//
// Total sizes are limited to 2^30 on each side (getTotal*DimSize returns an
// int32_t).
//
// This header depends only on LLVM ADT/Support so that it can be used from
// every part of the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_LINEARLAYOUT_H
#define TESSERA_TOOLS_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

class LinearLayout {
public:
  /// One entry per output dim, in output-dim order.
  using BasisVec = llvm::SmallVector<int32_t, 4>;
  /// A dim name and its size (a power of two).
  using DimSize = std::pair<std::string, int32_t>;
  /// A dim name and a coordinate along it.
  using DimValue = std::pair<std::string, int32_t>;
  /// An input dim name and one basis vector per bit of that dim (so the dim
  /// has size 2^bases.size()).
  using InDimBases = std::pair<std::string, std::vector<BasisVec>>;

  /// The empty layout: no input and no output dims. It maps the single
  /// (empty) input to the single (empty) output and is the identity of
  /// operator*.
  LinearLayout() = default;

  /// Builds a layout from its bases and its output dims. Aborts if a size is
  /// not a positive power of two, a name repeats, a basis vector does not have
  /// one entry per out dim, or an entry is outside [0, out size).
  LinearLayout(std::vector<InDimBases> bases, std::vector<DimSize> outDims);

  /// Like the constructor, with each out size the smallest power of two that
  /// covers every basis entry of that dim (1 if all are 0).
  static LinearLayout fromBases(std::vector<InDimBases> bases,
                                std::vector<std::string> outDimNames);

  /// inDim (size `size`) -> outDim (size `size`), x -> x.
  static LinearLayout identity1D(int32_t size, llvm::StringRef inDim,
                                 llvm::StringRef outDim);

  /// inDim (size `size`) -> outDim (size `outDimSize`), x -> 0.
  static LinearLayout zeros1D(int32_t size, llvm::StringRef inDim,
                              llvm::StringRef outDim, int32_t outDimSize = 1);

  //===--------------------------------------------------------------------===//
  // Queries
  //===--------------------------------------------------------------------===//

  llvm::SmallVector<std::string> getInDimNames() const;
  llvm::SmallVector<std::string> getOutDimNames() const;
  /// In dims with their sizes, in order.
  llvm::SmallVector<DimSize> getInDims() const;
  /// Out dims with their sizes, in order.
  llvm::SmallVector<DimSize> getOutDims() const {
    return {outDims.begin(), outDims.end()};
  }
  /// All bases, in in-dim order.
  const std::vector<InDimBases> &getBases() const { return bases; }

  bool hasInDim(llvm::StringRef name) const;
  bool hasOutDim(llvm::StringRef name) const;
  /// These abort if the dim does not exist.
  int32_t getInDimSize(llvm::StringRef name) const;
  int32_t getInDimSizeLog2(llvm::StringRef name) const;
  int32_t getOutDimSize(llvm::StringRef name) const;
  int32_t getOutDimSizeLog2(llvm::StringRef name) const;
  /// Product of the in (out) dim sizes; 1 for no dims.
  int32_t getTotalInDimSize() const;
  int32_t getTotalOutDimSize() const;
  /// Sum of the log2 sizes.
  int32_t getTotalInDimSizeLog2() const;
  int32_t getTotalOutDimSizeLog2() const;
  int32_t getNumInDims() const { return static_cast<int32_t>(bases.size()); }
  int32_t getNumOutDims() const { return static_cast<int32_t>(outDims.size()); }

  /// The basis vector of bit `bit` of `inDim` (aborts if out of range).
  const BasisVec &getBasis(llvm::StringRef inDim, int32_t bit) const;
  /// Its component along `outDim`.
  int32_t getBasis(llvm::StringRef inDim, int32_t bit,
                   llvm::StringRef outDim) const;

  /// Evaluates the layout. `ins` must name every in dim exactly once, in any
  /// order, with values in range. The result lists every out dim, in order.
  llvm::SmallVector<DimValue> apply(llvm::ArrayRef<DimValue> ins) const;

  /// Evaluates the layout on flattened coordinates (first dim least
  /// significant on both sides). flatIn must be in [0, getTotalInDimSize()).
  int32_t applyFlat(int32_t flatIn) const;

  //===--------------------------------------------------------------------===//
  // Algebra
  //===--------------------------------------------------------------------===//

  /// The product (direct sum) of two layouts. The in dims are a's followed by
  /// b's that a lacks; the out dims likewise. For an in dim of both, b's bits
  /// come after a's (the size multiplies). For an out dim of both, b's images
  /// are shifted above a's (the size multiplies), so that
  /// (a*b)(x_a, x_b) = a(x_a) + b(x_b) * aOutSize, per out dim (where the
  /// shared in dims take x_a in the low and x_b in the high bits).
  friend LinearLayout operator*(const LinearLayout &a, const LinearLayout &b);
  LinearLayout &operator*=(const LinearLayout &other) {
    return *this = *this * other;
  }

  /// this: A -> B, outer: B -> C; returns A -> C, x -> outer(this(x)).
  /// this's out dims must be exactly outer's in dims (as a set of names; the
  /// order may differ), with this's out sizes <= outer's in sizes.
  LinearLayout compose(const LinearLayout &outer) const;

  /// The inverse of a bijective layout (in dims and out dims swap roles:
  /// the result's in dims are this's out dims and vice versa, with the same
  /// order and sizes). std::nullopt if the layout is not invertible.
  std::optional<LinearLayout> invert() const;

  /// A right inverse R of a surjective layout L: L(R(y)) == y for all y.
  /// Among the preimages, R picks the one in which the "free" input bits are
  /// 0; the input bits are considered in flattened order and a bit is free
  /// if its basis vector is a combination of earlier bits' (so earlier dims,
  /// e.g. registers, are preferred). std::nullopt if L is not surjective.
  std::optional<LinearLayout> pseudoinvert() const;

  /// this: X -> T, outer: Y -> T; returns R: X -> Y with
  /// outer(R(x)) == this(x) for all x, where R(x) is the preimage chosen as
  /// in pseudoinvert. this's out dims must all be out dims of outer with
  /// sizes <= outer's (outer may have more out dims; this's coordinate along
  /// them is 0). Returns std::nullopt if some this(x) is not in the image of
  /// outer (never the case when outer is surjective).
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &outer) const;

  /// Reorders the out (in) dims; newOrder must be a permutation of the names.
  LinearLayout transposeOuts(llvm::ArrayRef<std::string> newOrder) const;
  LinearLayout transposeIns(llvm::ArrayRef<std::string> newOrder) const;

  /// Replaces the out (in) dims by `newOutDims` (`newInDims`), which must have
  /// the same total size: coordinates are flattened in the old dim order (first
  /// least significant) and split again in the new order.
  LinearLayout reshapeOuts(llvm::ArrayRef<DimSize> newOutDims) const;
  LinearLayout reshapeIns(llvm::ArrayRef<DimSize> newInDims) const;

  /// Shorthands: a single dim `name` of the total size.
  LinearLayout flattenOuts(llvm::StringRef name) const;
  LinearLayout flattenIns(llvm::StringRef name) const;

  /// The restriction to the given in dims and out dims (each must exist);
  /// the result keeps this layout's order of dims, whatever the order of the
  /// arguments.
  LinearLayout sublayout(llvm::ArrayRef<std::string> inDims,
                         llvm::ArrayRef<std::string> outDims) const;
  /// Whether every basis of those in dims is 0 along those out dims.
  bool sublayoutIsZero(llvm::ArrayRef<std::string> inDims,
                       llvm::ArrayRef<std::string> outDims) const;

  //===--------------------------------------------------------------------===//
  // Structure
  //===--------------------------------------------------------------------===//

  /// The GF(2) rank of the whole matrix (flattened in bits x out bits).
  int32_t getRank() const;
  bool isSurjective() const;
  bool isInjective() const;
  bool isInvertible() const;

  /// The largest 2^k such that bit i (i < k) of the first in dim maps to
  /// exactly 2^i along the first out dim and 0 along every other out dim:
  /// the first 2^k values of the first in dim (registers) are contiguous,
  /// in order, along the first out dim. 1 if there is no such bit or no dim.
  int32_t getNumConsecutiveInOut() const;

  /// Per in dim (in order), the bitmask of its bits whose basis vector is
  /// zero: flipping them never changes the output (the data is duplicated).
  llvm::SmallVector<std::pair<std::string, int32_t>>
  getFreeVariableMasks() const;

  /// Exact equality: same in dims (names, order, sizes), same out dims (names,
  /// order, sizes), same bases.
  bool operator==(const LinearLayout &o) const;
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

  /// E.g.
  ///    - register=1 -> (0, 1)
  ///      register=2 -> (1, 0)
  ///    - lane is a size 1 dimension
  ///   where out dims are: [dim0 (size 2), dim1 (size 2)]
  std::string toString() const;

private:
  int findInDim(llvm::StringRef name) const;   // -1 if absent
  int findOutDim(llvm::StringRef name) const;  // -1 if absent
  int inDimIndex(llvm::StringRef name) const;  // aborts if absent
  int outDimIndex(llvm::StringRef name) const; // aborts if absent

  /// The flat out value of each flat in bit.
  llvm::SmallVector<uint64_t> flatColumns() const;
  /// Splits a flat out value into the out dims.
  BasisVec unflattenOut(uint64_t flat) const;
  /// Flattens per-out-dim values.
  uint64_t flattenOut(llvm::ArrayRef<int32_t> values) const;

  std::vector<InDimBases> bases;
  std::vector<DimSize> outDims;
};

/// An identity over several dims. `shape` and `outDimNames` are ordered as
/// the tensor dims; `order` lists the tensor dims from fastest to slowest
/// varying. The result has the single in dim `inDimName` of size
/// product(shape), whose bits walk order[0] first, then order[1], ...; its out
/// dims are `outDimNames` in the shape's order, with sizes `shape`.
/// E.g. shape [4, 8], order [1, 0]: in bits 0-2 -> dim1, bits 3-4 -> dim0
/// (row-major).
LinearLayout identityStandardND(llvm::StringRef inDimName,
                                llvm::ArrayRef<int32_t> shape,
                                llvm::ArrayRef<int32_t> order,
                                llvm::ArrayRef<std::string> outDimNames);

/// Adapts a hardware (CTA) layout to a tensor shape. `cta`'s out dims must be
/// exactly `outDimNames` (any order); all sizes must be powers of two. For
/// each out dim d, with S = cta's size along d and N = shape[d]:
///  * S > N: every output coordinate along d is reduced modulo N (its bits at
///    and above log2(N) are dropped), i.e. each basis component c along d
///    becomes c & (N - 1). An input bit whose basis pointed purely beyond the
///    shape along d thus gets component 0 there: it broadcasts (the same data
///    is held by several lanes/warps/registers). The out size becomes N.
///  * S < N: the "register" in dim gets log2(N / S) more bits (above its
///    existing ones) whose bases are S, 2S, ..., N/2 along d and 0 elsewhere,
///    so the whole pattern repeats in registers. If cta has no "register" dim,
///    one is added as the first in dim. The out size becomes N.
/// The out dims of the result are ordered as `outDimNames`.
LinearLayout ensureLayoutCoversShape(const LinearLayout &cta,
                                     llvm::ArrayRef<int32_t> shape,
                                     llvm::ArrayRef<std::string> outDimNames);

} // namespace tessera

#endif // TESSERA_TOOLS_LINEARLAYOUT_H
