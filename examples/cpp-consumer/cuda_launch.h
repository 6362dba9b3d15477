// The --launch mode of ttir-to-ptx: runs a kernel compiled by tessera::api::compileKernel on the
// GPU through the CUDA driver API (libcuda.so.1 opened with dlopen, so the program builds and
// runs where CUDA is not installed; with no driver or no GPU the launch is skipped).
#ifndef TESSERA_CPP_CONSUMER_CUDA_LAUNCH_H
#define TESSERA_CPP_CONSUMER_CUDA_LAUNCH_H

#include "tessera/API/Tessera.h"

#include <string>

// Runs the shared conformance suite's add kernel (add_kernel(x_ptr, y_ptr, z_ptr, n), one BLOCK
// of elements per program; `ttir` is its TTIR, `result` its compilation for `target`) on fp32
// data and compares z with x + y computed here. Prints what it does, then one line starting with
// PASS, FAIL or SKIP (no CUDA driver or no GPU). Returns 0 for PASS and SKIP, 1 for FAIL.
int launchAdd(const std::string &ttir, const std::string &target, const tessera::api::KernelResult &result);

#endif // TESSERA_CPP_CONSUMER_CUDA_LAUNCH_H
