"""Kernels of the launch and first-call benchmarks, written against triton.language; the
benchmarks load this file twice, once with its imports pointed at tessera."""
import triton
import triton.language as tl


@triton.jit
def empty4(x, y, out, n):
    # Four run-time arguments and nothing done at run time (n is never negative).
    if n < 0:
        tl.store(out, tl.load(x) + tl.load(y))


@triton.jit
def add4(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@triton.jit
def matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        am = (rm[:, None] < M) & (k + rk[None, :] < K)
        bm = (k + rk[:, None] < K) & (rn[None, :] < N)
        x = tl.load(a + rm[:, None] * sam + (k + rk[None, :]) * sak, mask=am, other=0.0)
        y = tl.load(b + (k + rk[:, None]) * sbk + rn[None, :] * sbn, mask=bm, other=0.0)
        acc += tl.dot(x, y)
    cm = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16), mask=cm)
