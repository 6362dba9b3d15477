//===- TestEffects.cpp - test-print-effects ----------------------------------===//
//
// Emits one remark per kernel (public tt.func) listing its pointer-like
// arguments' effects, e.g. "effects: %arg0 = read, %arg1 = written", and one
// remark per cause on the op that causes it: "%arg1 written by store".
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessera/Analysis/Effects.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {
struct TestPrintEffectsPass : public PassWrapper<TestPrintEffectsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintEffectsPass)
  StringRef getArgument() const final { return "test-print-effects"; }
  StringRef getDescription() const final {
    return "Print which pointer arguments each kernel reads and writes, and why, as remarks.";
  }
  void runOnOperation() override {
    for (KernelEffects &k : analyzeKernelEffects(getOperation())) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "effects:";
      for (auto [i, a] : llvm::enumerate(k.arguments))
        os << (i ? ", " : " ") << "%arg" << a.index << " = " << a.effect();
      k.kernel->emitRemark() << text;
      for (const ArgumentEffect &a : k.arguments)
        for (const EffectCause &c : a.causes)
          emitRemark(c.loc) << "%arg" << a.index << " of @" << k.kernel.getName() << " "
                            << (c.read && c.write ? "read and written" : c.write ? "written" : "read")
                            << " by " << c.what;
    }
  }
};
} // namespace

void mlir::tessera::test::registerTestEffectsPass() { PassRegistration<TestPrintEffectsPass>(); }
