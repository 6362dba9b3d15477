#!/usr/bin/env bash
# Runs on the GPU machine (device tool, `carry: ["dist"]`): builds a wheel for its Python from the
# core that tools/device/pack.sh carried (TESSERA_PREBUILT_LIB/OPT; the machine has no LLVM),
# installs it with pip into a fresh virtual environment in a temporary folder, and from there runs
# the installed-package checks (tools/package/installed_check.py), the example kernels on the GPU
# (examples/run.py --installed) and the packaging GPU tests (spawn-pool kernels launched in the
# parent, the user bitcode library) against the installed package. Output: $OUT/wheel_run.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-/tmp/out}"; mkdir -p "$out"
log="$out/wheel_run.txt"
exec > >(tee -a "$log") 2>&1
cd "$root"
xz -d -k -f dist/lib/libtessera.so.xz dist/bin/tessera-opt.xz && chmod +x dist/bin/tessera-opt
py=$(command -v python3)
echo "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $($py --version); commit $(cat dist/COMMIT)"
$py -c "import setuptools, sys; print('setuptools', setuptools.__version__)"
$py -m pip --version
work=$(mktemp -d /tmp/tessera-wheel.XXXXXX)
echo "== building the wheel (pip wheel --no-build-isolation, prebuilt core)"
TESSERA_PREBUILT_LIB="$root/dist/lib/libtessera.so" TESSERA_PREBUILT_OPT="$root/dist/bin/tessera-opt" \
  $py -m pip wheel --no-build-isolation --no-deps --no-index -w "$work/dist" . > "$work/build.log" 2>&1 \
  || { tail -40 "$work/build.log"; echo "wheel: FAILED to build"; exit 1; }
wheel=$(ls "$work"/dist/tessera-*.whl); echo "$(basename "$wheel") $(du -h "$wheel" | cut -f1)"
echo "== fresh virtual environment (system site packages: torch, triton, numpy)"
if $py -m venv --system-site-packages "$work/venv" > "$work/venv.log" 2>&1; then
  pipcmd=("$work/venv/bin/python" -m pip)
else
  echo "(python3 -m venv with pip failed: $(tail -1 "$work/venv.log")); using --without-pip and pip --python"
  $py -m venv --without-pip --system-site-packages "$work/venv" || { echo "wheel: FAILED: no venv"; exit 1; }
  pipcmd=($py -m pip --python "$work/venv/bin/python")
fi
vpy="$work/venv/bin/python"
# This machine's python3 is itself a virtual environment (/opt/torch/.venv): --system-site-packages
# reaches only the base interpreter's packages, so its own site-packages (torch, triton, numpy,
# pytest; no tessera) are added behind the new environment's with a .pth file.
if [ "$($py -c 'import sys; print(sys.prefix != sys.base_prefix)')" = True ]; then
  $py -c 'import site; print("\n".join(site.getsitepackages()))' \
    > "$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz-parent-environment.pth"
fi
"${pipcmd[@]}" install -q --no-index --no-deps "$wheel" || { echo "wheel: FAILED: pip install"; exit 1; }
cd "$work"; unset PYTHONPATH
export TESSERA_CACHE_DIR="$work/cache"
status=0
"$vpy" "$root/tools/package/installed_check.py" --checkout "$root" --conformance "$root/dist/conformance" \
  --opt "$work/venv/bin/tessera-opt" || status=1
"$vpy" -m tessera
echo "== example kernels on the GPU (installed package)"
"$vpy" "$root/examples/run.py" --installed || status=1
echo "== packaging GPU tests against the installed package"
# The tests are copied out of the checkout, so that nothing but the installed tessera is importable.
mkdir -p "$work/t" && cp -r "$root/python/test" "$work/t/test" && cd "$work/t"
TESSERA_EXPECT_INSTALLED=1 TESSERA_CHECKOUT="$root" TESSERA_TEST_EXTERN_BC="$root/dist/extern/mylib.bc" \
  "$vpy" -m pytest -q -p no:cacheprovider -m gpu test/gpu/test_package_gpu.py -rs 2>&1 | tail -15
[ "${PIPESTATUS[0]}" = 0 ] || status=1
echo "wheel_run: $([ $status = 0 ] && echo ok || echo FAILED)"
exit $status
