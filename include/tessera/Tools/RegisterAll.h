//===- RegisterAll.h - dialects and passes Tessera's tools know -*- C++ -*-===//
//
// The one place that says which dialects and passes tessera-opt and the API
// load. Later areas add their own registration calls here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_REGISTERALL_H
#define TESSERA_TOOLS_REGISTERALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessera {

/// tt, ttg and the upstream dialects the pipeline uses (arith, math, scf, cf,
/// ub, llvm), and every registered backend's dialects (Backend.h).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Translations of the core dialects to LLVM IR (builtin, llvm); backends add
/// their dialects' translations in registerAllDialects.
void registerAllTranslations(mlir::DialectRegistry &registry);

/// Tessera's passes, the backends' own, and the upstream ones its pipelines
/// use (canonicalize, cse, inline, sccp, symbol-dce,
/// loop-invariant-code-motion, …).
void registerAllPasses();

} // namespace tessera

#endif // TESSERA_TOOLS_REGISTERALL_H
