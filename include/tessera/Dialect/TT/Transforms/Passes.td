//===- Passes.td - TTIR transformations ---------------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TT_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_TT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TTRewriteTensorPointer : Pass<"tt-rewrite-tensor-pointer", "mlir::ModuleOp"> {
  let summary = "Rewrite block pointers into tensors of pointers and masks.";
  let description = [{
    Replaces every block pointer (`!tt.ptr<tensor<...>>`, made by
    `tt.make_tensor_ptr` and moved by `tt.advance`) by its components: the
    base pointer, the i64 shape and strides and the i32 offsets of each
    dimension. Where a block pointer crosses control flow (scf.for, scf.if,
    scf.while and scf.execute_region operands, results, region arguments and
    yields; cf branches between blocks; tt.func arguments and results,
    tt.call and tt.return) it is carried as those components instead.

    A `tt.load` or `tt.store` through a block pointer becomes one through
    the tensor of pointers `base + sum_d (offset_d + arange(0, B_d)) * stride_d`
    (i64 arithmetic). The dimensions in `boundaryCheck` give the mask
    `0 <= offset_d + arange(0, B_d) < shape_d`; a load's out-of-bounds
    elements take the `padding` value (zero or NaN) as `other`. Unchecked
    dimensions are not masked.

    ```mlir
    %bp = tt.make_tensor_ptr %x, [%M, %N], [%sm, %c1_i64], [%off, %c0_i32]
            {order = array<i32: 1, 0>} : <tensor<32x64xf32>>
    %v = tt.load %bp {boundaryCheck = array<i32: 1>, padding = 1 : i32}
           : !tt.ptr<tensor<32x64xf32>>
    ```
    becomes a `tt.load %ptrs, %mask, %zeros : tensor<32x64x!tt.ptr<f32>>`
    whose mask checks only dimension 1.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

#endif // TESSERA_DIALECT_TT_TRANSFORMS_PASSES_TD
