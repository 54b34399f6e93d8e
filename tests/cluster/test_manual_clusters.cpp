// Manual clusters (Millington & Funge, "AI for Games", 4.3.8: "often, clustering is manual"):
// rooms drawn by a designer (config boxes and hulls, scene cluster markers carried .geo -> .vox
// -> .graph) decide the clusters exactly, nodes outside every room are grid-clustered, the
// cluster heuristic stays admissible and A* with it optimal, the hierarchy takes the rooms'
// representatives and group costs and still returns real paths, and bad entries are errors
// naming their JSON path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/pack/pack.h"
#include "lib/pipeline/pipeline.h"
#include "lib/runtime/navrt_hier.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

constexpr float kCell = 0.5f;  // [m] cell size of the test level

// A 12 x 9 m floor (top y = 0): two rooms, west (x 0..6) and east (x 6.5..12), z 0..6, split by
// a wall at x 6..6.5 with a doorway at z 2.5..3.5, and a corridor z 6..9 along both, which no
// room holds.
geometry::Geometry twoRoomsLevel() {
    test::LevelBuilder b;
    b.box({0, -0.2, 0}, {12, 0, 9});
    b.box({6, 0, 0}, {6.5, 2.5, 2.5});
    b.box({6, 0, 3.5}, {6.5, 2.5, 6});
    return b.g;
}

graph::Graph tileGraph(const geometry::Geometry& level) {
    const voxel::VoxelGrid grid = test::voxelizeOk(level, test::voxelParams(kCell, 0.2f, 0.0f));
    Context context;
    auto g = graph::buildTileGraph(grid, context);
    REQUIRE(g.ok());
    return std::move(g).value();
}

cluster::Room box(const std::string& name, std::array<float, 3> min, std::array<float, 3> max) {
    cluster::Room room;
    room.name = name;
    room.where = "test: room '" + name + "'";
    room.box = {min, max};
    return room;
}

cluster::Room west() { return box("west", {0, -1, 0}, {6, 2, 6}); }
cluster::Room east() { return box("east", {6.5f, -1, 0}, {12, 2, 6}); }
cluster::Room door() { return box("door", {6, -1, 2.5f}, {6.5f, 2, 3.5f}); }

cluster::ClusterParams manual(std::vector<cluster::Room> rooms, uint32_t cluster_size = 4) {
    cluster::ClusterParams p;
    p.method = cluster::ClusterParams::manual;
    p.cluster_size = cluster_size;
    p.rooms = std::move(rooms);
    return p;
}

cluster::Clusters build(const graph::Graph& g, const cluster::ClusterParams& params) {
    Context context;
    auto c = cluster::buildClusters(g, params, context);
    REQUIRE_MESSAGE(c.ok(), c.error().message);
    return std::move(c).value();
}

// The room of each node by the test's own reading of the rooms: the first whose box (and hull)
// holds its position; kNoRoom for none.
std::vector<uint32_t> expectedRooms(const graph::Graph& g,
                                    const std::vector<cluster::Room>& rooms) {
    std::vector<uint32_t> out(g.nodeCount(), cluster::kNoRoom);
    for (uint32_t v = 0; v < g.nodeCount(); ++v) {
        const float* p = &g.positions[3 * size_t(v)];
        for (uint32_t r = 0; r < rooms.size() && out[v] == cluster::kNoRoom; ++r) {
            const geometry::Bounds& b = rooms[r].box;
            bool in = p[0] >= b.min[0] && p[0] <= b.max[0] && p[1] >= b.min[1] &&
                      p[1] <= b.max[1] && p[2] >= b.min[2] && p[2] <= b.max[2];
            for (const geometry::Plane& q : rooms[r].planes)
                in = in && q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] <= 1e-3;
            if (in) out[v] = r;
        }
    }
    return out;
}

// Every node is in a cluster of its room (expected), each room whose nodes are connected is one
// cluster, and clusters outside the rooms hold nodes of one grid block of `size` cells each.
void checkMembership(const graph::Graph& g, const cluster::Clusters& c,
                     const std::vector<uint32_t>& expected, uint32_t size) {
    REQUIRE(c.cluster_rooms.size() == c.count());
    std::vector<uint32_t> block(c.count(), cluster::kNoRoom);
    uint32_t outside = 0;
    for (uint32_t v = 0; v < g.nodeCount(); ++v) {
        const uint32_t k = c.node_clusters[v];
        INFO("node ", v);
        CHECK(c.cluster_rooms[k] == expected[v]);
        if (expected[v] != cluster::kNoRoom) continue;
        ++outside;
        const uint32_t column = g.cells[v].column;
        const uint32_t b =
            (column / g.header.size_x / size) * 1000 + (column % g.header.size_x) / size;
        if (block[k] == cluster::kNoRoom) block[k] = b;
        CHECK(block[k] == b);
    }
    CHECK(c.nodes_outside_rooms == outside);
}

using Packed = test::PackedAsset;

}  // namespace

TEST_SUITE("manual clusters") {
    TEST_CASE("two rooms: exactly their nodes in their clusters, the rest in grid blocks") {
        const graph::Graph g = tileGraph(twoRoomsLevel());
        const std::vector<cluster::Room> rooms = {west(), east()};
        cluster::ClusterParams params = manual(rooms);
        params.threads = 1;
        const cluster::Clusters c = build(g, params);
        const std::vector<uint32_t> expected = expectedRooms(g, rooms);
        REQUIRE(std::count(expected.begin(), expected.end(), 0u) > 100);
        REQUIRE(std::count(expected.begin(), expected.end(), 1u) > 100);
        REQUIRE(std::count(expected.begin(), expected.end(), cluster::kNoRoom) > 100);
        checkMembership(g, c, expected, 4);
        // Each room is connected: one cluster each, named as given.
        CHECK(std::count(c.cluster_rooms.begin(), c.cluster_rooms.end(), 0u) == 1);
        CHECK(std::count(c.cluster_rooms.begin(), c.cluster_rooms.end(), 1u) == 1);
        REQUIRE(c.rooms.size() == 2);
        CHECK(c.rooms[0].name == "west");
        CHECK(c.rooms[1].where == "test: room 'east'");
        CHECK(c.header.method == formats::ClusterMethod::manual);
        CHECK(c.header.cluster_size == 4);
        CHECK(c.warnings.empty());
        // The outside blocks: more than one (corridor and doorway), each in one 2 x 2 m block.
        CHECK(c.count() > 4);

        // Same clusters and table at any thread count; the .clu keeps the rooms.
        params.threads = 3;
        const cluster::Clusters again = build(g, params);
        CHECK(again.node_clusters == c.node_clusters);
        CHECK(again.table == c.table);
        test::TempDir dir;
        REQUIRE(cluster::saveClusters(dir / "a.clu", c).ok());
        REQUIRE(cluster::saveClusters(dir / "b.clu", again).ok());
        CHECK(test::readBytes(dir / "a.clu") == test::readBytes(dir / "b.clu"));
        auto loaded = cluster::loadClusters(dir / "a.clu");
        REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
        CHECK(loaded->rooms == c.rooms);
        CHECK(loaded->cluster_rooms == c.cluster_rooms);
        CHECK(loaded->node_clusters == c.node_clusters);

        // A hull room (a wedge in the east room's corner) first: it takes its nodes, the east
        // room the rest of its own.
        cluster::Room wedge;
        wedge.name = "wedge";
        wedge.where = "test: wedge";
        auto planes = geometry::convexHullPlanes(
            {{8, -1, 0}, {12, -1, 0}, {12, -1, 4}, {8, 2, 0}, {12, 2, 0}, {12, 2, 4}});
        REQUIRE(planes.ok());
        wedge.planes = *planes;
        wedge.box = {{8, -1, 0}, {12, 2, 4}};
        const std::vector<cluster::Room> hull_rooms = {wedge, west(), east()};
        const cluster::Clusters h = build(g, manual(hull_rooms));
        const std::vector<uint32_t> hull_expected = expectedRooms(g, hull_rooms);
        REQUIRE(std::count(hull_expected.begin(), hull_expected.end(), 0u) > 10);
        checkMembership(g, h, hull_expected, 4);
        // Below the diagonal x - 8 = z, nothing of the wedge.
        for (uint32_t v = 0; v < g.nodeCount(); ++v)
            if (g.positions[3 * v] - 8 < g.positions[3 * v + 2] - 0.01f)
                CHECK(h.cluster_rooms[h.node_clusters[v]] != 0);
    }

    TEST_CASE("a room whose nodes are not connected is split, an empty room is a warning") {
        const graph::Graph g = tileGraph(twoRoomsLevel());
        // Across the wall south of the doorway: nodes on both sides, none joined inside.
        const std::vector<cluster::Room> rooms = {box("across", {5, -1, 0}, {7.5f, 2, 2}),
                                                  box("nowhere", {50, -1, 50}, {60, 2, 60}), west(),
                                                  east()};
        Context context;
        cluster::ClusterParams params = manual(rooms);
        auto c = cluster::buildClusters(g, params, context);
        REQUIRE(c.ok());
        checkMembership(g, *c, expectedRooms(g, rooms), 4);
        CHECK(std::count(c->cluster_rooms.begin(), c->cluster_rooms.end(), 0u) == 2);
        CHECK(std::count(c->cluster_rooms.begin(), c->cluster_rooms.end(), 1u) == 0);
        REQUIRE(c->warnings.size() == 2);
        CHECK(c->warnings[0] ==
              "room 'across' (test: room 'across') is split into 2 clusters: "
              "its 12 nodes are not connected inside it");
        CHECK(c->warnings[1] ==
              "room 'nowhere' (test: room 'nowhere') holds no node of this graph");

        // The stage reports the counts.
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "g.graph", g).ok());
        auto result = cluster::ClusterStage::run({dir / "g.graph"}, params, dir / "g.clu", context);
        REQUIRE(result.ok());
        CHECK(test::countOf(*result, "rooms") == 4);
        CHECK(test::countOf(*result, "rooms_without_nodes") == 1);
        CHECK(test::countOf(*result, "rooms_split") == 1);
        CHECK(test::countOf(*result, "nodes_outside_rooms") == c->nodes_outside_rooms);
        CHECK(result->warnings.size() == 2);
    }

    TEST_CASE("the heuristic stays admissible and A* with it optimal") {
        const graph::Graph g = tileGraph(twoRoomsLevel());
        const cluster::Clusters c = build(g, manual({west(), door(), east()}, 3));
        // Every pair of nodes: the table's bound never exceeds the true cost.
        const uint32_t n = uint32_t(g.nodeCount());
        std::vector<std::vector<double>> dist(n);
        for (uint32_t s = 0; s < n; ++s) {
            dist[s] = test::shortestFrom(g, s);
            for (uint32_t t = 0; t < n; ++t) {
                const double bound = c.bound(c.node_clusters[s], c.node_clusters[t]);
                if (std::isinf(dist[s][t])) {
                    CHECK(std::isinf(bound));
                    continue;
                }
                CHECK(bound <= dist[s][t] + 1e-9);
            }
        }
        // navrt's A* with the cluster heuristic on random pairs: the shortest cost every time.
        test::TempDir dir;
        Packed p;
        test::packAsset(g, dir / "m.nav", p, [&](formats::ContainerWriter& writer) {
            cluster::addClusterSections(writer, c);
        });
        REQUIRE_FALSE(p.error);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(p.view));
        REQUIRE_FALSE(query.setHeuristic(navrt::Heuristic::cluster));
        std::mt19937 random(11);
        std::uniform_int_distribution<uint32_t> pick(0, n - 1);
        int found = 0;
        for (int trial = 0; trial < 300; ++trial) {
            const uint32_t s = pick(random), t = pick(random);
            INFO("from ", s, " to ", t);
            if (std::isinf(dist[s][t])) {
                CHECK(query.findPath(s, t) == navrt::PathStatus::no_path);
                continue;
            }
            REQUIRE(query.findPath(s, t) == navrt::PathStatus::found);
            CHECK(query.cost() == doctest::Approx(dist[s][t]).epsilon(1e-5));
            ++found;
        }
        CHECK(found > 200);
    }

    TEST_CASE("the hierarchy takes the rooms' representatives and group costs, paths stay real") {
        const graph::Graph g = tileGraph(twoRoomsLevel());
        cluster::Room w = west();
        w.has_representative = true;
        w.representative = {1.1f, 0.3f, 4.9f};
        cluster::ClusterParams params = manual({w, door(), east()}, 2);
        params.group_costs = {{"west", "door", 40, "test: cost 0"},
                              {"door", "west", 40, "test: cost 1"},
                              {"west", "east", 7, "test: cost 2"}};
        const cluster::Clusters c = build(g, params);
        // The representative: the west room's node nearest the point.
        uint32_t nearest = graph::kNoNode;
        double best = std::numeric_limits<double>::infinity();
        for (uint32_t v = 0; v < g.nodeCount(); ++v) {
            if (c.cluster_rooms[c.node_clusters[v]] != 0) continue;
            double d = 0;
            for (int k = 0; k < 3; ++k)
                d += std::pow(double(g.positions[3 * v + k]) - w.representative[k], 2);
            if (d < best) {
                best = d;
                nearest = v;
            }
        }
        REQUIRE(nearest != graph::kNoNode);
        CHECK(c.rooms[0].representative == nearest);
        CHECK(std::abs(g.positions[3 * nearest] - 1.25f) < 1e-4f);
        CHECK(std::abs(g.positions[3 * nearest + 2] - 4.75f) < 1e-4f);
        CHECK(c.rooms[1].representative == graph::kNoNode);
        REQUIRE(c.group_costs.size() == 3);

        Context context;
        cluster::HierarchyParams hp;
        hp.threads = 1;
        auto h = cluster::buildHierarchy(g, c, hp, context);
        REQUIRE(h.ok());
        REQUIRE(h->levelCount() >= 2);
        const uint32_t west_cluster = c.node_clusters[nearest];
        CHECK(h->representatives[west_cluster] == nearest);
        CHECK(h->room_representatives == 1);
        // The same partition without the designer's choices, for the edges they leave alone.
        cluster::ClusterParams plain = params;
        plain.group_costs.clear();
        plain.rooms[0].has_representative = false;
        const cluster::Clusters pc = build(g, plain);
        REQUIRE(pc.node_clusters == c.node_clusters);
        auto ph = cluster::buildHierarchy(g, pc, hp, context);
        REQUIRE(ph.ok());
        uint32_t replaced = 0;
        for (uint32_t a = 0; a < c.count(); ++a)
            for (uint32_t e = h->edge_offsets[a]; e < h->edge_offsets[a + 1]; ++e) {
                const uint32_t b = h->edge_targets[e];
                const uint32_t ra = c.cluster_rooms[a], rb = c.cluster_rooms[b];
                const bool designed = (ra == 0 && rb == 1) || (ra == 1 && rb == 0);
                const float* cost = &h->edge_costs[3 * size_t(e)];
                INFO("edge ", a, " -> ", b);
                if (designed) {
                    ++replaced;
                    CHECK(cost[0] == 40.0f);
                    CHECK(cost[1] == 40.0f);
                    CHECK(cost[2] == 40.0f);
                } else {  // level 1 has the same edges in both
                    CHECK(ph->edge_targets[e] == b);
                    CHECK(std::equal(cost, cost + 3, &ph->edge_costs[3 * size_t(e)]));
                }
            }
        CHECK(replaced == 2);  // west <-> door, one edge each way
        CHECK(h->room_cost_edges == 2);
        REQUIRE(h->warnings.size() == 1);
        CHECK(h->warnings[0] ==
              "group cost from room 'west' to room 'east' (test: cost 2) not applied: no edge "
              "leads from one to the other (the rooms are not adjacent)");
        // Same bytes at any thread count.
        hp.threads = 3;
        auto h3 = cluster::buildHierarchy(g, c, hp, context);
        REQUIRE(h3.ok());
        test::TempDir dir;
        REQUIRE(cluster::saveHierarchy(dir / "1.hier", *h).ok());
        REQUIRE(cluster::saveHierarchy(dir / "3.hier", *h3).ok());
        CHECK(test::readBytes(dir / "1.hier") == test::readBytes(dir / "3.hier"));

        // Hierarchical queries over the asset: every path is a real walk to the goal, never
        // cheaper than the shortest; entrances over all border nodes stay exact.
        hp.entrances = formats::EntranceMode::all;
        auto ha = cluster::buildHierarchy(g, c, hp, context);
        REQUIRE(ha.ok());
        for (const cluster::Hierarchy* built : {&*h, &*ha}) {
            Packed p;
            test::packAsset(g, dir / "h.nav", p, [&](formats::ContainerWriter& writer) {
                cluster::addClusterSections(writer, c);
                cluster::addHierarchySections(writer, *built);
            });
            REQUIRE_FALSE(p.error);
            navrt::HierarchicalQuery q;
            REQUIRE_FALSE(q.init(p.view));
            std::mt19937 random(5);
            std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
            int compared = 0;
            for (int trial = 0; trial < 80; ++trial) {
                const uint32_t s = pick(random), t = pick(random);
                const std::vector<double> dist = test::shortestFrom(g, s);
                INFO("from ", s, " to ", t);
                if (std::isinf(dist[t])) continue;
                ++compared;
                for (uint8_t cost = 0; cost < formats::kHierCostCount; ++cost) {
                    navrt::HierOptions o;
                    o.cost = cost;
                    REQUIRE(q.findPath(s, t, o) == navrt::PathStatus::found);
                    REQUIRE(q.path()[0] == s);
                    CHECK(q.path()[q.pathLength() - 1] == t);
                    test::checkWalk(g, q.path(), q.pathLength(), q.cost(), 1e-9);
                    CHECK(q.cost() >= dist[t] - 1e-4);
                }
                navrt::HierOptions entrances;
                entrances.mode = navrt::HierMode::entrances;
                REQUIRE(q.findPath(s, t, entrances) == navrt::PathStatus::found);
                test::checkWalk(g, q.path(), q.pathLength(), q.cost(), 1e-9);
                CHECK(q.path()[q.pathLength() - 1] == t);
                if (built == &*ha) CHECK(q.cost() == doctest::Approx(dist[t]).epsilon(1e-5));
            }
            CHECK(compared > 50);
        }
    }

    TEST_CASE("scene cluster markers reach the cluster stage through the .vox and the .graph") {
        test::TempDir dir;
        test::writeText(dir / "level.obj",
                        test::objBox("floor", 0, -0.2f, 0, 12, 0, 9) +
                            test::objBox("wall_a", 6, 0, 0, 6.5f, 2.5f, 2.5f) +
                            test::objBox("wall_b", 6, 0, 3.5f, 6.5f, 2.5f, 6) +
                            test::objBox("nav_cluster_west", 0, -1, 0, 6, 2, 6) +
                            test::objBox("nav_cluster_east", 6.5f, -1, 0, 12, 2, 6));
        Context context;
        auto geometry = importer::importScene(dir / "level.obj", {}, context);
        REQUIRE_MESSAGE(geometry.ok(), geometry.error().message);
        REQUIRE(geometry::saveGeometry(dir / "level.geo", *geometry).ok());
        voxel::VoxelizeParams vp = test::voxelParams(kCell, 0.2f, 0.0f);
        REQUIRE(voxel::VoxelizeStage::run({dir / "level.geo", "level.obj"}, vp, dir / "level.vox",
                                          context)
                    .ok());
        for (graph::GraphKind kind : {graph::GraphKind::tile, graph::GraphKind::navmesh}) {
            INFO("graph kind ", int(kind));
            graph::GraphStage::Params gp;
            gp.kind = kind;
            auto made =
                graph::GraphStage::run({dir / "level.vox"}, gp, dir / "level.graph", context);
            REQUIRE_MESSAGE(made.ok(), made.error().message);
            CHECK(test::countOf(*made, "scene_rooms") == 2);
            auto g = graph::loadGraph(dir / "level.graph");
            REQUIRE_MESSAGE(g.ok(), g.error().message);
            REQUIRE(g->rooms.size() == 2);
            CHECK(g->rooms[0].label == "nav_cluster_west");
            CHECK(g->rooms[1].name == "level.obj: object 'nav_cluster_east'");

            // Scene rooms first, then the config's; group costs may name scene rooms.
            cluster::ClusterParams params = manual({box("corridor", {0, -1, 6}, {12, 2, 9})});
            params.group_costs = {{"nav_cluster_west", "corridor", 3, "level.json: cost"}};
            auto result = cluster::ClusterStage::run({dir / "level.graph"}, params,
                                                     dir / "level.clu", context);
            REQUIRE_MESSAGE(result.ok(), result.error().message);
            auto c = cluster::loadClusters(dir / "level.clu");
            REQUIRE_MESSAGE(c.ok(), c.error().message);
            REQUIRE(c->rooms.size() == 3);
            CHECK(c->rooms[0].name == "nav_cluster_west");
            CHECK(c->rooms[0].where == "level.obj: object 'nav_cluster_west'");
            CHECK(c->rooms[1].name == "nav_cluster_east");
            CHECK(c->rooms[2].name == "corridor");
            REQUIRE(c->group_costs.size() == 1);
            CHECK(c->group_costs[0].from == 0);
            CHECK(c->group_costs[0].to == 2);
            std::vector<cluster::Room> as_config = {
                box("nav_cluster_west", {0, -1, 0}, {6, 2, 6}),
                box("nav_cluster_east", {6.5f, -1, 0}, {12, 2, 6}),
                box("corridor", {0, -1, 6}, {12, 2, 9})};
            const std::vector<uint32_t> expected = expectedRooms(*g, as_config);
            for (uint32_t v = 0; v < g->nodeCount(); ++v)
                CHECK(c->cluster_rooms[c->node_clusters[v]] == expected[v]);
            CHECK(std::count(expected.begin(), expected.end(), 0u) > 0);
            CHECK(std::count(expected.begin(), expected.end(), 1u) > 0);

            // The runtime asset carries neither the scene rooms nor CLRM, and navrt takes the
            // manual clusters' sections.
            REQUIRE(cluster::HierarchyStage::run({dir / "level.graph", dir / "level.clu"}, {},
                                                 dir / "level.hier", context)
                        .ok());
            REQUIRE(pack::PackStage::run(
                        {dir / "level.graph", dir / "level.clu", dir / "level.hier", {}}, {},
                        dir / "level.nav", context)
                        .ok());
            auto nav = loadContainer(dir / "level.nav");
            REQUIRE(nav.ok());
            CHECK_FALSE(nav->has(formats::kSecMarkers));
            CHECK_FALSE(nav->has(formats::kSecClusterRooms));
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load((dir / "level.nav").c_str(), asset));
            navrt::GraphView view;
            CHECK_FALSE(navrt::viewGraph(asset, view));

            // A config room named like a scene room is an error naming both.
            cluster::ClusterParams twice = manual({box("nav_cluster_east", {0, 0, 0}, {1, 1, 1})});
            auto clash =
                cluster::ClusterStage::run({dir / "level.graph"}, twice, dir / "x.clu", context);
            REQUIRE_FALSE(clash.ok());
            CHECK(clash.error().message ==
                  "test: room 'nav_cluster_east': room 'nav_cluster_east' is also level.obj: "
                  "object 'nav_cluster_east': room names must be unique");
        }

        // A graph carries cluster markers only.
        auto g = graph::loadGraph(dir / "level.graph");
        REQUIRE(g.ok());
        g->rooms[1].kind = geometry::MarkerKind::seed;
        REQUIRE(graph::saveGraph(dir / "bad.graph", *g).ok());
        auto bad = graph::loadGraph(dir / "bad.graph");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find("section 'SMRK' holds a seed marker (level.obj: object "
                                       "'nav_cluster_east'); a graph carries only cluster "
                                       "markers") != std::string::npos);
    }

    TEST_CASE("bad rooms and group costs are errors naming the JSON path") {
        test::TempDir dir;
        const std::string map =
            "type octile\nheight 4\nwidth 6\nmap\n......\n......\n......\n......\n";
        test::writeText(dir / "a.map", map);
        auto parse = [&](const std::string& clusters) {
            return pipeline::parseLevelConfig(
                R"({"input": "a.map", "agents": [{"graphs": ["tile"], "clusters": )" + clusters +
                    "}]}",
                dir / "level.json");
        };
        auto message = [&](const std::string& clusters) {
            auto config = parse(clusters);
            if (config.ok()) return std::string("no error");
            return config.error().message;
        };
        const std::string at = (dir / "level.json").string() + ": $.agents[0].clusters.";
        const std::string where = "level.json: $.agents[0].clusters.";
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "hall", "min": [5, 0, 0], "max": [1, 1, 1]}]})") ==
            at + "rooms[0]: min 5 > max 1 along x");
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "", "min": [0, 0, 0], "max": [1, 1, 1]}]})") ==
            at + "rooms[0].name: empty (give the room a name)");
        CHECK(message(R"({"method": "manual", "rooms": [{"min": [0, 0, 0], "max": [1, 1, 1]}]})") ==
              at + "rooms[0].name: missing (the room's unique name)");
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "a", "min": [0, 0, 0], "max": [1, 1, 1]}, {"name": "a", "min": [0, 0, 0], "max": [2, 2, 2]}]})") ==
            at + "rooms[1].name: 'a' is the name of " + where + "rooms[0] too");
        // Not a finite number (JSON has no NaN; 1e39 is beyond a float).
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "a", "min": [0, 0, 0], "max": [1e39, 1, 1]}]})")
                .find(at + "rooms[0].max: expected [x, y, z]") == 0);
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "a", "points": [[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1]]}]})")
                .find(at + "rooms[0].points: the 4 points span no volume") == 0);
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "a", "min": [0, 0, 0], "max": [1, 1, 1], "representative": [0, 0]}]})")
                .find(at + "rooms[0].representative: expected [x, y, z]") == 0);
        CHECK(
            message(
                R"({"method": "manual", "rooms": [{"name": "a", "min": [0, 0, 0], "max": [1, 1, 1], "size": 3}]})")
                .find(at + "rooms[0].size: unknown key (allowed here: name, min, max, points, "
                           "representative)") == 0);
        CHECK(
            message(
                R"({"method": "manual", "group_costs": [{"from": "a", "to": "b", "cost": -1}]})") ==
            at + "group_costs[0].cost: -1 (must be > 0)");
        CHECK(
            message(
                R"({"method": "manual", "group_costs": [{"from": "a", "to": "a", "cost": 1}]})") ==
            at + "group_costs[0].to: 'a' is also \"from\": a cost joins two rooms");
        CHECK(message(R"({"method": "manual", "group_costs": [{"from": "a", "cost": 1}]})") ==
              at + "group_costs[0].to: missing (a room's name)");
        // Rooms without method manual, and a target count with it: the stage's check.
        CHECK(message(R"({"rooms": [{"name": "a", "min": [0, 0, 0], "max": [1, 1, 1]}]})")
                  .find("invalid cluster parameters: $.agents[0].clusters.rooms = 1 rooms (must "
                        "be given with method manual only)") != std::string::npos);
        CHECK(message(R"({"method": "manual", "clusters": 4})")
                  .find("$.agents[0].clusters.clusters = 4 (must be 0 with method manual: the "
                        "rooms decide)") != std::string::npos);

        // Names are resolved when the graph (and its scene rooms) is known: an unknown room in a
        // group cost names its JSON path.
        auto config = parse(
            R"({"method": "manual", "rooms": [{"name": "hall", "min": [0, -1, 0], "max": [3, 1, 4]}, {"name": "armoury", "min": [3, -1, 0], "max": [6, 1, 4], "representative": [4, 0, 2]}], "group_costs": [{"from": "hall", "to": "armory", "cost": 40}]})");
        REQUIRE_MESSAGE(config.ok(), config.error().message);
        const cluster::ClusterParams& params = config->agents[0].cluster;
        REQUIRE(params.rooms.size() == 2);
        CHECK(params.rooms[1].where == where + "rooms[1]");
        CHECK(params.rooms[1].has_representative);
        const graph::Graph g = test::tileGraphOfText(map);
        REQUIRE(graph::saveGraph(dir / "a.graph", g).ok());
        Context context;
        auto unknown =
            cluster::ClusterStage::run({dir / "a.graph"}, params, dir / "a.clu", context);
        REQUIRE_FALSE(unknown.ok());
        CHECK(unknown.error().message ==
              where + "group_costs[0].to: 'armory' is not a room (rooms: 'hall', 'armoury')");
        cluster::ClusterParams pair = params;
        pair.group_costs = {{"hall", "armoury", 1, "x"}, {"hall", "armoury", 2, "y"}};
        auto twice = cluster::ClusterStage::run({dir / "a.graph"}, pair, dir / "a.clu", context);
        REQUIRE_FALSE(twice.ok());
        CHECK(twice.error().message ==
              "y: a second cost from 'hall' to 'armoury' (the first is x)");
        cluster::ClusterParams none = params;
        none.rooms.clear();
        none.group_costs.clear();
        auto empty = cluster::ClusterStage::run({dir / "a.graph"}, none, dir / "a.clu", context);
        REQUIRE_FALSE(empty.ok());
        CHECK(empty.error().message.find("method manual needs rooms") == 0);

        // The cache key changes with the rooms and the group costs, not with the threads.
        auto keyOf = [](const cluster::ClusterParams& p) {
            StageKey key;
            cluster::ClusterStage::describe(p, key);
            return key.text();
        };
        cluster::ClusterParams other = params;
        CHECK(keyOf(other) == keyOf(params));
        other.threads = 3;
        CHECK(keyOf(other) == keyOf(params));
        other.rooms[1].representative[0] = 5;
        CHECK(keyOf(other) != keyOf(params));
        other = params;
        other.group_costs[0].cost = 41;
        CHECK(keyOf(other) != keyOf(params));
        other = params;
        other.rooms[0].box.max[2] = 5;
        CHECK(keyOf(other) != keyOf(params));

        // A rooms file (navbake cluster --rooms) names its own paths.
        test::writeText(dir / "rooms.json",
                        R"({"rooms": [{"name": "hall", "min": [0, 0, 0], "max": [1, 1, 1]}], )"
                        R"("group_costs": [{"from": "hall", "to": "yard", "cost": "high"}]})");
        cluster::ClusterParams from_file;
        Status loaded = cluster::loadRoomsFile(dir / "rooms.json", from_file);
        REQUIRE_FALSE(loaded.ok());
        CHECK(loaded.error().message.find("rooms.json: $.group_costs[0].cost: expected a number") !=
              std::string::npos);
        // A corrupt CLRM names the section and byte.
        cluster::ClusterParams good = params;
        good.group_costs.clear();
        REQUIRE(cluster::ClusterStage::run({dir / "a.graph"}, good, dir / "a.clu", context).ok());
        auto c = cluster::loadClusters(dir / "a.clu");
        REQUIRE(c.ok());
        c->rooms[1].representative = 0;
        c->cluster_rooms.assign(c->count(), 0);
        REQUIRE(cluster::saveClusters(dir / "b.clu", *c).ok());
        auto corrupt = cluster::loadClusters(dir / "b.clu");
        REQUIRE_FALSE(corrupt.ok());
        CHECK(corrupt.error().message.find("b.clu: section 'CLRM' at byte ") != std::string::npos);
        CHECK(corrupt.error().message.find("representative node 0 is not in room 1") !=
              std::string::npos);
    }
}
