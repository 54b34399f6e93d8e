// Golden files (issue 19): tests/data holds one small artifact of every kind and kind version,
// kept as the release that wrote it wrote it (tests/data/make_golden.sh). The current code must
// read each: the bake side's loaders, navrt's loader and typed views, searches with every method
// the asset has, and a world from its index and tiles. A new kind version without a golden file
// fails "every kind version has a golden file"; a change that breaks an old file fails here (the
// rule: bump the version and keep the old reader path, FORMAT.md "Versions each release reads").
// tests/data/check_golden.sh (CTest cli.golden_files) compares `navbake inspect --json` of each
// with what it gave when the file was added.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "formats/container.h"
#include "formats/layouts.h"
#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/geometry/geometry.h"
#include "lib/graph/graph.h"
#include "lib/inspect/inspect.h"
#include "lib/nexthop/nexthop.h"
#include "lib/runtime/c/navrt.h"
#include "lib/runtime/navrt.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;
namespace fs = std::filesystem;

namespace {

const fs::path kData = NAVBAKE_TEST_DATA;

bool isArtifact(const fs::path& p) {
    const std::string name = p.filename().string();
    for (const char* skip : {".json", ".sh", ".py", ".md"})
        if (name.ends_with(skip)) return false;
    return fs::is_regular_file(p);
}

// Every golden artifact with its kind and kind version.
struct Golden {
    fs::path path;
    uint32_t kind = 0, version = 0;
};
std::vector<Golden> goldenFiles() {
    std::vector<Golden> out;
    for (const auto& entry : fs::directory_iterator(kData)) {
        if (!isArtifact(entry.path())) continue;
        const std::vector<uint8_t> bytes = test::readBytes(entry.path());
        formats::Container c;
        const formats::Error e = formats::parseContainer(bytes.data(), bytes.size(), c);
        INFO(entry.path().filename().string() << ": " << e.message);
        REQUIRE_FALSE(e);
        out.push_back({entry.path(), c.kind, c.kind_version});
    }
    std::sort(out.begin(), out.end(),
              [](const Golden& a, const Golden& b) { return a.path < b.path; });
    return out;
}

std::string kindName(uint32_t kind) {
    char s[5];
    formats::fourccToString(kind, s);
    return s;
}

navrt_vec3 nodePoint(const navrt_asset* asset, uint32_t node) {
    navrt_vec3 p{};
    REQUIRE(navrt_asset_node_position(asset, node, &p));
    return p;
}

}  // namespace

TEST_SUITE("golden") {
    TEST_CASE("every kind version has a golden file") {
        const std::map<uint32_t, uint32_t> newest = {
            {formats::kKindGeometry, formats::kGeometryStripExtentsVersion},
            {formats::kKindVoxels, formats::kVoxelsVersion},
            {formats::kKindGraph, formats::kGraphVersion},
            {formats::kKindNav, formats::kNavVersion},
            {formats::kKindClusters, formats::kClustersVersion},
            {formats::kKindHierarchy, formats::kHierarchyVersion},
            {formats::kKindNextHop, formats::kNextHopVersion},
            {formats::kKindHierNextHop, formats::kHierNextHopVersion},
            {formats::kKindWorld, formats::kWorldVersion}};
        std::set<std::pair<uint32_t, uint32_t>> have;
        for (const Golden& g : goldenFiles()) {
            INFO(g.path.filename().string());
            CHECK(newest.count(g.kind) == 1);
            have.insert({g.kind, g.version});
        }
        for (const auto& [kind, last] : newest)
            for (uint32_t v = 1; v <= last; ++v) {
                INFO("tests/data needs a golden " << kindName(kind) << " version " << v
                                                  << " (tests/data/make_golden.sh)");
                CHECK(have.count({kind, v}) == 1);
            }
    }

    TEST_CASE("the bake side reads every golden file") {
        const fs::path clusters_path = kData / "clus-v1.clu";
        auto clusters = cluster::loadClusters(clusters_path);
        REQUIRE(clusters.ok());
        for (const Golden& g : goldenFiles()) {
            INFO(g.path.filename().string());
            auto inspected = inspect::inspectArtifact(g.path);
            REQUIRE(inspected.ok());
            CHECK(inspected.value().all_checksums_ok);
            CHECK(inspected.value().report["errors"].empty());
            if (g.kind == formats::kKindGeometry && g.version <= formats::kGeometryVersion) {
                auto geometry = geometry::loadGeometry(g.path);
                REQUIRE(geometry.ok());
                CHECK(geometry.value().triangleCount() > 0);
            } else if (g.kind == formats::kKindGeometry) {
                CHECK(inspected.value().report["stats"]["triangles"].get<uint64_t>() > 0);
            } else if (g.kind == formats::kKindVoxels) {
                auto grid = voxel::loadVoxels(g.path);
                REQUIRE(grid.ok());
                CHECK(grid.value().spans.size() > 0);
            } else if (g.kind == formats::kKindGraph) {
                auto graph = graph::loadGraph(g.path);
                REQUIRE(graph.ok());
                CHECK(graph.value().nodeCount() > 0);
            } else if (g.kind == formats::kKindClusters) {
                CHECK(clusters.value().cluster_nodes.size() > 1);
            } else if (g.kind == formats::kKindHierarchy) {
                auto h = cluster::loadHierarchy(g.path, clusters.value(), clusters_path);
                REQUIRE(h.ok());
            } else if (g.kind == formats::kKindNextHop) {
                auto t = nexthop::loadTable(g.path);
                REQUIRE(t.ok());
                CHECK(t.value().ranks.size() > 0);
            } else if (g.kind == formats::kKindHierNextHop) {
                CHECK(nexthop::loadHierTable(g.path).ok());
            }
        }
    }

    TEST_CASE("navrt loads every golden asset and searches with each of its methods") {
        int assets = 0;
        for (const Golden& g : goldenFiles()) {
            if (g.kind != formats::kKindNav) continue;
            INFO(g.path.filename().string());
            const std::vector<uint8_t> bytes = test::readBytes(g.path);
            navrt::Asset asset;
            const navrt::Error e = navrt::loadFromMemory(bytes.data(), bytes.size(), asset);
            INFO(e.message);
            REQUIRE_FALSE(e);
            navrt::GraphView view;
            REQUIRE_FALSE(navrt::viewGraph(asset, view));
            if (g.path.filename().string().starts_with("wrld-")) continue;  // world tiles: below
            ++assets;
            navrt_asset* c = nullptr;
            REQUIRE(navrt_asset_load_memory(bytes.data(), bytes.size(), nullptr, &c, nullptr) ==
                    NAVRT_OK);
            const uint32_t n = navrt_asset_node_count(c);
            REQUIRE(n > 1);
            // From node 0 to the farthest node of its component, with every method the asset has:
            // the exact ones agree on the cost, the hierarchy is no cheaper.
            uint32_t goal = 0;
            for (uint32_t v = 0; v < n; ++v)
                if (view.isFree(v) && view.components != nullptr &&
                    view.components[v] == view.components[0])
                    goal = v;
            const navrt_vec3 from = nodePoint(c, 0), to = nodePoint(c, goal);
            double astar = -1;
            int methods = 0;
            navrt_locate_options locate;
            navrt_locate_options_init(&locate);
            locate.snap = 1.0f;  // a POV node is a corner, beside the walkable cells
            const bool hierarchical_table = asset.find(formats::kSecHierHopHeader).data != nullptr;
            for (int m = NAVRT_METHOD_ASTAR; m <= NAVRT_METHOD_JPS; ++m) {
                if (navrt_asset_supports(c, navrt_method(m), nullptr) != NAVRT_OK) continue;
                INFO("method " << std::string(navrt_method_name(navrt_method(m))));
                navrt_navigator_options options;
                navrt_navigator_options_init(&options);
                options.method = navrt_method(m);
                navrt_navigator* nav = nullptr;
                REQUIRE(navrt_navigator_create(c, &options, &nav, nullptr) == NAVRT_OK);
                CHECK(navrt_find_path(nav, from, to, &locate, 0, goal) == NAVRT_PATH_FOUND);
                const double cost = navrt_path_result(nav).cost;
                if (m == NAVRT_METHOD_ASTAR)
                    astar = cost;
                else if (m == NAVRT_METHOD_HIER ||
                         (m == NAVRT_METHOD_NEXTHOP && hierarchical_table))
                    CHECK(cost >= astar - 1e-6);  // near-optimal methods
                else if (m != NAVRT_METHOD_EXACT)
                    CHECK(cost == doctest::Approx(astar).epsilon(1e-5));
                navrt_navigator_free(nav);
                ++methods;
            }
            CHECK(methods >= 1);
            if (g.path.filename() == "nava-v1-tables.nav") CHECK(methods == 5);
            navrt_asset_free(c);
        }
        CHECK(assets >= 7);
    }

    TEST_CASE("navrt streams the golden world from its index and tiles") {
        const std::vector<uint8_t> index = test::readBytes(kData / "wrld-v1.world");
        navrt_world* world = nullptr;
        REQUIRE(navrt_world_load_memory(index.data(), index.size(), nullptr, &world, nullptr) ==
                NAVRT_OK);
        uint32_t tiles_x = 0, tiles_z = 0;
        navrt_world_tiles(world, &tiles_x, &tiles_z);
        uint32_t added = 0;
        for (const Golden& g : goldenFiles()) {
            if (!g.path.filename().string().starts_with("wrld-v1-tile.")) continue;
            const std::vector<uint8_t> tile = test::readBytes(g.path);
            navrt_error error;
            INFO(g.path.filename().string());
            REQUIRE(navrt_world_add_tile_memory(world, tile.data(), tile.size(), &error) ==
                    NAVRT_OK);
            ++added;
        }
        CHECK(added == tiles_x * tiles_z);
        CHECK(navrt_world_loaded_count(world) == added);
        // Across the whole ground floor, tile to tile.
        float extent[4];
        navrt_world_extent(world, extent);
        const navrt_vec3 from{extent[0] + 1.5f, 0.0f, extent[1] + 1.5f};
        const navrt_vec3 to{extent[2] - 1.5f, 0.0f, extent[3] - 1.5f};
        REQUIRE(navrt_world_find_path(world, from, to) == NAVRT_PATH_FOUND);
        CHECK(navrt_world_path_cost(world) > 0.9 * std::hypot(to.x - from.x, to.z - from.z));
        navrt_world_free(world);
    }

}  // TEST_SUITE
