#!/usr/bin/env bash
# Runs every input in tests/fuzz/regressions/T/ through fuzz_T once (each was a crash, leak or
# hang the fuzzers found, kept once fixed) and fails if any still fails.
#   replay_regressions.sh FUZZ_BUILD_DIR
set -uo pipefail
build=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
status=0
count=0
mkdir -p "$build/fuzz-tmp"
for dir in "$here"/regressions/*/; do
  [ -d "$dir" ] || continue
  t=$(basename "$dir")
  files=("$dir"*)
  [ -e "${files[0]}" ] || continue
  if ! out=$(TMPDIR="$build/fuzz-tmp" "$build/tests/fuzz/fuzz_$t" -runs=1 -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 "${files[@]}" 2>&1); then
    echo "FAIL fuzz regression of $t:"
    printf '%s\n' "$out" | grep -E 'Running|ERROR|SUMMARY|runtime error' | head -20
    status=1
  fi
  count=$((count + ${#files[@]}))
done
echo "fuzz regressions: $count inputs replayed"
exit $status
