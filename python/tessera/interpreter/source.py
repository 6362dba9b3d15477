"""Source locations of kernel code: the innermost frame that belongs to a @jit function."""

import os
import sys

_JIT_CODES = set()


def register_code(code):
    """Remember a @jit function's code object (kernel, callee or combine function)."""
    _JIT_CODES.add(code)


def user_frame():
    f = sys._getframe(1)
    while f is not None:
        if f.f_code in _JIT_CODES:
            return f
        f = f.f_back
    return None


def user_location():
    """(filename, lineno) of the kernel source line being executed, or (None, None)."""
    f = user_frame()
    if f is None:
        return None, None
    return f.f_code.co_filename, f.f_lineno


def location_prefix():
    """'file.py:24: ' (base name) or '' when unknown."""
    filename, lineno = user_location()
    if filename is None:
        return ""
    return f"{os.path.basename(filename)}:{lineno}: "
