#include <doctest/doctest.h>

#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

TEST_SUITE("voxel") {
    TEST_CASE("a grid map becomes one walkable layer at Y = 0 with walls elsewhere") {
        auto map =
            importer::parseMovingAiMap("type octile\nheight 2\nwidth 3\nmap\n.@.\nS.T\n", "m");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromMap(*map);
        CHECK(grid.size_x == 3);
        CHECK(grid.size_z == 2);
        CHECK(grid.cell_size == 1.0f);
        CHECK(grid.walkableCount() == 4);
        const auto floor = grid.column(0, 1);  // 'S'
        REQUIRE(floor.size() == 1);
        CHECK(floor[0].walkable);
        CHECK(grid.topY(floor[0]) == 0.0f);
        const auto wall = grid.column(1, 0);  // '@'
        REQUIRE(wall.size() == 1);
        CHECK_FALSE(wall[0].walkable);
        CHECK(grid.topY(wall[0]) > 2.0f);
        const voxel::VoxelStats stats = voxel::computeStats(grid);
        CHECK(stats.walkable_columns == 4);
        CHECK(stats.max_walkable_layers == 1);
    }

    TEST_CASE("voxel grid round trip and deterministic bytes") {
        test::TempDir dir;
        voxel::VoxelGrid grid;
        grid.size_x = 2;
        grid.size_z = 1;
        grid.size_y = 40;
        grid.origin[0] = -1.5f;
        grid.column_offsets = {0, 2, 3};
        grid.spans = {{0, 5, 1, true}, {20, 22, 2, true}, {3, 40, 0, false}};
        grid.areas.push_back({"water", 3.0f, true});
        REQUIRE(voxel::saveVoxels(dir / "a.vox", grid).ok());
        REQUIRE(voxel::saveVoxels(dir / "b.vox", grid).ok());
        CHECK(test::readBytes(dir / "a.vox") == test::readBytes(dir / "b.vox"));
        auto loaded = voxel::loadVoxels(dir / "a.vox");
        REQUIRE(loaded.ok());
        CHECK(*loaded == grid);
        const voxel::VoxelStats stats = voxel::computeStats(*loaded);
        CHECK(stats.multi_layer_columns == 1);
        CHECK(stats.max_walkable_layers == 2);
    }

    TEST_CASE("inconsistent spans are rejected on load with the section named") {
        test::TempDir dir;
        voxel::VoxelGrid grid;
        grid.size_x = 1;
        grid.size_z = 1;
        grid.size_y = 10;
        grid.column_offsets = {0, 2};
        grid.spans = {{0, 5, 1, true}, {4, 8, 1, true}};  // overlapping
        REQUIRE(voxel::saveVoxels(dir / "bad.vox", grid).ok());
        auto loaded = voxel::loadVoxels(dir / "bad.vox");
        REQUIRE_FALSE(loaded.ok());
        CHECK(loaded.error().message.find("section 'SPAN'") != std::string::npos);
        CHECK(loaded.error().message.find("overlaps") != std::string::npos);
    }
}
