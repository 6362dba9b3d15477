//===- NVIDIABackend.cpp - targets "cuda:<compute capability>" ----------------===//
//
// Dialects: ttng, nvvm (with its LLVM IR translation), and the ttg layouts
// of NVIDIA's tensor cores (#ttg.nvidia_mma).
// Artifacts: "ptx" (LLVM's NVPTX target in-process, libdevice linked when the
// module calls it). The cubin is made from the PTX by ptxas in the Python
// glue (python/tessera/backends/nvidia), or by the driver's JIT.
// Options: "enable-fp-fusion" ("0"/"1", default 1), "ptx-version" (e.g. "84"),
// "libdevice" (a path; default: searched).
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Backend.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"
#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTNG/Transforms/Passes.h"
#include "tessera/NVIDIA/TTGToLLVM/TargetInfo.h"
#include "tessera/NVIDIA/Target/PTX.h"
#include "tessera/Target/Backend.h"
#include "llvm/ADT/StringExtras.h"

namespace {

class NVIDIABackend : public tessera::Backend {
public:
  llvm::StringRef getName() const override { return "cuda"; }

  bool verifyArch(llvm::StringRef arch, std::string &why) const override {
    int cc = 0;
    if (arch.empty() || !llvm::all_of(arch, llvm::isDigit) || arch.getAsInteger(10, cc) ||
        cc < 70) {
      why = "a cuda target is \"cuda:<compute capability>\" with a capability of 70 or "
            "more (e.g. \"cuda:90\"), not \"cuda:" + arch.str() + "\"";
      return false;
    }
    return true;
  }

  void registerDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::tessera::ttng::TTNGDialect, mlir::NVVM::NVVMDialect>();
    mlir::registerNVVMDialectTranslation(registry);
    tessera::nvidia::registerLayouts(registry); // #ttg.nvidia_mma
  }

  void registerPasses() const override {
    mlir::tessera::ttng::registerTTNGTransformsPasses(); // ttng-tma-lowering
  }

  std::unique_ptr<mlir::tessera::TargetInfoBase>
  createTargetInfo(llvm::StringRef arch) const override {
    std::string why;
    if (!verifyArch(arch, why))
      return nullptr;
    int cc = 0;
    arch.getAsInteger(10, cc);
    return tessera::nvidia::createTargetInfo(cc);
  }

  std::string getDataLayout(llvm::StringRef) const override {
    static const std::string layout = tessera::nvidia::dataLayout();
    return layout;
  }

  /// The shared memory a block may opt in to on compute capability `cc`
  /// (the profiler's buffer takes what a kernel leaves of it).
  static int64_t maxSharedBytes(int cc) {
    if (cc >= 90)
      return 227 * 1024;
    if (cc == 80 || cc == 87)
      return 163 * 1024;
    if (cc == 86 || cc == 89)
      return 99 * 1024;
    if (cc == 70 || cc == 72)
      return 96 * 1024;
    if (cc == 75)
      return 64 * 1024;
    return 48 * 1024;
  }

  tessera::StageList kernelStages(llvm::StringRef arch,
                                  const tessera::KernelOptions &o) const override {
    int cc = 0;
    arch.getAsInteger(10, cc);
    // Loads pipelined where copies run in the background (sm_80+); descriptor
    // accesses through tensor maps become TMA copies (sm_90+).
    std::string pipelined =
        o.pipeline && cc >= 80 ? "ttg-pipeline{num-stages=" + std::to_string(o.numStages) + "}, " : "";
    std::string tma = cc >= 90 ? "ttng-tma-lowering{num-stages=" + std::to_string(o.pipeline ? o.numStages : 1) +
                                     " all-copies=" + (o.tmaAllCopies ? "true" : "false") + "}, "
                               : "";
    std::string tmaOperands = cc >= 90 ? "ttng-tma-operands, " : "";
    std::string ttgir = "builtin.module(convert-tt-to-ttg{num-warps=" + std::to_string(o.numWarps) +
                        " threads-per-warp=32 num-ctas=" + std::to_string(o.numCtas) + " target=cuda:" +
                        std::to_string(cc) + "}, " + tma + tessera::memoryLayoutPasses(o) +
                        "ttg-accelerate-matmul, " + tmaOperands + tessera::epiloguePasses(o) + "canonicalize, " +
                        pipelined + "cse)";
    return {{"ttgir", ttgir}, {"llvm", tessera::llvmPipeline(o, maxSharedBytes(cc))}};
  }

  std::vector<std::string> getArtifactNames() const override { return {"ptx"}; }

  bool compile(llvm::Module &module, llvm::StringRef arch,
               const tessera::BackendOptions &options,
               std::map<std::string, std::string> &artifacts,
               std::string &error) const override {
    tessera::nvidia::PTXOptions ptx;
    if (arch.getAsInteger(10, ptx.computeCapability)) {
      error = "invalid compute capability '" + arch.str() + "'";
      return false;
    }
    for (auto &[name, value] : options) {
      if (name == "enable-fp-fusion" && (value == "0" || value == "1")) {
        ptx.enableFPFusion = value == "1";
      } else if (name == "ptx-version" && !llvm::StringRef(value).getAsInteger(10, ptx.ptxVersion) &&
                 ptx.ptxVersion >= 60) {
      } else if (name == "libdevice") {
        ptx.libdevicePath = value;
      } else if (name == "extern-libs") {
        llvm::SmallVector<llvm::StringRef> paths;
        llvm::StringRef(value).split(paths, '\n', -1, /*KeepEmpty=*/false);
        for (llvm::StringRef p : paths)
          ptx.externLibraries.push_back(p.str());
      } else {
        error = "invalid option " + name + "='" + value +
                "' for the cuda backend (enable-fp-fusion=0|1, ptx-version=<e.g. 84>, "
                "libdevice=<path>, extern-libs=<paths, one per line>)";
        return false;
      }
    }
    return tessera::nvidia::translateToPTX(module, ptx, artifacts["ptx"], error);
  }
};

} // namespace

void tessera::nvidia::registerBackend() {
  tessera::registerBackend(std::make_unique<NVIDIABackend>());
}
