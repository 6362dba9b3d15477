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

#include <cstdint>
#include <map>
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

/// Parses `text` as an MLIR module (dialects tt, ttg, arith, math, scf, cf,
/// ub, llvm and the registered backends' dialects), verifies it, and returns the diagnostics. Never
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

/// Parses and verifies `text` (TTIR or TTGIR) and returns in `module` the
/// kernel effects analysis as JSON: for every kernel, each pointer-like
/// argument's effect ("read", "written", "read-write", "untouched") and its
/// causes (op, read/write, file, line, column). See
/// tessera/Analysis/Effects.h. Never throws and never aborts on bad input.
TESSERA_API ParseResult kernelEffects(const std::string &text,
                                      const std::string &bufferName = "<string>");

/// One stage of a compilation: a textual pass pipeline anchored on
/// builtin.module, e.g. "builtin.module(canonicalize, cse)".
struct Stage {
  std::string name;
  std::string pipeline;
};

/// What to compile, for which target, and what to give back.
struct CompileRequest {
  /// The module (TTIR, or any later stage) as MLIR text.
  std::string text;
  std::string bufferName = "<string>";
  /// "<backend>:<arch>", e.g. the target string of a registered backend.
  std::string target;
  /// Pass pipelines run in order on one module in one MLIRContext.
  std::vector<Stage> stages;
  /// Names whose text to return in `artifacts`: stage names (the module
  /// printed after that stage, with locations), "llir" (LLVM IR, translated
  /// after the last stage) and the backend's artifact names (its
  /// getArtifactNames(), e.g. target assembly; asking for one translates to
  /// LLVM IR and runs the backend). Nothing else is printed.
  std::vector<std::string> keep;
  /// Options for the backend's compile step, by name; unknown names are an
  /// error there.
  std::map<std::string, std::string> options;
};

/// The outcome of compile(): artifacts by name, and the module's integer
/// attributes after the last stage (e.g. "ttg.shared", bytes of shared
/// memory) as data.
struct CompileResult {
  bool ok = false;
  std::vector<Diagnostic> diagnostics;
  /// The stage that failed ("parse", a stage name, "llir" or "backend"), or
  /// "" on success.
  std::string failedStage;
  std::map<std::string, std::string> artifacts;
  std::map<std::string, int64_t> metadata;
  /// The module's string attributes after the last stage (e.g.
  /// "prof.scopes", the JSON table of profiling scopes).
  std::map<std::string, std::string> textMetadata;
};

/// Parses and verifies the request's module, runs its stages, and produces
/// what `keep` names, all in one MLIRContext. Never throws and never aborts on
/// bad input: errors are diagnostics (located at the op when they come from
/// the IR) and ok = false.
TESSERA_API CompileResult compile(const CompileRequest &request);

/// What a kernel's compilation depends on: tessera.compile's options and the
/// switches the Python backends read from the environment.
struct KernelOptions {
  int numWarps = 4;
  int numStages = 3;
  int numCtas = 1;
  bool coalesce = true;      // layouts for memory (TESSERA_DISABLE_COALESCE)
  bool pipeline = true;      // software-pipelined loads (TESSERA_DISABLE_PIPELINE)
  bool vectorize = true;     // vector global accesses (TESSERA_DISABLE_VECTORIZE)
  bool tmaAllCopies = false; // TESSERA_TMA_ALL_COPIES
  bool profileScopes = false; // profiling scopes become records
  std::string profileMetric = "cycle"; // or "time"
  int64_t profileBufferBytes = 0;      // 0: what is free, up to 16 KiB
};

/// The stages (pass pipelines, TTIR to the LLVM dialect) Tessera compiles a
/// kernel with for `target` ("<backend>:<arch>"): the ones the Python
/// backends use. Empty, with `error` set, for an unknown target or bad
/// options.
TESSERA_API std::vector<Stage> kernelStages(const std::string &target, const KernelOptions &options,
                                            std::string &error);

struct KernelResult : CompileResult {
  /// The effects analysis of the input as JSON (per kernel, each pointer
  /// argument's effect and its causes); empty when it failed (diagnostics).
  std::string effects;
};

/// Compiles a kernel module (TTIR text) for `target` with kernelStages():
/// artifacts "ttgir", "llir" and the backend's (e.g. "ptx"), metadata as
/// compile() gives it (shared memory, global scratch), and the effects.
/// `backendOptions` go to the backend's compile step (e.g.
/// "enable-fp-fusion").
TESSERA_API KernelResult compileKernel(const std::string &ttir, const std::string &target,
                                       const KernelOptions &options,
                                       const std::string &bufferName = "<string>",
                                       const std::map<std::string, std::string> &backendOptions = {});

/// The backends this build contains (target prefixes), sorted.
TESSERA_API std::vector<std::string> registeredBackends();

/// The artifact names the backend `name` produces (empty if unknown).
TESSERA_API std::vector<std::string> backendArtifacts(const std::string &name);

} // namespace tessera::api

#endif // TESSERA_API_TESSERA_H
