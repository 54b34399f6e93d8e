// Seed points (spawn points) and points of interest, checked on an agent's walkable surface
// before its graph is built. Seeds: the surface that no seed reaches, walking or through the
// level's links, is taken out, so islands on roofs, sky boxes and unreachable pockets never reach
// the asset (Unity's and Unreal's seed / invoker pruning; Millington & Funge, AI for Games, ch. 4:
// generation works best "with some user supervision"). Points of interest (objectives, pickups,
// spawns): each must stand on the surface and be reachable, which `navbake build --strict` turns
// into a CI check (Dead Reckoning's objective the AI could not reach).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/link_spec.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"

namespace nav::graph {

struct PointOfInterest {
    std::string name;  // unique in the level
    std::string kind;  // "objective", "pickup", "spawn", ... (free text, may be empty)
    std::array<float, 3> position{};  // [Units: m]
    std::string where;  // where it was given, for messages ("level.json: $.points_of_interest[2]")
    bool operator==(const PointOfInterest&) const = default;
};

// Every bad seed and point of interest (fields "seeds[i]", "points_of_interest[i].name" /
// ".position"), and their part of a stage's cache key.
void checkSurfaceParams(const std::vector<std::array<float, 3>>& seeds,
                        const std::vector<PointOfInterest>& points, ParamCheck& check);
void describeSurface(const std::vector<std::array<float, 3>>& seeds,
                     const std::vector<PointOfInterest>& points, StageKey& key);

struct SurfaceCheck {
    uint64_t seeds_on_surface = 0;
    uint64_t pruned_cells = 0;             // walkable spans made unwalkable (seeds only)
    std::vector<std::string> off_surface;  // one message per seed not on this agent's surface
    // Links (by id) none of whose lanes joins two reached cells: they lead from or to pruned
    // surface; the graph stage leaves them out.
    std::vector<uint32_t> pruned_links;
    // Points of interest: counts and one message per point off the surface or unreachable.
    uint64_t points_reachable = 0, points_unreachable = 0, points_off_surface = 0;
    std::vector<std::string> point_problems;
};

struct Graph;
// The tile node a point stands on: the walkable cell under it within 1 m vertically, else the
// nearest one within the agent's radius + 2 cells horizontally; kNoNode when none.
uint32_t surfaceNode(const Graph& tile, const voxel::VoxelGrid& grid,
                     const std::array<float, 3>& point);
// surfaceNode's rule over any holder of the grid's columns (a world's tiles): the columns within
// reach in order (dz, then dx), `column(x, z, take)` handing each node of column (x, z) bottom to
// top to take(id, position); the node under the point wins, then the nearest horizontally.
// `best` is left as it is when none qualifies. False as soon as `column` returns false (it could
// not read the column; the caller keeps why).
template <class Id, class Column>
bool pickSurfaceNode(const voxel::VoxelGrid& grid, const std::array<float, 3>& p, Id& best,
                     Column&& column) {
    const double fx = (double(p[0]) - grid.origin[0]) / grid.cell_size;
    const double fz = (double(p[2]) - grid.origin[2]) / grid.cell_size;
    const int cx = int(std::floor(fx)), cz = int(std::floor(fz));
    const int reach = voxel::agentCells(grid.agent, grid.cell_size, grid.cell_height).radius + 2;
    double best_d = std::numeric_limits<double>::infinity();
    for (int dz = -reach; dz <= reach; ++dz)
        for (int dx = -reach; dx <= reach; ++dx) {
            const int x = cx + dx, z = cz + dz;
            if (x < 0 || z < 0 || x >= int(grid.size_x) || z >= int(grid.size_z)) continue;
            const bool read = column(uint32_t(x), uint32_t(z), [&](const Id& id, const float* q) {
                if (std::fabs(double(q[1]) - p[1]) > 1.0) return;
                // The cell under the point wins; then the nearest.
                const double d = (dx == 0 && dz == 0)
                                     ? -1.0
                                     : std::hypot(double(q[0]) - p[0], double(q[2]) - p[2]);
                if (d < best_d) best_d = d, best = id;
            });
            if (!read) return false;
        }
    return true;
}
// " (the nearest is 2.68 m away)" or " (there is none)", for messages.
std::string nearestSurfaceText(const Graph& graph, const std::array<float, 3>& point);

// Reachability is the tile graph's (a step to a neighbouring cell within climb, with room for the
// agent) plus `links` (directed; a link whose ends miss the surface is ignored here, the graph
// reports it). A point stands on the walkable cell under it within 1 m vertically, else on the
// nearest one within the agent's radius + 2 cells horizontally.
// With seeds, the surface no seed reaches is pruned from `grid` and a point of interest is
// reachable when a seed reaches it; without, a point is reachable when it lies in the largest
// walkable component (links joining components). Errors: seeds given but none on the surface
// (nothing would be left), cancelled.
Result<SurfaceCheck> checkSurface(voxel::VoxelGrid& grid,
                                  const std::vector<std::array<float, 3>>& seeds,
                                  const std::vector<PointOfInterest>& points,
                                  const std::vector<geometry::LinkSpec>& links, int threads,
                                  Context& context);

}  // namespace nav::graph
