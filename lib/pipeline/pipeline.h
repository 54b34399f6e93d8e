// `navbake build LEVEL.json`: the whole pipeline from one config, for asset pipelines and CI.
//
// A level config (JSON; schema in formats/level.schema.json) names the input file(s), import and
// voxel settings, one or more agent profiles, and per agent the graphs and lookup structures to
// bake. The config maps onto the same stage definitions the command line runs (lib/common/stage.h:
// import, voxelize, graph, cluster, hierarchy, nexthop, pack), checked by the same check()s, so a
// value gives the same error text in a config (named by JSON path) as on the command line (named
// by option). This file only plans the stage graph, keys and caches it, schedules it and reports.
//
// Every stage gets a cache key = XXH64 of its kind, its Params (StageKey), the format versions and
// the keys of the stages it reads (source files: their bytes); its artifact is kept under
// OUTPUT/.cache/ named by that key, so an unchanged stage is skipped and says so. Independent
// stages run in parallel (jobs); every stage's output is independent of the thread count, so the
// outputs are too. Final assets (OUTPUT/AGENT.GRAPH.nav) and the report (OUTPUT/LEVEL.report.json)
// are written atomically; a cancelled or failed build leaves the previous ones untouched.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/graph/graph.h"
#include "lib/graph/world.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/voxel/voxelize.h"

namespace nav::pipeline {

struct AgentConfig {
    std::string name = "default";
    voxel::VoxelizeParams voxelize;  // cell sizes from $.voxel, the agent from the profile
    std::vector<graph::GraphKind> graphs = {graph::GraphKind::tile, graph::GraphKind::navmesh};
    graph::GraphStage::Params graph;  // navmesh from $.navmesh; volume radius = the agent's radius
    bool clusters = false;
    cluster::ClusterParams cluster;
    bool hierarchy = false;    // needs clusters
    bool jump_points = false;  // the tile graph's asset packed with its JPS+ table
    bool goal_bounds = false;  // ... and its goal bounds (needs jump_points)
    cluster::HierarchyParams hierarchy_params;
    enum class NextHop { none, flat, hierarchical } next_hop = NextHop::none;
    nexthop::BuildParams next_hop_params;
};

struct LevelConfig {
    std::filesystem::path file;                 // the config itself
    std::vector<std::filesystem::path> inputs;  // absolute
    importer::ImportStage::Params import;       // tags: absolute, empty = built-in rules
    std::vector<AgentConfig> agents;
    std::filesystem::path output;  // absolute; default: <config dir>/<stem>.navbake
    bool debug_views = false;
    bool grid_map = false;  // the input is a MovingAI .map or .3dmap (no voxelize stage)
    // $.world: the graph kinds of world_graphs (tile, navmesh) baked as world tiles
    // (AGENT.KIND.world and AGENT.KIND.X_Z.nav); an agent's other kinds stay one asset each.
    bool world = false;
    graph::WorldStage::Params world_params;
    std::vector<graph::GraphKind> world_graphs = {graph::GraphKind::tile};
    bool worldTiles(graph::GraphKind kind) const {
        return world &&
               std::find(world_graphs.begin(), world_graphs.end(), kind) != world_graphs.end();
    }
};

// Parses and checks a config. Errors name the file and the JSON path ($.agents[1].radius): wrong
// types, unknown keys (with the keys allowed there), missing inputs, and every bad parameter of a
// stage at once (the stage's own check, fields named by JSON path).
Result<LevelConfig> loadLevelConfig(const std::filesystem::path& path);
Result<LevelConfig> parseLevelConfig(const std::string& text, const std::filesystem::path& path);

struct BuildOptions {
    int jobs = 0;        // stages run at once; 0 = all cores
    bool force = false;  // rebuild every stage
    bool check = false;  // only compare the committed outputs with what the inputs would give
    // Distributed builds (tools/navbake-dask, Slurm arrays): the artifacts' folder (default
    // OUTPUT/.cache), and one stage alone (by name or key) whose inputs are already there; it
    // writes only its artifact, no output and no report. With shard_count > 0 a stage that splits
    // (a flat next-hop table) writes shard shard_index of shard_count (`ARTIFACT.part-K-of-N`);
    // merge_shards = N joins the N parts into the artifact.
    std::filesystem::path cache;
    std::string stage;
    uint32_t shard_index = 0, shard_count = 0;
    uint32_t merge_shards = 0;
};

struct StageReport {
    std::string name, kind, agent;
    bool skipped = false;
    double milliseconds = 0;
    uint64_t peak_rss_bytes = 0;  // process peak resident memory when the stage ended
    std::string key;              // hex
    std::string artifact;         // path relative to the output folder
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    std::vector<std::string> warnings;
    std::vector<std::pair<std::string, bool>> named_inputs;  // StageResult::named_inputs
};

struct BuildReport {
    std::vector<StageReport> stages;
    std::vector<std::string> outputs;  // final assets, relative to the output folder
    std::vector<nlohmann::ordered_json> output_entries;  // per output: file, bytes, xxh64, sections
    std::vector<std::string> views;  // debug views (debug_views), relative to the output folder
    std::vector<std::string> stale;  // check: stages or outputs that do not match
    double milliseconds = 0;
    nlohmann::ordered_json toJson(const LevelConfig& config) const;
};

// The stage graph as `navbake plan --json` prints it: per stage its name, kind, agent and graph,
// key, artifact, the stages it depends on, the command that runs it alone, whether its artifact is
// cached, its memory estimate (when its inputs are there) and, for stages that split, the shard
// and merge commands. `navbake` is the program the commands name.
Result<nlohmann::ordered_json> planBuild(const LevelConfig& config, const BuildOptions& options,
                                         const std::string& navbake);

// Runs (or checks) the build. check: ErrorKind::bad_input naming the stale stages when the
// outputs do not match; nothing is written.
Result<BuildReport> runBuild(const LevelConfig& config, const BuildOptions& options,
                             Context& context);

}  // namespace nav::pipeline
