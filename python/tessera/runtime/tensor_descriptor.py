"""TensorDescriptor: a kernel argument that describes a tensor in global memory (its base, shape and
strides) and the block it is loaded and stored in (`block_shape`), as
triton.tools.tensor_descriptor.TensorDescriptor. Users import it from
tessera.tools.tensor_descriptor.

In the kernel the parameter is a tl.tensor_descriptor. Its element type (the base's), rank,
block_shape and padding are part of the specialization, so a different block_shape compiles
another kernel; the base pointer, the sizes and the strides but the last (which is always 1) are
run-time arguments. Integers are specialized as plain int arguments are (i32 or i64 by value,
divisibility).

How the launcher sees it: the C++ launch path walks tuples natively, so a TensorDescriptor is a
tuple (subclass) whose iteration yields what the launcher packs and keys on, computed from the
current attributes at each launch (the autotuner's pre_hook may set block_shape just before):

    (base, (size_0, ...), (stride_0, ..., stride_{rank-2}), (MARK, block, padding)[, tensor_map])

where MARK is a nesting of empty tuples that no ordinary argument has, `block` holds log2(B_d)
Nones per dimension and `padding` one None for "nan", none for "zero": Nones are neither packed
nor passed, but the lengths are part of the key. specialize.decode turns such a key entry back
into a tl.tensor_descriptor_type.

`tensor_map` (128 bytes) is there when the launch backend encodes one for this descriptor (the
cuda backend: a TMA tensor map on a GPU with TMA, see set_tensor_map_encoder); the kernel then
receives it as a by-value parameter and its loads and stores use the copy engine. Its key is the
launcher's tensor-map leaf code, so kernels with and without it are different specializations.
"""

import dataclasses
from typing import Any, List

from ..language import core, semantic

MAX_RANK = 5
# The first element of a descriptor's last key entry (the key of an entry equals the entry here,
# since it holds no leaves).
MARK = ((((),),),)


# fn(descriptor, shape, strides, block) -> 128 bytes or None: the launch backend's tensor-map
# encoder (None: no backend encodes tensor maps).
_tensor_map_encoder = None


def set_tensor_map_encoder(fn):
    """Install the launch backend's tensor-map encoder (None removes it). It is called when a
    descriptor's launch state changes and returns the 128-byte map, or None to pass the
    descriptor without one (pointer accesses)."""
    global _tensor_map_encoder
    _tensor_map_encoder = fn


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _element_size(base):
    if hasattr(base, "element_size"):
        return int(base.element_size())
    dt = getattr(base, "dtype", None)
    size = getattr(dt, "itemsize", None)
    if size is None:
        raise TypeError(f"TensorDescriptor: base must be a tensor (with data_ptr() and a dtype), got "
                        f"{type(base).__name__}")
    return int(size)


def _data_ptr(base):
    if hasattr(base, "data_ptr"):
        return int(base.data_ptr())
    ai = getattr(base, "__array_interface__", None)
    if ai is not None:
        return int(ai["data"][0])
    raise TypeError(f"TensorDescriptor: base must be a tensor (with data_ptr() and a dtype), got "
                    f"{type(base).__name__}")


def _is_float_base(base):
    dt = getattr(base, "dtype", None)
    if isinstance(dt, core.dtype):  # a TensorWrapper
        return dt.is_floating()
    if getattr(dt, "is_floating_point", None) is not None:  # torch
        return bool(dt.is_floating_point)
    kind = getattr(dt, "kind", None)  # numpy
    return kind == "f"


def check_block_shape(block_shape, rank=None):
    """block_shape as a tuple of ints, checked: one power of 2 per dimension."""
    if isinstance(block_shape, (str, bytes)) or not hasattr(block_shape, "__len__"):
        raise TypeError(f"TensorDescriptor: block_shape must be a list of ints, got {block_shape!r}")
    out = []
    for i, b in enumerate(block_shape):
        b = b.value if isinstance(b, core.constexpr) else b
        if not _is_int(b):
            raise TypeError(f"TensorDescriptor: block_shape[{i}] must be an int, got {b!r}")
        if b <= 0 or b & (b - 1):
            raise ValueError(f"TensorDescriptor: block_shape[{i}] must be a power of 2, got {b}")
        out.append(b)
    if rank is not None and len(out) != rank:
        raise ValueError(f"TensorDescriptor: block_shape must have {rank} entries (the rank of shape), got "
                         f"{len(out)}")
    n = 1
    for b in out:
        n *= b
    if n > semantic.MAX_NUMEL:
        raise ValueError(f"TensorDescriptor: block_shape {out} has {n} elements, more than the limit of "
                         f"{semantic.MAX_NUMEL}")
    return tuple(out)


@dataclasses.dataclass(eq=True)
class TensorDescriptor(tuple):
    """A tensor in global memory for a kernel to load and store blocks of `block_shape` from
    (tl.tensor_descriptor in the kernel). `shape` and `strides` are in elements; the last stride
    must be 1 and the others multiples of 16 bytes; the base must be 16-byte aligned; the rank is
    1 to 5; `block_shape` holds powers of 2 and may be changed after construction (it is read at
    each launch); padding is "zero" or "nan" (the value of out-of-bounds elements)."""

    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    # Iteration is the launcher's view (see the module docstring); the tuple itself is empty.
    __tessera_tensor_descriptor__ = True

    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __post_init__(self):
        rank = len(self.shape)
        if not 1 <= rank <= MAX_RANK:
            raise ValueError(f"TensorDescriptor: the rank must be 1 to {MAX_RANK}, got {rank} (shape "
                             f"{list(self.shape)})")
        if len(self.strides) != rank:
            raise ValueError(f"TensorDescriptor: expected {rank} strides (one per dimension of shape "
                             f"{list(self.shape)}), got {len(self.strides)}")
        for name, vals in (("shape", self.shape), ("strides", self.strides)):
            for i, v in enumerate(vals):
                if not _is_int(v) and not (hasattr(v, "__index__") and not isinstance(v, bool)):
                    raise TypeError(f"TensorDescriptor: {name}[{i}] must be an int, got {v!r}")
        if any(int(s) < 0 for s in self.shape):
            raise ValueError(f"TensorDescriptor: the shape must not be negative, got {list(self.shape)}")
        check_block_shape(self.block_shape, rank)
        ptr = _data_ptr(self.base)
        if ptr % 16:
            raise ValueError(f"TensorDescriptor: the base must be 16-byte aligned, but its address is {ptr:#x}")
        elem = _element_size(self.base)
        if int(self.strides[-1]) != 1:
            raise ValueError(f"TensorDescriptor: the last dimension must be contiguous (stride 1), got strides "
                             f"{list(self.strides)}")
        for i, s in enumerate(self.strides[:-1]):
            if (int(s) * elem) % 16:
                raise ValueError(f"TensorDescriptor: strides[{i}] = {int(s)} elements = {int(s) * elem} bytes is "
                                 f"not a multiple of 16 bytes (strides {list(self.strides)})")
        self._check_padding()

    def _check_padding(self):
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got {self.padding!r}")
        if self.padding == "nan" and not _is_float_base(self.base):
            raise ValueError("TensorDescriptor: padding 'nan' needs a floating-point tensor")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """A descriptor of all of `tensor` (its shape and strides)."""
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()), block_shape, padding)

    def launch_parts(self):
        """(shape, strides, block_shape) as ints, checked as they are now (block_shape may have
        been set since construction)."""
        rank = len(self.shape)
        shape = tuple(int(s) for s in self.shape)
        strides = tuple(int(s) for s in self.strides)
        if len(strides) != rank:
            raise ValueError(f"TensorDescriptor: expected {rank} strides, got {len(strides)}")
        if strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last dimension must be contiguous (stride 1), got strides "
                             f"{list(strides)}")
        block = check_block_shape(self.block_shape, rank)
        self._check_padding()
        return shape, strides, block

    def __iter__(self):
        # The checked parts are kept while shape, strides, block_shape and padding stay the same.
        encoder = _tensor_map_encoder
        state = (tuple(self.shape), tuple(self.strides), tuple(self.block_shape), self.padding,
                 _data_ptr(self.base) if encoder is not None else None, encoder)
        parts = self.__dict__.get("_launch_state")
        if parts is None or parts[0] != state:
            shape, strides, block = self.launch_parts()
            meta = (MARK, tuple((None,) * (b.bit_length() - 1) for b in block), (None,) * (self.padding == "nan"))
            tmap = encoder(self, shape, strides, block) if encoder is not None else None
            parts = self.__dict__["_launch_state"] = (state, shape, strides[:-1], meta, tmap)
        yield self.base
        yield parts[1]
        yield parts[2]
        yield parts[3]
        if parts[4] is not None:
            yield parts[4]

    def __len__(self):
        raise TypeError("a TensorDescriptor has no len()")

    def __bool__(self):
        return True

    def __getitem__(self, index):
        raise TypeError("a TensorDescriptor cannot be indexed; use .base, .shape, .strides, .block_shape")

    def __reduce__(self):
        return (_rebuild, (self.base, self.shape, self.strides, self.block_shape, self.padding))

    def __copy__(self):
        return TensorDescriptor(self.base, self.shape, self.strides, self.block_shape, self.padding)


def _rebuild(base, shape, strides, block_shape, padding):
    return TensorDescriptor(base, shape, strides, block_shape, padding)


def is_foreign_descriptor(v):
    """Whether `v` is another library's host descriptor of the same shape as ours (Triton's
    triton.tools.tensor_descriptor.TensorDescriptor: base, shape, strides, block_shape[, padding])."""
    t = type(v)
    return (t.__name__ == "TensorDescriptor" and not getattr(t, "__tessera_tensor_descriptor__", False)
            and all(hasattr(v, a) for a in ("base", "shape", "strides", "block_shape")))


def from_foreign(v):
    """Our TensorDescriptor for a foreign one (is_foreign_descriptor), kept on it so that the
    checks and the tensor map are redone only when its fields change (an autotuner's pre_hook may
    set block_shape)."""
    fields = (v.base, list(v.shape), list(v.strides), list(v.block_shape), getattr(v, "padding", "zero"))
    cached = getattr(v, "_tessera_descriptor", None)
    if cached is not None and cached[0][0] is fields[0] and cached[0][1:] == fields[1:]:
        return cached[1]
    ours = TensorDescriptor(*fields)
    try:
        v._tessera_descriptor = (fields, ours)
    except AttributeError:  # a class with __slots__: no caching
        pass
    return ours


def foreign_argument(v):
    """The launcher's hook for arguments it does not know: our TensorDescriptor for a foreign one,
    else None."""
    return from_foreign(v) if is_foreign_descriptor(v) else None


def convert_foreign(v):
    """`v` with foreign host descriptors (also inside tuples and lists) replaced by ours."""
    if is_foreign_descriptor(v):
        return from_foreign(v)
    if isinstance(v, (tuple, list)) and not getattr(type(v), "__tessera_tensor_descriptor__", False):
        out = [convert_foreign(x) for x in v]
        return type(v)(out) if isinstance(v, list) or type(v) is tuple else v
    return v


def is_key_entry(entry):
    """Whether a launch key entry is a TensorDescriptor's."""
    return (isinstance(entry, tuple) and len(entry) in (4, 5) and isinstance(entry[3], tuple)
            and len(entry[3]) == 3 and entry[3][0] == MARK)


def has_tensor_map(entry):
    """Whether a TensorDescriptor's launch key entry carries a tensor map."""
    return len(entry) == 5


def block_and_padding(entry):
    """(block_shape, padding) of a TensorDescriptor's launch key entry."""
    meta = entry[3]
    return tuple(1 << len(b) for b in meta[1]), ("nan" if meta[2] else "zero")
