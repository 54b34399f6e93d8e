// Point-of-interest tables: per node, the cost to the nearest point of interest of each kind and
// the next node towards it, so a character asks one table ("distance to ... the nearest
// health-pack", as John Fine puts it in the tactical-analysis material Millington & Funge draw
// on) instead of searching. One Dijkstra (1959) per kind from all its points at once over the
// reversed edges gives every node's distance and, by the edge that settled it, the first step of
// a cheapest path: exact on directed graphs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "lib/graph/graph.h"

namespace nav::graph {

formats::MeshArrays meshArraysOf(const Graph& g) {
    formats::MeshArrays mesh;
    const navmesh::NavMesh& m = g.mesh;
    mesh.vertices = m.vertices.data();
    mesh.poly_offsets = m.poly_offsets.data();
    mesh.poly_vertices = m.poly_vertices.data();
    mesh.detail_offsets = m.detail_offsets.data();
    mesh.detail_triangles = m.detail_triangles.data();
    mesh.index = g.mesh_index;
    mesh.index_offsets = g.index_offsets.data();
    mesh.index_polys = g.index_polys.data();
    return mesh;
}

void buildPoiTables(Graph& g, const std::vector<std::pair<std::string, uint32_t>>& targets) {
    g.poi_kinds.clear();
    for (const auto& [kind, node] : targets)
        if (std::find(g.poi_kinds.begin(), g.poi_kinds.end(), kind) == g.poi_kinds.end())
            g.poi_kinds.push_back(kind);
    const size_t n = g.nodeCount();
    const size_t k = g.poi_kinds.size();
    g.poi_distances.assign(k * n, std::numeric_limits<float>::infinity());
    g.poi_next.assign(k * n, kNoNode);
    // The reversed edges: for each node v, the edges u -> v.
    std::vector<uint32_t> in_offsets(n + 1, 0), in_edges(g.edgeCount());
    for (uint32_t t : g.edge_targets) ++in_offsets[t + 1];
    for (size_t v = 0; v < n; ++v) in_offsets[v + 1] += in_offsets[v];
    std::vector<uint32_t> sources(g.edgeCount());
    {
        std::vector<uint32_t> fill(in_offsets.begin(), in_offsets.end() - 1);
        for (uint32_t u = 0; u < n; ++u)
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t at = fill[g.edge_targets[e]]++;
                in_edges[at] = e;
                sources[at] = u;
            }
    }
    std::vector<double> distance(n);
    using Item = std::pair<double, uint32_t>;
    for (size_t kind = 0; kind < k; ++kind) {
        std::fill(distance.begin(), distance.end(), std::numeric_limits<double>::infinity());
        std::vector<uint32_t> next(n, kNoNode);
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
        for (const auto& [name, node] : targets)
            if (name == g.poi_kinds[kind] && node < n && distance[node] != 0) {
                distance[node] = 0;
                queue.push({0.0, node});
            }
        while (!queue.empty()) {
            const auto [d, v] = queue.top();
            queue.pop();
            if (d > distance[v]) continue;
            for (uint32_t i = in_offsets[v]; i < in_offsets[v + 1]; ++i) {
                const uint32_t u = sources[i];
                const double du = d + double(g.edge_costs[in_edges[i]]);
                if (du < distance[u] ||
                    (du == distance[u] && next[u] != kNoNode && v < next[u] && distance[u] != 0)) {
                    if (du < distance[u]) queue.push({du, u});
                    distance[u] = du;
                    next[u] = v;
                }
            }
        }
        for (size_t v = 0; v < n; ++v) {
            g.poi_distances[kind * n + v] = float(distance[v]);
            g.poi_next[kind * n + v] = distance[v] == 0 ? kNoNode : next[v];
        }
    }
}

}  // namespace nav::graph
