// Benchmark of the cluster heuristic (Millington, "AI for Games", 4.3.8): per shared MovingAI map,
// tile graph + grid clusters of edge 8, 16 and 32 cells: cluster count, table bytes (raw and
// zstd-19 as packed), bake time, and mean expansions and microseconds per scenario of A* with the
// octile heuristic against the cluster heuristic (best of 3 runs of the whole scenario file).
// Prints a Markdown table; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "formats/layouts.h"
#include "lib/cluster/cluster.h"
#include "lib/common/context.h"
#include "lib/graph/graph.h"
#include "lib/import/import.h"
#include "lib/query/query.h"
#include "lib/voxel/voxel_grid.h"

namespace {

struct Figures {
    double micros = 1e30, expansions = 0;
    size_t optimal = 0, total = 0;
};

Figures runScen(const navrt::GraphView& view, const std::filesystem::path& scen,
                nav::query::Method method, nav::Context& context) {
    Figures f;
    for (int run = 0; run < 3; ++run) {
        auto r = nav::query::runScenarioFile(view, scen, context, method);
        if (!r) {
            std::printf("  %s: %s\n", scen.filename().c_str(), r.error().message.c_str());
            return f;
        }
        f.micros = std::min(f.micros, r->mean_micros);
        f.expansions = r->mean_expansions;
        f.optimal = r->optimal;
        f.total = r->total;
    }
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    const std::filesystem::path shared = argc > 1 ? argv[1] : "../shared/data";
    nav::Context context;
    std::vector<std::filesystem::path> maps;
    if (std::filesystem::is_directory(shared / "movingai"))
        for (const auto& entry : std::filesystem::directory_iterator(shared / "movingai"))
            if (entry.path().extension() == ".map") maps.push_back(entry.path());
    std::sort(maps.begin(), maps.end());
    if (maps.empty()) {
        std::printf("no MovingAI maps under %s\n", shared.c_str());
        return 0;
    }
    std::printf("cluster heuristic: mean per scenario, A* octile vs cluster (grid clusters), best of 3\n\n");
    std::printf("| map | nodes | octile exp | octile us | size | clusters | table raw | table zstd | "
                "bake ms | cluster exp | cluster us | exp ratio | optimal |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const auto tmp = std::filesystem::temp_directory_path() / "bench_cluster.nav";
    for (const auto& map_path : maps) {
        auto map = nav::importer::loadMovingAiMap(map_path);
        if (!map) continue;
        nav::vox::VoxelGrid grid = nav::vox::gridFromMap(*map);
        grid.source_name = map_path.filename().string();
        auto g = nav::graph::buildTileGraph(grid, context);
        if (!g) continue;
        const std::filesystem::path scen = map_path.string() + ".scen";
        Figures octile;
        bool first = true;
        for (uint32_t size : {8u, 16u, 32u}) {
            nav::cluster::ClusterParams params;
            params.cluster_size = size;
            const auto start = std::chrono::steady_clock::now();
            auto c = nav::cluster::buildClusters(*g, params, context);
            const double bake_ms = std::chrono::duration<double, std::milli>(
                                       std::chrono::steady_clock::now() - start).count();
            if (!c) {
                std::printf("| %s | size %u: %s |\n", map_path.filename().c_str(), size,
                            c.error().message.c_str());
                continue;
            }
            nav::formats::ContainerWriter writer = nav::graph::graphWriter(*g, nav::formats::kKindNav);
            nav::cluster::addClusterSections(writer, *c);
            navrt::Asset asset;
            navrt::GraphView view;
            if (!nav::saveContainer(tmp, writer).ok() || navrt::load(tmp.c_str(), asset) ||
                navrt::viewGraph(asset, view))
                continue;
            uint64_t stored = 0;
            for (uint32_t i = 0; i < asset.sectionCount(); ++i)
                if (asset.section(i).id == nav::formats::kSecClusterTable)
                    stored = asset.section(i).stored_size;
            if (first) octile = runScen(view, scen, nav::query::Method::astar, context);
            const Figures cl = runScen(view, scen, nav::query::Method::cluster, context);
            std::printf("| %s | %zu | %.0f | %.1f | %u | %u | %zu | %llu | %.0f | %.0f | %.1f | %.2f | "
                        "%zu/%zu |\n",
                        first ? map_path.filename().c_str() : "", g->nodeCount(), octile.expansions,
                        octile.micros, size, c->count(), c->table.size() * 2,
                        static_cast<unsigned long long>(stored), bake_ms, cl.expansions, cl.micros,
                        octile.expansions > 0 ? cl.expansions / octile.expansions : 0.0, cl.optimal,
                        cl.total);
            std::fflush(stdout);
            first = false;
        }
    }
    std::filesystem::remove(tmp);
    return 0;
}
