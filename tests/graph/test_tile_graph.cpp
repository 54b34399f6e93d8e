#include <doctest/doctest.h>

#include <cmath>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

graph::Graph gridGraph(const char* rows, uint32_t width, uint32_t height) {
    const std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " +
                             std::to_string(width) + "\nmap\n" + rows;
    auto map = importer::parseMovingAiMap(text, "t.map");
    REQUIRE(map.ok());
    Context context;
    auto g = graph::buildTileGraph(importer::gridFromMap(*map), context);
    REQUIRE(g.ok());
    return std::move(g).value();
}

// Cost of the edge from node a to node b, or -1.
double edgeCost(const graph::Graph& g, uint32_t a, uint32_t b) {
    for (uint32_t e = g.edge_offsets[a]; e < g.edge_offsets[a + 1]; ++e)
        if (g.edge_targets[e] == b) return g.edge_costs[e];
    return -1;
}

}  // namespace

TEST_SUITE("graph") {
    TEST_CASE("tile graph on a MovingAI grid: costs 1 and sqrt 2, no corner cutting") {
        // . . .
        // . @ .
        // . . .
        const graph::Graph g = gridGraph("...\n.@.\n...\n", 3, 3);
        REQUIRE(g.nodeCount() == 8);
        // Node ids follow columns z-major: (0,0)=0 (1,0)=1 (2,0)=2 (0,1)=3 (2,1)=4 (0,2)=5 ...
        CHECK(edgeCost(g, 0, 1) == 1.0f);
        CHECK(edgeCost(g, 0, 3) == 1.0f);
        // (0,0) -> (1,1) is blocked; (1,0) -> (0,1) would cut the blocked corner.
        CHECK(edgeCost(g, 1, 3) < 0);
        CHECK(edgeCost(g, 1, 4) < 0);
        // Full open grid: diagonals cost sqrt 2 exactly as a float.
        const graph::Graph open = gridGraph("..\n..\n", 2, 2);
        CHECK(edgeCost(open, 0, 3) == float(std::sqrt(2.0)));
        CHECK(open.edgeCount() == 12);  // 4 nodes x 3 neighbours
        CHECK(open.header.component_count == 1);
        // Edges are symmetric.
        for (uint32_t a = 0; a < g.nodeCount(); ++a)
            for (uint32_t e = g.edge_offsets[a]; e < g.edge_offsets[a + 1]; ++e)
                CHECK(edgeCost(g, g.edge_targets[e], a) == g.edge_costs[e]);
    }

    TEST_CASE("tile graph components") {
        const graph::Graph g = gridGraph("..@..\n..@..\n", 5, 2);
        CHECK(g.header.component_count == 2);
        CHECK(g.header.largest_component == 4);
        CHECK(g.components[0] == 0);
        CHECK(g.components[g.nodeCount() - 1] == 1);
    }

    TEST_CASE("tile graph on a multi-floor grid: climb, clearance and layers") {
        // 3 x 1 columns, cell height 0.2, climb 0.9 (4 cells), agent height 2.0 (10 cells).
        voxel::VoxelGrid grid;
        grid.size_x = 3;
        grid.size_z = 1;
        grid.size_y = 60;
        grid.cell_size = 0.3f;
        grid.cell_height = 0.2f;
        // Column 0: floor at 5. Column 1: floor at 9 (step 4 = 0.8 m <= climb) and a slab 20..22.
        // Column 2: floor at 15 (step 6 from column 1: too high), and a top floor at 22... via
        // slab.
        grid.column_offsets = {0, 1, 3, 4};
        grid.spans = {{0, 5, 1, true}, {0, 9, 1, true}, {20, 22, 1, true}, {0, 15, 1, true}};
        Context context;
        auto g = graph::buildTileGraph(grid, context);
        REQUIRE(g.ok());
        REQUIRE(g->nodeCount() == 4);
        // Node 0 (col 0, top 5) <-> node 1 (col 1, top 9): step 0.8 m, clearance to slab at 20: 11
        // cells.
        CHECK(edgeCost(*g, 0, 1) == doctest::Approx(std::sqrt(0.3 * 0.3 + 0.8 * 0.8)));
        // Node 1 -> node 3 (col 2, top 15): step 1.2 m > climb.
        CHECK(edgeCost(*g, 1, 3) < 0);
        // Node 2 (slab top 22, col 1) -> node 3 (top 15): drop 1.4 m > climb.
        CHECK(edgeCost(*g, 2, 3) < 0);
        CHECK(g->header.component_count == 3);

        // Lower the slab so the gap above node 1 is 9 cells (< agent height): no edge 0 -> 1.
        grid.spans[2] = {18, 22, 1, true};
        auto low = graph::buildTileGraph(grid, context);
        REQUIRE(low.ok());
        CHECK(edgeCost(*low, 0, 1) < 0);
    }

    TEST_CASE("area cost multipliers scale edge costs") {
        voxel::VoxelGrid grid;
        grid.size_x = 2;
        grid.size_z = 1;
        grid.size_y = 4;
        grid.cell_size = 1.0f;
        grid.cell_height = 1.0f;
        grid.areas.push_back({"water", 3.0f, true});
        grid.column_offsets = {0, 1, 2};
        grid.spans = {{0, 1, 1, true}, {0, 1, 2, true}};
        Context context;
        auto g = graph::buildTileGraph(grid, context);
        REQUIRE(g.ok());
        CHECK(edgeCost(*g, 0, 1) == doctest::Approx(2.0));  // mean of 1 and 3 over 1 m
        CHECK(g->header.min_cost_multiplier == 1.0f);
    }

    TEST_CASE("graph save/load round trip and deterministic bytes") {
        test::TempDir dir;
        const graph::Graph g = gridGraph("....\n.@@.\n....\n", 4, 3);
        REQUIRE(graph::saveGraph(dir / "a.graph", g).ok());
        REQUIRE(graph::saveGraph(dir / "b.graph", g).ok());
        CHECK(test::readBytes(dir / "a.graph") == test::readBytes(dir / "b.graph"));
        auto loaded = graph::loadGraph(dir / "a.graph");
        REQUIRE(loaded.ok());
        CHECK(loaded->positions == g.positions);
        CHECK(loaded->edge_offsets == g.edge_offsets);
        CHECK(loaded->edge_targets == g.edge_targets);
        CHECK(loaded->edge_costs == g.edge_costs);
        CHECK(loaded->components == g.components);
        CHECK(loaded->column_nodes == g.column_nodes);
        // A .vox is not a graph.
        auto map = importer::parseMovingAiMap("type octile\nheight 1\nwidth 1\nmap\n.\n", "m");
        REQUIRE(map.ok());
        REQUIRE(voxel::saveVoxels(dir / "m.vox", importer::gridFromMap(*map)).ok());
        auto wrong = graph::loadGraph(dir / "m.vox");
        REQUIRE_FALSE(wrong.ok());
        CHECK(wrong.error().message.find("kind 'VOXL', expected 'GRPH'") != std::string::npos);
    }
}
