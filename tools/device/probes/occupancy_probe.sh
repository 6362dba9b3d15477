#!/usr/bin/env bash
# ptxas's register target on the norm kernels: main's PTX against the same PTX with a
# `.minnctapersm K` directive (ptx_edits/*_ctasK.ptx), timed through ptx_swap.py, one case per
# ptx_swap call (layer_norm's two cases share an entry name). Also writes the SASS of the
# layer_norm 4096x8192 variants to $OUT/occupancy_sass.tgz and prints each one's registers and the
# destination registers of its LDGs (distinct destinations = loads in flight).
# Needs `h200_run.sh --setup-only` first; carry "dist".
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"; mkdir -p "$out" /tmp/occ
export PYTHONPATH="$root/python" TESSERA_CACHE_DISABLE=1 PYTHONUNBUFFERED=1
E=tools/device/probes/ptx_edits
for v in ln8192_prologue_only ln8192_ctas4 ln8192_ctas3 ln8192_ctas2 ln8192_prologue_ctas4 ln8192_prologue_ctas3; do
  /usr/local/cuda/bin/ptxas -v -arch=sm_90a -O3 $E/$v.ptx -o /tmp/occ/$v.cubin 2> /tmp/occ/$v.ptxas.txt
  cuobjdump -sass /tmp/occ/$v.cubin > /tmp/occ/$v.sass 2>&1
  echo "$v: $(grep -o 'Used [0-9]* registers' /tmp/occ/$v.ptxas.txt); LDG dests: $(grep -o 'LDG.E.128 R[0-9]*' /tmp/occ/$v.sass | awk '{print $2}' | tr '\n' ' ')"
done
tar czf "$out/occupancy_sass.tgz" -C /tmp/occ $(cd /tmp/occ && ls *.sass *.ptxas.txt)
swap() {  # case, variants...
  local c="$1"; shift
  SWAP_VARIANTS=$(for v in "$@"; do printf 'file=ptx_edits/%s.ptx,' "$v"; done) SWAP_ROUNDS="${SWAP_ROUNDS:-6}" \
    OUT="$out" timeout 200 python3 tools/device/probes/ptx_swap.py "$c" 2>&1 | grep -v Warning | tail -2
  mv "$out/ptx_swap.json" "$out/ptx_swap_$(echo "$c" | tr -c 'a-z0-9\n' _).json" 2>/dev/null
}
swap "layer_norm fp16 4096x8192" ln8192_ctas4 ln8192_ctas3 ln8192_ctas2 ln8192_prologue_ctas4 ln8192_prologue_ctas3
swap "layer_norm fp16 4096x1024" ln1024_ctas8 ln1024_ctas12
swap "rms_norm fp16 4096x8192" rms8192_ctas2 rms8192_ctas3
