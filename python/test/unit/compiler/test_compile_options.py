"""Compile options that change the code: enable_fp_fusion (fma or separate multiply and add) and
maxnreg (ptxas's register cap); unknown options are errors (compile-only, no GPU)."""

import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia


@tessera.jit
def axpy(x, y, out, a):
    offs = tl.arange(0, 128)
    tl.store(out + offs, tl.load(x + offs) * a + tl.load(y + offs))


SIG = {"x": "*fp32", "y": "*fp32", "out": "*fp32", "a": "fp32"}


def test_fp_fusion_on_by_default_and_off_on_request():
    fused = tessera.compile(axpy, signature=SIG)
    separate = tessera.compile(axpy, signature=SIG, enable_fp_fusion=False)
    assert "fma.rn.f32" in fused.asm["ptx"]
    assert "fma.rn.f32" not in separate.asm["ptx"]
    assert "mul.rn.f32" in separate.asm["ptx"] or "mul.f32" in separate.asm["ptx"]


@pytest.mark.skipif(nvidia.find_ptxas() is None, reason="ptxas not installed")
def test_maxnreg_reaches_ptxas():
    k = tessera.compile(axpy, signature=SIG, maxnreg=32)
    assert k.asm["cubin"]


def test_unknown_options_are_errors():
    with pytest.raises(TypeError, match="unknown option\\(s\\) fast_math"):
        tessera.compile(axpy, signature=SIG, fast_math=True)


@pytest.mark.parametrize("name, value, message", [
    ("num_warps", 1024, "num_warps=1024 is not valid: it must be a power of two in 1..32"),
    ("num_warps", 3, "num_warps=3 is not valid"),
    ("num_stages", -1, "num_stages=-1 is not valid: it must be in 1..16"),
    ("maxnreg", -5, "maxnreg=-5 is not valid: it must be in 16..255"),
])
def test_out_of_range_options_are_value_errors(name, value, message):
    with pytest.raises(ValueError, match=message):
        tessera.compile(axpy, signature=SIG, **{name: value})
    with pytest.raises(ValueError, match=message):
        tessera.Config({}, **{name: value})
