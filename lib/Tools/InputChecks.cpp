//===- InputChecks.cpp - checks on raw input before parsing -----------------===//

#include "tessera/Tools/InputChecks.h"

#include <cctype>
#include <map>

std::string tessera::InputError::str(std::string_view bufferName) const {
  return std::string(bufferName) + ":" + std::to_string(line) + ":" +
         std::to_string(column) + ": error: " + message;
}

namespace {

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

bool isBytecode(std::string_view text) {
  // MLIR bytecode starts with "ML\xEFR"; it is not text.
  return text.size() >= 4 && text.substr(0, 4) == std::string_view("ML\xEFR", 4);
}

/// Calls `visit(offset, line, column)` for every character outside string
/// literals (with backslash escapes) and `//` comments, until it returns
/// false.
template <typename Fn> void forEachCodeChar(std::string_view text, Fn visit) {
  unsigned line = 1, col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
      continue;
    }
    if (c == '"') {
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
    if (!visit(i, line, col))
      return;
  }
}

/// The type token starting at `i` (after spaces): a bare word or `!alias`.
std::string_view typeToken(std::string_view text, size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
    ++i;
  size_t start = i;
  if (i < text.size() && text[i] == '!')
    ++i;
  while (i < text.size() && isIdentChar(text[i]))
    ++i;
  return text.substr(start, i - start);
}

} // namespace

bool tessera::checkNestingDepth(std::string_view text, InputError &error) {
  if (isBytecode(text))
    return true;
  int depth = 0;
  bool ok = true;
  forEachCodeChar(text, [&](size_t i, unsigned line, unsigned col) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNestingDepth) {
        error.line = line;
        error.column = col;
        error.message = "input nests deeper than " + std::to_string(kMaxNestingDepth) + " levels";
        return ok = false;
      }
    } else if ((c == ')' || c == ']' || c == '}' || (c == '>' && !(i > 0 && text[i - 1] == '-'))) &&
               depth > 0) {
      --depth;
    }
    return true;
  });
  return ok;
}

bool tessera::checkParserHazards(std::string_view text, InputError &error) {
  if (isBytecode(text))
    return true;
  // Type aliases (`!name = type` at the start of a line), to see through them.
  std::map<std::string, std::string, std::less<>> aliases;
  forEachCodeChar(text, [&](size_t i, unsigned, unsigned col) {
    if (col != 1 || text[i] != '!')
      return true;
    std::string_view name = typeToken(text, i);
    size_t j = i + name.size();
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t'))
      ++j;
    if (j < text.size() && text[j] == '=')
      aliases[std::string(name)] = std::string(typeToken(text, j + 1));
    return true;
  });
  auto resolve = [&](std::string_view type) {
    std::string t(type);
    for (int hops = 0; hops < 64 && t.size() > 1 && t[0] == '!'; ++hops) {
      auto it = aliases.find(t);
      if (it == aliases.end())
        break;
      t = it->second;
    }
    return t;
  };
  bool ok = true;
  forEachCodeChar(text, [&](size_t i, unsigned line, unsigned col) {
    if (text.compare(i, 6, "array<") != 0 ||
        (i > 0 && (isIdentChar(text[i - 1]) || text[i - 1] == '!' || text[i - 1] == '#')))
      return true;
    if (resolve(typeToken(text, i + 6)) != "index")
      return true;
    ok = false;
    error.line = line;
    error.column = col;
    error.message = "dense arrays of index (array<index: ...>) are not supported: use a "
                    "fixed-width integer type such as i64";
    return false;
  });
  return ok;
}

bool tessera::checkInput(std::string_view text, InputError &error) {
  return checkNestingDepth(text, error) && checkParserHazards(text, error);
}
