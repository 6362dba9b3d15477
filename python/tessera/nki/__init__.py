"""tessera.nki: an NKI-style kernel language (AWS Neuron Kernel Interface) on Tessera's interpreter.

    import tessera.nki as nki
    import tessera.nki.language as nl

    @nki.jit
    def add(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.mgrid[0:a.shape[0], 0:a.shape[1]]
        nl.store(out[i_p, i_f], nl.load(a[i_p, i_f]) + nl.load(b[i_p, i_f]))
        return out

    c = add(a, b)            # one program
    c = add[2, 2](a, b)      # an SPMD grid: nl.program_id(axis) tells the programs apart

Kernels run on the CPU, program by program, on the same core as tessera.language kernels under
TESSERA_INTERPRET=1: the clients of tessera.interpreter (Tracer, Sanitizer, RaceDetector,
AccessMap, user clients) see their loads, stores, dots and reductions with the kernel's source
lines. Arguments: CPU torch tensors or numpy arrays (tensors in HBM), and Python scalars. The
kernel returns its outputs (made with nl.ndarray in HBM) as arrays of the arguments' kind.
docs/nki.md lists what of NKI's language is provided.
"""

import inspect

from . import language
from ._compile import CompiledNki, NkiCompileError, compile
from ._runtime import launch as _launch

__all__ = ["jit", "Kernel", "language", "compile", "CompiledNki", "NkiCompileError"]


class Kernel:
    """A tessera.nki kernel: call it (one program) or index it with a grid first."""

    def __init__(self, fn):
        if not inspect.isfunction(fn):
            raise TypeError(f"tessera.nki.jit decorates a function, got {type(fn).__name__}")
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        return _launch(self, (1,), args, kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: _launch(self, grid, args, kwargs)

    def __repr__(self):
        return f"<tessera.nki kernel {self.fn.__qualname__}>"


def jit(fn=None, **options):
    """Makes `fn` a tessera.nki kernel (options of NKI's decorator, such as mode=, are accepted and
    have no effect: kernels run on the CPU interpreter)."""
    if fn is None:
        return lambda f: Kernel(f)
    return Kernel(fn)
