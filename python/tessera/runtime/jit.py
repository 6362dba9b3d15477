"""@tessera.jit: kernel functions, their launch (`kernel[grid](*args)`), and calls between them."""

import ast
import functools
import inspect
import os
import sys
import textwrap
import weakref

from .. import _core
from ..language import core


def interpret_mode():
    """True when kernels run in the CPU interpreter (TESSERA_INTERPRET=1)."""
    return os.environ.get("TESSERA_INTERPRET", "0").lower() in ("1", "true", "yes", "on")


class _PythonLauncher:
    """Stands in for tessera._C.Launcher when the native core is not built: kernels still run in
    the interpreter (TESSERA_INTERPRET=1); launching on a GPU explains what is missing."""

    def _configure_launcher(self, *args):
        self._interpret_hook = args[-1]

    def __getitem__(self, grid):
        return functools.partial(self._launch_positional, grid)

    def _launch_positional(self, grid, *args, **kwargs):
        return self._launch(grid, args, kwargs, False)

    def _launch(self, grid, args, kwargs, warmup=False):
        if interpret_mode():
            return self._interpret_hook(grid, args, kwargs, warmup)
        _core._native()  # raises CompilerUnavailableError
        raise AssertionError("unreachable")

    def _specialize(self, args, kwargs, spec):
        _core._native()
        raise AssertionError("unreachable")


_LauncherBase = _core._C.Launcher if _core._C is not None else _PythonLauncher
_NO_DEFAULT = object()


class JITFunction(_LauncherBase):
    """A Python function compiled (or interpreted) as a Tessera kernel or device function.

    Attributes shared with the front end and the interpreter:
      fn               the original Python function
      signature        inspect.Signature of fn
      arg_names        parameter names, in order
      constexpr_names  names of parameters annotated tl.constexpr
      noinline         keep as a separate tt.func when called from another kernel
      do_not_specialize, do_not_specialize_on_alignment   names (or indices) excluded
    """

    def __init__(self, fn, noinline=False, do_not_specialize=(), do_not_specialize_on_alignment=(),
                 debug=None):
        if not inspect.isfunction(fn):
            raise TypeError(f"@tessera.jit expects a function, got {fn!r}")
        super().__init__()
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        self.noinline = bool(noinline)
        self.debug = debug
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self._param_set = frozenset(self.arg_names)
        self.constexpr_names = set()
        for name, p in self.signature.parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"@tessera.jit function {fn.__name__} cannot take *args or **kwargs")
            if _is_constexpr_annotation(p.annotation, fn):
                self.constexpr_names.add(name)
        # Launches bind arguments on every call; when every parameter is an
        # ordinary positional-or-keyword one, bind() takes a fast path.
        self._simple_params = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in self.signature.parameters.values())
        self._defaults = {n: p.default for n, p in self.signature.parameters.items() if p.default is not p.empty}
        self.do_not_specialize = set(self._names(do_not_specialize))
        self.do_not_specialize_on_alignment = set(self._names(do_not_specialize_on_alignment))
        self._src = None
        self._ast = None
        self.cache = {}            # specialization key -> CompiledKernel (compiled mode)
        self.used_global_vals = {}  # name -> (value, globals dict) captured at compile time
        self._configure()

    def _configure(self):
        """Hand the parameters and the hooks of the slow path to the C++ launcher."""
        from ..backends import specialization
        from . import specialize
        me = weakref.ref(self)

        def describe(value, name):
            return specialize.describe(value, name, me())

        def miss(key, bound, options, device):
            from ..compiler.compiler import launch_miss
            return launch_miss(me(), key, bound, options, device)

        def check_globals(kernel):
            from ..compiler.compiler import check_globals
            check_globals(me(), kernel.metadata["used_globals"])

        def interpret(grid, args, kwargs, warmup):
            fn = me()
            if warmup:
                raise RuntimeError(f"{fn.__name__}.warmup() compiles for a GPU; it has nothing to do in the "
                                   f"interpreter (TESSERA_INTERPRET=1)")
            from ..interpreter import run_kernel
            kwargs = dict(kwargs)
            opts = {k: kwargs.pop(k) for k in list(kwargs) if k in _LAUNCH_OPTIONS}
            return run_kernel(fn, grid, args, kwargs, **opts)

        spec = specialization.NVIDIA.config() if _core._C is not None else None
        self._configure_launcher(
            self.__name__, self.arg_names, [n in self.constexpr_names for n in self.arg_names],
            [self._defaults.get(n, _NO_DEFAULT) for n in self.arg_names], _NO_DEFAULT,
            [n in self.do_not_specialize for n in self.arg_names],
            [n in self.do_not_specialize_on_alignment for n in self.arg_names], spec, core.constexpr,
            describe, miss, check_globals, _raise_cuda_error, interpret)
        if _core._C is not None:
            from . import allocator
            self._set_scratch_allocator(allocator.allocate)
            self._set_constexpr_key(specialize.constexpr_key)
            if "torch" in sys.modules:
                specialize.install_torch(self)

    def _names(self, items):
        out = []
        for it in items:
            if isinstance(it, int):
                if not 0 <= it < len(self.arg_names):
                    raise ValueError(f"do_not_specialize index {it} out of range for {self.__name__}")
                out.append(self.arg_names[it])
            elif isinstance(it, str):
                if it not in self.arg_names:
                    raise ValueError(f"do_not_specialize: {self.__name__} has no parameter {it!r}")
                out.append(it)
            else:
                raise TypeError(f"do_not_specialize entries are names or indices, got {it!r}")
        return out

    # ----------------------------------------------------------- source
    @property
    def src(self):
        if self._src is None:
            try:
                self._src = textwrap.dedent(inspect.getsource(self.fn))
            except (OSError, TypeError):
                raise RuntimeError(f"cannot compile {self.__name__}: its source code is not available (a @jit "
                                   f"function must be defined in a file, not in an interactive session or "
                                   f"exec())") from None
        return self._src

    @property
    def starting_line(self):
        return self.fn.__code__.co_firstlineno

    @property
    def filename(self):
        return self.fn.__code__.co_filename

    def parse(self):
        """The function's ast.FunctionDef, with line numbers of the original file."""
        if self._ast is None:
            tree = ast.parse(self.src)
            ast.increment_lineno(tree, self.starting_line - 1)
            fdef = tree.body[0]
            if not isinstance(fdef, ast.FunctionDef):
                raise TypeError(f"@tessera.jit must decorate a plain function definition ({self.__name__})")
            self._ast = fdef
        return self._ast

    # ----------------------------------------------------------- binding
    def bind(self, args, kwargs):
        """Bind call arguments to parameters (defaults applied); TypeError on a mismatch."""
        names = self.arg_names
        if self._simple_params and len(args) <= len(names):
            given = dict(zip(names, args))
            fast = True
            for k, v in kwargs.items():
                if k in given or k not in self._param_set:
                    fast = False  # duplicate or unknown: let inspect word the error
                    break
                given[k] = v
            if fast:
                out = {}
                for n in names:
                    if n in given:
                        out[n] = given[n]
                    elif n in self._defaults:
                        out[n] = self._defaults[n]
                    else:
                        fast = False
                        break
                if fast:
                    return out
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return bound.arguments

    # ----------------------------------------------------------- calls
    def __call__(self, *args, **kwargs):
        builder = getattr(core._state, "builder", None)
        if builder is None:
            raise RuntimeError(
                f"{self.__name__} is a @tessera.jit function: launch it with "
                f"{self.__name__}[grid](...) or call it from another kernel")
        return builder.call_jit_function(self, args, kwargs)

    def as_device_callable(self):
        """A callable for combine functions of tl.reduce/tl.associative_scan."""
        return functools.partial(self.__call__)

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launch on `grid` (a tuple, or a callable of the bound arguments returning one)."""
        return self._launch(grid, args, kwargs, warmup)

    def warmup(self, *args, grid, **kwargs):
        """Compile and load for these arguments without launching; returns the CompiledKernel."""
        return self._launch(grid, args, kwargs, True)

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"


if _core._C is not None:
    _core._C.install_fast_subscript(JITFunction)

_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "stream", "enable_fp_fusion",
                   "debug", "launch_cooperative_grid")


def _raise_cuda_error(code, name, message, kernel_name):
    from ..backends.nvidia import CudaError, OutOfResources
    if name == "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES":
        raise OutOfResources(f"launching {kernel_name}: {name}: {message} (too many registers for the block: "
                             f"fewer warps or maxnreg=)")
    raise CudaError.from_fields(code, name, message, f"launching {kernel_name}")


def _is_constexpr_annotation(ann, fn):
    if ann is inspect.Parameter.empty:
        return False
    if ann is core.constexpr:
        return True
    if isinstance(ann, str):
        return ann.split(".")[-1] == "constexpr"
    return False


def jit(fn=None, *, noinline=False, do_not_specialize=(), do_not_specialize_on_alignment=(), debug=None,
        **unused):
    """Decorator: `@tessera.jit` or `@tessera.jit(noinline=True, do_not_specialize=["n"])`."""
    def decorate(f):
        return JITFunction(f, noinline=noinline, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug)
    if fn is not None:
        return decorate(fn)
    return decorate
