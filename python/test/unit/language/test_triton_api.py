"""API that ported Triton code uses: tessera.TritonError (the base of CompilationError,
OutOfResources and DeviceError), tl.const annotations, tensor.cast, dtype.fp_mantissa_width /
exponent_bias, and tl.flip (interpreter and compile-only)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


def test_triton_error_is_the_base_of_tessera_errors():
    assert issubclass(tessera.CompilationError, tessera.TritonError)
    assert issubclass(tessera.OutOfResources, tessera.TritonError)
    assert issubclass(tessera.DeviceError, tessera.TritonError)
    assert issubclass(tessera.CudaError, tessera.TritonError)


def test_float_format_properties():
    assert (tl.float32.fp_mantissa_width, tl.float32.exponent_bias) == (23, 127)
    assert (tl.float16.fp_mantissa_width, tl.bfloat16.fp_mantissa_width, tl.float64.fp_mantissa_width) == (10, 7, 52)
    assert (tl.float8e4nv.exponent_bias, tl.float8e5.fp_mantissa_width) == (7, 2)
    with pytest.raises(TypeError, match="not a floating-point type"):
        tl.int32.fp_mantissa_width


@tessera.jit
def flip_rows(x, out, M: tl.constexpr, N: tl.constexpr, DIM: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    offs = rm[:, None] * N + rn[None, :]
    tl.store(out + offs, tl.flip(tl.load(x + offs), DIM))


@tessera.jit
def cast_and_const(x: tl.const, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + offs)
    tl.store(out + offs, v.cast(tl.int32).cast(tl.float32, bitcast=False) + v.cast(tl.int32, bitcast=True).to(tl.float32) * 0)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_flip_in_the_interpreter(monkeypatch, dim):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.arange(32, dtype=torch.float32).reshape(4, 8)
    out = torch.zeros(4, 8)
    flip_rows[(1,)](x, out, M=4, N=8, DIM=dim)
    assert torch.equal(out, torch.flip(x, [dim]))


def test_flip_and_cast_compile():
    k = tessera.compile(flip_rows, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"M": 4, "N": 8, "DIM": 1},
                        target="cuda:90")
    assert "tt.gather" in k.asm["ttir"] and ".entry" in k.asm["ptx"]
    k = tessera.compile(cast_and_const, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"N": 16},
                        target="cuda:90")
    assert "arith.fptosi" in k.asm["ttir"]


def test_cast_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.tensor([1.5, -2.7, 3.0, 0.2] * 4)
    out = torch.zeros(16)
    cast_and_const[(1,)](x, out, N=16)
    assert torch.equal(out, x.to(torch.int32).to(torch.float32))


def test_flip_rejects_a_bad_dim():
    with pytest.raises(tessera.CompilationError, match="flip: dim must be in"):
        tessera.compile(flip_rows, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"M": 4, "N": 8, "DIM": 2},
                        target="cuda:90")
