#!/usr/bin/env bash
# On the GPU machine (issue 18, C++ embedding): builds examples/cpp-consumer with the machine's
# compiler through find_package(Tessera) against a prefix made of dist/cpp (the install's API
# headers and CMake package, tools/device/pack.sh) and dist/lib/libtessera.so, then runs
# `ttir-to-ptx --launch` on the conformance suite's add.ttir: compiled by
# tessera::api::compileKernel for cuda:90, assembled by ptxas, loaded and launched through the CUDA
# driver API, checked. Carry "dist". Result: $OUT/cpp_launch.txt (its last line PASS, FAIL or SKIP).
# `--no-setup`: tools/device/h200_run.sh --setup-only has run already (tools/device/issue18_run.sh).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root" || exit 1
out="${OUT:-/tmp/out}"
mkdir -p "$out"
log="$out/cpp_launch.txt"
if [ "${1:-}" != "--no-setup" ]; then
  bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
fi
if [ ! -f dist/cpp/lib/cmake/Tessera/TesseraConfig.cmake ] || [ ! -f dist/lib/libtessera.so ]; then
  echo "FAIL: dist/cpp or dist/lib/libtessera.so missing (run tools/device/pack.sh, then h200_run.sh --setup-only)" | tee "$log"
  exit 1
fi
prefix=/tmp/tessera-prefix
rm -rf "$prefix" /tmp/cpp-consumer
mkdir -p "$prefix/lib"
cp -r dist/cpp/include "$prefix/include"
cp -r dist/cpp/lib/cmake "$prefix/lib/cmake"
ln -s "$root/dist/lib/libtessera.so" "$prefix/lib/libtessera.so"
{
  echo "== $(date -u +%FT%TZ) commit $(cat dist/COMMIT 2>/dev/null); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "== $(c++ --version | head -1); $(cmake --version | head -1); ptxas: $(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null)"
  echo "== configure and build examples/cpp-consumer against $prefix"
} > "$log"
if ! { cmake -G Ninja -S examples/cpp-consumer -B /tmp/cpp-consumer -DCMAKE_BUILD_TYPE=Release \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C /tmp/cpp-consumer; } > /tmp/cpp-consumer.log 2>&1; then
  tail -40 /tmp/cpp-consumer.log >> "$log"
  echo "FAIL: building examples/cpp-consumer failed" | tee -a "$log"
  exit 1
fi
tail -3 /tmp/cpp-consumer.log >> "$log"
echo "== ldd: $(ldd /tmp/cpp-consumer/ttir-to-ptx | grep -E 'tessera|cuda' | tr -s ' \t' ' ' | paste -sd ';' -)" >> "$log"
echo "== ttir-to-ptx --launch dist/conformance/triton-3.6/add.ttir cuda:90" >> "$log"
timeout 120 /tmp/cpp-consumer/ttir-to-ptx --launch dist/conformance/triton-3.6/add.ttir cuda:90 >> "$log" 2>&1
status=$?
echo "== exit status $status" >> "$log"
grep -E '^(PASS|FAIL|SKIP)' "$log" | tail -1
# PASS is the only success here: a GPU machine that skips has failed to launch.
grep -q '^PASS:' "$log"
