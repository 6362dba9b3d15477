"""`tl.extra`: libdevice-style math (`tl.extra.libdevice`, as Triton kernels import it) and
Tessera's extensions to the language."""

from .. import math as libdevice  # noqa: F401
from .. import semantic
from ..builtins import builtin


@builtin
def global_scratch(nbytes, alignment=16):
    """A pointer (`tl.pointer_type(tl.int8)`) to `nbytes` bytes of global memory private to this
    program, aligned to `alignment` bytes. Its contents are undefined when the program starts.
    The launcher gets `grid size × bytes per program` from the allocator set with
    `tessera.set_allocator` (by default, a PyTorch tensor on the kernel's device and stream)."""
    return semantic.global_scratch(nbytes, alignment)
