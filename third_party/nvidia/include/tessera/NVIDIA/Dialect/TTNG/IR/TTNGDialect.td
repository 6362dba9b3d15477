//===- TTNGDialect.td - the ttng dialect definition --------*- tablegen -*-===//
//
// NVIDIA-specific operations on ttg layouts (Hopper warpgroup MMA, fences).
// Its textual form matches the TTGIR that Triton 3.x prints.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGDIALECT_TD
#define TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGDIALECT_TD

include "mlir/IR/OpBase.td"

def TTNG_Dialect : Dialect {
  let name = "ttng";
  let cppNamespace = "::mlir::tessera::ttng";
  let summary = "NVIDIA GPU operations on ttg layouts";
  let description = [{
    Operations that exist only on NVIDIA GPUs and work on `ttg` tensors and
    shared-memory descriptors: Hopper's asynchronous warpgroup matrix
    multiply (`wgmma`) and the proxy fence that makes generic shared-memory
    writes visible to it.
  }];
  let dependentDialects = ["::mlir::tessera::ttg::TTGDialect"];
}

#endif // TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNGDIALECT_TD
