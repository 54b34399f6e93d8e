// Navigation mesh (stage 3): every mesh built here is checked against the voxel grid it came
// from, independently of the builder: polygons strictly convex and counter-clockwise seen from
// +Y with 3..max_verts_per_poly vertices on cell corners; vertices, centroids, detail vertices and
// a lattice of sample points over walkable spans; detail triangles covering each polygon;
// symmetric adjacency, and complete (polygons sharing an edge are linked unless a wall runs
// there); no two polygons over the same point of one floor. Then hand-built grids with known
// shapes, the sample levels, the shared Recast demo meshes, tiled builds against solo builds,
// determinism across thread counts, the monotone partition, random grids and mazes, parameters,
// progress and cancellation.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "formats/container_writer.h"
#include "lib/common/file_io.h"
#include "lib/importer/import.h"
#include "lib/navmesh/navmesh.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

using namespace nav;
using navmesh::kNoNeighbour;
using navmesh::NavMesh;
using navmesh::NavmeshParams;

namespace {

// ---- Hand-built grids
// -----------------------------------------------------------------------------

// A voxel grid built column by column (cell 0.3 m x 0.2 m, default agent: height 10 cells,
// climb 4, radius 2). Spans are added bottom-up per column.
struct GridBuilder {
    uint32_t size_x, size_z;
    std::vector<std::vector<voxel::Span>> columns;

    GridBuilder(uint32_t sx, uint32_t sz) : size_x(sx), size_z(sz), columns(size_t(sx) * sz) {}

    // A walkable slab [top - 2, top) over columns [x0, x1) x [z0, z1).
    void floor(int x0, int z0, int x1, int z1, int top, uint8_t area = geometry::kGroundArea,
               bool walkable = true) {
        for (int z = z0; z < z1; ++z)
            for (int x = x0; x < x1; ++x)
                add(x, z, {uint16_t(top - 2), uint16_t(top), area, walkable});
    }
    // A solid, non-walkable block.
    void block(int x0, int z0, int x1, int z1, int y_min, int y_max) {
        for (int z = z0; z < z1; ++z)
            for (int x = x0; x < x1; ++x)
                add(x, z, {uint16_t(y_min), uint16_t(y_max), geometry::kObstacleArea, false});
    }
    void add(int x, int z, voxel::Span s) {
        auto& c = columns[size_t(z) * size_x + size_t(x)];
        c.push_back(s);
        std::sort(c.begin(), c.end(),
                  [](const voxel::Span& a, const voxel::Span& b) { return a.y_min < b.y_min; });
    }
    void clearColumn(int x, int z) { columns[size_t(z) * size_x + size_t(x)].clear(); }

    voxel::VoxelGrid build() const {
        voxel::VoxelGrid g;
        g.size_x = size_x;
        g.size_z = size_z;
        g.size_y = 64;
        g.origin[0] = 10.0f;
        g.origin[1] = -1.0f;
        g.origin[2] = -5.0f;
        g.areas = geometry::defaultAreaTable();
        g.areas.push_back({"water", 3.0f, true});
        for (const auto& c : columns) {
            g.column_offsets.push_back(uint32_t(g.spans.size()));
            g.spans.insert(g.spans.end(), c.begin(), c.end());
        }
        g.column_offsets.push_back(uint32_t(g.spans.size()));
        return g;
    }
};

NavMesh buildOk(const voxel::VoxelGrid& grid, const NavmeshParams& params) {
    Context context;
    auto mesh = navmesh::buildNavmesh(grid, params, context);
    if (!mesh.ok()) FAIL(mesh.error().message);
    return std::move(mesh).value();
}

voxel::VoxelGrid voxelizeLevel(const std::filesystem::path& path) {
    Context context;
    auto geometry = importer::importScene(path, {}, context);
    if (!geometry.ok()) FAIL(geometry.error().message);
    auto grid = voxel::voxelize(*geometry, voxel::VoxelizeParams{}, context);
    if (!grid.ok()) FAIL(grid.error().message);
    return std::move(grid).value();
}

// ---- Independent checks
// ---------------------------------------------------------------------------

struct P2 {
    double x, z;
};

// In cell units relative to the grid origin.
P2 cellXZ(const voxel::VoxelGrid& g, const float* v) {
    return {(double(v[0]) - g.origin[0]) / g.cell_size, (double(v[2]) - g.origin[2]) / g.cell_size};
}

// Twice the signed XZ area; positive = counter-clockwise seen from +Y.
double cross(const P2& a, const P2& b, const P2& c) {
    return (b.z - a.z) * (c.x - a.x) - (b.x - a.x) * (c.z - a.z);
}

// Rounding error of world coordinates stored as floats, in cells (levels far from the origin
// have coarse floats: Recast's undulating.obj sits near x = z = 5000 m).
double coordEps(const voxel::VoxelGrid& g) {
    const double extent = std::max(std::abs(g.origin[0]) + g.size_x * g.cell_size,
                                   std::abs(g.origin[2]) + g.size_z * g.cell_size);
    return std::max(1e-4, 8.0 * std::numeric_limits<float>::epsilon() * extent / g.cell_size);
}

// Polygon corners in cell units, rounded to the cell corners they lie on (checked separately).
std::vector<P2> polygonXZ(const NavMesh& m, const voxel::VoxelGrid& g, size_t p) {
    std::vector<P2> out;
    for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k) {
        const P2 c = cellXZ(g, &m.vertices[3 * size_t(m.poly_vertices[k])]);
        out.push_back({std::round(c.x), std::round(c.z)});
    }
    return out;
}

// Strictly inside a counter-clockwise convex polygon, `margin` cells from its edges.
bool insideConvex(const std::vector<P2>& poly, const P2& q, double margin) {
    for (size_t i = 0; i < poly.size(); ++i) {
        const P2& a = poly[i];
        const P2& b = poly[(i + 1) % poly.size()];
        const double len = std::hypot(b.x - a.x, b.z - a.z);
        if (cross(a, b, q) / len <= margin) return false;
    }
    return true;
}

// Height of polygon p's detail mesh at q (cell units); false when no triangle covers q.
bool detailHeight(const NavMesh& m, const voxel::VoxelGrid& g, size_t p, const P2& q, double& y) {
    for (uint32_t t = m.detail_offsets[p]; t < m.detail_offsets[p + 1]; ++t) {
        const float* v = &m.detail_triangles[9 * size_t(t)];
        const P2 a = cellXZ(g, v), b = cellXZ(g, v + 3), c = cellXZ(g, v + 6);
        const double area = cross(a, b, c);
        if (area <= 0) continue;
        const double wa = cross(b, c, q) / area, wb = cross(c, a, q) / area,
                     wc = cross(a, b, q) / area;
        if (wa < -1e-6 || wb < -1e-6 || wc < -1e-6) continue;
        y = wa * v[1] + wb * v[4] + wc * v[7];
        return true;
    }
    return false;
}

// A walkable span whose top is within `tolerance` metres of world height y, in a column within
// `radius` columns of the cell-unit point (x, z) (radius 0: the column containing it, or the up to
// four columns around it when it lies on cell borders).
bool walkableNear(const voxel::VoxelGrid& g, double x, double z, double y, double tolerance,
                  int radius) {
    const double e = coordEps(g);
    const int x0 = int(std::floor(x - e)) - radius, x1 = int(std::floor(x + e)) + radius;
    const int z0 = int(std::floor(z - e)) - radius, z1 = int(std::floor(z + e)) + radius;
    for (int cz = std::max(0, z0); cz <= std::min(int(g.size_z) - 1, z1); ++cz)
        for (int cx = std::max(0, x0); cx <= std::min(int(g.size_x) - 1, x1); ++cx)
            for (const voxel::Span& s : g.column(uint32_t(cx), uint32_t(cz)))
                if (s.walkable && s.area != geometry::kObstacleArea &&
                    std::abs(g.topY(s) - y) <= tolerance)
                    return true;
    return false;
}

struct Failures {
    size_t count = 0;
    std::string first;
    void add(const std::string& what) {
        if (count++ == 0) first = what;
    }
};

#define EXPECT_NO_FAILURES(f)                                               \
    do {                                                                    \
        INFO(#f << ": " << (f).count << " failures, first: " << (f).first); \
        CHECK((f).count == 0);                                              \
    } while (0)

// Every structural and geometric property the mesh documents.
void checkNavMesh(const NavMesh& m, const voxel::VoxelGrid& g, const NavmeshParams& params) {
    const size_t polys = m.polyCount();
    REQUIRE(m.poly_offsets.size() == polys + 1);
    REQUIRE(m.poly_offsets.front() == 0);
    REQUIRE(m.poly_offsets.back() == m.poly_vertices.size());
    REQUIRE(m.poly_neighbours.size() == m.poly_vertices.size());
    REQUIRE(m.poly_regions.size() == polys);
    REQUIRE(m.poly_tiles.size() == polys);
    REQUIRE(m.detail_offsets.size() == polys + 1);
    REQUIRE(m.detail_offsets.back() * 9 == m.detail_triangles.size());
    REQUIRE(m.vertices.size() % 3 == 0);
    CHECK(m.areas == g.areas);
    CHECK(m.max_verts_per_poly == params.max_verts_per_poly);

    const voxel::AgentCells agent = voxel::agentCells(g.agent, g.cell_size, g.cell_height);
    const double tolerance = (params.detail_max_error + agent.climb) * g.cell_height + 1e-3;
    const double eps = coordEps(g);
    Failures shape, corners, areas, heights, detail, adjacency, regions;

    // Vertices lie on cell corners, over a walkable span next to that corner.
    std::vector<uint8_t> used(m.vertexCount(), 0);
    for (uint32_t v : m.poly_vertices) {
        if (v >= m.vertexCount()) {
            shape.add("vertex index out of range");
            continue;
        }
        used[v] = 1;
    }
    for (size_t v = 0; v < m.vertexCount(); ++v) {
        const P2 c = cellXZ(g, &m.vertices[3 * v]);
        if (std::abs(c.x - std::round(c.x)) > eps || std::abs(c.z - std::round(c.z)) > eps)
            corners.add("vertex " + std::to_string(v) + " is not on a cell corner");
        if (!used[v]) corners.add("vertex " + std::to_string(v) + " is unused");
        if (!walkableNear(g, c.x, c.z, m.vertices[3 * v + 1], tolerance, 0))
            heights.add("vertex " + std::to_string(v) + " (cell " + std::to_string(c.x) + ", " +
                        std::to_string(c.z) + ", y " + std::to_string(m.vertices[3 * v + 1]) +
                        ") is not over a walkable span");
    }
    if (!m.poly_vertices.empty() &&
        *std::max_element(m.poly_vertices.begin(), m.poly_vertices.end()) >= m.vertexCount())
        return;

    for (size_t p = 0; p < polys; ++p) {
        const std::string name = "polygon " + std::to_string(p);
        const uint32_t b = m.poly_offsets[p], e = m.poly_offsets[p + 1];
        const int n = int(e - b);
        if (n < 3 || n > params.max_verts_per_poly) {
            shape.add(name + " has " + std::to_string(n) + " vertices");
            continue;
        }
        const std::vector<P2> poly = polygonXZ(m, g, p);
        double area2 = 0;
        for (int k = 0; k < n; ++k) {
            const double c =
                cross(poly[size_t(k)], poly[size_t((k + 1) % n)], poly[size_t((k + 2) % n)]);
            if (c <= 1e-9) shape.add(name + " is not strictly convex counter-clockwise");
            area2 += cross({0, 0}, poly[size_t(k)], poly[size_t((k + 1) % n)]);
        }
        const uint8_t area = m.poly_areas[p];
        if (area == geometry::kObstacleArea || area >= g.areas.size() || !g.areas[area].walkable)
            areas.add(name + " has area " + std::to_string(area));
        if (m.poly_regions[p] >= m.region_count) regions.add(name + " region out of range");
        if (m.poly_tiles[p] >= m.tiles_x * m.tiles_z) regions.add(name + " tile out of range");

        // Detail triangles: counter-clockwise, inside the polygon, covering its area, on the floor.
        double detail_area2 = 0;
        for (uint32_t t = m.detail_offsets[p]; t < m.detail_offsets[p + 1]; ++t) {
            const float* v = &m.detail_triangles[9 * size_t(t)];
            const P2 a = cellXZ(g, v), bb = cellXZ(g, v + 3), c = cellXZ(g, v + 6);
            const double t2 = cross(a, bb, c);
            if (t2 <= -eps) detail.add(name + ": a detail triangle is not counter-clockwise");
            detail_area2 += t2;
            for (int k = 0; k < 3; ++k) {
                const P2 q = cellXZ(g, v + 3 * k);
                if (!insideConvex(poly, q, -eps))
                    detail.add(name + ": a detail vertex lies outside the polygon");
                if (!walkableNear(g, q.x, q.z, v[3 * k + 1], tolerance, 2))
                    heights.add(name + ": a detail vertex is not over a walkable span");
            }
        }
        if (std::abs(detail_area2 - area2) > 1e-3 * std::max(1.0, area2) + 100 * eps)
            detail.add(name + ": detail triangles cover " + std::to_string(detail_area2 / 2) +
                       " of " + std::to_string(area2 / 2) + " cells");
        P2 centroid{0, 0};
        for (const P2& q : poly) {
            centroid.x += q.x / n;
            centroid.z += q.z / n;
        }
        double y = 0;
        // Half-way between the centroid and each corner, the detail mesh is on the floor too.
        for (const P2& corner : poly) {
            const P2 q{0.5 * (centroid.x + corner.x), 0.5 * (centroid.z + corner.z)};
            double qy = 0;
            if (!detailHeight(m, g, p, q, qy))
                detail.add(name + ": no detail triangle under an inner point");
            else if (!walkableNear(g, q.x, q.z, qy, tolerance, 2))
                heights.add(name + ": an inner point (cell " + std::to_string(q.x) + ", " +
                            std::to_string(q.z) + ", y " + std::to_string(qy) +
                            ") is not over a walkable span");
        }
        if (!detailHeight(m, g, p, centroid, y))
            detail.add(name + ": no detail triangle under the centroid");
        else if (!walkableNear(g, centroid.x, centroid.z, y, tolerance, 2))
            heights.add(name + ": the centroid (cell " + std::to_string(centroid.x) + ", " +
                        std::to_string(centroid.z) + ", y " + std::to_string(y) +
                        ") is not over a walkable span");

        // Adjacency: the neighbour has the reversed edge and points back.
        for (uint32_t k = b; k < e; ++k) {
            const uint32_t q = m.poly_neighbours[k];
            if (q == kNoNeighbour) continue;
            if (q >= polys || q == p) {
                adjacency.add(name + ": neighbour out of range");
                continue;
            }
            const uint32_t va = m.poly_vertices[k], vb = m.poly_vertices[k + 1 < e ? k + 1 : b];
            bool back = false;
            for (uint32_t j = m.poly_offsets[q]; j < m.poly_offsets[q + 1]; ++j) {
                const uint32_t wa = m.poly_vertices[j];
                const uint32_t wb =
                    m.poly_vertices[j + 1 < m.poly_offsets[q + 1] ? j + 1 : m.poly_offsets[q]];
                if (wa == vb && wb == va && m.poly_neighbours[j] == p) back = true;
            }
            if (!back)
                adjacency.add(name + ": neighbour " + std::to_string(q) + " does not link back");
        }
    }
    EXPECT_NO_FAILURES(shape);
    EXPECT_NO_FAILURES(corners);
    EXPECT_NO_FAILURES(areas);
    EXPECT_NO_FAILURES(heights);
    EXPECT_NO_FAILURES(detail);
    EXPECT_NO_FAILURES(adjacency);
    EXPECT_NO_FAILURES(regions);
}

// Polygons (index, detail height) strictly over cell-unit point q.
std::vector<std::pair<size_t, double>> polygonsAt(const NavMesh& m, const voxel::VoxelGrid& g,
                                                  const P2& q, double margin = 1e-6) {
    std::vector<std::pair<size_t, double>> out;
    for (size_t p = 0; p < m.polyCount(); ++p) {
        const std::vector<P2> poly = polygonXZ(m, g, p);
        if (!insideConvex(poly, q, margin)) continue;
        double y = 0;
        if (detailHeight(m, g, p, q, y)) out.push_back({p, y});
    }
    return out;
}

// No two polygons over one point of a floor, and the detail mesh on the floor there (within the
// detail error plus a step, at the default detail error): sampled on a lattice of cell-unit
// points.
void checkNoOverlap(const NavMesh& m, const voxel::VoxelGrid& g, int step) {
    // Bounding boxes first, so that the lattice test stays cheap.
    struct Box {
        double x0, z0, x1, z1;
    };
    std::vector<Box> boxes(m.polyCount());
    std::vector<std::vector<P2>> polys(m.polyCount());
    for (size_t p = 0; p < m.polyCount(); ++p) {
        polys[p] = polygonXZ(m, g, p);
        Box b{1e30, 1e30, -1e30, -1e30};
        for (const P2& q : polys[p]) {
            b.x0 = std::min(b.x0, q.x);
            b.z0 = std::min(b.z0, q.z);
            b.x1 = std::max(b.x1, q.x);
            b.z1 = std::max(b.z1, q.z);
        }
        boxes[p] = b;
    }
    const double min_gap = g.agent.height * 0.5;
    const voxel::AgentCells agent = voxel::agentCells(g.agent, g.cell_size, g.cell_height);
    const double tolerance =
        (NavmeshParams{}.detail_max_error + agent.climb) * g.cell_height + 1e-3;
    Failures overlap, floor;
    size_t samples = 0;
    std::vector<std::pair<size_t, double>> hits;
    for (uint32_t z = 0; z < g.size_z; z += uint32_t(step)) {
        for (uint32_t x = 0; x < g.size_x; x += uint32_t(step)) {
            const P2 q{x + 0.37, z + 0.61};
            hits.clear();
            for (size_t p = 0; p < polys.size(); ++p) {
                const Box& b = boxes[p];
                if (q.x <= b.x0 || q.x >= b.x1 || q.z <= b.z0 || q.z >= b.z1) continue;
                if (!insideConvex(polys[p], q, 1e-6)) continue;
                double y = 0;
                if (!detailHeight(m, g, p, q, y)) continue;
                hits.push_back({p, y});
                if (!walkableNear(g, q.x, q.z, y, tolerance, 2))
                    floor.add("polygon " + std::to_string(p) + " is off the floor at cell " +
                              std::to_string(x) + ", " + std::to_string(z));
            }
            samples += !hits.empty();
            for (size_t i = 0; i < hits.size(); ++i)
                for (size_t j = i + 1; j < hits.size(); ++j)
                    if (std::abs(hits[i].second - hits[j].second) < min_gap)
                        overlap.add("polygons " + std::to_string(hits[i].first) + " and " +
                                    std::to_string(hits[j].first) + " overlap at cell " +
                                    std::to_string(x) + ", " + std::to_string(z));
        }
    }
    if (m.polyCount() > 0) CHECK(samples > 0);
    EXPECT_NO_FAILURES(overlap);
    EXPECT_NO_FAILURES(floor);
}

// Connected components of the polygon graph.
std::vector<uint32_t> components(const NavMesh& m, uint32_t& count) {
    std::vector<uint32_t> comp(m.polyCount(), UINT32_MAX);
    count = 0;
    std::vector<uint32_t> stack;
    for (uint32_t s = 0; s < m.polyCount(); ++s) {
        if (comp[s] != UINT32_MAX) continue;
        comp[s] = count;
        stack.assign(1, s);
        while (!stack.empty()) {
            const uint32_t p = stack.back();
            stack.pop_back();
            for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k) {
                const uint32_t q = m.poly_neighbours[k];
                if (q != kNoNeighbour && comp[q] == UINT32_MAX) {
                    comp[q] = count;
                    stack.push_back(q);
                }
            }
        }
        ++count;
    }
    return comp;
}

double polygonArea(const NavMesh& m, const voxel::VoxelGrid& g, size_t p) {
    const std::vector<P2> poly = polygonXZ(m, g, p);
    double a2 = 0;
    for (size_t k = 0; k < poly.size(); ++k)
        a2 += cross({0, 0}, poly[k], poly[(k + 1) % poly.size()]);
    return a2 / 2;  // [Units: cells^2]
}

double totalArea(const NavMesh& m, const voxel::VoxelGrid& g) {
    double a = 0;
    for (size_t p = 0; p < m.polyCount(); ++p) a += polygonArea(m, g, p);
    return a;
}

// Two polygons sharing an edge (the same two vertices, reversed) are linked, unless the edge is a
// wall squeezed to nothing by simplification: then the columns on the two sides of the edge are
// not both walkable at its height.
void checkAdjacencyComplete(const NavMesh& m, const voxel::VoxelGrid& g) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> edges;  // directed edge -> slot
    for (uint32_t p = 0; p < m.polyCount(); ++p)
        for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k) {
            const uint32_t next = k + 1 < m.poly_offsets[p + 1] ? k + 1 : m.poly_offsets[p];
            edges[{m.poly_vertices[k], m.poly_vertices[next]}] = k;
        }
    const voxel::AgentCells agent = voxel::agentCells(g.agent, g.cell_size, g.cell_height);
    auto walkableAt = [&](double x, double z, double y) {
        const int cx = int(std::floor(x)), cz = int(std::floor(z));
        if (cx < 0 || cz < 0 || cx >= int(g.size_x) || cz >= int(g.size_z)) return false;
        for (const voxel::Span& s : g.column(uint32_t(cx), uint32_t(cz)))
            if (s.walkable && s.area != geometry::kObstacleArea &&
                std::abs(g.topY(s) - y) <= (agent.climb + 2) * g.cell_height)
                return true;
        return false;
    };
    Failures missing;
    for (const auto& [edge, slot] : edges) {
        const auto it = edges.find({edge.second, edge.first});
        if (it == edges.end() || m.poly_neighbours[slot] != kNoNeighbour) continue;
        const P2 a = cellXZ(g, &m.vertices[3 * size_t(edge.first)]);
        const P2 b = cellXZ(g, &m.vertices[3 * size_t(edge.second)]);
        const double len = std::hypot(b.x - a.x, b.z - a.z);
        const double nx = (b.z - a.z) / len, nz = -(b.x - a.x) / len;  // a unit normal
        const double mx = 0.5 * (a.x + b.x), mz = 0.5 * (a.z + b.z);
        const double y = 0.5 * (m.vertices[3 * size_t(edge.first) + 1] +
                                m.vertices[3 * size_t(edge.second) + 1]);
        if (walkableAt(mx + 0.5 * nx, mz + 0.5 * nz, y) &&
            walkableAt(mx - 0.5 * nx, mz - 0.5 * nz, y))
            missing.add("edge " + std::to_string(edge.first) + "-" + std::to_string(edge.second) +
                        " has a reversed twin over walkable floor but no neighbour");
    }
    EXPECT_NO_FAILURES(missing);
}

bool sameMesh(const NavMesh& a, const NavMesh& b) {
    return a.vertices == b.vertices && a.poly_offsets == b.poly_offsets &&
           a.poly_vertices == b.poly_vertices && a.poly_neighbours == b.poly_neighbours &&
           a.poly_areas == b.poly_areas && a.poly_regions == b.poly_regions &&
           a.poly_tiles == b.poly_tiles && a.detail_offsets == b.detail_offsets &&
           a.detail_triangles == b.detail_triangles && a.areas == b.areas &&
           a.region_count == b.region_count && a.tiles_x == b.tiles_x && a.tiles_z == b.tiles_z &&
           a.max_verts_per_poly == b.max_verts_per_poly;
}

size_t crossTileLinks(const NavMesh& m) {
    size_t links = 0;
    for (uint32_t p = 0; p < m.polyCount(); ++p)
        for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k) {
            const uint32_t q = m.poly_neighbours[k];
            if (q != kNoNeighbour && m.poly_tiles[q] != m.poly_tiles[p]) ++links;
        }
    return links;
}

// Every component of the solo mesh lies in one component of the tiled mesh: each solo polygon's
// centroid is located on the tiled mesh (same floor), and all of a solo component's polygons
// land in one tiled component.
void checkConnectedLikeSolo(const NavMesh& solo, const NavMesh& tiled, const voxel::VoxelGrid& g) {
    uint32_t solo_count = 0, tiled_count = 0;
    const std::vector<uint32_t> solo_comp = components(solo, solo_count);
    const std::vector<uint32_t> tiled_comp = components(tiled, tiled_count);
    std::vector<std::set<uint32_t>> landed(solo_count);
    size_t located = 0;
    for (size_t p = 0; p < solo.polyCount(); ++p) {
        const std::vector<P2> poly = polygonXZ(solo, g, p);
        P2 c{0, 0};
        for (const P2& q : poly) {
            c.x += q.x / double(poly.size());
            c.z += q.z / double(poly.size());
        }
        double y = 0;
        if (!detailHeight(solo, g, p, c, y)) continue;
        for (const auto& [q, ty] : polygonsAt(tiled, g, c, -1e-6))  // edges count
            if (std::abs(ty - y) < 1.0) {
                landed[solo_comp[p]].insert(tiled_comp[q]);
                ++located;
                break;
            }
    }
    CHECK(located >= solo.polyCount() * 9 / 10);
    Failures split;
    for (uint32_t c = 0; c < solo_count; ++c)
        if (landed[c].size() > 1)
            split.add("solo component " + std::to_string(c) + " spans " +
                      std::to_string(landed[c].size()) + " tiled components");
    EXPECT_NO_FAILURES(split);
    MESSAGE("components: solo " << solo_count << ", tiled " << tiled_count << "; located "
                                << located << " of " << solo.polyCount() << " centroids");
}

// What voxelization does to a grid's edges, simply: `rounds` times, walkable spans that lack a
// walkable neighbour in one of the four directions (step within climb, clearance for the agent)
// stop being walkable. Hand-built grids then have the wide, eroded boundaries real levels have.
void erodeForTest(voxel::VoxelGrid& g, int rounds) {
    const voxel::AgentCells agent = voxel::agentCells(g.agent, g.cell_size, g.cell_height);
    auto ceiling = [&](size_t column, size_t s) {
        return s + 1 < g.column_offsets[column + 1] ? int(g.spans[s + 1].y_min) : 1 << 20;
    };
    for (int round = 0; round < rounds; ++round) {
        std::vector<size_t> clear;
        for (uint32_t z = 0; z < g.size_z; ++z)
            for (uint32_t x = 0; x < g.size_x; ++x) {
                const size_t c = size_t(z) * g.size_x + x;
                for (size_t s = g.column_offsets[c]; s < g.column_offsets[c + 1]; ++s) {
                    if (!g.spans[s].walkable) continue;
                    int links = 0;
                    const int dx[4] = {-1, 0, 1, 0}, dz[4] = {0, 1, 0, -1};
                    for (int d = 0; d < 4; ++d) {
                        const int nx = int(x) + dx[d], nz = int(z) + dz[d];
                        if (nx < 0 || nz < 0 || nx >= int(g.size_x) || nz >= int(g.size_z))
                            continue;
                        const size_t n = size_t(nz) * g.size_x + size_t(nx);
                        for (size_t k = g.column_offsets[n]; k < g.column_offsets[n + 1]; ++k) {
                            const int floor = g.spans[s].y_max, n_floor = g.spans[k].y_max;
                            if (g.spans[k].walkable && std::abs(n_floor - floor) <= agent.climb &&
                                std::min(ceiling(c, s), ceiling(n, k)) - std::max(floor, n_floor) >=
                                    agent.height) {
                                ++links;
                                break;
                            }
                        }
                    }
                    if (links < 4) clear.push_back(s);
                }
            }
        for (size_t s : clear) g.spans[s].walkable = false;
    }
}

uint8_t areaId(const voxel::VoxelGrid& g, const std::string& name) {
    for (size_t a = 0; a < g.areas.size(); ++a)
        if (g.areas[a].name == name) return uint8_t(a);
    return 0xFF;
}

}  // namespace

TEST_SUITE("navmesh") {
    TEST_CASE("navmesh of an L-shaped floor") {
        GridBuilder b(40, 40);
        b.floor(0, 0, 40, 15, 10);
        b.floor(0, 15, 15, 40, 10);
        const voxel::VoxelGrid grid = b.build();
        NavmeshParams params;
        const NavMesh m = buildOk(grid, params);
        checkNavMesh(m, grid, params);
        checkNoOverlap(m, grid, 1);
        checkAdjacencyComplete(m, grid);
        REQUIRE(m.polyCount() >= 2);
        uint32_t count = 0;
        components(m, count);
        CHECK(count == 1);
        // The floor has no walls to erode here, so the polygons cover it exactly: 40*15 + 15*25.
        CHECK(totalArea(m, grid) == doctest::Approx(40 * 15 + 15 * 25).epsilon(1e-6));
        CHECK(m.tiles_x == 1);
        CHECK(m.tiles_z == 1);
        for (size_t v = 0; v < m.vertexCount(); ++v)
            CHECK(m.vertices[3 * v + 1] == doctest::Approx(grid.origin[1] + 10 * grid.cell_height));
        // Nothing over the missing quadrant.
        CHECK(polygonsAt(m, grid, {30.5, 30.5}).empty());
        CHECK(polygonsAt(m, grid, {5.5, 35.5}).size() == 1);
    }

    TEST_CASE("navmesh of a floor around a pillar has a hole") {
        GridBuilder b(40, 30);
        for (int z = 0; z < 30; ++z)
            for (int x = 0; x < 40; ++x) {
                const bool pillar = x >= 16 && x < 24 && z >= 11 && z < 19;
                if (pillar)
                    b.block(x, z, x + 1, z + 1, 0, 50);
                else
                    b.floor(x, z, x + 1, z + 1, 10);
            }
        const voxel::VoxelGrid grid = b.build();
        NavmeshParams params;
        const NavMesh m = buildOk(grid, params);
        checkNavMesh(m, grid, params);
        checkNoOverlap(m, grid, 1);
        checkAdjacencyComplete(m, grid);
        uint32_t count = 0;
        components(m, count);
        CHECK(count == 1);
        CHECK(polygonsAt(m, grid, {20.0, 15.0}).empty());
        CHECK(polygonsAt(m, grid, {18.5, 12.5}).empty());
        // The ring around the pillar is covered, and on all four sides.
        for (const P2 q : {P2{21.3, 5.3}, P2{21.3, 25.3}, P2{8.3, 15.3}, P2{32.3, 15.3}})
            CHECK(polygonsAt(m, grid, q).size() == 1);
        CHECK(totalArea(m, grid) == doctest::Approx(40 * 30 - 64).epsilon(1e-6));
    }

    TEST_CASE("navmesh of a ring-shaped floor: one region whose hole is bridged into its outline") {
        GridBuilder b(16, 16);
        for (int z = 0; z < 16; ++z)
            for (int x = 0; x < 16; ++x)
                if (!(x >= 6 && x < 10 && z >= 6 && z < 10)) b.floor(x, z, x + 1, z + 1, 10);
        const voxel::VoxelGrid grid = b.build();
        for (int nvp : {3, 6}) {
            NavmeshParams params;
            params.max_verts_per_poly = nvp;
            const NavMesh m = buildOk(grid, params);
            checkNavMesh(m, grid, params);
            checkNoOverlap(m, grid, 1);
            checkAdjacencyComplete(m, grid);
            CHECK(m.region_count == 1);
            CHECK(std::set<uint32_t>(m.poly_regions.begin(), m.poly_regions.end()).size() == 1);
            CHECK(totalArea(m, grid) == doctest::Approx(16 * 16 - 16));
            CHECK(polygonsAt(m, grid, {8.0, 8.0}).empty());
            uint32_t count = 0;
            components(m, count);
            CHECK(count == 1);
        }
    }

    TEST_CASE("navmesh keeps areas apart") {
        GridBuilder b(40, 24);
        b.floor(0, 0, 20, 24, 10, geometry::kGroundArea);
        b.floor(20, 0, 40, 24, 10, 2);  // water
        // Walkable-flagged obstacle spans never become polygons.
        for (int z = 4; z < 8; ++z)
            for (int x = 4; x < 8; ++x) {
                b.clearColumn(x, z);
                b.add(x, z, {8, 10, geometry::kObstacleArea, true});
            }
        const voxel::VoxelGrid grid = b.build();
        NavmeshParams params;
        const NavMesh m = buildOk(grid, params);
        checkNavMesh(m, grid, params);
        checkNoOverlap(m, grid, 1);
        checkAdjacencyComplete(m, grid);
        std::set<uint8_t> seen(m.poly_areas.begin(), m.poly_areas.end());
        CHECK(seen == std::set<uint8_t>{1, 2});
        std::map<uint32_t, uint8_t> region_area;
        for (size_t p = 0; p < m.polyCount(); ++p) {
            const std::vector<P2> poly = polygonXZ(m, grid, p);
            for (const P2& q : poly) {
                // Every polygon lies on its own side of the area border x = 20.
                if (m.poly_areas[p] == 1) CHECK(q.x <= 20 + 1e-3);
                if (m.poly_areas[p] == 2) CHECK(q.x >= 20 - 1e-3);
            }
            const auto [it, inserted] = region_area.insert({m.poly_regions[p], m.poly_areas[p]});
            CHECK(it->second == m.poly_areas[p]);  // a region never mixes areas
        }
        CHECK(polygonsAt(m, grid, {6.0, 6.0}).empty());
        // The two areas are still one connected surface.
        uint32_t count = 0;
        components(m, count);
        CHECK(count == 1);
    }

    TEST_CASE("navmesh of two floors, one over the other") {
        GridBuilder b(40, 40);
        b.floor(0, 0, 40, 40, 10);    // ground floor, top 2 m above the origin
        b.floor(10, 10, 30, 30, 30);  // upper floor, 4 m higher (slab [28, 30), 18 cells clearance)
        const voxel::VoxelGrid grid = b.build();
        for (navmesh::Partition partition :
             {navmesh::Partition::watershed, navmesh::Partition::monotone}) {
            NavmeshParams params;
            params.partition = partition;
            const NavMesh m = buildOk(grid, params);
            checkNavMesh(m, grid, params);
            checkNoOverlap(m, grid, 1);
            checkAdjacencyComplete(m, grid);
            const auto hits = polygonsAt(m, grid, {20.5, 20.5});
            REQUIRE(hits.size() == 2);
            std::vector<double> ys{hits[0].second, hits[1].second};
            std::sort(ys.begin(), ys.end());
            CHECK(ys[0] == doctest::Approx(grid.origin[1] + 10 * grid.cell_height));
            CHECK(ys[1] == doctest::Approx(grid.origin[1] + 30 * grid.cell_height));
            // Not connected: the upper floor has no way down.
            uint32_t count = 0;
            components(m, count);
            CHECK(count == 2);
            CHECK(totalArea(m, grid) == doctest::Approx(40 * 40 + 20 * 20).epsilon(1e-6));
        }
    }

    TEST_CASE("navmesh of a ramp follows the floor") {
        // A slope rising one cell height every cell along x, then a plateau.
        GridBuilder b(48, 20);
        for (int x = 0; x < 48; ++x) b.floor(x, 0, x + 1, 20, 10 + std::min(x, 30));
        const voxel::VoxelGrid grid = b.build();
        for (float sample : {6.0f, 0.0f}) {
            NavmeshParams params;
            params.detail_sample_dist = sample;
            const NavMesh m = buildOk(grid, params);
            checkNavMesh(m, grid, params);
            checkNoOverlap(m, grid, 1);
            // Heights along the middle of the ramp.
            for (double x : {3.5, 12.5, 25.5, 40.5}) {
                const auto hits = polygonsAt(m, grid, {x, 10.3});
                REQUIRE(hits.size() == 1);
                const double floor_y =
                    grid.origin[1] + (10 + std::min(int(x), 30)) * grid.cell_height;
                CHECK(std::abs(hits[0].second - floor_y) <= (1 + 4) * grid.cell_height);
            }
            if (sample == 0) {
                for (size_t p = 0; p < m.polyCount(); ++p)
                    CHECK(m.detail_offsets[p + 1] - m.detail_offsets[p] ==
                          m.poly_offsets[p + 1] - m.poly_offsets[p] - 2);
            }
        }
    }

    TEST_CASE("navmesh of an empty grid and of tiny regions") {
        GridBuilder b(20, 20);
        NavmeshParams params;
        NavMesh m = buildOk(b.build(), params);
        CHECK(m.polyCount() == 0);
        CHECK(m.vertexCount() == 0);
        CHECK(m.poly_offsets == std::vector<uint32_t>{0});
        CHECK(m.detail_offsets == std::vector<uint32_t>{0});
        // A 5 x 5 island is below region_min_size^2 = 64 cells: filtered out; 9 x 9 stays.
        b.floor(1, 1, 6, 6, 10);
        b.floor(10, 10, 19, 19, 10);
        const voxel::VoxelGrid grid = b.build();
        m = buildOk(grid, params);
        checkNavMesh(m, grid, params);
        CHECK(totalArea(m, grid) == doctest::Approx(81));
        params.region_min_size = 0;
        m = buildOk(grid, params);
        CHECK(totalArea(m, grid) == doctest::Approx(81 + 25));
    }

    TEST_CASE("navmesh max verts per poly") {
        GridBuilder b(40, 40);
        b.floor(0, 0, 40, 40, 10);
        for (int z = 12; z < 20; ++z)
            for (int x = 18 - (z - 12); x < 22 + (z - 12); ++x) b.clearColumn(x, z);  // a notch
        const voxel::VoxelGrid grid = b.build();
        for (int nvp : {3, 4, 5, 6}) {
            NavmeshParams params;
            params.max_verts_per_poly = nvp;
            const NavMesh m = buildOk(grid, params);
            INFO("max verts " << nvp);
            checkNavMesh(m, grid, params);
            checkNoOverlap(m, grid, 2);
            checkAdjacencyComplete(m, grid);
            size_t largest = 0;
            for (size_t p = 0; p < m.polyCount(); ++p)
                largest = std::max<size_t>(largest, m.poly_offsets[p + 1] - m.poly_offsets[p]);
            CHECK(largest <= size_t(nvp));
            if (nvp == 3) CHECK(largest == 3);
        }
    }

    TEST_CASE("navmesh of the sample indoor level: both floors, water, monotone") {
        const voxel::VoxelGrid grid = voxelizeLevel(test::sampleLevels() / "indoor_two_floors.glb");
        const uint8_t water = areaId(grid, "water");
        REQUIRE(water != 0xFF);
        for (navmesh::Partition partition :
             {navmesh::Partition::watershed, navmesh::Partition::monotone}) {
            NavmeshParams params;
            params.partition = partition;
            const NavMesh m = buildOk(grid, params);
            const std::string label =
                std::string("indoor ") +
                (partition == navmesh::Partition::watershed ? "watershed" : "monotone");
            INFO(label);
            MESSAGE(label << ": " << m.polyCount() << " polygons, " << m.vertexCount()
                          << " vertices, " << m.region_count << " regions");
            checkNavMesh(m, grid, params);
            checkNoOverlap(m, grid, 1);
            checkAdjacencyComplete(m, grid);
            CHECK(std::find(m.poly_areas.begin(), m.poly_areas.end(), water) != m.poly_areas.end());
            // The mezzanine overhang: some point with a polygon on the ground floor and one on the
            // mezzanine above it.
            bool both = false;
            for (double x = 0.5; x < 15.8 && !both; x += 0.5) {
                for (double z = 8.25; z < 19.8 && !both; z += 0.5) {
                    const P2 q{(x - grid.origin[0]) / grid.cell_size,
                               (z - grid.origin[2]) / grid.cell_size};
                    bool low = false, high = false;
                    for (const auto& [p, y] : polygonsAt(m, grid, q)) {
                        low = low || std::abs(y - 0.0) < 0.5;
                        high = high || std::abs(y - 3.0) < 0.5;
                    }
                    both = low && high;
                }
            }
            CHECK(both);
            // The ramp joins the floors: the largest component has polygons on both.
            uint32_t count = 0;
            const std::vector<uint32_t> comp = components(m, count);
            std::vector<double> area_of(count, 0);
            for (size_t p = 0; p < m.polyCount(); ++p) area_of[comp[p]] += polygonArea(m, grid, p);
            const uint32_t largest =
                uint32_t(std::max_element(area_of.begin(), area_of.end()) - area_of.begin());
            bool ground = false, upper = false;
            for (size_t p = 0; p < m.polyCount(); ++p) {
                if (comp[p] != largest) continue;
                const float y = m.vertices[3 * size_t(m.poly_vertices[m.poly_offsets[p]]) + 1];
                ground = ground || std::abs(y) < 0.5f;
                upper = upper || std::abs(y - 3.0f) < 0.5f;
            }
            CHECK(ground);
            CHECK(upper);
        }
    }

    TEST_CASE("navmesh of the sample terrain") {
        const voxel::VoxelGrid grid = voxelizeLevel(test::sampleLevels() / "terrain.obj");
        for (navmesh::Partition partition :
             {navmesh::Partition::watershed, navmesh::Partition::monotone}) {
            NavmeshParams params;
            params.partition = partition;
            const NavMesh m = buildOk(grid, params);
            const std::string label =
                std::string("terrain ") +
                (partition == navmesh::Partition::watershed ? "watershed" : "monotone");
            INFO(label);
            MESSAGE(label << ": " << m.polyCount() << " polygons, " << m.vertexCount()
                          << " vertices, " << m.region_count << " regions, "
                          << m.detail_triangles.size() / 9 << " detail triangles");
            checkNavMesh(m, grid, params);
            checkNoOverlap(m, grid, 2);
            checkAdjacencyComplete(m, grid);
            const uint8_t water = areaId(grid, "water");
            REQUIRE(water != 0xFF);
            CHECK(std::find(m.poly_areas.begin(), m.poly_areas.end(), water) != m.poly_areas.end());
            // Most of the walkable surface is covered.
            CHECK(totalArea(m, grid) > 0.8 * double(grid.walkableCount()));
        }
    }

    TEST_CASE(
        "navmesh tiled builds: stitched across tiles, same connectivity as solo, any thread "
        "count") {
        struct Level {
            std::string name;
            voxel::VoxelGrid grid;
        };
        std::vector<Level> levels;
        levels.push_back({"indoor", voxelizeLevel(test::sampleLevels() / "indoor_two_floors.glb")});
        levels.push_back({"terrain", voxelizeLevel(test::sampleLevels() / "terrain.obj")});
        {
            GridBuilder b(70, 70);  // two floors and a hole across tile borders
            b.floor(0, 0, 70, 70, 10);
            b.floor(20, 20, 60, 60, 30);
            for (int z = 40; z < 52; ++z)
                for (int x = 40; x < 52; ++x) b.clearColumn(x, z);
            levels.push_back({"hand-built", b.build()});
        }
        for (const Level& level : levels) {
            NavmeshParams solo_params;
            const NavMesh solo = buildOk(level.grid, solo_params);
            for (int tile : {32, 48}) {
                INFO(level.name << ", tile " << tile);
                NavmeshParams params;
                params.tile_size = tile;
                params.threads = 1;
                const NavMesh one = buildOk(level.grid, params);
                params.threads = 2;
                const NavMesh two = buildOk(level.grid, params);
                CHECK(sameMesh(one, two));
                params.threads = 5;
                CHECK(sameMesh(one, buildOk(level.grid, params)));
                CHECK(one.tiles_x == (level.grid.size_x + uint32_t(tile) - 1) / uint32_t(tile));
                CHECK(one.tiles_z == (level.grid.size_z + uint32_t(tile) - 1) / uint32_t(tile));
                checkNavMesh(one, level.grid, params);
                checkNoOverlap(one, level.grid, 1);
                checkAdjacencyComplete(one, level.grid);
                CHECK(crossTileLinks(one) > 0);
                std::set<uint32_t> tiles(one.poly_tiles.begin(), one.poly_tiles.end());
                CHECK(tiles.size() > 1);
                checkConnectedLikeSolo(solo, one, level.grid);
                // The tiled mesh covers about the same surface as the solo one.
                CHECK(totalArea(one, level.grid) ==
                      doctest::Approx(totalArea(solo, level.grid)).epsilon(0.05));
                // Built from the .vox read a band of rows at a time: the same mesh, never more
                // than two tile rows and their borders asked for at once, and every row let go
                // before the tiles are stitched (the last call keeps none).
                test::TempDir dir;
                REQUIRE(voxel::saveVoxels(dir / "level.vox", level.grid).ok());
                auto reader = voxel::VoxelRowReader::open(dir / "level.vox");
                REQUIRE(reader.ok());
                uint32_t widest = 0, calls = 0, last_kept = 0;
                Context context;
                auto streamed =
                    navmesh::buildNavmesh((*reader)->header(), (*reader)->spanCount(),
                                          [&](uint32_t keep_from, uint32_t need_to) {
                                              widest = std::max(widest, need_to - keep_from);
                                              ++calls;
                                              auto rows = (*reader)->rows(keep_from, need_to);
                                              if (rows.ok()) last_kept = rows->row1 - rows->row0;
                                              return rows;
                                          },
                                          true, params, context);
                REQUIRE(streamed.ok());
                CHECK((*reader)->finish().ok());
                CHECK(sameMesh(one, *streamed));
                const uint32_t border =
                    uint32_t(voxel::agentCells(level.grid.agent, level.grid.cell_size,
                                               level.grid.cell_height)
                                 .radius +
                             3);
                CHECK(widest <= 2 * uint32_t(tile) + 2 * border);
                CHECK(calls >= one.tiles_z);
                CHECK(last_kept == 0);
            }
            // Solo builds split their stages over threads: the same for any thread count.
            for (int threads : {1, 2, 3}) {
                NavmeshParams p2;
                p2.threads = threads;
                INFO(level.name << ", solo, threads " << threads);
                CHECK(sameMesh(solo, buildOk(level.grid, p2)));
            }
        }
    }

    TEST_CASE("navmesh from a .vox read row by row: bad column offsets are errors, found as read") {
        GridBuilder b(40, 40);
        b.floor(0, 0, 40, 40, 10);
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "good.vox", b.build()).ok());
        auto good = loadContainer(dir / "good.vox");
        REQUIRE(good.ok());
        // The same file with COLS changed by `edit` (sections re-encoded, checksums valid).
        auto craft = [&](const std::string& name,
                         const std::function<void(std::vector<uint32_t>&)>& edit) {
            formats::ContainerWriter writer(good->container.kind, good->container.kind_version);
            for (uint32_t i = 0; i < good->container.section_count; ++i) {
                const formats::SectionEntry& e = good->container.sections[i];
                if (e.id == formats::kSecColumns) {
                    auto columns = good->array<uint32_t>(e.id);
                    REQUIRE(columns.ok());
                    edit(*columns);
                    std::vector<uint8_t> bytes(columns->size() * 4);
                    std::memcpy(bytes.data(), columns->data(), bytes.size());
                    writer.add(e.id, std::move(bytes), e.codec);
                } else {
                    auto bytes = good->section(e.id);
                    REQUIRE(bytes.ok());
                    writer.add(e.id, std::move(*bytes), e.codec);
                }
            }
            REQUIRE(saveContainer(dir / name, writer).ok());
            return dir / name;
        };
        NavmeshParams params;
        params.tile_size = 16;
        auto build = [&](const std::filesystem::path& path) -> Status {
            auto reader = voxel::VoxelRowReader::open(path);
            if (!reader) return reader.error();
            Context context;
            auto mesh = navmesh::buildNavmesh((*reader)->header(), (*reader)->spanCount(),
                                              [&](uint32_t keep_from, uint32_t need_to) {
                                                  return (*reader)->rows(keep_from, need_to);
                                              },
                                              true, params, context);
            if (!mesh) return mesh.error();
            return (*reader)->finish();
        };
        REQUIRE(build(dir / "good.vox").ok());
        // A column in the last rows ending before it begins.
        const Status backwards = build(craft("backwards.vox", [](std::vector<uint32_t>& c) {
            std::swap(c[c.size() - 30], c[c.size() - 20]);
        }));
        REQUIRE_FALSE(backwards.ok());
        CHECK(backwards.error().message.find("backwards.vox") != std::string::npos);
        CHECK(backwards.error().message.find("span range") != std::string::npos);
        // The first offset not 0: found when the file is opened.
        const Status first = build(craft("first.vox", [](std::vector<uint32_t>& c) { c[0] = 1; }));
        REQUIRE_FALSE(first.ok());
        CHECK(first.error().message.find("does not start at span 0") != std::string::npos);
        // The last offset short of the span count.
        const Status last =
            build(craft("last.vox", [](std::vector<uint32_t>& c) { c.back() -= 1; }));
        REQUIRE_FALSE(last.ok());
        CHECK(last.error().message.find("last.vox") != std::string::npos);
        CHECK(last.error().message.find("last offset is not the span count") != std::string::npos);
        // One offset too many: the section's size.
        const Status size =
            build(craft("size.vox", [](std::vector<uint32_t>& c) { c.push_back(c.back()); }));
        REQUIRE_FALSE(size.ok());
        CHECK(size.error().message.find("section 'COLS' is") != std::string::npos);
    }

    TEST_CASE(
        "TileRowWindows: each tile's window, decoded twice, is its columns and border, row "
        "pointers included; a released tile is gone; with a carry (in memory or spilled, two "
        "windows objects taking turns) the same windows while the source keeps no row") {
        // A grid of 53 x 41 columns with 0..3 spans a column (random heights), in tiles of 16
        // columns with borders of 1 and 5 (clipped at the edges).
        GridBuilder b(53, 41);
        std::mt19937 random(9);
        for (int z = 0; z < 41; ++z)
            for (int x = 0; x < 53; ++x)
                for (int k = 0, y = 0; k < int(random() % 4); ++k) {
                    y += 2 + int(random() % 5);
                    b.add(x, z, {uint16_t(y), uint16_t(y + 1), uint8_t(random() % 2), true});
                    ++y;
                }
        const voxel::VoxelGrid grid = b.build();
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "w.vox", grid).ok());
        for (int mode = 0; mode < 6; ++mode) {
            const uint32_t border = mode % 2 == 0 ? 1u : 5u;
            const int carried = mode / 2;  // 0: no carry, 1: carried in memory, 2: spilled
            CAPTURE(border);
            CAPTURE(carried);
            auto reader = voxel::VoxelRowReader::open(dir / "w.vox");
            REQUIRE(reader.ok());
            const voxel::TileWindowLayout layout{16, 4, 3, 53, 41, border};
            voxel::TileRowWindows turns[2], carry;
            auto store = SpillStore::beside(dir / "w.world", "windows");
            REQUIRE(store.ok());
            if (carried == 2) {
                for (auto& w : turns) w.spillTo(**store);
                carry.spillTo(**store);
            }
            uint32_t most_rows = 0;  // the most rows the source was asked to hold at once
            auto source = [&](uint32_t keep_from, uint32_t need_to) {
                most_rows = std::max(most_rows, need_to - keep_from);
                return (*reader)->rows(keep_from, need_to);
            };
            for (uint32_t tz = 0; tz < layout.tiles_z; ++tz) {
                voxel::TileRowWindows& windows = turns[carried > 0 ? tz % 2 : 0];
                REQUIRE(windows.read(source, layout, tz, {}, carried > 0 ? &carry : nullptr).ok());
                CHECK((carried == 2 ? (*store)->size() : windows.bytes()) > 0);  // compressed
                for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
                    uint32_t x0, z0, x1, z1;
                    layout.window(tx, tz, x0, z0, x1, z1);
                    CHECK(x0 == (tx * 16 > border ? tx * 16 - border : 0));
                    CHECK(x1 == std::min(53u, tx * 16 + 16 + border));
                    for (bool last : {false, true}) {
                        voxel::TileRowWindows::Decoded out;
                        auto rows = windows.window(layout, tx, tz, out, last);
                        REQUIRE(rows.ok());
                        CHECK(rows->x0 == x0);
                        CHECK(rows->width == x1 - x0);
                        size_t mismatches = 0;
                        for (uint32_t z = z0; z < z1; ++z) {
                            const uint32_t* offsets = rows->rowOffsets(x0, z);
                            for (uint32_t x = x0; x < x1; ++x) {
                                const size_t c = size_t(z) * 53 + x;
                                const auto want = grid.column(x, z);
                                mismatches += rows->end(c) - rows->begin(c) != want.size() ||
                                              offsets[x - x0] != rows->begin(c) ||
                                              offsets[x - x0 + 1] != rows->end(c);
                                for (uint32_t i = 0; i < want.size(); ++i) {
                                    const voxel::Span& got = rows->span(rows->begin(c) + i);
                                    mismatches += got.y_min != want[i].y_min ||
                                                  got.y_max != want[i].y_max ||
                                                  got.area != want[i].area;
                                }
                            }
                        }
                        CHECK(mismatches == 0);
                    }
                    // Released: decoding it again is an error, not stale data.
                    voxel::TileRowWindows::Decoded again;
                    CHECK_FALSE(windows.window(layout, tx, tz, again).ok());
                }
            }
            CHECK((*reader)->finish().ok());
            // Rows of tiles share 2 * border rows: kept by the source, or carried.
            CHECK(most_rows == (carried > 0 ? 1u : 2 * border));
            // A carry with a wanted filter or another store is refused.
            voxel::TileRowWindows other;
            CHECK_FALSE(other
                            .read(
                                source, layout, 0, [](uint32_t) { return true; }, &carry)
                            .ok());
            if (carried == 2) CHECK_FALSE(other.read(source, layout, 0, {}, &carry).ok());
        }
    }

    TEST_CASE("navmesh from a .vox read row by row: a bad span in the last rows is an error") {
        GridBuilder b(40, 40);
        b.floor(0, 0, 40, 40, 10);
        b.add(5, 38, {20, 22, 9, true});  // area 9: the grid has 3 areas
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "bad.vox", b.build()).ok());
        auto reader = voxel::VoxelRowReader::open(dir / "bad.vox");
        REQUIRE(reader.ok());  // columns are fine; the spans are read as the build goes
        NavmeshParams params;
        params.tile_size = 16;
        Context context;
        auto mesh = navmesh::buildNavmesh((*reader)->header(), (*reader)->spanCount(),
                                          [&](uint32_t keep_from, uint32_t need_to) {
                                              return (*reader)->rows(keep_from, need_to);
                                          },
                                          true, params, context);
        REQUIRE_FALSE(mesh.ok());
        CHECK(mesh.error().message.find("bad.vox") != std::string::npos);
        CHECK(mesh.error().message.find("has area 9") != std::string::npos);
    }

    TEST_CASE(
        "VoxelRowReader leaves the column offsets and spans on disk when they are last: the same "
        "rows, and a corrupt or truncated file is an error naming it") {
        GridBuilder b(40, 40);
        b.floor(0, 0, 40, 40, 10);
        b.floor(10, 10, 30, 30, 25);
        test::TempDir dir;
        const voxel::VoxelGrid grid = b.build();
        REQUIRE(voxel::saveVoxels(dir / "g.vox", grid).ok());
        auto good = loadContainer(dir / "g.vox");
        REQUIRE(good.ok());
        const formats::Container& table = good->container;
        REQUIRE(table.sections[table.section_count - 1].id == formats::kSecSpans);
        // The same sections in another order, saved at `path`.
        auto reorder = [&](std::initializer_list<uint32_t> ids, const std::filesystem::path& path) {
            formats::ContainerWriter writer(table.kind, table.kind_version);
            for (uint32_t id : ids) {
                auto bytes = good->section(id);
                REQUIRE(bytes.ok());
                writer.add(id, std::move(*bytes), table.sections[table.find(id)].codec);
            }
            REQUIRE(saveContainer(path, writer).ok());
        };
        // The spans first: read whole, the same rows.
        reorder({formats::kSecSpans, formats::kSecVoxelHeader, formats::kSecAreas,
                 formats::kSecColumns},
                dir / "first.vox");
        // The columns not right before the spans: the spans alone stay on disk, the same rows.
        reorder({formats::kSecVoxelHeader, formats::kSecColumns, formats::kSecAreas,
                 formats::kSecSpans},
                dir / "apart.vox");
        REQUIRE(table.sections[table.section_count - 2].id == formats::kSecColumns);
        auto rowsOf = [](const std::filesystem::path& path) {
            auto reader = voxel::VoxelRowReader::open(path);
            REQUIRE_MESSAGE(reader.ok(), reader.error().message);
            std::vector<std::pair<uint32_t, int32_t>> out;
            for (uint32_t z = 0; z < (*reader)->header().size_z; ++z) {
                auto rows = (*reader)->rows(z, z + 1);
                REQUIRE(rows.ok());
                for (uint32_t x = 0; x < (*reader)->header().size_x; ++x) {
                    const size_t c = size_t(z) * (*reader)->header().size_x + x;
                    for (uint32_t i = rows->begin(c); i < rows->end(c); ++i)
                        out.push_back({uint32_t(c), int32_t(rows->span(i).y_max)});
                }
            }
            REQUIRE((*reader)->finish().ok());
            return out;
        };
        const auto expected = rowsOf(dir / "g.vox");
        CHECK(expected.size() == grid.spans.size());
        CHECK(rowsOf(dir / "first.vox") == expected);
        CHECK(rowsOf(dir / "apart.vox") == expected);
        // A flipped byte in the column offsets, which stay on disk too (they come right before
        // the spans): the checksum, when the file is opened.
        {
            std::vector<uint8_t> flipped_columns = test::readBytes(dir / "g.vox");
            const formats::SectionEntry& columns = table.sections[table.section_count - 2];
            flipped_columns[size_t(columns.offset + columns.stored_size / 2)] ^= 0x40;
            REQUIRE(writeFileAtomic(dir / "columns.vox", flipped_columns).ok());
            auto bad = voxel::VoxelRowReader::open(dir / "columns.vox");
            REQUIRE_FALSE(bad.ok());
            CHECK(bad.error().message.find("columns.vox") != std::string::npos);
            CHECK(bad.error().message.find("checksum mismatch") != std::string::npos);
        }
        // A flipped byte in the spans on disk: the checksum, when the file is opened.
        std::vector<uint8_t> bytes = test::readBytes(dir / "g.vox");
        const formats::SectionEntry& spans = table.sections[table.section_count - 1];
        bytes[size_t(spans.offset + spans.stored_size / 2)] ^= 0x40;
        REQUIRE(writeFileAtomic(dir / "flipped.vox", bytes).ok());
        auto flipped = voxel::VoxelRowReader::open(dir / "flipped.vox");
        REQUIRE_FALSE(flipped.ok());
        CHECK(flipped.error().message.find("flipped.vox") != std::string::npos);
        CHECK(flipped.error().message.find("checksum mismatch") != std::string::npos);
        // Truncated inside the spans.
        bytes = test::readBytes(dir / "g.vox");
        bytes.resize(size_t(spans.offset + spans.stored_size / 2));
        REQUIRE(writeFileAtomic(dir / "short.vox", bytes).ok());
        auto truncated = voxel::VoxelRowReader::open(dir / "short.vox");
        REQUIRE_FALSE(truncated.ok());
        CHECK(truncated.error().message.find("short.vox") != std::string::npos);
    }

    TEST_CASE("navmesh tiled monotone build is valid and stitched") {
        const voxel::VoxelGrid grid = voxelizeLevel(test::sampleLevels() / "indoor_two_floors.glb");
        NavmeshParams params;
        params.partition = navmesh::Partition::monotone;
        params.tile_size = 32;
        const NavMesh m = buildOk(grid, params);
        checkNavMesh(m, grid, params);
        checkNoOverlap(m, grid, 1);
        checkAdjacencyComplete(m, grid);
        CHECK(crossTileLinks(m) > 0);
    }

    TEST_CASE("navmesh of the shared Recast demo meshes") {
        const std::filesystem::path shared = test::sharedData();
        if (shared.empty()) {
            MESSAGE("../shared/data is absent: skipped");
            return;
        }
        for (const char* name : {"dungeon", "nav_test", "undulating"}) {
            const auto path = shared / "meshes" / (std::string(name) + ".obj");
            if (!std::filesystem::exists(path)) {
                MESSAGE(path.string() << " is absent: skipped");
                continue;
            }
            INFO(std::string(name));
            const voxel::VoxelGrid grid = voxelizeLevel(path);
            NavmeshParams params;
            const auto start = std::chrono::steady_clock::now();
            const NavMesh solo = buildOk(grid, params);
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
            MESSAGE(std::string(name)
                    << ": " << solo.polyCount() << " polygons, " << solo.vertexCount()
                    << " vertices, " << solo.region_count << " regions, "
                    << solo.detail_triangles.size() / 9 << " detail triangles, " << ms << " ms");
            checkNavMesh(solo, grid, params);
            checkNoOverlap(solo, grid, 2);
            checkAdjacencyComplete(solo, grid);
            CHECK(solo.polyCount() > 50);
            CHECK(totalArea(solo, grid) > 0.8 * double(grid.walkableCount()));

            params.threads = 1;
            CHECK(sameMesh(solo, buildOk(grid, params)));  // solo built with all cores

            params.tile_size = 48;
            params.threads = 2;
            const NavMesh tiled = buildOk(grid, params);
            params.threads = 1;
            CHECK(sameMesh(tiled, buildOk(grid, params)));
            checkNavMesh(tiled, grid, params);
            checkNoOverlap(tiled, grid, 2);
            CHECK(crossTileLinks(tiled) > 0);
            checkConnectedLikeSolo(solo, tiled, grid);

            params.tile_size = 0;
            params.partition = navmesh::Partition::monotone;
            const NavMesh mono = buildOk(grid, params);
            checkNavMesh(mono, grid, params);
            checkNoOverlap(mono, grid, 2);
        }
    }

    // Random grids, two kinds: even seeds are rolling eroded floors with holes, upper floors and
    // two areas; odd seeds flat mazes of one-cell walls with no erosion (a point agent, as on
    // MovingAI maps), where contours of neighbouring regions run one cell apart. NAVMESH_FUZZ_SEEDS
    // sets how many (default 16; thousands pass).
    TEST_CASE("navmesh of random grids: rolling floors, holes, upper floors, two areas, mazes") {
        const char* env = std::getenv("NAVMESH_FUZZ_SEEDS");
        const int seeds = env ? std::atoi(env) : 16;
        for (int seed = 0; seed < seeds; ++seed) {
            std::mt19937 rng{static_cast<uint32_t>(seed)};
            auto uniform = [&](int lo, int hi) {
                return std::uniform_int_distribution<int>(lo, hi)(rng);
            };
            const int sx = uniform(12, 80), sz = uniform(12, 80);
            GridBuilder b{static_cast<uint32_t>(sx), static_cast<uint32_t>(sz)};
            if (seed % 2 == 1) {
                std::vector<uint8_t> wall(size_t(sx) * size_t(sz), 0);
                for (int i = uniform(2, 14); i > 0; --i) {
                    int x = uniform(0, sx - 1), z = uniform(0, sz - 1);
                    const bool along_x = uniform(0, 1) == 1;
                    for (int len = uniform(3, 40); len > 0 && x < sx && z < sz; --len) {
                        wall[size_t(z) * size_t(sx) + size_t(x)] = 1;
                        (along_x ? x : z) += 1;
                        if (uniform(0, 5) == 0) (along_x ? z : x) += 1;  // a step: diagonal-ish
                    }
                }
                for (int z = 0; z < sz; ++z)
                    for (int x = 0; x < sx; ++x) {
                        if (wall[size_t(z) * size_t(sx) + size_t(x)])
                            b.block(x, z, x + 1, z + 1, 0, 30);
                        else
                            b.floor(x, z, x + 1, z + 1, 10, x < sx / 2 ? 1 : 2);
                    }
                voxel::VoxelGrid grid = b.build();
                grid.agent.radius = 0;
                for (navmesh::Partition partition :
                     {navmesh::Partition::watershed, navmesh::Partition::monotone}) {
                    for (int tile : {0, 16}) {
                        NavmeshParams params;
                        params.partition = partition;
                        params.tile_size = tile;
                        params.region_min_size = float(uniform(0, 8));
                        params.threads = 1;
                        INFO("maze seed " << seed << ", tile " << tile);
                        const NavMesh m = buildOk(grid, params);
                        checkNavMesh(m, grid, params);
                        checkNoOverlap(m, grid, 1);
                        checkAdjacencyComplete(m, grid);
                        params.threads = 3;
                        CHECK(sameMesh(m, buildOk(grid, params)));
                    }
                }
                continue;
            }
            struct Box {
                int x0, z0, x1, z1, lift;
            };
            std::vector<Box> holes, uppers;
            for (int i = uniform(0, 6); i > 0; --i) {
                const int x = uniform(0, sx - 1), z = uniform(0, sz - 1);
                holes.push_back({x, z, x + uniform(1, 8), z + uniform(1, 8), 0});
            }
            for (int i = uniform(0, 2); i > 0; --i) {
                const int x = uniform(0, sx - 1), z = uniform(0, sz - 1);
                uppers.push_back({x, z, x + uniform(6, 30), z + uniform(6, 30), uniform(12, 30)});
            }
            const int water_x = uniform(0, sx);
            auto inside = [](const Box& box, int x, int z) {
                return x >= box.x0 && x < box.x1 && z >= box.z0 && z < box.z1;
            };
            for (int z = 0; z < sz; ++z)
                for (int x = 0; x < sx; ++x) {
                    const int top = 12 + int(std::lround(3 * std::sin(0.2 * x + seed) +
                                                         3 * std::cos(0.13 * z * (seed % 5 + 1))));
                    const bool hole = std::any_of(holes.begin(), holes.end(),
                                                  [&](const Box& h) { return inside(h, x, z); });
                    if (!hole) b.floor(x, z, x + 1, z + 1, top, x < water_x ? 1 : 2);
                    for (const Box& u : uppers)
                        if (inside(u, x, z)) {
                            b.floor(x, z, x + 1, z + 1, top + u.lift);
                            break;
                        }
                }
            voxel::VoxelGrid grid = b.build();
            erodeForTest(grid, 2);
            for (int tile : {0, 16}) {
                for (navmesh::Partition partition :
                     {navmesh::Partition::watershed, navmesh::Partition::monotone}) {
                    NavmeshParams params;
                    params.tile_size = tile;
                    params.partition = partition;
                    params.max_verts_per_poly = uniform(3, 6);
                    params.threads = 1;
                    INFO("seed " << seed << ", tile " << tile << ", "
                                 << std::string(partition == navmesh::Partition::watershed
                                                    ? "watershed"
                                                    : "monotone"));
                    const NavMesh m = buildOk(grid, params);
                    checkNavMesh(m, grid, params);
                    checkNoOverlap(m, grid, 1);
                    checkAdjacencyComplete(m, grid);
                    params.threads = 3;
                    CHECK(sameMesh(m, buildOk(grid, params)));
                }
            }
        }
    }

    TEST_CASE("navmesh parameters and errors") {
        SUBCASE("checkParams reports every bad field at once") {
            NavmeshParams p;
            CHECK(navmesh::checkParams(p).ok());
            p.region_min_size = -1;
            p.edge_max_error = std::numeric_limits<float>::quiet_NaN();
            p.max_verts_per_poly = 7;
            p.detail_sample_dist = 0.5f;
            p.tile_size = 4;
            p.threads = -1;
            const Status s = navmesh::checkParams(p);
            REQUIRE_FALSE(s.ok());
            CHECK(s.error().kind == ErrorKind::usage);
            for (const char* field :
                 {"region min size = -1", "edge max error = nan", "max verts per poly = 7",
                  "detail sample dist = 0.5", "tile size = 4", "threads = -1"}) {
                INFO(field);
                CHECK(s.error().message.find(field) != std::string::npos);
            }
            Context context;
            GridBuilder b(8, 8);
            auto r = navmesh::buildNavmesh(b.build(), p, context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::usage);
            p = NavmeshParams{};
            p.max_verts_per_poly = 2;
            p.edge_max_len = -3;
            const Status s2 = navmesh::checkParams(p);
            REQUIRE_FALSE(s2.ok());
            CHECK(s2.error().message.find("max verts per poly = 2") != std::string::npos);
            CHECK(s2.error().message.find("edge max len = -3") != std::string::npos);
        }
        SUBCASE("an inconsistent grid is bad input") {
            GridBuilder b(8, 8);
            voxel::VoxelGrid g = b.build();
            g.column_offsets.pop_back();
            Context context;
            auto r = navmesh::buildNavmesh(g, NavmeshParams{}, context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::bad_input);
        }
        SUBCASE("cancellation") {
            GridBuilder b(64, 64);
            b.floor(0, 0, 64, 64, 10);
            Context context;
            context.requestCancel();
            NavmeshParams p;
            p.tile_size = 16;
            auto r = navmesh::buildNavmesh(b.build(), p, context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::cancelled);
        }
        SUBCASE("cancellation in the middle of a one-tile build") {
            struct CancelAfterCompact : Context {
                void log(LogLevel, std::string_view message) override {
                    if (message.starts_with("navmesh: compact")) requestCancel();
                }
            } context;
            GridBuilder b(64, 64);
            b.floor(0, 0, 64, 64, 10);
            auto r = navmesh::buildNavmesh(b.build(), NavmeshParams{}, context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::cancelled);
        }
        SUBCASE("progress reaches the total") {
            struct Recorder : Context {
                uint64_t last_done = 0, last_total = 0;
                bool monotone = true;
                void progress(std::string_view stage, uint64_t done, uint64_t total) override {
                    CHECK(stage == "navmesh");
                    monotone = monotone && done >= last_done && done <= total;
                    last_done = done;
                    last_total = total;
                }
            } context;
            GridBuilder b(64, 64);
            b.floor(0, 0, 64, 64, 10);
            NavmeshParams p;
            p.tile_size = 16;
            auto r = navmesh::buildNavmesh(b.build(), p, context);
            REQUIRE(r.ok());
            CHECK(context.monotone);
            CHECK(context.last_total > 0);
            CHECK(context.last_done == context.last_total);
        }
    }

}  // TEST_SUITE("navmesh")
