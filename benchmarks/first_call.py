"""First call including compilation, cold (empty cache) and warm (a new process, cache filled),
Tessera vs Triton, for a vector add (2^20 fp32) and a matmul (1024^3 fp16).

    python3 benchmarks/first_call.py --out first_call.json

Each measurement is a fresh Python process: it imports torch and the implementation (timed apart),
creates the inputs, then times the first launch up to a synchronize, and checks the result.
Cold runs get an empty cache directory (TESSERA_CACHE_DIR / TRITON_CACHE_DIR); the warm run is a
second process on the same directory. Each is repeated --repeats times; medians are reported.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child(impl, kernel):
    import torch
    t0 = time.perf_counter()
    if impl == "tessera":
        sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, HERE)
    import _loader
    m = _loader.load(impl)
    import_s = time.perf_counter() - t0
    if kernel == "add":
        n = 1 << 20
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        z = torch.empty_like(x)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        m.add4[(n // 1024,)](x, y, z, n, BLOCK=1024)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        ok = bool(torch.equal(z, x + y))
    else:
        S = 1024
        a = torch.randn(S, S, device="cuda", dtype=torch.float16)
        b = torch.randn(S, S, device="cuda", dtype=torch.float16)
        c = torch.empty(S, S, device="cuda", dtype=torch.float16)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        m.matmul[(S // 64, S // 64)](a, b, c, S, S, S, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                     c.stride(0), c.stride(1), BM=64, BN=64, BK=32)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        ok = bool((c.float() - a.float() @ b.float()).abs().max().item() < 0.5)
    print(json.dumps({"import_s": import_s, "first_call_s": first, "ok": ok}))


def run_child(impl, kernel, cache_dir):
    env = dict(os.environ)
    env["TESSERA_CACHE_DIR" if impl == "tessera" else "TRITON_CACHE_DIR"] = cache_dir
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", impl, kernel], env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return {"why": p.stderr.strip().splitlines()[-1][:300] if p.stderr.strip() else f"exit {p.returncode}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--out")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--impls", default="tessera,triton")
    args = ap.parse_args()
    if args.child:
        return child(*args.child)
    results = []
    for impl in args.impls.split(","):
        for kernel in ("add", "matmul"):
            runs = {"cold": [], "warm": []}
            for _ in range(args.repeats):
                d = tempfile.mkdtemp(prefix=f"first_call_{impl}_")
                runs["cold"].append(run_child(impl, kernel, d))
                runs["warm"].append(run_child(impl, kernel, d))
            rec = {"impl": impl, "kernel": kernel, "runs": runs}
            for mode, rs in runs.items():
                good = [r for r in rs if "first_call_s" in r]
                if good:
                    rec[f"{mode}_s"] = statistics.median(r["first_call_s"] for r in good)
                    rec[f"{mode}_import_s"] = statistics.median(r["import_s"] for r in good)
                    rec[f"{mode}_ok"] = all(r["ok"] for r in good)
                if len(good) < len(rs):
                    rec[f"{mode}_why"] = next(r["why"] for r in rs if "why" in r)
            print(json.dumps({k: v for k, v in rec.items() if k != "runs"}), flush=True)
            results.append(rec)
    print(f"{'kernel':<8} {'impl':<8} {'cold s':>8} {'warm s':>8} {'import s':>9}")
    for r in results:
        print(f"{r['kernel']:<8} {r['impl']:<8} {r.get('cold_s', float('nan')):>8.3f} "
              f"{r.get('warm_s', float('nan')):>8.3f} {r.get('warm_import_s', float('nan')):>9.3f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
