//===- AMDLayouts.td - AMD's ttg layouts -------------------*- tablegen -*-===//
//
// Layouts of the ttg dialect that only AMD's matrix cores use. They join the
// dialect when the hip backend registers its dialects
// (TTGDialect::addVendorAttributes); the core sees them through
// TensorCoreEncodingTrait.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_TD
#define TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_TD

include "tessera/Dialect/TTG/IR/TTGAttrBase.td"

def TTG_AMDMfmaEncodingAttr : TTG_Attr<"AMDMfmaEncoding", "amd_mfma", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_TensorCoreEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "the accumulator layout of AMD CDNA matrix-core (MFMA) instructions";
  let description = [{
    The accumulator of `v_mfma_f32_16x16x16{f16,bf16}` (`instrShape = [16,
    16, 16]`) or `v_mfma_f32_16x16x4f32` (`[16, 16, 4]`), CDNA2 gfx90a and
    CDNA3 gfx94x (`version` 2 or 3), on
    wavefronts of 64 lanes: lane l holds column l % 16 and rows
    4 * (l / 16) .. + 3 of each 16 x 16 tile (registers: row +1, +2).
    `warpsPerCTA` (rank 2, powers of two) tiles N first, then M.

    Its `#ttg.dot_op` children need `kWidth` = instrShape[2] / 4 (K elements
    per lane and tile: for 16x16x16, A lane l holds row l % 16, K 4 * (l /
    16) .. + 3, B lane l column l % 16, the same K; for 16x16x4 one K, l / 16).

    ```mlir
    #mfma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16]}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        "CTALayoutAttr":$CTALayout,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TTG_AMDWmmaEncodingAttr : TTG_Attr<"AMDWmmaEncoding", "amd_wmma", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_TensorCoreEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "the accumulator layout of AMD RDNA3 WMMA instructions";
  let description = [{
    The accumulator of `v_wmma_f32_16x16x16_{f16,bf16}` on RDNA3 (gfx11,
    `version = 1`) with wavefronts of 32 lanes: element i of lane l is row
    2 * i + l / 16, column l % 16 of each 16 x 16 tile (registers: row +2,
    +4, +8; lanes: column +1 .. +8, then row +1). `warpsPerCTA` (rank 2,
    powers of two) tiles N first, then M.

    Its `#ttg.dot_op` children need `kWidth = 16`: lane l of A holds row
    l % 16 and all 16 K of a tile, lane l of B column l % 16 and all 16 K;
    lanes 16..31 hold copies of lanes 0..15.

    ```mlir
    #wmma = #ttg.amd_wmma<{version = 1, warpsPerCTA = [2, 2]}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        "CTALayoutAttr":$CTALayout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_TD
