"""Profiles built from synthetic buffers through the public session API, with known numbers."""

import time

import tessera.profiler as profiler

from . import synthetic as syn

SCOPES = ["load", "dot", "inner"]


def two_program_buffer(records_per_warp=16):
    """(metadata, buffer) of 2 programs of 2 warps, 1000 cycles in 1000 ns each (1 ns per cycle):
    warp 0: load 0..100, dot 100..700 holding inner 200..300 and 400..500; warp 1: load 0..300,
    dot 300..500."""
    md = syn.meta(SCOPES, num_warps=2, records_per_warp=records_per_warp)
    w0 = syn.script(SCOPES, [("load", "start", 0), ("load", "end", 100), ("dot", "start", 100),
                             ("inner", "start", 200), ("inner", "end", 300), ("inner", "start", 400),
                             ("inner", "end", 500), ("dot", "end", 700)])
    w1 = syn.script(SCOPES, [("load", "start", 0), ("load", "end", 300), ("dot", "start", 300), ("dot", "end", 500)])
    data = b"".join(syn.program(md, [w0, w1], start_ns=50_000 + 10 * i, end_ns=51_000 + 10 * i, start_clock=0,
                                end_clock=1000, smid=i) for i in range(2))
    return md, data


def wrapped_buffer():
    """(metadata, buffer) of 1 program, 1 warp, a ring of 4 records holding the last 2 of 5 loads."""
    md = syn.meta(SCOPES, num_warps=1, records_per_warp=4)
    ev = []
    for k in range(5):
        ev += [("load", "start", 100 * k), ("load", "end", 100 * k + 50)]
    return md, syn.program(md, [syn.script(SCOPES, ev)], start_ns=0, end_ns=1000, start_clock=0, end_clock=1000)


def sample_profile(name="sample", path=None, wrapped=False):
    """A session with host scope "step" holding two launches of "matmul" (two_program_buffer) of
    10 us each, then "copy" (no records) outside it, and optionally "wrapped" (wrapped_buffer).
    stop() writes the trace to `path`, by default <name>.json in the current folder (the tests
    run in a temporary one)."""
    md, data = two_program_buffer()
    profiler.start(name, path=path)
    t = time.perf_counter_ns()  # launches are reported at made-up times after this
    with profiler.scope("step"):
        profiler.record_launch("matmul", (2,), t + 1_000, t + 11_000, profile=md, buffer=data)
        profiler.record_launch("matmul", (2,), t + 21_000, t + 31_000, profile=md, buffer=data)
    profiler.record_launch("copy", (8,), t + 40_000, t + 44_000)
    if wrapped:
        wmd, wdata = wrapped_buffer()
        profiler.record_launch("wrapped", (1,), t + 45_000, t + 46_000, profile=wmd, buffer=wdata)
    return profiler.stop()
