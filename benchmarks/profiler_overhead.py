"""tessera.profiler on the GPU (issue 16): intra-kernel scopes on a matmul (load / dot / store
in the K loop) and a softmax (its phases), one kernel whose scopes live in a noinline callee.

For each kernel, alternating repeats of: a session of mode "kernels" (no instrumentation: the
PTX is the one compiled without a session, checked) and one of mode "scopes"; every launch timed
with CUDA events by the session. Reported: the median kernel time of each mode and the overhead
of scopes, the per-warp timelines' coverage (earliest scope start to latest scope end over the
launch's programs, against the event-timed kernel time; and, per warp, the sum of its outermost
scopes against its program's duration), records dropped to ring wraps, and the noinline case's
records. Writes JSON (--out)."""
import argparse
import json
import os
import statistics
import sys

import torch

import tessera
import tessera.language as tl
import tessera.profiler as profiler
import tessera.profiler.language as pl


@tessera.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pid_m = pid // npn
    pid_n = pid % npn
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        with pl.scope("load"):
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        with pl.scope("dot"):
            acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    with pl.scope("store"):
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


@tessera.jit
def matmul_coarse(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The matmul with one scope around its K loop and one around the store: no record inside the
    loop (what per-iteration records cost, against the fine-grained `matmul`)."""
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pid_m = pid // npn
    pid_n = pid % npn
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    with pl.scope("k_loop"):
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
            acc = tl.dot(a, b, acc)
            a_ptrs += BK
            b_ptrs += BK * N
    with pl.scope("store"):
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


@tessera.jit
def softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    with pl.scope("load"):
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    with pl.scope("max"):
        m = tl.max(x, axis=0)
    with pl.scope("exp_sum"):
        e = tl.exp(x - m)
        s = tl.sum(e, axis=0)
    with pl.scope("store"):
        tl.store(y_ptr + row * n_cols + cols, e / s, mask=cols < n_cols)


@tessera.jit(noinline=True)
def row_body(x_ptr, y_ptr, n_cols, row, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    with pl.scope("callee_load"):
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    with pl.scope("callee_store"):
        tl.store(y_ptr + row * n_cols + cols, x * 2.0, mask=cols < n_cols)


@tessera.jit
def calls_noinline(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row_body(x_ptr, y_ptr, n_cols, tl.program_id(0), BLOCK)


def _cases():
    M = N = K = 4096
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)

    def mm():
        matmul[(M // 128 * (N // 128),)](a, b, c, M, N, K, BM=128, BN=128, BK=64, num_warps=8, num_stages=3)

    def mm_wide():
        matmul[(M // 128 * (N // 256),)](a, b, c, M, N, K, BM=128, BN=256, BK=64, num_warps=8, num_stages=3)

    def mm_coarse():
        matmul_coarse[(M // 128 * (N // 128),)](a, b, c, M, N, K, BM=128, BN=128, BK=64, num_warps=8,
                                                num_stages=3)

    def sm():
        softmax[(4096,)](x, y, 4096, BLOCK=4096, num_warps=8)

    def check_mm():
        return float((c.float() - (a.float() @ b.float())).abs().max())

    def check_sm():
        return float((y - torch.softmax(x, dim=1)).abs().max())
    return {"matmul_4096": (mm, matmul, check_mm, 2 * M * N * K),
            "matmul_4096_128x256": (mm_wide, matmul, check_mm, 2 * M * N * K),
            "matmul_4096_coarse": (mm_coarse, matmul_coarse, check_mm, 2 * M * N * K),
            "softmax_4096": (sm, softmax, check_sm, None)}


def _session(mode, fn, reps):
    with profiler.profile(mode=mode) as prof:
        for _ in range(reps):
            fn()
    torch.cuda.synchronize()
    return prof


def _coverage(launch):
    starts, ends, warp_ratio = [], [], []
    for p in launch.programs:
        for t in p.tracks:
            top = [i for i in t.intervals if i.depth == 0]
            if not top:
                continue
            starts.append(min(i.start_ns for i in top))
            ends.append(max(i.end_ns for i in top))
            if p.duration_ns:
                warp_ratio.append(sum(i.duration_ns for i in top) / p.duration_ns)
    if not starts:
        return None
    span = max(ends) - min(starts)
    return {"span_ns": span, "kernel_ns": launch.duration_ns,
            "span_over_kernel": span / launch.duration_ns if launch.duration_ns else None,
            "warp_scopes_over_program_median": statistics.median(warp_ratio) if warp_ratio else None,
            "warps": len(warp_ratio), "programs": len(launch.programs), "dropped": launch.dropped,
            "unmatched_starts": launch.unmatched_starts, "unmatched_ends": launch.unmatched_ends}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="profiler.json")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    args = ap.parse_args()
    res = {"device": torch.cuda.get_device_name(), "cases": {}}
    for name, (fn, jit, check, flops) in _cases().items():
        if args.cases and name not in args.cases.split(","):
            continue
        case = {}
        # Without a session and in mode "kernels": the same PTX.
        fn()
        torch.cuda.synchronize()
        ptx_off = [k.asm["ptx"] for k in jit.cache.values()]
        prof = _session("kernels", fn, 1)
        ptx_kernels = [k.asm["ptx"] for k in jit.cache.values()]
        case["ptx_identical_off_vs_kernels"] = ptx_off == ptx_kernels
        times = {"kernels": [], "scopes": []}
        last = None
        for r in range(args.rounds):
            for mode in ("kernels", "scopes"):
                prof = _session(mode, fn, args.reps + 2)
                d = [k.duration_ns for k in prof.kernels[2:] if k.duration_ns]
                times[mode].append(statistics.median(d))
                if mode == "scopes":
                    last = prof
        case["kernels_ns"] = times["kernels"]
        case["scopes_ns"] = times["scopes"]
        mk, ms = statistics.median(times["kernels"]), statistics.median(times["scopes"])
        case["overhead"] = ms / mk - 1
        if flops:
            case["tflops_kernels"] = flops / mk / 1e3
            case["tflops_scopes"] = flops / ms / 1e3
        case["max_error_after_scopes"] = check()
        case["coverage"] = _coverage(last.kernels[-1])
        # the last launch's scopes: [calls, total ns, warps, cycles]
        case["scope_totals_last_launch"] = {k: list(v) for k, v in last.kernels[-1].scope_totals_by("name").items()}
        case["profile_meta"] = {k: v for k, v in (last.kernels[-1].profile or {}).items() if k != "scopes"}
        res["cases"][name] = case
        print(name, json.dumps({k: case[k] for k in ("overhead", "coverage", "ptx_identical_off_vs_kernels")}),
              flush=True)
        if name == "matmul_4096":  # one launch's trace, its first 16 programs (the docs' picture)
            with profiler.profile(mode="scopes") as one:
                fn()
            torch.cuda.synchronize()
            one.save(os.path.join(os.path.dirname(args.out) or ".", "matmul_trace.json"), max_programs=16)
    # The noinline case: the callee's scopes, in every warp of every program.
    x = torch.randn(256, 1024, device="cuda")
    y = torch.empty_like(x)
    with profiler.profile(mode="scopes") as prof:
        calls_noinline[(256,)](x, y, 1024, BLOCK=1024)
    torch.cuda.synchronize()
    launch = prof.kernels[-1]
    names = {}
    for p in launch.programs:
        for t in p.tracks:
            for i in t.intervals:
                names[i.name] = names.get(i.name, 0) + 1
    res["noinline"] = {"intervals_by_scope": names, "programs": len(launch.programs),
                       "warps_per_program": len(launch.programs[0].tracks) if launch.programs else 0,
                       "correct": bool(torch.equal(y, x * 2.0)), "dropped": launch.dropped,
                       "errors": launch.errors}
    print("noinline", json.dumps(res["noinline"]), flush=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
