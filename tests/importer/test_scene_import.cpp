#include <assimp/scene.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "lib/common/context.h"
#include "lib/geometry/geometry.h"
#include "lib/importer/import.h"
#include "lib/importer/scene_import.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// A unit quad (two triangles) on the floor, one degenerate triangle, one sliver.
const char* kQuadObj =
    "o floor\n"
    "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n"
    "f 1 3 2\nf 1 4 3\n"
    "o broken\n"
    "v 5 0 5\nv 6 0 6\nv 7 0 7\n"
    "f 5 6 7\n"   // collinear
    "f 1 1 2\n";  // repeated corner

// A scene as Assimp's parser leaves it, built in memory: a unit quad mesh on the floor, used by
// two nodes under a translated root (the second node moved up 2 m), plus a line mesh named
// "link_jump_1" under its own node (a scene link).
aiScene* twoFloorScene() {
    auto* scene = new aiScene();
    scene->mNumMeshes = 2;
    scene->mMeshes = new aiMesh*[2];
    auto* quad = new aiMesh();
    quad->mName = aiString(std::string("quad"));
    quad->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    quad->mNumVertices = 4;
    quad->mVertices = new aiVector3D[4]{{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}};
    quad->mNumFaces = 2;
    quad->mFaces = new aiFace[2];
    const unsigned corners[2][3] = {{0, 2, 1}, {0, 3, 2}};
    for (int f = 0; f < 2; ++f) {
        quad->mFaces[f].mNumIndices = 3;
        quad->mFaces[f].mIndices = new unsigned[3]{corners[f][0], corners[f][1], corners[f][2]};
    }
    auto* line = new aiMesh();
    line->mName = aiString(std::string("jump"));
    line->mPrimitiveTypes = aiPrimitiveType_LINE;
    line->mNumVertices = 2;
    line->mVertices = new aiVector3D[2]{{0.5f, 2, 0.5f}, {0.5f, 0, 0.5f}};
    line->mNumFaces = 1;
    line->mFaces = new aiFace[1];
    line->mFaces[0].mNumIndices = 2;
    line->mFaces[0].mIndices = new unsigned[2]{0, 1};
    scene->mMeshes[0] = quad;
    scene->mMeshes[1] = line;

    auto* root = new aiNode(std::string("root"));
    root->mTransformation = aiMatrix4x4(aiVector3D(1, 1, 1), aiQuaternion(), aiVector3D(10, 0, 0));
    const char* names[3] = {"ground", "upper", "link_jump_1"};
    const unsigned meshes[3] = {0, 0, 1};
    root->mNumChildren = 3;
    root->mChildren = new aiNode*[3];
    for (int i = 0; i < 3; ++i) {
        auto* node = new aiNode(std::string(names[i]));
        if (i == 1)
            node->mTransformation =
                aiMatrix4x4(aiVector3D(1, 1, 1), aiQuaternion(), aiVector3D(0, 2, 0));
        node->mNumMeshes = 1;
        node->mMeshes = new unsigned[1]{meshes[i]};
        node->mParent = root;
        root->mChildren[i] = node;
    }
    scene->mRootNode = root;
    return scene;
}

}  // namespace

TEST_SUITE("import") {
    TEST_CASE("OBJ import: triangles, degenerate triangles dropped and counted, bounds") {
        test::TempDir dir;
        test::writeText(dir / "quad.obj", kQuadObj);
        Context context;
        auto g = importer::importScene(dir / "quad.obj", {}, context);
        REQUIRE(g.ok());
        CHECK(g->triangleCount() == 2);
        CHECK(g->dropped_degenerate == 2);
        CHECK(g->vertexCount() == 4);  // only the used vertices survive
        const geometry::Bounds b = g->bounds();
        CHECK(b.min == std::array<float, 3>{0, 0, 0});
        CHECK(b.max == std::array<float, 3>{1, 0, 1});
        CHECK(std::all_of(g->triangle_areas.begin(), g->triangle_areas.end(),
                          [](uint8_t a) { return a == geometry::kGroundArea; }));
    }

    TEST_CASE("the import stage streams a file's triangles into the .geo: same geometry") {
        // Small (held whole before compression) and large (compressed as it comes: 2 MiB of
        // triangles); each with vertices only degenerate triangles use, listed first so that
        // dropping them renumbers every triangle written, and without.
        auto grid = [](int n, bool broken_first) {
            std::string text;
            if (broken_first) text += "o broken\nv 9 0 9\nv 9 1 9\nv 9 2 9\nf 1 2 3\n";
            const int base = broken_first ? 3 : 0;
            text += "o floor\nusemtl stone\n";
            for (int z = 0; z <= n; ++z)
                for (int x = 0; x <= n; ++x)
                    text += fmt::format("v {} {} {}\n", x, (x * 7 + z * 3) % 5 * 0.1, z);
            for (int z = 0; z < n; ++z)
                for (int x = 0; x < n; ++x) {
                    const int a = base + z * (n + 1) + x + 1;
                    text += fmt::format("f {} {} {} {}\n", a, a + n + 1, a + n + 2, a + 1);
                }
            return text;
        };
        test::TempDir dir;
        for (int n : {4, 320})
            for (bool broken_first : {false, true}) {
                INFO("grid " << n << ", broken first " << broken_first);
                test::writeText(dir / "level.obj", grid(n, broken_first));
                Context context;
                auto whole = importer::importScene(dir / "level.obj", {}, context);
                REQUIRE(whole.ok());
                auto staged = importer::ImportStage::run({{dir / "level.obj"}}, {},
                                                         dir / "level.geo", context);
                REQUIRE(staged.ok());
                CHECK(test::countOf(*staged, "triangles") == uint64_t(2 * n * n));
                auto loaded = geometry::loadGeometry(dir / "level.geo");
                REQUIRE(loaded.ok());
                CHECK(loaded->triangleCount() == size_t(2 * n * n));
                CHECK(loaded->dropped_degenerate == (broken_first ? 1u : 0u));
                CHECK(loaded->vertices == whole->vertices);
                CHECK(loaded->triangles == whole->triangles);
                CHECK(loaded->triangle_areas == whole->triangle_areas);
                CHECK(loaded->triangle_objects == whole->triangle_objects);
                CHECK(loaded->objects == whole->objects);
                CHECK(*std::max_element(loaded->triangles.begin(), loaded->triangles.end()) + 1 ==
                      loaded->vertexCount());
            }
    }

    TEST_CASE("Z-up and scale are applied") {
        test::TempDir dir;
        test::writeText(dir / "z.obj", "o tri\nv 0 0 0\nv 2 0 0\nv 0 0 3\nf 1 2 3\n");
        importer::ImportParams params;
        params.up = importer::UpAxis::z;
        params.scale = 0.5f;
        Context context;
        auto g = importer::importScene(dir / "z.obj", params, context);
        REQUIRE(g.ok());
        // (0, 0, 3) Z-up becomes (0, 3, -0) Y-up, then halved.
        const geometry::Bounds b = g->bounds();
        CHECK(b.max[0] == doctest::Approx(1.0));
        CHECK(b.max[1] == doctest::Approx(1.5));
        CHECK(b.min[2] == doctest::Approx(0.0));
    }

    TEST_CASE("tag rules drop, block and price triangles by object and material") {
        test::TempDir dir;
        test::writeText(dir / "tags.mtl",
                        "newmtl Water_Surface\nKd 0 0 1\nnewmtl stone\nKd 1 1 1\n");
        test::writeText(dir / "tags.obj",
                        "mtllib tags.mtl\n"
                        "v 0 0 0\nv 1 0 0\nv 1 0 1\n"
                        "o trigger_zone\nusemtl stone\nf 1 3 2\n"
                        "o pool\nusemtl Water_Surface\nf 1 3 2\n"
                        "o crate_obstacle\nusemtl stone\nf 1 3 2\n"
                        "o floor\nusemtl stone\nf 1 3 2\n");
        Context context;
        auto g = importer::importScene(dir / "tags.obj", {}, context);
        REQUIRE(g.ok());
        CHECK(g->dropped_ignored == 1);
        REQUIRE(g->triangleCount() == 3);
        std::vector<std::string> areas;
        for (uint8_t a : g->triangle_areas) areas.push_back(g->areas[a].name);
        std::sort(areas.begin(), areas.end());
        CHECK(areas == std::vector<std::string>{"ground", "obstacle", "water"});
    }

    TEST_CASE("the glTF sample level imports with its node transforms composed") {
        const auto level = test::sampleLevels() / "indoor_two_floors.glb";
        REQUIRE(std::filesystem::exists(level));
        Context context;
        auto g = importer::importScene(level, {}, context);
        REQUIRE(g.ok());
        const geometry::Bounds b = g->bounds();
        CHECK(b.min[0] == doctest::Approx(0.0).epsilon(1e-4));
        CHECK(b.max[0] == doctest::Approx(30.0).epsilon(1e-4));
        CHECK(b.max[2] == doctest::Approx(20.0).epsilon(1e-4));
        // The upper floor (node "floor_upper" under a translated parent) tops out at Y = 3.
        float upper_top = -1e9f;
        for (size_t t = 0; t < g->triangleCount(); ++t) {
            if (g->objects[g->triangle_objects[t]].name != "floor_upper") continue;
            for (int k = 0; k < 3; ++k)
                upper_top =
                    std::max(upper_top, g->vertices[size_t(g->triangles[3 * t + k]) * 3 + 1]);
        }
        CHECK(upper_top == doctest::Approx(3.0));
        // Crates are obstacles, the pool is water.
        size_t obstacle = 0, water = 0;
        for (size_t t = 0; t < g->triangleCount(); ++t) {
            const std::string& name = g->areas[g->triangle_areas[t]].name;
            obstacle += name == "obstacle";
            water += name == "water";
        }
        CHECK(obstacle == 3 * 12);
        CHECK(water == 12);
    }

    TEST_CASE("the Assimp scene walk: transforms composed, a mesh shared by two nodes, lines") {
        auto assimp = importer::assimpLibrary();
        REQUIRE(assimp.ok());
        std::unique_ptr<aiScene> scene(twoFloorScene());
        Context context;
        auto g = importer::flattenAssimpScene(**assimp, *scene, {}, "memory.glb", context);
        REQUIRE(g.ok());
        CHECK(g->triangleCount() == 4);  // the quad twice
        CHECK(g->vertexCount() == 8);
        const geometry::Bounds b = g->bounds();
        CHECK(b.min == std::array<float, 3>{10, 0, 0});
        CHECK(b.max == std::array<float, 3>{11, 2, 1});
        REQUIRE(g->links.size() == 1);  // the line object, moved with the root
        CHECK(g->links[0].from[0] == doctest::Approx(10.5));
        CHECK(g->links[0].from[1] == doctest::Approx(2.0));
        CHECK(g->links[0].to[1] == doctest::Approx(0.0));

        // Z up and a scale, as importScene applies them.
        importer::ImportParams params;
        params.up = importer::UpAxis::z;
        params.scale = 0.5f;
        auto z = importer::flattenAssimpScene(**assimp, *scene, params, "memory.glb", context);
        REQUIRE(z.ok());
        const geometry::Bounds bz = z->bounds();
        CHECK(bz.max[0] == doctest::Approx(5.5));
        CHECK(bz.max[1] == doctest::Approx(0.5));  // file Z (1) is up

        // A non-finite transform is an error naming the mesh and the node.
        scene->mRootNode->mChildren[1]->mTransformation.b4 = std::nanf("");
        auto bad = importer::flattenAssimpScene(**assimp, *scene, {}, "memory.glb", context);
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find("mesh 'quad' (node 'upper')") != std::string::npos);
        CHECK(bad.error().message.find("non-finite") != std::string::npos);
    }

    TEST_CASE("bad scene inputs give clear errors") {
        test::TempDir dir;
        Context context;
        SUBCASE("missing file") {
            auto g = importer::importScene(dir / "nope.obj", {}, context);
            REQUIRE_FALSE(g.ok());
            CHECK(g.error().message.find("nope.obj: no such file") != std::string::npos);
        }
        SUBCASE("unreadable format") {
            test::writeText(dir / "garbage.xyzzy", "this is not a mesh\n");
            auto g = importer::importScene(dir / "garbage.xyzzy", {}, context);
            REQUIRE_FALSE(g.ok());
            CHECK(g.error().message.find("garbage.xyzzy: cannot import") != std::string::npos);
        }
        SUBCASE("empty scene") {
            test::writeText(dir / "empty.obj", "# nothing here\n");
            auto g = importer::importScene(dir / "empty.obj", {}, context);
            REQUIRE_FALSE(g.ok());
            CHECK(g.error().message.find("empty.obj") != std::string::npos);
        }
        SUBCASE("only degenerate triangles") {
            test::writeText(dir / "flat.obj", "o line\nv 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
            auto g = importer::importScene(dir / "flat.obj", {}, context);
            REQUIRE_FALSE(g.ok());
            CHECK(g.error().message.find("no usable triangles") != std::string::npos);
            CHECK(g.error().message.find("1 degenerate") != std::string::npos);
        }
        SUBCASE("non-finite vertex names the mesh") {
            test::writeText(dir / "nan.ply",
                            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                            "property float y\nproperty float z\nelement face 1\n"
                            "property list uchar int vertex_indices\nend_header\n"
                            "0 0 0\n1 nan 0\n0 0 1\n3 0 1 2\n");
            auto g = importer::importScene(dir / "nan.ply", {}, context);
            REQUIRE_FALSE(g.ok());
            INFO(g.error().message);
            CHECK(g.error().message.find("mesh '") != std::string::npos);
            CHECK(g.error().message.find("non-finite") != std::string::npos);
        }
        SUBCASE("infinite scale result") {
            test::writeText(dir / "big.obj", "o huge\nv 0 0 0\nv 3e38 0 0\nv 0 0 3e38\nf 1 2 3\n");
            importer::ImportParams params;
            params.scale = 100.0f;
            auto g = importer::importScene(dir / "big.obj", params, context);
            REQUIRE_FALSE(g.ok());
            CHECK(g.error().message.find("mesh 'huge'") != std::string::npos);
        }
    }
}
