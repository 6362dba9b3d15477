"""Each bug class of issue 17 planted in a kernel and found by the sanitizer with the right line
and program ids (out-of-bounds read and write, misaligned access, uninitialized read, write-write
and read-write races, a race inside a noinline callee); nothing found on the shared conformance
suite; `interpreter.run` attaches clients for one run."""
import inspect
import os
import sys

import pytest
import torch

import tessera
import tessera.language as tl
from tessera import interpreter
from tessera.interpreter.clients import AccessStats
from tessera.interpreter.sanitizer import (MisalignedFinding, OutOfBoundsFinding, Sanitizer,
                                           UninitializedReadFinding)
from tessera.interpreter.races import RaceFinding

from ...conftest import CONFORMANCE


def _line(fn, text):
    """The file line of the statement of `fn` containing `text`."""
    src, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, l in enumerate(src) if text in l)


@tessera.jit
def read_past(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs + 1, mask=offs < n)  # PLANTED read
    tl.store(y + offs, v, mask=offs < n)


@tessera.jit
def write_past(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n)
    tl.store(y + offs + 1, v, mask=offs < n)  # PLANTED write


@tessera.jit
def read_write_race(x, y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs))  # PLANTED store
    nxt = ((pid + 1) % tl.num_programs(0)) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(y + nxt))  # PLANTED load


@tessera.jit(noinline=True)
def store_block(ptr, v, BLOCK: tl.constexpr):
    tl.store(ptr + tl.arange(0, BLOCK), v)  # PLANTED callee


@tessera.jit
def race_in_callee(x, y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    store_block(y, tl.load(x + offs), BLOCK)  # every program stores y[0:BLOCK]


@tessera.jit
def uninit(x, tmp, y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(tmp + offs) + tl.load(x + offs))  # PLANTED uninit


def test_out_of_bounds_read_and_write():
    for kernel, kind in ((read_past, "PLANTED read"), (write_past, "PLANTED write")):
        san = Sanitizer()
        with pytest.raises(interpreter.OutOfBoundsError):
            interpreter.run(kernel[(4,)], torch.arange(1000.0), torch.zeros(1000), 1000, BLOCK=256,
                            clients=[san])
        (f,) = [f for f in san.findings if isinstance(f, OutOfBoundsFinding)]
        assert f.lineno == _line(kernel, kind) and f.pid == (3, 0, 0), f.message()
        assert f.arg_name == ("x" if kernel is read_past else "y") and "1000" in f.message()


def test_misaligned_access():
    import numpy as np
    buf = np.zeros(4 * 300 + 1, dtype=np.uint8)
    xs = buf[1:1 + 4 * 256].view(np.float32)  # every element one byte off
    san = Sanitizer()
    interpreter.run(read_past[(1,)], xs, np.zeros(256, np.float32), 200, BLOCK=256, clients=[san])
    found = [f for f in san.findings if isinstance(f, MisalignedFinding)]
    assert found and found[0].lineno == _line(read_past, "PLANTED read") and found[0].pid == (0, 0, 0)


def test_uninitialized_read():
    san = Sanitizer(uninitialized=["tmp"])
    interpreter.run(uninit[(2,)], torch.ones(128), torch.empty(128), torch.zeros(128), BLOCK=64, clients=[san])
    found = [f for f in san.findings if isinstance(f, UninitializedReadFinding)]
    assert [(f.arg_name, f.pid, f.lineno) for f in found] == [("tmp", (0, 0, 0), _line(uninit, "PLANTED uninit"))]
    assert found[0].count == 128


def test_write_write_and_read_write_races():
    san = Sanitizer()
    interpreter.run(read_write_race[(3,)], torch.arange(192.0), torch.zeros(192), BLOCK=64, clients=[san])
    races = [f for f in san.findings if isinstance(f, RaceFinding)]
    kinds = {f.kind for f in races}
    assert "read-write" in kinds, [f.message() for f in races]
    f = next(f for f in races if f.arg_name == "y")
    msg = f.message()
    assert f"{_line(read_write_race, 'PLANTED store')}" in msg and f"{_line(read_write_race, 'PLANTED load')}" in msg


def test_race_inside_a_noinline_callee():
    san = Sanitizer()
    x, y = torch.arange(256.0), torch.zeros(64)
    interpreter.run(race_in_callee[(4,)], x, y, BLOCK=64, clients=[san])
    races = [f for f in san.findings if isinstance(f, RaceFinding)]
    assert races and races[0].kind == "write-write"
    assert f":{_line(store_block, 'PLANTED callee')}" in races[0].message()
    assert "program (0, 0, 0)" in races[0].message() and "program (1, 0, 0)" in races[0].message()


def test_nothing_is_found_on_the_conformance_suite(monkeypatch):
    conf = CONFORMANCE
    if not os.path.exists(os.path.join(conf, "runner.py")):
        pytest.skip(f"no shared conformance suite at {conf}")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    sys.path.insert(0, conf)
    try:
        import runner
        mod = runner.load_kernels("tessera")
    finally:
        sys.path.remove(conf)
    checked = 0
    for name, make in mod.CASES.items():
        torch.manual_seed(0)
        d = make(torch, "cpu")
        with interpreter.observe(Sanitizer()) as san:
            d["launch"]()
        assert san.findings == [], (name, san.report())
        checked += 1
    assert checked == len(mod.CASES) >= 15


def test_run_attaches_clients_for_one_run():
    stats = AccessStats()
    x, y = torch.arange(512.0), torch.zeros(512)
    interpreter.run(read_past[(2,)], x, y, 511, BLOCK=256, clients=[stats])
    torch.testing.assert_close(y[:511], x[1:])
    assert stats.report()  # it saw the run
    before = stats.report()
    interpreter.run(read_past[(2,)], x, y, 511, BLOCK=256)  # detached after its run
    assert stats.report() == before


def test_run_interprets_whatever_the_environment_says(monkeypatch):
    monkeypatch.delenv("TESSERA_INTERPRET")  # (this directory's conftest sets it)
    stats = AccessStats()
    x, y = torch.arange(512.0), torch.zeros(512)
    interpreter.run(read_past[(2,)], x, y, 511, BLOCK=256, clients=[stats])
    torch.testing.assert_close(y[:511], x[1:])
    assert stats.report() and "TESSERA_INTERPRET" not in os.environ
