/* The AMD counterpart of main.c: C code calling the add and matmul kernels of examples/kernels.py
 * through the launchers `python -m tessera.aot --target hip:gfx942` wrote (`build.sh OUT_DIR
 * hip:gfx942` makes them), with nothing but the HIP runtime (libamdhip64). Checks both results on
 * the CPU; exits 0 when they match. Untested on AMD hardware: built, not run, where Tessera is
 * developed. */
#include "add.h" /* first: it selects HIP's AMD platform before HIP's header is read */
#include "matmul.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t r_ = (call);                                                           \
    if (r_ != hipSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,            \
              hipGetErrorName(r_));                                                   \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

/* fp16 <-> float on the host (round to nearest even; normal numbers and zero suffice here). */
static uint16_t to_half(float f) {
  union { float f; uint32_t u; } v = {f};
  uint32_t sign = (v.u >> 16) & 0x8000u, exp = (v.u >> 23) & 0xffu, man = v.u & 0x7fffffu;
  if (exp == 0) return (uint16_t)sign;
  int e = (int)exp - 127 + 15;
  if (e <= 0) return (uint16_t)sign;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13);
  uint32_t rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
  return (uint16_t)h;
}

static float from_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  union { uint32_t u; float f; } v;
  if (exp == 0) v.u = sign; /* (no subnormals here) */
  else if (exp == 31) v.u = sign | 0x7f800000u | (man << 13);
  else v.u = sign | ((exp - 15 + 127) << 23) | (man << 13);
  return v.f;
}

static int check_add(hipStream_t stream) {
  const int n = 1 << 20;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)), *z = malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 1000) * 0.5f;
    y[i] = (float)(i % 7) - 3.0f;
  }
  void *dx, *dy, *dz;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMalloc(&dz, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x, n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y, n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(add(stream, (n + 1023) / 1024, 1, 1, dx, dy, dz, n));
  /* an odd length takes the unspecialized variant (n not a multiple of 16) */
  CHECK(add(stream, (n - 3 + 1023) / 1024, 1, 1, dx, dy, dz, n - 3));
  CHECK(hipStreamSynchronize(stream));
  CHECK(hipMemcpy(z, dz, n * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (z[i] != x[i] + y[i]) bad++;
  printf("add: %d elements, %d wrong\n", n, bad);
  hipFree(dx);
  hipFree(dy);
  hipFree(dz);
  free(x);
  free(y);
  free(z);
  return bad == 0;
}

static int check_matmul(hipStream_t stream) {
  const int M = 256, N = 192, K = 160;
  uint16_t *a = malloc(M * K * 2), *b = malloc(K * N * 2), *c = malloc(M * N * 2);
  for (int i = 0; i < M * K; ++i) a[i] = to_half((float)((i * 7) % 13 - 6) / 8.0f);
  for (int i = 0; i < K * N; ++i) b[i] = to_half((float)((i * 5) % 11 - 5) / 8.0f);
  void *da, *db, *dc;
  CHECK(hipMalloc(&da, M * K * 2));
  CHECK(hipMalloc(&db, K * N * 2));
  CHECK(hipMalloc(&dc, M * N * 2));
  CHECK(hipMemcpy(da, a, M * K * 2, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(db, b, K * N * 2, hipMemcpyHostToDevice));
  CHECK(matmul(stream, (M + 31) / 32, (N + 31) / 32, 1, da, db, dc, M, N, K, K, 1, N, 1, N, 1));
  CHECK(hipStreamSynchronize(stream));
  CHECK(hipMemcpy(c, dc, M * N * 2, hipMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float ref = 0;
      for (int k = 0; k < K; ++k) ref += from_half(a[i * K + k]) * from_half(b[k * N + j]);
      double err = fabs((double)from_half(c[i * N + j]) - ref);
      if (err > worst) worst = err;
    }
  printf("matmul: %dx%dx%d, max error %g\n", M, N, K, worst);
  hipFree(da);
  hipFree(db);
  hipFree(dc);
  free(a);
  free(b);
  free(c);
  return worst < 5e-2;
}

int main(void) {
  hipStream_t stream;
  CHECK(hipSetDevice(0));
  CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  int ok = check_add(stream) && check_matmul(stream);
  add_unload();
  matmul_unload();
  hipStreamDestroy(stream);
  printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
