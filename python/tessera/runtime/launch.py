"""The slow path of kernel[grid](*args): on a key miss, compile for the launch backend, load, build the LaunchEntry."""

from .. import backends
from . import jit, specialize


def _compiler():
    """The compiler, imported at the first launch miss rather than with tessera: the front end is
    half of the package's import time, which a process that only imports tessera, interprets
    kernels or launches nothing should not pay."""
    from ..compiler import compiler
    return compiler


def launch_miss(jit_fn, key, bound, options, device):
    """Run by the C++ launcher on a cache miss: decode the specialization key, compile (or take the
    compilation from the disk cache), load the binary on `device` through the backend the launcher
    is configured for, and return the tessera._C.LaunchEntry that the launcher keeps under `key`."""
    backend = jit_fn._backend
    if backend is None or not backend.is_available():
        why = backend.unavailable_reason() if backend is not None else "no registered backend launches kernels"
        raise RuntimeError(f"cannot launch {jit_fn.__name__} on a GPU ({why}); run it on CPU tensors with "
                           f"TESSERA_INTERPRET=1, or compile it with tessera.compile(...)")
    compile_options = {k: v for k, v in options.items() if k in backends.KEY_OPTIONS}
    try:
        opts = backend.parse_options(compile_options, "launch options")
    except (TypeError, ValueError) as e:
        raise type(e)(f"{jit_fn.__name__}: {e}") from None
    spec = specialize.decode(jit_fn, key, backend.specialization, bound)
    kernel = _compiler().compile_cached(jit_fn, spec.arg_types, spec.constexprs, spec.attrs,
                                     backend.current_target(device), opts)
    kernel.metadata["device"] = device
    kernel.loaded = backend.load(kernel, device)
    # kernel[grid](*args) relaunches through the JIT function with these options.
    kernel.fn = jit_fn
    kernel.launch_options = dict(options)
    jit_fn.cache[key] = kernel
    globals_ = [(gdict, name, value) for (_, _, name), (value, gdict, _) in kernel.metadata["used_globals"].items()
                if gdict is not None]
    return backend.launch_entry(kernel, kernel.loaded, spec.num_params, globals_)


def check_globals(jit_fn, kernel):
    """The launcher's check when a global a kernel read may have changed."""
    _compiler().check_globals(jit_fn, kernel.metadata["used_globals"])


def check_language(jit_fn, arg_types, constexprs):
    """The interpreter's check before it runs a kernel: the compiler's front end over the kernel
    for these argument types (compiler.check_kernel)."""
    _compiler().check_kernel(jit_fn, arg_types, constexprs)


jit.install_slow_path(launch_miss, check_globals, check_language)
