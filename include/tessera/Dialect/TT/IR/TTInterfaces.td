//===- TTInterfaces.td - interfaces and traits of tt -------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TT_IR_TTINTERFACES_TD
#define TESSERA_DIALECT_TT_IR_TTINTERFACES_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// The memory a tt operation reads or writes through a pointer.
def TT_GlobalMemory : Resource<"::mlir::tessera::tt::GlobalMemory">;

def TT_DotOpInterface : OpInterface<"DotOpInterface"> {
  let cppNamespace = "::mlir::tessera::tt";
  let description = [{
    A matrix product `d = a * b + c` on tiles. Shared by `tt.dot` and the
    target dialects' dot operations so that analyses and layout passes can
    treat them alike.
  }];
  let methods = [
    InterfaceMethod<"The left operand (M x K).", "::mlir::Value", "getA">,
    InterfaceMethod<"The right operand (K x N).", "::mlir::Value", "getB">,
    InterfaceMethod<"The accumulator (M x N).", "::mlir::Value", "getC">,
  ];
}

/// Operations whose mask/other/value/result types follow from the pointer
/// operand get them inferred by the parser through TypesMatchWith; the real
/// check (with expected and actual types in the message) is the op's verifier,
/// so the generated constraint itself always holds.
class TT_TypeInferredFrom<string summary, string from, string to, string transform>
    : OptionalTypesMatchWith<summary, from, to, transform,
                             "::mlir::tessera::tt::checkedByVerifier">;
class TT_ResultInferredFrom<string summary, string from, string to, string transform>
    : TypesMatchWith<summary, from, to, transform,
                     "::mlir::tessera::tt::checkedByVerifier">;

#endif // TESSERA_DIALECT_TT_IR_TTINTERFACES_TD
