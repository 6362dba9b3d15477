"""The interpreter runs the language the compiler compiles: a construct `tessera.compile` rejects
is rejected by the interpreter too, before any program runs, with the same CompilationError at
the same line (it would otherwise run as the Python it also is: a `yield` kernel would silently
never run, `with open(...)` would write on the host)."""

import linecache

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402

from . import _rejected_kernels as rk  # noqa: E402

IDS = [k.__name__ for k, _ in rk.CASES]


def _err_line(kernel):
    """The line marked `# ERR` in the kernel's module (the kernel's own, or a function it calls)."""
    path = rk.__file__
    start = kernel.fn.__code__.co_firstlineno
    for i in range(start, start + 40):
        if "# ERR" in linecache.getline(path, i):
            return i
    for i in range(1, start):  # mutual recursion: the line is in the callee above
        if "# ERR" in linecache.getline(path, i) and "return ping(n)" in linecache.getline(path, i):
            return i
    raise AssertionError(f"no # ERR line for {kernel.__name__}")


@pytest.mark.parametrize("kernel,message", rk.CASES, ids=IDS)
def test_compiler_rejects(kernel, message):
    with pytest.raises(tessera.CompilationError, match=message) as e:
        tessera.compile(kernel, signature={"out": "*i32", "n": "i32"}, constexprs={"PATH": "/nonexistent"},
                        target="cuda:90", stages="ttir")
    assert e.value.lineno == _err_line(kernel)


@pytest.mark.parametrize("kernel,message", rk.CASES, ids=IDS)
def test_interpreter_rejects_the_same(kernel, message, monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    path = tmp_path / "written-by-the-host"
    out = torch.full((8,), -1, dtype=torch.int32)
    with pytest.raises(tessera.CompilationError, match=message) as e:
        kernel[(2,)](out, 5, PATH=str(path))
    assert e.value.lineno == _err_line(kernel)
    assert out.tolist() == [-1] * 8, "no program may run"
    assert not path.exists(), "the kernel's host code ran"
    compiled = None
    try:
        tessera.compile(kernel, signature={"out": "*i32", "n": "i32"}, constexprs={"PATH": str(path)},
                        target="cuda:90", stages="ttir")
    except tessera.CompilationError as c:
        compiled = c
    assert str(compiled) == str(e.value)


def test_interpreter_accepts_the_same_kernel_fixed(monkeypatch):
    """The check is per specialization, not a blanket refusal: a legal kernel still runs (and is
    checked once, not at every launch)."""
    import tessera.language as tl

    @tessera.jit
    def ok(out, n):
        m = 0
        if n > 0:
            m = n + 1
        tl.store(out + tl.arange(0, 8), tl.full([8], m, tl.int32))

    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    out = torch.zeros(8, dtype=torch.int32)
    ok[(1,)](out, 5)
    assert out.tolist() == [6] * 8
    assert len(ok._interpreter_checked) == 1
    ok[(1,)](out, 2)
    assert out.tolist() == [3] * 8 and len(ok._interpreter_checked) == 1
