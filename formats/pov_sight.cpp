// Exact integer line of sight and the taut-corner rule over the layer grid of a
// points-of-visibility graph; the contract is in pov_sight.h, the geometry in FORMAT.md §6.5.
//
// The visibility-graph method is Lozano-Perez & Wesley 1979 ("An algorithm for planning
// collision-free paths among polyhedral obstacles"): a shortest path among polygonal obstacles is
// a polyline that bends only at convex obstacle corners, so A* over the corners that see each
// other (plus the start and the goal) finds it. Edges are pruned to "taut" ones (Oh & Leong 2017,
// "Edge N-Level Sparse Visibility Graphs"): a path bending at a corner wraps its obstacle, so each
// edge it uses leaves the corner into one of the two quadrants beside the blocked one.
//
// Line of sight walks the cells a segment passes (the grid traversal of Amanatides & Woo 1987),
// in exact integer arithmetic: coordinates are in units of 1/povSubdivision() cell, and which
// side of a grid vertex the segment passes is the sign of an int64 cross product, so grid
// vertices and cell centres never suffer rounding and touching an obstacle corner is decided
// exactly (MovingAI's no-corner-cutting rule: passing a vertex needs one free route around it).
#include "formats/pov_sight.h"

#include <cstring>

namespace nav::formats {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;  // no linked cell

// Cells a grid-line walk may keep on the two sides of the line (more only with floors winding
// around the line many times; the extra ones are dropped, which can only refuse a sight line).
constexpr int kMaxLineCells = 8;

inline int dirX(int64_t s) { return s > 0 ? 0 : 1; }
inline int dirZ(int64_t s) { return s > 0 ? 2 : 3; }
inline int sign(int64_t v) { return (v > 0) - (v < 0); }

inline uint32_t neighbour(const PovGrid& g, uint32_t cell, int dir) {
    if (cell == kNone) return kNone;
    return g.neighbours[size_t(dir) * g.cell_count + cell];
}

inline void cellColumn(const PovGrid& g, uint32_t cell, int64_t& x, int64_t& z) {
    const uint32_t column = decodeNodeCell(g.cells + size_t(cell) * kNodeCellSize).column;
    x = column % g.size_x;
    z = column / g.size_x;
}

// The cell diagonally across the grid vertex at the (sx, sz) corner of `cell`, for a segment that
// passes exactly through the vertex: reached through either side cell (A-B-D or A-C-D), so the
// segment only touches whatever blocks the other side. kNone when neither route exists (a
// pinch between two diagonal obstacles) or the two routes end on different floors (ambiguous;
// refused, which can only deny a sight line).
uint32_t acrossVertex(const PovGrid& g, uint32_t cell, int64_t sx, int64_t sz) {
    const uint32_t via_x = neighbour(g, neighbour(g, cell, dirX(sx)), dirZ(sz));
    const uint32_t via_z = neighbour(g, neighbour(g, cell, dirZ(sz)), dirX(sx));
    if (via_x == kNone) return via_z;
    if (via_z == kNone || via_z == via_x) return via_x;
    return kNone;
}

// A segment lying on a grid line: `along` is the moving axis (0 = X, on the line z = line;
// 1 = Z, on the line x = line). The walk keeps every linked cell on either side of the line in
// the current column (crossing the line at any point only touches it); each step needs a linked
// cell on at least one side, and only side-to-side moves within a column are free, so a line
// squeezing between two diagonal obstacles at a vertex is refused.
bool walkGridLine(const PovGrid& g, int along, int64_t sub, uint32_t from_cell, int64_t from_u,
                  uint32_t to_cell, int64_t to_u, int64_t line) {
    struct Item {
        uint32_t cell;
        int64_t row;  // the cell's index across the line: line - 1 or line
    };
    Item set[kMaxLineCells];
    int count = 0;
    const int across_plus = along == 0 ? 2 : 0, across_minus = along == 0 ? 3 : 1;
    auto add = [&](uint32_t cell, int64_t row) {
        if (cell == kNone || (row != line - 1 && row != line)) return;
        for (int i = 0; i < count; ++i)
            if (set[i].cell == cell) return;
        if (count < kMaxLineCells) set[count++] = {cell, row};
    };
    auto close = [&] {  // add the cells across the line from those in the set
        for (int i = 0; i < count; ++i) {
            if (set[i].row == line - 1)
                add(neighbour(g, set[i].cell, across_plus), line);
            else
                add(neighbour(g, set[i].cell, across_minus), line - 1);
        }
    };
    auto contains = [&](uint32_t cell) {
        for (int i = 0; i < count; ++i)
            if (set[i].cell == cell) return true;
        return false;
    };
    const int64_t s = to_u > from_u ? 1 : -1;
    const int dir = along == 0 ? dirX(s) : dirZ(s);
    auto stepAll = [&] {
        Item previous[kMaxLineCells];
        const int previous_count = count;
        std::memcpy(previous, set, sizeof(Item) * size_t(count));
        count = 0;
        for (int i = 0; i < previous_count; ++i)
            add(neighbour(g, previous[i].cell, dir), previous[i].row);
        close();
        return count > 0;
    };
    int64_t x, z;
    cellColumn(g, from_cell, x, z);
    int64_t column = along == 0 ? x : z;
    add(from_cell, along == 0 ? z : x);
    if (count == 0) return false;
    close();
    auto boundary = [&] { return (s > 0 ? column + 1 : column) * sub; };
    for (int64_t guard = (s * (to_u - from_u)) / sub + 3; (boundary() - to_u) * s < 0; --guard) {
        if (guard == 0 || !stepAll()) return false;
        column += s;
    }
    if (contains(to_cell)) return true;
    // The end point on the far boundary of the column (a grid vertex): the goal cell may be the
    // one just beyond it.
    return boundary() == to_u && stepAll() && contains(to_cell);
}

// General segment: the cells it passes, in order (Amanatides & Woo), with exact vertex tests.
bool walkCells(const PovGrid& g, int64_t sub, uint32_t from_cell, PovPoint p, uint32_t to_cell,
               PovPoint q) {
    int64_t x, z;
    cellColumn(g, from_cell, x, z);
    const int64_t dx = q.x - p.x, dz = q.z - p.z;
    const int64_t sx = sign(dx), sz = sign(dz);
    uint32_t cur = from_cell;
    int64_t guard = (dx < 0 ? -dx : dx) / sub + (dz < 0 ? -dz : dz) / sub + 4;
    int64_t bx = 0, bz = 0;  // the cell's boundaries on the side the segment travels to
    for (;;) {
        bx = (sx > 0 ? x + 1 : x) * sub;
        bz = (sz > 0 ? z + 1 : z) * sub;
        bool cross_x = sx != 0 && (bx - q.x) * sx < 0;  // boundary strictly before the end
        bool cross_z = sz != 0 && (bz - q.z) * sz < 0;
        if (!cross_x && !cross_z) break;
        if (cross_x && cross_z) {
            // t_x - t_z = ((bx - p.x) dz - (bz - p.z) dx) / (dx dz): which boundary comes first,
            // or both at once (the segment passes exactly through the vertex (bx, bz)).
            const int order = sign((bx - p.x) * dz - (bz - p.z) * dx) * int(sx * sz);
            if (order < 0)
                cross_z = false;
            else if (order > 0)
                cross_x = false;
        }
        uint32_t next;
        if (cross_x && cross_z) {
            next = acrossVertex(g, cur, sx, sz);
            x += sx;
            z += sz;
        } else if (cross_x) {
            next = neighbour(g, cur, dirX(sx));
            x += sx;
        } else {
            next = neighbour(g, cur, dirZ(sz));
            z += sz;
        }
        if (next == kNone || --guard <= 0) return false;
        cur = next;
    }
    if (cur == to_cell) return true;
    // The end point lies on the far side(s) of the last cell: the goal cell may touch it there.
    const bool on_x = sx != 0 && bx == q.x, on_z = sz != 0 && bz == q.z;
    if (on_x && on_z)
        return to_cell == neighbour(g, cur, dirX(sx)) || to_cell == neighbour(g, cur, dirZ(sz)) ||
               to_cell == acrossVertex(g, cur, sx, sz);
    if (on_x) return to_cell == neighbour(g, cur, dirX(sx));
    if (on_z) return to_cell == neighbour(g, cur, dirZ(sz));
    return false;
}

bool insideCell(const PovGrid& g, int64_t sub, uint32_t cell, PovPoint p) {
    int64_t x, z;
    cellColumn(g, cell, x, z);
    return p.x >= x * sub && p.x <= (x + 1) * sub && p.z >= z * sub && p.z <= (z + 1) * sub;
}

}  // namespace

int64_t povSubdivision(const GraphHeader& h) {
    const uint64_t extent = uint64_t(h.size_x > h.size_z ? h.size_x : h.size_z) + 1;
    int64_t sub = int64_t(1) << 16;
    while (sub > 2 && extent * uint64_t(sub) > (uint64_t(1) << 30)) sub >>= 1;
    return sub;
}

PovGrid povGrid(const GraphHeader& header, uint32_t cell_count, const uint8_t* cells,
                const uint32_t* neighbours, const uint8_t* corners) {
    return {header.size_x, povSubdivision(header), cell_count, cells, neighbours, corners};
}

uint32_t povCornerCell(const PovGrid& g, uint32_t corner) {
    return decodePovCorner(g.corners + size_t(corner) * kPovCornerSize).cell;
}

PovPoint povCornerPoint(const PovGrid& g, uint32_t corner) {
    const PovCorner c = decodePovCorner(g.corners + size_t(corner) * kPovCornerSize);
    int64_t x, z;
    cellColumn(g, c.cell, x, z);
    if (c.flags & kPovCornerLinkEnd) return {x * g.sub + g.sub / 2, z * g.sub + g.sub / 2};
    return {(x + (c.bx > 0)) * g.sub, (z + (c.bz > 0)) * g.sub};
}

bool povCornerAdmits(const PovGrid& g, uint32_t corner, int64_t dx, int64_t dz) {
    const PovCorner c = decodePovCorner(g.corners + size_t(corner) * kPovCornerSize);
    if (c.flags & kPovCornerAnyDirection) return dx != 0 || dz != 0;
    // Directions from the corner, measured against the blocked quadrant (bx, bz): p > 0 points
    // past the obstacle along X, q > 0 along Z. A path bending here comes from one side quadrant
    // (p > 0 >= q, or q > 0 >= p) and leaves into the other; the rays p > 0 = q and q > 0 = p run
    // along the obstacle's faces. Directions with p, q both > 0 enter the obstacle; both <= 0
    // point away from it, where a path through the corner could only be straight (derivation in
    // FORMAT.md 6.5).
    const int64_t p = dx * c.bx, q = dz * c.bz;
    return (p > 0) != (q > 0);
}

bool povSegmentVisible(const PovGrid& g, uint32_t from_cell, PovPoint p, uint32_t to_cell,
                       PovPoint q) {
    if (from_cell >= g.cell_count || to_cell >= g.cell_count) return false;
    const int64_t sub = g.sub;
    if (!insideCell(g, sub, from_cell, p) || !insideCell(g, sub, to_cell, q)) return false;
    if (p.x == q.x && p.z == q.z) return from_cell == to_cell;
    if (p.z == q.z && p.z % sub == 0)
        return walkGridLine(g, 0, sub, from_cell, p.x, to_cell, q.x, p.z / sub);
    if (p.x == q.x && p.x % sub == 0)
        return walkGridLine(g, 1, sub, from_cell, p.z, to_cell, q.z, p.x / sub);
    return walkCells(g, sub, from_cell, p, to_cell, q);
}

bool povCornersVisible(const PovGrid& g, uint32_t a, uint32_t b) {
    return povSegmentVisible(g, povCornerCell(g, a), povCornerPoint(g, a), povCornerCell(g, b),
                             povCornerPoint(g, b));
}

}  // namespace nav::formats
