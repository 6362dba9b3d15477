"""The Trace Event JSON of a profile (tessera.profiler.trace) and validate_trace's rules, with
traces that break each rule."""

import copy
import json
import math
import time

import pytest

import tessera.profiler as profiler
from tessera.profiler import trace as tr

from . import synthetic as syn
from ._profiles import SCOPES, sample_profile


def processes(obj):
    return {e["pid"]: e["args"]["name"] for e in obj["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}


def threads(obj, pid):
    return {e["tid"]: e["args"]["name"] for e in obj["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid}


def xs(obj, pid=None, tid=None):
    return [e for e in obj["traceEvents"] if e["ph"] == "X" and (pid is None or e["pid"] == pid)
            and (tid is None or e["tid"] == tid)]


def test_trace_layout():
    prof = sample_profile()
    obj = prof.trace()
    assert profiler.validate_trace(obj) == len(obj["traceEvents"])
    assert obj["displayTimeUnit"] == "ns"
    procs = processes(obj)
    assert procs == {1: "host", 2: "GPU", 3: "matmul (launch 0)", 4: "matmul (launch 1)"}
    assert list(threads(obj, 1).values()) == ["thread MainThread"]
    assert list(threads(obj, 2).values()) == ["host default stream (host time)"]
    assert list(threads(obj, 3).values()) == ["program (0,0,0) warp 0", "program (0,0,0) warp 1",
                                              "program (1,0,0) warp 0", "program (1,0,0) warp 1"]
    kernels = xs(obj, 2)
    assert [(e["name"], e["dur"]) for e in kernels] == [("matmul", 10.0), ("matmul", 10.0), ("copy", 4.0)]
    assert kernels[0]["args"] == {"grid": [2, 1, 1]} and kernels[2]["args"] == {"grid": [8, 1, 1]}
    (step,) = xs(obj, 1)
    assert step["name"] == "step" and step["dur"] > 0 and "args" not in step
    # scopes carry no args (speedscope would make them part of the name)
    assert all("args" not in e for e in xs(obj, 3))


def test_intra_kernel_events_start_at_the_kernel_event():
    obj = sample_profile().trace()
    launch0 = xs(obj, 2)[0]
    events = xs(obj, 3)
    # the earliest program (program 0, at device time 50_000) starts where the kernel starts
    first = min(e["ts"] for e in events)
    assert first == pytest.approx(launch0["ts"])
    warp0 = sorted(xs(obj, 3, tid=1), key=lambda e: e["ts"])
    rel = [(e["name"], round((e["ts"] - launch0["ts"]) * 1000), round(e["dur"] * 1000)) for e in warp0]
    assert rel == [("load", 0, 100), ("dot", 100, 600), ("inner", 200, 100), ("inner", 400, 100)]
    # program 1 started 10 ns after program 0
    p1w1 = sorted(xs(obj, 3, tid=4), key=lambda e: e["ts"])
    assert round((p1w1[0]["ts"] - launch0["ts"]) * 1000) == 10


def test_max_programs_limits_the_tracks_not_the_summary():
    prof = sample_profile()
    obj = prof.trace(max_programs=1)
    profiler.validate_trace(obj)
    assert list(threads(obj, 3).values()) == ["program (0,0,0) warp 0", "program (0,0,0) warp 1"]
    other = obj["otherData"]["tessera"]
    assert other["omitted_programs"] == {"0": 1, "1": 1} and other["max_programs"] == 1
    assert other["tree"] == prof.tree()  # the summary keeps every program
    with pytest.raises(ValueError, match="max_programs"):
        prof.trace(max_programs=-1)


def test_interleaved_scopes_go_to_an_extra_track():
    md = syn.meta(SCOPES, num_warps=1)
    ev = syn.script(SCOPES, [("load", "start", 0), ("dot", "start", 10), ("load", "end", 20), ("dot", "end", 50)])
    profiler.start()
    t = time.perf_counter_ns()
    profiler.record_launch("k", (1,), t, t + 100, profile=md, buffer=syn.program(md, [ev], start_ns=0, end_ns=60,
                                                                              start_clock=0, end_clock=60))
    obj = profiler.stop().trace()
    profiler.validate_trace(obj)
    assert list(threads(obj, 3).values()) == ["program (0,0,0) warp 0", "program (0,0,0) warp 0 [2]"]
    assert [e["name"] for e in xs(obj, 3, tid=1)] == ["load"] and [e["name"] for e in xs(obj, 3, tid=2)] == ["dot"]


def test_assign_lanes():
    assert tr.assign_lanes([(0, 10), (1, 5), (5, 9), (10, 12)]) == [0, 0, 0, 0]
    assert tr.assign_lanes([(0, 10), (5, 15), (6, 7), (12, 20)]) == [0, 1, 0, 0]
    assert tr.assign_lanes([(0, 10), (5, 15), (11, 20)]) == [0, 1, 0]
    assert tr.assign_lanes([]) == []


def test_saved_trace_round_trips(tmp_path):
    path = tmp_path / "saved.json"
    prof = sample_profile("saved", path=str(path))  # stop() wrote it
    with open(path) as f:
        obj = json.load(f)
    assert profiler.validate_trace(obj) > 0
    assert obj == json.loads(json.dumps(prof.trace()))
    other = tmp_path / "other.json"
    assert prof.save(str(other)) == str(other) and json.load(open(other)) == obj


def test_save_without_a_path():
    profiler.start()
    prof = profiler.stop()
    with pytest.raises(ValueError, match="needs a path"):
        prof.save()


# ------------------------------------------------------------------ the validator's rules


def good():
    return {"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "t"}},
        {"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 1, "args": {"sort_index": 3}},
        {"ph": "X", "name": "outer", "ts": 0, "dur": 10, "pid": 1, "tid": 1},
        {"ph": "X", "name": "inner", "ts": 2.5, "dur": 7.5, "pid": 1, "tid": 1, "args": {"k": 1}},
        {"ph": "X", "name": "later", "ts": 10, "dur": 0, "pid": 1, "tid": 1},
        {"ph": "X", "name": "other thread overlaps", "ts": 5, "dur": 10, "pid": 1, "tid": 2},
        {"ph": "B", "name": "b", "ts": 1, "pid": 2, "tid": 1},
        {"ph": "B", "name": "c", "ts": 2, "pid": 2, "tid": 1},
        {"ph": "E", "ts": 3, "pid": 2, "tid": 1},
        {"ph": "E", "name": "b", "ts": 4, "pid": 2, "tid": 1},
        {"ph": "i", "name": "mark", "ts": 1, "pid": 1, "tid": 1, "s": "t"},
        {"ph": "i", "name": "global mark", "ts": 1, "pid": 1, "s": "g"},
        {"ph": "C", "name": "counter", "ts": 1, "pid": 1, "args": {"bytes": 12}},
    ], "displayTimeUnit": "ms", "otherData": {}}


def test_valid_traces():
    assert profiler.validate_trace(good()) == 14
    assert profiler.validate_trace(good()["traceEvents"]) == 14  # the bare array form
    assert profiler.validate_trace({"traceEvents": []}) == 0


def broken(index, **changes):
    obj = copy.deepcopy(good())
    if index is None:
        obj.update(changes)
        return obj
    ev = obj["traceEvents"][index]
    for k, v in changes.items():
        if v is _DELETE:
            del ev[k]
        else:
            ev[k] = v
    return obj


_DELETE = object()

BROKEN = [
    ("no traceEvents", lambda: {"events": []}, "needs a 'traceEvents' list"),
    ("traceEvents not a list", lambda: {"traceEvents": {}}, "must be a list"),
    ("not an object", lambda: "trace", "JSON object or array"),
    ("bad display unit", lambda: broken(None, displayTimeUnit="us"), "displayTimeUnit"),
    ("otherData not an object", lambda: broken(None, otherData=[]), "otherData"),
    ("event not an object", lambda: {"traceEvents": [3]}, "is not an object"),
    ("unknown phase", lambda: broken(3, ph="Q"), "unknown or missing phase"),
    ("missing phase", lambda: broken(3, ph=_DELETE), "unknown or missing phase"),
    ("X without dur", lambda: broken(3, dur=_DELETE), "'dur' must be"),
    ("negative dur", lambda: broken(3, dur=-1), "'dur' must be"),
    ("negative ts", lambda: broken(3, ts=-0.5), "'ts' must be"),
    ("NaN ts", lambda: broken(3, ts=math.nan), "'ts' must be"),
    ("string ts", lambda: broken(3, ts="0"), "'ts' must be"),
    ("bool ts", lambda: broken(3, ts=True), "'ts' must be"),
    ("string pid", lambda: broken(3, pid="1"), "'pid' must be an int"),
    ("bool tid", lambda: broken(3, tid=False), "'tid' must be an int"),
    ("float tid", lambda: broken(3, tid=1.0), "'tid' must be an int"),
    ("missing tid", lambda: broken(3, tid=_DELETE), "'tid' must be an int"),
    ("X without name", lambda: broken(3, name=_DELETE), "'name' must be a string"),
    ("args not an object", lambda: broken(4, args=[1]), "'args' must be an object"),
    ("cat not a string", lambda: broken(4, cat=3), "'cat' must be a string"),
    ("overlap without nesting", lambda: broken(4, dur=9), "overlaps 'outer'"),
    ("unknown metadata", lambda: broken(0, name="process_color"), "unknown metadata event"),
    ("thread name not a string", lambda: broken(1, args={"name": 5}), "args.name must be a string"),
    ("sort index not an int", lambda: broken(2, args={"sort_index": "3"}), "args.sort_index must be an int"),
    ("thread metadata without tid", lambda: broken(1, tid=_DELETE), "'tid' must be an int"),
    ("E without B", lambda: broken(7, ph="E"), "closes no B event"),
    ("B never closed", lambda: broken(10, ph="B", name="d"), "never closed"),
    ("E of another name", lambda: broken(10, name="zz"), "closes B event 'b'"),
    ("instant scope", lambda: broken(11, s="x"), "instant scope"),
    ("counter without numbers", lambda: broken(13, args={"bytes": "12"}), "counter needs args"),
]


@pytest.mark.parametrize("why,make,message", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_traces_are_rejected(why, make, message):
    with pytest.raises(ValueError, match=message):
        profiler.validate_trace(make())


def test_a_broken_profile_trace_is_caught():
    """A trace of the profiler whose kernel event got a negative duration, or whose scope was
    moved to overlap its neighbour, fails validation."""
    obj = sample_profile().trace()
    bad = copy.deepcopy(obj)
    next(e for e in bad["traceEvents"] if e.get("cat") == "kernel")["dur"] = -1.0
    with pytest.raises(ValueError, match="'dur'"):
        profiler.validate_trace(bad)
    bad = copy.deepcopy(obj)
    inner = [e for e in bad["traceEvents"] if e.get("name") == "inner" and e["pid"] == 3 and e["tid"] == 1]
    inner[0]["dur"] += 0.5  # now runs past the end of "dot"
    with pytest.raises(ValueError, match="overlaps 'dot'"):
        profiler.validate_trace(bad)
