"""Large-shape benchmarks: the conformance kernels at sizes that fill an H200, Tessera vs Triton vs PyTorch.

    python3 benchmarks/large_shapes.py --out results.json

Runs each kernel under both implementations (the same source, loaded twice by the
conformance runner's loader) on the same inputs, checks the result against PyTorch,
and times the launch with triton.testing.do_bench (median, ms). Needs a GPU,
Triton (for do_bench and the reference) and the conformance suite
($TESSERA_CONFORMANCE_DIR or ../shared/conformance).
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONF = os.environ.get("TESSERA_CONFORMANCE_DIR", os.path.join(ROOT, "..", "shared", "conformance"))


def cases(torch, mods):
    """(name, impl, launch, check, bytes, flops) for every case and implementation."""
    out = []
    # vector add, 2^28 fp32
    n = 1 << 28
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    for impl, m in mods.items():
        z = torch.empty_like(x)
        out.append(("vector add 2^28 fp32", impl,
                    lambda m=m, z=z: m.add_kernel[(n // 1024,)](x, y, z, n, BLOCK=1024),
                    lambda z=z: torch.allclose(z, x + y), 3 * n * 4, 0))
    # softmax 4096 x 4096 fp32
    M, N = 4096, 4096
    s = torch.randn(M, N, device="cuda")
    ref = torch.softmax(s, 1)
    for impl, m in mods.items():
        o = torch.empty_like(s)
        out.append(("softmax 4096x4096 fp32", impl,
                    lambda m=m, o=o: m.softmax_kernel[(M,)](o, s, s.stride(0), o.stride(0), N, BLOCK=N),
                    lambda o=o: torch.allclose(o, ref, atol=1e-5, rtol=1e-4), 2 * M * N * 4, 0))
    # matmul 4096^3 fp16
    S = 4096
    a = torch.randn(S, S, device="cuda", dtype=torch.float16)
    b = torch.randn(S, S, device="cuda", dtype=torch.float16)
    mref = (a.float() @ b.float())
    for impl, m in mods.items():
        c = torch.empty(S, S, device="cuda", dtype=torch.float16)
        BM, BN, BK = 64, 64, 32
        grid = (triton_cdiv(S, BM) * triton_cdiv(S, BN),)
        out.append(("matmul 4096^3 fp16", impl,
                    lambda m=m, c=c: m.matmul_kernel[grid](a, b, c, S, S, S, a.stride(0), a.stride(1), b.stride(0),
                                                           b.stride(1), c.stride(0), c.stride(1), BM=BM, BN=BN,
                                                           BK=BK, GM=8, num_warps=4),
                    lambda c=c: (c.float() - mref).abs().max().item() < 1.0, 0, 2 * S ** 3))
    return out


def queued_gpu_ms(torch, launch, reps=50):
    """Kernel time with launch overhead hidden: the GPU is held busy (torch.cuda._sleep) while
    `reps` launches queue up behind it, so the events bracket back-to-back kernels only."""
    launch()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(200_000_000)  # ~0.1 s of spinning: far longer than queuing the launches takes
    start.record()
    for _ in range(reps):
        launch()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def triton_cdiv(a, b):
    return (a + b - 1) // b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench
    sys.path.insert(0, CONF)
    import runner
    mods = {impl: runner.load_kernels(impl) for impl in ("tessera", "triton")}
    results = []
    for name, impl, launch, check, nbytes, flops in cases(torch, mods):
        rec = {"case": name, "impl": impl}
        try:
            t0 = time.perf_counter()
            launch()
            torch.cuda.synchronize()
            rec["first_call_s"] = time.perf_counter() - t0
            rec["ok"] = bool(check())
            ms = do_bench(launch, warmup=25, rep=200, return_mode="median")
            rec["ms"] = ms
            rec["queued_gpu_ms"] = queued_gpu_ms(torch, launch)
            if nbytes:
                rec["gbps"] = nbytes / (ms * 1e-3) / 1e9
            if flops:
                rec["tflops"] = flops / (ms * 1e-3) / 1e12
        except Exception as e:  # one failure must not hide the others
            rec["ok"] = False
            rec["why"] = f"{type(e).__name__}: {e}"[:400]
        print(json.dumps(rec), flush=True)
        results.append(rec)
    print(f"{'case':<24} {'impl':<8} {'ok':<5} {'ms':>9} {'queued ms':>10} {'GB/s':>8} {'TFLOP/s':>8}")
    for r in results:
        print(f"{r['case']:<24} {r['impl']:<8} {str(r['ok']):<5} {r.get('ms', float('nan')):>9.3f} "
              f"{r.get('queued_gpu_ms', float('nan')):>10.3f} {r.get('gbps', 0):>8.0f} {r.get('tflops', 0):>8.1f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
