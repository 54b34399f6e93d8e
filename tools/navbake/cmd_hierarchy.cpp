// `navbake hierarchy`: builds the multi-level graph over a graph's clusters (Millington, "AI for
// Games", 4.6) and the HPA* entrance graph into a .hier that `navbake pack --hierarchy` adds.
#include <chrono>

#include "../../lib/cluster/hierarchy.h"
#include "cli.h"

namespace nav::cli {

void registerHierarchy(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, clusters, output;
        uint32_t levels = 0, fanout = 4;
        std::string cost = "min", entrances = "sparse";
        int threads = 0;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "hierarchy",
        "Build the hierarchical graph (levels of groups of clusters with min/maximin/avgmin "
        "connection costs) and the HPA* entrance graph into a .hier for 'navbake pack --hierarchy'");
    sub->add_option("INPUT", options->input, "Graph (.graph): tile, navmesh or pov")->required();
    sub->add_option("--clusters", options->clusters,
                    "Clusters of that graph (.clu from 'navbake cluster'): level 1")
        ->required();
    sub->add_option("-o,--output", options->output, "Output hierarchy (.hier)")->required();
    sub->add_option("--levels", options->levels,
                    "Abstract levels, clusters included (0 = until fewer than 16 groups remain)")
        ->check(CLI::Range(0u, formats::kMaxHierLevels))
        ->capture_default_str();
    sub->add_option("--fanout", options->fanout, "Groups of one level merged into a group of the next")
        ->check(CLI::Range(2u, 64u))
        ->capture_default_str();
    sub->add_option("--cost", options->cost,
                    "Default connection cost between groups (Millington 4.6.1): min = cheapest "
                    "link; maximin = worst entry-to-exit distance inside the group; avgmin = "
                    "mean of those (all three are stored; queries may pick another)")
        ->check(CLI::IsMember({"min", "maximin", "avgmin"}))
        ->capture_default_str();
    sub->add_option("--entrances", options->entrances,
                    "HPA* entrances: sparse = one or two per border stretch; all = every border "
                    "node (exact shortest paths, larger)")
        ->check(CLI::IsMember({"sparse", "all"}))
        ->capture_default_str();
    sub->add_option("--threads", options->threads,
                    "Worker threads (0 = all cores); the output does not depend on it")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto graph = graph::loadGraph(options->input);
            if (!graph) return reportFailure(context, graph.error());
            auto clusters = cluster::loadClusters(options->clusters);
            if (!clusters) return reportFailure(context, clusters.error());
            if (Status s = cluster::checkMatches(*clusters, options->clusters, *graph,
                                                 options->input); !s)
                return reportFailure(context, s.error());
            cluster::HierarchyParams params;
            params.levels = options->levels;
            params.fanout = options->fanout;
            params.cost = options->cost == "maximin" ? formats::HierCost::maximin
                          : options->cost == "avgmin" ? formats::HierCost::avgmin
                                                      : formats::HierCost::min;
            params.entrances = options->entrances == "all" ? formats::EntranceMode::all
                                                           : formats::EntranceMode::sparse;
            params.threads = options->threads;
            const auto start = std::chrono::steady_clock::now();
            auto hierarchy = cluster::buildHierarchy(*graph, *clusters, params, context);
            if (!hierarchy) return reportFailure(context, hierarchy.error());
            if (Status s = cluster::saveHierarchy(options->output, *hierarchy); !s)
                return reportFailure(context, s.error());
            const double ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start).count();
            const formats::HierarchyHeader& h = hierarchy->header;
            std::string groups;
            for (uint32_t count : hierarchy->group_counts)
                groups += (groups.empty() ? "" : " > ") + std::to_string(count);
            std::error_code ec;
            context.info("{} levels (groups {}), {} abstract edges, {} entrances ({}), {} entrance "
                         "edges; {} bytes, {:.1f} ms -> {}",
                         h.level_count, groups, h.abstract_edge_count, h.entrance_count,
                         options->entrances, h.entrance_edge_count,
                         std::filesystem::file_size(options->output, ec), ms, options->output);
            return kExitOk;
        };
    });
}

}  // namespace nav::cli
