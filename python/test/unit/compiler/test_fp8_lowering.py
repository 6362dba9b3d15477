"""fp8 conversions lowered for the GPU (compile-only: runs without a GPU, needs ptxas for the cubin)."""

import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia
from tessera.compiler import compiler


@tessera.jit
def to_fp8(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m).to(DST), mask=m)


needs_ptxas = pytest.mark.skipif(not nvidia.find_ptxas(), reason="ptxas (CUDA toolkit) not installed")


@needs_ptxas
@pytest.mark.parametrize("src,dst,ptx", [
    ("fp32", tl.float8e4nv, "cvt.rn.satfinite.e4m3x2.f32"),
    ("fp16", tl.float8e5, "cvt.rn.satfinite.e5m2x2.f16x2"),
    ("bf16", tl.float8e4nv, "cvt.rn.satfinite.e4m3x2.f32"),
])
def test_downcast_to_fp8_compiles_to_cvt(src, dst, ptx):
    k = tessera.compile(to_fp8, signature={"x_ptr": f"*{src}", "y_ptr": f"*{dst.name}", "n": "i32"},
                        constexprs={"DST": dst, "BLOCK": 256}, target="cuda:90")
    assert ptx in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


@needs_ptxas
@pytest.mark.parametrize("src,ptx", [("fp8e4nv", "cvt.rn.f16x2.e4m3x2"), ("fp8e5", "cvt.rn.f16x2.e5m2x2")])
@pytest.mark.parametrize("dst", [tl.float32, tl.float16, tl.bfloat16])
def test_upcast_from_fp8_compiles_to_cvt(src, ptx, dst):
    k = tessera.compile(to_fp8, signature={"x_ptr": f"*{src}", "y_ptr": f"*{dst.name}", "n": "i32"},
                        constexprs={"DST": dst, "BLOCK": 256}, target="cuda:90")
    assert ptx in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_fp8_before_sm89_is_a_clear_error():
    with pytest.raises(tessera.CompilationError) as e:
        tessera.compile(to_fp8, signature={"x_ptr": "*fp32", "y_ptr": "*fp8e4nv", "n": "i32"},
                        constexprs={"DST": tl.float8e4nv, "BLOCK": 256}, target="cuda:80")
    assert "not supported on this target" in str(e.value) and "sm_89" in str(e.value)
    assert e.value.lineno == to_fp8.fn.__code__.co_firstlineno + 4  # the .to(DST) line
    assert ".to(DST)" in str(e.value)


@tessera.jit
def fp8_dot(a_ptr, b_ptr, c_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * 16 + offs[None, :])
    tl.store(c_ptr + offs[:, None] * 16 + offs[None, :], tl.dot(a, b))


def test_fp8_dots_widen_exactly_on_sm89_and_newer():
    for a, b in (("fp8e5", "fp8e5"), ("fp8e4nv", "fp8e5"), ("fp8e4nv", "fp8e4nv")):
        k = tessera.compile(fp8_dot, signature={"a_ptr": f"*{a}", "b_ptr": f"*{b}", "c_ptr": "*fp32"})
        assert "cvt.rn.f16x2.e" in k.asm["ptx"], (a, b)


def test_a_feature_the_target_lacks_is_a_compilation_error_at_the_line():
    with pytest.raises(tessera.CompilationError) as e:
        tessera.compile(fp8_dot, signature={"a_ptr": "*fp8e5", "b_ptr": "*fp8e5", "c_ptr": "*fp32"},
                        target="cuda:80")
    assert "fp8 dots are not supported on this target" in str(e.value) and "sm_89" in str(e.value)
    assert "tl.dot(a, b)" in str(e.value)


def test_fp8_dots_run_on_tensor_cores_as_f16():
    # From sm_89 an fp8 dot is widened exactly to f16 and runs on mma.sync, not on FMA units
    # (which unroll it into thousands of scalar FMAs per thread).
    k = tessera.compile(fp8_dot, signature={"a_ptr": "*fp8e5", "b_ptr": "*fp8e4nv", "c_ptr": "*fp32"},
                        target="cuda:90")
    assert "tt.fp_to_fp" in k.asm["ttgir"] and "nvidia_mma" in k.asm["ttgir"]
    assert "mma.sync.aligned.m16n8k16" in k.asm["ptx"]
