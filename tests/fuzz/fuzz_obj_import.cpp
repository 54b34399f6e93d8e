// Fuzz target: the scene importer's own code on a Wavefront OBJ (obj_reader: our streaming
// parser, no Assimp) and the triangle path after it: node flattening, triangulation, vertex
// merging, degenerate triangles, tag rules, scene links and markers.
#include <cstdint>

#include "lib/common/context.h"
#include "lib/importer/import.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = nav::fuzz::writeTempFile({data, size}, "scene.obj");
    nav::Context context;
    nav::importer::ImportParams params;
    params.threads = 1;
    auto geometry = nav::importer::importScene(path, params, context);
    if (geometry.ok()) {
        const auto& g = geometry.value();
        for (uint32_t index : g.triangles)
            if (index >= g.vertices.size() / 3) __builtin_trap();  // indices must be in range
    }
    return 0;
}
