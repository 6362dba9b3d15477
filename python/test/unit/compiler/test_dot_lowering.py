"""tt.dot on NVIDIA: f16/bf16 dots with f32 accumulators use mma.sync on sm_80+ (every shape the
language allows tiles into 16x8x16); other dots (f32 inputs, sm_75) use the exact FMA path (compile-only;
`dot_tile` is shared with the GPU tests)."""

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def dot_tile(a, b, c, acc0, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # c = acc0 + a @ b for one tile; a is BM x BK, b BK x BN, row-major.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    acc = tl.load(acc0 + rm[:, None] * BN + rn[None, :])
    tl.store(c + rm[:, None] * BN + rn[None, :], tl.dot(x, y, acc))


def ptx_of(dtype, shape, target="cuda:90", num_warps=4):
    BM, BN, BK = shape
    k = tessera.compile(dot_tile, signature={"a": f"*{dtype}", "b": f"*{dtype}", "c": "*fp32", "acc0": "*fp32"},
                        constexprs={"BM": BM, "BN": BN, "BK": BK}, target=target, num_warps=num_warps)
    return k.asm["ptx"]


@pytest.mark.parametrize("dtype, instr", [("fp16", "f16.f16"), ("bf16", "bf16.bf16")])
def test_tensor_cores_for_half_inputs(dtype, instr):
    ptx = ptx_of(dtype, (64, 64, 32), target="cuda:80")
    # 4 warps over 64 rows: each 16 x 64 = 8 n tiles x 2 k tiles.
    assert ptx.count(f"mma.sync.aligned.m16n8k16.row.col.f32.{instr}.f32") == 16
    assert "fma.rn.f32" not in ptx
    # sm_90: one warpgroup, one m64n64 tile, two k16 steps.
    ptx = ptx_of(dtype, (64, 64, 32), target="cuda:90")
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n64k16.f32.{instr}") == 2
    assert "mma.sync" not in ptx and "fma.rn.f32" not in ptx


@pytest.mark.parametrize("dtype, shape, target", [
    ("fp32", (32, 32, 16), "cuda:90"),   # f32 inputs: exact FMA (no tf32)
    ("fp16", (32, 32, 16), "cuda:75"),   # no mma.sync m16n8k16 before sm_80
])
def test_fma_path_otherwise(dtype, shape, target):
    ptx = ptx_of(dtype, shape, target=target)
    assert "mma.sync" not in ptx and "fma.rn.f32" in ptx


@tessera.jit
def dot_variants(a, b, out, sums, K: tl.constexpr, FLAG: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr):
    # Several shapes of accumulation around tl.dot, one per output block:
    #   out[0] = sum over k tiles of a_k @ b_k  (acc += dot in a loop)
    #   out[1] = 2 + the same, accumulated in the other operand order (dot + acc) and
    #            conditionally (FLAG) doubled inside the loop
    #   sums   = row sums of out[0] (a reduction of the loop's result)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.full((BM, BN), 2.0, dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(x, y)
        d = tl.dot(x, y)
        if FLAG:
            d = d * 2
        acc2 = d + acc2
    tl.store(out + rm[:, None] * BN + rn[None, :], acc)
    tl.store(out + BM * BN + rm[:, None] * BN + rn[None, :], acc2)
    tl.store(sums + rm, tl.sum(acc, axis=1))


def expected_variants(a, b, K, BK, flag):
    import torch
    acc = torch.zeros(a.shape[0], b.shape[1])
    acc2 = torch.full_like(acc, 2.0)
    for k in range(0, K, BK):
        d = a[:, k:k + BK].float() @ b[k:k + BK].float()
        acc += d
        acc2 += d * (2 if flag else 1)
    return acc, acc2, acc.sum(1)


@pytest.mark.parametrize("flag", [False, True])
def test_dot_variants_compile_to_tensor_cores(flag):
    k = tessera.compile(dot_variants, signature={"a": "*fp16", "b": "*fp16", "out": "*fp32", "sums": "*fp32"},
                        constexprs={"K": 128, "FLAG": flag, "BM": 64, "BN": 32, "BK": 32})
    # cuda:90 (the default target): wgmma, m64n32 per k16 step
    assert "wgmma.mma_async.sync.aligned.m64n32k16" in k.asm["ptx"]
    # acc += dot(...) became dot(..., acc) with the accumulator carried in the mma layout.
    assert "iter_args" in k.asm["ttgir"] and "#mma" in k.asm["ttgir"]


@pytest.mark.parametrize("flag", [False, True])
def test_dot_variants_in_the_interpreter(flag, monkeypatch):
    import torch
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    a = torch.randn(64, 128).half()
    b = torch.randn(128, 32).half()
    out = torch.zeros(2 * 64 * 32)
    sums = torch.zeros(64)
    dot_variants[(1,)](a, b, out, sums, K=128, FLAG=flag, BM=64, BN=32, BK=32)
    acc, acc2, s = expected_variants(a, b, 128, 32, flag)
    torch.testing.assert_close(out[:2048].view(64, 32), acc, rtol=1e-3, atol=1e-2)
    torch.testing.assert_close(out[2048:].view(64, 32), acc2, rtol=1e-3, atol=1e-2)
    torch.testing.assert_close(sums, s, rtol=1e-3, atol=1e-1)


@tessera.jit
def batched_dot(a, b, c, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk = tl.arange(0, K)
    x = tl.load(a + rb * M * K + rm * K + rk[None, None, :])
    y = tl.load(b + rb * K * N + rk[None, :, None] * N + rn)
    tl.store(c + rb * M * N + rm * N + rn, tl.dot(x, y))


def test_batched_dot_compiles():
    k = tessera.compile(batched_dot, signature={"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                        constexprs={"B": 2, "M": 16, "N": 32, "K": 16})
    assert "fma.rn.f32" in k.asm["ptx"] and k.asm["cubin"]


def test_batched_dot_in_the_interpreter(monkeypatch):
    import torch
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    a = torch.randn(2, 16, 16).half()
    b = torch.randn(2, 16, 32).half()
    c = torch.empty(2, 16, 32)
    batched_dot[(1,)](a, b, c, B=2, M=16, N=32, K=16)
    torch.testing.assert_close(c, torch.bmm(a.float(), b.float()), rtol=1e-3, atol=1e-3)
