#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/graph/graph.h"

namespace nav::graph {
namespace {

// Neighbour order is part of the output (edge order), so it is fixed: 4 cardinals, then the
// diagonals. A diagonal (dx, dz) needs the cardinals (dx, 0) and (0, dz).
constexpr int kDx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
constexpr int kDz[8] = {0, 0, 1, -1, 1, 1, -1, -1};

struct Floor {
    uint32_t node;
    int top;      // span top [cells]
    int ceiling;  // bottom of the next span above, or "infinite"
};

}  // namespace

Result<Graph> buildTileGraph(const voxel::VoxelGrid& grid, Context& context) {
    ScopedTimer timer(context, "graph tile");
    Graph g;
    g.header = headerForGrid(grid, GraphType::tile);
    formats::GraphHeader& h = g.header;
    h.heuristic = formats::HeuristicKind::octile;
    g.areas = grid.areas;
    g.source_name = grid.source_name;
    float min_cost = std::numeric_limits<float>::infinity();
    for (const geometry::AreaType& a : grid.areas)
        if (a.walkable) min_cost = std::min(min_cost, a.cost);
    h.min_cost_multiplier = std::isfinite(min_cost) ? std::min(min_cost, 1.0f) : 1.0f;

    // Nodes: walkable spans, column by column (z-major), bottom to top.
    const size_t columns = grid.columnCount();
    std::vector<Floor> floors;
    g.column_nodes.reserve(columns + 1);
    for (uint32_t z = 0; z < grid.size_z; ++z) {
        for (uint32_t x = 0; x < grid.size_x; ++x) {
            g.column_nodes.push_back(uint32_t(g.cells.size()));
            const auto spans = grid.column(x, z);
            for (size_t s = 0; s < spans.size(); ++s) {
                if (!spans[s].walkable) continue;
                const uint32_t node = uint32_t(g.cells.size());
                const int ceiling =
                    s + 1 < spans.size() ? spans[s + 1].y_min : std::numeric_limits<int>::max();
                floors.push_back({node, spans[s].y_max, ceiling});
                g.cells.push_back(
                    {uint32_t(size_t(z) * grid.size_x + x), spans[s].y_max, spans[s].area});
                g.positions.insert(
                    g.positions.end(),
                    {grid.origin[0] + (float(x) + 0.5f) * grid.cell_size, grid.topY(spans[s]),
                     grid.origin[2] + (float(z) + 0.5f) * grid.cell_size});
            }
        }
    }
    g.column_nodes.push_back(uint32_t(g.cells.size()));
    if (g.cells.size() >= kNoNode) return inputError("too many walkable cells for one graph");

    const int climb_cells = int(std::floor(grid.agent.climb / grid.cell_height + 1e-4f));
    const int height_cells = int(std::ceil(grid.agent.height / grid.cell_height - 1e-4f));

    // The floor in column (x, z) an agent standing on `from` can step to, or kNoNode.
    auto stepTarget = [&](const Floor& from, int x, int z) -> uint32_t {
        if (x < 0 || z < 0 || x >= int(grid.size_x) || z >= int(grid.size_z)) return kNoNode;
        const size_t column = size_t(z) * grid.size_x + size_t(x);
        uint32_t best = kNoNode;
        int best_dy = std::numeric_limits<int>::max();
        for (uint32_t n = g.column_nodes[column]; n < g.column_nodes[column + 1]; ++n) {
            const Floor& to = floors[n];
            const int dy = std::abs(to.top - from.top);
            if (dy > climb_cells) continue;
            const int gap_bottom = std::max(from.top, to.top);
            const int gap_top = std::min(from.ceiling, to.ceiling);
            if (gap_top - gap_bottom < height_cells) continue;
            if (dy < best_dy) {  // ties keep the lower floor (first in the column)
                best = n;
                best_dy = dy;
            }
        }
        return best;
    };

    const size_t node_count = g.cells.size();
    g.edge_offsets.reserve(node_count + 1);
    for (size_t n = 0; n < node_count; ++n) {
        if ((n & 0xFFFF) == 0) {
            if (context.cancelled()) return makeError(ErrorKind::cancelled, "graph cancelled");
            context.progress("graph tile", n, node_count);
        }
        g.edge_offsets.push_back(uint32_t(g.edge_targets.size()));
        const Floor& from = floors[n];
        const int x = int(g.cells[n].column % grid.size_x);
        const int z = int(g.cells[n].column / grid.size_x);
        uint32_t targets[8];
        for (int k = 0; k < 8; ++k) {
            if (k < 4) {
                targets[k] = stepTarget(from, x + kDx[k], z + kDz[k]);
                continue;
            }
            // Diagonal: both cardinal moves must exist, and the diagonal cell must be reachable
            // from each of them, so the move never cuts a corner on any floor.
            const int cx = kDx[k] > 0 ? 0 : 1;  // index of the (dx, 0) cardinal
            const int cz = kDz[k] > 0 ? 2 : 3;  // index of the (0, dz) cardinal
            const uint32_t a = targets[cx], b = targets[cz];
            targets[k] = kNoNode;
            if (a == kNoNode || b == kNoNode) continue;
            const uint32_t d = stepTarget(from, x + kDx[k], z + kDz[k]);
            if (d == kNoNode) continue;
            if (stepTarget(floors[a], x + kDx[k], z + kDz[k]) != d) continue;
            if (stepTarget(floors[b], x + kDx[k], z + kDz[k]) != d) continue;
            targets[k] = d;
        }
        const float* p = &g.positions[3 * n];
        const float from_cost = grid.areas[g.cells[n].area].cost;
        for (int k = 0; k < 8; ++k) {
            const uint32_t t = targets[k];
            if (t == kNoNode) continue;
            const float* q = &g.positions[3 * size_t(t)];
            // Distance in double from exact cell offsets so a MovingAI grid gets exactly 1, sqrt 2.
            const double dx = double(kDx[k]) * grid.cell_size;
            const double dz = double(kDz[k]) * grid.cell_size;
            const double dy = double(q[1]) - double(p[1]);
            const double multiplier = 0.5 * (double(from_cost) + grid.areas[g.cells[t].area].cost);
            g.edge_targets.push_back(t);
            g.edge_costs.push_back(float(std::sqrt(dx * dx + dy * dy + dz * dz) * multiplier));
        }
    }
    g.edge_offsets.push_back(uint32_t(g.edge_targets.size()));
    context.progress("graph tile", node_count, node_count);
    finalizeGraph(g);
    return g;
}

uint64_t addGradientCosts(Graph& g, float uphill, float downhill) {
    if (!(uphill > 0) && !(downhill > 0)) return 0;
    uint64_t changed = 0;
    for (uint32_t n = 0; n + 1 < g.edge_offsets.size(); ++n)
        for (uint32_t e = g.edge_offsets[n]; e < g.edge_offsets[n + 1]; ++e) {
            const double dy = double(g.positions[3 * size_t(g.edge_targets[e]) + 1]) -
                              double(g.positions[3 * size_t(n) + 1]);
            const double extra = dy > 0 ? uphill * dy : downhill * -dy;
            if (extra > 0) {
                g.edge_costs[e] = float(double(g.edge_costs[e]) + extra);
                ++changed;
            }
        }
    return changed;
}

Symmetry edgeSymmetry(const Graph& g) {
    Symmetry result = Symmetry::symmetric;
    for (uint32_t u = 0; u + 1 < g.edge_offsets.size(); ++u) {
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t v = g.edge_targets[e];
            bool reverse = false, same_cost = false;
            for (uint32_t f = g.edge_offsets[v]; f < g.edge_offsets[v + 1] && !same_cost; ++f)
                if (g.edge_targets[f] == u) {
                    reverse = true;
                    same_cost = g.edge_costs[f] == g.edge_costs[e];
                }
            if (!reverse) return Symmetry::directed;
            if (!same_cost) result = Symmetry::two_way;
        }
    }
    return result;
}

void finalizeGraph(Graph& g) {
    const size_t n = g.nodeCount();
    g.header.node_count = uint32_t(n);
    g.header.edge_count = uint32_t(g.edgeCount());
    // Union-find over the (directed) edges gives the undirected components.
    std::vector<uint32_t> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = uint32_t(i);
    auto find = [&](uint32_t v) {
        while (parent[v] != v) v = parent[v] = parent[parent[v]];
        return v;
    };
    auto unite = [&](uint32_t a, uint32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    };
    if (g.header.flags & formats::kGraphFlagImplicitVolume) {
        // Components of implicit graphs are computed by their builder.
        g.header.edge_count = 0;
    } else {
        for (size_t v = 0; v < n; ++v)
            for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e)
                unite(uint32_t(v), g.edge_targets[e]);
        g.components.assign(n, 0);
        std::vector<uint32_t> id_of_root(n, kNoNode);
        std::vector<uint32_t> sizes;
        for (size_t v = 0; v < n; ++v) {
            const uint32_t root = find(uint32_t(v));
            if (id_of_root[root] == kNoNode) {
                id_of_root[root] = uint32_t(sizes.size());
                sizes.push_back(0);
            }
            g.components[v] = id_of_root[root];
            ++sizes[id_of_root[root]];
        }
        g.header.component_count = uint32_t(sizes.size());
        g.header.largest_component =
            sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    }
}

}  // namespace nav::graph
