//===- InputChecks.h - checks on raw input before parsing -------*- C++ -*-===//
//
// MLIR's parser recurses once per nesting level, so a deeply nested input can
// exhaust the stack. Tessera's tools parse on a thread with a large stack and
// reject inputs nested deeper than kMaxNestingDepth before parsing.
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

} // namespace tessera

#endif // TESSERA_TOOLS_INPUTCHECKS_H
