"""Reads conformance_ncu.sh's CSVs (a directory) and prints, per kernel, the median ncu duration
under each compiler over the passes and their ratio (Tessera / Triton)."""
import csv
import glob
import os
import statistics
import sys


def durations(path):
    out = {}
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    if not rows:
        return out
    head = rows[0]
    for r in rows[1:]:
        d = dict(zip(head, r))
        if d.get("Metric Name") == "gpu__time_duration.sum":
            out[d["Kernel Name"].split("(")[0]] = float(d["Metric Value"].replace(",", ""))
    return out


def main(directory):
    per = {}
    for impl in ("tessera", "triton"):
        for f in sorted(glob.glob(os.path.join(directory, f"ncu_{impl}_*.csv"))):
            for k, v in durations(f).items():
                per.setdefault(k, {}).setdefault(impl, []).append(v)
    print(f"{'kernel':24s} {'tessera ns':>11s} {'triton ns':>10s} {'ratio':>6s}")
    for k, d in per.items():
        a = statistics.median(d["tessera"]) if d.get("tessera") else None
        b = statistics.median(d["triton"]) if d.get("triton") else None
        r = f"{a / b:6.3f}" if a and b else "     -"
        print(f"{k:24s} {a or 0:11.0f} {b or 0:10.0f} {r}  ({len(d.get('tessera', []))}/{len(d.get('triton', []))} passes)")


if __name__ == "__main__":
    main(sys.argv[1])
