"""Makes docs/images/profiler-speedscope.png: a profiler trace opened in speedscope (headless
Chromium), showing one warp's scopes.

    PYTHONPATH=python /usr/bin/python3 tools/docs/profiler_screenshot.py [--trace saved.json]

Without --trace the profile is synthetic: a launch of a matmul-like kernel (4 programs of 4 warps
running load / dot three times, then store) whose profile buffer is written byte for byte as an
instrumented kernel writes it (python/test/unit/profiler/synthetic.py), decoded by the profiler
like a real one. With --trace, a trace saved by tessera.profiler (e.g. on a GPU) is shown instead.
speedscope shows one thread of a trace at a time, the first by pid: the picture keeps the first
launch's intra-kernel process (or, for a trace without one, everything).
"""
import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import tessera.profiler as profiler  # noqa: E402
from test.unit.profiler import speedscope, synthetic  # noqa: E402

OUT = os.path.join(ROOT, "docs", "images", "profiler-speedscope.png")


def synthetic_trace():
    md, data = synthetic.matmul_like(grid=(4, 1, 1), num_warps=4, iterations=3)
    profiler.start(mode="scopes")  # unnamed: no file is written
    t = time.perf_counter_ns()
    with profiler.scope("step"):
        profiler.record_launch("matmul", (4,), t + 1_000, t + 9_000, profile=md, buffer=data)
    prof = profiler.stop()
    return prof.trace()


def first_launch_only(obj):
    """The events of the first intra-kernel process (pid 3, the first launch with records)."""
    pids = {e["pid"] for e in obj["traceEvents"]}
    launch = min((p for p in pids if p > 2), default=None)
    if launch is None:
        return obj
    return dict(obj, traceEvents=[e for e in obj["traceEvents"] if e["pid"] == launch])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", help="a trace saved by tessera.profiler (default: a synthetic one)")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    why = speedscope.missing()
    if why:
        sys.exit(why)
    if args.trace:
        with open(args.trace) as f:
            obj = json.load(f)
    else:
        obj = synthetic_trace()
    profiler.validate_trace(obj)
    shown = first_launch_only(obj)
    with speedscope.serve(json.dumps(shown).encode()) as url:
        speedscope.screenshot(url, args.out, width=1400, height=300)
    print(f"wrote {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
