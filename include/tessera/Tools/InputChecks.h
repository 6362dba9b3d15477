//===- InputChecks.h - checks on raw input before parsing -------*- C++ -*-===//
//
// MLIR's parser recurses once per nesting level, so a deeply nested input can
// exhaust the stack. Tessera's tools parse on a thread with a large stack and
// reject inputs nested deeper than kMaxNestingDepth before parsing, and
// inputs the upstream parser is known to crash on (checkParserHazards).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_INPUTCHECKS_H
#define TESSERA_TOOLS_INPUTCHECKS_H

#include <string>
#include <string_view>

namespace tessera {

/// Deepest bracket nesting ((), [], {}, <>) accepted in textual IR.
constexpr int kMaxNestingDepth = 4096;
/// Stack size of the threads that parse and process IR.
constexpr unsigned kParserStackBytes = 512u << 20;

/// Where and why an input was rejected.
struct InputError {
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
  /// "file:line:col: error: message".
  std::string str(std::string_view bufferName) const;
};

/// Checks the nesting depth of textual MLIR (strings and comments are
/// skipped; bytecode is not checked). Returns false and fills `error` when
/// the input nests deeper than kMaxNestingDepth.
bool checkNestingDepth(std::string_view text, InputError &error);

/// Rejects input that MLIR 22's parser crashes on instead of diagnosing:
/// a dense array of `index` (`array<index: 1>`, also through a type alias
/// such as `!i = index`). Returns false and fills `error` (located at the
/// array) for such input.
bool checkParserHazards(std::string_view text, InputError &error);

/// Both checks, nesting first: what every entry point runs before parsing.
bool checkInput(std::string_view text, InputError &error);

} // namespace tessera

#endif // TESSERA_TOOLS_INPUTCHECKS_H
