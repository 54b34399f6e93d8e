#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/common/csr.h"
#include "lib/graph/graph.h"

namespace nav::graph {
namespace {

// Grid index over XZ: every polygon is listed in each cell its bounding box overlaps.
void buildMeshIndex(Graph& g, float suggested_cell) {
    const navmesh::NavMesh& m = g.mesh;
    formats::MeshIndexHeader& h = g.mesh_index;
    h.region_count = m.region_count;
    h.tiles_x = m.tiles_x;
    h.tiles_z = m.tiles_z;
    if (m.vertexCount() == 0) {
        h.cells_x = h.cells_z = 1;
        h.cell = suggested_cell;
        g.index_offsets = {0, 0};
        g.index_polys.clear();
        return;
    }
    float min_x = std::numeric_limits<float>::max(), min_z = min_x;
    float max_x = std::numeric_limits<float>::lowest(), max_z = max_x;
    for (size_t v = 0; v < m.vertexCount(); ++v) {
        min_x = std::min(min_x, m.vertices[3 * v]);
        max_x = std::max(max_x, m.vertices[3 * v]);
        min_z = std::min(min_z, m.vertices[3 * v + 2]);
        max_z = std::max(max_z, m.vertices[3 * v + 2]);
    }
    float cell = suggested_cell;
    auto cellsFor = [&](float extent) { return uint32_t(std::floor(extent / cell)) + 1; };
    while (uint64_t(cellsFor(max_x - min_x)) * cellsFor(max_z - min_z) > (uint64_t(1) << 20))
        cell *= 2;
    h.min_x = min_x;
    h.min_z = min_z;
    h.cell = cell;
    h.cells_x = cellsFor(max_x - min_x);
    h.cells_z = cellsFor(max_z - min_z);
    const size_t cells = size_t(h.cells_x) * h.cells_z;
    auto forEachCell = [&](size_t p, auto&& visit) {
        float lo_x = std::numeric_limits<float>::max(), lo_z = lo_x;
        float hi_x = std::numeric_limits<float>::lowest(), hi_z = hi_x;
        for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k) {
            const float* v = &m.vertices[3 * size_t(m.poly_vertices[k])];
            lo_x = std::min(lo_x, v[0]);
            hi_x = std::max(hi_x, v[0]);
            lo_z = std::min(lo_z, v[2]);
            hi_z = std::max(hi_z, v[2]);
        }
        const uint32_t i0 = uint32_t(std::floor((lo_x - min_x) / cell));
        const uint32_t i1 = std::min(h.cells_x - 1, uint32_t(std::floor((hi_x - min_x) / cell)));
        const uint32_t j0 = uint32_t(std::floor((lo_z - min_z) / cell));
        const uint32_t j1 = std::min(h.cells_z - 1, uint32_t(std::floor((hi_z - min_z) / cell)));
        for (uint32_t j = j0; j <= j1; ++j)
            for (uint32_t i = i0; i <= i1; ++i) visit(size_t(j) * h.cells_x + i);
    };
    csrBuild<uint32_t>(
        cells,
        [&](auto&& emit) {
            for (size_t p = 0; p < m.polyCount(); ++p)
                forEachCell(p, [&](size_t c) { emit(c, uint32_t(p)); });
        },
        g.index_offsets, g.index_polys);
}

}  // namespace

Result<Graph> buildNavmeshGraph(const voxel::VoxelGrid& grid, const navmesh::NavmeshParams& params,
                                Context& context) {
    auto mesh = navmesh::buildNavmesh(grid, params, context);
    if (!mesh) return mesh.error();
    if (mesh->polyCount() == 0)
        context.warn("the level has no walkable surface for this agent: the navmesh is empty");
    return navmeshGraph(std::move(mesh).value(), grid);
}

Result<Graph> buildNavmeshGraph(voxel::VoxelRowReader& reader, const navmesh::NavmeshParams& params,
                                Context& context) {
    auto mesh = navmesh::buildNavmesh(
        reader.header(), reader.spanCount(),
        [&](uint32_t keep_from, uint32_t need_to) { return reader.rows(keep_from, need_to); },
        params.tile_size > 0, params, context);
    if (!mesh) return mesh.error();
    if (Status s = reader.finish(); !s) return s.error();
    const voxel::VoxelGrid& grid = reader.header();
    if (mesh->polyCount() == 0)
        context.warn("the level has no walkable surface for this agent: the navmesh is empty");
    return navmeshGraph(std::move(mesh).value(), grid);
}

Graph navmeshGraph(navmesh::NavMesh mesh, const voxel::VoxelGrid& grid) {
    Graph g;
    g.header = headerForGrid(grid, GraphType::navmesh);
    g.header.heuristic = formats::HeuristicKind::euclidean;
    g.areas = grid.areas;
    g.source_name = grid.source_name;
    g.mesh = std::move(mesh);
    float min_cost = 1.0f;
    for (const geometry::AreaType& a : g.areas)
        if (a.walkable) min_cost = std::min(min_cost, a.cost);
    g.header.min_cost_multiplier = min_cost;

    const navmesh::NavMesh& m = g.mesh;
    const size_t polys = m.polyCount();
    g.positions.resize(3 * polys);
    for (size_t p = 0; p < polys; ++p) {
        double c[3] = {0, 0, 0};
        const uint32_t n = m.poly_offsets[p + 1] - m.poly_offsets[p];
        for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k)
            for (int a = 0; a < 3; ++a) c[a] += m.vertices[3 * size_t(m.poly_vertices[k]) + a];
        for (int a = 0; a < 3; ++a) g.positions[3 * p + a] = float(c[a] / n);
    }
    g.edge_offsets.reserve(polys + 1);
    for (size_t p = 0; p < polys; ++p) {
        g.edge_offsets.push_back(uint32_t(g.edge_targets.size()));
        const uint32_t first = m.poly_offsets[p], count = m.poly_offsets[p + 1] - first;
        for (uint32_t k = 0; k < count; ++k) {
            const uint32_t q = m.poly_neighbours[first + k];
            if (q == navmesh::kNoNeighbour) continue;
            bool seen = false;
            for (uint32_t e = g.edge_offsets[p]; e < g.edge_targets.size(); ++e)
                seen |= g.edge_targets[e] == q;
            if (seen) continue;  // two polygons sharing two edges: one graph edge
            const float* a = &m.vertices[3 * size_t(m.poly_vertices[first + k])];
            const float* b = &m.vertices[3 * size_t(m.poly_vertices[first + (k + 1) % count])];
            const double mid[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
            auto distance = [&](size_t poly) {
                const double dx = g.positions[3 * poly] - mid[0],
                             dy = g.positions[3 * poly + 1] - mid[1],
                             dz = g.positions[3 * poly + 2] - mid[2];
                return std::sqrt(dx * dx + dy * dy + dz * dz);
            };
            const double cost = distance(p) * g.areas[m.poly_areas[p]].cost +
                                distance(q) * g.areas[m.poly_areas[q]].cost;
            g.edge_targets.push_back(q);
            g.edge_costs.push_back(std::max(float(cost), 1e-6f));
        }
    }
    g.edge_offsets.push_back(uint32_t(g.edge_targets.size()));
    finalizeGraph(g);
    buildMeshIndex(g, 8.0f * grid.cell_size);
    return g;
}

}  // namespace nav::graph
