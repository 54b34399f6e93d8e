// The strips layout of .geo (world builds, FORMAT.md §4.6), the container tail it is written in,
// and the OBJ positions spilled to disk.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>

#include <unistd.h>

#include "formats/bytes.h"
#include "formats/layouts.h"
#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/geometry/geometry.h"
#include "lib/importer/import.h"
#include "lib/importer/obj_reader.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A level whose triangles straddle strip borders on purpose: floors and boxes on whole metres
// (strip borders of 1 and 2 m strips), negative Z (negative strips), a slope, a long thin wall
// across every strip, one ground triangle under everything, a degenerate and a sliver triangle.
std::string trickyLevel() {
    std::string obj;
    obj += test::objQuad("ground", -12, -9, 14, 11, 0);
    obj += test::objBox("crate_a", 1, 0, 2, 3, 1.4f, 4);
    obj += test::objBox("crate_b", -4, 0, -6, -2.5f, 2.2f, -2);
    obj += test::objBox("wall", 5, 0, -8, 5.4f, 3, 10);
    obj += test::objQuad("deck", -8, -1, -3, 6, 1.8f);
    obj += test::objBox("pillar", -1.3f, 0, 7.7f, -0.2f, 6, 8.9f);
    // A ramp rising along Z from z = -3 to 5, and a big triangle above the ground (a roof).
    obj += "o ramp\nv 8 0 -3\nv 11 0 -3\nv 11 2 5\nv 8 2 5\nf -4 -1 -2 -3\n";
    obj += "o roof\nv -11 4 -8.5\nv 13 4.5 10.5\nv -11 4 10.5\nf -3 -1 -2\n";
    obj += "o bad\nv 0 0.5 0\nv 1 0.5 0\nv 2 0.5 0\nf -3 -3 -2\nf -3 -1 -2\n";
    return obj;
}

struct Baked {
    StageResult import_result;
    std::vector<uint8_t> vox;
};

Baked bake(const std::filesystem::path& dir, const std::string& name, float strip_size, int threads,
           const voxel::VoxelizeParams& base = {}) {
    Context context;
    importer::ImportStage::Params ip;
    ip.strip_size = strip_size;
    Baked out;
    auto imported =
        importer::ImportStage::run({{dir / "level.obj"}}, ip, dir / (name + ".geo"), context);
    REQUIRE_MESSAGE(imported.ok(), imported.error().message);
    out.import_result = *imported;
    voxel::VoxelizeParams vp = base;
    vp.threads = threads;
    auto voxelized = voxel::VoxelizeStage::run({dir / (name + ".geo"), "level.obj"}, vp,
                                               dir / (name + ".vox"), context);
    REQUIRE_MESSAGE(voxelized.ok(), voxelized.error().message);
    out.vox = test::readBytes(dir / (name + ".vox"));
    return out;
}

// trickyLevel() imported into dir/s.geo in strips of `strip_size` metres.
void importTricky(const std::filesystem::path& dir, float strip_size) {
    test::writeText(dir / "level.obj", trickyLevel());
    Context context;
    importer::ImportStage::Params ip;
    ip.strip_size = strip_size;
    REQUIRE(importer::ImportStage::run({{dir / "level.obj"}}, ip, dir / "s.geo", context).ok());
}

// The files in `dir` whose name starts with `prefix` (temporaries left behind).
size_t filesStartingWith(const std::filesystem::path& dir, const std::string& prefix) {
    size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        n += entry.path().filename().string().rfind(prefix, 0) == 0;
    return n;
}

}  // namespace

TEST_SUITE("geometry") {
    TEST_CASE(
        "strips layout: the same .vox as the indexed geometry at any strip size and thread count") {
        test::TempDir dir;
        test::writeText(dir / "level.obj", trickyLevel());
        const Baked indexed = bake(dir.path(), "indexed", 0, 1);
        CHECK(test::countOf(indexed.import_result, "vertices") > 0);
        for (float size : {16.0f, 2.0f, 1.0f, 0.9f}) {
            for (int threads : {1, 3}) {
                CAPTURE(size);
                CAPTURE(threads);
                const Baked strips = bake(dir.path(), "strips", size, threads);
                CHECK(strips.vox == indexed.vox);
                CHECK(test::countOf(strips.import_result, "triangles") ==
                      test::countOf(indexed.import_result, "triangles"));
                // Every triangle is stored once per strip it meets: more copies than triangles
                // when strips are smaller than the boxes.
                const uint64_t copies = test::countOf(strips.import_result, "strip_copies");
                CHECK(copies >= test::countOf(strips.import_result, "triangles"));
                if (size <= 2) {
                    CHECK(copies > test::countOf(strips.import_result, "triangles"));
                    CHECK(test::countOf(strips.import_result, "strips") >= 19 / size);
                }
            }
        }
        // Voxelized a block of columns at a time (blocks narrower than the halo, wider, and one
        // as wide as a 64-column cut segment), with and without erosion, at 1 and 3 threads: the
        // same grid, and no spill file left.
        for (uint32_t block : {16u, 29u, 40u}) {
            for (float radius : {0.6f, 0.0f}) {
                CAPTURE(block);
                CAPTURE(radius);
                voxel::VoxelizeParams whole_params, blocked_params;
                whole_params.agent.radius = blocked_params.agent.radius = radius;
                blocked_params.column_block = block;
                const Baked reference = bake(dir.path(), "indexed_r", 0, 1, whole_params);
                for (int threads : {1, 3}) {
                    const Baked blocked =
                        bake(dir.path(), "strips_c", 1.0f, threads, blocked_params);
                    CHECK(blocked.vox == reference.vox);
                }
            }
        }
        CHECK(filesStartingWith(dir.path(), ".strips_c") == 0);

        // The degenerate and the sliver are dropped as the indexed import drops them.
        geometry::StoredTriangles stored;
        auto strips_geo = geometry::loadGeometry(dir / "strips.geo", stored);
        REQUIRE(strips_geo.ok());
        auto indexed_geo = geometry::loadGeometry(dir / "indexed.geo");
        REQUIRE(indexed_geo.ok());
        CHECK(strips_geo->dropped_degenerate == indexed_geo->dropped_degenerate);
        CHECK(indexed_geo->dropped_degenerate == 2);
        CHECK(stored.bounds() == indexed_geo->bounds());
        CHECK(strips_geo->objects == indexed_geo->objects);

        // Bake bounds: the strips become whole triangles again (decodeInto), the same grid.
        voxel::VoxelizeParams bounded;
        bounded.bounds.push_back({{-6, -1, -5}, {7, 5, 6}});
        const Baked indexed_bounded = bake(dir.path(), "indexed_b", 0, 2, bounded);
        const Baked strips_bounded = bake(dir.path(), "strips_b", 1.0f, 2, bounded);
        CHECK(strips_bounded.vox == indexed_bounded.vox);
        CHECK(indexed_bounded.vox != indexed.vox);

        // Readers that need vertex arrays refuse the layout by name.
        auto whole = geometry::loadGeometry(dir / "strips.geo");
        REQUIRE_FALSE(whole.ok());
        CHECK(whole.error().message.find("strips (kind version 4") != std::string::npos);
        // No spill file is left beside the outputs.
        CHECK(filesStartingWith(dir.path(), ".strips") == 0);
        CHECK(filesStartingWith(dir.path(), ".positions") == 0);
        // Those of a killed import (a process that is gone) are removed by the next one; a live
        // process's and names that do not parse are left.
        const std::string live = std::to_string(::getppid());
        for (const std::string& name :
             {std::string(".strips.geo.strips-2147483646-0"),
              std::string(".positions-2147483646-3.tmp"), ".strips.geo.strips-" + live + "-0",
              std::string(".strips.geo.strips-x-0")})
            test::writeText(dir / name, "spill");
        bake(dir.path(), "strips", 2.0f, 1);
        CHECK_FALSE(std::filesystem::exists(dir / ".strips.geo.strips-2147483646-0"));
        CHECK_FALSE(std::filesystem::exists(dir / ".positions-2147483646-3.tmp"));
        CHECK(std::filesystem::exists(dir / (".strips.geo.strips-" + live + "-0")));
        CHECK(std::filesystem::exists(dir / ".strips.geo.strips-x-0"));
    }

    TEST_CASE(
        "strips layout: every triangle is taken exactly once by a reader of strips from any first "
        "strip") {
        test::TempDir dir;
        importTricky(dir.path(), 1.0f);
        geometry::StoredTriangles stored;
        REQUIRE(geometry::loadGeometry(dir / "s.geo", stored).ok());
        const geometry::StoredStrips& strips = *stored.strips();
        // Each triangle (by its record's bytes) and the strips holding a copy of it.
        std::map<std::array<uint8_t, 37>, std::vector<int64_t>> copies;
        std::map<std::array<uint8_t, 37>, geometry::StripTriangle> triangles;
        for (size_t i = 0; i < strips.stripCount(); ++i)
            REQUIRE(strips
                        .forEach(i,
                                 [&](std::span<const geometry::StripTriangle> records) {
                                     for (const geometry::StripTriangle& t : records) {
                                         std::array<uint8_t, 37> key{};
                                         std::memcpy(key.data(), t.p.data(), 36);
                                         key[36] = t.area;
                                         copies[key].push_back(strips.stripIndex(i));
                                         triangles[key] = t;
                                     }
                                     return Status{};
                                 })
                        .ok());
        CHECK(copies.size() == stored.count());
        size_t spanning = 0;
        for (const auto& [key, held] : copies) {
            const geometry::StripTriangle& t = triangles[key];
            const int64_t first = geometry::stripOf(std::min({t.p[2], t.p[5], t.p[8]}), 1.0f);
            const int64_t last = geometry::stripOf(std::max({t.p[2], t.p[5], t.p[8]}), 1.0f);
            REQUIRE(held.size() == size_t(last - first + 1));  // one copy per strip it meets
            for (size_t k = 0; k < held.size(); ++k) CHECK(held[k] == first + int64_t(k));
            spanning += held.size() > 1;
            for (int64_t from = first - 2; from <= last + 2; ++from) {
                size_t taken = 0;
                for (int64_t s : held) taken += geometry::takesCopy(t, 1.0f, s, from);
                CHECK(taken == (from <= last ? 1u : 0u));
            }
        }
        CHECK(spanning > 10);
    }

    TEST_CASE("OBJ positions spilled past the resident window read back exactly") {
        test::TempDir dir;
        const size_t count =
            importer::ObjPositions::kBlock * (importer::ObjPositions::kResident + 3) + 77;
        {
            importer::ObjPositions positions;
            REQUIRE(positions.spillTo(dir.path()).ok());
            std::vector<float> xyz;
            for (size_t i = 0; i < count; ++i)
                xyz.insert(xyz.end(), {float(i), float(i % 7) * 0.5f, -float(i) * 0.25f});
            // In uneven pieces, as the reader hands them over.
            for (size_t at = 0; at < count;) {
                const size_t n = std::min<size_t>(count - at, 1 + (at * 7919) % 50000);
                REQUIRE(positions.append(xyz.data() + 3 * at, n).ok());
                at += n;
            }
            CHECK(positions.count() == count);
            // 12 blocks made (the last partial), 8 held.
            CHECK(positions.spilled() == 4 * importer::ObjPositions::kBlock);
            CHECK(filesStartingWith(dir.path(), ".positions") == 1);
            std::mt19937 random(7);
            for (int k = 0; k < 20000; ++k) {
                const uint64_t i = random() % count;
                const std::array<float, 3> p = positions.at(i);
                REQUIRE(p == std::array<float, 3>{xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]});
            }
            CHECK(positions.readError().ok());
            importer::ObjPositions moved = std::move(positions);
            CHECK(moved.at(5) == std::array<float, 3>{5.0f, 2.5f, -1.25f});
        }
        CHECK(filesStartingWith(dir.path(), ".positions") == 0);
    }

    TEST_CASE(
        "an OBJ with faces far from their positions imports through the spill as it does in "
        "memory") {
        // Enough positions to spill (the window is kResident blocks); faces at the end name the
        // first positions (spilled by then), others name recent ones.
        test::TempDir dir;
        const size_t side = 820;  // 820 x 820 = 672,400 positions
        static_assert(820 * 820 >
                      importer::ObjPositions::kBlock * importer::ObjPositions::kResident);
        std::string obj = "o field\n";
        obj.reserve(side * side * 24);
        for (size_t z = 0; z < side; ++z)
            for (size_t x = 0; x < side; ++x)
                obj += fmt::format("v {} {} {}\n", float(x) * 0.05f, float((x * z) % 5) * 0.01f,
                                   float(z) * 0.05f);
        auto at = [&](size_t x, size_t z) { return z * side + x + 1; };
        // A strip of quads over the last rows (recent positions) and over the first rows.
        for (size_t z : {size_t(0), size_t(1), size_t(2), side - 3, side - 2})
            for (size_t x = 0; x + 1 < side; x += 3)
                obj += fmt::format("f {} {} {} {}\n", at(x, z), at(x, z + 1), at(x + 1, z + 1),
                                   at(x + 1, z));
        test::writeText(dir / "level.obj", obj);
        const Baked indexed = bake(dir.path(), "indexed", 0, 2);
        const Baked strips = bake(dir.path(), "strips", 4.0f, 2);
        CHECK(strips.vox == indexed.vox);
        CHECK(test::countOf(strips.import_result, "triangles") ==
              test::countOf(indexed.import_result, "triangles"));
        CHECK(filesStartingWith(dir.path(), ".positions") == 0);
    }

    TEST_CASE("a container's tail stays on disk: the head reads, checks and refusals") {
        test::TempDir dir;
        std::vector<uint8_t> tail(300000);
        for (size_t i = 0; i < tail.size(); ++i) tail[i] = uint8_t(i * 31 + (i >> 9));
        {
            std::ofstream out(dir / "tail.bin", std::ios::binary);
            out.write(reinterpret_cast<const char*>(tail.data()), std::streamsize(tail.size()));
        }
        formats::ContainerWriter writer(formats::kKindGeometry, 1);
        writer.add(formats::fourcc("HEAD"), std::vector<uint8_t>{1, 2, 3, 4, 5});
        writer.setTail(formats::fourcc("TAIL"), tail.size(),
                       formats::xxhash64(tail.data(), tail.size()));
        REQUIRE(saveContainer(dir / "c.bin", writer, dir / "tail.bin").ok());
        // Whole, it is an ordinary container.
        auto whole = loadContainer(dir / "c.bin");
        REQUIRE(whole.ok());
        CHECK(whole->section(formats::fourcc("TAIL")).value() == tail);
        // Its head: everything before the tail, which section() refuses to read.
        auto head = loadContainerHead(dir / "c.bin", formats::kKindGeometry, 1);
        REQUIRE(head.ok());
        CHECK(head->bytes.size() == whole->container.sections[1].offset);
        CHECK(head->section(formats::fourcc("HEAD")).value() ==
              std::vector<uint8_t>{1, 2, 3, 4, 5});
        auto left = head->section(formats::fourcc("TAIL"));
        REQUIRE_FALSE(left.ok());
        CHECK(left.error().message.find("left on disk") != std::string::npos);
        // A truncated file is refused by the head too (the size is the file's, not the head's).
        auto bytes = test::readBytes(dir / "c.bin");
        bytes.pop_back();
        REQUIRE(writeFileAtomic(dir / "short.bin", bytes).ok());
        auto truncated = loadContainerHead(dir / "short.bin", formats::kKindGeometry, 1);
        REQUIRE_FALSE(truncated.ok());
        CHECK(truncated.error().message.find("truncated") != std::string::npos);
        CHECK(!loadContainer(dir / "short.bin").ok());
    }

    TEST_CASE(
        "two tails: each copied from its file after the head at the section alignment; the same "
        "bytes as the container holding them; a short tail file is an error") {
        test::TempDir dir;
        // Odd sizes, so the second tail starts after zero padding; each file longer than its
        // tail (only the tail's bytes are copied).
        std::vector<uint8_t> a(70001), b(12347);
        for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i * 7 + (i >> 8));
        for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(i * 13 + 5);
        auto put = [&](const char* name, const std::vector<uint8_t>& bytes) {
            std::vector<uint8_t> longer = bytes;
            longer.insert(longer.end(), {9, 9, 9});
            REQUIRE(writeFileAtomic(dir / name, longer).ok());
        };
        put("a.bin", a);
        put("b.bin", b);
        formats::ContainerWriter writer(formats::kKindGeometry, 1);
        writer.add(formats::fourcc("HEAD"), std::vector<uint8_t>{1, 2, 3});
        writer.setTail(formats::fourcc("TLA "), a.size(), formats::xxhash64(a.data(), a.size()));
        writer.setTail(formats::fourcc("TLB "), b.size(), formats::xxhash64(b.data(), b.size()));
        REQUIRE(saveContainer(dir / "c.bin", writer, {dir / "a.bin", dir / "b.bin"}).ok());
        auto whole = loadContainer(dir / "c.bin");
        REQUIRE(whole.ok());
        CHECK(whole->section(formats::fourcc("TLA ")).value() == a);
        CHECK(whole->section(formats::fourcc("TLB ")).value() == b);
        CHECK(whole->container.sections[2].offset % formats::kSectionAlignment == 0);
        CHECK(whole->container.sections[2].offset > whole->container.sections[1].offset + a.size());
        // Byte for byte the container that holds both sections raw.
        formats::ContainerWriter held(formats::kKindGeometry, 1);
        held.add(formats::fourcc("HEAD"), std::vector<uint8_t>{1, 2, 3});
        held.add(formats::fourcc("TLA "), a, formats::Codec::raw);
        held.add(formats::fourcc("TLB "), b, formats::Codec::raw);
        REQUIRE(saveContainer(dir / "held.bin", held).ok());
        CHECK(test::readBytes(dir / "c.bin") == test::readBytes(dir / "held.bin"));
        // A tail file shorter than its tail, or a file missing, is an error (no file written).
        REQUIRE(
            writeFileAtomic(dir / "short.bin", std::vector<uint8_t>(b.begin(), b.end() - 1)).ok());
        auto shorter = saveContainer(dir / "d.bin", writer, {dir / "a.bin", dir / "short.bin"});
        REQUIRE_FALSE(shorter.ok());
        CHECK(shorter.error().message.find("the file ends") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "d.bin"));
        CHECK_FALSE(saveContainer(dir / "d.bin", writer, {dir / "a.bin"}).ok());
    }

    TEST_CASE(
        "strips layout: blocks carry their X extent; a reader of a column range skips the blocks "
        "beside it and misses no triangle") {
        test::TempDir dir;
        // A 300 x 3 m ground of 1 m quads, row by row (a row is 600 triangles: more than a
        // block), and a box on it; strips of 1 m.
        std::string obj = "o ground\n";
        for (int z = 0; z <= 3; ++z)
            for (int x = 0; x <= 300; ++x) obj += fmt::format("v {} 0 {}\n", x, z);
        for (int z = 0; z < 3; ++z)
            for (int x = 0; x < 300; ++x) {
                const int a = z * 301 + x + 1, b = a + 1, c = a + 301, d = c + 1;
                obj += fmt::format("f {} {} {} {}\n", a, c, d, b);
            }
        obj += test::objBox("crate", 150.2f, 0, 0.5f, 151.7f, 1.5f, 2.5f);
        test::writeText(dir / "level.obj", obj);
        Context context;
        importer::ImportStage::Params ip;
        ip.strip_size = 1.0f;
        REQUIRE(importer::ImportStage::run({{dir / "level.obj"}}, ip, dir / "s.geo", context).ok());
        geometry::StoredTriangles stored;
        REQUIRE(geometry::loadGeometry(dir / "s.geo", stored).ok());
        const geometry::StoredStrips& strips = *stored.strips();
        for (auto [lo, hi] : {std::pair{-5.0f, 10.0f}, std::pair{149.5f, 152.0f},
                              std::pair{290.0f, 400.0f}, std::pair{-10.0f, -1.0f}}) {
            CAPTURE(lo);
            CAPTURE(hi);
            const uint64_t skipped = strips.blocksSkipped();
            for (size_t i = 0; i < strips.stripCount(); ++i) {
                std::multiset<std::array<float, 9>> all, seen;
                auto meets = [&](const geometry::StripTriangle& t) {
                    return std::max({t.p[0], t.p[3], t.p[6]}) >= lo &&
                           std::min({t.p[0], t.p[3], t.p[6]}) <= hi;
                };
                REQUIRE(strips
                            .forEach(i,
                                     [&](std::span<const geometry::StripTriangle> records) {
                                         for (const auto& t : records)
                                             if (meets(t)) all.insert(t.p);
                                         return Status{};
                                     })
                            .ok());
                REQUIRE(strips
                            .forEach(
                                i,
                                [&](std::span<const geometry::StripTriangle> records) {
                                    for (const auto& t : records)
                                        if (meets(t)) seen.insert(t.p);
                                    return Status{};
                                },
                                lo, hi)
                            .ok());
                CHECK(seen == all);
                if (lo < 0 && hi < 0) CHECK(all.empty());
            }
            CHECK(strips.blocksSkipped() > skipped);  // (each strip has blocks far off)
        }
        // Voxelized a block of columns at a time (the blocks' readers skipping), the same grid as
        // the indexed geometry's.
        REQUIRE(importer::ImportStage::run({{dir / "level.obj"}}, {}, dir / "i.geo", context).ok());
        voxel::VoxelizeParams vp;
        vp.column_block = 200;
        REQUIRE(voxel::VoxelizeStage::run({dir / "s.geo", "level.obj"}, vp, dir / "s.vox", context)
                    .ok());
        REQUIRE(voxel::VoxelizeStage::run({dir / "i.geo", "level.obj"}, {}, dir / "i.vox", context)
                    .ok());
        CHECK(test::readBytes(dir / "s.vox") == test::readBytes(dir / "i.vox"));
        auto grid = voxel::loadVoxels(dir / "s.vox");
        REQUIRE(grid.ok());
        CHECK(grid->size_x > 900);  // 5 blocks
        CHECK(std::count_if(grid->spans.begin(), grid->spans.end(),
                            [](const voxel::Span& span) { return span.walkable; }) > 1000);
    }

    TEST_CASE("stripOf: floor(z / size), clamped far away and for non-finite values") {
        CHECK(geometry::stripOf(0.0f, 2.0f) == 0);
        CHECK(geometry::stripOf(-0.5f, 2.0f) == -1);
        CHECK(geometry::stripOf(7.9f, 2.0f) == 3);
        const int64_t limit = int64_t(1) << 62;
        CHECK(geometry::stripOf(1e30f, 1e-30f) == limit);
        CHECK(geometry::stripOf(-1e30f, 1e-30f) == -limit);
        CHECK(geometry::stripOf(INFINITY, 1.0f) == limit);
        CHECK(geometry::stripOf(-INFINITY, 1.0f) == -limit);
        CHECK(geometry::stripOf(NAN, 1.0f) == -limit);
    }

    TEST_CASE("strips layout: corrupt strips are refused with the file, section and byte") {
        test::TempDir dir;
        importTricky(dir.path(), 2.0f);
        const std::vector<uint8_t> good = test::readBytes(dir / "s.geo");
        auto head = loadContainerHead(dir / "s.geo", formats::kKindGeometry, 5);
        REQUIRE(head.ok());
        const formats::SectionEntry tail =
            head->container.sections[head->container.section_count - 1];
        // A byte of the tail flipped: its checksum fails before any block is read.
        std::vector<uint8_t> flipped = good;
        flipped[size_t(tail.offset + tail.stored_size / 2)] ^= 0x10;
        REQUIRE(writeFileAtomic(dir / "flipped.geo", flipped).ok());
        geometry::StoredTriangles stored;
        auto bad = geometry::loadGeometry(dir / "flipped.geo", stored);
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find("flipped.geo: byte") != std::string::npos);
        CHECK(bad.error().message.find("'GSTP'") != std::string::npos);
        CHECK(bad.error().message.find("checksum mismatch") != std::string::npos);

        // Tables rewritten (valid checksums, bad contents): a block outside GSTP, strips out of
        // order, and a record whose Z extent misses its strip.
        auto table = head->section(formats::kSecGeometryStrips);
        REQUIRE(table.ok());
        const uint32_t strip_count = formats::loadLe32(table->data() + 4);
        REQUIRE(strip_count >= 3);
        auto rewrite = [&](const std::string& name, std::vector<uint8_t> gstr,
                           std::vector<uint8_t> blocks,
                           uint32_t version = formats::kGeometryStripExtentsVersion) {
            formats::ContainerWriter w(formats::kKindGeometry, version);
            for (uint32_t i = 0; i + 1 < head->container.section_count; ++i) {
                const uint32_t id = head->container.sections[i].id;
                if (id == formats::kSecGeometryStrips) continue;
                w.add(id, head->section(id).value(), formats::Codec::raw);
            }
            w.add(formats::kSecGeometryStrips, std::move(gstr));
            {
                std::ofstream out(dir / "tail.bin", std::ios::binary | std::ios::trunc);
                out.write(reinterpret_cast<const char*>(blocks.data()),
                          std::streamsize(blocks.size()));
            }
            w.setTail(formats::kSecGeometryStripBlocks, blocks.size(),
                      formats::xxhash64(blocks.data(), blocks.size()));
            REQUIRE(saveContainer(dir / name, w, dir / "tail.bin").ok());
            geometry::StoredTriangles s;
            auto g = geometry::loadGeometry(dir / name, s);
            if (!g.ok()) return g.error().message;
            for (size_t i = 0; i < s.strips()->stripCount(); ++i)
                if (Status st = s.strips()->forEach(
                        i, [](std::span<const geometry::StripTriangle>) { return Status{}; });
                    !st)
                    return st.error().message;
            return std::string("accepted");
        };
        const std::vector<uint8_t> blocks(good.begin() + ptrdiff_t(tail.offset), good.end());
        CHECK(rewrite("same.geo", *table, blocks) == "accepted");
        const size_t block0 = 16 + 16 * size_t(strip_count);
        std::vector<uint8_t> outside = *table;
        formats::storeLe64(outside.data() + block0, blocks.size());
        const std::string outside_error = rewrite("outside.geo", outside, blocks);
        CHECK(outside_error.find("outside.geo: section 'GSTR' byte") != std::string::npos);
        CHECK(outside_error.find("lies outside 'GSTP'") != std::string::npos);
        std::vector<uint8_t> order = *table;
        formats::storeLe64(order.data() + 16 + 16, formats::loadLe64(order.data() + 16));
        CHECK(rewrite("order.geo", order, blocks).find("not in increasing order") !=
              std::string::npos);
        // Strip 0's index moved by 5: its records' Z no longer meets it.
        std::vector<uint8_t> moved = *table;
        formats::storeLe64(moved.data() + 16, formats::loadLe64(moved.data() + 16) - 5);
        const std::string moved_error = rewrite("moved.geo", moved, blocks);
        CHECK(moved_error.find("moved.geo: strip block 0 record 0") != std::string::npos);
        CHECK(moved_error.find("misses strip") != std::string::npos);
        // Found by fuzz_artifact (tests/fuzz/regressions/artifact/strip-of-far-coordinate): a
        // strip size of 1e-30 m made a record's strip number overflow int64 (undefined). The
        // strip numbers are clamped, and the records miss their strips.
        std::vector<uint8_t> tiny = *table;
        const float tiny_size = 1e-30f;
        std::memcpy(tiny.data(), &tiny_size, 4);
        CHECK(rewrite("tiny.geo", tiny, blocks).find("misses strip") != std::string::npos);
        // Block 0's X extent shrunk to a point left of everything: its records lie outside it.
        std::vector<uint8_t> shrunk = *table;
        const float far_left = -1000.0f;
        std::memcpy(shrunk.data() + block0 + 16, &far_left, 4);
        std::memcpy(shrunk.data() + block0 + 20, &far_left, 4);
        const std::string shrunk_error = rewrite("shrunk.geo", shrunk, blocks);
        CHECK(shrunk_error.find("shrunk.geo: strip block 0 record 0") != std::string::npos);
        CHECK(shrunk_error.find("X extent lies outside the block's") != std::string::npos);
        std::vector<uint8_t> reversed = *table;
        std::memcpy(reversed.data() + block0 + 16, &far_left, 4);
        const float further_left = -2000.0f;
        std::memcpy(reversed.data() + block0 + 20, &further_left, 4);
        CHECK(rewrite("reversed.geo", reversed, blocks).find("has the X extent [-1000, -2000]") !=
              std::string::npos);
        // Kind version 4 (16-byte block entries, no extents) is still read: the same triangles.
        std::vector<uint8_t> v4(table->begin(), table->begin() + ptrdiff_t(block0));
        const uint32_t block_count = formats::loadLe32(table->data() + 8);
        for (uint32_t b = 0; b < block_count; ++b) {
            const uint8_t* entry = table->data() + block0 + 24 * size_t(b);
            v4.insert(v4.end(), entry, entry + 16);
        }
        CHECK(rewrite("v4.geo", v4, blocks, formats::kGeometryStripsVersion) == "accepted");
        CHECK(rewrite("v4_as_v5.geo", v4, blocks).find("expected") != std::string::npos);
    }
}
