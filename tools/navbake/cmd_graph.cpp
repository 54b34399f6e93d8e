// `navbake graph KIND` and `navbake pack`: options onto graph::GraphStage and pack::PackStage,
// which do the work.
#include "lib/graph/graph.h"
#include "lib/pack/pack.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerGraph(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output, links, agent;
        std::vector<std::string> seeds, points, waypoints;
        graph::GraphStage::Params params;
    };
    auto options = std::make_shared<Options>();
    graph::GraphStage::Params& p = options->params;
    CLI::App* sub = app.add_subcommand(
        "graph",
        "Build a search graph from a voxel grid: 'tile' (2.5D walkable cells, 8-connected, "
        "multi-floor), 'volume' (free 3D space for flying agents, 26-connected), 'navmesh' "
        "(convex polygons with portals, detail heights; Recast-style options) or 'pov' "
        "(points of visibility: obstacle corners and taut sight lines, optimal any-angle paths) "
        "or 'dirichlet' (Dirichlet domains: a node per designer waypoint, regions of the surface "
        "nearest each, connected where they touch)");
    sub->add_option_function<std::string>(
           "KIND",
           [options](const std::string& text) {
               parseChoice<graph::GraphKind>(graph::kGraphKinds, text, options->params.kind);
           },
           "Graph kind: tile, navmesh, pov, volume or dirichlet")
        ->required()
        ->check(CLI::Validator(
            [](std::string& text) {
                graph::GraphKind kind{};
                return parseChoice<graph::GraphKind>(graph::kGraphKinds, text, kind)
                           ? std::string()
                           : notAChoice<graph::GraphKind>(graph::kGraphKinds, text);
            },
            "KIND"));
    sub->add_option("INPUT", options->input, "Voxel grid (.vox)")->required();
    sub->add_option("-o,--output", options->output, "Output graph (.graph)")->required();
    sub->add_option("--agent-radius", p.agent_radius,
                    "volume: keep the agent this far from solid voxels [m] (0 = a point agent)")
        ->capture_default_str();
    const char* links_group = "Links (drops, jumps, ladders, doors, teleports)";
    sub->add_option("--links", options->links,
                    "authored links from this JSON file, {\"link_types\": [...], \"links\": "
                    "[{\"from\": [x,y,z], \"to\": [x,y,z], \"type\": \"drop\", ...}]}, the same "
                    "entries as a level config's; scene-object links in the .vox are always added")
        ->group(links_group);
    sub->add_option("--agent", options->agent,
                    "with --links: keep the links for this agent profile (those listing it in "
                    "\"agents\", and those listing none); default: every link")
        ->needs("--links")
        ->group(links_group);
    graph::LinkGenParams& gen = p.generate;
    sub->add_option("--drop-height", gen.drop_height,
                    "generate drop links off ledges at most this high [m] (0 = none)")
        ->capture_default_str()
        ->group(links_group);
    sub->add_option("--jump-distance", gen.jump_distance,
                    "generate jump links across gaps at most this wide [m] (0 = none)")
        ->capture_default_str()
        ->group(links_group);
    sub->add_option("--jump-up-height", gen.jump_up_height,
                    "highest a jump rises [m]: drops this low are two-way, jumps may land this "
                    "much higher")
        ->capture_default_str()
        ->group(links_group);
    sub->add_option("--link-spacing", gen.spacing,
                    "distance between ledge samples [m] (0 = every cell, exact)")
        ->capture_default_str()
        ->group(links_group);
    sub->add_option("--link-max-width", gen.max_width,
                    "widest segment link merged from neighbouring ledge samples [m]")
        ->capture_default_str()
        ->group(links_group);
    sub->add_flag(
        "--poi-tables", p.poi_tables,
        "tile, navmesh, dirichlet: per node and kind of the --poi points (and the scene's), "
        "the cost to the nearest one and the next node towards it, packed into the asset");
    sub->add_option("--uphill", p.uphill,
                    "tile, navmesh: extra cost per metre climbed [m of walking per m], >= 0 "
                    "(makes the graph directed)")
        ->capture_default_str();
    sub->add_option("--downhill", p.downhill,
                    "tile, navmesh: extra cost per metre descended [m of walking per m], >= 0")
        ->capture_default_str();
    sub->add_option("--seed", options->seeds,
                    "a seed (spawn) point X,Y,Z [m] (repeatable; tile, navmesh, pov): the walkable "
                    "surface no seed reaches, walking or through links, is pruned");
    sub->add_option("--waypoint", options->waypoints,
                    "a Dirichlet-domain waypoint NAME@X,Y,Z[+W] [m] (repeatable; dirichlet; W = a "
                    "head start in metres, default 0); scene waypoints (nav_waypoint*) are added");
    sub->add_option("--poi", options->points,
                    "a point of interest NAME[:KIND]@X,Y,Z [m] (repeatable; tile, navmesh, pov): "
                    "warns when it is off the surface or unreachable (from a seed, else from the "
                    "largest walkable area)");
    navmesh::NavmeshParams& nm = p.navmesh;
    const char* group = "Navmesh (names and defaults as in Recast)";
    addChoice<navmesh::Partition>(sub, "--partition", nm.partition, navmesh::kPartitions,
                                  "navmesh: region partitioning, watershed (best regions) or "
                                  "monotone (fastest)")
        ->group(group);
    sub->add_option("--region-min-size", nm.region_min_size,
                    "navmesh: drop regions smaller than this squared [cells]")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--region-merge-size", nm.region_merge_size,
                    "navmesh: merge regions smaller than this squared into neighbours [cells]")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--edge-max-len", nm.edge_max_len, "navmesh: longest contour edge [m]")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--edge-max-error", nm.edge_max_error,
                    "navmesh: contour simplification tolerance [cells]")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--max-verts-per-poly", nm.max_verts_per_poly, "navmesh: polygon corners, 3..6")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--detail-sample-dist", nm.detail_sample_dist,
                    "navmesh: detail height sampling distance [cells] (0 = polygon corners only)")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--detail-max-error", nm.detail_max_error,
                    "navmesh: detail height tolerance [cell heights]")
        ->capture_default_str()
        ->group(group);
    sub->add_option("--tile-size", nm.tile_size,
                    "navmesh: tile size [cells]; 0 = one tile. Tiles bake in parallel")
        ->capture_default_str()
        ->group(group);
    sub->add_option(
           "--threads", p.threads,
           "navmesh, pov, link generation: worker threads (0 = all cores); the output does not "
           "depend on it")
        ->capture_default_str()
        ->group(group);
    sub->callback([&body, options, sub] {
        body = [options, sub](Context& context) {
            if (options->params.kind == graph::GraphKind::tile && sub->count("--agent-radius"))
                context.warn(
                    "--agent-radius applies to volume graphs; tile graphs use the "
                    "radius the walkable surface was eroded with");
            options->params.seeds.clear();
            for (const std::string& text : options->seeds) {
                std::array<float, 3> seed{};
                if (!parseXYZ(text, seed.data()))
                    return reportFailure(
                        context, makeError(ErrorKind::usage, "--seed '{}' is not X,Y,Z", text));
                options->params.seeds.push_back(seed);
            }
            options->params.points.clear();
            for (const std::string& text : options->points) {
                graph::PointOfInterest poi;
                const size_t at = text.rfind('@');
                const std::string head = text.substr(0, at == std::string::npos ? 0 : at);
                const size_t colon = head.find(':');
                poi.name = head.substr(0, colon);
                if (colon != std::string::npos) poi.kind = head.substr(colon + 1);
                if (at == std::string::npos || poi.name.empty() ||
                    !parseXYZ(text.substr(at + 1), poi.position.data()))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--poi '{}' is not NAME[:KIND]@X,Y,Z", text));
                poi.where = "--poi " + text;
                options->params.points.push_back(poi);
            }
            options->params.waypoints.clear();
            for (const std::string& text : options->waypoints) {
                graph::Waypoint w;
                const size_t at = text.rfind('@');
                std::string where = at == std::string::npos ? "" : text.substr(at + 1);
                const size_t plus = where.find('+');
                bool ok = at != std::string::npos && at > 0;
                if (ok && plus != std::string::npos) {
                    char extra;
                    ok = std::sscanf(where.c_str() + plus + 1, "%f%c", &w.weight, &extra) == 1;
                    where.resize(plus);
                }
                w.name = text.substr(0, at == std::string::npos ? 0 : at);
                if (!ok || !parseXYZ(where, w.position.data()))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage,
                                  "--waypoint '{}' is not NAME@X,Y,Z or NAME@X,Y,Z+W", text));
                w.where = "--waypoint " + text;
                options->params.waypoints.push_back(w);
            }
            if (!options->links.empty()) {
                auto file = geometry::loadLinksFile(options->links);
                if (!file) return reportFailure(context, file.error());
                const std::vector<geometry::LinkSpec>& links = file->links;
                options->params.links =
                    options->agent.empty() ? links : graph::linksForAgent(links, options->agent);
                if (const size_t skipped = links.size() - options->params.links.size(); skipped > 0)
                    context.info("{} of {} links are for other agents than '{}'", skipped,
                                 links.size(), options->agent);
            }
            return runStage<graph::GraphStage>(context, {options->input}, options->params,
                                               options->output);
        };
    });
}

void registerPack(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output, clusters, hierarchy, next_hop;
        pack::PackStage::Params params;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "pack", "Pack a graph into the runtime asset (.nav) that navrt loads and queries");
    sub->add_option("INPUT", options->input, "Graph (.graph)")->required();
    sub->add_option("-o,--output", options->output, "Runtime asset (.nav)")->required();
    sub->add_option("--clusters", options->clusters,
                    "Add the node clusters and cluster heuristic table of this .clu (made by "
                    "'navbake cluster' from the same graph)");
    sub->add_option("--hierarchy", options->hierarchy,
                    "Add the hierarchy of this .hier (made by 'navbake hierarchy' from the same "
                    "graph and --clusters file)")
        ->needs("--clusters");
    sub->add_option("--nexthop", options->next_hop,
                    "Add the next-hop table of this .nh or hierarchical .nhh (made by 'navbake "
                    "nexthop' from the same graph; shards must be merged first)");
    sub->add_flag("--jump-points", options->params.jump_points,
                  "Tile graphs: add the JPS+ jump point table (16 bytes a node before compression) "
                  "for 'navbake query --method jps' and navrt's findPathJumping");
    sub->add_flag("--goal-bounds", options->params.goal_bounds,
                  "With --jump-points: add goal bounds (64 bytes a node before compression; one "
                  "search per node while packing) that let JPS+ skip directions that cannot "
                  "start a shortest path to the goal")
        ->needs("--jump-points");
    sub->callback([&body, options] {
        body = [options](Context& context) {
            return runStage<pack::PackStage>(
                context, {options->input, options->clusters, options->hierarchy, options->next_hop},
                options->params, options->output);
        };
    });
}

}  // namespace nav::navbake
