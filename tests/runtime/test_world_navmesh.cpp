// Navmesh world tiles (issue 17): the tiled navmesh baked a tile at a time is the stitched tiled
// navmesh, tile by tile; navrt::World streams them and answers as the whole navmesh asset
// restricted to the loaded tiles (its polygons in other tiles blocked).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "formats/bytes.h"
#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/graph/world.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_query.h"
#include "lib/runtime/navrt_world.h"
#include "lib/voxel/voxelize.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct MeshWorld {
    test::TempDir dir;
    voxel::VoxelGrid grid;
    graph::WorldLayout layout;
    std::filesystem::path index;
    std::vector<graph::WorldTileFile> files;
    StageResult result;
    graph::Graph whole;  // the stitched tiled navmesh of the same tiles
};

// Imports and voxelizes a sample level, bakes it as navmesh world tiles of `tile_size` metres,
// and builds the whole tiled navmesh with the same tiles.
void bakeMeshWorld(const std::string& level, double tile_size, MeshWorld& out) {
    Context context;
    out.grid = test::importAndVoxelize(level, out.dir.path());
    out.layout = graph::worldLayout(out.grid, tile_size);
    graph::WorldStage::Params p;
    p.kind = graph::GraphKind::navmesh;
    p.tile_size = tile_size;
    out.index = out.dir / "w.world";
    auto r = graph::WorldStage::run({out.dir / "i.vox"}, p, out.index, context);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    out.result = *r;
    auto files = graph::worldTileFiles(out.index);
    REQUIRE(files.ok());
    out.files = *files;
    navmesh::NavmeshParams whole_params;
    whole_params.tile_size = int(out.layout.tile_cells);
    auto whole = graph::buildNavmeshGraph(out.grid, whole_params, context);
    REQUIRE(whole.ok());
    out.whole = std::move(whole).value();
}

// Every tile's polygons are the whole mesh's polygons of that tile, in order: the same vertices
// in XZ, heights within the weld; its border edges join exactly where the whole mesh links
// polygons of two tiles.
void checkTilesAreTheStitchedMesh(const MeshWorld& w) {
    const navmesh::NavMesh& m = w.whole.mesh;
    REQUIRE(m.tiles_x == w.layout.tiles_x);
    REQUIRE(m.tiles_z == w.layout.tiles_z);
    size_t polygons = 0;
    for (const graph::WorldTileFile& f : w.files) {
        auto c = loadContainer(f.path);
        REQUIRE(c.ok());
        auto g = graph::decodeGraph(*c);
        REQUIRE(g.ok());
        const uint32_t t = f.tile_z * w.layout.tiles_x + f.tile_x;
        std::vector<uint32_t> mine;
        for (uint32_t p = 0; p < m.polyCount(); ++p)
            if (m.poly_tiles[p] == t) mine.push_back(p);
        REQUIRE(g->mesh.polyCount() == mine.size());
        polygons += mine.size();
        for (uint32_t p = 0; p < mine.size(); ++p) {
            const uint32_t q = mine[p];
            const uint32_t n = g->mesh.poly_offsets[p + 1] - g->mesh.poly_offsets[p];
            REQUIRE(n == m.poly_offsets[q + 1] - m.poly_offsets[q]);
            for (uint32_t k = 0; k < n; ++k) {
                const float* a =
                    &g->mesh
                         .vertices[3 * size_t(g->mesh.poly_vertices[g->mesh.poly_offsets[p] + k])];
                const float* b = &m.vertices[3 * size_t(m.poly_vertices[m.poly_offsets[q] + k])];
                CHECK(a[0] == b[0]);
                CHECK(a[2] == b[2]);
                CHECK(std::fabs(a[1] - b[1]) <= 2.001f * w.grid.cell_height);
            }
        }
    }
    CHECK(polygons == m.polyCount());
    // Links across tiles in the whole mesh (each direction) against the world's joined edges.
    uint64_t crossing = 0;
    for (uint32_t p = 0; p < m.polyCount(); ++p)
        for (uint32_t k = m.poly_offsets[p]; k < m.poly_offsets[p + 1]; ++k)
            if (m.poly_neighbours[k] != navmesh::kNoNeighbour &&
                m.poly_tiles[m.poly_neighbours[k]] != m.poly_tiles[p])
                ++crossing;
    CHECK(test::countOf(w.result, "border_edges_joined") == crossing);
    CHECK(test::countOf(w.result, "polygons") == m.polyCount());
    CHECK(test::countOf(w.result, "components") == w.whole.header.component_count);
}

// Random points on the whole mesh (centroids of random polygons, moved towards a corner).
std::vector<navrt::Vec3> meshPoints(const graph::Graph& whole, std::mt19937& random, size_t n) {
    std::vector<navrt::Vec3> out;
    const navmesh::NavMesh& m = whole.mesh;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t p = uint32_t(random() % m.polyCount());
        const float* c = &whole.positions[3 * size_t(p)];
        const float* v = &m.vertices[3 * size_t(m.poly_vertices[m.poly_offsets[p]])];
        const float s = float(random() % 60) / 100.0f;
        out.push_back({c[0] + s * (v[0] - c[0]), c[1], c[2] + s * (v[2] - c[2])});
    }
    return out;
}

// Queries between `points` through `world` against the whole asset with the polygons of tiles
// the world has not loaded blocked: the same status, and costs within `tolerance` (the welded
// heights along tile borders differ by up to two cell heights). Returns the queries compared.
size_t compareWithWhole(navrt::World& world, const MeshWorld& w, navrt::PathQuery& query,
                        navrt::Blocking& blocking, const navrt::GraphView& view,
                        const std::vector<navrt::Vec3>& points, double& worst) {
    const navmesh::NavMesh& m = w.whole.mesh;
    blocking.clear();
    for (uint32_t p = 0; p < m.polyCount(); ++p)
        if (!world.loaded(m.poly_tiles[p] % m.tiles_x, m.poly_tiles[p] / m.tiles_x))
            blocking.setNode(p);
    size_t compared = 0;
    for (size_t i = 0; i + 1 < points.size(); i += 2) {
        const navrt::Vec3 a = points[i], b = points[i + 1];
        const navrt::MeshPoint pa = navrt::locateOnMesh(view, a, 0.6f, 2.0f);
        const navrt::MeshPoint pb = navrt::locateOnMesh(view, b, 0.6f, 2.0f);
        if (pa.poly == navrt::kNoNode || pb.poly == navrt::kNoNode) continue;
        if (blocking.node(pa.poly) || blocking.node(pb.poly)) {
            // A point over a tile not loaded is on no loaded surface.
            uint32_t tx, tz, node;
            CHECK_FALSE((world.locate(a, 2.0f, 2, tx, tz, node) &&
                         world.locate(b, 2.0f, 2, tx, tz, node) &&
                         world.findPath(a, b) == navrt::PathStatus::found));
            continue;
        }
        const navrt::PathStatus expected =
            query.findPathBetween(pa.position, pa.poly, pb.position, pb.poly);
        const navrt::PathStatus got = world.findPath(pa.position, pb.position);
        CHECK(got == expected);
        if (got == navrt::PathStatus::found && expected == navrt::PathStatus::found) {
            const double whole_cost = query.cost();
            const double miss = std::fabs(double(world.cost()) - whole_cost);
            worst = std::max(worst, miss / std::max(1.0, whole_cost));
            CHECK_MESSAGE(miss <= 0.02 * std::max(1.0, whole_cost),
                          "world " << world.cost() << " whole " << whole_cost << " links "
                                   << world.pathLinks().size());
            // The path runs from the start to the goal.
            REQUIRE(world.path().size() >= 2);
            CHECK(world.path().front().x == pa.position.x);
            CHECK(world.path().back().z == pb.position.z);
        }
        ++compared;
    }
    return compared;
}

// The oracle of the streaming tests: the whole mesh as a runtime asset, searched with the
// polygons of the tiles the world has not loaded blocked.
struct WholeOracle {
    test::PackedAsset packed;
    navrt::PathQuery query;
    navrt::Blocking blocking;
};
void makeOracle(const MeshWorld& w, WholeOracle& o) {
    test::packAsset(w.whole, w.dir / "whole.nav", o.packed, [](auto&) {});
    REQUIRE_FALSE(o.packed.error);
    REQUIRE_FALSE(o.query.init(o.packed.view));
    REQUIRE_FALSE(o.blocking.init(o.packed.view));
    REQUIRE_FALSE(o.query.setBlocking(&o.blocking));
}

// Every tile loaded, then 4 rounds of random load orders keeping `min_keep` tiles or more:
// compareWithWhole each time. `partial` counts the queries compared with tiles missing.
void streamRounds(navrt::World& world, const MeshWorld& w, WholeOracle& o,
                  const std::vector<navrt::Vec3>& points, std::mt19937& random, size_t min_keep,
                  double& worst, size_t& compared, size_t& partial) {
    for (const graph::WorldTileFile& f : w.files)
        if (!world.loaded(f.tile_x, f.tile_z))
            REQUIRE_FALSE(world.addTileFile(f.path.string().c_str()));
    compared += compareWithWhole(world, w, o.query, o.blocking, o.packed.view, points, worst);
    for (int round = 0; round < 4; ++round) {
        std::vector<graph::WorldTileFile> order = w.files;
        std::shuffle(order.begin(), order.end(), random);
        for (const graph::WorldTileFile& f : order) world.removeTile(f.tile_x, f.tile_z);
        const size_t keep = min_keep + random() % (order.size() - min_keep + 1);
        for (size_t i = 0; i < keep; ++i)
            REQUIRE_FALSE(world.addTileFile(order[i].path.string().c_str()));
        CHECK(world.loadedCount() == keep);
        const size_t before = compared;
        compared += compareWithWhole(world, w, o.query, o.blocking, o.packed.view, points, worst);
        partial += compared - before;
    }
}

}  // namespace

TEST_SUITE("world") {
    TEST_CASE("navmesh world tiles are the stitched tiled navmesh, tile by tile") {
        for (const auto& [level, tile_size] :
             {std::pair{std::string("terrain.obj"), 20.0}, {"indoor_two_floors.glb", 6.0}}) {
            CAPTURE(level);
            MeshWorld w;
            bakeMeshWorld(level, tile_size, w);
            CHECK(w.files.size() >= 4);
            checkTilesAreTheStitchedMesh(w);
            // Inspect-level facts: the index says navmesh, tiles hold WNBE.
            auto c = loadContainer(w.index);
            REQUIRE(c.ok());
            formats::WorldHeader h;
            REQUIRE(c->header(formats::kSecWorldHeader, formats::decodeWorldHeader, h).ok());
            CHECK(h.graph_type == uint32_t(formats::GraphType::navmesh));
            CHECK(h.portal_count > 0);
        }
    }

    TEST_CASE(
        "navmesh world streaming: random load orders and removals answer as the whole mesh "
        "restricted to the loaded tiles") {
        for (const auto& [level, tile_size] :
             {std::pair{std::string("terrain.obj"), 20.0}, {"indoor_two_floors.glb", 6.0}}) {
            CAPTURE(level);
            MeshWorld w;
            bakeMeshWorld(level, tile_size, w);
            WholeOracle oracle;
            makeOracle(w, oracle);
            std::mt19937 random(5);
            const std::vector<navrt::Vec3> points = meshPoints(w.whole, random, 120);
            navrt::World world;
            REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
            double worst = 0;
            size_t compared = 0, found_partial = 0;
            streamRounds(world, w, oracle, points, random, 2, worst, compared, found_partial);
            MESSAGE(level, ": ", compared, " queries compared (", found_partial,
                    " with tiles missing), worst cost difference ", worst * 100, " %");
            CHECK(compared >= 40);
            CHECK(found_partial >= 10);
        }
    }

    TEST_CASE(
        "navmesh world: planTiles crosses the tiles a path takes, and an edit rebuilds its tile "
        "and side neighbours only") {
        MeshWorld w;
        bakeMeshWorld("terrain.obj", 20.0, w);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
        // Corner to corner (a polygon of each corner tile, in one component) with nothing loaded:
        // the plan starts and ends in the corner tiles and steps between side neighbours.
        const navmesh::NavMesh& m = w.whole.mesh;
        const uint32_t last = m.tiles_x * m.tiles_z - 1;
        uint32_t pa = graph::kNoNode, pb = graph::kNoNode;
        for (uint32_t p = 0; p < m.polyCount(); ++p) {
            if (m.poly_tiles[p] == 0 && pa == graph::kNoNode) pa = p;
            if (m.poly_tiles[p] == last && pa != graph::kNoNode &&
                w.whole.components[p] == w.whole.components[pa])
                pb = p;
        }
        REQUIRE(pb != graph::kNoNode);
        const navrt::Vec3 a{w.whole.positions[3 * size_t(pa)],
                            w.whole.positions[3 * size_t(pa) + 1],
                            w.whole.positions[3 * size_t(pa) + 2]};
        const navrt::Vec3 b{w.whole.positions[3 * size_t(pb)],
                            w.whole.positions[3 * size_t(pb) + 1],
                            w.whole.positions[3 * size_t(pb) + 2]};
        std::vector<uint32_t> tiles;
        REQUIRE(world.planTiles(a, b, tiles) == navrt::PathStatus::found);
        REQUIRE(tiles.size() >= 3);
        CHECK(tiles.front() == 0);
        CHECK(tiles.back() == world.tilesX() * world.tilesZ() - 1);
        for (size_t i = 1; i < tiles.size(); ++i) {
            const int dx = int(tiles[i] % world.tilesX()) - int(tiles[i - 1] % world.tilesX());
            const int dz = int(tiles[i] / world.tilesX()) - int(tiles[i - 1] / world.tilesX());
            CHECK(std::abs(dx) + std::abs(dz) == 1);
        }
        // Loading the plan's tiles is enough for a path between the two points.
        for (uint32_t t : tiles) {
            for (const graph::WorldTileFile& f : w.files)
                if (f.tile_z * world.tilesX() + f.tile_x == t)
                    REQUIRE_FALSE(world.addTileFile(f.path.string().c_str()));
        }
        CHECK(world.findPath(a, b) == navrt::PathStatus::found);

        // The same world baked again reuses every tile; a crate in tile (0, 0)'s interior
        // rebuilds that tile and the tiles beside it (their seam points read it), no other.
        Context context;
        graph::WorldStage::Params p;
        p.kind = graph::GraphKind::navmesh;
        p.tile_size = 20.0;
        auto again = graph::WorldStage::run({w.dir / "i.vox"}, p, w.index, context);
        REQUIRE(again.ok());
        CHECK(test::countOf(*again, "tiles_built") == 0);
        voxel::VoxelGrid edited = w.grid;
        const uint32_t cx = w.layout.tile_cells / 2, cz = w.layout.tile_cells / 2;
        for (uint32_t z = cz; z < cz + 4; ++z)
            for (uint32_t x = cx; x < cx + 4; ++x) {
                const size_t c = size_t(z) * edited.size_x + x;
                for (uint32_t s = edited.column_offsets[c]; s < edited.column_offsets[c + 1]; ++s)
                    edited.spans[s].walkable = false;
            }
        REQUIRE(voxel::saveVoxels(w.dir / "e.vox", edited).ok());
        auto rebuilt = graph::WorldStage::run({w.dir / "e.vox"}, p, w.index, context);
        REQUIRE(rebuilt.ok());
        const uint64_t built = test::countOf(*rebuilt, "tiles_built");
        MESSAGE("an edit in tile (0, 0) rebuilt ", built, " of ", test::countOf(*rebuilt, "tiles"),
                " tiles");
        CHECK(built >= 1);
        CHECK(built <= 3);  // (0, 0), (1, 0), (0, 1)
    }

    TEST_CASE("a navmesh world refuses tile-graph tiles and bad border edges") {
        MeshWorld w;
        bakeMeshWorld("terrain.obj", 20.0, w);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
        // Tiles whose WNBE is wrong (checksums recomputed, so the decoders see it).
        const std::filesystem::path tile = w.files[0].path;
        auto put32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) {
            REQUIRE(at + 4 <= b.size());
            formats::storeLe32(b.data() + at, v);
        };
        const std::vector<std::function<void(std::vector<uint8_t>&)>> edits = {
            [&](auto& b) { put32(b, 0, 0xFFFFFF); },    // polygon
            [&](auto& b) { put32(b, 4, 99); },          // edge
            [&](auto& b) { put32(b, 8, 4); },           // side
            [&](auto& b) { b.resize(b.size() - 28); },  // count
        };
        for (const auto& edit : edits) {
            const std::vector<uint8_t> bytes =
                test::withSection(tile, formats::kSecWorldBorderEdges, edit);
            const navrt::Error e = world.addTile(bytes.data(), bytes.size());
            REQUIRE(e);
            CHECK(std::string(e.message).find("WNBE") != std::string::npos);
            CHECK(world.loadedCount() == 0);
        }
        // A tile graph's tile of the same world grid.
        Context context;
        graph::WorldStage::Params p;
        p.tile_size = 20.0;
        auto tiles = graph::WorldStage::run({w.dir / "i.vox"}, p, w.dir / "t.world", context);
        REQUIRE(tiles.ok());
        auto files = graph::worldTileFiles(w.dir / "t.world");
        REQUIRE(files.ok());
        const navrt::Error e = world.addTileFile((*files)[0].path.string().c_str());
        REQUIRE(e);
        CHECK(std::string(e.message).find("must be a navmesh") != std::string::npos);
        CHECK_FALSE(world.addTileFile(tile.string().c_str()));
    }
}

namespace {

// A 60 x 60 map of two halves no walk joins (a wall at x = 30), with blocks.
std::string halvesMap() {
    std::string text = "type octile\nheight 60\nwidth 60\nmap\n";
    for (int z = 0; z < 60; ++z) {
        for (int x = 0; x < 60; ++x) {
            const bool block = x == 30 || (x % 11 == 5 && z % 13 < 6) || (z == 40 && x > 35);
            text += block ? '@' : '.';
        }
        text += '\n';
    }
    return text;
}

}  // namespace

TEST_SUITE("world") {
    TEST_CASE("seeds prune a navmesh world as the graph stage prunes the tiled navmesh") {
        // Without links the right half is pruned; a one-way teleport into it keeps it (and its
        // lane), as the graph stage keeps it.
        for (const bool teleport : {false, true}) {
            CAPTURE(teleport);
            auto map = importer::parseMovingAiMap(halvesMap(), "h.map");
            REQUIRE(map.ok());
            MeshWorld w;
            w.grid = importer::gridFromMap(*map);
            REQUIRE(voxel::saveVoxels(w.dir / "h.vox", w.grid).ok());
            w.layout = graph::worldLayout(w.grid, 20.0);
            const std::vector<graph::PointOfInterest> points = {
                {"left", "objective", {10.5f, 0, 20.5f}, ""},
                {"right", "objective", {45.5f, 0, 20.5f}, ""}};
            Context context;
            graph::GraphStage::Params gp;
            gp.kind = graph::GraphKind::navmesh;
            gp.navmesh.tile_size = int(w.layout.tile_cells);
            gp.seeds = {{5.5f, 0, 5.5f}};
            gp.points = points;
            if (teleport) {
                geometry::LinkSpec l;
                l.name = "teleport";
                l.id = 1;
                l.type = formats::LinkType::teleport;
                l.from[0] = 10.5f, l.from[2] = 10.5f;
                l.to[0] = 50.5f, l.to[2] = 50.5f;
                gp.links = {l};
            }
            auto whole_run =
                graph::GraphStage::run({w.dir / "h.vox"}, gp, w.dir / "h.graph", context);
            REQUIRE_MESSAGE(whole_run.ok(), whole_run.error().message);
            auto whole = graph::loadGraph(w.dir / "h.graph");
            REQUIRE(whole.ok());
            w.whole = std::move(whole).value();
            graph::WorldStage::Params p;
            p.kind = graph::GraphKind::navmesh;
            p.tile_size = 20.0;
            p.seeds = gp.seeds;
            p.points = points;
            p.links = gp.links;
            w.index = w.dir / "h.world";
            auto r = graph::WorldStage::run({w.dir / "h.vox"}, p, w.index, context);
            REQUIRE_MESSAGE(r.ok(), r.error().message);
            w.result = *r;
            auto files = graph::worldTileFiles(w.index);
            REQUIRE(files.ok());
            w.files = *files;
            // Without the teleport the right half is gone: its tiles hold no polygons.
            CHECK(test::countOf(w.result, "seed_pruned_cells") ==
                  test::countOf(*whole_run, "seed_pruned_cells"));
            CHECK((test::countOf(w.result, "seed_pruned_cells") > 1000) == !teleport);
            CHECK((w.files.size() < 9) == !teleport);
            checkTilesAreTheStitchedMesh(w);
            CHECK(test::countOf(w.result, "points_reachable") == (teleport ? 2 : 1));
            if (teleport) CHECK(test::countOf(w.result, "link_lanes") == w.whole.links.size());
            CHECK(test::countOf(w.result, "points_unreachable") ==
                  test::countOf(*whole_run, "points_unreachable"));
            // The surface check's tile graph world was only a means: its index is gone.
            CHECK_FALSE(std::filesystem::exists(w.dir / "h.world.surface.world"));
            CHECK_FALSE(std::filesystem::exists(w.dir / "h.world.pruned.vox"));
        }
    }
}

namespace {

geometry::LinkSpec meshLink(uint32_t id, float x0, float z0, float x1, float z1,
                            formats::LinkType type, bool two_way) {
    geometry::LinkSpec l;
    l.name = "link " + std::to_string(id);
    l.id = id;
    l.type = type;
    l.bidirectional = two_way;
    l.from[0] = x0, l.from[2] = z0;
    l.to[0] = x1, l.to[2] = z1;
    return l;
}

// A link record as the test compares it: id, both ends' polygons (the whole mesh's numbers),
// the points, costs.
struct SeenLink {
    uint32_t id, from, to;
    float points[6];
    float cost, reverse_cost;
};

}  // namespace

TEST_SUITE("world") {
    TEST_CASE(
        "navmesh world tiles carry links: edges inside a tile, records between tiles, the "
        "stitched mesh's lanes, streaming across them") {
        // Two halves no walk joins, joined one way by a teleport and both ways by a zipline (a
        // user type with its own costs); a door inside the centre tile; a wide drop across a tile
        // border; a cheap ladder inside tile (0, 1).
        auto map = importer::parseMovingAiMap(halvesMap(), "h.map");
        REQUIRE(map.ok());
        MeshWorld w;
        w.grid = importer::gridFromMap(*map);
        REQUIRE(voxel::saveVoxels(w.dir / "h.vox", w.grid).ok());
        w.layout = graph::worldLayout(w.grid, 20.0);
        std::vector<geometry::LinkSpec> links;
        links.push_back(meshLink(1, 5.5f, 5.5f, 55.5f, 55.5f, formats::LinkType::teleport, false));
        links.push_back(meshLink(2, 23.5f, 25.5f, 27.5f, 35.5f, formats::LinkType::door, true));
        geometry::LinkSpec wide =
            meshLink(3, 17.5f, 45.5f, 22.5f, 45.5f, formats::LinkType::drop, false);
        wide.width = 5;
        wide.snap = 1.5f;
        links.push_back(wide);
        geometry::LinkSpec zip =
            meshLink(4, 8.5f, 52.5f, 52.5f, 8.5f, formats::LinkType::custom, true);
        zip.user_type = "zipline";
        zip.cost = 20;
        zip.reverse_cost = 30;
        links.push_back(zip);
        geometry::LinkSpec ladder =
            meshLink(5, 3.5f, 23.5f, 17.5f, 37.5f, formats::LinkType::ladder, true);
        ladder.cost = 2;
        ladder.reverse_cost = 2;
        links.push_back(ladder);
        Context context;
        graph::GraphStage::Params gp;
        gp.kind = graph::GraphKind::navmesh;
        gp.navmesh.tile_size = int(w.layout.tile_cells);
        gp.links = links;
        auto whole_run = graph::GraphStage::run({w.dir / "h.vox"}, gp, w.dir / "h.graph", context);
        REQUIRE_MESSAGE(whole_run.ok(), whole_run.error().message);
        auto whole = graph::loadGraph(w.dir / "h.graph");
        REQUIRE(whole.ok());
        w.whole = std::move(whole).value();
        REQUIRE(w.whole.links.size() >= 7);  // 4 point links, the wide one's lanes
        graph::WorldStage::Params p;
        p.kind = graph::GraphKind::navmesh;
        p.tile_size = 20.0;
        p.links = links;
        w.index = w.dir / "h.world";
        auto r = graph::WorldStage::run({w.dir / "h.vox"}, p, w.index, context);
        REQUIRE_MESSAGE(r.ok(), r.error().message);
        w.result = *r;
        auto files = graph::worldTileFiles(w.index);
        REQUIRE(files.ok());
        w.files = *files;
        checkTilesAreTheStitchedMesh(w);  // components included: links join the halves
        CHECK(test::countOf(w.result, "links") == 5);
        CHECK(test::countOf(w.result, "link_lanes") == w.whole.links.size());
        CHECK(test::countOf(w.result, "link_lanes_crossing_tiles") >= 4);

        // The lanes are the whole mesh's: the same polygons (numbered tile by tile), points and
        // costs. Inside a tile they are its link records; between tiles WLNK records in the tile
        // they leave (and in the one they arrive in, two-way), WLTI naming the tiles.
        const navmesh::NavMesh& m = w.whole.mesh;
        std::vector<std::vector<uint32_t>> whole_of(m.tiles_x * m.tiles_z);  // per tile
        for (uint32_t q = 0; q < m.polyCount(); ++q) whole_of[m.poly_tiles[q]].push_back(q);
        auto seen = [](const formats::LinkRecord& r, uint32_t from, uint32_t to) {
            SeenLink s{r.id,   from,
                       to,     {r.from[0], r.from[1], r.from[2], r.to[0], r.to[1], r.to[2]},
                       r.cost, r.reverse_cost};
            return s;
        };
        std::vector<SeenLink> expected, got;
        for (const formats::LinkRecord& r : w.whole.links)
            expected.push_back(seen(r, r.from_node, r.to_node));
        uint32_t records_inside = 0, records_between = 0;
        for (const graph::WorldTileFile& f : w.files) {
            auto c = loadContainer(f.path);
            REQUIRE(c.ok());
            auto g = graph::decodeGraph(*c);
            REQUIRE(g.ok());
            const uint32_t t = f.tile_z * w.layout.tiles_x + f.tile_x;
            for (const formats::LinkRecord& r : g->links) {
                got.push_back(seen(r, whole_of[t][r.from_node], whole_of[t][r.to_node]));
                ++records_inside;
            }
            auto records = c->section(formats::kSecWorldLinks);
            auto tiles = c->section(formats::kSecWorldLinkTiles);
            if (!records) continue;
            REQUIRE(tiles.ok());
            REQUIRE(tiles->size() == records->size() / formats::kLinkRecordSize * 8);
            for (size_t i = 0; i < records->size() / formats::kLinkRecordSize; ++i) {
                formats::LinkRecord r;
                REQUIRE_FALSE(formats::decodeLinkRecord(
                    records->data() + i * formats::kLinkRecordSize, formats::kLinkRecordSize, r));
                const uint32_t from = formats::loadLe32(tiles->data() + 8 * i);
                const uint32_t to = formats::loadLe32(tiles->data() + 8 * i + 4);
                REQUIRE(from != to);
                if (from != t) {  // a two-way link's record in the tile it arrives in
                    CHECK(to == t);
                    CHECK((r.flags & formats::kLinkFlagBidirectional) != 0);
                    continue;
                }
                got.push_back(seen(r, whole_of[from][r.from_node], whole_of[to][r.to_node]));
                ++records_between;
            }
        }
        CHECK(records_inside >= 2);   // the door, the ladder
        CHECK(records_between >= 4);  // the teleport, the zipline, the drop's lanes
        auto order = [](const SeenLink& a, const SeenLink& b) {
            return std::tie(a.id, a.points[0], a.points[2]) <
                   std::tie(b.id, b.points[0], b.points[2]);
        };
        std::sort(expected.begin(), expected.end(), order);
        std::sort(got.begin(), got.end(), order);
        REQUIRE(got.size() == expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
            CAPTURE(i);
            CHECK(got[i].id == expected[i].id);
            CHECK(got[i].from == expected[i].from);
            CHECK(got[i].to == expected[i].to);
            for (int k : {0, 2, 3, 5}) CHECK(got[i].points[k] == expected[i].points[k]);
            for (int k : {1, 4})
                CHECK(std::fabs(got[i].points[k] - expected[i].points[k]) <=
                      2.001f * w.grid.cell_height);
            CHECK(got[i].cost == doctest::Approx(expected[i].cost).epsilon(1e-3));
            CHECK(got[i].reverse_cost == doctest::Approx(expected[i].reverse_cost).epsilon(1e-3));
        }

        // Streaming: the whole mesh asset with the polygons of unloaded tiles blocked.
        WholeOracle oracle;
        makeOracle(w, oracle);
        std::mt19937 random(9);
        const std::vector<navrt::Vec3> points = meshPoints(w.whole, random, 160);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
        double worst = 0;
        size_t compared = 0, partial = 0;
        streamRounds(world, w, oracle, points, random, 3, worst, compared, partial);
        MESSAGE("navmesh world with links: ", compared, " queries compared (", partial,
                " with tiles missing), worst cost difference ", worst * 100, " %");
        CHECK(compared >= 40);
        CHECK(partial >= 10);

        // Left to right: only a link gets there. The path names it, its step runs from the
        // link's take-off to its landing.
        for (const graph::WorldTileFile& f : w.files)
            if (!world.loaded(f.tile_x, f.tile_z))
                REQUIRE_FALSE(world.addTileFile(f.path.string().c_str()));
        REQUIRE(world.findPath({10.5f, 0, 10.5f}, {50.5f, 0, 50.5f}) == navrt::PathStatus::found);
        REQUIRE(world.pathLinks().size() >= 1);
        bool crossed = false;
        for (const navrt::WorldPathLink& step : world.pathLinks()) {
            const float* a = step.reverse ? step.link.to : step.link.from;
            const float* b = step.reverse ? step.link.from : step.link.to;
            REQUIRE(step.segment + 1 < world.path().size());
            CHECK(world.path()[step.segment].x == a[0]);
            CHECK(world.path()[step.segment].z == a[2]);
            CHECK(world.path()[step.segment + 1].x == b[0]);
            CHECK(world.path()[step.segment + 1].z == b[2]);
            crossed |= (a[0] < 30) != (b[0] < 30);
        }
        CHECK(crossed);
        // The zipline backwards, by name.
        REQUIRE(world.findPath({52.5f, 0, 9.5f}, {8.5f, 0, 51.5f}) == navrt::PathStatus::found);
        bool zipline = false;
        for (const navrt::WorldPathLink& step : world.pathLinks()) {
            if (step.link.id != 4) continue;
            CHECK(step.reverse);
            size_t length = 0;
            const char* name = world.linkTypeName(step.tile_x, step.tile_z, step.link.type, length);
            REQUIRE(name != nullptr);
            CHECK(std::string(name, length) == "zipline");
            zipline = true;
        }
        CHECK(zipline);
        // Only the left half loaded: nothing reaches the right.
        for (const graph::WorldTileFile& f : w.files)
            if (f.tile_x == 2) world.removeTile(f.tile_x, f.tile_z);
        CHECK(world.findPath({10.5f, 0, 10.5f}, {50.5f, 0, 50.5f}) ==
              navrt::PathStatus::invalid_goal);

        // Corrupt WLTI under valid checksums: refused, naming the section.
        std::filesystem::path with_links;
        uint32_t with_links_index = 0;
        for (const graph::WorldTileFile& f : w.files) {
            auto c = loadContainer(f.path);
            REQUIRE(c.ok());
            if (c->has(formats::kSecWorldLinkTiles)) {
                with_links = f.path;
                with_links_index = f.tile_z * w.layout.tiles_x + f.tile_x;
            }
        }
        REQUIRE_FALSE(with_links.empty());
        navrt::World fresh;
        REQUIRE_FALSE(fresh.initFile(w.index.string().c_str()));
        const uint32_t other = with_links_index == 0 ? 1 : 0;
        const std::vector<std::function<void(std::vector<uint8_t>&)>> edits = {
            [](auto& b) { formats::storeLe32(b.data(), 999); },  // no such tile
            [](auto& b) { formats::storeLe32(b.data() + 4, formats::loadLe32(b.data())); },
            [&](auto& b) {  // neither end in this tile
                formats::storeLe32(b.data(), other);
                formats::storeLe32(b.data() + 4, other == 1 ? 2 : 1);
            },
            [](auto& b) { b.resize(b.size() - 8); },  // not one pair per record
        };
        for (const auto& edit : edits) {
            const std::vector<uint8_t> bytes =
                test::withSection(with_links, formats::kSecWorldLinkTiles, edit);
            const navrt::Error e = fresh.addTile(bytes.data(), bytes.size());
            REQUIRE(e);
            CHECK_MESSAGE(std::string(e.message).find("WLTI") != std::string::npos, e.message);
            CHECK(fresh.loadedCount() == 0);
        }
        CHECK_FALSE(fresh.addTileFile(with_links.string().c_str()));

        // A rebake reuses every tile; moving the door rebuilds its tile alone.
        auto again = graph::WorldStage::run({w.dir / "h.vox"}, p, w.index, context);
        REQUIRE(again.ok());
        CHECK(test::countOf(*again, "tiles_built") == 0);
        p.links[1].to[2] = 33.5f;
        auto moved = graph::WorldStage::run({w.dir / "h.vox"}, p, w.index, context);
        REQUIRE(moved.ok());
        CHECK(test::countOf(*moved, "tiles_built") == 1);
    }
}
