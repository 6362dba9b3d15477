"""Argument specialization: what a kernel is compiled for, decoded from the launcher's key.

The C++ launcher (tessera._C.Launcher) turns launch arguments into a key; this module gives the
element-type codes it uses, describes the tensor-likes it does not read natively (numpy arrays,
DLPack producers, a backend's array-interface protocol, torch tensors on backends that do not
read them natively), and decodes a key into the kernel's argument types, constants and `tt.*`
attributes. Which device a tensor's memory belongs to is the launch backend's answer.
"""

import numbers
import sys

from .. import _core, backends
from ..language import core
from . import tensor_descriptor
from .wrapper import TensorWrapper

# Element types of pointer arguments, by code (a key leaf's dtype field). Append only.
DTYPES = [None, core.float32, core.float16, core.bfloat16, core.float64, core.int8, core.int16, core.int32,
          core.int64, core.uint8, core.uint16, core.uint32, core.uint64, core.int1, core.float8e4nv,
          core.float8e5, core.float8e4b15, core.float8e4b8, core.float8e5b16]
_CODE = {ty.name: i for i, ty in enumerate(DTYPES) if ty is not None}

_TORCH_CODES = None


def torch_dtype_codes():
    """{torch.dtype: code} for the torch dtypes kernels accept ({} without torch)."""
    global _TORCH_CODES
    if _TORCH_CODES is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return {}
        m = {}
        for tname, ty in (("float32", core.float32), ("float16", core.float16), ("bfloat16", core.bfloat16),
                          ("float64", core.float64), ("int8", core.int8), ("int16", core.int16),
                          ("int32", core.int32), ("int64", core.int64), ("uint8", core.uint8),
                          ("bool", core.int1), ("float8_e4m3fn", core.float8e4nv),
                          ("float8_e5m2", core.float8e5), ("float8_e4m3fnuz", core.float8e4b8),
                          ("float8_e5m2fnuz", core.float8e5b16), ("uint16", core.uint16),
                          ("uint32", core.uint32), ("uint64", core.uint64)):
            if hasattr(torch, tname):
                m[getattr(torch, tname)] = _CODE[ty.name]
        _TORCH_CODES = m
    return _TORCH_CODES


# array-interface typestr kind+size -> dtype
_TYPESTR = {("f", 2): core.float16, ("f", 4): core.float32, ("f", 8): core.float64, ("i", 1): core.int8,
            ("i", 2): core.int16, ("i", 4): core.int32, ("i", 8): core.int64, ("u", 1): core.uint8,
            ("u", 2): core.uint16, ("u", 4): core.uint32, ("u", 8): core.uint64, ("b", 1): core.int1}
# DLPack (type code, bits) -> dtype: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
_DLPACK = {(0, 8): core.int8, (0, 16): core.int16, (0, 32): core.int32, (0, 64): core.int64,
           (1, 8): core.uint8, (1, 16): core.uint16, (1, 32): core.uint32, (1, 64): core.uint64,
           (2, 16): core.float16, (2, 32): core.float32, (2, 64): core.float64, (4, 16): core.bfloat16,
           (6, 8): core.int1, (1, 1): core.int1}


def _typestr_code(typestr, name):
    kind, size = typestr[1], int(typestr[2:])
    ty = _TYPESTR.get((kind, size))
    if ty is None:
        raise TypeError(f"{name}: unsupported element type {typestr!r}")
    return _CODE[ty.name]


def _extent_bytes(shape, strides, itemsize):
    """Bytes from the first element to one past the last (strides in bytes, None: contiguous)."""
    if any(s == 0 for s in shape):
        return 0
    if strides is None:
        n = 1
        for s in shape:
            n *= s
        return n * itemsize
    return sum((s - 1) * abs(st) for s, st in zip(shape, strides)) + itemsize


def _storage_bytes(t):
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage().nbytes()
    st = t.storage()  # torch < 2.0
    return st.size() * st.element_size()


def _array_interface(ai, name, device):
    itemsize = int(ai["typestr"][2:])
    return (int(ai["data"][0]), _typestr_code(ai["typestr"], name), device,
            _extent_bytes(ai["shape"], ai.get("strides"), itemsize))


def describe(value, name, launcher=None, backend=None):
    """(address, dtype code, device ordinal or -1 for memory kernels cannot use, bytes spanned) of
    a tensor-like the launcher does not read natively; a Python int/float/bool for numpy scalars
    and other numbers; TypeError for anything else. `backend` (default: the launcher's, else the
    launch backend) says which device memory belongs to. With `launcher`, a torch tensor also
    lets the launcher read torch tensors natively where the backend allows it."""
    if backend is None:
        backend = getattr(launcher, "_backend", None) or backends.launch_backend() or backends.Backend()
    if isinstance(value, TensorWrapper):
        code = _CODE.get(value.dtype.name)
        if code is None:
            raise TypeError(f"{name}: kernels cannot take pointers to {value.dtype}")
        base = describe(value.base, name, launcher, backend)
        return (base[0], code) + tuple(base[2:])
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        if launcher is not None:
            install_torch(launcher, backend)
        code = torch_dtype_codes().get(value.dtype)
        if code is None:
            raise TypeError(f"{name}: unsupported tensor element type {value.dtype}")
        return (value.data_ptr(), code, backend.tensor_device(value), _storage_bytes(value))
    if isinstance(value, (bool, int, float)):
        return value
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic):
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            return float(value)
    elif isinstance(value, numbers.Integral):
        return int(value)
    elif isinstance(value, numbers.Real):
        return float(value)
    found = backend.array_interface(value, name)
    if found is not None:
        return _array_interface(found[0], name, found[1])
    if hasattr(value, "__array_interface__") and hasattr(value, "dtype"):
        return _array_interface(value.__array_interface__, name, backend.host_device)
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        dev_type, dev_id = value.__dlpack_device__()
        ptr, tcode, bits, lanes, extent = _core._native().dlpack_info(value.__dlpack__())
        ty = _DLPACK.get((tcode, bits))
        if ty is None or lanes != 1:
            raise TypeError(f"{name}: unsupported DLPack element type (code {tcode}, {bits} bits, "
                            f"{lanes} lanes)")
        return (ptr, _CODE[ty.name], backend.dlpack_device(int(dev_type), int(dev_id)), extent)
    raise TypeError(f"{name}: unsupported type {type(value).__name__} (expected a tensor, int, float, bool, "
                    f"None, or a tuple of them)")


class _NoTensor:
    """A type no argument has: the launcher then hands every tensor to describe()."""


def install_torch(launcher, backend):
    """Let a launcher read torch tensors natively and ask torch for the current stream/device,
    where `backend` allows it (Backend.torch_launch_hooks); otherwise undo what another backend
    installed, so that tensors go through describe()."""
    torch = sys.modules.get("torch")
    hooks = backend.torch_launch_hooks(torch) if torch is not None and backend is not None else None
    if hooks is not None:
        launcher._set_torch(torch.Tensor, torch_dtype_codes(), *hooks)
        launcher._torch_native = True
    elif getattr(launcher, "_torch_native", False):
        b = backend or backends.Backend()
        launcher._set_torch(_NoTensor, {}, b.current_stream, b.current_device)
        launcher._torch_native = False


def constexpr_key(value):
    """A hashable, type-tagged canonical form of a constexpr value, for the launch key: floats by
    their exact bits (0.0 and -0.0 differ), tuples and lists element by element, unhashable values
    by type and repr."""
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple((type(x), constexpr_key(x)) for x in value))
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    try:
        hash(value)
        return ("obj", value)
    except TypeError:
        return ("repr", f"{type(value).__module__}.{type(value).__qualname__}", repr(value))


class Specialized:
    """A decoded key: what one compilation of a kernel is for."""

    __slots__ = ("key", "arg_types", "constexprs", "attrs", "options", "device", "num_params")

    def __repr__(self):
        return (f"Specialized(types={self.arg_types}, constexprs={self.constexprs}, attrs={self.attrs}, "
                f"options={self.options})")


def decode(jit_fn, key, spec, bound=None):
    """Decode a launcher key into argument types, constants and `tt.*` attributes. Constexpr values
    come from `bound` (the bound arguments, in parameter order) when given."""
    lay = _core._native().LEAF_LAYOUT
    kinds = {lay["i1"]: core.int1, lay["i32"]: core.int32, lay["i64"]: core.int64, lay["u64"]: core.uint64,
             lay["f32"]: core.float32}
    out = Specialized()
    out.key = key
    out.arg_types, out.constexprs, out.attrs = {}, {}, {}
    count = 0

    def leaf(code):
        nonlocal count
        kind = code & 15
        if kind == lay["none"]:
            return None, {}
        if kind == lay["ptr"]:
            ty = core.pointer_type(DTYPES[(code >> lay["dtype_shift"]) & 255])
            count += 1
            return ty, spec.attrs(code, True)
        count += 1
        ty = kinds[kind]
        return ty, (spec.attrs(code, False) if ty.is_int() and not ty.is_bool() else {})

    def descriptor(entry):
        # A TensorDescriptor (runtime/tensor_descriptor.py): (base, sizes, strides but the last, meta
        # [, tensor map]).
        nonlocal count
        ptr, ptr_attrs = leaf(entry[0])
        sizes = [leaf(c) for c in entry[1]]
        strides = [leaf(c) for c in entry[2]]
        block, padding = tensor_descriptor.block_and_padding(entry)
        tma = tensor_descriptor.has_tensor_map(entry)
        if tma:
            count += 1  # the tensor map: one by-value parameter
        ty = core.tensor_descriptor_type(core.block_type(ptr.element_ty, block), [t for t, _ in sizes],
                                         [t for t, _ in strides] + [1], padding, tma=tma)
        return ty, (ptr_attrs,) + tuple(a for _, a in sizes + strides) + (({},) if tma else ())

    def tup(entry):
        if tensor_descriptor.is_key_entry(entry):
            return descriptor(entry)
        if isinstance(entry, tuple):
            parts = [tup(e) for e in entry]
            return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
        return leaf(entry)

    k = 0
    for idx, name in enumerate(jit_fn.arg_names):
        if name in jit_fn.constexpr_names:
            out.constexprs[name] = core._unwrap(bound[idx]) if bound is not None else key[k + 1]
            k += 2
            continue
        entry = key[k]
        k += 1
        if isinstance(entry, tuple):
            out.arg_types[name], out.attrs[name] = tup(entry)
        elif entry & 15 == lay["one"]:
            out.constexprs[name] = 1
        else:
            out.arg_types[name], out.attrs[name] = leaf(entry)
    out.options = {n: v for n, v in zip(backends.KEY_OPTIONS, key[k:k + len(backends.KEY_OPTIONS)]) if v is not None}
    out.device = key[-1]
    out.num_params = count
    return out


def specialize(jit_fn, bound, backend=None):
    """(arg_types, constexprs, attrs, key) of bound arguments ({name: value}) for the backend
    registered as `backend` (a target prefix; None: the launch backend, else the first
    registered)."""
    if backend is not None:
        b = backends.get(backend)
    else:
        b = backends.launch_backend() or backends.get(backends.names()[0])
    key, bound_list = jit_fn._specialize((), dict(bound), b.specialization.config())
    d = decode(jit_fn, key, b.specialization, bound_list)
    return d.arg_types, d.constexprs, d.attrs, key
