"""Counter-based random numbers (Philox 4x32-10), deterministic per seed and offset."""

from . import core, semantic
from . import math as M
from .builtins import builtin
from .core import _unwrap

N_ROUNDS_DEFAULT = 10
PHILOX_KEY_A = 0x9E3779B9
PHILOX_KEY_B = 0xBB67AE85
PHILOX_ROUND_A = 0xD2511F53
PHILOX_ROUND_B = 0xCD9E8D57


def _u32(x):
    return semantic.cast(x, core.uint32) if semantic.to_tensor(x).dtype.primitive_bitwidth != 32 \
        else semantic.bitcast(x, core.uint32)


def _const(v, like):
    return semantic.full(like.shape, v, core.uint32) if like.shape else semantic.to_tensor(
        semantic.cast(semantic.to_tensor(v), core.uint32))


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    ra = _const(PHILOX_ROUND_A, c0)
    rb = _const(PHILOX_ROUND_B, c0)
    ka = PHILOX_KEY_A
    kb = PHILOX_KEY_B
    for _ in range(int(_unwrap(n_rounds))):
        _c0, _c2 = c0, c2
        c0 = semantic.xor_(semantic.xor_(semantic.umulhi(rb, _c2), c1), k0)
        c2 = semantic.xor_(semantic.xor_(semantic.umulhi(ra, _c0), c3), k1)
        c1 = semantic.mul(rb, _c2)
        c3 = semantic.mul(ra, _c0)
        k0 = semantic.add(k0, semantic.cast(semantic.to_tensor(ka), core.uint32))
        k1 = semantic.add(k1, semantic.cast(semantic.to_tensor(kb), core.uint32))
    return c0, c1, c2, c3


def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    seed = semantic.to_tensor(seed)
    if seed.shape:
        raise TypeError("the random seed must be a scalar")
    if not seed.dtype.is_int():
        raise TypeError(f"the random seed must be an integer, got {seed.dtype}")
    seed = semantic.cast(seed, core.uint64)
    seed_hi = semantic.cast(semantic.and_(semantic.shr(seed, 32), 0xFFFFFFFF), core.uint32)
    seed_lo = semantic.cast(semantic.and_(seed, 0xFFFFFFFF), core.uint32)
    c0, c1, c2, c3 = (_u32(c) for c in (c0, c1, c2, c3))
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@builtin
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four streams of random uint32 for each offset."""
    offset = semantic.to_tensor(offset)
    if not offset.dtype.is_int():
        raise TypeError(f"random offsets must be integers, got {offset.dtype}")
    offset = _u32(offset)
    zero = semantic.full(offset.shape, 0, core.uint32) if offset.shape else _u32(0)
    return philox(seed, offset, zero, zero, zero, n_rounds)


@builtin
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A random uint32 for each offset."""
    r, _, _, _ = randint4x(seed, offset, n_rounds)
    return r


def uint_to_uniform_float(x):
    """Map random uint32 to floats uniform in [0, 1)."""
    x = semantic.bitcast(x, core.int32)
    scale = 4.6566127342e-10
    x = semantic.where(semantic.compare("lt", x, 0), semantic.sub(semantic.minus(x), 1), x)
    return semantic.mul(x, scale)


@builtin
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Uniform floats in [0, 1), one per offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@builtin
def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return tuple(uint_to_uniform_float(i) for i in (i1, i2, i3, i4))


def _pair_uniform_to_normal(u1, u2):
    u1 = semantic.maximum(1.0e-7, u1)
    th = semantic.mul(6.283185307179586, u2)
    r = M.sqrt(semantic.mul(-2.0, M.log(u1)))
    return semantic.mul(r, M.cos(th)), semantic.mul(r, M.sin(th))


@builtin
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Standard normal floats, one per offset (Box-Muller)."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = _pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@builtin
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = _pair_uniform_to_normal(u1, u2)
    n3, n4 = _pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
