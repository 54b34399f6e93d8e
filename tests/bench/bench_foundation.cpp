// Benchmarks of the foundation: checksum throughput, container encode/load, and import times.
// Prints figures (median of several runs); asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "formats/container_writer.h"
#include "formats/xxhash64.h"
#include "lib/common/context.h"
#include "lib/importer/import.h"
#include "lib/runtime/navrt.h"
#include "lib/voxel/voxel_grid.h"

namespace {

double medianMs(int runs, const std::function<void()>& body) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        body();
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::filesystem::path shared = argc > 1 ? argv[1] : "../shared/data";

    std::vector<uint8_t> data(64u << 20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 2654435761u >> 13);
    uint64_t sink = 0;
    const double hash_ms =
        medianMs(5, [&] { sink += nav::formats::xxhash64(data.data(), data.size()); });
    std::printf("xxhash64: %.2f GB/s (64 MiB in %.1f ms)\n", data.size() / hash_ms / 1e6, hash_ms);

    if (std::filesystem::exists(shared / "movingai" / "den520d.map")) {
        auto map = nav::importer::loadMovingAiMap(shared / "movingai" / "den520d.map");
        if (!map) return 1;
        const auto grid = nav::importer::gridFromMap(*map);
        const auto path = std::filesystem::temp_directory_path() / "navbake_bench_den520d.vox";
        const double save_ms = medianMs(5, [&] { (void)nav::voxel::saveVoxels(path, grid); });
        navrt::Asset asset;
        const double load_ms = medianMs(9, [&] { (void)navrt::load(path.c_str(), asset); });
        std::printf("den520d.vox: %llu bytes on disk, save %.2f ms, navrt::load %.3f ms\n",
                    static_cast<unsigned long long>(std::filesystem::file_size(path)), save_ms,
                    load_ms);
        std::filesystem::remove(path);
    }

    std::vector<std::filesystem::path> meshes;
    if (std::filesystem::is_directory(shared / "meshes"))
        for (const auto& entry : std::filesystem::directory_iterator(shared / "meshes"))
            if (entry.path().extension() == ".obj") meshes.push_back(entry.path());
    std::sort(meshes.begin(), meshes.end());
    for (const auto& mesh : meshes) {
        nav::Context context;
        size_t triangles = 0;
        const double ms = medianMs(5, [&] {
            auto g = nav::importer::importScene(mesh, {}, context);
            triangles = g ? g->triangleCount() : 0;
        });
        std::printf("import %-16s %7zu triangles  %8.2f ms\n", mesh.filename().c_str(), triangles,
                    ms);
    }
    return sink == 42 ? 2 : 0;
}
