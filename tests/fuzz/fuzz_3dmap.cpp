// Fuzz target: the MovingAI 3D voxel map parser (.3dmap) and the grid built from it.
#include <cstdint>
#include <string_view>

#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto map = nav::importer::parseVoxelMap3D(text, "fuzz.3dmap");
    if (!map.ok()) return 0;
    const nav::importer::VoxelMap3D& m = map.value();
    if (m.blocked.size() != size_t(m.width) * m.height * m.depth) __builtin_trap();
    if (m.blocked.size() <= (size_t(1) << 20)) {
        const nav::voxel::VoxelGrid grid = nav::importer::gridFromVoxelMap(m);
        if (grid.spans.size() > m.blocked.size()) __builtin_trap();
    }
    return 0;
}
