// Point-of-interest tables (issue 14): per node and kind, the cost to the nearest point of
// interest and the next hop, against forward Dijkstras on a directed graph; the packed asset's
// walk; corrupt tables refused; the graph stage on tile, navmesh and Dirichlet graphs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// The rooms map's tile graph made directed: moving towards +x costs twice as much.
graph::Graph directedRooms(unsigned seed) {
    graph::Graph g = test::tileGraphOfText(test::roomsMapText(seed));
    std::vector<test::Edge> edges = test::edgesOf(g);
    for (auto& [u, v, c] : edges)
        if (g.positions[3 * size_t(v)] > g.positions[3 * size_t(u)]) c *= 2;
    return test::withEdges(std::move(g), edges);
}

double edgeCost(const graph::Graph& g, uint32_t u, uint32_t v) {
    double best = std::numeric_limits<double>::infinity();
    for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
        if (g.edge_targets[e] == v) best = std::min(best, double(g.edge_costs[e]));
    return best;
}

}  // namespace

TEST_SUITE("graph") {
    TEST_CASE("point-of-interest tables: nearest costs and next hops exact on a directed graph") {
        graph::Graph g = directedRooms(7);
        std::mt19937 random(7);
        std::vector<std::pair<std::string, uint32_t>> targets;
        for (int i = 0; i < 5; ++i)
            targets.push_back({i < 3 ? "health" : "ammo", uint32_t(random() % g.nodeCount())});
        graph::buildPoiTables(g, targets);
        REQUIRE(g.poi_kinds == std::vector<std::string>{"health", "ammo"});
        const size_t n = g.nodeCount();
        uint64_t checked = 0, unreachable = 0;
        for (uint32_t u = 0; u < n; u += 3) {
            const std::vector<double> from = test::shortestFrom(g, u);
            for (size_t k = 0; k < 2; ++k) {
                double best = std::numeric_limits<double>::infinity();
                for (const auto& [kind, node] : targets)
                    if (kind == g.poi_kinds[k]) best = std::min(best, from[node]);
                const float d = g.poi_distances[k * n + u];
                const uint32_t next = g.poi_next[k * n + u];
                if (std::isinf(best)) {
                    CHECK(std::isinf(d));
                    CHECK(next == graph::kNoNode);
                    ++unreachable;
                    continue;
                }
                CHECK(d == doctest::Approx(best).epsilon(1e-5));
                if (best == 0) {
                    CHECK(next == graph::kNoNode);
                } else {
                    REQUIRE(next != graph::kNoNode);
                    // The hop is an edge on a cheapest way.
                    CHECK(edgeCost(g, u, next) + g.poi_distances[k * n + next] ==
                          doctest::Approx(d).epsilon(1e-5));
                }
                ++checked;
            }
        }
        MESSAGE(checked << " node-kind pairs checked, " << unreachable << " unreachable");
        CHECK(checked > 1000);

        // The packed asset: navrt walks the hops to a point of the kind at the table's cost.
        test::TempDir dir;
        test::PackedAsset packed;
        test::packAsset(g, dir / "p.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        const navrt::GraphView& view = packed.view;
        REQUIRE(view.poi_kind_count == 2);
        const uint32_t ammo = navrt::poiKind(view, "ammo", 4);
        CHECK(ammo == 1);
        CHECK(navrt::poiKind(view, "amm", 3) == navrt::kNoNode);
        std::vector<uint32_t> walk(n);
        for (uint32_t u = 0; u < n; u += 11) {
            const uint32_t count = navrt::walkToNearestPoi(view, ammo, u, walk.data(), uint32_t(n));
            if (std::isinf(g.poi_distances[n + u])) {
                CHECK(count == 0);
                continue;
            }
            REQUIRE(count >= 1);
            CHECK(walk[0] == u);
            CHECK(std::any_of(targets.begin() + 3, targets.end(),
                              [&](const auto& t) { return t.second == walk[count - 1]; }));
            double cost = 0;
            for (uint32_t i = 0; i + 1 < count; ++i) cost += edgeCost(g, walk[i], walk[i + 1]);
            CHECK(cost == doctest::Approx(g.poi_distances[n + u]).epsilon(1e-5));
        }

        // Corrupt tables are refused with the byte.
        graph::Graph bad = g;
        uint32_t victim = 0;
        while (bad.poi_next[victim] == graph::kNoNode) ++victim;
        bad.poi_next[victim] = (bad.poi_next[victim] + 17) % uint32_t(n);  // not a neighbour
        REQUIRE(graph::saveGraph(dir / "bad.graph", bad).ok());
        auto refused = graph::loadGraph(dir / "bad.graph");
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find(fmt::format("section 'PHOP'")) != std::string::npos);
        bad = g;
        bad.poi_distances[5] = std::nanf("");
        REQUIRE(graph::saveGraph(dir / "bad.graph", bad).ok());
        refused = graph::loadGraph(dir / "bad.graph");
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("negative or NaN distance") != std::string::npos);
    }

    TEST_CASE("point-of-interest tables from the graph stage: tile, navmesh and Dirichlet") {
        // A floor with a wall across most of it.
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {20, 0, 10});
        b.box({9, 0, 0}, {10, 3, 7});
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "l.vox", test::voxelizeOk(b.g, test::voxelParams())).ok());
        for (const graph::GraphKind kind :
             {graph::GraphKind::tile, graph::GraphKind::navmesh, graph::GraphKind::dirichlet}) {
            INFO(int(kind));
            graph::GraphStage::Params params;
            params.kind = kind;
            params.poi_tables = true;
            params.points = {{"medkit", "health", {{17, 0, 2}}, ""},
                             {"crate", "ammo", {{2, 0, 2}}, ""},
                             {"far", "health", {{2, 0, 9}}, ""}};
            params.waypoints = {{"west", {{3, 0, 5}}, 0, ""}, {"east", {{16, 0, 5}}, 0, ""}};
            Context context;
            auto result = graph::GraphStage::run({dir / "l.vox"}, params, dir / "l.graph", context);
            REQUIRE_MESSAGE(result.ok(), result.error().message);
            CHECK(test::countOf(*result, "poi_kinds") == 2);
            auto g = graph::loadGraph(dir / "l.graph");
            REQUIRE(g.ok());
            REQUIRE(g->poi_kinds == std::vector<std::string>{"health", "ammo"});
            // Every table entry is the minimum over the kind's points of a forward Dijkstra.
            const size_t n = g->nodeCount();
            for (uint32_t u = 0; u < n; u += std::max<uint32_t>(1, uint32_t(n / 50))) {
                const std::vector<double> from = test::shortestFrom(*g, u);
                for (size_t k = 0; k < 2; ++k) {
                    double best = std::numeric_limits<double>::infinity();
                    for (uint32_t v = 0; v < n; ++v)
                        if (g->poi_distances[k * n + v] == 0) best = std::min(best, from[v]);
                    CHECK(g->poi_distances[k * n + u] == doctest::Approx(best).epsilon(1e-5));
                }
            }
            // The query tool's view of it: the nearest health from the west is the far one.
            test::PackedAsset packed;
            test::packAsset(*g, dir / "l.nav", packed, [](formats::ContainerWriter&) {});
            REQUIRE_FALSE(packed.error);
            auto way = query::nearestPoi(packed.view, "health", {3, 0, 8}, {0, 1, 2}, "l.nav");
            REQUIRE_MESSAGE(way.ok(), way.error().message);
            REQUIRE(way->reachable);
            CHECK(way->nodes.back() == navrt::locatePoint(packed.view, {2, 0, 9}, 0.6f, 1).poly);
            auto unknown = query::nearestPoi(packed.view, "keys", {3, 0, 8}, {0, 1, 2}, "l.nav");
            REQUIRE_FALSE(unknown.ok());
            CHECK(unknown.error().message ==
                  "l.nav: no points of interest of kind 'keys' (its "
                  "kinds: health, ammo)");
        }
    }
}
