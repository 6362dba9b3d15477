//===- API.cpp - the plain C++ interface of libtessera ----------------------===//

#include "tessera/Analysis/Effects.h"
#include "tessera/API/Tessera.h"

#include "Internal.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "tessera/Tools/InputChecks.h"
#include "tessera/Tools/RegisterAll.h"
#include "tessera/Tools/Verify.h"
#include "llvm/Support/thread.h"

#include <mutex>
#include "llvm/Config/llvm-config.h"
#include "tessera/Version.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera::api;

std::string tessera::api::version() { return TESSERA_VERSION_STRING; }

std::string tessera::api::llvmVersion() { return LLVM_VERSION_STRING; }

std::string Diagnostic::str() const {
  std::string s;
  if (!file.empty())
    s = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  return s + severity + ": " + message;
}

namespace {

const char *severityName(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  }
  return "error";
}

/// The innermost file position of a location: looks through names, call
/// sites (the callee position first) and fused locations.
void locate(mlir::Location loc, std::string &file, unsigned &line,
            unsigned &col) {
  if (auto flc = loc->findInstanceOf<mlir::FileLineColLoc>()) {
    file = flc.getFilename().str();
    line = flc.getLine();
    col = flc.getColumn();
  }
}

} // namespace

Diagnostic tessera::api::detail::convert(mlir::Diagnostic &diag) {
  Diagnostic d;
  d.severity = severityName(diag.getSeverity());
  d.message = diag.str();
  locate(diag.getLocation(), d.file, d.line, d.column);
  for (mlir::Diagnostic &note : diag.getNotes()) {
    Diagnostic n;
    locate(note.getLocation(), n.file, n.line, n.column);
    n.severity = "note";
    n.message = note.str();
    d.notes.push_back(n.str());
  }
  return d;
}

Diagnostic tessera::api::detail::plainError(std::string message) {
  Diagnostic d;
  d.severity = "error";
  d.message = std::move(message);
  return d;
}

bool tessera::api::detail::hasErrors(const std::vector<Diagnostic> &diagnostics) {
  for (const Diagnostic &d : diagnostics)
    if (d.severity == "error")
      return true;
  return false;
}

tessera::api::detail::Session::Session(std::vector<Diagnostic> &diagnostics) {
  tessera::registerAllDialects(registry);
  tessera::registerAllTranslations(registry);
  context = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->allowUnregisteredDialects(false);
  handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
      context.get(), [&diagnostics](mlir::Diagnostic &diag) {
        diagnostics.push_back(convert(diag));
        return mlir::success();
      });
}

mlir::OwningOpRef<mlir::ModuleOp>
tessera::api::detail::parseAndVerifyModule(Session &session, const std::string &text,
                                           const std::string &bufferName) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                               llvm::SMLoc());
  // Verified by our own pass, so that ops without a file location are
  // reported at their parent's.
  mlir::ParserConfig config(session.context.get(), /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (module && mlir::failed(tessera::verifyWithSourceLocations(*module)))
    return nullptr;
  return module;
}

bool tessera::api::detail::runPipeline(mlir::ModuleOp module, const std::string &pipeline,
                                       std::vector<Diagnostic> &diagnostics,
                                       const std::string &stage) {
  static std::once_flag registered;
  std::call_once(registered, [] { tessera::registerAllPasses(); });
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  mlir::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(pipeline, errorStream);
  if (mlir::failed(parsed) || parsed->getOpAnchorName() != mlir::ModuleOp::getOperationName()) {
    diagnostics.push_back(plainError(
        "invalid pass pipeline '" + pipeline + "'" +
        (stage.empty() ? std::string() : " of stage '" + stage + "'") + ": " +
        (errors.empty() ? "it must be anchored on builtin.module, e.g. builtin.module(canonicalize)"
                        : errors)));
    return false;
  }
  mlir::PassManager pm(module.getContext());
  static_cast<mlir::OpPassManager &>(pm) = *parsed;
  return mlir::succeeded(pm.run(module)) && !hasErrors(diagnostics);
}

/// Parses, verifies and, when `pipeline` is not empty, runs it; fills
/// `result`.
static void processImpl(const std::string &text, const std::string &bufferName,
                        bool printModule, const std::string *pipeline,
                        ParseResult &result) {
  detail::Session session(result.diagnostics);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      detail::parseAndVerifyModule(session, text, bufferName);
  if (!module)
    return;
  if (pipeline && !detail::runPipeline(*module, *pipeline, result.diagnostics))
    return;
  result.ok = !detail::hasErrors(result.diagnostics);
  if (result.ok && printModule) {
    llvm::raw_string_ostream os(result.module);
    module->print(os, mlir::OpPrintingFlags().enableDebugInfo(true, false));
  }
}

/// Inputs nested too deeply for the parser get a located error instead.
bool tessera::api::detail::rejectDeepInput(const std::string &text,
                                           const std::string &bufferName,
                                           std::vector<Diagnostic> &diagnostics) {
  tessera::InputError inputError;
  if (tessera::checkInput(text, inputError))
    return false;
  Diagnostic d;
  d.severity = "error";
  d.file = bufferName;
  d.line = inputError.line;
  d.column = inputError.column;
  d.message = inputError.message;
  diagnostics.push_back(d);
  return true;
}

ParseResult tessera::api::parseAndVerify(const std::string &text,
                                         const std::string &bufferName,
                                         bool printModule) {
  ParseResult result;
  if (detail::rejectDeepInput(text, bufferName, result.diagnostics))
    return result;
  // The parser recurses per nesting level: give it a large stack.
  llvm::thread worker(std::optional<unsigned>(tessera::kParserStackBytes), [&] {
    processImpl(text, bufferName, printModule, nullptr, result);
  });
  worker.join();
  return result;
}

ParseResult tessera::api::runPasses(const std::string &text,
                                    const std::string &pipeline,
                                    const std::string &bufferName) {
  ParseResult result;
  if (detail::rejectDeepInput(text, bufferName, result.diagnostics))
    return result;
  llvm::thread worker(std::optional<unsigned>(tessera::kParserStackBytes), [&] {
    processImpl(text, bufferName, /*printModule=*/true, &pipeline, result);
  });
  worker.join();
  return result;
}

ParseResult tessera::api::kernelEffects(const std::string &text, const std::string &bufferName) {
  ParseResult result;
  if (detail::rejectDeepInput(text, bufferName, result.diagnostics))
    return result;
  llvm::thread worker(std::optional<unsigned>(tessera::kParserStackBytes), [&] {
    detail::Session session(result.diagnostics);
    mlir::OwningOpRef<mlir::ModuleOp> module = detail::parseAndVerifyModule(session, text, bufferName);
    if (!module)
      return;
    result.ok = !detail::hasErrors(result.diagnostics);
    if (result.ok)
      result.module = mlir::tessera::kernelEffectsJson(*module);
  });
  worker.join();
  return result;
}
