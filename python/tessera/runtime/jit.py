"""@tessera.jit: kernel functions, their launch (`kernel[grid](*args)`), and calls between them.

The launch fast path is C++ (tessera._C.Launcher, the base class of JITFunction); it is configured
here for the launch backend (tessera.backends.launch_backend: its specialization properties, its
launch-error hook, how it reads tensors) and again whenever that backend changes. This module
does not import the compiler, which looks up JITFunction here: the compile-on-miss path comes
from tessera.runtime.launch through install_slow_path.
"""

import ast
import functools
import inspect
import os
import textwrap
import weakref

from .. import _core, backends, profiler
from ..language import core
from . import allocator, specialize, tensor_descriptor


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

# The slow path of a launch: "miss" (compile, load, return the LaunchEntry of a key) and
# "check_globals" (raise when a global a kernel was compiled with has changed), installed by
# tessera.runtime.launch.
_slow_path = {}


def install_slow_path(miss, check_globals, check_language):
    """Set the functions the launcher calls on a key miss (miss(jit_fn, key, bound, options,
    device) -> LaunchEntry) and when a kernel's globals may have changed (check_globals(jit_fn,
    kernel)), and the one the interpreter calls before it runs a kernel for new argument types
    (check_language(jit_fn, arg_types, constexprs): raises the compiler's CompilationError)."""
    _slow_path.update(miss=miss, check_globals=check_globals, check_language=check_language)


def _slow(name):
    fn = _slow_path.get(name)
    if fn is None:
        raise RuntimeError("tessera.runtime.launch was not imported, so kernels cannot be compiled on launch "
                           "(import tessera)")
    return fn


_GENERIC_SPEC = backends.Backend.specialization  # for launchers without a launch backend


def _no_backend_error(code, name, message, kernel_name):
    raise backends.DeviceError(f"launching {kernel_name}: {name}: {message}")


# Live kernels, reconfigured when the launch backend changes.
_live = weakref.WeakSet()


def clear_all_caches():
    """Forget the compiled kernels of every live @jit function (their `cache`, and with it the C++
    launcher's fast-path entries), so that each one's next launch compiles again. tessera.profiler
    calls it when its sessions switch instrumentation on or off (installed below)."""
    for fn in list(_live):
        fn.cache.clear()


# The profiler sits below the runtime: it gets the cache switch and the launch backend from here.
profiler.install_runtime(clear_all_caches, backends.launch_backend)


def _jit_by_name(module, qualname):
    """The @jit function `qualname` of `module` (unpickling a JITFunction)."""
    import importlib
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, JITFunction):
        raise TypeError(f"{module}.{qualname} is not a @tessera.jit function (got {type(obj).__name__})")
    return obj


class _KernelCache(dict):
    """A JIT function's compiled kernels by specialization key. `clear()` also forgets what the
    C++ launcher keeps for its fast path, so that the next launch compiles again (under the
    environment and options of then)."""

    def __init__(self, owner):
        super().__init__()
        self._owner = weakref.ref(owner)

    def clear(self):
        super().clear()
        owner = self._owner()
        if owner is not None and hasattr(owner, "_clear_launch_cache"):
            owner._clear_launch_cache()


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

    def __reduce__(self):
        """Pickled by reference (its module and qualified name), as Python pickles functions: a
        worker process imports the module and finds the same kernel."""
        if "<locals>" in self.__qualname__:
            import pickle
            raise pickle.PicklingError(f"cannot pickle {self.__module__}.{self.__qualname__}: a @jit function "
                                       f"defined inside another function cannot be found by name; define it "
                                       f"at module level")
        return (_jit_by_name, (self.__module__, self.__qualname__))

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
        self.cache = _KernelCache(self)  # specialization key -> CompiledKernel (compiled mode)
        self.used_global_vals = {}  # name -> (value, globals dict) captured at compile time
        self._backend = None
        self._configure()
        _live.add(self)

    def _configure(self):
        """Hand the parameters, the launch backend's specialization and the hooks of the slow
        path to the C++ launcher."""
        me = weakref.ref(self)
        backend = self._backend = backends.launch_backend()

        def describe(value, name):
            return specialize.describe(value, name, me(), backend)

        def miss(key, bound, options, device):
            return _slow("miss")(me(), key, bound, options, device)

        def check_globals(kernel):
            _slow("check_globals")(me(), kernel)

        def interpret(grid, args, kwargs, warmup):
            fn = me()
            if warmup:
                raise RuntimeError(f"{fn.__name__}.warmup() compiles for a GPU; it has nothing to do in the "
                                   f"interpreter (TESSERA_INTERPRET=1)")
            from ..interpreter import run_kernel  # numpy-based; loaded on first use
            # Another library's host descriptors (Triton's TensorDescriptor) as ours.
            args = tuple(tensor_descriptor.convert_foreign(a) for a in args)
            kwargs = {k: tensor_descriptor.convert_foreign(v) for k, v in kwargs.items()}
            # A keyword that names a parameter is that parameter's value (and also an
            # option when it names one, as in Triton); other option names are options only.
            opts = {k: (kwargs[k] if k in fn._param_set else kwargs.pop(k))
                    for k in list(kwargs) if k in backends.LAUNCH_OPTIONS}
            return run_kernel(fn, grid, args, kwargs, check=_slow("check_language"), **opts)

        spec = None
        if _core._C is not None:
            spec = (backend.specialization if backend is not None else _GENERIC_SPEC).config()
        launch_error = backend.launch_error if backend is not None else _no_backend_error
        self._configure_launcher(
            self.__name__, self.arg_names, [n in self.constexpr_names for n in self.arg_names],
            [self._defaults.get(n, _NO_DEFAULT) for n in self.arg_names], _NO_DEFAULT,
            [n in self.do_not_specialize for n in self.arg_names],
            [n in self.do_not_specialize_on_alignment for n in self.arg_names], spec, core.constexpr,
            describe, miss, check_globals, launch_error, interpret)
        if _core._C is not None:
            self._set_scratch_allocator(functools.partial(allocator.allocate, backend=backend))
            self._set_constexpr_key(specialize.constexpr_key)
            self._set_foreign_argument(tensor_descriptor.foreign_argument)
            specialize.install_torch(self, backend)

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

    @src.setter
    def src(self, new_src):
        """Replace the function's source (Triton's test helpers patch kernels this way): the new
        text is compiled on the next launch, and the interpreter runs a function built from it
        (tessera.interpreter.assign); nothing compiled from the old one is reused (in-memory
        caches are cleared; the disk cache key covers the source)."""
        if not isinstance(new_src, str):
            raise TypeError(f"{self.__name__}.src must be a str, got {type(new_src).__name__}")
        new_src = textwrap.dedent(new_src)
        tree = ast.parse(new_src)
        fdefs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        if len(tree.body) != 1 or not fdefs:
            raise ValueError(f"{self.__name__}.src must hold one function definition")
        fdef = fdefs[0]
        params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs]
        if params != self.arg_names:
            raise ValueError(f"{self.__name__}.src must keep the parameters ({', '.join(self.arg_names)}), "
                             f"got ({', '.join(params)})")
        self._src = new_src
        self._src_replaced = True  # the interpreter runs a function built from it
        self._ast = None
        self.cache.clear()  # and the launcher's

    @property
    def starting_line(self):
        """The line of the original definition (kept when `src` is replaced)."""
        if getattr(self, "_starting_line", None) is None:
            self._starting_line = self.fn.__code__.co_firstlineno
        return self._starting_line

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


def _install_tensor_map_encoder():
    """TensorDescriptor arguments get a tensor map from the launch backend that encodes them."""
    backend = backends.launch_backend()
    tensor_descriptor.set_tensor_map_encoder(getattr(backend, "encode_tensor_map", None))


def _launch_backend_changed():
    backend = backends.launch_backend()
    _install_tensor_map_encoder()
    for fn in list(_live):
        if fn._backend is not backend:
            fn._configure()


backends.on_change(_launch_backend_changed)
_install_tensor_map_encoder()


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
