#!/usr/bin/env bash
# On the GPU machine: the embedding GPU tests (PyTorch operators eager and under torch.compile,
# the ahead-of-time C example built and run) and the profiler's GPU tests and overhead benchmark
# (issue 16: the rings sized to the records a warp writes, not measured before), with the
# softmax probe. Carry "dist" (tools/device/pack.sh).
# Results: $OUT/setup.txt, $OUT/gpu_tests.txt, $OUT/profiler.json, $OUT/profiler.txt,
# $OUT/softmax_probe.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())" | tee -a "$out/setup.txt"
(cd python && timeout 300 python3 -m pytest -q -m gpu test/gpu/test_embedding_gpu.py test/gpu/test_profiler_gpu.py \
  -p no:cacheprovider 2>&1 | tail -30) | tee "$out/gpu_tests.txt"
timeout 150 python3 benchmarks/profiler_overhead.py --out "$out/profiler.json" 2>&1 | tee "$out/profiler.txt" | tail -8
timeout 60 python3 tools/device/probes/profiler_softmax_probe.py 2>&1 | tail -2 | tee "$out/softmax_probe.txt"
