"""Kernels of the memory-bound benchmark (benchmarks/memory_bound.py), written once against
triton.language; the benchmark loads this file twice (benchmarks/_loader.py), once as written for
Triton and once with its imports pointed at tessera. Only kernels here: the launch parameters
(block sizes, num_warps) are chosen by the benchmark."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    # z = x + y over n elements, BLOCK per program; the last program is masked.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    # One program per row; the whole row in one block (BLOCK >= n_cols).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # One program per row, the row walked in BLOCK_SIZE chunks: the mean, then the variance
    # (both accumulated in fp32), then y = (x - mean) * rstd * w + b.
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    sums = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        sums += x
    mean = tl.sum(sums, axis=0) / N
    sq = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        sq += d * d
    var = tl.sum(sq, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_fwd_kernel(X, Y, W, stride, N, eps, BLOCK: tl.constexpr):
    # One program per row, the whole row in one block: y = x / sqrt(mean(x^2) + eps) * w.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / N
    rstd = 1 / tl.sqrt(mean_sq + eps)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * rstd * w
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, labels_ptr, loss_ptr, row_stride, V, BLOCK: tl.constexpr):
    # One program per row: loss = logsumexp(row) - row[label], the row walked in BLOCK chunks
    # with an online maximum and rescaled sum (one chunk when BLOCK >= V).
    row = tl.program_id(0)
    base = logits_ptr + row * row_stride
    m = float("-inf")
    s = 0.0
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    label = tl.load(labels_ptr + row)
    target = tl.load(base + label).to(tl.float32)
    tl.store(loss_ptr + row, tl.log(s) + m - target)


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N, stride_im, stride_in, stride_om, stride_on,
                     BM: tl.constexpr, BN: tl.constexpr):
    # out[j, i] = in[i, j] for in of M x N, out of N x M; a BM x BN tile per program (2-D grid).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(in_ptr + rm[:, None] * stride_im + rn[None, :] * stride_in, mask=mask)
    tl.store(out_ptr + rn[None, :] * stride_om + rm[:, None] * stride_on, tile, mask=mask)


@triton.jit
def strided_copy_kernel(in_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    # out[i] = in[i * stride] for n output elements (stride a run-time int).
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)
