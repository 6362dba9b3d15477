//===- Backend.cpp - the registry of vendor backends --------------------------===//

#include "tessera/Target/Backend.h"

#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <mutex>

using namespace tessera;

Backend::~Backend() = default;

namespace {

struct Registry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<Backend>> backends;
};

Registry &registry() {
  static Registry r;
  return r;
}

void ensureRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllBackends(); });
}

} // namespace

void tessera::registerBackend(std::unique_ptr<Backend> backend) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::string name = backend->getName().str();
  r.backends[name] = std::move(backend);
}

const Backend *tessera::lookupBackend(llvm::StringRef name) {
  ensureRegistered();
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.backends.find(name);
  return it == r.backends.end() ? nullptr : it->second.get();
}

void tessera::registerAllBackendDialects(mlir::DialectRegistry &dialects) {
  ensureRegistered();
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &entry : r.backends)
    entry.getValue()->registerDialects(dialects);
}

std::vector<std::string> tessera::getRegisteredBackendNames() {
  ensureRegistered();
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (auto &entry : r.backends)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

const Backend *tessera::lookupTarget(llvm::StringRef target, llvm::StringRef &arch,
                                     std::string &why) {
  auto [name, rest] = target.split(':');
  if (name.empty() || rest.empty() || !target.contains(':')) {
    why = "a target is \"<backend>:<architecture>\"";
    return nullptr;
  }
  const Backend *backend = lookupBackend(name);
  if (!backend) {
    why = "no backend named '" + name.str() + "' (registered:";
    for (const std::string &n : getRegisteredBackendNames())
      why += " " + n;
    why += ")";
    return nullptr;
  }
  if (!backend->verifyArch(rest, why))
    return nullptr;
  arch = rest;
  return backend;
}

std::unique_ptr<mlir::tessera::TargetInfoBase>
mlir::tessera::createTargetInfo(StringRef target) {
  StringRef arch;
  std::string why;
  const ::tessera::Backend *backend = ::tessera::lookupTarget(target, arch, why);
  return backend ? backend->createTargetInfo(arch) : nullptr;
}

std::string tessera::memoryLayoutPasses(const KernelOptions &options) {
  return options.coalesce
             ? "ttg-version-nonnegative, ttg-coalesce, ttg-remove-layout-conversions, "
             : "";
}

std::string tessera::epiloguePasses(const KernelOptions &options) {
  return std::string(options.coalesce ? "canonicalize, ttg-remove-layout-conversions, " : "") +
         "ttg-hoist-loads, ";
}

std::string tessera::llvmPipeline(const KernelOptions &options, int64_t maxShared) {
  std::string profile = "prof-lower-records{max-shared=" + std::to_string(maxShared);
  if (options.profileScopes)
    profile += " metric=" + options.profileMetric +
               " buffer-bytes=" + std::to_string(options.profileBufferBytes);
  profile += "}, ";
  return "builtin.module(ttg-allocate-shared-memory, " + profile +
         "ttg-membar, ttg-allocate-global-scratch, convert-scf-to-cf, convert-ttg-to-llvm" +
         (options.vectorize ? "" : "{vectorize=false}") + ", canonicalize, cse)";
}

StageList Backend::kernelStages(llvm::StringRef arch, const KernelOptions &o) const {
  std::string ttgir = "builtin.module(convert-tt-to-ttg{num-warps=" + std::to_string(o.numWarps) +
                      " threads-per-warp=32 num-ctas=" + std::to_string(o.numCtas) + " target=" +
                      getName().str() + ":" + arch.str() + "}, " + memoryLayoutPasses(o) +
                      "ttg-accelerate-matmul, " + epiloguePasses(o) + "canonicalize, cse)";
  return {{"ttgir", ttgir}, {"llvm", llvmPipeline(o, 48 * 1024)}};
}
