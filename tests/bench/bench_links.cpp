// Benchmark of links (issue 13): link generation time and counts on the sample levels, the shared
// Recast demo meshes, a large generated town and the links course tiled 6 x 6, and what links
// add to the navmesh bake: the whole graph stage (load the .vox, bake, save) without and with
// generated links, runs alternating so machine noise hits both alike, as a share of that stage
// and of the bake from geometry (voxelize + the stage); figures are medians.
// Prints; asserts nothing.
//
// Usage: bench_links [SHARED_DATA [SAMPLE_LEVELS [LEVEL.obj ...]]] — make bench adds a town made by
// `levelgen --town` (large, realistic: streets, buildings with annexes, plazas, footbridges).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "lib/importer/import.h"
#include "lib/voxel/voxelize.h"

namespace {

namespace fs = std::filesystem;
using namespace nav;

double since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// `base` repeated on an n x n grid of `step` metres (the same objects, moved).
geometry::Geometry tiled(const geometry::Geometry& base, int n, float step_x, float step_z) {
    geometry::Geometry out = base;
    out.vertices.clear();
    out.triangles.clear();
    out.triangle_areas.clear();
    out.triangle_objects.clear();
    out.links.clear();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const uint32_t first = uint32_t(out.vertexCount());
            for (size_t v = 0; v < base.vertexCount(); ++v) {
                out.vertices.push_back(base.vertices[3 * v] + float(i) * step_x);
                out.vertices.push_back(base.vertices[3 * v + 1]);
                out.vertices.push_back(base.vertices[3 * v + 2] + float(j) * step_z);
            }
            for (uint32_t t : base.triangles) out.triangles.push_back(first + t);
            out.triangle_areas.insert(out.triangle_areas.end(), base.triangle_areas.begin(),
                                      base.triangle_areas.end());
            out.triangle_objects.insert(out.triangle_objects.end(), base.triangle_objects.begin(),
                                        base.triangle_objects.end());
        }
    return out;
}

// `runs` alternating runs at least; levels that bake in a few milliseconds get more (about half a
// second of each variant), so their medians are not one scheduler hiccup.
void run(const std::string& name, const geometry::Geometry& geometry, int runs) {
    Context context;
    voxel::VoxelizeParams vp;
    {
        const auto t0 = std::chrono::steady_clock::now();
        if (voxel::voxelize(geometry, vp, context))
            runs = std::clamp(int(500.0 / std::max(since(t0), 1.0)), runs, 41);
    }
    // The voxelization (Recast's rasterization and filtering: the first half of a navmesh bake
    // from geometry), timed for the share of the whole bake.
    std::vector<double> voxelize_ms;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!voxel::voxelize(geometry, vp, context)) break;
        voxelize_ms.push_back(since(t0));
    }
    auto grid = voxel::voxelize(geometry, vp, context);
    if (!grid) {
        std::printf("%-22s voxelize failed: %s\n", name.c_str(), grid.error().message.c_str());
        return;
    }
    const fs::path dir = fs::temp_directory_path() / "navbake_bench_links";
    fs::create_directories(dir);
    if (!voxel::saveVoxels(dir / "level.vox", *grid)) return;
    graph::LinkGenParams gen;
    gen.drop_height = 3.2f;
    gen.jump_distance = 2.2f;
    gen.jump_up_height = 1.3f;
    graph::GraphStage::Params plain;
    plain.kind = graph::GraphKind::navmesh;
    graph::GraphStage::Params linked = plain;
    linked.generate = gen;
    // The whole navmesh stage (load the .vox, bake, save the .graph), without and with links,
    // alternating; and the two link steps on their own.
    std::vector<double> plain_ms, linked_ms, gen_ms, attach_ms;
    graph::GeneratedLinks made;
    size_t lanes = 0;
    for (int r = 0; r < runs; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        if (!graph::GraphStage::run({dir / "level.vox"}, plain, dir / "plain.graph", context))
            return;
        plain_ms.push_back(since(t0));
        t0 = std::chrono::steady_clock::now();
        if (!graph::GraphStage::run({dir / "level.vox"}, linked, dir / "linked.graph", context))
            return;
        linked_ms.push_back(since(t0));
        auto mesh = graph::buildNavmeshGraph(*grid, {}, context);
        if (!mesh) return;
        t0 = std::chrono::steady_clock::now();
        auto links = graph::generateLinks(*grid, gen, context);
        gen_ms.push_back(since(t0));
        if (!links) return;
        t0 = std::chrono::steady_clock::now();
        graph::LinkResolveStats stats;
        if (!graph::attachLinks(*mesh, links->links, 0, stats, context)) return;
        attach_ms.push_back(since(t0));
        made = std::move(links).value();
        lanes = mesh->links.size();
    }
    std::string types;
    for (const auto& [type, count] : made.stats.links_by_type)
        types += (types.empty() ? "" : ", ") + std::to_string(count) + " " + type;
    const double base = median(plain_ms), with = median(linked_ms);
    const double bake = median(voxelize_ms) + base;
    std::printf(
        "%-22s %7zu tris %8zu walkable  navmesh stage %8.1f ms, with links %8.1f ms: +%5.1f%%; "
        "voxelize + navmesh %8.1f ms: +%5.1f%%  (generate %6.1f ms, attach %5.1f ms)  %5zu links "
        "(%s), %6zu lanes, %6llu ledge samples (%llu linked)\n",
        name.c_str(), geometry.triangleCount(), grid->walkableCount(), base, with,
        100.0 * (with - base) / base, bake, 100.0 * (with - base) / bake, median(gen_ms),
        median(attach_ms), made.links.size(), types.empty() ? "none" : types.c_str(), lanes,
        static_cast<unsigned long long>(made.stats.ledge_samples),
        static_cast<unsigned long long>(made.stats.samples_linked));
    fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path shared = argc > 1 ? argv[1] : "../shared/data";
    const fs::path samples = argc > 2 ? argv[2] : "sample_levels";
    std::printf(
        "links: the navmesh stage (load .vox, bake, save) without and with generated links "
        "(drop 3.2 m, jump 2.2 m, jump up 1.3 m; Recast's demo agent), medians of "
        "alternating runs; generation and attaching timed on their own\n");
    std::vector<std::pair<std::string, fs::path>> levels;
    for (const char* name : {"indoor_two_floors.glb", "terrain.obj", "links_course.obj"})
        levels.push_back({name, samples / name});
    for (const char* name : {"dungeon.obj", "nav_test.obj", "undulating.obj"})
        if (fs::exists(shared / "meshes" / name))
            levels.push_back({name, shared / "meshes" / name});
    for (int i = 3; i < argc; ++i)
        levels.push_back({fs::path(argv[i]).filename().string(), argv[i]});
    Context context;
    for (const auto& [name, path] : levels) {
        auto geometry = importer::importScene(path, {}, context);
        if (!geometry) {
            std::printf("%-22s import failed: %s\n", name.c_str(),
                        geometry.error().message.c_str());
            continue;
        }
        run(name, *geometry, 5);
    }
    if (auto course = importer::importScene(samples / "links_course.obj", {}, context)) {
        run("links_course x 6 x 6", tiled(*course, 6, 50.0f, 30.0f), 3);
    }
    return 0;
}
