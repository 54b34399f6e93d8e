// Jump point tables for tile graphs (JPS+): per node and direction, how far a jump goes before it
// meets a jump point or the end of its line, so that a search jumps in one lookup.
//
// D. Harabor and A. Grastien, "Online Graph Pruning for Pathfinding on Grid Maps", AAAI 2011
// (jump points, forced neighbours); "Improving Jump Point Search", ICAPS 2014 (JPS+: the jumps
// precomputed; the rule without corner cutting, where only straight moves have forced
// neighbours); S. Rabin, "JPS+: An Extreme A* Speed Optimization for Static Uniform Cost Grids",
// Game AI Pro 2 (2015) (the table's signed distances).
//
// A tile graph is a grid only where it is uniform: a node is *regular* when its edges are one
// step to each of up to eight neighbour columns at the same height, at the graph's straight and
// diagonal costs (straight x sqrt 2), without links, both ways, and its diagonals are exactly
// those the no-corner-cutting rule gives (both straight steps possible, and they meet). A node
// that is not regular, or has one as a neighbour, is *special*: a jump stops there and a search
// expands it by its edges, so floors joined by ramps, area costs, links and gradients keep A*'s
// answers while the open floors between them are jumped.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/container_writer.h"
#include "formats/jump_points.h"
#include "lib/common/result.h"
#include "lib/graph/graph.h"

namespace nav::graph {

struct JumpTable {
    float straight_cost = 0, diagonal_cost = 0;  // the uniform step costs (0: none found)
    // Per node, 8 entries in direction order (formats/jump_points.h): node v, direction d at
    // 8 * v + d.
    std::vector<int16_t> entries;
    // Node counts: regular ones with jump entries, special ones (not regular, or beside one)
    // expanded by their edges; they add up to the node count.
    uint32_t regular = 0, special = 0;
};

// The table of a tile graph (any other kind: an error). Deterministic; O(nodes).
Result<JumpTable> buildJumpTable(const Graph& g);

// JPSH and JPSE (FORMAT.md §6.9) of `table` added to a .nav's writer.
void addJumpSections(formats::ContainerWriter& writer, const JumpTable& table);

// The node one step from v along d (kNoNode: none), as the table reads the graph's edges: the
// target of v's edge to the neighbour column in that direction when it has exactly one.
std::vector<uint32_t> jumpNeighbours(const Graph& g);

}  // namespace nav::graph
