#!/usr/bin/env bash
# The golden-file test (CTest cli.golden_files): `navbake inspect --json` of every golden artifact
# in tests/data must still give what it gave when the file was added (FILE.inspect.json), so an
# old file is read the same by the current code. See tests/data/make_golden.sh.
#   check_golden.sh NAVBAKE DATA_DIR
set -uo pipefail
navbake=$(realpath "$1")
cd "$2" || exit 1
status=0
count=0
for f in *; do
  case "$f" in *.inspect.json | *.sh | *.py | *.md) continue ;; esac
  expected="$f.inspect.json"
  if [ ! -f "$expected" ]; then
    echo "FAIL $f: no $expected (tests/data/make_golden.sh expect writes it)"
    status=1
    continue
  fi
  if ! actual=$("$navbake" inspect --json "$f" 2>&1); then
    echo "FAIL $f: navbake inspect failed: $actual"
    status=1
    continue
  fi
  if ! diff -u "$expected" <(printf '%s\n' "$actual") >/tmp/golden_diff.$$ 2>&1; then
    echo "FAIL $f: inspect --json differs from $expected:"
    head -40 /tmp/golden_diff.$$
    status=1
  fi
  count=$((count + 1))
done
rm -f /tmp/golden_diff.$$
for e in *.inspect.json; do
  [ -f "${e%.inspect.json}" ] || { echo "FAIL $e: its artifact ${e%.inspect.json} is missing"; status=1; }
done
[ "$count" -ge 20 ] || { echo "FAIL only $count golden artifacts in $(pwd)"; status=1; }
[ $status = 0 ] && echo "golden files: $count artifacts read as recorded"
exit $status
