"""Global scratch memory for kernels that need it: `tessera.set_allocator`.

A kernel that uses global scratch (tl.extra.global_scratch) needs `grid size × bytes per program`
bytes at each launch, passed as a hidden argument after its own. The launcher asks the current
allocator for them: `allocator(size, alignment, stream)` returns an object with `data_ptr()` (a
torch tensor, a CuPy array, ...) or an int address, aligned to `alignment`. The object is kept
until the launch has been queued; the memory must stay valid for work queued later on `stream`
(a stream-ordered allocator such as PyTorch's caching allocator does this).

The allocator is called with the kernel's device current (the launch backend's device_context);
the default one is the launch backend's (Backend.default_allocator: for GPUs, a uint8 tensor from
PyTorch's caching allocator on that device and stream).
"""

import contextlib
import threading

from .. import backends

_state = threading.local()


def _default_allocator(size, alignment, stream, backend=None):
    backend = backend or backends.launch_backend() or backends.Backend()
    return backend.default_allocator(size, alignment, stream)


def set_allocator(allocator):
    """Use `allocator(size, alignment, stream)` for global scratch in this thread (None: the
    default, the launch backend's)."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) -> buffer, got "
                        f"{allocator!r}")
    _state.allocator = allocator


def get_allocator():
    a = getattr(_state, "allocator", None)
    return a if a is not None else _default_allocator


def allocate(size, alignment, stream, device=None, backend=None):
    """Called by the launcher: (keep-alive object, address) of `size` bytes of scratch for a launch
    on `device` of `backend` (default: the launch backend)."""
    backend = backend or backends.launch_backend() or backends.Backend()
    user = getattr(_state, "allocator", None)
    with backend.device_context(device) if device is not None else contextlib.nullcontext():
        if user is not None:
            buf = user(size, alignment, stream)
        else:
            buf = _default_allocator(size, alignment, stream, backend)
    ptr = buf.data_ptr() if hasattr(buf, "data_ptr") else buf
    if not isinstance(ptr, int) or isinstance(ptr, bool):
        raise TypeError(f"the global scratch allocator returned {buf!r}: expected an object with data_ptr() "
                        f"or an int address")
    if size and ptr % alignment:
        raise ValueError(f"the global scratch allocator returned address {ptr:#x}, which is not aligned to "
                         f"{alignment} bytes")
    return buf, ptr
