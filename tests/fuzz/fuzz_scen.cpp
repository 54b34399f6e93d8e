// Fuzz target: the MovingAI scenario parser (.map.scen).
#include <cstdint>
#include <string_view>

#include "lib/importer/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto scenarios = nav::importer::parseScenarios(text, "fuzz.map.scen");
    if (scenarios.ok())
        for (const auto& s : scenarios.value())
            if (!(s.optimal_length >= 0)) __builtin_trap();  // parsed lengths are checked
    return 0;
}
