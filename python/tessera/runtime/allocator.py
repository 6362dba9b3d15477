"""Global scratch memory for kernels that need it: `tessera.set_allocator`.

A kernel that uses global scratch (tl.extra.global_scratch) needs `grid size × bytes per program`
bytes at each launch, passed as a hidden argument after its own. The launcher asks the current
allocator for them: `allocator(size, alignment, stream)` returns an object with `data_ptr()` (a
torch tensor, a CuPy array, ...) or an int address, aligned to `alignment`. The object is kept
until the launch has been queued; the memory must stay valid for work queued later on `stream`
(a stream-ordered allocator such as PyTorch's caching allocator does this).

The allocator is called with the kernel's device current (torch.cuda.device); the default one
takes a uint8 tensor from PyTorch's caching allocator on that device and stream.
"""

import sys
import threading

_state = threading.local()
_default_allocator = None


def _torch_allocator(size, alignment, stream):
    import torch
    device = torch.cuda.current_device()
    # Allocated on the launch's stream, so the caching allocator does not hand the block to
    # other streams while the kernel may still use it.
    with torch.cuda.stream(torch.cuda.ExternalStream(stream, device=device)):
        # PyTorch's allocations are aligned to at least 256 bytes.
        if alignment > 256:
            t = torch.empty(size + alignment, dtype=torch.uint8, device=device)
            skip = (-t.data_ptr()) % alignment
            return t[skip:skip + size]
        return torch.empty(size, dtype=torch.uint8, device=device)


def set_allocator(allocator):
    """Use `allocator(size, alignment, stream)` for global scratch in this thread (None: the default,
    PyTorch)."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) -> buffer, got "
                        f"{allocator!r}")
    _state.allocator = allocator


def get_allocator():
    a = getattr(_state, "allocator", None)
    return a if a is not None else _torch_allocator


def allocate(size, alignment, stream, device=None):
    """Called by the launcher: (keep-alive object, address) of `size` bytes of scratch for a launch
    on `device`."""
    torch = sys.modules.get("torch")
    if device is not None and torch is not None and torch.cuda.is_available():
        with torch.cuda.device(device):
            buf = get_allocator()(size, alignment, stream)
    else:
        buf = get_allocator()(size, alignment, stream)
    ptr = buf.data_ptr() if hasattr(buf, "data_ptr") else buf
    if not isinstance(ptr, int) or isinstance(ptr, bool):
        raise TypeError(f"the global scratch allocator returned {buf!r}: expected an object with data_ptr() "
                        f"or an int address")
    if size and ptr % alignment:
        raise ValueError(f"the global scratch allocator returned address {ptr:#x}, which is not aligned to "
                         f"{alignment} bytes")
    return buf, ptr
