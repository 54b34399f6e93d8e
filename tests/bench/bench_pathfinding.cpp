// Benchmarks of stage 2-3: voxelize time per mesh (shared meshes and sample levels, 1 and all
// threads), tile graph size, and A* mean microseconds and expansions per query on every shared
// MovingAI map (its scenario file); points-of-visibility graphs: bake time, corners, edges before
// and after pruning, and mean query time (maps: their scenario files, with the any-angle length
// against the octile optimum; meshes: 1000 seeded random point pairs). Prints figures (medians
// where repeated); asserts nothing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/graph/graph.h"
#include "lib/graph/jump_points.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"
#include "tests/bench/bench_scenarios.h"

namespace {

double medianMs(int runs, const std::function<void()>& body) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        body();
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Packs `graph` into a temporary .nav and loads it; false when anything fails.
bool packAndLoad(const nav::graph::Graph& graph, const char* name, navrt::Asset& asset,
                 navrt::GraphView& view) {
    const auto nav_path = std::filesystem::temp_directory_path() / name;
    const bool ok = nav::graph::saveGraph(nav_path, graph, nav::formats::kKindNav).ok() &&
                    !navrt::load(nav_path.c_str(), asset) && !navrt::viewGraph(asset, view);
    std::filesystem::remove(nav_path);
    return ok;
}

std::vector<std::filesystem::path> listFiles(const std::filesystem::path& folder, const char* ext) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(folder))
        for (const auto& entry : std::filesystem::directory_iterator(folder))
            if (entry.path().extension() == ext) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    const std::filesystem::path shared = argc > 1 ? argv[1] : "../shared/data";
    const std::filesystem::path samples = argc > 2 ? argv[2] : "sample_levels";
    nav::Context context;

    std::printf("voxelize (cell 0.3 / 0.2, agent 2.0 / 0.6 / 0.9 / 45 deg), median of 5:\n");
    std::printf("  %-24s %9s %10s %10s %10s %10s\n", "mesh", "triangles", "1 thread", "all",
                "spans", "walkable");
    std::vector<std::filesystem::path> meshes = listFiles(shared / "meshes", ".obj");
    for (const char* name : {"indoor_two_floors.glb", "terrain.obj"})
        if (std::filesystem::exists(samples / name)) meshes.push_back(samples / name);
    for (const auto& mesh : meshes) {
        auto geometry = nav::importer::importScene(mesh, {}, context);
        if (!geometry) {
            std::printf("  %s: %s\n", mesh.filename().c_str(), geometry.error().message.c_str());
            continue;
        }
        nav::voxel::VoxelizeParams params;
        size_t spans = 0, walkable = 0;
        params.threads = 1;
        const double one =
            medianMs(5, [&] { (void)nav::voxel::voxelize(*geometry, params, context); });
        params.threads = 0;
        const double all = medianMs(5, [&] {
            auto grid = nav::voxel::voxelize(*geometry, params, context);
            if (grid) {
                spans = grid->spans.size();
                walkable = grid->walkableCount();
            }
        });
        std::printf("  %-24s %9zu %8.2fms %8.2fms %10zu %10zu\n", mesh.filename().c_str(),
                    geometry->triangleCount(), one, all, spans, walkable);
    }

    std::printf(
        "\nA* and JPS+ on tile graphs, MovingAI scenarios (octile heuristic, binary heap; JPS+ "
        "over the packed jump point table;\nalternating rounds, medians of 3; optimal: "
        "scenarios of the octile optimum by each; us: per scenario through the Navigator\n"
        "(locate both ends + search + path); search us: PathQuery::findPath / findPathJumping "
        "on the located nodes, path filled in, each method over every scenario in turn, medians of "
        "3 "
        "rounds;\nJPS+BB: findPathJumping "
        "with goal bounds (pack --goal-bounds), maps up to 30,000 nodes (bounds bake s: one "
        "search per node, 2 threads), its expansions and optimal count):\n");
    std::printf(
        "  %-28s %8s %9s %10s %9s %9s %9s %9s %9s %9s %8s %10s %10s %8s %10s %8s %8s %8s %8s\n",
        "map", "nodes", "edges", "scenarios", "A* opt", "A* us", "A* exp", "JPS+ opt", "JPS+ us",
        "JPS+ exp", "speed-up", "A* search", "JPS search", "speed-up", "JPS+BB", "speed-up",
        "BB exp", "BB opt", "bake s");
    for (const auto& map_path : listFiles(shared / "movingai", ".map")) {
        auto map = nav::importer::loadMovingAiMap(map_path);
        if (!map) continue;
        nav::voxel::VoxelGrid grid = nav::importer::gridFromMap(*map);
        grid.source_name = map_path.filename().string();
        auto graph = nav::graph::buildTileGraph(grid, context);
        if (!graph) continue;
        auto jumps = nav::graph::buildJumpTable(*graph);
        if (!jumps) continue;
        const auto nav_path = std::filesystem::temp_directory_path() / "navbake_bench.nav";
        nav::formats::ContainerWriter writer =
            nav::graph::graphWriter(*graph, nav::formats::kKindNav);
        nav::graph::addJumpSections(writer, *jumps);
        if (!nav::saveContainer(nav_path, writer).ok()) continue;
        navrt::Asset asset;
        navrt::GraphView view;
        if (navrt::load(nav_path.c_str(), asset) || navrt::viewGraph(asset, view)) continue;
        // The same with goal bounds (JPS+BB).
        const auto bounded_path = std::filesystem::temp_directory_path() / "navbake_bench_bb.nav";
        navrt::Asset bounded_asset;
        navrt::GraphView bounded;
        double bake_s = 0;
        if (graph->nodeCount() <= 30000) {
            const auto b0 = std::chrono::steady_clock::now();
            auto bounds = nav::nexthop::buildGoalBounds(*graph, *jumps, 0, context);
            bake_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
            nav::formats::ContainerWriter with =
                nav::graph::graphWriter(*graph, nav::formats::kKindNav);
            nav::graph::addJumpSections(with, *jumps);
            if (bounds) nav::nexthop::addGoalBoundsSection(with, *bounds);
            if (!bounds || !nav::saveContainer(bounded_path, with).ok() ||
                navrt::load(bounded_path.c_str(), bounded_asset) ||
                navrt::viewGraph(bounded_asset, bounded))
                bounded = navrt::GraphView{};
        }
        const std::string scen = map_path.string() + ".scen";
        std::vector<double> astar_us, jps_us;
        nav::Result<nav::query::ScenarioReport> astar = nav::query::ScenarioReport{};
        nav::Result<nav::query::ScenarioReport> jps = nav::query::ScenarioReport{};
        for (int round = 0; round < 3 && astar && jps; ++round) {
            astar = nav::query::runScenarioFile(view, scen, context);
            jps = nav::query::runScenarioFile(view, scen, context,
                                              nav::query::SearchMethod(nav::query::Method::jps));
            if (astar && jps) {
                astar_us.push_back(astar->mean_micros);
                jps_us.push_back(jps->mean_micros);
            }
        }
        // The searches alone: each scenario by A* then JPS+ (alternating), three rounds, the
        // median round; costs must agree.
        const auto pairs = bench::scenarioNodes(view, scen);
        navrt::PathQuery query, bounded_query;
        const bool with_bounds = bounded.jump_bounds != nullptr && !bounded_query.init(bounded);
        std::vector<double> astar_search, jps_search, bb_search;
        size_t disagree = 0, bb_optimal = 0;
        double bb_expansions = 0;
        if (!query.init(view)) {
            // A* costs once, for the checks.
            std::vector<double> costs;
            for (const auto& [from, to] : pairs) {
                query.findPath(from, to);
                costs.push_back(query.cost());
            }
            const double count = double(std::max<size_t>(1, pairs.size()));
            // Each round runs every scenario by one method after the other (each warm, as a
            // game's searches follow one another); the method order turns each round.
            for (int round = 0; round < 3; ++round)
                for (int k = 0; k < 3; ++k) {
                    const int method = (round + k) % 3;
                    if (method == 2 && !with_bounds) continue;
                    double cost_sum = 0, expansions = 0;
                    size_t optimal = 0;
                    const auto t0 = std::chrono::steady_clock::now();
                    for (size_t i = 0; i < pairs.size(); ++i) {
                        navrt::PathQuery& q = method == 2 ? bounded_query : query;
                        if (method == 0)
                            q.findPath(pairs[i].first, pairs[i].second);
                        else
                            q.findPathJumping(pairs[i].first, pairs[i].second);
                        cost_sum += q.cost();
                        expansions += double(q.expansions());
                        optimal += std::fabs(q.cost() - costs[i]) <= 1e-3;
                    }
                    const double us = std::chrono::duration<double, std::micro>(
                                          std::chrono::steady_clock::now() - t0)
                                          .count() /
                                      count;
                    (method == 0   ? astar_search
                     : method == 1 ? jps_search
                                   : bb_search)
                        .push_back(us);
                    if (method == 1) disagree = pairs.size() - optimal;
                    if (method == 2) bb_optimal = optimal, bb_expansions = expansions / count;
                    (void)cost_sum;
                }
        }
        std::filesystem::remove(bounded_path);
        std::filesystem::remove(nav_path);
        if (!astar || !jps || astar_us.empty() || astar_search.empty()) continue;
        auto median = [](std::vector<double>& v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        const double a = median(astar_us), j = median(jps_us);
        const double as = median(astar_search), js = median(jps_search);
        const double bs = with_bounds ? median(bb_search) : 0.0;
        std::printf(
            "  %-28s %8zu %9zu %10zu %9zu %9.1f %9.1f %9zu %9.1f %9.1f %7.1fx %10.1f %10.1f "
            "%7.1fx %10.1f %7.1fx %8.1f %8zu %8.1f%s\n",
            map_path.filename().c_str(), graph->nodeCount(), graph->edgeCount(), astar->total,
            astar->optimal, a, astar->mean_expansions, jps->optimal, j, jps->mean_expansions,
            j > 0 ? a / j : 0.0, as, js, js > 0 ? as / js : 0.0, bs, bs > 0 ? as / bs : 0.0,
            bb_expansions, bb_optimal, bake_s, disagree > 0 ? "  **COSTS DISAGREE**" : "");
    }
    if (std::filesystem::exists(samples / "maze3d.3dmap")) {
        auto map = nav::importer::loadVoxelMap3D(samples / "maze3d.3dmap");
        if (map) {
            nav::voxel::VoxelGrid grid = nav::importer::gridFromVoxelMap(*map);
            grid.source_name = "maze3d.3dmap";
            auto graph = nav::graph::buildVolumeGraph(grid, 0.0f, context);
            const auto nav_path = std::filesystem::temp_directory_path() / "navbake_bench3d.nav";
            navrt::Asset asset;
            navrt::GraphView view;
            if (graph && nav::graph::saveGraph(nav_path, *graph, nav::formats::kKindNav).ok() &&
                !navrt::load(nav_path.c_str(), asset) && !navrt::viewGraph(asset, view)) {
                auto report = nav::query::runScenarioFile(view, samples / "maze3d.3dscen", context);
                if (report)
                    std::printf("  %-28s %8s %9s %10zu %9zu %9.1f %9.1f  (volume graph: A* only)\n",
                                "maze3d.3dmap", "-", "implicit", report->total, report->optimal,
                                report->mean_micros, report->mean_expansions);
            }
            std::filesystem::remove(nav_path);
        }
    }
    std::printf(
        "\nPOV graphs (corners + taut visibility edges; bake = tile cells + corners + all pairs, "
        "all threads, median of 3),\nMovingAI scenarios (exact any-angle length vs the octile "
        "optimum):\n");
    std::printf("  %-28s %9s %8s %11s %10s %9s %9s %9s %9s %11s\n", "map", "bake ms", "corners",
                "edges full", "taut", "solved", "<= octile", "mean us", "mean exp", "pov/octile");
    for (const auto& map_path : listFiles(shared / "movingai", ".map")) {
        auto map = nav::importer::loadMovingAiMap(map_path);
        if (!map) continue;
        nav::voxel::VoxelGrid grid = nav::importer::gridFromMap(*map);
        grid.source_name = map_path.filename().string();
        nav::Result<nav::graph::Graph> graph = nav::graph::Graph{};
        const double bake =
            medianMs(3, [&] { graph = nav::graph::buildPovGraph(grid, {}, context); });
        navrt::Asset asset;
        navrt::GraphView view;
        if (!graph || !packAndLoad(*graph, "navbake_bench_pov.nav", asset, view)) continue;
        auto report = nav::query::runScenarioFile(view, map_path.string() + ".scen", context);
        if (!report) continue;
        const nav::formats::PovStats& st = graph->pov_stats;
        std::printf("  %-28s %9.1f %8u %11llu %10llu %9zu %9zu %9.1f %9.1f %11.4f\n",
                    map_path.filename().c_str(), bake, st.corner_count,
                    static_cast<unsigned long long>(st.visibility_edges),
                    static_cast<unsigned long long>(st.taut_edges), report->solved, report->optimal,
                    report->mean_micros, report->mean_expansions, report->mean_smoothed_ratio);
    }
    std::printf(
        "\nPOV graphs on meshes (voxelize defaults), 1000 seeded random pairs of walkable "
        "cell centres:\n");
    std::printf("  %-24s %9s %8s %11s %10s %11s %9s %9s %9s\n", "mesh", "bake ms", "corners",
                "edges full", "taut", "layer cells", "found", "mean us", "mean exp");
    for (const auto& mesh : meshes) {
        auto geometry = nav::importer::importScene(mesh, {}, context);
        if (!geometry) continue;
        auto grid = nav::voxel::voxelize(*geometry, nav::voxel::VoxelizeParams{}, context);
        if (!grid) continue;
        nav::Result<nav::graph::Graph> graph = nav::graph::Graph{};
        const double bake =
            medianMs(3, [&] { graph = nav::graph::buildPovGraph(*grid, {}, context); });
        navrt::Asset asset;
        navrt::GraphView view;
        if (!graph || !packAndLoad(*graph, "navbake_bench_pov_mesh.nav", asset, view)) continue;
        navrt::PathQuery query;
        if (query.init(view)) continue;
        std::mt19937 rng(12345);
        const std::vector<nav::formats::NodeCell>& cells = graph->layer_cells;
        if (cells.empty()) continue;
        std::uniform_int_distribution<size_t> pick(0, cells.size() - 1);
        auto centre = [&](const nav::formats::NodeCell& c) {
            return navrt::Vec3{
                grid->origin[0] + (float(c.column % grid->size_x) + 0.5f) * grid->cell_size,
                grid->origin[1] + float(c.y) * grid->cell_height,
                grid->origin[2] + (float(c.column / grid->size_x) + 0.5f) * grid->cell_size};
        };
        size_t found = 0;
        double micros = 0, expansions = 0;
        const int pairs = 1000;
        for (int i = 0; i < pairs; ++i) {
            const navrt::Vec3 a = centre(cells[pick(rng)]), b = centre(cells[pick(rng)]);
            const nav::query::QueryRecord r = nav::query::runQuery(view, query, a, b, {0.0f, 0.1f});
            found += r.outcome == nav::query::Outcome::found;
            micros += r.micros;
            expansions += r.expansions;
        }
        const nav::formats::PovStats& st = graph->pov_stats;
        std::printf("  %-24s %9.1f %8u %11llu %10llu %11u %9zu %9.1f %9.1f\n",
                    mesh.filename().c_str(), bake, st.corner_count,
                    static_cast<unsigned long long>(st.visibility_edges),
                    static_cast<unsigned long long>(st.taut_edges), st.layer_cell_count, found,
                    micros / pairs, expansions / pairs);
    }
    std::printf("\n(hardware threads: %u)\n", std::thread::hardware_concurrency());
    return 0;
}
