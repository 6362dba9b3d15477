//===- Passes.h - transformations of TTGIR ----------------------*- C++ -*-===//

#ifndef TESSERA_DIALECT_TTG_TRANSFORMS_PASSES_H
#define TESSERA_DIALECT_TTG_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

namespace mlir::tessera {

#define GEN_PASS_DECL
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"

} // namespace mlir::tessera

#endif // TESSERA_DIALECT_TTG_TRANSFORMS_PASSES_H
