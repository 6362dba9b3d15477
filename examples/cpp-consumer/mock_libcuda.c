/* A stand-in for libcuda.so.1 that tests `ttir-to-ptx --launch` where there is no GPU (make
 * test-install): device memory is host memory, and cuLaunchKernel runs the conformance add kernel
 * (BLOCK 1024, 4 warps) on the host, after checking the launch ttir-to-ptx asks for. Build it as
 * a shared library and point TESSERA_LIBCUDA at it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define BAD 1 /* CUDA_ERROR_INVALID_VALUE */
static int retained, loaded, launched;

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : BAD; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return 0; }
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return ordinal == 0 ? 0 : BAD; }
CUresult cuDeviceGetName(char *name, int len, int device) { snprintf(name, len, "mock GPU"); return 0; }
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  *value = attribute == 75 ? 9 : 0; /* compute capability 9.0 */
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) { *context = &retained; retained++; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  retained--;
  printf("mock driver: context released (%d module(s) loaded, %d launch(es))\n", loaded, launched);
  return 0;
}
CUresult cuCtxSetCurrent(void *context) { return context == &retained ? 0 : BAD; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadData(void **module, const void *image) {
  /* a cubin (ELF) from ptxas, or PTX text where there is no ptxas */
  if (memcmp(image, "\177ELF", 4) != 0 && !strstr((const char *)image, ".entry add_kernel")) return BAD;
  loaded++;
  *module = &loaded;
  return 0;
}
CUresult cuModuleUnload(void *module) { return module == &loaded ? 0 : BAD; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  if (module != &loaded || strcmp(name, "add_kernel") != 0) return 500; /* CUDA_ERROR_NOT_FOUND */
  *function = &launched;
  return 0;
}
CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  *value = attribute == 4 ? 32 : 1024; /* registers, max threads per block */
  return 0;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) { return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  *ptr = (CUdeviceptr)(uintptr_t)malloc(bytes);
  return *ptr ? 0 : 2;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) { free((void *)(uintptr_t)ptr); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) { memset((void *)(uintptr_t)dst, v, n); return 0; }
CUresult cuGetErrorName(CUresult r, const char **name) { *name = "CUDA_ERROR_MOCK"; return 0; }
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  if (function != &launched || gy != 1 || gz != 1 || bx != 128 || by != 1 || bz != 1 || shared != 0 || extra)
    return BAD;
  const float *x = *(const float **)params[0], *y = *(const float **)params[1];
  float *z = *(float **)params[2];
  int32_t n = *(const int32_t *)params[3];
  for (int64_t i = 0; i < (int64_t)gx * 1024; ++i)
    if (i < n) z[i] = x[i] + y[i];
  launched++;
  return 0;
}
