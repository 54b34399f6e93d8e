#!/usr/bin/env bash
# A large flat next-hop table built in shards, as a build farm would (make bench): the map's tile
# graph, then `navbake nexthop --shard K/N` for each K one after another (each shard is what one
# farm machine runs; here each gets this machine's threads), then `nexthop merge`. Prints per
# shard the wall time, peak RSS and rows/s, the merge, the farm's wall time (slowest shard +
# merge) against the one-machine total, the table's size, and checks the merged table by running
# the map's scenarios with --method nexthop (every path optimal).
#   bench_nexthop_shards.sh BUILD_DIR MAP.map [SHARDS]
# Defaults: 4 shards. On AR0011SR (97 k nodes) the whole table takes ~12 minutes on 2 threads.
set -uo pipefail
build=$1
map=$2
shards=${3:-4}
nb=$build/navbake
peak=$build/tests/bench/peak_rss
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
"$nb" -q import "$map" -o "$work/m.vox" || exit 1
"$nb" -q graph tile "$work/m.vox" -o "$work/m.graph" || exit 1
nodes=$("$nb" inspect "$work/m.graph" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["nodes"])' 2>/dev/null || echo "?")
echo "$(basename "$map"): $nodes nodes, $shards shards, $(nproc) threads each"
printf '%-10s %9s %10s %12s\n' part wall_s peak_MiB rows_per_s
total=0
slowest=0
parts=()
for ((k = 0; k < shards; ++k)); do
  start=$(now)
  "$peak" "$work/rss" "$nb" -q nexthop "$work/m.graph" --shard "$k/$shards" -o "$work/part$k.nh" ||
    { echo "shard $k/$shards failed"; exit 1; }
  end=$(now)
  wall=$(echo "$end - $start" | bc)
  total=$(echo "$total + $wall" | bc)
  slowest=$(echo "if ($wall > $slowest) $wall else $slowest" | bc)
  rows=$(awk -v n="$nodes" -v s="$shards" -v k="$k" 'BEGIN{print int((k + 1) * n / s) - int(k * n / s)}')
  printf '%-10s %9.1f %10.1f %12.0f\n' "$k/$shards" "$wall" "$(awk '{print $1 / 1024}' "$work/rss")" \
    "$(echo "$rows / $wall" | bc -l)"
  parts+=("$work/part$k.nh")
done
start=$(now)
"$peak" "$work/rss" "$nb" -q nexthop merge "${parts[@]}" -o "$work/m.nh" || { echo "merge failed"; exit 1; }
end=$(now)
merge=$(echo "$end - $start" | bc)
printf '%-10s %9.1f %10.1f\n' merge "$merge" "$(awk '{print $1 / 1024}' "$work/rss")"
printf 'one machine: %.1f s in all; a farm of %d machines: %.1f s (slowest shard + merge), %.1fx\n' \
  "$(echo "$total + $merge" | bc)" "$shards" "$(echo "$slowest + $merge" | bc)" \
  "$(echo "($total + $merge) / ($slowest + $merge)" | bc -l)"
echo "table: $(stat -c %s "$work/m.nh" | awk '{printf "%.2f MB", $1 / 1e6}')"
"$nb" -q pack "$work/m.graph" --nexthop "$work/m.nh" -o "$work/m.nav" || { echo "pack failed"; exit 1; }
if [ -f "$map.scen" ]; then
  "$nb" scen "$work/m.nav" "$map.scen" --method nexthop 2>&1 | grep -iE "optimal|scenarios" | head -3
fi
