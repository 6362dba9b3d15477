//===- TTAttrs.td - enums and attributes of the tt dialect -*- tablegen -*-===//
//
// Enums are I32EnumAttr so that they print as keywords inside assembly
// formats and as plain `N : i32` integers in attribute dictionaries, which is
// how Triton 3.x prints them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TT_IR_TTATTRS_TD
#define TESSERA_DIALECT_TT_IR_TTATTRS_TD

include "mlir/IR/EnumAttr.td"

def TT_CacheModifierAttr : I32EnumAttr<"CacheModifier",
    "cache modifier of a load or store", [
      I32EnumAttrCase<"NONE", 1, "none">, I32EnumAttrCase<"CA", 2, "ca">,
      I32EnumAttrCase<"CG", 3, "cg">, I32EnumAttrCase<"WB", 4, "wb">,
      I32EnumAttrCase<"CS", 5, "cs">, I32EnumAttrCase<"WT", 6, "wt">,
      I32EnumAttrCase<"CV", 7, "cv">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_EvictionPolicyAttr : I32EnumAttr<"EvictionPolicy",
    "cache eviction policy of a load or store", [
      I32EnumAttrCase<"NORMAL", 1, "evict_normal">,
      I32EnumAttrCase<"EVICT_FIRST", 2, "evict_first">,
      I32EnumAttrCase<"EVICT_LAST", 3, "evict_last">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_PaddingOptionAttr : I32EnumAttr<"PaddingOption",
    "value of out-of-bounds elements of a block-pointer load", [
      I32EnumAttrCase<"PAD_ZERO", 1, "zero">,
      I32EnumAttrCase<"PAD_NAN", 2, "nan">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_AtomicRMWAttr : I32EnumAttr<"RMWOp", "read-modify-write operation", [
      I32EnumAttrCase<"AND", 1, "and">, I32EnumAttrCase<"OR", 2, "or">,
      I32EnumAttrCase<"XOR", 3, "xor">, I32EnumAttrCase<"ADD", 4, "add">,
      I32EnumAttrCase<"FADD", 5, "fadd">, I32EnumAttrCase<"MAX", 6, "max">,
      I32EnumAttrCase<"MIN", 7, "min">, I32EnumAttrCase<"UMAX", 8, "umax">,
      I32EnumAttrCase<"UMIN", 9, "umin">, I32EnumAttrCase<"XCHG", 10, "exch">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_MemSemanticAttr : I32EnumAttr<"MemSemantic",
    "memory ordering of an atomic operation", [
      I32EnumAttrCase<"RELAXED", 1, "relaxed">,
      I32EnumAttrCase<"ACQUIRE", 2, "acquire">,
      I32EnumAttrCase<"RELEASE", 3, "release">,
      I32EnumAttrCase<"ACQUIRE_RELEASE", 4, "acq_rel">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_MemSyncScopeAttr : I32EnumAttr<"MemSyncScope",
    "the set of threads an atomic operation synchronizes with", [
      I32EnumAttrCase<"GPU", 1, "gpu">, I32EnumAttrCase<"CTA", 2, "cta">,
      I32EnumAttrCase<"SYSTEM", 3, "sys">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_ProgramAxis : I32EnumAttr<"ProgramIDDim", "grid axis", [
      I32EnumAttrCase<"X", 0, "x">, I32EnumAttrCase<"Y", 1, "y">,
      I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_InputPrecisionAttr : I32EnumAttr<"InputPrecision",
    "how fp32 operands of tt.dot are computed", [
      I32EnumAttrCase<"TF32", 0, "tf32">, I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
      I32EnumAttrCase<"IEEE", 2, "ieee">, I32EnumAttrCase<"BF16x3", 3, "bf16x3">,
      I32EnumAttrCase<"BF16x6", 4, "bf16x6">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_RoundingModeAttr : I32EnumAttr<"RoundingMode",
    "rounding of a narrowing floating-point conversion", [
      I32EnumAttrCase<"RTZ", 0, "rtz">, I32EnumAttrCase<"RTNE", 1, "rtne">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

def TT_PropagateNanAttr : I32EnumAttr<"PropagateNan",
    "whether tt.clampf propagates NaN operands", [
      I32EnumAttrCase<"NONE", 0, "none">, I32EnumAttrCase<"ALL", 0xFFFF, "all">]> {
  let cppNamespace = "::mlir::tessera::tt";
}

#endif // TESSERA_DIALECT_TT_IR_TTATTRS_TD
