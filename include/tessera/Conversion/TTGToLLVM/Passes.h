//===- Passes.h - lowering TTGIR to the LLVM dialect ------------*- C++ -*-===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_PASSES_H
#define TESSERA_CONVERSION_TTGTOLLVM_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tessera {

#define GEN_PASS_DECL
#include "tessera/Conversion/TTGToLLVM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/Conversion/TTGToLLVM/Passes.h.inc"

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTGTOLLVM_PASSES_H
