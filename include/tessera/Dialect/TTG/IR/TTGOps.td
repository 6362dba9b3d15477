//===- TTGOps.td - operations of the ttg dialect -----------*- tablegen -*-===//
//
// Assembly formats follow the TTGIR that Triton 3.x prints for the same
// operations, so that its dumps parse unchanged. Invariants that the formats
// cannot express are checked by each op's verifier, whose messages name the
// expected and the actual value.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGOPS_TD
#define TESSERA_DIALECT_TTG_IR_TTGOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tessera/Dialect/TT/IR/TTTypes.td"
include "tessera/Dialect/TT/IR/TTAttrs.td"
include "tessera/Dialect/TT/IR/TTInterfaces.td"
include "tessera/Dialect/TTG/IR/TTGDialect.td"
include "tessera/Dialect/TTG/IR/TTGInterfaces.td"
include "tessera/Dialect/TTG/IR/TTGAttrs.td"
include "tessera/Dialect/TTG/IR/TTGTypes.td"

/// The tile-size limit of tt applies to ttg's tensors as well.
def TTG_TensorSizeIsBounded : NativeOpTrait<"TensorSizeIsBounded"> {
  let cppNamespace = "::mlir::tessera::tt::OpTrait";
}

class TTG_Op<string mnemonic, list<Trait> traits = []>
    : Op<TTG_Dialect, mnemonic, !listconcat(traits, [TTG_TensorSizeIsBounded])>;

//===----------------------------------------------------------------------===//
// Layout conversion
//===----------------------------------------------------------------------===//

def TTG_ConvertLayoutOp : TTG_Op<"convert_layout", [Pure]> {
  let summary = "move a tensor's elements to another layout";
  let description = [{
    The result holds the same values as the source, distributed over the
    threads as the result's layout says. Shape and element type are kept;
    the layouts may be any.

    ```mlir
    %1 = ttg.convert_layout %0 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    ```
  }];
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TTG_LocalAllocOp : TTG_Op<"local_alloc", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "allocate a buffer in shared memory";
  let description = [{
    Without a source the buffer is uninitialized and must be `mutable`; with
    one it is initialized from the tensor, whose shape and element type it
    takes. `alignment` (bytes) overrides the default alignment.

    ```mlir
    %buf = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
    %a = ttg.local_alloc %t : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared, #smem>
    ```
  }];
  let arguments = (ins Optional<TT_Tensor>:$src, OptionalAttr<I32Attr>:$alignment);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TTG_LocalDeallocOp : TTG_Op<"local_dealloc"> {
  let summary = "free a buffer in shared memory";
  let description = [{
    Ends the lifetime of a buffer made by `ttg.local_alloc` (not of a view
    of one). Buffers that are never freed explicitly live until the end of
    the kernel.

    ```mlir
    ttg.local_dealloc %buf : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins Arg<TTG_MemDesc, "the buffer", [MemFree<TTG_SharedMemory>]>:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def TTG_LocalLoadOp : TTG_Op<"local_load"> {
  let summary = "load a buffer in shared memory into a tensor";
  let description = [{
    The result has the buffer's shape and element type and any distributed
    layout. The optional token orders the load after the asynchronous copies
    it stands for.

    ```mlir
    %t = ttg.local_load %a : !ttg.memdesc<64x32xf16, #shared, #smem> -> tensor<64x32xf16, #blocked>
    %u = ttg.local_load %b token %tok : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<32x64xf16, #blocked>
    ```
  }];
  let arguments = (ins Arg<TTG_MemDesc, "the buffer", [MemRead<TTG_SharedMemory>]>:$src,
                       Optional<TTG_AsyncToken>:$token);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $src (`token` $token^)? attr-dict `:` qualified(type($src)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TTG_LocalStoreOp : TTG_Op<"local_store"> {
  let summary = "store a tensor into a mutable buffer in shared memory";
  let description = [{
    ```mlir
    ttg.local_store %t, %b : tensor<32x64xf16, #blocked> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TT_Tensor:$src,
                       Arg<TTG_MemDesc, "the buffer", [MemWrite<TTG_SharedMemory>]>:$dst);
  let assemblyFormat = [{
    $src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Views of buffers
//===----------------------------------------------------------------------===//

def TTG_MemDescIndexOp : TTG_Op<"memdesc_index", [Pure]> {
  let summary = "one buffer of a multi-buffered allocation";
  let description = [{
    Selects entry `index` along the leading dimension: the result drops that
    dimension from the shape and from the allocation shape and keeps element
    type, layout, memory space and mutability.

    ```mlir
    %b0 = ttg.memdesc_index %buf[%i] : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$src, I32:$index);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TTG_MemDescSubsliceOp : TTG_Op<"memdesc_subslice", [Pure]> {
  let summary = "a rectangular part of a buffer at constant offsets";
  let description = [{
    The result is the part of the source of the result's shape that starts
    at `offsets`; it keeps the source's allocation shape, element type,
    layout, memory space and mutability.

    ```mlir
    %s = ttg.memdesc_subslice %b [0, 16] : !ttg.memdesc<64x32xf16, #shared, #smem> -> !ttg.memdesc<64x16xf16, #shared, #smem, 64x32>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$src, DenseI32ArrayAttr:$offsets);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` custom<Offsets>($offsets) `]` attr-dict `:` qualified(type($src))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TTG_MemDescTransOp : TTG_Op<"memdesc_trans", [Pure]> {
  let summary = "a view of a buffer with its dimensions permuted";
  let description = [{
    Result dimension `i` is source dimension `order[i]`; the layout of the
    result describes the same bytes.

    ```mlir
    %t = ttg.memdesc_trans %b {order = array<i32: 1, 0>} : !ttg.memdesc<32x64xf16, #shared, #smem> -> !ttg.memdesc<64x32xf16, #shared1, #smem>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$src, DenseI32ArrayAttr:$order);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TTG_MemDescReshapeOp : TTG_Op<"memdesc_reshape", [Pure]> {
  let summary = "a view of a buffer with another shape of the same size";
  let description = [{
    ```mlir
    %r = ttg.memdesc_reshape %b : !ttg.memdesc<2x32x64xf16, #shared, #smem> -> !ttg.memdesc<64x64xf16, #shared, #smem>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$src);
  let results = (outs TTG_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def TTG_AsyncCopyGlobalToLocalOp : TTG_Op<"async_copy_global_to_local", [
    AttrSizedOperandSegments,
    TT_TypeInferredFrom<"mask is an i1 tensor of the pointer shape", "src", "mask",
                        "::mlir::tessera::tt::getI1SameShape($_self)">,
    TT_TypeInferredFrom<"other has the loaded type", "src", "other",
                        "::mlir::tessera::tt::getPointeeType($_self)">]> {
  let summary = "start copying global memory into a buffer in shared memory";
  let description = [{
    Starts an asynchronous copy (the target's global-to-shared copy) of the elements the
    pointers name into the mutable buffer, which has the pointers' shape and
    their pointee type. Where `mask` is false nothing is read and the buffer
    receives `other` (zero without it). `contiguity` is how many consecutive
    elements each thread may copy at once. The returned token is committed
    with `ttg.async_commit_group` and waited for with `ttg.async_wait`.

    ```mlir
    %tok = ttg.async_copy_global_to_local %ptrs, %buf mask %m other %zero {contiguity = 8 : i32}
             : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins
      Arg<TT_PtrTensor, "the source pointers", [MemRead<TT_GlobalMemory>]>:$src,
      Arg<TTG_MemDesc, "the destination buffer", [MemWrite<TTG_SharedMemory>]>:$dst,
      Optional<TT_BoolTensor>:$mask, Optional<TT_Type>:$other,
      DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::tessera::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::tessera::tt::EvictionPolicy::NORMAL">:$evict,
      DefaultValuedAttr<BoolAttr, "false">:$isVolatile,
      DefaultValuedAttr<I32Attr, "1">:$contiguity);
  let results = (outs TTG_AsyncToken:$token);
  let assemblyFormat = [{
    $src `,` $dst (`mask` $mask^)? (`other` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def TTG_AsyncCommitGroupOp : TTG_Op<"async_commit_group"> {
  let summary = "close a group of asynchronous copies";
  let description = [{
    The copies started since the previous commit form one group; the result
    stands for their completion.

    ```mlir
    %g = ttg.async_commit_group tokens %tok
    ```
  }];
  let arguments = (ins Variadic<TTG_AsyncToken>:$inputTokens);
  let results = (outs TTG_AsyncToken:$asyncToken);
  let assemblyFormat = "(`tokens` $inputTokens^)? attr-dict";
}

def TTG_AsyncWaitOp : TTG_Op<"async_wait"> {
  let summary = "wait until at most `num` groups of copies are in flight";
  let description = [{
    Blocks the thread until all but the `num` most recent committed groups
    of asynchronous copies are complete. The operands name the groups the
    caller depends on; the result orders later reads after the wait.

    ```mlir
    %w = ttg.async_wait %g {num = 1 : i32}
    %all = ttg.async_wait {num = 0 : i32}
    ```
  }];
  let arguments = (ins Variadic<TTG_AsyncToken>:$asyncToken, I32Attr:$num);
  let results = (outs TTG_AsyncToken:$retToken);
  let assemblyFormat = "($asyncToken^)? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global scratch memory
//===----------------------------------------------------------------------===//

def TTG_GlobalScratchAllocOp : TTG_Op<"global_scratch_alloc"> {
  let summary = "per-program scratch space in global memory";
  let description = [{
    A pointer to `nbytes` bytes of global memory private to this program,
    aligned to `alignment` bytes (a power of two).

    ```mlir
    %p = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 1024 : i32} : !tt.ptr<i8>
    ```
  }];
  let arguments = (ins I32Attr:$nbytes, I32Attr:$alignment);
  let results = (outs Res<TT_Ptr, "the scratch space", [MemAlloc<TT_GlobalMemory>]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

def TTG_BarrierOp : TTG_Op<"barrier"> {
  let summary = "wait until every thread of the program gets here";
  let description = [{
    A barrier across the threads of one program (a CTA): memory writes made
    by any of them before it, to shared or global memory, are visible to all
    of them after it. `tl.debug_barrier()` emits it, and `ttg-membar` inserts
    it where shared-memory accesses of different ops would otherwise race.
    (Triton writes this `gpu.barrier`; Tessera does not load the GPU dialect.)

    ```mlir
    ttg.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TESSERA_DIALECT_TTG_IR_TTGOPS_TD
