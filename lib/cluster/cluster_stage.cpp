// The cluster and hierarchy stages: one definition each, shared by `navbake cluster`,
// `navbake hierarchy` and `navbake build`.
#include <fmt/format.h>

#include <chrono>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"

namespace nav::cluster {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace

ParamIssues checkClusterParams(const ClusterParams& params) {
    ParamCheck check;
    check.range("cluster_size", params.cluster_size, 1u, kMaxClusterSize, "cells");
    check.range("clusters", params.clusters, 0u, formats::kMaxClusters);
    check.threads("threads", params.threads);
    return check.issues;
}

ParamIssues checkHierarchyParams(const HierarchyParams& params) {
    ParamCheck check;
    check.range("levels", params.levels, 0u, formats::kMaxHierLevels);
    check.range("fanout", params.fanout, 2u, kMaxFanout);
    check.threads("threads", params.threads);
    return check.issues;
}

void ClusterStage::describe(const Params& params, StageKey& key) {
    key.add("method", choiceName<ClusterParams::Method>(kClusterMethods, params.method))
        .add("cluster_size", params.cluster_size)
        .add("clusters", params.clusters);
}

Result<StageResult> ClusterStage::run(const Inputs& inputs, const Params& params,
                                      const std::filesystem::path& output, Context& context) {
    auto graph = graph::loadGraph(inputs.graph);
    if (!graph) return graph.error();
    const auto start = std::chrono::steady_clock::now();
    auto clusters = buildClusters(*graph, params, context);
    if (!clusters) return clusters.error();
    if (Status s = saveClusters(output, *clusters); !s) return s.error();
    StageResult result;
    result.milliseconds = millisecondsSince(start);
    result.count("clusters", clusters->count());
    uint64_t stored = 0;
    if (auto saved = loadContainer(output)) {
        const int index = saved->container.find(formats::kSecClusterTable);
        if (index >= 0) stored = saved->container.sections[index].stored_size;
    }
    const formats::ClusterHeader& h = clusters->header;
    result.summary.push_back(fmt::format(
        "{} clusters ({}), nodes per cluster min {} mean {:.1f} max {}; table {} x {}: {} bytes "
        "raw, "
        "{} compressed, scale {:.6g} per unit, max cost {:.3f}, {} unreachable pairs; {:.1f} ms -> "
        "{}",
        h.cluster_count, choiceName<ClusterParams::Method>(kClusterMethods, params.method),
        h.min_cluster_nodes, double(h.node_count) / double(h.cluster_count), h.max_cluster_nodes,
        h.cluster_count, h.cluster_count, clusters->table.size() * 2, stored, h.scale,
        clusters->max_cost, h.unreachable_pairs, result.milliseconds, output.string()));
    return result;
}

void HierarchyStage::describe(const Params& params, StageKey& key) {
    key.add("levels", params.levels)
        .add("fanout", params.fanout)
        .add("cost", choiceName<formats::HierCost>(kHierCosts, params.cost))
        .add("entrances", choiceName<formats::EntranceMode>(kEntranceModes, params.entrances));
}

Result<StageResult> HierarchyStage::run(const Inputs& inputs, const Params& params,
                                        const std::filesystem::path& output, Context& context) {
    auto graph = graph::loadGraph(inputs.graph);
    if (!graph) return graph.error();
    auto clusters = loadClusters(inputs.clusters);
    if (!clusters) return clusters.error();
    if (Status s = checkMatches(*clusters, inputs.clusters, *graph, inputs.graph); !s)
        return s.error();
    const auto start = std::chrono::steady_clock::now();
    auto hierarchy = buildHierarchy(*graph, *clusters, params, context);
    if (!hierarchy) return hierarchy.error();
    if (Status s = saveHierarchy(output, *hierarchy); !s) return s.error();
    StageResult result;
    result.milliseconds = millisecondsSince(start);
    result.count("levels", hierarchy->levelCount());
    result.count("entrances", hierarchy->entrances.size());
    const formats::HierarchyHeader& h = hierarchy->header;
    std::string groups;
    for (uint32_t count : hierarchy->group_counts)
        groups += (groups.empty() ? "" : " > ") + std::to_string(count);
    std::error_code ec;
    result.summary.push_back(fmt::format(
        "{} levels (groups {}), {} abstract edges, {} entrances ({}), {} entrance edges; {} bytes, "
        "{:.1f} ms -> {}",
        h.level_count, groups, h.abstract_edge_count, h.entrance_count,
        choiceName<formats::EntranceMode>(kEntranceModes, params.entrances), h.entrance_edge_count,
        std::filesystem::file_size(output, ec), result.milliseconds, output.string()));
    return result;
}

}  // namespace nav::cluster
