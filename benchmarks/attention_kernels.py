"""Attention forward kernel for benchmarks/attention.py, written against triton.language (_loader
rewrites the imports for Tessera): non-causal, one (query block, batch x head) per program, rows of
Q, K, V and O contiguous with `stride_m` between rows and `stride_h` between heads; the online
softmax in base 2."""
import triton
import triton.language as tl


@triton.jit
def attention_fwd(Q, K, V, O, qk_scale, N_CTX, stride_h, stride_m,
                  D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * stride_h
    rows = start_m * BM + tl.arange(0, BM)
    cols = tl.arange(0, D)
    q = tl.load(Q + head + rows[:, None] * stride_m + cols[None, :], mask=rows[:, None] < N_CTX, other=0.0)
    row_max = tl.zeros((BM,), tl.float32) - float("inf")
    row_sum = tl.zeros((BM,), tl.float32)
    out = tl.zeros((BM, D), tl.float32)
    for n0 in range(0, N_CTX, BN):
        keys = n0 + tl.arange(0, BN)
        inside = keys[:, None] < N_CTX
        k = tl.load(K + head + keys[:, None] * stride_m + cols[None, :], mask=inside, other=0.0)
        v = tl.load(V + head + keys[:, None] * stride_m + cols[None, :], mask=inside, other=0.0)
        scores = tl.dot(q, tl.trans(k)) * qk_scale
        scores = tl.where(keys[None, :] < N_CTX, scores, -float("inf"))
        new_max = tl.maximum(row_max, tl.max(scores, 1))
        rescale = tl.exp2(row_max - new_max)
        p = tl.exp2(scores - new_max[:, None])
        row_sum = row_sum * rescale + tl.sum(p, 1)
        out = out * rescale[:, None] + tl.dot(p.to(v.dtype), v)
        row_max = new_max
    out = out / row_sum[:, None]
    tl.store(O + head + rows[:, None] * stride_m + cols[None, :], out.to(O.dtype.element_ty),
             mask=rows[:, None] < N_CTX)
