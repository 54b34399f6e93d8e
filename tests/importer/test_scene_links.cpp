// Links placed by artists in the scene: "link" tag rules turn line objects, ladder boxes and door
// boxes into geometry::LinkSpec at import; the .geo and .vox carry them (SLNK/SLNM) and the graph
// stage resolves them, so a ladder drawn in the level joins the floors it leans against.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/common/gltf_writer.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

using test::objBox;
using test::objQuad;

// A polyline object (`l` through the points; Assimp splits it into one segment per pair).
std::string objLine(const std::string& name, const std::vector<std::array<float, 3>>& points) {
    std::string s = "o " + name + "\n";
    for (const auto& p : points) s += fmt::format("v {} {} {}\n", p[0], p[1], p[2]);
    s += "l";
    for (size_t k = 0; k < points.size(); ++k) s += fmt::format(" {}", int(k) - int(points.size()));
    return s + "\n";
}

Result<geometry::Geometry> importText(const test::TempDir& dir, const std::string& file,
                                      const std::string& text,
                                      const importer::ImportParams& params = {}) {
    test::writeText(dir / file, text);
    Context context;
    return importer::importScene(dir / file, params, context);
}

const geometry::LinkSpec& linkNamed(const geometry::Geometry& g, const std::string& name) {
    for (const geometry::LinkSpec& l : g.links)
        if (l.name == name) return l;
    FAIL("no link named ", name);
    return g.links.front();
}

void checkPoint(const float (&p)[3], float x, float y, float z) {
    CHECK(p[0] == doctest::Approx(x));
    CHECK(p[1] == doctest::Approx(y));
    CHECK(p[2] == doctest::Approx(z));
}

size_t trianglesOf(const geometry::Geometry& g, const std::string& object, int area = -1) {
    size_t n = 0;
    for (size_t t = 0; t < g.triangleCount(); ++t)
        if (g.objects[g.triangle_objects[t]].name == object &&
            (area < 0 || g.triangle_areas[t] == area))
            ++n;
    return n;
}

// The scene of the first test, Z-up (Blender's convention): a floor, a ladder box, a door box, a
// one-way drop line and a two-way jump polyline of two segments.
std::string zUpScene() {
    return std::string(
               "o floor\nv 0 0 0\nv 10 0 0\nv 10 10 0\nv 0 10 0\nf -4 -3 -2\nf -4 -2 -1\n") +
           objLine("link_drop_1", {{{1, 1, 2}, {2, 1, 0}}}) +
           objLine("link_jump_twoway_2", {{{3, 3, 0}, {5, 3, 0}, {6, 4, 0}}}) +
           objBox("ladder_1", 8, 8, 0, 8.2f, 8.5f, 3) + objBox("door_1", 4, 6, 0, 6, 6.2f, 2);
}

}  // namespace

TEST_SUITE("import") {
    TEST_CASE("scene links: ladder and door boxes, drop and two-way jump lines, in world space") {
        test::TempDir dir;
        importer::ImportParams params;
        params.up = importer::UpAxis::z;  // (x, y, z) -> (x, z, -y)
        params.scale = 2.0f;
        const std::string scene = zUpScene();
        auto g = importText(dir, "scene.obj", scene, params);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->links.size() == 5);

        const auto& drop = linkNamed(*g, "scene.obj: object 'link_drop_1'");
        CHECK(drop.type == formats::LinkType::drop);
        CHECK_FALSE(drop.bidirectional);
        checkPoint(drop.from, 2, 4, -2);  // (1, 1, 2) Z-up -> (1, 2, -1) Y-up, x 2
        checkPoint(drop.to, 4, 0, -2);

        const auto& jump1 = linkNamed(*g, "scene.obj: object 'link_jump_twoway_2' segment 1");
        const auto& jump2 = linkNamed(*g, "scene.obj: object 'link_jump_twoway_2' segment 2");
        for (const auto* jump : {&jump1, &jump2}) {
            CHECK(jump->type == formats::LinkType::jump);
            CHECK(jump->bidirectional);
        }
        checkPoint(jump1.from, 6, 0, -6);
        checkPoint(jump1.to, 10, 0, -6);
        checkPoint(jump2.from, 10, 0, -6);
        checkPoint(jump2.to, 12, 0, -8);

        // Ladder: bottom centre to top centre of its world bounds (x 8..8.2, up 0..3, z -8.5..-8,
        // then doubled).
        const auto& ladder = linkNamed(*g, "scene.obj: object 'ladder_1'");
        CHECK(ladder.type == formats::LinkType::ladder);
        CHECK(ladder.bidirectional);
        checkPoint(ladder.from, 16.2f, 0, -16.5f);
        checkPoint(ladder.to, 16.2f, 6, -16.5f);

        // Door: x 4..6 (2 m) and z -6.2..-6 (0.2 m): through the thin Z axis, at the bottom.
        const auto& door = linkNamed(*g, "scene.obj: object 'door_1'");
        CHECK(door.type == formats::LinkType::door);
        CHECK(door.bidirectional);
        checkPoint(door.from, 10, 0, -12.4f);
        checkPoint(door.to, 10, 0, -12);

        for (const geometry::LinkSpec& l : g->links) {
            INFO(l.name);
            CHECK(l.scene);
            CHECK(l.snap == geometry::kSnapAuto);
            CHECK(l.id >= geometry::kSceneLinkIdFirst);
            CHECK(l.id < geometry::kGeneratedLinkIdFirst);
            CHECK(l.id == importer::sceneLinkId(l.name));
            CHECK(l.cost == 0);
            CHECK(l.user_type.empty());
        }

        // The ladder is a proxy (its 12 triangles dropped, counted as ignored), the door stays as
        // an obstacle, the lines add no triangles.
        CHECK(trianglesOf(*g, "ladder_1") == 0);
        CHECK(g->dropped_ignored == 12);
        CHECK(trianglesOf(*g, "door_1", geometry::kObstacleArea) == 12);
        CHECK(trianglesOf(*g, "door_1") == 12);
        CHECK(g->triangleCount() == 2 + 12);
        CHECK(g->source_mesh_count == 3);  // floor, ladder, door: line meshes are not counted

        // Ids hash the file and object name: another object leaves them as they were.
        auto more = importText(
            dir, "scene.obj",
            objBox("crate", 1, 1, 0, 2, 2, 1) + scene + objBox("ladder_2", 0, 0, 0, 0.2f, 1, 3),
            params);
        REQUIRE_MESSAGE(more.ok(), more.error().message);
        REQUIRE(more->links.size() == 6);
        for (const geometry::LinkSpec& l : g->links) CHECK(linkNamed(*more, l.name).id == l.id);
    }

    TEST_CASE("scene links: glTF nodes name them, node transforms place them") {
        using Json = nlohmann::ordered_json;
        GltfWriter writer;
        const std::vector<float> floor = {0, 0, 0, 10, 0, 0, 10, 0, 10, 0, 0, 10};
        const std::vector<uint32_t> floor_tris = {0, 2, 1, 0, 3, 2};
        const std::vector<float> line = {0, 1, 0, 0, 0, 2};
        const std::vector<uint32_t> line_ends = {0, 1};
        const size_t floor_pos = writer.addPositions(floor),
                     floor_idx = writer.addIndices(floor_tris);
        const size_t line_pos = writer.addPositions(line), line_idx = writer.addIndices(line_ends);
        Json meshes = Json::array(
            {Json{{"name", "Plane"},
                  {"primitives", Json::array({Json{{"attributes", {{"POSITION", floor_pos}}},
                                                   {"indices", floor_idx},
                                                   {"mode", 4}}})}},
             Json{{"name", "Curve.001"},
                  {"primitives", Json::array({Json{{"attributes", {{"POSITION", line_pos}}},
                                                   {"indices", line_idx},
                                                   {"mode", 1}}})}}});
        Json nodes = Json::array(
            {Json{{"name", "level"}, {"children", {1, 2}}, {"translation", {100, 0, 0}}},
             Json{{"name", "ground"}, {"mesh", 0}},
             Json{{"name", "Link_Drop.001"}, {"mesh", 1}, {"translation", {1, 2, 3}}}});
        Json document{{"asset", {{"version", "2.0"}}},
                      {"scene", 0},
                      {"scenes", Json::array({Json{{"nodes", {0}}}})},
                      {"nodes", nodes},
                      {"meshes", meshes}};
        test::TempDir dir;
        const std::vector<uint8_t> glb = writer.finish(document);
        REQUIRE(writeFileAtomic(dir / "level.glb", glb).ok());
        Context context;
        auto g = importer::importScene(dir / "level.glb", {}, context);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->links.size() == 1);
        const geometry::LinkSpec& drop = g->links[0];
        CHECK(drop.name == "level.glb: object 'Link_Drop.001'");  // the node's name, not the mesh's
        CHECK(drop.type == formats::LinkType::drop);              // "Drop.001" -> drop
        checkPoint(drop.from, 101, 3, 3);
        checkPoint(drop.to, 101, 2, 5);
        CHECK(g->triangleCount() == 2);
    }

    TEST_CASE("scene links: lines of other objects are dropped as before") {
        test::TempDir dir;
        const std::string floor = objQuad("floor", 0, 0, 10, 10, 0);
        auto plain = importText(dir, "plain.obj", floor);
        auto guides = importText(dir, "guides.obj",
                                 objLine("guide_curve", {{{1, 0, 1}, {2, 0, 2}}}) + floor +
                                     objLine("path_spline", {{{0, 0, 0}, {3, 0, 3}, {4, 0, 4}}}));
        REQUIRE(plain.ok());
        REQUIRE(guides.ok());
        CHECK(guides->links.empty());
        CHECK(*guides == *plain);
        Context context;
        REQUIRE(geometry::saveGeometry(dir / "plain.geo", *plain).ok());
        REQUIRE(geometry::saveGeometry(dir / "guides.geo", *guides).ok());
        CHECK(test::readBytes(dir / "plain.geo") == test::readBytes(dir / "guides.geo"));
        auto loaded = loadContainer(dir / "plain.geo");
        REQUIRE(loaded.ok());
        CHECK(loaded->container.kind_version == 1);  // no links: the layout before links existed
        CHECK_FALSE(loaded->has(formats::kSecLinkSpecs));
        CHECK_FALSE(loaded->has(formats::kSecLinkSpecNames));
    }

    TEST_CASE("scene links: errors name the file and the object") {
        test::TempDir dir;
        const std::string floor = objQuad("floor", 0, 0, 10, 10, 0);
        SUBCASE("a link_ object without a line") {
            auto g = importText(dir, "s.obj", floor + objBox("link_jump_3", 1, 0, 1, 2, 1, 2));
            REQUIRE_FALSE(g.ok());
            CHECK(g.error().message ==
                  (dir / "s.obj").string() +
                      ": object 'link_jump_3' has no line: draw the link as a line (first point = "
                      "start) or use a ladder_ or door_ box");
        }
        SUBCASE("an unknown type word") {
            auto g =
                importText(dir, "s.obj", floor + objLine("link_fly_1", {{{0, 0, 0}, {1, 0, 1}}}));
            REQUIRE_FALSE(g.ok());
            INFO(g.error().message);
            CHECK(g.error().message.find("s.obj: object 'link_fly_1': 'fly' is not a link type "
                                         "(drop, jump, climb, ladder, door, teleport, custom") !=
                  std::string::npos);
        }
        SUBCASE("two scene links of one name") {
            // (Assimp's OBJ reader merges objects of one name into one node, whose meshes are
            // one link object; a links list with a repeated name is what a format with separate
            // nodes of one name gives.)
            geometry::LinkSpec a;
            a.scene = true;
            a.name = "s.glb: object 'ladder_1'";
            a.id = importer::sceneLinkId(a.name);
            geometry::LinkSpec other = a;
            other.name = "s.glb: object 'ladder_2'";
            other.id = importer::sceneLinkId(other.name);
            CHECK(importer::checkSceneLinkIds({a, other}).ok());
            const Status s = importer::checkSceneLinkIds({a, other, a});
            REQUIRE_FALSE(s.ok());
            CHECK(s.error().message ==
                  fmt::format("scene links 's.glb: object 'ladder_1'' and 's.glb: object "
                              "'ladder_1'' have the same id {}: rename one of the objects (the id "
                              "is a hash of the file and object name)",
                              a.id));
        }
        SUBCASE("the same object name in two merged files") {
            test::writeText(dir / "a.obj", floor + objBox("ladder_1", 1, 0, 1, 1.2f, 3, 2));
            std::filesystem::create_directories(dir / "b");
            test::writeText(dir / "b" / "a.obj", floor + objBox("ladder_1", 5, 0, 1, 5.2f, 3, 2));
            Context context;
            auto r = importer::ImportStage::run({{dir / "a.obj", dir / "b" / "a.obj"}}, {},
                                                dir / "m.geo", context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().message.find("have the same id") != std::string::npos);
        }
    }

    TEST_CASE("scene links: tags-file link rules with user types") {
        test::TempDir dir;
        test::writeText(dir / "tags.json", R"({
            "link_types": [{"name": "zipline", "cost_factor": 1.5}],
            "rules": [
                {"match": "NavZip*", "on": "object", "tag": "link",
                 "link": {"type": "zipline", "bidirectional": true, "cost": 4, "reverse_cost": 6,
                          "user_data": 7}},
                {"match": "Hatch*", "tag": "link", "link": {"shape": "door", "user_data": 9}},
                {"match": "Rope*", "tag": "link", "link": {"shape": "ladder", "type": "climb",
                                                          "bidirectional": false}}
            ]})");
        auto tags = importer::loadTagConfig(dir / "tags.json");
        REQUIRE_MESSAGE(tags.ok(), tags.error().message);
        importer::ImportParams params;
        params.tags = *tags;
        auto g = importText(
            dir, "s.obj",
            objQuad("floor", 0, 0, 10, 10, 0) + objLine("NavZip_A", {{{1, 2, 1}, {8, 1, 1}}}) +
                objLine("link_zipline_2", {{{1, 0, 5}, {3, 0, 5}}}) +
                objBox("Hatch_1", 2, 0, 7, 2.3f, 2, 8) + objBox("Rope_1", 6, 0, 6, 6.1f, 4, 6.1f),
            params);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->links.size() == 4);
        const auto& zip = linkNamed(*g, "s.obj: object 'NavZip_A'");
        CHECK(zip.type == formats::LinkType::custom);
        CHECK(zip.user_type == "zipline");
        CHECK(zip.type_factor == doctest::Approx(1.5));
        CHECK(zip.bidirectional);
        CHECK(zip.cost == 4);
        CHECK(zip.reverse_cost == 6);
        CHECK(zip.user_data == 7);
        checkPoint(zip.from, 1, 2, 1);
        const auto& builtin = linkNamed(*g, "s.obj: object 'link_zipline_2'");  // built-in rule
        CHECK(builtin.user_type == "zipline");
        CHECK_FALSE(builtin.bidirectional);
        const auto& hatch = linkNamed(*g, "s.obj: object 'Hatch_1'");
        CHECK(hatch.type == formats::LinkType::door);
        CHECK(hatch.user_data == 9);
        checkPoint(hatch.from, 2, 0, 7.5f);  // thinner along X
        checkPoint(hatch.to, 2.3f, 0, 7.5f);
        CHECK(trianglesOf(*g, "Hatch_1", geometry::kObstacleArea) == 12);
        const auto& rope = linkNamed(*g, "s.obj: object 'Rope_1'");
        CHECK(rope.type == formats::LinkType::climb);
        CHECK_FALSE(rope.bidirectional);
        checkPoint(rope.to, 6.05f, 4, 6.05f);
        CHECK(trianglesOf(*g, "Rope_1") == 0);
    }

    TEST_CASE("scene links: tags-file errors name the JSON path") {
        struct Case {
            const char* json;
            const char* expected;
        };
        const Case cases[] = {
            {R"({"rules": [{"match": "x", "tag": "link", "link": {"speed": 2}}]})",
             "t.json: $.rules[0].link.speed: unknown key (allowed here: type, shape, "
             "bidirectional, "
             "width, cost, reverse_cost, user_data)"},
            {R"({"rules": [{"match": "x", "tag": "link", "link": {"width": "wide"}}]})",
             "t.json: $.rules[0].link.width: expected a number"},
            {R"({"rules": [{"match": "x", "tag": "link", "link": {"type": "fly"}}]})",
             "t.json: $.rules[0].link.type: 'fly' is not a link type"},
            {R"({"rules": [{"match": "x", "tag": "link", "link": {"shape": "ramp"}}]})",
             "t.json: $.rules[0].link.shape: 'ramp' is not one of: line, ladder, door"},
            {R"({"rules": [{"match": "x", "tag": "link", "link": {"cost": -1}}]})",
             "t.json: $.rules[0].link.cost: -1 must be in 0.."},
            {R"({"rules": [{"match": "x", "tag": "link", "link": {"bidirectional": false,
                "reverse_cost": 2}}]})",
             "t.json: $.rules[0].link.reverse_cost: only for two-way links"},
            {R"({"rules": [{"match": "x", "tag": "water", "link": {}}]})",
             "t.json: $.rules[0].link: only with \"tag\": \"link\""},
            {R"({"link_types": [{"name": "drop"}]})", "t.json: $.link_types[0].name: 'drop'"},
            {R"({"link_types": {}})", "t.json: $.link_types: expected an array of link types"},
            {R"({"areas": [{"name": "link", "cost": 2}]})",
             "t.json: $.areas[0].name: 'link' is reserved"},
        };
        for (const Case& c : cases) {
            auto config = importer::parseTagConfig(c.json, "t.json");
            REQUIRE_FALSE(config.ok());
            INFO(config.error().message);
            CHECK(config.error().message.find(c.expected) != std::string::npos);
        }
    }

    TEST_CASE("scene links: .geo and .vox round trips, corrupt sections refused") {
        test::TempDir dir;
        auto g =
            importText(dir, "s.obj",
                       objQuad("floor", 0, 0, 10, 10, 0) + objBox("ladder_1", 1, 0, 1, 1.2f, 3, 2) +
                           objLine("link_drop_twoway_1", {{{5, 0, 5}, {6, 0, 6}}}));
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->links.size() == 2);
        REQUIRE(geometry::saveGeometry(dir / "s.geo", *g).ok());
        auto loaded = geometry::loadGeometry(dir / "s.geo");
        REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
        CHECK(loaded->links == g->links);
        CHECK(*loaded == *g);
        auto container = loadContainer(dir / "s.geo");
        REQUIRE(container.ok());
        CHECK(container->container.kind_version == 2);

        Context context;
        auto grid = voxel::voxelize(*g, {}, context);
        REQUIRE(grid.ok());
        CHECK(grid->links == g->links);
        REQUIRE(voxel::saveVoxels(dir / "s.vox", *grid).ok());
        auto vox = voxel::loadVoxels(dir / "s.vox");
        REQUIRE_MESSAGE(vox.ok(), vox.error().message);
        CHECK(*vox == *grid);
        auto vox_container = loadContainer(dir / "s.vox");
        REQUIRE(vox_container.ok());
        CHECK(vox_container->container.kind_version == 2);
        // Without links the grid is written as before (version 1).
        voxel::VoxelGrid plain = *grid;
        plain.links.clear();
        REQUIRE(voxel::saveVoxels(dir / "plain.vox", plain).ok());
        auto plain_container = loadContainer(dir / "plain.vox");
        REQUIRE(plain_container.ok());
        CHECK(plain_container->container.kind_version == 1);

        // A record the decoder refuses (an unknown link type) names the file and the offset.
        geometry::Geometry bad = *g;
        bad.links[1].type = formats::LinkType(99);
        REQUIRE(geometry::saveGeometry(dir / "bad.geo", bad).ok());
        auto refused = geometry::loadGeometry(dir / "bad.geo");
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message ==
              (dir / "bad.geo").string() + ": section 'SLNK' at byte 64: unknown link type");
    }

    TEST_CASE("scene links: a ladder box joins a floor to a platform 3 m up") {
        // A 12 x 10 m floor; east of it a block 8 x 10 x 3 m (its top is the upper floor, its
        // sides walls no agent climbs); a ladder box leaning against the block's west face.
        test::TempDir dir;
        const std::string scene = objQuad("floor", 0, 0, 12, 10, 0) +
                                  objBox("platform", 12, 0, 0, 20, 3, 10) +
                                  objBox("ladder_west", 11.8f, 0, 4.5f, 12, 3, 5.5f);
        auto g = importText(dir, "two_floors.obj", scene);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->links.size() == 1);
        Context context;
        auto grid = voxel::voxelize(*g, {}, context);
        REQUIRE(grid.ok());
        REQUIRE(grid->links.size() == 1);

        auto tile = graph::buildTileGraph(*grid, context);
        REQUIRE(tile.ok());
        CHECK(tile->header.component_count == 2);  // the floor and the platform's top
        graph::LinkResolveStats stats;
        REQUIRE(graph::attachLinks(*tile, grid->links, 1, stats, context).ok());
        CHECK(tile->header.component_count == 1);
        REQUIRE(tile->links.size() == 1);
        const formats::LinkRecord& ladder = tile->links[0];
        CHECK(ladder.type == formats::LinkType::ladder);
        CHECK(ladder.id == g->links[0].id);
        CHECK(ladder.from[1] == doctest::Approx(0.0));  // resolved onto the floor ...
        CHECK(ladder.to[1] == doctest::Approx(3.0));    // ... and onto the platform
        CHECK(ladder.to[0] > 12.0f);

        // The same through the stage definitions, the .vox carrying the links.
        REQUIRE(voxel::saveVoxels(dir / "two_floors.vox", *grid).ok());
        auto run = graph::GraphStage::run({dir / "two_floors.vox"}, {}, dir / "t.graph", context);
        REQUIRE_MESSAGE(run.ok(), run.error().message);
        const auto summary =
            std::find_if(run->summary.begin(), run->summary.end(),
                         [](const std::string& s) { return s.rfind("links:", 0) == 0; });
        REQUIRE(summary != run->summary.end());
        CHECK(*summary ==
              "links: 1 (1 ladder); components 2 before links, 1 with them (undirected)");
        auto saved = graph::loadGraph(dir / "t.graph");
        REQUIRE(saved.ok());
        CHECK(saved->header.component_count == 1);
    }
}
