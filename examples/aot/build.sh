#!/usr/bin/env bash
# Builds examples/aot: the C launchers of examples/kernels.py's add and matmul written by
# `python -m tessera.aot`, and main.c, with the system C compiler against the CUDA driver API.
#   bash examples/aot/build.sh OUT_DIR [TARGET]     (TARGET: cuda:90 by default)
# Links against libcuda (the driver; CUDA's stubs/libcuda.so where no driver is installed, which
# builds but cannot run). Run OUT_DIR/aot_example on a machine with a GPU.
# A hip target (hip:gfx942) builds main_hip.c instead, against the HIP runtime (libamdhip64:
# $ROCM_PATH, /opt/rocm, or Debian's libamdhip64-dev); untested on AMD hardware.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: build.sh OUT_DIR [TARGET]}"
target="${2:-cuda:90}"
python="${PYTHON:-/usr/bin/python3}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
mkdir -p "$out"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
"$python" -m tessera.aot "$root/examples/kernels.py:add_kernel" --name add --target "$target" \
  -s "*fp32:16, *fp32:16, *fp32:16, i32:16" -s "*fp32, *fp32, *fp32, i32" -c BLOCK=1024 -o "$out" >/dev/null
"$python" -m tessera.aot "$root/examples/kernels.py:matmul_kernel" --name matmul --target "$target" \
  -s "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32" \
  -c BM=32 -c BN=32 -c BK=32 -o "$out" >/dev/null
cc="${CC:-cc}"
if [[ "$target" == hip:* ]]; then
  rocm="${ROCM_PATH:-/opt/rocm}"
  flags=()
  [[ -d "$rocm/include/hip" ]] && flags+=(-I"$rocm/include")
  [[ -d "$rocm/lib" ]] && flags+=(-L"$rocm/lib")
  "$cc" -std=c11 -O2 -Wall -Wextra -Werror "${flags[@]}" -I"$out" \
    "$out/add.c" "$out/matmul.c" "$here/main_hip.c" -lamdhip64 -lpthread -lm -o "$out/aot_example"
  echo "$out/aot_example"
  exit 0
fi
libdir="$cuda/lib64"
if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so* "$libdir"/libcuda.so* >/dev/null 2>&1; then
  libdir="$cuda/lib64/stubs"
fi
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -I"$cuda/include" -I"$out" \
  "$out/add.c" "$out/matmul.c" "$here/main.c" -L"$libdir" -lcuda -lpthread -lm -o "$out/aot_example"
echo "$out/aot_example"
