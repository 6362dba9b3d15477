"""Tessera's interpreter against Triton's (TRITON_INTERPRET=1), on CPU tensors, same inputs.

    python3 tools/device/interp_compare.py --out DIR [--repeats 3] [--impls tessera triton]

For each case -- the shared conformance suite (the same kernels.py source, as runner.py loads it
for each implementation), the examples (examples/kernels.py, imports rebound for Triton) and a
launch of 4096 programs of a 128-element add -- each implementation runs in its own process
(TESSERA_INTERPRET=1 / TRITON_INTERPRET=1 set before its import): a first launch (compile
checks, caches), then the timed second launch (wall time), then `--repeats` more launches whose
minimum is reported beside it. The outputs of the second launch are saved and compared across
implementations (byte-equal, else the largest difference), and each is checked against the
case's PyTorch reference. Writes DIR/interp_compare.json and DIR/interp_compare.txt (a table, the
totals, and whether Tessera's interpreter is >= 5x faster in total and no case slower).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def conformance_dir():
    for d in (os.environ.get("TESSERA_CONFORMANCE_DIR"), os.path.join(ROOT, "dist", "conformance"),
              os.path.normpath(os.path.join(ROOT, "..", "shared", "conformance"))):
        if d and os.path.exists(os.path.join(d, "runner.py")):
            return d
    raise SystemExit("no conformance suite: set TESSERA_CONFORMANCE_DIR")


# ------------------------------------------------------------------ the worker (one implementation)


def _load_examples(impl):
    """examples/kernels.py with its imports rebound to `impl`."""
    import importlib.util
    with open(os.path.join(ROOT, "examples", "kernels.py")) as f:
        src = f.read()
    if impl == "triton":
        src = src.replace("import tessera.language as tl", "import triton.language as tl")
        src = src.replace("import tessera\n", "import triton as tessera\n")
    d = tempfile.mkdtemp(prefix=f"interp_examples_{impl}_")
    path = os.path.join(d, f"interp_examples_{impl}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"interp_examples_{impl}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _closure_tensors(torch, fn):
    out, seen = [], set()
    for cell in getattr(fn, "__closure__", None) or ():
        v = cell.cell_contents
        if isinstance(v, torch.Tensor) and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _cases(impl, torch):
    """(name, group, make() -> dict(launch, outputs() -> tensors, check() -> (ok, why)), kernel)."""
    sys.path.insert(0, conformance_dir())
    import runner
    conf = runner.load_kernels(impl)
    cases = []
    for name, make in conf.CASES.items():
        def mk(make=make):
            d = make(torch, "cpu")
            if "check" in d:
                outputs = lambda d=d: _closure_tensors(torch, d["launch"])  # noqa: E731
                check = d["check"]
            else:
                outputs = d["out"]
                check = lambda d=d: runner.compare(torch, d["out"](), d["ref"](), d.get("atol", 1e-5),  # noqa: E731
                                                   d.get("rtol", 1e-5))
            return dict(launch=d["launch"], outputs=outputs, check=check)
        cases.append((name, "conformance", mk, conf.KERNELS.get(name)))
    ex = _load_examples(impl)
    kernel_of = {"vector add": ex.add_kernel, "softmax": ex.softmax_kernel, "layer norm": ex.layernorm_kernel,
                 "matmul": ex.matmul_kernel}
    for name, make in ex.EXAMPLES.items():
        def mk(make=make):
            d = make(torch, "cpu")
            return dict(launch=d["launch"], outputs=lambda d=d: [d["out"]()],
                        check=lambda d=d: runner.compare(torch, [d["out"]()], [d["ref"]()], d["tol"], d["tol"]))
        cases.append((f"example {name}", "examples", mk, kernel_of.get(name)))

    def many():
        n = 4096 * 128
        x = torch.rand(n)
        y = torch.rand(n)
        z = torch.empty_like(x)
        return dict(launch=lambda: conf.add_kernel[(4096,)](x, y, z, n, BLOCK=128), outputs=lambda: [z],
                    check=lambda: runner.compare(torch, [z], [x + y], 0, 0))
    cases.append(("add 4096x128", "many programs", many, conf.add_kernel))
    return cases


def worker(impl, out_json, out_tensors, repeats, only):
    base = impl.split("-")[0]  # tessera-serial: Tessera's interpreter with TESSERA_INTERPRET_BATCH=0
    os.environ["TESSERA_INTERPRET" if base == "tessera" else "TRITON_INTERPRET"] = "1"
    if impl == "tessera-serial":
        os.environ["TESSERA_INTERPRET_BATCH"] = "0"
    import torch
    res = {"impl": impl, "python": sys.version.split()[0], "torch": torch.__version__, "cases": []}
    if base == "tessera":
        import tessera
        from tessera import interpreter
        res["version"] = tessera.__version__
        res["batch"] = os.environ.get("TESSERA_INTERPRET_BATCH", "")
    else:
        import triton
        res["version"] = triton.__version__
    import numpy
    res["numpy"] = numpy.__version__
    saved = {}
    for name, group, make, kernel in _cases(base, torch):
        if only and name not in only:
            continue
        rec = {"case": name, "group": group}
        try:
            torch.manual_seed(0)
            d = make()
            t0 = time.perf_counter()
            d["launch"]()
            rec["first_s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            d["launch"]()
            rec["second_s"] = time.perf_counter() - t0
            outs = [t.detach().cpu().clone() for t in d["outputs"]()]
            ok, why = d["check"]()
            rec["ok"] = bool(ok)
            if why:
                rec["why"] = why
            more = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                d["launch"]()
                more.append(time.perf_counter() - t0)
            rec["best_s"] = min([rec["second_s"]] + more)
            if base == "tessera" and kernel is not None and hasattr(interpreter, "last_launch"):
                rec["launch"] = interpreter.last_launch(kernel)
            for i, t in enumerate(outs):
                saved[f"{name}|{i}"] = t
        except Exception as e:  # one failure must not hide the other cases
            import traceback
            rec["ok"] = False
            rec["why"] = f"{type(e).__name__}: {e}"[:400]
            rec["trace"] = traceback.format_exc()[-1500:]
        print(json.dumps({k: v for k, v in rec.items() if k != "trace"}), flush=True)
        res["cases"].append(rec)
    torch.save(saved, out_tensors)
    with open(out_json, "w") as f:
        json.dump(res, f, indent=1)


# ------------------------------------------------------------------ the parent


def _compare_tensors(torch, a, b):
    """'equal' (bytes), or the largest difference."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"dtype/shape {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
    if torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)):
        return "equal"
    if a.dtype.is_floating_point:
        fa, fb = a.double(), b.double()
        both_nan = torch.isnan(fa) & torch.isnan(fb)
        d = torch.where(both_nan, torch.zeros_like(fa), (fa - fb).abs())
        if torch.isnan(d).any():
            return "NaN differs"
        return f"max |diff| {d.max().item():.3g}"
    return f"{int((a != b).sum())} elements differ"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--impls", nargs="+", default=["tessera", "triton"],
                    help="tessera, triton, tessera-serial (TESSERA_INTERPRET_BATCH=0)")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--worker")
    ap.add_argument("--json")
    ap.add_argument("--tensors")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.json, args.tensors, args.repeats, args.only)
        return 0
    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="interp_compare_")
    runs = {}
    for impl in args.impls:
        j, t = os.path.join(tmp, f"{impl}.json"), os.path.join(tmp, f"{impl}.pt")
        env = dict(os.environ)
        env.pop("TESSERA_INTERPRET", None)
        env.pop("TRITON_INTERPRET", None)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl, "--json", j, "--tensors", t,
               "--repeats", str(args.repeats)] + (["--only"] + args.only if args.only else [])
        print(f"== {impl}", flush=True)
        r = subprocess.run(cmd, env=env, timeout=1800)
        if r.returncode != 0 or not os.path.exists(j):
            print(f"{impl}: worker failed ({r.returncode})", flush=True)
            continue
        with open(j) as f:
            runs[impl] = json.load(f)
        runs[impl]["tensors"] = t
    import torch
    report = {"host": platform.node(), "cpu": _cpu_name(), "nproc": os.cpu_count(), "commit": _commit(),
              "impls": {k: {kk: vv for kk, vv in v.items() if kk not in ("cases", "tensors")}
                        for k, v in runs.items()}, "cases": []}
    names = []
    for impl in runs:
        for c in runs[impl]["cases"]:
            if c["case"] not in names:
                names.append(c["case"])
    tens = {impl: torch.load(runs[impl]["tensors"]) for impl in runs}
    for name in names:
        row = {"case": name}
        for impl in runs:
            c = next((c for c in runs[impl]["cases"] if c["case"] == name), None)
            if c is not None:
                row[impl] = {k: v for k, v in c.items() if k not in ("case",)}
                row["group"] = c["group"]
        if "tessera" in tens and "triton" in tens:
            keys = sorted(k for k in tens["tessera"] if k.split("|")[0] == name)
            if keys and all(k in tens["triton"] for k in keys):
                row["same"] = [_compare_tensors(torch, tens["tessera"][k], tens["triton"][k]) for k in keys]
        report["cases"].append(row)
    summary = _summary(report, list(runs))
    report["summary"] = summary
    with open(os.path.join(args.out, "interp_compare.json"), "w") as f:
        json.dump(report, f, indent=1)
    text = _table(report, list(runs))
    with open(os.path.join(args.out, "interp_compare.txt"), "w") as f:
        f.write(text)
    print(text)
    return 0


def _summary(report, impls):
    s = {}
    for impl in impls:
        s[f"{impl}_total_s"] = sum(r[impl]["second_s"] for r in report["cases"] if impl in r and "second_s" in r[impl])
        s[f"{impl}_all_ok"] = all(r.get(impl, {}).get("ok", False) for r in report["cases"])
    if "tessera" in impls and "triton" in impls:
        both = [r for r in report["cases"] if "second_s" in r.get("tessera", {}) and "second_s" in r.get("triton", {})]
        tt = sum(r["tessera"]["second_s"] for r in both)
        tr = sum(r["triton"]["second_s"] for r in both)
        s["cases_timed_by_both"] = len(both)
        s["speedup_total"] = tr / tt if tt else None
        s["slower_cases"] = [r["case"] for r in both if r["tessera"]["second_s"] > r["triton"]["second_s"]]
        s["five_times_and_none_slower"] = bool(s["speedup_total"] and s["speedup_total"] >= 5 and not s["slower_cases"])
        s["results"] = {r["case"]: r.get("same") for r in both}
    return s


def _table(report, impls):
    lines = [f"interpreters on {report['cpu']} ({report['nproc']} CPUs), commit {report['commit']}",
             "wall time of the second launch (best of the later launches in brackets), CPU tensors", ""]
    hdr = f"{'case':<22}" + "".join(f"{impl + ' s':>22}" for impl in impls)
    pair = "tessera" in impls and "triton" in impls
    if pair:
        hdr += f"{'speedup':>9}  results"
    lines.append(hdr)
    for r in report["cases"]:
        line = f"{r['case']:<22}"
        for impl in impls:
            c = r.get(impl, {})
            if "second_s" in c:
                cell = f"{c['second_s']:.4f} ({c['best_s']:.4f})" + ("" if c.get("ok") else " FAIL")
            else:
                cell = "error"
            line += f"{cell:>22}"
        if pair and all("second_s" in r.get(i, {}) for i in ("tessera", "triton")):
            line += f"{r['triton']['second_s'] / r['tessera']['second_s']:>8.1f}x"
            same = r.get("same") or []
            line += "  " + ("bytes equal" if same and all(x == "equal" for x in same) else "; ".join(same))
        lines.append(line)
    s = report["summary"]
    lines.append("")
    for impl in impls:
        lines.append(f"total {impl}: {s[f'{impl}_total_s']:.3f} s (all checks passed: {s[f'{impl}_all_ok']})")
    if "speedup_total" in s:
        lines.append(f"speedup in total: {s['speedup_total']:.2f}x over {s['cases_timed_by_both']} cases; "
                     f"cases where Tessera is slower: {s['slower_cases'] or 'none'}; "
                     f">= 5x and none slower: {s['five_times_and_none_slower']}")
    return "\n".join(lines) + "\n"


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _commit():
    # The device's copy of the tree may carry a stale .git: the packed build says what it is.
    try:
        with open(os.path.join(ROOT, "dist", "COMMIT")) as f:
            return f.read().strip()[:8]
    except OSError:
        pass
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
