#!/usr/bin/env bash
# Bakes a fixed set of artifacts through every stage and variant of the command line and of
# `navbake build`, then prints "XXH64  FILE" for each (sorted by name). The golden test compares
# that list with tests/golden/artifacts.xxh64, so any change to the bytes a stage writes is seen.
# Usage: bake_samples.sh NAVBAKE XXH64SUM SOURCE_DIR SHARED_DATA OUT_DIR
# Writes the list to stdout; stage logs go to OUT_DIR/bake.log. Exit 1 when a command fails.
set -euo pipefail
navbake=$(realpath "$1")
xxh=$(realpath "$2")
src=$3
shared=$4
out=$5
levels="$src/sample_levels"
mkdir -p "$out"
log="$out/bake.log"
: >"$log"
nb() { echo "+ navbake $*" >>"$log"; "$navbake" -q "$@" >>"$log" 2>&1 || { echo "failed: navbake $*" >&2; tail -5 "$log" >&2; exit 1; }; }

# Indoor level: every graph kind and every lookup structure.
nb import "$levels/indoor_two_floors.glb" -o "$out/indoor.geo"
nb voxelize "$out/indoor.geo" -o "$out/indoor.vox"
nb voxelize "$out/indoor.geo" -o "$out/indoor.ogre.vox" --agent-height 2.8 --agent-radius 1.2 --agent-climb 0.6 --threads 1
nb graph tile "$out/indoor.vox" -o "$out/indoor.tile.graph"
nb graph navmesh "$out/indoor.vox" -o "$out/indoor.navmesh.graph"
nb graph navmesh "$out/indoor.vox" -o "$out/indoor.monotone.graph" --partition monotone --tile-size 32 --max-verts-per-poly 4
nb graph pov "$out/indoor.vox" -o "$out/indoor.pov.graph"
nb graph volume "$out/indoor.vox" -o "$out/indoor.volume.graph" --agent-radius 0.4
nb cluster "$out/indoor.tile.graph" -o "$out/indoor.grid.clu" --cluster-size 8
nb cluster "$out/indoor.tile.graph" -o "$out/indoor.regions.clu" --method regions --clusters 12
nb cluster "$out/indoor.navmesh.graph" -o "$out/indoor.navmesh.clu"
nb hierarchy "$out/indoor.tile.graph" --clusters "$out/indoor.grid.clu" -o "$out/indoor.hier"
nb hierarchy "$out/indoor.tile.graph" --clusters "$out/indoor.regions.clu" -o "$out/indoor.all.hier" --entrances all --cost maximin --fanout 2
nb nexthop "$out/indoor.tile.graph" -o "$out/indoor.nh"
nb nexthop "$out/indoor.tile.graph" -o "$out/indoor.s0.nh" --shard 0/2 --block-rows 8
nb nexthop "$out/indoor.tile.graph" -o "$out/indoor.s1.nh" --shard 1/2 --block-rows 8
nb nexthop merge "$out/indoor.s1.nh" "$out/indoor.s0.nh" -o "$out/indoor.merged.nh"
nb nexthop "$out/indoor.tile.graph" --clusters "$out/indoor.grid.clu" -o "$out/indoor.nhh"
nb nexthop "$out/indoor.navmesh.graph" -o "$out/indoor.navmesh.nh"
nb pack "$out/indoor.tile.graph" -o "$out/indoor.tile.nav"
nb pack "$out/indoor.tile.graph" --clusters "$out/indoor.grid.clu" --hierarchy "$out/indoor.hier" --nexthop "$out/indoor.nh" -o "$out/indoor.full.nav"
nb pack "$out/indoor.tile.graph" --nexthop "$out/indoor.nhh" -o "$out/indoor.nhh.nav"
nb pack "$out/indoor.navmesh.graph" --clusters "$out/indoor.navmesh.clu" --nexthop "$out/indoor.navmesh.nh" -o "$out/indoor.navmesh.nav"
nb pack "$out/indoor.pov.graph" -o "$out/indoor.pov.nav"
nb pack "$out/indoor.volume.graph" -o "$out/indoor.volume.nav"
nb view "$out/indoor.navmesh.nav" -o "$out/indoor.navmesh.png" --size 256
nb view "$out/indoor.tile.nav" -o "$out/indoor.tile.glb"

# The indoor level through `navbake build` (3 agents, debug views).
mkdir -p "$out/build"
cp "$levels/indoor_two_floors.glb" "$out/build/"
sed -e 's#"\.\./out/indoor_build"#"indoor"#' -e '/\$schema/d' "$levels/indoor_two_floors.json" >"$out/build/indoor.json"
nb build "$out/build/indoor.json" --jobs 2

# Terrain (tiled navmesh) and the 3D maze (volume graph).
nb import "$levels/terrain.obj" -o "$out/terrain.geo"
nb voxelize "$out/terrain.geo" -o "$out/terrain.vox"
nb graph navmesh "$out/terrain.vox" -o "$out/terrain.graph" --tile-size 64
nb pack "$out/terrain.graph" -o "$out/terrain.nav"
nb import "$levels/maze3d.3dmap" -o "$out/maze3d.vox"
nb graph volume "$out/maze3d.vox" -o "$out/maze3d.graph"
nb pack "$out/maze3d.graph" -o "$out/maze3d.nav"

# The links course (graph v2): scene links (.geo/.vox v2), authored and generated links on every
# graph kind, teleports on a volume graph, a view with links.
nb import "$levels/links_course.obj" -o "$out/course.geo"
nb voxelize "$out/course.geo" -o "$out/course.vox"
printf '{"link_types": [{"name": "zipline", "cost_factor": 0.8}], "links": [{"from": [13, 3, 5.2], "to": [13, 0, 22], "type": "zipline", "id": 1, "user_data": 7}, {"from": [40, 0, 8], "to": [8, 0, 14], "type": "teleport", "width": 1.2, "bidirectional": true}]}\n' >"$out/course.links.json"
for kind in tile navmesh pov; do
  nb graph "$kind" "$out/course.vox" -o "$out/course.$kind.graph" --links "$out/course.links.json" \
    --drop-height 3.2 --jump-distance 2.2 --jump-up-height 1.3
  nb pack "$out/course.$kind.graph" -o "$out/course.$kind.nav"
done
nb graph volume "$out/course.vox" -o "$out/course.volume.graph" --agent-radius 0.4
nb cluster "$out/course.tile.graph" -o "$out/course.clu"
nb nexthop "$out/course.navmesh.graph" -o "$out/course.navmesh.nh"
nb view "$out/course.navmesh.nav" -o "$out/course.navmesh.svg"

# MovingAI maps from the shared data, when present.
if [ -f "$shared/movingai/den312d.map" ]; then
  map="$shared/movingai/den312d.map"
  nb import "$map" -o "$out/den312d.vox"
  nb graph tile "$out/den312d.vox" -o "$out/den312d.graph"
  nb graph pov "$out/den312d.vox" -o "$out/den312d.pov.graph"
  nb cluster "$out/den312d.graph" -o "$out/den312d.clu"
  nb cluster "$out/den312d.graph" -o "$out/den312d.regions.clu" --method regions
  nb hierarchy "$out/den312d.graph" --clusters "$out/den312d.clu" -o "$out/den312d.hier" --cost avgmin
  nb nexthop "$out/den312d.graph" -o "$out/den312d.nh"
  nb nexthop "$out/den312d.graph" --clusters "$out/den312d.regions.clu" -o "$out/den312d.nhh"
  # One wall cell opened and one blocked: the incremental update.
  awk 'NR==30{ $0 = substr($0,1,21) "@" substr($0,23) } NR==40{ $0 = substr($0,1,9) "." substr($0,11) } {print}' \
    "$map" >"$out/den312d_edit.map"
  nb import "$out/den312d_edit.map" -o "$out/den312d_edit.vox"
  nb graph tile "$out/den312d_edit.vox" -o "$out/den312d_edit.graph"
  nb nexthop update "$out/den312d.nh" "$out/den312d.graph" "$out/den312d_edit.graph" -o "$out/den312d_edit.nh"
  nb pack "$out/den312d.graph" --clusters "$out/den312d.clu" --hierarchy "$out/den312d.hier" --nexthop "$out/den312d.nh" -o "$out/den312d.nav"
  nb cluster "$out/den312d.pov.graph" -o "$out/den312d.pov.clu" --clusters 20
  nb pack "$out/den312d.pov.graph" --clusters "$out/den312d.pov.clu" -o "$out/den312d.pov.nav"
  mkdir -p "$out/grid"
  cp "$map" "$out/grid/"
  printf '{"input": "den312d.map", "output": "den", "agents": [{"graphs": ["tile", "pov"], "clusters": {"method": "regions"}, "hierarchy": {"entrances": "all"}, "nexthop": {"hierarchical": true}}]}\n' >"$out/grid/den.json"
  nb build "$out/grid/den.json" --jobs 1
fi
if [ -f "$shared/meshes/dungeon.obj" ]; then
  nb import "$shared/meshes/dungeon.obj" -o "$out/dungeon.geo"
  nb voxelize "$out/dungeon.geo" -o "$out/dungeon.vox"
  nb graph navmesh "$out/dungeon.vox" -o "$out/dungeon.graph" --tile-size 48 --threads 2
  nb pack "$out/dungeon.graph" -o "$out/dungeon.nav"
fi

cd "$out"
find . -type f ! -name bake.log ! -name .navbake.lock ! -name '*.report.json' ! -path './build/indoor_two_floors.glb' ! -name '*.json' ! -name '*.map' \
  ! -path '*/.cache/*' | sed 's#^\./##' | LC_ALL=C sort | while read -r f; do
  printf '%s  %s\n' "$("$xxh" "$f")" "$f"
done
