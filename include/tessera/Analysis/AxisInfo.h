//===- AxisInfo.h - contiguity, divisibility and constancy of values -*- C++ -*-===//
//
// For every integer and pointer value (scalar or tensor), per dimension:
//
//   contiguity[d]    the values along d come in runs of this many consecutive
//                    integers (x, x+1, ...; for pointers: consecutive elements),
//                    each run starting at a multiple of this length
//   divisibility[d]  the largest power of two that divides the first value of
//                    every such run (for pointers: in bytes); for a scalar,
//                    the value itself
//   constancy[d]     the values along d come in aligned runs of this many equal
//                    values
//   constant         the value, when every element is the same known integer
//
// All three are powers of two. A scalar has rank 1 (one "dimension" of size 1).
// Facts come from constants, make_range, the tt.divisibility / tt.contiguity /
// tt.constancy attributes of function arguments (specialization) and of ops
// (tl.multiple_of / max_contiguous / max_constancy), and flow through
// arithmetic, views, pointer arithmetic and structured control flow (loop
// values reach a fixed point). Over calls: a function the analysis sees all
// call sites of (a private tt.func) gets the join of its call sites' facts;
// a public function (a kernel) starts from its argument attributes.
//
// Consumers: the vector width of global loads and stores, coalescing order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_AXISINFO_H
#define TESSERA_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tessera {

class AxisInfo {
public:
  using DimVector = SmallVector<int64_t, 4>;

  /// The largest divisibility tracked: 2^30 (what 0 and large powers of two
  /// are said to be divisible by).
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  /// Uninitialized: the value has not been reached yet (the lattice's bottom).
  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constant = std::nullopt);

  /// Nothing known: every run has length 1 and divides by 1.
  static AxisInfo pessimistic(unsigned rank);
  /// Pessimistic for `type` (rank 1 for scalars).
  static AxisInfo pessimistic(Type type);
  /// A splat of the integer `value` over `shape` (a scalar for empty shape).
  static AxisInfo constant(int64_t value, ArrayRef<int64_t> shape);
  /// Largest power of two dividing `value` (kMaxDivisibility for 0).
  static int64_t divisorOf(int64_t value);

  bool isInitialized() const { return !contiguity.empty(); }
  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned d) const { return contiguity[d]; }
  int64_t getDivisibility(unsigned d) const { return divisibility[d]; }
  int64_t getConstancy(unsigned d) const { return constancy[d]; }
  const DimVector &getContiguity() const { return contiguity; }
  const DimVector &getDivisibility() const { return divisibility; }
  const DimVector &getConstancy() const { return constancy; }
  std::optional<int64_t> getConstant() const { return constantValue; }

  /// The facts that hold for values that are either `a` or `b` (a control-flow
  /// merge): per dimension the smaller run lengths and divisors, the constant
  /// only if both agree. An uninitialized side is ignored.
  static AxisInfo join(const AxisInfo &a, const AxisInfo &b);

  bool operator==(const AxisInfo &other) const {
    return contiguity == other.contiguity && divisibility == other.divisibility &&
           constancy == other.constancy && constantValue == other.constantValue;
  }
  void print(raw_ostream &os) const;

private:
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constantValue;
};

using AxisInfoLattice = dataflow::Lattice<AxisInfo>;

/// The sparse forward analysis computing AxisInfo. Load it into a
/// DataFlowSolver together with dataflow::DeadCodeAnalysis and
/// dataflow::SparseConstantPropagation (or use ModuleAxisInfo).
class AxisInfoAnalysis : public dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op, ArrayRef<const AxisInfoLattice *> operands,
                               ArrayRef<AxisInfoLattice *> results) override;
  void visitNonControlFlowArguments(Operation *op, const RegionSuccessor &successor,
                                    ArrayRef<AxisInfoLattice *> argLattices,
                                    unsigned firstIndex) override;
  void setToEntryState(AxisInfoLattice *lattice) override;
};

/// AxisInfo of every value of a module, computed once over its call graph.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(ModuleOp module);
  /// The facts about `value`; uninitialized for code the analysis found
  /// unreachable (a function nothing calls, a branch never taken).
  AxisInfo get(Value value) const;
  /// Largest number of consecutive elements of `ptr` (a tensor of pointers)
  /// along its fastest-varying contiguous dimension that one aligned vector
  /// access may cover, given `elementBytes` and `maxBytes` (16 for 128-bit).
  int64_t getVectorElements(Value ptr, unsigned dim, int64_t elementBytes,
                            int64_t maxBytes = 16) const;

private:
  DataFlowSolver solver;
};

/// Whether the integer `v` is known to be >= 0 (program ids, non-negative
/// constants, arguments specialization marked tt.non_negative, values a
/// tl.assume vouches for, and what arithmetic makes of those).
bool knownNonNegative(Value v);

} // namespace mlir::tessera

#endif // TESSERA_ANALYSIS_AXISINFO_H
