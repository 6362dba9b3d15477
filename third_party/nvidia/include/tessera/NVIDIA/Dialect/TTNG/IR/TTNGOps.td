//===- TTNGOps.td - operations of the ttng dialect ---------*- tablegen -*-===//
//
// Assembly formats follow the TTGIR that Triton 3.x prints for the same
// operations. Invariants that the formats cannot express are checked by each
// op's verifier, whose messages name the expected and the actual value.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGOPS_TD
#define TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tessera/Dialect/TT/IR/TTTypes.td"
include "tessera/Dialect/TT/IR/TTAttrs.td"
include "tessera/Dialect/TT/IR/TTInterfaces.td"
include "tessera/Dialect/TTG/IR/TTGInterfaces.td"
include "tessera/Dialect/TTG/IR/TTGTypes.td"
include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGDialect.td"

def TTNG_TensorSizeIsBounded : NativeOpTrait<"TensorSizeIsBounded"> {
  let cppNamespace = "::mlir::tessera::tt::OpTrait";
}

class TTNG_Op<string mnemonic, list<Trait> traits = []>
    : Op<TTNG_Dialect, mnemonic, !listconcat(traits, [TTNG_TensorSizeIsBounded])>;

def TTNG_WarpGroupDotOp : TTNG_Op<"warp_group_dot", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>, TT_DotOpInterface,
    TT_ResultInferredFrom<"the accumulator has the result type", "d", "c", "$_self">]> {
  let summary = "warpgroup matrix product d = a * b + c (Hopper wgmma)";
  let description = [{
    A warpgroup (four warps) computes `a * b + c`: `a` (M x K) comes from
    registers (a tensor with a `#ttg.dot_op` layout, `opIdx = 0`, of the
    accumulator's `#ttg.nvidia_mma` version 3 layout) or from shared memory,
    `b` (K x N) always from shared memory, and the accumulator `c` (M x N)
    lives in registers with the version 3 MMA layout. With `useC` false the
    accumulator is ignored (treated as zero). `isAsync` leaves the operation
    running; `ttng.warp_group_dot_wait` waits for it. `inputPrecision` and
    `maxNumImpreciseAcc` mean what they mean for `tt.dot`.

    ```mlir
    %d = ttng.warp_group_dot %a, %b, %c {inputPrecision = 0 : i32, isAsync = true}
           : !ttg.memdesc<64x32xf16, #shared1, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins TTG_TensorOrMemDesc:$a, TTG_TensorOrMemDesc:$b,
      TT_FpIntTensor:$c, Optional<I1>:$useC,
      DefaultValuedAttr<TT_InputPrecisionAttr, "::mlir::tessera::tt::InputPrecision::IEEE">:$inputPrecision,
      DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc,
      DefaultValuedAttr<BoolAttr, "false">:$isAsync);
  let results = (outs TT_FpIntTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` $useC^)? attr-dict `:` type($a) `*` qualified(type($b)) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TTNG_WarpGroupDotWaitOp : TTNG_Op<"warp_group_dot_wait", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait until at most `pendings` asynchronous warpgroup dots are in flight";
  let description = [{
    Waits for the asynchronous `ttng.warp_group_dot`s of this warpgroup
    until at most `pendings` remain. The operands (dot results and the
    buffers the dots read; at least one) are returned unchanged; using the
    results orders later uses after the wait.

    ```mlir
    %r:3 = ttng.warp_group_dot_wait %d, %a, %b {pendings = 0 : i32}
             : tensor<64x64xf32, #mma>, !ttg.memdesc<64x32xf16, #shared1, #smem>, !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins Variadic<TTG_TensorOrMemDesc>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<TTG_TensorOrMemDesc>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def TTNG_FenceAsyncSharedOp : TTNG_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<TTG_SharedMemory>, MemWrite<TTG_SharedMemory>]>]> {
  let summary = "order generic-proxy shared-memory accesses before async-proxy ones";
  let description = [{
    `fence.proxy.async.shared::cta` (`::cluster` with `bCluster = true`):
    shared-memory writes made by ordinary stores become visible to the
    asynchronous proxy (wgmma, TMA) that runs after the fence.

    ```mlir
    ttng.fence_async_shared {bCluster = false}
    ```
  }];
  let arguments = (ins BoolAttr:$bCluster);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// mbarriers: 64-bit objects in shared memory that count arrivals and the
// bytes of asynchronous (TMA) copies still to land; waits go by phase parity.
//===----------------------------------------------------------------------===//

// Each names the barrier buffer it reads or writes (getEffects), so that
// ttg-membar orders other threads' uses after it.
class TTNG_BarrierOp<string mnemonic, list<Trait> traits = []>
    : TTNG_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let hasVerifier = 1;
}

def TTNG_InitBarrierOp : TTNG_BarrierOp<"init_barrier"> {
  let summary = "initialize an mbarrier to expect `count` arrivals per phase";
  let description = [{
    `mbarrier.init.shared::cta.b64`, done by one thread of the program. The
    barrier is a mutable `1xi64` buffer in shared memory.

    ```mlir
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$alloc, I32Attr:$count);
  let assemblyFormat = "$alloc `,` $count attr-dict `:` qualified(type($alloc))";
}

def TTNG_InvalBarrierOp : TTNG_BarrierOp<"inval_barrier"> {
  let summary = "invalidate an mbarrier (before its memory is reused)";
  let description = [{
    ```mlir
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$alloc);
  let assemblyFormat = "$alloc attr-dict `:` qualified(type($alloc))";
}

def TTNG_BarrierExpectOp : TTNG_BarrierOp<"barrier_expect"> {
  let summary = "arrive on an mbarrier and expect `size` more bytes of asynchronous copies";
  let description = [{
    `mbarrier.arrive.expect_tx`: one arrival, and the current phase completes
    only once `size` bytes of TMA copies signalling this barrier have landed.
    Done by one thread, where `pred` holds.

    ```mlir
    ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$alloc, I32Attr:$size, I1:$pred);
  let assemblyFormat = "$alloc `,` $size `,` $pred attr-dict `:` qualified(type($alloc))";
}

def TTNG_WaitBarrierOp : TTNG_BarrierOp<"wait_barrier"> {
  let summary = "wait until the mbarrier's phase of parity `phase` has completed";
  let description = [{
    Every thread waits (`mbarrier.try_wait.parity` in a loop) until the phase
    whose parity is `phase` (an i32; its lowest bit counts) completes.

    ```mlir
    ttng.wait_barrier %bar, %phase : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$alloc, I32:$phase);
  let assemblyFormat = "$alloc `,` $phase attr-dict `:` qualified(type($alloc))";
}

def TTNG_ArriveBarrierOp : TTNG_BarrierOp<"arrive_barrier"> {
  let summary = "arrive `count` times on an mbarrier";
  let description = [{
    `mbarrier.arrive`, by one thread, where `pred` (when given) holds.

    ```mlir
    ttng.arrive_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ttng.arrive_barrier %bar, 2, %pred : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TTG_MemDesc:$alloc, I32Attr:$count, Optional<I1>:$pred);
  let assemblyFormat = "$alloc `,` $count (`,` $pred^)? attr-dict `:` qualified(type($alloc))";
}

//===----------------------------------------------------------------------===//
// TMA: bulk tensor copies between global memory, described by a tensor
// descriptor (a 128-byte CUtensorMap), and shared memory.
//===----------------------------------------------------------------------===//

def TTNG_AsyncTMACopyGlobalToLocalOp : TTNG_Op<"async_tma_copy_global_to_local", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "start a TMA copy of one block from global to shared memory";
  let description = [{
    `cp.async.bulk.tensor.<rank>d.shared::cluster.global.mbarrier::complete_tx::bytes`:
    one thread, where `pred` holds, starts copying the block of the
    descriptor at `coord` (element offsets, innermost dimension last) into
    `result`; elements outside the tensor read as zero. Completion is
    signalled on `barrier` by the bytes copied (see `ttng.barrier_expect`).
    `result` has the descriptor's block shape and element type and an
    `#ttg.nvmma_shared` layout, whose swizzle the descriptor must use.

    ```mlir
    ttng.async_tma_copy_global_to_local %desc[%x, %y] %buf, %bar, %true
        : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TT_TensorDesc:$desc, Variadic<I32>:$coord, TTG_MemDesc:$result,
                       TTG_MemDesc:$barrier, I1:$pred);
  let assemblyFormat = [{
    $desc `[` $coord `]` $result `,` $barrier `,` $pred attr-dict `:` qualified(type($desc)) `,`
    qualified(type($barrier)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TTNG_AsyncTMACopyLocalToGlobalOp : TTNG_Op<"async_tma_copy_local_to_global", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "start a TMA copy of one block from shared to global memory";
  let description = [{
    `cp.async.bulk.tensor.<rank>d.global.shared::cta.bulk_group`: one thread
    starts writing `src` to the descriptor's block at `coord`; elements
    outside the tensor are not written. `ttng.async_tma_store_wait` waits
    for the copies to have read shared memory. Shared-memory writes before
    it must be made visible with `ttng.fence_async_shared`.

    ```mlir
    ttng.async_tma_copy_local_to_global %desc[%x, %y] %buf
        : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16, #shared, #smem>
    ```
  }];
  let arguments = (ins TT_TensorDesc:$desc, Variadic<I32>:$coord, TTG_MemDesc:$src);
  let assemblyFormat = [{
    $desc `[` $coord `]` $src attr-dict `:` qualified(type($desc)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def TTNG_AsyncTMAStoreWaitOp : TTNG_Op<"async_tma_store_wait", [
    MemoryEffects<[MemRead<TTG_SharedMemory>, MemWrite<TT_GlobalMemory>]>]> {
  let summary = "wait until at most `pendings` TMA stores still read shared memory";
  let description = [{
    `cp.async.bulk.wait_group.read <pendings>`: afterwards the source
    buffers of all but the last `pendings` TMA stores may be reused.

    ```mlir
    ttng.async_tma_store_wait {pendings = 0 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$pendings);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor maps made on the device (tl.make_tensor_descriptor): written into
// global scratch, then handed to the tensormap proxy that TMA reads through.
//===----------------------------------------------------------------------===//

def TTNG_TensormapCreateOp : TTNG_Op<"tensormap_create", [
    MemoryEffects<[MemWrite<TT_GlobalMemory>]>, AttrSizedOperandSegments]> {
  let summary = "write a tiled TMA tensor map (128 bytes) describing a strided tensor";
  let description = [{
    Writes to `desc_ptr` (global memory, 128-byte aligned) the tensor map of
    the tensor at `global_address` with sizes `global_dim` and byte strides
    `global_stride`, copied in boxes of `box_dim` elements. Every list is
    innermost dimension first (the hardware's order); `global_stride` has one
    entry less than `global_dim` (the innermost stride is the element size).
    `elem_type`, `interleave_layout`, `swizzle_mode` and `fill_mode` hold the
    PTX `tensormap.replace` encodings. The map is built in shared scratch by
    the first warp and copied out with a release to the tensormap proxy; a
    thread that copies through it first runs `ttng.tensormap_fenceproxy_acquire`.

    ```mlir
    ttng.tensormap_create %scratch, %base, [%c64_i32, %c64_i32], [%K, %M], [%row_bytes],
        [%c1_i32, %c1_i32] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32,
        swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    ```
  }];
  let arguments = (ins TT_Ptr:$desc_ptr, TT_Ptr:$global_address, Variadic<I32>:$box_dim,
                       Variadic<I32>:$global_dim, Variadic<I64>:$global_stride,
                       Variadic<I32>:$element_stride, I32Attr:$elem_type,
                       I32Attr:$interleave_layout, I32Attr:$swizzle_mode, I32Attr:$fill_mode);
  let assemblyFormat = [{
    $desc_ptr `,` $global_address `,` `[` $box_dim `]` `,` `[` $global_dim `]` `,`
    `[` $global_stride `]` `,` `[` $element_stride `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TTNG_TensormapFenceproxyAcquireOp : TTNG_Op<"tensormap_fenceproxy_acquire", [
    MemoryEffects<[MemRead<TT_GlobalMemory>, MemWrite<TT_GlobalMemory>]>]> {
  let summary = "acquire a tensor map written by the generic proxy for TMA copies";
  let description = [{
    `fence.proxy.tensormap::generic.acquire.gpu [desc_ptr], 128`, run by the
    thread that issues TMA copies through the map at `desc_ptr` (written by
    `ttng.tensormap_create`).

    ```mlir
    ttng.tensormap_fenceproxy_acquire %scratch : !tt.ptr<i8>
    ```
  }];
  let arguments = (ins TT_Ptr:$desc_ptr);
  let assemblyFormat = "$desc_ptr attr-dict `:` qualified(type($desc_ptr))";
}

def TTNG_ReinterpretTensorDescOp : TTNG_Op<"reinterpret_tensor_descriptor", [Pure]> {
  let summary = "the tensor map at an address as a tensor descriptor";
  let description = [{
    ```mlir
    %desc = ttng.reinterpret_tensor_descriptor %scratch : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let arguments = (ins TT_Ptr:$rawDesc);
  let results = (outs TT_TensorDesc:$result);
  let assemblyFormat = "$rawDesc attr-dict `:` qualified(type($rawDesc)) `to` qualified(type($result))";
}

#endif // TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGOPS_TD
