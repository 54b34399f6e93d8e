// Fuzz target: the tags JSON reader (rules, areas, link types, markers) and rule matching.
#include <cstdint>
#include <string_view>

#include "lib/importer/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto config = nav::importer::parseTagConfig(text, "fuzz.tags.json");
    if (!config.ok()) return 0;
    const nav::importer::TagConfig& tags = config.value();
    for (const char* name :
         {"floor", "link_jump_3", "nav_volume_water", "ladder_a", "Wall.001", ""})
        for (const char* material : {"", "grass", "lava"}) {
            (void)nav::importer::resolveTag(tags, name, name, material);
            (void)nav::importer::matchTagRule(tags, name, name, material);
        }
    return 0;
}
