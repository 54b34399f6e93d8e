// Hierarchical graphs and hierarchical pathfinding (Millington, "AI for Games", 4.6; HPA*): the
// levels nest and are connected, the connection costs are ordered min <= avgmin <= maximin, the
// output does not depend on the thread count, every planner returns valid paths whose cost is
// the sum of their edges, the exact entrance variant returns shortest paths on every shared
// MovingAI scenario, and mismatched or corrupted artifacts fail clearly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <random>

#include "formats/bytes.h"
#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_hier.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A 96 x 96 map of rooms: walls every 12 cells with doorways of varying width, plus pillars.
graph::Graph roomsGraph() {
    const int size = 96;
    std::string text = "type octile\nheight 96\nwidth 96\nmap\n";
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            bool wall = (x % 12 == 11 && (y % 12) > 1 + (x / 12) % 3) ||
                        (y % 12 == 11 && (x % 12) > 2 + (y / 12) % 4) ||
                        ((x * 7 + y * 13) % 37 == 0 && x % 12 != 0 && y % 12 != 0);
            text += wall ? '@' : '.';
        }
        text += '\n';
    }
    auto map = importer::parseMovingAiMap(text, "rooms.map");
    REQUIRE(map.ok());
    return test::tileGraphOf(*map, "rooms.map");
}

struct Built {
    cluster::Clusters clusters;
    cluster::Hierarchy hierarchy;
};
Built build(const graph::Graph& g, uint32_t cluster_size, formats::EntranceMode entrances,
            int threads = 0, cluster::HierarchyParams hp = {}) {
    Context context;
    cluster::ClusterParams cp;
    cp.cluster_size = cluster_size;
    cp.threads = threads;
    auto c = cluster::buildClusters(g, cp, context);
    REQUIRE(c.ok());
    hp.entrances = entrances;
    hp.threads = threads;
    auto h = cluster::buildHierarchy(g, *c, hp, context);
    REQUIRE(h.ok());
    return {std::move(c).value(), std::move(h).value()};
}

using Packed = test::PackedAsset;
// A .nav of `g` with the cluster sections of `c` and the hierarchy `h` (none when null).
void pack(const graph::Graph& g, const cluster::Clusters& c, const cluster::Hierarchy* h,
          const std::filesystem::path& path, Packed& out) {
    test::packAsset(g, path, out, [&](formats::ContainerWriter& writer) {
        cluster::addClusterSections(writer, c);
        if (h != nullptr) cluster::addHierarchySections(writer, *h);
    });
}

// `count` random (start, goal) pairs of one component each.
std::vector<std::pair<uint32_t, uint32_t>> connectedPairs(const graph::Graph& g, size_t count,
                                                          unsigned seed) {
    std::mt19937 random(seed);
    const uint32_t n = uint32_t(g.nodeCount());
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    while (pairs.size() < count) {
        const uint32_t a = random() % n, b = random() % n;
        if (g.components[a] == g.components[b]) pairs.push_back({a, b});
    }
    return pairs;
}

// The path is a walk along graph edges from `start` whose edge costs add up to cost().
void checkWalk(const graph::Graph& g, const navrt::HierarchicalQuery& q, uint32_t start) {
    REQUIRE(q.pathLength() >= 1);
    CHECK(q.path()[0] == start);
    test::checkWalk(g, q.path(), q.pathLength(), q.cost(), 1e-9);
}

}  // namespace

TEST_SUITE("hierarchy") {
    TEST_CASE(
        "levels nest, groups are connected, costs are ordered, output independent of threads") {
        const graph::Graph g = roomsGraph();
        Built b = build(g, 8, formats::EntranceMode::sparse, 1);
        const cluster::Hierarchy& h = b.hierarchy;
        const uint32_t levels = h.levelCount();
        REQUIRE(levels >= 2);
        CHECK(h.group_counts[0] == b.clusters.count());
        CHECK(h.group_counts.back() < cluster::kTopGroups);
        for (uint32_t l = 1; l < levels; ++l) CHECK(h.group_counts[l] < h.group_counts[l - 1]);
        // Group of every node at every level through the parents; each group connected through its
        // own nodes; the representative inside its group; an abstract edge exactly where a graph
        // edge crosses between groups.
        const size_t n = g.nodeCount();
        std::vector<uint32_t> group(b.clusters.node_clusters);
        for (uint32_t l = 1; l <= levels; ++l) {
            INFO("level ", l);
            const uint32_t first = h.levelStart(l), count = h.group_counts[l - 1];
            std::vector<uint32_t> size(count, 0), reached(count, 0);
            for (size_t v = 0; v < n; ++v) ++size[group[v]];
            for (uint32_t k = 0; k < count; ++k) {
                CHECK(size[k] > 0);
                CHECK(group[h.representatives[first + k]] == k);
            }
            std::vector<uint8_t> seen(n, 0), started(count, 0);
            std::vector<std::pair<uint32_t, uint32_t>> crossings;
            for (uint32_t s = 0; s < n; ++s) {
                for (uint32_t e = g.edge_offsets[s]; e < g.edge_offsets[s + 1]; ++e)
                    if (group[g.edge_targets[e]] != group[s])
                        crossings.push_back({first + group[s], first + group[g.edge_targets[e]]});
                if (started[group[s]]) continue;
                started[group[s]] = 1;
                std::vector<uint32_t> stack{s};
                seen[s] = 1;
                while (!stack.empty()) {
                    const uint32_t u = stack.back();
                    stack.pop_back();
                    ++reached[group[s]];
                    for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                        const uint32_t w = g.edge_targets[e];
                        if (!seen[w] && group[w] == group[s]) {
                            seen[w] = 1;
                            stack.push_back(w);
                        }
                    }
                }
            }
            CHECK(reached == size);
            std::sort(crossings.begin(), crossings.end());
            crossings.erase(std::unique(crossings.begin(), crossings.end()), crossings.end());
            std::vector<std::pair<uint32_t, uint32_t>> edges;
            for (uint32_t k = first; k < first + count; ++k)
                for (uint32_t e = h.edge_offsets[k]; e < h.edge_offsets[k + 1]; ++e) {
                    edges.push_back({k, h.edge_targets[e]});
                    const float* c = &h.edge_costs[3 * size_t(e)];
                    CHECK(c[0] > 0);
                    CHECK(c[0] <= c[2] + 1e-4f);  // min <= avgmin <= maximin
                    CHECK(c[2] <= c[1] + 1e-4f);
                }
            CHECK(edges == crossings);
            if (l < levels)
                for (size_t v = 0; v < n; ++v)
                    group[v] = h.parents[first + group[v]] - h.levelStart(l + 1);
        }
        // Same result with 2 threads, and through a save / load round trip.
        Built again = build(g, 8, formats::EntranceMode::sparse, 2);
        CHECK(again.hierarchy.parents == h.parents);
        CHECK(again.hierarchy.edge_costs == h.edge_costs);
        CHECK(again.hierarchy.entrance_edge_targets == h.entrance_edge_targets);
        CHECK(again.hierarchy.entrance_edge_costs == h.entrance_edge_costs);
        test::TempDir dir;
        REQUIRE(cluster::saveHierarchy(dir / "a.hier", h).ok());
        REQUIRE(cluster::saveHierarchy(dir / "b.hier", again.hierarchy).ok());
        CHECK(test::readBytes(dir / "a.hier") == test::readBytes(dir / "b.hier"));
        auto loaded = cluster::loadHierarchy(dir / "a.hier", b.clusters, dir / "a.clu");
        REQUIRE(loaded.ok());
        CHECK(loaded->representatives == h.representatives);
        CHECK(loaded->entrances == h.entrances);
        CHECK(loaded->edge_costs == h.edge_costs);
    }

    TEST_CASE(
        "every planner returns valid paths; the exact entrance variant returns shortest ones") {
        const graph::Graph g = roomsGraph();
        test::TempDir dir;
        Built sparse = build(g, 8, formats::EntranceMode::sparse);
        Built all = build(g, 8, formats::EntranceMode::all);
        Packed ps, pa;
        pack(g, sparse.clusters, &sparse.hierarchy, dir / "s.nav", ps);
        pack(g, all.clusters, &all.hierarchy, dir / "a.nav", pa);
        REQUIRE_FALSE(ps.error);
        REQUIRE_FALSE(pa.error);
        navrt::HierarchicalQuery qs, qa;
        REQUIRE_FALSE(qs.init(ps.view));
        REQUIRE_FALSE(qa.init(pa.view));
        std::mt19937 random(7);
        std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
        int compared = 0;
        double worst_groups = 0;
        for (int trial = 0; trial < 60; ++trial) {
            const uint32_t start = pick(random), goal = pick(random);
            const std::vector<double> dist = test::shortestFrom(g, start);
            INFO("start ", start, " goal ", goal);
            if (!std::isfinite(dist[goal])) {
                CHECK(qs.findPath(start, goal) == navrt::PathStatus::no_path);
                continue;
            }
            ++compared;
            navrt::HierOptions options;
            options.mode = navrt::HierMode::entrances;
            REQUIRE(qa.findPath(start, goal, options) == navrt::PathStatus::found);
            checkWalk(g, qa, start);
            CHECK(qa.complete());
            CHECK(qa.path()[qa.pathLength() - 1] == goal);
            CHECK(qa.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
            REQUIRE(qs.findPath(start, goal, options) == navrt::PathStatus::found);
            checkWalk(g, qs, start);
            CHECK(qs.cost() >= dist[goal] - 1e-4);
            for (uint8_t cost = 0; cost < formats::kHierCostCount; ++cost)
                for (bool exclusions : {true, false}) {
                    INFO("cost ", int(cost), " exclusions ", exclusions);
                    navrt::HierOptions o;
                    o.mode = navrt::HierMode::groups;
                    o.cost = cost;
                    o.exclusions = exclusions;
                    REQUIRE(qs.findPath(start, goal, o) == navrt::PathStatus::found);
                    checkWalk(g, qs, start);
                    CHECK(qs.complete());
                    CHECK(qs.path()[qs.pathLength() - 1] == goal);
                    CHECK(qs.cost() >= dist[goal] - 1e-4);
                    worst_groups = std::max(worst_groups, qs.cost() / std::max(dist[goal], 1e-9));
                    const std::vector<uint32_t> full(qs.path(), qs.path() + qs.pathLength());
                    // The first leg is where the full path starts, and ends in another cluster
                    // (or at the goal).
                    o.first_leg = true;
                    REQUIRE(qs.findPath(start, goal, o) == navrt::PathStatus::found);
                    checkWalk(g, qs, start);
                    const uint32_t end = qs.path()[qs.pathLength() - 1];
                    CHECK((end == goal) == qs.complete());
                    if (!qs.complete()) {
                        CHECK(sparse.clusters.node_clusters[end] !=
                              sparse.clusters.node_clusters[start]);
                        REQUIRE(qs.pathLength() <= full.size());
                        CHECK(std::equal(qs.path(), qs.path() + qs.pathLength(), full.begin()));
                    }
                }
        }
        CHECK(compared > 40);
        MESSAGE("worst groups-planner cost / optimum on the rooms map: ", worst_groups);
    }

    TEST_CASE("bad inputs: other clusters, corrupted arrays, no hierarchy, bad parameters") {
        const graph::Graph g = roomsGraph();
        test::TempDir dir;
        Built b = build(g, 8, formats::EntranceMode::sparse);
        Built other = build(g, 12, formats::EntranceMode::sparse);
        Context context;
        cluster::HierarchyParams bad;
        bad.fanout = 1;
        auto refused = cluster::buildHierarchy(g, b.clusters, bad, context);
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().kind == ErrorKind::usage);

        // A .hier built on other clusters of the same graph: loadHierarchy names both files; navrt
        // rejects such sections in a .nav.
        REQUIRE(cluster::saveHierarchy(dir / "other.hier", other.hierarchy).ok());
        auto mismatch = cluster::loadHierarchy(dir / "other.hier", b.clusters, dir / "mine.clu");
        REQUIRE_FALSE(mismatch.ok());
        CHECK(mismatch.error().message.find("other.hier was built on other clusters") !=
              std::string::npos);
        CHECK(mismatch.error().message.find("mine.clu") != std::string::npos);
        Packed wrong;
        pack(g, b.clusters, &other.hierarchy, dir / "wrong.nav", wrong);
        CHECK(wrong.error.code == navrt::ErrorCode::bad_section);
        CHECK(std::string(wrong.error.message).find("other clusters") != std::string::npos);

        // Corrupted arrays (valid container checksums): each rejected with its section named.
        auto expectRejected = [&](cluster::Hierarchy h, const char* section, const char* name) {
            Packed p;
            pack(g, b.clusters, &h, dir / (std::string(name) + ".nav"), p);
            INFO(name, ": ", p.error.message);
            CHECK(p.error.code == navrt::ErrorCode::bad_section);
            CHECK(std::string(p.error.message).find(section) != std::string::npos);
        };
        {
            cluster::Hierarchy h = b.hierarchy;
            h.parents[0] = 0;  // a level-1 group whose parent is a level-1 group
            expectRejected(h, "HPAR", "parent");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.representatives[0] = h.representatives[1];  // a node of another cluster
            expectRejected(h, "HREP", "rep");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.edge_targets[0] = h.levelStart(2);  // an edge to another level
            expectRejected(h, "HADT", "edge");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.entrance_edge_costs[0] = -1.0f;
            expectRejected(h, "HXCS", "cost");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            std::swap(h.members[0], h.members[1]);  // not ascending
            expectRejected(h, "HMEM", "members");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.entrances.pop_back();  // sizes disagree with the header
            expectRejected(h, "HENT", "entrances");
        }

        // An asset without hierarchy sections.
        Packed plain;
        pack(g, b.clusters, nullptr, dir / "plain.nav", plain);
        REQUIRE_FALSE(plain.error);
        navrt::HierarchicalQuery q;
        CHECK(q.init(plain.view).code == navrt::ErrorCode::invalid_argument);
        CHECK(q.findPath(0, 1) == navrt::PathStatus::not_initialized);
        Status method = query::checkMethod(plain.view, query::Method::hier, "plain.nav");
        REQUIRE_FALSE(method.ok());
        CHECK(method.error().message.find("plain.nav: --method hier needs hierarchy sections") !=
              std::string::npos);
    }

    TEST_CASE(
        "entrance tables: the costs of the searches without low-level searches, checked on load") {
        const graph::Graph g = roomsGraph();
        const uint32_t n = uint32_t(g.nodeCount());
        test::TempDir dir;
        const auto pairs = connectedPairs(g, 300, 5);
        for (formats::EntranceMode mode :
             {formats::EntranceMode::sparse, formats::EntranceMode::all}) {
            INFO("entrances ", mode == formats::EntranceMode::all ? "all" : "sparse");
            Built with = build(g, 8, mode);
            cluster::HierarchyParams off;
            off.tables = false;
            Built without = build(g, 8, mode, 0, off);
            REQUIRE_FALSE(with.hierarchy.table.empty());
            CHECK(without.hierarchy.table.empty());
            CHECK(with.hierarchy.entrances == without.hierarchy.entrances);
            // Every table entry is the in-cluster distance (a member's own entrance: 0).
            for (uint32_t v : {0u, n / 2, n - 1}) {
                const uint32_t c = with.clusters.node_clusters[v];
                const uint32_t first = with.hierarchy.entrance_offsets[c];
                const uint32_t m = with.hierarchy.entrance_offsets[c + 1] - first;
                const float* row = with.hierarchy.table.data() + with.hierarchy.table_offsets[c] +
                                   size_t(with.hierarchy.table_local[v]) * m;
                for (uint32_t j = 0; j < m; ++j)
                    if (with.hierarchy.entrances[first + j] == v) CHECK(row[j] == 0.0f);
            }
            Packed pw, po;
            pack(g, with.clusters, &with.hierarchy, dir / "with.nav", pw);
            pack(g, without.clusters, &without.hierarchy, dir / "without.nav", po);
            REQUIRE_FALSE(pw.error);
            REQUIRE_FALSE(po.error);
            CHECK(pw.view.hierarchy.hasTables());
            CHECK_FALSE(po.view.hierarchy.hasTables());
            navrt::HierarchicalQuery qw, qo;
            REQUIRE_FALSE(qw.init(pw.view));
            REQUIRE_FALSE(qo.init(po.view));
            navrt::HierOptions options;
            options.mode = navrt::HierMode::entrances;
            uint64_t low_with = 0, low_without = 0;
            for (auto [a, b] : pairs) {
                REQUIRE(qw.findPath(a, b, options) == navrt::PathStatus::found);
                REQUIRE(qo.findPath(a, b, options) == navrt::PathStatus::found);
                checkWalk(g, qw, a);
                CHECK(qw.path()[qw.pathLength() - 1] == b);
                CHECK(qw.cost() == doctest::Approx(qo.cost()).epsilon(1e-5));
                low_with += qw.lowExpansions();
                low_without += qo.lowExpansions();
                if (mode == formats::EntranceMode::all) {
                    const double best = test::shortestFrom(g, a)[b];
                    CHECK(qw.cost() == doctest::Approx(best).epsilon(1e-5));
                }
            }
            // Only start and goal sharing or neighbouring a cluster still search.
            CHECK(4 * low_with < low_without);
            // The first leg alone: a prefix of the full path.
            options.first_leg = true;
            for (size_t i = 0; i < 20; ++i) {
                const auto [a, b] = pairs[i];
                REQUIRE(qo.findPath(a, b, navrt::HierOptions{navrt::HierMode::entrances}) ==
                        navrt::PathStatus::found);
                REQUIRE(qw.findPath(a, b, navrt::HierOptions{navrt::HierMode::entrances}) ==
                        navrt::PathStatus::found);
                const std::vector<uint32_t> full(qw.path(), qw.path() + qw.pathLength());
                REQUIRE(qw.findPath(a, b, options) == navrt::PathStatus::found);
                REQUIRE(qw.pathLength() <= full.size());
                CHECK(std::equal(qw.path(), qw.path() + qw.pathLength(), full.begin()));
                CHECK(qw.complete() == (qw.pathLength() == full.size()));
            }
        }

        // Corrupted tables (valid checksums): each refused with its section named.
        Built b = build(g, 8, formats::EntranceMode::sparse);
        auto expectRejected = [&](cluster::Hierarchy h, const char* section, const char* name) {
            Packed p;
            pack(g, b.clusters, &h, dir / (std::string(name) + ".nav"), p);
            INFO(name, ": ", p.error.message);
            CHECK(p.error);
            CHECK(std::string(p.error.message).find(section) != std::string::npos);
        };
        {
            cluster::Hierarchy h = b.hierarchy;
            std::swap(h.table_local[h.members[0]], h.table_local[h.members[1]]);
            expectRejected(h, "HTLI", "local");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.table_offsets[1] += 1;
            expectRejected(h, "HTOF", "offsets");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.table[3] = -2.0f;
            expectRejected(h, "HTDN", "negative");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.table[5] = std::numeric_limits<float>::quiet_NaN();
            expectRejected(h, "HTDN", "nan");
        }
        {
            cluster::Hierarchy h = b.hierarchy;
            h.table.pop_back();
            expectRejected(h, "HTDN", "short");
        }
        {  // two of the three sections
            cluster::Hierarchy h = b.hierarchy;
            h.table_local.clear();
            Packed p;
            test::packAsset(g, dir / "two.nav", p, [&](formats::ContainerWriter& writer) {
                cluster::addClusterSections(writer, b.clusters);
                cluster::addHierarchySections(writer, h);
                writer.add(formats::kSecHierTableOffsets, formats::arrayBytes(h.table_offsets));
                writer.add(formats::kSecHierTableDistances, formats::arrayBytes(h.table));
            });
            CHECK(p.error.code == navrt::ErrorCode::missing_section);
            CHECK(std::string(p.error.message).find("HTLI") != std::string::npos);
        }
        // The .hier loader checks them too.
        {
            cluster::Hierarchy h = b.hierarchy;
            h.table[0] = -1.0f;
            REQUIRE(cluster::saveHierarchy(dir / "bad.hier", h).ok());
            auto loaded = cluster::loadHierarchy(dir / "bad.hier", b.clusters, dir / "b.clu");
            REQUIRE_FALSE(loaded.ok());
            CHECK(loaded.error().message.find("HTDN") != std::string::npos);
            REQUIRE(cluster::saveHierarchy(dir / "good.hier", b.hierarchy).ok());
            auto good = cluster::loadHierarchy(dir / "good.hier", b.clusters, dir / "b.clu");
            REQUIRE(good.ok());
            CHECK(good->table == b.hierarchy.table);
            CHECK(good->table_offsets == b.hierarchy.table_offsets);
        }
    }

    TEST_CASE(
        "entrance spacing: more entrances and shorter paths, dominated entrance edges pruned") {
        const graph::Graph g = roomsGraph();
        test::TempDir dir;
        const auto pairs = connectedPairs(g, 300, 9);
        double totals[3] = {0, 0, 0};
        uint32_t counts[3] = {0, 0, 0};
        const uint32_t spacings[3] = {0, 4, 2};
        for (int i = 0; i < 3; ++i) {
            cluster::HierarchyParams hp;
            hp.spacing = spacings[i];
            Built b = build(g, 16, formats::EntranceMode::sparse, 0, hp);
            counts[i] = b.hierarchy.header.entrance_count;
            Packed p;
            pack(g, b.clusters, &b.hierarchy, dir / "spaced.nav", p);
            REQUIRE_FALSE(p.error);
            navrt::HierarchicalQuery q;
            REQUIRE_FALSE(q.init(p.view));
            for (auto [a, goal] : pairs) {
                REQUIRE(q.findPath(a, goal, navrt::HierOptions{navrt::HierMode::entrances}) ==
                        navrt::PathStatus::found);
                checkWalk(g, q, a);
                totals[i] += q.cost();
            }
        }
        CHECK(counts[0] < counts[1]);
        CHECK(counts[1] < counts[2]);
        CHECK(totals[1] <= totals[0] + 1e-6);
        CHECK(totals[2] <= totals[1] + 1e-6);
        CHECK(totals[2] < totals[0]);
        MESSAGE("entrances ", counts[0], " / ", counts[1], " / ", counts[2], ", path costs ",
                totals[0], " / ", totals[1], " / ", totals[2]);

        // All entrances: edges through another entrance at the same cost are left out, and the
        // entrance graph keeps every distance (checked on the scenarios below and above).
        Built all = build(g, 8, formats::EntranceMode::all);
        uint64_t clique = 0;
        for (uint32_t c = 0; c < all.clusters.count(); ++c) {
            const uint64_t m =
                all.hierarchy.entrance_offsets[c + 1] - all.hierarchy.entrance_offsets[c];
            clique += m * (m - 1);
        }
        CHECK(all.hierarchy.header.entrance_edge_count < clique);
        cluster::HierarchyParams bad;
        bad.spacing = cluster::kMaxSpacing + 1;
        CHECK(cluster::checkHierarchyParams(bad).size() == 1);
    }

    TEST_CASE("MovingAI: hierarchical search solves every scenario, exactly with all entrances") {
        const auto data = test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        test::TempDir dir;
        for (const char* name :
             {"den312d", "den520d", "ht_chantry", "maze-128-128-2", "room-64-64-8",
              "random-64-64-20", "warehouse-20-40-10-2-1", "empty-48-48"}) {
            const std::filesystem::path map_path = data / "movingai" / (std::string(name) + ".map");
            if (!std::filesystem::exists(map_path)) continue;
            INFO(std::string(name));
            auto map = importer::loadMovingAiMap(map_path);
            REQUIRE(map.ok());
            const graph::Graph g = test::tileGraphOf(*map, map_path.filename().string());
            Built b = build(g, 16, formats::EntranceMode::all);
            Packed p;
            pack(g, b.clusters, &b.hierarchy, dir / (std::string(name) + ".nav"), p);
            REQUIRE_FALSE(p.error);
            Context context;
            const std::string scen = map_path.string() + ".scen";
            query::SearchMethod exact(query::Method::hier);
            exact.hier.mode = navrt::HierMode::entrances;
            auto e = query::runScenarioFile(p.view, scen, context, exact);
            REQUIRE(e.ok());
            CHECK(e->solved == e->total);
            CHECK(e->optimal == e->total);
            CHECK(e->max_abs_error <= 1e-3);
            navrt::HierOptions planner;
            planner.mode = navrt::HierMode::groups;
            auto groups = query::runScenarioFile(p.view, scen, context,
                                                 query::SearchMethod(query::Method::hier, planner));
            REQUIRE(groups.ok());
            CHECK(groups->solved == groups->total);
            CHECK(groups->mean_suboptimality >= 0);
            MESSAGE(std::string(name), ": groups planner mean ", groups->mean_suboptimality,
                    "% max ", groups->max_suboptimality, "% over ", groups->total, " scenarios");
        }
    }
}
