#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/geometry/geometry.h"
#include "lib/runtime/navrt.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

geometry::Geometry sampleGeometry() {
    geometry::Geometry g;
    g.vertices = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 2.5f, 1};
    g.triangles = {0, 2, 1, 0, 3, 2};
    g.triangle_areas = {1, 2};
    g.triangle_objects = {0, 1};
    g.objects = {{"floor", "stone"}, {"pool", "water"}};
    g.areas.push_back({"water", 3.0f, true});
    g.source_mesh_count = 2;
    g.dropped_degenerate = 4;
    g.dropped_ignored = 5;
    return g;
}

}  // namespace

TEST_SUITE("geometry") {
    TEST_CASE("geometry round trip: write then read gives identical data") {
        test::TempDir dir;
        const geometry::Geometry g = sampleGeometry();
        REQUIRE(geometry::saveGeometry(dir / "a.geo", g).ok());
        auto loaded = geometry::loadGeometry(dir / "a.geo");
        REQUIRE(loaded.ok());
        CHECK(*loaded == g);
    }

    TEST_CASE("geometry writing twice gives identical bytes") {
        test::TempDir dir;
        REQUIRE(geometry::saveGeometry(dir / "a.geo", sampleGeometry()).ok());
        REQUIRE(geometry::saveGeometry(dir / "b.geo", sampleGeometry()).ok());
        CHECK(test::readBytes(dir / "a.geo") == test::readBytes(dir / "b.geo"));
    }

    TEST_CASE("an artifact of the wrong kind is refused by name") {
        test::TempDir dir;
        REQUIRE(geometry::saveGeometry(dir / "a.geo", sampleGeometry()).ok());
        auto grid = voxel::loadVoxels(dir / "a.geo");
        REQUIRE_FALSE(grid.ok());
        CHECK(grid.error().message.find("kind 'GEOM', expected 'VOXL'") != std::string::npos);
    }

    TEST_CASE(
        "bad geometry sections: one validator, the same refusal on the bake side and in navrt") {
        struct Case {
            const char* name;
            void (*spoil)(geometry::Geometry&);
            const char* expected;
        };
        const Case cases[] = {
            {"vertex index out of range", [](geometry::Geometry& g) { g.triangles[4] = 99; },
             "section 'TRIS': triangle 1 uses vertex 99, only 4 exist"},
            {"non-finite coordinate",
             [](geometry::Geometry& g) { g.vertices[7] = std::numeric_limits<float>::quiet_NaN(); },
             "section 'VERT': vertex 2 has a non-finite coordinate"},
            {"unknown area", [](geometry::Geometry& g) { g.triangle_areas[1] = 7; },
             "section 'TARE': triangle 1 has area 7, only 3 areas exist"},
        };
        for (const Case& c : cases) {
            INFO(c.name);
            test::TempDir dir;
            geometry::Geometry g = sampleGeometry();
            c.spoil(g);
            REQUIRE(geometry::saveGeometry(dir / "bad.geo", g).ok());
            auto loaded = geometry::loadGeometry(dir / "bad.geo");
            REQUIRE_FALSE(loaded.ok());
            CHECK(loaded.error().message.find(c.expected) != std::string::npos);
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load((dir / "bad.geo").c_str(), asset));
            navrt::GeometryView view;
            const navrt::Error e = navrt::viewGeometry(asset, view);
            CHECK(e.code == navrt::ErrorCode::bad_section);
            CHECK(std::string(e.message).find(c.expected) != std::string::npos);
        }
    }

    TEST_CASE(
        "TRIS is stored delta-coded, streamed or not, and a .geo with plain zstd TRIS loads") {
        // A strip of quads: enough triangles for compression to pay.
        geometry::Geometry g;
        g.areas.push_back({"water", 3.0f, true});
        g.objects = {{"floor", "stone"}};
        for (uint32_t i = 0; i <= 400; ++i)
            g.vertices.insert(g.vertices.end(), {float(i), 0, 0, float(i), 0, 1});
        for (uint32_t i = 0; i < 400; ++i) {
            g.triangles.insert(g.triangles.end(),
                               {2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 2, 2 * i + 1, 2 * i + 3});
            g.triangle_areas.insert(g.triangle_areas.end(), {1, 1});
            g.triangle_objects.insert(g.triangle_objects.end(), {0, 0});
        }
        test::TempDir dir;
        REQUIRE(geometry::saveGeometry(dir / "whole.geo", g).ok());
        geometry::Geometry bare = g;
        bare.triangles.clear(), bare.triangle_areas.clear(), bare.triangle_objects.clear();
        geometry::TriangleStreams streams;
        for (size_t t = 0; t < g.triangleCount(); ++t)
            streams.add(g.triangles[3 * t], g.triangles[3 * t + 1], g.triangles[3 * t + 2], 1, 0);
        REQUIRE(geometry::saveGeometry(dir / "streamed.geo", bare, &streams).ok());
        CHECK(test::readBytes(dir / "whole.geo") == test::readBytes(dir / "streamed.geo"));
        auto c = loadContainer(dir / "whole.geo", formats::kKindGeometry, 3);
        REQUIRE(c.ok());
        const formats::SectionEntry& tris =
            c->container.sections[size_t(c->container.find(formats::kSecTriangles))];
        CHECK(tris.codec == formats::Codec::zstd_delta32);
        CHECK(tris.stored_size < tris.raw_size / 20);
        auto loaded = geometry::loadGeometry(dir / "whole.geo");
        REQUIRE(loaded.ok());
        CHECK(*loaded == g);
        // The same sections with TRIS as plain zstd (as written before): the same geometry.
        formats::ContainerWriter writer(formats::kKindGeometry, c->container.kind_version);
        for (uint32_t i = 0; i < c->container.section_count; ++i) {
            const formats::SectionEntry& e = c->container.sections[i];
            auto bytes = c->section(e.id);
            REQUIRE_MESSAGE(bytes.ok(), bytes.error().message);
            writer.add(e.id, std::move(*bytes),
                       e.id == formats::kSecTriangles ? formats::Codec::zstd : e.codec);
        }
        REQUIRE(saveContainer(dir / "plain.geo", writer).ok());
        auto plain = loadContainer(dir / "plain.geo", formats::kKindGeometry, 3);
        REQUIRE(plain.ok());
        CHECK(plain->container.sections[size_t(plain->container.find(formats::kSecTriangles))]
                  .codec == formats::Codec::zstd);
        auto from_plain = geometry::loadGeometry(dir / "plain.geo");
        REQUIRE(from_plain.ok());
        CHECK(*from_plain == g);
    }

    TEST_CASE("a failed write leaves no file behind") {
        test::TempDir dir;
        const auto target = dir / "missing_folder" / "a.geo";
        CHECK_FALSE(geometry::saveGeometry(target, sampleGeometry()).ok());
        CHECK_FALSE(std::filesystem::exists(target));
        size_t entries = 0;
        for (auto it = std::filesystem::directory_iterator(dir.path());
             it != std::filesystem::directory_iterator(); ++it)
            ++entries;
        CHECK(entries == 0);
    }
}
