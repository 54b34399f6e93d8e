#include <charconv>

#include "lib/common/file_io.h"
#include "lib/common/text.h"
#include "lib/importer/import.h"

namespace nav::importer {

size_t GridMap::passableCount() const {
    size_t count = 0;
    for (uint8_t p : passable) count += p;
    return count;
}

namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    LineReader reader(text);
    for (std::string_view line; reader.next(line);) lines.push_back(line);
    return lines;
}

bool parseDimension(std::string_view digits, uint32_t& out) {
    while (!digits.empty() && digits.front() == ' ') digits.remove_prefix(1);
    while (!digits.empty() && digits.back() == ' ') digits.remove_suffix(1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && end == digits.data() + digits.size();
}

}  // namespace

Result<GridMap> parseMovingAiMap(std::string_view text, const std::string& source) {
    const std::vector<std::string_view> lines = splitLines(text);
    GridMap map;
    bool have_type = false, have_width = false, have_height = false;
    size_t line_index = 0;
    for (;; ++line_index) {
        if (line_index >= lines.size())
            return inputError(
                "{}: line {}: header ended before the 'map' line (expected 'type "
                "octile', 'height H', 'width W', 'map')",
                source, line_index + 1);
        const std::string_view line = lines[line_index];
        const size_t n = line_index + 1;
        if (line == "map") break;
        const size_t space = line.find(' ');
        const std::string_view key = line.substr(0, space);
        const std::string_view value =
            space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
        if (key == "type") {
            if (value != "octile")
                return inputError("{}: line {}: map type '{}' is not supported (expected 'octile')",
                                  source, n, value);
            have_type = true;
        } else if (key == "height" || key == "width") {
            uint32_t v = 0;
            if (!parseDimension(value, v) || v == 0 || v > 65536)
                return inputError("{}: line {}: '{}' needs a whole number in 1..65536, got '{}'",
                                  source, n, key, value);
            (key == "height" ? map.height : map.width) = v;
            (key == "height" ? have_height : have_width) = true;
        } else {
            return inputError(
                "{}: line {}: unexpected header line '{}' (expected 'type octile', "
                "'height H', 'width W' or 'map')",
                source, n, line.substr(0, 60));
        }
    }
    if (!have_type || !have_width || !have_height)
        return inputError("{}: line {}: 'map' reached but the header lacks {}", source,
                          line_index + 1,
                          !have_type     ? "'type octile'"
                          : !have_height ? "'height'"
                                         : "'width'");

    map.passable.assign(size_t(map.width) * map.height, 0);
    const size_t first_row = line_index + 1;
    for (uint32_t y = 0; y < map.height; ++y) {
        const size_t index = first_row + y;
        if (index >= lines.size())
            return inputError("{}: line {}: file ends after {} of {} map rows", source, index + 1,
                              y, map.height);
        const std::string_view row = lines[index];
        if (row.size() != map.width)
            return inputError("{}: line {}: map row {} has {} characters, expected {}", source,
                              index + 1, y, row.size(), map.width);
        for (uint32_t x = 0; x < map.width; ++x) {
            const char c = row[x];
            if (c == '.' || c == 'G' || c == 'S') {
                map.passable[size_t(y) * map.width + x] = 1;
            } else if (c != '@' && c != 'O' && c != 'T' && c != 'W') {
                return inputError(
                    "{}: line {}, column {}: unknown map character '{}' (expected "
                    "one of . G S @ O T W)",
                    source, index + 1, x + 1,
                    (c >= 0x20 && c < 0x7F) ? std::string(1, c)
                                            : fmt::format("\\x{:02x}", uint8_t(c)));
            }
        }
    }
    for (size_t index = first_row + map.height; index < lines.size(); ++index)
        if (!lines[index].empty())
            return inputError("{}: line {}: unexpected content after the {} map rows", source,
                              index + 1, map.height);
    return map;
}

Result<GridMap> loadMovingAiMap(const std::filesystem::path& path) {
    return parseTextFile(path, parseMovingAiMap);
}

voxel::VoxelGrid gridFromMap(const GridMap& map) {
    voxel::VoxelGrid grid;
    grid.size_x = map.width;
    grid.size_z = map.height;
    grid.size_y = 4;
    grid.source = formats::VoxelSource::grid_map;
    grid.origin[0] = 0.0f;
    grid.origin[1] = -1.0f;  // floor spans are [0, 1), so their top is at Y = 0
    grid.origin[2] = 0.0f;
    grid.cell_size = 1.0f;
    grid.cell_height = 1.0f;
    grid.agent = voxel::AgentParams{1.0f, 0.0f, 0.0f, 45.0f};
    grid.column_offsets.reserve(grid.columnCount() + 1);
    grid.spans.reserve(grid.columnCount());
    for (uint32_t y = 0; y < map.height; ++y) {
        for (uint32_t x = 0; x < map.width; ++x) {
            grid.column_offsets.push_back(uint32_t(grid.spans.size()));
            if (map.isPassable(x, y))
                grid.spans.push_back({0, 1, geometry::kGroundArea, true});
            else
                grid.spans.push_back({0, 4, geometry::kObstacleArea, false});
        }
    }
    grid.column_offsets.push_back(uint32_t(grid.spans.size()));
    return grid;
}

}  // namespace nav::importer
