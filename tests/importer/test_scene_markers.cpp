// Designers' markers placed in the scene (issue 14): objects that marker tag rules match become
// bake bounds, modifier volumes (boxes or convex hulls, for some agents), seeds and points of
// interest; the .geo and .vox carry them (SMRK) to the stages that apply them.
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
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;
using test::countOf;
using test::objBox;

namespace {

// A 20 x 10 m floor (top y = 0), a roof slab (top 4.2) over part of it, a platform 40 m away,
// and the markers: bounds around the floor and roof, a seed on the floor, a water volume over
// x 10..14, points of interest on the floor and on the roof.
std::string markedScene() {
    return objBox("floor", 0, -0.2f, 0, 20, 0, 10) + objBox("roof", 2, 4, 2, 8, 4.2f, 8) +
           objBox("far", 40, -0.2f, 0, 46, 0, 6) +
           objBox("nav_bounds_main", -1, -1, -1, 21, 6, 11) +
           objBox("nav_seed_1", 1, 0, 1, 1.2f, 0.2f, 1.2f) +
           objBox("nav_volume_water", 10, -1, 0, 14, 1, 10) +
           objBox("nav_poi_health_1", 18, 0, 9, 18.2f, 0.2f, 9.2f) +
           objBox("nav_poi_key", 4.9f, 4.2f, 4.9f, 5.1f, 4.4f, 5.1f);
}

// A wedge: the triangle (15, 0), (19, 0), (15, 4) on X-Z, from y = -1 to 1.
std::string wedge(const std::string& name) {
    std::string s = "o " + name + "\n";
    for (float y : {-1.0f, 1.0f}) s += fmt::format("v 15 {} 0\nv 19 {} 0\nv 15 {} 4\n", y, y, y);
    return s +
           "f -6 -5 -4\nf -3 -1 -2\nf -6 -3 -2\nf -6 -2 -5\nf -5 -2 -1\nf -5 -1 -4\n"
           "f -4 -1 -3\nf -4 -3 -6\n";
}

using Top = test::WalkableTop;
using test::walkableTops;

const geometry::SceneMarker& markerOf(const geometry::Geometry& g, const std::string& object) {
    for (const geometry::SceneMarker& m : g.markers)
        if (m.object == object) return m;
    FAIL("no marker for object ", object);
    return g.markers.front();
}

voxel::VoxelizeParams params() {
    voxel::VoxelizeParams p;
    p.agent.radius = 0;  // no erosion: exact cells
    return p;
}

}  // namespace

TEST_SUITE("import") {
    TEST_CASE("scene markers: bounds, seeds, volumes and points of interest from objects") {
        test::TempDir dir;
        test::writeText(dir / "level.obj", markedScene());
        Context context;
        auto g = importer::importScene(dir / "level.obj", {}, context);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->markers.size() == 5);
        const geometry::SceneMarker& bounds = markerOf(*g, "nav_bounds_main");
        CHECK(bounds.kind == geometry::MarkerKind::bounds);
        CHECK(bounds.name == "level.obj: object 'nav_bounds_main'");
        CHECK(bounds.box == geometry::Bounds{{-1, -1, -1}, {21, 6, 11}});
        const geometry::SceneMarker& seed = markerOf(*g, "nav_seed_1");
        CHECK(seed.kind == geometry::MarkerKind::seed);
        CHECK(seed.position[0] == doctest::Approx(1.1));  // bottom centre of its box
        CHECK(seed.position[1] == doctest::Approx(0));
        CHECK(seed.position[2] == doctest::Approx(1.1));
        const geometry::SceneMarker& water = markerOf(*g, "nav_volume_water");
        CHECK(water.kind == geometry::MarkerKind::volume);
        CHECK(water.area == "water");  // from the name
        CHECK(water.planes.empty());
        CHECK(markerOf(*g, "nav_poi_health_1").label == "health");
        CHECK(markerOf(*g, "nav_poi_key").label == "key");
        // Marker objects are proxies: their triangles are gone (5 x 12 ignored).
        CHECK(g->dropped_ignored == 60);
        CHECK(g->objects.size() == 3);

        // The .geo keeps them (kind version 3), the .vox the ones later stages use.
        REQUIRE(geometry::saveGeometry(dir / "level.geo", *g).ok());
        auto loaded = geometry::loadGeometry(dir / "level.geo");
        REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
        CHECK(loaded->markers == g->markers);
        auto grid = voxel::voxelize(*g, params(), context);
        REQUIRE_MESSAGE(grid.ok(), grid.error().message);
        REQUIRE(grid->markers.size() == 3);  // the seed and the two points of interest
        const std::vector<Top> tops = walkableTops(*grid);
        // Bounds: the far platform is gone; the roof and floor stay.
        CHECK(std::none_of(tops.begin(), tops.end(), [](const Top& t) { return t.x > 30; }));
        CHECK(std::any_of(tops.begin(), tops.end(), [](const Top& t) { return t.y > 4; }));
        // The water volume: exactly the floor cells with centres in x 10..14 are water.
        const uint8_t water_area = 2;
        REQUIRE(grid->areas[water_area].name == "water");
        for (const Top& t : tops)
            CHECK((t.area == water_area) == (t.y < 1 && t.x >= 10 && t.x <= 14));

        // Graph stage: the seed prunes the roof; the key on the roof is reported, the health
        // pack reachable.
        REQUIRE(voxel::saveVoxels(dir / "level.vox", *grid).ok());
        for (const graph::GraphKind kind : {graph::GraphKind::tile, graph::GraphKind::navmesh}) {
            graph::GraphStage::Params gp;
            gp.kind = kind;
            auto result = graph::GraphStage::run({dir / "level.vox"}, gp, dir / "l.graph", context);
            REQUIRE_MESSAGE(result.ok(), result.error().message);
            CHECK(countOf(*result, "seeds_on_surface") == 1);
            const size_t roof_cells = size_t(
                std::count_if(tops.begin(), tops.end(), [](const Top& t) { return t.y > 4; }));
            CHECK(countOf(*result, "seed_pruned_cells") == roof_cells);
            CHECK(countOf(*result, "points_reachable") == 1);
            CHECK(countOf(*result, "points_off_surface") + countOf(*result, "points_unreachable") ==
                  1);
            const bool named = std::any_of(
                result->warnings.begin(), result->warnings.end(), [](const std::string& w) {
                    return w.find(
                               "level.obj: object 'nav_poi_key': point of interest "
                               "'nav_poi_key' (key)") != std::string::npos;
                });
            CHECK(named);
        }
    }

    TEST_CASE("scene markers: a convex hull volume for some agents, walkable_for, rule errors") {
        test::TempDir dir;
        test::writeText(dir / "level.obj", objBox("floor", 0, -0.2f, 0, 20, 0, 10) +
                                               wedge("wedge_1") +
                                               objBox("bridge_1", 2, -1, 2, 6, 1, 6));
        test::writeText(dir / "tags.json",
                        R"({"rules": [
                {"match": "wedge_*", "on": "object", "tag": "volume",
                 "marker": {"shape": "hull", "forbid": true, "agents": ["ogre"]}},
                {"match": "bridge_*", "on": "object", "tag": "volume",
                 "marker": {"walkable_for": ["scout"]}}]})");
        auto tags = importer::loadTagConfig(dir / "tags.json");
        REQUIRE_MESSAGE(tags.ok(), tags.error().message);
        importer::ImportParams ip;
        ip.tags = *tags;
        Context context;
        auto g = importer::importScene(dir / "level.obj", ip, context);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->markers.size() == 2);
        CHECK(g->markers[0].planes.size() == 5);  // a triangular prism
        geometry::Geometry unmarked = *g;
        unmarked.markers.clear();
        auto plain = voxel::voxelize(unmarked, params(), context);
        REQUIRE(plain.ok());
        const std::vector<Top> all = walkableTops(*plain);
        for (const char* agent : {"ogre", "scout", "human"}) {
            INFO(agent);
            voxel::VoxelizeParams p = params();
            p.agent_name = agent;
            auto grid = voxel::voxelize(*g, p, context);
            REQUIRE_MESSAGE(grid.ok(), grid.error().message);
            // The surface without markers, less the columns a volume forbids this agent (by
            // column centre: the wedge's triangle, the bridge's box).
            std::vector<Top> expected;
            for (const Top& t : all) {
                const bool in_wedge = t.x >= 15 && t.z >= 0 && (t.x - 15) + t.z <= 4 + 1e-3;
                const bool on_bridge = t.x >= 2 && t.x <= 6 && t.z >= 2 && t.z <= 6;
                if (std::string(agent) == "ogre" && in_wedge) continue;
                if (std::string(agent) != "scout" && on_bridge) continue;
                expected.push_back(t);
            }
            const std::vector<Top> tops = walkableTops(*grid);
            REQUIRE(tops.size() == expected.size());
            for (size_t i = 0; i < tops.size(); ++i) {
                CHECK(tops[i].x == expected[i].x);
                CHECK(tops[i].z == expected[i].z);
            }
            CHECK((tops.size() < all.size()) == (std::string(agent) != "scout"));
        }
        // The same hull from a config's points.
        const nlohmann::json volumes = nlohmann::json::parse(
            R"([{"points": [[15, -1, 0], [19, -1, 0], [15, -1, 4], [15, 1, 0], [19, 1, 0],
                            [15, 1, 4]], "forbid": true}])");
        std::vector<voxel::ModifierVolume> parsed;
        REQUIRE(voxel::parseVolumes(volumes, "$.volumes", "c.json", parsed).ok());
        REQUIRE(parsed.size() == 1);
        CHECK(parsed[0].planes == g->markers[0].planes);
        CHECK(parsed[0].box == g->markers[0].box);

        // Errors name the file and object or JSON path.
        const auto fails = [&](const std::string& scene, const std::string& expected) {
            test::writeText(dir / "bad.obj", scene);
            auto bad = importer::importScene(dir / "bad.obj", {}, context);
            REQUIRE_FALSE(bad.ok());
            CHECK_MESSAGE(bad.error().message.find(expected) != std::string::npos,
                          bad.error().message);
        };
        fails(objBox("nav_volume_lava", 0, 0, 0, 1, 1, 1),
              "bad.obj: object 'nav_volume_lava' is a volume marker that changes nothing");
        fails("o nav_bounds_flat\nv 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 3\n",
              "bad.obj: object 'nav_bounds_flat': a bounds marker must have a volume, but it is "
              "flat along Y");
        const auto bad_volume = [&](const std::string& json, const std::string& expected) {
            std::vector<voxel::ModifierVolume> out;
            Status s = voxel::parseVolumes(nlohmann::json::parse(json), "$.volumes", "c.json", out);
            REQUIRE_FALSE(s.ok());
            CHECK_MESSAGE(s.error().message.find(expected) != std::string::npos, s.error().message);
        };
        bad_volume(R"([{"points": [[0,0,0],[1,0,0],[0,0,1],[1,0,1]], "forbid": true}])",
                   "c.json: $.volumes[0].points: the 4 points span no volume");
        bad_volume(R"([{"points": [[0,0,0],[1,0,0],[0,0,1],[1,"x",1]], "forbid": true}])",
                   "c.json: $.volumes[0].points[3]: expected [x, y, z]");
        bad_volume(R"([{"min": [0,0,0], "max": [1,1,1], "points": [], "forbid": true}])",
                   "c.json: $.volumes[0]: either");
        auto bad_tags = importer::parseTagConfig(
            R"({"rules": [{"match": "x", "tag": "waypoint", "marker": {"area": "water"}}]})",
            "t.json");
        REQUIRE_FALSE(bad_tags.ok());
        CHECK(bad_tags.error().message.find("t.json: $.rules[0].marker.area: unknown key") !=
              std::string::npos);
        auto bad_marker = importer::parseTagConfig(
            R"({"rules": [{"match": "x", "tag": "water", "marker": {}}]})", "t.json");
        REQUIRE_FALSE(bad_marker.ok());
        CHECK(bad_marker.error().message.find(
                  "t.json: $.rules[0].marker: only with a marker tag") != std::string::npos);
    }

    TEST_CASE("scene markers: glTF empties give points at their origin, SMRK is checked") {
        using Json = nlohmann::ordered_json;
        GltfWriter writer;
        const std::vector<float> floor = {0, 0, 0, 10, 0, 0, 10, 0, 10, 0, 0, 10};
        const std::vector<uint32_t> floor_tris = {0, 2, 1, 0, 3, 2};
        const size_t pos = writer.addPositions(floor), idx = writer.addIndices(floor_tris);
        Json meshes = Json::array(
            {Json{{"name", "Plane"},
                  {"primitives",
                   Json::array({Json{
                       {"attributes", {{"POSITION", pos}}}, {"indices", idx}, {"mode", 4}}})}}});
        Json nodes = Json::array(
            {Json{{"name", "level"}, {"children", {1, 2, 3}}, {"translation", {100, 0, 0}}},
             Json{{"name", "ground"}, {"mesh", 0}},
             Json{{"name", "NAV_SEED_spawn"}, {"translation", {3, 0, 4}}},
             Json{{"name", "nav_waypoint_hall"}, {"translation", {5, 0, 6}}}});
        Json document{{"asset", {{"version", "2.0"}}},
                      {"scene", 0},
                      {"scenes", Json::array({Json{{"nodes", {0}}}})},
                      {"nodes", nodes},
                      {"meshes", meshes}};
        test::TempDir dir;
        REQUIRE(writeFileAtomic(dir / "level.glb", writer.finish(document)).ok());
        Context context;
        auto g = importer::importScene(dir / "level.glb", {}, context);
        REQUIRE_MESSAGE(g.ok(), g.error().message);
        REQUIRE(g->markers.size() == 2);
        CHECK(g->markers[0].kind == geometry::MarkerKind::seed);
        CHECK(g->markers[0].position == std::array<float, 3>{103, 0, 4});
        CHECK(g->markers[1].kind == geometry::MarkerKind::waypoint);
        CHECK(g->markers[1].position == std::array<float, 3>{105, 0, 6});
        CHECK(g->triangleCount() == 2);

        // A corrupt SMRK names the file, the section and the byte.
        REQUIRE(geometry::saveGeometry(dir / "level.geo", *g).ok());
        auto container =
            loadContainer(dir / "level.geo", formats::kKindGeometry, formats::kGeometryVersion);
        REQUIRE(container.ok());
        CHECK(container->container.kind_version == 3);
        auto markers = geometry::decodeMarkerSection(*container);
        REQUIRE(markers.ok());
        CHECK(*markers == g->markers);
        geometry::Geometry corrupt = *g;
        corrupt.markers[1].kind = geometry::MarkerKind(9);
        REQUIRE(geometry::saveGeometry(dir / "corrupt.geo", corrupt).ok());
        auto refused = geometry::loadGeometry(dir / "corrupt.geo");
        REQUIRE_FALSE(refused.ok());
        // The count, then the seed's record: kind, flags, plane count, 11 floats, four string
        // lengths (name, object, label, area), two empty name lists.
        const size_t first_record = 4 + 4 + 4 * 11 + 4 * 4 + g->markers[0].name.size() +
                                    g->markers[0].object.size() + 4 * 2;
        CHECK(refused.error().message ==
              fmt::format("{}: section 'SMRK' at byte {} (marker 1): unknown kind 9",
                          (dir / "corrupt.geo").string(), first_record));
    }
}
