// Authored links: what a level designer writes (config `links`, `navbake graph --links FILE`)
// before the ends are resolved to graph nodes and added as edges (graph::addLinks).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"

namespace nav::graph {

struct Graph;

inline constexpr Choice<formats::LinkType> kLinkTypes[] = {
    {"drop", formats::LinkType::drop},    {"jump", formats::LinkType::jump},
    {"climb", formats::LinkType::climb},  {"ladder", formats::LinkType::ladder},
    {"door", formats::LinkType::door},    {"teleport", formats::LinkType::teleport},
    {"custom", formats::LinkType::custom}};

struct LinkSpec {
    std::string name;           // how errors name it: "links.json: $.links[2]"
    float from[3] = {0, 0, 0};  // [m] a point on the walkable surface where the link starts
    float to[3] = {0, 0, 0};    // [m] where it ends
    formats::LinkType type = formats::LinkType::custom;
    bool bidirectional = false;
    float cost = 0;          // from -> to; 0 = linkDefaultCost
    float reverse_cost = 0;  // to -> from (bidirectional); 0 = linkDefaultCost of the way back
    uint32_t id = 0;         // 0 = its position in the list, counting from 1
    uint32_t user_data = 0;  // handed back to the game with the path
    std::vector<std::string> agents;  // agent profiles it applies to (names); empty = all
};

// The links of `links` that apply to agent `agent` (those listing it, or listing no agent).
std::vector<LinkSpec> linksForAgent(const std::vector<LinkSpec>& links, const std::string& agent);

// Default cost of a link from `from` to `to` [m of walking]: its straight length L times a factor
// per type (drop 1, jump 1.5, climb 2, ladder 2 going up and 1.5 going down, door L + 1,
// teleport and custom 1), never below `floor_cost` (the distance the search heuristic assumes no
// path beats, so A* stays optimal).
float linkDefaultCost(formats::LinkType type, const float from[3], const float to[3],
                      float floor_cost);

// Reads a JSON array of links at `path` ("$.links") of `file`: each {"from": [x, y, z],
// "to": [x, y, z], "type", "bidirectional", "cost", "reverse_cost", "id", "user_data", "agents"};
// only from and to are required. Errors name the file and JSON path.
Status parseLinks(const nlohmann::json& array, const std::string& path,
                  const std::filesystem::path& file, std::vector<LinkSpec>& out);
// A links file: {"links": [...]}.
Result<std::vector<LinkSpec>> loadLinksFile(const std::filesystem::path& file);

// Every bad field of the specs (finite ends, costs >= 0), named by each link's name.
void checkLinkSpecs(const std::vector<LinkSpec>& links, ParamCheck& check);

// Resolves each end to the tile-graph node whose cell holds it (within the cell horizontally,
// within `vertical` metres of its floor, the closest floor when several qualify), fills default
// costs and ids, and refuses a cost below the heuristic distance between the ends. Errors name the
// link and say how far the end is from the nearest node. Tile graphs only, for now.
Result<std::vector<formats::LinkRecord>> resolveLinks(const Graph& graph,
                                                      const std::vector<LinkSpec>& links,
                                                      float vertical = 1.0f);

}  // namespace nav::graph
