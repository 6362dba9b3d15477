//===- RegisterAll.cpp - dialect and pass registration ---------------------===//

#include "tessera/Tools/RegisterAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Transforms/Passes.h"
#include "tessera/Conversion/TTGToLLVM/Passes.h"
#include "tessera/Conversion/TTToTTG/Passes.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TT/Transforms/Passes.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Passes.h"
#include "tessera/Dialect/Prof/IR/Dialect.h"
#include "tessera/Dialect/Prof/Transforms/Passes.h"
#include "tessera/Target/Backend.h"
#include "tessera/Tools/Verify.h"

void tessera::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tessera::tt::TTDialect, mlir::tessera::ttg::TTGDialect,
                  mlir::tessera::prof::ProfDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect,
                  mlir::ub::UBDialect, mlir::LLVM::LLVMDialect>();
  // Vendor dialects (and their LLVM IR translations) come from the backends.
  for (const std::string &name : getRegisteredBackendNames())
    lookupBackend(name)->registerDialects(registry);
}

void tessera::registerAllTranslations(mlir::DialectRegistry &registry) {
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
}

namespace mlir::tessera::test {
void registerTestAllocationPass();
void registerTestMembarPass();
void registerTestAxisInfoPass();
void registerTestEffectsPass();
} // namespace mlir::tessera::test

void tessera::registerAllPasses() {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSCCPPass();
  mlir::registerSymbolDCEPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerStripDebugInfoPass();
  mlir::registerTopologicalSortPass();
  // convert-scf-to-cf, without the catch-all mlir/Conversion/Passes.h.
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  // The input check tessera-opt runs first (also named in --pass-pipeline).
  mlir::registerPass([] { return ::tessera::createVerifyWithSourceLocationsPass(); });
  mlir::tessera::registerTTTransformsPasses();
  mlir::tessera::registerTTToTTGPasses();
  mlir::tessera::registerTTGTransformsPasses();
  mlir::tessera::registerProfTransformsPasses();
  mlir::tessera::registerTTGToLLVMPasses();
  mlir::tessera::test::registerTestAllocationPass();
  mlir::tessera::test::registerTestMembarPass();
  mlir::tessera::test::registerTestAxisInfoPass();
  mlir::tessera::test::registerTestEffectsPass();
  for (const std::string &name : getRegisteredBackendNames())
    lookupBackend(name)->registerPasses();
}
