// Acceptance (issue 16): navrt::Navigator's time-sliced search returns, in steps of any size, the
// path one call returns (tile, volume, navmesh with links, POV graphs), and a search stopped early
// (a budget, finish()) gives its best partial path.
#include <doctest/doctest.h>

#include <cmath>
#include <queue>
#include <random>

#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/runtime/navrt_navigator.h"
#include "lib/runtime/navrt_views.h"
#include "tests/graph_test_support.h"
#include "tests/runtime/navigator_levels.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct Level {
    std::string name;
    test::PackedAsset packed;
};

// A point near a random node of the graph (within half a metre across, on its floor).
navrt::Vec3 randomPoint(const navrt::GraphView& g, std::mt19937& random) {
    std::uniform_int_distribution<uint32_t> node(0, g.nodeCount() - 1);
    std::uniform_real_distribution<float> jitter(-0.5f, 0.5f);
    uint32_t v = node(random);
    while (!g.isFree(v)) v = node(random);
    const navrt::Vec3 p = g.position(v);
    return {p.x + jitter(random), p.y, p.z + jitter(random)};
}

std::vector<std::unique_ptr<Level>> levels(const test::TempDir& dir) {
    std::vector<std::unique_ptr<Level>> out;
    auto add = [&](const std::string& name, const graph::Graph& g) {
        auto level = std::make_unique<Level>();
        level->name = name;
        test::packAsset(g, dir / (name + ".nav"), level->packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(level->packed.error);
        out.push_back(std::move(level));
    };
    add("tile", test::tileGraphOfText(test::roomsMapText(5), "rooms.map"));
    add("navmesh", test::platformsMesh());
    {
        Context context;
        auto mesh = graph::buildNavmeshGraph(test::serpentineGrid(), {}, context);
        REQUIRE(mesh.ok());
        add("serpentine navmesh", *mesh);
    }
    {
        const voxel::VoxelGrid grid = test::platformsGrid();
        Context context;
        auto pov = graph::buildPovGraph(grid, {}, context);
        REQUIRE(pov.ok());
        test::attachPlatformLinks(grid, *pov);
        add("pov", *pov);
    }
    {
        auto map = importer::loadVoxelMap3D(test::sampleLevels() / "maze3d.3dmap");
        REQUIRE(map.ok());
        Context context;
        auto volume = graph::buildVolumeGraph(importer::gridFromVoxelMap(*map), 0.0f, context);
        REQUIRE(volume.ok());
        add("volume", *volume);
    }
    return out;
}

std::vector<navrt::Vec3> straight(const navrt::Navigator& n, std::vector<uint32_t>* links) {
    std::vector<navrt::Vec3> points(n.straightPath(nullptr, 0));
    std::vector<uint32_t> l(points.size());
    n.straightPath(points.data(), uint32_t(points.size()), l.data());
    if (links != nullptr) *links = l;
    return points;
}

bool samePoints(const std::vector<navrt::Vec3>& a, const std::vector<navrt::Vec3>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].x != b[i].x || a[i].y != b[i].y || a[i].z != b[i].z) return false;
    return true;
}

}  // namespace

TEST_SUITE("navigator") {
    TEST_CASE(
        "sliced search in steps of 1..N returns the path one call returns, on every graph kind") {
        test::TempDir dir;
        for (const auto& level : levels(dir)) {
            INFO(level->name);
            const navrt::GraphView& g = level->packed.view;
            navrt::Navigator whole, sliced;
            REQUIRE_FALSE(whole.init(g));
            REQUIRE_FALSE(sliced.init(g));
            navrt::LocateOptions locate;
            locate.snap = 1.5f;
            std::mt19937 random(17);
            int found = 0, long_searches = 0;
            for (int trial = 0; trial < 40; ++trial) {
                const navrt::Vec3 a = randomPoint(g, random), b = randomPoint(g, random);
                const navrt::NavStatus one = whole.findPath(a, b, locate);
                std::vector<uint32_t> whole_links;
                const std::vector<navrt::Vec3> whole_path = straight(whole, &whole_links);
                found += one == navrt::NavStatus::found;
                long_searches += whole.expansions() > 16;
                for (uint32_t step : {1u, 2u, 3u, 7u, 64u, 256u}) {
                    INFO("step " << step);
                    navrt::NavStatus s = sliced.beginPath(a, b, locate);
                    uint32_t calls = 0;
                    while (s == navrt::NavStatus::in_progress) {
                        s = sliced.step(step);
                        ++calls;
                        REQUIRE(calls <= whole.expansions() + 2);
                    }
                    REQUIRE(s == one);
                    CHECK(sliced.expansions() == whole.expansions());
                    CHECK(sliced.cost() == whole.cost());
                    REQUIRE(sliced.nodeCount() == whole.nodeCount());
                    for (uint32_t i = 0; i < whole.nodeCount(); ++i)
                        CHECK(sliced.nodes()[i] == whole.nodes()[i]);
                    std::vector<uint32_t> sliced_links;
                    CHECK(samePoints(straight(sliced, &sliced_links), whole_path));
                    CHECK(sliced_links == whole_links);
                    // Each call but the last ran `step` expansions: the search really is sliced.
                    if (one == navrt::NavStatus::found && calls > 0)
                        CHECK(calls == (whole.expansions() + step - 1) / step);
                }
            }
            MESSAGE(level->name, ": ", found, " of 40 found, ", long_searches,
                    " searches of over 16 expansions");
            CHECK(found >= 30);
            if (level->name != "navmesh") CHECK(long_searches >= 3);  // that one is small
        }
    }

    TEST_CASE("a search stopped early gives its best partial path: a budget, or finish() mid-way") {
        test::TempDir dir;
        for (const auto& level : levels(dir)) {
            INFO(level->name);
            const navrt::GraphView& g = level->packed.view;
            navrt::Navigator full, sliced;
            REQUIRE_FALSE(full.init(g));
            REQUIRE_FALSE(sliced.init(g));
            navrt::LocateOptions locate;
            locate.snap = 1.5f;
            std::mt19937 random(23);
            int partials = 0;
            for (int trial = 0; trial < 100 && partials < 8; ++trial) {
                const navrt::Vec3 a = randomPoint(g, random), b = randomPoint(g, random);
                if (full.findPath(a, b, locate) != navrt::NavStatus::found) continue;
                if (full.expansions() < 12) continue;
                // finish() after a third of the expansions.
                REQUIRE(sliced.beginPath(a, b, locate) == navrt::NavStatus::in_progress);
                REQUIRE(sliced.step(full.expansions() / 3) == navrt::NavStatus::in_progress);
                REQUIRE(sliced.finish() == navrt::NavStatus::out_of_nodes);
                CHECK(sliced.partial());
                CHECK(sliced.step(10) == navrt::NavStatus::out_of_nodes);  // over: it stays
                REQUIRE(sliced.nodeCount() >= 1);
                // It starts where the search started and follows the graph's edges.
                CHECK(sliced.nodes()[0] == full.nodes()[0]);
                if (g.edge_offsets != nullptr && !g.isPov())
                    for (uint32_t i = 0; i + 1 < sliced.nodeCount(); ++i) {
                        const uint32_t u = sliced.nodes()[i], v = sliced.nodes()[i + 1];
                        bool edge = false;
                        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
                            edge = edge || g.edgeTarget(u, e) == v;
                        CHECK(edge);
                    }
                const std::vector<navrt::Vec3> points = straight(sliced, nullptr);
                REQUIRE(points.size() >= 1);
                // It ends nearer the goal than it began (straight-line distance: the heuristic
                // where no link is a shortcut), and costs no more than the whole path.
                auto dist = [](navrt::Vec3 p, navrt::Vec3 q) {
                    return std::hypot(double(p.x) - q.x, double(p.z) - q.z);
                };
                const navrt::Vec3 goal = full.goal().position;
                if (g.link_count == 0)
                    CHECK(dist(points.back(), goal) <= dist(points.front(), goal) + 1e-6);
                CHECK(sliced.cost() <= full.cost() + 1e-9);
                // The same through an expansion budget in one call.
                navrt::Navigator budget;
                navrt::NavigatorOptions options;
                options.max_expansions = full.expansions() / 2;
                REQUIRE_FALSE(budget.init(g, options));
                CHECK(budget.findPath(a, b, locate) == navrt::NavStatus::out_of_nodes);
                CHECK(budget.partial());
                CHECK(budget.nodeCount() >= 1);
                CHECK(budget.straightPath(nullptr, 0) >= 1);
                ++partials;
            }
            CHECK(partials >= 3);
        }
    }
}

namespace {

// Dijkstra over the view's edges as navrt's restrictions define them: no blocked node, area or
// link entered (the start excepted), tile edge costs scaled by the filter's weighted multipliers.
std::vector<double> restrictedDijkstra(const navrt::GraphView& g, uint32_t source,
                                       const navrt::Blocking* blocking,
                                       const navrt::QueryFilter* filter) {
    const uint32_t n = g.nodeCount();
    std::vector<double> dist(n, HUGE_VAL);
    auto areaOf = [&](uint32_t v) {
        return uint32_t(formats::decodeNodeCell(g.cells + size_t(v) * formats::kNodeCellSize).area);
    };
    auto open = [&](uint32_t v) {
        if (blocking != nullptr && (blocking->node(v) || blocking->area(areaOf(v)))) return false;
        return filter == nullptr || !filter->excludes(areaOf(v));
    };
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open_list;
    dist[source] = 0;
    open_list.push({0.0, source});
    while (!open_list.empty()) {
        const auto [d, u] = open_list.top();
        open_list.pop();
        if (d > dist[u]) continue;
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t v = g.edgeTarget(u, e);
            if (!open(v)) continue;
            const uint32_t link = g.edgeLink(e);
            if (link != formats::kNoLink && blocking != nullptr && blocking->link(link)) continue;
            double cost = g.edge_costs[e];
            if (filter != nullptr && link == formats::kNoLink) {
                const double cu = g.area_costs[areaOf(u)], cv = g.area_costs[areaOf(v)];
                cost *= (cu * filter->area_multiplier[areaOf(u)] +
                         cv * filter->area_multiplier[areaOf(v)]) /
                        (cu + cv);
            }
            if (d + cost < dist[v]) {
                dist[v] = d + cost;
                open_list.push({dist[v], v});
            }
        }
    }
    return dist;
}

// The path is a walk along the graph's edges that enters no blocked node.
void checkOpenWalk(const navrt::GraphView& g, const navrt::Navigator& n,
                   const navrt::Blocking& blocking) {
    for (uint32_t i = 0; i < n.nodeCount(); ++i) {
        if (i > 0) CHECK_FALSE(blocking.node(n.nodes()[i]));
        if (i + 1 == n.nodeCount()) break;
        const uint32_t u = n.nodes()[i], v = n.nodes()[i + 1];
        bool edge = false;
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
            edge = edge || g.edgeTarget(u, e) == v;
        CHECK(edge);
    }
}

// A 30 x 20 m floor of ground with a strip of mud (area 2) across it, x 12..18, except for a
// ground corridor along its north edge (z > 15).
voxel::VoxelGrid mudGrid() {
    test::LevelBuilder b;
    b.g.areas.push_back({"mud", 1.0f, true});
    b.rect(0, 0, 12, 20, 0);
    b.rect(18, 0, 30, 20, 0);
    b.rect(12, 15, 18, 20, 0);
    b.rect(12, 0, 18, 15, 0, 2);
    return test::voxelizeOk(b.g, test::voxelParams());
}

}  // namespace

TEST_SUITE("navigator") {
    TEST_CASE(
        "A* with blocked nodes and areas and with area filters equals Dijkstra on what is left") {
        Context context;
        auto mud = graph::buildTileGraph(mudGrid(), context);
        REQUIRE(mud.ok());
        test::TempDir dir;
        test::PackedAsset packed;
        test::packAsset(*mud, dir / "mud.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        const navrt::GraphView& g = packed.view;
        navrt::Navigator nav;
        REQUIRE_FALSE(nav.init(g));
        navrt::Blocking blocking;
        REQUIRE_FALSE(blocking.init(g));
        std::mt19937 random(31);
        std::uniform_int_distribution<uint32_t> node(0, g.nodeCount() - 1);
        struct Setting {
            const char* name;
            bool block_nodes, block_mud;
            float mud_multiplier, ground_multiplier;
        };
        const Setting settings[] = {{"none", false, false, 1, 1},
                                    {"nodes", true, false, 1, 1},
                                    {"mud blocked", false, true, 1, 1},
                                    {"mud x4", false, false, 4, 1},
                                    {"mud excluded", false, false, 0, 1},
                                    {"ground x0.5, mud x3, nodes", true, false, 3, 0.5f}};
        int detours = 0;
        for (const Setting& setting : settings) {
            INFO(setting.name);
            blocking.clear();
            if (setting.block_nodes)
                for (int k = 0; k < int(g.nodeCount() / 20); ++k) blocking.setNode(node(random));
            blocking.setArea(2, setting.block_mud);
            navrt::QueryFilter filter;
            filter.area_multiplier[2] = setting.mud_multiplier;
            filter.area_multiplier[1] = setting.ground_multiplier;
            const bool filtered = setting.mud_multiplier != 1 || setting.ground_multiplier != 1;
            REQUIRE_FALSE(nav.setBlocking(&blocking));
            REQUIRE_FALSE(nav.setFilter(filtered ? &filter : nullptr));
            for (int trial = 0; trial < 25; ++trial) {
                uint32_t s = node(random), t = node(random);
                while (blocking.node(s)) s = node(random);
                const std::vector<double> oracle =
                    restrictedDijkstra(g, s, &blocking, filtered ? &filter : nullptr);
                const navrt::NavStatus status = nav.findPath(g.position(s), g.position(t));
                REQUIRE(nav.start().node == s);
                if (oracle[t] == HUGE_VAL) {
                    CHECK(status == navrt::NavStatus::no_path);
                    continue;
                }
                REQUIRE(status == navrt::NavStatus::found);
                CHECK(nav.cost() == doctest::Approx(oracle[t]).epsilon(1e-6));
                checkOpenWalk(g, nav, blocking);
                for (uint32_t i = 1; i < nav.nodeCount(); ++i) {
                    const uint32_t area =
                        formats::decodeNodeCell(g.cells +
                                                size_t(nav.nodes()[i]) * formats::kNodeCellSize)
                            .area;
                    if (setting.block_mud || setting.mud_multiplier == 0) CHECK(area != 2);
                }
                const std::vector<double> free = restrictedDijkstra(g, s, nullptr, nullptr);
                detours += oracle[t] > free[t] * 1.05;
            }
        }
        CHECK(detours >= 10);
        // A filter on a graph without areas is refused.
        CHECK(nav.setFilter(nullptr).code == navrt::ErrorCode::ok);
        navrt::Blocking wrong;
        test::PackedAsset rooms;
        test::packAsset(test::tileGraphOfText(test::roomsMapText(2), "rooms.map"), dir / "r.nav",
                        rooms, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(wrong.init(rooms.view));
        CHECK(nav.setBlocking(&wrong).code == navrt::ErrorCode::invalid_argument);
    }

    TEST_CASE(
        "blocking a door reroutes or reports no path, unblocking restores the path, every method") {
        // Tile rooms with every packed table: block the middle of a path (often a doorway).
        test::TempDir dir;
        test::PackedAsset packed;
        test::packRoomsWithTables(9, dir / "t.nav", packed);
        const navrt::GraphView& g = packed.view;
        navrt::Blocking blocking;
        REQUIRE_FALSE(blocking.init(g));
        std::mt19937 random(41);
        int rerouted = 0, cut = 0, table_fallbacks = 0;
        for (navrt::Method method : {navrt::Method::astar, navrt::Method::cluster,
                                     navrt::Method::hier, navrt::Method::nexthop}) {
            INFO(std::string(navrt::methodName(method)));
            navrt::Navigator nav;
            navrt::NavigatorOptions options;
            options.method = method;
            REQUIRE_FALSE(nav.init(g, options));
            REQUIRE_FALSE(nav.setBlocking(&blocking));
            for (int trial = 0; trial < 40; ++trial) {
                const navrt::Vec3 a = randomPoint(g, random), b = randomPoint(g, random);
                blocking.clear();
                if (nav.findPath(a, b) != navrt::NavStatus::found || nav.nodeCount() < 6) continue;
                const std::vector<uint32_t> original(nav.nodes(), nav.nodes() + nav.nodeCount());
                const double original_cost = nav.cost();
                const uint32_t door = original[original.size() / 2];
                blocking.setNode(door);
                const std::vector<double> oracle =
                    restrictedDijkstra(g, original.front(), &blocking, nullptr);
                const navrt::NavStatus status = nav.findPath(a, b);
                if (oracle[original.back()] == HUGE_VAL) {
                    CHECK(status == navrt::NavStatus::no_path);
                    ++cut;
                } else {
                    REQUIRE(status == navrt::NavStatus::found);
                    checkOpenWalk(g, nav, blocking);
                    CHECK(nav.nodes()[nav.nodeCount() - 1] == original.back());
                    if (navrt::returnsShortestPaths(g, method))
                        CHECK(nav.cost() >= oracle[original.back()] - 1e-6);
                    if (method == navrt::Method::astar || method == navrt::Method::cluster)
                        CHECK(nav.cost() == doctest::Approx(oracle[original.back()]));
                    ++rerouted;
                    table_fallbacks += method == navrt::Method::nexthop;
                }
                // Unblocked: the original path again.
                blocking.setNode(door, false);
                REQUIRE(nav.findPath(a, b) == navrt::NavStatus::found);
                CHECK(nav.cost() == original_cost);
                CHECK(std::vector<uint32_t>(nav.nodes(), nav.nodes() + nav.nodeCount()) ==
                      original);
            }
        }
        MESSAGE(rerouted, " rerouted, ", cut, " cut off, ", table_fallbacks,
                " next-hop walks around a blocked move");
        CHECK(rerouted >= 40);
        CHECK(table_fallbacks >= 10);

        // A navmesh: blocking the polygons of the serpentine's first gap cuts the south off.
        Context context;
        auto mesh = graph::buildNavmeshGraph(test::serpentineGrid(), {}, context);
        REQUIRE(mesh.ok());
        test::PackedAsset m;
        test::packAsset(*mesh, dir / "s.nav", m, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(m.error);
        navrt::Blocking gap;
        REQUIRE_FALSE(gap.init(m.view));
        for (navrt::Method method : {navrt::Method::astar, navrt::Method::exact}) {
            navrt::Navigator nav;
            navrt::NavigatorOptions options;
            options.method = method;
            REQUIRE_FALSE(nav.init(m.view, options));
            REQUIRE_FALSE(nav.setBlocking(&gap));
            const navrt::Vec3 south{30, 0, 3}, north{30, 0, 9};
            REQUIRE(nav.findPath(south, north) == navrt::NavStatus::found);
            const double length = nav.pathLength();
            uint32_t blocked = 0;
            for (uint32_t p = 0; p < m.view.nodeCount(); ++p) {
                const navrt::Vec3 c = m.view.position(p);
                if (c.x > 52 && c.z > 5.5f && c.z < 7) gap.setNode(p), ++blocked;
            }
            CHECK(blocked >= 1);
            CHECK(nav.findPath(south, north) == navrt::NavStatus::no_path);
            CHECK(nav.fellBack() == (method == navrt::Method::exact));
            gap.clear();
            REQUIRE(nav.findPath(south, north) == navrt::NavStatus::found);
            CHECK(nav.pathLength() == length);
            CHECK_FALSE(nav.fellBack());
        }
    }

    TEST_CASE(
        "open goal: the nearest reachable of several goals wins, as the cheapest single search") {
        test::TempDir dir;
        int pruned = 0, compared = 0;
        for (const auto& level : levels(dir)) {
            INFO(level->name);
            const navrt::GraphView& g = level->packed.view;
            for (navrt::Method method : {navrt::Method::astar, navrt::Method::exact}) {
                if (method == navrt::Method::exact && !g.isNavmesh()) continue;
                navrt::Navigator any, one;
                navrt::NavigatorOptions options;
                options.method = method;
                REQUIRE_FALSE(any.init(g, options));
                REQUIRE_FALSE(one.init(g, options));
                navrt::LocateOptions locate;
                locate.snap = 1.5f;
                std::mt19937 random(29);
                for (int trial = 0; trial < 12; ++trial) {
                    const navrt::Vec3 from = randomPoint(g, random);
                    std::vector<navrt::Vec3> goals;
                    for (int k = 0; k < 8; ++k) goals.push_back(randomPoint(g, random));
                    if (trial == 0) goals.push_back({-1000, -1000, -1000});  // off the graph
                    double best = HUGE_VAL;
                    uint32_t winner = navrt::kNoNode, separate = 0;
                    for (uint32_t k = 0; k < goals.size(); ++k) {
                        const navrt::NavStatus s = one.findPath(from, goals[k], locate);
                        separate += one.expansions();
                        if (s == navrt::NavStatus::found && one.cost() < best)
                            best = one.cost(), winner = k;
                    }
                    const navrt::NavStatus s =
                        any.findPathToAny(from, goals.data(), uint32_t(goals.size()), locate);
                    if (winner == navrt::kNoNode) {
                        CHECK(s == navrt::NavStatus::no_path);
                        continue;
                    }
                    REQUIRE(s == navrt::NavStatus::found);
                    CHECK(any.goalIndex() == winner);
                    CHECK(any.cost() == best);
                    // Its path is the winner's own.
                    REQUIRE(one.findPath(from, goals[winner], locate) == navrt::NavStatus::found);
                    CHECK(any.straightPath(nullptr, 0) == one.straightPath(nullptr, 0));
                    ++compared;
                    pruned += any.expansions() < separate;
                }
            }
        }
        MESSAGE(compared, " open-goal searches equal the best single search, ", pruned,
                " of them expanded less than the separate searches");
        CHECK(compared >= 40);
        CHECK(pruned >= compared / 3);
    }

    TEST_CASE(
        "surface queries: random points by area, moves stop at walls, raycasts, nearest points") {
        Context context;
        auto built = graph::buildNavmeshGraph(test::serpentineGrid(), {}, context);
        REQUIRE(built.ok());
        test::TempDir dir;
        test::PackedAsset packed;
        test::packAsset(*built, dir / "s.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        const navrt::GraphView& g = packed.view;
        navrt::Navigator nav;
        REQUIRE_FALSE(nav.init(g));
        // Polygon areas (shoelace in XZ), for the expected share of random points.
        std::vector<double> area(g.nodeCount());
        double total = 0;
        for (uint32_t p = 0; p < g.nodeCount(); ++p) {
            double a = 0;
            for (uint32_t k = g.poly_offsets[p]; k < g.poly_offsets[p + 1]; ++k) {
                const uint32_t next = k + 1 < g.poly_offsets[p + 1] ? k + 1 : g.poly_offsets[p];
                const float* u = g.mesh_vertices + 3 * size_t(g.poly_vertices[k]);
                const float* v = g.mesh_vertices + 3 * size_t(g.poly_vertices[next]);
                a += double(u[0]) * v[2] - double(v[0]) * u[2];
            }
            area[p] = std::fabs(a) / 2;
            total += area[p];
        }
        std::mt19937 random(12);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        const int samples = 40000;
        std::vector<int> hits(g.nodeCount(), 0);
        for (int i = 0; i < samples; ++i) {
            const navrt::Location l = nav.randomPoint(u(random), u(random), u(random));
            REQUIRE(l.node < g.nodeCount());
            ++hits[l.node];
            // Inside its polygon, on its floor.
            CHECK(nav.closestPoint(l.node, l.position).moved <= 1e-3);
        }
        int checked = 0;
        for (uint32_t p = 0; p < g.nodeCount(); ++p) {
            const double expected = samples * area[p] / total;
            if (expected < 200) continue;
            CHECK(std::fabs(hits[p] - expected) <= 5 * std::sqrt(expected));
            ++checked;
        }
        CHECK(checked >= 5);
        // Moves: open floor reaches the target; across a wall it stops south of it.
        const navrt::Location at = nav.locate({30, 0, 3});
        REQUIRE(at.node != navrt::kNoNode);
        const navrt::SurfaceMove open = nav.moveAlongSurface(at.node, at.position, {31, 0, 4.5f});
        CHECK(open.reached);
        CHECK(open.position.x == doctest::Approx(31));
        CHECK(open.position.z == doctest::Approx(4.5));
        const navrt::SurfaceMove walled = nav.moveAlongSurface(at.node, at.position, {30, 0, 9});
        CHECK_FALSE(walled.reached);
        CHECK(walled.position.z < 6.0f);
        CHECK(walled.position.z > 4.5f);
        CHECK(nav.closestPoint(walled.poly, walled.position).moved <= 1e-3);
        // A blocked polygon is a wall too.
        navrt::Blocking blocking;
        REQUIRE_FALSE(blocking.init(g));
        const navrt::Location there = nav.locate({31, 0, 4.5f});
        REQUIRE(there.node != navrt::kNoNode);
        if (there.node != at.node) {
            blocking.setNode(there.node);
            REQUIRE_FALSE(nav.setBlocking(&blocking));
            CHECK_FALSE(nav.moveAlongSurface(at.node, at.position, {31, 0, 4.5f}).reached);
            REQUIRE_FALSE(nav.setBlocking(nullptr));
        }
        // Raycasts: as navrt::raycast from the located start.
        const navrt::RaycastHit ray = nav.raycast({30, 0, 3}, {30, 0, 9});
        const navrt::RaycastHit direct = navrt::raycast(g, at.node, at.position, {30, 0, 9});
        CHECK(ray.hit);
        CHECK(ray.t == direct.t);
        CHECK(ray.last_poly == direct.last_poly);
        CHECK_FALSE(nav.raycast({30, 0, 3}, {31, 0, 4.5f}).hit);
        // Tile graphs: a random point lies in its node's cell.
        test::PackedAsset tile;
        test::packAsset(test::tileGraphOfText(test::roomsMapText(4), "rooms.map"), dir / "t.nav",
                        tile, [](formats::ContainerWriter&) {});
        navrt::Navigator on_tiles;
        REQUIRE_FALSE(on_tiles.init(tile.view));
        for (int i = 0; i < 1000; ++i) {
            const navrt::Location l = on_tiles.randomPoint(u(random), u(random), u(random));
            REQUIRE(l.node < tile.view.nodeCount());
            const navrt::Vec3 c = tile.view.position(l.node);
            CHECK(std::fabs(l.position.x - c.x) <= 0.5f * tile.view.header.cell_size);
            CHECK(std::fabs(l.position.z - c.z) <= 0.5f * tile.view.header.cell_size);
            CHECK(on_tiles.locate(l.position).node == l.node);
        }
    }

    TEST_CASE("per-kind views hold their kind's arrays and refuse the other kinds") {
        test::TempDir dir;
        int kinds = 0;
        for (const auto& level : levels(dir)) {
            INFO(level->name);
            const navrt::GraphView& g = level->packed.view;
            navrt::TileView tile;
            navrt::VolumeView volume;
            navrt::NavmeshView mesh;
            navrt::PovView pov;
            navrt::DirichletView dirichlet;
            const navrt::Error errors[5] = {navrt::viewTile(g, tile), navrt::viewVolume(g, volume),
                                            navrt::viewNavmesh(g, mesh), navrt::viewPov(g, pov),
                                            navrt::viewDirichlet(g, dirichlet)};
            int ok = 0;
            for (const navrt::Error& e : errors) {
                if (!e)
                    ++ok;
                else
                    CHECK(e.code == navrt::ErrorCode::wrong_kind);
            }
            CHECK(ok == 1);  // exactly its own kind
            if (!errors[0]) {
                CHECK(tile.node_count == g.nodeCount());
                CHECK(tile.cell(5).column ==
                      formats::decodeNodeCell(g.cells + 5 * formats::kNodeCellSize).column);
                CHECK(tile.edges.target(3, tile.edges.offsets[3]) ==
                      g.edgeTarget(3, g.edge_offsets[3]));
                ++kinds;
            }
            if (!errors[1]) {
                uint32_t free = 0;
                for (uint32_t v = 0; v < volume.size_x * volume.size_y * volume.size_z; ++v) {
                    CHECK(volume.isFree(v) == g.isFree(v));
                    free += volume.isFree(v);
                }
                CHECK(free > 0);
                ++kinds;
            }
            if (!errors[2]) {
                CHECK(mesh.polygon_count == g.nodeCount());
                uint32_t corners = 0;
                for (uint32_t p = 0; p < mesh.polygon_count; ++p) corners += mesh.polygonSize(p);
                CHECK(corners == mesh.poly_offsets[mesh.polygon_count]);
                CHECK(mesh.vertex(0).x == g.mesh_vertices[0]);
                CHECK(mesh.links.count == g.link_count);
                ++kinds;
            }
            if (!errors[3]) {
                CHECK(pov.corner_count == g.nodeCount());
                CHECK(pov.layer_cell_count == g.layer_cell_count);
                CHECK(pov.stats.corner_count == pov.corner_count);
                ++kinds;
            }
            navrt::ClusterTableView table;
            CHECK(navrt::viewClusterTable(g, table).code == navrt::ErrorCode::missing_section);
            navrt::NextHopView hops;
            CHECK(navrt::viewNextHop(g, hops).code == navrt::ErrorCode::missing_section);
        }
        CHECK(kinds >= 4);
        // Tables: a tile graph with clusters, a hierarchy and a next-hop table.
        test::PackedAsset packed;
        test::packRoomsWithTables(3, dir / "t.nav", packed);
        navrt::ClusterTableView c;
        REQUIRE_FALSE(navrt::viewClusterTable(packed.view, c));
        CHECK(c.cluster_count == c.header.cluster_count);
        CHECK(c.cluster_count >= 4);
        for (uint32_t a = 0; a < c.cluster_count; ++a) CHECK(c.entry(a, a) == 0);
        navrt::HierarchyView h;
        REQUIRE_FALSE(navrt::viewHierarchy(packed.view, h));
        CHECK(h.arrays.header.level_count >= 1);
        navrt::NextHopView n;
        REQUIRE_FALSE(navrt::viewNextHop(packed.view, n));
        CHECK_FALSE(n.hierarchical);
        CHECK(n.ranks != nullptr);
        CHECK(n.blocks_size > 0);
    }
}
