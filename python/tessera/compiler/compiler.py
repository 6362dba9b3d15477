"""Compilation driver: a @jit function + signature -> TTIR, then the target backend's stages.

Backends are reached through the registry (tessera.backends.for_target): nothing here knows a
vendor. The disk cache (tessera.runtime.cache) and the kernel objects (tessera.runtime.jit) sit
below this module; the launch path (tessera.runtime.launch) above it.
"""

import collections
import linecache
import os
import re
import tempfile
import threading

from .. import _core, backends
from ..language import core
from ..runtime import cache
from ..runtime.jit import JITFunction
from .errors import CompilationError
from . import effects


def gpu_backend_available(backend=None):
    """True when kernels can be launched on the backend registered as `backend` (a target prefix;
    None: the launch backend) on this machine."""
    return backends.available(backend)


TTIR_PIPELINE = "builtin.module(tt-rewrite-tensor-pointer, inline, canonicalize, cse, loop-invariant-code-motion, symbol-dce)"


class KernelMetadata(dict):
    """A kernel's metadata: a dict whose keys also read as attributes (`kernel.metadata.shared`,
    as Triton code reads them)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no '{name}' (it has: {', '.join(sorted(self))})") from None


class CompiledKernel:
    """The artifacts of one compilation: `asm[stage]` text and `metadata`.

    A kernel returned by `JITFunction.warmup(...)` (or found in `fn.cache`) is loaded on a device:
    `n_regs` / `n_spills` are its registers per thread and spilled bytes, and `kernel[grid](*args)`
    launches it with the launch options it was compiled with (all kernel arguments, constexprs
    included, as for the JIT function)."""

    def __init__(self, name, asm, metadata):
        self.name = name
        self.asm = asm
        self.metadata = metadata if isinstance(metadata, KernelMetadata) else KernelMetadata(metadata)
        self.fn = None  # the JITFunction, once launched or warmed up
        self.launch_options = {}

    def _init_handles(self):
        """Triton's hook to load the binary: a warmed-up kernel is loaded already. A kernel from
        tessera.compile() has no device to be loaded on; it is an error to ask."""
        if getattr(self, "loaded", None) is None:
            raise RuntimeError(f"{self.name} was compiled but not loaded on a device: get it from "
                               f"{self.name}.warmup(..., grid=...) to query registers or launch it")

    @property
    def n_regs(self):
        self._init_handles()
        return self.metadata["num_registers"]

    @property
    def n_spills(self):
        self._init_handles()
        return self.metadata["num_spills"]

    def __getitem__(self, grid):
        if getattr(self, "loaded", None) is None and self.fn is not None and _has_binary(self):
            # From tessera.compile, here or in a worker process (unpickled): launches go through
            # the JIT function, which takes this binary instead of compiling when the arguments
            # specialize as it was compiled (see preload).
            preload(self)
        else:
            self._init_handles()
        fn, options = self.fn, self.launch_options

        def runner(*args, **kwargs):
            # A positional argument whose parameter is named like a launch option (num_stages)
            # goes by keyword, so that it sets the option too, as it did at warmup.
            names = fn.arg_names
            if len(args) <= len(names) and any(n in options for n in names[:len(args)]):
                kwargs = {**dict(zip(names, args)), **kwargs}
                args = ()
            return fn[grid](*args, **{**options, **kwargs})
        return runner

    def __repr__(self):
        return f"CompiledKernel({self.name}, stages={list(self.asm)})"

    def __getstate__(self):
        """Pickling (a kernel compiled in a worker process, e.g. a spawn pool): the binary, asm,
        metadata and launch options travel; the device handle does not (a kernel is loaded where
        it launches), nor the globals' dictionaries used to validate a cached compilation."""
        state = dict(self.__dict__)
        state.pop("loaded", None)
        meta = dict(self.metadata)
        meta.pop("used_globals", None)
        state["metadata"] = meta
        return state

    def __setstate__(self, state):
        state["metadata"] = KernelMetadata(state["metadata"])
        self.__dict__.update(state)


def parse_target(target):
    """(backend name, parsed arch) of a target string "<backend>:<arch>"."""
    backend, arch = backends.for_target(target)
    return backend.name, arch


def _parse_sig_entry(name, spec):
    """'*fp32' / '*fp32:16' / '*fp32:16:range32' (a tensor of less than 2 GiB: the pointer-range
    specialization, AMD's buffer accesses) / 'i32' / 'i32:16' / 'i32:16:nonneg' (>= 0 at launch,
    as the launcher specializes) / a tl dtype -> (dtype, attrs); a tensor descriptor
    'tensordesc<fp16[64, 64]>' (or '…, nan>' for NaN padding, '…, tma>' with the TMA tensor map a
    launch on sm_90+ passes; sizes i32, strides i64) or a
    tl.tensor_descriptor_type -> (that type, attrs per leaf)."""
    attrs = {}
    if isinstance(spec, core.dtype):
        return spec, attrs
    if isinstance(spec, core.tensor_descriptor_type):
        return spec, ({},) * len(spec.leaf_types())
    if not isinstance(spec, str):
        raise TypeError(f"signature of '{name}' must be a type string like '*fp32' or 'i32', got {spec!r}")
    if spec.replace(" ", "").startswith("tensordesc<"):
        return _parse_descriptor_sig(name, spec)
    base, *facts = [p.strip() for p in spec.split(":")]
    ty = core.str_to_ty(base)
    for fact in facts:
        if fact == "nonneg":
            if not ty.is_int() or ty.is_bool():
                raise ValueError(f"signature of '{name}': 'nonneg' applies to integers, not {base!r}")
            attrs["tt.non_negative"] = "unit"
        elif fact == "range32":
            if not ty.is_ptr():
                raise ValueError(f"signature of '{name}': 'range32' applies to pointers, not {base!r}")
            attrs["tt.pointer_range"] = "32 : i32"
        elif not fact.isdigit() or int(fact) < 1 or int(fact) & (int(fact) - 1) or "tt.divisibility" in attrs:
            raise ValueError(f"signature of '{name}': expected a power-of-two divisibility, 'nonneg' or 'range32' after "
                             f"':', got {fact!r} in {spec!r}")
        else:
            attrs["tt.divisibility"] = f"{int(fact)} : i32"
    return ty, attrs


_TENSORDESC_SIG = re.compile(r"^\s*tensordesc<\s*(\w+)\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*(?:,\s*(zero|nan)\s*)?"
                             r"(?:,\s*(tma)\s*)?>\s*$")


def _parse_descriptor_sig(name, spec):
    m = _TENSORDESC_SIG.match(spec)
    if not m:
        raise ValueError(f"signature of '{name}': expected a descriptor like 'tensordesc<fp16[64, 64]>' or "
                         f"'tensordesc<fp32[128], nan>', got {spec!r}")
    elt = core.str_to_ty(m.group(1))
    block = [int(b) for b in m.group(2).split(",")]
    if not 1 <= len(block) <= 5:
        raise ValueError(f"signature of '{name}': a descriptor has 1 to 5 dimensions, got {spec!r}")
    for b in block:
        if b <= 0 or b & (b - 1):
            raise ValueError(f"signature of '{name}': block dimensions must be powers of 2, got {spec!r}")
    ty = core.tensor_descriptor_type(core.block_type(elt, block), [core.int32] * len(block),
                                     [core.int64] * (len(block) - 1) + [1], m.group(3) or "zero",
                                     tma=bool(m.group(4)))
    return ty, ({},) * len(ty.leaf_types())


def make_ttir(jit_fn, arg_types, constexprs, arg_attrs, name=None, extern_libs=None, device_tensor_maps=False):
    """Generate, verify and clean up the TTIR of a kernel; returns the module text. `extern_libs`:
    the extern_libs option ({library name: bitcode path}, or its (name, path) pairs) that
    tl.extern_elementwise calls resolve their library through; `device_tensor_maps`: the target
    backend's device_tensor_maps (tl.make_tensor_descriptor also makes a TMA tensor map)."""
    # The front end is imported when a kernel is first generated, not with the compiler: a
    # process whose kernels all come from the disk cache never needs it.
    from .code_generator import ModuleGenerator
    gen = ModuleGenerator()
    gen.builder.extern_libs = dict(extern_libs or ())
    gen.builder.device_tensor_maps = bool(device_tensor_maps)
    gen.builder.profile_scopes = backends.profiling_key()["scopes"]
    with core.use_builder(gen.builder):
        gen.gen_kernel(jit_fn, arg_types, constexprs, arg_attrs, name=name)
    text = gen.render()
    if gen.builder.has_profile_records:
        # Scopes started and not ended (tessera.profiler.language.enter_scope/exit_scope on some
        # paths only) are the user's error, at the line of the record.
        res = _core._native().run_passes(text, "builtin.module(prof-check-scopes)", f"{jit_fn.__name__}.ttir")
        if not res.ok:
            for d in res.diagnostics:
                if d.severity == "error" and d.file and d.file.endswith(".py") and d.line:
                    raise CompilationError(d.message, d.file, d.line, max(d.column - 1, 0),
                                           linecache.getline(d.file, d.line) or None)
            _front_end_bug(jit_fn, text, res)
    # One parse: run_passes verifies the module before the passes run.
    res = _core._native().run_passes(text, TTIR_PIPELINE, f"{jit_fn.__name__}.ttir")
    if not res.ok:
        _front_end_bug(jit_fn, text, res)
    return res.module, gen


def check_kernel(jit_fn, arg_types, constexprs):
    """Run the front end over a kernel for these argument types and drop what it generates: raises
    the CompilationError that compiling the kernel would raise (the interpreter's check that it
    runs only what the compiler accepts). Needs no native core."""
    from .code_generator import ModuleGenerator
    gen = ModuleGenerator()
    gen.builder.extern_libs = None  # the interpreter needs no library paths
    with core.use_builder(gen.builder):
        gen.gen_kernel(jit_fn, arg_types, constexprs, {})


def _front_end_bug(jit_fn, text, res):
    fd, path = tempfile.mkstemp(prefix=f"tessera_{jit_fn.__name__}_", suffix=".ttir")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    diags = "\n".join(str(d) for d in res.diagnostics)
    raise RuntimeError(f"internal error: the front end produced TTIR for '{jit_fn.__name__}' that does not "
                       f"verify (this is a Tessera bug; the text is in {path}):\n{diags}")


def compile(fn, signature=None, constexprs=None, target=None, num_warps=4, num_stages=3, stages="all",
            **options):
    """Compile `fn` (a @tessera.jit function) without launching it.

    signature: {param: type} for run-time parameters, types as strings ('*fp32', 'i32', '*fp16:16' for a
    pointer known divisible by 16) or tl dtypes; constexprs: {param: value} for tl.constexpr parameters
    (defaults apply). target: "<backend>:<arch>" (default: backends.default_target()); the other keyword
    arguments are the backend's Options. stages: "all", or "ttir" for TTIR only. Returns a CompiledKernel
    whose asm holds TTIR and the artifact of each backend stage.
    """
    if not isinstance(fn, JITFunction):
        raise TypeError(f"tessera.compile expects a @tessera.jit function, got {fn!r}")
    if target is None:
        target = backends.default_target()
    backend, arch = backends.for_target(target)
    opts = backend.parse_options({"num_warps": num_warps, "num_stages": num_stages, **options},
                                 "tessera.compile")
    if stages not in ("all", "ttir"):
        raise ValueError(f"tessera.compile: stages must be 'all' or 'ttir', got {stages!r}")
    signature = dict(signature or {})
    constexprs = dict(constexprs or {})
    for k in list(constexprs):
        if isinstance(k, int):
            constexprs[fn.arg_names[k]] = constexprs.pop(k)
    for k in list(signature):
        if isinstance(k, int):
            signature[fn.arg_names[k]] = signature.pop(k)
    unknown = [k for k in list(signature) + list(constexprs) if k not in fn.arg_names]
    if unknown:
        raise TypeError(f"{fn.__name__} has no parameter(s) {', '.join(map(repr, unknown))}")
    arg_types, arg_attrs, consts = {}, {}, {}
    for pname in fn.arg_names:
        p = fn.signature.parameters[pname]
        if pname in fn.constexpr_names:
            if pname in constexprs:
                consts[pname] = core._unwrap(constexprs[pname])
            elif p.default is not p.empty:
                consts[pname] = core._unwrap(p.default)
            else:
                raise TypeError(f"constexpr parameter '{pname}' of {fn.__name__} needs a value in constexprs")
            continue
        if pname in constexprs:
            consts[pname] = core._unwrap(constexprs[pname])
            continue
        if pname not in signature:
            raise TypeError(f"parameter '{pname}' of {fn.__name__} needs a type in signature")
        spec = signature[pname]
        if spec is None:
            arg_types[pname] = None
            continue
        arg_types[pname], arg_attrs[pname] = _parse_sig_entry(pname, spec)
    key = ("compile", target, backend, opts.key(), stages,
           tuple(sorted((k, repr(v)) for k, v in backend.compile_environment().items())),
           tuple(sorted(backends.profiling_key().items())),
           tuple(sorted((k, str(v)) for k, v in arg_types.items())),
           tuple(sorted((k, type(v).__name__, repr(v)) for k, v in consts.items())),
           tuple(sorted((k, repr(v)) for k, v in arg_attrs.items())))
    cached = fn.cache.get(key)
    if cached is not None and _extern_libraries_unchanged(cached.metadata.get("extern_libraries", [])):
        check_globals(fn, cached.metadata["used_globals"])
        return cached
    kernel = compile_cached(fn, arg_types, consts, arg_attrs, target, opts, backend_stages=stages == "all")
    # kernel[grid](*args) launches it through `fn` with the options it was compiled with.
    kernel.fn = fn
    defaults = type(opts)()
    kernel.launch_options = {k: v for k, v in opts.as_dict().items()
                             if k in backends.KEY_OPTIONS and v != getattr(defaults, k)}
    fn.cache[key] = kernel
    return kernel


def compile_ttir(ttir, name, target, options):
    """The target backend's stages after TTIR: (asm, metadata). `options` are the backend's
    Options (or a dict of them)."""
    backend, arch = backends.for_target(target)
    options = backend.parse_options(options)
    asm, meta = {}, {"name": name, "target": target, "arch": arch}
    src = ttir
    for stage, run in backend.stages(options).items():
        try:
            out = run(src, meta)
        except backends.StageError as e:
            user_libdevice = "libdevice" in options.extern_libs_dict()
            user_error = _kernel_error(e.diagnostics) or _extern_library_error(e, ttir, user_libdevice)
            if user_error is not None:
                raise user_error from None
            raise
        if out is None:  # the stage's tool is missing: no artifact, nothing after it
            break
        asm[stage] = src = out
    return asm, meta


_EXTERN_OP = re.compile(r'tt\.extern_elementwise[^\n]*libpath = "([^"]+)"[^\n]*symbol = "([^"]+)"[^\n]*loc\((#loc\d+)\)')


def _extern_library_error(error, ttir, user_libdevice=False):
    """A user bitcode library (tl.extern_elementwise, or a libdevice the extern_libs option
    replaced: `user_libdevice`) the backend could not use: a CompilationError naming the library,
    at the line of the call that uses it (or of the symbol's call)."""
    messages = [str(d.message) for d in error.diagnostics] or [str(error)]
    text = next((m for m in messages if "extern library" in m or (user_libdevice and "libdevice" in m)), None)
    if text is None:
        return None
    calls = _EXTERN_OP.findall(ttir)
    where = next((c for c in calls if c[0] in text or f" {c[1]}," in text), calls[0] if calls else None)
    file = line = col = None
    if where is not None:
        m = re.search(re.escape(where[2]) + r' = loc\("([^"]+)":(\d+):(\d+)\)', ttir)
        if m:
            file, line, col = m.group(1), int(m.group(2)), int(m.group(3))
    if file and file.endswith(".py"):
        return CompilationError(text, file, line, max(col - 1, 0), linecache.getline(file, line) or None)
    return CompilationError(text, file or "<kernel>", line or 0, 0, None)


# convert-tt-to-ttg's checks of a kernel's tensors (any op, arith.constant from tl.zeros included):
# limits the user's code hits, reported at the user's line.
_USER_LIMIT_PHRASES = (" per thread with ", " whose dimensions are not all static powers of two")


def _kernel_error(diagnostics):
    """A lowering pattern that rejects a `tt` op the kernel produced (fp8 on an old GPU, inline asm
    whose constraints do not fit, ...) explains why in an op error: that is the user's to fix, so
    it becomes a CompilationError at the kernel line (returned). Anything else stays an internal
    error (None)."""
    for d in diagnostics:
        user_op = d.message.startswith("'tt.") or (
            d.message.startswith("'") and any(p in d.message for p in _USER_LIMIT_PHRASES))
        if (d.severity == "error" and user_op and "failed to legalize" not in d.message
                and d.file and d.file.endswith(".py") and d.line):
            src = linecache.getline(d.file, d.line) or None
            return CompilationError(d.message, d.file, d.line, max(d.column - 1, 0), src)
    return None


# Kernels compiled elsewhere (tessera.compile, e.g. in a worker process) that launches in this
# process take instead of compiling: {kernel key: (asm, metadata)}.
_PRELOADED = {}
_PRELOADED_LOCK = threading.Lock()


def preload(kernel):
    """Make `kernel` (a CompiledKernel of tessera.compile, possibly unpickled from a worker
    process) the binary a launch of its JIT function uses when the launch's arguments and options
    specialize as the kernel was compiled (same types, alignments, constexprs, options, target):
    such a launch loads it instead of compiling. A launch that specializes differently compiles its
    own kernel, as always."""
    if not _has_binary(kernel):
        raise ValueError(f"{kernel.name}: only a kernel compiled through every stage (tessera.compile with "
                         f"stages='all') can be launched")
    meta = dict(kernel.metadata)
    meta.pop("used_globals", None)
    with _PRELOADED_LOCK:
        _PRELOADED[meta["kernel_key"]] = (dict(kernel.asm), meta)


def forget_preloaded(keys):
    """Drop the kernels given to `preload` under these kernel keys (launches that specialize as
    they were compiled compile again, or read the disk cache)."""
    with _PRELOADED_LOCK:
        for key in keys:
            _PRELOADED.pop(key, None)


# What compile_cached would compile, recorded instead of compiled while collecting (see
# collect_compilation): its arguments and the kernel key of the result.
class CompileRequest(collections.namedtuple("CompileRequest",
                                            "fn arg_types consts arg_attrs target options backend_stages key")):
    __slots__ = ()

    def compile(self):
        """compile_cached with these arguments, in this process (e.g. a worker's)."""
        return compile_cached(self.fn, self.arg_types, self.consts, self.arg_attrs, self.target, self.options,
                              self.backend_stages)


_collecting = threading.local()


class _CompileRequested(Exception):
    """Raised by compile_cached while collecting, where it would compile: carries the request.
    Private: collect_compilation catches it; nothing on the launch path keeps anything on it (the
    launcher and JITFunction.cache store a kernel only once compile_cached has returned one)."""

    def __init__(self, request):
        super().__init__(f"{request.fn.__name__}: compilation collected, not done")
        self.request = request


def collect_compilation(run):
    """Call `run()` (e.g. a warmup launch, `fn.run(*args, grid=grid, warmup=True, **meta)`) with
    compile_cached collecting in this thread: where it would compile (no preloaded kernel, no
    disk or shared cache entry) it raises instead, and this returns that compilation's
    CompileRequest, which another process can compile (`request.compile()`) and this one then
    `preload`. None when `run()` returned without needing a compilation (an in-memory, preloaded
    or cache hit); any other exception of `run()` propagates."""
    before = getattr(_collecting, "on", False)
    _collecting.on = True
    try:
        run()
    except _CompileRequested as e:
        return e.request
    finally:
        _collecting.on = before
    return None


def _has_binary(kernel):
    """Whether `kernel` holds what a launch loads: a kernel key and the artifact of its target
    backend's last stage, for a backend that launches kernels."""
    target = kernel.metadata.get("target")
    if "kernel_key" not in kernel.metadata or not target:
        return False
    backend, _ = backends.for_target(target)
    stages = list(backend.stages(backend.parse_options({})))
    return backend.can_launch() and bool(stages) and stages[-1] in kernel.asm


def compile_cached(fn, arg_types, consts, arg_attrs, target, options, backend_stages=True):
    """Compile through the disk cache (tessera.runtime.cache): a valid entry is loaded, otherwise
    the kernel is compiled and stored. `options` are the target backend's Options (or a dict of
    them). Returns a CompiledKernel; metadata["cache"] says "hit", "shared" (a hit in the shared
    cache of TESSERA_CACHE_REDIS), "miss", "off" or "preloaded" (a kernel given to `preload`)."""
    backend, arch = backends.for_target(target)
    options = backend.parse_options(options)
    disk = cache.default()
    key, scopes = cache.kernel_key(fn, arg_types, consts, arg_attrs, target, options, stages=backend_stages)
    for where in ("preloaded", "hit"):
        if where == "preloaded":
            hit = _PRELOADED.get(key)
        else:  # (asked only when nothing was preloaded: a lookup may go to the shared cache)
            hit = disk.get(key) if disk is not None else None
            if hit is not None and getattr(disk, "last_source", None) == "shared":
                where = "shared"  # from the shared cache (TESSERA_CACHE_REDIS), now on the disk too
        if hit is not None and not _extern_libraries_unchanged(hit[1].get("extern_libraries", [])):
            hit = None  # a user bitcode library changed since: compile again
        if hit is not None:
            asm, meta = dict(hit[0]), dict(hit[1])
            used = _resolve_used_globals(meta.pop("used_global_names", []), scopes)
            if used is not None:
                meta.update(used_globals=used, cache=where, constexprs=consts, kernel_key=key)
                meta.pop("device", None)
                return CompiledKernel(fn.__name__, asm, meta)
    if getattr(_collecting, "on", False):  # a true miss: collect_compilation records it
        raise _CompileRequested(CompileRequest(fn, dict(arg_types), dict(consts), dict(arg_attrs), target, options,
                                               backend_stages, key))
    ttir, gen = make_ttir(fn, arg_types, consts, arg_attrs, extern_libs=options.extern_libs,
                          device_tensor_maps=backend_stages and backend.device_tensor_maps(arch))
    asm = {"ttir": ttir}
    stage_meta = {}
    if backend_stages:
        more, stage_meta = compile_ttir(ttir, fn.__name__, target, options)
        asm.update(more)
    meta = {**stage_meta, "name": fn.__name__, "target": target, "backend": backend.name, "arch": arch,
            "num_warps": options.num_warps, "num_stages": options.num_stages,
            "signature": {k: str(v) for k, v in arg_types.items()}}
    # User bitcode libraries (tl.extern_elementwise): their contents validate a cached entry.
    libs = backends.base.extern_libraries(ttir) + \
        [p for n, p in options.extern_libs or () if n == "libdevice" and backend_stages]
    if libs:
        meta["extern_libraries"] = [[p, _file_digest(p)] for p in libs]
    # The effects analysis informs frameworks; a failure of it must not fail the compilation
    # (tessera.effects raises instead, with the reason).
    try:
        meta["effects"] = effects.analyze(ttir, fn, arg_types, consts)
    except Exception as e:  # noqa: BLE001
        meta["effects"], meta["effects_error"] = None, f"{type(e).__name__}: {e}"
    names = [[m, f, n, gdict is None] for (m, f, n), (_, gdict, _) in gen.used_globals.items()]
    if disk is not None:
        disk.put(key, asm, {**meta, "used_global_names": names})
    # kernel_key and used_global_names let another process take this kernel (preload).
    meta.update(used_globals=dict(gen.used_globals), constexprs=consts, kernel_key=key,
                used_global_names=names, cache="miss" if disk is not None else "off")
    return CompiledKernel(fn.__name__, asm, meta)


def _file_digest(path):
    import hashlib
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _extern_libraries_unchanged(recorded):
    return all(_file_digest(path) == digest for path, digest in recorded)


def _resolve_used_globals(names, scopes):
    """The used_globals of a kernel loaded from disk, read from the functions' scopes now (the
    cache key holds their values, so these are the values it was compiled with); None when a
    scope is gone."""
    used = {}
    for module, func, name, closure in names:
        if closure:
            used[(module, func, name)] = (None, None, name)
            continue
        gdict = scopes.get((module, func))
        if gdict is None or name not in gdict:
            return None
        used[(module, func, name)] = (gdict[name], gdict, name)
    return used


def check_globals(fn, used_globals):
    """A cached compilation is only valid while the globals it read still hold the same values."""
    for (module, func_name, name), (value, gdict, _) in used_globals.items():
        if gdict is None:
            continue
        current = gdict.get(name, _MISSING)
        same = current is value or (isinstance(current, core.constexpr) and isinstance(value, core.constexpr)
                                    and current.value == value.value)
        if not same:
            shown = current.value if isinstance(current, core.constexpr) else current
            old = value.value if isinstance(value, core.constexpr) else value
            raise RuntimeError(f"global variable '{name}' (used by {func_name} in {module}) changed from "
                               f"{old!r} to {shown!r} after {fn.__name__} was compiled; kernels see the values "
                               f"of globals at compile time, so recompile (e.g. a new @tessera.jit) to use the "
                               f"new value")


_MISSING = object()
