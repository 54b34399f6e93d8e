// Clusters and the cluster heuristic table (Millington, "AI for Games", 4.3.8): the nodes of an
// explicit graph are partitioned into connected clusters, and for every ordered pair of clusters
// (A, B) the table holds the exact minimum path cost from any node of A to any node of B,
// quantized down. max(table[cluster(n)][cluster(goal)], geometric heuristic) never overestimates,
// so A* with it stays optimal; an unreachable entry lets a query fail without expanding a node.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/graph/graph.h"

namespace nav::cluster {

struct ClusterParams {
    enum Method { grid, regions } method = grid;
    uint32_t cluster_size =
        16;  // [Units: cells] grid: block edge; regions: ~cluster_size^2 nodes each; 1..4096
    uint32_t clusters = 0;  // target count (0..kMaxClusters), overrides cluster_size when > 0
    int threads = 0;        // 0 = all hardware threads; the output does not depend on it
};
inline constexpr Choice<ClusterParams::Method> kClusterMethods[] = {
    {"grid", ClusterParams::grid}, {"regions", ClusterParams::regions}};
inline constexpr uint32_t kMaxClusterSize = 4096;
// Every bad field (cluster_size, clusters, threads).
ParamIssues checkClusterParams(const ClusterParams& params);

struct Clusters {
    formats::ClusterHeader header;        // counts, scale, fingerprint of the graph
    std::vector<uint32_t> node_clusters;  // cluster id per node, clusters numbered by lowest node
    std::vector<uint16_t> table;          // [a * cluster_count + b], kClusterUnreachable = none
    std::vector<uint32_t> cluster_nodes;  // nodes per cluster (statistics, not stored)
    double max_cost = 0;                  // largest finite table entry before quantization

    uint32_t count() const { return header.cluster_count; }
    // Lower bound on the cost from cluster a to cluster b (+inf when unreachable).
    double bound(uint32_t a, uint32_t b) const;
};

// Partitions `graph` (tile, navmesh or POV; volume graphs are refused) and computes the table.
// grid: blocks of cluster_size x cluster_size columns (navmesh graphs: polygon regions), each
// split into its connected pieces. regions: rooms cut at chokepoints (watershed of the clearance
// field, shallow borders merged, then merged and split towards the target size; navmesh graphs:
// their regions, merged), split into connected pieces. Usage errors: cluster_size 0, clusters
// above the node count, more than kMaxClusters clusters.
Result<Clusters> buildClusters(const graph::Graph& graph, const ClusterParams& params,
                               Context& context);

// Exact cluster-to-cluster minimum costs (+inf = unreachable), row-major, before quantization;
// for tests.
std::vector<double> exactTable(const graph::Graph& graph,
                               const std::vector<uint32_t>& node_clusters, uint32_t cluster_count,
                               int threads, Context& context);

// Appends the CLHD, CLND and CLTB sections (the .clu layout, also what pack adds to a .nav).
void addClusterSections(formats::ContainerWriter& writer, const Clusters& clusters);
Status saveClusters(const std::filesystem::path& path, const Clusters& clusters);
Result<Clusters> loadClusters(const std::filesystem::path& path);
Result<Clusters> decodeClusters(const LoadedContainer& container);

// Error naming both files unless `clusters` was built for `graph` (node count and fingerprint).
Status checkMatches(const Clusters& clusters, const std::filesystem::path& clusters_path,
                    const graph::Graph& graph, const std::filesystem::path& graph_path);

// The cluster stage (lib/common/stage.h): .graph -> .clu.
struct ClusterStage {
    static constexpr std::string_view kName = "cluster";
    using Params = ClusterParams;
    struct Inputs {
        std::filesystem::path graph;
    };
    static ParamIssues check(const Params& params) { return checkClusterParams(params); }
    static void describe(const Params& params, StageKey& key);
    // Counts: clusters.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::cluster
