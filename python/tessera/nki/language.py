"""tessera.nki.language (`nl`): the core of AWS NKI's kernel language on Tessera's interpreter.

Each function here is built from tessera.language operations, so a kernel written with it runs on
the interpreter's core: its loads, stores, dots and reductions reach the same instrumentation
clients (Tracer, Sanitizer, RaceDetector, AccessMap) with the kernel's own source lines.

Supported: tensors in HBM (kernel arguments and `ndarray(..., buffer=shared_hbm)` outputs),
indexed with index tiles (`arange`, `mgrid`, `program_id` arithmetic), integers and constant
slices; `load`/`store` with masks; `affine_range`, `sequential_range`, `static_range`;
elementwise math and comparisons (operators on tiles, and the functions below); reductions over
axes (`sum`, `max`, `min`, `mean`, `prod` is not); `matmul` (with `transpose_x`), `transpose`;
`zeros`/`ones`/`full`, `where`, `copy` (dtype casts). Tiles are tessera.language tensors.
What NKI has and this does not — writing into SBUF tiles with `t[...] = v`, `nl.par_dim`,
`nisa.*` instructions, `nl.atomic_*`, `nl.gather_flattened` — is not provided: using it is an
AttributeError naming it.
"""

import builtins as _py
import numbers
import operator

import numpy as np

from .. import language as tl
from ..language import core
from . import _runtime
from ._tensor import Tensor, _Access  # noqa: F401 (nl.Tensor is the HBM tensor type)

# ---------------------------------------------------------------- buffers and dtypes


class _Buffer:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nl.{self.name}"


shared_hbm = _Buffer("shared_hbm")
hbm = _Buffer("hbm")
private_hbm = _Buffer("private_hbm")
sbuf = _Buffer("sbuf")
psum = _Buffer("psum")
_HBM = (shared_hbm, hbm, private_hbm)

float32 = np.float32
float16 = np.float16
int32 = np.int32
int16 = np.int16
int8 = np.int8
uint8 = np.uint8
uint32 = np.uint32
bool_ = np.bool_
try:  # NKI spells it nl.bfloat16; numpy has none, tessera.language's stands in
    bfloat16 = core.bfloat16
except AttributeError:  # pragma: no cover
    pass


def tl_dtype(dtype):
    """A tessera.language dtype for an NKI, numpy, torch or tessera dtype."""
    if isinstance(dtype, core.dtype):
        return dtype
    t = type(dtype)
    if t.__module__.startswith("torch"):
        from ..interpreter import numerics
        m = numerics.torch_dtype_map()
        if dtype in m:
            return m[dtype]
        raise TypeError(f"torch dtype {dtype} is not supported by tessera.nki")
    from ..interpreter import numerics
    try:
        return numerics.numpy_to_tl(np.dtype(dtype))
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype tessera.nki knows (nl.float32, nl.float16, "
                        f"nl.bfloat16, nl.int32, ..., a numpy or torch dtype)") from None


# ---------------------------------------------------------------- indices


def arange(*args):
    """Indices 0..n-1 (or start..stop-1) as a 1-D tile: index tiles are made with [:, None] and
    [None, :] (partition and free dimensions)."""
    if len(args) == 1:
        start, stop = 0, args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        raise TypeError("nl.arange takes (stop) or (start, stop)")
    return tl.arange(int(start), int(stop))


class _Grid:
    """The result of nl.mgrid[...]: one index tile per dimension, broadcastable against each
    other (`i.p` and `i.x` for the first two, or unpacked: `i_p, i_f = nl.mgrid[...]`)."""

    def __init__(self, tiles):
        self._tiles = tiles

    def __iter__(self):
        return iter(self._tiles)

    def __len__(self):
        return len(self._tiles)

    def __getitem__(self, i):
        return self._tiles[i]

    @property
    def p(self):
        return self._tiles[0]

    @property
    def x(self):
        if len(self._tiles) < 2:
            raise AttributeError("nl.mgrid over one dimension has no .x")
        return self._tiles[1]


class _MGrid:
    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        n = len(key)
        tiles = []
        for d, s in enumerate(key):
            if not isinstance(s, slice) or s.step not in (None, 1):
                raise TypeError(f"nl.mgrid takes slices start:stop with step 1, got {s!r}")
            start = 0 if s.start is None else int(s.start)
            idx = tl.arange(start, int(s.stop))
            for e in range(n):
                if e != d:
                    idx = tl.expand_dims(idx, e)
            tiles.append(idx)
        return _Grid(tiles)


mgrid = _MGrid()


def affine_range(*args):
    """A loop whose iterations are independent (NKI may run them in any order): a range here."""
    return range(*(int(a) for a in args))


def sequential_range(*args):
    """A loop whose iterations depend on each other: a range."""
    return range(*(int(a) for a in args))


def static_range(*args):
    """A loop unrolled at trace time: a range."""
    return range(*(int(a) for a in args))


def program_id(axis):
    """The id of this program (the SPMD instance) along `axis` of the launch grid."""
    return tl.program_id(axis)


def num_programs(axis=None):
    """The launch grid's size along `axis`."""
    return tl.num_programs(0 if axis is None else axis)


# ---------------------------------------------------------------- tensors in HBM


def _access(x, what):
    if isinstance(x, Tensor):
        return x[...]
    if isinstance(x, _Access):
        return x
    raise TypeError(f"nl.{what} takes a tensor in HBM, indexed (t[i_p, i_f]), got {type(x).__name__}")


def load(src, mask=None, dtype=None, **kwargs):
    """The tile of `src` (an indexed HBM tensor); elements where `mask` is false read as 0."""
    _no_extras("load", kwargs)
    a = _access(src, "load")
    a.check(mask, "load")
    value = tl.load(a.ptr, mask=mask, other=0 if mask is not None else None)
    return value.to(tl_dtype(dtype)) if dtype is not None else value


def store(dst, value, mask=None, **kwargs):
    """Stores `value` (converted to dst's dtype, broadcast to the access's shape) where `mask`."""
    _no_extras("store", kwargs)
    a = _access(dst, "store")
    a.check(mask, "store")
    if not isinstance(value, core.tensor):
        value = tl.full((), value, a.tensor.dtype)
    tl.store(a.ptr, value.to(a.tensor.dtype), mask=mask)


def _no_extras(what, kwargs):
    if kwargs:
        raise TypeError(f"nl.{what}: arguments {sorted(kwargs)} are not supported by tessera.nki")


def ndarray(shape, dtype, buffer=None, name=None, **kwargs):
    """A new tensor. In HBM (buffer=nl.shared_hbm / hbm / private_hbm): the kernel's output, made
    once per launch (every program gets the same one) and returned to the caller. On chip
    (nl.sbuf, nl.psum): a tile of zeros (NKI leaves it undefined)."""
    _no_extras("ndarray", kwargs)
    if buffer in _HBM:
        return _runtime.output(tuple(int(s) for s in shape), tl_dtype(dtype), name)
    return zeros(shape, dtype, buffer)


def zeros(shape, dtype, buffer=None, **kwargs):
    _no_extras("zeros", kwargs)
    if buffer in _HBM:
        raise ValueError("nl.zeros in HBM: make the output with nl.ndarray(..., buffer=nl.shared_hbm) and "
                         "store zeros into it")
    return tl.full(tuple(int(s) for s in shape), 0, tl_dtype(dtype))


def ones(shape, dtype, buffer=None, **kwargs):
    return full(shape, 1, dtype, buffer, **kwargs)


def full(shape, fill_value, dtype, buffer=None, **kwargs):
    _no_extras("full", kwargs)
    return tl.full(tuple(int(s) for s in shape), fill_value, tl_dtype(dtype))


def zeros_like(a, dtype=None, buffer=None):
    return zeros(a.shape, a.dtype if dtype is None else dtype, buffer)


def copy(x, dtype=None, **kwargs):
    """x, converted to `dtype` when given."""
    _no_extras("copy", kwargs)
    return x.to(tl_dtype(dtype)) if dtype is not None else x + 0


# ---------------------------------------------------------------- elementwise


def _t(x):
    return x if isinstance(x, core.tensor) else tl.full((), x, core.float32) if isinstance(x, float) else x


def _cast(result, dtype):
    return result.to(tl_dtype(dtype)) if dtype is not None else result


def _binary(op, name):
    def fn(x, y, dtype=None, **kwargs):
        _no_extras(name, kwargs)
        return _cast(op(x, y), dtype)
    fn.__name__ = name
    return fn


add = _binary(operator.add, "add")
subtract = _binary(operator.sub, "subtract")
multiply = _binary(operator.mul, "multiply")
divide = _binary(operator.truediv, "divide")
maximum = _binary(lambda x, y: tl.maximum(_t(x), _t(y)), "maximum")
minimum = _binary(lambda x, y: tl.minimum(_t(x), _t(y)), "minimum")
power = _binary(lambda x, y: tl.math.pow(_float(x), _float(y)), "power")
equal = _binary(operator.eq, "equal")
not_equal = _binary(operator.ne, "not_equal")
greater = _binary(operator.gt, "greater")
greater_equal = _binary(operator.ge, "greater_equal")
less = _binary(operator.lt, "less")
less_equal = _binary(operator.le, "less_equal")
logical_and = _binary(operator.and_, "logical_and")
logical_or = _binary(operator.or_, "logical_or")


def _float(x):
    x = _t(x)
    if isinstance(x, core.tensor) and not x.dtype.is_floating():
        return x.to(core.float32)
    return x


def _unary(op, name):
    def fn(x, dtype=None, **kwargs):
        _no_extras(name, kwargs)
        return _cast(op(_float(x)), dtype)
    fn.__name__ = name
    return fn


exp = _unary(tl.exp, "exp")
log = _unary(tl.log, "log")
sqrt = _unary(tl.sqrt, "sqrt")
rsqrt = _unary(tl.rsqrt, "rsqrt")
sin = _unary(tl.sin, "sin")
cos = _unary(tl.cos, "cos")
tanh = _unary(tl.math.tanh, "tanh")
abs = _unary(tl.abs, "abs")
negative = _unary(lambda x: -x, "negative")
reciprocal = _unary(lambda x: 1.0 / x, "reciprocal")
square = _unary(lambda x: x * x, "square")
sigmoid = _unary(lambda x: 1.0 / (1.0 + tl.exp(-x)), "sigmoid")
relu = _unary(lambda x: tl.maximum(x, 0.0), "relu")
gelu_apprx_tanh = _unary(lambda x: 0.5 * x * (1.0 + tl.math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))),
                         "gelu_apprx_tanh")
silu = _unary(lambda x: x / (1.0 + tl.exp(-x)), "silu")


def where(condition, x, y, dtype=None):
    return _cast(tl.where(condition, _t(x), _t(y)), dtype)


# ---------------------------------------------------------------- reductions


def _axes(x, axis):
    if axis is None:
        return list(range(len(x.shape)))
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    n = len(x.shape)
    out = sorted({int(a) % n for a in axes})
    return out


def _reduce(fn, name):
    def reduce(x, axis, dtype=None, keepdims=False, **kwargs):
        _no_extras(name, kwargs)
        x = _t(x)
        # highest axis first, so the lower axes keep their numbers
        for a in reversed(_axes(x, axis)):
            x = fn(x, a)
            if keepdims:
                x = tl.expand_dims(x, a)
        return _cast(x, dtype)
    reduce.__name__ = name
    return reduce


sum = _reduce(lambda x, a: tl.sum(x, axis=a), "sum")
max = _reduce(lambda x, a: tl.max(x, axis=a), "max")
min = _reduce(lambda x, a: tl.min(x, axis=a), "min")


def mean(x, axis, dtype=None, keepdims=False, **kwargs):
    x = _float(x)
    count = 1
    for a in _axes(x, axis):
        count *= x.shape[a]
    return _cast(sum(x, axis, keepdims=keepdims, **kwargs) / float(count), dtype)


# ---------------------------------------------------------------- matrices


def transpose(x, dtype=None, **kwargs):
    """The transpose of a 2-D tile."""
    _no_extras("transpose", kwargs)
    if len(x.shape) != 2:
        raise ValueError(f"nl.transpose takes a 2-D tile, got shape {list(x.shape)}")
    return _cast(tl.trans(x), dtype)


def matmul(x, y, transpose_x=False, **kwargs):
    """x @ y (x transposed first when transpose_x, NKI's stationary layout), accumulated in fp32:
    a float32 tile."""
    _no_extras("matmul", kwargs)
    if transpose_x:
        x = tl.trans(x)
    if len(x.shape) != 2 or len(y.shape) != 2 or x.shape[1] != y.shape[0]:
        raise ValueError(f"nl.matmul: shapes {list(x.shape)} and {list(y.shape)} do not multiply"
                         + (" (after transposing x)" if transpose_x else ""))
    return tl.dot(x, y, out_dtype=core.float32)


def __getattr__(name):
    raise AttributeError(f"tessera.nki.language has no '{name}': it implements the core of NKI's language "
                         f"(see its docstring); NKI's nl.{name} is not provided")


del _py
