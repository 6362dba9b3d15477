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
    16, 16]`, CDNA2 gfx90a and CDNA3 gfx94x; `version` 2 or 3) on
    wavefronts of 64 lanes: lane l holds column l % 16 and rows
    4 * (l / 16) .. + 3 of each 16 x 16 tile (registers: row +1, +2).
    `warpsPerCTA` (rank 2, powers of two) tiles N first, then M.

    Its `#ttg.dot_op` children need `kWidth = 4` (4 K elements per lane and
    tile: A lane l holds row l % 16, K 4 * (l / 16) .. + 3; B lane l column
    l % 16, the same K).

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

#endif // TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_TD
