"""Timing only (no decoding): profiler_overhead's cases in modes "kernels" and "scopes", alternating
rounds; one JSON line per case. Used to compare record-lowering variants, one process each (the
variant chosen by the environment of the build under test)."""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
import torch  # noqa: E402
import profiler_overhead as po  # noqa: E402

tag = sys.argv[1] if len(sys.argv) > 1 else ""
for name, (fn, jit, check, flops) in po._cases().items():
    fn()
    torch.cuda.synchronize()
    times = {"kernels": [], "scopes": []}
    for r in range(5):
        for mode in ("kernels", "scopes"):
            prof = po._session(mode, fn, 22)
            d = [k.duration_ns for k in prof.kernels[2:] if k.duration_ns]
            times[mode].append(statistics.median(d))
    mk, ms = statistics.median(times["kernels"]), statistics.median(times["scopes"])
    print(json.dumps({"variant": tag, "case": name, "kernels_ns": times["kernels"], "scopes_ns": times["scopes"],
                      "overhead": ms / mk - 1}), flush=True)
