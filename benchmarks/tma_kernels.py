"""Kernels of benchmarks/tma_bench.py, written against triton.language (benchmarks/_loader.py loads
them for Tessera too): a copy and a matmul through host tensor descriptors, and the same copy
through pointers."""
import triton
import triton.language as tl


@triton.jit
def desc_copy(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    dst.store([pm * BM, pn * BN], src.load([pm * BM, pn * BN]))


@triton.jit
def desc_copy_row_bands(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    # The same copy with the column block as program_id(0): consecutive programs (the order the
    # GPU starts them in) walk along a band of rows, as a flat copy does; desc_copy's consecutive
    # programs walk down a column strip of 256-byte row pieces 16 KB apart.
    pn = tl.program_id(0)
    pm = tl.program_id(1)
    dst.store([pm * BM, pn * BN], src.load([pm * BM, pn * BN]))


@triton.jit
def ptr_copy(src, dst, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    off = rm[:, None] * stride + rn[None, :]
    tl.store(dst + off, tl.load(src + off, mask=mask), mask=mask)


@triton.jit
def desc_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def device_desc_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the same matmul with descriptors made in the kernel (tensor maps written on the device)
    a_desc = tl.make_tensor_descriptor(a, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a_blk = a_desc.load([pm * BM, k * BK])
        b_blk = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a_blk, b_blk, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def device_desc_copy(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x, [M, N], [N, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(y, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    yd.store([pm * BM, pn * BN], xd.load([pm * BM, pn * BN]))
