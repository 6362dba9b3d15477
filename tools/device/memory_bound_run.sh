#!/usr/bin/env bash
# Runs the memory-bound benchmark (benchmarks/memory_bound.py: vector add, softmax, layer norm,
# RMSNorm, cross-entropy, transpose, strided copy; Tessera vs the installed Triton) on the GPU
# machine. Carry "dist" (tools/device/pack.sh).
#   tools/device/memory_bound_run.sh [more memory_bound.py options, e.g. --quick or --only softmax]
# Results: $OUT/memory_bound.json (all records), $OUT/memory_bound.txt (its stdout: a JSON line
# per record and the table), $OUT/memory_bound_err.txt (its stderr), $OUT/setup.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
# Unpack libtessera and build the extension (incremental on a warm machine: /tmp/build-py).
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())" | tee -a "$out/setup.txt"
timeout 420 python3 benchmarks/memory_bound.py --out "$out/memory_bound.json" "$@" > "$out/memory_bound.txt" 2> "$out/memory_bound_err.txt"
rc=$?
# The table (and the ratio summary) for the caller's log.
sed -n '/^case /,$p' "$out/memory_bound.txt"
[ $rc -ne 0 ] && { echo "memory_bound.py exited $rc (124: timed out)"; tail -20 "$out/memory_bound_err.txt"; }
exit $rc
