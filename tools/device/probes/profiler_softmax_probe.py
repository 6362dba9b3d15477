"""Where a softmax's profiling overhead goes (issue 16): the same softmax with 4 scopes, with one
scope around the whole program (2 records per warp: the fixed cost of entry and exit), timed in
sessions of mode "kernels" and "scopes" alternately. Prints JSON lines."""
import json
import statistics
import sys

import torch

sys.path.insert(0, "benchmarks")
import profiler_overhead as po  # noqa: E402

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
import tessera.profiler.language as pl  # noqa: E402


@tessera.jit
def softmax_one(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    with pl.scope("all"):
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        m = tl.max(x, axis=0)
        e = tl.exp(x - m)
        s = tl.sum(e, axis=0)
        tl.store(y_ptr + row * n_cols + cols, e / s, mask=cols < n_cols)


x = torch.randn(4096, 4096, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
cases = {"four_scopes": lambda: po.softmax[(4096,)](x, y, 4096, BLOCK=4096, num_warps=8),
         "one_scope": lambda: softmax_one[(4096,)](x, y, 4096, BLOCK=4096, num_warps=8)}
for name, fn in cases.items():
    fn()
    times = {"kernels": [], "scopes": []}
    for _ in range(7):
        for mode in ("kernels", "scopes"):
            prof = po._session(mode, fn, 22)
            times[mode].append(statistics.median([k.duration_ns for k in prof.kernels[2:]]))
    mk, ms = statistics.median(times["kernels"]), statistics.median(times["scopes"])
    print(json.dumps({"case": name, "kernels_ns": mk, "scopes_ns": ms, "overhead": ms / mk - 1}), flush=True)
