// Links as a level describes them, before any graph exists: a directed connection (drop, jump,
// climb, ladder, door, teleport, or a type the level names) between two points of the walkable
// surface, or between two parallel segments (a wide link: a ledge one can drop from anywhere along
// its width). They come from a level config ("links"), a links file (`navbake graph --links`),
// scene objects matched by tag rules (the importer, stored in .geo and .vox), or are generated
// from an agent's abilities (lib/graph). The graph stage resolves them to nodes (graph/links.h).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"

namespace nav::geometry {

inline constexpr Choice<formats::LinkType> kLinkTypes[] = {
    {"drop", formats::LinkType::drop},    {"jump", formats::LinkType::jump},
    {"climb", formats::LinkType::climb},  {"ladder", formats::LinkType::ladder},
    {"door", formats::LinkType::door},    {"teleport", formats::LinkType::teleport},
    {"custom", formats::LinkType::custom}};

// A link type a level declares ("link_types": [{"name": "zipline", "cost_factor": 1.2}]), named
// like the built-in ones: 1-31 characters a-z, 0-9, '_', '-'.
struct LinkTypeDef {
    std::string name;
    float cost_factor = 1.0f;  // default cost = factor x the link's length [m of walking]
    bool operator==(const LinkTypeDef&) const = default;
};

// Ids a level's links get when they name none: config and links-file links their position in the
// list (1, 2, ...; explicit ids must stay below kSceneLinkIdFirst), scene-object links a hash of
// the object's name in [kSceneLinkIdFirst, kGeneratedLinkIdFirst), generated links
// kGeneratedLinkIdFirst + their index in the generator's (deterministic) order.
inline constexpr uint32_t kSceneLinkIdFirst = 0x40000000u;
inline constexpr uint32_t kGeneratedLinkIdFirst = 0x80000000u;
inline constexpr float kSnapAuto = -1.0f;

struct LinkSpec {
    std::string name;           // how errors name it: "links.json: $.links[2]", "object 'ladder_1'"
    float from[3] = {0, 0, 0};  // [m] a point on the walkable surface where the link starts
    float to[3] = {0, 0, 0};    // [m] where it ends
    formats::LinkType type = formats::LinkType::custom;  // built-in type (custom for user types)
    std::string user_type;     // a declared user type's name ("zipline"); empty for built-in types
    float type_factor = 1.0f;  // user types: the declared cost_factor
    bool bidirectional = false;
    // [m] 0: a point link. > 0: a wide link, `from` and `to` the centres of two parallel segments
    // of this length across the horizontal direction from -> to; it becomes one lane per cell.
    float width = 0;
    float cost = 0;                   // from -> to; 0 = the type's default (graph::linkDefaultCost)
    float reverse_cost = 0;           // to -> from (bidirectional); 0 = the default of the way back
    uint32_t id = 0;                  // 0 = assigned (see kSceneLinkIdFirst)
    uint32_t user_data = 0;           // handed back to the game with the path
    std::vector<std::string> agents;  // agent profiles it applies to (names); empty = all
    bool generated = false;           // made by the generator (flag kLinkFlagGenerated)
    bool scene = false;               // from a scene object (tag rules), carried by .geo/.vox
    // [m] how far horizontally an end may lie from the walkable surface and still be moved onto
    // it: 0 for points a designer typed (they must lie on a walkable cell); kSnapAuto (scene
    // objects: ladder and door boxes, link lines) the agent's radius plus two cells, as the
    // surface is eroded by the radius away from walls and ledges.
    float snap = 0;
    // Set by a build for links several agents share: an agent whose surface misses an end reports
    // the link as unusable for it (a warning) instead of failing; the build fails only when no
    // agent can use it.
    bool shared = false;

    bool operator==(const LinkSpec&) const = default;
};

// The links of `links` that apply to agent `agent` (those listing it, or listing no agent).
std::vector<LinkSpec> linksForAgent(const std::vector<LinkSpec>& links, const std::string& agent);

// Reads a JSON array of user link types at `path` ("$.link_types"): each {"name", "cost_factor"}.
Status parseLinkTypes(const nlohmann::json& array, const std::string& path,
                      const std::filesystem::path& file, std::vector<LinkTypeDef>& out);
// Reads a JSON array of links at `path` ("$.links") of `file`: each {"from": [x, y, z],
// "to": [x, y, z], "type", "bidirectional", "width", "cost", "reverse_cost", "id", "user_data",
// "agents"}; only from and to are required. A type is a built-in name or one of `types`. Errors
// name the file and JSON path.
Status parseLinks(const nlohmann::json& array, const std::string& path,
                  const std::filesystem::path& file, const std::vector<LinkTypeDef>& types,
                  std::vector<LinkSpec>& out);
// A links file: {"link_types": [...], "links": [...]} (link_types optional).
struct LinksFile {
    std::vector<LinkTypeDef> types;
    std::vector<LinkSpec> links;
};
Result<LinksFile> loadLinksFile(const std::filesystem::path& file);

// The type a link names: a built-in name, or one of `types` (then type = custom, user_type and
// type_factor set). False when `word` is neither.
bool resolveLinkType(const std::string& word, const std::vector<LinkTypeDef>& types,
                     LinkSpec& link);
// "drop", or the user type's name.
std::string linkTypeWord(const LinkSpec& link);
// How many links of each type word (sorted by word), and the same as text: "1 door, 2 ladder".
std::map<std::string, uint64_t> linksByType(const std::vector<LinkSpec>& links);
std::string linksByTypeText(const std::vector<LinkSpec>& links);
// "'x' is not a link type (drop, jump, ..., or one of the level's link_types: a, b)".
std::string notALinkType(const std::string& word, const std::vector<LinkTypeDef>& types);

// Every bad field of the specs (finite ends, costs >= 0, width >= 0 and, when > 0, ends apart
// horizontally), named by each link's name; and of the user types (names, factors > 0).
void checkLinkSpecs(const std::vector<LinkSpec>& links, ParamCheck& check);
void checkLinkTypes(const std::vector<LinkTypeDef>& types, ParamCheck& check);
// The cache-key lines of a list of links.
void describeLinks(const std::vector<LinkSpec>& links, StageKey& key);

// Link specs in an artifact (scene-object links in .geo and .vox): SLNK (64-byte records) and
// SLNM (their names and user types, UTF-8, back to back), FORMAT.md §4.4. Bake side only.
void encodeLinkSpecs(const std::vector<LinkSpec>& links, std::vector<uint8_t>& records,
                     std::vector<uint8_t>& names);
Result<std::vector<LinkSpec>> decodeLinkSpecs(const std::vector<uint8_t>& records,
                                              const std::vector<uint8_t>& names,
                                              const std::filesystem::path& file);

}  // namespace nav::geometry
