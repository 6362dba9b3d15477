//===- Passes.td - transformations of TTGIR ----------------*- tablegen -*-===//
//
// One pass per file in lib/Dialect/TTG/Transforms/. Each runs on a module in
// TTGIR (every tensor has a layout) and keeps it in TTGIR.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_TTG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelerateMatmul : Pass<"ttg-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "Put dots that tensor cores can run into mma layouts, and keep loop accumulators there.";
  let description = [{
    1. Each tt.dot whose operand and accumulator types the target's tensor
       cores take (the module's ttg.target; the choice is the vendor's
       TargetInfo::getTensorCoreLayouts) gets its operands converted to
       #ttg.dot_op layouts of the accumulator layout the vendor names, its
       accumulator to that layout, and its result converted back to the
       layout it had. A dot the target has no tensor-core layout for is left
       alone (it lowers on FMA units).
    2. A loop-carried value that the loop only converts to one such
       accumulator layout and yields from it (the accumulator of a K loop) is
       carried in that layout instead: one conversion before the loop and one
       after it, none per iteration.
  }];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect"];
}

def AllocateSharedMemory : Pass<"ttg-allocate-shared-memory", "mlir::ModuleOp"> {
  let summary = "Lay out the shared memory of every function and record what each needs.";
  let description = [{
    Runs the Allocation analysis (include/tessera/Analysis/Allocation.h) over
    the call graph and records its result: `ttg.scratch_offset` and
    `ttg.scratch_size` on every op that needs scratch (layout conversions,
    reductions and scans across warps, dots on FMA units, views, histograms,
    scalar atomics) and on every call of a noinline function that uses shared
    memory (its virtual buffer); `ttg.allocation.offset` and
    `ttg.allocation.size` on local_alloc; `ttg.func_shared` on functions that
    need any; and the largest kernel's total in the module's `ttg.shared`.
    Buffers whose lifetimes do not overlap share bytes, so ttg-membar must run
    before the lowering.
  }];
}

def Membar : Pass<"ttg-membar", "mlir::ModuleOp"> {
  let summary = "Insert ttg.barrier where shared-memory accesses of different ops would race.";
  let description = [{
    Runs the Membar analysis (include/tessera/Analysis/Membar.h) on every
    function laid out by ttg-allocate-shared-memory and puts a ttg.barrier
    before each op that would otherwise write bytes other threads may still be
    reading or writing, or read bytes they may still be writing. Op lowerings
    order only their own accesses.
  }];
}

def AllocateGlobalScratch : Pass<"ttg-allocate-global-scratch", "mlir::ModuleOp"> {
  let summary = "Lay out each program's global scratch memory and record its size per program.";
  let description = [{
    Gives every `ttg.global_scratch_alloc` an offset (`ttg.global_scratch_offset`,
    bytes, aligned as the op asks) within its program's scratch region, and
    records on the module the bytes each program needs
    (`ttg.global_scratch_memory_size`, a multiple of the alignment) and the
    largest alignment (`ttg.global_scratch_memory_alignment`). A kernel of a
    module with scratch takes one more, hidden, argument after its own: the
    base of `grid size × ttg.global_scratch_memory_size` bytes, which the
    launcher gets from the user's allocator (`tessera.set_allocator`).
    Scratch is only supported in kernels: an alloc in a `noinline` function
    is an error (those functions do not receive the base).
  }];
}

#endif // TESSERA_DIALECT_TTG_TRANSFORMS_PASSES_TD
