#include "lib/importer/scenario.h"

#include <charconv>
#include <cmath>

#include "lib/common/file_io.h"
#include "lib/common/text.h"

namespace nav::importer {
namespace {

std::vector<std::string_view> splitFields(std::string_view line) {
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == '\t' || line[i] == ' ')) ++i;
        const size_t start = i;
        while (i < line.size() && line[i] != '\t' && line[i] != ' ') ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

template <class T>
bool parseNumber(std::string_view text, T& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<std::vector<Scenario>> parseScenarios(std::string_view text, const std::string& source) {
    std::vector<Scenario> scenarios;
    bool have_version = false;
    LineReader reader(text);
    for (std::string_view line; reader.next(line);) {
        const uint32_t line_number = uint32_t(reader.number());
        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        const std::vector<std::string_view> fields = splitFields(line);
        if (!have_version) {
            if (fields.size() != 2 || fields[0] != "version")
                return inputError("{}: line {}: expected 'version 1' as the first line", source,
                                  line_number);
            double version = 0;
            if (!parseNumber(fields[1], version) || (version != 1.0 && version != 0.0))
                return inputError(
                    "{}: line {}: scenario version '{}' is not supported (expected 1)", source,
                    line_number, fields[1]);
            have_version = true;
            continue;
        }
        if (fields.size() != 9)
            return inputError(
                "{}: line {}: expected 9 fields (bucket map width height start_x "
                "start_y goal_x goal_y optimal_length), found {}",
                source, line_number, fields.size());
        Scenario s;
        s.map = std::string(fields[1]);
        s.line = line_number;
        uint32_t* integers[] = {&s.bucket,  &s.map_width, &s.map_height, &s.start_x,
                                &s.start_y, &s.goal_x,    &s.goal_y};
        const int integer_fields[] = {0, 2, 3, 4, 5, 6, 7};
        for (int k = 0; k < 7; ++k)
            if (!parseNumber(fields[size_t(integer_fields[k])], *integers[k]))
                return inputError("{}: line {}: field {} ('{}') is not a non-negative integer",
                                  source, line_number, integer_fields[k] + 1,
                                  fields[size_t(integer_fields[k])]);
        if (!parseNumber(fields[8], s.optimal_length) || !std::isfinite(s.optimal_length) ||
            s.optimal_length < 0)
            return inputError("{}: line {}: optimal length '{}' is not a non-negative number",
                              source, line_number, fields[8]);
        if (s.start_x >= s.map_width || s.goal_x >= s.map_width || s.start_y >= s.map_height ||
            s.goal_y >= s.map_height)
            return inputError("{}: line {}: start or goal lies outside the {} x {} map", source,
                              line_number, s.map_width, s.map_height);
        scenarios.push_back(std::move(s));
    }
    if (!have_version) return inputError("{}: empty scenario file (no 'version 1' line)", source);
    return scenarios;
}

Result<std::vector<Scenario>> loadScenarios(const std::filesystem::path& path) {
    return parseTextFile(path, parseScenarios);
}

}  // namespace nav::importer
