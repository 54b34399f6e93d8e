// JPS+ in navrt (PathQuery::findPathJumping over a baked jump point table): the cost of A* on
// every query, a path that walks the graph's edges, on grids and around special nodes.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "lib/graph/jump_points.h"
#include "lib/nexthop/nexthop.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_navigator.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"

namespace nav {
namespace {

struct JumpAsset {
    test::PackedAsset packed;
    graph::JumpTable table;
};

// A 61 x 45 octile map with `percent` % of its cells blocked at random.
std::string randomMapText(unsigned seed, int percent) {
    std::mt19937 random(seed);
    std::string text = "type octile\nheight 45\nwidth 61\nmap\n";
    for (int y = 0; y < 45; ++y) {
        for (int x = 0; x < 61; ++x) text += int(random() % 100) < percent ? '@' : '.';
        text += '\n';
    }
    return text;
}

// The rooms map of seed 5 with every edge out of or into column x = 20 three times as dear (its
// nodes and their neighbours are special).
graph::Graph dearerColumnGraph() {
    const graph::Graph base = test::tileGraphOfText(test::roomsMapText(5));
    const uint32_t width = base.header.size_x;
    std::vector<test::Edge> edges = test::edgesOf(base);
    for (auto& [u, v, c] : edges)
        if (base.cells[u].column % width == 20 || base.cells[v].column % width == 20) c *= 3;
    return test::withEdges(base, edges);
}

// `g` packed with its jump point sections, as navrt reads (and checks) them.
void packWithJumps(const graph::Graph& g, const std::filesystem::path& path, JumpAsset& out) {
    auto table = graph::buildJumpTable(g);
    REQUIRE(table.ok());
    out.table = std::move(table).value();
    CHECK(out.table.regular + out.table.special == g.nodeCount());
    test::packAsset(g, path, out.packed,
                    [&](formats::ContainerWriter& w) { graph::addJumpSections(w, out.table); });
    REQUIRE_MESSAGE(!out.packed.error, out.packed.error.message);
    REQUIRE(out.packed.view.jump_entries != nullptr);
}

// `g` packed with its jump point sections and goal bounds (JPSB).
void packWithBounds(const graph::Graph& g, const std::filesystem::path& path, JumpAsset& out) {
    auto table = graph::buildJumpTable(g);
    REQUIRE(table.ok());
    out.table = std::move(table).value();
    Context context;
    auto bounds = nexthop::buildGoalBounds(g, out.table, 0, context);
    REQUIRE(bounds.ok());
    CHECK(bounds->size() == g.nodeCount() * 32);
    test::packAsset(g, path, out.packed, [&](formats::ContainerWriter& w) {
        graph::addJumpSections(w, out.table);
        nexthop::addGoalBoundsSection(w, *bounds);
    });
    REQUIRE_MESSAGE(!out.packed.error, out.packed.error.message);
    REQUIRE(out.packed.view.jump_bounds != nullptr);
}

// `pairs` random queries: JPS+ finds a path exactly when A* does, of its cost, along edges;
// returns the expansions of both (JPS+, A*).
std::pair<uint64_t, uint64_t> compare(const graph::Graph& g, const navrt::GraphView& view,
                                      int pairs, unsigned seed) {
    navrt::PathQuery astar, jumps;
    REQUIRE_FALSE(astar.init(view));
    REQUIRE_FALSE(jumps.init(view));
    std::mt19937 random(seed);
    const uint32_t n = uint32_t(g.nodeCount());
    uint64_t jump_expansions = 0, astar_expansions = 0;
    int found = 0;
    for (int i = 0; i < pairs; ++i) {
        const uint32_t s = random() % n, t = random() % n;
        CAPTURE(s);
        CAPTURE(t);
        const navrt::PathStatus a = astar.findPath(s, t);
        const navrt::PathStatus j = jumps.findPathJumping(s, t);
        REQUIRE(a == j);
        astar_expansions += astar.expansions();
        jump_expansions += jumps.expansions();
        if (a != navrt::PathStatus::found) continue;
        ++found;
        CHECK(jumps.cost() == doctest::Approx(astar.cost()).epsilon(1e-9));
        REQUIRE(jumps.pathLength() >= 1);
        CHECK(jumps.path()[0] == s);
        CHECK(jumps.path()[jumps.pathLength() - 1] == t);
        test::checkWalk(g, jumps.path(), jumps.pathLength(), jumps.cost(), 1e-9);
    }
    CHECK(found > pairs / 3);
    return {jump_expansions, astar_expansions};
}

// Every shared map of at most `max_nodes` nodes packed with its jump point table (and goal
// bounds when `bounds`): JPS+ has A*'s cost on random queries and every scenario's optimum.
// Returns the maps run, or -1 (with a message) when ../shared/data is absent.
int scenariosOptimal(const test::TempDir& dir, size_t max_nodes, bool bounds) {
    const auto data = test::sharedData();
    if (data.empty()) {
        MESSAGE("skipped the shared maps: ../shared/data is absent");
        return -1;
    }
    int maps = 0;
    for (const auto& path : test::movingAiMaps(data)) {
        INFO(path.filename().string());
        const graph::Graph m = test::tileGraphOfFile(path);
        if (m.nodeCount() > max_nodes) continue;
        JumpAsset p;
        if (bounds)
            packWithBounds(m, dir / "m.nav", p);
        else
            packWithJumps(m, dir / "m.nav", p);
        compare(m, p.packed.view, 100, 3);
        Context context;
        auto report = query::runScenarioFile(p.packed.view, path.string() + ".scen", context,
                                             query::SearchMethod(query::Method::jps));
        REQUIRE(report.ok());
        CHECK(report->total > 0);
        CHECK(report->optimal == report->total);
        ++maps;
    }
    return maps;
}

TEST_SUITE("query") {
    TEST_CASE(
        "JPS+ (findPathJumping): A*'s cost on every query of random and room maps, along the "
        "graph's edges, with fewer expansions") {
        test::TempDir dir;
        for (unsigned seed = 1; seed <= 4; ++seed) {
            CAPTURE(seed);
            const graph::Graph g = test::tileGraphOfText(
                seed <= 3 ? randomMapText(seed, seed <= 2 ? 12 * int(seed) : 0)
                          : test::roomsMapText(seed));
            JumpAsset asset;
            packWithJumps(g, dir / "j.nav", asset);
            const auto [jumps, astar] = compare(g, asset.packed.view, 400, seed);
            CHECK(jumps < astar);
        }
    }

    TEST_CASE(
        "JPS+ with goal bounds: A*'s cost on every query (grids, rooms, special nodes, the "
        "shared maps' scenarios) with fewer expansions than without; a bad JPSB is refused") {
        test::TempDir dir;
        uint64_t bounded_total = 0, plain_total = 0;
        for (unsigned seed = 1; seed <= 4; ++seed) {
            CAPTURE(seed);
            const graph::Graph g = test::tileGraphOfText(
                seed <= 2 ? randomMapText(seed, 6 * int(seed)) : test::roomsMapText(seed));
            JumpAsset bounded, plain;
            packWithBounds(g, dir / "b.nav", bounded);
            packWithJumps(g, dir / "j.nav", plain);
            bounded_total += compare(g, bounded.packed.view, 400, seed).first;
            plain_total += compare(g, plain.packed.view, 400, seed).first;
        }
        MESSAGE("JPS+ expansions: ", bounded_total, " with goal bounds, ", plain_total, " without");
        CHECK(bounded_total * 5 < plain_total * 4);  // (den520d: 3.6x fewer)
        // Special nodes (a column of dearer edges): their boxes are full, the rest still prunes.
        const graph::Graph special = dearerColumnGraph();
        JumpAsset s;
        packWithBounds(special, dir / "s.nav", s);
        CHECK(s.table.special > 0);
        compare(special, s.packed.view, 400, 9);
        // A JPSB of the wrong size: the view refuses the asset.
        const graph::Graph base = test::tileGraphOfText(test::roomsMapText(5));
        auto table = graph::buildJumpTable(base);
        REQUIRE(table.ok());
        test::PackedAsset bad;
        test::packAsset(base, dir / "bad.nav", bad, [&](formats::ContainerWriter& w) {
            graph::addJumpSections(w, *table);
            nexthop::addGoalBoundsSection(w, std::vector<uint16_t>(base.nodeCount() * 32 - 4));
        });
        CHECK(bad.error.code == navrt::ErrorCode::bad_section);
        CHECK(std::string(bad.error.message).find("JPSB") != std::string::npos);

        // The shared maps of up to 12,000 nodes (a search per node: the suite's time).
        if (const int maps = scenariosOptimal(dir, 12000, true); maps >= 0) CHECK(maps > 0);
    }

    TEST_CASE(
        "JPS+ around special nodes: dearer edges and a wall of them give A*'s costs; without a "
        "table or with a blocking it is A*") {
        test::TempDir dir;
        const graph::Graph g = dearerColumnGraph();
        JumpAsset asset;
        packWithJumps(g, dir / "s.nav", asset);
        CHECK(asset.table.special > 0);
        compare(g, asset.packed.view, 400, 9);
        // No table: findPathJumping is findPath.
        navrt::GraphView plain = asset.packed.view;
        plain.jump_entries = nullptr;
        navrt::PathQuery a, b;
        REQUIRE_FALSE(a.init(plain));
        REQUIRE_FALSE(b.init(plain));
        CHECK(a.findPathJumping(0, uint32_t(g.nodeCount() - 1)) ==
              b.findPath(0, uint32_t(g.nodeCount() - 1)));
        CHECK(a.expansions() == b.expansions());
        // Out of expansions: the partial path to the best node is filled in too (a walk along
        // edges from the start).
        uint32_t far = uint32_t(g.nodeCount() - 1);  // the last node joined to node 0
        while (g.components[far] != g.components[0]) --far;
        REQUIRE(far > g.nodeCount() / 2);
        int filled = 0;  // budgets whose partial path has more nodes than jump points
        for (uint32_t budget = 2; budget <= 20; ++budget) {
            CAPTURE(budget);
            navrt::PathQuery limited;
            REQUIRE_FALSE(limited.init(asset.packed.view, budget));
            if (limited.findPathJumping(0, far) != navrt::PathStatus::out_of_nodes) continue;
            REQUIRE(limited.finishPartial() == navrt::PathStatus::found);
            CHECK(limited.path()[0] == 0);
            test::checkWalk(g, limited.path(), limited.pathLength(), limited.cost(), 1e-9);
            filled += limited.pathLength() > budget + 1;
        }
        CHECK(filled > 0);
    }

    TEST_CASE(
        "JPS+ from packed sections (JPSH, JPSE): navrt reads the table; every scenario of every "
        "shared MovingAI map optimal by --method jps; a table that does not continue is refused") {
        test::TempDir dir;
        // Sections round trip: the view holds the table pack wrote.
        const graph::Graph g = test::tileGraphOfText(test::roomsMapText(3));
        JumpAsset asset;
        packWithJumps(g, dir / "p.nav", asset);
        const graph::JumpTable* table = &asset.table;
        const test::PackedAsset& packed = asset.packed;
        CHECK(std::equal(table->entries.begin(), table->entries.end(), packed.view.jump_entries));
        CHECK(packed.view.jump_straight_cost == table->straight_cost);
        CHECK_FALSE(navrt::checkMethod(packed.view, navrt::Method::jps));
        // Corrupt but checksummed: a count that does not continue along its line, a node special
        // in one direction only, a wrong regular count.
        size_t counting = 0;  // an entry of at least 2 steps
        while (table->entries[counting] < 2) ++counting;
        for (int kind = 0; kind < 3; ++kind) {
            CAPTURE(kind);
            graph::JumpTable bad = *table;
            if (kind == 0) bad.entries[counting] += 1;
            if (kind == 1) bad.entries[counting] = formats::kJumpSpecial;
            if (kind == 2) bad.regular -= 1;
            test::PackedAsset refused;
            test::packAsset(g, dir / "bad.nav", refused,
                            [&](formats::ContainerWriter& w) { graph::addJumpSections(w, bad); });
            REQUIRE(refused.error);
            CHECK(std::string(refused.error.message).find(kind == 2 ? "JPSH" : "JPSE") !=
                  std::string::npos);
        }
        // Without the sections the method is refused with what is missing.
        test::PackedAsset plain;
        test::packAsset(g, dir / "q.nav", plain, [](formats::ContainerWriter&) {});
        const navrt::Error missing = navrt::checkMethod(plain.view, navrt::Method::jps);
        CHECK(missing.code == navrt::ErrorCode::missing_section);

        if (const int maps = scenariosOptimal(dir, 40000, false); maps >= 0) CHECK(maps > 0);
    }
}

}  // namespace
}  // namespace nav
