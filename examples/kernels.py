"""Example kernels for the main job: each with inputs, a PyTorch reference and the bytes/flops it moves."""

import tessera
import tessera.language as tl


@tessera.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@tessera.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=offs < n_cols)


@tessera.jit
def layernorm_kernel(X, Y, W, B, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * stride + cols, (xc * rstd * w + b).to(Y.dtype.element_ty), mask=mask)


@tessera.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _add(torch, dev, n=1 << 16):
    x, y = torch.rand(n, device=dev), torch.rand(n, device=dev)
    z = torch.empty_like(x)
    return dict(launch=lambda: add_kernel[(tessera.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024),
                out=lambda: z, ref=lambda: x + y, bytes=3 * n * 4, tol=1e-6)


def _softmax(torch, dev, M=256, N=1000):
    x = torch.randn(M, N, device=dev)
    y = torch.empty_like(x)
    return dict(launch=lambda: softmax_kernel[(M,)](y, x, x.stride(0), N, BLOCK=tessera.next_power_of_2(N)),
                out=lambda: y, ref=lambda: torch.softmax(x, 1), bytes=2 * M * N * 4, tol=1e-5)


def _layernorm(torch, dev, M=128, N=768):
    x = torch.randn(M, N, device=dev, dtype=torch.float16)
    w = torch.rand(N, device=dev, dtype=torch.float16)
    b = torch.rand(N, device=dev, dtype=torch.float16)
    y = torch.empty_like(x)
    ref = lambda: torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5).half()  # noqa
    return dict(launch=lambda: layernorm_kernel[(M,)](x, y, w, b, x.stride(0), N, 1e-5,
                                                      BLOCK=tessera.next_power_of_2(N)),
                out=lambda: y, ref=ref, bytes=2 * M * N * 2, tol=1e-2)


def _matmul(torch, dev, M=128, N=96, K=80):
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    BM, BN, BK = 32, 32, 32
    grid = (tessera.cdiv(M, BM), tessera.cdiv(N, BN))
    return dict(launch=lambda: matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                   b.stride(1), c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK),
                out=lambda: c, ref=lambda: (a.float() @ b.float()).half(), flops=2 * M * N * K, tol=5e-2)


EXAMPLES = {"vector add": _add, "softmax": _softmax, "layer norm": _layernorm, "matmul": _matmul}
