#!/usr/bin/env bash
# A ptxas for TESSERA_PTXAS that compiles $SWAP_PTX in place of the PTX Tessera hands it, when
# $SWAP_PTX is set and names the same .entry; otherwise the real ptxas ($REAL_PTXAS or
# /usr/local/cuda/bin/ptxas) runs unchanged. Used by ptx_swap.py to launch another compiler's
# code through Tessera's launcher (or Tessera's code with one edit).
real="${REAL_PTXAS:-/usr/local/cuda/bin/ptxas}"
args=("$@")
if [ -n "${SWAP_PTX:-}" ]; then
  for i in "${!args[@]}"; do
    a="${args[$i]}"
    if [[ "$a" == *.ptx && -f "$a" ]]; then
      want=$(grep -o '\.entry [A-Za-z0-9_]*' "$a" | head -1)
      have=$(grep -o '\.entry [A-Za-z0-9_]*' "$SWAP_PTX" | head -1)
      if [ -n "$want" ] && [ "$want" = "$have" ]; then cp "$SWAP_PTX" "$a"; echo "ptxas_swap: $want <- $SWAP_PTX" >&2; fi
    fi
  done
fi
exec "$real" "${args[@]}"
