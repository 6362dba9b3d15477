"""Compilation driver: a @jit function + signature -> TTIR (later TTGIR, LLIR, PTX …)."""

import os
import tempfile

from .. import _core
from ..language import core
from .code_generator import ModuleGenerator

def _nvidia():
    from ..backends import nvidia
    return nvidia


# Backends that take a kernel past TTIR, by target prefix.
BACKENDS = {"cuda": _nvidia}


def gpu_backend_available(backend="cuda"):
    """True when kernels can be compiled for and launched on `backend` on this machine."""
    if backend not in BACKENDS:
        return False
    if backend == "cuda":
        ok, _ = _core._native().cuda.available()
        return ok and _core._native().cuda.device_count() > 0
    return False


TTIR_PIPELINE = "builtin.module(tt-rewrite-tensor-pointer, inline, canonicalize, cse, loop-invariant-code-motion, symbol-dce)"


class CompiledKernel:
    """The artifacts of one compilation: `asm[stage]` text and `metadata`."""

    def __init__(self, name, asm, metadata):
        self.name = name
        self.asm = asm
        self.metadata = metadata

    def __repr__(self):
        return f"CompiledKernel({self.name}, stages={list(self.asm)})"


def parse_target(target):
    if not isinstance(target, str) or ":" not in target:
        raise ValueError(f"target must look like 'cuda:90' or 'hip:gfx942', got {target!r}")
    backend, arch = target.split(":", 1)
    if backend == "cuda":
        if not arch.isdigit() or int(arch) < 70:
            raise ValueError(f"unsupported CUDA architecture {arch!r} (expected e.g. 80, 90)")
        return backend, int(arch)
    if backend == "hip":
        if not arch.startswith("gfx"):
            raise ValueError(f"unsupported AMD architecture {arch!r} (expected e.g. gfx942)")
        return backend, arch
    raise ValueError(f"unknown backend {backend!r} in target {target!r} (expected cuda or hip)")


def _parse_sig_entry(name, spec):
    """'*fp32' / '*fp32:16' / 'i32' / 'i32:16' / a tl dtype -> (dtype, attrs)."""
    attrs = {}
    if isinstance(spec, core.dtype):
        return spec, attrs
    if not isinstance(spec, str):
        raise TypeError(f"signature of '{name}' must be a type string like '*fp32' or 'i32', got {spec!r}")
    base, _, div = spec.partition(":")
    ty = core.str_to_ty(base)
    if div:
        if not div.isdigit() or int(div) & (int(div) - 1):
            raise ValueError(f"divisibility of '{name}' must be a power of two, got {div!r}")
        attrs["tt.divisibility"] = f"{int(div)} : i32"
    return ty, attrs


def make_ttir(jit_fn, arg_types, constexprs, arg_attrs, name=None):
    """Generate, verify and clean up the TTIR of a kernel; returns the module text."""
    gen = ModuleGenerator()
    with core.use_builder(gen.builder):
        gen.gen_kernel(jit_fn, arg_types, constexprs, arg_attrs, name=name)
    text = gen.render()
    res = _core.parse_mlir(text, f"{jit_fn.__name__}.ttir", print_module=False)
    if not res.ok:
        _front_end_bug(jit_fn, text, res)
    res = _core._native().run_passes(text, TTIR_PIPELINE, f"{jit_fn.__name__}.ttir")
    if not res.ok:
        _front_end_bug(jit_fn, text, res)
    return res.module, gen


def _front_end_bug(jit_fn, text, res):
    fd, path = tempfile.mkstemp(prefix=f"tessera_{jit_fn.__name__}_", suffix=".ttir")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    diags = "\n".join(str(d) for d in res.diagnostics)
    raise RuntimeError(f"internal error: the front end produced TTIR for '{jit_fn.__name__}' that does not "
                       f"verify (this is a Tessera bug; the text is in {path}):\n{diags}")


def compile(fn, signature=None, constexprs=None, target="cuda:90", num_warps=4, num_stages=3, **options):
    """Compile `fn` (a @tessera.jit function) without launching it.

    signature: {param: type} for run-time parameters, types as strings ('*fp32', 'i32', '*fp16:16' for a
    pointer known divisible by 16) or tl dtypes; constexprs: {param: value} for tl.constexpr parameters
    (defaults apply). Returns a CompiledKernel whose asm holds the stages built so far ('ttir').
    """
    from ..runtime.jit import JITFunction
    if not isinstance(fn, JITFunction):
        raise TypeError(f"tessera.compile expects a @tessera.jit function, got {fn!r}")
    backend, arch = parse_target(target)
    if not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1):
        raise ValueError(f"num_warps must be a power of two, got {num_warps!r}")
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
    key = ("compile", target, num_warps, num_stages, tuple(sorted((k, str(v)) for k, v in arg_types.items())),
           tuple(sorted((k, type(v).__name__, repr(v)) for k, v in consts.items())),
           tuple(sorted((k, repr(v)) for k, v in arg_attrs.items())),
           tuple(sorted((k, repr(v)) for k, v in options.items())))
    cached = fn.cache.get(key)
    if cached is not None:
        check_globals(fn, cached.metadata["used_globals"])
        return cached
    full = options.get("stages", "all") == "all" and backend in BACKENDS
    unknown_opts = set(options) - {"stages", "enable_fp_fusion", "maxnreg"}
    if unknown_opts:
        raise TypeError(f"tessera.compile: unknown option(s) {', '.join(sorted(unknown_opts))}")
    kernel = compile_cached(fn, arg_types, consts, arg_attrs, target,
                            {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": 1,
                             "maxnreg": options.get("maxnreg"),
                             "enable_fp_fusion": bool(options.get("enable_fp_fusion", True))},
                            backend_stages=full)
    fn.cache[key] = kernel
    return kernel


def compile_cached(fn, arg_types, consts, arg_attrs, target, options, backend_stages=True):
    """Compile through the disk cache (tessera.runtime.cache): a valid entry is loaded, otherwise
    the kernel is compiled and stored. Returns a CompiledKernel; metadata["cache"] says "hit",
    "miss" or "off"."""
    from ..runtime import cache
    backend, arch = parse_target(target)
    disk = cache.default()
    key = scopes = None
    if disk is not None:
        key, scopes = cache.kernel_key(fn, arg_types, consts, arg_attrs, target,
                                       {**options, "backend_stages": backend_stages})
        hit = disk.get(key)
        if hit is not None:
            asm, meta = hit
            used = _resolve_used_globals(meta.pop("used_global_names", []), scopes)
            if used is not None:
                meta.update(used_globals=used, cache="hit", constexprs=consts)
                return CompiledKernel(fn.__name__, asm, meta)
    ttir, gen = make_ttir(fn, arg_types, consts, arg_attrs)
    asm = {"ttir": ttir}
    stage_meta = {}
    if backend_stages:
        more, stage_meta = BACKENDS[backend]().compile_stages(ttir, fn.__name__, arch, options["num_warps"],
                                                              options["num_stages"],
                                                              num_ctas=options.get("num_ctas", 1),
                                                              maxnreg=options.get("maxnreg"),
                                                              enable_fp_fusion=options.get("enable_fp_fusion",
                                                                                           True))
        asm.update(more)
    meta = {**stage_meta, "name": fn.__name__, "target": target, "backend": backend, "arch": arch,
            "num_warps": options["num_warps"], "num_stages": options["num_stages"],
            "signature": {k: str(v) for k, v in arg_types.items()}}
    if disk is not None:
        names = [[m, f, n, gdict is None] for (m, f, n), (_, gdict, _) in gen.used_globals.items()]
        disk.put(key, asm, {**meta, "used_global_names": names})
    meta.update(used_globals=dict(gen.used_globals), constexprs=consts,
                cache="miss" if disk is not None else "off")
    return CompiledKernel(fn.__name__, asm, meta)


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


def _option(options, name, default, check):
    v = options.get(name, default)
    if v is None:
        return default
    if not check(v):
        raise ValueError(f"launch option {name}={v!r} is not valid")
    return v


def _pow2(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1 and not v & (v - 1)


def launch_miss(jit_fn, key, bound, options, device):
    """The slow path of kernel[grid](*args), run by the C++ launcher on a cache miss: decode the
    specialization key, compile (or take the compilation from the cache), load the binary on
    `device`, and return the tessera._C.LaunchEntry that the launcher keeps under `key`."""
    from ..backends import specialization
    from ..runtime import specialize
    if not gpu_backend_available("cuda"):
        ok, status = _core._native().cuda.available()
        why = status.message if not ok else "no CUDA device"
        raise RuntimeError(f"cannot launch {jit_fn.__name__} on a GPU ({why}); run it on CPU tensors with "
                           f"TESSERA_INTERPRET=1, or compile it with tessera.compile(...)")
    nvidia = _nvidia()
    num_warps = _option(options, "num_warps", 4, _pow2)
    num_stages = _option(options, "num_stages", 3, lambda v: isinstance(v, int) and v >= 1)
    num_ctas = _option(options, "num_ctas", 1, lambda v: v == 1)
    maxnreg = _option(options, "maxnreg", None, lambda v: isinstance(v, int) and 16 <= v <= 255)
    fp_fusion = _option(options, "enable_fp_fusion", True, lambda v: isinstance(v, bool))
    if options.get("launch_cooperative_grid"):
        raise ValueError(f"{jit_fn.__name__}: launch_cooperative_grid=True is not supported yet (Tessera has "
                         f"no grid-wide synchronization)")
    spec = specialize.decode(jit_fn, key, specialization.NVIDIA, bound)
    cc = nvidia.device_capability(device)
    kernel = compile_cached(jit_fn, spec.arg_types, spec.constexprs, spec.attrs, f"cuda:{cc}",
                            {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas,
                             "maxnreg": maxnreg, "enable_fp_fusion": fp_fusion})
    meta = kernel.metadata
    loaded = nvidia.LoadedKernel(kernel.asm, meta, device)
    meta.update(num_registers=loaded.info.num_registers, num_spills=loaded.info.num_spills, device=device)
    kernel.loaded = loaded
    jit_fn.cache[key] = kernel
    globals_ = [(gdict, name, value) for (_, _, name), (value, gdict, _) in meta["used_globals"].items()
                if gdict is not None]
    return _core._native().LaunchEntry(function=loaded.function, context=loaded.info.context,
                                       block=loaded.block, shared=meta["shared"], num_params=spec.num_params,
                                       kernel=kernel, globals=globals_,
                                       scratch_size=meta.get("global_scratch_size", 0),
                                       scratch_align=meta.get("global_scratch_align", 1))
