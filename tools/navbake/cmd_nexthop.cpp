// `navbake nexthop`: options onto nexthop::NextHopStage (and the shard merge and incremental
// update beside it), which do the work.
#include <cstdio>

#include "lib/nexthop/nexthop.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerNextHop(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output, shard;
        int threads = 0;
        uint32_t block_rows = 32;
        std::string clusters;
        std::vector<std::string> parts;
        std::string merge_output;
        std::string old_table, old_graph, new_graph, update_output, update_clusters;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "nexthop",
        "Bake the all-pairs next-hop table (first edge of a shortest path for every pair of "
        "nodes), run-length encoded and compressed in blocks; 'merge' joins shards, 'update' "
        "recomputes only what a level change affects. The global --max-memory also bounds the "
        "table, estimated from sample rows before the build");
    sub->add_option("INPUT", options->input, "Graph (.graph): tile, navmesh or pov");
    sub->add_option("-o,--output", options->output, "Output table (.nh)");
    sub->add_option("--threads", options->threads,
                    "Worker threads (0 = all cores); the output does not depend on it")
        ->capture_default_str();
    sub->add_option("--shard", options->shard,
                    "K/N: compute only the K-th of N row ranges (0-based) into a partial file for "
                    "'navbake nexthop merge'");

    sub->add_option("--block-rows", options->block_rows,
                    "Rows per compressed block (power of two): smaller = faster cold lookups, "
                    "larger = better compression")
        ->capture_default_str();
    sub->add_option("--clusters", options->clusters,
                    "Build the hierarchical table over these clusters (.clu of the same graph) "
                    "instead of the flat one: memory ~ sum of squared cluster sizes + entrances "
                    "squared instead of nodes squared; paths exact inside clusters, near-optimal "
                    "across them (write it to a .nhh)");
    CLI::App* merge =
        sub->add_subcommand("merge", "Join the shards of a table (all K/N) into one .nh");
    merge->add_option("PARTS", options->parts, "Partial tables (.nh from --shard K/N)")->required();
    merge->add_option("-o,--output", options->merge_output, "Output table (.nh)")->required();

    CLI::App* update = sub->add_subcommand(
        "update",
        "Update a table after the level changed, recomputing only the rows that can "
        "change; the result is byte-identical to a full rebuild");
    update->add_option("OLD_TABLE", options->old_table, "Table of the old graph (.nh, or .nhh)")
        ->required();
    update->add_option("OLD_GRAPH", options->old_graph, "Old graph (.graph)")->required();
    update->add_option("NEW_GRAPH", options->new_graph, "New graph (.graph)")->required();
    update->add_option("--clusters", options->update_clusters,
                       "Clusters of the new graph (.clu): the tables are hierarchical (.nhh); "
                       "clusters whose nodes, edges and entrances did not change are copied");
    update->add_option("-o,--output", options->update_output, "Output table (.nh, or .nhh)")
        ->required();
    update->add_option("--threads", options->threads, "Worker threads (0 = all cores)");

    merge->callback([&body, options] {
        body = [options](Context& context) {
            std::vector<std::filesystem::path> parts(options->parts.begin(), options->parts.end());
            auto result = nexthop::mergeShardFiles(parts, options->merge_output);
            if (!result) return reportFailure(context, result.error());
            printStageResult(context, *result);
            return kExitOk;
        };
    });
    update->callback([&body, options] {
        body = [options](Context& context) {
            nexthop::BuildParams params;
            params.threads = options->threads;
            if (Status s = checkStage<nexthop::NextHopStage>(params, optionFieldName); !s)
                return reportFailure(context, s.error());
            auto result = nexthop::updateTableFiles(options->old_table, options->old_graph,
                                                    options->new_graph, options->update_clusters,
                                                    params, options->update_output, context);
            if (!result) return reportFailure(context, result.error());
            printStageResult(context, *result);
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
            if (!options->shard.empty() &&
                !parseShard(options->shard, params.shard_index, params.shard_count))
                return reportFailure(
                    context, makeError(ErrorKind::usage, "--shard '{}' is not K/N with 0 <= K < N",
                                       options->shard));
            return runStage<nexthop::NextHopStage>(
                context, {options->input, options->clusters, {}, {}}, params, options->output);
        };
    });
}

}  // namespace nav::navbake
