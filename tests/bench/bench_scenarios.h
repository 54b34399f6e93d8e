// Shared by the benchmarks: the start and goal nodes of a 2D MovingAI .scen.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "lib/importer/scenario.h"
#include "lib/runtime/navrt.h"
#include "lib/runtime/navrt_query.h"

namespace bench {

// Start and goal nodes of a 2D .scen as runScenarioFile places them (cell centres on the floor).
inline std::vector<std::pair<uint32_t, uint32_t>> scenarioNodes(const navrt::GraphView& view,
                                                                const std::filesystem::path& scen) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    auto scenarios = nav::importer::loadScenarios(scen);
    if (!scenarios) {
        std::printf("  %s: %s\n", scen.filename().c_str(), scenarios.error().message.c_str());
        return pairs;
    }
    const nav::formats::GraphHeader& h = view.header;
    const float floor_y = h.origin[1] + h.cell_height;
    auto centre = [&](uint32_t x, uint32_t y) {
        return navrt::Vec3{h.origin[0] + (float(x) + 0.5f) * h.cell_size, floor_y,
                           h.origin[2] + (float(y) + 0.5f) * h.cell_size};
    };
    for (const nav::importer::Scenario& s : *scenarios) {
        const uint32_t a = navrt::locate(view, centre(s.start_x, s.start_y), 0.0f, 0.5f);
        const uint32_t b = navrt::locate(view, centre(s.goal_x, s.goal_y), 0.0f, 0.5f);
        if (a != navrt::kNoNode && b != navrt::kNoNode) pairs.push_back({a, b});
    }
    return pairs;
}

}  // namespace bench
