#!/usr/bin/env bash
# `make run`: bakes the sample levels end to end with the stages that exist and prints a summary.
# Usage: tools/run_sample.sh NAVBAKE OUT_DIR [SHARED_DATA]
set -euo pipefail
navbake=$1
out=$2
shared=${3:-}
mkdir -p "$out"

echo "== navbake: $("$navbake" --version)"
echo
echo "== Indoor level (glTF, two floors, ramp, stairs): import"
"$navbake" import sample_levels/indoor_two_floors.glb -o "$out/indoor_two_floors.geo"
"$navbake" inspect "$out/indoor_two_floors.geo"
echo
echo "== Outdoor terrain (OBJ): import"
"$navbake" import sample_levels/terrain.obj -o "$out/terrain.geo"
"$navbake" inspect "$out/terrain.geo" | sed -n '1,/^stats\|^vertices/p' | head -12
if [ -n "$shared" ] && [ -f "$shared/movingai/den520d.map" ]; then
  echo
  echo "== MovingAI grid (den520d): import to a voxel grid"
  "$navbake" import "$shared/movingai/den520d.map" -o "$out/den520d.vox"
  "$navbake" inspect "$out/den520d.vox"
fi
echo
echo "Artifacts written to $out/:"
ls -l "$out"
