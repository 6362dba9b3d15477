// ttir-to-ptx --launch: the add kernel compiled by tessera::api::compileKernel, assembled to a
// cubin by ptxas (or, without ptxas, handed to the driver as PTX), loaded and launched through the
// CUDA driver API, and its result checked. The driver is opened with dlopen("libcuda.so.1") and
// only the functions used here are looked up, so nothing links CUDA and no CUDA header is needed.
//
// What a Tessera kernel takes: its own parameters in order (the PTX entry lists them), then, when
// the module was compiled with profiling scopes, the profile buffer (prof.bytes_per_program > 0),
// then, when it uses global scratch memory (ttg.global_scratch_memory_size > 0), the scratch base:
// one slice of that size per program. No other hidden parameter exists (see FuncOpToLLVM.cpp).

#include "cuda_launch.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

extern char **environ;

namespace {

// ------------------------------------------------------------------ the driver, by dlopen

// The few driver types and constants used (cuda.h's values; the driver's ABI is stable).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
constexpr int kAttrCcMajor = 75;             // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrCcMinor = 76;             // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kFuncMaxThreads = 0;           // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int kFuncNumRegs = 4;              // CU_FUNC_ATTRIBUTE_NUM_REGS
constexpr int kFuncMaxDynamicShared = 8;     // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

struct Driver {
  void *handle = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;

  std::string name(CUresult r) const {
    const char *s = nullptr;
    if (cuGetErrorName && cuGetErrorName(r, &s) == 0 && s)
      return s;
    return "CUresult " + std::to_string(r);
  }
};

template <typename T> bool resolve(void *handle, T &fn, const char *symbol, std::string &missing) {
  fn = reinterpret_cast<T>(dlsym(handle, symbol));
  if (!fn)
    missing += std::string(missing.empty() ? "" : ", ") + symbol;
  return fn != nullptr;
}

// Opens the driver ($TESSERA_LIBCUDA, else libcuda.so.1) and looks up what is used here: the
// versioned entry points (_v2) are the ones cuda.h's macros name for 64-bit device pointers.
bool openDriver(Driver &d, std::string &why) {
  const char *path = std::getenv("TESSERA_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  d.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    const char *e = dlerror();
    why = std::string("cannot open the CUDA driver (") + (e ? e : path) + ")";
    return false;
  }
  std::string missing;
  resolve(d.handle, d.cuInit, "cuInit", missing);
  resolve(d.handle, d.cuDeviceGetCount, "cuDeviceGetCount", missing);
  resolve(d.handle, d.cuDeviceGet, "cuDeviceGet", missing);
  resolve(d.handle, d.cuDeviceGetName, "cuDeviceGetName", missing);
  resolve(d.handle, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
  resolve(d.handle, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  resolve(d.handle, d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", missing);
  resolve(d.handle, d.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  resolve(d.handle, d.cuCtxSynchronize, "cuCtxSynchronize", missing);
  resolve(d.handle, d.cuModuleLoadData, "cuModuleLoadData", missing);
  resolve(d.handle, d.cuModuleUnload, "cuModuleUnload", missing);
  resolve(d.handle, d.cuModuleGetFunction, "cuModuleGetFunction", missing);
  resolve(d.handle, d.cuFuncGetAttribute, "cuFuncGetAttribute", missing);
  resolve(d.handle, d.cuFuncSetAttribute, "cuFuncSetAttribute", missing);
  resolve(d.handle, d.cuMemAlloc, "cuMemAlloc_v2", missing);
  resolve(d.handle, d.cuMemFree, "cuMemFree_v2", missing);
  resolve(d.handle, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
  resolve(d.handle, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
  resolve(d.handle, d.cuMemsetD8, "cuMemsetD8_v2", missing);
  resolve(d.handle, d.cuLaunchKernel, "cuLaunchKernel", missing);
  resolve(d.handle, d.cuGetErrorName, "cuGetErrorName", missing);
  if (!missing.empty()) {
    why = std::string(path) + " lacks " + missing;
    return false;
  }
  return true;
}

// ------------------------------------------------------------------ reading the compilation

// The PTX entry's name and the byte size of each of its parameters, in order.
bool ptxEntry(const std::string &ptx, std::string &name, std::vector<size_t> &paramBytes, std::string &why) {
  size_t at = ptx.find(".entry ");
  if (at == std::string::npos) {
    why = "the PTX has no .entry";
    return false;
  }
  at += 7;
  size_t open = ptx.find('(', at);
  size_t close = ptx.find(')', open);
  if (open == std::string::npos || close == std::string::npos) {
    why = "cannot read the .entry's parameter list";
    return false;
  }
  name = ptx.substr(at, open - at);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
    name.pop_back();
  std::stringstream list(ptx.substr(open + 1, close - open - 1));
  std::string param;
  while (std::getline(list, param, ',')) {
    if (param.find(".param") == std::string::npos)
      continue;
    size_t bytes = 0;
    if (size_t lb = param.find('['); lb != std::string::npos) {
      bytes = std::strtoull(param.c_str() + lb + 1, nullptr, 10); // .param .align A .b8 name[N]
    } else {
      std::stringstream words(param);
      std::string w;
      while (words >> w)
        if (w.size() >= 3 && w[0] == '.' && std::strchr("usbf", w[1]) && std::isdigit(static_cast<unsigned char>(w[2])))
          bytes = std::strtoull(w.c_str() + 2, nullptr, 10) / 8; // .u64, .u32, .f32, .b16 ...
    }
    if (bytes == 0) {
      why = "cannot read the PTX parameter '" + param + "'";
      return false;
    }
    paramBytes.push_back(bytes);
  }
  return true;
}

int64_t metadataOr(const tessera::api::KernelResult &r, const std::string &key, int64_t fallback) {
  auto it = r.metadata.find(key);
  return it == r.metadata.end() ? fallback : it->second;
}

// The add kernel's BLOCK: the extent of its tt.make_range (a constexpr, so only the TTIR knows it).
int64_t blockOf(const std::string &ttir) {
  size_t at = ttir.find("tt.make_range");
  if (at == std::string::npos)
    return 0;
  size_t end = ttir.find("end = ", at);
  return end == std::string::npos ? 0 : std::strtoll(ttir.c_str() + end + 6, nullptr, 10);
}

// ------------------------------------------------------------------ ptxas

// ptxas as tessera.backends.nvidia.find_ptxas looks for it: $TESSERA_PTXAS, $CUDA_HOME/bin,
// $CUDA_PATH/bin, PATH, /usr/local/cuda/bin. Empty when there is none.
std::string findPtxas() {
  auto executable = [](const std::string &p) { return !p.empty() && access(p.c_str(), X_OK) == 0; };
  std::vector<std::string> candidates;
  if (const char *p = std::getenv("TESSERA_PTXAS"))
    candidates.push_back(p);
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *p = std::getenv(var))
      candidates.push_back(std::string(p) + "/bin/ptxas");
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty())
        candidates.push_back(dir + "/ptxas");
  }
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &c : candidates)
    if (executable(c))
      return c;
  return "";
}

// The PTX's .target (e.g. sm_90a: wgmma needs the 'a' variant), which ptxas's -arch must be.
std::string ptxTarget(const std::string &ptx) {
  size_t at = ptx.find(".target ");
  if (at == std::string::npos)
    return "";
  at += 8;
  size_t end = ptx.find_first_of(", \n", at);
  return ptx.substr(at, end - at);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Assembles `ptx` to a cubin with ptxas; false with `why` on failure.
bool assemble(const std::string &ptxas, const std::string &ptx, const std::string &arch, std::string &cubin,
              std::string &why) {
  char dir[] = "/tmp/tessera-consumer-XXXXXX";
  if (!mkdtemp(dir)) {
    why = "mkdtemp failed";
    return false;
  }
  std::string src = std::string(dir) + "/kernel.ptx", dst = std::string(dir) + "/kernel.cubin",
              log = std::string(dir) + "/ptxas.log";
  std::ofstream(src) << ptx;
  std::string archFlag = "-arch=" + arch;
  std::vector<const char *> argv = {ptxas.c_str(), archFlag.c_str(), "-O3", src.c_str(), "-o", dst.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, const_cast<char **>(argv.data()), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (rc == 0)
    waitpid(pid, &status, 0);
  bool ok = rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok)
    cubin = readFile(dst);
  else
    why = "ptxas " + archFlag + " failed: " + readFile(log);
  for (const std::string &f : {src, dst, log})
    std::remove(f.c_str());
  rmdir(dir);
  return ok && !cubin.empty();
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

int launchAdd(const std::string &ttir, const std::string &target, const tessera::api::KernelResult &result) {
  // 1. What the compilation says: the entry, its parameters, and the launch shape.
  const std::string &ptx = result.artifacts.at("ptx");
  std::string name, why;
  std::vector<size_t> paramBytes;
  if (!ptxEntry(ptx, name, paramBytes, why)) {
    std::cout << "FAIL: " << why << "\n";
    return 1;
  }
  int64_t numWarps = metadataOr(result, "ttg.num-warps", 4);
  int64_t threadsPerWarp = metadataOr(result, "ttg.threads-per-warp", 32);
  int64_t shared = metadataOr(result, "ttg.shared", 0);
  int64_t scratchBytes = metadataOr(result, "ttg.global_scratch_memory_size", 0);
  int64_t scratchAlign = metadataOr(result, "ttg.global_scratch_memory_alignment", 1);
  int64_t profileBytes = metadataOr(result, "prof.bytes_per_program", 0);
  std::cout << "kernel: " << name << " (" << target << "), " << numWarps << " warps x " << threadsPerWarp
            << " threads, " << shared << " bytes of shared memory, " << scratchBytes
            << " bytes of global scratch per program\nmetadata:";
  for (auto &[k, v] : result.metadata)
    std::cout << " " << k << "=" << v;
  std::cout << "\nPTX parameters (bytes):";
  for (size_t b : paramBytes)
    std::cout << " " << b;
  std::cout << "\n";
  if (profileBytes > 0) {
    std::cout << "FAIL: the kernel was compiled with profiling scopes; its profile buffer needs tessera.profiler\n";
    return 1;
  }
  // The add kernel's own parameters: three pointers and an i32; the scratch base follows if any.
  size_t hidden = scratchBytes > 0 ? 1 : 0;
  std::vector<size_t> expected = {8, 8, 8, 4};
  if (paramBytes.size() != expected.size() + hidden ||
      !std::equal(expected.begin(), expected.end(), paramBytes.begin()) || (hidden && paramBytes.back() != 8)) {
    std::cout << "FAIL: " << name << " does not take (x_ptr, y_ptr, z_ptr, i32 n) as the add kernel does\n";
    return 1;
  }
  int64_t block = blockOf(ttir);
  if (block <= 0) {
    std::cout << "FAIL: no tt.make_range in the TTIR to take BLOCK from\n";
    return 1;
  }

  // 2. The binary: a cubin from ptxas for the PTX's own target, else the PTX (the driver JITs it).
  std::string image, imageKind;
  std::string ptxas = findPtxas();
  if (!ptxas.empty()) {
    auto t0 = std::chrono::steady_clock::now();
    if (!assemble(ptxas, ptx, ptxTarget(ptx), image, why)) {
      std::cout << "FAIL: " << why << "\n";
      return 1;
    }
    imageKind = "cubin";
    std::cout << "cubin: " << image.size() << " bytes from " << ptxas << " -arch=" << ptxTarget(ptx) << " in "
              << msSince(t0) << " ms\n";
  } else {
    image = ptx;
    imageKind = "ptx";
    std::cout << "no ptxas found: loading the PTX (the driver compiles it)\n";
  }

  // 3. The driver and a GPU, or a clean skip.
  Driver d;
  if (!openDriver(d, why)) {
    std::cout << "SKIP: " << why << "\n";
    return 0;
  }
  CUresult r = d.cuInit(0);
  int count = 0;
  if (r == 0)
    r = d.cuDeviceGetCount(&count);
  if (r != 0 || count == 0) {
    std::cout << "SKIP: no CUDA device (" << (r != 0 ? "cuInit: " + d.name(r) : "0 devices") << ")\n";
    return 0;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  std::vector<CUdeviceptr> buffers;
  bool retained = false;
  int outcome = 1;
  auto check = [&](CUresult rc, const char *what) {
    if (rc != 0)
      std::cout << "FAIL: " << what << ": " << d.name(rc) << "\n";
    return rc == 0;
  };
  auto alloc = [&](size_t bytes, CUdeviceptr &p) {
    if (!check(d.cuMemAlloc(&p, bytes), "cuMemAlloc"))
      return false;
    buffers.push_back(p);
    return true;
  };
  do {
    char devName[256] = {0};
    int major = 0, minor = 0;
    if (!check(d.cuDeviceGet(&dev, 0), "cuDeviceGet") ||
        !check(d.cuDeviceGetName(devName, sizeof devName - 1, dev), "cuDeviceGetName") ||
        !check(d.cuDeviceGetAttribute(&major, kAttrCcMajor, dev), "cuDeviceGetAttribute") ||
        !check(d.cuDeviceGetAttribute(&minor, kAttrCcMinor, dev), "cuDeviceGetAttribute"))
      break;
    std::cout << "device 0: " << devName << ", compute capability " << major << "." << minor << "\n";
    if (!check(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"))
      break;
    retained = true;
    if (!check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
      break;
    auto t0 = std::chrono::steady_clock::now();
    if (!check(d.cuModuleLoadData(&module, image.c_str()), "cuModuleLoadData") ||
        !check(d.cuModuleGetFunction(&fn, module, name.c_str()), "cuModuleGetFunction"))
      break;
    if (shared > 48 * 1024 &&
        !check(d.cuFuncSetAttribute(fn, kFuncMaxDynamicShared, static_cast<int>(shared)), "cuFuncSetAttribute"))
      break;
    int regs = 0, maxThreads = 0;
    if (!check(d.cuFuncGetAttribute(&regs, kFuncNumRegs, fn), "cuFuncGetAttribute") ||
        !check(d.cuFuncGetAttribute(&maxThreads, kFuncMaxThreads, fn), "cuFuncGetAttribute"))
      break;
    unsigned blockThreads = static_cast<unsigned>(numWarps * threadsPerWarp);
    std::cout << "loaded the " << imageKind << " in " << msSince(t0) << " ms: " << regs << " registers per thread, "
              << "at most " << maxThreads << " threads per block (launching " << blockThreads << ")\n";

    // 4. Data: n elements (a multiple of 16, as the TTIR's tt.divisibility on n promises, and not of
    // BLOCK, so the last program is masked), and a guard after z that the kernel must not touch.
    const int32_t n = 1000000;
    const size_t guard = static_cast<size_t>(block);
    const float sentinel = -12345.0f;
    std::vector<float> x(n), y(n), z(n + guard, sentinel);
    for (int32_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
      y[i] = 1.0f / static_cast<float>(1 + i % 7);
    }
    CUdeviceptr dx = 0, dy = 0, dz = 0, dscratch = 0;
    if (!alloc(n * sizeof(float), dx) || !alloc(n * sizeof(float), dy) || !alloc(z.size() * sizeof(float), dz) ||
        !check(d.cuMemcpyHtoD(dx, x.data(), n * sizeof(float)), "cuMemcpyHtoD") ||
        !check(d.cuMemcpyHtoD(dy, y.data(), n * sizeof(float)), "cuMemcpyHtoD") ||
        !check(d.cuMemcpyHtoD(dz, z.data(), z.size() * sizeof(float)), "cuMemcpyHtoD"))
      break;
    unsigned grid = static_cast<unsigned>((n + block - 1) / block);
    if (scratchBytes > 0) {
      // One slice per program; cuMemAlloc's 256-byte alignment covers the kernel's.
      if (scratchAlign > 256) {
        std::cout << "FAIL: global scratch alignment " << scratchAlign << " exceeds cuMemAlloc's 256\n";
        break;
      }
      if (!alloc(static_cast<size_t>(scratchBytes) * grid, dscratch) ||
          !check(d.cuMemsetD8(dscratch, 0, static_cast<size_t>(scratchBytes) * grid), "cuMemsetD8"))
        break;
    }
    int32_t nArg = n;
    std::vector<void *> params = {&dx, &dy, &dz, &nArg};
    if (scratchBytes > 0)
      params.push_back(&dscratch);

    // 5. Launch, wait, check.
    t0 = std::chrono::steady_clock::now();
    if (!check(d.cuLaunchKernel(fn, grid, 1, 1, blockThreads, 1, 1, static_cast<unsigned>(shared), nullptr,
                                params.data(), nullptr),
               "cuLaunchKernel") ||
        !check(d.cuCtxSynchronize(), "cuCtxSynchronize"))
      break;
    double launchMs = msSince(t0);
    if (!check(d.cuMemcpyDtoH(z.data(), dz, z.size() * sizeof(float)), "cuMemcpyDtoH"))
      break;
    size_t wrong = 0, guardTouched = 0;
    int64_t firstWrong = -1;
    for (int32_t i = 0; i < n; ++i)
      if (z[i] != x[i] + y[i] && wrong++ == 0)
        firstWrong = i;
    for (size_t i = n; i < z.size(); ++i)
      guardTouched += z[i] != sentinel;
    std::cout << "launched " << grid << " programs x " << blockThreads << " threads (BLOCK " << block << ", n " << n
              << "): " << launchMs << " ms to completion (first launch)\n";
    if (wrong == 0 && guardTouched == 0) {
      std::cout << "PASS: " << name << " computed z = x + y exactly for all " << n << " elements on " << devName
                << " (PTX from tessera::api::compileKernel, loaded as " << (imageKind == "cubin" ? "a cubin" : "PTX")
                << "), the " << guard
                << " elements after z untouched\n";
      outcome = 0;
    } else {
      std::cout << "FAIL: " << wrong << " of " << n << " elements wrong";
      if (firstWrong >= 0)
        std::cout << " (first at " << firstWrong << ": " << z[firstWrong] << " != " << x[firstWrong] + y[firstWrong]
                  << ")";
      std::cout << ", " << guardTouched << " guard elements written\n";
    }
  } while (false);
  for (CUdeviceptr p : buffers)
    d.cuMemFree(p);
  if (module)
    d.cuModuleUnload(module);
  if (retained)
    d.cuDevicePrimaryCtxRelease(dev);
  return outcome;
}
