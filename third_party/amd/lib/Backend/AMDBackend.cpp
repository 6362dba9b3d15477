//===- AMDBackend.cpp - targets "hip:gfx<version>" ----------------------------===//
//
// Dialects: rocdl (with its LLVM IR translation), and the ttg layout of
// AMD's matrix cores (#ttg.amd_mfma).
// Artifacts: "amdgcn" (assembly) and "hsaco" (the code object: LLVM's AMDGPU
// target and lld, in process; the ROCm device libraries linked when the
// module calls them).
// Options: "enable-fp-fusion" ("0"/"1", default 1), "waves-per-eu" (0..10,
// 0: LLVM's choice), "device-libs" (the
// directory of ocml.bc; default: searched), "extern-libs" (paths, one per line).
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/Backend.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "tessera/AMD/Dialect/TTG/AMDLayouts.h"
#include "tessera/AMD/TTGToLLVM/TargetInfo.h"
#include "tessera/AMD/Target/HSACO.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/Target/Backend.h"

namespace {

class AMDBackend : public tessera::Backend {
public:
  llvm::StringRef getName() const override { return "hip"; }

  bool verifyArch(llvm::StringRef arch, std::string &why) const override {
    tessera::amd::ArchInfo info;
    return tessera::amd::parseArch(arch, info, why);
  }

  void registerDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::ROCDL::ROCDLDialect>();
    mlir::registerROCDLDialectTranslation(registry);
    tessera::amd::registerLayouts(registry); // #ttg.amd_mfma
  }

  std::unique_ptr<mlir::tessera::TargetInfoBase>
  createTargetInfo(llvm::StringRef arch) const override {
    return tessera::amd::createTargetInfo(arch);
  }

  /// No pipelining of loads yet (it needs asynchronous copies, which the AMD
  /// lowering lacks); 64 KiB of LDS per workgroup.
  tessera::StageList kernelStages(llvm::StringRef arch,
                                  const tessera::KernelOptions &o) const override {
    tessera::amd::ArchInfo info;
    std::string why;
    tessera::amd::parseArch(arch, info, why);
    std::string ttgir = "builtin.module(convert-tt-to-ttg{num-warps=" + std::to_string(o.numWarps) +
                        " threads-per-warp=" + std::to_string(info.waveSize) + " num-ctas=1 target=hip:" +
                        arch.str() + "}, " + tessera::memoryLayoutPasses(o) + "ttg-accelerate-matmul, " +
                        tessera::epiloguePasses(o) + "canonicalize, cse)";
    return {{"ttgir", ttgir}, {"llvm", tessera::llvmPipeline(o, 64 * 1024)}};
  }

  std::string getDataLayout(llvm::StringRef) const override {
    static const std::string layout = tessera::amd::dataLayout();
    return layout;
  }

  std::vector<std::string> getArtifactNames() const override { return {"amdgcn", "hsaco"}; }

  bool compile(llvm::Module &module, llvm::StringRef arch, const tessera::BackendOptions &options,
               std::map<std::string, std::string> &artifacts, std::string &error) const override {
    tessera::amd::HSACOOptions hsaco;
    hsaco.arch = arch.str();
    for (auto &[name, value] : options) {
      if (name == "enable-fp-fusion" && (value == "0" || value == "1")) {
        hsaco.enableFPFusion = value == "1";
      } else if (name == "waves-per-eu" && !llvm::StringRef(value).getAsInteger(10, hsaco.wavesPerEU) &&
                 hsaco.wavesPerEU >= 0 && hsaco.wavesPerEU <= 10) {
      } else if (name == "device-libs") {
        hsaco.deviceLibs = value;
      } else if (name == "extern-libs") {
        llvm::SmallVector<llvm::StringRef> paths;
        llvm::StringRef(value).split(paths, '\n', -1, /*KeepEmpty=*/false);
        for (llvm::StringRef p : paths)
          hsaco.externLibraries.push_back(p.str());
      } else {
        error = "invalid option " + name + "='" + value +
                "' for the hip backend (enable-fp-fusion=0|1, waves-per-eu=0..10, device-libs=<directory>, "
                "extern-libs=<paths, one per line>)";
        return false;
      }
    }
    return tessera::amd::translateToHSACO(module, hsaco, artifacts["amdgcn"], artifacts["hsaco"],
                                          error);
  }
};

} // namespace

void tessera::amd::registerBackend() {
  tessera::registerBackend(std::make_unique<AMDBackend>());
}
