"""tessera.aot for hip targets: C launchers with the code objects (hsaco) embedded, on the HIP module
API. The generated C compiles with the system C compiler against HIP's headers (Debian's
libamdhip64-dev or ROCm's); linked against a stand-in runtime (mock_hip.c) its dispatcher runs on
the CPU: which specialization each argument set takes, modules loaded once per device and unloaded
on their device, and the kernarg buffer each launch passes, checked byte for byte against the
embedded code object's own metadata (its explicit arguments' offsets and sizes) and against what
Tessera's HIP launcher packs (amd.pack_kernargs). The example program (examples/aot, hip:gfx942)
builds and links against libamdhip64. No AMD GPU or ROCm runtime needed (nor used)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import types

import pytest

import tessera
import tessera.language as tl
from tessera import aot
from tessera.backends import amd, amd_aot

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
CC = shutil.which(os.environ.get("CC", "cc"))
ROCM = os.environ.get("ROCM_PATH", "/opt/rocm")
READOBJ = shutil.which("llvm-readobj-22") or "/usr/lib/llvm-22/bin/llvm-readobj"
TARGET = "hip:gfx942"


def _find(paths, name):
    return next((p for p in paths if os.path.exists(os.path.join(p, name))), None)


HIP_INCLUDE = _find([os.path.join(ROCM, "include"), "/usr/include"], os.path.join("hip", "hip_runtime_api.h"))
HIP_LIB = _find([os.path.join(ROCM, "lib"), "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"], "libamdhip64.so")
needs_hip = pytest.mark.skipif(CC is None or HIP_INCLUDE is None,
                               reason="no C compiler, or no HIP headers (hip/hip_runtime_api.h: Debian's "
                                      "libamdhip64-dev, or ROCm under $ROCM_PATH)")
needs_libhip = pytest.mark.skipif(CC is None or HIP_INCLUDE is None or HIP_LIB is None,
                                  reason="no C compiler, HIP headers or libamdhip64.so to link against")

sys.path.insert(0, os.path.join(ROOT, "examples"))
try:
    from kernels import add_kernel  # noqa: E402
finally:
    sys.path.pop(0)

SIGS = ["*fp32:16, *fp32:16, *fp32:16, i32:16", "*fp32, *fp32, *fp32, i32"]
ADD_NAMES = ["x_ptr", "y_ptr", "z_ptr", "n"]


@tessera.jit
def mixed(out, b, c, d, e, f, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out + o, (b + c + d).to(tl.float32) + e + f)


MIXED_SIGS = ["*fp32:16, i8, u16, i64:16, fp32, fp64", "*fp32, i8, u16, i64, fp32, fp64"]
MIXED_NAMES = ["out", "b", "c", "d", "e", "f"]
# how each C type's bytes read back (the values main() of mock_hip.c passes)
MIXED_FORMATS = ["<Q", "<b", "<H", "<q", "<f", "<d"]


def compile_one(fn, sig, names, constexprs):
    return tessera.compile(fn, signature=dict(zip(names, sig.split(", "))), constexprs=constexprs, target=TARGET)


def embedded(c_text, name, i):
    body = re.search(rf"{name}_hsaco_{i}\[(\d+)\] = \{{(.*?)\}};", c_text, re.S)
    data = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", body.group(2)))
    assert int(body.group(1)) == len(data)
    return data


def metadata_args(hsaco, kernel, tmp_path):
    """(offset, size) of the kernel's explicit arguments and its kernarg segment size, as the code
    object's metadata says: llvm-readobj's notes of the embedded bytes where llvm-readobj is
    installed, else the metadata block of the kernel's assembly."""
    if os.path.exists(READOBJ):
        path = tmp_path / "k.hsaco"
        path.write_bytes(hsaco)
        text = subprocess.run([READOBJ, "--notes", str(path)], capture_output=True, text=True, check=True).stdout
    else:
        text = kernel.asm["amdgcn"]
    out = []
    for block in text.split(".args:")[1].split(".group_segment_fixed_size")[0].split("- ")[1:]:
        if re.search(r"\.value_kind:\s+hidden_", block):
            continue
        out.append((int(re.search(r"\.offset:\s+(\d+)", block).group(1)),
                    int(re.search(r"\.size:\s+(\d+)", block).group(1))))
    return out, int(re.search(r"\.kernarg_segment_size:\s+(\d+)", text).group(1))


def build(tmp_path, *extra):
    exe = tmp_path / "dispatch"
    subprocess.run([CC, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{HIP_INCLUDE}", f"-I{tmp_path}", *extra,
                    os.path.join(HERE, "mock_hip.c"), "-lpthread", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()


def launches(out):
    return [dict(kv.split("=") for kv in ln.split()[1:]) for ln in out if ln.startswith("launch")]


def test_the_header_and_source_hold_the_launcher_and_the_code_objects(tmp_path):
    files = aot.generate(add_kernel, SIGS, {"BLOCK": 1024}, name="add", target=TARGET, out_dir=str(tmp_path))
    h, c = files["add.h"], files["add.c"]
    assert ("hipError_t add(hipStream_t stream, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, "
            "hipDeviceptr_t x_ptr, hipDeviceptr_t y_ptr, hipDeviceptr_t z_ptr, int32_t n);") in h
    assert "void add_unload(void);" in h and "#include <hip/hip_runtime_api.h>" in h
    assert ("(((uintptr_t)x_ptr) % 16u) == 0 && (((uintptr_t)y_ptr) % 16u) == 0 && "
            "(((uintptr_t)z_ptr) % 16u) == 0 && (n % 16) == 0") in c
    assert "cuda" not in (h + c).lower() and "CUresult" not in h + c
    # the embedded bytes are the code objects tessera.compile makes for the same signatures
    for i, sig in enumerate(SIGS):
        assert embedded(c, "add", i) == compile_one(add_kernel, sig, ADD_NAMES, {"BLOCK": 1024}).asm["hsaco"]
    assert "add_block_0 = 256;" in c  # 4 wavefronts of 64 on gfx942
    assert open(tmp_path / "add.c").read() == c


def test_a_pointer_range_is_named_as_a_promise():
    h = aot.generate(add_kernel, "*fp32:16:range32, *fp32, *fp32, i32", {"BLOCK": 1024}, target=TARGET)["add_kernel.h"]
    assert "0: (((uintptr_t)x_ptr) % 16u) == 0 (promised, not checked: x_ptr addresses less than 2 GiB)" in h


@needs_hip
def test_the_dispatcher_on_a_stand_in_runtime(tmp_path):
    aot.generate(add_kernel, SIGS, {"BLOCK": 1024}, name="add", target=TARGET, out_dir=str(tmp_path))
    out = build(tmp_path, str(tmp_path / "add.c"))
    ls = launches(out)
    # aligned, misaligned, aligned (loaded), odd n; on a second device its own module; back on the first
    assert [l["module"] for l in ls] == ["1", "2", "1", "2", "3", "1"]
    assert [l["device"] for l in ls] == ["0", "0", "0", "0", "1", "0"]
    assert [l["grid"] for l in ls] == ["8,1,1", "8,1,1", "2,1,1", "3,1,1", "8,1,1", "8,1,1"]
    assert {l["block"] for l in ls} == {"256,1,1"} and {l["shared"] for l in ls} == {"0"}
    assert {l["stream"] for l in ls} == {"0x5000"}
    # the kernarg buffers: what Tessera's launcher packs, and where the code object reads each argument
    c = open(tmp_path / "add.c").read()
    values = [(0x1000, 0x2000, 0x3000, 8192), (0x1004, 0x2000, 0x3000, 8192), (0x1000, 0x2000, 0x3000, -32),
              (0x1000, 0x2000, 0x3000, 2001), (0x1000, 0x2000, 0x3000, 8192), (0x1000, 0x2000, 0x3000, 8192)]
    for l, v in zip(ls, values):
        i = {"1": 0, "2": 1, "3": 0}[l["module"]]  # the specialization each module holds
        kernel = compile_one(add_kernel, SIGS[i], ADD_NAMES, {"BLOCK": 1024})
        args = bytes.fromhex(l["args"])
        assert int(l["size"]) == len(args)
        assert args == amd.pack_kernargs(kernel.metadata["kernarg_types"], list(v))[0]
        explicit, segment = metadata_args(embedded(c, "add", i), kernel, tmp_path)
        assert len(explicit) == 4 and explicit[-1][0] + explicit[-1][1] == len(args) <= segment
        got = [struct.unpack(fmt, args[o:o + s])[0] for (o, s), fmt in zip(explicit, ["<Q", "<Q", "<Q", "<i"])]
        assert got == list(v)
    assert out.count("result=0") == 6 and "result=100" in out  # hipErrorNoDevice from hipGetDevice
    # each device's modules unloaded with that device current; the caller's device given back
    assert [ln for ln in out if ln.startswith("unload")] == [
        "unload module=1 device=0", "unload module=2 device=0", "unload module=3 device=1"]
    assert out[-1] == "loaded=3 unloaded=3 set=3 device=0"


@needs_hip
def test_the_kernarg_buffer_of_many_argument_types(tmp_path):
    aot.generate(mixed, MIXED_SIGS, {"BLOCK": 16}, target=TARGET, out_dir=str(tmp_path))
    out = build(tmp_path, "-DMOCK_MIXED", str(tmp_path / "mixed.c"))
    assert out.count("result=0") == 2
    c = open(tmp_path / "mixed.c").read()
    passed = [[0x1000, -2, 0xBEEF, -(1 << 40) - 16, 1.5, -2.25], [0x1000, 127, 7, 8, 0.0, 0.0]]
    ls = launches(out)
    assert [l["module"] for l in ls] == ["1", "2"]  # d = 8 is not a multiple of 16: the second
    for i, (l, v) in enumerate(zip(ls, passed)):
        kernel = compile_one(mixed, MIXED_SIGS[i], MIXED_NAMES, {"BLOCK": 16})
        assert kernel.metadata["kernarg_types"] == ["ptr", "i8", "i16", "i64", "float", "double"]
        args = bytes.fromhex(l["args"])
        assert args == amd.pack_kernargs(kernel.metadata["kernarg_types"], v)[0]  # padding zeroed, too
        explicit, segment = metadata_args(embedded(c, "mixed", i), kernel, tmp_path)
        assert explicit == [(0, 8), (8, 1), (10, 2), (16, 8), (24, 4), (32, 8)] and len(args) == 40 <= segment
        assert [struct.unpack(fmt, args[o:o + s])[0] for (o, s), fmt in zip(explicit, MIXED_FORMATS)] == v


@needs_libhip
def test_the_example_program_builds(tmp_path):
    p = subprocess.run(["bash", os.path.join(ROOT, "examples", "aot", "build.sh"), str(tmp_path), TARGET],
                       capture_output=True, text=True, env=dict(os.environ, PYTHON=sys.executable))
    assert p.returncode == 0, p.stderr
    assert os.access(tmp_path / "aot_example", os.X_OK)
    assert "hipError_t matmul(" in open(tmp_path / "matmul.h").read()
    # linked against the HIP runtime, not CUDA's driver
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "aot_example")], capture_output=True, text=True).stdout
    assert "libamdhip64" in needed and "libcuda" not in needed


def test_the_command_line(tmp_path):
    kernel = os.path.join(ROOT, "examples", "kernels.py") + ":add_kernel"
    p = subprocess.run([sys.executable, "-m", "tessera.aot", kernel,
                        "-s", SIGS[0], "-s", SIGS[1], "-c", "BLOCK=256", "--target", TARGET, "--name", "vadd",
                        "-o", str(tmp_path)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["vadd.c", "vadd.h"]
    assert "hipError_t vadd(hipStream_t stream" in (tmp_path / "vadd.h").read_text()
    assert "vadd_hsaco_1[" in (tmp_path / "vadd.c").read_text()


def test_a_layout_the_launcher_would_not_pack_is_refused():
    kernel = compile_one(add_kernel, SIGS[1], ADD_NAMES, {"BLOCK": 1024})
    params = aot._parse_signature(add_kernel, SIGS[1], {"BLOCK": 1024})

    def fake(**meta):
        return types.SimpleNamespace(asm=kernel.asm, metadata=dict(kernel.metadata, **meta))

    ok = amd_aot.aot_sources("add", "kernels.py", "add_kernel", params, [aot.Specialization(kernel, params)], TARGET)
    assert set(ok) == {"add.h", "add.c"}
    with pytest.raises(ValueError, match="parameter 'n': the kernel takes it as LLVM i64, its C form is i32"):
        amd_aot.aot_sources("add", "kernels.py", "add_kernel", params,
                            [aot.Specialization(fake(kernarg_types=["ptr", "ptr", "ptr", "i64"]), params)], TARGET)
    with pytest.raises(ValueError, match="the code object takes 3 arguments"):
        amd_aot.aot_sources("add", "kernels.py", "add_kernel", params,
                            [aot.Specialization(fake(kernarg_types=["ptr", "ptr", "ptr"]), params)], TARGET)
    moved = dict(kernel.asm, amdgcn=kernel.asm["amdgcn"].replace(".offset:         24", ".offset:         32"))
    with pytest.raises(ValueError, match=r"not laid out as the launcher packs them"):
        amd_aot.aot_sources("add", "kernels.py", "add_kernel", params,
                            [aot.Specialization(types.SimpleNamespace(asm=moved, metadata=kernel.metadata), params)],
                            TARGET)
