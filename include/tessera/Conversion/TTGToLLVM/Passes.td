//===- Passes.td - lowering TTGIR to the LLVM dialect ------*- tablegen -*-===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_PASSES_TD
#define TESSERA_CONVERSION_TTGTOLLVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTTGToLLVM : Pass<"convert-ttg-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower TTGIR (tt and ttg ops on distributed tensors) to the LLVM dialect.";
  let description = [{
    Every tensor becomes an LLVM struct of the elements the current thread
    owns under its layout; element coordinates come from the layout's
    LinearLayout. Target specifics (program ids, predicated memory access,
    shuffles, barriers, the math library) come from the TargetInfo of the
    module's "ttg.target". Structured control flow must already be lowered to
    cf (convert-scf-to-cf).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::ROCDL::ROCDLDialect"];
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

#endif // TESSERA_CONVERSION_TTGTOLLVM_PASSES_TD
