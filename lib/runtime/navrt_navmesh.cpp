// navrt on navigation meshes: the view of the mesh sections (validated by formats/graph_sections.h,
// shared with the bake-side loader), point location through the grid index, detail heights,
// raycasts (Cyrus-Beck clipping against each convex polygon in turn), A* over polygons where each
// polygon is entered at the point of its portal a taut path from the parent's entry point towards
// the goal would cross (closer to the true path length than Detour's portal midpoints; polygons
// reopen when a better entry is found), and the funnel algorithm (M. Mononen's "simple stupid
// funnel"; Lee & Preparata 1984 for the underlying shortest path in a polygon channel) for the
// straight path.
#include <cmath>
#include <cstring>
#include <functional>

#include "lib/runtime/navrt_heap.h"
#include "lib/runtime/navrt_query.h"

#include "formats/graph_sections.h"
#include "formats/navmesh_locate.h"

namespace navrt {

using nav::formats::makeError;
namespace fmt = nav::formats;

namespace {

using heap::kClosed;
using heap::kNotInHeap;
constexpr double kHeuristicSafety = 1.0 - 1e-6;

Vec3 vertex(const GraphView& g, uint32_t index) {
    const float* v = g.mesh_vertices + 3 * size_t(index);
    return {v[0], v[1], v[2]};
}

double distance(Vec3 a, Vec3 b) {
    const double dx = double(a.x) - b.x, dy = double(a.y) - b.y, dz = double(a.z) - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// 2D cross product in XZ of (b - a) and (c - a).
double cross(Vec3 a, Vec3 b, Vec3 c) {
    return (double(b.x) - a.x) * (double(c.z) - a.z) - (double(b.z) - a.z) * (double(c.x) - a.x);
}

}  // namespace

fmt::MeshArrays meshArrays(const GraphView& g) {
    fmt::MeshArrays m;
    m.vertices = g.mesh_vertices;
    m.poly_offsets = g.poly_offsets;
    m.poly_vertices = g.poly_vertices;
    m.detail_offsets = g.detail_offsets;
    m.detail_triangles = g.detail_triangles;
    m.index = g.mesh_index;
    m.index_offsets = g.index_offsets;
    m.index_polys = g.index_polys;
    return m;
}

Error viewNavmeshSections(const fmt::GraphSections& s, uint32_t area_count, GraphView& out) {
    using G = fmt::GraphSection;
    if (Error e = fmt::validateNavmeshSections(out.header, s, area_count, out.mesh_index)) return e;
    auto u32 = [&](G part) { return reinterpret_cast<const uint32_t*>(s[part].data); };
    out.mesh_vertices = reinterpret_cast<const float*>(s[G::mesh_vertices].data);
    out.mesh_vertex_count = uint32_t(s[G::mesh_vertices].size / 12);
    out.poly_offsets = u32(G::poly_offsets);
    out.poly_vertices = u32(G::poly_vertices);
    out.poly_neighbours = u32(G::poly_neighbours);
    out.poly_areas = s[G::poly_areas].data;
    out.detail_offsets = u32(G::detail_offsets);
    out.detail_triangles = reinterpret_cast<const float*>(s[G::detail_triangles].data);
    out.index_offsets = u32(G::mesh_index_offsets);
    out.index_polys = u32(G::mesh_index_polys);
    return {};
}

bool polyHeight(const GraphView& g, uint32_t poly, float x, float z, float& y) {
    return fmt::meshPolyHeight(meshArrays(g), poly, x, z, y);
}

MeshPoint locateOnMesh(const GraphView& g, Vec3 p, float horizontal_tolerance,
                       float vertical_tolerance, uint32_t hint) {
    MeshPoint result;
    if (!g.isNavmesh()) return result;
    const float point[3] = {p.x, p.y, p.z};
    const fmt::MeshLocation at = fmt::meshLocate(meshArrays(g), point, horizontal_tolerance,
                                                 vertical_tolerance, hint, g.nodeCount());
    result.poly = at.poly;
    result.distance = at.distance;
    result.position = {at.position[0], at.position[1], at.position[2]};
    return result;
}

RaycastHit raycast(const GraphView& g, uint32_t start, Vec3 from, Vec3 to) {
    RaycastHit result;
    if (!g.isNavmesh() || start >= g.header.node_count) return result;
    const Vec3 dir{to.x - from.x, 0, to.z - from.z};
    uint32_t current = start;
    double t_entered = 0;
    for (uint32_t guard = 0; guard <= g.header.node_count; ++guard) {
        ++result.visited;
        result.last_poly = current;
        const uint32_t first = g.poly_offsets[current], n = g.poly_offsets[current + 1] - first;
        const double s = fmt::meshPolyOrientation(meshArrays(g), current);
        double t_exit = 1e300;
        uint32_t exit_edge = kNoNode;
        for (uint32_t k = 0; k < n; ++k) {
            const Vec3 a = vertex(g, g.poly_vertices[first + k]);
            const Vec3 b = vertex(g, g.poly_vertices[first + (k + 1) % n]);
            const double ex = double(b.x) - a.x, ez = double(b.z) - a.z;
            const double f0 = s * (ex * (double(from.z) - a.z) - ez * (double(from.x) - a.x));
            const double denom = s * (ex * dir.z - ez * dir.x);
            if (denom >= 0) continue;  // moving inwards or parallel to this edge
            const double t = -f0 / denom;
            if (t < t_entered - 1e-7) continue;
            if (t < t_exit) {
                t_exit = t;
                exit_edge = k;
            }
        }
        if (exit_edge == kNoNode || t_exit >= 1.0) {
            result.t = 1.0f;
            return result;
        }
        const uint32_t next = g.poly_neighbours[first + exit_edge];
        if (next == kNoNode) {
            const Vec3 a = vertex(g, g.poly_vertices[first + exit_edge]);
            const Vec3 b = vertex(g, g.poly_vertices[first + (exit_edge + 1) % n]);
            double nx = -s * (double(b.z) - a.z), nz = s * (double(b.x) - a.x);  // outward
            const double len = std::sqrt(nx * nx + nz * nz);
            if (len > 0) {
                nx /= len;
                nz /= len;
            }
            // Orient the normal against the ray.
            if (nx * dir.x + nz * dir.z > 0) {
                nx = -nx;
                nz = -nz;
            }
            result.hit = true;
            result.t = float(t_exit < 0 ? 0 : t_exit);
            result.normal = {float(nx), 0.0f, float(nz)};
            return result;
        }
        current = next;
        t_entered = t_exit;
    }
    return result;
}

// The portal (shared edge) from polygon a into its neighbour b, or false.
bool portalBetween(const GraphView& g, uint32_t a, uint32_t b, Vec3& p, Vec3& q) {
    const uint32_t first = g.poly_offsets[a], n = g.poly_offsets[a + 1] - first;
    for (uint32_t k = 0; k < n; ++k) {
        if (g.poly_neighbours[first + k] != b) continue;
        p = vertex(g, g.poly_vertices[first + k]);
        q = vertex(g, g.poly_vertices[first + (k + 1) % n]);
        return true;
    }
    return false;
}

// The point x of portal [a, b] minimising |from - x| + |x - goal| in XZ (where a taut path through
// the portal would cross it): reflect `goal` across the portal's line when both lie on one side,
// intersect, and clamp into the portal (kept a hair inside its ends). Height is interpolated along
// the portal.
Vec3 portalCrossing(Vec3 from, Vec3 goal, Vec3 a, Vec3 b) {
    const double ex = double(b.x) - a.x, ez = double(b.z) - a.z;
    const double len2 = ex * ex + ez * ez;
    if (len2 <= 0) return a;
    auto side = [&](Vec3 p) { return ex * (double(p.z) - a.z) - ez * (double(p.x) - a.x); };
    double gx = goal.x, gz = goal.z;
    const double s_from = side(from), s_goal = side(goal);
    if ((s_from > 0 && s_goal > 0) || (s_from < 0 && s_goal < 0)) {  // reflect the goal
        const double t = ((gx - a.x) * ex + (gz - a.z) * ez) / len2;
        const double px = a.x + t * ex, pz = a.z + t * ez;
        gx = 2 * px - gx;
        gz = 2 * pz - gz;
    }
    // Intersect segment from -> (gx, gz) with the portal's line: parameter u along the portal.
    const double dx = gx - from.x, dz = gz - from.z;
    const double denom = ex * dz - ez * dx;
    double u;
    if (std::fabs(denom) < 1e-12) {
        u = ((double(from.x) - a.x) * ex + (double(from.z) - a.z) * ez) / len2;
    } else {
        u = ((double(from.x) - a.x) * dz - (double(from.z) - a.z) * dx) / denom;
    }
    const double margin = 1e-3;
    u = u < margin ? margin : (u > 1 - margin ? 1 - margin : u);
    return {float(a.x + u * ex), float(a.y + u * (double(b.y) - a.y)), float(a.z + u * ez)};
}

PathStatus PathQuery::findPathBetween(Vec3 from, uint32_t start, Vec3 to, uint32_t goal) {
    const PathStatus status = beginPathBetween(from, start, to, goal);
    return status == PathStatus::in_progress ? step(UINT64_MAX) : status;
}

PathStatus PathQuery::beginPathBetween(Vec3 from, uint32_t start, Vec3 to, uint32_t goal) {
    use_clusters_ = bpmx_ = false;  // navmesh and POV searches keep the standard heuristic
    if (graph_ != nullptr && graph_->isPov()) {
        beginSearch(true);
        from_ = from;
        to_ = to;
        if (start >= graph_->layer_cell_count) return PathStatus::invalid_start;
        if (goal >= graph_->layer_cell_count) return PathStatus::invalid_goal;
        PovPoint ps, pg;
        const Vec3 placed_from = povPlacePoint(*graph_, start, from, &ps);
        const Vec3 placed_to = povPlacePoint(*graph_, goal, to, &pg);
        return beginPov(placed_from, ps, start, placed_to, pg, goal);
    }
    if (graph_ == nullptr || !graph_->isNavmesh()) {
        const PathStatus status = beginPath(start, goal);
        from_ = from;
        to_ = to;
        return status;
    }
    beginSearch(true);
    from_ = from;
    to_ = to;
    const GraphView& g = *graph_;
    if (start >= g.nodeCount()) return PathStatus::invalid_start;
    if (goal >= g.nodeCount()) return PathStatus::invalid_goal;
    if (g.components[start] != g.components[goal]) return PathStatus::no_path;
    if (start != goal && restricted() && !enters(goal)) return PathStatus::no_path;
    return beginMesh(start, goal);
}

PathStatus PathQuery::beginMesh(uint32_t start, uint32_t goal) {
    const GraphView& g = *graph_;
    startRecords();
    preparePointShortcuts();
    search_goal_ = goal;
    const double start_g = start == goal
                               ? distance(from_, to_) * g.area_costs[g.poly_areas[start]] *
                                     areaFactor(g.poly_areas[start])
                               : 0.0;
    records_[start] = Record{start_g,    start_g + (start == goal ? 0 : pointHeuristic(from_)),
                             kNoNode,    stamp_,
                             kNotInHeap, kNoNode};
    setEntryPoint(start, from_);
    heapPush(start);
    active_ = Active::mesh;
    return PathStatus::in_progress;
}

PathStatus PathQuery::meshLoop(uint64_t budget) {
    const GraphView& g = *graph_;
    const uint32_t goal = search_goal_;
    while (heap_size_ > 0) {
        if (budget == 0) return PathStatus::in_progress;
        --budget;
        const uint32_t u = heapPop();
        ++expansions_;
        noteBest(u);
        if (u == goal) return endSearch(finishPath(goal));
        if (max_expansions_ != 0 && expansions_ >= max_expansions_)
            return endSearch(PathStatus::out_of_nodes);
        const Vec3 at = entryPoint(u);
        const double cost_u = g.area_costs[g.poly_areas[u]] * areaFactor(g.poly_areas[u]);
        const bool restricted_now = restricted();
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t v = g.edgeTarget(u, e);
            if (restricted_now) {
                if (!enters(v)) continue;
                const uint32_t l = g.edgeLink(e);
                if (l != fmt::kNoLink && blocking_ != nullptr && blocking_->link(l)) continue;
            }
            Vec3 mid;
            double step = 0;
            const uint32_t link = g.edgeLink(e);
            if (link != fmt::kNoLink) {
                // Walk to the link's take-off, take it, enter v where it lands.
                Vec3 take_off;
                double link_cost = 0;
                linkStep(link, u, take_off, mid, link_cost);
                step = distance(at, take_off) * cost_u + link_cost;
            } else {
                Vec3 a, b;
                if (!portalBetween(g, u, v, a, b)) continue;
                mid = portalCrossing(at, to_, a, b);
                step = distance(at, mid) * cost_u;
            }
            double h = pointHeuristic(mid);
            if (v == goal) {
                step += distance(mid, to_) * g.area_costs[g.poly_areas[v]] *
                        areaFactor(g.poly_areas[v]);
                h = 0;
            }
            const double new_g = records_[u].g + step;
            Record& r = records_[v];
            if (r.stamp != stamp_) {
                r = Record{new_g, new_g + h, u, stamp_, kNotInHeap, e};
                setEntryPoint(v, mid);
                heapPush(v);
            } else if (new_g + h < r.f - 1e-9 && !ancestorOf(v, u)) {
                // Entry points depend on the parent, so a closed polygon may improve: reopen it
                // (unless it leads to u: a better estimate from a new entry point must not make
                // the parents a cycle).
                // Two entries into one polygon compare by g + h, the cost so far plus the
                // heuristic's estimate from where each enters (a far-off lane of a wide link can
                // be cheaper to reach and yet lead away from the goal).
                r.g = new_g;
                r.f = new_g + h;
                r.parent = u;
                r.via = e;
                setEntryPoint(v, mid);
                if (r.heap_index == kClosed || r.heap_index == kNotInHeap)
                    heapPush(v);
                else
                    heapDecrease(v);
            }
        }
    }
    return endSearch(PathStatus::no_path);
}

double PathQuery::pointHeuristic(Vec3 p) const {
    const double h_scale =
        double(graph_->header.min_cost_multiplier) * kHeuristicSafety * filter_scale_;
    const double plain = distance(p, to_) * h_scale;
    if (point_shortcut_count_ == 0) return plain;
    if (point_shortcuts_ == nullptr) return std::fmin(plain, point_shortcut_floor_);
    double best = plain;
    for (uint32_t k = 0; k < point_shortcut_count_; ++k)
        best = std::fmin(best, distance(p, point_shortcuts_[k].from_point) * h_scale +
                                   point_shortcuts_[k].bound);
    return best;
}

void PathQuery::preparePointShortcuts() const {
    if (point_shortcuts_ == nullptr) return;
    const double h_scale =
        double(graph_->header.min_cost_multiplier) * kHeuristicSafety * filter_scale_;
    const Shortcut* s = point_shortcuts_;
    chainShortcuts(
        point_shortcuts_, point_shortcut_count_, kHeuristicSafety,
        [&](uint32_t i) { return distance(s[i].to_point, to_) * h_scale; },
        [&](uint32_t i, uint32_t j) { return distance(s[i].to_point, s[j].from_point) * h_scale; });
}

void orientPortal(Vec3 before, Vec3 a, Vec3 b, Vec3& left, Vec3& right) {
    if (cross(before, a, b) < 0) {
        right = a;
        left = b;
    } else {
        right = b;
        left = a;
    }
}

void stringPull(uint32_t portal_count, const std::function<void(uint32_t, Vec3&, Vec3&)>& portal,
                const std::function<void(Vec3)>& emit) {
    Vec3 left, right;
    portal(0, left, right);
    auto same = [](Vec3 a, Vec3 b) { return a.x == b.x && a.z == b.z; };
    Vec3 apex = left;
    uint32_t apex_index = 0, left_index = 0, right_index = 0;
    for (uint32_t i = 1; i < portal_count; ++i) {
        Vec3 l, r;
        portal(i, l, r);
        // Tighten the right side.
        if (cross(apex, right, r) <= 0) {
            if (same(apex, right) || cross(apex, left, r) > 0) {
                right = r;
                right_index = i;
            } else {
                apex = left;
                apex_index = left_index;
                emit(apex);
                left = right = apex;
                left_index = right_index = apex_index;
                i = apex_index;
                continue;
            }
        }
        // Tighten the left side.
        if (cross(apex, left, l) >= 0) {
            if (same(apex, left) || cross(apex, right, l) < 0) {
                left = l;
                left_index = i;
            } else {
                apex = right;
                apex_index = right_index;
                emit(apex);
                left = right = apex;
                left_index = right_index = apex_index;
                i = apex_index;
                continue;
            }
        }
    }
    Vec3 end, unused;
    portal(portal_count - 1, end, unused);
    emit(end);
}

void PathQuery::funnelRange(uint32_t first, uint32_t last, Vec3 start, Vec3 end, Vec3* out,
                            uint32_t capacity, uint32_t& count) const {
    const GraphView& g = *graph_;
    const uint32_t polys = last - first + 1;
    const uint32_t portal_count = polys + 1;  // start, the shared edges, end
    // Portal i: (left, right). The shared edge's ends are ordered by the side they lie on as seen
    // from the polygon before it.
    auto portal = [&](uint32_t i, Vec3& left, Vec3& right) {
        if (i == 0) {
            left = right = start;
        } else if (i >= polys) {
            left = right = end;
        } else {
            const uint32_t before = path_[first + i - 1], after = path_[first + i];
            Vec3 a, b;
            if (!portalBetween(g, before, after, a, b)) {
                left = right = g.position(after);
                return;
            }
            orientPortal(g.position(before), a, b, left, right);
        }
    };
    auto emit = [&](Vec3 p) {
        if (count > 0 && count - 1 < capacity) {
            const Vec3 previous = out[count - 1];
            if (previous.x == p.x && previous.y == p.y && previous.z == p.z) return;
        }
        if (count > 0) segment_scratch_[count - 1] = fmt::kNoLink;
        if (count < capacity) out[count] = p;
        ++count;
    };
    stringPull(portal_count, portal, emit);
}

uint32_t PathQuery::funnel(Vec3* out, uint32_t capacity) const {
    // Segment links go to segment_scratch_, which smooth() hands out.
    if (graph_ == nullptr || path_length_ == 0) return 0;
    const GraphView& g = *graph_;
    const Vec3 start = have_points_ ? from_ : g.position(path_[0]);
    const Vec3 end = have_points_ ? to_ : g.position(path_[path_length_ - 1]);
    uint32_t count = 0;
    if (capacity > 0) out[0] = start;
    count = 1;
    // The corridor is cut at every link step: the funnel runs up to the link's take-off, the
    // link is one segment, and the next funnel starts where it lands.
    uint32_t first = 0;
    Vec3 from = start;
    for (uint32_t k = 0; k + 1 < path_length_; ++k) {
        const uint32_t link = pathLink(k);
        if (link == fmt::kNoLink) continue;
        Vec3 take_off, landing;
        double cost = 0;
        linkStep(link, path_[k], take_off, landing, cost);
        funnelRange(first, k, from, take_off, out, capacity, count);
        segment_scratch_[count - 1] = link;
        if (count < capacity) out[count] = landing;
        ++count;
        first = k + 1;
        from = landing;
    }
    funnelRange(first, path_length_ - 1, from, end, out, capacity, count);
    return count;
}

}  // namespace navrt
