#!/usr/bin/env bash
# Runs tessera-opt over every file of a malformed-input corpus and checks
# that each one is rejected cleanly:
#   - exit status exactly 1 (0 = accepted, >= 128 = killed by a signal,
#     124 = hung past the timeout);
#   - stderr holds a located diagnostic, a line `FILE:LINE:COL: error: ...`.
# Prints one line per file and a summary; exits 1 if any file fails.
#
# Usage: run-corpus.sh CORPUS_DIR [TESSERA_OPT]
# The binary is the second argument, else $TESSERA_OPT, else tessera-opt
# from PATH; CORPUS_TIMEOUT sets the per-file limit in seconds (default 20).

set -u

corpus=${1:?usage: run-corpus.sh CORPUS_DIR [TESSERA_OPT]}
opt=${2:-${TESSERA_OPT:-tessera-opt}}
limit=${CORPUS_TIMEOUT:-20}

if ! command -v "$opt" >/dev/null 2>&1; then
  echo "error: '$opt' not found (pass it as the second argument)" >&2
  exit 2
fi
if [ ! -d "$corpus" ]; then
  echo "error: '$corpus' is not a directory" >&2
  exit 2
fi

export LC_ALL=C
errfile=$(mktemp "${TMPDIR:-/tmp}/run-corpus.XXXXXX")
trap 'rm -f "$errfile"' EXIT

total=0
failed=0
failures=()

while IFS= read -r -d '' file; do
  total=$((total + 1))
  name=${file#"$corpus"/}
  timeout "$limit" "$opt" "$file" -o /dev/null >/dev/null 2>"$errfile"
  rc=$?

  reason=""
  if [ "$rc" -eq 124 ]; then
    reason="timed out after ${limit}s"
  elif [ "$rc" -ge 128 ]; then
    reason="crashed: exit status $rc (signal $((rc - 128)))"
  elif [ "$rc" -eq 0 ]; then
    reason="accepted: exit status 0"
  elif [ "$rc" -ne 1 ]; then
    reason="exit status $rc, expected 1"
  elif ! grep -a -q -E '^[^:]+:[0-9]+:[0-9]+: error:' "$errfile"; then
    reason="no located 'FILE:LINE:COL: error:' diagnostic"
  fi

  if [ -z "$reason" ]; then
    first=$(grep -a -m1 -E '^[^:]+:[0-9]+:[0-9]+: error:' "$errfile" | cut -c1-160)
    echo "PASS: $name (rc=1) ${first#"$file"}"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "FAIL: $name: $reason"
    # The first lines of stderr, with control bytes made visible.
    head -n 5 "$errfile" | cut -c1-200 | cat -v | sed 's/^/    | /'
  fi
done < <(find "$corpus" -type f -print0 | sort -z)

echo "----"
echo "$total files, $((total - failed)) passed, $failed failed"
if [ "$total" -eq 0 ]; then
  echo "error: no files in $corpus" >&2
  exit 1
fi
if [ "$failed" -ne 0 ]; then
  printf 'failed: %s\n' "${failures[@]}"
  exit 1
fi
exit 0
