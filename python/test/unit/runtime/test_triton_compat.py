"""Kernel objects behave as Triton's do where ported code relies on it: `kernel.src` can be
replaced (Triton's test helpers patch kernels that way), and a parameter named like a launch option
(`num_stages`) is passed by keyword to the kernel (the softmax tutorial does this)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


@tessera.jit
def patched(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs) + 1)


SIG = {"x": "*fp32", "out": "*fp32"}


def test_replacing_src_recompiles_in_the_interpreter_and_the_compiler(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x, out = torch.arange(8, dtype=torch.float32), torch.zeros(8)
    patched[(1,)](x, out, N=8)
    assert torch.equal(out, x + 1)
    before = tessera.compile(patched, signature=SIG, constexprs={"N": 8}, target="cuda:90")
    original = patched.src
    try:
        patched.src = patched.src.replace("+ 1", "* 3")
        patched[(1,)](x, out, N=8)
        assert torch.equal(out, x * 3)
        after = tessera.compile(patched, signature=SIG, constexprs={"N": 8}, target="cuda:90")
        assert after is not before and "arith.mulf" in after.asm["ttir"] and "arith.mulf" not in before.asm["ttir"]
    finally:
        patched.src = original
    patched[(1,)](x, out, N=8)
    assert torch.equal(out, x + 1)


def test_bad_sources_are_rejected():
    with pytest.raises(TypeError, match="must be a str"):
        patched.src = 3
    with pytest.raises(ValueError, match="must keep the parameters"):
        patched.src = "def patched(x, N: tl.constexpr):\n    pass\n"
    with pytest.raises(SyntaxError):
        patched.src = "def patched(x, out, N:\n"


@tessera.jit
def with_stage_param(x, out, num_stages: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs) * num_stages)


def test_a_parameter_named_like_a_launch_option_is_passed_by_keyword(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x, out = torch.arange(8, dtype=torch.float32), torch.zeros(8)
    with_stage_param[(1,)](x, out, num_stages=3, N=8, num_warps=2)
    assert torch.equal(out, x * 3)
    k = tessera.compile(with_stage_param, signature=SIG, constexprs={"num_stages": 2, "N": 8}, target="cuda:90")
    assert "tt.store" in k.asm["ttir"]
