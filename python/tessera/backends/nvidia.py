"""The NVIDIA backend: TTIR -> TTGIR -> LLVM -> PTX -> cubin, and launching through the CUDA driver."""

import os
import re
import shutil
import subprocess
import tempfile

from .. import _core
from ..language import core

TARGET_PREFIX = "cuda"


class OutOfResources(RuntimeError):
    """A kernel needs more of a per-block resource than the GPU has (shared memory, registers).
    The autotuner skips configurations that raise it."""


class CudaError(RuntimeError):
    """A CUDA driver failure; `name` is the CUDA error name (e.g. CUDA_ERROR_ILLEGAL_ADDRESS)."""

    def __init__(self, status, what=""):
        self.name = status.name
        self.code = status.code
        super().__init__(f"{what + ': ' if what else ''}{status.name}: {status.message}")

    @classmethod
    def from_fields(cls, code, name, message, what=""):
        class _S:
            pass
        s = _S()
        s.code, s.name, s.message = code, name, message
        return cls(s, what)


# ------------------------------------------------------------------ tools

def find_ptxas():
    """Path of ptxas: $TESSERA_PTXAS, $CUDA_HOME/bin, PATH, /usr/local/cuda/bin; None if absent."""
    cands = [os.environ.get("TESSERA_PTXAS")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            cands.append(os.path.join(os.environ[var], "bin", "ptxas"))
    cands.append(shutil.which("ptxas"))
    cands.append("/usr/local/cuda/bin/ptxas")
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def ptxas_version(path):
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else "unknown"


def assemble(ptx, cc, name="kernel", maxnreg=None):
    """cubin bytes from PTX with ptxas, or None when ptxas is not installed (the driver JITs the PTX).
    `maxnreg` caps the registers per thread."""
    ptxas = find_ptxas()
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory(prefix="tessera_ptxas_") as d:
        src = os.path.join(d, f"{name}.ptx")
        dst = os.path.join(d, f"{name}.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        arch = f"sm_{cc}"
        cmd = [ptxas, f"-arch={arch}", "-O3", src, "-o", dst]
        if maxnreg is not None:
            cmd.insert(1, f"--maxrregcount={int(maxnreg)}")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            if "too much shared data" in r.stderr or "too many resources" in r.stderr:
                raise OutOfResources(f"ptxas: {name} ({arch}) does not fit: {r.stderr.strip()}")
            raise RuntimeError(f"ptxas failed for {name} ({arch}):\n{r.stderr}")
        with open(dst, "rb") as f:
            return f.read()


# ------------------------------------------------------------------ stages

def ttgir_pipeline(num_warps, threads_per_warp, num_ctas, cc):
    return (f"builtin.module(convert-tt-to-ttg{{num-warps={num_warps} threads-per-warp={threads_per_warp} "
            f"num-ctas={num_ctas} target=cuda:{cc}}}, ttg-accelerate-matmul, canonicalize, cse)")


LLVM_PIPELINE = ("builtin.module(ttg-allocate-shared-memory, ttg-membar, ttg-allocate-global-scratch, "
                 "convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)")


def _raise_kernel_error(diagnostics):
    """A lowering pattern that rejects a `tt` op the kernel produced (fp8 on an old GPU, inline asm
    whose constraints do not fit, ...) explains why in an op error: that is the user's to fix, so
    it becomes a CompilationError at the kernel line. Anything else stays an internal error."""
    import linecache
    from ..compiler.errors import CompilationError
    for d in diagnostics:
        if (d.severity == "error" and d.message.startswith("'tt.") and "failed to legalize" not in d.message
                and d.file and d.file.endswith(".py") and d.line):
            src = linecache.getline(d.file, d.line) or None
            raise CompilationError(d.message, d.file, d.line, max(d.column - 1, 0), src)


def _stage(res, what, name):
    if not res.ok:
        _raise_kernel_error(res.diagnostics)
        diags = "\n".join(str(d) for d in res.diagnostics)
        raise RuntimeError(f"internal error while {what} '{name}' (a Tessera bug):\n{diags}")
    return res


def compile_stages(ttir, name, cc, num_warps, num_stages, threads_per_warp=32, num_ctas=1, maxnreg=None,
                   enable_fp_fusion=True):
    """All stages after TTIR: returns (asm dict, metadata dict)."""
    native = _core._native()
    asm = {}
    res = _stage(native.run_passes(ttir, ttgir_pipeline(num_warps, threads_per_warp, num_ctas, cc),
                                   f"{name}.ttir"), "lowering to TTGIR", name)
    asm["ttgir"] = res.module
    res = _stage(native.run_passes(asm["ttgir"], LLVM_PIPELINE, f"{name}.ttgir"), "lowering to LLVM", name)
    llvm_mlir = res.module
    m = re.search(r"ttg\.shared = (\d+) : i32", llvm_mlir)
    shared = int(m.group(1)) if m else 0
    m = re.search(r"ttg\.global_scratch_memory_size = (\d+) : i32", llvm_mlir)
    scratch = int(m.group(1)) if m else 0
    m = re.search(r"ttg\.global_scratch_memory_alignment = (\d+) : i32", llvm_mlir)
    scratch_align = int(m.group(1)) if m else 1
    res = _stage(native.translate_to_llvmir(llvm_mlir, f"{name}.llvm.mlir"), "translating to LLVM IR", name)
    asm["llir"] = res.output
    res = _stage(native.compile_ptx(asm["llir"], cc, enable_fp_fusion=bool(enable_fp_fusion)),
                 "generating PTX for", name)
    asm["ptx"] = res.output
    cubin = assemble(asm["ptx"], cc, name, maxnreg=maxnreg)
    if cubin is not None:
        asm["cubin"] = cubin
    meta = {"name": name, "shared": shared, "global_scratch_size": scratch,
            "global_scratch_align": scratch_align, "num_warps": num_warps, "num_stages": num_stages,
            "threads_per_warp": threads_per_warp, "cc": cc}
    return asm, meta


# ------------------------------------------------------------------ launching

_ATTR_MAX_SHARED_OPTIN = 97  # CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN


class LoadedKernel:
    """A compiled kernel loaded on one device."""

    def __init__(self, asm, meta, device):
        native = _core._native()
        status, limit = native.cuda.device_attribute(device, _ATTR_MAX_SHARED_OPTIN)
        if status and meta["shared"] > limit:
            raise OutOfResources(f"{meta['name']} needs {meta['shared']} bytes of shared memory; the device "
                                 f"allows {limit} per block")
        image = asm.get("cubin") or asm["ptx"].encode()
        status, info = native.cuda.load_kernel(image, meta["name"], device, meta["shared"])
        if not status:
            if status.name == "CUDA_ERROR_OUT_OF_RESOURCES":
                raise OutOfResources(f"{meta['name']}: {status.message}")
            raise CudaError(status, f"loading {meta['name']}")
        self.info = info
        self.meta = meta
        self.function = info.function
        self.block = meta["num_warps"] * meta["threads_per_warp"]
        if info.max_threads_per_block and self.block > info.max_threads_per_block:
            native.cuda.unload_module(info.module)
            raise OutOfResources(f"{meta['name']} uses {info.num_registers} registers per thread, so a block "
                                 f"can have at most {info.max_threads_per_block} threads, not {self.block} "
                                 f"({meta['num_warps']} warps); use fewer warps or maxnreg=")


def device_capability(device):
    native = _core._native()
    status, cc = native.cuda.compute_capability(device)
    if not status:
        raise CudaError(status, "querying the device")
    return cc


__all__ = ["CudaError", "OutOfResources", "find_ptxas", "assemble", "compile_stages", "LoadedKernel",
           "device_capability", "core"]
