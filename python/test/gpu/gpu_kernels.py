"""Kernels the GPU tests run in a subprocess (printing and failing assertions affect the whole process)."""

import tessera
import tessera.language as tl


@tessera.jit
def print_kernel(x_ptr):
    offs = tl.arange(0, 8)
    tl.device_print("x=", tl.load(x_ptr + offs))


@tessera.jit
def assert_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.device_assert(x >= 0, "x must be non-negative")
