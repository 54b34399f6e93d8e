// Cluster heuristic tables (Millington, "AI for Games", 4.3.8): partitions are connected, table
// entries never exceed the true cluster-to-cluster cost, A* with the cluster heuristic stays
// optimal on every shared MovingAI scenario, and bad inputs fail clearly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <random>
#include <set>
#include <utility>

#include "lib/cluster/cluster.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

using Packed = test::PackedAsset;
// A .nav holding `g` and the cluster sections of `c` (none when null), loaded and viewed.
void pack(const graph::Graph& g, const cluster::Clusters* c, const std::filesystem::path& path,
          Packed& out) {
    test::packAsset(g, path, out, [&](formats::ContainerWriter& writer) {
        if (c != nullptr) cluster::addClusterSections(writer, *c);
    });
}

// Every cluster is connected through edges between its own nodes.
void checkConnected(const graph::Graph& g, const cluster::Clusters& c) {
    std::vector<uint8_t> seen(g.nodeCount(), 0);
    std::vector<uint32_t> reached(c.count(), 0);
    std::vector<uint8_t> started(c.count(), 0);
    for (uint32_t s = 0; s < g.nodeCount(); ++s) {
        const uint32_t k = c.node_clusters[s];
        if (started[k]) continue;
        started[k] = 1;
        std::vector<uint32_t> stack{s};
        seen[s] = 1;
        while (!stack.empty()) {
            const uint32_t u = stack.back();
            stack.pop_back();
            ++reached[k];
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t w = g.edge_targets[e];
                if (!seen[w] && c.node_clusters[w] == k) {
                    seen[w] = 1;
                    stack.push_back(w);
                }
            }
        }
    }
    CHECK(reached == c.cluster_nodes);
}

// A map of rooms in a grid: column i of rooms is widths[i] cells wide, row j heights[j] cells
// tall, walls one cell thick between them (none around the map), and every two neighbouring rooms
// meet at a one-cell doorway away from the middle of their wall. `room` holds the room of each
// cell (x + z * width): -1 for walls and doorways.
struct RoomsMap {
    std::string text;
    uint32_t width = 0, height = 0;
    std::vector<int> room;
    int room_count = 0;
};
RoomsMap roomsMap(const std::vector<uint32_t>& widths, const std::vector<uint32_t>& heights) {
    RoomsMap m;
    std::vector<uint32_t> x0, z0;
    for (uint32_t w : widths) x0.push_back(std::exchange(m.width, m.width + w + 1));
    for (uint32_t h : heights) z0.push_back(std::exchange(m.height, m.height + h + 1));
    m.width -= 1;
    m.height -= 1;
    std::vector<std::string> rows(m.height, std::string(m.width, '@'));
    m.room.assign(size_t(m.width) * m.height, -1);
    for (size_t j = 0; j < heights.size(); ++j) {
        for (size_t i = 0; i < widths.size(); ++i) {
            const int id = int(j * widths.size() + i);
            for (uint32_t z = z0[j]; z < z0[j] + heights[j]; ++z) {
                for (uint32_t x = x0[i]; x < x0[i] + widths[i]; ++x) {
                    rows[z][x] = '.';
                    m.room[size_t(z) * m.width + x] = id;
                }
            }
            if (i + 1 < widths.size()) rows[z0[j] + heights[j] / 4][x0[i] + widths[i]] = '.';
            if (j + 1 < heights.size()) rows[z0[j] + heights[j]][x0[i] + 3 * widths[i] / 4] = '.';
        }
    }
    m.room_count = int(widths.size() * heights.size());
    m.text = "type octile\nheight " + std::to_string(m.height) + "\nwidth " +
             std::to_string(m.width) + "\nmap\n";
    for (const std::string& row : rows) m.text += row + "\n";
    return m;
}

// For every room, the cluster holding most of its cells and that share (0..1).
std::vector<std::pair<uint32_t, double>> roomMajorities(const graph::Graph& g, const RoomsMap& m,
                                                        const cluster::Clusters& c) {
    std::vector<std::vector<uint32_t>> votes(m.room_count, std::vector<uint32_t>(c.count(), 0));
    std::vector<uint32_t> cells(m.room_count, 0);
    for (uint32_t v = 0; v < g.nodeCount(); ++v) {
        const int room = m.room[g.cells[v].column];
        if (room < 0) continue;
        ++votes[room][c.node_clusters[v]];
        ++cells[room];
    }
    std::vector<std::pair<uint32_t, double>> out;
    for (int r = 0; r < m.room_count; ++r) {
        const auto best = std::max_element(votes[r].begin(), votes[r].end());
        out.push_back({uint32_t(best - votes[r].begin()), double(*best) / double(cells[r])});
    }
    return out;
}

const char* kSmallMap =
    "type octile\nheight 12\nwidth 16\nmap\n"
    "................\n"
    "....@@@@........\n"
    "....@..@..@@@@..\n"
    "....@..@.....@..\n"
    "@@@.@..@@@@..@..\n"
    "....@........@..\n"
    "....@@@@.@@@@@..\n"
    "..........@.....\n"
    ".@@@@@@@..@.@@@@\n"
    ".@......@.@.....\n"
    ".@.@@@@.@.@@@@..\n"
    "...@....@.......\n";

}  // namespace

TEST_SUITE("cluster") {
    TEST_CASE("table entries never exceed brute-force Dijkstra and are exact before quantization") {
        const graph::Graph g = test::tileGraphOfText(kSmallMap);
        Context context;
        for (auto method : {cluster::ClusterParams::grid, cluster::ClusterParams::regions}) {
            cluster::ClusterParams params;
            params.method = method;
            params.cluster_size = 4;
            auto c = cluster::buildClusters(g, params, context);
            REQUIRE(c.ok());
            REQUIRE(c->count() > 4);
            CHECK(c->header.flags == formats::kClusterFlagSymmetric);
            checkConnected(g, *c);
            const uint32_t k = c->count();
            std::vector<double> brute(size_t(k) * k, std::numeric_limits<double>::infinity());
            for (uint32_t a = 0; a < g.nodeCount(); ++a) {
                const std::vector<double> dist = test::shortestFrom(g, a);
                for (uint32_t b = 0; b < g.nodeCount(); ++b) {
                    double& cell = brute[size_t(c->node_clusters[a]) * k + c->node_clusters[b]];
                    cell = std::min(cell, dist[b]);
                    // The bound between the two nodes' clusters never exceeds their distance.
                    CHECK(c->bound(c->node_clusters[a], c->node_clusters[b]) <= dist[b] + 1e-9);
                }
            }
            const std::vector<double> exact =
                cluster::exactTable(g, c->node_clusters, k, 2, context);
            REQUIRE(exact.size() == brute.size());
            for (size_t i = 0; i < exact.size(); ++i) {
                if (std::isinf(brute[i])) {
                    CHECK(std::isinf(exact[i]));
                    continue;
                }
                CHECK(exact[i] == doctest::Approx(brute[i]).epsilon(1e-12));
                const double bound = c->bound(uint32_t(i / k), uint32_t(i % k));
                CHECK(bound <= brute[i]);
                CHECK(bound >=
                      brute[i] - double(c->header.scale) * 1.0001);  // floor: within 1 unit
            }
        }
    }

    TEST_CASE("clusters are deterministic at any thread count and match the requested count") {
        const graph::Graph g = test::tileGraphOfText(kSmallMap);
        Context context;
        cluster::ClusterParams params;
        params.threads = 1;
        params.cluster_size = 3;
        auto one = cluster::buildClusters(g, params, context);
        params.threads = 4;
        auto four = cluster::buildClusters(g, params, context);
        REQUIRE(one.ok());
        REQUIRE(four.ok());
        CHECK(one->node_clusters == four->node_clusters);
        CHECK(one->table == four->table);
        params.method = cluster::ClusterParams::regions;
        params.clusters = 7;
        auto regions = cluster::buildClusters(g, params, context);
        REQUIRE(regions.ok());
        CHECK(regions->count() >= 4);  // a target: merging and splitting land near it
        CHECK(regions->count() <= 14);
        checkConnected(g, *regions);
        params.method = cluster::ClusterParams::grid;
        params.clusters = 10;
        auto grid = cluster::buildClusters(g, params, context);
        REQUIRE(grid.ok());
        CHECK(grid->count() <= 10);
        checkConnected(g, *grid);
    }

    TEST_CASE("regions: two rooms joined by a one-cell doorway are cut at the doorway") {
        // 20 x 10 and 8 x 10 cells: seeds grown by distance alone would cut the big room instead.
        const RoomsMap m = roomsMap({20, 8}, {10});
        const graph::Graph g = test::tileGraphOfText(m.text, "two_rooms.map");
        REQUIRE(g.nodeCount() == 281);
        Context context;
        cluster::ClusterParams params;
        params.method = cluster::ClusterParams::regions;
        params.clusters = 2;
        auto c = cluster::buildClusters(g, params, context);
        REQUIRE(c.ok());
        CHECK(c->count() == 2);
        checkConnected(g, *c);
        const auto majority = roomMajorities(g, m, *c);
        CHECK(majority[0].second > 0.95);
        CHECK(majority[1].second > 0.95);
        CHECK(majority[0].first != majority[1].first);

        // Smaller clusters split the rooms, but no cluster reaches through the doorway.
        params.clusters = 0;
        params.cluster_size = 6;
        auto small = cluster::buildClusters(g, params, context);
        REQUIRE(small.ok());
        CHECK(small->count() >= 6);
        CHECK(small->count() <= 12);
        checkConnected(g, *small);
        std::vector<std::set<int>> rooms(small->count());
        for (uint32_t v = 0; v < g.nodeCount(); ++v) {
            const int room = m.room[g.cells[v].column];
            if (room >= 0) rooms[small->node_clusters[v]].insert(room);
        }
        for (const std::set<int>& r : rooms) CHECK(r.size() == 1);
    }

    TEST_CASE(
        "regions: a cluster per room of a grid of rooms; deterministic, connected, admissible") {
        // 12 rooms from 7 x 8 to 11 x 11 cells, each wall with a one-cell doorway.
        const RoomsMap m = roomsMap({10, 7, 11, 9}, {9, 11, 8});
        const graph::Graph g = test::tileGraphOfText(m.text, "rooms.map");
        Context context;
        cluster::ClusterParams params;
        params.method = cluster::ClusterParams::regions;
        params.clusters = 12;
        params.threads = 1;
        auto one = cluster::buildClusters(g, params, context);
        params.threads = 4;
        auto four = cluster::buildClusters(g, params, context);
        auto again = cluster::buildClusters(g, params, context);
        REQUIRE(one.ok());
        REQUIRE(four.ok());
        REQUIRE(again.ok());
        CHECK(one->node_clusters == four->node_clusters);
        CHECK(one->table == four->table);
        CHECK(again->node_clusters == four->node_clusters);
        CHECK(one->count() == 12);
        checkConnected(g, *one);
        std::set<uint32_t> majority_clusters;
        for (const auto& [cluster_id, share] : roomMajorities(g, m, *one)) {
            CHECK(share > 0.95);
            majority_clusters.insert(cluster_id);
        }
        CHECK(majority_clusters.size() == 12);
        // Table entries bound the true costs from a few sources.
        for (uint32_t a = 0; a < g.nodeCount(); a += 97) {
            const std::vector<double> dist = test::shortestFrom(g, a);
            for (uint32_t b = 0; b < g.nodeCount(); ++b)
                CHECK(one->bound(one->node_clusters[a], one->node_clusters[b]) <= dist[b] + 1e-9);
        }
    }

    TEST_CASE("regions: the count follows --clusters and --cluster-size, navmesh and POV graphs") {
        const RoomsMap rooms = roomsMap({9, 14, 6, 11, 8}, {10, 7, 12, 9});
        const std::string open = "type octile\nheight 40\nwidth 40\nmap\n" + [] {
            std::string rows;
            for (int z = 0; z < 40; ++z) rows += std::string(40, '.') + "\n";
            return rows;
        }();
        Context context;
        for (const std::string& text : {rooms.text, open, std::string(kSmallMap)}) {
            const graph::Graph g = test::tileGraphOfText(text);
            cluster::ClusterParams params;
            params.method = cluster::ClusterParams::regions;
            for (uint32_t k : {1u, 3u, 8u, 20u, 40u}) {
                INFO("target ", k, " clusters, ", g.nodeCount(), " nodes");
                params.clusters = k;
                auto c = cluster::buildClusters(g, params, context);
                REQUIRE(c.ok());
                CHECK(2 * c->count() >= k);
                CHECK(c->count() <= 2 * k);
                checkConnected(g, *c);
            }
            params.clusters = 0;
            params.cluster_size = 8;  // about 64 nodes per cluster
            auto c = cluster::buildClusters(g, params, context);
            REQUIRE(c.ok());
            INFO(g.nodeCount(), " nodes, ", c->count(), " clusters");
            CHECK(double(g.nodeCount()) / c->count() >= 32);
            CHECK(double(g.nodeCount()) / c->count() <= 128);
        }

        // Navmesh: the mesh's regions, merged down to a smaller target; POV: regions of its layer
        // grid.
        auto map = importer::parseMovingAiMap(rooms.text, "rooms.map");
        REQUIRE(map.ok());
        voxel::VoxelGrid grid = importer::gridFromMap(*map);
        auto navmesh = graph::buildNavmeshGraph(grid, {}, context);
        auto pov = graph::buildPovGraph(grid, {}, context);
        REQUIRE(navmesh.ok());
        REQUIRE(pov.ok());
        cluster::ClusterParams params;
        params.method = cluster::ClusterParams::regions;
        auto mesh_regions = cluster::buildClusters(*navmesh, params, context);
        REQUIRE(mesh_regions.ok());
        CHECK(mesh_regions->count() <= navmesh->mesh.region_count);
        checkConnected(*navmesh, *mesh_regions);
        for (uint32_t v = 0; v + 1 < navmesh->nodeCount(); ++v)  // regions are never cut
            for (uint32_t w = v + 1; w < navmesh->nodeCount(); ++w)
                if (navmesh->mesh.poly_regions[v] == navmesh->mesh.poly_regions[w] &&
                    mesh_regions->node_clusters[v] != mesh_regions->node_clusters[w])
                    CHECK(navmesh->components[v] != navmesh->components[w]);
        params.clusters = 4;
        auto mesh_four = cluster::buildClusters(*navmesh, params, context);
        auto pov_four = cluster::buildClusters(*pov, params, context);
        REQUIRE(mesh_four.ok());
        REQUIRE(pov_four.ok());
        CHECK(mesh_four->count() >= 2);  // regions below a quarter of the target area merge too
        CHECK(mesh_four->count() <= 4);
        CHECK(pov_four->count() == 4);
        checkConnected(*navmesh, *mesh_four);
        checkConnected(*pov, *pov_four);
    }

    TEST_CASE("bad inputs: too many clusters, mismatched graph, unreachable clusters fail fast") {
        const graph::Graph g = test::tileGraphOfText(kSmallMap);
        Context context;
        cluster::ClusterParams params;
        params.clusters = uint32_t(g.nodeCount()) + 1;
        auto too_many = cluster::buildClusters(g, params, context);
        REQUIRE_FALSE(too_many.ok());
        CHECK(too_many.error().kind == ErrorKind::usage);
        CHECK(too_many.error().message.find("exceeds the graph's") != std::string::npos);

        // A .clu of another graph: pack refuses it naming both files; navrt rejects the sections.
        const graph::Graph other =
            test::tileGraphOfText("type octile\nheight 2\nwidth 3\nmap\n...\n...\n", "o.map");
        params.clusters = 0;
        auto c = cluster::buildClusters(g, params, context);
        REQUIRE(c.ok());
        test::TempDir dir;
        REQUIRE(cluster::saveClusters(dir / "a.clu", *c).ok());
        auto loaded = cluster::loadClusters(dir / "a.clu");
        REQUIRE(loaded.ok());
        CHECK(loaded->table == c->table);
        CHECK(loaded->node_clusters == c->node_clusters);
        CHECK(cluster::checkMatches(*loaded, dir / "a.clu", g, dir / "a.graph").ok());
        Status mismatch = cluster::checkMatches(*loaded, dir / "a.clu", other, dir / "o.graph");
        REQUIRE_FALSE(mismatch.ok());
        CHECK(mismatch.error().message.find("a.clu was built for another graph") !=
              std::string::npos);
        CHECK(mismatch.error().message.find("o.graph") != std::string::npos);
        Packed wrong;
        pack(other, &*c, dir / "wrong.nav", wrong);
        CHECK(wrong.error.code == navrt::ErrorCode::bad_section);
        CHECK(std::string(wrong.error.message).find("built for another graph") !=
              std::string::npos);

        // Two components: the table says unreachable; a query between them expands nothing.
        const graph::Graph split = test::tileGraphOfText(
            "type octile\nheight 3\nwidth 7\nmap\n...@...\n...@...\n...@...\n");
        params.cluster_size = 2;
        auto cs = cluster::buildClusters(split, params, context);
        REQUIRE(cs.ok());
        CHECK(cs->header.unreachable_pairs > 0);
        Packed p;
        pack(split, &*cs, dir / "split.nav", p);
        REQUIRE_FALSE(p.error);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(p.view));
        REQUIRE_FALSE(query.setHeuristic(navrt::Heuristic::cluster));
        CHECK(query.findPath(0, uint32_t(split.nodeCount() - 1)) == navrt::PathStatus::no_path);
        CHECK(query.expansions() == 0);

        // A one-way edge: same component, but the table proves 1 -> 0 impossible (0 expansions),
        // where the standard heuristic has to expand the start.
        graph::Graph oneway = test::tileGraphOfText("type octile\nheight 1\nwidth 2\nmap\n..\n");
        REQUIRE(oneway.nodeCount() == 2);
        oneway.edge_offsets = {0, 1, 1};
        oneway.edge_targets = {1};
        oneway.edge_costs = {1.0f};
        params.cluster_size = 1;
        auto co = cluster::buildClusters(oneway, params, context);
        REQUIRE(co.ok());
        REQUIRE(co->count() == 2);
        CHECK(co->header.flags == 0);  // not symmetric: navrt reopens nodes but skips BPMX
        CHECK(std::isinf(co->bound(co->node_clusters[1], co->node_clusters[0])));
        Packed po;
        pack(oneway, &*co, dir / "oneway.nav", po);
        REQUIRE_FALSE(po.error);
        navrt::PathQuery q2;
        REQUIRE_FALSE(q2.init(po.view));
        CHECK(q2.findPath(1, 0) == navrt::PathStatus::no_path);
        CHECK(q2.expansions() == 1);
        REQUIRE_FALSE(q2.setHeuristic(navrt::Heuristic::cluster));
        CHECK(q2.findPath(1, 0) == navrt::PathStatus::no_path);
        CHECK(q2.expansions() == 0);
        CHECK(q2.findPath(0, 1) == navrt::PathStatus::found);

        // The cluster method on an asset without cluster sections is a clear error.
        Packed plain;
        pack(g, nullptr, dir / "plain.nav", plain);
        REQUIRE_FALSE(plain.error);
        navrt::PathQuery q3;
        REQUIRE_FALSE(q3.init(plain.view));
        CHECK(q3.setHeuristic(navrt::Heuristic::cluster).code ==
              navrt::ErrorCode::invalid_argument);
        Status refused = query::checkMethod(plain.view, query::Method::cluster, "plain.nav");
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("plain.nav: --method cluster needs cluster sections") !=
              std::string::npos);
    }

    TEST_CASE(
        "landmarks: admissible bounds on two-way and one-way graphs, fewer expansions, CLLM "
        "checked") {
        test::TempDir dir;
        Context context;
        const graph::Graph g = test::tileGraphOfText(test::roomsMapText(11u));
        // One-way edges: every edge leaving a node of a column divisible by 5 westwards dropped.
        graph::Graph oneway = g;
        {
            std::vector<uint32_t> offsets{0}, targets;
            std::vector<float> costs;
            for (uint32_t u = 0; u < g.nodeCount(); ++u) {
                for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                    const uint32_t v = g.edge_targets[e];
                    const float ux = g.positions[3 * size_t(u)], vx = g.positions[3 * size_t(v)];
                    if (int(ux) % 5 == 0 && vx < ux) continue;
                    targets.push_back(v);
                    costs.push_back(g.edge_costs[e]);
                }
                offsets.push_back(uint32_t(targets.size()));
            }
            oneway.edge_offsets = offsets;
            oneway.edge_targets = targets;
            oneway.edge_costs = costs;
        }
        const graph::Graph* graphs[2] = {&g, &oneway};
        for (const graph::Graph* graph : graphs) {
            const bool directed = graph == &oneway;
            INFO(std::string(directed ? "one-way" : "two-way"));
            const uint32_t n = uint32_t(graph->nodeCount());
            cluster::ClusterParams params;
            params.cluster_size = 8;
            params.landmarks = 0;
            auto plain = cluster::buildClusters(*graph, params, context);
            params.landmarks = 6;
            auto alt = cluster::buildClusters(*graph, params, context);
            REQUIRE(plain.ok());
            REQUIRE(alt.ok());
            CHECK(plain->landmark_nodes.empty());
            REQUIRE(alt->landmark_nodes.size() == 6);
            CHECK(
                std::set<uint32_t>(alt->landmark_nodes.begin(), alt->landmark_nodes.end()).size() ==
                6);
            CHECK(alt->landmark_to.empty() == !directed);
            CHECK(alt->node_clusters == plain->node_clusters);
            formats::LandmarkView view;
            view.count = 6;
            view.scale = alt->landmark_scale;
            view.nodes = alt->landmark_nodes.data();
            view.from = alt->landmark_from.data();
            view.to = directed ? alt->landmark_to.data() : view.from;
            // Never above the true distance; from a landmark within one unit of it.
            for (uint32_t s : {0u, n / 3, n / 2, n - 1, alt->landmark_nodes[0]}) {
                const std::vector<double> d = test::shortestFrom(*graph, s);
                for (uint32_t t = 0; t < n; ++t) {
                    const double bound = formats::landmarkBound(view, s, t);
                    if (std::isinf(d[t])) continue;
                    CHECK(bound <= d[t] + 1e-9);
                    if (s == alt->landmark_nodes[0])
                        CHECK(bound >= d[t] - 2.0 * double(view.scale));
                }
            }
            // Saved and loaded unchanged; A* with it optimal and with fewer expansions.
            REQUIRE(cluster::saveClusters(dir / "alt.clu", *alt).ok());
            auto loaded = cluster::loadClusters(dir / "alt.clu");
            REQUIRE(loaded.ok());
            CHECK(loaded->landmark_nodes == alt->landmark_nodes);
            CHECK(loaded->landmark_from == alt->landmark_from);
            CHECK(loaded->landmark_to == alt->landmark_to);
            CHECK(loaded->landmark_scale == alt->landmark_scale);
            Packed pp, pa;
            pack(*graph, &*plain, dir / "plain.nav", pp);
            pack(*graph, &*alt, dir / "alt.nav", pa);
            REQUIRE_FALSE(pp.error);
            REQUIRE_FALSE(pa.error);
            CHECK(pa.view.landmarks.present());
            navrt::PathQuery qp, qa;
            REQUIRE_FALSE(qp.init(pp.view));
            REQUIRE_FALSE(qa.init(pa.view));
            REQUIRE_FALSE(qp.setHeuristic(navrt::Heuristic::cluster));
            REQUIRE_FALSE(qa.setHeuristic(navrt::Heuristic::cluster));
            std::mt19937 random(3);
            uint64_t expanded_plain = 0, expanded_alt = 0;
            for (int i = 0; i < 40; ++i) {
                const uint32_t a = random() % n;
                const std::vector<double> d = test::shortestFrom(*graph, a);
                for (int j = 0; j < 5; ++j) {
                    const uint32_t b = random() % n;
                    const navrt::PathStatus sp = qp.findPath(a, b), sa = qa.findPath(a, b);
                    CHECK(sp == sa);
                    if (std::isinf(d[b])) {
                        CHECK(sa == navrt::PathStatus::no_path);
                        continue;
                    }
                    REQUIRE(sa == navrt::PathStatus::found);
                    CHECK(qa.cost() == doctest::Approx(d[b]).epsilon(1e-6));
                    expanded_plain += qp.expansions();
                    expanded_alt += qa.expansions();
                }
            }
            CHECK(expanded_alt < expanded_plain);
            MESSAGE((directed ? "one-way" : "two-way"), ": expansions table ", expanded_plain,
                    ", table + landmarks ", expanded_alt);
        }

        // Corrupted CLLM (valid checksums): refused with the section named.
        cluster::ClusterParams params;
        params.cluster_size = 8;
        params.landmarks = 4;
        auto c = cluster::buildClusters(g, params, context);
        REQUIRE(c.ok());
        auto expectRejected = [&](cluster::Clusters bad, const char* what, const char* name) {
            Packed p;
            pack(g, &bad, dir / (std::string(name) + ".nav"), p);
            INFO(name, ": ", p.error.message);
            CHECK(p.error.code == navrt::ErrorCode::bad_section);
            CHECK(std::string(p.error.message).find("CLLM") != std::string::npos);
            CHECK(std::string(p.error.message).find(what) != std::string::npos);
            REQUIRE(cluster::saveClusters(dir / (std::string(name) + ".clu"), bad).ok());
            auto loaded = cluster::loadClusters(dir / (std::string(name) + ".clu"));
            CHECK_FALSE(loaded.ok());
        };
        {
            cluster::Clusters bad = *c;
            bad.landmark_nodes[1] = uint32_t(g.nodeCount());
            expectRejected(bad, "landmark 1", "node");
        }
        {
            cluster::Clusters bad = *c;
            bad.landmark_from[size_t(bad.landmark_nodes[2]) * 4 + 2] = 7;
            expectRejected(bad, "itself", "self");
        }
        {
            cluster::Clusters bad = *c;
            bad.landmark_scale = std::numeric_limits<float>::quiet_NaN();
            expectRejected(bad, "scale", "scale");
        }
        {
            cluster::Clusters bad = *c;
            bad.landmark_from.pop_back();
            expectRejected(bad, "bytes", "size");
        }
        params.landmarks = formats::kMaxLandmarks + 1;
        CHECK(cluster::checkClusterParams(params).size() == 1);
    }

    TEST_CASE(
        "MovingAI: regions keep every scenario optimal and beat grid blocks of the same count") {
        const auto data = test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        test::TempDir dir;
        double grid_sum = 0, regions_sum = 0;  // expansions over every scenario of every map
        int maps = 0;
        for (const char* name : {"den520d", "ht_chantry", "lak303d", "maze-128-128-2",
                                 "room-64-64-8", "warehouse-20-40-10-2-1"}) {
            const std::filesystem::path map_path = data / "movingai" / (std::string(name) + ".map");
            if (!std::filesystem::exists(map_path)) continue;
            INFO(name);
            ++maps;
            Context context;
            const graph::Graph g = test::tileGraphOfFile(map_path);
            cluster::ClusterParams params;
            params.cluster_size = 16;
            auto blocks = cluster::buildClusters(g, params, context);
            REQUIRE(blocks.ok());
            params.method = cluster::ClusterParams::regions;
            params.clusters = blocks->count();
            auto regions = cluster::buildClusters(g, params, context);
            REQUIRE(regions.ok());
            checkConnected(g, *regions);
            CHECK(2 * regions->count() >= blocks->count());
            CHECK(regions->count() <= 2 * blocks->count());
            const std::string scen = map_path.string() + ".scen";
            double means[2] = {0, 0};
            for (int i = 0; i < 2; ++i) {
                Packed p;
                pack(g, i == 0 ? &*blocks : &*regions, dir / (std::string(name) + ".nav"), p);
                REQUIRE_FALSE(p.error);
                auto run = query::runScenarioFile(p.view, scen, context, query::Method::cluster);
                REQUIRE(run.ok());
                CHECK(run->total > 0);
                CHECK(run->optimal == run->total);
                CHECK(run->max_abs_error <= 1e-3);
                means[i] = run->mean_expansions;
                (i == 0 ? grid_sum : regions_sum) += run->mean_expansions * double(run->total);
            }
            MESSAGE(std::string(name), ": grid ", blocks->count(), " clusters, mean expansions ",
                    means[0], "; regions ", regions->count(), " clusters, ", means[1]);
        }
        if (maps > 0) CHECK(regions_sum <= grid_sum);
    }

    TEST_CASE(
        "MovingAI: the cluster heuristic keeps every scenario optimal and expands fewer nodes "
        "overall") {
        const auto data = test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        const std::vector<std::filesystem::path> maps = test::movingAiMaps(data);
        REQUIRE(maps.size() >= 10);
        test::TempDir dir;
        double octile_sum = 0, cluster_sum = 0;  // expansions over every scenario of every map
        for (const auto& map_path : maps) {
            INFO(map_path.filename().string());
            Context context;
            const graph::Graph g = test::tileGraphOfFile(map_path);
            cluster::ClusterParams params;
            params.cluster_size = 16;
            auto c = cluster::buildClusters(g, params, context);
            REQUIRE(c.ok());
            checkConnected(g, *c);
            Packed p;
            pack(g, &*c, dir / (map_path.stem().string() + ".nav"), p);
            REQUIRE_FALSE(p.error);
            const std::string scen = map_path.string() + ".scen";
            auto octile = query::runScenarioFile(p.view, scen, context, query::Method::astar);
            auto clustered = query::runScenarioFile(p.view, scen, context, query::Method::cluster);
            REQUIRE(octile.ok());
            REQUIRE(clustered.ok());
            CHECK(clustered->total > 0);
            CHECK(clustered->solved == clustered->total);
            CHECK(clustered->optimal == clustered->total);
            CHECK(clustered->max_abs_error <= 1e-3);
            octile_sum += octile->mean_expansions * double(octile->total);
            cluster_sum += clustered->mean_expansions * double(clustered->total);
            MESSAGE(map_path.filename().string(), ": ", c->count(),
                    " clusters, mean expansions octile ", octile->mean_expansions, " cluster ",
                    clustered->mean_expansions);
        }
        // Per map the cluster heuristic is not always ahead (warehouse-20-40-10-2-1: its aisles cut
        // by the blocks make the table inconsistent enough that re-expansions outweigh the gain);
        // over all maps it must be.
        CHECK(cluster_sum <= octile_sum);
    }
}
