#!/usr/bin/env bash
# `make bench`: runs every benchmark program and prints its figures.
# Usage: tests/bench/run_benchmarks.sh BUILD_DIR SHARED_DATA
set -euo pipefail
build=$1
shared=$2
# Large generated levels (bench_recast --large and bench_large.py): towns on terrain and a
# multi-storey maze, made once by levelgen.
mkdir -p "$build/large"
for spec in "city 4" "city 5" "city 8" "city 10" "city 12" "city 22" "tower 40 4" "tower 60 6"; do
  set -- $spec
  file="$build/large/$1$2${3:+x$3}.obj"
  [ -f "$file" ] || "$build/levelgen" "--$1" "$2" ${3:+"$3"} "$file" >/dev/null
done
for bench in "$build"/tests/bench/bench_*; do
  [ -x "$bench" ] || continue
  name=$(basename "$bench")
  echo "== $name"
  args=("$shared" sample_levels)
  # bench_recast (optional, needs librecast-dev) also writes all its figures as JSON.
  if [ "$name" = bench_recast ]; then
    args+=("$build/bench_recast.json")
    for level in city4 city8 city12 tower40x4; do args+=(--large "$build/large/$level.obj"); done
  fi
  # bench_links also runs on a large generated town (levelgen --town).
  if [ "$name" = bench_links ]; then
    "$build/levelgen" --town 12 "$build/town12.obj" >/dev/null
    args+=("$build/town12.obj")
  fi
  "$bench" "${args[@]}"
  echo
done
# Memory budgets: each stage's estimate next to its measured peak, on the large levels too.
echo "== memory estimates (estimate / measured peak RSS per stage)"
bash tests/cli/memory_budget_test.sh "$build/navbake" "$build/tests/bench/peak_rss" . "$shared" \
  "$build/large/city4.obj" "$build/large/city8.obj" "$build/large/tower40x4.obj"
echo
# World tiles against one tile graph and tiled Recast: wall and peak RSS of whole builds on
# generated worlds of 0.55 M, 2.1 M and 10.1 M triangles.
echo "== world tiles (navbake build with world.tile_size 48; one tile graph; tiled Recast)"
bash tests/bench/bench_world.sh "$build" "$build/large/city5.obj" "$build/large/city10.obj" \
  "$build/large/city22.obj"
echo
# Large generated levels (levelgen --city / --tower): the whole bake, process against process,
# against tiled Recast (recast_peer, built with bench_recast); then the small meshes (the shared
# demo meshes that are there and the sample terrain) against solo Recast.
echo "== bench_large"
meshes=""
for mesh in "$shared"/meshes/*.obj sample_levels/terrain.obj; do
  [ -f "$mesh" ] && meshes="$meshes${meshes:+,}$mesh"
done
python3 tests/bench/bench_large.py "$build" --meshes "$meshes"
# A flat next-hop table of a ~100 k-node map built in shards, as a build farm would.
if [ -f "$shared/movingai/AR0011SR.map" ]; then
  echo "== next-hop table in shards (AR0011SR)"
  bash tests/bench/bench_nexthop_shards.sh "$build" "$shared/movingai/AR0011SR.map" 4
fi
