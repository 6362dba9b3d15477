"""Vendor backends and their registry: the only way the compiler and the runtime reach a backend.

    from tessera import backends
    backend, arch = backends.for_target("cuda:90")    # by target (compiling)
    backend = backends.launch_backend()               # the backend kernels launch on

Layering (imports go one way, down this list; python/test/unit/test_import_graph.py checks it):

    tessera (package), tessera.testing       the public API; do_bench through the launch backend
    runtime.launch, runtime.autotuner        compile on a launch miss; tuning
    compiler                                 AST -> TTIR, then the backend's stages
    runtime.jit, .specialize, .cache, .allocator
                                             kernel objects and the launcher's hooks, keys, the
                                             disk cache (they compile nothing, so the compiler
                                             may use them)
    backends                                 this package: base (the interface), specialization,
                                             the registry, and the vendors (nvidia, amd)
    language, interpreter                    the kernel language and its CPU interpreter
    _core                                    the native core (tessera._C)

Backends import only _core and each other: vendor code (driver names, tools, torch.cuda) lives
here and nowhere above. runtime.jit cannot import the compiler (the compiler's code generator
looks up runtime.jit.JITFunction), so runtime.launch hands it the compile-on-miss path
(jit.install_slow_path) when tessera is imported.

NVIDIA and AMD register here, in this order; the first registered backend's default_arch is
tessera.compile's default target. Another backend registers with `register(MyBackend())`.
"""

from . import amd, base, nvidia, specialization  # noqa: F401
from .base import (  # noqa: F401
    KEY_OPTIONS, LAUNCH_OPTIONS, Backend, DeviceError, HostEvent, Options, OutOfResources, StageError,
    profiling_key,
)

_registry = {}      # name -> Backend, in registration order
_active = None      # the name set with set_active, or None: choose automatically
_available = {}     # name -> is_available(), probed once while several backends can launch
_listeners = []


def register(backend, replace=False):
    """Add `backend` (a Backend instance) for its target prefix `backend.name`. A name already
    registered is a ValueError unless `replace` (e.g. a subclass overriding stages)."""
    if not isinstance(backend, Backend):
        raise TypeError(f"backends.register expects a Backend instance, got {backend!r}")
    name = backend.name
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"a backend's name is its target prefix (no ':'), got {name!r}")
    if name in _registry and not replace:
        raise ValueError(f"a backend named {name!r} is already registered (pass replace=True to replace it)")
    _registry[name] = backend
    _changed()
    return backend


def unregister(name):
    """Remove the backend registered as `name` (and stop using it for launches)."""
    global _active
    get(name)
    del _registry[name]
    if _active == name:
        _active = None
    _changed()


def names():
    """The registered target prefixes, in registration order."""
    return list(_registry)


def get(name):
    """The backend registered for target prefix `name`; ValueError listing the known ones."""
    try:
        return _registry[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r} (known: {', '.join(_registry) or 'none'})") from None


def for_target(target):
    """(backend, parsed arch) of a target string "<backend>:<arch>" such as "cuda:90"."""
    if not isinstance(target, str) or ":" not in target:
        examples = " or ".join(repr(b.target(b.default_arch)) for b in _registry.values() if b.default_arch)
        raise ValueError(f"target must look like '<backend>:<arch>'{' (e.g. ' + examples + ')' if examples else ''}, "
                         f"got {target!r}")
    name, arch = target.split(":", 1)
    if name not in _registry:
        raise ValueError(f"unknown backend {name!r} in target {target!r} (known: {', '.join(_registry) or 'none'})")
    backend = _registry[name]
    return backend, backend.parse_arch(arch)


def default_target():
    """tessera.compile's target when none is given: the first registered backend with a
    default_arch."""
    for b in _registry.values():
        if b.default_arch is not None:
            return b.target(b.default_arch)
    raise ValueError("no registered backend has a default target; pass target=")


def set_active(name):
    """Launch kernels on the backend registered as `name` (None: choose automatically again)."""
    global _active
    if name is not None:
        get(name)
    _active = name
    _changed()


def launch_backend(name=None):
    """The backend kernels launch on: the one registered as `name` if given, else the one chosen
    with set_active, else the first registered backend that can launch (when several can, the
    first available one; availability is probed only then, as it starts the driver). None when
    no registered backend launches."""
    if name is not None:
        return get(name)
    if _active is not None:
        return _registry[_active]
    candidates = [b for b in _registry.values() if b.can_launch()]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    for b in candidates:
        if b.name not in _available:
            _available[b.name] = bool(b.is_available())
        if _available[b.name]:
            return b
    return candidates[0]


def available(name=None):
    """True when kernels can be launched on the backend `name` (None: the launch backend)."""
    try:
        b = launch_backend(name)
    except ValueError:
        return False
    return b is not None and b.is_available()


def exports():
    """The public names every registered backend asks the `tessera` package to re-export (its
    error classes), by name."""
    out = {}
    for b in _registry.values():
        out.update(b.exports)
    return out


def on_change(callback):
    """Call `callback()` whenever the registry or the active backend changes (the JIT uses this
    to reconfigure its launchers)."""
    _listeners.append(callback)


def _changed():
    _available.clear()
    for cb in list(_listeners):
        cb()


register(nvidia.NvidiaBackend())
register(amd.AmdBackend())

__all__ = ["KEY_OPTIONS", "LAUNCH_OPTIONS", "Backend", "DeviceError", "HostEvent", "Options", "OutOfResources",
           "StageError", "available", "default_target", "exports", "for_target", "get", "launch_backend", "names",
           "on_change", "register", "set_active", "unregister"]
