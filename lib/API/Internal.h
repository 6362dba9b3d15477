//===- Internal.h - what API.cpp and Compile.cpp share ----------*- C++ -*-===//
//
// Private to lib/API: one context set-up, one parse-and-verify, one way to run
// a textual pipeline, for every entry point of the plain C++ API.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_API_INTERNAL_H
#define TESSERA_LIB_API_INTERNAL_H

#include "tessera/API/Tessera.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::api::detail {

/// A diagnostic as the API reports it (file, line, column of its innermost
/// file location; notes rendered).
Diagnostic convert(mlir::Diagnostic &diag);

/// An error without a location.
Diagnostic plainError(std::string message);

/// Whether any diagnostic is an error.
bool hasErrors(const std::vector<Diagnostic> &diagnostics);

/// Input the parser must not see (too deep, or a known parser crash) gets a
/// located error in `diagnostics`; returns true when the input is rejected.
bool rejectDeepInput(const std::string &text, const std::string &bufferName,
                     std::vector<Diagnostic> &diagnostics);

/// One MLIRContext with every dialect and translation (the backends'
/// included) and a handler collecting its diagnostics into `diagnostics`.
struct Session {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;

  explicit Session(std::vector<Diagnostic> &diagnostics);
};

/// `text` parsed in the session's context and verified with errors located
/// at the user's source lines; null when either fails (diagnostics are in the
/// session's list).
mlir::OwningOpRef<mlir::ModuleOp> parseAndVerifyModule(Session &session, const std::string &text,
                                                       const std::string &bufferName);

/// Parses `pipeline` (anchored on builtin.module) and runs it on `module`.
/// A malformed pipeline is an error naming it (and `stage`, when given).
bool runPipeline(mlir::ModuleOp module, const std::string &pipeline,
                 std::vector<Diagnostic> &diagnostics, const std::string &stage = "");

} // namespace tessera::api::detail

#endif // TESSERA_LIB_API_INTERNAL_H
