// Links as graph edges: a link is a directed connection between two nodes beyond the walkable
// surface's own edges (Millington & Funge, "Artificial Intelligence for Games", 2nd ed., §4.1.3:
// directed, weighted graphs, where a character "can easily drop from A to B but will not be able to
// jump back up", and two connections may join the same pair of nodes).
#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "lib/common/csr.h"
#include "lib/common/file_io.h"
#include "lib/common/json_reader.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"

namespace nav::graph {

Status addLinks(Graph& g, std::vector<formats::LinkRecord> links) {
    if (g.header.flags & formats::kGraphFlagImplicitVolume)
        return inputError("links need a graph with explicit edges; volume graphs have none");
    if (!g.links.empty()) return inputError("the graph already has {} links", g.links.size());
    if (links.empty()) return {};
    std::sort(
        links.begin(), links.end(),
        [](const formats::LinkRecord& a, const formats::LinkRecord& b) { return a.id < b.id; });
    const size_t n = g.nodeCount();
    for (size_t i = 0; i < links.size(); ++i) {
        const formats::LinkRecord& l = links[i];
        if (i > 0 && links[i - 1].id == l.id) return inputError("link id {} is used twice", l.id);
        if (l.from_node >= n || l.to_node >= n)
            return inputError("link {}: an end names node {} of {}", l.id,
                              std::max(l.from_node, l.to_node), n);
        if (l.from_node == l.to_node)
            return inputError("link {}: both ends are on node {} (the link would go nowhere)", l.id,
                              l.from_node);
        // The record's own checks (type, flags, finite ends, costs), with the same text navrt
        // gives.
        uint8_t bytes[formats::kLinkRecordSize];
        formats::encodeLinkRecord(l, bytes);
        formats::LinkRecord check;
        if (formats::Error e = formats::decodeLinkRecord(bytes, sizeof(bytes), check))
            return inputError("{}", e.message);
    }
    // Per source node: its own edges, then its link edges in link-id order.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> extra(n);  // (link index, target)
    for (uint32_t i = 0; i < links.size(); ++i) {
        extra[links[i].from_node].push_back({i, links[i].to_node});
        if (links[i].flags & formats::kLinkFlagBidirectional)
            extra[links[i].to_node].push_back({i, links[i].from_node});
    }
    std::vector<uint32_t> offsets(n + 1, 0), targets, owners;
    std::vector<float> costs;
    const size_t total = g.edge_targets.size() + links.size() * 2;
    targets.reserve(total);
    costs.reserve(total);
    owners.reserve(total);
    for (size_t v = 0; v < n; ++v) {
        for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e) {
            targets.push_back(g.edge_targets[e]);
            costs.push_back(g.edge_costs[e]);
            owners.push_back(formats::kNoLink);
        }
        for (const auto& [index, target] : extra[v]) {
            const formats::LinkRecord& l = links[index];
            targets.push_back(target);
            costs.push_back(target == l.to_node ? l.cost : l.reverse_cost);
            owners.push_back(index);
        }
        offsets[v + 1] = uint32_t(targets.size());
    }
    g.edge_offsets = std::move(offsets);
    g.edge_targets = std::move(targets);
    g.edge_costs = std::move(costs);
    g.edge_links = std::move(owners);
    g.links = std::move(links);
    finalizeGraph(g);
    return {};
}

namespace {

float length(const float a[3], const float b[3]) {
    const double dx = double(a[0]) - b[0], dy = double(a[1]) - b[1], dz = double(a[2]) - b[2];
    return float(std::sqrt(dx * dx + dy * dy + dz * dz));
}

// A JSON [x, y, z] of finite numbers.
Status point(JsonReader& r, std::string_view key, float (&out)[3], bool required) {
    if (!r.has(key)) {
        if (required) return r.fail(r.at(key), "missing (expected [x, y, z] in metres)");
        return {};
    }
    const nlohmann::json& v = r.get(key);
    if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() ||
        !v[2].is_number())
        return r.typeError(r.at(key), "[x, y, z] (three numbers, metres)", v);
    for (int k = 0; k < 3; ++k) out[k] = v[size_t(k)].get<float>();
    return {};
}

}  // namespace

std::vector<LinkSpec> linksForAgent(const std::vector<LinkSpec>& links, const std::string& agent) {
    std::vector<LinkSpec> out;
    for (const LinkSpec& l : links)
        if (l.agents.empty() ||
            std::find(l.agents.begin(), l.agents.end(), agent) != l.agents.end())
            out.push_back(l);
    return out;
}

float linkDefaultCost(formats::LinkType type, const float from[3], const float to[3],
                      float floor_cost) {
    const float l = length(from, to);
    float cost = l;
    switch (type) {
        case formats::LinkType::jump: cost = 1.5f * l; break;
        case formats::LinkType::climb: cost = 2.0f * l; break;
        case formats::LinkType::ladder: cost = (to[1] > from[1] ? 2.0f : 1.5f) * l; break;
        case formats::LinkType::door: cost = l + 1.0f; break;
        case formats::LinkType::drop:
        case formats::LinkType::teleport:
        case formats::LinkType::custom: break;
    }
    // Never below what the heuristic assumes (the next float up, so rounding cannot undercut it).
    const float floor_up = std::nextafter(floor_cost, std::numeric_limits<float>::infinity());
    return std::max({cost, floor_up, std::numeric_limits<float>::min()});
}

Status parseLinks(const nlohmann::json& array, const std::string& path,
                  const std::filesystem::path& file, std::vector<LinkSpec>& out) {
    JsonReader top(array, path, file);
    if (!array.is_array()) return top.typeError(path, "an array of links", array);
    for (size_t i = 0; i < array.size(); ++i) {
        const std::string at = JsonReader::at(path, i);
        JsonReader r(array[i], at, file);
        if (Status s = r.expectObject(); !s) return s;
        LinkSpec spec;
        spec.name = file.empty() ? at : fmt::format("{}: {}", file.filename().string(), at);
        if (Status s = point(r, "from", spec.from, true); !s) return s;
        if (Status s = point(r, "to", spec.to, true); !s) return s;
        if (Status s = r.choice<formats::LinkType>("type", kLinkTypes, spec.type); !s) return s;
        if (Status s = r.boolean("bidirectional", spec.bidirectional); !s) return s;
        if (Status s = r.number("cost", spec.cost); !s) return s;
        if (Status s = r.number("reverse_cost", spec.reverse_cost); !s) return s;
        if (Status s = r.integer("id", spec.id); !s) return s;
        if (Status s = r.integer("user_data", spec.user_data); !s) return s;
        if (r.has("agents")) {
            const nlohmann::json& agents = r.get("agents");
            if (!agents.is_array())
                return r.typeError(r.at("agents"), "an array of agent names", agents);
            for (size_t k = 0; k < agents.size(); ++k) {
                if (!agents[k].is_string())
                    return r.typeError(JsonReader::at(r.at("agents"), k), "an agent name",
                                       agents[k]);
                spec.agents.push_back(agents[k].get<std::string>());
            }
        }
        if (Status s = r.finish({"from", "to", "type", "bidirectional", "cost", "reverse_cost",
                                 "id", "user_data", "agents"});
            !s)
            return s;
        out.push_back(spec);
    }
    return {};
}

Result<std::vector<LinkSpec>> loadLinksFile(const std::filesystem::path& file) {
    auto text = readTextFile(file);
    if (!text) return text.error();
    auto document = parseJson(*text, file);
    if (!document) return document.error();
    JsonReader r(*document, "$", file);
    if (Status s = r.expectObject(); !s) return s.error();
    std::vector<LinkSpec> links;
    if (!r.has("links")) return r.fail("$.links", "missing (expected an array of links)").error();
    if (Status s = parseLinks(r.get("links"), "$.links", file, links); !s) return s.error();
    if (Status s = r.finish({"$schema", "links"}); !s) return s.error();
    return links;
}

void checkLinkSpecs(const std::vector<LinkSpec>& links, ParamCheck& check) {
    for (const LinkSpec& l : links) {
        for (int k = 0; k < 3; ++k) {
            check.require(std::isfinite(l.from[k]), l.name + ".from", fmt::format("{}", l.from[k]),
                          "finite");
            check.require(std::isfinite(l.to[k]), l.name + ".to", fmt::format("{}", l.to[k]),
                          "finite");
        }
        check.nonNegative(l.name + ".cost", l.cost);
        check.nonNegative(l.name + ".reverse_cost", l.reverse_cost);
        check.require(l.bidirectional || l.reverse_cost == 0, l.name + ".reverse_cost",
                      fmt::format("{}", l.reverse_cost), "only with \"bidirectional\": true");
    }
}

Result<std::vector<formats::LinkRecord>> resolveLinks(const Graph& g,
                                                      const std::vector<LinkSpec>& links,
                                                      float vertical) {
    if (links.empty()) return std::vector<formats::LinkRecord>{};
    if (g.header.type != GraphType::tile || g.cells.empty())
        return inputError("links are supported on tile graphs only for now ({} given)",
                          links.front().name);
    const formats::GraphHeader& h = g.header;
    const float half = 0.5f * h.cell_size + 1e-4f;
    auto resolve = [&](const LinkSpec& l, const float(&p)[3], const char* end) -> Result<uint32_t> {
        uint32_t best = kNoNode, nearest = kNoNode;
        float best_dy = std::numeric_limits<float>::infinity();
        float nearest_d = std::numeric_limits<float>::infinity();
        for (uint32_t v = 0; v < g.nodeCount(); ++v) {
            const float* q = &g.positions[3 * size_t(v)];
            const float d = length(p, q);
            if (d < nearest_d) nearest_d = d, nearest = v;
            const float dy = std::fabs(p[1] - q[1]);
            if (std::fabs(p[0] - q[0]) <= half && std::fabs(p[2] - q[2]) <= half &&
                dy <= vertical && dy < best_dy)
                best_dy = dy, best = v;
        }
        if (best != kNoNode) return best;
        if (nearest == kNoNode) return inputError("{}: the graph has no nodes", l.name);
        const float* q = &g.positions[3 * size_t(nearest)];
        return inputError(
            "{}: its {} ({}, {}, {}) is not on the walkable surface (no walkable cell under it "
            "within {} m); the nearest is {:.2f} m away at ({}, {}, {})",
            l.name, end, p[0], p[1], p[2], vertical, nearest_d, q[0], q[1], q[2]);
    };
    std::vector<formats::LinkRecord> out;
    for (size_t i = 0; i < links.size(); ++i) {
        const LinkSpec& l = links[i];
        auto from = resolve(l, l.from, "start");
        if (!from) return from.error();
        auto to = resolve(l, l.to, "end");
        if (!to) return to.error();
        if (*from == *to)
            return inputError("{}: both ends are on the same cell (node {}); a link joins two",
                              l.name, *from);
        formats::LinkRecord r;
        r.id = l.id != 0 ? l.id : uint32_t(i + 1);
        r.user_data = l.user_data;
        r.from_node = *from;
        r.to_node = *to;
        std::copy(l.from, l.from + 3, r.from);
        std::copy(l.to, l.to + 3, r.to);
        r.type = l.type;
        r.flags = l.bidirectional ? formats::kLinkFlagBidirectional : 0;
        const float* pf = &g.positions[3 * size_t(*from)];
        const float* pt = &g.positions[3 * size_t(*to)];
        const float floor = float(formats::heuristicDistance(h, true, g.cells[*from].column,
                                                             g.cells[*to].column, pf, pt) *
                                  double(h.min_cost_multiplier));
        r.cost = l.cost > 0 ? l.cost : linkDefaultCost(l.type, l.from, l.to, floor);
        if (l.bidirectional)
            r.reverse_cost =
                l.reverse_cost > 0 ? l.reverse_cost : linkDefaultCost(l.type, l.to, l.from, floor);
        for (float c : {r.cost, r.reverse_cost})
            if (c > 0 && c < floor)
                return inputError(
                    "{}: cost {} is below {:.4g}, the distance between its ends that A*'s "
                    "heuristic assumes no path beats (shortcuts such as teleports are not "
                    "supported yet)",
                    l.name, c, floor);
        out.push_back(r);
    }
    return out;
}

std::vector<uint32_t> stronglyConnected(const Graph& g) {
    const uint32_t n = uint32_t(g.nodeCount());
    // 1. Finish order of an iterative depth-first search on the forward edges.
    std::vector<uint32_t> order;
    order.reserve(n);
    std::vector<uint8_t> seen(n, 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next edge)
    for (uint32_t s = 0; s < n; ++s) {
        if (seen[s]) continue;
        seen[s] = 1;
        stack.push_back({s, g.edge_offsets[s]});
        while (!stack.empty()) {
            auto& [u, e] = stack.back();
            if (e < g.edge_offsets[u + 1]) {
                const uint32_t v = g.edge_targets[e++];
                if (!seen[v]) {
                    seen[v] = 1;
                    stack.push_back({v, g.edge_offsets[v]});
                }
            } else {
                order.push_back(u);
                stack.pop_back();
            }
        }
    }
    // 2. Search the reversed edges in reverse finish order: each search is one component.
    const CsrEdges<float> reverse =
        reverseEdges<float>(g.edge_offsets, g.edge_targets, g.edge_costs);
    std::vector<uint32_t> label(n, kNoNode);
    std::vector<uint32_t> todo;
    uint32_t count = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (label[*it] != kNoNode) continue;
        label[*it] = count;
        todo.push_back(*it);
        while (!todo.empty()) {
            const uint32_t u = todo.back();
            todo.pop_back();
            for (uint32_t e = reverse.offsets[u]; e < reverse.offsets[u + 1]; ++e)
                if (label[reverse.targets[e]] == kNoNode) {
                    label[reverse.targets[e]] = count;
                    todo.push_back(reverse.targets[e]);
                }
        }
        ++count;
    }
    // Renumber by each component's lowest node.
    std::vector<uint32_t> renumber(count, kNoNode);
    uint32_t next = 0;
    for (uint32_t v = 0; v < n; ++v) {
        if (renumber[label[v]] == kNoNode) renumber[label[v]] = next++;
        label[v] = renumber[label[v]];
    }
    return label;
}

}  // namespace nav::graph
