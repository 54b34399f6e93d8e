#!/usr/bin/env bash
# World tiles against one tile graph (make bench): wall time and process peak RSS of a whole
# `navbake build` (import, voxelize, then the world stage or the graph and pack stages) on the
# generated cities, at 1 and 2 threads; and streaming the world's tiles with navrt::World
# (tests/bench/world_stream.cpp), its paths against navrt::Navigator on the one asset.
#   bench_world.sh BUILD_DIR LEVEL.obj...
set -uo pipefail
build=$1
shift
nb=$build/navbake
peak=$build/tests/bench/peak_rss
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-34s %-7s %-6s %9s %10s\n' level threads mode wall_s peak_MiB
for level in "$@"; do
  tris=$("$nb" import "$level" -o "$work/x.geo" 2>&1 | grep -oE "[0-9]+ triangles" | head -1)
  for j in 1 2; do
    for mode in whole world; do
      rm -rf "$work/out"
      w=""
      [ "$mode" = world ] && w="\"world\": {\"tile_size\": 48, \"threads\": $j},"
      echo "{\"input\": \"$level\", \"output\": \"$work/out\", $w \"voxel\": {\"threads\": $j}, \"agents\": [{\"graphs\": [\"tile\"]}]}" >"$work/l.json"
      start=$(date +%s.%N)
      "$peak" "$work/rss" "$nb" -q build "$work/l.json" --jobs 1 2>/dev/null || echo "build failed: $level $mode"
      end=$(date +%s.%N)
      printf '%-34s %-7s %-6s %9.2f %10.1f\n' "$(basename "$level") ($tris)" "$j" "$mode" \
        "$(echo "$end - $start" | bc)" "$(awk '{print $1 / 1024}' "$work/rss")"
      [ "$mode" = whole ] && cp "$work/out/default.tile.nav" "$work/whole.nav"
      if [ "$mode" = world ] && [ "$j" = 1 ]; then
        "$build/tests/bench/world_stream" "$work/out" default "$work/whole.nav" |
          sed 's/^/    streaming: /'
      fi
    done
  done
done
