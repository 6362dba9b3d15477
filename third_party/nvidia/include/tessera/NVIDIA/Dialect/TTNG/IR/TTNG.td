//===- TTNG.td - umbrella for the ttng dialect -------------*- tablegen -*-===//

#ifndef TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNG_TD
#define TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNG_TD

include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGDialect.td"
include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGOps.td"

#endif // TESSERA_NVIDIA_DIALECT_TTNG_IR_TTNG_TD
