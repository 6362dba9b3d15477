"""tl.join / tl.split / tl.reshape / tl.cat lowered for the GPU (compile-only), and the
element order they produce, checked in the interpreter (the GPU test checks the same order)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia


@tessera.jit
def views(x_ptr, o_ptr, B: tl.constexpr):
    offs = tl.arange(0, B)
    x = tl.load(x_ptr + offs)
    y = tl.load(x_ptr + B + offs)
    r = tl.reshape(tl.join(x, y), (2 * B,))           # x0 y0 x1 y1 ...
    tl.store(o_ptr + tl.arange(0, 2 * B), r)
    a, b = tl.split(tl.reshape(r * 2, (B, 2)))        # 2x, 2y
    tl.store(o_ptr + 2 * B + offs, a - b)
    tl.store(o_ptr + 3 * B + tl.arange(0, 2 * B), tl.cat(x, y, can_reorder=True))
    m = tl.reshape(tl.arange(0, B), (B // 8, 8))      # 2-D reshape, transposed, flattened
    tl.store(o_ptr + 5 * B + offs, tl.reshape(tl.trans(m), (B,)).to(tl.float32))


def expected(x, B):
    x0, y0 = x[:B], x[B:2 * B]
    out = np.empty(6 * B, np.float32)
    out[:2 * B] = np.stack([x0, y0], 1).reshape(-1)
    out[2 * B:3 * B] = 2 * x0 - 2 * y0
    out[3 * B:5 * B] = np.concatenate([x0, y0])
    out[5 * B:] = np.arange(B).reshape(B // 8, 8).T.reshape(-1)
    return out


def test_views_in_the_interpreter(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    B = 64
    x = torch.randn(2 * B)
    o = torch.zeros(6 * B)
    views[(1,)](x, o, B=B)
    np.testing.assert_array_equal(o.numpy(), expected(x.numpy(), B))


@pytest.mark.skipif(not nvidia.find_ptxas(), reason="ptxas (CUDA toolkit) not installed")
def test_views_compile_to_a_cubin():
    k = tessera.compile(views, signature={"x_ptr": "*fp32", "o_ptr": "*fp32"}, constexprs={"B": 128})
    for op in ("tt.join", "tt.split", "tt.reshape", "tt.cat"):
        assert op in k.asm["ttgir"], op
    assert "bar.sync" in k.asm["ptx"] and k.metadata["shared"] > 0
    assert k.asm["cubin"][:4] == b"\x7fELF"


@tessera.jit
def flatten_rows(x, out, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    v = tl.load(x + r * C + c)
    tl.store(out + tl.arange(0, R * C), tl.reshape(v, (R * C,)))


def test_reshape_that_keeps_elements_in_their_threads_needs_no_shared_memory():
    k = tessera.compile(flatten_rows, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"R": 16, "C": 64},
                        num_warps=4)
    assert k.metadata["shared"] == 0
    assert "bar.sync" not in k.asm["ptx"] and "barrier.sync" not in k.asm["ptx"]
