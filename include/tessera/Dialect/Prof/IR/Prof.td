//===- Prof.td - the prof dialect: intra-kernel profiling --*- tablegen -*-===//
//
// Scope records a kernel makes while it runs (tessera.profiler.language), and
// the GPU-side ops that prof-lower-records turns them into: a per-warp
// circular buffer in shared memory, flushed at kernel exit to this program's
// slice of a global profile buffer that the launcher passes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_PROF_IR_PROF_TD
#define TESSERA_DIALECT_PROF_IR_PROF_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Prof_Dialect : Dialect {
  let name = "prof";
  let cppNamespace = "::mlir::tessera::prof";
  let summary = "Intra-kernel profiling: scope records and their circular buffer";
  let description = [{
    A kernel compiled with profiling scopes (`tessera.profiler.start(mode="scopes")`
    or `TESSERA_PROFILE_SCOPES=1`) carries `prof.record` ops where its scopes
    start and end. `prof-lower-records` (run after shared memory is
    allocated) sizes a circular buffer from the shared memory left free and
    rewrites the records into `prof.init` (kernel entry), `prof.store` (one
    record: lane 0 of each warp writes its scope id and a counter) and
    `prof.finalize` (kernel exit: copy the buffer to this program's slice of
    the global profile buffer). The buffer layout is in docs/profiler.md.

    Module attributes written by the lowering: `prof.smem_offset`,
    `prof.records_per_warp`, `prof.bytes_per_program` (i32), `prof.metric`
    (`"cycle"` or `"time"`) and `prof.scopes` (a JSON list of the scopes, by
    id, with their function and source line). A module may set
    `prof.buffer_bytes` (i32: the shared bytes to use, else as many as are
    free, at most 16 KiB) and `prof.metric` before the lowering.
  }];
}

/// The profile buffer: shared memory that only prof ops touch.
def Prof_Buffer : Resource<"::mlir::tessera::prof::ProfileBuffer">;

class Prof_Op<string mnemonic, list<Trait> traits = []> : Op<Prof_Dialect, mnemonic, traits>;

def Prof_RecordOp : Prof_Op<"record", [MemoryEffects<[MemRead<Prof_Buffer>, MemWrite<Prof_Buffer>]>]> {
  let summary = "the start or the end of a profiling scope";
  let description = [{
    Marks where scope `name` starts (`start`) or ends (`end`) in the program
    order of every thread. Along every path through a function, the scopes a
    function starts it also ends, in nesting order (checked by the verifier:
    `prof-lower-records` reports an unmatched or crossed scope at its line).

    ```mlir
    prof.record start "load"
    prof.record end "load"
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$isEnd);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Prof_InitOp : Prof_Op<"init", [MemoryEffects<[MemWrite<Prof_Buffer>]>]> {
  let summary = "start this program's profile: empty rings, header times";
  let description = [{
    At kernel entry: lane 0 of each warp sets its ring's count to 0; thread 0
    writes the program's start time and counter to the header.

    ```mlir
    prof.init
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Prof_StoreOp : Prof_Op<"store", [MemoryEffects<[MemRead<Prof_Buffer>, MemWrite<Prof_Buffer>]>]> {
  let summary = "append one record to this warp's ring";
  let description = [{
    Lane 0 of each warp writes `(scope_id << 1 | end, counter)` at slot
    `count % records_per_warp` of its warp's ring and increments the count
    (a full ring wraps; the count tells how many records were lost). In a
    kernel the count and slot live in registers; in a `noinline` function,
    in the shared-memory counts (see `prof.count_to_shared`).

    ```mlir
    prof.store {scope_id = 2 : i32, isEnd}
    ```
  }];
  let arguments = (ins I32Attr:$scope_id, UnitAttr:$isEnd);
  let assemblyFormat = "attr-dict";
}

def Prof_CountToSharedOp : Prof_Op<"count_to_shared", [MemoryEffects<[MemWrite<Prof_Buffer>]>]> {
  let summary = "publish a kernel's record count before a call that records";
  let description = [{
    A kernel keeps its warps' record counts in registers; a `noinline`
    function that records reads and bumps the count in shared memory. Before
    a call to such a function, lane 0 of each warp writes its count there.

    ```mlir
    prof.count_to_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Prof_CountFromSharedOp : Prof_Op<"count_from_shared", [MemoryEffects<[MemRead<Prof_Buffer>]>]> {
  let summary = "take a kernel's record count back after a call that records";
  let description = [{
    After a call to a `noinline` function that records, the kernel's warps
    read their counts (and ring slots) back from shared memory.

    ```mlir
    prof.count_from_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Prof_FinalizeOp : Prof_Op<"finalize", [MemoryEffects<[MemRead<Prof_Buffer>, MemWrite<Prof_Buffer>]>]> {
  let summary = "copy this program's profile to the global profile buffer";
  let description = [{
    At kernel exit: a call of the module's noinline flush function, given the
    kernel's hidden profile argument and the warp's count. It holds a barrier;
    thread 0 writes the end time and counter, then the threads copy header,
    counts and rings to this program's slice of the global profile buffer.

    ```mlir
    prof.finalize
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TESSERA_DIALECT_PROF_IR_PROF_TD
