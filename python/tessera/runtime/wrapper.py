"""TensorWrapper / reinterpret: pass a tensor's memory to a kernel as another element type
(`kernel[grid](tessera.reinterpret(x_uint8, tl.float8e5), ...)`), as triton.TensorWrapper and
triton.reinterpret do. The kernel's pointer argument gets the wrapper's dtype; the memory, its
device and bounds are the base tensor's."""

from ..language import core


class TensorWrapper:
    def __init__(self, base, dtype):
        if not isinstance(dtype, core.dtype) or dtype.is_ptr() or dtype.is_block():
            raise TypeError(f"TensorWrapper: dtype must be a tessera.language element type, got {dtype!r}")
        if not hasattr(base, "data_ptr"):
            raise TypeError(f"TensorWrapper: base must be a tensor, got {type(base).__name__}")
        self.base = base
        self.dtype = dtype
        self.data = base
        self.device = base.device
        self.shape = base.shape

    def data_ptr(self):
        return self.base.data_ptr()

    def stride(self, *args):
        return self.base.stride(*args)

    def size(self, *args):
        return self.base.size(*args)

    def dim(self):
        return self.base.dim()

    def numel(self):
        return self.base.numel()

    def element_size(self):
        return self.dtype.primitive_bitwidth // 8

    def cpu(self):
        return TensorWrapper(self.base.cpu(), self.dtype)

    def to(self, device):
        return TensorWrapper(self.base.to(device), self.dtype)

    def clone(self):
        return TensorWrapper(self.base.clone(), self.dtype)

    def copy_(self, other):
        self.base.copy_(other.base if isinstance(other, TensorWrapper) else other)
        return self

    def new_empty(self, sizes):
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def __str__(self):
        return f"TensorWrapper[{self.dtype}]({self.base})"

    __repr__ = __str__


def reinterpret(tensor, dtype):
    """`tensor`'s memory seen as `dtype` (a tessera.language dtype): a TensorWrapper, or the base
    tensor itself when a wrapper is reinterpreted back to the base's own element type."""
    if isinstance(tensor, TensorWrapper):
        base_dtype = _torch_to_tl(tensor.base.dtype)
        if base_dtype is not None and base_dtype == dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret a {type(tensor).__name__}")


def _torch_to_tl(torch_dtype):
    name = str(torch_dtype).replace("torch.", "")
    table = {"float32": core.float32, "float16": core.float16, "bfloat16": core.bfloat16, "float64": core.float64,
             "int8": core.int8, "int16": core.int16, "int32": core.int32, "int64": core.int64, "uint8": core.uint8,
             "bool": core.int1}
    return table.get(name)
