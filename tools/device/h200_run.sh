#!/usr/bin/env bash
# Runs on the H200 (device tool, with `carry: ["dist"]`): unpacks libtessera,
# builds only the thin Python extension against it (seconds), then runs the
# conformance suite under Tessera and under the installed Triton with timings,
# and the large-shape benchmarks. Results go to $OUT as JSON.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
export PYTHONUNBUFFERED=1
out="${OUT:-/tmp/out}"
mkdir -p "$out"
xz -d -k -f dist/lib/libtessera.so.xz dist/bin/tessera-opt.xz
chmod +x dist/bin/tessera-opt
py=$(command -v python3)
# $OUT brings back at most 8 files: conformance_{tessera,triton}.jsonl, gpu_tests.txt (GPU and
# test results), large_shapes.json, launch_overhead.json, first_call.json, errors.log, summary.txt.
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu_tests.txt"
cmake -G Ninja -S . -B /tmp/build-py -DTESSERA_BUILD_CORE=OFF \
  -DTESSERA_PREBUILT_LIB="$root/dist/lib/libtessera.so" -DPython3_EXECUTABLE="$py" \
  -Dpybind11_DIR="$($py -m pybind11 --cmakedir)" > /tmp/build.log 2>&1 \
  && ninja -C /tmp/build-py >> /tmp/build.log 2>&1 || { cp /tmp/build.log "$out/errors.log"; tail -30 /tmp/build.log; exit 1; }
export PYTHONPATH="$root/python"
export TESSERA_CONFORMANCE_DIR="$root/dist/conformance"
$py -c "import tessera; from tessera import _C; print('tessera', tessera.__version__, 'cuda', _C.cuda.available()[0], _C.cuda.device_count())"
# `h200_run.sh --setup-only`: stop here (the extension is built), e.g. to run one probe after it.
if [ "${1:-}" = "--setup-only" ]; then exit 0; fi
for impl in tessera triton; do
  timeout 300 $py dist/conformance/runner.py --impl $impl --bench > "$out/conformance_$impl.jsonl" 2> /tmp/conf_$impl.err
  { echo "== conformance $impl stderr"; tail -50 /tmp/conf_$impl.err; } >> "$out/errors.log"
  echo "== $impl: $(tail -1 "$out/conformance_$impl.jsonl")"
done
(cd python && timeout 300 $py -m pytest -q -m gpu test/gpu 2>&1 | tail -25) | tee -a "$out/gpu_tests.txt"
if [ -f benchmarks/large_shapes.py ]; then
  timeout 240 $py benchmarks/large_shapes.py --out "$out/large_shapes.json" 2>> "$out/errors.log" || true
fi
timeout 150 $py benchmarks/launch_overhead.py --out "$out/launch_overhead.json" 2>> "$out/errors.log" || true
timeout 240 $py benchmarks/first_call.py --out "$out/first_call.json" 2>> "$out/errors.log" || true
$py tools/device/summarize.py "$out" | tee "$out/summary.txt"
