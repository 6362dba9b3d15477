//===- Membar.h - where shared-memory accesses need a barrier -----*- C++ -*-===//
//
// Threads of a program share its shared memory; an op that writes a range
// another thread may still be reading or writing, or reads a range another
// thread may still be writing, must wait for a barrier in between. Each op's
// lowering orders its own accesses (a store phase, a barrier, a load phase);
// this analysis orders accesses of different ops. It reads the offsets that
// ttg-allocate-shared-memory assigned (`ttg.scratch_offset`/`ttg.scratch_size`
// on ops with scratch and on calls of functions that use shared memory,
// `ttg.allocation.offset` on local_alloc), follows structured control flow
// (branches joined, loops to a fixed point) and CFG blocks, and lists the ops
// that need a barrier before them. ttg.barrier ops already present count.
// A call is an access of its callee's whole region; a function starts with
// nothing pending (the caller's barrier before the call sees to that).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_MEMBAR_H
#define TESSERA_ANALYSIS_MEMBAR_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessera {

class MembarAnalysis {
public:
  /// Byte ranges [begin, end) an op reads and writes.
  struct Interval {
    int64_t begin, end;
    bool operator==(const Interval &o) const { return begin == o.begin && end == o.end; }
    bool intersects(const Interval &o) const { return begin < o.end && o.begin < end; }
  };
  struct Accesses {
    llvm::SmallVector<Interval> reads, writes;
    bool empty() const { return reads.empty() && writes.empty(); }
  };

  /// Analyzes a function (a tt.func or llvm.func) whose shared memory was laid out.
  explicit MembarAnalysis(Operation *function);

  /// Ops that need a barrier right before them, in program order.
  llvm::ArrayRef<Operation *> getBarriers() const { return barriers.getArrayRef(); }

  /// The shared-memory accesses of one op (empty when it has none).
  static Accesses accessesOf(Operation *op);

private:
  struct State {
    Accesses pending; // since the last barrier
    bool operator==(const State &o) const;
    void join(const State &o);
  };
  State visitRegion(Region &region, State in);
  State visitOp(Operation *op, State in);

  llvm::SetVector<Operation *> barriers;
};

} // namespace mlir::tessera

#endif // TESSERA_ANALYSIS_MEMBAR_H
