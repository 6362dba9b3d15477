"""What a profiling session recorded: host scopes, kernel launches and their decoded programs
(Profile, KernelLaunch, HostScope). Times are ns since the session started (host
time.perf_counter_ns), except the programs' own times, which stay on their clock (device
%globaltimer ns; host ns for the interpreter) and are placed on the session's timeline through
their launch: session time = launch.start_ns + (t - launch.base_ns)."""

import json
import os
import sys
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


@dataclass
class HostScope:
    """One execution of a host scope (`with tessera.profiler.scope(name)`): `path` holds the
    names of the enclosing host scopes of its thread and its own."""
    name: str
    path: Tuple[str, ...]
    start_ns: int
    end_ns: int
    thread: int
    thread_name: str

    @property
    def duration_ns(self):
        return self.end_ns - self.start_ns


@dataclass
class KernelLaunch:
    """One kernel launch.

    source: "device" (timed with the device's events on its stream), "host" (the host time of the
    launch call: PyTorch had no device to time it with, or it was reported with record_launch) or
    "interpreter" (the interpreter ran it on the CPU). start_ns / duration_ns: the kernel's
    time on the session timeline (None when unknown). programs: the decoded profile buffer
    (tessera.profiler.decode.Program), empty for a launch without instrumentation; errors: what
    could not be decoded.

    A launch's profile buffer is decoded when first needed (`records`, a
    tessera.profiler.decode.LaunchRecords, is what stop() kept of it): its programs on first
    access of `programs`; the summary, scope_totals(), `dropped`, `unmatched_*` and `base_ns` from
    the decoded records without making Program objects; the trace makes those of the programs it
    shows."""
    index: int
    name: str
    grid: Tuple[int, int, int]
    stream: int = 0
    device: int = -1
    source: str = "device"
    host_path: Tuple[str, ...] = ()
    thread: int = 0
    host_start_ns: int = 0
    host_end_ns: Optional[int] = None
    start_ns: Optional[float] = None
    duration_ns: Optional[float] = None
    profile: Optional[dict] = None
    errors: List[str] = field(default_factory=list)
    records: Optional[object] = field(default=None, repr=False, compare=False)

    _programs = None  # the Program list once made or set
    _base_ns = None   # set explicitly (the interpreter's launches), else from the records

    @property
    def programs(self):
        if self._programs is None:
            self._programs = self.records.programs() if self.records is not None else []
        return self._programs

    @programs.setter
    def programs(self, programs):
        """Programs set by hand replace the records they would be decoded from."""
        self._programs = list(programs)
        self.records = None

    def programs_head(self, limit):
        """(the first `limit` programs, how many the launch has), making only those."""
        if self._programs is None and self.records is not None:
            return self.records.programs(limit), self.records.num_programs
        return self.programs[:limit], len(self.programs)

    @property
    def base_ns(self):
        """The device time a launch's records are placed from: its earliest program start or
        record (the host time of its start for the interpreter's)."""
        if self._base_ns is not None:
            return self._base_ns
        if self.records is not None:
            self._base_ns = self.records.base_ns()
            return self._base_ns
        times = [p.start_ns for p in self.programs if p.error is None and p.start_ns]
        times += [t.intervals[0].start_ns for p in self.programs for t in p.tracks if t.intervals]
        return min(times) if times else 0

    @base_ns.setter
    def base_ns(self, value):
        self._base_ns = value

    @property
    def metric(self):
        return (self.profile or {}).get("metric", "time" if self.source == "interpreter" else None)

    @property
    def dropped(self):
        """Records lost to ring wraps, summed over the launch's warps."""
        if self.records is not None:
            return self.records.dropped
        return sum(p.dropped for p in self.programs)

    @property
    def unmatched_starts(self):
        if self.records is not None:
            return self.records.unmatched()[0]
        return sum(t.unmatched_starts for p in self.programs for t in p.tracks)

    @property
    def unmatched_ends(self):
        if self.records is not None:
            return self.records.unmatched()[1]
        return sum(t.unmatched_ends for p in self.programs for t in p.tracks)

    def scope_totals_by(self, by="path"):
        """{scope path (by="path") or name (by="name"): [calls, total_ns, warps, cycles]} over this
        launch's intervals, in order of first appearance: completed executions, their summed
        duration (int ns), the warps (tracks) that executed it, their summed cycles (None unless
        every one measured cycles)."""
        from . import decode
        if self.records is not None:
            return self.records.totals(by)
        return decode.interval_totals(self.programs, by)

    def program_durations(self):
        """duration_ns of each of the launch's programs."""
        if self._programs is None and self.records is not None:
            return self.records.program_durations()
        return [p.duration_ns for p in self.programs]

    def session_ns(self, t):
        """A time of this launch's programs on the session timeline."""
        start = self.start_ns if self.start_ns is not None else self.host_start_ns
        return start + (t - self.base_ns)


class Profile:
    """The result of a profiling session (tessera.profiler.stop()).

    kernels      KernelLaunch list in launch order
    host_scopes  HostScope list in start order
    dropped      records lost to ring wraps in all launches (dropped_by_kernel(): per kernel name)
    trace(), save(path), summary(), print(), scope_totals(), tree()
    """

    def __init__(self, name=None, mode="scopes", path=None):
        self.name = name
        self.mode = mode
        self.path = path
        self.kernels = []
        self.host_scopes = []
        self.duration_ns = 0
        self.complete = False

    def __repr__(self):
        state = "" if self.complete else ", recording"
        return (f"Profile({self.name!r}, mode={self.mode!r}, {len(self.kernels)} launches, "
                f"{len(self.host_scopes)} host scopes{state})")

    def _require_complete(self):
        if not self.complete:
            raise RuntimeError("this profile is still being recorded: call tessera.profiler.stop() (or leave the "
                               "`with tessera.profiler.profile(...)` block) first")

    @property
    def dropped(self):
        return sum(k.dropped for k in self.kernels)

    def dropped_by_kernel(self):
        """{kernel name: records lost to ring wraps} for kernels that lost any."""
        out = {}
        for k in self.kernels:
            if k.dropped:
                out[k.name] = out.get(k.name, 0) + k.dropped
        return out

    def scope_totals(self, kernel=None):
        """Intra-kernel scopes by name, over all launches (or those of kernel name `kernel`):
        {name: {"calls": completed executions, "total_ns": summed over every warp, "warps": warps
        (of every program and launch) that executed it, "avg_ns_per_warp": total_ns / warps,
        "total_cycles": summed %clock cycles (None unless every launch measured cycles),
        "kernels": kernel names}}. In the interpreter a program counts as one warp."""
        self._require_complete()
        out = {}
        for k in self.kernels:
            if kernel is not None and k.name != kernel:
                continue
            for name, (calls, total, warps, cycles) in k.scope_totals_by("name").items():
                e = out.get(name)
                if e is None:
                    e = out[name] = {"calls": 0, "total_ns": 0.0, "warps": 0, "avg_ns_per_warp": 0.0,
                                     "total_cycles": 0, "kernels": []}
                e["calls"] += calls
                e["total_ns"] += total
                e["total_cycles"] = None if cycles is None or e["total_cycles"] is None else e["total_cycles"] + cycles
                e["warps"] += warps
                if k.name not in e["kernels"]:
                    e["kernels"].append(k.name)
        for e in out.values():
            e["avg_ns_per_warp"] = e["total_ns"] / e["warps"] if e["warps"] else 0.0
        return out

    def tree(self):
        """The summary tree as plain data (what summary() prints and a saved trace keeps)."""
        self._require_complete()
        from . import summary
        return summary.build_tree(self)

    def summary(self, max_depth=None):
        """The summary tree as text: host scopes > kernels > intra-kernel scopes."""
        from . import summary
        return summary.render(self.tree(), max_depth=max_depth)

    def print(self, file=None, max_depth=None):
        print(self.summary(max_depth=max_depth), file=file or sys.stdout)

    def trace(self, max_programs=64):
        """The Chrome/Perfetto Trace Event JSON object (a dict); see tessera.profiler.trace."""
        self._require_complete()
        from . import trace
        return trace.build_trace(self, max_programs=max_programs)

    def save(self, path=None, max_programs=64):
        """Write trace() as JSON to `path` (default: the session's output path); returns the path."""
        path = path or self.path
        if not path:
            raise ValueError("Profile.save() needs a path (the session was started without a name or path)")
        obj = self.trace(max_programs=max_programs)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(obj, f, separators=(",", ":"))
        os.replace(tmp, path)
        return path
