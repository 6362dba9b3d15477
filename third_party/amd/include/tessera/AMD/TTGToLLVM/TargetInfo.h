//===- TargetInfo.h - AMD specifics of the TTGIR -> LLVM lowering -*- C++ -*-===//

#ifndef TESSERA_AMD_TTGTOLLVM_TARGETINFO_H
#define TESSERA_AMD_TTGTOLLVM_TARGETINFO_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tessera {
class TargetInfoBase;
class TesseraLLVMTypeConverter;
} // namespace mlir::tessera

namespace tessera::amd {

/// What an AMD GPU architecture ("gfx942") is to the compiler.
struct ArchInfo {
  /// Threads per wavefront: 64 on CDNA (gfx9), 32 on RDNA (gfx10, gfx11).
  int waveSize = 64;
  /// The ROCm device library's isa-version file to link (oclc_isa_version_<n>.bc).
  std::string isaVersion;
  /// The architecture's own ISA version ("1100" for gfx1100): its
  /// oclc_isa_version file is used where the device libraries have one.
  std::string exactIsaVersion;
  /// The CDNA generation of its matrix cores (2: gfx90a, 3: gfx94x); 0 for none
  /// Tessera uses.
  int mfmaVersion = 0;
  /// The version of its WMMA instructions (1: RDNA3, gfx11); 0 for none.
  int wmmaVersion = 0;
  /// The 8-bit float formats its conversions (v_cvt_*fp8/bf8) and fp8 MFMA
  /// take: the FNUZ ones (e4m3fnuz, e5m2fnuz) on gfx940-942, the OCP ones
  /// (e4m3fn, e5m2) on gfx950; none elsewhere.
  enum class Fp8Formats { None, Fnuz, Ocp } fp8 = Fp8Formats::None;
};

/// The ArchInfo of `arch`, or false with `why` set for what is not an AMD GPU
/// architecture Tessera compiles for (gfx90a, gfx940-gfx942, gfx1030, gfx1100-gfx1102, ...).
bool parseArch(llvm::StringRef arch, ArchInfo &info, std::string &why);

/// Warps (along M, along N) of a dot of `numWarps` warps on 16x16x16 MFMA
/// tiles (f16/bf16 operands, f32 accumulator, M, N, K multiples of 16);
/// std::nullopt for dots MFMA does not run.
std::optional<std::pair<unsigned, unsigned>> getMfmaWarps(mlir::RankedTensorType a,
                                                          mlir::RankedTensorType b,
                                                          mlir::RankedTensorType c, int numWarps);

/// tt.dot on MFMA for operands in the dot_op layouts of an amd_mfma parent.
void populateMfmaDotPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);

/// The TargetInfo of `arch` (already checked with parseArch).
std::unique_ptr<mlir::tessera::TargetInfoBase> createTargetInfo(llvm::StringRef arch);

} // namespace tessera::amd

#endif // TESSERA_AMD_TTGTOLLVM_TARGETINFO_H
