// Stage 1: import. Reads level geometry in any format Assimp reads into a flat, tagged triangle
// soup (geo::Geometry), and MovingAI grid maps into a plain GridMap.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "../common/context.h"
#include "../common/result.h"
#include "../geometry/geometry.h"

namespace nav::importer {

// ---- Tag rules --------------------------------------------------------------------------------
// A rule matches a glob pattern (`*` any run, `?` one character, case-insensitive) against an
// object's name (node or mesh name), its material's name, or either. The first rule that matches
// decides the triangle's tag: "ignore" (dropped), "obstacle" (solid, never walkable) or the name
// of an area type. Triangles no rule matches are "ground".
enum class MatchTarget { object, material, any };

struct TagRule {
    std::string pattern;
    MatchTarget target = MatchTarget::any;
    std::string tag;
};

struct TagConfig {
    std::vector<geo::AreaType> areas;  // area table; [0] obstacle, [1] ground, then the rest
    std::vector<TagRule> rules;        // tried in order
};

inline constexpr std::string_view kTagIgnore = "ignore";
inline constexpr std::string_view kTagObstacle = "obstacle";

// Built-in rules and areas (see README, "Tag rules").
TagConfig defaultTagConfig();

// Reads a tags JSON file. Its rules come before the built-in ones (unless "use_defaults" is
// false), its areas are added to (or override the cost of) the built-in ones. Unknown keys,
// wrong types and unknown tags are errors naming the file and the JSON path.
Result<TagConfig> loadTagConfig(const std::filesystem::path& path);
Result<TagConfig> parseTagConfig(std::string_view json_text, const std::string& source_name);

// Returns the area id for a triangle of this object/material, or -1 for "ignore".
int resolveTag(const TagConfig& config, std::string_view object_name, std::string_view mesh_name,
               std::string_view material_name);

bool globMatch(std::string_view pattern, std::string_view text);

// ---- Scene import -----------------------------------------------------------------------------
enum class UpAxis { y, z };

struct ImportParams {
    UpAxis up = UpAxis::y;  // source file's up axis; Z-up files are rotated to Y-up
    float scale = 1.0f;     // multiplies every coordinate (e.g. 0.01 for centimetre files)
    TagConfig tags = defaultTagConfig();
};

// Loads the file with Assimp, flattens the node hierarchy with its transforms, triangulates,
// merges coincident vertices, drops degenerate triangles (counted) and applies tag rules.
// Errors: unreadable file or format, empty scene, non-finite vertex (names mesh and node).
Result<geo::Geometry> importScene(const std::filesystem::path& path, const ImportParams& params,
                                  Context& context);

// ---- MovingAI grid maps ------------------------------------------------------------------------
// https://movingai.com/benchmarks/formats.html: "type octile", "height H", "width W", "map",
// then H rows of W characters. '.', 'G', 'S' are passable; '@', 'O', 'T', 'W' are blocked.
struct GridMap {
    uint32_t width = 0;
    uint32_t height = 0;
    std::vector<uint8_t> passable;  // width * height, row-major (index y * width + x)

    bool isPassable(uint32_t x, uint32_t y) const { return passable[size_t(y) * width + x] != 0; }
    size_t passableCount() const;
};

Result<GridMap> parseMovingAiMap(std::string_view text, const std::string& source_name);
Result<GridMap> loadMovingAiMap(const std::filesystem::path& path);

}  // namespace nav::importer
