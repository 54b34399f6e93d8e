#include <algorithm>
#include <bit>
#include <chrono>

#include "../../lib/cluster/cluster.h"
#include "../../lib/cluster/hierarchy.h"
#include "../../lib/nexthop/nexthop.h"
#include "../../lib/graph/graph.h"
#include "../../lib/voxel/voxel_grid.h"
#include "cli.h"

namespace nav::cli {

void registerGraph(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string kind;
        std::string input;
        std::string output;
        double agent_radius = 0.0;
        navmesh::NavmeshParams navmesh;
        std::string partition = "watershed";
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "graph",
        "Build a search graph from a voxel grid: 'tile' (2.5D walkable cells, 8-connected, "
        "multi-floor), 'volume' (free 3D space for flying agents, 26-connected), 'navmesh' "
        "(convex polygons with portals, detail heights; Recast-style options) or 'pov' "
        "(points of visibility: obstacle corners and taut sight lines, optimal any-angle paths)");
    sub->add_option("KIND", options->kind, "Graph kind: tile, volume, navmesh or pov")
        ->required()
        ->check(CLI::IsMember({"tile", "volume", "navmesh", "pov"}));
    sub->add_option("INPUT", options->input, "Voxel grid (.vox)")->required();
    sub->add_option("-o,--output", options->output, "Output graph (.graph)")->required();
    sub->add_option("--agent-radius", options->agent_radius,
                    "volume: keep the agent this far from solid voxels [m] (0 = a point agent)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    navmesh::NavmeshParams& nm = options->navmesh;
    const char* group = "Navmesh (names and defaults as in Recast)";
    sub->add_option("--partition", options->partition,
                    "navmesh: region partitioning, watershed (best regions) or monotone (fastest)")
        ->check(CLI::IsMember({"watershed", "monotone"}))
        ->capture_default_str()
        ->group(group);
    sub->add_option("--region-min-size", nm.region_min_size,
                    "navmesh: drop regions smaller than this squared [cells]")
        ->capture_default_str()->group(group);
    sub->add_option("--region-merge-size", nm.region_merge_size,
                    "navmesh: merge regions smaller than this squared into neighbours [cells]")
        ->capture_default_str()->group(group);
    sub->add_option("--edge-max-len", nm.edge_max_len, "navmesh: longest contour edge [m]")
        ->capture_default_str()->group(group);
    sub->add_option("--edge-max-error", nm.edge_max_error,
                    "navmesh: contour simplification tolerance [cells]")
        ->capture_default_str()->group(group);
    sub->add_option("--max-verts-per-poly", nm.max_verts_per_poly, "navmesh: polygon corners, 3..6")
        ->capture_default_str()->group(group);
    sub->add_option("--detail-sample-dist", nm.detail_sample_dist,
                    "navmesh: detail height sampling distance [cells] (0 = polygon corners only)")
        ->capture_default_str()->group(group);
    sub->add_option("--detail-max-error", nm.detail_max_error,
                    "navmesh: detail height tolerance [cell heights]")
        ->capture_default_str()->group(group);
    sub->add_option("--tile-size", nm.tile_size,
                    "navmesh: tile size [cells]; 0 = one tile. Tiles bake in parallel")
        ->capture_default_str()->group(group);
    sub->add_option("--threads", nm.threads,
                    "navmesh, pov: worker threads (0 = all cores); the output does not depend on it")
        ->capture_default_str()->group(group);
    sub->callback([&body, options, sub] {
        body = [options, sub](Context& context) {
            options->navmesh.partition = options->partition == "monotone"
                                             ? navmesh::Partition::monotone
                                             : navmesh::Partition::watershed;
            if (options->kind == "navmesh") {
                if (Status s = navmesh::checkParams(options->navmesh); !s)
                    return reportFailure(context, s.error());
            }
            auto grid = vox::loadVoxels(options->input);
            if (!grid) return reportFailure(context, grid.error());
            const auto start = std::chrono::steady_clock::now();
            Result<graph::Graph> graph = graph::Graph{};
            if (options->kind == "tile") {
                if (sub->count("--agent-radius"))
                    context.warn("--agent-radius applies to volume graphs; tile graphs use the "
                                 "radius the walkable surface was eroded with");
                graph = graph::buildTileGraph(*grid, context);
            } else if (options->kind == "navmesh") {
                graph = graph::buildNavmeshGraph(*grid, options->navmesh, context);
            } else if (options->kind == "pov") {
                graph::PovParams pov;
                pov.threads = unsigned(std::max(0, options->navmesh.threads));
                graph = graph::buildPovGraph(*grid, pov, context);
            } else {
                graph = graph::buildVolumeGraph(*grid, float(options->agent_radius), context);
            }
            if (!graph) return reportFailure(context, graph.error());
            if (Status s = graph::saveGraph(options->output, *graph); !s)
                return reportFailure(context, s.error());
            const double ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start).count();
            const formats::GraphHeader& h = graph->header;
            if (h.type == formats::GraphType::navmesh) {
                const navmesh::NavMesh& m = graph->mesh;
                context.info("navmesh: {} polygons, {} vertices, {} regions, {} x {} tiles, {} "
                             "portal edges, {} components (largest {}), {:.1f} ms -> {}",
                             m.polyCount(), m.vertexCount(), m.region_count, m.tiles_x, m.tiles_z,
                             h.edge_count, h.component_count, h.largest_component, ms,
                             options->output);
            } else if (h.type == formats::GraphType::pov) {
                const formats::PovStats& st = graph->pov_stats;
                context.info("pov graph: {} corners ({} any-direction), {} visibility edges before "
                             "pruning, {} taut edges after ({:.1f}%), {} layer cells, {} components "
                             "(largest {} corners), {:.1f} ms -> {}",
                             st.corner_count, st.any_direction_corners, st.visibility_edges,
                             st.taut_edges,
                             st.visibility_edges ? 100.0 * double(st.taut_edges) / double(st.visibility_edges)
                                                 : 100.0,
                             st.layer_cell_count, h.component_count, h.largest_component, ms,
                             options->output);
            } else if (h.flags & formats::kGraphFlagImplicitVolume) {
                size_t free_voxels = 0;
                for (uint64_t word : graph->free_voxels) free_voxels += size_t(std::popcount(word));
                context.info("volume graph: {} x {} x {} voxels, {} free for the agent (implicit "
                             "26-connected edges), {} components (largest {}), {:.1f} ms -> {}",
                             h.size_x, h.size_y, h.size_z, free_voxels, h.component_count,
                             h.largest_component, ms, options->output);
            } else {
                context.info("{} graph: {} nodes, {} edges, {} components (largest {} nodes), "
                             "{:.1f} ms -> {}",
                             options->kind, h.node_count, h.edge_count, h.component_count,
                             h.largest_component, ms, options->output);
            }
            return kExitOk;
        };
    });
}

void registerPack(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input;
        std::string output;
        std::string clusters;
        std::string hierarchy;
        std::string next_hop;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "pack", "Pack a graph into the runtime asset (.nav) that navrt loads and queries");
    sub->add_option("INPUT", options->input, "Graph (.graph)")->required();
    sub->add_option("-o,--output", options->output, "Runtime asset (.nav)")->required();
    sub->add_option("--clusters", options->clusters,
                    "Add the node clusters and cluster heuristic table of this .clu (made by "
                    "'navbake cluster' from the same graph)");
    sub->add_option("--hierarchy", options->hierarchy,
                    "Add the hierarchy of this .hier (made by 'navbake hierarchy' from the same "
                    "graph and --clusters file)")
        ->needs("--clusters");
    sub->add_option("--nexthop", options->next_hop,
                    "Add the next-hop table of this .nh or hierarchical .nhh (made by 'navbake "
                    "nexthop' from the same graph; shards must be merged first)");
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto graph = graph::loadGraph(options->input);
            if (!graph) return reportFailure(context, graph.error());
            formats::ContainerWriter writer = graph::graphWriter(*graph, formats::kKindNav);
            uint32_t cluster_count = 0, levels = 0;
            if (!options->clusters.empty()) {
                auto clusters = cluster::loadClusters(options->clusters);
                if (!clusters) return reportFailure(context, clusters.error());
                if (Status s = cluster::checkMatches(*clusters, options->clusters, *graph,
                                                     options->input); !s)
                    return reportFailure(context, s.error());
                cluster::addClusterSections(writer, *clusters);
                cluster_count = clusters->count();
                if (!options->hierarchy.empty()) {
                    auto hierarchy =
                        cluster::loadHierarchy(options->hierarchy, *clusters, options->clusters);
                    if (!hierarchy) return reportFailure(context, hierarchy.error());
                    cluster::addHierarchySections(writer, *hierarchy);
                    levels = hierarchy->levelCount();
                }
            }
            bool with_next_hop = false;
            if (!options->next_hop.empty()) {
                auto probe = loadContainer(options->next_hop);
                if (!probe) return reportFailure(context, probe.error());
                if (probe->container.kind == formats::kKindHierNextHop) {
                    auto table = nexthop::loadHierTable(options->next_hop);
                    if (!table) return reportFailure(context, table.error());
                    if (table->header.node_count != graph->nodeCount() ||
                        table->header.graph_fingerprint != graph::graphFingerprint(*graph))
                        return reportFailure(context,
                                             inputError("{} was built for another graph than {}; "
                                                        "rebuild it with 'navbake nexthop {} "
                                                        "--clusters FILE.clu'",
                                                        options->next_hop, options->input,
                                                        options->input));
                    nexthop::addHierTableSections(writer, *table);
                } else {
                    auto table = nexthop::loadTable(options->next_hop);
                    if (!table) return reportFailure(context, table.error());
                    if (Status s = nexthop::checkMatches(*table, options->next_hop, *graph,
                                                         options->input); !s)
                        return reportFailure(context, s.error());
                    if (table->header.flags & formats::kNextHopFlagPartial)
                        return reportFailure(
                            context, inputError("{} is shard {}/{} of a table; join the shards "
                                                "with 'navbake nexthop merge' first",
                                                options->next_hop, table->header.shard_index,
                                                table->header.shard_count));
                    nexthop::addNextHopSections(writer, *table);
                }
                with_next_hop = true;
            }
            if (Status s = saveContainer(options->output, writer); !s)
                return reportFailure(context, s.error());
            std::error_code ec;
            std::string with = cluster_count > 0 ? fmt::format(", {} clusters", cluster_count)
                                                 : std::string();
            if (levels > 0) with += fmt::format(", {} hierarchy levels", levels);
            if (with_next_hop) with += ", next-hop table";
            context.info("packed {} nodes, {} edges{}: {} bytes -> {}", graph->header.node_count,
                         graph->edgeCount(), with, std::filesystem::file_size(options->output, ec),
                         options->output);
            return kExitOk;
        };
    });
}

}  // namespace nav::cli
