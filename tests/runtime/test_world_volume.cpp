// Volume world tiles (issue 17): each tile's free flags (its columns and the ring around them)
// are the whole volume graph's, bit for bit; navrt::World streams them and answers as the whole
// volume asset with the voxels of unloaded tiles blocked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

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

void bakeVolumeWorld(double tile_size, float radius, VolumeWorld& out) {
    Context context;
    out.grid = test::importAndVoxelize("indoor_two_floors.glb", out.dir.path());
    out.layout = graph::worldLayout(out.grid, tile_size);
    graph::WorldStage::Params p;
    p.kind = graph::GraphKind::volume;
    p.agent_radius = radius;
    p.tile_size = tile_size;
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
}

constexpr uint32_t kNoNodeV = 0xFFFFFFFFu;

bool wholeFree(const graph::Graph& g, uint64_t v) {
    return (g.free_voxels[v >> 6] >> (v & 63)) & 1;
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
        test::PackedAsset whole;
        test::packAsset(w.whole, w.dir / "whole.nav", whole, [](auto&) {});
        REQUIRE_FALSE(whole.error);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(whole.view));
        navrt::Blocking blocking;
        REQUIRE_FALSE(blocking.init(whole.view));
        REQUIRE_FALSE(query.setBlocking(&blocking));
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
        auto tileOf = [&](uint32_t v) {
            const uint32_t x = v % sx, z = (v / sx) % sz;
            return std::pair{x / w.layout.tile_cells, z / w.layout.tile_cells};
        };
        size_t compared = 0, found = 0, partial = 0;
        for (int round = 0; round < 5; ++round) {
            std::vector<graph::WorldTileFile> order = w.files;
            std::shuffle(order.begin(), order.end(), random);
            for (const graph::WorldTileFile& f : order) world.removeTile(f.tile_x, f.tile_z);
            const size_t keep = round == 0 ? order.size() : 2 + random() % (order.size() - 1);
            for (size_t i = 0; i < keep; ++i)
                REQUIRE_FALSE(world.addTileFile(order[i].path.string().c_str()));
            blocking.clear();
            for (uint64_t v = 0; v < total; ++v) {
                const auto [tx, tz] = tileOf(uint32_t(v));
                if (wholeFree(g, v) && !world.loaded(tx, tz)) blocking.setNode(uint32_t(v));
            }
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
}
