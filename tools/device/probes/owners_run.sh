#!/usr/bin/env bash
# After the store owners and the register prefetch (carry "dist"): every GPU test, the
# conformance kernels under ncu (3 passes per compiler) and the descriptor copies (tma_bench,
# copies only). Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance PYTHONUNBUFFERED=1
(cd python && timeout 420 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
tail -3 "$out/gpu_tests.txt"
OUT=$out timeout 300 bash tools/device/probes/conformance_ncu.sh 3 > /dev/null 2>&1
d=$(mktemp -d); tar xzf "$out/conformance_ncu.tgz" -C "$d"; python3 tools/device/probes/ncu_table.py "$d" > "$out/ncu_table.txt" 2>&1; cat "$out/ncu_table.txt"
timeout 200 python3 benchmarks/tma_bench.py --no-matmul --copy-blocks 64x128x4,32x128x1,64x256x4 --device-copy-blocks 64x128x4 --out "$out/tma_copy.json" > "$out/tma_copy.txt" 2>&1
grep -E '"copy"|ceiling' "$out/tma_copy.txt" | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(r.get('case','ceiling'), round(r.get('of_ceiling', 0),4), round(r['GB/s']))"
