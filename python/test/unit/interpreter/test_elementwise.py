"""Elementwise ops of the interpreter against numpy/torch references."""

import math

import numpy as np
import pytest
import torch

import tessera.language as tl

from ._util import binary_kernel, jit, op_add, op_maximum, run_binary, run_unary, unary_kernel

rng = np.random.default_rng(0)

# The ops below are passed to the kernels as tl.constexpr arguments (OP) and called there:
# the compiler takes @jit functions and tessera.language builtins, not Python lambdas.


@jit
def op_sub(a, b):
    return a - b


@jit
def op_mul(a, b):
    return a * b


@jit
def op_div(a, b):
    return a / b


@jit
def op_floordiv(a, b):
    return a // b


@jit
def op_mod(a, b):
    return a % b


@jit
def op_lt(a, b):
    return (a < b).to(tl.int32)


@jit
def op_ne(a, b):
    return (a != b).to(tl.int32)


@jit
def op_minimum(a, b):
    return tl.minimum(a, b)


@jit
def op_maximum_propagate_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@jit
def op_minimum_propagate_nan(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


@jit
def op_shl(a, b):
    return a << b


@jit
def op_shr(a, b):
    return a >> b


@jit
def op_and_or_xor(a, b):
    return (a & b) | (a ^ b)


@jit
def op_invert(a):
    return ~a


@jit
def op_neg(a):
    return -a

# ------------------------------------------------------------------ integers


def _wrap_ref(vals, dtype):
    bits = 8 * np.dtype(dtype).itemsize
    return np.array([int(v) & ((1 << bits) - 1) for v in vals], dtype=np.uint64).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64])
def test_integer_wraparound(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, info.min, info.max - 3, 7] * 4, dtype=dtype)
    y = np.array([1, -1 if info.min < 0 else info.max, 100, info.max] * 4, dtype=dtype)
    xi, yi = [int(v) for v in x], [int(v) for v in y]
    for op, ref in [(op_add, lambda a, b: a + b), (op_sub, lambda a, b: a - b), (op_mul, lambda a, b: a * b)]:
        got = run_binary(op, x, y, dtype)
        want = _wrap_ref([ref(a, b) for a, b in zip(xi, yi)], dtype)
        np.testing.assert_array_equal(got, want)


def test_c_division_semantics():
    x = np.array([7, -7, 7, -7, 0, 5, -2**31, -2**31, 13, -13, 1, 2, 3, 4, 5, 6], dtype=np.int32)
    y = np.array([2, 2, -2, -2, 3, 0, -1, 1, 0, 5, 1, 1, 1, 1, 1, 1], dtype=np.int32)
    q = run_binary(op_floordiv, x, y, np.int32)
    r = run_binary(op_mod, x, y, np.int32)

    def cdiv(a, b):
        if b == 0:
            return 0  # documented: division by zero gives 0
        if a == -2**31 and b == -1:
            return -2**31
        return int(a / b) if abs(a) < 2**52 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)

    def crem(a, b):
        if b in (0, -1):
            return 0
        return a - b * cdiv(a, b)
    np.testing.assert_array_equal(q, [cdiv(int(a), int(b)) for a, b in zip(x, y)])
    np.testing.assert_array_equal(r, [crem(int(a), int(b)) for a, b in zip(x, y)])
    assert q[0] == 3 and q[1] == -3 and r[1] == -1 and r[2] == 1  # truncation toward zero


def test_unsigned_division_and_compare():
    x = np.array([0xFFFFFFFF, 10, 0x80000000, 5] * 4, dtype=np.uint32)
    y = np.array([2, 3, 0x80000001, 0] * 4, dtype=np.uint32)
    np.testing.assert_array_equal(run_binary(op_floordiv, x, y, np.uint32), [0x7FFFFFFF, 3, 0, 0] * 4)
    np.testing.assert_array_equal(run_binary(op_mod, x, y, np.uint32), [1, 1, 0x80000000, 0] * 4)
    np.testing.assert_array_equal(run_binary(op_lt, x, y, np.int32), [0, 0, 1, 0] * 4)
    np.testing.assert_array_equal(run_binary(op_maximum, x, y, np.uint32), np.maximum(x, y))


def test_shifts_and_bitwise():
    x = np.array([1, -8, 0x40000000, -1] * 4, dtype=np.int32)
    s = np.array([3, 1, 33, 31, 32, 0, 2, 40, 5, 6, 7, 8, 31, 30, 29, 28], dtype=np.int32)
    shl = run_binary(op_shl, x, s, np.int32)
    shr = run_binary(op_shr, x, s, np.int32)

    def to_i32(v):
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v
    for i in range(16):
        a, b = int(x[i]), int(s[i])
        assert int(shl[i]) == (0 if b >= 32 else to_i32(a << b)), (a, b)
        assert int(shr[i]) == a >> min(b, 31), (a, b)  # arithmetic shift fills with the sign
    u = x.view(np.uint32)
    shru = run_binary(op_shr, u, s.view(np.uint32), np.uint32)
    for i in range(16):
        a, b = int(u[i]), int(s[i])
        assert int(shru[i]) == (0 if b >= 32 else a >> b)
    np.testing.assert_array_equal(run_binary(op_and_or_xor, x, s, np.int32), (x & s) | (x ^ s))
    np.testing.assert_array_equal(run_unary(op_invert, x, np.int32), ~x)


def test_umulhi():
    a = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    got = run_binary(tl.umulhi, a, b, np.uint32)
    np.testing.assert_array_equal(got, [(int(p) * int(q)) >> 32 for p, q in zip(a, b)])
    a64 = rng.integers(0, 2**63, 16, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b64 = rng.integers(0, 2**63, 16, dtype=np.uint64)
    got = run_binary(tl.umulhi, a64, b64, np.uint64)
    np.testing.assert_array_equal(got, np.array([(int(p) * int(q)) >> 64 for p, q in zip(a64, b64)],
                                                dtype=np.uint64))


def test_abs_neg_int():
    x = np.array([-5, 5, -2**31, 0] * 4, dtype=np.int32)
    np.testing.assert_array_equal(run_unary(tl.abs, x, np.int32), np.abs(x))
    np.testing.assert_array_equal(run_unary(op_neg, x, np.int32), -x)

# ------------------------------------------------------------------ floats


def test_fp32_arith_and_minmax_nan():
    x = np.array([1.5, -2.0, np.nan, 3.0, 0.0, -0.0, np.inf, 7.25] * 2, dtype=np.float32)
    y = np.array([0.5, np.nan, 2.0, -3.0, 1.0, 2.0, 1.0, -1.5] * 2, dtype=np.float32)
    for op, ref in [(op_add, np.add), (op_mul, np.multiply), (op_div, np.divide),
                    # Python's floor remainder, as Triton computes it (not C's fmod).
                    (op_mod, lambda a, b: a - np.floor(a / b) * b),
                    (op_maximum, np.fmax), (op_minimum, np.fmin),
                    (op_maximum_propagate_nan, np.maximum), (op_minimum_propagate_nan, np.minimum)]:
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(run_binary(op, x, y, np.float32), ref(x, y))
    np.testing.assert_array_equal(run_binary(op_ne, x, y, np.int32), x != y)
    np.testing.assert_array_equal(run_binary(op_lt, x, y, np.int32), x < y)


def test_fp16_and_bf16_rounding_match_torch():
    a = torch.randn(64) * 100
    b = torch.randn(64) * 0.01
    for dt, npdt in [(torch.float16, np.float16)]:
        x, y = a.to(dt), b.to(dt)
        for op, ref in [(op_add, lambda p, q: p + q), (op_mul, lambda p, q: p * q), (op_sub, lambda p, q: p - q)]:
            got = run_binary(op, x.numpy(), y.numpy(), npdt)
            want = ref(x.float(), y.float()).to(dt).numpy()
            np.testing.assert_array_equal(got, want)
    xb, yb = a.bfloat16(), b.bfloat16()
    for op, ref in [(op_add, torch.add), (op_mul, torch.mul), (op_sub, torch.sub)]:
        z = torch.empty(64, dtype=torch.bfloat16)
        binary_kernel[(1,)](xb, yb, z, N=64, OP=op)
        assert torch.equal(z.view(torch.int16), ref(xb, yb).view(torch.int16))


# ------------------------------------------------------------------ casts


@jit
def to_float16(v):
    return v.to(tl.float16)


@jit
def to_bfloat16(v):
    return v.to(tl.bfloat16)


@jit
def to_bfloat16_rtz(v):
    return v.to(tl.bfloat16, fp_downcast_rounding="rtz")


@jit
def to_float32(v):
    return v.to(tl.float32)


@jit
def to_float64(v):
    return v.to(tl.float64)


@jit
def to_int8(v):
    return v.to(tl.int8)


@jit
def to_uint8(v):
    return v.to(tl.uint8)


@jit
def to_int32(v):
    return v.to(tl.int32)


@jit
def to_int64(v):
    return v.to(tl.int64)


@jit
def bitcast_to_int16(v):
    return v.to(tl.int16, bitcast=True)


@jit
def bitcast_to_int32(v):
    return v.to(tl.int32, bitcast=True)


@jit
def bitcast_to_bfloat16(v):
    return v.to(tl.bfloat16, bitcast=True)


@jit
def through_float8e4nv(v):
    return v.to(tl.float8e4nv).to(tl.float32)


@jit
def through_float8e4nv_rtz(v):
    return v.to(tl.float8e4nv, fp_downcast_rounding="rtz").to(tl.float32)


@jit
def through_float8e5(v):
    return v.to(tl.float8e5).to(tl.float32)


@jit
def float8e4nv_bits_to_float32(v):
    return v.to(tl.float8e4nv, bitcast=True).to(tl.float32)


@jit
def float8e5_bits_to_float32(v):
    return v.to(tl.float8e5, bitcast=True).to(tl.float32)


@jit
def float8e4nv_bits_round_trip(v):
    return v.to(tl.float8e4nv, bitcast=True).to(tl.uint8, bitcast=True)


def test_casts_match_torch():
    x = torch.cat([torch.randn(200) * 1000, torch.tensor([float("nan"), float("inf"), -float("inf"), 3.4e38,
                                                          -3.39e38, 1e-40, -1e-45, 65519.0, 65520.0, 0.0, -0.0,
                                                          1.00390625, 1.01171875, 2.0 ** -24, 2.0 ** -25,
                                                          3 * 2.0 ** -26]),
                   torch.randn(40)])
    n = x.numel()
    assert n == 256
    h = np.zeros(n, np.float16)
    bf = torch.empty(n, dtype=torch.bfloat16)
    unary_kernel[(1,)](x.numpy(), h, N=n, OP=to_float16)
    unary_kernel[(1,)](x, bf, N=n, OP=to_bfloat16)
    np.testing.assert_array_equal(h.view(np.uint16), x.half().numpy().view(np.uint16))
    got, want = bf.view(torch.int16), x.bfloat16().view(torch.int16)
    nan = torch.isnan(x)
    assert torch.equal(got[~nan], want[~nan])
    assert torch.isnan(bf[nan].float()).all()
    # rtz
    bz = torch.empty(n, dtype=torch.bfloat16)
    unary_kernel[(1,)](x, bz, N=n, OP=to_bfloat16_rtz)
    fin = torch.isfinite(x)
    trunc = (x.view(torch.int32) & ~0xFFFF).view(torch.float32)
    assert torch.equal(bz.float()[fin], trunc[fin])
    # fp16 -> fp32 -> bf16 chain and back
    back = np.zeros(n, np.float32)
    unary_kernel[(1,)](bf, back, N=n, OP=to_float32)
    assert torch.equal(torch.from_numpy(back)[~nan], bf.float()[~nan])


def test_float_to_int_saturates_and_int_to_float():
    x = np.array([1.9, -1.9, np.nan, 3e9, -3e9, np.inf, -np.inf, 2147483520.0] * 2, dtype=np.float32)
    got = run_unary(to_int32, x, np.int32)
    np.testing.assert_array_equal(got, [1, -1, 0, 2**31 - 1, -2**31, 2**31 - 1, -2**31, 2147483520] * 2)
    gu = run_unary(to_uint8, x, np.uint8)
    np.testing.assert_array_equal(gu, [1, 0, 0, 255, 0, 255, 0, 255] * 2)
    i = np.array([2**31 - 1, -2**31, 16777217, -3] * 4, dtype=np.int32)
    np.testing.assert_array_equal(run_unary(to_float32, i, np.float32), i.astype(np.float32))
    u = i.view(np.uint32)
    np.testing.assert_array_equal(run_unary(to_float64, u, np.float64), u.astype(np.float64))
    np.testing.assert_array_equal(run_unary(to_int64, i, np.int64), i.astype(np.int64))
    np.testing.assert_array_equal(run_unary(to_int64, u, np.int64), u.astype(np.int64))
    np.testing.assert_array_equal(run_unary(to_int8, i, np.int8), i.astype(np.int8))


def test_bitcast():
    x = np.array([1.0, -2.5, np.inf, 0.0] * 4, dtype=np.float32)
    np.testing.assert_array_equal(run_unary(bitcast_to_int32, x, np.int32), x.view(np.int32))
    b = torch.tensor([1.0, -2.5, 3.140625, 0.0] * 4, dtype=torch.bfloat16)
    z = np.zeros(16, np.int16)
    unary_kernel[(1,)](b, z, N=16, OP=bitcast_to_int16)
    np.testing.assert_array_equal(z, b.view(torch.int16).numpy())
    back = torch.empty(16, dtype=torch.bfloat16)
    unary_kernel[(1,)](z, back, N=16, OP=bitcast_to_bfloat16)
    assert torch.equal(back, b)


def test_fp8_conversions():
    vals = np.array([0.0, 1.0, -1.0, 448.0, 464.0, 465.0, 500.0, np.inf, np.nan, 2.0 ** -9, 2.0 ** -10,
                     0.1, 57344.0, 61439.0, 61440.0, 1e-7], dtype=np.float32)
    e4 = run_unary(through_float8e4nv, vals, np.float32)
    np.testing.assert_array_equal(e4[:5], [0.0, 1.0, -1.0, 448.0, 448.0])  # 464 ties to even -> 448
    # conversions saturate like the GPU's cvt.rn.satfinite: overflow and inf -> +-448; NaN stays NaN
    assert e4[5] == 448.0 and e4[6] == 448.0 and e4[7] == 448.0 and np.isnan(e4[8])
    assert e4[9] == 2.0 ** -9 and e4[10] == 0.0  # smallest subnormal 2^-9; 2^-10 ties to even (0)
    assert e4[11] == np.float32(0.1015625)
    e5 = run_unary(through_float8e5, vals, np.float32)
    assert e5[12] == 57344.0 and e5[13] == 57344.0 and e5[14] == 57344.0 and e5[7] == 57344.0
    ez = run_unary(through_float8e4nv_rtz, vals, np.float32)
    assert ez[6] == 448.0 and ez[11] == np.float32(0.09375)
    # bit patterns through memory and bitcast
    codes = np.arange(256, dtype=np.uint8)
    f = np.zeros(256, np.float32)
    unary_kernel[(1,)](codes, f, N=256, OP=float8e5_bits_to_float32)
    assert f[0x3C] == 1.0 and f[0x7B] == 57344.0 and np.isinf(f[0x7C]) and np.isnan(f[0x7E]) and f[0xBC] == -1.0
    rt = np.zeros(256, np.uint8)
    unary_kernel[(1,)](codes, rt, N=256, OP=float8e4nv_bits_round_trip)
    np.testing.assert_array_equal(rt, codes)
    g = np.zeros(256, np.float32)
    unary_kernel[(1,)](codes, g, N=256, OP=float8e4nv_bits_to_float32)
    assert g[0x7E] == 448.0 and np.isnan(g[0x7F]) and g[0x01] == 2.0 ** -9 and g[0x38] == 1.0


def test_math_functions_match_torch():
    x = (torch.randn(1024) * 2).numpy()
    ax = np.abs(x) + 0.1
    t = torch.from_numpy
    cases = [
        (tl.exp, torch.exp, x), (tl.log, torch.log, ax), (tl.sin, torch.sin, x), (tl.cos, torch.cos, x),
        (tl.sqrt, torch.sqrt, ax), (tl.rsqrt, torch.rsqrt, ax), (tl.erf, torch.erf, x),
        (tl.exp2, torch.exp2, x), (tl.log2, torch.log2, ax), (tl.floor, torch.floor, x),
        (tl.ceil, torch.ceil, x), (tl.math.tanh, torch.tanh, x), (tl.math.erfc, torch.erfc, x),
        (tl.math.lgamma, torch.lgamma, ax), (tl.math.expm1, torch.expm1, x), (tl.math.log1p, torch.log1p, ax),
        (tl.math.cbrt, lambda v: torch.sign(v) * v.abs() ** (1 / 3), x), (tl.math.exp10, lambda v: 10 ** v, x),
        (tl.math.trunc, torch.trunc, x), (tl.math.rint, torch.round, x), (tl.math.asinh, torch.asinh, x),
        (tl.sigmoid, torch.sigmoid, x),
    ]
    for f, ref, inp in cases:
        got = run_unary(f, inp, np.float32)
        want = ref(t(inp)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=str(f))
    r = run_unary(tl.math.round, np.array([0.5, 1.5, -0.5, -2.5, 2.4, -2.6, 0.0, 3.5] * 2, dtype=np.float32),
                  np.float32)
    np.testing.assert_array_equal(r, [1, 2, -1, -3, 2, -3, 0, 4] * 2)  # half away from zero
    y = np.abs(x) + 1
    for f, ref in [(tl.math.atan2, np.arctan2), (tl.math.pow, np.power), (tl.math.hypot, np.hypot),
                   (tl.math.fmod, np.fmod), (tl.math.copysign, np.copysign)]:
        with np.errstate(all="ignore"):
            want = ref(x, y)
        np.testing.assert_allclose(run_binary(f, x, y, np.float32), want, rtol=1e-5, atol=1e-6)
    g = run_unary(tl.math.tgamma, np.array([1.0, 5.0, 0.5, -1.0] * 4, np.float32), np.float32)
    np.testing.assert_allclose(g[:3], [1.0, 24.0, math.sqrt(math.pi)], rtol=1e-6)
    assert np.isnan(g[3])


@jit
def fma_plus_one(p, q):
    return tl.fma(p, q, 1.0)


@jit
def clamp_to_half(p, q):
    return tl.clamp(p, -0.5, 0.5)


@jit
def where_greater_else_double(p, q):
    return tl.where(p > q, p, q * 2)


@jit
def clamp_to_m3_5(p):
    return tl.clamp(p, -3, 5)


@jit
def where_positive_else_half(p):
    return tl.where(p > 0, p, 0.5)


def test_fma_clamp_where():
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    np.testing.assert_allclose(run_binary(fma_plus_one, a, b, np.float32),
                               (a.astype(np.float64) * b + 1).astype(np.float32), rtol=0, atol=0)
    np.testing.assert_array_equal(run_binary(clamp_to_half, a, b, np.float32), np.clip(a, -0.5, 0.5))
    np.testing.assert_array_equal(run_binary(where_greater_else_double, a, b, np.float32), np.where(a > b, a, b * 2))
    i = np.arange(64, dtype=np.int32) - 32
    np.testing.assert_array_equal(run_unary(clamp_to_m3_5, i, np.int32), np.clip(i, -3, 5))
    np.testing.assert_array_equal(run_unary(where_positive_else_half, i, np.float32), np.where(i > 0, i, 0.5))


def test_random_is_deterministic_and_uniform():
    @jit
    def k(Out, seed, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Out + offs, tl.rand(seed, offs))

    a = np.zeros(4096, np.float32)
    b = np.zeros(4096, np.float32)
    k[(1,)](a, 42, N=4096)
    k[(1,)](b, 42, N=4096)
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and a.max() < 1 and abs(a.mean() - 0.5) < 0.02


# ------------------------------------------------------------------ shapes


@jit
def permute_1_0(v):
    return tl.permute(v, (1, 0))


@jit
def join_plus_100(v):
    return tl.join(v, v + 100)


@jit
def split_second_half(v):
    return tl.split(tl.reshape(v, (4, 4, 2)))[1]


@jit
def cat_doubled(v):
    return tl.cat(v, v * 2, can_reorder=True)


@jit
def interleave_negated(v):
    return tl.interleave(v, -v)


@jit
def broadcast_twice(v):
    return tl.broadcast_to(tl.expand_dims(v, 0), (2, 4, 8))


@jit
def plus_row_sums(v):
    return tl.sum(v, axis=1, keep_dims=True) + v


def test_shape_ops():
    @jit
    def k(X, Out, OP: tl.constexpr):
        r = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
        x = tl.load(X + r)
        y = OP(x)
        n: tl.constexpr = y.numel
        flat = tl.reshape(y, (n,))
        tl.store(Out + tl.arange(0, n), flat)

    x = np.arange(32, dtype=np.float32)
    X = x.reshape(4, 8)

    def run(op, n):
        out = np.zeros(n, np.float32)
        k[(1,)](x, out, OP=op)
        return out
    np.testing.assert_array_equal(run(tl.trans, 32), X.T.reshape(-1))
    np.testing.assert_array_equal(run(permute_1_0, 32), X.T.reshape(-1))
    np.testing.assert_array_equal(run(join_plus_100, 64), np.stack([X, X + 100], -1).reshape(-1))
    np.testing.assert_array_equal(run(split_second_half, 16), X.reshape(4, 4, 2)[..., 1].reshape(-1))
    np.testing.assert_array_equal(run(cat_doubled, 64), np.concatenate([X, X * 2]).reshape(-1))
    np.testing.assert_array_equal(run(interleave_negated, 64), np.stack([X, -X], -1).reshape(4, 16).reshape(-1))
    np.testing.assert_array_equal(run(broadcast_twice, 64), np.broadcast_to(X, (2, 4, 8)).reshape(-1))
    np.testing.assert_array_equal(run(plus_row_sums, 32), (X.sum(1, keepdims=True) + X).reshape(-1))


def test_histogram_and_gather():
    @jit
    def hk(X, H, N: tl.constexpr, B: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(H + tl.arange(0, B), tl.histogram(x, B, mask=offs % 4 != 0))

    x = rng.integers(-2, 10, 64).astype(np.int32)
    h = np.zeros(8, np.int32)
    hk[(1,)](x, h, N=64, B=8)
    sel = (np.arange(64) % 4 != 0) & (x >= 0) & (x < 8)
    np.testing.assert_array_equal(h, np.bincount(x[sel], minlength=8)[:8])

    @jit
    def gk(X, I, Out):
        r = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
        x = tl.load(X + r)
        i = tl.load(I + r)
        tl.store(Out + r, tl.gather(x, i, 1))

    xs = rng.standard_normal(32).astype(np.float32)
    idx = rng.integers(0, 8, 32).astype(np.int32)
    out = np.zeros(32, np.float32)
    gk[(1,)](xs, idx, out)
    np.testing.assert_array_equal(out.reshape(4, 8), np.take_along_axis(xs.reshape(4, 8), idx.reshape(4, 8), 1))
