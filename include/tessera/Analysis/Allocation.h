//===- Allocation.h - shared-memory buffers, their lifetimes and offsets -*- C++ -*-===//
//
// The shared memory of a function is a set of buffers:
//   explicit  a ttg.local_alloc, live from the alloc to its last use (through
//             memdesc views; a use inside a loop that does not contain the
//             alloc keeps it live to the end of that loop);
//   scratch   what one op needs while it runs (a layout conversion, a reduce or
//             scan across warps, a dot on FMA units ...), live at that op only;
//   virtual   a call of a noinline function that uses shared memory: the
//             callee's whole allocation, live at the call.
// Buffers whose lifetimes overlap get disjoint byte ranges; others may share.
// ModuleAllocation walks the call graph callees first, so that a call's
// virtual buffer has its callee's size; recursion is an error.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_ALLOCATION_H
#define TESSERA_ANALYSIS_ALLOCATION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <memory>
#include <vector>

namespace mlir::tessera {
namespace tt {
class FuncOp;
}

/// Bytes of scratch shared memory `op` needs while it runs (0: none). The
/// lowering knows this, so the caller provides it.
using ScratchSizeFn = std::function<int64_t(Operation *)>;

class Allocation {
public:
  enum class Kind { Explicit, Scratch, Virtual };
  struct Buffer {
    unsigned id;
    Kind kind;
    Operation *owner; // the local_alloc, the op needing scratch, or the call
    int64_t size, alignment, offset = 0;
    int64_t start, end; // live at program points [start, end]
  };

  /// `callees` maps each analyzed function to (bytes it needs, the largest
  /// alignment among its buffers), for the virtual buffers of calls.
  Allocation(tt::FuncOp fn, const ScratchSizeFn &scratchSize,
             const llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> &callees);

  /// Bytes this function needs, its callees included.
  int64_t getSharedMemorySize() const { return total; }
  /// The largest alignment any buffer asks for (1 without buffers).
  int64_t getMaxAlignment() const;
  const std::vector<Buffer> &getBuffers() const { return buffers; }
  /// The buffer an op owns (its scratch, its call's virtual buffer, or the
  /// buffer a local_alloc creates), or null.
  const Buffer *getBuffer(Operation *owner) const;
  /// The explicit buffer a memdesc value views, or null.
  const Buffer *getBufferOf(Value memdesc) const;
  /// The program point of an op (pre-order position in the function).
  int64_t getPoint(Operation *op) const { return points.lookup(op); }

  static const char *kindName(Kind k);

private:
  void number(tt::FuncOp fn);
  void addExplicit(Operation *alloc);
  void assignOffsets();

  std::vector<Buffer> buffers;
  llvm::DenseMap<Operation *, unsigned> byOwner;
  llvm::DenseMap<Value, unsigned> byValue;
  llvm::DenseMap<Operation *, int64_t> points, subtreeEnd;
  int64_t lastPoint = 0;
  int64_t total = 0;
};

class ModuleAllocation {
public:
  /// Analyzes every tt.func of `module`; `failed()` after an error (reported
  /// at the op: recursion through calls).
  ModuleAllocation(ModuleOp module, const ScratchSizeFn &scratchSize);
  bool failed() const { return hadError; }
  const Allocation *get(Operation *fn) const;
  /// The largest need of a kernel (a public function that is not noinline).
  int64_t getKernelSharedMemorySize() const { return kernelTotal; }
  /// Functions in the order they were analyzed (callees first).
  const std::vector<Operation *> &getFunctions() const { return order; }

private:
  llvm::DenseMap<Operation *, std::unique_ptr<Allocation>> allocations;
  std::vector<Operation *> order;
  int64_t kernelTotal = 0;
  bool hadError = false;
};

} // namespace mlir::tessera

#endif // TESSERA_ANALYSIS_ALLOCATION_H
