//===- Cuda.h - the CUDA driver, as libtessera's plain C++ API --*- C++ -*-===//
//
// libcuda.so.1 is opened at run time (dlopen), so Tessera imports and compiles
// on machines without a GPU or a driver. Every call returns a Status carrying
// the CUDA error name; nothing throws.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_API_CUDA_H
#define TESSERA_API_CUDA_H

#include "tessera/API/Tessera.h"

#include <cstdint>
#include <array>
#include <string>
#include <vector>

namespace tessera::api::cuda {

struct TESSERA_API Status {
  int code = 0;        // CUresult; 0 is success
  std::string name;    // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
  std::string message; // the driver's description, plus context
  bool ok() const { return code == 0; }
};

/// Whether the driver can be loaded and initialized; `status` says why not.
TESSERA_API bool available(Status &status);

/// Number of devices (0 when the driver is unavailable).
TESSERA_API int deviceCount();

/// Compute capability of `device` as major * 10 + minor (e.g. 90).
TESSERA_API Status computeCapability(int device, int &capability);

/// A device attribute (CUdevice_attribute) of `device`.
TESSERA_API Status deviceAttribute(int device, int attribute, int &value);

/// Properties of a loaded kernel.
struct TESSERA_API KernelInfo {
  uint64_t module = 0;   // CUmodule
  uint64_t function = 0; // CUfunction
  uint64_t context = 0;  // CUcontext the module was loaded into
  int numRegisters = 0;
  int numSpills = 0;     // local memory bytes per thread (spill stores)
  int maxThreadsPerBlock = 0;
  int staticSharedBytes = 0;
};

/// Loads a cubin (or PTX, which the driver compiles) into the primary context
/// of `device` (the one PyTorch and the runtime API use), looks up
/// `kernelName`, and opts in to `dynamicSharedBytes` of dynamic shared memory
/// when that is above 48 KiB.
TESSERA_API Status loadKernel(const std::string &image,
                              const std::string &kernelName, int device,
                              int dynamicSharedBytes, KernelInfo &info);

/// Unloads a module from loadKernel.
TESSERA_API Status unloadModule(uint64_t module);

/// Launches `function` on `stream` (0: the default stream). `args` holds the
/// kernel arguments back to back; `offsets[i]` is where argument i starts.
TESSERA_API Status launch(uint64_t function, unsigned gridX, unsigned gridY,
                          unsigned gridZ, unsigned blockX, unsigned blockY,
                          unsigned blockZ, unsigned dynamicSharedBytes,
                          uint64_t stream, const std::string &args,
                          const std::vector<uint32_t> &offsets);

/// The launch fast path: `params[i]` points at argument i. When `context` is
/// not the current context it is made current for the launch and the previous
/// one restored, so a kernel runs on the device its module was loaded on.
TESSERA_API Status launchKernel(uint64_t function, uint64_t context,
                                unsigned gridX, unsigned gridY, unsigned gridZ,
                                unsigned blockX, unsigned dynamicSharedBytes,
                                uint64_t stream, void **params);

/// The device ordinal that owns the device memory at `pointer`, or -1 when
/// the driver does not know the pointer (host memory, a freed allocation).
TESSERA_API int pointerDevice(uint64_t pointer);

/// Waits for all work on the current context.
TESSERA_API Status synchronize();

/// Encodes a TMA tensor map (cuTensorMapEncodeTiled) of a tensor at
/// `globalAddress`: `dims` and `box` innermost first, `strideBytes` the
/// strides of dimensions 1.. in bytes, `dataType` a CUtensorMapDataType,
/// `swizzle` a CUtensorMapSwizzle (0 none, 1 32B, 2 64B, 3 128B); elements
/// out of bounds read as zero. Fails with CUDA_DRIVER_TOO_OLD on drivers
/// without TMA.
TESSERA_API Status encodeTensorMap(int dataType, uint64_t globalAddress,
                                   const std::vector<uint64_t> &dims,
                                   const std::vector<uint64_t> &strideBytes,
                                   const std::vector<unsigned> &box, int swizzle,
                                   std::array<uint8_t, 128> &map);

} // namespace tessera::api::cuda

#endif // TESSERA_API_CUDA_H
