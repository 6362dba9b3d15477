"""tl.assume: a scalar boolean the compiler may rely on (llvm.intr.assume in the IR, as in Triton);
the interpreter checks it. Tensors and non-boolean conditions are errors at the call's line."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.compiler.errors import CompilationError


@tessera.jit
def scaled(x, y, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    tl.assume(stride > 0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs * stride, mask=m) * 2, mask=m)


def test_compiles_to_llvm_assume():
    k = tessera.compile(scaled, signature={"x": "*fp32", "y": "*fp32", "n": "i32", "stride": "i32"},
                        constexprs={"BLOCK": 128}, target="cuda:90")
    assert k.asm["ttir"].count("llvm.intr.assume") == 2
    assert "llvm.intr.assume" in k.asm["ttgir"]
    assert "llvm.assume" in k.asm["llir"] or "@llvm.assume" in k.asm["llir"]


def test_interpreter_runs_and_checks(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = np.arange(300, dtype=np.float32)
    y = np.zeros(100, dtype=np.float32)
    scaled[(1,)](x, y, 100, 3, BLOCK=128)
    np.testing.assert_array_equal(y, x[::3][:100] * 2)
    with pytest.raises(AssertionError, match=r"tl.assume: the assumed condition is false in program \(0, 0, 0\)"):
        scaled[(1,)](x, y, 100, 0, BLOCK=128)


@tessera.jit
def on_tensor(x, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.assume(offs >= 0)
    tl.store(x + offs, offs)


@tessera.jit
def on_int(x, n):
    tl.assume(n)
    tl.store(x, n)


def test_bad_conditions_are_errors_at_the_line():
    with pytest.raises(CompilationError, match=r"tl.assume takes a scalar condition, got a tensor of shape \[64\]") as e:
        tessera.compile(on_tensor, signature={"x": "*i32"}, constexprs={"BLOCK": 64}, stages="ttir")
    assert "tl.assume(offs >= 0)" in str(e.value)
    with pytest.raises(CompilationError, match="tl.assume takes a boolean condition"):
        tessera.compile(on_int, signature={"x": "*i32", "n": "i32"}, stages="ttir")
