//===- Passes.h - profiling passes ------------------------------*- C++ -*-===//

#ifndef TESSERA_DIALECT_PROF_TRANSFORMS_PASSES_H
#define TESSERA_DIALECT_PROF_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessera/Dialect/Prof/IR/Dialect.h"

namespace mlir::tessera {

#define GEN_PASS_DECL
#include "tessera/Dialect/Prof/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/Dialect/Prof/Transforms/Passes.h.inc"

namespace prof {
/// Checks the scopes of every function of `module` (prof-check-scopes);
/// emits a diagnostic at the first offending op of each function.
LogicalResult checkScopes(ModuleOp module);
} // namespace prof

} // namespace mlir::tessera

#endif // TESSERA_DIALECT_PROF_TRANSFORMS_PASSES_H
