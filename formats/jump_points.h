// Jump point tables of tile graphs (JPS+), shared by the bake (lib/graph/jump_points.cpp) and
// navrt's search: the eight directions and what a table entry means (FORMAT.md, JPS+ section).
//
// Directions d = 0..7 on the X-Z grid of columns: the cardinals 0 (+X), 1 (+Z), 2 (-X), 3 (-Z),
// then the diagonals 4 + c between cardinals c and c + 1 (mod 4): 4 (+X+Z), 5 (-X+Z),
// 6 (-X-Z), 7 (+X-Z).
//
// An entry for node v and direction d (int16): k > 0: the jump from v along d meets its first
// jump point k steps away; k <= 0: it meets none and the line ends (a wall, a ledge) after -k
// steps (0: no step at all). kJumpSpecial in every entry: v is not a uniform grid cell (or one
// is beside it), so a search expands it by its edges instead of jumping.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/container.h"
#include "formats/layouts.h"

namespace nav::formats {

inline constexpr int kJumpDirections = 8;
inline constexpr int16_t kJumpSpecial = INT16_MIN;
inline constexpr int16_t kJumpMaxSteps = INT16_MAX;

constexpr int jumpDx(int d) {
    constexpr int dx[kJumpDirections] = {1, 0, -1, 0, 1, -1, -1, 1};
    return dx[d];
}
constexpr int jumpDz(int d) {
    constexpr int dz[kJumpDirections] = {0, 1, 0, -1, 1, 1, -1, -1};
    return dz[d];
}
constexpr bool jumpIsDiagonal(int d) { return d >= 4; }
// The opposite direction.
constexpr int jumpOpposite(int d) { return d < 4 ? (d + 2) % 4 : 4 + (d - 4 + 2) % 4; }
// A diagonal's two cardinals (d = 4 + c: c and c + 1 mod 4).
constexpr int jumpFirstCardinal(int d) { return d - 4; }
constexpr int jumpSecondCardinal(int d) { return (d - 4 + 1) % 4; }
// The direction of a step by (dx, dz), each in {-1, 0, 1}, not both 0; -1 otherwise.
constexpr int jumpDirectionOf(int dx, int dz) {
    for (int d = 0; d < kJumpDirections; ++d)
        if (jumpDx(d) == dx && jumpDz(d) == dz) return d;
    return -1;
}

// JPSH: the uniform step costs the entries assume, and the node counts.
inline constexpr size_t kJumpHeaderSize = 16;
struct JumpHeader {
    float straight_cost = 0, diagonal_cost = 0;  // > 0, finite
    uint32_t regular = 0, special = 0;           // nodes (special: those expanded by edges)
};
void encodeJumpHeader(const JumpHeader& h, uint8_t out[kJumpHeaderSize]);
Error decodeJumpHeader(const uint8_t* data, size_t size, JumpHeader& out);

// JPSE against the graph (a tile graph, after its sections and NCOL are validated: `cells`,
// `column_nodes`, the CSR with relative targets): 8 entries per node; a node's entries all
// kJumpSpecial or none; every step a regular node's entries promise (up to |k|) exists: the node
// of the next column along d at the same height, joined by an edge of the header's cost, whose
// own entry continues the count (k - 1 towards a jump point, k + 1 towards the end of a line),
// and a line that ends has no such node after it. So a search reads nodes only where they are.
Error validateJumpEntries(const GraphHeader& graph, const JumpHeader& header, const uint8_t* cells,
                          const uint32_t* column_nodes, const uint32_t* edge_offsets,
                          const uint32_t* edge_targets, const float* edge_costs,
                          const int16_t* entries, size_t entries_size);

// JPSB, optional beside JPSH and JPSE: goal bounds (FORMAT.md §6.9). Per node and direction d,
// the box of cells [min_x, max_x] x [min_z, max_z] holding every target to which the step along d
// starts a shortest path (u16 x 4: min_x, min_z, max_x, max_z; empty when min > max); a search
// may skip d at a regular node when the goal's cell is outside it.
inline constexpr int kJumpBoundValues = 4;
inline bool jumpBoundsHold(const uint16_t* box, uint32_t x, uint32_t z) {
    return x >= box[0] && x <= box[2] && z >= box[1] && z <= box[3];
}
// Size (node_count x 8 boxes) and a grid that fits u16 cell coordinates.
Error validateJumpBounds(const GraphHeader& graph, size_t size);

}  // namespace nav::formats
