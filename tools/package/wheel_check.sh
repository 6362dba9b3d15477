#!/usr/bin/env bash
# The Python package as a user gets it: builds the wheel (python3 -m build --wheel --no-isolation),
# installs it with pip into a fresh virtual environment in a temporary folder outside the source
# tree, and from there (no checkout on sys.path) runs the example kernels, compiles a kernel to a
# cubin for cuda:90, runs the installed tessera-opt on a conformance .ttir file and checks that
# the installed native libraries need no LLVM/MLIR shared library. Then `pip install .` the same
# way. `make test-wheel` runs it; CI through `make test`.
#   PYTHON (default /usr/bin/python3), TESSERA_BUILD_DIR (default build), CONFORMANCE,
#   KEEP=1 keeps the temporary folder, WHEEL_ONLY=1 skips the `pip install .` check.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
py="${PYTHON:-/usr/bin/python3}"
conf="$(cd "${CONFORMANCE:-$root/../shared/conformance}" && pwd)"
export TESSERA_BUILD_DIR="$(cd "$root" && realpath -m "${TESSERA_BUILD_DIR:-build}")"
work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-wheel.XXXXXX")"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
log="$work/log"

step() { echo "== $*"; }
fail() { echo "wheel: FAILED: $*"; tail -40 "$log" 2>/dev/null || true; exit 1; }

step "building the wheel"
(cd "$root" && "$py" -m build --wheel --no-isolation --outdir "$work/dist") > "$log" 2>&1 || fail "python3 -m build"
wheel=$(ls "$work"/dist/tessera-*.whl)
echo "$(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

# --system-site-packages: NumPy and PyTorch come from the system (there is no package index here);
# tessera itself is only in the environment.
"$py" -m venv --system-site-packages "$work/venv"
vpy="$work/venv/bin/python"
step "pip install $(basename "$wheel") into $work/venv"
"$vpy" -m pip install -q --no-index --no-deps "$wheel" > "$log" 2>&1 || fail "pip install of the wheel"

cd "$work"  # away from the checkout: only the installed package can be imported
unset PYTHONPATH
env TESSERA_CACHE_DIR="$work/cache" "$vpy" "$root/tools/package/installed_check.py" \
  --checkout "$root" --conformance "$conf" --opt "$work/venv/bin/tessera-opt"
step "example kernels (examples/run.py --installed)"
env TESSERA_CACHE_DIR="$work/cache" "$vpy" "$root/examples/run.py" --installed

if [ "${WHEEL_ONLY:-0}" != 1 ]; then
  step "pip install --no-build-isolation <checkout> into a second environment"
  "$py" -m venv --system-site-packages "$work/venv2"
  "$work/venv2/bin/python" -m pip install -q --no-build-isolation --no-index --no-deps "$root" > "$log" 2>&1 \
    || fail "pip install --no-build-isolation ."
  "$work/venv2/bin/python" -c "import tessera, tessera._C as C; print('pip install .: tessera', tessera.__version__, 'at', tessera.__file__)"
  "$work/venv2/bin/tessera-opt" --version > /dev/null
fi
echo "wheel: ok ($(basename "$wheel") installed into a fresh environment: examples ran, cuda:90 cubin compiled, tessera-opt ran, no LLVM/MLIR shared libraries)"
