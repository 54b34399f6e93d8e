// Acceptance (issue 16): every query kind through the C API (navrt.h) equals the C++
// navrt::Navigator's result: locate (with snapping and hints), paths with every method an asset
// supports (astar, cluster, hier, nexthop on a tile graph; astar and exact on a navmesh with
// drops, jumps and teleports), node paths, straight paths with their links, link records; errors
// come back as codes with messages; every allocation goes through the caller's allocator.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/runtime/c/navrt.h"
#include "lib/runtime/navrt_navigator.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"
#include "tests/runtime/navigator_levels.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// Counts what goes through it; `fail_after` allocations succeed, then every one fails.
struct CountingAllocator {
    size_t allocations = 0, releases = 0, bytes = 0;
    size_t fail_after = SIZE_MAX;
    static void* allocate(size_t size, void* user) {
        auto* self = static_cast<CountingAllocator*>(user);
        if (self->allocations >= self->fail_after) return nullptr;
        ++self->allocations;
        self->bytes += size;
        return std::aligned_alloc(16, (size + 15) / 16 * 16);
    }
    static void release(void* pointer, void* user) {
        if (pointer == nullptr) return;
        ++static_cast<CountingAllocator*>(user)->releases;
        std::free(pointer);
    }
    navrt_allocator hooks() { return {&allocate, &release, this}; }
};

navrt_vec3 cv(navrt::Vec3 v) { return {v.x, v.y, v.z}; }

void checkSameLocation(const navrt_location& c, const navrt::Location& cpp) {
    CHECK(c.node == cpp.node);
    CHECK(c.position.x == cpp.position.x);
    CHECK(c.position.y == cpp.position.y);
    CHECK(c.position.z == cpp.position.z);
    CHECK(c.moved == cpp.moved);
}

// Runs `pairs` random point pairs inside [lo, hi] through both APIs with `method`; returns how
// many were found (and how many took a link).
struct Compared {
    int found = 0, via_links = 0, off = 0;
};
Compared compare(const std::filesystem::path& asset_path, const navrt::GraphView& view,
                 navrt::Method method, navrt::Vec3 lo, navrt::Vec3 hi, int pairs, unsigned seed) {
    navrt::Navigator cpp;
    navrt::NavigatorOptions options;
    options.method = method;
    REQUIRE_FALSE(cpp.init(view, options));

    navrt_asset* asset = nullptr;
    navrt_error error;
    REQUIRE(navrt_asset_load(asset_path.c_str(), nullptr, &asset, &error) == NAVRT_OK);
    navrt_navigator_options copts;
    navrt_navigator_options_init(&copts);
    copts.method = navrt_method(method);
    navrt_navigator* nav = nullptr;
    REQUIRE(navrt_navigator_create(asset, &copts, &nav, &error) == NAVRT_OK);

    navrt_locate_options lopts;
    navrt_locate_options_init(&lopts);
    lopts.vertical = 1.0f;
    lopts.snap = 2.0f;
    const navrt::LocateOptions locate{lopts.horizontal, lopts.vertical, lopts.snap};

    std::mt19937 random(seed);
    std::uniform_real_distribution<float> ux(lo.x, hi.x), uy(lo.y, hi.y), uz(lo.z, hi.z);
    Compared out;
    std::vector<navrt::Vec3> cpp_points(8192);
    std::vector<navrt_vec3> c_points(8192);
    std::vector<uint32_t> cpp_links(8192), c_links(8192), c_nodes(8192);
    for (int trial = 0; trial < pairs; ++trial) {
        const navrt::Vec3 a{ux(random), uy(random), uz(random)};
        const navrt::Vec3 b{ux(random), uy(random), uz(random)};
        // locate, with and without the hint of where the other point is.
        checkSameLocation(navrt_locate(nav, cv(a), &lopts, NAVRT_NONE), cpp.locate(a, locate));
        const uint32_t hint = cpp.locate(b, locate).node;
        checkSameLocation(navrt_locate(nav, cv(a), &lopts, hint), cpp.locate(a, locate, hint));

        const navrt::NavStatus s = cpp.findPath(a, b, locate);
        const navrt_path_status cs =
            navrt_find_path(nav, cv(a), cv(b), &lopts, NAVRT_NONE, NAVRT_NONE);
        REQUIRE(int(cs) == int(s));
        // The same search sliced (3 expansions a call) gives the same result.
        {
            navrt_path_status sliced =
                navrt_begin_path(nav, cv(a), cv(b), &lopts, NAVRT_NONE, NAVRT_NONE);
            while (sliced == NAVRT_PATH_IN_PROGRESS) sliced = navrt_step(nav, 3);
            REQUIRE(int(sliced) == int(s));
            CHECK(navrt_finish(nav) == sliced);
        }
        const navrt_path_info info = navrt_path_result(nav);
        CHECK(int(info.status) == int(s));
        CHECK(info.partial == 0);
        checkSameLocation(info.start, cpp.start());
        checkSameLocation(info.goal, cpp.goal());
        CHECK(info.cost == cpp.cost());
        CHECK(info.length == cpp.pathLength());
        CHECK(info.expansions == cpp.expansions());
        CHECK(info.node_count == cpp.nodeCount());
        if (s == navrt::NavStatus::start_off_graph || s == navrt::NavStatus::goal_off_graph)
            ++out.off;
        if (s != navrt::NavStatus::found) {
            CHECK(info.point_count == 0);
            CHECK(navrt_straight_path(nav, c_points.data(), c_links.data(), 8192) == 0);
            continue;
        }
        ++out.found;
        REQUIRE(navrt_path_nodes(nav, c_nodes.data(), 8192) == cpp.nodeCount());
        for (uint32_t i = 0; i < cpp.nodeCount(); ++i) CHECK(c_nodes[i] == cpp.nodes()[i]);
        const uint32_t n = cpp.straightPath(cpp_points.data(), 8192, cpp_links.data());
        REQUIRE(n <= 8192);
        CHECK(info.point_count == n);
        // Asking with too little room gives the count and writes only what fits.
        CHECK(navrt_straight_path(nav, nullptr, nullptr, 0) == n);
        REQUIRE(navrt_straight_path(nav, c_points.data(), c_links.data(), 8192) == n);
        for (uint32_t i = 0; i < n; ++i) {
            CHECK(c_points[i].x == cpp_points[i].x);
            CHECK(c_points[i].y == cpp_points[i].y);
            CHECK(c_points[i].z == cpp_points[i].z);
            CHECK(c_links[i] == cpp_links[i]);
        }
        std::vector<navrt::PathLink> cpp_steps(cpp.pathLinks(nullptr, 0));
        cpp.pathLinks(cpp_steps.data(), uint32_t(cpp_steps.size()));
        CHECK(info.link_count == cpp_steps.size());
        std::vector<navrt_path_link> c_steps(cpp_steps.size() + 1);
        REQUIRE(navrt_path_links(nav, c_steps.data(), uint32_t(c_steps.size())) ==
                cpp_steps.size());
        for (size_t i = 0; i < cpp_steps.size(); ++i) {
            CHECK(c_steps[i].link == cpp_steps[i].link);
            CHECK(c_steps[i].step == cpp_steps[i].step);
            CHECK(c_steps[i].segment == cpp_steps[i].segment);
            CHECK(c_steps[i].reverse == (cpp_steps[i].reverse ? 1u : 0u));
            // The segment a step names takes that link.
            CHECK(c_links[c_steps[i].segment] == c_steps[i].link);
        }
        out.via_links += !cpp_steps.empty();
    }
    navrt_navigator_free(nav);
    navrt_asset_free(asset);
    return out;
}

}  // namespace

TEST_SUITE("capi") {
    TEST_CASE("C API: navmesh queries (astar, exact) with links equal navrt::Navigator's") {
        const graph::Graph mesh = test::platformsMesh();
        test::TempDir dir;
        test::PackedAsset packed;
        test::packAsset(mesh, dir / "m.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        REQUIRE(packed.view.link_count > 3);
        for (navrt::Method method : {navrt::Method::astar, navrt::Method::exact}) {
            INFO(std::string(navrt::methodName(method)));
            const Compared c = compare(dir / "m.nav", packed.view, method, {-1, -0.5f, -1},
                                       {35, 3.5f, 15}, 300, 5);
            MESSAGE(std::string(navrt::methodName(method)), ": ", c.found, " found, ", c.via_links,
                    " through links, ", c.off, " off the mesh");
            CHECK(c.found >= 100);
            CHECK(c.via_links >= 10);
            CHECK(c.off >= 5);
        }
        // Link records as the C++ view decodes them, with their type names.
        navrt_asset* asset = nullptr;
        REQUIRE(navrt_asset_load((dir / "m.nav").c_str(), nullptr, &asset, nullptr) == NAVRT_OK);
        CHECK(navrt_asset_graph_type(asset) == NAVRT_GRAPH_NAVMESH);
        CHECK(navrt_asset_node_count(asset) == packed.view.nodeCount());
        REQUIRE(navrt_asset_link_count(asset) == packed.view.link_count);
        bool drop = false, teleport = false;
        for (uint32_t i = 0; i < packed.view.link_count; ++i) {
            navrt_link l;
            REQUIRE(navrt_asset_link(asset, i, &l) == NAVRT_OK);
            const formats::LinkRecord r = packed.view.link(i);
            CHECK(l.id == r.id);
            CHECK(l.from_node == r.from_node);
            CHECK(l.to.y == r.to[1]);
            CHECK(l.cost == r.cost);
            CHECK(l.type == uint32_t(r.type));
            drop = drop || std::strcmp(l.type_name, "drop") == 0;
            teleport = teleport || (l.id >= 900 && std::strcmp(l.type_name, "custom") == 0);
        }
        CHECK(drop);
        CHECK(teleport);
        navrt_link l;
        CHECK(navrt_asset_link(asset, packed.view.link_count, &l) == NAVRT_INVALID_ARGUMENT);
        // The tile-graph methods are refused with a reason.
        navrt_error error;
        CHECK(navrt_asset_supports(asset, NAVRT_METHOD_EXACT, &error) == NAVRT_OK);
        CHECK(navrt_asset_supports(asset, NAVRT_METHOD_NEXTHOP, &error) == NAVRT_MISSING_SECTION);
        CHECK(std::string(error.message).find("next-hop") != std::string::npos);
        navrt_asset_free(asset);
    }

    TEST_CASE(
        "C API: tile graph queries (astar, cluster, hier, nexthop) equal navrt::Navigator's") {
        test::TempDir dir;
        test::PackedAsset packed;
        test::packRoomsWithTables(11, dir / "t.nav", packed);
        for (navrt::Method method : {navrt::Method::astar, navrt::Method::cluster,
                                     navrt::Method::hier, navrt::Method::nexthop}) {
            INFO(std::string(navrt::methodName(method)));
            const Compared c =
                compare(dir / "t.nav", packed.view, method, {-1, 0, -1}, {49, 0, 41}, 200, 7);
            CHECK(c.found >= 100);
        }
        navrt_asset* asset = nullptr;
        REQUIRE(navrt_asset_load((dir / "t.nav").c_str(), nullptr, &asset, nullptr) == NAVRT_OK);
        navrt_error error;
        CHECK(navrt_asset_supports(asset, NAVRT_METHOD_EXACT, &error) == NAVRT_INVALID_ARGUMENT);
        CHECK(std::string(error.message).find("navigation mesh") != std::string::npos);
        navrt_navigator_options options;
        navrt_navigator_options_init(&options);
        options.method = NAVRT_METHOD_EXACT;
        navrt_navigator* nav = reinterpret_cast<navrt_navigator*>(&options);
        CHECK(navrt_navigator_create(asset, &options, &nav, &error) == NAVRT_INVALID_ARGUMENT);
        CHECK(nav == nullptr);
        navrt_asset_free(asset);
    }

    TEST_CASE("C API: errors are codes with messages, never crashes, memory is the caller's") {
        const graph::Graph g = test::tileGraphOfText(test::roomsMapText(3), "rooms.map");
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "t.nav", g, formats::kKindNav).ok());
        navrt_asset* asset = nullptr;
        navrt_error error;
        // A file that is not there.
        CHECK(navrt_asset_load((dir / "none.nav").c_str(), nullptr, &asset, &error) ==
              NAVRT_IO_ERROR);
        CHECK(asset == nullptr);
        CHECK(error.status == NAVRT_IO_ERROR);
        CHECK(std::string(error.message).find("none.nav") != std::string::npos);
        CHECK(std::string(navrt_status_name(NAVRT_IO_ERROR)) == "io_error");
        // A flipped byte: a checksum mismatch with where it is.
        std::vector<uint8_t> bytes = test::readBytes(dir / "t.nav");
        bytes[bytes.size() - 5] ^= 0x40;
        CHECK(navrt_asset_load_memory(bytes.data(), bytes.size(), nullptr, &asset, &error) ==
              NAVRT_CHECKSUM_MISMATCH);
        CHECK(asset == nullptr);
        CHECK(error.message[0] != 0);
        // Null arguments.
        CHECK(navrt_asset_load(nullptr, nullptr, &asset, &error) == NAVRT_INVALID_ARGUMENT);
        CHECK(navrt_asset_load("x", nullptr, nullptr, nullptr) == NAVRT_INVALID_ARGUMENT);
        CHECK(navrt_navigator_create(nullptr, nullptr, nullptr, nullptr) == NAVRT_INVALID_ARGUMENT);
        CHECK(navrt_find_path(nullptr, {}, {}, nullptr, NAVRT_NONE, NAVRT_NONE) ==
              NAVRT_PATH_INVALID);
        CHECK(navrt_path_result(nullptr).status == NAVRT_PATH_INVALID);
        CHECK(navrt_straight_path(nullptr, nullptr, nullptr, 0) == 0);
        navrt_asset_free(nullptr);
        navrt_navigator_free(nullptr);
        // Names and versions.
        CHECK(navrt_version() == NAVRT_VERSION);
        navrt_method m;
        CHECK(navrt_method_parse("nexthop", &m));
        CHECK(m == NAVRT_METHOD_NEXTHOP);
        CHECK_FALSE(navrt_method_parse("dijkstra", &m));
        CHECK(std::string(navrt_method_name(NAVRT_METHOD_EXACT)) == "exact");
        CHECK(std::string(navrt_path_status_name(NAVRT_PATH_GOAL_OFF_GRAPH)) == "goal_off_graph");

        // Every allocation through the caller's allocator, all released.
        CountingAllocator counting;
        const navrt_allocator hooks = counting.hooks();
        navrt_load_options load;
        navrt_load_options_init(&load);
        load.allocator = &hooks;
        REQUIRE(navrt_asset_load((dir / "t.nav").c_str(), &load, &asset, &error) == NAVRT_OK);
        navrt_navigator_options options;
        navrt_navigator_options_init(&options);
        options.allocator = &hooks;
        navrt_navigator* nav = nullptr;
        REQUIRE(navrt_navigator_create(asset, &options, &nav, &error) == NAVRT_OK);
        const size_t made = counting.allocations;
        CHECK(made >= 3);
        CHECK(navrt_find_path(nav, {1.5f, 0, 1.5f}, {46.5f, 0, 38.5f}, nullptr, NAVRT_NONE,
                              NAVRT_NONE) == NAVRT_PATH_FOUND);
        CHECK(counting.allocations == made);  // a query allocates nothing
        navrt_navigator_free(nav);
        navrt_asset_free(asset);
        CHECK(counting.releases == counting.allocations);
        // An allocator that runs out: out_of_memory at every step, nothing leaked.
        for (size_t limit = 0; limit < made; ++limit) {
            CountingAllocator failing;
            failing.fail_after = limit;
            const navrt_allocator failing_hooks = failing.hooks();
            load.allocator = &failing_hooks;
            options.allocator = &failing_hooks;
            navrt_status s = navrt_asset_load((dir / "t.nav").c_str(), &load, &asset, &error);
            if (s == NAVRT_OK) {
                s = navrt_navigator_create(asset, &options, &nav, &error);
                if (s == NAVRT_OK) navrt_navigator_free(nav);
                navrt_asset_free(asset);
            }
            CHECK(s == NAVRT_OUT_OF_MEMORY);
            CHECK(failing.releases == failing.allocations);
        }
        // Options of an older, smaller struct: the fields it has, the defaults for the rest.
        navrt_navigator_options old;
        std::memset(&old, 0xAB, sizeof(old));
        old.struct_size = offsetof(navrt_navigator_options, method) + sizeof(old.method);
        old.method = NAVRT_METHOD_ASTAR;
        REQUIRE(navrt_asset_load((dir / "t.nav").c_str(), nullptr, &asset, &error) == NAVRT_OK);
        REQUIRE(navrt_navigator_create(asset, &old, &nav, &error) == NAVRT_OK);
        CHECK(navrt_find_path(nav, {1.5f, 0, 1.5f}, {46.5f, 0, 38.5f}, nullptr, NAVRT_NONE,
                              NAVRT_NONE) == NAVRT_PATH_FOUND);
        // Off the graph: a status, with the point it could not place.
        navrt_locate_options far;
        navrt_locate_options_init(&far);
        CHECK(navrt_find_path(nav, {-50, 0, -50}, {1.5f, 0, 1.5f}, &far, NAVRT_NONE, NAVRT_NONE) ==
              NAVRT_PATH_START_OFF_GRAPH);
        CHECK(navrt_locate(nav, {-50, 0, -50}, &far, NAVRT_NONE).node == NAVRT_NONE);
        navrt_navigator_free(nav);
        navrt_asset_free(asset);
    }

    TEST_CASE("C API: blocking (nodes, links by id, areas) and filters equal the C++ results") {
        const graph::Graph mesh = test::platformsMesh();
        test::TempDir dir;
        test::PackedAsset packed;
        test::packAsset(mesh, dir / "m.nav", packed, [](formats::ContainerWriter&) {});
        REQUIRE_FALSE(packed.error);
        const navrt::GraphView& g = packed.view;
        navrt_asset* asset = nullptr;
        REQUIRE(navrt_asset_load((dir / "m.nav").c_str(), nullptr, &asset, nullptr) == NAVRT_OK);
        navrt_navigator* nav = nullptr;
        REQUIRE(navrt_navigator_create(asset, nullptr, &nav, nullptr) == NAVRT_OK);
        navrt_blocking* cblock = nullptr;
        REQUIRE(navrt_blocking_create(asset, nullptr, &cblock, nullptr) == NAVRT_OK);
        REQUIRE(navrt_navigator_set_blocking(nav, cblock) == NAVRT_OK);
        navrt::Navigator cpp;
        REQUIRE_FALSE(cpp.init(g));
        navrt::Blocking block;
        REQUIRE_FALSE(block.init(g));
        REQUIRE_FALSE(cpp.setBlocking(&block));
        // The teleports by their ids.
        uint32_t teleports[3];
        for (uint32_t k = 0; k < 3; ++k) {
            teleports[k] = navrt_asset_find_link(asset, 900 + k);
            REQUIRE(teleports[k] != NAVRT_NONE);
            CHECK(teleports[k] == navrt::findLink(g, 900 + k));
        }
        CHECK(navrt_asset_find_link(asset, 12345) == NAVRT_NONE);
        std::mt19937 random(8);
        std::uniform_int_distribution<uint32_t> node(0, g.nodeCount() - 1);
        std::uniform_real_distribution<float> ux(0, 34), uz(0, 14);
        int found = 0, teleported = 0;
        navrt::QueryFilter cpp_filter;  // outlives its use by `cpp`
        for (int round = 0; round < 4; ++round) {
            navrt_blocking_clear(cblock);
            block.clear();
            for (int k = 0; k < 3; ++k) {
                const uint32_t p = node(random);
                navrt_blocking_set_node(cblock, p, 1);
                block.setNode(p);
            }
            const bool links_blocked = round % 2 == 1;
            for (uint32_t t : teleports) {
                navrt_blocking_set_link(cblock, t, links_blocked);
                block.setLink(t, links_blocked);
            }
            CHECK(navrt_blocking_count(cblock) == block.count());
            navrt_filter filter;
            navrt_filter_init(&filter);
            cpp_filter = navrt::QueryFilter();
            if (round >= 2) {
                filter.area_multiplier[1] = 1.5f;
                cpp_filter.area_multiplier[1] = 1.5f;
            }
            REQUIRE(navrt_navigator_set_filter(nav, round >= 2 ? &filter : nullptr, nullptr) ==
                    NAVRT_OK);
            REQUIRE_FALSE(cpp.setFilter(round >= 2 ? &cpp_filter : nullptr));
            for (int trial = 0; trial < 40; ++trial) {
                const navrt::Vec3 a{ux(random), 0, uz(random)}, b{ux(random), 0, uz(random)};
                navrt_locate_options snap;
                navrt_locate_options_init(&snap);
                snap.snap = 3.0f;
                const navrt::NavStatus s = cpp.findPath(a, b, {0.0f, 1.0f, 3.0f});
                REQUIRE(int(navrt_find_path(nav, cv(a), cv(b), &snap, NAVRT_NONE, NAVRT_NONE)) ==
                        int(s));
                if (s != navrt::NavStatus::found) continue;
                ++found;
                const navrt_path_info info = navrt_path_result(nav);
                CHECK(info.cost == cpp.cost());
                std::vector<navrt_path_link> steps(info.link_count + 1);
                navrt_path_links(nav, steps.data(), uint32_t(steps.size()));
                for (uint32_t i = 0; i < info.link_count; ++i) {
                    const bool teleport = steps[i].link == teleports[0] ||
                                          steps[i].link == teleports[1] ||
                                          steps[i].link == teleports[2];
                    if (links_blocked) CHECK_FALSE(teleport);
                    teleported += teleport;
                }
                std::vector<uint32_t> nodes(info.node_count);
                navrt_path_nodes(nav, nodes.data(), info.node_count);
                for (uint32_t i = 1; i < info.node_count; ++i) CHECK_FALSE(block.node(nodes[i]));
            }
        }
        MESSAGE(found, " found, ", teleported, " teleport steps");
        CHECK(found >= 50);
        CHECK(teleported >= 3);
        // Open goals through the C API: the same winner and path as navrt::Navigator's.
        for (int trial = 0; trial < 20; ++trial) {
            const navrt::Vec3 from{ux(random), 0, uz(random)};
            std::vector<navrt::Vec3> goals;
            std::vector<navrt_vec3> cgoals;
            for (int k = 0; k < 5; ++k) {
                goals.push_back({ux(random), 0, uz(random)});
                cgoals.push_back(cv(goals.back()));
            }
            navrt_locate_options snap;
            navrt_locate_options_init(&snap);
            snap.snap = 3.0f;
            const navrt::NavStatus s = cpp.findPathToAny(from, goals.data(), 5, {0.0f, 1.0f, 3.0f});
            uint32_t winner = 0;
            CHECK(int(navrt_find_path_to_any(nav, cv(from), cgoals.data(), 5, &snap, NAVRT_NONE,
                                             &winner)) == int(s));
            CHECK(winner == cpp.goalIndex());
            CHECK(navrt_path_result(nav).cost == cpp.cost());
        }
        // Surface queries through the C API equal the C++ ones.
        for (int trial = 0; trial < 50; ++trial) {
            const float u0 = ux(random) / 34, u1 = uz(random) / 14, u2 = ux(random) / 34;
            const navrt_location r = navrt_random_point(nav, u0, u1, u2);
            const navrt::Location rc = cpp.randomPoint(u0, u1, u2);
            CHECK(r.node == rc.node);
            CHECK(r.position.x == rc.position.x);
            CHECK(r.position.y == rc.position.y);
            const navrt::Vec3 to{ux(random), 0, uz(random)};
            const navrt_raycast_hit hit = navrt_raycast(nav, r.position, cv(to), nullptr, r.node);
            const navrt::RaycastHit hc = cpp.raycast(rc.position, to, {}, rc.node);
            CHECK(hit.hit == (hc.hit ? 1u : 0u));
            CHECK(hit.t == hc.t);
            CHECK(hit.last_poly == hc.last_poly);
            const navrt_surface_move move =
                navrt_move_along_surface(nav, r.node, r.position, cv(to));
            const navrt::SurfaceMove mc = cpp.moveAlongSurface(rc.node, rc.position, to);
            CHECK(move.poly == mc.poly);
            CHECK(move.position.x == mc.position.x);
            CHECK(move.position.z == mc.position.z);
            CHECK(move.reached == (mc.reached ? 1u : 0u));
            const navrt_location near = navrt_closest_point(nav, r.node, cv(to));
            CHECK(near.position.x == cpp.closestPoint(rc.node, to).position.x);
        }
        // A blocking of another asset is refused; a filter on a graph without areas too.
        CHECK(navrt_navigator_set_blocking(nullptr, cblock) == NAVRT_INVALID_ARGUMENT);
        navrt_navigator_free(nav);
        navrt_blocking_free(cblock);
        navrt_asset_free(asset);
    }
}
