// Fuzz target: the level config reader (navbake build's JSON: agents, stages, bounds, volumes,
// links, tags, world) and its plan. Inputs it names need not exist: the reader must say so.
#include <cstdint>
#include <string>

#include "lib/pipeline/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto config = nav::pipeline::parseLevelConfig(text, "/nonexistent/navbake-fuzz/level.json");
    (void)config.ok();
    return 0;
}
