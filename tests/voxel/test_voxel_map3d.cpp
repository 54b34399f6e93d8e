#include <doctest/doctest.h>

#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

TEST_SUITE("voxel") {
    TEST_CASE("a 3D voxel map becomes columns of blocked runs") {
        // 3 x 5 x 2 (width x height x depth); column (1, 0) holds y = 0, 1, 3 (two runs), column
        // (2, 1) is solid top to bottom, column (0, 1) only at the top.
        auto map = importer::parseVoxelMap3D(
            "voxel 3 5 2\n1 0 0\n1 1 0\n1 3 0\n2 0 1\n2 1 1\n2 2 1\n2 3 1\n2 4 1\n0 4 1\n1 1 0\n",
            "m.3dmap");
        REQUIRE(map.ok());
        const voxel::VoxelGrid grid = importer::gridFromVoxelMap(*map);
        CHECK(grid.source == formats::VoxelSource::voxel_map);
        CHECK(grid.size_x == 3);
        CHECK(grid.size_y == 5);
        CHECK(grid.size_z == 2);
        CHECK(grid.cell_size == 1.0f);
        CHECK(grid.cell_height == 1.0f);
        CHECK(grid.origin[0] == 0.0f);
        CHECK(grid.origin[1] == 0.0f);
        CHECK(grid.origin[2] == 0.0f);
        CHECK(grid.agent.height == 1.0f);
        CHECK(grid.agent.radius == 0.0f);
        CHECK(grid.agent.climb == 0.0f);
        CHECK(grid.walkableCount() == 0);
        REQUIRE(grid.column_offsets.size() == 7);
        CHECK(grid.spans.size() == 4);
        CHECK(grid.column(0, 0).empty());
        const auto two_runs = grid.column(1, 0);
        REQUIRE(two_runs.size() == 2);
        CHECK(two_runs[0] == voxel::Span{0, 2, geometry::kObstacleArea, false});
        CHECK(two_runs[1] == voxel::Span{3, 4, geometry::kObstacleArea, false});
        const auto full = grid.column(2, 1);
        REQUIRE(full.size() == 1);
        CHECK(full[0] == voxel::Span{0, 5, geometry::kObstacleArea, false});
        const auto top = grid.column(0, 1);
        REQUIRE(top.size() == 1);
        CHECK(top[0] == voxel::Span{4, 5, geometry::kObstacleArea, false});

        // Every voxel is solid exactly when the map says blocked.
        for (uint32_t z = 0; z < map->depth; ++z)
            for (uint32_t x = 0; x < map->width; ++x)
                for (uint32_t y = 0; y < map->height; ++y) {
                    bool solid = false;
                    for (const voxel::Span& s : grid.column(x, z))
                        solid |= s.y_min <= y && y < s.y_max;
                    CHECK(solid == map->isBlocked(x, y, z));
                }

        // The grid saves as a valid .vox and loads back equal.
        test::TempDir dir;
        REQUIRE(voxel::saveVoxels(dir / "m.vox", grid).ok());
        auto loaded = voxel::loadVoxels(dir / "m.vox");
        REQUIRE(loaded.ok());
        CHECK(*loaded == grid);
    }
}
