"""GPU tests of what the packaging issue promises (marked `gpu`): kernels compiled by tessera.compile
in a `spawn` worker pool launch in the parent without compiling again, and a user bitcode library
(tl.extern_elementwise) runs on the GPU, by lib_path and through the extern_libs launch keyword."""
import multiprocessing
import os
import random
import shutil
import subprocess

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from . import gpu_marks  # noqa: E402

pytestmark = gpu_marks()


@tessera.jit
def axpb(x, y, n, alpha, BLOCK: tl.constexpr, B: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=m) * alpha + B, mask=m)


# What a launch with 16-byte aligned tensors and a non-negative n (not a multiple of 16)
# specializes to: a kernel compiled so is the one such a launch takes.
SIG = {"x": "*fp32:16", "y": "*fp32:16", "n": "i32:nonneg", "alpha": "fp32"}


def compile_axpb(b):
    major, minor = torch.cuda.get_device_capability()
    return tessera.compile(axpb, signature=SIG, constexprs={"BLOCK": 256, "B": b},
                           target=f"cuda:{major * 10 + minor}")


def test_spawn_pool_kernels_launch_in_the_parent(monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", "1")  # the parent must not find them on disk
    bs = [random.randrange(1 << 20, 1 << 24) for _ in range(3)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        kernels = pool.map(compile_axpb, bs)
    n = 1000
    x = torch.randn(n, device="cuda")
    for b, k in zip(bs, kernels):
        y = torch.empty_like(x)
        k[(triton_cdiv(n, 256),)](x, y, n, 2.0, 256, b)
        torch.testing.assert_close(y, x * 2.0 + b)
        used = [c for c in axpb.cache.values() if c.metadata.get("constexprs", {}).get("B") == b
                and "loaded" in c.__dict__]
        assert used and all(c.metadata["cache"] == "preloaded" for c in used)
        assert used[0].asm["cubin"] == k.asm["cubin"]


def triton_cdiv(a, b):
    return (a + b - 1) // b


LIB_SRC = "__attribute__((noinline)) float my_scale(float x) { return x * 3.0f + 1.0f; }\n"


@pytest.fixture(scope="module")
def bitcode(tmp_path_factory):
    """The library: built with clang when there is one, else TESSERA_TEST_EXTERN_BC (a file
    tools/device/pack.sh builds on the machine that has clang)."""
    given = os.environ.get("TESSERA_TEST_EXTERN_BC")
    if given and os.path.isfile(given):
        return given
    clang = shutil.which("clang-22") or shutil.which("clang")
    if clang is None:
        pytest.skip("needs clang or TESSERA_TEST_EXTERN_BC for the bitcode library")
    d = tmp_path_factory.mktemp("extern")
    (d / "lib.c").write_text(LIB_SRC)
    subprocess.run([clang, "--target=nvptx64-nvidia-cuda", "-O1", "-emit-llvm", "-c", str(d / "lib.c"),
                    "-o", str(d / "lib.bc")], check=True)
    return str(d / "lib.bc")


@tl.core.extern
def my_scale(lib, x, _semantic=None):
    return tl.core.extern_elementwise("mylib", lib, [x], {(tl.float32,): ("my_scale", tl.float32)},
                                      is_pure=True, _semantic=_semantic)


@tessera.jit
def apply_scale(x, y, n, LIB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, my_scale(LIB, tl.load(x + offs, mask=m)), mask=m)


def test_user_bitcode_library_runs_on_the_gpu(bitcode):
    n = 3000
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    apply_scale[(triton_cdiv(n, 512),)](x, y, n, LIB=bitcode, BLOCK=512)
    torch.testing.assert_close(y, x * 3.0 + 1.0)
    # the same library named only by the extern_libs launch keyword
    y2 = torch.empty_like(x)
    apply_scale[(triton_cdiv(n, 512),)](x, y2, n, LIB="", BLOCK=512, extern_libs={"mylib": bitcode})
    torch.testing.assert_close(y2, x * 3.0 + 1.0)


@pytest.mark.skipif(os.environ.get("TESSERA_EXPECT_INSTALLED") != "1",
                    reason="only when tools/device/wheel_run.sh runs these tests against the installed wheel")
def test_these_tests_ran_against_the_installed_package():
    import sys
    where = os.path.realpath(tessera.__file__)
    assert where.startswith(os.path.realpath(sys.prefix) + os.sep), where
    assert not where.startswith(os.path.realpath(os.environ["TESSERA_CHECKOUT"]) + os.sep), where
