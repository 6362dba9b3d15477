//===- HSACO.h - LLVM IR -> AMDGCN assembly and code object --------*- C++ -*-===//

#ifndef TESSERA_AMD_TARGET_HSACO_H
#define TESSERA_AMD_TARGET_HSACO_H

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace tessera::amd {

struct HSACOOptions {
  std::string arch;               // "gfx942"
  bool enableFPFusion = true;
  int wavesPerEU = 0;             // amdgpu-waves-per-eu minimum on the kernels (0: none)
  std::string deviceLibs;         // a directory holding ocml.bc, ockl.bc, oclc_*.bc ("": searched)
  std::vector<std::string> externLibraries; // users' bitcode (tl.extern_elementwise)
};

/// The directory of the ROCm device libraries: `hint`, TESSERA_ROCM_DEVICE_LIBS (when set, the
/// only candidate),
/// $ROCM_PATH/amdgcn/bitcode, /opt/rocm/amdgcn/bitcode, Debian's
/// /usr/lib/<multiarch>/amdgcn/bitcode; "" when none holds ocml.bc.
std::string findDeviceLibs(const std::string &hint);

/// The AMDGPU data layout.
std::string dataLayout();

/// Compiles `m` for `options.arch`: the device libraries it calls linked in,
/// optimized at O3, emitted as AMDGCN assembly (`amdgcn`) and as an object
/// linked by lld into a code object (`hsaco`, an ELF shared object).
bool translateToHSACO(llvm::Module &m, const HSACOOptions &options, std::string &amdgcn,
                      std::string &hsaco, std::string &error);

} // namespace tessera::amd

#endif // TESSERA_AMD_TARGET_HSACO_H
