"""tessera.aot: C launchers with embedded cubins. The generated C compiles with the system C
compiler against cuda.h; linked against a stand-in driver (mock_driver.c) its dispatcher is run
on the CPU: which specialization each argument set takes, what reaches cuLaunchKernel, modules
loaded once and unloaded. The example program (examples/aot) builds. No GPU needed."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import tessera
import tessera.language as tl
import tessera.profiler.language as pl
from tessera import aot

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
CC = shutil.which(os.environ.get("CC", "cc"))
HAVE_C = CC is not None and os.path.exists(os.path.join(CUDA, "include", "cuda.h"))
needs_c = pytest.mark.skipif(not HAVE_C, reason=f"no C compiler or no {CUDA}/include/cuda.h")

sys.path.insert(0, os.path.join(ROOT, "examples"))
try:
    from kernels import add_kernel  # noqa: E402
finally:
    sys.path.pop(0)

SIGS = ["*fp32:16, *fp32:16, *fp32:16, i32:16", "*fp32, *fp32, *fp32, i32"]


def generate(tmp_path, **kw):
    return aot.generate(add_kernel, SIGS, {"BLOCK": 1024}, name="add", out_dir=str(tmp_path), **kw)


def test_the_header_and_source_hold_the_launcher_and_the_cubins(tmp_path):
    files = generate(tmp_path)
    h, c = files["add.h"], files["add.c"]
    assert ("CUresult add(CUstream stream, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, "
            "CUdeviceptr x_ptr, CUdeviceptr y_ptr, CUdeviceptr z_ptr, int32_t n);") in h
    assert "void add_unload(void);" in h
    assert "(x_ptr % 16u) == 0 && (y_ptr % 16u) == 0 && (z_ptr % 16u) == 0 && (n % 16) == 0" in c
    # the embedded bytes are the cubin tessera.compile makes for the same signature
    k = tessera.compile(add_kernel, signature=dict(zip(["x_ptr", "y_ptr", "z_ptr", "n"], SIGS[0].split(", "))),
                        constexprs={"BLOCK": 1024}, target="cuda:90")
    body = re.search(r"add_cubin_0\[(\d+)\] = \{(.*?)\};", c, re.S)
    data = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", body.group(2)))
    assert int(body.group(1)) == len(data) and data == k.asm["cubin"]
    assert open(tmp_path / "add.c").read() == c


@needs_c
def test_the_dispatcher_on_a_stand_in_driver(tmp_path):
    generate(tmp_path)
    exe = tmp_path / "dispatch"
    subprocess.run([CC, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{CUDA}/include", f"-I{tmp_path}",
                    str(tmp_path / "add.c"), os.path.join(HERE, "mock_driver.c"), "-lpthread", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    launches = [dict(kv.split("=") for kv in ln.split()[1:]) for ln in out if ln.startswith("launch")]
    # aligned, misaligned, aligned (loaded), odd n; in a second context its own module; back in the first
    assert [l["module"] for l in launches] == ["1", "2", "1", "2", "3", "1"]
    assert [l["n"] for l in launches] == ["8192", "8192", "2000", "2001", "8192", "8192"]
    assert launches[1]["x"] == "1004" and launches[0]["out"] == "3000"
    assert {l["block"] for l in launches} == {"128,1,1"} and launches[0]["grid"] == "8,1,1"
    assert launches[0]["stream"] == "0x5000" and launches[0]["extra"] in ("(nil)", "0x0", "0")
    assert out.count("result=0") == 6 and "result=201" in out  # CUDA_ERROR_INVALID_CONTEXT without a context
    assert out[-1] == "loaded=3 unloaded=3 pushed=2"  # each context's modules unloaded in that context


@needs_c
def test_the_example_program_builds(tmp_path):
    p = subprocess.run(["bash", os.path.join(ROOT, "examples", "aot", "build.sh"), str(tmp_path)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHON=sys.executable))
    assert p.returncode == 0, p.stderr
    assert os.access(tmp_path / "aot_example", os.X_OK)
    assert "CUresult matmul(" in open(tmp_path / "matmul.h").read()


def test_the_command_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "tessera.aot", os.path.join(ROOT, "examples", "kernels.py") + ":add_kernel",
                        "-s", SIGS[1], "-c", "BLOCK=256", "--name", "vadd", "-o", str(tmp_path)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["vadd.c", "vadd.h"]
    bad = subprocess.run([sys.executable, "-m", "tessera.aot", os.path.join(ROOT, "examples", "kernels.py") + ":nope",
                          "-s", SIGS[1], "-o", str(tmp_path)],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert bad.returncode == 2 and "defines no 'nope'" in bad.stderr


@tessera.jit
def scale_by(x, a, BLOCK: tl.constexpr):
    tl.store(x + tl.arange(0, BLOCK), a)


@tessera.jit
def uses_stream(stream, n, BLOCK: tl.constexpr):
    tl.store(stream + tl.arange(0, BLOCK), n)


def test_a_backend_without_a_writer_says_so(monkeypatch):
    from tessera.backends import amd
    monkeypatch.delattr(amd.AmdBackend, "aot_sources")
    with pytest.raises(aot.AOTError, match="the hip backend .* writes no ahead-of-time launchers"):
        aot.generate(add_kernel, SIGS[1], {"BLOCK": 1024}, target="hip:gfx942")


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(aot.AOTError, match="has 3 types, but add_kernel has 4 run-time parameters"):
        aot.generate(add_kernel, "*fp32, *fp32, i32", {"BLOCK": 1024})
    with pytest.raises(aot.AOTError, match="only the facts after ':' may differ"):
        aot.generate(add_kernel, [SIGS[0], "*fp16, *fp16, *fp16, i32"], {"BLOCK": 1024})
    with pytest.raises(aot.AOTError, match="clash with the C launcher's own"):
        aot.generate(uses_stream, "*i32, i32", {"BLOCK": 16})
    with pytest.raises(aot.AOTError, match="not a C identifier"):
        aot.generate(add_kernel, SIGS[1], {"BLOCK": 1024}, name="my-add")
    with pytest.raises(aot.AOTError, match="divisibility .* applies to pointers and integers, not float32"):
        aot.generate(scale_by, "*fp32, fp32:16", {"BLOCK": 16})
    with pytest.raises(aot.AOTError, match="signature of 'n'"):
        aot.generate(add_kernel, "*fp32, *fp32, *fp32, i32:3", {"BLOCK": 1024})
    with pytest.raises(aot.AOTError, match="@tessera.jit functions"):
        aot.generate(len, SIGS[1])


@tessera.jit
def scoped(x, n, BLOCK: tl.constexpr):
    with pl.scope("s"):
        tl.store(x + tl.arange(0, BLOCK), n)


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_kernels_with_profiling_scopes_are_refused(monkeypatch, target):
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")
    with pytest.raises(aot.AOTError, match="profiling scopes"):
        aot.generate(scoped, "*i32, i32", {"BLOCK": 16}, target=target)
