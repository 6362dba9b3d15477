#!/usr/bin/env bash
# Runs on the GPU machine (device tool, `carry: ["dist"]`) after h200_run.sh --setup-only: the
# launch-overhead and first-call benchmarks of this tree and of an earlier build packed by
# `tools/device/pack.sh --baseline <commit>` into dist/baseline, alternating new, old, new, old so
# that drift of the host shows up in both. Results: $OUT/launch_{new,old}_{1,2}.json and
# first_call_{new,old}.json.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
py=$(command -v python3)
base="$root/dist/baseline"
xz -d -k -f "$base/libtessera.so.xz"
cmake -G Ninja -S "$base/src" -B /tmp/build-py-old -DTESSERA_BUILD_CORE=OFF \
  -DTESSERA_PREBUILT_LIB="$base/libtessera.so" -DPython3_EXECUTABLE="$py" \
  -Dpybind11_DIR="$($py -m pybind11 --cmakedir)" > /tmp/build-old.log 2>&1 \
  && ninja -C /tmp/build-py-old >> /tmp/build-old.log 2>&1 || { tail -30 /tmp/build-old.log; exit 1; }
run() {  # run <new|old> <script> <args...>
  local which=$1; shift
  local dir="$root"; [ "$which" = old ] && dir="$base/src"
  (cd "$dir" && PYTHONPATH="$dir/python" TESSERA_CACHE_DIR="/tmp/cache_$which" timeout 200 "$py" "$@")
}
for i in 1 2; do
  run new benchmarks/launch_overhead.py --out "$out/launch_new_$i.json" --repeats 5 | tail -8
  run old benchmarks/launch_overhead.py --out "$out/launch_old_$i.json" --repeats 5 | tail -8
done
run new benchmarks/first_call.py --out "$out/first_call_new.json" | tail -6
run old benchmarks/first_call.py --out "$out/first_call_old.json" --impls tessera | tail -6
