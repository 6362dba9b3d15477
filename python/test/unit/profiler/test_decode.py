"""Decoding of synthetic profile buffers (tessera.profiler.decode): headers, rings that wrapped,
nesting, counters that wrapped, unmatched records, program ids, both metrics, clock calibration."""

import numpy as np
import pytest

from tessera.profiler import decode

from . import synthetic as syn

SCOPES = ["load", "compute", "inner"]


def one(profile, warps, grid=(1, 1, 1), **header):
    data = syn.program(profile, warps, **header)
    (p,) = decode.decode_buffer(data, profile, grid)
    return p


def spans(track):
    return [(iv.name, iv.start_ns, iv.end_ns, iv.path) for iv in track.intervals]


def test_two_warps_with_calibrated_cycles():
    md = syn.meta(SCOPES, num_warps=2, records_per_warp=8)
    w0 = syn.script(SCOPES, [("load", "start", 0), ("load", "end", 100), ("compute", "start", 100),
                             ("compute", "end", 400)], clock0=1000)
    w1 = syn.script(SCOPES, [("load", "start", 20), ("load", "end", 220)], clock0=1000)
    # 1000 cycles in 500 ns: 0.5 ns per cycle
    p = one(md, [w0, w1], start_ns=1_000_000, end_ns=1_000_500, start_clock=1000, end_clock=2000, smid=17)
    assert p.error is None and p.smid == 17 and p.pid == (0, 0, 0)
    assert p.calibrated and p.ns_per_cycle == pytest.approx(0.5)
    assert p.duration_ns == 500
    t0, t1 = p.tracks
    assert (t0.warp, t0.count, t0.dropped, t1.count) == (0, 4, 0, 2)
    assert spans(t0) == [("load", 1_000_000, 1_000_050, ("load",)), ("compute", 1_000_050, 1_000_200, ("compute",))]
    assert [iv.cycles for iv in t0.intervals] == [100, 300]
    assert spans(t1) == [("load", 1_000_010, 1_000_110, ("load",))]
    assert t0.unmatched_starts == t0.unmatched_ends == 0


def test_nested_scopes_get_paths_and_depths():
    md = syn.meta(SCOPES, num_warps=1)
    ev = [("compute", "start", 0), ("inner", "start", 10), ("inner", "end", 30), ("inner", "start", 40),
          ("inner", "end", 70), ("compute", "end", 100)]
    p = one(md, [syn.script(SCOPES, ev)], start_ns=0, end_ns=100, start_clock=0, end_clock=100)
    ivs = p.tracks[0].intervals
    assert [(iv.name, iv.path, iv.depth) for iv in ivs] == [
        ("compute", ("compute",), 0), ("inner", ("compute", "inner"), 1), ("inner", ("compute", "inner"), 1)]
    assert [iv.duration_ns for iv in ivs] == [100, 20, 30]


def test_interleaved_scopes_pair_by_scope_id():
    md = syn.meta(SCOPES, num_warps=1)
    ev = [("load", "start", 0), ("compute", "start", 10), ("load", "end", 20), ("compute", "end", 50)]
    p = one(md, [syn.script(SCOPES, ev)], start_ns=0, end_ns=60, start_clock=0, end_clock=60)
    assert [(iv.name, iv.start_ns, iv.end_ns) for iv in p.tracks[0].intervals] == [("load", 0, 20), ("compute", 10, 50)]


def test_wrapped_ring_keeps_the_last_records_and_counts_the_dropped():
    md = syn.meta(SCOPES, num_warps=2, records_per_warp=4)
    # warp 0: 5 load scopes = 10 records in a ring of 4: the last two scopes survive
    ev = []
    for k in range(5):
        ev += [("load", "start", 100 * k), ("load", "end", 100 * k + 10 + k)]
    # warp 1: 3 scopes = 6 records, ring of 4: records 2..5 = (start1, end1, start2, end2)
    ev1 = []
    for k in range(3):
        ev1 += [("compute", "start", 100 * k), ("compute", "end", 100 * k + 50)]
    p = one(md, [syn.script(SCOPES, ev), syn.script(SCOPES, ev1)], start_ns=0, end_ns=1000, start_clock=0,
            end_clock=1000)
    t0, t1 = p.tracks
    assert (t0.count, t0.dropped, t1.count, t1.dropped) == (10, 6, 6, 2)
    assert [(iv.start_ns, iv.end_ns) for iv in t0.intervals] == [(300, 313), (400, 414)]
    assert [(iv.start_ns, iv.end_ns) for iv in t1.intervals] == [(100, 150), (200, 250)]
    assert p.dropped == 8
    assert t0.unmatched_ends == t0.unmatched_starts == 0


def test_wrap_that_cuts_a_scope_counts_an_unmatched_end():
    md = syn.meta(SCOPES, num_warps=1, records_per_warp=3)
    ev = [("load", "start", 0), ("load", "end", 5), ("load", "start", 10), ("load", "end", 15),
          ("load", "start", 20), ("load", "end", 25)]  # kept: end(15), start(20), end(25)
    p = one(md, [syn.script(SCOPES, ev)], start_ns=0, end_ns=30, start_clock=0, end_clock=30)
    t = p.tracks[0]
    assert (t.dropped, t.unmatched_ends, t.unmatched_starts) == (3, 1, 0)
    assert [(iv.start_ns, iv.end_ns) for iv in t.intervals] == [(20, 25)]


def test_clock_wrap_is_unwrapped_per_warp():
    md = syn.meta(SCOPES, num_warps=1)
    start_clock = 2**32 - 100
    # consecutive records less than 2^32 cycles apart (more could not be told from the values)
    ev = [("load", "start", 50), ("load", "end", 150), ("inner", "start", 2**31), ("inner", "end", 2**31 + 5),
          ("compute", "start", 2**32 + 200), ("compute", "end", 2**32 + 260)]
    # 2^32 + 400 cycles of program; its end clock reads 300 after the wrap. The globaltimer span
    # (at 1.98 GHz nominal) tells the decoder the counter wrapped once.
    span_cycles = 2**32 + 400
    span_ns = round(span_cycles / 1.98)
    p = one(md, [syn.script(SCOPES, ev, clock0=start_clock)], start_ns=10**12, end_ns=10**12 + span_ns,
            start_clock=start_clock, end_clock=start_clock + span_cycles)
    assert p.ns_per_cycle == pytest.approx(span_ns / span_cycles)
    load, inner, compute = p.tracks[0].intervals
    assert load.cycles == 100 and inner.cycles == 5 and compute.cycles == 60
    assert load.start_ns == pytest.approx(10**12 + 50 * p.ns_per_cycle)
    assert compute.start_ns == pytest.approx(10**12 + (2**32 + 200) * p.ns_per_cycle)


def test_small_clock_wrap_inside_a_short_program():
    md = syn.meta(SCOPES, num_warps=1)
    start_clock = 2**32 - 30
    ev = [("load", "start", 10), ("load", "end", 70)]  # the end reads 40 after the wrap
    p = one(md, [syn.script(SCOPES, ev, clock0=start_clock)], start_ns=500, end_ns=600, start_clock=start_clock,
            end_clock=start_clock + 100)
    (iv,) = p.tracks[0].intervals
    assert (iv.cycles, iv.start_ns, iv.end_ns) == (60, 510, 570)


def test_a_warp_recording_before_thread_0_read_the_clock_gets_a_negative_offset():
    md = syn.meta(SCOPES, num_warps=1)
    ev = [("load", "start", -10), ("load", "end", 40)]
    p = one(md, [syn.script(SCOPES, ev, clock0=1000)], start_ns=10_000, end_ns=10_100, start_clock=1000,
            end_clock=1100)
    (iv,) = p.tracks[0].intervals
    assert (iv.start_ns, iv.end_ns) == (9_990, 10_040)


def test_unmatched_records_and_unknown_scope_ids():
    md = syn.meta(SCOPES, num_warps=1)
    recs = [(1, True, 5),       # an end without a start
            (0, False, 10),     # load: never ends
            (7, False, 20), (7, True, 30)]  # a scope id the metadata does not have
    p = one(md, [recs], start_ns=0, end_ns=40, start_clock=0, end_clock=40)
    t = p.tracks[0]
    assert (t.unmatched_ends, t.unmatched_starts) == (1, 1)
    assert [(iv.name, iv.start_ns, iv.end_ns, iv.path) for iv in t.intervals] == [
        ("<scope 7>", 20, 30, ("load", "<scope 7>"))]


@pytest.mark.parametrize("grid", [(2, 3, 1), (2, 2, 2), (5, 1, 1)])
def test_slices_map_to_program_ids(grid):
    md = syn.meta(SCOPES, num_warps=1)
    n = grid[0] * grid[1] * grid[2]
    # each slice says which slice it is through its smid and its one scope's length
    data = b"".join(syn.program(md, [syn.script(SCOPES, [("load", "start", 0), ("load", "end", i + 1)])],
                                start_ns=0, end_ns=100, start_clock=0, end_clock=100, smid=i) for i in range(n))
    programs = decode.decode_buffer(data, md, grid)
    assert len(programs) == n
    for i, p in enumerate(programs):
        x, y, z = p.pid
        assert x + grid[0] * (y + grid[1] * z) == i == p.index == p.smid
        assert p.tracks[0].intervals[0].duration_ns == i + 1
    assert sorted(p.pid for p in programs) == sorted(
        (x, y, z) for x in range(grid[0]) for y in range(grid[1]) for z in range(grid[2]))


def test_metric_time_unwraps_the_globaltimer_low_bits():
    md = syn.meta(SCOPES, num_warps=1, metric="time")
    start_ns = 5 * 2**32 - 30  # the low 32 bits wrap 30 ns into the program
    ev = [("load", "start", 10), ("load", "end", 50), ("compute", "start", 60), ("compute", "end", 90)]
    p = one(md, [syn.script(SCOPES, ev, clock0=start_ns)], start_ns=start_ns, end_ns=start_ns + 100,
            start_clock=7, end_clock=9)
    assert [(iv.name, iv.start_ns - start_ns, iv.end_ns - start_ns, iv.cycles) for iv in p.tracks[0].intervals] == [
        ("load", 10, 50, None), ("compute", 60, 90, None)]


def test_uncalibrated_programs_use_the_clock_from_the_environment(monkeypatch):
    md = syn.meta(SCOPES, num_warps=1)
    ev = syn.script(SCOPES, [("load", "start", 0), ("load", "end", 300)])
    # no globaltimer span: cycles / clock
    p = one(md, [ev], start_ns=0, end_ns=0, start_clock=0, end_clock=300)
    assert not p.calibrated and p.ns_per_cycle == pytest.approx(1 / decode.DEFAULT_CLOCK_GHZ)
    monkeypatch.setenv("TESSERA_PROFILE_CLOCK_GHZ", "1.5")
    p = one(md, [ev], start_ns=0, end_ns=0, start_clock=0, end_clock=300)
    assert p.tracks[0].intervals[0].duration_ns == pytest.approx(200)
    monkeypatch.setenv("TESSERA_PROFILE_CLOCK_GHZ", "fast")
    with pytest.raises(ValueError, match="TESSERA_PROFILE_CLOCK_GHZ"):
        one(md, [ev], start_ns=0, end_ns=0, start_clock=0, end_clock=300)
    monkeypatch.setenv("TESSERA_PROFILE_CLOCK_GHZ", "-2")
    with pytest.raises(ValueError, match="positive"):
        decode.clock_ghz()


def test_a_slice_that_was_not_written_is_reported_and_others_decode():
    md = syn.meta(SCOPES, num_warps=2)
    good = syn.program(md, [syn.script(SCOPES, [("load", "start", 0), ("load", "end", 9)])], start_ns=0, end_ns=10,
                       start_clock=0, end_clock=10)
    junk = bytes([0xAB]) * md["bytes_per_program"]  # never written: header garbage
    p0, p1, p2 = decode.decode_buffer(good + junk + good, md, (3, 1, 1))
    assert p1.error and "not written" in p1.error and not p1.tracks
    assert p0.error is None and p2.tracks[0].intervals[0].duration_ns == 9


def test_buffer_and_metadata_errors():
    md = syn.meta(SCOPES, num_warps=2)
    with pytest.raises(ValueError, match="less than grid size 2"):
        decode.decode_buffer(b"\0" * md["bytes_per_program"], md, (2, 1, 1))
    with pytest.raises(ValueError, match="metric"):
        decode.decode_buffer(b"", dict(md, metric="cycles"), (0, 1, 1))
    with pytest.raises(ValueError, match="records_per_warp"):
        decode.check_profile({k: v for k, v in md.items() if k != "records_per_warp"})
    with pytest.raises(ValueError, match="bytes_per_program"):
        decode.check_profile(dict(md, bytes_per_program=64))
    with pytest.raises(ValueError, match="header_bytes"):
        decode.check_profile(dict(md, header_bytes=16))
    with pytest.raises(ValueError, match=r"scopes'\]\[0\]"):
        decode.check_profile(dict(md, scopes=[{"line": 3}]))
    assert decode.decode_buffer(b"", md, (0, 1, 1)) == []


def test_buffer_as_a_uint8_array_and_padding_of_odd_warp_counts():
    md = syn.meta(SCOPES, num_warps=3, records_per_warp=2)  # counts take 12 bytes, padded to 32
    assert decode.records_offset(3) == syn.records_offset(3) == 64
    assert decode.records_offset(8) == 64 and decode.records_offset(9) == 96
    warps = [syn.script(SCOPES, [("load", "start", 0), ("load", "end", w + 1)]) for w in range(3)]
    data = np.frombuffer(syn.program(md, warps, start_ns=0, end_ns=10, start_clock=0, end_clock=10), np.uint8)
    (p,) = decode.decode_buffer(data, md, (1, 1, 1))
    assert [t.intervals[0].duration_ns for t in p.tracks] == [1, 2, 3]


def test_unwrap_is_monotonic():
    vals = np.array([2**32 - 5, 3, 2**32 - 1, 10], dtype=np.uint64)  # wraps twice
    out = decode.unwrap(vals, 2**32 - 10, span=1000)
    assert out.tolist() == [5, 13, 2**32 + 9, 2**32 + 20]
    assert decode.unwrap(np.array([], dtype=np.uint32), 0, 0).size == 0


def test_times_since_1970_keep_every_ns():
    """%globaltimer counts ns since 1970 on current drivers: 1.7e18 does not fit a float64 to the ns."""
    md = syn.meta(SCOPES, num_warps=1)
    start = 1_764_000_000_123_456_789
    ev = syn.script(SCOPES, [("load", "start", 3), ("load", "end", 7)])
    p = one(md, [ev], start_ns=start, end_ns=start + 1000, start_clock=0, end_clock=1000)
    (iv,) = p.tracks[0].intervals
    assert (iv.start_ns - start, iv.end_ns - start, iv.duration_ns) == (3, 7, 4)
    assert isinstance(iv.start_ns, int)


# ------------------------------------------------------------------ the numpy decoder against the reference


def random_warp(rng, n_scopes, length, nested):
    """Records of one warp: a random walk of starts and ends, properly nested when `nested`
    (else ends may close any scope, or one never started), with gaps of 0 (equal times) to 300."""
    recs, stack, t = [], [], int(rng.integers(0, 50))
    for _ in range(length):
        t += int(rng.choice([0, 0, 1, 2, 37, 300]))
        if stack and (rng.random() < 0.5 or len(stack) > 5):
            sid = stack.pop() if nested or rng.random() < 0.7 else int(rng.integers(0, n_scopes + 2))
            recs.append((sid, True, t))
        else:
            sid = int(rng.integers(0, n_scopes + 1))  # n_scopes: an id the metadata does not name
            stack.append(sid)
            recs.append((sid, False, t))
    return recs


@pytest.mark.parametrize("metric", ["cycle", "time"])
def test_random_buffers_decode_like_the_reference(metric):
    rng = np.random.default_rng(16)
    md = syn.meta(SCOPES, num_warps=3, records_per_warp=12, metric=metric)
    slices = []
    for i in range(60):
        if i % 17 == 5:
            slices.append(bytes([0x5A]) * md["bytes_per_program"])  # not written
            continue
        warps = [random_warp(rng, len(SCOPES), int(rng.integers(0, 30)), nested=rng.random() < 0.7) for _ in range(3)]
        start_clock = int(rng.integers(0, 2**32))
        clock0 = start_clock - int(rng.integers(-5, 20))  # a warp may record before thread 0 reads the clock
        warps = [[(s, e, clock0 + t) for s, e, t in w] for w in warps]
        start_ns = 1_764_000_000_000_000_000 + 10_000 * i
        span = int(rng.integers(0, 9000)) if i % 9 else 0  # some programs with no globaltimer span
        slices.append(syn.program(md, warps, start_ns=start_ns, end_ns=start_ns + span, start_clock=start_clock,
                                  end_clock=start_clock + 2 * span, smid=i))
    data = b"".join(slices)
    fast = decode.decode_buffer(data, md, (6, 10, 1))
    ref = decode.decode_buffer_reference(data, md, (6, 10, 1))
    assert fast == ref
    tracks = [t for p in ref for t in p.tracks]
    # the buffer has what the decoder must handle: wrapped rings, unmatched records on both sides,
    # unknown ids, intervals that start at the same ns, slices that were not written
    assert any(t.dropped for t in tracks) and any(t.unmatched_ends for t in tracks)
    assert any(t.unmatched_starts for t in tracks) and any(p.error for p in ref)
    assert any(iv.name.startswith("<scope") for t in tracks for iv in t.intervals)
    assert any(a.start_ns == b.start_ns for t in tracks for a, b in zip(t.intervals, t.intervals[1:]))


@pytest.mark.parametrize("metric", ["cycle", "time"])
def test_a_matmul_sized_launch_decodes_like_the_reference(metric):
    """1024 programs x 8 warps x 255 records (2M records, rings that wrapped, some warps not
    properly nested) through numpy and through the per-record reference: the same programs, and
    the launch's totals agree with those of the objects. Times nothing."""
    md, data = syn.large_launch(programs=1024, num_warps=8, records_per_warp=255, metric=metric)
    records = decode.LaunchRecords(data, md, (1024, 1, 1))
    ref = decode.decode_buffer_reference(data, md, (1024, 1, 1))
    fast = records.programs()
    assert len(fast) == 1024 and fast == ref
    tracks = [t for p in ref for t in p.tracks]
    assert sum(t.dropped for t in tracks) == records.dropped == 1024 * 8 * 5
    assert records.unmatched() == (sum(t.unmatched_starts for t in tracks), sum(t.unmatched_ends for t in tracks))
    for by in ("path", "name"):
        got, want = records.totals(by), decode.interval_totals(ref, by)
        assert list(got) == list(want) and got == want
    assert records.base_ns() == min([p.start_ns for p in ref] + [t.intervals[0].start_ns for t in tracks if t.intervals])


def test_programs_are_made_on_demand_and_kept():
    md, data = syn.large_launch(programs=20, num_warps=2, records_per_warp=16, iterations=2)
    records = decode.LaunchRecords(data, md, (20, 1, 1))
    head = records.programs(3)
    assert [p.index for p in head] == [0, 1, 2] and len(records._objs) == 3
    every = records.programs()
    assert every[:3] == head and every[0] is head[0] and len(every) == 20
    assert every == decode.decode_buffer_reference(data, md, (20, 1, 1))


def test_records_from_the_leading_ring_slots():
    """What stop() copies from a device buffer: the headers and the ring slots in use."""
    md = syn.meta(SCOPES, num_warps=2, records_per_warp=8)
    ev = syn.script(SCOPES, [("load", "start", 0), ("load", "end", 4), ("inner", "start", 5), ("inner", "end", 9)])
    data = b"".join(syn.program(md, [ev, ev[:2]], start_ns=0, end_ns=10, start_clock=0, end_clock=10) for _ in range(3))
    slices = np.frombuffer(data, np.uint8).reshape(3, -1)
    off = decode.records_offset(2)
    assert decode.slots_in_use(slices[:, :off], md) == 4
    rings = slices[:, off:].reshape(3, 2, 8 * 8)[:, :, :4 * 8]
    parts = decode.LaunchRecords.from_parts(slices[:, :off], rings, md, (3, 1, 1))
    assert parts.programs() == decode.decode_buffer(data, md, (3, 1, 1))
    with pytest.raises(ValueError, match="kept 4 records"):
        decode.LaunchRecords.from_parts(slices[:, :off], rings[:, :, :3 * 8], md, (3, 1, 1))
