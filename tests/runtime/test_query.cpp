#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <queue>
#include <random>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct PackedLevel {
    test::TempDir dir;
    graph::Graph graph;
    navrt::Asset asset;
    navrt::GraphView view;
};

std::unique_ptr<PackedLevel> pack(const importer::GridMap& map) {
    auto level = std::make_unique<PackedLevel>();
    Context context;
    auto g = graph::buildTileGraph(importer::gridFromMap(map), context);
    REQUIRE(g.ok());
    level->graph = std::move(g).value();
    const auto path = level->dir / "level.nav";
    REQUIRE(graph::saveGraph(path, level->graph, formats::kKindNav).ok());
    REQUIRE_FALSE(navrt::load(path.c_str(), level->asset));
    REQUIRE_FALSE(navrt::viewGraph(level->asset, level->view));
    return level;
}

importer::GridMap randomMap(uint32_t width, uint32_t height, double density, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    importer::GridMap map;
    map.width = width;
    map.height = height;
    map.passable.resize(size_t(width) * height);
    for (auto& p : map.passable) p = unit(rng) >= density;
    return map;
}

// Independent oracle: Dijkstra over the grid with the MovingAI rules (8-connected, diagonal
// sqrt 2, no corner cutting), straight from the map.
std::vector<double> gridDijkstra(const importer::GridMap& map, uint32_t sx, uint32_t sy) {
    const double inf = 1e300;
    std::vector<double> dist(map.passable.size(), inf);
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    dist[sy * map.width + sx] = 0;
    open.push({0, sy * map.width + sx});
    while (!open.empty()) {
        auto [d, i] = open.top();
        open.pop();
        if (d > dist[i]) continue;
        const int x = int(i % map.width), y = int(i / map.width);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if (!dx && !dy) continue;
                const int nx = x + dx, ny = y + dy;
                auto open_cell = [&](int cx, int cy) {
                    return cx >= 0 && cy >= 0 && cx < int(map.width) && cy < int(map.height) &&
                           map.isPassable(uint32_t(cx), uint32_t(cy));
                };
                if (!open_cell(nx, ny)) continue;
                if (dx && dy && (!open_cell(x + dx, y) || !open_cell(x, y + dy))) continue;
                const double nd = d + (dx && dy ? std::sqrt(2.0) : 1.0);
                const uint32_t j = uint32_t(ny) * map.width + uint32_t(nx);
                if (nd < dist[j]) {
                    dist[j] = nd;
                    open.push({nd, j});
                }
            }
    }
    return dist;
}

navrt::Vec3 cellCentre(uint32_t x, uint32_t y) { return {float(x) + 0.5f, 0.0f, float(y) + 0.5f}; }

struct CountingAllocator {
    int calls = 0;
    static void* allocate(size_t size, void* user) {
        ++static_cast<CountingAllocator*>(user)->calls;
        return std::aligned_alloc(16, (size + 15) / 16 * 16);
    }
    static void release(void* p, void*) { std::free(p); }
};

}  // namespace

TEST_SUITE("runtime") {
    TEST_CASE("A* on random grids matches an independent Dijkstra oracle") {
        for (uint32_t seed = 1; seed <= 4; ++seed) {
            const importer::GridMap map = randomMap(40, 30, 0.25, seed);
            auto level = pack(map);
            navrt::PathQuery query;
            REQUIRE_FALSE(query.init(level->view));
            std::mt19937 rng(seed * 77);
            int compared = 0;
            for (int trial = 0; trial < 60; ++trial) {
                const uint32_t sx = rng() % map.width, sy = rng() % map.height;
                const uint32_t gx = rng() % map.width, gy = rng() % map.height;
                if (!map.isPassable(sx, sy) || !map.isPassable(gx, gy)) continue;
                const std::vector<double> dist = gridDijkstra(map, sx, sy);
                const uint32_t start = navrt::locate(level->view, cellCentre(sx, sy));
                const uint32_t goal = navrt::locate(level->view, cellCentre(gx, gy));
                REQUIRE(start != navrt::kNoNode);
                REQUIRE(goal != navrt::kNoNode);
                const navrt::PathStatus status = query.findPath(start, goal);
                const double expected = dist[gy * map.width + gx];
                if (expected > 1e299) {
                    CHECK(status == navrt::PathStatus::no_path);
                    continue;
                }
                REQUIRE(status == navrt::PathStatus::found);
                CHECK(query.cost() == doctest::Approx(expected).epsilon(1e-7));
                CHECK(query.path()[0] == start);
                CHECK(query.path()[query.pathLength() - 1] == goal);
                // Smoothing: every segment has line of sight and the length does not grow.
                std::vector<navrt::Vec3> points(query.pathLength());
                const uint32_t count = query.smooth(points.data(), uint32_t(points.size()));
                CHECK(count >= 2 - (start == goal));
                CHECK(query.smoothedLength() <= query.cost() + 1e-6);
                ++compared;
            }
            CHECK(compared > 20);
        }
    }

    TEST_CASE("locate: on, off and beside the graph") {
        auto map =
            importer::parseMovingAiMap("type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n", "m");
        REQUIRE(map.ok());
        auto level = pack(*map);
        CHECK(navrt::locate(level->view, {0.5f, 0.0f, 0.5f}) == 0);
        CHECK(navrt::locate(level->view, {1.5f, 0.0f, 0.5f}) == navrt::kNoNode);   // wall
        CHECK(navrt::locate(level->view, {-3.0f, 0.0f, 0.5f}) == navrt::kNoNode);  // outside
        CHECK(navrt::locate(level->view, {0.5f, 5.0f, 0.5f}) == navrt::kNoNode);   // far above
        // With a horizontal tolerance a point in the wall snaps to the nearest floor cell.
        const uint32_t snapped = navrt::locate(level->view, {1.1f, 0.0f, 0.5f}, 0.2f, 1.0f);
        CHECK(snapped == 0);
        // Found by fuzz_asset (tests/fuzz/regressions/asset/locate-far-point): a point 1e38 m
        // away was converted to int (undefined), and a huge tolerance looped over its radius.
        CHECK(navrt::locate(level->view, {-1.4e38f, 0.0f, 0.5f}) == navrt::kNoNode);
        CHECK(navrt::locate(level->view, {0.5f, 0.0f, 3e38f}, 1.0f, 1.0f) == navrt::kNoNode);
        CHECK(navrt::locate(level->view, {2.5f, 0.0f, 1.5f}, 3e38f, 1.0f) == 4);   // on its cell
        CHECK(navrt::locate(level->view, {40.5f, 0.0f, 1.5f}, 1e30f, 1.0f) == 4);  // nearest
    }

    TEST_CASE("path statuses: invalid nodes, disconnected goal, budget, same start and goal") {
        auto map = importer::parseMovingAiMap("type octile\nheight 1\nwidth 5\nmap\n..@..\n", "m");
        REQUIRE(map.ok());
        auto level = pack(*map);
        navrt::PathQuery query;
        CHECK(query.findPath(0, 1) == navrt::PathStatus::not_initialized);
        REQUIRE_FALSE(query.init(level->view));
        CHECK(query.findPath(99, 0) == navrt::PathStatus::invalid_start);
        CHECK(query.findPath(0, 99) == navrt::PathStatus::invalid_goal);
        CHECK(query.findPath(0, 3) == navrt::PathStatus::no_path);
        CHECK(query.expansions() == 0);  // components tell without searching
        REQUIRE(query.findPath(1, 1) == navrt::PathStatus::found);
        CHECK(query.cost() == 0.0);
        CHECK(query.pathLength() == 1);

        auto open = pack(randomMap(30, 30, 0.0, 1));
        navrt::PathQuery limited;
        REQUIRE_FALSE(limited.init(open->view, 5));
        CHECK(limited.findPath(0, uint32_t(open->graph.nodeCount() - 1)) ==
              navrt::PathStatus::out_of_nodes);
    }

    TEST_CASE("straight line of sight smooths an open diagonal to two points") {
        auto level = pack(randomMap(20, 10, 0.0, 3));
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(level->view));
        const uint32_t start = navrt::locate(level->view, cellCentre(0, 0));
        const uint32_t goal = navrt::locate(level->view, cellCentre(19, 7));
        REQUIRE(query.findPath(start, goal) == navrt::PathStatus::found);
        navrt::Vec3 points[8];
        CHECK(query.smooth(points, 8) == 2);
        CHECK(query.smoothedLength() == doctest::Approx(std::sqrt(19.0 * 19.0 + 7.0 * 7.0)));
        CHECK(query.cost() == doctest::Approx(12.0 + 7.0 * std::sqrt(2.0)));
    }

    TEST_CASE("queries allocate nothing after init") {
        auto level = pack(randomMap(50, 50, 0.2, 9));
        CountingAllocator counter;
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(
            level->view, 0, {&CountingAllocator::allocate, &CountingAllocator::release, &counter}));
        const int after_init = counter.calls;
        CHECK(after_init > 0);
        for (uint32_t i = 0; i < 50; ++i) {
            (void)query.findPath(i, uint32_t(level->graph.nodeCount() - 1 - i));
            (void)query.smoothedLength();
        }
        CHECK(counter.calls == after_init);
    }
}
