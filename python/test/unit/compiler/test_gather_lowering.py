"""tl.gather lowered for the GPU (compile-only) and its semantics in the interpreter (the GPU
test checks the same on the H200)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia


@tessera.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    src = tl.load(src_ptr + rows * N + tl.arange(0, N)[None, :])
    idx = tl.load(idx_ptr + rows * K + tl.arange(0, K)[None, :])
    tl.store(out_ptr + rows * K + tl.arange(0, K)[None, :], tl.gather(src, idx, 1))


@tessera.jit
def gather_1d(src_ptr, idx_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, N))
    idx = tl.load(idx_ptr + tl.arange(0, K))
    tl.store(out_ptr + tl.arange(0, K), tl.gather(src, idx, 0))


def test_gather_in_the_interpreter(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    M, N, K = 16, 32, 8
    src = torch.randn(M, N)
    idx = torch.randint(0, N, (M, K), dtype=torch.int32)
    out = torch.zeros(M, K)
    gather_rows[(1,)](src, idx, out, M=M, N=N, K=K)
    np.testing.assert_array_equal(out.numpy(), np.take_along_axis(src.numpy(), idx.numpy().astype(np.int64), 1))


@pytest.mark.skipif(not nvidia.find_ptxas(), reason="ptxas (CUDA toolkit) not installed")
def test_gather_compiles_to_a_cubin():
    for fn, sig, consts in [
        (gather_rows, {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32"}, {"M": 16, "N": 32, "K": 8}),
        (gather_1d, {"src_ptr": "*fp16", "idx_ptr": "*i64", "out_ptr": "*fp16"}, {"N": 256, "K": 512}),
    ]:
        k = tessera.compile(fn, signature=sig, constexprs=consts)
        assert "tt.gather" in k.asm["ttgir"]
        assert k.metadata["shared"] > 0 and k.asm["cubin"][:4] == b"\x7fELF"
