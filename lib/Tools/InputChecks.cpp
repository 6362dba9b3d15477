//===- InputChecks.cpp - checks on raw input before parsing -----------------===//

#include "tessera/Tools/InputChecks.h"

std::string tessera::InputError::str(std::string_view bufferName) const {
  return std::string(bufferName) + ":" + std::to_string(line) + ":" +
         std::to_string(column) + ": error: " + message;
}

bool tessera::checkNestingDepth(std::string_view text, InputError &error) {
  // MLIR bytecode starts with "ML\xEFR"; it is not text.
  if (text.size() >= 4 && text.substr(0, 4) == std::string_view("ML\xEFR", 4))
    return true;
  int depth = 0;
  unsigned line = 1, col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
      continue;
    }
    if (c == '"') { // string literal with backslash escapes
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line, col = 0;
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      --i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNestingDepth) {
        error.line = line;
        error.column = col;
        error.message = "input nests deeper than " +
                        std::to_string(kMaxNestingDepth) + " levels";
        return false;
      }
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && !(i > 0 && text[i - 1] == '-'))) {
      if (depth > 0)
        --depth;
    }
  }
  return true;
}
