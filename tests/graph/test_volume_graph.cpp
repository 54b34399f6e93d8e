#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A W x H x D map with the listed voxels blocked.
importer::VoxelMap3D makeMap(uint32_t w, uint32_t h, uint32_t d,
                             const std::vector<std::array<uint32_t, 3>>& blocked) {
    importer::VoxelMap3D map;
    map.width = w;
    map.height = h;
    map.depth = d;
    map.blocked.assign(size_t(w) * h * d, 0);
    for (const auto& v : blocked) map.blocked[(size_t(v[1]) * d + v[2]) * w + v[0]] = 1;
    return map;
}

graph::Graph build(const importer::VoxelMap3D& map, float radius = 0.0f) {
    Context context;
    auto g = graph::buildVolumeGraph(importer::gridFromVoxelMap(map), radius, context);
    REQUIRE(g.ok());
    return std::move(g).value();
}

size_t voxelIndex(const importer::VoxelMap3D& m, uint32_t x, uint32_t y, uint32_t z) {
    return (size_t(y) * m.depth + z) * m.width + x;
}

bool freeBit(const graph::Graph& g, size_t v) { return (g.free_voxels[v / 64] >> (v % 64)) & 1; }

size_t freeCount(const graph::Graph& g) {
    size_t count = 0;
    for (uint64_t w : g.free_voxels) count += size_t(std::popcount(w));
    return count;
}

// Deterministic pseudo-random map (own LCG) for the reference comparisons.
importer::VoxelMap3D randomMap(uint32_t w, uint32_t h, uint32_t d, uint32_t percent,
                               uint32_t seed) {
    importer::VoxelMap3D map = makeMap(w, h, d, {});
    uint64_t state = seed;
    for (uint8_t& b : map.blocked) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        b = uint8_t((state >> 33) % 100 < percent);
    }
    return map;
}

// Straightforward reference: free voxels by checking the whole (2r+1)^3 box, components by
// union-find over every allowed move, checking every voxel of the move's box.
struct Reference {
    std::vector<uint8_t> free;
    std::vector<uint32_t> components;
    uint32_t count = 0;
    uint32_t largest = 0;
};

Reference reference(const importer::VoxelMap3D& m, int r) {
    const int w = int(m.width), h = int(m.height), d = int(m.depth);
    const size_t n = m.blocked.size();
    Reference ref;
    ref.free.assign(n, 0);
    auto inside = [&](int x, int y, int z) {
        return x >= 0 && y >= 0 && z >= 0 && x < w && y < h && z < d;
    };
    for (int y = 0; y < h; ++y)
        for (int z = 0; z < d; ++z)
            for (int x = 0; x < w; ++x) {
                bool ok = true;
                for (int dy = -r; dy <= r && ok; ++dy)
                    for (int dz = -r; dz <= r && ok; ++dz)
                        for (int dx = -r; dx <= r && ok; ++dx)
                            ok = inside(x + dx, y + dy, z + dz) &&
                                 !m.isBlocked(uint32_t(x + dx), uint32_t(y + dy), uint32_t(z + dz));
                ref.free[voxelIndex(m, uint32_t(x), uint32_t(y), uint32_t(z))] = ok;
            }
    auto isFree = [&](int x, int y, int z) {
        return inside(x, y, z) && ref.free[voxelIndex(m, uint32_t(x), uint32_t(y), uint32_t(z))];
    };
    std::vector<size_t> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = i;
    auto find = [&](size_t v) {
        while (parent[v] != v) v = parent[v];
        return v;
    };
    for (int y = 0; y < h; ++y)
        for (int z = 0; z < d; ++z)
            for (int x = 0; x < w; ++x) {
                if (!isFree(x, y, z)) continue;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz)
                        for (int dx = -1; dx <= 1; ++dx) {
                            bool ok = true;
                            for (int by = 0; by <= 1; ++by)
                                for (int bz = 0; bz <= 1; ++bz)
                                    for (int bx = 0; bx <= 1; ++bx)
                                        ok = ok && isFree(x + bx * dx, y + by * dy, z + bz * dz);
                            if (!ok) continue;
                            const size_t a =
                                find(voxelIndex(m, uint32_t(x), uint32_t(y), uint32_t(z)));
                            const size_t b = find(voxelIndex(m, uint32_t(x + dx), uint32_t(y + dy),
                                                             uint32_t(z + dz)));
                            parent[std::max(a, b)] = std::min(a, b);
                        }
            }
    ref.components.assign(n, graph::kNoNode);
    std::vector<uint32_t> id_of_root(n, graph::kNoNode);
    std::vector<uint32_t> sizes;
    for (size_t v = 0; v < n; ++v) {
        if (!ref.free[v]) continue;
        const size_t root = find(v);
        if (id_of_root[root] == graph::kNoNode) {
            id_of_root[root] = uint32_t(sizes.size());
            sizes.push_back(0);
        }
        ref.components[v] = id_of_root[root];
        ++sizes[id_of_root[root]];
    }
    ref.count = uint32_t(sizes.size());
    ref.largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    return ref;
}

void checkAgainstReference(const importer::VoxelMap3D& map, float radius, int r) {
    const graph::Graph g = build(map, radius);
    const Reference ref = reference(map, r);
    for (size_t v = 0; v < map.blocked.size(); ++v) {
        INFO("voxel " << v);
        REQUIRE(freeBit(g, v) == (ref.free[v] != 0));
        REQUIRE(g.components[v] == ref.components[v]);
    }
    CHECK(g.header.component_count == ref.count);
    CHECK(g.header.largest_component == ref.largest);
}

}  // namespace

TEST_SUITE("graph") {
    TEST_CASE("volume graph: header, free bits and two sealed chambers") {
        // 5 x 3 x 3 with the plane x = 2 solid: chambers x in {0, 1} and x in {3, 4}.
        std::vector<std::array<uint32_t, 3>> wall;
        for (uint32_t y = 0; y < 3; ++y)
            for (uint32_t z = 0; z < 3; ++z) wall.push_back({2, y, z});
        const auto map = makeMap(5, 3, 3, wall);
        const graph::Graph g = build(map);
        const formats::GraphHeader& h = g.header;
        CHECK(h.type == formats::GraphType::volume);
        CHECK(h.flags == formats::kGraphFlagImplicitVolume);
        CHECK(h.heuristic == formats::HeuristicKind::euclidean);
        CHECK(h.min_cost_multiplier == 1.0f);
        CHECK(h.size_x == 5);
        CHECK(h.size_y == 3);
        CHECK(h.size_z == 3);
        CHECK(h.cell_size == 1.0f);
        CHECK(h.cell_height == 1.0f);
        CHECK(h.agent_radius == 0.0f);
        CHECK(h.node_count == 45);
        CHECK(h.edge_count == 0);
        CHECK(g.nodeCount() == 45);
        CHECK(g.positions.empty());
        CHECK(g.cells.empty());
        CHECK(g.edge_targets.empty());
        CHECK(g.edge_offsets.empty());
        CHECK(g.areas == importer::gridFromVoxelMap(map).areas);

        REQUIRE(g.free_voxels.size() == 1);
        CHECK((g.free_voxels[0] >> 45) == 0);  // padding bits are zero
        CHECK(freeCount(g) == 36);
        REQUIRE(g.components.size() == 45);
        CHECK(h.component_count == 2);
        CHECK(h.largest_component == 18);
        for (uint32_t y = 0; y < 3; ++y)
            for (uint32_t z = 0; z < 3; ++z)
                for (uint32_t x = 0; x < 5; ++x) {
                    const size_t v = voxelIndex(map, x, y, z);
                    CHECK(freeBit(g, v) == (x != 2));
                    CHECK(g.components[v] == (x < 2 ? 0u : x == 2 ? graph::kNoNode : 1u));
                }
    }

    TEST_CASE("volume graph: a diagonal through a blocked corner does not connect") {
        SUBCASE("horizontal diagonal past two blocked voxels") {
            // 2 x 1 x 2: (0,0,0) and (1,0,1) free, the other two blocked.
            const graph::Graph g = build(makeMap(2, 1, 2, {{1, 0, 0}, {0, 0, 1}}));
            CHECK(g.header.component_count == 2);
            CHECK(g.header.largest_component == 1);
            CHECK(g.components == std::vector<uint32_t>{0, graph::kNoNode, graph::kNoNode, 1});
        }
        SUBCASE("horizontal diagonal with one side blocked") {
            // Only (1,0,0) blocked: (0,0,0) - (0,0,1) - (1,0,1) still connect through faces.
            const graph::Graph g = build(makeMap(2, 1, 2, {{1, 0, 0}}));
            CHECK(g.header.component_count == 1);
            CHECK(g.header.largest_component == 3);
        }
        SUBCASE("vertical edge diagonal") {
            // 2 x 2 x 1: (0,0,0) and (1,1,0) free, (1,0,0) and (0,1,0) blocked.
            const graph::Graph g = build(makeMap(2, 2, 1, {{1, 0, 0}, {0, 1, 0}}));
            CHECK(g.header.component_count == 2);
        }
        SUBCASE("3D corner diagonal") {
            // 2 x 2 x 2 with only (0,0,0) and (1,1,1) free.
            std::vector<std::array<uint32_t, 3>> blocked;
            for (uint32_t v = 1; v < 7; ++v) blocked.push_back({v & 1, (v >> 1) & 1, (v >> 2) & 1});
            const auto map = makeMap(2, 2, 2, blocked);
            CHECK(map.blockedCount() == 6);
            const graph::Graph g = build(map);
            CHECK(freeCount(g) == 2);
            CHECK(g.header.component_count == 2);
            CHECK(g.components[voxelIndex(map, 0, 0, 0)] == 0);
            CHECK(g.components[voxelIndex(map, 1, 1, 1)] == 1);
        }
        SUBCASE("3D corner diagonal with the box free except one voxel") {
            // All free but (1,1,0): the corner move (0,0,0)->(1,1,1) is not allowed, yet the voxels
            // stay connected through the others.
            const graph::Graph g = build(makeMap(2, 2, 2, {{1, 1, 0}}));
            CHECK(g.header.component_count == 1);
            CHECK(g.header.largest_component == 7);
        }
    }

    TEST_CASE("volume graph: agent radius erodes the free space") {
        // 7 x 7 x 7 open box with one solid voxel in the middle.
        const auto map = makeMap(7, 7, 7, {{3, 3, 3}});
        const graph::Graph g0 = build(map, 0.0f);
        CHECK(freeCount(g0) == 342);
        CHECK(g0.header.component_count == 1);

        // r = 1: the outer layer (outside-the-grid neighbours) and the 27 voxels around the solid
        // one are not free; what remains is a hollow 5^3 - 3^3 shell.
        for (float radius : {0.3f, 1.0f}) {
            const graph::Graph g = build(map, radius);
            CHECK(g.header.agent_radius == radius);
            CHECK(freeCount(g) == 125 - 27);
            CHECK(g.header.component_count == 1);
            CHECK(g.header.largest_component == 98);
            CHECK_FALSE(freeBit(g, voxelIndex(map, 0, 3, 3)));
            CHECK(freeBit(g, voxelIndex(map, 1, 1, 1)));
            CHECK_FALSE(freeBit(g, voxelIndex(map, 2, 2, 2)));
            CHECK(freeBit(g, voxelIndex(map, 1, 3, 3)));
            CHECK(g.components[voxelIndex(map, 2, 2, 2)] == graph::kNoNode);
        }

        // r = 2: nothing fits.
        const graph::Graph g2 = build(map, 1.5f);
        CHECK(freeCount(g2) == 0);
        CHECK(g2.header.component_count == 0);
        CHECK(g2.header.largest_component == 0);

        // A 3-wide corridor split by a 1-voxel pillar: radius 1 cannot pass it.
        std::vector<std::array<uint32_t, 3>> blocked;
        for (uint32_t x = 0; x < 9; ++x)  // solid floor and ceiling rows around a 3 x 3 tube
            for (uint32_t y = 0; y < 5; ++y)
                for (uint32_t z = 0; z < 5; ++z)
                    if (y == 0 || y == 4 || z == 0 || z == 4) blocked.push_back({x, y, z});
        const auto open = makeMap(9, 5, 5, blocked);
        const graph::Graph open1 = build(open, 1.0f);
        CHECK(freeCount(open1) == 7);  // the centre line, away from the grid's ends
        CHECK(open1.header.component_count == 1);
        blocked.push_back({4, 2, 2});
        const auto tube = makeMap(9, 5, 5, blocked);
        const graph::Graph t0 = build(tube);
        CHECK(t0.header.component_count == 1);
        CHECK(freeCount(t0) == 9 * 9 - 1);
        const graph::Graph t1 = build(tube, 1.0f);
        CHECK(freeCount(t1) == 4);  // x = 1, 2 and 6, 7 on the centre line
        CHECK(t1.header.component_count == 2);
        CHECK(t1.components[voxelIndex(tube, 2, 2, 2)] == 0);
        CHECK(t1.components[voxelIndex(tube, 6, 2, 2)] == 1);

        Context context;
        auto negative = graph::buildVolumeGraph(importer::gridFromVoxelMap(map), -1.0f, context);
        REQUIRE_FALSE(negative.ok());
        CHECK(negative.error().kind == ErrorKind::usage);
    }

    TEST_CASE("volume graph matches a brute-force reference on random maps") {
        for (uint32_t seed = 1; seed <= 6; ++seed) {
            INFO("seed " << seed);
            const auto map = randomMap(9 + seed % 3, 6 + seed % 2, 8, 20 + 5 * seed, seed);
            checkAgainstReference(map, 0.0f, 0);
            checkAgainstReference(map, 0.8f, 1);
        }
        // Sparse enough for radius 1 to leave free voxels and several components.
        const auto sparse = randomMap(16, 12, 14, 2, 99);
        checkAgainstReference(sparse, 1.0f, 1);
        checkAgainstReference(sparse, 0.0f, 0);
    }

    TEST_CASE("volume graph: cancellation is reported") {
        Context context;
        context.requestCancel();
        auto g = graph::buildVolumeGraph(importer::gridFromVoxelMap(randomMap(8, 8, 8, 10, 3)),
                                         0.0f, context);
        REQUIRE_FALSE(g.ok());
        CHECK(g.error().kind == ErrorKind::cancelled);
    }

    TEST_CASE("volume graph save/load round trip and deterministic bytes") {
        test::TempDir dir;
        const auto map = randomMap(13, 7, 11, 25, 42);  // 1001 voxels: a partial last word
        const graph::Graph g = build(map, 0.0f);
        REQUIRE(g.header.component_count > 1);
        REQUIRE(graph::saveGraph(dir / "a.graph", g).ok());
        REQUIRE(graph::saveGraph(dir / "b.graph", g).ok());
        CHECK(test::readBytes(dir / "a.graph") == test::readBytes(dir / "b.graph"));

        auto loaded = graph::loadGraph(dir / "a.graph");
        REQUIRE(loaded.ok());
        const graph::Graph& l = *loaded;
        CHECK(l.header.type == g.header.type);
        CHECK(l.header.flags == g.header.flags);
        CHECK(l.header.node_count == g.header.node_count);
        CHECK(l.header.edge_count == 0);
        CHECK(l.header.component_count == g.header.component_count);
        CHECK(l.header.largest_component == g.header.largest_component);
        CHECK(l.header.heuristic == g.header.heuristic);
        CHECK(l.header.min_cost_multiplier == g.header.min_cost_multiplier);
        CHECK(l.header.size_x == g.header.size_x);
        CHECK(l.header.size_y == g.header.size_y);
        CHECK(l.header.size_z == g.header.size_z);
        CHECK(l.header.cell_size == g.header.cell_size);
        CHECK(l.header.cell_height == g.header.cell_height);
        CHECK(l.header.agent_radius == g.header.agent_radius);
        CHECK(l.header.agent_height == g.header.agent_height);
        CHECK(std::equal(l.header.origin, l.header.origin + 3, g.header.origin));
        CHECK(l.free_voxels == g.free_voxels);
        CHECK(l.components == g.components);
        CHECK(l.areas == g.areas);
        CHECK(l.positions.empty());
        CHECK(l.cells.empty());
        CHECK(l.edge_targets.empty());
        CHECK(l.nodeCount() == 1001);

        // Saving what was loaded gives the same bytes again.
        REQUIRE(graph::saveGraph(dir / "c.graph", l).ok());
        CHECK(test::readBytes(dir / "c.graph") == test::readBytes(dir / "a.graph"));
    }

    TEST_CASE("volume graph of the sample maze3d level") {
        auto map = importer::loadVoxelMap3D(test::sampleLevels() / "maze3d.3dmap");
        REQUIRE(map.ok());
        const graph::Graph g = build(*map);
        CHECK(freeCount(g) == map->blocked.size() - map->blockedCount());
        CHECK(g.header.component_count >= 1);
        // Most of the free space is one connected maze.
        CHECK(g.header.largest_component * 2 > freeCount(g));

        // Every scenario joins two free voxels of one component, and its optimal length is the
        // shortest path under the movement rule (Dijkstra over the graph's free bits).
        auto scen = importer::loadScenario3D(test::sampleLevels() / "maze3d.3dscen");
        REQUIRE(scen.ok());
        REQUIRE(!scen->entries.empty());
        const int w = int(map->width), h = int(map->height), d = int(map->depth);
        auto isFree = [&](int x, int y, int z) {
            return x >= 0 && y >= 0 && z >= 0 && x < w && y < h && z < d &&
                   freeBit(g, voxelIndex(*map, uint32_t(x), uint32_t(y), uint32_t(z)));
        };
        for (size_t i = 0; i < scen->entries.size(); ++i) {
            const importer::Scenario3D& e = scen->entries[i];
            INFO("scenario line " << e.line);
            const size_t start = voxelIndex(*map, e.start[0], e.start[1], e.start[2]);
            const size_t goal = voxelIndex(*map, e.goal[0], e.goal[1], e.goal[2]);
            REQUIRE(g.components[start] != graph::kNoNode);
            CHECK(g.components[start] == g.components[goal]);
            if (i % 10 != 0) continue;  // a sample of full searches keeps the test quick
            std::vector<double> dist(map->blocked.size(), 1e300);
            using Entry = std::pair<double, size_t>;
            std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
            dist[start] = 0;
            open.push({0.0, start});
            while (!open.empty()) {
                const auto [dv, v] = open.top();
                open.pop();
                if (dv > dist[v]) continue;
                if (v == goal) break;
                const int x = int(v % size_t(w)), z = int((v / size_t(w)) % size_t(d));
                const int y = int(v / (size_t(w) * size_t(d)));
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz)
                        for (int dx = -1; dx <= 1; ++dx) {
                            bool ok = dx != 0 || dy != 0 || dz != 0;
                            for (int b = 0; b < 8 && ok; ++b)
                                ok = isFree(x + (b & 1) * dx, y + ((b >> 1) & 1) * dy,
                                            z + ((b >> 2) & 1) * dz);
                            if (!ok) continue;
                            const size_t t = voxelIndex(*map, uint32_t(x + dx), uint32_t(y + dy),
                                                        uint32_t(z + dz));
                            const double nd = dv + std::sqrt(double(dx * dx + dy * dy + dz * dz));
                            if (nd < dist[t]) {
                                dist[t] = nd;
                                open.push({nd, t});
                            }
                        }
            }
            CHECK(dist[goal] == doctest::Approx(e.optimal_length).epsilon(1e-9));
            double straight = 0;
            for (int axis = 0; axis < 3; ++axis)
                straight += std::pow(double(e.goal[axis]) - double(e.start[axis]), 2);
            straight = std::sqrt(straight);
            CHECK(e.ratio == doctest::Approx(e.optimal_length / straight).epsilon(1e-7));
        }
    }
}
