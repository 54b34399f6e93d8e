// `navbake import`: options onto importer::ImportStage, which does the work.
#include "lib/importer/import.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerImport(CLI::App& app, CommandBody& body) {
    struct Options {
        std::vector<std::string> inputs;
        std::string output, tags;
        importer::ImportStage::Params params;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "import",
        "Import level geometry (OBJ, glTF/GLB, FBX, DAE, PLY, ... anything Assimp reads) into a "
        ".geo artifact (several files are merged into one), or a MovingAI .map grid or .3dmap "
        "voxel map straight into a .vox voxel grid");
    sub->add_option("INPUT", options->inputs,
                    "Level file(s), merged into one .geo; or one MovingAI .map / .3dmap")
        ->required();
    sub->add_option("-o,--output", options->output,
                    "Output artifact (.geo, or .vox for a .map / .3dmap)")
        ->required();
    addChoice<importer::UpAxis>(sub, "--up", options->params.up, importer::kUpAxes,
                                "Up axis of the source file (Z-up files are rotated to Y-up)");
    sub->add_option("--scale", options->params.scale,
                    "Multiply every coordinate (after the file's own unit)")
        ->capture_default_str();
    addChoice<importer::Units>(sub, "--units", options->params.units, importer::kUnits,
                               "file: apply the unit the file states (FBX UnitScaleFactor; glTF "
                               "is metres; Collada's <unit> is always applied); metres: take FBX "
                               "coordinates as metres. The import report says what was applied");
    sub->add_flag("--flip-winding", options->params.flip_winding,
                  "Reverse every triangle (meshes wound clockwise: no floor faces up)");
    sub->add_flag("--double-sided", options->params.double_sided,
                  "Faces count from either side: triangles facing down are turned up");
    sub->add_option("--threads", options->params.threads,
                    "Worker threads (0 = all cores; OBJ files are read and parsed on a second "
                    "thread beside the one building the geometry)")
        ->capture_default_str();
    sub->add_option("--strip-size", options->params.strip_size,
                    "Write the .geo in the strips layout for world builds: triangles with their "
                    "points, in strips of this many metres on Z, spilled to disk as they are "
                    "read (0 = vertices and indexed triangles, which every command reads; only "
                    "voxelize and inspect read strips)")
        ->capture_default_str();
    sub->add_option("--tags", options->tags,
                    "JSON file of tag rules (ignore / obstacle / area types with costs) tried "
                    "before the built-in ones; see README");
    sub->callback([&body, options] {
        body = [options](Context& context) {
            importer::ImportStage::Inputs inputs;
            for (const std::string& input : options->inputs) inputs.sources.emplace_back(input);
            options->params.tags = options->tags;
            auto kind = importer::ImportStage::output(inputs);
            if (!kind) return reportFailure(context, kind.error());
            const char* ext = *kind == importer::ImportStage::Output::voxels ? ".vox" : ".geo";
            if (std::filesystem::path(options->output).extension() != ext)
                context.warn("{}: this input imports to a {} artifact; '{}' is the usual extension",
                             options->output, ext + 1, ext);
            return runStage<importer::ImportStage>(context, inputs, options->params,
                                                   options->output);
        };
    });
}

}  // namespace nav::navbake
