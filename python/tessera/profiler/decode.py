"""Decoding of the profile buffers that instrumented kernels write (numpy and bytes only; no GPU).

A launch of a kernel compiled with scope instrumentation gets one buffer of `grid size ×
bytes_per_program` bytes; program (x, y, z) of grid (nx, ny, nz) owns slice x + nx*(y + ny*z).
The kernel's `metadata["profile"]` describes the slices:

    {"bytes_per_program": int, "header_bytes": 32, "num_warps": W, "records_per_warp": C,
     "metric": "cycle" | "time", "scopes": [{"name", "function", "file", "line"}, ...]}

A slice, little-endian:

    offset 0   u64 start_ns     %globaltimer when the program started (read by thread 0)
           8   u64 end_ns       %globaltimer when it ended
          16   u32 start_clock  %clock at the start
          20   u32 end_clock    %clock at the end
          24   u32 smid
          28   u32 num_warps    W again: a slice whose header disagrees was not written
          32   u32 count[W]     records each warp wrote (those overwritten included), then
                                padding to a multiple of 8 bytes
    records_offset              W rings of C records of 8 bytes; warp w's starts at
                                records_offset + w*C*8
    record = u32 word0 (bit 0: 1 end / 0 start; bits 1..31: scope id, an index into "scopes")
             u32 word1 (metric "cycle": the low 32 bits of %clock; "time": of %globaltimer, ns)

Record i of a warp (0-based, program order) sits in slot i % C. When count > C the ring
wrapped: the last C records are kept (the oldest in slot count % C) and count - C are lost; they
are reported as `dropped`, never as an error.

Times. Values of word1 are unwrapped per warp: the first relative to the program's start
(start_clock, or the low 32 bits of start_ns for "time"), as an offset in [0, span] when it fits
in the program's span and otherwise as a signed 32-bit difference (a warp may record before
thread 0 reads the clock); each later value adds its difference to the previous one modulo 2^32,
so a warp's times never go backwards (a value smaller than the last is a wrap of the counter).
Cycles become ns with the program's own calibration, ns_per_cycle = (end_ns - start_ns) /
(end_clock - start_clock) when both spans are positive; otherwise 1 / clock_ghz, where clock_ghz
comes from TESSERA_PROFILE_CLOCK_GHZ or defaults to DEFAULT_CLOCK_GHZ (PyTorch reports no SM
clock). Decoded times are integer device ns on the %globaltimer timeline (start_ns + offset,
rounded to the ns); `cycles` keeps the exact clock difference of each interval.

Pairing. A start opens a scope on its warp; an end closes the latest open start of the same scope
id (each id has its own stack, so scopes may nest and even interleave). The scope open when a
start comes is its parent. Ends without a start (the start was overwritten in the ring) and
starts never ended (cut off) are counted as unmatched, not fatal.
"""

import os
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

HEADER_BYTES = 32
RECORD_BYTES = 8
METRICS = ("cycle", "time")
DEFAULT_CLOCK_GHZ = 1.98  # an H100/H200 SXM's boost clock: used only when a program has no globaltimer span
CLOCK_ENV = "TESSERA_PROFILE_CLOCK_GHZ"

_MASK32 = 0xFFFFFFFF
_WRAP32 = 1 << 32


def clock_ghz():
    """The SM clock (GHz) used to turn cycles into ns for programs whose header gives no
    globaltimer span: TESSERA_PROFILE_CLOCK_GHZ when set, else DEFAULT_CLOCK_GHZ."""
    text = os.environ.get(CLOCK_ENV, "").strip()
    if not text:
        return DEFAULT_CLOCK_GHZ
    try:
        ghz = float(text)
    except ValueError:
        raise ValueError(f"{CLOCK_ENV}={text!r} is not a number (the SM clock in GHz, e.g. 1.98)") from None
    if not (ghz > 0 and np.isfinite(ghz)):
        raise ValueError(f"{CLOCK_ENV}={text!r} must be a positive clock in GHz")
    return ghz


# ------------------------------------------------------------------ decoded data


@dataclass
class Interval:
    """One execution of a scope on one track: [start_ns, end_ns] in device (or host) ns.
    `path` is the names of the enclosing scopes and its own (outermost first); `cycles` the
    %clock difference for metric "cycle" (None otherwise)."""
    name: str
    scope_id: int
    start_ns: int
    end_ns: int
    path: Tuple[str, ...]
    cycles: Optional[int] = None

    @property
    def duration_ns(self):
        return self.end_ns - self.start_ns

    @property
    def depth(self):
        return len(self.path) - 1


@dataclass
class Track:
    """The records of one warp of one program (`warp` None: a program of the interpreter)."""
    warp: Optional[int]
    count: int = 0               # records written, overwritten ones included
    dropped: int = 0             # records lost to the ring's wrap (count - capacity, or 0)
    intervals: List[Interval] = field(default_factory=list)
    unmatched_starts: int = 0    # starts never closed in the recorded window
    unmatched_ends: int = 0      # ends whose start was not recorded (overwritten)


@dataclass
class Program:
    """One program's slice: its header and its tracks (one per warp)."""
    pid: Tuple[int, int, int]
    index: int
    start_ns: int = 0
    end_ns: int = 0
    start_clock: int = 0
    end_clock: int = 0
    smid: Optional[int] = None
    ns_per_cycle: Optional[float] = None
    calibrated: bool = False     # ns_per_cycle from this program's own globaltimer/clock spans
    tracks: List[Track] = field(default_factory=list)
    error: Optional[str] = None  # why the slice could not be decoded (then no tracks)

    @property
    def duration_ns(self):
        return self.end_ns - self.start_ns if self.end_ns > self.start_ns else 0

    @property
    def dropped(self):
        return sum(t.dropped for t in self.tracks)


# ------------------------------------------------------------------ metadata and layout


def check_profile(profile):
    """Validate a kernel's metadata["profile"]; returns it normalized (ints, known metric, scope
    names). ValueError names what is wrong."""
    if not isinstance(profile, dict):
        raise ValueError(f"metadata['profile'] must be a dict, got {type(profile).__name__}")
    out = dict(profile)
    for key in ("bytes_per_program", "header_bytes", "num_warps", "records_per_warp"):
        v = profile.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"metadata['profile'][{key!r}] must be an int, got {v!r}")
        out[key] = int(v)
    if out["header_bytes"] != HEADER_BYTES:
        raise ValueError(f"metadata['profile']['header_bytes'] is {out['header_bytes']}; this decoder reads "
                         f"{HEADER_BYTES}-byte headers")
    if out["num_warps"] < 1 or out["records_per_warp"] < 1:
        raise ValueError(f"metadata['profile'] needs num_warps >= 1 and records_per_warp >= 1, got "
                         f"{out['num_warps']} and {out['records_per_warp']}")
    metric = profile.get("metric")
    if metric not in METRICS:
        raise ValueError(f"metadata['profile']['metric'] must be one of {', '.join(map(repr, METRICS))}, "
                         f"got {metric!r}")
    scopes = profile.get("scopes", [])
    if not isinstance(scopes, (list, tuple)):
        raise ValueError(f"metadata['profile']['scopes'] must be a list, got {type(scopes).__name__}")
    for i, s in enumerate(scopes):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            raise ValueError(f"metadata['profile']['scopes'][{i}] must be a dict with a str 'name', got {s!r}")
    out["scopes"] = list(scopes)
    need = records_offset(out["num_warps"]) + out["num_warps"] * out["records_per_warp"] * RECORD_BYTES
    if out["bytes_per_program"] < need:
        raise ValueError(f"metadata['profile']['bytes_per_program'] is {out['bytes_per_program']}, less than "
                         f"the {need} bytes a slice of {out['num_warps']} warps × {out['records_per_warp']} "
                         f"records needs")
    return out


def records_offset(num_warps):
    """Offset of the first ring in a slice: the header, W u32 counts, padding to 8 bytes."""
    return HEADER_BYTES + (4 * num_warps + 7) // 8 * 8


def grid_size(grid):
    n = 1
    for g in grid:
        n *= int(g)
    return n


def pid_of(index, grid):
    """The program id (x, y, z) of slice `index` in `grid`."""
    nx, ny = int(grid[0]), int(grid[1]) if len(grid) > 1 else 1
    return (index % nx, (index // nx) % ny, index // (nx * ny))


def scope_name(scopes, scope_id):
    """The name of scope `scope_id`, or "<scope N>" when the metadata has no such scope."""
    if 0 <= scope_id < len(scopes):
        return scopes[scope_id]["name"]
    return f"<scope {scope_id}>"


# ------------------------------------------------------------------ unwrapping and pairing


def unwrap(values, base, span):
    """Offsets (int64) of u32 counter `values` (program order) from `base` (u32): the first in
    [0, span] when its unsigned difference fits there, else a signed 32-bit difference; every later
    one adds the difference modulo 2^32 to the one before, so offsets never decrease."""
    v = np.asarray(values, dtype=np.int64)
    if v.size == 0:
        return v
    first = (int(v[0]) - int(base)) & _MASK32
    if first > span and first >= _WRAP32 // 2:
        first -= _WRAP32
    out = np.empty(v.size, dtype=np.int64)
    out[0] = first
    if v.size > 1:
        out[1:] = first + np.cumsum((v[1:] - v[:-1]) & _MASK32)
    return out


def pair(events, names):
    """Pair start/end events of one track.

    events: (scope_id, is_end, time_ns, cycles_or_None) in program order; names: scope id -> name
    (a callable). Returns (intervals sorted by start, unmatched_starts, unmatched_ends)."""
    open_ = []  # [scope_id, start time, start cycles, path], innermost last
    intervals = []
    unmatched_ends = 0
    for sid, is_end, t, cyc in events:
        if not is_end:
            parent = open_[-1][3] if open_ else ()
            open_.append((sid, t, cyc, parent + (names(sid),)))
            continue
        for j in range(len(open_) - 1, -1, -1):
            if open_[j][0] == sid:
                break
        else:
            unmatched_ends += 1
            continue
        s_sid, s_t, s_cyc, path = open_.pop(j)
        cycles = cyc - s_cyc if cyc is not None and s_cyc is not None else None
        intervals.append(Interval(path[-1], sid, s_t, t, path, cycles))
    intervals.sort(key=lambda iv: (iv.start_ns, -iv.end_ns))
    return intervals, len(open_), unmatched_ends


# ------------------------------------------------------------------ buffers


def _u64(slices, off):
    return slices[:, off:off + 8].copy().view("<u8")[:, 0].astype(np.uint64)


def _u32(slices, off, n=1):
    return slices[:, off:off + 4 * n].copy().view("<u4")


def decode_buffer(data, profile, grid, *, clock_ghz_default=None):
    """Decode a launch's whole profile buffer (bytes-like or a uint8 array) for `grid` (3 ints):
    a list of Program, one per slice, in slice order."""
    prof = check_profile(profile)
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    n = grid_size(grid)
    bpp = prof["bytes_per_program"]
    raw = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data.reshape(-1).view(np.uint8)
    if raw.size < n * bpp:
        raise ValueError(f"the profile buffer has {raw.size} bytes, less than grid size {n} × "
                         f"bytes_per_program {bpp} = {n * bpp}")
    if n == 0:
        return []
    ghz = clock_ghz_default if clock_ghz_default is not None else clock_ghz()
    W, C = prof["num_warps"], prof["records_per_warp"]
    slices = raw[:n * bpp].reshape(n, bpp)
    start_ns, end_ns = _u64(slices, 0), _u64(slices, 8)
    head = _u32(slices, 16, 4)  # start_clock, end_clock, smid, num_warps
    counts = _u32(slices, HEADER_BYTES, W)
    off = records_offset(W)
    rings = slices[:, off:off + W * C * RECORD_BYTES].copy().view("<u4").reshape(n, W, C, 2)
    scopes = prof["scopes"]
    cache = {}

    def names(sid):
        name = cache.get(sid)
        if name is None:
            name = cache[sid] = scope_name(scopes, sid)
        return name

    programs = []
    for i in range(n):
        p = Program(pid_of(i, grid), i, int(start_ns[i]), int(end_ns[i]), int(head[i, 0]), int(head[i, 1]),
                    int(head[i, 2]))
        if int(head[i, 3]) != W:
            p.error = (f"header says {int(head[i, 3])} warps but the kernel has {W}: this program's slice was "
                       f"not written")
            programs.append(p)
            continue
        _decode_program(p, counts[i], rings[i], prof["metric"], C, ghz, names)
        programs.append(p)
    return programs


def _calibrate(p, ghz):
    """Set p.ns_per_cycle (and p.calibrated); returns the program's span in cycles."""
    span_ns = p.end_ns - p.start_ns if p.end_ns > p.start_ns else 0
    span_cycles = (p.end_clock - p.start_clock) & _MASK32
    if span_ns > 0:
        # %clock wraps every 2^32 cycles (about 2 s): count the wraps the globaltimer span implies
        wraps = round((span_ns * ghz - span_cycles) / _WRAP32)
        if wraps > 0:
            span_cycles += wraps * _WRAP32
    if span_ns > 0 and span_cycles > 0:
        p.ns_per_cycle, p.calibrated = span_ns / span_cycles, True
    else:
        p.ns_per_cycle, p.calibrated = 1.0 / ghz, False
    return span_cycles


def _decode_program(p, counts, rings, metric, C, ghz, names):
    span_cycles = _calibrate(p, ghz)
    span_ns = p.duration_ns
    for w in range(len(counts)):
        count = int(counts[w])
        t = Track(w, count=count, dropped=max(0, count - C))
        valid = min(count, C)
        if valid:
            slots = np.arange(valid) if count <= C else (count % C + np.arange(C)) % C
            word0 = rings[w, slots, 0].astype(np.int64)
            word1 = rings[w, slots, 1]
            # integer ns: globaltimer values (ns since 1970 on current drivers) lose ns in a float64
            if metric == "cycle":
                cyc = unwrap(word1, p.start_clock, span_cycles)
                times = (np.int64(p.start_ns) + np.rint(cyc * p.ns_per_cycle).astype(np.int64)).tolist()
                cycles = cyc.tolist()
            else:
                times = (np.int64(p.start_ns) + unwrap(word1, p.start_ns & _MASK32, span_ns)).tolist()
                cycles = [None] * valid
            events = zip((word0 >> 1).tolist(), (word0 & 1).astype(bool).tolist(), times, cycles)
            t.intervals, t.unmatched_starts, t.unmatched_ends = pair(events, names)
        p.tracks.append(t)


def decode_host_records(records_by_program, grid, program_spans=None):
    """Programs of an interpreter launch on `grid` from host records: {pid: [(name, is_end, t_ns),
    ...]} (program order) and optionally {pid: (start_ns, end_ns)}. One track per program (warp
    None), times in host ns; programs in slice order, each with its slice index."""
    spans = program_spans or {}
    nx, ny = int(grid[0]), int(grid[1])
    pids = sorted(set(records_by_program) | set(spans), key=lambda q: (q[2], q[1], q[0]))
    ids = {}
    by_id = []

    def sid_of(name):
        if name not in ids:
            ids[name] = len(by_id)
            by_id.append(name)
        return ids[name]

    programs = []
    for pid in pids:
        recs = records_by_program.get(pid, [])
        start, end = spans.get(pid, (recs[0][2], recs[-1][2]) if recs else (0, 0))
        p = Program(tuple(pid), pid[0] + nx * (pid[1] + ny * pid[2]), start, end)
        t = Track(None, count=len(recs))
        events = [(sid_of(name), bool(is_end), t_ns, None) for name, is_end, t_ns in recs]
        t.intervals, t.unmatched_starts, t.unmatched_ends = pair(events, by_id.__getitem__)
        p.tracks.append(t)
        programs.append(p)
    return programs
