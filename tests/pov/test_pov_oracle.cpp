// Acceptance (issue 5): POV paths on the shared MovingAI maps are never longer than the listed
// octile optimum, equal the exact Euclidean shortest path of an independent brute-force oracle on
// the smaller maps, and every path segment passes the oracle's line-of-sight check.
#include <doctest/doctest.h>

#include <cmath>

#include "tests/pov/pov_oracle.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

importer::GridMap gridOf(const char* rows, uint32_t width, uint32_t height) {
    const std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " +
                             std::to_string(width) + "\nmap\n" + rows;
    auto map = importer::parseMovingAiMap(text, "t.map");
    REQUIRE(map.ok());
    return std::move(map).value();
}

}  // namespace

TEST_SUITE("pov") {
    TEST_CASE("oracle self-check: open space, a block, a pinch, walls") {
        const importer::GridMap open = gridOf("...\n...\n...\n", 3, 3);
        test::GridOracle o1(open);
        CHECK(o1.cornerCount() == 0);
        CHECK(o1.visible({0.5, 0.5}, {2.5, 2.5}));
        CHECK(o1.visible({0.0, 0.0}, {3.0, 0.0}));  // along the border, touching only
        CHECK(o1.shortestPath({0.5, 0.5}, {2.5, 1.5}) == doctest::Approx(std::hypot(2.0, 1.0)));

        const importer::GridMap block = gridOf("...\n.@.\n...\n", 3, 3);
        test::GridOracle o2(block);
        CHECK(o2.cornerCount() == 4);
        CHECK_FALSE(o2.visible({0.5, 1.5}, {2.5, 1.5}));
        CHECK(o2.visible({0.5, 0.5}, {2.5, 2.5}) == false);  // through the block's centre
        // Along x = 1 the block is on one side and free (0, 1) on the other: touching, visible.
        CHECK(o2.visible({1.0, 0.2}, {1.0, 2.8}) == true);
        // Around the block over its corners (1, 1) and (2, 1).
        CHECK(o2.shortestPath({0.5, 1.5}, {2.5, 1.5}) ==
              doctest::Approx(2 * std::hypot(0.5, 0.5) + 1));

        const importer::GridMap pinch = gridOf("@.\n.@\n", 2, 2);
        test::GridOracle o3(pinch);
        CHECK_FALSE(o3.visible({0.5, 1.5}, {1.5, 0.5}));
        CHECK(o3.shortestPath({0.5, 1.5}, {1.5, 0.5}) < 0);

        const importer::GridMap wall = gridOf("..@..\n..@..\n.....\n", 5, 3);
        test::GridOracle o4(wall);
        CHECK_FALSE(o4.visible({0.5, 0.5}, {4.5, 0.5}));
        CHECK(o4.visible({2.0, 0.5}, {2.0, 1.5}) == true);  // along the wall's left face
        CHECK(o4.visible({2.5, 2.5}, {2.5, 2.9}));
        // Around the wall's lower end, touching the corners (2, 2) and (3, 2).
        const double expected = std::hypot(1.5, 1.5) + 1.0 + std::hypot(1.5, 1.5);
        CHECK(o4.shortestPath({0.5, 0.5}, {4.5, 0.5}) == doctest::Approx(expected));
    }
}

#include <algorithm>
#include <chrono>
#include <map>

#include "lib/graph/graph.h"
#include "lib/importer/scenario.h"
#include "lib/query/query.h"
#include "lib/voxel/voxel_grid.h"

TEST_SUITE("pov") {
    TEST_CASE(
        "POV on every shared MovingAI map: never longer than octile, equal to the oracle, "
        "visible") {
        const auto data = test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        const std::vector<std::filesystem::path> maps = test::movingAiMaps(data);
        REQUIRE(maps.size() >= 10);
        // Maps small enough for the brute-force oracle (its cost grows with corners squared), and
        // how many of their scenarios it checks.
        const std::map<std::string, size_t> oracle_scenarios = {{"empty-48-48.map", 100},
                                                                {"random-64-64-20.map", 20},
                                                                {"room-64-64-8.map", 40},
                                                                {"den312d.map", 60},
                                                                {"ht_chantry.map", 40}};
        test::TempDir dir;
        for (const auto& map_path : maps) {
            const std::string name = map_path.filename().string();
            INFO(name);
            auto map = importer::loadMovingAiMap(map_path);
            REQUIRE(map.ok());
            voxel::VoxelGrid grid = importer::gridFromMap(*map);
            grid.source_name = name;
            Context context;
            auto pov = graph::buildPovGraph(grid, {}, context);
            REQUIRE(pov.ok());
            const auto nav_path = dir / (map_path.stem().string() + ".nav");
            REQUIRE(graph::saveGraph(nav_path, *pov, formats::kKindNav).ok());
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load(nav_path.c_str(), asset));
            navrt::GraphView view;
            REQUIRE_FALSE(navrt::viewGraph(asset, view));
            navrt::PathQuery query;
            REQUIRE_FALSE(query.init(view));
            auto scenarios = importer::loadScenarios(map_path.string() + ".scen");
            REQUIRE(scenarios.ok());

            const test::GridOracle oracle(*map);
            const auto limit = oracle_scenarios.find(name);
            size_t checked = 0, oracle_checked = 0, segments = 0;
            double shortest_ratio = 1;
            std::vector<navrt::Vec3> points;
            for (size_t i = 0; i < scenarios->size(); ++i) {
                const importer::Scenario& s = (*scenarios)[i];
                const navrt::Vec3 from{float(s.start_x) + 0.5f, 0.0f, float(s.start_y) + 0.5f};
                const navrt::Vec3 to{float(s.goal_x) + 0.5f, 0.0f, float(s.goal_y) + 0.5f};
                const query::QueryRecord r = query::runQuery(view, query, from, to, {0.0f, 0.5f});
                REQUIRE_MESSAGE(r.outcome == query::Outcome::found, "scenario line ", s.line);
                const double length = query.smoothedLength();
                CHECK_MESSAGE(length <= s.optimal_length * (1 + 1e-6) + 1e-9, "line ", s.line, ": ",
                              length, " > octile ", s.optimal_length);
                shortest_ratio =
                    std::min(shortest_ratio, length / std::max(s.optimal_length, 1e-9));
                // Every segment of the path passes the oracle's line of sight.
                points.resize(query.pathLength() + 2);
                const uint32_t count = query.smooth(points.data(), uint32_t(points.size()));
                REQUIRE(count <= points.size());
                for (uint32_t k = 1; k < count; ++k) {
                    CHECK_MESSAGE(oracle.visible({points[k - 1].x, points[k - 1].z},
                                                 {points[k].x, points[k].z}),
                                  "line ", s.line, ": segment ", k, " crosses an obstacle");
                    ++segments;
                }
                if (limit != oracle_scenarios.end() && oracle_checked < limit->second) {
                    const double exact = oracle.shortestPath({s.start_x + 0.5, s.start_y + 0.5},
                                                             {s.goal_x + 0.5, s.goal_y + 0.5});
                    CHECK_MESSAGE(std::fabs(length - exact) <= 1e-6 * std::max(exact, 1.0), "line ",
                                  s.line, ": POV ", length, " vs exact ", exact);
                    ++oracle_checked;
                }
                ++checked;
            }
            CHECK(checked == scenarios->size());
            MESSAGE(name, ": ", checked, " scenarios, ", segments, " segments checked, ",
                    oracle_checked, " against the oracle, shortest POV/octile ratio ",
                    shortest_ratio);
        }
    }
}
