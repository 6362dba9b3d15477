"""On a called @jit function, a tl.constexpr annotation is a hint, as in Triton: a run-time value
may be passed to it (the fused-attention tutorial passes offsets that way); a compile-time value
still specializes the callee."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


@tessera.jit
def _scaled(x, offs: tl.constexpr, SCALE: tl.constexpr):
    return tl.load(x + offs) * SCALE


@tessera.jit
def caller(x, out, start, BLOCK: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)          # run-time offsets into a constexpr-annotated parameter
    tl.store(out + tl.arange(0, BLOCK), _scaled(x, offs, 3.0))


SIG = {"x": "*fp32", "out": "*fp32", "start": "i32"}


def test_a_runtime_value_reaches_a_constexpr_annotated_parameter():
    k = tessera.compile(caller, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90")
    assert "tt.store" in k.asm["ttir"]


def test_it_runs_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.arange(100, dtype=torch.float32)
    out = torch.zeros(64)
    caller[(1,)](x, out, 5, BLOCK=64)
    assert torch.equal(out, (x[5:69] * 3.0))


@tessera.jit
def _needs_constant(N: tl.constexpr):
    return tl.arange(0, N)


@tessera.jit
def bad_caller(out, n):
    tl.store(out + tl.arange(0, 16), _needs_constant(n))


def test_a_runtime_value_where_a_constant_is_needed_is_still_an_error():
    """The error is where the constant is needed, with the call as a note."""
    with pytest.raises(tessera.CompilationError) as info:
        tessera.compile(bad_caller, signature={"out": "*i32", "n": "i32"}, target="cuda:90")
    e = info.value
    assert "arange's end must be a compile-time constant" in e.message
    assert e.lineno == _needs_constant.fn.__code__.co_firstlineno + 2
    call_line = bad_caller.fn.__code__.co_firstlineno + 2
    assert any(f"called from {bad_caller.filename}:{call_line}" in n for n in e.notes)
