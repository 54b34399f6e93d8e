// navrt on points-of-visibility graphs: the view of the layer grid and optimal any-angle paths
// (Lozano-Perez & Wesley 1979 over taut edges, Oh & Leong 2017). Section validation
// (formats/graph_sections.h) and the exact line-of-sight and taut-corner predicates
// (formats/pov_sight.h, where the method is described) are shared with the POV bake.
#include <cmath>
#include <cstring>

#include "lib/runtime/navrt_heap.h"
#include "lib/runtime/navrt_query.h"

#include "formats/graph_sections.h"
#include "formats/pov_sight.h"

namespace navrt {

using nav::formats::makeError;
namespace fmt = nav::formats;

namespace {

using heap::kClosed;
using heap::kNotInHeap;
constexpr double kHeuristicSafety = 1.0 - 1e-6;

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

fmt::PovGrid povGrid(const GraphView& g) {
    return fmt::povGrid(g.header, g.layer_cell_count, g.layer_cells, g.layer_neighbours,
                        g.pov_corners);
}

uint32_t povCornerCell(const GraphView& g, uint32_t corner) {
    return fmt::povCornerCell(povGrid(g), corner);
}

Vec3 povPlacePoint(const GraphView& g, uint32_t cell, Vec3 point, PovPoint* fixed) {
    const fmt::GraphHeader& h = g.header;
    const fmt::NodeCell c = fmt::decodeNodeCell(g.layer_cells + size_t(cell) * fmt::kNodeCellSize);
    const int64_t x = c.column % h.size_x, z = c.column / h.size_x;
    const int64_t sub = fmt::povSubdivision(h);
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
        exact = exact < index * sub ? index * sub
                                    : (exact > (index + 1) * sub ? (index + 1) * sub : exact);
    };
    PovPoint exact;
    place(point.x, h.origin[0], x, out.x, exact.x);
    place(point.z, h.origin[2], z, out.z, exact.z);
    if (fixed != nullptr) *fixed = exact;
    return out;
}

bool povLineOfSight(const GraphView& g, uint32_t from_cell, Vec3 from, uint32_t to_cell, Vec3 to) {
    if (!g.isPov() || from_cell >= g.layer_cell_count || to_cell >= g.layer_cell_count)
        return false;
    PovPoint p, q;
    povPlacePoint(g, from_cell, from, &p);
    povPlacePoint(g, to_cell, to, &q);
    return fmt::povSegmentVisible(povGrid(g), from_cell, p, to_cell, q);
}

PathStatus PathQuery::beginPov(Vec3 from, PovPoint ps, uint32_t start_cell, Vec3 to, PovPoint pg,
                               uint32_t goal_cell) {
    const GraphView& g = *graph_;
    const fmt::PovGrid grid = povGrid(g);
    from_ = from;
    to_ = to;
    const uint32_t n = g.nodeCount();
    const uint32_t start = n, goal = n + 1;  // virtual nodes
    const uint32_t component = g.layer_components[start_cell];
    if (component != g.layer_components[goal_cell]) return PathStatus::no_path;
    // A visible goal is the straight segment, unless a shortcut (a teleport) could beat it.
    const bool visible = fmt::povSegmentVisible(grid, start_cell, ps, goal_cell, pg);
    if (visible && point_shortcut_count_ == 0) {
        path_[0] = start;
        path_[1] = goal;
        path_length_ = 2;
        cost_ = distance(from, to);
        return PathStatus::found;
    }
    startRecords();
    preparePointShortcuts();  // links cheaper than their length (teleports)
    pov_from_ = ps;
    pov_to_ = pg;
    pov_start_cell_ = start_cell;
    pov_goal_cell_ = goal_cell;
    pov_component_ = component;
    pov_visible_ = visible;
    search_goal_ = goal;
    records_[start] = Record{0.0, pointHeuristic(from), kNoNode, stamp_, kNotInHeap, kNoNode};
    heapPush(start);
    active_ = Active::pov;
    return PathStatus::in_progress;
}

PathStatus PathQuery::povLoop(uint64_t budget) {
    const GraphView& g = *graph_;
    const fmt::PovGrid grid = povGrid(g);
    const Vec3 from = from_, to = to_;
    const PovPoint ps = pov_from_, pg = pov_to_;
    const uint32_t start_cell = pov_start_cell_, goal_cell = pov_goal_cell_;
    const uint32_t component = pov_component_;
    const bool visible = pov_visible_;
    const uint32_t n = g.nodeCount();
    const uint32_t start = n, goal = n + 1;  // virtual nodes
    // A link-end vertex standing exactly on the start or goal point: joined at no distance (no
    // direction to test, nothing to see past).
    auto atLinkEnd = [&](uint32_t v, PovPoint pv, uint32_t cell, PovPoint p, uint32_t p_cell) {
        return pv.x == p.x && pv.z == p.z && cell == p_cell &&
               (fmt::decodePovCorner(g.pov_corners + size_t(v) * fmt::kPovCornerSize).flags &
                fmt::kPovCornerLinkEnd) != 0;
    };
    auto h = [&](uint32_t v) { return v == goal ? 0.0 : pointHeuristic(g.position(v)); };
    auto relax = [&](uint32_t from_node, uint32_t v, double new_g, uint32_t via) {
        Record& r = records_[v];
        if (r.stamp != stamp_) {
            r = Record{new_g, new_g + h(v), from_node, stamp_, kNotInHeap, via};
            heapPush(v);
        } else if (r.heap_index != kClosed && new_g < r.g) {
            r.f += new_g - r.g;
            r.g = new_g;
            r.parent = from_node;
            r.via = via;
            heapDecrease(v);
        }
    };
    while (heap_size_ > 0) {
        if (budget == 0) return PathStatus::in_progress;
        --budget;
        const uint32_t u = heapPop();
        ++expansions_;
        noteBest(u);
        if (u == goal) {
            active_ = Active::none;
            finishPath(goal);
            // The length of the polyline in double, not the sum of the f32 edge costs; a link
            // step costs the link's cost.
            cost_ = 0;
            Vec3 previous = from;
            for (uint32_t i = 1; i < path_length_; ++i) {
                const Vec3 next = i + 1 < path_length_ ? g.position(path_[i]) : to;
                const uint32_t link = pathLink(i - 1);
                if (link != fmt::kNoLink) {
                    Vec3 take_off, landing;
                    double link_cost = 0;
                    linkStep(link, path_[i - 1], take_off, landing, link_cost);
                    cost_ += link_cost;
                } else {
                    cost_ += distance(previous, next);
                }
                previous = next;
            }
            return PathStatus::found;
        }
        if (max_expansions_ != 0 && expansions_ >= max_expansions_)
            return endSearch(PathStatus::out_of_nodes);
        const double g_u = records_[u].g;
        if (u == start) {
            // The corners the start sees, when a path bending there could come from the start.
            for (uint32_t c = 0; c < n; ++c) {
                if (blocking_ != nullptr && blocking_->node(c)) continue;
                const uint32_t cell = fmt::povCornerCell(grid, c);
                if (g.layer_components[cell] != component) continue;
                const PovPoint pc = fmt::povCornerPoint(grid, c);
                if (atLinkEnd(c, pc, cell, ps, start_cell)) {
                    relax(start, c, distance(from, g.position(c)), kNoNode);
                    continue;
                }
                if (!fmt::povCornerAdmits(grid, c, ps.x - pc.x, ps.z - pc.z)) continue;
                if (!fmt::povSegmentVisible(grid, start_cell, ps, cell, pc)) continue;
                relax(start, c, distance(from, g.position(c)), kNoNode);
            }
            if (visible) relax(start, goal, distance(from, to), kNoNode);
            continue;
        }
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t v = g.edgeTarget(u, e);
            if (blocking_ != nullptr && blocking_->count() > 0) {
                if (blocking_->node(v)) continue;
                const uint32_t l = g.edgeLink(e);
                if (l != fmt::kNoLink && blocking_->link(l)) continue;
            }
            relax(u, v, g_u + double(g.edge_costs[e]), e);
        }
        const PovPoint pu = fmt::povCornerPoint(grid, u);
        const uint32_t cu = fmt::povCornerCell(grid, u);
        if (atLinkEnd(u, pu, cu, pg, goal_cell) ||
            (fmt::povCornerAdmits(grid, u, pg.x - pu.x, pg.z - pu.z) &&
             fmt::povSegmentVisible(grid, cu, pu, goal_cell, pg)))
            relax(u, goal, g_u + distance(g.position(u), to), kNoNode);
    }
    return endSearch(PathStatus::no_path);
}

uint32_t PathQuery::povPolyline(Vec3* out, uint32_t capacity) const {
    for (uint32_t i = 0; i < path_length_ && i < capacity; ++i) {
        if (i == 0)
            out[i] = from_;
        else if (i + 1 == path_length_)
            out[i] = to_;
        else
            out[i] = graph_->position(path_[i]);
    }
    return path_length_;
}

}  // namespace navrt
