"""Shared helpers: compile a kernel to TTIR for given arguments, or run it in the interpreter."""

import inspect
import os

import tessera
from tessera.compiler import compiler
from tessera.language import core
from tessera.runtime import specialize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TESSERA_OPT = os.environ.get("TESSERA_OPT", os.path.join(os.path.dirname(ROOT), "build", "bin", "tessera-opt"))


def ttir_for(kernel, *args, **kwargs):
    """The TTIR `kernel` compiles to for these launch arguments (no GPU needed)."""
    for k in ("num_warps", "num_stages"):
        kwargs.pop(k, None)
    bound = kernel.bind(args, kwargs)
    types, consts, attrs, _ = specialize.specialize(kernel, bound)
    text, _ = compiler.make_ttir(kernel, types, consts, attrs)
    return text


def line_of(fn, marker):
    """The file line number of the line of @jit function `fn` holding `marker`."""
    lines, start = inspect.getsourcelines(fn.fn)
    for i, line in enumerate(lines):
        if marker in line:
            return start + i
    raise AssertionError(f"marker {marker!r} not found in {fn.__name__}")


def interpret(kernel, grid, *args, **kwargs):
    old = os.environ.get("TESSERA_INTERPRET")
    os.environ["TESSERA_INTERPRET"] = "1"
    try:
        return kernel[grid](*args, **kwargs)
    finally:
        if old is None:
            del os.environ["TESSERA_INTERPRET"]
        else:
            os.environ["TESSERA_INTERPRET"] = old


__all__ = ["ttir_for", "line_of", "interpret", "tessera", "core", "TESSERA_OPT"]
