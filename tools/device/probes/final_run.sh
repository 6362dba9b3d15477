#!/usr/bin/env bash
# Last build of a session (carry "dist"): every GPU test, the profiler's overhead (all cases) and
# tma_bench (descriptor copies in both program orders, the descriptor matmuls). Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance PYTHONUNBUFFERED=1
(cd python && timeout 420 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
tail -3 "$out/gpu_tests.txt"
timeout 240 python3 benchmarks/profiler_overhead.py --out "$out/profiler.json" > "$out/profiler.txt" 2>&1
grep -E '^(matmul|softmax)' "$out/profiler.txt" | python3 -c "
import json,sys
for l in sys.stdin:
    n, j = l.split(' ', 1); r = json.loads(j); print(n, 'overhead', round(r['overhead'], 4), 'span/kernel', round(r['coverage']['span_over_kernel'], 3), 'ptx identical', r.get('ptx_identical_off_vs_kernels'))"
timeout 300 python3 benchmarks/tma_bench.py --copy-blocks 64x128x4,32x128x1,64x256x4 --device-copy-blocks 64x128x4 --out "$out/tma_bench.json" > "$out/tma_bench.txt" 2>&1
python3 -c "
import json
r = json.load(open('$out/tma_bench.json'))['records']
for x in r:
    if x['kind'] == 'copy': print(x['case'], round(x['of_ceiling'], 4), round(x['GB/s']))
    elif x['kind'] in ('copy_ceiling',): print('ceiling', round(x['GB/s']))
    elif x['kind'] == 'check' and not x['ok']: print('CHECK FAILED', x)
    elif x['kind'] not in ('check',): print(json.dumps(x)[:300])
"
