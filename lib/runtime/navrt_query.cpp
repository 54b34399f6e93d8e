#include "lib/runtime/navrt_query.h"

#include "lib/runtime/navrt_heap.h"

#include "formats/graph_sections.h"
#include "formats/jump_points.h"
#include "formats/xxhash64.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

namespace navrt {

using nav::formats::makeError;
namespace fmt = nav::formats;

namespace {

using heap::kClosed;
using heap::kNotInHeap;
// Heuristics are shrunk by this factor so float rounding of stored edge costs can never make
// them overestimate.
constexpr double kHeuristicSafety = 1.0 - 1e-6;

fmt::SectionSpan spanOf(const SectionView& view) { return {view.data, view.size, view.id != 0}; }

// formats::graphFingerprint of this asset's GRHD (given) and EOFF/EDST/ECST sections.
uint64_t assetGraphFingerprint(const Asset& asset, const SectionView& graph_header) {
    const SectionView offsets = asset.find(fmt::kSecEdgeOffsets);
    const SectionView targets = asset.find(fmt::kSecEdgeTargets);
    const SectionView costs = asset.find(fmt::kSecEdgeCosts);
    return fmt::graphFingerprint(graph_header.data, graph_header.size, offsets.data, offsets.size,
                                 targets.data, targets.size, costs.data, costs.size);
}

// The 26 neighbour directions of a voxel, in a fixed order.
struct Direction {
    int dx, dy, dz;
};
constexpr Direction kDirections[26] = {
    {1, 0, 0},   {-1, 0, 0}, {0, 1, 0},   {0, -1, 0},  {0, 0, 1},   {0, 0, -1}, {1, 1, 0},
    {1, -1, 0},  {-1, 1, 0}, {-1, -1, 0}, {1, 0, 1},   {1, 0, -1},  {-1, 0, 1}, {-1, 0, -1},
    {0, 1, 1},   {0, 1, -1}, {0, -1, 1},  {0, -1, -1}, {1, 1, 1},   {1, 1, -1}, {1, -1, 1},
    {1, -1, -1}, {-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}};

struct Voxel {
    int x, y, z;
};
inline Voxel voxelOf(const fmt::GraphHeader& h, uint32_t node) {
    const uint32_t x = node % h.size_x;
    const uint32_t rest = node / h.size_x;
    return {int(x), int(rest / h.size_z), int(rest % h.size_z)};
}
inline bool inGrid(const fmt::GraphHeader& h, int x, int y, int z) {
    return x >= 0 && y >= 0 && z >= 0 && uint32_t(x) < h.size_x && uint32_t(y) < h.size_y &&
           uint32_t(z) < h.size_z;
}
inline uint32_t voxelIndex(const fmt::GraphHeader& h, int x, int y, int z) {
    return (uint32_t(y) * h.size_z + uint32_t(z)) * h.size_x + uint32_t(x);
}
inline bool voxelFree(const GraphView& g, int x, int y, int z) {
    if (!inGrid(g.header, x, y, z)) return false;
    const uint32_t i = voxelIndex(g.header, x, y, z);
    return (g.free_voxels[i >> 6] >> (i & 63)) & 1;
}
// The MovingAI 3D rule: a move is allowed when every voxel of the box it spans is free.
inline bool boxFree(const GraphView& g, const Voxel& a, int dx, int dy, int dz) {
    for (int i = 0; i <= (dx != 0); ++i)
        for (int j = 0; j <= (dy != 0); ++j)
            for (int k = 0; k <= (dz != 0); ++k)
                if (!voxelFree(g, a.x + i * dx, a.y + j * dy, a.z + k * dz)) return false;
    return true;
}

// NHHD/NHRK/NHBO/NHBL: a complete table built for this graph, offsets covering the blocks.
Error viewNextHopSections(const Asset& asset, GraphView& out) {
    SectionView header, ranks, offsets, blocks, graph_header;
    if (Error e = asset.require(fmt::kSecNextHopHeader, header)) return e;
    if (Error e = asset.require(fmt::kSecNextHopRanks, ranks)) return e;
    if (Error e = asset.require(fmt::kSecNextHopOffsets, offsets)) return e;
    if (Error e = asset.require(fmt::kSecNextHopBlocks, blocks)) return e;
    if (Error e = asset.require(fmt::kSecGraphHeader, graph_header)) return e;
    fmt::NextHopHeader& h = out.next_hop_header;
    if (Error e = fmt::decodeNextHopHeader(header.data, header.size, h)) return e;
    if (h.flags & fmt::kNextHopFlagPartial)
        return makeError(ErrorCode::bad_section, 56, fmt::kSecNextHopHeader,
                         "the next-hop table is a shard (merge the shards first)");
    const uint64_t fingerprint = assetGraphFingerprint(asset, graph_header);
    if (h.node_count != out.header.node_count || h.graph_fingerprint != fingerprint)
        return makeError(ErrorCode::bad_section, 40, fmt::kSecNextHopHeader,
                         "next-hop sections were built for another graph (%u nodes, fingerprint "
                         "%016llx; this graph: %u nodes, %016llx)",
                         h.node_count, static_cast<unsigned long long>(h.graph_fingerprint),
                         out.header.node_count, static_cast<unsigned long long>(fingerprint));
    if (Error e = fmt::validateNextHopSections(h, spanOf(ranks), spanOf(offsets), blocks.size))
        return e;
    out.next_hop_ranks = reinterpret_cast<const uint32_t*>(ranks.data);
    out.next_hop_offsets = reinterpret_cast<const uint64_t*>(offsets.data);
    out.next_hop_blocks = blocks.data;
    out.next_hop_blocks_size = blocks.size;
    return {};
}

// HNHD and its 13 arrays: built for this graph; sizes, offsets and every index checked.
Error viewHierHopSections(const Asset& asset, GraphView& out) {
    SectionView header, graph_header;
    if (Error e = asset.require(fmt::kSecHierHopHeader, header)) return e;
    if (Error e = asset.require(fmt::kSecGraphHeader, graph_header)) return e;
    fmt::HierNextHopHeader& h = out.hier_hop_header;
    if (Error e = fmt::decodeHierNextHopHeader(header.data, header.size, h)) return e;
    const uint64_t fingerprint = assetGraphFingerprint(asset, graph_header);
    if (h.node_count != out.header.node_count || h.graph_fingerprint != fingerprint ||
        out.implicitVolume())
        return makeError(ErrorCode::bad_section, 24, fmt::kSecHierHopHeader,
                         "hierarchical next-hop sections were built for another graph");
    static const uint32_t kEmpty[2] = {0, 0};
    for (uint32_t s = 0; s < fmt::kHopSectionCount; ++s) {
        SectionView view;
        if (Error e = asset.require(fmt::kHierHopSectionIds[s], view)) return e;
        out.hier_hop[s] = view.size > 0 ? view.data : reinterpret_cast<const uint8_t*>(kEmpty);
        out.hier_hop_size[s] = view.size;
    }
    if (Error e = fmt::validateHierNextHopSections(h, out.hier_hop, out.hier_hop_size)) return e;
    out.has_hier_hop = true;
    return {};
}

// HRHD and the 13 hierarchy arrays: built for this graph and these clusters, every index valid;
// the optional entrance distance tables likewise.
Error viewHierarchySections(const Asset& asset, GraphView& out) {
    if (!out.hasClusters())
        return makeError(ErrorCode::bad_section, 0, fmt::kSecHierHeader,
                         "hierarchy sections without cluster sections");
    SectionView header, nodes;
    if (Error e = asset.require(fmt::kSecHierHeader, header)) return e;
    if (Error e = asset.require(fmt::kSecNodeClusters, nodes)) return e;
    fmt::HierarchyArrays& a = out.hierarchy;
    if (Error e = fmt::decodeHierarchyHeader(header.data, header.size, a.header)) return e;
    const fmt::HierarchyHeader& h = a.header;
    if (h.node_count != out.header.node_count || h.cluster_count != out.cluster_count ||
        h.graph_fingerprint != out.cluster_header.graph_fingerprint ||
        h.clusters_fingerprint != nav::formats::xxhash64(nodes.data, nodes.size, 0))
        return makeError(ErrorCode::bad_section, 40, fmt::kSecHierHeader,
                         "hierarchy sections were built for another graph or other clusters");
    static const uint32_t kEmpty = 0;
    for (uint32_t s = 0; s < fmt::kHierSectionCount; ++s) {
        SectionView view;
        if (Error e = asset.require(fmt::kHierSectionIds[s], view)) return e;
        a.data[s] = view.size > 0 ? view.data : reinterpret_cast<const uint8_t*>(&kEmpty);
        a.size[s] = view.size;
    }
    if (Error e = fmt::checkHierarchy(a, out.node_clusters)) return e;
    // The entrance distance tables: all three sections or none.
    const SectionView local = asset.find(fmt::kSecHierTableLocal);
    const SectionView offsets = asset.find(fmt::kSecHierTableOffsets);
    const SectionView distances = asset.find(fmt::kSecHierTableDistances);
    const int tables = (local.id != 0) + (offsets.id != 0) + (distances.id != 0);
    if (tables != 0 && tables != 3)
        return makeError(ErrorCode::missing_section, 0, fmt::kSecHierTableDistances,
                         "the entrance distance tables need all of 'HTLI', 'HTOF' and 'HTDN'");
    if (tables == 3)
        if (Error e = fmt::checkHierarchyTables(a, local.data, local.size, offsets.data,
                                                offsets.size, distances.data, distances.size))
            return e;
    out.has_hierarchy = true;
    return {};
}

}  // namespace

// navrt_navmesh.cpp / navrt_pov.cpp: the type-specific sections, validated and viewed.
Error viewNavmeshSections(const fmt::GraphSections& s, uint32_t area_count, GraphView& out);
Error viewPovSections(const fmt::GraphSections& s, uint32_t area_count, GraphView& out);

Vec3 GraphView::position(uint32_t node) const {
    if (implicitVolume()) {
        const Voxel v = voxelOf(header, node);
        return {header.origin[0] + (float(v.x) + 0.5f) * header.cell_size,
                header.origin[1] + (float(v.y) + 0.5f) * header.cell_height,
                header.origin[2] + (float(v.z) + 0.5f) * header.cell_size};
    }
    return {positions[3 * size_t(node)], positions[3 * size_t(node) + 1],
            positions[3 * size_t(node) + 2]};
}

bool GraphView::isFree(uint32_t node) const {
    if (node >= header.node_count) return false;
    if (!implicitVolume()) return true;
    return (free_voxels[node >> 6] >> (node & 63)) & 1;
}

namespace {

// CLHD/CLND/CLTB: sizes, ids, diagonal, and that they were built for this graph.
Error viewClusterSections(const Asset& asset, GraphView& out) {
    SectionView header, nodes, table, graph_header;
    if (Error e = asset.require(fmt::kSecClusterHeader, header)) return e;
    if (Error e = asset.require(fmt::kSecNodeClusters, nodes)) return e;
    if (Error e = asset.require(fmt::kSecClusterTable, table)) return e;
    if (Error e = asset.require(fmt::kSecGraphHeader, graph_header)) return e;
    fmt::ClusterHeader& h = out.cluster_header;
    if (Error e = fmt::decodeClusterHeader(header.data, header.size, h)) return e;
    const uint64_t fingerprint = assetGraphFingerprint(asset, graph_header);
    if (h.node_count != out.header.node_count || fingerprint != h.graph_fingerprint)
        return makeError(ErrorCode::bad_section, 40, fmt::kSecClusterHeader,
                         "cluster sections were built for another graph (%u nodes, fingerprint "
                         "%016llx; this graph: %u nodes, %016llx)",
                         h.node_count, static_cast<unsigned long long>(h.graph_fingerprint),
                         out.header.node_count, static_cast<unsigned long long>(fingerprint));
    if (Error e = fmt::validateClusterSections(h, spanOf(nodes), spanOf(table))) return e;
    out.cluster_count = h.cluster_count;
    out.node_clusters = reinterpret_cast<const uint32_t*>(nodes.data);
    out.cluster_table = reinterpret_cast<const uint16_t*>(table.data);
    const SectionView landmarks = asset.find(fmt::kSecClusterLandmarks);
    if (landmarks.id != 0)
        if (Error e =
                fmt::viewLandmarks(landmarks.data, landmarks.size, h.node_count, out.landmarks))
            return e;
    return {};
}

}  // namespace

Error viewGraph(const Asset& asset, GraphView& out) {
    out = GraphView{};
    if (asset.kind() != fmt::kKindNav && asset.kind() != fmt::kKindGraph) {
        char found[5];
        fmt::fourccToString(asset.kind(), found);
        return makeError(ErrorCode::wrong_kind, 12, 0,
                         "artifact is of kind '%s', expected a graph ('NAVA' or 'GRPH')", found);
    }
    const uint32_t max_version =
        asset.kind() == fmt::kKindNav ? fmt::kNavVersion : fmt::kGraphVersion;
    if (asset.kindVersion() == 0 || asset.kindVersion() > max_version)
        return makeError(ErrorCode::newer_version, 16, 0,
                         "graph layout version %u is not supported", asset.kindVersion());
    SectionView header, areas;
    if (Error e = asset.require(fmt::kSecGraphHeader, header)) return e;
    if (Error e = asset.require(fmt::kSecAreas, areas)) return e;
    fmt::GraphHeader& h = out.header;
    if (Error e = fmt::decodeGraphHeader(header.data, header.size, h)) return e;
    uint32_t area_count = 0;
    if (Error e = fmt::decodeAreaCosts(areas.data, areas.size, area_count, out.area_costs))
        return e;

    const SectionView name = asset.find(fmt::kSecSourceName);
    if (name.id != 0) {
        out.source_name = reinterpret_cast<const char*>(name.data);
        out.source_name_length = name.size;
    }
    // Every graph-family section the asset holds, checked by the shared validators of
    // formats/graph_sections.h in the order below (so each corruption gives one stable error).
    fmt::GraphSections s;
    for (uint32_t i = 0; i < fmt::kGraphSectionCount; ++i)
        s.spans[i] = spanOf(asset.find(fmt::kGraphSectionIds[i]));
    using G = fmt::GraphSection;
    if (Error e = fmt::validateGraphSections(h, s, area_count)) return e;
    if (Error e = fmt::validateLinkSections(h, s)) return e;
    auto u32 = [&](G part) { return reinterpret_cast<const uint32_t*>(s[part].data); };
    out.components = u32(G::components);
    if (s[G::links].present) {
        out.links = s[G::links].data;
        out.link_count = uint32_t(s[G::links].size / fmt::kLinkRecordSize);
        out.edge_links = s[G::edge_links].present ? u32(G::edge_links) : nullptr;
    }
    if (s[G::link_types].present) {
        out.link_type_names = reinterpret_cast<const char*>(s[G::link_types].data);
        out.link_type_count = uint32_t(s[G::link_types].size / fmt::kLinkTypeNameSize);
    }
    if (out.implicitVolume()) {
        out.free_voxels = reinterpret_cast<const uint64_t*>(s[G::free_voxels].data);
        return {};
    }
    const bool has_cells = fmt::graphHasNodeCells(h, s);
    out.positions = reinterpret_cast<const float*>(s[G::positions].data);
    out.cells = has_cells ? s[G::cells].data : nullptr;
    out.edge_offsets = u32(G::edge_offsets);
    out.edge_targets = u32(G::edge_targets);
    out.edge_costs = reinterpret_cast<const float*>(s[G::edge_costs].data);
    if (out.isNavmesh()) {
        if (Error e = viewNavmeshSections(s, area_count, out)) return e;
    }
    if (out.isPov()) {
        if (Error e = viewPovSections(s, area_count, out)) return e;
    }
    if (Error e = fmt::validatePoiSections(h, s)) return e;
    if (s[G::poi_kinds].present) {
        out.poi_kind_count = uint32_t(s[G::poi_kinds].size / fmt::kPoiKindNameSize);
        out.poi_kind_names = reinterpret_cast<const char*>(s[G::poi_kinds].data);
        out.poi_distances = reinterpret_cast<const float*>(s[G::poi_distances].data);
        out.poi_next = u32(G::poi_next);
    }
    if (out.isDirichlet()) {
        if (Error e = fmt::validateDirichletSections(h, s, area_count)) return e;
        out.layer_cell_count = uint32_t(s[G::layer_cells].size / fmt::kNodeCellSize);
        out.layer_cells = s[G::layer_cells].data;
        out.layer_columns = u32(G::layer_columns);
        out.domain_owners = u32(G::domain_owners);
    }
    if (asset.find(fmt::kSecClusterHeader).id != 0) {
        if (Error e = viewClusterSections(asset, out)) return e;
    }
    if (asset.find(fmt::kSecHierHeader).id != 0) {
        if (Error e = viewHierarchySections(asset, out)) return e;
    }
    if (asset.find(fmt::kSecNextHopHeader).id != 0) {
        if (Error e = viewNextHopSections(asset, out)) return e;
    }
    if (asset.find(fmt::kSecHierHopHeader).id != 0) {
        if (Error e = viewHierHopSections(asset, out)) return e;
    }
    if (Error e = fmt::validateColumnNodes(h, s)) return e;
    if (s[G::column_nodes].present && has_cells) out.column_nodes = u32(G::column_nodes);
    if (asset.find(fmt::kSecJumpHeader).id != 0) {
        SectionView jump_header, entries;
        if (Error e = asset.require(fmt::kSecJumpHeader, jump_header)) return e;
        if (Error e = asset.require(fmt::kSecJumpEntries, entries)) return e;
        fmt::JumpHeader jh;
        if (Error e = fmt::decodeJumpHeader(jump_header.data, jump_header.size, jh)) return e;
        const int16_t* table = reinterpret_cast<const int16_t*>(entries.data);
        if (Error e =
                fmt::validateJumpEntries(h, jh, out.cells, out.column_nodes, out.edge_offsets,
                                         out.edge_targets, out.edge_costs, table, entries.size))
            return e;
        out.jump_entries = table;
        out.jump_straight_cost = jh.straight_cost;
        out.jump_diagonal_cost = jh.diagonal_cost;
        if (asset.find(fmt::kSecJumpBounds).id != 0) {
            SectionView bounds;
            if (Error e = asset.require(fmt::kSecJumpBounds, bounds)) return e;
            if (Error e = fmt::validateJumpBounds(h, bounds.size)) return e;
            out.jump_bounds = reinterpret_cast<const uint16_t*>(bounds.data);
        }
    }
    return {};
}

fmt::LinkRecord GraphView::link(uint32_t index) const {
    fmt::LinkRecord l;
    if (index < link_count)
        (void)fmt::decodeLinkRecord(links + size_t(index) * fmt::kLinkRecordSize,
                                    fmt::kLinkRecordSize, l);
    return l;
}

const char* linkTypeName(nav::formats::LinkType type, const char* user_names, uint64_t user_count,
                         size_t& length) {
    if (const char* name = nav::formats::linkTypeName(type)) {
        length = std::strlen(name);
        return name;
    }
    const uint32_t k = uint32_t(type) - nav::formats::kLinkTypeUserFirst;
    if (nav::formats::isUserLinkType(type) && k < user_count) {
        const char* name = user_names + size_t(k) * nav::formats::kLinkTypeNameSize;
        length = strnlen(name, nav::formats::kLinkTypeNameSize);
        return name;
    }
    length = 0;
    return nullptr;
}

const char* GraphView::linkTypeName(nav::formats::LinkType type, size_t& length) const {
    return navrt::linkTypeName(type, link_type_names, link_type_count, length);
}

const char* pathStatusName(PathStatus status) {
    switch (status) {
        case PathStatus::found: return "found";
        case PathStatus::no_path: return "no_path";
        case PathStatus::invalid_start: return "invalid_start";
        case PathStatus::invalid_goal: return "invalid_goal";
        case PathStatus::out_of_nodes: return "out_of_nodes";
        case PathStatus::not_initialized: return "not_initialized";
        case PathStatus::in_progress: return "in_progress";
    }
    return "unknown";
}

uint32_t locate(const GraphView& g, Vec3 p, float horizontal_tolerance, float vertical_tolerance) {
    const fmt::GraphHeader& h = g.header;
    const double fx = (double(p.x) - h.origin[0]) / h.cell_size;
    const double fz = (double(p.z) - h.origin[2]) / h.cell_size;
    if (!std::isfinite(fx) || !std::isfinite(fz) || !std::isfinite(p.y)) return kNoNode;
    // A point 2^30 cells away is off any graph (it would overflow int); the radius is capped
    // at 2^31 cells and the columns visited are those of the grid, so a huge tolerance neither
    // overflows nor loops for ever.
    constexpr double kFar = double(1 << 30), kMaxRadius = 2.0 * kFar;
    if (std::fabs(fx) >= kFar || std::fabs(fz) >= kFar) return kNoNode;
    const int64_t radius =
        horizontal_tolerance > 0
            ? int64_t(std::min(std::ceil(double(horizontal_tolerance) / h.cell_size), kMaxRadius))
            : 0;
    const int64_t cx = int64_t(std::floor(fx)), cz = int64_t(std::floor(fz));
    // The columns within the radius that lie in the grid.
    const int64_t x0 = std::max<int64_t>(cx - radius, 0);
    const int64_t x1 = std::min<int64_t>(cx + radius, int64_t(h.size_x) - 1);
    const int64_t z0 = std::max<int64_t>(cz - radius, 0);
    const int64_t z1 = std::min<int64_t>(cz + radius, int64_t(h.size_z) - 1);
    uint32_t best = kNoNode;
    double best_score = 0;
    auto consider = [&](uint32_t node, double horizontal, double vertical) {
        if (horizontal > horizontal_tolerance || vertical > vertical_tolerance) return;
        const double score = horizontal * horizontal + vertical * vertical;
        if (best == kNoNode || score < best_score) {
            best = node;
            best_score = score;
        }
    };
    // Horizontal distance from the point to the square of column (x, z); 0 inside it.
    auto columnDistance = [&](int64_t x, int64_t z) {
        const double ex = std::max({0.0, double(x) - fx, fx - double(x + 1)});
        const double ez = std::max({0.0, double(z) - fz, fz - double(z + 1)});
        return std::sqrt(ex * ex + ez * ez) * h.cell_size;
    };
    if (g.implicitVolume()) {
        const double fy = (double(p.y) - h.origin[1]) / h.cell_height;
        if (!(std::fabs(fy) < kFar)) return kNoNode;
        const int64_t cy = int64_t(std::floor(fy));
        const int64_t vertical_radius =
            vertical_tolerance > 0
                ? int64_t(
                      std::min(std::ceil(double(vertical_tolerance) / h.cell_height), kMaxRadius))
                : 0;
        const int64_t y0 = std::max<int64_t>(cy - vertical_radius, 0);
        const int64_t y1 = std::min<int64_t>(cy + vertical_radius, int64_t(h.size_y) - 1);
        for (int64_t y = y0; y <= y1; ++y) {
            const double ey = std::max({0.0, double(y) - fy, fy - double(y + 1)}) * h.cell_height;
            for (int64_t z = z0; z <= z1; ++z)
                for (int64_t x = x0; x <= x1; ++x)
                    if (voxelFree(g, int(x), int(y), int(z)))
                        consider(voxelIndex(h, int(x), int(y), int(z)), columnDistance(x, z), ey);
        }
        return best;
    }
    if (g.isNavmesh()) return locateOnMesh(g, p, horizontal_tolerance, vertical_tolerance).poly;
    // Tile graphs: nodes by column; POV and Dirichlet graphs: layer cells by column (floor from
    // the cell; a Dirichlet graph's node is the cell's owner).
    const bool layered = g.isPov() || g.isDirichlet();
    const uint32_t* columns = layered ? g.layer_columns : g.column_nodes;
    if (columns == nullptr) return kNoNode;
    auto floorY = [&](uint32_t n) {
        if (!layered) return double(g.positions[3 * size_t(n) + 1]);
        const fmt::NodeCell c = fmt::decodeNodeCell(g.layer_cells + size_t(n) * fmt::kNodeCellSize);
        return double(h.origin[1] + float(c.y) * h.cell_height);
    };
    for (int64_t z = z0; z <= z1; ++z) {
        for (int64_t x = x0; x <= x1; ++x) {
            const size_t column = size_t(z) * h.size_x + size_t(x);
            const double horizontal = columnDistance(x, z);
            for (uint32_t n = columns[column]; n < columns[column + 1]; ++n)
                consider(n, horizontal, std::fabs(floorY(n) - p.y));
        }
    }
    if (g.isDirichlet() && best != kNoNode) return g.domain_owners[best];
    return best;
}

uint32_t poiKind(const GraphView& g, const char* name, size_t length) {
    if (length == 0 || length >= fmt::kPoiKindNameSize) return kNoNode;
    for (uint32_t k = 0; k < g.poi_kind_count; ++k) {
        const char* stored = g.poi_kind_names + size_t(k) * fmt::kPoiKindNameSize;
        if (std::memcmp(stored, name, length) == 0 && stored[length] == 0) return k;
    }
    return kNoNode;
}

uint32_t walkToNearestPoi(const GraphView& g, uint32_t kind, uint32_t node, uint32_t* out,
                          uint32_t capacity) {
    const size_t n = g.nodeCount();
    if (kind >= g.poi_kind_count || node >= n) return 0;
    const size_t base = size_t(kind) * n;
    if (std::isinf(g.poi_distances[base + node])) return 0;
    // Distances fall strictly along next hops (validated: every hop is an edge on a finite path;
    // costs are positive), so the walk ends; the bound guards against a corrupt cycle anyway.
    uint32_t count = 0;
    for (uint32_t v = node; v != kNoNode && count <= n; v = g.poi_next[base + v]) {
        if (count < capacity) out[count] = v;
        ++count;
    }
    return count > n ? 0 : count;
}

Blocking::~Blocking() {
    if (bits_ != nullptr) allocator_.release(bits_, allocator_.user);
}

Error Blocking::init(const GraphView& graph, const Allocator& allocator) {
    if (bits_ != nullptr) allocator_.release(bits_, allocator_.user);
    bits_ = nullptr;
    allocator_ = resolveAllocator(allocator);
    node_count_ = graph.nodeCount();
    link_count_ = graph.link_count;
    const size_t words = (size_t(node_count_) + link_count_ + 63) / 64 + 1;
    bits_ = static_cast<uint64_t*>(allocator_.allocate(8 * words, allocator_.user));
    if (bits_ == nullptr) {
        node_count_ = link_count_ = 0;
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "cannot allocate blocking bits for %zu nodes", size_t(graph.nodeCount()));
    }
    std::memset(bits_, 0, 8 * words);
    std::memset(areas_, 0, sizeof(areas_));
    count_ = 0;
    return {};
}

void Blocking::set(uint64_t bit, bool blocked) {
    if (bits_ == nullptr || bit >= uint64_t(node_count_) + link_count_) return;
    if (get(bit) == blocked) return;
    bits_[bit >> 6] ^= uint64_t(1) << (bit & 63);
    count_ += blocked ? 1 : uint32_t(-1);
}

void Blocking::setArea(uint32_t area, bool blocked) {
    if (area >= fmt::kMaxAreas || this->area(area) == blocked) return;
    areas_[area >> 6] ^= uint64_t(1) << (area & 63);
    count_ += blocked ? 1 : uint32_t(-1);
}

void Blocking::clear() {
    if (bits_ != nullptr)
        std::memset(bits_, 0, 8 * ((size_t(node_count_) + link_count_ + 63) / 64 + 1));
    std::memset(areas_, 0, sizeof(areas_));
    count_ = 0;
}

Error PathQuery::setFilter(const QueryFilter* filter) {
    if (filter != nullptr && graph_ != nullptr && graph_->cells == nullptr && !graph_->isNavmesh())
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "area filters apply to tile and navmesh graphs (this one has no areas)");
    filter_ = filter;
    filter_scale_ = 1.0;
    if (filter != nullptr)
        for (uint32_t a = 0; a < fmt::kMaxAreas; ++a)
            if (!filter->excludes(a) && double(filter->area_multiplier[a]) < filter_scale_)
                filter_scale_ = double(filter->area_multiplier[a]);
    shortcut_goal_ = kNoNode;  // shortcut bounds depend on the heuristic's scale
    return {};
}

Error PathQuery::setBlocking(const Blocking* blocking) {
    if (blocking != nullptr && graph_ != nullptr &&
        (blocking->nodeCount() != graph_->nodeCount() ||
         blocking->linkCount() != graph_->link_count))
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "the blocking is sized for %u nodes and %u links, the graph has %u and %u",
                         blocking->nodeCount(), blocking->linkCount(), graph_->nodeCount(),
                         graph_->link_count);
    blocking_ = blocking;
    return {};
}

bool PathQuery::enters(uint32_t v) const {
    const GraphView& g = *graph_;
    if (blocking_ != nullptr && blocking_->node(v)) return false;
    uint32_t area = fmt::kMaxAreas;
    if (g.isNavmesh())
        area = g.poly_areas[v];
    else if (g.cells != nullptr)
        area = fmt::decodeNodeCell(g.cells + size_t(v) * fmt::kNodeCellSize).area;
    if (area >= fmt::kMaxAreas) return true;
    if (blocking_ != nullptr && blocking_->area(area)) return false;
    return filter_ == nullptr || !filter_->excludes(area);
}

PathQuery::~PathQuery() { release(); }

void PathQuery::release() {
    if (allocator_.release != nullptr) {
        for (void* p :
             {static_cast<void*>(records_), static_cast<void*>(heap_), static_cast<void*>(path_),
              static_cast<void*>(scratch_), static_cast<void*>(entry_points_),
              static_cast<void*>(funnel_points_), static_cast<void*>(segment_scratch_),
              static_cast<void*>(shortcuts_), static_cast<void*>(point_shortcuts_),
              static_cast<void*>(volume_links_), static_cast<void*>(jump_open_)})
            if (p != nullptr) allocator_.release(p, allocator_.user);
    }
    records_ = nullptr;
    jump_open_ = nullptr;
    jump_open_size_ = 0;
    heap_ = path_ = scratch_ = nullptr;
    entry_points_ = nullptr;
    funnel_points_ = nullptr;
    segment_scratch_ = nullptr;
    shortcuts_ = point_shortcuts_ = nullptr;
    shortcut_count_ = point_shortcut_count_ = 0;
    volume_links_ = nullptr;
    volume_link_count_ = 0;
    shortcut_goal_ = kNoNode;
    point_shortcuts_ready_ = false;
    graph_ = nullptr;
}

Error PathQuery::initLinks(const GraphView& g) {
    if (g.link_count == 0) return {};
    auto allocate = [&](size_t bytes) { return allocator_.allocate(bytes, allocator_.user); };
    // Volume graphs: (voxel, link) pairs sorted by voxel, so a voxel's links are a binary search.
    if (g.implicitVolume()) {
        uint32_t pairs = 0;
        for (uint32_t i = 0; i < g.link_count; ++i)
            pairs += (g.link(i).flags & fmt::kLinkFlagBidirectional) ? 2 : 1;
        volume_links_ = static_cast<uint32_t*>(allocate(8 * size_t(pairs)));
        if (volume_links_ == nullptr)
            return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate %u link entries",
                             pairs);
        uint32_t k = 0;
        for (uint32_t i = 0; i < g.link_count; ++i) {
            const fmt::LinkRecord l = g.link(i);
            volume_links_[2 * k] = l.from_node;
            volume_links_[2 * k + 1] = i;
            ++k;
            if (l.flags & fmt::kLinkFlagBidirectional) {
                volume_links_[2 * k] = l.to_node;
                volume_links_[2 * k + 1] = i | 0x80000000u;
                ++k;
            }
        }
        // Insertion sort by (voxel, entry): link counts are small and this allocates nothing.
        for (uint32_t a = 1; a < pairs; ++a)
            for (uint32_t b = a; b > 0; --b) {
                uint32_t* p = volume_links_ + 2 * size_t(b);
                if (p[-2] < p[0] || (p[-2] == p[0] && p[-1] <= p[1])) break;
                const uint32_t v = p[0], w = p[1];
                p[0] = p[-2], p[1] = p[-1], p[-2] = v, p[-1] = w;
            }
        volume_link_count_ = pairs;
    }
    // Shortcuts: each direction of each link whose cost is below the plain heuristic across it.
    auto collect = [&](auto&& add) {
        for (uint32_t i = 0; i < g.link_count; ++i) {
            const fmt::LinkRecord l = g.link(i);
            for (int dir = 0; dir < ((l.flags & fmt::kLinkFlagBidirectional) ? 2 : 1); ++dir)
                add(l, dir == 0);
        }
    };
    const double h_scale = double(g.header.min_cost_multiplier) * kHeuristicSafety;
    auto pointDistance = [](const float* a, const float* b) {
        const double dx = double(a[0]) - b[0], dy = double(a[1]) - b[1], dz = double(a[2]) - b[2];
        return std::sqrt(dx * dx + dy * dy + dz * dz);
    };
    // Node-level (searches over graph edges): an edge's cost against plainHeuristic.
    if (!g.isPov()) {
        uint32_t count = 0;
        double cheapest = HUGE_VAL;
        auto nodeEdge = [&](auto&& use) {
            if (g.implicitVolume()) {
                collect([&](const fmt::LinkRecord& l, bool forward) {
                    use(forward ? l.from_node : l.to_node, forward ? l.to_node : l.from_node,
                        double(forward ? l.cost : l.reverse_cost));
                });
                return;
            }
            for (uint32_t u = 0; u < g.nodeCount(); ++u)
                for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
                    if (g.edgeLink(e) != fmt::kNoLink)
                        use(u, g.edgeTarget(u, e), double(g.edge_costs[e]));
        };
        nodeEdge([&](uint32_t u, uint32_t v, double cost) {
            if (cost < plainHeuristic(u, v)) {
                ++count;
                cheapest = std::fmin(cheapest, cost);
            }
        });
        if (count > 0) {
            shortcut_floor_ = cheapest * kHeuristicSafety;
            const uint32_t kept = count <= kMaxShortcuts ? count : 0;
            if (kept > 0) {
                shortcuts_ = static_cast<Shortcut*>(allocate(sizeof(Shortcut) * kept));
                if (shortcuts_ == nullptr)
                    return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate shortcuts");
                uint32_t k = 0;
                nodeEdge([&](uint32_t u, uint32_t v, double cost) {
                    if (cost < plainHeuristic(u, v))
                        shortcuts_[k++] = Shortcut{u, v, {}, {}, cost, 0};
                });
            }
            shortcut_count_ = count;
        }
    }
    // Point-level (navmesh point searches, POV searches): a link's cost against the distance
    // between its points.
    if (g.isNavmesh() || g.isPov()) {
        uint32_t count = 0;
        double cheapest = HUGE_VAL;
        collect([&](const fmt::LinkRecord& l, bool forward) {
            const double cost = forward ? l.cost : l.reverse_cost;
            if (cost < pointDistance(l.from, l.to) * h_scale) {
                ++count;
                cheapest = std::fmin(cheapest, cost);
            }
        });
        if (count > 0) {
            point_shortcut_floor_ = cheapest * kHeuristicSafety;
            const uint32_t kept = count <= kMaxShortcuts ? count : 0;
            if (kept > 0) {
                point_shortcuts_ = static_cast<Shortcut*>(allocate(sizeof(Shortcut) * kept));
                if (point_shortcuts_ == nullptr)
                    return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate shortcuts");
                uint32_t k = 0;
                collect([&](const fmt::LinkRecord& l, bool forward) {
                    const double cost = forward ? l.cost : l.reverse_cost;
                    if (!(cost < pointDistance(l.from, l.to) * h_scale)) return;
                    const float* a = forward ? l.from : l.to;
                    const float* b = forward ? l.to : l.from;
                    point_shortcuts_[k++] = Shortcut{forward ? l.from_node : l.to_node,
                                                     forward ? l.to_node : l.from_node,
                                                     {a[0], a[1], a[2]},
                                                     {b[0], b[1], b[2]},
                                                     cost,
                                                     0};
                });
            }
            point_shortcut_count_ = count;
        }
    }
    return {};
}

Error PathQuery::init(const GraphView& graph, uint32_t max_expansions, const Allocator& allocator) {
    release();
    allocator_ = resolveAllocator(allocator);
    const size_t n = graph.nodeCount();
    if (n + 2 >= kNotInHeap)
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "graph of %zu nodes is too large to search", n);
    // One record per node, plus POV graphs' virtual start (n) and goal (n + 1).
    records_ = static_cast<Record*>(allocator_.allocate(sizeof(Record) * (n + 2), allocator_.user));
    heap_ = static_cast<uint32_t*>(allocator_.allocate(4 * (n + 2), allocator_.user));
    path_ = static_cast<uint32_t*>(allocator_.allocate(4 * (n + 2), allocator_.user));
    scratch_ = static_cast<uint32_t*>(allocator_.allocate(4 * (n + 2), allocator_.user));
    if (graph.isNavmesh()) {
        entry_points_ = static_cast<float*>(allocator_.allocate(12 * (n + 1), allocator_.user));
        // The straight path has at most the start, one point per portal, both ends of each
        // link step, and the goal.
        funnel_points_ =
            static_cast<Vec3*>(allocator_.allocate(sizeof(Vec3) * (2 * n + 4), allocator_.user));
    }
    if (!records_ || !heap_ || !path_ || !scratch_ ||
        (graph.isNavmesh() && (!entry_points_ || !funnel_points_))) {
        release();
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "cannot allocate search memory for %zu nodes", n);
    }
    segment_scratch_ =
        static_cast<uint32_t*>(allocator_.allocate(4 * (2 * n + 4), allocator_.user));
    if (segment_scratch_ == nullptr) {
        release();
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "cannot allocate search memory for %zu nodes", n);
    }
    if (graph.jump_entries != nullptr) {  // JPS+'s open list
        jump_open_ = static_cast<JumpOpen*>(
            allocator_.allocate(sizeof(JumpOpen) * (n + 2), allocator_.user));
        if (jump_open_ == nullptr) {
            release();
            return makeError(ErrorCode::out_of_memory, 0, 0,
                             "cannot allocate search memory for %zu nodes", n);
        }
    }
    std::memset(static_cast<void*>(records_), 0, sizeof(Record) * (n + 2));
    record_count_ = uint32_t(n + 2);
    graph_ = &graph;
    stamp_ = 0;
    max_expansions_ = max_expansions;
    path_length_ = 0;
    if (Error e = initLinks(graph)) {
        release();
        return e;
    }
    return {};
}

Error PathQuery::setHeuristic(Heuristic heuristic) {
    if (heuristic == Heuristic::cluster && (graph_ == nullptr || !graph_->hasClusters()))
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "the cluster heuristic needs an asset with cluster sections (navbake "
                         "pack --clusters FILE.clu)");
    heuristic_ = heuristic;
    return {};
}

double PathQuery::heuristic(uint32_t node, uint32_t goal) const {
    if (use_clusters_) {
        const uint16_t q =
            goal_column_[size_t(graph_->node_clusters[node]) * graph_->cluster_count];
        if (q == fmt::kClusterUnreachable) return HUGE_VAL;
        double bound = double(q) * cluster_scale_ * filter_scale_;
        if (use_landmarks_) {
            const double alt = fmt::landmarkBound(graph_->landmarks, node, goal);
            if (alt * landmark_scale_ > bound) bound = alt * landmark_scale_;
        }
        const double standard = standardHeuristic(node, goal);
        return bound > standard ? bound : standard;
    }
    return standardHeuristic(node, goal);
}

double PathQuery::landmarkLowerBound(uint32_t node, uint32_t goal) const {
    const double standard = standardHeuristic(node, goal);
    if (graph_ == nullptr || !graph_->landmarks.present() || goal == kNoNode) return standard;
    const double alt =
        fmt::landmarkBound(graph_->landmarks, node, goal) * kHeuristicSafety * filter_scale_;
    return alt > standard ? alt : standard;
}

double PathQuery::standardHeuristic(uint32_t node, uint32_t goal) const {
    const double plain = plainHeuristic(node, goal);
    if (shortcut_count_ == 0 || goal == kNoNode) return plain;
    if (shortcuts_ == nullptr) return std::fmin(plain, shortcut_floor_);
    prepareShortcuts(goal);
    double best = plain;
    for (uint32_t k = 0; k < shortcut_count_; ++k)
        best = std::fmin(best, plainHeuristic(node, shortcuts_[k].from) + shortcuts_[k].bound);
    return best;
}

void PathQuery::prepareShortcuts(uint32_t goal) const {
    if (shortcut_goal_ == goal) return;
    chainShortcuts(
        shortcuts_, shortcut_count_, kHeuristicSafety,
        [&](uint32_t i) { return plainHeuristic(shortcuts_[i].to, goal); },
        [&](uint32_t i, uint32_t j) {
            return plainHeuristic(shortcuts_[i].to, shortcuts_[j].from);
        });
    shortcut_goal_ = goal;
}

double PathQuery::plainHeuristic(uint32_t node, uint32_t goal) const {
    if (goal == kNoNode) return 0.0;  // findPathWithin settling every node
    const GraphView& g = *graph_;
    const bool cells = g.cells != nullptr;
    const uint32_t a =
        cells ? fmt::decodeNodeCell(g.cells + size_t(node) * fmt::kNodeCellSize).column : 0;
    const uint32_t b =
        cells ? fmt::decodeNodeCell(g.cells + size_t(goal) * fmt::kNodeCellSize).column : 0;
    float p[3] = {0, 0, 0}, q[3] = {0, 0, 0};
    if (!(g.header.heuristic == fmt::HeuristicKind::octile && cells)) {
        const Vec3 u = g.position(node), v = g.position(goal);
        p[0] = u.x, p[1] = u.y, p[2] = u.z, q[0] = v.x, q[1] = v.y, q[2] = v.z;
    }
    const double scale = double(g.header.min_cost_multiplier) * kHeuristicSafety * filter_scale_;
    return fmt::heuristicDistance(g.header, cells, a, b, p, q) * scale;
}

bool PathQuery::before(uint32_t a, uint32_t b) const { return heap::before(records_, a, b); }
void PathQuery::heapDecrease(uint32_t node) { heap::siftUp(records_, heap_, node); }
void PathQuery::heapPush(uint32_t node) { heap::push(records_, heap_, heap_size_, node); }
void PathQuery::heapIncrease(uint32_t node) { heap::siftDown(records_, heap_, heap_size_, node); }
uint32_t PathQuery::heapPop() { return heap::pop(records_, heap_, heap_size_); }

namespace {
// Record::via of a JPS+ jump (not an edge): kJumpVia | its direction (0 .. 7).
constexpr uint32_t kJumpVia = 0xFFFFFFF0u;
bool isJump(uint32_t via) { return (via & ~7u) == kJumpVia; }
}  // namespace

PathStatus PathQuery::finishPath(uint32_t goal) {
    uint32_t count = 0;
    for (uint32_t v = goal; v != kNoNode && count < record_count_; v = records_[v].parent)
        path_[count++] = v;
    for (uint32_t i = 0; i < count / 2; ++i) {
        const uint32_t t = path_[i];
        path_[i] = path_[count - 1 - i];
        path_[count - 1 - i] = t;
    }
    path_length_ = count;
    cost_ = records_[goal].g;
    return PathStatus::found;
}

uint32_t PathQuery::pathEdge(uint32_t k) const {
    if (graph_ == nullptr || graph_->implicitVolume() || k + 1 >= path_length_) return kNoNode;
    const Record& r = records_[path_[k + 1]];
    if (r.stamp != stamp_ || r.parent != path_[k]) return kNoNode;
    if (isJump(r.via)) {  // a jump of one step: its edge
        const GraphView& g = *graph_;
        for (uint32_t e = g.edge_offsets[path_[k]]; e < g.edge_offsets[path_[k] + 1]; ++e)
            if (g.edgeTarget(path_[k], e) == path_[k + 1]) return e;
        return kNoNode;
    }
    return r.via;  // the edge the search relaxed (kNoNode for a POV start or goal point)
}

uint32_t PathQuery::pathLink(uint32_t k) const {
    if (graph_ == nullptr || graph_->link_count == 0 || k + 1 >= path_length_) return fmt::kNoLink;
    if (graph_->implicitVolume()) {
        const Record& r = records_[path_[k + 1]];
        if (r.stamp != stamp_ || r.parent != path_[k] || r.via == kNoNode) return fmt::kNoLink;
        return r.via;
    }
    const uint32_t e = pathEdge(k);
    return e == kNoNode ? fmt::kNoLink : graph_->edgeLink(e);
}

void PathQuery::linkStep(uint32_t index, uint32_t from, Vec3& take_off, Vec3& landing,
                         double& cost) const {
    const fmt::LinkRecord l = graph_->link(index);
    const bool forward = from == l.from_node;
    const float* a = forward ? l.from : l.to;
    const float* b = forward ? l.to : l.from;
    take_off = {a[0], a[1], a[2]};
    landing = {b[0], b[1], b[2]};
    cost = forward ? l.cost : l.reverse_cost;
}

template <class Relax>
void PathQuery::expandVolumeLinks(uint32_t v, Relax&& relax) const {
    // Binary search for the first pair of voxel v.
    uint32_t lo = 0, hi = volume_link_count_;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        if (volume_links_[2 * size_t(mid)] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t k = lo; k < volume_link_count_ && volume_links_[2 * size_t(k)] == v; ++k) {
        const uint32_t entry = volume_links_[2 * size_t(k) + 1];
        const uint32_t index = entry & 0x7FFFFFFFu;
        if (blocking_ != nullptr && blocking_->link(index)) continue;
        const fmt::LinkRecord l = graph_->link(index);
        if (entry & 0x80000000u)
            relax(l.from_node, double(l.reverse_cost), index);
        else
            relax(l.to_node, double(l.cost), index);
    }
}

void PathQuery::startRecords() {
    if (++stamp_ == 0) {  // generation counter wrapped: forget every record
        std::memset(static_cast<void*>(records_), 0, sizeof(Record) * record_count_);
        stamp_ = 1;
    }
    heap_size_ = 0;
    best_node_ = kNoNode;
    best_h_ = HUGE_VAL;
}

void PathQuery::startNodes(uint32_t start, uint32_t goal) {
    startRecords();
    search_goal_ = goal;
    Record& first = records_[start];
    first = Record{0.0, heuristic(start, goal), kNoNode, stamp_, kNotInHeap, kNoNode};
    heapPush(start);
}

template <class Expand>
PathStatus PathQuery::searchLoop(uint64_t budget, Expand&& expand) {
    const uint32_t goal = search_goal_;
    while (heap_size_ > 0) {
        if (budget == 0) return PathStatus::in_progress;
        --budget;
        const uint32_t u = heapPop();
        ++expansions_;
        noteBest(u);
        if (u == goal) return endSearch(finishPath(goal));
        if (stop_cluster_ != kNoNode && graph_->node_clusters[u] == stop_cluster_)
            return endSearch(finishPath(u));
        if (max_expansions_ != 0 && expansions_ >= max_expansions_)
            return endSearch(PathStatus::out_of_nodes);
        const double g_u = records_[u].g;
        double h_u = 0;
        if (bpmx_) {
            // BPMX (Felner et al. 2005): on a symmetric graph h(v) - cost(u, v) also bounds u
            // (taken from neighbours already generated, whose h is stored), and h(u) - cost(u, v)
            // bounds v; propagating the larger values cuts re-expansions under the inconsistent
            // cluster heuristic.
            h_u = records_[u].f - g_u;
            expand(u, [&](uint32_t v, double cost, uint32_t) {
                const Record& r = records_[v];
                if (r.stamp == stamp_ && r.f - r.g - cost > h_u) h_u = r.f - r.g - cost;
            });
            records_[u].f = g_u + h_u;
        }
        expand(u, [&](uint32_t v, double cost, uint32_t via) {
            const double g = g_u + cost;
            Record& r = records_[v];
            if (r.stamp != stamp_) {
                double h = heuristic(v, goal);
                if (h == HUGE_VAL) return;  // cluster table: the goal is unreachable from v
                if (bpmx_ && h_u - cost > h) h = h_u - cost;
                r = Record{g, g + h, u, stamp_, kNotInHeap, via};
                heapPush(v);
            } else if (bpmx_ && h_u - cost > r.f - r.g && r.heap_index != kClosed && g >= r.g) {
                r.f = r.g + (h_u - cost);  // BPMX: raise an open node's bound
                heapIncrease(v);
            } else if (g < r.g) {
                if (r.heap_index != kClosed) {
                    r.f += g - r.g;
                    r.g = g;
                    r.parent = u;
                    r.via = via;
                    heapDecrease(v);
                } else if (use_clusters_) {
                    // Inconsistent (cluster) heuristic: reopen a closed node on a cheaper path.
                    r.f += g - r.g;
                    r.g = g;
                    r.parent = u;
                    r.via = via;
                    r.heap_index = kNotInHeap;
                    heapPush(v);
                }
            }
        });
    }
    return endSearch(PathStatus::no_path);
}

template <class Expand>
PathStatus PathQuery::search(uint32_t start, uint32_t goal, Expand&& expand) {
    startNodes(start, goal);
    active_ = Active::nodes;
    return searchLoop(UINT64_MAX, expand);
}

template <class Relax>
void PathQuery::expandEdges(uint32_t u, Relax&& relax) const {
    const GraphView& g = *graph_;
    if (!restricted()) {
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
            relax(g.edgeTarget(u, e), double(g.edge_costs[e]), e);
        return;
    }
    // Tile edges cost length x the mean of their ends' area costs: with a filter, each end's cost
    // is scaled by its multiplier (links keep their cost).
    const bool areas = filter_ != nullptr && g.cells != nullptr;
    const uint32_t area_u =
        areas ? fmt::decodeNodeCell(g.cells + size_t(u) * fmt::kNodeCellSize).area : 0;
    for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
        const uint32_t v = g.edgeTarget(u, e);
        if (!enters(v)) continue;
        const uint32_t link = g.edgeLink(e);
        if (link != fmt::kNoLink && blocking_ != nullptr && blocking_->link(link)) continue;
        double cost = double(g.edge_costs[e]);
        if (areas && link == fmt::kNoLink) {
            const uint32_t area_v =
                fmt::decodeNodeCell(g.cells + size_t(v) * fmt::kNodeCellSize).area;
            const double cu = g.area_costs[area_u], cv = g.area_costs[area_v];
            if (cu + cv > 0)
                cost *= (cu * areaFactor(area_u) + cv * areaFactor(area_v)) / (cu + cv);
        }
        relax(v, cost, e);
    }
}

template <class Relax>
void PathQuery::expandVolume(uint32_t u, Relax&& relax) const {
    const GraphView& g = *graph_;
    const fmt::GraphHeader& h = g.header;
    const Voxel v = voxelOf(h, u);
    const bool blocking = blocking_ != nullptr && blocking_->count() > 0;
    for (int d = 0; d < 26; ++d) {
        const Direction& dir = kDirections[d];
        if (!boxFree(g, v, dir.dx, dir.dy, dir.dz)) continue;
        const uint32_t w = voxelIndex(h, v.x + dir.dx, v.y + dir.dy, v.z + dir.dz);
        if (blocking && blocking_->node(w)) continue;
        relax(w, step_cost_[d], kNoNode);
    }
    if (volume_link_count_ > 0) expandVolumeLinks(u, relax);  // teleports
}

void PathQuery::beginSearch(bool have_points) {
    active_ = Active::none;  // a search in progress is abandoned
    partial_ = false;
    use_clusters_ = bpmx_ = jumped_ = use_landmarks_ = false;
    have_points_ = have_points;
    path_length_ = 0;
    expansions_ = 0;
    cost_ = 0;
}

PathStatus PathQuery::findPathWithin(uint32_t start, uint32_t goal, const uint32_t* cluster_marks,
                                     uint32_t mark, uint32_t stop_cluster) {
    beginSearch(false);
    if (graph_ == nullptr) return PathStatus::not_initialized;
    const GraphView& g = *graph_;
    if (g.implicitVolume() || g.isPov() ||
        ((cluster_marks || stop_cluster != kNoNode) && !g.hasClusters()))
        return PathStatus::not_initialized;
    if (start >= g.nodeCount()) return PathStatus::invalid_start;
    if (goal != kNoNode && goal >= g.nodeCount()) return PathStatus::invalid_goal;
    stop_cluster_ = stop_cluster;
    const uint32_t* clusters = g.node_clusters;
    const PathStatus status = search(start, goal, [&](uint32_t u, auto&& relax) {
        expandEdges(u, [&](uint32_t v, double cost, uint32_t e) {
            if (cluster_marks == nullptr || cluster_marks[clusters[v]] == mark) relax(v, cost, e);
        });
    });
    stop_cluster_ = kNoNode;
    return status;
}

double PathQuery::settledCost(uint32_t node) const {
    if (graph_ == nullptr || node >= record_count_) return HUGE_VAL;
    const Record& r = records_[node];
    return r.stamp == stamp_ && r.heap_index == kClosed ? r.g : HUGE_VAL;
}

PathStatus PathQuery::findPath(uint32_t start, uint32_t goal) {
    const PathStatus status = beginPath(start, goal);
    return status == PathStatus::in_progress ? step(UINT64_MAX) : status;
}

// JPS+ (D. Harabor and A. Grastien, "Improving Jump Point Search", ICAPS 2014; S. Rabin, "JPS+",
// Game AI Pro 2, 2015) over the table lib/graph/jump_points bakes: a regular node reached along
// d expands d and, for a straight d, its two sides and the diagonals between (those that can be
// forced); along a diagonal, d and its two straight parts. A jump whose line passes the goal (or,
// diagonally, the goal's row or column) stops there. Special nodes, and the nodes reached from
// them, expand as A* does (edges; then every direction).
uint32_t PathQuery::nodeAt(uint32_t column, uint32_t y) const {
    return fmt::columnNodeAt(graph_->column_nodes, graph_->cells, column, y);
}

// A jump's landing node: the table was checked to continue along real edges at the jumping
// node's height (validateJumpEntries), so a column of one node holds it.
uint32_t PathQuery::jumpTarget(uint32_t column, uint32_t y) const {
    const uint32_t* nodes = graph_->column_nodes;
    const uint32_t first = nodes[column];
    return nodes[column + 1] - first == 1 ? first : nodeAt(column, y);
}

// JPS+'s open list: a binary heap of (f, g, node) held in the entries themselves (no record
// lookups while sifting); an improved node is pushed again and its old entry skipped when popped
// (lazy deletion). Order as navrt_heap.h: smaller f, then larger g, then lower id.
namespace {
template <class Entry>
bool jumpBefore(const Entry& a, const Entry& b) {
    if (a.f != b.f) return a.f < b.f;
    if (a.g != b.g) return a.g > b.g;
    return a.node < b.node;
}
template <class Entry>
void jumpSiftDown(Entry* heap, uint32_t size, uint32_t i) {
    const Entry e = heap[i];
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= size) break;
        child += uint32_t(child + 1 < size && jumpBefore(heap[child + 1], heap[child]));
        if (!jumpBefore(heap[child], e)) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = e;
}
}  // namespace

void PathQuery::jumpPush(const JumpOpen& e) {
    if (jump_open_size_ == record_count_) {
        // Full: drop the stale entries (closed nodes, or a node pushed again since). Each open
        // node keeps one live entry, so this always makes room.
        uint32_t kept = 0;
        for (uint32_t i = 0; i < jump_open_size_; ++i) {
            const JumpOpen& old = jump_open_[i];
            const Record& r = records_[old.node];
            if (r.heap_index != kClosed && r.g == old.g) jump_open_[kept++] = old;
        }
        jump_open_size_ = kept;
        for (uint32_t i = kept / 2; i-- > 0;) jumpSiftDown(jump_open_, kept, i);
    }
    uint32_t i = jump_open_size_++;
    while (i > 0) {
        const uint32_t parent = (i - 1) / 2;
        if (!jumpBefore(e, jump_open_[parent])) break;
        jump_open_[i] = jump_open_[parent];
        i = parent;
    }
    jump_open_[i] = e;
}

bool PathQuery::jumpPop(JumpOpen& out) {
    while (jump_open_size_ > 0) {
        out = jump_open_[0];
        if (--jump_open_size_ > 0) {
            jump_open_[0] = jump_open_[jump_open_size_];
            jumpSiftDown(jump_open_, jump_open_size_, 0);
        }
        Record& r = records_[out.node];
        if (r.heap_index == kClosed || r.g != out.g) continue;  // stale
        r.heap_index = kClosed;
        return true;
    }
    return false;
}

PathStatus PathQuery::jumpLoop(uint64_t budget) {
    const GraphView& g = *graph_;
    const uint32_t goal = search_goal_;
    const int64_t width = g.header.size_x;
    const double straight = double(g.jump_straight_cost), diagonal = double(g.jump_diagonal_cost);
    // The octile heuristic from the cell coordinates the jumps already know (plainHeuristic's
    // arithmetic); with shortcuts or another kind, the general one.
    const bool octile = shortcut_count_ == 0 && g.header.heuristic == fmt::HeuristicKind::octile;
    const double scale = double(g.header.min_cost_multiplier) * kHeuristicSafety * filter_scale_;
    const double cell = double(g.header.cell_size);
    auto estimate = [&](uint32_t v, int64_t x, int64_t z) {
        if (!octile) return heuristic(v, goal);
        const double dx = double(x > jump_goal_x_ ? x - jump_goal_x_ : jump_goal_x_ - x);
        const double dz = double(z > jump_goal_z_ ? z - jump_goal_z_ : jump_goal_z_ - z);
        return fmt::octileCells(dx, dz) * cell * scale;
    };
    for (;;) {
        if (budget == 0) return PathStatus::in_progress;
        --budget;
        JumpOpen top;
        if (!jumpPop(top)) break;
        const uint32_t u = top.node;
        ++expansions_;
        noteBest(u);
        if (u == goal) return endSearch(finishPath(goal));
        if (max_expansions_ != 0 && expansions_ >= max_expansions_)
            return endSearch(PathStatus::out_of_nodes);
        const double g_u = records_[u].g;
        // (The octile heuristic is consistent: a closed node is never reopened.)
        auto relax = [&](uint32_t v, double cost, uint32_t via, int64_t x, int64_t z, uint16_t y) {
            const double gv = g_u + cost;
            Record& r = records_[v];
            if (r.stamp != stamp_) {
                const double h = estimate(v, x, z);
                if (h == HUGE_VAL) return;
                r = Record{gv, gv + h, u, stamp_, 0, via};
                jumpPush({r.f, gv, v, uint32_t(x), uint32_t(z), y});
            } else if (gv < r.g && r.heap_index != kClosed) {
                r.f += gv - r.g;
                r.g = gv;
                r.parent = u;
                r.via = via;
                jumpPush({r.f, gv, v, uint32_t(x), uint32_t(z), y});
            }
        };
        const int16_t* entry = g.jump_entries + size_t(u) * fmt::kJumpDirections;
        if (entry[0] == fmt::kJumpSpecial) {  // A*'s expansion
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t v = g.edgeTarget(u, e);
                const fmt::NodeCell cv =
                    fmt::decodeNodeCell(g.cells + size_t(v) * fmt::kNodeCellSize);
                const uint32_t row = cv.column / uint32_t(width);
                relax(v, double(g.edge_costs[e]), e, cv.column - row * uint32_t(width), row, cv.y);
            }
            continue;
        }
        const int64_t ux = top.x, uz = top.z;
        const uint16_t uy = top.y;
        // The directions: all from the start or after a special node (reached by an edge); else
        // those the arriving jump's direction allows.
        uint32_t mask = 0xFF;
        if (const uint32_t via = records_[u].via; isJump(via)) {
            const int d = int(via & 7u);
            if (d >= 4) {
                mask = 1u << d | 1u << fmt::jumpFirstCardinal(d) | 1u << fmt::jumpSecondCardinal(d);
            } else {
                const int left = (d + 1) % 4, right = (d + 3) % 4;
                mask = 1u << d | 1u << left | 1u << right | 1u << (4 + d) | 1u << (4 + right);
            }
        }
        const int64_t gx = jump_goal_x_ - ux, gz = jump_goal_z_ - uz;
        if (g.jump_bounds != nullptr) {
            // Goal bounding: only directions that start a shortest path to some cell of a box
            // holding the goal.
            const uint16_t* boxes =
                g.jump_bounds + size_t(u) * fmt::kJumpDirections * fmt::kJumpBoundValues;
            for (uint32_t m = mask; m != 0; m &= m - 1) {
                const int d = std::countr_zero(m);
                if (!fmt::jumpBoundsHold(boxes + d * fmt::kJumpBoundValues, uint32_t(jump_goal_x_),
                                         uint32_t(jump_goal_z_)))
                    mask &= ~(1u << d);
            }
        }
        for (; mask != 0; mask &= mask - 1) {
            const int d = std::countr_zero(mask);
            const int16_t k = entry[d];
            const int64_t reach = k > 0 ? k : -int64_t(k);
            if (reach == 0) continue;
            const int dx = fmt::jumpDx(d), dz = fmt::jumpDz(d);
            const bool diag = fmt::jumpIsDiagonal(d);
            // Goal bounding: the goal on this line, or (diagonally) its row or column crossed.
            int64_t stop = 0;
            if (!diag) {
                const int64_t along = dx != 0 ? gx * dx : gz * dz;
                const int64_t across = dx != 0 ? gz : gx;
                if (across == 0 && along > 0 && along <= reach && jump_goal_y_ == uy) stop = along;
            } else if (gx * dx > 0 && gz * dz > 0) {
                const int64_t m = std::min(gx * dx, gz * dz);
                if (m <= reach) stop = m;
            }
            const int64_t steps = stop > 0 ? stop : (k > 0 ? k : 0);
            if (steps == 0) continue;
            const int64_t x = ux + steps * dx, z = uz + steps * dz;
            const uint32_t v = jumpTarget(uint32_t(z * width + x), uy);
            if (v == kNoNode) continue;  // (a corrupt table: the line is not there)
            relax(v, double(steps) * (diag ? diagonal : straight), kJumpVia | uint32_t(d), x, z,
                  uy);
        }
    }
    return endSearch(PathStatus::no_path);
}

void PathQuery::fillJumps() {
    const GraphView& g = *graph_;
    const uint32_t width = g.header.size_x;
    // The jump onto path_[i] (1 step for an edge): its steps and the column offset of one step
    // (the larger of its column offsets, along its line).
    auto jump = [&](uint32_t i, int64_t& step) -> int64_t {
        const int64_t a =
            fmt::decodeNodeCell(g.cells + size_t(path_[i - 1]) * fmt::kNodeCellSize).column;
        const int64_t b =
            fmt::decodeNodeCell(g.cells + size_t(path_[i]) * fmt::kNodeCellSize).column;
        const int64_t dx = b % width - a % width, dz = b / width - a / width;
        step = ((dz > 0) - (dz < 0)) * int64_t(width) + ((dx > 0) - (dx < 0));
        return isJump(records_[path_[i]].via) ? std::max(std::abs(dx), std::abs(dz)) : 1;
    };
    // The path's length with the jumps' nodes, then the path rebuilt from its end, the nodes
    // between jump points looked up along their line.
    uint32_t total = path_length_;
    int64_t step = 0;
    for (uint32_t i = 1; i < path_length_; ++i) total += uint32_t(jump(i, step) - 1);
    if (total > record_count_) return;  // (cannot happen: a shortest path visits a node once)
    uint32_t out = total;
    for (uint32_t i = path_length_; i-- > 0;) {
        const uint32_t v = path_[i];
        path_[--out] = v;
        if (i == 0) continue;
        const int64_t steps = jump(i, step);
        const int64_t b = fmt::decodeNodeCell(g.cells + size_t(v) * fmt::kNodeCellSize).column;
        const uint32_t y = fmt::decodeNodeCell(g.cells + size_t(v) * fmt::kNodeCellSize).y;
        for (int64_t k = 1; k < steps; ++k) path_[--out] = nodeAt(uint32_t(b - k * step), y);
    }
    path_length_ = total;
}

PathStatus PathQuery::findPathJumping(uint32_t start, uint32_t goal) {
    if (graph_ == nullptr || graph_->jump_entries == nullptr || restricted() ||
        heuristic_ == Heuristic::cluster || graph_->header.type != fmt::GraphType::tile)
        return findPath(start, goal);
    const PathStatus status = beginPath(start, goal);
    if (status != PathStatus::in_progress) return status;
    active_ = Active::jumps;
    jumped_ = true;
    // The start moves from the indexed heap to JPS+'s open list.
    heap_size_ = 0;
    jump_open_size_ = 0;
    records_[start].heap_index = 0;
    const fmt::NodeCell cell =
        fmt::decodeNodeCell(graph_->cells + size_t(start) * fmt::kNodeCellSize);
    const uint32_t row = cell.column / graph_->header.size_x;
    jumpPush({records_[start].f, records_[start].g, start,
              cell.column - row * graph_->header.size_x, row, cell.y});
    const fmt::NodeCell goal_cell =
        fmt::decodeNodeCell(graph_->cells + size_t(goal) * fmt::kNodeCellSize);
    jump_goal_x_ = goal_cell.column % graph_->header.size_x;
    jump_goal_z_ = goal_cell.column / graph_->header.size_x;
    jump_goal_y_ = goal_cell.y;
    return step(UINT64_MAX);
}

PathStatus PathQuery::beginPath(uint32_t start, uint32_t goal) {
    beginSearch(false);
    if (graph_ == nullptr) return PathStatus::not_initialized;
    const GraphView& g = *graph_;
    if (!g.isFree(start)) return PathStatus::invalid_start;
    if (!g.isFree(goal)) return PathStatus::invalid_goal;
    if (g.isPov()) {  // corner to corner: a point query between the two exact vertices
        have_points_ = true;
        const fmt::PovGrid grid = povGrid(g);
        return beginPov(g.position(start), fmt::povCornerPoint(grid, start),
                        fmt::povCornerCell(grid, start), g.position(goal),
                        fmt::povCornerPoint(grid, goal), fmt::povCornerCell(grid, goal));
    }
    if (g.components[start] != g.components[goal]) return PathStatus::no_path;
    if (start != goal && restricted() && !enters(goal)) return PathStatus::no_path;
    use_clusters_ = heuristic_ == Heuristic::cluster && g.hasClusters();
    bpmx_ = use_clusters_ && (g.cluster_header.flags & fmt::kClusterFlagSymmetric) != 0;
    if (use_clusters_) {
        goal_column_ = g.cluster_table + g.node_clusters[goal];
        cluster_scale_ = double(g.cluster_header.scale) * kHeuristicSafety;
        use_landmarks_ = g.landmarks.present();
        landmark_scale_ = kHeuristicSafety * filter_scale_;
        if (goal_column_[size_t(g.node_clusters[start]) * g.cluster_count] ==
            fmt::kClusterUnreachable)
            return PathStatus::no_path;  // the table proves it: no expansion needed
    }
    if (g.implicitVolume()) {
        const fmt::GraphHeader& h = g.header;
        for (int d = 0; d < 26; ++d) {
            const double dx = kDirections[d].dx * double(h.cell_size);
            const double dy = kDirections[d].dy * double(h.cell_height);
            const double dz = kDirections[d].dz * double(h.cell_size);
            step_cost_[d] = std::sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    startNodes(start, goal);
    active_ = g.implicitVolume() ? Active::volume : Active::nodes;
    return PathStatus::in_progress;
}

PathStatus PathQuery::step(uint64_t max_iterations) {
    switch (active_) {
        case Active::nodes:
            return searchLoop(max_iterations,
                              [&](uint32_t u, auto&& relax) { expandEdges(u, relax); });
        case Active::volume:
            return searchLoop(max_iterations,
                              [&](uint32_t u, auto&& relax) { expandVolume(u, relax); });
        case Active::mesh: return meshLoop(max_iterations);
        case Active::pov: return povLoop(max_iterations);
        case Active::jumps: {
            const PathStatus status = jumpLoop(max_iterations);
            if (status == PathStatus::found) fillJumps();
            return status;
        }
        case Active::none: break;
    }
    return PathStatus::not_initialized;  // no search in progress
}

PathStatus PathQuery::finishPartial() {
    active_ = Active::none;
    path_length_ = 0;
    if (graph_ == nullptr || best_node_ == kNoNode) return PathStatus::no_path;
    const GraphView& g = *graph_;
    // Navmesh and POV paths end at a point: where the best node was entered (a POV corner).
    if (g.isNavmesh() && have_points_) to_ = entryPoint(best_node_);
    if (g.isPov() && best_node_ < g.nodeCount()) to_ = g.position(best_node_);
    finishPath(best_node_);
    if (jumped_) fillJumps();
    partial_ = true;
    return PathStatus::found;
}

bool PathQuery::lineOfSight(uint32_t a, uint32_t b) const {
    const GraphView& g = *graph_;
    const fmt::GraphHeader& h = g.header;
    if (a == b) return true;
    // Dirichlet graphs know their domains, not what lies between two waypoints: the path goes
    // from waypoint to waypoint (Millington & Funge 4.4.2).
    if (g.isDirichlet()) return false;
    if (g.isPov())
        return a < g.nodeCount() && b < g.nodeCount() && fmt::povCornersVisible(povGrid(g), a, b);
    if (g.isNavmesh()) {
        const RaycastHit hit = raycast(g, a, g.position(a), g.position(b));
        return !hit.hit && hit.last_poly == b;
    }
    if (g.implicitVolume()) {
        // Voxel walk along the segment between the centres (Amanatides & Woo 1987); where the
        // segment crosses an edge or corner, every voxel of the box it passes is checked.
        const Voxel va = voxelOf(h, a), vb = voxelOf(h, b);
        int cur[3] = {va.x, va.y, va.z};
        const int end[3] = {vb.x, vb.y, vb.z};
        int step[3];
        double t_max[3], t_delta[3];
        for (int i = 0; i < 3; ++i) {
            const int d = end[i] - cur[i];
            step[i] = d > 0 ? 1 : (d < 0 ? -1 : 0);
            t_delta[i] = d != 0 ? 1.0 / std::fabs(double(d)) : 2.0;
            t_max[i] = d != 0 ? 0.5 * t_delta[i] : 2.0;
        }
        while (cur[0] != end[0] || cur[1] != end[1] || cur[2] != end[2]) {
            const double t = std::fmin(t_max[0], std::fmin(t_max[1], t_max[2]));
            int move[3] = {0, 0, 0};
            for (int i = 0; i < 3; ++i)
                if (step[i] != 0 && t_max[i] - t < 1e-9) {
                    move[i] = step[i];
                    t_max[i] += t_delta[i];
                }
            if (!boxFree(g, Voxel{cur[0], cur[1], cur[2]}, move[0], move[1], move[2])) return false;
            for (int i = 0; i < 3; ++i) cur[i] += move[i];
        }
        return true;
    }
    // Tile graph: walk the columns the segment between the cell centres passes (a supercover
    // line), moving along graph edges only, so steps, floors and corner rules are respected.
    const fmt::NodeCell ca = fmt::decodeNodeCell(g.cells + size_t(a) * fmt::kNodeCellSize);
    const fmt::NodeCell cb = fmt::decodeNodeCell(g.cells + size_t(b) * fmt::kNodeCellSize);
    int x = int(ca.column % h.size_x), z = int(ca.column / h.size_x);
    const int bx = int(cb.column % h.size_x), bz = int(cb.column / h.size_x);
    const int nx = std::abs(bx - x), nz = std::abs(bz - z);
    const int sx = bx > x ? 1 : -1, sz = bz > z ? 1 : -1;
    long long error = (long long)nx - nz;  // scaled by 2 below (centre-to-centre line)
    uint32_t current = a;
    int ix = 0, iz = 0;
    while (ix < nx || iz < nz) {
        int mx = 0, mz = 0;
        if (error > 0) {
            mx = sx;
            error -= 2LL * nz;
            ++ix;
        } else if (error < 0) {
            mz = sz;
            error += 2LL * nx;
            ++iz;
        } else {  // exactly through a corner: a diagonal move
            mx = sx;
            mz = sz;
            error += 2LL * nx - 2LL * nz;
            ++ix;
            ++iz;
        }
        const uint32_t next_column = uint32_t((z + mz) * int(h.size_x) + (x + mx));
        uint32_t next = kNoNode;
        for (uint32_t e = g.edge_offsets[current]; e < g.edge_offsets[current + 1]; ++e) {
            if (g.edgeLink(e) != fmt::kNoLink) continue;  // a drop or jump is no line of sight
            const uint32_t t = g.edgeTarget(current, e);
            if (fmt::decodeNodeCell(g.cells + size_t(t) * fmt::kNodeCellSize).column ==
                next_column) {
                next = t;
                break;
            }
        }
        if (next == kNoNode) return false;
        current = next;
        x += mx;
        z += mz;
    }
    return current == b;
}

uint32_t PathQuery::smoothedIndices(uint32_t* out, uint32_t* links) const {
    if (path_length_ == 0) return 0;
    uint32_t count = 0;
    uint32_t anchor = 0;
    out[count++] = path_[0];
    // A link step (drop, jump, ladder...) is never cut: both its ends become corners, and the
    // segment between them is the link's.
    auto emit = [&](uint32_t node, uint32_t link) {
        links[count - 1] = link;  // the segment ending at this point
        out[count++] = node;
    };
    uint32_t i = 0;  // the path is walked up to node i, seen straight from the anchor
    while (i + 1 < path_length_) {
        const uint32_t j = i + 1;
        const uint32_t link = pathLink(i);
        if (link != fmt::kNoLink) {
            if (out[count - 1] != path_[i]) emit(path_[i], fmt::kNoLink);
            emit(path_[j], link);
            anchor = i = j;
        } else if (i == anchor || lineOfSight(path_[anchor], path_[j])) {
            i = j;
        } else {
            emit(path_[i], fmt::kNoLink);
            anchor = i;
        }
    }
    if (out[count - 1] != path_[path_length_ - 1]) emit(path_[path_length_ - 1], fmt::kNoLink);
    return count;
}

uint32_t PathQuery::smooth(Vec3* points, uint32_t capacity, uint32_t* segment_links) const {
    if (graph_ == nullptr) return 0;
    uint32_t count = 0;
    if (graph_->isNavmesh()) {
        count = funnel(points, capacity);
    } else if (graph_->isPov()) {
        count = povPolyline(points, capacity);  // already taut
        for (uint32_t i = 0; i + 1 < count; ++i) segment_scratch_[i] = pathLink(i);
    } else {
        count = smoothedIndices(scratch_, segment_scratch_);
        for (uint32_t i = 0; i < count && i < capacity; ++i)
            points[i] = graph_->position(scratch_[i]);
    }
    if (segment_links != nullptr)
        for (uint32_t i = 0; i + 1 < count && i < capacity; ++i)
            segment_links[i] = segment_scratch_[i];
    if (segment_links != nullptr && count > 0 && count - 1 < capacity)
        segment_links[count - 1] = fmt::kNoLink;  // no segment after the last point
    return count;
}

double PathQuery::smoothedLength() const {
    if (graph_ != nullptr && graph_->isPov()) {
        // The polyline's length (cost() adds link costs instead of their lengths).
        if (path_length_ == 0) return 0.0;
        double length = 0;
        Vec3 previous = from_;
        for (uint32_t i = 1; i < path_length_; ++i) {
            const Vec3 next = i + 1 < path_length_ ? graph_->position(path_[i]) : to_;
            const double dx = double(previous.x) - next.x, dy = double(previous.y) - next.y,
                         dz = double(previous.z) - next.z;
            length += std::sqrt(dx * dx + dy * dy + dz * dz);
            previous = next;
        }
        return length;
    }
    if (graph_ != nullptr && graph_->isNavmesh()) {
        const uint32_t count = funnel(funnel_points_, path_length_ * 2 + 2);
        double length = 0;
        for (uint32_t i = 1; i < count; ++i) {
            const Vec3 p = funnel_points_[i - 1], q = funnel_points_[i];
            const double dx = double(p.x) - q.x, dy = double(p.y) - q.y, dz = double(p.z) - q.z;
            length += std::sqrt(dx * dx + dy * dy + dz * dz);
        }
        return length;
    }
    const uint32_t count = smoothedIndices(scratch_, segment_scratch_);
    double length = 0;
    for (uint32_t i = 1; i < count; ++i) {
        const Vec3 p = graph_->position(scratch_[i - 1]), q = graph_->position(scratch_[i]);
        const double dx = double(p.x) - q.x, dy = double(p.y) - q.y, dz = double(p.z) - q.z;
        length += std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    return length;
}

}  // namespace navrt
