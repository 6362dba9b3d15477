/* A stand-in CUDA driver for testing tessera.aot's launchers on a machine without a GPU: records
 * the modules loaded and the launches made, and prints them. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "add.h"

static int loaded, unloaded, pushed;
static CUcontext current = (CUcontext)(uintptr_t)0xA;

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext context) {
  (void)context;
  pushed++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  if (memcmp(image, "\x7f" "ELF", 4) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  *module = (CUmodule)(uintptr_t)(++loaded);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  if (strcmp(name, "add_kernel") != 0)
    return CUDA_ERROR_NOT_FOUND;
  *function = (CUfunction)module;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute attrib, int value) {
  (void)f, (void)attrib, (void)value;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  (void)module;
  unloaded++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                unsigned int by, unsigned int bz, unsigned int shared, CUstream stream,
                                void **params, void **extra) {
  printf("launch module=%d grid=%u,%u,%u block=%u,%u,%u shared=%u stream=%p x=%llx y=%llx out=%llx n=%d extra=%p\n",
         (int)(uintptr_t)f, gx, gy, gz, bx, by, bz, shared, (void *)stream,
         (unsigned long long)*(CUdeviceptr *)params[0], (unsigned long long)*(CUdeviceptr *)params[1],
         (unsigned long long)*(CUdeviceptr *)params[2], *(int32_t *)params[3], (void *)extra);
  return CUDA_SUCCESS;
}

int main(void) {
  CUstream s = (CUstream)(uintptr_t)0x5000;
  printf("result=%d\n", add(s, 8, 1, 1, 0x1000, 0x2000, 0x3000, 8192));   /* all facts: variant 0 */
  printf("result=%d\n", add(s, 8, 1, 1, 0x1004, 0x2000, 0x3000, 8192));   /* x misaligned: variant 1 */
  printf("result=%d\n", add(s, 2, 1, 1, 0x1000, 0x2000, 0x3000, 2000));   /* variant 0 again, loaded */
  printf("result=%d\n", add(s, 3, 1, 1, 0x1000, 0x2000, 0x3000, 2001));   /* n not a multiple of 16 */
  current = (CUcontext)(uintptr_t)0xB;                                      /* another context: */
  printf("result=%d\n", add(s, 8, 1, 1, 0x1000, 0x2000, 0x3000, 8192));   /* its own module */
  current = (CUcontext)(uintptr_t)0xA;
  printf("result=%d\n", add(s, 8, 1, 1, 0x1000, 0x2000, 0x3000, 8192));   /* back: the first one */
  current = NULL;
  printf("result=%d\n", add(s, 8, 1, 1, 0x1000, 0x2000, 0x3000, 8192));   /* no context: an error */
  add_unload();
  printf("loaded=%d unloaded=%d pushed=%d\n", loaded, unloaded, pushed);
  return 0;
}
