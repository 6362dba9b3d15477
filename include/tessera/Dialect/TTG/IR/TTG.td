//===- TTG.td - umbrella for the ttg dialect ---------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TTG_IR_TTG_TD
#define TESSERA_DIALECT_TTG_IR_TTG_TD

include "tessera/Dialect/TTG/IR/TTGDialect.td"
include "tessera/Dialect/TTG/IR/TTGInterfaces.td"
include "tessera/Dialect/TTG/IR/TTGAttrs.td"
include "tessera/Dialect/TTG/IR/TTGTypes.td"
include "tessera/Dialect/TTG/IR/TTGOps.td"

#endif // TESSERA_DIALECT_TTG_IR_TTG_TD
