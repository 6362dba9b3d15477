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
    `#ttg.dot_op` and `#ttg.nvidia_mma`. The conversion to a LinearLayout
    lives in lib/Dialect/TTG/IR/LinearLayoutConversions.cpp.
  }];
  let methods = [
    InterfaceMethod<"The rank of the tensors this layout applies to.",
                    "unsigned", "getRank">,
  ];
}

def TTG_SharedEncodingTrait : AttrInterface<"SharedEncodingTrait"> {
  let cppNamespace = "::mlir::tessera::ttg";
  let description = [{
    A layout of a buffer in shared memory (the encoding of a
    `!ttg.memdesc`). Implemented by `#ttg.swizzled_shared` and
    `#ttg.nvmma_shared`.
  }];
}

#endif // TESSERA_DIALECT_TTG_IR_TTGINTERFACES_TD
