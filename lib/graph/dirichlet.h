// Dirichlet domains (designer waypoints -> a graph of regions; see dirichlet.cpp for the method).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {

struct Graph;

// A designer's waypoint: a Dirichlet domain's characteristic point.
struct Waypoint {
    std::string name;                 // unique in the level
    std::array<float, 3> position{};  // [Units: m] on the walkable surface
    // [Units: m] a head start: the waypoint claims the cells up to `weight` metres farther from
    // it than from its neighbours (>= 0; 0 = plain Voronoi).
    float weight = 0;
    std::string where;  // where it was given, for messages ("level.json: $.waypoints[1]")
    bool operator==(const Waypoint&) const = default;
};

struct DirichletReport {
    std::vector<uint64_t> cells_per_waypoint;  // cells of each domain (0: a heavier one covers it)
    std::vector<uint32_t> nodes_of_waypoints;  // the tile node each waypoint stands on
    uint64_t unassigned_cells = 0;             // walkable cells no waypoint reaches (in no domain)
    uint64_t dropped_connections = 0;  // touching domains without a path between their waypoints
    std::vector<std::string> moved;    // waypoints not over a walkable cell, moved to the nearest
    std::vector<uint32_t> owners;      // per tile node: its domain (kNoNode: none)
};

// The owner (waypoint index) of every node of `tile`: the source minimizing walking distance
// minus weight, ties to the lower index; kNoNode where no source reaches. `sources` are tile
// nodes, `weights` their head starts [m].
std::vector<uint32_t> dirichletOwners(const Graph& tile, const std::vector<uint32_t>& sources,
                                      const std::vector<float>& weights);

// The Dirichlet-domain graph over the tile graph `tile` of `grid` (links and gradient costs
// included): node i = waypoint i at the top of the cell it stands on; its region = the cells it
// owns (layer_cells / layer_columns / domain_owners); an edge a -> b when a tile edge leads from
// a's region into b's, costing the cheapest path from a's waypoint to b's within the two
// regions (a lower bound of nothing: the real walk). Errors name the waypoint: off the walkable
// surface (in a wall: with the distance to the nearest cell), two on one cell; none at all.
Result<Graph> buildDirichletGraph(const Graph& tile, const voxel::VoxelGrid& grid,
                                  const std::vector<Waypoint>& waypoints, Context& context,
                                  DirichletReport* report = nullptr);

}  // namespace nav::graph
