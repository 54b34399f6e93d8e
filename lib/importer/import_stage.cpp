// The import stage: one definition shared by `navbake import` and `navbake build`.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <memory>

#include "lib/geometry/geometry.h"
#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::importer {
namespace {

std::string lowerExtension(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

bool isGridFile(const std::filesystem::path& path) {
    const std::string ext = lowerExtension(path);
    return ext == ".map" || ext == ".3dmap";
}

// Appends `part` to `merged`: vertices, triangles (re-indexed), areas, objects and links.
Status appendGeometry(geometry::Geometry& merged, geometry::Geometry&& part,
                      const std::filesystem::path& part_path,
                      const std::filesystem::path& first_path) {
    if (part.areas != merged.areas)
        return inputError("{} uses another area table than {}; give every input the same tag rules",
                          part_path.string(), first_path.string());
    const uint32_t base = uint32_t(merged.vertexCount());
    const uint32_t objects = uint32_t(merged.objects.size());
    merged.vertices.insert(merged.vertices.end(), part.vertices.begin(), part.vertices.end());
    for (uint32_t v : part.triangles) merged.triangles.push_back(v + base);
    merged.triangle_areas.insert(merged.triangle_areas.end(), part.triangle_areas.begin(),
                                 part.triangle_areas.end());
    for (uint32_t o : part.triangle_objects) merged.triangle_objects.push_back(o + objects);
    merged.objects.insert(merged.objects.end(), part.objects.begin(), part.objects.end());
    merged.links.insert(merged.links.end(), std::make_move_iterator(part.links.begin()),
                        std::make_move_iterator(part.links.end()));
    merged.markers.insert(merged.markers.end(), std::make_move_iterator(part.markers.begin()),
                          std::make_move_iterator(part.markers.end()));
    merged.source_mesh_count += part.source_mesh_count;
    merged.dropped_degenerate += part.dropped_degenerate;
    merged.dropped_ignored += part.dropped_ignored;
    return {};
}

std::string warnIfDefaultsChanged(const ImportStage::Params& params, std::string_view what) {
    if (params.up == UpAxis::y && params.scale == 1.0f && params.tags.empty() &&
        params.units == Units::file && !params.flip_winding && !params.double_sided)
        return {};
    return fmt::format(
        "up, scale, units, flip_winding, double_sided and tags do not apply to {} and are ignored",
        what);
}

}  // namespace

ParamIssues ImportStage::check(const Params& params) {
    ParamCheck check;
    check.positive("scale", params.scale);
    check.threads("threads", params.threads);
    check.require(std::isfinite(params.strip_size) && params.strip_size >= 0, "strip_size",
                  fmt::format("{}", params.strip_size), "> 0 m, or 0 for the indexed layout");
    return check.issues;
}

void ImportStage::describe(const Params& params, StageKey& key) {
    // The tag file's bytes are part of the key as a source file.
    key.add("up", choiceName<UpAxis>(kUpAxes, params.up)).add("scale", params.scale);
    key.add("units", choiceName<Units>(kUnits, params.units))
        .add("flip_winding", params.flip_winding)
        .add("double_sided", params.double_sided);
    if (params.strip_size > 0) key.add("strip_size", params.strip_size);
}

Result<ImportStage::Output> ImportStage::output(const Inputs& inputs, size_t* bad_input) {
    if (inputs.sources.empty())
        return makeError(ErrorKind::usage, "import needs at least one input file");
    for (size_t i = 0; i < inputs.sources.size(); ++i)
        if (isGridFile(inputs.sources[i]) && inputs.sources.size() > 1) {
            if (bad_input != nullptr) *bad_input = i;
            return inputError("{}: a MovingAI {} must be the only input",
                              inputs.sources[i].string(), lowerExtension(inputs.sources[i]));
        }
    return isGridFile(inputs.sources[0]) ? Output::voxels : Output::geometry;
}

Result<MemoryEstimate> ImportStage::estimateMemory(const Inputs& inputs, const Params& params) {
    // Measured: MovingAI grids hold a few structures per cell (a byte of text each); OBJ files
    // stream through our reader (city4's 12.5 MB OBJ peaks at 8 MB over the base); other formats
    // are read whole by Assimp, whose scene takes ~10x the file (glTF, FBX, DAE).
    uint64_t bytes = kStageBaseBytes, file_bytes = 0;
    bool assimp = false;
    for (const std::filesystem::path& source : inputs.sources) {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(source, ec);
        if (ec) continue;  // the stage itself says what is wrong with the file
        file_bytes += size;
        const std::string ext = lowerExtension(source);
        if (ext == ".map" || ext == ".3dmap")
            bytes += 24 * size;
        else if (ext == ".obj" && params.strip_size > 0)
            // Strips: a window of positions, a cache, an open block per strip and the reader's
            // chunks, however large the file (measured: 13-18 MiB from 0.5 to 10 M triangles).
            bytes += uint64_t(32) << 20;
        else if (ext == ".obj")
            bytes += size;
        else {
            bytes += 12 * size;
            assimp = true;
        }
    }
    return MemoryEstimate{
        bytes, fmt::format("{} input file(s) of {}", inputs.sources.size(), humanBytes(file_bytes)),
        assimp ? "split the level into several files or export it as OBJ (streamed)"
               : "split the level into several files"};
}

Result<StageResult> ImportStage::run(const Inputs& inputs, const Params& params,
                                     const std::filesystem::path& output_path, Context& context) {
    if (Status s = checkStage<ImportStage>(params); !s) return s.error();
    auto kind = output(inputs);
    if (!kind) return kind.error();
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    };
    StageResult result;
    const std::filesystem::path& first = inputs.sources[0];
    if (lowerExtension(first) == ".map") {
        if (std::string w = warnIfDefaultsChanged(params, "MovingAI maps"); !w.empty())
            result.warnings.push_back(w);
        auto map = loadMovingAiMap(first);
        if (!map) return map.error();
        voxel::VoxelGrid grid = gridFromMap(*map);
        grid.source_name = first.filename().string();
        if (Status s = voxel::saveVoxels(output_path, grid); !s) return s.error();
        result.milliseconds = elapsed();
        result.count("cells", size_t(map->width) * map->height);
        result.count("passable", map->passableCount());
        result.summary.push_back(fmt::format(
            "{}: {} x {} grid (width x height), {} passable cells -> {}", first.string(),
            map->width, map->height, map->passableCount(), output_path.string()));
        return result;
    }
    if (lowerExtension(first) == ".3dmap") {
        if (std::string w = warnIfDefaultsChanged(params, "MovingAI 3D maps"); !w.empty())
            result.warnings.push_back(w);
        auto map = loadVoxelMap3D(first);
        if (!map) return map.error();
        voxel::VoxelGrid grid = gridFromVoxelMap(*map);
        grid.source_name = first.filename().string();
        if (Status s = voxel::saveVoxels(output_path, grid); !s) return s.error();
        result.milliseconds = elapsed();
        result.count("voxels", size_t(map->width) * map->height * map->depth);
        result.count("blocked", map->blockedCount());
        result.summary.push_back(fmt::format(
            "{}: {} x {} x {} voxels (width x height x depth), {} blocked -> {}", first.string(),
            map->width, map->height, map->depth, map->blockedCount(), output_path.string()));
        return result;
    }

    ImportParams scene_params;
    scene_params.up = params.up;
    scene_params.scale = params.scale;
    scene_params.units = params.units;
    scene_params.flip_winding = params.flip_winding;
    scene_params.double_sided = params.double_sided;
    scene_params.threads = params.threads;
    if (!params.tags.empty()) {
        auto tags = loadTagConfig(params.tags);
        if (!tags) return tags.error();
        scene_params.tags = std::move(*tags);
    }
    geometry::Geometry merged;
    // One file: its triangles are compressed as they are made (never whole in memory); several
    // are merged in memory. The strips layout: every file's triangles go to the strips, spilled
    // beside the output as they come, and the OBJ positions read so far are spilled there too.
    std::unique_ptr<geometry::TriangleStreams> streams;
    std::unique_ptr<geometry::StripWriter> strips;
    if (params.strip_size > 0) {
        strips = std::make_unique<geometry::StripWriter>(params.strip_size, output_path);
        scene_params.spill_folder = output_path.has_parent_path() ? output_path.parent_path() : ".";
    } else if (inputs.sources.size() == 1) {
        streams = std::make_unique<geometry::TriangleStreams>();
    }
    std::string names;
    std::vector<std::string> unit_lines;
    uint64_t turned_up = 0;
    for (size_t i = 0; i < inputs.sources.size(); ++i) {
        ImportReport report;
        auto part = [&] {
            ScopedTimer timer(context, "import " + inputs.sources[i].string());
            return importScene(inputs.sources[i], scene_params, context, &report, streams.get(),
                               strips.get());
        }();
        unit_lines.push_back(fmt::format(
            "units of {}: {}{}", inputs.sources[i].filename().string(), report.units,
            params.scale != 1.0f ? fmt::format(", then x {} (scale)", params.scale) : ""));
        turned_up += report.turned_up;
        if (!part) return part.error();
        names += (i ? " + " : "") + inputs.sources[i].string();
        if (i == 0) {
            merged = std::move(*part);
        } else if (Status s = appendGeometry(merged, std::move(*part), inputs.sources[i], first);
                   !s) {
            return s.error();
        }
    }
    if (inputs.sources.size() > 1)  // links of several files (each file checked its own)
        if (Status s = checkSceneLinkIds(merged.links); !s) return s.error();
    const uint64_t triangle_count = strips    ? strips->count()
                                    : streams ? streams->count()
                                              : merged.triangleCount();
    std::vector<uint64_t> per_area(merged.areas.size(), 0);
    if (strips || streams) {
        for (size_t a = 0; a < per_area.size(); ++a)
            per_area[a] = strips ? strips->perArea()[a] : streams->perArea()[a];
    } else {
        for (uint8_t a : merged.triangle_areas) ++per_area[a];
    }
    {
        ScopedTimer timer(context, "import: save");
        if (Status s = strips ? geometry::saveGeometry(output_path, merged, *strips)
                              : geometry::saveGeometry(output_path, merged, streams.get());
            !s)
            return s.error();
    }
    result.milliseconds = elapsed();
    result.count("triangles", triangle_count);
    result.count("vertices", merged.vertexCount());
    result.count("objects", merged.objects.size());
    if (!merged.links.empty()) {
        result.count("links", merged.links.size());
        for (const auto& [word, n] : geometry::linksByType(merged.links))
            result.count("links_" + word, n);
    }
    geometry::Bounds b = merged.bounds();
    if (strips) {
        strips->bounds(b.min.data(), b.max.data());
        result.count("strips", strips->stripCount());
        result.count("strip_copies", strips->copies());
        result.summary.push_back(fmt::format(
            "strips layout for world builds: {} strips of {} m on Z, {} triangle copies ({:.2f} "
            "a triangle); no shared vertices",
            strips->stripCount(), params.strip_size, strips->copies(),
            triangle_count > 0 ? double(strips->copies()) / double(triangle_count) : 0.0));
    }
    std::string areas;
    for (size_t i = 0; i < merged.areas.size(); ++i)
        if (per_area[i] > 0)
            areas += fmt::format("{}{} {}", areas.empty() ? "" : ", ", per_area[i],
                                 merged.areas[i].name);
    result.summary.push_back(
        fmt::format("{}: {} meshes, {} objects, {} triangles ({}), {} vertices", names,
                    merged.source_mesh_count, merged.objects.size(), triangle_count, areas,
                    merged.vertexCount()));
    result.summary.push_back(fmt::format("dropped: {} degenerate, {} ignored by tag rules",
                                         merged.dropped_degenerate, merged.dropped_ignored));
    for (std::string& line : unit_lines) result.summary.push_back(std::move(line));
    if (params.flip_winding || params.double_sided) {
        result.count("triangles_turned_up", turned_up);
        result.summary.push_back(fmt::format(
            "winding: {}{}", params.flip_winding ? "every triangle reversed" : "as in the file",
            params.double_sided
                ? fmt::format("; double-sided: {} triangles facing down turned up", turned_up)
                : ""));
    }
    if (!merged.links.empty())
        result.summary.push_back(fmt::format("links from scene objects: {} ({})",
                                             merged.links.size(),
                                             geometry::linksByTypeText(merged.links)));
    if (!merged.markers.empty()) {
        // Per kind: a count, and the objects by name.
        std::string each;
        for (uint8_t k = 1; k <= uint8_t(geometry::kLastMarkerKind); ++k) {
            const auto marker_kind = geometry::MarkerKind(k);
            std::string objects;
            uint64_t n = 0;
            for (const geometry::SceneMarker& m : merged.markers)
                if (m.kind == marker_kind) {
                    ++n;
                    if (n <= 8) objects += fmt::format("{}{}", n > 1 ? ", " : "", m.name);
                }
            if (n == 0) continue;
            result.count(fmt::format("markers_{}", geometry::markerKindName(marker_kind)), n);
            each +=
                fmt::format("{}{} {} ({}{})", each.empty() ? "" : "; ", n,
                            geometry::markerKindName(marker_kind), objects, n > 8 ? ", ..." : "");
        }
        result.count("markers", merged.markers.size());
        result.summary.push_back(fmt::format("designer markers from scene objects: {}", each));
    }
    result.summary.push_back(fmt::format(
        "bounds: ({:.3f}, {:.3f}, {:.3f}) .. ({:.3f}, {:.3f}, {:.3f}) m -> {}", b.min[0], b.min[1],
        b.min[2], b.max[0], b.max[1], b.max[2], output_path.string()));
    return result;
}

}  // namespace nav::importer
