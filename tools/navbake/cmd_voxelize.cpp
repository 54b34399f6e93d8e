// navbake voxelize: .geo -> .vox (stage 2). Parses options, calls vox::voxelize, saves, reports.
#include <fmt/format.h>

#include <chrono>

#include "../../lib/geometry/geometry.h"
#include "../../lib/voxel/voxel_grid.h"
#include "../../lib/voxel/voxelize.h"
#include "cli.h"

namespace nav::cli {
namespace {

struct VoxelizeOptions {
    std::string input;
    std::string output;
    vox::VoxelizeParams params;
};

int runVoxelize(const VoxelizeOptions& options, Context& context) {
    if (Status s = vox::checkParams(options.params); !s) return reportFailure(context, s.error());
    if (std::filesystem::path(options.output).extension() != ".vox")
        context.warn("{}: a voxel grid is a .vox artifact; '.vox' is the usual extension",
                     options.output);
    auto geometry = geo::loadGeometry(options.input);
    if (!geometry) return reportFailure(context, geometry.error());

    const auto start = std::chrono::steady_clock::now();
    auto grid = vox::voxelize(*geometry, options.params, context);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!grid) return reportFailure(context, grid.error());
    if (Status s = vox::saveVoxels(options.output, *grid); !s)
        return reportFailure(context, s.error());

    const vox::VoxelGrid& g = *grid;
    const vox::VoxelStats stats = vox::computeStats(g);
    const vox::AgentCells cells = vox::agentCells(g.agent, g.cell_size, g.cell_height);
    context.info("{}: {} triangles -> {} x {} x {} cells (x, z, y) of {} x {} m, origin ({:.3f}, "
                 "{:.3f}, {:.3f})",
                 options.input, geometry->triangleCount(), g.size_x, g.size_z, g.size_y,
                 g.cell_size, g.cell_height, g.origin[0], g.origin[1], g.origin[2]);
    context.info("agent: height {} m ({} cells), radius {} m ({} cells), climb {} m ({} cells), "
                 "max slope {} degrees",
                 g.agent.height, cells.height, g.agent.radius, cells.radius, g.agent.climb,
                 cells.climb, g.agent.max_slope_deg);
    std::string per_area;
    for (size_t a = 0; a < stats.walkable_per_area.size(); ++a)
        if (stats.walkable_per_area[a] > 0)
            per_area += fmt::format("{}{} {}", per_area.empty() ? "" : ", ",
                                    stats.walkable_per_area[a], g.areas[a].name);
    context.info("{} spans, {} walkable ({}); {} walkable columns, {} multi-layer (up to {} "
                 "layers)",
                 stats.spans, stats.walkable_spans, per_area.empty() ? "none" : per_area,
                 stats.walkable_columns, stats.multi_layer_columns, stats.max_walkable_layers);
    context.info("voxelized in {:.3f} s -> {}", seconds, options.output);
    if (stats.walkable_spans == 0)
        context.warn("no walkable surface: check the agent parameters, the up axis and the tags");
    return kExitOk;
}

}  // namespace

void registerVoxelize(CLI::App& app, CommandBody& body) {
    auto options = std::make_shared<VoxelizeOptions>();
    vox::VoxelizeParams& p = options->params;
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
    sub->add_option("--agent-height", p.agent.height, "Clearance the agent needs [m], > 0")
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
    // Ranges are checked by vox::checkParams, which names every bad value at once (exit code 2).
    sub->callback([&body, options] {
        body = [options](Context& context) { return runVoxelize(*options, context); };
    });
}

}  // namespace nav::cli
