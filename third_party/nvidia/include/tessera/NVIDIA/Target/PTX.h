//===- PTX.h - LLVM IR to PTX with LLVM's NVPTX target ----------*- C++ -*-===//

#ifndef TESSERA_NVIDIA_TARGET_PTX_H
#define TESSERA_NVIDIA_TARGET_PTX_H

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace tessera::nvidia {

struct PTXOptions {
  int computeCapability = 90; // sm_90
  int ptxVersion = 84;        // PTX ISA 8.4
  /// libdevice bitcode linked in when the module calls __nv_* functions
  /// (empty: look in $TESSERA_LIBDEVICE, $CUDA_HOME and /usr/local/cuda).
  std::string libdevicePath;
  bool enableFPFusion = true;
  /// The user's LLVM bitcode libraries (tl.extern_elementwise), linked before
  /// libdevice and internalized.
  std::vector<std::string> externLibraries;
};

/// The PTX processor name for a compute capability (90 -> "sm_90").
std::string ptxProcessor(int computeCapability);

/// Where libdevice.10.bc is, or "" when it cannot be found.
std::string findLibdevice(const std::string &hint = "");

/// The NVPTX data layout (64-bit generic pointers, 32-bit shared ones), or ""
/// when the NVPTX target is unavailable. The LLVM dialect module carries it
/// into translation so that loads and stores get the target's alignments
/// (an i64 is 8-byte aligned; LLVM's default layout says 4).
std::string dataLayout();

/// Links libdevice if needed, optimizes (O3) and emits PTX for `module`.
/// Returns false and sets `error` on failure; never aborts.
bool translateToPTX(llvm::Module &module, const PTXOptions &options,
                    std::string &ptx, std::string &error);

/// `ptx` with each `mul.wide.{s,u}32 %t, %a, b;` directly followed by the
/// only read of %t, `add.s64 %d, %c, %t;`, fused into `mad.wide.{s,u}32 %d,
/// %a, b, %c;` (see PTXPeephole.cpp for why). Everything else is unchanged.
std::string fuseWideMultiplyAdds(const std::string &ptx);

} // namespace tessera::nvidia

#endif // TESSERA_NVIDIA_TARGET_PTX_H
