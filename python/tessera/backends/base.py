"""The backend interface: what a vendor provides to compile kernels for its GPUs and launch them there.

A backend is a `Backend` subclass registered with `tessera.backends.register`. It owns, for its
target prefix (`name`, e.g. "cuda" in "cuda:90"):

  * its compile options (`Options`, a frozen dataclass: the one list, validated on creation);
  * `parse_arch`, the architecture part of a target;
  * its stages after TTIR (`stages(options)`: an ordered {name: fn(src, metadata) -> artifact});
  * its specialization properties (`specialization`, see specialization.py);
  * `toolchain_key()`, the versions of outside tools its binaries depend on (disk cache key);
  * loading and launching (`is_available`, `current_device`, `current_target`, `load`,
    `launch_entry`, `launch_error`) and the device helpers the runtime and tessera.testing use
    (streams, synchronization, timing events, buffers, the scratch allocator, how tensors and
    array-interface objects map to devices).

This module imports only the native core; the compiler and the runtime reach backends through
the registry (tessera.backends), never by name.
"""

import contextlib
import dataclasses
import functools
import hashlib
import os
import re
import sys
import time
import types
from typing import Optional

from .. import _core
from ..errors import TritonError
from . import specialization as _specialization


class DeviceError(TritonError, RuntimeError):
    """A failure reported by a GPU driver; each backend raises its own subclass."""


class OutOfResources(TritonError, RuntimeError):
    """A kernel needs more of a per-block resource than the GPU has (shared memory, registers).
    The autotuner skips configurations that raise it."""


_LIBPATH = re.compile(r'libpath = "([^"]+)"')


def extern_libraries(ir_text):
    """The user bitcode libraries (tl.extern_elementwise) the calls of a module's text name, in
    order, each once."""
    return list(dict.fromkeys(_LIBPATH.findall(ir_text)))


class StageError(RuntimeError):
    """A compilation stage failed. `diagnostics` are the native core's located diagnostics: the
    compiler reports those that point at kernel code as a CompilationError at that line."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


# ------------------------------------------------------------------ options

def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# ------------------------------------------------------------------ shared by the backends

# The TTGIR passes, in order (docs/architecture.md): layouts for every tensor, then
# per-access layouts from AxisInfo, then those carried to the values around them with
# conversions removed, then tensor-core layouts for dots, then those carried through the
# dots' epilogues.
def _env_flag_off(name):
    return os.environ.get(name, "") in ("", "0")


def profiling_key():
    """The profiling settings compiled code depends on (part of every cache key): whether
    tessera.profiler scopes become records (tessera.profiler.instrumenting()), the metric they
    hold (TESSERA_PROFILE_METRIC: cycle or time) and the shared bytes their buffer may use
    (TESSERA_PROFILE_BUFFER_BYTES, 0: what is free, up to 16 KiB)."""
    from .. import profiler
    if not profiler.instrumenting():
        return {"scopes": False}
    metric = os.environ.get("TESSERA_PROFILE_METRIC", "") or "cycle"
    if metric not in ("cycle", "time"):
        raise ValueError(f"TESSERA_PROFILE_METRIC must be 'cycle' or 'time', got {metric!r}")
    raw = os.environ.get("TESSERA_PROFILE_BUFFER_BYTES", "") or "0"
    try:
        nbytes = int(raw)
    except ValueError:
        nbytes = -1
    if nbytes < 0:
        raise ValueError(f"TESSERA_PROFILE_BUFFER_BYTES must be a non-negative integer, got {raw!r}")
    return {"scopes": True, "metric": metric, "buffer_bytes": nbytes}


def kernel_stages(target, options, start="ttir", **switches):
    """The native compile's stages for `target` (tessera::api::kernelStages, the pipelines the C++
    embedding API compiles with too), from the kernel's options, the environment switches
    (TESSERA_DISABLE_COALESCE/_VECTORIZE/_PIPELINE; a backend passes its own, e.g.
    tma_all_copies) and the profiling settings; from `start` ("ttir": both stages, "ttgir": the
    LLVM one)."""
    from .. import _core
    key = profiling_key()
    stages = _core._native().kernel_stages(
        target, num_warps=options.num_warps, num_stages=options.num_stages, num_ctas=options.num_ctas,
        coalesce=coalesce_enabled(), vectorize=vectorize_enabled(), profile_scopes=key["scopes"],
        profile_metric=key.get("metric", "cycle"), profile_buffer_bytes=key.get("buffer_bytes", 0), **switches)
    return stages if start == "ttir" else [s for s in stages if s[0] != "ttgir"]


def fast_version_stages(stages):
    """`stages` (from kernel_stages with start "ttgir") with ttg-drop-slow-versions first: only the
    then branches of ttg-version-nonnegative's ifs are compiled. Not the kernel's meaning for every
    input; the backends compile it only to measure the registers that version needs."""
    (stage, pipe), *rest = stages
    return [(stage, pipe.replace("builtin.module(", "builtin.module(ttg-drop-slow-versions, canonicalize, ", 1)),
            *rest]


def profile_metadata(md, text_md):
    """The kernel's metadata["profile"] (what tessera.profiler decodes its buffer with), from the
    module attributes prof-lower-records wrote; None for a kernel without records."""
    size = md.get("prof.bytes_per_program", 0)
    if not size:
        return None
    import json
    return {"bytes_per_program": size, "header_bytes": 32, "num_warps": md.get("ttg.num-warps", 4),
            "records_per_warp": md.get("prof.records_per_warp", 0),
            "metric": text_md.get("prof.metric", "cycle"),
            "scopes": json.loads(text_md.get("prof.scopes", "[]"))}


def pipeline_enabled():
    """False when TESSERA_DISABLE_PIPELINE is set (to anything but "" or "0"): loops keep their
    synchronous loads (ttg-pipeline is left out), to bisect a miscompile; part of the cache key."""
    return _env_flag_off("TESSERA_DISABLE_PIPELINE")


def coalesce_enabled():
    """False when TESSERA_DISABLE_COALESCE is set (to anything but "" or "0"): the TTGIR
    pipeline then skips ttg-version-nonnegative, ttg-coalesce and ttg-remove-layout-conversions,
    and every tensor keeps convert-tt-to-ttg's default layout, to bisect a miscompile. Read at each compilation and part
    of the disk cache key, like TESSERA_DISABLE_VECTORIZE."""
    return _env_flag_off("TESSERA_DISABLE_COALESCE")


def vectorize_enabled():
    """False when TESSERA_DISABLE_VECTORIZE is set (to anything but "" or "0"): loads and stores
    are then lowered one element at a time, to bisect a miscompile. Read at each compilation and
    part of the disk cache key; kernels already loaded in this process keep what they were
    compiled with (set it before the first launch)."""
    return _env_flag_off("TESSERA_DISABLE_VECTORIZE")


@dataclasses.dataclass(frozen=True)
class Options:
    """Compile options: the one list, used by tessera.compile, by launch options
    (`kernel[grid](..., num_warps=8)`), by tessera.Config and by the disk cache key.

    A backend adds its own options in a subclass (a frozen dataclass whose fields have
    defaults) and checks them in `validate` after calling the base class's. The first fields,
    in this order, are those the C++ launcher keys on (KEY_OPTIONS); others are compile-only.
    """

    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: Optional[int] = None
    enable_fp_fusion: bool = True
    debug: Optional[bool] = None
    launch_cooperative_grid: bool = False
    # User device libraries by name, as Triton's `extern_libs`: {name: path of LLVM bitcode},
    # kept as sorted (name, absolute path) pairs. A tl.extern_elementwise call of library `name`
    # links this file (it overrides the call's lib_path; a call may leave lib_path empty and rely
    # on it); "libdevice" replaces the backend's libdevice.
    extern_libs: Optional[tuple] = None

    def __post_init__(self):
        libs = self.extern_libs
        if isinstance(libs, dict):
            libs = tuple(libs.items())
        if isinstance(libs, (tuple, list)):
            try:
                libs = tuple(sorted((n, os.path.abspath(p)) for n, p in libs)) or None
            except (TypeError, ValueError):
                pass  # validate() says what is wrong
            object.__setattr__(self, "extern_libs", libs)
        self.validate()

    def validate(self):
        """Raise TypeError (wrong type) or ValueError (wrong value) naming the option and value."""
        self.check("num_warps", _is_int, "an int")
        self.check("num_warps", lambda v: 1 <= v <= 32 and not v & (v - 1),
                   "a power of two in 1..32 (a block has at most 1024 threads)", ValueError)
        self.check("num_stages", _is_int, "an int")
        self.check("num_stages", lambda v: 1 <= v <= 16, "in 1..16", ValueError)
        self.check("num_ctas", _is_int, "an int")
        self.check("num_ctas", lambda v: v == 1, "1 (clusters of CTAs are not supported)", ValueError)
        self.check("maxnreg", lambda v: v is None or _is_int(v), "an int or None")
        self.check("maxnreg", lambda v: v is None or 16 <= v <= 255, "in 16..255", ValueError)
        self.check("enable_fp_fusion", lambda v: isinstance(v, bool), "a bool")
        self.check("debug", lambda v: v is None or isinstance(v, bool), "a bool or None")
        self.check("launch_cooperative_grid", lambda v: isinstance(v, bool), "a bool")
        self.check("launch_cooperative_grid", lambda v: not v,
                   "False: it is not supported yet (Tessera has no grid-wide synchronization)", ValueError)
        self.check("extern_libs", lambda v: v is None or (
            isinstance(v, tuple) and all(isinstance(n, str) and n and isinstance(p, str) and p for n, p in v)),
            "a dict {library name: path of an LLVM bitcode file}")
        for name, path in self.extern_libs or ():
            if not os.path.isfile(path):
                raise ValueError(f"extern_libs: library '{name}' not found at {path!r}")

    def extern_libs_dict(self):
        """extern_libs as {name: absolute path} ({} when none)."""
        return dict(self.extern_libs or ())

    def check(self, name, ok, expected, exc=TypeError):
        """Raise `exc` naming `name` and its value unless `ok(value)`."""
        value = getattr(self, name)
        if not ok(value):
            raise exc(f"{name}={value!r} is not valid: it must be {expected}")

    @classmethod
    def names(cls):
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def parse(cls, options, what="options"):
        """Options from a {name: value} dict: an unknown name is a TypeError, a None value takes
        the default."""
        unknown = sorted(set(options) - set(cls.names()))
        if unknown:
            raise TypeError(f"{what}: unknown option(s) {', '.join(unknown)} (known: {', '.join(cls.names())})")
        return cls(**{k: v for k, v in options.items() if v is not None})

    def as_dict(self):
        return {n: getattr(self, n) for n in self.names()}

    def key(self):
        """A hashable form for in-memory caches."""
        return tuple((n, repr(v)) for n, v in self.as_dict().items())


# The launch options the C++ launcher accepts, in the order of its key (tessera._C: kOptionNames):
# the base Options, then `stream`, which is not a compile option.
KEY_OPTIONS = Options.names()
LAUNCH_OPTIONS = KEY_OPTIONS + ("stream",)


# ------------------------------------------------------------------ helpers

class HostEvent:
    """A timing event on the host clock: `record()`, then `start.elapsed_time(end)` in ms."""

    def __init__(self):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


def _code_digest(code, h):
    """Hash what a code object does (bytecode, names, constants), not where it lives in memory
    (marshal's output depends on reference counts, so it is not stable across processes)."""
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_digest(c, h)
        elif isinstance(c, frozenset):
            h.update(repr(sorted(map(repr, c))).encode())
        else:
            h.update(repr(c).encode())


def _fingerprint(fn):
    """`module.qualname:hash of the code` of a stage function (partials and bound methods unwrapped)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        call = getattr(type(fn), "__call__", None)
        code = getattr(getattr(call, "__func__", call), "__code__", None)
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__qualname__)}"
    if code is None:
        return name
    h = hashlib.sha256()
    _code_digest(code, h)
    return f"{name}:{h.hexdigest()[:16]}"


# ------------------------------------------------------------------ the interface

class Backend:
    """A vendor backend. Subclass it, set `name`, and override what the target supports:

      compile-only (TTIR and later stages): name, Options, parse_arch, stages, specialization,
        toolchain_key (and default_arch when tessera.compile should default to this target);
      launching: is_available, unavailable_reason, current_device, current_target, load,
        launch_entry, launch_error, and the device helpers below as the backend needs them.

    The defaults describe a backend with no stages after TTIR that cannot launch.
    """

    name = None              # the target prefix: "cuda" in "cuda:90"
    Options = Options        # the options dataclass (a subclass adds the backend's own)
    default_arch = None      # the arch tessera.compile uses by default (first registered backend's)
    host_device = -1         # the device ordinal host memory counts as; -1: kernels cannot use it
    exports = {}             # public names the `tessera` package re-exports (e.g. error classes)
    specialization = _specialization.Specialization("generic", [_specialization.Divisibility((16,)),
                                                                _specialization.EqualsOne(),
                                                                _specialization.NonNegative()])

    # --------------------------------------------------------- targets and options
    def parse_arch(self, arch):
        """The architecture part of a target ("90" of "cuda:90"), checked; ValueError if unsupported."""
        if not arch:
            raise ValueError(f"target {self.name}: needs an architecture after ':'")
        return arch

    def target(self, arch):
        return f"{self.name}:{arch}"

    def parse_options(self, options, what="options"):
        """This backend's Options from a dict (or Options of another class), validated."""
        if isinstance(options, self.Options):
            return options
        if isinstance(options, Options):
            options = options.as_dict()
        return self.Options.parse(dict(options), what)

    # --------------------------------------------------------- compiling
    def stages(self, options):
        """The stages after TTIR, in order: {name: fn(src, metadata) -> artifact}. Each takes the
        previous stage's artifact (the first: the TTIR text) and `metadata`, a dict holding
        "name" (the kernel's), "target" and "arch" to which a stage may add (e.g. "shared": the
        launcher's shared-memory bytes). Artifacts are kept as kernel.asm[name] (str or bytes);
        a stage that returns None (a tool is missing) ends compilation there without an
        artifact. To override one, subclass the backend, change the dict that super().stages()
        returns, and register the subclass with replace=True."""
        return {}

    def toolchain_key(self):
        """{tool: version} of outside tools the binaries depend on, for the disk cache key."""
        return {}

    def compile_environment(self):
        """Settings read from the environment that change the code this backend generates
        (e.g. TESSERA_DISABLE_VECTORIZE), as a dict: part of the disk cache key and of
        tessera.compile's in-process key. Kernels already loaded keep what they were compiled with."""
        return {}

    def device_tensor_maps(self, arch):
        """Whether kernels compiled for `arch` make TMA tensor maps on the device for
        tl.make_tensor_descriptor (the front end then emits tt.make_tensor_descriptor and guarded
        copies through it, which the backend's passes lower); False: such descriptors access
        memory through pointers."""
        return False

    def cache_key(self, options):
        """What the disk cache key holds of the backend: its class, toolchain and stage functions
        (a replaced stage invalidates what the old one produced), and its compile environment."""
        cls = type(self)
        return {"backend": f"{cls.__module__}.{cls.__qualname__}", "toolchain": self.toolchain_key(),
                "stages": [[n, _fingerprint(fn)] for n, fn in self.stages(options).items()],
                "environment": self.compile_environment(), "profiling": profiling_key()}

    # --------------------------------------------------------- launching
    def can_launch(self):
        """Whether the backend launches kernels at all (it implements `load`)."""
        return type(self).load is not Backend.load

    def is_available(self):
        """True when kernels can be launched on this machine (driver and device present)."""
        return False

    def environment(self):
        """What this backend found on the machine, for `python -m tessera` (a dict of readable
        values): whether kernels launch here and why not, and the tools its binaries depend on."""
        env = {"launches kernels": self.is_available()}
        if not env["launches kernels"]:
            env["why not"] = self.unavailable_reason()
        env.update(self.toolchain_key())
        return env

    def unavailable_reason(self):
        """Why `is_available()` is False, for error messages."""
        return f"the {self.name} backend does not launch kernels"

    def current_device(self):
        """The device ordinal kernels launch on when no argument says otherwise."""
        return 0

    def current_target(self, device):
        """The target of `device`, e.g. "cuda:90"."""
        raise NotImplementedError(f"the {self.name} backend does not launch kernels")

    def device_properties(self, device):
        """{name: value} of `device` as triton's driver.active.utils.get_device_properties gives
        them: max_shared_mem, max_num_regs, multiprocessor_count, warpSize, sm_clock_rate and
        mem_clock_rate (kHz), mem_bus_width (bits)."""
        raise NotImplementedError(f"the {self.name} backend does not launch kernels")

    def torch_device_type(self):
        """The torch device type of this backend's devices ("cuda" for CUDA and ROCm builds)."""
        return "cuda"

    def load(self, kernel, device):
        """Load a CompiledKernel (kernel.asm, kernel.metadata) on `device`; returns the backend's
        loaded object (kept as kernel.loaded). May add to kernel.metadata."""
        raise NotImplementedError(f"the {self.name} backend does not launch kernels")

    def launch_entry(self, kernel, loaded, num_params, globals_):
        """The tessera._C.LaunchEntry the C++ launcher keeps for one specialization. The default
        launches through Python: `loaded` must be callable as loaded(grid, stream, args)."""
        return self.make_launch_entry(kernel, num_params, globals_, launch=loaded)

    def make_launch_entry(self, kernel, num_params, globals_, function=0, context=0, block=0, shared=0,
                          launch=None):
        """A LaunchEntry: a driver function handle (function, context, block, shared) for the C++
        launcher to launch, or `launch`, a Python callable launch(grid, stream, args) called with
        the 3-tuple grid, the stream and the kernel's run-time argument values."""
        meta = kernel.metadata
        extra = {"launch": launch} if launch is not None else {}
        return _core._native().LaunchEntry(function=function, context=context, block=block, shared=shared,
                                           num_params=num_params, kernel=kernel, globals=globals_,
                                           scratch_size=meta.get("global_scratch_size", 0),
                                           scratch_align=meta.get("global_scratch_align", 1),
                                           profile_size=(meta.get("profile") or {}).get("bytes_per_program", 0),
                                           **extra)

    def launch_loaded(self, kernel, loaded, grid, pointers, stream):
        """Launch `loaded` (this backend's load(kernel, device)) on `grid` (3 ints) and `stream`
        with `pointers` (device addresses, one 64-bit kernel parameter each) as its parameters:
        the direct launch of kernels whose parameters are all pointers (tessera.nki.compile)."""
        raise NotImplementedError(f"the {self.name} backend does not launch kernels directly")

    def launch_error(self, code, name, message, kernel_name):
        """Raise the exception for a failed launch (the C++ launcher calls this)."""
        raise DeviceError(f"launching {kernel_name}: {name}: {message}")

    # --------------------------------------------------------- arguments and devices
    def torch_launch_hooks(self, torch):
        """(current_stream(device) -> int, current_device() -> int) when the C++ launcher may read
        torch tensors natively (their device is `tensor.get_device()`), else None: tensors then go
        through `tensor_device`."""
        return None

    def tensor_device(self, tensor):
        """The device ordinal of a torch tensor's memory (-1: not usable by kernels)."""
        d = tensor.get_device()
        return d if d >= 0 else self.host_device

    def dlpack_device(self, device_type, device_id):
        """The device ordinal of DLPack memory (kDLCPU is 1), -1 when kernels cannot use it."""
        return self.host_device if device_type == 1 else -1

    def array_interface(self, value, name):
        """(interface, device) for an object that shows its memory through this vendor's
        array-interface protocol (a dict like numpy's __array_interface__), or None."""
        return None

    def current_stream(self, device):
        """The raw handle of the current stream on `device` (0: the default stream)."""
        return 0

    def synchronize(self, device=None):
        """Wait for the work queued on `device` (None: the current one)."""

    def timing_event(self):
        """A new event with record() and elapsed_time(end) in milliseconds (do_bench)."""
        return HostEvent()

    def device_buffer(self, nbytes):
        """A byte tensor of `nbytes` on the current device (do_bench flushes the cache with it)."""
        import torch
        return torch.empty(nbytes, dtype=torch.int8)

    def device_context(self, device):
        """A context manager making `device` current (the scratch allocator runs inside it)."""
        return contextlib.nullcontext()

    def default_allocator(self, size, alignment, stream):
        """Global scratch when the user set no allocator: an object with data_ptr() (see
        tessera.set_allocator)."""
        import torch
        t = torch.empty(size + alignment, dtype=torch.uint8)
        skip = (-t.data_ptr()) % alignment
        return t[skip:skip + size]

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


def torch_module():
    """torch if it has been imported (backends never import it just to look)."""
    return sys.modules.get("torch")
