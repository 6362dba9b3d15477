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


# ---------------------------------------------------------------- the extern_libs option
# As in Triton: a library is named in the kernel (lib_path may be empty) and its file given by the
# extern_libs={name: path} compile option or launch keyword.

@tl.core.extern
def my_scale_named(arg0, _semantic=None):
    return tl.core.extern_elementwise("mylib", "", [arg0], {(tl.float32,): ("my_scale", tl.float32)},
                                      is_pure=True, _semantic=_semantic)


@tessera.jit
def apply_named(x, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y + offs, my_scale_named(tl.load(x + offs)))


def compile_named(**options):
    return tessera.compile(apply_named, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90", **options)


def test_extern_libs_option_gives_the_file_of_a_named_library(tmp_path):
    lib = build_library(tmp_path)
    k = compile_named(extern_libs={"mylib": lib})
    assert "my_scale" in k.asm["ptx"] and ".func" in k.asm["ptx"]
    assert f'libpath = "{lib}"' in k.asm["ttir"]
    assert [p for p, _ in k.metadata["extern_libraries"]] == [lib]


def test_extern_libs_option_overrides_the_calls_path(tmp_path):
    good = build_library(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    stale = build_library(other, src=LIB_SRC.replace("my_scale(", "unrelated("))
    k = tessera.compile(apply_lib, signature=SIG, constexprs={"LIB": stale, "SYMBOL": "my_scale", "BLOCK": 64},
                        target="cuda:90", extern_libs={"mylib": good})
    assert f'libpath = "{good}"' in k.asm["ttir"] and "my_scale" in k.asm["ptx"]


def test_a_named_library_without_a_file_is_an_error_at_the_call():
    with pytest.raises(CompilationError, match=r"library 'mylib' has no file.*extern_libs=\{'mylib': path\}") as e:
        compile_named()
    assert "my_scale_named(tl.load(x + offs))" in str(e.value)


def test_extern_libs_option_values_are_checked(tmp_path):
    with pytest.raises(ValueError, match="extern_libs: library 'mylib' not found at"):
        compile_named(extern_libs={"mylib": str(tmp_path / "absent.bc")})
    with pytest.raises(TypeError, match="extern_libs=.* is not valid: it must be a dict"):
        compile_named(extern_libs={"mylib": 3})
    with pytest.raises(TypeError, match="extern_libs=.* is not valid"):
        compile_named(extern_libs="mylib.bc")


def test_extern_libs_is_part_of_the_kernel_key(tmp_path):
    a = build_library(tmp_path)
    (tmp_path / "b").mkdir()
    b = build_library(tmp_path / "b", src=LIB_SRC.replace("3.0f", "7.0f"))
    ka, kb = compile_named(extern_libs={"mylib": a}), compile_named(extern_libs={"mylib": b})
    assert ka is not kb and ka.asm["ptx"] != kb.asm["ptx"]
    assert compile_named(extern_libs={"mylib": a}) is ka  # the in-process memo keys on the option


def test_extern_libs_replaces_libdevice(tmp_path):
    @tessera.jit
    def log1p_kernel(x, y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y + offs, tl.math.log1p(tl.load(x + offs)))

    system = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
    if os.path.isfile(system):  # a copy of the real one, named by the option, is linked and recorded
        copy = tmp_path / "my-libdevice.bc"
        shutil.copy(system, copy)
        k = tessera.compile(log1p_kernel, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90",
                            extern_libs={"libdevice": str(copy)})
        assert [p for p, _ in k.metadata["extern_libraries"]] == [str(copy)]
        assert ".entry log1p_kernel" in k.asm["ptx"]
    # A "libdevice" without __nv_log1pf: the kernel's call cannot be resolved, and the error says
    # which file was used.
    fake = build_library(tmp_path)
    with pytest.raises(CompilationError, match=f"__nv_log1pf, which libdevice \\({fake}\\) does not define"):
        tessera.compile(log1p_kernel, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90",
                        extern_libs={"libdevice": fake})


def test_interpreter_takes_the_extern_libs_launch_keyword(monkeypatch, tmp_path):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    lib = build_library(tmp_path)
    x = torch.arange(64, dtype=torch.float32)
    y = torch.empty(64)
    tessera.interpreter.register_extern("my_scale", lambda v: v * 3.0 + 1.0)
    apply_named[(1,)](x, y, BLOCK=64, extern_libs={"mylib": lib})
    np.testing.assert_allclose(y.numpy(), x.numpy() * 3 + 1)
    apply_named[(1,)](x, y, BLOCK=64)  # no file needed to interpret
    np.testing.assert_allclose(y.numpy(), x.numpy() * 3 + 1)


def test_effects_follow_the_extern_libs_launch_keyword(tmp_path):
    # tessera.effects specializes through the C++ launcher's key, which holds the dict option.
    torch = pytest.importorskip("torch")
    lib = build_library(tmp_path)
    x, y = torch.zeros(64), torch.zeros(64)
    report = tessera.effects(apply_named, x, y, BLOCK=64, extern_libs={"mylib": lib})
    assert report["y"]["effect"] == "written" and report["x"]["effect"] == "read"
