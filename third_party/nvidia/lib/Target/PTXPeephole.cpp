//===- PTXPeephole.cpp - rewrites of the PTX text LLVM emits -----------------===//
//
// fuseWideMultiplyAdds: `mul.wide.{s,u}32 %t, %a, b;` directly followed by
// `add.s64 %d, %c, %t;` (or `%t, %c`), where %t is read by that add only,
// becomes `mad.wide.{s,u}32 %d, %a, b, %c;`. LLVM's NVPTX target (22) emits
// the pair for every `getelementptr T, ptr %p, i32 %i` of a 32-bit index;
// ptxas treats the two forms differently: given the mad, it computes a
// uniform address (a row's base from the program id and an argument) in the
// uniform datapath, with ULDC reads of the arguments, where the pair gets LDC
// reads into vector registers, a longer path to the first load (softmax over
// 4096-element rows: 0.14% of the kernel's time, run 138).
// Only a uniform address is fused: %a, b and %c may not depend on the thread
// (on %tid, %laneid, a clock, or anything loaded, shuffled or returned by a
// call or inline asm, except kernel parameters), by a flow-insensitive
// closure over the function. The gain measured is the uniform datapath's;
// fusing per-thread addresses too changed 11 more of the 34 benchmark and
// conformance kernels' registers (collatz 14 -> 18) for no measured gain.
// Only an address of the function's entry block, read in that block, is
// fused (no label before the add or between it and the last line naming its
// result): a uniform base read in a loop, fused, made ptxas keep 16 64-bit
// row pointers live (the conformance row_sum: 40 -> 56 registers), and
// cross-entropy's label and loss addresses after its loop, fused, made the
// kernel 0.55% slower (run 139).
// Only adjacent pairs are fused, so no register can change between the two;
// %t must appear nowhere else in its function.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Target/PTX.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <optional>

using namespace llvm;

namespace {

/// The registers named on `line` (tokens starting with '%').
SmallVector<StringRef, 8> registersOf(StringRef line) {
  SmallVector<StringRef, 8> regs;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '%')
      continue;
    size_t j = i + 1;
    while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_' ||
                               line[j] == '$'))
      ++j;
    if (j > i + 1)
      regs.push_back(line.slice(i, j));
    i = j - 1;
  }
  return regs;
}

/// Splits "op a, b, c;" (tabs or spaces) into the opcode and its operands;
/// false when the line is not a plain instruction (a predicate guard, a brace,
/// a comment...).
bool splitInstruction(StringRef line, StringRef &opcode, SmallVectorImpl<StringRef> &operands) {
  StringRef s = line.trim();
  if (s.empty() || !s.consume_back(";") || s.contains('{') || s.contains('@') || s.contains("//"))
    return false;
  size_t ws = s.find_first_of(" \t");
  if (ws == StringRef::npos)
    return false;
  opcode = s.take_front(ws);
  SmallVector<StringRef, 4> parts;
  s.drop_front(ws).split(parts, ',');
  operands.clear();
  for (StringRef p : parts)
    operands.push_back(p.trim());
  return true;
}

/// The instruction on `line` without its predicate guard and ';', or "" for
/// directives, labels, braces and comments.
StringRef instructionOf(StringRef line) {
  StringRef s = line.trim();
  if (s.empty() || s[0] == '.' || s[0] == '/' || s[0] == '{' || s[0] == '}' || s[0] == '$' || !s.consume_back(";"))
    return {};
  if (s.consume_front("@")) {
    size_t ws = s.find_first_of(" \t");
    if (ws == StringRef::npos)
      return {};
    s = s.drop_front(ws).ltrim();
  }
  return s;
}

/// Registers whose value may differ between the threads of a block, in the
/// function whose lines are [begin, end): defined by an instruction that reads
/// a per-thread special register or a varying register, runs under a varying
/// guard, loads (other than a parameter), shuffles, votes, calls, or sits in
/// inline asm. Every definition counts (PTX registers are not SSA: loops
/// assign them again). Only the choice of what to fuse depends on this: the
/// fused form computes the same value whatever the operands.
llvm::DenseSet<StringRef> varyingRegisters(ArrayRef<StringRef> lines) {
  llvm::DenseSet<StringRef> varying;
  bool changed = true;
  while (changed) {
    changed = false;
    bool inAsm = false;
    for (StringRef line : lines) {
      if (line.contains("// begin inline asm"))
        inAsm = true;
      if (line.contains("// end inline asm"))
        inAsm = false;
      StringRef ins = instructionOf(line);
      if (ins.empty())
        continue;
      size_t ws = ins.find_first_of(" \t");
      if (ws == StringRef::npos)
        continue;
      StringRef opcode = ins.take_front(ws), rest = ins.drop_front(ws).ltrim();
      if (opcode.starts_with("st.") || opcode.starts_with("bar") || opcode.starts_with("bra") ||
          opcode.starts_with("red.") || opcode.starts_with("fence") || opcode.starts_with("membar"))
        continue;
      // The destination: the first operand (a {...} group for vectors).
      size_t end = rest.starts_with("{") ? rest.find('}') : rest.find(',');
      StringRef dst = end == StringRef::npos ? rest : rest.take_front(end + (rest.starts_with("{") ? 1 : 0));
      StringRef srcs = end == StringRef::npos ? StringRef() : rest.drop_front(dst.size());
      bool varies = inAsm || opcode.starts_with("shfl") || opcode.starts_with("vote") ||
                    opcode.starts_with("call") || opcode.starts_with("atom") ||
                    (opcode.starts_with("ld") && !opcode.starts_with("ld.param"));
      // A definition under a guard that varies (`@%p` / `@!%p`) varies too.
      if (StringRef t = line.trim(); t.starts_with("@")) {
        SmallVector<StringRef, 8> guard = registersOf(t.take_until([](char c) { return c == ' ' || c == '\t'; }));
        varies = varies || (!guard.empty() && varying.contains(guard.front()));
      }
      for (StringRef r : registersOf(srcs))
        varies = varies || r.starts_with("%tid") || r.starts_with("%laneid") || r.starts_with("%lanemask") ||
                 r.starts_with("%clock") || r.starts_with("%globaltimer") || r.starts_with("%warpid") ||
                 r.starts_with("%smid") || varying.contains(r);
      if (!varies)
        continue;
      for (StringRef r : registersOf(dst))
        changed |= varying.insert(r).second;
    }
  }
  return varying;
}

bool isRegister(StringRef s) {
  SmallVector<StringRef, 8> regs = registersOf(s);
  return regs.size() == 1 && regs[0] == s;
}

bool isInteger(StringRef s) {
  long long v;
  return !s.empty() && !s.getAsInteger(0, v);
}

} // namespace

std::string tessera::nvidia::fuseWideMultiplyAdds(const std::string &ptx) {
  SmallVector<StringRef, 0> lines;
  StringRef(ptx).split(lines, '\n');
  // Per function (a line opening with ".visible .entry", ".entry" or
  // ".func" starts one): how often each register is named, and where its
  // first label is.
  std::vector<int> functionOf(lines.size(), -1);
  std::vector<DenseMap<StringRef, int>> uses;
  std::vector<size_t> starts, firstLabel;
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef t = lines[i].trim();
    if (t.contains(".entry ") || t.contains(".func ")) {
      uses.emplace_back();
      starts.push_back(i);
      firstLabel.push_back(lines.size());
    }
    if (uses.empty())
      continue;
    functionOf[i] = uses.size() - 1;
    if (t.starts_with("$") && firstLabel.back() == lines.size())
      firstLabel.back() = i;
    for (StringRef r : registersOf(lines[i]))
      ++uses.back()[r];
  }
  // Each function's varying registers, found the first time one of its pairs
  // needs them (most functions have none).
  std::vector<std::optional<llvm::DenseSet<StringRef>>> varying(starts.size());
  auto uniform = [&](int f, StringRef operand) {
    if (!isRegister(operand))
      return true;
    if (!varying[f]) {
      size_t end = f + 1 < static_cast<int>(starts.size()) ? starts[f + 1] : lines.size();
      varying[f] = varyingRegisters(ArrayRef<StringRef>(lines).slice(starts[f], end - starts[f]));
    }
    return !varying[f]->contains(operand);
  };
  // No label before line `from` in its function, nor between it and the last
  // line of the function that names `reg`.
  auto inEntryBlock = [&](size_t from, StringRef reg) {
    int f = functionOf[from];
    if (firstLabel[f] < from)
      return false;
    size_t last = from;
    for (size_t j = from + 1; j < lines.size() && functionOf[j] == f; ++j)
      if (llvm::is_contained(registersOf(lines[j]), reg))
        last = j;
    for (size_t j = from + 1; j <= last; ++j)
      if (lines[j].trim().starts_with("$"))
        return false;
    return true;
  };
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef op1, op2;
    SmallVector<StringRef, 4> a, b;
    if (i + 1 < lines.size() && functionOf[i] >= 0 && splitInstruction(lines[i], op1, a) &&
        (op1 == "mul.wide.s32" || op1 == "mul.wide.u32") && a.size() == 3 && isRegister(a[0]) &&
        isRegister(a[1]) && (isRegister(a[2]) || isInteger(a[2])) && splitInstruction(lines[i + 1], op2, b) &&
        op2 == "add.s64" && b.size() == 3 && isRegister(b[0]) && (b[1] == a[0]) != (b[2] == a[0]) &&
        isRegister(b[1] == a[0] ? b[2] : b[1]) && uses[functionOf[i]].lookup(a[0]) == 2 &&
        inEntryBlock(i + 1, b[0]) && uniform(functionOf[i], a[1]) && uniform(functionOf[i], a[2]) &&
        uniform(functionOf[i], b[1] == a[0] ? b[2] : b[1])) {
      StringRef addend = b[1] == a[0] ? b[2] : b[1];
      StringRef indent = lines[i].take_front(lines[i].find_first_not_of(" \t"));
      out += indent.str() + "mad.wide." + op1.substr(9).str() + " \t" + b[0].str() + ", " + a[1].str() + ", " +
             a[2].str() + ", " + addend.str() + ";";
      ++i; // the add is replaced too
    } else {
      out += lines[i].str();
    }
    if (i + 1 < lines.size())
      out += '\n';
  }
  return out;
}
