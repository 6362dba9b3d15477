#!/usr/bin/env bash
# On the GPU machine (issue 18, the shared-cache figure): starts the redis-server that
# tools/device/pack.sh copied from Debian into dist/redis (the GPU machine has none) on a local
# port, runs benchmarks/autotune_shared_cache.py against it (the fp16 matmul autotuned over 8
# configurations by a first "machine", then by a second one with another cache directory and the
# same Redis), and stops the server. Carry "dist".
# Results: $OUT/autotune_shared_cache.json, $OUT/autotune_shared_cache.txt (output, Redis's log tail).
# `--no-setup`: tools/device/h200_run.sh --setup-only has run already (tools/device/issue18_run.sh).
# Further arguments go to the benchmark (e.g. --dry, to try the plumbing on a machine without a GPU).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root" || exit 1
out="${OUT:-/tmp/out}"
mkdir -p "$out"
txt="$out/autotune_shared_cache.txt"
if [ "${1:-}" = "--no-setup" ]; then
  shift
else
  bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
fi
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
redis="$root/dist/redis"
if [ ! -x "$redis/redis-server" ]; then
  echo "FAIL: no dist/redis/redis-server (run tools/device/pack.sh where /usr/bin/redis-server exists)" | tee "$txt"
  exit 1
fi
libs="$redis/lib"
if LD_LIBRARY_PATH="$libs" ldd "$redis/redis-server" | grep -q 'not found'; then
  libs="$libs:$redis/extra"
fi
{
  echo "== $(date -u +%FT%TZ) commit $(cat dist/COMMIT 2>/dev/null); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "== redis-server: LD_LIBRARY_PATH=$libs; $(LD_LIBRARY_PATH="$libs" "$redis/redis-server" --version)"
  LD_LIBRARY_PATH="$libs" ldd "$redis/redis-server" | grep -E 'not found|dist/redis' || true
} > "$txt"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rdir=$(mktemp -d /tmp/tessera-redis-XXXXXX)
LD_LIBRARY_PATH="$libs" "$redis/redis-server" --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
  --dir "$rdir" > "$rdir/redis.log" 2>&1 &
rpid=$!
stop_redis() {
  if kill -0 "$rpid" 2> /dev/null; then kill "$rpid"; wait "$rpid" 2> /dev/null; fi
}
trap stop_redis EXIT
timeout 270 python3 benchmarks/autotune_shared_cache.py --redis "redis://127.0.0.1:$port/0" \
  --out "$out/autotune_shared_cache.json" "$@" 2>&1 | tee -a "$txt"
status=${PIPESTATUS[0]}
stop_redis
{ echo "== exit status $status; redis-server log (tail):"; tail -5 "$rdir/redis.log"; } >> "$txt"
rm -rf "$rdir"
exit "$status"
