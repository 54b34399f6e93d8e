// MovingAI 3D voxel benchmarks (the Warframe set): `.3dmap` voxel maps and `.3dscen` scenarios.
#include <charconv>
#include <cmath>

#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/common/text.h"
#include "lib/importer/import.h"

namespace nav::importer {

size_t VoxelMap3D::blockedCount() const {
    size_t count = 0;
    for (uint8_t b : blocked) count += b;
    return count;
}

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
    return s;
}

// Splits on runs of spaces/tabs into at most `max` tokens; returns the number found, or max + 1
// when there are more.
size_t tokenize(std::string_view line, std::string_view* tokens, size_t max) {
    size_t count = 0;
    size_t i = 0;
    while (true) {
        while (i < line.size() && isBlank(line[i])) ++i;
        if (i >= line.size()) return count;
        size_t end = i;
        while (end < line.size() && !isBlank(line[end])) ++end;
        if (count == max) return max + 1;
        tokens[count++] = line.substr(i, end - i);
        i = end;
    }
}

bool parseU32(std::string_view token, uint32_t& out) {
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
    return ec == std::errc() && end == token.data() + token.size();
}

bool parseDouble(std::string_view token, double& out) {
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
    return ec == std::errc() && end == token.data() + token.size() && std::isfinite(out);
}

// A token quoted for an error message, shortened and with control bytes escaped.
std::string quoted(std::string_view token) {
    std::string out = "'";
    for (char c : token.substr(0, 40)) {
        if (c >= 0x20 && c < 0x7F)
            out += c;
        else
            out += fmt::format("\\x{:02x}", uint8_t(c));
    }
    if (token.size() > 40) out += "...";
    return out + "'";
}

const char* const kAxisNames[3] = {"x", "y", "z"};

}  // namespace

Result<VoxelMap3D> parseVoxelMap3D(std::string_view text, const std::string& source) {
    LineReader reader(text);
    std::string_view line;
    if (!reader.next(line))
        return inputError("{}: line 1: empty file (expected the header 'voxel W H D')", source);
    std::string_view tokens[4];
    if (tokenize(line, tokens, 4) != 4 || tokens[0] != "voxel")
        return inputError("{}: line 1: bad header {} (expected 'voxel W H D')", source,
                          quoted(trim(line)));
    uint32_t size[3] = {0, 0, 0};  // width (x), height (y), depth (z)
    for (int axis = 0; axis < 3; ++axis) {
        if (!parseU32(tokens[1 + axis], size[axis]) || size[axis] == 0)
            return inputError("{}: line 1: map size {} needs a whole number >= 1, got {}", source,
                              kAxisNames[axis], quoted(tokens[1 + axis]));
    }
    VoxelMap3D map;
    map.width = size[0];
    map.height = size[1];
    map.depth = size[2];
    const uint64_t columns = uint64_t(map.width) * map.depth;
    const uint64_t total = columns * map.height;
    if (map.height > formats::kMaxGridHeight || columns > formats::kMaxGridColumns ||
        total > kMaxVoxelMapVoxels)
        return inputError(
            "{}: line 1: map size {} x {} x {} is too large (at most {} voxels, "
            "height <= {}, width x depth <= {})",
            source, map.width, map.height, map.depth, kMaxVoxelMapVoxels, formats::kMaxGridHeight,
            formats::kMaxGridColumns);
    map.blocked.assign(size_t(total), 0);

    while (reader.next(line)) {
        const size_t n = reader.number();
        const size_t count = tokenize(line, tokens, 3);
        if (count == 0) continue;  // blank lines (typically trailing) carry nothing
        if (count != 3)
            return inputError("{}: line {}: expected a voxel 'x y z', got {}", source, n,
                              quoted(trim(line)));
        uint32_t v[3];
        for (int axis = 0; axis < 3; ++axis) {
            if (!parseU32(tokens[axis], v[axis]))
                return inputError("{}: line {}: voxel {} coordinate {} is not a whole number >= 0",
                                  source, n, kAxisNames[axis], quoted(tokens[axis]));
            if (v[axis] >= size[axis])
                return inputError("{}: line {}: voxel {} coordinate {} is out of range 0..{}",
                                  source, n, kAxisNames[axis], v[axis], size[axis] - 1);
        }
        map.blocked[(size_t(v[1]) * map.depth + v[2]) * map.width + v[0]] = 1;  // repeats are fine
    }
    return map;
}

Result<VoxelMap3D> loadVoxelMap3D(const std::filesystem::path& path) {
    return parseTextFile(path, parseVoxelMap3D);
}

Result<ScenarioFile3D> parseScenario3D(std::string_view text, const std::string& source) {
    LineReader reader(text);
    std::string_view line;
    std::string_view tokens[8];
    if (!reader.next(line) || tokenize(line, tokens, 2) != 2 || tokens[0] != "version" ||
        tokens[1] != "1")
        return inputError("{}: line 1: expected the header 'version 1', got {}", source,
                          quoted(trim(line)));
    if (!reader.next(line) || trim(line).empty())
        return inputError("{}: line 2: expected the map file name", source);
    ScenarioFile3D file;
    file.map_name = std::string(trim(line));

    while (reader.next(line)) {
        const size_t n = reader.number();
        const size_t count = tokenize(line, tokens, 8);
        if (count == 0) continue;
        if (count != 8)
            return inputError(
                "{}: line {}: expected 8 fields 'sx sy sz gx gy gz optimal_length "
                "ratio', got {}",
                source, n, count > 8 ? std::string("more") : std::to_string(count));
        Scenario3D entry;
        entry.line = uint32_t(n);
        for (int i = 0; i < 6; ++i) {
            uint32_t& out = i < 3 ? entry.start[i] : entry.goal[i - 3];
            if (!parseU32(tokens[i], out))
                return inputError("{}: line {}: {} {} coordinate {} is not a whole number >= 0",
                                  source, n, i < 3 ? "start" : "goal", kAxisNames[i % 3],
                                  quoted(tokens[i]));
        }
        if (!parseDouble(tokens[6], entry.optimal_length) || entry.optimal_length < 0)
            return inputError("{}: line {}: optimal length {} is not a finite number >= 0", source,
                              n, quoted(tokens[6]));
        if (!parseDouble(tokens[7], entry.ratio) || entry.ratio < 0)
            return inputError("{}: line {}: ratio {} is not a finite number >= 0", source, n,
                              quoted(tokens[7]));
        file.entries.push_back(entry);
    }
    return file;
}

Result<ScenarioFile3D> loadScenario3D(const std::filesystem::path& path) {
    return parseTextFile(path, parseScenario3D);
}

voxel::VoxelGrid gridFromVoxelMap(const VoxelMap3D& map) {
    voxel::VoxelGrid grid;
    grid.size_x = map.width;
    grid.size_z = map.depth;
    grid.size_y = map.height;
    grid.source = formats::VoxelSource::voxel_map;
    grid.cell_size = 1.0f;
    grid.cell_height = 1.0f;
    grid.agent = voxel::AgentParams{1.0f, 0.0f, 0.0f, 45.0f};
    grid.column_offsets.reserve(grid.columnCount() + 1);
    const size_t layer = size_t(map.width) * map.depth;  // voxels per Y layer
    for (uint32_t z = 0; z < map.depth; ++z) {
        for (uint32_t x = 0; x < map.width; ++x) {
            grid.column_offsets.push_back(uint32_t(grid.spans.size()));
            const uint8_t* cell = map.blocked.data() + size_t(z) * map.width + x;
            uint32_t y = 0;
            while (y < map.height) {
                if (!cell[y * layer]) {
                    ++y;
                    continue;
                }
                const uint32_t y_min = y;
                while (y < map.height && cell[y * layer]) ++y;
                grid.spans.push_back(
                    {uint16_t(y_min), uint16_t(y), geometry::kObstacleArea, false});
            }
        }
    }
    grid.column_offsets.push_back(uint32_t(grid.spans.size()));
    return grid;
}

}  // namespace nav::importer
