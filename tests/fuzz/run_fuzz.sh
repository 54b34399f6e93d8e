#!/usr/bin/env bash
# Runs the libFuzzer targets (built by `make fuzz` into build-fuzz/) for SECONDS each, two at a
# time (JOBS), and prints one line per target: executions, executions per second, corpus size,
# and whether it found anything.
#   run_fuzz.sh FUZZ_BUILD_DIR SECONDS [TARGET...]   (default: every target)
# The targets are those of tests/fuzz/targets.cmake, as the build wrote them (tests/fuzz/targets.sh).
# The working corpus of target T is FUZZ_BUILD_DIR/fuzz-corpus/T (grown across runs), seeded from
# tests/fuzz/corpus/T and, for the targets that read artifacts, tests/data's golden files.
# RUNS=N stops a target after N executions (when that comes before SECONDS); FUZZ_LOG_DIR says
# where each target's libFuzzer log goes (default FUZZ_BUILD_DIR/fuzz-logs).
# A crash, leak, timeout (10 s for one input) or out-of-memory input is written to
# FUZZ_BUILD_DIR/fuzz-crashes/T/ and makes the script exit 1; turn each into a regression test
# (tests/fuzz/regressions/T/, replayed by `make fuzz-smoke`) once fixed.
set -uo pipefail
build=$(realpath "$1")
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
jobs=${JOBS:-2}
targets=("$@")
[ -f "$build/tests/fuzz/targets.sh" ] || { echo "no $build/tests/fuzz/targets.sh: configure $build with -DNAVBAKE_FUZZ=ON (make fuzz-build)" >&2; exit 2; }
source "$build/tests/fuzz/targets.sh"
[ ${#targets[@]} -eq 0 ] && targets=("${fuzz_targets[@]}")

run_one() {
  local t=$1
  local bin="$build/tests/fuzz/fuzz_$t"
  local work="$build/fuzz-corpus/$t" crashes="$build/fuzz-crashes/$t"
  local log="${FUZZ_LOG_DIR:-$build/fuzz-logs}/$t.log"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  local seeds=()
  local d
  for d in "$here/corpus/$t" "$here/regressions/$t"; do
    [ -d "$d" ] && seeds+=("$d")
  done
  [[ " ${fuzz_artifact_targets[*]} " == *" $t "* ]] && seeds+=("$here/../data")
  local max_len=4096
  case $t in
    container | asset | artifact | world) max_len=65536 ;;
    obj_import | level_config | map | 3dmap | scen) max_len=16384 ;;
  esac
  local runs=()
  [ -n "${RUNS:-}" ] && runs=(-runs="$RUNS")
  TMPDIR="$build/fuzz-tmp" "$bin" -max_total_time="$seconds" "${runs[@]}" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -max_len=$max_len -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$work" "${seeds[@]}" >"$log" 2>&1
  local rc=$?
  local execs speed units
  execs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  speed=$(grep -a -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  units=$(ls "$work" | wc -l)
  if [ $rc -eq 0 ]; then
    printf '%-13s %12s execs %8s execs/s  corpus %6s  ok\n' "$t" "${execs:-?}" "${speed:-?}" "$units"
  else
    printf '%-13s %12s execs %8s execs/s  corpus %6s  FOUND (exit %d): %s\n' "$t" "${execs:-?}" \
      "${speed:-?}" "$units" "$rc" "$(ls -t "$crashes" | head -1)"
    grep -a -m1 -E 'ERROR: |SUMMARY: |runtime error' "$log" | sed 's/^/    /'
    return 1
  fi
}

mkdir -p "$build/fuzz-tmp"
status=0
pids=()
for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { echo "no fuzz target $build/tests/fuzz/fuzz_$t (make fuzz builds them)" >&2; exit 2; }
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
