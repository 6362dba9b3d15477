"""Kernels versioned by ttg-version-nonnegative on the GPU: the grouped matmul of Triton's tutorial
(the version for pid_n >= 0 runs, with B pipelined) and a wrapped copy whose start is negative
(the original version runs) or not, against PyTorch."""
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402

from . import gpu_marks  # noqa: E402
from ..unit.compiler.test_version_nonnegative import calls_wrapped, grouped_matmul, wrapped_copy  # noqa: E402

pytestmark = gpu_marks()


@pytest.mark.parametrize("M,N,K", [(384, 320, 200), (97, 75, 53), (1024, 512, 256)])
def test_grouped_matmul(M, N, K):
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16, generator=g)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    BM, BN, BK = 64, 64, 32
    grid = (tessera.cdiv(M, BM) * tessera.cdiv(N, BN),)
    grouped_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                         c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK, GM=4)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=5e-2, rtol=1e-2)


@pytest.mark.parametrize("start", [-100000, -4096, -3, 0, 4, 12345])
def test_wrapped_copy(start):
    n, block, grid = 4096, 1024, 8
    x = torch.arange(2 * n, device="cuda", dtype=torch.float32)
    y = torch.empty(block * grid, device="cuda", dtype=torch.float32)
    wrapped_copy[(grid,)](x, y, start, n, BLOCK=block)
    idx = torch.fmod(start + torch.arange(block * grid, device="cuda"), n)
    assert torch.equal(y, x[n + idx])


def test_noinline_callee_versioned_on_its_argument():
    # Program 0 passes a negative base (the callee's original version), the others bases >= 0.
    n, block, grid = 4096, 1024, 4
    x = torch.arange(2 * n, device="cuda", dtype=torch.float32)
    y = torch.full((n + block * grid,), -1.0, device="cuda")
    calls_wrapped[(grid,)](x, y, n, BLOCK=block)
    for p in range(grid):
        start = (p - 1) * block
        idx = torch.fmod(start + torch.arange(block, device="cuda"), n)
        assert torch.equal(y[start + n: start + n + block], x[n + idx])
