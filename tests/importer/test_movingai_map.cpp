#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "lib/importer/import.h"
#include "tests/test_support.h"

using nav::importer::parseMovingAiMap;

TEST_SUITE("import") {
    TEST_CASE("a MovingAI map parses with the right size and passable cells") {
        const auto map = parseMovingAiMap(
            "type octile\r\nheight 3\r\nwidth 4\r\nmap\r\n.G@S\r\nTOW.\r\n....\r\n", "t.map");
        REQUIRE(map.ok());
        CHECK(map->width == 4);
        CHECK(map->height == 3);
        CHECK(map->passableCount() == 8);
        CHECK(map->isPassable(1, 0));  // G
        CHECK(map->isPassable(3, 0));  // S
        CHECK_FALSE(map->isPassable(2, 0));
        CHECK_FALSE(map->isPassable(0, 1));
        CHECK(map->isPassable(3, 1));
    }

    TEST_CASE("MovingAI map errors name the line") {
        struct Case {
            const char* text;
            const char* expected;
        };
        const Case cases[] = {
            {"type grid\nheight 1\nwidth 1\nmap\n.\n", "line 1: map type 'grid'"},
            {"type octile\nheight x\nwidth 1\nmap\n.\n", "line 2: 'height' needs a whole number"},
            {"type octile\nheight 2\nmap\n.\n.\n",
             "line 3: 'map' reached but the header lacks 'width'"},
            {"type octile\nheight 2\nwidth 3\nmap\n...\n..\n",
             "line 6: map row 1 has 2 characters, expected 3"},
            {"type octile\nheight 2\nwidth 3\nmap\n...\n",
             "line 6: file ends after 1 of 2 map rows"},
            {"type octile\nheight 1\nwidth 3\nmap\n.x.\n",
             "line 5, column 2: unknown map character 'x'"},
            {"type octile\nheight 1\nwidth 1\nmap\n.\n..\n",
             "line 6: unexpected content after the 1 map rows"},
            {"", "line 1: header ended before the 'map' line"},
            {"hello\n", "line 1: unexpected header line 'hello'"},
        };
        for (const Case& c : cases) {
            const auto map = parseMovingAiMap(c.text, "bad.map");
            REQUIRE_FALSE(map.ok());
            INFO(map.error().message);
            CHECK(map.error().message.find(std::string("bad.map: ") + c.expected) !=
                  std::string::npos);
        }
    }

    TEST_CASE("den520d imports as 256 x 257 with its passable count") {
        const auto data = nav::test::sharedData();
        if (data.empty()) {
            MESSAGE("skipped: ../shared/data is absent");
            return;
        }
        const auto path = data / "movingai" / "den520d.map";
        // Independent count: characters . G S in the rows after the "map" line.
        std::ifstream in(path);
        std::string line;
        size_t expected = 0;
        bool in_map = false;
        while (std::getline(in, line)) {
            if (in_map)
                for (char c : line) expected += (c == '.' || c == 'G' || c == 'S');
            if (line.rfind("map", 0) == 0) in_map = true;
        }
        const auto map = nav::importer::loadMovingAiMap(path);
        REQUIRE(map.ok());
        CHECK(map->width == 256);
        CHECK(map->height == 257);
        CHECK(map->passableCount() == expected);
        CHECK(expected > 10000);
    }
}
