//===- TTGAttrs.td - layouts of the ttg dialect ------------*- tablegen -*-===//
//
// Every layout prints as Triton prints it: `#ttg.<name><{key = value, ...}>`,
// a dictionary whose optional keys are left out at their default. The
// parsers accept the keys in any order. The CTA-layout keys (CTAsPerCGA,
// CTASplitNum, CTAOrder) are printed only when the layout is not the trivial
// one-CTA layout.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGATTRS_TD
#define TESSERA_DIALECT_TTG_IR_TTGATTRS_TD

include "tessera/Dialect/TTG/IR/TTGAttrBase.td"

def TTG_CTALayoutAttr : TTG_Attr<"CTALayout", "cta_layout"> {
  let summary = "how a tile is split over the CTAs of a cluster";
  let description = [{
    `CTAsPerCGA[d]` CTAs of the cluster (CGA) lie along dimension `d`;
    `CTASplitNum[d]` of them hold distinct parts of the tile (the rest hold
    copies), so it divides `CTAsPerCGA[d]`; `CTAOrder` lists the dimensions
    from fastest to slowest varying. With one CTA per cluster every entry of
    the first two is 1. Layouts carry it as a parameter and print its keys
    inline; on its own it prints as

    ```mlir
    #ttg.cta_layout<{CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$CTAsPerCGA,
                        ArrayRefParameter<"unsigned">:$CTASplitNum,
                        ArrayRefParameter<"unsigned">:$CTAOrder);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// One CTA: all ones, order [rank-1, ..., 0].
    static CTALayoutAttr getDefault(::mlir::MLIRContext *context, unsigned rank);
    /// True for the one-CTA layout of its own rank.
    bool isDefault() const;
    unsigned getRank() const { return getCTAOrder().size(); }
  }];
}

def TTG_BlockedEncodingAttr : TTG_Attr<"BlockedEncoding", "blocked", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "a tile cut into equal blocks per thread, warp and CTA";
  let description = [{
    Each thread holds `sizePerThread[d]` consecutive elements along dimension
    `d`; a warp is `threadsPerWarp[d]` threads along `d`, a CTA is
    `warpsPerCTA[d]` warps along `d`. `order` lists the dimensions from
    fastest to slowest varying (for the registers of a thread, the lanes of a
    warp and the warps of a CTA alike). A tile larger than one such block
    wraps around; a smaller one is replicated. All arrays have the tensor's
    rank and hold powers of two.

    ```mlir
    #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order,
                        "CTALayoutAttr":$CTALayout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TTG_SliceEncodingAttr : TTG_Attr<"SliceEncoding", "slice", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "a parent layout with one dimension removed";
  let description = [{
    The layout of a tensor that lacks dimension `dim` of the `parent`
    layout's tensors: element `i` lives where the parent keeps element `i`
    with index 0 inserted at `dim` (and its copies along `dim`). Produced by
    reductions and consumed by `tt.expand_dims`.

    ```mlir
    tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    ```
  }];
  let parameters = (ins "unsigned":$dim,
                        "::mlir::tessera::ttg::DistributedEncodingTrait":$parent);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TTG_DotOperandEncodingAttr : TTG_Attr<"DotOperandEncoding", "dot_op", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "the layout of an operand of a dot with result layout `parent`";
  let description = [{
    Operand `opIdx` (0 for A, 1 for B) of a dot whose result has layout
    `parent`. For a `#ttg.blocked` parent (an FMA dot) `kWidth` is left out.
    For a vendor's tensor-core parent (TensorCoreEncodingTrait), `kWidth` is
    the number of consecutive K elements each thread holds, and the parent
    checks the operand (third_party/<vendor> documents its rules).

    ```mlir
    tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx,
                        "::mlir::tessera::ttg::DistributedEncodingTrait":$parent,
                        "unsigned":$kWidth);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TTG_LinearEncodingAttr : TTG_Attr<"LinearEncoding", "linear", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>,
    DeclareAttrInterfaceMethods<TTG_DistributedEncodingTrait>,
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "a layout given by its LinearLayout bases";
  let description = [{
    Element coordinates of register bit i, lane bit i, warp bit i and CTA
    (block) bit i of a thread's element: the coordinate of an element is the
    XOR of the bases of the set bits. Each basis has one entry per tensor
    dimension, each entry within the tensor's shape, and together they must
    reach every element. One CTA per cluster.

    ```mlir
    #linear = #ttg.linear<{register = [[0, 1], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [0, 0]], block = []}>
    ```
  }];
  // The bases flattened: `rank` entries per basis.
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int32_t">:$registerBases,
                        ArrayRefParameter<"int32_t">:$laneBases,
                        ArrayRefParameter<"int32_t">:$warpBases,
                        ArrayRefParameter<"int32_t">:$blockBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TTG_SwizzledSharedEncodingAttr : TTG_Attr<"SwizzledSharedEncoding", "swizzled_shared", [
    DeclareAttrInterfaceMethods<TTG_LayoutEncodingTrait>, TTG_SharedEncodingTrait]> {
  let summary = "a shared-memory layout with XOR swizzling of vectors";
  let description = [{
    Rows of the buffer (along the fastest dimension of `order`) are stored in
    vectors of `vec` elements; the vector index of row `r` is XORed with
    `(r / perPhase) % maxPhase` to spread rows over the memory banks. With
    `maxPhase = 1` there is no swizzling. `vec`, `perPhase` and `maxPhase`
    are powers of two.

    ```mlir
    #shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order,
                        "CTALayoutAttr":$CTALayout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TTG_SharedMemorySpaceAttr : TTG_Attr<"SharedMemorySpace", "shared_memory"> {
  let summary = "the memory space of a CTA's shared memory";
  let description = [{
    The memory-space parameter of a `!ttg.memdesc` in shared memory.

    ```mlir
    #smem = #ttg.shared_memory
    ```
  }];
  let hasCustomAssemblyFormat = 1;
}

#endif // TESSERA_DIALECT_TTG_IR_TTGATTRS_TD
