"""tl.histogram lowered for the GPU (compile-only) and its counting rules in the interpreter
(the GPU test checks the same rules on the H200)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia


@tessera.jit
def hist(x_ptr, o_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


def expected(x, n, bins):
    v = x[:n]
    v = v[(v >= 0) & (v < bins)]
    return np.bincount(v, minlength=bins)[:bins].astype(np.int32)


@pytest.mark.parametrize("N,BINS", [(1024, 64), (256, 256), (32, 8)])
def test_histogram_counts_in_the_interpreter(monkeypatch, N, BINS):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.randint(-5, BINS + 5, (N,), dtype=torch.int32)  # some values out of range
    o = torch.zeros(BINS, dtype=torch.int32)
    hist[(1,)](x, o, N - 3, N=N, BINS=BINS)
    np.testing.assert_array_equal(o.numpy(), expected(x.numpy(), N - 3, BINS))


@pytest.mark.skipif(not nvidia.find_ptxas(), reason="ptxas (CUDA toolkit) not installed")
def test_histogram_compiles_to_shared_atomics():
    k = tessera.compile(hist, signature={"x_ptr": "*i32", "o_ptr": "*i32", "n": "i32"},
                        constexprs={"N": 1024, "BINS": 64})
    assert "tt.histogram" in k.asm["ttgir"]
    assert "atom.shared.add.u32" in k.asm["ptx"] or "red.shared.add.u32" in k.asm["ptx"]
    assert k.metadata["shared"] >= 64 * 4
    assert k.asm["cubin"][:4] == b"\x7fELF"
