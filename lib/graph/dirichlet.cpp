// Dirichlet domains (Millington & Funge, "AI for Games", 3rd ed., §4.4.2: "the most common
// manual world representation"): a designer places waypoints (characteristic points); each
// owns the region of the walkable surface nearer to it than to any other, and regions that touch
// are connected. Nearness is walking distance over the tile graph (so a region never leaks
// through a wall into the next room, which a straight-line Voronoi diagram would do), less the
// waypoint's weight: an additively weighted geodesic Voronoi diagram (Aurenhammer, "Voronoi
// diagrams — a survey of a fundamental geometric data structure", ACM Computing Surveys 23(3),
// 1991, §4.1 on additive weights). Additive weights keep every region connected and star-shaped
// along shortest paths, so one multi-source Dijkstra computes the diagram exactly (ties to the
// lower waypoint index); multiplicative weights would need one search per waypoint.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>
#include <tuple>

#include "lib/graph/dirichlet.h"
#include "lib/graph/graph.h"

namespace nav::graph {

namespace {

struct Label {
    double distance;
    uint32_t owner;
    uint32_t node;
    bool operator>(const Label& o) const {
        return std::tie(distance, owner, node) > std::tie(o.distance, o.owner, o.node);
    }
};
using MinQueue = std::priority_queue<Label, std::vector<Label>, std::greater<>>;

// The cost of the cheapest path from `from` to `to` over nodes whose owner is a or b (+inf if
// none).
double costWithin(const Graph& tile, const std::vector<uint32_t>& owners, uint32_t a, uint32_t b,
                  uint32_t from, uint32_t to, std::vector<double>& distance,
                  std::vector<uint32_t>& touched) {
    for (uint32_t n : touched) distance[n] = std::numeric_limits<double>::infinity();
    touched.clear();
    MinQueue queue;
    distance[from] = 0;
    touched.push_back(from);
    queue.push({0, 0, from});
    while (!queue.empty()) {
        const Label top = queue.top();
        queue.pop();
        if (top.distance > distance[top.node]) continue;
        if (top.node == to) return top.distance;
        for (uint32_t e = tile.edge_offsets[top.node]; e < tile.edge_offsets[top.node + 1]; ++e) {
            const uint32_t v = tile.edge_targets[e];
            if (owners[v] != a && owners[v] != b) continue;
            const double d = top.distance + double(tile.edge_costs[e]);
            if (d < distance[v]) {
                if (std::isinf(distance[v])) touched.push_back(v);
                distance[v] = d;
                queue.push({d, 0, v});
            }
        }
    }
    return std::numeric_limits<double>::infinity();
}

}  // namespace

std::vector<uint32_t> dirichletOwners(const Graph& tile, const std::vector<uint32_t>& sources,
                                      const std::vector<float>& weights) {
    const size_t n = tile.nodeCount();
    std::vector<uint32_t> owners(n, kNoNode);
    std::vector<double> best(n, std::numeric_limits<double>::infinity());
    std::vector<uint32_t> best_owner(n, kNoNode);
    float top = 0;
    for (float w : weights) top = std::max(top, w);
    MinQueue queue;
    for (uint32_t i = 0; i < sources.size(); ++i) {
        const double start = double(top) - double(weights[i]);  // >= 0: a head start of w
        const uint32_t s = sources[i];
        if (start < best[s] || (start == best[s] && i < best_owner[s])) {
            best[s] = start;
            best_owner[s] = i;
            queue.push({start, i, s});
        }
    }
    while (!queue.empty()) {
        const Label l = queue.top();
        queue.pop();
        if (owners[l.node] != kNoNode || l.owner != best_owner[l.node] ||
            l.distance != best[l.node])
            continue;
        owners[l.node] = l.owner;
        for (uint32_t e = tile.edge_offsets[l.node]; e < tile.edge_offsets[l.node + 1]; ++e) {
            const uint32_t v = tile.edge_targets[e];
            if (owners[v] != kNoNode) continue;
            const double d = l.distance + double(tile.edge_costs[e]);
            if (d < best[v] || (d == best[v] && l.owner < best_owner[v])) {
                best[v] = d;
                best_owner[v] = l.owner;
                queue.push({d, l.owner, v});
            }
        }
    }
    return owners;
}

Result<Graph> buildDirichletGraph(const Graph& tile, const voxel::VoxelGrid& grid,
                                  const std::vector<Waypoint>& waypoints, Context& context,
                                  DirichletReport* report) {
    ScopedTimer timer(context, "graph: Dirichlet domains");
    if (tile.header.type != GraphType::tile)
        return makeError(ErrorKind::internal, "Dirichlet domains need a tile graph");
    if (waypoints.empty())
        return makeError(ErrorKind::usage,
                         "a Dirichlet graph needs waypoints (config \"waypoints\", graph "
                         "--waypoint, or scene objects nav_waypoint*)");
    // Each waypoint on its cell: a waypoint in a wall, or two on one cell, is an error.
    std::vector<uint32_t> sources;
    std::vector<float> weights;
    for (const Waypoint& w : waypoints) {
        const uint32_t n = surfaceNode(tile, grid, w.position);
        const std::string what =
            fmt::format("{}waypoint '{}' at ({}, {}, {})", w.where.empty() ? "" : w.where + ": ",
                        w.name, w.position[0], w.position[1], w.position[2]);
        if (n == kNoNode)
            return inputError(
                "{} is not on this agent's walkable surface (in a wall, or off the "
                "level){}",
                what, nearestSurfaceText(tile, w.position));
        // Not over the cell it was given: in a wall, or in the agent's margin beside one.
        const float* q = &tile.positions[3 * size_t(n)];
        const double off = std::hypot(double(q[0]) - w.position[0], double(q[2]) - w.position[2]);
        const int64_t cx =
            int64_t(std::floor((double(w.position[0]) - grid.origin[0]) / grid.cell_size));
        const int64_t cz =
            int64_t(std::floor((double(w.position[2]) - grid.origin[2]) / grid.cell_size));
        if (report != nullptr && cz * int64_t(grid.size_x) + cx != int64_t(tile.cells[n].column))
            report->moved.push_back(fmt::format(
                "{} is not over a walkable cell (in a wall, or in the agent's margin beside one): "
                "moved {:.2f} m to the nearest one",
                what, off));
        const auto same = std::find(sources.begin(), sources.end(), n);
        if (same != sources.end())
            return inputError("{} stands on the cell of waypoint '{}': move one of them", what,
                              waypoints[size_t(same - sources.begin())].name);
        sources.push_back(n);
        weights.push_back(w.weight);
    }
    const std::vector<uint32_t> owners = dirichletOwners(tile, sources, weights);

    Graph g;
    g.header = tile.header;
    g.header.type = GraphType::dirichlet;
    g.header.heuristic = formats::HeuristicKind::euclidean;
    g.header.flags = 0;
    g.areas = tile.areas;
    g.source_name = tile.source_name;
    const uint32_t k = uint32_t(waypoints.size());
    for (uint32_t i = 0; i < k; ++i)
        g.positions.insert(g.positions.end(), tile.positions.begin() + 3 * ptrdiff_t(sources[i]),
                           tile.positions.begin() + 3 * ptrdiff_t(sources[i]) + 3);
    // The regions: the tile cells of every domain, by column (the tile graph's order).
    const uint64_t columns = uint64_t(grid.size_x) * grid.size_z;
    g.layer_columns.assign(columns + 1, 0);
    std::vector<uint64_t> cells_per(k, 0);
    for (uint32_t n = 0; n < tile.nodeCount(); ++n) {
        if (owners[n] == kNoNode) continue;
        g.layer_cells.push_back(tile.cells[n]);
        g.domain_owners.push_back(owners[n]);
        ++g.layer_columns[tile.cells[n].column + 1];
        ++cells_per[owners[n]];
    }
    for (uint64_t c = 0; c < columns; ++c) g.layer_columns[c + 1] += g.layer_columns[c];
    // Connections: domains with a tile edge (a step or a link) from one to the other, costed by
    // the cheapest path between their waypoints within the two domains.
    std::set<std::pair<uint32_t, uint32_t>> touching;
    for (uint32_t u = 0; u < tile.nodeCount(); ++u)
        for (uint32_t e = tile.edge_offsets[u]; e < tile.edge_offsets[u + 1]; ++e) {
            const uint32_t v = tile.edge_targets[e];
            if (owners[u] != kNoNode && owners[v] != kNoNode && owners[u] != owners[v])
                touching.insert({owners[u], owners[v]});
        }
    std::vector<double> distance(tile.nodeCount(), std::numeric_limits<double>::infinity());
    std::vector<uint32_t> touched;
    g.edge_offsets.assign(k + 1, 0);
    uint64_t dropped = 0;
    for (const auto& [a, b] : touching) {
        if (context.cancelled()) return makeError(ErrorKind::cancelled, "graph cancelled");
        const double cost =
            costWithin(tile, owners, a, b, sources[a], sources[b], distance, touched);
        if (!std::isfinite(cost)) {
            ++dropped;  // e.g. a one-way link into b whose foot cannot walk on to b's waypoint
            continue;
        }
        g.edge_targets.push_back(b);
        g.edge_costs.push_back(float(cost));
        ++g.edge_offsets[a + 1];
    }
    for (uint32_t i = 0; i < k; ++i) g.edge_offsets[i + 1] += g.edge_offsets[i];
    // The straight-line heuristic scaled so no connection beats it (a teleport between domains
    // would): s = min(cost / distance) keeps it admissible and consistent.
    double scale = g.header.min_cost_multiplier;
    for (uint32_t a = 0; a < k; ++a)
        for (uint32_t e = g.edge_offsets[a]; e < g.edge_offsets[a + 1]; ++e) {
            const double d = formats::heuristicDistance(g.header, false, 0, 0, &g.positions[3 * a],
                                                        &g.positions[3 * g.edge_targets[e]]);
            if (d > 0) scale = std::min(scale, double(g.edge_costs[e]) / d);
        }
    g.header.min_cost_multiplier = float(scale);
    finalizeGraph(g);
    if (report != nullptr) {
        report->cells_per_waypoint = cells_per;
        report->unassigned_cells = tile.nodeCount() - g.layer_cells.size();
        report->dropped_connections = dropped;
        report->nodes_of_waypoints = sources;
        report->owners = owners;
    }
    return g;
}

}  // namespace nav::graph
