// Streaming a tiled world with navrt::World (issue 17): per tile, load time (addTileFile) and the
// memory it adds (memoryBytes), medians over 5 rounds of loading every tile and removing them
// again; then, with every tile loaded, microseconds per findPath and per planTiles on random
// pairs of walkable points. Prints; asserts nothing.
//
// Usage: world_stream OUTPUT_FOLDER AGENT   (a `navbake build` output with world tiles; run by
// bench_world.sh in `make bench`)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

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
    if (argc != 3) {
        std::fprintf(stderr, "usage: world_stream OUTPUT_FOLDER AGENT\n");
        return 2;
    }
    const fs::path folder = argv[1];
    const std::string stem = std::string(argv[2]) + ".tile.";
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
    for (int tries = 0; tries < 200000 && points.size() < 400; ++tries) {
        const navrt::Vec3 p{x0 + unit(random) * (x1 - x0), 0, z0 + unit(random) * (z1 - z0)};
        uint32_t tx, tz, node;
        if (world.locate(p, 1e6f, 0, tx, tz, node)) points.push_back(world.position(tx, tz, node));
    }
    std::vector<double> find_us, plan_us;
    int found = 0;
    std::vector<uint32_t> corridor;
    for (size_t i = 0; i + 1 < points.size(); i += 2) {
        auto t0 = Clock::now();
        found += world.findPath(points[i], points[i + 1]) == navrt::PathStatus::found;
        find_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        t0 = Clock::now();
        world.planTiles(points[i], points[i + 1], corridor);
        plan_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    std::printf(
        "all tiles loaded: findPath %.0f us, planTiles %.0f us (medians of %zu pairs, %d "
        "found)\n",
        median(find_us), median(plan_us), find_us.size(), found);
    return 0;
}
