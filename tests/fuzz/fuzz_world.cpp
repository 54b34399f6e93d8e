// Fuzz target: streamed worlds (navrt_world) on untrusted bytes. The input is a world index
// (`.world`, kind WRLD) followed by world tiles (`.nav` with WTHD), one container after another;
// the target loads the index, adds every tile, and plans and finds paths across the loaded tiles,
// then removes a tile and searches again.
#include <cstdint>

#include "formats/xxhash64.h"
#include "lib/runtime/c/navrt.h"
#include "tests/fuzz/fuzz_support.h"

NAVBAKE_FUZZ_CONTAINER_MUTATOR()

namespace {
using nav::fuzz::g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::vector<nav::fuzz::Piece> pieces = nav::fuzz::splitContainers({data, size});
    if (pieces.empty()) return 0;
    navrt_load_options options;
    navrt_load_options_init(&options);
    options.max_memory = uint64_t(128) << 20;
    navrt_world* world = nullptr;
    if (navrt_world_load_memory(data + pieces[0].offset, pieces[0].size, &options, &world,
                                nullptr) != NAVRT_OK)
        return 0;
    for (size_t i = 1; i < pieces.size() && i <= 16; ++i)
        navrt_world_add_tile_memory(world, data + pieces[i].offset, pieces[i].size, nullptr);
    float extent[4];
    navrt_world_extent(world, extent);
    const uint64_t pick = nav::formats::xxhash64(data, size);
    auto at = [&](uint64_t bits) {
        const float u = float(bits & 0xffff) / 65535.0f,
                    v = float((bits >> 16) & 0xffff) / 65535.0f;
        return navrt_vec3{extent[0] + u * (extent[2] - extent[0]), 0.0f,
                          extent[1] + v * (extent[3] - extent[1])};
    };
    const navrt_vec3 from = at(pick), to = at(pick >> 32);
    navrt_vec3 points[64];
    navrt_world_path_link links[8];
    uint32_t tiles[64], count = 0;
    for (int round = 0; round < 2; ++round) {
        navrt_world_find_path(world, from, to);
        g_sink += navrt_world_path(world, points, 64) + navrt_world_path_links(world, links, 8);
        g_sink += navrt_world_expanded(world) + uint64_t(navrt_world_path_cost(world));
        navrt_world_plan_tiles(world, from, to, tiles, 64, &count);
        g_sink += count + navrt_world_memory_bytes(world);
        uint32_t tx = 0, tz = 0;
        if (navrt_world_tile_at(world, from, &tx, &tz) && navrt_world_tile_loaded(world, tx, tz))
            navrt_world_remove_tile(world, tx, tz);
    }
    navrt_world_free(world);
    return 0;
}
