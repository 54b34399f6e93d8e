#!/usr/bin/env bash
# Golden artifacts: one small file of every artifact kind and kind version, kept as they were
# written, with the `navbake inspect --json` each gave (FILE.inspect.json). The golden test
# (tests/data/check_golden.sh, CTest golden_files; and the unit test "golden files") reads them
# with the current code: a change that stops an old file from loading, or changes what is read
# from it, fails there.
#
#   make_golden.sh bake NAVBAKE OUT_DIR    bake the whole set from sample_levels/ into OUT_DIR
#   make_golden.sh expect NAVBAKE DIR      rewrite DIR/*.inspect.json from the current inspect
#
# Committed files are never re-baked: when a kind gets a new version, bake the set into a scratch
# folder and copy only the new version's file (and its .inspect.json) into tests/data/. `expect`
# is for a deliberate change of inspect's output (review the diff). GEOM version 4 (strips
# without block extents; no longer written, still read) is made from version 5 by
# tests/data/strips_v4.py.
set -euo pipefail
mode=$1
navbake=$(realpath "$2")
dir=$3
here=$(cd "$(dirname "$0")" && pwd)
levels="$here/../../sample_levels"

expect() {
  cd "$dir"
  for f in *; do
    case "$f" in *.inspect.json | *.sh | *.py | *.md) continue ;; esac
    "$navbake" inspect --json "$f" >"$f.inspect.json"
  done
}

if [ "$mode" = expect ]; then
  expect
  exit 0
fi
[ "$mode" = bake ] || { echo "usage: $0 bake|expect NAVBAKE DIR" >&2; exit 2; }
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nb() { "$navbake" -q "$@"; }

# Geometry: v1 plain (indoor), v2 scene links (links course), v3 markers (designer yard),
# v5 strips (indoor, --strip-size), v4 converted from v5.
nb import "$levels/indoor_two_floors.glb" -o "$dir/geom-v1.geo"
nb import "$levels/links_course.obj" -o "$dir/geom-v2-links.geo"
nb import "$levels/designer_yard.obj" -o "$dir/geom-v3-markers.geo"
nb import "$levels/indoor_two_floors.glb" -o "$dir/geom-v5-strips.geo" --strip-size 4
python3 "$here/strips_v4.py" "$dir/geom-v5-strips.geo" "$dir/geom-v4-strips.geo"
# Voxel grids: v1, v2 (links), v3 (markers).
nb voxelize "$dir/geom-v1.geo" -o "$dir/voxl-v1.vox"
nb voxelize "$dir/geom-v2-links.geo" -o "$dir/voxl-v2-links.vox"
nb voxelize "$dir/geom-v3-markers.geo" -o "$dir/voxl-v3-markers.vox"
# Graphs v1 of every graph type, v2 with links; the lookup structures.
for kind in tile navmesh pov volume; do
  nb graph "$kind" "$dir/voxl-v1.vox" -o "$work/$kind.graph"
done
nb graph dirichlet "$dir/voxl-v3-markers.vox" -o "$work/dirichlet.graph"  # its scene waypoints
cp "$work/tile.graph" "$dir/grph-v1-tile.graph"
cp "$work/navmesh.graph" "$dir/grph-v1-navmesh.graph"
nb graph tile "$dir/voxl-v2-links.vox" -o "$dir/grph-v2-links.graph"
# The tables on a small grid (rooms and doors, 24 x 24: all-pairs tables stay small).
{
  printf 'type octile\nheight 24\nwidth 24\nmap\n'
  for y in $(seq 0 23); do
    row=""
    for x in $(seq 0 23); do
      c=.
      if { [ $x = 8 ] || [ $x = 16 ]; } && [ $((y % 8)) != 4 ]; then c=@; fi
      if [ $y = 12 ] && [ $((x % 8)) != 2 ]; then c=@; fi
      row="$row$c"
    done
    echo "$row"
  done
} >"$work/rooms.map"
nb import "$work/rooms.map" -o "$work/rooms.vox"
nb graph tile "$work/rooms.vox" -o "$work/rooms.graph"
nb cluster "$work/rooms.graph" -o "$dir/clus-v1.clu" --cluster-size 8
nb cluster "$work/navmesh.graph" -o "$work/navmesh.clu"
nb hierarchy "$work/rooms.graph" --clusters "$dir/clus-v1.clu" -o "$dir/hier-v1.hier"
nb nexthop "$work/rooms.graph" -o "$dir/nhop-v1.nh"
nb nexthop "$work/rooms.graph" --clusters "$dir/clus-v1.clu" -o "$dir/nhhi-v1.nhh"
# Runtime assets: v1 with every table, v1 of the other graph types, v2 with links.
nb pack "$work/rooms.graph" --clusters "$dir/clus-v1.clu" --hierarchy "$dir/hier-v1.hier" \
  --nexthop "$dir/nhop-v1.nh" --jump-points --goal-bounds -o "$dir/nava-v1-tables.nav"
nb pack "$work/rooms.graph" --nexthop "$dir/nhhi-v1.nhh" -o "$dir/nava-v1-nhh.nav"
nb pack "$work/navmesh.graph" --clusters "$work/navmesh.clu" -o "$dir/nava-v1-navmesh.nav"
for kind in pov volume dirichlet; do
  nb pack "$work/$kind.graph" -o "$dir/nava-v1-$kind.nav"
done
nb pack "$dir/grph-v2-links.graph" -o "$dir/nava-v2-links.nav"
# A world: its index and its tiles (tile graph of the indoor level, 16 m tiles).
mkdir -p "$work/world"
cp "$levels/indoor_two_floors.glb" "$work/world/"
printf '{"input": "indoor_two_floors.glb", "output": "out", "world": {"tile_size": 16}}\n' \
  >"$work/world/level.json"
nb build "$work/world/level.json" --jobs 1
cp "$work/world/out/default.tile.world" "$dir/wrld-v1.world"
for t in "$work"/world/out/default.tile.*_*.nav; do
  cp "$t" "$dir/wrld-v1-tile.$(basename "$t" | sed 's/^default\.tile\.//')"
done
expect
