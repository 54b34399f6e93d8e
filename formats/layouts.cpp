#include "formats/layouts.h"

#include <bit>
#include <bitset>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "formats/bytes.h"
#include "formats/xxhash64.h"

namespace nav::formats {
namespace {

void storeF32(uint8_t* p, float v) { storeLe32(p, std::bit_cast<uint32_t>(v)); }
float loadF32(const uint8_t* p) { return std::bit_cast<float>(loadLe32(p)); }

// Each fixed-size header's byte layout is written once, as its fields in file order (u32, u64,
// f32, f32[3] and u32 enums, packed from offset 0; Reserved{n} skips n bytes) in its HeaderLayout
// below. The encoder and the decoder both walk that list; every byte no field covers is reserved:
// written as zero, refused when not zero.
struct Reserved {
    size_t bytes;
};

struct FieldWriter {
    uint8_t* out;
    size_t at = 0;
    void put(uint32_t v) { storeLe32(out + at, v), at += 4; }
    void put(uint64_t v) { storeLe64(out + at, v), at += 8; }
    void put(float v) { storeF32(out + at, v), at += 4; }
    void put(const float (&v)[3]) {
        for (float f : v) put(f);
    }
    template <class E>
    requires std::is_enum_v<E>
    void put(E v) { put(uint32_t(v)); }
    void put(Reserved r) { at += r.bytes; }
    template <class... Fields>
    void operator()(const Fields&... fields) {
        (put(fields), ...);
    }
};

// Enums are read as their raw u32; each decoder checks the value names a known member.
struct FieldReader {
    const uint8_t* data;
    size_t at = 0;
    std::bitset<128> covered{};
    void cover(size_t n) {
        for (size_t i = 0; i < n; ++i) covered.set(at++);
    }
    void get(uint32_t& v) { v = loadLe32(data + at), cover(4); }
    void get(uint64_t& v) { v = loadLe64(data + at), cover(8); }
    void get(float& v) { v = loadF32(data + at), cover(4); }
    void get(float (&v)[3]) {
        for (float& f : v) get(f);
    }
    template <class E>
    requires std::is_enum_v<E>
    void get(E& v) { v = E(loadLe32(data + at)), cover(4); }
    void get(Reserved r) { at += r.bytes; }
    template <class... Fields>
    void operator()(Fields&&... fields) {
        (get(fields), ...);
    }
};

template <class H>
struct HeaderLayout;

template <class H>
void encodeHeader(const H& h, uint8_t* out) {
    using L = HeaderLayout<H>;
    std::memset(out, 0, L::size);
    FieldWriter writer{out};
    L::fields(writer, h);
    assert(writer.at <= L::size);
}

// Size, fields and reserved bytes; what the values must satisfy is each decoder's own check.
template <class H>
Error decodeHeader(const uint8_t* data, size_t size, H& h) {
    using L = HeaderLayout<H>;
    static_assert(L::size <= 128);
    char name[5];
    fourccToString(L::id, name);
    if (size != L::size)
        return makeError(ErrorCode::bad_section, 0, L::id,
                         "section '%s' is %zu bytes, expected %zu", name, size, L::size);
    FieldReader reader{data};
    L::fields(reader, h);
    for (size_t i = 0; i < L::size; ++i)
        if (!reader.covered[i] && data[i] != 0)
            return makeError(ErrorCode::bad_section, i, L::id,
                             "section '%s': reserved byte %zu is not zero", name, i);
    return {};
}

// Declares HeaderLayout<H> with its section id and size; the body lists the fields.
#define NAV_HEADER_LAYOUT(H, ID, SIZE)       \
    template <>                              \
    struct HeaderLayout<H> {                 \
        static constexpr uint32_t id = ID;   \
        static constexpr size_t size = SIZE; \
        template <class Io, class T>         \
        static void fields(Io& io, T& h);    \
    };                                       \
    template <class Io, class T>             \
    void HeaderLayout<H>::fields(Io& io, T& h)

NAV_HEADER_LAYOUT(GeometryHeader, kSecGeometryHeader, kGeometryHeaderSize) {
    io(h.vertex_count, h.triangle_count, h.object_count, h.source_mesh_count, h.bounds_min,
       h.bounds_max, h.dropped_degenerate, h.dropped_ignored);
}
NAV_HEADER_LAYOUT(VoxelHeader, kSecVoxelHeader, kVoxelHeaderSize) {
    io(h.size_x, h.size_z, h.size_y, h.source, h.origin, h.cell_size, h.cell_height, h.agent_height,
       h.agent_radius, h.agent_climb, h.max_slope_deg, h.span_count, h.walkable_count);
}
NAV_HEADER_LAYOUT(GraphHeader, kSecGraphHeader, kGraphHeaderSize) {
    io(h.type, h.node_count, h.edge_count, h.component_count, h.largest_component, h.heuristic,
       h.min_cost_multiplier, h.size_x, h.size_z, h.size_y, h.origin, h.cell_size, h.cell_height,
       h.agent_height, h.agent_radius, h.agent_climb, h.max_slope_deg, h.flags);
}
NAV_HEADER_LAYOUT(MeshIndexHeader, kSecMeshIndexHeader, kMeshIndexHeaderSize) {
    io(h.cells_x, h.cells_z, h.min_x, h.min_z, h.cell, h.region_count, h.tiles_x, h.tiles_z);
}
NAV_HEADER_LAYOUT(PovStats, kSecPovStats, kPovStatsSize) {
    io(h.corner_count, h.layer_cell_count, h.layer_component_count, h.any_direction_corners,
       h.visibility_edges, h.taut_edges);
}
NAV_HEADER_LAYOUT(LinkRecord, kSecLinks, kLinkRecordSize) {
    io(h.id, h.user_data, h.from_node, h.to_node, h.from, h.to, h.cost, h.reverse_cost, h.type,
       h.flags);
}
NAV_HEADER_LAYOUT(ClusterHeader, kSecClusterHeader, kClusterHeaderSize) {
    io(h.method, h.cluster_count, h.node_count, h.edge_count, h.cluster_size, h.requested_clusters,
       h.scale, h.min_cluster_nodes, h.max_cluster_nodes, h.unreachable_pairs, h.graph_fingerprint,
       h.flags);
}
NAV_HEADER_LAYOUT(HierarchyHeader, kSecHierHeader, kHierarchyHeaderSize) {
    io(h.level_count, h.node_count, h.cluster_count, h.group_count, h.abstract_edge_count,
       h.entrance_count, h.entrance_edge_count, h.default_cost, h.entrance_mode, h.group_fanout,
       h.graph_fingerprint, h.clusters_fingerprint);
}
NAV_HEADER_LAYOUT(NextHopHeader, kSecNextHopHeader, kNextHopHeaderSize) {
    io(h.node_count, h.edge_count, h.block_rows, h.block_count, h.first_block, h.stored_blocks,
       h.shard_index, h.shard_count, h.symbol_bytes, h.cost_shift, h.graph_fingerprint, h.run_count,
       h.flags);
}
NAV_HEADER_LAYOUT(HierNextHopHeader, kSecHierHopHeader, kHierNextHopHeaderSize) {
    io(h.node_count, h.edge_count, h.cluster_count, h.entrance_count, h.symbol_bytes, Reserved{4},
       h.graph_fingerprint, h.clusters_fingerprint, h.intra_symbols, h.distance_entries);
}

NAV_HEADER_LAYOUT(WorldTileHeader, kSecWorldTileHeader, kWorldTileHeaderSize) {
    io(h.tile_x, h.tile_z, h.tiles_x, h.tiles_z, h.tile_cells, h.world_size_x, h.world_size_z, h.x0,
       h.z0, h.seam_count, h.world_fingerprint);
}
NAV_HEADER_LAYOUT(WorldHeader, kSecWorldHeader, kWorldHeaderSize) {
    io(h.tiles_x, h.tiles_z, h.tile_cells, h.world_size_x, h.world_size_z, h.portal_count,
       h.portal_edge_count, h.tile_count, h.origin, h.cell_size, h.cell_height, h.graph_type,
       h.world_fingerprint);
}

#undef NAV_HEADER_LAYOUT

}  // namespace

void encodeGeometryHeader(const GeometryHeader& h, uint8_t out[kGeometryHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeGeometryHeader(const uint8_t* data, size_t size, GeometryHeader& h) {
    if (Error e = decodeHeader(data, size, h)) return e;
    for (int i = 0; i < 3; ++i) {
        if (!std::isfinite(h.bounds_min[i]) || !std::isfinite(h.bounds_max[i]))
            return makeError(ErrorCode::bad_section, 16, kSecGeometryHeader,
                             "section 'GHDR': bounds are not finite");
    }
    return {};
}

void encodeVoxelHeader(const VoxelHeader& h, uint8_t out[kVoxelHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeVoxelHeader(const uint8_t* data, size_t size, VoxelHeader& h) {
    constexpr uint32_t id = kSecVoxelHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    const uint32_t source = uint32_t(h.source);
    if (source < 1 || source > 3)
        return makeError(ErrorCode::bad_section, 12, id, "section 'VHDR': unknown source %u",
                         source);
    if (h.size_x == 0 || h.size_z == 0 || uint64_t(h.size_x) * h.size_z > kMaxGridColumns)
        return makeError(ErrorCode::bad_section, 0, id,
                         "section 'VHDR': grid of %u x %u columns is empty or too large", h.size_x,
                         h.size_z);
    if (h.size_y == 0 || h.size_y > kMaxGridHeight)
        return makeError(ErrorCode::bad_section, 8, id,
                         "section 'VHDR': grid height %u is outside 1..%u", h.size_y,
                         kMaxGridHeight);
    for (int i = 0; i < 3; ++i)
        if (!std::isfinite(h.origin[i]))
            return makeError(ErrorCode::bad_section, 16, id, "section 'VHDR': origin not finite");
    if (!(h.cell_size > 0) || !std::isfinite(h.cell_size) || !(h.cell_height > 0) ||
        !std::isfinite(h.cell_height))
        return makeError(ErrorCode::bad_section, 28, id,
                         "section 'VHDR': cell size and height must be positive and finite");
    const float agent[4] = {h.agent_height, h.agent_radius, h.agent_climb, h.max_slope_deg};
    for (int i = 0; i < 4; ++i)
        if (!(agent[i] >= 0) || !std::isfinite(agent[i]))
            return makeError(ErrorCode::bad_section, 36 + 4 * i, id,
                             "section 'VHDR': agent parameter %d is negative or not finite", i);
    if (h.walkable_count > h.span_count)
        return makeError(ErrorCode::bad_section, 56, id,
                         "section 'VHDR': %u walkable spans but only %u spans", h.walkable_count,
                         h.span_count);
    return {};
}

Error decodeAreaTable(const uint8_t* data, size_t size, AreaTable& out) {
    out.count = 0;
    ByteReader reader(data, size);
    const uint32_t count = reader.u32();
    if (!reader.ok())
        return makeError(ErrorCode::bad_section, 0, kSecAreas,
                         "section 'AREA' is %zu bytes, "
                         "too short for its count",
                         size);
    if (count == 0 || count > kMaxAreas)
        return makeError(ErrorCode::bad_section, 0, kSecAreas,
                         "section 'AREA': %u areas, expected 1..%u", count, kMaxAreas);
    for (uint32_t i = 0; i < count; ++i) {
        const size_t at = reader.position();
        AreaRecord& area = out.areas[i];
        area.flags = reader.u8();
        const uint8_t reserved8 = reader.u8();
        const uint16_t reserved16 = reader.u16();
        area.cost = reader.f32();
        const std::string_view name = reader.str(kMaxAreaNameLength);
        if (!reader.ok())
            return makeError(ErrorCode::bad_section, reader.position(), kSecAreas,
                             "section 'AREA': entry %u is truncated or its name is longer than "
                             "%u bytes",
                             i, kMaxAreaNameLength);
        if ((area.flags & ~kAreaFlagWalkable) != 0 || reserved8 != 0 || reserved16 != 0)
            return makeError(ErrorCode::bad_section, at, kSecAreas,
                             "section 'AREA': entry %u has unknown flags or reserved bytes set", i);
        if (!std::isfinite(area.cost) || !(area.cost > 0))
            return makeError(ErrorCode::bad_section, at + 4, kSecAreas,
                             "section 'AREA': entry %u cost is not a positive finite number", i);
        std::memcpy(area.name, name.data(), name.size());
        area.name[name.size()] = '\0';
    }
    if (reader.remaining() != 0)
        return makeError(ErrorCode::bad_section, reader.position(), kSecAreas,
                         "section 'AREA': %zu unexpected bytes after the last entry",
                         reader.remaining());
    if (out.areas[0].flags & kAreaFlagWalkable)
        return makeError(ErrorCode::bad_section, 4, kSecAreas,
                         "section 'AREA': area 0 must be the non-walkable obstacle area");
    out.count = count;
    return {};
}

Error decodeAreaCosts(const uint8_t* data, size_t size, uint32_t& count, float* costs) {
    count = 0;
    auto* table = new (std::nothrow) AreaTable();
    if (table == nullptr) return makeError(ErrorCode::out_of_memory, 0, kSecAreas, "out of memory");
    const Error e = decodeAreaTable(data, size, *table);
    if (!e) {
        count = table->count;
        if (costs != nullptr)
            for (uint32_t a = 0; a < count; ++a) costs[a] = table->areas[a].cost;
    }
    delete table;
    return e;
}

Error validateGeometrySizes(const GeometryHeader& h, uint64_t vertices_size,
                            uint64_t triangles_size, uint64_t triangle_areas_size) {
    using ull = unsigned long long;
    const uint64_t vertex_bytes = uint64_t(h.vertex_count) * 12;
    const uint64_t triangle_bytes = uint64_t(h.triangle_count) * 12;
    if (vertices_size != vertex_bytes)
        return makeError(ErrorCode::bad_section, 0, kSecVertices,
                         "section 'VERT' is %llu bytes, expected %llu for %u vertices",
                         ull(vertices_size), ull(vertex_bytes), h.vertex_count);
    if (triangles_size != triangle_bytes)
        return makeError(ErrorCode::bad_section, 0, kSecTriangles,
                         "section 'TRIS' is %llu bytes, expected %llu for %u triangles",
                         ull(triangles_size), ull(triangle_bytes), h.triangle_count);
    if (triangle_areas_size != h.triangle_count)
        return makeError(ErrorCode::bad_section, 0, kSecTriangleAreas,
                         "section 'TARE' is %llu bytes, expected %u for %u triangles",
                         ull(triangle_areas_size), h.triangle_count, h.triangle_count);
    return {};
}

Error validateGeometryVertices(const GeometryHeader& h, const uint8_t* vertices) {
    for (uint64_t i = 0; i < uint64_t(h.vertex_count) * 3; ++i)
        if (!std::isfinite(std::bit_cast<float>(loadLe32(vertices + 4 * i))))
            return makeError(ErrorCode::bad_section, 4 * i, kSecVertices,
                             "section 'VERT': vertex %llu has a non-finite coordinate",
                             static_cast<unsigned long long>(i / 3));
    return {};
}

Error validateGeometryTriangles(const GeometryHeader& h, uint64_t first, uint64_t count,
                                const uint8_t* triangles, const uint8_t* triangle_areas,
                                uint32_t area_count) {
    using ull = unsigned long long;
    for (uint64_t i = 0; i < count * 3; ++i)
        if (const uint32_t v = loadLe32(triangles + 4 * i); v >= h.vertex_count)
            return makeError(ErrorCode::bad_section, 12 * first + 4 * i, kSecTriangles,
                             "section 'TRIS': triangle %llu uses vertex %u, only %u exist",
                             ull(first + i / 3), v, h.vertex_count);
    for (uint64_t t = 0; t < count; ++t)
        if (triangle_areas[t] >= area_count)
            return makeError(ErrorCode::bad_section, first + t, kSecTriangleAreas,
                             "section 'TARE': triangle %llu has area %u, only %u areas exist",
                             ull(first + t), triangle_areas[t], area_count);
    return {};
}

Error validateGeometrySections(const GeometryHeader& h, const uint8_t* vertices,
                               size_t vertices_size, const uint8_t* triangles,
                               size_t triangles_size, const uint8_t* triangle_areas,
                               size_t triangle_areas_size, uint32_t area_count) {
    if (Error e = validateGeometrySizes(h, vertices_size, triangles_size, triangle_areas_size))
        return e;
    if (Error e = validateGeometryVertices(h, vertices)) return e;
    return validateGeometryTriangles(h, 0, h.triangle_count, triangles, triangle_areas, area_count);
}

Error validateVoxelSectionSizes(const VoxelHeader& h, uint64_t columns_size, uint64_t spans_size) {
    const uint64_t column_count = uint64_t(h.size_x) * h.size_z;
    if (columns_size != (column_count + 1) * 4)
        return makeError(ErrorCode::bad_section, 0, kSecColumns,
                         "section 'COLS' is %llu bytes, expected %llu for %llu columns",
                         static_cast<unsigned long long>(columns_size),
                         static_cast<unsigned long long>((column_count + 1) * 4),
                         static_cast<unsigned long long>(column_count));
    if (spans_size != uint64_t(h.span_count) * kSpanRecordSize)
        return makeError(ErrorCode::bad_section, 0, kSecSpans,
                         "section 'SPAN' is %llu bytes, expected %llu for %u spans",
                         static_cast<unsigned long long>(spans_size),
                         static_cast<unsigned long long>(uint64_t(h.span_count) * kSpanRecordSize),
                         h.span_count);
    return {};
}

Error validateVoxelColumnRange(const VoxelHeader& h, const uint8_t* offsets, uint64_t c0,
                               uint64_t c1) {
    if (c0 == 0 && loadLe32(offsets) != 0)
        return makeError(ErrorCode::bad_section, 0, kSecColumns,
                         "section 'COLS': first column does not start at span 0");
    for (uint64_t c = c0; c < c1; ++c) {
        const uint32_t begin = loadLe32(offsets + 4 * (c - c0));
        const uint32_t end = loadLe32(offsets + 4 * (c + 1 - c0));
        if (end < begin || end > h.span_count)
            return makeError(ErrorCode::bad_section, 4 * (c + 1), kSecColumns,
                             "section 'COLS': column %llu span range %u..%u is invalid (%u spans)",
                             static_cast<unsigned long long>(c), begin, end, h.span_count);
    }
    const uint64_t column_count = uint64_t(h.size_x) * h.size_z;
    if (c1 == column_count && loadLe32(offsets + 4 * (c1 - c0)) != h.span_count)
        return makeError(ErrorCode::bad_section, 4 * column_count, kSecColumns,
                         "section 'COLS': last offset is not the span count %u", h.span_count);
    return {};
}

Error validateVoxelColumnOffsets(const VoxelHeader& h, const uint8_t* columns, size_t columns_size,
                                 uint64_t spans_size) {
    if (Error e = validateVoxelSectionSizes(h, columns_size, spans_size)) return e;
    return validateVoxelColumnRange(h, columns, 0, uint64_t(h.size_x) * h.size_z);
}

Error validateVoxelSpans(const VoxelHeader& h, const uint8_t* columns, uint64_t column_begin,
                         uint64_t column_end, const uint8_t* spans, uint32_t area_count,
                         uint32_t& walkable) {
    const uint32_t first = loadLe32(columns + 4 * column_begin);
    for (uint64_t c = column_begin; c < column_end; ++c) {
        const uint32_t begin = loadLe32(columns + 4 * c);
        const uint32_t end = loadLe32(columns + 4 * (c + 1));
        uint32_t previous_top = 0;
        for (uint32_t s = begin; s < end; ++s) {
            const uint8_t* p = spans + size_t(s - first) * kSpanRecordSize;
            const SpanRecord span = decodeSpan(p);
            const uint64_t offset = uint64_t(s) * kSpanRecordSize;
            if (span.y_min >= span.y_max || span.y_max > h.size_y)
                return makeError(ErrorCode::bad_section, offset, kSecSpans,
                                 "section 'SPAN': span %u has y range %u..%u outside 0..%u", s,
                                 span.y_min, span.y_max, h.size_y);
            if (s > begin && span.y_min <= previous_top)
                return makeError(ErrorCode::bad_section, offset, kSecSpans,
                                 "section 'SPAN': span %u overlaps or touches the span below it",
                                 s);
            if (span.area >= area_count)
                return makeError(ErrorCode::bad_section, offset + 4, kSecSpans,
                                 "section 'SPAN': span %u has area %u, but only %u areas exist", s,
                                 span.area, area_count);
            if ((span.flags & ~kSpanFlagWalkable) != 0 || p[6] != 0 || p[7] != 0)
                return makeError(ErrorCode::bad_section, offset + 5, kSecSpans,
                                 "section 'SPAN': span %u has unknown flags or reserved bytes set",
                                 s);
            if (span.flags & kSpanFlagWalkable) ++walkable;
            previous_top = span.y_max;
        }
    }
    return {};
}

Error validateVoxelWalkableCount(const VoxelHeader& h, uint32_t walkable) {
    if (walkable != h.walkable_count)
        return makeError(ErrorCode::bad_section, 0, kSecSpans,
                         "section 'SPAN': %u walkable spans but header says %u", walkable,
                         h.walkable_count);
    return {};
}

Error validateVoxelSections(const VoxelHeader& h, const uint8_t* columns, size_t columns_size,
                            const uint8_t* spans, size_t spans_size, uint32_t area_count) {
    if (Error e = validateVoxelColumnOffsets(h, columns, columns_size, spans_size)) return e;
    uint32_t walkable = 0;
    if (Error e = validateVoxelSpans(h, columns, 0, uint64_t(h.size_x) * h.size_z, spans,
                                     area_count, walkable))
        return e;
    return validateVoxelWalkableCount(h, walkable);
}

void encodeGraphHeader(const GraphHeader& h, uint8_t out[kGraphHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeGraphHeader(const uint8_t* data, size_t size, GraphHeader& h) {
    constexpr uint32_t id = kSecGraphHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    const uint32_t type = uint32_t(h.type);
    if (type < 1 || type > uint32_t(GraphType::dirichlet))
        return makeError(ErrorCode::bad_section, 0, id, "section 'GRHD': unknown graph type %u",
                         type);
    const uint32_t heuristic = uint32_t(h.heuristic);
    if (heuristic < 1 || heuristic > 2)
        return makeError(ErrorCode::bad_section, 20, id, "section 'GRHD': unknown heuristic %u",
                         heuristic);
    if ((h.flags & ~kGraphFlagImplicitVolume) != 0)
        return makeError(ErrorCode::bad_section, 76, id, "section 'GRHD': unknown flags %08x",
                         h.flags);
    // Volume graphs are implicit (free-voxel bits, no edge lists), and only they are.
    if (((h.flags & kGraphFlagImplicitVolume) != 0) != (h.type == GraphType::volume))
        return makeError(ErrorCode::bad_section, 76, id,
                         "section 'GRHD': the implicit-volume flag (bit 0) must be set exactly "
                         "for volume graphs (graph type %u, flags %08x)",
                         type, h.flags);
    if (!(h.min_cost_multiplier > 0) || !std::isfinite(h.min_cost_multiplier))
        return makeError(ErrorCode::bad_section, 24, id,
                         "section 'GRHD': minimum cost multiplier must be positive");
    if (h.size_x == 0 || h.size_z == 0 || uint64_t(h.size_x) * h.size_z > kMaxGridColumns ||
        h.size_y == 0 || h.size_y > kMaxGridHeight)
        return makeError(ErrorCode::bad_section, 28, id,
                         "section 'GRHD': grid %u x %u x %u is empty or too large", h.size_x,
                         h.size_z, h.size_y);
    if (!(h.cell_size > 0) || !std::isfinite(h.cell_size) || !(h.cell_height > 0) ||
        !std::isfinite(h.cell_height))
        return makeError(ErrorCode::bad_section, 52, id,
                         "section 'GRHD': cell size and height must be positive and finite");
    for (int i = 0; i < 3; ++i)
        if (!std::isfinite(h.origin[i]))
            return makeError(ErrorCode::bad_section, 40, id, "section 'GRHD': origin not finite");
    if (h.component_count > h.node_count || h.largest_component > h.node_count)
        return makeError(ErrorCode::bad_section, 12, id,
                         "section 'GRHD': component counts exceed the node count");
    return {};
}

void encodeMeshIndexHeader(const MeshIndexHeader& h, uint8_t out[kMeshIndexHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeMeshIndexHeader(const uint8_t* data, size_t size, MeshIndexHeader& h) {
    constexpr uint32_t id = kSecMeshIndexHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    if (h.cells_x == 0 || h.cells_z == 0 || uint64_t(h.cells_x) * h.cells_z > kMaxGridColumns)
        return makeError(ErrorCode::bad_section, 0, id, "section 'MGHD': index of %u x %u cells",
                         h.cells_x, h.cells_z);
    if (!std::isfinite(h.min_x) || !std::isfinite(h.min_z) || !(h.cell > 0) ||
        !std::isfinite(h.cell))
        return makeError(ErrorCode::bad_section, 8, id, "section 'MGHD': bad origin or cell size");
    return {};
}

void encodePovStats(const PovStats& s, uint8_t out[kPovStatsSize]) { encodeHeader(s, out); }

const char* linkTypeName(LinkType type) {
    switch (type) {
        case LinkType::drop: return "drop";
        case LinkType::jump: return "jump";
        case LinkType::climb: return "climb";
        case LinkType::ladder: return "ladder";
        case LinkType::door: return "door";
        case LinkType::teleport: return "teleport";
        case LinkType::custom: return "custom";
    }
    return nullptr;
}

bool validLinkTypeName(const char* name, size_t size) {
    if (size == 0 || size >= kLinkTypeNameSize) return false;
    for (size_t i = 0; i < size; ++i) {
        const char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    for (uint32_t t = 1; t <= kLinkTypeCount; ++t) {
        const char* builtin = linkTypeName(LinkType(t));
        size_t n = 0;
        while (builtin[n] != 0) ++n;
        if (n == size && std::memcmp(builtin, name, size) == 0) return false;
    }
    return true;
}

void encodeLinkRecord(const LinkRecord& link, uint8_t out[kLinkRecordSize]) {
    encodeHeader(link, out);
}

Error decodeLinkRecord(const uint8_t* data, size_t size, LinkRecord& l) {
    constexpr uint32_t id = kSecLinks;
    if (Error e = decodeHeader(data, size, l)) return e;
    if (linkTypeName(l.type) == nullptr && !isUserLinkType(l.type))
        return makeError(ErrorCode::bad_section, 48, id, "link %u: unknown type %u", l.id,
                         uint32_t(l.type));
    if ((l.flags & ~kLinkFlagsKnown) != 0)
        return makeError(ErrorCode::bad_section, 52, id, "link %u: unknown flags 0x%x", l.id,
                         l.flags);
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(l.from[k]) || !std::isfinite(l.to[k]))
            return makeError(ErrorCode::bad_section, 16, id, "link %u: an end is not finite", l.id);
    if (!(std::isfinite(l.cost) && l.cost > 0))
        return makeError(ErrorCode::bad_section, 40, id, "link %u: cost %g is not > 0", l.id,
                         double(l.cost));
    const bool both = (l.flags & kLinkFlagBidirectional) != 0;
    if (both ? !(std::isfinite(l.reverse_cost) && l.reverse_cost > 0) : l.reverse_cost != 0)
        return makeError(ErrorCode::bad_section, 44, id,
                         both ? "link %u: reverse cost %g is not > 0"
                              : "link %u: reverse cost %g on a one-way link (must be 0)",
                         l.id, double(l.reverse_cost));
    return {};
}

Error decodePovStats(const uint8_t* data, size_t size, PovStats& s) {
    constexpr uint32_t id = kSecPovStats;
    if (Error e = decodeHeader(data, size, s)) return e;
    if (s.any_direction_corners > s.corner_count)
        return makeError(ErrorCode::bad_section, 12, id,
                         "section 'PSTA': %u any-direction corners but %u corners",
                         s.any_direction_corners, s.corner_count);
    if (s.layer_component_count > s.layer_cell_count)
        return makeError(ErrorCode::bad_section, 8, id,
                         "section 'PSTA': %u layer components but %u layer cells",
                         s.layer_component_count, s.layer_cell_count);
    if (s.taut_edges > s.visibility_edges)
        return makeError(ErrorCode::bad_section, 24, id,
                         "section 'PSTA': more taut edges than visibility edges");
    return {};
}

void encodeClusterHeader(const ClusterHeader& h, uint8_t out[kClusterHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeClusterHeader(const uint8_t* data, size_t size, ClusterHeader& h) {
    constexpr uint32_t id = kSecClusterHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    const uint32_t method = uint32_t(h.method);
    if (method != uint32_t(ClusterMethod::grid) && method != uint32_t(ClusterMethod::regions) &&
        method != uint32_t(ClusterMethod::manual))
        return makeError(ErrorCode::bad_section, 0, id, "section 'CLHD': unknown method %u",
                         method);
    if ((h.flags & ~kClusterFlagSymmetric) != 0)
        return makeError(ErrorCode::bad_section, 48, id, "section 'CLHD': unknown flags %08x",
                         h.flags);
    if (h.cluster_count > kMaxClusters || h.cluster_count > h.node_count ||
        (h.node_count > 0 && h.cluster_count == 0))
        return makeError(ErrorCode::bad_section, 4, id,
                         "section 'CLHD': %u clusters for %u nodes (at most %u)", h.cluster_count,
                         h.node_count, kMaxClusters);
    if (!(h.scale > 0) || !std::isfinite(h.scale))
        return makeError(ErrorCode::bad_section, 24, id, "section 'CLHD': scale is not positive");
    if (h.min_cluster_nodes > h.max_cluster_nodes || h.max_cluster_nodes > h.node_count)
        return makeError(ErrorCode::bad_section, 28, id,
                         "section 'CLHD': cluster sizes %u..%u "
                         "are inconsistent",
                         h.min_cluster_nodes, h.max_cluster_nodes);
    return {};
}

void encodeHierarchyHeader(const HierarchyHeader& h, uint8_t out[kHierarchyHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeHierarchyHeader(const uint8_t* data, size_t size, HierarchyHeader& h) {
    constexpr uint32_t id = kSecHierHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    const uint32_t cost = uint32_t(h.default_cost), mode = uint32_t(h.entrance_mode);
    if (cost >= kHierCostCount)
        return makeError(ErrorCode::bad_section, 28, id, "section 'HRHD': unknown cost method %u",
                         cost);
    if (mode != uint32_t(EntranceMode::sparse) && mode != uint32_t(EntranceMode::all))
        return makeError(ErrorCode::bad_section, 32, id, "section 'HRHD': unknown entrance mode %u",
                         mode);
    if (h.level_count == 0 || h.level_count > kMaxHierLevels)
        return makeError(ErrorCode::bad_section, 0, id, "section 'HRHD': %u levels (1 to %u)",
                         h.level_count, kMaxHierLevels);
    if (h.cluster_count == 0 || h.cluster_count > kMaxClusters || h.cluster_count > h.node_count ||
        h.group_count < h.cluster_count)
        return makeError(ErrorCode::bad_section, 8, id,
                         "section 'HRHD': %u clusters, %u groups for %u nodes", h.cluster_count,
                         h.group_count, h.node_count);
    if (h.entrance_count > h.node_count)
        return makeError(ErrorCode::bad_section, 20, id,
                         "section 'HRHD': %u entrances for %u nodes", h.entrance_count,
                         h.node_count);
    return {};
}

const char* hierCostName(HierCost cost) {
    switch (cost) {
        case HierCost::min: return "min";
        case HierCost::maximin: return "maximin";
        case HierCost::avgmin: return "avgmin";
    }
    return "unknown";
}

void encodeNextHopHeader(const NextHopHeader& h, uint8_t out[kNextHopHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeNextHopHeader(const uint8_t* data, size_t size, NextHopHeader& h) {
    constexpr uint32_t id = kSecNextHopHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    if ((h.flags & ~(kNextHopFlagPartial | kNextHopFlagFewestRuns)) != 0)
        return makeError(ErrorCode::bad_section, 56, id, "section 'NHHD': unknown flags %08x",
                         h.flags);
    if (h.block_rows == 0 || h.block_rows > 4096 || (h.block_rows & (h.block_rows - 1)) != 0)
        return makeError(ErrorCode::bad_section, 8, id,
                         "section 'NHHD': %u rows per block (a power "
                         "of two up to 4096)",
                         h.block_rows);
    if (h.block_count != (uint64_t(h.node_count) + h.block_rows - 1) / h.block_rows)
        return makeError(ErrorCode::bad_section, 12, id, "section 'NHHD': %u blocks for %u nodes",
                         h.block_count, h.node_count);
    const bool partial = (h.flags & kNextHopFlagPartial) != 0;
    if (uint64_t(h.first_block) + h.stored_blocks > h.block_count ||
        (!partial && (h.first_block != 0 || h.stored_blocks != h.block_count ||
                      h.shard_index != 0 || h.shard_count != 0)) ||
        (partial && (h.shard_count == 0 || h.shard_index >= h.shard_count)))
        return makeError(ErrorCode::bad_section, 16, id,
                         "section 'NHHD': blocks %u + %u of %u, shard "
                         "%u/%u are inconsistent",
                         h.first_block, h.stored_blocks, h.block_count, h.shard_index,
                         h.shard_count);
    if (h.symbol_bytes != 1 && h.symbol_bytes != 2)
        return makeError(ErrorCode::bad_section, 32, id, "section 'NHHD': %u bytes per symbol",
                         h.symbol_bytes);
    if (h.cost_shift != kNextHopCostShift)
        return makeError(ErrorCode::bad_section, 36, id,
                         "section 'NHHD': cost shift %u, expected %u", h.cost_shift,
                         kNextHopCostShift);
    return {};
}

const uint32_t kHierHopSectionIds[kHopSectionCount] = {
    fourcc("HNCL"), fourcc("HNLI"), fourcc("HNMO"), fourcc("HNME"), fourcc("HNEO"),
    fourcc("HNEN"), fourcc("HNIO"), fourcc("HNIT"), fourcc("HNDO"), fourcc("HNDN"),
    fourcc("HNDE"), fourcc("HNXD"), fourcc("HNXN")};

void encodeHierNextHopHeader(const HierNextHopHeader& h, uint8_t out[kHierNextHopHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeHierNextHopHeader(const uint8_t* data, size_t size, HierNextHopHeader& h) {
    constexpr uint32_t id = kSecHierHopHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    if (h.symbol_bytes != 1 && h.symbol_bytes != 2)
        return makeError(ErrorCode::bad_section, 16, id, "section 'HNHD': %u bytes per symbol",
                         h.symbol_bytes);
    if (h.cluster_count == 0 || h.cluster_count > h.node_count || h.entrance_count > h.node_count)
        return makeError(ErrorCode::bad_section, 8, id,
                         "section 'HNHD': %u clusters, %u entrances "
                         "for %u nodes",
                         h.cluster_count, h.entrance_count, h.node_count);
    if (uint64_t(h.entrance_count) * h.entrance_count > (uint64_t(1) << 32))
        return makeError(ErrorCode::bad_section, 12, id,
                         "section 'HNHD': %u entrances are too many", h.entrance_count);
    return {};
}

const uint32_t kHierSectionIds[kHierSectionCount] = {
    kSecHierGroupCounts,         kSecHierParents,
    kSecHierRepresentatives,     kSecHierEdgeOffsets,
    kSecHierEdgeTargets,         kSecHierEdgeCosts,
    kSecHierMemberOffsets,       kSecHierMembers,
    kSecHierEntranceOffsets,     kSecHierEntrances,
    kSecHierEntranceEdgeOffsets, kSecHierEntranceEdgeTargets,
    kSecHierEntranceEdgeCosts};

namespace {

void hierName(HierSection s, char out[5]) {
    const uint32_t id = kHierSectionIds[s];
    for (int i = 0; i < 4; ++i) out[i] = char((id >> (8 * i)) & 0xFF);
    out[4] = 0;
}

Error hierSizeError(HierSection s, size_t size, uint64_t expected) {
    char name[5];
    hierName(s, name);
    return makeError(ErrorCode::bad_section, 0, kHierSectionIds[s],
                     "section '%s' is %zu bytes, expected %llu", name, size,
                     static_cast<unsigned long long>(expected));
}

// CSR offsets of a hierarchy section (formats::checkCsrOffsets).
Error checkOffsets(const HierarchyArrays& a, HierSection s, uint64_t count, uint64_t total) {
    return checkCsrOffsets(a.u32(s), count, total, kHierSectionIds[s]);
}

Error checkCosts(const HierarchyArrays& a, HierSection s, uint64_t count) {
    const float* costs = a.f32(s);
    char name[5];
    hierName(s, name);
    for (uint64_t i = 0; i < count; ++i)
        if (!(costs[i] >= 0) || !std::isfinite(costs[i]))
            return makeError(ErrorCode::bad_section, 4 * i, kHierSectionIds[s],
                             "section '%s': cost %llu is negative or not finite", name,
                             static_cast<unsigned long long>(i));
    return {};
}

// Nodes of cluster c listed in [offsets[c], offsets[c + 1]): ascending, in range, in cluster c.
Error checkNodeLists(const HierarchyArrays& a, HierSection offsets_section,
                     HierSection nodes_section, const uint32_t* node_clusters) {
    const HierarchyHeader& h = a.header;
    const uint32_t* offsets = a.u32(offsets_section);
    const uint32_t* nodes = a.u32(nodes_section);
    char name[5];
    hierName(nodes_section, name);
    for (uint32_t c = 0; c < h.cluster_count; ++c)
        for (uint32_t i = offsets[c]; i < offsets[c + 1]; ++i) {
            const uint32_t v = nodes[i];
            if (v >= h.node_count || node_clusters[v] != c || (i > offsets[c] && v <= nodes[i - 1]))
                return makeError(ErrorCode::bad_section, 4ull * i, kHierSectionIds[nodes_section],
                                 "section '%s': entry %u (node %u) is not an ascending node of "
                                 "cluster %u",
                                 name, i, v, c);
        }
    return {};
}

}  // namespace

Error checkHierarchy(HierarchyArrays& a, const uint32_t* node_clusters) {
    const HierarchyHeader& h = a.header;
    const uint64_t levels = h.level_count, groups = h.group_count, k = h.cluster_count;
    const uint64_t edges = h.abstract_edge_count, entrances = h.entrance_count;
    const uint64_t entrance_edges = h.entrance_edge_count, n = h.node_count;
    for (uint32_t s = 0; s < kHierSectionCount; ++s)
        if (a.data[s] == nullptr && a.size[s] > 0)
            return hierSizeError(HierSection(s), 0, a.size[s]);
    // Group counts: level 1 = clusters, every level non-empty and no larger than the one below.
    if (a.size[kHierGroupCounts] != 4 * levels)
        return hierSizeError(kHierGroupCounts, a.size[kHierGroupCounts], 4 * levels);
    const uint32_t* counts = a.u32(kHierGroupCounts);
    uint64_t total = 0;
    a.level_start[0] = 0;
    for (uint64_t l = 0; l < levels; ++l) {
        if (counts[l] == 0 || (l == 0 && counts[l] != k) || (l > 0 && counts[l] > counts[l - 1]))
            return makeError(ErrorCode::bad_section, 4 * l, kSecHierGroupCounts,
                             "section 'HGCT': level %llu has %u groups",
                             static_cast<unsigned long long>(l + 1), counts[l]);
        a.level_start[l + 1] = uint32_t(total);
        total += counts[l];
    }
    a.level_start[levels + 1] = uint32_t(total);
    if (total != groups)
        return makeError(ErrorCode::bad_section, 0, kSecHierGroupCounts,
                         "section 'HGCT' counts %llu groups, the header %u",
                         static_cast<unsigned long long>(total), h.group_count);
    const uint64_t with_parent = groups - counts[levels - 1];
    if (a.size[kHierParents] != 4 * with_parent)
        return hierSizeError(kHierParents, a.size[kHierParents], 4 * with_parent);
    const uint32_t* parents = a.u32(kHierParents);
    for (uint64_t l = 1; l < levels; ++l)
        for (uint32_t g = a.level_start[l]; g < a.level_start[l + 1]; ++g)
            if (parents[g] < a.level_start[l + 1] || parents[g] >= a.level_start[l + 2])
                return makeError(ErrorCode::bad_section, 4ull * g, kSecHierParents,
                                 "section 'HPAR': group %u of level %llu has parent %u outside "
                                 "level %llu",
                                 g, static_cast<unsigned long long>(l), parents[g],
                                 static_cast<unsigned long long>(l + 1));
    // Representatives: a node of the group itself (so every group holds a node).
    if (a.size[kHierRepresentatives] != 4 * groups)
        return hierSizeError(kHierRepresentatives, a.size[kHierRepresentatives], 4 * groups);
    const uint32_t* reps = a.u32(kHierRepresentatives);
    for (uint64_t l = 1; l <= levels; ++l)
        for (uint32_t g = a.level_start[l]; g < a.level_start[l + 1]; ++g) {
            bool inside = reps[g] < n;
            if (inside) {
                uint32_t group = node_clusters[reps[g]];
                for (uint64_t up = 1; up < l; ++up) group = parents[group];
                inside = group == g;
            }
            if (!inside)
                return makeError(ErrorCode::bad_section, 4ull * g, kSecHierRepresentatives,
                                 "section 'HREP': representative %u of group %u is not one of its "
                                 "nodes",
                                 reps[g], g);
        }
    // Abstract edges: CSR over all groups, targets in the same level, 3 costs each.
    if (a.size[kHierEdgeOffsets] != 4 * (groups + 1))
        return hierSizeError(kHierEdgeOffsets, a.size[kHierEdgeOffsets], 4 * (groups + 1));
    if (a.size[kHierEdgeTargets] != 4 * edges)
        return hierSizeError(kHierEdgeTargets, a.size[kHierEdgeTargets], 4 * edges);
    if (a.size[kHierEdgeCosts] != 12 * edges)
        return hierSizeError(kHierEdgeCosts, a.size[kHierEdgeCosts], 12 * edges);
    if (Error e = checkOffsets(a, kHierEdgeOffsets, groups, edges)) return e;
    const uint32_t* edge_offsets = a.u32(kHierEdgeOffsets);
    const uint32_t* targets = a.u32(kHierEdgeTargets);
    for (uint64_t l = 1; l <= levels; ++l)
        for (uint32_t g = a.level_start[l]; g < a.level_start[l + 1]; ++g)
            for (uint32_t e = edge_offsets[g]; e < edge_offsets[g + 1]; ++e)
                if (targets[e] < a.level_start[l] || targets[e] >= a.level_start[l + 1] ||
                    targets[e] == g)
                    return makeError(ErrorCode::bad_section, 4ull * e, kSecHierEdgeTargets,
                                     "section 'HADT': edge %u of group %u leads to group %u, not "
                                     "another group of its level",
                                     e, g, targets[e]);
    if (Error e = checkCosts(a, kHierEdgeCosts, 3 * edges)) return e;
    // Cluster members: every node once, ascending within its cluster.
    if (a.size[kHierMemberOffsets] != 4 * (k + 1))
        return hierSizeError(kHierMemberOffsets, a.size[kHierMemberOffsets], 4 * (k + 1));
    if (a.size[kHierMembers] != 4 * n)
        return hierSizeError(kHierMembers, a.size[kHierMembers], 4 * n);
    if (Error e = checkOffsets(a, kHierMemberOffsets, k, n)) return e;
    if (Error e = checkNodeLists(a, kHierMemberOffsets, kHierMembers, node_clusters)) return e;
    // Entrances: nodes of their cluster, ascending; entrance edges between entrances.
    if (a.size[kHierEntranceOffsets] != 4 * (k + 1))
        return hierSizeError(kHierEntranceOffsets, a.size[kHierEntranceOffsets], 4 * (k + 1));
    if (a.size[kHierEntrances] != 4 * entrances)
        return hierSizeError(kHierEntrances, a.size[kHierEntrances], 4 * entrances);
    if (Error e = checkOffsets(a, kHierEntranceOffsets, k, entrances)) return e;
    if (Error e = checkNodeLists(a, kHierEntranceOffsets, kHierEntrances, node_clusters)) return e;
    if (a.size[kHierEntranceEdgeOffsets] != 4 * (entrances + 1))
        return hierSizeError(kHierEntranceEdgeOffsets, a.size[kHierEntranceEdgeOffsets],
                             4 * (entrances + 1));
    if (a.size[kHierEntranceEdgeTargets] != 4 * entrance_edges)
        return hierSizeError(kHierEntranceEdgeTargets, a.size[kHierEntranceEdgeTargets],
                             4 * entrance_edges);
    if (a.size[kHierEntranceEdgeCosts] != 4 * entrance_edges)
        return hierSizeError(kHierEntranceEdgeCosts, a.size[kHierEntranceEdgeCosts],
                             4 * entrance_edges);
    if (Error e = checkOffsets(a, kHierEntranceEdgeOffsets, entrances, entrance_edges)) return e;
    const uint32_t* entrance_targets = a.u32(kHierEntranceEdgeTargets);
    for (uint64_t e = 0; e < entrance_edges; ++e)
        if (entrance_targets[e] >= entrances)
            return makeError(ErrorCode::bad_section, 4 * e, kSecHierEntranceEdgeTargets,
                             "section 'HXDT': edge %llu leads to entrance %u of %llu",
                             static_cast<unsigned long long>(e), entrance_targets[e],
                             static_cast<unsigned long long>(entrances));
    return checkCosts(a, kHierEntranceEdgeCosts, entrance_edges);
}

Error checkHierarchyTables(HierarchyArrays& a, const uint8_t* local_bytes, size_t local_size,
                           const uint8_t* offset_bytes, size_t offsets_size,
                           const uint8_t* distance_bytes, size_t distances_size) {
    const HierarchyHeader& h = a.header;
    const uint64_t n = h.node_count, k = h.cluster_count;
    auto sizeError = [](uint32_t id, const char* name, size_t size, uint64_t expected) {
        return makeError(ErrorCode::bad_section, 0, id, "section '%s' is %zu bytes, expected %llu",
                         name, size, static_cast<unsigned long long>(expected));
    };
    if (local_size != 4 * n) return sizeError(kSecHierTableLocal, "HTLI", local_size, 4 * n);
    if (offsets_size != 8 * (k + 1))
        return sizeError(kSecHierTableOffsets, "HTOF", offsets_size, 8 * (k + 1));
    const auto* local = reinterpret_cast<const uint32_t*>(local_bytes);
    const auto* offsets = reinterpret_cast<const uint64_t*>(offset_bytes);
    const uint32_t* mo = a.u32(kHierMemberOffsets);
    const uint32_t* members = a.u32(kHierMembers);
    const uint32_t* eo = a.u32(kHierEntranceOffsets);
    if (offsets[0] != 0)
        return makeError(ErrorCode::bad_section, 0, kSecHierTableOffsets,
                         "section 'HTOF': the first offset is %llu, not 0",
                         static_cast<unsigned long long>(offsets[0]));
    for (uint64_t c = 0; c < k; ++c) {
        const uint64_t entries = uint64_t(mo[c + 1] - mo[c]) * (eo[c + 1] - eo[c]);
        if (offsets[c + 1] < offsets[c] || offsets[c + 1] - offsets[c] != entries)
            return makeError(ErrorCode::bad_section, 8 * (c + 1), kSecHierTableOffsets,
                             "section 'HTOF': cluster %llu's table is not its %llu members x "
                             "entrances entries",
                             static_cast<unsigned long long>(c),
                             static_cast<unsigned long long>(entries));
        for (uint32_t i = mo[c]; i < mo[c + 1]; ++i)
            if (local[members[i]] != i - mo[c])
                return makeError(ErrorCode::bad_section, 4ull * members[i], kSecHierTableLocal,
                                 "section 'HTLI': node %u has local index %u, its place in its "
                                 "cluster's members is %u",
                                 members[i], local[members[i]], i - mo[c]);
    }
    if (offsets[k] > (uint64_t(1) << 60) || distances_size != 4 * offsets[k])
        return sizeError(kSecHierTableDistances, "HTDN", distances_size, 4 * offsets[k]);
    const auto* distances = reinterpret_cast<const float*>(distance_bytes);
    for (uint64_t i = 0; i < offsets[k]; ++i)
        if (!(distances[i] >= 0))
            return makeError(ErrorCode::bad_section, 4 * i, kSecHierTableDistances,
                             "section 'HTDN': distance %llu is negative or not a number",
                             static_cast<unsigned long long>(i));
    a.table_local = local;
    a.table_offsets = offsets;
    a.table = distances;
    return {};
}

uint64_t graphFingerprint(const uint8_t* header, size_t header_size, const uint8_t* offsets,
                          size_t offsets_size, const uint8_t* targets, size_t targets_size,
                          const uint8_t* costs, size_t costs_size) {
    static const uint8_t kEmpty[1] = {0};
    auto bytes = [](const uint8_t* p) { return p != nullptr ? p : kEmpty; };
    uint64_t h = xxhash64(bytes(header), header_size, 0);
    h = xxhash64(bytes(offsets), offsets_size, h);
    h = xxhash64(bytes(targets), targets_size, h);
    return xxhash64(bytes(costs), costs_size, h);
}

void encodeWorldTileHeader(const WorldTileHeader& h, uint8_t out[kWorldTileHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeWorldTileHeader(const uint8_t* data, size_t size, WorldTileHeader& h) {
    constexpr uint32_t id = kSecWorldTileHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    if (h.tiles_x == 0 || h.tiles_z == 0 || h.tile_x >= h.tiles_x || h.tile_z >= h.tiles_z ||
        h.tile_cells == 0 || uint64_t(h.world_size_x) * h.world_size_z > kMaxGridColumns ||
        uint64_t(h.tile_x) * h.tile_cells != h.x0 || uint64_t(h.tile_z) * h.tile_cells != h.z0 ||
        h.x0 >= h.world_size_x || h.z0 >= h.world_size_z)
        return makeError(ErrorCode::bad_section, 0, id,
                         "section 'WTHD': tile (%u, %u) of %u x %u tiles of %u cells does not lie "
                         "in a %u x %u world",
                         h.tile_x, h.tile_z, h.tiles_x, h.tiles_z, h.tile_cells, h.world_size_x,
                         h.world_size_z);
    return {};
}

void encodeSeam(const SeamRecord& seam, uint8_t out[kSeamRecordSize]) {
    storeLe32(out, seam.from);
    storeLe32(out + 4, seam.column);
    storeLe32(out + 8, uint32_t(seam.y));
    uint32_t bits;
    std::memcpy(&bits, &seam.cost, 4);
    storeLe32(out + 12, bits);
}

void encodeBorderEdge(const BorderEdgeRecord& e, uint8_t out[kBorderEdgeRecordSize]) {
    const uint32_t v[7] = {e.poly,         e.edge,         e.side,        uint32_t(e.a0),
                           uint32_t(e.a1), uint32_t(e.y0), uint32_t(e.y1)};
    for (int i = 0; i < 7; ++i) storeLe32(out + 4 * i, v[i]);
}

BorderEdgeRecord decodeBorderEdge(const uint8_t* data) {
    BorderEdgeRecord e;
    e.poly = loadLe32(data);
    e.edge = loadLe32(data + 4);
    e.side = loadLe32(data + 8);
    e.a0 = int32_t(loadLe32(data + 12));
    e.a1 = int32_t(loadLe32(data + 16));
    e.y0 = int32_t(loadLe32(data + 20));
    e.y1 = int32_t(loadLe32(data + 24));
    return e;
}

int32_t borderEdgeMismatch(const BorderEdgeRecord& from, const BorderEdgeRecord& to) {
    if (to.side != ((from.side + 2) & 3) || to.a0 != from.a1 || to.a1 != from.a0) return -1;
    const int64_t d0 = std::abs(int64_t(to.y0) - from.y1), d1 = std::abs(int64_t(to.y1) - from.y0);
    if (d0 > kBorderEdgeWeld || d1 > kBorderEdgeWeld) return -1;
    return int32_t(d0 + d1);
}

SeamRecord decodeSeam(const uint8_t* data) {
    SeamRecord seam;
    seam.from = loadLe32(data);
    seam.column = loadLe32(data + 4);
    seam.y = int32_t(loadLe32(data + 8));
    const uint32_t bits = loadLe32(data + 12);
    std::memcpy(&seam.cost, &bits, 4);
    return seam;
}

void encodeWorldHeader(const WorldHeader& h, uint8_t out[kWorldHeaderSize]) {
    encodeHeader(h, out);
}

Error decodeWorldHeader(const uint8_t* data, size_t size, WorldHeader& h) {
    constexpr uint32_t id = kSecWorldHeader;
    if (Error e = decodeHeader(data, size, h)) return e;
    if (h.tiles_x == 0 || h.tiles_z == 0 || h.tile_cells == 0 ||
        uint64_t(h.tiles_x) * h.tiles_z > kMaxGridColumns ||
        uint64_t(h.world_size_x) * h.world_size_z > kMaxGridColumns ||
        uint64_t(h.tiles_x) * h.tile_cells < h.world_size_x ||
        uint64_t(h.tiles_z) * h.tile_cells < h.world_size_z ||
        h.tile_count > uint64_t(h.tiles_x) * h.tiles_z || !(h.cell_size > 0) ||
        !std::isfinite(h.cell_size) || !(h.cell_height > 0) || !std::isfinite(h.cell_height) ||
        !std::isfinite(h.origin[0]) || !std::isfinite(h.origin[1]) || !std::isfinite(h.origin[2]) ||
        (h.graph_type != 0 && h.graph_type != uint32_t(GraphType::navmesh) &&
         h.graph_type != uint32_t(GraphType::volume) && h.graph_type != uint32_t(GraphType::pov) &&
         h.graph_type != uint32_t(GraphType::dirichlet)))
        return makeError(ErrorCode::bad_section, 0, id,
                         "section 'WIHD': %u x %u tiles of %u cells do not cover a %u x %u world, "
                         "or the cell sizes or origin are not finite and positive, or the graph "
                         "type is not 0 (tile), 2 (volume), 3 (POV), 4 (navmesh) or 5 "
                         "(Dirichlet)",
                         h.tiles_x, h.tiles_z, h.tile_cells, h.world_size_x, h.world_size_z);
    return {};
}

}  // namespace nav::formats
