// Generated links (issue 13) on levels with known answers: ledges of several heights, gaps of
// several widths, a walkway over a floor, a one-way drop into a pit, a beam that blocks a drop, two
// agent profiles. Every generated lane is checked against the voxel grid by an independent
// clearance test of its trajectory, and the links are resolved onto tile graphs whose components
// drop to the level's true count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"

using namespace nav;

namespace {

struct Made {
    voxel::VoxelGrid grid;
    graph::GeneratedLinks links;
};

Made generate(const geometry::Geometry& geometry, const graph::LinkGenParams& params,
              const voxel::VoxelizeParams& voxel = test::voxelParams()) {
    Made m{test::voxelizeOk(geometry, voxel), {}};
    Context context;
    auto links = graph::generateLinks(m.grid, params, context);
    REQUIRE_MESSAGE(links.ok(), links.error().message);
    m.links = std::move(links).value();
    return m;
}

// A rectangle in XZ.
struct Area {
    double x0, z0, x1, z1;
    bool contains(const float p[3]) const {
        return p[0] > x0 && p[0] < x1 && p[2] > z0 && p[2] < z1;
    }
};

// The links whose start lies over `area`, at `height` (within a cell height).
std::vector<geometry::LinkSpec> from(const Made& m, const Area& area, double height) {
    std::vector<geometry::LinkSpec> out;
    for (const geometry::LinkSpec& l : m.links.links)
        if (area.contains(l.from) && std::fabs(l.from[1] - height) <= 0.21) out.push_back(l);
    return out;
}

// The side of `area` a link leaves by: its direction from -> to in XZ, as +x, -x, +z, -z.
std::string side(const geometry::LinkSpec& l) {
    const double dx = double(l.to[0]) - l.from[0], dz = double(l.to[2]) - l.from[2];
    if (std::fabs(dx) > std::fabs(dz)) return dx > 0 ? "+x" : "-x";
    return dz > 0 ? "+z" : "-z";
}

// The lane points of a link (as graph::resolveLinks spreads them).
std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> lanes(
    const geometry::LinkSpec& l, float cell) {
    std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> out;
    const int count = l.width > 0 ? std::max(1, int(std::lround(l.width / cell))) : 1;
    const double dx = double(l.to[0]) - l.from[0], dz = double(l.to[2]) - l.from[2];
    const double len = std::sqrt(dx * dx + dz * dz);
    for (int k = 0; k < count; ++k) {
        const double t = (double(k) - 0.5 * (count - 1)) * cell;
        const double px = -dz / len * t, pz = dx / len * t;
        out.push_back({{float(l.from[0] + px), l.from[1], float(l.from[2] + pz)},
                       {float(l.to[0] + px), l.to[1], float(l.to[2] + pz)}});
    }
    return out;
}

// The walkable span of the column under a point, at its height (within half a cell height), or
// null.
const voxel::Span* walkableAt(const voxel::VoxelGrid& g, const float p[3]) {
    const int x = int(std::floor((p[0] - g.origin[0]) / g.cell_size));
    const int z = int(std::floor((p[2] - g.origin[2]) / g.cell_size));
    if (x < 0 || z < 0 || uint32_t(x) >= g.size_x || uint32_t(z) >= g.size_z) return nullptr;
    for (const voxel::Span& s : g.column(uint32_t(x), uint32_t(z)))
        if (s.walkable && std::fabs(g.topY(s) - p[1]) <= 0.5f * g.cell_height) return &s;
    return nullptr;
}

// Independent clearance test (not the generator's code): the agent is a cylinder of its radius
// and height standing at each trajectory point; steps up to `climb` are stepped over as in
// walking, so solid counts from climb above the feet up to the head (half a cell height of slack
// at both ends for the grid's quantization). Solid = any span of a column whose centre lies
// closer than the radius, or the column under the point.
bool trajectoryClear(const voxel::VoxelGrid& g, const std::vector<std::array<float, 3>>& points) {
    const double r = g.agent.radius, climb = std::floor(g.agent.climb / g.cell_height + 1e-4);
    for (const auto& p : points) {
        const double feet = (p[1] - g.origin[1]) / g.cell_height;
        const double low = feet + climb + 0.5, high = feet + g.agent.height / g.cell_height - 0.5;
        for (uint32_t z = 0; z < g.size_z; ++z) {
            const double cz = g.origin[2] + (z + 0.5) * g.cell_size;
            if (std::fabs(cz - p[2]) > r + g.cell_size) continue;
            for (uint32_t x = 0; x < g.size_x; ++x) {
                const double cx = g.origin[0] + (x + 0.5) * g.cell_size;
                const double d = std::hypot(cx - p[0], cz - p[2]);
                const bool under = std::fabs(cx - p[0]) <= 0.5 * g.cell_size &&
                                   std::fabs(cz - p[2]) <= 0.5 * g.cell_size;
                if (d >= r - 1e-3 * g.cell_size && !under) continue;
                for (const voxel::Span& s : g.column(x, z))
                    if (double(s.y_min) < high && double(s.y_max) > low) return false;
            }
        }
    }
    return true;
}

// Every lane of every generated link: both ends on walkable spans, the trajectory clear.
void checkLanes(const Made& m) {
    for (const geometry::LinkSpec& l : m.links.links) {
        INFO(l.name);
        CHECK(l.generated);
        CHECK(l.id >= geometry::kGeneratedLinkIdFirst);
        for (const auto& [a, b] : lanes(l, m.grid.cell_size)) {
            CHECK(walkableAt(m.grid, a.data()) != nullptr);
            CHECK(walkableAt(m.grid, b.data()) != nullptr);
            CHECK(trajectoryClear(m.grid, graph::linkTrajectory(l.type, a.data(), b.data(), 0.1f)));
        }
    }
}

// The tile graph of the grid with the generated links added.
graph::Graph linkedTileGraph(const Made& m) {
    Context context;
    auto g = graph::buildTileGraph(m.grid, context);
    REQUIRE(g.ok());
    graph::LinkResolveStats stats;
    REQUIRE(graph::attachLinks(*g, m.links.links, 1, stats, context).ok());
    CHECK(stats.lanes_dropped == 0);
    return std::move(g).value();
}

// The node nearest above (x, z) at height y (within a cell height).
uint32_t nodeNear(const graph::Graph& g, double x, double y, double z) {
    uint32_t best = graph::kNoNode;
    double best_d = 1e30;
    for (uint32_t v = 0; v < g.nodeCount(); ++v) {
        const float* p = &g.positions[3 * size_t(v)];
        if (std::fabs(p[1] - y) > 0.21) continue;
        const double d = std::hypot(p[0] - x, p[2] - z);
        if (d < best_d) best_d = d, best = v;
    }
    REQUIRE_MESSAGE(best != graph::kNoNode, "no node at height ", y);
    return best;
}

// The ledges-of-several-heights level: a 44 x 14 m floor and four 4 x 4 m platforms 10 m apart,
// tops at 1.2, 2.0, 3.0 and 4.6 m.
constexpr double kHeights[4] = {1.2, 2.0, 3.0, 4.6};
geometry::Geometry ledgesLevel() {
    test::LevelBuilder b;
    b.box({0, -0.2, 0}, {44, 0, 14});
    for (int k = 0; k < 4; ++k) b.box({4.0 + 10 * k, 0, 5}, {8.0 + 10 * k, kHeights[k], 9});
    return b.g;
}
Area platform(int k) { return {4.0 + 10 * k, 5, 8.0 + 10 * k, 9}; }

}  // namespace

TEST_SUITE("links") {
    TEST_CASE("generated drops: ledges of several heights, per agent profile") {
        const geometry::Geometry level = ledgesLevel();
        graph::LinkGenParams params;
        params.drop_height = 3.2f;
        params.jump_up_height = 1.3f;
        const Made m = generate(level, params);
        checkLanes(m);
        // 1.2, 2.0 and 3.0 m: one wide drop off each side, landing on the floor; 4.6 m: none.
        for (int k = 0; k < 4; ++k) {
            INFO("platform ", kHeights[k], " m");
            const auto links = from(m, platform(k), kHeights[k]);
            if (k == 3) {
                CHECK(links.empty());
                continue;
            }
            REQUIRE(links.size() == 4);
            std::vector<std::string> sides;
            for (const geometry::LinkSpec& l : links) {
                CHECK(l.type == formats::LinkType::drop);
                CHECK(std::fabs(l.to[1]) <= 0.21);               // on the floor
                CHECK_FALSE(platform(k).contains(l.to));         // beside the platform
                CHECK(l.width >= 1.0f);                          // a segment link along the ledge
                CHECK(l.bidirectional == (kHeights[k] <= 1.3));  // back up only within reach
                if (l.bidirectional) CHECK(l.reverse_cost > 0);
                sides.push_back(side(l));
            }
            std::sort(sides.begin(), sides.end());
            CHECK(sides == std::vector<std::string>{"+x", "+z", "-x", "-z"});
        }
        CHECK(m.links.links.size() == 12);
        CHECK(m.links.stats.links_by_type.at("drop") == 12);
        CHECK(m.links.stats.two_way == 4);
        CHECK(m.links.stats.rejected[size_t(graph::LinkReject::too_high)] > 0);  // 4.6 m, the rim
        CHECK(m.links.stats.rejected[size_t(graph::LinkReject::blocked)] == 0);

        // Components: the links reach the three lower platforms from the floor (undirected);
        // only the 1.2 m one can be left back up (strongly connected with the floor).
        const graph::Graph g = linkedTileGraph(m);
        const std::vector<uint32_t> strong = graph::stronglyConnected(g);
        const uint32_t floor_node = nodeNear(g, 1, 0, 1);
        for (int k = 0; k < 4; ++k) {
            INFO("platform ", kHeights[k], " m");
            const uint32_t top = nodeNear(g, 6.0 + 10 * k, kHeights[k], 7);
            CHECK((g.components[top] == g.components[floor_node]) == (k < 3));
            CHECK((strong[top] == strong[floor_node]) == (k == 0));
        }

        // An ogre (taller, wider, drops at most 2.2 m): the 3.0 m platform is too high, and its
        // wider radius leaves a smaller platform top; no two-way drops.
        graph::LinkGenParams ogre;
        ogre.drop_height = 2.2f;
        voxel::VoxelizeParams big = test::voxelParams();
        big.agent.height = 2.8f;
        big.agent.radius = 1.0f;
        const Made o = generate(level, ogre, big);
        checkLanes(o);
        CHECK(from(o, platform(0), 1.2).size() == 4);
        CHECK(from(o, platform(1), 2.0).size() == 4);
        CHECK(from(o, platform(2), 3.0).empty());
        CHECK(o.links.links.size() == 8);
        CHECK(o.links.stats.two_way == 0);
        for (const geometry::LinkSpec& l : o.links.links) CHECK_FALSE(l.bidirectional);
    }

    TEST_CASE("generated jumps: gaps of several widths, and a pit too deep to drop into") {
        // Pairs of 4 x 4 m platforms 1 m up over a pit floor 4 m below them, gaps 1.0, 2.0 and
        // 3.0 m; jumps reach 2.2 m.
        test::LevelBuilder b;
        b.box({0, -3.2, 0}, {42, -3.0, 10});
        const double gaps[3] = {1.0, 2.0, 3.0};
        for (int k = 0; k < 3; ++k) {
            const double x0 = 2.0 + 14 * k;
            b.box({x0, -3, 3}, {x0 + 4, 1, 7});
            b.box({x0 + 4 + gaps[k], -3, 3}, {x0 + 8 + gaps[k], 1, 7});
        }
        graph::LinkGenParams params;
        params.jump_distance = 2.2f;
        params.drop_height = 3.0f;  // the pit is 4 m down: no drops
        const Made m = generate(b.g, params);
        checkLanes(m);
        for (int k = 0; k < 3; ++k) {
            INFO("gap ", gaps[k], " m");
            const double x0 = 2.0 + 14 * k;
            const auto left = from(m, {x0, 3, x0 + 4, 7}, 1.0);
            const auto right = from(m, {x0 + 4 + gaps[k], 3, x0 + 8 + gaps[k], 7}, 1.0);
            if (k == 2) {
                CHECK(left.empty());
                CHECK(right.empty());
                continue;
            }
            // Exactly one jump each way, across the gap.
            REQUIRE(left.size() == 1);
            REQUIRE(right.size() == 1);
            CHECK(left[0].type == formats::LinkType::jump);
            CHECK(right[0].type == formats::LinkType::jump);
            CHECK(side(left[0]) == "+x");
            CHECK(side(right[0]) == "-x");
            CHECK(left[0].to[0] > x0 + 4 + gaps[k]);
            CHECK(std::fabs(left[0].to[1] - 1.0f) <= 0.21);
            CHECK_FALSE(left[0].bidirectional);
        }
        CHECK(m.links.links.size() == 4);
        CHECK(m.links.stats.rejected[size_t(graph::LinkReject::gap_too_wide)] > 0);
        CHECK(m.links.stats.rejected[size_t(graph::LinkReject::too_high)] > 0);
        // Jumps join the first two pairs; the third stays apart.
        const graph::Graph g = linkedTileGraph(m);
        for (int k = 0; k < 3; ++k) {
            const double x0 = 2.0 + 14 * k;
            const uint32_t a = nodeNear(g, x0 + 2, 1.0, 5),
                           b = nodeNear(g, x0 + 6 + gaps[k], 1.0, 5);
            CHECK((g.components[a] == g.components[b]) == (k < 2));
        }
    }

    TEST_CASE("generated links: a walkway over a floor, a one-way pit, a beam in the way") {
        // A floor with a 6 x 6 m pit 2.4 m deep cut into it (walls all round), a 2.4 m wide, 12 m
        // long walkway 3 m up, and a 5 x 5 m platform 2 m up with a beam at head height beyond
        // its -z ledge.
        test::LevelBuilder level;
        level.box({0, -0.2, 0}, {20, 0, 20});
        level.box({26, -0.2, 0}, {40, 0, 20});
        level.box({20, -0.2, 0}, {26, 0, 4});
        level.box({20, -0.2, 10}, {26, 0, 20});
        level.box({20, -2.6, 4}, {26, -2.4, 10});
        level.box({19.8, -2.4, 4}, {20, -0.2, 10});  // pit walls under the rim
        level.box({26, -2.4, 4}, {26.2, -0.2, 10});
        level.box({20, -2.4, 3.8}, {26, -0.2, 4});
        level.box({20, -2.4, 10}, {26, -0.2, 10.2});
        level.box({2, 2.8, 8}, {14, 3.0, 10.4});  // the walkway
        level.box({30, 0, 12}, {35, 2.0, 17});
        level.box({29, 3.0, 10}, {36, 3.3, 11.5});
        graph::LinkGenParams params;
        params.drop_height = 3.5f;
        params.jump_up_height = 1.0f;
        const Made m = generate(level.g, params);
        checkLanes(m);
        // The walkway: a drop off each of its four sides to the floor, one-way.
        const auto walkway = from(m, {2, 8, 14, 10.4}, 3.0);
        std::vector<std::string> sides;
        for (const geometry::LinkSpec& l : walkway) sides.push_back(side(l));
        std::sort(sides.begin(), sides.end());
        sides.erase(std::unique(sides.begin(), sides.end()), sides.end());  // long sides split
        CHECK(sides == std::vector<std::string>{"+x", "+z", "-x", "-z"});
        CHECK(walkway.size() == 6);  // the 12 m sides in 6 m links
        for (const geometry::LinkSpec& l : walkway) {
            CHECK(l.type == formats::LinkType::drop);
            CHECK_FALSE(l.bidirectional);
            CHECK(std::fabs(l.to[1]) <= 0.21);
        }
        // The pit: drops into it from its four rims, none out.
        size_t into = 0;
        for (const geometry::LinkSpec& l : m.links.links) {
            const bool in_pit = l.to[0] > 20 && l.to[0] < 26 && l.to[2] > 4 && l.to[2] < 10;
            if (in_pit) {
                ++into;
                CHECK(l.to[1] < -2.0f);
                CHECK_FALSE(l.bidirectional);
            }
            CHECK_FALSE((l.from[1] < -2.0f));  // nothing leaves the pit
        }
        CHECK(into == 4);
        // The platform: drops off three sides; the beam blocks the fourth.
        const auto beam = from(m, {30, 12, 35, 17}, 2.0);
        CHECK(beam.size() == 3);
        for (const geometry::LinkSpec& l : beam) CHECK(side(l) != "-z");
        CHECK(m.links.stats.rejected[size_t(graph::LinkReject::blocked)] > 0);

        // The build report's view: the pit is entered but never left.
        const graph::Graph g = linkedTileGraph(m);
        const std::vector<uint32_t> strong = graph::stronglyConnected(g);
        const uint32_t pit_node = nodeNear(g, 23, -2.4, 7), floor_node = nodeNear(g, 1, 0, 1);
        const uint32_t walkway_node = nodeNear(g, 8, 3.0, 9.2);
        CHECK(g.components[pit_node] == g.components[floor_node]);
        CHECK(g.components[walkway_node] == g.components[floor_node]);
        CHECK(strong[pit_node] != strong[floor_node]);
        const std::vector<double> from_floor = test::shortestFrom(g, floor_node);
        const std::vector<double> from_pit = test::shortestFrom(g, pit_node);
        CHECK(std::isfinite(from_floor[pit_node]));
        CHECK_FALSE(std::isfinite(from_pit[floor_node]));
    }

    TEST_CASE("generated links: the same links at any thread count, spacing and width limits") {
        const geometry::Geometry level = ledgesLevel();
        graph::LinkGenParams params;
        params.drop_height = 3.2f;
        params.threads = 1;
        const Made one = generate(level, params);
        params.threads = 3;
        const Made three = generate(level, params);
        CHECK(one.links.links == three.links.links);
        // At most 1.2 m wide: the 4 m ledges split into several links, covering the same cells.
        params.max_width = 1.2f;
        const Made narrow = generate(level, params);
        CHECK(narrow.links.links.size() > one.links.links.size());
        for (const geometry::LinkSpec& l : narrow.links.links) CHECK(l.width <= 1.2f + 1e-4f);
        double total = 0, narrow_total = 0;
        for (const auto& l : one.links.links) total += l.width > 0 ? l.width : 0.3;
        for (const auto& l : narrow.links.links) narrow_total += l.width > 0 ? l.width : 0.3;
        CHECK(narrow_total == doctest::Approx(total).epsilon(1e-4));
        // Shared by helper threads (as the graph stage shares it with a thread beside the graph's
        // build): the same links and counts however the rows were split, and stop() or a
        // cancelled context ends it with an error, not a partial result.
        params.max_width = 6.0f;
        for (int helpers : {1, 3}) {
            Context context;
            graph::LinkGeneration job(one.grid, params);
            std::vector<std::thread> threads;
            for (int h = 0; h < helpers; ++h) threads.emplace_back([&] { job.help(context); });
            auto shared = job.finish(context);
            for (std::thread& t : threads) t.join();
            REQUIRE(shared.ok());
            CHECK(shared->links == one.links.links);
            CHECK(shared->stats.ledge_samples == one.links.stats.ledge_samples);
            CHECK(shared->stats.rejected == one.links.stats.rejected);
        }
        {
            Context context;
            graph::LinkGeneration job(one.grid, params);
            job.stop();
            auto stopped = job.finish(context);
            REQUIRE_FALSE(stopped.ok());
            CHECK(stopped.error().kind == ErrorKind::cancelled);
            context.requestCancel();
            graph::LinkGeneration cancelled(one.grid, params);
            auto none = cancelled.finish(context);
            REQUIRE_FALSE(none.ok());
            CHECK(none.error().kind == ErrorKind::cancelled);
        }
        // Bad parameters: every one named.
        graph::LinkGenParams bad;
        bad.drop_height = -1;
        bad.jump_distance = std::nanf("");
        const ParamIssues issues = graph::checkLinkGenParams(bad);
        REQUIRE(issues.size() == 2);
        CHECK(issues[0].field == "drop_height");
        CHECK(issues[1].field == "jump_distance");
    }
}

TEST_SUITE("links") {
    TEST_CASE("multi-storey level: components drop to the true count on every graph kind") {
        // Three 20 x 20 m storeys (slabs at 0, 4 and 8 m), each upper slab with a 4 x 4 m hole
        // over the storey below, in different places; generated drops go down through the holes,
        // authored ladders (config links) come back up beside them.
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {20, 0, 20});
        auto slabWithHole = [&](double y, double hx, double hz) {
            b.box({0, y - 0.2, 0}, {hx, y, 20});
            b.box({hx + 4, y - 0.2, 0}, {20, y, 20});
            b.box({hx, y - 0.2, 0}, {hx + 4, y, hz});
            b.box({hx, y - 0.2, hz + 4}, {hx + 4, y, 20});
        };
        slabWithHole(4.0, 4, 4);
        slabWithHole(8.0, 12, 12);
        const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
        graph::LinkGenParams params;
        params.drop_height = 4.5f;
        Context context;
        auto made = graph::generateLinks(grid, params, context);
        REQUIRE(made.ok());
        Made with{grid, std::move(made).value()};
        checkLanes(with);
        // Drops off the rims of both holes (the outer rims drop onto nothing: no link).
        size_t from_second = 0, from_third = 0;
        for (const geometry::LinkSpec& l : with.links.links) {
            CHECK(l.type == formats::LinkType::drop);
            if (std::fabs(l.from[1] - 4.0f) < 0.21f) ++from_second;
            if (std::fabs(l.from[1] - 8.0f) < 0.21f) ++from_third;
            CHECK(l.from[1] - l.to[1] == doctest::Approx(4.0).epsilon(0.06));
        }
        CHECK(from_second >= 4);
        CHECK(from_third >= 4);
        // Ladders up, beside each hole: from the storey below to the rim above.
        std::vector<geometry::LinkSpec> links = with.links.links;
        auto ladder = [&](float x, float y0, float z, float z_top, uint32_t id) {
            geometry::LinkSpec l;
            l.name = "ladder " + std::to_string(id);
            l.id = id;
            l.type = formats::LinkType::ladder;
            l.bidirectional = true;
            l.from[0] = x, l.from[1] = y0, l.from[2] = z;
            l.to[0] = x, l.to[1] = y0 + 4.0f, l.to[2] = z_top;
            l.snap = geometry::kSnapAuto;  // as scene ladders: onto the eroded surfaces
            links.push_back(l);
        };
        ladder(6.0f, 0.0f, 6.0f, 9.0f, 1);     // hole of the 4 m slab: (4..8, 4..8)
        ladder(14.0f, 4.0f, 14.0f, 17.0f, 2);  // hole of the 8 m slab: (12..16, 12..16)
        for (graph::GraphKind kind :
             {graph::GraphKind::tile, graph::GraphKind::navmesh, graph::GraphKind::pov}) {
            INFO("graph ", int(kind));
            Result<graph::Graph> g = graph::Graph{};
            if (kind == graph::GraphKind::tile) g = graph::buildTileGraph(grid, context);
            if (kind == graph::GraphKind::navmesh) g = graph::buildNavmeshGraph(grid, {}, context);
            if (kind == graph::GraphKind::pov) g = graph::buildPovGraph(grid, {}, context);
            REQUIRE(g.ok());
            const bool pov = kind == graph::GraphKind::pov;
            const uint32_t before =
                pov ? g->pov_stats.layer_component_count : g->header.component_count;
            CHECK(before == 3);
            graph::Graph only_drops = *g;
            graph::LinkResolveStats stats;
            REQUIRE(graph::attachLinks(only_drops, with.links.links, 1, stats, context).ok());
            REQUIRE(graph::attachLinks(*g, links, 1, stats, context).ok());
            CHECK((pov ? g->pov_stats.layer_component_count : g->header.component_count) == 1);
            // Strongly connected: with drops only, each storey is its own region; the ladders
            // make the whole level one.
            auto regions = [](const graph::Graph& graph) {
                std::vector<uint32_t> s = graph::stronglyConnected(graph);
                std::sort(s.begin(), s.end());
                return std::unique(s.begin(), s.end()) - s.begin();
            };
            if (!pov) {  // POV corners are not the surface; their regions need not be storeys
                CHECK(regions(only_drops) == 3);
                CHECK(regions(*g) == 1);
            }
        }
    }
}
