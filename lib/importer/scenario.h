// MovingAI 2D scenario files (.scen): "version 1" then tab-separated lines
//   bucket  map  map_width  map_height  start_x  start_y  goal_x  goal_y  optimal_length
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lib/common/result.h"

namespace nav::importer {

struct Scenario {
    uint32_t bucket = 0;
    std::string map;  // map file name as written in the scenario
    uint32_t map_width = 0, map_height = 0;
    uint32_t start_x = 0, start_y = 0, goal_x = 0, goal_y = 0;
    double optimal_length = 0;
    uint32_t line = 0;  // 1-based line in the file
};

Result<std::vector<Scenario>> parseScenarios(std::string_view text, const std::string& source_name);
Result<std::vector<Scenario>> loadScenarios(const std::filesystem::path& path);

}  // namespace nav::importer
