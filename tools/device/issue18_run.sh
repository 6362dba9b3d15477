#!/usr/bin/env bash
# On the GPU machine: the two remaining GPU points of issue 18 in one device call, after one setup
# (tools/device/h200_run.sh --setup-only): the C++ embedding example compiling the conformance
# add.ttir and launching it (tools/device/cpp_launch_run.sh), and the autotuning figure with a
# shared Redis cache (tools/device/autotune_redis_run.sh). Carry "dist" (tools/device/pack.sh).
# Results in $OUT: setup.txt, cpp_launch.txt, autotune_shared_cache.{json,txt}, issue18.txt (summary).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root" || exit 1
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
tail -1 "$out/setup.txt"
echo "== C++ embedding: ttir-to-ptx --launch"
timeout 200 bash tools/device/cpp_launch_run.sh --no-setup
cpp=$?
echo "== autotuning with a shared Redis cache"
timeout 290 bash tools/device/autotune_redis_run.sh --no-setup
tune=$?
{
  echo "cpp_launch: $([ $cpp -eq 0 ] && echo PASS || echo "FAIL (exit status $cpp)") — $(grep -E '^(PASS|FAIL|SKIP)' "$out/cpp_launch.txt" | tail -1)"
  echo "autotune_shared_cache: $([ $tune -eq 0 ] && echo PASS || echo "FAIL (exit status $tune)") — $(grep -E '^second / first' "$out/autotune_shared_cache.txt" | tail -1)"
} | tee "$out/issue18.txt"
[ $cpp -eq 0 ] && [ $tune -eq 0 ]
