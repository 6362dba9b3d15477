//===- Compile.cpp - compilation stages of the plain C++ API -----------------===//

#include "tessera/API/Tessera.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "tessera/NVIDIA/Target/PTX.h"
#include "tessera/Tools/RegisterAll.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera::api;

static Diagnostic plainError(std::string message) {
  Diagnostic d;
  d.severity = "error";
  d.message = std::move(message);
  return d;
}

StageResult tessera::api::translateToLLVMIR(const std::string &mlirText,
                                            const std::string &bufferName) {
  StageResult result;
  mlir::DialectRegistry registry;
  tessera::registerAllDialects(registry);
  tessera::registerAllTranslations(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    Diagnostic d;
    d.severity = diag.getSeverity() == mlir::DiagnosticSeverity::Error ? "error" : "note";
    d.message = diag.str();
    if (auto flc = diag.getLocation()->findInstanceOf<mlir::FileLineColLoc>()) {
      d.file = flc.getFilename().str();
      d.line = flc.getLine();
      d.column = flc.getColumn();
    }
    result.diagnostics.push_back(d);
    return mlir::success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(mlirText, bufferName), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return result;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext, "tessera");
  if (!llvmModule) {
    if (result.diagnostics.empty())
      result.diagnostics.push_back(plainError("translation to LLVM IR failed"));
    return result;
  }
  llvm::raw_string_ostream os(result.output);
  llvmModule->print(os, nullptr);
  result.ok = true;
  return result;
}

StageResult tessera::api::compileLLVMIRToPTX(const std::string &llvmIR, int cc,
                                             int ptxVersion,
                                             const std::string &libdevicePath,
                                             bool enableFPFusion) {
  StageResult result;
  llvm::LLVMContext context;
  llvm::SMDiagnostic err;
  std::unique_ptr<llvm::Module> module = llvm::parseIR(
      llvm::MemoryBufferRef(llvmIR, "kernel.ll"), err, context);
  if (!module) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    err.print("kernel.ll", os);
    result.diagnostics.push_back(plainError("invalid LLVM IR: " + msg));
    return result;
  }
  tessera::nvidia::PTXOptions options;
  options.computeCapability = cc;
  options.ptxVersion = ptxVersion;
  options.libdevicePath = libdevicePath;
  options.enableFPFusion = enableFPFusion;
  std::string error;
  if (!tessera::nvidia::translateToPTX(*module, options, result.output, error)) {
    result.diagnostics.push_back(plainError(error));
    result.output.clear();
    return result;
  }
  result.ok = true;
  return result;
}

std::string tessera::api::findLibdevice() {
  return tessera::nvidia::findLibdevice();
}
