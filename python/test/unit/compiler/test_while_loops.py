"""`while` loops whose carried values are scalars, tensors, pointers or a mix compile to a binary
(scalars crashed the layout pass) and run in the interpreter; the GPU form is in test/gpu."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def count_to(out, n):
    i = 0
    while i < n:
        i += 1
    tl.store(out, i)


@tessera.jit
def mixed_carry(out, n, BLOCK: tl.constexpr):
    i = 0
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    p = out
    while i < n:
        acc += 1.0
        i += 1
        p += 1
    tl.store(p + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("kernel, sig, consts", [
    (count_to, {"out": "*i32", "n": "i32"}, {}),
    (mixed_carry, {"out": "*fp32", "n": "i32"}, {"BLOCK": 128}),
])
def test_while_carrying_any_kind_compiles(kernel, sig, consts):
    k = tessera.compile(kernel, signature=sig, constexprs=consts, target="cuda:90")
    assert "scf.while" in k.asm["ttgir"]
    assert ".entry" in k.asm["ptx"]


def test_while_runs_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    torch = pytest.importorskip("torch")
    out = torch.zeros(1, dtype=torch.int32)
    count_to[(1,)](out, 7)
    assert out.item() == 7
    buf = torch.zeros(3 + 128)
    mixed_carry[(1,)](buf, 3, BLOCK=128)
    assert np.all(buf[3:].numpy() == 3.0) and np.all(buf[:3].numpy() == 0.0)
