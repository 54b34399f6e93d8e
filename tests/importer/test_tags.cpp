#include <doctest/doctest.h>

#include "lib/importer/import.h"

using namespace nav::importer;

TEST_SUITE("import") {
    TEST_CASE("glob matching is case-insensitive with * and ?") {
        CHECK(globMatch("*water*", "Lake_WATER_01"));
        CHECK(globMatch("crate_?", "CRATE_1"));
        CHECK_FALSE(globMatch("crate_?", "crate_12"));
        CHECK(globMatch("*", ""));
        CHECK(globMatch("a*b*c", "aXXbYYc"));
        CHECK_FALSE(globMatch("a*b*c", "aXXbYY"));
        CHECK_FALSE(globMatch("", "x"));
    }

    TEST_CASE("built-in tag rules") {
        const TagConfig config = defaultTagConfig();
        CHECK(resolveTag(config, "floor", "", "concrete") == nav::geometry::kGroundArea);
        CHECK(resolveTag(config, "trigger_volume", "", "") == -1);
        CHECK(resolveTag(config, "box", "", "obstacle_crate") == nav::geometry::kObstacleArea);
        const int water = resolveTag(config, "pool", "", "Water");
        REQUIRE(water > 1);
        CHECK(config.areas[size_t(water)].name == "water");
        CHECK(config.areas[size_t(water)].cost == doctest::Approx(3.0));
    }

    TEST_CASE("built-in link rules: object-name prefixes, before the other built-in rules") {
        const TagConfig config = defaultTagConfig();
        const auto rule = [&](const char* object, const char* material = "") {
            return matchTagRule(config, object, "", material);
        };
        REQUIRE(rule("ladder_1") != nullptr);
        CHECK(rule("ladder_1")->tag == "link");
        CHECK(rule("ladder_1")->link.shape == LinkShape::ladder);
        CHECK(rule("Door_Kitchen")->link.shape == LinkShape::door);
        CHECK(rule("link_jump_over_water")->link.shape == LinkShape::line);  // not water
        CHECK(resolveTag(config, "ladder_1", "", "") == -1);                 // a proxy: dropped
        CHECK(resolveTag(config, "door_1", "", "") == nav::geometry::kObstacleArea);
        CHECK(resolveTag(config, "link_drop_1", "", "") == -1);
        // Not prefixes, or not object names: ordinary geometry.
        CHECK(rule("trapdoor_1") == nullptr);
        CHECK(rule("floor_near_ladder") == nullptr);
        CHECK(rule("floor", "door_oak") == nullptr);
        CHECK(resolveTag(config, "ramp", "", "ladder_metal") == nav::geometry::kGroundArea);
        CHECK(linkTypeWordFromName("Link_Jump_twoway_2") == "jump");
        CHECK(linkTypeWordFromName("link_drop.001") == "drop");
        CHECK(linkTypeWordFromName("SM_link_zip-line_3") == "zip-line");
        CHECK(linkTypeWordFromName("ladder_1").empty());
    }

    TEST_CASE("a tags file adds areas and rules that come first") {
        auto config = parseTagConfig(R"({
        "areas": [{"name": "lava", "cost": 10}, {"name": "water", "cost": 5}],
        "rules": [{"match": "*hot*", "on": "material", "tag": "lava"},
                  {"match": "*water*", "on": "object", "tag": "obstacle"}]
    })",
                                     "t.json");
        REQUIRE(config.ok());
        const int lava = resolveTag(*config, "floor", "", "hot_rock");
        REQUIRE(lava > 1);
        CHECK(config->areas[size_t(lava)].cost == doctest::Approx(10.0));
        CHECK(resolveTag(*config, "hot_object", "", "plain") ==
              nav::geometry::kGroundArea);  // material only
        CHECK(resolveTag(*config, "water_tank", "", "") ==
              nav::geometry::kObstacleArea);                         // user rule first
        const int water = resolveTag(*config, "lake", "", "water");  // built-in rule
        REQUIRE(water > 1);
        CHECK(config->areas[size_t(water)].cost == doctest::Approx(5.0));  // overridden cost
    }

    TEST_CASE("use_defaults false drops the built-in rules") {
        auto config = parseTagConfig(R"({"use_defaults": false})", "t.json");
        REQUIRE(config.ok());
        CHECK(config->rules.empty());
        CHECK(resolveTag(*config, "trigger", "", "water") == nav::geometry::kGroundArea);
    }

    TEST_CASE("tag file errors name the file and the JSON path") {
        struct Case {
            const char* json;
            const char* expected;
        };
        const Case cases[] = {
            {R"({"rulez": []})",
             "$.rulez: unknown key (allowed here: use_defaults, areas, link_types, rules)"},
            {R"({"rules": [{"match": "x", "tag": "nowhere"}]})",
             "$.rules[0].tag: unknown tag 'nowhere'"},
            {R"({"rules": [{"match": "x", "tag": "ignore", "extra": 1}]})",
             "$.rules[0].extra: unknown key (allowed here: match, on, tag, link, marker)"},
            {R"({"areas": [{"name": "mud", "cost": -1}]})",
             "$.areas[0].cost: must be a number in (0, 1e6]"},
            {R"({"areas": [{"name": "obstacle", "cost": 2}]})",
             "$.areas[0].name: 'obstacle' is reserved"},
            {R"({"rules": [{"match": "x", "tag": "ignore", "on": "mesh"}]})",
             "$.rules[0].on: 'mesh' is not one of: object, material, any"},
            {R"([1, 2])", "tags.json: $: expected an object, got array"},
            {R"({"rules": [)", "tags.json: not valid JSON at byte"},
        };
        for (const Case& c : cases) {
            auto config = parseTagConfig(c.json, "tags.json");
            REQUIRE_FALSE(config.ok());
            INFO(config.error().message);
            CHECK(config.error().message.rfind("tags.json: ", 0) == 0);
            CHECK(config.error().message.find(c.expected) != std::string::npos);
        }
    }
}
