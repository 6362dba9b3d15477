//===- CudaDriver.cpp - the CUDA driver through dlopen ----------------------===//
//
// Only the few driver entry points Tessera needs, declared here with their
// documented C signatures, resolved from libcuda.so.1 at first use. No CUDA
// header and no LLVM: the runtime builds and runs anywhere.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Runtime/Cuda.h"

#include <cstring>
#include <dlfcn.h>
#include <mutex>

using namespace tessera::api::cuda;

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

// Values from the CUDA driver API.
constexpr int kAttrMaxThreadsPerBlock = 0;       // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int kAttrSharedSizeBytes = 1;          // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
constexpr int kAttrLocalSizeBytes = 3;           // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
constexpr int kAttrNumRegs = 4;                  // CU_FUNC_ATTRIBUTE_NUM_REGS
constexpr int kAttrMaxDynamicSharedSize = 8;     // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kDevAttrComputeMajor = 75;         // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kDevAttrComputeMinor = 76;         // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kPointerAttrDeviceOrdinal = 9;     // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL

struct Driver {
  bool loaded = false;
  Status loadStatus;
  void *handle = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **) = nullptr;
  CUresult (*cuPointerGetAttribute)(void *, int, uint64_t) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  // Optional (CUDA 12 drivers and newer): TMA tensor maps.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *,
                                     const uint64_t *, const unsigned *, const unsigned *, int,
                                     int, int, int) = nullptr;
};

template <typename T> bool resolve(void *handle, T &fn, const char *name) {
  fn = reinterpret_cast<T>(dlsym(handle, name));
  return fn != nullptr;
}

Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d.handle) {
      const char *why = dlerror();
      d.loadStatus = {-1, "CUDA_DRIVER_NOT_FOUND",
                      std::string("cannot load libcuda.so.1 (no NVIDIA driver "
                                  "on this machine?): ") +
                          (why ? why : "")};
      return;
    }
    bool ok = resolve(d.handle, d.cuInit, "cuInit") &&
              resolve(d.handle, d.cuDeviceGetCount, "cuDeviceGetCount") &&
              resolve(d.handle, d.cuDeviceGet, "cuDeviceGet") &&
              resolve(d.handle, d.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
              resolve(d.handle, d.cuCtxGetCurrent, "cuCtxGetCurrent") &&
              resolve(d.handle, d.cuCtxSetCurrent, "cuCtxSetCurrent") &&
              resolve(d.handle, d.cuCtxSynchronize, "cuCtxSynchronize") &&
              resolve(d.handle, d.cuDevicePrimaryCtxRetain,
                      "cuDevicePrimaryCtxRetain") &&
              resolve(d.handle, d.cuModuleLoadData, "cuModuleLoadData") &&
              resolve(d.handle, d.cuModuleUnload, "cuModuleUnload") &&
              resolve(d.handle, d.cuModuleGetFunction, "cuModuleGetFunction") &&
              resolve(d.handle, d.cuFuncGetAttribute, "cuFuncGetAttribute") &&
              resolve(d.handle, d.cuFuncSetAttribute, "cuFuncSetAttribute") &&
              resolve(d.handle, d.cuLaunchKernel, "cuLaunchKernel") &&
              resolve(d.handle, d.cuPointerGetAttribute,
                      "cuPointerGetAttribute") &&
              resolve(d.handle, d.cuGetErrorName, "cuGetErrorName") &&
              resolve(d.handle, d.cuGetErrorString, "cuGetErrorString");
    d.cuTensorMapEncodeTiled = reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(
        dlsym(d.handle, "cuTensorMapEncodeTiled"));
    if (!ok) {
      d.loadStatus = {-1, "CUDA_DRIVER_TOO_OLD",
                      "libcuda.so.1 lacks a required entry point"};
      return;
    }
    CUresult rc = d.cuInit(0);
    if (rc != 0) {
      const char *name = nullptr, *desc = nullptr;
      d.cuGetErrorName(rc, &name);
      d.cuGetErrorString(rc, &desc);
      d.loadStatus = {rc, name ? name : "CUDA_ERROR_UNKNOWN",
                      std::string("cuInit failed: ") + (desc ? desc : "")};
      return;
    }
    d.loaded = true;
  });
  return d;
}

Status statusOf(CUresult rc, const char *what) {
  if (rc == 0)
    return {};
  Driver &d = driver();
  const char *name = nullptr, *desc = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(rc, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(rc, &desc);
  return {rc, name ? name : "CUDA_ERROR_UNKNOWN",
          std::string(what) + ": " + (desc ? desc : "unknown error")};
}

/// Makes a context current on the calling thread: the current one if any
/// (PyTorch's), else the device's primary context.
/// Makes the primary context of `device` current; `previous` receives the
/// context that was current so that the caller can restore it.
Status enterPrimaryContext(int device, CUcontext &ctx, CUcontext &previous) {
  Driver &d = driver();
  if (Status s = statusOf(d.cuCtxGetCurrent(&previous), "cuCtxGetCurrent");
      !s.ok())
    return s;
  CUdevice dev = 0;
  if (Status s = statusOf(d.cuDeviceGet(&dev, device), "cuDeviceGet"); !s.ok())
    return s;
  if (Status s = statusOf(d.cuDevicePrimaryCtxRetain(&ctx, dev),
                          "cuDevicePrimaryCtxRetain");
      !s.ok())
    return s;
  if (ctx == previous)
    return {};
  return statusOf(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

} // namespace

bool tessera::api::cuda::available(Status &status) {
  Driver &d = driver();
  status = d.loadStatus;
  return d.loaded;
}

int tessera::api::cuda::deviceCount() {
  Driver &d = driver();
  if (!d.loaded)
    return 0;
  int n = 0;
  if (d.cuDeviceGetCount(&n) != 0)
    return 0;
  return n;
}

Status tessera::api::cuda::computeCapability(int device, int &capability) {
  int major = 0, minor = 0;
  if (Status s = deviceAttribute(device, kDevAttrComputeMajor, major); !s.ok())
    return s;
  if (Status s = deviceAttribute(device, kDevAttrComputeMinor, minor); !s.ok())
    return s;
  capability = major * 10 + minor;
  return {};
}

Status tessera::api::cuda::deviceAttribute(int device, int attribute,
                                           int &value) {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  CUdevice dev = 0;
  if (Status s = statusOf(d.cuDeviceGet(&dev, device), "cuDeviceGet"); !s.ok())
    return s;
  return statusOf(d.cuDeviceGetAttribute(&value, attribute, dev),
                  "cuDeviceGetAttribute");
}

Status tessera::api::cuda::loadKernel(const std::string &image,
                                      const std::string &kernelName,
                                      int device, int dynamicSharedBytes,
                                      KernelInfo &info) {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  CUcontext ctx = nullptr, previous = nullptr;
  if (Status s = enterPrimaryContext(device, ctx, previous); !s.ok())
    return s;
  // Loading happens in the device's primary context (retained for as long as
  // the process lives); the caller's context is current again afterwards.
  struct Restore {
    Driver &d;
    CUcontext ctx, previous;
    ~Restore() {
      if (previous && previous != ctx)
        d.cuCtxSetCurrent(previous);
    }
  } restore{d, ctx, previous};
  // PTX must be NUL-terminated for cuModuleLoadData; a cubin is an ELF image.
  std::string copy = image;
  copy.push_back('\0');
  CUmodule module = nullptr;
  if (Status s = statusOf(d.cuModuleLoadData(&module, copy.data()),
                          "cuModuleLoadData");
      !s.ok())
    return s;
  CUfunction fn = nullptr;
  if (Status s = statusOf(
          d.cuModuleGetFunction(&fn, module, kernelName.c_str()),
          ("cuModuleGetFunction('" + kernelName + "')").c_str());
      !s.ok()) {
    d.cuModuleUnload(module);
    return s;
  }
  if (dynamicSharedBytes > 48 * 1024) {
    if (Status s = statusOf(d.cuFuncSetAttribute(fn, kAttrMaxDynamicSharedSize,
                                                 dynamicSharedBytes),
                            "cuFuncSetAttribute(max dynamic shared memory)");
        !s.ok()) {
      d.cuModuleUnload(module);
      return s;
    }
  }
  info.module = reinterpret_cast<uint64_t>(module);
  info.function = reinterpret_cast<uint64_t>(fn);
  info.context = reinterpret_cast<uint64_t>(ctx);
  d.cuFuncGetAttribute(&info.numRegisters, kAttrNumRegs, fn);
  d.cuFuncGetAttribute(&info.numSpills, kAttrLocalSizeBytes, fn);
  d.cuFuncGetAttribute(&info.maxThreadsPerBlock, kAttrMaxThreadsPerBlock, fn);
  d.cuFuncGetAttribute(&info.staticSharedBytes, kAttrSharedSizeBytes, fn);
  return {};
}

Status tessera::api::cuda::unloadModule(uint64_t module) {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  return statusOf(d.cuModuleUnload(reinterpret_cast<CUmodule>(module)),
                  "cuModuleUnload");
}

Status tessera::api::cuda::launch(uint64_t function, unsigned gridX,
                                  unsigned gridY, unsigned gridZ,
                                  unsigned blockX, unsigned blockY,
                                  unsigned blockZ, unsigned dynamicSharedBytes,
                                  uint64_t stream, const std::string &args,
                                  const std::vector<uint32_t> &offsets) {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  std::vector<void *> params(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] >= args.size())
      return {-1, "CUDA_ERROR_INVALID_VALUE",
              "kernel argument offset out of range"};
    params[i] = const_cast<char *>(args.data()) + offsets[i];
  }
  return statusOf(d.cuLaunchKernel(reinterpret_cast<CUfunction>(function),
                                   gridX, gridY, gridZ, blockX, blockY, blockZ,
                                   dynamicSharedBytes,
                                   reinterpret_cast<CUstream>(stream),
                                   params.empty() ? nullptr : params.data(),
                                   nullptr),
                  "cuLaunchKernel");
}

Status tessera::api::cuda::synchronize() {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  return statusOf(d.cuCtxSynchronize(), "cuCtxSynchronize");
}

Status tessera::api::cuda::launchKernel(uint64_t function, uint64_t context,
                                        unsigned gridX, unsigned gridY,
                                        unsigned gridZ, unsigned blockX,
                                        unsigned dynamicSharedBytes,
                                        uint64_t stream, void **params) {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  CUcontext current = nullptr;
  auto ctx = reinterpret_cast<CUcontext>(context);
  if (ctx && d.cuCtxGetCurrent(&current) == 0 && current != ctx)
    d.cuCtxSetCurrent(ctx);
  else
    current = ctx;
  CUresult rc = d.cuLaunchKernel(reinterpret_cast<CUfunction>(function), gridX,
                                 gridY, gridZ, blockX, 1, 1, dynamicSharedBytes,
                                 reinterpret_cast<CUstream>(stream), params,
                                 nullptr);
  if (current != ctx)
    d.cuCtxSetCurrent(current);
  return rc == 0 ? Status{} : statusOf(rc, "cuLaunchKernel");
}

int tessera::api::cuda::pointerDevice(uint64_t pointer) {
  Driver &d = driver();
  if (!d.loaded)
    return -1;
  int ordinal = -1;
  if (d.cuPointerGetAttribute(&ordinal, kPointerAttrDeviceOrdinal, pointer) !=
      0)
    return -1;
  return ordinal;
}

Status tessera::api::cuda::encodeTensorMap(int dataType, uint64_t globalAddress,
                                           const std::vector<uint64_t> &dims,
                                           const std::vector<uint64_t> &strideBytes,
                                           const std::vector<unsigned> &box, int swizzle,
                                           std::array<uint8_t, 128> &map) {
  Driver &d = driver();
  if (!d.loaded)
    return d.loadStatus;
  if (!d.cuTensorMapEncodeTiled)
    return {-1, "CUDA_DRIVER_TOO_OLD", "libcuda.so.1 has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver)"};
  unsigned rank = unsigned(dims.size());
  if (rank < 1 || rank > 5 || box.size() != rank || strideBytes.size() + 1 != rank)
    return {-1, "CUDA_ERROR_INVALID_VALUE", "encodeTensorMap: inconsistent ranks"};
  std::vector<unsigned> elementStrides(rank, 1);
  // CUtensorMapInterleave NONE = 0; L2 promotion 128B = 2; OOB fill NONE (zeros) = 0.
  alignas(64) uint8_t out[128] = {};
  CUresult rc = d.cuTensorMapEncodeTiled(out, dataType, rank, reinterpret_cast<void *>(globalAddress),
                                         dims.data(), strideBytes.data(), box.data(),
                                         elementStrides.data(), 0, swizzle, 2, 0);
  if (rc != 0)
    return statusOf(rc, "cuTensorMapEncodeTiled");
  std::memcpy(map.data(), out, 128);
  return {};
}
