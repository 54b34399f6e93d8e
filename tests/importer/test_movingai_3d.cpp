#include <doctest/doctest.h>

#include <string>

#include "lib/importer/import.h"
#include "tests/test_support.h"

using nav::importer::parseScenario3D;
using nav::importer::parseVoxelMap3D;

namespace {

struct ErrorCase {
    const char* text;
    const char* expected;
};

}  // namespace

TEST_SUITE("import") {
    TEST_CASE("a MovingAI .3dmap parses with its size and blocked voxels") {
        const auto map = parseVoxelMap3D(
            "voxel 4 3 2\r\n0 0 0\r\n3 2 1\r\n1 1 0\r\n1 1 0\r\n\r\n\r\n", "t.3dmap");
        REQUIRE(map.ok());
        CHECK(map->width == 4);
        CHECK(map->height == 3);
        CHECK(map->depth == 2);
        CHECK(map->blocked.size() == 24);
        CHECK(map->blockedCount() == 3);  // the repeated voxel counts once
        CHECK(map->isBlocked(0, 0, 0));
        CHECK(map->isBlocked(3, 2, 1));
        CHECK(map->isBlocked(1, 1, 0));
        CHECK_FALSE(map->isBlocked(1, 0, 1));
        CHECK_FALSE(map->isBlocked(3, 1, 1));
        // Index layout (y * depth + z) * width + x.
        CHECK(map->blocked[(size_t(2) * 2 + 1) * 4 + 3] == 1);
    }

    TEST_CASE("a .3dmap without blocked voxels, tabs and no final newline are accepted") {
        const auto empty = parseVoxelMap3D("voxel 2 2 2", "e.3dmap");
        REQUIRE(empty.ok());
        CHECK(empty->blockedCount() == 0);
        const auto tabs = parseVoxelMap3D("voxel\t2 2 2\n1\t0  1", "t.3dmap");
        REQUIRE(tabs.ok());
        CHECK(tabs->isBlocked(1, 0, 1));
    }

    TEST_CASE(".3dmap errors name the line") {
        const ErrorCase cases[] = {
            {"", "line 1: empty file"},
            {"voxels 2 2 2\n", "line 1: bad header 'voxels 2 2 2'"},
            {"voxel 2 2\n", "line 1: bad header 'voxel 2 2'"},
            {"voxel 2 2 2 2\n", "line 1: bad header"},
            {"voxel 2 x 2\n", "line 1: map size y needs a whole number >= 1, got 'x'"},
            {"voxel 0 2 2\n", "line 1: map size x needs a whole number >= 1, got '0'"},
            {"voxel 2 2 -3\n", "line 1: map size z needs a whole number >= 1, got '-3'"},
            {"voxel 2048 2048 2048\n", "line 1: map size 2048 x 2048 x 2048 is too large"},
            {"voxel 1 70000 1\n", "line 1: map size 1 x 70000 x 1 is too large"},
            {"voxel 2 2 2\n0 0 0\n1 1\n", "line 3: expected a voxel 'x y z', got '1 1'"},
            {"voxel 2 2 2\n0 0 0 0\n", "line 2: expected a voxel 'x y z'"},
            {"voxel 2 2 2\n\n0 a 0\n", "line 3: voxel y coordinate 'a' is not a whole number"},
            {"voxel 2 2 2\n0 0 1.5\n", "line 2: voxel z coordinate '1.5' is not a whole number"},
            {"voxel 2 2 2\n-1 0 0\n", "line 2: voxel x coordinate '-1' is not a whole number"},
            {"voxel 2 3 2\n0 0 0\n1 3 0\n", "line 3: voxel y coordinate 3 is out of range 0..2"},
            {"voxel 2 3 2\n2 0 0\n", "line 2: voxel x coordinate 2 is out of range 0..1"},
            {"voxel 2 3 2\n1 1 1\r\n0 0 5\r\n",
             "line 3: voxel z coordinate 5 is out of range 0..1"},
        };
        for (const ErrorCase& c : cases) {
            const auto map = parseVoxelMap3D(c.text, "bad.3dmap");
            INFO(c.text);
            REQUIRE_FALSE(map.ok());
            INFO(map.error().message);
            CHECK(map.error().kind == nav::ErrorKind::bad_input);
            CHECK(map.error().message.find(std::string("bad.3dmap: ") + c.expected) !=
                  std::string::npos);
        }
    }

    TEST_CASE("a MovingAI .3dscen parses its map name and problems") {
        const auto scen = parseScenario3D(
            "version 1\r\nmaze3d.3dmap\r\n1 2 3 4 5 6 5.19615242 1\r\n\r\n"
            "0 0 0 1 1 0 1.41421356 1.00000000\n7 7 7 7 7 7 0 0\n\n",
            "t.3dscen");
        REQUIRE(scen.ok());
        CHECK(scen->map_name == "maze3d.3dmap");
        REQUIRE(scen->entries.size() == 3);
        const auto& a = scen->entries[0];
        CHECK(a.start[0] == 1);
        CHECK(a.start[1] == 2);
        CHECK(a.start[2] == 3);
        CHECK(a.goal[0] == 4);
        CHECK(a.goal[1] == 5);
        CHECK(a.goal[2] == 6);
        CHECK(a.optimal_length == doctest::Approx(5.19615242));
        CHECK(a.ratio == 1.0);
        CHECK(a.line == 3);
        CHECK(scen->entries[1].line == 5);
        CHECK(scen->entries[1].optimal_length == doctest::Approx(1.41421356));
        CHECK(scen->entries[2].line == 6);
        CHECK(scen->entries[2].optimal_length == 0.0);

        const auto header_only = parseScenario3D("version 1\nx.3dmap", "h.3dscen");
        REQUIRE(header_only.ok());
        CHECK(header_only->entries.empty());
    }

    TEST_CASE(".3dscen errors name the line") {
        const ErrorCase cases[] = {
            {"", "line 1: expected the header 'version 1'"},
            {"version 2\nm.3dmap\n", "line 1: expected the header 'version 1', got 'version 2'"},
            {"1 2 3 4 5 6 7 8\n", "line 1: expected the header 'version 1'"},
            {"version 1\n", "line 2: expected the map file name"},
            {"version 1\n  \n1 1 1 2 2 2 1.7 1\n", "line 2: expected the map file name"},
            {"version 1\nm\n1 1 1 2 2 2 1.7\n",
             "line 3: expected 8 fields 'sx sy sz gx gy gz "
             "optimal_length ratio', got 7"},
            {"version 1\nm\n1 1 1 2 2 2 1.7 1 9\n", "line 3: expected 8 fields"},
            {"version 1\nm\n1 1 1 2 2 2 1 1\n\n1 1 x 2 2 2 1 1\n",
             "line 5: start z coordinate 'x' is not a whole number"},
            {"version 1\nm\n1 1 1 2 -2 2 1 1\n", "line 3: goal y coordinate '-2' is not a whole"},
            {"version 1\nm\n1 1 1 2 2 2 abc 1\n", "line 3: optimal length 'abc' is not a finite"},
            {"version 1\nm\n1 1 1 2 2 2 -1 1\n",
             "line 3: optimal length '-1' is not a finite number"},
            {"version 1\nm\n1 1 1 2 2 2 1 nan\n", "line 3: ratio 'nan' is not a finite number"},
            {"version 1\r\nm\r\n0 0 0 0 0 0 0 0\r\n1 1 1 2 2 2 1 1x\r\n", "line 4: ratio '1x'"},
        };
        for (const ErrorCase& c : cases) {
            const auto scen = parseScenario3D(c.text, "bad.3dscen");
            INFO(c.text);
            REQUIRE_FALSE(scen.ok());
            INFO(scen.error().message);
            CHECK(scen.error().message.find(std::string("bad.3dscen: ") + c.expected) !=
                  std::string::npos);
        }
    }

    TEST_CASE("loading a .3dmap or .3dscen names a missing file") {
        nav::test::TempDir dir;
        const auto map = nav::importer::loadVoxelMap3D(dir / "missing.3dmap");
        REQUIRE_FALSE(map.ok());
        CHECK(map.error().message.find("missing.3dmap") != std::string::npos);
        nav::test::writeText(dir / "a.3dscen", "version 1\na.3dmap\n0 0 0 1 0 0 1 1\n");
        const auto scen = nav::importer::loadScenario3D(dir / "a.3dscen");
        REQUIRE(scen.ok());
        CHECK(scen->entries.size() == 1);
    }

    TEST_CASE("the sample maze3d map and scenarios parse") {
        const auto levels = nav::test::sampleLevels();
        const auto map = nav::importer::loadVoxelMap3D(levels / "maze3d.3dmap");
        REQUIRE(map.ok());
        CHECK(map->blockedCount() > 1000);
        const auto scen = nav::importer::loadScenario3D(levels / "maze3d.3dscen");
        REQUIRE(scen.ok());
        CHECK(scen->map_name == "maze3d.3dmap");
        CHECK(scen->entries.size() >= 50);
        for (const auto& e : scen->entries) {
            CHECK(e.start[0] < map->width);
            CHECK(e.start[1] < map->height);
            CHECK(e.start[2] < map->depth);
            CHECK_FALSE(map->isBlocked(e.start[0], e.start[1], e.start[2]));
            CHECK_FALSE(map->isBlocked(e.goal[0], e.goal[1], e.goal[2]));
        }
    }
}
