#!/usr/bin/env bash
# World tiles against one tile graph and against tiled Recast (make bench): wall time and process
# peak RSS of a whole `navbake build` (import, voxelize, then the world stage or the graph and pack
# stages) on generated worlds, at 1 and 2 threads; the same mesh baked by tiled Recast
# (recast_peer, single-threaded, tiles of the same edge; it bakes a navmesh, so it is the peer for
# time and memory, not for the product); and streaming the world's tiles with navrt::World
# (tests/bench/world_stream.cpp), its paths against navrt::Navigator on the one asset. Modes:
# whole (one tile graph and pack), world (world tiles, zstd 19 as pack), world-z6 (zstd level 6),
# mesh-whole (one tiled navmesh asset, tiles of the same edge), mesh-world (navmesh world tiles,
# zstd 6: the product tiled Recast bakes), vol-whole / vol-world (a flyer's volume graph, 0.6 m
# tall, radius 0.4 m: one asset, or world tiles at zstd 6), pov-whole / pov-world (points of
# visibility: one asset, or the whole graph cut into world tiles at zstd 6).
#   bench_world.sh BUILD_DIR LEVEL.obj...
# Environment: WHOLE_MAX_TRIANGLES (default 3000000): larger levels skip the one-graph build (its
# memory grows with the level: ~560 MiB at 2.1 M triangles); STREAM_MAX_TRIANGLES (default
# 2000000): the streaming comparison needs that one asset; VOLUME_WHOLE_MAX_TRIANGLES (default
# 1000000): the one volume asset holds ~12 bytes a voxel of the level's box (828 MiB at city5);
# POV_MAX_TRIANGLES (default 3000000): both POV modes build the whole POV graph (city22, 10 M
# triangles: 121 s, 2.0 GiB).
# MODES: the modes to run (default all). AGENT_EXTRA: more agent fields for every mode (e.g.
# '"drop_height": 3.2, "jump_distance": 2.2' for generated drops and jumps).
set -uo pipefail
build=$1
shift
nb=$build/navbake
peak=$build/tests/bench/peak_rss
recast=$build/tests/bench/recast_peer
whole_max=${WHOLE_MAX_TRIANGLES:-3000000}
stream_max=${STREAM_MAX_TRIANGLES:-2000000}
volume_max=${VOLUME_WHOLE_MAX_TRIANGLES:-1000000}
pov_max=${POV_MAX_TRIANGLES:-3000000}
tile_m=48
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The report's per-stage process peaks (cumulative: the peak after each stage), in MiB.
stage_peaks() {
  python3 - "$1" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
print(" ".join(f"{s['name'].split()[0]}={s['peak_rss_bytes'] / 2**20:.0f}" for s in report["stages"]))
EOF
}
printf '%-28s %-7s %-8s %9s %10s  %s\n' level threads mode wall_s peak_MiB "peak after each stage (MiB)"
for level in "$@"; do
  count=$("$nb" import "$level" -o "$work/x.geo" 2>&1 | grep -oE "[0-9]+ triangles" | head -1 |
    grep -oE "[0-9]+")
  rm -f "$work/x.geo"
  name="$(basename "$level") ($(awk -v n="$count" 'BEGIN{printf "%.2f M", n / 1e6}'))"
  for j in 1 2; do
    for mode in ${MODES:-whole world world-z6 mesh-whole mesh-world vol-whole vol-world pov-whole pov-world}; do
      if { [ "$mode" = whole ] || [ "$mode" = mesh-whole ]; } && [ "$count" -gt "$whole_max" ]; then
        printf '%-28s %-7s %-8s %9s %10s\n' "$name" "$j" "$mode" "-" "(skipped: > $whole_max triangles)"
        continue
      fi
      if [[ $mode == pov-* ]] && [ "$count" -gt "$pov_max" ]; then
        printf '%-28s %-7s %-8s %9s %10s\n' "$name" "$j" "$mode" "-" "(skipped: > $pov_max triangles)"
        continue
      fi
      if [ "$mode" = vol-whole ] && [ "$count" -gt "$volume_max" ]; then
        printf '%-28s %-7s %-8s %9s %10s\n' "$name" "$j" "$mode" "-" "(skipped: > $volume_max triangles)"
        continue
      fi
      rm -rf "$work/out"
      w=""
      kind=tile
      agent="\"graphs\": [\"tile\"]"
      cells=$(awk -v m="$tile_m" 'BEGIN{printf "%d", m / 0.3 + 0.5}')
      [ "$mode" = world ] && w="\"world\": {\"tile_size\": $tile_m, \"threads\": $j},"
      [ "$mode" = world-z6 ] && w="\"world\": {\"tile_size\": $tile_m, \"threads\": $j, \"compression\": 6},"
      if [ "$mode" = mesh-whole ] || [ "$mode" = mesh-world ]; then
        kind=navmesh
        agent="\"graphs\": [\"navmesh\"]"
        w="\"navmesh\": {\"tile_size\": $cells},"
      fi
      if [ "$mode" = vol-whole ] || [ "$mode" = vol-world ]; then
        kind=volume
        agent="\"height\": 0.6, \"radius\": 0.4, \"graphs\": [\"volume\"]"
      fi
      [ "$mode" = vol-world ] && w="\"world\": {\"tile_size\": $tile_m, \"threads\": $j, \"compression\": 6, \"graphs\": [\"volume\"]},"
      if [ "$mode" = pov-whole ] || [ "$mode" = pov-world ]; then
        kind=pov
        agent="\"graphs\": [\"pov\"]"
      fi
      [ "$mode" = pov-world ] && w="\"world\": {\"tile_size\": $tile_m, \"threads\": $j, \"compression\": 6, \"graphs\": [\"pov\"]},"
      [ "$mode" = mesh-world ] && w="$w \"world\": {\"tile_size\": $tile_m, \"threads\": $j, \"compression\": 6, \"graphs\": [\"navmesh\"]},"
      [ -n "${AGENT_EXTRA:-}" ] && agent="$agent, $AGENT_EXTRA"
      echo "{\"input\": \"$level\", \"output\": \"$work/out\", $w \"voxel\": {\"threads\": $j}, \"agents\": [{$agent}]}" >"$work/l.json"
      start=$(date +%s.%N)
      "$peak" "$work/rss" "$nb" -q build "$work/l.json" --jobs 1 2>/dev/null || echo "build failed: $level $mode"
      end=$(date +%s.%N)
      files=""
      case $mode in world*|mesh-world|vol-world|pov-world) files=" tiles $(du -cb "$work/out"/default.$kind.*_*.nav | tail -1 | cut -f1 | awk '{printf "%.1f MiB", $1 / 2^20}')" ;; esac
      printf '%-28s %-7s %-8s %9.2f %10.1f  %s%s\n' "$name" "$j" "$mode" \
        "$(echo "$end - $start" | bc)" "$(awk '{print $1 / 1024}' "$work/rss")" \
        "$(stage_peaks "$work/out/l.report.json")" "$files"
      [ "$mode" = whole ] && cp "$work/out/default.tile.nav" "$work/whole.nav"
      [ "$mode" = mesh-whole ] && cp "$work/out/default.navmesh.nav" "$work/whole-mesh.nav"
      [ "$mode" = vol-whole ] && cp "$work/out/default.volume.nav" "$work/whole-vol.nav"
      [ "$mode" = pov-whole ] && cp "$work/out/default.pov.nav" "$work/whole-pov.nav"
      if [ "$mode" = pov-world ] && [ "$j" = 1 ] && [ -f "$work/whole-pov.nav" ]; then
        "$build/tests/bench/world_stream" "$work/out" default.pov "$work/whole-pov.nav" |
          sed 's/^/    streaming POV: /'
      fi
      if [ "$mode" = world ] && [ "$j" = 1 ] && [ "$count" -le "$stream_max" ] && [ -f "$work/whole.nav" ]; then
        "$build/tests/bench/world_stream" "$work/out" default "$work/whole.nav" |
          sed 's/^/    streaming: /'
      fi
      if [ "$mode" = vol-world ] && [ "$j" = 1 ] && [ -f "$work/whole-vol.nav" ]; then
        WORLD_STREAM_PAIRS=${VOLUME_STREAM_PAIRS:-10} \
          "$build/tests/bench/world_stream" "$work/out" default.volume "$work/whole-vol.nav" |
          sed 's/^/    streaming volume: /'
      fi
      if [ "$mode" = mesh-world ] && [ "$j" = 1 ] && [ "$count" -le "$stream_max" ] && [ -f "$work/whole-mesh.nav" ]; then
        "$build/tests/bench/world_stream" "$work/out" default.navmesh "$work/whole-mesh.nav" |
          sed 's/^/    streaming navmesh: /'
      fi
    done
  done
  rm -f "$work/whole.nav" "$work/whole-mesh.nav" "$work/whole-vol.nav" "$work/whole-pov.nav"
  if [ -x "$recast" ]; then
    cells=$(awk -v m="$tile_m" 'BEGIN{printf "%d", m / 0.3 + 0.5}')
    start=$(date +%s.%N)
    "$peak" "$work/rss" "$recast" "$level" --tile "$cells" >"$work/recast.json" 2>/dev/null ||
      echo "recast_peer failed: $level"
    end=$(date +%s.%N)
    printf '%-28s %-7s %-7s %9.2f %10.1f  %s\n' "$name" 1 recast "$(echo "$end - $start" | bc)" \
      "$(awk '{print $1 / 1024}' "$work/rss")" "(tiled Recast navmesh, $cells-cell tiles)"
  else
    echo "    (recast_peer not built: install librecast-dev for the tiled Recast column)"
  fi
done
