// Next-hop lookup tables ("precalculated pathfinding", compressed path databases): for every
// ordered pair of nodes (s, t) the outgoing edge of s that starts a shortest path to t.
//
// Exactness and determinism: costs are converted to integers (round(cost * 2^24)), so equal path
// costs compare equal. One Dijkstra per source finds, per target t, the set of edges e = (s -> w)
// with c(e) + d(w, t) = d(s, t) (a node's set is the union of its tight predecessors'), and the
// row stores the member that gives the fewest runs: targets are cut into groups of 64 Hilbert
// cells, and within a group a run extends while its targets' sets share an edge, storing the
// lowest shared one (FORMAT.md §9; sources of more than 63 edges store the lowest-index move).
// The choice depends only on the graph, not on thread count or visiting order; since a group's
// choice depends only on its own targets, `update` re-chooses just the groups an edit touches,
// from one backward search per target.
//
// Algorithms: compressed path databases (A. Botea, "Ultra-fast optimal pathfinding without
// runtime search", AIIDE 2011; B. Strasser, A. Botea, D. Harabor, "Compressing optimal paths with
// run length encoding", JAIR 2015: choosing among optimal first moves to lengthen runs); the radix
// heap of R. Ahuja, K. Mehlhorn, J. Orlin, R. Tarjan, JACM 1990.
//
// Storage: nodes are ranked along a Hilbert curve over their cells (so nearby nodes get nearby
// ranks); row s lists the first moves towards the targets in rank order, run-length encoded
// (targets that need no answer — s itself, other components — extend the current run); rows are
// stored in rank order, block_rows to a block, each block one zstd frame, so a lookup
// decompresses one block, never the table.
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
#include "lib/common/stage.h"
#include "lib/graph/graph.h"
#include "lib/graph/jump_points.h"

namespace nav::nexthop {

struct BuildParams {
    int threads = 0;           // 0 = all hardware threads; the output does not depend on it
    uint64_t max_memory = 0;   // [Units: bytes] 0 = no limit. Flat tables: checked against an
                               //   estimate before building; hierarchical: the table's size
    uint32_t shard_index = 0;  // --shard K/N: rows of shard K only (a partial file)
    uint32_t shard_count = 0;  // 0 = the whole table
    uint32_t block_rows = 32;  // rows per compressed block (power of two, 1..kMaxBlockRows)
};
inline constexpr uint32_t kMaxBlockRows = 4096;
// Every bad field (threads, block_rows, shard).
ParamIssues checkBuildParams(const BuildParams& params);

struct Table {
    formats::NextHopHeader header;
    std::vector<uint32_t> ranks;    // per node: its position in the Hilbert order
    std::vector<uint64_t> offsets;  // per stored block + 1: byte offsets into `blocks`
    std::vector<uint8_t> blocks;    // one zstd frame per stored block
};

struct BuildStats {
    uint64_t rows = 0;             // rows computed
    uint64_t estimated_bytes = 0;  // the --max-memory estimate
    uint64_t raw_rle_bytes = 0;    // encoded rows before zstd
    double milliseconds = 0;
};

// Full table (or one shard of it). Errors: implicit volume graphs (no explicit edges), costs too
// large for the integer conversion, an estimate above max_memory (the message gives both figures
// and suggests the hierarchical table), a shard index out of range.
Result<Table> buildTable(const graph::Graph& graph, const BuildParams& params, Context& context,
                         BuildStats* stats = nullptr);

// Joins the shards of one table (all K of N, any order) into the file a single build writes.
Result<Table> mergeShards(const std::vector<Table>& parts,
                          const std::vector<std::filesystem::path>& paths);

// Nodes of two versions of a level matched by their cell (tile graphs) or position: to_old[v] for
// every node v of the new graph, to_new for every old node; 0xFFFFFFFF where none matches.
struct NodeMatch {
    std::vector<uint32_t> to_old, to_new;
};
NodeMatch matchNodes(const graph::Graph& old_graph, const graph::Graph& new_graph);

struct UpdateStats {
    uint64_t rows_total = 0;       // rows of the new table
    uint64_t rows_recomputed = 0;  // rows that ran a Dijkstra (changed + new nodes)
    uint64_t rows_reused = 0;      // rows re-encoded from the old table
    uint64_t nodes_added = 0, nodes_removed = 0;
    uint64_t edges_changed = 0;  // removed, added or re-costed edges between kept nodes
    double milliseconds = 0;
};

// The table of `new_graph` from the table of `old_graph`: byte-identical to buildTable(new_graph),
// recomputing only the rows that can differ. Nodes are matched by their cell (tile graphs) or
// position. A row is reused when neither the source's own edges nor the distances from it or from
// any of its neighbours change; those are found exactly with integer costs: a removed or dearer
// edge (u, v) changes distances from x only if d(x, u) + c = d(x, v), a new or cheaper edge only
// if d(x, u) + c' < d(x, v) (paths through new nodes count as edges between their old neighbours),
// each test from two backward searches in the old graph. The groups holding a node near the edit
// (or a removed one) are re-chosen for the reused rows from one backward search per target in the
// new graph; the rest of a reused row is spliced from the old row's runs. Rebuilds every row when
// that would cost about as much, when components join or split, or for a lowest-index table.
Result<Table> updateTable(const Table& old_table, const graph::Graph& old_graph,
                          const graph::Graph& new_graph, const BuildParams& params,
                          Context& context, UpdateStats* stats = nullptr);

// Node ranks along the Hilbert curve of their cells (ties: floor height, then id); `keys`, when
// given, receives each rank's Hilbert index.
std::vector<uint32_t> hilbertRanks(const graph::Graph& graph,
                                   std::vector<uint64_t>* keys = nullptr);

// Decodes row `source` into one symbol per target node (node id order); kDontCare where the table
// stores no answer (the source itself, targets in other components). Requires a full table.
inline constexpr uint32_t kDontCare = 0xFFFFFFFFu;
Result<std::vector<uint32_t>> decodeRow(const Table& table, uint32_t source);

void addNextHopSections(formats::ContainerWriter& writer, const Table& table);
Status saveTable(const std::filesystem::path& path, const Table& table);
Result<Table> loadTable(const std::filesystem::path& path);
// Error naming both files unless `table` was built for `graph`.
Status checkMatches(const Table& table, const std::filesystem::path& table_path,
                    const graph::Graph& graph, const std::filesystem::path& graph_path);

// ---- Hierarchical table (levels too large for n^2) ---------------------------------------------
// With clusters: per cluster, the first moves of the shortest paths inside the cluster between
// its nodes and the distances inside it between its nodes and its entrances (HPA*-style sparse
// border transitions, as `navbake hierarchy`); between clusters, all-pairs distances and next
// entrances over the entrance graph. navrt picks, per lookup, the entrance pair (a of the
// source's cluster, b of the target's) minimising d(s, a) + D(a, b) + d(b, t), or the direct
// path inside a shared cluster, and moves towards it; that sum drops by each move's cost, so
// chained lookups always arrive. Memory: sum of squared cluster sizes + entrances squared.
struct HierTable {
    formats::HierNextHopHeader header;
    std::vector<uint32_t> arrays[formats::kHopSectionCount];  // u32 views of the u32 sections
    std::vector<uint64_t> intra_offsets, distance_offsets;    // per cluster + 1
    std::vector<uint8_t> intra;                               // HNIT
    std::vector<float> node_to_entrance, entrance_to_node, entrance_distances;

    uint64_t bytes() const;  // in-memory size of every array
};
Result<HierTable> buildHierTable(const graph::Graph& graph, const cluster::Clusters& clusters,
                                 const BuildParams& params, Context& context,
                                 BuildStats* stats = nullptr);
// The hierarchical table of `graph` and `clusters` from the table of an earlier version of the
// graph: byte-identical to buildHierTable. A cluster's blocks (intra-cluster first moves and
// entrance distances) are copied when the old table holds the same cluster: the same nodes (by
// cell or position) in the same order, each with the same edges (targets and costs), and the same
// entrances; the others are computed, and the entrance graph's all-pairs tables always are.
// stats: rows_total = nodes, rows_recomputed = nodes of the clusters computed.
Result<HierTable> updateHierTable(const HierTable& old_table, const graph::Graph& old_graph,
                                  const graph::Graph& graph, const cluster::Clusters& clusters,
                                  const BuildParams& params, Context& context,
                                  UpdateStats* stats = nullptr);
void addHierTableSections(formats::ContainerWriter& writer, const HierTable& table);
Status saveHierTable(const std::filesystem::path& path, const HierTable& table);
Result<HierTable> loadHierTable(const std::filesystem::path& path);

// ---- Goal bounds for JPS+ (JPSB, FORMAT.md §6.9) ----------------------------------------------
// S. Rabin and N. R. Sturtevant, "Combining Bounding Boxes and JPS to Prune Grid Pathfinding",
// AAAI 2016: per regular node of `jumps` and direction, the box of the cells of every target to
// which the step along that direction starts a shortest path (its move sets from one search per
// node, as a table row's). A search skips a direction whose box misses the goal. Special nodes
// get full boxes (a search expands them by their edges). Output: 8 boxes of 4 u16 per node.
// Errors: a grid wider than 65,536 cells, a jump table of another graph.
Result<std::vector<uint16_t>> buildGoalBounds(const graph::Graph& graph,
                                              const graph::JumpTable& jumps, int threads,
                                              Context& context);
void addGoalBoundsSection(formats::ContainerWriter& writer, const std::vector<uint16_t>& bounds);

// ---- The nexthop stage -----------------------------------------------------------------------
// One definition shared by `navbake nexthop` and `navbake build` (lib/common/stage.h): the flat
// table (.nh), or with clusters the hierarchical one (.nhh).
struct NextHopStage {
    static constexpr std::string_view kName = "nexthop";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    using Params = BuildParams;
    struct Inputs {
        std::filesystem::path graph;
        std::filesystem::path
            clusters;  // empty: the flat table; else the hierarchical one over them
        // A table of an earlier version of the graph and that graph (`navbake build`: the last
        // build's, when still in the cache): the table is then updated from them (updateTable
        // or, with clusters, updateHierTable; byte-identical to a build), or built when they do
        // not fit (another graph, other rows per block, a shard, unreadable).
        std::filesystem::path previous_table, previous_graph;
    };
    static ParamIssues check(const Params& params) { return checkBuildParams(params); }
    static void describe(const Params& params, StageKey& key);
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: runs and table_bytes (flat; rows_recomputed and rows_total when updated from the
    // previous table), table_bytes (hierarchical: its size in memory).
    // Errors: clusters of another graph, shards of a hierarchical table, a table above max_memory.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

// Loads the shards (any order), joins them and writes the table a single build writes.
Result<StageResult> mergeShardFiles(const std::vector<std::filesystem::path>& parts,
                                    const std::filesystem::path& output);
// Loads the old table and graphs, checks that the table belongs to the old graph, writes the
// updated table (byte-identical to a rebuild of the new graph). With `clusters` (of the new
// graph) the tables are hierarchical (.nhh, updateHierTable), else flat (.nh, updateTable).
Result<StageResult> updateTableFiles(const std::filesystem::path& old_table,
                                     const std::filesystem::path& old_graph,
                                     const std::filesystem::path& new_graph,
                                     const std::filesystem::path& clusters,
                                     const BuildParams& params, const std::filesystem::path& output,
                                     Context& context);

}  // namespace nav::nexthop
