// navrt on a hand-built navigation mesh: locate, A* over polygons, funnel, raycast.
#include <doctest/doctest.h>

#include <cmath>

#include "lib/graph/graph.h"
#include "lib/runtime/navrt_query.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// An L of three 2 m squares on the floor (XZ), y = 0:
//   P2 = [2,4] x [2,4]
//   P0 = [0,2] x [0,2]   P1 = [2,4] x [0,2]
navmesh::NavMesh lMesh() {
    navmesh::NavMesh m;
    const float v[8][2] = {{0, 0}, {2, 0}, {4, 0}, {0, 2}, {2, 2}, {4, 2}, {2, 4}, {4, 4}};
    for (auto& p : v) m.vertices.insert(m.vertices.end(), {p[0], 0.0f, p[1]});
    const uint32_t polys[3][4] = {{0, 1, 4, 3}, {1, 2, 5, 4}, {4, 5, 7, 6}};
    const uint32_t neighbours[3][4] = {
        {navmesh::kNoNeighbour, 1, navmesh::kNoNeighbour, navmesh::kNoNeighbour},
        {navmesh::kNoNeighbour, navmesh::kNoNeighbour, 2, 0},
        {1, navmesh::kNoNeighbour, navmesh::kNoNeighbour, navmesh::kNoNeighbour}};
    m.poly_offsets.push_back(0);
    m.detail_offsets.push_back(0);
    for (int p = 0; p < 3; ++p) {
        for (int k = 0; k < 4; ++k) {
            m.poly_vertices.push_back(polys[p][k]);
            m.poly_neighbours.push_back(neighbours[p][k]);
        }
        m.poly_offsets.push_back(uint32_t(m.poly_vertices.size()));
        for (int t : {1, 2}) {  // fan triangles (0, t, t+1)
            for (uint32_t corner : {polys[p][0], polys[p][t], polys[p][t + 1]})
                m.detail_triangles.insert(m.detail_triangles.end(),
                                          {v[corner][0], 0.0f, v[corner][1]});
        }
        m.detail_offsets.push_back(uint32_t(m.detail_triangles.size() / 9));
        m.poly_areas.push_back(1);
        m.poly_regions.push_back(0);
        m.poly_tiles.push_back(0);
    }
    m.areas = geometry::defaultAreaTable();
    m.region_count = 1;
    return m;
}

struct Loaded {
    test::TempDir dir;
    navrt::Asset asset;
    navrt::GraphView view;
};

std::unique_ptr<Loaded> packMesh(navmesh::NavMesh mesh) {
    voxel::VoxelGrid grid;
    grid.size_x = 14;
    grid.size_z = 14;
    grid.size_y = 10;
    grid.column_offsets.assign(grid.columnCount() + 1, 0);
    auto loaded = std::make_unique<Loaded>();
    const graph::Graph g = graph::navmeshGraph(std::move(mesh), grid);
    REQUIRE(graph::saveGraph(loaded->dir / "l.nav", g, formats::kKindNav).ok());
    auto back = graph::loadGraph(loaded->dir / "l.nav");
    CHECK_FALSE(back.ok());  // a .nav is not a .graph...
    REQUIRE_FALSE(navrt::load((loaded->dir / "l.nav").c_str(), loaded->asset));
    REQUIRE_FALSE(navrt::viewGraph(loaded->asset, loaded->view));
    return loaded;
}

double length(const std::vector<navrt::Vec3>& points) {
    double total = 0;
    for (size_t i = 1; i < points.size(); ++i)
        total += std::hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y,
                            points[i].z - points[i - 1].z);
    return total;
}

}  // namespace

TEST_SUITE("runtime") {
    TEST_CASE("navmesh locate uses the index, projects onto the floor and reports misses") {
        auto l = packMesh(lMesh());
        CHECK(l->view.isNavmesh());
        CHECK(l->view.nodeCount() == 3);
        CHECK(navrt::locateOnMesh(l->view, {1, 0.5f, 1}).poly == 0);
        const navrt::MeshPoint p2 = navrt::locateOnMesh(l->view, {3, 0.4f, 3});
        CHECK(p2.poly == 2);
        CHECK(p2.position.y == doctest::Approx(0.0));
        CHECK(navrt::locateOnMesh(l->view, {1, 0, 3}).poly == navrt::kNoNode);  // the L's notch
        CHECK(navrt::locateOnMesh(l->view, {1, 5, 1}).poly == navrt::kNoNode);  // far above
        CHECK(navrt::locateOnMesh(l->view, {-50, 0, 1}).poly ==
              navrt::kNoNode);  // outside the index
        const navrt::MeshPoint near = navrt::locateOnMesh(l->view, {1, 0, 2.3f}, 0.5f, 1.0f);
        CHECK(near.poly == 0);
        CHECK(near.position.z == doctest::Approx(2.0));
        CHECK(near.distance == doctest::Approx(0.3));
        CHECK(p2.distance == doctest::Approx(0.4));
        CHECK(navrt::locate(l->view, {3, 0, 1}) == 1);
    }

    TEST_CASE("navmesh locate: a hint keeps the agent on its floor where floors overlap") {
        navmesh::NavMesh m = lMesh();
        // P3: a landing 0.8 m over P0, on its own (no portals).
        const uint32_t base = uint32_t(m.vertices.size() / 3);
        const float v[4][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
        for (auto& p : v) m.vertices.insert(m.vertices.end(), {p[0], 0.8f, p[1]});
        for (uint32_t k = 0; k < 4; ++k) {
            m.poly_vertices.push_back(base + k);
            m.poly_neighbours.push_back(navmesh::kNoNeighbour);
        }
        m.poly_offsets.push_back(uint32_t(m.poly_vertices.size()));
        for (int t : {1, 2})
            for (int corner : {0, t, t + 1})
                m.detail_triangles.insert(m.detail_triangles.end(),
                                          {v[corner][0], 0.8f, v[corner][1]});
        m.detail_offsets.push_back(uint32_t(m.detail_triangles.size() / 9));
        m.poly_areas.push_back(1);
        m.poly_regions.push_back(1);
        m.poly_tiles.push_back(0);
        m.region_count = 2;
        auto l = packMesh(std::move(m));
        const navrt::Vec3 between{1, 0.5f, 1};  // 0.5 m over P0, 0.3 m under P3
        CHECK(navrt::locateOnMesh(l->view, between, 0, 1).poly == 3);  // the nearer floor
        const navrt::MeshPoint stay = navrt::locateOnMesh(l->view, between, 0, 1, 0);
        CHECK(stay.poly == 0);  // the agent was on P0: it stays there
        CHECK(stay.position.y == doctest::Approx(0.0));
        CHECK(stay.distance == doctest::Approx(0.5));
        // A hint the point is not over (or out of range) is ignored: the search decides.
        CHECK(navrt::locateOnMesh(l->view, between, 0, 1, 1).poly == 3);
        CHECK(navrt::locateOnMesh(l->view, between, 0, 1, 99).poly == 3);
        // A hint whose floor is beyond the vertical tolerance is ignored too.
        CHECK(navrt::locateOnMesh(l->view, {1, 0.7f, 1}, 0, 0.5f, 0).poly == 3);
    }

    TEST_CASE("navmesh paths: straight where visible, bent at the inner corner otherwise") {
        auto l = packMesh(lMesh());
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(l->view));
        std::vector<navrt::Vec3> points(8);

        // Visible: one straight segment through P0, P1, P2.
        REQUIRE(query.findPathBetween({1, 0, 1}, 0, {3.5f, 0, 3}, 2) == navrt::PathStatus::found);
        CHECK(query.pathLength() == 3);
        uint32_t count = query.smooth(points.data(), 8);
        REQUIRE(count == 2);
        CHECK(query.smoothedLength() == doctest::Approx(std::hypot(2.5, 2.0)));

        // Around the corner (2, 2).
        REQUIRE(query.findPathBetween({0.5f, 0, 0.5f}, 0, {2.2f, 0, 3.8f}, 2) ==
                navrt::PathStatus::found);
        count = query.smooth(points.data(), 8);
        REQUIRE(count == 3);
        CHECK(points[1].x == doctest::Approx(2.0));
        CHECK(points[1].z == doctest::Approx(2.0));
        points.resize(count);
        const double expected = std::hypot(1.5, 1.5) + std::hypot(0.2, 1.8);
        CHECK(length(points) == doctest::Approx(expected));
        CHECK(query.smoothedLength() == doctest::Approx(expected));
        CHECK(query.cost() >=
              expected - 1e-6);  // portal-midpoint cost is never below the taut path

        // Same polygon: the straight segment; invalid nodes are statuses.
        REQUIRE(query.findPathBetween({0.5f, 0, 0.5f}, 0, {1.5f, 0, 1.5f}, 0) ==
                navrt::PathStatus::found);
        CHECK(query.smoothedLength() == doctest::Approx(std::sqrt(2.0)));
        CHECK(query.findPathBetween({0, 0, 0}, 7, {1, 0, 1}, 0) ==
              navrt::PathStatus::invalid_start);
        CHECK(query.findPathBetween({0, 0, 0}, 0, {1, 0, 1}, 9) == navrt::PathStatus::invalid_goal);
    }

    TEST_CASE("navmesh raycast stops at walls and crosses portals") {
        auto l = packMesh(lMesh());
        navrt::RaycastHit clear = navrt::raycast(l->view, 0, {0.5f, 0, 0.5f}, {3.5f, 0, 0.5f});
        CHECK_FALSE(clear.hit);
        CHECK(clear.t == 1.0f);
        CHECK(clear.last_poly == 1);
        CHECK(clear.visited == 2);
        navrt::RaycastHit wall = navrt::raycast(l->view, 0, {0.5f, 0, 0.5f}, {0.5f, 0, 5.0f});
        CHECK(wall.hit);
        CHECK(wall.t == doctest::Approx(1.5 / 4.5));
        CHECK(wall.normal.z == doctest::Approx(-1.0));
        CHECK(wall.last_poly == 0);
        navrt::RaycastHit up = navrt::raycast(l->view, 0, {1.5f, 0, 0.5f}, {3, 0, 3.5f});
        CHECK(navrt::raycast(l->view, 0, {1, 0, 1}, {3, 0, 3.9f}).hit);  // cuts through the notch
        CHECK_FALSE(up.hit);
        CHECK(up.last_poly == 2);
    }
}
