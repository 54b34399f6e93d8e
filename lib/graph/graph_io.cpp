#include <algorithm>
#include <cmath>
#include <cstring>

#include "../../formats/bytes.h"
#include "graph.h"

namespace nav::graph {
namespace {

using formats::arrayBytes;

}  // namespace

namespace {

// Reads and checks the navmesh sections of a navmesh graph with `polys` polygons.
Status decodeMeshSections(const LoadedContainer& c, size_t polys, Graph& g) {
    const std::string file = c.path.string();
    navmesh::NavMesh& m = g.mesh;
    auto read = [&](uint32_t id, auto& out, size_t element_count_or_zero) -> Status {
        using T = typename std::decay_t<decltype(out)>::value_type;
        auto bytes = c.section(id);
        if (!bytes) return bytes.error();
        char name[5];
        formats::fourccToString(id, name);
        if (bytes->size() % sizeof(T) != 0 ||
            (element_count_or_zero != 0 && bytes->size() != element_count_or_zero * sizeof(T)))
            return inputError("{}: section '{}' has an unexpected size ({} bytes)", file, name,
                              bytes->size());
        out.resize(bytes->size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), bytes->data(), bytes->size());
        return {};
    };
    if (Status s = read(formats::kSecMeshVertices, m.vertices, 0); !s) return s;
    if (Status s = read(formats::kSecPolyOffsets, m.poly_offsets, polys + 1); !s) return s;
    if (Status s = read(formats::kSecPolyVertices, m.poly_vertices, 0); !s) return s;
    if (Status s = read(formats::kSecPolyNeighbours, m.poly_neighbours, 0); !s) return s;
    if (Status s = read(formats::kSecPolyAreas, m.poly_areas, polys); !s) return s;
    std::vector<uint32_t> info;
    if (Status s = read(formats::kSecPolyInfo, info, 2 * polys); !s) return s;
    if (Status s = read(formats::kSecDetailOffsets, m.detail_offsets, polys + 1); !s) return s;
    if (Status s = read(formats::kSecDetailTriangles, m.detail_triangles, 0); !s) return s;
    auto header = c.section(formats::kSecMeshIndexHeader);
    if (!header) return header.error();
    if (formats::Error e = formats::decodeMeshIndexHeader(header->data(), header->size(), g.mesh_index))
        return containerError(c.path, e);
    const size_t cells = size_t(g.mesh_index.cells_x) * g.mesh_index.cells_z;
    if (Status s = read(formats::kSecMeshIndexOffsets, g.index_offsets, cells + 1); !s) return s;
    if (Status s = read(formats::kSecMeshIndexPolys, g.index_polys, 0); !s) return s;
    m.poly_regions.resize(polys);
    m.poly_tiles.resize(polys);
    for (size_t p = 0; p < polys; ++p) {
        m.poly_regions[p] = info[2 * p];
        m.poly_tiles[p] = info[2 * p + 1];
    }
    m.areas = g.areas;
    m.region_count = g.mesh_index.region_count;
    m.tiles_x = g.mesh_index.tiles_x;
    m.tiles_z = g.mesh_index.tiles_z;
    // Consistency: offsets monotone and covering, indices in range.
    const size_t vertices = m.vertices.size() / 3;
    if (m.vertices.size() % 3 != 0 || m.poly_offsets.front() != 0 ||
        m.poly_offsets.back() != m.poly_vertices.size() ||
        m.poly_neighbours.size() != m.poly_vertices.size())
        return inputError("{}: navmesh polygon sections are inconsistent", file);
    for (size_t p = 0; p < polys; ++p) {
        const uint32_t count = m.poly_offsets[p + 1] - m.poly_offsets[p];
        if (m.poly_offsets[p] > m.poly_offsets[p + 1] || count < 3)
            return inputError("{}: section 'MPOF': polygon {} has {} corners", file, p, count);
        if (m.poly_areas[p] >= g.areas.size())
            return inputError("{}: section 'MPAR': polygon {} has an unknown area", file, p);
        m.max_verts_per_poly = std::max(m.max_verts_per_poly, int(count));
    }
    for (size_t k = 0; k < m.poly_vertices.size(); ++k) {
        if (m.poly_vertices[k] >= vertices)
            return inputError("{}: section 'MPVI': corner {} uses vertex {}, only {} exist", file, k,
                              m.poly_vertices[k], vertices);
        if (m.poly_neighbours[k] != navmesh::kNoNeighbour && m.poly_neighbours[k] >= polys)
            return inputError("{}: section 'MPNB': corner {} names polygon {}, only {} exist", file,
                              k, m.poly_neighbours[k], polys);
    }
    if (m.detail_offsets.front() != 0 || m.detail_offsets.back() * 9 != m.detail_triangles.size())
        return inputError("{}: detail mesh sections are inconsistent", file);
    for (size_t p = 0; p < polys; ++p)
        if (m.detail_offsets[p] > m.detail_offsets[p + 1])
            return inputError("{}: section 'MDOF' decreases at polygon {}", file, p);
    if (g.index_offsets.front() != 0 || g.index_offsets.back() != g.index_polys.size())
        return inputError("{}: spatial index sections are inconsistent", file);
    for (size_t cidx = 0; cidx < cells; ++cidx)
        if (g.index_offsets[cidx] > g.index_offsets[cidx + 1])
            return inputError("{}: section 'MGOF' decreases at cell {}", file, cidx);
    for (uint32_t p : g.index_polys)
        if (p >= polys) return inputError("{}: section 'MGPL' names polygon {}", file, p);
    return {};
}

// Reads and checks the POV sections: corners, the layer grid and the statistics.
Status decodePovSections(const LoadedContainer& c, Graph& g) {
    const std::string file = c.path.string();
    const formats::GraphHeader& h = g.header;
    const size_t n = h.node_count;
    const uint64_t columns = uint64_t(h.size_x) * h.size_z;
    auto bytesOf = [&](uint32_t id) { return c.section(id); };
    if (h.flags != 0) return inputError("{}: section 'GRHD': POV graphs take no flags", file);
    auto stats = bytesOf(formats::kSecPovStats);
    if (!stats) return stats.error();
    if (formats::Error e = formats::decodePovStats(stats->data(), stats->size(), g.pov_stats))
        return containerError(c.path, e);
    const formats::PovStats& st = g.pov_stats;
    if (st.corner_count != n || st.taut_edges != h.edge_count)
        return inputError("{}: section 'PSTA': {} corners and {} taut edges, but GRHD has {} nodes "
                          "and {} edges", file, st.corner_count, st.taut_edges, n, h.edge_count);
    const size_t cells = st.layer_cell_count;
    auto sized = [&](uint32_t id, size_t expected) -> Result<std::vector<uint8_t>> {
        auto bytes = bytesOf(id);
        if (!bytes) return bytes.error();
        if (bytes->size() != expected) {
            char name[5];
            formats::fourccToString(id, name);
            return inputError("{}: section '{}' holds {} bytes, expected {}", file, name,
                              bytes->size(), expected);
        }
        return std::move(bytes).value();
    };
    auto u32s = [](const std::vector<uint8_t>& bytes) {
        std::vector<uint32_t> out(bytes.size() / 4);
        if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
        return out;
    };
    auto cell_bytes = sized(formats::kSecLayerCells, cells * formats::kNodeCellSize);
    if (!cell_bytes) return cell_bytes.error();
    g.layer_cells.resize(cells);
    for (size_t i = 0; i < cells; ++i) {
        const uint8_t* p = cell_bytes->data() + i * formats::kNodeCellSize;
        g.layer_cells[i] = formats::decodeNodeCell(p);
        if (g.layer_cells[i].column >= columns || g.layer_cells[i].y > h.size_y ||
            g.layer_cells[i].area >= g.areas.size() || p[7] != 0)
            return inputError("{}: section 'LCEL': layer cell {} is invalid", file, i);
    }
    auto column_bytes = sized(formats::kSecLayerColumns, (columns + 1) * 4);
    if (!column_bytes) return column_bytes.error();
    g.layer_columns = u32s(*column_bytes);
    if (g.layer_columns.front() != 0 || g.layer_columns.back() != cells)
        return inputError("{}: section 'LCOL' does not cover the {} layer cells", file, cells);
    for (size_t i = 0; i < columns; ++i) {
        if (g.layer_columns[i] > g.layer_columns[i + 1])
            return inputError("{}: section 'LCOL' decreases at column {}", file, i);
        for (uint32_t v = g.layer_columns[i]; v < g.layer_columns[i + 1]; ++v)
            if (g.layer_cells[v].column != i)
                return inputError("{}: section 'LCOL': layer cell {} is listed under column {} but "
                                  "stands on column {}", file, v, i, g.layer_cells[v].column);
    }
    auto neighbour_bytes = sized(formats::kSecLayerNeighbours, cells * 16);
    if (!neighbour_bytes) return neighbour_bytes.error();
    g.layer_neighbours = u32s(*neighbour_bytes);
    for (int k = 0; k < formats::kLayerDirections; ++k) {
        for (size_t i = 0; i < cells; ++i) {
            const uint32_t t = g.layer_neighbours[size_t(k) * cells + i];
            if (t == kNoNode) continue;
            const int64_t x = g.layer_cells[i].column % h.size_x, z = g.layer_cells[i].column / h.size_x;
            if (t >= cells || int64_t(g.layer_cells[t].column % h.size_x) != x + formats::kLayerDx[k] ||
                int64_t(g.layer_cells[t].column / h.size_x) != z + formats::kLayerDz[k])
                return inputError("{}: section 'LNB4': plane {} links layer cell {} to {}, which is "
                                  "not its neighbour", file, k, i, t);
        }
    }
    auto component_bytes = sized(formats::kSecLayerComponents, cells * 4);
    if (!component_bytes) return component_bytes.error();
    g.layer_components = u32s(*component_bytes);
    for (size_t i = 0; i < cells; ++i)
        if (g.layer_components[i] >= st.layer_component_count)
            return inputError("{}: section 'LCMP': layer cell {} has component {}, only {} exist",
                              file, i, g.layer_components[i], st.layer_component_count);
    auto corner_bytes = sized(formats::kSecPovCorners, n * formats::kPovCornerSize);
    if (!corner_bytes) return corner_bytes.error();
    g.corners.resize(n);
    uint32_t any_direction = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint8_t* p = corner_bytes->data() + i * formats::kPovCornerSize;
        g.corners[i] = formats::decodePovCorner(p);
        if (!formats::povCornerRecordValid(p) || g.corners[i].cell >= cells)
            return inputError("{}: section 'PCRN': corner {} is invalid", file, i);
        any_direction += (g.corners[i].flags & formats::kPovCornerAnyDirection) != 0;
    }
    if (any_direction != st.any_direction_corners)
        return inputError("{}: section 'PSTA': {} any-direction corners, PCRN has {}", file,
                          st.any_direction_corners, any_direction);
    return {};
}

}  // namespace

formats::GraphHeader headerForGrid(const vox::VoxelGrid& grid, GraphType type) {
    formats::GraphHeader h;
    h.type = type;
    h.size_x = grid.size_x;
    h.size_z = grid.size_z;
    h.size_y = grid.size_y;
    std::copy(grid.origin, grid.origin + 3, h.origin);
    h.cell_size = grid.cell_size;
    h.cell_height = grid.cell_height;
    h.agent_height = grid.agent.height;
    h.agent_radius = grid.agent.radius;
    h.agent_climb = grid.agent.climb;
    h.max_slope_deg = grid.agent.max_slope_deg;
    return h;
}

namespace {

// The GRHD bytes saveGraph writes for `g` (counts filled in).
formats::GraphHeader savedHeader(const Graph& g) {
    formats::GraphHeader header = g.header;
    header.node_count = uint32_t(g.nodeCount());
    header.edge_count = uint32_t(g.edgeCount());
    if (header.flags & formats::kGraphFlagImplicitVolume)
        header.node_count = header.size_x * header.size_z * header.size_y;
    return header;
}

std::vector<uint32_t> relativeTargets(const Graph& g) {
    std::vector<uint32_t> relative(g.edge_targets.size());
    for (size_t v = 0; v + 1 < g.edge_offsets.size(); ++v)
        for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e)
            relative[e] = g.edge_targets[e] - uint32_t(v);
    return relative;
}

}  // namespace

uint64_t graphFingerprint(const Graph& g) {
    uint8_t header[formats::kGraphHeaderSize];
    formats::encodeGraphHeader(savedHeader(g), header);
    const bool implicit_volume = (g.header.flags & formats::kGraphFlagImplicitVolume) != 0;
    const std::vector<uint8_t> offsets = implicit_volume ? std::vector<uint8_t>() : arrayBytes(g.edge_offsets);
    const std::vector<uint8_t> targets = arrayBytes(relativeTargets(g));
    const std::vector<uint8_t> costs = arrayBytes(g.edge_costs);
    return formats::graphFingerprint(header, sizeof header, offsets.data(), offsets.size(),
                                     targets.data(), targets.size(), costs.data(), costs.size());
}

Status saveGraph(const std::filesystem::path& path, const Graph& g, uint32_t kind) {
    return saveContainer(path, graphWriter(g, kind));
}

formats::ContainerWriter graphWriter(const Graph& g, uint32_t kind) {
    const formats::GraphHeader header = savedHeader(g);
    std::vector<uint8_t> header_bytes(formats::kGraphHeaderSize);
    formats::encodeGraphHeader(header, header_bytes.data());
    std::vector<uint8_t> cells(g.cells.size() * formats::kNodeCellSize);
    for (size_t i = 0; i < g.cells.size(); ++i)
        formats::encodeNodeCell(g.cells[i], cells.data() + i * formats::kNodeCellSize);

    formats::ContainerWriter writer(kind, kind == formats::kKindNav ? formats::kNavVersion
                                                                     : formats::kGraphVersion);
    if (kind == formats::kKindNav) writer.setCompressionLevel(19);
    writer.add(formats::kSecGraphHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, geo::encodeAreaTable(g.areas), formats::Codec::raw);
    const bool implicit_volume = (header.flags & formats::kGraphFlagImplicitVolume) != 0;
    if (!implicit_volume) {
        writer.add(formats::kSecNodePositions, arrayBytes(g.positions));
        // Tile graphs always carry NCEL (readers require it), even with no nodes.
        if (!g.cells.empty() || header.type == GraphType::tile)
            writer.add(formats::kSecNodeCells, std::move(cells));
    }
    if (!g.column_nodes.empty())
        writer.add(formats::kSecColumnNodes, arrayBytes(g.column_nodes), formats::Codec::zstd_delta32);
    if (!implicit_volume) {
        writer.add(formats::kSecEdgeOffsets, arrayBytes(g.edge_offsets), formats::Codec::zstd_delta32);
        // Targets are stored relative to their source node (wrapping u32 difference): neighbours
        // of grid cells sit at a few fixed offsets, which compress far better than node ids.
        writer.add(formats::kSecEdgeTargets, arrayBytes(relativeTargets(g)));
        writer.add(formats::kSecEdgeCosts, arrayBytes(g.edge_costs));
    } else {
        writer.add(formats::kSecFreeVoxels, arrayBytes(g.free_voxels));
    }
    writer.add(formats::kSecComponents, arrayBytes(g.components));
    if (header.type == GraphType::navmesh) {
        const navmesh::NavMesh& m = g.mesh;
        std::vector<uint8_t> info;
        formats::ByteWriter info_writer;
        for (size_t p = 0; p < m.polyCount(); ++p) {
            info_writer.u32(m.poly_regions[p]);
            info_writer.u32(m.poly_tiles[p]);
        }
        std::vector<uint8_t> index_header(formats::kMeshIndexHeaderSize);
        formats::encodeMeshIndexHeader(g.mesh_index, index_header.data());
        writer.add(formats::kSecMeshVertices, arrayBytes(m.vertices));
        writer.add(formats::kSecPolyOffsets, arrayBytes(m.poly_offsets), formats::Codec::zstd_delta32);
        writer.add(formats::kSecPolyVertices, arrayBytes(m.poly_vertices));
        writer.add(formats::kSecPolyNeighbours, arrayBytes(m.poly_neighbours));
        writer.add(formats::kSecPolyAreas, arrayBytes(m.poly_areas));
        writer.add(formats::kSecPolyInfo, info_writer.take());
        writer.add(formats::kSecDetailOffsets, arrayBytes(m.detail_offsets), formats::Codec::zstd_delta32);
        writer.add(formats::kSecDetailTriangles, arrayBytes(m.detail_triangles));
        writer.add(formats::kSecMeshIndexHeader, std::move(index_header), formats::Codec::raw);
        writer.add(formats::kSecMeshIndexOffsets, arrayBytes(g.index_offsets), formats::Codec::zstd_delta32);
        writer.add(formats::kSecMeshIndexPolys, arrayBytes(g.index_polys));
    }
    if (header.type == GraphType::pov) {
        std::vector<uint8_t> corners(g.corners.size() * formats::kPovCornerSize);
        for (size_t i = 0; i < g.corners.size(); ++i)
            formats::encodePovCorner(g.corners[i], corners.data() + i * formats::kPovCornerSize);
        std::vector<uint8_t> layer_cells(g.layer_cells.size() * formats::kNodeCellSize);
        for (size_t i = 0; i < g.layer_cells.size(); ++i)
            formats::encodeNodeCell(g.layer_cells[i], layer_cells.data() + i * formats::kNodeCellSize);
        std::vector<uint8_t> stats(formats::kPovStatsSize);
        formats::encodePovStats(g.pov_stats, stats.data());
        writer.add(formats::kSecPovCorners, std::move(corners));
        writer.add(formats::kSecLayerCells, std::move(layer_cells));
        writer.add(formats::kSecLayerColumns, arrayBytes(g.layer_columns), formats::Codec::zstd_delta32);
        // Four planes (+X, -X, +Z, -Z) of absolute cell ids: along a plane the ids mostly step by
        // one, so delta coding leaves long runs of equal values.
        writer.add(formats::kSecLayerNeighbours, arrayBytes(g.layer_neighbours), formats::Codec::zstd_delta32);
        writer.add(formats::kSecLayerComponents, arrayBytes(g.layer_components));
        writer.add(formats::kSecPovStats, std::move(stats), formats::Codec::raw);
    }
    if (!g.source_name.empty())
        writer.add(formats::kSecSourceName,
                   std::vector<uint8_t>(g.source_name.begin(), g.source_name.end()),
                   formats::Codec::raw);
    return writer;
}

Result<Graph> decodeGraph(const LoadedContainer& c) {
    const std::string file = c.path.string();
    Graph g;
    auto header_bytes = c.section(formats::kSecGraphHeader);
    if (!header_bytes) return header_bytes.error();
    if (formats::Error e = formats::decodeGraphHeader(header_bytes->data(), header_bytes->size(),
                                                      g.header))
        return containerError(c.path, e);
    const formats::GraphHeader& h = g.header;
    auto area_bytes = c.section(formats::kSecAreas);
    if (!area_bytes) return area_bytes.error();
    auto areas = geo::decodeAreaTable(*area_bytes, c.path);
    if (!areas) return areas.error();
    g.areas = std::move(areas).value();
    if (c.has(formats::kSecSourceName)) {
        auto name = c.section(formats::kSecSourceName);
        if (!name) return name.error();
        g.source_name.assign(name->begin(), name->end());
    }

    auto readArray = [&](uint32_t id, size_t count, auto& out) -> Status {
        using T = typename std::decay_t<decltype(out)>::value_type;
        auto bytes = c.section(id);
        if (!bytes) return bytes.error();
        if (bytes->size() != count * sizeof(T)) {
            char name[5];
            formats::fourccToString(id, name);
            return inputError("{}: section '{}' holds {} bytes, expected {} from GRHD", file, name,
                              bytes->size(), count * sizeof(T));
        }
        out.resize(count);
        if (count > 0) std::memcpy(out.data(), bytes->data(), bytes->size());
        return {};
    };
    const size_t n = h.node_count;
    const uint64_t columns = uint64_t(h.size_x) * h.size_z;
    const bool implicit_volume = (h.flags & formats::kGraphFlagImplicitVolume) != 0;
    if (implicit_volume) {
        // Node id = voxel index (y * size_z + z) * size_x + x; positions are implied.
        if (n != columns * h.size_y)
            return inputError("{}: implicit volume graph has {} nodes, expected {} voxels", file, n,
                              columns * h.size_y);
        if (Status s = readArray(formats::kSecFreeVoxels, size_t((n + 63) / 64), g.free_voxels); !s)
            return s.error();
        if (n % 64 != 0 && (g.free_voxels.back() >> (n % 64)) != 0)
            return inputError("{}: section 'VFRE': padding bits after the last voxel are not zero",
                              file);
        if (Status s = readArray(formats::kSecComponents, n, g.components); !s) return s.error();
        for (size_t v = 0; v < n; ++v) {
            const uint32_t comp = g.components[v];
            const bool free_voxel = (g.free_voxels[v / 64] >> (v % 64)) & 1;
            if (free_voxel != (comp != kNoNode) || (comp != kNoNode && comp >= h.component_count))
                return inputError("{}: section 'NCMP': voxel {} has component {} (free: {}), "
                                  "inconsistent with VFRE or out of range",
                                  file, v, comp, free_voxel);
        }
        return g;
    }
    if (Status s = readArray(formats::kSecNodePositions, n * 3, g.positions); !s) return s.error();
    std::vector<uint8_t> cell_bytes;
    if (h.type == GraphType::tile || c.has(formats::kSecNodeCells)) {
        if (Status s = readArray(formats::kSecNodeCells, n * formats::kNodeCellSize, cell_bytes); !s)
            return s.error();
        g.cells.resize(n);
    }
    for (size_t i = 0; i < g.cells.size(); ++i) {
        g.cells[i] = formats::decodeNodeCell(cell_bytes.data() + i * formats::kNodeCellSize);
        if (g.cells[i].column >= columns || g.cells[i].y > h.size_y ||
            g.cells[i].area >= g.areas.size() || cell_bytes[i * formats::kNodeCellSize + 7] != 0)
            return inputError("{}: section 'NCEL': node {} has an invalid cell", file, i);
    }
    for (float v : g.positions)
        if (!std::isfinite(v)) return inputError("{}: section 'NPOS': non-finite position", file);
    if (c.has(formats::kSecColumnNodes)) {
        if (Status s = readArray(formats::kSecColumnNodes, columns + 1, g.column_nodes); !s)
            return s.error();
        if (g.column_nodes.front() != 0 || g.column_nodes.back() != n)
            return inputError("{}: section 'CNOD' does not cover the {} nodes", file, n);
        for (size_t i = 0; i + 1 < g.column_nodes.size(); ++i) {
            if (g.column_nodes[i] > g.column_nodes[i + 1])
                return inputError("{}: section 'CNOD' decreases at column {}", file, i);
            for (uint32_t v = g.column_nodes[i]; v < g.column_nodes[i + 1]; ++v)
                if (g.cells[v].column != i)
                    return inputError("{}: section 'CNOD': node {} is listed under column {} but "
                                      "stands on column {}", file, v, i, g.cells[v].column);
        }
    }
    {
        if (Status s = readArray(formats::kSecEdgeOffsets, n + 1, g.edge_offsets); !s) return s.error();
        if (g.edge_offsets.front() != 0 || g.edge_offsets.back() != h.edge_count)
            return inputError("{}: section 'EOFF' does not cover the {} edges", file, h.edge_count);
        for (size_t i = 0; i < n; ++i)
            if (g.edge_offsets[i] > g.edge_offsets[i + 1])
                return inputError("{}: section 'EOFF' decreases at node {}", file, i);
        if (Status s = readArray(formats::kSecEdgeTargets, h.edge_count, g.edge_targets); !s)
            return s.error();
        if (Status s = readArray(formats::kSecEdgeCosts, h.edge_count, g.edge_costs); !s)
            return s.error();
        for (size_t v = 0; v < n; ++v)
            for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e)
                g.edge_targets[e] += uint32_t(v);  // stored relative to the source node
        for (size_t e = 0; e < g.edge_targets.size(); ++e) {
            if (g.edge_targets[e] >= n)
                return inputError("{}: section 'EDST': edge {} targets node {}, only {} exist",
                                  file, e, g.edge_targets[e], n);
            if (!(g.edge_costs[e] > 0) || !std::isfinite(g.edge_costs[e]))
                return inputError("{}: section 'ECST': edge {} has cost {}", file, e,
                                  g.edge_costs[e]);
        }
    }
    if (Status s = readArray(formats::kSecComponents, n, g.components); !s) return s.error();
    if (h.type == GraphType::navmesh) {
        if (Status s = decodeMeshSections(c, n, g); !s) return s.error();
    }
    if (h.type == GraphType::pov) {
        if (Status s = decodePovSections(c, g); !s) return s.error();
    }
    for (uint32_t comp : g.components)
        if (comp >= h.component_count)
            return inputError("{}: section 'NCMP': component id {} out of range", file, comp);
    return g;
}

Result<Graph> loadGraph(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindGraph, formats::kGraphVersion);
    if (!container) return container.error();
    return decodeGraph(*container);
}

}  // namespace nav::graph
