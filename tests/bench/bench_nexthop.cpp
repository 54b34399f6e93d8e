// Benchmark of the next-hop tables (lib/nexthop, navrt NextHopQuery), per shared MovingAI map.
// First table, flat table (maps up to kMaxFlatNodes nodes; the build is n^2): build time (all
// threads), runs per row, raw n^2 bytes against the saved .nh, warm and cold first-move lookups
// (random pairs in one component), full path extraction per scenario (pathByNextHop, warm) and
// the scenario file run with --method nexthop (all must be optimal).
// Second table, hierarchical table over grid clusters of 16 cells: build time, memory, and the
// scenario file (mean us, optimal count, suboptimality).
// Third table, incremental update after random edits (seeded) of a few maps: updateTable against
// a full buildTable of the edited level, checked byte-identical (a mismatch is printed loudly).
// Fourth table, the same edits for the hierarchical table: updateHierTable against
// buildHierTable, checked field by field.
// Prints Markdown tables; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "formats/layouts.h"
#include "lib/cluster/cluster.h"
#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/importer/scenario.h"
#include "lib/nexthop/nexthop.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt.h"
#include "lib/runtime/navrt_nexthop.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/bench/bench_scenarios.h"

namespace {

constexpr size_t kMaxFlatNodes = 30000;   // larger maps: n^2 build time, flat table skipped
constexpr size_t kWarmLookups = 1000000;  // random (from, to) pairs, timed after a warm-up pass
constexpr size_t kColdQueries = 100;      // fresh NextHopQuery objects ...
constexpr size_t kColdLookupsPerQuery = 1000;  // ... each answering this many lookups
constexpr int kScenarioRuns = 3;               // best of, for path extraction

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string format(const char* fmt, auto... args) {
    char buffer[1024];
    std::snprintf(buffer, sizeof buffer, fmt, args...);
    return buffer;
}

// A packed .nav held in memory (the asset owns the bytes the view points into).
struct Packed {
    navrt::Asset asset;
    navrt::GraphView view;
};

template <typename AddSections>
bool pack(const nav::graph::Graph& g, AddSections add, const std::filesystem::path& path,
          Packed& out, std::string& why) {
    nav::formats::ContainerWriter writer = nav::graph::graphWriter(g, nav::formats::kKindNav);
    add(writer);
    if (nav::Status s = nav::saveContainer(path, writer); !s) {
        why = "save: " + s.error().message;
        return false;
    }
    if (navrt::Error e = navrt::load(path.c_str(), out.asset)) {
        why = std::string("load: ") + e.message;
        return false;
    }
    if (navrt::Error e = navrt::viewGraph(out.asset, out.view)) {
        why = std::string("view: ") + e.message;
        return false;
    }
    return true;
}

std::optional<nav::graph::Graph> buildGraph(const nav::importer::GridMap& map,
                                            const std::string& name, nav::Context& context,
                                            std::string& why) {
    nav::voxel::VoxelGrid grid = nav::importer::gridFromMap(map);
    grid.source_name = name;
    auto g = nav::graph::buildTileGraph(grid, context);
    if (!g) {
        why = g.error().message;
        return std::nullopt;
    }
    return std::move(g).value();
}

// Random (from, to) pairs with both nodes in one component (from uniform over the nodes of
// components of two or more nodes, to uniform over from's component).
std::vector<std::pair<uint32_t, uint32_t>> randomPairs(const nav::graph::Graph& g, size_t count,
                                                       uint32_t seed) {
    const size_t n = g.nodeCount();
    uint32_t components = 0;
    for (uint32_t c : g.components) components = std::max(components, c + 1);
    std::vector<std::vector<uint32_t>> members(components);
    for (uint32_t v = 0; v < n; ++v) members[g.components[v]].push_back(v);
    std::vector<uint32_t> sources;
    for (uint32_t v = 0; v < n; ++v)
        if (members[g.components[v]].size() > 1) sources.push_back(v);
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    if (sources.empty()) return pairs;
    std::mt19937_64 rng(seed);
    pairs.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const uint32_t from = sources[rng() % sources.size()];
        const auto& m = members[g.components[from]];
        pairs.push_back({from, m[rng() % m.size()]});
    }
    return pairs;
}

struct ScenFigures {
    double micros = 0, mean_sub = 0, max_sub = 0;
    size_t optimal = 0, total = 0;
    bool ok = false;
    std::string error;
};

ScenFigures runScen(const navrt::GraphView& view, const std::filesystem::path& scen,
                    nav::Context& context) {
    ScenFigures f;
    auto r = nav::query::runScenarioFile(view, scen, context,
                                         nav::query::SearchMethod(nav::query::Method::nexthop));
    if (!r) {
        f.error = r.error().message;
        return f;
    }
    f.micros = r->mean_micros;
    f.mean_sub = std::fabs(r->mean_suboptimality) < 5e-3 ? 0.0 : r->mean_suboptimality;
    f.max_sub = std::fabs(r->max_suboptimality) < 5e-3 ? 0.0 : r->max_suboptimality;
    f.optimal = r->optimal;
    f.total = r->total;
    f.ok = true;
    return f;
}

// Every field of two hierarchical tables (the header through its encoding).
bool sameHierTable(const nav::nexthop::HierTable& a, const nav::nexthop::HierTable& b) {
    uint8_t ha[nav::formats::kHierNextHopHeaderSize], hb[nav::formats::kHierNextHopHeaderSize];
    nav::formats::encodeHierNextHopHeader(a.header, ha);
    nav::formats::encodeHierNextHopHeader(b.header, hb);
    for (uint32_t s = 0; s < nav::formats::kHopSectionCount; ++s)
        if (a.arrays[s] != b.arrays[s]) return false;
    return std::memcmp(ha, hb, sizeof ha) == 0 && a.intra_offsets == b.intra_offsets &&
           a.distance_offsets == b.distance_offsets && a.intra == b.intra &&
           a.node_to_entrance == b.node_to_entrance && a.entrance_to_node == b.entrance_to_node &&
           a.entrance_distances == b.entrance_distances;
}

bool sameTable(const nav::nexthop::Table& a, const nav::nexthop::Table& b, std::string& why) {
    uint8_t ha[nav::formats::kNextHopHeaderSize] = {}, hb[nav::formats::kNextHopHeaderSize] = {};
    nav::formats::encodeNextHopHeader(a.header, ha);
    nav::formats::encodeNextHopHeader(b.header, hb);
    if (std::memcmp(ha, hb, sizeof ha) != 0) {
        why = format("headers differ (runs %llu vs %llu, nodes %u vs %u)",
                     (unsigned long long)a.header.run_count, (unsigned long long)b.header.run_count,
                     a.header.node_count, b.header.node_count);
        return false;
    }
    if (a.ranks != b.ranks) {
        why = "ranks differ";
        return false;
    }
    if (a.offsets != b.offsets) {
        size_t i = 0;
        while (i < a.offsets.size() && i < b.offsets.size() && a.offsets[i] == b.offsets[i]) ++i;
        why = format("block offsets differ (first at block %zu of %zu)", i, a.offsets.size());
        return false;
    }
    if (a.blocks != b.blocks) {
        why = "block bytes differ";
        return false;
    }
    return true;
}

// MovingAI map text of `map` ('.' passable, '@' blocked).
std::string mapText(const nav::importer::GridMap& map) {
    std::string text = format("type octile\nheight %u\nwidth %u\nmap\n", map.height, map.width);
    text.reserve(text.size() + size_t(map.width + 1) * map.height);
    for (uint32_t y = 0; y < map.height; ++y) {
        for (uint32_t x = 0; x < map.width; ++x) text += map.isPassable(x, y) ? '.' : '@';
        text += '\n';
    }
    return text;
}

struct MapData {
    std::filesystem::path path;
    std::string name;
    nav::importer::GridMap map;
    std::optional<nav::graph::Graph> graph;
    std::optional<nav::nexthop::Table> flat;  // maps up to kMaxFlatNodes
    double flat_build_ms = 0;
    uint64_t flat_stored = 0;
    uint64_t raw_bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
    const std::filesystem::path shared = argc > 1 ? argv[1] : "../shared/data";
    nav::Context context;
    std::vector<std::filesystem::path> map_paths;
    if (std::filesystem::is_directory(shared / "movingai"))
        for (const auto& entry : std::filesystem::directory_iterator(shared / "movingai"))
            if (entry.path().extension() == ".map") map_paths.push_back(entry.path());
    std::sort(map_paths.begin(), map_paths.end());
    if (map_paths.empty()) {
        std::printf("no MovingAI maps under %s: next-hop benchmark skipped\n", shared.c_str());
        return 0;
    }
    const auto bench_start = Clock::now();
    std::error_code ec;
    const auto tmp =
        std::filesystem::temp_directory_path() / ("bench_nexthop_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp, ec);
    if (ec) {
        std::printf("cannot create %s: %s\n", tmp.c_str(), ec.message().c_str());
        return 0;
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());

    // ---- Flat table -------------------------------------------------------------------------
    std::printf(
        "flat next-hop table: buildTable with default params (block_rows 32) on %u "
        "threads; maps up to %zu nodes. Both forms of the loaded table (navrt NextHopForm): "
        "decoded (runs in memory; MB = NextHopQuery::memoryBytes, decode ms = its init) and "
        "blocks (default 32 MiB cache, every block kept once decompressed). warm: nextEdge "
        "over %zu random pairs in one component after a warm-up pass. cold: a fresh "
        "NextHopQuery per %zu lookups (%zu queries, init excluded), ns per lookup; decomp = "
        "block decompressions per lookup. path: pathByNextHop over the scenario pairs, warm, "
        "best of %d, us per path (locate excluded). optimal: the .scen with --method "
        "nexthop\n\n",
        threads, kMaxFlatNodes, kWarmLookups, kColdLookupsPerQuery, kColdQueries, kScenarioRuns);
    std::printf(
        "| map | nodes | build ms | runs per row | raw n^2 bytes | stored bytes | decoded MB | "
        "decode ms | decoded warm ns | decoded cold ns | decoded path us | blocks MB | blocks "
        "warm ns | blocks cold ns | decomp per lookup | blocks path us | optimal |\n");
    std::printf(
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    std::fflush(stdout);
    std::vector<MapData> maps;
    for (const auto& map_path : map_paths) {
        MapData d;
        d.path = map_path;
        d.name = map_path.filename().string();
        auto fail = [&](const std::string& what) {
            std::printf("| %s | %s |\n", d.name.c_str(), what.c_str());
            std::fflush(stdout);
        };
        auto map = nav::importer::loadMovingAiMap(map_path);
        if (!map) {
            fail(map.error().message);
            continue;
        }
        d.map = std::move(map).value();
        std::string why;
        d.graph = buildGraph(d.map, d.name, context, why);
        if (!d.graph) {
            fail("graph: " + why);
            maps.push_back(std::move(d));
            continue;
        }
        const nav::graph::Graph& g = *d.graph;
        const size_t n = g.nodeCount();
        if (n > kMaxFlatNodes) {
            fail(
                format("%zu nodes: skipped (over %zu; the flat build is n^2 Dijkstra work, "
                       "~%.0fx den520d's)",
                       n, kMaxFlatNodes, double(n) * double(n) / (28178.0 * 28178.0)));
            maps.push_back(std::move(d));
            continue;
        }
        nav::nexthop::BuildParams params;
        nav::nexthop::BuildStats stats;
        const auto start = Clock::now();
        auto table = nav::nexthop::buildTable(g, params, context, &stats);
        d.flat_build_ms = msSince(start);
        if (!table) {
            fail("buildTable: " + table.error().message);
            maps.push_back(std::move(d));
            continue;
        }
        d.flat = std::move(table).value();
        const nav::nexthop::Table& t = *d.flat;
        const auto nh_path = tmp / "flat.nh";
        if (nav::Status s = nav::nexthop::saveTable(nh_path, t); !s) {
            fail("saveTable: " + s.error().message);
            maps.push_back(std::move(d));
            continue;
        }
        d.flat_stored = std::filesystem::file_size(nh_path, ec);
        std::filesystem::remove(nh_path, ec);
        d.raw_bytes = uint64_t(n) * n * t.header.symbol_bytes;

        Packed packed;
        if (!pack(
                g,
                [&](nav::formats::ContainerWriter& w) { nav::nexthop::addNextHopSections(w, t); },
                tmp / "flat.nav", packed, why)) {
            fail("pack: " + why);
            maps.push_back(std::move(d));
            continue;
        }
        const navrt::GraphView& view = packed.view;

        // Both forms of the loaded table: decoded runs, and blocks in a cache (the default 32
        // MiB: every block cached once decompressed).
        const auto pairs = randomPairs(g, kWarmLookups, 12345);
        const auto cold_pairs = randomPairs(g, kColdQueries * kColdLookupsPerQuery, 777);
        const std::filesystem::path scen = map_path.string() + ".scen";
        const auto scen_pairs = bench::scenarioNodes(view, scen);
        uint64_t checksum = 0, failures = 0;
        struct FormFigures {
            double warm_ns = 0, cold_ns = 0, decomp_per_lookup = 0, path_us = 0, init_ms = 0;
            uint64_t memory = 0;
            bool ok = false;
        };
        auto measure = [&](navrt::NextHopForm form) {
            FormFigures f;
            navrt::NextHopQuery query;
            const auto i0 = Clock::now();
            if (query.init(view, uint64_t(32) << 20, {}, form)) return f;
            f.init_ms = msSince(i0);
            f.memory = query.memoryBytes();
            for (const auto& [a, b] : pairs) checksum += query.nextEdge(a, b);
            const auto t0 = Clock::now();
            for (const auto& [a, b] : pairs) {
                const uint32_t e = query.nextEdge(a, b);
                failures += e == navrt::kNoNode && a != b;
                checksum += e;
            }
            f.warm_ns = msSince(t0) * 1e6 / double(std::max<size_t>(1, pairs.size()));
            // Cold: a fresh query per kColdLookupsPerQuery lookups (init excluded).
            double cold_ms = 0;
            uint64_t decompressions = 0;
            for (size_t q = 0; q * kColdLookupsPerQuery < cold_pairs.size(); ++q) {
                navrt::NextHopQuery fresh;
                if (fresh.init(view, uint64_t(32) << 20, {}, form)) break;
                const size_t end = std::min(cold_pairs.size(), (q + 1) * kColdLookupsPerQuery);
                const auto c0 = Clock::now();
                for (size_t i = q * kColdLookupsPerQuery; i < end; ++i) {
                    const uint32_t e = fresh.nextEdge(cold_pairs[i].first, cold_pairs[i].second);
                    failures += e == navrt::kNoNode && cold_pairs[i].first != cold_pairs[i].second;
                    checksum += e;
                }
                cold_ms += msSince(c0);
                decompressions += fresh.blockDecompressions();
            }
            const double lookups = double(std::max<size_t>(1, cold_pairs.size()));
            f.cold_ns = cold_ms * 1e6 / lookups;
            f.decomp_per_lookup = double(decompressions) / lookups;
            // Path extraction over the scenario pairs, warm, best of kScenarioRuns.
            if (!scen_pairs.empty()) {
                for (const auto& [a, b] : scen_pairs) query.pathByNextHop(a, b);
                double best = 1e30;
                for (int run = 0; run < kScenarioRuns; ++run) {
                    const auto p0 = Clock::now();
                    for (const auto& [a, b] : scen_pairs) {
                        if (query.pathByNextHop(a, b) != navrt::PathStatus::found) ++failures;
                        checksum += query.pathLength();
                    }
                    best = std::min(best, msSince(p0) * 1e3 / double(scen_pairs.size()));
                }
                f.path_us = best;
            }
            f.ok = true;
            return f;
        };
        const FormFigures decoded = measure(navrt::NextHopForm::decoded);
        const FormFigures blocks = measure(navrt::NextHopForm::blocks);
        std::string optimal = "no .scen";
        if (std::filesystem::exists(scen)) {
            const ScenFigures f = runScen(view, scen, context);
            optimal = f.ok ? format("%zu/%zu%s", f.optimal, f.total,
                                    f.optimal == f.total ? "" : " **NOT ALL OPTIMAL**")
                           : "error: " + f.error;
        }
        const double nn = double(n);
        std::printf(
            "| %s | %zu | %.0f | %.1f | %llu | %llu | %.2f | %.0f | %.1f | %.1f | %.2f | %.2f "
            "| %.1f | %.1f | %.3f | %.2f | %s |\n",
            d.name.c_str(), n, d.flat_build_ms, double(t.header.run_count) / nn,
            (unsigned long long)d.raw_bytes, (unsigned long long)d.flat_stored,
            double(decoded.memory) / 1e6, decoded.init_ms, decoded.warm_ns, decoded.cold_ns,
            decoded.path_us, double(blocks.memory) / 1e6, blocks.warm_ns, blocks.cold_ns,
            blocks.decomp_per_lookup, blocks.path_us, optimal.c_str());
        if (!decoded.ok || !blocks.ok)
            std::printf("\n**%s: a form did not load**\n\n", d.name.c_str());
        if (failures > 0)
            std::printf("\n**%s: %llu lookups or paths failed (checksum %llu)**\n\n",
                        d.name.c_str(), (unsigned long long)failures, (unsigned long long)checksum);
        std::fflush(stdout);
        std::filesystem::remove(tmp / "flat.nav", ec);
        maps.push_back(std::move(d));
    }

    // ---- Hierarchical table -----------------------------------------------------------------
    std::printf(
        "\nhierarchical next-hop table: grid clusters of 16 cells, buildHierTable (default "
        "params, %u threads); memory = HierTable::bytes(); vs flat = flat stored .nh "
        "bytes / memory, vs raw = n^2 bytes / memory (x smaller); scenario file with "
        "--method nexthop, mean us per scenario (locate + path), suboptimality in %%\n\n",
        threads);
    std::printf(
        "| map | nodes | clusters | entrances | build ms | memory bytes | bytes per node | "
        "vs flat | vs raw | us | optimal | mean subopt %% | max subopt %% |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::fflush(stdout);
    for (const MapData& d : maps) {
        auto fail = [&](const std::string& what) {
            std::printf("| %s | %s |\n", d.name.c_str(), what.c_str());
            std::fflush(stdout);
        };
        if (!d.graph) {
            fail("no graph");
            continue;
        }
        const nav::graph::Graph& g = *d.graph;
        nav::cluster::ClusterParams cp;
        cp.cluster_size = 16;
        auto c = nav::cluster::buildClusters(g, cp, context);
        if (!c) {
            fail("clusters: " + c.error().message);
            continue;
        }
        nav::nexthop::BuildParams params;
        const auto start = Clock::now();
        auto h = nav::nexthop::buildHierTable(g, *c, params, context);
        const double build_ms = msSince(start);
        if (!h) {
            fail("buildHierTable: " + h.error().message);
            continue;
        }
        const uint64_t bytes = h->bytes();
        const double n = double(g.nodeCount());
        const uint64_t raw =
            d.flat ? d.raw_bytes : uint64_t(n) * uint64_t(n) * h->header.symbol_bytes;
        std::string why;
        Packed packed;
        ScenFigures f;
        const std::filesystem::path scen = d.path.string() + ".scen";
        if (!pack(
                g,
                [&](nav::formats::ContainerWriter& w) {
                    nav::nexthop::addHierTableSections(w, *h);
                },
                tmp / "hier.nav", packed, why))
            f.error = "pack: " + why;
        else if (!std::filesystem::exists(scen))
            f.error = "no .scen";
        else
            f = runScen(packed.view, scen, context);
        std::filesystem::remove(tmp / "hier.nav", ec);
        const std::string vs_flat =
            d.flat ? format("%.2f", double(d.flat_stored) / double(bytes)) : std::string("n/a");
        if (f.ok)
            std::printf(
                "| %s | %.0f | %u | %u | %.0f | %llu | %.1f | %s | %.0f | %.2f | %zu/%zu | "
                "%.2f | %.2f |\n",
                d.name.c_str(), n, h->header.cluster_count, h->header.entrance_count, build_ms,
                (unsigned long long)bytes, double(bytes) / n, vs_flat.c_str(),
                double(raw) / double(bytes), f.micros, f.optimal, f.total, f.mean_sub, f.max_sub);
        else
            std::printf("| %s | %.0f | %u | %u | %.0f | %llu | %.1f | %s | %.0f | %s | | | |\n",
                        d.name.c_str(), n, h->header.cluster_count, h->header.entrance_count,
                        build_ms, (unsigned long long)bytes, double(bytes) / n, vs_flat.c_str(),
                        double(raw) / double(bytes), f.error.c_str());
        std::fflush(stdout);
    }

    // ---- Incremental update -----------------------------------------------------------------
    const char* update_maps[] = {"den312d.map", "ht_chantry.map", "den520d.map", "room-64-64-8.map",
                                 "maze-128-128-2.map"};
    std::printf(
        "\nincremental update: random edits (seed 2024) of the original map, each on its "
        "own; updateTable(old table, old graph, new graph) against a full buildTable of "
        "the new graph (both %u threads), compared field by field (header, ranks, offsets, "
        "blocks). Each edit needs a full rebuild as the reference, so: two edits per kind on maps "
        "up to 5000 nodes and on den520d, one per kind on the others\n\n",
        threads);
    std::printf(
        "| map | edit | rows recomputed / total | recomputed %% | update ms | rebuild ms | "
        "speedup | identical |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---|\n");
    std::fflush(stdout);
    size_t mismatches = 0, update_errors = 0;
    std::vector<std::string> hier_rows;
    for (const char* wanted : update_maps) {
        auto it = std::find_if(maps.begin(), maps.end(),
                               [&](const MapData& d) { return d.name == wanted; });
        if (it == maps.end()) {
            std::printf("| %s | not present: skipped |\n", wanted);
            continue;
        }
        const MapData& d = *it;
        if (!d.flat) {
            std::printf("| %s | no flat table: skipped |\n", wanted);
            continue;
        }
        const nav::importer::GridMap& base = d.map;
        std::mt19937_64 rng(2024);
        // Each edit costs a full rebuild (the reference): two edits per kind on den520d and the
        // small maps, one per kind on the mid-sized ones.
        const bool largest = d.name == "den520d.map";
        const int per_kind = largest || d.graph->nodeCount() <= 5000 ? 2 : 1;
        const int kinds = 3;
        const uint32_t w = base.width, hgt = base.height;
        auto passable = [&](const nav::importer::GridMap& m, int x, int y) {
            return x >= 0 && y >= 0 && uint32_t(x) < w && uint32_t(y) < hgt &&
                   m.isPassable(uint32_t(x), uint32_t(y));
        };
        auto randomCell = [&](auto accept, int& x, int& y) {
            for (int attempt = 0; attempt < 1000000; ++attempt) {
                x = int(rng() % w);
                y = int(rng() % hgt);
                if (accept(x, y)) return true;
            }
            return false;
        };
        bool first_row = true;
        // The hierarchical table over clusters of 16 cells, updated alongside.
        nav::cluster::ClusterParams cluster_params;
        cluster_params.cluster_size = 16;
        cluster_params.landmarks = 0;
        auto old_clusters = nav::cluster::buildClusters(*d.graph, cluster_params, context);
        std::optional<nav::nexthop::HierTable> old_hier;
        if (old_clusters)
            if (auto t = nav::nexthop::buildHierTable(*d.graph, *old_clusters, {}, context))
                old_hier = std::move(t).value();
        for (int kind = 0; kind < kinds; ++kind) {
            for (int rep = 0; rep < per_kind; ++rep) {
                nav::importer::GridMap edited = base;
                int x = 0, y = 0;
                std::string what;
                bool found = false;
                if (kind == 0) {
                    found =
                        randomCell([&](int cx, int cy) { return passable(base, cx, cy); }, x, y);
                    if (found) edited.passable[size_t(y) * w + x] = 0;
                    what = format("block (%d,%d)", x, y);
                } else if (kind == 1) {
                    found = randomCell(
                        [&](int cx, int cy) {
                            return !passable(base, cx, cy) &&
                                   (passable(base, cx - 1, cy) || passable(base, cx + 1, cy) ||
                                    passable(base, cx, cy - 1) || passable(base, cx, cy + 1));
                        },
                        x, y);
                    if (found) edited.passable[size_t(y) * w + x] = 1;
                    what = format("open (%d,%d)", x, y);
                } else {
                    found =
                        randomCell([&](int cx, int cy) { return passable(base, cx, cy); }, x, y);
                    if (found)
                        for (int dy = -1; dy <= 1; ++dy)
                            for (int dx = -1; dx <= 1; ++dx)
                                if (x + dx >= 0 && y + dy >= 0 && uint32_t(x + dx) < w &&
                                    uint32_t(y + dy) < hgt)
                                    edited.passable[size_t(y + dy) * w + (x + dx)] = 0;
                    what = format("block 3x3 at (%d,%d)", x, y);
                }
                const char* label = first_row ? d.name.c_str() : "";
                if (!found) {
                    std::printf("| %s | %s: no cell found |\n", label, what.c_str());
                    first_row = false;
                    continue;
                }
                first_row = false;
                auto parsed = nav::importer::parseMovingAiMap(mapText(edited), d.name);
                if (!parsed) {
                    std::printf("| %s | %s: parse: %s |\n", label, what.c_str(),
                                parsed.error().message.c_str());
                    ++update_errors;
                    continue;
                }
                std::string why;
                auto new_graph = buildGraph(*parsed, d.name, context, why);
                if (!new_graph) {
                    std::printf("| %s | %s: graph: %s |\n", label, what.c_str(), why.c_str());
                    ++update_errors;
                    continue;
                }
                nav::nexthop::BuildParams params;
                nav::nexthop::UpdateStats stats;
                auto t0 = Clock::now();
                auto updated = nav::nexthop::updateTable(*d.flat, *d.graph, *new_graph, params,
                                                         context, &stats);
                const double update_ms = msSince(t0);
                t0 = Clock::now();
                auto rebuilt = nav::nexthop::buildTable(*new_graph, params, context);
                const double rebuild_ms = msSince(t0);
                if (!updated || !rebuilt) {
                    std::printf("| %s | %s | **ERROR** update: %s; rebuild: %s |\n", label,
                                what.c_str(), updated ? "ok" : updated.error().message.c_str(),
                                rebuilt ? "ok" : rebuilt.error().message.c_str());
                    ++update_errors;
                    std::fflush(stdout);
                    continue;
                }
                if (old_hier) {
                    auto clusters =
                        nav::cluster::buildClusters(*new_graph, cluster_params, context);
                    nav::nexthop::UpdateStats hs;
                    t0 = Clock::now();
                    auto hu = clusters
                                  ? nav::nexthop::updateHierTable(*old_hier, *d.graph, *new_graph,
                                                                  *clusters, params, context, &hs)
                                  : nav::Result<nav::nexthop::HierTable>(clusters.error());
                    const double hu_ms = msSince(t0);
                    t0 = Clock::now();
                    auto hr = clusters ? nav::nexthop::buildHierTable(*new_graph, *clusters, params,
                                                                      context)
                                       : nav::Result<nav::nexthop::HierTable>(clusters.error());
                    const double hr_ms = msSince(t0);
                    if (!hu || !hr) {
                        ++update_errors;
                        hier_rows.push_back(
                            format("| %s | %s | **ERROR** |", d.name.c_str(), what.c_str()));
                    } else {
                        const bool same_hier = sameHierTable(*hu, *hr);
                        if (!same_hier) ++mismatches;
                        hier_rows.push_back(format(
                            "| %s | %s | %llu / %llu | %.1f | %.1f | %.1f | %s |", d.name.c_str(),
                            what.c_str(), (unsigned long long)hs.rows_recomputed,
                            (unsigned long long)hs.rows_total, hu_ms, hr_ms,
                            hu_ms > 0 ? hr_ms / hu_ms : 0.0, same_hier ? "yes" : "**NO**"));
                    }
                }
                std::string diff;
                const bool same = sameTable(*updated, *rebuilt, diff);
                if (!same) ++mismatches;
                std::printf("| %s | %s | %llu / %llu | %.1f | %.1f | %.0f | %.1f | %s |\n", label,
                            what.c_str(), (unsigned long long)stats.rows_recomputed,
                            (unsigned long long)stats.rows_total,
                            stats.rows_total
                                ? 100.0 * double(stats.rows_recomputed) / double(stats.rows_total)
                                : 0.0,
                            update_ms, rebuild_ms, update_ms > 0 ? rebuild_ms / update_ms : 0.0,
                            same ? "yes" : ("**NO: " + diff + "**").c_str());
                std::fflush(stdout);
            }
        }
    }
    std::printf(
        "\nhierarchical table update (clusters of 16 cells, rebuilt for each edit): "
        "updateHierTable against buildHierTable of the edited map, the same edits; nodes = "
        "nodes of the clusters computed (the others are copied)\n\n");
    std::printf(
        "| map | edit | nodes recomputed / total | update ms | rebuild ms | speedup | identical "
        "|\n|---|---|---:|---:|---:|---:|---|\n");
    for (const std::string& row : hier_rows) std::printf("%s\n", row.c_str());
    if (mismatches > 0 || update_errors > 0)
        std::printf(
            "\n**!!! INCREMENTAL UPDATE BUG: %zu update(s) differ from the full rebuild, "
            "%zu failed !!!**\n",
            mismatches, update_errors);

    std::filesystem::remove_all(tmp, ec);
    std::printf("\ntotal %.1f s\n", msSince(bench_start) / 1000.0);
    return 0;
}
