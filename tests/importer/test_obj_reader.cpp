// The built-in OBJ reader (lib/importer/obj_reader.cpp) against Assimp: importScene (built-in for
// .obj) and importSceneAssimp give the same geometry — vertices, triangles, areas, objects,
// links, markers, counts — on every OBJ at hand (the shared Recast meshes, the sample levels,
// generated ones) and on small files exercising the OBJ rules (objects, groups, materials,
// polygons, lines, relative indices); malformed files give errors naming the line.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>

#include "lib/importer/import.h"
#include "lib/importer/obj_reader.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// Per object and area id: the summed area of its triangles.
std::map<std::pair<uint32_t, uint8_t>, double> areaByObject(const geometry::Geometry& g) {
    std::map<std::pair<uint32_t, uint8_t>, double> out;
    for (size_t t = 0; t < g.triangleCount(); ++t) {
        const float* a = &g.vertices[3 * size_t(g.triangles[3 * t])];
        const float* b = &g.vertices[3 * size_t(g.triangles[3 * t + 1])];
        const float* c = &g.vertices[3 * size_t(g.triangles[3 * t + 2])];
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                             u[0] * v[1] - u[1] * v[0]};
        out[{g.triangle_objects[t], g.triangle_areas[t]}] +=
            0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    return out;
}

// `large_polygons`: the file has faces of more than 4 corners, which Assimp and we both cut into
// triangles inside their outline, but not into the same ones: then the area each object covers
// must agree instead of the triangles.
void checkSame(const std::filesystem::path& file, bool large_polygons = false) {
    INFO(file.string());
    Context context;
    auto ours = importer::importScene(file, {}, context);
    auto theirs = importer::importSceneAssimp(file, {}, context);
    REQUIRE_MESSAGE(ours.ok(), ours.error().message);
    REQUIRE_MESSAGE(theirs.ok(), theirs.error().message);
    // Numbers: ours are correctly rounded (std::from_chars), Assimp's fast_atof may be off by an
    // ulp. Large polygons are cut differently, so their corners are first used (and numbered) in
    // another order: then the sets of vertices compare.
    REQUIRE(ours->vertices.size() == theirs->vertices.size());
    auto points = [&](const geometry::Geometry& g) {
        std::vector<std::array<float, 3>> out(g.vertexCount());
        for (size_t v = 0; v < out.size(); ++v)
            out[v] = {g.vertices[3 * v], g.vertices[3 * v + 1], g.vertices[3 * v + 2]};
        if (large_polygons) std::sort(out.begin(), out.end());
        return out;
    };
    const auto a = points(*ours), b = points(*theirs);
    size_t off = 0;
    for (size_t v = 0; v < a.size(); ++v)
        for (size_t k = 0; k < 3; ++k)
            off += std::fabs(a[v][k] - b[v][k]) > 1e-6f * (1 + std::fabs(b[v][k]));
    CHECK(off == 0);
    if (large_polygons) {
        const auto a = areaByObject(*ours), b = areaByObject(*theirs);
        REQUIRE(a.size() == b.size());
        for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
            CHECK(ia->first == ib->first);
            CHECK(ia->second == doctest::Approx(ib->second).epsilon(1e-4));
        }
    } else {
        CHECK(ours->triangles == theirs->triangles);
        CHECK(ours->triangle_areas == theirs->triangle_areas);
        CHECK(ours->triangle_objects == theirs->triangle_objects);
        CHECK(ours->dropped_degenerate == theirs->dropped_degenerate);
    }
    REQUIRE(ours->objects.size() == theirs->objects.size());
    for (size_t i = 0; i < ours->objects.size(); ++i) {
        CHECK(ours->objects[i].name == theirs->objects[i].name);
        CHECK(ours->objects[i].material == theirs->objects[i].material);
    }
    CHECK(ours->source_mesh_count == theirs->source_mesh_count);
    CHECK(ours->dropped_ignored == theirs->dropped_ignored);
    REQUIRE(ours->links.size() == theirs->links.size());
    for (size_t i = 0; i < ours->links.size(); ++i) {
        CHECK(ours->links[i].name == theirs->links[i].name);
        for (int k = 0; k < 3; ++k) {
            CHECK(ours->links[i].from[k] == theirs->links[i].from[k]);
            CHECK(ours->links[i].to[k] == theirs->links[i].to[k]);
        }
    }
    REQUIRE(ours->markers.size() == theirs->markers.size());
    for (size_t i = 0; i < ours->markers.size(); ++i) {
        CHECK(ours->markers[i].name == theirs->markers[i].name);
        CHECK(ours->markers[i].position == theirs->markers[i].position);
    }
}

void write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_SUITE("importer") {
    TEST_CASE("the built-in OBJ reader gives the geometry Assimp gives") {
        size_t files = 0;
        for (const char* name : {"dungeon.obj", "nav_test.obj", "undulating.obj"}) {
            const auto path = test::sharedData() / "meshes" / name;
            if (!std::filesystem::exists(path)) {
                MESSAGE("skipped: " << path << " not found (../shared/data is beside the repo)");
                continue;
            }
            checkSame(path, std::string(name) == "nav_test.obj");  // 6-, 8- and 12-gons
            ++files;
        }
        for (const char* name : {"terrain.obj", "links_course.obj", "designer_yard.obj"}) {
            checkSame(test::sampleLevels() / name);
            ++files;
        }
        test::TempDir dir;
        // Objects and groups (a repeated group name continues it), materials switching inside
        // an object and persisting into the next, quads and a pentagon, v/t/n corners, relative
        // indices, a polyline and a two-corner face (a link object's segments), a degenerate
        // triangle, an empty object, faces before any object, CRLF line ends, comments and unused
        // statements.
        write(dir / "rules.obj",
              "# rules\r\nmtllib none.mtl\r\nv 0 0 0\r\nv 4 0 0\r\nv 4 0 4\r\nv 0 0 4\r\n"
              "vt 0 0\nvn 0 1 0\nf 1 2 3\n"
              "o floor\nusemtl water\nf 1/1/1 2/1/1 3/1/1 4/1/1\nusemtl mud\nf -4 -2 -1\n"
              "usemtl water\nf 1//1 3//1 4//1\ns off\n"
              "o empty_one\n"
              "o nav_seed_a\nv 1 0 1\nv 1.2 0 1\nv 1.1 0 1.2\nf -3 -2 -1\n"
              "g Generic\nv 5 0 5\nv 6 0 5\nv 6 0 6\nv 5.5 0 6.5\nv 5 0 6\nf -5 -4 -3 -2 -1\n"
              "g Generic\nf 8 9 9\ng Cube\nv 7 0 7\nv 8 0 7\nv 8 0 8\nv 7.5 0 7.2\nf -4 -3 -2 -1\n"
              "o link_drop_1\nv 2 1 2\nv 3 0 2\nv 3.5 0 2.5\nl -3 -2 -1\nf -2 -1\n");
        checkSame(dir / "rules.obj", true);  // a pentagon
        ++files;
        // One mesh whose index list spans several blocks (ObjIndexList::kBlock), freed block by
        // block as the geometry takes its faces, then a second object.
        {
            std::string text = "o ground\n";
            const int n = 260;  // 2 * 259^2 triangles: 402,486 indices, two blocks
            for (int z = 0; z < n; ++z)
                for (int x = 0; x < n; ++x)
                    text += "v " + std::to_string(x) + " " + std::to_string((x * 7 + z * 3) % 5) +
                            " " + std::to_string(z) + "\n";
            for (int z = 0; z + 1 < n; ++z)
                for (int x = 0; x + 1 < n; ++x) {
                    const int a = z * n + x + 1;
                    const std::string p = std::to_string(a), q = std::to_string(a + n),
                                      r = std::to_string(a + n + 1), t = std::to_string(a + 1);
                    text += "f " + p + " " + q + " " + r + "\nf " + p + " " + r + " " + t + "\n";
                }
            text += "o crate\nv 0 5 0\nv 1 5 0\nv 1 5 1\nf -3 -1 -2\n";
            write(dir / "blocks.obj", text);
            checkSame(dir / "blocks.obj");
            ++files;
        }
        MESSAGE(files << " OBJ files compared");
    }

    TEST_CASE("the built-in OBJ reader tells a sink how many positions the file holds") {
        struct Counting : importer::ObjSink {
            uint64_t expected = 0;
            Status mesh(const importer::ObjScene&, importer::ObjObject&,
                        importer::ObjMesh&) override {
                return {};
            }
            Status object(const importer::ObjScene&, importer::ObjObject&) override { return {}; }
            void expectPositions(uint64_t count) override { expected = count; }
        };
        test::TempDir dir;
        // `v` lines first, after comments, at the very end without a newline, with a tab;
        // normals and texture coordinates are not positions. More than one read chunk long.
        std::string text = "v 0 0 0\n# v 9 9 9\nvn 0 1 0\nvt 0 0\nv\t1 0 0\n";
        for (int i = 0; i < 200000; ++i) text += "v " + std::to_string(i) + " 0 1\n";
        text += "f 1 2 3\nv 0 0 2";
        write(dir / "count.obj", text);
        Counting sink;
        REQUIRE(importer::readObj(dir / "count.obj", sink).ok());
        CHECK(sink.expected == 200003);
        // Files read a window of 4 MiB at a time: a `v` line at every place against a window's
        // end (lines of 8 bytes after a padding of 0..7 bytes), the first line a `v` line or not.
        const size_t lines = ((size_t(1) << 22) + 64) / 8;
        std::string body;
        body.reserve(8 * lines);
        for (size_t i = 0; i < lines; ++i) body += "v 1 0 1\n";
        for (int pad = 0; pad < 8; ++pad) {
            const std::string head = pad == 0   ? ""
                                     : pad == 1 ? "\n"
                                                : "#" + std::string(size_t(pad - 2), 'x') + "\n";
            write(dir / "windows.obj", head + body + "f 1 2 3\n");
            for (int threads : {1, 3}) {  // the windows counted on one thread or several
                Counting windows;
                REQUIRE(importer::readObj(dir / "windows.obj", windows, threads).ok());
                CHECK_MESSAGE(windows.expected == lines,
                              "padding " << pad << ", threads " << threads);
            }
        }
    }

    TEST_CASE("the built-in OBJ reader: malformed files name the line") {
        test::TempDir dir;
        auto message = [&](const std::string& text) {
            write(dir / "bad.obj", text);
            Context context;
            auto result = importer::importScene(dir / "bad.obj", {}, context);
            REQUIRE_FALSE(result.ok());
            return result.error().message;
        };
        CHECK(message("v 0 0 0\nv 1 0\n").find("bad.obj:2: a vertex needs three numbers") !=
              std::string::npos);
        CHECK(message("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n")
                  .find("bad.obj:4: vertex index 4 is out of range (3 vertices so far)") !=
              std::string::npos);
        CHECK(message("v 0 0 0\nf 1 x 2\n").find("bad.obj:2: 'x 2' is not a vertex index") !=
              std::string::npos);
        CHECK(message("# nothing\nv 0 0 0\n").find("the scene is empty") != std::string::npos);
        // A long file read in several chunks: its last line without a newline still counts.
        std::string big;
        for (int i = 0; i < 300000; ++i) big += "v " + std::to_string(i) + " 0 0\n";
        big += "f 1 2 300000";
        write(dir / "big.obj", big);
        auto scene = importer::readObj(dir / "big.obj");
        REQUIRE(scene.ok());
        CHECK(scene->positions.count() == 300000);
        REQUIRE(scene->objects.size() == 1);
        CHECK(scene->objects[0].name == "defaultobject");
        CHECK(scene->objects[0].meshes[0].triangles.toVector() ==
              std::vector<uint32_t>{0, 1, 299999});
        // A concave polygon (Assimp 5.2 cuts this one across its notch): the ears stay inside,
        // the area is the outline's, 0.75 m^2.
        write(dir / "concave.obj",
              "v 5 0 5\nv 6 0 5\nv 6 0 6\nv 5.5 0 5.5\nv 5 0 6\nf 1 2 3 4 5\nf 5 4 3 2 1\n");
        Context context;
        auto concave = importer::importScene(dir / "concave.obj", {}, context);
        REQUIRE(concave.ok());
        CHECK(concave->triangleCount() == 6);
        double total = 0;
        for (const auto& [key, area] : areaByObject(*concave)) total += area;
        CHECK(total == doctest::Approx(1.5));
    }

    TEST_CASE("the built-in OBJ reader gives the same scene and errors on one thread and two") {
        test::TempDir dir;
        // Many read chunks: a terrain of quads over several objects and materials, shared and
        // repeated positions (welded), relative indices, an ignored mesh.
        std::string text;
        const int n = 160;
        for (int part = 0; part < 3; ++part) {
            text += "o part" + std::to_string(part) + "\nusemtl " +
                    (part == 1 ? "ignore_me" : "stone") + "\n";
            const int base = part * n * n;
            for (int z = 0; z < n; ++z)
                for (int x = 0; x < n; ++x)
                    text += "v " + std::to_string(x * 0.5) + " " +
                            std::to_string((x * z) % 7 * 0.1) + " " + std::to_string(z * 0.5) +
                            "\n";
            for (int z = 0; z + 1 < n; ++z)
                for (int x = 0; x + 1 < n; ++x) {
                    const int a = base + z * n + x + 1;
                    text += "f " + std::to_string(a) + " " + std::to_string(a + n) + " " +
                            std::to_string(a + n + 1) + " " + std::to_string(a + 1) + "\n";
                }
            text += "usemtl grass\nf -1 -2 -3\n";
        }
        REQUIRE(text.size() > 4 * (size_t(1) << 18));
        write(dir / "many.obj", text);
        importer::ImportParams one, two;
        one.threads = 1;
        two.threads = 2;
        Context context;
        auto a = importer::importScene(dir / "many.obj", one, context);
        auto b = importer::importScene(dir / "many.obj", two, context);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(a->triangleCount() == 2 * 2 * (n - 1) * (n - 1) + 3);
        CHECK(a->vertices == b->vertices);
        CHECK(a->triangles == b->triangles);
        CHECK(a->triangle_areas == b->triangle_areas);
        CHECK(a->triangle_objects == b->triangle_objects);
        CHECK(a->objects.size() == b->objects.size());
        CHECK(a->dropped_degenerate == b->dropped_degenerate);
        // An error far into the file names its line either way.
        const size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
        write(dir / "late.obj", text + "f 1 2 " + std::to_string(3 * n * n + 1) + "\n" + text);
        for (const importer::ImportParams& params : {one, two}) {
            auto late = importer::importScene(dir / "late.obj", params, context);
            REQUIRE_FALSE(late.ok());
            CHECK(late.error().message.find(fmt::format(
                      "late.obj:{}: vertex index {} is out of range", lines + 1, 3 * n * n + 1)) !=
                  std::string::npos);
        }
    }
}
