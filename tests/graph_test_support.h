// Graph helpers shared by the unit tests of the stages built on graphs (clusters, hierarchy,
// next-hop tables): tile graphs from MovingAI map text, a brute-force Dijkstra oracle, and runtime
// assets packed from a graph plus extra sections, loaded and viewed through navrt.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

namespace nav::test {

// A 48 x 40 MovingAI map of 10 x 10 rooms with doorways, and blocks scattered by `random`.
// Drops (and, up to jump_up_height, jumps back up) generated off the ledges of `grid`.
inline std::vector<geometry::LinkSpec> generatedDrops(const voxel::VoxelGrid& grid,
                                                      float drop_height, float jump_up_height) {
    Context context;
    graph::LinkGenParams gen;
    gen.drop_height = drop_height;
    gen.jump_up_height = jump_up_height;
    auto made = graph::generateLinks(grid, gen, context);
    REQUIRE(made.ok());
    return made->links;
}

inline std::string roomsMapText(std::mt19937& random) {
    std::string text = "type octile\nheight 40\nwidth 48\nmap\n";
    for (int y = 0; y < 40; ++y) {
        for (int x = 0; x < 48; ++x) {
            const bool wall = (x % 10 == 9 && y % 10 != 4) || (y % 10 == 9 && x % 10 != 3);
            text += wall || random() % 19 == 0 ? '@' : '.';
        }
        text += '\n';
    }
    return text;
}
inline std::string roomsMapText(unsigned seed) {
    std::mt19937 random(seed);
    return roomsMapText(random);
}

// The tile graph of a MovingAI map (source name `name`, so scenario files match).
inline graph::Graph tileGraphOf(const importer::GridMap& map, const std::string& name) {
    voxel::VoxelGrid grid = importer::gridFromMap(map);
    grid.source_name = name;
    Context context;
    auto g = graph::buildTileGraph(grid, context);
    REQUIRE(g.ok());
    return std::move(g).value();
}

inline graph::Graph tileGraphOfText(const std::string& text, const std::string& name = "t.map") {
    auto map = importer::parseMovingAiMap(text, name);
    REQUIRE(map.ok());
    return tileGraphOf(*map, name);
}

// A link spec between two node positions of `g`.
inline geometry::LinkSpec specBetween(const graph::Graph& g, uint32_t a, uint32_t b,
                                      formats::LinkType type, bool both, uint32_t id) {
    geometry::LinkSpec l;
    l.name = "link " + std::to_string(id);
    l.id = id;
    l.type = type;
    l.bidirectional = both;
    for (int k = 0; k < 3; ++k) {
        l.from[k] = g.positions[3 * size_t(a) + k];
        l.to[k] = g.positions[3 * size_t(b) + k];
    }
    return l;
}

// The tile graph of a MovingAI .map file (source name: its file name).
inline graph::Graph tileGraphOfFile(const std::filesystem::path& path) {
    auto map = importer::loadMovingAiMap(path);
    REQUIRE(map.ok());
    return tileGraphOf(*map, path.filename().string());
}

// Shortest path costs from `source` to every node (+infinity when unreachable).
inline std::vector<double> shortestFrom(const graph::Graph& g, uint32_t source) {
    std::vector<double> dist(g.nodeCount(), std::numeric_limits<double>::infinity());
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    dist[source] = 0;
    heap.push({0, source});
    while (!heap.empty()) {
        auto [d, u] = heap.top();
        heap.pop();
        if (d > dist[u]) continue;
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const double nd = d + g.edge_costs[e];
            if (nd < dist[g.edge_targets[e]]) {
                dist[g.edge_targets[e]] = nd;
                heap.push({nd, g.edge_targets[e]});
            }
        }
    }
    return dist;
}

// Dijkstra over a voxel volume with the MovingAI 3D rule (26 moves, each allowed when every voxel
// of the box it spans is free; cost = the move's length with cell sizes cs x ch x cs), plus the
// moves extra(voxel, relax) adds (relax(target, cost): links). Voxel index (y * sz + z) * sx + x;
// +infinity where unreachable. Written without navbake's code: the oracle of volume searches.
template <class Free, class Extra>
std::vector<double> voxelDijkstra(uint32_t sx, uint32_t sy, uint32_t sz, double cs, double ch,
                                  uint32_t source, Free&& is_free, Extra&& extra) {
    auto freeAt = [&](int x, int y, int z) {
        return x >= 0 && y >= 0 && z >= 0 && uint32_t(x) < sx && uint32_t(y) < sy &&
               uint32_t(z) < sz && is_free(uint32_t(x), uint32_t(y), uint32_t(z));
    };
    std::vector<double> dist(size_t(sx) * sy * sz, std::numeric_limits<double>::infinity());
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    dist[source] = 0;
    open.push({0, source});
    while (!open.empty()) {
        auto [d, i] = open.top();
        open.pop();
        if (d > dist[i]) continue;
        auto relax = [&](uint32_t j, double c) {
            if (d + c < dist[j]) {
                dist[j] = d + c;
                open.push({dist[j], j});
            }
        };
        extra(i, relax);
        const int x = int(i % sx), z = int((i / sx) % sz), y = int(i / sx / sz);
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz) {
                    if (!dx && !dy && !dz) continue;
                    bool ok = true;
                    for (int a = 0; a <= (dx != 0) && ok; ++a)
                        for (int b = 0; b <= (dy != 0) && ok; ++b)
                            for (int c = 0; c <= (dz != 0) && ok; ++c)
                                ok = freeAt(x + a * dx, y + b * dy, z + c * dz);
                    if (!ok) continue;
                    const double mx = dx * cs, my = dy * ch, mz = dz * cs;
                    relax((uint32_t(y + dy) * sz + uint32_t(z + dz)) * sx + uint32_t(x + dx),
                          std::sqrt(mx * mx + my * my + mz * mz));
                }
    }
    return dist;
}

using Edge = std::tuple<uint32_t, uint32_t, float>;  // source, target, cost

// Every edge of `g` as (source, target, cost), in CSR order.
inline std::vector<Edge> edgesOf(const graph::Graph& g) {
    std::vector<Edge> edges;
    for (uint32_t u = 0; u < g.nodeCount(); ++u)
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
            edges.push_back({u, g.edge_targets[e], g.edge_costs[e]});
    return edges;
}

// `g` with exactly `edges` (sorted by source, then target), components recomputed.
inline graph::Graph withEdges(graph::Graph g, std::vector<Edge> edges) {
    std::sort(edges.begin(), edges.end());
    g.edge_offsets.assign(g.nodeCount() + 1, 0);
    g.edge_targets.clear();
    g.edge_costs.clear();
    for (const auto& [u, v, c] : edges) {
        ++g.edge_offsets[u + 1];
        g.edge_targets.push_back(v);
        g.edge_costs.push_back(c);
    }
    for (size_t u = 0; u < g.nodeCount(); ++u) g.edge_offsets[u + 1] += g.edge_offsets[u];
    graph::finalizeGraph(g);
    return g;
}

// The path is a walk along graph edges whose cheapest costs add up to `cost` (within `epsilon`).
inline void checkWalk(const graph::Graph& g, const uint32_t* path, uint32_t length, double cost,
                      double epsilon) {
    REQUIRE(length >= 1);
    double sum = 0;
    for (uint32_t i = 1; i < length; ++i) {
        const uint32_t u = path[i - 1], v = path[i];
        double best = std::numeric_limits<double>::infinity();
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
            if (g.edge_targets[e] == v) best = std::min(best, double(g.edge_costs[e]));
        REQUIRE_MESSAGE(std::isfinite(best), "no edge ", u, " -> ", v);
        sum += best;
    }
    CHECK(cost == doctest::Approx(sum).epsilon(epsilon));
}

// Walks `first` (with its next-hop table) through `sequence`: each incremental update of the table
// to the next graph must equal a rebuild for it byte for byte (saved under `dir`).
inline void checkUpdatesEqualRebuilds(const graph::Graph& first, const nexthop::Table& table,
                                      std::initializer_list<const graph::Graph*> sequence,
                                      const TempDir& dir) {
    Context context;
    const graph::Graph* previous = &first;
    nexthop::Table current = table;
    for (const graph::Graph* next : sequence) {
        auto updated = nexthop::updateTable(current, *previous, *next, {}, context);
        REQUIRE(updated.ok());
        auto rebuilt = nexthop::buildTable(*next, {}, context);
        REQUIRE(rebuilt.ok());
        REQUIRE(nexthop::saveTable(dir / "updated.nh", *updated).ok());
        REQUIRE(nexthop::saveTable(dir / "rebuilt.nh", *rebuilt).ok());
        CHECK(readBytes(dir / "updated.nh") == readBytes(dir / "rebuilt.nh"));
        current = std::move(updated).value();
        previous = next;
    }
}

// A .nav of `g` with the sections add(writer) appends, saved at `path`, loaded and viewed;
// `error` is what viewGraph said.
struct PackedAsset {
    navrt::Asset asset;
    navrt::GraphView view;
    navrt::Error error;
};
template <class AddSections>
void packAsset(const graph::Graph& g, const std::filesystem::path& path, PackedAsset& out,
               AddSections&& add) {
    formats::ContainerWriter writer = graph::graphWriter(g, formats::kKindNav);
    add(writer);
    REQUIRE(saveContainer(path, writer).ok());
    REQUIRE_FALSE(navrt::load(path.c_str(), out.asset));
    out.error = navrt::viewGraph(out.asset, out.view);
}

// `g` as navrt loads it, with a PathQuery on it: the whole graph world tests compare against.
struct OracleAsset {
    PackedAsset packed;
    navrt::PathQuery query;
};
inline void packOracle(const graph::Graph& g, const std::filesystem::path& path, OracleAsset& out) {
    packAsset(g, path, out.packed, [](formats::ContainerWriter&) {});
    REQUIRE_MESSAGE(!out.packed.error, out.packed.error.message);
    REQUIRE_FALSE(out.query.init(out.packed.view));
}

// Adds every tile of `tiles` (a world's tile files' bytes) to `world` (a navrt::World) in a
// random order; `order` receives it.
template <class World>
void addTilesShuffled(World& world, const std::vector<std::vector<uint8_t>>& tiles,
                      std::mt19937& random, std::vector<size_t>& order) {
    order.resize(tiles.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    for (size_t i : order) REQUIRE_FALSE(world.addTile(tiles[i].data(), tiles[i].size()));
}

// A sample level imported and voxelized with the default parameters into `dir` (i.geo, i.vox):
// the grid, as loaded back.
inline voxel::VoxelGrid importAndVoxelize(const std::string& level,
                                          const std::filesystem::path& dir) {
    Context context;
    auto imported =
        importer::ImportStage::run({{sampleLevels() / level}}, {}, dir / "i.geo", context);
    REQUIRE_MESSAGE(imported.ok(), imported.error().message);
    REQUIRE(voxel::VoxelizeStage::run({dir / "i.geo", level}, {}, dir / "i.vox", context).ok());
    auto grid = voxel::loadVoxels(dir / "i.vox");
    REQUIRE(grid.ok());
    return std::move(grid).value();
}

// The container at `path` rebuilt with section `id`'s decoded bytes changed by `edit` (checksums
// recomputed, so the change reaches the decoders).
inline std::vector<uint8_t> withSection(const std::filesystem::path& path, uint32_t id,
                                        const std::function<void(std::vector<uint8_t>&)>& edit) {
    auto c = loadContainer(path);
    REQUIRE(c.ok());
    formats::ContainerWriter writer(c->container.kind, c->container.kind_version);
    for (uint32_t k = 0; k < c->container.section_count; ++k) {
        const formats::SectionEntry& e = c->container.sections[k];
        auto bytes = c->section(e.id);
        REQUIRE(bytes.ok());
        if (e.id == id) edit(*bytes);
        writer.add(e.id, std::move(*bytes), formats::Codec::raw);
    }
    std::vector<uint8_t> out;
    std::string error;
    REQUIRE(writer.finish(out, error));
    return out;
}

}  // namespace nav::test
