//===- TT.td - umbrella for the tt dialect -----------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TT_IR_TT_TD
#define TESSERA_DIALECT_TT_IR_TT_TD

include "tessera/Dialect/TT/IR/TTDialect.td"
include "tessera/Dialect/TT/IR/TTTypes.td"
include "tessera/Dialect/TT/IR/TTAttrs.td"
include "tessera/Dialect/TT/IR/TTInterfaces.td"
include "tessera/Dialect/TT/IR/TTOps.td"

#endif // TESSERA_DIALECT_TT_IR_TT_TD
