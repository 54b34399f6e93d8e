// navrt on points-of-visibility graphs: the view of the POV sections (validated by
// formats/graph_sections.h), exact line of sight over the layer grid, and optimal any-angle paths.
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
#include <cmath>
#include <cstring>

#include "navrt_query.h"
#include "navrt_heap.h"

#include "../../formats/graph_sections.h"

namespace navrt {

using nav::formats::makeError;
namespace fmt = nav::formats;

namespace {

using heap::kClosed;
using heap::kNotInHeap;
constexpr double kHeuristicSafety = 1.0 - 1e-6;
// Cells a grid-line walk may keep on the two sides of the line (more only with floors winding
// around the line many times; the extra ones are dropped, which can only refuse a sight line).
constexpr int kMaxLineCells = 8;

inline int dirX(int64_t s) { return s > 0 ? 0 : 1; }
inline int dirZ(int64_t s) { return s > 0 ? 2 : 3; }
inline int sign(int64_t v) { return (v > 0) - (v < 0); }

inline uint32_t neighbour(const GraphView& g, uint32_t cell, int dir) {
    if (cell == kNoNode) return kNoNode;
    return g.layer_neighbours[size_t(dir) * g.layer_cell_count + cell];
}

inline void cellColumn(const GraphView& g, uint32_t cell, int64_t& x, int64_t& z) {
    const uint32_t column = fmt::decodeNodeCell(g.layer_cells + size_t(cell) * fmt::kNodeCellSize).column;
    x = column % g.header.size_x;
    z = column / g.header.size_x;
}

// The cell diagonally across the grid vertex at the (sx, sz) corner of `cell`, for a segment that
// passes exactly through the vertex: reached through either side cell (A-B-D or A-C-D), so the
// segment only touches whatever blocks the other side. kNoNode when neither route exists (a
// pinch between two diagonal obstacles) or the two routes end on different floors (ambiguous;
// refused, which can only deny a sight line).
uint32_t acrossVertex(const GraphView& g, uint32_t cell, int64_t sx, int64_t sz) {
    const uint32_t via_x = neighbour(g, neighbour(g, cell, dirX(sx)), dirZ(sz));
    const uint32_t via_z = neighbour(g, neighbour(g, cell, dirZ(sz)), dirX(sx));
    if (via_x == kNoNode) return via_z;
    if (via_z == kNoNode || via_z == via_x) return via_x;
    return kNoNode;
}

// A segment lying on a grid line: `along` is the moving axis (0 = X, on the line z = line;
// 1 = Z, on the line x = line). The walk keeps every linked cell on either side of the line in
// the current column (crossing the line at any point only touches it); each step needs a linked
// cell on at least one side, and only side-to-side moves within a column are free, so a line
// squeezing between two diagonal obstacles at a vertex is refused.
bool walkGridLine(const GraphView& g, int along, int64_t sub, uint32_t from_cell, int64_t from_u,
                  uint32_t to_cell, int64_t to_u, int64_t line) {
    struct Item {
        uint32_t cell;
        int64_t row;  // the cell's index across the line: line - 1 or line
    };
    Item set[kMaxLineCells];
    int count = 0;
    const int across_plus = along == 0 ? 2 : 0, across_minus = along == 0 ? 3 : 1;
    auto add = [&](uint32_t cell, int64_t row) {
        if (cell == kNoNode || (row != line - 1 && row != line)) return;
        for (int i = 0; i < count; ++i)
            if (set[i].cell == cell) return;
        if (count < kMaxLineCells) set[count++] = {cell, row};
    };
    auto close = [&] {  // add the cells across the line from those in the set
        for (int i = 0; i < count; ++i) {
            if (set[i].row == line - 1) add(neighbour(g, set[i].cell, across_plus), line);
            else add(neighbour(g, set[i].cell, across_minus), line - 1);
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
        for (int i = 0; i < previous_count; ++i) add(neighbour(g, previous[i].cell, dir), previous[i].row);
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
bool walkCells(const GraphView& g, int64_t sub, uint32_t from_cell, PovPoint p, uint32_t to_cell,
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
            if (order < 0) cross_z = false;
            else if (order > 0) cross_x = false;
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
        if (next == kNoNode || --guard <= 0) return false;
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

bool insideCell(const GraphView& g, int64_t sub, uint32_t cell, PovPoint p) {
    int64_t x, z;
    cellColumn(g, cell, x, z);
    return p.x >= x * sub && p.x <= (x + 1) * sub && p.z >= z * sub && p.z <= (z + 1) * sub;
}

double distance(Vec3 a, Vec3 b) {
    const double dx = double(a.x) - b.x, dy = double(a.y) - b.y, dz = double(a.z) - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

}  // namespace

Error viewPovSections(const nav::formats::GraphSections& s, uint32_t area_count, GraphView& out) {
    using G = fmt::GraphSection;
    if (Error e = fmt::validatePovSections(out.header, s, area_count, out.pov_stats)) return e;
    out.layer_cell_count = out.pov_stats.layer_cell_count;
    out.layer_cells = s[G::layer_cells].data;
    out.layer_columns = reinterpret_cast<const uint32_t*>(s[G::layer_columns].data);
    out.layer_neighbours = reinterpret_cast<const uint32_t*>(s[G::layer_neighbours].data);
    out.layer_components = reinterpret_cast<const uint32_t*>(s[G::layer_components].data);
    out.pov_corners = s[G::pov_corners].data;
    return {};
}

int64_t povSubdivision(const fmt::GraphHeader& h) {
    const uint64_t extent = uint64_t(h.size_x > h.size_z ? h.size_x : h.size_z) + 1;
    int64_t sub = int64_t(1) << 16;
    while (sub > 2 && extent * uint64_t(sub) > (uint64_t(1) << 30)) sub >>= 1;
    return sub;
}

uint32_t povCornerCell(const GraphView& g, uint32_t corner) {
    return fmt::decodePovCorner(g.pov_corners + size_t(corner) * fmt::kPovCornerSize).cell;
}

PovPoint povCornerPoint(const GraphView& g, uint32_t corner) {
    const fmt::PovCorner c = fmt::decodePovCorner(g.pov_corners + size_t(corner) * fmt::kPovCornerSize);
    int64_t x, z;
    cellColumn(g, c.cell, x, z);
    const int64_t sub = povSubdivision(g.header);
    return {(x + (c.bx > 0)) * sub, (z + (c.bz > 0)) * sub};
}

bool povCornerAdmits(const GraphView& g, uint32_t corner, int64_t dx, int64_t dz) {
    const fmt::PovCorner c = fmt::decodePovCorner(g.pov_corners + size_t(corner) * fmt::kPovCornerSize);
    if (c.flags & fmt::kPovCornerAnyDirection) return dx != 0 || dz != 0;
    // Directions from the corner, measured against the blocked quadrant (bx, bz): p > 0 points
    // past the obstacle along X, q > 0 along Z. A path bending here comes from one side quadrant
    // (p > 0 >= q, or q > 0 >= p) and leaves into the other; the rays p > 0 = q and q > 0 = p run
    // along the obstacle's faces. Directions with p, q both > 0 enter the obstacle; both <= 0
    // point away from it, where a path through the corner could only be straight (derivation in
    // FORMAT.md 6.5).
    const int64_t p = dx * c.bx, q = dz * c.bz;
    return (p > 0) != (q > 0);
}

bool povSegmentVisible(const GraphView& g, uint32_t from_cell, PovPoint p, uint32_t to_cell,
                       PovPoint q) {
    if (from_cell >= g.layer_cell_count || to_cell >= g.layer_cell_count) return false;
    const int64_t sub = povSubdivision(g.header);
    if (!insideCell(g, sub, from_cell, p) || !insideCell(g, sub, to_cell, q)) return false;
    if (p.x == q.x && p.z == q.z) return from_cell == to_cell;
    if (p.z == q.z && p.z % sub == 0) return walkGridLine(g, 0, sub, from_cell, p.x, to_cell, q.x, p.z / sub);
    if (p.x == q.x && p.x % sub == 0) return walkGridLine(g, 1, sub, from_cell, p.z, to_cell, q.z, p.x / sub);
    return walkCells(g, sub, from_cell, p, to_cell, q);
}

bool povCornersVisible(const GraphView& g, uint32_t a, uint32_t b) {
    return povSegmentVisible(g, povCornerCell(g, a), povCornerPoint(g, a), povCornerCell(g, b),
                             povCornerPoint(g, b));
}

Vec3 povPlacePoint(const GraphView& g, uint32_t cell, Vec3 point, PovPoint* fixed) {
    const fmt::GraphHeader& h = g.header;
    const fmt::NodeCell c = fmt::decodeNodeCell(g.layer_cells + size_t(cell) * fmt::kNodeCellSize);
    const int64_t x = c.column % h.size_x, z = c.column / h.size_x;
    const int64_t sub = povSubdivision(h);
    Vec3 out{point.x, h.origin[1] + float(c.y) * h.cell_height, point.z};
    auto place = [&](float world, float origin, int64_t index, float& placed, int64_t& exact) {
        double u = (double(world) - origin) / h.cell_size;
        if (!std::isfinite(u)) {
            u = double(index) + 0.5;  // no usable coordinate: the cell centre
            placed = float(double(origin) + u * h.cell_size);
        } else if (u < double(index) || u > double(index + 1)) {
            u = u < double(index) ? double(index) : double(index + 1);
            placed = float(double(origin) + u * h.cell_size);
        }
        exact = int64_t(std::llround(u * double(sub)));
        exact = exact < index * sub ? index * sub : (exact > (index + 1) * sub ? (index + 1) * sub : exact);
    };
    PovPoint exact;
    place(point.x, h.origin[0], x, out.x, exact.x);
    place(point.z, h.origin[2], z, out.z, exact.z);
    if (fixed != nullptr) *fixed = exact;
    return out;
}

bool povLineOfSight(const GraphView& g, uint32_t from_cell, Vec3 from, uint32_t to_cell, Vec3 to) {
    if (!g.isPov() || from_cell >= g.layer_cell_count || to_cell >= g.layer_cell_count) return false;
    PovPoint p, q;
    povPlacePoint(g, from_cell, from, &p);
    povPlacePoint(g, to_cell, to, &q);
    return povSegmentVisible(g, from_cell, p, to_cell, q);
}

PathStatus PathQuery::searchPov(Vec3 from, PovPoint ps, uint32_t start_cell, Vec3 to, PovPoint pg,
                                uint32_t goal_cell) {
    const GraphView& g = *graph_;
    from_ = from;
    to_ = to;
    const uint32_t n = g.nodeCount();
    const uint32_t start = n, goal = n + 1;  // virtual nodes
    const uint32_t component = g.layer_components[start_cell];
    if (component != g.layer_components[goal_cell]) return PathStatus::no_path;
    if (povSegmentVisible(g, start_cell, ps, goal_cell, pg)) {
        path_[0] = start;
        path_[1] = goal;
        path_length_ = 2;
        cost_ = distance(from, to);
        return PathStatus::found;
    }
    if (++stamp_ == 0) {
        std::memset(static_cast<void*>(records_), 0, sizeof(Record) * record_count_);
        stamp_ = 1;
    }
    heap_size_ = 0;
    auto h = [&](uint32_t v) { return v == goal ? 0.0 : distance(g.position(v), to) * kHeuristicSafety; };
    auto relax = [&](uint32_t from_node, uint32_t v, double new_g) {
        Record& r = records_[v];
        if (r.stamp != stamp_) {
            r = Record{new_g, new_g + h(v), from_node, stamp_, kNotInHeap, 0};
            heapPush(v);
        } else if (r.heap_index != kClosed && new_g < r.g) {
            r.f += new_g - r.g;
            r.g = new_g;
            r.parent = from_node;
            heapDecrease(v);
        }
    };
    records_[start] = Record{0.0, distance(from, to) * kHeuristicSafety, kNoNode, stamp_, kNotInHeap, 0};
    heapPush(start);
    while (heap_size_ > 0) {
        const uint32_t u = heapPop();
        ++expansions_;
        if (u == goal) {
            finishPath(goal);
            // The length of the polyline in double, not the sum of the f32 edge costs.
            cost_ = 0;
            Vec3 previous = from;
            for (uint32_t i = 1; i < path_length_; ++i) {
                const Vec3 next = i + 1 < path_length_ ? g.position(path_[i]) : to;
                cost_ += distance(previous, next);
                previous = next;
            }
            return PathStatus::found;
        }
        if (max_expansions_ != 0 && expansions_ >= max_expansions_) return PathStatus::out_of_nodes;
        const double g_u = records_[u].g;
        if (u == start) {
            // The corners the start sees, when a path bending there could come from the start.
            for (uint32_t c = 0; c < n; ++c) {
                const uint32_t cell = povCornerCell(g, c);
                if (g.layer_components[cell] != component) continue;
                const PovPoint pc = povCornerPoint(g, c);
                if (!povCornerAdmits(g, c, ps.x - pc.x, ps.z - pc.z)) continue;
                if (!povSegmentVisible(g, start_cell, ps, cell, pc)) continue;
                relax(start, c, distance(from, g.position(c)));
            }
            continue;
        }
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
            relax(u, g.edgeTarget(u, e), g_u + double(g.edge_costs[e]));
        const PovPoint pu = povCornerPoint(g, u);
        if (povCornerAdmits(g, u, pg.x - pu.x, pg.z - pu.z) &&
            povSegmentVisible(g, povCornerCell(g, u), pu, goal_cell, pg))
            relax(u, goal, g_u + distance(g.position(u), to));
    }
    return PathStatus::no_path;
}

uint32_t PathQuery::povPolyline(Vec3* out, uint32_t capacity) const {
    for (uint32_t i = 0; i < path_length_ && i < capacity; ++i) {
        if (i == 0) out[i] = from_;
        else if (i + 1 == path_length_) out[i] = to_;
        else out[i] = graph_->position(path_[i]);
    }
    return path_length_;
}

}  // namespace navrt
