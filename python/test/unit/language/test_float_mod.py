"""`%` on floats is Python's (and Triton's) floor remainder, with the divisor's sign, not C's fmod:
in the interpreter, in the TTIR the compiler emits, and on the GPU (test/gpu)."""

import math

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

PAIRS = [(-118.375, 119.0), (5.5, -3.0), (5.5, 3.0), (-5.5, -3.0), (7.0, 7.0), (-0.0, 3.0), (1e-3, -2.0)]


@tessera.jit
def fmod_kernel(x, y, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs) % tl.load(y + offs))


def _inputs(device="cpu"):
    n = 8
    xs = [a for a, _ in PAIRS] + [0.0] * (n - len(PAIRS))
    ys = [b for _, b in PAIRS] + [1.0] * (n - len(PAIRS))
    return (torch.tensor(xs, device=device), torch.tensor(ys, device=device), torch.zeros(n, device=device))


def expected():
    return [a % b for a, b in PAIRS]


def test_float_mod_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x, y, out = _inputs()
    fmod_kernel[(1,)](x, y, out, N=8)
    for got, want in zip(out.tolist(), expected()):
        assert math.isclose(got, want, abs_tol=1e-6) and math.copysign(1, got) == math.copysign(1, want) or \
            (got == 0 and want == 0)


def test_float_mod_compiles_to_floor_not_frem():
    k = tessera.compile(fmod_kernel, signature={"x": "*fp32", "y": "*fp32", "out": "*fp32"},
                        constexprs={"N": 8}, target="cuda:90")
    assert "math.floor" in k.asm["ttir"] and "arith.remf" not in k.asm["ttir"]
