//===- TTTypes.td - types of the tt dialect ----------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TT_IR_TTTYPES_TD
#define TESSERA_DIALECT_TT_IR_TTTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tessera/Dialect/TT/IR/TTDialect.td"

class TT_TypeDef<string name, string mnemonicName, list<Trait> traits = []>
    : TypeDef<TT_Dialect, name, traits> {
  let mnemonic = mnemonicName;
}

def TT_PtrType : TT_TypeDef<"Pointer", "ptr"> {
  let summary = "pointer to a scalar or, for block pointers, to a tensor";
  let description = [{
    `!tt.ptr<T>` points to values of type `T` in address space 1 (global
    memory); `!tt.ptr<T, N>` names another address space. A pointer whose
    pointee is a ranked tensor is a block pointer, produced by
    `tt.make_tensor_ptr` and consumed by `tt.load`, `tt.store` and
    `tt.advance`.

    ```mlir
    !tt.ptr<f32>
    !tt.ptr<i8, 3>
    !tt.ptr<tensor<32x64xf16>>
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType, "int":$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        "int":$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>,
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when this is a block pointer (its pointee is a ranked tensor).
    bool isBlockPointer() const {
      return ::llvm::isa<::mlir::RankedTensorType>(getPointeeType());
    }
  }];
}

def TT_TensorDescType : TT_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "a tensor descriptor: a global tensor read and written by blocks";
  let description = [{
    Describes a strided global tensor that is accessed a whole block at a
    time (by a bulk tensor-copy engine where the target has one). The parameter is the block type.

    ```mlir
    !tt.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def TT_Float : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F16, BF16,
                          F32, F64], "floating-point">;
def TT_FloatTensor : RankedTensorOf<[TT_Float]>;
def TT_FloatLike : AnyTypeOf<[TT_Float, TT_FloatTensor]>;

def TT_BoolTensor : RankedTensorOf<[I1]>;
def TT_BoolLike : AnyTypeOf<[I1, TT_BoolTensor]>;

def TT_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
def TT_IntTensor : RankedTensorOf<[TT_Int]>;
def TT_IntLike : AnyTypeOf<[TT_Int, TT_IntTensor]>;

def TT_I32Like : AnyTypeOf<[I32, RankedTensorOf<[I32]>]>;
def TT_I64Like : AnyTypeOf<[I64, RankedTensorOf<[I64]>]>;

def TT_Ptr : Type<CPred<"::llvm::isa<::mlir::tessera::tt::PointerType>($_self)">,
                  "pointer", "::mlir::tessera::tt::PointerType">;
def TT_PtrTensor : RankedTensorOf<[TT_Ptr]>;
def TT_PtrLike : AnyTypeOf<[TT_Ptr, TT_PtrTensor]>;

def TT_TensorDesc : Type<CPred<"::llvm::isa<::mlir::tessera::tt::TensorDescType>($_self)">,
                         "tensor descriptor", "::mlir::tessera::tt::TensorDescType">;

def TT_FpIntTensor : RankedTensorOf<[TT_Float, TT_Int]>;
def TT_Tensor : RankedTensorOf<[TT_Float, TT_Int, TT_Ptr]>;
def TT_Type : AnyTypeOf<[TT_FloatLike, TT_IntLike, TT_PtrLike, TT_TensorDesc]>;
def TT_Scalar : AnyTypeOf<[TT_Float, TT_Int, TT_Ptr]>;

#endif // TESSERA_DIALECT_TT_IR_TTTYPES_TD
