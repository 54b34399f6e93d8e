// Designers' control (issue 14): bake bounds (voxelize) and seed points (graph stage) on small
// levels with exact expected results.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/graph/graph.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxelize.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A 12 x 6 m floor (top y = 0), a roof slab over part of it (top y = 4.2), and a platform 88 m
// away (top y = 0).
geometry::Geometry roofLevel() {
    test::LevelBuilder b;
    b.box({0, -0.2, 0}, {12, 0, 6});
    b.box({2, 4, 1}, {8, 4.2, 5});
    b.box({100, -0.2, 0}, {106, 0, 6});
    return b.g;
}

using Walkable = test::WalkableTop;
using test::walkableTops;

// A floor (top y = 0) and, beside it, an island platform 1.5 m up that walking cannot reach.
voxel::VoxelGrid floorAndIsland() {
    test::LevelBuilder b;
    b.box({0, -0.2, 0}, {12, 0, 6});
    b.box({16, 0, 0}, {22, 1.5, 6});
    return test::voxelizeOk(b.g, test::voxelParams());
}

// A ladder from the floor up to the island.
geometry::LinkSpec ladderToIsland(const std::string& name) {
    geometry::LinkSpec l;
    l.name = name;
    l.type = formats::LinkType::ladder;
    l.from[0] = 11, l.from[1] = 0, l.from[2] = 3;
    l.to[0] = 17, l.to[1] = 1.5, l.to[2] = 3;
    return l;
}

using test::countOf;

bool inBox(const Walkable& w, const geometry::Bounds& b) { return b.contains(w.x, w.y, w.z); }

}  // namespace

TEST_SUITE("voxel") {
    TEST_CASE("bake bounds: only the surface inside is walkable, far geometry is not voxelized") {
        const geometry::Geometry level = roofLevel();
        const voxel::VoxelGrid all = test::voxelizeOk(level, test::voxelParams());
        const std::vector<Walkable> every = walkableTops(all);
        REQUIRE(std::any_of(every.begin(), every.end(), [](auto& w) { return w.y > 4; }));
        REQUIRE(std::any_of(every.begin(), every.end(), [](auto& w) { return w.x > 90; }));

        for (const float max_x : {13.0f, 6.0f}) {
            INFO("box up to x = ", max_x);
            voxel::VoxelizeParams params = test::voxelParams();
            const geometry::Bounds box{{-1, -1, -1}, {max_x, 3, 7}};
            params.bounds = {box};
            Context context;
            voxel::VoxelizeCounts counts;
            auto bounded = voxel::voxelize(level, params, context, &counts);
            const uint64_t outside = counts.outside_bounds;
            REQUIRE(bounded.ok());
            // The far platform is not in the grid at all; the grid starts where the full one does.
            CHECK(bounded->size_x * bounded->cell_size < 20.0f);
            CHECK(bounded->origin[0] == all.origin[0]);
            CHECK(bounded->origin[1] == all.origin[1]);
            CHECK(bounded->origin[2] == all.origin[2]);
            // Walkable = walkable in the full bake and inside the box (no erosion at the cut).
            const std::vector<Walkable> kept = walkableTops(*bounded);
            size_t expected = 0;
            for (const Walkable& w : every) expected += inBox(w, box) && w.x < 20;
            CHECK(kept.size() == expected);
            for (const Walkable& w : kept) CHECK(inBox(w, box));
            CHECK(outside > 0);
            // The roof is still there as a ceiling: the floor under it stays walkable.
            CHECK(std::any_of(kept.begin(), kept.end(), [](const Walkable& w) {
                return w.x > 4 && w.x < 6 && w.z > 2 && w.z < 4;
            }));
        }
    }

    TEST_CASE("bake bounds: bad boxes are named, boxes without geometry refused") {
        voxel::VoxelizeParams params = test::voxelParams();
        params.bounds = {
            {{0, 0, 0}, {1, 1, 1}}, {{0, std::nanf(""), 0}, {1, 1, 1}}, {{2, 0, 0}, {1, 1, 1}}};
        const ParamIssues issues = voxel::checkVoxelizeParams(params);
        REQUIRE(issues.size() == 2);
        CHECK(issues[0].field == "bounds[1]");
        CHECK(issues[1].field == "bounds[2]");
        params.bounds = {{{500, 0, 500}, {510, 5, 510}}};
        Context context;
        auto none = voxel::voxelize(roofLevel(), params, context);
        REQUIRE_FALSE(none.ok());
        CHECK(none.error().kind == ErrorKind::bad_input);
        CHECK(none.error().message.find("hold none of the geometry") != std::string::npos);
    }
}

TEST_SUITE("voxel") {
    TEST_CASE("area costs and masks per agent: exact counts and edge costs") {
        // A 12 x 6 m floor of ground with a 3 m strip of water across it.
        test::LevelBuilder b;
        b.g.areas.push_back({"water", 3.0f, true});
        const uint8_t water = uint8_t(b.g.areas.size() - 1);
        b.box({0, -0.2, 0}, {4.5, 0, 6});
        b.box({4.5, -0.2, 0}, {7.5, 0, 6}, water);
        b.box({7.5, -0.2, 0}, {12, 0, 6});
        const voxel::VoxelGrid plain = test::voxelizeOk(b.g, test::voxelParams());
        size_t water_spans = 0, all = 0;
        for (const voxel::Span& s : plain.spans) {
            all += s.walkable;
            water_spans += s.walkable && s.area == water;
        }
        REQUIRE(water_spans > 0);
        Context context;
        // A mask of ground only: exactly the water spans are left unwalkable.
        voxel::VoxelizeParams ogre = test::voxelParams();
        ogre.area_mask = {"ground"};
        voxel::VoxelizeCounts counts;
        auto masked = voxel::voxelize(b.g, ogre, context, &counts);
        REQUIRE(masked.ok());
        CHECK(counts.masked == water_spans);
        size_t walkable = 0;
        for (const voxel::Span& s : masked->spans) {
            walkable += s.walkable;
            CHECK_FALSE((s.walkable && s.area == water));
        }
        CHECK(walkable == all - water_spans);
        // A boat only swims.
        voxel::VoxelizeParams boat = test::voxelParams();
        boat.area_mask = {"water"};
        auto swims = voxel::voxelize(b.g, boat, context, &counts);
        REQUIRE(swims.ok());
        CHECK(counts.masked == all - water_spans);
        // A cost of 7 for water: a step between two water cells costs its length x 7.
        voxel::VoxelizeParams wader = test::voxelParams();
        wader.area_costs = {{"water", 7.0f}};
        auto costly = voxel::voxelize(b.g, wader, context);
        REQUIRE(costly.ok());
        CHECK(costly->areas[water].cost == 7.0f);
        auto g = graph::buildTileGraph(*costly, context);
        REQUIRE(g.ok());
        int water_steps = 0;
        for (uint32_t n = 0; n < g->nodeCount(); ++n)
            for (uint32_t e = g->edge_offsets[n]; e < g->edge_offsets[n + 1]; ++e) {
                const uint32_t t = g->edge_targets[e];
                if (g->cells[n].area != water || g->cells[t].area != water) continue;
                const float* p = &g->positions[3 * size_t(n)];
                const float* q = &g->positions[3 * size_t(t)];
                const double length = std::hypot(double(q[0]) - p[0], double(q[2]) - p[2]);
                CHECK(g->edge_costs[e] == doctest::Approx(7.0 * length).epsilon(1e-5));
                ++water_steps;
            }
        CHECK(water_steps > 0);
        // Names the level does not have, and bad costs, are refused by name.
        voxel::VoxelizeParams typo = test::voxelParams();
        typo.area_mask = {"lava"};
        auto refused = voxel::voxelize(b.g, typo, context);
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("area_mask[0]: voxelize: 'lava' is not an area of this "
                                           "level (its areas: obstacle, ground, water)") !=
              std::string::npos);
        typo.area_mask = {"ground", "ground"};
        typo.area_costs = {{"water", -1.0f}};
        const ParamIssues issues = voxel::checkVoxelizeParams(typo);
        REQUIRE(issues.size() == 2);
        CHECK(issues[0].field == "area_costs.water");
        CHECK(issues[1].field == "area_mask");
    }
}

TEST_SUITE("voxel") {
    TEST_CASE("modifier volumes: area, cost factor, forbid, in order, exact spans") {
        test::LevelBuilder b;
        b.g.areas.push_back({"water", 3.0f, true});
        b.box({0, -0.2, 0}, {12, 0, 6});
        const voxel::VoxelGrid plain = test::voxelizeOk(b.g, test::voxelParams());
        const std::vector<Walkable> before = walkableTops(plain);
        auto count = [&](double x0, double x1) {
            size_t n = 0;
            for (const Walkable& w : before) n += w.x >= x0 && w.x <= x1;
            return n;
        };
        voxel::VoxelizeParams params = test::voxelParams();
        auto volume = [](double x0, double x1, const char* area, float factor, bool forbid) {
            voxel::ModifierVolume v;
            v.name = "v";
            v.box = {{float(x0), -1, -1}, {float(x1), 1, 7}};
            v.area = area;
            v.cost_factor = factor;
            v.forbid = forbid;
            return v;
        };
        params.volumes = {volume(0, 4, "water", 1, false), volume(4, 8, "", 2, false),
                          volume(8, 10, "", 1, true), volume(0, 2, "", 1, true)};
        Context context;
        voxel::VoxelizeCounts counts;
        auto grid = voxel::voxelize(b.g, params, context, &counts);
        REQUIRE(grid.ok());
        REQUIRE(counts.in_volumes.size() == 4);
        CHECK(counts.in_volumes[0] == count(0, 4));
        CHECK(counts.in_volumes[1] == count(4, 8));
        CHECK(counts.in_volumes[2] == count(8, 10));
        CHECK(counts.in_volumes[3] == count(0, 2));  // later volumes win where they overlap
        REQUIRE(grid->areas.size() == 4);
        CHECK(grid->areas[3].name == "ground x2");
        CHECK(grid->areas[3].cost == 2.0f);
        size_t water = 0, doubled = 0, walkable = 0;
        for (uint32_t z = 0; z < grid->size_z; ++z)
            for (uint32_t x = 0; x < grid->size_x; ++x)
                for (const voxel::Span& s : grid->column(x, z)) {
                    if (!s.walkable) continue;
                    ++walkable;
                    const double wx = grid->origin[0] + (x + 0.5) * grid->cell_size;
                    CHECK_FALSE(((wx >= 8 && wx <= 10) || wx <= 2));
                    water += s.area == 2;
                    doubled += s.area == 3;
                }
        CHECK(water == count(0, 4) - count(0, 2));
        CHECK(doubled == count(4, 8));
        CHECK(walkable == before.size() - count(8, 10) - count(0, 2));
        // Bad volumes are named; unknown areas list the level's.
        params.volumes = {volume(0, 4, "lava", 1, false)};
        params.volumes[0].name = "l.json: $.volumes[0]";
        auto lava = voxel::voxelize(b.g, params, context);
        REQUIRE_FALSE(lava.ok());
        CHECK(lava.error().message.find("l.json: $.volumes[0]: voxelize: 'lava' is not an area") !=
              std::string::npos);
        params.volumes = {volume(4, 0, "", 0, false)};
        const ParamIssues issues = voxel::checkVoxelizeParams(params);
        REQUIRE(issues.size() == 2);
        CHECK(issues[0].field == "volumes[0]");
        CHECK(issues[1].field == "volumes[0].cost_factor");
    }
}

TEST_SUITE("graph") {
    TEST_CASE("seeds: the surface no seed reaches is pruned, links count, per direction") {
        // A floor, and an island platform 1.5 m up beside it that walking cannot reach.
        const voxel::VoxelGrid grid = floorAndIsland();
        size_t floor_cells = 0, island_cells = 0;
        for (const Walkable& w : walkableTops(grid)) (w.y > 1 ? island_cells : floor_cells)++;
        REQUIRE(floor_cells > 0);
        REQUIRE(island_cells > 0);
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "l.vox", grid).ok());
        const geometry::LinkSpec to_island = ladderToIsland("up");
        struct Case {
            const char* what;
            std::vector<geometry::LinkSpec> links;
            bool reverse;  // the link goes island -> floor instead
            uint64_t pruned;
        };
        for (const Case& c :
             {Case{"no link", {}, false, island_cells},
              Case{"a link to the island", {to_island}, false, 0},
              Case{"a link from the island only", {to_island}, true, island_cells}}) {
            INFO(c.what);
            for (const graph::GraphKind kind :
                 {graph::GraphKind::tile, graph::GraphKind::navmesh, graph::GraphKind::pov}) {
                graph::GraphStage::Params params;
                params.kind = kind;
                params.seeds = {{{3, 0, 3}}};
                params.links = c.links;
                if (c.reverse)
                    for (geometry::LinkSpec& l : params.links) std::swap(l.from, l.to);
                Context context;
                auto result =
                    graph::GraphStage::run({dir / "l.vox"}, params, dir / "l.graph", context);
                REQUIRE_MESSAGE(result.ok(), result.error().message);
                CHECK(countOf(*result, "seeds_on_surface") == 1);
                CHECK(countOf(*result, "seed_pruned_cells") == c.pruned);
                // The link out of the pruned island is left out, and said so.
                const bool left_out =
                    std::any_of(result->warnings.begin(), result->warnings.end(),
                                [](const std::string& w) { return w.find("up: left out") == 0; });
                CHECK(left_out == c.reverse);
                if (kind == graph::GraphKind::tile) {
                    auto g = graph::loadGraph(dir / "l.graph");
                    REQUIRE(g.ok());
                    CHECK(g->nodeCount() == floor_cells + island_cells - c.pruned);
                }
            }
        }
        // A seed off the surface warns; with none on it the stage fails.
        graph::GraphStage::Params params;
        params.seeds = {{{3, 0, 3}}, {{50, 0, 50}}};
        Context context;
        auto warned = graph::GraphStage::run({dir / "l.vox"}, params, dir / "w.graph", context);
        REQUIRE(warned.ok());
        REQUIRE(warned->warnings.size() >= 1);
        CHECK(warned->warnings[0].find("seeds[1] (50, 0, 50) is not on this agent's walkable") !=
              std::string::npos);
        params.seeds = {{{50, 0, 50}}};
        auto failed = graph::GraphStage::run({dir / "l.vox"}, params, dir / "f.graph", context);
        REQUIRE_FALSE(failed.ok());
        CHECK(failed.error().message.find("no seed is on this agent's walkable surface") !=
              std::string::npos);
        params.seeds = {{{0, std::nanf(""), 0}}};
        const ParamIssues issues = graph::GraphStage::check(params);
        REQUIRE(issues.size() == 1);
        CHECK(issues[0].field == "seeds[0]");
    }

    TEST_CASE("points of interest: on the surface and reachable, per agent, links count") {
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "l.vox", floorAndIsland()).ok());
        graph::GraphStage::Params params;
        params.points = {{"flag", "objective", {{3, 0, 3}}},
                         {"chest", "pickup", {{19, 1.5, 3}}},
                         {"ghost", "", {{6, 9, 3}}}};
        const geometry::LinkSpec ladder = ladderToIsland("ladder");
        struct Case {
            const char* what;
            std::vector<std::array<float, 3>> seeds;
            std::vector<geometry::LinkSpec> links;
            uint64_t reachable, unreachable;
        };
        for (const Case& c :
             {Case{"largest area, no link", {}, {}, 1, 1},
              Case{"largest area, a ladder up", {}, {ladder}, 2, 0},
              Case{"a seed on the floor", {{{3, 0, 3}}}, {}, 1, 1},
              Case{"a seed on the floor, a ladder up", {{{3, 0, 3}}}, {ladder}, 2, 0},
              Case{"a seed on the island", {{{19, 1.5, 3}}}, {}, 1, 1}}) {
            INFO(c.what);
            for (const graph::GraphKind kind :
                 {graph::GraphKind::tile, graph::GraphKind::navmesh}) {
                params.kind = kind;
                params.seeds = c.seeds;
                params.links = c.links;
                Context context;
                auto result =
                    graph::GraphStage::run({dir / "l.vox"}, params, dir / "l.graph", context);
                REQUIRE_MESSAGE(result.ok(), result.error().message);
                CHECK(countOf(*result, "points_reachable") == c.reachable);
                CHECK(countOf(*result, "points_unreachable") == c.unreachable);
                CHECK(countOf(*result, "points_off_surface") == 1);
                auto said = [&](const std::string& text) {
                    return std::any_of(
                        result->warnings.begin(), result->warnings.end(),
                        [&](const std::string& w) { return w.find(text) != std::string::npos; });
                };
                CHECK(
                    said("point of interest 'ghost' at (6, 9, 3) is not on this agent's "
                         "walkable surface (the nearest is 9.0"));
                CHECK(said("cannot be reached") == (c.unreachable > 0));
            }
        }
        // Names must be given and unique; positions finite.
        params.points = {{"a", "", {{0, 0, 0}}}, {"a", "", {{1, 0, 0}}}, {"", "", {{0, 0, 0}}}};
        const ParamIssues issues = graph::GraphStage::check(params);
        REQUIRE(issues.size() == 2);
        CHECK(issues[0].field == "points_of_interest[1].name");
        CHECK(issues[1].field == "points_of_interest[2].name");
    }

    TEST_CASE("gradient costs: up costs more than down, directed graphs searched exactly") {
        // A floor, a ramp (rise 1.5 m over 6 m) and a platform at its top.
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {8, 0, 6});
        b.quad({8, 0, 0}, {8, 0, 6}, {14, 1.5, 6}, {14, 1.5, 0});
        b.box({14, 1.3, 0}, {20, 1.5, 6});
        const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
        Context context;
        for (const graph::GraphKind kind : {graph::GraphKind::tile, graph::GraphKind::navmesh}) {
            INFO(choiceName<graph::GraphKind>(graph::kGraphKinds, kind));
            auto build = [&] {
                return kind == graph::GraphKind::tile ? graph::buildTileGraph(grid, context)
                                                      : graph::buildNavmeshGraph(grid, {}, context);
            };
            auto plain = build();
            auto sloped = build();
            REQUIRE(plain.ok());
            REQUIRE(sloped.ok());
            const uint64_t changed = graph::addGradientCosts(*sloped, 3.0f, 0.5f);
            CHECK(changed > 0);
            // Every edge: its plain cost + 3 x its rise or 0.5 x its fall.
            for (uint32_t n = 0; n < sloped->nodeCount(); ++n)
                for (uint32_t e = sloped->edge_offsets[n]; e < sloped->edge_offsets[n + 1]; ++e) {
                    const double dy =
                        double(sloped->positions[3 * size_t(sloped->edge_targets[e]) + 1]) -
                        sloped->positions[3 * size_t(n) + 1];
                    const double extra = dy > 0 ? 3.0 * dy : 0.5 * -dy;
                    CHECK(sloped->edge_costs[e] ==
                          doctest::Approx(double(plain->edge_costs[e]) + extra).epsilon(1e-5));
                }
            // Every edge keeps its way back, at another cost.
            CHECK(graph::edgeSymmetry(*sloped) == graph::Symmetry::two_way);
            // From the floor up costs the walk + 3 x 1.5 m; back down the walk + 0.5 x 1.5 m.
            uint32_t low = 0, high = 0;
            for (uint32_t n = 0; n < sloped->nodeCount(); ++n) {
                const float y = sloped->positions[3 * size_t(n) + 1];
                if (y < sloped->positions[3 * size_t(low) + 1]) low = n;
                if (y > sloped->positions[3 * size_t(high) + 1]) high = n;
            }
            REQUIRE(sloped->positions[3 * size_t(high) + 1] -
                        sloped->positions[3 * size_t(low) + 1] >
                    0.5f);
            const double walk_up = test::shortestFrom(*plain, low)[high];
            const double walk_down = test::shortestFrom(*plain, high)[low];
            const double up = test::shortestFrom(*sloped, low)[high];
            const double down = test::shortestFrom(*sloped, high)[low];
            const double rise = double(sloped->positions[3 * size_t(high) + 1]) -
                                sloped->positions[3 * size_t(low) + 1];
            CHECK(up == doctest::Approx(walk_up + 3.0 * rise).epsilon(1e-4));
            CHECK(down == doctest::Approx(walk_down + 0.5 * rise).epsilon(1e-4));
            // navrt's A* finds those costs exactly, both ways.
            test::TempDir dir;
            test::PackedAsset packed;
            test::packAsset(*sloped, dir / "s.nav", packed, [](auto&) {});
            REQUIRE_FALSE(packed.error);
            navrt::PathQuery query;
            REQUIRE_FALSE(query.init(packed.view));
            REQUIRE(query.findPath(low, high) == navrt::PathStatus::found);
            CHECK(query.cost() == doctest::Approx(up).epsilon(1e-5));
            REQUIRE(query.findPath(high, low) == navrt::PathStatus::found);
            CHECK(query.cost() == doctest::Approx(down).epsilon(1e-5));
        }
        graph::GraphStage::Params bad;
        bad.uphill = -1;
        const ParamIssues issues = graph::GraphStage::check(bad);
        REQUIRE(issues.size() == 1);
        CHECK(issues[0].field == "uphill");
    }
}
