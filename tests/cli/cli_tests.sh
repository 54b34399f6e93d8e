#!/usr/bin/env bash
# End-to-end tests of the navbake command line. One case per CTest entry:
#   cli_tests.sh CASE NAVBAKE LEVELGEN SOURCE_DIR SHARED_DATA
# Exit 0 = pass, 77 = skipped (reference data absent), anything else = fail.
set -uo pipefail
case_name=$1
navbake=$2
levelgen=$3
src=$4
shared=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
levels="$src/sample_levels"

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
skip() { echo "SKIP [$case_name]: $*"; exit 77; }
need_shared() { [ -d "$shared/movingai" ] && [ -d "$shared/meshes" ] || skip "reference data not found at $shared"; }

# expect CODE PATTERN CMD...: runs CMD, checks its exit code and that stderr+stdout match PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 2
  local output status
  output=$("$@" 2>&1)
  status=$?
  [ "$status" -eq "$code" ] || fail "'$*' exited $status, expected $code. Output:
$output"
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" <<<"$output"; then
    fail "'$*' output does not match /$pattern/. Output:
$output"
  fi
}

# build_sample LEVEL NAME: builds sample level LEVEL (its .obj, links_course.mtl and its .json,
# written to $work/NAME.json with its output in $work/out and no debug views); log in build.log.
build_sample() {
  cp "$levels/$1.obj" "$levels/links_course.mtl" "$work/"
  sed 's|"output": "[^"]*"|"output": "out"|; s|"debug_views": true|"debug_views": false|; s|"\$schema": "../formats/level.schema.json"|"$schema": "x"|' \
    "$levels/$1.json" >"$work/$2.json"
  "$navbake" build "$work/$2.json" --jobs 2 >"$work/build.log" 2>&1 || fail "build: $(cat "$work/build.log")"
}

# json_field FILE KEY: first numeric value of "KEY": in a pretty-printed JSON file.
json_field() { grep -Eo "\"$2\": -?[0-9.e+-]+" "$1" | head -1 | awk '{print $2}'; }

case "$case_name" in
help_and_version)
  expect 0 "import" "$navbake" --help
  expect 0 "inspect" "$navbake" --help
  expect 0 "^navbake [0-9]+\.[0-9]+\.[0-9]+ \(container format 1\)" "$navbake" --version
  expect 0 "--tags" "$navbake" import --help
  expect 0 "--json" "$navbake" inspect --help
  ;;
usage_errors)
  expect 2 "" "$navbake"
  expect 2 "required" "$navbake" import
  expect 2 "output is required|--output" "$navbake" import "$levels/terrain.obj"
  expect 2 "" "$navbake" import "$levels/terrain.obj" -o "$work/t.geo" --up x
  expect 2 "" "$navbake" import "$levels/terrain.obj" -o "$work/t.geo" --scale -1
  expect 2 "" "$navbake" frobnicate
  expect 2 "" "$navbake" --log-format xml inspect x
  ;;
import_sample_levels)
  expect 0 "332 triangles" "$navbake" import "$levels/indoor_two_floors.glb" -o "$work/indoor.geo"
  expect 0 "7366 triangles" "$navbake" import "$levels/terrain.obj" -o "$work/terrain.geo"
  "$navbake" inspect "$work/indoor.geo" --json >"$work/indoor.json" || fail "inspect failed"
  [ "$(json_field "$work/indoor.json" triangles)" = 332 ] || fail "indoor triangle count"
  grep -q '"kind": "GEOM"' "$work/indoor.json" || fail "kind missing"
  grep -q '"checksum_ok": false' "$work/indoor.json" && fail "checksum reported bad"
  expect 0 "checksum OK" "$navbake" inspect "$work/terrain.geo"
  # Where the walkable surface lies (for coordinates to query): the ground floor and the
  # mezzanine 3 m up of the indoor level, on the grid and on its tile graph.
  "$navbake" -q voxelize "$work/indoor.geo" -o "$work/indoor.vox" || fail "voxelize indoor"
  "$navbake" -q graph tile "$work/indoor.vox" -o "$work/indoor.graph" || fail "graph indoor"
  for artifact in indoor.vox indoor.graph; do
    out=$("$navbake" inspect "$work/$artifact") || fail "inspect $artifact"
    grep -q "y=0  points=4046  x=\[1.05, 28.95\]  z=\[1.05, 19.05\]" <<<"$out" || fail "$artifact: no ground floor: $out"
    grep -q "y=3  points=1688" <<<"$out" || fail "$artifact: no mezzanine: $out"
  done
  # Quiet mode prints no info lines; JSON logs are one object per line.
  out=$("$navbake" -q import "$levels/terrain.obj" -o "$work/q.geo" 2>&1) || fail "quiet import failed"
  [ -z "$out" ] || fail "quiet mode printed: $out"
  "$navbake" --log-format json import "$levels/terrain.obj" -o "$work/j.geo" 2>"$work/log.json" ||
    fail "json-log import failed"
  grep -q '^{"time":[0-9.]*,"level":"info","message":".*triangles' "$work/log.json" ||
    fail "json log lines malformed: $(cat "$work/log.json")"
  ;;
import_determinism)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/a.geo" || fail "import a"
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/b.geo" || fail "import b"
  cmp "$work/a.geo" "$work/b.geo" || fail "two imports differ"
  ;;
import_shared_meshes)
  need_shared
  for mesh in "$shared"/meshes/*.obj; do
    name=$(basename "$mesh" .obj)
    expect 0 "triangles" "$navbake" import "$mesh" -o "$work/$name.geo"
    "$navbake" inspect "$work/$name.geo" --json >"$work/$name.json" || fail "inspect $name"
    tris=$(json_field "$work/$name.json" triangles)
    [ "${tris:-0}" -gt 100 ] || fail "$name: only ${tris:-0} triangles"
  done
  ;;
import_movingai_den520d)
  need_shared
  map="$shared/movingai/den520d.map"
  expected=$(tail -n +5 "$map" | tr -cd '.GS' | wc -c)
  expect 0 "256 x 257" "$navbake" import "$map" -o "$work/den.vox"
  "$navbake" inspect "$work/den.vox" --json >"$work/den.json" || fail "inspect"
  [ "$(json_field "$work/den.json" width)" = 256 ] || fail "width"
  [ "$(json_field "$work/den.json" height)" = 257 ] || fail "height"
  [ "$(json_field "$work/den.json" cells)" = 65792 ] || fail "cells"
  [ "$(json_field "$work/den.json" passable)" = "$expected" ] || fail "passable != $expected"
  [ "$(json_field "$work/den.json" walkable_spans)" = "$expected" ] || fail "walkable spans"
  ;;
import_3dmap)
  expect 0 "41 x 25 x 41 voxels \(width x height x depth\), [0-9]+ blocked" \
    "$navbake" import "$levels/maze3d.3dmap" -o "$work/maze.vox"
  "$navbake" inspect "$work/maze.vox" --json >"$work/maze.json" || fail "inspect"
  grep -q '"source": "voxel_map"' "$work/maze.json" || fail "source is not voxel_map"
  [ "$(json_field "$work/maze.json" x)" = 41 ] || fail "size x"
  [ "$(json_field "$work/maze.json" y)" = 25 ] || fail "size y"
  [ "$(json_field "$work/maze.json" z)" = 41 ] || fail "size z"
  printf 'voxel 4 4 4\r\n0 0 0\r\n1 2\r\n' >"$work/bad.3DMAP"
  expect 1 "bad.3DMAP: line 3: expected a voxel 'x y z'" "$navbake" import "$work/bad.3DMAP" -o "$work/x.vox"
  printf 'voxel 4 4 4\n0 0 0\n1 4 1\n' >"$work/range.3dmap"
  expect 1 "range.3dmap: line 3: voxel y coordinate 4 is out of range 0..3" \
    "$navbake" import "$work/range.3dmap" -o "$work/x.vox"
  [ ! -e "$work/x.vox" ] || fail "a failed import left an output"
  ;;
bad_inputs)
  expect 1 "no such file" "$navbake" import "$work/missing.obj" -o "$work/x.geo"
  printf 'not a mesh at all\n' >"$work/garbage.xyz123"
  expect 1 "cannot import" "$navbake" import "$work/garbage.xyz123" -o "$work/x.geo"
  printf '# empty\n' >"$work/empty.obj"
  expect 1 "empty.obj" "$navbake" import "$work/empty.obj" -o "$work/x.geo"
  printf 'type octile\nheight 2\nwidth 3\nmap\n...\n..\n' >"$work/ragged.map"
  expect 1 "ragged.map: line 6: map row 1 has 2 characters, expected 3" \
    "$navbake" import "$work/ragged.map" -o "$work/x.vox"
  printf 'type octile\nheigth 2\nwidth 3\nmap\n' >"$work/header.map"
  expect 1 "header.map: line 2: unexpected header line 'heigth 2'" \
    "$navbake" import "$work/header.map" -o "$work/x.vox"
  printf 'o bad\nv 0 0 0\nv 1 nan 0\nv 0 0 1\nf 1 2 3\n' >"$work/nan.obj"
  printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 inf 0\n0 0 1\n3 0 1 2\n' >"$work/inf.ply"
  expect 1 "mesh '.*non-finite" "$navbake" import "$work/inf.ply" -o "$work/x.geo"
  expect 1 "" "$navbake" inspect "$work/missing.vox"
  [ ! -e "$work/x.geo" ] && [ ! -e "$work/x.vox" ] || fail "a failed run left an output"
  ;;
corrupted_artifacts)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/good.geo" || fail "import"
  size=$(stat -c %s "$work/good.geo")
  head -c 100 "$work/good.geo" >"$work/trunc.geo"
  expect 1 "truncated" "$navbake" inspect "$work/trunc.geo"
  printf 'hello world, this is no artifact, just some words to fill sixty-four bytes....\n' >"$work/text.geo"
  expect 1 "bad_magic" "$navbake" inspect "$work/text.geo"
  cp "$work/good.geo" "$work/flip.geo"
  printf '\x77' | dd of="$work/flip.geo" bs=1 seek=$((size - 20)) conv=notrunc status=none
  expect 1 "checksum mismatch" "$navbake" inspect "$work/flip.geo"
  cp "$work/good.geo" "$work/newer.geo"
  printf '\x09' | dd of="$work/newer.geo" bs=1 seek=8 conv=notrunc status=none
  expect 1 "newer than this reader supports" "$navbake" inspect "$work/newer.geo"
  cp "$work/good.geo" "$work/trail.geo"
  printf 'x' >>"$work/trail.geo"
  expect 1 "trailing_data" "$navbake" inspect "$work/trail.geo"
  ;;
wrong_kind)
  need_shared
  "$navbake" -q import "$shared/movingai/den312d.map" -o "$work/den.vox" || fail "import map"
  expect 1 "navbake 'VOXL' artifact, not level geometry" "$navbake" import "$work/den.vox" -o "$work/x.geo"
  ;;
tags_file)
  cat >"$work/tags.json" <<'JSON'
{ "areas": [{"name": "lava", "cost": 20}],
  "rules": [{"match": "floor_upper", "on": "object", "tag": "lava"},
            {"match": "ramp", "on": "object", "tag": "ignore"}] }
JSON
  "$navbake" import "$levels/indoor_two_floors.glb" -o "$work/t.geo" --tags "$work/tags.json" \
    2>"$work/log" || fail "import with tags: $(cat "$work/log")"
  grep -q "lava" "$work/log" || fail "no lava triangles reported: $(cat "$work/log")"
  grep -Eq "[1-9][0-9]* ignored by tag rules" "$work/log" || fail "ramp not ignored: $(cat "$work/log")"
  printf '{"rules": [{"match": "x", "tag": "lava"}]}' >"$work/bad.json"
  expect 1 "bad.json: \\$.rules\\[0\\].tag: unknown tag 'lava'" \
    "$navbake" import "$levels/indoor_two_floors.glb" -o "$work/t2.geo" --tags "$work/bad.json"
  ;;
scene_links)
  # Links drawn in the level: a ladder box against a 3 m block joins the floor to the block's top.
  box() {  # box NAME X0 Y0 Z0 X1 Y1 Z1: an OBJ box, relative indices, faces outward
    echo "o $1"
    for k in 0 1 2 3 4 5 6 7; do
      echo "v $( ((k & 1)) && echo "$5" || echo "$2") $( ((k & 2)) && echo "$6" || echo "$3") $( ((k & 4)) && echo "$7" || echo "$4")"
    done
    printf 'f -8 -7 -3\nf -8 -3 -4\nf -6 -2 -1\nf -6 -1 -5\nf -8 -6 -5\nf -8 -5 -7\n'
    printf 'f -4 -3 -1\nf -4 -1 -2\nf -8 -4 -2\nf -8 -2 -6\nf -7 -5 -1\nf -7 -1 -3\n'
  }
  {
    printf 'o floor\nv 0 0 0\nv 12 0 0\nv 12 0 10\nv 0 0 10\nf -4 -2 -3\nf -4 -1 -2\n'
    box platform 12 0 0 20 3 10
    box ladder_west 11.8 0 4.5 12 3 5.5
  } >"$work/level.obj"
  "$navbake" import "$work/level.obj" -o "$work/level.geo" 2>"$work/import.log" || fail "import: $(cat "$work/import.log")"
  grep -q "links from scene objects: 1 (1 ladder)" "$work/import.log" || fail "no link count: $(cat "$work/import.log")"
  grep -q "12 ignored by tag rules" "$work/import.log" || fail "ladder triangles not dropped: $(cat "$work/import.log")"
  "$navbake" inspect "$work/level.geo" >"$work/geo.txt" || fail "inspect geo"
  grep -q "layout v2" "$work/geo.txt" || fail "a .geo with links is not layout v2"
  grep -q "SLNK" "$work/geo.txt" || fail "no SLNK section"
  "$navbake" -q voxelize "$work/level.geo" -o "$work/level.vox" || fail "voxelize"
  grep -q '"ladder": 1' <<<"$("$navbake" inspect "$work/level.vox" --json)" || fail "the .vox does not carry the ladder"
  "$navbake" graph tile "$work/level.vox" -o "$work/level.graph" 2>"$work/graph.log" || fail "graph: $(cat "$work/graph.log")"
  grep -q "links: 1 (1 ladder); components 2 before links, 1 with them" "$work/graph.log" ||
    fail "no link summary: $(cat "$work/graph.log")"
  "$navbake" -q pack "$work/level.graph" -o "$work/level.nav" || fail "pack"
  grep -q "pair 1: found" <<<"$("$navbake" query "$work/level.nav" --from 2,0,5 --to 16,3,5)" || fail "no path up the ladder"
  # The build carries the links the same way (its grids also store the level's name, which the
  # CLI's voxelize has not: compare the graph sections).
  echo '{"input": "level.obj", "output": "out", "agents": [{"graphs": ["tile"]}]}' >"$work/level.json"
  "$navbake" -q build "$work/level.json" || fail "build"
  sections() {  # "ID CHECKSUM" per section but NAME
    "$navbake" inspect "$1" --json | tr -d ' \n' | grep -oE '"id":"[A-Z0-9]{4}"|"checksum":"[0-9a-f]{16}"' |
      paste -d' ' - - | grep -v '"NAME"'
  }
  sections "$work/level.nav" >"$work/cli.txt"
  sections "$work/out/default.tile.nav" >"$work/build.txt"
  grep -q '"LINK"' "$work/cli.txt" || fail "no LINK section in the asset: $(cat "$work/cli.txt")"
  cmp "$work/cli.txt" "$work/build.txt" || fail "scene links: CLI and build graph sections differ"
  # A link_ object must be a line.
  { cat "$work/level.obj"; box link_jump_3 1 0 1 2 1 2; } >"$work/bad.obj"
  expect 1 "bad.obj: object 'link_jump_3' has no line: draw the link as a line" \
    "$navbake" import "$work/bad.obj" -o "$work/bad.geo"
  ;;
atomic_output)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/out.geo" || fail "import"
  cp "$work/out.geo" "$work/before.geo"
  printf '# empty\n' >"$work/empty.obj"
  expect 1 "" "$navbake" import "$work/empty.obj" -o "$work/out.geo"
  cmp "$work/out.geo" "$work/before.geo" || fail "failed run changed the previous output"
  expect 1 "cannot create temporary file" "$navbake" import "$levels/terrain.obj" -o "$work/nodir/x.geo"
  leftovers=$(find "$work" -name '*.tmp-*' | wc -l)
  [ "$leftovers" -eq 0 ] || fail "temporary files left behind"
  ;;
levelgen_reproducible)
  "$levelgen" "$work/levels" >/dev/null || fail "levelgen failed"
  for f in indoor_two_floors.glb terrain.obj terrain.mtl links_course.obj links_course.mtl designer_yard.obj maze3d.3dmap maze3d.3dscen; do
    cmp "$work/levels/$f" "$levels/$f" || fail "sample_levels/$f differs from what levelgen writes (run 'make levels')"
  done
  # --help prints the usage; an unknown option is a usage error, never a folder of that name.
  expect 0 "usage: levelgen OUTDIR" "$levelgen" --help
  expect 2 "unknown option or wrong arguments: --bogus" "$levelgen" --bogus
  { [ -e ./--help ] || [ -e ./--bogus ]; } && fail "levelgen wrote into a folder named after an option"
  ;;
scen_movingai)
  need_shared
  for m in den312d room-64-64-8; do
    "$navbake" -q import "$shared/movingai/$m.map" -o "$work/$m.vox" || fail "import $m"
    expect 0 "tile graph: [0-9]+ nodes" "$navbake" graph tile "$work/$m.vox" -o "$work/$m.graph"
    expect 0 "packed" "$navbake" pack "$work/$m.graph" -o "$work/$m.nav"
    expect 0 "1000 scenarios, 1000 solved, 1000 optimal" \
      "$navbake" scen "$work/$m.nav" "$shared/movingai/$m.map.scen"
    "$navbake" scen "$work/$m.nav" "$shared/movingai/$m.map.scen" --json >"$work/$m.json" || fail "scen json"
    [ "$(json_field "$work/$m.json" optimal)" = 1000 ] || fail "json optimal count"
  done
  "$navbake" inspect "$work/den312d.nav" --json >"$work/nav.json" || fail "inspect nav"
  grep -q '"graph_type": "tile"' "$work/nav.json" || fail "inspect graph type"
  grep -q '"components": 1' "$work/nav.json" || fail "inspect components"
  # The wrong scenario file for this asset, and a malformed one.
  expect 1 "line 2: scenario is for map 'room-64-64-8.map', but the asset was built from 'den312d.map'" \
    "$navbake" scen "$work/den312d.nav" "$shared/movingai/room-64-64-8.map.scen"
  printf 'version 1\n0\tden312d.map\t65\t81\t1\t1\n' >"$work/bad.scen"
  expect 1 "bad.scen: line 2: expected 9 fields" "$navbake" scen "$work/den312d.nav" "$work/bad.scen"
  # Packing twice gives identical bytes; a .vox is not a graph.
  "$navbake" -q pack "$work/den312d.graph" -o "$work/again.nav" || fail "pack again"
  cmp "$work/den312d.nav" "$work/again.nav" || fail "pack not deterministic"
  expect 1 "kind 'VOXL', expected 'GRPH'" "$navbake" pack "$work/den312d.vox" -o "$work/x.nav"
  expect 1 "kind 'GRPH', expected 'VOXL'" "$navbake" graph tile "$work/den312d.graph" -o "$work/x.graph"
  ;;
query_cli)
  printf 'type octile\nheight 3\nwidth 5\nmap\n.....\n.@@@.\n.....\n' >"$work/q.map"
  "$navbake" -q import "$work/q.map" -o "$work/q.vox" && "$navbake" -q graph tile "$work/q.vox" -o "$work/q.graph" &&
    "$navbake" -q pack "$work/q.graph" -o "$work/q.nav" || fail "bake"
  expect 0 "pair 1: found  cost 4.0000" "$navbake" query "$work/q.nav" --from 0.5,0,0.5 --to 4.5,0,0.5
  expect 0 "pair 1: start_off_graph" "$navbake" query "$work/q.nav" --from 2.5,0,1.5 --to 4.5,0,0.5 --snap 0
  # By default a point in the wall snaps to the nearest floor cell (1 m away, centre to centre), and
  # the result says so; far points stay off.
  expect 0 "start moved 1.00 m onto the surface, to \(2.500, 0.000, 0.500\)" "$navbake" query "$work/q.nav" --from 2.5,0,1.5 --to 4.5,0,0.5
  grep -q '"start_snapped"' <<<"$("$navbake" query "$work/q.nav" --from 2.5,0,1.5 --to 4.5,0,0.5 --json)" || fail "no start_snapped in JSON"
  expect 0 "pair 1: goal_off_graph" "$navbake" query "$work/q.nav" --from 0.5,0,0.5 --to 40,0,0.5
  "$navbake" query "$work/q.nav" --from 0.5,0,1.5 --to 4.5,0,1.5 --json >"$work/q.json" || fail "json query"
  grep -q '"status": "found"' "$work/q.json" || fail "json status"
  grep -q '"smoothed_path"' "$work/q.json" || fail "json path"
  printf '# pairs\n0.5 0 0.5 4.5 0 2.5\n\n4.5,0,2.5,0.5,0,0.5\n' >"$work/pairs.txt"
  expect 0 "total 2  found 2" "$navbake" query "$work/q.nav" --pairs "$work/pairs.txt"
  printf '0.5 0 0.5 4.5 0\n' >"$work/badpairs.txt"
  expect 1 "badpairs.txt: line 1: expected six numbers" "$navbake" query "$work/q.nav" --pairs "$work/badpairs.txt"
  expect 2 "" "$navbake" query "$work/q.nav" --from 1,2 --to 1,2,3
  expect 2 "" "$navbake" query "$work/q.nav"
  expect 1 "" "$navbake" query "$work/q.vox" --from 0.5,0,0.5 --to 4.5,0,0.5
  ;;
volume_3d)
  "$navbake" -q import "$levels/maze3d.3dmap" -o "$work/maze.vox" || fail "import"
  expect 0 "volume graph: 41 x 25 x 41 voxels, 25530 free" "$navbake" graph volume "$work/maze.vox" -o "$work/maze.graph"
  "$navbake" -q pack "$work/maze.graph" -o "$work/maze.nav" || fail "pack"
  expect 0 "100 scenarios, 100 solved, 100 optimal" "$navbake" scen "$work/maze.nav" "$levels/maze3d.3dscen"
  "$navbake" inspect "$work/maze.nav" --json >"$work/maze.json" || fail "inspect"
  grep -q '"graph_type": "volume"' "$work/maze.json" || fail "graph type"
  [ "$(json_field "$work/maze.json" components)" = 2 ] || fail "components"
  # A thicker agent has less room.
  "$navbake" graph volume "$work/maze.vox" -o "$work/fat.graph" --agent-radius 1 2>"$work/fat.log" || fail "radius"
  grep -Eq "free for the agent" "$work/fat.log" || fail "radius log"
  # 3D scenarios of another map, and on a tile asset.
  printf 'version 1\nother.3dmap\n1 1 1 2 2 2 1.7 1\n' >"$work/other.3dscen"
  expect 1 "line 2: scenarios are for map 'other.3dmap'" "$navbake" scen "$work/maze.nav" "$work/other.3dscen"
  printf 'version 1\nmaze3d.3dmap\n1 1 1 2 2\n' >"$work/bad.3dscen"
  expect 1 "bad.3dscen: line 3" "$navbake" scen "$work/maze.nav" "$work/bad.3dscen"
  ;;
mesh_pipeline)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/indoor.geo" || fail "import"
  expect 0 "walkable" "$navbake" voxelize "$work/indoor.geo" -o "$work/indoor.vox"
  "$navbake" -q voxelize "$work/indoor.geo" -o "$work/indoor1.vox" --threads 1 || fail "voxelize 1 thread"
  "$navbake" -q voxelize "$work/indoor.geo" -o "$work/indoor2.vox" --threads 2 || fail "voxelize 2 threads"
  cmp "$work/indoor1.vox" "$work/indoor2.vox" || fail "voxelize output depends on the thread count"
  cmp "$work/indoor.vox" "$work/indoor2.vox" || fail "voxelize output not deterministic"
  "$navbake" inspect "$work/indoor.vox" --json >"$work/vox.json" || fail "inspect vox"
  layers=$(json_field "$work/vox.json" multi_layer_columns)
  [ "${layers:-0}" -gt 100 ] || fail "expected columns walkable on both floors, got ${layers:-0}"
  "$navbake" -q graph tile "$work/indoor.vox" -o "$work/indoor.graph" || fail "graph"
  "$navbake" -q pack "$work/indoor.graph" -o "$work/indoor.nav" || fail "pack"
  # Lower floor (room A) to the mezzanine at Y = 3, which overhangs room A: up the ramp.
  "$navbake" query "$work/indoor.nav" --from 2,0,2 --to 8,3,15 --json >"$work/q.json" || fail "query"
  grep -q '"status": "found"' "$work/q.json" || fail "no path from the ground floor to the upper floor: $(cat "$work/q.json")"
  # The same column holds the ground floor under the mezzanine: (8, 0, 15) is on the lower floor.
  expect 0 "pair 1: found" "$navbake" query "$work/indoor.nav" --from 8,0,15 --to 8,3,15
  # Too thick a wall of parameters is a usage error; a .vox is not geometry.
  expect 2 "cell size|cell-size" "$navbake" voxelize "$work/indoor.geo" -o "$work/x.vox" --cell-size 0
  expect 1 "kind 'VOXL', expected 'GEOM'" "$navbake" voxelize "$work/indoor.vox" -o "$work/x.vox"
  [ ! -e "$work/x.vox" ] || fail "failed voxelize left an output"
  ;;
shared_meshes_pipeline)
  need_shared
  for mesh in "$shared"/meshes/*.obj; do
    name=$(basename "$mesh" .obj)
    "$navbake" -q import "$mesh" -o "$work/$name.geo" || fail "import $name"
    "$navbake" -q voxelize "$work/$name.geo" -o "$work/$name.vox" || fail "voxelize $name"
    "$navbake" -q graph tile "$work/$name.vox" -o "$work/$name.graph" || fail "graph $name"
    "$navbake" inspect "$work/$name.graph" --json >"$work/$name.json" || fail "inspect $name"
    nodes=$(json_field "$work/$name.json" nodes)
    [ "${nodes:-0}" -gt 5000 ] || fail "$name: only ${nodes:-0} walkable nodes"
  done
  ;;
navmesh_pipeline)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/indoor.geo" || fail "import"
  "$navbake" -q voxelize "$work/indoor.geo" -o "$work/indoor.vox" || fail "voxelize"
  expect 0 "navmesh: [0-9]+ polygons" "$navbake" graph navmesh "$work/indoor.vox" -o "$work/indoor.graph"
  "$navbake" inspect "$work/indoor.graph" --json >"$work/nm.json" || fail "inspect"
  for key in polygons vertices regions detail_triangles; do
    v=$(json_field "$work/nm.json" "$key")
    [ "${v:-0}" -gt 0 ] || fail "inspect: $key = ${v:-missing}"
  done
  grep -q '"tiles"' "$work/nm.json" || fail "inspect: tiles missing"
  "$navbake" -q pack "$work/indoor.graph" -o "$work/indoor.nav" || fail "pack"
  expect 0 "pair 1: found" "$navbake" query "$work/indoor.nav" --from 2,0,2 --to 8,3,15
  expect 0 "pair 1: start_off_graph" "$navbake" query "$work/indoor.nav" --from 200,0,2 --to 8,3,15
  # Tiled bake: identical bytes at any thread count, and paths cross tile borders.
  "$navbake" -q graph navmesh "$work/indoor.vox" -o "$work/t1.graph" --tile-size 32 --threads 1 || fail "tiled 1"
  "$navbake" -q graph navmesh "$work/indoor.vox" -o "$work/t2.graph" --tile-size 32 --threads 2 || fail "tiled 2"
  cmp "$work/t1.graph" "$work/t2.graph" || fail "tiled navmesh depends on the thread count"
  "$navbake" -q pack "$work/t2.graph" -o "$work/t.nav" || fail "pack tiled"
  expect 0 "pair 1: found" "$navbake" query "$work/t.nav" --from 2,0,2 --to 27,1,16
  expect 0 "" "$navbake" graph navmesh "$work/indoor.vox" -o "$work/m.graph" --partition monotone
  expect 2 "" "$navbake" graph navmesh "$work/indoor.vox" -o "$work/x.graph" --max-verts-per-poly 9
  [ ! -e "$work/x.graph" ] || fail "a refused bake left an output"
  ;;
navmesh_movingai)
  need_shared
  "$navbake" -q import "$shared/movingai/den312d.map" -o "$work/d.vox" || fail "import"
  "$navbake" -q graph navmesh "$work/d.vox" -o "$work/d.graph" || fail "navmesh"
  "$navbake" -q pack "$work/d.graph" -o "$work/d.nav" || fail "pack"
  expect 0 "1000 scenarios, 1000 solved" "$navbake" scen "$work/d.nav" "$shared/movingai/den312d.map.scen"
  ;;
pov_pipeline)
  need_shared
  "$navbake" -q import "$shared/movingai/den312d.map" -o "$work/d.vox" || fail "import"
  expect 0 "pov graph: 187 corners .* visibility edges before pruning, [0-9]+ taut edges after" \
    "$navbake" graph pov "$work/d.vox" -o "$work/d.graph"
  expect 0 "packed" "$navbake" pack "$work/d.graph" -o "$work/d.nav"
  # Exact any-angle paths: every scenario solved and none longer than the listed octile optimum.
  expect 0 "1000 scenarios, 1000 solved, 1000 no longer than the octile optimum" \
    "$navbake" scen "$work/d.nav" "$shared/movingai/den312d.map.scen"
  "$navbake" scen "$work/d.nav" "$shared/movingai/den312d.map.scen" --json >"$work/s.json" || fail "scen json"
  grep -q '"any_angle": true' "$work/s.json" || fail "scen json: any_angle"
  ratio=$(json_field "$work/s.json" max_length_ratio)
  awk -v r="$ratio" 'BEGIN { exit !(r <= 1.000001) }' || fail "max length ratio $ratio > 1"
  "$navbake" inspect "$work/d.nav" --json >"$work/i.json" || fail "inspect"
  grep -q '"graph_type": "pov"' "$work/i.json" || fail "inspect graph type"
  [ "$(json_field "$work/i.json" corners)" = 187 ] || fail "inspect corners"
  grep -q '"visibility_edges_before_pruning"' "$work/i.json" || fail "inspect: edges before pruning"
  # Same bytes at any thread count.
  "$navbake" -q graph pov "$work/d.vox" -o "$work/d1.graph" --threads 1 || fail "1 thread"
  cmp "$work/d.graph" "$work/d1.graph" || fail "pov graph depends on the thread count"
  # A blocked start is off the graph; a straight query is one segment.
  expect 0 "pair 1: start_off_graph" "$navbake" query "$work/d.nav" --from 0.5,0,0.5 --to 30.5,0,30.5 --snap 0
  ;;
pov_indoor)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/indoor.geo" || fail "import"
  "$navbake" -q voxelize "$work/indoor.geo" -o "$work/indoor.vox" || fail "voxelize"
  expect 0 "pov graph: [1-9][0-9]* corners" "$navbake" graph pov "$work/indoor.vox" -o "$work/indoor.graph"
  "$navbake" -q pack "$work/indoor.graph" -o "$work/indoor.nav" || fail "pack"
  # Ground floor (room A) to the mezzanine at Y = 3, up the ramp.
  "$navbake" query "$work/indoor.nav" --from 2,0,2 --to 8,3,15 --json >"$work/q.json" || fail "query"
  grep -q '"status": "found"' "$work/q.json" || fail "no path to the upper floor: $(cat "$work/q.json")"
  grep -q '"smoothed_path"' "$work/q.json" || fail "json path"
  # The column under the mezzanine: lower floor to upper floor.
  expect 0 "pair 1: found" "$navbake" query "$work/indoor.nav" --from 8,0,15 --to 8,3,15
  expect 0 "pair 1: found  cost 0.0000" "$navbake" query "$work/indoor.nav" --from 2,0,2 --to 2,0,2
  expect 0 "pair 1: start_off_graph" "$navbake" query "$work/indoor.nav" --from 200,0,2 --to 8,3,15
  ;;
cluster_pipeline)
  need_shared
  for m in den312d room-64-64-8; do
    "$navbake" -q import "$shared/movingai/$m.map" -o "$work/$m.vox" || fail "import $m"
    "$navbake" -q graph tile "$work/$m.vox" -o "$work/$m.graph" || fail "graph $m"
  done
  expect 0 "[0-9]+ clusters \(grid\), nodes per cluster min [0-9]+ mean [0-9.]+ max [0-9]+; table" \
    "$navbake" cluster "$work/den312d.graph" -o "$work/den312d.clu" --cluster-size 16
  # Same bytes at any thread count.
  "$navbake" -q cluster "$work/den312d.graph" -o "$work/one.clu" --cluster-size 16 --threads 1 || fail "1 thread"
  cmp "$work/den312d.clu" "$work/one.clu" || fail "clusters depend on the thread count"
  "$navbake" inspect "$work/den312d.clu" --json >"$work/clu.json" || fail "inspect clu"
  grep -q '"kind": "CLUS"' "$work/clu.json" || fail "inspect kind"
  grep -q '"method": "grid"' "$work/clu.json" || fail "inspect method"
  grep -Eq '"landmarks": 8,?$' "$work/clu.json" || fail "inspect: not the default 8 landmarks"
  "$navbake" -q cluster "$work/den312d.graph" -o "$work/plain.clu" --landmarks 0 || fail "no landmarks"
  "$navbake" inspect "$work/plain.clu" --json | grep -Eq '"landmarks": 0,?$' || fail "inspect: landmarks without"
  expect 2 "landmarks = 65 \(must be in 0..64\)" \
    "$navbake" cluster "$work/den312d.graph" -o "$work/x.clu" --landmarks 65
  expect 0 "packed [0-9]+ nodes, [0-9]+ edges, [0-9]+ clusters" \
    "$navbake" pack "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/den312d.nav"
  expect 0 "1000 scenarios, 1000 solved, 1000 optimal" \
    "$navbake" scen "$work/den312d.nav" "$shared/movingai/den312d.map.scen" --method cluster
  "$navbake" scen "$work/den312d.nav" "$shared/movingai/den312d.map.scen" --method cluster --json >"$work/c.json" || fail "scen json"
  "$navbake" scen "$work/den312d.nav" "$shared/movingai/den312d.map.scen" --json >"$work/a.json" || fail "scen json"
  awk -v c="$(json_field "$work/c.json" mean_expansions)" -v a="$(json_field "$work/a.json" mean_expansions)" \
    'BEGIN { exit !(c <= a) }' || fail "cluster expansions exceed octile expansions"
  "$navbake" inspect "$work/den312d.nav" --json >"$work/nav.json" || fail "inspect nav"
  grep -q '"clusters": {' "$work/nav.json" || fail "inspect nav clusters"
  read -r from to < <(awk 'NR == 2 { printf "%s.5,0,%s.5 %s.5,0,%s.5\n", $5, $6, $7, $8 }' "$shared/movingai/den312d.map.scen")
  expect 0 "pair 1: found  cost" "$navbake" query "$work/den312d.nav" --from "$from" --to "$to" --method cluster
  # Regions method, and the errors: a .clu of another graph, too many clusters, no cluster sections.
  expect 0 "clusters \(regions\)" "$navbake" cluster "$work/den312d.graph" -o "$work/r.clu" --method regions --clusters 40
  expect 1 "den312d.clu was built for another graph .* than .*room-64-64-8.graph" \
    "$navbake" pack "$work/room-64-64-8.graph" --clusters "$work/den312d.clu" -o "$work/x.nav"
  [ -e "$work/x.nav" ] && fail "pack wrote an output after the mismatch"
  expect 2 "--clusters 3000 exceeds the graph's [0-9]+ nodes" \
    "$navbake" cluster "$work/den312d.graph" -o "$work/x.clu" --clusters 3000
  expect 2 "invalid cluster parameters: --clusters = 99999999 \(must be in 0..4096\)" \
    "$navbake" cluster "$work/den312d.graph" -o "$work/x.clu" --clusters 99999999
  "$navbake" -q pack "$work/room-64-64-8.graph" -o "$work/room.nav" || fail "pack room"
  expect 1 "room.nav: --method cluster needs cluster sections" \
    "$navbake" scen "$work/room.nav" "$shared/movingai/room-64-64-8.map.scen" --method cluster
  expect 1 "kind 'GRPH', expected 'CLUS'" \
    "$navbake" pack "$work/room-64-64-8.graph" --clusters "$work/room-64-64-8.graph" -o "$work/x.nav"
  ;;
hierarchy_pipeline)
  need_shared
  for m in den312d room-64-64-8; do
    "$navbake" -q import "$shared/movingai/$m.map" -o "$work/$m.vox" || fail "import $m"
    "$navbake" -q graph tile "$work/$m.vox" -o "$work/$m.graph" || fail "graph $m"
    "$navbake" -q cluster "$work/$m.graph" -o "$work/$m.clu" --cluster-size 16 || fail "cluster $m"
  done
  expect 0 "[0-9]+ levels \(groups [0-9]+ > [0-9]+.*\), [0-9]+ abstract edges, [0-9]+ entrances \(sparse\)" \
    "$navbake" hierarchy "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/den312d.hier"
  # Same bytes at any thread count.
  "$navbake" -q hierarchy "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/one.hier" --threads 1 || fail "1 thread"
  cmp "$work/den312d.hier" "$work/one.hier" || fail "hierarchy depends on the thread count"
  "$navbake" -q hierarchy "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/all.hier" --entrances all --cost maximin || fail "all entrances"
  "$navbake" inspect "$work/all.hier" --json >"$work/hier.json" || fail "inspect hier"
  grep -q '"kind": "HIER"' "$work/hier.json" || fail "inspect kind"
  grep -q '"default_cost": "maximin"' "$work/hier.json" || fail "inspect cost"
  grep -Eq '"entrance_table_entries": [1-9][0-9]*' "$work/hier.json" || fail "inspect: no entrance tables"
  # Without entrance tables: smaller, the same shortest paths (searches instead of lookups).
  "$navbake" -q hierarchy "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/bare.hier" --entrances all --no-entrance-tables || fail "no tables"
  "$navbake" inspect "$work/bare.hier" --json | grep -q '"entrance_table_entries": null' || fail "inspect: tables left in"
  "$navbake" -q pack "$work/den312d.graph" --clusters "$work/den312d.clu" --hierarchy "$work/bare.hier" -o "$work/bare.nav" || fail "pack bare"
  expect 0 "1000 scenarios, 1000 solved, 1000 optimal" \
    "$navbake" scen "$work/bare.nav" "$shared/movingai/den312d.map.scen" --method hier
  expect 2 "entrance-spacing = 5000 \(must be in 0..4096\)" \
    "$navbake" hierarchy "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/x.hier" --entrance-spacing 5000
  expect 0 "packed [0-9]+ nodes, [0-9]+ edges, [0-9]+ clusters, [0-9]+ hierarchy levels" \
    "$navbake" pack "$work/den312d.graph" --clusters "$work/den312d.clu" --hierarchy "$work/den312d.hier" -o "$work/den312d.nav"
  "$navbake" -q pack "$work/den312d.graph" --clusters "$work/den312d.clu" --hierarchy "$work/all.hier" -o "$work/all.nav" || fail "pack all"
  expect 0 "1000 scenarios, 1000 solved, [0-9]+ optimal, suboptimality mean [0-9.]+% max" \
    "$navbake" scen "$work/den312d.nav" "$shared/movingai/den312d.map.scen" --method hier
  expect 0 "1000 scenarios, 1000 solved, [0-9]+ optimal, suboptimality mean [0-9.]+% max" \
    "$navbake" scen "$work/den312d.nav" "$shared/movingai/den312d.map.scen" --method hier --hier-mode groups
  expect 0 "1000 scenarios, 1000 solved, 1000 optimal" \
    "$navbake" scen "$work/all.nav" "$shared/movingai/den312d.map.scen" --method hier --hier-mode entrances
  read -r from to < <(awk 'NR == 1000 { printf "%s.5,0,%s.5 %s.5,0,%s.5\n", $5, $6, $7, $8 }' "$shared/movingai/den312d.map.scen")
  expect 0 "pair 1: found  cost [0-9.]+  nodes [0-9]+  first leg only  plan level [1-9]" \
    "$navbake" query "$work/den312d.nav" --from "$from" --to "$to" --method hier --first-leg
  expect 0 "pair 1: found  cost [0-9.]+  nodes [0-9]+  plan level" \
    "$navbake" query "$work/den312d.nav" --from "$from" --to "$to" --method hier --hier-cost avgmin --no-exclusions
  "$navbake" query "$work/den312d.nav" --from "$from" --to "$to" --method hier --json >"$work/q.json" || fail "query json"
  grep -q '"path": \[' "$work/q.json" || fail "query json path"
  # Errors: a hierarchy of other clusters, --hierarchy without --clusters, no hierarchy sections.
  "$navbake" -q cluster "$work/den312d.graph" -o "$work/other.clu" --cluster-size 8 || fail "cluster 8"
  expect 1 "den312d.hier was built on other clusters .* than .*other.clu" \
    "$navbake" pack "$work/den312d.graph" --clusters "$work/other.clu" --hierarchy "$work/den312d.hier" -o "$work/x.nav"
  [ -e "$work/x.nav" ] && fail "pack wrote an output after the mismatch"
  expect 2 "--hierarchy requires --clusters" \
    "$navbake" pack "$work/den312d.graph" --hierarchy "$work/den312d.hier" -o "$work/x.nav"
  expect 1 "den312d.clu was built for another graph .* than .*room-64-64-8.graph" \
    "$navbake" hierarchy "$work/room-64-64-8.graph" --clusters "$work/den312d.clu" -o "$work/x.hier"
  "$navbake" -q pack "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/plain.nav" || fail "pack plain"
  expect 1 "plain.nav: --method hier needs hierarchy sections" \
    "$navbake" scen "$work/plain.nav" "$shared/movingai/den312d.map.scen" --method hier
  expect 2 "fanout" \
    "$navbake" hierarchy "$work/den312d.graph" --clusters "$work/den312d.clu" -o "$work/x.hier" --fanout 1
  ;;
nexthop_pipeline)
  need_shared
  "$navbake" -q import "$shared/movingai/den312d.map" -o "$work/d.vox" || fail "import"
  "$navbake" -q graph tile "$work/d.vox" -o "$work/d.graph" || fail "graph"
  expect 0 "2445 rows in [0-9.]+ ms \([0-9]+ rows/s on [0-9]+ threads\); 2445 nodes, [0-9]+ runs .* bytes per node; raw n\^2 table .*x smaller" \
    "$navbake" nexthop "$work/d.graph" -o "$work/d.nh"
  "$navbake" -q nexthop "$work/d.graph" -o "$work/one.nh" --threads 1 || fail "1 thread"
  cmp "$work/d.nh" "$work/one.nh" || fail "table depends on the thread count"
  # Shards on separate "machines", merged in any order: the single build's bytes.
  for k in 0 1 2; do "$navbake" -q nexthop "$work/d.graph" -o "$work/part$k.nh" --shard $k/3 || fail "shard $k"; done
  expect 0 "merged 3 shards" "$navbake" nexthop merge "$work/part2.nh" "$work/part0.nh" "$work/part1.nh" -o "$work/merged.nh"
  cmp "$work/d.nh" "$work/merged.nh" || fail "merged shards differ from the single build"
  expect 1 "shard 2/3 is missing" "$navbake" nexthop merge "$work/part0.nh" "$work/part1.nh" -o "$work/x.nh"
  expect 2 "--shard '3/3' is not K/N" "$navbake" nexthop "$work/d.graph" -o "$work/x.nh" --shard 3/3
  # Packed and queried: every scenario optimal.
  expect 0 "packed 2445 nodes, [0-9]+ edges, next-hop table" "$navbake" pack "$work/d.graph" --nexthop "$work/d.nh" -o "$work/d.nav"
  expect 0 "1000 scenarios, 1000 solved, 1000 optimal" "$navbake" scen "$work/d.nav" "$shared/movingai/den312d.map.scen" --method nexthop
  read -r from to < <(awk 'NR == 900 { printf "%s.5,0,%s.5 %s.5,0,%s.5\n", $5, $6, $7, $8 }' "$shared/movingai/den312d.map.scen")
  expect 0 "pair 1: found  cost [0-9.]+  nodes [0-9]+  lookups [0-9]+" \
    "$navbake" query "$work/d.nav" --from "$from" --to "$to" --method nexthop
  "$navbake" inspect "$work/d.nh" --json >"$work/nh.json" || fail "inspect"
  grep -q '"kind": "NHOP"' "$work/nh.json" || fail "inspect kind"
  # A level change: two cells blocked, one opened; update == full rebuild.
  awk 'NR == 40 { sub(/\.\.\./, ".@@") } NR == 60 { sub(/@\./, "..") } { print }' "$shared/movingai/den312d.map" >"$work/e.map"
  cmp -s "$work/e.map" "$shared/movingai/den312d.map" && fail "the edit changed nothing"
  "$navbake" -q import "$work/e.map" -o "$work/e.vox" || fail "import edited"
  "$navbake" -q graph tile "$work/e.vox" -o "$work/e.graph" || fail "graph edited"
  expect 0 "updated: [0-9]+ of [0-9]+ rows recomputed" "$navbake" nexthop update "$work/d.nh" "$work/d.graph" "$work/e.graph" -o "$work/u.nh"
  "$navbake" -q nexthop "$work/e.graph" -o "$work/e.nh" || fail "rebuild"
  cmp "$work/u.nh" "$work/e.nh" || fail "update differs from the full rebuild"
  # The hierarchical table likewise: unchanged clusters copied, the bytes of a rebuild.
  "$navbake" -q cluster "$work/d.graph" -o "$work/d.clu" --cluster-size 8 || fail "cluster"
  "$navbake" -q cluster "$work/e.graph" -o "$work/e.clu" --cluster-size 8 || fail "cluster edited"
  "$navbake" -q nexthop "$work/d.graph" --clusters "$work/d.clu" -o "$work/d.nhh" || fail "nhh"
  expect 0 "updated: the clusters of [0-9]+ of 24[0-9][0-9] nodes recomputed" \
    "$navbake" nexthop update "$work/d.nhh" "$work/d.graph" "$work/e.graph" --clusters "$work/e.clu" -o "$work/u.nhh"
  "$navbake" -q nexthop "$work/e.graph" --clusters "$work/e.clu" -o "$work/e.nhh" || fail "nhh rebuild"
  cmp "$work/u.nhh" "$work/e.nhh" || fail "hierarchical update differs from the full rebuild"
  expect 1 "d.nhh was built for another graph than .*e.graph" \
    "$navbake" nexthop update "$work/d.nhh" "$work/e.graph" "$work/e.graph" --clusters "$work/e.clu" -o "$work/x.nhh"
  # Errors: a table of another graph, a budget too small, a shard packed, a corrupted table.
  expect 1 "d.nh was built for another graph .* than .*e.graph" \
    "$navbake" nexthop update "$work/d.nh" "$work/e.graph" "$work/e.graph" -o "$work/x.nh"
  [ -e "$work/x.nh" ] && fail "update wrote an output after the mismatch"
  expect 1 "needs an estimated [0-9.]+ [KM]iB .*above the memory limit 64.0 KiB .*--clusters" \
    "$navbake" nexthop "$work/d.graph" -o "$work/x.nh" --max-memory 64K
  expect 2 "--max-memory 'lots' is not a size" "$navbake" nexthop "$work/d.graph" -o "$work/x.nh" --max-memory lots
  expect 1 "part0.nh is shard 0/3 of a table; join the shards" \
    "$navbake" pack "$work/d.graph" --nexthop "$work/part0.nh" -o "$work/x.nav"
  cp "$work/d.nh" "$work/bad.nh"
  printf '\x13\x37' | dd of="$work/bad.nh" bs=1 seek=$(( $(stat -c %s "$work/bad.nh") - 100 )) conv=notrunc 2>/dev/null
  expect 1 "checksum" "$navbake" pack "$work/d.graph" --nexthop "$work/bad.nh" -o "$work/x.nav"
  # The hierarchical table over clusters: far smaller, every scenario solved.
  "$navbake" -q cluster "$work/d.graph" -o "$work/d.clu" || fail "cluster"
  expect 0 "hierarchical table: 2445 nodes, [0-9]+ clusters, [0-9]+ entrances" \
    "$navbake" nexthop "$work/d.graph" --clusters "$work/d.clu" -o "$work/d.nhh"
  "$navbake" -q pack "$work/d.graph" --nexthop "$work/d.nhh" -o "$work/h.nav" || fail "pack nhh"
  expect 0 "1000 scenarios, 1000 solved, [0-9]+ optimal, suboptimality mean" \
    "$navbake" scen "$work/h.nav" "$shared/movingai/den312d.map.scen" --method nexthop
  ;;
json_logs)
  # --log-format json: every line one JSON object with time, level and message; stage, build,
  # output, warning, progress, usage and error events carry their fields.
  command -v python3 >/dev/null || skip "python3 not found"
  cp "$levels/indoor_two_floors.glb" "$work/level.glb"
  echo '{"input": "level.glb", "output": "out", "agents": [{"name": "human", "graphs": ["tile"], "clusters": true}]}' >"$work/level.json"
  "$navbake" --log-format json build "$work/level.json" 2>"$work/log1.jsonl" || fail "json build"
  "$navbake" --log-format json build "$work/level.json" 2>"$work/log2.jsonl" || fail "json rebuild"
  "$navbake" --log-format json build 2>"$work/usage.jsonl" && fail "a usage error exited 0"
  "$navbake" --log-format json --max-memory lots build "$work/level.json" 2>>"$work/usage.jsonl" && fail "a bad size exited 0"
  "$navbake" --log-format json cluster "$work/nothing.graph" -o "$work/x.clu" --landmarks 65 2>>"$work/usage.jsonl"
  [ $? -eq 2 ] || fail "a bad parameter did not exit 2"
  "$navbake" --log-format json build "$work/missing.json" 2>"$work/error.jsonl" && fail "a missing config exited 0"
  python3 - "$work" <<'PY' || fail "JSON log lines do not follow the schema"
import json, sys
work = sys.argv[1]
def lines(name):
    out = []
    for raw in open(f"{work}/{name}"):
        line = json.loads(raw)
        assert isinstance(line, dict), raw
        assert isinstance(line.get("time"), (int, float)), raw
        assert line.get("level") in ("debug", "info", "warning", "error"), raw
        assert isinstance(line.get("message"), str), raw
        kind = line.get("event")
        if kind == "stage":
            for key in ("stage", "kind", "agent", "status"): assert isinstance(line[key], str), raw
            assert line["status"] in ("built", "up to date", "failed"), raw
            assert isinstance(line["ms"], (int, float)) and line["ms"] >= 0, raw
        elif kind == "warning":
            assert isinstance(line["stage"], str) and isinstance(line["warning"], str), raw
        elif kind == "progress":
            assert isinstance(line["stage"], str), raw
            assert 0 <= line["done"] <= line["total"], raw
        elif kind == "build":
            for key in ("stages", "built", "up_to_date", "warnings"): assert isinstance(line[key], int), raw
        elif kind in ("usage", "error"):
            assert line["level"] == "error" and line["exit"] == (2 if kind == "usage" else 1), raw
        elif kind == "output":
            assert line["path"].endswith(".nav"), raw
        out.append(line)
    return out
first, second = lines("log1.jsonl"), lines("log2.jsonl")
stages = [l for l in first if l.get("event") == "stage"]
assert {l["kind"] for l in stages} >= {"import", "voxelize", "graph", "cluster", "pack"}, stages
assert all(l["status"] == "built" for l in stages), stages
assert all(l["agent"] == "human" for l in stages if l["kind"] != "import"), stages
assert [l for l in first if l.get("event") == "build"][0]["built"] == len(stages)
assert any(l.get("event") == "output" for l in first)
again = [l for l in second if l.get("event") == "stage"]
assert again and all(l["status"] == "up to date" for l in again), again
usage = lines("usage.jsonl")
assert len(usage) == 3 and all(l.get("event") == "usage" for l in usage), usage
errors = lines("error.jsonl")
assert any(l.get("event") == "error" and "missing.json" in l["message"] for l in errors), errors
PY
  ;;
disk_full)
  # A full disk: a build into a 128 KiB tmpfs (its own mount namespace) that needs more fails
  # with a clear error, exit 1, and leaves the previous outputs and report as they were, with
  # no temporary file behind.
  need_shared
  if unshare -m true 2>/dev/null; then runner="unshare -m"
  elif unshare -rm true 2>/dev/null; then runner="unshare -rm"
  else skip "no mount namespace here (unshare -m / -rm) to mount a small tmpfs"; fi
  mkdir -p "$work/small"
  cp "$shared/movingai/den312d.map" "$work/level.map"
  echo '{"input": "level.map", "output": "small/out", "agents": [{"graphs": ["tile"]}]}' >"$work/full.json"
  cat >"$work/inner.sh" <<INNER
set -u
mount -t tmpfs -o size=128k tmpfs "$work/small" || exit 90
"$navbake" -q build "$work/full.json" || exit 91
cp "$work/small/out/default.tile.nav" "$work/kept.nav"
cp "$work/small/out/full.report.json" "$work/kept.report.json"
cp "$shared/movingai/den520d.map" "$work/level.map"
"$navbake" build "$work/full.json" >"$work/full.log" 2>&1
echo "\$?" >"$work/full.status"
cmp "$work/small/out/default.tile.nav" "$work/kept.nav" || exit 92
cmp "$work/small/out/full.report.json" "$work/kept.report.json" || exit 93
find "$work/small" -name '*.tmp-*' >"$work/leftovers"
INNER
  $runner bash "$work/inner.sh"
  status=$?
  case $status in
    0) ;;
    90) skip "cannot mount a tmpfs in a new mount namespace here" ;;
    91) fail "the first build did not fit in 128 KiB" ;;
    92) fail "the failed build changed the previous asset" ;;
    93) fail "the failed build changed the previous report" ;;
    *) fail "the disk-full run failed ($status)" ;;
  esac
  [ "$(cat "$work/full.status")" = 1 ] || fail "a full disk exited $(cat "$work/full.status"), expected 1: $(cat "$work/full.log")"
  grep -q "No space left on device" "$work/full.log" || fail "the error does not say the disk is full: $(cat "$work/full.log")"
  grep -Eq "error: .*small/out" "$work/full.log" || fail "the error does not name the file: $(cat "$work/full.log")"
  [ -s "$work/leftovers" ] && fail "temporary files left on the full disk: $(cat "$work/leftovers")"
  ;;
build_pipeline)
  cp "$levels/indoor_two_floors.glb" "$work/level.glb"
  cat >"$work/level.json" <<'JSON'
{
  "input": "level.glb",
  "output": "out",
  "agents": [
    {"name": "human", "graphs": ["tile", "navmesh"], "clusters": true, "hierarchy": true},
    {"name": "ogre", "height": 2.8, "radius": 1.2, "climb": 0.6, "graphs": ["navmesh"]},
    {"name": "drone", "height": 0.6, "radius": 0.4, "graphs": ["volume"]}
  ]
}
JSON
  expect 0 "16 stages: 16 built, 0 up to date" "$navbake" build "$work/level.json" --jobs 2
  [ -s "$work/out/level.report.json" ] || fail "no report"
  for f in human.tile.nav human.navmesh.nav ogre.navmesh.nav drone.volume.nav; do
    "$navbake" -q inspect "$work/out/$f" >/dev/null || fail "$f does not inspect"
  done
  grep -q '"walkable_spans"' "$work/out/level.report.json" || fail "report counts"
  grep -q '"peak_rss_bytes"' "$work/out/level.report.json" || fail "report memory"
  grep -q '"sections"' "$work/out/level.report.json" || fail "report section sizes"
  grep -q 'walkable islands' "$work/out/level.report.json" || fail "report island warning"
  # Second run: every stage skipped; --check passes.
  expect 0 "16 stages: 0 built, 16 up to date" "$navbake" build "$work/level.json"
  expect 0 "up to date" "$navbake" build "$work/level.json" --check
  # Same outputs with one job (a second config writing elsewhere).
  sed 's/"output": "out"/"output": "out1"/' "$work/level.json" >"$work/one.json"
  "$navbake" -q build "$work/one.json" --jobs 1 || fail "jobs 1"
  for f in human.tile.nav human.navmesh.nav ogre.navmesh.nav drone.volume.nav; do
    cmp "$work/out/$f" "$work/out1/$f" || fail "$f differs between --jobs 1 and --jobs 2"
  done
  # Change one agent: --check names its stages; the build re-runs only them.
  cp -r "$work/out" "$work/before"
  sed -i 's/"radius": 1.2/"radius": 1.0/' "$work/level.json"
  expect 1 "voxelize ogre \\(inputs or parameters changed\\)" "$navbake" build "$work/level.json" --check
  "$navbake" build "$work/level.json" --check >"$work/check.log" 2>&1
  grep -q "pack navmesh ogre (inputs or parameters changed)" "$work/check.log" || fail "--check does not name the pack stage"
  grep -q "human" "$work/check.log" && fail "--check names stages the change does not affect"
  cmp "$work/out/ogre.navmesh.nav" "$work/before/ogre.navmesh.nav" || fail "--check rewrote an output"
  expect 0 "16 stages: 3 built, 13 up to date" "$navbake" build "$work/level.json"
  cmp -s "$work/out/ogre.navmesh.nav" "$work/before/ogre.navmesh.nav" && fail "the ogre asset did not change"
  cmp "$work/out/human.tile.nav" "$work/before/human.tile.nav" || fail "an unrelated asset changed"
  # Touching an input without changing its bytes re-runs nothing (keys hash contents, not times).
  touch "$work/level.glb"
  expect 0 "16 stages: 0 built, 16 up to date" "$navbake" build "$work/level.json"
  # A changed input re-runs everything downstream of it; --force rebuilds all.
  printf '\n' >>"$work/level.glb" 2>/dev/null
  expect 1 "import level.glb \\(inputs or parameters changed\\)" "$navbake" build "$work/level.json" --check
  "$navbake" -q build "$work/level.json" || fail "rebuild after input change"
  expect 0 "16 stages: 16 built, 0 up to date" "$navbake" build "$work/level.json" --force
  # Ctrl-C in the middle of a stage (the next-hop table takes seconds): exit non-zero, previous
  # outputs and report intact, no temporary files left.
  cat >"$work/slow.json" <<'JSON'
{"input": "level.glb", "output": "slow", "agents": [{"name": "human", "graphs": ["tile"], "nexthop": true}]}
JSON
  "$navbake" -q build "$work/slow.json" || fail "slow build"
  cp -r "$work/slow" "$work/kept"
  "$navbake" build "$work/slow.json" --force --jobs 1 >"$work/int.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do grep -q "built: graph tile human" "$work/int.log" && break; sleep 0.05; done
  sleep 0.3
  kill -INT "$pid" 2>/dev/null
  wait "$pid"
  status=$?
  [ "$status" -ne 0 ] || fail "an interrupted build exited 0: $(cat "$work/int.log")"
  grep -q "cancelled" "$work/int.log" || fail "the interrupted build does not say it was cancelled"
  for f in human.tile.nav slow.report.json; do
    cmp "$work/slow/$f" "$work/kept/$f" || fail "$f changed after the interrupted build"
  done
  find "$work/slow" -name '*.tmp-*' | grep -q . && fail "a temporary file was left behind"
  "$navbake" -q inspect "$work/slow/human.tile.nav" >/dev/null || fail "asset invalid after interruption"
  # Two builds of one output folder at once: the second is refused at once, naming the first's
  # pid; the first finishes with valid outputs, and a later build finds them up to date.
  "$navbake" build "$work/slow.json" --force --jobs 1 >"$work/first.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do grep -q "built: graph tile human" "$work/first.log" && break; sleep 0.05; done
  expect 1 "another navbake build holds the lock .*slow/\.navbake\.lock \(pid $pid\)" "$navbake" build "$work/slow.json"
  wait "$pid" || fail "the first build failed beside a refused second one: $(cat "$work/first.log")"
  "$navbake" -q inspect "$work/slow/human.tile.nav" >/dev/null || fail "asset invalid after two builds at once"
  expect 0 "up to date" "$navbake" build "$work/slow.json"
  # SIGKILL at several points of a long build (each run resumes from what the last one cached),
  # then a rerun: the bytes of an uninterrupted build, and no temporary file left behind.
  sed 's/"output": "slow"/"output": "killed"/' "$work/slow.json" >"$work/killed.json"
  for delay in 0.3 0.6 1.0 1.5 2.2; do
    "$navbake" -q build "$work/killed.json" --jobs 1 >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  "$navbake" -q build "$work/killed.json" || fail "the rerun after SIGKILLs failed"
  cmp "$work/killed/human.tile.nav" "$work/slow/human.tile.nav" ||
    fail "a rerun after SIGKILLs differs from an uninterrupted build"
  leftovers=$(find "$work/killed" -name '*.tmp-*')
  [ -z "$leftovers" ] || fail "temporary files of killed builds left: $leftovers"
  # An orphan for sure (a process that has exited): removed by the next build, which says so.
  sh -c 'exit 0' &
  dead=$!
  wait "$dead"
  touch "$work/killed/.human.tile.nav.tmp-$dead-0" "$work/killed/.cache/.pack-x.nav.tmp-$dead-3"
  expect 0 "removed 2 temporary files of an interrupted build" "$navbake" build "$work/killed.json"
  leftovers=$(find "$work/killed" -name '*.tmp-*')
  [ -z "$leftovers" ] || fail "orphaned temporary files left: $leftovers"
  # A level edit: the flat next-hop table is updated from the last build's table and graph (the
  # report counts the rows it recomputed), byte-identical to a clean build of the edited level.
  awk 'BEGIN { print "type octile"; print "height 64"; print "width 96"; print "map";
    for (y = 0; y < 64; ++y) { row = ""; for (x = 0; x < 96; ++x)
      row = row ((x % 8 == 7 && y % 8 != 3) || (y % 8 == 7 && x % 8 != 2) ? "@" : ".");
      print row } }' >"$work/rooms.map"
  cat >"$work/rooms.json" <<'JSON'
{"input": "rooms.map", "output": "rooms", "agents": [{"name": "walker", "graphs": ["tile"], "nexthop": true}]}
JSON
  "$navbake" -q build "$work/rooms.json" || fail "rooms build"
  grep -q '"rows_recomputed"' "$work/rooms/rooms.report.json" && fail "a first build reports an update"
  # A crate: one open cell blocked (row 11, column 12).
  awk 'NR == 16 { $0 = substr($0, 1, 12) "@" substr($0, 14) } { print }' "$work/rooms.map" >"$work/rooms2.map"
  cmp -s "$work/rooms.map" "$work/rooms2.map" && fail "the edit changed nothing"
  mv "$work/rooms2.map" "$work/rooms.map"
  "$navbake" -q build "$work/rooms.json" || fail "rooms rebuild after the edit"
  grep -Eq '"rows_recomputed": [0-9]+' "$work/rooms/rooms.report.json" ||
    fail "the next-hop table was not updated: $(cat "$work/rooms/rooms.report.json")"
  recomputed=$(grep -Eo '"rows_recomputed": [0-9]+' "$work/rooms/rooms.report.json" | grep -Eo '[0-9]+$')
  total=$(grep -Eo '"rows_total": [0-9]+' "$work/rooms/rooms.report.json" | grep -Eo '[0-9]+$')
  [ "$recomputed" -lt "$total" ] || fail "the update recomputed every row ($recomputed of $total)"
  sed 's/"output": "rooms"/"output": "clean"/' "$work/rooms.json" >"$work/clean.json"
  "$navbake" -q build "$work/clean.json" || fail "clean build of the edited level"
  cmp "$work/rooms/walker.tile.nav" "$work/clean/walker.tile.nav" || fail "updated asset differs from a clean build"
  # The same with the hierarchical table (clusters rebuilt, the table updated from the last one).
  cat >"$work/halls.json" <<'JSON'
{"input": "rooms.map", "output": "halls", "agents": [{"name": "walker", "graphs": ["tile"], "clusters": {"cluster_size": 8}, "nexthop": {"hierarchical": true}}]}
JSON
  "$navbake" -q build "$work/halls.json" || fail "halls build"
  awk 'NR == 30 { $0 = substr($0, 1, 40) "@" substr($0, 42) } { print }' "$work/rooms.map" >"$work/rooms3.map"
  cmp -s "$work/rooms.map" "$work/rooms3.map" && fail "the second edit changed nothing"
  mv "$work/rooms3.map" "$work/rooms.map"
  "$navbake" -q build "$work/halls.json" || fail "halls rebuild after the edit"
  recomputed=$(grep -Eo '"rows_recomputed": [0-9]+' "$work/halls/halls.report.json" | grep -Eo '[0-9]+$')
  total=$(grep -Eo '"rows_total": [0-9]+' "$work/halls/halls.report.json" | grep -Eo '[0-9]+$')
  [ -n "$recomputed" ] || fail "the hierarchical table was not updated: $(cat "$work/halls/halls.report.json")"
  [ "$recomputed" -lt "$total" ] || fail "the hierarchical update recomputed every cluster"
  sed 's/"output": "halls"/"output": "halls_clean"/' "$work/halls.json" >"$work/halls_clean.json"
  "$navbake" -q build "$work/halls_clean.json" || fail "clean hierarchical build"
  cmp "$work/halls/walker.tile.nav" "$work/halls_clean/walker.tile.nav" || fail "hierarchical update differs from a clean build"
  # Debug views next to the report: valid PNG and GLB files, listed in the report.
  cat >"$work/views.json" <<'JSON'
{"input": "level.glb", "output": "views", "debug_views": true, "agents": [{"name": "human", "graphs": ["navmesh"], "clusters": true}]}
JSON
  "$navbake" -q build "$work/views.json" || fail "build with debug views"
  for f in level.geometry human.navmesh; do
    [ "$(head -c 8 "$work/views/views/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f.png is not a PNG"
    [ "$(head -c 4 "$work/views/views/$f.glb")" = glTF ] || fail "$f.glb is not a GLB"
    grep -q "\"views/$f.png\"" "$work/views/views.report.json" || fail "the report does not list $f.png"
  done
  # An agent that fits nowhere: the build succeeds and the report says so.
  echo '{"input": "level.glb", "output": "giant", "agents": [{"name": "giant", "radius": 20}]}' >"$work/giant.json"
  expect 0 "voxelize giant: the agent fits nowhere: no walkable surface" "$navbake" build "$work/giant.json"
  grep -q "fits nowhere" "$work/giant/giant.report.json" || fail "the report lacks the fits-nowhere warning"
  # Config errors: one message with the JSON path each.
  echo '{"input": "level.glb", "voxel": {"cell_size": "big"}}' >"$work/bad.json"
  expect 1 'bad.json: \$.voxel.cell_size: expected a number, got string' "$navbake" build "$work/bad.json"
  echo '{"input": "level.glb", "agents": [{"name": "a", "radiuss": 1}]}' >"$work/bad.json"
  expect 1 '\$.agents\[0\].radiuss: unknown key \(allowed here: name, height, radius' "$navbake" build "$work/bad.json"
  echo '{"input": "nothere.glb"}' >"$work/bad.json"
  expect 1 "\\$.input: file 'nothere.glb' not found" "$navbake" build "$work/bad.json"
  echo '{"input": "level.glb", "agents": [{"height": 0.1}]}' >"$work/bad.json"
  expect 1 'bad.json: invalid voxelize parameters: \$.agents\[0\].height = 0.1 \(must be at least one cell height' "$navbake" build "$work/bad.json"
  echo '{"input": "level.glb", "agents": [{"max_slope": 95}]}' >"$work/bad.json"
  expect 1 '\$.agents\[0\].max_slope = 95 \(must be in 0..90 degrees\)' "$navbake" build "$work/bad.json"
  echo '{"input": "level.glb", "agents": [{"graphs": ["tile"], "hierarchy": true}]}' >"$work/bad.json"
  expect 1 '\$.agents\[0\].hierarchy: needs clusters' "$navbake" build "$work/bad.json"
  ;;
designer_yard)
  # The designers' control walk-through (README): markers from the scene, the numbers the README
  # quotes, the warnings a designer must fix, --strict failing on them, the tables answering.
  build_sample designer_yard yard
  report="$work/out/yard.report.json"
  for count in '"markers_point_of_interest": 4' '"markers_waypoint": 4' '"walkable_in_volumes": 680' \
    '"seed_pruned_cells": 570' '"walkable_masked": 420' '"waypoints": 4'; do
    grep -q "$count" "$report" || fail "no $count in the report"
  done
  grep -q "object 'nav_poi_secret_roof': point of interest 'nav_poi_secret_roof' (secret) at (20.2, 3.2, 5.2) cannot be reached" "$work/build.log" ||
    fail "no warning about the secret on the roof"
  grep -q "graph navmesh ogre: .*'nav_poi_health_1' (health) .* cannot be reached" "$work/build.log" ||
    fail "no warning about the ogre and the shed"
  expect 1 "--strict: the build gave 5 warnings; failing" "$navbake" build "$work/yard.json" --strict
  expect 0 "nearest health: cost 17.29" "$navbake" query "$work/out/human.tile.nav" --from 2,0,2 --nearest health
  expect 0 "found  cost" "$navbake" query "$work/out/human.dirichlet.nav" --from 2,0,2 --to 28,0,11
  # The exact navmesh method (issue 15): never longer than A* + funnel; only for navmesh assets.
  exact=$(json_field <("$navbake" query "$work/out/human.navmesh.nav" --from 2,0,2 --to 28,0,11 --method exact --json) smoothed_length)
  funnel=$(json_field <("$navbake" query "$work/out/human.navmesh.nav" --from 2,0,2 --to 28,0,11 --method astar --json) smoothed_length)
  awk -v e="$exact" -v f="$funnel" 'BEGIN { exit !(e > 0 && e <= f + 1e-4) }' || fail "exact $exact vs funnel $funnel"
  expect 2 "--method exact needs a navigation mesh asset" "$navbake" query "$work/out/human.tile.nav" --from 2,0,2 --to 28,0,11 --method exact
  ;;
links_course)
  # The links sample level: generated drops and jumps per agent, a ladder, a door and a teleport
  # from scene objects, a zipline (a user link type) from the config; paths through them.
  build_sample links_course course
  report="$work/out/course.report.json"
  grep -q '"links_zipline": 1' "$report" || fail "no zipline in the report"
  grep -q '"links_ladder": 1' "$report" || fail "no ladder in the report"
  grep -q '"links_door": 1' "$report" || fail "no door in the report"
  grep -q '"links_teleport": 1' "$report" || fail "no teleport in the report"
  grep -Eq '"links_jump": [1-9]' "$report" || fail "no generated jump"
  grep -Eq '"links_drop": [1-9]' "$report" || fail "no generated drop"
  grep -Eq '"ledge_rejected_gap_too_wide": [1-9]' "$report" || fail "no rejection by reason"
  # The ogre's wider body cannot reach the ladder's top: a warning, not a failure (the human can).
  grep -q "graph navmesh ogre: this agent cannot use course.*ladder_walkway" "$work/build.log" ||
    grep -q "graph navmesh ogre: this agent cannot use links_course.obj: object 'ladder_walkway'" "$work/build.log" ||
    fail "no warning for the ogre's ladder: $(grep warning "$work/build.log")"
  # The drone (a volume graph) keeps the teleport only.
  "$navbake" inspect "$work/out/drone.volume.nav" --json | tr -d ' \n' | grep -q '"by_type":{"teleport":1}' ||
    fail "the drone's graph should hold the teleport only"
  # Paths: out of the room through the door, up the ladder onto the walkway; out of the pit by the
  # teleport; every link step named with its segment of the straight path.
  for kind in tile navmesh pov; do
    "$navbake" query "$work/out/human.$kind.nav" --from 40,0,20 --to 10,3,5.2 --json >"$work/q.json" ||
      fail "$kind: query"
    grep -q '"status": "found"' "$work/q.json" || fail "$kind: no path from the room to the walkway"
    grep -q '"type": "door"' "$work/q.json" || fail "$kind: the path does not take the door"
    grep -q '"type": "ladder"' "$work/q.json" || fail "$kind: the path does not take the ladder"
    grep -q '"segment":' "$work/q.json" || fail "$kind: link steps without segments"
    "$navbake" query "$work/out/human.$kind.nav" --from 19,-2.4,15 --to 5,0,20 >"$work/q.txt" || fail "$kind: pit query"
    grep -q "via teleport" "$work/q.txt" || fail "$kind: no way out of the pit but the teleport: $(cat "$work/q.txt")"
    # Nobody walks up onto the 2 m platform.
    grep -q "no_path" <<<"$("$navbake" query "$work/out/human.$kind.nav" --from 5,0,20 --to 25,2,4)" ||
      fail "$kind: a path up onto the 2 m platform"
  done
  grep -q "via zipline 1" <<<"$("$navbake" query "$work/out/human.tile.nav" --from 13,3,5.2 --to 13,0,22)" ||
    fail "the walkway's zipline is not taken"
  # The exact navmesh method takes links too: door and ladder, the pit's teleport, no climbing.
  "$navbake" query "$work/out/human.navmesh.nav" --method exact --from 40,0,20 --to 10,3,5.2 --json >"$work/q.json" ||
    fail "exact: query"
  grep -q '"type": "door"' "$work/q.json" && grep -q '"type": "ladder"' "$work/q.json" ||
    fail "exact: the path does not take the door and the ladder: $(cat "$work/q.json")"
  grep -q "via teleport" <<<"$("$navbake" query "$work/out/human.navmesh.nav" --method exact --from 19,-2.4,15 --to 5,0,20)" ||
    fail "exact: no way out of the pit"
  grep -q "no_path" <<<"$("$navbake" query "$work/out/human.navmesh.nav" --method exact --from 5,0,20 --to 25,2,4)" ||
    fail "exact: a path up onto the 2 m platform"
  # The method used is printed: astar unless asked.
  grep -q "method astar$" <<<"$("$navbake" query "$work/out/human.navmesh.nav" --from 40,0,20 --to 10,3,5.2)" ||
    fail "the navmesh query did not default to astar"
  grep -q "method exact$" <<<"$("$navbake" query "$work/out/human.navmesh.nav" --method exact --from 40,0,20 --to 10,3,5.2)" ||
    fail "--method exact is not reported"
  # The same graph bytes at any thread count (generation, resolution, POV link vertices).
  "$navbake" -q import "$work/links_course.obj" -o "$work/c.geo" && "$navbake" -q voxelize "$work/c.geo" -o "$work/c.vox" ||
    fail "import/voxelize the course"
  for kind in tile navmesh pov; do
    for t in 1 3; do
      "$navbake" -q graph $kind "$work/c.vox" -o "$work/c.$kind.$t.graph" --threads $t \
        --drop-height 3.2 --jump-distance 2.2 --jump-up-height 1.3 || fail "graph $kind --threads $t"
    done
    cmp "$work/c.$kind.1.graph" "$work/c.$kind.3.graph" || fail "$kind graph with links differs at --threads 1 and 3"
  done
  # The same bytes at any --jobs, and --check passes.
  cp -r "$work/out" "$work/out2"
  "$navbake" -q build "$work/course.json" --jobs 1 --force || fail "rebuild"
  for f in "$work"/out2/*.nav; do cmp "$f" "$work/out/$(basename "$f")" || fail "$(basename "$f") differs at --jobs 1"; done
  "$navbake" -q build "$work/course.json" --check || fail "--check after a build"
  ;;
view_cli)
  "$navbake" -q import "$levels/indoor_two_floors.glb" -o "$work/indoor.geo" || fail "import"
  "$navbake" -q voxelize "$work/indoor.geo" -o "$work/indoor.vox" || fail "voxelize"
  "$navbake" -q graph navmesh "$work/indoor.vox" -o "$work/nm.graph" || fail "navmesh"
  "$navbake" -q pack "$work/nm.graph" -o "$work/nm.nav" || fail "pack"
  expect 0 "--layer" "$navbake" view --help
  # --size is the drawing's longer side; axes, scale bar, caption and legend add margins.
  expect 0 "[0-9]+ polygons, [0-9]+ nodes, [0-9]+ edges, 1 paths \(1 found, [0-9]+ nodes expanded\); [0-9]+ x [0-9]+ px \(drawing 800 x [0-9]+ px; [0-9]+ ticks, 7 legend entries\)" \
    "$navbake" view "$work/nm.nav" -o "$work/nm.png" --path 2,0,2:8,3,15 --size 800
  [ "$(head -c 8 "$work/nm.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "not a PNG"
  expect 0 "; 800 x [0-9]+ px, [0-9]+ bytes" \
    "$navbake" view "$work/nm.nav" -o "$work/bare.png" --path 2,0,2:8,3,15 --size 800 --no-annotations
  expect 0 "\[navmesh, paths\]" "$navbake" view "$work/nm.nav" -o "$work/nm.svg" --layer navmesh --path 2,0,2:8,3,15
  tail -c 7 "$work/nm.svg" | grep -q "</svg>" || fail "SVG not closed"
  grep -q ">X (m)</text>" "$work/nm.svg" || fail "SVG without its X axis title"
  [ "$(grep -c "<polyline " "$work/nm.svg")" = 1 ] || fail "SVG path polyline"
  expect 0 "meshes, [0-9]+ vertices" "$navbake" view "$work/nm.nav" -o "$work/nm.glb" --layer navmesh,graph,paths --path 2,0,2:8,3,15
  [ "$(head -c 4 "$work/nm.glb")" = glTF ] || fail "not a GLB"
  expect 0 "332 triangles" "$navbake" view "$work/indoor.geo" -o "$work/geo.svg"
  expect 0 "[0-9]+ cells" "$navbake" view "$work/indoor.vox" -o "$work/vox.png" --floor -1:1
  # Errors: usage (2) for bad options, 1 for bad input; no output left behind.
  expect 2 "unknown view format '.jpg'" "$navbake" view "$work/nm.nav" -o "$work/x.jpg"
  expect 2 "--layer 'floors' is not a layer" "$navbake" view "$work/nm.nav" -o "$work/x.png" --layer floors
  expect 2 "has no walkable layer \(its layers: graph, navmesh, paths\)" \
    "$navbake" view "$work/nm.nav" -o "$work/x.png" --layer walkable
  expect 2 "paths need a graph or runtime asset" "$navbake" view "$work/indoor.vox" -o "$work/x.png" --path 2,0,2:8,3,15
  expect 2 "--path '2,0,2' is not X,Y,Z:X,Y,Z" "$navbake" view "$work/nm.nav" -o "$work/x.png" --path 2,0,2
  expect 1 "path 1: the start point \(200, 0, 2\) is not on the navigation data" \
    "$navbake" view "$work/nm.nav" -o "$work/x.png" --path 200,0,2:8,3,15
  expect 1 "cannot open" "$navbake" view "$work/missing.nav" -o "$work/x.png"
  [ ! -e "$work/x.png" ] || fail "a failed view left an output"
  ;;
cli_build_parity)
  # The command line and `navbake build` run the same stage definitions: the same case through
  # both gives the same bytes or the same error text (named by option vs JSON path).
  cp "$levels/indoor_two_floors.glb" "$work/level.glb"
  cp "$levels/terrain.obj" "$levels/terrain.mtl" "$work/"
  cp "$levels/maze3d.3dmap" "$work/maze.3dmap"
  # Several inputs merged (both sides), then voxelize, tile graph and pack.
  "$navbake" -q import "$work/level.glb" "$work/terrain.obj" -o "$work/merged.geo" || fail "import of two files"
  "$navbake" -q voxelize "$work/merged.geo" -o "$work/merged.vox" || fail "voxelize merged"
  "$navbake" -q graph tile "$work/merged.vox" -o "$work/merged.graph" || fail "graph merged"
  "$navbake" -q pack "$work/merged.graph" -o "$work/merged.nav" || fail "pack merged"
  echo '{"input": ["level.glb", "terrain.obj"], "output": "merged", "agents": [{"graphs": ["tile"]}]}' >"$work/merged.json"
  "$navbake" -q build "$work/merged.json" || fail "build of two inputs"
  # The build stores the level's name in its grids; the CLI's voxelize has no name to store.
  grep -q '"nodes": '"$(json_field <("$navbake" inspect "$work/merged.nav" --json) nodes)" <<<"$("$navbake" inspect "$work/merged/default.tile.nav" --json)" ||
    fail "CLI and build graphs of the merged inputs differ in node count"
  # A MovingAI .3dmap: accepted by both, the same asset byte for byte.
  "$navbake" -q import "$work/maze.3dmap" -o "$work/maze.vox" || fail "import 3dmap"
  "$navbake" -q graph volume "$work/maze.vox" -o "$work/maze.graph" || fail "graph volume"
  "$navbake" -q pack "$work/maze.graph" -o "$work/maze.nav" || fail "pack maze"
  echo '{"input": "maze.3dmap", "output": "maze", "agents": [{"radius": 0, "graphs": ["volume"]}]}' >"$work/maze.json"
  "$navbake" -q build "$work/maze.json" || fail "build of a .3dmap"
  cmp "$work/maze.nav" "$work/maze/default.volume.nav" || fail ".3dmap: CLI and build assets differ"
  # Hierarchy fanout: the same limit and text on both sides.
  "$navbake" -q import "$work/level.glb" -o "$work/level.geo" || fail "import"
  "$navbake" -q voxelize "$work/level.geo" -o "$work/level.vox" || fail "voxelize"
  "$navbake" -q graph tile "$work/level.vox" -o "$work/level.graph" || fail "graph"
  "$navbake" -q cluster "$work/level.graph" -o "$work/level.clu" --cluster-size 8 || fail "cluster"
  text='invalid hierarchy parameters: [^ ]+ = 65 \(must be in 2..64\)'
  expect 2 "$text" "$navbake" hierarchy "$work/level.graph" --clusters "$work/level.clu" -o "$work/x.hier" --fanout 65
  expect 2 "--fanout = 65" "$navbake" hierarchy "$work/level.graph" --clusters "$work/level.clu" -o "$work/x.hier" --fanout 65
  echo '{"input": "level.glb", "agents": [{"graphs": ["tile"], "clusters": true, "hierarchy": {"fanout": 65}}]}' >"$work/bad.json"
  expect 1 "$text" "$navbake" build "$work/bad.json"
  expect 1 '\$.agents\[0\].hierarchy.fanout = 65' "$navbake" build "$work/bad.json"
  # Bake bounds and seeds: the same graph from the command line and from a config; a bad box and
  # a seed off the surface refused by both with the same text.
  "$navbake" -q voxelize "$work/level.geo" -o "$work/bounded.vox" --bounds 0,-1,0:30,2,20 || fail "voxelize --bounds"
  "$navbake" -q graph tile "$work/bounded.vox" -o "$work/bounded.graph" --seed 6,0,6 || fail "graph --seed"
  "$navbake" -q pack "$work/bounded.graph" -o "$work/bounded.nav" || fail "pack bounded"
  echo '{"input": "level.glb", "output": "bounded", "bounds": [{"min": [0, -1, 0], "max": [30, 2, 20]}], "seeds": [[6, 0, 6]], "agents": [{"graphs": ["tile"]}]}' >"$work/bounded.json"
  "$navbake" build "$work/bounded.json" >"$work/bounded.log" 2>&1 || fail "build with bounds and seeds: $(cat "$work/bounded.log")"
  [ "$(json_field <("$navbake" inspect "$work/bounded.nav" --json) nodes)" = "$(json_field <("$navbake" inspect "$work/bounded/default.tile.nav" --json) nodes)" ] ||
    fail "bounds and seeds: CLI and build graphs differ in node count"
  grep -q '"seed_pruned_cells": 1' "$work/bounded/bounded.report.json" || fail "no pruned count in the report: $(cat "$work/bounded/bounded.report.json")"
  grep -q '"walkable_outside_bounds": 1694' "$work/bounded/bounded.report.json" || fail "no bounds count in the report"
  text='= min \(5, 0, 0\) max \(1, 1, 1\) \(must be finite, min < max on every axis\)'
  expect 2 "--bounds\[0\] $text" "$navbake" voxelize "$work/level.geo" -o "$work/x.vox" --bounds 5,0,0:1,1,1
  echo '{"input": "level.glb", "bounds": [{"min": [5, 0, 0], "max": [1, 1, 1]}]}' >"$work/bad.json"
  expect 1 "\\$.bounds\[0\] $text" "$navbake" build "$work/bad.json"
  text="no seed is on this agent's walkable surface, so nothing would be left: seeds\[0\] \(90, 0, 90\)"
  expect 1 "$text" "$navbake" graph tile "$work/level.vox" -o "$work/x.graph" --seed 90,0,90
  echo '{"input": "level.glb", "output": "badseed", "seeds": [[90, 0, 90]], "agents": [{"graphs": ["tile"]}]}' >"$work/bad.json"
  expect 1 "$text" "$navbake" build "$work/bad.json"
  # Points of interest: the same warning from the command line and a build; --strict fails on it.
  text="point of interest 'chest' \\(pickup\\) at \\(5, 4, 5\\) is not on this agent's walkable surface"
  expect 0 "$text" "$navbake" graph tile "$work/level.vox" -o "$work/x.graph" --poi "flag:objective@6,0,6" --poi "chest:pickup@5,4,5"
  echo '{"input": "level.glb", "output": "poi", "points_of_interest": [{"name": "flag", "kind": "objective", "position": [6, 0, 6]}, {"name": "chest", "kind": "pickup", "position": [5, 4, 5]}], "agents": [{"graphs": ["tile"]}]}' >"$work/poi.json"
  expect 0 "$text" "$navbake" build "$work/poi.json"
  grep -q '"points_off_surface": 1' "$work/poi/poi.report.json" || fail "no point count in the report"
  expect 1 "--strict: the build gave [0-9]+ warnings?; failing" "$navbake" build "$work/poi.json" --strict
  echo '{"input": "level.glb", "output": "poi", "points_of_interest": [{"name": "flag", "position": [6, 0, 6]}, {"name": "flag", "position": [7, 0, 6]}], "agents": [{"graphs": ["tile"]}]}' >"$work/bad.json"
  expect 1 '\$.points_of_interest\[1\].name = flag \(must be unique' "$navbake" build "$work/bad.json"
  # Point-of-interest tables: the same nearest way from the command line and a build.
  "$navbake" -q graph tile "$work/level.vox" -o "$work/pt.graph" --poi-tables --poi "hp:health@2,0,2" --poi "key:key@8,3,15" || fail "graph --poi-tables"
  "$navbake" -q pack "$work/pt.graph" -o "$work/pt.nav" || fail "pack with tables"
  echo '{"input": "level.glb", "output": "pt", "points_of_interest": [{"name": "hp", "kind": "health", "position": [2, 0, 2]}, {"name": "key", "kind": "key", "position": [8, 3, 15]}], "agents": [{"graphs": ["tile"], "poi_tables": true}]}' >"$work/pt.json"
  "$navbake" -q build "$work/pt.json" || fail "build with poi_tables"
  cli_cost=$(json_field <("$navbake" query "$work/pt.nav" --from 10,0,10 --nearest key --json) cost)
  build_cost=$(json_field <("$navbake" query "$work/pt/default.tile.nav" --from 10,0,10 --nearest key --json) cost)
  [ -n "$cli_cost" ] && [ "$cli_cost" = "$build_cost" ] || fail "nearest key costs differ: $cli_cost vs $build_cost"
  path_cost=$(json_field <("$navbake" query "$work/pt.nav" --from 10,0,10 --to 8,3,15 --json) cost)
  awk -v a="$cli_cost" -v b="$path_cost" 'BEGIN { d = a - b; exit !(d < 1e-4 && d > -1e-4) }' ||
    fail "the table's cost $cli_cost is not the path's $path_cost"
  expect 1 "no points of interest of kind 'ammo' \\(its kinds: health, key\\)" "$navbake" query "$work/pt.nav" --from 10,0,10 --nearest ammo
  expect 1 "has no point-of-interest tables" "$navbake" query "$work/bounded.nav" --from 6,0,6 --nearest key
  # JPS+ jump point tables: pack --jump-points and the agent key give the same table; --method jps
  # finds A*'s cost across the level's floors and ramps (special nodes); misuse is refused.
  "$navbake" -q pack "$work/pt.graph" -o "$work/jp.nav" --jump-points || fail "pack --jump-points"
  "$navbake" inspect "$work/jp.nav" | grep -q "regular_nodes:" || fail "inspect shows no jump points"
  echo '{"input": "level.glb", "output": "jp", "points_of_interest": [{"name": "hp", "kind": "health", "position": [2, 0, 2]}, {"name": "key", "kind": "key", "position": [8, 3, 15]}], "agents": [{"graphs": ["tile"], "poi_tables": true, "jump_points": true}]}' >"$work/jp.json"
  "$navbake" -q build "$work/jp.json" || fail "build with jump_points"
  [ "$("$navbake" inspect "$work/jp.nav" | grep -E "(regular|special)_nodes")" = "$("$navbake" inspect "$work/jp/default.tile.nav" | grep -E "(regular|special)_nodes")" ] ||
    fail "pack --jump-points and the agent key give other tables"
  # With goal bounds too (pack --goal-bounds, the agent key goal_bounds): the same costs.
  "$navbake" -q pack "$work/pt.graph" -o "$work/gb.nav" --jump-points --goal-bounds || fail "pack --goal-bounds"
  "$navbake" inspect "$work/gb.nav" | grep -q "goal_bounds: true" || fail "inspect shows no goal bounds"
  expect 2 "requires --jump-points" "$navbake" pack "$work/pt.graph" -o "$work/gb2.nav" --goal-bounds
  for pair in "10,0,10 8,3,15" "2,0,2 18,0,18" "8,3,15 1,0,18"; do
    set -- $pair
    a=$(json_field <("$navbake" query "$work/jp.nav" --from "$1" --to "$2" --json) cost)
    j=$(json_field <("$navbake" query "$work/jp.nav" --from "$1" --to "$2" --method jps --json) cost)
    [ -n "$a" ] && awk -v a="$a" -v b="$j" 'BEGIN { d = a - b; exit !(d < 1e-4 && d > -1e-4) }' ||
      fail "jps cost $j is not A*'s $a from $1 to $2"
    b=$(json_field <("$navbake" query "$work/gb.nav" --from "$1" --to "$2" --method jps --json) cost)
    awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-4 && d > -1e-4) }' ||
      fail "jps with goal bounds: cost $b is not A*'s $a from $1 to $2"
  done
  echo '{"input": "level.glb", "agents": [{"graphs": ["tile"], "goal_bounds": true}]}' >"$work/bad.json"
  expect 1 '\$.agents\[0\].goal_bounds: needs the jump point table' "$navbake" build "$work/bad.json"
  expect 1 "needs jump point sections.*pack GRAPH --jump-points" "$navbake" query "$work/pt.nav" --from 10,0,10 --to 8,3,15 --method jps
  echo '{"input": "level.glb", "agents": [{"graphs": ["navmesh"], "jump_points": true}]}' >"$work/bad.json"
  expect 1 '\$.agents\[0\].jump_points: jump point tables are for tile graphs' "$navbake" build "$work/bad.json"
  # Per-agent area costs and masks: the same grid from both sides; bad values by option / path.
  "$navbake" -q import "$work/terrain.obj" -o "$work/terrain.geo" || fail "import terrain"
  "$navbake" voxelize "$work/terrain.geo" -o "$work/ogre.vox" --area-mask ground --area-cost water=9 >"$work/ogre.log" 2>&1 || fail "voxelize with areas"
  grep -q "this agent's areas: costs water 9; walks only on ground (797 walkable spans" "$work/ogre.log" || fail "no area summary: $(cat "$work/ogre.log")"
  echo '{"input": "terrain.obj", "output": "ogre", "agents": [{"name": "ogre", "area_mask": ["ground"], "area_costs": {"water": 9}, "graphs": ["tile"]}]}' >"$work/ogre.json"
  "$navbake" -q build "$work/ogre.json" || fail "build with areas"
  grep -q '"walkable_masked": 797' "$work/ogre/ogre.report.json" || fail "no masked count in the report"
  expect 2 "area-costs.water = -1 \(must be > 0\)" "$navbake" voxelize "$work/terrain.geo" -o "$work/x.vox" --area-cost water=-1
  echo '{"input": "terrain.obj", "agents": [{"area_costs": {"water": -1}}]}' >"$work/bad.json"
  expect 1 '\$.agents\[0\].area_costs.water = -1 \(must be > 0\)' "$navbake" build "$work/bad.json"
  echo '{"input": "terrain.obj", "agents": [{"area_mask": ["lava"]}]}' >"$work/bad.json"
  expect 1 "bad.json: \\$.agents\\[0\\].area_mask\\[0\\]: voxelize: 'lava' is not an area of this level \\(its areas: obstacle, ground, water, mud\\)" "$navbake" build "$work/bad.json"
  expect 1 "--area-mask\\[0\\]: voxelize: 'lava' is not an area" "$navbake" voxelize "$work/terrain.geo" -o "$work/x.vox" --area-mask lava
  echo '{"input": "terrain.obj", "volumes": [{"min": [0, 0, 0], "max": [1e999, 1, 1], "forbid": true}]}' >"$work/bad.json"
  expect 1 "bad.json: not valid JSON: .*number overflow" "$navbake" build "$work/bad.json"
  # Modifier volumes: a file on the command line, the config's (per agent) in a build.
  echo '{"volumes": [{"min": [0, -1, 0], "max": [10, 2, 10], "forbid": true}, {"min": [10, -1, 0], "max": [20, 2, 20], "area": "water"}]}' >"$work/volumes.json"
  "$navbake" voxelize "$work/level.geo" -o "$work/vol.vox" --volumes "$work/volumes.json" >"$work/vol.log" 2>&1 || fail "voxelize --volumes: $(cat "$work/vol.log")"
  changed=$(sed -n 's/.*modifier volumes: \([0-9]*\) walkable spans changed.*/\1/p' "$work/vol.log")
  [ -n "$changed" ] && [ "$changed" -gt 0 ] || fail "no volume summary: $(cat "$work/vol.log")"
  echo '{"input": "level.glb", "output": "vol", "volumes": [{"min": [0, -1, 0], "max": [10, 2, 10], "forbid": true, "agents": ["ogre"]}, {"min": [10, -1, 0], "max": [20, 2, 20], "area": "water", "agents": ["ogre"]}], "agents": [{"name": "human", "graphs": ["tile"]}, {"name": "ogre", "graphs": ["tile"]}]}' >"$work/vol.json"
  "$navbake" -q build "$work/vol.json" || fail "build with volumes"
  grep -q "\"walkable_in_volumes\": $changed" "$work/vol/vol.report.json" || fail "the ogre's volume count differs from the command line's ($changed)"
  [ "$(grep -c '"walkable_in_volumes"' "$work/vol/vol.report.json")" = 1 ] || fail "volumes applied to the human too"
  echo '{"input": "level.glb", "volumes": [{"min": [5, 0, 0], "max": [1, 1, 1], "forbid": true}]}' >"$work/bad.json"
  expect 1 '\$.volumes\[0\] = min \(5, 0, 0\) max \(1, 1, 1\) \(must be finite, min < max on every axis\)' "$navbake" build "$work/bad.json"
  echo '{"input": "level.glb", "volumes": [{"min": [0, 0, 0], "max": [1, 1, 1], "forbid": true, "agents": ["troll"]}]}' >"$work/bad.json"
  expect 1 "\\$.volumes\[0\].agents\[0\]: 'troll' is not an agent of this level" "$navbake" build "$work/bad.json"
  # Dirichlet domains: the same graph from the command line and a build (the same path cost);
  # a waypoint deep in a wall fails both with its name.
  "$navbake" -q graph dirichlet "$work/level.vox" -o "$work/dir.graph" --waypoint a@2,0,2 --waypoint b@25,0,15+2 --waypoint up@8,3,15 || fail "graph dirichlet"
  echo '{"input": "level.glb", "output": "dir", "waypoints": [{"name": "a", "position": [2, 0, 2]}, {"name": "b", "position": [25, 0, 15], "weight": 2}, {"name": "up", "position": [8, 3, 15]}], "agents": [{"graphs": ["dirichlet"]}]}' >"$work/dir.json"
  "$navbake" -q build "$work/dir.json" || fail "build with waypoints"
  grep -q '"waypoints": 3' "$work/dir/dir.report.json" || fail "no waypoint count in the report"
  cli_cost=$(json_field <("$navbake" query "$work/dir.graph" --from 25,0,15 --to 8,3,15 --json) cost)
  build_cost=$(json_field <("$navbake" query "$work/dir/default.dirichlet.nav" --from 25,0,15 --to 8,3,15 --json) cost)
  [ -n "$cli_cost" ] && [ "$cli_cost" = "$build_cost" ] || fail "Dirichlet path costs differ: $cli_cost vs $build_cost"
  # As world tiles ($.world.graphs): the same domains cut into tiles and an index, not packed whole.
  sed 's/"output": "dir"/"output": "dirw", "world": {"tile_size": 10, "graphs": ["dirichlet"]}/' "$work/dir.json" >"$work/dirw.json"
  "$navbake" -q build "$work/dirw.json" || fail "Dirichlet world build"
  [ -e "$work/dirw/default.dirichlet.nav" ] && fail "the Dirichlet graph was packed whole beside its world"
  [ "$(ls "$work/dirw"/default.dirichlet.*_*.nav | wc -l)" -ge 4 ] || fail "Dirichlet world tiles: $(ls "$work/dirw")"
  expect 0 "graph: dirichlet" "$navbake" inspect "$work/dirw/default.dirichlet.world"
  expect 0 "graph_type: dirichlet" "$navbake" inspect "$work/dirw/default.dirichlet.1_1.nav"
  cells=$(grep -o '"domain_cells": [0-9]*' "$work/dirw/dirw.report.json" | sort -u)
  [ "$cells" = "$(grep -o '"domain_cells": [0-9]*' "$work/dir/dir.report.json")" ] || fail "Dirichlet world cells: $cells"
  expect 0 "up to date" "$navbake" build "$work/dirw.json" --check
  text="waypoint 'far' at \\(90, 0, 90\\) is not on this agent's walkable surface"
  expect 1 "$text" "$navbake" graph dirichlet "$work/level.vox" -o "$work/x.graph" --waypoint far@90,0,90
  echo '{"input": "level.glb", "output": "dirbad", "waypoints": [{"name": "far", "position": [90, 0, 90]}], "agents": [{"graphs": ["dirichlet"]}]}' >"$work/bad.json"
  expect 1 "\\$.waypoints\\[0\\]: $text" "$navbake" build "$work/bad.json"
  expect 2 "--waypoint 'far@1,2' is not NAME@X,Y,Z" "$navbake" graph dirichlet "$work/level.vox" -o "$work/x.graph" --waypoint far@1,2
  # Bad voxelization values: every bad field at once, the same text on both sides.
  text='invalid voxelize parameters: [^ ]+ = -1 \(must be > 0\); [^ ]+ = 95 \(must be in 0..90 degrees\)'
  expect 2 "$text" "$navbake" voxelize "$work/level.geo" -o "$work/x.vox" --cell-size -1 --max-slope 95
  echo '{"input": "level.glb", "voxel": {"cell_size": -1}, "agents": [{"max_slope": 95}]}' >"$work/bad.json"
  expect 1 "$text" "$navbake" build "$work/bad.json"
  # Next-hop rows per block: one rule.
  expect 2 "block_rows|block-rows = 3 \(must be a power of two up to 4096\)" \
    "$navbake" nexthop "$work/level.graph" -o "$work/x.nh" --block-rows 3
  echo '{"input": "level.glb", "agents": [{"graphs": ["tile"], "nexthop": {"block_rows": 3}}]}' >"$work/bad.json"
  expect 1 "block_rows = 3 \(must be a power of two up to 4096\)" "$navbake" build "$work/bad.json"
  # The memory limit of a hierarchical next-hop table: refused by both (the command line by the
  # stage's budget, the config by the table's own limit).
  text="(nexthop stage|next-hop table) needs an estimated [0-9.]+ [KM]iB .*above the memory limit 1.0 KiB"
  expect 1 "$text" "$navbake" nexthop "$work/level.graph" --clusters "$work/level.clu" -o "$work/x.nhh" --max-memory 1K
  echo '{"input": "level.glb", "agents": [{"graphs": ["tile"], "clusters": {"cluster_size": 8}, "nexthop": {"hierarchical": true, "max_memory": "1K"}}]}' >"$work/bad.json"
  expect 1 "$text" "$navbake" build "$work/bad.json"
  # Navmesh options the command line has are accepted by a config too, and change the key.
  echo '{"input": "level.glb", "output": "nm", "navmesh": {"partition": "monotone", "detail_sample_dist": 0}, "agents": [{"graphs": ["navmesh"]}]}' >"$work/nm.json"
  "$navbake" -q build "$work/nm.json" || fail "build with monotone navmesh"
  "$navbake" -q graph navmesh "$work/level.vox" -o "$work/nm.graph" --partition monotone --detail-sample-dist 0 || fail "navmesh"
  "$navbake" -q pack "$work/nm.graph" -o "$work/nm.nav" || fail "pack navmesh"
  [ "$(json_field <("$navbake" inspect "$work/nm.nav" --json) nodes)" = "$(json_field <("$navbake" inspect "$work/nm/default.navmesh.nav" --json) nodes)" ] ||
    fail "monotone navmesh: CLI and build polygon counts differ"
  sed -i 's/"partition": "monotone"/"partition": "watershed"/' "$work/nm.json"
  expect 1 "graph navmesh default \(inputs or parameters changed\)" "$navbake" build "$work/nm.json" --check
  echo '{"input": "level.glb", "navmesh": {"partition": "mono"}}' >"$work/bad.json"
  expect 1 "\\$.navmesh.partition: 'mono' is not one of: watershed, monotone" "$navbake" build "$work/bad.json"
  expect 2 "'mono' is not one of: watershed, monotone" "$navbake" graph navmesh "$work/level.vox" -o "$work/x.graph" --partition mono
  # Authored links: a file for the command line, a config key for the build; the same asset byte
  # for byte, and the same sentence for an end off the walkable surface.
  printf 'type octile\nheight 3\nwidth 9\nmap\n....@....\n....@....\n....@....\n' >"$work/rooms.map"
  links='[{"from": [3.5, 0, 1.5], "to": [5.5, 0, 1.5], "type": "drop", "id": 10},
          {"from": [3.5, 0, 0.5], "to": [5.5, 0, 0.5], "type": "ladder", "bidirectional": true}]'
  echo "{\"links\": $links}" >"$work/links.json"
  "$navbake" -q import "$work/rooms.map" -o "$work/rooms.vox" || fail "import rooms"
  "$navbake" graph tile "$work/rooms.vox" -o "$work/rooms.graph" --links "$work/links.json" \
    2>"$work/links.log" || fail "graph tile --links"
  grep -q "links: 2 (1 drop, 1 ladder); components 2 before links, 1 with them" "$work/links.log" ||
    fail "graph tile --links: no link summary"
  grep -q "links joining islands: link 2 (ladder) joins the island of 12 nodes and that of 12; link 10 (drop) leads from the island of 12 nodes to that of 12" "$work/links.log" ||
    fail "graph tile --links: no report of the islands links join"
  "$navbake" -q pack "$work/rooms.graph" -o "$work/rooms.nav" || fail "pack rooms"
  echo "{\"input\": \"rooms.map\", \"output\": \"rooms\", \"links\": $links, \"agents\": [{\"graphs\": [\"tile\"]}]}" >"$work/rooms.json"
  "$navbake" -q build "$work/rooms.json" || fail "build with links"
  cmp "$work/rooms.nav" "$work/rooms/default.tile.nav" || fail "links: CLI and build assets differ"
  grep -q "pair 1: found" <<<"$("$navbake" query "$work/rooms.nav" --from 8.5,0,1.5 --to 0.5,0,1.5)" ||
    fail "links: no path back up the ladder"
  # Scenario runs count the paths that take links, by type (the listed optimum ignores links).
  printf 'version 1
0	rooms.map	9	3	1	1	7	1	6
0	rooms.map	9	3	0	0	2	0	2
' >"$work/rooms.scen"
  grep -q "1 of 2 paths take links (1 drop)" <<<"$("$navbake" scen "$work/rooms.nav" "$work/rooms.scen")" ||
    fail "scen: no link count: $("$navbake" scen "$work/rooms.nav" "$work/rooms.scen")"
  # A one-way drop with no way back is a warning.
  echo '{"links": [{"from": [3.5, 0, 1.5], "to": [5.5, 0, 1.5], "type": "drop"}]}' >"$work/oneway.json"
  "$navbake" graph tile "$work/rooms.vox" -o "$work/oneway.graph" --links "$work/oneway.json" 2>"$work/oneway.log" ||
    fail "graph tile one-way link"
  grep -q "warning: one-way links: 12 nodes in 1 place cannot both reach and be reached" "$work/oneway.log" ||
    fail "one-way drop: no warning"
  grep -q "one-way" "$work/links.log" && fail "a ladder back up still warns about one-way links"
  # Links for some agents only: the same filter on both sides; an unknown agent is an error.
  echo '{"links": [{"from": [3.5, 0, 1.5], "to": [5.5, 0, 1.5], "type": "drop", "agents": ["human"]}]}' >"$work/human.json"
  "$navbake" -q graph tile "$work/rooms.vox" -o "$work/ogre.graph" --links "$work/human.json" --agent ogre ||
    fail "graph tile --agent ogre"
  grep -q '"links"' <<<"$("$navbake" inspect "$work/ogre.graph" --json)" && fail "ogre's graph has the human's link"
  "$navbake" -q graph tile "$work/rooms.vox" -o "$work/human.graph" --links "$work/human.json" --agent human ||
    fail "graph tile --agent human"
  "$navbake" -q pack "$work/human.graph" -o "$work/human.nav" || fail "pack human"
  echo '{"input": "rooms.map", "output": "agents", "links": [{"from": [3.5, 0, 1.5], "to": [5.5, 0, 1.5], "type": "drop", "agents": ["human"]}], "agents": [{"name": "human", "graphs": ["tile"]}, {"name": "ogre", "graphs": ["tile"]}]}' >"$work/agents.json"
  "$navbake" -q build "$work/agents.json" || fail "build with per-agent links"
  cmp "$work/human.nav" "$work/agents/human.tile.nav" || fail "per-agent links: CLI and build assets differ"
  grep -q '"links"' <<<"$("$navbake" inspect "$work/agents/ogre.tile.nav" --json)" && fail "build: ogre got the human's link"
  sed -i 's/"agents": \["human"\]/"agents": ["troll"]/' "$work/agents.json"
  expect 1 "\\$.links\\[0\\].agents\\[0\\]: 'troll' is not an agent of this level" "$navbake" build "$work/agents.json"
  echo '{"links": [{"from": [4.5, 0, 1.5], "to": [5.5, 0, 1.5]}]}' >"$work/off.json"
  text='\$.links\[0\]: its start \(4.5, 0, 1.5\) is not on the walkable surface'
  expect 1 "off.json: $text" "$navbake" graph tile "$work/rooms.vox" -o "$work/x.graph" --links "$work/off.json"
  echo '{"input": "rooms.map", "links": [{"from": [4.5, 0, 1.5], "to": [5.5, 0, 1.5]}], "agents": [{"graphs": ["tile"]}]}' >"$work/off_build.json"
  expect 1 "off_build.json: $text" "$navbake" build "$work/off_build.json"
  ;;
manual_clusters)
  # obj_box NAME X0 Y0 Z0 X1 Y1 Z1: a closed box, as objBox in tests/test_support.cpp.
  obj_box() {
    awk -v n="$1" -v x0="$2" -v y0="$3" -v z0="$4" -v x1="$5" -v y1="$6" -v z1="$7" 'BEGIN {
      print "o " n
      for (k = 0; k < 8; k++)
        print "v " (k % 2 ? x1 : x0) " " (int(k / 2) % 2 ? y1 : y0) " " (int(k / 4) ? z1 : z0)
      split("0 1 5 4 2 6 7 3 0 2 3 1 4 5 7 6 0 4 6 2 1 3 7 5", q, " ")
      for (f = 0; f < 6; f++) {
        a = q[4 * f + 1] - 8; b = q[4 * f + 2] - 8; c = q[4 * f + 3] - 8; d = q[4 * f + 4] - 8
        print "f " a " " b " " c; print "f " a " " c " " d
      }
    }'
  }
  # Two rooms split by a wall with a doorway, a corridor along both; the west room drawn in the
  # scene, the east room and the doorway given in a rooms file.
  { obj_box floor 0 -0.2 0 12 0 9; obj_box wall_a 6 0 0 6.5 2.5 2.5; obj_box wall_b 6 0 3.5 6.5 2.5 6
    obj_box nav_cluster_west 0 -1 0 6 2 6; } >"$work/level.obj"
  "$navbake" -q import "$work/level.obj" -o "$work/level.geo" || fail "import"
  "$navbake" -q voxelize "$work/level.geo" -o "$work/level.vox" --cell-size 0.5 --agent-radius 0 || fail "voxelize"
  expect 0 "scene rooms: 1 cluster markers kept for manual clusters \(nav_cluster_west\)" \
    "$navbake" graph tile "$work/level.vox" -o "$work/level.graph"
  echo '{"rooms": [{"name": "east", "min": [6.5, -1, 0], "max": [12, 2, 6], "representative": [9.2, 0, 3.2]}, {"name": "door", "min": [6, -1, 2.5], "max": [6.5, 2, 3.5]}], "group_costs": [{"from": "nav_cluster_west", "to": "door", "cost": 40}, {"from": "nav_cluster_west", "to": "east", "cost": 5}]}' >"$work/rooms.json"
  expect 0 "rooms \(1 from the scene\): 'nav_cluster_west' [0-9]+ nodes in 1 cluster; 'east' [0-9]+ nodes in 1 cluster, representative node [0-9]+ at \(9\.25, 0\.00, 3\.25\); 'door' 2 nodes in 1 cluster" \
    "$navbake" cluster "$work/level.graph" -o "$work/level.clu" --method manual --rooms "$work/rooms.json" --cluster-size 4
  "$navbake" -q cluster "$work/level.graph" -o "$work/one.clu" --method manual --rooms "$work/rooms.json" --cluster-size 4 --threads 1 ||
    fail "cluster --threads 1"
  cmp "$work/level.clu" "$work/one.clu" || fail "manual clusters depend on the thread count"
  grep -q '"method": "manual"' <<<"$("$navbake" inspect "$work/level.clu" --json)" || fail "inspect method"
  expect 0 "manual clusters: 1 representatives from rooms, 1 level-1 abstract edges with a designer's cost \(2 group costs\)" \
    "$navbake" hierarchy "$work/level.graph" --clusters "$work/level.clu" -o "$work/level.hier"
  expect 0 "group cost from room 'nav_cluster_west' to room 'east' \(rooms.json: \\\$.group_costs\[1\]\) not applied" \
    "$navbake" hierarchy "$work/level.graph" --clusters "$work/level.clu" -o "$work/level.hier"
  "$navbake" -q pack "$work/level.graph" --clusters "$work/level.clu" --hierarchy "$work/level.hier" -o "$work/level.nav" || fail "pack"
  expect 0 "pair 1: found" "$navbake" query "$work/level.nav" --from 1,0,1 --to 11,0,1 --method hier
  expect 0 "pair 1: found" "$navbake" query "$work/level.nav" --from 1,0,1 --to 11,0,1 --method cluster
  # Errors: a group cost naming no room (by JSON path), rooms without method manual.
  echo '{"rooms": [{"name": "a", "min": [0, 0, 7], "max": [1, 1, 8]}], "group_costs": [{"from": "a", "to": "armory", "cost": 1}]}' >"$work/bad.json"
  expect 1 "bad.json: \\\$.group_costs\[0\].to: 'armory' is not a room \(rooms: 'nav_cluster_west', 'a'\)" \
    "$navbake" cluster "$work/level.graph" -o "$work/x.clu" --method manual --rooms "$work/bad.json"
  expect 2 "invalid cluster parameters: --rooms = 2 rooms \(must be given with method manual only\)" \
    "$navbake" cluster "$work/level.graph" -o "$work/x.clu" --rooms "$work/rooms.json"
  # The same through a level config.
  echo '{"input": "level.obj", "voxel": {"cell_size": 0.5}, "agents": [{"radius": 0, "graphs": ["tile"], "clusters": {"method": "manual", "cluster_size": 4, "rooms": [{"name": "east", "min": [6.5, -1, 0], "max": [12, 2, 6]}]}, "hierarchy": true}]}' >"$work/level.json"
  "$navbake" -q build "$work/level.json" || fail "build with manual clusters"
  grep -q '"nodes_outside_rooms": [1-9]' "$work/level.navbake/level.report.json" || fail "report: nodes_outside_rooms"
  grep -q '"rooms": 2' "$work/level.navbake/level.report.json" || fail "report: rooms"
  ;;
plan_stages)
  # `navbake plan` and `navbake build --stage`: the stage graph a cluster driver runs, and the
  # Slurm recipe (README, "Bakes on a cluster") done by hand: every stage alone in plan order into
  # its own cache folder, the flat next-hop table as 2 shards and a merge, then `navbake build`
  # only publishes, byte-identical to a plain build.
  need_shared
  for mode in plain staged; do
    mkdir -p "$work/$mode"
    echo "{\"input\": \"$shared/movingai/den312d.map\", \"output\": \"out\", \"agents\": [{\"graphs\": [\"tile\"], \"clusters\": true, \"hierarchy\": true, \"nexthop\": true}]}" >"$work/$mode/level.json"
  done
  expect 0 "nexthop tile default .*\[splits into shards\]" "$navbake" plan "$work/staged/level.json"
  "$navbake" plan "$work/staged/level.json" --json >"$work/plan.json" || fail "plan --json"
  python3 - "$work/plan.json" "$navbake" >"$work/steps.txt" <<'PY' || fail "plan JSON: $(cat "$work/plan.json")"
import json, sys
plan = json.load(open(sys.argv[1]))
stages = plan["stages"]
names = [s["name"] for s in stages]
assert names == ["import den312d.map", "graph tile default", "cluster tile default",
                 "hierarchy tile default", "nexthop tile default", "pack tile default"], names
for s in stages:
    assert s["command"][1:] == ["build", plan["config"], "--stage", s["name"]], s
    assert all(d in names[:names.index(s["name"])] for d in s["depends_on"]), s
    assert not s["cached"] and len(s["key"]) == 16
    assert (s["memory_estimate"] is not None) == (s["kind"] == "import"), s
    assert (s["shards"] is not None) == (s["kind"] == "nexthop"), s
assert plan["outputs"] == ["default.tile.nav"]
assert plan["finish"][1:] == ["build", plan["config"]]
# One line per step (arguments tab-separated): a whole stage, or its shards and the merge.
for s in stages:
    if s["shards"]:
        for k in range(2):
            print("\t".join(c.replace("{k}", str(k)).replace("{n}", "2") for c in s["shards"]["command"][1:]))
        print("\t".join(c.replace("{n}", "2") for c in s["shards"]["merge"][1:]))
    else:
        print("\t".join(s["command"][1:]))
PY
  # Out of order: a stage whose inputs are not there yet.
  expect 1 "stage 'graph tile default' needs the artifact of 'import den312d.map'" \
    "$navbake" build "$work/staged/level.json" --stage "graph tile default" --cache "$work/cache"
  expect 2 "no stage 'bogus' in this level; its stages are:" \
    "$navbake" build "$work/staged/level.json" --stage bogus
  expect 2 "need --stage" "$navbake" build "$work/staged/level.json" --shard 0/2
  expect 2 "does not split into shards" "$navbake" build "$work/staged/level.json" \
    --stage "import den312d.map" --shard 0/2
  while IFS=$'\t' read -r -a step; do
    "$navbake" -q "${step[@]}" --cache "$work/cache" || fail "step failed: ${step[*]}"
  done <"$work/steps.txt"
  ls "$work/cache"/nexthop-default-tile-*.nh.part-1-of-2 >/dev/null || fail "no shard part written"
  [ -e "$work/staged/out/default.tile.nav" ] && fail "--stage published an asset"
  # Estimates once the inputs are there; then the final build publishes without building.
  "$navbake" plan "$work/staged/level.json" --cache "$work/cache" --json >"$work/plan2.json"
  python3 -c "
import json, sys
p = json.load(open('$work/plan2.json'))
assert all(s['cached'] and s['memory_estimate']['bytes'] > 0 for s in p['stages']), p" ||
    fail "second plan: $(cat "$work/plan2.json")"
  mkdir -p "$work/staged/out/.cache"
  cp "$work/cache"/* "$work/staged/out/.cache/"
  "$navbake" build "$work/staged/level.json" >"$work/final.log" 2>&1 || fail "final build: $(cat "$work/final.log")"
  grep -q "6 stages: 0 built, 6 up to date" "$work/final.log" || fail "final build rebuilt: $(cat "$work/final.log")"
  "$navbake" -q build "$work/plain/level.json" || fail "plain build"
  cmp "$work/plain/out/default.tile.nav" "$work/staged/out/default.tile.nav" ||
    fail "the staged build differs from the plain one"
  grep -q '"runs"' "$work/staged/out/level.report.json" || fail "the staged report lost the next-hop counts"
  ;;
world_build)
  # navbake build with $.world: the tile graph as world tiles and an index; an edit inside the
  # level rebuilds only the tiles it touches; inspect shows both kinds.
  cp "$levels/terrain.obj" "$levels/terrain.mtl" "$work/"
  echo '{"input": "terrain.obj", "output": "out", "world": {"tile_size": 20}, "agents": [{"graphs": ["tile", "navmesh"]}]}' >"$work/w.json"
  "$navbake" build "$work/w.json" >"$work/log" 2>&1 || fail "world build: $(cat "$work/log")"
  [ "$(ls "$work/out"/default.tile.*_*.nav | wc -l)" -eq 9 ] || fail "expected 9 tiles: $(ls "$work/out")"
  [ -s "$work/out/default.tile.world" ] || fail "no world index"
  [ -s "$work/out/default.navmesh.nav" ] || fail "the navmesh beside the world is missing"
  grep -q '"tiles_built": 9' "$work/out/w.report.json" || fail "report: $(cat "$work/out/w.report.json")"
  # World builds import into strips (FORMAT.md §4.6); the indexed layout gives the same bytes.
  [ "$(json_field "$work/out/w.report.json" strips)" -ge 2 ] || fail "no strips: $(cat "$work/out/w.report.json")"
  expect 0 "layout: strips" "$navbake" inspect "$work/out/.cache"/import-*.geo
  sed 's/"output": "out"/"output": "indexed", "import": {"strip_size": 0}/' "$work/w.json" >"$work/wi.json"
  "$navbake" build "$work/wi.json" >"$work/log" 2>&1 || fail "indexed world build: $(cat "$work/log")"
  grep -q '"strips"' "$work/indexed/wi.report.json" && fail "strip_size 0 still made strips"
  for f in "$work/out"/default.tile.*; do
    cmp -s "$f" "$work/indexed/$(basename "$f")" || fail "$(basename "$f") differs between strips and the indexed .geo"
  done
  out=$("$navbake" inspect "$work/out/default.tile.world") || fail "inspect the index"
  for pattern in "tiled world index" "tiles: 3 x 3" "portals: [1-9]"; do
    grep -Eq "$pattern" <<<"$out" || fail "inspect index: no /$pattern/ in: $out"
  done
  out=$("$navbake" inspect "$work/out/default.tile.1_1.nav") || fail "inspect a tile"
  for pattern in "world_tile:" "tile: 1 1 of 3 x 3" "seams: [1-9]"; do
    grep -Eq "$pattern" <<<"$out" || fail "inspect tile: no /$pattern/ in: $out"
  done
  cp "$work/out/default.tile.2_2.nav" "$work/far_corner.nav"
  # A crate near one corner (inside the level's bounds, so the world grid stays): only the tiles
  # whose columns or border it covers are rebuilt; the far corner's bytes do not change.
  n=$(grep -c '^v ' "$work/terrain.obj")
  {
    echo "o crate"
    for y in 0 2; do for p in "-25 -25" "-23 -25" "-23 -23" "-25 -23"; do
      set -- $p; echo "v $1 $y $2"; done; done
    for f in "1 2 3 4" "5 8 7 6" "1 5 6 2" "2 6 7 3" "3 7 8 4" "4 8 5 1"; do
      set -- $f; echo "f $((n + $1)) $((n + $2)) $((n + $3)) $((n + $4))"; done
  } >>"$work/terrain.obj"
  "$navbake" build "$work/w.json" >"$work/log" 2>&1 || fail "rebuild: $(cat "$work/log")"
  built=$(json_field "$work/out/w.report.json" tiles_built)
  reused=$(json_field "$work/out/w.report.json" tiles_reused)
  [ "$built" -ge 1 ] && [ "$built" -le 4 ] && [ "$reused" -ge 5 ] ||
    fail "an edit in one corner rebuilt $built tiles and reused $reused"
  cmp -s "$work/far_corner.nav" "$work/out/default.tile.2_2.nav" || fail "the far corner changed"
  # --check covers the index and every tile.
  expect 0 "up to date" "$navbake" build "$work/w.json" --check
  printf 'x' >>"$work/out/default.tile.0_2.nav"
  expect 1 "default.tile.0_2.nav \(missing or modified output\)" "$navbake" build "$work/w.json" --check
  rm "$work/out/default.tile.world"
  expect 1 "default.tile.world \(missing or modified output\)" "$navbake" build "$work/w.json" --check
  # What world tiles do not carry yet is refused with the reason.
  echo '{"input": "terrain.obj", "output": "out2", "world": {"tile_size": 20}, "agents": [{"graphs": ["tile"], "clusters": true}]}' >"$work/bad.json"
  expect 1 "world tiles carry the tile graph, navmesh polygons, volume graphs with their links, Dirichlet domains and points of visibility; .*clusters" "$navbake" build "$work/bad.json"
  echo '{"input": "terrain.obj", "world": {"tile_size": -1}}' >"$work/bad.json"
  expect 1 "world.tile_size = -1 \(must be > 0\)" "$navbake" build "$work/bad.json"
  echo '{"input": "terrain.obj", "world": {"tile_size": 20, "compression": 0}}' >"$work/bad.json"
  expect 1 "world.compression = 0 \(must be in 1..19\)" "$navbake" build "$work/bad.json"
  echo '{"input": "terrain.obj", "import": {"strip_size": -1}, "world": {"tile_size": 20}}' >"$work/bad.json"
  expect 1 "import.strip_size = -1 \(must be > 0 m, or 0 for the indexed layout\)" "$navbake" build "$work/bad.json"
  # A faster zstd level: every tile is rebuilt (its bytes differ), and the tiles still load.
  sed 's/"tile_size": 20}/"tile_size": 20, "compression": 3}/' "$work/w.json" >"$work/w3.json"
  rm -f "$work/out/default.tile.0_2.nav"
  "$navbake" build "$work/w3.json" >"$work/log" 2>&1 || fail "compression 3: $(cat "$work/log")"
  [ "$(json_field "$work/out/w3.report.json" tiles_built)" -eq 9 ] || fail "compression 3 rebuilt $(json_field "$work/out/w3.report.json" tiles_built) tiles"
  cmp -s "$work/far_corner.nav" "$work/out/default.tile.2_2.nav" && fail "compression 3 kept the level-19 bytes"
  expect 0 "seams: [1-9]" "$navbake" inspect "$work/out/default.tile.2_2.nav"
  # Navmesh world tiles ($.world.graphs): 9 navmesh tiles and their index beside the tile graph's
  # world (per-tile reuse: unit.navmesh world: planTiles…).
  sed 's/"tile_size": 20}/"tile_size": 20, "graphs": ["tile", "navmesh"]}/; s/"output": "out"/"output": "mesh"/' "$work/w.json" >"$work/m.json"
  "$navbake" build "$work/m.json" >"$work/log" 2>&1 || fail "navmesh world build: $(cat "$work/log")"
  [ "$(ls "$work/mesh"/default.navmesh.*_*.nav | wc -l)" -eq 9 ] || fail "expected 9 navmesh tiles: $(ls "$work/mesh")"
  [ -e "$work/mesh/default.navmesh.nav" ] && fail "the navmesh was baked whole as well"
  expect 0 "graph: navmesh" "$navbake" inspect "$work/mesh/default.navmesh.world"
  expect 0 "border_edges: [1-9]" "$navbake" inspect "$work/mesh/default.navmesh.1_1.nav"
  [ "$(json_field "$work/mesh/m.report.json" border_edges_joined)" -ge 12 ] || fail "navmesh tiles joined too few border edges: $(cat "$work/mesh/m.report.json")"
  expect 0 "up to date" "$navbake" build "$work/m.json" --check
  expect 2 "world navmesh default.* does not split" "$navbake" build "$work/m.json" --stage "world navmesh default" --shard 0/2
  # POV world tiles: the whole POV graph cut into tiles with their records between tiles.
  echo '{"input": "terrain.obj", "output": "pov", "world": {"tile_size": 20, "graphs": ["pov"]}, "agents": [{"graphs": ["pov"]}]}' >"$work/p.json"
  "$navbake" build "$work/p.json" >"$work/log" 2>&1 || fail "POV world build: $(cat "$work/log")"
  [ "$(ls "$work/pov"/default.pov.*_*.nav | wc -l)" -eq 9 ] || fail "expected 9 POV tiles: $(ls "$work/pov")"
  [ -e "$work/pov/default.pov.nav" ] && fail "the POV graph was packed whole beside its world"
  expect 0 "graph: pov" "$navbake" inspect "$work/pov/default.pov.world"
  expect 0 "WPED" "$navbake" inspect "$work/pov/default.pov.1_1.nav"
  [ "$(json_field "$work/pov/p.report.json" edges_between_tiles)" -ge 1 ] || fail "POV world: $(cat "$work/pov/p.report.json")"
  expect 0 "up to date" "$navbake" build "$work/p.json" --check
  # Seeds and points of interest on world tiles: the terrain's island no seed reaches is pruned,
  # a point in the sky is reported, --strict fails on it.
  echo '{"input": "terrain.obj", "output": "seeded", "world": {"tile_size": 20}, "seeds": [[0, 1, 0]], "points_of_interest": [{"name": "kite", "kind": "pickup", "position": [0, 40, 0]}], "agents": [{"graphs": ["tile"]}]}' >"$work/s.json"
  expect 0 "point of interest 'kite' \(pickup\) at \(0, 40, 0\) is not on this agent's walkable surface" "$navbake" build "$work/s.json"
  [ "$(json_field "$work/seeded/s.report.json" seed_pruned_cells)" -ge 30 ] || fail "seeds pruned nothing: $(cat "$work/seeded/s.report.json")"
  grep -q '"points_off_surface": 1' "$work/seeded/s.report.json" || fail "no point count in the world's report"
  expect 1 "--strict: the build gave [0-9]+ warnings?; failing" "$navbake" build "$work/s.json" --strict
  # Volume world tiles for a flyer, with teleports (one between far tiles, one two-way inside a
  # tile; the door is not for flyers, as on the one volume graph).
  echo '{"input": "terrain.obj", "output": "fly", "world": {"tile_size": 20, "graphs": ["volume"]}, "links": [{"from": [-25, 4.5, -25], "to": [25, 4.5, 25], "type": "teleport"}, {"from": [-5, 4.5, -5], "to": [5, 4.5, 5], "type": "teleport", "bidirectional": true, "cost": 3}, {"from": [-25, 4.5, 25], "to": [25, 4.5, -25], "type": "door"}], "agents": [{"name": "drone", "height": 0.6, "radius": 0.4, "graphs": ["volume"]}]}' >"$work/v.json"
  "$navbake" build "$work/v.json" >"$work/log" 2>&1 || fail "volume world build: $(cat "$work/log")"
  [ "$(json_field "$work/fly/v.report.json" link_lanes)" = 2 ] || fail "volume world links: $(cat "$work/fly/v.report.json")"
  [ "$(json_field "$work/fly/v.report.json" link_lanes_crossing_tiles)" = 1 ] || fail "volume world links between tiles: $(cat "$work/fly/v.report.json")"
  [ "$(ls "$work/fly"/drone.volume.*_*.nav | wc -l)" -eq 9 ] || fail "expected 9 volume tiles: $(ls "$work/fly")"
  expect 0 "graph: volume" "$navbake" inspect "$work/fly/drone.volume.world"
  [ "$(json_field "$work/fly/v.report.json" free_voxels)" -gt 100000 ] || fail "volume world: $(cat "$work/fly/v.report.json")"
  # Its world stage in 2 shards and a merge (as on a cluster): byte-identical tiles and index.
  sed 's/"output": "fly"/"output": "fly2"/' "$work/v.json" >"$work/v2.json"
  "$navbake" -q build "$work/v2.json" --stage "import terrain.obj" >"$work/log" 2>&1 || fail "import: $(cat "$work/log")"
  "$navbake" -q build "$work/v2.json" --stage "voxelize drone" >"$work/log" 2>&1 || fail "voxelize: $(cat "$work/log")"
  for extra in "--shard 0/2" "--shard 1/2"; do
    "$navbake" -q build "$work/v2.json" --stage "world volume drone" $extra >"$work/log" 2>&1 || fail "volume world $extra: $(cat "$work/log")"
  done
  [ "$(ls "$work/fly2/.cache"/worldtile-*.nav | wc -l)" -eq 9 ] || fail "the shards did not build the 9 volume tiles"
  "$navbake" -q build "$work/v2.json" --stage "world volume drone" --merge-shards 2 >"$work/log" 2>&1 || fail "volume world merge: $(cat "$work/log")"
  "$navbake" -q build "$work/v2.json" >"$work/log" 2>&1 || fail "volume world publish: $(cat "$work/log")"
  for f in "$work/fly"/drone.volume.*; do
    cmp -s "$f" "$work/fly2/$(basename "$f")" || fail "sharded volume world differs: $(basename "$f")"
  done
  ;;
world_links)
  # World tiles with links: the authored zipline and links_course's scene links (door, ladder,
  # teleport), then generated drops and jumps. As many lanes as the one tile graph of the same
  # level; links inside a tile are its records (inspect), links between tiles its seams.
  cp "$levels/links_course.obj" "$work/"
  links='"link_types": [{"name": "zipline", "cost_factor": 0.8}], "links": [{"from": [13, 3, 5.2], "to": [13, 0, 22], "type": "zipline", "id": 1, "user_data": 7}]'
  echo "{\"input\": \"links_course.obj\", \"output\": \"world\", \"world\": {\"tile_size\": 10}, $links, \"agents\": [{\"name\": \"human\", \"graphs\": [\"tile\"]}]}" >"$work/w.json"
  echo "{\"input\": \"links_course.obj\", \"output\": \"whole\", $links, \"agents\": [{\"name\": \"human\", \"graphs\": [\"tile\"]}]}" >"$work/one.json"
  "$navbake" build "$work/w.json" >"$work/log" 2>&1 || fail "world build: $(cat "$work/log")"
  "$navbake" build "$work/one.json" >"$work/log1" 2>&1 || fail "whole build: $(cat "$work/log1")"
  grep -q '"links": 4,' "$work/world/w.report.json" || fail "world links: $(cat "$work/world/w.report.json")"
  lanes=$(json_field "$work/whole/one.report.json" link_lanes)
  [ -n "$lanes" ] && [ "$(json_field "$work/world/w.report.json" link_lanes)" = "$lanes" ] ||
    fail "world link lanes differ from the one graph's $lanes"
  crossing=$(json_field "$work/world/w.report.json" link_lanes_crossing_tiles)
  [ "$crossing" -ge 1 ] && [ "$crossing" -lt "$lanes" ] || fail "lanes crossing tiles: $crossing of $lanes"
  records=0
  for tile in "$work/world"/human.tile.*_*.nav; do
    n=$("$navbake" inspect "$tile" | grep -A1 "^links:" | grep -Eo "count: [0-9]+" | grep -Eo "[0-9]+" || true)
    records=$((records + ${n:-0}))
  done
  [ "$records" -ge 1 ] || fail "no tile holds a link record"
  seam_tiles=0
  for tile in "$work/world"/human.tile.*_*.nav; do
    "$navbake" inspect "$tile" | grep -Eq "link_seams: [1-9]" && seam_tiles=$((seam_tiles + 1))
  done
  [ "$seam_tiles" -ge 1 ] || fail "no tile has a seam that is a link (inspect link_seams)"
  expect 0 "up to date" "$navbake" build "$work/w.json" --check
  # A link moved: only the tiles of its ends are rebuilt.
  sed 's/"to": \[13, 0, 22\]/"to": [13, 0, 21]/' "$work/w.json" >"$work/w2.json"
  "$navbake" build "$work/w2.json" >"$work/log" 2>&1 || fail "moved link: $(cat "$work/log")"
  built=$(json_field "$work/world/w2.report.json" tiles_built)
  [ "$built" -ge 1 ] && [ "$built" -le 3 ] || fail "moving one link rebuilt $built tiles"
  # Generated links (drops, jumps) too: as many as the one tile graph generates, the same lanes.
  agent='{"name": "human", "drop_height": 3.2, "jump_distance": 2.2, "jump_up_height": 1.3, "graphs": ["tile"]}'
  echo "{\"input\": \"links_course.obj\", \"output\": \"gen\", \"world\": {\"tile_size\": 10}, $links, \"agents\": [$agent]}" >"$work/gen.json"
  echo "{\"input\": \"links_course.obj\", \"output\": \"gen1\", $links, \"agents\": [$agent]}" >"$work/gen1.json"
  "$navbake" build "$work/gen.json" >"$work/log" 2>&1 || fail "world with generated links: $(cat "$work/log")"
  "$navbake" build "$work/gen1.json" >"$work/log1" 2>&1 || fail "one graph with generated links: $(cat "$work/log1")"
  made=$(json_field "$work/gen1/gen1.report.json" links_generated)
  [ "${made:-0}" -gt 0 ] || fail "the one graph generated no links"
  [ "$(json_field "$work/gen/gen.report.json" links_generated)" = "$made" ] || fail "world generated links differ from $made"
  [ "$(json_field "$work/gen/gen.report.json" link_lanes)" = "$(json_field "$work/gen1/gen1.report.json" link_lanes)" ] ||
    fail "world link lanes with generated links differ from the one graph's"
  # The same world built as a cluster would (each stage alone, the tiles in 2 shards, a merge):
  # byte-identical tiles and index.
  sed 's/"output": "gen"/"output": "gen2"/' "$work/gen.json" >"$work/gen2.json"
  for args in '--stage import links_course.obj' '--stage voxelize human' \
    '--stage world tile human --shard 0/2' '--stage world tile human --shard 1/2' \
    '--stage world tile human --merge-shards 2'; do
    set -- $args
    stage="${*:2}"
    stage="${stage%% --*}"
    extra=""
    case "$args" in *--shard*) extra="--shard ${args##*--shard }" ;; *--merge-shards*) extra="--merge-shards ${args##*--merge-shards }" ;; esac
    "$navbake" -q build "$work/gen2.json" --stage "$stage" $extra >"$work/log" 2>&1 || fail "gen2 $args: $(cat "$work/log")"
  done
  "$navbake" -q build "$work/gen2.json" >"$work/log" 2>&1 || fail "gen2 publish: $(cat "$work/log")"
  for f in "$work/gen"/human.tile.*; do
    cmp -s "$f" "$work/gen2/$(basename "$f")" || fail "sharded world differs: $(basename "$f")"
  done
  # Navmesh world tiles carry the same links (authored, scene, generated): as many lanes as the one
  # tiled navmesh of the same tiles (10 m = 33 cells of 0.3 m); lanes between tiles are records
  # of the tiles they leave (inspect: links_between_tiles).
  magent='{"name": "human", "drop_height": 3.2, "jump_distance": 2.2, "jump_up_height": 1.3, "graphs": ["navmesh"]}'
  echo "{\"input\": \"links_course.obj\", \"output\": \"mesh\", \"world\": {\"tile_size\": 10, \"graphs\": [\"navmesh\"]}, $links, \"agents\": [$magent]}" >"$work/mesh.json"
  echo "{\"input\": \"links_course.obj\", \"output\": \"mesh1\", \"navmesh\": {\"tile_size\": 33}, $links, \"agents\": [$magent]}" >"$work/mesh1.json"
  "$navbake" build "$work/mesh.json" >"$work/log" 2>&1 || fail "navmesh world with links: $(cat "$work/log")"
  "$navbake" build "$work/mesh1.json" >"$work/log1" 2>&1 || fail "one navmesh with links: $(cat "$work/log1")"
  mlanes=$(json_field "$work/mesh1/mesh1.report.json" link_lanes)
  [ "${mlanes:-0}" -gt 0 ] && [ "$(json_field "$work/mesh/mesh.report.json" link_lanes)" = "$mlanes" ] ||
    fail "navmesh world link lanes differ from the one tiled navmesh's ${mlanes:-none}: $(cat "$work/mesh/mesh.report.json")"
  mmade=$(json_field "$work/mesh1/mesh1.report.json" links_generated)
  [ "${mmade:-0}" -gt 0 ] && [ "$(json_field "$work/mesh/mesh.report.json" links_generated)" = "$mmade" ] ||
    fail "navmesh world generated links differ from the one navmesh's ${mmade:-none}"
  between=0
  for tile in "$work/mesh"/human.navmesh.*_*.nav; do
    n=$("$navbake" inspect "$tile" | grep -Eo "links_between_tiles: [0-9]+" | grep -Eo "[0-9]+" || true)
    between=$((between + ${n:-0}))
  done
  [ "$between" -ge 1 ] || fail "no navmesh tile holds a link between tiles (inspect links_between_tiles)"
  expect 0 "up to date" "$navbake" build "$work/mesh.json" --check
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "PASS [$case_name]"
