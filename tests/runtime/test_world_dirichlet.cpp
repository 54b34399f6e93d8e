// Dirichlet world tiles (issue 17): the tiles together are the whole Dirichlet graph's cells and
// owners, a world streamed tile by tile answers as navrt's query on the whole graph, an edit
// rewrites only the tiles whose domains changed, and foreign tiles are refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "lib/common/file_io.h"
#include "lib/graph/world.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_world.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A 50 x 40 grid map: rooms split by walls with doors, scattered blocks (cells of 1 m).
std::string domainMap(uint32_t seed, int blocked_x = -1, int blocked_z = -1) {
    const int w = 50, h = 40;
    std::mt19937 random(seed);
    std::string text = "type octile\nheight 40\nwidth 50\nmap\n";
    for (int z = 0; z < h; ++z) {
        for (int x = 0; x < w; ++x) {
            bool blocked = random() % 11 == 0;
            if (x == 21 && z % 13 > 2) blocked = true;
            if (z == 17 && x > 3 && x % 9 != 0) blocked = true;
            if (x < 2 && z > 37) blocked = false;  // an open corner (the edit's)
            if (x == blocked_x && z == blocked_z) blocked = true;
            text += blocked ? '@' : '.';
        }
        text += '\n';
    }
    return text;
}

struct DomainWorld {
    std::filesystem::path dir;
    std::filesystem::path index;
    StageResult result;
    graph::Graph whole;
};

std::vector<graph::Waypoint> domainWaypoints() {
    // Some fall on blocked cells of some maps: the graph stage moves those to the nearest cell.
    std::vector<graph::Waypoint> out;
    const float at[][3] = {{3, 3, 0},   {12, 30, 2}, {30, 5, 0},  {45, 35, 0},
                           {40, 20, 5}, {8, 20, 0},  {25, 33, 1}, {48, 2, 0}};
    for (size_t i = 0; i < std::size(at); ++i)
        out.push_back(
            {"w" + std::to_string(i), {at[i][0] + 0.5f, 0, at[i][1] + 0.5f}, at[i][2], ""});
    return out;
}

void bakeDomains(const std::string& map_text, const std::filesystem::path& dir, double tile_size,
                 DomainWorld& out) {
    auto map = importer::parseMovingAiMap(map_text, "d.map");
    REQUIRE(map.ok());
    REQUIRE(voxel::saveVoxels(dir / "d.vox", importer::gridFromMap(*map)).ok());
    Context context;
    graph::GraphStage::Params gp;
    gp.kind = graph::GraphKind::dirichlet;
    gp.waypoints = domainWaypoints();
    auto whole = graph::GraphStage::run({dir / "d.vox"}, gp, dir / "d.graph", context);
    REQUIRE_MESSAGE(whole.ok(), whole.error().message);
    graph::WorldStage::Params wp;
    wp.kind = graph::GraphKind::dirichlet;
    wp.tile_size = tile_size;
    out.dir = dir;
    out.index = dir / "d.world";
    auto r = graph::WorldStage::run({dir / "d.vox", dir / "d.graph"}, wp, out.index, context);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    out.result = *r;
    auto loaded = graph::loadGraph(dir / "d.graph");
    REQUIRE(loaded.ok());
    out.whole = std::move(loaded).value();
}

}  // namespace

TEST_SUITE("unit") {
    TEST_CASE("Dirichlet world tiles: the whole graph's domains, streamed as its query answers") {
        test::TempDir dir;
        DomainWorld world;
        bakeDomains(domainMap(5), dir.path(), 16, world);
        const graph::Graph& whole = world.whole;
        CHECK(test::countOf(world.result, "tiles") == 12);  // 4 x 3 tiles of 16 cells
        CHECK(test::countOf(world.result, "tiles_built") == 12);
        CHECK(test::countOf(world.result, "waypoints") == 8);
        CHECK(test::countOf(world.result, "domain_cells") == whole.layer_cells.size());
        auto files = graph::worldTileFiles(world.index);
        REQUIRE(files.ok());
        REQUIRE(files->size() == 12);

        // Every tile: the waypoint graph, and the whole graph's cells of its columns with their
        // owners, in the whole graph's order.
        std::vector<std::vector<uint8_t>> bytes;
        for (const graph::WorldTileFile& f : *files) {
            auto c = loadContainer(f.path, formats::kKindNav, formats::kNavVersion);
            REQUIRE_MESSAGE(c.ok(), c.error().message);
            auto t = graph::decodeGraph(*c);
            REQUIRE_MESSAGE(t.ok(), t.error().message);
            CHECK(t->header.type == formats::GraphType::dirichlet);
            CHECK(t->positions == whole.positions);
            CHECK(t->edge_targets == whole.edge_targets);
            CHECK(t->edge_costs == whole.edge_costs);
            const uint32_t x0 = f.tile_x * 16, z0 = f.tile_z * 16;
            size_t k = 0;
            for (uint32_t lz = 0; lz < t->header.size_z; ++lz)
                for (uint32_t lx = 0; lx < t->header.size_x; ++lx) {
                    const uint32_t column = (z0 + lz) * 50 + x0 + lx;
                    for (uint32_t n = whole.layer_columns[column];
                         n < whole.layer_columns[column + 1]; ++n, ++k) {
                        REQUIRE(k < t->layer_cells.size());
                        CHECK(t->layer_cells[k].column == lz * t->header.size_x + lx);
                        CHECK(t->layer_cells[k].y == whole.layer_cells[n].y);
                        CHECK(t->domain_owners[k] == whole.domain_owners[n]);
                    }
                }
            CHECK(k == t->layer_cells.size());
            auto raw = readFile(f.path);
            REQUIRE(raw.ok());
            bytes.push_back(*raw);
        }

        test::OracleAsset whole_asset;
        test::packOracle(whole, dir / "whole.nav", whole_asset);
        const navrt::GraphView& packed_view = whole_asset.packed.view;
        navrt::PathQuery& oracle = whole_asset.query;
        navrt::World w;
        REQUIRE_FALSE(w.initFile(world.index.c_str()));
        std::mt19937 random(7);
        std::vector<size_t> order;
        test::addTilesShuffled(w, bytes, random, order);
        // Loaded twice, and a tile with another waypoint graph: refused.
        CHECK(w.addTile(bytes[0].data(), bytes[0].size()).code ==
              navrt::ErrorCode::invalid_argument);

        auto point = [&] {
            return navrt::Vec3{float(random() % 5000) / 100.0f, 0.0f,
                               float(random() % 4000) / 100.0f};
        };
        // All tiles loaded: exactly the whole graph's answers.
        int found = 0;
        for (int q = 0; q < 300; ++q) {
            const navrt::Vec3 a = point(), b = point();
            const uint32_t s = navrt::locate(packed_view, a, 2.0f, 2.0f);
            const uint32_t g = navrt::locate(packed_view, b, 2.0f, 2.0f);
            const navrt::PathStatus st = w.findPath(a, b);
            if (s == graph::kNoNode) {
                CHECK(st == navrt::PathStatus::invalid_start);
                continue;
            }
            if (g == graph::kNoNode) {
                CHECK(st == navrt::PathStatus::invalid_goal);
                continue;
            }
            uint32_t tx, tz, node;
            REQUIRE(w.locate(a, 2.0f, 2, tx, tz, node));
            CHECK(node == s);
            const navrt::PathStatus expected = oracle.findPath(s, g);
            REQUIRE(st == expected);
            if (st != navrt::PathStatus::found) continue;
            ++found;
            CHECK(w.cost() == float(oracle.cost()));
            REQUIRE(w.path().size() == oracle.pathLength());
            for (uint32_t k = 0; k < oracle.pathLength(); ++k) {
                const float* p = whole.positions.data() + 3 * size_t(oracle.path()[k]);
                CHECK(w.path()[k].x == p[0]);
                CHECK(w.path()[k].z == p[2]);
            }
        }
        CHECK(found > 150);

        // Half the tiles unloaded: a point over an unloaded tile is no start; otherwise the cell
        // found lies in a loaded tile, and the path is the whole graph's between the owners.
        std::set<uint32_t> gone;
        for (size_t i = 0; i < files->size(); i += 2) {
            const graph::WorldTileFile& f = (*files)[order[i]];
            REQUIRE(w.removeTile(f.tile_x, f.tile_z));
            gone.insert(f.tile_z * 4 + f.tile_x);
        }
        CHECK(w.loadedCount() == 6);
        int answered = 0, refused = 0;
        for (int q = 0; q < 300; ++q) {
            const navrt::Vec3 a = point(), b = point();
            uint32_t ax, az;
            REQUIRE(w.tileAt(a, ax, az));
            const navrt::PathStatus st = w.findPath(a, b);
            if (gone.count(az * 4 + ax)) {
                CHECK(st == navrt::PathStatus::invalid_start);
                ++refused;
                continue;
            }
            uint32_t sx, sz, s, gx, gz, g;
            if (!w.locate(a, 2.0f, 2, sx, sz, s) || !w.locate(b, 2.0f, 2, gx, gz, g)) continue;
            CHECK(gone.count(sz * 4 + sx) == 0);
            CHECK(gone.count(gz * 4 + gx) == 0);
            REQUIRE(st == oracle.findPath(s, g));
            if (st == navrt::PathStatus::found) {
                CHECK(w.cost() == float(oracle.cost()));
                ++answered;
            }
            // The two tiles a query needs.
            std::vector<uint32_t> plan;
            REQUIRE(w.planTiles(a, b, plan) == navrt::PathStatus::found);
            CHECK(plan.front() == az * 4 + ax);
        }
        CHECK(answered > 30);
        CHECK(refused > 30);
    }

    TEST_CASE("Dirichlet world tiles: an edit rewrites only the tiles whose domains change") {
        test::TempDir dir;
        DomainWorld first;
        bakeDomains(domainMap(5), dir.path(), 16, first);
        auto before = graph::worldTileFiles(first.index);
        REQUIRE(before.ok());
        // Unchanged: every tile reused.
        DomainWorld again;
        bakeDomains(domainMap(5), dir.path(), 16, again);
        CHECK(test::countOf(again.result, "tiles_built") == 0);
        CHECK(test::countOf(again.result, "tiles_reused") == 12);
        // A crate in a dead-end corner: that cell leaves its domain, no walk between waypoints
        // nor any other cell's distance changes, so only the corner's tile is rewritten.
        DomainWorld edited;
        bakeDomains(domainMap(5, 0, 39), dir.path(), 16, edited);
        CHECK(test::countOf(edited.result, "tiles_built") == 1);
        CHECK(test::countOf(edited.result, "domain_cells") ==
              test::countOf(first.result, "domain_cells") - 1);
        auto after = graph::worldTileFiles(edited.index);
        REQUIRE(after.ok());
        REQUIRE(after->size() == before->size());
        for (size_t i = 0; i < after->size(); ++i) {
            const bool corner = (*after)[i].tile_x == 0 && (*after)[i].tile_z == 2;
            CHECK(((*after)[i].path == (*before)[i].path) == !corner);
        }
        // The waypoint graph is unchanged (every tile holds it: a change to a connection's cost
        // would rewrite them all).
        CHECK(edited.whole.edge_costs == first.whole.edge_costs);
    }

    TEST_CASE("Dirichlet world tiles: foreign tiles, a missing graph and a tile graph refused") {
        test::TempDir dir;
        DomainWorld world;
        bakeDomains(domainMap(5), dir.path(), 16, world);
        navrt::World w;
        REQUIRE_FALSE(w.initFile(world.index.c_str()));
        auto files = graph::worldTileFiles(world.index);
        REQUIRE(files.ok());
        REQUIRE_FALSE(w.addTileFile((*files)[0].path.c_str()));
        // The same world's tile graph tiles are not domains.
        Context context;
        graph::WorldStage::Params tp;
        tp.tile_size = 16;
        std::filesystem::create_directories(dir / "tiles");
        REQUIRE(
            graph::WorldStage::run({dir / "d.vox"}, tp, dir / "tiles" / "t.world", context).ok());
        auto tile_files = graph::worldTileFiles(dir / "tiles" / "t.world");
        REQUIRE(tile_files.ok());
        const navrt::Error e = w.addTileFile((*tile_files)[1].path.c_str());
        CHECK(e.code == navrt::ErrorCode::bad_section);
        CHECK(std::string(e.message).find("Dirichlet world's tile") != std::string::npos);
        // Another set of waypoints: another waypoint graph, refused beside the first.
        test::TempDir other_dir;
        auto map = importer::parseMovingAiMap(domainMap(5), "d.map");
        REQUIRE(map.ok());
        REQUIRE(voxel::saveVoxels(other_dir / "d.vox", importer::gridFromMap(*map)).ok());
        graph::GraphStage::Params gp;
        gp.kind = graph::GraphKind::dirichlet;
        gp.waypoints = domainWaypoints();
        gp.waypoints.pop_back();
        REQUIRE(
            graph::GraphStage::run({other_dir / "d.vox"}, gp, other_dir / "d.graph", context).ok());
        graph::WorldStage::Params wp;
        wp.kind = graph::GraphKind::dirichlet;
        wp.tile_size = 16;
        REQUIRE(graph::WorldStage::run({other_dir / "d.vox", other_dir / "d.graph"}, wp,
                                       other_dir / "d.world", context)
                    .ok());
        auto other = graph::worldTileFiles(other_dir / "d.world");
        REQUIRE(other.ok());
        CHECK(w.addTileFile((*other)[1].path.c_str()).code == navrt::ErrorCode::bad_section);
        // The stage without its graph, and with a graph of another kind.
        auto missing = graph::WorldStage::run({dir / "d.vox"}, wp, dir / "m.world", context);
        REQUIRE_FALSE(missing.ok());
        CHECK(missing.error().message.find("cut from the agent's Dirichlet graph") !=
              std::string::npos);
        graph::GraphStage::Params tile_graph;
        REQUIRE(graph::GraphStage::run({dir / "d.vox"}, tile_graph, dir / "t.graph", context).ok());
        auto wrong =
            graph::WorldStage::run({dir / "d.vox", dir / "t.graph"}, wp, dir / "m.world", context);
        REQUIRE_FALSE(wrong.ok());
        CHECK(wrong.error().message.find("not a Dirichlet graph") != std::string::npos);
        // Seeds belong to the whole graph the world is cut from.
        graph::WorldStage::Params seeded = wp;
        seeded.seeds = {{1.5f, 0, 1.5f}};
        CHECK_FALSE(graph::WorldStage::check(seeded).empty());
    }
}
