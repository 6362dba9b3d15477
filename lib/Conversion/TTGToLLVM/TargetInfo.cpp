//===- TargetInfo.cpp - the registry of vendor target infos -----------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tessera;

static llvm::StringMap<TargetInfoFactory> &registry() {
  static llvm::StringMap<TargetInfoFactory> factories;
  return factories;
}

static std::mutex &registryMutex() {
  static std::mutex m;
  return m;
}

void mlir::tessera::registerTargetInfo(StringRef backend,
                                       TargetInfoFactory factory) {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry()[backend] = factory;
}

std::unique_ptr<TargetInfoBase>
mlir::tessera::createTargetInfo(StringRef target) {
  auto [backend, arch] = target.split(':');
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(backend);
  if (it == registry().end())
    return nullptr;
  return it->second(arch);
}
