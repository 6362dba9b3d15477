"""Software-pipelined matmuls (ttg-pipeline: cp.async rings, ldmatrix operands) against PyTorch,
for several stage counts, tile shapes and K tails (the copies past K are masked off)."""
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from . import gpu_marks  # noqa: E402

pytestmark = gpu_marks()


@tessera.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pid_m = pid // npn
    pid_n = pid % npn
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * sam + offs_k[None, :] * sak)
    b_ptrs = b_ptr + (offs_k[:, None] * sbk + offs_bn[None, :] * sbn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + scm * offs_cm[:, None] + scn * offs_cn[None, :], c,
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("K", [32, 48, 256, 1040])
@pytest.mark.parametrize("tile", [(64, 64, 32, 4), (128, 128, 32, 4), (128, 64, 64, 8)])
def test_pipelined_matmul_matches_torch(stages, K, tile):
    BM, BN, BK, warps = tile
    M, N = 256, 192
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    k = matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                     c.stride(1), BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    ref = (a.float() @ b.float()).half()
    torch.testing.assert_close(c, ref, atol=0.1, rtol=1e-2)
    ptx = k.asm["ptx"]
    if stages >= 2 and K % 16 == 0 and torch.cuda.get_device_capability()[0] >= 8:
        assert "cp.async.cg.shared.global" in ptx and f"cp.async.wait_group {stages - 2};" in ptx


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("K", [1, 7, 33, 200, 1039])
@pytest.mark.parametrize("tile", [(64, 64, 32, 4), (128, 128, 64, 8)])
def test_prefetched_unaligned_operands_match_torch(stages, K, tile):
    # A's rows K elements apart: not 16-byte aligned for these K, so A cannot be a background
    # copy and is prefetched into registers an iteration ahead (masked at the K tail, and past the
    # last iteration). A view whose row stride differs from K (a column slice) too: B then also
    # has unaligned rows.
    BM, BN, BK, warps = tile
    M, N = 200, 136
    for sliced in (False, True):
        a = torch.randn(M, K + 3 if sliced else K, device="cuda", dtype=torch.float16)[:, :K]
        b = torch.randn(K, N + 5 if sliced else N, device="cuda", dtype=torch.float16)[:, :N]
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
        k = matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                         c.stride(1), BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
        torch.cuda.synchronize()
        torch.testing.assert_close(c, (a.float() @ b.float()).half(), atol=0.1, rtol=1e-2)
        if K > 1:
            assert "tensor<%dx%dxf16" % (BM, BK) in k.asm["ttgir"].split("scf.for", 1)[1].split("\n", 1)[0], \
                "A is not carried by the loop"
