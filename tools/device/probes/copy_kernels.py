"""Copy variants for tools/device/probes/copy_probe.py (written against triton.language)."""
import triton
import triton.language as tl


@triton.jit
def desc_copy_cols_first(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    # Program ids along the columns fastest: consecutive programs walk a row band.
    pn = tl.program_id(0)
    pm = tl.program_id(1)
    dst.store([pm * BM, pn * BN], src.load([pm * BM, pn * BN]))


@triton.jit
def ptr_copy_hints(src, dst, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    off = rm[:, None] * stride + rn[None, :]
    v = tl.load(src + off, mask=mask, eviction_policy="evict_first")
    tl.store(dst + off, v, mask=mask, cache_modifier=".cs")


@triton.jit
def flat_copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)
