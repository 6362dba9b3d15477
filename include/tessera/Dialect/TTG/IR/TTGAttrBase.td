//===- TTGAttrBase.td - the base class of ttg layouts ------*- tablegen -*-===//
//
// Included by the core's layouts (TTGAttrs.td) and by the layouts a vendor
// adds to the dialect (third_party/<vendor>), which generate their own code.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGATTRBASE_TD
#define TESSERA_DIALECT_TTG_IR_TTGATTRBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"
include "tessera/Dialect/TTG/IR/TTGDialect.td"
include "tessera/Dialect/TTG/IR/TTGInterfaces.td"

class TTG_Attr<string name, string mnemonicName, list<Trait> traits = []>
    : AttrDef<TTG_Dialect, name, traits> {
  let mnemonic = mnemonicName;
}

#endif // TESSERA_DIALECT_TTG_IR_TTGATTRBASE_TD
