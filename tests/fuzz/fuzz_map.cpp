// Fuzz target: the MovingAI grid map parser (.map) and the grid built from it.
#include <cstdint>
#include <string_view>

#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto map = nav::importer::parseMovingAiMap(text, "fuzz.map");
    if (!map.ok()) return 0;
    const nav::importer::GridMap& m = map.value();
    if (m.passable.size() != size_t(m.width) * m.height) __builtin_trap();
    if (size_t(m.width) * m.height <= (size_t(1) << 20)) {
        const nav::voxel::VoxelGrid grid = nav::importer::gridFromMap(m);
        if (grid.spans.size() != size_t(m.width) * m.height) __builtin_trap();
    }
    return 0;
}
