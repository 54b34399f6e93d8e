// Volume graph queries: navrt A* through the generated hollow 3D maze against an independent
// Dijkstra over the raw .3dmap, and the line-of-sight check of every smoothed segment.
#include <doctest/doctest.h>

#include <cmath>
#include <queue>
#include <random>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// Dijkstra straight from the map's blocked flags with the MovingAI 3D rule.
std::vector<double> voxelDijkstra(const importer::VoxelMap3D& map, uint32_t source) {
    return test::voxelDijkstra(
        map.width, map.height, map.depth, 1.0, 1.0, source,
        [&](uint32_t x, uint32_t y, uint32_t z) { return !map.isBlocked(x, y, z); },
        [](uint32_t, auto&&) {});
}

}  // namespace

TEST_SUITE("runtime") {
    TEST_CASE("volume A* through the hollow 3D maze equals an independent Dijkstra") {
        auto map = importer::loadVoxelMap3D(test::sampleLevels() / "maze3d.3dmap");
        REQUIRE(map.ok());
        Context context;
        auto g = graph::buildVolumeGraph(importer::gridFromVoxelMap(*map), 0.0f, context);
        REQUIRE(g.ok());
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "maze.nav", *g, formats::kKindNav).ok());
        navrt::Asset asset;
        REQUIRE_FALSE(navrt::load((dir / "maze.nav").c_str(), asset));
        navrt::GraphView view;
        REQUIRE_FALSE(navrt::viewGraph(asset, view));
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(view));

        std::vector<uint32_t> free_voxels;
        for (uint32_t i = 0; i < view.nodeCount(); ++i)
            if (view.isFree(i)) free_voxels.push_back(i);
        REQUIRE(free_voxels.size() > 1000);
        std::mt19937 rng(2024);
        int found = 0, unreachable = 0, multi_storey = 0;
        for (int source_trial = 0; source_trial < 4; ++source_trial) {
            const uint32_t start = free_voxels[rng() % free_voxels.size()];
            const std::vector<double> dist = voxelDijkstra(*map, start);
            for (int trial = 0; trial < 25; ++trial) {
                const uint32_t goal = free_voxels[rng() % free_voxels.size()];
                const navrt::PathStatus status = query.findPath(start, goal);
                if (!std::isfinite(dist[goal])) {
                    CHECK(status == navrt::PathStatus::no_path);
                    ++unreachable;
                    continue;
                }
                REQUIRE(status == navrt::PathStatus::found);
                CHECK(query.cost() == doctest::Approx(dist[goal]).epsilon(1e-9));
                ++found;
                const navrt::Vec3 a = view.position(start), b = view.position(goal);
                if (std::fabs(a.y - b.y) > 6) ++multi_storey;
                // Smoothed path: fewer points, each segment has line of sight, not longer.
                std::vector<navrt::Vec3> points(query.pathLength());
                const uint32_t count = query.smooth(points.data(), uint32_t(points.size()));
                CHECK(count <= query.pathLength());
                CHECK(query.smoothedLength() <= query.cost() + 1e-6);
                for (uint32_t k = 1; k < count; ++k) {
                    const uint32_t u = navrt::locate(view, points[k - 1], 0.0f, 0.0f);
                    const uint32_t v = navrt::locate(view, points[k], 0.0f, 0.0f);
                    CHECK(query.lineOfSight(u, v));
                }
            }
        }
        CHECK(found > 80);
        CHECK(multi_storey > 5);  // paths that climb or descend between storeys
        MESSAGE("maze3d: ", found, " paths compared, ", unreachable, " unreachable, ", multi_storey,
                " between storeys");
    }

    TEST_CASE("volume locate: free voxel, blocked voxel, outside") {
        auto map = importer::parseVoxelMap3D("voxel 3 2 3\n1 0 1\n", "t.3dmap");
        REQUIRE(map.ok());
        Context context;
        auto g = graph::buildVolumeGraph(importer::gridFromVoxelMap(*map), 0.0f, context);
        REQUIRE(g.ok());
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "t.nav", *g, formats::kKindNav).ok());
        navrt::Asset asset;
        REQUIRE_FALSE(navrt::load((dir / "t.nav").c_str(), asset));
        navrt::GraphView view;
        REQUIRE_FALSE(navrt::viewGraph(asset, view));
        CHECK(navrt::locate(view, {0.5f, 0.5f, 0.5f}, 0, 0) == 0);
        CHECK(navrt::locate(view, {1.5f, 0.5f, 1.5f}, 0, 0) == navrt::kNoNode);  // blocked
        CHECK(navrt::locate(view, {1.5f, 9.5f, 1.5f}, 0, 0) == navrt::kNoNode);  // above the grid
        // Far points and huge tolerances (fuzz_asset): no overflow, no endless loop.
        CHECK(navrt::locate(view, {0.5f, -2e38f, 0.5f}, 1, 1) == navrt::kNoNode);
        CHECK(navrt::locate(view, {0.5f, 0.5f, 0.5f}, 3e38f, 3e38f) == 0);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(view));
        // Around the single blocked voxel: (0,0,1) -> (2,0,1) must not pass through (1,0,1).
        const uint32_t a = navrt::locate(view, {0.5f, 0.5f, 1.5f}, 0, 0);
        const uint32_t b = navrt::locate(view, {2.5f, 0.5f, 1.5f}, 0, 0);
        REQUIRE(query.findPath(a, b) == navrt::PathStatus::found);
        CHECK_FALSE(query.lineOfSight(a, b));
        CHECK(query.cost() > 2.0 + 1e-9);  // a detour around the blocked voxel
        CHECK(query.cost() == doctest::Approx(voxelDijkstra(*map, a)[b]).epsilon(1e-9));
    }
}
