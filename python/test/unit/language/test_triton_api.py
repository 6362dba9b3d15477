"""API that ported Triton code uses: tessera.TritonError (the base of CompilationError,
OutOfResources and DeviceError), tl.const annotations, tensor.cast, dtype.fp_mantissa_width /
exponent_bias, and tl.flip (interpreter and compile-only)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from .helpers import interpret, line_of, ttir_for  # noqa: E402


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


@tessera.jit
def sort_rows(x, out, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out + offs, tl.sort(tl.load(x + offs), descending=DESC))


@tessera.jit
def sort_method_1d(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs).sort(dim=0))


@pytest.mark.parametrize("shape", [(4, 16), (1, 2), (2, 64), (1, 1)])
@pytest.mark.parametrize("desc", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.int16])
def test_sort_interpreted(shape, desc, dtype):
    g = torch.Generator().manual_seed(shape[1] + desc)
    x = (torch.randn(shape, generator=g) * 100).to(dtype)
    if dtype.is_floating_point:
        x[0, 0] = float("inf")
    out = torch.empty_like(x)
    interpret(sort_rows, (1,), x, out, M=shape[0], N=shape[1], DESC=desc)
    assert torch.equal(out, torch.sort(x, dim=-1, descending=desc).values)


def test_sort_compiles_and_method():
    k = tessera.compile(sort_rows, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"M": 4, "N": 16, "DESC": True},
                        target="cuda:90", stages="ttir")
    assert "tt.trans" in k.asm["ttir"] or "tt.split" in k.asm["ttir"]
    x = torch.tensor([5, -1, 3, 0, 9, 2, 2, -7], dtype=torch.int32)
    out = torch.empty_like(x)
    interpret(sort_method_1d, (1,), x, out, N=8)
    assert out.tolist() == sorted(x.tolist())


@tessera.jit
def sort_bad(x, N: tl.constexpr, DIM: tl.constexpr):
    v = tl.load(x + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(x, tl.sum(tl.sort(v, dim=DIM)))  # ERR


def test_sort_rejects_other_dims():
    with pytest.raises(tessera.CompilationError, match="only the last dimension can be sorted") as e:
        tessera.compile(sort_bad, signature={"x": "*fp32"}, constexprs={"N": 4, "DIM": 0}, target="cuda:90",
                        stages="ttir")
    assert e.value.lineno == line_of(sort_bad, "# ERR")


@tessera.jit
def split_pair(x, out):
    a, b = tl.split(tl.load(x + tl.arange(0, 2)))
    tl.static_assert(a.shape == [] and b.shape == [])
    tl.store(out, a * 10 + b)


def test_split_to_scalars():
    assert "tt.split" in ttir_for(split_pair, torch.zeros(2, dtype=torch.int32), torch.zeros(1, dtype=torch.int32))
    x, out = torch.tensor([3, 4], dtype=torch.int32), torch.zeros(1, dtype=torch.int32)
    interpret(split_pair, (1,), x, out)
    assert out.tolist() == [34]
