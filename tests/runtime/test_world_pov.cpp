// POV world tiles (issue 17): the tiles together are the whole points-of-visibility graph, a
// world streamed tile by tile answers as the whole graph restricted to the loaded tiles (all of
// them: the whole graph's answers), and corrupt cross-tile records are refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "formats/bytes.h"
#include "lib/common/file_io.h"
#include "lib/graph/world.h"
#include "lib/importer/import.h"
#include "lib/runtime/c/navrt.h"
#include "lib/runtime/navrt_world.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

constexpr uint32_t kTiles = 16;  // tile edge [cells] (cells of 1 m)

// A 50 x 40 grid map: two rooms joined by doors, pillars and scattered blocks.
std::string povMap(uint32_t seed, const std::set<std::pair<int, int>>& open = {}) {
    const int w = 50, h = 40;
    std::mt19937 random(seed);
    std::string text = "type octile\nheight 40\nwidth 50\nmap\n";
    for (int z = 0; z < h; ++z) {
        for (int x = 0; x < w; ++x) {
            bool blocked = random() % 23 == 0;
            if (x == 27 && z % 11 > 3) blocked = true;
            if (x % 7 == 3 && z % 9 == 4) blocked = true;
            // A block of walled single cells: ~30 islands without corners, layer components
            // that no tile's corners have (their ids run past the index's component records).
            if (x > 30 && z < 16) blocked = !(x % 3 == 1 && z % 3 == 1);
            if (open.count({x, z})) blocked = false;
            text += blocked ? '@' : '.';
        }
        text += '\n';
    }
    return text;
}

struct PovWorld {
    std::filesystem::path index;
    StageResult result;
    graph::Graph whole;
};

void bakePov(const std::filesystem::path& dir, PovWorld& out,
             const std::vector<geometry::LinkSpec>& links = {},
             const std::set<std::pair<int, int>>& open = {}) {
    auto map = importer::parseMovingAiMap(povMap(3, open), "p.map");
    REQUIRE(map.ok());
    REQUIRE(voxel::saveVoxels(dir / "p.vox", importer::gridFromMap(*map)).ok());
    Context context;
    graph::GraphStage::Params gp;
    gp.kind = graph::GraphKind::pov;
    gp.links = links;
    auto whole = graph::GraphStage::run({dir / "p.vox"}, gp, dir / "p.graph", context);
    REQUIRE_MESSAGE(whole.ok(), whole.error().message);
    graph::WorldStage::Params wp;
    wp.kind = graph::GraphKind::pov;
    wp.tile_size = kTiles;
    out.index = dir / "p.world";
    auto r = graph::WorldStage::run({dir / "p.vox", dir / "p.graph"}, wp, out.index, context);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    out.result = *r;
    auto loaded = graph::loadGraph(dir / "p.graph");
    REQUIRE(loaded.ok());
    out.whole = std::move(loaded).value();
}

// The whole POV graph restricted to the tiles `loaded` (per tile index, 4 tiles across): their
// layer cells and links among them, the corners on them and the edges among those.
graph::Graph restrictPov(const graph::Graph& whole, const std::vector<uint8_t>& loaded) {
    const uint32_t size_x = whole.header.size_x;
    auto tileOf = [&](uint32_t column) {
        return (column / size_x / kTiles) * 4 + (column % size_x) / kTiles;
    };
    graph::Graph r;
    r.header = whole.header;
    r.areas = whole.areas;
    const size_t cells = whole.layer_cells.size();
    std::vector<uint32_t> cell_id(cells, graph::kNoNode);
    r.layer_columns.assign(size_t(whole.header.size_x) * whole.header.size_z + 1, 0);
    for (size_t c = 0; c + 1 < r.layer_columns.size(); ++c) {
        for (uint32_t k = whole.layer_columns[c]; k < whole.layer_columns[c + 1]; ++k)
            if (loaded[tileOf(uint32_t(c))]) {
                cell_id[k] = uint32_t(r.layer_cells.size());
                r.layer_cells.push_back(whole.layer_cells[k]);
                r.layer_components.push_back(whole.layer_components[k]);
            }
        r.layer_columns[c + 1] = uint32_t(r.layer_cells.size());
    }
    const size_t kept = r.layer_cells.size();
    r.layer_neighbours.assign(4 * kept, graph::kNoNode);
    for (size_t k = 0; k < 4; ++k)
        for (size_t c = 0; c < cells; ++c)
            if (cell_id[c] != graph::kNoNode) {
                const uint32_t t = whole.layer_neighbours[k * cells + c];
                if (t != graph::kNoNode && cell_id[t] != graph::kNoNode)
                    r.layer_neighbours[k * kept + cell_id[c]] = cell_id[t];
            }
    std::vector<uint32_t> corner_id(whole.corners.size(), graph::kNoNode);
    for (uint32_t v = 0; v < whole.corners.size(); ++v)
        if (cell_id[whole.corners[v].cell] != graph::kNoNode) {
            corner_id[v] = uint32_t(r.corners.size());
            formats::PovCorner c = whole.corners[v];
            c.cell = cell_id[c.cell];
            r.corners.push_back(c);
            r.pov_stats.any_direction_corners += c.flags != 0;
            r.positions.insert(r.positions.end(), &whole.positions[3 * v],
                               &whole.positions[3 * v] + 3);
            r.components.push_back(whole.components[v]);  // renumbered below
        }
    r.edge_offsets.assign(1, 0);
    for (uint32_t v = 0; v < whole.corners.size(); ++v) {
        if (corner_id[v] == graph::kNoNode) continue;
        for (uint32_t e = whole.edge_offsets[v]; e < whole.edge_offsets[v + 1]; ++e)
            if (corner_id[whole.edge_targets[e]] != graph::kNoNode) {
                r.edge_targets.push_back(corner_id[whole.edge_targets[e]]);
                r.edge_costs.push_back(whole.edge_costs[e]);
            }
        r.edge_offsets.push_back(uint32_t(r.edge_targets.size()));
    }
    // Corner components numbered densely (GRHD: no more than the corners).
    std::vector<uint32_t> dense(whole.header.component_count, graph::kNoNode);
    uint32_t next = 0;
    for (uint32_t& c : r.components) {
        if (dense[c] == graph::kNoNode) dense[c] = next++;
        c = dense[c];
    }
    r.header.component_count = next;
    r.header.largest_component = 0;
    r.pov_stats.corner_count = uint32_t(r.corners.size());
    r.pov_stats.layer_cell_count = uint32_t(kept);
    r.pov_stats.layer_component_count = whole.pov_stats.layer_component_count;
    r.pov_stats.taut_edges = r.edge_targets.size();
    r.pov_stats.visibility_edges = r.edge_targets.size();
    return r;
}

}  // namespace

TEST_SUITE("unit") {
    TEST_CASE("POV world tiles: the whole graph cut, streamed as the whole graph restricted") {
        test::TempDir dir;
        PovWorld world;
        bakePov(dir.path(), world);
        const graph::Graph& whole = world.whole;
        REQUIRE(whole.corners.size() > 100);
        MESSAGE("corners " << whole.corners.size() << ", edges " << whole.edgeCount() << ", "
                           << test::countOf(world.result, "edges_between_tiles")
                           << " between tiles");
        CHECK(test::countOf(world.result, "tiles") == 12);  // 4 x 3 tiles of 16 cells
        CHECK(test::countOf(world.result, "corners") == whole.corners.size());
        CHECK(test::countOf(world.result, "edges_between_tiles") > 100);
        auto files = graph::worldTileFiles(world.index);
        REQUIRE(files.ok());
        REQUIRE(files->size() == 12);

        // The tiles hold every corner and every edge once (inside a tile, or a WPED record).
        size_t corners = 0, edges = 0, cells = 0;
        std::vector<std::vector<uint8_t>> bytes;
        for (const graph::WorldTileFile& f : *files) {
            auto c = loadContainer(f.path, formats::kKindNav, formats::kNavVersion);
            REQUIRE_MESSAGE(c.ok(), c.error().message);
            auto t = graph::decodeGraph(*c);
            REQUIRE_MESSAGE(t.ok(), t.error().message);
            CHECK(t->header.type == formats::GraphType::pov);
            corners += t->corners.size();
            cells += t->layer_cells.size();
            edges += t->edgeCount();
            auto wped = c->section(formats::kSecWorldPovEdges);
            REQUIRE(wped.ok());
            edges += wped->size() / formats::kWorldPovRecordSize;
            auto raw = readFile(f.path);
            REQUIRE(raw.ok());
            bytes.push_back(*raw);
        }
        CHECK(corners == whole.corners.size());
        CHECK(cells == whole.layer_cells.size());
        CHECK(edges == whole.edgeCount());

        test::OracleAsset whole_asset;
        test::packOracle(whole, dir / "whole.nav", whole_asset);
        const navrt::GraphView& packed_view = whole_asset.packed.view;
        navrt::PathQuery& oracle = whole_asset.query;
        navrt::World w;
        REQUIRE_FALSE(w.initFile(world.index.c_str()));
        std::mt19937 random(11);
        std::vector<size_t> order;
        test::addTilesShuffled(w, bytes, random, order);
        auto point = [&] {
            return navrt::Vec3{float(random() % 5000) / 100.0f, 0.0f,
                               float(random() % 4000) / 100.0f};
        };
        // Every tile loaded: the whole graph's status and length.
        int found = 0, bent = 0;
        for (int q = 0; q < 300; ++q) {
            const navrt::Vec3 a = point(), b = point();
            const uint32_t s = navrt::locate(packed_view, a, 2.0f, 2.0f);
            const uint32_t g = navrt::locate(packed_view, b, 2.0f, 2.0f);
            const navrt::PathStatus st = w.findPath(a, b);
            if (s == graph::kNoNode || g == graph::kNoNode) {
                CHECK(st == (s == graph::kNoNode ? navrt::PathStatus::invalid_start
                                                 : navrt::PathStatus::invalid_goal));
                continue;
            }
            REQUIRE(st == oracle.findPathBetween(a, s, b, g));
            if (st != navrt::PathStatus::found) continue;
            ++found;
            bent += w.path().size() > 2;
            CHECK(w.cost() == doctest::Approx(oracle.cost()).epsilon(1e-6));
            // The points placed on their cells, as the whole graph's query places them.
            navrt::Vec3 ends[64];
            const uint32_t count = oracle.smooth(ends, 64);
            REQUIRE(count >= 2);
            CHECK(w.path().front().x == ends[0].x);
            CHECK(w.path().front().z == ends[0].z);
            CHECK(w.path().back().x == ends[std::min<uint32_t>(count, 64) - 1].x);
        }
        CHECK(found > 150);
        CHECK(bent > 50);

        // Some tiles unloaded: the whole graph restricted to the loaded ones (sight lines stop
        // where a tile is missing; a point over a missing tile is no start).
        std::vector<uint8_t> loaded(12, 1);
        for (size_t i = 0; i < 12; i += 3) {
            const graph::WorldTileFile& f = (*files)[order[i]];
            REQUIRE(w.removeTile(f.tile_x, f.tile_z));
            loaded[f.tile_z * 4 + f.tile_x] = 0;
        }
        const graph::Graph restricted = restrictPov(whole, loaded);
        test::OracleAsset part;
        test::packOracle(restricted, dir / "part.nav", part);
        navrt::PathQuery& restricted_oracle = part.query;
        int answered = 0, refused = 0, longer = 0;
        for (int q = 0; q < 300; ++q) {
            const navrt::Vec3 a = point(), b = point();
            uint32_t ax, az, bx, bz;
            REQUIRE(w.tileAt(a, ax, az));
            REQUIRE(w.tileAt(b, bx, bz));
            const navrt::PathStatus st = w.findPath(a, b);
            if (!loaded[az * 4 + ax]) {
                CHECK(st == navrt::PathStatus::invalid_start);
                ++refused;
                continue;
            }
            const uint32_t s = navrt::locate(part.packed.view, a, 2.0f, 2.0f);
            const uint32_t g = navrt::locate(part.packed.view, b, 2.0f, 2.0f);
            if (s == graph::kNoNode || g == graph::kNoNode || !loaded[bz * 4 + bx]) {
                CHECK(st != navrt::PathStatus::found);
                continue;
            }
            REQUIRE(st == restricted_oracle.findPathBetween(a, s, b, g));
            if (st != navrt::PathStatus::found) continue;
            ++answered;
            CHECK(w.cost() == doctest::Approx(restricted_oracle.cost()).epsilon(1e-6));
            const uint32_t ws = navrt::locate(packed_view, a, 2.0f, 2.0f);
            const uint32_t wg = navrt::locate(packed_view, b, 2.0f, 2.0f);
            if (oracle.findPathBetween(a, ws, b, wg) == navrt::PathStatus::found)
                longer += oracle.cost() < restricted_oracle.cost() - 1e-6;
        }
        CHECK(answered > 40);
        CHECK(refused > 30);
        CHECK(longer > 0);  // missing tiles made some paths go around them

        // A rebake without a change reuses every tile.
        Context context;
        graph::WorldStage::Params wp;
        wp.kind = graph::GraphKind::pov;
        wp.tile_size = kTiles;
        auto again =
            graph::WorldStage::run({dir / "p.vox", dir / "p.graph"}, wp, world.index, context);
        REQUIRE(again.ok());
        CHECK(test::countOf(*again, "tiles_built") == 0);
        CHECK(test::countOf(*again, "tiles_reused") == 12);
    }

    TEST_CASE("POV world tiles: the portal graph plans which tiles to load") {
        test::TempDir dir;
        PovWorld world;
        bakePov(dir.path(), world);
        CHECK(test::countOf(world.result, "portals") > 12);
        auto files = graph::worldTileFiles(world.index);
        REQUIRE(files.ok());
        test::OracleAsset whole_asset;
        test::packOracle(world.whole, dir / "whole.nav", whole_asset);
        const navrt::GraphView& packed_view = whole_asset.packed.view;
        navrt::PathQuery& oracle = whole_asset.query;
        std::mt19937 random(5);
        int planned = 0, found = 0, across = 0;
        for (int q = 0; q < 200 && planned < 60; ++q) {
            const navrt::Vec3 a{float(random() % 5000) / 100.0f, 0.0f,
                                float(random() % 4000) / 100.0f};
            const navrt::Vec3 b{float(random() % 5000) / 100.0f, 0.0f,
                                float(random() % 4000) / 100.0f};
            const uint32_t s = navrt::locate(packed_view, a, 2.0f, 2.0f);
            const uint32_t g = navrt::locate(packed_view, b, 2.0f, 2.0f);
            if (s == graph::kNoNode || g == graph::kNoNode ||
                oracle.findPathBetween(a, s, b, g) != navrt::PathStatus::found)
                continue;
            // Nothing loaded: the plan from the index alone, then only its tiles loaded.
            navrt::World w;
            REQUIRE_FALSE(w.initFile(world.index.c_str()));
            std::vector<uint32_t> plan;
            if (w.planTiles(a, b, plan) != navrt::PathStatus::found) continue;
            ++planned;
            uint32_t ax, az, bx, bz;
            REQUIRE(w.tileAt(a, ax, az));
            REQUIRE(w.tileAt(b, bx, bz));
            CHECK(plan.front() == az * 4 + ax);
            CHECK(plan.back() == bz * 4 + bx);
            across += plan.size() > 1;
            for (uint32_t t : plan)
                for (const graph::WorldTileFile& f : *files)
                    if (f.tile_z * 4 + f.tile_x == t && !w.loaded(f.tile_x, f.tile_z))
                        REQUIRE_FALSE(w.addTileFile(f.path.c_str()));
            if (w.findPath(a, b) == navrt::PathStatus::found) {
                ++found;
                CHECK(w.cost() >= oracle.cost() - 1e-4);
            }
        }
        MESSAGE("planned " << planned << " across " << across << " found " << found);
        CHECK(planned >= 40);
        CHECK(across >= 20);
        CHECK(found >= planned * 8 / 10);
    }

    TEST_CASE("POV world tiles: corrupt cross-tile records and foreign tiles are refused") {
        test::TempDir dir;
        PovWorld world;
        bakePov(dir.path(), world);
        auto files = graph::worldTileFiles(world.index);
        REQUIRE(files.ok());
        auto put32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) {
            REQUIRE(at + 4 <= b.size());
            formats::storeLe32(b.data() + at, v);
        };
        // Tile (1, 1) against its loaded neighbours.
        navrt::World w;
        REQUIRE_FALSE(w.initFile(world.index.c_str()));
        for (const graph::WorldTileFile& f : *files)
            if (!(f.tile_x == 1 && f.tile_z == 1)) REQUIRE_FALSE(w.addTileFile(f.path.c_str()));
        const std::filesystem::path centre = (*files)[5].path;
        REQUIRE((*files)[5].tile_x == 1);
        struct Case {
            uint32_t id;
            std::function<void(std::vector<uint8_t>&)> edit;
            const char* says;
        };
        const std::vector<Case> cases = {
            {formats::kSecWorldPovNeighbours, [&](auto& b) { put32(b, 0, 0xFFFFFF); },
             "out of range"},
            {formats::kSecWorldPovNeighbours, [&](auto& b) { put32(b, 4, 4); }, "out of range"},
            {formats::kSecWorldPovNeighbours, [&](auto& b) { put32(b, 12, 0xFFFFFF); },
             "does not have"},
            {formats::kSecWorldPovNeighbours,
             [&](auto& b) { put32(b, 4, formats::loadLe32(b.data() + 4) ^ 1); }, "not adjacent"},
            {formats::kSecWorldPovNeighbours, [&](auto& b) { b.resize(b.size() - 3); }, "16-byte"},
            {formats::kSecWorldPovEdges, [&](auto& b) { put32(b, 12, 0x7FC00000); },
             "out of range"},  // a NaN cost
            {formats::kSecWorldPovEdges, [&](auto& b) { put32(b, 8, 0xFFFFFF); }, "does not have"},
            {formats::kSecWorldPovEdges, [&](auto& b) { put32(b, 4, 5); }, "out of range"},
        };
        for (const Case& c : cases) {
            const std::vector<uint8_t> bytes = test::withSection(centre, c.id, c.edit);
            const navrt::Error e = w.addTile(bytes.data(), bytes.size());
            char id[5];
            formats::fourccToString(c.id, id);
            CHECK_MESSAGE(e.code == navrt::ErrorCode::bad_section, id, " ", c.says);
            CHECK_MESSAGE(std::string(e.message).find(c.says) != std::string::npos, e.message);
            CHECK(w.loadedCount() == 11);
        }
        REQUIRE_FALSE(w.addTileFile(centre.c_str()));
        // A tile graph's tile is not a POV tile.
        Context context;
        graph::WorldStage::Params tp;
        tp.tile_size = kTiles;
        std::filesystem::create_directories(dir / "t");
        REQUIRE(graph::WorldStage::run({dir / "p.vox"}, tp, dir / "t" / "t.world", context).ok());
        auto tiles = graph::worldTileFiles(dir / "t" / "t.world");
        REQUIRE(tiles.ok());
        REQUIRE(w.removeTile(0, 0));
        const navrt::Error e = w.addTileFile((*tiles)[0].path.c_str());
        CHECK(std::string(e.message).find("POV world's tile") != std::string::npos);
    }

    TEST_CASE("POV world tiles carry links: inside a tile, between tiles, named on the path") {
        uint32_t next_id = 1;
        auto link = [&](const char* name, formats::LinkType type, int fx, int fz, int tx, int tz,
                        bool both) {
            geometry::LinkSpec l;
            l.id = next_id++;
            l.name = name;
            l.type = type;
            l.bidirectional = both;
            l.cost = 0.5f;  // cheaper than walking: taken where it helps
            if (both) l.reverse_cost = 0.5f;
            const float from[3] = {fx + 0.5f, 0, fz + 0.5f}, to[3] = {tx + 0.5f, 0, tz + 0.5f};
            std::copy(from, from + 3, l.from);
            std::copy(to, to + 3, l.to);
            return l;
        };
        // A one-way teleport across the world, a two-way ladder between two tiles, a door inside
        // one tile.
        const std::vector<geometry::LinkSpec> links = {
            link("teleport", formats::LinkType::teleport, 2, 2, 46, 36, false),
            link("ladder", formats::LinkType::ladder, 14, 20, 18, 20, true),
            link("door", formats::LinkType::door, 35, 6, 38, 9, true)};
        test::TempDir dir;
        PovWorld world;
        bakePov(dir.path(), world, links, {{2, 2}, {46, 36}, {14, 20}, {18, 20}, {35, 6}, {38, 9}});
        const graph::Graph& whole = world.whole;
        REQUIRE(whole.links.size() == 3);
        auto files = graph::worldTileFiles(world.index);
        REQUIRE(files.ok());
        test::OracleAsset whole_asset;
        test::packOracle(whole, dir / "whole.nav", whole_asset);
        const navrt::GraphView& packed_view = whole_asset.packed.view;
        navrt::PathQuery& oracle = whole_asset.query;
        navrt::World w;
        REQUIRE_FALSE(w.initFile(world.index.c_str()));
        for (const graph::WorldTileFile& f : *files) REQUIRE_FALSE(w.addTileFile(f.path.c_str()));
        std::mt19937 random(17);
        int found = 0;
        std::set<uint32_t> taken;
        for (int q = 0; q < 300; ++q) {
            navrt::Vec3 a{float(random() % 5000) / 100.0f, 0.0f, float(random() % 4000) / 100.0f};
            navrt::Vec3 b{float(random() % 5000) / 100.0f, 0.0f, float(random() % 4000) / 100.0f};
            if (q % 4 == 0) a = {2.2f, 0, 3.1f};  // beside the teleport
            if (q % 4 == 1) {                     // the ladder backwards
                a = {18.4f, 0, 20.6f};
                b = {14.3f, 0, 20.2f};
            }
            if (q % 4 == 2) {  // through the door
                a = {35.3f, 0, 6.4f};
                b = {38.6f, 0, 9.7f};
            }
            const uint32_t s = navrt::locate(packed_view, a, 2.0f, 2.0f);
            const uint32_t g = navrt::locate(packed_view, b, 2.0f, 2.0f);
            if (s == graph::kNoNode || g == graph::kNoNode) continue;
            const navrt::PathStatus st = w.findPath(a, b);
            REQUIRE(st == oracle.findPathBetween(a, s, b, g));
            if (st != navrt::PathStatus::found) continue;
            ++found;
            CHECK(w.cost() == doctest::Approx(oracle.cost()).epsilon(1e-6));
            // The same links, in order, as the whole graph's path takes them.
            std::vector<uint32_t> expected;
            for (uint32_t k = 0; k + 1 < oracle.pathLength(); ++k)
                if (oracle.pathLink(k) != formats::kNoLink)
                    expected.push_back(packed_view.link(oracle.pathLink(k)).id);
            REQUIRE(w.pathLinks().size() == expected.size());
            for (size_t k = 0; k < expected.size(); ++k) {
                const navrt::WorldPathLink& step = w.pathLinks()[k];
                CHECK(step.link.id == expected[k]);
                taken.insert(step.link.id);
                const navrt::Vec3 p = w.path()[step.segment];
                const float* end = step.reverse ? step.link.to : step.link.from;
                CHECK(p.x == doctest::Approx(end[0]));
                CHECK(p.z == doctest::Approx(end[2]));
                const bool between = step.link.type != formats::LinkType::door;
                CHECK((step.link.from_node == formats::kNoLink) == between);
            }
        }
        CHECK(found > 150);
        CHECK(taken.size() == 3);
        // The C API streams the same world: the same path, cost and links for a teleport trip.
        navrt_world* c_world = nullptr;
        navrt_error c_error;
        REQUIRE(navrt_world_load(world.index.c_str(), nullptr, &c_world, &c_error) == NAVRT_OK);
        for (const graph::WorldTileFile& f : *files)
            REQUIRE(navrt_world_add_tile(c_world, f.path.c_str(), &c_error) == NAVRT_OK);
        const navrt::Vec3 a{2.2f, 0, 3.1f}, b{44.5f, 0, 30.5f};
        REQUIRE(w.findPath(a, b) == navrt::PathStatus::found);
        REQUIRE(navrt_world_find_path(c_world, {a.x, a.y, a.z}, {b.x, b.y, b.z}) ==
                NAVRT_PATH_FOUND);
        CHECK(navrt_world_path_cost(c_world) == w.cost());
        std::vector<navrt_vec3> c_path(64);
        const uint32_t c_count = navrt_world_path(c_world, c_path.data(), 64);
        REQUIRE(c_count == w.path().size());
        for (uint32_t k = 0; k < c_count; ++k) CHECK(c_path[k].x == w.path()[k].x);
        navrt_world_path_link c_links[8];
        REQUIRE(navrt_world_path_links(c_world, c_links, 8) == w.pathLinks().size());
        REQUIRE_FALSE(w.pathLinks().empty());
        CHECK(c_links[0].link.id == w.pathLinks()[0].link.id);
        navrt_world_free(c_world);
        // The teleport's landing tile unloaded: the teleport is not taken.
        REQUIRE(w.removeTile(2, 2));
        for (int q = 0; q < 40; ++q) {
            const navrt::Vec3 b{float(random() % 3000) / 100.0f, 0.0f,
                                float(random() % 3000) / 100.0f};
            if (w.findPath({2.2f, 0, 3.1f}, b) != navrt::PathStatus::found) continue;
            for (const navrt::WorldPathLink& step : w.pathLinks())
                CHECK(step.link.type != formats::LinkType::teleport);
        }
        // A WPEL entry naming no WLNK record, and a WPEL of the wrong size, are refused.
        REQUIRE(((*files)[0].tile_x == 0 && (*files)[0].tile_z == 0));
        REQUIRE(w.removeTile(0, 0));
        for (int variant = 0; variant < 2; ++variant) {
            const std::vector<uint8_t> bytes = test::withSection(
                (*files)[0].path, formats::kSecWorldPovEdgeLinks, [&](std::vector<uint8_t>& b) {
                    if (variant == 1) {
                        b.resize(b.size() - 4);
                        return;
                    }
                    for (size_t at = 0; at + 4 <= b.size(); at += 4)
                        if (formats::loadLe32(b.data() + at) != formats::kNoLink) {
                            formats::storeLe32(b.data() + at, 200);
                            return;
                        }
                    FAIL("no WPEL entry takes a link");
                });
            const navrt::Error e = w.addTile(bytes.data(), bytes.size());
            CHECK(e.code == navrt::ErrorCode::bad_section);
            CHECK(std::string(e.message).find("WPEL") != std::string::npos);
        }
        CHECK_FALSE(w.addTileFile((*files)[0].path.c_str()));
    }
}
