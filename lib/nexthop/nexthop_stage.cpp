// The nexthop stage (flat or hierarchical table) and the shard merge and incremental update that
// build farms and editors run on its files: one definition each, shared by `navbake nexthop` and
// `navbake build`.
#include <fmt/format.h>

#include <bit>
#include <chrono>

#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/nexthop/nexthop.h"

namespace nav::nexthop {
namespace {

std::string mebibytes(uint64_t bytes) {
    return fmt::format("{:.2f} MiB", double(bytes) / 1048576.0);
}

// One line on what a table holds: size per node, ratio to the raw n^2 table of edge indices.
std::string tableSummary(const Table& t, const std::filesystem::path& path) {
    std::error_code ec;
    const uint64_t file = std::filesystem::file_size(path, ec);
    const double n = double(t.header.node_count);
    const double raw = n * n * t.header.symbol_bytes;
    return fmt::format(
        "{} nodes, {} runs ({:.1f} per row), {} bytes = {:.1f} bytes per node; raw "
        "n^2 table {}: {:.1f}x smaller",
        t.header.node_count, t.header.run_count, n > 0 ? double(t.header.run_count) / n : 0.0, file,
        n > 0 ? double(file) / n : 0.0, mebibytes(uint64_t(raw)),
        file > 0 ? raw / double(file) : 0.0);
}

// An earlier table and the graph it was built for, loaded and checked against each other (and,
// when block_rows > 0, for that many rows per block): what an update starts from.
struct PreviousTable {
    Table table;
    graph::Graph graph;
};
Result<PreviousTable> loadPrevious(const std::filesystem::path& table_path,
                                   const std::filesystem::path& graph_path, uint32_t block_rows) {
    auto old_table = loadTable(table_path);
    if (!old_table) return old_table.error();
    if (block_rows > 0 && old_table->header.block_rows != block_rows)
        return inputError("{} rows per block, {} wanted", old_table->header.block_rows, block_rows);
    auto old_graph = graph::loadGraph(graph_path);
    if (!old_graph) return old_graph.error();
    if (Status s = checkMatches(*old_table, table_path, *old_graph, graph_path); !s)
        return s.error();
    return PreviousTable{std::move(*old_table), std::move(*old_graph)};
}

struct PreviousHierTable {
    HierTable table;
    graph::Graph graph;
};
// A hierarchical table and the graph it must have been built from (fingerprints compared).
Result<PreviousHierTable> loadPreviousHier(const std::filesystem::path& table_path,
                                           const std::filesystem::path& graph_path) {
    auto old_table = loadHierTable(table_path);
    if (!old_table) return old_table.error();
    auto old_graph = graph::loadGraph(graph_path);
    if (!old_graph) return old_graph.error();
    if (old_table->header.graph_fingerprint != graph::graphFingerprint(*old_graph))
        return inputError("{} was built for another graph than {}", table_path.string(),
                          graph_path.string());
    return PreviousHierTable{std::move(*old_table), std::move(*old_graph)};
}

// What an update reports in a stage result: its time and rows.
StageResult updateResult(const UpdateStats& stats) {
    StageResult result;
    result.milliseconds = stats.milliseconds;
    result.count("rows_recomputed", stats.rows_recomputed);
    result.count("rows_total", stats.rows_total);
    return result;
}

}  // namespace

ParamIssues checkBuildParams(const BuildParams& params) {
    ParamCheck check;
    check.threads("threads", params.threads);
    check.require(params.block_rows >= 1 && params.block_rows <= kMaxBlockRows &&
                      std::has_single_bit(params.block_rows),
                  "block_rows", std::to_string(params.block_rows),
                  fmt::format("a power of two up to {}", kMaxBlockRows));
    check.require(params.shard_count == 0 || params.shard_index < params.shard_count, "shard",
                  fmt::format("{}/{}", params.shard_index, params.shard_count),
                  "K/N with 0 <= K < N");
    return check.issues;
}

void NextHopStage::describe(const Params& params, StageKey& key) {
    // max_memory is a budget, not a parameter of the output: a table built under any limit is
    // the same table.
    key.add("shard_index", params.shard_index)
        .add("shard_count", params.shard_count)
        .add("block_rows", params.block_rows);
}

Result<MemoryEstimate> NextHopStage::estimateMemory(const Inputs& inputs, const Params& params) {
    auto h = graph::loadGraphHeader(inputs.graph);
    if (!h) return h.error();
    const uint64_t n = h->node_count, e = h->edge_count;
    const uint64_t threads = uint64_t(resolveThreads(params.threads));
    // The graph forward and backward with 64-bit costs, and a search per thread. A flat table's
    // own size is estimated from sample rows once the graph is loaded (buildTable).
    uint64_t bytes = kStageBaseBytes + n * 64 + e * 32 + threads * n * 32;
    if (!inputs.clusters.empty()) {
        auto clusters =
            loadHeader(inputs.clusters, formats::kKindClusters, formats::kClustersVersion,
                       formats::kSecClusterHeader, formats::decodeClusterHeader);
        if (!clusters) return clusters.error();
        const formats::ClusterHeader& c = *clusters;
        // Measured up to ~570 KiB per cluster (den520d, ht_chantry) besides the graph.
        bytes += uint64_t(c.cluster_count) * (640 << 10) + n * 200;
        return MemoryEstimate{bytes,
                              fmt::format("{} nodes, {} edges, {} clusters", n, e, c.cluster_count),
                              "larger clusters"};
    }
    return MemoryEstimate{bytes, fmt::format("{} nodes, {} edges, {} threads", n, e, threads),
                          "fewer --threads, or the hierarchical table ('--clusters FILE.clu')"};
}

Result<StageResult> NextHopStage::run(const Inputs& inputs, const Params& params,
                                      const std::filesystem::path& output, Context& context) {
    if (Status s = checkStage<NextHopStage>(params); !s) return s.error();
    auto graph = graph::loadGraph(inputs.graph);
    if (!graph) return graph.error();
    BuildStats stats;
    StageResult result;
    if (!inputs.clusters.empty()) {
        if (params.shard_count > 0)
            return makeError(ErrorKind::usage,
                             "--shard applies to flat tables, not with --clusters");
        auto clusters = cluster::loadClusters(inputs.clusters);
        if (!clusters) return clusters.error();
        if (Status s = cluster::checkMatches(*clusters, inputs.clusters, *graph, inputs.graph); !s)
            return s.error();
        // The previous build's table and graph: an update when they fit, else a build (both
        // give the same bytes).
        UpdateStats us;
        bool updated = false;
        Result<HierTable> table = [&]() -> Result<HierTable> {
            if (!inputs.previous_table.empty() && !inputs.previous_graph.empty()) {
                auto attempt = [&]() -> Result<HierTable> {
                    auto previous = loadPreviousHier(inputs.previous_table, inputs.previous_graph);
                    if (!previous) return previous.error();
                    return updateHierTable(previous->table, previous->graph, *graph, *clusters,
                                           params, context, &us);
                }();
                if (attempt) {
                    updated = true;
                    return attempt;
                }
                if (attempt.error().kind == ErrorKind::cancelled) return attempt.error();
                context.debug("hierarchical next-hop table built, not updated: {}",
                              attempt.error().message);
            }
            return buildHierTable(*graph, *clusters, params, context, &stats);
        }();
        if (!table) return table.error();
        if (updated) {
            stats.milliseconds = us.milliseconds;
            result = updateResult(us);
            result.summary.push_back(fmt::format(
                "updated from {}: the clusters of {} of {} nodes recomputed",
                inputs.previous_table.filename().string(), us.rows_recomputed, us.rows_total));
        }
        const uint64_t limit = tighterLimit(context.memoryLimit(), params.max_memory);
        if (Status s = checkMemoryBudget(
                "the hierarchical next-hop table",
                {table->bytes(), "its size in memory, as built", "build it on larger clusters"},
                limit);
            !s)
            return Error{ErrorKind::out_of_memory, s.error().message};
        if (Status s = saveHierTable(output, *table); !s) return s.error();
        result.milliseconds = stats.milliseconds;
        result.count("table_bytes", table->bytes());
        std::error_code ec;
        const double n = double(table->header.node_count);
        result.summary.push_back(fmt::format(
            "hierarchical table: {} nodes, {} clusters, {} entrances; {} in memory ({:.1f} bytes "
            "per "
            "node; the raw n^2 table would be {}), {} bytes on disk; {:.1f} ms -> {}",
            table->header.node_count, table->header.cluster_count, table->header.entrance_count,
            mebibytes(table->bytes()), n > 0 ? double(table->bytes()) / n : 0.0,
            mebibytes(uint64_t(n * n * table->header.symbol_bytes)),
            std::filesystem::file_size(output, ec), stats.milliseconds, output.string()));
        return result;
    }
    if (params.shard_count == 0 && !inputs.previous_table.empty() &&
        !inputs.previous_graph.empty()) {
        // The previous build's table and graph: an update when they fit, else a build (both
        // give the same bytes).
        UpdateStats us;
        Result<Table> updated = [&]() -> Result<Table> {
            auto previous =
                loadPrevious(inputs.previous_table, inputs.previous_graph, params.block_rows);
            if (!previous) return previous.error();
            return updateTable(previous->table, previous->graph, *graph, params, context, &us);
        }();
        if (updated) {
            if (Status s = saveTable(output, *updated); !s) return s.error();
            result = updateResult(us);
            result.count("runs", updated->header.run_count);
            result.count("table_bytes", updated->blocks.size());
            result.summary.push_back(fmt::format(
                "updated from {}: {} of {} rows recomputed, {} nodes added, {} removed, {} edges "
                "changed; {:.1f} ms; {} -> {}",
                inputs.previous_table.filename().string(), us.rows_recomputed, us.rows_total,
                us.nodes_added, us.nodes_removed, us.edges_changed, us.milliseconds,
                tableSummary(*updated, output), output.string()));
            return result;
        }
        if (updated.error().kind == ErrorKind::cancelled) return updated.error();
        context.debug("next-hop table built, not updated: {}", updated.error().message);
    }
    auto table = buildTable(*graph, params, context, &stats);
    if (!table) return table.error();
    if (Status s = saveTable(output, *table); !s) return s.error();
    result.milliseconds = stats.milliseconds;
    result.count("runs", table->header.run_count);
    result.count("table_bytes", table->blocks.size());
    const std::string part =
        params.shard_count > 0
            ? fmt::format("shard {}/{} (blocks {}..{} of {}): ", params.shard_index,
                          params.shard_count, table->header.first_block,
                          table->header.first_block + table->header.stored_blocks,
                          table->header.block_count)
            : std::string();
    const double rows_per_second =
        stats.milliseconds > 0 ? double(stats.rows) * 1000.0 / stats.milliseconds : 0.0;
    result.summary.push_back(fmt::format(
        "{}{} rows in {:.1f} ms ({:.0f} rows/s on {} threads); {}; encoded rows {} before zstd "
        "-> {}",
        part, stats.rows, stats.milliseconds, rows_per_second, resolveThreads(params.threads),
        tableSummary(*table, output), mebibytes(stats.raw_rle_bytes), output.string()));
    return result;
}

Result<StageResult> mergeShardFiles(const std::vector<std::filesystem::path>& parts,
                                    const std::filesystem::path& output) {
    std::vector<Table> tables;
    for (const std::filesystem::path& p : parts) {
        auto t = loadTable(p);
        if (!t) return t.error();
        tables.push_back(std::move(*t));
    }
    auto merged = mergeShards(tables, parts);
    if (!merged) return merged.error();
    if (Status s = saveTable(output, *merged); !s) return s.error();
    StageResult result;
    result.count("runs", merged->header.run_count);
    result.summary.push_back(fmt::format("merged {} shards: {} -> {}", parts.size(),
                                         tableSummary(*merged, output), output.string()));
    return result;
}

Result<StageResult> updateTableFiles(const std::filesystem::path& old_table_path,
                                     const std::filesystem::path& old_graph_path,
                                     const std::filesystem::path& new_graph_path,
                                     const std::filesystem::path& clusters_path,
                                     const BuildParams& params, const std::filesystem::path& output,
                                     Context& context) {
    if (!clusters_path.empty()) {
        auto previous = loadPreviousHier(old_table_path, old_graph_path);
        if (!previous) return previous.error();
        auto new_graph = graph::loadGraph(new_graph_path);
        if (!new_graph) return new_graph.error();
        auto clusters = cluster::loadClusters(clusters_path);
        if (!clusters) return clusters.error();
        if (Status s = cluster::checkMatches(*clusters, clusters_path, *new_graph, new_graph_path);
            !s)
            return s.error();
        UpdateStats stats;
        auto table = updateHierTable(previous->table, previous->graph, *new_graph, *clusters,
                                     params, context, &stats);
        if (!table) return table.error();
        if (Status s = saveHierTable(output, *table); !s) return s.error();
        StageResult result = updateResult(stats);
        result.summary.push_back(fmt::format(
            "updated: the clusters of {} of {} nodes recomputed ({:.2f}%), the others copied; {} "
            "nodes added, {} removed; {:.1f} ms -> {}",
            stats.rows_recomputed, stats.rows_total,
            stats.rows_total ? 100.0 * double(stats.rows_recomputed) / double(stats.rows_total)
                             : 0.0,
            stats.nodes_added, stats.nodes_removed, stats.milliseconds, output.string()));
        return result;
    }
    auto previous = loadPrevious(old_table_path, old_graph_path, 0);
    if (!previous) return previous.error();
    auto new_graph = graph::loadGraph(new_graph_path);
    if (!new_graph) return new_graph.error();
    UpdateStats stats;
    auto table = updateTable(previous->table, previous->graph, *new_graph, params, context, &stats);
    if (!table) return table.error();
    if (Status s = saveTable(output, *table); !s) return s.error();
    StageResult result = updateResult(stats);
    result.summary.push_back(fmt::format(
        "updated: {} of {} rows recomputed ({:.2f}%), {} reused; {} nodes added, {} removed, {} "
        "edges changed; {:.1f} ms -> {}",
        stats.rows_recomputed, stats.rows_total,
        stats.rows_total ? 100.0 * double(stats.rows_recomputed) / double(stats.rows_total) : 0.0,
        stats.rows_reused, stats.nodes_added, stats.nodes_removed, stats.edges_changed,
        stats.milliseconds, output.string()));
    return result;
}

}  // namespace nav::nexthop
