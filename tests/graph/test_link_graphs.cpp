// Links through every graph kind and table (issue 13), each against an oracle: tile graphs with
// teleports (links cheaper than their length) searched by A* with the standard and the cluster
// heuristic, HPA* and next hops, all equal to Dijkstra; points-of-visibility graphs with links
// exact against an independent any-angle oracle; navmesh paths through generated links within the
// usual tolerance of the tile graph and never cutting a link; volume graphs with teleports equal
// to a Dijkstra over the voxels; tables on a navmesh graph with links optimal, updates = rebuilds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/runtime/navrt_hier.h"
#include "lib/runtime/navrt_nexthop.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/pov/pov_oracle.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

using test::roomsMapText;

// Every segment the straight path says takes a link runs from one of that link's ends to the
// other (the two points as the record holds them); returns how many there are.
uint32_t checkLinkSegments(const navrt::GraphView& view, const std::vector<navrt::Vec3>& points,
                           const std::vector<uint32_t>& segment_links, uint32_t count) {
    uint32_t segments = 0;
    for (uint32_t i = 0; i + 1 < count; ++i) {
        if (segment_links[i] == formats::kNoLink) continue;
        ++segments;
        const formats::LinkRecord l = view.link(segment_links[i]);
        const bool forward = points[i].x == l.from[0] && points[i].z == l.from[2] &&
                             points[i + 1].x == l.to[0] && points[i + 1].z == l.to[2];
        const bool back = points[i].x == l.to[0] && points[i].z == l.to[2] &&
                          points[i + 1].x == l.from[0] && points[i + 1].z == l.from[2];
        CHECK((forward || back));
    }
    return segments;
}

void attach(graph::Graph& g, const std::vector<geometry::LinkSpec>& links) {
    Context context;
    graph::LinkResolveStats stats;
    const Status s = graph::attachLinks(g, links, 1, stats, context);
    REQUIRE_MESSAGE(s.ok(), s.error().message);
}

}  // namespace

TEST_SUITE("links") {
    TEST_CASE("teleports: A*, cluster heuristic, HPA* and next hops equal Dijkstra") {
        test::TempDir dir;
        // 5 teleports: the exact shortcut heuristic; 80: more than it keeps, the cheap fallback.
        for (int teleports : {5, 80}) {
            INFO(teleports, " teleports");
            graph::Graph g = test::tileGraphOfText(roomsMapText(7), "rooms.map");
            std::mt19937 random{unsigned(teleports)};
            const uint32_t n = uint32_t(g.nodeCount());
            std::vector<geometry::LinkSpec> specs;
            uint32_t id = 1;
            for (int k = 0; k < teleports; ++k)
                specs.push_back(test::specBetween(g, uint32_t(random() % n), uint32_t(random() % n),
                                                  formats::LinkType::teleport, k % 2 == 0, id++));
            for (int k = 0; k < 10; ++k)
                specs.push_back(test::specBetween(g, uint32_t(random() % n), uint32_t(random() % n),
                                                  formats::LinkType::jump, false, id++));
            specs.erase(std::remove_if(specs.begin(), specs.end(),
                                       [](const geometry::LinkSpec& l) {
                                           return l.from[0] == l.to[0] && l.from[2] == l.to[2];
                                       }),
                        specs.end());
            attach(g, specs);
            Context context;
            cluster::ClusterParams cp;
            cp.cluster_size = 6;
            auto clusters = cluster::buildClusters(g, cp, context);
            REQUIRE(clusters.ok());
            cluster::HierarchyParams hp;
            hp.entrances = formats::EntranceMode::all;
            auto hierarchy = cluster::buildHierarchy(g, *clusters, hp, context);
            REQUIRE(hierarchy.ok());
            auto table = nexthop::buildTable(g, {}, context);
            REQUIRE(table.ok());
            test::PackedAsset p;
            test::packAsset(g, dir / "t.nav", p, [&](formats::ContainerWriter& w) {
                cluster::addClusterSections(w, *clusters);
                cluster::addHierarchySections(w, *hierarchy);
                nexthop::addNextHopSections(w, *table);
            });
            REQUIRE_FALSE(p.error);
            navrt::PathQuery standard, clustered;
            REQUIRE_FALSE(standard.init(p.view));
            REQUIRE_FALSE(clustered.init(p.view));
            REQUIRE_FALSE(clustered.setHeuristic(navrt::Heuristic::cluster));
            navrt::HierarchicalQuery hier;
            REQUIRE_FALSE(hier.init(p.view));
            navrt::NextHopQuery hops;
            REQUIRE_FALSE(hops.init(p.view));
            int teleported = 0, checked = 0;
            for (int trial = 0; trial < 25; ++trial) {
                const uint32_t s = uint32_t(random() % n);
                const std::vector<double> dist = test::shortestFrom(g, s);
                for (int k = 0; k < 6; ++k) {
                    const uint32_t goal = uint32_t(random() % n);
                    INFO("start ", s, " goal ", goal);
                    if (!std::isfinite(dist[goal])) {
                        CHECK(standard.findPath(s, goal) == navrt::PathStatus::no_path);
                        continue;
                    }
                    ++checked;
                    REQUIRE(standard.findPath(s, goal) == navrt::PathStatus::found);
                    CHECK(standard.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    for (uint32_t i = 0; i + 1 < standard.pathLength(); ++i) {
                        const uint32_t link = standard.pathLink(i);
                        if (link != formats::kNoLink &&
                            p.view.link(link).type == formats::LinkType::teleport)
                            ++teleported;
                    }
                    REQUIRE(clustered.findPath(s, goal) == navrt::PathStatus::found);
                    CHECK(clustered.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    navrt::HierOptions entrances;
                    entrances.mode = navrt::HierMode::entrances;
                    REQUIRE(hier.findPath(s, goal, entrances) == navrt::PathStatus::found);
                    CHECK(hier.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    REQUIRE(hops.pathByNextHop(s, goal) == navrt::PathStatus::found);
                    CHECK(hops.cost() == doctest::Approx(dist[goal]).epsilon(1e-5));
                    // The cluster table stays a lower bound.
                    CHECK(clusters->bound(clusters->node_clusters[s],
                                          clusters->node_clusters[goal]) <= dist[goal] + 1e-4);
                }
            }
            CHECK(checked > 100);
            CHECK(teleported > 0);  // shortest paths do take teleports
        }
    }

    TEST_CASE("links on POV graphs: exact against an independent any-angle oracle") {
        const std::string text = roomsMapText(3);
        auto map = importer::parseMovingAiMap(text, "rooms.map");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        Context context;
        auto pov = graph::buildPovGraph(grid, {}, context);
        REQUIRE(pov.ok());
        graph::Graph tile = test::tileGraphOf(*map, "rooms.map");
        // Links between free cell centres: two teleports, three jumps, a two-way climb.
        std::mt19937 random(11);
        std::vector<geometry::LinkSpec> specs;
        const uint32_t n = uint32_t(tile.nodeCount());
        const formats::LinkType types[] = {formats::LinkType::teleport, formats::LinkType::teleport,
                                           formats::LinkType::jump,     formats::LinkType::jump,
                                           formats::LinkType::jump,     formats::LinkType::climb};
        for (uint32_t k = 0; k < 6; ++k)
            specs.push_back(test::specBetween(tile, uint32_t(random() % n), uint32_t(random() % n),
                                              types[k], k == 5, k + 1));
        attach(*pov, specs);
        CHECK(pov->links.size() == 6);
        // The oracle's links: the resolved ends (cell centres) and costs.
        std::vector<test::GridOracle::Link> oracle_links;
        for (const formats::LinkRecord& l : pov->links)
            oracle_links.push_back({{l.from[0], l.from[2]},
                                    {l.to[0], l.to[2]},
                                    l.cost,
                                    (l.flags & formats::kLinkFlagBidirectional) != 0});
        const test::GridOracle oracle(*map);
        test::TempDir dir;
        test::PackedAsset p;
        test::packAsset(*pov, dir / "p.nav", p, [](auto&) {});
        REQUIRE_FALSE(p.error);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(p.view));
        std::uniform_real_distribution<float> unit(0.05f, 0.95f);
        int found = 0, linked = 0;
        std::vector<navrt::Vec3> points(4096);
        std::vector<uint32_t> segment_links(4096);
        for (int trial = 0; trial < 60; ++trial) {
            uint32_t sx, sy, gx, gy;
            do {
                sx = uint32_t(random() % map->width), sy = uint32_t(random() % map->height);
            } while (!map->isPassable(sx, sy));
            do {
                gx = uint32_t(random() % map->width), gy = uint32_t(random() % map->height);
            } while (!map->isPassable(gx, gy));
            const navrt::Vec3 from{float(sx) + unit(random), 0, float(sy) + unit(random)};
            const navrt::Vec3 to{float(gx) + unit(random), 0, float(gy) + unit(random)};
            INFO("from ", from.x, ",", from.z, " to ", to.x, ",", to.z);
            const double expected =
                oracle.shortestPath({from.x, from.z}, {to.x, to.z}, oracle_links);
            const navrt::PathStatus status = query.findPathBetween(
                from, navrt::locate(p.view, from), to, navrt::locate(p.view, to));
            if (expected < 0) {
                CHECK(status == navrt::PathStatus::no_path);
                continue;
            }
            REQUIRE(status == navrt::PathStatus::found);
            ++found;
            CHECK(query.cost() == doctest::Approx(expected).epsilon(1e-5));
            // Link steps are segments of the path, named.
            const uint32_t count = query.smooth(points.data(), 4096, segment_links.data());
            linked += checkLinkSegments(p.view, points, segment_links, count);
        }
        CHECK(found > 40);
        CHECK(linked > 0);
    }

    TEST_CASE(
        "links on navmesh, tile and POV graphs of one level: same reachability, navmesh "
        "within 5% of the tile graph, the straight path never cuts a link") {
        // Platforms of several heights on a floor, drops generated off them (one two-way).
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {34, 0, 14});
        const double heights[3] = {1.2, 2.0, 3.0};
        for (int k = 0; k < 3; ++k) b.box({4.0 + 10 * k, 0, 4}, {9.0 + 10 * k, heights[k], 10});
        const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
        Context context;
        const std::vector<geometry::LinkSpec> drops = test::generatedDrops(grid, 3.2f, 1.3f);
        auto tile = graph::buildTileGraph(grid, context);
        auto mesh = graph::buildNavmeshGraph(grid, {}, context);
        auto pov = graph::buildPovGraph(grid, {}, context);
        REQUIRE(tile.ok());
        REQUIRE(mesh.ok());
        REQUIRE(pov.ok());
        attach(*tile, drops);
        attach(*mesh, drops);
        attach(*pov, drops);
        CHECK(mesh->links.size() >= drops.size());
        test::TempDir dir;
        test::PackedAsset pt, pm, pp;
        test::packAsset(*tile, dir / "t.nav", pt, [](auto&) {});
        test::packAsset(*mesh, dir / "m.nav", pm, [](auto&) {});
        test::packAsset(*pov, dir / "p.nav", pp, [](auto&) {});
        REQUIRE_FALSE(pt.error);
        REQUIRE_FALSE(pm.error);
        REQUIRE_MESSAGE(!pp.error, pp.error.message);
        navrt::PathQuery qt, qm, qp;
        REQUIRE_FALSE(qt.init(pt.view));
        REQUIRE_FALSE(qm.init(pm.view));
        REQUIRE_FALSE(qp.init(pp.view));
        std::mt19937 random(5);
        const uint32_t n = uint32_t(tile->nodeCount());
        std::vector<navrt::Vec3> points(4096);
        std::vector<uint32_t> segment_links(4096);
        int found = 0, no_path = 0, via_links = 0;
        double worst = 0;
        for (int trial = 0; trial < 150; ++trial) {
            const uint32_t s = uint32_t(random() % n), t = uint32_t(random() % n);
            const navrt::Vec3 from = pt.view.position(s), to = pt.view.position(t);
            INFO("from ", from.x, ",", from.y, ",", from.z, " to ", to.x, ",", to.y, ",", to.z);
            const navrt::MeshPoint ms = navrt::locateOnMesh(pm.view, from, 0.5f, 0.5f);
            const navrt::MeshPoint mt = navrt::locateOnMesh(pm.view, to, 0.5f, 0.5f);
            if (ms.poly == navrt::kNoNode || mt.poly == navrt::kNoNode) continue;
            const navrt::PathStatus st = qt.findPathBetween(from, s, to, t);
            const navrt::PathStatus sm =
                qm.findPathBetween(ms.position, ms.poly, mt.position, mt.poly);
            const navrt::PathStatus sp = qp.findPathBetween(from, navrt::locate(pp.view, from), to,
                                                            navrt::locate(pp.view, to));
            CHECK(sm == st);
            CHECK(sp == st);
            if (st != navrt::PathStatus::found) {
                ++no_path;
                continue;
            }
            ++found;
            // POV is exact on the cell surface: never above the tile graph's octile cost.
            CHECK(qp.cost() <= qt.cost() + 1e-3);

            // Every link the navmesh path takes is one straight segment, take-off to landing.
            uint32_t links_taken = 0;
            for (uint32_t i = 0; i + 1 < qm.pathLength(); ++i)
                links_taken += qm.pathLink(i) != formats::kNoLink;
            const uint32_t count = qm.smooth(points.data(), 4096, segment_links.data());
            CHECK(checkLinkSegments(pm.view, points, segment_links, count) == links_taken);
            // The straight path's cost (its segments' lengths, links at their costs; every area
            // costs 1 here) within the usual 5% of the tile graph's.
            double straight = 0;
            for (uint32_t i = 0; i + 1 < count; ++i) {
                if (segment_links[i] != formats::kNoLink) {
                    const formats::LinkRecord l = pm.view.link(segment_links[i]);
                    straight += points[i].x == l.from[0] && points[i].z == l.from[2]
                                    ? l.cost
                                    : l.reverse_cost;
                } else {
                    straight += std::sqrt(
                        double(points[i + 1].x - points[i].x) * (points[i + 1].x - points[i].x) +
                        double(points[i + 1].y - points[i].y) * (points[i + 1].y - points[i].y) +
                        double(points[i + 1].z - points[i].z) * (points[i + 1].z - points[i].z));
                }
            }
            CHECK(straight <= qt.cost() * 1.05 + 1e-3);
            CHECK(straight >= qp.cost() * 0.97);  // not far below the exact any-angle cost
            worst = std::max(worst, straight / std::max(qt.cost(), 1e-9));
            via_links += links_taken > 0;
        }
        MESSAGE("navmesh straight path / tile path cost, worst ", worst, "; ", found, " found, ",
                no_path, " no path, ", via_links, " through links");
        CHECK(found > 50);
        CHECK(no_path > 0);  // the 2 m and 3 m platforms cannot be climbed back onto
        CHECK(via_links > 10);
    }

    TEST_CASE("volume graphs: teleports, A* equal to a Dijkstra over voxels and links") {
        auto map = importer::loadVoxelMap3D(test::sampleLevels() / "maze3d.3dmap");
        REQUIRE(map.ok());
        Context context;
        auto g = graph::buildVolumeGraph(importer::gridFromVoxelMap(*map), 0.0f, context);
        REQUIRE(g.ok());
        std::vector<uint32_t> free_voxels;
        for (uint32_t i = 0; i < g->nodeCount(); ++i)
            if ((g->free_voxels[i >> 6] >> (i & 63)) & 1) free_voxels.push_back(i);
        const formats::GraphHeader& h = g->header;
        auto centre = [&](uint32_t v, float out[3]) {
            const uint32_t x = v % h.size_x, rest = v / h.size_x;
            out[0] = h.origin[0] + (float(x) + 0.5f) * h.cell_size;
            out[1] = h.origin[1] + (float(rest / h.size_z) + 0.5f) * h.cell_height;
            out[2] = h.origin[2] + (float(rest % h.size_z) + 0.5f) * h.cell_size;
        };
        std::mt19937 random(3);
        std::vector<geometry::LinkSpec> specs;
        for (uint32_t k = 0; k < 4; ++k) {
            geometry::LinkSpec l;
            l.name = "teleport " + std::to_string(k);
            l.id = k + 1;
            l.type = formats::LinkType::teleport;
            l.bidirectional = k % 2 == 1;
            centre(free_voxels[random() % free_voxels.size()], l.from);
            centre(free_voxels[random() % free_voxels.size()], l.to);
            specs.push_back(l);
        }
        // A door that names no agent: not for flyers (the graph stage drops it); here added
        // directly, it is refused by nothing and costs its length + 1.
        attach(*g, specs);
        REQUIRE(g->links.size() == 4);
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "v.nav", *g, formats::kKindNav).ok());
        auto loaded = graph::loadGraph(dir / "v.nav");
        REQUIRE_FALSE(loaded.ok());  // a .nav is not a .graph
        REQUIRE(graph::saveGraph(dir / "v.graph", *g).ok());
        auto back = graph::loadGraph(dir / "v.graph");
        REQUIRE(back.ok());
        CHECK(back->links.size() == 4);
        CHECK(back->header.component_count == g->header.component_count);
        navrt::Asset asset;
        REQUIRE_FALSE(navrt::load((dir / "v.nav").c_str(), asset));
        navrt::GraphView view;
        REQUIRE_FALSE(navrt::viewGraph(asset, view));
        REQUIRE(view.link_count == 4);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(view));
        // Dijkstra over the graph's free voxels (the MovingAI 3D rule) and its links.
        auto dijkstra = [&](uint32_t source) {
            return test::voxelDijkstra(
                h.size_x, h.size_y, h.size_z, h.cell_size, h.cell_height, source,
                [&](uint32_t x, uint32_t y, uint32_t z) {
                    const uint32_t i = (y * h.size_z + z) * h.size_x + x;
                    return bool((g->free_voxels[i >> 6] >> (i & 63)) & 1);
                },
                [&](uint32_t i, auto&& relax) {
                    for (const formats::LinkRecord& l : g->links) {
                        if (l.from_node == i) relax(l.to_node, double(l.cost));
                        if ((l.flags & formats::kLinkFlagBidirectional) && l.to_node == i)
                            relax(l.from_node, double(l.reverse_cost));
                    }
                });
        };
        int teleported = 0;
        for (int trial = 0; trial < 12; ++trial) {
            const uint32_t s = free_voxels[random() % free_voxels.size()];
            const std::vector<double> dist = dijkstra(s);
            for (int k = 0; k < 8; ++k) {
                const uint32_t t = free_voxels[random() % free_voxels.size()];
                INFO("start ", s, " goal ", t);
                if (!std::isfinite(dist[t])) {
                    CHECK(query.findPath(s, t) == navrt::PathStatus::no_path);
                    continue;
                }
                REQUIRE(query.findPath(s, t) == navrt::PathStatus::found);
                CHECK(query.cost() == doctest::Approx(dist[t]).epsilon(1e-6));
                for (uint32_t i = 0; i + 1 < query.pathLength(); ++i)
                    teleported += query.pathLink(i) != formats::kNoLink;
            }
        }
        CHECK(teleported > 0);
    }

    TEST_CASE(
        "tables on a navmesh graph with links: next hops optimal, cluster bounds, "
        "update = rebuild when links come and go") {
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {24, 0, 12});
        b.box({4, 0, 3}, {9, 1.2, 9});
        b.box({14, 0, 3}, {19, 2.4, 9});
        const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
        Context context;
        const std::vector<geometry::LinkSpec> drops = test::generatedDrops(grid, 3.0f, 1.3f);
        auto plain = graph::buildNavmeshGraph(grid, {}, context);
        REQUIRE(plain.ok());
        graph::Graph linked = *plain;
        attach(linked, drops);
        REQUIRE_FALSE(linked.links.empty());
        CHECK(graph::edgeSymmetry(linked) == graph::Symmetry::directed);
        auto table = nexthop::buildTable(linked, {}, context);
        REQUIRE(table.ok());
        cluster::ClusterParams cp;
        cp.cluster_size = 4;
        auto clusters = cluster::buildClusters(linked, cp, context);
        REQUIRE(clusters.ok());
        test::TempDir dir;
        test::PackedAsset p;
        test::packAsset(linked, dir / "n.nav", p, [&](formats::ContainerWriter& w) {
            nexthop::addNextHopSections(w, *table);
        });
        REQUIRE_FALSE(p.error);
        navrt::NextHopQuery hops;
        REQUIRE_FALSE(hops.init(p.view));
        const uint32_t n = uint32_t(linked.nodeCount());
        int checked = 0;
        for (uint32_t s = 0; s < n; ++s) {
            const std::vector<double> dist = test::shortestFrom(linked, s);
            for (uint32_t t = 0; t < n; ++t) {
                CHECK(clusters->bound(clusters->node_clusters[s], clusters->node_clusters[t]) <=
                      dist[t] + 1e-4);
                if (!std::isfinite(dist[t])) {
                    CHECK(hops.pathByNextHop(s, t) == navrt::PathStatus::no_path);
                    continue;
                }
                REQUIRE(hops.pathByNextHop(s, t) == navrt::PathStatus::found);
                CHECK(hops.cost() == doctest::Approx(dist[t]).epsilon(1e-5));
                ++checked;
            }
        }
        CHECK(checked > 100);
        // Links added to the plain graph, then taken away: each update equals a rebuild.
        auto base = nexthop::buildTable(*plain, {}, context);
        REQUIRE(base.ok());
        test::checkUpdatesEqualRebuilds(*plain, *base, {&linked, &*plain}, dir);
    }
}
