// Acceptance: for every map in ../shared/data/movingai, import -> tile graph -> pack -> scen
// solves 100% of the scenarios with max absolute error <= 1e-3.
#include <doctest/doctest.h>

#include <algorithm>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/query/query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

TEST_SUITE("query") {
    TEST_CASE("MovingAI conformance: every shared map, every scenario optimal") {
        const auto data = test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        const std::vector<std::filesystem::path> maps = test::movingAiMaps(data);
        REQUIRE(maps.size() >= 10);
        test::TempDir dir;
        for (const auto& map_path : maps) {
            INFO(map_path.filename().string());
            Context context;
            const graph::Graph g = test::tileGraphOfFile(map_path);
            const auto nav_path = dir / (map_path.stem().string() + ".nav");
            REQUIRE(graph::saveGraph(nav_path, g, formats::kKindNav).ok());
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load(nav_path.c_str(), asset));
            navrt::GraphView view;
            REQUIRE_FALSE(navrt::viewGraph(asset, view));
            auto report = query::runScenarioFile(view, map_path.string() + ".scen", context);
            REQUIRE(report.ok());
            CHECK(report->total > 0);
            CHECK(report->solved == report->total);
            CHECK(report->optimal == report->total);
            CHECK(report->max_abs_error <= 1e-3);
            MESSAGE(map_path.filename().string(), ": ", report->total, " scenarios, mean ",
                    report->mean_expansions, " expansions");
        }
    }

    TEST_CASE("scenario files naming another map or malformed are refused with the line") {
        auto map = importer::parseMovingAiMap("type octile\nheight 2\nwidth 3\nmap\n...\n...\n",
                                              "tiny.map");
        REQUIRE(map.ok());
        voxel::VoxelGrid grid = importer::gridFromMap(*map);
        grid.source_name = "tiny.map";
        Context context;
        auto g = graph::buildTileGraph(grid, context);
        REQUIRE(g.ok());
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "tiny.nav", *g, formats::kKindNav).ok());
        navrt::Asset asset;
        REQUIRE_FALSE(navrt::load((dir / "tiny.nav").c_str(), asset));
        navrt::GraphView view;
        REQUIRE_FALSE(navrt::viewGraph(asset, view));

        test::writeText(dir / "ok.scen", "version 1\n0\ttiny.map\t3\t2\t0\t0\t2\t1\t2.41421356\n");
        auto ok = query::runScenarioFile(view, dir / "ok.scen", context);
        REQUIRE(ok.ok());
        CHECK(ok->optimal == 1);

        test::writeText(dir / "other.scen",
                        "version 1\n0\ttiny.map\t3\t2\t0\t0\t2\t1\t2.4\n"
                        "0\tden520d.map\t3\t2\t0\t0\t2\t1\t2.4\n");
        auto other = query::runScenarioFile(view, dir / "other.scen", context);
        REQUIRE_FALSE(other.ok());
        CHECK(other.error().message.find("line 3: scenario is for map 'den520d.map'") !=
              std::string::npos);

        test::writeText(dir / "bad.scen", "version 1\n0\ttiny.map\t3\t2\t0\tzero\t2\t1\t2.4\n");
        auto bad = query::runScenarioFile(view, dir / "bad.scen", context);
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find("line 2: field 6 ('zero')") != std::string::npos);

        test::writeText(dir / "short.scen", "version 1\n0\ttiny.map\t3\t2\t0\n");
        auto short_line = query::runScenarioFile(view, dir / "short.scen", context);
        REQUIRE_FALSE(short_line.ok());
        CHECK(short_line.error().message.find("line 2: expected 9 fields") != std::string::npos);

        // A start in a wall is a clear status, not a crash.
        auto walled =
            importer::parseMovingAiMap("type octile\nheight 1\nwidth 3\nmap\n.@.\n", "w.map");
        REQUIRE(walled.ok());
        voxel::VoxelGrid wgrid = importer::gridFromMap(*walled);
        auto wg = graph::buildTileGraph(wgrid, context);
        REQUIRE(wg.ok());
        REQUIRE(graph::saveGraph(dir / "w.nav", *wg, formats::kKindNav).ok());
        navrt::Asset wasset;
        REQUIRE_FALSE(navrt::load((dir / "w.nav").c_str(), wasset));
        navrt::GraphView wview;
        REQUIRE_FALSE(navrt::viewGraph(wasset, wview));
        test::writeText(dir / "w.scen", "version 1\n0\tw.map\t3\t1\t1\t0\t2\t0\t1\n");
        auto walled_report = query::runScenarioFile(wview, dir / "w.scen", context);
        REQUIRE(walled_report.ok());
        CHECK(walled_report->solved == 0);
        REQUIRE(walled_report->failures.size() == 1);
        CHECK(walled_report->failures[0].what == "start_off_graph");
    }

    TEST_CASE("query batches: one searcher per batch, results per pair, methods checked") {
        // 4 x 3, a wall at x = 1 for y = 0..1: the way from (0,0) to (2,0) goes round by y = 2.
        auto map = importer::parseMovingAiMap(
            "type octile\nheight 3\nwidth 4\nmap\n.@..\n.@..\n....\n", "batch.map");
        REQUIRE(map.ok());
        voxel::VoxelGrid grid = importer::gridFromMap(*map);
        Context context;
        auto g = graph::buildTileGraph(grid, context);
        REQUIRE(g.ok());
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "batch.nav", *g, formats::kKindNav).ok());
        navrt::Asset asset;
        REQUIRE_FALSE(navrt::load((dir / "batch.nav").c_str(), asset));
        navrt::GraphView view;
        REQUIRE_FALSE(navrt::viewGraph(asset, view));

        const std::vector<query::PointPair> pairs = {
            {{0.5f, 0, 0.5f}, {2.5f, 0, 0.5f}},  // round the wall
            {{0.5f, 0, 0.5f}, {1.5f, 0, 0.5f}},  // goal in the wall
            {{3.5f, 0, 2.5f}, {3.5f, 0, 2.5f}},  // start = goal
        };
        auto batch = query::runBatch(view, pairs, {}, {}, "batch.nav", true, context);
        REQUIRE(batch.ok());
        REQUIRE(batch->entries.size() == 3);
        CHECK(batch->found == 2);
        const query::BatchEntry& round = batch->entries[0];
        CHECK(round.record.outcome == query::Outcome::found);
        // No corner cutting past the wall's end (1,1): six straight moves round it.
        CHECK(round.record.cost == doctest::Approx(6.0));
        REQUIRE(round.path.size() >= 3);  // the smoothed polyline bends round the wall
        CHECK(round.path.front().x == doctest::Approx(0.5f));
        CHECK(round.path.back().x == doctest::Approx(2.5f));
        CHECK(batch->entries[1].record.outcome == query::Outcome::goal_off_graph);
        CHECK(batch->entries[1].path.empty());
        CHECK(batch->entries[2].record.cost == 0.0);
        CHECK(batch->mean_expansions > 0.0);

        // The same pairs without paths kept: same records.
        auto bare = query::runBatch(view, pairs, {}, {}, "batch.nav", false, context);
        REQUIRE(bare.ok());
        CHECK(bare->entries[0].path.empty());
        CHECK(bare->entries[0].record.cost == round.record.cost);

        // A method the asset was not packed for is refused, naming the asset.
        auto hier =
            query::runBatch(view, pairs, {}, query::Method::hier, "batch.nav", false, context);
        REQUIRE_FALSE(hier.ok());
        CHECK(hier.error().message.find("batch.nav") != std::string::npos);
    }

    TEST_CASE("scenario pass rule: solved always, optimal where the method promises it") {
        query::ScenarioReport r;
        r.total = 10;
        r.solved = 10;
        r.optimal = 9;
        CHECK_FALSE(r.passed());  // grid graph, shortest-path method: one is not optimal
        r.shortest_paths = false;
        CHECK(r.passed());  // hierarchical search: near-optimal by design
        r.shortest_paths = true;
        r.exact = false;
        CHECK(r.passed());  // navmesh straight paths are approximations
        r.any_angle = true;
        CHECK_FALSE(r.passed());  // POV: exact any-angle paths, every one within the optimum
        r.optimal = 10;
        CHECK(r.passed());
        r.solved = 9;
        CHECK_FALSE(r.passed());
    }
}
