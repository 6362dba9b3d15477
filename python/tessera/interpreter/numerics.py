"""Exact numerics of the interpreter: dtype maps, rounding to narrow float formats, storage codecs.

Representation of values (the "compute" arrays that are the interpreter's handles):

  int1                 numpy bool
  int8..int64          numpy int8..int64;  uint8..uint64: numpy uint8..uint64
                       (a handle's signedness may differ from its language type after a
                       same-width integer cast; every op reinterprets by the type it is given)
  fp16                 numpy float16 (arithmetic computes in float32 and rounds once)
  bf16                 numpy float32 holding exactly representable bf16 values
  fp8e4nv / fp8e5      numpy float32 holding exactly representable values, tagged with the
  fp8e4b8 / fp8e5b16   ndarray subclasses Fp8E4Array / Fp8E5Array / Fp8E4B8Array /
                       Fp8E5B16Array (so a bitcast knows the format)
  fp32 / fp64          numpy float32 / float64
  pointers             PtrArray (int64 virtual addresses, tagged with the element type)

In memory bf16 is its 16-bit pattern and fp8 its 8-bit pattern.

Rounding choices (documented):
  * every narrowing conversion rounds once from the exact (float64) value: 'rtne' is
    round-to-nearest-even, 'rtz' round-toward-zero;
  * bf16/fp16 (IEEE, with infinities): rtne overflow -> +-inf, rtz overflow -> +-max;
  * fp8e4nv (OCP E4M3FN: no infinities, max 448, NaN = 0x7f/0xff) and fp8e5 (E5M2, max 57344):
    conversions saturate like the GPU's cvt.rn.satfinite: values beyond the largest finite value
    and +-inf become +-max; NaN stays NaN.
  * fp8e4b8 / fp8e5b16 (the FNUZ formats E4M3FNUZ, max 240, and E5M2FNUZ, max 57344, of AMD
    CDNA3: no infinities, no negative zero, one NaN = 0x80) saturate the same way; -0 becomes +0.
  * NaN stays NaN (quiet) in every conversion.
"""

import contextlib

import numpy as np

from ..language import core

# np.errstate(all="ignore") costs two np.seterr calls; a run loop (run_programs) sets it once for
# the whole launch and raises this depth, so that the ops inside it skip their own.
_QUIET_DEPTH = [0]
_NULL_CONTEXT = contextlib.nullcontext()


def quiet():
    """A context ignoring numpy's floating-point warnings (the interpreter's numerics are exact by
    construction): np.errstate(all="ignore"), or nothing inside a run loop that set it already."""
    return _NULL_CONTEXT if _QUIET_DEPTH[0] else np.errstate(all="ignore")


@contextlib.contextmanager
def quiet_run():
    """np.errstate(all="ignore") for a whole run loop; the ops inside skip their own."""
    with quiet():
        _QUIET_DEPTH[0] += 1
        try:
            yield
        finally:
            _QUIET_DEPTH[0] -= 1

# ------------------------------------------------------------------ tagged arrays


class Fp8E4Array(np.ndarray):
    """float32 values that are exactly representable fp8e4nv numbers."""


class Fp8E5Array(np.ndarray):
    """float32 values that are exactly representable fp8e5 numbers."""


class Fp8E4B8Array(np.ndarray):
    """float32 values that are exactly representable fp8e4b8 (E4M3FNUZ) numbers."""


class Fp8E5B16Array(np.ndarray):
    """float32 values that are exactly representable fp8e5b16 (E5M2FNUZ) numbers."""


_FP8_TAGS = {"fp8e4nv": Fp8E4Array, "fp8e5": Fp8E5Array, "fp8e4b8": Fp8E4B8Array, "fp8e5b16": Fp8E5B16Array}


class PtrArray(np.ndarray):
    """int64 virtual addresses; `.elt` is the pointee's language dtype."""

    def __array_finalize__(self, obj):
        self.elt = getattr(obj, "elt", None)


def make_ptr(addrs, elt):
    out = np.asarray(addrs, dtype=np.int64).view(PtrArray)
    out.elt = elt
    return out


# ------------------------------------------------------------------ dtype maps

_COMPUTE = {
    "int1": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "fp8e4nv": np.float32, "fp8e5": np.float32, "fp8e4b8": np.float32, "fp8e5b16": np.float32,
    "fp8e4b15": np.uint8, "fp16": np.float16, "bf16": np.float32,
    "fp32": np.float32, "fp64": np.float64,
}
_STORAGE = {
    "int1": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "fp8e4nv": np.uint8, "fp8e5": np.uint8, "fp8e4b8": np.uint8, "fp8e5b16": np.uint8, "fp8e4b15": np.uint8, "fp16": np.float16, "bf16": np.uint16,
    "fp32": np.float32, "fp64": np.float64,
}
_SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


_COMPUTE_DT = {k: np.dtype(v) for k, v in _COMPUTE.items()}
_STORAGE_DT = {k: np.dtype(v) for k, v in _STORAGE.items()}
_INT64 = np.dtype(np.int64)


def np_dtype(ty):
    """The numpy dtype of a handle of language type `ty` (scalar, block or pointer)."""
    ty = ty.scalar
    if ty.is_ptr():
        return _INT64
    return _COMPUTE_DT[ty.name]


def storage_dtype(ty):
    if ty.is_ptr():
        return _INT64
    return _STORAGE_DT[ty.name]


def itemsize(ty):
    """Bytes of one element of scalar type `ty` in memory."""
    if ty.is_ptr():
        return 8
    return np.dtype(_STORAGE[ty.name]).itemsize


def signed_view(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return a.astype(np.int8)
    if a.dtype.kind == "u":
        return a.view(_SIGNED[a.dtype.itemsize])
    return a


def unsigned_view(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    if a.dtype.kind == "i":
        return a.view(_UNSIGNED[a.dtype.itemsize])
    return a


def int_as(a, ty):
    """Reinterpret/convert integer array `a` as the numpy dtype of integer type `ty`."""
    a = np.asarray(a)
    nd = np_dtype(ty)
    if a.dtype == nd:
        return a
    if nd == np.bool_:
        return a != 0
    if a.dtype == np.bool_:
        return a.astype(nd)
    if a.dtype.kind in "iu" and a.dtype.itemsize == nd.itemsize:
        return a.view(nd)
    return a.astype(nd)


# ------------------------------------------------------------------ rounding

# (mantissa bits, minimum normal exponent, max finite, has infinities)
FORMATS = {
    "fp16": (10, -14, 65504.0, True),
    "bf16": (7, -126, float(np.float32(3.3895313892515355e38)), True),
    "fp32": (23, -126, float(np.finfo(np.float32).max), True),
    "fp8e4nv": (3, -6, 448.0, False),
    "fp8e5": (2, -14, 57344.0, True),
    "fp8e4b8": (3, -7, 240.0, False),
    "fp8e5b16": (2, -15, 57344.0, False),
}


# fp8 conversions saturate to the largest finite value, as the GPU's cvt.rn.satfinite does (the
# instruction Triton and Tessera use for fp8 on sm_89+); NaN stays NaN.
SATURATING = ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16")
FP8_FORMATS = SATURATING
# Formats without a negative zero (FNUZ): -0 rounds to +0.
_UNSIGNED_ZERO = ("fp8e4b8", "fp8e5b16")


def round_float(x, fmt, rounding="rtne"):
    """Round float values `x` to format `fmt` (see FORMATS); returns float64 values."""
    mbits, emin, maxv, has_inf = FORMATS[fmt]
    x = np.asarray(x, dtype=np.float64)
    with quiet():
        ax = np.abs(x)
        _, e = np.frexp(ax)
        e = np.maximum(e.astype(np.int64) - 1, emin)
        scale = np.ldexp(1.0, (mbits - e))
        m = ax * scale
        r = np.trunc(m) if rounding == "rtz" else np.rint(m)
        y = r / scale
        finite = np.isfinite(ax)
        over = finite & (y > maxv)
        if rounding == "rtz" or fmt in SATURATING:
            y = np.where(over, maxv, y)
        else:
            y = np.where(over, np.inf, y)
        if fmt in SATURATING:
            y = np.where(np.isinf(ax), maxv, y)
        else:
            y = np.where(np.isinf(ax), np.inf, y)
        y = np.where(np.isnan(ax), np.nan, y)
        y = np.copysign(y, x)
        if fmt in _UNSIGNED_ZERO:
            y = np.where(y == 0, 0.0, y)
        return y


def round_bf16_f32(x, rounding="rtne"):
    """float32 -> bf16 values (as float32), from the bits (fast path); NaN stays (quiet) NaN."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    with quiet():
        if rounding == "rtz":
            out = bits & np.uint32(0xFFFF0000)
        else:
            lsb = (bits >> np.uint32(16)) & np.uint32(1)
            out = (bits + np.uint32(0x7FFF) + lsb) & np.uint32(0xFFFF0000)
        out = np.where(np.isnan(x), (bits | np.uint32(0x00400000)) & np.uint32(0xFFFF0000), out)
    return np.asarray(out, dtype=np.uint32).view(np.float32)


def to_format(x, ty, rounding="rtne"):
    """Convert float array `x` (any float dtype) to the compute representation of float type `ty`."""
    name = ty.scalar.name
    x = np.asarray(x)
    with quiet():
        if name == "fp32":
            if x.dtype == np.float64 and rounding == "rtz":
                return round_float(x, "fp32", "rtz").astype(np.float32)
            return x.astype(np.float32)
        if name == "fp64":
            return x.astype(np.float64)
        if name == "fp16":
            if rounding == "rtz":
                return round_float(x, "fp16", "rtz").astype(np.float16)
            if x.dtype == np.float64:
                # one rounding from the exact value (float64 -> float16 in numpy rounds directly)
                return x.astype(np.float16)
            return x.astype(np.float16)
        if name == "bf16":
            if x.dtype in (np.float32, np.float16):
                return round_bf16_f32(x.astype(np.float32), rounding)
            return round_float(x, "bf16", rounding).astype(np.float32)
        if name in _FP8_TAGS:
            return round_float(x, name, rounding).astype(np.float32).view(_FP8_TAGS[name])
    raise TypeError(f"not a floating-point type: {ty}")


def is_half(ty):
    """Types computed in float32 and rounded after each op."""
    return ty.scalar.name in ("fp16", "bf16") + FP8_FORMATS


def tag(arr, ty):
    """Give a float32 array the fp8 tag of `ty` (no-op for other types)."""
    tagged = _FP8_TAGS.get(ty.scalar.name)
    if tagged is not None:
        return np.asarray(arr, dtype=np.float32).view(tagged)
    return arr


def fmt_of_handle(h):
    """'fp8e4nv'/'fp8e5'/'fp8e4b8'/'fp8e5b16' for tagged fp8 handles, else None."""
    for name, tagged in _FP8_TAGS.items():
        if isinstance(h, tagged):
            return name
    return None


# ------------------------------------------------------------------ fp8 tables


def _fp8_table(ebits, mbits, bias, e4m3fn, fnuz=False):
    codes = np.arange(256, dtype=np.int64)
    s = codes >> 7
    e = (codes >> mbits) & ((1 << ebits) - 1)
    m = codes & ((1 << mbits) - 1)
    val = np.where(e == 0, np.ldexp(m / (1 << mbits), 1 - bias), np.ldexp(1 + m / (1 << mbits), e - bias))
    if fnuz:  # every code finite but 0x80, the one NaN
        val = np.where(codes == 0x80, np.nan, val)
    elif e4m3fn:
        val = np.where((e == (1 << ebits) - 1) & (m == (1 << mbits) - 1), np.nan, val)
    else:
        val = np.where((e == (1 << ebits) - 1) & (m == 0), np.inf, val)
        val = np.where((e == (1 << ebits) - 1) & (m != 0), np.nan, val)
    val = np.where(s == 1, -val, val)
    return val.astype(np.float32)


FP8_DECODE = {
    "fp8e4nv": _fp8_table(4, 3, 7, True),
    "fp8e5": _fp8_table(5, 2, 15, False),
    "fp8e4b8": _fp8_table(4, 3, 8, False, fnuz=True),
    "fp8e5b16": _fp8_table(5, 2, 16, False, fnuz=True),
}
# positive non-NaN codes 0..n in increasing value order (codes 0x00.. are monotonic)
_FP8_POS = {k: v[:128][~np.isnan(v[:128])] for k, v in FP8_DECODE.items()}
_FP8_NAN = {"fp8e4nv": 0x7F, "fp8e5": 0x7E, "fp8e4b8": 0x80, "fp8e5b16": 0x80}


def fp8_encode(vals, name):
    """Exactly representable float values -> uint8 codes (rounds first, to be safe)."""
    v = round_float(vals, name, "rtne")
    av = np.abs(v)
    pos = _FP8_POS[name]
    code = np.searchsorted(pos, np.where(np.isnan(av), 0, av)).astype(np.uint8)
    code = np.where(np.isnan(av), np.uint8(_FP8_NAN[name]), code)
    sign = np.signbit(v)
    if name in _UNSIGNED_ZERO:
        sign &= av != 0
    return (code | np.where(sign, np.uint8(0x80), np.uint8(0))).astype(np.uint8)


def fp8_decode(codes, name):
    return FP8_DECODE[name][np.asarray(codes, dtype=np.uint8).astype(np.intp)]


# ------------------------------------------------------------------ storage codecs


def to_storage(vals, ty):
    """Compute-representation array -> numpy array of the storage dtype (same shape)."""
    name = ty.name if not ty.is_ptr() else "ptr"
    v = np.asarray(vals)
    if name == "ptr":
        return v.astype(np.int64)
    if name == "bf16":
        f = v.astype(np.float32)
        f = round_bf16_f32(f)
        return (f.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    if name in FP8_FORMATS:
        return fp8_encode(v, name)
    if name == "int1":
        return (v != 0).astype(np.uint8)
    sd = storage_dtype(ty)
    if v.dtype == sd:
        return v
    if sd.kind in "iu" and v.dtype.kind in "iu" and v.dtype.itemsize == sd.itemsize:
        return v.view(sd)
    with quiet():
        return v.astype(sd)


def from_storage(raw, ty):
    """Storage-dtype array -> compute representation."""
    if ty.is_ptr():
        return np.asarray(raw, dtype=np.int64)
    name = ty.name
    if name == "bf16":
        return (np.asarray(raw).astype(np.uint32) << np.uint32(16)).view(np.float32)
    if name in FP8_FORMATS:
        return tag(fp8_decode(raw, name), ty)
    if name == "int1":
        return np.asarray(raw) != 0
    return np.asarray(raw)


def bits_of(vals, ty):
    """The bit pattern of values of float type `ty` as an unsigned integer array."""
    st = to_storage(vals, ty)
    return st.view(_UNSIGNED[st.dtype.itemsize])


# ------------------------------------------------------------------ host dtypes

def torch_dtype_map():
    try:
        import torch
    except ImportError:  # pragma: no cover
        return {}
    m = {
        torch.float32: core.float32, torch.float16: core.float16, torch.bfloat16: core.bfloat16,
        torch.float64: core.float64, torch.int8: core.int8, torch.int16: core.int16,
        torch.int32: core.int32, torch.int64: core.int64, torch.uint8: core.uint8,
        torch.bool: core.int1,
    }
    for tname, tl_ty in (("float8_e4m3fn", core.float8e4nv), ("float8_e5m2", core.float8e5),
                         ("float8_e4m3fnuz", core.float8e4b8), ("float8_e5m2fnuz", core.float8e5b16),
                         ("uint16", core.uint16), ("uint32", core.uint32), ("uint64", core.uint64)):
        t = getattr(torch, tname, None)
        if t is not None:
            m[t] = tl_ty
    return m


_NUMPY_TO_TL = {
    np.dtype(np.bool_): core.int1, np.dtype(np.int8): core.int8, np.dtype(np.int16): core.int16,
    np.dtype(np.int32): core.int32, np.dtype(np.int64): core.int64, np.dtype(np.uint8): core.uint8,
    np.dtype(np.uint16): core.uint16, np.dtype(np.uint32): core.uint32, np.dtype(np.uint64): core.uint64,
    np.dtype(np.float16): core.float16, np.dtype(np.float32): core.float32,
    np.dtype(np.float64): core.float64,
}


def numpy_to_tl(dt):
    dt = np.dtype(dt)
    if dt not in _NUMPY_TO_TL:
        raise TypeError(f"numpy dtype {dt} has no tessera.language equivalent")
    return _NUMPY_TO_TL[dt]
