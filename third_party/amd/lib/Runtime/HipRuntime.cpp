//===- HipRuntime.cpp - the HIP runtime through dlopen ------------------------===//
//
// Only the few HIP runtime entry points Tessera needs, declared here with
// their documented C signatures, resolved from libamdhip64.so at first use.
// No HIP header and no LLVM: the runtime builds and imports anywhere, and
// without ROCm every call fails with HIP_RUNTIME_NOT_FOUND.
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/Runtime/Hip.h"

#include <dlfcn.h>
#include <mutex>

using namespace tessera::api::hip;

namespace {

using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;

// hipModuleLaunchKernel's `extra` keys (hip_runtime_api.h).
void *const kLaunchParamBufferPointer = reinterpret_cast<void *>(0x01);
void *const kLaunchParamBufferSize = reinterpret_cast<void *>(0x02);
void *const kLaunchParamEnd = reinterpret_cast<void *>(0x03);

struct Runtime {
  Status loadStatus;
  void *handle = nullptr;
  hipError_t (*hipInit)(unsigned) = nullptr;
  hipError_t (*hipGetDeviceCount)(int *) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipGetDevice)(int *) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t, const char *) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, hipStream_t, void **,
                                      void **) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  const char *(*hipGetErrorName)(hipError_t) = nullptr;
  const char *(*hipGetErrorString)(hipError_t) = nullptr;
};

template <typename T> bool resolve(void *handle, T &fn, const char *name) {
  fn = reinterpret_cast<T>(dlsym(handle, name));
  return fn != nullptr;
}

Runtime &runtime() {
  static Runtime r;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    for (const char *lib : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
      r.handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      if (r.handle)
        break;
      if (const char *e = dlerror())
        why = e;
    }
    if (!r.handle) {
      r.loadStatus = {-1, "HIP_RUNTIME_NOT_FOUND",
                      "cannot load libamdhip64.so (no ROCm runtime on this machine?): " + why};
      return;
    }
    bool ok = resolve(r.handle, r.hipInit, "hipInit") &&
              resolve(r.handle, r.hipGetDeviceCount, "hipGetDeviceCount") &&
              resolve(r.handle, r.hipSetDevice, "hipSetDevice") &&
              resolve(r.handle, r.hipGetDevice, "hipGetDevice") &&
              resolve(r.handle, r.hipModuleLoadData, "hipModuleLoadData") &&
              resolve(r.handle, r.hipModuleUnload, "hipModuleUnload") &&
              resolve(r.handle, r.hipModuleGetFunction, "hipModuleGetFunction") &&
              resolve(r.handle, r.hipModuleLaunchKernel, "hipModuleLaunchKernel") &&
              resolve(r.handle, r.hipDeviceSynchronize, "hipDeviceSynchronize") &&
              resolve(r.handle, r.hipGetErrorName, "hipGetErrorName") &&
              resolve(r.handle, r.hipGetErrorString, "hipGetErrorString");
    if (!ok) {
      r.loadStatus = {-1, "HIP_RUNTIME_INCOMPLETE",
                      "libamdhip64.so lacks an entry point Tessera needs"};
      return;
    }
    if (hipError_t e = r.hipInit(0)) {
      r.loadStatus = {e, r.hipGetErrorName(e), std::string("hipInit: ") + r.hipGetErrorString(e)};
      return;
    }
  });
  return r;
}

/// Makes `device` current for a scope and gives the caller's current device
/// back at its end (a framework's own current device is not ours to change).
class DeviceGuard {
public:
  DeviceGuard(Runtime &r, int device) : r(r) {
    if (r.hipGetDevice(&previous) != 0)
      previous = -1;
    error = previous == device ? 0 : r.hipSetDevice(device);
  }
  ~DeviceGuard() {
    if (previous >= 0)
      r.hipSetDevice(previous);
  }
  hipError_t error = 0;

private:
  Runtime &r;
  int previous = -1;
};

Status check(hipError_t e, const char *what) {
  if (e == 0)
    return {};
  Runtime &r = runtime();
  return {e, r.hipGetErrorName ? r.hipGetErrorName(e) : "hipError",
          std::string(what) + ": " + (r.hipGetErrorString ? r.hipGetErrorString(e) : "")};
}

/// The runtime, or the status of why it cannot be used.
Runtime *usable(Status &status) {
  Runtime &r = runtime();
  if (!r.loadStatus.ok()) {
    status = r.loadStatus;
    return nullptr;
  }
  return &r;
}

} // namespace

bool tessera::api::hip::available(Status &status) {
  status = {};
  return usable(status) != nullptr;
}

int tessera::api::hip::deviceCount() {
  Status s;
  Runtime *r = usable(s);
  int n = 0;
  if (!r || r->hipGetDeviceCount(&n))
    return 0;
  return n;
}

Status tessera::api::hip::loadKernel(const std::string &image, const std::string &kernelName,
                                     int device, KernelInfo &info) {
  Status s;
  Runtime *r = usable(s);
  if (!r)
    return s;
  DeviceGuard onDevice(*r, device);
  if (!(s = check(onDevice.error, "hipSetDevice")).ok())
    return s;
  hipModule_t module = nullptr;
  if (!(s = check(r->hipModuleLoadData(&module, image.data()), "hipModuleLoadData")).ok())
    return s;
  hipFunction_t fn = nullptr;
  if (!(s = check(r->hipModuleGetFunction(&fn, module, kernelName.c_str()),
                  "hipModuleGetFunction"))
           .ok()) {
    r->hipModuleUnload(module);
    return s;
  }
  info.module = reinterpret_cast<uint64_t>(module);
  info.function = reinterpret_cast<uint64_t>(fn);
  return {};
}

Status tessera::api::hip::unloadModule(uint64_t module) {
  Status s;
  Runtime *r = usable(s);
  if (!r)
    return s;
  return check(r->hipModuleUnload(reinterpret_cast<hipModule_t>(module)), "hipModuleUnload");
}

std::string tessera::api::hip::packArguments(const std::vector<Argument> &args,
                                             std::vector<uint32_t> &offsets) {
  std::string out;
  offsets.clear();
  for (const Argument &a : args) {
    uint32_t align = a.alignment ? a.alignment : 1;
    size_t at = (out.size() + align - 1) / align * align;
    out.resize(at, '\0');
    offsets.push_back(uint32_t(at));
    out += a.bytes;
  }
  return out;
}

Status tessera::api::hip::launch(uint64_t function, int device, unsigned gridX, unsigned gridY,
                                 unsigned gridZ, unsigned blockX, unsigned sharedBytes,
                                 uint64_t stream, const std::string &kernargs) {
  Status s;
  Runtime *r = usable(s);
  if (!r)
    return s;
  DeviceGuard onDevice(*r, device);
  if (!(s = check(onDevice.error, "hipSetDevice")).ok())
    return s;
  std::string buffer = kernargs;
  size_t size = buffer.size();
  void *extra[] = {kLaunchParamBufferPointer, buffer.data(), kLaunchParamBufferSize, &size,
                   kLaunchParamEnd};
  return check(r->hipModuleLaunchKernel(reinterpret_cast<hipFunction_t>(function), gridX, gridY,
                                        gridZ, blockX, 1, 1, sharedBytes,
                                        reinterpret_cast<hipStream_t>(stream), nullptr, extra),
               "hipModuleLaunchKernel");
}

Status tessera::api::hip::synchronize() {
  Status s;
  Runtime *r = usable(s);
  if (!r)
    return s;
  return check(r->hipDeviceSynchronize(), "hipDeviceSynchronize");
}
