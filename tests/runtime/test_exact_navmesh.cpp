// Exact navmesh paths (issue 15, Polyanya): lengths against an independent brute-force oracle, a
// visibility graph over the mesh's boundary vertices (a segment is visible when walking it from
// polygon to polygon crosses portals only: where two polygons merely touch at a corner there is no
// way through), on random pairs of generated single-floor levels; never longer than A* + funnel.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>

#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_exact.h"
#include "lib/runtime/navrt_query.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/runtime/navigator_levels.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct P2 {
    double x, z;
};
double cross(P2 a, P2 b, P2 c) { return (b.x - a.x) * (c.z - a.z) - (b.z - a.z) * (c.x - a.x); }
double dist(P2 a, P2 b) { return std::hypot(a.x - b.x, a.z - b.z); }

// The mesh as plain 2D polygons with their portals (edge k from corner k to k + 1 leads to
// neighbour[k], -1 for a wall) and, per vertex, the polygons around it.
struct Mesh2 {
    std::vector<std::vector<P2>> polys;
    std::vector<std::vector<int64_t>> neighbour;
    std::vector<std::vector<uint32_t>> corners_of;  // mesh vertex ids per polygon
    std::vector<std::vector<uint32_t>> around;      // polygons per mesh vertex
    std::vector<P2> vertex;
    std::vector<uint8_t> on_boundary;  // per mesh vertex
};

Mesh2 meshOf(const navrt::GraphView& g) {
    Mesh2 m;
    m.around.resize(g.mesh_vertex_count);
    m.on_boundary.assign(g.mesh_vertex_count, 0);
    for (uint32_t v = 0; v < g.mesh_vertex_count; ++v)
        m.vertex.push_back({g.mesh_vertices[3 * size_t(v)], g.mesh_vertices[3 * size_t(v) + 2]});
    for (uint32_t p = 0; p < g.nodeCount(); ++p) {
        const uint32_t first = g.poly_offsets[p], n = g.poly_offsets[p + 1] - first;
        std::vector<P2> poly;
        std::vector<int64_t> next;
        std::vector<uint32_t> ids;
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t v = g.poly_vertices[first + k];
            poly.push_back(m.vertex[v]);
            ids.push_back(v);
            m.around[v].push_back(p);
            const uint32_t nb = g.poly_neighbours[first + k];
            next.push_back(nb == navrt::kNoNode ? -1 : int64_t(nb));
            if (nb == navrt::kNoNode)
                m.on_boundary[v] = m.on_boundary[g.poly_vertices[first + (k + 1) % n]] = 1;
        }
        m.polys.push_back(poly);
        m.neighbour.push_back(next);
        m.corners_of.push_back(ids);
    }
    return m;
}

bool inPolygon(const std::vector<P2>& poly, P2 p, double eps = 1e-9) {
    int sign = 0;
    for (size_t k = 0; k < poly.size(); ++k) {
        const double c = cross(poly[k], poly[(k + 1) % poly.size()], p);
        if (std::fabs(c) < eps) continue;
        const int s = c > 0 ? 1 : -1;
        if (sign != 0 && s != sign) return false;
        sign = s;
    }
    return true;
}

// The polygons around vertex v reachable from polygon p by crossing portals that end at v.
std::vector<uint32_t> fanOf(const Mesh2& m, uint32_t v, uint32_t p) {
    std::vector<uint32_t> fan = {p};
    for (size_t i = 0; i < fan.size(); ++i) {
        const uint32_t q = fan[i];
        const auto& ids = m.corners_of[q];
        for (size_t k = 0; k < ids.size(); ++k) {
            if (ids[k] != v && ids[(k + 1) % ids.size()] != v) continue;
            const int64_t nb = m.neighbour[q][k];
            if (nb >= 0 && std::find(fan.begin(), fan.end(), uint32_t(nb)) == fan.end())
                fan.push_back(uint32_t(nb));
        }
    }
    return fan;
}

// Walks segment a -> b from polygon p through portals; the polygon holding b, or -1 when the
// segment leaves the mesh or squeezes through a point where polygons only touch at a corner.
int64_t walk(const Mesh2& m, int64_t p, P2 a, P2 b) {
    const double length = dist(a, b);
    double t = 0;
    for (int step = 0; step < 10000 && p >= 0; ++step) {
        const auto& poly = m.polys[size_t(p)];
        if (inPolygon(poly, b, 1e-7)) return p;
        // The exit: the farthest parameter along a -> b still inside the polygon.
        double exit_s = -1;
        size_t exit_k = 0;
        double exit_u = 0;
        for (size_t k = 0; k < poly.size(); ++k) {
            const P2 c = poly[k], d = poly[(k + 1) % poly.size()];
            const double denom = (b.x - a.x) * (d.z - c.z) - (b.z - a.z) * (d.x - c.x);
            if (std::fabs(denom) < 1e-12) continue;
            const double s = ((c.x - a.x) * (d.z - c.z) - (c.z - a.z) * (d.x - c.x)) / denom;
            const double u = ((c.x - a.x) * (b.z - a.z) - (c.z - a.z) * (b.x - a.x)) / denom;
            if (u < -1e-9 || u > 1 + 1e-9 || s < t - 1e-9) continue;
            if (s > exit_s) exit_s = s, exit_k = k, exit_u = u;
        }
        if (exit_s < 0 || exit_s >= 1) return -1;
        const double vertex_eps =
            1e-7 / std::max(1e-9, dist(poly[exit_k], poly[(exit_k + 1) % poly.size()]));
        if (exit_u < vertex_eps || exit_u > 1 - vertex_eps) {
            // Through a corner: go on in the polygon of its fan the segment enters next.
            const uint32_t v =
                m.corners_of[size_t(p)][exit_u < 0.5 ? exit_k : (exit_k + 1) % poly.size()];
            const double ahead = exit_s + 1e-6 / length;
            const P2 q{a.x + ahead * (b.x - a.x), a.z + ahead * (b.z - a.z)};
            int64_t next = -1;
            for (uint32_t f : fanOf(m, v, uint32_t(p)))
                if (int64_t(f) != p && inPolygon(m.polys[f], q, 1e-7)) next = f;
            if (next < 0) return -1;
            p = next;
        } else {
            p = m.neighbour[size_t(p)][exit_k];
        }
        t = exit_s;
    }
    return -1;
}

// The oracle: Dijkstra over the start, the goal and one node per boundary vertex and fan of
// polygons around it; an edge where walking the segment from the first node's fan arrives in
// the second's.
// A link taken one way, for the oracle: from `entry` (in entry_poly) to `exit`, at `cost`.
struct OracleLink {
    P2 entry;
    uint32_t entry_poly;
    P2 exit;
    uint32_t exit_poly;
    double cost;
};

double oracle(const Mesh2& m, P2 s, uint32_t s_poly, P2 t, uint32_t t_poly,
              const std::vector<OracleLink>& links = {}) {
    struct Node {
        P2 at;
        std::vector<uint32_t> fan;
    };
    std::vector<Node> nodes = {{s, {s_poly}}, {t, {t_poly}}};
    // Links: nodes 2 + 2k (entry) and 3 + 2k (exit), a one-way edge between them.
    for (const OracleLink& l : links) {
        nodes.push_back({l.entry, {l.entry_poly}});
        nodes.push_back({l.exit, {l.exit_poly}});
    }
    for (uint32_t v = 0; v < m.vertex.size(); ++v) {
        if (!m.on_boundary[v]) continue;
        std::vector<uint8_t> taken(m.polys.size(), 0);
        for (uint32_t p : m.around[v]) {
            if (taken[p]) continue;
            Node node{m.vertex[v], fanOf(m, v, p)};
            for (uint32_t f : node.fan) taken[f] = 1;
            nodes.push_back(node);
        }
    }
    const size_t n = nodes.size();
    auto edge = [&](const Node& from, const Node& to) {
        const double d = dist(from.at, to.at);
        if (d < 1e-12) return false;
        const double ahead = 1e-6 / d;
        const P2 q{from.at.x + ahead * (to.at.x - from.at.x),
                   from.at.z + ahead * (to.at.z - from.at.z)};
        for (uint32_t p : from.fan) {
            if (from.fan.size() > 1 && !inPolygon(m.polys[p], q, 1e-7)) continue;
            const int64_t end = walk(m, p, from.at, to.at);
            if (end >= 0 && std::find(to.fan.begin(), to.fan.end(), uint32_t(end)) != to.fan.end())
                return true;
        }
        return false;
    };
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
        if (u >= 2 && u < 2 + 2 * links.size() && u % 2 == 0) {
            const size_t x = u + 1;
            d[x] = std::min(d[x], d[u] + links[(u - 2) / 2].cost);
        }
        for (size_t v = 0; v < n; ++v)
            if (!done[v] && d[u] + dist(nodes[u].at, nodes[v].at) < d[v] &&
                edge(nodes[u], nodes[v]))
                d[v] = d[u] + dist(nodes[u].at, nodes[v].at);
    }
    return d[1];
}

// The navmesh of `grid`, packed into `dir` and viewed.
void navmeshAsset(const voxel::VoxelGrid& grid, const test::TempDir& dir,
                  test::PackedAsset& packed) {
    Context context;
    auto built = graph::buildNavmeshGraph(grid, {}, context);
    REQUIRE(built.ok());
    test::packAsset(*built, dir / "m.nav", packed, [](formats::ContainerWriter&) {});
    REQUIRE_FALSE(packed.error);
}

// The oracle's mesh and both searches over one asset; and the exact search with its cluster
// bound from the first expansion on, over clusters of 1 and of 3 polygons, on every mesh (the
// default sets it up only where floors stack: here every search uses it, so a bound too high
// would show as a path longer than the oracle's).
struct Queries {
    Mesh2 mesh;
    navrt::ExactMeshQuery exact;
    navrt::PathQuery astar;
    navrt::ExactMeshQuery clustered[2];
    explicit Queries(const navrt::GraphView& g) : mesh(meshOf(g)) {
        REQUIRE_FALSE(exact.init(g));
        REQUIRE_FALSE(astar.init(g));
        clustered[0].setClusterBound(1, 0, true);
        clustered[1].setClusterBound(3, 0, true);
        for (navrt::ExactMeshQuery& c : clustered) REQUIRE_FALSE(c.init(g));
    }
    // The clustered searches find the same cost as `want`.
    void checkClustered(const navrt::MeshPoint& a, const navrt::MeshPoint& b, double want) {
        for (navrt::ExactMeshQuery& c : clustered) {
            REQUIRE(c.findPath(a.position, a.poly, b.position, b.poly) == navrt::PathStatus::found);
            CHECK(c.cost() == doctest::Approx(want).epsilon(1e-4));
        }
    }
};

// The navmesh of a scene file (imported with the default rules, voxelized with the defaults),
// packed into `dir` and viewed.
void sceneNavmeshAsset(const std::filesystem::path& level, const test::TempDir& dir,
                       test::PackedAsset& packed) {
    Context context;
    auto geometry = importer::importScene(level, {}, context);
    REQUIRE(geometry.ok());
    navmeshAsset(test::voxelizeOk(*geometry, {}), dir, packed);
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
        for (unsigned seed = 1; seed <= 80; ++seed) {
            const voxel::VoxelGrid grid = test::voxelizeOk(boxesLevel(seed), test::voxelParams());
            test::TempDir dir;
            test::PackedAsset packed;
            navmeshAsset(grid, dir, packed);
            const navrt::GraphView& g = packed.view;
            Queries q(g);
            CHECK_FALSE(q.exact.usesClusterBound());  // one floor: the straight line alone
            const Mesh2& mesh = q.mesh;
            navrt::ExactMeshQuery& exact = q.exact;
            navrt::PathQuery& astar = q.astar;
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
                const double want = oracle(mesh, {pa.position.x, pa.position.z}, pa.poly,
                                           {pb.position.x, pb.position.z}, pb.poly);
                CHECK(exact.cost() == doctest::Approx(want).epsilon(1e-4));
                q.checkClustered(pa, pb, want);
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

    TEST_CASE("exact navmesh paths in perfect mazes (every side corridor a dead-end branch)") {
        // A maze of 8 x 8 cells of 3 m whose passages form a tree: every corridor off the way
        // between two points is a dead-end branch the search skips unless the goal is in it. The
        // lengths equal the oracle's (a branch wrongly skipped loses the path or lengthens it),
        // and the search runs on fewer polygons than the asset has (merged while convex).
        constexpr int kCells = 8;
        constexpr double kCell = 3, kWall = 0.3;
        uint64_t pairs = 0;
        for (unsigned seed = 1; seed <= 6; ++seed) {
            std::mt19937 random(seed);
            // Passages: a random depth-first spanning tree of the cells.
            std::vector<uint8_t> open_east(kCells * kCells, 0), open_south(kCells * kCells, 0);
            std::vector<uint8_t> visited(kCells * kCells, 0);
            std::vector<int> stack = {0};
            visited[0] = 1;
            while (!stack.empty()) {
                const int c = stack.back(), x = c % kCells, z = c / kCells;
                int options[4], count = 0;
                if (x > 0 && !visited[c - 1]) options[count++] = c - 1;
                if (x + 1 < kCells && !visited[c + 1]) options[count++] = c + 1;
                if (z > 0 && !visited[c - kCells]) options[count++] = c - kCells;
                if (z + 1 < kCells && !visited[c + kCells]) options[count++] = c + kCells;
                if (count == 0) {
                    stack.pop_back();
                    continue;
                }
                const int next = options[random() % count];
                if (next == c + 1) open_east[c] = 1;
                if (next == c - 1) open_east[next] = 1;
                if (next == c + kCells) open_south[c] = 1;
                if (next == c - kCells) open_south[next] = 1;
                visited[next] = 1;
                stack.push_back(next);
            }
            test::LevelBuilder b;
            const double size = kCells * kCell;
            b.box({-1, -0.2, -1}, {size + 1, 0, size + 1});
            b.box({-kWall, 0, -kWall}, {size + kWall, 2.5, 0});
            b.box({-kWall, 0, size}, {size + kWall, 2.5, size + kWall});
            b.box({-kWall, 0, 0}, {0, 2.5, size});
            b.box({size, 0, 0}, {size + kWall, 2.5, size});
            for (int z = 0; z < kCells; ++z)
                for (int x = 0; x < kCells; ++x) {
                    const int c = z * kCells + x;
                    const double x1 = (x + 1) * kCell, z1 = (z + 1) * kCell;
                    if (x + 1 < kCells && !open_east[c])
                        b.box({x1 - kWall / 2, 0, z * kCell - kWall / 2},
                              {x1 + kWall / 2, 2.5, z1 + kWall / 2});
                    if (z + 1 < kCells && !open_south[c])
                        b.box({x * kCell - kWall / 2, 0, z1 - kWall / 2},
                              {x1 + kWall / 2, 2.5, z1 + kWall / 2});
                }
            const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
            test::TempDir dir;
            test::PackedAsset packed;
            navmeshAsset(grid, dir, packed);
            const navrt::GraphView& g = packed.view;
            Queries q(g);
            INFO("seed " << seed << ", " << g.nodeCount() << " polygons, searched as "
                         << q.exact.searchPolygonCount());
            CHECK(q.exact.searchPolygonCount() < g.nodeCount());
            for (int k = 0; k < 40; ++k) {
                auto point = [&] {
                    return navrt::Vec3{
                        float((random() % kCells) * kCell + 1.2 + double(random() % 60) / 100), 0,
                        float((random() % kCells) * kCell + 1.2 + double(random() % 60) / 100)};
                };
                const navrt::MeshPoint pa = navrt::locateOnMesh(g, point(), 0, 1);
                const navrt::MeshPoint pb = navrt::locateOnMesh(g, point(), 0, 1);
                REQUIRE(pa.poly != navrt::kNoNode);
                REQUIRE(pb.poly != navrt::kNoNode);
                INFO("from (" << pa.position.x << ", " << pa.position.z << ") to (" << pb.position.x
                              << ", " << pb.position.z << ")");
                REQUIRE(q.exact.findPath(pa.position, pa.poly, pb.position, pb.poly) ==
                        navrt::PathStatus::found);
                const double want = oracle(q.mesh, {pa.position.x, pa.position.z}, pa.poly,
                                           {pb.position.x, pb.position.z}, pb.poly);
                CHECK(q.exact.cost() == doctest::Approx(want).epsilon(1e-4));
                q.checkClustered(pa, pb, want);
                ++pairs;
            }
        }
        CHECK(pairs == 240);
    }

    TEST_CASE("exact navmesh paths equal the oracle on the shared meshes and the sample levels") {
        // Whatever of the Recast demo meshes (../shared/data) and this project's sample levels
        // is present: random pairs of points in polygons of one component (random convex
        // combinations of their corners), located on the surface (multi-floor: the oracle's fans
        // keep each floor a sheet of its own).
        std::vector<std::filesystem::path> levels;
        for (const char* name : {"dungeon.obj", "nav_test.obj", "undulating.obj"})
            levels.push_back(test::sharedData() / "meshes" / name);
        for (const char* name : {"terrain.obj", "indoor_two_floors.glb", "designer_yard.obj"})
            levels.push_back(test::sampleLevels() / name);
        size_t tested = 0;
        for (const auto& level : levels) {
            if (!std::filesystem::exists(level)) {
                MESSAGE("skipped: " << level << " not found (../shared/data is beside the repo)");
                continue;
            }
            INFO(level.filename().string());
            test::TempDir dir;
            test::PackedAsset packed;
            sceneNavmeshAsset(level, dir, packed);
            const navrt::GraphView& g = packed.view;
            Queries q(g);
            const Mesh2& mesh = q.mesh;
            navrt::ExactMeshQuery& exact = q.exact;
            navrt::PathQuery& astar = q.astar;
            std::mt19937 random(11);
            size_t pairs = 0;
            auto inside = [&](uint32_t poly) {
                navrt::Vec3 sum{0, 0, 0};
                double total = 0;
                for (uint32_t k = g.poly_offsets[poly]; k < g.poly_offsets[poly + 1]; ++k) {
                    const double w = 0.05 + double(random() % 1000) / 1000;
                    const float* v = g.mesh_vertices + 3 * size_t(g.poly_vertices[k]);
                    sum = {float(sum.x + w * v[0]), float(sum.y + w * v[1]),
                           float(sum.z + w * v[2])};
                    total += w;
                }
                return navrt::Vec3{float(sum.x / total), float(sum.y / total),
                                   float(sum.z / total)};
            };
            for (int tries = 0; pairs < 100 && tries < 4000; ++tries) {
                const uint32_t p = uint32_t(random() % g.nodeCount()),
                               q = uint32_t(random() % g.nodeCount());
                if (g.components[p] != g.components[q]) continue;
                const navrt::MeshPoint pa = navrt::locateOnMesh(g, inside(p), 0, 0.5f);
                const navrt::MeshPoint pb = navrt::locateOnMesh(g, inside(q), 0, 0.5f);
                if (pa.poly != p || pb.poly != q) continue;
                INFO("polygons " << p << " -> " << q);
                REQUIRE(exact.findPath(pa.position, p, pb.position, q) == navrt::PathStatus::found);
                const double want = oracle(mesh, {pa.position.x, pa.position.z}, p,
                                           {pb.position.x, pb.position.z}, q);
                const double length = exact.uniformCosts()
                                          ? exact.cost() / g.area_costs[g.poly_areas[p]]
                                          : exact.cost();
                CHECK(length == doctest::Approx(want).epsilon(1e-4));
                REQUIRE(astar.findPathBetween(pa.position, p, pb.position, q) ==
                        navrt::PathStatus::found);
                CHECK(length <= astar.smoothedLength() + 1e-4);
                ++pairs;
            }
            CHECK(pairs >= 50);
            tested += pairs;
        }
        MESSAGE(tested << " pairs on " << levels.size() << " levels");
    }

    TEST_CASE("exact navmesh paths through links (drops, jumps, teleports) equal the oracle") {
        // Platforms of several heights on a floor with drops and jumps generated off them, and
        // three teleports (custom links far cheaper than their length, one two-way).
        const voxel::VoxelGrid grid = test::platformsGrid();
        Context context;
        auto mesh = graph::buildNavmeshGraph(grid, {}, context);
        REQUIRE(mesh.ok());
        const size_t specs_count = test::attachPlatformLinks(grid, *mesh);
        test::TempDir dir;
        test::PackedAsset packed;
        test::packAsset(*mesh, dir / "m.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        const navrt::GraphView& g = packed.view;
        REQUIRE(g.link_count >= specs_count);
        const Mesh2 m2 = meshOf(g);
        std::vector<OracleLink> links;
        size_t shortcuts = 0;
        for (uint32_t i = 0; i < g.link_count; ++i) {
            const formats::LinkRecord l = g.link(i);
            const P2 from{l.from[0], l.from[2]}, to{l.to[0], l.to[2]};
            links.push_back({from, l.from_node, to, l.to_node, l.cost});
            if (l.reverse_cost > 0)
                links.push_back({to, l.to_node, from, l.from_node, l.reverse_cost});
            shortcuts += l.cost < dist(from, to);
        }
        CHECK(shortcuts >= 3);
        navrt::ExactMeshQuery exact;
        REQUIRE_FALSE(exact.init(g));
        REQUIRE(exact.uniformCosts());
        navrt::PathQuery astar;
        REQUIRE_FALSE(astar.init(g));
        std::mt19937 random(3);
        std::vector<navrt::Vec3> points(4096);
        std::vector<uint32_t> segment_links(4096);
        int found = 0, no_path = 0, via_links = 0, via_teleports = 0;
        for (int trial = 0; trial < 400; ++trial) {
            const navrt::Vec3 a{float(random() % 3400) / 100, 3.5f, float(random() % 1400) / 100};
            const navrt::Vec3 c{float(random() % 3400) / 100, 3.5f, float(random() % 1400) / 100};
            // Down onto whichever floor is under the point (the highest within 4 m).
            const navrt::MeshPoint pa = navrt::locateOnMesh(g, a, 0, 3.6f);
            const navrt::MeshPoint pc = navrt::locateOnMesh(g, c, 0, 3.6f);
            if (pa.poly == navrt::kNoNode || pc.poly == navrt::kNoNode) continue;
            INFO("from (" << a.x << ", " << a.z << ") to (" << c.x << ", " << c.z << ")");
            const navrt::PathStatus want =
                astar.findPathBetween(pa.position, pa.poly, pc.position, pc.poly);
            const navrt::PathStatus got =
                exact.findPath(pa.position, pa.poly, pc.position, pc.poly);
            REQUIRE(got == want);
            if (got != navrt::PathStatus::found) {
                ++no_path;
                continue;
            }
            ++found;
            const double best = oracle(m2, {pa.position.x, pa.position.z}, pa.poly,
                                       {pc.position.x, pc.position.z}, pc.poly, links);
            CHECK(exact.cost() == doctest::Approx(best).epsilon(1e-4));
            // The corners make a path of that cost: segments in XZ, links at their costs, each
            // link segment from one end of it to the other.
            double cost = 0;
            bool teleported = false, linked = false;
            for (uint32_t i = 0; i + 1 < exact.pointCount(); ++i) {
                const navrt::Vec3 p = exact.points()[i], q = exact.points()[i + 1];
                if (exact.segmentLink(i) == formats::kNoLink) {
                    cost += dist({p.x, p.z}, {q.x, q.z});
                    continue;
                }
                const formats::LinkRecord l = g.link(exact.segmentLink(i));
                const bool forward =
                    p.x == l.from[0] && p.z == l.from[2] && q.x == l.to[0] && q.z == l.to[2];
                const bool back = p.x == l.to[0] && p.z == l.to[2] && q.x == l.from[0] &&
                                  q.z == l.from[2] && l.reverse_cost > 0;
                REQUIRE((forward || back));
                cost += forward ? l.cost : l.reverse_cost;
                linked = true;
                teleported = teleported || l.type == formats::LinkType::custom;
            }
            CHECK(cost == doctest::Approx(exact.cost()).epsilon(1e-6));
            via_links += linked;
            via_teleports += teleported;
            // Never above A* + funnel's straight path, costed the same way.
            const uint32_t count = astar.smooth(points.data(), 4096, segment_links.data());
            double straight = 0;
            for (uint32_t i = 0; i + 1 < count; ++i) {
                if (segment_links[i] == formats::kNoLink) {
                    straight +=
                        dist({points[i].x, points[i].z}, {points[i + 1].x, points[i + 1].z});
                } else {
                    const formats::LinkRecord l = g.link(segment_links[i]);
                    straight += points[i].x == l.from[0] && points[i].z == l.from[2]
                                    ? l.cost
                                    : l.reverse_cost;
                }
            }
            CHECK(exact.cost() <= straight + 1e-4);
        }
        MESSAGE(found << " found, " << no_path << " no path, " << via_links << " through links, "
                      << via_teleports << " through teleports; " << g.link_count << " links ("
                      << specs_count - 3 << " generated)");
        CHECK(found >= 150);
        CHECK(via_links >= 30);
        CHECK(via_teleports >= 10);
    }

    TEST_CASE("exact navmesh queries set the cluster bound up where most floors stack") {
        // Two floors of 20 x 20 m, one 3 m over the other, joined by stairs beside them (steps
        // of 0.3 m up to a landing, then a bridge back to the upper floor), and the lower floor
        // alone: the bound for the first, the straight line alone for the second.
        for (int floors : {2, 1}) {
            test::LevelBuilder b;
            b.box({0, -0.2, 0}, {20, 0, 20});
            if (floors == 2) {
                b.box({0, 2.8, 0}, {20, 3, 20});
                for (int i = 0; i < 10; ++i)
                    b.box({20.0 + i, -0.2, 0}, {21.0 + i, 0.3 * (i + 1), 4});
                b.box({30, -0.2, 0}, {34, 3, 10});  // the landing
                b.box({20, 2.8, 6}, {30, 3, 10});   // the bridge
            }
            const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
            test::TempDir dir;
            test::PackedAsset packed;
            navmeshAsset(grid, dir, packed);
            navrt::ExactMeshQuery exact;
            REQUIRE_FALSE(exact.init(packed.view));
            INFO(floors << " floors");
            CHECK(exact.usesClusterBound() == (floors > 1));
        }
    }

    TEST_CASE("exact navmesh paths on two floors: found where A* finds one, never longer") {
        const std::filesystem::path level = test::sampleLevels() / "indoor_two_floors.glb";
        if (!std::filesystem::exists(level)) {
            MESSAGE("skipped: " << level << " not found");
            return;
        }
        test::TempDir dir;
        test::PackedAsset packed;
        sceneNavmeshAsset(level, dir, packed);
        const navrt::GraphView& g = packed.view;
        navrt::ExactMeshQuery exact;
        REQUIRE_FALSE(exact.init(g));
        CHECK_FALSE(exact.uniformCosts());  // the pool is water: the length is returned
        // The cluster bound (here from the first expansion on, over clusters of 2) gives the same
        // lengths between floors.
        navrt::ExactMeshQuery clustered;
        clustered.setClusterBound(2, 0, true);
        REQUIRE_FALSE(clustered.init(g));
        CHECK(clustered.usesClusterBound());
        navrt::PathQuery astar;
        REQUIRE_FALSE(astar.init(g));
        std::mt19937 random(5);
        uint64_t pairs = 0, floors = 0;
        std::vector<navrt::Vec3> points(4096);
        for (int tries = 0; pairs < 300 && tries < 5000; ++tries) {
            const uint32_t p = uint32_t(random() % g.nodeCount()),
                           q = uint32_t(random() % g.nodeCount());
            const navrt::Vec3 a = g.position(p), b = g.position(q);
            const navrt::MeshPoint pa = navrt::locateOnMesh(g, a, 0, 0.5f);
            const navrt::MeshPoint pb = navrt::locateOnMesh(g, b, 0, 0.5f);
            if (pa.poly == navrt::kNoNode || pb.poly == navrt::kNoNode) continue;
            const navrt::PathStatus want =
                astar.findPathBetween(pa.position, pa.poly, pb.position, pb.poly);
            INFO("from (" << a.x << ", " << a.y << ", " << a.z << ") to (" << b.x << ", " << b.y
                          << ", " << b.z << ")");
            const navrt::PathStatus got =
                exact.findPath(pa.position, pa.poly, pb.position, pb.poly);
            REQUIRE(got == want);
            if (got != navrt::PathStatus::found) continue;
            const uint32_t count = astar.smooth(points.data(), uint32_t(points.size()));
            double funnel = 0;
            for (uint32_t i = 0; i + 1 < count; ++i)
                funnel += std::hypot(points[i].x - points[i + 1].x, points[i].z - points[i + 1].z);
            CHECK(exact.cost() <= funnel + 1e-4);
            REQUIRE(clustered.findPath(pa.position, pa.poly, pb.position, pb.poly) == got);
            CHECK(clustered.cost() == doctest::Approx(exact.cost()).epsilon(1e-9));
            floors += std::fabs(a.y - b.y) > 2;
            ++pairs;
        }
        MESSAGE(pairs << " pairs, " << floors << " between floors");
        CHECK(pairs >= 300);
        CHECK(floors >= 30);
    }
}
