//===- Effects.h - which kernel arguments a kernel reads and writes -------===//
//
// For every kernel (public tt.func) of a module, each pointer-like argument
// (a pointer, a tensor of pointers, a tensor descriptor) is classified as
// read, written, read-write or untouched, with the operations and source
// locations that cause it. A framework calling the kernel can trust the
// answer: the analysis never misses a write. Where it cannot follow a pointer
// (one made from an integer or loaded from memory, an address turned into an
// integer, inline assembly or an external function given a pointer) it
// assumes the worst for the arguments involved — or for every pointer
// argument when the origin is unknown — and says why.
//
// Provenance: each pointer-like value gets the set of kernel arguments it may
// derive from, propagated through addptr/advance/views/select/make_tensor_ptr/
// make_tensor_descriptor, structured control flow (scf.for/if/while), branch
// operands, and calls (a callee's arguments join all call sites; a callee's
// returned pointers flow back), to a fixed point. Effects are then collected
// from loads, stores, atomics and descriptor accesses.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_EFFECTS_H
#define TESSERA_ANALYSIS_EFFECTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include <string>
#include <vector>

namespace mlir::tessera {

struct EffectCause {
  bool read = false, write = false;
  std::string what; // "store", "load", "atomic_rmw", "inline asm", ...
  Location loc;
};

struct ArgumentEffect {
  unsigned index = 0;   // the function argument
  bool read = false, written = false;
  std::vector<EffectCause> causes;
  /// "read", "written", "read-write" or "untouched".
  std::string effect() const;
};

struct KernelEffects {
  FunctionOpInterface kernel;
  /// One entry per pointer-like argument, in argument order.
  std::vector<ArgumentEffect> arguments;
};

/// Runs the analysis over `module`'s kernels.
std::vector<KernelEffects> analyzeKernelEffects(ModuleOp module);

/// The analysis as JSON: [{"kernel": name, "arguments": [{"index", "effect",
/// "causes": [{"what", "read", "write", "file", "line", "column"}]}]}].
std::string kernelEffectsJson(ModuleOp module);

} // namespace mlir::tessera

#endif // TESSERA_ANALYSIS_EFFECTS_H
