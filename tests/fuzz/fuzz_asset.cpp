// Fuzz target: the runtime (navrt) on untrusted asset bytes — load, every typed view, and a few
// queries with every method the asset supports (A*, cluster heuristic, hierarchy, next-hop,
// exact navmesh paths, JPS+), surface queries, blocking, filters and sliced searches. Any
// crash, sanitizer report, leak or hang is a bug: navrt must refuse bad bytes with an error.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "formats/xxhash64.h"
#include "lib/runtime/c/navrt.h"
#include "lib/runtime/navrt.h"
#include "lib/runtime/navrt_query.h"
#include "lib/runtime/navrt_views.h"
#include "tests/fuzz/fuzz_support.h"

NAVBAKE_FUZZ_CONTAINER_MUTATOR()

namespace {

using nav::fuzz::g_sink;

// Reads every element a view hands out, so the sanitizers see any pointer that is off.
void touchViews(const navrt::Asset& asset) {
    navrt::GeometryView geometry;
    if (!navrt::viewGeometry(asset, geometry)) {
        for (uint32_t t = 0; t < geometry.header.triangle_count; ++t)
            g_sink += geometry.triangles[3 * size_t(t)] + geometry.triangle_areas[t];
    }
    navrt::VoxelGridView voxels;
    if (!navrt::viewVoxelGrid(asset, voxels)) {
        for (uint32_t z = 0; z < voxels.header.size_z; ++z)
            for (uint32_t x = 0; x < voxels.header.size_x; ++x)
                for (uint32_t s = voxels.columnBegin(x, z); s < voxels.columnEnd(x, z); ++s)
                    g_sink += voxels.span(s).y_max;
    }
    navrt::GraphView graph;
    if (navrt::viewGraph(asset, graph)) return;
    for (uint32_t v = 0; v < graph.nodeCount() && v < 4096; ++v) {
        const navrt::Vec3 p = graph.position(v);
        g_sink += uint64_t(std::isfinite(p.x)) + graph.isFree(v);
    }
    navrt::TileView tile;
    if (!navrt::viewTile(graph, tile))
        for (uint32_t v = 0; v < tile.node_count; ++v)
            for (uint32_t e = tile.edges.offsets[v]; e < tile.edges.offsets[v + 1]; ++e)
                g_sink += tile.edges.target(v, e) + tile.cell(v).y;
    navrt::VolumeView volume;
    if (!navrt::viewVolume(graph, volume)) g_sink += volume.isFree(0);
    navrt::NavmeshView mesh;
    if (!navrt::viewNavmesh(graph, mesh))
        for (uint32_t p = 0; p < mesh.polygon_count; ++p)
            for (uint32_t k = mesh.poly_offsets[p]; k < mesh.poly_offsets[p + 1]; ++k)
                g_sink += mesh.poly_vertices[k] + mesh.poly_neighbours[k];
    navrt::PovView pov;
    if (!navrt::viewPov(graph, pov)) g_sink += pov.corner_count + pov.layer_cell_count;
    navrt::DirichletView dirichlet;
    if (!navrt::viewDirichlet(graph, dirichlet))
        for (uint32_t c = 0; c < dirichlet.layer_cell_count; ++c)
            g_sink += dirichlet.domain_owners[c];
    navrt::ClusterTableView clusters;
    if (!navrt::viewClusterTable(graph, clusters) && clusters.cluster_count > 0)
        g_sink += clusters.entry(clusters.cluster_count - 1, 0);
    navrt::HierarchyView hierarchy;
    g_sink += navrt::viewHierarchy(graph, hierarchy) ? 0 : 1;
    navrt::NextHopView next_hop;
    g_sink += navrt::viewNextHop(graph, next_hop) ? 0 : 1;
    for (uint32_t i = 0; i < graph.link_count && i < 64; ++i) {
        size_t length = 0;
        const nav::formats::LinkRecord link = graph.link(i);
        g_sink += link.from_node + (graph.linkTypeName(link.type, length) != nullptr);
    }
}

navrt_vec3 nodePoint(const navrt_asset* asset, uint32_t node) {
    navrt_vec3 p{0, 0, 0};
    navrt_asset_node_position(asset, node, &p);
    return p;
}

// The queries of one method, between nodes picked from the input's hash.
void queryMethod(const navrt_asset* asset, navrt_method method, uint64_t pick) {
    if (navrt_asset_supports(asset, method, nullptr) != NAVRT_OK) return;
    navrt_navigator_options options;
    navrt_navigator_options_init(&options);
    options.method = method;
    options.max_expansions = 20000;
    options.next_hop_cache_bytes = uint64_t(1) << 20;
    navrt_navigator* nav = nullptr;
    if (navrt_navigator_create(asset, &options, &nav, nullptr) != NAVRT_OK) return;
    const uint32_t nodes = navrt_asset_node_count(asset);
    const navrt_vec3 a = nodePoint(asset, uint32_t(pick % nodes));
    const navrt_vec3 b = nodePoint(asset, uint32_t((pick >> 32) % nodes));
    navrt_locate_options locate;
    navrt_locate_options_init(&locate);
    locate.snap = 2.0f;
    uint32_t nodes_out[64];
    navrt_vec3 points[64];
    uint32_t point_links[64];
    navrt_path_link links[16];
    for (int round = 0; round < 2; ++round) {
        navrt_find_path(nav, a, b, &locate, NAVRT_NONE, NAVRT_NONE);
        const navrt_path_info info = navrt_path_result(nav);
        g_sink += info.node_count + info.point_count;
        g_sink += navrt_path_nodes(nav, nodes_out, 64);
        g_sink += navrt_straight_path(nav, points, point_links, 64);
        g_sink += navrt_path_links(nav, links, 16);
        if (round == 0) {
            // Second round: some nodes, a link and an area blocked, and a cost filter.
            navrt_blocking* blocking = nullptr;
            if (navrt_blocking_create(asset, nullptr, &blocking, nullptr) == NAVRT_OK) {
                navrt_blocking_set_node(blocking, uint32_t((pick >> 8) % nodes), 1);
                navrt_blocking_set_link(blocking, 0, 1);
                navrt_blocking_set_area(blocking, 2, 1);
                navrt_navigator_set_blocking(nav, blocking);
                navrt_find_path(nav, a, b, &locate, NAVRT_NONE, NAVRT_NONE);
                navrt_navigator_set_blocking(nav, nullptr);
                navrt_blocking_free(blocking);
            }
            navrt_filter filter;
            navrt_filter_init(&filter);
            filter.area_multiplier[1] = 3.0f;
            navrt_navigator_set_filter(nav, &filter, nullptr);
        }
    }
    navrt_navigator_set_filter(nav, nullptr, nullptr);
    if (navrt_begin_path(nav, b, a, &locate, NAVRT_NONE, NAVRT_NONE) == NAVRT_PATH_IN_PROGRESS) {
        navrt_step(nav, 16);
        navrt_finish(nav);
    }
    const navrt_vec3 goals[3] = {a, b, nodePoint(asset, uint32_t((pick >> 16) % nodes))};
    uint32_t winner = 0;
    navrt_find_path_to_any(nav, a, goals, 3, &locate, NAVRT_NONE, &winner);
    const navrt_location r = navrt_random_point(nav, 0.25f, 0.5f, 0.75f);
    g_sink += r.node;
    const navrt_location at = navrt_locate(nav, a, &locate, NAVRT_NONE);
    if (method == NAVRT_METHOD_ASTAR && at.node != NAVRT_NONE) {
        const navrt_raycast_hit hit = navrt_raycast(nav, a, b, &locate, at.node);
        g_sink += hit.visited;
        const navrt_location c = navrt_closest_point(nav, at.node, b);
        g_sink += c.node;
        const navrt_surface_move m = navrt_move_along_surface(nav, at.node, at.position, b);
        g_sink += m.visited;
    }
    navrt_navigator_free(nav);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    navrt::LoadOptions options;
    options.max_memory = uint64_t(256) << 20;
    navrt::Asset asset;
    if (!navrt::loadFromMemory(data, size, asset, options)) touchViews(asset);

    navrt_load_options c_options;
    navrt_load_options_init(&c_options);
    c_options.max_memory = uint64_t(256) << 20;
    navrt_asset* c_asset = nullptr;
    if (navrt_asset_load_memory(data, size, &c_options, &c_asset, nullptr) != NAVRT_OK) return 0;
    const uint64_t pick = nav::formats::xxhash64(data, size);
    if (navrt_asset_node_count(c_asset) > 0)
        for (int m = NAVRT_METHOD_ASTAR; m <= NAVRT_METHOD_JPS; ++m)
            queryMethod(c_asset, navrt_method(m), pick);
    for (uint32_t i = 0; i < navrt_asset_link_count(c_asset) && i < 16; ++i) {
        navrt_link link;
        if (navrt_asset_link(c_asset, i, &link) == NAVRT_OK)
            g_sink += navrt_asset_find_link(c_asset, link.id);
    }
    navrt_asset_free(c_asset);
    return 0;
}
