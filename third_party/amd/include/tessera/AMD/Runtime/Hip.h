//===- Hip.h - the HIP runtime, as libtessera's plain C++ API ---*- C++ -*-===//
//
// libamdhip64.so is opened at run time (dlopen), so Tessera imports and
// compiles for AMD targets on machines without ROCm. Every call returns a
// Status carrying HIP's error name; nothing throws. Untested on hardware: no
// AMD GPU is reachable where Tessera is developed.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_API_HIP_H
#define TESSERA_API_HIP_H

#include "tessera/API/Tessera.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::api::hip {

struct TESSERA_API Status {
  int code = 0;        // hipError_t; 0 is success
  std::string name;    // e.g. "hipErrorOutOfMemory", or "HIP_RUNTIME_NOT_FOUND"
  std::string message; // the runtime's description, plus context
  bool ok() const { return code == 0; }
};

/// Whether the HIP runtime can be loaded; `status` says why not.
TESSERA_API bool available(Status &status);

/// Number of devices (0 when the runtime is unavailable).
TESSERA_API int deviceCount();

struct TESSERA_API KernelInfo {
  uint64_t module = 0;   // hipModule_t
  uint64_t function = 0; // hipFunction_t
};

/// Loads a code object (hsaco) on `device` and looks up `kernelName`.
TESSERA_API Status loadKernel(const std::string &image, const std::string &kernelName,
                              int device, KernelInfo &info);

/// Unloads a module from loadKernel.
TESSERA_API Status unloadModule(uint64_t module);

/// One explicit kernel argument: its bytes (little-endian, as the kernel
/// reads them) and its alignment in the kernarg segment.
struct TESSERA_API Argument {
  std::string bytes;
  uint32_t alignment = 1;
};

/// The explicit part of a kernarg segment: each argument at the next offset
/// aligned to its alignment (the AMDGPU ABI's layout, which the code
/// object's metadata lists as .args offsets); `offsets` gets where each went.
TESSERA_API std::string packArguments(const std::vector<Argument> &args,
                                      std::vector<uint32_t> &offsets);

/// Launches `function` on `stream` (0: the null stream) of `device` with the
/// kernarg bytes `kernargs` (from packArguments; the runtime appends the
/// hidden arguments). `sharedBytes` is dynamic LDS (Tessera's kernels use
/// static LDS: 0).
TESSERA_API Status launch(uint64_t function, int device, unsigned gridX, unsigned gridY,
                          unsigned gridZ, unsigned blockX, unsigned sharedBytes, uint64_t stream,
                          const std::string &kernargs);

/// Waits for all work on the current device.
TESSERA_API Status synchronize();

} // namespace tessera::api::hip

#endif // TESSERA_API_HIP_H
