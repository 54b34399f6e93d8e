// Jump point tables (JPS+) of tile graphs: every entry against the definition worked out on the
// map's cells, and the special nodes around what is not a uniform grid.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>

#include "lib/graph/jump_points.h"
#include "tests/graph_test_support.h"

namespace nav {
namespace {

namespace f = formats;

// The definition on a grid of free cells (no corner cutting), independent of the graph's edges:
// the entry for cell (x, z) and direction d.
struct CellOracle {
    std::set<std::pair<int, int>> free;
    bool open(int x, int z) const { return free.count({x, z}) > 0; }
    bool canStep(int x, int z, int d) const {
        const int dx = f::jumpDx(d), dz = f::jumpDz(d);
        if (!open(x + dx, z + dz)) return false;
        return !f::jumpIsDiagonal(d) || (open(x + dx, z) && open(x, z + dz));
    }
    bool forced(int px, int pz, int d) const {  // the step from (px, pz) along straight d
        const int x = px + f::jumpDx(d), z = pz + f::jumpDz(d);
        for (int c : {(d + 1) % 4, (d + 3) % 4})
            if (!canStep(px, pz, c) && canStep(x, z, c)) return true;
        return false;
    }
    int entry(int x, int z, int d) const {
        for (int k = 0;; ++k) {
            if (!canStep(x, z, d)) return -k;
            const int nx = x + f::jumpDx(d), nz = z + f::jumpDz(d);
            if (f::jumpIsDiagonal(d)) {
                if (entry(nx, nz, f::jumpFirstCardinal(d)) > 0 ||
                    entry(nx, nz, f::jumpSecondCardinal(d)) > 0)
                    return k + 1;
            } else if (forced(x, z, d)) {
                return k + 1;
            }
            x = nx;
            z = nz;
        }
    }
};

std::string randomMapText(unsigned seed, int width, int height, int wall_percent) {
    std::mt19937 random(seed);
    std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " +
                       std::to_string(width) + "\nmap\n";
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) text += int(random() % 100) < wall_percent ? '@' : '.';
        text += '\n';
    }
    return text;
}

TEST_SUITE("graph") {
    TEST_CASE(
        "jump point table: on MovingAI grids every node is regular and every entry is the "
        "definition's (jump points, walls, diagonals stopping where a straight jump finds one)") {
        for (unsigned seed = 1; seed <= 6; ++seed) {
            CAPTURE(seed);
            const std::string text =
                seed <= 3 ? randomMapText(seed, 37, 29, 10 * int(seed)) : test::roomsMapText(seed);
            const graph::Graph g = test::tileGraphOfText(text);
            auto table = graph::buildJumpTable(g);
            REQUIRE(table.ok());
            const size_t n = g.nodeCount();
            REQUIRE(n > 100);
            CHECK(table->regular == n);
            CHECK(table->special == 0);
            CHECK(table->straight_cost > 0);
            CHECK(table->diagonal_cost == doctest::Approx(table->straight_cost * std::sqrt(2.0)));
            CellOracle oracle;
            const uint32_t width = g.header.size_x;
            for (uint32_t v = 0; v < n; ++v)
                oracle.free.insert(
                    {int(g.cells[v].column % width), int(g.cells[v].column / width)});
            size_t mismatches = 0, jumps = 0, walls = 0;
            for (uint32_t v = 0; v < n; ++v)
                for (int d = 0; d < f::kJumpDirections; ++d) {
                    const int want = oracle.entry(int(g.cells[v].column % width),
                                                  int(g.cells[v].column / width), d);
                    const int got = table->entries[8 * size_t(v) + size_t(d)];
                    mismatches += got != want;
                    (want > 0 ? jumps : walls) += 1;
                }
            CHECK(mismatches == 0);
            CHECK(jumps > n / 4);  // both kinds are common: the test sees each
            CHECK(walls > n);
        }
    }

    TEST_CASE("jump point table: on every shared MovingAI map every node is regular") {
        const auto data = test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        for (const auto& path : test::movingAiMaps(data)) {
            INFO(path.filename().string());
            const graph::Graph g = test::tileGraphOfFile(path);
            auto table = graph::buildJumpTable(g);
            REQUIRE(table.ok());
            CHECK(table->regular == g.nodeCount());
            CHECK(table->special == 0);
        }
    }

    TEST_CASE(
        "jump point table: a dearer edge and a link make their nodes irregular; they and their "
        "neighbours are special, and jumps stop on reaching them") {
        const graph::Graph base = test::tileGraphOfText(randomMapText(11, 30, 20, 0));
        const uint32_t width = base.header.size_x;
        auto nodeAt = [&](const graph::Graph& g, uint32_t x, uint32_t z) {
            for (uint32_t v = 0; v < g.nodeCount(); ++v)
                if (g.cells[v].column == z * width + x) return v;
            return graph::kNoNode;
        };
        // The edge between (10, 5) and (11, 5) costs twice as much, both ways.
        const uint32_t a = nodeAt(base, 10, 5), b = nodeAt(base, 11, 5);
        REQUIRE(a != graph::kNoNode);
        std::vector<test::Edge> edges = test::edgesOf(base);
        for (auto& [u, v, c] : edges)
            if ((u == a && v == b) || (u == b && v == a)) c *= 2;
        const graph::Graph g = test::withEdges(base, edges);
        auto table = graph::buildJumpTable(g);
        REQUIRE(table.ok());
        CHECK(table->regular == g.nodeCount() - 12);
        // a and b, and the nodes around them: (9..12) x (4..6).
        CHECK(table->special == 12);
        for (uint32_t x = 9; x <= 12; ++x)
            for (uint32_t z = 4; z <= 6; ++z)
                CHECK(table->entries[8 * size_t(nodeAt(g, x, z))] == f::kJumpSpecial);
        // Along row 5 towards +X from (0, 5): the jump stops at (9, 5), 9 steps away; from
        // (20, 5) towards -X at (12, 5), 8 steps away; row 10 has no jump point: a wall after 29.
        CHECK(table->entries[8 * size_t(nodeAt(g, 0, 5)) + 0] == 9);
        CHECK(table->entries[8 * size_t(nodeAt(g, 20, 5)) + 2] == 8);
        CHECK(table->entries[8 * size_t(nodeAt(g, 0, 10)) + 0] == -29);
        // An edge that stands for a link (here the +X step of (20, 15)): its node is irregular.
        graph::Graph linked = g;
        const uint32_t c = nodeAt(linked, 20, 15), d = nodeAt(linked, 21, 15);
        linked.edge_links.assign(linked.edgeCount(), f::kNoLink);
        for (uint32_t e = linked.edge_offsets[c]; e < linked.edge_offsets[c + 1]; ++e)
            if (linked.edge_targets[e] == d) linked.edge_links[e] = 0;
        auto with_link = graph::buildJumpTable(linked);
        REQUIRE(with_link.ok());
        CHECK(with_link->regular == g.nodeCount() - 21);
        CHECK(with_link->special == 12 + 9);
        CHECK(with_link->entries[8 * size_t(nodeAt(linked, 0, 15)) + 0] == 19);
        // Not a tile graph: refused.
        graph::Graph other = g;
        other.header.type = f::GraphType::volume;
        CHECK_FALSE(graph::buildJumpTable(other).ok());
    }
}

}  // namespace
}  // namespace nav
