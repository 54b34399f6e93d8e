#include <algorithm>
#include <cstring>

#include "formats/bytes.h"
#include "formats/graph_sections.h"
#include "lib/common/memory.h"
#include "lib/graph/graph.h"

namespace nav::graph {
namespace {

using formats::arrayBytes;
using G = formats::GraphSection;

// The decoded bytes of every graph-family section a container holds, with the spans the shared
// validators of formats/graph_sections.h (the same navrt runs) read.
struct GraphSectionBytes {
    std::vector<uint8_t> bytes[formats::kGraphSectionCount];
    formats::GraphSections spans;
};

Status readGraphSections(const LoadedContainer& c, GraphSectionBytes& out) {
    for (uint32_t i = 0; i < formats::kGraphSectionCount; ++i) {
        if (!c.has(formats::kGraphSectionIds[i])) continue;
        auto bytes = c.section(formats::kGraphSectionIds[i]);
        if (!bytes) return bytes.error();
        out.bytes[i] = std::move(bytes).value();
        out.spans.spans[i] = {out.bytes[i].data(), out.bytes[i].size(), true};
    }
    return {};
}

// Moves the (validated) bytes of `part` into `out` as an array of T; frees them.
template <class T>
void take(GraphSectionBytes& s, G part, std::vector<T>& out) {
    std::vector<uint8_t>& bytes = s.bytes[uint32_t(part)];
    out.resize(bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    std::vector<uint8_t>().swap(bytes);
}

// The records of a validated NCEL / LCEL section.
std::vector<formats::NodeCell> takeCells(GraphSectionBytes& s, G part) {
    std::vector<uint8_t>& bytes = s.bytes[uint32_t(part)];
    std::vector<formats::NodeCell> cells(bytes.size() / formats::kNodeCellSize);
    for (size_t i = 0; i < cells.size(); ++i)
        cells[i] = formats::decodeNodeCell(bytes.data() + i * formats::kNodeCellSize);
    std::vector<uint8_t>().swap(bytes);
    return cells;
}

// The navmesh of a navmesh graph with `polys` polygons from its validated sections.
void takeMeshSections(GraphSectionBytes& s, size_t polys, Graph& g) {
    navmesh::NavMesh& m = g.mesh;
    take(s, G::mesh_vertices, m.vertices);
    take(s, G::poly_offsets, m.poly_offsets);
    take(s, G::poly_vertices, m.poly_vertices);
    take(s, G::poly_neighbours, m.poly_neighbours);
    take(s, G::poly_areas, m.poly_areas);
    std::vector<uint32_t> info;
    take(s, G::poly_info, info);
    take(s, G::detail_offsets, m.detail_offsets);
    take(s, G::detail_triangles, m.detail_triangles);
    take(s, G::mesh_index_offsets, g.index_offsets);
    take(s, G::mesh_index_polys, g.index_polys);
    m.poly_regions.resize(polys);
    m.poly_tiles.resize(polys);
    for (size_t p = 0; p < polys; ++p) {
        m.poly_regions[p] = info[2 * p];
        m.poly_tiles[p] = info[2 * p + 1];
        m.max_verts_per_poly =
            std::max(m.max_verts_per_poly, int(m.poly_offsets[p + 1] - m.poly_offsets[p]));
    }
    m.areas = g.areas;
    m.region_count = g.mesh_index.region_count;
    m.tiles_x = g.mesh_index.tiles_x;
    m.tiles_z = g.mesh_index.tiles_z;
}

// The corners and the layer grid of a POV graph from its validated sections.
void takePovSections(GraphSectionBytes& s, Graph& g) {
    g.layer_cells = takeCells(s, G::layer_cells);
    take(s, G::layer_columns, g.layer_columns);
    take(s, G::layer_neighbours, g.layer_neighbours);
    take(s, G::layer_components, g.layer_components);
    std::vector<uint8_t>& corners = s.bytes[uint32_t(G::pov_corners)];
    g.corners.resize(corners.size() / formats::kPovCornerSize);
    for (size_t i = 0; i < g.corners.size(); ++i)
        g.corners[i] = formats::decodePovCorner(corners.data() + i * formats::kPovCornerSize);
    std::vector<uint8_t>().swap(corners);
}

}  // namespace

formats::GraphHeader headerForGrid(const voxel::VoxelGrid& grid, GraphType type) {
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
    const std::vector<uint8_t> offsets =
        implicit_volume ? std::vector<uint8_t>() : arrayBytes(g.edge_offsets);
    const std::vector<uint8_t> targets = arrayBytes(relativeTargets(g));
    const std::vector<uint8_t> costs = arrayBytes(g.edge_costs);
    return formats::graphFingerprint(header, sizeof header, offsets.data(), offsets.size(),
                                     targets.data(), targets.size(), costs.data(), costs.size());
}

Status saveGraph(const std::filesystem::path& path, const Graph& g, uint32_t kind) {
    return saveContainer(path, graphWriter(g, kind));
}

namespace {
constexpr int kLinkSectionLevel = 3;  // zstd level of the link sections of .graph files
}  // namespace

std::vector<uint8_t> encodeLinkRecords(const std::vector<formats::LinkRecord>& links) {
    std::vector<uint8_t> bytes(links.size() * formats::kLinkRecordSize);
    for (size_t i = 0; i < links.size(); ++i)
        formats::encodeLinkRecord(links[i], bytes.data() + i * formats::kLinkRecordSize);
    return bytes;
}

std::vector<uint8_t> encodeLinkTypeNames(const std::vector<std::string>& names) {
    std::vector<uint8_t> bytes(names.size() * formats::kLinkTypeNameSize, 0);
    for (size_t k = 0; k < names.size(); ++k)
        std::copy(names[k].begin(), names[k].end(),
                  bytes.begin() + ptrdiff_t(k * formats::kLinkTypeNameSize));
    return bytes;
}

formats::ContainerWriter graphWriter(const Graph& g, uint32_t kind, int level) {
    const formats::GraphHeader header = savedHeader(g);
    std::vector<uint8_t> header_bytes(formats::kGraphHeaderSize);
    formats::encodeGraphHeader(header, header_bytes.data());
    std::vector<uint8_t> cells(g.cells.size() * formats::kNodeCellSize);
    for (size_t i = 0; i < g.cells.size(); ++i)
        formats::encodeNodeCell(g.cells[i], cells.data() + i * formats::kNodeCellSize);

    // v1 for graphs without links (the layout before links existed, byte-identical), v2 with them.
    const uint32_t version = g.links.empty() ? 1
                                             : (kind == formats::kKindNav ? formats::kNavVersion
                                                                          : formats::kGraphVersion);
    formats::ContainerWriter writer(kind, version);
    if (kind == formats::kKindNav) writer.setCompressionLevel(19);
    // The .graph is an intermediate artifact (the .nav packed from it is compressed at 19), so it
    // is written at zstd level 3 like the .geo and .vox: the navmesh stage 5-15% faster on the
    // large levels than at the default 9 (whose match tables, capped at 2^18 entries, were once
    // the stage's peak), for files 9-13% larger.
    if (kind == formats::kKindGraph) writer.setCompressionLevel(3);
    if (level > 0) writer.setCompressionLevel(level);
    writer.add(formats::kSecGraphHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, geometry::encodeAreaTable(g.areas), formats::Codec::raw);
    const bool implicit_volume = (header.flags & formats::kGraphFlagImplicitVolume) != 0;
    if (!implicit_volume) {
        writer.add(formats::kSecNodePositions, formats::byteView(g.positions));
        // Tile graphs always carry NCEL (readers require it), even with no nodes.
        if (!g.cells.empty() || header.type == GraphType::tile)
            writer.add(formats::kSecNodeCells, std::move(cells));
    }
    if (!g.column_nodes.empty())
        writer.add(formats::kSecColumnNodes, arrayBytes(g.column_nodes),
                   formats::Codec::zstd_delta32);
    if (!implicit_volume) {
        writer.add(formats::kSecEdgeOffsets, arrayBytes(g.edge_offsets),
                   formats::Codec::zstd_delta32);
        // Targets are stored relative to their source node (wrapping u32 difference): neighbours
        // of grid cells sit at a few fixed offsets, which compress far better than node ids.
        writer.add(formats::kSecEdgeTargets, arrayBytes(relativeTargets(g)));
        writer.add(formats::kSecEdgeCosts, formats::byteView(g.edge_costs));
    } else {
        writer.add(formats::kSecFreeVoxels, formats::byteView(g.free_voxels));
    }
    // (Viewed in place: a volume tile's component per voxel is its largest array.)
    writer.add(formats::kSecComponents, formats::byteView(g.components));
    if (!g.links.empty()) {
        std::vector<uint8_t> links = encodeLinkRecords(g.links);
        // Lanes of one wide link repeat most of their record: zstd's fast levels find that as
        // well as level 9 (measured: 721 KB of records to 75 KB at level 3, 78 KB at 9) in a
        // sixth of the time. Runtime assets (.nav) keep the writer's level.
        const int links_level = kind == formats::kKindNav ? 0 : kLinkSectionLevel;
        writer.add(formats::kSecLinks, std::move(links), formats::Codec::zstd, links_level);
        if (!implicit_volume)
            writer.add(formats::kSecEdgeLinks, arrayBytes(g.edge_links), formats::Codec::zstd,
                       links_level);
        if (!g.link_type_names.empty())
            writer.add(formats::kSecLinkTypes, encodeLinkTypeNames(g.link_type_names),
                       formats::Codec::raw);
    }
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
        writer.add(formats::kSecPolyOffsets, arrayBytes(m.poly_offsets),
                   formats::Codec::zstd_delta32);
        writer.add(formats::kSecPolyVertices, arrayBytes(m.poly_vertices));
        writer.add(formats::kSecPolyNeighbours, arrayBytes(m.poly_neighbours));
        writer.add(formats::kSecPolyAreas, arrayBytes(m.poly_areas));
        writer.add(formats::kSecPolyInfo, info_writer.take());
        writer.add(formats::kSecDetailOffsets, arrayBytes(m.detail_offsets),
                   formats::Codec::zstd_delta32);
        writer.add(formats::kSecDetailTriangles, arrayBytes(m.detail_triangles));
        writer.add(formats::kSecMeshIndexHeader, std::move(index_header), formats::Codec::raw);
        writer.add(formats::kSecMeshIndexOffsets, arrayBytes(g.index_offsets),
                   formats::Codec::zstd_delta32);
        writer.add(formats::kSecMeshIndexPolys, arrayBytes(g.index_polys));
    }
    if (header.type == GraphType::pov) {
        std::vector<uint8_t> corners(g.corners.size() * formats::kPovCornerSize);
        for (size_t i = 0; i < g.corners.size(); ++i)
            formats::encodePovCorner(g.corners[i], corners.data() + i * formats::kPovCornerSize);
        std::vector<uint8_t> layer_cells(g.layer_cells.size() * formats::kNodeCellSize);
        for (size_t i = 0; i < g.layer_cells.size(); ++i)
            formats::encodeNodeCell(g.layer_cells[i],
                                    layer_cells.data() + i * formats::kNodeCellSize);
        std::vector<uint8_t> stats(formats::kPovStatsSize);
        formats::encodePovStats(g.pov_stats, stats.data());
        writer.add(formats::kSecPovCorners, std::move(corners));
        writer.add(formats::kSecLayerCells, std::move(layer_cells));
        writer.add(formats::kSecLayerColumns, arrayBytes(g.layer_columns),
                   formats::Codec::zstd_delta32);
        // Four planes (+X, -X, +Z, -Z) of absolute cell ids: along a plane the ids mostly step by
        // one, so delta coding leaves long runs of equal values.
        writer.add(formats::kSecLayerNeighbours, arrayBytes(g.layer_neighbours),
                   formats::Codec::zstd_delta32);
        writer.add(formats::kSecLayerComponents, arrayBytes(g.layer_components));
        writer.add(formats::kSecPovStats, std::move(stats), formats::Codec::raw);
    }
    if (header.type == GraphType::dirichlet) {
        std::vector<uint8_t> layer_cells(g.layer_cells.size() * formats::kNodeCellSize);
        for (size_t i = 0; i < g.layer_cells.size(); ++i)
            formats::encodeNodeCell(g.layer_cells[i],
                                    layer_cells.data() + i * formats::kNodeCellSize);
        writer.add(formats::kSecLayerCells, std::move(layer_cells));
        writer.add(formats::kSecLayerColumns, arrayBytes(g.layer_columns),
                   formats::Codec::zstd_delta32);
        writer.add(formats::kSecDomainOwners, arrayBytes(g.domain_owners));
    }
    if (!g.poi_kinds.empty()) {
        std::vector<uint8_t> names(g.poi_kinds.size() * formats::kPoiKindNameSize, 0);
        for (size_t k = 0; k < g.poi_kinds.size(); ++k)
            std::copy(g.poi_kinds[k].begin(), g.poi_kinds[k].end(),
                      names.begin() + ptrdiff_t(k * formats::kPoiKindNameSize));
        writer.add(formats::kSecPoiKinds, std::move(names), formats::Codec::raw);
        writer.add(formats::kSecPoiDistances, arrayBytes(g.poi_distances));
        writer.add(formats::kSecPoiNext, arrayBytes(g.poi_next));
    }
    if (!g.source_name.empty())
        writer.add(formats::kSecSourceName,
                   std::vector<uint8_t>(g.source_name.begin(), g.source_name.end()),
                   formats::Codec::raw);
    // Scene rooms are for the cluster stage: a runtime asset does not carry them.
    if (kind == formats::kKindGraph) geometry::addMarkerSection(writer, g.rooms);
    return writer;
}

Result<Graph> decodeGraph(const LoadedContainer& c) {
    Graph g;
    if (Status s = c.header(formats::kSecGraphHeader, formats::decodeGraphHeader, g.header); !s)
        return s.error();
    const formats::GraphHeader& h = g.header;
    auto area_bytes = c.section(formats::kSecAreas);
    if (!area_bytes) return area_bytes.error();
    auto areas = geometry::decodeAreaTable(*area_bytes, c.path);
    if (!areas) return areas.error();
    g.areas = std::move(areas).value();
    if (c.has(formats::kSecSourceName)) {
        auto name = c.section(formats::kSecSourceName);
        if (!name) return name.error();
        g.source_name.assign(name->begin(), name->end());
    }
    // Scene rooms (FORMAT.md §6.7): optional in any kind version; cluster markers only.
    auto rooms = geometry::decodeMarkerSection(c, 1);
    if (!rooms) return rooms.error();
    for (const geometry::SceneMarker& m : *rooms)
        if (m.kind != geometry::MarkerKind::cluster)
            return inputError(
                "{}: section 'SMRK' holds a {} marker ({}); a graph carries only "
                "cluster markers",
                c.path.string(), geometry::markerKindName(m.kind), m.name);
    g.rooms = std::move(rooms).value();

    // The checks and their order are navrt's (viewGraph): one validator per section family, all
    // run before any section's bytes are moved out (which frees them).
    GraphSectionBytes s;
    if (Status read = readGraphSections(c, s); !read) return read.error();
    const uint32_t area_count = uint32_t(g.areas.size());
    if (formats::Error e = formats::validateGraphSections(h, s.spans, area_count))
        return containerError(c.path, e);
    if (formats::Error e = formats::validateLinkSections(h, s.spans))
        return containerError(c.path, e);
    const bool implicit_volume = (h.flags & formats::kGraphFlagImplicitVolume) != 0;
    if (!implicit_volume && h.type == GraphType::navmesh) {
        if (formats::Error e =
                formats::validateNavmeshSections(h, s.spans, area_count, g.mesh_index))
            return containerError(c.path, e);
    }
    if (!implicit_volume && h.type == GraphType::pov) {
        if (formats::Error e = formats::validatePovSections(h, s.spans, area_count, g.pov_stats))
            return containerError(c.path, e);
    }
    if (formats::Error e = formats::validatePoiSections(h, s.spans))
        return containerError(c.path, e);
    if (!implicit_volume && h.type == GraphType::dirichlet) {
        if (formats::Error e = formats::validateDirichletSections(h, s.spans, area_count))
            return containerError(c.path, e);
    }
    if (!implicit_volume) {
        if (formats::Error e = formats::validateColumnNodes(h, s.spans))
            return containerError(c.path, e);
    }

    take(s, G::components, g.components);
    if (s.spans[G::links].present) {
        const size_t count = s.spans[G::links].size / formats::kLinkRecordSize;
        g.links.resize(count);
        for (size_t i = 0; i < count; ++i)
            (void)formats::decodeLinkRecord(s.spans[G::links].data + i * formats::kLinkRecordSize,
                                            formats::kLinkRecordSize, g.links[i]);
        if (s.spans[G::link_types].present) {
            const char* names = reinterpret_cast<const char*>(s.spans[G::link_types].data);
            for (size_t k = 0; k < s.spans[G::link_types].size / formats::kLinkTypeNameSize; ++k)
                g.link_type_names.emplace_back(
                    names + k * formats::kLinkTypeNameSize,
                    strnlen(names + k * formats::kLinkTypeNameSize, formats::kLinkTypeNameSize));
        }
    }
    if (implicit_volume) {
        // Node id = voxel index (y * size_z + z) * size_x + x; positions are implied.
        take(s, G::free_voxels, g.free_voxels);
        return g;
    }
    const bool has_cells = formats::graphHasNodeCells(h, s.spans);
    take(s, G::positions, g.positions);
    if (has_cells) g.cells = takeCells(s, G::cells);
    if (has_cells && s.spans[G::column_nodes].present) take(s, G::column_nodes, g.column_nodes);
    take(s, G::edge_offsets, g.edge_offsets);
    take(s, G::edge_targets, g.edge_targets);
    take(s, G::edge_costs, g.edge_costs);
    for (size_t v = 0; v < h.node_count; ++v)
        for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e)
            g.edge_targets[e] += uint32_t(v);  // stored relative to the source node
    if (s.spans[G::links].present) take(s, G::edge_links, g.edge_links);
    if (h.type == GraphType::navmesh) takeMeshSections(s, h.node_count, g);
    if (h.type == GraphType::pov) takePovSections(s, g);
    if (s.spans[G::poi_kinds].present) {
        const formats::SectionSpan& names = s.spans[G::poi_kinds];
        for (size_t k = 0; k < names.size / formats::kPoiKindNameSize; ++k) {
            const char* name =
                reinterpret_cast<const char*>(names.data) + k * formats::kPoiKindNameSize;
            g.poi_kinds.emplace_back(name, strnlen(name, formats::kPoiKindNameSize));
        }
        take(s, G::poi_distances, g.poi_distances);
        take(s, G::poi_next, g.poi_next);
    }
    if (h.type == GraphType::dirichlet) {
        g.layer_cells = takeCells(s, G::layer_cells);
        take(s, G::layer_columns, g.layer_columns);
        take(s, G::domain_owners, g.domain_owners);
    }
    return g;
}

Result<formats::GraphHeader> loadGraphHeader(const std::filesystem::path& path) {
    return loadHeader(path, formats::kKindGraph, formats::kGraphVersion, formats::kSecGraphHeader,
                      formats::decodeGraphHeader);
}

Result<Graph> loadGraph(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindGraph, formats::kGraphVersion);
    if (!container) return container.error();
    return decodeGraph(*container);
}

}  // namespace nav::graph
