//===- TTGTypes.td - types of the ttg dialect --------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGTYPES_TD
#define TESSERA_DIALECT_TTG_IR_TTGTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tessera/Dialect/TTG/IR/TTGDialect.td"
include "tessera/Dialect/TT/IR/TTTypes.td"

class TTG_TypeDef<string name, string mnemonicName, list<Trait> traits = []>
    : TypeDef<TTG_Dialect, name, traits> {
  let mnemonic = mnemonicName;
}

def TTG_MemDescType : TTG_TypeDef<"MemDesc", "memdesc", [ShapedTypeInterface]> {
  let summary = "a descriptor of a buffer in shared memory";
  let description = [{
    A view of a buffer of `shape` elements of `elementType` laid out by
    `encoding` (a shared layout) in `memorySpace` (`#ttg.shared_memory`).
    `mutable` buffers may be written (by `ttg.local_store` or async copies);
    others are written once, by the `ttg.local_alloc` that creates them.
    A view of part of a larger buffer records the shape of the whole
    allocation after the flags; it is left out when it equals `shape`.

    ```mlir
    !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
    !ttg.memdesc<16x64xf16, #shared, #smem, mutable, 32x64>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding,
                        "::mlir::Attribute":$memorySpace,
                        "bool":$mutableMemory,
                        ArrayRefParameter<"int64_t">:$allocShape);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::mlir::Attribute":$encoding,
        "::mlir::Attribute":$memorySpace,
        CArg<"bool", "false">:$mutableMemory), [{
      return $_get(elementType.getContext(), shape, elementType, encoding,
                   memorySpace, mutableMemory, shape);
    }]>,
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::mlir::Attribute":$encoding,
        "::mlir::Attribute":$memorySpace, "bool":$mutableMemory,
        "::llvm::ArrayRef<int64_t>":$allocShape), [{
      return $_get(elementType.getContext(), shape, elementType, encoding,
                   memorySpace, mutableMemory, allocShape);
    }]>,
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let extraClassDeclaration = [{
    /// ShapedTypeInterface: the same buffer with another shape (the alloc
    /// shape follows when it equalled the shape) or element type.
    MemDescType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                          ::mlir::Type elementType) const;
    bool hasRank() const { return true; }
  }];
}

def TTG_AsyncTokenType : TTG_TypeDef<"AsyncToken", "async.token"> {
  let summary = "the completion of a group of asynchronous copies";
  let description = [{
    Returned by `ttg.async_copy_global_to_local` and
    `ttg.async_commit_group`, consumed by `ttg.async_wait` and
    `ttg.local_load`; it orders the reads of a buffer after the copies that
    fill it.

    ```mlir
    !ttg.async.token
    ```
  }];
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def TTG_MemDesc : Type<CPred<"::llvm::isa<::mlir::tessera::ttg::MemDescType>($_self)">,
                       "memory descriptor", "::mlir::tessera::ttg::MemDescType">;
def TTG_AsyncToken : Type<CPred<"::llvm::isa<::mlir::tessera::ttg::AsyncTokenType>($_self)">,
                          "async token", "::mlir::tessera::ttg::AsyncTokenType">,
                     BuildableType<"$_builder.getType<::mlir::tessera::ttg::AsyncTokenType>()">;
def TTG_TensorOrMemDesc : AnyTypeOf<[TT_FpIntTensor, TTG_MemDesc],
                                    "tensor or memory descriptor">;

#endif // TESSERA_DIALECT_TTG_IR_TTGTYPES_TD
