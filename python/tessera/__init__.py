"""Tessera: a GPU kernel compiler with a triton.language-compatible kernel language.

Subpackages import one another in one direction only (see tessera.backends for the layers):
language and interpreter at the bottom, then backends (the vendor glue, reached through its
registry), the runtime's kernel objects and disk cache, the compiler, and the launch path.
"""

from . import language  # noqa: F401
from ._core import (  # noqa: F401
    CompilerUnavailableError, Diagnostic, MLIRError, ParseResult, llvm_version, parse_mlir, verify_mlir,
)
from . import backends as _backends
from .backends import DeviceError, OutOfResources  # noqa: F401
from .errors import TritonError  # noqa: F401
from .compiler.errors import CompilationError  # noqa: F401
from .runtime import launch as _launch  # noqa: F401  (installs the compile-on-launch path)
from .runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .runtime.allocator import set_allocator  # noqa: F401
from .runtime.driver import driver  # noqa: F401  (also tessera.runtime.driver)
from .runtime.wrapper import TensorWrapper, reinterpret  # noqa: F401
from .runtime.jit import JITFunction, interpret_mode, jit  # noqa: F401
from . import testing  # noqa: F401

from ._version import __version__  # noqa: E402,F401  (the single source of the version)


def cdiv(x, y):
    """Ceiling division of integers (host side)."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


def effects(kernel, *args, **kwargs):
    """Which pointer arguments `kernel[grid](*args, **kwargs)` would read and write, without
    launching it: {parameter: {"effect": "read" | "written" | "read-write" | "untouched",
    "causes": [{"what", "read", "write", "file", "line", "column"}, ...]}}. The arguments are
    specialized as a launch would specialize them; the analysis never misses a write (where it
    cannot follow a pointer it reports the worst case and says why). Compiled kernels carry the
    same report as metadata["effects"]."""
    return _effects_of_call(kernel, args, kwargs)


def _effects_of_call(kernel, args, kwargs):
    """The effects of `kernel(*args, **kwargs)` (a @jit function, or one under @autotune /
    @heuristics), specialized as the launch would be, without compiling past TTIR or launching.
    Under @autotune, the union over its configurations; @heuristics values are applied."""
    from . import backends
    from .compiler import effects
    from .compiler.compiler import make_ttir
    from .runtime import autotuner, specialize
    kwargs = dict(kwargs)
    if isinstance(kernel, autotuner.Heuristics):
        named = autotuner._named_args(kernel.arg_names, args, kwargs)
        for k, f in kernel.values.items():
            kwargs[k] = named[k] = f({**kwargs, **named})
        return _effects_of_call(kernel.fn, args, kwargs)
    if isinstance(kernel, autotuner.Autotuner):
        report = {}
        for config in kernel.configs:
            report = effects._merge_reports(
                report, _effects_of_call(kernel.fn, args, {**kwargs, **config.all_kwargs()}))
        return report
    if not isinstance(kernel, JITFunction):
        raise TypeError(f"tessera.effects expects a @tessera.jit function (or one under @autotune or "
                        f"@heuristics), got {kernel!r}")
    b = backends.launch_backend() or backends.get(backends.names()[0])
    key, bound = kernel._specialize(tuple(args), kwargs, b.specialization.config())
    d = specialize.decode(kernel, key, b.specialization, bound)
    ttir, _ = make_ttir(kernel, d.arg_types, d.constexprs, d.attrs, extern_libs=d.options.get("extern_libs"))
    return effects.analyze(ttir, kernel, d.arg_types, d.constexprs)


def compile(fn, signature=None, constexprs=None, target=None, num_warps=4, num_stages=3, **options):
    """Compile a @jit kernel ahead of time, without a GPU: see tessera.compiler.compiler.compile
    (target: "<backend>:<arch>", by default the first registered backend's default target)."""
    from .compiler.compiler import compile as _compile  # the front end loads on first use
    return _compile(fn, signature=signature, constexprs=constexprs, target=target, num_warps=num_warps,
                    num_stages=num_stages, **options)


# Each backend's own public names (its error classes), e.g. tessera.<Vendor>Error.
globals().update(_backends.exports())

__all__ = sorted(_backends.exports()) + [
    "__version__", "Autotuner", "CompilationError", "Config", "DeviceError", "Heuristics", "TritonError",
    "OutOfResources", "set_allocator", "autotune", "heuristics", "testing", "CompilerUnavailableError",
    "Diagnostic", "JITFunction", "MLIRError", "ParseResult", "cdiv", "compile", "effects", "interpret_mode", "jit",
    "language", "llvm_version", "next_power_of_2", "parse_mlir", "verify_mlir",
]
