#!/usr/bin/env bash
# Round-trips every TTIR (or TTGIR) file Triton produced through tessera-opt
# twice: original -> A (custom form, with locations) -> B; A and B must be
# equal, and the generic form of the original must print back to A as well.
# Usage: roundtrip.sh DIR WORKDIR [EXTENSION]   (EXTENSION defaults to .ttir)
set -u
dir=$1
work=$2
ext=${3:-.ttir}
mkdir -p "$work"
shopt -s nullglob
files=("$dir"/*"$ext")
if [ ${#files[@]} -eq 0 ]; then
  echo "no $ext files found in $dir" >&2
  exit 1
fi
fail=0
for f in "${files[@]}"; do
  name=$(basename "$f" "$ext")
  a="$work/$name.a.mlir"; b="$work/$name.b.mlir"
  g="$work/$name.generic.mlir"; c="$work/$name.c.mlir"
  if ! tessera-opt "$f" -mlir-print-debuginfo -o "$a" ||
     ! tessera-opt "$a" -mlir-print-debuginfo -o "$b" ||
     ! tessera-opt "$f" -mlir-print-debuginfo -mlir-print-op-generic -o "$g" ||
     ! tessera-opt "$g" -mlir-print-debuginfo -o "$c"; then
    echo "FAIL $name: tessera-opt rejected it"
    fail=$((fail + 1))
    continue
  fi
  if ! cmp -s "$a" "$b"; then
    echo "FAIL $name: the second round trip differs"; diff "$a" "$b" | head -20
    fail=$((fail + 1))
    continue
  fi
  if ! cmp -s "$a" "$c"; then
    echo "FAIL $name: the generic form prints back differently"; diff "$a" "$c" | head -20
    fail=$((fail + 1))
    continue
  fi
  echo "ok $name"
done
echo "${#files[@]} files, $fail failed"
[ "$fail" -eq 0 ]
