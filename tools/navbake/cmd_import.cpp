#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "../../lib/geometry/geometry.h"
#include "../../lib/import/import.h"
#include "../../lib/voxel/voxel_grid.h"
#include "cli.h"

namespace nav::cli {
namespace {

struct ImportOptions {
    std::string input;
    std::string output;
    std::string up = "y";
    double scale = 1.0;
    std::string tags;
};

std::string lowerExtension(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

int importGridMap(const ImportOptions& options, Context& context, CLI::App& sub) {
    if (sub.count("--up") || sub.count("--scale") || sub.count("--tags"))
        context.warn("--up, --scale and --tags do not apply to MovingAI maps and are ignored");
    if (lowerExtension(options.output) != ".vox")
        context.warn("{}: a MovingAI map imports to a voxel grid; '.vox' is the usual extension",
                     options.output);
    auto map = importer::loadMovingAiMap(options.input);
    if (!map) return reportFailure(context, map.error());
    vox::VoxelGrid grid = vox::gridFromMap(*map);
    grid.source_name = std::filesystem::path(options.input).filename().string();
    if (Status s = vox::saveVoxels(options.output, grid); !s) return reportFailure(context, s.error());
    context.info("{}: {} x {} grid (width x height), {} passable cells -> {}", options.input,
                 map->width, map->height, map->passableCount(), options.output);
    return kExitOk;
}

int importVoxelMap(const ImportOptions& options, Context& context, CLI::App& sub) {
    if (sub.count("--up") || sub.count("--scale") || sub.count("--tags"))
        context.warn("--up, --scale and --tags do not apply to MovingAI 3D maps and are ignored");
    if (lowerExtension(options.output) != ".vox")
        context.warn("{}: a MovingAI voxel map imports to a voxel grid; '.vox' is the usual "
                     "extension",
                     options.output);
    auto map = importer::loadVoxelMap3D(options.input);
    if (!map) return reportFailure(context, map.error());
    vox::VoxelGrid grid = vox::gridFromVoxelMap(*map);
    grid.source_name = std::filesystem::path(options.input).filename().string();
    if (Status s = vox::saveVoxels(options.output, grid); !s) return reportFailure(context, s.error());
    context.info("{}: {} x {} x {} voxels (width x height x depth), {} blocked -> {}",
                 options.input, map->width, map->height, map->depth, map->blockedCount(),
                 options.output);
    return kExitOk;
}

int importMesh(const ImportOptions& options, Context& context) {
    importer::ImportParams params;
    params.up = options.up == "z" ? importer::UpAxis::z : importer::UpAxis::y;
    params.scale = float(options.scale);
    if (!options.tags.empty()) {
        auto tags = importer::loadTagConfig(options.tags);
        if (!tags) return reportFailure(context, tags.error());
        params.tags = std::move(tags).value();
    }
    if (lowerExtension(options.output) != ".geo")
        context.warn("{}: imported geometry is a .geo artifact; '.geo' is the usual extension",
                     options.output);
    auto geometry = [&] {
        ScopedTimer timer(context, "import");
        return importer::importScene(options.input, params, context);
    }();
    if (!geometry) return reportFailure(context, geometry.error());
    if (Status s = geo::saveGeometry(options.output, *geometry); !s)
        return reportFailure(context, s.error());

    const geo::Geometry& g = *geometry;
    const geo::Bounds b = g.bounds();
    std::vector<size_t> per_area(g.areas.size(), 0);
    for (uint8_t a : g.triangle_areas) ++per_area[a];
    std::string areas;
    for (size_t i = 0; i < g.areas.size(); ++i)
        if (per_area[i] > 0)
            areas += fmt::format("{}{} {}", areas.empty() ? "" : ", ", per_area[i], g.areas[i].name);
    context.info("{}: {} meshes, {} objects, {} triangles ({}), {} vertices", options.input,
                 g.source_mesh_count, g.objects.size(), g.triangleCount(), areas, g.vertexCount());
    context.info("dropped: {} degenerate, {} ignored by tag rules", g.dropped_degenerate,
                 g.dropped_ignored);
    context.info("bounds: ({:.3f}, {:.3f}, {:.3f}) .. ({:.3f}, {:.3f}, {:.3f}) m -> {}", b.min[0],
                 b.min[1], b.min[2], b.max[0], b.max[1], b.max[2], options.output);
    return kExitOk;
}

}  // namespace

void registerImport(CLI::App& app, CommandBody& body) {
    auto options = std::make_shared<ImportOptions>();
    CLI::App* sub = app.add_subcommand(
        "import",
        "Import level geometry (OBJ, glTF/GLB, FBX, DAE, PLY, ... anything Assimp reads) into a "
        ".geo artifact, or a MovingAI .map grid or .3dmap voxel map straight into a .vox voxel "
        "grid");
    sub->add_option("INPUT", options->input, "Level file, or a MovingAI .map / .3dmap")->required();
    sub->add_option("-o,--output", options->output,
                    "Output artifact (.geo, or .vox for a .map / .3dmap)")
        ->required();
    sub->add_option("--up", options->up, "Up axis of the source file (Z-up files are rotated to Y-up)")
        ->check(CLI::IsMember({"y", "z"}))
        ->capture_default_str();
    sub->add_option("--scale", options->scale, "Multiply every coordinate (e.g. 0.01 for cm files)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--tags", options->tags,
                    "JSON file of tag rules (ignore / obstacle / area types with costs) tried "
                    "before the built-in ones; see README");
    sub->callback([&body, options, sub] {
        body = [options, sub](Context& context) {
            if (lowerExtension(options->input) == ".map")
                return importGridMap(*options, context, *sub);
            if (lowerExtension(options->input) == ".3dmap")
                return importVoxelMap(*options, context, *sub);
            return importMesh(*options, context);
        };
    });
}

}  // namespace nav::cli
