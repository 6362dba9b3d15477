//===- Passes.td - TTIR to TTGIR ----------------------------*- tablegen -*-===//

#ifndef TESSERA_CONVERSION_TTTOTTG_PASSES_TD
#define TESSERA_CONVERSION_TTTOTTG_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTTToTTG : Pass<"convert-tt-to-ttg", "mlir::ModuleOp"> {
  let summary = "Give every tensor a distributed layout (TTIR -> TTGIR).";
  let description = [{
    Records the launch configuration on the module (ttg.num-warps,
    ttg.threads-per-warp, ttg.num-ctas, ttg.target) and gives every tensor a
    layout: a default #ttg.blocked for its shape (threads along the fastest
    dim first, then warps), with the layouts ops imply (expand_dims takes a
    slice of its result's layout, a reduction yields a slice of its input's,
    broadcast keeps its input's, trans permutes it). Where an operand's layout
    differs from the one an op needs, a ttg.convert_layout is inserted; those
    whose source is cheap to recompute (ranges, splats, constants, elementwise
    chains, expand_dims/broadcast of them, single-use loads) are removed by
    recomputing the source in the needed layout.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int32_t", "4", "warps per program">,
    Option<"threadsPerWarp", "threads-per-warp", "int32_t", "32", "threads per warp">,
    Option<"numCTAs", "num-ctas", "int32_t", "1", "CTAs per program (cluster size)">,
    Option<"target", "target", "std::string", "\"\"",
           "the target \"<backend>:<architecture>\" (empty: the module keeps the ttg.target it has, if any)">,
  ];
  let dependentDialects = ["mlir::tessera::ttg::TTGDialect"];
}

#endif // TESSERA_CONVERSION_TTTOTTG_PASSES_TD
