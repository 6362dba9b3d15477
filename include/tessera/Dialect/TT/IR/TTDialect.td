//===- TTDialect.td - the tt dialect definition ------------*- tablegen -*-===//
//
// The target-independent tile IR of Tessera. Its textual form matches the
// TTIR that Triton 3.x prints, so dumps taken from Triton parse unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TT_IR_TTDIALECT_TD
#define TESSERA_DIALECT_TT_IR_TTDIALECT_TD

include "mlir/IR/OpBase.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::mlir::tessera::tt";
  let summary = "Tessera's target-independent tile IR";
  let description = [{
    `tt` describes a GPU kernel as operations on tiles: tensors of values and
    tensors of pointers whose shape is known at compile time and whose
    distribution over threads is not yet decided. Scalars are ordinary
    builtin integer and float types; pointers are `!tt.ptr<T>`; block
    pointers are `!tt.ptr<tensor<...>>`; TMA-style descriptors are
    `!tt.tensordesc<tensor<...>>`. Arithmetic uses the `arith` and `math`
    dialects; structured control flow uses `scf`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect",
  ];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

#endif // TESSERA_DIALECT_TT_IR_TTDIALECT_TD
