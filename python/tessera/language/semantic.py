"""Semantics of the kernel language: type checking, promotion, broadcasting, then builder calls.

Every function here takes language values (tensors, constexprs, Python
numbers), decides the result type exactly as triton.language does, and asks the
current builder for the operation. The IR builder turns the calls into TTIR; the
interpreter's builder computes them with numpy. Errors are TypeError/ValueError
with a specific message; the front end attaches the user's source location.
"""

import builtins
import math as _pymath

from . import core
from .core import (block_type, constexpr, current_builder, dtype, pointer_type, tensor, _unwrap)

# --------------------------------------------------------------- conversion


def _literal_type(v):
    if isinstance(v, builtins.bool):
        return core.int1
    if isinstance(v, builtins.int):
        if -2**31 <= v < 2**31:
            return core.int32
        if 2**31 <= v < 2**32:
            return core.uint32
        if -2**63 <= v < 2**63:
            return core.int64
        if 2**63 <= v < 2**64:
            return core.uint64
        raise ValueError(f"integer {v} does not fit in 64 bits")
    if isinstance(v, builtins.float):
        if _pymath.isnan(v) or _pymath.isinf(v) or builtins.abs(v) <= 3.4028234663852886e38:
            return core.float32
        return core.float64
    raise TypeError(f"cannot use a value of type {type(v).__name__} ({v!r}) in a kernel expression")


def to_tensor(x):
    """A Python number (or constexpr) as a scalar tensor; tensors pass through."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        return x
    ty = _literal_type(x)
    return tensor(current_builder().constant(x, ty), ty)


def _is_literal(x):
    x = _unwrap(x)
    return isinstance(x, (builtins.bool, builtins.int, builtins.float))


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"

# --------------------------------------------------------------- promotion


def integer_promote(a, b):
    if a.is_bool() and b.is_bool():
        return core.int1
    ar, br = a.int_bitwidth, b.int_bitwidth
    asg, bsg = a.int_signedness, b.int_signedness
    if asg == bsg:
        return a if ar > br else b
    if asg == "unsigned":
        return a if ar >= br else b
    return b if br >= ar else a


def computation_type(a, a_is_scalar, b, b_is_scalar, div_or_mod=False):
    """The type both operands are converted to (triton.language's rules)."""
    if a.is_fp8e4b15():  # no arithmetic in fp8e4b15 itself: it computes as fp16
        a = core.float16
    if b.is_fp8e4b15():
        b = core.float16
    if a_is_scalar != b_is_scalar:
        scalar_ty, tensor_ty = (a, b) if a_is_scalar else (b, a)
        if scalar_ty.kind() <= tensor_ty.kind():
            if div_or_mod and (tensor_ty.is_fp16() or tensor_ty.is_bf16()):
                return core.float32
            return tensor_ty
    if a.is_fp64() or b.is_fp64():
        return core.float64
    if a.is_fp32() or b.is_fp32():
        return core.float32
    if (a.is_fp16() and b.is_bf16()) or (a.is_bf16() and b.is_fp16()):
        return core.float32
    if a.is_fp16() or b.is_fp16():
        return core.float32 if div_or_mod else core.float16
    if a.is_bf16() or b.is_bf16():
        return core.float32 if div_or_mod else core.bfloat16
    if a.is_fp8() or b.is_fp8():
        if a.is_fp8() and b.is_fp8():
            return a if a == b else core.float16
        return a if a.is_fp8() else b
    if not a.is_int() or not b.is_int():
        raise TypeError(f"unexpected operand types {a} and {b}")
    if div_or_mod and a.int_signedness != b.int_signedness and not (a.is_bool() or b.is_bool()):
        raise TypeError(f"cannot use /, // or % with {a} and {b}: they have different signedness; "
                        f"cast one of them first")
    return integer_promote(a, b)

# --------------------------------------------------------------- broadcasting


def _block(ty, shape):
    return block_type(ty, shape) if shape else ty


def broadcast_to_shape(x, shape):
    """Broadcast `x` (scalar or block) to `shape` (numpy rules)."""
    shape = tuple(shape)
    if tuple.__eq__(x.shape, shape):  # the common case, without shape_tuple's normalizing __eq__
        return x
    if not shape:
        raise ValueError(f"cannot broadcast a tensor of shape {_shape_str(x.shape)} to a scalar")
    b = current_builder()
    if not x.shape:
        ty = block_type(x.dtype, shape)
        return tensor(b.splat(x.handle, ty), ty)
    if x.shape == shape:
        return x
    if len(x.shape) > len(shape):
        raise ValueError(f"cannot broadcast shape {_shape_str(x.shape)} to {_shape_str(shape)}")
    while len(x.shape) < len(shape):
        x = expand_dims(x, 0)
    for i, (s, t) in enumerate(zip(x.shape, shape)):
        if s != t and s != 1:
            raise ValueError(f"cannot broadcast shape {_shape_str(x.shape)} to {_shape_str(shape)}: "
                             f"dimension {i} is {s}, expected 1 or {t}")
    ty = block_type(x.dtype, shape)
    return tensor(b.broadcast(x.handle, ty), ty)


def broadcast_shapes(a, b):
    if not a:
        return tuple(b)
    if not b:
        return tuple(a)
    a, b = list(a), list(b)
    while len(a) < len(b):
        a.insert(0, 1)
    while len(b) < len(a):
        b.insert(0, 1)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"incompatible shapes for broadcasting: {_shape_str(a)} and {_shape_str(b)} "
                             f"(dimension {i}: {x} vs {y})")
    return tuple(out)


def broadcast_values(a, b):
    if tuple.__eq__(a.shape, b.shape):
        return a, b
    shape = broadcast_shapes(a.shape, b.shape)
    return broadcast_to_shape(a, shape), broadcast_to_shape(b, shape)

# --------------------------------------------------------------- casts


def cast(x, dst, rounding=None):
    """`x.to(dst)`: numeric conversion with triton.language's rules."""
    x = to_tensor(x)
    dst = _unwrap(dst)
    if not isinstance(dst, dtype) or dst.is_block():
        raise TypeError(f"cast target must be a scalar dtype, got {dst!r}")
    src = x.dtype
    if src is dst or src == dst:
        return x
    b = current_builder()
    ret = _block(dst, x.shape)
    if rounding is not None:
        if rounding not in ("rtne", "rtz"):
            raise ValueError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {rounding!r}")
        if not (src.is_floating() and dst.is_floating() and dst.primitive_bitwidth < src.primitive_bitwidth):
            raise ValueError("fp_downcast_rounding applies only to floating-point downcasts")
    if src.is_fp8e4b15():
        h = _e4b15_to_fp16(x)
        return h if dst.is_fp16() else cast(h, dst, rounding)
    if dst.is_fp8e4b15():
        if src.is_ptr():
            raise TypeError(f"cannot cast {src} to {dst}")
        if not src.is_floating():
            x = cast(x, core.float32)
        if not x.dtype.is_fp16():
            x = cast(x, core.float16, rounding)
        return _fp16_to_e4b15(x, rounding or "rtne")
    # fp16 <-> bf16 go through fp32
    if (src.is_fp16() and dst.is_bf16()) or (src.is_bf16() and dst.is_fp16()):
        return cast(cast(x, core.float32), dst, rounding)
    if src.is_floating() and dst.is_floating():
        if src.is_fp8() or dst.is_fp8():
            if dst.primitive_bitwidth < src.primitive_bitwidth or dst.is_fp8():
                return tensor(b.cast("fp_to_fp", x.handle, ret, rounding or "rtne"), ret)
            return tensor(b.cast("fp_to_fp", x.handle, ret, None), ret)
        if dst.primitive_bitwidth < src.primitive_bitwidth:
            if rounding == "rtz":
                return tensor(b.cast("fp_to_fp", x.handle, ret, "rtz"), ret)
            return tensor(b.cast("truncf", x.handle, ret), ret)
        return tensor(b.cast("extf", x.handle, ret), ret)
    if src.is_ptr() or dst.is_ptr():
        if src.is_ptr() and dst.is_ptr():
            return tensor(b.cast("bitcast", x.handle, ret), ret)
        if src.is_ptr() and dst.is_int() and dst.primitive_bitwidth == 64:
            return tensor(b.cast("ptr_to_int", x.handle, ret), ret)
        if dst.is_ptr() and src.is_int() and src.primitive_bitwidth == 64:
            return tensor(b.cast("int_to_ptr", x.handle, ret), ret)
        raise TypeError(f"cannot cast {src} to {dst} (pointers convert only to and from 64-bit integers)")
    if dst.is_bool():
        if src.is_floating():
            zero = tensor(b.constant(0.0, _block(src, x.shape)), _block(src, x.shape))
            return tensor(b.cmp("une", x.handle, zero.handle, ret), ret)
        zero = tensor(b.constant(0, _block(src, x.shape)), _block(src, x.shape))
        return tensor(b.cmp("ne", x.handle, zero.handle, ret), ret)
    if src.is_int() and dst.is_int():
        if src.primitive_bitwidth == dst.primitive_bitwidth:
            return tensor(x.handle, ret)  # signedness only: same bits
        if dst.primitive_bitwidth < src.primitive_bitwidth:
            return tensor(b.cast("trunci", x.handle, ret), ret)
        op = "extsi" if src.is_int_signed() else "extui"
        return tensor(b.cast(op, x.handle, ret), ret)
    if src.is_int() and dst.is_floating():
        op = "sitofp" if src.is_int_signed() else "uitofp"
        return tensor(b.cast(op, x.handle, ret), ret)
    if src.is_floating() and dst.is_int():
        op = "fptosi" if dst.is_int_signed() else "fptoui"
        return tensor(b.cast(op, x.handle, ret), ret)
    raise TypeError(f"cannot cast {src} to {dst}")


def _e4b15_to_fp16(x):
    """fp8e4b15 -> fp16, exactly: both have exponent bias 15, so the fp16 bits are the fp8 sign
    moved to bit 15 and its exponent and mantissa moved up 7 bits (subnormals included)."""
    w = cast(tensor(x.handle, _block(core.uint8, x.shape)), core.int32)  # 0..255
    bits = or_(shl(and_(w, 0x80), 8), shl(and_(w, 0x7F), 7))
    return bitcast(cast(bits, core.uint16), core.float16)


def _fp16_to_e4b15(h, rounding):
    """fp16 -> fp8e4b15: the magnitude saturates at the largest value, 1.875 (fp16 0x3F80; also
    for infinities and NaN, which fp8e4b15 lacks), then drops 7 mantissa bits, rounding to nearest
    even ("rtne") or toward zero ("rtz")."""
    w = cast(bitcast(h, core.uint16), core.int32)  # 0..65535
    sign = and_(shr(w, 8), 0x80)
    mag = minimum(and_(w, 0x7FFF), 0x3F80)
    if rounding == "rtne":
        mag = add(add(mag, 0x3F), and_(shr(mag, 7), 1))
    bits = cast(or_(shr(mag, 7), sign), core.uint8)
    return tensor(bits.handle, _block(core.float8e4b15, h.shape))


def bitcast(x, dst):
    x = to_tensor(x)
    dst = _unwrap(dst)
    src = x.dtype
    if src == dst:
        return x
    if src.primitive_bitwidth != dst.primitive_bitwidth:
        raise ValueError(f"cannot bitcast {src} ({src.primitive_bitwidth} bits) to {dst} "
                         f"({dst.primitive_bitwidth} bits): widths differ")
    ret = _block(dst, x.shape)
    if (src.is_int() or src.is_fp8e4b15()) and (dst.is_int() or dst.is_fp8e4b15()):
        return tensor(x.handle, ret)  # the same IR type (fp8e4b15 is held as i8)
    return tensor(current_builder().cast("bitcast", x.handle, ret), ret)

# --------------------------------------------------------------- binary ops


def _prepare(a, b, allow_lhs_ptr=False, allow_rhs_ptr=False, arithmetic=True, div_or_mod=False):
    a_lit, b_lit = _is_literal(a), _is_literal(b)
    a, b = to_tensor(a), to_tensor(b)
    a, b = broadcast_values(a, b)
    at, bt = a.dtype, b.dtype
    if at.is_ptr() and not allow_lhs_ptr:
        raise TypeError(f"unsupported operand type {at} on the left")
    if bt.is_ptr() and not allow_rhs_ptr:
        raise TypeError(f"unsupported operand type {bt} on the right")
    if at.is_ptr() or bt.is_ptr():
        if at.is_ptr() and bt.is_ptr() and (not allow_lhs_ptr or not allow_rhs_ptr):
            raise TypeError(f"cannot combine two pointers ({at} and {bt})")
        if at.is_ptr() and bt.is_floating() or bt.is_ptr() and at.is_floating():
            raise TypeError(f"cannot combine a pointer and a float ({at} and {bt})")
        return a, b
    if arithmetic:
        ct = computation_type(at, a_lit, bt, b_lit, div_or_mod)
        a, b = cast(a, ct), cast(b, ct)
    return a, b


def _bin(op, a, b, ret_elem=None):
    ret = _block(ret_elem or a.dtype, a.shape)
    return tensor(current_builder().binary(op, a.handle, b.handle, ret), ret)


def add(a, b, sanitize_overflow=True):
    a, b = _prepare(a, b, True, True)
    if b.dtype.is_ptr() and not a.dtype.is_ptr():
        a, b = b, a
    if a.dtype.is_ptr():
        if b.dtype.is_ptr():
            raise TypeError("cannot add two pointers")
        return addptr(a, b)
    return _bin("addf" if a.dtype.is_floating() else "addi", a, b)


def addptr(ptr, offset):
    if not offset.dtype.is_int():
        raise TypeError(f"a pointer offset must be an integer, got {offset.dtype}")
    ptr, offset = broadcast_values(ptr, offset)
    ret = ptr.type
    return tensor(current_builder().addptr(ptr.handle, offset.handle, ret), ret)


def sub(a, b, sanitize_overflow=True):
    a, b = _prepare(a, b, True, False)
    if a.dtype.is_ptr():
        return addptr(a, minus(b))
    return _bin("subf" if a.dtype.is_floating() else "subi", a, b)


def mul(a, b, sanitize_overflow=True):
    a, b = _prepare(a, b)
    return _bin("mulf" if a.dtype.is_floating() else "muli", a, b)


def truediv(a, b):
    a_lit, b_lit = _is_literal(a), _is_literal(b)
    a, b = to_tensor(a), to_tensor(b)
    a, b = broadcast_values(a, b)
    at, bt = a.dtype, b.dtype
    if at.is_ptr() or bt.is_ptr():
        raise TypeError("cannot divide pointers")
    if at.is_int() and bt.is_int():
        if at.int_signedness != bt.int_signedness and not (at.is_bool() or bt.is_bool()):
            raise TypeError(f"cannot use /, // or % with {at} and {bt}: they have different signedness; "
                            f"cast one of them first")
        a, b = cast(a, core.float32), cast(b, core.float32)
    elif at.is_int():
        a = cast(a, bt)
    elif bt.is_int():
        b = cast(b, at)
    else:
        ct = computation_type(at, a_lit, bt, b_lit, True)
        a, b = cast(a, ct), cast(b, ct)
    return _bin("divf", a, b)


def floordiv(a, b):
    a, b = _prepare(a, b, div_or_mod=True)
    if a.dtype.is_floating():
        return math_unary("floor", _bin("divf", a, b))
    return _bin("divsi" if a.dtype.is_int_signed() else "divui", a, b)


def fdiv(a, b, ieee_rounding=False):
    a, b = to_tensor(a), to_tensor(b)
    if not a.dtype.is_floating() or not b.dtype.is_floating():
        raise TypeError(f"fdiv expects floating-point operands, got {a.dtype} and {b.dtype}")
    a, b = _prepare(a, b, div_or_mod=True)
    if _unwrap(ieee_rounding):
        return _bin("precise_divf", a, b)
    return _bin("divf", a, b)


def div_rn(a, b):
    a, b = _prepare(a, b, div_or_mod=True)
    if not a.dtype.is_floating():
        raise TypeError(f"div_rn expects floating-point operands, got {a.dtype}")
    return _bin("precise_divf", a, b)


def assigned(value):
    """What a plain assignment stores, as in Triton: a Python number (or a constexpr one) becomes
    a scalar tensor (`acc = 0; acc = acc.to(tl.int64)`, `v = 1; v.dtype`); everything else
    (tensors, dtypes, functions, tuples, None) is stored as it is. Constants meant for compile
    time are annotated: `BLOCK: tl.constexpr = 64`. Used by the compiler and the interpreter."""
    v = _unwrap(value)
    if isinstance(v, (bool, int, float)):
        return to_tensor(v)
    return value


def mod(a, b):
    a, b = _prepare(a, b, div_or_mod=True)
    if a.dtype.is_floating():
        # Python's (and Triton's) float remainder takes the divisor's sign:
        # a - floor(a / b) * b, not C's fmod (-118.375 % 119.0 == 0.625).
        q = math_unary("floor", _bin("divf", a, b))
        return _bin("subf", a, _bin("mulf", q, b))
    return _bin("remsi" if a.dtype.is_int_signed() else "remui", a, b)


def _bitwise_prepare(a, b, name):
    a, b = _prepare(a, b)
    if not a.dtype.is_int():
        raise TypeError(f"'{name}' needs integer or boolean operands, got {a.dtype}")
    return a, b


def and_(a, b):
    a, b = _bitwise_prepare(a, b, "&")
    return _bin("andi", a, b)


def or_(a, b):
    a, b = _bitwise_prepare(a, b, "|")
    return _bin("ori", a, b)


def xor_(a, b):
    a, b = _bitwise_prepare(a, b, "^")
    return _bin("xori", a, b)


def shl(a, b):
    a, b = _bitwise_prepare(a, b, "<<")
    return _bin("shli", a, b)


def shr(a, b):
    # Arithmetic or logical by the left operand's own type (int8 >> uint32 is arithmetic, as in
    # Triton), computed in the promoted type.
    left_signed = to_tensor(a).dtype.is_int_signed()
    a, b = _bitwise_prepare(a, b, ">>")
    return _bin("shrsi" if left_signed else "shrui", a, b)


def logical_and(a, b):
    a, b = cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1)
    a, b = broadcast_values(a, b)
    return _bin("andi", a, b)


def logical_or(a, b):
    a, b = cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1)
    a, b = broadcast_values(a, b)
    return _bin("ori", a, b)


def logical_not(a):
    a = cast(to_tensor(a), core.int1)
    one = tensor(current_builder().constant(True, a.type), a.type)
    return _bin("xori", a, one)


def minus(a):
    a = to_tensor(a)
    if a.dtype.is_ptr():
        raise TypeError("cannot negate a pointer")
    if a.dtype.is_floating():
        return math_unary("negf", a)
    zero = tensor(current_builder().constant(0, a.type), a.type)
    return _bin("subi", zero, a)


def invert(a):
    a = to_tensor(a)
    if not a.dtype.is_int():
        raise TypeError(f"'~' needs an integer operand, got {a.dtype}")
    ones = tensor(current_builder().constant(True if a.dtype.is_bool() else -1, a.type), a.type)
    return _bin("xori", a, ones)


_CMP = {
    "lt": ("olt", "slt", "ult"), "le": ("ole", "sle", "ule"), "gt": ("ogt", "sgt", "ugt"),
    "ge": ("oge", "sge", "uge"), "eq": ("oeq", "eq", "eq"), "ne": ("une", "ne", "ne"),
}


def compare(kind, a, b):
    a, b = _prepare(a, b, True, True)
    t = a.dtype
    if t.is_ptr() != b.dtype.is_ptr():
        raise TypeError(f"cannot compare {a.dtype} with {b.dtype}")
    if t.is_ptr():
        a, b = cast(a, core.int64), cast(b, core.int64)
        pred = _CMP[kind][2]
    elif t.is_floating():
        pred = _CMP[kind][0]
    elif t.is_int_signed():
        pred = _CMP[kind][1]
    else:
        pred = _CMP[kind][2]
    ret = _block(core.int1, a.shape)
    return tensor(current_builder().cmp(pred, a.handle, b.handle, ret), ret)


def abs(x):
    x = to_tensor(x)
    if x.dtype.is_floating():
        return math_unary("absf", x)
    if x.dtype.is_int_signed():
        return math_unary("absi", x)
    if x.dtype.is_int():
        return x
    raise TypeError(f"abs of {x.dtype}")

# --------------------------------------------------------------- math


_FLOAT_ONLY = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "floor", "ceil",
               "erf", "precise_sqrt", "negf", "absf", "tanh", "trunc"}


def math_unary(op, x):
    x = to_tensor(x)
    if op in _FLOAT_ONLY and not x.dtype.is_floating():
        raise TypeError(f"'{op}' expects a floating-point tensor, got {x.dtype}")
    if op == "precise_sqrt" and not (x.dtype.is_fp32() or x.dtype.is_fp64()):
        raise TypeError(f"sqrt_rn expects float32 or float64, got {x.dtype} (as in Triton; convert with .to(tl.float32))")
    return tensor(current_builder().unary(op, x.handle, x.type), x.type)


def fma(a, b, c):
    a, b = _prepare(a, b)
    a, c = _prepare(a, c)
    a, b = _prepare(a, b)
    if not a.dtype.is_floating():
        raise TypeError(f"fma expects floating-point operands, got {a.dtype}")
    return tensor(current_builder().fma(a.handle, b.handle, c.handle, a.type), a.type)


def umulhi(a, b):
    a, b = _prepare(a, b)
    if not a.dtype.is_int():
        raise TypeError(f"umulhi expects integer operands, got {a.dtype}")
    return _bin("mulhiui", a, b)


PROPAGATE_NAN_NONE = 0
PROPAGATE_NAN_ALL = 0xFFFF


def minimum(a, b, propagate_nan=PROPAGATE_NAN_NONE):
    a, b = _prepare(a, b)
    t = a.dtype
    if t.is_floating():
        return _bin("minimumf" if _unwrap(propagate_nan) == PROPAGATE_NAN_ALL else "minnumf", a, b)
    return _bin("minsi" if t.is_int_signed() else "minui", a, b)


def maximum(a, b, propagate_nan=PROPAGATE_NAN_NONE):
    a, b = _prepare(a, b)
    t = a.dtype
    if t.is_floating():
        return _bin("maximumf" if _unwrap(propagate_nan) == PROPAGATE_NAN_ALL else "maxnumf", a, b)
    return _bin("maxsi" if t.is_int_signed() else "maxui", a, b)


def clamp(x, lo, hi, propagate_nan=PROPAGATE_NAN_NONE):
    x, lo = _prepare(x, lo)
    x, hi = _prepare(x, hi)
    x, lo = _prepare(x, lo)
    if x.dtype.is_floating():
        pn = _unwrap(propagate_nan)
        return tensor(current_builder().clampf(x.handle, lo.handle, hi.handle, pn, x.type), x.type)
    return minimum(maximum(x, lo), hi)


def where(cond, x, y):
    cond = to_tensor(cond)
    if cond.dtype != core.int1:
        cond = cast(cond, core.int1)
    x, y = _prepare(x, y, True, True)
    shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape)
    cond, x, y = (broadcast_to_shape(v, shape) for v in (cond, x, y))
    if x.dtype != y.dtype:
        raise TypeError(f"tl.where: operands have different types {x.dtype} and {y.dtype}")
    return tensor(current_builder().select(cond.handle, x.handle, y.handle, x.type), x.type)

# --------------------------------------------------------------- creation


def _const_int(v, what):
    v = _unwrap(v)
    if isinstance(v, tensor):
        raise TypeError(f"{what} must be a compile-time constant (tl.constexpr), got a tensor")
    if not isinstance(v, builtins.int) or isinstance(v, builtins.bool):
        raise TypeError(f"{what} must be an integer constant, got {v!r}")
    return v


def _shape(shape, what="shape"):
    shape = _unwrap(shape)
    if isinstance(shape, (builtins.int, constexpr)):
        shape = (shape,)
    return tuple(_const_int(s, f"each dimension of {what}") for s in shape)


MAX_NUMEL = 1 << 20


def _check_shape(shape):
    n = 1
    for s in shape:
        if s <= 0:
            raise ValueError(f"shape {_shape_str(shape)} has a non-positive dimension")
        if s & (s - 1):
            raise ValueError(f"shape {_shape_str(shape)}: every dimension must be a power of 2, got {s}")
        n *= s
    if n > MAX_NUMEL:
        raise ValueError(f"shape {_shape_str(shape)} has {n} elements, more than the limit of {MAX_NUMEL}")


def arange(start, end):
    start, end = _const_int(start, "arange's start"), _const_int(end, "arange's end")
    if end <= start:
        raise ValueError(f"arange's end ({end}) must be greater than its start ({start})")
    n = end - start
    if n & (n - 1):
        raise ValueError(f"arange's range must be a power of 2, got {n}")
    if n > MAX_NUMEL:
        raise ValueError(f"arange's range {n} exceeds the limit of {MAX_NUMEL} elements")
    if start < -2**31 or end > 2**31:
        raise ValueError("arange's bounds must fit in int32")
    ret = block_type(core.int32, (n,))
    return tensor(current_builder().make_range(start, end, ret), ret)


def full(shape, value, dt):
    shape = _shape(shape)
    dt = _unwrap(dt)
    if not isinstance(dt, dtype):
        raise TypeError(f"full/zeros: dtype must be a tl dtype, got {dt!r}")
    value = _unwrap(value)
    if isinstance(value, tensor):
        v = cast(value, dt)
        return broadcast_to_shape(v, shape) if shape else v
    if shape:
        _check_shape(shape)
    if dt.is_fp8e4b15():  # the constant's bits, through the conversion
        return cast(full(shape, value, core.float32), dt)
    ret = _block(dt, shape)
    return tensor(current_builder().constant(value, ret), ret)


def program_id(axis):
    axis = _const_int(axis, "program_id's axis")
    if axis not in (0, 1, 2):
        raise ValueError(f"program_id axis must be 0, 1 or 2, got {axis}")
    return tensor(current_builder().program_id(axis), core.int32)


def prof_record(name, is_end):
    """tessera.profiler.language's enter_scope / exit_scope: validates the scope name."""
    name = core._unwrap(name)
    if not isinstance(name, str):
        raise TypeError(f"a profiling scope's name must be a str known at compile time, got "
                        f"{type(name).__name__}")
    if not name or len(name) > 256:
        raise ValueError(f"a profiling scope's name must have 1 to 256 characters, got {name!r}")
    current_builder().prof_record(name, bool(is_end))
    return None


def global_scratch(nbytes, alignment):
    """A pointer (int8) to `nbytes` bytes of global memory private to this program."""
    nbytes = _const_int(nbytes, "global_scratch's nbytes")
    alignment = _const_int(alignment, "global_scratch's alignment")
    if not 0 < nbytes < 2 ** 31:
        raise ValueError(f"global_scratch needs 1 to 2^31 - 1 bytes, got {nbytes}")
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"global_scratch's alignment must be a power of two, got {alignment}")
    ty = core.pointer_type(core.int8)
    return tensor(current_builder().global_scratch_alloc(nbytes, alignment, ty), ty)


def num_programs(axis):
    axis = _const_int(axis, "num_programs's axis")
    if axis not in (0, 1, 2):
        raise ValueError(f"num_programs axis must be 0, 1 or 2, got {axis}")
    return tensor(current_builder().num_programs(axis), core.int32)

# --------------------------------------------------------------- shapes


def expand_dims(x, axis):
    x = to_tensor(x)
    axis = _unwrap(axis)
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    axes = [_const_int(a, "expand_dims's axis") for a in axes]
    new_rank = len(x.shape) + len(axes)
    axes = sorted(a + new_rank if a < 0 else a for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    for a in axes:
        if not 0 <= a < new_rank:
            raise ValueError(f"expand_dims axis {a} is out of range for a result of rank {new_rank}")
    b = current_builder()
    for a in axes:
        if not x.shape:
            ret = block_type(x.dtype, (1,))
            x = tensor(b.splat(x.handle, ret), ret)
            continue
        shape = list(x.shape)
        shape.insert(a, 1)
        ret = block_type(x.dtype, shape)
        x = tensor(b.expand_dims(x.handle, a, ret), ret)
    return x


def reshape(x, shape, can_reorder=False):
    x = to_tensor(x)
    shape = _shape(shape)
    n = 1
    for s in shape:
        n *= s
    if n != x.numel:
        raise ValueError(f"reshape cannot change the number of elements: {_shape_str(x.shape)} has "
                         f"{x.numel}, {_shape_str(shape)} has {n}")
    if not x.shape:
        return broadcast_to_shape(x, shape) if shape else x
    if not shape:
        raise ValueError("reshape to a scalar is not supported; use tl.sum or indexing")
    if tuple(shape) == x.shape:
        return x
    ret = block_type(x.dtype, shape)
    return tensor(current_builder().reshape(x.handle, ret, builtins.bool(_unwrap(can_reorder))), ret)


def permute(x, dims):
    x = to_tensor(x)
    rank = len(x.shape)
    if dims is None or len(dims) == 0:
        if rank != 2:
            raise ValueError(f"trans without dims needs a 2-D tensor, got shape {_shape_str(x.shape)}")
        dims = (1, 0)
    dims = tuple(_const_int(d, "a permutation entry") for d in dims)
    if sorted(dims) != list(range(rank)):
        raise ValueError(f"permutation {dims} is not a permutation of the {rank} dimensions")
    if dims == tuple(range(rank)):
        return x
    ret = block_type(x.dtype, [x.shape[d] for d in dims])
    return tensor(current_builder().trans(x.handle, dims, ret), ret)


def broadcast_to(x, shape):
    return broadcast_to_shape(to_tensor(x), _shape(shape))


def join(a, b):
    a, b = to_tensor(a), to_tensor(b)
    a, b = broadcast_values(a, b)
    if a.dtype != b.dtype:
        raise TypeError(f"join: operands have different types {a.dtype} and {b.dtype}")
    if not a.shape:
        a, b = expand_dims(a, 0), expand_dims(b, 0)
        j = join(a, b)
        return reshape(j, (2,))
    ret = block_type(a.dtype, a.shape + (2,))
    return tensor(current_builder().join(a.handle, b.handle, ret), ret)


def split(x):
    x = to_tensor(x)
    if not x.shape or x.shape[-1] != 2:
        raise ValueError(f"split needs a tensor whose last dimension is 2, got shape {_shape_str(x.shape)}")
    if len(x.shape) == 1:
        # Two scalars, as in Triton: split [1, 2] and reduce each [1] half to its element.
        a, b = split(expand_dims(x, 0))
        return tuple(reduction([h], 0, lambda p, q: p, what="split") for h in (a, b))
    ret = block_type(x.dtype, x.shape[:-1])
    h1, h2 = current_builder().split(x.handle, ret)
    return tensor(h1, ret), tensor(h2, ret)


def interleave(a, b):
    j = join(a, b)
    if len(j.shape) == 1:
        return j
    return reshape(j, j.shape[:-2] + (j.shape[-2] * 2,))


def cat(a, b, can_reorder=False):
    a, b = to_tensor(a), to_tensor(b)
    if not _unwrap(can_reorder):
        raise ValueError("tl.cat may reorder elements; pass can_reorder=True")
    if a.type != b.type:
        raise TypeError(f"cat: operands must have the same type, got {a.type} and {b.type}")
    if not a.shape:
        raise ValueError("cat needs tensors, got scalars")
    ret = block_type(a.dtype, (a.shape[0] * 2,) + a.shape[1:])
    return tensor(current_builder().cat(a.handle, b.handle, ret), ret)


def getitem(x, slices):
    if not isinstance(slices, tuple):
        slices = (slices,)
    out = x
    dim = 0
    for s in slices:
        s = _unwrap(s)
        if s is None:
            out = expand_dims(out, dim)
            dim += 1
        elif isinstance(s, slice) and s.start is None and s.stop is None and s.step is None:
            dim += 1
        else:
            raise TypeError(f"unsupported tensor index {s!r}: only ':' and None are allowed")
    # As in Triton, ':' on a scalar is no dimension at all (`s[None, None, :]` has shape [1, 1]); on a
    # tensor, more ':' than it has dimensions is a mistake.
    if x.shape and dim - sum(1 for s in slices if _unwrap(s) is None) > len(x.shape):
        raise IndexError(f"too many indices for a tensor of rank {len(x.shape)}")
    return out

# --------------------------------------------------------------- memory

_LOAD_CACHE = {"": "none", ".ca": "ca", ".cg": "cg", ".cv": "cv", "ca": "ca", "cg": "cg", "cv": "cv"}
_STORE_CACHE = {"": "none", ".wb": "wb", ".cg": "cg", ".cs": "cs", ".wt": "wt", "wb": "wb", "cg": "cg",
                "cs": "cs", "wt": "wt"}
_EVICT = {"": "evict_normal", "evict_normal": "evict_normal", "evict_first": "evict_first",
          "evict_last": "evict_last"}


def _modifier(table, v, what):
    v = _unwrap(v) or ""
    if v not in table:
        raise ValueError(f"unsupported {what} {v!r}; expected one of {sorted(k for k in table if k)}")
    return table[v]


def _boundary_check(bc, rank):
    bc = _unwrap(bc)
    if bc is None:
        return ()
    if isinstance(bc, builtins.int):
        bc = (bc,)
    out = tuple(sorted(_const_int(d, "boundary_check entry") for d in bc))
    for d in out:
        if not 0 <= d < rank:
            raise ValueError(f"boundary_check dimension {d} is out of range for a block of rank {rank}")
    return out


def load(ptr, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    ptr = _unwrap(ptr)
    if not isinstance(ptr, tensor) or not ptr.dtype.is_ptr():
        raise TypeError(f"tl.load expects a pointer or a tensor of pointers, got "
                        f"{getattr(ptr, 'type', type(ptr).__name__)}")
    cache = _modifier(_LOAD_CACHE, cache_modifier, "load cache modifier")
    evict = _modifier(_EVICT, eviction_policy, "eviction policy")
    volatile = builtins.bool(_unwrap(volatile))
    b = current_builder()
    mask, other = _unwrap(mask), _unwrap(other)
    if not ptr.shape and ptr.dtype.is_block_ptr():
        if mask is not None or other is not None:
            raise ValueError("mask and other cannot be used with block pointers; use boundary_check "
                             "and padding_option")
        blk = ptr.dtype.element_ty
        bc = _boundary_check(boundary_check, len(blk.shape))
        pad = _unwrap(padding_option) or ""
        if pad not in ("", "zero", "nan"):
            raise ValueError(f"padding_option must be 'zero' or 'nan', got {pad!r}")
        if pad == "nan" and not blk.element_ty.is_floating():
            raise ValueError("padding_option='nan' needs a floating-point block")
        if pad and not bc:
            pad = ""
        return tensor(b.load_block(ptr.handle, bc, pad or None, blk, cache, evict, volatile), blk)
    if _unwrap(boundary_check):
        raise ValueError("boundary_check applies only to block pointers (tl.make_block_ptr)")
    if _unwrap(padding_option):
        raise ValueError("padding_option applies only to block pointers (tl.make_block_ptr)")
    if mask is not None:
        mask = to_tensor(mask)
        if mask.dtype != core.int1:
            mask = cast(mask, core.int1)
        shape = broadcast_shapes(ptr.shape, mask.shape)
        ptr, mask = broadcast_to_shape(ptr, shape), broadcast_to_shape(mask, shape)
    elt = ptr.dtype.element_ty
    is_bool = elt.is_bool()
    if is_bool:
        elt = core.int8
        ptr = cast(ptr, pointer_type(core.int8, ptr.dtype.address_space))
    if other is not None:
        if mask is None:
            raise ValueError("tl.load: `other` needs a `mask`")
        other = broadcast_to_shape(cast(to_tensor(other), elt), ptr.shape)
    ret = _block(elt, ptr.shape)
    out = tensor(b.load(ptr.handle, None if mask is None else mask.handle,
                        None if other is None else other.handle, ret, cache, evict, volatile), ret)
    if is_bool:
        out = cast(out, core.int1)
    return out


def store(ptr, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    ptr = _unwrap(ptr)
    if not isinstance(ptr, tensor) or not ptr.dtype.is_ptr():
        raise TypeError(f"tl.store expects a pointer or a tensor of pointers, got "
                        f"{getattr(ptr, 'type', type(ptr).__name__)}")
    cache = _modifier(_STORE_CACHE, cache_modifier, "store cache modifier")
    evict = _modifier(_EVICT, eviction_policy, "eviction policy")
    b = current_builder()
    value = to_tensor(value)
    mask = _unwrap(mask)
    if not ptr.shape and ptr.dtype.is_block_ptr():
        if mask is not None:
            raise ValueError("mask cannot be used with block pointers; use boundary_check")
        blk = ptr.dtype.element_ty
        bc = _boundary_check(boundary_check, len(blk.shape))
        value = broadcast_to_shape(cast(value, blk.element_ty), blk.shape)
        b.store_block(ptr.handle, value.handle, bc, cache, evict)
        return None
    if _unwrap(boundary_check):
        raise ValueError("boundary_check applies only to block pointers (tl.make_block_ptr)")
    shape = broadcast_shapes(ptr.shape, value.shape)
    if mask is not None:
        mask = to_tensor(mask)
        if mask.dtype != core.int1:
            mask = cast(mask, core.int1)
        shape = broadcast_shapes(shape, mask.shape)
        mask = broadcast_to_shape(mask, shape)
    if shape != ptr.shape:
        ptr = broadcast_to_shape(ptr, shape)
    elt = ptr.dtype.element_ty
    if elt.is_bool():
        elt = core.int8
        ptr = cast(ptr, pointer_type(core.int8, ptr.dtype.address_space))
    value = broadcast_to_shape(cast(value, elt), shape)
    b.store(ptr.handle, value.handle, None if mask is None else mask.handle, cache, evict)
    return None


def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    base = _unwrap(base)
    if not isinstance(base, tensor) or base.shape or not base.dtype.is_ptr() or base.dtype.is_block_ptr():
        raise TypeError("make_block_ptr's base must be a scalar pointer")
    shape, strides, offsets = (list(_unwrap(v)) for v in (shape, strides, offsets))
    block_shape = _shape(block_shape, "block_shape")
    order = tuple(_const_int(o, "order entry") for o in _unwrap(order))
    rank = len(block_shape)
    if not (len(shape) == len(strides) == len(offsets) == rank):
        raise ValueError(f"make_block_ptr: shape, strides, offsets and block_shape must have the same "
                         f"length, got {len(shape)}, {len(strides)}, {len(offsets)} and {rank}")
    if sorted(order) != list(range(rank)):
        raise ValueError(f"make_block_ptr: order {order} is not a permutation of {rank} dimensions")
    _check_shape(block_shape)
    shape = [cast(to_tensor(s), core.int64) for s in shape]
    strides = [cast(to_tensor(s), core.int64) for s in strides]
    offsets = [cast(to_tensor(s), core.int32) for s in offsets]
    for v in shape + strides + offsets:
        if v.shape:
            raise TypeError("make_block_ptr: shape, strides and offsets must be scalars")
    ret = pointer_type(block_type(base.dtype.element_ty, block_shape), base.dtype.address_space)
    h = current_builder().make_block_ptr(base.handle, [s.handle for s in shape], [s.handle for s in strides],
                                         [o.handle for o in offsets], order, ret)
    return tensor(h, ret)


def advance(base, offsets):
    base = _unwrap(base)
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or not base.dtype.is_block_ptr():
        raise TypeError("advance expects a block pointer (from tl.make_block_ptr)")
    offsets = list(_unwrap(offsets))
    rank = len(base.dtype.element_ty.shape)
    if len(offsets) != rank:
        raise ValueError(f"advance: expected {rank} offsets (the block's rank), got {len(offsets)}")
    offsets = [cast(to_tensor(o), core.int32) for o in offsets]
    return tensor(current_builder().advance(base.handle, [o.handle for o in offsets], base.type), base.type)


_SEM = {None: "acq_rel", "": "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
        "relaxed": "relaxed"}
_SCOPE = {None: "gpu", "": "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


def _atomic_prepare(ptr, val, mask, sem, scope, op):
    ptr = _unwrap(ptr)
    if not isinstance(ptr, tensor) or not ptr.dtype.is_ptr() or ptr.dtype.is_block_ptr():
        raise TypeError(f"tl.atomic_{op} expects a pointer or a tensor of pointers")
    sem_v, scope_v = _unwrap(sem), _unwrap(scope)
    if sem_v not in _SEM:
        raise ValueError(f"unsupported memory semantic {sem_v!r}; expected acquire, release, acq_rel or relaxed")
    if scope_v not in _SCOPE:
        raise ValueError(f"unsupported memory scope {scope_v!r}; expected gpu, cta or sys")
    val = to_tensor(val)
    shape = broadcast_shapes(ptr.shape, val.shape)
    mask = _unwrap(mask)
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        shape = broadcast_shapes(shape, mask.shape)
        mask = broadcast_to_shape(mask, shape)
    ptr = broadcast_to_shape(ptr, shape)
    elt = ptr.dtype.element_ty
    if elt.primitive_bitwidth < 16:
        raise TypeError(f"atomics need elements of at least 16 bits, got {elt}")
    val = broadcast_to_shape(cast(val, elt), shape)
    return ptr, val, mask, _SEM[sem_v], _SCOPE[scope_v]


def atomic_rmw(op, ptr, val, mask=None, sem=None, scope=None):
    ptr, val, mask, sem, scope = _atomic_prepare(ptr, val, mask, sem, scope, op)
    elt = val.dtype
    if op == "add":
        rmw = "fadd" if elt.is_floating() else "add"
    elif op in ("max", "min"):
        rmw = op if (elt.is_floating() or elt.is_int_signed()) else "u" + op
    elif op in ("and", "or", "xor"):
        if not elt.is_int():
            raise TypeError(f"atomic_{op} needs integer elements, got {elt}")
        rmw = op
    elif op == "xchg":
        rmw = "exch"
    else:
        raise ValueError(f"unknown atomic op {op}")
    h = current_builder().atomic_rmw(rmw, ptr.handle, val.handle, None if mask is None else mask.handle,
                                     sem, scope, val.type)
    return tensor(h, val.type)


def atomic_cas(ptr, cmp, val, sem=None, scope=None):
    ptr, val, _, sem, scope = _atomic_prepare(ptr, val, None, sem, scope, "cas")
    cmp = broadcast_to_shape(cast(to_tensor(cmp), val.dtype), val.shape)
    h = current_builder().atomic_cas(ptr.handle, cmp.handle, val.handle, sem, scope, val.type)
    return tensor(h, val.type)

# --------------------------------------------------------------- compute

_PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")


def dot(a, b, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=core.float32):
    a, b = to_tensor(a), to_tensor(b)
    input_precision, allow_tf32 = _unwrap(input_precision), _unwrap(allow_tf32)
    out_dtype = _unwrap(out_dtype)
    if input_precision is not None and allow_tf32 is not None:
        raise ValueError("pass only one of input_precision and allow_tf32")
    if input_precision is None:
        input_precision = "tf32" if allow_tf32 in (None, True) else "ieee"
    if input_precision not in _PRECISIONS:
        raise ValueError(f"input_precision must be one of {_PRECISIONS}, got {input_precision!r}")
    ra, rb = len(a.shape), len(b.shape)
    if ra not in (2, 3) or ra != rb:
        raise ValueError(f"dot needs two 2-D (or two 3-D, batched) tensors, got shapes "
                         f"{_shape_str(a.shape)} and {_shape_str(b.shape)}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"dot: incompatible shapes {_shape_str(a.shape)} and {_shape_str(b.shape)}: "
                         f"the first operand's last dimension ({a.shape[-1]}) must equal the second's "
                         f"second-to-last ({b.shape[-2]})")
    if ra == 3 and a.shape[0] != b.shape[0]:
        raise ValueError(f"dot: batch dimensions differ ({a.shape[0]} vs {b.shape[0]})")
    for s in (a.shape[-2], a.shape[-1], b.shape[-1]):
        if s < 16:
            raise ValueError(f"dot: every non-batch dimension must be >= 16, got shapes "
                             f"{_shape_str(a.shape)} and {_shape_str(b.shape)}")
    if a.dtype.is_fp8e4b15() or b.dtype.is_fp8e4b15():  # no tensor-core type: fp16 operands
        a, b = cast(a, core.float16), cast(b, core.float16)
    at, bt = a.dtype, b.dtype
    if at.is_ptr() or bt.is_ptr():
        raise TypeError("dot of pointers")
    if at != bt and not (at.is_fp8() and bt.is_fp8()):
        raise TypeError(f"dot operands must have the same element type, got {at} and {bt}")
    if at.is_int():
        if at.primitive_bitwidth != 8:
            raise TypeError(f"integer dot needs int8/uint8 operands, got {at}")
        ret_elt = core.int32
    else:
        if not isinstance(out_dtype, dtype) or not out_dtype.is_floating():
            raise TypeError(f"out_dtype must be a floating-point dtype, got {out_dtype!r}")
        if out_dtype.is_fp16() and not (at.is_fp16() or at.is_fp8()):
            raise TypeError(f"out_dtype=float16 needs float16 or fp8 operands, got {at}")
        ret_elt = core.float32 if out_dtype not in (core.float16, core.float32, core.float64) else out_dtype
        if at.is_fp64():
            ret_elt = core.float64
    shape = a.shape[:-1] + (b.shape[-1],)
    ret = block_type(ret_elt, shape)
    acc = _unwrap(acc)
    if acc is None:
        acc = tensor(current_builder().constant(0, ret), ret)
    else:
        acc = to_tensor(acc)
        if acc.shape != shape:
            raise ValueError(f"dot: the accumulator has shape {_shape_str(acc.shape)}, expected "
                             f"{_shape_str(shape)}")
        if acc.dtype != ret_elt:
            acc = cast(acc, ret_elt)
    mnia = _unwrap(max_num_imprecise_acc) or 0
    h = current_builder().dot(a.handle, b.handle, acc.handle, input_precision, mnia, ret)
    return tensor(h, ret)


def _norm_axis(axis, rank, what):
    axis = _const_int(axis, f"{what}'s axis")
    if not -rank <= axis < rank:
        raise ValueError(f"{what}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis + rank if axis < 0 else axis


def _call_combine(combine_fn, args, expected, what):
    res = combine_fn(*args)
    if not isinstance(res, tuple):
        res = (res,)
    if len(res) != len(expected):
        raise TypeError(f"{what}: the combine function returned {len(res)} values, expected {len(expected)}")
    out = []
    for r, ty in zip(res, expected):
        r = to_tensor(r)
        if r.shape:
            raise TypeError(f"{what}: the combine function must return scalars, got shape {_shape_str(r.shape)}")
        if r.dtype != ty:
            r = cast(r, ty)
        out.append(r.handle)
    return out


def reduction(inputs, axis, combine_fn, keep_dims=False, kind=None, what="reduce"):
    inputs = [to_tensor(t) for t in inputs]
    if not inputs:
        raise ValueError(f"{what} needs at least one input")
    axis = _unwrap(axis)
    keep_dims = builtins.bool(_unwrap(keep_dims))
    if axis is None:
        flat = [reshape(t, (t.numel,), can_reorder=True) if len(t.shape) > 1 else t for t in inputs]
        r = reduction(flat, 0, combine_fn, False, kind, what)
        if keep_dims:
            rs = r if isinstance(r, tuple) else (r,)
            rank = len(inputs[0].shape)
            rs = tuple(reshape(x, (1,) * rank) for x in rs)
            return rs if isinstance(r, tuple) else rs[0]
        return r
    shape = inputs[0].shape
    if not shape:
        raise ValueError(f"{what} of a scalar")
    for t in inputs[1:]:
        if t.shape != shape:
            raise ValueError(f"{what}: all inputs must have one shape, got {_shape_str(shape)} and "
                             f"{_shape_str(t.shape)}")
    axis = _norm_axis(axis, len(shape), what)
    ret_shape = shape[:axis] + shape[axis + 1:]
    elts = [t.dtype for t in inputs]
    ret_tys = [_block(e, ret_shape) for e in elts]

    def combine(handles):
        n = len(inputs)
        args = [tensor(h, elts[i % n]) for i, h in enumerate(handles)]
        return _call_combine(combine_fn, args, elts, what)

    hs = current_builder().reduce([t.handle for t in inputs], axis, combine, ret_tys, kind)
    outs = [tensor(h, ty) for h, ty in zip(hs, ret_tys)]
    if keep_dims:
        outs = [expand_dims(o, axis) for o in outs]
    return outs[0] if len(outs) == 1 else tuple(outs)


def scan(inputs, axis, combine_fn, reverse=False, kind=None, what="associative_scan"):
    inputs = [to_tensor(t) for t in inputs]
    shape = inputs[0].shape
    if not shape:
        raise ValueError(f"{what} of a scalar")
    for t in inputs[1:]:
        if t.shape != shape:
            raise ValueError(f"{what}: all inputs must have one shape")
    axis = _norm_axis(axis, len(shape), what)
    elts = [t.dtype for t in inputs]

    def combine(handles):
        n = len(inputs)
        args = [tensor(h, elts[i % n]) for i, h in enumerate(handles)]
        return _call_combine(combine_fn, args, elts, what)

    hs = current_builder().scan([t.handle for t in inputs], axis, combine, builtins.bool(_unwrap(reverse)),
                                [t.type for t in inputs], kind)
    outs = [tensor(h, t.type) for h, t in zip(hs, inputs)]
    return outs[0] if len(outs) == 1 else tuple(outs)


def histogram(x, num_bins, mask=None):
    x = to_tensor(x)
    num_bins = _const_int(num_bins, "histogram's num_bins")
    if len(x.shape) != 1 or not x.dtype.is_int():
        raise ValueError(f"histogram needs a 1-D integer tensor, got {x.type}")
    _check_shape((num_bins,))
    mask = _unwrap(mask)
    if mask is not None:
        mask = broadcast_to_shape(cast(to_tensor(mask), core.int1), x.shape)
    ret = block_type(core.int32, (num_bins,))
    return tensor(current_builder().histogram(x.handle, None if mask is None else mask.handle, ret), ret)


def gather(src, index, axis):
    src, index = to_tensor(src), to_tensor(index)
    if len(src.shape) != len(index.shape) or not src.shape:
        raise ValueError(f"gather: source and index must have the same rank, got "
                         f"{_shape_str(src.shape)} and {_shape_str(index.shape)}")
    axis = _norm_axis(axis, len(src.shape), "gather")
    for d, (s, i) in enumerate(zip(src.shape, index.shape)):
        if d != axis and s != i:
            raise ValueError(f"gather: index dimension {d} ({i}) must equal the source's ({s})")
    if not index.dtype.is_int():
        raise TypeError(f"gather: index must be integers, got {index.dtype}")
    ret = block_type(src.dtype, index.shape)
    return tensor(current_builder().gather(src.handle, index.handle, axis, ret), ret)

# --------------------------------------------------------------- hints and debug


def hint(x, kind, values):
    x = to_tensor(x)
    vals = _unwrap(values)
    if isinstance(vals, (builtins.int, constexpr)):
        vals = [vals]
    vals = [_const_int(v, f"{kind} value") for v in vals]
    if len(vals) != builtins.max(1, len(x.shape)):
        raise ValueError(f"{kind}: expected {builtins.max(1, len(x.shape))} values (one per dimension), got {len(vals)}")
    for v in vals:
        if v < 1:
            raise ValueError(f"{kind} values must be positive, got {v}")
    return tensor(current_builder().hint(x.handle, kind, vals, x.type), x.type)


def device_print(prefix, args, hex=False):
    prefix = _unwrap(prefix)
    if not isinstance(prefix, str):
        raise TypeError(f"device_print's prefix must be a string, got {prefix!r}")
    args = [to_tensor(a) for a in args]
    current_builder().device_print(prefix, [a.handle for a in args], [a.type for a in args],
                                   builtins.bool(_unwrap(hex)))


def device_assert(cond, msg=""):
    cond = cast(to_tensor(cond), core.int1)
    msg = _unwrap(msg)
    current_builder().device_assert(cond.handle, str(msg), cond.type)


def assume(cond):
    cond = to_tensor(cond)
    if cond.type.is_block():
        raise ValueError(f"tl.assume takes a scalar condition, got a tensor of shape {_shape_str(cond.shape)}")
    if cond.dtype != core.int1:
        raise TypeError(f"tl.assume takes a boolean condition (a comparison), got {cond.dtype}")
    current_builder().assume(cond.handle)


def inline_asm_elementwise(asm, constraints, args, dtype_, is_pure, pack):
    asm, constraints = _unwrap(asm), _unwrap(constraints)
    pack = _const_int(pack, "pack")
    args = [to_tensor(a) for a in _unwrap(args)]
    dts = _unwrap(dtype_)
    multi = isinstance(dts, (list, tuple))
    dts = list(dts) if multi else [dts]
    shape = ()
    for a in args:
        shape = broadcast_shapes(shape, a.shape)
    args = [broadcast_to_shape(a, shape) for a in args]
    ret_tys = [_block(_unwrap(d), shape) for d in dts]
    hs = current_builder().inline_asm(asm, constraints, [a.handle for a in args], ret_tys,
                                      builtins.bool(_unwrap(is_pure)), pack)
    outs = [tensor(h, t) for h, t in zip(hs, ret_tys)]
    return tuple(outs) if multi else outs[0]


def extern_elementwise(symbol_fp32, symbol_fp64, np_name, args, ret_float=True):
    """A libdevice-style math function: fp32/fp64 via an external symbol (numpy `np_name` in the interpreter)."""
    args = [to_tensor(a) for a in args]
    t = None
    for a in args:
        if not a.dtype.is_floating():
            raise TypeError(f"{np_name} expects floating-point arguments, got {a.dtype}")
        t = a.dtype if t is None else computation_type(t, False, a.dtype, False)
    orig = t
    if t not in (core.float32, core.float64):
        t = core.float32
    args = [cast(a, t) for a in args]
    shape = ()
    for a in args:
        shape = broadcast_shapes(shape, a.shape)
    args = [broadcast_to_shape(a, shape) for a in args]
    ret = _block(t, shape)
    sym = symbol_fp32 if t == core.float32 else symbol_fp64
    out = tensor(current_builder().extern_elementwise(sym, np_name, [a.handle for a in args], ret), ret)
    return cast(out, orig) if orig != t else out


def user_extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure):
    """tl.extern_elementwise: call `symbol` of the user's LLVM bitcode library per element, the
    symbol and result type chosen by the arguments' types in `arg_type_symbol_dict`
    ({(dtype, ...): (symbol, return dtype)}). The arguments broadcast to one shape.

    The library: the compile's extern_libs option names its file when it has `lib_name` (as in
    Triton, where lib_path may be empty), else `lib_path`. `lib_name` "libdevice" is the
    backend's libdevice (extern_libs={"libdevice": path} replaces it)."""
    import os
    lib_name, lib_path = _unwrap(lib_name), _unwrap(lib_path)
    if not isinstance(lib_name, str) or not lib_name:
        raise TypeError(f"extern_elementwise: lib_name must be a non-empty str, got {lib_name!r}")
    if not isinstance(lib_path, str):
        raise TypeError(f"extern_elementwise: lib_path must be the path of an LLVM bitcode file (or '' with "
                        f"the extern_libs option naming it), got {lib_path!r}")
    libs = getattr(current_builder(), "extern_libs", None)  # None: the interpreter (no paths needed)
    path = (libs or {}).get(lib_name) or lib_path
    if lib_name == "libdevice":
        path = ""  # linked by the backend, from extern_libs["libdevice"] when given
    elif not path and libs is not None:
        raise ValueError(f"extern_elementwise: library '{lib_name}' has no file: pass its path as lib_path or "
                         f"give the extern_libs={{'{lib_name}': path}} option (launch keyword or "
                         f"tessera.compile)")
    elif path and not os.path.isfile(path):
        raise ValueError(f"extern_elementwise: library '{lib_name}' not found at {path!r}")
    table = _unwrap(arg_type_symbol_dict)
    if not isinstance(table, dict) or not table:
        raise TypeError("extern_elementwise: arg_type_symbol_dict must be a non-empty dict "
                        "{(arg dtypes, ...): (symbol, return dtype)}")
    args = [to_tensor(a) for a in _unwrap(args)]
    key = tuple(a.dtype for a in args)
    entry = None
    for types, value in table.items():
        types = types if isinstance(types, tuple) else (types,)
        if tuple(_unwrap(t) for t in types) == key:
            entry = value
            break
    if entry is None:
        accepted = ", ".join("(" + ", ".join(str(_unwrap(t)) for t in (k if isinstance(k, tuple) else (k,))) + ")"
                             for k in table)
        raise ValueError(f"extern_elementwise: no symbol of library '{lib_name}' takes arguments "
                         f"({', '.join(str(t) for t in key)}); it has {accepted}")
    symbol, ret_dtype = _unwrap(entry[0]), _unwrap(entry[1])
    shape = ()
    for a in args:
        shape = broadcast_shapes(shape, a.shape)
    args = [broadcast_to_shape(a, shape) for a in args]
    ret = _block(ret_dtype, shape)
    h = current_builder().extern_elementwise(symbol, None, [a.handle for a in args], ret, libname=str(lib_name),
                                             libpath=os.path.abspath(path) if path else "",
                                             pure=builtins.bool(_unwrap(is_pure)))
    return tensor(h, ret)


# --------------------------------------------------------------- tensor descriptors
#
# A descriptor is a front-end value: its base pointer, a size and a stride per dimension (each a
# scalar integer tensor or a constant int) and its block type. Its loads and stores are masked
# pointer accesses: the addresses are base + sum_d (off_d + arange(B_d)) * stride_d in int64, the
# mask is the conjunction over dimensions of 0 <= off_d + i < size_d, built per dimension on 1-D
# vectors and broadcast. (The TMA engine is a later lowering of the same operations.)

MAX_DESCRIPTOR_RANK = 5


def _sequence(v, what, fn):
    v = _unwrap(v)
    if isinstance(v, (tuple, list)):
        return [_unwrap(x) for x in v]
    raise TypeError(f"{fn}: {what} must be a list or tuple (one entry per dimension), got "
                    f"{getattr(v, 'type', type(v).__name__)}")


def _index_scalar(v, what, fn, nonneg_const=False):
    """An int constant, or a scalar integer tensor as int32 or int64 (narrower and unsigned
    integers widen)."""
    v = _unwrap(v)
    if isinstance(v, tensor):
        if v.shape:
            raise TypeError(f"{fn}: {what} must be a scalar, got a tensor of shape {_shape_str(v.shape)}")
        t = v.dtype
        if not t.is_int() or t.is_bool():
            raise TypeError(f"{fn}: {what} must be an integer, got {t}")
        if t.is_int_unsigned():
            return cast(v, core.int64) if t.primitive_bitwidth >= 32 else cast(v, core.int32)
        if t.primitive_bitwidth < 32:
            return cast(v, core.int32)
        return v
    if isinstance(v, builtins.bool) or not isinstance(v, builtins.int):
        raise TypeError(f"{fn}: {what} must be an integer, got {v!r}")
    if not -2**63 <= v < 2**63:
        raise ValueError(f"{fn}: {what} ({v}) does not fit in 64 bits")
    if nonneg_const and v < 0:
        raise ValueError(f"{fn}: {what} must not be negative, got {v}")
    return v


def _padding(p, elt, fn):
    p = _unwrap(p)
    if p not in ("zero", "nan"):
        raise ValueError(f"{fn}: padding_option must be 'zero' or 'nan', got {p!r}")
    if p == "nan" and not elt.is_floating():
        raise ValueError(f"{fn}: padding_option='nan' needs a floating-point element type, got {elt}")
    return p


def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    fn = "make_tensor_descriptor"
    base = _unwrap(base)
    if not isinstance(base, tensor) or base.shape or not base.dtype.is_ptr() or base.dtype.is_block_ptr():
        raise TypeError(f"{fn}: base must be a scalar pointer, got "
                        f"{base.type if isinstance(base, tensor) else type(base).__name__}")
    shape = _sequence(shape, "shape", fn)
    strides = _sequence(strides, "strides", fn)
    block_shape = _sequence(block_shape, "block_shape", fn)
    ndim = len(shape)
    if not 1 <= ndim <= MAX_DESCRIPTOR_RANK:
        raise ValueError(f"{fn}: a descriptor has 1 to {MAX_DESCRIPTOR_RANK} dimensions, got {ndim} (the length "
                         f"of shape)")
    if len(strides) != ndim:
        raise ValueError(f"{fn}: expected {ndim} strides (one per dimension of shape), got {len(strides)}")
    if len(block_shape) != ndim:
        raise ValueError(f"{fn}: block_shape must have {ndim} dimensions like shape, got {len(block_shape)}")
    block_shape = tuple(_const_int(b, f"{fn}: each dimension of block_shape") for b in block_shape)
    _check_block_shape(block_shape, fn)
    elt = base.dtype.element_ty
    padding = _padding(padding_option, elt, fn)
    elem_bytes = elt.primitive_bitwidth // 8
    if block_shape[-1] * elem_bytes < 16:
        raise ValueError(f"{fn}: the last dimension of block_shape must span at least 16 bytes, got "
                         f"{block_shape[-1]} x {elem_bytes} bytes ({elt}) = {block_shape[-1] * elem_bytes} bytes")
    last = strides[-1]
    if isinstance(last, tensor) or isinstance(last, builtins.bool) or last != 1:
        shown = "a run-time value" if isinstance(last, tensor) else repr(last)
        raise ValueError(f"{fn}: the last stride must be the constant 1 (the innermost dimension is contiguous), "
                         f"got {shown}")
    shape = [_index_scalar(s, f"shape[{i}]", fn, nonneg_const=True) for i, s in enumerate(shape)]
    strides = [_index_scalar(s, f"strides[{i}]", fn) for i, s in enumerate(strides[:-1])] + [1]
    ty = core.tensor_descriptor_type(block_type(elt, block_shape),
                                     [s.dtype if isinstance(s, tensor) else s for s in shape],
                                     [s.dtype if isinstance(s, tensor) else s for s in strides], padding)
    desc = core.tensor_descriptor(base, shape, strides, ty)
    _device_tensor_map(desc)
    return desc


def _device_tensor_map(desc):
    """Where the target makes TMA tensor maps on the device (IRBuilder.device_tensor_maps) and the
    descriptor is one its copies cover (2-D, zero padding, elements of 1, 2, 4 or 8 bytes, 32-bit
    sizes, a box of at most 256 per dimension), emits tt.make_tensor_descriptor and sets
    desc.device_map and desc.device_map_valid: the conditions TMA needs of the tensor that hold
    only at run time (the address, the row strides and the inner size 16-byte aligned, the
    strides and sizes positive). Accesses test them with their offsets (_tma_guard) and fall back
    to pointers; ttng-tma-lowering drops what AxisInfo proves. Constants that fail them: no map."""
    b = current_builder()
    if not getattr(b, "device_tensor_maps", False) or len(desc.block_shape) != 2 or desc.type.padding != "zero":
        return
    # A map lives in the kernel's global scratch: none in a noinline function (pointers there).
    if b.in_noinline_function():
        return
    bits = desc.dtype.primitive_bitwidth
    eb = bits // 8
    if bits % 8 or eb not in (1, 2, 4, 8) or any(n > 256 for n in desc.block_shape) or \
            (desc.block_shape[-1] * eb) % 16:
        return
    step = 16 // eb  # elements per 16 bytes
    conds = []

    def need(c):  # a run-time condition (tensor) or a constant one (bool)
        if isinstance(c, tensor):
            conds.append(c)
            return True
        return bool(c)

    ok = need(compare("eq", mod(cast(desc.base, core.int64), 16), 0))
    dims = []
    for d, n in enumerate(desc.shape):
        if isinstance(n, tensor):
            if n.dtype.primitive_bitwidth > 32:
                return
            ok = ok and need(compare("gt", n, 0))
            if d == len(desc.shape) - 1:
                ok = ok and need(compare("eq", mod(n, step), 0))
            dims.append(n)
        else:
            if not 0 < n < 2**31 or (d == len(desc.shape) - 1 and n % step):
                return
            dims.append(to_tensor(n))
    strides = []
    for st in desc.strides[:-1]:
        if isinstance(st, tensor):
            ok = ok and need(compare("gt", st, 0)) and need(compare("eq", mod(st, step), 0))
            if st.dtype.primitive_bitwidth > 32:
                ok = ok and need(compare("lt", st, 2**40 // eb))
            strides.append(cast(st, core.int64))
        else:
            if not 0 < st * eb < 2**40 or st % step:
                return
            strides.append(cast(to_tensor(st), core.int64))
    if not ok:
        return
    strides.append(cast(to_tensor(1), core.int64))
    map_ty = core.tensor_map_type(desc.block_type)
    desc.device_map = tensor(b.make_tensor_descriptor(desc.base.handle, [d.handle for d in dims],
                                                      [st.handle for st in strides], map_ty), map_ty)
    valid = True
    for c in conds:
        valid = c if valid is True else logical_and(valid, c)
    desc.device_map_valid = valid


def _check_block_shape(block_shape, fn):
    n = 1
    for i, s in enumerate(block_shape):
        if s <= 0 or s & (s - 1):
            raise ValueError(f"{fn}: block_shape {_shape_str(block_shape)}: dimension {i} must be a power of 2, "
                             f"got {s}")
        n *= s
    if n > MAX_NUMEL:
        raise ValueError(f"{fn}: block_shape {_shape_str(block_shape)} has {n} elements, more than the limit of "
                         f"{MAX_NUMEL}")


def _descriptor(desc, what):
    desc = _unwrap(desc)
    if not isinstance(desc, core.tensor_descriptor):
        raise TypeError(f"{what} expects a tensor descriptor (tl.make_tensor_descriptor or a TensorDescriptor "
                        f"argument), got {getattr(desc, 'type', type(desc).__name__)}")
    return desc


def _descriptor_offsets(desc, offsets, what):
    offsets = _sequence(offsets, "offsets", what)
    rank = len(desc.block_shape)
    if len(offsets) != rank:
        raise ValueError(f"{what}: expected {rank} offsets (one per dimension of the block "
                         f"{_shape_str(desc.block_shape)}), got {len(offsets)}")
    return [_index_scalar(o, f"offset {i}", what) for i, o in enumerate(offsets)]


def _fits_i32(v):
    if isinstance(v, tensor):
        return v.dtype.primitive_bitwidth <= 32
    return -2**31 <= v < 2**31


def _along(x, d, rank):
    """The 1-D tensor `x` as a rank-`rank` tensor whose only non-1 dimension is `d`."""
    axes = [a for a in range(rank) if a != d]
    return expand_dims(x, axes) if axes else x


def _descriptor_dim(desc, d, off, idx=None):
    """(element offsets in int64, in-bounds mask or None) along dimension d of the block, as 1-D
    tensors of the block's extent there; `idx` (1-D) replaces off + arange (gather rows)."""
    size, stride = desc.shape[d], desc.strides[d]
    if idx is None:
        n = desc.block_shape[d]
        idx = arange(0, n)
        if not (_fits_i32(off) and _fits_i32(size)):
            idx = cast(idx, core.int64)
        if isinstance(off, tensor) or off != 0:
            idx = add(idx, off)
        static = not isinstance(off, tensor) and not isinstance(size, tensor)
        if static and off >= 0 and off + n <= size:
            mask = None  # known in bounds
        elif not isinstance(off, tensor) and off >= 0:
            mask = compare("lt", idx, size)
        else:
            mask = logical_and(compare("ge", idx, 0), compare("lt", idx, size))
    else:
        if not _fits_i32(size) and idx.dtype.primitive_bitwidth < 64:
            idx = cast(idx, core.int64)
        mask = logical_and(compare("ge", idx, 0), compare("lt", idx, size))
    elems = cast(idx, core.int64)
    if isinstance(stride, tensor) or stride != 1:
        elems = mul(elems, cast(stride, core.int64) if isinstance(stride, tensor) else stride)
    return elems, mask


def _descriptor_access(desc, offsets, shape, rows=None):
    """(pointers, mask or None) of a block of `shape` at `offsets` (rows: gather's row indices)."""
    rank = len(shape)
    total, mask = None, None
    for d in range(rank):
        e, m = _descriptor_dim(desc, d, offsets[d], rows if d == 0 else None)
        e = _along(e, d, rank)
        total = e if total is None else add(total, e)
        if m is not None:
            m = _along(m, d, rank)
            mask = m if mask is None else logical_and(mask, m)
    total = broadcast_to_shape(total, shape)
    if mask is not None:
        mask = broadcast_to_shape(mask, shape)
    return add(desc.base, total), mask


def _descriptor_other(desc, mask):
    if mask is None:
        return None
    return float("nan") if desc.type.padding == "nan" else 0


def _tma_store_guard(desc, offsets):
    """_tma_guard for a store, which TMA also needs at non-negative coordinates (a store at a
    negative one stopped the kernel with an illegal instruction on the H200): each offset >= 0
    (ttng-tma-lowering folds what it knows to be non-negative, e.g. pid * BLOCK)."""
    guard = _tma_guard(desc, offsets)
    for off in offsets:
        if guard is False:
            return False
        c = compare("ge", off, 0) if isinstance(off, tensor) else off >= 0
        if c is False:
            return False
        if c is not True:
            guard = c if guard is True else logical_and(guard, c)
    return guard


def _tma_guard(desc, offsets):
    """Whether a copy through the descriptor's tensor map may start at `offsets`: TMA needs the
    innermost offset to be a multiple of 16 bytes, and a map made in the kernel its run-time
    conditions (device_map_valid). True or False where known, else an i1 scalar computed at run
    time (srem(offset, 16 / element bytes) == 0 and the map's conditions; ttng-tma-lowering
    folds to true what AxisInfo proves)."""
    step = max(1, 16 // max(1, desc.dtype.primitive_bitwidth // 8))
    inner = offsets[-1]
    guard = inner % step == 0 if not isinstance(inner, tensor) else compare("eq", mod(inner, step), 0)
    valid = desc.device_map_valid if desc.tensor_map is None else True
    if guard is False or valid is True:
        return guard
    return valid if guard is True else logical_and(valid, guard)


def _tensor_map(desc):
    """The descriptor's TMA tensor map (the launcher's, or one made in the kernel), or None."""
    return desc.tensor_map if desc.tensor_map is not None else getattr(desc, "device_map", None)


def _if_else(cond, ret, then_fn, else_fn):
    """Both ways under an scf.if on the i1 scalar `cond`: the branch functions return a tensor of
    type `ret` (or None for none)."""
    b = current_builder()
    results = b.if_then_else(cond.handle, [ret] if ret is not None else [],
                             lambda: [then_fn().handle] if ret is not None else then_fn(),
                             lambda: [else_fn().handle] if ret is not None else else_fn())
    return tensor(results[0], ret) if ret is not None else None


def _tensor_map_offsets(desc, offsets):
    """The int32 offsets of a copy through the descriptor's TMA tensor map, or None when it has
    none or an offset is a 64-bit value (TMA coordinates are 32-bit: such accesses stay pointer
    accesses, which wrap nothing)."""
    if _tensor_map(desc) is None:
        return None
    out = []
    for o in offsets:
        if isinstance(o, tensor):
            if o.dtype.primitive_bitwidth > 32:
                return None
            out.append(o)
        elif -2**31 <= o < 2**31:
            out.append(to_tensor(o))
        else:
            return None
    return out


def descriptor_load(desc, offsets, cache_modifier="", eviction_policy=""):
    what = "tensor descriptor load"
    desc = _descriptor(desc, what)
    offsets = _descriptor_offsets(desc, offsets, what)
    coords = _tensor_map_offsets(desc, offsets)

    def by_pointers():
        ptrs, mask = _descriptor_access(desc, offsets, desc.block_type.shape)
        return load(ptrs, mask, _descriptor_other(desc, mask), cache_modifier=cache_modifier,
                    eviction_policy=eviction_policy)

    def by_tma(guarded=False):  # the copy engine: zero fill out of bounds, as the pointer path's mask
        ret = desc.block_type
        return tensor(current_builder().descriptor_load(_tensor_map(desc).handle, [c.handle for c in coords], ret,
                                                        guarded=guarded), ret)
    if coords is None:
        return by_pointers()
    guard = _tma_guard(desc, offsets)
    if guard is True:
        return by_tma()
    if guard is False:
        return by_pointers()
    # The copy in the guard's then-branch is marked (tt.tma_guarded): ttng-tma-lowering may take
    # either branch of such a guard, and of no other if.
    return _if_else(guard, desc.block_type, lambda: by_tma(True), by_pointers)


def _descriptor_value(desc, value, shape, what):
    value = to_tensor(value)
    if value.shape != tuple(shape):
        raise ValueError(f"{what}: the value has shape {_shape_str(value.shape)}, but the block it writes has shape "
                         f"{_shape_str(shape)}; they must be equal")
    return value


def descriptor_store(desc, offsets, value):
    what = "tensor descriptor store"
    desc = _descriptor(desc, what)
    offsets = _descriptor_offsets(desc, offsets, what)
    value = _descriptor_value(desc, value, desc.block_shape, what)
    coords = _tensor_map_offsets(desc, offsets)
    value = cast(value, desc.dtype)

    def by_pointers():
        ptrs, mask = _descriptor_access(desc, offsets, desc.block_type.shape)
        store(ptrs, value, mask)

    def by_tma(guarded=False):  # the copy engine writes the in-bounds elements only
        current_builder().descriptor_store(_tensor_map(desc).handle, [c.handle for c in coords], value.handle,
                                           guarded=guarded)
    guard = _tma_store_guard(desc, offsets) if coords is not None else False
    if guard is True:
        by_tma()
    elif guard is False:
        by_pointers()
    else:
        _if_else(guard, None, lambda: by_tma(True), by_pointers)
    return None


# The element types of a descriptor's atomics (Triton's, less fp16/bf16 min/max, which need the
# TMA engine: as pointer atomics they are not available).
_DESC_ATOMIC_TYPES = {
    "add": ("uint32", "int32", "uint64", "fp32", "fp16", "bf16"),
    "min": ("uint32", "int32", "uint64", "int64"),
    "max": ("uint32", "int32", "uint64", "int64"),
    "and": ("uint32", "int32", "uint64", "int64"),
    "or": ("uint32", "int32", "uint64", "int64"),
    "xor": ("uint32", "int32", "uint64", "int64"),
}


def descriptor_atomic(op, desc, offsets, value):
    """desc.atomic_<op>(offsets, value): an atomic read-modify-write of each in-bounds element of
    the block; returns nothing (as in Triton)."""
    what = f"tensor descriptor atomic_{op}"
    desc = _descriptor(desc, what)
    if desc.dtype.name not in _DESC_ATOMIC_TYPES[op]:
        allowed = ", ".join(str(core.DTYPES_BY_NAME[n]) for n in _DESC_ATOMIC_TYPES[op])
        raise TypeError(f"{what} does not support {desc.dtype} elements; supported: {allowed}")
    offsets = _descriptor_offsets(desc, offsets, what)
    value = _descriptor_value(desc, value, desc.block_shape, what)
    ptrs, mask = _descriptor_access(desc, offsets, desc.block_type.shape)
    atomic_rmw(op, ptrs, cast(value, desc.dtype), mask)
    return None


def _gather_checks(desc, x_offsets, what):
    if len(desc.block_shape) != 2 or desc.block_shape[0] != 1:
        raise ValueError(f"{what} needs a 2-D descriptor whose block has 1 row, got block shape "
                         f"{_shape_str(desc.block_shape)}")
    x_offsets = to_tensor(x_offsets)
    if len(x_offsets.shape) != 1 or not x_offsets.dtype.is_int() or x_offsets.dtype.is_bool():
        raise TypeError(f"{what}: x_offsets must be a 1-D tensor of integers, got {x_offsets.type}")
    if x_offsets.shape[0] < 8:
        raise ValueError(f"{what} needs at least 8 rows, got x_offsets of shape {_shape_str(x_offsets.shape)}")
    min_cols = 32 // builtins.max(1, desc.dtype.primitive_bitwidth) * 8
    if desc.block_shape[1] < min_cols:
        raise ValueError(f"{what} of {desc.dtype} needs at least {min_cols} columns, got {desc.block_shape[1]}")
    if x_offsets.dtype.is_int_unsigned() or x_offsets.dtype.primitive_bitwidth < 32:
        x_offsets = cast(x_offsets, core.int64 if x_offsets.dtype.primitive_bitwidth >= 32 else core.int32)
    return x_offsets


def descriptor_gather(desc, x_offsets, y_offset):
    """The rows `x_offsets` (1-D) of a 2-D descriptor whose block is one row, from column y_offset:
    a [len(x_offsets), block_shape[1]] tensor; out-of-bounds elements are the padding."""
    what = "tensor descriptor gather"
    desc = _descriptor(desc, what)
    x_offsets = _gather_checks(desc, x_offsets, what)
    y = _index_scalar(y_offset, "y_offset", what)
    shape = (x_offsets.shape[0], desc.block_shape[1])
    ptrs, mask = _descriptor_access(desc, [None, y], shape, rows=x_offsets)
    return load(ptrs, mask, _descriptor_other(desc, mask))


def descriptor_scatter(desc, value, x_offsets, y_offset):
    """Writes `value` ([len(x_offsets), block_shape[1]]) to the rows `x_offsets` of a 2-D
    descriptor whose block is one row, from column y_offset (in-bounds elements only)."""
    what = "tensor descriptor scatter"
    desc = _descriptor(desc, what)
    x_offsets = _gather_checks(desc, x_offsets, what)
    y = _index_scalar(y_offset, "y_offset", what)
    shape = (x_offsets.shape[0], desc.block_shape[1])
    value = _descriptor_value(desc, value, shape, what)
    ptrs, mask = _descriptor_access(desc, [None, y], shape, rows=x_offsets)
    store(ptrs, cast(value, desc.dtype), mask)
    return None
