#include "lib/pack/pack.h"

#include <fmt/format.h>

#include <algorithm>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/graph/jump_points.h"
#include "lib/nexthop/nexthop.h"

namespace nav::pack {

Result<MemoryEstimate> PackStage::estimateMemory(const Inputs& inputs, const Params&) {
    // Every input decoded, the writer's copy and its compressed output: measured 2.2-3.5x the
    // inputs' decoded bytes, plus zstd's window and match tables (up to ~48 MiB at high levels).
    uint64_t raw = 0;
    for (const std::filesystem::path* path :
         {&inputs.graph, &inputs.clusters, &inputs.hierarchy, &inputs.next_hop}) {
        if (path->empty()) continue;
        auto bytes = containerRawBytes(*path);
        if (!bytes) return bytes.error();
        raw += *bytes;
    }
    return MemoryEstimate{kStageBaseBytes + raw * 3 + std::min<uint64_t>(raw, 8 << 20) * 6,
                          fmt::format("{} of decoded inputs", humanBytes(raw)),
                          "a smaller graph (cell size, bounds) or world tiles"};
}

Result<StageResult> PackStage::run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context) {
    if (!inputs.hierarchy.empty() && inputs.clusters.empty())
        return makeError(ErrorKind::usage,
                         "a hierarchy is packed with its clusters: give the .clu "
                         "it was built on too");
    auto graph = graph::loadGraph(inputs.graph);
    if (!graph) return graph.error();
    formats::ContainerWriter writer = graph::graphWriter(*graph, formats::kKindNav);
    StageResult result;
    result.count("nodes", graph->nodeCount());
    result.count("edges", graph->edgeCount());
    std::string with;
    if (!inputs.clusters.empty()) {
        auto clusters = cluster::loadClusters(inputs.clusters);
        if (!clusters) return clusters.error();
        if (Status s = cluster::checkMatches(*clusters, inputs.clusters, *graph, inputs.graph); !s)
            return s.error();
        cluster::addClusterSections(writer, *clusters);
        result.count("clusters", clusters->count());
        with += fmt::format(", {} clusters", clusters->count());
        if (!inputs.hierarchy.empty()) {
            auto hierarchy = cluster::loadHierarchy(inputs.hierarchy, *clusters, inputs.clusters);
            if (!hierarchy) return hierarchy.error();
            cluster::addHierarchySections(writer, *hierarchy);
            result.count("levels", hierarchy->levelCount());
            with += fmt::format(", {} hierarchy levels", hierarchy->levelCount());
        }
    }
    if (!inputs.next_hop.empty()) {
        auto probe = loadContainer(inputs.next_hop);
        if (!probe) return probe.error();
        if (probe->container.kind == formats::kKindHierNextHop) {
            auto table = nexthop::loadHierTable(inputs.next_hop);
            if (!table) return table.error();
            if (table->header.node_count != graph->nodeCount() ||
                table->header.graph_fingerprint != graph::graphFingerprint(*graph))
                return inputError(
                    "{} was built for another graph than {}; rebuild it with "
                    "'navbake nexthop {} --clusters FILE.clu'",
                    inputs.next_hop.string(), inputs.graph.string(), inputs.graph.string());
            nexthop::addHierTableSections(writer, *table);
        } else {
            auto table = nexthop::loadTable(inputs.next_hop);
            if (!table) return table.error();
            if (Status s = nexthop::checkMatches(*table, inputs.next_hop, *graph, inputs.graph); !s)
                return s.error();
            if (table->header.flags & formats::kNextHopFlagPartial)
                return inputError(
                    "{} is shard {}/{} of a table; join the shards with 'navbake "
                    "nexthop merge' first",
                    inputs.next_hop.string(), table->header.shard_index, table->header.shard_count);
            nexthop::addNextHopSections(writer, *table);
        }
        with += ", next-hop table";
    }
    if (params.jump_points) {
        if (graph->header.type != formats::GraphType::tile)
            return makeError(ErrorKind::usage,
                             "{}: jump points are for tile graphs (this one is not); leave out "
                             "--jump-points",
                             inputs.graph.string());
        auto table = graph::buildJumpTable(*graph);
        if (!table) return table.error();
        result.count("jump_regular", table->regular);
        result.count("jump_special", table->special);
        if (table->regular == 0) {
            result.warnings.push_back(
                "no node is a uniform grid cell (octile step costs, no links): no jump point "
                "table; queries by JPS+ run as A*");
        } else {
            graph::addJumpSections(writer, *table);
            with += fmt::format(", jump points ({} of {} nodes regular)", table->regular,
                                graph->nodeCount());
            if (params.goal_bounds) {
                auto bounds = nexthop::buildGoalBounds(*graph, *table, 0, context);
                if (!bounds) return bounds.error();
                nexthop::addGoalBoundsSection(writer, *bounds);
                result.count("goal_bounds", table->regular);
                with += ", goal bounds";
            }
        }
    }
    if (Status s = saveContainer(output, writer); !s) return s.error();
    std::error_code ec;
    const uint64_t bytes = std::filesystem::file_size(output, ec);
    result.count("bytes", bytes);
    result.summary.push_back(fmt::format("packed {} nodes, {} edges{}: {} bytes -> {}",
                                         graph->header.node_count, graph->edgeCount(), with, bytes,
                                         output.string()));
    return result;
}

}  // namespace nav::pack
