#include "formats/graph_sections.h"

#include <cmath>
#include <cstring>

#include "formats/bytes.h"

namespace nav::formats {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;  // absent node, link or neighbour

const uint32_t* u32s(const SectionSpan& s) { return reinterpret_cast<const uint32_t*>(s.data); }
const uint64_t* u64s(const SectionSpan& s) { return reinterpret_cast<const uint64_t*>(s.data); }
const float* f32s(const SectionSpan& s) { return reinterpret_cast<const float*>(s.data); }

// bad_section "section 'XXXX': <what>" at `offset`.
Error sectionError(uint32_t id, uint64_t offset, const char* what) {
    char name[5];
    fourccToString(id, name);
    return makeError(ErrorCode::bad_section, offset, id, "section '%s': %s", name, what);
}

// The first of `parts` the asset lacks, as a missing_section error.
template <size_t N>
Error requireAll(const GraphSections& s, const GraphSection (&parts)[N]) {
    for (GraphSection part : parts)
        if (!s[part].present) return missingSectionError(kGraphSectionIds[uint32_t(part)]);
    return {};
}

}  // namespace

Error validateLinkTypeNames(uint32_t id, const uint8_t* data, uint64_t size, uint64_t& count) {
    count = 0;
    if (size % kLinkTypeNameSize != 0 || size / kLinkTypeNameSize > kMaxUserLinkTypes)
        return sectionError(id, 0, "size is not a whole number of 32-byte names, at most 64");
    count = size / kLinkTypeNameSize;
    for (uint64_t k = 0; k < count; ++k) {
        const char* name = reinterpret_cast<const char*>(data) + k * kLinkTypeNameSize;
        size_t length = 0;
        while (length < kLinkTypeNameSize && name[length] != 0) ++length;
        bool padded = true;
        for (size_t i = length; i < kLinkTypeNameSize; ++i) padded = padded && name[i] == 0;
        if (!padded || !validLinkTypeName(name, length))
            return sectionError(id, k * kLinkTypeNameSize,
                                "a user link type name is not 1-31 characters a-z, 0-9, "
                                "'_', '-' padded with zero bytes, or is a built-in name");
        for (uint64_t j = 0; j < k; ++j)
            if (std::memcmp(name, data + j * kLinkTypeNameSize, kLinkTypeNameSize) == 0)
                return sectionError(id, k * kLinkTypeNameSize,
                                    "a user link type name is listed twice");
    }
    return {};
}

const uint32_t kGraphSectionIds[kGraphSectionCount] = {
    kSecNodePositions,    kSecNodeCells,      kSecColumnNodes,     kSecEdgeOffsets,
    kSecEdgeTargets,      kSecEdgeCosts,      kSecComponents,      kSecFreeVoxels,
    kSecMeshVertices,     kSecPolyOffsets,    kSecPolyVertices,    kSecPolyNeighbours,
    kSecPolyAreas,        kSecDetailOffsets,  kSecDetailTriangles, kSecMeshIndexHeader,
    kSecMeshIndexOffsets, kSecMeshIndexPolys, kSecPolyInfo,        kSecPovStats,
    kSecPovCorners,       kSecLayerCells,     kSecLayerColumns,    kSecLayerNeighbours,
    kSecLayerComponents,  kSecLinks,          kSecEdgeLinks,       kSecLinkTypes,
    kSecDomainOwners,     kSecPoiKinds,       kSecPoiDistances,    kSecPoiNext};

Error missingSectionError(uint32_t id) {
    char name[5];
    fourccToString(id, name);
    return makeError(ErrorCode::missing_section, 0, id, "required section '%s' is missing", name);
}

Error sectionSizeError(uint32_t id, size_t got, uint64_t expected) {
    char name[5];
    fourccToString(id, name);
    return makeError(ErrorCode::bad_section, 0, id, "section '%s' is %zu bytes, expected %llu",
                     name, got, static_cast<unsigned long long>(expected));
}

Error validateGraphSections(const GraphHeader& h, const GraphSections& s, uint32_t area_count) {
    using G = GraphSection;
    const uint64_t n = h.node_count;
    const uint64_t columns = uint64_t(h.size_x) * h.size_z;
    const bool implicit_volume = (h.flags & kGraphFlagImplicitVolume) != 0;
    if (Error e = requireAll(s, {G::components})) return e;
    if (s[G::components].size != n * 4)
        return sectionSizeError(kSecComponents, s[G::components].size, n * 4);
    const uint32_t* components = u32s(s[G::components]);
    for (uint64_t i = 0; i < n; ++i) {
        const uint32_t c = components[i];
        if (c >= h.component_count && !(c == kNone && implicit_volume))
            return makeError(ErrorCode::bad_section, i * 4, kSecComponents,
                             "node %llu has component %u, only %u exist",
                             static_cast<unsigned long long>(i), c, h.component_count);
    }

    if (implicit_volume) {
        if (n != columns * h.size_y)
            return makeError(ErrorCode::bad_section, 4, kSecGraphHeader,
                             "volume graph declares %llu nodes for %llu voxels",
                             static_cast<unsigned long long>(n),
                             static_cast<unsigned long long>(columns * h.size_y));
        if (Error e = requireAll(s, {G::free_voxels})) return e;
        const uint64_t words = (n + 63) / 64;
        if (s[G::free_voxels].size != words * 8)
            return sectionSizeError(kSecFreeVoxels, s[G::free_voxels].size, words * 8);
        const uint64_t* free_voxels = u64s(s[G::free_voxels]);
        if (n % 64 != 0 && (free_voxels[words - 1] >> (n % 64)) != 0)
            return makeError(ErrorCode::bad_section, (words - 1) * 8, kSecFreeVoxels,
                             "padding bits after the last voxel are not zero");
        for (uint64_t i = 0; i < n; ++i)
            if (bool((free_voxels[i >> 6] >> (i & 63)) & 1) != (components[i] != kNone))
                return makeError(ErrorCode::bad_section, i * 4, kSecComponents,
                                 "voxel %llu: free bit and component disagree",
                                 static_cast<unsigned long long>(i));
        return {};
    }

    const bool has_cells = graphHasNodeCells(h, s);
    if (Error e = requireAll(s, {G::positions})) return e;
    if (has_cells) {
        if (Error e = requireAll(s, {G::cells})) return e;
    }
    if (Error e = requireAll(s, {G::edge_offsets, G::edge_targets, G::edge_costs})) return e;
    const uint64_t edges = h.edge_count;
    if (s[G::positions].size != n * 12)
        return sectionSizeError(kSecNodePositions, s[G::positions].size, n * 12);
    if (has_cells && s[G::cells].size != n * kNodeCellSize)
        return sectionSizeError(kSecNodeCells, s[G::cells].size, n * kNodeCellSize);
    if (s[G::edge_offsets].size != (n + 1) * 4)
        return sectionSizeError(kSecEdgeOffsets, s[G::edge_offsets].size, (n + 1) * 4);
    if (s[G::edge_targets].size != edges * 4)
        return sectionSizeError(kSecEdgeTargets, s[G::edge_targets].size, edges * 4);
    if (s[G::edge_costs].size != edges * 4)
        return sectionSizeError(kSecEdgeCosts, s[G::edge_costs].size, edges * 4);
    const float* positions = f32s(s[G::positions]);
    const uint8_t* cells = s[G::cells].data;
    const uint32_t* offsets = u32s(s[G::edge_offsets]);
    const uint32_t* targets = u32s(s[G::edge_targets]);
    const float* costs = f32s(s[G::edge_costs]);
    for (uint64_t i = 0; i < n * 3; ++i)
        if (!std::isfinite(positions[i]))
            return makeError(ErrorCode::bad_section, i * 4, kSecNodePositions,
                             "node %llu has a non-finite position",
                             static_cast<unsigned long long>(i / 3));
    for (uint64_t i = 0; has_cells && i < n; ++i) {
        const NodeCell c = decodeNodeCell(cells + i * kNodeCellSize);
        if (c.column >= columns || c.y > h.size_y || c.area >= area_count ||
            cells[i * kNodeCellSize + 7] != 0)
            return makeError(ErrorCode::bad_section, i * kNodeCellSize, kSecNodeCells,
                             "node %llu has an invalid cell", static_cast<unsigned long long>(i));
    }
    if (Error e = checkCsrOffsets(offsets, n, h.edge_count, kSecEdgeOffsets)) return e;
    // Targets are stored relative to their source (wrapping u32 difference).
    for (uint64_t v = 0; v < n; ++v)
        for (uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
            const uint32_t target = uint32_t(v) + targets[e];
            if (target >= n)
                return makeError(ErrorCode::bad_section, uint64_t(e) * 4, kSecEdgeTargets,
                                 "edge %u of node %llu targets node %u, only %llu exist", e,
                                 static_cast<unsigned long long>(v), target,
                                 static_cast<unsigned long long>(n));
        }
    for (uint64_t e = 0; e < edges; ++e)
        if (!(costs[e] > 0) || !std::isfinite(costs[e]))
            return makeError(ErrorCode::bad_section, e * 4, kSecEdgeCosts,
                             "edge %llu has a cost that is not positive and finite",
                             static_cast<unsigned long long>(e));
    return {};
}

Error validateNavmeshSections(const GraphHeader& h, const GraphSections& s, uint32_t area_count,
                              MeshIndexHeader& index) {
    using G = GraphSection;
    const uint64_t polys = h.node_count;
    if (Error e = requireAll(
            s, {G::mesh_vertices, G::poly_offsets, G::poly_vertices, G::poly_neighbours,
                G::poly_areas, G::detail_offsets, G::detail_triangles, G::mesh_index_header,
                G::mesh_index_offsets, G::mesh_index_polys, G::poly_info}))
        return e;
    auto bad = [](uint32_t id, const char* what) { return sectionError(id, 0, what); };
    const SectionSpan& vertex_bytes = s[G::mesh_vertices];
    if (vertex_bytes.size % 12 != 0) return bad(kSecMeshVertices, "size is not a multiple of 12");
    const uint64_t vertex_count = vertex_bytes.size / 12;
    const float* vertices = f32s(vertex_bytes);
    for (uint64_t i = 0; i < vertex_count * 3; ++i)
        if (!std::isfinite(vertices[i])) return bad(kSecMeshVertices, "non-finite vertex");
    if (s[G::poly_offsets].size != (polys + 1) * 4)
        return bad(kSecPolyOffsets, "size does not match the polygon count");
    const uint32_t* poly_offsets = u32s(s[G::poly_offsets]);
    const uint64_t corners = s[G::poly_vertices].size / 4;
    if (s[G::poly_vertices].size % 4 != 0 || s[G::poly_neighbours].size != s[G::poly_vertices].size)
        return bad(kSecPolyVertices, "corner arrays disagree");
    const uint32_t* poly_vertices = u32s(s[G::poly_vertices]);
    const uint32_t* poly_neighbours = u32s(s[G::poly_neighbours]);
    if (Error e = checkCsrOffsets(poly_offsets, polys, corners, kSecPolyOffsets)) return e;
    // In 64 bits: an offset near 2^32 must not wrap around and pass.
    for (uint64_t p = 0; p < polys; ++p)
        if (poly_offsets[p + 1] < uint64_t(poly_offsets[p]) + 3)
            return bad(kSecPolyOffsets, "a polygon has fewer than 3 corners");
    for (uint64_t k = 0; k < corners; ++k) {
        if (poly_vertices[k] >= vertex_count)
            return bad(kSecPolyVertices, "vertex index out of range");
        if (poly_neighbours[k] != kNone && poly_neighbours[k] >= polys)
            return bad(kSecPolyNeighbours, "neighbour index out of range");
    }
    if (s[G::poly_areas].size != polys)
        return bad(kSecPolyAreas, "size does not match the polygon count");
    const uint8_t* poly_areas = s[G::poly_areas].data;
    for (uint64_t p = 0; p < polys; ++p)
        if (poly_areas[p] >= area_count) return bad(kSecPolyAreas, "unknown area id");
    if (s[G::detail_offsets].size != (polys + 1) * 4)
        return bad(kSecDetailOffsets, "size does not match the polygon count");
    const uint32_t* detail_offsets = u32s(s[G::detail_offsets]);
    const SectionSpan& triangle_bytes = s[G::detail_triangles];
    if (triangle_bytes.size % 36 != 0)
        return bad(kSecDetailTriangles, "size is not a whole number of 36-byte triangles");
    if (Error e =
            checkCsrOffsets(detail_offsets, polys, triangle_bytes.size / 36, kSecDetailOffsets))
        return e;
    const float* triangles = f32s(triangle_bytes);
    for (uint64_t i = 0; i < triangle_bytes.size / 4; ++i)
        if (!std::isfinite(triangles[i])) return bad(kSecDetailTriangles, "non-finite coordinate");
    const SectionSpan& index_header = s[G::mesh_index_header];
    if (Error e = decodeMeshIndexHeader(index_header.data, index_header.size, index)) return e;
    const uint64_t cells = uint64_t(index.cells_x) * index.cells_z;
    if (s[G::mesh_index_offsets].size != (cells + 1) * 4)
        return bad(kSecMeshIndexOffsets, "size does not match the index cells");
    const uint32_t* index_offsets = u32s(s[G::mesh_index_offsets]);
    const SectionSpan& index_polys = s[G::mesh_index_polys];
    if (index_polys.size % 4 != 0)
        return bad(kSecMeshIndexPolys, "size is not a whole number of u32 polygon indices");
    if (Error e = checkCsrOffsets(index_offsets, cells, index_polys.size / 4, kSecMeshIndexOffsets))
        return e;
    const uint32_t* polys_listed = u32s(index_polys);
    for (uint64_t i = 0; i < index_polys.size / 4; ++i)
        if (polys_listed[i] >= polys) return bad(kSecMeshIndexPolys, "polygon index out of range");
    if (s[G::poly_info].size != polys * 8)
        return bad(kSecPolyInfo, "size does not match the polygon count");
    return {};
}

namespace {

// LCEL (one valid NodeCell per layer cell) and LCOL (column -> cells CSR, each cell listed under
// its own column): the layer grid of POV and Dirichlet graphs.
Error validateLayerGrid(const GraphHeader& h, const GraphSections& s, uint64_t cells,
                        uint32_t area_count) {
    using G = GraphSection;
    const uint64_t columns = uint64_t(h.size_x) * h.size_z;
    if (s[G::layer_cells].size != cells * kNodeCellSize)
        return sectionError(kSecLayerCells, 0, "size does not match the cell count");
    const uint8_t* layer_cells = s[G::layer_cells].data;
    for (uint64_t c = 0; c < cells; ++c) {
        const uint8_t* p = layer_cells + c * kNodeCellSize;
        const NodeCell cell = decodeNodeCell(p);
        if (cell.column >= columns || cell.y > h.size_y || cell.area >= area_count || p[7] != 0)
            return sectionError(kSecLayerCells, c * kNodeCellSize, "invalid layer cell");
    }
    if (s[G::layer_columns].size != (columns + 1) * 4)
        return sectionError(kSecLayerColumns, 0, "size does not match the grid");
    const uint32_t* layer_columns = u32s(s[G::layer_columns]);
    if (Error e = checkCsrOffsets(layer_columns, columns, cells, kSecLayerColumns)) return e;
    for (uint64_t c = 0; c < columns; ++c)
        for (uint32_t v = layer_columns[c]; v < layer_columns[c + 1]; ++v)
            if (decodeNodeCell(layer_cells + uint64_t(v) * kNodeCellSize).column != c)
                return sectionError(kSecLayerColumns, c * 4,
                                    "a cell is listed under the wrong column");
    return {};
}

}  // namespace

Error validateDirichletSections(const GraphHeader& h, const GraphSections& s, uint32_t area_count) {
    using G = GraphSection;
    if (Error e = requireAll(s, {G::layer_cells, G::layer_columns, G::domain_owners})) return e;
    if (h.flags != 0) return sectionError(kSecGraphHeader, 76, "Dirichlet graphs take no flags");
    const uint64_t cells = s[G::layer_cells].size / kNodeCellSize;
    if (Error e = validateLayerGrid(h, s, cells, area_count)) return e;
    if (s[G::domain_owners].size != cells * 4)
        return sectionError(kSecDomainOwners, 0, "size does not match the cell count");
    const uint32_t* owners = u32s(s[G::domain_owners]);
    for (uint64_t c = 0; c < cells; ++c)
        if (owners[c] >= h.node_count)
            return sectionError(kSecDomainOwners, c * 4, "owner node out of range");
    return {};
}

Error validatePoiSections(const GraphHeader& h, const GraphSections& s) {
    using G = GraphSection;
    const bool kinds = s[G::poi_kinds].present, distances = s[G::poi_distances].present,
               next = s[G::poi_next].present;
    if (!kinds && !distances && !next) return {};
    if (Error e = requireAll(s, {G::poi_kinds, G::poi_distances, G::poi_next})) return e;
    if (h.flags & kGraphFlagImplicitVolume)
        return sectionError(kSecPoiKinds, 0, "volume graphs have no point-of-interest tables");
    const SectionSpan& names = s[G::poi_kinds];
    if (names.size == 0 || names.size % kPoiKindNameSize != 0 ||
        names.size / kPoiKindNameSize > kMaxPoiKinds)
        return sectionError(kSecPoiKinds, 0, "not 1..64 names of 32 bytes");
    const uint64_t k = names.size / kPoiKindNameSize;
    for (uint64_t i = 0; i < k; ++i) {
        const uint8_t* name = names.data + i * kPoiKindNameSize;
        uint32_t length = 0;
        while (length < kPoiKindNameSize && name[length] != 0) ++length;
        bool ok = length >= 1 && length < kPoiKindNameSize;
        for (uint32_t b = 0; ok && b < length; ++b) ok = name[b] >= 0x20 && name[b] < 0x7f;
        for (uint32_t b = length; ok && b < kPoiKindNameSize; ++b) ok = name[b] == 0;
        for (uint64_t j = 0; ok && j < i; ++j)
            ok = std::memcmp(name, names.data + j * kPoiKindNameSize, kPoiKindNameSize) != 0;
        if (!ok)
            return sectionError(kSecPoiKinds, i * kPoiKindNameSize, "invalid or repeated name");
    }
    const uint64_t n = h.node_count;
    if (s[G::poi_distances].size != k * n * 4)
        return sectionError(kSecPoiDistances, 0, "size is not kinds x nodes");
    if (s[G::poi_next].size != k * n * 4)
        return sectionError(kSecPoiNext, 0, "size is not kinds x nodes");
    const float* distance = reinterpret_cast<const float*>(s[G::poi_distances].data);
    const uint32_t* hop = u32s(s[G::poi_next]);
    const uint32_t* offsets = u32s(s[G::edge_offsets]);
    const uint32_t* targets = u32s(s[G::edge_targets]);
    for (uint64_t i = 0; i < k * n; ++i) {
        const float d = distance[i];
        const uint32_t v = uint32_t(i % n);
        if (!(d >= 0)) return sectionError(kSecPoiDistances, i * 4, "negative or NaN distance");
        if (hop[i] == kNone) {
            if (d != 0 && !std::isinf(d))
                return sectionError(kSecPoiNext, i * 4, "no next hop on a finite distance");
            continue;
        }
        bool edge = false;
        for (uint32_t e = offsets[v]; e < offsets[v + 1] && !edge; ++e)
            edge = v + targets[e] == hop[i];  // EDST is relative to the source
        if (!edge || std::isinf(d) || !(distance[i - v + hop[i]] < d))
            return sectionError(kSecPoiNext, i * 4, "next hop is not a neighbour on a path");
    }
    return {};
}

Error validatePovSections(const GraphHeader& h, const GraphSections& s, uint32_t area_count,
                          PovStats& st) {
    using G = GraphSection;
    const uint64_t n = h.node_count;
    if (Error e = requireAll(s, {G::pov_stats, G::pov_corners, G::layer_cells, G::layer_columns,
                                 G::layer_neighbours, G::layer_components}))
        return e;
    if (h.flags != 0) return sectionError(kSecGraphHeader, 76, "POV graphs take no flags");
    if (Error e = decodePovStats(s[G::pov_stats].data, s[G::pov_stats].size, st)) return e;
    if (st.corner_count != n)
        return sectionError(kSecPovStats, 0, "corner count differs from the node count");
    if (st.taut_edges != h.edge_count)
        return sectionError(kSecPovStats, 24, "taut edge count differs from the edge count");
    const uint64_t cells = st.layer_cell_count;
    if (Error e = validateLayerGrid(h, s, cells, area_count)) return e;
    const uint8_t* layer_cells = s[G::layer_cells].data;
    auto columnOf = [&](uint64_t cell) {
        return decodeNodeCell(layer_cells + cell * kNodeCellSize).column;
    };
    // LNB4: every link names a cell of the adjacent column in its direction.
    if (s[G::layer_neighbours].size != cells * 16)
        return sectionError(kSecLayerNeighbours, 0, "size is not 4 planes of the cell count");
    const uint32_t* neighbours = u32s(s[G::layer_neighbours]);
    for (int k = 0; k < kLayerDirections; ++k) {
        for (uint64_t c = 0; c < cells; ++c) {
            const uint64_t at = (uint64_t(k) * cells + c) * 4;
            const uint32_t t = neighbours[uint64_t(k) * cells + c];
            if (t == kNone) continue;
            if (t >= cells) return sectionError(kSecLayerNeighbours, at, "cell index out of range");
            const int64_t x = columnOf(c) % h.size_x, z = columnOf(c) / h.size_x;
            const int64_t tx = columnOf(t) % h.size_x, tz = columnOf(t) / h.size_x;
            if (tx != x + kLayerDx[k] || tz != z + kLayerDz[k])
                return sectionError(kSecLayerNeighbours, at, "link to a cell that is not adjacent");
        }
    }
    // LCMP: component ids below PSTA's count.
    if (s[G::layer_components].size != cells * 4)
        return sectionError(kSecLayerComponents, 0, "size does not match the cell count");
    const uint32_t* layer_components = u32s(s[G::layer_components]);
    for (uint64_t c = 0; c < cells; ++c)
        if (layer_components[c] >= st.layer_component_count)
            return sectionError(kSecLayerComponents, c * 4, "component id out of range");
    // PCRN: per corner its cell and blocked quadrant.
    if (s[G::pov_corners].size != n * kPovCornerSize)
        return sectionError(kSecPovCorners, 0, "size does not match the node count");
    const uint8_t* corners = s[G::pov_corners].data;
    uint32_t any_direction = 0;
    for (uint64_t v = 0; v < n; ++v) {
        const uint8_t* p = corners + v * kPovCornerSize;
        if (!povCornerRecordValid(p) || decodePovCorner(p).cell >= cells)
            return sectionError(kSecPovCorners, v * kPovCornerSize, "invalid corner record");
        any_direction += (p[6] & kPovCornerAnyDirection) != 0;
    }
    if (any_direction != st.any_direction_corners)
        return sectionError(kSecPovStats, 12, "any-direction corner count differs from PCRN");
    return {};
}

Error validateLinkSections(const GraphHeader& h, const GraphSections& s) {
    const SectionSpan& links = s[GraphSection::links];
    const SectionSpan& edge_links = s[GraphSection::edge_links];
    const SectionSpan& types = s[GraphSection::link_types];
    const bool implicit_volume = (h.flags & kGraphFlagImplicitVolume) != 0;
    if (!links.present) {
        if (edge_links.present) return missingSectionError(kSecLinks);
        if (types.present) return sectionError(kSecLinkTypes, 0, "link types without links");
        return {};
    }
    if (implicit_volume && edge_links.present)
        return sectionError(kSecEdgeLinks, 0, "implicit volume graphs have no edges to name");
    if (!implicit_volume && !edge_links.present) return missingSectionError(kSecEdgeLinks);
    // LTYP: user type names.
    uint64_t type_count = 0;
    if (types.present)
        if (Error e = validateLinkTypeNames(kSecLinkTypes, types.data, types.size, type_count))
            return e;
    if (links.size % kLinkRecordSize != 0)
        return sectionError(kSecLinks, 0, "size is not a whole number of 56-byte link records");
    if (!implicit_volume && edge_links.size != uint64_t(h.edge_count) * 4)
        return sectionSizeError(kSecEdgeLinks, edge_links.size, uint64_t(h.edge_count) * 4);
    const uint64_t count = links.size / kLinkRecordSize;
    if (count >= kNoLink) return sectionError(kSecLinks, 0, "too many links");
    const uint64_t* free_voxels =
        implicit_volume ? reinterpret_cast<const uint64_t*>(s[GraphSection::free_voxels].data)
                        : nullptr;
    auto voxelFree = [&](uint32_t v) { return (free_voxels[v >> 6] >> (v & 63)) & 1; };
    uint64_t expected_edges = 0;
    LinkRecord previous;
    for (uint64_t i = 0; i < count; ++i) {
        LinkRecord l;
        const uint64_t at = i * kLinkRecordSize;
        if (Error e = decodeLinkRecord(links.data + at, kLinkRecordSize, l)) {
            e.offset += at;
            return e;
        }
        if (l.from_node >= h.node_count || l.to_node >= h.node_count || l.from_node == l.to_node)
            return makeError(ErrorCode::bad_section, at + 8, kSecLinks,
                             "link %u joins nodes %u and %u (%u nodes; the ends must differ)", l.id,
                             l.from_node, l.to_node, h.node_count);
        if (implicit_volume && (!voxelFree(l.from_node) || !voxelFree(l.to_node)))
            return makeError(ErrorCode::bad_section, at + 8, kSecLinks,
                             "link %u joins voxels %u and %u, not both free", l.id, l.from_node,
                             l.to_node);
        if (isUserLinkType(l.type) && uint32_t(l.type) - kLinkTypeUserFirst >= type_count)
            return makeError(ErrorCode::bad_section, at + 48, kSecLinks,
                             "link %u: user type %u is not in LTYP (%llu names)", l.id,
                             uint32_t(l.type) - kLinkTypeUserFirst,
                             static_cast<unsigned long long>(type_count));
        if (i > 0 && l.id < previous.id)
            return makeError(ErrorCode::bad_section, at, kSecLinks,
                             "link ids are not ascending (%u after %u)", l.id, previous.id);
        if (i > 0 && l.id == previous.id &&
            (l.type != previous.type || l.flags != previous.flags ||
             l.user_data != previous.user_data))
            return makeError(ErrorCode::bad_section, at, kSecLinks,
                             "lanes of link %u differ in type, flags or user data", l.id);
        expected_edges += (l.flags & kLinkFlagBidirectional) ? 2 : 1;
        previous = l;
    }
    if (implicit_volume) return {};
    const uint32_t* offsets = reinterpret_cast<const uint32_t*>(s[GraphSection::edge_offsets].data);
    const uint32_t* targets = reinterpret_cast<const uint32_t*>(s[GraphSection::edge_targets].data);
    const float* costs = reinterpret_cast<const float*>(s[GraphSection::edge_costs].data);
    const uint32_t* owner = reinterpret_cast<const uint32_t*>(edge_links.data);
    auto linkAt = [&](uint32_t k) {
        LinkRecord l;
        (void)decodeLinkRecord(links.data + uint64_t(k) * kLinkRecordSize, kLinkRecordSize, l);
        return l;
    };
    uint64_t link_edges = 0;
    for (uint64_t v = 0; v < h.node_count; ++v)
        for (uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
            if (owner[e] == kNoLink) continue;
            if (owner[e] >= count)
                return makeError(ErrorCode::bad_section, uint64_t(e) * 4, kSecEdgeLinks,
                                 "edge %u names link %u of %llu", e, owner[e],
                                 static_cast<unsigned long long>(count));
            const LinkRecord l = linkAt(owner[e]);
            const uint32_t target = uint32_t(v) + targets[e];  // stored relative to v
            // Navmesh link edges add the walk between the polygon centres and the link's ends.
            const bool navmesh = h.type == GraphType::navmesh;
            auto costMatches = [&](float link_cost) {
                return navmesh ? costs[e] >= link_cost : costs[e] == link_cost;
            };
            const bool forward = v == l.from_node && target == l.to_node && costMatches(l.cost);
            const bool back = (l.flags & kLinkFlagBidirectional) && v == l.to_node &&
                              target == l.from_node && costMatches(l.reverse_cost);
            if (!forward && !back)
                return makeError(ErrorCode::bad_section, uint64_t(e) * 4, kSecEdgeLinks,
                                 "edge %u (%llu -> %u) does not match link %u", e,
                                 static_cast<unsigned long long>(v), target, l.id);
            ++link_edges;
        }
    if (link_edges != expected_edges)
        return makeError(ErrorCode::bad_section, 0, kSecEdgeLinks,
                         "%llu edges name links, expected %llu (one per direction of each link)",
                         static_cast<unsigned long long>(link_edges),
                         static_cast<unsigned long long>(expected_edges));
    // Each direction of each link owned by exactly one edge (with the total above: no other).
    for (uint64_t i = 0; i < count; ++i) {
        const LinkRecord l = linkAt(uint32_t(i));
        for (int direction = 0; direction < ((l.flags & kLinkFlagBidirectional) ? 2 : 1);
             ++direction) {
            const uint32_t from = direction == 0 ? l.from_node : l.to_node;
            const uint32_t to = direction == 0 ? l.to_node : l.from_node;
            int owned = 0;
            for (uint32_t e = offsets[from]; e < offsets[from + 1]; ++e)
                owned += owner[e] == i && from + targets[e] == to;
            if (owned != 1)
                return makeError(ErrorCode::bad_section, i * kLinkRecordSize, kSecLinks,
                                 "link %u has %d edges %s, expected 1", l.id, owned,
                                 direction == 0 ? "forward" : "back");
        }
    }
    return {};
}

Error validateColumnNodes(const GraphHeader& h, const GraphSections& s) {
    const SectionSpan& span = s[GraphSection::column_nodes];
    if (!span.present || !graphHasNodeCells(h, s)) return {};
    const uint64_t n = h.node_count;
    const uint64_t columns = uint64_t(h.size_x) * h.size_z;
    if (span.size != (columns + 1) * 4)
        return sectionSizeError(kSecColumnNodes, span.size, (columns + 1) * 4);
    const uint32_t* column_nodes = u32s(span);
    const uint8_t* cells = s[GraphSection::cells].data;
    if (Error e = checkCsrOffsets(column_nodes, columns, n, kSecColumnNodes)) return e;
    for (uint64_t c = 0; c < columns; ++c) {
        for (uint32_t v = column_nodes[c]; v < column_nodes[c + 1]; ++v)
            if (decodeNodeCell(cells + size_t(v) * kNodeCellSize).column != c)
                return makeError(ErrorCode::bad_section, c * 4, kSecColumnNodes,
                                 "node %u is listed under the wrong column", v);
    }
    return {};
}

Error validateClusterSections(const ClusterHeader& h, const SectionSpan& nodes,
                              const SectionSpan& table) {
    if (!nodes.present) return missingSectionError(kSecNodeClusters);
    if (!table.present) return missingSectionError(kSecClusterTable);
    const uint64_t n = h.node_count, k = h.cluster_count;
    if (nodes.size != n * 4) return sectionSizeError(kSecNodeClusters, nodes.size, n * 4);
    if (table.size != k * k * 2) return sectionSizeError(kSecClusterTable, table.size, k * k * 2);
    const uint32_t* node_clusters = u32s(nodes);
    const uint16_t* entries = reinterpret_cast<const uint16_t*>(table.data);
    for (uint64_t v = 0; v < n; ++v)
        if (node_clusters[v] >= k)
            return makeError(ErrorCode::bad_section, v * 4, kSecNodeClusters,
                             "node %llu is in cluster %u, only %llu exist",
                             static_cast<unsigned long long>(v), node_clusters[v],
                             static_cast<unsigned long long>(k));
    for (uint64_t a = 0; a < k; ++a)
        if (entries[a * k + a] != 0)
            return makeError(ErrorCode::bad_section, (a * k + a) * 2, kSecClusterTable,
                             "cluster %llu to itself is not 0", static_cast<unsigned long long>(a));
    return {};
}

Error viewLandmarks(const uint8_t* data, size_t size, uint32_t node_count, LandmarkView& out) {
    out = LandmarkView{};
    if (size < kLandmarkHeaderSize)
        return sectionSizeError(kSecClusterLandmarks, size, kLandmarkHeaderSize);
    const uint32_t count = loadLe32(data), flags = loadLe32(data + 4);
    float scale;
    std::memcpy(&scale, data + 8, 4);
    if (count == 0 || count > kMaxLandmarks)
        return makeError(ErrorCode::bad_section, 0, kSecClusterLandmarks,
                         "section 'CLLM': %u landmarks, expected 1 to %u", count, kMaxLandmarks);
    if ((flags & ~kLandmarkFlagDirected) != 0 || loadLe32(data + 12) != 0)
        return makeError(ErrorCode::bad_section, 4, kSecClusterLandmarks,
                         "section 'CLLM': unknown flags %08x", flags);
    if (!(scale > 0) || !std::isfinite(scale))
        return makeError(ErrorCode::bad_section, 8, kSecClusterLandmarks,
                         "section 'CLLM': scale is not finite and > 0");
    const uint64_t tables = (flags & kLandmarkFlagDirected) ? 2 : 1;
    const uint64_t expected =
        kLandmarkHeaderSize + 4ull * count + tables * 2ull * uint64_t(node_count) * count;
    if (size != expected) return sectionSizeError(kSecClusterLandmarks, size, expected);
    const auto* nodes = reinterpret_cast<const uint32_t*>(data + kLandmarkHeaderSize);
    const auto* from = reinterpret_cast<const uint16_t*>(data + kLandmarkHeaderSize + 4 * count);
    const uint16_t* to = tables == 2 ? from + uint64_t(node_count) * count : from;
    for (uint32_t k = 0; k < count; ++k) {
        const uint64_t at = kLandmarkHeaderSize + 4ull * k;
        if (nodes[k] >= node_count)
            return makeError(ErrorCode::bad_section, at, kSecClusterLandmarks,
                             "section 'CLLM': landmark %u is node %u of %u", k, nodes[k],
                             node_count);
        const uint64_t self = uint64_t(nodes[k]) * count + k;
        if (from[self] != 0 || to[self] != 0)
            return makeError(ErrorCode::bad_section, at, kSecClusterLandmarks,
                             "section 'CLLM': landmark %u's distance to itself is not 0", k);
    }
    out.count = count;
    out.flags = flags;
    out.scale = scale;
    out.nodes = nodes;
    out.from = from;
    out.to = to;
    return {};
}

Error validateNextHopSections(const NextHopHeader& h, const SectionSpan& ranks,
                              const SectionSpan& offsets, size_t blocks_size, uint8_t* rank_seen) {
    if (!ranks.present) return missingSectionError(kSecNextHopRanks);
    if (!offsets.present) return missingSectionError(kSecNextHopOffsets);
    const uint64_t n = h.node_count, b = h.stored_blocks;
    if (ranks.size != n * 4) return sectionSizeError(kSecNextHopRanks, ranks.size, n * 4);
    if (offsets.size != (b + 1) * 8)
        return sectionSizeError(kSecNextHopOffsets, offsets.size, (b + 1) * 8);
    const uint32_t* rank = u32s(ranks);
    for (uint64_t v = 0; v < n; ++v) {
        if (rank[v] >= n)
            return makeError(ErrorCode::bad_section, v * 4, kSecNextHopRanks,
                             "node %llu has rank %u of %llu", static_cast<unsigned long long>(v),
                             rank[v], static_cast<unsigned long long>(n));
        if (rank_seen != nullptr && rank_seen[rank[v]]++ != 0)
            return makeError(ErrorCode::bad_section, v * 4, kSecNextHopRanks,
                             "node %llu has rank %u, which another node has too",
                             static_cast<unsigned long long>(v), rank[v]);
    }
    const uint64_t* offset = u64s(offsets);
    if (offset[0] != 0 || offset[b] != blocks_size)
        return makeError(ErrorCode::bad_section, 0, kSecNextHopOffsets,
                         "block offsets do not cover the %zu bytes of 'NHBL'", blocks_size);
    for (uint64_t i = 0; i < b; ++i)
        if (offset[i + 1] <= offset[i])
            return makeError(ErrorCode::bad_section, (i + 1) * 8, kSecNextHopOffsets,
                             "block %llu is empty or out of order",
                             static_cast<unsigned long long>(i));
    return {};
}

bool findNextHopRow(const uint8_t* block, size_t size, uint32_t rows, uint32_t row,
                    uint32_t symbol_bytes, NextHopRow& out) {
    const size_t table = 4 * (size_t(rows) + 1);
    if (row >= rows || table > size) return false;
    const uint32_t begin = loadLe32(block + 4 * size_t(row));
    const uint32_t end = loadLe32(block + 4 * (size_t(row) + 1));
    if (begin < table || end > size || end < uint64_t(begin) + 4) return false;  // no u32 wrap
    const uint32_t runs = loadLe32(block + begin);
    if (runs == 0 || 4 + uint64_t(runs) * (4 + symbol_bytes) > end - begin) return false;
    out.runs = runs;
    out.starts = block + begin + 4;
    out.symbols = out.starts + 4 * size_t(runs);
    return true;
}

Error validateHierNextHopSections(const HierNextHopHeader& h,
                                  const uint8_t* const data[kHopSectionCount],
                                  const size_t size[kHopSectionCount]) {
    const uint64_t n = h.node_count, k = h.cluster_count, ents = h.entrance_count;
    auto u32 = [&](uint32_t s) { return reinterpret_cast<const uint32_t*>(data[s]); };
    auto u64 = [&](uint32_t s) { return reinterpret_cast<const uint64_t*>(data[s]); };
    const uint64_t expect[] = {4 * n,       4 * n,    4 * (k + 1), 4 * n,
                               4 * (k + 1), 4 * ents, 8 * (k + 1)};
    for (uint32_t s = 0; s <= kHopIntraOffsets; ++s)
        if (size[s] != expect[s])
            return sectionSizeError(kHierHopSectionIds[s], size[s], expect[s]);
    if (size[kHopDistanceOffsets] != 8 * (k + 1))
        return sectionSizeError(kHierHopSectionIds[kHopDistanceOffsets], size[kHopDistanceOffsets],
                                8 * (k + 1));
    const uint32_t* clusters = u32(kHopClusters);
    const uint32_t* local = u32(kHopLocal);
    const uint32_t* mo = u32(kHopMemberOffsets);
    const uint32_t* members = u32(kHopMembers);
    const uint32_t* eo = u32(kHopEntranceOffsets);
    const uint32_t* entrances = u32(kHopEntrances);
    const uint64_t* io = u64(kHopIntraOffsets);
    const uint64_t* dofs = u64(kHopDistanceOffsets);
    auto bad = [&](uint32_t s, uint64_t offset, const char* what) {
        return makeError(ErrorCode::bad_section, offset, kHierHopSectionIds[s], "%s", what);
    };
    for (uint64_t v = 0; v < n; ++v)
        if (clusters[v] >= k) return bad(kHopClusters, 4 * v, "a node's cluster is out of range");
    if (mo[0] != 0 || mo[k] != n || eo[0] != 0 || eo[k] != ents || io[0] != 0 || dofs[0] != 0)
        return bad(kHopMemberOffsets, 0, "cluster offsets do not cover the nodes and entrances");
    for (uint64_t c = 0; c < k; ++c) {
        // Past the totals counts as decreasing (a later offset would): checked before this
        // cluster's members and entrances are read.
        if (mo[c + 1] < mo[c] || eo[c + 1] < eo[c] || mo[c + 1] > n || eo[c + 1] > ents)
            return bad(kHopMemberOffsets, 4 * c, "cluster offsets decrease");
        const uint64_t members_of = mo[c + 1] - mo[c], count = eo[c + 1] - eo[c];
        if (io[c + 1] - io[c] != members_of * members_of * h.symbol_bytes || io[c + 1] < io[c])
            return bad(kHopIntraOffsets, 8 * c, "an intra-cluster table has the wrong size");
        if (dofs[c + 1] - dofs[c] != members_of * count || dofs[c + 1] < dofs[c])
            return bad(kHopDistanceOffsets, 8 * c, "a distance table has the wrong size");
        for (uint64_t i = mo[c]; i < mo[c + 1]; ++i)
            if (members[i] >= n || clusters[members[i]] != c || local[members[i]] != i - mo[c])
                return bad(kHopMembers, 4 * i, "members disagree with the clusters");
        for (uint64_t i = eo[c]; i < eo[c + 1]; ++i)
            if (entrances[i] >= n || clusters[entrances[i]] != c)
                return bad(kHopEntrances, 4 * i, "an entrance is not a node of its cluster");
    }
    const uint64_t expect_rest[] = {io[k],       8 * (k + 1),     4 * dofs[k],
                                    4 * dofs[k], 4 * ents * ents, 4 * ents * ents};
    for (uint32_t s = kHopIntra; s < kHopSectionCount; ++s)
        if (s != kHopDistanceOffsets && size[s] != expect_rest[s - kHopIntra])
            return sectionSizeError(kHierHopSectionIds[s], size[s], expect_rest[s - kHopIntra]);
    const uint32_t* next = u32(kHopEntranceNext);
    for (uint64_t i = 0; i < ents * ents; ++i)
        if (next[i] >= ents && next[i] != kNone)
            return bad(kHopEntranceNext, 4 * i, "a next entrance is out of range");
    return {};
}

}  // namespace nav::formats
