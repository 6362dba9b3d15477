"""Argument specialization: the types and properties of launch arguments that a kernel is compiled for."""

from ..language import core

_TORCH_DTYPES = None


def _torch_dtype_map():
    global _TORCH_DTYPES
    if _TORCH_DTYPES is None:
        try:
            import torch
        except ImportError:
            _TORCH_DTYPES = {}
            return _TORCH_DTYPES
        m = {torch.float32: core.float32, torch.float16: core.float16, torch.bfloat16: core.bfloat16,
             torch.float64: core.float64, torch.int8: core.int8, torch.int16: core.int16, torch.int32: core.int32,
             torch.int64: core.int64, torch.uint8: core.uint8, torch.bool: core.int1}
        for name, ty in (("float8_e4m3fn", core.float8e4nv), ("float8_e5m2", core.float8e5),
                         ("uint16", core.uint16), ("uint32", core.uint32), ("uint64", core.uint64)):
            if hasattr(torch, name):
                m[getattr(torch, name)] = ty
        _TORCH_DTYPES = m
    return _TORCH_DTYPES


_NUMPY_KINDS = {("f", 2): core.float16, ("f", 4): core.float32, ("f", 8): core.float64,
                ("i", 1): core.int8, ("i", 2): core.int16, ("i", 4): core.int32, ("i", 8): core.int64,
                ("u", 1): core.uint8, ("u", 2): core.uint16, ("u", 4): core.uint32, ("u", 8): core.uint64,
                ("b", 1): core.int1}


def element_type_of(value, name="argument"):
    """The tl dtype of the elements of a tensor-like argument (torch tensor or numpy array)."""
    dt = getattr(value, "dtype", None)
    tm = _torch_dtype_map()
    if dt in tm:
        return tm[dt]
    kind = getattr(dt, "kind", None)
    size = getattr(dt, "itemsize", None)
    if (kind, size) in _NUMPY_KINDS:
        return _NUMPY_KINDS[(kind, size)]
    raise TypeError(f"argument '{name}': unsupported tensor element type {dt}")


def is_tensor_like(value):
    return hasattr(value, "data_ptr") or (hasattr(value, "__array_interface__") and hasattr(value, "dtype"))


def data_ptr(value):
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    return value.__array_interface__["data"][0]


def scalar_type(value, name):
    if isinstance(value, bool):
        return core.int1
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return core.int32
        if 2**63 <= value < 2**64:
            return core.uint64
        if -2**63 <= value < 2**63:
            return core.int64
        raise ValueError(f"argument '{name}': integer {value} does not fit in 64 bits")
    if isinstance(value, float):
        return core.float32
    raise TypeError(f"argument '{name}': unsupported type {type(value).__name__} (expected a tensor, int, float, "
                    f"bool or None)")


def _leaf(name, value, nospec, noalign):
    """(type, attrs, constant-or-None) of one run-time argument (not a tuple)."""
    if value is None:
        return None, {}, None
    if is_tensor_like(value):
        ty = core.pointer_type(element_type_of(value, name))
        a = {}
        if not noalign and data_ptr(value) % 16 == 0:
            a["tt.divisibility"] = "16 : i32"
        return ty, a, None
    ty = scalar_type(value, name)
    a = {}
    if ty.is_int() and not ty.is_bool() and not noalign and value % 16 == 0:
        a["tt.divisibility"] = "16 : i32"
    return ty, a, None


def specialize(jit_fn, bound):
    """(arg_types, constexprs, arg_attrs, key) for bound launch arguments.

    A tuple argument (of tensors and scalars, possibly nested) becomes a tuple of types and a tuple
    of attribute dicts; its leaves are separate kernel parameters.
    """
    arg_types, consts, attrs, key = {}, {}, {}, []
    for name, value in bound.items():
        if isinstance(value, (tuple, list)) and name not in jit_fn.constexpr_names:
            nospec = name in jit_fn.do_not_specialize
            noalign = nospec or name in jit_fn.do_not_specialize_on_alignment

            def go(v, path):
                if isinstance(v, (tuple, list)):
                    parts = [go(x, f"{path}[{i}]") for i, x in enumerate(v)]
                    return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
                ty, a, _ = _leaf(path, v, nospec, noalign)
                return ty, a
            ty, a = go(value, name)
            arg_types[name], attrs[name] = ty, a
            key.append((name, "tuple", repr(ty), repr(a)))
            continue
        if name in jit_fn.constexpr_names:
            v = core._unwrap(value)
            consts[name] = v
            key.append((name, "c", repr(v)))
            continue
        if value is None:
            arg_types[name] = None
            key.append((name, "none"))
            continue
        nospec = name in jit_fn.do_not_specialize
        noalign = nospec or name in jit_fn.do_not_specialize_on_alignment
        if is_tensor_like(value):
            ty = core.pointer_type(element_type_of(value, name))
            arg_types[name] = ty
            a = {}
            if not noalign and data_ptr(value) % 16 == 0:
                a["tt.divisibility"] = "16 : i32"
            attrs[name] = a
            key.append((name, str(ty), tuple(a.items())))
            continue
        ty = scalar_type(value, name)
        if ty.is_int() and not ty.is_bool() and not nospec and value == 1:
            consts[name] = 1
            key.append((name, "one"))
            continue
        arg_types[name] = ty
        a = {}
        if ty.is_int() and not ty.is_bool() and not noalign and value % 16 == 0:
            a["tt.divisibility"] = "16 : i32"
        attrs[name] = a
        key.append((name, str(ty), tuple(a.items())))
    return arg_types, consts, attrs, tuple(key)
