#!/usr/bin/env bash
# `make bench`: runs every benchmark program and prints its figures.
# Usage: tests/bench/run_benchmarks.sh BUILD_DIR SHARED_DATA
set -euo pipefail
build=$1
shared=$2
for bench in "$build"/tests/bench/bench_*; do
  [ -x "$bench" ] || continue
  echo "== $(basename "$bench")"
  "$bench" "$shared" sample_levels
  echo
done
