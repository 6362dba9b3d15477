/* A stand-in HIP runtime for testing tessera.aot's hip launchers on a machine without an AMD GPU
 * or ROCm: records the modules loaded (on which device), the launches made (with the kernarg
 * buffer's bytes, which the test checks against the code object's metadata) and the unloads, and
 * prints them. */
#ifdef MOCK_MIXED /* the kernel of many argument types (test_aot.py's `mixed`) */
#include "mixed.h"
#define KERNEL "mixed"
#else /* examples/kernels.py's add_kernel */
#include "add.h" /* first: it defines the HIP platform and includes HIP's header */
#define KERNEL "add_kernel"
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int loaded, unloaded, set_calls;
static int current = 0; /* the current device; < 0: hipGetDevice fails */

hipError_t hipGetDevice(int *device) {
  if (current < 0)
    return hipErrorNoDevice;
  *device = current;
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  set_calls++;
  current = device;
  return hipSuccess;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  const unsigned char *p = image;
  /* an ELF object of machine EM_AMDGPU (224): a code object */
  if (memcmp(p, "\x7f" "ELF", 4) != 0 || p[18] != 224 || p[19] != 0)
    return hipErrorInvalidImage;
  *module = (hipModule_t)(uintptr_t)(++loaded);
  printf("load module=%d device=%d\n", loaded, current);
  return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *name) {
  if (strcmp(name, KERNEL) != 0)
    return hipErrorNotFound;
  *function = (hipFunction_t)module;
  return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module) {
  unloaded++;
  printf("unload module=%d device=%d\n", (int)(uintptr_t)module, current);
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                 unsigned int by, unsigned int bz, unsigned int shared, hipStream_t stream,
                                 void **params, void **extra) {
  /* the arguments come as one buffer, in the order HIP reads `extra` */
  if (params != NULL || extra == NULL || extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
      extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE || extra[4] != HIP_LAUNCH_PARAM_END)
    return hipErrorInvalidValue;
  const unsigned char *args = extra[1];
  size_t size = *(size_t *)extra[3];
  printf("launch module=%d device=%d grid=%u,%u,%u block=%u,%u,%u shared=%u stream=%p size=%zu args=",
         (int)(uintptr_t)f, current, gx, gy, gz, bx, by, bz, shared, (void *)stream, size);
  for (size_t i = 0; i < size; ++i)
    printf("%02x", args[i]);
  printf("\n");
  return hipSuccess;
}

#define PTR(v) ((hipDeviceptr_t)(uintptr_t)(v))

#ifdef MOCK_MIXED
int main(void) {
  hipStream_t s = (hipStream_t)(uintptr_t)0x5000;
  printf("result=%d\n", mixed(s, 1, 1, 1, PTR(0x1000), -2, 0xBEEF, -(1LL << 40) - 16, 1.5f, -2.25));
  printf("result=%d\n", mixed(s, 1, 1, 1, PTR(0x1000), 127, 7, 8, 0.0f, 0.0)); /* d not a multiple of 16 */
  return 0;
}
#else
int main(void) {
  hipStream_t s = (hipStream_t)(uintptr_t)0x5000;
  printf("result=%d\n", add(s, 8, 1, 1, PTR(0x1000), PTR(0x2000), PTR(0x3000), 8192));  /* all facts: variant 0 */
  printf("result=%d\n", add(s, 8, 1, 1, PTR(0x1004), PTR(0x2000), PTR(0x3000), 8192));  /* x misaligned: 1 */
  printf("result=%d\n", add(s, 2, 1, 1, PTR(0x1000), PTR(0x2000), PTR(0x3000), -32));   /* variant 0, loaded */
  printf("result=%d\n", add(s, 3, 1, 1, PTR(0x1000), PTR(0x2000), PTR(0x3000), 2001));  /* n not a multiple */
  current = 1;                                                                          /* another device: */
  printf("result=%d\n", add(s, 8, 1, 1, PTR(0x1000), PTR(0x2000), PTR(0x3000), 8192));  /* its own module */
  current = 0;
  printf("result=%d\n", add(s, 8, 1, 1, PTR(0x1000), PTR(0x2000), PTR(0x3000), 8192));  /* back: the first */
  current = -1;
  printf("result=%d\n", add(s, 8, 1, 1, PTR(0x1000), PTR(0x2000), PTR(0x3000), 8192));  /* no device: error */
  current = 0;
  add_unload();
  printf("loaded=%d unloaded=%d set=%d device=%d\n", loaded, unloaded, set_calls, current);
  return 0;
}
#endif
