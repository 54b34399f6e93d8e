// Links as graph edges: a link is a directed connection between two nodes beyond the walkable
// surface's own edges (Millington & Funge, "Artificial Intelligence for Games", 2nd ed., §4.1.3:
// directed, weighted graphs, where a character "can easily drop from A to B but will not be able to
// jump back up", and two connections may join the same pair of nodes).
#include <algorithm>
#include <cmath>

#include "lib/graph/graph.h"

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

}  // namespace nav::graph
