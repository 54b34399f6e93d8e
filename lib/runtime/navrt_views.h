// Plain read-only views of one graph kind or one packed table each, cut from a validated
// GraphView (viewGraph): only the arrays that kind has, named for what they are, so game code
// that draws a navmesh, walks a tile grid or reads a cluster table needs no knowledge of the
// others. Each view* function gives wrong_kind (another graph kind) or missing_section (a table
// the asset does not hold) instead of a half-filled view. The pointers are the GraphView's: valid
// while its Asset lives. A GraphView, and these views, are immutable: share them between threads.
#pragma once

#include <cstdint>

#include "lib/runtime/navrt_query.h"

namespace navrt {

// Links of a graph (LINK, ELNK, LTYP), shared by the kinds that have them.
struct LinkArrays {
    uint32_t count = 0;
    const uint8_t* records = nullptr;      // count records of nav::formats::kLinkRecordSize
    const uint32_t* edge_links = nullptr;  // per edge: the link it stands for, or kNoLink
};

// The directed edges of an explicit graph (CSR), targets relative to their source.
struct EdgeArrays {
    uint32_t count = 0;
    const uint32_t* offsets = nullptr;  // nodes + 1
    const uint32_t* targets = nullptr;  // target = source + value (mod 2^32)
    const float* costs = nullptr;
    uint32_t target(uint32_t source, uint32_t edge) const { return source + targets[edge]; }
};

// Tile graphs (2.5D cells, several floors per column): node v is a walkable cell.
struct TileView {
    nav::formats::GraphHeader header;  // size_x, size_z, cell_size, origin, ...
    uint32_t node_count = 0;
    const float* positions = nullptr;        // 3 per node: the cell's floor centre
    const uint8_t* cells = nullptr;          // kNodeCellSize per node (column, y, area)
    const uint32_t* column_nodes = nullptr;  // size_x * size_z + 1: nodes of column c
    const uint32_t* components = nullptr;    // per node
    EdgeArrays edges;
    LinkArrays links;
    nav::formats::NodeCell cell(uint32_t v) const {
        return nav::formats::decodeNodeCell(cells + size_t(v) * nav::formats::kNodeCellSize);
    }
};

// Volume graphs (3D voxels for flyers): node v is voxel x + size_x * (z + size_z * y) when free.
struct VolumeView {
    nav::formats::GraphHeader header;
    uint32_t size_x = 0, size_y = 0, size_z = 0;
    const uint64_t* free_voxels = nullptr;  // one bit per voxel
    const uint32_t* components = nullptr;   // per voxel, kNoNode when blocked
    LinkArrays links;                       // teleports between voxels
    bool isFree(uint32_t v) const {
        return v < size_x * size_y * size_z && ((free_voxels[v >> 6] >> (v & 63)) & 1) != 0;
    }
};

// Navigation meshes: node p is convex polygon p; the edges join polygons across portals (and
// links).
struct NavmeshView {
    nav::formats::GraphHeader header;
    uint32_t polygon_count = 0;
    uint32_t vertex_count = 0;
    const float* vertices = nullptr;          // 3 per vertex
    const uint32_t* poly_offsets = nullptr;   // polygon p's corners: [p], [p + 1]
    const uint32_t* poly_vertices = nullptr;  // vertex per corner
    const uint32_t* poly_neighbours =
        nullptr;  // per corner: polygon across edge (k, k+1), or kNoNode
    const uint8_t* poly_areas = nullptr;
    const uint32_t* detail_offsets = nullptr;  // polygon p's floor triangles
    const float* detail_triangles = nullptr;   // 9 floats each
    const float* centres = nullptr;            // 3 per polygon
    const uint32_t* components = nullptr;
    const float* area_costs = nullptr;  // kMaxAreas
    EdgeArrays edges;
    LinkArrays links;
    uint32_t polygonSize(uint32_t p) const { return poly_offsets[p + 1] - poly_offsets[p]; }
    Vec3 vertex(uint32_t v) const {
        return {vertices[3 * size_t(v)], vertices[3 * size_t(v) + 1], vertices[3 * size_t(v) + 2]};
    }
};

// Points-of-visibility graphs: node v is a corner; the layer grid is the walkable surface the
// visibility tests walk (formats/pov_sight.h).
struct PovView {
    nav::formats::GraphHeader header;
    uint32_t corner_count = 0;
    const float* positions = nullptr;  // 3 per corner
    const uint8_t* corners = nullptr;  // kPovCornerSize per corner (PCRN)
    EdgeArrays edges;                  // taut visibility edges
    LinkArrays links;
    uint32_t layer_cell_count = 0;
    const uint8_t* layer_cells = nullptr;        // kNodeCellSize per layer cell
    const uint32_t* layer_columns = nullptr;     // columns + 1
    const uint32_t* layer_neighbours = nullptr;  // 4 planes of layer_cell_count
    const uint32_t* layer_components = nullptr;
    nav::formats::PovStats stats;
};

// Dirichlet-domain graphs: node i is waypoint i, the domains are layer cells owned by them.
struct DirichletView {
    nav::formats::GraphHeader header;
    uint32_t waypoint_count = 0;
    const float* positions = nullptr;
    EdgeArrays edges;
    LinkArrays links;
    uint32_t layer_cell_count = 0;
    const uint8_t* layer_cells = nullptr;
    const uint32_t* layer_columns = nullptr;
    const uint32_t* domain_owners = nullptr;  // per layer cell: its waypoint
};

// The cluster heuristic table (pack --clusters): entry(a, b) lower-bounds every path from
// cluster a to cluster b in units of header.scale (kClusterUnreachable: none).
struct ClusterTableView {
    nav::formats::ClusterHeader header;
    uint32_t cluster_count = 0;
    const uint32_t* node_clusters = nullptr;  // per node
    const uint16_t* table = nullptr;          // cluster_count^2
    uint16_t entry(uint32_t a, uint32_t b) const { return table[size_t(a) * cluster_count + b]; }
};

// The hierarchy (pack --hierarchy), checked against the graph and its clusters.
struct HierarchyView {
    nav::formats::HierarchyArrays arrays;
};

// Next-hop tables (pack --nexthop): flat (per-node ranks, compressed row blocks) or hierarchical.
struct NextHopView {
    bool hierarchical = false;
    nav::formats::NextHopHeader header;  // flat tables
    const uint32_t* ranks = nullptr;
    const uint64_t* block_offsets = nullptr;
    const uint8_t* blocks = nullptr;
    size_t blocks_size = 0;
    nav::formats::HierNextHopHeader hier_header;  // hierarchical tables
    const uint8_t* hier_sections[nav::formats::kHopSectionCount] = {};
    size_t hier_sizes[nav::formats::kHopSectionCount] = {};
};

Error viewTile(const GraphView& graph, TileView& out);
Error viewVolume(const GraphView& graph, VolumeView& out);
Error viewNavmesh(const GraphView& graph, NavmeshView& out);
Error viewPov(const GraphView& graph, PovView& out);
Error viewDirichlet(const GraphView& graph, DirichletView& out);
Error viewClusterTable(const GraphView& graph, ClusterTableView& out);
Error viewHierarchy(const GraphView& graph, HierarchyView& out);
Error viewNextHop(const GraphView& graph, NextHopView& out);

}  // namespace navrt
