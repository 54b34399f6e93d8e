// Debug views (lib/view): PNG decodes through libpng at the expected size with the path drawn,
// SVG is balanced XML whose element counts match ViewStats, GLB loads through Assimp with the
// meshes and vertices ViewStats reports, and bad inputs fail with errors that say what is wrong.
#include <doctest/doctest.h>

#include <assimp/scene.h>
#include <png.h>
#include <assimp/Importer.hpp>

#include <cstring>
#include <map>
#include <string>

#include "lib/cluster/cluster.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/view/view.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

// The indoor sample (two floors joined by a stair) baked to every artifact kind a view reads.
struct IndoorLevel {
    test::TempDir dir;
    std::filesystem::path geo = dir / "indoor.geo", vox = dir / "indoor.vox",
                          tile = dir / "tile.nav", navmesh = dir / "navmesh.nav",
                          navmesh_graph = dir / "navmesh.graph";
    size_t triangles = 0, walkable = 0, tile_nodes = 0, polygons = 0;

    IndoorLevel() {
        Context context;
        auto geometry =
            importer::importScene(test::sampleLevels() / "indoor_two_floors.glb", {}, context);
        REQUIRE(geometry.ok());
        REQUIRE(geometry::saveGeometry(geo, *geometry).ok());
        triangles = geometry->triangleCount();
        auto grid = voxel::voxelize(*geometry, {}, context);
        REQUIRE(grid.ok());
        REQUIRE(voxel::saveVoxels(vox, *grid).ok());
        walkable = grid->walkableCount();
        auto tile_graph = graph::buildTileGraph(*grid, context);
        REQUIRE(tile_graph.ok());
        REQUIRE(graph::saveGraph(tile, *tile_graph, formats::kKindNav).ok());
        tile_nodes = tile_graph->nodeCount();
        auto mesh = graph::buildNavmeshGraph(*grid, {}, context);
        REQUIRE(mesh.ok());
        REQUIRE(graph::saveGraph(navmesh, *mesh, formats::kKindNav).ok());
        REQUIRE(graph::saveGraph(navmesh_graph, *mesh).ok());
        polygons = mesh->mesh.polyCount();
    }
};

// A tiny MovingAI map (6 x 5, a wall with a gap), packed with grid clusters of 3 x 3 cells.
struct TinyMap {
    test::TempDir dir;
    std::filesystem::path nav = dir / "tiny.nav", clu = dir / "tiny.clu";
    size_t nodes = 0;
    uint32_t clusters = 0;

    TinyMap() {
        auto map = importer::parseMovingAiMap(
            "type octile\nheight 5\nwidth 6\nmap\n"
            "......\n"
            "......\n"
            "@@@@..\n"
            "......\n"
            "......\n",
            "tiny.map");
        REQUIRE(map.ok());
        Context context;
        auto g = graph::buildTileGraph(importer::gridFromMap(*map), context);
        REQUIRE(g.ok());
        nodes = g->nodeCount();
        cluster::ClusterParams params;
        params.cluster_size = 3;
        auto c = cluster::buildClusters(*g, params, context);
        REQUIRE(c.ok());
        clusters = c->count();
        REQUIRE(cluster::saveClusters(clu, *c).ok());
        formats::ContainerWriter writer = graph::graphWriter(*g, formats::kKindNav);
        cluster::addClusterSections(writer, *c);
        REQUIRE(saveContainer(nav, writer).ok());
    }
};

struct Image {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgb;

    size_t count(view::Colour c) const {
        size_t n = 0;
        for (size_t i = 0; i + 2 < rgb.size(); i += 3)
            n += rgb[i] == c.r && rgb[i + 1] == c.g && rgb[i + 2] == c.b;
        return n;
    }
};

// Decodes with libpng's simplified API (independent of the writer's code path).
Image decodePng(const std::filesystem::path& path) {
    png_image image;
    std::memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    REQUIRE(png_image_begin_read_from_file(&image, path.c_str()) != 0);
    image.format = PNG_FORMAT_RGB;
    Image out;
    out.width = image.width;
    out.height = image.height;
    out.rgb.resize(PNG_IMAGE_SIZE(image));
    REQUIRE(png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr) != 0);
    return out;
}

size_t countOf(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// Checks that every tag is closed in order and that there is exactly one root element, <svg>.
void requireBalancedXml(const std::string& text) {
    std::vector<std::string> open;
    size_t roots = 0;
    std::string root;
    for (size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
        const size_t end = text.find('>', at);
        if (end == std::string::npos) FAIL("unterminated tag at byte " << at);
        const std::string tag = text.substr(at + 1, end - at - 1);
        if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
        if (tag[0] == '/') {
            REQUIRE_FALSE(open.empty());
            if (open.back() != tag.substr(1))
                FAIL("</" << tag.substr(1) << "> closes <" << open.back() << ">");
            open.pop_back();
            continue;
        }
        const std::string name = tag.substr(0, tag.find_first_of(" /"));
        if (open.empty()) {
            ++roots;
            root = name;
        }
        if (tag.back() != '/') open.push_back(name);
    }
    CHECK(open.empty());
    CHECK(roots == 1);
    CHECK(root == "svg");
}

bool failsWith(Status status, ErrorKind kind, const std::string& part) {
    if (status.ok()) return false;
    INFO(status.error().message);
    CHECK(status.error().kind == kind);
    CHECK(status.error().message.find(part) != std::string::npos);
    return status.error().kind == kind && status.error().message.find(part) != std::string::npos;
}

view::ViewOptions withPath(const char* spec, uint32_t size = 1024) {
    view::ViewOptions options;
    view::PathRequest request;
    REQUIRE(view::parsePathSpec(spec, request));
    options.paths.push_back(request);
    options.size = size;
    return options;
}

}  // namespace

TEST_SUITE("view") {
    TEST_CASE("view: option parsing: formats, layers, path specs, option checks") {
        CHECK(view::formatFromPath("a/b.SVG").value() == view::ViewFormat::svg);
        CHECK(view::formatFromPath("b.png").value() == view::ViewFormat::png);
        CHECK(view::formatFromPath("b.glb").value() == view::ViewFormat::glb);
        auto bad = view::formatFromPath("b.jpg");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().kind == ErrorKind::usage);
        CHECK(bad.error().message.find("unknown view format '.jpg'") != std::string::npos);
        view::Layer layer;
        CHECK(view::parseLayer("navmesh", layer));
        CHECK(layer == view::Layer::navmesh);
        CHECK_FALSE(view::parseLayer("bogus", layer));
        CHECK(view::layerNames() == "geometry, walkable, graph, navmesh, clusters, paths");
        view::PathRequest r;
        REQUIRE(view::parsePathSpec("2,0,2:8,3.5,-15", r));
        CHECK(r.to.y == 3.5f);
        CHECK(r.to.z == -15.0f);
        CHECK_FALSE(view::parsePathSpec("2,0,2", r));
        CHECK_FALSE(view::parsePathSpec("2,0,2:8,3", r));
        CHECK_FALSE(view::parsePathSpec("2,0,2:8,3,1:1,1,1", r));
        CHECK_FALSE(view::parsePathSpec("2,0,2:8,3,1x", r));
        CHECK_FALSE(view::parsePathSpec("nan,0,2:8,3,1", r));
        view::ViewOptions options;
        options.size = 4;
        options.floor_filter = true;
        options.floor_min = 3;
        options.floor_max = 1;
        const Status s = view::checkOptions(options);
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message.find("size 4 px") != std::string::npos);
        CHECK(s.error().message.find("floor range") != std::string::npos);
        CHECK(view::clusterColour(3) == view::clusterColour(3));
        CHECK_FALSE(view::clusterColour(3) == view::clusterColour(4));
    }

    TEST_CASE("view: PNG of the indoor navmesh with a path decodes at the expected size") {
        IndoorLevel level;
        Context context;
        view::ViewStats stats;
        const auto out = level.dir / "navmesh.png";
        REQUIRE(view::writeView(level.navmesh, out, withPath("2,0,2:8,3,15", 600), context, &stats)
                    .ok());
        CHECK(stats.layers ==
              (view::layerBit(view::Layer::graph) | view::layerBit(view::Layer::navmesh) |
               view::layerBit(view::Layer::paths)));
        CHECK(stats.polygons == level.polygons);
        CHECK(stats.nodes == level.polygons);
        CHECK(stats.edges > 0);
        CHECK(stats.paths == 1);
        CHECK(stats.paths_found == 1);
        CHECK(stats.path_points >= 2);
        CHECK(stats.expanded > 0);
        CHECK(stats.expanded <= level.polygons);
        const Image image = decodePng(out);
        CHECK(image.width == stats.width);
        CHECK(image.height == stats.height);
        CHECK(std::max(image.width, image.height) == 600);
        // The level is wider (X) than deep (Z).
        CHECK(image.width > image.height);
        // A 3 px polyline from (2, 2) across the stair to (8, 15): dozens of pixels of its exact
        // colour.
        CHECK(image.count(view::pathColour(0)) > 100);
        CHECK(stats.bytes == std::filesystem::file_size(out));

        // Same inputs, same bytes.
        const auto again = level.dir / "again.png";
        REQUIRE(view::writeView(level.navmesh, again, withPath("2,0,2:8,3,15", 600), context).ok());
        CHECK(test::readBytes(out) == test::readBytes(again));

        // Without a path there is no path colour; the .graph (not packed) draws the same navmesh.
        view::ViewOptions plain;
        plain.size = 600;
        const auto bare = level.dir / "bare.png";
        REQUIRE(view::writeView(level.navmesh_graph, bare, plain, context, &stats).ok());
        CHECK(stats.polygons == level.polygons);
        CHECK(decodePng(bare).count(view::pathColour(0)) == 0);
        const size_t all_shapes = stats.polygon_shapes + stats.line_shapes + stats.disc_shapes;

        // Cropped to a 10 x 5 m box: fitted to it (2:1), fewer shapes drawn.
        view::ViewOptions cropped = plain;
        cropped.crop = true;
        cropped.crop_min[0] = 0, cropped.crop_min[1] = 0;
        cropped.crop_max[0] = 10, cropped.crop_max[1] = 5;
        REQUIRE(
            view::writeView(level.navmesh_graph, level.dir / "crop.png", cropped, context, &stats)
                .ok());
        CHECK(stats.width == 600);
        CHECK(std::abs(int(stats.height) - int((600 - 2 * 8) / 2 + 2 * 8)) <= 1);
        CHECK(stats.polygon_shapes + stats.line_shapes + stats.disc_shapes < all_shapes);
        cropped.crop_max[0] = -1;
        const Status bad_crop = view::checkOptions(cropped);
        REQUIRE_FALSE(bad_crop.ok());
        CHECK(bad_crop.error().message.find("crop box 0,0:-1,5") != std::string::npos);
    }

    TEST_CASE("view: SVG element counts match ViewStats and the document is balanced") {
        IndoorLevel level;
        Context context;
        for (const auto& artifact : {level.navmesh, level.tile}) {
            INFO(artifact.filename().string());
            view::ViewStats stats;
            const auto out = level.dir / "view.svg";
            view::ViewOptions options = withPath("2,0,2:8,3,15");
            options.max_edges = 1000000;
            REQUIRE(view::writeView(artifact, out, options, context, &stats).ok());
            const auto bytes = test::readBytes(out);
            const std::string svg(bytes.begin(), bytes.end());
            CHECK(svg.rfind("<?xml", 0) == 0);
            CHECK(svg.size() > 7);
            CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
            requireBalancedXml(svg);
            CHECK(svg.find(fmt::format("width=\"{}\" height=\"{}\"", stats.width, stats.height)) !=
                  std::string::npos);
            const size_t polygons = countOf(svg, "<polygon "), lines = countOf(svg, "<line "),
                         circles = countOf(svg, "<circle "), polylines = countOf(svg, "<polyline ");
            CHECK(polygons == stats.polygon_shapes);
            CHECK(lines == stats.line_shapes);
            CHECK(circles == stats.disc_shapes);
            CHECK(polylines == stats.polyline_shapes);
            // What the shapes are: surfaces + the fill, edges, node dots + 2 markers, one path.
            CHECK(polygons == stats.cells + stats.polygons + stats.expanded);
            CHECK(lines == stats.edges);
            CHECK(circles == stats.nodes + 2);
            CHECK(polylines == 1);
            CHECK(stats.expanded > 0);
            CHECK(stats.skipped_edges == 0);
            CHECK(countOf(svg, fmt::format("stroke=\"#{:02x}{:02x}{:02x}\"", view::pathColour(0).r,
                                           view::pathColour(0).g, view::pathColour(0).b)) == 1);
        }
        // Tile graph: one cell and one dot per node.
        view::ViewStats stats;
        REQUIRE(view::writeView(level.tile, level.dir / "t.svg", {}, context, &stats).ok());
        CHECK(stats.cells == level.tile_nodes);
        CHECK(stats.nodes == level.tile_nodes);
        // Edges above the limit are skipped and counted.
        view::ViewOptions few;
        few.max_edges = 10;
        REQUIRE(view::writeView(level.tile, level.dir / "t.svg", few, context, &stats).ok());
        CHECK(stats.edges == 0);
        CHECK(stats.skipped_edges > 10);
        CHECK(stats.line_shapes == 0);
        // One floor only.
        view::ViewOptions ground;
        ground.floor_filter = true;
        ground.floor_min = -1;
        ground.floor_max = 1;
        ground.layers = view::layerBit(view::Layer::walkable);
        REQUIRE(view::writeView(level.tile, level.dir / "g.svg", ground, context, &stats).ok());
        CHECK(stats.cells > 0);
        CHECK(stats.cells < level.tile_nodes);
        // Geometry and voxel grids.
        REQUIRE(view::writeView(level.geo, level.dir / "geo.svg", {}, context, &stats).ok());
        CHECK(stats.triangles == level.triangles);
        CHECK(stats.polygon_shapes == level.triangles);
        REQUIRE(view::writeView(level.vox, level.dir / "vox.svg", {}, context, &stats).ok());
        CHECK(stats.cells == level.walkable);
    }

    TEST_CASE("view: GLB loads through Assimp with the meshes and vertices of ViewStats") {
        IndoorLevel level;
        Context context;
        struct Case {
            std::filesystem::path artifact;
            bool path;
        };
        for (const Case& c : {Case{level.navmesh, true}, Case{level.tile, true},
                              Case{level.geo, false}, Case{level.vox, false}}) {
            INFO(c.artifact.filename().string());
            view::ViewStats stats;
            const auto out = level.dir / "view.glb";
            view::ViewOptions options = c.path ? withPath("2,0,2:8,3,15") : view::ViewOptions{};
            REQUIRE(view::writeView(c.artifact, out, options, context, &stats).ok());
            // Container: magic, version, total length, 4-byte aligned chunks.
            const auto bytes = test::readBytes(out);
            REQUIRE(bytes.size() >= 20);
            uint32_t header[5];
            std::memcpy(header, bytes.data(), sizeof(header));
            CHECK(header[0] == 0x46546C67);
            CHECK(header[1] == 2);
            CHECK(header[2] == bytes.size());
            CHECK(header[3] % 4 == 0);
            CHECK(header[4] == 0x4E4F534A);
            CHECK(bytes.size() % 4 == 0);

            Assimp::Importer importer;
            const aiScene* scene = importer.ReadFile(out.string(), 0);
            INFO(importer.GetErrorString());
            REQUIRE(scene != nullptr);
            CHECK(scene->mNumMeshes == stats.glb_meshes);
            size_t vertices = 0;
            std::map<std::string, const aiMesh*> meshes;
            for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
                const aiMesh* mesh = scene->mMeshes[m];
                vertices += mesh->mNumVertices;
                meshes[mesh->mName.C_Str()] = mesh;
                CHECK(mesh->HasVertexColors(0));
            }
            CHECK(vertices == stats.glb_vertices);
            if (c.artifact == level.geo) {
                REQUIRE(meshes.count("geometry_triangles"));
                CHECK(meshes["geometry_triangles"]->mNumVertices == 3 * stats.triangles);
                CHECK(meshes["geometry_triangles"]->mNumFaces == stats.triangles);
            } else {
                REQUIRE(meshes.count("surface_triangles"));
                CHECK((meshes["surface_triangles"]->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) !=
                      0);
            }
            if (c.artifact == level.vox)
                CHECK(meshes["surface_triangles"]->mNumVertices == 6 * stats.cells);
            if (!c.path) continue;
            REQUIRE(meshes.count("path_0"));
            const aiMesh* path = meshes["path_0"];
            CHECK(path->mNumVertices == stats.path_points);
            CHECK((path->mPrimitiveTypes & aiPrimitiveType_LINE) != 0);
            REQUIRE(meshes.count("graph_edges_lines"));
            CHECK(meshes["graph_edges_lines"]->mNumVertices == 2 * stats.edges);
            REQUIRE(meshes.count("graph_nodes_points"));
            CHECK(meshes["graph_nodes_points"]->mNumVertices == stats.nodes);
            REQUIRE(meshes.count("markers_points"));
            CHECK(meshes["markers_points"]->mNumVertices == 2);
            REQUIRE(meshes.count("fill_triangles"));
            // The path is lifted 10 cm above the floor it starts on (Y = 0).
            CHECK(path->mVertices[0].y == doctest::Approx(0.1).epsilon(0.05));
        }
    }

    TEST_CASE("view: clusters of a MovingAI map are coloured per cluster") {
        TinyMap map;
        Context context;
        view::ViewStats stats;
        const auto out = map.dir / "tiny.png";
        REQUIRE(view::writeView(map.nav, out, withPath("0.5,0,0.5:0.5,0,4.5", 200), context, &stats)
                    .ok());
        CHECK((stats.layers & view::layerBit(view::Layer::clusters)) != 0);
        CHECK(stats.cells == map.nodes);
        CHECK(stats.clustered == map.nodes);
        CHECK(stats.clusters == map.clusters);
        CHECK(map.clusters >= 4);
        CHECK(stats.paths_found == 1);
        // The path detours through the gap at x = 4..5: the search expands most of the map.
        CHECK(stats.expanded > map.nodes / 2);
        const Image image = decodePng(out);
        CHECK(image.width == 200);
        CHECK(image.height == stats.height);
        CHECK(image.count(view::pathColour(0)) > 20);
        // Single floor: no height shading, so every cluster's own colour shows (where neither the
        // fill nor the graph covers it: draw the clusters alone).
        view::ViewOptions only;
        only.layers = view::layerBit(view::Layer::clusters);
        only.size = 200;
        REQUIRE(view::writeView(map.nav, out, only, context, &stats).ok());
        CHECK(stats.cells == map.nodes);
        const Image plain = decodePng(out);
        for (uint32_t c = 0; c < map.clusters; ++c) {
            INFO("cluster " << c);
            CHECK(plain.count(view::clusterColour(c)) > 50);
        }
    }

    TEST_CASE("view: bad inputs give errors that say what is wrong and leave no output") {
        IndoorLevel level;
        Context context;
        const auto out = level.dir / "out.png";
        CHECK(failsWith(view::writeView(level.navmesh, level.dir / "out.jpg", {}, context),
                        ErrorKind::usage, "unknown view format '.jpg'"));
        view::ViewOptions layers;
        layers.layers = view::layerBit(view::Layer::navmesh);
        CHECK(failsWith(view::writeView(level.geo, out, layers, context), ErrorKind::usage,
                        "a geometry artifact has no navmesh layer (its layers: geometry)"));
        layers.layers = view::layerBit(view::Layer::clusters);
        CHECK(failsWith(view::writeView(level.navmesh, out, layers, context), ErrorKind::usage,
                        "has no clusters layer"));
        layers.layers = view::layerBit(view::Layer::paths);
        CHECK(failsWith(view::writeView(level.navmesh, out, layers, context), ErrorKind::usage,
                        "needs at least one path"));
        CHECK(failsWith(view::writeView(level.vox, out, withPath("2,0,2:8,3,15"), context),
                        ErrorKind::usage, "paths need a graph or runtime asset"));
        CHECK(failsWith(view::writeView(level.navmesh, out, withPath("200,0,2:8,3,15"), context),
                        ErrorKind::bad_input, "path 1: the start point (200, 0, 2) is not on"));
        view::ViewOptions two = withPath("2,0,2:8,3,15");
        view::PathRequest off;
        REQUIRE(view::parsePathSpec("2,0,2:8,40,15", off));
        two.paths.push_back(off);
        CHECK(failsWith(view::writeView(level.tile, out, two, context), ErrorKind::bad_input,
                        "path 2: the goal point (8, 40, 15)"));
        test::writeText(level.dir / "notes.txt", "not an artifact\n");
        CHECK(failsWith(view::writeView(level.dir / "notes.txt", out, {}, context),
                        ErrorKind::bad_input, "notes.txt"));
        CHECK(failsWith(view::writeView(level.dir / "missing.nav", out, {}, context), ErrorKind::io,
                        "missing.nav"));
        TinyMap map;
        CHECK(failsWith(view::writeView(map.clu, out, {}, context), ErrorKind::bad_input,
                        "a CLUS artifact cannot be viewed"));
        CHECK_FALSE(std::filesystem::exists(out));
    }
}
