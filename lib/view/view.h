// Debug views of navbake artifacts for level designers: what the bake produced, drawn top-down
// (SVG, PNG) or in 3D (glTF 2.0 binary, .glb), with optional paths and the nodes their A* search
// expanded ("visualize the fill", Millington, "AI for Games", 4.3).
//
// A view is built from one artifact (.geo, .vox, .graph or .nav; the kind comes from the
// container header, never from the file name) as a list of layers:
//
//   geometry  .geo: every triangle, grey by area (obstacle darker, water / mud tinted)
//   walkable  .vox: the top face of every walkable span; tile graphs: node cells; POV graphs:
//             the layer cells; volume graphs: the footprint of free space (lowest free voxel)
//   graph     tile, navmesh, POV graphs: nodes as dots, edges as thin lines (each undirected
//             edge once). Edges are skipped when there are more than ViewOptions::max_edges of
//             them, nodes when there are more than max_nodes (ViewStats says how many)
//   navmesh   navmesh graphs: the convex polygons, filled, with outlines
//   clusters  tile and navmesh assets packed with --clusters: the walkable cells or polygons
//             filled with a colour per cluster id (deterministic palette) instead of green
//   paths     each ViewOptions::paths entry: located and searched like `navbake query` (A*,
//             standard heuristic), the nodes the search expanded shaded (cells or polygons,
//             translucent orange, or a dark shade over cluster colours; corners as dots on POV
//             graphs), then the smoothed path as a polyline in pathColour(i) and start (green)
//             and goal (black) markers
//
// Top-down views: X to the right, Z downwards (Y is up). Surfaces are drawn from the lowest to
// the highest, so upper floors cover lower ones, and shaded darker the lower they lie; the A*
// fill and the graph are drawn over every floor. The GLB holds one mesh per layer part in world
// coordinates (metres, Y up): geometry (lit grey triangles), surfaces lifted 2 cm (unlit,
// vertex colours COLOR_0), the fill lifted 4 cm (translucent), graph edges as LINES and nodes as
// POINTS lifted 6 cm, each path as a LINE_STRIP and the markers as POINTS lifted 10 cm.
//
// Annotations (SVG and PNG, on unless ViewOptions::annotations is off) go in margins added
// around the drawing, which keeps its size (ViewOptions::size is still its longer side):
//   axes        above the drawing world X [Units: m] growing to the right, left of it world Z
//               growing downwards, titled "X (m)" and "Z (m)": a tick and a label at every
//               multiple of a nice step (niceStep: 1, 2 or 5 x 10^k, at most 10 ticks over the
//               fitted box, labels apart) placed exactly where the drawing puts that coordinate
//   scale bar   below the drawing: a bar of a nice length (scaleBarLength: about a fifth of the
//               drawing's width), labelled "N m"
//   caption     the title and the heights drawn: "floors Y 0.0–3.0 m" with a floor range,
//               otherwise "Y 0.0–3.2 m" (lowest and highest point of what was drawn), and
//               "(lower surfaces darker)" when surfaces lie at several heights
//   legend      one entry per colour the drawing uses (area types by name, walkable, navmesh,
//               clusters, links authored / generated, graph edges / nodes, A* expanded, each
//               path, start, goal): only the elements actually drawn (after --floor and --crop)
// SVG draws text as <text> (monospace) and the rest as <rect> (the drawing sits in a nested
// <svg> that clips it), so the shape element counts below still hold; PNG draws text with
// navbake's own 5 x 7 pixel font (font.h), 1 to 4 px per font pixel by the drawing's size.
//
// Outputs are written atomically (temporary file + rename): a failed run leaves no file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/query/query.h"

namespace nav::view {

enum class Layer : uint8_t { geometry, walkable, graph, navmesh, clusters, paths };
inline constexpr uint32_t kLayerCount = 6;
inline constexpr uint32_t layerBit(Layer layer) { return 1u << uint32_t(layer); }
const char* layerName(Layer layer);
// Parses a layer name ("geometry", "walkable", ...); false when there is no such layer.
bool parseLayer(std::string_view name, Layer& out);
// "geometry, walkable, graph, navmesh, clusters, paths" (for messages and --help).
std::string layerNames(uint32_t layers = (1u << kLayerCount) - 1);

enum class ViewFormat { svg, png, glb };
// The format named by the output's extension (case-insensitive .svg, .png, .glb); an error
// naming the file otherwise.
Result<ViewFormat> formatFromPath(const std::filesystem::path& out);

struct PathRequest {
    navrt::Vec3 from, to;  // [Units: m] world points, as for `navbake query --from --to`
};
// Parses "X,Y,Z:X,Y,Z" (the CLI's --path); false on anything else or non-finite numbers.
bool parsePathSpec(std::string_view text, PathRequest& out);

struct ViewOptions {
    uint32_t layers = 0;                 // layerBit()s; 0 = every layer the artifact has
    std::vector<PathRequest> paths;      // needs a graph or runtime asset
    uint32_t size = 1024;                // [Units: px] SVG / PNG drawing's longer side, 16..16384
    bool floor_filter = false;           // when set, only elements whose height lies in
    float floor_min = 0, floor_max = 0;  // [floor_min, floor_max] [Units: m] are drawn (not paths)
    query::Tolerance tolerance;          // how far off the graph a path point may be
    uint32_t max_edges = 100000;         // graph layer: skip edges above this many (undirected)
    uint32_t max_nodes = 100000;         // graph layer: skip node dots above this many
    std::string title;  // name of the drawing (GLB root node); empty = the file name
    // When set, only the box [crop_min, crop_max] on X and Z [Units: m] is drawn (shapes that
    // reach into it), and SVG / PNG views are fitted to it.
    bool crop = false;
    float crop_min[2] = {0, 0}, crop_max[2] = {0, 0};
    // SVG / PNG: axes, scale bar, caption and legend in margins around the drawing (see above),
    // which make the image larger than `size`.
    bool annotations = true;
};
// Reports every bad field at once (size, floor range, crop box, tolerances); usage errors.
Status checkOptions(const ViewOptions& options);

// What a view drew. Element counts are per layer; the shape counts are what the output holds
// (SVG: <polygon>, <line>, <circle>, <polyline> elements; PNG: the same shapes rasterised;
// annotations are not counted there) and the GLB counts its meshes (one primitive each) and
// vertices.
struct ViewStats {
    std::string kind;                // "geometry", "voxel grid", "tile graph", "navmesh graph", ...
    uint32_t layers = 0;             // layerBit()s drawn
    uint32_t width = 0, height = 0;  // [Units: px] SVG / PNG: the whole image
    size_t triangles = 0;            // geometry
    size_t cells = 0;                // walkable (and clusters on tile graphs)
    size_t polygons = 0;             // navmesh (and clusters on navmesh graphs)
    size_t clustered = 0;            // cells or polygons coloured by cluster
    size_t clusters = 0;             // cluster count of the asset (when clusters is drawn)
    size_t nodes = 0;                // graph: node dots
    size_t edges = 0;                // graph: edge lines
    size_t skipped_nodes = 0;        // graph: nodes not drawn (over max_nodes)
    size_t skipped_edges = 0;        // graph: undirected edges not drawn (over max_edges)
    size_t links = 0;                // graph: links drawn (arcs with arrowheads)
    size_t paths = 0;                // paths requested
    size_t paths_found = 0;          // ... with a path (the others show the fill only)
    size_t path_points = 0;          // points of the drawn polylines
    size_t expanded = 0;             // nodes the searches expanded, summed over paths
    size_t polygon_shapes = 0;       // filled polygons (triangles, cells, polygons, fill cells)
    size_t line_shapes = 0;          // single lines (edges)
    size_t disc_shapes = 0;          // dots (nodes, POV fill corners, start / goal markers)
    size_t polyline_shapes = 0;      // polylines (paths)
    size_t glb_meshes = 0;           // GLB only
    size_t glb_vertices = 0;         // GLB only
    size_t bytes = 0;                // size of the written file
    // Annotations (SVG / PNG with ViewOptions::annotations; the ticks, legend and caption are
    // empty otherwise, and the drawing is the whole image).
    uint32_t drawing_width = 0, drawing_height = 0;  // [Units: px] the drawing without margins
    uint32_t drawing_left = 0, drawing_top = 0;      // [Units: px] its top-left corner
    std::vector<double> x_ticks, z_ticks;            // [Units: m] labelled coordinates, ascending
    double x_step = 0, z_step = 0;                   // [Units: m] tick steps
    size_t ticks = 0;                                // x_ticks + z_ticks
    double scale_bar = 0;                            // [Units: m] length of the scale bar
    std::vector<std::string> legend;                 // entry labels, in legend order
    size_t legend_entries = 0;                       // legend.size()
    std::string caption;                             // title and heights ("floors Y 0.0–3.0 m")
    size_t texts = 0;                                // text labels written (SVG <text> elements)
};

// Axis ticks. niceStep: the smallest step 1, 2 or 5 x 10^k [Units: m] of at least `min_step`
// with at most `max_ticks` multiples in [lo, hi] (0..37 m: 5 m, 8 ticks). axisTicks: those
// multiples, ascending. tickLabel: `value` with as many decimals as `step` needs ("35", "2.5",
// "-0.2"; never "-0"). scaleBarLength: the 1, 2 or 5 x 10^k closest to width / 5 (by ratio).
double niceStep(double lo, double hi, uint32_t max_ticks = 10, double min_step = 0);
std::vector<double> axisTicks(double lo, double hi, double step);
std::string tickLabel(double value, double step);
double scaleBarLength(double width);

// Reads `artifact`, draws the layers asked for (all it has by default) and writes `out` in the
// format of its extension. Errors (bad_input unless said otherwise) name the file: unreadable or
// non-navbake artifact, a kind that cannot be viewed (.clu, .hier, .nh), an unknown output
// extension (usage), a layer the artifact does not have (usage, lists the ones it has), paths on
// an artifact without a graph (usage), a path point that is not on the graph (names the path
// index and the point). A path whose ends are not connected is drawn (fill, markers) with a
// warning, not an error. `stats` may be null.
Status writeView(const std::filesystem::path& artifact, const std::filesystem::path& out,
                 const ViewOptions& options, Context& context, ViewStats* stats = nullptr);

// Colours used by the views, for tests and documentation (sRGB, 0..255).
struct Colour {
    uint8_t r = 0, g = 0, b = 0, a = 255;
    bool operator==(const Colour&) const = default;
};
Colour pathColour(size_t path_index);    // polyline of path i (opaque)
Colour clusterColour(uint32_t cluster);  // deterministic, well spread hues

}  // namespace nav::view
