"""Every tl.math function that lowers to libdevice links on the NVIDIA path, for float32 and float64:
the names the backend calls exist in libdevice.10.bc (the correctly rounded sqrt_rn / div_rn are
__nv_fsqrt_rn / __nv_fdiv_rn, not the C names with an `f`), and ptxas sees no unresolved function.
A __nv_ name libdevice lacks is named in the error, not left to ptxas."""

import os
import shutil

import pytest

import tessera
import tessera.language as tl
from tessera.language import math as tlm

LIBDEVICE = [p for p in (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "nvvm/libdevice/libdevice.10.bc"),
                         "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc") if os.path.exists(p)]
pytestmark = pytest.mark.skipif(not LIBDEVICE, reason="needs CUDA's libdevice.10.bc")

UNARY = ["exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "floor", "ceil", "erf", "tanh",
         "sinh", "cosh", "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh", "log1p", "expm1", "log10",
         "exp10", "cbrt", "erfc", "trunc", "round", "rint", "lgamma", "tgamma", "abs"]
BINARY = ["atan2", "pow", "hypot", "fmod", "copysign", "nextafter", "div_rn"]


@tessera.jit
def all_math(x, y, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(x + offs)
    b = tl.load(y + offs)
    r = tl.fma(a, b, a) + tl.fdiv(a, b, ieee_rounding=True)
    for name in tl.static_range(len(UNARY_FNS)):
        r += UNARY_FNS[name](a)
    for name in tl.static_range(len(BINARY_FNS)):
        r += BINARY_FNS[name](a, b)
    tl.store(out + offs, r)


UNARY_FNS = tl.constexpr(tuple(getattr(tlm, n) for n in UNARY))
BINARY_FNS = tl.constexpr(tuple(getattr(tlm, n) for n in BINARY))


@pytest.mark.parametrize("ty", ["*fp32", "*fp64"])
def test_every_math_function_links(ty):
    k = tessera.compile(all_math, signature={"x": ty, "y": ty, "out": ty}, constexprs={"N": 64}, target="cuda:90")
    assert ".extern .func __nv_" not in k.asm["ptx"]
    if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
        assert "cubin" in k.asm  # ptxas resolved every call


@tessera.jit
def precise_half(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.math.sqrt_rn(tl.load(x + offs)))  # ERR


def test_sqrt_rn_needs_fp32_or_fp64():
    with pytest.raises(tessera.CompilationError, match="sqrt_rn expects float32 or float64, got float16"):
        tessera.compile(precise_half, signature={"x": "*fp16", "out": "*fp16"}, constexprs={"N": 64},
                        target="cuda:90")


NO_SUCH = tl.constexpr(tlm._extern("no_such_function"))


@tessera.jit
def unknown_extern(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, NO_SUCH(tl.load(x + offs)))


def test_unknown_libdevice_function_is_named():
    with pytest.raises(Exception, match="__nv_no_such_functionf, which libdevice .* does not define"):
        tessera.compile(unknown_extern, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"N": 64},
                        target="cuda:90")
