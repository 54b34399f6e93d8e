// `navbake voxelize`: options onto voxel::VoxelizeStage, which does the work.
#include <cstdio>

#include "lib/voxel/voxelize.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerVoxelize(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, output;
        std::vector<std::string> bounds, area_costs;
        std::string volumes;
        voxel::VoxelizeParams params;
    };
    auto options = std::make_shared<Options>();
    voxel::VoxelizeParams& p = options->params;
    CLI::App* sub = app.add_subcommand(
        "voxelize",
        "Voxelize imported geometry (.geo) into a span heightfield (.vox) and mark the surfaces "
        "the agent can walk on (slope, climb, clearance, erosion by the agent radius)");
    sub->add_option("INPUT", options->input, "Geometry artifact from 'navbake import' (.geo)")
        ->required();
    sub->add_option("-o,--output", options->output, "Output voxel grid (.vox)")->required();
    sub->add_option("--cell-size", p.cell_size, "Column width on X and Z [m], > 0")
        ->capture_default_str();
    sub->add_option("--cell-height", p.cell_height, "Cell height on Y [m], > 0")
        ->capture_default_str();
    sub->add_option("--agent-height", p.agent.height,
                    "Clearance the agent needs [m], at least one cell height")
        ->capture_default_str();
    sub->add_option("--agent-radius", p.agent.radius, "Distance kept from walls and ledges [m]")
        ->capture_default_str();
    sub->add_option("--agent-climb", p.agent.climb, "Largest step up or down [m]")
        ->capture_default_str();
    sub->add_option("--max-slope", p.agent.max_slope_deg,
                    "Steepest walkable slope [degrees], 0..90")
        ->capture_default_str();
    sub->add_option("--threads", p.threads, "Worker threads (0 = all cores)")
        ->capture_default_str();
    sub->add_option("--column-block", p.column_block,
                    "A .geo in the strips layout wider than this many columns (and a half) is "
                    "voxelized a block of this many columns at a time: memory bounded by the "
                    "block, not the level's width, the same grid; smaller holds less and takes "
                    "longer (each block's triangles are read and its halo rasterized again), >= 16")
        ->capture_default_str();
    sub->add_option("--area-cost", options->area_costs,
                    "This agent's cost of an area, NAME=COST (repeatable; replaces the area "
                    "table's)");
    p.area_mask_where = "--area-mask";
    p.area_costs_where = "--area-cost";
    sub->add_option("--area-mask", p.area_mask,
                    "An area this agent may walk on (repeatable; default every walkable area)");
    sub->add_option("--volumes", options->volumes,
                    "Modifier volumes from this JSON file, {\"volumes\": [{\"min\": [x, y, z], "
                    "\"max\": [...] or \"points\": [[x, y, z], ...], \"area\": NAME, "
                    "\"cost_factor\": F, \"forbid\": B, \"agents\": [...], \"walkable_for\": "
                    "[...]}]}, as a level config's; applied after the level's scene volumes");
    sub->add_option("--agent", p.agent_name,
                    "This agent profile's name: the volumes (scene or --volumes) that name agents "
                    "apply by it (default: none of those naming agents; walkable_for ones forbid)");
    sub->add_option("--bounds", options->bounds,
                    "Bake bounds MINX,MINY,MINZ:MAXX,MAXY,MAXZ [m] (repeatable): only the surface "
                    "inside a box is walkable, geometry far outside is not voxelized");
    // Ranges are checked by the stage, which names every bad value at once (exit code 2).
    sub->callback([&body, options] {
        body = [options](Context& context) {
            options->params.area_costs.clear();
            for (const std::string& text : options->area_costs) {
                const size_t eq = text.find('=');
                float cost = 0;
                char extra;
                if (eq == std::string::npos || eq == 0 ||
                    std::sscanf(text.c_str() + eq + 1, "%f%c", &cost, &extra) != 1)
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--area-cost '{}' is not NAME=COST", text));
                options->params.area_costs.push_back({text.substr(0, eq), cost});
            }
            options->params.volumes.clear();
            if (!options->volumes.empty()) {
                auto volumes = voxel::loadVolumesFile(options->volumes);
                if (!volumes) return reportFailure(context, volumes.error());
                options->params.volumes = std::move(volumes).value();
            }
            options->params.bounds.clear();
            for (const std::string& text : options->bounds) {
                geometry::Bounds box;
                if (!parseBox(text, box))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage,
                                  "--bounds '{}' is not MINX,MINY,MINZ:MAXX,MAXY,MAXZ", text));
                options->params.bounds.push_back(box);
            }
            if (std::filesystem::path(options->output).extension() != ".vox")
                context.warn("{}: a voxel grid is a .vox artifact; '.vox' is the usual extension",
                             options->output);
            return runStage<voxel::VoxelizeStage>(context, {options->input, {}}, options->params,
                                                  options->output);
        };
    });
}

}  // namespace nav::navbake
