"""The AMD backend: TTIR -> TTGIR -> LLVM IR -> AMDGCN -> hsaco (a code object), compiled in
process ("hip:gfx942", "hip:gfx90a", "hip:gfx1100"). Kernels are not launched yet: no HIP
launcher is written (docs/backends.md)."""

import re

from .. import _core
from . import base
from .base import EPILOGUE_PASSES, MEMORY_LAYOUT_PASSES, coalesce_enabled, llvm_pipeline, vectorize_enabled
from .specialization import Divisibility, EqualsOne, NonNegative, PointerRange, Specialization

TARGET_PREFIX = "hip"


def wave_size(arch):
    """Threads per wavefront: 64 on CDNA and GCN (gfx9), 32 on RDNA (gfx10 and later)."""
    return 64 if arch.startswith("gfx9") else 32


def ttgir_pipeline(num_warps, arch, coalesce=True):
    """The TTIR -> TTGIR pipeline for `arch` (wavefronts of wave_size(arch) threads). No
    pipelining of loads yet (it needs asynchronous copies, which the AMD lowering lacks)."""
    return (f"builtin.module(convert-tt-to-ttg{{num-warps={num_warps} threads-per-warp={wave_size(arch)} "
            f"num-ctas=1 target={TARGET_PREFIX}:{arch}}}, {MEMORY_LAYOUT_PASSES if coalesce else ''}"
            f"ttg-accelerate-matmul, {EPILOGUE_PASSES if coalesce else ''}canonicalize, cse)")


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


def _native_compile(src, start, name, arch, options):
    """One tessera._C.compile from `src` (stage `start`: "ttir" or "ttgir") through the code
    object. Returns (asm, metadata)."""
    if start not in ("ttir", "ttgir"):
        raise RuntimeError(f"{name}: the hip backend makes AMDGCN from its LLVM dialect module, not from "
                           f"LLVM IR text (replace 'ttgir' instead)")
    stages, keep = [], ["llir", "amdgcn", "hsaco"]
    if start == "ttir":
        stages.append(("ttgir", ttgir_pipeline(options.num_warps, arch, coalesce_enabled())))
        keep.insert(0, "ttgir")
    stages.append(("llvm", llvm_pipeline(vectorize_enabled())))
    native_options = {"enable-fp-fusion": "1" if options.enable_fp_fusion else "0"}
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
    return asm, meta


class AmdBackend(base.Backend):
    """HIP targets ("hip:gfx942"): compiled in process to AMDGCN assembly and a code object
    (LLVM's AMDGPU target, the ROCm device libraries, ld.lld). Launching is not written yet."""

    name = TARGET_PREFIX
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


__all__ = ["AmdBackend", "kernel_resources", "wave_size"]
