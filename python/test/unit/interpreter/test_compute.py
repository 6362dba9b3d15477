"""Reductions, scans, dot, control flow, calls, debugging ops."""

import numpy as np
import pytest
import torch

import tessera.language as tl

from ._util import jit, line_of, op_add, op_maximum

rng = np.random.default_rng(1)


@jit
def reduce2d_kernel(X, Out, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + r)
    y = OP(x, AXIS)
    n: tl.constexpr = M if AXIS == 1 else N
    tl.store(Out + tl.arange(0, n), y)


def _reduce(op, x, axis, out_dtype):
    M, N = x.shape
    out = np.zeros(M if axis == 1 else N, out_dtype)
    reduce2d_kernel[(1,)](np.ascontiguousarray(x), out, M=M, N=N, AXIS=axis, OP=op)
    return out


@jit
def reduce_add(v, axis: tl.constexpr):
    return tl.reduce(v, axis, op_add)


@jit
def reduce_max(v, axis: tl.constexpr):
    return tl.reduce(v, axis, op_maximum)


@jit
def argmax_fn(v1, i1, v2, i2):
    pick = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(pick, v1, v2), tl.where(pick, i1, i2)


@jit
def argmax_by_tuple_reduce(v, axis: tl.constexpr):
    idx = tl.broadcast_to(tl.arange(0, 16)[None, :], (8, 16))
    _, i = tl.reduce((v, idx), axis, argmax_fn)
    return i


@jit
def max_index(v, axis: tl.constexpr):
    return tl.max(v, axis, return_indices=True)[1]


def test_builtin_reductions():
    x = rng.standard_normal((8, 16)).astype(np.float32)
    for axis in (0, 1):
        np.testing.assert_allclose(_reduce(tl.sum, x, axis, np.float32), x.sum(axis), rtol=1e-5)
        np.testing.assert_array_equal(_reduce(tl.max, x, axis, np.float32), x.max(axis))
        np.testing.assert_array_equal(_reduce(tl.min, x, axis, np.float32), x.min(axis))
    i = rng.integers(-2**31, 2**31, (8, 16)).astype(np.int32)
    np.testing.assert_array_equal(_reduce(tl.sum, i, 1, np.int32), i.sum(1, dtype=np.int32))
    np.testing.assert_array_equal(_reduce(tl.xor_sum, i, 0, np.int32),
                                  np.bitwise_xor.reduce(i, 0))
    u = i.view(np.uint32)
    np.testing.assert_array_equal(_reduce(tl.max, u, 1, np.uint32), u.max(1))
    i8 = rng.integers(-128, 128, (8, 16)).astype(np.int8)
    np.testing.assert_array_equal(_reduce(tl.sum, i8, 1, np.int32), i8.astype(np.int32).sum(1))


def test_custom_combine_reduce_matches_builtin():
    x = rng.standard_normal((8, 16)).astype(np.float32)
    for axis in (0, 1):
        got = _reduce(reduce_add, x, axis, np.float32)
        np.testing.assert_allclose(got, _reduce(tl.sum, x, axis, np.float32), rtol=1e-5)
        got = _reduce(reduce_max, x, axis, np.float32)
        np.testing.assert_array_equal(got, x.max(axis))
    y = rng.standard_normal((4, 16)).astype(np.float32)
    np.testing.assert_allclose(_reduce(reduce_add, y, 1, np.float32), y.sum(1), rtol=1e-5)


def test_argmax_tie_break_and_custom_tuple_reduce():
    x = np.array([[1, 5, 5, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]] * 2 + [[3] * 16] * 2
                 + [[0, -1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 2]] * 4, dtype=np.float32)
    got = _reduce(tl.argmax, x, 1, np.int32)
    np.testing.assert_array_equal(got, [1, 1, 0, 0, 2, 2, 2, 2])
    np.testing.assert_array_equal(_reduce(tl.argmin, x, 1, np.int32), x.argmin(1))
    np.testing.assert_array_equal(_reduce(argmax_by_tuple_reduce, x, 1, np.int32), [1, 1, 0, 0, 2, 2, 2, 2])
    xr = rng.standard_normal((8, 16)).astype(np.float32)
    np.testing.assert_array_equal(_reduce(tl.argmax, xr, 0, np.int32), xr.argmax(0))
    np.testing.assert_array_equal(_reduce(max_index, xr, 1, np.int32), xr.argmax(1))


@jit
def scan_kernel(X, Out, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Out + r, OP(tl.load(X + r), AXIS))


def _scan(op, x, axis, out_dtype):
    out = np.zeros(x.shape, out_dtype)
    scan_kernel[(1,)](np.ascontiguousarray(x), out, M=x.shape[0], N=x.shape[1], AXIS=axis, OP=op)
    return out


@jit
def affine_fn(a1, b1, a2, b2):
    # composition of x -> a*x + b maps: associative but not commutative
    return a1 * a2, b1 * a2 + b2


@jit
def scan_add(v, axis: tl.constexpr):
    return tl.associative_scan(v, axis, op_add)


@jit
def scan_add_reverse(v, axis: tl.constexpr):
    return tl.associative_scan(v, axis, op_add, reverse=True)


@jit
def cumsum_reverse(v, axis: tl.constexpr):
    return tl.cumsum(v, axis, reverse=True)


@jit
def affine_scan(v, axis: tl.constexpr):
    # (4, 32) holds interleaved (a, b) pairs of 16 maps per row
    va, vb = tl.split(tl.reshape(v, (4, 16, 2)))
    ra, rb = tl.associative_scan((va, vb), axis, affine_fn)
    return tl.reshape(tl.join(ra, rb), (4, 32))


def test_scans():
    i = rng.integers(-5, 5, (4, 16)).astype(np.int32)
    for axis in (0, 1):
        np.testing.assert_array_equal(_scan(tl.cumsum, i, axis, np.int32), np.cumsum(i, axis))
        np.testing.assert_array_equal(_scan(scan_add, i, axis, np.int32), np.cumsum(i, axis))
        np.testing.assert_array_equal(_scan(cumsum_reverse, i, axis, np.int32),
                                      np.flip(np.cumsum(np.flip(i, axis), axis), axis))
        np.testing.assert_array_equal(_scan(scan_add_reverse, i, axis, np.int32),
                                      np.flip(np.cumsum(np.flip(i, axis), axis), axis))
    np.testing.assert_array_equal(_scan(tl.cumprod, i % 3 + 1, 1, np.int32), np.cumprod(i % 3 + 1, 1))
    # a non-commutative combine: composition order matters
    a = (rng.integers(1, 3, (4, 16))).astype(np.float32)
    b = (rng.integers(-3, 3, (4, 16))).astype(np.float32)
    ab = np.stack([a, b], -1).reshape(4, 32)
    got = _scan(affine_scan, ab, 1, np.float32).reshape(4, 16, 2)
    ra, rb = np.empty_like(a), np.empty_like(b)
    ca, cb = np.ones(4, np.float32), np.zeros(4, np.float32)
    for j in range(16):
        ca, cb = ca * a[:, j], cb * a[:, j] + b[:, j]
        ra[:, j], rb[:, j] = ca, cb
    np.testing.assert_array_equal(got[..., 0], ra)
    np.testing.assert_array_equal(got[..., 1], rb)


def test_dot():
    @jit
    def k(A, B, C, D, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
        rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
        a = tl.load(A + rm[:, None] * K + rk[None, :])
        b = tl.load(B + rk[:, None] * N + rn[None, :])
        acc = tl.load(D + rm[:, None] * N + rn[None, :])
        c = tl.dot(a, b, acc.to(OUT))
        tl.store(C + rm[:, None] * N + rn[None, :], c)

    a = torch.randn(16, 32).half()
    b = torch.randn(32, 16).half()
    d = torch.randn(16, 16)
    c = torch.zeros(16, 16)
    k[(1,)](a, b, c, d, M=16, N=16, K=32, OUT=tl.float32)
    torch.testing.assert_close(c, a.float() @ b.float() + d, rtol=1e-5, atol=1e-5)
    ai = torch.randint(-128, 128, (16, 32), dtype=torch.int8)
    bi = torch.randint(-128, 128, (32, 16), dtype=torch.int8)
    ci = torch.zeros(16, 16, dtype=torch.int32)
    di = torch.randint(-100, 100, (16, 16), dtype=torch.int32)
    k[(1,)](ai, bi, ci, di, M=16, N=16, K=32, OUT=tl.int32)
    assert torch.equal(ci, ai.int() @ bi.int() + di)
    a64, b64 = torch.randn(16, 32, dtype=torch.float64), torch.randn(32, 16, dtype=torch.float64)
    c64 = torch.zeros(16, 16, dtype=torch.float64)
    k[(1,)](a64, b64, c64, torch.zeros(16, 16, dtype=torch.float64), M=16, N=16, K=32, OUT=tl.float64)
    torch.testing.assert_close(c64, a64 @ b64)

    @jit
    def batched(A, B, C):
        r = (tl.arange(0, 2)[:, None, None] * 256 + tl.arange(0, 16)[None, :, None] * 16
             + tl.arange(0, 16)[None, None, :])
        tl.store(C + r, tl.dot(tl.load(A + r), tl.load(B + r)))
    a3, b3, c3 = torch.randn(2, 16, 16), torch.randn(2, 16, 16), torch.zeros(2, 16, 16)
    batched[(1,)](a3, b3, c3)
    torch.testing.assert_close(c3, a3 @ b3, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ control flow and calls

@jit(noinline=True)
def scaled_store(ptr, offs, val, scale, mask):
    tl.store(ptr + offs, val * scale, mask=mask)  # CALLEE-STORE


@jit
def caller_kernel(X, Y, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    scaled_store(Y, offs, tl.load(X + offs, mask=m), scale, m)


@jit
def caller_unmasked(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    scaled_store(Y, offs, tl.load(X + offs, mask=offs < n), 2.0, None)


def test_noinline_call_and_oob_inside_callee():
    x = torch.rand(100)
    y = torch.zeros(100)
    caller_kernel[(4,)](x, y, 100, 3.0, BLOCK=32)
    assert torch.equal(y, x * 3.0)
    from tessera.interpreter import OutOfBoundsError
    with pytest.raises(OutOfBoundsError) as ei:
        caller_unmasked[(4,)](x, y, 100, BLOCK=32)
    assert f":{line_of(scaled_store, '# CALLEE-STORE')}: out-of-bounds store in program (3, 0, 0)" in str(ei.value)


@jit
def early_return_kernel(X, Out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    running = True  # cleared to leave the loop early: kernels have no `break`
    for i in range(10):
        if running:
            if i == 3:
                if pid == 1:
                    tl.store(Out + pid * BLOCK + tl.arange(0, BLOCK), acc - 1.0)
                    return  # nested early return inside a loop body
            acc += tl.load(X + pid * BLOCK + tl.arange(0, BLOCK))
            if pid == 2:
                if i >= 5:
                    running = False
    while tl.sum(acc, axis=0) > 0:
        acc = acc - 1.0
        if tl.max(acc, axis=0) < 2.0:
            tl.store(Out + pid * BLOCK + tl.arange(0, BLOCK), acc)
            return
    tl.store(Out + pid * BLOCK + tl.arange(0, BLOCK), acc + 100.0)


def test_early_return_in_loop_and_nested_if():
    x = np.ones(32, np.float32)
    out = np.full(32, -5, np.float32)
    early_return_kernel[(6,)](x, out, 32, BLOCK=8)
    np.testing.assert_array_equal(out[:8], np.full(8, 1.0))     # 10 -> decremented until max < 2
    np.testing.assert_array_equal(out[8:16], np.full(8, 2.0))   # returned inside the loop: 3 - 1
    np.testing.assert_array_equal(out[16:24], np.full(8, 1.0))  # left the loop after 6 iterations
    np.testing.assert_array_equal(out[24:32], np.full(8, 1.0))


def test_device_print_assert_and_inline_asm(capsys):
    @jit
    def k(X, CHECK: tl.constexpr):
        v = tl.load(X + tl.arange(0, 4))
        tl.device_print("v=", v)
        if CHECK:
            tl.device_assert(v < 3, "v too large")  # ASSERT-LINE

    x = np.arange(4, dtype=np.int32)
    k[(2,)](x, CHECK=False)
    out = capsys.readouterr().out
    assert "(0, 0, 0) v= [0 1 2 3]" in out and "(1, 0, 0) v= [0 1 2 3]" in out
    with pytest.raises(AssertionError, match=rf":{line_of(k, '# ASSERT-LINE')}: device assertion failed in program "
                                             rf"\(0, 0, 0\) at index \(3,\): v too large"):
        k[(2,)](x, CHECK=True)

    @jit
    def asm(X):
        v = tl.load(X + tl.arange(0, 4))
        tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [v], dtype=tl.int32, is_pure=True, pack=1)
    with pytest.raises(NotImplementedError, match="inline assembly cannot run in the interpreter"):
        asm[(1,)](x)


def test_program_id_and_num_programs_3d():
    @jit
    def k(Out):
        p = tl.program_id(0) + 10 * tl.program_id(1) + 100 * tl.program_id(2)
        lin = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
        tl.store(Out + lin, p)

    out = np.zeros(24, np.int32)
    k[(2, 3, 4)](out)
    want = [x + 10 * y + 100 * z for z in range(4) for y in range(3) for x in range(2)]
    np.testing.assert_array_equal(out, want)
