// Stage 5: pack. Writes the runtime asset (.nav) that navrt loads: the graph's sections and,
// optionally, the cluster heuristic table (.clu), the hierarchy (.hier) and a next-hop table
// (.nh flat or .nhh hierarchical). Every optional part is checked to belong to the graph (node
// count and fingerprint) and the hierarchy to those very clusters; a next-hop shard is refused.
// One definition shared by `navbake pack` and `navbake build` (lib/common/stage.h).
#pragma once

#include <filesystem>
#include <string_view>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"

namespace nav::pack {

struct PackStage {
    static constexpr std::string_view kName = "pack";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    struct Params {
        // Tile graphs: add the JPS+ jump point table (JPSH, JPSE; FORMAT.md §6.9) that
        // navrt's findPathJumping (`navbake query --method jps`) searches with.
        bool jump_points = false;
        // With jump_points: also the goal bounds (JPSB, FORMAT.md §6.9) that let a JPS+ search
        // skip directions that cannot start a shortest path to its goal: one search per regular
        // node at pack time (as a next-hop table row's), 64 bytes a node before compression.
        bool goal_bounds = false;
    };  // (zstd level 19, FORMAT.md)
    struct Inputs {
        std::filesystem::path graph;      // .graph
        std::filesystem::path clusters;   // .clu of that graph, or empty
        std::filesystem::path hierarchy;  // .hier of those clusters (needs clusters), or empty
        std::filesystem::path next_hop;   // .nh or .nhh of that graph, or empty
    };
    static ParamIssues check(const Params& params) {
        ParamIssues issues;
        if (params.goal_bounds && !params.jump_points)
            issues.push_back(
                {"goal_bounds", "true", "only with jump_points (the jump point table)"});
        return issues;
    }
    static void describe(const Params& params, StageKey& key) {
        if (params.jump_points) key.add("jump_points", true);  // (keys without it unchanged)
        if (params.goal_bounds) key.add("goal_bounds", true);
    }
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: nodes, edges, clusters, levels, bytes. Errors name both files when a part belongs
    // to another graph or other clusters.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::pack
