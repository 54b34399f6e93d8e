// Tiled worlds (issue 17): tiles baked apart are the whole world's tile graph, a world streams
// tiles in any order, and an edit rebuilds only the tiles it touches.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <random>
#include <set>

#include "formats/bytes.h"
#include "formats/container_writer.h"
#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/graph/world.h"
#include "lib/importer/import.h"
#include "lib/runtime/c/navrt.h"
#include "lib/runtime/navrt_world.h"
#include "lib/voxel/voxelize.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A 60 x 60 grid map with walls, rooms and random blocks (cells of 1 m).
// walled: the wall at x = 30 has no doors (the halves are apart).
std::string worldMap(uint32_t seed, bool walled = false) {
    const int w = 60, h = 60;
    std::mt19937 random(seed);
    std::string text = "type octile\nheight 60\nwidth 60\nmap\n";
    for (int z = 0; z < h; ++z) {
        for (int x = 0; x < w; ++x) {
            bool blocked = random() % 9 == 0;
            if (x == 30 && (walled || z % 17 > 3)) blocked = true;  // a long wall with doors
            if (z == 24 && x > 8 && x < 52 && x % 13 != 0) blocked = true;
            text += blocked ? '@' : '.';
        }
        text += '\n';
    }
    return text;
}

struct BakedWorld {
    test::TempDir dir;
    std::filesystem::path index;
    std::vector<graph::WorldTileFile> files;
    StageResult result;
};

void bakeWorld(const voxel::VoxelGrid& grid, double tile_size, BakedWorld& out,
               const std::vector<geometry::LinkSpec>& links = {},
               const graph::LinkGenParams& generate = {}, float uphill = 0, float downhill = 0) {
    REQUIRE(voxel::saveVoxels(out.dir / "w.vox", grid).ok());
    Context context;
    graph::WorldStage::Params p;
    p.links = links;
    p.generate = generate;
    p.uphill = uphill;
    p.downhill = downhill;
    p.tile_size = tile_size;
    out.index = out.dir / "w.world";
    auto r = graph::WorldStage::run({out.dir / "w.vox"}, p, out.index, context);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    out.result = *r;
    auto files = graph::worldTileFiles(out.index);
    REQUIRE(files.ok());
    out.files = *files;
}

// Node of `whole` at a world column and cell top, or kNoNode.
uint32_t wholeNode(const graph::Graph& whole, uint32_t column, int y) {
    for (uint32_t n = whole.column_nodes[column]; n < whole.column_nodes[column + 1]; ++n)
        if (whole.cells[n].y == y) return n;
    return graph::kNoNode;
}

// Dijkstra on `whole` over the nodes `allowed` (cost, or infinity).
double restrictedCost(const graph::Graph& whole, const std::vector<uint8_t>& allowed, uint32_t s,
                      uint32_t t, size_t* settled = nullptr) {
    std::vector<double> dist(whole.nodeCount(), std::numeric_limits<double>::infinity());
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    dist[s] = 0;
    open.push({0, s});
    while (!open.empty()) {
        const auto [d, u] = open.top();
        open.pop();
        if (d > dist[u]) continue;
        if (settled != nullptr) ++*settled;
        if (u == t) return d;
        for (uint32_t e = whole.edge_offsets[u]; e < whole.edge_offsets[u + 1]; ++e) {
            const uint32_t v = whole.edge_targets[e];
            if (!allowed[v]) continue;
            if (d + whole.edge_costs[e] < dist[v]) {
                dist[v] = d + whole.edge_costs[e];
                open.push({dist[v], v});
            }
        }
    }
    return std::numeric_limits<double>::infinity();
}

// Queries between random nodes of `whole` at least `min_cost` apart (up to `count` of them, at
// least 20), through `world` with every tile of `allowed` loaded: each cost equals the restricted
// Dijkstra's. Returns A*'s expansions and Dijkstra's settled nodes, summed.
std::pair<size_t, size_t> expansionsAgainstDijkstra(navrt::World& world, const graph::Graph& whole,
                                                    const std::vector<uint8_t>& allowed,
                                                    std::mt19937& random, double min_cost,
                                                    size_t count) {
    size_t expanded = 0, settled = 0, queries = 0;
    for (int q = 0; q < 400 && queries < count; ++q) {
        const uint32_t s = uint32_t(random() % whole.nodeCount());
        const uint32_t t = uint32_t(random() % whole.nodeCount());
        size_t dijkstra = 0;
        const double expected = restrictedCost(whole, allowed, s, t, &dijkstra);
        if (!std::isfinite(expected) || expected < min_cost) continue;
        const float* a = &whole.positions[3 * size_t(s)];
        const float* b = &whole.positions[3 * size_t(t)];
        REQUIRE(world.findPath({a[0], a[1], a[2]}, {b[0], b[1], b[2]}) == navrt::PathStatus::found);
        CHECK(world.cost() == doctest::Approx(expected).epsilon(1e-5));
        expanded += world.expanded();
        settled += dijkstra;
        ++queries;
    }
    REQUIRE(queries >= 20);
    return {expanded, settled};
}

// Every tile node is a node of the whole graph with the same position bits, and its edges and
// seams are exactly that node's edges; together the tiles hold every node once.
void checkTilesEqualWhole(const graph::Graph& whole, const BakedWorld& world) {
    size_t nodes = 0;
    std::vector<uint8_t> seen(whole.nodeCount(), 0);
    for (const graph::WorldTileFile& f : world.files) {
        auto c = loadContainer(f.path);
        REQUIRE(c.ok());
        auto g = graph::decodeGraph(*c);
        REQUIRE(g.ok());
        formats::WorldTileHeader h;
        REQUIRE(c->header(formats::kSecWorldTileHeader, formats::decodeWorldTileHeader, h).ok());
        auto raw = c->section(formats::kSecWorldSeams);
        REQUIRE(raw.ok());
        std::multimap<uint32_t, formats::SeamRecord> seams;
        for (uint32_t i = 0; i < h.seam_count; ++i) {
            const auto s = formats::decodeSeam(raw->data() + 16 * size_t(i));
            seams.insert({s.from, s});
        }
        auto worldColumnOf = [&](const graph::Graph& t, uint32_t n) {
            const uint32_t lx = t.cells[n].column % t.header.size_x;
            const uint32_t lz = t.cells[n].column / t.header.size_x;
            return (h.z0 + lz) * whole.header.size_x + h.x0 + lx;
        };
        for (uint32_t n = 0; n < g->nodeCount(); ++n) {
            const uint32_t w = wholeNode(whole, worldColumnOf(*g, n), g->cells[n].y);
            REQUIRE(w != graph::kNoNode);
            CHECK_FALSE(seen[w]);
            seen[w] = 1;
            ++nodes;
            for (int a = 0; a < 3; ++a)
                CHECK(std::bit_cast<uint32_t>(g->positions[3 * size_t(n) + a]) ==
                      std::bit_cast<uint32_t>(whole.positions[3 * size_t(w) + a]));
            // The whole node's edges, as (world column, y, cost).
            std::multiset<std::tuple<uint32_t, int, float>> expected, got;
            for (uint32_t e = whole.edge_offsets[w]; e < whole.edge_offsets[w + 1]; ++e) {
                const uint32_t t = whole.edge_targets[e];
                expected.insert({whole.cells[t].column, whole.cells[t].y, whole.edge_costs[e]});
            }
            for (uint32_t e = g->edge_offsets[n]; e < g->edge_offsets[n + 1]; ++e) {
                const uint32_t t = g->edge_targets[e];
                got.insert({worldColumnOf(*g, t), g->cells[t].y, g->edge_costs[e]});
            }
            for (auto [it, end] = seams.equal_range(n); it != end; ++it)
                got.insert({it->second.column, it->second.y, it->second.cost});
            CHECK(got == expected);
        }
    }
    CHECK(nodes == whole.nodeCount());
}

// Per node of `whole` (a 60 x 60 world in tiles of 20): whether its tile is loaded.
std::vector<uint8_t> loadedNodes(const graph::Graph& whole, const navrt::World& world) {
    std::vector<uint8_t> allowed(whole.nodeCount(), 0);
    for (uint32_t n = 0; n < whole.nodeCount(); ++n) {
        const uint32_t x = whole.cells[n].column % 60, z = whole.cells[n].column / 60;
        allowed[n] = world.loaded(x / 20, z / 20);
    }
    return allowed;
}

// Loads every tile file's bytes, by tile index.
std::map<uint32_t, std::vector<uint8_t>> tileBytes(const BakedWorld& world, uint32_t tiles_x) {
    std::map<uint32_t, std::vector<uint8_t>> out;
    for (const graph::WorldTileFile& f : world.files)
        out[f.tile_z * tiles_x + f.tile_x] = test::readBytes(f.path);
    return out;
}

}  // namespace

TEST_SUITE("world") {
    TEST_CASE("a world index whose tile grid outgrows the memory limit is refused") {
        // Found by fuzz_world (tests/fuzz/regressions/world/huge-tile-grid): a WIHD of 2^28
        // tiles made the loader allocate ~10 GB of per-tile tables outside the memory limit.
        const std::vector<uint8_t> bytes = test::readBytes(
            std::filesystem::path(NAVBAKE_TEST_DATA) / "../fuzz/regressions/world/huge-tile-grid");
        REQUIRE(bytes.size() >= 64);
        const size_t index_size = size_t(formats::loadLe64(bytes.data() + 24));  // tiles follow
        REQUIRE(index_size <= bytes.size());
        navrt_load_options options;
        navrt_load_options_init(&options);
        navrt_world* world = nullptr;
        navrt_error error;
        CHECK(navrt_world_load_memory(bytes.data(), index_size, &options, &world, &error) ==
              NAVRT_OUT_OF_MEMORY);
        CHECK(world == nullptr);
        CHECK(std::string(error.message).find("tile tables") != std::string::npos);
        // The golden world loads under a limit its tile tables fit in.
        const std::vector<uint8_t> golden =
            test::readBytes(std::filesystem::path(NAVBAKE_TEST_DATA) / "wrld-v1.world");
        options.max_memory = 1 << 20;
        REQUIRE(navrt_world_load_memory(golden.data(), golden.size(), &options, &world, &error) ==
                NAVRT_OK);
        navrt_world_free(world);
    }

    TEST_CASE(
        "world components: joined across tiles, numbered by first member, sizes exact past 32 "
        "bits") {
        graph::ComponentJoin join;
        const uint64_t big = uint64_t(1) << 33;
        const std::vector<uint64_t> a{UINT32_MAX - 1, 5, 7}, b{big, 3}, c{2, UINT32_MAX};
        CHECK(join.add(a) == 0);
        CHECK(join.add(b) == 3);
        CHECK(join.add({}) == 5);
        CHECK(join.add(c) == 5);
        join.join(4, 0);  // (UINT32_MAX - 1) + 3
        join.join(3, 6);  // 2^33 + UINT32_MAX
        join.join(0, 2);  // + 7
        join.join(2, 4);  // already one
        std::vector<uint64_t> sizes;
        const std::vector<uint32_t> world = join.number(sizes);
        CHECK(world == std::vector<uint32_t>{0, 1, 0, 2, 0, 3, 2});
        CHECK(sizes ==
              std::vector<uint64_t>{uint64_t(UINT32_MAX) - 1 + 3 + 7, 5, big + UINT32_MAX, 2});
    }

    TEST_CASE("world tiles are the whole tile graph: nodes, positions, edges and seams") {
        auto map = importer::parseMovingAiMap(worldMap(1), "w.map");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        const graph::Graph whole = test::tileGraphOf(*map, "w.map");
        for (double tile_size : {20.0, 16.0, 60.0}) {  // 3 x 3, 4 x 4 with a ragged edge, one
            BakedWorld world;
            bakeWorld(grid, tile_size, world);
            checkTilesEqualWhole(whole, world);
            if (tile_size == 20.0) {
                CHECK(test::countOf(world.result, "tiles") == 9);
                CHECK(test::countOf(world.result, "seams") > 100);
                CHECK(test::countOf(world.result, "portals") > 9);
            }
        }
    }

    TEST_CASE("world tiles of a two-storey building (ramp, stairs, mezzanine) equal the whole") {
        test::TempDir dir;
        Context context;
        const std::optional<voxel::VoxelGrid> grid =
            test::importAndVoxelize("indoor_two_floors.glb", dir.path());
        auto whole = graph::buildTileGraph(*grid, context);
        REQUIRE(whole.ok());
        BakedWorld world;
        bakeWorld(*grid, 8.0, world);
        CHECK(world.files.size() >= 9);
        checkTilesEqualWhole(*whole, world);
        // Every tile loaded: the streaming search finds the whole graph's costs, and its A*
        // expands far fewer nodes than Dijkstra settles (cells of 0.3 m, whose plain seams cost
        // their octile length up to rounding: taken for shortcuts, they capped the heuristic at
        // one cell's cost and A* expanded as much as Dijkstra).
        navrt::World streamed;
        REQUIRE_FALSE(streamed.initFile(world.index.string().c_str()));
        for (const graph::WorldTileFile& f : world.files)
            REQUIRE_FALSE(streamed.addTileFile(f.path.string().c_str()));
        const std::vector<uint8_t> all(whole->nodeCount(), 1);
        std::mt19937 random(11);
        const auto [expanded, settled] =
            expansionsAgainstDijkstra(streamed, *whole, all, random, 8, 30);
        MESSAGE("two storeys: A* over the tiles expanded ", expanded, ", Dijkstra settled ",
                settled);
        CHECK(double(expanded) < 0.6 * double(settled));
    }

    TEST_CASE(
        "streaming: tiles in random orders, some removed: each query is the whole graph's "
        "best path over the loaded tiles") {
        auto map = importer::parseMovingAiMap(worldMap(2), "w.map");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        const graph::Graph whole = test::tileGraphOf(*map, "w.map");
        BakedWorld baked;
        bakeWorld(grid, 20.0, baked);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(baked.index.string().c_str()));
        REQUIRE(world.tilesX() == 3);
        const auto bytes = tileBytes(baked, 3);
        std::mt19937 random(5);
        std::vector<uint32_t> order;
        for (const auto& [tile, b] : bytes) order.push_back(tile);
        int compared = 0, found = 0, no_path = 0, off = 0;
        for (int round = 0; round < 4; ++round) {
            std::shuffle(order.begin(), order.end(), random);
            for (size_t step = 0; step < order.size() + 3; ++step) {
                if (step < order.size()) {
                    const auto& b = bytes.at(order[step]);
                    REQUIRE_FALSE(world.addTile(b.data(), b.size()));
                } else {  // then unload a few
                    const uint32_t t = order[random() % order.size()];
                    world.removeTile(t % 3, t / 3);
                }
                const std::vector<uint8_t> allowed = loadedNodes(whole, world);
                for (int q = 0; q < 12; ++q) {
                    const uint32_t s = uint32_t(random() % whole.nodeCount());
                    const uint32_t t = uint32_t(random() % whole.nodeCount());
                    const float* a = &whole.positions[3 * size_t(s)];
                    const float* b = &whole.positions[3 * size_t(t)];
                    const navrt::PathStatus st =
                        world.findPath({a[0], a[1], a[2]}, {b[0], b[1], b[2]});
                    if (!allowed[s] || !allowed[t]) {
                        CHECK(st == (!allowed[s] ? navrt::PathStatus::invalid_start
                                                 : navrt::PathStatus::invalid_goal));
                        ++off;
                        continue;
                    }
                    const double expected = restrictedCost(whole, allowed, s, t);
                    ++compared;
                    if (!std::isfinite(expected)) {
                        CHECK(st == navrt::PathStatus::no_path);
                        ++no_path;
                        continue;
                    }
                    REQUIRE(st == navrt::PathStatus::found);
                    CHECK(world.cost() == doctest::Approx(expected).epsilon(1e-5));
                    CHECK(world.path().front().x == a[0]);
                    CHECK(world.path().back().z == b[2]);
                    ++found;
                }
            }
            for (uint32_t t : order) world.removeTile(t % 3, t / 3);
            CHECK(world.loadedCount() == 0);
        }
        MESSAGE("streaming: ", compared, " queries compared (", found, " found, ", no_path,
                " no path), ", off, " off the loaded tiles");
        // Every tile loaded: A* over the tiles expands far fewer nodes than Dijkstra settles on
        // the long queries (a world without links has no shortcut to cap its heuristic; when
        // the rounding of plain seams' costs made them shortcuts, it expanded as many).
        for (uint32_t t : order) {
            const auto& b = bytes.at(t);
            REQUIRE_FALSE(world.addTile(b.data(), b.size()));
        }
        const std::vector<uint8_t> all = loadedNodes(whole, world);
        const auto [expanded, settled] =
            expansionsAgainstDijkstra(world, whole, all, random, 25, 40);
        MESSAGE("all tiles loaded: A* expanded ", expanded, ", Dijkstra settled ", settled);
        CHECK(double(expanded) < 0.6 * double(settled));
        CHECK(found > 100);
        CHECK(no_path > 5);
        CHECK(off > 20);
    }

    TEST_CASE("portal planning: the tiles to load for a path, then an exact path through them") {
        auto map = importer::parseMovingAiMap(worldMap(3), "w.map");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        const graph::Graph whole = test::tileGraphOf(*map, "w.map");
        BakedWorld baked;
        bakeWorld(grid, 20.0, baked);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(baked.index.string().c_str()));
        const auto bytes = tileBytes(baked, 3);
        std::vector<uint8_t> all(whole.nodeCount(), 1);
        std::mt19937 random(8);
        int planned = 0, multi = 0;
        for (int q = 0; q < 40; ++q) {
            const uint32_t s = uint32_t(random() % whole.nodeCount());
            const uint32_t t = uint32_t(random() % whole.nodeCount());
            const double optimum = restrictedCost(whole, all, s, t);
            if (!std::isfinite(optimum)) continue;
            const float* a = &whole.positions[3 * size_t(s)];
            const float* b = &whole.positions[3 * size_t(t)];
            // Only the end tiles loaded: their portals join with exact costs.
            for (uint32_t i = 0; i < 9; ++i) world.removeTile(i % 3, i / 3);
            uint32_t sx, sz, gx, gz;
            REQUIRE(world.tileAt({a[0], a[1], a[2]}, sx, sz));
            REQUIRE(world.tileAt({b[0], b[1], b[2]}, gx, gz));
            for (uint32_t tile : {sz * 3 + sx, gz * 3 + gx})
                if (!world.loaded(tile % 3, tile / 3))
                    REQUIRE_FALSE(world.addTile(bytes.at(tile).data(), bytes.at(tile).size()));
            std::vector<uint32_t> tiles;
            REQUIRE(world.planTiles({a[0], a[1], a[2]}, {b[0], b[1], b[2]}, tiles) ==
                    navrt::PathStatus::found);
            REQUIRE_FALSE(tiles.empty());
            CHECK(tiles.front() == sz * 3 + sx);
            CHECK(tiles.back() == gz * 3 + gx);
            for (uint32_t tile : tiles)
                if (!world.loaded(tile % 3, tile / 3))
                    REQUIRE_FALSE(world.addTile(bytes.at(tile).data(), bytes.at(tile).size()));
            REQUIRE(world.findPath({a[0], a[1], a[2]}, {b[0], b[1], b[2]}) ==
                    navrt::PathStatus::found);
            CHECK(world.cost() >= optimum - 1e-4);
            ++planned;
            multi += tiles.size() > 2;
        }
        CHECK(planned > 20);
        CHECK(multi > 3);
    }

    TEST_CASE("an edit rebuilds only the tiles whose columns or border it touches") {
        auto map = importer::parseMovingAiMap(worldMap(4), "w.map");
        REQUIRE(map.ok());
        voxel::VoxelGrid grid = importer::gridFromMap(*map);
        BakedWorld world;
        bakeWorld(grid, 20.0, world);
        CHECK(test::countOf(world.result, "tiles_built") == 9);
        // Unchanged: everything reused.
        bakeWorld(grid, 20.0, world);
        CHECK(test::countOf(world.result, "tiles_built") == 0);
        CHECK(test::countOf(world.result, "tiles_reused") == 9);
        auto block = [&](uint32_t x, uint32_t z) {
            const size_t c = size_t(z) * grid.size_x + x;
            for (uint32_t s = grid.column_offsets[c]; s < grid.column_offsets[c + 1]; ++s)
                grid.spans[s].walkable = !grid.spans[s].walkable;
        };
        block(30, 35);  // inside the centre tile: that tile alone
        bakeWorld(grid, 20.0, world);
        CHECK(test::countOf(world.result, "tiles_built") == 1);
        block(39, 39);  // the centre tile's corner: it and its three neighbours at that corner
        bakeWorld(grid, 20.0, world);
        CHECK(test::countOf(world.result, "tiles_built") == 4);
        block(5, 20);  // on the border between tiles (0, 0) and (0, 1)
        bakeWorld(grid, 20.0, world);
        CHECK(test::countOf(world.result, "tiles_built") == 2);
    }

    TEST_CASE("a world refuses tiles of another world, twice-added tiles and bad indexes") {
        auto map = importer::parseMovingAiMap(worldMap(1), "w.map");
        REQUIRE(map.ok());
        BakedWorld a, b;
        bakeWorld(importer::gridFromMap(*map), 20.0, a);
        auto other = importer::parseMovingAiMap(worldMap(9), "w.map");
        REQUIRE(other.ok());
        voxel::VoxelGrid shifted = importer::gridFromMap(*other);
        shifted.origin[0] += 1;
        bakeWorld(shifted, 20.0, b);
        navrt::World world;
        CHECK(world.addTileFile(a.files[0].path.string().c_str()).code ==
              navrt::ErrorCode::invalid_argument);  // no index yet
        REQUIRE_FALSE(world.initFile(a.index.string().c_str()));
        REQUIRE_FALSE(world.addTileFile(a.files[0].path.string().c_str()));
        CHECK(world.addTileFile(a.files[0].path.string().c_str()).code ==
              navrt::ErrorCode::invalid_argument);
        const navrt::Error foreign = world.addTileFile(b.files[1].path.string().c_str());
        CHECK(foreign.code == navrt::ErrorCode::bad_section);
        CHECK(std::string(foreign.message).find("another world") != std::string::npos);
        // A tile file given as the index, and an index given as a tile.
        navrt::World wrong;
        CHECK(wrong.initFile(a.files[0].path.string().c_str()).code ==
              navrt::ErrorCode::wrong_kind);
        REQUIRE_FALSE(wrong.initFile(a.index.string().c_str()));
        CHECK(wrong.addTileFile(a.index.string().c_str()).code == navrt::ErrorCode::wrong_kind);
        CHECK(world.memoryBytes() > wrong.memoryBytes());
    }
}

TEST_SUITE("world") {
    TEST_CASE("a world refuses indexes and tiles whose sections are wrong though checksummed") {
        auto map = importer::parseMovingAiMap(worldMap(1), "w.map");
        REQUIRE(map.ok());
        BakedWorld baked;
        bakeWorld(importer::gridFromMap(*map), 20.0, baked);
        auto put32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) {
            REQUIRE(at + 4 <= b.size());
            formats::storeLe32(b.data() + at, v);
        };
        struct Case {
            uint32_t id;
            std::function<void(std::vector<uint8_t>&)> edit;
        };
        const std::vector<Case> index_cases = {
            {formats::kSecWorldPortalOffsets, [&](auto& b) { put32(b, 4, 0xFFFFFF); }},
            {formats::kSecWorldPortalTargets, [&](auto& b) { put32(b, 0, 0xFFFFFF); }},
            {formats::kSecWorldPortalCosts, [&](auto& b) { put32(b, 0, 0x7FC00000); }},  // NaN
            {formats::kSecWorldPortals, [&](auto& b) { put32(b, 0, 999); }},             // tile
            {formats::kSecWorldPortals, [&](auto& b) { b.resize(b.size() - 1); }},
            {formats::kSecWorldTiles, [&](auto& b) { put32(b, 0, 999); }},
            {formats::kSecWorldComponents, [&](auto& b) { put32(b, 0, 0xFFFFFF); }},
            {formats::kSecWorldComponentOffsets, [&](auto& b) { put32(b, 4, 0); }},
            {formats::kSecWorldHeader, [&](auto& b) { put32(b, 8, 0); }},  // tile_cells 0
        };
        for (const Case& c : index_cases) {
            const std::vector<uint8_t> bytes = test::withSection(baked.index, c.id, c.edit);
            navrt::World world;
            const navrt::Error e = world.init(bytes.data(), bytes.size());
            char id[5];
            formats::fourccToString(c.id, id);
            CHECK_MESSAGE(e.code != navrt::ErrorCode::ok, id);
            CHECK_MESSAGE(std::string(e.message).size() > 10, id);
        }
        navrt::World world;
        REQUIRE_FALSE(world.initFile(baked.index.string().c_str()));
        const std::filesystem::path tile = baked.files[4].path;  // the centre tile
        const std::vector<Case> tile_cases = {
            {formats::kSecWorldSeams, [&](auto& b) { put32(b, 0, 0xFFFFFF); }},     // from
            {formats::kSecWorldSeams, [&](auto& b) { put32(b, 4, 0xFFFFFFF); }},    // column
            {formats::kSecWorldSeams, [&](auto& b) { put32(b, 12, 0x7FC00000); }},  // NaN
            {formats::kSecWorldSeams, [&](auto& b) { b.resize(b.size() - 16); }},   // count
            {formats::kSecWorldTileHeader, [&](auto& b) { put32(b, 0, 7); }},       // tile_x
            {formats::kSecWorldTileHeader, [&](auto& b) { put32(b, 40, 12345); }},  // world
            {formats::kSecComponents, [&](auto& b) { put32(b, 0, 0xFFFF); }},
        };
        for (const Case& c : tile_cases) {
            const std::vector<uint8_t> bytes = test::withSection(tile, c.id, c.edit);
            char id[5];
            formats::fourccToString(c.id, id);
            const navrt::Error e = world.addTile(bytes.data(), bytes.size());
            CHECK_MESSAGE(e.code != navrt::ErrorCode::ok, id);
            CHECK(world.loadedCount() == 0);
        }
        const auto good = test::readBytes(tile);
        CHECK_FALSE(world.addTile(good.data(), good.size()));
    }
}

TEST_SUITE("world") {
    TEST_CASE("C API: a world streamed through navrt.h answers as navrt::World, errors are codes") {
        auto map = importer::parseMovingAiMap(worldMap(6), "w.map");
        REQUIRE(map.ok());
        BakedWorld baked;
        bakeWorld(importer::gridFromMap(*map), 20.0, baked);
        const auto bytes = tileBytes(baked, 3);
        // Counts the handle's and the tiles' allocations.
        struct Counter {
            size_t live = 0, total = 0;
            static void* allocate(size_t size, void* user) {
                auto* c = static_cast<Counter*>(user);
                ++c->live;
                ++c->total;
                return std::aligned_alloc(16, (size + 15) / 16 * 16);
            }
            static void release(void* p, void* user) {
                if (p == nullptr) return;
                --static_cast<Counter*>(user)->live;
                std::free(p);
            }
        } counter;
        const navrt_allocator hooks = {&Counter::allocate, &Counter::release, &counter};
        navrt_load_options options;
        navrt_load_options_init(&options);
        options.allocator = &hooks;
        navrt_world* cw = nullptr;
        navrt_error error;
        REQUIRE(navrt_world_load(baked.index.string().c_str(), &options, &cw, &error) == NAVRT_OK);
        REQUIRE(cw != nullptr);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(baked.index.string().c_str()));
        uint32_t tx = 0, tz = 0;
        navrt_world_tiles(cw, &tx, &tz);
        CHECK(tx == 3);
        CHECK(tz == 3);
        float extent[4];
        navrt_world_extent(cw, extent);
        float ex[4];
        world.extent(ex[0], ex[1], ex[2], ex[3]);
        for (int i = 0; i < 4; ++i) CHECK(extent[i] == ex[i]);
        // Tiles added in a random order, half from files and half from memory; after each, random
        // queries through both APIs give the same status, cost, points and planned tiles.
        std::vector<uint32_t> order;
        for (const auto& [tile, b] : bytes) order.push_back(tile);
        std::mt19937 random(11);
        std::shuffle(order.begin(), order.end(), random);
        int found = 0, compared = 0;
        for (size_t step = 0; step < order.size() + 2; ++step) {
            if (step < order.size()) {
                const uint32_t t = order[step];
                const auto& b = bytes.at(t);
                if (step % 2 == 0) {
                    const auto file = std::find_if(baked.files.begin(), baked.files.end(),
                                                   [&](const graph::WorldTileFile& f) {
                                                       return f.tile_z * 3 + f.tile_x == t;
                                                   });
                    REQUIRE(file != baked.files.end());
                    REQUIRE(navrt_world_add_tile(cw, file->path.string().c_str(), &error) ==
                            NAVRT_OK);
                } else {
                    REQUIRE(navrt_world_add_tile_memory(cw, b.data(), b.size(), &error) ==
                            NAVRT_OK);
                }
                REQUIRE_FALSE(world.addTile(b.data(), b.size()));
            } else {
                const uint32_t u = order[step - order.size()];  // unload the first tiles again
                CHECK(navrt_world_remove_tile(cw, u % 3, u / 3) == 1);
                CHECK(navrt_world_remove_tile(cw, u % 3, u / 3) == 0);
                world.removeTile(u % 3, u / 3);
            }
            CHECK(navrt_world_loaded_count(cw) == world.loadedCount());
            CHECK(navrt_world_memory_bytes(cw) == world.memoryBytes());
            for (int q = 0; q < 15; ++q) {
                const navrt_vec3 a = {float(random() % 600) / 10.0f, 0.0f,
                                      float(random() % 600) / 10.0f};
                const navrt_vec3 b = {float(random() % 600) / 10.0f, 0.0f,
                                      float(random() % 600) / 10.0f};
                const navrt::PathStatus cpp = world.findPath({a.x, a.y, a.z}, {b.x, b.y, b.z});
                const navrt_path_status c = navrt_world_find_path(cw, a, b);
                ++compared;
                REQUIRE(int(c) == int(cpp));
                uint32_t ax = 9, az = 9;
                CHECK(navrt_world_tile_at(cw, a, &ax, &az) == 1);
                CHECK(navrt_world_tile_loaded(cw, ax, az) == int(world.loaded(ax, az)));
                if (c != NAVRT_PATH_FOUND) continue;
                ++found;
                CHECK(navrt_world_path_cost(cw) == world.cost());
                CHECK(navrt_world_expanded(cw) == world.expanded());
                const uint32_t n = navrt_world_path(cw, nullptr, 0);
                REQUIRE(n == world.path().size());
                std::vector<navrt_vec3> points(n);
                CHECK(navrt_world_path(cw, points.data(), n) == n);
                for (uint32_t i = 0; i < n; ++i) {
                    CHECK(points[i].x == world.path()[i].x);
                    CHECK(points[i].y == world.path()[i].y);
                    CHECK(points[i].z == world.path()[i].z);
                }
                std::vector<uint32_t> planned;
                const navrt::PathStatus ps =
                    world.planTiles({a.x, a.y, a.z}, {b.x, b.y, b.z}, planned);
                uint32_t count = 0, first[2] = {NAVRT_NONE, NAVRT_NONE};
                CHECK(int(navrt_world_plan_tiles(cw, a, b, first, 2, &count)) == int(ps));
                CHECK(count == planned.size());
                for (uint32_t i = 0; i < count && i < 2; ++i) CHECK(first[i] == planned[i]);
            }
        }
        MESSAGE("C API world: ", compared, " queries compared, ", found, " paths");
        CHECK(found > 30);
        CHECK(counter.total > 9);  // the handle, the index and every tile's sections
        // Errors: codes with messages, nothing leaked, NULL handles answered.
        CHECK(navrt_world_add_tile_memory(cw, bytes.begin()->second.data(),
                                          bytes.begin()->second.size(), &error) ==
              (navrt_world_tile_loaded(cw, bytes.begin()->first % 3, bytes.begin()->first / 3)
                   ? NAVRT_INVALID_ARGUMENT
                   : NAVRT_OK));
        CHECK(navrt_world_add_tile(cw, baked.index.string().c_str(), &error) == NAVRT_WRONG_KIND);
        CHECK(std::string(error.message).size() > 10);
        navrt_world_free(cw);
        CHECK(counter.live == 0);
        navrt_world* bad = reinterpret_cast<navrt_world*>(&counter);
        CHECK(navrt_world_load(baked.files[0].path.string().c_str(), nullptr, &bad, &error) ==
              NAVRT_WRONG_KIND);
        CHECK(bad == nullptr);
        CHECK(navrt_world_load((baked.dir / "missing.world").string().c_str(), nullptr, &bad,
                               &error) == NAVRT_IO_ERROR);
        CHECK(navrt_world_load(nullptr, nullptr, &bad, &error) == NAVRT_INVALID_ARGUMENT);
        CHECK(navrt_world_find_path(nullptr, {0, 0, 0}, {1, 0, 1}) == NAVRT_PATH_INVALID);
        CHECK(navrt_world_path(nullptr, nullptr, 0) == 0);
        CHECK(navrt_world_add_tile(nullptr, "x", &error) == NAVRT_INVALID_ARGUMENT);
        navrt_world_free(nullptr);
    }
}

namespace {

// A link between the nodes of `whole` nearest (x0, z0) and (x1, z1) (cell centres).
geometry::LinkSpec linkBetween(const graph::Graph& whole, uint32_t id, float x0, float z0, float x1,
                               float z1, formats::LinkType type, bool two_way) {
    auto nearest = [&](float x, float z) {
        uint32_t best = 0;
        float d = 1e30f;
        for (uint32_t n = 0; n < whole.nodeCount(); ++n) {
            const float dx = whole.positions[3 * size_t(n)] - x;
            const float dz = whole.positions[3 * size_t(n) + 2] - z;
            if (dx * dx + dz * dz < d) d = dx * dx + dz * dz, best = n;
        }
        return best;
    };
    return test::specBetween(whole, nearest(x0, z0), nearest(x1, z1), type, two_way, id);
}

}  // namespace

TEST_SUITE("world") {
    TEST_CASE(
        "world tiles carry links: edges inside a tile, seams between tiles, exact streaming") {
        // Two halves no walk joins (the wall at x = 30 has no door), joined one way by a
        // teleport and both ways by a zipline (a user type with its own costs); a door inside
        // the centre tile; a wide drop across a tile border (one lane per cell).
        auto map = importer::parseMovingAiMap(worldMap(12, true), "w.map");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        graph::Graph whole = test::tileGraphOf(*map, "w.map");
        std::vector<geometry::LinkSpec> links;
        links.push_back(linkBetween(whole, 1, 5, 5, 55, 55, formats::LinkType::teleport, false));
        links.push_back(linkBetween(whole, 2, 23, 25, 27, 35, formats::LinkType::door, true));
        geometry::LinkSpec wide =
            linkBetween(whole, 3, 17.5f, 45.5f, 22.5f, 45.5f, formats::LinkType::drop, false);
        wide.width = 3;
        wide.snap = 1.5f;
        links.push_back(wide);
        geometry::LinkSpec zip =
            linkBetween(whole, 4, 8, 52, 52, 8, formats::LinkType::custom, true);
        zip.user_type = "zipline";
        zip.cost = 20;
        zip.reverse_cost = 30;
        links.push_back(zip);
        // A shortcut inside tile (0, 1): a cheap ladder across its rooms.
        geometry::LinkSpec ladder =
            linkBetween(whole, 5, 3, 23, 17, 37, formats::LinkType::ladder, true);
        ladder.cost = 2;
        ladder.reverse_cost = 2;
        links.push_back(ladder);
        Context context;
        graph::LinkResolveStats stats;
        REQUIRE(graph::attachLinks(whole, links, 1, stats, context).ok());
        REQUIRE(whole.links.size() >= 6);  // 3 point links, the wide one's lanes
        BakedWorld baked;
        bakeWorld(grid, 20.0, baked, links);
        CHECK(test::countOf(baked.result, "links") == 5);
        CHECK(test::countOf(baked.result, "link_lanes") == whole.links.size());
        CHECK(test::countOf(baked.result, "link_lanes_crossing_tiles") >= 4);
        // Walkable islands over the world components: the whole graph's components with links.
        CHECK(test::countOf(baked.result, "components") == whole.header.component_count);
        CHECK((baked.result.warnings.size() == 1) == (whole.header.component_count > 1));
        // Every node's edges and seams are the whole graph's, link edges included.
        checkTilesEqualWhole(whole, baked);
        // The door lies inside tile (1, 1): its lanes are that tile's own link records.
        bool door_inside = false;
        for (const graph::WorldTileFile& f : baked.files) {
            auto c = loadContainer(f.path);
            REQUIRE(c.ok());
            auto g = graph::decodeGraph(*c);
            REQUIRE(g.ok());
            for (const formats::LinkRecord& r : g->links) door_inside |= r.id == 2;
            if (f.tile_x == 1 && f.tile_z == 1) CHECK(g->links.size() >= 1);
        }
        CHECK(door_inside);
        // Streaming with links: each query equals a Dijkstra on the whole graph with its links
        // over the loaded tiles (the teleport makes the octile heuristic overestimate: the world
        // caps it by the cheapest shortcut).
        navrt::World world;
        REQUIRE_FALSE(world.initFile(baked.index.string().c_str()));
        const auto bytes = tileBytes(baked, 3);
        std::mt19937 random(21);
        std::vector<uint32_t> order;
        for (const auto& [tile, b] : bytes) order.push_back(tile);
        int found = 0, no_path = 0, across = 0, link_steps_inside = 0, link_steps_between = 0;
        auto left = [&](uint32_t n) { return whole.cells[n].column % 60 < 30; };
        for (int round = 0; round < 3; ++round) {
            std::shuffle(order.begin(), order.end(), random);
            for (size_t step = 0; step < order.size(); ++step) {
                const auto& b = bytes.at(order[step]);
                REQUIRE_FALSE(world.addTile(b.data(), b.size()));
                const std::vector<uint8_t> allowed = loadedNodes(whole, world);
                for (int q = 0; q < 12; ++q) {
                    const uint32_t s = uint32_t(random() % whole.nodeCount());
                    const uint32_t t = uint32_t(random() % whole.nodeCount());
                    if (!allowed[s] || !allowed[t]) continue;
                    const float* a = &whole.positions[3 * size_t(s)];
                    const float* e = &whole.positions[3 * size_t(t)];
                    const navrt::PathStatus st =
                        world.findPath({a[0], a[1], a[2]}, {e[0], e[1], e[2]});
                    const double expected = restrictedCost(whole, allowed, s, t);
                    if (!std::isfinite(expected)) {
                        CHECK(st == navrt::PathStatus::no_path);
                        ++no_path;
                        continue;
                    }
                    REQUIRE(st == navrt::PathStatus::found);
                    CHECK(world.cost() == doctest::Approx(expected).epsilon(1e-5));
                    ++found;
                    across += left(s) != left(t);
                    // Each link step starts at its link's start (its end, taken backwards) and
                    // ends at the other end (cell centres: within a cell and a half).
                    for (const navrt::WorldPathLink& pl : world.pathLinks()) {
                        REQUIRE(pl.segment + 1 < world.path().size());
                        const navrt::Vec3 a = world.path()[pl.segment];
                        const navrt::Vec3 e = world.path()[pl.segment + 1];
                        const float* start = pl.reverse ? pl.link.to : pl.link.from;
                        const float* end = pl.reverse ? pl.link.from : pl.link.to;
                        CHECK(std::hypot(a.x - start[0], a.z - start[2]) < 1.5f);
                        CHECK(std::hypot(e.x - end[0], e.z - end[2]) < 1.5f);
                        (pl.link.from_node == formats::kNoLink ? link_steps_between
                                                               : link_steps_inside)++;
                    }
                }
            }
            for (uint32_t t : order) world.removeTile(t % 3, t / 3);
        }
        MESSAGE("links in a world: ", found, " found (", across, " between the halves), ", no_path,
                " no path");
        MESSAGE("link steps: ", link_steps_inside, " inside a tile, ", link_steps_between,
                " between tiles");
        CHECK(found > 60);
        CHECK(across > 10);
        CHECK(no_path > 3);
        CHECK(link_steps_inside > 0);
        CHECK(link_steps_between > 0);
        // All loaded: the halves are one world component (the teleport joins them one way).
        for (const auto& [tile, b] : bytes) REQUIRE_FALSE(world.addTile(b.data(), b.size()));
        const float* from = links[0].from;
        const float* to = links[0].to;
        REQUIRE(world.findPath({from[0], from[1], from[2]}, {to[0], to[1], to[2]}) ==
                navrt::PathStatus::found);
        CHECK(world.cost() == doctest::Approx(1.0));
        REQUIRE(world.pathLinks().size() == 1);
        CHECK(world.pathLinks()[0].link.id == 1);
        CHECK(world.pathLinks()[0].link.type == formats::LinkType::teleport);
        CHECK_FALSE(world.pathLinks()[0].reverse);
        CHECK(world.pathLinks()[0].segment == 0);
        // The way back is the zipline's (30, taken backwards) plus the walks to and from it.
        REQUIRE(world.findPath({to[0], to[1], to[2]}, {from[0], from[1], from[2]}) ==
                navrt::PathStatus::found);
        CHECK(world.cost() > 30);
        // (it may take the ladder on the way)
        const auto zip_at =
            std::find_if(world.pathLinks().begin(), world.pathLinks().end(),
                         [](const navrt::WorldPathLink& l) { return l.link.id == 4; });
        REQUIRE(zip_at != world.pathLinks().end());
        const navrt::WorldPathLink zip_step = *zip_at;
        CHECK(zip_step.reverse);
        CHECK(zip_step.link.from_node == formats::kNoLink);
        size_t name_length = 0;
        const char* name =
            world.linkTypeName(zip_step.tile_x, zip_step.tile_z, zip_step.link.type, name_length);
        REQUIRE(name != nullptr);
        CHECK(std::string(name, name_length) == "zipline");
        // The same through the C API.
        {
            navrt_world* cw = nullptr;
            REQUIRE(navrt_world_load(baked.index.string().c_str(), nullptr, &cw, nullptr) ==
                    NAVRT_OK);
            for (const graph::WorldTileFile& f : baked.files)
                REQUIRE(navrt_world_add_tile(cw, f.path.string().c_str(), nullptr) == NAVRT_OK);
            REQUIRE(navrt_world_find_path(cw, {to[0], to[1], to[2]}, {from[0], from[1], from[2]}) ==
                    NAVRT_PATH_FOUND);
            const uint32_t n = navrt_world_path_links(cw, nullptr, 0);
            REQUIRE(n == world.pathLinks().size());
            std::vector<navrt_world_path_link> steps(n);
            CHECK(navrt_world_path_links(cw, steps.data(), n) == n);
            bool zip = false;
            for (uint32_t i = 0; i < n; ++i) {
                CHECK(steps[i].segment == world.pathLinks()[i].segment);
                CHECK(steps[i].link.id == world.pathLinks()[i].link.id);
                if (steps[i].link.id != 4) continue;
                zip = true;
                CHECK(steps[i].reverse == 1);
                CHECK(std::string(steps[i].link.type_name) == "zipline");
                CHECK(steps[i].link.from_node == NAVRT_NONE);
                CHECK(steps[i].link.cost == 20.0f);
                CHECK(steps[i].link.reverse_cost == 30.0f);
            }
            CHECK(zip);
            navrt_world_free(cw);
        }
        // Links between tiles that are wrong under valid checksums are refused.
        {
            const auto with_links = std::find_if(
                baked.files.begin(), baked.files.end(), [](const graph::WorldTileFile& f) {
                    auto c = loadContainer(f.path);
                    return c.ok() && c->section(formats::kSecWorldLinkTypes).ok();
                });
            REQUIRE(with_links != baked.files.end());
            auto refused = [&](uint32_t id, const std::function<void(std::vector<uint8_t>&)>& edit,
                               const char* what) {
                const std::vector<uint8_t> bytes = test::withSection(with_links->path, id, edit);
                navrt::World w2;
                REQUIRE_FALSE(w2.initFile(baked.index.string().c_str()));
                const navrt::Error e = w2.addTile(bytes.data(), bytes.size());
                CHECK_MESSAGE(e.code == navrt::ErrorCode::bad_section, what);
            };
            refused(
                formats::kSecWorldSeamLinks,
                [](std::vector<uint8_t>& b) {
                    for (size_t i = 0; i + 4 <= b.size(); i += 4)
                        if (formats::loadLe32(b.data() + i) != formats::kNoLink)
                            formats::storeLe32(b.data() + i, 999u << 1);
                },
                "a seam naming a link WLNK does not hold");
            refused(
                formats::kSecWorldSeamLinks,
                [](std::vector<uint8_t>& b) { b.resize(b.size() - 4); },
                "WSLK shorter than the seams");
            refused(
                formats::kSecWorldLinks,
                [](std::vector<uint8_t>& b) {
                    formats::storeLe32(b.data() + 40, 0xBF800000u);  // cost -1
                },
                "a link record with a negative cost");
            refused(
                formats::kSecWorldLinkTypes, [](std::vector<uint8_t>& b) { b[0] = 'A'; },
                "a user type name with a capital");
        }
        // Planning crosses the teleport: the tiles of its two ends.
        std::vector<uint32_t> tiles;
        REQUIRE(world.planTiles({from[0], from[1], from[2]}, {to[0], to[1], to[2]}, tiles) ==
                navrt::PathStatus::found);
        CHECK(tiles.front() == 0);
        CHECK(tiles.back() == 8);
        // An edit of a link rebuilds the tiles of its two ends only.
        links[0].cost = 2;
        bakeWorld(grid, 20.0, baked, links);
        CHECK(test::countOf(baked.result, "tiles_built") == 2);
        // The teleport alone joins the halves (one way): still one world component, so a query
        // across is searched, not answered no_path by the components; the way back has none.
        BakedWorld one_way;
        bakeWorld(grid, 20.0, one_way, {links[0]});
        navrt::World w1;
        REQUIRE_FALSE(w1.initFile(one_way.index.string().c_str()));
        for (const graph::WorldTileFile& f : one_way.files)
            REQUIRE_FALSE(w1.addTileFile(f.path.string().c_str()));
        REQUIRE(w1.findPath({from[0], from[1], from[2]}, {to[0], to[1], to[2]}) ==
                navrt::PathStatus::found);
        CHECK(w1.cost() == doctest::Approx(2.0));
        CHECK(w1.findPath({to[0], to[1], to[2]}, {from[0], from[1], from[2]}) ==
              navrt::PathStatus::no_path);
        // A link whose end lies off the world: the bake fails naming the link and the end.
        {
            geometry::LinkSpec off = links[0];
            off.name = "link off the world";
            off.id = 9;
            off.to[0] = -50;
            graph::WorldStage::Params p;
            p.tile_size = 20;
            p.links = {off};
            Context quiet;
            auto r = graph::WorldStage::run({one_way.dir / "w.vox"}, p, one_way.dir / "off.world",
                                            quiet);
            REQUIRE_FALSE(r.ok());
            CHECK_MESSAGE(
                r.error().message.find("link off the world: its end (-50, 0") != std::string::npos,
                r.error().message);
            CHECK_MESSAGE(r.error().message.find("no walkable cell lies within 1.0 m of it") !=
                              std::string::npos,
                          r.error().message);
        }
    }
}

TEST_SUITE("world") {
    TEST_CASE("generated links from the .vox row band by row band equal the whole grid's") {
        // A 60 m long strip (200 rows, 7 chunks of rows): platforms of several heights to drop
        // from, pairs with gaps to jump, a beam over one of them, a ramp; then world tiles with
        // those links equal the whole tile graph with them, with gradient costs and without.
        // Rows are generated in chunks of 32 (9.6 m): each platform pair straddles a chunk's
        // end, so its drops and jumps read rows of the next chunk.
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {14, 0, 60});
        const double heights[] = {1.2, 2.0, 3.0, 4.6, 1.6};
        for (int k = 1; k <= 5; ++k) {
            const double end = 9.6 * k, h = heights[k - 1];
            b.box({2, 0, end - 3.6}, {11, h, end - 0.3});
            b.box({2, 0, end + 1.2}, {6, h + (k % 2 ? 0.4 : 0.0), end + 3.5});
            b.box({7.4, 0, end + 0.9}, {11, h, end + 3.5});
        }
        b.box({6, 3.6, 18}, {8, 3.9, 21});  // a beam in the way of a jump
        // A ramp up 1.5 m along the strip's side, across tile rows (for the gradient costs).
        b.quad({12, 0.05, 20}, {12, 1.5, 56}, {14, 1.5, 56}, {14, 0.05, 20});
        const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
        REQUIRE(grid.size_z > 6 * 32);
        graph::LinkGenParams params;
        params.drop_height = 3.2f;
        params.jump_distance = 2.2f;
        params.jump_up_height = 1.3f;
        Context context;
        auto whole = graph::generateLinks(grid, params, context);
        REQUIRE(whole.ok());
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "g.vox", grid).ok());
        auto reader = voxel::VoxelRowReader::open(dir / "g.vox");
        REQUIRE(reader.ok());
        auto banded = graph::generateLinks(**reader, params, context);
        REQUIRE_MESSAGE(banded.ok(), banded.error().message);
        MESSAGE("generated: ", whole->links.size(), " links from ", whole->stats.ledge_samples,
                " ledge samples");
        CHECK(whole->links.size() > 20);
        size_t jumps = 0;
        for (const auto& l : whole->links) jumps += l.type == formats::LinkType::jump;
        CHECK(jumps > 2);
        CHECK(banded->links == whole->links);
        CHECK(banded->stats.ledge_samples == whole->stats.ledge_samples);
        CHECK(banded->stats.samples_linked == whole->stats.samples_linked);
        CHECK(banded->stats.rejected == whole->stats.rejected);
        // World tiles with the generated links: every node's edges and seams are the whole
        // graph's with the same links.
        auto g = graph::buildTileGraph(grid, context);
        REQUIRE(g.ok());
        graph::LinkResolveStats stats;
        REQUIRE(graph::attachLinks(*g, whole->links, 1, stats, context).ok());
        BakedWorld baked;
        bakeWorld(grid, 6.0, baked, {}, params);
        CHECK(test::countOf(baked.result, "links_generated") == whole->links.size());
        CHECK(test::countOf(baked.result, "link_lanes") == g->links.size());
        CHECK(test::countOf(baked.result, "link_lanes_crossing_tiles") > 0);
        checkTilesEqualWhole(*g, baked);
        CHECK(test::countOf(baked.result, "components") == g->header.component_count);
        // With gradient costs (uphill 1.5, downhill 0.25 m per m, added before the links as the
        // graph stage adds them): the tiles' edges, seams and links (inside tiles and between
        // them) cost what the whole graph's do.
        auto sloped_whole = graph::buildTileGraph(grid, context);
        REQUIRE(sloped_whole.ok());
        CHECK(graph::addGradientCosts(*sloped_whole, 1.5f, 0.25f) > 0);
        REQUIRE(graph::attachLinks(*sloped_whole, whole->links, 1, stats, context).ok());
        BakedWorld sloped;
        bakeWorld(grid, 6.0, sloped, {}, params, 1.5f, 0.25f);
        CHECK(test::countOf(sloped.result, "gradient_edges_built") > 0);
        checkTilesEqualWhole(*sloped_whole, sloped);
        // The ramp's tiles differ, and only they (flat tiles keep their bytes: the same file).
        size_t differ = 0;
        for (size_t i = 0; i < sloped.files.size(); ++i)
            differ += test::readBytes(sloped.files[i].path) != test::readBytes(baked.files[i].path);
        CHECK(differ >= 2);
        CHECK(differ < sloped.files.size());
    }
}

TEST_SUITE("world") {
    TEST_CASE("seeds prune a world as the graph stage prunes the whole graph, links included") {
        // Two halves no walk joins (the wall at x = 30 has no door). Seed in the left half:
        // without links the right half is pruned; with a one-way teleport left -> right it is
        // kept, and a teleport right -> left alone is a link from pruned surface (left out).
        auto map = importer::parseMovingAiMap(worldMap(12, true), "w.map");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        const graph::Graph plain = test::tileGraphOf(*map, "w.map");
        const geometry::LinkSpec across =
            linkBetween(plain, 1, 5, 5, 55, 55, formats::LinkType::teleport, false);
        const geometry::LinkSpec back =
            linkBetween(plain, 2, 50, 50, 8, 8, formats::LinkType::teleport, false);
        std::vector<graph::PointOfInterest> points = {{"left", "objective", {10.5f, 0, 10.5f}, ""},
                                                      {"right", "objective", {50.5f, 0, 40.5f}, ""},
                                                      {"sky", "pickup", {10.5f, 30, 10.5f}, ""}};
        struct Case {
            std::vector<geometry::LinkSpec> links;
            bool right_kept;
        };
        for (const Case& c : {Case{{}, false}, Case{{across}, true}, Case{{back}, false}}) {
            CAPTURE(c.links.size());
            CAPTURE(c.right_kept);
            test::TempDir dir;
            REQUIRE(voxel::saveVoxels(dir / "w.vox", grid).ok());
            Context context;
            // The whole graph as the graph stage bakes it.
            graph::GraphStage::Params gp;
            gp.kind = graph::GraphKind::tile;
            gp.seeds = {{5.5f, 0, 5.5f}};
            gp.points = points;
            gp.links = c.links;
            auto whole_run =
                graph::GraphStage::run({dir / "w.vox"}, gp, dir / "whole.graph", context);
            REQUIRE_MESSAGE(whole_run.ok(), whole_run.error().message);
            auto whole = graph::loadGraph(dir / "whole.graph");
            REQUIRE(whole.ok());
            // The world.
            graph::WorldStage::Params p;
            p.tile_size = 20;
            p.seeds = gp.seeds;
            p.points = points;
            p.links = c.links;
            BakedWorld baked;
            REQUIRE(voxel::saveVoxels(baked.dir / "w.vox", grid).ok());
            baked.index = baked.dir / "w.world";
            auto r = graph::WorldStage::run({baked.dir / "w.vox"}, p, baked.index, context);
            REQUIRE_MESSAGE(r.ok(), r.error().message);
            baked.result = *r;
            auto files = graph::worldTileFiles(baked.index);
            REQUIRE(files.ok());
            baked.files = *files;
            CHECK(test::countOf(baked.result, "seed_pruned_cells") ==
                  test::countOf(*whole_run, "seed_pruned_cells"));
            CHECK((test::countOf(baked.result, "seed_pruned_cells") > 1000) == !c.right_kept);
            checkTilesEqualWhole(*whole, baked);
            CHECK(test::countOf(baked.result, "components") == whole->header.component_count);
            // Points: the same verdicts as the graph stage's.
            for (const char* count :
                 {"points_reachable", "points_unreachable", "points_off_surface"})
                CHECK_MESSAGE(
                    test::countOf(baked.result, count) == test::countOf(*whole_run, count), count);
            CHECK(test::countOf(baked.result, "points_reachable") == (c.right_kept ? 2 : 1));
            CHECK(test::countOf(baked.result, "points_off_surface") == 1);
            // The link from the pruned half is said to be left out, as the graph stage says.
            const auto leftOut = [](const StageResult& res) {
                return std::count_if(res.warnings.begin(), res.warnings.end(), [](const auto& w) {
                    return w.find("left out") != std::string::npos;
                });
            };
            CHECK(leftOut(baked.result) == leftOut(*whole_run));
        }
    }
}
