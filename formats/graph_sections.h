// Validation of the array sections of graph assets, one function per section family: the graph
// itself (components, free-voxel bitmap, positions, node cells, CSR edges, column index), navmesh
// and points-of-visibility sections, cluster tables and next-hop tables. (Fixed-size headers are
// decoded by layouts.h; hierarchies are checked by checkHierarchy() there.)
//
// Shared by the bake-side decoders (lib/graph/graph_io.cpp, lib/cluster, lib/nexthop) and navrt,
// so both accept exactly the same files and report the same Error: a stable code, the section
// and the byte offset within the decoded section. Runtime-safe: no exceptions, no allocation.
//
// Sections are decoded bytes read in place as host values (hosts are little-endian, see bytes.h):
// u32/f32 arrays must be 4-byte aligned, u64 arrays 8-byte aligned. Every size is checked before
// any element is read, so a short or absent section is never read past its end.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/layouts.h"

namespace nav::formats {

// The decoded bytes of one section. `present` is false when the asset lacks the section (data and
// size are then ignored); a present section may be empty.
struct SectionSpan {
    const uint8_t* data = nullptr;
    size_t size = 0;
    bool present = false;
};

// missing_section at offset 0: "required section 'XXXX' is missing".
Error missingSectionError(uint32_t id);
// bad_section at offset 0: "section 'XXXX' is N bytes, expected M".
Error sectionSizeError(uint32_t id, size_t got, uint64_t expected);

// ---- Graph sections (GRPH / NAVA) ---------------------------------------------------------------
// The sections a graph may hold besides GRHD, AREA and NAME; GraphSections is indexed by these.
enum class GraphSection : uint32_t {
    positions,
    cells,
    column_nodes,
    edge_offsets,
    edge_targets,
    edge_costs,
    components,
    free_voxels,
    mesh_vertices,
    poly_offsets,
    poly_vertices,
    poly_neighbours,
    poly_areas,
    detail_offsets,
    detail_triangles,
    mesh_index_header,
    mesh_index_offsets,
    mesh_index_polys,
    poly_info,
    pov_stats,
    pov_corners,
    layer_cells,
    layer_columns,
    layer_neighbours,
    layer_components,
    links,
    edge_links,
    link_types,
    domain_owners,
    poi_kinds,
    poi_distances,
    poi_next,
    count
};
inline constexpr uint32_t kGraphSectionCount = uint32_t(GraphSection::count);
extern const uint32_t kGraphSectionIds[kGraphSectionCount];  // fourcc of each GraphSection

struct GraphSections {
    SectionSpan spans[kGraphSectionCount];

    const SectionSpan& operator[](GraphSection s) const { return spans[uint32_t(s)]; }
    SectionSpan& operator[](GraphSection s) { return spans[uint32_t(s)]; }
};

// Whether the graph carries NCEL: always for tile graphs, otherwise when the section is present.
inline bool graphHasNodeCells(const GraphHeader& header, const GraphSections& s) {
    return header.type == GraphType::tile || s[GraphSection::cells].present;
}

// The graph proper, against the decoded GRHD and the number of areas in AREA: NCMP (one id per
// node, below component_count; implicit volume graphs mark blocked voxels kNoNode = 0xFFFFFFFF),
// then for implicit volume graphs VFRE (one bit per voxel, zero padding, set exactly where NCMP
// has a component), else NPOS (finite), NCEL (see graphHasNodeCells: column, y and area in
// range, reserved byte zero), EOFF (0 .. edge_count, non-decreasing), EDST (stored relative to
// the source node; absolute target < node_count) and ECST (positive, finite).
Error validateGraphSections(const GraphHeader& header, const GraphSections& s, uint32_t area_count);

// Navmesh graphs (after validateGraphSections): all eleven mesh sections required; vertices
// finite, polygons of >= 3 corners covering MPVI, vertex and neighbour indices in range, areas
// known, detail triangles finite and covered by MDOF, the MGHD index header (decoded into
// `index`) and its MGOF/MGPL lists covering valid polygon ids, MPIN sized per polygon.
Error validateNavmeshSections(const GraphHeader& header, const GraphSections& s,
                              uint32_t area_count, MeshIndexHeader& index);

// Points-of-visibility graphs (after validateGraphSections): GRHD flags zero, PSTA (decoded into
// `stats`) agreeing with GRHD and PCRN, LCEL records valid, LCOL covering every cell under its own
// column, every LNB4 link naming a cell of the adjacent column in its direction, LCMP ids below
// PSTA's count, PCRN records valid with cells in range.
Error validatePovSections(const GraphHeader& header, const GraphSections& s, uint32_t area_count,
                          PovStats& stats);

// Dirichlet-domain graphs (graph_type 5, after validateGraphSections): GRHD flags zero; LCEL (the
// cells of the domains, records valid) and LCOL (each cell under its own column) as in POV
// graphs; DOWN one node id per layer cell, below node_count.
Error validateDirichletSections(const GraphHeader& header, const GraphSections& s,
                                uint32_t area_count);

// PKND, PDST and PHOP (after validateGraphSections; explicit graphs): all three or none. PKND 1..
// kMaxPoiKinds names of kPoiKindNameSize bytes (1..31 printable bytes, zero-padded, unique); PDST
// and PHOP one f32 / u32 per kind and node (kind-major). A distance is >= 0 or +inf (no NaN); a
// next hop is kNoNode (at a point of interest, distance 0, and where none is reachable, +inf)
// or a node the node has an edge to.
Error validatePoiSections(const GraphHeader& header, const GraphSections& s);

// LINK, ELNK and LTYP (after validateGraphSections): LINK absent -> ELNK and LTYP absent. Else
// every record valid (decodeLinkRecord) with nodes in range and apart, ids non-decreasing, the
// records of one id (a wide link's lanes) sharing type, flags and user_data; user types naming an
// LTYP entry, every LTYP name valid and unique. Explicit graphs: ELNK one u32 per edge, kNoLink or
// a link index, each link edge joining the link's nodes (from -> to, or back when bidirectional)
// at the link's cost, and every link owning exactly its one or two edges. Implicit volume graphs:
// no ELNK, both ends free voxels.
Error validateLinkSections(const GraphHeader& header, const GraphSections& s);
// User link type names as LTYP stores them (section `id`: LTYP, or a world tile's WLTY): whole
// 32-byte zero-padded names, at most kMaxUserLinkTypes, valid and distinct; `count` of them.
Error validateLinkTypeNames(uint32_t id, const uint8_t* data, uint64_t size, uint64_t& count);

// CNOD, when present on a graph with node cells (it is ignored otherwise): columns + 1 offsets
// from 0 to node_count, non-decreasing, every node listed under the column its NCEL names.
Error validateColumnNodes(const GraphHeader& header, const GraphSections& s);
// The node of column `column` (CNOD over NCEL) whose cell top is at `y`, or 0xFFFFFFFF.
inline uint32_t columnNodeAt(const uint32_t* column_nodes, const uint8_t* cells, uint64_t column,
                             int64_t y) {
    for (uint32_t v = column_nodes[column]; v < column_nodes[column + 1]; ++v)
        if (decodeNodeCell(cells + size_t(v) * kNodeCellSize).y == y) return v;
    return 0xFFFFFFFFu;
}

// ---- Cluster sections (CLUS, or a .nav packed with --clusters)
// ----------------------------------- CLND and CLTB against a decoded CLHD: sizes, every node's
// cluster below cluster_count, every cluster's distance to itself 0. (Whether the table belongs to
// a given graph is the caller's check: it compares graph_fingerprint.)
Error validateClusterSections(const ClusterHeader& header, const SectionSpan& node_clusters,
                              const SectionSpan& table);

// ---- Next-hop sections (NHOP, or a .nav packed with --nexthop) ----------------------------------
// NHRK, NHBO and the size of NHBL against a decoded NHHD (a complete table or a shard's stored
// blocks): ranks below node_count, block offsets from 0 to `blocks_size`, strictly increasing.
// With `rank_seen` (node_count zeroed bytes, used as scratch) every rank must also occur once.
// Block contents are checked when a block is read (findNextHopRow).
Error validateNextHopSections(const NextHopHeader& header, const SectionSpan& ranks,
                              const SectionSpan& offsets, size_t blocks_size,
                              uint8_t* rank_seen = nullptr);

// One row of a decompressed next-hop block of `rows` rows (FORMAT.md §9): `runs` run starts
// (ascending target ranks, the first 0) followed by `runs` symbols of symbol_bytes each.
struct NextHopRow {
    uint32_t runs = 0;
    const uint8_t* starts = nullptr;   // runs x u32
    const uint8_t* symbols = nullptr;  // runs x symbol_bytes
};
// Locates row `row` in the `size` bytes of a block: false when the row table does not fit, the
// row's byte range lies outside the block, or it holds no run or more runs than fit in it. Run
// starts are not checked here (lookups binary-search them, expansion checks them).
bool findNextHopRow(const uint8_t* block, size_t size, uint32_t rows, uint32_t row,
                    uint32_t symbol_bytes, NextHopRow& out);

// The decoded in-memory form of a complete table (navrt's NextHopForm::decoded, FORMAT.md §9.2):
// u32 row offsets per node + 1, then one u32 per run, (start << symbol bits) | symbol, with
// symbol bits = bit_width(max_degree) (all ones = no path). 0 when runs do not fit 32 bits.
inline uint32_t nextHopDecodedSymbolBits(uint32_t max_degree) {
    uint32_t bits = 1;
    while ((uint64_t(1) << bits) - 1 < max_degree) ++bits;
    return bits;
}
inline uint64_t nextHopDecodedBytes(uint64_t node_count, uint64_t run_count, uint32_t max_degree) {
    if ((node_count << nextHopDecodedSymbolBits(max_degree)) >= (uint64_t(1) << 32)) return 0;
    return 4 * (node_count + 1) + 4 * run_count;
}

// ---- Hierarchical next-hop sections (NHHI, or a .nav packed with --nexthop FILE.nhh)
// ------------- The thirteen arrays (indexed by HierHopSection) against a decoded HNHD: sizes, node
// clusters in range, member and entrance offsets covering the nodes and entrances, members agreeing
// with their cluster and local index, entrances inside their cluster, intra-cluster and distance
// tables sized by their cluster, next entrances in range. A size-0 array may have a null pointer.
Error validateHierNextHopSections(const HierNextHopHeader& header,
                                  const uint8_t* const data[kHopSectionCount],
                                  const size_t size[kHopSectionCount]);

}  // namespace nav::formats
