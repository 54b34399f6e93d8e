#include "lib/graph/seeds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "lib/voxel/voxelize.h"

namespace nav::graph {

uint32_t surfaceNode(const Graph& g, const voxel::VoxelGrid& grid, const std::array<float, 3>& p) {
    uint32_t best = kNoNode;
    pickSurfaceNode(grid, p, best, [&](uint32_t x, uint32_t z, const auto& take) {
        const size_t column = size_t(z) * grid.size_x + x;
        for (uint32_t n = g.column_nodes[column]; n < g.column_nodes[column + 1]; ++n)
            take(n, &g.positions[3 * size_t(n)]);
        return true;
    });
    return best;
}

void checkSurfaceParams(const std::vector<std::array<float, 3>>& seeds,
                        const std::vector<PointOfInterest>& points, ParamCheck& check) {
    for (size_t i = 0; i < seeds.size(); ++i) {
        const auto& p = seeds[i];
        check.require(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]),
                      fmt::format("seeds[{}]", i), fmt::format("({}, {}, {})", p[0], p[1], p[2]),
                      "a finite point");
    }
    for (size_t i = 0; i < points.size(); ++i) {
        const PointOfInterest& poi = points[i];
        const std::string field = fmt::format("points_of_interest[{}]", i);
        check.require(!poi.name.empty(), field + ".name", "\"\"", "a name");
        check.require(
            std::isfinite(poi.position[0]) && std::isfinite(poi.position[1]) &&
                std::isfinite(poi.position[2]),
            field + ".position",
            fmt::format("({}, {}, {})", poi.position[0], poi.position[1], poi.position[2]),
            "a finite point");
        for (size_t k = 0; k < i; ++k)
            check.require(points[k].name != poi.name, field + ".name", poi.name,
                          fmt::format("unique (points_of_interest[{}] has it too)", k));
    }
}

void describeSurface(const std::vector<std::array<float, 3>>& seeds,
                     const std::vector<PointOfInterest>& points, StageKey& key) {
    if (!seeds.empty()) {
        key.add("seeds", uint64_t(seeds.size()));
        for (const auto& p : seeds) key.add("seed_x", p[0]).add("seed_y", p[1]).add("seed_z", p[2]);
    }
    for (const PointOfInterest& p : points)  // their warnings are part of the result
        key.add("poi", p.name)
            .add("poi_kind", p.kind)
            .add("poi_x", p.position[0])
            .add("poi_y", p.position[1])
            .add("poi_z", p.position[2]);
}

std::string nearestSurfaceText(const Graph& g, const std::array<float, 3>& p) {
    double nearest = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < g.nodeCount(); ++k) {
        const float* q = &g.positions[3 * k];
        nearest = std::min(
            nearest, std::hypot(double(q[0]) - p[0], double(q[1]) - p[1], double(q[2]) - p[2]));
    }
    return std::isfinite(nearest) ? fmt::format(" (the nearest is {:.2f} m away)", nearest)
                                  : std::string(" (there is none)");
}

Result<SurfaceCheck> checkSurface(voxel::VoxelGrid& grid,
                                  const std::vector<std::array<float, 3>>& seeds,
                                  const std::vector<PointOfInterest>& points,
                                  const std::vector<geometry::LinkSpec>& links, int threads,
                                  Context& context) {
    ScopedTimer timer(context, "graph: seeds and points of interest");
    auto tile = buildTileGraph(grid, context);
    if (!tile) return tile.error();
    Graph& g = *tile;
    if (!links.empty()) {
        // Links some ends of which miss the surface are left out here (the graph reports them).
        std::vector<geometry::LinkSpec> lenient = links;
        for (geometry::LinkSpec& l : lenient) l.shared = true;
        LinkResolveStats stats;
        if (Status s = attachLinks(g, lenient, threads, stats, context); !s) return s.error();
    }
    SurfaceCheck out;
    std::vector<uint32_t> frontier;
    std::vector<uint8_t> reached(g.nodeCount(), 0);
    for (size_t i = 0; i < seeds.size(); ++i) {
        const std::array<float, 3>& p = seeds[i];
        const uint32_t n = surfaceNode(g, grid, p);
        if (n == kNoNode) {
            out.off_surface.push_back(
                fmt::format("seeds[{}] ({}, {}, {}) is not on this agent's walkable surface{}", i,
                            p[0], p[1], p[2], nearestSurfaceText(g, p)));
            continue;
        }
        ++out.seeds_on_surface;
        if (!reached[n]) reached[n] = 1, frontier.push_back(n);
    }
    if (!seeds.empty() && out.seeds_on_surface == 0)
        return inputError(
            "no seed is on this agent's walkable surface, so nothing would be left: "
            "{}",
            out.off_surface[0]);
    while (!frontier.empty()) {
        const uint32_t n = frontier.back();
        frontier.pop_back();
        for (uint32_t e = g.edge_offsets[n]; e < g.edge_offsets[n + 1]; ++e) {
            const uint32_t t = g.edge_targets[e];
            if (!reached[t]) reached[t] = 1, frontier.push_back(t);
        }
    }
    // Without seeds: the largest component (links joining components) is what counts.
    uint32_t largest = kNoNode;
    if (seeds.empty() && g.nodeCount() > 0) {
        std::vector<uint64_t> size(g.header.component_count, 0);
        for (uint32_t c : g.components)
            if (c < size.size()) ++size[c];
        largest = uint32_t(std::max_element(size.begin(), size.end()) - size.begin());
    }
    for (const PointOfInterest& point : points) {
        const std::string what =
            fmt::format("{}point of interest '{}'{} at ({}, {}, {})",
                        point.where.empty() ? "" : point.where + ": ", point.name,
                        point.kind.empty() ? "" : " (" + point.kind + ")", point.position[0],
                        point.position[1], point.position[2]);
        const uint32_t n = surfaceNode(g, grid, point.position);
        if (n == kNoNode) {
            ++out.points_off_surface;
            out.point_problems.push_back(fmt::format("{} is not on this agent's walkable surface{}",
                                                     what, nearestSurfaceText(g, point.position)));
        } else if (seeds.empty() ? g.components[n] != largest : !reached[n]) {
            ++out.points_unreachable;
            out.point_problems.push_back(fmt::format(
                "{} cannot be reached: {}", what,
                seeds.empty() ? "it is outside the largest walkable area (links included)"
                              : "no seed reaches it, walking or through links"));
        } else {
            ++out.points_reachable;
        }
    }
    if (seeds.empty()) return out;
    std::map<uint32_t, bool> link_kept;  // id -> some lane joins two reached cells
    for (const formats::LinkRecord& l : g.links)
        link_kept[l.id] = link_kept[l.id] || (reached[l.from_node] && reached[l.to_node]);
    for (const auto& [id, kept] : link_kept)
        if (!kept) out.pruned_links.push_back(id);
    for (uint32_t n = 0; n < g.nodeCount(); ++n) {
        if (reached[n]) continue;
        const formats::NodeCell& cell = g.cells[n];
        for (uint32_t k = grid.column_offsets[cell.column];
             k < grid.column_offsets[cell.column + 1]; ++k) {
            voxel::Span& s = grid.spans[k];
            if (s.walkable && s.y_max == cell.y) {
                s.walkable = false;
                ++out.pruned_cells;
                break;
            }
        }
    }
    return out;
}

}  // namespace nav::graph
