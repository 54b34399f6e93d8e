// Dirichlet domains (issue 14): cells and connections against a brute-force weighted Voronoi
// diagram on the grid (one Dijkstra per waypoint), waypoint errors, the .graph round trip and
// runtime queries on the packed asset.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct Level {
    voxel::VoxelGrid grid;
    graph::Graph tile;
};

Level levelOf(const std::string& text) {
    auto map = importer::parseMovingAiMap(text, "d.map");
    REQUIRE(map.ok());
    Level l;
    l.grid = importer::gridFromMap(*map);
    Context context;
    auto tile = graph::buildTileGraph(l.grid, context);
    REQUIRE(tile.ok());
    l.tile = std::move(tile).value();
    return l;
}

graph::Waypoint waypoint(const std::string& name, float x, float z, float weight = 0) {
    return {name, {x + 0.5f, 0, z + 0.5f}, weight, ""};
}

// Brute force: every cell's owner value min_i (d_i - w_i) over full Dijkstras.
void checkAgainstBruteForce(const Level& l, const std::vector<graph::Waypoint>& waypoints) {
    Context context;
    graph::DirichletReport report;
    auto built = graph::buildDirichletGraph(l.tile, l.grid, waypoints, context, &report);
    REQUIRE_MESSAGE(built.ok(), built.error().message);
    const graph::Graph& d = *built;
    REQUIRE(d.nodeCount() == waypoints.size());
    std::vector<std::vector<double>> dist;
    for (uint32_t source : report.nodes_of_waypoints)
        dist.push_back(test::shortestFrom(l.tile, source));
    // Owner per tile node, read back from the domain cells (column and floor height).
    std::vector<uint32_t> owner(l.tile.nodeCount(), graph::kNoNode);
    REQUIRE(d.layer_cells.size() == d.domain_owners.size());
    for (size_t c = 0; c < d.layer_cells.size(); ++c) {
        const formats::NodeCell& cell = d.layer_cells[c];
        for (uint32_t n = l.tile.column_nodes[cell.column];
             n < l.tile.column_nodes[cell.column + 1]; ++n)
            if (l.tile.cells[n].y == cell.y) owner[n] = d.domain_owners[c];
    }
    uint64_t unreached = 0;
    for (uint32_t n = 0; n < l.tile.nodeCount(); ++n) {
        double best = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < waypoints.size(); ++i)
            best = std::min(best, dist[i][n] - waypoints[i].weight);
        if (!std::isfinite(best)) {
            CHECK(owner[n] == graph::kNoNode);
            ++unreached;
            continue;
        }
        REQUIRE(owner[n] != graph::kNoNode);
        // The owner is a nearest waypoint (exact ties may go either way in floating point).
        CHECK(dist[owner[n]][n] - waypoints[owner[n]].weight <= best + 1e-9);
    }
    CHECK(report.unassigned_cells == unreached);
    // Connections: exactly the pairs of domains a tile edge joins.
    std::set<std::pair<uint32_t, uint32_t>> expected, got;
    for (uint32_t u = 0; u < l.tile.nodeCount(); ++u)
        for (uint32_t e = l.tile.edge_offsets[u]; e < l.tile.edge_offsets[u + 1]; ++e) {
            const uint32_t v = l.tile.edge_targets[e];
            if (owner[u] != graph::kNoNode && owner[v] != graph::kNoNode && owner[u] != owner[v])
                expected.insert({owner[u], owner[v]});
        }
    for (uint32_t a = 0; a < d.nodeCount(); ++a)
        for (uint32_t e = d.edge_offsets[a]; e < d.edge_offsets[a + 1]; ++e) {
            got.insert({a, d.edge_targets[e]});
            // A real walk between the two waypoints: never below the shortest one.
            CHECK(d.edge_costs[e] >= dist[a][report.nodes_of_waypoints[d.edge_targets[e]]] - 1e-4);
        }
    CHECK(got == expected);
}

}  // namespace

TEST_SUITE("graph") {
    TEST_CASE("Dirichlet domains equal a brute-force weighted Voronoi diagram on the grid") {
        // Two rooms joined by a door, and a closed pocket no waypoint reaches.
        const std::string text =
            "type octile\nheight 8\nwidth 16\nmap\n"
            "................\n"
            "......@.........\n"
            "......@.........\n"
            "..............@@\n"
            "......@.......@.\n"
            "......@.......@.\n"
            "......@.......@@\n"
            "......@.........\n";
        const Level l = levelOf(text);
        checkAgainstBruteForce(l, {waypoint("west", 1, 1), waypoint("east", 12, 6)});
        checkAgainstBruteForce(l, {waypoint("west", 1, 1), waypoint("east", 12, 6, 4),
                                   waypoint("door", 7, 0), waypoint("corner", 3, 7, 1.5f)});
        // Straight-line Voronoi would give the cells east of the wall near "west" to it; walking
        // distance gives them to "east".
        Context context;
        // Cell (7, 6), east of the wall, is 2 m from "west" in a straight line and 4.5 m from
        // "east", but walking "west" must go round through the gap in row 3.
        auto d = graph::buildDirichletGraph(
            l.tile, l.grid, {waypoint("west", 5, 6), waypoint("east", 11, 4)}, context);
        REQUIRE(d.ok());
        bool seen = false;
        for (size_t c = 0; c < d->layer_cells.size(); ++c)
            if (d->layer_cells[c].column == 6 * 16 + 7) {
                CHECK(d->domain_owners[c] == 1);
                seen = true;
            }
        CHECK(seen);
        // A generated level: random rooms and six random waypoints, with weights.
        for (unsigned seed = 1; seed <= 3; ++seed) {
            const Level r = levelOf(test::roomsMapText(seed));
            std::mt19937 random(seed);
            std::vector<graph::Waypoint> points;
            std::set<uint32_t> used;
            while (points.size() < 6) {
                const uint32_t n = uint32_t(random() % r.tile.nodeCount());
                if (!used.insert(n).second) continue;
                const uint32_t column = r.tile.cells[n].column;
                points.push_back(
                    waypoint("w" + std::to_string(points.size()), float(column % r.grid.size_x),
                             float(column / r.grid.size_x), float(random() % 3) * 1.5f));
            }
            INFO("seed " << seed);
            checkAgainstBruteForce(r, points);
        }
    }

    TEST_CASE("Dirichlet domains: waypoints in walls or on one cell are errors naming them") {
        const Level l = levelOf(
            "type octile\nheight 9\nwidth 4\nmap\n....\n@@@@\n@@@@\n@@@@\n@@@@\n@@@@\n@@@@\n"
            "@@@@\n....\n");
        Context context;
        // Deep in the wall: an error. Just inside it: moved to the cell beside, with a warning.
        auto wall = graph::buildDirichletGraph(
            l.tile, l.grid,
            {waypoint("a", 0, 0), {"b", {1.5f, 0, 4.5f}, 0, "w.json: $.waypoints[1]"}}, context);
        REQUIRE_FALSE(wall.ok());
        CHECK(wall.error().message ==
              "w.json: $.waypoints[1]: waypoint 'b' at (1.5, 0, 4.5) is not on this agent's "
              "walkable surface (in a wall, or off the level) (the nearest is 4.00 m away)");
        graph::DirichletReport report;
        auto moved = graph::buildDirichletGraph(
            l.tile, l.grid,
            {waypoint("a", 0, 0), {"b", {1.5f, 0, 1.5f}, 0, "w.json: $.waypoints[1]"}}, context,
            &report);
        REQUIRE_MESSAGE(moved.ok(), moved.error().message);
        REQUIRE(report.moved.size() == 1);
        CHECK(report.moved[0] ==
              "w.json: $.waypoints[1]: waypoint 'b' at (1.5, 0, 1.5) is not over a walkable cell "
              "(in a wall, or in the agent's margin beside one): moved 1.00 m to the nearest one");
        auto twice = graph::buildDirichletGraph(
            l.tile, l.grid, {waypoint("a", 0, 0), {"b", {0.7f, 0, 0.2f}, 0, ""}}, context);
        REQUIRE_FALSE(twice.ok());
        CHECK(twice.error().message.find("waypoint 'b' at (0.7, 0, 0.2) stands on the cell of "
                                         "waypoint 'a'") != std::string::npos);
        auto none = graph::buildDirichletGraph(l.tile, l.grid, {}, context);
        CHECK_FALSE(none.ok());
    }

    TEST_CASE("Dirichlet graphs: graph stage, .graph round trip, navrt locates domains and paths") {
        const std::string text =
            "type octile\nheight 4\nwidth 12\nmap\n"
            "............\n"
            ".....@......\n"
            ".....@......\n"
            "............\n";
        auto map = importer::parseMovingAiMap(text, "r.map");
        REQUIRE(map.ok());
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "r.vox", importer::gridFromMap(*map)).ok());
        graph::GraphStage::Params params;
        params.kind = graph::GraphKind::dirichlet;
        params.waypoints = {waypoint("a", 1, 1), waypoint("b", 10, 2), waypoint("c", 5, 0)};
        Context context;
        auto result = graph::GraphStage::run({dir / "r.vox"}, params, dir / "r.graph", context);
        REQUIRE_MESSAGE(result.ok(), result.error().message);
        CHECK(test::countOf(*result, "nodes") == 3);
        CHECK(test::countOf(*result, "domain_cells") == 46);
        CHECK(test::countOf(*result, "cells_outside_domains") == 0);
        auto loaded = graph::loadGraph(dir / "r.graph");
        REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
        CHECK(loaded->header.type == formats::GraphType::dirichlet);
        CHECK(loaded->domain_owners.size() == 46);

        test::PackedAsset packed;
        test::packAsset(*loaded, dir / "r.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        const navrt::GraphView& g = packed.view;
        REQUIRE(g.isDirichlet());
        // Every cell locates to its owner.
        for (size_t c = 0; c < loaded->layer_cells.size(); ++c) {
            const uint32_t column = loaded->layer_cells[c].column;
            const navrt::Vec3 p{float(column % 12) + 0.5f, 0, float(column / 12) + 0.5f};
            CHECK(navrt::locate(g, p, 0, 1) == loaded->domain_owners[c]);
        }
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(g));
        CHECK(query.findPath(0, 1) == navrt::PathStatus::found);
        // A path is a walk from waypoint to waypoint; its cost is the graph's shortest.
        const std::vector<double> exact = test::shortestFrom(*loaded, 0);
        CHECK(query.cost() == doctest::Approx(exact[1]));
        navrt::Vec3 points[8];
        const uint32_t count = query.smooth(points, 8);
        REQUIRE(count == query.pathLength());
        CHECK(points[0].x == doctest::Approx(1.5f));

        // A corrupt owner is refused with its byte offset.
        graph::Graph bad = *loaded;
        bad.domain_owners[3] = 7;
        REQUIRE(graph::saveGraph(dir / "bad.graph", bad).ok());
        auto refused = graph::loadGraph(dir / "bad.graph");
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("section 'DOWN'") != std::string::npos);
        CHECK(refused.error().message.find("owner node out of range") != std::string::npos);
    }
}
