#!/usr/bin/env bash
# Is add fp32 2^20's gap in Tessera's cubin or in how its module is loaded? Runs ptx_swap.py with
# the cubin variants (tcubin, tcubin_ct, scubin_ct) in $PROCS processes, then writes the ELF of both
# cubins and the launch/load calls of Triton's driver to $OUT. Needs `h200_run.sh --setup-only` first.
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
export PYTHONPATH="$root/python" TESSERA_CACHE_DISABLE=1 PYTHONUNBUFFERED=1
export SWAP_VARIANTS="${SWAP_VARIANTS:-raw,tcubin,tcubin_ct,scubin_ct}" SWAP_ROUNDS="${SWAP_ROUNDS:-8}"
cases=("$@"); [ ${#cases[@]} -gt 0 ] || cases=("add fp32 n=2^20")
for p in $(seq 1 "${PROCS:-3}"); do
  OUT="$out/proc$p" timeout 400 python3 tools/device/probes/ptx_swap.py "${cases[@]}" 2>&1 | grep -v Warning | tail -8
  mv "$out/proc$p/ptx_swap.json" "$out/ptx_swap_$p.json" 2>/dev/null
done
mkdir -p /tmp/elf
for c in "$out"/proc1/cubins/*.cubin; do
  echo "=== $(basename "$c")"; cuobjdump -elf "$c" | grep -v "^\s*$" | head -150
done > /tmp/elf/elf.txt 2>&1
python3 - > /tmp/elf/triton_driver.txt 2>&1 <<'PY'
import inspect, re, triton.backends.nvidia.driver as d
src = inspect.getsource(d)
for i, ln in enumerate(src.splitlines()):
    if re.search(r"cuLaunch|Attr|attr\.|Cache|ModuleLoad|cuLibrary|cuFuncSet|num_attrs|launchAttr", ln):
        print(i, ln)
import glob, os
for f in glob.glob(os.path.join(os.path.dirname(d.__file__), "*.c")):
    print("== file", f)
    for i, ln in enumerate(open(f)):
        if re.search(r"cuLaunch|Attr|Cache|ModuleLoad|cuLibrary|cuFuncSet", ln):
            print(i, ln.rstrip())
PY
cp -r "$out"/proc1/cubins "$out"/proc1/graphs /tmp/elf/ 2>/dev/null
tar czf "$out/elf.tgz" -C /tmp/elf .
rm -rf "$out"/proc*
