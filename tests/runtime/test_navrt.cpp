#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "lib/common/context.h"
#include "lib/geometry/geometry.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

const char* kSmallMap =
    "type octile\nheight 6\nwidth 9\nmap\n"
    ".........\n"
    ".@@@.@@..\n"
    ".@G..T...\n"
    ".@@@@@@S.\n"
    "..W....O.\n"
    ".........\n";

std::vector<uint8_t> smallVoxelArtifact(const test::TempDir& dir) {
    auto map = importer::parseMovingAiMap(kSmallMap, "small.map");
    REQUIRE(map.ok());
    const auto path = dir / "small.vox";
    REQUIRE(voxel::saveVoxels(path, importer::gridFromMap(*map)).ok());
    return test::readBytes(path);
}

struct CountingAllocator {
    int live = 0;
    int total = 0;
    static void* allocate(size_t size, void* user) {
        auto* self = static_cast<CountingAllocator*>(user);
        ++self->live;
        ++self->total;
        return std::aligned_alloc(16, (size + 15) / 16 * 16);
    }
    static void release(void* p, void* user) {
        --static_cast<CountingAllocator*>(user)->live;
        std::free(p);
    }
};

}  // namespace

TEST_SUITE("runtime") {
    TEST_CASE("navrt loads a voxel artifact from a file and from memory with identical views") {
        test::TempDir dir;
        const std::vector<uint8_t> bytes = smallVoxelArtifact(dir);

        navrt::Asset from_file, from_memory;
        REQUIRE_FALSE(navrt::load((dir / "small.vox").c_str(), from_file));
        REQUIRE_FALSE(navrt::loadFromMemory(bytes.data(), bytes.size(), from_memory));
        CHECK(from_file.kind() == navrt::fourcc("VOXL"));
        REQUIRE(from_file.sectionCount() == from_memory.sectionCount());
        for (uint32_t i = 0; i < from_file.sectionCount(); ++i) {
            const navrt::SectionView a = from_file.section(i), b = from_memory.section(i);
            CHECK(a.id == b.id);
            REQUIRE(a.size == b.size);
            CHECK(reinterpret_cast<uintptr_t>(a.data) % 16 == 0);
            CHECK(std::memcmp(a.data, b.data, a.size) == 0);
        }

        navrt::VoxelGridView view;
        REQUIRE_FALSE(navrt::viewVoxelGrid(from_memory, view));
        CHECK(view.header.size_x == 9);
        CHECK(view.header.size_z == 6);
        CHECK(view.header.walkable_count == 39);  // 54 cells, 15 blocked
        // Cell (2, 2) is 'G' (passable), cell (1, 1) is '@' (blocked).
        CHECK(view.columnEnd(2, 2) - view.columnBegin(2, 2) == 1);
        CHECK(view.span(view.columnBegin(2, 2)).flags == nav::formats::kSpanFlagWalkable);
        CHECK(view.span(view.columnBegin(1, 1)).flags == 0);

        navrt::GeometryView wrong;
        CHECK(navrt::viewGeometry(from_memory, wrong).code == navrt::ErrorCode::wrong_kind);
    }

    TEST_CASE("navrt reports missing files and wrong kinds as values") {
        navrt::Asset asset;
        CHECK(navrt::load("/nonexistent/file.vox", asset).code == navrt::ErrorCode::io_error);
        CHECK_FALSE(asset.loaded());
        test::TempDir dir;
        const std::vector<uint8_t> bytes = smallVoxelArtifact(dir);
        navrt::LoadOptions options;
        options.expected_kind = navrt::fourcc("NAVA");
        CHECK(navrt::loadFromMemory(bytes.data(), bytes.size(), asset, options).code ==
              navrt::ErrorCode::wrong_kind);
        options = {};
        options.max_memory = 16;
        CHECK(navrt::loadFromMemory(bytes.data(), bytes.size(), asset, options).code ==
              navrt::ErrorCode::out_of_memory);
    }

    TEST_CASE("navrt uses the allocator hook and frees everything") {
        test::TempDir dir;
        const std::vector<uint8_t> bytes = smallVoxelArtifact(dir);
        CountingAllocator counter;
        navrt::LoadOptions options;
        options.allocator = {&CountingAllocator::allocate, &CountingAllocator::release, &counter};
        {
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::loadFromMemory(bytes.data(), bytes.size(), asset, options));
            CHECK(counter.live == 1);  // the section buffer
            navrt::Asset moved = std::move(asset);
            CHECK(moved.sectionCount() > 0);
            CHECK(asset.sectionCount() == 0);
        }
        CHECK(counter.total >= 2);
        CHECK(counter.live == 0);
    }

    // Acceptance: flips and truncations at many offsets of real artifacts always give an error,
    // never a crash (this test also runs under the asan target).
    TEST_CASE("navrt rejects every corrupted or truncated artifact") {
        test::TempDir dir;
        std::vector<std::vector<uint8_t>> artifacts = {smallVoxelArtifact(dir)};
        const auto level = test::sampleLevels() / "indoor_two_floors.glb";
        if (std::filesystem::exists(level)) {
            Context context;
            auto geometry = importer::importScene(level, {}, context);
            REQUIRE(geometry.ok());
            REQUIRE(geometry::saveGeometry(dir / "level.geo", *geometry).ok());
            artifacts.push_back(test::readBytes(dir / "level.geo"));
        }
        for (const auto& good : artifacts) {
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::loadFromMemory(good.data(), good.size(), asset));
            const size_t stride = good.size() > 20000 ? 7 : 1;
            size_t checked = 0;
            for (size_t offset = 0; offset < good.size(); offset += stride) {
                for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
                    auto bytes = good;
                    bytes[offset] ^= mask;
                    const navrt::Error e = navrt::loadFromMemory(bytes.data(), bytes.size(), asset);
                    REQUIRE_MESSAGE(e.code != navrt::ErrorCode::ok, "flip ", int(mask), " at ",
                                    offset);
                    CHECK(std::strlen(e.message) > 0);
                    ++checked;
                }
                const navrt::Error cut = navrt::loadFromMemory(good.data(), offset, asset);
                REQUIRE_MESSAGE(cut.code == navrt::ErrorCode::truncated, "cut at ", offset);
            }
            CHECK(checked > 1000);
        }
    }
}
