"""The session API: start/stop/profile errors, instrumenting() and the JIT caches it invalidates,
host scopes, the launch observer's begin/end (on the CPU: host timing, a host buffer standing in
for the device one), record_launch, threads."""

import ctypes
import json
import threading
import time

import numpy as np
import pytest

import tessera
import tessera.language as tl
import tessera.profiler as profiler
from tessera.profiler import _session, decode

from . import synthetic as syn


@tessera.jit
def copy_kernel(x, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs))


class FakeKernel:
    """What the launcher hands begin(): a CompiledKernel-like object with metadata."""

    def __init__(self, name, profile=None):
        self.metadata = {"name": name}
        if profile is not None:
            self.metadata["profile"] = profile


def test_bad_mode_lists_the_modes():
    with pytest.raises(ValueError, match="'scopes', 'kernels'"):
        profiler.start(mode="scope")
    assert not profiler.is_active()


def test_start_while_active_names_the_session_and_stop_without_start_fails():
    profiler.start(mode="kernels")
    try:
        with pytest.raises(RuntimeError, match="already active"):
            profiler.start("second")
    finally:
        profiler.stop()
    with pytest.raises(RuntimeError, match="no profiling session is active"):
        profiler.stop()


def test_the_active_session_is_named_in_the_error(tmp_path):
    profiler.start("alpha", path=str(tmp_path / "a.json"))
    try:
        with pytest.raises(RuntimeError, match="'alpha', mode 'scopes'"):
            profiler.start()
    finally:
        profiler.stop()


def test_bad_names_and_paths():
    with pytest.raises(TypeError, match="must be a str, got int"):
        profiler.start(name=3)
    with pytest.raises(ValueError, match="must not be empty"):
        profiler.start(name="")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        profiler.start(path="/nonexistent-folder-of-tessera/x.json")
    assert not profiler.is_active()


def test_instrumenting_follows_the_session_mode_and_the_environment(monkeypatch):
    assert profiler.instrumenting() is False
    profiler.start(mode="kernels")
    assert profiler.is_active() and profiler.instrumenting() is False
    profiler.stop()
    profiler.start(mode="scopes")
    assert profiler.instrumenting() is True
    profiler.stop()
    assert profiler.instrumenting() is False
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")
    assert profiler.instrumenting() is True
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "0")
    assert profiler.instrumenting() is False


def test_switching_instrumentation_clears_the_jit_caches(monkeypatch):
    sentinel = object()
    copy_kernel.cache["key"] = sentinel
    profiler.start(mode="kernels")  # instrumenting() stays False: kernels stay
    assert copy_kernel.cache.get("key") is sentinel
    profiler.stop()
    assert copy_kernel.cache.get("key") is sentinel
    profiler.start(mode="scopes")   # False -> True
    assert "key" not in copy_kernel.cache
    copy_kernel.cache["key"] = sentinel
    profiler.stop()                 # True -> False
    assert "key" not in copy_kernel.cache
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")
    copy_kernel.cache["key"] = sentinel
    profiler.start(mode="scopes")   # True already (environment): nothing to recompile
    profiler.stop()
    assert copy_kernel.cache.get("key") is sentinel
    copy_kernel.cache.clear()


def test_profile_context_manager_writes_the_trace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with profiler.profile("ctx", mode="kernels") as prof:
        assert profiler.is_active() and not prof.complete
        with pytest.raises(RuntimeError, match="still being recorded"):
            prof.summary()
        with profiler.scope("work"):
            pass
    assert not profiler.is_active() and prof.complete
    assert prof.name == "ctx" and prof.mode == "kernels"
    assert [h.name for h in prof.host_scopes] == ["work"]
    with open(tmp_path / "ctx.json") as f:
        saved = json.load(f)
    assert profiler.validate_trace(saved) == len(saved["traceEvents"])
    assert saved["otherData"]["tessera"]["name"] == "ctx"


def test_profile_context_manager_stops_when_the_block_raises():
    with pytest.raises(KeyError):
        with profiler.profile(mode="scopes"):
            raise KeyError("boom")
    assert not profiler.is_active()


def test_stop_inside_the_block_is_allowed():
    with profiler.profile() as prof:
        early = profiler.stop()
    assert early is prof and prof.complete


def test_host_scopes_nest_and_work_as_decorators():
    @profiler.scope("decorated")
    def work():
        time.sleep(0.001)
        return 7

    with profiler.scope("before-session"):
        pass  # no session: nothing recorded, no error
    profiler.start()
    with profiler.scope("outer"):
        with profiler.scope("inner"):
            assert work() == 7
        with profiler.scope("inner"):
            pass
    prof = profiler.stop()
    got = [(h.name, h.path) for h in prof.host_scopes]
    assert got == [("outer", ("outer",)), ("inner", ("outer", "inner")), ("decorated", ("outer", "inner", "decorated")),
                   ("inner", ("outer", "inner"))]
    outer, inner, deco, _ = prof.host_scopes
    assert deco.duration_ns >= 1_000_000 and inner.start_ns <= deco.start_ns and deco.end_ns <= inner.end_ns
    assert outer.start_ns >= 0 and outer.end_ns <= prof.duration_ns
    with pytest.raises(ValueError, match="empty"):
        profiler.scope("")
    with pytest.raises(TypeError, match="str"):
        profiler.scope(None)


def test_scope_left_after_stop_is_not_recorded():
    profiler.start()
    s = profiler.scope("straddles")
    s.__enter__()
    prof = profiler.stop()
    s.__exit__(None, None, None)
    assert prof.host_scopes == []


def _active_session():
    return _session._active


def test_observer_begin_end_without_cuda_times_the_host_call():
    profiler.start(mode="kernels")
    session = _active_session()
    with profiler.scope("step"):
        state, address = session.begin(FakeKernel("add"), (4, 1, 1), 0, 0, 0)
        assert address == 0
        time.sleep(0.002)
        session.end(state)
    prof = profiler.stop()
    (k,) = prof.kernels
    assert (k.name, k.grid, k.stream, k.device, k.host_path) == ("add", (4, 1, 1), 0, 0, ("step",))
    if k.source == "host":  # no CUDA here: the host time of the launch call
        assert k.duration_ns >= 2_000_000 and k.start_ns == k.host_start_ns
    assert k.programs == [] and k.errors == []
    with pytest.raises(TypeError, match="state begin"):
        session.end("nonsense")


def test_observer_rejects_inconsistent_profile_requests():
    md = syn.meta(["a"], num_warps=1, records_per_warp=4)
    profiler.start()
    session = _active_session()
    try:
        with pytest.raises(RuntimeError, match="no 'profile' entry"):
            session.begin(FakeKernel("k"), (2, 1, 1), 0, 0, 128)
        with pytest.raises(ValueError, match="grid size"):
            session.begin(FakeKernel("k", md), (2, 1, 1), 0, 0, md["bytes_per_program"] * 3)
        if session._device is None:
            with pytest.raises(RuntimeError, match="PyTorch has no device of the launch backend"):
                session.begin(FakeKernel("k", md), (2, 1, 1), 0, 0, md["bytes_per_program"] * 2)
    finally:
        profiler.stop()


def test_observer_buffer_is_decoded_at_stop(monkeypatch):
    """begin() hands out a buffer; the 'kernel' writes its records at the address; stop() decodes."""
    def host_allocate(self, nbytes, device):
        buf = np.zeros(nbytes, dtype=np.uint8)
        return buf, buf.ctypes.data

    monkeypatch.setattr(_session.Session, "_allocate", host_allocate)
    md = syn.meta(["load", "store"], num_warps=2, records_per_warp=8)
    ev = syn.script(["load", "store"], [("load", "start", 0), ("load", "end", 40), ("store", "start", 40),
                                        ("store", "end", 50)])
    data = b"".join(syn.program(md, [ev, ev], start_ns=10_000 + 100 * i, end_ns=10_100 + 100 * i, start_clock=0,
                                end_clock=100) for i in range(3))
    profiler.start(mode="scopes")
    session = _active_session()
    state, address = session.begin(FakeKernel("k", md), (3, 1, 1), 0, 0, len(data))
    assert address != 0
    ctypes.memmove(address, data, len(data))  # what the kernel does on the GPU
    session.end(state)
    prof = profiler.stop()
    (k,) = prof.kernels
    assert k.errors == [] and [p.pid for p in k.programs] == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    assert k.base_ns == 10_000
    totals = prof.scope_totals()
    assert totals["load"]["calls"] == 6 and totals["load"]["avg_ns_per_warp"] == pytest.approx(40)
    assert totals["store"]["total_cycles"] == 60


def test_record_launch_needs_a_session_and_decodes_its_buffer():
    md, data = syn.matmul_like(grid=(2, 1, 1), num_warps=2, iterations=1)
    assert profiler.record_launch("mm", (2,), 0, 10) is False
    profiler.start()
    t = time.perf_counter_ns()
    assert profiler.record_launch("mm", (2,), t, t + 5000, profile=md, buffer=data) is True
    with pytest.raises(ValueError, match="metadata"):
        profiler.record_launch("mm", (2,), t, t + 5000, buffer=data)
    with pytest.raises(ValueError, match="perf_counter_ns"):
        profiler.record_launch("mm", (2,), 0, 10)  # before the session started
    with pytest.raises(ValueError, match="in order"):
        profiler.record_launch("mm", (2,), t + 10, t)
    bad = syn.meta(["x"], num_warps=2, records_per_warp=64)
    profiler.record_launch("short", (2,), t, t + 5000, profile=bad, buffer=data[:100])
    prof = profiler.stop()
    mm, short = prof.kernels
    assert mm.grid == (2, 1, 1) and mm.source == "host" and mm.duration_ns == 5000 and len(mm.programs) == 2
    assert short.programs == [] and "not decoded" in short.errors[0]
    assert "error: short (launch 1): profile buffer not decoded" in prof.summary()


def test_launches_from_several_threads_are_all_recorded():
    profiler.start(mode="kernels")
    session = _active_session()
    names = [f"k{i}" for i in range(8)]

    def launch(name):
        with profiler.scope(f"thread-{name}"):
            for _ in range(25):
                state, _ = session.begin(FakeKernel(name), (1, 1, 1), 0, 0, 0)
                session.end(state)

    threads = [threading.Thread(target=launch, args=(n,)) for n in names]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    prof = profiler.stop()
    assert len(prof.kernels) == 200
    assert sorted({k.name for k in prof.kernels}) == sorted(names)
    assert all(k.host_path == (f"thread-{k.name}",) for k in prof.kernels)
    assert len({h.thread_name for h in prof.host_scopes}) == 8
    assert [k.index for k in prof.kernels] == list(range(200))


def test_the_native_launcher_gets_the_session_as_observer(monkeypatch):
    """start() hands the session to tessera._C.set_launch_observer (when the build has it) and
    stop() takes it back."""
    from tessera import _core
    if _core._C is None or not hasattr(_core._C, "set_launch_observer"):
        pytest.skip("this build of the native core has no set_launch_observer")
    calls = []
    real = _core._C.set_launch_observer
    monkeypatch.setattr(_core._C, "set_launch_observer", lambda obj: (calls.append(obj), real(obj)))
    profiler.start(mode="kernels")
    session = _active_session()
    profiler.stop()
    assert calls == [session, None]


class FakeEvent:
    """A timing event of FakeBackend: record() reads its clock (ms), elapsed_time in ms."""

    def __init__(self, clock):
        self.clock, self.t, self.stream = clock, None, None

    def record(self, stream=None):
        self.t, self.stream = self.clock.tick(), stream

    def elapsed_time(self, end):
        return end.t - self.t


class FakeClock:
    def __init__(self, step_ms):
        self.now, self.step = 0.0, step_ms

    def tick(self):
        self.now += self.step
        return self.now


class FakeBackend:
    """A launch backend whose devices PyTorch calls 'fakegpu'."""

    def __init__(self):
        self.clock = FakeClock(0.25)
        self.synchronized = []

    def can_launch(self):
        return True

    def torch_device_type(self):
        return "fakegpu"

    def timing_event(self):
        return FakeEvent(self.clock)

    def synchronize(self, device=None):
        self.synchronized.append(device)


class FakeDeviceModule:
    """torch.fakegpu: streams by raw handle, a current stream per device."""

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def ExternalStream(handle, device=None):  # noqa: N802 (torch's name)
        return ("external", handle, device)

    @staticmethod
    def current_stream(device=None):
        return ("current", device)


def test_device_launches_use_the_launch_backend_events_streams_and_memory(monkeypatch):
    """The device path with a stand-in backend and torch module: events recorded on the launch's
    stream (ExternalStream for a raw handle, torch's current stream for 0), every device used
    synchronized at stop, kernel times from the events, buffers from the device."""
    import torch
    backend = FakeBackend()
    monkeypatch.setitem(_session._runtime, "launch_backend", lambda: backend)
    monkeypatch.setattr(torch, "fakegpu", FakeDeviceModule, raising=False)
    allocations = []

    def device_buffer(self, nbytes, device):
        allocations.append((self.kind, nbytes, device))
        return torch.zeros(nbytes, dtype=torch.uint8)

    monkeypatch.setattr(_session._Device, "buffer", device_buffer)
    md = syn.meta(["s"], num_warps=1, records_per_warp=4)
    ev = syn.script(["s"], [("s", "start", 0), ("s", "end", 8)])
    data = syn.program(md, [ev], start_ns=100, end_ns=110, start_clock=0, end_clock=10)
    profiler.start(mode="scopes")
    session = _active_session()
    a, address = session.begin(FakeKernel("k", md), (1, 1, 1), 0x1234, 1, len(data))
    ctypes.memmove(address, data, len(data))
    session.end(a)
    b, zero = session.begin(FakeKernel("plain"), (2, 1, 1), 0, 1, 0)
    session.end(b)
    c, _ = session.begin(FakeKernel("plain"), (2, 1, 1), 0, 0, 0)
    session.end(c)
    prof = profiler.stop()
    assert zero == 0 and allocations == [("fakegpu", len(data), 1)]
    assert a.start_event.stream == a.end_event.stream == ("external", 0x1234, 1)
    assert b.start_event.stream == ("current", 1) and c.start_event.stream == ("current", 0)
    assert backend.synchronized == [0, 1]
    k, p1, p0 = prof.kernels
    assert [x.source for x in prof.kernels] == ["device"] * 3
    # events 0.25 ms apart: start, end of each launch in turn
    assert k.duration_ns == p1.duration_ns == p0.duration_ns == pytest.approx(0.25e6)
    assert p1.start_ns - k.start_ns == pytest.approx(0.5e6)  # same device: placed by the events
    assert k.start_ns == k.host_start_ns and p0.start_ns == p0.host_start_ns  # first launch of its device
    assert [iv.duration_ns for p in k.programs for t in p.tracks for iv in t.intervals] == [8]
    names = [e["args"]["name"] for e in prof.trace()["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"]
    assert "device 1 stream 0x1234" in names and "device 1 default stream" in names


def test_without_a_launch_backend_launches_are_host_timed(monkeypatch):
    monkeypatch.setitem(_session._runtime, "launch_backend", lambda: None)
    profiler.start(mode="kernels")
    session = _active_session()
    assert session._device is None
    state, _ = session.begin(FakeKernel("k"), (1, 1, 1), 0, 0, 0)
    session.end(state)
    (k,) = profiler.stop().kernels
    assert k.source == "host" and k.duration_ns == k.host_end_ns - k.host_start_ns


def test_a_device_buffer_is_copied_in_parts_and_decodes_like_its_bytes():
    """_launch_records on a tensor copies headers and the ring slots in use only; the result is
    what the whole buffer decodes to, unwritten slices included."""
    import torch
    md = syn.meta(["a", "b"], num_warps=2, records_per_warp=16)
    ev = syn.script(["a", "b"], [("a", "start", 0), ("b", "start", 2), ("b", "end", 5), ("a", "end", 9)])
    good = syn.program(md, [ev, ev[:1]], start_ns=50, end_ns=60, start_clock=0, end_clock=10)
    data = good + bytes([0x33]) * md["bytes_per_program"] + good
    tensor = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    records = _session._launch_records(tensor, md, (3, 1, 1))
    assert records._rings.shape == (3, 2, 4 * 8)  # 4 of 16 slots
    assert records.programs() == decode.decode_buffer(data, md, (3, 1, 1))
    assert [i for i, _ in records.errors()] == [1]
    with pytest.raises(ValueError, match="less than grid size"):
        _session._launch_records(tensor[:10], md, (3, 1, 1))
