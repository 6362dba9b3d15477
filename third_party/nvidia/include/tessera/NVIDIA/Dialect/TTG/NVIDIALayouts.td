//===- NVIDIALayouts.td - NVIDIA's ttg layouts --------------*- tablegen -*-===//
//
// Layouts of the ttg dialect that only NVIDIA's tensor cores use. They join
// the dialect when the cuda backend registers its dialects
// (TTGDialect::addVendorAttributes); the core sees them through
// TensorCoreEncodingTrait.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_NVIDIA_DIALECT_TTG_NVIDIALAYOUTS_TD
#define TESSERA_NVIDIA_DIALECT_TTG_NVIDIALAYOUTS_TD

include "tessera/Dialect/TTG/IR/TTGAttrBase.td"

def TTG_NvidiaMmaEncodingAttr : TTG_Attr<"NvidiaMmaEncoding", "nvidia_mma", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_TensorCoreEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "the accumulator layout of NVIDIA tensor-core instructions";
  let description = [{
    Version 2 is `mma.sync` (Ampere), `instrShape = [16, 8]` (with a leading
    1 for a rank-3 batched tile). Version 3 is Hopper's warpgroup `wgmma`,
    `instrShape = [16, N, K]` with N a multiple of 8 up to 256 and K = 256 /
    the operands' bit width; its tiles have rank 2. `warpsPerCTA` has the
    tensor's rank and holds powers of two.

    Its `#ttg.dot_op` children need a non-zero `kWidth` (K elements per
    thread: 2 for 16-bit operands of mma.sync); wgmma reads only operand A
    from registers, so a version 3 parent needs `opIdx = 0`.

    ```mlir
    #mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
    ```
  }];
  let parameters = (ins "unsigned":$versionMajor,
                        "unsigned":$versionMinor,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        "CTALayoutAttr":$CTALayout,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isAmpere() const { return getVersionMajor() == 2; }
    bool isHopper() const { return getVersionMajor() == 3; }
  }];
}

def TTG_NVMMASharedEncodingAttr : TTG_Attr<"NVMMASharedEncoding", "nvmma_shared", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_SharedEncodingTrait, ["toSharedLinearLayout"]>]> {
  let summary = "the shared-memory layout that wgmma and TMA read and write";
  let description = [{
    The hardware's swizzled layout of NVIDIA Hopper (and later): rows of
    `swizzlingByteWidth` bytes (0 for no swizzling, 32, 64 or 128) of
    `elementBitWidth`-bit elements; `transposed` says the buffer is stored
    K-major for the other operand. `fp4Padded = true` (printed only when set)
    marks fp4 data padded to bytes. As a LinearLayout (2-D, not fp4-padded):
    the contiguous dim is split into tiles of `swizzlingByteWidth` bytes,
    each stored whole, with 16-byte chunks XOR-ed by the row's phase
    (perPhase = 128 / width, maxPhase = width / 16).

    ```mlir
    #shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzlingByteWidth, "bool":$transposed,
                        "unsigned":$elementBitWidth, "bool":$fp4Padded,
                        "CTALayoutAttr":$CTALayout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TESSERA_NVIDIA_DIALECT_TTG_NVIDIALAYOUTS_TD
