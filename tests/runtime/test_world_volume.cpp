// Volume world tiles (issue 17): each tile's free flags (its columns and the ring around them)
// are the whole volume graph's, bit for bit; navrt::World streams them and answers as the whole
// volume asset with the voxels of unloaded tiles blocked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <tuple>

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

struct VolumeWorld {
    test::TempDir dir;
    voxel::VoxelGrid grid;
    graph::WorldLayout layout;
    std::filesystem::path index;
    std::vector<graph::WorldTileFile> files;
    StageResult result;
    graph::Graph whole;
};

void bakeVolumeWorld(double tile_size, float radius, VolumeWorld& out,
                     const std::vector<geometry::LinkSpec>& links = {}) {
    Context context;
    out.grid = test::importAndVoxelize("indoor_two_floors.glb", out.dir.path());
    out.layout = graph::worldLayout(out.grid, tile_size);
    graph::WorldStage::Params p;
    p.kind = graph::GraphKind::volume;
    p.agent_radius = radius;
    p.tile_size = tile_size;
    p.links = links;
    out.index = out.dir / "v.world";
    auto r = graph::WorldStage::run({out.dir / "i.vox"}, p, out.index, context);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    out.result = *r;
    auto files = graph::worldTileFiles(out.index);
    REQUIRE(files.ok());
    out.files = *files;
    auto whole = graph::buildVolumeGraph(out.grid, radius, context);
    REQUIRE(whole.ok());
    out.whole = std::move(whole).value();
    graph::LinkResolveStats stats;
    REQUIRE(graph::attachLinks(out.whole, links, 1, stats, context).ok());
}

constexpr uint32_t kNoNodeV = 0xFFFFFFFFu;

bool wholeFree(const graph::Graph& g, uint64_t v) {
    return (g.free_voxels[v >> 6] >> (v & 63)) & 1;
}

// The tile (tx, tz) of layout holding voxel v of the whole volume graph g.
std::pair<uint32_t, uint32_t> voxelTile(const graph::Graph& g, const graph::WorldLayout& layout,
                                        uint64_t v) {
    const uint32_t sx = g.header.size_x, sz = g.header.size_z;
    return {uint32_t(v % sx) / layout.tile_cells, uint32_t((v / sx) % sz) / layout.tile_cells};
}

// The streaming tests' oracle: the whole volume asset, its query and a blocking set in it.
struct WholeOracle {
    test::PackedAsset whole;
    navrt::PathQuery query;
    navrt::Blocking blocking;
};
void openOracle(const graph::Graph& g, const std::filesystem::path& path, WholeOracle& out) {
    test::packAsset(g, path, out.whole, [](auto&) {});
    REQUIRE_FALSE(out.whole.error);
    REQUIRE_FALSE(out.query.init(out.whole.view));
    REQUIRE_FALSE(out.blocking.init(out.whole.view));
    REQUIRE_FALSE(out.query.setBlocking(&out.blocking));
}
// Blocks (after clearing) the free voxels of g in tiles `world` has not loaded.
void blockUnloaded(const graph::Graph& g, const graph::WorldLayout& layout,
                   const navrt::World& world, navrt::Blocking& blocking) {
    blocking.clear();
    const uint64_t total = uint64_t(g.header.size_x) * g.header.size_z * g.header.size_y;
    for (uint64_t v = 0; v < total; ++v) {
        const auto [tx, tz] = voxelTile(g, layout, v);
        if (wholeFree(g, v) && !world.loaded(tx, tz)) blocking.setNode(uint32_t(v));
    }
}

// A volume world's tile (tx, tz): its box (columns and ring) in world columns.
struct TileBox {
    uint32_t x0, z0, w, d;
};
TileBox tileBox(const graph::WorldLayout& layout, uint32_t tx, uint32_t tz) {
    const graph::WorldWindow b = graph::tileWindow(layout, tx, tz);
    return {b.bx0, b.bz0, b.bx1 - b.bx0, b.bz1 - b.bz0};
}

// The links of the volume link test on the whole graph `g`, from its free voxels (seeded): a
// one-way teleport between far tiles, a two-way teleport inside one tile, a cheap two-way
// zipline of a user type between neighbouring tiles, a door whose ends are off the voxel
// centres (snapped), and a wide link across a tile border.
std::vector<geometry::LinkSpec> volumeLinks(const graph::Graph& g,
                                            const graph::WorldLayout& layout) {
    const uint32_t sx = g.header.size_x, sz = g.header.size_z;
    const uint64_t total = uint64_t(sx) * sz * g.header.size_y;
    std::mt19937 random(11);
    auto tileOf = [&](uint64_t v) { return voxelTile(g, layout, v); };
    auto centre = [&](uint64_t v, float dx = 0) {
        const std::array<float, 3> c = {
            g.header.origin[0] + (float(v % sx) + 0.5f + dx) * g.header.cell_size,
            g.header.origin[1] + (float(v / (uint64_t(sx) * sz)) + 0.5f) * g.header.cell_height,
            g.header.origin[2] + (float((v / sx) % sz) + 0.5f) * g.header.cell_size};
        return c;
    };
    // A free voxel whose tile passes `want` (from the random stream: the same every run).
    auto pick = [&](auto&& want) {
        for (int tries = 0; tries < 1000000; ++tries) {
            const uint64_t v = random() % total;
            if (wholeFree(g, v) && want(v)) return v;
        }
        FAIL("no free voxel as wanted");
        return uint64_t(0);
    };
    auto link = [&](uint32_t id, uint64_t a, uint64_t b, formats::LinkType type, bool two_way) {
        geometry::LinkSpec l;
        l.name = "link " + std::to_string(id);
        l.id = id;
        l.type = type;
        l.bidirectional = two_way;
        const auto ca = centre(a), cb = centre(b);
        std::copy(ca.begin(), ca.end(), l.from);
        std::copy(cb.begin(), cb.end(), l.to);
        if (type != formats::LinkType::teleport) l.agents = {"drone"};  // flyers take them
        return l;
    };
    std::vector<geometry::LinkSpec> out;
    const uint64_t far_a = pick([&](uint64_t v) { return tileOf(v) == std::pair{0u, 0u}; });
    const uint64_t far_b =
        pick([&](uint64_t v) { return tileOf(v).first >= 2 && tileOf(v).second >= 2; });
    out.push_back(link(1, far_a, far_b, formats::LinkType::teleport, false));
    const uint64_t in_a = pick([&](uint64_t v) { return tileOf(v) == std::pair{1u, 1u}; });
    const uint64_t in_b = pick([&](uint64_t v) {
        const auto a = centre(in_a), b = centre(v);
        return tileOf(v) == std::pair{1u, 1u} && std::hypot(a[0] - b[0], a[2] - b[2]) > 3;
    });
    out.push_back(link(2, in_a, in_b, formats::LinkType::teleport, true));
    const uint64_t zip_a = pick([&](uint64_t v) { return tileOf(v) == std::pair{0u, 1u}; });
    const uint64_t zip_b = pick([&](uint64_t v) { return tileOf(v) == std::pair{2u, 1u}; });
    geometry::LinkSpec zip = link(3, zip_a, zip_b, formats::LinkType::custom, true);
    zip.user_type = "zipline";
    zip.cost = 0.5f;
    zip.reverse_cost = 0.75f;
    zip.user_data = 77;
    out.push_back(zip);
    // A door beside a tile border (x within two columns of one), its points 0.7 cells off the
    // voxel centres: the voxel holding them, or the nearest free one, in either tile.
    auto nearBorder = [&](uint64_t v) {
        const uint32_t x = uint32_t(v % sx) % layout.tile_cells;
        return x + 2 >= layout.tile_cells || x < 2;
    };
    const uint64_t door_a = pick(nearBorder), door_b = pick(nearBorder);
    geometry::LinkSpec door = link(4, door_a, door_b, formats::LinkType::door, true);
    const auto da = centre(door_a, 0.7f), db = centre(door_b, -0.7f);
    std::copy(da.begin(), da.end(), door.from);
    std::copy(db.begin(), db.end(), door.to);
    door.snap = 0.8f;
    out.push_back(door);
    const uint64_t wide_a = pick(nearBorder), wide_b = pick(nearBorder);
    geometry::LinkSpec wide = link(5, wide_a, wide_b, formats::LinkType::jump, false);
    wide.width = 1.2f;
    wide.snap = 0.6f;
    out.push_back(wide);
    return out;
}

// Every link record of a volume world's tiles (LINK inside a tile, WLNK between tiles) with its
// ends as the whole graph's voxels, once each (a two-way record between tiles is in both).
std::set<std::tuple<uint32_t, uint64_t, uint64_t, float, float, uint32_t>> worldRecords(
    const std::vector<graph::WorldTileFile>& files, const graph::WorldLayout& layout,
    const graph::Graph& whole, std::vector<std::array<float, 6>>& points) {
    const uint32_t sx = whole.header.size_x, sz = whole.header.size_z;
    auto worldVoxel = [&](uint32_t tile, uint32_t local) {
        const TileBox b = tileBox(layout, tile % layout.tiles_x, tile / layout.tiles_x);
        const uint64_t x = b.x0 + local % b.w, z = b.z0 + (local / b.w) % b.d,
                       y = local / (uint64_t(b.w) * b.d);
        return (y * sz + z) * sx + x;
    };
    std::set<std::tuple<uint32_t, uint64_t, uint64_t, float, float, uint32_t>> out;
    auto add = [&](const formats::LinkRecord& r, uint32_t from_tile, uint32_t to_tile) {
        out.insert({r.id, worldVoxel(from_tile, r.from_node), worldVoxel(to_tile, r.to_node),
                    r.cost, r.reverse_cost, uint32_t(r.type)});
        points.push_back({r.from[0], r.from[1], r.from[2], r.to[0], r.to[1], r.to[2]});
    };
    for (const graph::WorldTileFile& f : files) {
        auto c = loadContainer(f.path);
        REQUIRE(c.ok());
        auto t = graph::decodeGraph(*c);
        REQUIRE(t.ok());
        const uint32_t tile = f.tile_z * layout.tiles_x + f.tile_x;
        for (const formats::LinkRecord& r : t->links) add(r, tile, tile);
        auto records = c->section(formats::kSecWorldLinks);
        if (!records) continue;
        auto tiles = c->section(formats::kSecWorldLinkTiles);
        REQUIRE(tiles);
        REQUIRE(tiles->size() * formats::kLinkRecordSize == records->size() * 8);
        for (size_t i = 0; i * formats::kLinkRecordSize < records->size(); ++i) {
            formats::LinkRecord r;
            REQUIRE_FALSE(formats::decodeLinkRecord(records->data() + i * formats::kLinkRecordSize,
                                                    formats::kLinkRecordSize, r));
            add(r, formats::loadLe32(tiles->data() + 8 * i),
                formats::loadLe32(tiles->data() + 8 * i + 4));
        }
    }
    return out;
}

}  // namespace

TEST_SUITE("world") {
    TEST_CASE("volume world tiles hold the whole volume graph's free voxels, ring included") {
        for (float radius : {0.0f, 0.4f}) {
            CAPTURE(radius);
            VolumeWorld w;
            bakeVolumeWorld(6.0, radius, w);
            const graph::Graph& g = w.whole;
            const uint32_t sx = g.header.size_x, sz = g.header.size_z, sy = g.header.size_y;
            uint64_t whole_free = 0;
            for (uint64_t v = 0; v < uint64_t(sx) * sz * sy; ++v) whole_free += wholeFree(g, v);
            CHECK(test::countOf(w.result, "free_voxels") == whole_free);
            CHECK(test::countOf(w.result, "components") == g.header.component_count);
            REQUIRE(w.files.size() >= 9);
            for (const graph::WorldTileFile& f : w.files) {
                auto c = loadContainer(f.path);
                REQUIRE(c.ok());
                auto t = graph::decodeGraph(*c);
                REQUIRE(t.ok());
                const uint32_t x0 = f.tile_x * w.layout.tile_cells,
                               z0 = f.tile_z * w.layout.tile_cells;
                const uint32_t bx0 = x0 > 0 ? x0 - 1 : 0, bz0 = z0 > 0 ? z0 - 1 : 0;
                REQUIRE(t->header.size_y == sy);
                size_t mismatches = 0;
                for (uint32_t y = 0; y < sy; ++y)
                    for (uint32_t lz = 0; lz < t->header.size_z; ++lz)
                        for (uint32_t lx = 0; lx < t->header.size_x; ++lx) {
                            const uint64_t tv =
                                (uint64_t(y) * t->header.size_z + lz) * t->header.size_x + lx;
                            const uint64_t wv = (uint64_t(y) * sz + bz0 + lz) * sx + bx0 + lx;
                            mismatches += wholeFree(*t, tv) != wholeFree(g, wv);
                        }
                CHECK(mismatches == 0);
            }
        }
    }

    TEST_CASE(
        "volume world streaming: random load orders and removals answer as the whole "
        "volume graph with the voxels of unloaded tiles blocked") {
        VolumeWorld w;
        bakeVolumeWorld(6.0, 0.4f, w);
        WholeOracle oracle;
        openOracle(w.whole, w.dir / "whole.nav", oracle);
        const test::PackedAsset& whole = oracle.whole;
        navrt::PathQuery& query = oracle.query;
        navrt::Blocking& blocking = oracle.blocking;
        const graph::Graph& g = w.whole;
        const uint32_t sx = g.header.size_x, sz = g.header.size_z;
        const uint64_t total = uint64_t(sx) * sz * g.header.size_y;
        std::mt19937 random(3);
        std::vector<uint32_t> voxels;
        while (voxels.size() < 160) {
            const uint32_t v = uint32_t(random() % total);
            if (wholeFree(g, v)) voxels.push_back(v);
        }
        navrt::World world;
        REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
        auto tileOf = [&](uint64_t v) { return voxelTile(g, w.layout, v); };
        size_t compared = 0, found = 0, partial = 0;
        for (int round = 0; round < 5; ++round) {
            std::vector<graph::WorldTileFile> order = w.files;
            std::shuffle(order.begin(), order.end(), random);
            for (const graph::WorldTileFile& f : order) world.removeTile(f.tile_x, f.tile_z);
            const size_t keep = round == 0 ? order.size() : 2 + random() % (order.size() - 1);
            for (size_t i = 0; i < keep; ++i)
                REQUIRE_FALSE(world.addTileFile(order[i].path.string().c_str()));
            blockUnloaded(g, w.layout, world, blocking);
            for (size_t i = 0; i + 1 < voxels.size(); i += 2) {
                const uint32_t a = voxels[i], b = voxels[i + 1];
                const auto [ax, az] = tileOf(a);
                const auto [bx, bz] = tileOf(b);
                if (!world.loaded(ax, az) || !world.loaded(bx, bz)) continue;
                const navrt::PathStatus expected = query.findPath(a, b);
                const navrt::PathStatus got =
                    world.findPath(whole.view.position(a), whole.view.position(b));
                CHECK(got == expected);
                if (got == navrt::PathStatus::found && expected == navrt::PathStatus::found) {
                    CHECK(world.cost() == doctest::Approx(query.cost()).epsilon(1e-5));
                    ++found;
                    partial += round > 0;
                    CHECK(world.path().front().x == whole.view.position(a).x);
                    CHECK(world.path().back().y == whole.view.position(b).y);
                }
                ++compared;
            }
        }
        MESSAGE("volume world: ", compared, " queries compared, ", found, " found (", partial,
                " with tiles missing)");
        CHECK(found >= 40);
        CHECK(partial >= 10);
        // Two far tiles alone: no path between them, in the world as in the blocked whole.
        for (const graph::WorldTileFile& f : w.files) world.removeTile(f.tile_x, f.tile_z);
        const graph::WorldTileFile &first = w.files.front(), &last = w.files.back();
        REQUIRE_FALSE(world.addTileFile(first.path.string().c_str()));
        REQUIRE_FALSE(world.addTileFile(last.path.string().c_str()));
        blocking.clear();
        uint32_t in_first = kNoNodeV, in_last = kNoNodeV;
        for (uint64_t v = 0; v < total; ++v) {
            if (!wholeFree(g, v)) continue;
            const auto [tx, tz] = tileOf(uint32_t(v));
            if (!world.loaded(tx, tz)) {
                blocking.setNode(uint32_t(v));
                continue;
            }
            (tx == first.tile_x && tz == first.tile_z ? in_first : in_last) = uint32_t(v);
        }
        REQUIRE(in_first != kNoNodeV);
        REQUIRE(in_last != kNoNodeV);
        CHECK(query.findPath(in_first, in_last) == navrt::PathStatus::no_path);
        CHECK(world.findPath(whole.view.position(in_first), whole.view.position(in_last)) ==
              navrt::PathStatus::no_path);
        // planTiles from one corner tile to the other over the portal graph.
        std::vector<uint32_t> plan;
        REQUIRE(world.planTiles(whole.view.position(in_first), whole.view.position(in_last),
                                plan) == navrt::PathStatus::found);
        CHECK(plan.front() == first.tile_z * world.tilesX() + first.tile_x);
        CHECK(plan.back() == last.tile_z * world.tilesX() + last.tile_x);
        for (size_t i = 1; i < plan.size(); ++i) {  // neighbours (diagonals included)
            const int dx = int(plan[i] % world.tilesX()) - int(plan[i - 1] % world.tilesX());
            const int dz = int(plan[i] / world.tilesX()) - int(plan[i - 1] / world.tilesX());
            CHECK(std::max(std::abs(dx), std::abs(dz)) == 1);
        }
    }

    TEST_CASE(
        "a volume world refuses other worlds' tiles, and an edit rebuilds the tiles around it") {
        VolumeWorld w;
        bakeVolumeWorld(6.0, 0.4f, w);
        navrt::World world;
        REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
        Context context;
        graph::WorldStage::Params p;
        p.tile_size = 6.0;
        REQUIRE(graph::WorldStage::run({w.dir / "i.vox"}, p, w.dir / "t.world", context).ok());
        auto tiles = graph::worldTileFiles(w.dir / "t.world");
        REQUIRE(tiles.ok());
        const navrt::Error e = world.addTileFile((*tiles)[0].path.string().c_str());
        REQUIRE(e);
        CHECK(std::string(e.message).find("volume") != std::string::npos);
        CHECK_FALSE(world.addTileFile(w.files[0].path.string().c_str()));
        // A solid block in one tile's middle: that tile and the tiles whose window (ring and
        // clearance) reaches it are rebuilt, the rest reused.
        p.kind = graph::GraphKind::volume;
        p.agent_radius = 0.4f;
        auto again = graph::WorldStage::run({w.dir / "i.vox"}, p, w.index, context);
        REQUIRE(again.ok());
        CHECK(test::countOf(*again, "tiles_built") == 0);
        voxel::VoxelGrid edited = w.grid;
        const uint32_t c = w.layout.tile_cells;
        size_t col = 0;  // a column with spans near tile (1, 1)'s middle
        for (uint32_t d = 0; d < c / 4 && col == 0; ++d) {
            const size_t at = size_t(c + c / 2) * edited.size_x + c + c / 2 + d;
            if (edited.column_offsets[at + 1] > edited.column_offsets[at]) col = at;
        }
        REQUIRE(col != 0);
        for (uint32_t s = edited.column_offsets[col]; s < edited.column_offsets[col + 1]; ++s)
            edited.spans[s].y_max =
                std::min<int32_t>(edited.spans[s].y_max + 3, int32_t(edited.size_y));
        REQUIRE(voxel::saveVoxels(w.dir / "e.vox", edited).ok());
        auto rebuilt = graph::WorldStage::run({w.dir / "e.vox"}, p, w.index, context);
        REQUIRE(rebuilt.ok());
        const uint64_t built = test::countOf(*rebuilt, "tiles_built");
        MESSAGE("an edit in tile (1, 1) rebuilt ", built, " of ", test::countOf(*rebuilt, "tiles"));
        CHECK(built >= 1);
        CHECK(built <= 1);  // the clearance (2 columns) and ring do not reach the neighbours
    }

    TEST_CASE(
        "volume world links: every lane as the one volume graph's, and streaming queries through "
        "teleports as the whole asset with the voxels and links of unloaded tiles blocked") {
        VolumeWorld base;
        bakeVolumeWorld(6.0, 0.4f, base);
        const std::vector<geometry::LinkSpec> links = volumeLinks(base.whole, base.layout);
        VolumeWorld w;
        bakeVolumeWorld(6.0, 0.4f, w, links);
        const graph::Graph& g = w.whole;
        REQUIRE(g.links.size() >= 7);  // 4 point links and the wide one's lanes
        // The lanes: the whole graph's records, ends as its voxels, costs and types.
        std::set<std::tuple<uint32_t, uint64_t, uint64_t, float, float, uint32_t>> expected;
        for (const formats::LinkRecord& r : g.links)
            expected.insert(
                {r.id, r.from_node, r.to_node, r.cost, r.reverse_cost, uint32_t(r.type)});
        std::vector<std::array<float, 6>> points;
        CHECK(worldRecords(w.files, w.layout, g, points) == expected);
        for (const formats::LinkRecord& r : g.links) {
            const std::array<float, 6> p = {r.from[0], r.from[1], r.from[2],
                                            r.to[0],   r.to[1],   r.to[2]};
            CHECK(std::find(points.begin(), points.end(), p) != points.end());
        }
        CHECK(test::countOf(w.result, "link_lanes") == g.links.size());
        CHECK(test::countOf(w.result, "links") == links.size());
        CHECK(test::countOf(w.result, "link_lanes_crossing_tiles") >= 3);
        CHECK(test::countOf(w.result, "components") == g.header.component_count);

        // Streaming: the whole asset with its links, unloaded tiles' voxels blocked and the
        // links with an end in them.
        WholeOracle oracle;
        openOracle(g, w.dir / "whole.nav", oracle);
        const test::PackedAsset& whole = oracle.whole;
        navrt::PathQuery& query = oracle.query;
        navrt::Blocking& blocking = oracle.blocking;
        const uint64_t total = uint64_t(g.header.size_x) * g.header.size_z * g.header.size_y;
        auto tileOf = [&](uint64_t v) { return voxelTile(g, w.layout, v); };
        // Queries from and to the links' ends (so paths take them) and random free voxels.
        std::mt19937 random(5);
        std::vector<uint32_t> voxels;
        for (const formats::LinkRecord& r : g.links)
            for (uint32_t v : {r.from_node, r.to_node}) voxels.push_back(v);
        while (voxels.size() < 120) {
            const uint32_t v = uint32_t(random() % total);
            if (wholeFree(g, v)) voxels.push_back(v);
        }
        navrt::World world;
        REQUIRE_FALSE(world.initFile(w.index.string().c_str()));
        size_t found = 0, partial = 0, through_links = 0;
        for (int round = 0; round < 6; ++round) {
            std::vector<graph::WorldTileFile> order = w.files;
            std::shuffle(order.begin(), order.end(), random);
            for (const graph::WorldTileFile& f : order) world.removeTile(f.tile_x, f.tile_z);
            const size_t keep = round < 2 ? order.size() : 2 + random() % (order.size() - 1);
            for (size_t i = 0; i < keep; ++i) {
                const navrt::Error e = world.addTileFile(order[i].path.string().c_str());
                REQUIRE_MESSAGE(!e, e.message);
            }
            blockUnloaded(g, w.layout, world, blocking);
            for (uint32_t l = 0; l < g.links.size(); ++l) {
                const auto [ax, az] = tileOf(g.links[l].from_node);
                const auto [bx, bz] = tileOf(g.links[l].to_node);
                if (!world.loaded(ax, az) || !world.loaded(bx, bz)) blocking.setLink(l);
            }
            for (size_t i = 0; i < voxels.size(); ++i) {
                // Pairs: each link end with a random voxel, then random pairs.
                const uint32_t a = voxels[i];
                const uint32_t b = voxels[(i * 7 + 2 * g.links.size() + round) % voxels.size()];
                const auto [ax, az] = tileOf(a);
                const auto [bx, bz] = tileOf(b);
                if (a == b || !world.loaded(ax, az) || !world.loaded(bx, bz)) continue;
                CAPTURE(a);
                CAPTURE(b);
                const navrt::PathStatus expected_status = query.findPath(a, b);
                const navrt::PathStatus got =
                    world.findPath(whole.view.position(a), whole.view.position(b));
                CHECK(got == expected_status);
                if (got != navrt::PathStatus::found || expected_status != got) continue;
                CHECK(world.cost() == doctest::Approx(query.cost()).epsilon(1e-5));
                ++found;
                partial += keep < order.size();
                // Each link step joins the centres of its two voxels, named by its tile.
                for (const navrt::WorldPathLink& step : world.pathLinks()) {
                    ++through_links;
                    REQUIRE(step.segment + 1 < world.path().size());
                    const navrt::Vec3 a0 = world.path()[step.segment],
                                      b0 = world.path()[step.segment + 1];
                    const float* from = step.reverse ? step.link.to : step.link.from;
                    const float* to = step.reverse ? step.link.from : step.link.to;
                    CHECK(std::fabs(a0.x - from[0]) <= g.header.cell_size);
                    CHECK(std::fabs(b0.z - to[2]) <= g.header.cell_size);
                    CHECK(world.loaded(step.tile_x, step.tile_z));
                    if (step.link.id == 3) {
                        size_t length = 0;
                        const char* name =
                            world.linkTypeName(step.tile_x, step.tile_z, step.link.type, length);
                        REQUIRE(name != nullptr);
                        CHECK(std::string(name, length) == "zipline");
                        CHECK(step.link.user_data == 77);
                    }
                }
            }
        }
        MESSAGE("volume world links: ", found, " paths found (", partial, " with tiles missing), ",
                through_links, " link steps");
        CHECK(found >= 60);
        CHECK(partial >= 10);
        CHECK(through_links >= 20);

        // planTiles from the far teleport's entry to its exit: the two tiles, through the link's
        // portal pair (every tile loaded or not).
        {
            const formats::LinkRecord* teleport = nullptr;
            for (const formats::LinkRecord& r : g.links)
                if (r.id == 1) teleport = &r;
            REQUIRE(teleport != nullptr);
            std::vector<uint32_t> plan;
            REQUIRE(world.planTiles(whole.view.position(teleport->from_node),
                                    whole.view.position(teleport->to_node),
                                    plan) == navrt::PathStatus::found);
            const auto [ax, az] = tileOf(teleport->from_node);
            const auto [bx, bz] = tileOf(teleport->to_node);
            REQUIRE(plan.size() == 2);
            CHECK(plan[0] == az * world.tilesX() + ax);
            CHECK(plan[1] == bz * world.tilesX() + bx);
        }

        // Corrupt link sections under valid checksums: refused, naming the section.
        std::filesystem::path leaving;  // a tile whose first WLNK record leaves it
        for (const graph::WorldTileFile& f : w.files) {
            auto c = loadContainer(f.path);
            REQUIRE(c.ok());
            auto tiles = c->section(formats::kSecWorldLinkTiles);
            if (tiles && tiles->size() >= 8 &&
                formats::loadLe32(tiles->data()) == f.tile_z * w.layout.tiles_x + f.tile_x)
                leaving = f.path;
        }
        REQUIRE_FALSE(leaving.empty());
        {
            navrt::World fresh;
            REQUIRE_FALSE(fresh.initFile(w.index.string().c_str()));
            const std::vector<std::pair<uint32_t, std::function<void(std::vector<uint8_t>&)>>>
                edits = {
                    {formats::kSecWorldLinkTiles,
                     [](auto& b) { formats::storeLe32(b.data() + 4, 999); }},  // no such tile
                    {formats::kSecWorldLinkTiles, [](auto& b) { b.resize(b.size() - 8); }},
                    {formats::kSecWorldLinks,  // its end here outside the tile's box
                     [](auto& b) { formats::storeLe32(b.data() + 8, 0xFFFFFFF0u); }},
                };
            for (const auto& [section, edit] : edits) {
                const std::vector<uint8_t> bytes = test::withSection(leaving, section, edit);
                const navrt::Error e = fresh.addTile(bytes.data(), bytes.size());
                REQUIRE(e);
                CHECK_MESSAGE(std::string(e.message).find("WLTI") != std::string::npos, e.message);
                CHECK(fresh.loadedCount() == 0);
            }
            CHECK_FALSE(fresh.addTileFile(leaving.string().c_str()));
        }

        // A rebake builds nothing; moving the in-tile teleport's end rebuilds only its tile.
        Context context;
        graph::WorldStage::Params p;
        p.kind = graph::GraphKind::volume;
        p.agent_radius = 0.4f;
        p.tile_size = 6.0;
        p.links = links;
        auto again = graph::WorldStage::run({w.dir / "i.vox"}, p, w.index, context);
        REQUIRE(again.ok());
        CHECK(test::countOf(*again, "tiles_built") == 0);
        p.links[1].to[1] += 0.2f;  // a layer up: the same tile, another voxel
        auto moved = graph::WorldStage::run({w.dir / "i.vox"}, p, w.index, context);
        REQUIRE_MESSAGE(moved.ok(), moved.error().message);
        CHECK(test::countOf(*moved, "tiles_built") == 1);
        // A link whose end is in no free voxel within its snap: the one graph's message.
        p.links = links;
        p.links[0].to[1] = w.grid.origin[1] - 50.0f;
        auto off = graph::WorldStage::run({w.dir / "i.vox"}, p, w.dir / "off.world", context);
        REQUIRE_FALSE(off.ok());
        CHECK(off.error().message.find("link 1: its end") != std::string::npos);
    }
}
