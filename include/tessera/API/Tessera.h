//===- Tessera.h - the plain C++ interface of libtessera --------*- C++ -*-===//
//
// Everything the Python extension (and any other client) sees of the
// compiler core. Only standard C++ types: no MLIR or LLVM header may be
// included here, so that clients build in seconds against an installed
// libtessera.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_API_TESSERA_H
#define TESSERA_API_TESSERA_H

#include <string>
#include <vector>

#define TESSERA_API __attribute__((visibility("default")))

namespace tessera::api {

/// One diagnostic, located at the innermost file:line:col of its location
/// (name and call-site locations are looked through). `line` and `column` are
/// 0 when the location has no file position.
struct TESSERA_API Diagnostic {
  std::string severity; // "error", "warning", "remark" or "note"
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
  /// Notes attached to the diagnostic, each rendered as "file:line:col: text".
  std::vector<std::string> notes;

  /// "file:line:col: severity: message".
  std::string str() const;
};

/// The outcome of parsing and verifying MLIR text.
struct ParseResult {
  bool ok = false;
  /// The verified module printed back in custom form (empty on failure or
  /// when printing was not asked for).
  std::string module;
  std::vector<Diagnostic> diagnostics;
};

/// Tessera's version, e.g. "0.1.0".
TESSERA_API std::string version();
/// The LLVM/MLIR version the core was built with, e.g. "22.1.8".
TESSERA_API std::string llvmVersion();

/// Parses `text` as an MLIR module (dialects tt, arith, math, scf, cf, ub,
/// llvm, nvvm, rocdl), verifies it, and returns the diagnostics. Never
/// throws and never aborts on bad input.
TESSERA_API ParseResult parseAndVerify(const std::string &text,
                                       const std::string &bufferName = "<string>",
                                       bool printModule = true);

/// Parses and verifies `text`, runs the textual pass pipeline `pipeline`
/// (e.g. "builtin.module(inline, canonicalize, cse)") and returns the result
/// in `module`. A malformed pipeline or a failing pass gives diagnostics and
/// ok = false. Never throws and never aborts on bad input.
TESSERA_API ParseResult runPasses(const std::string &text,
                                  const std::string &pipeline,
                                  const std::string &bufferName = "<string>");

/// The outcome of one compilation stage: `output` holds the stage's text
/// (LLVM IR, PTX …) when ok.
struct StageResult {
  bool ok = false;
  std::string output;
  std::vector<Diagnostic> diagnostics;
};

/// Translates a module in the LLVM dialect (+ nvvm/rocdl) to LLVM IR text.
TESSERA_API StageResult translateToLLVMIR(const std::string &mlirText,
                                          const std::string &bufferName = "<string>");

/// Compiles LLVM IR text to PTX for compute capability `cc` (90 = sm_90)
/// with PTX ISA `ptxVersion` (84 = 8.4), linking libdevice when needed.
/// `enableFPFusion` lets the backend fuse a multiply and an add into an fma
/// (one rounding instead of two).
TESSERA_API StageResult compileLLVMIRToPTX(const std::string &llvmIR, int cc,
                                           int ptxVersion = 84,
                                           const std::string &libdevicePath = "",
                                           bool enableFPFusion = true);

/// Where libdevice.10.bc was found ("" if nowhere).
TESSERA_API std::string findLibdevice();

} // namespace tessera::api

#endif // TESSERA_API_TESSERA_H
