"""Each language feature, checked twice: the TTIR it compiles to, and its result in the interpreter."""

import math

import numpy as np
import pytest
import torch

import tessera
import tessera.language as tl

from .helpers import interpret, ttir_for

RNG = np.random.default_rng(0)


def f32(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def i32(*shape, lo=-100, hi=100):
    return RNG.integers(lo, hi, size=shape).astype(np.int32)

# ------------------------------------------------------------------ kernels


@tessera.jit
def k_arith(x_ptr, y_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    r = x * 2 + y - 1.0
    r = r / (tl.abs(y) + 1)
    tl.store(o_ptr + offs, r)


@tessera.jit
def k_int_div_mod(x_ptr, y_ptr, q_ptr, r_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(q_ptr + offs, x // y)
    tl.store(r_ptr + offs, x % y)


@tessera.jit
def k_bitwise(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    u = x.to(tl.uint32, bitcast=True)
    r = ((x & 0xFF) | (x << 3)) ^ (x >> 2) ^ (u >> 2).to(tl.int32, bitcast=True) ^ ~x
    tl.store(o_ptr + offs, r)


@tessera.jit
def k_compare_where(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    c = (x > 0.5) | ((x < -0.5) & (x != -1.0))
    r = tl.where(c, tl.maximum(x, 1.0), tl.minimum(x, -1.0))
    r = tl.clamp(r, -1.5, 1.5)
    tl.store(o_ptr + offs, r)


@tessera.jit
def k_2d_masked(x_ptr, o_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=m, other=-7.0)
    tl.store(o_ptr + rows[:, None] * BN + cols[None, :], x + 1.0)


@tessera.jit
def k_reductions(x_ptr, s_ptr, mx_ptr, mn_ptr, am_ptr, an_ptr, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)
    c = tl.arange(0, BN)
    x = tl.load(x_ptr + r[:, None] * BN + c[None, :])
    tl.store(s_ptr + r, tl.sum(x, axis=1))
    tl.store(mx_ptr + c, tl.max(x, axis=0))
    tl.store(mn_ptr + r[:, None], tl.min(x, axis=1, keep_dims=True))
    tl.store(am_ptr + r, tl.argmax(x, axis=1))
    tl.store(an_ptr + c, tl.argmin(x, axis=0))


@tessera.jit
def _prod_combine(a, b):
    return a * b


@tessera.jit
def _maxabs_combine(a, ai, b, bi):
    take_a = tl.abs(a) >= tl.abs(b)
    return tl.where(take_a, a, b), tl.where(take_a, ai, bi)


@tessera.jit
def k_custom_reduce(x_ptr, p_ptr, v_ptr, i_ptr, tot_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(p_ptr, tl.reduce(x, 0, _prod_combine))
    v, i = tl.reduce((x, offs), 0, _maxabs_combine)
    tl.store(v_ptr, v)
    tl.store(i_ptr, i)
    tl.store(tot_ptr, tl.sum(x))


@tessera.jit
def k_scans(x_ptr, c_ptr, r_ptr, p_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(c_ptr + offs, tl.cumsum(x, 0))
    tl.store(r_ptr + offs, tl.cumsum(x, 0, reverse=True))
    tl.store(p_ptr + offs, tl.associative_scan(x % 3 + 1, 0, _prod_combine))


@tessera.jit
def k_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.full((M, N), 1.0, tl.float32)
    acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@tessera.jit
def k_shapes(x_ptr, t_ptr, j_ptr, s_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK * BLOCK)
    x = tl.load(x_ptr + offs)
    m = tl.reshape(x, (BLOCK, BLOCK))
    t = tl.trans(m)
    tl.store(t_ptr + offs, tl.reshape(t, (BLOCK * BLOCK,)))
    j = tl.join(m, m + 1.0)                      # [B, B, 2]
    tl.store(j_ptr + tl.arange(0, BLOCK * BLOCK * 2), tl.reshape(j, (BLOCK * BLOCK * 2,)))
    a, b = tl.split(j)
    tl.store(s_ptr + offs, tl.reshape(b - a, (BLOCK * BLOCK,)))
    e = tl.expand_dims(tl.arange(0, BLOCK), (0, 2))   # [1, B, 1]
    p = tl.permute(tl.broadcast_to(e, (2, BLOCK, 2)), (2, 0, 1))  # [2, 2, B]
    tl.store(i_ptr + tl.arange(0, 4 * BLOCK), tl.reshape(p, (4 * BLOCK,)))


@tessera.jit
def k_control_flow(x_ptr, o_ptr, n, MODE: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    if MODE == 0:
        w = v * 10
    elif MODE == 1:
        w = v * 100
    else:
        w = v
    if pid % 3 == 0:
        w = w + 1
    elif pid % 3 == 1:
        w = w - 1
    else:
        w = -w
    acc = 0
    for i in range(0, n):
        acc += i
    k = 0
    while k < pid:
        k += 2
    w = w + acc + k if pid > 1 else w
    tl.store(o_ptr + pid, w)


@tessera.jit
def k_early_return_in_loop(x_ptr, o_ptr, n):
    pid = tl.program_id(0)
    for i in range(0, n):
        v = tl.load(x_ptr + i)
        if v == pid:
            tl.store(o_ptr + pid, i)
            return
    tl.store(o_ptr + pid, -1)


@tessera.jit
def k_early_return_nested_if(x_ptr, o_ptr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    if v > 0:
        if v > 10:
            tl.store(o_ptr + pid, 2)
            return
        tl.store(o_ptr + pid, 1)
    else:
        tl.store(o_ptr + pid, 0)


@tessera.jit(noinline=True)
def scale_and_shift(x, s, shift: tl.constexpr = 1.0):
    return x * s + shift, tl.sum(x, 0)


@tessera.jit
def k_noinline(x_ptr, o_ptr, t_ptr, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y, total = scale_and_shift(x, s, shift=2.0)
    tl.store(o_ptr + offs, y)
    tl.store(t_ptr, total)


@tessera.jit
def _pair(a, b=3):
    return (a + b, a - b)


@tessera.jit
def k_tuples_defaults(x_ptr, o_ptr):
    v = tl.load(x_ptr)
    s, d = _pair(v)
    s2, _ = _pair(v, b=10)
    tl.store(o_ptr, s)
    tl.store(o_ptr + 1, d)
    tl.store(o_ptr + 2, s2)


@tessera.jit
def k_atomics(v_ptr, h_ptr, m_ptr, c_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(v_ptr + offs, mask=mask, other=0)
    tl.atomic_add(h_ptr + v % NBINS, 1, mask=mask)
    tl.atomic_max(m_ptr, tl.max(tl.where(mask, v, 0), 0))
    tl.atomic_cas(c_ptr + pid, 0, pid + 1)


@tessera.jit
def k_random(o_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.rand(seed, offs))
    tl.store(o_ptr + BLOCK + offs, tl.randn(seed, offs))
    tl.store(o_ptr + 2 * BLOCK + offs, (tl.randint(seed, offs) & 0xFFFF).to(tl.float32))


@tessera.jit
def k_math(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a = tl.exp(x) + tl.log(tl.abs(x) + 1) + tl.sqrt(tl.abs(x)) + tl.sin(x) * tl.cos(x)
    b = tl.erf(x) + tl.sigmoid(x) + tl.exp2(x) + tl.log2(tl.abs(x) + 1) + tl.rsqrt(tl.abs(x) + 1)
    c = tl.floor(x) + tl.ceil(x) + tl.fma(x, x, 1.0) + tl.fdiv(x, 3.0) + tl.div_rn(x, 7.0)
    d = tl.math.tanh(x) + tl.math.pow(tl.abs(x) + 1, 1.5) + tl.math.atan2(x, 2.0)
    tl.store(o_ptr + offs, a + b + c + d)


@tessera.jit
def k_softmax(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.softmax(tl.load(x_ptr + offs)))


@tessera.jit
def k_casts(x_ptr, h_ptr, b_ptr, i_ptr, u_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + offs, x.to(tl.float16))
    tl.store(b_ptr + offs, x.to(tl.bfloat16))
    tl.store(i_ptr + offs, x.to(tl.int32))
    tl.store(u_ptr + offs, x.to(tl.int32, bitcast=True))


@tessera.jit
def k_block_ptr(x_ptr, o_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0), block_shape=(BM, BN),
                           order=(1, 0))
    ob = tl.make_block_ptr(o_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0), block_shape=(BM, BN),
                           order=(1, 0))
    for _ in range(0, tl.cdiv(N, BN)):
        t = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
        tl.store(ob, t + 1.0, boundary_check=(0, 1))
        xb = tl.advance(xb, (0, BN))
        ob = tl.advance(ob, (0, BN))


@tessera.jit
def k_hist_gather(x_ptr, h_ptr, g_ptr, BLOCK: tl.constexpr, NB: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + tl.arange(0, NB), tl.histogram(x, NB))
    src = tl.reshape(offs.to(tl.float32) * 10, (4, BLOCK // 4))
    idx = tl.reshape((BLOCK // 4 - 1) - (offs % (BLOCK // 4)), (4, BLOCK // 4))
    tl.store(g_ptr + offs, tl.reshape(tl.gather(src, idx, 1), (BLOCK,)))


@tessera.jit
def k_static(x_ptr, o_ptr, BLOCK: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.static_range(N):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    for j in tl.range(0, 2, num_stages=3):
        acc = acc * 2
    x = tl.multiple_of(tl.max_contiguous(offs, 16), 16)
    tl.store(o_ptr + x, acc)


# ------------------------------------------------------------------ cases
# name: (kernel, make() -> (grid, args, kwargs, outputs), reference(args) -> outputs, ttir snippets, tolerance)


def _arith():
    x, y = f32(64), f32(64)
    o = np.zeros(64, np.float32)
    return (1,), (x, y, o), {"BLOCK": 64}, [o], lambda: [((x * 2 + y - 1.0) / (np.abs(y) + 1)).astype(np.float32)]


def _int_div_mod():
    x = i32(64)
    y = i32(64, lo=1, hi=9) * np.where(RNG.random(64) < 0.5, -1, 1).astype(np.int32)
    q, r = np.zeros(64, np.int32), np.zeros(64, np.int32)
    ref_q = np.trunc(x / y).astype(np.int32)
    return (1,), (x, y, q, r), {"BLOCK": 64}, [q, r], lambda: [ref_q, (x - ref_q * y).astype(np.int32)]


def _bitwise():
    x = i32(64, lo=-2**31, hi=2**31 - 1)
    o = np.zeros(64, np.int32)

    def ref():
        u = x.view(np.uint32)
        r = ((x & 0xFF) | (x << 3)) ^ (x >> 2) ^ (u >> 2).view(np.int32) ^ ~x
        return [r.astype(np.int32)]
    return (1,), (x, o), {"BLOCK": 64}, [o], ref


def _compare_where():
    x = f32(64)
    x[3] = -1.0
    o = np.zeros(64, np.float32)

    def ref():
        c = (x > 0.5) | ((x < -0.5) & (x != -1.0))
        return [np.clip(np.where(c, np.maximum(x, 1.0), np.minimum(x, -1.0)), -1.5, 1.5)]
    return (1,), (x, o), {"BLOCK": 64}, [o], ref


def _2d_masked():
    M, N, BM, BN = 10, 5, 4, 8
    x = f32(M, N)
    o = np.zeros((12, BN), np.float32)

    def ref():
        r = np.full((12, BN), -7.0, np.float32)
        r[:M, :N] = x
        return [r + 1.0]
    return (3,), (x, o, M, N, N), {"BM": BM, "BN": BN}, [o], ref


def _reductions():
    x = f32(8, 16)
    s, mx, mn = np.zeros(8, np.float32), np.zeros(16, np.float32), np.zeros(8, np.float32)
    am, an = np.zeros(8, np.int32), np.zeros(16, np.int32)
    return (1,), (x, s, mx, mn, am, an), {"BM": 8, "BN": 16}, [s, mx, mn, am, an], lambda: [
        x.sum(1), x.max(0), x.min(1), x.argmax(1).astype(np.int32), x.argmin(0).astype(np.int32)]


def _custom_reduce():
    x = f32(32, lo=0.5, hi=1.5)
    x[7] = -3.0
    p, v, i, t = (np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.int32), np.zeros(1, np.float32))
    return (1,), (x, p, v, i, t), {"BLOCK": 32}, [p, v, i, t], lambda: [
        np.array([np.prod(x.astype(np.float64))], np.float32), np.array([-3.0], np.float32),
        np.array([7], np.int32), np.array([x.sum()], np.float32)]


def _scans():
    x = i32(64, lo=-5, hi=5)
    c, r, p = np.zeros(64, np.int32), np.zeros(64, np.int32), np.zeros(64, np.int32)

    def ref():
        m = np.fmod(x, 3) + 1
        return [np.cumsum(x).astype(np.int32), np.cumsum(x[::-1])[::-1].astype(np.int32),
                np.cumprod(m.astype(np.int64)).astype(np.int32)]
    return (1,), (x, c, r, p), {"BLOCK": 64}, [c, r, p], ref


def _dot():
    a = RNG.standard_normal((32, 16)).astype(np.float16)
    b = RNG.standard_normal((16, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    return (1,), (a, b, c), {"M": 32, "N": 32, "K": 16}, [c], lambda: [
        a.astype(np.float32) @ b.astype(np.float32) + 1.0]


def _shapes():
    B = 4
    x = f32(B * B)
    t, j, s, i = (np.zeros(B * B, np.float32), np.zeros(B * B * 2, np.float32), np.zeros(B * B, np.float32),
                  np.zeros(4 * B, np.int32))

    def ref():
        m = x.reshape(B, B)
        jj = np.stack([m, m + 1.0], axis=-1)
        p = np.broadcast_to(np.arange(B).reshape(1, B, 1), (2, B, 2)).transpose(2, 0, 1)
        return [m.T.reshape(-1), jj.reshape(-1), ((m + np.float32(1.0)) - m).reshape(-1),
                p.reshape(-1).astype(np.int32)]
    return (1,), (x, t, j, s, i), {"BLOCK": B}, [t, j, s, i], ref


def _control_flow():
    n = 5
    x = f32(8)
    o = np.zeros(8, np.float32)

    def ref():
        out = []
        for pid in range(8):
            w = x[pid] * 100
            w = w + 1 if pid % 3 == 0 else (w - 1 if pid % 3 == 1 else -w)
            acc = sum(range(n))
            k = 0
            while k < pid:
                k += 2
            out.append(w + acc + k if pid > 1 else w)
        return [np.array(out, np.float32)]
    return (8,), (x, o, n), {"MODE": 1}, [o], ref


def _early_return_loop():
    x = np.array([5, 3, 0, 1, 7, 2], np.int32)
    o = np.zeros(8, np.int32)

    def ref():
        return [np.array([list(x).index(p) if p in x else -1 for p in range(8)], np.int32)]
    return (8,), (x, o, len(x)), {}, [o], ref


def _early_return_nested():
    x = np.array([5, -3, 20, 0, 11, 1], np.int32)
    o = np.full(6, 9, np.int32)
    return (6,), (x, o), {}, [o], lambda: [np.where(x > 10, 2, np.where(x > 0, 1, 0)).astype(np.int32)]


def _noinline():
    x = f32(64)
    o, t = np.zeros(64, np.float32), np.zeros(1, np.float32)
    return (1,), (x, o, t, 3.0), {"BLOCK": 64}, [o, t], lambda: [x * 3.0 + 2.0, np.array([x.sum()], np.float32)]


def _tuples_defaults():
    x = np.array([4.0], np.float32)
    o = np.zeros(3, np.float32)
    return (1,), (x, o), {}, [o], lambda: [np.array([7.0, 1.0, 14.0], np.float32)]


def _atomics():
    n, NB, BLOCK = 1000, 16, 128
    v = RNG.integers(0, 10000, size=n).astype(np.int32)
    h, m, c = np.zeros(NB, np.int32), np.zeros(1, np.int32), np.zeros(8, np.int32)
    return (8,), (v, h, m, c, n), {"NBINS": NB, "BLOCK": BLOCK}, [h, m, c], lambda: [
        np.bincount(v % NB, minlength=NB).astype(np.int32), np.array([v.max()], np.int32),
        np.arange(1, 9, dtype=np.int32)]


def _math():
    x = f32(128, lo=-3, hi=3)
    o = np.zeros(128, np.float32)

    def ref():
        t = torch.from_numpy(x.astype(np.float64))
        a = torch.exp(t) + torch.log(t.abs() + 1) + torch.sqrt(t.abs()) + torch.sin(t) * torch.cos(t)
        b = torch.erf(t) + torch.sigmoid(t) + torch.exp2(t) + torch.log2(t.abs() + 1) + torch.rsqrt(t.abs() + 1)
        c = torch.floor(t) + torch.ceil(t) + (t * t + 1) + t / 3 + t / 7
        d = torch.tanh(t) + (t.abs() + 1) ** 1.5 + torch.atan2(t, torch.full_like(t, 2.0))
        return [(a + b + c + d).numpy().astype(np.float32)]
    return (1,), (x, o), {"BLOCK": 128}, [o], ref


def _softmax():
    x = f32(256, lo=-10, hi=10)
    o = np.zeros(256, np.float32)
    return (1,), (x, o), {"BLOCK": 256}, [o], lambda: [torch.softmax(torch.from_numpy(x), 0).numpy()]


def _casts():
    x = torch.from_numpy(f32(64, lo=-300, hi=300))
    h = torch.zeros(64, dtype=torch.float16)
    b = torch.zeros(64, dtype=torch.bfloat16)
    i = torch.zeros(64, dtype=torch.int32)
    u = torch.zeros(64, dtype=torch.int32)
    return (1,), (x, h, b, i, u), {"BLOCK": 64}, [h, b, i, u], lambda: [
        x.half(), x.bfloat16(), x.to(torch.int32), x.view(torch.int32)]


def _block_ptr():
    M, N = 5, 12
    x = f32(M, N)
    o = np.zeros((M, N), np.float32)
    return (1,), (x, o, M, N), {"BM": 8, "BN": 8}, [o], lambda: [x + 1.0]


def _hist_gather():
    B, NB = 64, 16
    x = RNG.integers(-2, NB + 2, size=B).astype(np.int32)
    h, g = np.zeros(NB, np.int32), np.zeros(B, np.float32)

    def ref():
        hist = np.array([(x == k).sum() for k in range(NB)], np.int32)
        src = (np.arange(B) * 10.0).reshape(4, B // 4)
        idx = ((B // 4 - 1) - (np.arange(B) % (B // 4))).reshape(4, B // 4)
        return [hist, np.take_along_axis(src, idx, 1).reshape(-1).astype(np.float32)]
    return (1,), (x, h, g), {"BLOCK": B, "NB": NB}, [h, g], ref


def _static():
    x = f32(3 * 32)
    o = np.zeros(32, np.float32)
    return (1,), (x, o), {"BLOCK": 32, "N": 3}, [o], lambda: [x.reshape(3, 32).sum(0) * 4]


CASES = {
    "arith": (k_arith, _arith, ["arith.mulf", "arith.divf", "math.absf"], 1e-6),
    "int_div_mod": (k_int_div_mod, _int_div_mod, ["arith.divsi", "arith.remsi"], 0),
    "bitwise": (k_bitwise, _bitwise, ["arith.shrsi", "arith.shrui", "arith.shli", "arith.xori"], 0),
    "compare_where": (k_compare_where, _compare_where, ["arith.cmpf ogt", "arith.select", "tt.clampf"], 0),
    "2d_masked": (k_2d_masked, _2d_masked, ["tt.expand_dims", "tt.broadcast", "tt.load"], 0),
    "reductions": (k_reductions, _reductions, ['"tt.reduce"', "arith.maxnumf", "arith.minnumf"], 1e-5),
    "custom_reduce": (k_custom_reduce, _custom_reduce, ['"tt.reduce"', "arith.mulf"], 1e-5),
    "scans": (k_scans, _scans, ['"tt.scan"', "reverse = true"], 0),
    "dot": (k_dot, _dot, ["tt.dot"], 1e-3),
    "shapes": (k_shapes, _shapes, ["tt.trans", "tt.join", "tt.split", "tt.reshape"], 0),
    "control_flow": (k_control_flow, _control_flow, ["scf.if", "scf.for", "scf.while"], 1e-5),
    "early_return_loop": (k_early_return_in_loop, _early_return_loop, ["cf.cond_br", "tt.return"], 0),
    "early_return_nested_if": (k_early_return_nested_if, _early_return_nested, ["cf.cond_br"], 0),
    "noinline": (k_noinline, _noinline, ["tt.call @scale_and_shift", "noinline = true"], 1e-5),
    "tuples_defaults": (k_tuples_defaults, _tuples_defaults, ["arith.addf", "arith.subf"], 0),
    "atomics": (k_atomics, _atomics, ["tt.atomic_rmw add", "tt.atomic_rmw max", "tt.atomic_cas"], 0),
    "math": (k_math, _math, ["math.erf", "math.exp2", "tt.precise_divf", "__nv_tanhf", "__nv_powf",
                             "__nv_atan2f", "math.fma"], 2e-4),
    "softmax": (k_softmax, _softmax, ['"tt.reduce"', "math.exp"], 1e-6),
    "casts": (k_casts, _casts, ["arith.truncf", "arith.fptosi", "tt.bitcast"], 0),
    # block pointers are rewritten to pointer tensors and masks in TTIR
    "block_ptr": (k_block_ptr, _block_ptr, ["tt.addptr", "arith.cmpi slt", "scf.for"], 0),
    "hist_gather": (k_hist_gather, _hist_gather, ["tt.histogram", "tt.gather"], 0),
    "static": (k_static, _static, ["tt.num_stages = 3", "tt.divisibility = dense<16>", "tt.contiguity"], 1e-6),
}


@pytest.mark.parametrize("name", list(CASES))
def test_ttir(name):
    kernel, make, snippets, _ = CASES[name]
    grid, args, kwargs, _, _ = make()
    text = ttir_for(kernel, *args, **kwargs)
    for s in snippets:
        assert s in text, f"{s!r} not in the TTIR of {name}:\n{text}"
    if name == "block_ptr":
        assert "tt.make_tensor_ptr" not in text and "tt.advance" not in text
    res = tessera.parse_mlir(text)
    assert res.ok, [str(d) for d in res.diagnostics]


@pytest.mark.parametrize("name", list(CASES))
def test_interpreter(name):
    kernel, make, _, tol = CASES[name]
    grid, args, kwargs, outs, ref = make()
    interpret(kernel, grid, *args, **kwargs)
    for got, want in zip(outs, ref()):
        if isinstance(got, torch.Tensor):
            assert got.dtype == want.dtype
            got, want = got.float().numpy(), want.float().numpy()
        if tol == 0:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_random_is_deterministic_and_uniform():
    a, b, c = (np.zeros(3 * 1024, np.float32) for _ in range(3))
    interpret(k_random, (1,), a, 1234, BLOCK=1024)
    interpret(k_random, (1,), b, 1234, BLOCK=1024)
    interpret(k_random, (1,), c, 99, BLOCK=1024)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a[:1024], c[:1024])
    u = a[:1024]
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05
    g = a[1024:2048]
    assert abs(g.mean()) < 0.15 and abs(g.std() - 1.0) < 0.1


def test_random_ttir_is_philox():
    text = ttir_for(k_random, np.zeros(3 * 64, np.float32), 7, BLOCK=64)
    assert text.count("tt.mulhiui") >= 16  # 10 rounds of two multiplies (a few fold away)


def test_promotion_rules():
    @tessera.jit
    def k(h_ptr, b_ptr, i8_ptr, o1, o2, o3, o4):
        h = tl.load(h_ptr)
        b = tl.load(b_ptr)
        i = tl.load(i8_ptr)
        tl.static_assert((h + b).dtype == tl.float32)      # fp16 + bf16 -> fp32
        tl.static_assert((h * 2.0).dtype == tl.float16)    # a float scalar does not promote fp16
        tl.static_assert((i + 1).dtype == tl.int8)         # an int scalar does not promote int8
        tl.static_assert((i + h).dtype == tl.float16)
        tl.static_assert((h / h).dtype == tl.float32)      # division of halves computes in fp32
        tl.static_assert((i * 1.5).dtype == tl.float32)
        tl.static_assert((i > 0).dtype == tl.int1)
        t = True
        tl.static_assert(t.dtype == tl.int1) if False else None
        tl.store(o1, h + b)
        tl.store(o2, h * 2.0)
        tl.store(o3, i + 1)
        tl.store(o4, i * 1.5)
    h = np.array([1.5], np.float16)
    b = torch.tensor([2.5], dtype=torch.bfloat16)
    i8 = np.array([127], np.int8)
    outs = [np.zeros(1, np.float32), np.zeros(1, np.float16), np.zeros(1, np.int8), np.zeros(1, np.float32)]
    ttir_for(k, h, b, i8, *outs)
    interpret(k, (1,), h, b, i8, *outs)
    assert outs[0][0] == 4.0 and outs[1][0] == 3.0 and outs[2][0] == -128 and outs[3][0] == 190.5


def test_python_bool_stays_i1():
    @tessera.jit
    def k(o_ptr, FLAG: tl.constexpr):
        f = FLAG
        v = tl.where(tl.full((4,), f, tl.int1), 1, 2)
        tl.store(o_ptr + tl.arange(0, 4), v)
    text = ttir_for(k, np.zeros(4, np.int32), FLAG=True)
    assert "dense<true> : tensor<4xi1>" in text or "dense<1>" in text


def test_device_print_and_assert_in_ttir():
    @tessera.jit
    def k(x_ptr):
        x = tl.load(x_ptr + tl.arange(0, 8))
        tl.device_print("x: ", x)
        tl.device_assert(x >= 0, "x must be non-negative")
    text = ttir_for(k, np.zeros(8, np.int32))
    assert 'tt.print "x: "' in text and "isSigned = array<i32: 1>" in text
    assert 'tt.assert' in text and "x must be non-negative" in text


def test_inline_asm_in_ttir():
    @tessera.jit
    def k(x_ptr, o_ptr):
        x = tl.load(x_ptr + tl.arange(0, 8))
        y = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, 1;", "=r,r,r", [x, x], dtype=tl.int32,
                                      is_pure=True, pack=1)
        tl.store(o_ptr + tl.arange(0, 8), y)
    text = ttir_for(k, np.zeros(8, np.int32), np.zeros(8, np.int32))
    assert "tt.elementwise_inline_asm" in text and "shf.l.wrap.b32" in text


@tessera.jit
def k_tuple_args(ptrs, scales, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(ptrs[0] + offs) * scales[0]
    b = tl.load(ptrs[1] + offs) * scales[1]
    tl.store(o_ptr + offs, a + b)


def test_tuple_kernel_arguments():
    x, y = f32(32), f32(32)
    o = np.zeros(32, np.float32)
    text = ttir_for(k_tuple_args, (x, y), (2.0, 3), o, BLOCK=32)
    sig = text.split("tt.func public @k_tuple_args(")[1].split(") attributes")[0]
    types = [part.split(":")[1].split("{")[0].split(" loc")[0].strip() for part in sig.split("%arg")[1:]]
    assert types == ["!tt.ptr<f32>", "!tt.ptr<f32>", "f32", "i32", "!tt.ptr<f32>"], types
    interpret(k_tuple_args, (1,), (x, y), (2.0, 3), o, BLOCK=32)
    np.testing.assert_allclose(o, x * 2.0 + y * 3, rtol=1e-6)
