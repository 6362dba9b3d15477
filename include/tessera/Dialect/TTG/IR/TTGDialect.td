//===- TTGDialect.td - the ttg dialect definition ----------*- tablegen -*-===//
//
// Layouts and shared memory. Its textual form matches the TTGIR that Triton
// 3.x prints, so dumps taken from Triton parse unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_TTGDIALECT_TD
#define TESSERA_DIALECT_TTG_IR_TTGDIALECT_TD

include "mlir/IR/OpBase.td"

def TTG_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::tessera::ttg";
  let summary = "Tessera's layouts and shared-memory operations";
  let description = [{
    `ttg` decides how each tile of a `tt` kernel is spread over the threads
    of a CTA. Every tensor carries a layout (an encoding attribute): a
    distributed layout (`#ttg.blocked`, `#ttg.slice`, `#ttg.dot_op`,
    `#ttg.nvidia_mma`) says which thread, warp and register holds each
    element; a shared layout (`#ttg.swizzled_shared`, `#ttg.nvmma_shared`)
    says how a buffer in shared memory is laid out. Shared-memory buffers are
    values of type `!ttg.memdesc<...>`; asynchronous copies return
    `!ttg.async.token`s.

    The module carries the launch shape as discardable attributes:
    `"ttg.num-warps"`, `"ttg.num-ctas"` and `"ttg.threads-per-warp"` (i32)
    and `ttg.target` (a string such as `"cuda:90"`).
  }];
  let dependentDialects = ["::mlir::tessera::tt::TTDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();

    static constexpr ::llvm::StringLiteral kNumWarpsAttrName = "ttg.num-warps";
    static constexpr ::llvm::StringLiteral kNumCTAsAttrName = "ttg.num-ctas";
    static constexpr ::llvm::StringLiteral kThreadsPerWarpAttrName = "ttg.threads-per-warp";
    static constexpr ::llvm::StringLiteral kTargetAttrName = "ttg.target";
  }];
}

#endif // TESSERA_DIALECT_TTG_IR_TTGDIALECT_TD
