"""The interpreter checks the launch grid as the compiled path does: ints only (no floats, no
strings), 1 to 3 dimensions, each within the hardware's range; the same error types and words."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


@tessera.jit
def count(out):
    tl.atomic_add(out, 1)


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")


@pytest.mark.parametrize("grid, exc, words", [
    ((2.7,), TypeError, "dimension 0 must be an int, got 2.7"),
    (("3",), TypeError, "dimension 0 must be an int, got '3'"),
    ((2 ** 31,), ValueError, "dimension 0 is 2147483648, outside 0..2147483647"),
    ((1, 65536), ValueError, "dimension 1 is 65536, outside 0..65535"),
    ((1, 1, 1, 1), ValueError, "must have 1 to 3 dimensions"),
    ((-1,), ValueError, "dimension 0 is -1, outside"),
    ("3", TypeError, "must be an int, a tuple of 1 to 3 ints, or a callable"),
])
def test_bad_grids_are_rejected_before_any_program_runs(grid, exc, words):
    out = torch.zeros(1, dtype=torch.int32)
    with pytest.raises(exc, match=words.replace("(", r"\(").replace(")", r"\)")):
        count[grid](out)
    assert out.item() == 0


def test_good_grids_run_every_program():
    out = torch.zeros(1, dtype=torch.int32)
    count[(2, 3)](out)
    assert out.item() == 6
    count[lambda meta: (4,)](out)
    assert out.item() == 10


@tessera.jit
def copy(x, out):
    tl.store(out, tl.load(x))


@pytest.mark.parametrize("bad, shown", [("abc", "str"), (object(), "object"), (tl.float32, "dtype")])
def test_an_argument_of_an_unsupported_type_is_named(bad, shown):
    """As in the compiled path, the parameter is named (it used to reach tl.load as a string)."""
    out = torch.zeros(1)
    with pytest.raises(TypeError, match=f"x: unsupported type {shown}"):
        copy[(1,)](bad, out)
