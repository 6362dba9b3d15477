#!/usr/bin/env bash
# First call of a session (carry "dist"): the GPU tests added last session (redux, versioning),
# the conformance kernels under ncu (3 passes each compiler) and the memory-bound benchmark
# under the CUDA-graph timer. Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance PYTHONUNBUFFERED=1
(cd python && timeout 200 python3 -m pytest -q -m gpu test/gpu/test_redux_gpu.py test/gpu/test_version_nonnegative_gpu.py -p no:cacheprovider 2>&1 | tail -15) > "$out/new_gpu_tests.txt"
tail -3 "$out/new_gpu_tests.txt"
OUT=$out timeout 400 bash tools/device/probes/conformance_ncu.sh 3
d=$(mktemp -d); tar xzf "$out/conformance_ncu.tgz" -C "$d"; python3 tools/device/probes/ncu_table.py "$d" > "$out/ncu_table.txt" 2>&1; cat "$out/ncu_table.txt" | head -30
timeout 300 python3 benchmarks/memory_bound.py --timer cudagraph --out "$out/memory_bound.json" > "$out/memory_bound.txt" 2>&1
sed -n '/^case /,$p' "$out/memory_bound.txt" | tail -22
