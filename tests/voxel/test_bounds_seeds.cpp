// Designers' control (issue 14): bake bounds (voxelize) and seed points (graph stage) on small
// levels with exact expected results.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/graph/graph.h"
#include "lib/voxel/voxelize.h"
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

struct Walkable {
    double x, y, z;  // column centre, top
};
std::vector<Walkable> walkableTops(const voxel::VoxelGrid& g) {
    std::vector<Walkable> out;
    for (uint32_t z = 0; z < g.size_z; ++z)
        for (uint32_t x = 0; x < g.size_x; ++x)
            for (const voxel::Span& s : g.column(x, z))
                if (s.walkable)
                    out.push_back({g.origin[0] + (x + 0.5) * g.cell_size, g.topY(s),
                                   g.origin[2] + (z + 0.5) * g.cell_size});
    return out;
}

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

uint64_t countOf(const StageResult& r, const std::string& name) {
    for (const auto& [n, v] : r.counts)
        if (n == name) return v;
    FAIL("no count " << name);
    return 0;
}

bool inBox(const Walkable& w, const geometry::Bounds& b) {
    return w.x >= b.min[0] && w.x <= b.max[0] && w.y >= b.min[1] && w.y <= b.max[1] &&
           w.z >= b.min[2] && w.z <= b.max[2];
}

}  // namespace

TEST_SUITE("voxel") {
    TEST_CASE("bake bounds: only the surface inside is walkable; far geometry is not voxelized") {
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
            uint64_t outside = 0;
            auto bounded = voxel::voxelize(level, params, context, &outside);
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
}
