// Directed graphs (one-way edges, a different cost each way, long one-way links): every table and
// search built on graphs stays correct when u -> v says nothing about v -> u. Each is checked
// against a brute-force Dijkstra oracle (tests/graph_test_support.h) on random directed graphs:
// A* with the standard and the cluster heuristic (tables admissible; BPMX is only used on graphs
// flagged symmetric), HPA* with all entrances exact, the group planner and the hierarchical
// next-hop table arriving exactly when the goal is reachable, flat next-hop paths optimal, and
// incremental updates equal to rebuilds when links are added or removed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/nexthop/nexthop.h"
#include "lib/runtime/navrt_hier.h"
#include "lib/runtime/navrt_nexthop.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

using test::Edge;
using test::edgesOf;
using test::withEdges;

// Octile distance between two nodes' cells: the standard heuristic of tile graphs, so links are
// never cheaper than it (a cheaper link would make that heuristic overestimate).
float octile(const graph::Graph& g, uint32_t a, uint32_t b) {
    const float dx = std::fabs(g.positions[3 * a] - g.positions[3 * b]);
    const float dz = std::fabs(g.positions[3 * a + 2] - g.positions[3 * b + 2]);
    return std::max(dx, dz) + (std::sqrt(2.0f) - 1.0f) * std::min(dx, dz);
}

// A random directed graph over the tile graph of a map of rooms: about a fifth of the edges lose
// their reverse (one-way), a third cost up to 3x more one way than the other, and `links` long
// one-way edges join random nodes (at least their octile distance, up to twice that).
graph::Graph directedGraph(unsigned seed, int links) {
    std::mt19937 random(seed);
    const std::string text = test::roomsMapText(random);
    const graph::Graph base = test::tileGraphOfText(text, "directed.map");
    std::vector<Edge> edges;
    std::uniform_real_distribution<float> factor(1.0f, 3.0f);
    for (const auto& [u, v, c] : edgesOf(base)) {
        if (u > v) continue;  // decide each pair once, from its lower node
        const unsigned roll = random() % 15;
        if (roll < 3) {  // one-way, either direction
            if (random() % 2)
                edges.push_back({u, v, c});
            else
                edges.push_back({v, u, c});
        } else if (roll < 8) {  // dearer one way
            edges.push_back({u, v, c * factor(random)});
            edges.push_back({v, u, c});
        } else {
            edges.push_back({u, v, c});
            edges.push_back({v, u, c});
        }
    }
    const uint32_t n = uint32_t(base.nodeCount());
    for (int k = 0; k < links; ++k) {
        const uint32_t a = uint32_t(random() % n), b = uint32_t(random() % n);
        if (a != b)
            edges.push_back({a, b, octile(base, a, b) * (1.0f + float(random() % 100) / 100)});
    }
    return withEdges(base, edges);
}

struct Tables {
    cluster::Clusters clusters;
    cluster::Hierarchy hierarchy;
};
Tables buildTables(const graph::Graph& g, formats::EntranceMode entrances) {
    Context context;
    cluster::ClusterParams cp;
    cp.cluster_size = 6;
    auto c = cluster::buildClusters(g, cp, context);
    REQUIRE(c.ok());
    cluster::HierarchyParams hp;
    hp.entrances = entrances;
    auto h = cluster::buildHierarchy(g, *c, hp, context);
    REQUIRE(h.ok());
    return {std::move(c).value(), std::move(h).value()};
}

}  // namespace

TEST_SUITE("directed") {
    TEST_CASE("directed graphs: searches and cluster tables against a Dijkstra oracle") {
        test::TempDir dir;
        for (unsigned seed : {1u, 2u, 3u}) {
            INFO("seed ", seed);
            const graph::Graph g = directedGraph(seed, 12);
            const Tables t = buildTables(g, formats::EntranceMode::all);
            CHECK((t.clusters.header.flags & formats::kClusterFlagSymmetric) == 0);
            CHECK(graph::edgeSymmetry(g) == graph::Symmetry::directed);
            // Sparse entrances would lose one-way connections: every border node is one instead.
            const Tables sparse = buildTables(g, formats::EntranceMode::sparse);
            CHECK(sparse.hierarchy.header.entrance_mode == formats::EntranceMode::all);
            CHECK(sparse.hierarchy.entrances == t.hierarchy.entrances);
            // Rooms cut at chokepoints: the table is a lower bound on directed graphs too.
            Context context;
            cluster::ClusterParams rp;
            rp.method = cluster::ClusterParams::regions;
            rp.cluster_size = 8;
            auto regions = cluster::buildClusters(g, rp, context);
            REQUIRE(regions.ok());
            for (uint32_t s : {0u, 97u, 401u}) {
                const std::vector<double> dist = test::shortestFrom(g, s);
                for (uint32_t v = 0; v < g.nodeCount(); ++v)
                    CHECK(regions->bound(regions->node_clusters[s], regions->node_clusters[v]) <=
                          dist[v] + 1e-4);
            }
            test::PackedAsset p;
            test::packAsset(g, dir / "d.nav", p, [&](formats::ContainerWriter& w) {
                cluster::addClusterSections(w, t.clusters);
                cluster::addHierarchySections(w, t.hierarchy);
            });
            REQUIRE_FALSE(p.error);
            navrt::PathQuery standard, clustered;
            REQUIRE_FALSE(standard.init(p.view));
            REQUIRE_FALSE(clustered.init(p.view));
            REQUIRE_FALSE(clustered.setHeuristic(navrt::Heuristic::cluster));
            navrt::HierarchicalQuery hier;
            REQUIRE_FALSE(hier.init(p.view));
            std::mt19937 random(seed * 31);
            const uint32_t n = uint32_t(g.nodeCount());
            int reachable = 0, unreachable = 0;
            for (int trial = 0; trial < 40; ++trial) {
                const uint32_t s = uint32_t(random() % n);
                const std::vector<double> dist = test::shortestFrom(g, s);
                // The cluster table is a lower bound from every node's cluster to every other's.
                for (uint32_t v = 0; v < n; ++v)
                    CHECK(t.clusters.bound(t.clusters.node_clusters[s],
                                           t.clusters.node_clusters[v]) <= dist[v] + 1e-4);
                for (int k = 0; k < 5; ++k) {
                    const uint32_t goal = uint32_t(random() % n);
                    INFO("start ", s, " goal ", goal);
                    if (!std::isfinite(dist[goal])) {
                        ++unreachable;
                        CHECK(standard.findPath(s, goal) == navrt::PathStatus::no_path);
                        CHECK(clustered.findPath(s, goal) == navrt::PathStatus::no_path);
                        CHECK(hier.findPath(s, goal) == navrt::PathStatus::no_path);
                        continue;
                    }
                    ++reachable;
                    REQUIRE(standard.findPath(s, goal) == navrt::PathStatus::found);
                    CHECK(standard.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    test::checkWalk(g, standard.path(), standard.pathLength(), standard.cost(),
                                    1e-6);
                    REQUIRE(clustered.findPath(s, goal) == navrt::PathStatus::found);
                    CHECK(clustered.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    // HPA* over all entrances is exact; the group planner arrives, never shorter.
                    navrt::HierOptions entrances;
                    entrances.mode = navrt::HierMode::entrances;
                    REQUIRE(hier.findPath(s, goal, entrances) == navrt::PathStatus::found);
                    test::checkWalk(g, hier.path(), hier.pathLength(), hier.cost(), 1e-6);
                    CHECK(hier.path()[hier.pathLength() - 1] == goal);
                    CHECK(hier.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    REQUIRE(hier.findPath(s, goal) == navrt::PathStatus::found);
                    test::checkWalk(g, hier.path(), hier.pathLength(), hier.cost(), 1e-6);
                    CHECK(hier.path()[hier.pathLength() - 1] == goal);
                    CHECK(hier.cost() >= dist[goal] - 1e-4);
                }
            }
            CHECK(reachable > 50);
            CHECK(unreachable > 0);  // one-way edges leave some goals out of reach
        }
    }

    TEST_CASE("directed graphs: next-hop tables against a Dijkstra oracle, updates = rebuilds") {
        test::TempDir dir;
        Context context;
        for (unsigned seed : {4u, 5u}) {
            INFO("seed ", seed);
            const graph::Graph g = directedGraph(seed, 12);
            auto table = nexthop::buildTable(g, {}, context);
            REQUIRE(table.ok());
            cluster::ClusterParams cp;
            cp.cluster_size = 6;
            auto clusters = cluster::buildClusters(g, cp, context);
            REQUIRE(clusters.ok());
            auto hier_table = nexthop::buildHierTable(g, *clusters, {}, context);
            REQUIRE(hier_table.ok());
            test::PackedAsset flat, hier;
            test::packAsset(g, dir / "f.nav", flat,
                            [&](auto& w) { nexthop::addNextHopSections(w, *table); });
            test::packAsset(g, dir / "h.nav", hier,
                            [&](auto& w) { nexthop::addHierTableSections(w, *hier_table); });
            REQUIRE_FALSE(flat.error);
            REQUIRE_FALSE(hier.error);
            navrt::NextHopQuery fq, hq;
            REQUIRE_FALSE(fq.init(flat.view));
            REQUIRE_FALSE(hq.init(hier.view));
            const uint32_t n = uint32_t(g.nodeCount());
            for (uint32_t s = 0; s < n; s += 13) {
                const std::vector<double> dist = test::shortestFrom(g, s);
                for (uint32_t goal = 0; goal < n; goal += 5) {
                    INFO("start ", s, " goal ", goal);
                    if (!std::isfinite(dist[goal])) {
                        CHECK(fq.pathByNextHop(s, goal) == navrt::PathStatus::no_path);
                        CHECK(hq.pathByNextHop(s, goal) == navrt::PathStatus::no_path);
                        continue;
                    }
                    REQUIRE(fq.pathByNextHop(s, goal) == navrt::PathStatus::found);
                    test::checkWalk(g, fq.path(), fq.pathLength(), fq.cost(), 1e-6);
                    CHECK(fq.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    REQUIRE(hq.pathByNextHop(s, goal) == navrt::PathStatus::found);
                    test::checkWalk(g, hq.path(), hq.pathLength(), hq.cost(), 1e-6);
                    CHECK(hq.path()[hq.pathLength() - 1] == goal);
                    CHECK(hq.cost() >= dist[goal] - 1e-4);
                }
            }
            // Links added, then removed again: each update equals a rebuild byte for byte.
            std::mt19937 random(seed);
            std::vector<Edge> edges = edgesOf(g);
            const size_t before = edges.size();
            for (int k = 0; k < 4; ++k) {
                const uint32_t a = uint32_t(random() % n), b = uint32_t(random() % n);
                if (a != b) edges.push_back({a, b, octile(g, a, b) + 0.5f});
            }
            const graph::Graph linked = withEdges(g, edges);
            edges.resize(before - 6);  // and drop a few of the original edges too
            const graph::Graph unlinked = withEdges(g, edges);
            test::checkUpdatesEqualRebuilds(g, *table, {&linked, &unlinked}, dir);
        }
    }

    TEST_CASE("edge symmetry: symmetric, two-way with different costs, directed") {
        graph::Graph g = test::tileGraphOfText("type octile\nheight 2\nwidth 3\nmap\n...\n...\n");
        CHECK(graph::edgeSymmetry(g) == graph::Symmetry::symmetric);
        std::vector<Edge> edges = edgesOf(g);
        std::get<2>(edges[0]) *= 2.0f;  // dearer one way
        const graph::Graph two_way = withEdges(g, edges);
        CHECK(graph::edgeSymmetry(two_way) == graph::Symmetry::two_way);
        edges.erase(edges.begin());  // and then gone that way
        CHECK(graph::edgeSymmetry(withEdges(g, edges)) == graph::Symmetry::directed);
    }

    TEST_CASE("strongly connected components: one id exactly for mutually reachable nodes") {
        const graph::Graph g = directedGraph(6, 12);
        const std::vector<uint32_t> strong = graph::stronglyConnected(g);
        REQUIRE(strong.size() == g.nodeCount());
        std::mt19937 random(6);
        const uint32_t n = uint32_t(g.nodeCount());
        std::vector<std::vector<double>> from;
        std::vector<uint32_t> sample;
        for (int k = 0; k < 30; ++k) {
            sample.push_back(uint32_t(random() % n));
            from.push_back(test::shortestFrom(g, sample.back()));
        }
        for (size_t i = 0; i < sample.size(); ++i)
            for (size_t j = 0; j < sample.size(); ++j) {
                const bool mutual =
                    std::isfinite(from[i][sample[j]]) && std::isfinite(from[j][sample[i]]);
                CHECK((strong[sample[i]] == strong[sample[j]]) == mutual);
            }
        // One-way edges split some walkable components: more strong components than components.
        CHECK(*std::max_element(strong.begin(), strong.end()) + 1 > g.header.component_count);
        // Ids follow each component's lowest node; an undirected graph's are its components.
        CHECK(strong[0] == 0);
        const graph::Graph plain =
            test::tileGraphOfText("type octile\nheight 2\nwidth 5\nmap\n..@..\n..@..\n");
        CHECK(graph::stronglyConnected(plain) == plain.components);
    }
}
