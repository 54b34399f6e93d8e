// Debug views (lib/view): PNG decodes through libpng at the expected size with the path drawn,
// SVG is balanced XML whose element counts match ViewStats, GLB loads through Assimp with the
// meshes and vertices ViewStats reports, and bad inputs fail with errors that say what is wrong.
// Annotations: nice steps and tick labels in isolation, the bitmap font, tick labels where the
// drawing puts their coordinates (SVG), margins with text around an unchanged drawing (PNG), a
// legend of exactly what was drawn, --crop and --floor in the ticks and the caption.
#include <doctest/doctest.h>

#include <assimp/scene.h>
#include <png.h>
#include <assimp/Importer.hpp>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>

#include "lib/cluster/cluster.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/view/font.h"
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

// The <text> elements of an SVG: position, anchor ("start" when none) and text (unescaped '&').
struct SvgText {
    double x = 0, y = 0;
    std::string anchor, text;
};
std::vector<SvgText> svgTexts(const std::string& svg) {
    std::vector<SvgText> texts;
    for (size_t at = svg.find("<text "); at != std::string::npos; at = svg.find("<text ", at + 1)) {
        const size_t close = svg.find('>', at), end = svg.find("</text>", at);
        REQUIRE(close != std::string::npos);
        REQUIRE(end != std::string::npos);
        const std::string tag = svg.substr(at, close - at);
        SvgText t;
        REQUIRE(std::sscanf(tag.c_str(), "<text x=\"%lf\" y=\"%lf\"", &t.x, &t.y) == 2);
        const size_t anchor = tag.find("text-anchor=\"");
        t.anchor = anchor == std::string::npos
                       ? "start"
                       : tag.substr(anchor + 13, tag.find('"', anchor + 13) - anchor - 13);
        t.text = svg.substr(close + 1, end - close - 1);
        texts.push_back(t);
    }
    return texts;
}
const SvgText* findText(const std::vector<SvgText>& texts, const std::string& text,
                        const std::string& anchor) {
    for (const SvgText& t : texts)
        if (t.text == text && t.anchor == anchor) return &t;
    return nullptr;
}

std::string readText(const std::filesystem::path& path) {
    const auto bytes = test::readBytes(path);
    return std::string(bytes.begin(), bytes.end());
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
        // --size is the drawing's longer side; the annotations' margins come on top.
        CHECK(std::max(stats.drawing_width, stats.drawing_height) == 600);
        CHECK(image.width > stats.drawing_width);
        CHECK(image.height > stats.drawing_height);
        // The level is wider (X) than deep (Z).
        CHECK(stats.drawing_width > stats.drawing_height);
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
        CHECK(stats.drawing_width == 600);
        CHECK(std::abs(int(stats.drawing_height) - int((600 - 2 * 8) / 2 + 2 * 8)) <= 1);
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
        CHECK(stats.drawing_width == 200);
        CHECK(image.width == stats.width);
        CHECK(image.height == stats.height);
        CHECK(image.count(view::pathColour(0)) > 20);
        // Single floor: no height shading, so every cluster's own colour shows (where neither the
        // fill nor the graph covers it: draw the clusters alone).
        view::ViewOptions only;
        only.layers = view::layerBit(view::Layer::clusters);
        only.size = 200;
        REQUIRE(view::writeView(map.nav, out, only, context, &stats).ok());
        CHECK(stats.cells == map.nodes);
        CHECK(stats.legend == std::vector<std::string>{fmt::format("clusters ({})", map.clusters)});
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

    TEST_CASE("view: nice tick steps, ticks, tick labels and the scale bar length") {
        CHECK(view::niceStep(0, 37) == 5);  // 1 and 2 m give 38 and 19 ticks
        CHECK(view::axisTicks(0, 37, 5) == std::vector<double>{0, 5, 10, 15, 20, 25, 30, 35});
        CHECK(view::niceStep(0, 30) == 5);
        CHECK(view::niceStep(0, 9) == 1);   // 10 ticks
        CHECK(view::niceStep(0, 10) == 2);  // 1 m would give 11
        CHECK(view::niceStep(0, 1) == doctest::Approx(0.2));
        CHECK(view::niceStep(0, 1000) == 200);
        CHECK(view::niceStep(-3.2, 4.5) == 1);
        CHECK(view::axisTicks(-3.2, 4.5, 1) == std::vector<double>{-3, -2, -1, 0, 1, 2, 3, 4});
        CHECK(view::niceStep(0, 37, 10, 6) == 10);  // labels need 6 m: the next nice step up
        CHECK(view::niceStep(0, 37, 10, 5) == 5);
        CHECK(view::niceStep(12, 12) == doctest::Approx(0.2));  // as for 12..13 m
        for (double span : {0.013, 0.7, 3.0, 37.0, 512.0, 9000.0}) {
            INFO("span " << span);
            const double step = view::niceStep(-span / 3, span, 10);
            const size_t count = view::axisTicks(-span / 3, span, step).size();
            CHECK(count >= 4);
            CHECK(count <= 10);
            const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
            CHECK((std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                   std::abs(mantissa - 5) < 1e-9));
        }
        CHECK(view::tickLabel(35, 5) == "35");
        CHECK(view::tickLabel(2.5, 0.5) == "2.5");
        CHECK(view::tickLabel(0.30000000000000004, 0.1) == "0.3");
        CHECK(view::tickLabel(0.05, 0.05) == "0.05");
        CHECK(view::tickLabel(-0.2, 0.2) == "-0.2");
        CHECK(view::tickLabel(-1e-12, 0.2) == "0.0");
        CHECK(view::tickLabel(-0.0, 5) == "0");
        CHECK(view::tickLabel(-1200, 200) == "-1200");
        CHECK(view::scaleBarLength(37) == 10);  // 7.4 m: 10 is closer than 5 by ratio
        CHECK(view::scaleBarLength(30) == 5);
        CHECK(view::scaleBarLength(100) == 20);
        CHECK(view::scaleBarLength(6) == 1);
        CHECK(view::scaleBarLength(2.4) == doctest::Approx(0.5));
    }

    TEST_CASE("view: the bitmap font has a distinct glyph per printable character") {
        namespace font = view::font;
        std::vector<font::Rows> seen;
        for (char32_t c = 0x20; c < 0x7f; ++c) {
            INFO("character " << char(c));
            REQUIRE(font::hasGlyph(c));
            const font::Rows& rows = font::glyph(c);
            int ink = 0;
            for (uint8_t row : rows) {
                CHECK(row < (1u << font::kGlyphWidth));  // 5 columns
                ink += std::popcount(row);
            }
            CHECK((c == U' ') == (ink == 0));
            for (const font::Rows& other : seen) CHECK(other != rows);
            seen.push_back(rows);
        }
        // Only g, j, p, q and y reach below the baseline (the eighth row).
        for (char32_t c = 0x20; c < 0x7f; ++c)
            CHECK((font::glyph(c)[font::kGlyphHeight] != 0) ==
                  (c == U'g' || c == U'j' || c == U'p' || c == U'q' || c == U'y'));
        CHECK(font::hasGlyph(U'\u2013'));
        CHECK(font::glyph(U'\u2013') != font::glyph(U'-'));
        CHECK_FALSE(font::hasGlyph(U'\u00e9'));
        CHECK(font::glyph(U'\u00e9') == font::glyph(U'?'));
        CHECK(font::decodeUtf8("Y 0.0\u20133.0 m") == U"Y 0.0\u20133.0 m");
        CHECK(font::decodeUtf8("a\xff"
                               "b") == U"a\ufffdb");
        CHECK(font::decodeUtf8("\xe2\x80") == U"\ufffd\ufffd");  // cut short
        CHECK(font::textWidth("", 1) == 0);
        CHECK(font::textWidth("X (m)", 1) == 29);  // 5 advances of 6 px less the last gap
        CHECK(font::textWidth("X (m)", 2) == 58);
        CHECK(font::textWidth("\u2013", 3) == 15);  // one character, not three bytes
    }

    TEST_CASE("view: SVG tick labels sit where the drawing puts their coordinates") {
        TinyMap map;  // 6 x 5 cells of 1 m from the origin
        Context context;
        view::ViewOptions options;
        options.layers = view::layerBit(view::Layer::walkable);
        options.size = 200;
        view::ViewStats stats;
        const auto out = map.dir / "tiny.svg";
        REQUIRE(view::writeView(map.nav, out, options, context, &stats).ok());
        const std::string svg = readText(out);
        requireBalancedXml(svg);
        CHECK(stats.x_ticks == std::vector<double>{0, 1, 2, 3, 4, 5, 6});
        CHECK(stats.z_ticks == std::vector<double>{0, 1, 2, 3, 4, 5});
        CHECK(stats.ticks == 13);
        // The cells' corners give the drawing's own mapping (drawing pixels): X 0 and 6 m at the
        // smallest and largest corner x, Z 0 and 5 m at the smallest and largest corner y.
        double min_x = 1e9, max_x = -1e9, min_y = 1e9, max_y = -1e9;
        size_t cells = 0;
        for (size_t at = svg.find("<polygon points=\""); at != std::string::npos;
             at = svg.find("<polygon points=\"", at + 1), ++cells) {
            const size_t begin = at + 17, end = svg.find('"', begin);
            std::string list = svg.substr(begin, end - begin);
            for (char& c : list)
                if (c == ',') c = ' ';
            std::istringstream points(list);
            for (double x, y; points >> x >> y;) {
                min_x = std::min(min_x, x), max_x = std::max(max_x, x);
                min_y = std::min(min_y, y), max_y = std::max(max_y, y);
            }
        }
        CHECK(cells == stats.cells);
        const double left = stats.drawing_left, top = stats.drawing_top;
        // The drawing sits at (left, top) in the image, in a nested <svg> of its size.
        CHECK(
            svg.find(fmt::format("<svg id=\"drawing\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"",
                                 stats.drawing_left, stats.drawing_top, stats.drawing_width,
                                 stats.drawing_height)) != std::string::npos);
        const auto texts = svgTexts(svg);
        CHECK(texts.size() == stats.texts);
        for (double v : stats.x_ticks) {
            INFO("x = " << v);
            const SvgText* label = findText(texts, view::tickLabel(v, 1), "middle");
            REQUIRE(label != nullptr);
            CHECK(label->x ==
                  doctest::Approx(left + min_x + (max_x - min_x) * v / 6).epsilon(0.0001));
            CHECK(label->y < top);  // above the drawing
        }
        const double glyph_h = view::font::kGlyphHeight;  // 1 px per font pixel at 200 px
        for (double v : stats.z_ticks) {
            INFO("z = " << v);
            const SvgText* label = findText(texts, view::tickLabel(v, 1), "end");
            REQUIRE(label != nullptr);
            // Baseline half a text height under the tick: the text is centred on it.
            CHECK(label->y - glyph_h / 2 ==
                  doctest::Approx(top + min_y + (max_y - min_y) * v / 5).epsilon(0.0001));
            CHECK(label->x < left);  // left of the drawing
        }
        CHECK(findText(texts, "X (m)", "middle") != nullptr);
        CHECK(findText(texts, "Z (m)", "end") != nullptr);
        CHECK(stats.scale_bar == 1);  // 6 m wide: about 1.2 m
        CHECK(findText(texts, "1 m", "start") != nullptr);
        // The legend: the walkable layer's cells only (no cluster colours without that layer).
        CHECK(stats.legend == std::vector<std::string>{"walkable"});
        CHECK(findText(texts, stats.legend[0], "start") != nullptr);
        CHECK(stats.caption == "tiny.nav, Y 0.0\u20130.0 m");
        CHECK(findText(texts, stats.caption, "start") != nullptr);
        // Annotations add <rect> and <text> only: the shape counts still match.
        CHECK(countOf(svg, "<polygon ") == stats.polygon_shapes);
        CHECK(countOf(svg, "<line ") == stats.line_shapes);
        CHECK(countOf(svg, "<circle ") == stats.disc_shapes);

        // Without annotations: no text, the drawing is the image.
        options.annotations = false;
        REQUIRE(view::writeView(map.nav, out, options, context, &stats).ok());
        const std::string bare = readText(out);
        CHECK(countOf(bare, "<text") == 0);
        CHECK(bare.find("id=\"drawing\"") == std::string::npos);
        CHECK(stats.width == stats.drawing_width);
        CHECK(stats.height == stats.drawing_height);
        CHECK(stats.ticks == 0);
        CHECK(stats.legend_entries == 0);
        CHECK(stats.texts == 0);
    }

    TEST_CASE("view: PNG annotations: text in the margins around an unchanged drawing") {
        IndoorLevel level;
        Context context;
        view::ViewOptions options = withPath("2,0,2:8,3,15", 600);
        view::ViewStats with, without;
        const auto annotated = level.dir / "annotated.png", plain = level.dir / "plain.png";
        REQUIRE(view::writeView(level.navmesh, annotated, options, context, &with).ok());
        options.annotations = false;
        REQUIRE(view::writeView(level.navmesh, plain, options, context, &without).ok());
        const Image a = decodePng(annotated), b = decodePng(plain);
        // The drawing keeps its size; the image grows by the margins.
        CHECK(b.width == with.drawing_width);
        CHECK(b.height == with.drawing_height);
        CHECK(without.width == b.width);
        CHECK(without.drawing_width == b.width);
        CHECK(a.width == with.width);
        CHECK(a.height == with.height);
        CHECK(with.drawing_left > 10);
        CHECK(with.drawing_top > 10);
        CHECK(a.width >= with.drawing_left + b.width);
        CHECK(a.height > with.drawing_top + b.height + 20);  // scale bar, caption, legend
        // The drawing inside is the same, pixel for pixel.
        size_t differing = 0;
        for (uint32_t y = 0; y < b.height; ++y)
            differing +=
                std::memcmp(
                    &a.rgb[(size_t(y + with.drawing_top) * a.width + with.drawing_left) * 3],
                    &b.rgb[size_t(y) * b.width * 3], size_t(b.width) * 3) != 0;
        CHECK(differing == 0);
        // Text (the bitmap font, in the exact text colour) in each margin; none without them.
        const view::Colour text{32, 32, 32, 255};
        auto inkIn = [&](const Image& image, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
            size_t n = 0;
            for (uint32_t y = y0; y < y1; ++y)
                for (uint32_t x = x0; x < x1; ++x) {
                    const uint8_t* p = &image.rgb[(size_t(y) * image.width + x) * 3];
                    n += p[0] == text.r && p[1] == text.g && p[2] == text.b;
                }
            return n;
        };
        const uint32_t left = with.drawing_left, top = with.drawing_top;
        const uint32_t bottom = top + with.drawing_height;
        CHECK(inkIn(a, left, 0, a.width, top) > 100);             // X labels and title
        CHECK(inkIn(a, 0, top, left, bottom) > 60);               // Z labels
        CHECK(inkIn(a, 0, bottom + 1, a.width, a.height) > 300);  // scale bar, caption, legend
        CHECK(b.count(text) == 0);
        // Every X tick is a mark of text colour right above the frame, in the pixel column of
        // its world coordinate: a column of the mark is inked at each tick, with nothing in
        // between far from any tick.
        const uint32_t mark_row = top - 3;
        size_t marks = 0;
        for (uint32_t x = left; x < left + with.drawing_width; ++x)
            marks += inkIn(a, x, mark_row, x + 1, mark_row + 1) != 0 &&
                     (x == left || inkIn(a, x - 1, mark_row, x, mark_row + 1) == 0);
        CHECK(marks == with.x_ticks.size());
        CHECK(with.ticks == with.x_ticks.size() + with.z_ticks.size());
        CHECK(with.x_ticks.size() >= 5);
        CHECK(with.x_ticks.size() <= 10);
        CHECK(without.ticks == 0);
        CHECK(without.legend.empty());
    }

    TEST_CASE(
        "view: the legend lists exactly what was drawn; crop and floor in ticks and caption") {
        IndoorLevel level;
        Context context;
        view::ViewStats stats;
        const auto out = level.dir / "legend.svg";
        REQUIRE(view::writeView(level.navmesh, out, withPath("2,0,2:8,3,15", 600), context, &stats)
                    .ok());
        CHECK(stats.legend == std::vector<std::string>{"navmesh", "A* expanded", "graph edges",
                                                       "graph nodes", "path", "start", "goal"});
        CHECK(stats.legend_entries == 7);
        CHECK(stats.caption == "navmesh.nav, Y 0.0\u20133.0 m (lower surfaces darker)");
        const auto texts = svgTexts(readText(out));
        for (const std::string& label : stats.legend) CHECK(findText(texts, label, "start"));
        view::ViewOptions two = withPath("2,0,2:8,3,15", 600);
        view::PathRequest second;
        REQUIRE(view::parsePathSpec("8,3,15:2,0,2", second));
        two.paths.push_back(second);
        two.layers = view::layerBit(view::Layer::navmesh) | view::layerBit(view::Layer::paths);
        REQUIRE(view::writeView(level.navmesh, out, two, context, &stats).ok());
        CHECK(stats.legend == std::vector<std::string>{"navmesh", "A* expanded", "path 1", "path 2",
                                                       "start", "goal"});
        view::ViewOptions only;
        only.layers = view::layerBit(view::Layer::navmesh);
        only.size = 600;
        REQUIRE(view::writeView(level.navmesh, out, only, context, &stats).ok());
        CHECK(stats.legend == std::vector<std::string>{"navmesh"});
        // Geometry: the area types present, by name; a crop or a floor keeps those drawn.
        REQUIRE(view::writeView(level.geo, out, only = {}, context, &stats).ok());
        CHECK(stats.legend == std::vector<std::string>{"obstacle", "ground", "water"});
        CHECK(stats.x_ticks == std::vector<double>{0, 5, 10, 15, 20, 25, 30});
        view::ViewOptions cropped;
        cropped.crop = true;
        cropped.crop_min[0] = 0, cropped.crop_min[1] = 0;
        cropped.crop_max[0] = 10, cropped.crop_max[1] = 5;
        REQUIRE(view::writeView(level.geo, out, cropped, context, &stats).ok());
        CHECK(stats.legend == std::vector<std::string>{"ground"});
        CHECK(stats.x_ticks == std::vector<double>{0, 2, 4, 6, 8, 10});
        CHECK(stats.z_ticks == std::vector<double>{0, 1, 2, 3, 4, 5});
        CHECK(stats.scale_bar == 2);
        const auto cropped_texts = svgTexts(readText(out));
        CHECK(findText(cropped_texts, "8", "middle") != nullptr);
        CHECK(findText(cropped_texts, "25", "middle") == nullptr);
        CHECK(findText(cropped_texts, "2 m", "start") != nullptr);
        view::ViewOptions upper;
        upper.floor_filter = true;
        upper.floor_min = 2;
        upper.floor_max = 4;
        REQUIRE(view::writeView(level.geo, out, upper, context, &stats).ok());
        CHECK(stats.caption.find("floors Y 2.0\u20134.0 m") != std::string::npos);
        CHECK(findText(svgTexts(readText(out)), stats.caption, "start") != nullptr);
        // Walkable surfaces by area: the indoor level's water is its own entry (and colour) on
        // the voxel grid and the tile graph, so volumes, costs and masks show.
        view::ViewOptions walkable;
        walkable.layers = view::layerBit(view::Layer::walkable);
        for (const auto& artifact : {level.vox, level.tile}) {
            REQUIRE(
                view::writeView(artifact, level.dir / "areas.svg", walkable, context, &stats).ok());
            CHECK(stats.legend == std::vector<std::string>{"walkable", "walkable: water"});
            const std::string svg = readText(level.dir / "areas.svg");
            CHECK(svg.find("#8cb9e6") != std::string::npos);  // the water blue
        }
        // The GLB has no annotations.
        REQUIRE(view::writeView(level.geo, level.dir / "geo.glb", {}, context, &stats).ok());
        CHECK(stats.legend.empty());
        CHECK(stats.ticks == 0);
        CHECK(stats.width == 0);
    }
}
