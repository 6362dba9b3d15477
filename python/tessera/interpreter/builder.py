"""InterpreterBuilder: the builder protocol computed with numpy, one program at a time.

Handles are numpy arrays (see numerics.py for the representation of each dtype); a handle of
a scalar language type is normally a 0-d array, but combine functions of reduce/scan receive
arrays of any shape under scalar types, so every elementwise op here works on arbitrary shapes
(numpy broadcasting) and never relies on the language type's shape.

Semantics chosen where LLVM and the GPU instruction sets leave things undefined (documented choices):
  * integer division or remainder by zero gives 0 (no trap); INT_MIN / -1 wraps to INT_MIN;
  * shl/lshr by >= the bit width give 0, ashr by >= the width fills with the sign bit;
  * fptosi/fptoui saturate to the target range and map NaN to 0 (like the GPUs' saturating conversions);
  * tl.dot computes float inputs in float32 (fp16/bf16/fp8 are upcast exactly) and fp64 in
    fp64, int8 in int32 (wrapping); input_precision (tf32 etc.) and max_num_imprecise_acc are
    ignored, i.e. the interpreter is at least as precise as 'ieee';
  * reductions with a builtin kind use numpy (sum: pairwise float32/float64; fp16/bf16/fp8 sums
    are computed in float32 and rounded once; max/min ignore NaN like maxnumf); argmax/argmin
    and custom combines (kind None) apply the combine in a pairwise tree over adjacent elements,
    the lower-index side as the first operand (so ties break toward the smallest index; with
    NaNs the result is what the combine gives in that order, as on the GPU where the order is
    that of the hardware reduction tree); custom scans are Hillis-Steele log-step scans
    (the combine must be associative; it need not be commutative);
  * transcendental functions are computed in float32 (or float64 for fp64, erf in float64)
    and rounded to the result type; approximate GPU ops (div.full, ex2.approx) are computed
    exactly here.
"""

import math as _pymath

import numpy as np

from ..language import core
from ..language.builder_protocol import BuilderProtocol
from .assign import interpreted_function
from . import hooks, numerics, source
from .numerics import (PtrArray, int_as, is_half, make_ptr, np_dtype, signed_view, storage_dtype, tag,
                       to_format, unsigned_view)


class BlockPtr:
    """The interpreter's handle of a block pointer (tl.make_block_ptr)."""

    __slots__ = ("base", "shape", "strides", "offsets", "order", "block_shape", "elt")

    def __init__(self, base, shape, strides, offsets, order, block_shape, elt):
        self.base = int(base)
        self.shape = [int(s) for s in shape]
        self.strides = [int(s) for s in strides]
        self.offsets = [int(o) for o in offsets]
        self.order = tuple(order)
        self.block_shape = tuple(block_shape)
        self.elt = elt

    def advanced(self, deltas):
        offs = [((o + d + 2**31) % 2**32) - 2**31 for o, d in zip(self.offsets, deltas)]  # int32 wrap
        return BlockPtr(self.base, self.shape, self.strides, offs, self.order, self.block_shape, self.elt)

    def __repr__(self):
        return (f"BlockPtr(base={self.base:#x}, shape={self.shape}, strides={self.strides}, "
                f"offsets={self.offsets}, block_shape={list(self.block_shape)}, order={self.order})")


def _a(h):
    """A handle as a plain ndarray (tags stripped)."""
    if isinstance(h, BlockPtr):
        raise TypeError("a block pointer cannot be used as a value here")
    return np.asarray(h)


def _cv(h, ty):
    """Handle `h` converted to the compute dtype of language type `ty` (signedness by `ty`)."""
    a = np.asarray(h)
    s = ty.scalar
    nd = np_dtype(s)
    if a.dtype == nd:
        return a
    if s.is_int() or s.is_ptr():
        return int_as(a, s) if s.is_int() else a.astype(np.int64)
    return a.astype(nd)


def _wrap(arr, ty):
    """Give a result the representation (tags) of language type `ty`."""
    s = ty.scalar
    if s.is_ptr():
        if isinstance(arr, BlockPtr):
            return arr
        return make_ptr(arr, s.element_ty)
    if s.is_fp8():
        return tag(arr, s)
    return np.asarray(arr)


def _bits(t):
    return t.primitive_bitwidth


# ---------------------------------------------------------------- extern functions

def _round_half_away(x):
    x = np.asarray(x)
    t = np.trunc(x)
    frac = np.abs(x - t)
    return np.where(frac >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _pyfunc(f, x):
    def safe(v):
        try:
            return f(v)
        except (ValueError, OverflowError):
            if f is _pymath.gamma:
                if v == int(v) and v <= 0:
                    return float("nan")
                return float("inf")
            if f is _pymath.lgamma:
                return float("inf")
            return float("nan")
    x = np.asarray(x)
    out = np.frompyfunc(safe, 1, 1)(x.astype(np.float64))
    return np.asarray(out, dtype=np.float64).astype(x.dtype)


# Python implementations of user library functions (tl.extern_elementwise), by symbol.
_USER_EXTERN = {}


def register_extern(symbol, fn):
    """Give the interpreter a Python implementation of `symbol` from a user bitcode library
    (tl.extern_elementwise): fn(*numpy_arrays) -> numpy array (elementwise)."""
    if not callable(fn):
        raise TypeError(f"register_extern: fn must be callable, got {fn!r}")
    _USER_EXTERN[str(symbol)] = fn


_EXTERN = {
    "exp10": lambda x: np.power(np.asarray(10.0, dtype=np.asarray(x).dtype), x),
    "erfc": lambda x: _pyfunc(_pymath.erfc, x),
    "lgamma": lambda x: _pyfunc(_pymath.lgamma, x),
    "tgamma": lambda x: _pyfunc(_pymath.gamma, x),
    "rint": np.rint,
    "round": _round_half_away,
    "cbrt": np.cbrt,
    "copysign": np.copysign,
    "nextafter": np.nextafter,
    "hypot": np.hypot,
    "fmod": np.fmod,
    "trunc": np.trunc,
    "pow": np.power,
    "atan2": np.arctan2,
}


def _erf(x):
    x = np.asarray(x)
    if x.size == 0:
        return x.copy()
    out = np.frompyfunc(_pymath.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(out, dtype=np.float64)


def _stable_order(A):
    """np.argsort(A, kind="stable"), by a radix sort of 16-bit keys when the addresses span few
    elements (a histogram's bins)."""
    lo, hi = int(A.min()), int(A.max())
    if hi - lo < (1 << 16):
        return np.argsort((A - lo).astype(np.uint16), kind="stable")
    return np.argsort(A, kind="stable")


# ---------------------------------------------------------------- the builder


class InterpreterBuilder(BuilderProtocol):
    def __init__(self, memory, grid, kernel_name="kernel"):
        self.memory = memory
        self.grid = tuple(grid)
        self.pid = (0, 0, 0)
        self.kernel_name = kernel_name
        self.profile_launch = None  # the profiler's record of this launch, while a session runs

    def host_side_effect(self, what):
        """Called before kernel code does something on the host per program (print,
        tl.static_print); the batched builder runs such kernels program by program."""

    def prof_record(self, name, is_end):
        """A profiler scope starts (is_end False) or ends in the running program: while a
        profiling session is active, the session's record of this launch gets the host wall time
        for this program (one track per program; kept while scopes are instrumented, as in
        compiled kernels); otherwise nothing happens."""
        if self.profile_launch is not None:
            self.profile_launch.scope(self.pid, name, is_end)

    # ------------------------------------------------------------ conversions to Python
    def tensor_to_bool(self, t):
        h = t.handle
        if isinstance(h, BlockPtr):
            return True
        a = np.asarray(h)
        if a.size != 1:
            raise ValueError(f"{source.location_prefix()}the truth value of a tensor of {a.size} elements is "
                             f"ambiguous (inside a combine function, use tl.where instead of `if`)")
        return bool(a.reshape(-1)[0])

    def tensor_to_python(self, t):
        h = t.handle
        if isinstance(h, BlockPtr):
            raise TypeError("a block pointer has no Python value")
        a = np.asarray(h)
        if a.size != 1:
            raise ValueError(f"{source.location_prefix()}cannot convert a tensor of {a.size} elements to a "
                             f"Python number")
        ty = t.dtype
        if ty.is_int():
            a = int_as(a, ty)
            return bool(a.reshape(-1)[0]) if ty.is_bool() else int(a.reshape(-1)[0])
        if ty.is_ptr():
            return int(a.reshape(-1)[0])
        return float(a.reshape(-1)[0])

    def call_jit_function(self, jit_fn, args, kwargs):
        fn = interpreted_function(jit_fn)
        source.register_code(fn.__code__)
        if not hooks.active():
            return fn(*args, **kwargs)
        filename, lineno = source.user_location()
        hooks.emit(hooks.CallRecord(self.kernel_name, self.pid, filename, lineno, jit_fn.__name__))
        out = fn(*args, **kwargs)
        hooks.emit(hooks.CallRecord(self.kernel_name, self.pid, filename, lineno, jit_fn.__name__, True))
        return out

    # ------------------------------------------------------------ constants and program ids
    def constant(self, value, ret_ty):
        t = ret_ty.scalar
        shape = ret_ty.shape if ret_ty.is_block() else ()
        value = core._unwrap(value)
        if t.is_ptr():
            return make_ptr(np.full(shape, int(value), dtype=np.int64), t.element_ty)
        if t.is_bool():
            return np.full(shape, bool(value), dtype=np.bool_)
        if t.is_int():
            bits = _bits(t)
            v = int(value) & ((1 << bits) - 1)
            u = np.full(shape, v, dtype=numerics._UNSIGNED[bits // 8])
            return u.view(np_dtype(t))
        v = float(value)
        if t.is_fp32():
            return np.full(shape, v, dtype=np.float32)
        if t.is_fp64():
            return np.full(shape, v, dtype=np.float64)
        return _wrap(to_format(np.full(shape, v, dtype=np.float64), t), t)

    def program_id(self, axis):
        return np.array(self.pid[axis], dtype=np.int32)

    def num_programs(self, axis):
        return np.array(self.grid[axis], dtype=np.int32)

    def global_scratch_alloc(self, nbytes, alignment, ret_ty):
        # Programs run one after another, so the n-th alloc of every program can share one
        # bounds-checked buffer; it is refilled with a pattern so that reading scratch
        # before writing it shows up as garbage, as it may on a GPU.
        if getattr(self, "_scratch_pid", None) != self.pid:
            self._scratch_pid = self.pid
            self._scratch_next = 0
        bufs = self.__dict__.setdefault("_scratch_bufs", [])
        i = self._scratch_next
        self._scratch_next += 1
        if i == len(bufs) or bufs[i][0].nbytes != nbytes:
            arr = np.empty(nbytes, dtype=np.uint8)
            base = self.memory.register(f"global scratch #{i}", arr, core.int8)
            if i == len(bufs):
                bufs.append((arr, base))
            else:
                bufs[i] = (arr, base)
        arr, base = bufs[i]
        arr.fill(0xA5)
        return make_ptr(np.array(base, dtype=np.int64), core.int8)

    # ------------------------------------------------------------ creation and shape
    def make_range(self, start, end, ret_ty):
        return np.arange(start, end, dtype=np.int32)

    def splat(self, h, ret_ty):
        a = _cv(h, ret_ty)
        if a.ndim == 0:
            return _wrap(np.full(ret_ty.shape, a, dtype=a.dtype), ret_ty)
        return _wrap(np.ascontiguousarray(np.broadcast_to(a, ret_ty.shape)), ret_ty)

    def broadcast(self, h, ret_ty):
        a = _cv(h, ret_ty)
        return _wrap(np.ascontiguousarray(np.broadcast_to(a, ret_ty.shape)), ret_ty)

    def expand_dims(self, h, axis, ret_ty):
        return _wrap(np.expand_dims(_a(h), axis), ret_ty)

    def reshape(self, h, ret_ty, can_reorder):
        return _wrap(np.reshape(_a(h), ret_ty.shape), ret_ty)

    def trans(self, h, order, ret_ty):
        return _wrap(np.ascontiguousarray(np.transpose(_a(h), order)), ret_ty)

    def join(self, a, b, ret_ty):
        return _wrap(np.stack([_cv(a, ret_ty), _cv(b, ret_ty)], axis=-1), ret_ty)

    def split(self, h, ret_ty):
        a = _cv(h, ret_ty)
        return _wrap(np.ascontiguousarray(a[..., 0]), ret_ty), _wrap(np.ascontiguousarray(a[..., 1]), ret_ty)

    def cat(self, a, b, ret_ty):
        return _wrap(np.concatenate([_cv(a, ret_ty), _cv(b, ret_ty)], axis=0), ret_ty)

    # ------------------------------------------------------------ elementwise
    _FLOAT_BIN = {
        "addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
        "precise_divf": np.divide, "remf": np.fmod, "maxnumf": np.fmax, "minnumf": np.fmin,
        "maximumf": np.maximum, "minimumf": np.minimum,
    }

    def binary(self, op, a, b, ret_ty):
        t = ret_ty.scalar
        with numerics.quiet():
            if op in self._FLOAT_BIN:
                f = self._FLOAT_BIN[op]
                if is_half(t):
                    r = f(np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32))
                    return _wrap(to_format(r, t), t)
                nd = np_dtype(t)
                return np.asarray(f(_cv(a, t), _cv(b, t))).astype(nd, copy=False)
            return np.asarray(self._int_binary(op, a, b, t))

    def _int_binary(self, op, a, b, t):
        if t.is_bool():
            A = np.asarray(a).astype(np.uint8) & np.uint8(1)
            B = np.asarray(b).astype(np.uint8) & np.uint8(1)
            r = self._int_binary_w(op, A, B, 1, np.dtype(np.uint8))
            return (np.asarray(r) & np.uint8(1)).astype(np.bool_)
        nd = np_dtype(t)
        A, B = int_as(a, t), int_as(b, t)
        return int_as(self._int_binary_w(op, A, B, _bits(t), nd), t)

    @staticmethod
    def _int_binary_w(op, A, B, bits, nd):
        if op == "addi":
            return A + B
        if op == "subi":
            return A - B
        if op == "muli":
            return A * B
        if op == "andi":
            return A & B
        if op == "ori":
            return A | B
        if op == "xori":
            return A ^ B
        if op in ("divsi", "remsi"):
            S, T = signed_view(A), signed_view(B)
            zero = T == 0
            neg1 = T == -1
            Ts = np.where(zero | neg1, 1, T).astype(T.dtype)
            r = np.fmod(S, Ts)
            if op == "remsi":
                return np.where(zero | neg1, 0, r).astype(S.dtype)
            q = (S - r) // Ts
            q = np.where(neg1, (np.zeros_like(S) - S), q)
            return np.where(zero, 0, q).astype(S.dtype)
        if op in ("divui", "remui"):
            U, V = unsigned_view(A), unsigned_view(B)
            zero = V == 0
            Vs = np.where(zero, 1, V).astype(V.dtype)
            r = (U // Vs) if op == "divui" else (U % Vs)
            return np.where(zero, 0, r).astype(U.dtype)
        if op in ("shli", "shrui", "shrsi"):
            U = unsigned_view(A)
            sh = unsigned_view(B)
            big = sh >= bits
            shc = np.where(big, 0, sh).astype(U.dtype)
            if op == "shli":
                return np.where(big, 0, U << shc).astype(U.dtype)
            if op == "shrui":
                return np.where(big, 0, U >> shc).astype(U.dtype)
            S = signed_view(A)
            shs = np.where(big, bits - 1, sh).astype(S.dtype)
            return (S >> shs).astype(S.dtype)
        if op in ("maxsi", "minsi"):
            S, T = signed_view(A), signed_view(B)
            return np.maximum(S, T) if op == "maxsi" else np.minimum(S, T)
        if op in ("maxui", "minui"):
            U, V = unsigned_view(A), unsigned_view(B)
            return np.maximum(U, V) if op == "maxui" else np.minimum(U, V)
        if op == "mulhiui":
            U, V = unsigned_view(A), unsigned_view(B)
            if bits <= 32:
                p = U.astype(np.uint64) * V.astype(np.uint64)
                return (p >> np.uint64(bits)).astype(U.dtype)
            m32 = np.uint64(0xFFFFFFFF)
            s32 = np.uint64(32)
            U, V = U.astype(np.uint64), V.astype(np.uint64)
            a_lo, a_hi = U & m32, U >> s32
            b_lo, b_hi = V & m32, V >> s32
            ll = a_lo * b_lo
            lh = a_lo * b_hi
            hl = a_hi * b_lo
            hh = a_hi * b_hi
            mid = (ll >> s32) + (lh & m32) + (hl & m32)
            return hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
        raise NotImplementedError(f"the interpreter has no integer op {op!r}")

    def unary(self, op, x, ret_ty):
        t = ret_ty.scalar
        with numerics.quiet():
            if op == "absi":
                return int_as(np.abs(signed_view(int_as(x, t))), t)
            if t.is_int():
                raise NotImplementedError(f"the interpreter has no integer unary op {op!r}")
            a = np.asarray(x)
            cd = np.float32 if is_half(t) else np_dtype(t)
            a = a.astype(cd)
            if op == "negf":
                r = -a
            elif op == "absf":
                r = np.abs(a)
            elif op == "exp":
                r = np.exp(a)
            elif op == "exp2":
                r = np.exp2(a)
            elif op == "log":
                r = np.log(a)
            elif op == "log2":
                r = np.log2(a)
            elif op in ("sqrt", "precise_sqrt"):
                r = np.sqrt(a)
            elif op == "rsqrt":
                r = (1.0 / np.sqrt(a.astype(np.float64))).astype(cd)
            elif op == "sin":
                r = np.sin(a)
            elif op == "cos":
                r = np.cos(a)
            elif op == "floor":
                r = np.floor(a)
            elif op == "ceil":
                r = np.ceil(a)
            elif op == "trunc":
                r = np.trunc(a)
            elif op == "tanh":
                r = np.tanh(a)
            elif op == "erf":
                r = _erf(a)
            else:
                raise NotImplementedError(f"the interpreter has no unary op {op!r}")
            return _wrap(to_format(r, t), t)

    def fma(self, a, b, c, ret_ty):
        t = ret_ty.scalar
        with numerics.quiet():
            if t.is_fp64():
                return _cv(a, t) * _cv(b, t) + _cv(c, t)
            r = (np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
                 + np.asarray(c, dtype=np.float64))
            return _wrap(to_format(r, t), t)

    _CMP = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater,
            "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater,
            "uge": np.greater_equal, "oeq": np.equal, "une": np.not_equal, "olt": np.less,
            "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal}

    def cmp(self, pred, a, b, ret_ty):
        f = self._CMP[pred]
        A, B = np.asarray(a), np.asarray(b)
        with numerics.quiet():
            if pred[0] in "ou":
                if pred[0] == "u" and pred != "une":
                    A, B = unsigned_view(A), unsigned_view(B)
                elif pred == "une" and A.dtype.kind != "f":
                    A, B = unsigned_view(A), unsigned_view(B)
            elif pred[0] == "s":
                A, B = signed_view(A), signed_view(B)
            else:  # eq / ne: bit equality
                if A.dtype.kind in "iub" and B.dtype.kind in "iub":
                    A, B = unsigned_view(A), unsigned_view(B)
            return np.asarray(f(A, B))

    def select(self, cond, a, b, ret_ty):
        c = np.asarray(cond, dtype=np.bool_)
        if isinstance(a, BlockPtr) or isinstance(b, BlockPtr):
            if c.size == 1:
                return a if bool(c.reshape(-1)[0]) else b
            raise TypeError("tl.where on block pointers needs a scalar condition")
        return _wrap(np.where(c, _cv(a, ret_ty), _cv(b, ret_ty)), ret_ty)

    def cast(self, op, x, ret_ty, rounding=None):
        t = ret_ty.scalar
        with numerics.quiet():
            if op == "extsi":
                a = np.asarray(x)
                if a.dtype == np.bool_:
                    return (-(a.astype(np.int8))).astype(np_dtype(t))
                return signed_view(a).astype(np_dtype(t))
            if op == "extui":
                return unsigned_view(np.asarray(x)).astype(np_dtype(t))
            if op == "trunci":
                a = np.asarray(x)
                if t.is_bool():
                    return (unsigned_view(a) & 1) != 0
                return a.astype(np_dtype(t))
            if op in ("sitofp", "uitofp"):
                a = np.asarray(x)
                a = signed_view(a) if op == "sitofp" else unsigned_view(a)
                if t.is_fp32() or t.is_fp64() or t.is_fp16():
                    return a.astype(np_dtype(t))
                return _wrap(to_format(a.astype(np.float64), t), t)
            if op in ("fptosi", "fptoui"):
                return self._fptoi(np.asarray(x), t, op == "fptosi")
            if op == "extf":
                return _wrap(np.asarray(x).astype(np_dtype(t)), t)
            if op == "truncf":
                return _wrap(to_format(np.asarray(x), t, "rtne"), t)
            if op == "fp_to_fp":
                return _wrap(to_format(np.asarray(x), t, rounding or "rtne"), t)
            if op == "bitcast":
                return self._bitcast(x, t)
            if op == "int_to_ptr":
                return make_ptr(np.asarray(x).astype(np.int64), t.element_ty)
            if op == "ptr_to_int":
                return np.asarray(x).astype(np.int64)
        raise NotImplementedError(f"the interpreter has no cast {op!r}")

    @staticmethod
    def _fptoi(a, t, signed):
        nd = np_dtype(t)
        if t.is_bool():
            return np.asarray(a) != 0
        bits = _bits(t)
        f = np.trunc(np.asarray(a, dtype=np.float64))
        f = np.where(np.isnan(f), 0.0, f)
        if signed:
            lo, hi = -(2.0 ** (bits - 1)), 2.0 ** (bits - 1)
            ilo, ihi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        else:
            lo, hi = 0.0, 2.0 ** bits
            ilo, ihi = 0, (1 << bits) - 1
        big = f >= hi
        small = f < lo
        mid = np.where(big | small, 0.0, f).astype(nd)
        return np.where(big, np.array(ihi, dtype=nd), np.where(small, np.array(ilo, dtype=nd), mid)).astype(nd)

    @staticmethod
    def _bitcast(x, t):
        if isinstance(x, PtrArray) and t.is_ptr():
            return make_ptr(np.asarray(x), t.element_ty)
        a = np.asarray(x)
        fmt = numerics.fmt_of_handle(x)
        if a.dtype.kind == "f":
            if fmt is not None:
                src = core.DTYPES_BY_NAME[fmt]
            elif a.dtype == np.float16:
                src = core.float16
            elif a.dtype == np.float64:
                src = core.float64
            elif t.primitive_bitwidth == 16:
                src = core.bfloat16
            elif t.primitive_bitwidth == 8:
                src = core.float8e4nv  # untagged fp8 value (should not happen)
            else:
                src = core.float32
            bits = numerics.bits_of(a, src)
        else:
            bits = unsigned_view(a)
        if t.is_ptr():
            return make_ptr(bits.view(np.int64), t.element_ty)
        if t.is_int():
            return int_as(bits, t)
        sd = storage_dtype(t)
        return _wrap(numerics.from_storage(bits.view(sd), t), t)

    def clampf(self, x, lo, hi, propagate_nan, ret_ty):
        t = ret_ty.scalar
        X, L, H = _cv(x, t), _cv(lo, t), _cv(hi, t)
        with numerics.quiet():
            if propagate_nan:
                r = np.minimum(np.maximum(X, L), H)
            else:
                r = np.fmin(np.fmax(X, L), H)
        return _wrap(np.asarray(r).astype(np_dtype(t)), t)

    # ------------------------------------------------------------ memory
    def addptr(self, ptr, offset, ret_ty):
        elt = ret_ty.scalar.element_ty
        isz = numerics.itemsize(elt)
        off = np.asarray(offset)
        p = np.asarray(ptr, dtype=np.int64)
        with numerics.quiet():
            res = off.astype(np.int64)  # a new array (wrapping int64 arithmetic in place below)
            if isz != 1:
                np.multiply(res, np.int64(isz), out=res)
            if res.shape == np.broadcast_shapes(res.shape, p.shape):
                np.add(res, p, out=res)
            else:
                res = p + res
            return make_ptr(res, elt)

    def _emit_access(self, cls, addrs, active, elt, block_ptr=False, op=None):
        filename, lineno = source.user_location()
        addrs = np.asarray(addrs, dtype=np.int64)
        mask = np.ones(addrs.shape, dtype=bool) if active is None else np.asarray(active, dtype=bool)
        flat = addrs.reshape(-1)[mask.reshape(-1)]
        isz = numerics.itemsize(elt)
        name, offs, misaligned = None, np.zeros(addrs.shape, dtype=np.int64), 0
        if flat.size:
            r = self.memory.region_of(flat[0])
            if r is not None:
                name = r.name
                offs = (addrs - r.base) // r.itemsize
                misaligned = int(((r.data_ptr + (flat - r.base)) % isz != 0).sum())
        nbytes = int(mask.sum()) * isz
        if cls is hooks.AtomicRecord:
            rec = cls(self.kernel_name, self.pid, filename, lineno, op, name, offs, mask, isz, nbytes, elt,
                      misaligned)
        else:
            rec = cls(self.kernel_name, self.pid, filename, lineno, name, offs, mask, isz, nbytes, elt,
                      block_ptr, misaligned)
        hooks.emit(rec)

    def _load(self, addrs, active, other, elt, ret_ty, block_ptr=False):
        addrs = np.asarray(addrs, dtype=np.int64)
        shape = addrs.shape
        sd = storage_dtype(elt)
        if hooks._CLIENTS:
            self._emit_access(hooks.LoadRecord, addrs, active, elt, block_ptr)
        if active is None:
            raw = self.memory.read(addrs.reshape(-1), sd, "load", self.pid)
            return _wrap(numerics.from_storage(raw, elt).reshape(shape), ret_ty)
        act = np.broadcast_to(np.asarray(active, dtype=np.bool_), shape).reshape(-1)
        raw = self.memory.read(addrs.reshape(-1)[act], sd, "load", self.pid)
        vals = numerics.from_storage(raw, elt)
        nd = np_dtype(elt)
        if other is None:
            out = np.zeros(shape, dtype=nd)
        else:
            out = np.array(np.broadcast_to(_cv(other, elt), shape), dtype=nd)
        flat = out.reshape(-1)
        flat[act] = vals
        return _wrap(flat.reshape(shape), ret_ty)

    def load(self, ptr, mask, other, ret_ty, cache, evict, volatile):
        elt = ret_ty.scalar
        return self._load(ptr, mask, other, elt, ret_ty)

    def _store(self, addrs, value, active, elt, block_ptr=False):
        addrs = np.asarray(addrs, dtype=np.int64)
        shape = addrs.shape
        if hooks._CLIENTS:
            self._emit_access(hooks.StoreRecord, addrs, active, elt, block_ptr)
        vals = np.broadcast_to(_cv(value, elt), shape).reshape(-1)
        flat = addrs.reshape(-1)
        if active is not None:
            act = np.broadcast_to(np.asarray(active, dtype=np.bool_), shape).reshape(-1)
            flat, vals = flat[act], vals[act]
        self.memory.write(flat, numerics.to_storage(vals, elt), "store", self.pid)

    def _ptr_elt(self, ptr):
        elt = getattr(ptr, "elt", None)
        if elt is None:  # an untagged pointer: use the argument's element type
            a = np.asarray(ptr, dtype=np.int64).reshape(-1)
            r = self.memory.region_of(a[0]) if a.size else None
            if r is None:
                raise TypeError("store through a pointer of unknown element type")
            elt = r.elt
        return elt

    def store(self, ptr, value, mask, cache, evict):
        self._store(ptr, value, mask, self._ptr_elt(ptr))

    def make_block_ptr(self, base, shape, strides, offsets, order, ret_ty):
        blk = ret_ty.element_ty
        return BlockPtr(int(np.asarray(base).reshape(-1)[0]),
                        [int(signed_view(np.asarray(s)).reshape(-1)[0]) for s in shape],
                        [int(signed_view(np.asarray(s)).reshape(-1)[0]) for s in strides],
                        [int(signed_view(np.asarray(s)).reshape(-1)[0]) for s in offsets],
                        order, blk.shape, blk.element_ty)

    def advance(self, ptr, offsets, ret_ty):
        return ptr.advanced([int(signed_view(np.asarray(o)).reshape(-1)[0]) for o in offsets])

    def _block_addrs(self, bp, boundary_check):
        isz = numerics.itemsize(bp.elt)
        rank = len(bp.block_shape)
        addrs = np.full(bp.block_shape, bp.base, dtype=np.int64)
        mask = None
        for d in range(rank):
            shp = [1] * rank
            shp[d] = bp.block_shape[d]
            idx = (bp.offsets[d] + np.arange(bp.block_shape[d], dtype=np.int64)).reshape(shp)
            addrs = addrs + idx * np.int64(bp.strides[d] * isz)
            if d in boundary_check:
                ok = (idx >= 0) & (idx < bp.shape[d])
                mask = ok if mask is None else (mask & ok)
        if mask is not None:
            mask = np.broadcast_to(mask, bp.block_shape)
        return addrs, mask

    def load_block(self, ptr, boundary_check, padding, ret_ty, cache, evict, volatile):
        bp = ptr
        addrs, mask = self._block_addrs(bp, boundary_check)
        other = None
        if mask is not None and padding == "nan":
            other = np.array(np.nan, dtype=np.float64)
            other = to_format(other, bp.elt) if bp.elt.is_floating() else None
        return self._load(addrs, mask, other, bp.elt, ret_ty, block_ptr=True)

    def store_block(self, ptr, value, boundary_check, cache, evict):
        bp = ptr
        addrs, mask = self._block_addrs(bp, boundary_check)
        self._store(addrs, value, mask, bp.elt, block_ptr=True)

    _RMW_NAMES = ("add", "fadd", "max", "min", "umax", "umin", "and", "or", "xor", "exch")

    def _atomic_apply(self, op, cur, v, elt):
        with numerics.quiet():
            if op == "fadd":
                if is_half(elt):
                    return to_format(cur.astype(np.float32) + v.astype(np.float32), elt)
                return cur + v
            if op == "add":
                return int_as(int_as(cur, elt) + int_as(v, elt), elt)
            if op in ("max", "min"):
                f = np.maximum if op == "max" else np.minimum
                if elt.is_floating():
                    return f(cur, v)
                return int_as(f(signed_view(cur), signed_view(v)), elt)
            if op in ("umax", "umin"):
                f = np.maximum if op == "umax" else np.minimum
                return int_as(f(unsigned_view(cur), unsigned_view(v)), elt)
            if op == "and":
                return int_as(cur, elt) & int_as(v, elt)
            if op == "or":
                return int_as(cur, elt) | int_as(v, elt)
            if op == "xor":
                return int_as(cur, elt) ^ int_as(v, elt)
            if op == "exch":
                return v
        raise NotImplementedError(f"the interpreter has no atomic op {op!r}")

    def _atomic(self, kind_op, ptr, val, mask, ret_ty, step):
        """Sequentially consistent atomics: lanes hitting one address apply in lane order."""
        elt = ret_ty.scalar
        addrs = np.asarray(ptr, dtype=np.int64)
        shape = addrs.shape
        nd = np_dtype(elt)
        if hooks._CLIENTS:
            self._emit_access(hooks.AtomicRecord, addrs, mask, elt, op=kind_op)
        flat = addrs.reshape(-1)
        lanes = None
        if mask is not None:
            m = np.broadcast_to(np.asarray(mask, dtype=np.bool_), shape).reshape(-1)
            if not m.all():
                lanes = np.flatnonzero(m)
        A = flat if lanes is None else flat[lanes]
        vals = [np.broadcast_to(_cv(v, elt), shape).reshape(-1) for v in val]
        if lanes is not None:
            vals = [v[lanes] for v in vals]
        old = self._rmw_lanes(A, vals, elt, kind_op, step)
        if lanes is None:
            out = old
        else:
            out = np.zeros(flat.size, dtype=nd)
            out[lanes] = old
        return _wrap(np.asarray(out, dtype=nd).reshape(shape), ret_ty)

    # Atomic ops that fold with a numpy ufunc over the values in the op's domain (to_domain),
    # exactly as _atomic_apply steps them: ints (associative and commutative) and fp32/fp64.
    _RMW_UFUNC = {"add": np.add, "max": np.maximum, "min": np.minimum, "umax": np.maximum,
                  "umin": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}

    @staticmethod
    def _rmw_domain(op, elt):
        """(to_domain, from_domain) for the ufunc fold of `op` on `elt`, or None."""
        if elt.is_floating():
            if elt.name in ("fp32", "fp64") and op in ("fadd", "max", "min"):
                return (lambda x: x), (lambda x: x)
            return None
        if not elt.is_int() or elt.is_bool():
            return None
        if op in ("max", "min"):
            return (lambda x: signed_view(int_as(x, elt))), (lambda x: int_as(x, elt))
        if op in ("umax", "umin"):
            return (lambda x: unsigned_view(int_as(x, elt))), (lambda x: int_as(x, elt))
        if op in ("add", "and", "or", "xor"):
            return (lambda x: int_as(x, elt)), (lambda x: int_as(x, elt))
        return None

    def _rmw_lanes(self, A, vals, elt, op, step):
        """Applies an atomic at the 1-D addresses `A` with per-lane operands `vals`, lanes hitting
        one address one after another in lane order; returns each lane's old value. Memory is
        read once (each distinct address) and written once; the sequence per address is computed
        by the cheapest exact method: a prefix sum for integer adds, a shift for exchanges, a
        ufunc accumulate per address or a step per rank (the k-th lane of every address at once)
        otherwise."""
        sd = storage_dtype(elt)
        nd = np_dtype(elt)
        n = A.size
        if n == 0:
            return np.zeros(0, dtype=nd)
        self.memory.check(A, sd.itemsize, "atomic", self.pid)
        order = _stable_order(A)
        sA = A[order]
        head = np.empty(n, dtype=bool)
        head[0] = True
        np.not_equal(sA[1:], sA[:-1], out=head[1:])
        if head.all():  # distinct addresses: one step
            cur = np.asarray(numerics.from_storage(self.memory.read(A, sd, "atomic", self.pid), elt))
            new = step(cur, vals)
            self.memory.write(A, numerics.to_storage(np.asarray(new), elt), "atomic", self.pid)
            return cur
        starts = np.flatnonzero(head)
        ends = np.append(starts[1:], n)
        sizes = ends - starts
        uA = sA[starts]
        init = np.asarray(numerics.from_storage(self.memory.read(uA, sd, "atomic", self.pid), elt))
        sv = [v[order] for v in vals]
        old_s = np.empty(n, dtype=nd)
        dom = self._rmw_domain(op, elt) if op in self._RMW_UFUNC or op == "fadd" else None
        if op == "add" and dom is not None:  # integer add (wrapping): a prefix sum per address
            to_d, from_d = dom
            x = to_d(sv[0])
            cs = np.cumsum(x, dtype=x.dtype)
            excl = cs - x
            gid = np.cumsum(head) - 1
            i0 = to_d(init)
            old_s[:] = from_d(i0[gid] + (excl - excl[starts][gid]))
            final = from_d(i0 + (cs[ends - 1] - excl[starts]))
        elif op == "exch":
            x = np.asarray(sv[0], dtype=nd)
            old_s[1:] = x[:-1]
            old_s[starts] = init
            final = x[ends - 1]
        elif dom is not None and len(starts) <= int(sizes.max()):  # few addresses: a fold per address
            to_d, from_d = dom
            f = self._RMW_UFUNC["add" if op == "fadd" else op]
            x, i0 = to_d(np.asarray(sv[0], dtype=nd)), to_d(init)
            final_d = np.empty(len(starts), dtype=x.dtype)
            old_d = np.empty(n, dtype=x.dtype)
            for g, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
                seg = np.empty(e - s + 1, dtype=x.dtype)
                seg[0] = i0[g]
                seg[1:] = x[s:e]
                acc = f.accumulate(seg, dtype=x.dtype)
                old_d[s:e] = acc[:-1]
                final_d[g] = acc[-1]
            old_s[:] = from_d(old_d)
            final = from_d(final_d)
        else:  # a step per rank: the r-th lane of every address that has one
            cur = init.copy()
            for r in range(int(sizes.max())):
                act = np.flatnonzero(sizes > r) if r else None
                idx = starts + r if act is None else starts[act] + r
                c = cur if act is None else cur[act]
                old_s[idx] = c
                new = np.asarray(step(c, [v[idx] for v in sv]))
                if act is None:
                    cur = np.asarray(new, dtype=cur.dtype)
                else:
                    cur[act] = new
            final = cur
        self.memory.write(uA, numerics.to_storage(np.asarray(final), elt), "atomic", self.pid)
        old = np.empty(n, dtype=nd)
        old[order] = old_s
        return old

    def atomic_rmw(self, op, ptr, val, mask, sem, scope, ret_ty):
        elt = ret_ty.scalar
        return self._atomic(op, ptr, [val], mask, ret_ty,
                            lambda cur, vs: self._atomic_apply(op, cur, vs[0], elt))

    def atomic_cas(self, ptr, cmp, val, sem, scope, ret_ty):
        elt = ret_ty.scalar

        def step(cur, vs):
            c, v = vs
            eq = numerics.bits_of(cur, elt) == numerics.bits_of(c, elt)
            return np.where(eq, v, cur)
        return self._atomic("cas", ptr, [cmp, val], None, ret_ty, step)

    # ------------------------------------------------------------ compute
    def dot(self, a, b, acc, input_precision, max_num_imprecise_acc, ret_ty):
        t = ret_ty.scalar
        A, B = np.asarray(a), np.asarray(b)
        if hooks._CLIENTS:
            filename, lineno = source.user_location()
            flops = 2 * int(np.prod(ret_ty.shape)) * A.shape[-1]
            hooks.emit(hooks.DotRecord(self.kernel_name, self.pid, filename, lineno, tuple(A.shape),
                                       tuple(B.shape), tuple(ret_ty.shape), A.dtype, B.dtype, t, flops))
        with numerics.quiet():
            if t.is_int():
                r = np.matmul(A.astype(np.int64), B.astype(np.int64)) + int_as(acc, t).astype(np.int64)
                return r.astype(np_dtype(t))
            if t.is_fp64():
                return np.matmul(A.astype(np.float64), B.astype(np.float64)) + _cv(acc, t)
            r = np.matmul(A.astype(np.float32), B.astype(np.float32)) + np.asarray(acc, dtype=np.float32)
            return _wrap(to_format(r, t), t)

    def _emit_reduce(self, cls, inputs, axis, kind, tys, reverse=None):
        filename, lineno = source.user_location()
        shape = tuple(np.asarray(inputs[0]).shape)
        dts = [t.scalar for t in tys]
        if cls is hooks.ScanRecord:
            hooks.emit(cls(self.kernel_name, self.pid, filename, lineno, shape, axis, kind, reverse, dts))
        else:
            hooks.emit(cls(self.kernel_name, self.pid, filename, lineno, shape, axis, kind, dts))

    @staticmethod
    def _arg_combine(kind):
        is_max = kind.startswith("argmax")
        left = kind.endswith("_left")

        def comb(L, R):
            v1, i1 = L
            v2, i2 = R
            better = (v1 > v2) if is_max else (v1 < v2)
            pick = better | ((v1 == v2) & (i1 < i2)) if left else better
            return [np.where(pick, v1, v2), np.where(pick, i1, i2)]
        return comb

    def _callback_combine(self, combine, tys):
        def comb(L, R):
            res = combine(list(L) + list(R))
            return [_cv(r, t) for r, t in zip(res, tys)]
        return comb

    @staticmethod
    def _tree_reduce(xs, axis, comb):
        xs = [np.moveaxis(x, axis, -1) for x in xs]
        while xs[0].shape[-1] > 1:
            n = xs[0].shape[-1]
            m = (n // 2) * 2
            left = [x[..., 0:m:2] for x in xs]
            right = [x[..., 1:m:2] for x in xs]
            res = comb(left, right)
            res = [np.broadcast_to(np.asarray(r).astype(x.dtype, copy=False), left[0].shape) for r, x in zip(res, xs)]
            if n != m:
                res = [np.concatenate([r, x[..., m:]], axis=-1) for r, x in zip(res, xs)]
            xs = res
        return [np.array(x[..., 0]) for x in xs]

    def reduce(self, inputs, axis, combine, ret_tys, kind):
        elts = [t.scalar for t in ret_tys]
        xs = [_cv(h, e) for h, e in zip(inputs, elts)]
        if hooks._CLIENTS:
            self._emit_reduce(hooks.ReduceRecord, xs, axis, kind, ret_tys)
        t = elts[0]
        with numerics.quiet():
            if kind == "sum":
                x = xs[0]
                if t.is_int():
                    r = np.add.reduce(x, axis=axis, dtype=np_dtype(t))
                elif is_half(t):
                    r = to_format(np.add.reduce(x.astype(np.float32), axis=axis), t)
                else:
                    r = np.add.reduce(x, axis=axis, dtype=np_dtype(t))
                return [_wrap(r, ret_tys[0])]
            if kind in ("max", "min"):
                x = xs[0]
                if t.is_floating():
                    f = np.fmax if kind == "max" else np.fmin
                else:
                    f = np.maximum if kind == "max" else np.minimum
                return [_wrap(f.reduce(x, axis=axis), ret_tys[0])]
            if kind == "xor_sum":
                return [_wrap(np.bitwise_xor.reduce(xs[0], axis=axis), ret_tys[0])]
            if kind in ("argmax", "argmax_left", "argmin", "argmin_left"):
                rs = self._tree_reduce(xs, axis, self._arg_combine(kind))
                return [_wrap(r, ty) for r, ty in zip(rs, ret_tys)]
            rs = self._tree_reduce(xs, axis, self._callback_combine(combine, elts))
            return [_wrap(r, ty) for r, ty in zip(rs, ret_tys)]

    def scan(self, inputs, axis, combine, reverse, ret_tys, kind):
        elts = [t.scalar for t in ret_tys]
        xs = [_cv(h, e) for h, e in zip(inputs, elts)]
        if hooks._CLIENTS:
            self._emit_reduce(hooks.ScanRecord, xs, axis, kind, ret_tys, reverse)
        if reverse:
            xs = [np.flip(x, axis) for x in xs]
        t = elts[0]
        with numerics.quiet():
            if kind in ("sum", "prod"):
                f = np.cumsum if kind == "sum" else np.cumprod
                x = xs[0]
                if t.is_int():
                    r = f(x, axis=axis, dtype=np_dtype(t))
                elif is_half(t):
                    r = to_format(f(x.astype(np.float32), axis=axis), t)
                else:
                    r = f(x, axis=axis, dtype=np_dtype(t))
                rs = [r]
            else:
                comb = self._callback_combine(combine, elts)
                ys = [np.moveaxis(x, axis, -1) for x in xs]
                n = ys[0].shape[-1]
                d = 1
                while d < n:
                    left = [y[..., :n - d] for y in ys]
                    right = [y[..., d:] for y in ys]
                    res = comb(left, right)
                    ys = [np.concatenate([y[..., :d], np.broadcast_to(np.asarray(r).astype(y.dtype, copy=False),
                                                                      right[0].shape)], axis=-1)
                          for y, r in zip(ys, res)]
                    d *= 2
                rs = [np.moveaxis(y, -1, axis) for y in ys]
        if reverse:
            rs = [np.flip(r, axis) for r in rs]
        return [_wrap(np.ascontiguousarray(r), ty) for r, ty in zip(rs, ret_tys)]

    @staticmethod
    def _histogram_lanes(v, bins, mask):
        """The values as int64 bin numbers and the lanes that count (in range and active)."""
        v = (signed_view(v) if v.dtype.kind != "u" else v).astype(np.int64) if v.dtype != np.uint64 else \
            np.where(v >= np.uint64(2**63), -1, v.astype(np.int64))
        sel = (v >= 0) & (v < bins)
        if mask is not None:
            sel &= np.asarray(mask, dtype=np.bool_)
        return v, sel

    def histogram(self, x, mask, ret_ty):
        bins = ret_ty.shape[0]
        v, sel = self._histogram_lanes(np.asarray(x), bins, mask)
        return np.bincount(v[sel].reshape(-1), minlength=bins)[:bins].astype(np.int32)

    def gather(self, src, index, axis, ret_ty):
        s = _cv(src, ret_ty)
        idx = signed_view(np.asarray(index)).astype(np.int64)
        n = s.shape[axis]
        bad = (idx < 0) | (idx >= n)
        if bad.any():
            i = np.unravel_index(int(np.argmax(bad)), idx.shape)
            raise IndexError(f"{source.location_prefix()}tl.gather in program {self.pid}: index "
                             f"{int(idx[i])} at position {tuple(int(j) for j in i)} is out of range for "
                             f"axis {axis} of size {n}")
        return _wrap(np.take_along_axis(s, idx, axis), ret_ty)

    def extern_elementwise(self, symbol, np_name, args, ret_ty, libname="", libpath="", pure=True):
        t = ret_ty.scalar
        if np_name is None:  # a user library (tl.extern_elementwise): its registered Python implementation
            f = _USER_EXTERN.get(symbol)
            if f is None:
                raise NotImplementedError(
                    f"{source.location_prefix()}the interpreter cannot run {symbol} of library '{libname}'"
                    f"{f' ({libpath})' if libpath else ''}; register a Python implementation with "
                    f"tessera.interpreter.register_extern({symbol!r}, fn) (fn takes and returns NumPy arrays)")
            nd = np_dtype(t)
            r = f(*[np.asarray(a) for a in args])
            return _wrap(np.broadcast_to(np.asarray(r).astype(nd), np.shape(args[0]) if args else ()), t)
        f = getattr(np, np_name, None)
        name = np_name
        if name in _EXTERN and (f is None or name in ("round",)):
            f = _EXTERN[name]
        if f is None:
            raise NotImplementedError(f"the interpreter has no implementation of {symbol} ({np_name})")
        nd = np_dtype(t)
        with numerics.quiet():
            r = f(*[np.asarray(a, dtype=nd) for a in args])
        return _wrap(np.asarray(r).astype(nd), t)

    def inline_asm(self, asm, constraints, args, ret_tys, is_pure, pack):
        raise NotImplementedError(f"{source.location_prefix()}inline assembly cannot run in the interpreter "
                                  f"(tl.inline_asm_elementwise); run on the GPU or provide a fallback")

    # ------------------------------------------------------------ hints and debugging
    def hint(self, h, kind, values, ret_ty):
        return h

    def device_print(self, prefix, handles, types, hex):
        msg = f"({self.pid[0]}, {self.pid[1]}, {self.pid[2]})"
        if prefix:
            msg += f" {prefix}"
        if not handles:
            print(msg)
        for h, ty in zip(handles, types):
            if isinstance(h, BlockPtr):
                print(f"{msg} {h!r}")
                continue
            a = np.asarray(h)
            s = ty.scalar
            if hex:
                if s.is_floating():
                    bits = numerics.bits_of(a, s)
                else:
                    bits = unsigned_view(int_as(a, s) if s.is_int() else a)
                w = max(2, bits.dtype.itemsize * 2)
                text = np.array2string(bits, formatter={"all": lambda v: f"0x{int(v):0{w}x}"}) \
                    if bits.ndim else f"0x{int(bits):0{w}x}"
            else:
                if s.is_int():
                    a = int_as(a, s)
                text = str(a)
            print(f"{msg} {text}")

    def device_assert(self, cond, msg, cond_ty):
        c = np.asarray(cond, dtype=np.bool_)
        if not c.all():
            where = ""
            if c.ndim:
                i = np.unravel_index(int(np.argmin(c)), c.shape)
                where = f" at index {tuple(int(j) for j in i)}"
            p = ", ".join(str(x) for x in self.pid)
            raise AssertionError(f"{source.location_prefix()}device assertion failed in program ({p}){where}: "
                                 f"{msg}")

    def assume(self, cond):
        # An assumption that does not hold is undefined behaviour in a compiled kernel (the
        # optimizer may rely on it); the interpreter reports it where it happens.
        if not bool(np.asarray(cond, dtype=np.bool_)):
            p = ", ".join(str(x) for x in self.pid)
            raise AssertionError(f"{source.location_prefix()}tl.assume: the assumed condition is false in "
                                 f"program ({p}) (undefined behaviour in a compiled kernel)")

    def barrier(self):
        pass
