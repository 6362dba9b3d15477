#!/usr/bin/env bash
# Last build of a session (carry "dist"): every GPU test; the memory-bound suite under the CUDA-graph
# timer with shared output buffers (and, with OWN=1, with each implementation's own); the
# conformance benchmark (runner.py --bench) twice per compiler, alternating. Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
(cd python && timeout 300 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
tail -2 "$out/gpu_tests.txt"
modes="shared"; [ "${OWN:-0}" = 1 ] && modes="shared own"
for o in $modes; do
  timeout 200 python3 benchmarks/memory_bound.py --timer cudagraph --outputs $o --out "$out/memory_bound_$o.json" > "$out/memory_bound_$o.txt" 2>&1
  echo "== outputs $o"; sed -n '/^case /,$p' "$out/memory_bound_$o.txt" | cut -c1-40,110-
done
for r in 1 2; do for impl in tessera triton; do
  timeout 120 python3 dist/conformance/runner.py --impl $impl --bench > "$out/conf_${impl}_$r.jsonl" 2>/dev/null
done; done
python3 - "$out" <<'PY'
import json, sys, glob, statistics
t = {}
for f in sorted(glob.glob(sys.argv[1] + "/conf_*.jsonl")):
    impl = f.split("conf_")[1].split("_")[0]
    for line in open(f):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        ms = r.get("ms") or r.get("time_ms") or r.get("median_ms")
        if r.get("case") and ms:
            t.setdefault(r["case"], {}).setdefault(impl, []).append(ms)
for case, d in t.items():
    if "tessera" in d and "triton" in d:
        a, b = statistics.median(d["tessera"]), statistics.median(d["triton"])
        print(f"{case:16s} tessera {a:.4f} ms  triton {b:.4f} ms  tessera/triton {a / b:.3f}")
PY
