"""Prints a table of the conformance results of both implementations from an H200 run's $OUT."""
import json
import os
import sys

out = sys.argv[1]
rows = {}
for impl in ("tessera", "triton"):
    path = os.path.join(out, f"conformance_{impl}.jsonl")
    if not os.path.exists(path):
        continue
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        rows.setdefault(r["case"], {})[impl] = r
print(f"{'case':<11} {'tessera':>8} {'µs':>8} {'triton':>7} {'µs':>8}  why (tessera)")
for case, d in rows.items():
    t, r = d.get("tessera", {}), d.get("triton", {})
    tm = f"{t['ms'] * 1e3:.1f}" if "ms" in t else "-"
    rm = f"{r['ms'] * 1e3:.1f}" if "ms" in r else "-"
    why = (t.get("why") or "")[:90]
    print(f"{case:<11} {str(t.get('ok')):>8} {tm:>8} {str(r.get('ok')):>7} {rm:>8}  {why}")
