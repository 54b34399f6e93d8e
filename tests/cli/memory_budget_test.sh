#!/usr/bin/env bash
# Memory budgets (issue 17): every stage estimates its peak before it starts and refuses when the
# estimate is above --max-memory; the estimate is never below what the stage really used.
#   memory_budget_test.sh NAVBAKE PEAK_RSS SOURCE_DIR SHARED_DATA
# For every stage command (import of a mesh and of a MovingAI map, voxelize, graph of each kind,
# tiled navmesh, cluster, hierarchy, flat and hierarchical next-hop tables, pack) and for
# `navbake build`:
#  1. with a tiny --max-memory it exits 1 before writing anything, and the message gives the
#     estimate, the limit and what to change;
#  2. with no limit it succeeds, and its peak resident memory (peak_rss) is at most the estimate.
# Usage errors: a --max-memory that is not a size exits 2.
# `make bench` passes large generated levels (MESH...) as well: the same checks on each, and the
# estimate / measured ratio printed per stage.
#   memory_budget_test.sh NAVBAKE PEAK_RSS SOURCE_DIR SHARED_DATA [MESH...]
set -uo pipefail
navbake=$1
peak_rss=$2
src=$3
shared=$4
shift 4
extra_levels=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL [memory_budget]: $*" >&2; exit 1; }
levels=$src/sample_levels

# KiB of an estimate as the message prints it ("12.3 MiB", "512 bytes").
to_kib() {
  awk -v v="$1" -v u="$2" 'BEGIN { m = 1 / 1024; if (u == "KiB") m = 1; if (u == "MiB") m = 1024;
    if (u == "GiB") m = 1048576; printf "%d\n", v * m + 0.5 }'
}

checked=0
# stage OUTPUT ARGS...: the navbake command ARGS writes OUTPUT.
stage() {
  local output=$1
  shift
  rm -f "$output"
  local text status
  text=$("$navbake" --max-memory 64K "$@" 2>&1)
  status=$?
  [ "$status" -eq 1 ] || fail "'navbake --max-memory 64K $*' exited $status, expected 1: $text"
  grep -q "needs an estimated .* above the memory limit 64.0 KiB (--max-memory" <<<"$text" ||
    fail "'$*': no estimate and limit in: $text"
  grep -q "or raise --max-memory" <<<"$text" || fail "'$*': no advice in: $text"
  [ -e "$output" ] && fail "'$*' wrote $output although it refused"
  local value unit
  read -r value unit < <(grep -oE "needs an estimated [0-9.]+ (bytes|KiB|MiB|GiB)" <<<"$text" |
    head -1 | awk '{print $4, $5}')
  local estimate
  estimate=$(to_kib "$value" "$unit")
  "$peak_rss" "$work/rss" "$navbake" --max-memory none "$@" >"$work/log" 2>&1 ||
    fail "'navbake $*' failed: $(cat "$work/log")"
  [ -s "$output" ] || fail "'$*' wrote no $output"
  local measured
  measured=$(awk '{print $1}' "$work/rss")
  printf '%-44s measured %8d KiB  estimate %8d KiB  (x%.2f)\n' "$(echo "${*:1:2}" | cut -c1-44)" \
    "$measured" "$estimate" "$(awk -v e="$estimate" -v m="$measured" 'BEGIN { print e / m }')"
  [ "$measured" -le "$estimate" ] || fail "'$*' peaked at $measured KiB, above its estimate $estimate KiB"
  checked=$((checked + 1))
}

cp "$levels/links_course.obj" "$levels/links_course.mtl" "$work/"
stage "$work/l.geo" import "$work/links_course.obj" -o "$work/l.geo"
stage "$work/t.geo" import "$levels/indoor_two_floors.glb" -o "$work/t.geo"
stage "$work/l.vox" voxelize "$work/l.geo" -o "$work/l.vox"
for kind in tile navmesh pov volume; do
  stage "$work/l.$kind.graph" graph "$kind" "$work/l.vox" -o "$work/l.$kind.graph"
done
stage "$work/l.links.graph" graph navmesh "$work/l.vox" --drop-height 2 --jump-distance 2 \
  -o "$work/l.links.graph"
stage "$work/l.tiled.graph" graph navmesh "$work/l.vox" --tile-size 32 -o "$work/l.tiled.graph"
stage "$work/l.clu" cluster "$work/l.tile.graph" -o "$work/l.clu"
stage "$work/l.hier" hierarchy "$work/l.tile.graph" --clusters "$work/l.clu" -o "$work/l.hier"
stage "$work/l.nh" nexthop "$work/l.navmesh.graph" -o "$work/l.nh"
stage "$work/l.nav" pack "$work/l.tile.graph" --clusters "$work/l.clu" --hierarchy "$work/l.hier" \
  -o "$work/l.nav"
if [ -f "$shared/movingai/den312d.map" ]; then
  stage "$work/d.vox" import "$shared/movingai/den312d.map" -o "$work/d.vox"
  stage "$work/d.graph" graph tile "$work/d.vox" -o "$work/d.graph"
  stage "$work/d.clu" cluster "$work/d.graph" -o "$work/d.clu"
  stage "$work/d.nh" nexthop "$work/d.graph" -o "$work/d.nh"
  stage "$work/d.nhh" nexthop "$work/d.graph" --clusters "$work/d.clu" -o "$work/d.nhh"
  stage "$work/d.nav" pack "$work/d.graph" --nexthop "$work/d.nh" -o "$work/d.nav"
else
  echo "note: $shared/movingai/den312d.map absent: MovingAI stages not checked"
fi

for mesh in "${extra_levels[@]}"; do
  name=$(basename "$mesh")
  echo "== $name"
  stage "$work/x.geo" import "$mesh" -o "$work/x.geo"
  stage "$work/x.vox" voxelize "$work/x.geo" -o "$work/x.vox"
  for kind in tile navmesh pov; do
    stage "$work/x.$kind.graph" graph "$kind" "$work/x.vox" -o "$work/x.$kind.graph"
  done
  stage "$work/x.tiled.graph" graph navmesh "$work/x.vox" --tile-size 64 -o "$work/x.tiled.graph"
  stage "$work/x.clu" cluster "$work/x.tile.graph" --cluster-size 32 -o "$work/x.clu"
  stage "$work/x.hier" hierarchy "$work/x.tile.graph" --clusters "$work/x.clu" -o "$work/x.hier"
  stage "$work/x.nav" pack "$work/x.tile.graph" --clusters "$work/x.clu" --hierarchy \
    "$work/x.hier" -o "$work/x.nav"
  rm -f "$work"/x.*
done

# The flat next-hop table's own estimate (sampled rows) also answers to the budget: a limit
# above the stage's estimate but below the table's.
text=$("$navbake" --max-memory 20M nexthop "$work/l.tile.graph" -o "$work/big.nh" 2>&1)
status=$?
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 1 ] || fail "nexthop under 20M exited $status: $text"
  grep -q "needs an estimated" <<<"$text" || fail "nexthop under 20M: $text"
fi

# navbake build refuses at its first stage and publishes nothing.
sed -e "s#\"input\": \"links_course.obj\"#\"input\": \"$work/links_course.obj\"#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$work/build\"#" \
    -e 's#"debug_views": true#"debug_views": false#' "$levels/links_course.json" >"$work/level.json"
text=$("$navbake" --max-memory 64K build "$work/level.json" 2>&1)
status=$?
[ "$status" -eq 1 ] || fail "build under 64K exited $status: $text"
grep -q "import.*needs an estimated" <<<"$text" || fail "build under 64K: $text"
ls "$work/build"/*.nav >/dev/null 2>&1 && fail "build under 64K published assets"
"$navbake" --max-memory 75% build "$work/level.json" >"$work/log" 2>&1 ||
  fail "build under 75%: $(cat "$work/log")"

# World stages (every kind: tile, navmesh, POV and Dirichlet tiles for a walker, volume tiles for
# a flyer), each run alone with `build --stage` once the stages before it are built: refused under
# 64K with its estimate, then within it.
cat >"$work/w.json" <<EOF
{"input": "$work/links_course.obj", "output": "$work/world",
 "world": {"tile_size": 16, "graphs": ["tile", "navmesh", "pov", "dirichlet", "volume"]},
 "waypoints": [{"name": "a", "position": [1.5, 0, 0]}],
 "agents": [{"graphs": ["tile", "navmesh", "pov", "dirichlet"]},
            {"name": "drone", "height": 0.6, "radius": 0.4, "graphs": ["volume"]}]}
EOF
"$navbake" -q build "$work/w.json" >"$work/log" 2>&1 || fail "world build: $(cat "$work/log")"
for world in "world tile default" "world navmesh default" "world pov default" \
  "world dirichlet default" "world volume drone"; do
  text=$("$navbake" --max-memory 64K build "$work/w.json" --stage "$world" --force 2>&1)
  status=$?
  [ "$status" -eq 1 ] || fail "'$world' under 64K exited $status: $text"
  grep -q "needs an estimated .* above the memory limit 64.0 KiB" <<<"$text" ||
    fail "'$world' under 64K: $text"
  read -r value unit < <(grep -oE "needs an estimated [0-9.]+ (bytes|KiB|MiB|GiB)" <<<"$text" |
    head -1 | awk '{print $4, $5}')
  estimate=$(to_kib "$value" "$unit")
  "$peak_rss" "$work/rss" "$navbake" -q build "$work/w.json" --stage "$world" --force \
    >"$work/log" 2>&1 || fail "'$world' failed: $(cat "$work/log")"
  measured=$(awk '{print $1}' "$work/rss")
  printf '%-44s measured %8d KiB  estimate %8d KiB  (x%.2f)\n' "build --stage '$world'" \
    "$measured" "$estimate" "$(awk -v e="$estimate" -v m="$measured" 'BEGIN { print e / m }')"
  [ "$measured" -le "$estimate" ] || fail "'$world' peaked at $measured KiB, above its estimate"
  checked=$((checked + 1))
done

# Usage errors.
for bad in 0 -5 12Q 1e400 200% abc; do
  text=$("$navbake" --max-memory "$bad" inspect "$work/l.nav" 2>&1)
  status=$?
  [ "$status" -eq 2 ] || fail "--max-memory $bad exited $status: $text"
  grep -q "is not a size" <<<"$text" || fail "--max-memory $bad: $text"
done
echo "memory budget: $checked stage runs refused under 64K and stayed within their estimates"
