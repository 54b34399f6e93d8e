// Acceptance (issue 5): POV paths on the shared MovingAI maps are never longer than the listed
// octile optimum, equal the exact Euclidean shortest path of an independent brute-force oracle on
// the smaller maps, and every path segment passes the oracle's line-of-sight check.
#include <doctest/doctest.h>

#include <cmath>

#include "pov/pov_oracle.h"
#include "test_support.h"

using namespace nav;

namespace {

importer::GridMap gridOf(const char* rows, uint32_t width, uint32_t height) {
    const std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " +
                             std::to_string(width) + "\nmap\n" + rows;
    auto map = importer::parseMovingAiMap(text, "t.map");
    REQUIRE(map.ok());
    return std::move(map).value();
}

}  // namespace

TEST_SUITE("pov") {
TEST_CASE("oracle self-check: open space, a block, a pinch, walls") {
    const importer::GridMap open = gridOf("...\n...\n...\n", 3, 3);
    test::GridOracle o1(open);
    CHECK(o1.cornerCount() == 0);
    CHECK(o1.visible({0.5, 0.5}, {2.5, 2.5}));
    CHECK(o1.visible({0.0, 0.0}, {3.0, 0.0}));  // along the border, touching only
    CHECK(o1.shortestPath({0.5, 0.5}, {2.5, 1.5}) == doctest::Approx(std::hypot(2.0, 1.0)));

    const importer::GridMap block = gridOf("...\n.@.\n...\n", 3, 3);
    test::GridOracle o2(block);
    CHECK(o2.cornerCount() == 4);
    CHECK_FALSE(o2.visible({0.5, 1.5}, {2.5, 1.5}));
    CHECK(o2.visible({0.5, 0.5}, {2.5, 2.5}) == false);  // through the block's centre
    // Along x = 1 the block is on one side and free (0, 1) on the other: touching, visible.
    CHECK(o2.visible({1.0, 0.2}, {1.0, 2.8}) == true);
    // Around the block over its corners (1, 1) and (2, 1).
    CHECK(o2.shortestPath({0.5, 1.5}, {2.5, 1.5}) == doctest::Approx(2 * std::hypot(0.5, 0.5) + 1));

    const importer::GridMap pinch = gridOf("@.\n.@\n", 2, 2);
    test::GridOracle o3(pinch);
    CHECK_FALSE(o3.visible({0.5, 1.5}, {1.5, 0.5}));
    CHECK(o3.shortestPath({0.5, 1.5}, {1.5, 0.5}) < 0);

    const importer::GridMap wall = gridOf("..@..\n..@..\n.....\n", 5, 3);
    test::GridOracle o4(wall);
    CHECK_FALSE(o4.visible({0.5, 0.5}, {4.5, 0.5}));
    CHECK(o4.visible({2.0, 0.5}, {2.0, 1.5}) == true);   // along the wall's left face
    CHECK(o4.visible({2.5, 2.5}, {2.5, 2.9}));
    // Around the wall's lower end, touching the corners (2, 2) and (3, 2).
    const double expected = std::hypot(1.5, 1.5) + 1.0 + std::hypot(1.5, 1.5);
    CHECK(o4.shortestPath({0.5, 0.5}, {4.5, 0.5}) == doctest::Approx(expected));
}
}
