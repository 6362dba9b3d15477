"""The NVIDIA backend: TTIR -> TTGIR -> LLVM IR -> PTX -> cubin, loaded and launched through the CUDA driver."""

import contextlib
import functools
import os
import re
import shutil
import subprocess
import tempfile

from .. import _core
from . import base
from .base import OutOfResources  # noqa: F401  (re-exported: tessera.backends.nvidia.OutOfResources)
from .base import _env_flag_off, coalesce_enabled, pipeline_enabled, vectorize_enabled
from .specialization import Divisibility, EqualsOne, NonNegative, Specialization

TARGET_PREFIX = "cuda"
WARP_SIZE = 32


class CudaError(base.DeviceError):
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


@functools.lru_cache(maxsize=None)
def _ptxas_key(path):
    return "none" if path is None else f"{ptxas_version(path)}@{path}"


def ptxas_arch(cc):
    """ptxas's -arch for compute capability `cc`: the PTX of a cc 9.0 kernel targets sm_90a
    (wgmma), as libtessera's ptxProcessor says; others plain sm_XY."""
    return "sm_90a" if int(cc) == 90 else f"sm_{cc}"


def ptxas_registers(ptx, cc, name="kernel"):
    """The registers per thread ptxas gives the kernel in `ptx` (its -v report), or None without
    ptxas."""
    return _ptxas(ptx, cc, name)[1]


# Per-SM limits by compute capability: (shared bytes, threads, blocks); registers are 64K per SM
# everywhere from sm_70, allocated per warp in units of 256 (8 per thread), and a block reserves
# 1 KiB of shared memory.
_SM_LIMITS = {70: (96 << 10, 2048, 32), 72: (96 << 10, 2048, 32), 75: (64 << 10, 1024, 16),
              80: (164 << 10, 2048, 32), 86: (100 << 10, 1536, 16), 87: (164 << 10, 2048, 32),
              89: (100 << 10, 1536, 24), 90: (228 << 10, 2048, 32)}


def blocks_per_sm(cc, threads, shared, registers):
    """How many blocks of `threads` threads, `shared` bytes and `registers` per thread an SM holds."""
    smem, max_threads, max_blocks = _SM_LIMITS.get(int(cc), _SM_LIMITS[90])
    regs = -(-registers // 8) * 8
    by_regs = 65536 // (regs * threads) if regs else max_blocks
    by_smem = smem // (shared + 1024)
    return max(0, min(by_regs, by_smem, max_threads // threads, max_blocks))


def occupancy_register_bound(cc, threads, shared, registers):
    """The most registers per thread that keep as many blocks per SM as `registers` do."""
    target = blocks_per_sm(cc, threads, shared, registers)
    if target <= 0:
        return registers
    return max(registers, min(255, 65536 // (target * threads) // 8 * 8))


def _version_register_cap(ttgir, name, arch, options, shared):
    """For a kernel ttg-version-nonnegative split in two, a register bound or None. The other
    version (for bases below zero: loads neither vectorized nor pipelined) may need many more
    registers than the one that runs in practice, and ptxas gives the kernel what its hungriest
    path needs: the bound is the most registers that keep the blocks per SM the fast version alone
    has (its ptxas count, the kernel compiled with only the then branches), so the slow version
    spills rather than lowering the occupancy of every launch. make_cubin applies it only where
    the whole kernel would hold fewer blocks and fewer than 16 warps per SM."""
    try:
        asm, _ = _native_compile(ttgir, "ttgir", name, arch, options, fast_version_only=True)
        fast = ptxas_registers(asm["ptx"], arch, name)
    except (base.StageError, RuntimeError):
        return None
    if fast is None:
        return None
    threads = options.num_warps * WARP_SIZE
    return occupancy_register_bound(arch, threads, shared, fast)


_ENTRY_HEAD = re.compile(r"(\.entry\s+[\w$]+\s*\([^)]*\)\s*\n(?:[ \t]*\.(?:reqntid|maxntid|minnctapersm|maxnreg)[^\n]*\n)*)")


def _with_entry_directive(ptx, directive, value):
    """`ptx` with `.<directive> value` on every kernel entry (replacing one it has)."""
    ptx = re.sub(rf"^[ \t]*\.{directive}\b[^\n]*\n", "", ptx, flags=re.M)
    return _ENTRY_HEAD.sub(lambda m: m.group(1) + f".{directive} {int(value)}\n", ptx)


def with_maxnreg(ptx, maxnreg):
    """`ptx` with a `.maxnreg` directive on every kernel entry (replacing one it has). ptxas's
    --maxrregcount does not bound kernels whose PTX gives `.reqntid` (ours all do): the
    directive does."""
    return _with_entry_directive(ptx, "maxnreg", maxnreg)


def with_min_blocks(ptx, blocks):
    """`ptx` with `.minnctapersm blocks` on every kernel entry: ptxas may then use every register
    that still lets `blocks` blocks share an SM."""
    return _with_entry_directive(ptx, "minnctapersm", blocks)


def register_budget_enabled():
    """False when TESSERA_DISABLE_REGISTER_BUDGET is set (to anything but "" or "0"): ptxas
    assembles every kernel once, with its own register target (see make_cubin). Part of the
    cache key."""
    return _env_flag_off("TESSERA_DISABLE_REGISTER_BUDGET")


# A tensor-core instruction in PTX: such kernels keep ptxas's own register target.
_MMA_PTX = re.compile(r"^\s*(?:@%p\d+\s+)?(?:wgmma|mma)\.", re.M)


def _ptxas(ptx, cc, name="kernel", maxnreg=None):
    """(cubin bytes, registers per thread from ptxas -v) for `ptx`, or (None, None) when ptxas is
    not installed; `maxnreg` bounds the registers (a .maxnreg directive)."""
    ptxas = find_ptxas()
    if ptxas is None:
        return None, None
    if maxnreg is not None:
        ptx = with_maxnreg(ptx, maxnreg)
    with tempfile.TemporaryDirectory(prefix="tessera_ptxas_") as d:
        src = os.path.join(d, f"{name}.ptx")
        dst = os.path.join(d, f"{name}.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        arch = ptxas_arch(cc)
        r = subprocess.run([ptxas, "-v", f"-arch={arch}", "-O3", src, "-o", dst], capture_output=True, text=True)
        if r.returncode != 0:
            if "too much shared data" in r.stderr or "too many resources" in r.stderr:
                raise OutOfResources(f"ptxas: {name} ({arch}) does not fit: {r.stderr.strip()}")
            raise RuntimeError(f"ptxas failed for {name} ({arch}):\n{r.stderr}")
        m = re.search(r"Used (\d+) registers", r.stderr)
        with open(dst, "rb") as f:
            return f.read(), int(m.group(1)) if m else None


def assemble(ptx, cc, name="kernel", maxnreg=None):
    """cubin bytes from PTX with ptxas, or None when ptxas is not installed (the driver JITs the PTX).
    `maxnreg` caps the registers per thread."""
    return _ptxas(ptx, cc, name, maxnreg)[0]


# ------------------------------------------------------------------ the native stages

def tma_all_copies():
    """True when TESSERA_TMA_ALL_COPIES is set (to anything but "" or "0"): every descriptor copy
    TMA may do takes TMA (ttng-tma-lowering's all-copies), not only those feeding or written by
    tensor cores; for tests of the TMA path and measurements. Part of the cache key."""
    return not _env_flag_off("TESSERA_TMA_ALL_COPIES")


# The stage each native stage starts from.
_PREVIOUS = {"ttgir": "ttir", "llir": "ttgir", "ptx": "llir"}

# What failed, by tessera._C.compile's failed_stage.
_FAILED = {"parse": "reading the input of", "ttgir": "lowering to TTGIR", "llvm": "lowering to LLVM",
           "llir": "translating to LLVM IR", "backend": "generating PTX for"}


def _native_compile(src, start, name, arch, options, fast_version_only=False):
    """Every native call of the NVIDIA stages, in one place: one tessera._C.compile from `src`,
    the artifact of stage `start` ("ttir" or "ttgir"), through PTX. Returns (asm, metadata):
    asm holds the stages after `start` ("ttgir", "llir", "ptx"), metadata what the launcher
    needs ("shared", "global_scratch_size", "global_scratch_align"). `fast_version_only` (from
    "ttgir"): only the then branches of ttg-version-nonnegative's ifs are compiled (not the
    kernel's meaning for every input: _version_register_cap's measurement)."""
    if start not in ("ttir", "ttgir"):
        raise RuntimeError(f"{name}: the cuda backend makes PTX from its LLVM dialect module, not from LLVM IR "
                           f"text, so a replaced 'llir' stage cannot change what follows (replace 'ttgir' or "
                           f"'ptx' instead)")
    # The pipelines are tessera::api::kernelStages' (the C++ embedding API compiles with the same):
    # loads pipelined from sm_80, descriptor copies by TMA from sm_90, profiling records in the
    # shared memory a block may opt in to.
    keep = ["ttgir", "llir", "ptx"] if start == "ttir" else ["llir", "ptx"]
    stages = base.kernel_stages(f"{TARGET_PREFIX}:{arch}", options, start, pipeline=pipeline_enabled(),
                                tma_all_copies=tma_all_copies())
    if fast_version_only:
        stages = base.fast_version_stages(stages)
    native_options = {"enable-fp-fusion": "1" if options.enable_fp_fusion else "0"}
    libs = base.extern_libraries(src)
    if libs:
        native_options["extern-libs"] = "\n".join(libs)
    libdevice = options.extern_libs_dict().get("libdevice")
    if libdevice:  # extern_libs={"libdevice": path} replaces the one found beside ptxas
        native_options["libdevice"] = libdevice
    res = _core._native().compile(src, f"{TARGET_PREFIX}:{arch}", stages, keep, native_options,
                                  f"{name}.{start}")
    if not res.ok:
        diags = "\n".join(str(d) for d in res.diagnostics)
        what = _FAILED.get(res.failed_stage, f"running stage {res.failed_stage!r} of")
        raise base.StageError(f"internal error while {what} '{name}' (a Tessera bug):\n{diags}", res.diagnostics)
    md = res.metadata
    meta = {"shared": md.get("ttg.shared", 0),
            "global_scratch_size": md.get("ttg.global_scratch_memory_size", 0),
            "global_scratch_align": md.get("ttg.global_scratch_memory_alignment", 1)}
    profile = base.profile_metadata(md, res.text_metadata)
    if profile:
        meta["profile"] = profile
    return dict(res.artifacts), meta


# ------------------------------------------------------------------ loading

_ATTR_MAX_SHARED_OPTIN = 97  # CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN


class LoadedKernel:
    """A compiled kernel loaded on one device."""

    def __init__(self, asm, meta, device):
        native = _core._native()
        status, limit = native.cuda.device_attribute(device, _ATTR_MAX_SHARED_OPTIN)
        if status and meta["shared"] > limit:
            raise OutOfResources(f"{meta['name']} needs {meta['shared']} bytes of shared memory; the device "
                                 f"allows {limit} per block")
        # A cubin runs on GPUs of its own major architecture; code compiled for an older one
        # (TESSERA_CUDA_ARCH=80 on a cc 9.0 GPU) loads as PTX, which the driver compiles.
        image = asm.get("cubin")
        arch = meta.get("arch")
        if image and arch is not None:
            dev = device_capability(device)
            if int(arch) // 10 != dev // 10 or int(arch) > dev:
                image = None
        image = image or asm["ptx"].encode()
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


def tma_swizzle(inner_bytes):
    """The swizzle (bytes) of the shared buffer a TMA copy of a block with `inner_bytes` bytes per
    row uses: the widest of 128, 64, 32 dividing it, else 0. ttng-tma-lowering uses the same rule
    (tmaSwizzleBytes)."""
    for w in (128, 64, 32):
        if inner_bytes % w == 0:
            return w
    return 0


def device_capability(device):
    native = _core._native()
    status, cc = native.cuda.compute_capability(device)
    if not status:
        raise CudaError(status, "querying the device")
    return cc


# ------------------------------------------------------------------ the backend

_DL_CUDA, _DL_CUDA_MANAGED = 2, 13  # DLPack device types


class NvidiaBackend(base.Backend):
    """CUDA targets ("cuda:90"): compiled in process to PTX, assembled by ptxas where installed."""

    name = TARGET_PREFIX
    default_arch = 90
    exports = {"CudaError": CudaError}
    specialization = Specialization("cuda", [Divisibility((16,)), EqualsOne(), NonNegative()])

    def parse_arch(self, arch):
        if not arch.isdigit() or int(arch) < 70:
            raise ValueError(f"unsupported CUDA architecture {arch!r} (expected e.g. 80, 90)")
        return int(arch)

    def aot_sources(self, cname, source_file, kernel_name, params, specs, target):
        """tessera.aot's C: the cubins embedded and a launcher on the CUDA driver API."""
        from .nvidia_aot import aot_sources
        return aot_sources(cname, source_file, kernel_name, params, specs, target)

    # --------------------------------------------------------- compiling
    def stages(self, options):
        """ttgir, llir and ptx come from one native compilation (_native_compile), run by the
        first of them; the later ones return its artifacts, or compile again when a replaced
        stage before them changed their input (a changed ttgir is compiled from; a changed llir
        is an error: PTX is made from the LLVM dialect module). cubin runs ptxas (left out
        without ptxas: the driver JITs the PTX)."""
        done = {}

        def native(stage):
            start = _PREVIOUS[stage]

            def run(src, metadata):
                asm = done.get("asm")
                if asm is None or asm.get(start) is not src:
                    asm, meta = _native_compile(src, start, metadata["name"], metadata["arch"], options)
                    asm[start] = src
                    done["asm"] = asm
                    metadata.update(meta, threads_per_warp=WARP_SIZE, cc=metadata["arch"])
                return asm[stage]
            run.__name__ = f"make_{stage}"
            run.__qualname__ = f"NvidiaBackend.stages.<locals>.make_{stage}"
            return run

        def cubin(ptx, metadata):
            ttgir = (done.get("asm") or {}).get("ttgir", "")
            return self.make_cubin(ptx, metadata, options, ttgir=ttgir)
        cubin.__name__ = "make_cubin"
        cubin.__qualname__ = "NvidiaBackend.stages.<locals>.make_cubin"
        return {"ttgir": native("ttgir"), "llir": native("llir"), "ptx": native("ptx"), "cubin": cubin}

    def make_cubin(self, ptx, metadata, options, ttgir=""):
        """ptxas; a kernel in two sign versions whose slow version would cost blocks per SM gets
        its registers bounded (metadata["version_maxnreg"]; see _version_register_cap).

        Otherwise a kernel without tensor-core instructions whose registers leave room below the
        occupancy they give is assembled again with `.minnctapersm` at that occupancy, and that
        cubin is kept where ptxas then uses more registers (metadata["min_blocks_per_sm"]).
        ptxas's own target is a soft one that code far from a loop can move: layer norm fp16
        4096x8192 (256 threads) got 64 registers with every load of a pass in flight, or, after
        a two-instruction change in its prologue, 60 registers with the loads issued one at a
        time (39.7 against 53.5 us, run 163); with `.minnctapersm 4` both are 64 registers with
        the loads in flight (run 164). The bound never lowers the blocks per SM;
        TESSERA_DISABLE_REGISTER_BUDGET=1 assembles once."""
        arch, name = metadata["arch"], metadata["name"]
        cubin, full = _ptxas(ptx, arch, name, options.maxnreg)
        if options.maxnreg is not None or not full:
            return cubin
        threads = options.num_warps * WARP_SIZE
        shared = metadata.get("shared", 0)
        blocks = blocks_per_sm(arch, threads, shared, full)
        if "tt.nonnegative_version" in ttgir:
            # Bounded only where the whole kernel would hold fewer than 16 warps per SM (4 per
            # scheduler) and fewer blocks than the fast version: with more warps latency is
            # hidden anyway and the spills a bound causes cost more (run 106: the conformance
            # matmul, 4 blocks of 4 warps, 7904 ns unbounded against 8256 bounded). The fast
            # version is compiled (to count its registers) only where that can matter.
            if blocks * options.num_warps < 16:
                cap = _version_register_cap(ttgir, name, arch, options, shared)
                if cap is not None and full > cap and blocks < blocks_per_sm(arch, threads, shared, cap):
                    metadata["version_maxnreg"] = cap
                    return assemble(ptx, arch, name, maxnreg=cap)
        if register_budget_enabled() and not _MMA_PTX.search(ptx):
            if blocks > 0 and occupancy_register_bound(arch, threads, shared, full) > full:
                # Taken only where ptxas uses the room: at the same or a lower count the
                # kernel keeps ptxas's own cubin (run 168: add fp32 2^20 at 26 registers
                # either way, 0.990 with the directive against 0.995 without, in alternation).
                bounded, registers = _ptxas(with_min_blocks(ptx, blocks), arch, name)
                if registers is not None and registers > full:
                    metadata["min_blocks_per_sm"] = blocks
                    cubin = bounded
        return cubin

    def toolchain_key(self):
        return {"ptxas": _ptxas_key(find_ptxas())}

    def compile_environment(self):
        # TESSERA_DISABLE_VECTORIZE / _COALESCE / _PIPELINE / _TMA change the code
        return {"vectorize": vectorize_enabled(), "coalesce": coalesce_enabled(),
                "pipeline": pipeline_enabled(), "tma": _env_flag_off("TESSERA_DISABLE_TMA"),
                "tma_all_copies": tma_all_copies(), "register_budget": register_budget_enabled()}

    def device_tensor_maps(self, arch):
        """From sm_90 (tensormap.replace), unless TESSERA_DISABLE_TMA is set."""
        return int(arch) >= 90 and _env_flag_off("TESSERA_DISABLE_TMA")

    def environment(self):
        env = super().environment()
        torch = base.torch_module()
        if torch is not None:
            env["torch CUDA"] = torch.version.cuda if torch.cuda.is_available() else "not available"
        ptxas = find_ptxas()
        env["ptxas"] = f"{ptxas} (CUDA {ptxas_version(ptxas)})" if ptxas else "not found (set TESSERA_PTXAS or CUDA_HOME)"
        if env["launches kernels"]:
            devices = []
            for d in range(_core._native().cuda.device_count()):
                try:
                    cc = device_capability(d)
                    devices.append(f"{d}: compute capability {cc} (target cuda:{cc})")
                except CudaError as e:
                    devices.append(f"{d}: {e}")
            env["devices"] = devices
        return env

    # --------------------------------------------------------- launching
    def is_available(self):
        if _core._C is None:
            return False
        ok, _ = _core._C.cuda.available()
        return ok and _core._C.cuda.device_count() > 0

    def unavailable_reason(self):
        if _core._C is None:
            return "the native core is not built"
        ok, status = _core._C.cuda.available()
        return status.message if not ok else "no CUDA device"

    def current_device(self):
        torch = base.torch_module()
        if torch is not None and torch.cuda.is_available():
            return torch.cuda.current_device()
        return 0

    def current_target(self, device):
        """cuda:<the device's compute capability>, or TESSERA_CUDA_ARCH (e.g. 80: the Ampere code
        path on a Hopper GPU) when set; it may not exceed the device's."""
        cc = device_capability(device)
        forced = os.environ.get("TESSERA_CUDA_ARCH", "")
        if forced:
            arch = self.parse_arch(forced)
            if arch > cc:
                raise ValueError(f"TESSERA_CUDA_ARCH={forced} is newer than the device (cuda:{cc})")
            return self.target(arch)
        return self.target(cc)

    # CUdevice_attribute numbers (cuda.h; stable across CUDA releases)
    _ATTRIBUTES = {"max_shared_mem": 97, "max_num_regs": 12, "multiprocessor_count": 16, "warpSize": 10,
                   "sm_clock_rate": 13, "mem_clock_rate": 36, "mem_bus_width": 37}

    def device_properties(self, device):
        native = _core._native()
        props = {}
        for key, attr in self._ATTRIBUTES.items():
            status, value = native.cuda.device_attribute(int(device), attr)
            if not status:
                raise CudaError(status, f"querying {key} of device {device}")
            props[key] = value
        return props

    def load(self, kernel, device):
        loaded = LoadedKernel(kernel.asm, kernel.metadata, device)
        kernel.metadata.update(num_registers=loaded.info.num_registers, num_spills=loaded.info.num_spills)
        return loaded

    def launch_entry(self, kernel, loaded, num_params, globals_):
        return self.make_launch_entry(kernel, num_params, globals_, function=loaded.function,
                                      context=loaded.info.context, block=loaded.block,
                                      shared=kernel.metadata["shared"])

    def launch_loaded(self, kernel, loaded, grid, pointers, stream):
        packed = b"".join(int(p).to_bytes(8, "little") for p in pointers)
        status = _core._native().cuda.launch(loaded.function, *grid, loaded.block, 1, 1, kernel.metadata["shared"],
                                             stream, packed, [8 * i for i in range(len(pointers))])
        if not status:
            raise CudaError(status, f"launching {kernel.metadata['name']}")

    def launch_error(self, code, name, message, kernel_name):
        if name == "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES":
            raise OutOfResources(f"launching {kernel_name}: {name}: {message} (too many registers for the "
                                 f"block: fewer warps or maxnreg=)")
        raise CudaError.from_fields(code, name, message, f"launching {kernel_name}")

    # --------------------------------------------------------- arguments and devices
    def torch_launch_hooks(self, torch):
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is None:
            def raw(device):
                return torch.cuda.current_stream(device).cuda_stream
        return raw, torch.cuda.current_device

    def dlpack_device(self, device_type, device_id):
        if device_type in (_DL_CUDA, _DL_CUDA_MANAGED):
            return int(device_id)
        return super().dlpack_device(device_type, device_id)

    def array_interface(self, value, name):
        cai = getattr(value, "__cuda_array_interface__", None)
        if cai is None:
            return None
        ptr = int(cai["data"][0])
        dev = _core._native().cuda.pointer_device(ptr) if ptr else -1
        if ptr and dev < 0:
            raise ValueError(f"{name}: its __cuda_array_interface__ pointer {ptr:#x} is not CUDA device memory")
        return cai, (max(dev, 0) if ptr else 0)

    def current_stream(self, device):
        torch = base.torch_module()
        return torch.cuda.current_stream(device).cuda_stream if torch is not None else 0

    def synchronize(self, device=None):
        import torch
        torch.cuda.synchronize(device)

    def timing_event(self):
        import torch
        return torch.cuda.Event(enable_timing=True)

    def device_buffer(self, nbytes):
        import torch
        return torch.empty(nbytes, dtype=torch.int8, device="cuda")

    def device_context(self, device):
        torch = base.torch_module()
        if device is not None and torch is not None and torch.cuda.is_available():
            return torch.cuda.device(device)
        return contextlib.nullcontext()

    # ------------------------------------------------------------ TMA tensor maps
    # CUtensorMapDataType by element size: the copies move bits, and zero fill is 0 in every type.
    _TMA_DATA_TYPES = {1: 0, 2: 1, 4: 2, 8: 4}
    _TMA_SWIZZLE_CODES = {0: 0, 32: 1, 64: 2, 128: 3}

    def encode_tensor_map(self, desc, shape, strides, block):
        """The TMA tensor map (128 bytes) of a TensorDescriptor argument, or None where the kernel
        should get the descriptor without one (its accesses then stay pointer accesses): in the
        interpreter, with TESSERA_DISABLE_TMA set, for a tensor not on a CUDA device with TMA
        (sm_90+), and for what TMA copies here do not cover (ranks other than 2, NaN padding,
        elements of other than 1, 2, 4 or 8 bytes, block dimensions over 256 or an inner block
        extent not a multiple of 16 bytes, sizes of 2**31 or more, and an inner size that is not a
        multiple of 16 bytes, which TMA stores would overrun). The box is the block with its
        inner extent cut to the swizzle width (tma_swizzle), as ttng-tma-lowering expects."""
        if os.environ.get("TESSERA_INTERPRET") == "1" or not _env_flag_off("TESSERA_DISABLE_TMA"):
            return None
        base = desc.base
        dev = getattr(base, "device", None)
        if getattr(dev, "type", None) != "cuda" or len(shape) != 2 or desc.padding != "zero":
            return None
        elem = int(base.element_size())
        if elem not in self._TMA_DATA_TYPES or any(b > 256 for b in block) or (block[-1] * elem) % 16:
            return None
        if any(not 0 < d < 2**31 for d in shape) or any(not 0 < st * elem < 2**40 for st in strides[:-1]):
            return None
        # TMA stores write whole 16-byte chunks: with an inner size that is not a multiple of 16
        # bytes, a store at the edge would overwrite the bytes after the row (the pointer path
        # clips exactly).
        if (shape[-1] * elem) % 16:
            return None
        index = dev.index if dev.index is not None else self.current_device()
        cc = self._capabilities.get(index)
        if cc is None:
            cc = self._capabilities[index] = device_capability(index)
        if cc < 90:
            return None
        swizzle = tma_swizzle(block[-1] * elem)
        box = list(block)
        if swizzle:
            box[-1] = min(box[-1], swizzle // elem)
        status, data = _core._native().cuda.encode_tensor_map(
            self._TMA_DATA_TYPES[elem], int(base.data_ptr()), [int(d) for d in reversed(shape)],
            [int(st) * elem for st in reversed(strides[:-1])], list(reversed(box)),
            self._TMA_SWIZZLE_CODES[swizzle])
        if not status:
            raise CudaError(status, f"encoding the TMA tensor map of a TensorDescriptor (shape {list(shape)}, "
                                    f"strides {list(strides)}, block {list(block)})")
        return data

    _capabilities = {}

    def default_allocator(self, size, alignment, stream):
        """A uint8 tensor from PyTorch's caching allocator on the current device, allocated on the
        launch's stream, so that the allocator does not hand the block to other streams while the
        kernel may still use it."""
        import torch
        device = torch.cuda.current_device()
        with torch.cuda.stream(torch.cuda.ExternalStream(stream, device=device)):
            # PyTorch's allocations are aligned to at least 256 bytes.
            if alignment > 256:
                t = torch.empty(size + alignment, dtype=torch.uint8, device=device)
                skip = (-t.data_ptr()) % alignment
                return t[skip:skip + size]
            return torch.empty(size, dtype=torch.uint8, device=device)


__all__ = ["CudaError", "OutOfResources", "NvidiaBackend", "LoadedKernel", "assemble", "device_capability",
           "find_ptxas", "ptxas_version", "tma_swizzle"]
