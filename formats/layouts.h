// Artifact kinds, section ids and the fixed-size records inside sections.
// Shared by the bake side (which writes them) and navrt (which reads them); FORMAT.md specifies
// every field. All multi-byte fields are little-endian.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "formats/container.h"

namespace nav::formats {

// Artifact kinds (container header bytes 12..15).
inline constexpr uint32_t kKindGeometry = fourcc("GEOM");   // .geo: imported triangle soup
inline constexpr uint32_t kKindVoxels = fourcc("VOXL");     // .vox: span heightfield + walkability
inline constexpr uint32_t kKindGraph = fourcc("GRPH");      // .graph (later stages)
inline constexpr uint32_t kKindNav = fourcc("NAVA");        // .nav runtime asset (later stages)
inline constexpr uint32_t kKindClusters = fourcc("CLUS");   // .clu: clusters + heuristic table
inline constexpr uint32_t kKindHierarchy = fourcc("HIER");  // .hier: multi-level graph + entrances
inline constexpr uint32_t kKindNextHop = fourcc("NHOP");    // .nh: all-pairs next-hop table
inline constexpr uint32_t kKindHierNextHop = fourcc("NHHI");  // .nhh: hierarchical next-hop table
inline constexpr uint32_t kKindWorld = fourcc("WRLD");  // .world: index of a tiled world's assets

// Newest layout version of each kind that this code writes and reads.
// Geometry and voxel grids: v2 adds the link specs of scene objects (SLNK, SLNM; FORMAT.md §4.4),
// v3 the designer markers of scene objects (SMRK; §4.5).
// Writers emit v1 when there are none (byte-identical to before), v2 otherwise; readers take both.
inline constexpr uint32_t kGeometryVersion = 3;
// v4: the strips layout of world builds (GSTR + the tail GSTP instead of VERT, TRIS, TARE, TOBJ;
// FORMAT.md §4.6). Only voxelize and inspect read it. v5: the same with each block's X extent in
// GSTR (so a reader of a block of columns skips the blocks beside it); v5 is written, both read.
inline constexpr uint32_t kGeometryStripsVersion = 4;
inline constexpr uint32_t kGeometryStripExtentsVersion = 5;
inline constexpr uint32_t kVoxelsVersion = 3;
// Graph and nav assets: v2 adds link lanes, user link types (LTYP), links on implicit volume
// graphs and POV link-end vertices (FORMAT.md §6.2.1). Writers emit v1 for graphs without links
// (byte-identical to before), v2 otherwise; readers take both.
inline constexpr uint32_t kGraphVersion = 2;
inline constexpr uint32_t kNavVersion = 2;
inline constexpr uint32_t kClustersVersion = 1;
inline constexpr uint32_t kHierarchyVersion = 1;
inline constexpr uint32_t kNextHopVersion = 1;
inline constexpr uint32_t kHierNextHopVersion = 1;
inline constexpr uint32_t kWorldVersion = 1;

// Sections shared by several kinds.
inline constexpr uint32_t kSecAreas = fourcc("AREA");       // area-type table
inline constexpr uint32_t kSecSourceName = fourcc("NAME");  // optional: source file base name
// Optional (GEOM and VOXL v2): links from scene objects, bake side only (navrt skips them).
inline constexpr uint32_t kSecLinkSpecs = fourcc("SLNK");      // 64-byte link spec records
inline constexpr uint32_t kSecLinkSpecNames = fourcc("SLNM");  // their names and user types
inline constexpr uint32_t kSecMarkers = fourcc("SMRK");        // designer markers (§4.5)
inline constexpr uint32_t kSecDomainOwners = fourcc("DOWN");   // Dirichlet: owner per cell
inline constexpr uint32_t kSecPoiKinds = fourcc("PKND");       // point-of-interest kinds
inline constexpr uint32_t kSecPoiDistances = fourcc("PDST");   // per kind, node: distance
inline constexpr uint32_t kSecPoiNext = fourcc("PHOP");        // per kind, node: next hop
inline constexpr uint32_t kPoiKindNameSize = 32;  // PKND: zero-padded names of 1..31 bytes
inline constexpr uint32_t kMaxPoiKinds = 64;

// GEOM sections.
inline constexpr uint32_t kSecGeometryHeader = fourcc("GHDR");
inline constexpr uint32_t kSecVertices = fourcc("VERT");         // f32 x, y, z per vertex
inline constexpr uint32_t kSecTriangles = fourcc("TRIS");        // u32 a, b, c per triangle
inline constexpr uint32_t kSecTriangleAreas = fourcc("TARE");    // u8 area id per triangle
inline constexpr uint32_t kSecTriangleObjects = fourcc("TOBJ");  // u32 object index per triangle
inline constexpr uint32_t kSecObjectNames = fourcc("OBJN");      // object + material names
inline constexpr uint32_t kSecGeometryStrips = fourcc("GSTR");   // strip and block table
inline constexpr uint32_t kSecGeometryStripBlocks = fourcc("GSTP");  // strip blocks (the tail)

// VOXL sections.
inline constexpr uint32_t kSecVoxelHeader = fourcc("VHDR");
inline constexpr uint32_t kSecColumns = fourcc("COLS");  // u32 first-span index per column, +1
inline constexpr uint32_t kSecSpans = fourcc("SPAN");    // 8-byte span records

// GRPH / NAVA sections (a .nav holds the graph sections of the .graph it was packed from).
inline constexpr uint32_t kSecGraphHeader = fourcc("GRHD");
inline constexpr uint32_t kSecNodePositions = fourcc("NPOS");  // f32 x, y, z per node
inline constexpr uint32_t kSecNodeCells = fourcc("NCEL");      // 8-byte node-cell records
inline constexpr uint32_t kSecColumnNodes = fourcc("CNOD");    // u32 first node per column, +1
inline constexpr uint32_t kSecEdgeOffsets = fourcc("EOFF");    // u32 first edge per node, +1
inline constexpr uint32_t kSecEdgeTargets = fourcc("EDST");    // u32 target node per edge
inline constexpr uint32_t kSecEdgeCosts = fourcc("ECST");      // f32 cost per edge
inline constexpr uint32_t kSecComponents = fourcc("NCMP");     // u32 component id per node
inline constexpr uint32_t kSecFreeVoxels = fourcc("VFRE");     // volume: u64 words, 1 bit/voxel
// Navmesh graphs (node = polygon).
inline constexpr uint32_t kSecMeshVertices = fourcc("MVRT");    // f32 x, y, z per vertex
inline constexpr uint32_t kSecPolyOffsets = fourcc("MPOF");     // u32 first corner per polygon, +1
inline constexpr uint32_t kSecPolyVertices = fourcc("MPVI");    // u32 vertex per polygon corner
inline constexpr uint32_t kSecPolyNeighbours = fourcc("MPNB");  // u32 polygon across each edge
inline constexpr uint32_t kSecPolyAreas = fourcc("MPAR");       // u8 area per polygon
inline constexpr uint32_t kSecPolyInfo = fourcc("MPIN");        // u32 region, u32 tile per polygon
inline constexpr uint32_t kSecDetailOffsets = fourcc("MDOF");   // u32 first detail tri per poly, +1
inline constexpr uint32_t kSecDetailTriangles = fourcc("MDTR");   // 9 x f32 per detail triangle
inline constexpr uint32_t kSecMeshIndexHeader = fourcc("MGHD");   // spatial index header (32 bytes)
inline constexpr uint32_t kSecMeshIndexOffsets = fourcc("MGOF");  // u32 per index cell, +1
inline constexpr uint32_t kSecMeshIndexPolys = fourcc("MGPL");    // u32 polygon ids per cell
// Points-of-visibility graphs (node = convex obstacle corner) and their layer grid.
inline constexpr uint32_t kSecPovCorners = fourcc("PCRN");       // 8-byte corner records
inline constexpr uint32_t kSecLayerCells = fourcc("LCEL");       // 8-byte NodeCell per layer cell
inline constexpr uint32_t kSecLayerColumns = fourcc("LCOL");     // u32 first cell per column, +1
inline constexpr uint32_t kSecLayerNeighbours = fourcc("LNB4");  // 4 planes of u32 cell ids
inline constexpr uint32_t kSecLayerComponents = fourcc("LCMP");  // u32 component per layer cell
inline constexpr uint32_t kSecPovStats = fourcc("PSTA");         // 32-byte bake statistics
// Links (optional, explicit graphs): directed connections beyond the walkable surface's edges.
inline constexpr uint32_t kSecLinks = fourcc("LINK");      // 56-byte link records
inline constexpr uint32_t kSecEdgeLinks = fourcc("ELNK");  // u32 link per edge, kNoLink if none
inline constexpr uint32_t kSecLinkTypes = fourcc("LTYP");  // 32-byte names of user link types

// CLUS sections (a .nav packed with --clusters holds the same three after the graph's).
inline constexpr uint32_t kSecClusterHeader = fourcc("CLHD");     // 64-byte cluster header
inline constexpr uint32_t kSecNodeClusters = fourcc("CLND");      // u32 cluster per node
inline constexpr uint32_t kSecClusterTable = fourcc("CLTB");      // u16 per ordered cluster pair
inline constexpr uint32_t kSecClusterLandmarks = fourcc("CLLM");  // ALT landmark distances
// Optional, .clu of method manual only (bake side; pack and navrt skip it): the rooms.
inline constexpr uint32_t kSecClusterRooms = fourcc("CLRM");

// HIER sections (a .nav packed with --hierarchy holds the same after the cluster sections).
inline constexpr uint32_t kSecHierHeader = fourcc("HRHD");       // 64-byte hierarchy header
inline constexpr uint32_t kSecHierGroupCounts = fourcc("HGCT");  // u32 groups per level 1..L
inline constexpr uint32_t kSecHierParents = fourcc("HPAR");      // u32 parent per group, levels < L
inline constexpr uint32_t kSecHierRepresentatives = fourcc("HREP");  // u32 node per group
inline constexpr uint32_t kSecHierEdgeOffsets = fourcc("HAOF");      // u32 per group + 1 (CSR)
inline constexpr uint32_t kSecHierEdgeTargets = fourcc("HADT");      // u32 group per abstract edge
inline constexpr uint32_t kSecHierEdgeCosts = fourcc("HACS");        // 3 f32 per abstract edge
inline constexpr uint32_t kSecHierMemberOffsets = fourcc("HMOF");    // u32 per cluster + 1
inline constexpr uint32_t kSecHierMembers = fourcc("HMEM");          // u32 nodes by cluster
inline constexpr uint32_t kSecHierEntranceOffsets = fourcc("HEOF");  // u32 per cluster + 1
inline constexpr uint32_t kSecHierEntrances = fourcc("HENT");        // u32 entrance nodes
inline constexpr uint32_t kSecHierEntranceEdgeOffsets = fourcc("HXOF");  // u32 per entrance + 1
inline constexpr uint32_t kSecHierEntranceEdgeTargets = fourcc("HXDT");  // u32 entrance index
inline constexpr uint32_t kSecHierEntranceEdgeCosts = fourcc("HXCS");    // f32 per entrance edge
// Optional entrance distance tables (FORMAT.md §8.2), after the 13 arrays.
inline constexpr uint32_t kSecHierTableLocal = fourcc("HTLI");      // u32 per node: local index
inline constexpr uint32_t kSecHierTableOffsets = fourcc("HTOF");    // u64 per cluster + 1
inline constexpr uint32_t kSecHierTableDistances = fourcc("HTDN");  // f32 node -> entrance

// Jump point table of a tile graph (JPS+, formats/jump_points.h; a .nav packed with
// --jump-points).
inline constexpr uint32_t kSecJumpHeader = fourcc("JPSH");   // 16 bytes: costs and counts
inline constexpr uint32_t kSecJumpEntries = fourcc("JPSE");  // i16 x 8 per node
inline constexpr uint32_t kSecJumpBounds = fourcc("JPSB");   // u16 x 4 x 8 per node: goal boxes

// NHOP sections (a .nav packed with --nexthop holds the same after the graph's).
inline constexpr uint32_t kSecNextHopHeader = fourcc("NHHD");   // 64-byte next-hop header
inline constexpr uint32_t kSecNextHopRanks = fourcc("NHRK");    // u32 rank per node
inline constexpr uint32_t kSecNextHopOffsets = fourcc("NHBO");  // u64 per stored block + 1
inline constexpr uint32_t kSecNextHopBlocks = fourcc("NHBL");   // zstd frames, one per block

// NHHI sections (a .nav packed with --nexthop FILE.nhh holds the same after the graph's).
inline constexpr uint32_t kSecHierHopHeader = fourcc("HNHD");  // 64-byte header
enum HierHopSection : uint32_t {
    kHopClusters,
    kHopLocal,
    kHopMemberOffsets,
    kHopMembers,
    kHopEntranceOffsets,
    kHopEntrances,
    kHopIntraOffsets,
    kHopIntra,
    kHopDistanceOffsets,
    kHopNodeToEntrance,
    kHopEntranceToNode,
    kHopEntranceDistances,
    kHopEntranceNext,
    kHopSectionCount
};
extern const uint32_t kHierHopSectionIds[kHopSectionCount];

// ---- Area table ------------------------------------------------------------------------------
inline constexpr uint32_t kMaxAreas = 64;
inline constexpr uint32_t kMaxAreaNameLength = 64;
inline constexpr uint8_t kAreaObstacle = 0;  // area 0: solid, never walkable
inline constexpr uint8_t kAreaGround = 1;    // area 1: ordinary walkable ground, cost 1
inline constexpr uint8_t kAreaFlagWalkable = 1;

struct AreaRecord {
    uint8_t flags = 0;  // kAreaFlagWalkable
    float cost = 1.0f;  // traversal cost multiplier, finite and > 0
    char name[kMaxAreaNameLength + 1] = {};
};
struct AreaTable {
    uint32_t count = 0;
    AreaRecord areas[kMaxAreas];
};
// AREA layout: u32 count, then per area: u8 flags, u8 0, u16 0, f32 cost, u32 name length, name.
// Area 0 must be the non-walkable obstacle area.
Error decodeAreaTable(const uint8_t* data, size_t size, AreaTable& out);
// The same checks without an AreaTable on the caller's stack (it is ~5 KB): the area count and,
// when `costs` is not null, each area's cost into costs[0..count).
Error decodeAreaCosts(const uint8_t* data, size_t size, uint32_t& count, float* costs);

// ---- GHDR: 48 bytes ----------------------------------------------------------------------------
struct GeometryHeader {
    uint32_t vertex_count = 0;
    uint32_t triangle_count = 0;
    uint32_t object_count = 0;
    uint32_t source_mesh_count = 0;  // meshes read from the source file (before filtering)
    float bounds_min[3] = {0, 0, 0};
    float bounds_max[3] = {0, 0, 0};
    uint32_t dropped_degenerate = 0;  // triangles dropped as degenerate at import
    uint32_t dropped_ignored = 0;     // triangles dropped by an `ignore` tag rule
};
inline constexpr size_t kGeometryHeaderSize = 48;
void encodeGeometryHeader(const GeometryHeader& header, uint8_t out[kGeometryHeaderSize]);
Error decodeGeometryHeader(const uint8_t* data, size_t size, GeometryHeader& out);

// ---- VHDR: 64 bytes ----------------------------------------------------------------------------
enum class VoxelSource : uint32_t { mesh = 1, grid_map = 2, voxel_map = 3 };

struct VoxelHeader {
    uint32_t size_x = 0;  // columns along X [Units: cells]
    uint32_t size_z = 0;  // columns along Z [Units: cells]
    uint32_t size_y = 0;  // grid height [Units: cell heights]; span y values are <= this
    VoxelSource source = VoxelSource::mesh;
    float origin[3] = {0, 0, 0};  // world position of the grid's minimum corner [Units: m]
    float cell_size = 0;          // [Units: m] XZ size of a cell
    float cell_height = 0;        // [Units: m] Y size of a cell
    float agent_height = 0;       // [Units: m] parameters the walkability was computed for
    float agent_radius = 0;       // [Units: m]
    float agent_climb = 0;        // [Units: m]
    float max_slope_deg = 0;      // [Units: degrees]
    uint32_t span_count = 0;
    uint32_t walkable_count = 0;  // spans whose top is walkable
};
inline constexpr size_t kVoxelHeaderSize = 64;
inline constexpr uint32_t kMaxGridColumns = 1u << 28;
inline constexpr uint32_t kMaxGridHeight = 0xFFFF;
void encodeVoxelHeader(const VoxelHeader& header, uint8_t out[kVoxelHeaderSize]);
Error decodeVoxelHeader(const uint8_t* data, size_t size, VoxelHeader& out);

// ---- SPAN: 8 bytes each ------------------------------------------------------------------------
// Solid from y_min (inclusive) to y_max (exclusive) in cell heights; the top face at y_max may be
// walkable. Spans of a column are sorted by y and separated by at least one free cell.
inline constexpr size_t kSpanRecordSize = 8;
inline constexpr uint8_t kSpanFlagWalkable = 1;
struct SpanRecord {
    uint16_t y_min;
    uint16_t y_max;
    uint8_t area;   // area id of the top surface
    uint8_t flags;  // kSpanFlagWalkable
};
inline SpanRecord decodeSpan(const uint8_t* p) {
    return {uint16_t(p[0] | p[1] << 8), uint16_t(p[2] | p[3] << 8), p[4], p[5]};
}
inline void encodeSpan(const SpanRecord& s, uint8_t* p) {
    p[0] = uint8_t(s.y_min);
    p[1] = uint8_t(s.y_min >> 8);
    p[2] = uint8_t(s.y_max);
    p[3] = uint8_t(s.y_max >> 8);
    p[4] = s.area;
    p[5] = s.flags;
    p[6] = 0;
    p[7] = 0;
}

// Checks decoded COLS and SPAN sections against the header and an area table of `area_count`
// entries: offsets monotone and ending at span_count, spans sorted/separated/in range, reserved
// bytes zero, walkable count matching. Offsets in errors are within the named section.
Error validateVoxelSections(const VoxelHeader& header, const uint8_t* columns, size_t columns_size,
                            const uint8_t* spans, size_t spans_size, uint32_t area_count);
// The same checks in parts, for a reader that decodes SPAN piece by piece: the offsets (and both
// sections' sizes), then the spans of columns [column_begin, column_end) (`spans` holding the
// records from span COLS[column_begin] on; walkable ones counted into `walkable`), then the count.
Error validateVoxelColumnOffsets(const VoxelHeader& header, const uint8_t* columns,
                                 size_t columns_size, uint64_t spans_size);
// validateVoxelColumnOffsets in parts, for a reader that decodes COLS piece by piece too: both
// sections' sizes, then the offsets of columns [c0, c1) (`offsets`: the c1 - c0 + 1 values from
// column c0's on; column 0 must start at span 0, the last column end at the span count).
Error validateVoxelSectionSizes(const VoxelHeader& header, uint64_t columns_size,
                                uint64_t spans_size);
Error validateVoxelColumnRange(const VoxelHeader& header, const uint8_t* offsets, uint64_t c0,
                               uint64_t c1);
Error validateVoxelSpans(const VoxelHeader& header, const uint8_t* columns, uint64_t column_begin,
                         uint64_t column_end, const uint8_t* spans, uint32_t area_count,
                         uint32_t& walkable);
Error validateVoxelWalkableCount(const VoxelHeader& header, uint32_t walkable);

// Checks the VERT, TRIS and TARE sections of a geometry against its header and an area table of
// `area_count` entries: sizes from the header counts, finite coordinates, vertex indices and area
// ids in range. Used by the bake-side decoder and navrt's viewGeometry alike.
Error validateGeometrySections(const GeometryHeader& header, const uint8_t* vertices,
                               size_t vertices_size, const uint8_t* triangles,
                               size_t triangles_size, const uint8_t* triangle_areas,
                               size_t triangle_areas_size, uint32_t area_count);
// Its pieces, for a reader that decodes TRIS and TARE a block at a time: the three sizes, the
// coordinates, and triangles first .. first + count - 1 (12 bytes of corners and 1 area byte
// each; error offsets are within the whole sections).
Error validateGeometrySizes(const GeometryHeader& header, uint64_t vertices_size,
                            uint64_t triangles_size, uint64_t triangle_areas_size);
Error validateGeometryVertices(const GeometryHeader& header, const uint8_t* vertices);
Error validateGeometryTriangles(const GeometryHeader& header, uint64_t first, uint64_t count,
                                const uint8_t* triangles, const uint8_t* triangle_areas,
                                uint32_t area_count);

// ---- GRHD: 96 bytes ----------------------------------------------------------------------------
enum class GraphType : uint32_t { tile = 1, volume = 2, pov = 3, navmesh = 4, dirichlet = 5 };
enum class HeuristicKind : uint32_t { octile = 1, euclidean = 2 };
inline constexpr uint32_t kGraphFlagImplicitVolume = 1;  // volume: edges implicit in VFRE

struct GraphHeader {
    GraphType type = GraphType::tile;
    uint32_t node_count = 0;
    uint32_t edge_count = 0;  // directed edges (0 for implicit volume graphs)
    uint32_t component_count = 0;
    uint32_t largest_component = 0;  // nodes in the largest component
    HeuristicKind heuristic = HeuristicKind::octile;
    float min_cost_multiplier = 1;  // smallest area cost; scales the heuristic (admissible)
    uint32_t size_x = 0, size_z = 0, size_y = 0;  // grid the nodes quantize to [Units: cells]
    float origin[3] = {0, 0, 0};                  // [Units: m]
    float cell_size = 0, cell_height = 0;         // [Units: m]
    float agent_height = 0, agent_radius = 0, agent_climb = 0, max_slope_deg = 0;
    uint32_t flags = 0;
};
inline constexpr size_t kGraphHeaderSize = 96;
void encodeGraphHeader(const GraphHeader& header, uint8_t out[kGraphHeaderSize]);
Error decodeGraphHeader(const uint8_t* data, size_t size, GraphHeader& out);

// ---- MGHD: 32 bytes ---------------------------------------------------------------------------
// A uniform grid over XZ; cell (i, j) covers [min_x + i*cell, +cell] x [min_z + j*cell, +cell] and
// lists every polygon whose XZ bounding box overlaps it (MGOF/MGPL, CSR by j * cells_x + i).
struct MeshIndexHeader {
    uint32_t cells_x = 0, cells_z = 0;
    float min_x = 0, min_z = 0;
    float cell = 1;             // [Units: m]
    uint32_t region_count = 0;  // navmesh facts shown by inspect
    uint32_t tiles_x = 1, tiles_z = 1;
};
inline constexpr size_t kMeshIndexHeaderSize = 32;
void encodeMeshIndexHeader(const MeshIndexHeader& header, uint8_t out[kMeshIndexHeaderSize]);
Error decodeMeshIndexHeader(const uint8_t* data, size_t size, MeshIndexHeader& out);

// ---- NCEL: 8 bytes per node ---------------------------------------------------------------------
// The grid cell a node stands on: column index (z * size_x + x), the span top y (tile) or the
// voxel y (volume) in cell heights, and the node's area id.
inline constexpr size_t kNodeCellSize = 8;
struct NodeCell {
    uint32_t column;
    uint16_t y;
    uint8_t area;
};
inline NodeCell decodeNodeCell(const uint8_t* p) {
    return {uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24,
            uint16_t(p[4] | p[5] << 8), p[6]};
}
inline void encodeNodeCell(const NodeCell& c, uint8_t* p) {
    for (int i = 0; i < 4; ++i) p[i] = uint8_t(c.column >> (8 * i));
    p[4] = uint8_t(c.y);
    p[5] = uint8_t(c.y >> 8);
    p[6] = c.area;
    p[7] = 0;
}

// ---- PCRN: 8 bytes per POV corner ------------------------------------------------------------
// A convex obstacle corner: the grid vertex of layer cell `cell` on the side (bx, bz) (each -1 or
// +1), i.e. vertex (x + (bx > 0), z + (bz > 0)) of the cell's column (x, z); the quadrant beyond
// the vertex in direction (bx, bz) is the obstacle. kPovCornerAnyDirection marks corners whose
// obstacle is not a quadrant (a ledge ending at the vertex, or floors spiralling around it): the
// taut-edge rule does not apply to them and every direction is kept.
inline constexpr size_t kPovCornerSize = 8;
inline constexpr uint8_t kPovCornerAnyDirection = 1;
// A link-end vertex (graph v2): not an obstacle corner but the centre of layer cell `cell`, where
// a link starts or ends; every direction is kept (it is also flagged kPovCornerAnyDirection), and
// bx = bz = 1.
inline constexpr uint8_t kPovCornerLinkEnd = 2;
inline constexpr uint8_t kPovCornerFlagsKnown = kPovCornerAnyDirection | kPovCornerLinkEnd;
struct PovCorner {
    uint32_t cell = 0;
    int8_t bx = 1, bz = 1;
    uint8_t flags = 0;
};
inline PovCorner decodePovCorner(const uint8_t* p) {
    return {uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24,
            int8_t(p[4]), int8_t(p[5]), p[6]};
}
inline void encodePovCorner(const PovCorner& c, uint8_t* p) {
    for (int i = 0; i < 4; ++i) p[i] = uint8_t(c.cell >> (8 * i));
    p[4] = uint8_t(c.bx);
    p[5] = uint8_t(c.bz);
    p[6] = c.flags;
    p[7] = 0;
}
// Record checks that need no other section: directions are +-1, flags known, reserved zero.
inline bool povCornerRecordValid(const uint8_t* p) {
    const int8_t bx = int8_t(p[4]), bz = int8_t(p[5]);
    return (bx == 1 || bx == -1) && (bz == 1 || bz == -1) && (p[6] & ~kPovCornerFlagsKnown) == 0 &&
           ((p[6] & kPovCornerLinkEnd) == 0 ||
            ((p[6] & kPovCornerAnyDirection) != 0 && bx == 1 && bz == 1)) &&
           p[7] == 0;
}

// ---- LNB4 plane order ---------------------------------------------------------------------------
// Plane k holds, for every layer cell, its neighbour across the cell side in direction k.
inline constexpr int kLayerDirections = 4;
inline constexpr int kLayerDx[4] = {1, -1, 0, 0};  // +X, -X, +Z, -Z
inline constexpr int kLayerDz[4] = {0, 0, 1, -1};

// ---- PSTA: 32 bytes ---------------------------------------------------------------------------
struct PovStats {
    uint32_t corner_count = 0;           // = node_count
    uint32_t layer_cell_count = 0;       // entries in LCEL
    uint32_t layer_component_count = 0;  // LCMP ids are below this
    uint32_t any_direction_corners = 0;  // corners with kPovCornerAnyDirection
    uint64_t visibility_edges = 0;       // directed edges of the full visibility graph
    uint64_t taut_edges = 0;             // directed edges kept (= edge_count)
};
inline constexpr size_t kPovStatsSize = 32;
void encodePovStats(const PovStats& stats, uint8_t out[kPovStatsSize]);
Error decodePovStats(const uint8_t* data, size_t size, PovStats& out);

// The distance navrt's standard A* heuristic assumes no path between two nodes beats (before its
// scale, min_cost_multiplier x a safety factor): octile distance between their cells x cell_size on
// graphs with node cells and an octile heuristic, else the 3D distance between their positions. An
// edge (a link) cheaper than this x min_cost_multiplier would make the heuristic overestimate.
// The octile distance in cells between cells dx and dz apart (dx, dz >= 0).
inline double octileCells(double dx, double dz) {
    const double low = dx < dz ? dx : dz, high = dx < dz ? dz : dx;
    return high + (1.4142135623730951 - 1.0) * low;
}
inline double heuristicDistance(const GraphHeader& h, bool cells, uint32_t column_a,
                                uint32_t column_b, const float* position_a,
                                const float* position_b) {
    if (h.heuristic == HeuristicKind::octile && cells && h.size_x > 0) {
        const double dx = std::fabs(double(column_a % h.size_x) - double(column_b % h.size_x));
        const double dz = std::fabs(double(column_a / h.size_x) - double(column_b / h.size_x));
        return octileCells(dx, dz) * h.cell_size;
    }
    const double dx = double(position_a[0]) - position_b[0];
    const double dy = double(position_a[1]) - position_b[1];
    const double dz = double(position_a[2]) - position_b[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// ---- LINK record: 56 bytes ----------------------------------------------------------------------
// A link is a directed connection between two nodes of a graph (a drop, a jump, a ladder, a door,
// a teleport...): an edge from_node -> to_node of `cost`, and, when bidirectional, an edge back of
// `reverse_cost`. ELNK names, per graph edge, the link it stands for, so a path can say which
// connection it used; several edges (plain or links) may join the same pair of nodes. A wide link
// (a ledge one can drop from anywhere along 6 m) is several records with the same id, its lanes:
// one per cell across its width, each joining its own pair of nodes; lanes share type, flags and
// user_data. On implicit volume graphs records join voxels and there is no ELNK.
enum class LinkType : uint32_t {
    drop = 1,
    jump = 2,
    climb = 3,
    ladder = 4,
    door = 5,
    teleport = 6,
    custom = 7
};
inline constexpr uint32_t kLinkTypeCount = 7;
// User link types (graph v2): type = kLinkTypeUserFirst + k names entry k of LTYP, a table of
// kLinkTypeNameSize-byte records, each a name of 1..31 characters (a-z, 0-9, '_', '-') padded
// with zero bytes, unique and no built-in name.
inline constexpr uint32_t kLinkTypeUserFirst = 256;
inline constexpr uint32_t kMaxUserLinkTypes = 64;
inline constexpr size_t kLinkTypeNameSize = 32;
// The built-in type's name ("drop", ...), or nullptr for any other value (user types included).
const char* linkTypeName(LinkType type);
inline bool isUserLinkType(LinkType type) {
    return uint32_t(type) >= kLinkTypeUserFirst &&
           uint32_t(type) < kLinkTypeUserFirst + kMaxUserLinkTypes;
}
// Whether `name` (length `size`, not terminated) may name a user link type.
bool validLinkTypeName(const char* name, size_t size);
inline constexpr uint32_t kLinkFlagBidirectional = 1;  // an edge back, of reverse_cost
inline constexpr uint32_t kLinkFlagGenerated = 2;      // generated from the agent's abilities
inline constexpr uint32_t kLinkFlagsKnown = 3;
inline constexpr uint32_t kNoLink = 0xFFFFFFFFu;
struct LinkRecord {
    uint32_t id = 0;         // stable id the game gets back (unique within the graph)
    uint32_t user_data = 0;  // opaque to navbake
    uint32_t from_node = 0;
    uint32_t to_node = 0;
    float from[3] = {0, 0, 0};  // [m] where the link starts and ends, on the walkable surface
    float to[3] = {0, 0, 0};
    float cost = 0;          // from -> to, > 0
    float reverse_cost = 0;  // to -> from when bidirectional (> 0), else 0
    LinkType type = LinkType::custom;
    uint32_t flags = 0;
};
inline constexpr size_t kLinkRecordSize = 56;
void encodeLinkRecord(const LinkRecord& link, uint8_t out[kLinkRecordSize]);
// One record: known type, known flags, positions finite, costs positive and finite (reverse_cost
// exactly when bidirectional). Errors are bad_section of LINK at the record's byte offset.
Error decodeLinkRecord(const uint8_t* data, size_t size, LinkRecord& out);

// ---- CLHD: 64 bytes ---------------------------------------------------------------------------
// Cluster heuristic table (Millington, "AI for Games", 4.3.8): CLTB[a * cluster_count + b] is
// the minimum path cost from any node of cluster a to any node of cluster b, quantized down in
// units of `scale`; kClusterUnreachable when no path exists.
// manual: rooms a level designer drew (scene cluster markers, config rooms); the .clu then also
// holds CLRM (FORMAT.md §7.2), which a .nav does not carry.
enum class ClusterMethod : uint32_t { grid = 1, regions = 2, manual = 3 };
inline constexpr uint16_t kClusterUnreachable = 0xFFFF;
inline constexpr uint32_t kMaxClusters = 4096;  // table of at most 32 MiB
// Every edge u -> v has a reverse edge v -> u of the same cost (lets navrt use BPMX).
inline constexpr uint32_t kClusterFlagSymmetric = 1;
struct ClusterHeader {
    ClusterMethod method = ClusterMethod::grid;
    uint32_t cluster_count = 0;
    uint32_t node_count = 0;          // of the graph the clusters were built for
    uint32_t edge_count = 0;          // of that graph
    uint32_t cluster_size = 0;        // parameter: block edge [cells] (grid) or target size
    uint32_t requested_clusters = 0;  // parameter: target count, 0 = from cluster_size
    float scale = 1;                  // cost per table unit, finite and > 0
    uint32_t min_cluster_nodes = 0, max_cluster_nodes = 0;
    uint32_t unreachable_pairs = 0;  // ordered pairs (a, b) with no path
    uint64_t graph_fingerprint = 0;  // graphFingerprint() of that graph
    uint32_t flags = 0;              // kClusterFlagSymmetric
};
inline constexpr size_t kClusterHeaderSize = 64;
void encodeClusterHeader(const ClusterHeader& header, uint8_t out[kClusterHeaderSize]);
Error decodeClusterHeader(const uint8_t* data, size_t size, ClusterHeader& out);

// ---- CLLM: landmark distances (optional, FORMAT.md §7.3) ---------------------------------------
// ALT (Goldberg & Harrelson 2005): the graph distances between K landmark nodes and every node,
// quantised down to u16 units of `scale`: unit q stands for a distance in [q · scale, (q + 1) ·
// scale). Layout: u32 K, u32 flags, f32 scale, u32 zero, u32 node per landmark, u16 from[n · K]
// (node-major: from[v · K + k] for d(landmark k → v)), then on directed graphs u16 to[n · K]
// (d(v → landmark k)). 65535 = unreachable.
inline constexpr uint32_t kMaxLandmarks = 64;
inline constexpr uint32_t kLandmarkFlagDirected = 1;
inline constexpr uint16_t kLandmarkUnreachable = 0xFFFF;
inline constexpr size_t kLandmarkHeaderSize = 16;
struct LandmarkView {
    uint32_t count = 0;
    uint32_t flags = 0;
    float scale = 1;
    const uint32_t* nodes = nullptr;
    const uint16_t* from = nullptr;
    const uint16_t* to = nullptr;  // = from on graphs whose every edge has its reverse
    bool present() const { return count > 0; }
};
// Checks K (1 … kMaxLandmarks), flags, scale (finite, > 0), the size for `node_count` nodes,
// landmark nodes in range and each landmark's distance to itself 0. `data` 4-byte aligned.
Error viewLandmarks(const uint8_t* data, size_t size, uint32_t node_count, LandmarkView& out);
// A lower bound on the cost from v to t by the triangle inequality over every landmark, in
// distance units (0 when no landmark bounds the pair).
inline double landmarkBound(const LandmarkView& l, uint32_t v, uint32_t t) {
    const uint16_t* fv = l.from + size_t(v) * l.count;
    const uint16_t* ft = l.from + size_t(t) * l.count;
    const uint16_t* tv = l.to + size_t(v) * l.count;
    const uint16_t* tt = l.to + size_t(t) * l.count;
    int32_t best = 0;
    for (uint32_t k = 0; k < l.count; ++k) {
        // d(v, t) >= d(L, t) - d(L, v) and >= d(v, L) - d(t, L); one unit off for quantisation.
        if (fv[k] != kLandmarkUnreachable && ft[k] != kLandmarkUnreachable) {
            const int32_t d = int32_t(ft[k]) - int32_t(fv[k]) - 1;
            if (d > best) best = d;
        }
        if (tv[k] != kLandmarkUnreachable && tt[k] != kLandmarkUnreachable) {
            const int32_t d = int32_t(tv[k]) - int32_t(tt[k]) - 1;
            if (d > best) best = d;
        }
    }
    return double(best) * double(l.scale);
}

// XXH64 chained over the decoded GRHD, EOFF, EDST and ECST bytes (each hash seeds the next; an
// absent section counts as empty): identifies the graph a .clu belongs to.
uint64_t graphFingerprint(const uint8_t* header, size_t header_size, const uint8_t* offsets,
                          size_t offsets_size, const uint8_t* targets, size_t targets_size,
                          const uint8_t* costs, size_t costs_size);

// ---- HRHD: 64 bytes ---------------------------------------------------------------------------
// Multi-level graph (Millington, "AI for Games", 4.6): level 0 is the graph, level 1 its clusters
// (the CLND of the .clu it was built with), level l + 1 groups the groups of level l. Groups are
// numbered globally: level 1 first (group id = cluster id), then level 2, ... Abstract edges join
// groups of the same level; each carries the three costs of 4.6.1. The entrance graph is the
// exact (HPA*) variant over level-1 clusters.
enum class HierCost : uint32_t { min = 0, maximin = 1, avgmin = 2 };
inline constexpr uint32_t kHierCostCount = 3;
enum class EntranceMode : uint32_t { sparse = 1, all = 2 };
inline constexpr uint32_t kMaxHierLevels = 16;
struct HierarchyHeader {
    uint32_t level_count = 0;          // L >= 1 (level 1 = clusters)
    uint32_t node_count = 0;           // of the graph
    uint32_t cluster_count = 0;        // groups of level 1
    uint32_t group_count = 0;          // groups of all levels
    uint32_t abstract_edge_count = 0;  // HADT entries
    uint32_t entrance_count = 0;       // HENT entries
    uint32_t entrance_edge_count = 0;  // HXDT entries
    HierCost default_cost = HierCost::min;
    EntranceMode entrance_mode = EntranceMode::sparse;
    uint32_t group_fanout = 0;       // parameter: level-l groups per level-(l + 1) group (target)
    uint64_t graph_fingerprint = 0;  // graphFingerprint() of the graph
    uint64_t clusters_fingerprint = 0;  // XXH64(CLND bytes, seed 0) of the clusters used
};
inline constexpr size_t kHierarchyHeaderSize = 64;
void encodeHierarchyHeader(const HierarchyHeader& header, uint8_t out[kHierarchyHeaderSize]);
Error decodeHierarchyHeader(const uint8_t* data, size_t size, HierarchyHeader& out);
const char* hierCostName(HierCost cost);

// ---- NHHD: 64 bytes ---------------------------------------------------------------------------
// All-pairs first moves ("where to go next"), one row per source node in rank order, run-length
// encoded over the targets in rank order, block_rows rows per independently zstd-compressed block.
// A symbol is the index of the source's outgoing edge to take (0 .. degree - 1) or
// kNextHopUnreachable; see FORMAT.md §9.
inline constexpr uint32_t kNextHopFlagPartial = 1;  // a shard: blocks [first_block, +stored)
// First moves chosen among ties for the fewest runs per 64-cell Hilbert group (FORMAT.md §9);
// without it, the lowest-index first move (tables of earlier versions). Readers treat both alike.
inline constexpr uint32_t kNextHopFlagFewestRuns = 2;
inline constexpr uint32_t kNextHopCostShift = 24;  // integer cost = round(cost * 2^24)
struct NextHopHeader {
    uint32_t node_count = 0;
    uint32_t edge_count = 0;
    uint32_t block_rows = 0;     // rows per block (power of two, 1 .. 4096)
    uint32_t block_count = 0;    // ceil(node_count / block_rows)
    uint32_t first_block = 0;    // partial files: first block held; else 0
    uint32_t stored_blocks = 0;  // blocks held (= block_count unless partial)
    uint32_t shard_index = 0;    // partial files: K of --shard K/N; else 0
    uint32_t shard_count = 0;    // partial files: N; else 0
    uint32_t symbol_bytes = 1;   // 1 or 2
    uint32_t cost_shift = kNextHopCostShift;
    uint64_t graph_fingerprint = 0;
    uint64_t run_count = 0;  // runs in the blocks held
    uint32_t flags = 0;      // kNextHopFlagPartial, kNextHopFlagFewestRuns
};
inline constexpr size_t kNextHopHeaderSize = 64;
void encodeNextHopHeader(const NextHopHeader& header, uint8_t out[kNextHopHeaderSize]);
Error decodeNextHopHeader(const uint8_t* data, size_t size, NextHopHeader& out);
inline uint32_t nextHopUnreachable(uint32_t symbol_bytes) {
    return symbol_bytes == 1 ? 0xFFu : 0xFFFFu;
}

// ---- HNHD: 64 bytes ---------------------------------------------------------------------------
// Hierarchical next-hop table (FORMAT.md §10): per cluster the intra-cluster first moves between
// its nodes and the intra-cluster distances between its nodes and its entrances; between
// clusters, all-pairs distances and next entrances over the entrance graph.
struct HierNextHopHeader {
    uint32_t node_count = 0;
    uint32_t edge_count = 0;
    uint32_t cluster_count = 0;
    uint32_t entrance_count = 0;
    uint32_t symbol_bytes = 1;  // 1 or 2: intra-cluster first-move symbols
    uint64_t graph_fingerprint = 0;
    uint64_t clusters_fingerprint = 0;
    uint64_t intra_symbols = 0;     // sum of squared cluster sizes
    uint64_t distance_entries = 0;  // sum over clusters of nodes x entrances
};
inline constexpr size_t kHierNextHopHeaderSize = 64;
void encodeHierNextHopHeader(const HierNextHopHeader& header, uint8_t out[kHierNextHopHeaderSize]);
Error decodeHierNextHopHeader(const uint8_t* data, size_t size, HierNextHopHeader& out);

// The thirteen array sections of a hierarchy, in this order (HierarchyArrays::data index).
enum HierSection : uint32_t {
    kHierGroupCounts,
    kHierParents,
    kHierRepresentatives,
    kHierEdgeOffsets,
    kHierEdgeTargets,
    kHierEdgeCosts,
    kHierMemberOffsets,
    kHierMembers,
    kHierEntranceOffsets,
    kHierEntrances,
    kHierEntranceEdgeOffsets,
    kHierEntranceEdgeTargets,
    kHierEntranceEdgeCosts,
    kHierSectionCount
};
extern const uint32_t kHierSectionIds[kHierSectionCount];

// Decoded hierarchy arrays (little-endian, 4-byte aligned), checked by checkHierarchy().
struct HierarchyArrays {
    HierarchyHeader header;
    const uint8_t* data[kHierSectionCount] = {};
    size_t size[kHierSectionCount] = {};
    // Global id of the first group of level l (1-based; level_start[level_count + 1] = groups).
    uint32_t level_start[kMaxHierLevels + 2] = {};

    // Entrance distance tables (HTLI, HTOF, HTDN; optional, see checkHierarchyTables): for a
    // node v of cluster c with m entrances, table[table_offsets[c] + table_local[v] * m + j] is
    // the cheapest path inside c from v to c's entrance j (+inf when none).
    const uint32_t* table_local = nullptr;
    const uint64_t* table_offsets = nullptr;
    const float* table = nullptr;

    const uint32_t* u32(HierSection s) const { return reinterpret_cast<const uint32_t*>(data[s]); }
    const float* f32(HierSection s) const { return reinterpret_cast<const float*>(data[s]); }
    bool hasTables() const { return table != nullptr; }
};
// Checks every size, offset, index and cost against the header and `node_clusters` (the CLND of
// the same asset: node_count entries, each < cluster_count) and fills level_start. The error
// names the section and the byte offset of the first bad value.
Error checkHierarchy(HierarchyArrays& arrays, const uint32_t* node_clusters);
// Checks the optional entrance distance tables against arrays already checked by checkHierarchy
// (sizes, local indices against HMEM, per-cluster offsets = members x entrances, every distance
// >= 0 or +inf) and sets table_local, table_offsets and table. The data must be 8-byte aligned.
Error checkHierarchyTables(HierarchyArrays& arrays, const uint8_t* local, size_t local_size,
                           const uint8_t* offsets, size_t offsets_size, const uint8_t* distances,
                           size_t distances_size);

// ---- Tiled worlds (FORMAT.md §11)
// ----------------------------------------------------------------- A world baked in tiles: each
// tile is a tile-graph asset of its own (its interior columns) with WTHD (where it lies in the
// world) and WSEM (its edges into neighbouring tiles, by world cell); the world index (kind WRLD)
// holds the tile grid and the portal graph across tiles.
inline constexpr uint32_t kSecWorldTileHeader = fourcc("WTHD");  // 48-byte tile header
inline constexpr uint32_t kSecWorldSeams = fourcc("WSEM");       // 16-byte seam edges
inline constexpr uint32_t kSecWorldSeamLinks = fourcc("WSLK");   // u32 per seam: its link, or none
inline constexpr uint32_t kSecWorldLinks = fourcc("WLNK");       // link records of link seams
inline constexpr uint32_t kSecWorldLinkTypes = fourcc("WLTY");   // their user type names (as LTYP)
inline constexpr uint32_t kSecWorldHeader = fourcc("WIHD");      // 64-byte world index header
inline constexpr uint32_t kSecWorldTiles = fourcc("WTIL");       // 8 bytes per tile
inline constexpr uint32_t kSecWorldPortals = fourcc("WPNT");     // 24 bytes per portal
inline constexpr uint32_t kSecWorldPortalOffsets = fourcc("WPOF");     // u32 per portal + 1
inline constexpr uint32_t kSecWorldPortalTargets = fourcc("WPDT");     // u32 portal per edge
inline constexpr uint32_t kSecWorldPortalCosts = fourcc("WPCS");       // f32 per edge
inline constexpr uint32_t kSecWorldComponentOffsets = fourcc("WCOF");  // u32 per WTIL record + 1
inline constexpr uint32_t kSecWorldComponents = fourcc("WCID");        // u32 per tile component

struct WorldTileHeader {
    uint32_t tile_x = 0, tile_z = 0;              // this tile in the world's tile grid
    uint32_t tiles_x = 0, tiles_z = 0;            // the tile grid
    uint32_t tile_cells = 0;                      // tile edge [Units: cells]
    uint32_t world_size_x = 0, world_size_z = 0;  // the world's grid [Units: cells]
    uint32_t x0 = 0, z0 = 0;                      // this tile's first world column
    uint32_t seam_count = 0;                      // WSEM records
    uint64_t world_fingerprint = 0;               // the world grid it belongs to
};
inline constexpr size_t kWorldTileHeaderSize = 48;
void encodeWorldTileHeader(const WorldTileHeader& header, uint8_t out[kWorldTileHeaderSize]);
Error decodeWorldTileHeader(const uint8_t* data, size_t size, WorldTileHeader& out);

// A seam edge: from node `from` of this tile to the walkable cell with top `y` [cell heights] in
// world column `column` (z * world_size_x + x) of a neighbouring tile, at cost `cost`.
struct SeamRecord {
    uint32_t from = 0;
    uint32_t column = 0;
    int32_t y = 0;
    float cost = 0;
};
inline constexpr size_t kSeamRecordSize = 16;
// WSLK (optional; present when a seam stands for a link between tiles): per WSEM record, in order,
// kNoLink for a seam of the walkable surface, else (index of a WLNK record) << 1 | 1 when the seam
// takes the link to -> from (a two-way link's way back). WLNK: those links' records (LINK's
// 56-byte encoding; from_node and to_node are kNoLink: the ends lie in two tiles). WLTY: the
// world's user link type names (LTYP's layout), when WLNK names a user type.
void encodeSeam(const SeamRecord& seam, uint8_t out[kSeamRecordSize]);
SeamRecord decodeSeam(const uint8_t* data);

struct WorldHeader {
    uint32_t tiles_x = 0, tiles_z = 0;
    uint32_t tile_cells = 0;
    uint32_t world_size_x = 0, world_size_z = 0;
    uint32_t portal_count = 0;
    uint32_t portal_edge_count = 0;
    uint32_t tile_count = 0;      // tiles with walkable cells (WTIL records)
    float origin[3] = {0, 0, 0};  // the world grid's minimum corner [Units: m]
    float cell_size = 0;          // [Units: m]
    float cell_height = 0;        // [Units: m]
    // What the tiles hold: 0 = tile graphs (the only kind before navmesh tiles),
    // GraphType::navmesh (tiles with navmesh polygons, WNBE instead of WSEM) or GraphType::volume
    // (implicit volume graphs of the tile's columns and a ring of one column around them).
    uint32_t graph_type = 0;
    uint64_t world_fingerprint = 0;
};
inline constexpr size_t kWorldHeaderSize = 64;
void encodeWorldHeader(const WorldHeader& header, uint8_t out[kWorldHeaderSize]);
Error decodeWorldHeader(const uint8_t* data, size_t size, WorldHeader& out);

// WNBE (navmesh world tiles, instead of WSEM): the polygon edges on the tile's sides that border
// other tiles, 28 bytes each: u32 poly, edge (v[edge] -> v[edge + 1]), side (0: -x, 1: +z, 2: +x,
// 3: -z); i32 a0, a1 (its ends along the side in world cells: z on sides 0 and 2, x on 1 and 3),
// y0, y1 (their heights [cell heights]). Two tiles' edges join when they lie on the same border
// line with their ends reversed and heights within kBorderEdgeWeld (the bake's stitch weld).
inline constexpr uint32_t kSecWorldBorderEdges = fourcc("WNBE");
// WLTI (navmesh world tiles with links between tiles): per WLNK record, u32 from_tile and u32
// to_tile (tile_z * tiles_x + tile_x); the record's from_node / to_node are polygons of those
// tiles. A tile holds the links that leave it, and the two-way links that arrive in it.
inline constexpr uint32_t kSecWorldLinkTiles = fourcc("WLTI");
// POV world tiles (FORMAT.md §11.7): WPNB, 16 bytes per layer-grid link into another tile: u32
// cell (this tile's), u32 direction (LNB4's plane: 0 +X, 1 -X, 2 +Z, 3 -Z), u32 tile (tile_z *
// tiles_x + tile_x), u32 cell (that tile's); WPED, 16 bytes per visibility edge to a corner of
// another tile: u32 corner (this tile's), u32 tile, u32 corner (that tile's), f32 cost. Both
// sorted by their first field (then as the whole graph orders them).
inline constexpr uint32_t kSecWorldPovNeighbours = fourcc("WPNB");
inline constexpr uint32_t kSecWorldPovEdges = fourcc("WPED");
// WPEL (POV world tiles whose WPED edges take links): u32 per WPED record, 0xFFFFFFFF for a
// visibility edge, else (index of a WLNK record) * 2 + 1 when the edge takes the link backwards.
inline constexpr uint32_t kSecWorldPovEdgeLinks = fourcc("WPEL");
inline constexpr size_t kWorldPovRecordSize = 16;
struct BorderEdgeRecord {
    uint32_t poly = 0, edge = 0, side = 0;
    int32_t a0 = 0, a1 = 0, y0 = 0, y1 = 0;
};
inline constexpr size_t kBorderEdgeRecordSize = 28;
inline constexpr int32_t kBorderEdgeWeld = 2;  // [Units: cell heights]
void encodeBorderEdge(const BorderEdgeRecord& edge, uint8_t out[kBorderEdgeRecordSize]);
BorderEdgeRecord decodeBorderEdge(const uint8_t* data);
// How well `to` (an edge of the neighbour across `from`'s side) matches `from`: -1 when they do
// not join, else the sum of their ends' height differences. A reader joins an edge to the
// neighbour's edge of the smallest mismatch (the first in WNBE order on ties); the bake's
// components and portals follow the same rule.
int32_t borderEdgeMismatch(const BorderEdgeRecord& from, const BorderEdgeRecord& to);

// WTIL: per tile with walkable cells, u32 tile index (tile_z * tiles_x + tile_x), u32 nodes and u64
// content hash (its cache file: worldtile-<hash>.nav).
// WPNT: per portal (a walkable cell on a tile border with a seam edge, one per run of them):
// u32 tile index, u32 world column, i32 y, f32 x, y, z (its position [m]). WPOF/WPDT/WPCS: the
// portal graph (CSR): the seam edge to the other side, and the shortest path inside the tile to
// each other portal of the same tile it reaches.
inline constexpr size_t kPortalRecordSize = 24;

}  // namespace nav::formats
