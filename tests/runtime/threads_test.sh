#!/bin/bash
# navrt_threads (built with ThreadSanitizer) on every graph kind of sample_levels/links_course.
#   threads_test.sh NAVBAKE NAVRT_THREADS SOURCE_DIR WORK_DIR
set -euo pipefail
navbake=$1
threads=$2
src=$3
work=$4
rm -rf "$work"
mkdir -p "$work"
sed -e "s#\"input\": \"links_course.obj\"#\"input\": \"$src/sample_levels/links_course.obj\"#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$work/level\"#" \
    -e 's#"debug_views": true#"debug_views": false#' \
  "$src/sample_levels/links_course.json" > "$work/links_course.json"
"$navbake" build "$work/links_course.json" > "$work/bake.log" 2>&1 || { cat "$work/bake.log"; exit 1; }
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$threads" \
  "$work/level/human.navmesh.nav" astar "$work/level/human.navmesh.nav" exact \
  "$work/level/human.tile.nav" astar "$work/level/human.tile.nav" cluster \
  "$work/level/human.pov.nav" astar "$work/level/drone.volume.nav" astar
rm -rf "$work"
