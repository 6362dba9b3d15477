"""Stores issued by one thread per element (nothing reads them back) and stores read back by each
thread, on the GPU against PyTorch (the PTX checks are test/unit/compiler/test_store_owners.py)."""
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from . import gpu_marks  # noqa: E402
from ..unit.compiler.test_store_owners import (  # noqa: E402
    loop_store_read, loop_then_overwrite, overwrite, store_then_loop_read)

pytestmark = gpu_marks()


@tessera.jit
def row_argmax(x, out, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + row * N + offs, mask=offs < N, other=-float("inf"))
    tl.store(out + row, tl.argmax(v, axis=0))


@tessera.jit
def read_back(x, tmp, out, N, BLOCK: tl.constexpr):
    # A scalar stored by thread 0 then loaded again by every thread (after the barrier that follows
    # the store), then a tile of 16 elements over all the warps stored once per element.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x + pid * N + offs, mask=offs < N, other=0.0), axis=0)
    tl.store(tmp + pid, s)
    t = tl.load(tmp + pid)
    small = tl.arange(0, 16)
    tl.store(out + pid * 16 + small, t + small.to(tl.float32))


@pytest.mark.parametrize("warps", [1, 4, 8])
def test_scalar_read_back_in_a_loop(warps):
    M, n = 512, 3
    tmp = torch.full((M,), -1.0, device="cuda")
    out = torch.zeros(M, 128, device="cuda")
    store_then_loop_read[(M,)](tmp, out, n, num_warps=warps)
    torch.cuda.synchronize()
    want = (torch.arange(M, device="cuda", dtype=torch.float32) * n)[:, None].expand(M, 128)
    assert torch.equal(out, want)


@pytest.mark.parametrize("warps", [1, 4, 8])
def test_scalar_and_replicated_stores(warps):
    M, N = 300, 700
    x = torch.randn(M, N, device="cuda")
    o = torch.full((M,), -1, device="cuda", dtype=torch.int32)
    row_argmax[(M,)](x, o, N, BLOCK=1024, num_warps=warps)
    tmp = torch.zeros(M, device="cuda")
    out = torch.zeros(M, 16, device="cuda")
    read_back[(M,)](x, tmp, out, N, BLOCK=1024, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(o, x.argmax(dim=1).to(torch.int32))
    s = x.sum(dim=1)
    torch.testing.assert_close(tmp, s, atol=1e-3, rtol=1e-4)
    torch.testing.assert_close(out, tmp[:, None] + torch.arange(16, device="cuda", dtype=torch.float32))


@tessera.jit
def tile_read_back(x, tmp, out):
    # 16 elements over all the warps (copies in other lanes and warps): stored by their owners,
    # then read back by every copy holder, shifted by one (another thread's element).
    pid = tl.program_id(0)
    offs = tl.arange(0, 16)
    tl.store(tmp + pid * 16 + offs, tl.load(x + pid * 16 + offs) * 2.0)
    t = tl.load(tmp + pid * 16 + (offs + 1) % 16)
    tl.store(out + pid * 16 + offs, t)


@pytest.mark.parametrize("warps", [1, 4, 8])
def test_stores_read_back_once_and_in_loops(warps):
    M = 256
    x = torch.randn(M, 16, device="cuda")
    tmp = torch.zeros(M, 16, device="cuda")
    out = torch.zeros(M, 16, device="cuda")
    tile_read_back[(M,)](x, tmp, out, num_warps=warps)
    n = 5
    ltmp = torch.full((M,), -1.0, device="cuda")
    lout = torch.zeros(M, 128, device="cuda")
    loop_store_read[(M,)](ltmp, lout, n, num_warps=warps)
    ox, oy, oo = torch.randn(16, device="cuda"), torch.randn(16, device="cuda"), torch.zeros(16, device="cuda")
    overwrite[(1,)](ox, oy, oo, num_warps=warps)
    lo = torch.ones(16, device="cuda")
    loop_then_overwrite[(1,)](ox, lo, 3, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(tmp, x * 2.0)
    assert torch.equal(out, torch.roll(x * 2.0, -1, dims=1))
    assert torch.equal(lout, torch.full((M, 128), float(sum(range(n))), device="cuda"))
    assert torch.equal(oo, oy)
    assert torch.equal(lo, ox)
