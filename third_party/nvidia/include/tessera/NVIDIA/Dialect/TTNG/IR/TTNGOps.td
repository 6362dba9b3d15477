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

#endif // TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGOPS_TD
