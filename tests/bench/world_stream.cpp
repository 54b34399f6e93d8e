// Streaming a tiled world with navrt::World (issue 17): per tile, load time (addTileFile) and the
// memory it adds (memoryBytes), medians over 5 rounds of loading every tile and removing them
// again; then, with every tile loaded, microseconds per findPath and per planTiles on random
// pairs of walkable points. Prints; asserts nothing.
//
// With WHOLE.nav (the same level's one tile-graph asset), navrt::Navigator's A* on it runs the
// same pairs, alternating with the world's in 3 rounds (medians): the peer for findPath.
//
// Usage: world_stream OUTPUT_FOLDER AGENT[.KIND] [WHOLE.nav]   (a `navbake build` output with
// world tiles; run by bench_world.sh in `make bench`)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "lib/runtime/navrt_navigator.h"
#include "lib/runtime/navrt_world.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: world_stream OUTPUT_FOLDER AGENT[.KIND] [WHOLE.nav]\n");
        return 2;
    }
    const fs::path folder = argv[1];
    // AGENT (its tile-graph world) or AGENT.KIND (default.navmesh: a navmesh world, whose costs
    // agree with the whole tiled navmesh's within 2 %: heights along tile borders are not welded).
    const std::string agent = argv[2];
    const bool mesh = agent.ends_with(".navmesh");
    const std::string stem = agent.find('.') == std::string::npos ? agent + ".tile." : agent + ".";
    navrt::World world;
    if (navrt::Error e = world.initFile((folder / (stem + "world")).c_str())) {
        std::fprintf(stderr, "world_stream: %s\n", e.message);
        return 1;
    }
    std::vector<fs::path> tiles;
    for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(stem) && name.ends_with(".nav")) tiles.push_back(entry.path());
    }
    std::sort(tiles.begin(), tiles.end());
    const size_t base = world.memoryBytes();
    std::vector<double> load_us, memory, bytes;
    for (int round = 0; round < 5; ++round) {
        for (const fs::path& t : tiles) {
            const size_t before = world.memoryBytes();
            const auto t0 = Clock::now();
            if (navrt::Error e = world.addTileFile(t.c_str())) {
                std::fprintf(stderr, "world_stream: %s: %s\n", t.c_str(), e.message);
                return 1;
            }
            load_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
            if (round == 0) {
                memory.push_back(double(world.memoryBytes() - before));
                bytes.push_back(double(fs::file_size(t)));
            }
        }
        if (round < 4)
            for (uint32_t z = 0; z < world.tilesZ(); ++z)
                for (uint32_t x = 0; x < world.tilesX(); ++x) world.removeTile(x, z);
    }
    std::printf("%zu tiles of %u x %u; index %.1f KiB in memory\n", tiles.size(), world.tilesX(),
                world.tilesZ(), double(base) / 1024);
    std::printf(
        "per tile: load %.0f us (median), file %.1f KiB, memory %.1f KiB (median), max "
        "%.1f KiB\n",
        median(load_us), median(bytes) / 1024, median(memory) / 1024,
        *std::max_element(memory.begin(), memory.end()) / 1024);
    // Random walkable points: random XZ in the world, on whatever floor is there.
    std::mt19937 random(7);
    std::uniform_real_distribution<float> unit(0, 1);
    float x0, z0, x1, z1;
    world.extent(x0, z0, x1, z1);
    std::vector<navrt::Vec3> points;
    // 200 pairs (WORLD_STREAM_PAIRS: fewer for volume worlds, whose long voxel searches take
    // seconds each).
    const char* pairs_env = std::getenv("WORLD_STREAM_PAIRS");
    const size_t wanted =
        2 * size_t(pairs_env != nullptr ? std::max(1, std::atoi(pairs_env)) : 200);
    for (int tries = 0; tries < 200000 && points.size() < wanted; ++tries) {
        const navrt::Vec3 p{x0 + unit(random) * (x1 - x0), 0, z0 + unit(random) * (z1 - z0)};
        uint32_t tx, tz, node;
        if (world.locate(p, 1e6f, 0, tx, tz, node)) points.push_back(world.position(tx, tz, node));
    }
    // The first query after a load (a POV world joins its loaded tiles then): one tile removed
    // and added again, then one query, 5 times.
    if (points.size() >= 2) {
        std::vector<double> first_us;
        for (int round = 0; round < 5; ++round) {
            world.removeTile(0, 0);
            for (const fs::path& t : tiles)
                if (t.filename().string() == stem + "0_0.nav") (void)world.addTileFile(t.c_str());
            const auto t0 = Clock::now();
            (void)world.findPath(points[0], points[1]);
            first_us.push_back(
                std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
        std::printf("first findPath after a load: %.0f us (median of 5)\n", median(first_us));
    }
    std::vector<double> find_us, plan_us, expanded;
    int found = 0;
    std::vector<uint32_t> corridor;
    for (size_t i = 0; i + 1 < points.size(); i += 2) {
        auto t0 = Clock::now();
        found += world.findPath(points[i], points[i + 1]) == navrt::PathStatus::found;
        find_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        expanded.push_back(double(world.expanded()));
        t0 = Clock::now();
        world.planTiles(points[i], points[i + 1], corridor);
        plan_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    double total_us = 0, total_expanded = 0;
    for (size_t i = 0; i < find_us.size(); ++i) {
        total_us += find_us[i];
        total_expanded += expanded[i];
    }
    std::printf(
        "all tiles loaded: findPath %.0f us (%.0f nodes expanded, %.1f M nodes/s), "
        "planTiles %.0f us (medians of %zu pairs, %d found)\n",
        median(find_us), median(expanded), total_expanded / total_us, median(plan_us),
        find_us.size(), found);
    if (argc == 4) {
        navrt::Asset asset;
        navrt::GraphView view;
        navrt::Navigator navigator;
        if (navrt::load(argv[3], asset) || navrt::viewGraph(asset, view) || navigator.init(view)) {
            std::fprintf(stderr, "world_stream: cannot load %s\n", argv[3]);
            return 1;
        }
        std::vector<double> world_round, whole_round;
        int agree = 0, compared = 0;
        for (int round = 0; round < 3; ++round) {
            auto t0 = Clock::now();
            std::vector<double> costs;
            for (size_t i = 0; i + 1 < points.size(); i += 2) {
                const bool ok =
                    world.findPath(points[i], points[i + 1]) == navrt::PathStatus::found;
                costs.push_back(ok ? world.cost() : -1);
            }
            world_round.push_back(
                std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
            t0 = Clock::now();
            size_t k = 0;
            for (size_t i = 0; i + 1 < points.size(); i += 2, ++k) {
                const bool ok =
                    navigator.findPath(points[i], points[i + 1]) == navrt::NavStatus::found;
                if (round == 0) {
                    ++compared;
                    agree += ok ? std::fabs(navigator.cost() - costs[k]) <
                                      (mesh ? 0.02 : 1e-3) * (1 + costs[k])
                                : costs[k] < 0;
                }
            }
            whole_round.push_back(
                std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
        const double pairs = double(points.size() / 2);
        std::printf(
            "same pairs on the whole asset (navrt::Navigator A*): %.0f us per query, world %.0f "
            "us (ratio world / whole %.2f); costs agree on %d of %d\n",
            median(whole_round) / pairs, median(world_round) / pairs,
            median(world_round) / median(whole_round), agree, compared);
    }
    return 0;
}
