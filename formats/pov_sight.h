// Exact line of sight and the taut-corner rule on the layer grid of a points-of-visibility graph
// (FORMAT.md §6.5). Shared by the POV bake (lib/graph/pov_graph.cpp), which decides the graph's
// edges with it, and navrt (lib/runtime/navrt_pov.cpp), which answers queries with it: one
// implementation, so the bake and the runtime can never disagree about a sight line.
//
// Geometry: every layer cell is the closed square [x, x+1] x [z, z+1] (cells) of its column at its
// floor height; two cells touch across a side when LNB4 links them. Visibility tests run on exact
// integer coordinates in units of 1 / povSubdivision() cell: grid vertices and cell centres are
// exact. Runtime-safe: no exceptions, no allocation.
#pragma once

#include <cstdint>

#include "formats/layouts.h"

namespace nav::formats {

// A point of the grid plane in exact units: [Units: cell / PovGrid::sub].
struct PovPoint {
    int64_t x = 0, z = 0;
};

// A power of two in 2..65536, the largest for which (max(size_x, size_z) + 1) * it <= 2^30, so
// every orientation product of the walk fits in int64.
int64_t povSubdivision(const GraphHeader& header);

// The arrays the predicates read, as stored (LCEL, LNB4, PCRN bytes); make it with povGrid().
// The caller guarantees they were validated (validatePovSections) or built consistently, and
// that corner ids passed in are below the corner count.
struct PovGrid {
    uint32_t size_x = 1;  // GRHD grid width: column = z * size_x + x
    int64_t sub = 2;      // povSubdivision() of the graph
    uint32_t cell_count = 0;
    const uint8_t* cells = nullptr;        // kNodeCellSize per layer cell (LCEL)
    const uint32_t* neighbours = nullptr;  // plane k (+X, -X, +Z, -Z) at k * cell_count (LNB4)
    const uint8_t* corners = nullptr;      // kPovCornerSize per corner (PCRN)
};
PovGrid povGrid(const GraphHeader& header, uint32_t cell_count, const uint8_t* cells,
                const uint32_t* neighbours, const uint8_t* corners);

uint32_t povCornerCell(const PovGrid& grid, uint32_t corner);
// The exact grid vertex of a corner; the cell centre of a link-end vertex (kPovCornerLinkEnd).
PovPoint povCornerPoint(const PovGrid& grid, uint32_t corner);
// Whether a path bending at `corner` may leave it in direction (dx, dz) (any units): with the
// blocked quadrant (bx, bz), p = dx * bx and q = dz * bz must satisfy (p > 0) != (q > 0), i.e.
// the direction lies in one of the two quadrants beside the obstacle, including the two rays
// along its faces. Corners flagged kPovCornerAnyDirection admit every non-zero direction.
bool povCornerAdmits(const PovGrid& grid, uint32_t corner, int64_t dx, int64_t dz);
// Line of sight from point `from` in layer cell `from_cell` to `to` in `to_cell` (both must lie
// in their cell's square, else false): the cells the segment passes are walked exactly, moving
// only across linked sides; a segment through a grid vertex passes diagonally when one of the two
// side routes around the vertex is linked (touching an obstacle corner is allowed, squeezing
// between two diagonal obstacles is not); a segment along a grid line needs a linked cell on at
// least one side of every piece of it; the walk must end in `to_cell`.
bool povSegmentVisible(const PovGrid& grid, uint32_t from_cell, PovPoint from, uint32_t to_cell,
                       PovPoint to);
// Line of sight between the vertices of two corners, each in its own cell.
bool povCornersVisible(const PovGrid& grid, uint32_t a, uint32_t b);

}  // namespace nav::formats
