"""Sanitizer (tessera.interpreter.sanitizer): races, opt-in uninitialized reads and out-of-bounds
accesses as findings of one client; composes with other clients; results untouched."""
import pytest
import torch

import tessera
import tessera.language as tl
from tessera.interpreter import OutOfBoundsError, observe
from tessera.interpreter.clients import AccessStats
from tessera.interpreter.sanitizer import OutOfBoundsFinding, Sanitizer, UninitializedReadFinding


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")


@tessera.jit
def staged(x, tmp, y, n, BLOCK: tl.constexpr, SKIP: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(tmp + offs, tl.load(x + offs, mask=m) * 2, mask=m & (offs >= SKIP))
    tl.store(y + offs, tl.load(tmp + offs, mask=m), mask=m)  # reads tmp[0:SKIP], never written


@tessera.jit
def overrun(x, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs))  # x is shorter than BLOCK


def test_reads_of_never_written_elements_are_found_for_named_arguments():
    x = torch.arange(100, dtype=torch.float32)
    tmp, y = torch.empty(100), torch.zeros(100)
    with observe(Sanitizer(uninitialized=["tmp"])) as san:
        staged[(2,)](x, tmp, y, 100, BLOCK=64, SKIP=5)
    [f] = san.findings
    assert isinstance(f, UninitializedReadFinding)
    assert (f.arg_name, f.offset, f.count, f.pid) == ("tmp", 0, 5, (0, 0, 0))
    assert "uninitialized read in staged: program (0, 0, 0) loaded element 0 of 'tmp'" in f.message()
    torch.testing.assert_close(y[5:], x[5:] * 2)
    # fully written first: nothing to report; unnamed arguments are not checked
    with observe(Sanitizer(uninitialized=["tmp"])) as san:
        staged[(2,)](x, torch.empty(100), torch.zeros(100), 100, BLOCK=64, SKIP=0)
    assert san.findings == []
    with observe(Sanitizer()) as san:
        staged[(2,)](x, torch.empty(100), torch.zeros(100), 100, BLOCK=64, SKIP=5)
    assert san.findings == []


def test_out_of_bounds_access_is_kept_as_a_finding_and_still_raised():
    x, y = torch.zeros(10), torch.zeros(16)
    san, stats = Sanitizer(), AccessStats()
    with observe(san, stats):
        with pytest.raises(OutOfBoundsError, match="out-of-bounds load in program \\(0, 0, 0\\)"):
            overrun[(1,)](x, y, BLOCK=16)
    [f] = san.findings
    assert isinstance(f, OutOfBoundsFinding)
    assert (f.kind, f.arg_name, f.offset, f.pid) == ("load", "x", 10, (0, 0, 0))
    assert f.lineno and f.bounds and "out-of-bounds load" in f.message()


def test_races_are_part_of_the_findings():
    @tessera.jit
    def same_cell(y):
        tl.store(y, tl.program_id(0))
    y = torch.zeros(1, dtype=torch.int32)
    with observe(Sanitizer()) as san:
        same_cell[(3,)](y)
    assert [f.kind for f in san.findings] == ["write-write"]
    assert "race in same_cell on 'y'" in san.report()


@tessera.jit
def shifted_words(x, y, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = (x.to(tl.pointer_type(tl.int8)) + SHIFT).to(tl.pointer_type(tl.int32))
    tl.store(y + offs, tl.load(p + offs))


def test_misaligned_accesses_are_found():
    x = torch.arange(64, dtype=torch.int32)
    y = torch.zeros(8, dtype=torch.int32)
    with observe(Sanitizer()) as san:
        shifted_words[(1,)](x, y, SHIFT=2, BLOCK=8)
    [f] = san.findings
    assert (type(f).__name__, f.what, f.arg_name, f.lanes, f.elem_bytes) == ("MisalignedFinding", "load", "x", 8, 4)
    assert "misaligned load in shifted_words" in f.message() and "4-byte element size" in f.message()
    with observe(Sanitizer()) as san:
        shifted_words[(1,)](x, y, SHIFT=4, BLOCK=8)  # a whole element further: aligned
    assert san.findings == []
    torch.testing.assert_close(y, x[1:9])
