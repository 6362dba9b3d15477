"""Types, tensors and constexpr values of the kernel language (shared by both builders)."""

import builtins
import contextlib
import operator
import threading

# ----------------------------------------------------------------- builder

_state = threading.local()


def current_builder():
    """The builder that language calls emit into (set while a kernel is traced or interpreted)."""
    b = getattr(_state, "builder", None)
    if b is None:
        raise RuntimeError(
            "tessera.language functions can only be called inside a @tessera.jit kernel "
            "(or with TESSERA_INTERPRET=1)")
    return b


@contextlib.contextmanager
def use_builder(builder):
    prev = getattr(_state, "builder", None)
    _state.builder = builder
    try:
        yield builder
    finally:
        _state.builder = prev


# ------------------------------------------------------------------- dtypes

class dtype:
    """A scalar element type: int1/8/16/32/64, uint8/16/32/64, fp8e4nv, fp8e5, fp8e4b15, fp16, bf16,
    fp32, fp64.

    fp8e4b15 (Triton's float8e4b15: sign, 4 exponent bits with bias 15, 3 mantissa bits, no
    infinities or NaN, largest 1.875) has no hardware type: it is held as i8 in the IR and every
    operation converts it to fp16 first (semantic.cast), as Triton does in software."""

    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP_TYPES = ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15", "fp16", "bf16", "fp32", "fp64")

    _IR = {
        "int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
        "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
        "fp8e4nv": "f8E4M3FN", "fp8e5": "f8E5M2", "fp8e4b8": "f8E4M3FNUZ", "fp8e5b16": "f8E5M2FNUZ",
        "fp8e4b15": "i8", "fp16": "f16", "bf16": "bf16",
        "fp32": "f32", "fp64": "f64",
    }
    _BITS = {
        "int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
        "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
        "fp8e4nv": 8, "fp8e5": 8, "fp8e4b8": 8, "fp8e5b16": 8, "fp8e4b15": 8, "fp16": 16, "bf16": 16, "fp32": 32,
        "fp64": 64,
    }
    _FULL = {
        "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16",
        "fp8e4b15": "float8e4b15", "fp16": "float16", "bf16": "bfloat16",
        "fp32": "float32", "fp64": "float64",
    }

    def __init__(self, name):
        if name not in self._IR:
            raise TypeError(f"unknown dtype {name!r}")
        self.name = name
        self.primitive_bitwidth = self._BITS[name]

    # kinds
    def is_floating(self):
        return self.name in self.FP_TYPES

    def is_int(self):
        return self.name in self.SINT_TYPES or self.name in self.UINT_TYPES

    def is_int_signed(self):
        return self.name in self.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in self.UINT_TYPES

    def is_bool(self):
        return self.name == "int1"

    def is_fp8(self):
        return self.name in ("fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15")

    def is_fp8e4b15(self):
        return self.name == "fp8e4b15"

    def is_fp8e4nv(self):
        return self.name == "fp8e4nv"

    def is_fp8e5(self):
        return self.name == "fp8e5"

    def is_fp8e4b8(self):
        return self.name == "fp8e4b8"

    def is_fp8e5b16(self):
        return self.name == "fp8e5b16"

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    @property
    def int_bitwidth(self):
        return self.primitive_bitwidth

    _MANTISSA = {"fp8e4nv": 3, "fp8e5": 2, "fp8e4b8": 3, "fp8e5b16": 2, "fp8e4b15": 3, "fp16": 10, "bf16": 7, "fp32": 23, "fp64": 52}
    _BIAS = {"fp8e4nv": 7, "fp8e5": 15, "fp8e4b8": 8, "fp8e5b16": 16, "fp8e4b15": 15, "fp16": 15, "bf16": 127, "fp32": 127, "fp64": 1023}

    @property
    def fp_mantissa_width(self):
        """Explicit mantissa bits of a floating-point type (fp32: 23)."""
        if not self.is_floating():
            raise TypeError(f"fp_mantissa_width of {self.name}: not a floating-point type")
        return self._MANTISSA[self.name]

    @property
    def exponent_bias(self):
        """The exponent bias of a floating-point type (fp32: 127)."""
        if not self.is_floating():
            raise TypeError(f"exponent_bias of {self.name}: not a floating-point type")
        return self._BIAS[self.name]

    @property
    def int_signedness(self):
        return "signed" if self.is_int_signed() else "unsigned"

    @property
    def scalar(self):
        return self

    def kind(self):
        """bool < uint < int < float, for scalar promotion."""
        if self.is_bool():
            return 0
        if self.is_int_unsigned():
            return 1
        if self.is_int_signed():
            return 2
        return 3

    def to_ir(self):
        return self._IR[self.name]

    def __eq__(self, other):
        return isinstance(other, dtype) and type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def _key(self):
        return self.name

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def __str__(self):
        return self._FULL.get(self.name, self.name)

    def __repr__(self):
        return f"tl.{self}"

    @property
    def cache_key_part(self):
        return str(self)


class pointer_type(dtype):
    """Pointer to `element_ty` in an address space (1 = global)."""

    def __init__(self, element_ty, address_space=1):
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer_type expects a dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.address_space = address_space
        self.name = f"pointer<{element_ty}>"
        self.primitive_bitwidth = 64

    def is_ptr(self):
        return True

    def is_floating(self):
        return False

    def is_int(self):
        return False

    def is_int_signed(self):
        return False

    def is_int_unsigned(self):
        return False

    def is_bool(self):
        return False

    def is_fp8(self):
        return False

    def is_fp16(self):
        return False

    def is_bf16(self):
        return False

    def is_fp32(self):
        return False

    def is_fp64(self):
        return False

    def kind(self):
        return 4

    def is_block_ptr(self):
        return isinstance(self.element_ty, block_type)

    def to_ir(self):
        inner = self.element_ty.to_ir()
        if self.address_space != 1:
            return f"!tt.ptr<{inner}, {self.address_space}>"
        return f"!tt.ptr<{inner}>"

    def _key(self):
        return (self.element_ty._key(), self.address_space)

    def __str__(self):
        return f"pointer<{self.element_ty}>"


class shape_tuple(tuple):
    """A tensor's shape: a tuple of ints that also equals a list or tuple of the same ints or
    tl.constexpr of them (`x.shape == [N]`, as in Triton)."""

    __slots__ = ()

    @staticmethod
    def _normalize(other):
        if isinstance(other, constexpr):
            other = other.value
        if not isinstance(other, (tuple, list)):
            return None
        out = []
        for v in other:
            v = v.value if isinstance(v, constexpr) else v
            if isinstance(v, bool) or not isinstance(v, int):
                try:
                    v = operator.index(v)
                except TypeError:
                    return None
            out.append(v)
        return tuple(out)

    def __eq__(self, other):
        other = self._normalize(other)
        return other is not None and tuple(self) == other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def __repr__(self):
        return repr(tuple(self))


_NO_SHAPE = shape_tuple()  # a scalar's shape (immutable, shared)


class block_type(dtype):
    """A tensor type: a static shape of elements of a scalar type."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = shape_tuple(int(s) for s in shape)
        if not self.shape:
            raise TypeError("a block type needs at least one dimension")
        n = 1
        for s in self.shape:
            n *= s
        self.numel = n
        self.name = f"<{self.shape}, {element_ty}>"
        self.primitive_bitwidth = element_ty.primitive_bitwidth

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty

    def get_block_shapes(self):
        return self.shape

    def kind(self):
        return self.element_ty.kind()

    def to_ir(self):
        dims = "x".join(str(s) for s in self.shape)
        return f"tensor<{dims}x{self.element_ty.to_ir()}>"

    def _key(self):
        return (self.element_ty._key(), self.shape)

    def __str__(self):
        return f"<{list(self.shape)}, {self.element_ty}>"


def _delegate(name):
    return lambda self: getattr(self.element_ty, name)()


for _name in ("is_floating", "is_int", "is_int_signed", "is_int_unsigned", "is_bool", "is_fp8",
              "is_fp16", "is_bf16", "is_fp32", "is_fp64", "is_ptr"):
    setattr(block_type, _name, _delegate(_name))


class tuple_type:
    def __init__(self, types):
        self.types = list(types)


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4nv = dtype("fp8e4nv")
float8e4b15 = dtype("fp8e4b15")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")


class const:
    """A parameter annotation marking a pointer to data the kernel only reads, as
    triton.language.const; accepted and not otherwise used."""
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
pi32_t = pointer_type(int32)

DTYPES_BY_NAME = {
    "int1": int1, "int8": int8, "int16": int16, "int32": int32, "int64": int64,
    "uint8": uint8, "uint16": uint16, "uint32": uint32, "uint64": uint64,
    "fp8e4nv": float8e4nv, "fp8e5": float8e5, "fp8e4b8": float8e4b8, "fp8e5b16": float8e5b16,
    "fp8e4b15": float8e4b15, "fp16": float16, "bf16": bfloat16,
    "fp32": float32, "fp64": float64,
    # long names as users write them
    "float8e4nv": float8e4nv, "float8e5": float8e5, "float8e4b8": float8e4b8, "float8e5b16": float8e5b16,
    "float8e4b15": float8e4b15, "float16": float16, "bfloat16": bfloat16,
    "float32": float32, "float64": float64, "bool": int1,
}


def str_to_ty(name):
    """Parse a signature string: 'i32', 'fp16', '*fp32', '*i8' … into a dtype."""
    if name.startswith("*"):
        return pointer_type(str_to_ty(name[1:]))
    short = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
             "u1": "int1", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
             "f16": "fp16", "f32": "fp32", "f64": "fp64", "bf16": "bf16",
             "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5", "fp8e4b15": "fp8e4b15", "fp16": "fp16", "fp32": "fp32",
             "fp64": "fp64", "B": "int1"}
    key = short.get(name, name)
    if key not in DTYPES_BY_NAME:
        raise TypeError(f"unknown type in signature: {name!r}")
    return DTYPES_BY_NAME[key]


# ----------------------------------------------------------------- constexpr

class constexpr:
    """A compile-time constant. Operators on constexprs fold in Python."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value
        self.type = None

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return self.value.__index__()

    def __hash__(self):
        return hash(("constexpr", self.value))

    def __bool__(self):
        return builtins.bool(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name):
        if name == "value":
            raise AttributeError(name)
        return getattr(self.value, name)


def _binop(name, op):
    def method(self, other):
        o = other.value if isinstance(other, constexpr) else other
        if isinstance(o, tensor):
            return NotImplemented
        return constexpr(op(self.value, o))

    def rmethod(self, other):
        o = other.value if isinstance(other, constexpr) else other
        if isinstance(o, tensor):
            return NotImplemented
        return constexpr(op(o, self.value))

    setattr(constexpr, f"__{name}__", method)
    setattr(constexpr, f"__r{name}__", rmethod)


import operator as _op  # noqa: E402

for _n, _f in [("add", _op.add), ("sub", _op.sub), ("mul", _op.mul), ("truediv", _op.truediv),
               ("floordiv", _op.floordiv), ("mod", _op.mod), ("pow", _op.pow), ("and", _op.and_),
               ("or", _op.or_), ("xor", _op.xor), ("lshift", _op.lshift), ("rshift", _op.rshift)]:
    _binop(_n, _f)

for _n, _f in [("eq", _op.eq), ("ne", _op.ne), ("lt", _op.lt), ("le", _op.le), ("gt", _op.gt),
               ("ge", _op.ge)]:
    def _mk(f):
        def m(self, other):
            o = other.value if isinstance(other, constexpr) else other
            if isinstance(o, tensor):
                return NotImplemented
            return constexpr(f(self.value, o))
        return m
    setattr(constexpr, f"__{_n}__", _mk(_f))

constexpr.__neg__ = lambda self: constexpr(-self.value)
constexpr.__pos__ = lambda self: constexpr(+self.value)
constexpr.__invert__ = lambda self: constexpr(~self.value)
constexpr.__abs__ = lambda self: constexpr(abs(self.value))


def _unwrap(v):
    return v.value if isinstance(v, constexpr) else v


def _constexpr_to_value(v):
    return _unwrap(v)


# -------------------------------------------------------------------- tensor

class tensor:
    """A value inside a kernel: a scalar or a block (tile) of elements.

    `handle` is the builder's value (an SSA value in the IR builder, an array in
    the interpreter); `type` is the language type (a dtype or a block_type).
    """

    def __init__(self, handle, type):
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        self.shape = type.shape if type.is_block() else _NO_SHAPE
        self.numel = type.numel if type.is_block() else 1

    def __repr__(self):
        return f"tensor({self.type})"

    def __str__(self):
        return f"{self.dtype}[{', '.join(str(s) for s in self.shape)}]"

    def __hash__(self):
        return id(self)

    # Operators and the methods that mirror tl functions (x + y, x.to(...), x.sum(), ...) are
    # defined in _tensor_methods.py: they are written with semantic, builtins and math, which
    # build on this module, and are attached to this class when tessera.language is imported.

    def __pos__(self):
        return self

    def __pow__(self, other):
        raise TypeError("'**' is not supported on tensors; use tl.math.pow")

    def __bool__(self):
        return current_builder().tensor_to_bool(self)

    def __index__(self):
        return int(current_builder().tensor_to_python(self))

    def __int__(self):
        return int(current_builder().tensor_to_python(self))

    def __float__(self):
        return float(current_builder().tensor_to_python(self))

    def __iter__(self):
        raise TypeError("a tensor cannot be iterated; use tl.split or indexing with None")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a scalar tensor")
        return self.shape[0]


class block_ptr_tensor(tensor):
    """A block pointer (tl.make_block_ptr)."""


# ------------------------------------------------------------ tensor descriptors

class tensor_descriptor_base_type:
    """The type of a tensor descriptor: the block (element type and block shape) it loads and
    stores, as triton.language.tensor_descriptor_base_type."""

    def __init__(self, block_ty):
        if not isinstance(block_ty, block_type):
            raise TypeError(f"a tensor descriptor type needs a block type, got {block_ty!r}")
        self.block_type = block_ty

    def is_block(self):
        return False

    def is_ptr(self):
        return False

    def _key(self):
        return (self.block_type._key(),)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _block_str(self):
        return f"{self.block_type.element_ty}{list(self.block_type.shape)}"

    def __str__(self):
        return f"tensor_descriptor<{self._block_str()}>"

    __repr__ = __str__


class tensor_map_type(tensor_descriptor_base_type):
    """The hardware descriptor of a tensor descriptor kernel argument: the TMA tensor map the
    launcher encodes for the block (`!tt.tensordesc<tensor<...>>` in TTIR), a kernel parameter of
    its own after the base, sizes and strides."""

    @property
    def scalar(self):
        return self

    def to_ir(self):
        return f"!tt.tensordesc<{self.block_type.to_ir()}>"

    def __str__(self):
        return f"tensor_map<{self._block_str()}>"

    __repr__ = __str__


class tensor_descriptor_type(tensor_descriptor_base_type):
    """The type of a tl.tensor_descriptor: its block type, its padding ("zero" or "nan"), and for
    each dimension's size and stride either the integer dtype of a run-time value or a constant
    int. The last stride is always the constant 1. A kernel parameter of this type takes the base
    pointer and the run-time sizes and strides as separate arguments (leaf_types)."""

    def __init__(self, block_ty, shape, strides, padding="zero", tma=False):
        super().__init__(block_ty)
        # With `tma`, the kernel also receives the descriptor's TMA tensor map (a host descriptor
        # on a GPU with TMA): its loads and stores use the copy engine.
        self.tma = bool(tma)
        rank = len(block_ty.shape)
        shape, strides = tuple(shape), tuple(strides)
        if len(shape) != rank or len(strides) != rank:
            raise ValueError(f"a tensor descriptor of rank {rank} needs {rank} sizes and strides, got "
                             f"{len(shape)} and {len(strides)}")
        for c in shape + strides:
            if not (isinstance(c, dtype) and c.is_int() and not c.is_bool()) and \
                    not (isinstance(c, int) and not isinstance(c, bool)):
                raise TypeError(f"a tensor descriptor's sizes and strides are integer dtypes or ints, got {c!r}")
        if strides[-1] != 1 or isinstance(strides[-1], dtype):
            raise ValueError("a tensor descriptor's last stride is the constant 1")
        if padding not in ("zero", "nan"):
            raise ValueError(f"padding must be 'zero' or 'nan', got {padding!r}")
        self.shape = shape
        self.strides = strides
        self.padding = padding

    @property
    def element_ty(self):
        return self.block_type.element_ty

    def leaf_types(self):
        """The types of the values a descriptor is made of at run time: the base pointer, then
        the run-time sizes, then the run-time strides."""
        return [pointer_type(self.block_type.element_ty)] + \
            [c for c in self.shape + self.strides if isinstance(c, dtype)] + \
            ([tensor_map_type(self.block_type)] if self.tma else [])

    def _key(self):
        def comp(c):
            return ("t", c._key()) if isinstance(c, dtype) else ("c", c)
        return (self.block_type._key(), tuple(comp(c) for c in self.shape), tuple(comp(c) for c in self.strides),
                self.padding, self.tma)

    def __str__(self):
        def comp(cs):
            return "(" + ", ".join(str(c) for c in cs) + ")"
        return (f"tensor_descriptor<{self._block_str()}, shape={comp(self.shape)}, strides={comp(self.strides)}, "
                f"padding={self.padding}{', tma' if self.tma else ''}>")

    __repr__ = __str__


class tensor_descriptor_base:
    """A descriptor of a tensor in global memory that loads and stores blocks of `block_shape`
    elements at element offsets (tl.tensor_descriptor_base). Its methods (load, store, the
    atomics, gather, scatter) are attached by _tensor_methods."""

    def __init__(self, type):
        self.type = type
        self.handle = None

    @property
    def block_type(self):
        return self.type.block_type

    @property
    def block_shape(self):
        return list(self.type.block_type.shape)

    @property
    def dtype(self):
        return self.type.block_type.element_ty

    def __str__(self):
        return str(self.type)

    def __repr__(self):
        return str(self.type)

    def __bool__(self):
        return True


class tensor_descriptor(tensor_descriptor_base):
    """A tensor descriptor with its base pointer, sizes and strides (tl.tensor_descriptor): from
    tl.make_tensor_descriptor or a TensorDescriptor kernel argument. `shape` and `strides` hold a
    scalar integer tensor or an int (a constant) per dimension."""

    def __init__(self, base, shape, strides, type, tensor_map=None):
        super().__init__(type)
        self.base = base
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.tensor_map = tensor_map  # a tensor of tensor_map_type when type.tma
        # A TMA tensor map tl.make_tensor_descriptor made in the kernel (a tensor of
        # tensor_map_type) and the i1 scalar (or True) saying whether TMA may copy through it. Not
        # a leaf: a descriptor passed to a function or carried by a loop accesses by pointers.
        self.device_map = None
        self.device_map_valid = None

    def _leaves(self):
        """The run-time values (tensors) the descriptor is made of, in leaf_types order."""
        return [self.base] + [c for c in self.shape + self.strides if isinstance(c, tensor)] + \
            ([self.tensor_map] if self.tensor_map is not None else [])

    @classmethod
    def _from_leaves(cls, ty, leaves):
        """The descriptor of type `ty` made of `leaves` (tensors, in ty.leaf_types() order)."""
        it = iter(leaves)
        base = next(it)
        shape = [next(it) if isinstance(c, dtype) else c for c in ty.shape]
        strides = [next(it) if isinstance(c, dtype) else c for c in ty.strides]
        tensor_map = next(it) if getattr(ty, "tma", False) else None
        return cls(base, shape, strides, ty, tensor_map)


def extern(fn):
    """@tl.core.extern: a function of a device library (as triton.language.core.extern): plain
    Python that the front end runs while tracing a kernel (like a builtin), typically returning
    tl.core.extern_elementwise(lib_name, lib_path, [args], {(dtypes): (symbol, dtype)}, is_pure,
    _semantic=_semantic)."""
    fn.__tessera_builtin__ = True
    return fn
