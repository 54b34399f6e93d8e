// Per-kind views cut from a GraphView (see navrt_views.h).
#include "lib/runtime/navrt_views.h"

namespace navrt {

namespace fmt = nav::formats;

namespace {

Error wrongKind(const GraphView& graph, const char* wanted) {
    static const char* const kNames[] = {"?", "tile", "volume", "POV", "navmesh", "Dirichlet"};
    const auto type = uint32_t(graph.header.type);
    return makeError(ErrorCode::wrong_kind, 0, fmt::kSecGraphHeader,
                     "the graph is a %s graph, not a %s graph", type < 6 ? kNames[type] : "?",
                     wanted);
}

EdgeArrays edgesOf(const GraphView& g) {
    return {g.header.edge_count, g.edge_offsets, g.edge_targets, g.edge_costs};
}

LinkArrays linksOf(const GraphView& g) { return {g.link_count, g.links, g.edge_links}; }

}  // namespace

Error viewTile(const GraphView& g, TileView& out) {
    out = TileView{};
    if (g.header.type != fmt::GraphType::tile) return wrongKind(g, "tile");
    out.header = g.header;
    out.node_count = g.nodeCount();
    out.positions = g.positions;
    out.cells = g.cells;
    out.column_nodes = g.column_nodes;
    out.components = g.components;
    out.edges = edgesOf(g);
    out.links = linksOf(g);
    return {};
}

Error viewVolume(const GraphView& g, VolumeView& out) {
    out = VolumeView{};
    if (g.header.type != fmt::GraphType::volume) return wrongKind(g, "volume");
    out.header = g.header;
    out.size_x = g.header.size_x;
    out.size_y = g.header.size_y;
    out.size_z = g.header.size_z;
    out.free_voxels = g.free_voxels;
    out.components = g.components;
    out.links = linksOf(g);
    return {};
}

Error viewNavmesh(const GraphView& g, NavmeshView& out) {
    out = NavmeshView{};
    if (!g.isNavmesh()) return wrongKind(g, "navmesh");
    out.header = g.header;
    out.polygon_count = g.nodeCount();
    out.vertex_count = g.mesh_vertex_count;
    out.vertices = g.mesh_vertices;
    out.poly_offsets = g.poly_offsets;
    out.poly_vertices = g.poly_vertices;
    out.poly_neighbours = g.poly_neighbours;
    out.poly_areas = g.poly_areas;
    out.detail_offsets = g.detail_offsets;
    out.detail_triangles = g.detail_triangles;
    out.centres = g.positions;
    out.components = g.components;
    out.area_costs = g.area_costs;
    out.edges = edgesOf(g);
    out.links = linksOf(g);
    return {};
}

Error viewPov(const GraphView& g, PovView& out) {
    out = PovView{};
    if (!g.isPov()) return wrongKind(g, "POV");
    out.header = g.header;
    out.corner_count = g.nodeCount();
    out.positions = g.positions;
    out.corners = g.pov_corners;
    out.edges = edgesOf(g);
    out.links = linksOf(g);
    out.layer_cell_count = g.layer_cell_count;
    out.layer_cells = g.layer_cells;
    out.layer_columns = g.layer_columns;
    out.layer_neighbours = g.layer_neighbours;
    out.layer_components = g.layer_components;
    out.stats = g.pov_stats;
    return {};
}

Error viewDirichlet(const GraphView& g, DirichletView& out) {
    out = DirichletView{};
    if (!g.isDirichlet()) return wrongKind(g, "Dirichlet");
    out.header = g.header;
    out.waypoint_count = g.nodeCount();
    out.positions = g.positions;
    out.edges = edgesOf(g);
    out.links = linksOf(g);
    out.layer_cell_count = g.layer_cell_count;
    out.layer_cells = g.layer_cells;
    out.layer_columns = g.layer_columns;
    out.domain_owners = g.domain_owners;
    return {};
}

Error viewClusterTable(const GraphView& g, ClusterTableView& out) {
    out = ClusterTableView{};
    if (!g.hasClusters())
        return makeError(ErrorCode::missing_section, 0, fmt::kSecClusterHeader,
                         "the asset has no cluster table (navbake pack --clusters)");
    out.header = g.cluster_header;
    out.cluster_count = g.cluster_count;
    out.node_clusters = g.node_clusters;
    out.table = g.cluster_table;
    return {};
}

Error viewHierarchy(const GraphView& g, HierarchyView& out) {
    out = HierarchyView{};
    if (!g.hasHierarchy())
        return makeError(ErrorCode::missing_section, 0, fmt::kSecHierHeader,
                         "the asset has no hierarchy (navbake pack --hierarchy)");
    out.arrays = g.hierarchy;
    return {};
}

Error viewNextHop(const GraphView& g, NextHopView& out) {
    out = NextHopView{};
    if (!g.hasNextHop())
        return makeError(ErrorCode::missing_section, 0, fmt::kSecNextHopHeader,
                         "the asset has no next-hop table (navbake pack --nexthop)");
    out.hierarchical = g.has_hier_hop;
    out.header = g.next_hop_header;
    out.ranks = g.next_hop_ranks;
    out.block_offsets = g.next_hop_offsets;
    out.blocks = g.next_hop_blocks;
    out.blocks_size = g.next_hop_blocks_size;
    out.hier_header = g.hier_hop_header;
    for (uint32_t s = 0; s < fmt::kHopSectionCount; ++s) {
        out.hier_sections[s] = g.hier_hop[s];
        out.hier_sizes[s] = g.hier_hop_size[s];
    }
    return {};
}

}  // namespace navrt
