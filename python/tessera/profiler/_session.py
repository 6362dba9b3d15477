"""The profiling session: its state, the launch observer the C++ launcher calls, the interpreter's
sink, host scopes, and turning what was recorded into a Profile at stop().

Imports: tessera._core (the launcher's observer hook) and tessera.interpreter.hooks (where the
interpreter finds the session), both below this package, which the backends read
(instrumenting() is part of the compile key). The runtime, above it, hands it what it needs from
there with install_runtime: how to drop compiled kernels, and the launch backend, whose timing
events, synchronization and torch device type time launches and hold profile buffers (no vendor
is named here). torch is imported when a session starts."""

import functools
import os
import threading
import time

from . import decode
from .data import HostScope, KernelLaunch, Profile

MODES = ("scopes", "kernels")
SCOPES_ENV = "TESSERA_PROFILE_SCOPES"

_lock = threading.RLock()   # guards _active and the switch of observers
_active = None              # the running Session
_local = threading.local()  # per thread: the host scope stack (names) and its open entries


def _env_scopes():
    return os.environ.get(SCOPES_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def instrumenting():
    """True when kernels compiled now get scope instrumentation: a session of mode "scopes" is
    active, or TESSERA_PROFILE_SCOPES=1 is set (for compile-only use without a session)."""
    if _env_scopes():
        return True
    s = _active
    return s is not None and s.mode == "scopes"


def is_active():
    """True while a profiling session is running."""
    return _active is not None


def _host_stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
        _local.open = []
    return stack


# ------------------------------------------------------------------ raw launches


class _DeviceLaunch:
    """A launch seen by the observer (begin .. end), or reported with record_launch."""

    __slots__ = ("name", "grid", "stream", "device", "profile", "buffer", "start_event", "end_event",
                 "event_stream", "host_start", "host_end", "host_path", "thread", "source")

    def __init__(self, name, grid, stream, device, profile, source):
        self.name, self.grid, self.stream, self.device = name, grid, stream, device
        self.profile, self.source = profile, source
        self.buffer = self.start_event = self.end_event = self.event_stream = None
        self.host_start = self.host_end = None
        self.host_path = tuple(_host_stack())
        self.thread = threading.get_ident()


class _InterpreterLaunch:
    """A launch run by the interpreter: program spans and (when `scopes`) scope records, host ns."""

    __slots__ = ("name", "grid", "scopes", "host_start", "host_end", "host_path", "thread", "records", "spans",
                 "_pid")

    def __init__(self, name, grid, scopes):
        self.name, self.grid, self.scopes = name, tuple(grid), scopes
        self.host_path = tuple(_host_stack())
        self.thread = threading.get_ident()
        self.records = {}   # pid -> [(name, is_end, t_ns)]
        self.spans = {}     # pid -> [start_ns, end_ns]
        self._pid = None
        self.host_end = None
        self.host_start = time.perf_counter_ns()

    def program_start(self, pid):
        """The interpreter starts program `pid` (the previous one, if any, has ended)."""
        now = time.perf_counter_ns()
        if self._pid is not None:
            self.spans[self._pid][1] = now
        self.spans[pid] = [now, now]
        self._pid = pid

    def scope(self, pid, name, is_end):
        """A scope record of program `pid` (tessera.profiler.language in the interpreter); kept when
        scopes are instrumented (as compiled kernels record them only then)."""
        if self.scopes:
            self.records.setdefault(tuple(pid), []).append((name, bool(is_end), time.perf_counter_ns()))

    def finish(self):
        now = time.perf_counter_ns()
        if self._pid is not None:
            self.spans[self._pid][1] = now
            self._pid = None
        self.host_end = now


class Session:
    """One profiling session. The C++ launcher calls begin/end around each launch (the launch
    observer); the interpreter calls interpreter_launch/interpreter_launch_end and, through the
    launch it got, reports scope records."""

    def __init__(self, name, mode, path):
        self.mode = mode
        self.profile = Profile(name, mode, path)
        self._lock = threading.Lock()
        self._launches = []
        self._host_scopes = []
        self._device = _Device.of_launch_backend()
        self.t0 = time.perf_counter_ns()

    def describe(self):
        name = f"{self.profile.name!r}" if self.profile.name else "unnamed"
        return f"{name}, mode {self.mode!r}"

    # -------------------------------------------------------------- launch observer
    def begin(self, kernel, grid, stream, device, profile_bytes):
        """Called by the launcher before a launch: records its start (an event of the launch
        backend on `stream`, when PyTorch has its devices) and returns (state, address of
        profile_bytes writable device bytes, or 0)."""
        host_start = time.perf_counter_ns()
        meta = getattr(kernel, "metadata", None) or {}
        name = meta.get("name") or getattr(kernel, "name", None) or "kernel"
        grid = tuple(int(g) for g in grid)
        profile_bytes = int(profile_bytes)
        profile = None
        if profile_bytes:
            profile = meta.get("profile")
            if profile is None:
                raise RuntimeError(f"tessera.profiler: the launch of {name} asks for {profile_bytes} profile bytes, "
                                   f"but its metadata has no 'profile' entry to decode them with")
            expected = decode.grid_size(grid) * int(profile.get("bytes_per_program", 0))
            if expected != profile_bytes:
                raise ValueError(f"tessera.profiler: the launch of {name} on grid {grid} asks for {profile_bytes} "
                                 f"profile bytes; grid size × metadata['profile']['bytes_per_program'] is {expected}")
        dev = self._device
        rec = _DeviceLaunch(name, grid, int(stream), int(device), profile, "device" if dev is not None else "host")
        address = 0
        if profile_bytes:
            rec.buffer, address = self._allocate(profile_bytes, rec.device)
        if dev is not None:
            rec.event_stream = dev.stream(rec.stream, rec.device)
            rec.start_event, rec.end_event = dev.event(), dev.event()
            rec.start_event.record(rec.event_stream)
        rec.host_start = host_start
        with self._lock:
            self._launches.append(rec)
        return (rec, address)

    def end(self, state):
        """Called by the launcher after the launch that begin() returned `state` for."""
        if not isinstance(state, _DeviceLaunch):
            raise TypeError(f"tessera.profiler: end() expects the state begin() returned, got {state!r}")
        if state.end_event is not None:
            state.end_event.record(state.event_stream)
        state.host_end = time.perf_counter_ns()

    def _allocate(self, nbytes, device):
        """(buffer kept alive until stop, its device address) for a launch's profile records."""
        if self._device is None:
            raise RuntimeError(f"tessera.profiler: an instrumented kernel needs a {nbytes}-byte profile buffer on "
                               f"device {device}, which the profiler allocates with PyTorch, but PyTorch has no "
                               f"device of the launch backend here")
        buf = self._device.buffer(nbytes, device)
        return buf, buf.data_ptr()

    # -------------------------------------------------------------- other sources
    def record_launch(self, name, grid, start_ns, end_ns, stream=0, device=-1, profile=None, buffer=None,
                      source="host"):
        """A launch timed by its caller (host perf_counter_ns), with its profile buffer's bytes."""
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        if not self.t0 <= int(start_ns) <= int(end_ns):
            raise ValueError(f"record_launch: start_ns {start_ns} and end_ns {end_ns} must be time.perf_counter_ns() "
                             f"values, in order, from after the session started ({self.t0})")
        rec = _DeviceLaunch(str(name), grid, int(stream), int(device), profile, source)
        rec.host_start, rec.host_end = int(start_ns), int(end_ns)
        if buffer is not None:
            if profile is None:
                raise ValueError("record_launch: a profile buffer needs the kernel's metadata['profile'] (profile=)")
            rec.buffer = bytes(buffer)
        with self._lock:
            self._launches.append(rec)
        return rec

    def interpreter_launch(self, name, grid):
        """The interpreter starts running kernel `name` on `grid`; returns the launch to report
        programs and scope records to."""
        launch = _InterpreterLaunch(name, grid, instrumenting())
        with self._lock:
            self._launches.append(launch)
        return launch

    def interpreter_launch_end(self, launch):
        launch.finish()

    def add_host_scope(self, name, path, start, end):
        t = threading.current_thread()
        with self._lock:
            self._host_scopes.append(HostScope(name, path, start - self.t0, end - self.t0, t.ident, t.name))

    # -------------------------------------------------------------- stop
    def finish(self):
        """Decode everything recorded into self.profile (after the GPU has finished)."""
        stop_ns = time.perf_counter_ns()
        with self._lock:
            raw = list(self._launches)
            host = list(self._host_scopes)
        if self._device is not None:
            for device in sorted({r.device for r in raw if isinstance(r, _DeviceLaunch) and r.start_event is not None}):
                self._device.synchronize(device)
        starts = self._event_starts(raw)
        launches = []
        for r in sorted(raw, key=lambda r: r.host_start):
            launches.append(self._launch(len(launches), r, starts))
        prof = self.profile
        prof.kernels = launches
        prof.host_scopes = sorted(host, key=lambda h: (h.start_ns, -h.end_ns))
        prof.duration_ns = stop_ns - self.t0
        prof.complete = True
        return prof

    def _event_starts(self, raw):
        """{id(launch): kernel start in session ns} from CUDA events: per device, the gaps between
        start events, placed so that the device's first launch starts when its host call began."""
        out = {}
        by_device = {}
        for r in raw:
            if isinstance(r, _DeviceLaunch) and r.start_event is not None and r.host_end is not None:
                by_device.setdefault(r.device, []).append(r)
        for rs in by_device.values():
            rs.sort(key=lambda r: r.host_start)
            ref = rs[0]
            offsets = [ref.start_event.elapsed_time(r.start_event) * 1e6 for r in rs]
            shift = min(0.0, min(offsets))
            for r, off in zip(rs, offsets):
                out[id(r)] = (ref.host_start - self.t0) + off - shift
        return out

    def _launch(self, index, r, starts):
        t0 = self.t0
        if isinstance(r, _InterpreterLaunch):
            end = r.host_end if r.host_end is not None else r.host_start
            k = KernelLaunch(index, r.name, r.grid, device=-1, source="interpreter", host_path=r.host_path,
                             thread=r.thread, host_start_ns=r.host_start - t0, host_end_ns=end - t0,
                             start_ns=r.host_start - t0,
                             duration_ns=None if r.host_end is None else r.host_end - r.host_start)
            records = {pid: [(n, e, t - t0) for n, e, t in recs] for pid, recs in r.records.items()}
            spans = {pid: (s - t0, e - t0) for pid, (s, e) in r.spans.items()}
            k.programs = decode.decode_host_records(records, r.grid, spans) if records else []
            k.base_ns = k.host_start_ns
            if r.host_end is None:
                k.errors.append("the launch did not finish (it raised, or stop() ran while it was running)")
            return k
        k = KernelLaunch(index, r.name, r.grid, stream=r.stream, device=r.device, source=r.source,
                         host_path=r.host_path, thread=r.thread, host_start_ns=r.host_start - t0,
                         host_end_ns=None if r.host_end is None else r.host_end - t0, profile=r.profile)
        if r.start_event is not None and r.host_end is not None:
            k.start_ns = starts[id(r)]
            k.duration_ns = r.start_event.elapsed_time(r.end_event) * 1e6
        elif r.host_end is not None:
            k.start_ns, k.duration_ns = k.host_start_ns, k.host_end_ns - k.host_start_ns
        else:
            k.errors.append("the launch did not return before stop() (its end was never reported)")
        if r.buffer is not None:
            try:
                k.records = _launch_records(r.buffer, r.profile, r.grid)
            except ValueError as e:
                k.errors.append(f"profile buffer not decoded: {e}")
            else:
                for i, why in k.records.errors():
                    k.errors.append(f"program {decode.pid_of(i, k.records.grid)}: {why}")
        return k


def _launch_records(buf, profile, grid):
    """A launch's decode.LaunchRecords from its profile buffer. A buffer on the device is copied
    in two parts: the slices' headers and counts, then only the ring slots some warp used (a
    kernel that records a few scopes leaves most of each ring untouched)."""
    if isinstance(buf, (bytes, bytearray, memoryview)) or hasattr(buf, "__array_interface__"):
        return decode.LaunchRecords(buf, profile, grid)
    prof = decode.check_profile(profile)
    n = decode.grid_size(decode._grid3(grid))
    W, C, bpp = prof["num_warps"], prof["records_per_warp"], prof["bytes_per_program"]
    flat = buf.reshape(-1)
    if flat.numel() * flat.element_size() < n * bpp:
        raise ValueError(f"the profile buffer has {flat.numel() * flat.element_size()} bytes, less than grid size "
                         f"{n} × bytes_per_program {bpp} = {n * bpp}")
    import torch
    slices = flat.view(torch.uint8)[:n * bpp].view(n, bpp)
    off = decode.records_offset(W)
    heads = slices[:, :off].cpu().numpy()
    k = decode.slots_in_use(heads, prof)
    rings = slices[:, off:off + W * C * decode.RECORD_BYTES].reshape(n, W, C * decode.RECORD_BYTES)
    rings = rings[:, :, :k * decode.RECORD_BYTES].cpu().numpy()
    return decode.LaunchRecords.from_parts(heads, rings, prof, grid)


class _Device:
    """Kernel timing and profile buffers on the launch backend's devices: the backend's timing
    events and synchronization, torch's module of its device type for streams, torch tensors for
    buffers."""

    def __init__(self, backend, torch):
        self.backend = backend
        self.torch = torch
        self.kind = backend.torch_device_type()
        self.module = getattr(torch, self.kind)
        self._streams = {}

    @classmethod
    def of_launch_backend(cls):
        """The launch backend's devices, or None when kernels cannot be timed on a device here (no
        launch backend, no PyTorch, or PyTorch without such a device)."""
        provider = _runtime.get("launch_backend")
        backend = provider() if provider is not None else None
        if backend is None or not backend.can_launch():
            return None
        try:
            import torch
        except ImportError:
            return None
        module = getattr(torch, backend.torch_device_type(), None)
        if module is None or not module.is_available():
            return None
        return cls(backend, torch)

    def event(self):
        return self.backend.timing_event()

    def stream(self, handle, device):
        """torch's stream object of raw stream `handle` on `device` (0: torch's current stream)."""
        key = (handle, device)
        s = self._streams.get(key)
        if s is None:
            s = self.module.ExternalStream(handle, device=device) if handle else self.module.current_stream(device)
            self._streams[key] = s
        return s

    def synchronize(self, device):
        self.backend.synchronize(device)

    def buffer(self, nbytes, device):
        return self.torch.empty(nbytes, dtype=self.torch.uint8, device=self.torch.device(self.kind, device))


# ------------------------------------------------------------------ start / stop


def _output_path(name, path):
    if name is not None and not isinstance(name, str):
        raise TypeError(f"a profile's name must be a str, got {type(name).__name__}")
    if name == "":
        raise ValueError("a profile's name must not be empty (leave it out for an unnamed profile)")
    if path is None and name is None:
        return None
    out = os.fspath(path) if path is not None else (name if name.endswith(".json") else f"{name}.json")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write the profile to {out}: the folder {folder} does not exist")
    return out


def _set_launch_observer(obj):
    """Hand `obj` (or None) to the C++ launcher, when this build of tessera has the hook."""
    from .. import _core
    setter = getattr(_core._C, "set_launch_observer", None) if _core._C is not None else None
    if setter is not None:
        setter(obj)


def _set_interpreter_sink(obj):
    from ..interpreter import hooks
    hooks.set_profiler(obj)


# What the runtime (above this package) hands the profiler: install_runtime.
_runtime = {}


def install_runtime(clear_caches, launch_backend):
    """Called by tessera.runtime.jit when it is imported. clear_caches(): drop every compiled
    kernel (start/stop call it when they change instrumenting(), so that kernels compiled with, or
    without, instrumentation are not launched after the switch); launch_backend(): the backend
    kernels launch on (None: none), whose events and devices time launches and hold profile
    buffers."""
    if not (callable(clear_caches) and callable(launch_backend)):
        raise TypeError("install_runtime expects two callables")
    _runtime.update(clear_caches=clear_caches, launch_backend=launch_backend)


def _clear_caches():
    clear = _runtime.get("clear_caches")
    if clear is not None:
        clear()


def start(name=None, *, mode="scopes", path=None):
    """Start profiling. name: the profile's name, also its output file `<name>.json` (written by
    stop()); path: the output file instead. mode: "scopes" (kernels are compiled with scope
    instrumentation: `tessera.profiler.language` records, plus kernel times) or "kernels" (kernel
    times only, no instrumentation). Starting while a session is active is a RuntimeError."""
    global _active
    if mode not in MODES:
        raise ValueError(f"unknown profiling mode {mode!r}: expected one of {', '.join(map(repr, MODES))}")
    out = _output_path(name, path)
    with _lock:
        if _active is not None:
            raise RuntimeError(f"a profiling session ({_active.describe()}) is already active; call "
                               f"tessera.profiler.stop() before starting another")
        before = instrumenting()
        session = Session(name if name is not None else (os.path.splitext(os.path.basename(out))[0] if out else None),
                          mode, out)
        _set_launch_observer(session)
        try:
            _set_interpreter_sink(session)
        except BaseException:
            _set_launch_observer(None)
            raise
        _active = session
        if instrumenting() != before:
            _clear_caches()
    return None


def stop():
    """Stop the session: waits for the GPU, decodes the profile buffers, writes the trace when the
    session has a name or path, and returns the Profile. Without a session: RuntimeError."""
    global _active
    with _lock:
        session = _active
        if session is None:
            raise RuntimeError("tessera.profiler.stop(): no profiling session is active (start one with "
                               "tessera.profiler.start())")
        before = instrumenting()
        _active = None
        try:
            _set_launch_observer(None)
        finally:
            _set_interpreter_sink(None)
            if instrumenting() != before:
                _clear_caches()
    prof = session.finish()
    if prof.path:
        prof.save(prof.path)
    return prof


class profile:
    """`with tessera.profiler.profile(name, mode=...) as prof:` starts a session and stops it at
    the end of the block (also when it raises); `prof` is the Profile, filled when the block ends."""

    def __init__(self, name=None, *, mode="scopes", path=None):
        self._args = (name, mode, path)
        self._session = None

    def __enter__(self):
        name, mode, path = self._args
        with _lock:
            start(name, mode=mode, path=path)
            self._session = _active
        return self._session.profile

    def __exit__(self, *exc):
        with _lock:
            ours = _active is self._session
        if ours:
            stop()
        return False


def record_launch(name, grid, start_ns, end_ns, *, stream=0, device=-1, profile=None, buffer=None):
    """Report a launch to the active session (no-op without one): kernel `name` on `grid`, timed
    from start_ns to end_ns (host time.perf_counter_ns), with its profile buffer (bytes of grid
    size × bytes_per_program, decoded at stop() with `profile`, the kernel's metadata["profile"])
    when it was instrumented. For runtimes that launch outside Tessera's launcher. Returns
    whether a session took it."""
    session = _active
    if session is None:
        return False
    session.record_launch(name, grid, start_ns, end_ns, stream=stream, device=device, profile=profile,
                          buffer=buffer)
    return True


class scope:
    """A host scope: `with tessera.profiler.scope("step"):` or `@tessera.profiler.scope("step")`.
    While a session is active it records the block's host wall time (nested scopes nest), and
    kernels launched inside are shown under it in the summary. Without a session it records
    nothing."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"a scope's name must be a str, got {type(name).__name__}")
        if not name:
            raise ValueError("a scope's name must not be empty")
        self.name = name

    def __enter__(self):
        stack = _host_stack()
        stack.append(self.name)
        _local.open.append((_active, tuple(stack), time.perf_counter_ns()))
        return self

    def __exit__(self, *exc):
        end = time.perf_counter_ns()
        session, path, start_ns = _local.open.pop()
        _local.stack.pop()
        if session is not None and session is _active:
            session.add_host_scope(self.name, path, start_ns, end)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with scope(self.name):
                return fn(*args, **kwargs)
        return wrapper

    def __repr__(self):
        return f"tessera.profiler.scope({self.name!r})"

