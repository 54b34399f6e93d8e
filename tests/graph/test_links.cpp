// Links in graphs: addLinks turns links into directed edges (one way, or both ways at their own
// costs), the LINK/ELNK sections round-trip, navrt names the link behind each edge, searches and
// next-hop tables use links optimally, and bad links or corrupt sections are refused with the
// same text on the bake side and in navrt.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lib/common/json_reader.h"
#include "lib/graph/graph.h"
#include "lib/nexthop/nexthop.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_nexthop.h"
#include "lib/runtime/navrt_query.h"
#include "lib/view/view.h"
#include "tests/graph_test_support.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// Two rooms, 4 x 3 each, with a solid wall between them: no surface edge joins them.
const char* kTwoRooms =
    "type octile\nheight 3\nwidth 9\nmap\n"
    "....@....\n"
    "....@....\n"
    "....@....\n";

uint32_t nodeAt(const graph::Graph& g, float x, float z) {
    for (uint32_t v = 0; v < g.nodeCount(); ++v)
        if (g.positions[3 * v] == x && g.positions[3 * v + 2] == z) return v;
    FAIL("no node at ", x, ", ", z);
    return 0;
}

formats::LinkRecord makeLink(const graph::Graph& g, uint32_t id, uint32_t from, uint32_t to,
                             float cost, formats::LinkType type, float reverse_cost = 0) {
    formats::LinkRecord l;
    l.id = id;
    l.user_data = 1000 + id;
    l.from_node = from;
    l.to_node = to;
    // (Ends out of range, for the tests that refuse them, keep points at the origin.)
    const size_t n = g.positions.size() / 3;
    for (int k = 0; k < 3; ++k) {
        l.from[k] = from < n ? g.positions[3 * size_t(from) + k] : 0.0f;
        l.to[k] = to < n ? g.positions[3 * size_t(to) + k] : 0.0f;
    }
    l.cost = cost;
    l.reverse_cost = reverse_cost;
    l.type = type;
    l.flags = reverse_cost > 0 ? formats::kLinkFlagBidirectional : 0;
    return l;
}

}  // namespace

TEST_SUITE("graph") {
    TEST_CASE("links: directed edges with their own costs, saved, viewed and searched") {
        graph::Graph g = test::tileGraphOfText(kTwoRooms, "rooms.map");
        REQUIRE(g.header.component_count == 2);
        const uint32_t a = nodeAt(g, 3.5f, 1.5f), b = nodeAt(g, 5.5f, 1.5f);
        const uint32_t c = nodeAt(g, 3.5f, 0.5f), d = nodeAt(g, 5.5f, 0.5f);
        const size_t surface_edges = g.edgeCount();
        // A one-way drop a -> b, and a ladder c <-> d: cheap down, dear up.
        REQUIRE(graph::addLinks(g, {makeLink(g, 7, c, d, 2.5f, formats::LinkType::ladder, 6.0f),
                                    makeLink(g, 3, a, b, 2.0f, formats::LinkType::drop)})
                    .ok());
        CHECK(g.header.component_count == 1);
        CHECK(g.edgeCount() == surface_edges + 3);
        REQUIRE(g.links.size() == 2);
        CHECK(g.links[0].id == 3);  // sorted by id
        CHECK(graph::edgeSymmetry(g) == graph::Symmetry::directed);
        // The link edges follow each node's own edges.
        const uint32_t last_of_a = g.edge_offsets[a + 1] - 1;
        CHECK(g.edge_targets[last_of_a] == b);
        CHECK(g.edge_links[last_of_a] == 0);
        CHECK(g.edge_costs[last_of_a] == 2.0f);
        const uint32_t last_of_d = g.edge_offsets[d + 1] - 1;
        CHECK(g.edge_targets[last_of_d] == c);
        CHECK(g.edge_links[last_of_d] == 1);
        CHECK(g.edge_costs[last_of_d] == 6.0f);

        // Round trip through .graph.
        test::TempDir dir;
        REQUIRE(graph::saveGraph(dir / "l.graph", g).ok());
        auto loaded = graph::loadGraph(dir / "l.graph");
        REQUIRE(loaded.ok());
        CHECK(loaded->edge_links == g.edge_links);
        CHECK(loaded->edge_targets == g.edge_targets);
        CHECK(loaded->edge_costs == g.edge_costs);
        REQUIRE(loaded->links.size() == 2);
        CHECK(loaded->links[1].id == 7);
        CHECK(loaded->links[1].user_data == 1007);
        CHECK(loaded->links[1].type == formats::LinkType::ladder);
        CHECK(loaded->links[1].reverse_cost == 6.0f);
        CHECK(loaded->links[1].to[0] == 5.5f);

        // navrt: the view names each edge's link; A* takes the links at their costs.
        Context context;
        auto table = nexthop::buildTable(g, {}, context);
        REQUIRE(table.ok());
        test::PackedAsset p;
        test::packAsset(g, dir / "l.nav", p,
                        [&](auto& w) { nexthop::addNextHopSections(w, *table); });
        REQUIRE_FALSE(p.error);
        REQUIRE(p.view.link_count == 2);
        CHECK(p.view.edgeLink(last_of_a) == 0);
        CHECK(p.view.edgeLink(0) == formats::kNoLink);
        CHECK(p.view.link(1).id == 7);
        CHECK(p.view.link(0).type == formats::LinkType::drop);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(p.view));
        navrt::NextHopQuery hops;
        REQUIRE_FALSE(hops.init(p.view));
        const uint32_t left = nodeAt(g, 0.5f, 1.5f), right = nodeAt(g, 8.5f, 1.5f);
        for (auto [s, t] : {std::pair{left, right}, std::pair{right, left}, std::pair{a, b},
                            std::pair{b, a}, std::pair{d, c}}) {
            INFO("from ", s, " to ", t);
            const double optimum = test::shortestFrom(g, s)[t];
            REQUIRE(std::isfinite(optimum));
            REQUIRE(query.findPath(s, t) == navrt::PathStatus::found);
            CHECK(query.cost() == doctest::Approx(optimum).epsilon(1e-6));
            REQUIRE(hops.pathByNextHop(s, t) == navrt::PathStatus::found);
            CHECK(hops.cost() == doctest::Approx(optimum).epsilon(1e-6));
        }
        // The path names the link it takes, at its step.
        REQUIRE(query.findPath(left, right) == navrt::PathStatus::found);
        int via_links = 0;
        for (uint32_t k = 0; k + 1 < query.pathLength(); ++k) {
            const uint32_t e = query.pathEdge(k);
            REQUIRE(e != navrt::kNoNode);
            CHECK(p.view.edgeTarget(query.path()[k], e) == query.path()[k + 1]);
            if (p.view.edgeLink(e) != formats::kNoLink) {
                ++via_links;
                CHECK(p.view.link(p.view.edgeLink(e)).id == 3);  // the drop
                CHECK(query.path()[k] == a);
            }
        }
        CHECK(via_links == 1);
        auto batch = query::runBatch(p.view, {{{0.5f, 0, 1.5f}, {8.5f, 0, 1.5f}}}, {}, {}, "l.nav",
                                     false, context);
        REQUIRE(batch.ok());
        REQUIRE(batch->entries[0].links.size() == 1);
        CHECK(batch->entries[0].links[0].link.type == formats::LinkType::drop);
        CHECK(batch->entries[0].links[0].link.user_data == 1003);
        // Debug views draw each link once, as an arc in its own group.
        view::ViewStats drawn;
        REQUIRE(view::writeView(dir / "l.nav", dir / "l.svg", {}, context, &drawn).ok());
        CHECK(drawn.links == 2);
        CHECK(drawn.edges > 0);
        const std::vector<uint8_t> bytes = test::readBytes(dir / "l.svg");
        const std::string svg(bytes.begin(), bytes.end());
        CHECK(svg.find("<g id=\"links\"") != std::string::npos);
        // a -> b drops (2.0) rather than taking the ladder; b -> a has to climb it (6.0).
        CHECK(test::shortestFrom(g, a)[b] == doctest::Approx(2.0));
        CHECK(test::shortestFrom(g, b)[a] > 6.0);
    }

    TEST_CASE("links: two connections between one pair of nodes, the path names the one used") {
        // Millington 4.1.3: fall off the walkway, or climb down the ladder (and back up it).
        for (const float drop_cost : {2.0f, 9.0f}) {
            graph::Graph g = test::tileGraphOfText(kTwoRooms, "rooms.map");
            const uint32_t a = nodeAt(g, 3.5f, 1.5f), b = nodeAt(g, 5.5f, 1.5f);
            REQUIRE(
                graph::addLinks(g, {makeLink(g, 1, a, b, drop_cost, formats::LinkType::drop),
                                    makeLink(g, 2, a, b, 3.0f, formats::LinkType::ladder, 4.0f)})
                    .ok());
            test::TempDir dir;
            test::PackedAsset p;
            test::packAsset(g, dir / "two.nav", p, [](auto&) {});
            REQUIRE_FALSE(p.error);
            navrt::PathQuery query;
            REQUIRE_FALSE(query.init(p.view));
            auto linkTaken = [&](uint32_t s, uint32_t t) {
                REQUIRE(query.findPath(s, t) == navrt::PathStatus::found);
                REQUIRE(query.pathLength() == 2);
                const uint32_t link = p.view.edgeLink(query.pathEdge(0));
                REQUIRE(link != formats::kNoLink);
                return p.view.link(link).id;
            };
            // Down: the cheaper of the two; up: only the ladder goes back, at its own cost.
            CHECK(linkTaken(a, b) == (drop_cost < 3.0f ? 1u : 2u));
            CHECK(query.cost() == doctest::Approx(std::min(drop_cost, 3.0f)));
            CHECK(linkTaken(b, a) == 2u);
            CHECK(query.cost() == doctest::Approx(4.0f));
        }
    }

    TEST_CASE("links: bad links are refused by id, corrupt sections alike by bake side and navrt") {
        const graph::Graph base = test::tileGraphOfText(kTwoRooms, "rooms.map");
        const uint32_t a = nodeAt(base, 3.5f, 1.5f), b = nodeAt(base, 5.5f, 1.5f);
        auto refused = [&](std::vector<formats::LinkRecord> links, const std::string& text) {
            graph::Graph g = base;
            const Status s = graph::addLinks(g, std::move(links));
            REQUIRE_FALSE(s.ok());
            CHECK_MESSAGE(s.error().message.find(text) != std::string::npos, s.error().message);
        };
        refused({makeLink(base, 1, a, 999, 1.0f, formats::LinkType::jump)}, "link 1: an end names");
        refused({makeLink(base, 1, a, a, 1.0f, formats::LinkType::jump)}, "both ends are on node");
        // Records sharing an id are the lanes of one wide link: same type, flags and user data.
        refused({makeLink(base, 1, a, b, 1.0f, formats::LinkType::jump),
                 makeLink(base, 1, b, a, 1.0f, formats::LinkType::drop)},
                "link id 1 is used by two links");
        {
            graph::Graph lanes = base;
            CHECK(graph::addLinks(lanes, {makeLink(base, 1, a, b, 1.0f, formats::LinkType::jump),
                                          makeLink(base, 1, b, a, 1.0f, formats::LinkType::jump)})
                      .ok());
        }
        refused({makeLink(base, 2, a, b, -1.0f, formats::LinkType::door)}, "link 2: cost -1");
        formats::LinkRecord odd = makeLink(base, 4, a, b, 1.0f, formats::LinkType::teleport);
        odd.type = formats::LinkType(42);
        refused({odd}, "link 4: unknown type 42");

        // Corrupt sections, written as they are (graphWriter does not check): both readers refuse
        // them with the same sentence.
        graph::Graph linked = base;
        REQUIRE(
            graph::addLinks(linked, {makeLink(base, 5, a, b, 2.0f, formats::LinkType::drop)}).ok());
        struct Case {
            const char* name;
            void (*spoil)(graph::Graph&);
            const char* expected;
        };
        const Case cases[] = {
            {"edge names no link", [](graph::Graph& g) { g.edge_links[0] = 9; },
             "edge 0 names link 9 of 1"},
            {"link edge at another cost",
             [](graph::Graph& g) {
                 for (size_t e = 0; e < g.edge_links.size(); ++e)
                     if (g.edge_links[e] == 0) g.edge_costs[e] = 3.0f;
             },
             "does not match link 5"},
            {"link lost its edge",
             [](graph::Graph& g) {
                 for (uint32_t& owner : g.edge_links) owner = formats::kNoLink;
             },
             "0 edges name links, expected 1"},
            {"reverse cost on a one-way link",
             [](graph::Graph& g) { g.links[0].reverse_cost = 1.0f; },
             "link 5: reverse cost 1 on a one-way link"},
        };
        test::TempDir dir;
        for (const Case& c : cases) {
            INFO(std::string(c.name));
            graph::Graph g = linked;
            c.spoil(g);
            REQUIRE(graph::saveGraph(dir / "bad.nav", g, formats::kKindNav).ok());
            // The bake-side decoder of the asset, and navrt.
            auto container =
                loadContainer(dir / "bad.nav", formats::kKindNav, formats::kNavVersion);
            REQUIRE(container.ok());
            auto decoded = graph::decodeGraph(*container);
            REQUIRE_FALSE(decoded.ok());
            CHECK(decoded.error().message.find(c.expected) != std::string::npos);
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load((dir / "bad.nav").c_str(), asset));
            navrt::GraphView view;
            const navrt::Error e = navrt::viewGraph(asset, view);
            CHECK(e.code == navrt::ErrorCode::bad_section);
            CHECK(std::string(e.message).find(c.expected) != std::string::npos);
        }
    }

    TEST_CASE(
        "authored links: ends on the surface, default costs per type, parsed with JSON paths") {
        const graph::Graph g = test::tileGraphOfText(kTwoRooms, "rooms.map");
        auto document = parseJson(
            R"({"links": [
                {"from": [3.5, 0, 1.5], "to": [5.5, 0, 1.5], "type": "drop", "id": 10,
                 "user_data": 77},
                {"from": [3.5, 0.4, 0.5], "to": [5.5, 0, 0.5], "type": "ladder",
                 "bidirectional": true},
                {"from": [0.5, 0, 2.5], "to": [8.5, 0, 2.5], "type": "door", "cost": 9.5}
            ]})",
            "l.json");
        REQUIRE(document.ok());
        std::vector<graph::LinkSpec> specs;
        REQUIRE(geometry::parseLinks((*document)["links"], "$.links", "l.json", {}, specs).ok());
        REQUIRE(specs.size() == 3);
        CHECK(specs[1].name == "l.json: $.links[1]");
        std::vector<std::string> names;
        graph::LinkResolveStats stats;
        auto records = graph::resolveLinks(g, specs, names, stats);
        REQUIRE(records.ok());
        REQUIRE(records->size() == 3);
        const formats::LinkRecord& drop = (*records)[0];
        CHECK(drop.id == 10);
        CHECK(drop.user_data == 77);
        CHECK(drop.from_node == nodeAt(g, 3.5f, 1.5f));
        CHECK(drop.to_node == nodeAt(g, 5.5f, 1.5f));
        CHECK(drop.cost == doctest::Approx(2.0f).epsilon(1e-5));  // its length, = the heuristic's
        const formats::LinkRecord& ladder = (*records)[1];
        CHECK(ladder.id == 2);  // by position when not given
        CHECK(ladder.flags == formats::kLinkFlagBidirectional);
        // Going down (from y 0.4 to 0) costs 1.5 x its length, the way up 2 x.
        const float len = std::sqrt(4.0f + 0.16f);
        CHECK(ladder.cost == doctest::Approx(1.5f * len));
        CHECK(ladder.reverse_cost == doctest::Approx(2.0f * len));
        CHECK((*records)[2].cost == 9.5f);

        // A cost below the distance the heuristic assumes is a shortcut, kept as given (navrt's
        // heuristic accounts for shortcuts).
        specs[2].cost = 3.0f;
        auto cheap = graph::resolveLinks(g, specs, names, stats);
        REQUIRE(cheap.ok());
        CHECK((*cheap)[2].cost == 3.0f);
        // An end off the surface: how far the nearest node is.
        specs[2].cost = 0;
        specs[2].to[1] = 5.0f;
        auto off = graph::resolveLinks(g, specs, names, stats);
        REQUIRE_FALSE(off.ok());
        CHECK(off.error().message.find("its end (8.5, 5, 2.5) is not on the walkable surface") !=
              std::string::npos);
        CHECK(off.error().message.find("the nearest is 5.00 m away at (8.5, 0, 2.5)") !=
              std::string::npos);
        // Bad JSON: the path of the bad value.
        auto bad = parseJson(R"({"links": [{"from": [1, 2], "to": [0, 0, 0]}]})", "b.json");
        REQUIRE(bad.ok());
        std::vector<graph::LinkSpec> none;
        const Status s = geometry::parseLinks((*bad)["links"], "$.links", "b.json", {}, none);
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message.find("$.links[0].from") != std::string::npos);
        auto kind = parseJson(
            R"({"links": [{"from": [0, 0, 0], "to": [1, 0, 0], "type": "rope"}]})", "k.json");
        REQUIRE(kind.ok());
        const Status t = geometry::parseLinks((*kind)["links"], "$.links", "k.json", {}, none);
        REQUIRE_FALSE(t.ok());
        CHECK(t.error().message.find("'rope'") != std::string::npos);
        // Bad values: the same rules as the stage's check, named by JSON path.
        auto negative = parseJson(
            R"({"links": [{"from": [0, 0, 0], "to": [1, 0, 0]},
                          {"from": [0, 0, 0], "to": [1, 0, 0], "cost": -2}]})",
            "n.json");
        REQUIRE(negative.ok());
        const Status n = geometry::parseLinks((*negative)["links"], "$.links", "n.json", {}, none);
        REQUIRE_FALSE(n.ok());
        CHECK(n.error().message.find("n.json: $.links[1].cost: -2 (must be >= 0)") !=
              std::string::npos);
        auto one_way = parseJson(
            R"({"links": [{"from": [0, 0, 0], "to": [1, 0, 0], "reverse_cost": 3}]})", "r.json");
        REQUIRE(one_way.ok());
        const Status r = geometry::parseLinks((*one_way)["links"], "$.links", "r.json", {}, none);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("$.links[0].reverse_cost: 3") != std::string::npos);
    }

    TEST_CASE("links: the straight path never cuts across a link, its ends are corners") {
        // An open 9 x 3 floor whose walking costs twice its length, and a link along its middle
        // row that costs its length: the shortest path walks to the link, takes it, walks on.
        graph::Graph g = test::tileGraphOfText(
            "type octile\nheight 3\nwidth 9\nmap\n.........\n.........\n.........\n", "o.map");
        for (float& c : g.edge_costs) c *= 2.0f;
        const uint32_t a = nodeAt(g, 0.5f, 1.5f), b = nodeAt(g, 8.5f, 1.5f);
        REQUIRE(graph::addLinks(g, {makeLink(g, 1, a, b, 8.5f, formats::LinkType::jump)}).ok());
        test::TempDir dir;
        test::PackedAsset p;
        test::packAsset(g, dir / "o.nav", p, [](auto&) {});
        REQUIRE_FALSE(p.error);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(p.view));
        REQUIRE(query.findPath(nodeAt(g, 0.5f, 0.5f), nodeAt(g, 8.5f, 2.5f)) ==
                navrt::PathStatus::found);
        CHECK(query.cost() == doctest::Approx(2.0 + 8.5 + 2.0));
        std::vector<navrt::Vec3> points(query.pathLength());
        const uint32_t count = query.smooth(points.data(), uint32_t(points.size()));
        // Without the rule, the first corner would be skipped: the floor is open from (0.5, 0.5)
        // to (8.5, 1.5). With it: start, link start, link end, goal.
        REQUIRE(count == 4);
        CHECK(points[1].x == 0.5f);
        CHECK(points[1].z == 1.5f);
        CHECK(points[2].x == 8.5f);
        CHECK(points[2].z == 1.5f);
        CHECK(query.smoothedLength() == doctest::Approx(1.0 + 8.0 + 1.0));
    }

    TEST_CASE("links: line of sight never passes through a link edge") {
        // Three cells in a row; the surface step between the first two is removed (a ledge) and
        // a one-way drop link joins them instead: no straight walk from the first to the third.
        graph::Graph g =
            test::tileGraphOfText("type octile\nheight 1\nwidth 3\nmap\n...\n", "r.map");
        REQUIRE(g.nodeCount() == 3);
        std::vector<test::Edge> edges = test::edgesOf(g);
        std::erase_if(edges, [](const test::Edge& e) {
            const auto& [u, v, c] = e;
            return (u == 0 && v == 1) || (u == 1 && v == 0);
        });
        g = test::withEdges(g, std::move(edges));
        REQUIRE(graph::addLinks(g, {makeLink(g, 1, 0, 1, 1.0f, formats::LinkType::drop)}).ok());
        test::TempDir dir;
        test::PackedAsset p;
        test::packAsset(g, dir / "r.nav", p, [](auto&) {});
        REQUIRE_FALSE(p.error);
        navrt::PathQuery query;
        REQUIRE_FALSE(query.init(p.view));
        CHECK_FALSE(query.lineOfSight(0, 2));
        CHECK(query.lineOfSight(1, 2));
        REQUIRE(query.findPath(0, 2) == navrt::PathStatus::found);
        std::vector<navrt::Vec3> points(query.pathLength());
        CHECK(query.smooth(points.data(), uint32_t(points.size())) == 3);
    }
}
