//===- TargetInfo.h - AMD specifics of the TTGIR -> LLVM lowering -*- C++ -*-===//

#ifndef TESSERA_AMD_TTGTOLLVM_TARGETINFO_H
#define TESSERA_AMD_TTGTOLLVM_TARGETINFO_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir::tessera {
class TargetInfoBase;
} // namespace mlir::tessera

namespace tessera::amd {

/// What an AMD GPU architecture ("gfx942") is to the compiler.
struct ArchInfo {
  /// Threads per wavefront: 64 on CDNA (gfx9), 32 on RDNA (gfx10, gfx11).
  int waveSize = 64;
  /// The ROCm device library's isa-version file to link (oclc_isa_version_<n>.bc).
  std::string isaVersion;
};

/// The ArchInfo of `arch`, or false with `why` set for what is not an AMD GPU
/// architecture Tessera compiles for (gfx90a, gfx940-gfx942, gfx1030, gfx1100-gfx1102, ...).
bool parseArch(llvm::StringRef arch, ArchInfo &info, std::string &why);

/// The TargetInfo of `arch` (already checked with parseArch).
std::unique_ptr<mlir::tessera::TargetInfoBase> createTargetInfo(llvm::StringRef arch);

} // namespace tessera::amd

#endif // TESSERA_AMD_TTGTOLLVM_TARGETINFO_H
