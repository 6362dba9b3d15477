#!/usr/bin/env bash
# A/B on one GPU machine (carry "dist", packed with `tools/device/pack.sh --baseline <commit> <build>`):
# benchmarks/matmul_sweep.py (and attention.py with AB_ATTENTION=1) from this tree and from the
# baseline, alternating new, old, new, old, each against Triton in its own process, so machine
# drift shows in both. Arguments go to matmul_sweep.py. Results: $OUT/{sweep,attn}_{new,old}_{1,2}.json.
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
py=$(command -v python3)
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
base="$root/dist/baseline"
xz -d -k -f "$base/libtessera.so.xz"
cmake -G Ninja -S "$base/src" -B /tmp/build-py-old -DTESSERA_BUILD_CORE=OFF \
  -DTESSERA_PREBUILT_LIB="$base/libtessera.so" -DPython3_EXECUTABLE="$py" \
  -Dpybind11_DIR="$($py -m pybind11 --cmakedir)" > /tmp/build-old.log 2>&1 \
  && ninja -C /tmp/build-py-old >> /tmp/build-old.log 2>&1 || { tail -30 /tmp/build-old.log; exit 1; }
cp benchmarks/matmul_sweep.py benchmarks/attention.py benchmarks/attention_kernels.py "$base/src/benchmarks/" 2>/dev/null
run() {  # run <new|old> <script> <args...>
  local which=$1; shift
  local dir="$root"; [ "$which" = old ] && dir="$base/src"
  (cd "$dir" && PYTHONPATH="$dir/python" TESSERA_CACHE_DIR="/tmp/cache_$which" timeout 250 "$py" "$@")
}
for i in 1 2; do
  for w in new old; do
    echo "== $w $i"
    run $w benchmarks/matmul_sweep.py --out "$out/sweep_${w}_$i.json" "$@" | grep -v '^{'
    if [ "${AB_ATTENTION:-0}" = 1 ]; then
      run $w benchmarks/attention.py --out "$out/attn_${w}_$i.json" --rounds 2 | grep -v '^{'
    fi
  done
done
