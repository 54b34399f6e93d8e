#!/usr/bin/env bash
# Golden-hash test: bakes the sample set (bake_samples.sh) and compares every artifact's XXH64
# with tests/golden/artifacts.xxh64. A difference means a stage now writes other bytes: if that is
# intended (a format or algorithm change), regenerate the list with
#   bash tests/golden/bake_samples.sh build/navbake build/tests/xxh64sum . ../shared/data /tmp/g > tests/golden/artifacts.xxh64
# and say why in the commit. Without ../shared/data the entries baked from it are left out.
# Usage: golden_test.sh NAVBAKE XXH64SUM SOURCE_DIR SHARED_DATA
set -uo pipefail
navbake=$1
xxh=$2
src=$3
shared=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
golden="$src/tests/golden/artifacts.xxh64"
bash "$src/tests/golden/bake_samples.sh" "$navbake" "$xxh" "$src" "$shared" "$work/out" >"$work/got.txt" ||
  { echo "FAIL [golden_hashes]: the sample bake failed"; exit 1; }
expected="$work/expected.txt"
if [ -f "$shared/movingai/den312d.map" ] && [ -f "$shared/meshes/dungeon.obj" ]; then
  cp "$golden" "$expected"
else
  echo "note: $shared not found: comparing the sample levels only"
  grep -v -E '^[0-9a-f]{16}  (den312d|dungeon|grid/)' "$golden" >"$expected"
fi
if ! diff -u "$expected" "$work/got.txt" >"$work/diff.txt"; then
  echo "FAIL [golden_hashes]: artifacts differ from $golden (- expected, + baked now):"
  cat "$work/diff.txt"
  exit 1
fi
echo "golden_hashes: $(wc -l <"$work/got.txt") artifacts byte-identical to $golden"
