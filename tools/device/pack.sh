#!/usr/bin/env bash
# Packs what an H200 run needs into dist/ (git-ignored; pass it to the device
# tool's `carry`): the stripped, xz-compressed libtessera and tessera-opt, and
# a copy of the shared conformance suite (../shared does not travel).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
dist="$root/dist"
rm -rf "$dist"
mkdir -p "$dist/lib" "$dist/bin"
strip -o "$dist/lib/libtessera.so" "$build/lib/libtessera.so"
strip -o "$dist/bin/tessera-opt" "$build/bin/tessera-opt"
xz -T2 -6 "$dist/lib/libtessera.so" "$dist/bin/tessera-opt"
conf="${TESSERA_CONFORMANCE_DIR:-$root/../shared/conformance}"
cp -r "$conf" "$dist/conformance"
git -C "$root" rev-parse HEAD > "$dist/COMMIT"
# A user bitcode library for the extern-library GPU tests (the GPU machine may have no clang).
if command -v clang-22 > /dev/null; then
  mkdir -p "$dist/extern"
  echo '__attribute__((noinline)) float my_scale(float x) { return x * 3.0f + 1.0f; }' > "$dist/extern/mylib.c"
  clang-22 --target=nvptx64-nvidia-cuda -O1 -emit-llvm -c "$dist/extern/mylib.c" -o "$dist/extern/mylib.bc"
fi
# The C++ package, for building examples/cpp-consumer against dist/lib/libtessera.so on the GPU
# machine (tools/device/cpp_launch_run.sh): an install's API headers (with the generated
# tessera/Version.h) and CMake package (lib/cmake/Tessera); the library itself is not copied.
inst="$(mktemp -d)"
cmake --install "$build" --prefix "$inst" > /dev/null
mkdir -p "$dist/cpp/lib"
cp -r "$inst/include" "$dist/cpp/include"
cp -r "$inst/lib/cmake" "$dist/cpp/lib/cmake"
rm -rf "$inst"
# Debian's redis-server, for the shared-cache figure (tools/device/autotune_redis_run.sh): the GPU
# machine has none. redis/lib: the libraries Ubuntu 24.04 may lack (liblzf, libjemalloc,
# libatomic); redis/extra: the rest of what it links but glibc and the C++ runtime, used there only
# if the loader still misses something. (cp -L: /usr/bin/redis-server is a link to redis-check-rdb,
# and the binary chooses what it does by the name it is run under.)
if [ -x /usr/bin/redis-server ]; then
  mkdir -p "$dist/redis/lib" "$dist/redis/extra"
  cp -L /usr/bin/redis-server "$dist/redis/redis-server"
  ldd /usr/bin/redis-server | awk '/=> \//{print $1, $3}' | while read -r name path; do
    case "$name" in
      libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*) ;;
      liblzf*|libjemalloc*|libatomic*) cp -L "$path" "$dist/redis/lib/$name" ;;
      *) cp -L "$path" "$dist/redis/extra/$name" ;;
    esac
  done
fi
# --baseline <commit> <build dir>: also pack that commit's sources (python/, benchmarks/, the
# extension's CMake) and its built libtessera, for tools/device/compare_run.sh.
if [ "${1:-}" = "--baseline" ]; then
  commit="$2"; old_build="$3"
  mkdir -p "$dist/baseline/src"
  git -C "$root" archive "$commit" CMakeLists.txt cmake python benchmarks include third_party \
    | tar -x -C "$dist/baseline/src"
  strip -o "$dist/baseline/libtessera.so" "$old_build/lib/libtessera.so"
  xz -T2 -6 "$dist/baseline/libtessera.so"
  echo "$commit" > "$dist/baseline/COMMIT"
fi
du -sh "$dist"
