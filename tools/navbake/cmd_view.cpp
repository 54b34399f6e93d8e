#include <cstdio>

#include "lib/view/view.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerView(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output;
        std::vector<std::string> layers;
        std::vector<std::string> paths;
        std::string floor, crop;
        view::ViewOptions view;
        double horizontal = 0.0, vertical = 1.0;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "view",
        "Draw a debug view of an artifact for level designers: top-down SVG or PNG (X right, Z "
        "down), or a 3D glTF binary (.glb); optionally with paths and the nodes their A* search "
        "expanded (the fill)");
    sub->add_option("ARTIFACT", options->input, "Artifact to draw (.geo, .vox, .graph or .nav)")
        ->required();
    sub->add_option("-o,--output", options->output,
                    "Output view; the extension picks the format: .svg, .png or .glb")
        ->required();
    sub->add_option("--layer", options->layers,
                    "Layers to draw (repeat or comma-separate; default: every layer the artifact "
                    "has): geometry (.geo triangles), walkable (.vox walkable spans, graph cells), "
                    "graph (nodes and edges; edges are skipped above --max-edges, nodes above "
                    "--max-nodes), navmesh (polygons), clusters (cells / polygons per cluster, "
                    "assets packed with --clusters), paths (needs --path)")
        ->delimiter(',');
    sub->add_option("--path", options->paths,
                    "A path to draw, X,Y,Z:X,Y,Z [m] (repeatable; graph and .nav only): the "
                    "expanded nodes shaded, the smoothed path, start and goal markers");
    sub->add_option("--size", options->view.size,
                    "Longer side of an SVG / PNG drawing [px] (annotations add margins around it)")
        ->check(CLI::Range(16, 16384))
        ->capture_default_str();
    sub->add_option("--crop", options->crop,
                    "Only draw the box MINX,MINZ:MAXX,MAXZ [m] (top-down views fit it)");
    sub->add_option("--floor", options->floor,
                    "Only draw what lies at heights YMIN:YMAX [m] (one floor of a multi-floor "
                    "level); paths are always drawn");
    sub->add_flag("!--no-annotations", options->view.annotations,
                  "SVG / PNG: draw no axes (X and Z in metres), scale bar, caption (heights drawn) "
                  "or legend (the colours used) around the drawing");
    sub->add_option("--horizontal-tolerance", options->horizontal,
                    "How far beside the navigation data a path point may be [m]")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("--vertical-tolerance", options->vertical,
                    "How far above or below a floor a path point may be [m]")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("--max-edges", options->view.max_edges,
                    "graph layer: draw no edges when the graph has more undirected edges")
        ->capture_default_str();
    sub->add_option("--max-nodes", options->view.max_nodes,
                    "graph layer: draw no node dots when the graph has more nodes")
        ->capture_default_str();
    sub->callback([&body, options] {
        body = [options](Context& context) {
            view::ViewOptions v = options->view;
            for (const std::string& name : options->layers) {
                view::Layer layer;
                if (!view::parseLayer(name, layer))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--layer '{}' is not a layer (layers: {})",
                                  name, view::layerNames()));
                v.layers |= view::layerBit(layer);
            }
            for (const std::string& text : options->paths) {
                view::PathRequest request;
                if (!view::parsePathSpec(text, request))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--path '{}' is not X,Y,Z:X,Y,Z", text));
                v.paths.push_back(request);
            }
            if (!options->crop.empty()) {
                char extra;
                if (std::sscanf(options->crop.c_str(), "%f,%f:%f,%f%c", &v.crop_min[0],
                                &v.crop_min[1], &v.crop_max[0], &v.crop_max[1], &extra) != 4)
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--crop '{}' is not MINX,MINZ:MAXX,MAXZ",
                                  options->crop));
                v.crop = true;
            }
            if (!options->floor.empty()) {
                float lo, hi;
                char extra;
                if (std::sscanf(options->floor.c_str(), "%f:%f%c", &lo, &hi, &extra) != 2)
                    return reportFailure(
                        context, makeError(ErrorKind::usage, "--floor '{}' is not YMIN:YMAX",
                                           options->floor));
                v.floor_filter = true;
                v.floor_min = lo;
                v.floor_max = hi;
            }
            v.tolerance = {float(options->horizontal), float(options->vertical)};
            view::ViewStats stats;
            if (Status s = view::writeView(options->input, options->output, v, context, &stats); !s)
                return reportFailure(context, s.error());
            std::string drawn;
            auto part = [&](size_t count, const char* what) {
                if (count == 0) return;
                drawn += fmt::format("{}{} {}", drawn.empty() ? "" : ", ", count, what);
            };
            part(stats.triangles, "triangles");
            part(stats.cells, "cells");
            part(stats.polygons, "polygons");
            part(stats.clusters, "clusters");
            part(stats.nodes, "nodes");
            part(stats.edges, "edges");
            part(stats.links, "links");
            if (stats.paths > 0)
                drawn += fmt::format("{}{} paths ({} found, {} nodes expanded)",
                                     drawn.empty() ? "" : ", ", stats.paths, stats.paths_found,
                                     stats.expanded);
            if (stats.skipped_edges > 0)
                context.warn("graph layer: {} edges not drawn (more than --max-edges {})",
                             stats.skipped_edges, v.max_edges);
            if (stats.skipped_nodes > 0)
                context.warn("graph layer: {} nodes not drawn (more than --max-nodes {})",
                             stats.skipped_nodes, v.max_nodes);
            std::string size =
                stats.width > 0
                    ? fmt::format("{} x {} px", stats.width, stats.height)
                    : fmt::format("{} meshes, {} vertices", stats.glb_meshes, stats.glb_vertices);
            if (stats.width > 0 && v.annotations)
                size += fmt::format(" (drawing {} x {} px; {} ticks, {} legend entries)",
                                    stats.drawing_width, stats.drawing_height, stats.ticks,
                                    stats.legend_entries);
            context.info("view of {} [{}]: {}; {}, {} bytes -> {}", options->input,
                         view::layerNames(stats.layers), drawn.empty() ? "nothing" : drawn, size,
                         stats.bytes, options->output);
            return kExitOk;
        };
    });
}

}  // namespace nav::navbake
