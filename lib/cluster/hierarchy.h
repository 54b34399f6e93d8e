// Hierarchical graphs (Millington, "AI for Games", 4.6): level 0 is the graph, level 1 its
// clusters (a .clu), level l + 1 groups neighbouring groups of level l, until few remain. Groups
// that any lower-level edge joins are connected by an abstract edge carrying the three costs of
// 4.6.1 (minimum, maximin and average minimum distance), measured by real pathfinding inside the
// group; each group has a representative node (the node closest to its centroid). Alongside, the
// exact variant (HPA*, Botea et al. 2004): entrance nodes on the cluster borders joined by the
// exact intra-cluster distances, so a path planned over entrances refines into a valid path whose
// cost is the planned one. navrt's HierarchicalQuery searches both.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/layouts.h"
#include "lib/cluster/cluster.h"
#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/common/result.h"
#include "lib/graph/graph.h"

namespace nav::cluster {

struct HierarchyParams {
    uint32_t levels = 0;  // abstract levels, clusters included; 0 = until fewer than kTopGroups
    uint32_t fanout = 4;  // target level-l groups per group of level l + 1 (>= 2)
    formats::HierCost cost = formats::HierCost::min;  // default cost method of the asset
    // sparse: per border stretch between two clusters one transition (two for stretches of more
    // than 5 nodes), as HPA*; all: every border node (exact shortest paths, larger tables).
    formats::EntranceMode entrances = formats::EntranceMode::sparse;
    // sparse: besides the two ends, a transition every `spacing` nodes of a stretch longer than
    // 5 nodes (0 = the ends only, as HPA*); denser entrances give shorter paths, larger tables.
    uint32_t spacing = 4;
    // Entrance distance tables (FORMAT.md §8.2): per node the exact cost inside its cluster to
    // each of the cluster's entrances. HPA* then links start and goal to the entrance graph and
    // refines entrance edges by table lookups instead of searches (members x entrances floats).
    bool tables = true;
    int threads = 0;  // 0 = all hardware threads; the output does not depend on it
};
inline constexpr uint32_t kTopGroups = 16;
inline constexpr uint32_t kMaxFanout = 64;
inline constexpr uint32_t kMaxSpacing = 4096;
inline constexpr Choice<formats::HierCost> kHierCosts[] = {{"min", formats::HierCost::min},
                                                           {"maximin", formats::HierCost::maximin},
                                                           {"avgmin", formats::HierCost::avgmin}};
inline constexpr Choice<formats::EntranceMode> kEntranceModes[] = {
    {"sparse", formats::EntranceMode::sparse}, {"all", formats::EntranceMode::all}};
// Every bad field (levels 0..kMaxHierLevels, fanout 2..kMaxFanout, spacing 0..kMaxSpacing,
// threads).
ParamIssues checkHierarchyParams(const HierarchyParams& params);

struct Hierarchy {
    formats::HierarchyHeader header;
    std::vector<uint32_t> group_counts;           // per level 1..L
    std::vector<uint32_t> parents;                // per group of levels 1..L-1: global parent id
    std::vector<uint32_t> representatives;        // per group: a node of it
    std::vector<uint32_t> edge_offsets;           // per group + 1 (CSR over global group ids)
    std::vector<uint32_t> edge_targets;           // global group id, same level
    std::vector<float> edge_costs;                // 3 per edge: min, maximin, avgmin
    std::vector<uint32_t> member_offsets;         // per cluster + 1
    std::vector<uint32_t> members;                // nodes, ascending within each cluster
    std::vector<uint32_t> entrance_offsets;       // per cluster + 1
    std::vector<uint32_t> entrances;              // entrance nodes, ascending within each cluster
    std::vector<uint32_t> entrance_edge_offsets;  // per entrance + 1
    std::vector<uint32_t> entrance_edge_targets;  // entrance index
    std::vector<float> entrance_edge_costs;       // exact cost of the path it stands for
    // Entrance distance tables (empty without HierarchyParams::tables): per node its index in
    // its cluster's members; per cluster + 1 the offset of its members x entrances block; the
    // blocks, row-major (member, entrance): cost inside the cluster, +inf when none.
    std::vector<uint32_t> table_local;
    std::vector<uint64_t> table_offsets;
    std::vector<float> table;
    // Manual clusters (statistics of the build, not stored): level-1 groups whose representative
    // a room's representative point chose, abstract edges whose costs a group cost replaced, and
    // what a user should read (group costs between rooms that are not adjacent).
    uint32_t room_representatives = 0;
    uint32_t room_cost_edges = 0;
    std::vector<std::string> warnings;

    uint32_t levelCount() const { return header.level_count; }
    // Global id of the first group of `level` (1-based); levelStart(L + 1) = group count.
    uint32_t levelStart(uint32_t level) const;
};

// Builds the hierarchy over `graph` from its clusters (which must match it; see checkMatches).
// Manual clusters (Clusters::rooms) steer level 1: a room's representative node is the
// representative of the cluster holding it (the room's other pieces keep theirs), and a group
// cost from room A to room B sets all three costs of every level-1 abstract edge from a cluster
// of A to a cluster of B; a cost between rooms no edge joins is a warning. Levels above are
// computed as usual (their grouping sees the chosen representatives). Refinement searches the
// graph itself, so paths stay valid whatever the costs; only their quality depends on them.
// Usage errors: fanout < 2, levels above kMaxHierLevels.
Result<Hierarchy> buildHierarchy(const graph::Graph& graph, const Clusters& clusters,
                                 const HierarchyParams& params, Context& context);

// XXH64 of the CLND bytes: identifies the clusters a hierarchy was built on.
uint64_t clustersFingerprint(const Clusters& clusters);

// Appends HRHD, the 13 array sections and the tables when built (the .hier layout, also what
// pack adds to a .nav).
void addHierarchySections(formats::ContainerWriter& writer, const Hierarchy& hierarchy);
Status saveHierarchy(const std::filesystem::path& path, const Hierarchy& hierarchy);
// Loads and checks a .hier against the clusters it must belong to (node count, fingerprints:
// errors name both files).
Result<Hierarchy> loadHierarchy(const std::filesystem::path& path, const Clusters& clusters,
                                const std::filesystem::path& clusters_path);

// The hierarchy stage (lib/common/stage.h): .graph + its .clu -> .hier.
struct HierarchyStage {
    static constexpr std::string_view kName = "hierarchy";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    using Params = HierarchyParams;
    struct Inputs {
        std::filesystem::path graph;
        std::filesystem::path clusters;  // must have been built from `graph`
    };
    static ParamIssues check(const Params& params) { return checkHierarchyParams(params); }
    static void describe(const Params& params, StageKey& key);
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: levels, entrances; manual clusters: room_representatives, room_cost_edges.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::cluster
