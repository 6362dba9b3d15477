"""Ahead-of-time kernels with a C interface (tessera.aot).

    python -m tessera.aot kernels.py:add --signature "*fp32:16, *fp32:16, *fp32:16, i32:16" \\
        --signature "*fp32, *fp32, *fp32, i32" --constexpr BLOCK=1024 --target cuda:90 -o out/

compiles `add` once per --signature and writes out/add.h and out/add.c: the cubins embedded as
byte arrays and a C function

    CUresult add(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                 CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, int32_t n);

that picks the first specialization whose facts the arguments satisfy (pointers and integers
divisible by what ':16' promises, integers >= 0 for ':nonneg', in the order the signatures were
given: put the most specialized first), loads its module into the current CUDA context on first
use, and launches it on `stream`. It needs only the CUDA driver API (cuda.h, -lcuda). No
specialization matching is CUDA_ERROR_INVALID_VALUE; add_unload() unloads the modules (before
the context they were loaded into is destroyed).

For hip targets (--target hip:gfx942) the same with the code objects (hsaco) embedded and the
HIP module API: hipError_t add(hipStream_t stream, ..., hipDeviceptr_t x, ...), modules loaded
once per device, the arguments passed as one kernarg buffer (backends/amd_aot.py; untested on AMD
hardware).

`generate(...)` is the same from Python. Kernels that need global scratch memory or profiling
scopes are refused (their hidden arguments need the Tessera runtime), as are tensor-descriptor
parameters.
"""

import os
import re

from ..compiler.compiler import _parse_sig_entry
from ..runtime.jit import JITFunction

__all__ = ["generate", "Specialization", "AOTError"]


class AOTError(ValueError):
    """A kernel or signature tessera.aot cannot turn into C."""


_RESERVED = {"stream", "grid_x", "grid_y", "grid_z"}


class Specialization:
    """One compiled variant: its kernel, per-parameter (name, dtype, attrs, signature text) and its
    C condition."""

    def __init__(self, kernel, params):
        self.kernel = kernel
        self.params = params  # [(name, dtype, attrs, spec)]

    def condition(self, pointer="{}"):
        """The C condition; `pointer` formats a pointer parameter's name into an integer expression of
        its address (a backend whose pointers are not integers: "((uintptr_t){})")."""
        terms = []
        for name, ty, attrs, _ in self.params:
            div = attrs.get("tt.divisibility")
            if div is not None and ty.is_floating():
                raise AOTError(f"parameter '{name}': divisibility (':{div.split(':')[0].strip()}') applies to "
                               f"pointers and integers, not {ty}")
            if div is not None:
                d = int(div.split(":")[0])
                if ty.is_ptr():
                    terms.append(f"({pointer.format(name)} % {d}u) == 0")  # bytes: the pointer's alignment
                else:
                    terms.append(f"({name} % {d}) == 0")
            if "tt.non_negative" in attrs and ty.is_int_signed():
                terms.append(f"{name} >= 0")  # (unsigned values are, always)
        return " && ".join(terms) if terms else "1"


def _parse_signature(fn, text, constexprs):
    names = [n for n in fn.arg_names if n not in fn.constexpr_names and n not in constexprs]
    parts = [p.strip() for p in text.split(",")] if isinstance(text, str) else list(text)
    if len(parts) != len(names):
        raise AOTError(f"signature {text!r} has {len(parts)} types, but {fn.__name__} has {len(names)} run-time "
                       f"parameters ({', '.join(names)})")
    out = []
    clash = sorted(set(names) & _RESERVED)
    if clash:
        raise AOTError(f"{fn.__name__}: parameter name(s) {', '.join(clash)} clash with the C launcher's own "
                       f"({', '.join(sorted(_RESERVED))}); rename them")
    for name, spec in zip(names, parts):
        if isinstance(spec, str) and spec.replace(" ", "").startswith("tensordesc<"):
            raise AOTError(f"parameter '{name}': tensor descriptors are not supported by tessera.aot")
        try:
            ty, attrs = _parse_sig_entry(name, spec)
        except (TypeError, ValueError, KeyError) as e:
            raise AOTError(f"signature of '{name}': {e}") from None
        out.append((name, ty, attrs, spec if isinstance(spec, str) else str(spec)))
    return out


def _c_ident(name):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise AOTError(f"{name!r} is not a C identifier")
    return name


def generate(fn, signatures, constexprs=None, target=None, num_warps=4, num_stages=3, name=None,
             out_dir=None):
    """Compiles `fn` for each signature (a string of comma-separated types in parameter order, or
    a list of them) for `target` (default: the first backend's default target) and returns {"<name>.h": text, "<name>.c": text}; writes them to `out_dir`
    when given."""
    import tessera
    if not isinstance(fn, JITFunction):
        raise AOTError(f"tessera.aot compiles @tessera.jit functions, got {fn!r}")
    from .. import backends
    if target is None:
        target = backends.default_target()
    backend, _ = backends.for_target(target)
    writer = getattr(backend, "aot_sources", None)
    if writer is None:
        raise AOTError(f"the {backend.name} backend (target {target!r}) writes no ahead-of-time launchers")
    if isinstance(signatures, str):
        signatures = [signatures]
    if not signatures:
        raise AOTError("tessera.aot needs at least one signature")
    constexprs = dict(constexprs or {})
    cname = _c_ident(name or fn.__name__)
    specs = []
    for text in signatures:
        params = _parse_signature(fn, text, constexprs)
        kernel = tessera.compile(fn, signature={p[0]: p[3] for p in params},
                                 constexprs=constexprs, target=target, num_warps=num_warps, num_stages=num_stages)
        meta = kernel.metadata
        if meta.get("global_scratch_size", 0):
            raise AOTError(f"{fn.__name__} needs {meta['global_scratch_size']} bytes of global scratch memory per "
                           f"program: tessera.aot does not provide it (launch it through Tessera's runtime)")
        if meta.get("profile"):
            raise AOTError(f"{fn.__name__} was compiled with profiling scopes (a profiler session or "
                           f"TESSERA_PROFILE_SCOPES is on): its profile buffer needs the Tessera runtime")
        specs.append(Specialization(kernel, params))
    first = specs[0].params
    for s in specs[1:]:
        if [(p[0], str(p[1])) for p in s.params] != [(p[0], str(p[1])) for p in first]:
            raise AOTError("every signature must give the same types (only the facts after ':' may differ): "
                           f"{[str(p[1]) for p in first]} vs {[str(p[1]) for p in s.params]}")
    try:
        files = writer(cname, os.path.basename(fn.fn.__code__.co_filename), fn.__name__, first, specs, target)
    except ValueError as e:
        raise AOTError(str(e)) from None
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        for fname, text in files.items():
            with open(os.path.join(out_dir, fname), "w") as f:
                f.write(text)
    return files


