//===- Compile.cpp - the vendor-neutral compile API ----------------------------===//
//
// compile(): module text + target + stages + options -> artifacts + metadata,
// in one MLIRContext. What is target-specific comes from the Backend
// registered under the target's prefix (tessera/Target/Backend.h).
//
//===----------------------------------------------------------------------===//

#include "tessera/API/Tessera.h"

#include "Internal.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "tessera/Target/Backend.h"
#include "tessera/Tools/InputChecks.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera::api;
using namespace tessera::api::detail;

static void compileImpl(const CompileRequest &request, CompileResult &result) {
  // 1. The target's backend.
  llvm::StringRef arch;
  std::string why;
  const tessera::Backend *backend = tessera::lookupTarget(request.target, arch, why);
  if (!backend) {
    result.failedStage = "target";
    result.diagnostics.push_back(plainError("invalid target '" + request.target + "': " + why));
    return;
  }
  llvm::StringSet<> keep;
  for (const std::string &k : request.keep)
    keep.insert(k);
  std::vector<std::string> artifactNames = backend->getArtifactNames();
  bool runBackend = false;
  for (const std::string &a : artifactNames)
    runBackend |= keep.contains(a);
  {
    llvm::StringSet<> known;
    for (const Stage &s : request.stages)
      known.insert(s.name);
    known.insert("llir");
    for (const std::string &a : artifactNames)
      known.insert(a);
    for (const std::string &k : request.keep)
      if (!known.contains(k)) {
        result.failedStage = "request";
        result.diagnostics.push_back(plainError(
            "cannot keep '" + k + "': it is neither a stage of the request, 'llir', nor an "
            "artifact of backend '" + backend->getName().str() + "'"));
        return;
      }
  }

  // 2. Parse and verify, in the one context every stage shares.
  Session session(result.diagnostics);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseAndVerifyModule(session, request.text, request.bufferName);
  if (!module) {
    result.failedStage = "parse";
    return;
  }

  // 3. The stages; a stage's text is printed only when kept.
  for (const Stage &stage : request.stages) {
    if (!runPipeline(*module, stage.pipeline, result.diagnostics, stage.name)) {
      result.failedStage = stage.name;
      return;
    }
    if (keep.contains(stage.name)) {
      llvm::raw_string_ostream os(result.artifacts[stage.name]);
      module->print(os, mlir::OpPrintingFlags().enableDebugInfo(true, false));
    }
  }

  // 4. Metadata as data: the module's integer attributes.
  for (mlir::NamedAttribute attr : (*module)->getAttrs())
    if (auto value = llvm::dyn_cast<mlir::IntegerAttr>(attr.getValue()))
      if (value.getType().isSignlessInteger() || value.getType().isIndex())
        result.metadata[attr.getName().str()] = value.getValue().getSExtValue();
  for (mlir::NamedAttribute attr : (*module)->getAttrs())
    if (auto text = llvm::dyn_cast<mlir::StringAttr>(attr.getValue()))
      result.textMetadata[attr.getName().str()] = text.getValue().str();

  // 5. LLVM IR and the backend's artifacts, when asked for.
  if (!runBackend && !keep.contains("llir")) {
    result.ok = true;
    return;
  }
  // The target's data layout, so that translated loads and stores get its
  // ABI alignments.
  if (std::string layout = backend->getDataLayout(arch); !layout.empty())
    (*module)->setAttr(mlir::LLVM::LLVMDialect::getDataLayoutAttrName(),
                       mlir::StringAttr::get(module->getContext(), layout));
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext, module->getName().value_or("tessera"));
  if (!llvmModule) {
    result.failedStage = "llir";
    if (!hasErrors(result.diagnostics))
      result.diagnostics.push_back(plainError("translation to LLVM IR failed"));
    return;
  }
  if (keep.contains("llir")) {
    llvm::raw_string_ostream os(result.artifacts["llir"]);
    llvmModule->print(os, nullptr);
  }
  if (runBackend) {
    std::map<std::string, std::string> produced;
    std::string error;
    if (!backend->compile(*llvmModule, arch, request.options, produced, error)) {
      result.failedStage = "backend";
      result.diagnostics.push_back(plainError(error));
      return;
    }
    for (auto &[name, text] : produced)
      if (keep.contains(name))
        result.artifacts[name] = std::move(text);
  }
  result.ok = true;
}

CompileResult tessera::api::compile(const CompileRequest &request) {
  CompileResult result;
  if (detail::rejectDeepInput(request.text, request.bufferName, result.diagnostics)) {
    result.failedStage = "parse";
    return result;
  }
  // The parser recurses per nesting level: give it a large stack.
  llvm::thread worker(std::optional<unsigned>(tessera::kParserStackBytes),
                      [&] { compileImpl(request, result); });
  worker.join();
  if (!result.ok && result.diagnostics.empty())
    result.diagnostics.push_back(plainError("compilation failed in stage '" +
                                            result.failedStage + "'"));
  return result;
}

std::vector<std::string> tessera::api::registeredBackends() {
  return tessera::getRegisteredBackendNames();
}

std::vector<std::string> tessera::api::backendArtifacts(const std::string &name) {
  const tessera::Backend *backend = tessera::lookupBackend(name);
  return backend ? backend->getArtifactNames() : std::vector<std::string>{};
}

std::vector<tessera::api::Stage> tessera::api::kernelStages(const std::string &target,
                                                          const KernelOptions &options,
                                                          std::string &error) {
  llvm::StringRef arch;
  const tessera::Backend *backend = tessera::lookupTarget(target, arch, error);
  if (!backend)
    return {};
  if (options.numWarps < 1 || options.numStages < 1 || options.numCtas < 1) {
    error = "num_warps, num_stages and num_ctas must be at least 1";
    return {};
  }
  if (options.profileMetric != "cycle" && options.profileMetric != "time") {
    error = "the profiling metric is 'cycle' or 'time', not '" + options.profileMetric + "'";
    return {};
  }
  tessera::KernelOptions o;
  o.numWarps = options.numWarps;
  o.numStages = options.numStages;
  o.numCtas = options.numCtas;
  o.coalesce = options.coalesce;
  o.pipeline = options.pipeline;
  o.vectorize = options.vectorize;
  o.tmaAllCopies = options.tmaAllCopies;
  o.profileScopes = options.profileScopes;
  o.profileMetric = options.profileMetric;
  o.profileBufferBytes = options.profileBufferBytes;
  std::vector<Stage> stages;
  for (auto &[name, pipeline] : backend->kernelStages(arch, o))
    stages.push_back({name, pipeline});
  return stages;
}

tessera::api::KernelResult tessera::api::compileKernel(const std::string &ttir, const std::string &target,
                                                       const KernelOptions &options,
                                                       const std::string &bufferName,
                                                       const std::map<std::string, std::string> &backendOptions) {
  KernelResult result;
  std::string error;
  std::vector<Stage> stages = kernelStages(target, options, error);
  if (stages.empty()) {
    result.failedStage = "parse";
    result.diagnostics.push_back(plainError(error));
    return result;
  }
  CompileRequest request;
  request.text = ttir;
  request.bufferName = bufferName;
  request.target = target;
  request.stages = std::move(stages);
  request.keep = {"ttgir", "llir"};
  llvm::StringRef prefix = llvm::StringRef(target).split(':').first;
  for (const std::string &a : backendArtifacts(prefix.str()))
    request.keep.push_back(a);
  request.options = backendOptions;
  static_cast<CompileResult &>(result) = compile(request);
  if (!result.ok)
    return result;
  ParseResult effects = kernelEffects(ttir, bufferName);
  if (effects.ok)
    result.effects = effects.module;
  else
    for (const Diagnostic &d : effects.diagnostics)
      result.diagnostics.push_back(d);
  return result;
}
