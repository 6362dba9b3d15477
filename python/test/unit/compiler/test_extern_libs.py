"""User device libraries: tl.extern_elementwise with the user's own LLVM bitcode (built here with
clang --target=nvptx64-nvidia-cuda), linked beside libdevice; each error is a CompilationError
naming the library at the call's line; the interpreter runs a registered Python implementation;
a changed library invalidates cached kernels."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.compiler.errors import CompilationError

CLANG = shutil.which("clang-22") or shutil.which("clang")
pytestmark = pytest.mark.skipif(CLANG is None, reason="needs clang to build a bitcode library")

LIB_SRC = """
__attribute__((noinline)) float my_scale(float x) { return x * 3.0f + 1.0f; }
__attribute__((noinline)) double my_scale_f64(double x) { return x * 3.0 + 1.0; }
"""


def build_library(tmp_path, target="nvptx64-nvidia-cuda", src=LIB_SRC, name="mylib.bc"):
    c = tmp_path / "mylib.c"
    c.write_text(src)
    out = tmp_path / name
    subprocess.run([CLANG, f"--target={target}", "-O1", "-emit-llvm", "-c", str(c), "-o", str(out)],
                   check=True, capture_output=True)
    return str(out)


@tl.core.extern
def my_scale(lib, symbol, arg0, _semantic=None):
    # A device-library function as Triton writes them: plain Python run while tracing.
    return tl.core.extern_elementwise("mylib", lib, [arg0], {(tl.float32,): (symbol, tl.float32),
                                                          (tl.float64,): ("my_scale_f64", tl.float64)},
                                      is_pure=True, _semantic=_semantic)


@tessera.jit
def apply_lib(x, y, LIB: tl.constexpr, SYMBOL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    r = my_scale(LIB, SYMBOL, v)
    tl.store(y + offs, r)


SIG = {"x": "*fp32:16", "y": "*fp32:16"}


def compile_with(lib, symbol="my_scale", sig=SIG):
    return tessera.compile(apply_lib, signature=sig, constexprs={"LIB": lib, "SYMBOL": symbol, "BLOCK": 64},
                           target="cuda:90")


def test_library_function_is_linked_into_the_ptx(tmp_path):
    k = compile_with(build_library(tmp_path))
    ptx = k.asm["ptx"]
    assert ".func" in ptx and "my_scale" in ptx and "call" in ptx
    assert 'libname = "mylib"' in k.asm["ttir"]


def test_the_f64_entry_is_chosen_by_argument_type(tmp_path):
    k = compile_with(build_library(tmp_path), sig={"x": "*fp64:16", "y": "*fp64:16"})
    assert "my_scale_f64" in k.asm["ptx"]


def test_missing_library_file_is_an_error_at_the_call(tmp_path):
    with pytest.raises(CompilationError, match="library 'mylib' not found") as e:
        compile_with(str(tmp_path / "absent.bc"))
    assert "my_scale(LIB, SYMBOL, v)" in str(e.value)


def test_bitcode_for_another_target_is_an_error(tmp_path):
    lib = build_library(tmp_path, target="x86_64-unknown-linux-gnu")
    with pytest.raises(CompilationError, match=r"extern library .*mylib\.bc: bitcode for x86_64") as e:
        compile_with(lib)
    assert "my_scale(LIB, SYMBOL, v)" in str(e.value)  # the call's line is shown


def test_a_symbol_the_library_lacks_is_an_error(tmp_path):
    with pytest.raises(CompilationError, match="calls not_there, which no extern library defines"):
        compile_with(build_library(tmp_path), symbol="not_there")


def test_argument_types_without_a_symbol_are_an_error(tmp_path):
    with pytest.raises(CompilationError, match="no symbol of library 'mylib' takes arguments \\(int32\\)"):
        compile_with(build_library(tmp_path), sig={"x": "*i32:16", "y": "*fp32:16"})


def test_a_changed_library_recompiles(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "cache"))
    lib = build_library(tmp_path)
    first = compile_with(lib)
    assert first.metadata["cache"] == "miss"
    apply_lib.cache.clear()  # the in-process memo: the next compile reads the disk cache
    assert compile_with(lib).metadata["cache"] == "hit"
    build_library(tmp_path, src=LIB_SRC.replace("3.0f", "5.0f"))
    again = compile_with(lib)
    assert again.metadata["cache"] == "miss"


def test_interpreter_runs_a_registered_implementation(monkeypatch, tmp_path):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    lib = build_library(tmp_path)
    x = torch.arange(64, dtype=torch.float32)
    y = torch.empty(64)
    with pytest.raises(Exception, match="register_extern\\('my_scale'"):
        apply_lib[(1,)](x, y, LIB=lib, SYMBOL="my_scale", BLOCK=64)
    tessera.interpreter.register_extern("my_scale", lambda v: v * 3.0 + 1.0)
    apply_lib[(1,)](x, y, LIB=lib, SYMBOL="my_scale", BLOCK=64)
    np.testing.assert_allclose(y.numpy(), x.numpy() * 3 + 1)
