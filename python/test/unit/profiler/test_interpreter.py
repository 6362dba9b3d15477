"""Profiler scopes in the interpreter (TESSERA_INTERPRET=1): each program's scopes are timed on the
host, one track per program, and every launch is a kernel event with its host time."""

import pytest
import torch

import tessera
import tessera.language as tl
import tessera.profiler as profiler
import tessera.profiler.language as pl
from tessera.interpreter import InterpreterBuilder, Memory
from tessera.language import semantic

needs_prof_record = pytest.mark.skipif(not hasattr(semantic, "prof_record"),
                                       reason="tessera.language.semantic.prof_record is not there yet")


@pytest.fixture(autouse=True)
def _interpret(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")


@tessera.jit
def scaled(x, y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    with pl.scope("load"):
        v = tl.load(x + offs, mask=offs < n)
    pl.enter_scope("compute")
    with pl.scope("inner"):
        v = v * 2
    pl.exit_scope("compute")
    tl.store(y + offs, v, mask=offs < n)


@tessera.jit
def plain(x, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs) + 1)


@needs_prof_record
def test_scopes_are_timed_per_program():
    x, y = torch.arange(40, dtype=torch.float32), torch.zeros(40)
    with profiler.profile(mode="scopes") as prof:
        with profiler.scope("step"):
            scaled[(3,)](x, y, 40, BLOCK=16)
    assert torch.equal(y, x * 2)  # scopes change nothing
    (k,) = prof.kernels
    assert (k.name, k.grid, k.source, k.host_path, k.errors) == ("scaled", (3, 1, 1), "interpreter", ("step",), [])
    assert [p.pid for p in k.programs] == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    for p in k.programs:
        (t,) = p.tracks
        assert t.warp is None and (t.count, t.unmatched_starts, t.unmatched_ends) == (6, 0, 0)
        assert [(iv.name, iv.path) for iv in t.intervals] == [
            ("load", ("load",)), ("compute", ("compute",)), ("inner", ("compute", "inner"))]
        load, compute, inner = t.intervals
        # on the host clock, inside the program, in order, nested
        assert p.start_ns <= load.start_ns < load.end_ns <= compute.start_ns <= inner.start_ns
        assert inner.end_ns <= compute.end_ns <= p.end_ns
    # programs run one after another, inside the launch
    assert k.start_ns <= k.programs[0].start_ns and k.programs[-1].end_ns <= k.start_ns + k.duration_ns
    assert k.programs[0].end_ns <= k.programs[1].start_ns
    totals = prof.scope_totals()
    assert {n: e["calls"] for n, e in totals.items()} == {"load": 3, "compute": 3, "inner": 3}
    assert all(e["warps"] == 3 and e["total_cycles"] is None for e in totals.values())

    obj = prof.trace()
    profiler.validate_trace(obj)
    names = {e["args"]["name"] for e in obj["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"program (0,0,0)", "program (1,0,0)", "program (2,0,0)", "interpreter"} <= names
    text = prof.summary()
    assert "us/program" in text and "scaled [kernel]" in text


@needs_prof_record
def test_without_a_session_scopes_record_nothing_and_kernels_still_run():
    x, y = torch.arange(16, dtype=torch.float32), torch.zeros(16)
    scaled[(1,)](x, y, 16, BLOCK=16)
    assert torch.equal(y, x * 2)


def test_launches_are_kernel_events_in_kernels_mode():
    x, y = torch.arange(8, dtype=torch.float32), torch.zeros(8)
    with profiler.profile(mode="kernels") as prof:
        plain[(2,)](x, y, BLOCK=8)
        plain[(1,)](x, y, BLOCK=8)
    assert [(k.name, k.grid, k.source) for k in prof.kernels] == [("plain", (2, 1, 1), "interpreter"),
                                                                   ("plain", (1, 1, 1), "interpreter")]
    a, b = prof.kernels
    assert a.duration_ns > 0 and a.start_ns + a.duration_ns <= b.start_ns
    assert a.programs == []  # no scopes in this kernel
    assert torch.equal(y, x + 1)


@needs_prof_record
def test_kernels_mode_records_no_scopes_as_compiled_kernels_do(monkeypatch):
    x, y = torch.arange(32, dtype=torch.float32), torch.zeros(32)
    with profiler.profile(mode="kernels") as prof:
        scaled[(2,)](x, y, 32, BLOCK=16)
    (k,) = prof.kernels
    assert k.programs == [] and prof.scope_totals() == {} and torch.equal(y, x * 2)
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")  # instrumenting() without a "scopes" session
    with profiler.profile(mode="kernels") as prof:
        scaled[(2,)](x, y, 32, BLOCK=16)
    assert prof.scope_totals()["load"]["calls"] == 2


def test_a_launch_that_raises_is_closed():
    @tessera.jit
    def out_of_bounds(x, BLOCK: tl.constexpr):
        tl.store(x + tl.arange(0, BLOCK) + 100, 1.0)

    with profiler.profile(mode="kernels") as prof:
        with pytest.raises(Exception, match="out of bounds|outside"):
            out_of_bounds[(1,)](torch.zeros(4), BLOCK=4)
    (k,) = prof.kernels
    assert k.duration_ns is not None and k.errors == []


def test_prof_record_of_the_builder_without_a_session_does_nothing():
    b = InterpreterBuilder(Memory(), (2, 1, 1), "k")
    b.pid = (1, 0, 0)
    b.prof_record("x", False)  # no session, no launch: nothing to report to, no error
    profiler.start(mode="scopes")
    from tessera.profiler import _session
    launch = _session._active.interpreter_launch("k", (2, 1, 1))
    b.profile_launch = launch
    launch.program_start(b.pid)
    b.prof_record("x", False)
    b.prof_record("x", True)
    _session._active.interpreter_launch_end(launch)
    prof = profiler.stop()
    (k,) = prof.kernels
    ((iv,),) = [t.intervals for p in k.programs for t in p.tracks]
    assert (k.programs[0].pid, iv.name) == ((1, 0, 0), "x")


def test_scope_names_are_checked():
    with pytest.raises(ValueError, match="empty"):
        pl.scope("")
    with pytest.raises(TypeError, match="str"):
        pl.scope(3)
    assert pl.scope(tl.constexpr("load")).name == "load"
