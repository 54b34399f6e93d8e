// Exact navmesh paths (issue 15, Polyanya): lengths against an independent brute-force oracle, a
// visibility graph over the mesh's boundary vertices (a segment is visible when it crosses no
// boundary edge and every piece between the boundary points it touches lies in a polygon), on
// random pairs of generated single-floor levels; never longer than A* + funnel.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>

#include "lib/graph/graph.h"
#include "lib/runtime/navrt_exact.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct P2 {
    double x, z;
};
double cross(P2 a, P2 b, P2 c) { return (b.x - a.x) * (c.z - a.z) - (b.z - a.z) * (c.x - a.x); }
double dist(P2 a, P2 b) { return std::hypot(a.x - b.x, a.z - b.z); }

// The mesh as plain 2D polygons, and its boundary edges (no neighbour).
struct Mesh2 {
    std::vector<std::vector<P2>> polys;
    std::vector<std::pair<P2, P2>> boundary;
    std::vector<P2> corners;  // boundary vertices, once each
};

Mesh2 meshOf(const navrt::GraphView& g) {
    Mesh2 m;
    auto at = [&](uint32_t v) {
        return P2{g.mesh_vertices[3 * size_t(v)], g.mesh_vertices[3 * size_t(v) + 2]};
    };
    std::vector<uint8_t> seen(g.mesh_vertex_count, 0);
    for (uint32_t p = 0; p < g.nodeCount(); ++p) {
        std::vector<P2> poly;
        const uint32_t first = g.poly_offsets[p], n = g.poly_offsets[p + 1] - first;
        for (uint32_t k = 0; k < n; ++k) {
            poly.push_back(at(g.poly_vertices[first + k]));
            if (g.poly_neighbours[first + k] == navrt::kNoNode) {
                const uint32_t a = g.poly_vertices[first + k];
                const uint32_t b = g.poly_vertices[first + (k + 1) % n];
                m.boundary.push_back({at(a), at(b)});
                for (uint32_t v : {a, b})
                    if (!seen[v]) seen[v] = 1, m.corners.push_back(at(v));
            }
        }
        m.polys.push_back(poly);
    }
    return m;
}

bool inPolygon(const std::vector<P2>& poly, P2 p) {
    int sign = 0;
    for (size_t k = 0; k < poly.size(); ++k) {
        const double c = cross(poly[k], poly[(k + 1) % poly.size()], p);
        if (std::fabs(c) < 1e-9) continue;
        const int s = c > 0 ? 1 : -1;
        if (sign != 0 && s != sign) return false;
        sign = s;
    }
    return true;
}

bool inMesh(const Mesh2& m, P2 p) {
    return std::any_of(m.polys.begin(), m.polys.end(),
                       [&](const std::vector<P2>& poly) { return inPolygon(poly, p); });
}

// Whether segment a-b lies in the mesh.
bool visible(const Mesh2& m, P2 a, P2 b) {
    std::vector<double> cuts = {0, 1};
    const double length = dist(a, b);
    if (length < 1e-12) return true;
    for (const auto& [c, d] : m.boundary) {
        const double d1 = cross(a, b, c), d2 = cross(a, b, d);
        const double d3 = cross(c, d, a), d4 = cross(c, d, b);
        const double eps = 1e-9;
        if (((d1 > eps && d2 < -eps) || (d1 < -eps && d2 > eps)) &&
            ((d3 > eps && d4 < -eps) || (d3 < -eps && d4 > eps)))
            return false;  // a proper crossing
        // Boundary points the segment touches split it.
        for (P2 q : {c, d}) {
            if (std::fabs(cross(a, b, q)) > 1e-7 * length) continue;
            const double t =
                ((q.x - a.x) * (b.x - a.x) + (q.z - a.z) * (b.z - a.z)) / (length * length);
            if (t > 0 && t < 1) cuts.push_back(t);
        }
    }
    std::sort(cuts.begin(), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        if (cuts[i + 1] - cuts[i] < 1e-9) continue;
        const double t = 0.5 * (cuts[i] + cuts[i + 1]);
        if (!inMesh(m, {a.x + t * (b.x - a.x), a.z + t * (b.z - a.z)})) return false;
    }
    return true;
}

// The oracle: Dijkstra over start, goal and the boundary vertices, edges between visible pairs.
double oracle(const Mesh2& m, P2 s, P2 t) {
    std::vector<P2> points = {s, t};
    points.insert(points.end(), m.corners.begin(), m.corners.end());
    const size_t n = points.size();
    std::vector<double> d(n, std::numeric_limits<double>::infinity());
    std::vector<uint8_t> done(n, 0);
    d[0] = 0;
    for (size_t round = 0; round < n; ++round) {
        size_t u = n;
        for (size_t i = 0; i < n; ++i)
            if (!done[i] && (u == n || d[i] < d[u])) u = i;
        if (u == n || !std::isfinite(d[u])) break;
        if (u == 1) return d[1];
        done[u] = 1;
        for (size_t v = 0; v < n; ++v)
            if (!done[v] && d[u] + dist(points[u], points[v]) < d[v] &&
                visible(m, points[u], points[v]))
                d[v] = d[u] + dist(points[u], points[v]);
    }
    return d[1];
}

// A flat 24 x 16 m floor with boxes of random sizes on it; odd seeds add walls with doorways
// (rooms and corridors: long boundaries split into many portals, collinear vertices).
geometry::Geometry boxesLevel(unsigned seed) {
    std::mt19937 random(seed);
    test::LevelBuilder b;
    b.box({0, -0.2, 0}, {24, 0, 16});
    if (seed % 2 == 1) {
        b.box({8, 0, 0}, {8.3, 2.5, 6.5});
        b.box({8, 0, 8.5}, {8.3, 2.5, 16});
        b.box({16, 0, 0}, {16.3, 2.5, 11});
        b.box({16, 0, 13}, {16.3, 2.5, 16});
        b.box({0, 0, 10}, {5, 2.5, 10.3});
    }
    for (int i = 0; i < 9; ++i) {
        const double x = 2 + double(random() % 180) / 10, z = 2 + double(random() % 110) / 10;
        const double w = 0.6 + double(random() % 30) / 10, d = 0.6 + double(random() % 30) / 10;
        b.box({x, 0, z}, {x + w, 2.5, z + d});
    }
    return b.g;
}

}  // namespace

TEST_SUITE("runtime") {
    TEST_CASE("exact navmesh paths equal a brute-force visibility-graph oracle") {
        uint64_t pairs = 0, shorter = 0;
        double worst_gain = 0;
        for (unsigned seed = 1; seed <= 24; ++seed) {
            const voxel::VoxelGrid grid = test::voxelizeOk(boxesLevel(seed), test::voxelParams());
            Context context;
            auto built = graph::buildNavmeshGraph(grid, {}, context);
            REQUIRE(built.ok());
            test::TempDir dir;
            test::PackedAsset packed;
            test::packAsset(*built, dir / "m.nav", packed, [](formats::ContainerWriter&) {});
            REQUIRE_FALSE(packed.error);
            const navrt::GraphView& g = packed.view;
            const Mesh2 mesh = meshOf(g);
            navrt::ExactMeshQuery exact;
            REQUIRE_FALSE(exact.init(g));
            navrt::PathQuery astar;
            REQUIRE_FALSE(astar.init(g));
            std::mt19937 random(seed * 77);
            int tries = 0;
            for (int found = 0; found < 60 && tries < 2000; ++tries) {
                const navrt::Vec3 a{float(random() % 2400) / 100, 0, float(random() % 1600) / 100};
                const navrt::Vec3 b{float(random() % 2400) / 100, 0, float(random() % 1600) / 100};
                const navrt::MeshPoint pa = navrt::locateOnMesh(g, a, 0, 1);
                const navrt::MeshPoint pb = navrt::locateOnMesh(g, b, 0, 1);
                if (pa.poly == navrt::kNoNode || pb.poly == navrt::kNoNode) continue;
                if (g.components[pa.poly] != g.components[pb.poly]) continue;
                INFO("seed " << seed << " from (" << a.x << ", " << a.z << ") to (" << b.x << ", "
                             << b.z << ")");
                REQUIRE(exact.findPath(pa.position, pa.poly, pb.position, pb.poly) ==
                        navrt::PathStatus::found);
                const double want =
                    oracle(mesh, {pa.position.x, pa.position.z}, {pb.position.x, pb.position.z});
                CHECK(exact.cost() == doctest::Approx(want).epsilon(1e-4));
                if (std::fabs(exact.cost() - want) > 1e-3) {
                    std::string pts;
                    for (uint32_t i = 0; i < exact.pointCount(); ++i)
                        pts += " (" + std::to_string(exact.points()[i].x) + "," +
                               std::to_string(exact.points()[i].z) + ")";
                    MESSAGE("exact path" << pts);
                    astar.findPathBetween(pa.position, pa.poly, pb.position, pb.poly);
                    navrt::Vec3 buf[64];
                    const uint32_t c = astar.smooth(buf, 64);
                    pts.clear();
                    for (uint32_t i = 0; i < c; ++i)
                        pts +=
                            " (" + std::to_string(buf[i].x) + "," + std::to_string(buf[i].z) + ")";
                    MESSAGE("funnel path" << pts);
                }
                // The corners make a path of that length.
                double length = 0;
                for (uint32_t i = 0; i + 1 < exact.pointCount(); ++i)
                    length += dist({exact.points()[i].x, exact.points()[i].z},
                                   {exact.points()[i + 1].x, exact.points()[i + 1].z});
                CHECK(length == doctest::Approx(exact.cost()).epsilon(1e-6));
                REQUIRE(astar.findPathBetween(pa.position, pa.poly, pb.position, pb.poly) ==
                        navrt::PathStatus::found);
                const double funnel = astar.smoothedLength();
                CHECK(exact.cost() <= funnel + 1e-4);
                if (exact.cost() < funnel - 1e-4) ++shorter;
                worst_gain = std::max(worst_gain, funnel / exact.cost() - 1);
                ++pairs;
                ++found;
            }
        }
        MESSAGE(pairs << " pairs; A* + funnel longer on " << shorter << ", by up to "
                      << worst_gain * 100 << "%");
        CHECK(pairs >= 400);
    }
}
