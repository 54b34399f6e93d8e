// `navbake cluster` and `navbake hierarchy`: options onto cluster::ClusterStage and
// cluster::HierarchyStage (Millington, "AI for Games", 4.3.8 and 4.6), which do the work.
#include "lib/cluster/hierarchy.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerCluster(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output, rooms;
        cluster::ClusterParams params;
    };
    auto options = std::make_shared<Options>();
    cluster::ClusterParams& p = options->params;
    CLI::App* sub = app.add_subcommand(
        "cluster",
        "Partition a graph into connected clusters and bake the cluster heuristic table (minimum "
        "cost between every pair of clusters) into a .clu for 'navbake pack --clusters'");
    sub->add_option("INPUT", options->input, "Graph (.graph): tile, navmesh or pov")->required();
    sub->add_option("-o,--output", options->output, "Output clusters (.clu)")->required();
    addChoice<cluster::ClusterParams::Method>(
        sub, "--method", p.method, cluster::kClusterMethods,
        "grid: blocks of N x N columns (navmesh: its regions) split into connected pieces; "
        "regions: rooms cut at doorways and chokepoints (watershed of the clearance field; "
        "navmesh: its regions), merged or split towards the target; manual: the rooms a "
        "designer drew (the graph's scene cluster markers, then --rooms), nodes outside every "
        "room in grid blocks");
    auto* size = sub->add_option("--cluster-size", p.cluster_size,
                                 "grid: block edge [cells]; regions: about N x N cells of walkable "
                                 "surface per cluster; manual: block edge for the nodes outside "
                                 "every room; 1..4096")
                     ->capture_default_str();
    sub->add_option("--rooms", options->rooms,
                    "manual: rooms and group costs from this JSON file, {\"rooms\": [{\"name\": "
                    "\"hall\", \"min\": [x, y, z], \"max\": [x, y, z]} or {\"name\", "
                    "\"points\": [[x, y, z], ...]}, optional \"representative\": [x, y, z]], "
                    "\"group_costs\": [{\"from\": \"hall\", \"to\": \"armoury\", \"cost\": "
                    "40}]}, as a level config's; after the graph's scene rooms");
    sub->add_option("--clusters", p.clusters, "Target cluster count (instead of --cluster-size)")
        ->excludes(size);
    sub->add_option("--landmarks", p.landmarks,
                    "ALT landmarks (0..64) stored beside the table: the cluster heuristic also "
                    "takes the landmark bound (2 bytes per node and landmark, twice on graphs with "
                    "one-way edges)")
        ->capture_default_str();
    sub->add_option("--threads", p.threads,
                    "Worker threads (0 = all cores); the output does not depend on it")
        ->capture_default_str();
    sub->callback([&body, options] {
        body = [options](Context& context) {
            cluster::ClusterParams params = options->params;
            if (!options->rooms.empty())
                if (Status s = cluster::loadRoomsFile(options->rooms, params); !s)
                    return reportFailure(context, s.error());
            return runStage<cluster::ClusterStage>(context, {options->input}, params,
                                                   options->output);
        };
    });
}

void registerHierarchy(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, clusters, output;
        cluster::HierarchyParams params;
    };
    auto options = std::make_shared<Options>();
    cluster::HierarchyParams& p = options->params;
    CLI::App* sub = app.add_subcommand(
        "hierarchy",
        "Build the hierarchical graph (levels of groups of clusters with min/maximin/avgmin "
        "connection costs) and the HPA* entrance graph into a .hier for 'navbake pack "
        "--hierarchy'");
    sub->add_option("INPUT", options->input, "Graph (.graph): tile, navmesh or pov")->required();
    sub->add_option("--clusters", options->clusters,
                    "Clusters of that graph (.clu from 'navbake cluster'): level 1")
        ->required();
    sub->add_option("-o,--output", options->output, "Output hierarchy (.hier)")->required();
    sub->add_option("--levels", p.levels,
                    "Abstract levels, clusters included (0 = until fewer than 16 groups remain)")
        ->capture_default_str();
    sub->add_option("--fanout", p.fanout,
                    "Groups of one level merged into a group of the next, 2..64")
        ->capture_default_str();
    addChoice<formats::HierCost>(sub, "--cost", p.cost, cluster::kHierCosts,
                                 "Default connection cost between groups (Millington 4.6.1): min = "
                                 "cheapest link; maximin = worst entry-to-exit distance inside the "
                                 "group; avgmin = mean of those (all three are stored; queries may "
                                 "pick another)");
    addChoice<formats::EntranceMode>(
        sub, "--entrances", p.entrances, cluster::kEntranceModes,
        "HPA* entrances: sparse = one or two per border stretch; all = "
        "every border node (exact shortest paths, larger)");
    sub->add_option("--entrance-spacing", p.spacing,
                    "Sparse entrances: besides the two ends of a border stretch longer than 5 "
                    "nodes, one every this many nodes (0 = the ends only, as HPA*): shorter "
                    "paths, more entrances")
        ->capture_default_str();
    sub->add_flag("!--no-entrance-tables", p.tables,
                  "Leave out the entrance distance tables (each node's cost inside its cluster to "
                  "the cluster's entrances, members x entrances floats): smaller, but HPA* "
                  "queries then search each cluster to link start and goal and refine every "
                  "entrance edge");
    sub->add_option("--threads", p.threads,
                    "Worker threads (0 = all cores); the output does not depend on it")
        ->capture_default_str();
    sub->callback([&body, options] {
        body = [options](Context& context) {
            return runStage<cluster::HierarchyStage>(context, {options->input, options->clusters},
                                                     options->params, options->output);
        };
    });
}

}  // namespace nav::navbake
