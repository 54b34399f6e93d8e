// Units and winding (issue 14): an FBX authored in centimetres bakes to the same voxel grid as the
// same mesh in metres (OBJ); its unit can be ignored; clockwise meshes get a fix.
#include <doctest/doctest.h>

#include <assimp/cexport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>

#include <filesystem>
#include <string>

#include "lib/importer/import.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// `source` written as an ASCII FBX by Assimp's exporter with every coordinate x 100: a file in
// centimetres (the exporter states UnitScaleFactor 1, one unit = 1 cm).
void writeCentimetreFbx(const std::filesystem::path& source, const std::filesystem::path& out) {
    Assimp::Importer reader;
    const aiScene* scene = reader.ReadFile(source.string(), aiProcess_Triangulate);
    REQUIRE(scene != nullptr);
    aiScene* copy = nullptr;
    aiCopyScene(scene, &copy);
    REQUIRE(copy != nullptr);
    for (unsigned m = 0; m < copy->mNumMeshes; ++m)
        for (unsigned v = 0; v < copy->mMeshes[m]->mNumVertices; ++v)
            copy->mMeshes[m]->mVertices[v] *= 100.0f;
    Assimp::Exporter writer;
    const aiReturn written = writer.Export(copy, "fbxa", out.string());
    aiFreeScene(copy);
    REQUIRE_MESSAGE(written == AI_SUCCESS, writer.GetErrorString());
}

}  // namespace

TEST_SUITE("importer") {
    TEST_CASE("units: an FBX in centimetres and the same mesh in OBJ metres bake alike") {
        const std::filesystem::path obj =
            std::filesystem::path(NAVBAKE_SAMPLE_LEVELS) / "terrain.obj";
        test::TempDir dir;
        writeCentimetreFbx(obj, dir / "terrain_cm.fbx");
        Context context;
        importer::ImportReport metres_report, cm_report;
        auto metres = importer::importScene(obj, {}, context, &metres_report);
        auto cm = importer::importScene(dir / "terrain_cm.fbx", {}, context, &cm_report);
        REQUIRE(metres.ok());
        REQUIRE_MESSAGE(cm.ok(), cm.error().message);
        CHECK(metres_report.unit_scale == 1.0);
        CHECK(metres_report.units.find("states no unit") != std::string::npos);
        CHECK(cm_report.unit_scale == doctest::Approx(0.01));
        CHECK(cm_report.units.find("FBX UnitScaleFactor 1 (1 unit = 1 cm)") != std::string::npos);
        CHECK(cm->bounds() == metres->bounds());
        const voxel::VoxelizeParams params;
        auto a = voxel::voxelize(*metres, params, context);
        auto b = voxel::voxelize(*cm, params, context);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(a->column_offsets == b->column_offsets);
        CHECK(a->spans == b->spans);
        CHECK(a->size_y == b->size_y);
        // Told to ignore the unit: a level 100 times too large, and the report says so.
        importer::ImportParams raw;
        raw.units = importer::Units::metres;
        importer::ImportReport raw_report;
        auto big = importer::importScene(dir / "terrain_cm.fbx", raw, context, &raw_report);
        REQUIRE(big.ok());
        CHECK(big->bounds().max[0] == doctest::Approx(100.0f * metres->bounds().max[0]));
        CHECK(raw_report.units.find("ignored") != std::string::npos);
    }

    TEST_CASE("winding: a clockwise floor walks only once flipped or double-sided") {
        test::TempDir dir;
        // Two triangles of a 6 x 6 m floor, wound clockwise seen from above (facing down), and
        // one counter-clockwise triangle beside them.
        test::writeText(dir / "cw.obj",
                        "o floor\nv 0 0 0\nv 6 0 0\nv 6 0 6\nv 0 0 6\n"
                        "f 1 2 3\nf 1 3 4\n"
                        "o ramp\nv 10 0 0\nv 16 0 0\nv 10 0 6\nf 5 7 6\n");
        Context context;
        auto walkable = [&](const importer::ImportParams& p, uint64_t& turned) {
            importer::ImportReport report;
            auto g = importer::importScene(dir / "cw.obj", p, context, &report);
            REQUIRE(g.ok());
            turned = report.turned_up;
            auto grid = voxel::voxelize(*g, voxel::VoxelizeParams{}, context);
            REQUIRE(grid.ok());
            size_t n = 0;
            for (const voxel::Span& s : grid->spans) n += s.walkable;
            return n;
        };
        uint64_t turned = 0;
        importer::ImportParams plain, flipped, both;
        flipped.flip_winding = true;
        both.double_sided = true;
        const size_t as_is = walkable(plain, turned);
        CHECK(turned == 0);
        const size_t flip = walkable(flipped, turned);
        CHECK(turned == 0);
        const size_t two_sided = walkable(both, turned);
        CHECK(turned == 2);  // the floor's two triangles
        // As is, only the counter-clockwise triangle is a floor; flipped, only the square; double-
        // sided, both.
        CHECK(as_is > 0);
        CHECK(flip > as_is);
        CHECK(two_sided > flip);
        both.flip_winding = true;  // flipped first, then the (now) downward triangle turned up
        walkable(both, turned);
        CHECK(turned == 1);
    }
}
