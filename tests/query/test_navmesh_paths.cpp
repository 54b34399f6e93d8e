// Acceptance (issue 4): on the sample levels, navmesh straight paths are never shorter than the
// straight-line distance and never longer than the tile-graph path on the same level + 5%; an empty
// walkable surface gives an empty navmesh with a warning; points off the mesh get a clear status.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxelize.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct Packed {
    navrt::Asset asset;
    navrt::GraphView view;
};

std::unique_ptr<Packed> pack(const graph::Graph& g, const std::filesystem::path& path) {
    auto p = std::make_unique<Packed>();
    REQUIRE(graph::saveGraph(path, g, formats::kKindNav).ok());
    REQUIRE_FALSE(navrt::load(path.c_str(), p->asset));
    REQUIRE_FALSE(navrt::viewGraph(p->asset, p->view));
    return p;
}

class WarningCounter : public Context {
public:
    void log(LogLevel level, std::string_view message) override {
        if (level == LogLevel::warn) last_warning = std::string(message);
    }
    std::string last_warning;
};

}  // namespace

TEST_SUITE("query") {
    TEST_CASE("navmesh paths are bounded by the straight line and the tile-graph path + 5%") {
        // All surfaces cost 1 so A* cost = path length on both graphs.
        auto tags = importer::parseTagConfig(R"({"use_defaults": false})", "flat-costs");
        REQUIRE(tags.ok());
        importer::ImportParams import_params;
        import_params.tags = *tags;
        for (const char* level : {"indoor_two_floors.glb", "terrain.obj"}) {
            INFO(level);
            Context context;
            auto geometry =
                importer::importScene(test::sampleLevels() / level, import_params, context);
            REQUIRE(geometry.ok());
            auto grid = voxel::voxelize(*geometry, {}, context);
            REQUIRE(grid.ok());
            auto tile = graph::buildTileGraph(*grid, context);
            REQUIRE(tile.ok());
            auto mesh = graph::buildNavmeshGraph(*grid, {}, context);
            REQUIRE(mesh.ok());
            REQUIRE(mesh->mesh.polyCount() > 10);
            test::TempDir dir;
            auto tile_nav = pack(*tile, dir / "tile.nav");
            auto mesh_nav = pack(*mesh, dir / "mesh.nav");
            navrt::PathQuery tile_query, mesh_query;
            REQUIRE_FALSE(tile_query.init(tile_nav->view));
            REQUIRE_FALSE(mesh_query.init(mesh_nav->view));

            std::mt19937 rng(7);
            int compared = 0;
            double worst = 0;
            const float slack = 2 * grid->cell_size;  // endpoints: cell centres vs projected points
            for (int trial = 0; trial < 400 && compared < 150; ++trial) {
                const uint32_t a = rng() % uint32_t(tile->nodeCount());
                const uint32_t b = rng() % uint32_t(tile->nodeCount());
                const navrt::Vec3 from = tile_nav->view.position(a),
                                  to = tile_nav->view.position(b);
                const navrt::MeshPoint ma = navrt::locateOnMesh(mesh_nav->view, from, 0.5f, 1.0f);
                const navrt::MeshPoint mb = navrt::locateOnMesh(mesh_nav->view, to, 0.5f, 1.0f);
                if (ma.poly == navrt::kNoNode || mb.poly == navrt::kNoNode) continue;
                if (tile_query.findPath(a, b) != navrt::PathStatus::found) continue;
                if (mesh_query.findPathBetween(ma.position, ma.poly, mb.position, mb.poly) !=
                    navrt::PathStatus::found)
                    continue;
                const double straight =
                    std::hypot(ma.position.x - mb.position.x, ma.position.y - mb.position.y,
                               ma.position.z - mb.position.z);
                const double length = mesh_query.smoothedLength();
                CHECK(length >= straight - 1e-4);
                CHECK(length <= tile_query.cost() * 1.05 + slack);
                if (tile_query.cost() > 5) worst = std::max(worst, length / tile_query.cost());
                ++compared;
            }
            CHECK(compared >= 100);
            MESSAGE(std::string(level), ": ", compared,
                    " pairs, worst navmesh/tile length ratio (paths > 5 m) ", worst);
        }
    }

    TEST_CASE("an empty walkable surface gives an empty navmesh and a warning") {
        voxel::VoxelGrid grid;
        grid.size_x = 4;
        grid.size_z = 4;
        grid.size_y = 10;
        grid.column_offsets.assign(17, 0);
        WarningCounter context;
        auto g = graph::buildNavmeshGraph(grid, {}, context);
        REQUIRE(g.ok());
        CHECK(g->mesh.polyCount() == 0);
        CHECK(g->nodeCount() == 0);
        CHECK(context.last_warning.find("no walkable surface") != std::string::npos);
        test::TempDir dir;
        auto packed = pack(*g, dir / "empty.nav");
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(packed->view));
        navrt::Vec3 point{1, 0, 1};
        const query::QueryRecord r = query::runQuery(packed->view, query, point, point, {});
        CHECK(r.outcome == query::Outcome::start_off_graph);
    }

    TEST_CASE("query snapping: a point off the surface moves to the nearest one within the box") {
        // A 10 x 10 m floor at y = 0.
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {10, 0, 10});
        Context context;
        auto grid = voxel::voxelize(b.g, test::voxelParams(), context);
        REQUIRE(grid.ok());
        test::TempDir dir;
        for (const graph::GraphKind kind :
             {graph::GraphKind::tile, graph::GraphKind::navmesh, graph::GraphKind::pov}) {
            INFO(choiceName<graph::GraphKind>(graph::kGraphKinds, kind));
            auto g = kind == graph::GraphKind::tile ? graph::buildTileGraph(*grid, context)
                     : kind == graph::GraphKind::navmesh
                         ? graph::buildNavmeshGraph(*grid, {}, context)
                         : graph::buildPovGraph(*grid, {}, context);
            REQUIRE(g.ok());
            auto packed = pack(*g, dir / "s.nav");
            navrt::PathQuery query;
            REQUIRE_FALSE(query.init(packed->view));
            const navrt::Vec3 high{5, 2.5, 5}, on{8, 0, 8};
            // 2.5 m above the floor: off it by the default 1 m; snapped within 3 m.
            CHECK(query::runQuery(packed->view, query, high, on, {}).outcome ==
                  query::Outcome::start_off_graph);
            query::Tolerance snap;
            snap.snap = 3.0f;
            const query::QueryRecord r = query::runQuery(packed->view, query, high, on, snap);
            REQUIRE(r.outcome == query::Outcome::found);
            CHECK(r.start_moved == doctest::Approx(2.5).epsilon(0.08));
            CHECK(std::fabs(r.start_at.y) < 0.05f);
            CHECK(r.goal_moved < 0);  // the goal was on the surface: not moved
            // Beyond the box: still off.
            snap.snap = 2.0f;
            CHECK(query::runQuery(packed->view, query, high, on, snap).outcome ==
                  query::Outcome::start_off_graph);
        }
    }
}
