//===- Passes.td - profiling passes ------------------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_PROF_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_PROF_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ProfCheckScopes : Pass<"prof-check-scopes", "mlir::ModuleOp"> {
  let summary = "Check that every profiling scope a function starts it ends, on every path.";
  let description = [{
    Walks each function's structured control flow with the stack of open
    scopes: a `prof.record end` must close the innermost open scope of the
    same name; at a `tt.return` (and at the end of every loop body and if
    branch) the stack must be what it was on entry to the function (region).
    Both branches of an `scf.if` must leave the same scopes open. Reports
    the first offending record (or return) at its location and fails.
  }];
}

def ProfLowerRecords : Pass<"prof-lower-records", "mlir::ModuleOp"> {
  let summary = "Lower scope records to a per-warp circular buffer in shared memory.";
  let description = [{
    Runs after ttg-allocate-shared-memory, on a module with `prof.record`
    ops (others are left unchanged):
    1. Checks the scopes (as prof-check-scopes).
    2. Gives every scope name an id (in order of first appearance), and
       writes the table to the module attribute `prof.scopes` (JSON: name,
       function, file, line).
    3. Places the buffer after the shared memory the module uses
       (`ttg.shared`, aligned to 16 bytes), sized by `prof.buffer_bytes` if
       the module sets it, else by what is free up to `max-shared` (at most
       16 KiB, and no more than the rings of the most records a warp of the
       module's kernels can write when that is bounded: records in loops of
       constant trip count, ifs and calls, not in other loops or
       recursions); capacities are multiples of 4 records (32-byte
       sectors); fails when not even one record per warp fits. Raises
       `ttg.shared` by its size.
    4. Rewrites each record into `prof.store`, puts `prof.init` at the entry
       of every kernel (a public function that is not noinline) and
       `prof.finalize` before each of its returns.
    Noinline functions' records use the same buffer (its offset is the
    module's), so the scopes of a callee land in the caller's rings.
  }];
  let options = [
    Option<"maxShared", "max-shared", "int64_t", "0",
           "Shared memory a program may use on the target, in bytes (0: 48 KiB)">,
    Option<"bufferBytes", "buffer-bytes", "int64_t", "0",
           "Shared memory for the rings and header, in bytes (0: the module's "
           "prof.buffer_bytes, else what is free up to 16 KiB)">,
    Option<"metric", "metric", "std::string", "\"\"",
           "What records hold: cycle (the SM clock) or time (the global timer, ns); "
           "default: the module's prof.metric, else cycle">,
  ];
  let dependentDialects = ["mlir::tessera::prof::ProfDialect"];
}

#endif // TESSERA_DIALECT_PROF_TRANSFORMS_PASSES_TD
