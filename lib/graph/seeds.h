// Seed points (spawn points): the walkable surface that no seed reaches, walking or through the
// level's links, is taken out before a graph is built, so islands on roofs, sky boxes and
// unreachable pockets never reach the asset (Unity's and Unreal's "seed"/"navigation invoker"
// pruning; Millington & Funge, AI for Games, ch. 4: generation "with some user supervision").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/geometry/link_spec.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {

struct SeedPruning {
    uint64_t seeds_on_surface = 0;
    uint64_t pruned_cells = 0;             // walkable spans made unwalkable
    std::vector<std::string> off_surface;  // one message per seed not on this agent's surface
    // Links (by id) none of whose lanes joins two reached cells: they lead from or to pruned
    // surface; the graph stage leaves them out.
    std::vector<uint32_t> pruned_links;
};

// Reachability is the tile graph's (a step to a neighbouring cell within climb, with room for the
// agent) plus `links` (directed; a link whose ends miss the surface is ignored here, the graph
// reports it). A seed stands on the walkable cell under it within 1 m vertically, else on the
// nearest one within the agent's radius + 2 cells horizontally. Errors: no seed on the surface
// (nothing would be left), cancelled.
Result<SeedPruning> pruneToSeeds(voxel::VoxelGrid& grid,
                                 const std::vector<std::array<float, 3>>& seeds,
                                 const std::vector<geometry::LinkSpec>& links, int threads,
                                 Context& context);

}  // namespace nav::graph
