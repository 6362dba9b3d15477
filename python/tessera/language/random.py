"""Counter-based random numbers (Philox 4x32-10), deterministic per seed and offset."""

from . import core, semantic
from . import math as M
from .builtins import builtin
from .core import _unwrap

N_ROUNDS_DEFAULT = 10
# Philox round multipliers and key increments (Salmon et al., "Parallel random numbers: as easy as
# 1, 2, 3", the Random123 constants): 4x32 for 32-bit counters, 4x64 for 64-bit ones.
PHILOX_KEY_A = 0x9E3779B9
PHILOX_KEY_B = 0xBB67AE85
PHILOX_ROUND_A = 0xD2511F53
PHILOX_ROUND_B = 0xCD9E8D57
PHILOX64_KEY_A = 0x9E3779B97F4A7C15
PHILOX64_KEY_B = 0xBB67AE8584CAA73B
PHILOX64_ROUND_A = 0xD2E7470EE14C6C93
PHILOX64_ROUND_B = 0xCA5A826395121157


def _word(x, ty):
    """x as the counter word type `ty` (uint32/uint64): a bitcast at the same width, else a cast."""
    x = semantic.to_tensor(x)
    if x.dtype.primitive_bitwidth == ty.primitive_bitwidth:
        return semantic.bitcast(x, ty)
    return semantic.cast(x, ty)


def _const(v, like, ty):
    return semantic.full(like.shape, v, ty) if like.shape else semantic.cast(semantic.to_tensor(v), ty)


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds over the counter (c0..c3) with the key (k0, k1); the words are all
    uint32 (Philox4x32) or all uint64 (Philox4x64)."""
    ty = semantic.to_tensor(c0).dtype
    wide = ty.primitive_bitwidth == 64
    ra = _const(PHILOX64_ROUND_A if wide else PHILOX_ROUND_A, c0, ty)
    rb = _const(PHILOX64_ROUND_B if wide else PHILOX_ROUND_B, c0, ty)
    ka = semantic.cast(semantic.to_tensor(PHILOX64_KEY_A if wide else PHILOX_KEY_A), ty)
    kb = semantic.cast(semantic.to_tensor(PHILOX64_KEY_B if wide else PHILOX_KEY_B), ty)
    for _ in range(int(_unwrap(n_rounds))):
        _c0, _c2 = c0, c2
        c0 = semantic.xor_(semantic.xor_(semantic.umulhi(rb, _c2), c1), k0)
        c2 = semantic.xor_(semantic.xor_(semantic.umulhi(ra, _c0), c3), k1)
        c1 = semantic.mul(rb, _c2)
        c3 = semantic.mul(ra, _c0)
        k0 = semantic.add(k0, ka)
        k1 = semantic.add(k1, kb)
    return c0, c1, c2, c3


def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox over counters of 32-bit integers (Philox4x32: the seed's two halves are the key) or of
    64-bit integers (Philox4x64: the seed is the first key word), as the counters' width says."""
    seed = semantic.to_tensor(seed)
    if seed.shape:
        raise TypeError("the random seed must be a scalar")
    if not seed.dtype.is_int():
        raise TypeError(f"the random seed must be an integer, got {seed.dtype}")
    width = semantic.to_tensor(c0).dtype.primitive_bitwidth
    if width not in (32, 64):
        raise TypeError(f"philox counters must be 32- or 64-bit integers, got {semantic.to_tensor(c0).dtype}")
    seed = semantic.cast(seed, core.uint64)
    if width == 64:
        ty = core.uint64
        key_lo, key_hi = seed, semantic.cast(semantic.to_tensor(0), core.uint64)
    else:
        ty = core.uint32
        key_hi = semantic.cast(semantic.and_(semantic.shr(seed, 32), 0xFFFFFFFF), core.uint32)
        key_lo = semantic.cast(semantic.and_(seed, 0xFFFFFFFF), core.uint32)
    c0, c1, c2, c3 = (_word(c, ty) for c in (c0, c1, c2, c3))
    return philox_impl(c0, c1, c2, c3, key_lo, key_hi, n_rounds)


@builtin
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four streams of random integers for each offset: uint32 for offsets of up to 32 bits,
    uint64 for 64-bit offsets (Philox4x64)."""
    offset = semantic.to_tensor(offset)
    if not offset.dtype.is_int():
        raise TypeError(f"random offsets must be integers, got {offset.dtype}")
    ty = core.uint64 if offset.dtype.primitive_bitwidth == 64 else core.uint32
    offset = _word(offset, ty)
    zero = semantic.full(offset.shape, 0, ty) if offset.shape else _word(0, ty)
    return philox(seed, offset, zero, zero, zero, n_rounds)


@builtin
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A random uint32 (uint64 for 64-bit offsets) for each offset."""
    r, _, _, _ = randint4x(seed, offset, n_rounds)
    return r


def uint_to_uniform_float(x):
    """Map random 32- or 64-bit integers to float32 uniform in [0, 1)."""
    x = semantic.to_tensor(x)
    if not x.dtype.is_int() or x.dtype.primitive_bitwidth not in (32, 64):
        raise TypeError(f"uint_to_uniform_float expects 32- or 64-bit integers, got {x.dtype}")
    if x.dtype.primitive_bitwidth == 64:
        x = semantic.bitcast(x, core.int64)
        scale = 1.0842020432385337e-19  # the largest with (2**63 - 1) * scale < 1 in float32
    else:
        x = semantic.bitcast(x, core.int32)
        scale = 4.6566127342e-10  # the largest with (2**31 - 1) * scale < 1 in float32
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
