#!/usr/bin/env python3
"""Large generated levels: navbake's whole bake against tiled Recast, process against process.

    bench_large.py BUILD_DIR [--runs N] [--levels city:4,city:8,city:12,tower:40x4,tower:60x6]
                   [--meshes A.obj,B.obj,...]

Generates each level with levelgen (`--city N`: a town of N x N blocks on terrain, 0.36 M
triangles at N = 4, 1.4 M at 8, 3.0 M at 12; `--tower N FLOORS`: a multi-storey maze) into
BUILD_DIR/large/ unless it is there, then runs, N times (default 3) in alternating order:
  - ours: `navbake import`, `navbake voxelize`, `navbake graph navmesh --tile-size 64` as three
    processes (Recast demo defaults, tiled like Recast's side; all cores). Wall = the sum of the three, CPU = their user + system
    time, peak RSS = the largest of the three;
  - Recast: `recast_peer LEVEL.obj` (OBJ load + tiled bake, tile 64, layers partition,
    single-threaded; see recast_peer.cpp).
With --meshes, each OBJ given is also baked whole, ours untiled against `recast_peer --solo` (one
tile, watershed regions: RecastDemo's solo bake), in a second table (`--levels ""` for that one
alone). Prints medians and the ratios ours / Recast as a Markdown table. Peak memory is each process's
ru_maxrss as peak_rss (tests/bench/peak_rss.cpp) sees it: a child forked from Python would carry
the interpreter's ~14 MiB as a floor into its peak. Needs recast_peer (librecast-dev, `make bench`
installs it).
"""
import json
import os
import statistics
import subprocess
import sys
import time


def measure(argv, peak_rss, report):
    """Runs argv under peak_rss; returns (wall s, cpu s, peak RSS KiB, stdout)."""
    start = time.monotonic()
    proc = subprocess.run([peak_rss, report] + argv, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"bench_large: {' '.join(argv)} failed ({proc.returncode})")
    with open(report) as f:
        peak, user, system = f.read().split()
    return wall, float(user) + float(system), int(peak), proc.stdout.decode()


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    build = args[0]
    runs = 3
    levels = "city:4,city:8,city:12,tower:40x4,tower:60x6"
    meshes = []
    i = 1
    while i < len(args):
        if args[i] == "--runs":
            runs = int(args[i + 1])
        elif args[i] == "--levels":
            levels = args[i + 1]
        elif args[i] == "--meshes":
            meshes = [m for m in args[i + 1].split(",") if m]
        else:
            raise SystemExit(f"bench_large: unknown argument {args[i]}")
        i += 2
    navbake = os.path.join(build, "navbake")
    levelgen = os.path.join(build, "levelgen")
    peer = os.path.join(build, "tests", "bench", "recast_peer")
    peak_rss = os.path.join(build, "tests", "bench", "peak_rss")
    if not os.path.exists(peer):
        print("bench_large: recast_peer not built (librecast-dev missing): skipped")
        return 0
    work = os.path.join(build, "large")
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, "peak_rss.txt")
    def bench(obj, base, solo):
        """One level: medians of `runs` alternating runs of ours and Recast's; a table row (with
        the OBJ's face count: its triangles on the generated levels)."""
        triangles = 0
        with open(obj, "rb") as f:
            for line in f:
                triangles += line.startswith(b"f ")
        ours = {"wall": [], "cpu": [], "peak": [], "stages": []}
        recast = {"wall": [], "cpu": [], "peak": []}
        polys = {}
        tiling = [] if solo else ["--tile-size", "64"]
        for run in range(runs):
            def run_ours():
                stages = []
                for argv in ([navbake, "-q", "import", obj, "-o", base + ".geo"],
                             [navbake, "-q", "voxelize", base + ".geo", "-o", base + ".vox"],
                             [navbake, "-q", "graph", "navmesh", base + ".vox", "-o",
                              base + ".graph"] + tiling):
                    stages.append(measure(argv, peak_rss, report)[:3])
                ours["wall"].append(sum(s[0] for s in stages))
                ours["cpu"].append(sum(s[1] for s in stages))
                ours["peak"].append(max(s[2] for s in stages))
                ours["stages"].append(stages)

            def run_recast():
                argv = [peer, obj] + (["--solo"] if solo else [])
                wall, cpu, peak, out = measure(argv, peak_rss, report)
                recast["wall"].append(wall)
                recast["cpu"].append(cpu)
                recast["peak"].append(peak)
                polys["recast"] = json.loads(out)["polygons"]

            for step in ((run_ours, run_recast) if run % 2 == 0 else (run_recast, run_ours)):
                step()
        info = subprocess.run([navbake, "inspect", base + ".graph", "--json"], check=True,
                              capture_output=True, text=True).stdout
        polys["ours"] = json.loads(info)["stats"]["nodes"]
        med = {k: {m: statistics.median(v[m]) for m in ("wall", "cpu", "peak")}
               for k, v in (("ours", ours), ("recast", recast))}
        stage_peaks = [statistics.median(r[k][2] for r in ours["stages"]) for k in range(3)]
        stage_walls = [statistics.median(r[k][0] for r in ours["stages"]) for k in range(3)]
        return (os.path.basename(obj), triangles, med, stage_walls, stage_peaks, polys)

    def table(rows, digits, count_name):
        print(f"| level | {count_name} | wall s Recast / ours (ratio) | CPU s Recast / ours | peak MiB "
              "Recast / ours (ratio) | ours wall s import / voxelize / navmesh | ours peak MiB "
              "import / voxelize / navmesh | polygons Recast / ours |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, tris, med, walls, peaks, polys in rows:
            o, r = med["ours"], med["recast"]
            print(f"| {name} | {tris:,} | {r['wall']:.{digits}f} / {o['wall']:.{digits}f} "
                  f"({o['wall'] / r['wall']:.2f}) | {r['cpu']:.{digits}f} / {o['cpu']:.{digits}f} "
                  f"| {r['peak'] / 1024:.1f} / {o['peak'] / 1024:.1f} ({o['peak'] / r['peak']:.1f}) "
                  f"| {walls[0]:.{digits}f} / {walls[1]:.{digits}f} / {walls[2]:.{digits}f} "
                  f"| {peaks[0] / 1024:.1f} / {peaks[1] / 1024:.1f} / {peaks[2] / 1024:.1f} "
                  f"| {polys.get('recast', 0):,} / {polys.get('ours', 0):,} |")

    rows = []
    for spec in levels.split(",") if levels else []:
        kind, size = spec.split(":")
        if kind == "city":
            obj = os.path.join(work, f"city{size}.obj")
            gen = [levelgen, "--city", size, obj]
        else:
            n, floors = size.split("x")
            obj = os.path.join(work, f"tower{n}x{floors}.obj")
            gen = [levelgen, "--tower", n, floors, obj]
        if not os.path.exists(obj):
            subprocess.run(gen, check=True, stdout=subprocess.DEVNULL)
        rows.append(bench(obj, os.path.join(work, os.path.basename(obj)[:-4]), False))
    if rows:
        print(f"Whole bake, navbake (import + voxelize + graph navmesh --tile-size 64, 3 processes) "
              f"vs tiled Recast (recast_peer: OBJ load + tile 64 layers bake); medians of {runs} "
              f"alternating runs, {os.cpu_count()} hardware threads.\n")
        table(rows, 2, "triangles")
    small = []
    for obj in meshes:
        if not os.path.exists(obj):
            print(f"bench_large: {obj} not found: skipped")
            continue
        small.append(bench(obj, os.path.join(work, "solo_" + os.path.basename(obj)[:-4]), True))
    if small:
        print(f"\nSmall meshes, whole bake, navbake (import + voxelize + graph navmesh, untiled) vs "
              f"solo Recast (recast_peer --solo: OBJ load + one tile, watershed regions); medians "
              f"of {runs} alternating runs.\n")
        table(small, 3, "faces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
