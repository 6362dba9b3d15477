"""Copy variants for tools/device/probes/copy_probe.py (written against triton.language); the
descriptor copies in both program orders are benchmarks/tma_kernels.py's."""
import triton
import triton.language as tl


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
