"""Shared by the configuration sweeps (matmul_sweep.py, attention.py): time every launch in
alternating rounds, keep each implementation's best correct configuration, print and save."""
import json


def time_and_pick_best(launches, rounds, flops, do_bench, rep, summary):
    """`launches`: {(impl, config): (record, fn)}. Times each fn `rounds` times (do_bench medians,
    alternating over all launches), puts the median ms and TFLOP/s (for `flops`) into its record,
    and returns (records, summary): `summary` (a dict naming the case) gains each implementation's
    best correct configuration and, with both, the ratio tessera / triton."""
    times = {key: [] for key in launches}
    for _ in range(rounds):
        for key, (rec, fn) in launches.items():
            times[key].append(do_bench(fn, rep=rep, return_mode="median"))
    best, records = {}, []
    for key, (rec, fn) in launches.items():
        ms = sorted(times[key])[len(times[key]) // 2]
        rec["ms"] = ms
        rec["tflops"] = flops / (ms * 1e-3) / 1e12
        records.append(rec)
        print(json.dumps(rec), flush=True)
        if rec["ok"] and (key[0] not in best or rec["tflops"] > best[key[0]]["tflops"]):
            best[key[0]] = rec
    summary = dict(summary, summary=True)
    for impl, rec in best.items():
        summary[impl] = {"config": rec["config"], "tflops": round(rec["tflops"], 1)}
    if "tessera" in best and "triton" in best:
        summary["ratio"] = round(best["tessera"]["tflops"] / best["triton"]["tflops"], 3)
    print(json.dumps(summary), flush=True)
    return records, summary


def save_and_print(results, path, commit, gpu, label):
    """Writes {"commit", "gpu", "results"} to `path` (if given) and prints each summary's bests;
    `label(summary)` names its case."""
    if path:
        with open(path, "w") as f:
            json.dump({"commit": commit, "gpu": gpu, "results": results}, f, indent=1)
    print("== best configurations (TFLOP/s)")
    for r in results:
        if r.get("summary"):
            print(f"{label(r)}: " + ", ".join(f"{k} {v['tflops']} ({v['config']})" for k, v in r.items()
                                             if isinstance(v, dict)) +
                  (f"  ratio {r['ratio']}" if "ratio" in r else ""))
