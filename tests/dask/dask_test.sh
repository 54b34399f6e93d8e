#!/usr/bin/env bash
# Acceptance (issue 17): tools/navbake-dask bakes a level's stages on a Dask LocalCluster of two
# worker processes on 127.0.0.1 and gives outputs byte-identical to `navbake build`.
#   dask_test.sh NAVBAKE SOURCE_DIR SHARED_DATA
# Skips (77) when Debian's python3-distributed is not installed (`make setup` installs it).
# 1. links_course (three agents, five graph kinds, authored and scene links): the .nav assets
#    equal a local build's byte for byte, and the report gives each stage the same key, counts,
#    warnings and named inputs.
# 2. den312d with clusters, a hierarchy and a flat next-hop table split into 3 shard tasks and a
#    merge task: the same bytes as a local build.
#    A tiled world (terrain, 9 tiles) in 2 shard tasks and a merge: the tiles and the index equal
#    a local build's. POV and Dirichlet worlds (links_course): the same bytes.
# 3. A second run submits nothing (every stage cached); a stage that fails on a worker fails the
#    driver with that stage's error and publishes nothing.
set -uo pipefail
navbake=$1
src=$2
shared=$3
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
if ! "$python" -c "import distributed" 2>/dev/null; then
  echo "SKIP: Dask's distributed scheduler is not installed for $python (Debian package" \
    "python3-distributed; 'make setup' installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL [dask]: $*" >&2; exit 1; }
driver=("$python" "$src/tools/navbake-dask" --navbake "$navbake" --workers 2)

# same_outputs LOCAL_DIR DASK_DIR: every .nav of the local build is there, byte-identical.
same_outputs() {
  local n=0
  for f in "$1"/*.nav; do
    cmp -s "$f" "$2/$(basename "$f")" || fail "$(basename "$f") differs from the local build"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || fail "the local build in $1 wrote no assets"
  echo "$n assets byte-identical"
}

# ---- 1. links_course. ----
cp "$src/sample_levels/links_course.obj" "$src/sample_levels/links_course.mtl" "$work/"
# The same config file name in two folders (named links carry it, so it is in the keys).
for mode in local dask; do
  mkdir -p "$work/$mode"
  sed -e "s#\"input\": \"links_course.obj\"#\"input\": \"$work/links_course.obj\"#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"out\"#" -e 's#"debug_views": true#"debug_views": false#' \
    "$src/sample_levels/links_course.json" >"$work/$mode/level.json"
done
"$navbake" -q build "$work/local/level.json" 2>/dev/null || fail "local build"
"${driver[@]}" "$work/dask/level.json" >"$work/dask.log" 2>&1 || fail "navbake-dask: $(cat "$work/dask.log")"
grep -q "17 stage task(s) submitted to a LocalCluster of 2 workers" "$work/dask.log" ||
  fail "no tasks submitted: $(cat "$work/dask.log")"
same_outputs "$work/local/out" "$work/dask/out"
"$python" - "$work/local/out/level.report.json" "$work/dask/out/level.report.json" <<'PY' || fail "reports differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert len(a["stages"]) == len(b["stages"]) == 17
for x, y in zip(a["stages"], b["stages"]):
    for field in ("name", "key", "counts", "warnings", "named_inputs"):
        assert x[field] == y[field], (x["name"], field, x[field], y[field])
    assert y["status"] == "up to date", y["name"]  # built on the workers, published here
assert sum(len(s["warnings"]) for s in b["stages"]) >= 4
print("reports agree on 17 stages")
PY

# ---- 2. den312d with a sharded flat next-hop table. ----
if [ -f "$shared/movingai/den312d.map" ]; then
  for mode in local dask; do
    cat >"$work/map_$mode.json" <<JSON
{"input": "$shared/movingai/den312d.map", "output": "$work/map_$mode",
 "agents": [{"graphs": ["tile"], "clusters": true, "hierarchy": true, "nexthop": true}]}
JSON
  done
  "$navbake" -q build "$work/map_local.json" || fail "local map build"
  "${driver[@]}" "$work/map_dask.json" --shards 3 >"$work/map.log" 2>&1 ||
    fail "navbake-dask --shards 3: $(cat "$work/map.log")"
  grep -q "nexthop tile default: 3 shard tasks and a merge task" "$work/map.log" ||
    fail "no shard tasks: $(cat "$work/map.log")"
  grep -q "gathered nexthop tile default merge" "$work/map.log" || fail "no merge task: $(cat "$work/map.log")"
  same_outputs "$work/map_local" "$work/map_dask"
else
  echo "note: den312d.map absent: the sharded next-hop case was not run"
fi

# ---- 2b. A tiled world in 2 shards (rows of tiles) and a merge (the index; it reuses the tiles). ----
cp "$src/sample_levels/terrain.obj" "$src/sample_levels/terrain.mtl" "$work/"
for mode in local dask; do
  echo "{\"input\": \"$work/terrain.obj\", \"output\": \"$work/world_$mode\", \"world\": {\"tile_size\": 20}, \"agents\": [{\"graphs\": [\"tile\"]}]}" >"$work/world_$mode.json"
done
"$navbake" -q build "$work/world_local.json" 2>/dev/null || fail "local world build"
"${driver[@]}" "$work/world_dask.json" --shards 2 >"$work/world.log" 2>&1 ||
  fail "navbake-dask world: $(cat "$work/world.log")"
grep -q "world tile default: 2 shard tasks and a merge task" "$work/world.log" ||
  fail "the world's tiles were not split: $(cat "$work/world.log")"
for f in "$work"/world_local/*.nav "$work"/world_local/*.world; do
  cmp -s "$f" "$work/world_dask/$(basename "$f")" || fail "world: $(basename "$f") differs"
done
echo "world: $(ls "$work"/world_local/*.nav | wc -l) tiles and the index byte-identical"
# ---- 2c. Worlds cut from whole graphs (POV, Dirichlet domains): a graph stage then its world
# stage, each a task. ----
cp "$src/sample_levels/links_course.obj" "$src/sample_levels/links_course.mtl" "$work/"
for mode in local dask; do
  echo "{\"input\": \"$work/links_course.obj\", \"output\": \"$work/cut_$mode\", \"world\": {\"tile_size\": 16, \"graphs\": [\"pov\", \"dirichlet\"]}, \"waypoints\": [{\"name\": \"a\", \"position\": [1.5, 0, 0]}], \"agents\": [{\"graphs\": [\"pov\", \"dirichlet\"]}]}" >"$work/cut_$mode.json"
done
"$navbake" -q build "$work/cut_local.json" 2>/dev/null || fail "local POV / Dirichlet world build"
"${driver[@]}" "$work/cut_dask.json" >"$work/cut.log" 2>&1 ||
  fail "navbake-dask POV / Dirichlet world: $(cat "$work/cut.log")"
n=0
for f in "$work"/cut_local/*.nav "$work"/cut_local/*.world; do
  cmp -s "$f" "$work/cut_dask/$(basename "$f")" || fail "cut world: $(basename "$f") differs"
  n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "the POV / Dirichlet worlds wrote $n files"
echo "POV and Dirichlet worlds: $n files byte-identical"

# ---- 3. Cached stages are not submitted; a failing stage fails the driver. ----
"${driver[@]}" "$work/dask/level.json" >"$work/again.log" 2>&1 || fail "second run: $(cat "$work/again.log")"
grep -q "0 stage task(s) submitted" "$work/again.log" || fail "second run resubmitted: $(cat "$work/again.log")"
same_outputs "$work/local/out" "$work/dask/out"
cat >"$work/bad.json" <<JSON
{"input": "$work/links_course.obj", "output": "$work/bad",
 "agents": [{"graphs": ["tile"], "clusters": {"cluster_size": 8}, "nexthop": {"hierarchical": true, "max_memory": "1K"}}]}
JSON
"${driver[@]}" "$work/bad.json" >"$work/bad.log" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "a failing stage: driver exited $status: $(cat "$work/bad.log")"
grep -q "nexthop tile default failed" "$work/bad.log" || fail "no failing stage named: $(cat "$work/bad.log")"
grep -q "next-hop table needs an estimated" "$work/bad.log" || fail "no stage error: $(cat "$work/bad.log")"
ls "$work/bad"/*.nav >/dev/null 2>&1 && fail "published assets after a failed stage"
echo "navbake-dask: all cases passed"
