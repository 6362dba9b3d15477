//===- Passes.td - lowering TTGIR to the LLVM dialect ------*- tablegen -*-===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_PASSES_TD
#define TESSERA_CONVERSION_TTGTOLLVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTTGToLLVM : Pass<"convert-ttg-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower TTGIR (tt and ttg ops on distributed tensors) to the LLVM dialect.";
  let description = [{
    Every tensor becomes an LLVM struct of the elements the current thread
    owns under its layout; element coordinates come from the layout's
    LinearLayout. Target specifics (program ids, predicated memory access,
    shuffles, barriers, the math library) come from the TargetInfo of the
    module's "ttg.target" (the backend registered under its prefix), and so do
    the vendor's own patterns (tensor cores), tried first. Structured control flow must already be lowered to
    cf (convert-scf-to-cf).
  }];
  // Vendor dialects come from the registered backends (getDependentDialects).
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Lower loads and stores to vector accesses where AxisInfo proves them "
           "consecutive and aligned (false: one access per element, to bisect)">,
  ];
}

#endif // TESSERA_CONVERSION_TTGTOLLVM_PASSES_TD
