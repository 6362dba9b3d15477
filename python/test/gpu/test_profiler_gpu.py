"""GPU tests of tessera.profiler (marked `gpu`): kernel times from CUDA events, intra-kernel scopes
recorded per warp into the profile buffer and decoded, the trace's tracks, recompilation when
instrumentation is switched, ring overflow, streams, the time metric and the saved trace."""

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
import tessera.profiler as profiler  # noqa: E402
import tessera.profiler.language as pl  # noqa: E402

from . import ROOT, gpu_marks  # noqa: E402

pytestmark = gpu_marks()

N, BLOCK, GRID, WARPS, STEPS = 4096, 512, 8, 4, 4


@tessera.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@tessera.jit
def scoped(x, y, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    with pl.scope("load"):
        v = tl.load(x + offs, mask=offs < n)
    pl.enter_scope("compute")
    for i in range(STEPS):
        with pl.scope("step"):
            v = v * 1.5 + 1.0
    pl.exit_scope("compute")
    with pl.scope("store"):
        tl.store(y + offs, v, mask=offs < n)


def reference(x, steps):
    v = x.clone()
    for _ in range(steps):
        v = v * 1.5 + 1.0
    return v


def run_scoped(steps=STEPS, grid=GRID, **kw):
    x = torch.rand(N, device="cuda")
    y = torch.zeros_like(x)
    k = scoped[(grid,)](x, y, N, STEPS=steps, BLOCK=BLOCK, num_warps=WARPS, **kw)
    torch.testing.assert_close(y[:grid * BLOCK], reference(x, steps)[:grid * BLOCK])
    return k


def thread_names(obj):
    return [e["args"]["name"] for e in obj["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"]


def test_kernels_mode_times_every_launch():
    x = torch.rand(N, device="cuda")
    y = torch.rand_like(x)
    z = torch.empty_like(x)
    add[(N // BLOCK,)](x, y, z, N, BLOCK=BLOCK)  # compiled outside the session
    with profiler.profile(mode="kernels") as prof:
        with profiler.scope("step"):
            for _ in range(3):
                k = add[(N // BLOCK,)](x, y, z, N, BLOCK=BLOCK)
    torch.testing.assert_close(z, x + y)
    assert k.metadata.get("profile") is None  # no instrumentation in this mode
    assert [(l.name, l.grid, l.source, l.device, l.host_path) for l in prof.kernels] == \
        [("add", (N // BLOCK, 1, 1), "device", 0, ("step",))] * 3
    starts = [l.start_ns for l in prof.kernels]
    assert all(0 < l.duration_ns < 50e6 for l in prof.kernels)  # positive, well under 50 ms
    assert starts == sorted(starts) and all(l.programs == [] for l in prof.kernels)
    obj = prof.trace()
    profiler.validate_trace(obj)
    assert any(name.startswith("device 0 ") for name in thread_names(obj))
    assert "add [kernel]" in prof.summary()


def test_scopes_mode_records_every_warp_of_every_program():
    with profiler.profile(mode="scopes") as prof:
        k = run_scoped()
    md = k.metadata["profile"]
    assert md["num_warps"] == WARPS and [s["name"] for s in md["scopes"]] == ["load", "compute", "step", "store"]
    (launch,) = prof.kernels
    assert launch.errors == [] and launch.dropped == 0 and launch.source == "device"
    assert sorted(p.pid for p in launch.programs) == [(i, 0, 0) for i in range(GRID)]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for p in launch.programs:
        assert p.error is None and p.calibrated and p.duration_ns > 0 and 0 <= p.smid < sms
        assert len(p.tracks) == WARPS
        for t in p.tracks:
            assert (t.unmatched_starts, t.unmatched_ends, t.dropped) == (0, 0, 0)
            assert [iv.path for iv in t.intervals] == [("load",), ("compute",)] + [("compute", "step")] * STEPS + \
                [("store",)]
            for iv in t.intervals:  # inside the program (a warp may start before thread 0 reads the clock)
                assert iv.duration_ns >= 0 and p.start_ns - 2000 <= iv.start_ns and iv.end_ns <= p.end_ns + 2000
    totals = prof.scope_totals()
    assert {n: (e["calls"], e["warps"]) for n, e in totals.items()} == {
        "load": (GRID * WARPS, GRID * WARPS), "compute": (GRID * WARPS, GRID * WARPS),
        "step": (GRID * WARPS * STEPS, GRID * WARPS), "store": (GRID * WARPS, GRID * WARPS)}
    mean_program = sum(p.duration_ns for p in launch.programs) / GRID
    for e in totals.values():
        assert 0 < e["avg_ns_per_warp"] <= mean_program + 2000 and e["total_cycles"] > 0
    # nested time fits in its parent
    assert totals["step"]["avg_ns_per_warp"] <= totals["compute"]["avg_ns_per_warp"]

    obj = prof.trace()
    profiler.validate_trace(obj)
    names = thread_names(obj)
    assert {f"program ({i},0,0) warp {w}" for i in range(GRID) for w in range(WARPS)} <= set(names)
    kernel_event = next(e for e in obj["traceEvents"] if e.get("cat") == "kernel")
    scope_events = [e for e in obj["traceEvents"] if e.get("cat") == "scope"]
    assert len(scope_events) == GRID * WARPS * (3 + STEPS)
    # records are placed from the launch's earliest program start: the first scope begins when
    # the kernel does or shortly after (a program records after its entry), in µs
    first = min(e["ts"] for e in scope_events)
    assert kernel_event["ts"] - 1e-3 <= first <= kernel_event["ts"] + 5
    text = prof.summary()
    assert "scoped [kernel]" in text and "step" in text and ("ns/warp" in text or "us/warp" in text)


def test_switching_instrumentation_recompiles():
    assert run_scoped().metadata.get("profile") is None
    with profiler.profile(mode="scopes"):
        assert run_scoped().metadata.get("profile") is not None
    assert run_scoped().metadata.get("profile") is None


def test_a_full_ring_drops_records_without_failing():
    with profiler.profile(mode="scopes") as prof:
        k = run_scoped(steps=2000, grid=2)
    capacity = k.metadata["profile"]["records_per_warp"]
    assert 2 * 2000 + 6 > capacity  # the loop writes more records than a ring holds
    (launch,) = prof.kernels
    assert launch.errors == [] and launch.dropped == 2 * WARPS * (2 * 2000 + 6 - capacity)
    for p in launch.programs:
        for t in p.tracks:
            assert t.count == 2 * 2000 + 6 and len(t.intervals) >= capacity // 2 - 2
    assert "records dropped" in prof.summary()
    profiler.validate_trace(prof.trace())


def test_launches_on_another_stream_get_their_track():
    s = torch.cuda.Stream()
    x = torch.rand(N, device="cuda")
    y = torch.rand_like(x)
    z = torch.empty_like(x)
    torch.cuda.synchronize()
    with profiler.profile(mode="kernels") as prof:
        with torch.cuda.stream(s):
            add[(N // BLOCK,)](x, y, z, N, BLOCK=BLOCK)
    s.synchronize()
    torch.testing.assert_close(z, x + y)
    (launch,) = prof.kernels
    assert launch.stream == s.cuda_stream and launch.duration_ns > 0
    assert f"device 0 stream {s.cuda_stream:#x}" in thread_names(prof.trace())


def test_metric_time(monkeypatch):
    monkeypatch.setenv("TESSERA_PROFILE_METRIC", "time")
    with profiler.profile(mode="scopes") as prof:
        k = run_scoped()
    assert k.metadata["profile"]["metric"] == "time"
    (launch,) = prof.kernels
    ivs = [iv for p in launch.programs for t in p.tracks for iv in t.intervals]
    assert len(ivs) == GRID * WARPS * (3 + STEPS) and all(iv.cycles is None and iv.duration_ns >= 0 for iv in ivs)


def test_the_saved_trace_and_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    profiler.start("gpu_profile", mode="scopes")
    with profiler.scope("step"):
        run_scoped()
    prof = profiler.stop()
    with open(tmp_path / "gpu_profile.json") as f:
        profiler.validate_trace(json.load(f))
    r = subprocess.run([sys.executable, "-m", "tessera.profiler", "show", "gpu_profile.json"], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == prof.summary() and "scoped [kernel]" in r.stdout
