"""Host time per launch of 4-argument kernels, Tessera vs Triton, in one process on one GPU.

    python3 benchmarks/launch_overhead.py --out launch.json

Two measures, each the median of 7 repeats (repeats interleave the implementations and cases):
  host_us   wall time of 500 back-to-back launches / 500, while the GPU sleeps (torch.cuda._sleep),
            so no launch waits for the GPU: what the host spends per launch;
  steady_us wall time of 5000 launches followed by a synchronize / 5000, the GPU running them:
            the rate a launch-bound loop sustains (ARCHITECTURE §9's "host wall per launch").
Cases: an empty kernel (empty4), a vector add of 2^12 elements with a grid tuple, and the same with
a grid lambda. Tessera is also timed for its driver call alone: through the old Python binding with
pre-packed arguments, and as cuLaunchKernel in a C++ loop (driver_only_*), the floor below which no
launch path can go.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def host_us(torch, launch, reps=500, repeats=7):
    launch()
    torch.cuda.synchronize()
    out = []
    for _ in range(repeats):
        torch.cuda._sleep(100_000_000)  # ~50 ms of GPU spinning, far longer than the loop
        t0 = time.perf_counter()
        for _ in range(reps):
            launch()
        out.append((time.perf_counter() - t0) / reps * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out), out


def steady_us(torch, launch, reps=5000, repeats=7):
    launch()
    torch.cuda.synchronize()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(reps):
            launch()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(out), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--impls", default="tessera,triton")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    import torch
    import _loader
    mods = {}
    for impl in args.impls.split(","):
        try:
            if impl == "tessera":
                sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
            mods[impl] = _loader.load(impl)
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"impl": impl, "why": f"{type(e).__name__}: {e}"[:300]}))
    n = 1 << 12
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    g = ((n + 255) // 256,)
    launches, outs = {}, {}
    for impl, m in mods.items():
        z = torch.empty_like(x)
        outs[impl] = z
        launches[(impl, "empty4 grid tuple")] = lambda m=m, z=z: m.empty4[(1,)](x, y, z, n)
        launches[(impl, "add4 2^12 grid tuple")] = lambda m=m, z=z: m.add4[g](x, y, z, n, BLOCK=256)
        launches[(impl, "add4 2^12 grid lambda")] = lambda m=m, z=z: m.add4[
            lambda meta: (triton_cdiv(meta["n"], meta["BLOCK"]),)](x, y, z, n, BLOCK=256)
    # Repeats interleave implementations and cases, so drift of a shared host (other tenants,
    # clocks) affects all of them alike.
    samples = {k: {"host": [], "steady": []} for k in launches}
    why = {}
    for _ in range(args.repeats):
        for k, launch in launches.items():
            if k in why:
                continue
            try:
                samples[k]["host"].append(host_us(torch, launch, repeats=1)[0])
                samples[k]["steady"].append(steady_us(torch, launch, repeats=1)[0])
            except Exception as e:  # noqa: BLE001
                why[k] = f"{type(e).__name__}: {e}"[:400]
    results = []
    for (impl, case), sm in samples.items():
        rec = {"impl": impl, "case": case}
        if (impl, case) in why:
            rec["why"] = why[(impl, case)]
        else:
            rec["host_us"], rec["host_us_all"] = statistics.median(sm["host"]), sm["host"]
            rec["steady_us"], rec["steady_us_all"] = statistics.median(sm["steady"]), sm["steady"]
            if case.startswith("add4"):
                launches[(impl, case)]()
                torch.cuda.synchronize()
                rec["ok"] = bool(torch.equal(outs[impl], x + y))
        print(json.dumps({k: v for k, v in rec.items() if not k.endswith("_all")}), flush=True)
        results.append(rec)
    if "tessera" in mods:
        results.append(tessera_floor(torch, mods["tessera"], x, y, n))
    print(f"{'case':<24} {'impl':<8} {'host µs':>8} {'steady µs':>10}")
    for r in results:
        if "host_us" in r:
            print(f"{r['case']:<24} {r['impl']:<8} {r['host_us']:>8.2f} {r.get('steady_us', float('nan')):>10.2f}")
    by = {(r["impl"], r["case"]): r for r in results}
    for case in ("empty4 grid tuple", "add4 2^12 grid tuple", "add4 2^12 grid lambda"):
        t, r = by.get(("tessera", case), {}), by.get(("triton", case), {})
        if "host_us" in t and "host_us" in r:
            print(f"{case}: host time Tessera/Triton = {t['host_us'] / r['host_us']:.2f}, "
                  f"steady = {t['steady_us'] / r['steady_us']:.2f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


def tessera_floor(torch, m, x, y, n):
    """The driver call alone (arguments packed beforehand), and the key computation alone."""
    import struct
    from tessera import _C
    rec = {"impl": "tessera", "case": "floor: cuLaunchKernel via _C.cuda.launch (empty4)"}
    try:
        k = m.empty4[(1,)](x, y, x, n)
        blob = struct.pack("<QQQi", x.data_ptr(), y.data_ptr(), x.data_ptr(), n)
        offs = [0, 8, 16, 24]
        stream = torch.cuda.current_stream().cuda_stream
        fn = k.loaded.function
        launch = lambda: _C.cuda.launch(fn, 1, 1, 1, 128, 1, 1, 0, stream, blob, offs)  # noqa: E731
        rec["host_us"], _ = host_us(torch, launch)
        rec["steady_us"], _ = steady_us(torch, launch)
        ctx = k.loaded.info.context
        torch.cuda._sleep(100_000_000)
        rec["driver_only_host_us"] = _C.cuda.bench_launch(fn, ctx, stream, 128, 4, 500)
        torch.cuda.synchronize()
        rec["driver_only_steady_us"] = _C.cuda.bench_launch(fn, ctx, stream, 128, 4, 5000)
        torch.cuda.synchronize()
        from tessera import backends
        cfg = backends.get("cuda").specialization.config()
        spec = lambda: m.empty4._specialize((x, y, x, n), {}, cfg)  # noqa: E731
        t0 = time.perf_counter()
        for _ in range(20000):
            spec()
        rec["specialize_key_us"] = (time.perf_counter() - t0) / 20000 * 1e6
    except Exception as e:  # noqa: BLE001
        rec["why"] = f"{type(e).__name__}: {e}"[:400]
    print(json.dumps(rec), flush=True)
    return rec


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main()
