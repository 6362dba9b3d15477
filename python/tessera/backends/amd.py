"""The AMD backend: TTIR -> TTGIR -> LLVM IR -> AMDGCN -> hsaco (a code object), compiled in
process ("hip:gfx942", "hip:gfx90a", "hip:gfx1100"), loaded and launched through the HIP runtime
(tessera._C.hip, libamdhip64 opened with dlopen). The launch path is untested on hardware: no AMD
GPU is reachable where Tessera is developed."""

import dataclasses
import re
import struct

from .. import _core
from . import base
from .base import coalesce_enabled, vectorize_enabled
from .specialization import Divisibility, EqualsOne, NonNegative, PointerRange, Specialization

TARGET_PREFIX = "hip"


class HipError(base.DeviceError):
    """A HIP runtime failure; `name` is HIP's error name (e.g. hipErrorInvalidDevice), or
    HIP_RUNTIME_NOT_FOUND where no ROCm runtime is installed."""

    def __init__(self, status, what=""):
        self.name = status.name
        self.code = status.code
        super().__init__(f"{what + ': ' if what else ''}{status.name}: {status.message}")


# LLVM IR parameter types -> (bytes, alignment, struct format or None for a pointer).
_KERNARG = {"ptr": (8, 8, None), "i64": (8, 8, "<q"), "double": (8, 8, "<d"), "i32": (4, 4, "<i"),
            "float": (4, 4, "<f"), "i16": (2, 2, "<h"), "half": (2, 2, "<e"), "bfloat": (2, 2, "bf16"),
            "i8": (1, 1, "<b"), "i1": (1, 1, "<?")}
_INT_BITS = {"i64": 64, "i32": 32, "i16": 16, "i8": 8}


def kernarg_types(llir, name):
    """The LLVM IR types of the kernel's parameters, in order (its explicit kernel arguments)."""
    m = re.search(rf"define\s[^@]*amdgpu_kernel\s[^@]*@{re.escape(name)}\(", llir)
    if not m:
        raise RuntimeError(f"{name}: no amdgpu_kernel definition in the LLVM IR")
    # The parameter list up to its closing parenthesis (types hold their own: addrspace(1)).
    depth, params, cur = 1, [], ""
    for ch in llir[m.end():]:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        if ch == "," and depth == 1:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    return [p.split()[0] for p in params if p.strip()]


def pack_kernargs(types, values):
    """The explicit kernarg bytes of `values` (ints, floats, bools, device pointers as ints) for
    parameters of LLVM IR `types`, laid out as the AMDGPU ABI does (tessera._C.hip.pack_arguments:
    each at its natural alignment). Returns (bytes, offsets)."""
    if len(types) != len(values):
        raise TypeError(f"the kernel takes {len(types)} arguments, got {len(values)}")
    args = []
    for i, (t, v) in enumerate(zip(types, values)):
        if t not in _KERNARG:
            raise TypeError(f"kernel argument {i} of LLVM type {t} is not supported by the hip launcher")
        size, align, fmt = _KERNARG[t]
        try:
            if fmt is None or t in _INT_BITS:
                # Integers of either signedness: a value fits when it is in the signed or the
                # unsigned range of the width, and is stored in two's complement.
                bits = 64 if fmt is None else _INT_BITS[t]
                x = int(v)
                if not -(1 << (bits - 1)) <= x < (1 << bits):
                    raise ValueError(f"{x} does not fit in {bits} bits")
                data = (x & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
            elif fmt == "bf16":
                data = struct.pack("<f", float(v))[2:]
            else:
                data = struct.pack(fmt, v)
        except (TypeError, ValueError, OverflowError, struct.error) as e:
            raise TypeError(f"kernel argument {i} ({t}): cannot pass {v!r}: {e}") from None
        args.append((data, align))
    return _core._native().hip.pack_arguments(args)


def wave_size(arch):
    """Threads per wavefront: 64 on CDNA and GCN (gfx9), 32 on RDNA (gfx10 and later)."""
    return 64 if arch.startswith("gfx9") else 32


_PREVIOUS = {"ttgir": "ttir", "llir": "ttgir", "amdgcn": "llir", "hsaco": "llir"}
_FAILED = {"parse": "reading the input of", "ttgir": "lowering to TTGIR", "llvm": "lowering to LLVM",
           "llir": "translating to LLVM IR", "backend": "generating AMDGCN for"}

# What the code object's assembler directives say of each kernel.
_DIRECTIVES = {"kernarg_size": r"\.amdhsa_kernarg_size\s+(\d+)",
               "lds": r"\.amdhsa_group_segment_fixed_size\s+(\d+)",
               "scratch": r"\.amdhsa_private_segment_fixed_size\s+(\d+)",
               "vgprs": r"\.amdhsa_next_free_vgpr\s+(\d+)",
               "sgprs": r"\.amdhsa_next_free_sgpr\s+(\d+)"}


def kernel_resources(amdgcn):
    """The resources the assembly declares for its kernel: kernarg_size, lds (bytes), scratch
    (bytes per lane), vgprs, sgprs; and instructions (lines that are instructions in the text
    section)."""
    out = {}
    for key, pattern in _DIRECTIVES.items():
        m = re.search(pattern, amdgcn)
        if m:
            out[key] = int(m.group(1))
    count = 0
    for line in amdgcn.splitlines():
        t = line.strip()
        if t and not t.startswith((".", ";", "//")) and not t.endswith(":"):
            count += 1
    out["instructions"] = count
    return out


def _native_compile(src, start, name, arch, options, waves_per_eu=None, fast_version_only=False):
    """One tessera._C.compile from `src` (stage `start`: "ttir" or "ttgir") through the code
    object. Returns (asm, metadata). `waves_per_eu` overrides the option's; `fast_version_only`
    (from "ttgir") compiles only the then branches of ttg-version-nonnegative's ifs (not the
    kernel's meaning for every input: _version_waves' measurement)."""
    if start not in ("ttir", "ttgir"):
        raise RuntimeError(f"{name}: the hip backend makes AMDGCN from its LLVM dialect module, not from "
                           f"LLVM IR text (replace 'ttgir' instead)")
    # tessera::api::kernelStages' pipelines: no load pipelining yet (no asynchronous copies in the
    # AMD lowering), 64 KiB of LDS per workgroup, wavefronts of wave_size(arch) threads
    keep = ["ttgir", "llir", "amdgcn", "hsaco"] if start == "ttir" else ["llir", "amdgcn", "hsaco"]
    stages = base.kernel_stages(f"{TARGET_PREFIX}:{arch}", options, start)
    if fast_version_only:
        stages = base.fast_version_stages(stages)
    native_options = {"enable-fp-fusion": "1" if options.enable_fp_fusion else "0"}
    waves = getattr(options, "waves_per_eu", 0) if waves_per_eu is None else waves_per_eu
    if waves:
        native_options["waves-per-eu"] = str(waves)
    libs = base.extern_libraries(src)
    if libs:
        native_options["extern-libs"] = "\n".join(libs)
    res = _core._native().compile(src, f"{TARGET_PREFIX}:{arch}", stages, keep, native_options, f"{name}.{start}")
    if not res.ok:
        diags = "\n".join(str(d) for d in res.diagnostics)
        what = _FAILED.get(res.failed_stage, f"running stage {res.failed_stage!r} of")
        raise base.StageError(f"internal error while {what} '{name}' (a Tessera bug):\n{diags}", res.diagnostics)
    md = res.metadata
    asm = dict(res.artifacts)
    meta = {"shared": md.get("ttg.shared", 0),
            "global_scratch_size": md.get("ttg.global_scratch_memory_size", 0),
            "global_scratch_align": md.get("ttg.global_scratch_memory_alignment", 1),
            "threads_per_warp": wave_size(arch)}
    meta.update({f"amdgpu_{k}": v for k, v in kernel_resources(asm.get("amdgcn", "")).items()})
    meta["kernarg_types"] = kernarg_types(asm.get("llir", ""), name)
    profile = base.profile_metadata(md, res.text_metadata)
    if profile:
        meta["profile"] = profile
    return asm, meta


def waves_per_simd(arch, vgprs):
    """How many wavefronts one SIMD of a CDNA GPU (gfx90a, gfx94x, gfx950: 512 VGPRs per lane,
    allocated 8 at a time, at most 8 waves) holds at `vgprs` registers; None elsewhere."""
    if not re.fullmatch(r"gfx(90a|94[0-9a-f]|950)", arch) or not vgprs:
        return None
    return min(8, 512 // (-(-vgprs // 8) * 8))


def _version_waves(ttgir, name, arch, options, full_vgprs):
    """For a kernel ttg-version-nonnegative split in two (the NVIDIA backend's register bound,
    for CDNA): the waves per SIMD the fast version alone holds, where the whole kernel holds
    fewer and fewer than 4 (below that a SIMD hides little latency); else None. The kernel is
    then compiled again with amdgpu-waves-per-eu at that value, and the other version (for
    bases below zero) spills instead."""
    if "tt.nonnegative_version" not in ttgir or getattr(options, "waves_per_eu", 0):
        return None
    full = waves_per_simd(arch, full_vgprs)
    if full is None or full >= 4:
        return None
    try:
        _, meta = _native_compile(ttgir, "ttgir", name, arch, options, fast_version_only=True)
    except base.StageError:
        return None
    fast = waves_per_simd(arch, meta.get("amdgpu_vgprs"))
    return fast if fast and fast > full else None


class LoadedKernel:
    """A code object loaded on one device; called as (grid, stream, args) by the launcher's Python
    path: the arguments are packed into the kernarg segment and launched with
    hipModuleLaunchKernel."""

    def __init__(self, kernel, device):
        native = _core._native().hip
        meta = kernel.metadata
        ok, status = native.available()
        if not ok:
            raise HipError(status, f"loading {meta['name']}")
        if meta.get("global_scratch_size", 0) or meta.get("profile"):
            raise NotImplementedError(f"{meta['name']}: kernels with global scratch or profiling scopes are not "
                                      f"launched on the hip backend yet")
        status, info = native.load_kernel(kernel.asm["hsaco"], meta["name"], device)
        if not status:
            raise HipError(status, f"loading {meta['name']}")
        self.info, self.device, self.meta = info, device, meta
        self.types = meta["kernarg_types"]
        self.block = meta["num_warps"] * meta["threads_per_warp"]

    def __call__(self, grid, stream, args):
        values = [a.data_ptr() if hasattr(a, "data_ptr") else a for a in args]
        kernargs, _ = pack_kernargs(self.types, values)
        status = _core._native().hip.launch(self.info.function, self.device, *grid, self.block, 0,
                                            int(stream or 0), kernargs)
        if not status:
            raise HipError(status, f"launching {self.meta['name']}")


@dataclasses.dataclass(frozen=True)
class AmdOptions(base.Options):
    """The hip backend's options: the base ones, and `waves_per_eu` (0: the compiler's choice; N:
    ask LLVM for at least N wavefronts per execution unit, trading registers for occupancy --
    the kernel attribute amdgpu-waves-per-eu, as Triton's option of the same name)."""

    waves_per_eu: int = 0

    def validate(self):
        super().validate()
        self.check("waves_per_eu", lambda v: isinstance(v, int) and not isinstance(v, bool), "an int")
        self.check("waves_per_eu", lambda v: 0 <= v <= 10, "in 0..10", ValueError)


class AmdBackend(base.Backend):
    """HIP targets ("hip:gfx942"): compiled in process to AMDGCN assembly and a code object
    (LLVM's AMDGPU target, the ROCm device libraries, ld.lld). Launching is not written yet."""

    name = TARGET_PREFIX
    Options = AmdOptions
    specialization = Specialization("hip", [Divisibility((16,)), EqualsOne(), PointerRange(32), NonNegative()])

    def parse_arch(self, arch):
        if not re.fullmatch(r"gfx(9|10|11|12)[0-9a-f]{2}", arch):
            raise ValueError(f"unsupported AMD architecture {arch!r} (expected e.g. gfx942, gfx90a, gfx1100)")
        return arch

    def stages(self, options):
        """ttgir, llir, amdgcn and hsaco come from one native compilation, run by the first of
        them; the later ones return its artifacts (or compile again from a replaced ttgir)."""
        done = {}

        def native(stage):
            start = _PREVIOUS[stage] if stage in ("ttgir", "llir") else "ttgir"

            def run(src, metadata):
                asm = done.get("asm")
                if stage in ("amdgcn", "hsaco"):
                    if asm is None:
                        raise RuntimeError(f"{metadata['name']}: the hip backend makes {stage} only after its ttgir "
                                           f"and llir stages")
                    return asm[stage]
                if asm is None or asm.get(start) is not src:
                    asm, meta = _native_compile(src, start, metadata["name"], metadata["arch"], options)
                    ttgir = asm.get("ttgir", src)  # from "ttir", the stage made; else `src`
                    waves = _version_waves(ttgir, metadata["name"], metadata["arch"], options,
                                           meta.get("amdgpu_vgprs"))
                    if waves:
                        again, meta = _native_compile(ttgir, "ttgir", metadata["name"], metadata["arch"],
                                                      options, waves_per_eu=waves)
                        asm.update(again)
                        meta["version_waves_per_eu"] = waves
                    asm[start] = src
                    done["asm"] = asm
                    metadata.update(meta)
                return asm[stage]
            run.__name__ = f"make_{stage}"
            run.__qualname__ = f"AmdBackend.stages.<locals>.make_{stage}"
            return run
        return {"ttgir": native("ttgir"), "llir": native("llir"), "amdgcn": native("amdgcn"),
                "hsaco": native("hsaco")}

    def compile_environment(self):
        return {"vectorize": vectorize_enabled(), "coalesce": coalesce_enabled()}

    # --------------------------------------------------------- launching (untested on hardware)
    exports = {"HipError": HipError}

    def is_available(self):
        if _core._C is None:
            return False
        ok, _ = _core._C.hip.available()
        return ok and _core._C.hip.device_count() > 0

    def unavailable_reason(self):
        if _core._C is None:
            return "the native core is not built"
        ok, status = _core._C.hip.available()
        return f"{status.name}: {status.message}" if not ok else "no AMD GPU"

    def load(self, kernel, device):
        return LoadedKernel(kernel, device)

    def launch_error(self, code, name, message, kernel_name):
        raise HipError(type("S", (), {"code": code, "name": name, "message": message})(),
                       f"launching {kernel_name}")

    def aot_sources(self, cname, source_file, kernel_name, params, specs, target):
        """tessera.aot's C: the code objects embedded and a launcher on the HIP module API."""
        from .amd_aot import aot_sources
        return aot_sources(cname, source_file, kernel_name, params, specs, target)


__all__ = ["AmdBackend", "AmdOptions", "HipError", "kernarg_types", "kernel_resources", "pack_kernargs", "wave_size"]
