//===- ExchangeLayout.h - where a layout conversion puts elements in shared memory -*- C++ -*-===//
//
// A convert_layout that moves data between threads writes every element of
// the source layout to a shared-memory buffer and reads the result layout
// back. Where each element goes decides how wide the accesses can be and how
// many bank conflicts they have. The buffer is described as an invertible
// GF(2)-linear map from element coordinates to offsets (in elements): the
// offset of an element is the XOR of the offsets of the set bits of its
// coordinates. Such a map is a permutation of [0, numel), so the buffer needs
// no padding, and it can express both plain row-major orders and XOR
// swizzles.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_EXCHANGELAYOUT_H
#define TESSERA_CONVERSION_TTGTOLLVM_EXCHANGELAYOUT_H

#include "tessera/Tools/LinearLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::tessera {

/// Shared-memory banks as the cost model sees them: `banks` banks of
/// `bankBytes` each; one wavefront serves at most one word per bank.
struct BankModel {
  int32_t banks = 32;
  int32_t bankBytes = 4;
  /// Widest access one thread makes (bytes).
  int32_t maxVectorBytes = 16;
  /// Whether reads may load 8 x 8 matrices of 16-bit elements, four per warp
  /// instruction (TargetInfoBase::loadMatrices).
  bool loadMatrices = false;
};

/// How the result layout reads the buffer.
enum class ExchangeRead { Vectors, Matrices, TransposedMatrices };

struct ExchangeLayout {
  /// offsetOfBit[d][i]: offset of the element at coordinate 2^i along dim d
  /// (0 along the others).
  llvm::SmallVector<llvm::SmallVector<int32_t, 8>, 4> offsetOfBit;
  /// Buffer size in elements (the product of the shape).
  int64_t elements = 0;
  /// Elements per shared-memory access when writing the source layout and
  /// reading the result layout.
  int32_t writeVector = 1, readVector = 1;
  /// Vectors of readVector elements, or 8 x 8 matrices (each group of 8
  /// registers of the result: one warp-wide load of four matrices).
  ExchangeRead read = ExchangeRead::Vectors;
  /// The cost model's wavefronts per warp for all writes and all reads.
  int64_t writeWavefronts = 0, readWavefronts = 0;

  /// Offset of the element at `coords` (one per dim, within the shape).
  int32_t offsetOf(llvm::ArrayRef<int32_t> coords) const;
};

/// Chooses the buffer of a conversion from `src` to `dst` (LinearLayouts of
/// the same tensor shape, in dims register/lane/warp and out dims the
/// tensor's), for elements of `elemBytes` bytes: the fewest wavefronts for
/// writes and reads together, then the fewest access instructions.
ExchangeLayout chooseExchangeLayout(const ::tessera::LinearLayout &src,
                                    const ::tessera::LinearLayout &dst,
                                    int64_t elemBytes, const BankModel &banks = {});

/// The widest vector (elements, a power of two) in which one thread of `ll`
/// can move its registers through `x`: registers 0..v-1 at consecutive
/// offsets, every other register, lane and warp v-aligned, at most
/// banks.maxVectorBytes.
int32_t exchangeVector(const ExchangeLayout &x, const ::tessera::LinearLayout &ll,
                       int64_t elemBytes, const BankModel &banks = {});

/// Whether `ll` (16-bit elements) can read its registers through `x` as 8 x 8
/// matrices, four per instruction: registers 0..7 of every thread and the 32
/// lanes cover four matrices whose rows are 16 contiguous, aligned bytes, the
/// rows along the buffer (Matrices: register 0 and lanes 0, 1 step along a
/// row) or across it (TransposedMatrices: lanes 2..4 step along a row), and
/// every other register and warp moves by whole rows.
ExchangeRead exchangeMatrixRead(const ExchangeLayout &x, const ::tessera::LinearLayout &ll,
                                int64_t elemBytes);

/// The cost model: wavefronts one warp of `ll` needs to move all its
/// registers through `x`, `vector` elements per access.
int64_t exchangeWavefronts(const ExchangeLayout &x, const ::tessera::LinearLayout &ll,
                           int32_t vector, int64_t elemBytes, const BankModel &banks = {});

} // namespace mlir::tessera

#endif
