// The graph stage: one definition shared by `navbake graph KIND` and `navbake build`.
#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <map>

#include "lib/graph/graph.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {
namespace {

// Walkable islands: a warning when more than one component holds nodes.
void islandWarning(const Graph& g, StageResult& result) {
    std::map<uint32_t, uint64_t> sizes;
    for (uint32_t c : g.components)
        if (c != kNoNode) ++sizes[c];
    result.count("components", sizes.size());
    if (sizes.size() <= 1) return;
    uint64_t largest = 0, total = 0;
    for (const auto& [c, n] : sizes) {
        largest = std::max(largest, n);
        total += n;
    }
    result.warnings.push_back(
        fmt::format("{} walkable islands ({} nodes) are unreachable from the "
                    "largest component ({} nodes)",
                    sizes.size() - 1, total - largest, largest));
}

std::string summary(const Graph& graph, GraphKind kind, double ms,
                    const std::filesystem::path& output) {
    const formats::GraphHeader& h = graph.header;
    if (h.type == formats::GraphType::navmesh) {
        const navmesh::NavMesh& m = graph.mesh;
        return fmt::format(
            "navmesh: {} polygons, {} vertices, {} regions, {} x {} tiles, {} portal "
            "edges, {} components (largest {}), {:.1f} ms -> {}",
            m.polyCount(), m.vertexCount(), m.region_count, m.tiles_x, m.tiles_z, h.edge_count,
            h.component_count, h.largest_component, ms, output.string());
    }
    if (h.type == formats::GraphType::pov) {
        const formats::PovStats& st = graph.pov_stats;
        return fmt::format(
            "pov graph: {} corners ({} any-direction), {} visibility edges before "
            "pruning, {} taut edges after ({:.1f}%), {} layer cells, {} components "
            "(largest {} corners), {:.1f} ms -> {}",
            st.corner_count, st.any_direction_corners, st.visibility_edges, st.taut_edges,
            st.visibility_edges ? 100.0 * double(st.taut_edges) / double(st.visibility_edges)
                                : 100.0,
            st.layer_cell_count, h.component_count, h.largest_component, ms, output.string());
    }
    if (h.flags & formats::kGraphFlagImplicitVolume) {
        size_t free_voxels = 0;
        for (uint64_t word : graph.free_voxels) free_voxels += size_t(std::popcount(word));
        return fmt::format(
            "volume graph: {} x {} x {} voxels, {} free for the agent (implicit "
            "26-connected edges), {} components (largest {}), {:.1f} ms -> {}",
            h.size_x, h.size_y, h.size_z, free_voxels, h.component_count, h.largest_component, ms,
            output.string());
    }
    return fmt::format(
        "{} graph: {} nodes, {} edges, {} components (largest {} nodes), {:.1f} ms -> {}",
        choiceName<GraphKind>(kGraphKinds, kind), h.node_count, h.edge_count, h.component_count,
        h.largest_component, ms, output.string());
}

}  // namespace

ParamIssues GraphStage::check(const Params& params) {
    ParamCheck check;
    check.nonNegative("agent_radius", params.agent_radius);
    check.threads("threads", params.threads);
    checkLinkSpecs(params.links, check);
    if (params.kind == GraphKind::navmesh) {
        navmesh::NavmeshParams navmesh = params.navmesh;
        navmesh.threads = params.threads;
        for (ParamIssue& issue : navmesh::checkNavmeshParams(navmesh))
            if (issue.field != "threads") check.issues.push_back(std::move(issue));
    }
    return check.issues;
}

void GraphStage::describe(const Params& params, StageKey& key) {
    key.add("kind", choiceName<GraphKind>(kGraphKinds, params.kind));
    if (params.kind == GraphKind::volume) key.add("agent_radius", params.agent_radius);
    if (params.kind == GraphKind::pov) key.add("prune", params.prune);
    if (!params.links.empty()) key.add("links", uint64_t(params.links.size()));
    for (const LinkSpec& l : params.links) {
        key.add("link_type", choiceName<formats::LinkType>(kLinkTypes, l.type))
            .add("link_bidirectional", l.bidirectional)
            .add("link_cost", l.cost)
            .add("link_reverse_cost", l.reverse_cost)
            .add("link_id", l.id)
            .add("link_user_data", l.user_data);
        for (const std::string& agent : l.agents) key.add("link_agent", agent);
        for (int k = 0; k < 3; ++k) key.add("link_from", l.from[k]).add("link_to", l.to[k]);
    }
    if (params.kind == GraphKind::navmesh) {
        const navmesh::NavmeshParams& n = params.navmesh;
        key.add("partition", choiceName<navmesh::Partition>(navmesh::kPartitions, n.partition))
            .add("region_min_size", n.region_min_size)
            .add("region_merge_size", n.region_merge_size)
            .add("edge_max_len", n.edge_max_len)
            .add("edge_max_error", n.edge_max_error)
            .add("max_verts_per_poly", n.max_verts_per_poly)
            .add("detail_sample_dist", n.detail_sample_dist)
            .add("detail_max_error", n.detail_max_error)
            .add("tile_size", n.tile_size);
    }
}

Result<StageResult> GraphStage::run(const Inputs& inputs, const Params& params,
                                    const std::filesystem::path& output, Context& context) {
    if (Status s = checkStage<GraphStage>(params); !s) return s.error();
    auto grid = voxel::loadVoxels(inputs.voxels);
    if (!grid) return grid.error();
    const auto start = std::chrono::steady_clock::now();
    Result<Graph> graph = Graph{};
    switch (params.kind) {
        case GraphKind::tile: graph = buildTileGraph(*grid, context); break;
        case GraphKind::navmesh: {
            navmesh::NavmeshParams navmesh = params.navmesh;
            navmesh.threads = params.threads;
            graph = buildNavmeshGraph(*grid, navmesh, context);
            break;
        }
        case GraphKind::pov: {
            PovParams pov;
            pov.prune = params.prune;
            pov.threads = unsigned(params.threads);
            graph = buildPovGraph(*grid, pov, context);
            break;
        }
        case GraphKind::volume:
            graph = buildVolumeGraph(*grid, params.agent_radius, context);
            break;
    }
    if (!graph) return graph.error();
    const uint32_t components_before = graph->header.component_count;
    const std::vector<uint32_t> component_before = graph->components;
    if (!params.links.empty()) {
        auto links = resolveLinks(*graph, params.links);
        if (!links) return links.error();
        if (Status s = addLinks(*graph, std::move(links).value()); !s) return s.error();
    }
    if (Status s = saveGraph(output, *graph); !s) return s.error();
    StageResult result;
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.count("nodes", graph->nodeCount());
    result.count("edges", graph->edgeCount());
    if (graph->header.type == GraphType::navmesh) result.count("polygons", graph->nodeCount());
    if (params.kind != GraphKind::volume) islandWarning(*graph, result);
    result.summary.push_back(summary(*graph, params.kind, result.milliseconds, output));
    if (!graph->links.empty()) {
        result.count("links", graph->links.size());
        std::map<std::string, uint64_t> by_type;
        for (const formats::LinkRecord& l : graph->links) ++by_type[formats::linkTypeName(l.type)];
        std::string types;
        for (const auto& [name, n] : by_type)
            types += fmt::format("{}{} {}", types.empty() ? "" : ", ", n, name);
        result.summary.push_back(fmt::format(
            "links: {} ({}); components {} before links, {} with them (undirected)",
            graph->links.size(), types, components_before, graph->header.component_count));
        // Which links join walkable islands that the surface alone leaves apart.
        std::map<uint32_t, uint64_t> island_size;
        for (uint32_t c : component_before) ++island_size[c];
        std::string joins;
        size_t joining = 0;
        for (const formats::LinkRecord& l : graph->links) {
            const uint32_t a = component_before[l.from_node], b = component_before[l.to_node];
            if (a == b) continue;
            if (++joining <= 8)
                joins += fmt::format(
                    "{}link {} ({}) {} the island of {} nodes {} that of {}",
                    joins.empty() ? "" : "; ", l.id, formats::linkTypeName(l.type),
                    (l.flags & formats::kLinkFlagBidirectional) ? "joins" : "leads from",
                    island_size[a], (l.flags & formats::kLinkFlagBidirectional) ? "and" : "to",
                    island_size[b]);
        }
        result.count("links_joining_islands", joining);
        // One-way links: nodes outside the largest strongly connected region of their walkable
        // component can be entered but not left back (below a one-way drop), or the reverse.
        const std::vector<uint32_t> strong = stronglyConnected(*graph);
        std::map<std::pair<uint32_t, uint32_t>, uint64_t> region_size;  // (component, scc)
        for (uint32_t v = 0; v < graph->nodeCount(); ++v)
            ++region_size[{graph->components[v], strong[v]}];
        std::map<uint32_t, std::pair<uint64_t, uint32_t>> main_region;  // component -> (size, scc)
        for (const auto& [key, size] : region_size) {
            auto& best = main_region[key.first];
            if (size > best.first) best = {size, key.second};
        }
        uint64_t one_way = 0;
        size_t places = 0;
        for (const auto& [key, size] : region_size)
            if (main_region[key.first].second != key.second) one_way += size, ++places;
        result.count("one_way_nodes", one_way);
        if (one_way > 0)
            result.warnings.push_back(fmt::format(
                "one-way links: {} nodes in {} {} cannot both reach and be reached from the "
                "main region of their walkable area (e.g. below a one-way drop with no way back)",
                one_way, places, places == 1 ? "place" : "places"));
        if (joining > 0)
            result.summary.push_back(
                fmt::format("links joining islands: {}{}", joins,
                            joining > 8 ? fmt::format(" (and {} more)", joining - 8) : ""));
    }
    return result;
}

}  // namespace nav::graph
