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

import gc
import itertools
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
    """Offset of the first ring in a slice: the header, W u32 counts, padding to 32 bytes."""
    return HEADER_BYTES + (4 * num_warps + 31) // 32 * 32


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

_HEADER = np.dtype([("start_ns", "<u8"), ("end_ns", "<u8"), ("start_clock", "<u4"), ("end_clock", "<u4"),
                    ("smid", "<u4"), ("num_warps", "<u4")])


def _grid3(grid):
    return tuple(int(g) for g in grid) + (1,) * (3 - len(grid))


def _raw_bytes(data):
    """A uint8 array of `data` (bytes-like or array): a view of bytes, a copy of anything mutable
    (decoding may come later, the caller's buffer must not change it)."""
    if isinstance(data, bytes):
        return np.frombuffer(data, dtype=np.uint8)
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8).copy()
    return np.frombuffer(bytes(data), dtype=np.uint8)


def read_headers(heads, num_warps):
    """(header records, counts) of slices' first records_offset(num_warps) bytes (an (n, >= that)
    uint8 array): a structured array of the 32-byte headers (start_ns, end_ns, start_clock,
    end_clock, smid, num_warps) and the (n, W) u32 counts."""
    heads = np.asarray(heads, dtype=np.uint8)
    n = heads.shape[0]
    hdr = np.ascontiguousarray(heads[:, :HEADER_BYTES]).view(_HEADER).reshape(n)
    counts = np.ascontiguousarray(heads[:, HEADER_BYTES:HEADER_BYTES + 4 * num_warps]).view("<u4").reshape(n, num_warps)
    return hdr, counts


def slots_in_use(heads, profile):
    """How many leading slots of every warp's ring hold the records to decode: the largest
    min(count, records_per_warp) over the programs whose header is valid (a ring that wrapped
    needs all of them). `heads`: the slices' first records_offset(W) bytes, (n, >= that) uint8."""
    prof = check_profile(profile)
    W, C = prof["num_warps"], prof["records_per_warp"]
    hdr, counts = read_headers(heads, W)
    ok = hdr["num_warps"] == W
    return int(np.minimum(counts[ok], C).max()) if ok.any() else 0


def _calibration(start_ns, end_ns, start_clock, end_clock, ghz):
    """(ns_per_cycle, calibrated, span in cycles) of a program's header values (Python ints)."""
    span_ns = end_ns - start_ns if end_ns > start_ns else 0
    span_cycles = (end_clock - start_clock) & _MASK32
    if span_ns > 0:
        # %clock wraps every 2^32 cycles (about 2 s): count the wraps the globaltimer span implies
        wraps = round((span_ns * ghz - span_cycles) / _WRAP32)
        if wraps > 0:
            span_cycles += wraps * _WRAP32
    if span_ns > 0 and span_cycles > 0:
        return span_ns / span_cycles, True, span_cycles
    return 1.0 / ghz, False, span_cycles


def _unique(keys):
    """(sorted unique values, inverse) of non-negative int64 `keys`: with a table when they are
    small, else np.unique."""
    top = int(keys.max(initial=-1)) + 1
    if top <= max(1 << 20, 4 * keys.size):
        present = np.zeros(top, bool)
        present[keys] = True
        uniq = np.flatnonzero(present)
        lookup = np.zeros(top, np.int64)
        lookup[uniq] = np.arange(uniq.size)
        return uniq, lookup[keys]
    uniq, inv = np.unique(keys, return_inverse=True)
    return uniq, inv.reshape(-1)


class _gc_paused:
    """Pauses the cyclic garbage collector while many objects are made (it would traverse them
    all again and again; they hold no cycles)."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()
        return False


def _sums(index, values, size):
    """Exact integer sums of int64 `values` grouped by `index` (0..size-1), as Python ints."""
    if values.size == 0:
        return [0] * size
    if int(np.abs(values).max()) * values.size < 2**53:  # float64 sums of these are exact
        return [int(v) for v in np.bincount(index, weights=values, minlength=size)]
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, index, values)
    return out.tolist()


class LaunchRecords:
    """A launch's profile buffer on the host, decoded on demand.

    Made from the buffer (what decode_buffer takes) or, with from_parts, from its slices' headers
    and the leading slots of their rings. At once: the checks of the metadata and the buffer
    (ValueError), the headers (`errors`: slices that were not written; `dropped`). When first
    needed, and then kept: the records of every program, with numpy over all programs, warps and
    records (ring order, unwrapping, calibration; pairing of properly nested warps, the others
    through pair()), as columns. From those: `programs()` (Program objects, made on demand),
    `totals()` (what the summary adds up), `unmatched()` and `base_ns()`."""

    def __init__(self, data, profile, grid, *, clock_ghz_default=None):
        prof = check_profile(profile)
        grid = _grid3(grid)
        n = grid_size(grid)
        bpp = prof["bytes_per_program"]
        raw = _raw_bytes(data)
        if raw.size < n * bpp:
            raise ValueError(f"the profile buffer has {raw.size} bytes, less than grid size {n} × "
                             f"bytes_per_program {bpp} = {n * bpp}")
        W, C = prof["num_warps"], prof["records_per_warp"]
        off = records_offset(W)
        slices = raw[:n * bpp].reshape(n, bpp)
        self._setup(prof, grid, slices[:, :off], slices[:, off:off + W * C * RECORD_BYTES].reshape(n, W, C * RECORD_BYTES),
                    clock_ghz_default)

    @classmethod
    def from_parts(cls, heads, rings, profile, grid, *, clock_ghz_default=None):
        """heads: (n, records_offset(W)) uint8, each slice's header and counts; rings: (n, W, K*8)
        uint8, the first K slots of every warp's ring, K >= slots_in_use(heads, profile)."""
        self = cls.__new__(cls)
        prof = check_profile(profile)
        grid = _grid3(grid)
        n, W = grid_size(grid), prof["num_warps"]
        heads, rings = np.asarray(heads, dtype=np.uint8), np.asarray(rings, dtype=np.uint8)
        off = records_offset(W)
        if heads.shape != (n, off):
            raise ValueError(f"the headers are {heads.shape}, not ({n}, {off}) for grid size {n} and {W} warps")
        if rings.ndim != 3 or rings.shape[:2] != (n, W) or rings.shape[2] % RECORD_BYTES or \
                rings.shape[2] > prof["records_per_warp"] * RECORD_BYTES:
            raise ValueError(f"the rings are {rings.shape}, not ({n}, {W}, K*{RECORD_BYTES}) with K <= "
                             f"{prof['records_per_warp']}")
        self._setup(prof, grid, heads, rings, clock_ghz_default)
        return self

    def _setup(self, prof, grid, heads, rings, clock_ghz_default):
        self.profile, self.grid, self.n = prof, grid, grid_size(grid)
        self.metric = prof["metric"]
        W, C = self.num_warps, self.capacity = prof["num_warps"], prof["records_per_warp"]
        self.ghz = None
        if self.n:
            self.ghz = clock_ghz_default if clock_ghz_default is not None else clock_ghz()
        self._hdr, self._counts = read_headers(heads, W)
        self._ok = self._hdr["num_warps"] == W
        self._rings = rings
        slots = rings.shape[2] // RECORD_BYTES
        need = int(np.minimum(self._counts[self._ok], C).max()) if self._ok.any() else 0
        if need > slots:
            raise ValueError(f"the rings hold {slots} of {C} slots, but a warp kept {need} records")
        self._names = {}
        self._paths = []        # path id -> tuple of scope names, outermost first
        self._path_ids = {}     # tuple -> path id
        self._cols = None
        self._objs = []         # Program objects made so far (a prefix of the launch's)
        self._totals = {}

    # -------------------------------------------------------------- headers (at once)
    @property
    def num_programs(self):
        return self.n

    def errors(self):
        """(index, why) of the slices that could not be decoded (their header was not written)."""
        W = self.num_warps
        hw = self._hdr["num_warps"]
        return [(i, f"header says {int(hw[i])} warps but the kernel has {W}: this program's slice was not written")
                for i in np.flatnonzero(~self._ok).tolist()]

    @property
    def dropped(self):
        """Records lost to ring wraps, summed over the warps of the programs that decode."""
        over = self._counts[self._ok].astype(np.int64) - self.capacity
        return int(np.maximum(over, 0).sum())

    def program_durations(self):
        """Program.duration_ns of every slice (Python ints; 0 where end <= start)."""
        return [e - s if e > s else 0 for s, e in zip(self._hdr["start_ns"].tolist(), self._hdr["end_ns"].tolist())]

    # -------------------------------------------------------------- names and paths
    def _name(self, sid):
        name = self._names.get(sid)
        if name is None:
            name = self._names[sid] = scope_name(self.profile["scopes"], sid)
        return name

    def _intern(self, path):
        i = self._path_ids.get(path)
        if i is None:
            i = self._path_ids[path] = len(self._paths)
            self._paths.append(path)
        return i

    # -------------------------------------------------------------- decoding (on demand)
    def _decode(self):
        """The launch's intervals as columns (kept): row (valid program's position * W + warp),
        sid, start, end, cycles (None for metric "time"), path id, sorted like Track.intervals
        within each row; per row the unmatched starts and ends."""
        if self._cols is not None:
            return self._cols
        W, C = self.num_warps, self.capacity
        ok = np.flatnonzero(self._ok)
        m = ok.size
        R = m * W
        hdr = self._hdr[ok]
        # calibration per program, with Python ints (exact whatever the header holds)
        npc, calibrated, base, span = [], [], [], []
        for s, e, a, b in zip(hdr["start_ns"].tolist(), hdr["end_ns"].tolist(), hdr["start_clock"].tolist(),
                              hdr["end_clock"].tolist()):
            f, cal, cyc = _calibration(s, e, a, b, self.ghz)
            npc.append(f)
            calibrated.append(cal)
            if self.metric == "cycle":
                base.append(a)
                span.append(min(cyc, 2**62))
            else:
                base.append(s & _MASK32)
                span.append(min(e - s if e > s else 0, 2**62))
        self._npc, self._calibrated = npc, calibrated
        counts = self._counts[ok].astype(np.int64)
        valid = np.minimum(counts, C).reshape(R)
        K = int(valid.max()) if R else 0        # leading positions (program order) in use
        cols = {"us": np.zeros(R, np.int64), "ue": np.zeros(R, np.int64)}
        if K == 0:
            self._cols = dict(cols, row=np.zeros(0, np.int64), sid=np.zeros(0, np.int64),
                              start=np.zeros(0, np.int64), end=np.zeros(0, np.int64),
                              cycles=None if self.metric == "time" else np.zeros(0, np.int64),
                              path=np.zeros(0, np.int64))
            return self._cols
        slots = self._rings.shape[2] // RECORD_BYTES
        rec = np.ascontiguousarray(self._rings[ok]).view("<u4").reshape(m, W, slots, 2)
        wrapped = counts > C
        if wrapped.any():  # then every slot is in use: record i of the last C sits in slot (count + i) % C
            first = np.where(wrapped, counts % C, 0)
            where = (first[:, :, None] + np.arange(C)) % C
            w0 = np.take_along_axis(rec[..., 0], where, axis=2)
            w1 = np.take_along_axis(rec[..., 1], where, axis=2)
        else:
            w0, w1 = rec[:, :, :K, 0], rec[:, :, :K, 1]
        w0 = w0.reshape(R, K).astype(np.int64)
        w1 = w1.reshape(R, K).astype(np.int64)
        del rec
        mask = np.arange(K) < valid[:, None]

        # unwrap: the first value relative to the program's start, then differences modulo 2^32
        base_r = np.repeat(np.array(base, np.int64), W)
        span_r = np.repeat(np.array(span, np.int64), W)
        first = (w1[:, 0] - base_r) & _MASK32
        first -= ((first > span_r) & (first >= _WRAP32 // 2)) * _WRAP32
        off = np.empty_like(w1)
        off[:, 0] = first
        if K > 1:
            np.cumsum((w1[:, 1:] - w1[:, :-1]) & _MASK32, axis=1, out=off[:, 1:])
            off[:, 1:] += first[:, None]
        del w1
        start_r = np.repeat(hdr["start_ns"].astype(np.int64), W)  # integer ns: a float64 loses ns since 1970
        if self.metric == "cycle":
            times = start_r[:, None] + np.rint(off * np.repeat(np.array(npc), W)[:, None]).astype(np.int64)
            cyc = off
        else:
            times = start_r[:, None] + off
            cyc = None

        # pairing: the depth before each record, with ends on an empty stack skipped (a walk of
        # +-1 reflected at 0); a start at depth d pairs with the next record at depth d of its
        # row, which is an end. Rows where such an end closes another scope id are not properly
        # nested: they go through pair().
        is_end = (w0 & 1).astype(bool)
        sid = (w0 >> 1).reshape(-1)
        del w0
        delta = np.where(mask, np.where(is_end, -1, 1), 0).astype(np.int32)
        walk = np.cumsum(delta, axis=1)
        depth = walk - np.minimum(np.minimum.accumulate(walk, axis=1), 0)  # after each record
        before = np.zeros_like(depth)
        before[:, 1:] = depth[:, :-1]
        lost = mask & is_end & (before == 0)  # ends with nothing open
        cols["ue"] = lost.sum(axis=1).astype(np.int64)
        cols["us"] = depth[:, -1].astype(np.int64)
        flat = np.flatnonzero(mask & ~lost)  # row * K + position, in program order
        is_end = is_end.reshape(-1)
        e_f = is_end[flat]
        level = before.reshape(-1)[flat] - e_f
        del walk, depth, before, delta, lost
        order = np.argsort(level, kind="stable")  # by (level, row, position)
        fo, es, ls = flat[order], e_f[order], level[order].astype(np.int64)
        del flat, e_f, level, order
        rs = fo // K
        ss = sid[fo]
        pairs = np.flatnonzero(~es[:-1] & es[1:] & (rs[:-1] == rs[1:]) & (ls[:-1] == ls[1:]))
        bad_row = np.zeros(R, bool)
        bad_row[rs[pairs[ss[pairs] != ss[pairs + 1]]]] = True

        # paths of every start, level by level: its parent is the latest start one level up
        st = np.flatnonzero(~es)
        RK = np.int64(R) * K
        kst = ls[st] * RK + fo[st]  # increasing
        path_st = np.empty(st.size, np.int64)
        levels = np.searchsorted(ls[st], np.arange(int(ls.max(initial=0)) + 2))
        for d in range(levels.size - 1):
            blk = st[levels[d]:levels[d + 1]]
            sids = ss[blk]
            if d == 0:
                parent = np.full(sids.size, -1, np.int64)
            else:
                parent = path_st[np.searchsorted(kst, (d - 1) * RK + fo[blk]) - 1]
            uniq, inv = _unique((parent + 1) * (int(sids.max(initial=0)) + 1) + sids)
            at = np.zeros(uniq.size, np.int64)
            at[inv] = np.arange(inv.size)  # some occurrence of each key
            ids = [self._intern((self._paths[p] if p >= 0 else ()) + (self._name(s),))
                   for p, s in zip(parent[at].tolist(), sids[at].tolist())]
            path_st[levels[d]:levels[d + 1]] = np.array(ids, np.int64)[inv]

        # the intervals of the properly nested rows, in program order of their starts
        keep = pairs[~bad_row[rs[pairs]]]
        partner = np.full(R * K, -1, np.int64)
        partner[fo[keep]] = fo[keep + 1]
        path_at = np.empty(R * K, np.int64)
        path_at[fo[keep]] = path_st[np.searchsorted(st, keep)]
        del fo, es, ls, rs, ss, pairs, st, kst, path_st
        s_i = np.flatnonzero(partner >= 0)
        e_i = partner[s_i]
        times = times.reshape(-1)
        row, start, end, path, seq = s_i // K, times[s_i], times[e_i], path_at[s_i], e_i % K
        sid_c = sid[s_i]
        cycles = None if cyc is None else cyc.reshape(-1)[e_i] - cyc.reshape(-1)[s_i]
        del partner, path_at, s_i, e_i

        # rows that are not properly nested: pair() on their records
        bad = np.flatnonzero(bad_row).tolist()
        if bad:
            parts = [(row, sid_c, start, end, cycles, path, seq)]
            with _gc_paused():
                for r in bad:
                    k = int(valid[r])
                    span = slice(r * K, r * K + k)
                    tl = times[span].tolist()
                    cl = cyc[r, :k].tolist() if cyc is not None else [None] * k
                    ivs, cols["us"][r], cols["ue"][r] = pair(zip(sid[span].tolist(), is_end[span].tolist(), tl, cl),
                                                             self._name)
                    if ivs:
                        parts.append((np.full(len(ivs), r, np.int64), np.array([iv.scope_id for iv in ivs], np.int64),
                                      np.array([iv.start_ns for iv in ivs], np.int64),
                                      np.array([iv.end_ns for iv in ivs], np.int64),
                                      None if cyc is None else np.array([iv.cycles for iv in ivs], np.int64),
                                      np.array([self._intern(iv.path) for iv in ivs], np.int64),
                                      np.arange(len(ivs), dtype=np.int64)))
            row, sid_c, start, end, cycles, path, seq = (
                None if parts[0][i] is None else np.concatenate([p[i] for p in parts]) for i in range(7))
        # Track.intervals order: by start, longest first, then as pair() appends them (at their
        # end). Rows are in order (the rows of pair() placed with a stable sort by row), and
        # starts in program order are in order of time: only runs of equal starts need sorting.
        arrays = [row, sid_c, start, end, path, seq] + ([] if cycles is None else [cycles])
        if bad:
            o = np.argsort(row, kind="stable")
            arrays = [x[o] for x in arrays]
            row, start, end, seq = arrays[0], arrays[2], arrays[3], arrays[5]
        same = (row[1:] == row[:-1]) & (start[1:] == start[:-1])
        if same.any():
            idx = np.flatnonzero(np.concatenate([same, [False]]) | np.concatenate([[False], same]))
            o = idx[np.lexsort((seq[idx], -end[idx], start[idx], row[idx]))]
            for x in arrays:
                x[idx] = x[o]
        row, sid_c, start, end, path = arrays[:5]
        cycles = None if cycles is None else arrays[6]
        cols.update(row=row, sid=sid_c, start=start, end=end, path=path, cycles=cycles)
        self._cols = cols
        return cols

    # -------------------------------------------------------------- results
    def programs(self, stop=None):
        """Program objects of slices [0, stop) (all by default), made once and kept."""
        stop = self.n if stop is None else max(0, min(int(stop), self.n))
        if len(self._objs) < stop:
            with _gc_paused():
                self._objs += self._make(len(self._objs), stop)
        return self._objs[:stop]

    def _make(self, lo, hi):
        cols = self._decode()
        W, C = self.num_warps, self.capacity
        hdr = self._hdr
        ok_before = np.concatenate([[0], np.cumsum(self._ok)])  # valid programs before slice i
        r0, r1 = int(ok_before[lo]) * W, int(ok_before[hi]) * W
        a, b = np.searchsorted(cols["row"], [r0, r1])
        paths = self._paths
        names = [p[-1] for p in paths]
        pl = cols["path"][a:b].tolist()
        cycles = cols["cycles"][a:b].tolist() if cols["cycles"] is not None else itertools.repeat(None)
        ivs = list(map(Interval, map(names.__getitem__, pl), cols["sid"][a:b].tolist(), cols["start"][a:b].tolist(),
                       cols["end"][a:b].tolist(), map(paths.__getitem__, pl), cycles))
        per_row = np.bincount(cols["row"][a:b] - r0, minlength=r1 - r0).tolist()
        counts = self._counts.tolist()
        us, ue = cols["us"].tolist(), cols["ue"].tolist()
        out = []
        pos = 0
        for i in range(lo, hi):
            h = hdr[i]
            p = Program(pid_of(i, self.grid), i, int(h["start_ns"]), int(h["end_ns"]), int(h["start_clock"]),
                        int(h["end_clock"]), int(h["smid"]))
            if not self._ok[i]:
                p.error = (f"header says {int(h['num_warps'])} warps but the kernel has {W}: this program's slice "
                           f"was not written")
                out.append(p)
                continue
            v = int(ok_before[i])
            p.ns_per_cycle, p.calibrated = self._npc[v], self._calibrated[v]
            for w in range(W):
                r = v * W + w
                count = counts[i][w]
                k = per_row[r - r0]
                p.tracks.append(Track(w, count, max(0, count - C), ivs[pos:pos + k], us[r], ue[r]))
                pos += k
            out.append(p)
        return out

    def unmatched(self):
        """(unmatched starts, unmatched ends) summed over the launch's warps."""
        cols = self._decode()
        return int(cols["us"].sum()), int(cols["ue"].sum())

    def base_ns(self):
        """The earliest start of a program that decodes (when not 0) or of an interval; 0 if none."""
        cols = self._decode()
        starts = self._hdr["start_ns"][self._ok]
        starts = starts[starts != 0]
        times = [int(starts.min())] if starts.size else []
        if cols["start"].size:
            times.append(int(cols["start"].min()))
        return min(times) if times else 0

    def totals(self, by="path"):
        """{path (by="path") or scope name (by="name"): [calls, total_ns, warps, cycles]} over
        the launch's intervals, in order of first appearance (programs, warps, intervals in
        order): calls, the sum of their durations (an int), the warps that have one, the sum of
        their cycles (None for metric "time")."""
        if by not in ("path", "name"):
            raise ValueError(f"totals by 'path' or 'name', not {by!r}")
        got = self._totals.get(by)
        if got is not None:
            return got
        cols = self._decode()
        keys = self._paths if by == "path" else [p[-1] for p in self._paths]
        table = {}
        key_of_path = np.array([table.setdefault(k, len(table)) for k in keys], np.int64)
        labels = list(table)
        out = {}
        if cols["path"].size:
            kid = key_of_path[cols["path"]]
            uniq, first, inv, calls = np.unique(kid, return_index=True, return_inverse=True, return_counts=True)
            inv = inv.reshape(-1)
            U = uniq.size
            total = _sums(inv, cols["end"] - cols["start"], U)
            cycles = _sums(inv, cols["cycles"], U) if cols["cycles"] is not None else [None] * U
            pairs = np.unique(cols["row"] * U + inv)
            warps = np.bincount(pairs % U, minlength=U).tolist()
            for u in np.argsort(first, kind="stable").tolist():
                out[labels[int(uniq[u])]] = [int(calls[u]), total[u], warps[u], cycles[u]]
        self._totals[by] = out
        return out


def decode_buffer(data, profile, grid, *, clock_ghz_default=None):
    """Decode a launch's whole profile buffer (bytes-like or a uint8 array) for `grid` (3 ints):
    a list of Program, one per slice, in slice order."""
    return LaunchRecords(data, profile, grid, clock_ghz_default=clock_ghz_default).programs()


def interval_totals(programs, by="path"):
    """LaunchRecords.totals of decoded Program objects (e.g. an interpreter launch's)."""
    out = {}
    for p in programs:
        for t in p.tracks:
            seen = set()
            for iv in t.intervals:
                key = iv.path if by == "path" else iv.name
                a = out.get(key)
                if a is None:
                    a = out[key] = [0, 0, 0, 0]
                a[0] += 1
                a[1] += iv.duration_ns
                a[3] = None if iv.cycles is None or a[3] is None else a[3] + iv.cycles
                if key not in seen:
                    seen.add(key)
                    a[2] += 1
    return out


# ------------------------------------------------------------------ the reference decoder


def _u64(slices, off):
    return slices[:, off:off + 8].copy().view("<u8")[:, 0].astype(np.uint64)


def _u32(slices, off, n=1):
    return slices[:, off:off + 4 * n].copy().view("<u4")


def decode_buffer_reference(data, profile, grid, *, clock_ghz_default=None):
    """decode_buffer one program and warp at a time, in plain Python per record: the definition
    that LaunchRecords computes with numpy (the tests check that both agree). Slow: for tests."""
    prof = check_profile(profile)
    grid = _grid3(grid)
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


def _decode_program(p, counts, rings, metric, C, ghz, names):
    p.ns_per_cycle, p.calibrated, span_cycles = _calibration(p.start_ns, p.end_ns, p.start_clock, p.end_clock, ghz)
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
