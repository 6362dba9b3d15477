"""The operators and methods of tl.tensor, attached to core.tensor (core cannot import semantic)."""

from . import builtins as B
from . import core
from . import math as M
from . import semantic
from .core import _unwrap


class _TensorMethods:
    # --- arithmetic ---------------------------------------------------
    def __add__(self, other):
        return semantic.add(self, other, True)

    def __radd__(self, other):
        return semantic.add(other, self, True)

    def __sub__(self, other):
        return semantic.sub(self, other, True)

    def __rsub__(self, other):
        return semantic.sub(other, self, True)

    def __mul__(self, other):
        return semantic.mul(self, other, True)

    def __rmul__(self, other):
        return semantic.mul(other, self, True)

    def __truediv__(self, other):
        return semantic.truediv(self, other)

    def __rtruediv__(self, other):
        return semantic.truediv(other, self)

    def __floordiv__(self, other):
        return semantic.floordiv(self, other)

    def __rfloordiv__(self, other):
        return semantic.floordiv(other, self)

    def __mod__(self, other):
        return semantic.mod(self, other)

    def __rmod__(self, other):
        return semantic.mod(other, self)

    def __neg__(self):
        return semantic.minus(self)

    def __invert__(self):
        return semantic.invert(self)

    def __and__(self, other):
        return semantic.and_(self, other)

    def __rand__(self, other):
        return semantic.and_(other, self)

    def __or__(self, other):
        return semantic.or_(self, other)

    def __ror__(self, other):
        return semantic.or_(other, self)

    def __xor__(self, other):
        return semantic.xor_(self, other)

    def __rxor__(self, other):
        return semantic.xor_(other, self)

    def __lshift__(self, other):
        return semantic.shl(self, other)

    def __rlshift__(self, other):
        return semantic.shl(other, self)

    def __rshift__(self, other):
        return semantic.shr(self, other)

    def __rrshift__(self, other):
        return semantic.shr(other, self)

    def __abs__(self):
        return semantic.abs(self)

    # --- comparisons ----------------------------------------------------
    def __gt__(self, other):
        return semantic.compare("gt", self, other)

    def __ge__(self, other):
        return semantic.compare("ge", self, other)

    def __lt__(self, other):
        return semantic.compare("lt", self, other)

    def __le__(self, other):
        return semantic.compare("le", self, other)

    def __eq__(self, other):
        return semantic.compare("eq", self, other)

    def __ne__(self, other):
        return semantic.compare("ne", self, other)

    def logical_and(self, other):
        return semantic.logical_and(self, other)

    def logical_or(self, other):
        return semantic.logical_or(self, other)

    def __not__(self):
        return semantic.logical_not(self)

    # --- indexing and methods ---------------------------------------------
    def __getitem__(self, slices):
        return semantic.getitem(self, slices)

    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        dtype = _unwrap(dtype)
        if _unwrap(bitcast):
            return semantic.bitcast(self, dtype)
        return semantic.cast(self, dtype, _unwrap(fp_downcast_rounding))

    def cast(self, dtype, fp_downcast_rounding=None, bitcast=False):
        """The same as `to`, as triton.language.tensor.cast."""
        return self.to(dtype, fp_downcast_rounding, bitcast)

    @property
    def T(self):
        return semantic.permute(self, None)

    # methods that mirror tl functions
    def reshape(self, *shape, can_reorder=False):
        return B.reshape(self, *shape, can_reorder=can_reorder)

    def view(self, *shape):
        return B.view(self, *shape)

    def broadcast_to(self, *shape):
        return B.broadcast_to(self, *shape)

    def expand_dims(self, axis):
        return B.expand_dims(self, axis)

    def trans(self, *dims):
        return B.trans(self, *dims)

    def permute(self, *dims):
        return B.permute(self, *dims)

    def split(self):
        return B.split(self)

    def sort(self, dim=None, descending=False):
        return B.sort(self, dim, descending)

    def flip(self, dim=None):
        return B.flip(self, dim)

    def sum(self, axis=None, keep_dims=False):
        return B.sum(self, axis, keep_dims)

    def max(self, axis=None, keep_dims=False):
        return B.max(self, axis, keep_dims=keep_dims)

    def min(self, axis=None, keep_dims=False):
        return B.min(self, axis, keep_dims=keep_dims)

    def argmax(self, axis, keep_dims=False):
        return B.argmax(self, axis, keep_dims=keep_dims)

    def argmin(self, axis, keep_dims=False):
        return B.argmin(self, axis, keep_dims=keep_dims)

    def cumsum(self, axis=0, reverse=False):
        return B.cumsum(self, axis, reverse)

    def exp(self):
        return M.exp(self)

    def log(self):
        return M.log(self)

    def sqrt(self):
        return M.sqrt(self)

    def abs(self):
        return M.abs(self)


class _DescriptorMethods:
    """The methods of tl.tensor_descriptor_base (desc.load(offsets), desc.store(offsets, value) …)."""

    def load(self, offsets):
        """The block at element `offsets` (one per dimension); out-of-bounds elements are the
        padding (0 or NaN)."""
        return semantic.descriptor_load(self, offsets)

    def store(self, offsets, value):
        """Writes `value` (of the block's shape) at element `offsets`; out-of-bounds elements are
        not written."""
        return semantic.descriptor_store(self, offsets, value)

    def atomic_add(self, offsets, value):
        return semantic.descriptor_atomic("add", self, offsets, value)

    def atomic_min(self, offsets, value):
        return semantic.descriptor_atomic("min", self, offsets, value)

    def atomic_max(self, offsets, value):
        return semantic.descriptor_atomic("max", self, offsets, value)

    def atomic_and(self, offsets, value):
        return semantic.descriptor_atomic("and", self, offsets, value)

    def atomic_or(self, offsets, value):
        return semantic.descriptor_atomic("or", self, offsets, value)

    def atomic_xor(self, offsets, value):
        return semantic.descriptor_atomic("xor", self, offsets, value)

    def gather(self, x_offsets, y_offset):
        """Rows `x_offsets` of a 2-D descriptor whose block is one row, from column `y_offset`."""
        return semantic.descriptor_gather(self, x_offsets, y_offset)

    def scatter(self, value, x_offsets, y_offset):
        """Writes `value` to rows `x_offsets` of a 2-D descriptor whose block is one row."""
        return semantic.descriptor_scatter(self, value, x_offsets, y_offset)


def _attach():
    # `__hash__` is None in _TensorMethods (it defines __eq__); tensors keep core's hash (identity).
    internal = {"__module__", "__qualname__", "__dict__", "__weakref__", "__doc__", "__hash__"}
    for name, value in vars(_TensorMethods).items():
        if name not in internal:
            setattr(core.tensor, name, value)
    for name, value in vars(_DescriptorMethods).items():
        if name not in internal:
            setattr(core.tensor_descriptor_base, name, value)


_attach()
