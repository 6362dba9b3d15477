//===- OptMain.cpp - the tessera-opt driver ---------------------------------===//
//
// mlir-opt's driver, with three guards: the input's nesting depth is checked
// before parsing and the work runs on a thread with a large stack, so that
// deeply nested input gets a diagnostic instead of overflowing the stack; and
// the input is verified by a first pass that reports ops without a file
// location at their parent's location.
//
//===----------------------------------------------------------------------===//

#include "tessera/Tools/OptMain.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tessera/Tools/InputChecks.h"
#include "tessera/Tools/RegisterAll.h"
#include "tessera/Tools/Verify.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

static int runOpt(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tessera::registerAllDialects(registry);
  tessera::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Tessera optimizer driver\n", registry);
  mlir::MlirOptMainConfig cliConfig =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Verify the input with a pass of ours instead of right after parsing, so
  // that ops without a file location are reported at their parent's.
  mlir::MlirOptMainConfig config = cliConfig;
  config.verifyOnParsing(false);
  config.setPassPipelineSetupFn([cliConfig](mlir::PassManager &pm) {
    pm.addPass(tessera::createVerifyWithSourceLocationsPass());
    if (mlir::failed(cliConfig.setupPassPipeline(pm)))
      return mlir::failure();
    // --pass-pipeline=... replaces the pass manager's contents: put the input
    // check back in front, so both forms verify before any pass runs.
    std::string text;
    llvm::raw_string_ostream os(text);
    pm.printAsTextualPipeline(os);
    llvm::StringRef inner(text);
    if (inner.starts_with("builtin.module(tessera-verify-input"))
      return mlir::success();
    if (!inner.consume_front("builtin.module(") || !inner.consume_back(")"))
      return mlir::success(); // not anchored on builtin.module: MLIR reports it
    std::string fixed = "builtin.module(tessera-verify-input" +
                        (inner.empty() ? std::string() : "," + inner.str()) + ")";
    mlir::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(fixed, llvm::errs());
    if (mlir::failed(parsed))
      return mlir::failure();
    static_cast<mlir::OpPassManager &>(pm) = *parsed;
    return mlir::success();
  });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  tessera::InputError inputError;
  llvm::StringRef text = file->getBuffer();
  if (!tessera::checkInput(std::string_view(text.data(), text.size()),
                                  inputError)) {
    llvm::errs() << inputError.str(inputFilename == "-" ? "<stdin>"
                                                        : inputFilename)
                 << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(file), registry,
                                     config)))
    return 1;
  output->keep();
  return 0;
}

int tessera::optMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  int rc = 1;
  llvm::thread worker(std::optional<unsigned>(kParserStackBytes), [&] { rc = runOpt(argc, argv); });
  worker.join();
  return rc;
}
