//===- Passes.td - NVIDIA's TTGIR passes ---------------------*- tablegen -*-===//

#ifndef TESSERA_NVIDIA_DIALECT_TTNG_TRANSFORMS_PASSES_TD
#define TESSERA_NVIDIA_DIALECT_TTNG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TMALowering : Pass<"ttng-tma-lowering", "mlir::ModuleOp"> {
  let summary = "Lower tensor-descriptor loads and stores to TMA copies through shared memory.";
  let description = [{
    In TTGIR for sm_90 or newer, each `tt.descriptor_load` of a 2-D block
    becomes
      a 1024-byte aligned `ttg.local_alloc` of the block in the
      `#ttg.nvmma_shared` layout TMA writes (swizzle: the widest of 128, 64
      and 32 bytes dividing the block's inner extent in bytes, else none),
      an mbarrier (`ttg.local_alloc` of `1xi64`) initialized for one
      arrival, `ttng.barrier_expect` of the block's bytes,
      `ttng.async_tma_copy_global_to_local`, `ttng.wait_barrier` (phase 0),
      `ttng.inval_barrier`, and a `ttg.local_load` into the load's layout;
    each `tt.descriptor_store` becomes a `ttg.local_alloc` of the value in
    that layout, `ttng.async_tma_copy_local_to_global` and
    `ttng.async_tma_store_wait` (0), so the copy has read shared memory
    before the buffer is reused or the program ends. ttg-membar then orders
    the threads around them.
    The descriptor must be a kernel argument (the CUtensorMap the launcher
    encodes) or made in the kernel by `tt.make_tensor_descriptor`, which
    becomes `ttng.tensormap_create` into this program's global scratch
    (`ttg.global_scratch_alloc` of 128 bytes), its acquire and
    `ttng.reinterpret_tensor_descriptor`; the box is the block with its inner
    extent cut to the swizzle width, as the copies' lowering splits it (the
    host encodes kernel arguments' maps the same way). Descriptors of other
    ranks or reaching through calls are errors at the op (Tessera's front end
    lowers those to pointer accesses instead). Below sm_90 the pass does
    nothing.

    Guards: the front end puts copies through a tensor map under
    `scf.if (conditions) { copy } else { pointer accesses }` with what TMA
    needs that it could not check while tracing. Conditions AxisInfo proves
    (`srem(x, k) == 0` with x divisible by k, `x >= 0` with x known
    non-negative) are dropped, and a guard left with none becomes its copy.
    Where the rest does not change in the innermost loop around the guard,
    the loop is unswitched on it (the other copy of the loop takes every
    guard's pointer branch). Policy: by default a guarded copy takes TMA only
    where it serves tensor cores (a load whose block reaches a `tt.dot`
    operand, a store of a value computed from a dot); elsewhere its pointer
    branch, which is faster for a copy or elementwise work (one TMA round
    trip per program). `all-copies` keeps TMA for every guarded copy.

    Pipelining: in an `scf.for` with an i32 induction variable that writes no
    memory, the descriptor loads of its body (not nested) whose coordinates
    are computed from loop-invariant values and the induction variable by
    pure ops are started S - 1 iterations ahead (S: the loop's
    `tt.num_stages`, else the `num-stages` option; fewer than 2 leaves the
    loop synchronous). Each load gets a ring of S buffers and the loop S
    mbarriers: the prologue starts iterations 0 .. S-2; iteration j waits
    on barrier j % S for phase (j / S) & 1, reads its blocks from slot j % S,
    then starts iteration j + S - 1 into slot (j - 1) % S (predicated off
    past the end; ttg-membar puts the CTA barrier that orders the previous
    iteration's reads before it); after the loop the barriers are
    invalidated.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", "3",
           "Stages of the TMA pipeline of a loop without tt.num_stages">,
    Option<"allCopies", "all-copies", "bool", "false",
           "Copy by TMA wherever a guard allows it, not only for tensor cores">
  ];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect", "mlir::tessera::ttng::TTNGDialect"];
}

def TMAOperands : Pass<"ttng-tma-operands", "mlir::ModuleOp"> {
  let summary = "Let warpgroup dots read their operands from the TMA buffers they were loaded into.";
  let description = [{
    After ttg-accelerate-matmul: an operand of a `ttng.warp_group_dot` that is
    a block ttng-tma-lowering's pipeline read out of a ring slot
    (`ttg.local_load` marked `ttng.tma_slot`), stored again into a buffer of
    the same layout (`ttg.local_alloc`, operand b or a) or converted into
    registers (operand a), becomes the ring slot itself: the dot reads the
    block where TMA put it. Only 16-bit elements (wgmma reads those in either
    major order) and synchronous dots (the slot is refilled S - 1 iterations
    later). The copies and conversions left unused are erased.
  }];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect", "mlir::tessera::ttng::TTNGDialect"];
}

#endif // TESSERA_NVIDIA_DIALECT_TTNG_TRANSFORMS_PASSES_TD
