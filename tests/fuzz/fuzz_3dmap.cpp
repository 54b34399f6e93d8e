// Fuzz target: the MovingAI 3D voxel map parser (.3dmap) and the grid built from it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // A header may declare up to 2^30 voxels, which the parser allocates (a valid, empty map):
    // inputs declaring more than 2^16 are left out, so the fuzzer spends its time on the lines
    // after the header instead of on gigabyte allocations.
    unsigned long long w = 0, h = 0, d = 0;
    const std::string head(text.substr(0, std::min<size_t>(text.size(), 64)));
    if (std::sscanf(head.c_str(), " voxel %llu %llu %llu", &w, &h, &d) == 3 &&
        w * h * d > (1ull << 16))
        return 0;
    auto map = nav::importer::parseVoxelMap3D(text, "fuzz.3dmap");
    if (!map.ok()) return 0;
    const nav::importer::VoxelMap3D& m = map.value();
    if (m.blocked.size() != size_t(m.width) * m.height * m.depth) __builtin_trap();
    if (m.blocked.size() <= (size_t(1) << 16)) {
        const nav::voxel::VoxelGrid grid = nav::importer::gridFromVoxelMap(m);
        if (grid.spans.size() > m.blocked.size()) __builtin_trap();
    }
    return 0;
}
