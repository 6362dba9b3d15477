//===- TTGInterfaces.td - layout interfaces of ttg ---------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGINTERFACES_TD
#define TESSERA_DIALECT_TTG_IR_TTGINTERFACES_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// The shared memory of a CTA, which local_* and async copies touch.
def TTG_SharedMemory : Resource<"::mlir::tessera::ttg::SharedMemory">;

def TTG_LayoutEncodingTrait : AttrInterface<"LayoutEncodingTrait"> {
  let cppNamespace = "::mlir::tessera::ttg";
  let description = [{
    A layout: an encoding attribute of a tensor or a memory descriptor that
    says where each element lives. Every layout knows how the tile is split
    over the CTAs of a cluster (its CTA layout).
  }];
  // The CTA layout as three arrays (a CTALayoutAttr return type would make
  // this interface and the attribute classes depend on each other);
  // ttg::getCTALayoutOf(layout) packs them into a #ttg.cta_layout.
  let methods = [
    InterfaceMethod<"CTAs of the cluster along each dimension.",
                    "::llvm::SmallVector<unsigned>", "getCTAsPerCGA">,
    InterfaceMethod<"How many of those CTAs hold distinct parts of the tile.",
                    "::llvm::SmallVector<unsigned>", "getCTASplitNum">,
    InterfaceMethod<"The dimensions of the CTA grid, fastest first.",
                    "::llvm::SmallVector<unsigned>", "getCTAOrder">,
  ];
}

def TTG_DistributedEncodingTrait : AttrInterface<"DistributedEncodingTrait"> {
  let cppNamespace = "::mlir::tessera::ttg";
  let description = [{
    A layout of a tensor held in registers: each element belongs to some
    registers of some threads. Implemented by `#ttg.blocked`, `#ttg.slice`,
    `#ttg.dot_op` and the tensor-core layouts vendors add
    (TensorCoreEncodingTrait). The conversion to a LinearLayout lives in
    lib/Dialect/TTG/IR/LinearLayoutConversions.cpp.
  }];
  let methods = [
    InterfaceMethod<"The rank of the tensors this layout applies to.",
                    "unsigned", "getRank">,
  ];
}

def TTG_TensorCoreEncodingTrait : AttrInterface<"TensorCoreEncodingTrait"> {
  let cppNamespace = "::mlir::tessera::ttg";
  let description = [{
    The accumulator layout of a vendor's tensor-core instructions. Such
    layouts are defined by the vendor (third_party/<vendor>) and added to the
    ttg dialect when its backend registers its dialects
    (TTGDialect::addVendorAttributes); the core knows them only through this
    interface: they are the parents of the `#ttg.dot_op` layouts of a dot's
    operands, and they say how they and those operand layouts map registers,
    lanes and warps to elements.
  }];
  let methods = [
    InterfaceMethod<"Warps per CTA along each dimension.",
                    "::llvm::ArrayRef<unsigned>", "getWarpsPerCTA", (ins),
                    [{ return $_attr.getWarpsPerCTA(); }]>,
    InterfaceMethod<[{Checks a `#ttg.dot_op` of this parent: operand `opIdx`
                      (0: A, 1: B) with `kWidth` K elements per thread.}],
                    "::mlir::LogicalResult", "verifyDotOperand",
                    (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
                         "unsigned":$opIdx, "unsigned":$kWidth)>,
    InterfaceMethod<[{The layout of a tensor of `shape` as a LinearLayout
                      (std::nullopt where it has none yet).}],
                    "std::optional<::tessera::LinearLayout>", "toLinearLayout",
                    (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<[{The LinearLayout of operand `opIdx` of `shape` in a
                      `#ttg.dot_op` of this parent with `kWidth`.}],
                    "std::optional<::tessera::LinearLayout>", "toDotOperandLinearLayout",
                    (ins "::llvm::ArrayRef<int64_t>":$shape, "unsigned":$opIdx,
                         "unsigned":$kWidth)>,
  ];
}

def TTG_SharedEncodingTrait : AttrInterface<"SharedEncodingTrait"> {
  let cppNamespace = "::mlir::tessera::ttg";
  let description = [{
    A layout of a buffer in shared memory (the encoding of a
    `!ttg.memdesc`). Implemented by `#ttg.swizzled_shared` and by the shared
    layouts vendors add (e.g. the cuda backend's `#ttg.nvmma_shared`), which
    give their LinearLayout through `toSharedLinearLayout`.
  }];
  let methods = [
    InterfaceMethod<[{The buffer of `shape` as a LinearLayout from the element
                      offset ("offset") to the coordinates (std::nullopt where
                      it has none).}],
                    "std::optional<::tessera::LinearLayout>", "toSharedLinearLayout",
                    (ins "::llvm::ArrayRef<int64_t>":$shape), [{}],
                    [{ return std::nullopt; }]>,
  ];
}

#endif // TESSERA_DIALECT_TTG_IR_TTGINTERFACES_TD
