// Acceptance (issue 16): navrt::Navigator's time-sliced search returns, in steps of any size, the
// path one call returns (tile, volume, navmesh with links, POV graphs), and a search stopped early
// (a budget, finish()) gives its best partial path.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt_navigator.h"
#include "tests/graph_test_support.h"
#include "tests/runtime/navigator_levels.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

struct Level {
    std::string name;
    test::PackedAsset packed;
};

// A point near a random node of the graph (within half a metre across, on its floor).
navrt::Vec3 randomPoint(const navrt::GraphView& g, std::mt19937& random) {
    std::uniform_int_distribution<uint32_t> node(0, g.nodeCount() - 1);
    std::uniform_real_distribution<float> jitter(-0.5f, 0.5f);
    uint32_t v = node(random);
    while (!g.isFree(v)) v = node(random);
    const navrt::Vec3 p = g.position(v);
    return {p.x + jitter(random), p.y, p.z + jitter(random)};
}

std::vector<std::unique_ptr<Level>> levels(const test::TempDir& dir) {
    std::vector<std::unique_ptr<Level>> out;
    auto add = [&](const std::string& name, const graph::Graph& g) {
        auto level = std::make_unique<Level>();
        level->name = name;
        test::packAsset(g, dir / (name + ".nav"), level->packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(level->packed.error);
        out.push_back(std::move(level));
    };
    add("tile", test::tileGraphOfText(test::roomsMapText(5), "rooms.map"));
    add("navmesh", test::platformsMesh());
    {
        Context context;
        auto mesh = graph::buildNavmeshGraph(test::serpentineGrid(), {}, context);
        REQUIRE(mesh.ok());
        add("serpentine navmesh", *mesh);
    }
    {
        const voxel::VoxelGrid grid = test::platformsGrid();
        Context context;
        auto pov = graph::buildPovGraph(grid, {}, context);
        REQUIRE(pov.ok());
        test::attachPlatformLinks(grid, *pov);
        add("pov", *pov);
    }
    {
        auto map = importer::loadVoxelMap3D(test::sampleLevels() / "maze3d.3dmap");
        REQUIRE(map.ok());
        Context context;
        auto volume = graph::buildVolumeGraph(importer::gridFromVoxelMap(*map), 0.0f, context);
        REQUIRE(volume.ok());
        add("volume", *volume);
    }
    return out;
}

std::vector<navrt::Vec3> straight(const navrt::Navigator& n, std::vector<uint32_t>* links) {
    std::vector<navrt::Vec3> points(n.straightPath(nullptr, 0));
    std::vector<uint32_t> l(points.size());
    n.straightPath(points.data(), uint32_t(points.size()), l.data());
    if (links != nullptr) *links = l;
    return points;
}

bool samePoints(const std::vector<navrt::Vec3>& a, const std::vector<navrt::Vec3>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].x != b[i].x || a[i].y != b[i].y || a[i].z != b[i].z) return false;
    return true;
}

}  // namespace

TEST_SUITE("navigator") {
    TEST_CASE(
        "sliced search in steps of 1..N returns the path one call returns, on every graph kind") {
        test::TempDir dir;
        for (const auto& level : levels(dir)) {
            INFO(level->name);
            const navrt::GraphView& g = level->packed.view;
            navrt::Navigator whole, sliced;
            REQUIRE_FALSE(whole.init(g));
            REQUIRE_FALSE(sliced.init(g));
            navrt::LocateOptions locate;
            locate.snap = 1.5f;
            std::mt19937 random(17);
            int found = 0, long_searches = 0;
            for (int trial = 0; trial < 40; ++trial) {
                const navrt::Vec3 a = randomPoint(g, random), b = randomPoint(g, random);
                const navrt::NavStatus one = whole.findPath(a, b, locate);
                std::vector<uint32_t> whole_links;
                const std::vector<navrt::Vec3> whole_path = straight(whole, &whole_links);
                found += one == navrt::NavStatus::found;
                long_searches += whole.expansions() > 16;
                for (uint32_t step : {1u, 2u, 3u, 7u, 64u, 256u}) {
                    INFO("step " << step);
                    navrt::NavStatus s = sliced.beginPath(a, b, locate);
                    uint32_t calls = 0;
                    while (s == navrt::NavStatus::in_progress) {
                        s = sliced.step(step);
                        ++calls;
                        REQUIRE(calls <= whole.expansions() + 2);
                    }
                    REQUIRE(s == one);
                    CHECK(sliced.expansions() == whole.expansions());
                    CHECK(sliced.cost() == whole.cost());
                    REQUIRE(sliced.nodeCount() == whole.nodeCount());
                    for (uint32_t i = 0; i < whole.nodeCount(); ++i)
                        CHECK(sliced.nodes()[i] == whole.nodes()[i]);
                    std::vector<uint32_t> sliced_links;
                    CHECK(samePoints(straight(sliced, &sliced_links), whole_path));
                    CHECK(sliced_links == whole_links);
                    // Each call but the last ran `step` expansions: the search really is sliced.
                    if (one == navrt::NavStatus::found && calls > 0)
                        CHECK(calls == (whole.expansions() + step - 1) / step);
                }
            }
            MESSAGE(level->name, ": ", found, " of 40 found, ", long_searches,
                    " searches of over 16 expansions");
            CHECK(found >= 30);
            if (level->name != "navmesh") CHECK(long_searches >= 3);  // that one is small
        }
    }

    TEST_CASE("a search stopped early gives its best partial path: a budget, or finish() mid-way") {
        test::TempDir dir;
        for (const auto& level : levels(dir)) {
            INFO(level->name);
            const navrt::GraphView& g = level->packed.view;
            navrt::Navigator full, sliced;
            REQUIRE_FALSE(full.init(g));
            REQUIRE_FALSE(sliced.init(g));
            navrt::LocateOptions locate;
            locate.snap = 1.5f;
            std::mt19937 random(23);
            int partials = 0;
            for (int trial = 0; trial < 100 && partials < 8; ++trial) {
                const navrt::Vec3 a = randomPoint(g, random), b = randomPoint(g, random);
                if (full.findPath(a, b, locate) != navrt::NavStatus::found) continue;
                if (full.expansions() < 12) continue;
                // finish() after a third of the expansions.
                REQUIRE(sliced.beginPath(a, b, locate) == navrt::NavStatus::in_progress);
                REQUIRE(sliced.step(full.expansions() / 3) == navrt::NavStatus::in_progress);
                REQUIRE(sliced.finish() == navrt::NavStatus::out_of_nodes);
                CHECK(sliced.partial());
                CHECK(sliced.step(10) == navrt::NavStatus::out_of_nodes);  // over: it stays
                REQUIRE(sliced.nodeCount() >= 1);
                // It starts where the search started and follows the graph's edges.
                CHECK(sliced.nodes()[0] == full.nodes()[0]);
                if (g.edge_offsets != nullptr && !g.isPov())
                    for (uint32_t i = 0; i + 1 < sliced.nodeCount(); ++i) {
                        const uint32_t u = sliced.nodes()[i], v = sliced.nodes()[i + 1];
                        bool edge = false;
                        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
                            edge = edge || g.edgeTarget(u, e) == v;
                        CHECK(edge);
                    }
                const std::vector<navrt::Vec3> points = straight(sliced, nullptr);
                REQUIRE(points.size() >= 1);
                // It ends nearer the goal than it began (straight-line distance: the heuristic
                // where no link is a shortcut), and costs no more than the whole path.
                auto dist = [](navrt::Vec3 p, navrt::Vec3 q) {
                    return std::hypot(double(p.x) - q.x, double(p.z) - q.z);
                };
                const navrt::Vec3 goal = full.goal().position;
                if (g.link_count == 0)
                    CHECK(dist(points.back(), goal) <= dist(points.front(), goal) + 1e-6);
                CHECK(sliced.cost() <= full.cost() + 1e-9);
                // The same through an expansion budget in one call.
                navrt::Navigator budget;
                navrt::NavigatorOptions options;
                options.max_expansions = full.expansions() / 2;
                REQUIRE_FALSE(budget.init(g, options));
                CHECK(budget.findPath(a, b, locate) == navrt::NavStatus::out_of_nodes);
                CHECK(budget.partial());
                CHECK(budget.nodeCount() >= 1);
                CHECK(budget.straightPath(nullptr, 0) >= 1);
                ++partials;
            }
            CHECK(partials >= 3);
        }
    }
}
