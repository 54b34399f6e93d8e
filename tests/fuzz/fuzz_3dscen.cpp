// Fuzz target: the MovingAI 3D scenario parser (.3dscen).
#include <cstdint>
#include <string_view>

#include "lib/importer/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto file = nav::importer::parseScenario3D(text, "fuzz.3dscen");
    if (file.ok())
        for (const auto& s : file.value().entries)
            if (s.line == 0) __builtin_trap();  // every problem names its line
    return 0;
}
