// `navbake nexthop`: all-pairs next-hop tables (build, shards and merge, incremental update).
#include <chrono>
#include <cstdio>

#include "../../lib/nexthop/nexthop.h"
#include "cli.h"

namespace nav::cli {
namespace {

bool parseShard(const std::string& text, uint32_t& index, uint32_t& count) {
    unsigned k = 0, n = 0;
    char extra;
    if (std::sscanf(text.c_str(), "%u/%u%c", &k, &n, &extra) != 2 || n == 0 || k >= n) return false;
    index = k;
    count = n;
    return true;
}

std::string mib(uint64_t bytes) { return fmt::format("{:.2f} MiB", double(bytes) / 1048576.0); }

// One line on what a table holds: size per node, ratio to the raw n^2 table of edge indices.
std::string tableSummary(const nexthop::Table& t, const std::filesystem::path& path) {
    std::error_code ec;
    const uint64_t file = std::filesystem::file_size(path, ec);
    const double n = double(t.header.node_count);
    const double raw = n * n * t.header.symbol_bytes;
    return fmt::format("{} nodes, {} runs ({:.1f} per row), {} bytes = {:.1f} bytes per node; raw "
                       "n^2 table {}: {:.1f}x smaller",
                       t.header.node_count, t.header.run_count,
                       n > 0 ? double(t.header.run_count) / n : 0.0, file, n > 0 ? double(file) / n : 0.0,
                       mib(uint64_t(raw)), file > 0 ? raw / double(file) : 0.0);
}

}  // namespace

void registerNextHop(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output, max_memory, shard;
        int threads = 0;
        uint32_t block_rows = 32;
        std::string clusters;
        std::vector<std::string> parts;
        std::string merge_output;
        std::string old_table, old_graph, new_graph, update_output;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "nexthop",
        "Bake the all-pairs next-hop table (first edge of a shortest path for every pair of "
        "nodes), run-length encoded and compressed in blocks; 'merge' joins shards, 'update' "
        "recomputes only what a level change affects");
    sub->add_option("INPUT", options->input, "Graph (.graph): tile, navmesh or pov");
    sub->add_option("-o,--output", options->output, "Output table (.nh)");
    sub->add_option("--threads", options->threads,
                    "Worker threads (0 = all cores); the output does not depend on it")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("--max-memory", options->max_memory,
                    "Refuse, before starting, when the estimated table exceeds this size (e.g. "
                    "512M, 2G)");
    sub->add_option("--shard", options->shard,
                    "K/N: compute only the K-th of N row ranges (0-based) into a partial file for "
                    "'navbake nexthop merge'");

    sub->add_option("--block-rows", options->block_rows,
                    "Rows per compressed block (power of two): smaller = faster cold lookups, "
                    "larger = better compression")
        ->check(CLI::IsMember({1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u}))
        ->capture_default_str();
    sub->add_option("--clusters", options->clusters,
                    "Build the hierarchical table over these clusters (.clu of the same graph) "
                    "instead of the flat one: memory ~ sum of squared cluster sizes + entrances "
                    "squared instead of nodes squared; paths exact inside clusters, near-optimal "
                    "across them (write it to a .nhh)");
    CLI::App* merge = sub->add_subcommand("merge", "Join the shards of a table (all K/N) into one .nh");
    merge->add_option("PARTS", options->parts, "Partial tables (.nh from --shard K/N)")->required();
    merge->add_option("-o,--output", options->merge_output, "Output table (.nh)")->required();

    CLI::App* update = sub->add_subcommand(
        "update", "Update a table after the level changed, recomputing only the rows that can "
                  "change; the result is byte-identical to a full rebuild");
    update->add_option("OLD_TABLE", options->old_table, "Table of the old graph (.nh)")->required();
    update->add_option("OLD_GRAPH", options->old_graph, "Old graph (.graph)")->required();
    update->add_option("NEW_GRAPH", options->new_graph, "New graph (.graph)")->required();
    update->add_option("-o,--output", options->update_output, "Output table (.nh)")->required();
    update->add_option("--threads", options->threads, "Worker threads (0 = all cores)")
        ->check(CLI::NonNegativeNumber);

    merge->callback([&body, options] {
        body = [options](Context& context) {
            std::vector<nexthop::Table> parts;
            std::vector<std::filesystem::path> paths;
            for (const std::string& p : options->parts) {
                auto t = nexthop::loadTable(p);
                if (!t) return reportFailure(context, t.error());
                parts.push_back(std::move(*t));
                paths.emplace_back(p);
            }
            auto merged = nexthop::mergeShards(parts, paths);
            if (!merged) return reportFailure(context, merged.error());
            if (Status s = nexthop::saveTable(options->merge_output, *merged); !s)
                return reportFailure(context, s.error());
            context.info("merged {} shards: {} -> {}", parts.size(),
                         tableSummary(*merged, options->merge_output), options->merge_output);
            return kExitOk;
        };
    });
    update->callback([&body, options] {
        body = [options](Context& context) {
            auto old_table = nexthop::loadTable(options->old_table);
            if (!old_table) return reportFailure(context, old_table.error());
            auto old_graph = graph::loadGraph(options->old_graph);
            if (!old_graph) return reportFailure(context, old_graph.error());
            auto new_graph = graph::loadGraph(options->new_graph);
            if (!new_graph) return reportFailure(context, new_graph.error());
            if (Status s = nexthop::checkMatches(*old_table, options->old_table, *old_graph,
                                                 options->old_graph); !s)
                return reportFailure(context, s.error());
            nexthop::BuildParams params;
            params.threads = options->threads;
            nexthop::UpdateStats stats;
            auto table = nexthop::updateTable(*old_table, *old_graph, *new_graph, params, context, &stats);
            if (!table) return reportFailure(context, table.error());
            if (Status s = nexthop::saveTable(options->update_output, *table); !s)
                return reportFailure(context, s.error());
            context.info("updated: {} of {} rows recomputed ({:.2f}%), {} reused; {} nodes added, "
                         "{} removed, {} edges changed; {:.1f} ms -> {}",
                         stats.rows_recomputed, stats.rows_total,
                         stats.rows_total ? 100.0 * double(stats.rows_recomputed) / double(stats.rows_total) : 0.0,
                         stats.rows_reused, stats.nodes_added, stats.nodes_removed,
                         stats.edges_changed, stats.milliseconds, options->update_output);
            return kExitOk;
        };
    });
    sub->callback([&body, options, sub] {
        if (!sub->get_subcommands().empty()) return;  // merge / update set the body
        body = [options](Context& context) {
            if (options->input.empty() || options->output.empty())
                return reportFailure(context, makeError(ErrorKind::usage,
                                                        "nexthop needs INPUT and -o OUTPUT (or the "
                                                        "'merge' / 'update' subcommand)"));
            nexthop::BuildParams params;
            params.threads = options->threads;
            params.block_rows = options->block_rows;
            if (!options->max_memory.empty() &&
                !nexthop::parseSize(options->max_memory, params.max_memory))
                return reportFailure(context, makeError(ErrorKind::usage,
                                                        "--max-memory '{}' is not a size like "
                                                        "512M or 2G", options->max_memory));
            if (!options->shard.empty() &&
                !parseShard(options->shard, params.shard_index, params.shard_count))
                return reportFailure(context, makeError(ErrorKind::usage,
                                                        "--shard '{}' is not K/N with 0 <= K < N",
                                                        options->shard));
            auto graph = graph::loadGraph(options->input);
            if (!graph) return reportFailure(context, graph.error());
            nexthop::BuildStats stats;
            if (!options->clusters.empty()) {
                if (params.shard_count > 0)
                    return reportFailure(context, makeError(ErrorKind::usage,
                                                            "--shard applies to flat tables, not "
                                                            "with --clusters"));
                auto clusters = cluster::loadClusters(options->clusters);
                if (!clusters) return reportFailure(context, clusters.error());
                if (Status s = cluster::checkMatches(*clusters, options->clusters, *graph,
                                                     options->input); !s)
                    return reportFailure(context, s.error());
                auto table = nexthop::buildHierTable(*graph, *clusters, params, context, &stats);
                if (!table) return reportFailure(context, table.error());
                if (params.max_memory > 0 && table->bytes() > params.max_memory)
                    return reportFailure(context,
                                         inputError("the hierarchical table needs {} in memory, "
                                                    "above --max-memory {}", mib(table->bytes()),
                                                    mib(params.max_memory)));
                if (Status s = nexthop::saveHierTable(options->output, *table); !s)
                    return reportFailure(context, s.error());
                std::error_code ec;
                const double n = double(table->header.node_count);
                const uint64_t file = std::filesystem::file_size(options->output, ec);
                context.info("hierarchical table: {} nodes, {} clusters, {} entrances; {} in memory "
                             "({:.1f} bytes per node; the raw n^2 table would be {}), {} bytes on "
                             "disk; {:.1f} ms -> {}",
                             table->header.node_count, table->header.cluster_count,
                             table->header.entrance_count, mib(table->bytes()),
                             n > 0 ? double(table->bytes()) / n : 0.0,
                             mib(uint64_t(n * n * table->header.symbol_bytes)), file,
                             stats.milliseconds, options->output);
                return kExitOk;
            }
            auto table = nexthop::buildTable(*graph, params, context, &stats);
            if (!table) return reportFailure(context, table.error());
            if (Status s = nexthop::saveTable(options->output, *table); !s)
                return reportFailure(context, s.error());
            const std::string part =
                params.shard_count > 0
                    ? fmt::format("shard {}/{} (blocks {}..{} of {}): ", params.shard_index,
                                  params.shard_count, table->header.first_block,
                                  table->header.first_block + table->header.stored_blocks,
                                  table->header.block_count)
                    : std::string();
            context.info("{}{} rows in {:.1f} ms; {}; encoded rows {} before zstd -> {}", part,
                         stats.rows, stats.milliseconds, tableSummary(*table, options->output),
                         mib(stats.raw_rle_bytes), options->output);
            return kExitOk;
        };
    });
}

}  // namespace nav::cli
