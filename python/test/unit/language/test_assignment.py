"""A Python number assigned to a variable is a scalar tensor, as in Triton, in compiled and
interpreted kernels alike: `value = 1; value.dtype` and `acc = 0; acc = acc.to(tl.int64)` work,
and a compile-time constant is written `n: tl.constexpr = 8` (a plain `n = 8` is a run-time value)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


@tessera.jit
def literals(out, N: tl.constexpr):
    value = 1
    x = tl.full([N], value, dtype=value.dtype)
    acc = 0
    acc = acc.to(tl.int64)
    half = 0.5
    tl.static_assert(half.dtype == tl.float32)
    tl.store(out + tl.arange(0, N), x + acc.to(tl.int32) + (half * 2).to(tl.int32))


@tessera.jit
def constant_by_annotation(out):
    n: tl.constexpr = 8
    tl.store(out + tl.arange(0, n), tl.arange(0, n))


@tessera.jit
def constant_by_plain_assignment(out):
    n = 8
    tl.store(out + tl.arange(0, n), tl.arange(0, n))  # ERR


def test_compiled():
    k = tessera.compile(literals, signature={"out": "*i32"}, constexprs={"N": 8}, target="cuda:90")
    assert "tt.store" in k.asm["ttir"]
    tessera.compile(constant_by_annotation, signature={"out": "*i32"}, target="cuda:90")
    with pytest.raises(tessera.CompilationError, match="arange's end must be a compile-time constant"):
        tessera.compile(constant_by_plain_assignment, signature={"out": "*i32"}, target="cuda:90")


def test_interpreted(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    out = torch.zeros(8, dtype=torch.int32)
    literals[(1,)](out, N=8)
    assert out.tolist() == [2] * 8
    constant_by_annotation[(1,)](out)
    assert out.tolist() == list(range(8))
    # The same error as the compiler's, at the same line.
    with pytest.raises(tessera.CompilationError, match="arange's end must be a compile-time constant") as e:
        constant_by_plain_assignment[(1,)](out)
    assert "# ERR" in str(e.value)
