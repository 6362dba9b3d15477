"""The builtin functions of the kernel language (tl.load, tl.sum, tl.dot, …)."""

import builtins as _py

from . import core, semantic
from .core import _unwrap, constexpr, tensor

# Every function here is marked so the front end can tell builtins from user code.
BUILTINS = {}


def builtin(fn):
    fn.__tessera_builtin__ = True
    BUILTINS[fn.__name__] = fn
    return fn


def _tensors(*xs):
    return [semantic.to_tensor(x) for x in xs]

# ----------------------------------------------------------- program and creation


@builtin
def program_id(axis):
    return semantic.program_id(axis)


@builtin
def num_programs(axis):
    return semantic.num_programs(axis)


@builtin
def arange(start, end):
    return semantic.arange(start, end)


@builtin
def full(shape, value, dtype):
    return semantic.full(shape, value, dtype)


@builtin
def zeros(shape, dtype):
    return semantic.full(shape, 0, dtype)


@builtin
def zeros_like(input):
    input = semantic.to_tensor(input)
    return semantic.full(input.shape, 0, input.dtype)


@builtin
def full_like(input, value):
    input = semantic.to_tensor(input)
    return semantic.full(input.shape, value, input.dtype)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    if _unwrap(bitcast):
        return semantic.bitcast(input, dtype)
    return semantic.cast(input, dtype, _unwrap(fp_downcast_rounding))

# ----------------------------------------------------------- shapes


def _shape_args(shape):
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
        return tuple(_unwrap(shape[0]))
    return shape


@builtin
def broadcast(input, other):
    a, b = _tensors(input, other)
    return semantic.broadcast_values(a, b)


@builtin
def broadcast_to(input, *shape):
    return semantic.broadcast_to(input, _shape_args(shape))


@builtin
def expand_dims(input, axis):
    return semantic.expand_dims(input, axis)


@builtin
def reshape(input, *shape, can_reorder=False):
    return semantic.reshape(input, _shape_args(shape), _unwrap(can_reorder))


@builtin
def view(input, *shape):
    return semantic.reshape(input, _shape_args(shape), True)


@builtin
def trans(input, *dims):
    dims = _shape_args(dims)
    return semantic.permute(input, tuple(_unwrap(d) for d in dims) if dims else None)


@builtin
def permute(input, *dims):
    dims = _shape_args(dims)
    return semantic.permute(input, tuple(_unwrap(d) for d in dims))


@builtin
def join(a, b):
    return semantic.join(a, b)


@builtin
def split(a):
    return semantic.split(a)


@builtin
def interleave(a, b):
    return semantic.interleave(a, b)


@builtin
def cat(input, other, can_reorder=False):
    return semantic.cat(input, other, can_reorder)

# ----------------------------------------------------------- memory


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    return semantic.load(pointer, mask, other, boundary_check, padding_option, cache_modifier,
                         eviction_policy, volatile)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    return semantic.store(pointer, value, mask, boundary_check, cache_modifier, eviction_policy)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    return semantic.make_block_ptr(base, shape, strides, offsets, block_shape, order)


@builtin
def advance(base, offsets):
    return semantic.advance(base, offsets)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """A tensor descriptor (tl.tensor_descriptor) of the tensor at `base` (a scalar pointer) with
    `shape` and `strides` (in elements; the last stride must be the constant 1), loading and
    storing blocks of `block_shape` (constexpr powers of 2, at least 16 bytes along the last
    dimension). Elements outside the shape read as 0 (padding_option="zero") or NaN ("nan") and
    are not written. Needs no global scratch memory (no tessera.set_allocator)."""
    return semantic.make_tensor_descriptor(base, shape, strides, block_shape, padding_option)


@builtin
def load_tensor_descriptor(desc, offsets):
    """desc.load(offsets): the block of the descriptor at element `offsets` (one per dimension)."""
    return semantic.descriptor_load(desc, offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value):
    """desc.store(offsets, value): writes `value` (of the block's shape) at element `offsets`."""
    return semantic.descriptor_store(desc, offsets, value)


def _atomic(op):
    def fn(pointer, val, mask=None, sem=None, scope=None):
        return semantic.atomic_rmw(op, pointer, val, mask, sem, scope)
    fn.__name__ = f"atomic_{op}"
    fn.__qualname__ = fn.__name__
    fn.__doc__ = f"Atomic {op}: returns the old values."
    return builtin(fn)


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    return semantic.atomic_cas(pointer, cmp, val, sem, scope)

# ----------------------------------------------------------- elementwise


@builtin
def where(condition, x, y):
    return semantic.where(condition, x, y)


@builtin
def minimum(x, y, propagate_nan=semantic.PROPAGATE_NAN_NONE):
    return semantic.minimum(x, y, propagate_nan)


@builtin
def maximum(x, y, propagate_nan=semantic.PROPAGATE_NAN_NONE):
    return semantic.maximum(x, y, propagate_nan)


@builtin
def clamp(x, min, max, propagate_nan=semantic.PROPAGATE_NAN_NONE):
    return semantic.clamp(x, min, max, propagate_nan)


@builtin
def fma(x, y, z):
    return semantic.fma(x, y, z)


@builtin
def umulhi(x, y):
    return semantic.umulhi(x, y)


@builtin
def fdiv(x, y, ieee_rounding=False):
    return semantic.fdiv(x, y, ieee_rounding)


@builtin
def div_rn(x, y):
    return semantic.div_rn(x, y)


@builtin
def cdiv(x, div):
    xv, dv = _unwrap(x), _unwrap(div)
    if not isinstance(xv, tensor) and not isinstance(dv, tensor):
        return constexpr((xv + dv - 1) // dv)
    return semantic.floordiv(semantic.sub(semantic.add(x, div), 1), div)


@builtin
def sigmoid(x):
    x = semantic.to_tensor(x)
    return semantic.truediv(1.0, semantic.add(1.0, semantic.math_unary("exp", semantic.minus(x))))


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    x = semantic.to_tensor(x)
    d = 0 if _unwrap(dim) is None else dim
    z = semantic.sub(x, max(x, d, keep_dims=True))
    num = semantic.math_unary("exp", z)
    den = sum(num, d, keep_dims=True)
    return semantic.fdiv(num, den, ieee_rounding)


@builtin
def ravel(x, can_reorder=False):
    x = semantic.to_tensor(x)
    return semantic.reshape(x, (x.numel,), can_reorder)


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j

# ----------------------------------------------------------- dot


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=core.float32):
    return semantic.dot(input, other, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)

# ----------------------------------------------------------- reductions and scans


def _sum_dtype(in_dtype, dtype):
    dtype = _unwrap(dtype)
    if dtype is not None:
        return dtype
    if in_dtype.is_int_signed() and in_dtype.int_bitwidth < 32:
        return core.int32
    if in_dtype.is_int_unsigned() and in_dtype.int_bitwidth < 32:
        return core.uint32
    return None


def _add_combine(a, b):
    return a + b


def _mul_combine(a, b):
    return a * b


def _xor_combine(a, b):
    return a ^ b


def _max_combine(a, b):
    return semantic.maximum(a, b)


def _min_combine(a, b):
    return semantic.minimum(a, b)


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    inputs = list(input) if isinstance(input, (tuple, list)) else [input]
    return semantic.reduction(inputs, axis, _as_callable(combine_fn), keep_dims, None, "reduce")


def _as_callable(fn):
    fn = _unwrap(fn)
    device_callable = getattr(fn, "as_device_callable", None)  # a @jit function
    if device_callable is not None:
        return device_callable()
    if not callable(fn):
        raise TypeError(f"combine_fn must be a function, got {fn!r}")
    return fn


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    input = semantic.to_tensor(input)
    dt = _sum_dtype(input.dtype, dtype)
    if dt is not None:
        input = semantic.cast(input, dt)
    return semantic.reduction([input], axis, _add_combine, keep_dims, "sum", "sum")


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    input = semantic.to_tensor(input)
    if not input.dtype.is_int():
        raise TypeError(f"xor_sum needs integers, got {input.dtype}")
    return semantic.reduction([input], axis, _xor_combine, keep_dims, "xor_sum", "xor_sum")


def _bool_to_int8(x):
    return semantic.cast(x, core.int8) if x.dtype.is_bool() else x


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    input = _bool_to_int8(semantic.to_tensor(input))
    if _unwrap(return_indices):
        return _arg_reduce(input, axis, True, _unwrap(return_indices_tie_break_left), keep_dims, True)
    return semantic.reduction([input], axis, _max_combine, keep_dims, "max", "max")


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    input = _bool_to_int8(semantic.to_tensor(input))
    if _unwrap(return_indices):
        return _arg_reduce(input, axis, False, _unwrap(return_indices_tie_break_left), keep_dims, True)
    return semantic.reduction([input], axis, _min_combine, keep_dims, "min", "min")


def _arg_combine(is_max, tie_break_left):
    def combine(v1, i1, v2, i2):
        if is_max:
            better = v1 > v2
        else:
            better = v1 < v2
        if tie_break_left:
            tie = semantic.logical_and(v1 == v2, i1 < i2)
            pick = semantic.logical_or(better, tie)
        else:
            pick = better
        return semantic.where(pick, v1, v2), semantic.where(pick, i1, i2)
    return combine


def _arg_reduce(input, axis, is_max, tie_break_left, keep_dims, return_values):
    input = _bool_to_int8(semantic.to_tensor(input))
    axis = _unwrap(axis)
    if axis is None:
        input = semantic.reshape(input, (input.numel,), False)
        axis = 0
    ax = semantic._norm_axis(axis, len(input.shape), "argmax" if is_max else "argmin")
    n = input.shape[ax]
    idx = semantic.arange(0, n)
    if len(input.shape) > 1:
        shape = [1] * len(input.shape)
        shape[ax] = n
        idx = semantic.reshape(idx, shape)
        idx = semantic.broadcast_to_shape(idx, input.shape)
    kind = ("argmax" if is_max else "argmin") + ("_left" if tie_break_left else "")
    v, i = semantic.reduction([input, idx], ax, _arg_combine(is_max, tie_break_left), keep_dims, kind,
                              "argmax" if is_max else "argmin")
    return (v, i) if return_values else i


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, True, _unwrap(tie_break_left), keep_dims, False)


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, False, _unwrap(tie_break_left), keep_dims, False)


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    inputs = list(input) if isinstance(input, (tuple, list)) else [input]
    return semantic.scan(inputs, axis, _as_callable(combine_fn), reverse, None, "associative_scan")


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    input = semantic.to_tensor(input)
    dt = _sum_dtype(input.dtype, dtype)
    if dt is not None:
        input = semantic.cast(input, dt)
    return semantic.scan([input], axis, _add_combine, reverse, "sum", "cumsum")


@builtin
def cumprod(input, axis=0, reverse=False):
    input = semantic.to_tensor(input)
    return semantic.scan([input], axis, _mul_combine, reverse, "prod", "cumprod")


@builtin
def histogram(input, num_bins, mask=None):
    return semantic.histogram(input, num_bins, mask)


@builtin
def gather(src, index, axis):
    return semantic.gather(src, index, axis)


@builtin
def flip(x, dim=None):
    """`x` reversed along `dim` (the last dim by default), as triton.language.flip."""
    x = semantic.to_tensor(x)
    rank = len(x.shape)
    if rank == 0:
        raise TypeError("flip expects a tensor, got a scalar")
    dim = rank - 1 if _unwrap(dim) is None else _unwrap(dim)
    if not isinstance(dim, int) or not -rank <= dim < rank:
        raise ValueError(f"flip: dim must be in [{-rank}, {rank}), got {dim!r}")
    dim %= rank
    n = x.shape[dim]
    # index[..., i, ...] = n - 1 - i along `dim`, gathered from x.
    rev = semantic.sub(semantic.full([n], n - 1, core.int32), semantic.arange(0, n))
    for d in _py.range(rank):
        if d != dim:
            rev = semantic.expand_dims(rev, d)
    rev = semantic.broadcast_to(rev, list(x.shape))
    return semantic.gather(x, rev, dim)


@builtin
def sort(x, dim=None, descending=False):
    """`x` sorted along its last dimension (`dim` may only name it), ascending unless
    `descending`, as triton.language.sort. The length of that dimension must be a power of 2.

    A bitonic sorting network: for each merge size 2**i and distance 2**j (j = i-1 .. 0) the
    dimension is viewed as [blocks, 2, 2**j], the two halves are compared elementwise and swapped
    where they are out of order for the block's direction (alternating with bit i of the
    position, until the last merge, which sorts the whole dimension one way)."""
    x = semantic.to_tensor(x)
    rank = len(x.shape)
    if rank == 0:
        raise TypeError("sort expects a tensor, got a scalar")
    dim = rank - 1 if _unwrap(dim) is None else _unwrap(dim)
    if not isinstance(dim, int) or isinstance(dim, bool) or not -rank <= dim < rank:
        raise ValueError(f"sort: dim must be in [{-rank}, {rank}), got {dim!r}")
    if dim % rank != rank - 1:
        raise ValueError(f"sort: only the last dimension can be sorted (dim={rank - 1} or -1), got dim={dim}")
    if x.dtype.is_ptr():
        raise TypeError("sort: pointers cannot be sorted")
    n = x.shape[-1]
    if n & (n - 1):
        raise ValueError(f"sort: the sorted dimension must have a power-of-2 length, got {n}")
    desc = _py.bool(_unwrap(descending))
    outer = 1
    for d in x.shape[:-1]:
        outer *= d
    k = n.bit_length() - 1
    y = semantic.reshape(x, (outer, n))
    for i in _py.range(1, k + 1):
        for j in _py.range(i - 1, -1, -1):
            blocks, inner = n >> (j + 1), 1 << j
            v = semantic.permute(semantic.reshape(y, (outer, blocks, 2, inner)), (0, 1, 3, 2))
            lo, hi = semantic.split(v)  # [outer, blocks, inner] each
            swap = semantic.compare("gt", lo, hi) if not desc else semantic.compare("lt", lo, hi)
            if i < k:
                # The block's direction: bit i of the position, i.e. bit i-j-1 of the block index.
                b = semantic.arange(0, blocks)
                flip = semantic.and_(semantic.shr(b, i - j - 1), 1)
                flip = semantic.compare("ne", flip, 0)
                flip = semantic.broadcast_to(semantic.expand_dims(semantic.expand_dims(flip, 0), 2),
                                             [outer, blocks, inner])
                swap = semantic.xor_(swap, flip)
            new_lo, new_hi = semantic.where(swap, hi, lo), semantic.where(swap, lo, hi)
            v = semantic.permute(semantic.join(new_lo, new_hi), (0, 1, 3, 2))
            y = semantic.reshape(v, (outer, n))
    return semantic.reshape(y, x.shape)

# ----------------------------------------------------------- hints and debugging


@builtin
def assume(cond):
    """Tell the compiler that the scalar boolean `cond` holds (LLVM's assume): it may optimize
    with it, and a false assumption is undefined behaviour. The interpreter checks it."""
    return semantic.assume(cond)


@builtin
def multiple_of(input, values):
    return semantic.hint(input, "tt.divisibility", values)


@builtin
def max_contiguous(input, values):
    return semantic.hint(input, "tt.contiguity", values)


@builtin
def max_constancy(input, values):
    return semantic.hint(input, "tt.constancy", values)


@builtin
def static_assert(cond, msg=""):
    c = _unwrap(cond)
    if isinstance(c, tensor):
        raise TypeError("static_assert needs a compile-time constant condition; use tl.device_assert for "
                        "run-time values")
    if not c:
        raise AssertionError(f"static_assert failed: {_unwrap(msg)}" if _unwrap(msg) else "static_assert failed")


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    effect = getattr(getattr(core._state, "builder", None), "host_side_effect", None)
    if effect is not None:  # the interpreter runs printing kernels program by program
        effect("tl.static_print")
    _py.print(*[_unwrap(v) for v in values], sep=sep, end=end, file=file, flush=flush)


@builtin
def device_print(prefix, *args, hex=False):
    return semantic.device_print(prefix, args, hex)


@builtin
def device_assert(cond, msg=""):
    return semantic.device_assert(cond, msg)


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    return semantic.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)


@builtin
def extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure, _semantic=None, _builder=None):
    """Call a function of your own LLVM bitcode library (`lib_path`) on every element: the symbol
    and result type are chosen by the arguments' types, {(tl.float32,): ("my_f", tl.float32)}. The
    library is linked into the kernel (beside libdevice) and internalized. The interpreter runs a
    Python implementation registered with tessera.interpreter.register_extern(symbol, fn).
    As in Triton, call it from a function marked @tl.core.extern (plain Python run while the
    kernel is traced: the dict of signatures is Python, not kernel code); `_semantic` / `_builder`
    are accepted and unused."""
    return semantic.user_extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure)


@builtin
def debug_barrier():
    core.current_builder().barrier()

# ----------------------------------------------------------- iterators


class static_range:
    """A loop unrolled at compile time: `for i in tl.static_range(4)`; bounds must be constexpr."""

    def __init__(self, arg1, arg2=None, step=None):
        vals = [arg1, arg2, step]
        for v in vals:
            if isinstance(_unwrap(v), tensor):
                raise TypeError("static_range bounds must be compile-time constants")
        a1, a2, st = (_unwrap(v) for v in vals)
        if a2 is None:
            self.start, self.end = 0, a1
        else:
            self.start, self.end = a1, a2
        self.step = 1 if st is None else st

    def __iter__(self):
        return iter(_py.range(self.start, self.end, self.step))


class range:
    """A loop over a range: `for i in tl.range(lo, hi, step, num_stages=2)`.

    In a compiled kernel this is an scf.for whose attributes carry the
    pipelining and unrolling hints; the interpreter iterates in Python.
    """

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step
        self.num_stages = _unwrap(num_stages)
        self.loop_unroll_factor = _unwrap(loop_unroll_factor)
        self.disallow_acc_multi_buffer = _unwrap(disallow_acc_multi_buffer)
        self.flatten = _unwrap(flatten)
        self.warp_specialize = _unwrap(warp_specialize)

    def __iter__(self):
        vals = [int(_unwrap(v)) for v in (self.start, self.end, self.step)]
        return iter(_py.range(*vals))
