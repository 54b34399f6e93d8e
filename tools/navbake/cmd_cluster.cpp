// `navbake cluster`: partitions a graph into clusters and bakes the cluster heuristic table
// (Millington, "AI for Games", 4.3.8) into a .clu that `navbake pack --clusters` adds to a .nav.
#include <chrono>

#include "../../lib/cluster/cluster.h"
#include "cli.h"

namespace nav::cli {

void registerCluster(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input;
        std::string output;
        std::string method = "grid";
        uint32_t cluster_size = 16;
        uint32_t clusters = 0;
        int threads = 0;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "cluster",
        "Partition a graph into connected clusters and bake the cluster heuristic table (minimum "
        "cost between every pair of clusters) into a .clu for 'navbake pack --clusters'");
    sub->add_option("INPUT", options->input, "Graph (.graph): tile, navmesh or pov")->required();
    sub->add_option("-o,--output", options->output, "Output clusters (.clu)")->required();
    sub->add_option("--method", options->method,
                    "grid: blocks of N x N columns (navmesh: its regions) split into connected "
                    "pieces; regions: rooms cut at doorways and chokepoints (watershed of the "
                    "clearance field; navmesh: its regions), merged or split towards the target")
        ->check(CLI::IsMember({"grid", "regions"}))
        ->capture_default_str();
    auto* size = sub->add_option("--cluster-size", options->cluster_size,
                                 "grid: block edge [cells]; regions: about N x N cells of walkable "
                                 "surface per cluster")
                     ->check(CLI::PositiveNumber)
                     ->capture_default_str();
    sub->add_option("--clusters", options->clusters, "Target cluster count (instead of --cluster-size)")
        ->check(CLI::PositiveNumber)
        ->excludes(size);
    sub->add_option("--threads", options->threads,
                    "Worker threads (0 = all cores); the output does not depend on it")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto graph = graph::loadGraph(options->input);
            if (!graph) return reportFailure(context, graph.error());
            cluster::ClusterParams params;
            params.method = options->method == "regions" ? cluster::ClusterParams::regions
                                                         : cluster::ClusterParams::grid;
            params.cluster_size = options->cluster_size;
            params.clusters = options->clusters;
            params.threads = options->threads;
            const auto start = std::chrono::steady_clock::now();
            auto clusters = cluster::buildClusters(*graph, params, context);
            if (!clusters) return reportFailure(context, clusters.error());
            if (Status s = cluster::saveClusters(options->output, *clusters); !s)
                return reportFailure(context, s.error());
            const double ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start).count();
            uint64_t stored = 0;
            if (auto saved = loadContainer(options->output)) {
                const int index = saved->container.find(formats::kSecClusterTable);
                if (index >= 0) stored = saved->container.sections[index].stored_size;
            }
            const formats::ClusterHeader& h = clusters->header;
            const size_t raw = clusters->table.size() * 2;
            context.info("{} clusters ({}), nodes per cluster min {} mean {:.1f} max {}; table {} x "
                         "{}: {} bytes raw, {} compressed, scale {:.6g} per unit, max cost {:.3f}, "
                         "{} unreachable pairs; {:.1f} ms -> {}",
                         h.cluster_count, options->method, h.min_cluster_nodes,
                         double(h.node_count) / double(h.cluster_count), h.max_cluster_nodes,
                         h.cluster_count, h.cluster_count, raw, stored, h.scale,
                         clusters->max_cost, h.unreachable_pairs, ms, options->output);
            return kExitOk;
        };
    });
}

}  // namespace nav::cli
