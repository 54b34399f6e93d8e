// Benchmark of the cluster heuristic (Millington, "AI for Games", 4.3.8): per shared MovingAI map,
// tile graph + grid clusters of edge 8, 16 and 32 cells, with 0, 8 (and at 16 cells 16) ALT
// landmarks: cluster count, table + landmark bytes (raw and zstd-19 as packed), bake time, and
// mean expansions and microseconds per scenario of A* with the octile heuristic against the
// cluster heuristic (best of 3 runs of the whole scenario file; best of 1 where one run takes
// over 2 s).
// Second table, hierarchical pathfinding (Millington 4.6; HPA*): clusters of 16 cells, hierarchy
// with sparse entrances (spacing 4 with and without entrance tables, spacing 0) and with all
// entrances, and clusters of 32 cells (spacing 4, all); flat A* against
// navrt::HierarchicalQuery in groups mode (min / maximin / avgmin connection costs, without
// exclusions) and in entrances mode: mean microseconds and expansions, speedup, optimal count
// and suboptimality, bake ms and .hier bytes.
// Third table: groups/min, findPath time of the full path against the first leg only.
// Prints Markdown tables; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "formats/layouts.h"
#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/common/context.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/importer/scenario.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_hier.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/bench/bench_scenarios.h"

namespace {

// Runs of a whole scenario file: best of 3, or of 1 when one run takes longer than this.
constexpr double kSlowRunMicros = 2e6;

struct Figures {
    double micros = 1e30, expansions = 0, mean_sub = 0, max_sub = 0;
    size_t optimal = 0, total = 0;
    int runs = 0;
    bool ok() const { return total > 0; }
};

Figures runScen(const navrt::GraphView& view, const std::filesystem::path& scen,
                const nav::query::SearchMethod& method, nav::Context& context) {
    Figures f;
    for (int run = 0; run < 3; ++run) {
        auto r = nav::query::runScenarioFile(view, scen, context, method);
        if (!r) {
            std::printf("  %s: %s\n", scen.filename().c_str(), r.error().message.c_str());
            return Figures{};
        }
        f.micros = std::min(f.micros, r->mean_micros);
        f.expansions = r->mean_expansions;
        // Rounding leaves optimal costs a hair off the listed optimum: print 0, not -0.00.
        f.mean_sub = std::fabs(r->mean_suboptimality) < 5e-3 ? 0.0 : r->mean_suboptimality;
        f.max_sub = std::fabs(r->max_suboptimality) < 5e-3 ? 0.0 : r->max_suboptimality;
        f.optimal = r->optimal;
        f.total = r->total;
        f.runs = run + 1;
        if (r->mean_micros * double(r->total) > kSlowRunMicros) break;
    }
    return f;
}

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

// A packed .nav held in memory (the asset owns the bytes the view points into).
struct Packed {
    navrt::Asset asset;
    navrt::GraphView view;
};

bool pack(const nav::graph::Graph& g, const nav::cluster::Clusters& c,
          const nav::cluster::Hierarchy* h, const std::filesystem::path& path, Packed& out) {
    nav::formats::ContainerWriter writer = nav::graph::graphWriter(g, nav::formats::kKindNav);
    nav::cluster::addClusterSections(writer, c);
    if (h != nullptr) nav::cluster::addHierarchySections(writer, *h);
    if (!nav::saveContainer(path, writer).ok()) return false;
    if (navrt::load(path.c_str(), out.asset)) return false;
    return !navrt::viewGraph(out.asset, out.view);
}

std::string levelsOf(const nav::cluster::Hierarchy& h) {
    std::string text;
    for (uint32_t count : h.group_counts) text += (text.empty() ? "" : ">") + std::to_string(count);
    return text;
}

struct BuiltHierarchy {
    std::optional<nav::cluster::Hierarchy> hierarchy;
    double bake_ms = 0;
    unsigned long long bytes = 0;
    Packed packed;
    bool ok = false;
};

void buildPacked(const nav::graph::Graph& g, const nav::cluster::Clusters& c,
                 const nav::cluster::HierarchyParams& params, const char* mode,
                 const std::filesystem::path& dir, nav::Context& context, BuiltHierarchy& out) {
    const auto start = std::chrono::steady_clock::now();
    auto h = nav::cluster::buildHierarchy(g, c, params, context);
    out.bake_ms = msSince(start);
    if (!h) {
        std::printf("  hierarchy (%s entrances): %s\n", mode, h.error().message.c_str());
        return;
    }
    out.hierarchy = std::move(h).value();
    const auto hier_path = dir / (std::string("bench_cluster_") + mode + ".hier");
    std::error_code ec;
    if (nav::cluster::saveHierarchy(hier_path, *out.hierarchy).ok())
        out.bytes = std::filesystem::file_size(hier_path, ec);
    std::filesystem::remove(hier_path, ec);
    if (!pack(g, c, &*out.hierarchy, dir / (std::string("bench_cluster_") + mode + ".nav"),
              out.packed)) {
        std::printf("  hierarchy (%s entrances): cannot pack or load the .nav\n", mode);
        return;
    }
    out.ok = true;
}

// Mean findPath microseconds (best of `runs`; locating excluded) and mean expansions of the
// groups planner over the scenarios, full paths or first legs only.
struct LegFigures {
    double micros = 1e30, expansions = 0, path_nodes = 0;
    size_t found = 0, total = 0;
};

LegFigures timeFindPath(const navrt::GraphView& view,
                        const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                        const navrt::HierOptions& options, int runs) {
    LegFigures f;
    navrt::HierarchicalQuery query;
    if (query.init(view) || pairs.empty()) return f;
    for (int run = 0; run < runs; ++run) {
        double micros = 0, expansions = 0, nodes = 0;
        size_t found = 0;
        for (const auto& [start, goal] : pairs) {
            const auto t0 = std::chrono::steady_clock::now();
            const navrt::PathStatus status = query.findPath(start, goal, options);
            micros +=
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count();
            expansions += query.expansions();
            if (status == navrt::PathStatus::found) {
                ++found;
                nodes += query.pathLength();
            }
        }
        const double n = double(pairs.size());
        f.micros = std::min(f.micros, micros / n);
        f.expansions = expansions / n;
        f.path_nodes = found > 0 ? nodes / double(found) : 0;
        f.found = found;
        f.total = pairs.size();
    }
    return f;
}

struct HierMapRows {
    std::string rows;  // hierarchical table rows
    std::string legs;  // first-leg table row
};

std::string format(const char* fmt, auto... args) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, fmt, args...);
    return buffer;
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
    const auto bench_start = std::chrono::steady_clock::now();
    std::printf(
        "cluster heuristic: mean per scenario, A* octile vs cluster (grid clusters), best of 3 "
        "(best of 1 where a run of the file takes over 2 s)\n\n");
    std::printf(
        "| map | nodes | octile exp | octile us | size | landmarks | clusters | table raw | "
        "table zstd | bake ms | cluster exp | cluster us | exp ratio | time ratio | optimal |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const auto tmp_dir = std::filesystem::temp_directory_path();
    const auto tmp = tmp_dir / "bench_cluster.nav";
    for (const auto& map_path : maps) {
        auto map = nav::importer::loadMovingAiMap(map_path);
        if (!map) {
            std::printf("| %s | %s |\n", map_path.filename().c_str(), map.error().message.c_str());
            continue;
        }
        nav::voxel::VoxelGrid grid = nav::importer::gridFromMap(*map);
        grid.source_name = map_path.filename().string();
        auto g = nav::graph::buildTileGraph(grid, context);
        if (!g) {
            std::printf("| %s | %s |\n", map_path.filename().c_str(), g.error().message.c_str());
            continue;
        }
        const std::filesystem::path scen = map_path.string() + ".scen";
        Figures octile;
        bool first = true;
        const std::pair<uint32_t, uint32_t> variants[] = {{8, 0},   {8, 8},  {16, 0}, {16, 8},
                                                          {16, 16}, {32, 0}, {32, 8}};
        for (const auto& [size, landmarks] : variants) {
            nav::cluster::ClusterParams params;
            params.cluster_size = size;
            params.landmarks = landmarks;
            const auto start = std::chrono::steady_clock::now();
            auto c = nav::cluster::buildClusters(*g, params, context);
            const double bake_ms = msSince(start);
            if (!c) {
                std::printf("| %s | size %u: %s |\n", map_path.filename().c_str(), size,
                            c.error().message.c_str());
                continue;
            }
            Packed packed;
            if (!pack(*g, *c, nullptr, tmp, packed)) {
                std::printf("| %s | size %u: cannot pack or load the .nav |\n",
                            map_path.filename().c_str(), size);
                continue;
            }
            const navrt::Asset& asset = packed.asset;
            uint64_t stored = 0;
            for (uint32_t i = 0; i < asset.sectionCount(); ++i)
                if (asset.section(i).id == nav::formats::kSecClusterTable ||
                    asset.section(i).id == nav::formats::kSecClusterLandmarks)
                    stored += asset.section(i).stored_size;
            if (first) octile = runScen(packed.view, scen, nav::query::Method::astar, context);
            const Figures cl = runScen(packed.view, scen, nav::query::Method::cluster, context);
            const size_t raw =
                c->table.size() * 2 + 2 * (c->landmark_from.size() + c->landmark_to.size());
            std::printf(
                "| %s | %zu | %.0f | %.1f | %u | %u | %u | %zu | %llu | %.0f | %.0f | %.1f | %.2f "
                "| %.2f | %zu/%zu |\n",
                first ? map_path.filename().c_str() : "", g->nodeCount(), octile.expansions,
                octile.micros, size, landmarks, c->count(), raw,
                static_cast<unsigned long long>(stored), bake_ms, cl.expansions, cl.micros,
                octile.expansions > 0 ? cl.expansions / octile.expansions : 0.0,
                octile.micros > 0 ? cl.micros / octile.micros : 0.0, cl.optimal, cl.total);
            std::fflush(stdout);
            first = false;
        }
    }
    std::filesystem::remove(tmp);

    // Hierarchical pathfinding: clusters of 16 cells, hierarchy with sparse / all entrances.
    std::printf(
        "\nhierarchical search: clusters of 16 cells; mean per scenario (locate + search), "
        "best of 3 (best of 1 where a run of the file takes over 2 s); speedup = flat A* us / "
        "us; expansions of hier = low-level + abstract; suboptimality in %%; bake ms and "
        ".hier bytes of buildHierarchy on the rows using that hierarchy first\n\n");
    std::printf(
        "| map | levels | method | us | speedup | expansions | optimal | mean subopt %% | "
        "max subopt %% | bake ms | .hier bytes |\n");
    std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::vector<std::string> leg_rows;
    for (const auto& map_path : maps) {
        const std::string name = map_path.filename().string();
        auto fail = [&](const std::string& what) {
            std::printf("| %s | %s |\n", name.c_str(), what.c_str());
            std::fflush(stdout);
        };
        auto map = nav::importer::loadMovingAiMap(map_path);
        if (!map) {
            fail(map.error().message);
            continue;
        }
        nav::voxel::VoxelGrid grid = nav::importer::gridFromMap(*map);
        grid.source_name = name;
        auto g = nav::graph::buildTileGraph(grid, context);
        if (!g) {
            fail(g.error().message);
            continue;
        }
        nav::cluster::ClusterParams cp;
        cp.cluster_size = 16;
        auto c = nav::cluster::buildClusters(*g, cp, context);
        cp.cluster_size = 32;
        auto c32 = nav::cluster::buildClusters(*g, cp, context);
        if (!c || !c32) {
            fail("clusters: " + (c ? c32.error().message : c.error().message));
            continue;
        }
        const std::filesystem::path scen = map_path.string() + ".scen";
        BuiltHierarchy sparse, all;
        nav::cluster::HierarchyParams hp;  // the defaults: sparse, spacing 4, tables
        buildPacked(*g, *c, hp, "sparse", tmp_dir, context, sparse);
        hp.entrances = nav::formats::EntranceMode::all;
        buildPacked(*g, *c, hp, "all", tmp_dir, context, all);
        if (!sparse.ok && !all.ok) {
            fail("no hierarchy could be built or loaded");
            continue;
        }
        const navrt::GraphView& base = sparse.ok ? sparse.packed.view : all.packed.view;
        const Figures flat = runScen(base, scen, nav::query::Method::astar, context);
        bool first_row = true;
        auto row = [&](const std::string& levels, const char* method, const Figures& f,
                       const BuiltHierarchy* built) {
            std::string bake = "", bytes = "";
            if (built != nullptr) {
                bake = format("%.0f", built->bake_ms);
                bytes = format("%llu", built->bytes);
            }
            if (!f.ok()) {
                std::printf("| %s | %s | %s | failed | | | | | | %s | %s |\n",
                            first_row ? name.c_str() : "", levels.c_str(), method, bake.c_str(),
                            bytes.c_str());
            } else {
                std::printf(
                    "| %s | %s | %s | %.1f%s | %.2f | %.0f | %zu/%zu | %.2f | %.2f | %s | %s |\n",
                    first_row ? name.c_str() : "", levels.c_str(), method, f.micros,
                    f.runs == 1 ? " (1 run)" : "",
                    flat.ok() && f.micros > 0 ? flat.micros / f.micros : 0.0, f.expansions,
                    f.optimal, f.total, f.mean_sub, f.max_sub, bake.c_str(), bytes.c_str());
            }
            std::fflush(stdout);
            first_row = false;
        };
        const std::string sparse_levels = sparse.ok ? levelsOf(*sparse.hierarchy) : "";
        row(sparse_levels, "flat A*", flat, nullptr);
        if (sparse.ok) {
            const navrt::GraphView& view = sparse.packed.view;
            const char* cost_names[] = {"groups min", "groups maximin", "groups avgmin"};
            for (uint8_t cost = 0; cost < 3; ++cost) {
                navrt::HierOptions options;
                options.mode = navrt::HierMode::groups;
                options.cost = cost;
                row("", cost_names[cost],
                    runScen(view, scen, {nav::query::Method::hier, options}, context),
                    cost == 0 ? &sparse : nullptr);
            }
            navrt::HierOptions options;
            options.mode = navrt::HierMode::groups;
            options.cost = 0;
            options.exclusions = false;
            row("", "groups min, no exclusions",
                runScen(view, scen, {nav::query::Method::hier, options}, context), nullptr);
            options = {};
            options.mode = navrt::HierMode::entrances;
            row("", "entrances sparse (spacing 4, tables)",
                runScen(view, scen, {nav::query::Method::hier, options}, context), nullptr);
            // The same hierarchy without tables, and HPA*'s own sparse entrances (the ends only).
            for (int variant = 0; variant < 2; ++variant) {
                nav::cluster::HierarchyParams other;
                if (variant == 0)
                    other.tables = false;
                else
                    other.spacing = 0;
                BuiltHierarchy built;
                buildPacked(*g, *c, other, "variant", tmp_dir, context, built);
                if (built.ok)
                    row("",
                        variant == 0 ? "entrances sparse, no tables"
                                     : "entrances sparse (spacing 0, tables)",
                        runScen(built.packed.view, scen, {nav::query::Method::hier, options},
                                context),
                        &built);
            }

            // First leg against the full path, groups / min, findPath alone.
            const auto pairs = bench::scenarioNodes(view, scen);
            navrt::HierOptions full;
            full.mode = navrt::HierMode::groups;
            full.cost = 0;
            navrt::HierOptions leg = full;
            leg.first_leg = true;
            LegFigures f = timeFindPath(view, pairs, full, 1);
            const int runs = f.micros * double(f.total) > kSlowRunMicros ? 1 : 3;
            if (runs > 1) f = timeFindPath(view, pairs, full, runs);
            const LegFigures l = timeFindPath(view, pairs, leg, runs);
            if (f.total == 0 || l.total == 0) {
                leg_rows.push_back(format("| %s | failed | | | | | | |", name.c_str()));
            } else {
                leg_rows.push_back(format(
                    "| %s | %zu | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f / %.0f |", name.c_str(),
                    f.total, f.micros, l.micros, l.micros > 0 ? f.micros / l.micros : 0.0,
                    f.expansions, l.expansions, f.path_nodes, l.path_nodes));
            }
        } else {
            fail("sparse hierarchy failed: groups rows skipped");
        }
        if (all.ok) {
            navrt::HierOptions options;
            options.mode = navrt::HierMode::entrances;
            const std::string all_levels = levelsOf(*all.hierarchy);
            row(all_levels == sparse_levels ? "" : all_levels, "entrances all",
                runScen(all.packed.view, scen, {nav::query::Method::hier, options}, context), &all);
        }
        // Clusters of 32 cells: the default sparse entrances, and all entrances.
        for (int variant = 0; variant < 2; ++variant) {
            nav::cluster::HierarchyParams other;
            if (variant == 1) other.entrances = nav::formats::EntranceMode::all;
            BuiltHierarchy built;
            buildPacked(*g, *c32, other, "size32", tmp_dir, context, built);
            if (!built.ok) continue;
            navrt::HierOptions options;
            options.mode = navrt::HierMode::entrances;
            row(levelsOf(*built.hierarchy),
                variant == 0 ? "size 32: entrances sparse (spacing 4)" : "size 32: entrances all",
                runScen(built.packed.view, scen, {nav::query::Method::hier, options}, context),
                &built);
        }
        std::error_code ec;
        std::filesystem::remove(tmp_dir / "bench_cluster_sparse.nav", ec);
        std::filesystem::remove(tmp_dir / "bench_cluster_all.nav", ec);
        std::filesystem::remove(tmp_dir / "bench_cluster_variant.nav", ec);
        std::filesystem::remove(tmp_dir / "bench_cluster_size32.nav", ec);
    }

    std::printf(
        "\nfirst leg: groups / min, mean findPath us per scenario (locate excluded), full path "
        "vs first leg only, best of 3 (of 1 where a pass takes over 2 s)\n\n");
    std::printf(
        "| map | scenarios | full us | first leg us | ratio | full exp | first leg exp | "
        "path nodes full / leg |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const std::string& r : leg_rows) std::printf("%s\n", r.c_str());
    std::printf("\ntotal %.1f s\n", msSince(bench_start) / 1000.0);
    return 0;
}
