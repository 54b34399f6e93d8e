#!/usr/bin/env bash
# `make run`: bakes the sample levels end to end with every stage that exists and prints a summary.
# Usage: tools/run_sample.sh NAVBAKE OUT_DIR [SHARED_DATA]
set -euo pipefail
navbake=$1
out=$2
shared=${3:-}
mkdir -p "$out"
step() { printf '\n== %s\n' "$*"; }

echo "$("$navbake" --version)"

step "navbake build: the indoor level from its config (3 agents: human, ogre, drone), report summary"
"$navbake" build sample_levels/indoor_two_floors.json
echo "  (second run: every stage is up to date)"
"$navbake" build sample_levels/indoor_two_floors.json 2>&1 | grep "stages:"
"$navbake" build sample_levels/indoor_two_floors.json --check

step "navbake build: the links course (generated drops and jumps per agent; a ladder, a door, a teleport drawn in the scene; a zipline in the config)"
"$navbake" build sample_levels/links_course.json
echo "From the closed room to the walkway: through the door, then up the ladder (or, cheaper, down into the pit and out by the teleport):"
echo "  tile graph: $("$navbake" query out/links_build/human.tile.nav --from 40,0,20 --to 10,3,5.2 | head -1)"
echo "  navmesh:    $("$navbake" query out/links_build/human.navmesh.nav --from 40,0,20 --to 10,3,5.2 | head -1)"
echo "  POV:        $("$navbake" query out/links_build/human.pov.nav --from 40,0,20 --to 10,3,5.2 | head -1)"

step "Indoor level, stage by stage (glTF: four rooms, a mezzanine over two of them, ramp, stairs, water, crates)"
"$navbake" import sample_levels/indoor_two_floors.glb -o "$out/indoor.geo"
"$navbake" voxelize "$out/indoor.geo" -o "$out/indoor.vox"
"$navbake" graph tile "$out/indoor.vox" -o "$out/indoor.tile.graph"
"$navbake" graph navmesh "$out/indoor.vox" -o "$out/indoor.navmesh.graph"
"$navbake" -q pack "$out/indoor.tile.graph" -o "$out/indoor.tile.nav"
"$navbake" graph pov "$out/indoor.vox" -o "$out/indoor.pov.graph"
"$navbake" -q pack "$out/indoor.navmesh.graph" -o "$out/indoor.navmesh.nav"
"$navbake" -q pack "$out/indoor.pov.graph" -o "$out/indoor.pov.nav"
echo "Ground floor (2, 0, 2) -> mezzanine (8, 3, 15), up the ramp:"
echo "  tile graph: $("$navbake" query "$out/indoor.tile.nav" --from 2,0,2 --to 8,3,15 | head -1)"
echo "  navmesh:    $("$navbake" query "$out/indoor.navmesh.nav" --from 2,0,2 --to 8,3,15 | head -1)"
echo "  POV:        $("$navbake" query "$out/indoor.pov.nav" --from 2,0,2 --to 8,3,15 | head -1)"
"$navbake" nexthop "$out/indoor.tile.graph" -o "$out/indoor.nh"
"$navbake" -q pack "$out/indoor.tile.graph" --nexthop "$out/indoor.nh" -o "$out/indoor.nh.nav"
echo "  next hops:  $("$navbake" query "$out/indoor.nh.nav" --from 2,0,2 --to 8,3,15 --method nexthop | head -1)"

step "Outdoor terrain (OBJ: hills, a cliff, a pond, rocks)"
"$navbake" import sample_levels/terrain.obj -o "$out/terrain.geo"
"$navbake" voxelize "$out/terrain.geo" -o "$out/terrain.vox"
"$navbake" graph navmesh "$out/terrain.vox" -o "$out/terrain.graph" --tile-size 64
"$navbake" -q pack "$out/terrain.graph" -o "$out/terrain.nav"
echo "  navmesh: $("$navbake" query "$out/terrain.nav" --from -20,0,-20 --to 20,0,20 --vertical-tolerance 5 | head -1)"

step "3D maze (MovingAI .3dmap) for flying agents: volume graph, 100 generated scenarios"
"$navbake" import sample_levels/maze3d.3dmap -o "$out/maze3d.vox"
"$navbake" graph volume "$out/maze3d.vox" -o "$out/maze3d.graph"
"$navbake" -q pack "$out/maze3d.graph" -o "$out/maze3d.nav"
"$navbake" scen "$out/maze3d.nav" sample_levels/maze3d.3dscen

if [ -n "$shared" ] && [ -f "$shared/movingai/den520d.map" ]; then
  step "MovingAI den520d (Dragon Age: Origins): tile graph, 1000 benchmark scenarios"
  "$navbake" import "$shared/movingai/den520d.map" -o "$out/den520d.vox"
  "$navbake" graph tile "$out/den520d.vox" -o "$out/den520d.graph"
  "$navbake" -q pack "$out/den520d.graph" -o "$out/den520d.nav"
  "$navbake" scen "$out/den520d.nav" "$shared/movingai/den520d.map.scen"
  step "MovingAI den520d: clusters, cluster heuristic, hierarchy and hierarchical search"
  "$navbake" cluster "$out/den520d.graph" -o "$out/den520d.clu" --cluster-size 16
  "$navbake" hierarchy "$out/den520d.graph" --clusters "$out/den520d.clu" -o "$out/den520d.hier"
  "$navbake" -q pack "$out/den520d.graph" --clusters "$out/den520d.clu" --hierarchy "$out/den520d.hier" -o "$out/den520d.hier.nav"
  "$navbake" scen "$out/den520d.hier.nav" "$shared/movingai/den520d.map.scen" --method cluster
  "$navbake" scen "$out/den520d.hier.nav" "$shared/movingai/den520d.map.scen" --method hier
  "$navbake" scen "$out/den520d.hier.nav" "$shared/movingai/den520d.map.scen" --method hier --hier-mode entrances
  step "MovingAI den520d: hierarchical next-hop table (the flat one: navbake nexthop, ~40 s here)"
  "$navbake" nexthop "$out/den520d.graph" --clusters "$out/den520d.clu" -o "$out/den520d.nhh"
  "$navbake" -q pack "$out/den520d.graph" --nexthop "$out/den520d.nhh" -o "$out/den520d.nhh.nav"
  "$navbake" scen "$out/den520d.nhh.nav" "$shared/movingai/den520d.map.scen" --method nexthop
  step "MovingAI den520d: points-of-visibility graph, exact any-angle paths on the same scenarios"
  "$navbake" graph pov "$out/den520d.vox" -o "$out/den520d.pov.graph"
  "$navbake" -q pack "$out/den520d.pov.graph" -o "$out/den520d.pov.nav"
  "$navbake" scen "$out/den520d.pov.nav" "$shared/movingai/den520d.map.scen"
fi

step "Artifacts in $out/"
ls -l "$out"
