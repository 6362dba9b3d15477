"""Integer semantics Triton code relies on: `>>` is arithmetic or logical by the left operand's own
type (int8 >> uint32 keeps the sign), and `/` between signed and unsigned integers is an error like
`//` and `%` (compile-only and interpreter)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


@tessera.jit
def shift(x, s, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, (tl.load(x + offs) >> tl.load(s + offs)).to(tl.int32))


def test_int8_shifted_by_uint32_is_arithmetic(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.tensor([-128, -7, -1, 64, 5, -2, 3, -100], dtype=torch.int8)
    s = torch.tensor([1, 1, 3, 2, 1, 1, 0, 2], dtype=torch.int32)
    out = torch.zeros(8, dtype=torch.int32)
    us = s.numpy().astype(np.uint32)
    shift[(1,)](x, us, out, N=8)
    assert out.tolist() == [int(v) >> int(k) for v, k in zip(x.tolist(), s.tolist())]


def test_the_compiled_shift_is_arithmetic():
    k = tessera.compile(shift, signature={"x": "*i8", "s": "*u32", "out": "*i32"}, constexprs={"N": 8},
                        target="cuda:90")
    assert "arith.shrsi" in k.asm["ttir"] and "arith.shrui" not in k.asm["ttir"]


@tessera.jit
def divide(x, y, out):
    tl.store(out, tl.load(x) / tl.load(y))


def test_true_division_of_mixed_signedness_is_an_error():
    with pytest.raises(tessera.CompilationError, match="different signedness"):
        tessera.compile(divide, signature={"x": "*i32", "y": "*u32", "out": "*fp32"}, target="cuda:90")
    k = tessera.compile(divide, signature={"x": "*i32", "y": "*i16", "out": "*fp32"}, target="cuda:90")
    assert "arith.divf" in k.asm["ttir"]
