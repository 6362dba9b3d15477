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
    ptx = ptx_of(dtype, (64, 64, 32))
    # 4 warps over 64 rows: each 16 x 64 = 8 n tiles x 2 k tiles.
    assert ptx.count(f"mma.sync.aligned.m16n8k16.row.col.f32.{instr}.f32") == 16
    assert "fma.rn.f32" not in ptx


@pytest.mark.parametrize("dtype, shape, target", [
    ("fp32", (32, 32, 16), "cuda:90"),   # f32 inputs: exact FMA (no tf32)
    ("fp16", (32, 32, 16), "cuda:75"),   # no mma.sync m16n8k16 before sm_80
])
def test_fma_path_otherwise(dtype, shape, target):
    ptx = ptx_of(dtype, shape, target=target)
    assert "mma.sync" not in ptx and "fma.rn.f32" in ptx
