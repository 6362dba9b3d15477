"""Hopper warpgroup MMA (wgmma) against PyTorch: on a cc 9.0 GPU, f16/bf16 dots of M tiles of 64+
rows and num_warps a multiple of 4 run on wgmma.mma_async with operands in swizzled shared memory.
Operand orders (row- and column-major A and B: K-major and MN-major descriptors), warp
arrangements (warpgroups along M, along N), instruction widths, odd sizes (masked tails), a dot
outside any loop (operands stored by the threads, a proxy fence), and K loops pipelined or not."""
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from . import gpu_marks  # noqa: E402

pytestmark = gpu_marks()


def is_hopper():
    return torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)


@tessera.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pid_m = pid // npn
    pid_n = pid % npn
    offs_am = pid_m * BM + tl.arange(0, BM)
    offs_bn = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * sam + offs_k[None, :] * sak)
    b_ptrs = b_ptr + (offs_k[:, None] * sbk + offs_bn[None, :] * sbn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BK) & (offs_bn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + scm * offs_am[:, None] + scn * offs_bn[None, :], c,
             mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


@tessera.jit
def single_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b) + 1.0
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


def run_matmul(M, N, K, tile, dtype=torch.float16, a_t=False, b_t=False, stages=3):
    BM, BN, BK, warps = tile
    g = torch.Generator(device="cuda").manual_seed(M * 1000003 + N * 1009 + K)
    a = torch.randn(K, M, device="cuda", dtype=dtype, generator=g).t() if a_t else \
        torch.randn(M, K, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(N, K, device="cuda", dtype=dtype, generator=g).t() if b_t else \
        torch.randn(K, N, device="cuda", dtype=dtype, generator=g)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    k = matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                     c.stride(1), BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert not torch.isnan(c).any()
    assert err < 1e-2, f"relative error {err}"
    return k


@pytest.mark.parametrize("tile", [(64, 64, 32, 4), (128, 128, 64, 8), (128, 256, 64, 8), (64, 256, 64, 8),
                                  (128, 128, 32, 4), (64, 128, 16, 4)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_wgmma_tiles(tile, dtype):
    k = run_matmul(300, 333, 250, tile, dtype)
    if is_hopper():
        assert "wgmma.mma_async" in k.asm["ptx"]


@pytest.mark.parametrize("a_t,b_t", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("stages", [1, 3])
def test_wgmma_operand_orders(a_t, b_t, stages):
    # Column-major operands: the buffers keep the loads' order, so the descriptors are MN-major for
    # A and K-major for B (wgmma's transpose bits).
    k = run_matmul(192, 128, 160, (64, 64, 32, 4), torch.float16, a_t, b_t, stages)
    if is_hopper():
        assert "wgmma.mma_async" in k.asm["ptx"]


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (7, 300, 33), (65, 8, 16), (129, 200, 300), (300, 300, 17),
                                   (64, 1, 64), (2, 257, 129)])
def test_wgmma_odd_sizes(M, N, K):
    run_matmul(M, N, K, (64, 64, 32, 4))


def test_wgmma_dot_outside_a_loop():
    a = torch.randn(64, 32, device="cuda", dtype=torch.float16)
    b = torch.randn(32, 128, device="cuda", dtype=torch.float16)
    c = torch.empty(64, 128, device="cuda", dtype=torch.float32)
    k = single_dot[(1,)](a, b, c, BM=64, BN=128, BK=32, num_warps=4)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a.float() @ b.float() + 1.0, atol=1e-2, rtol=1e-2)
    if is_hopper():
        ptx = k.asm["ptx"]
        assert "wgmma.mma_async" in ptx and "fence.proxy.async" in ptx


def triton_cdiv(a, b):
    return (a + b - 1) // b


@tessera.jit
def attention(Q, K, V, O, qk_scale, N_CTX, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # Two dots per iteration: Q from shared memory (stored once, before the loop), K^T through a
    # transposed view of its buffer, the probabilities P from registers as the second dot's A.
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, D)
    q = tl.load(Q + rows[:, None] * D + cols[None, :], mask=rows[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros((BM,), tl.float32) - float("inf")
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for n0 in range(0, N_CTX, BN):
        keys = n0 + tl.arange(0, BN)
        k = tl.load(K + keys[:, None] * D + cols[None, :], mask=keys[:, None] < N_CTX, other=0.0)
        v = tl.load(V + keys[:, None] * D + cols[None, :], mask=keys[:, None] < N_CTX, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(keys[None, :] < N_CTX, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(O + rows[:, None] * D + cols[None, :], (acc / l_i[:, None]).to(tl.float16),
             mask=rows[:, None] < N_CTX)


@pytest.mark.parametrize("N,D,BM,BN,warps", [(256, 64, 128, 64, 8), (200, 64, 64, 64, 4), (384, 128, 128, 64, 8),
                                             (130, 32, 64, 32, 4)])
def test_wgmma_attention(N, D, BM, BN, warps):
    g = torch.Generator(device="cuda").manual_seed(N * D)
    q, k, v = (torch.randn(N, D, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    o = torch.full_like(q, float("nan"))
    kern = attention[(triton_cdiv(N, BM),)](q, k, v, o, 1.4426950408889634 / D ** 0.5, N, D=D, BM=BM, BN=BN,
                                            num_warps=warps, num_stages=3)
    torch.cuda.synchronize()
    ref = torch.softmax((q.float() @ k.float().t()) / D ** 0.5, dim=-1) @ v.float()
    torch.testing.assert_close(o.float(), ref, atol=2e-2, rtol=2e-2)
    if is_hopper():
        ptx = kern.asm["ptx"]
        assert ptx.count("wgmma.mma_async") > 0
        # P never goes through shared memory: the loop body has no st.shared.
        body = ptx.split("$L__BB0_2:")[1].split("$L__BB0_3:")[0] if "$L__BB0_2:" in ptx else ""
        assert "st.shared" not in body


def run_views(M, N, K, dtype, tile=(64, 64, 32, 4), stages=3):
    """Strided views: A every other column of a wider matrix, B every other row of a taller one,
    C a column slice of a wider output."""
    BM, BN, BK, warps = tile
    g = torch.Generator(device="cuda").manual_seed(7 * M + 11 * N + K)
    a = torch.randn(M, 2 * K, device="cuda", dtype=dtype, generator=g)[:, ::2]
    b = torch.randn(2 * K, N, device="cuda", dtype=dtype, generator=g)[::2]
    big = torch.full((M, N + 40), float("nan"), device="cuda", dtype=dtype)
    c = big[:, 8:8 + N]
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"relative error {err}"
    assert torch.isnan(big[:, :8]).all() and torch.isnan(big[:, 8 + N:]).all(), "wrote outside the view"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("M,N,K", [(96, 80, 64), (257, 130, 96)])
def test_wgmma_strided_views(M, N, K, dtype):
    run_views(M, N, K, dtype)


def test_wgmma_sizes_1_to_300():
    # A sample of every size from 1 to 300 along each of M, N and K (the others fixed and odd).
    for s in list(range(1, 20)) + [31, 33, 63, 64, 65, 127, 128, 129, 191, 200, 255, 256, 257, 299, 300]:
        for M, N, K in ((s, 77, 45), (61, s, 45), (61, 77, s)):
            run_matmul(M, N, K, (64, 64, 32, 4), torch.float16, stages=3)


@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="torch without fp8")
@pytest.mark.parametrize("ta,tb", [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2"),
                                   ("float8_e4m3fn", "float8_e5m2")])
@pytest.mark.parametrize("b_k_major", [False, True])
def test_wgmma_fp8(ta, tb, b_k_major):
    # fp8 runs on wgmma ...k32.e4m3/e5m2 with both operands stored K-major (B transposed into its
    # buffer when it is loaded N-major).
    M, N, K = 256, 192, 320
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(M, K, device="cuda", generator=g).to(getattr(torch, ta))
    bt = torch.randn(N, K, device="cuda", generator=g).to(getattr(torch, tb))
    b = bt.t() if b_k_major else bt.t().contiguous()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k = matmul[(triton_cdiv(M, 128) * triton_cdiv(N, 64),)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BM=128, BN=64, BK=64, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"relative error {err}"
    if is_hopper():
        ptx = k.asm["ptx"]
        name = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
        assert f"wgmma.mma_async.sync.aligned.m64n64k32.f32.{name[ta]}.{name[tb]}" in ptx


@pytest.mark.parametrize("b_k_major", [False, True])
def test_wgmma_tf32(b_k_major):
    # f32 tiles with the default input_precision ("tf32") run on wgmma ...k8.tf32 on sm_90:
    # tf32 rounding, so about 1e-3 relative error against float64.
    M, N, K = 192, 160, 200
    g = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn(M, K, device="cuda", generator=g)
    bt = torch.randn(N, K, device="cuda", generator=g)
    b = bt.t() if b_k_major else bt.t().contiguous()
    c = torch.full((M, N), float("nan"), device="cuda")
    k = matmul[(triton_cdiv(M, 64) * triton_cdiv(N, 64),)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BM=64, BN=64, BK=32, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 5e-3, f"relative error {err}"
    if is_hopper():
        assert "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32" in k.asm["ptx"]
