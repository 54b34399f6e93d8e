// Benchmark of navrt's C API and sliced search (issue 16): per query, on the same random point
// pairs, navrt::Navigator::findPath against navrt_find_path (+ navrt_path_result and the straight
// path through each API), and one findPath call against the same search sliced into steps of 256
// expansions (beginPath, step(256) until done), in 7 alternating rounds; medians of the rounds'
// per-query means, and the ratios. Levels: the shared MovingAI maps' tile graphs and the shared
// Recast demo meshes' navmeshes (baked in-process). Prints; asserts nothing.
//
// Usage: bench_navrt [SHARED_DATA [SAMPLE_LEVELS]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/runtime/c/navrt.h"
#include "lib/runtime/navrt_navigator.h"
#include "lib/voxel/voxelize.h"

namespace {

namespace fs = std::filesystem;
using namespace nav;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void bench(const std::string& name, const graph::Graph& g, const fs::path& dir) {
    const fs::path file = dir / "bench_navrt.nav";
    if (!graph::saveGraph(file, g, formats::kKindNav).ok()) return;
    navrt::Asset asset;
    navrt::GraphView view;
    if (navrt::load(file.c_str(), asset) || navrt::viewGraph(asset, view)) return;
    navrt_asset* casset = nullptr;
    if (navrt_asset_load(file.c_str(), nullptr, &casset, nullptr) != NAVRT_OK) return;
    navrt_navigator* cnav = nullptr;
    navrt_navigator_create(casset, nullptr, &cnav, nullptr);
    navrt::Navigator cpp;
    (void)cpp.init(view);
    std::mt19937 random(3);
    std::uniform_int_distribution<uint32_t> node(0, view.nodeCount() - 1);
    std::vector<std::pair<navrt::Vec3, navrt::Vec3>> pairs;
    for (int i = 0; i < 500; ++i)
        pairs.push_back({view.position(node(random)), view.position(node(random))});
    std::vector<navrt::Vec3> points(1 << 16);
    std::vector<navrt_vec3> cpoints(1 << 16);
    double sink = 0;
    auto runCpp = [&] {
        for (const auto& [a, b] : pairs)
            if (cpp.findPath(a, b) == navrt::NavStatus::found)
                sink += cpp.cost() + cpp.straightPath(points.data(), uint32_t(points.size()));
    };
    auto runC = [&] {
        for (const auto& [a, b] : pairs) {
            const navrt_vec3 ca{a.x, a.y, a.z}, cb{b.x, b.y, b.z};
            if (navrt_find_path(cnav, ca, cb, nullptr, NAVRT_NONE, NAVRT_NONE) == NAVRT_PATH_FOUND)
                sink +=
                    navrt_path_result(cnav).cost +
                    navrt_straight_path(cnav, cpoints.data(), nullptr, uint32_t(cpoints.size()));
        }
    };
    uint64_t expansions = 0;
    auto runSliced = [&] {
        for (const auto& [a, b] : pairs) {
            navrt::NavStatus s = cpp.beginPath(a, b);
            while (s == navrt::NavStatus::in_progress) s = cpp.step(256);
            if (s == navrt::NavStatus::found) sink += cpp.cost();
            expansions += cpp.expansions();
        }
    };
    auto runWhole = [&] {
        for (const auto& [a, b] : pairs)
            if (cpp.findPath(a, b) == navrt::NavStatus::found) sink += cpp.cost();
    };
    auto time = [&](auto&& f) {
        const auto t0 = Clock::now();
        f();
        return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
               double(pairs.size());
    };
    std::vector<double> c_us, cpp_us, sliced_us, whole_us;
    runCpp();  // warm
    for (int round = 0; round < 7; ++round) {
        if (round % 2) {
            c_us.push_back(time(runC));
            cpp_us.push_back(time(runCpp));
            sliced_us.push_back(time(runSliced));
            whole_us.push_back(time(runWhole));
        } else {
            cpp_us.push_back(time(runCpp));
            c_us.push_back(time(runC));
            whole_us.push_back(time(runWhole));
            sliced_us.push_back(time(runSliced));
        }
    }
    const double c = median(c_us), p = median(cpp_us), s = median(sliced_us), w = median(whole_us);
    std::printf("| %s | %u | %.0f | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f |\n", name.c_str(),
                view.nodeCount(), double(expansions) / (7.0 * double(pairs.size())), p, c, c / p, w,
                s, s / w);
    if (sink == 42.4242) std::printf("\n");
    navrt_navigator_free(cnav);
    navrt_asset_free(casset);
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path shared = argc > 1 ? argv[1] : "../shared/data";
    const fs::path dir = fs::temp_directory_path() / "navbake_bench_navrt";
    fs::create_directories(dir);
    std::printf(
        "navrt per query (500 random node pairs, medians of 7 alternating rounds, µs a query "
        "including the straight path): C API vs C++, and A* sliced into steps of 256 expansions "
        "vs one call.\n\n");
    std::printf(
        "| level | nodes | expansions | C++ µs | C API µs | C / C++ | one call µs | sliced µs | "
        "sliced / one |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    Context context;
    for (const char* map : {"den312d.map", "ht_chantry.map", "AR0011SR.map", "den520d.map"}) {
        const fs::path path = shared / "movingai" / map;
        if (!fs::exists(path)) continue;
        auto grid = importer::loadMovingAiMap(path);
        if (!grid) continue;
        auto tile = graph::buildTileGraph(importer::gridFromMap(*grid), context);
        if (tile) bench(std::string("tile ") + map, *tile, dir);
    }
    for (const char* mesh : {"dungeon.obj", "nav_test.obj", "undulating.obj"}) {
        const fs::path path = shared / "meshes" / mesh;
        if (!fs::exists(path)) continue;
        auto geometry = importer::importScene(path, {}, context);
        if (!geometry) continue;
        auto grid = voxel::voxelize(*geometry, {}, context);
        if (!grid) continue;
        auto navmesh = graph::buildNavmeshGraph(*grid, {}, context);
        if (navmesh) bench(std::string("navmesh ") + mesh, *navmesh, dir);
    }
    fs::remove_all(dir);
    return 0;
}
