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

def Coalesce : Pass<"ttg-coalesce", "mlir::ModuleOp"> {
  let summary = "Give each global load, store and atomic a layout that touches memory in wide, coalesced accesses.";
  let description = [{
    For every tt.load, tt.store, tt.atomic_rmw and tt.atomic_cas on a tensor
    of pointers, the AxisInfo analysis (over the call graph) tells, per
    dimension, how many consecutive elements the pointers cover and how they
    are aligned. The op gets a blocked layout whose order lists the dims by
    contiguity (most contiguous first) and whose per-thread vector along the
    first is as wide as contiguity, alignment and 128 bits allow (and the
    tensor has elements for: no thread is left idle to widen another), lanes
    then warps spread along that order. Its operands are converted to that
    layout and its result converted back, so the rest of the code is
    unchanged; ttg-remove-layout-conversions then carries the new layout to
    the values around it. An access keeps its layout when the new one would
    not give it wider vectors or a better order (a gather through loaded
    indices, a stride), so nothing pays a conversion for no gain.
  }];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect"];
}

def Pipeline : Pass<"ttg-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline the loads of tensor-core operands in loops through a ring of shared-memory buffers.";
  let description = [{
    For an scf.for whose body loads dot operands (tt.load feeding a
    conversion to a #ttg.dot_op layout, with `other` zero or absent) from
    pointers, masks and values computed from loop invariants, the induction
    variable and loop-carried values advanced only from such values: the
    loads of iteration i + S - 1 become ttg.async_copy_global_to_local into
    buffer (i + S - 1) % S of a ring of S swizzled shared-memory buffers
    (masked off past the end of the loop), committed as one group per
    iteration; iteration i waits (ttg.async_wait, S - 2 groups left in
    flight) and reads its operands from buffer i % S with ttg.local_load
    straight into the dot operand layouts. A prologue starts iterations
    0 .. S - 2; after the loop everything is waited for and the rings are
    freed. S is the loop's `tt.num_stages` if it has one, else the option;
    below 2 nothing changes, and loops whose loads do not qualify keep their
    form.

    Operand loads that cannot be background copies (fewer than 4 bytes per
    copy, e.g. rows not proven 16-byte aligned) but whose addresses can be
    computed ahead are prefetched into registers one iteration ahead: the
    load of iteration i + 1 is issued at the top of iteration i (masked off
    past the end) and carried to the next iteration; iteration 0's before the
    loop. Tiles of more than 32 elements a thread (64 in all) and loops in the
    slow branch of ttg-version-nonnegative are left as they are.
  }];
  let options = [
    Option<"numStages", "num-stages", "int64_t", "3",
           "Stages of loops without tt.num_stages (the launch's num_stages).">,
    Option<"registerPrefetch", "register-prefetch", "bool", "true",
           "Prefetch into registers, one iteration ahead, operand loads that cannot be background copies.">,
  ];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect", "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def RemoveLayoutConversions : Pass<"ttg-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Carry the layouts of loads forward and recompute cheap values, removing layout conversions.";
  let description = [{
    1. Forward: the layout of every load's result is carried to the values
       computed from it: through elementwise ops, blocked-to-blocked
       conversions, reductions and scans (their results take the slice of the
       layout), expand_dims of such a slice, broadcasts, and the values an
       scf.for carries or an scf.if yields. Where a value is reached from two
       layouts, the first load in program order wins. A conversion is put
       wherever an op still needs another layout (a store coalesced
       differently, a dot operand, a call).
    2. Backward: a conversion whose source is cheap to recompute (constants,
       make_range, splat, expand_dims, broadcast, elementwise ops over those)
       is replaced by recomputing it in the destination layout. Loads are
       never recomputed: their layout is ttg-coalesce's choice.
    Step 1 is kept only when it does not increase the bytes that
    conversions move through shared memory (weighted by loop nesting) over
    the whole module; otherwise the module is left as step 2 alone makes it.
  }];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect"];
}

def VersionNonNegative : Pass<"ttg-version-nonnegative", "mlir::ModuleOp"> {
  let summary = "Run a function's tail twice over: once where the scalars its wrapped indices start from are >= 0, once for any value.";
  let description = [{
    `(pid_n * BN + tl.arange(0, BN)) % N` is BN consecutive integers only if
    the dividend is not negative (a signed remainder of -4..-1 by 4 is
    0, -3, -2, -1), and AxisInfo cannot always prove it: in the grouped
    program order of Triton's matmul tutorial pid_n is a quotient by
    `min(num_pid_m - first_pid_m, GROUP_M)`, whose sign depends on the
    arguments. Without the proof the loads through such indices are not
    vectorized, nor pipelined as 16-byte copies.

    For each arith.remsi whose dividend AxisInfo finds contiguous (a run of
    at least 2 along some dimension), whose result reaches the pointer of a
    global load, store or atomic, and whose dividend is not known to be
    >= 0, the pass looks for the scalars the dividend's sign depends on
    (through splat, broadcast, expand_dims, reshape, trans, layout
    conversions, sign extension, additions, products and shifts): those
    defined in the function's entry block, or its arguments. Where every
    such remainder has them, the ops of the entry block after the last of
    those scalars move into the else branch of an scf.if on "all of them
    >= 0"; its then branch is a copy in which each scalar is replaced by
    `arith.maxsi(s, 0)` (equal to s there, and provably >= 0), so AxisInfo,
    ttg-coalesce and ttg-pipeline see the runs. Results are the same on
    both paths; the code of the tail is there twice. The scf.if carries
    `tt.nonnegative_version`; remainders inside its else branch are not
    versioned again. A function whose body is not one block, or whose
    remainders depend on scalars computed in loops or branches, is left
    alone.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def DropSlowVersions : Pass<"ttg-drop-slow-versions", "mlir::ModuleOp"> {
  let summary = "Keep only the then branch of each scf.if ttg-version-nonnegative made.";
  let description = [{
    Replaces each scf.if carrying `tt.nonnegative_version` by the ops of its
    then branch (its results by what that branch yields). The result is not
    the kernel's meaning for every input: the NVIDIA backend compiles it only
    to learn how many registers the version that runs in practice needs, and
    caps the full kernel's registers there, so that the other version (code
    that runs only where a wrapped index starts below zero) does not lower
    the occupancy of the kernel. Other ifs are left alone.
  }];
}

def HoistLoads : Pass<"ttg-hoist-loads", "mlir::ModuleOp"> {
  let summary = "Start global loads before the reductions, scans and layout conversions that do not feed them.";
  let description = [{
    A reduction across warps, a scan or a layout conversion through shared
    memory lowers to a barrier, and no load is moved across a barrier later
    (ptxas keeps memory operations on their side of it): a load written after
    a row's reduction (layer norm's weights after the statistics) waits for
    the reduction before its memory latency starts. This pass moves each
    tt.load of a block up, in its block, above the ops before it that do not
    define its operands and that neither write memory nor have effects the
    pass cannot see: pure ops (tt.reduce, tt.scan and ttg.convert_layout
    among them) and other loads. It stops at anything that writes or may
    write (stores, atomics, calls, inline assembly, barriers, prints,
    asserts, profiling records) and at ops with regions other than
    reductions and scans. Volatile loads stay where they are. The order of
    the loads among themselves is kept.
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
