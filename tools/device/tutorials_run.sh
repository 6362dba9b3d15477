#!/usr/bin/env bash
# Runs Triton's public tutorials under Tessera and under the installed Triton, side by side
# (benchmarks/tutorials/run_tutorials.py), on the GPU machine. Carry "dist" (tools/device/pack.sh)
# and "benchmarks/tutorials/upstream" (the tutorial sources, git-ignored: see UPSTREAM.md).
#   tools/device/tutorials_run.sh 01,02 [more run_tutorials.py options]
# Results: $OUT/tutorials.json, $OUT/tutorials_log.txt (run_tutorials.py), $OUT/setup.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
tuts="${1:-01,02,03,05,06}"; shift || true
# Unpack libtessera and build the extension (incremental on a warm machine: /tmp/build-py).
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())" | tee -a "$out/setup.txt"
python3 benchmarks/tutorials/run_tutorials.py --tutorials "$tuts" --out "$out" "$@"
