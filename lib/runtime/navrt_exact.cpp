// Polyanya on navrt's navigation meshes (see navrt_exact.h; Cui, Harabor & Grastien, IJCAI 2017).
// Conventions: XZ points as (x, z); cross(a, b, c) > 0 when c lies left of a -> b, so a polygon
// whose corners run counter-clockwise has its inside on the left of every edge. A node's interval
// lies on edge k (corner k -> corner k + 1, counter-clockwise) of the polygon it leads into; seen
// from the root, which is on the far side of that edge, corner k is on the left.
#include "lib/runtime/navrt_exact.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "formats/navmesh_locate.h"

namespace navrt {

namespace fmt = nav::formats;

namespace {

constexpr double kEps = 1e-9;

double cross(const double a[2], const double b[2], const double c[2]) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}
double dist(const double a[2], const double b[2]) {
    const double dx = a[0] - b[0], dz = a[1] - b[1];
    return std::sqrt(dx * dx + dz * dz);  // not hypot: no overflow here, and 5x faster
}
void lerp(const double a[2], const double b[2], double t, double out[2]) {
    out[0] = a[0] + t * (b[0] - a[0]);
    out[1] = a[1] + t * (b[1] - a[1]);
}

// Whether p lies on the segment a-b (within a micrometre).
bool onSegment(const double a[2], const double b[2], const double p[2]) {
    const double len = dist(a, b);
    if (std::fabs(cross(a, b, p)) > 1e-6 * (1 + len)) return false;
    const double t = (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1]);
    return t >= -1e-6 * (1 + len) && t <= len * len + 1e-6 * (1 + len);
}

// Narrows [lo, hi] to the t where f(t) = f0 + t (f1 - f0) >= bound.
void clip(double f0, double f1, double bound, double& lo, double& hi) {
    const double df = f1 - f0;
    if (std::fabs(df) < 1e-15) {
        if (f0 < bound) hi = -1;  // empty
        return;
    }
    const double t = (bound - f0) / df;
    if (df > 0)
        lo = std::max(lo, t);
    else
        hi = std::min(hi, t);
}

}  // namespace

Error ExactMeshQuery::init(const GraphView& g) {
    graph_ = nullptr;
    if (!g.isNavmesh())
        return fmt::makeError(fmt::ErrorCode::bad_section, 0, 0,
                              "exact paths need a navigation mesh asset");
    const uint32_t polys = g.nodeCount();
    area_cost_ = polys > 0 ? g.area_costs[g.poly_areas[0]] : 1.0;
    uniform_costs_ = true;
    for (uint32_t p = 0; p < polys; ++p)
        uniform_costs_ = uniform_costs_ && g.area_costs[g.poly_areas[p]] == area_cost_;
    if (!uniform_costs_) area_cost_ = 1;  // the geometric length (see the header)
    const fmt::MeshArrays mesh = meshArrays(g);
    // Corners and neighbours in counter-clockwise order (corner n repeats corner 0). Stored edge
    // i runs from stored corner i to i + 1; on a clockwise polygon counter-clockwise edge k is
    // stored edge n - 2 - k, run the other way.
    ccw_vertices_.resize(size_t(g.poly_offsets[polys]) + polys);
    ccw_neighbours_.resize(g.poly_offsets[polys]);
    for (uint32_t p = 0; p < polys; ++p) {
        const uint32_t first = g.poly_offsets[p], n = g.poly_offsets[p + 1] - first;
        const bool ccw = fmt::meshPolyOrientation(mesh, p) > 0;
        for (uint32_t k = 0; k <= n; ++k)
            ccw_vertices_[first + p + k] = g.poly_vertices[first + (ccw ? k % n : n - 1 - k % n)];
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t next = g.poly_neighbours[first + (ccw ? k : (2 * n - 2 - k) % n)];
            ccw_neighbours_[first + k] = next < polys ? next : kNoNode;
        }
    }
    xz_.resize(2 * size_t(g.mesh_vertex_count));
    for (uint32_t v = 0; v < g.mesh_vertex_count; ++v) {
        xz_[2 * size_t(v)] = g.mesh_vertices[3 * size_t(v)];
        xz_[2 * size_t(v) + 1] = g.mesh_vertices[3 * size_t(v) + 2];
    }
    // Corners: the wall vertices where a taut path can bend, those where the boundary (walked
    // with the free space on its left: counter-clockwise polygon edges without a neighbour)
    // turns right, so the free space around the vertex spans more than half a turn. Vertices
    // on a straight stretch of wall or in an inner corner are no place to turn. A vertex with
    // other than one wall edge in and one out (a pinch point, a wall edge of another tile passing
    // through it, several floors sharing it) is kept as a corner.
    {
        struct Ends {
            uint32_t in = 0, out = 0;
            double in_dir[2] = {0, 0}, out_dir[2] = {0, 0};
        };
        std::vector<Ends> ends(g.mesh_vertex_count);
        for (uint32_t p = 0; p < polys; ++p) {
            const uint32_t first = g.poly_offsets[p], n = g.poly_offsets[p + 1] - first;
            for (uint32_t k = 0; k < n; ++k) {
                if (ccw_neighbours_[first + k] != kNoNode) continue;
                const uint32_t a = ccw_vertices_[first + p + k],
                               b = ccw_vertices_[first + p + k + 1];
                const double d[2] = {xz_[2 * size_t(b)] - xz_[2 * size_t(a)],
                                     xz_[2 * size_t(b) + 1] - xz_[2 * size_t(a) + 1]};
                Ends& out = ends[a];
                Ends& in = ends[b];
                ++out.out, out.out_dir[0] = d[0], out.out_dir[1] = d[1];
                ++in.in, in.in_dir[0] = d[0], in.in_dir[1] = d[1];
            }
        }
        corner_.assign(g.mesh_vertex_count, 0);
        for (uint32_t v = 0; v < g.mesh_vertex_count; ++v) {
            const Ends& e = ends[v];
            if (e.in == 0 && e.out == 0) continue;
            if (e.in != 1 || e.out != 1) {
                corner_[v] = 1;
                continue;
            }
            const double turn = e.in_dir[0] * e.out_dir[1] - e.in_dir[1] * e.out_dir[0];
            const double along = e.in_dir[0] * e.out_dir[0] + e.in_dir[1] * e.out_dir[1];
            const double scale =
                std::hypot(e.in_dir[0], e.in_dir[1]) * std::hypot(e.out_dir[0], e.out_dir[1]);
            corner_[v] = turn < -1e-9 * scale || (std::fabs(turn) <= 1e-9 * scale && along < 0);
        }
    }
    // Corners are found on the original polygons (their walls are the same); the search runs on
    // the merged ones.
    mergeConvex(g);
    const uint32_t merged = uint32_t(offsets_.size() - 1);
    ring_xz_.resize(2 * ccw_vertices_.size());
    for (size_t k = 0; k < ccw_vertices_.size(); ++k) {
        ring_xz_[2 * k] = xz_[2 * size_t(ccw_vertices_[k])];
        ring_xz_[2 * k + 1] = xz_[2 * size_t(ccw_vertices_[k]) + 1];
    }
    // Per counter-clockwise edge: the neighbour's edge back when it joins the same two vertices.
    back_edges_.assign(offsets_[merged], kNoNode);
    for (uint32_t p = 0; p < merged; ++p) {
        const uint32_t first = offsets_[p], n = offsets_[p + 1] - first;
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t q = ccw_neighbours_[first + k];
            if (q == kNoNode) continue;
            const uint32_t qfirst = offsets_[q], qn = offsets_[q + 1] - qfirst;
            for (uint32_t m = 0; m < qn; ++m)
                if (ccw_neighbours_[qfirst + m] == p &&
                    ccw_vertices_[qfirst + q + m] == ccw_vertices_[first + p + k + 1] &&
                    ccw_vertices_[qfirst + q + m + 1] == ccw_vertices_[first + p + k])
                    back_edges_[first + k] = m;
        }
    }
    // Links, each way it can be taken, grouped by the polygon of their entry point.
    link_dirs_.clear();
    for (uint32_t i = 0; i < g.link_count; ++i) {
        const fmt::LinkRecord l = g.link(i);
        for (int way = 0; way < (l.reverse_cost > 0 ? 2 : 1); ++way) {
            LinkDir d;
            const float* e = way == 0 ? l.from : l.to;
            const float* x = way == 0 ? l.to : l.from;
            d.entry_poly = way == 0 ? l.from_node : l.to_node;
            d.exit_poly = way == 0 ? l.to_node : l.from_node;
            if (d.entry_poly >= polys || d.exit_poly >= polys) continue;
            d.entry_poly = merged_of_[d.entry_poly];
            d.exit_poly = merged_of_[d.exit_poly];
            d.link = i;
            d.e[0] = e[0], d.e[1] = e[2], d.x[0] = x[0], d.x[1] = x[2];
            d.e3 = {e[0], e[1], e[2]};
            d.x3 = {x[0], x[1], x[2]};
            d.cost = double(way == 0 ? l.cost : l.reverse_cost) / area_cost_;
            d.shortcut = d.cost < dist(d.e, d.x) - 1e-9;  // a teleport: see heuristic()
            link_dirs_.push_back(d);
        }
    }
    std::stable_sort(link_dirs_.begin(), link_dirs_.end(), [](const LinkDir& a, const LinkDir& b) {
        return a.entry_poly < b.entry_poly;
    });
    link_offsets_.assign(size_t(merged) + 1, 0);
    for (const LinkDir& d : link_dirs_) ++link_offsets_[d.entry_poly + 1];
    for (uint32_t p = 0; p < merged; ++p) link_offsets_[p + 1] += link_offsets_[p];
    findDeadEnds();
    buildClusters(g);
    shortcuts_.clear();
    for (uint32_t k = 0; k < link_dirs_.size(); ++k)
        if (link_dirs_[k].shortcut) shortcuts_.push_back(k);
    shortcut_bounds_.assign(shortcuts_.size(), 0);
    // Roots: mesh vertices, then link exits (root id mesh_vertex_count + direction).
    root_g_.assign(size_t(g.mesh_vertex_count) + link_dirs_.size(), 0);
    root_stamp_.assign(size_t(g.mesh_vertex_count) + link_dirs_.size(), 0);
    stamp_ = 0;
    graph_ = &g;
    return {};
}

void ExactMeshQuery::mergeConvex(const GraphView& g) {
    const uint32_t polys = g.nodeCount();
    // Each polygon's ring: corner i and the polygon (an original id) across edge i -> i + 1.
    struct Ring {
        std::vector<uint32_t> v, across;
    };
    std::vector<Ring> rings(polys);
    for (uint32_t p = 0; p < polys; ++p) {
        const uint32_t first = g.poly_offsets[p], n = g.poly_offsets[p + 1] - first;
        rings[p].v.assign(ccw_vertices_.begin() + first + p, ccw_vertices_.begin() + first + p + n);
        rings[p].across.assign(ccw_neighbours_.begin() + first,
                               ccw_neighbours_.begin() + first + n);
    }
    std::vector<uint32_t> rep(polys);
    for (uint32_t p = 0; p < polys; ++p) rep[p] = p;
    auto find = [&](uint32_t p) {
        while (rep[p] != p) p = rep[p] = rep[rep[p]];
        return p;
    };
    auto at = [&](uint32_t v) { return &xz_[2 * size_t(v)]; };
    // Candidate edges: shared whole (the same two vertices on both sides) by polygons of one
    // area, longest first (Hertel & Mehlhorn's greedy removal of diagonals), then by id.
    struct Candidate {
        double length;
        uint32_t p, u, v;
    };
    std::vector<Candidate> candidates;
    for (uint32_t p = 0; p < polys; ++p) {
        const Ring& r = rings[p];
        const uint32_t n = uint32_t(r.v.size());
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t q = r.across[k];
            if (q == kNoNode || q < p || g.poly_areas[q] != g.poly_areas[p]) continue;
            const uint32_t u = r.v[k], v = r.v[(k + 1) % n];
            candidates.push_back({dist(at(u), at(v)), p, u, v});
        }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.length > b.length; });
    // Whether the corner a -> b -> c does not turn right (within the corners' tolerance).
    auto convex = [&](uint32_t a, uint32_t b, uint32_t c) {
        const double *pa = at(a), *pb = at(b), *pc = at(c);
        return cross(pa, pb, pc) >= -1e-9 * dist(pa, pb) * dist(pb, pc);
    };
    std::vector<uint32_t> mark(g.mesh_vertex_count, 0);  // the corners of A, by stamp
    uint32_t stamp = 0;
    for (const Candidate& c : candidates) {
        const uint32_t a = find(c.p);
        Ring& ra = rings[a];
        const uint32_t na = uint32_t(ra.v.size());
        uint32_t i = kNoNode;
        for (uint32_t k = 0; k < na; ++k)
            if (ra.v[k] == c.u && ra.v[(k + 1) % na] == c.v) i = k;
        if (i == kNoNode || ra.across[i] == kNoNode) continue;
        const uint32_t b = find(ra.across[i]);
        if (b == a) continue;
        uint32_t shared = 0;
        for (uint32_t k = 0; k < na; ++k)
            if (ra.across[k] != kNoNode && find(ra.across[k]) == b) ++shared;
        Ring& rb = rings[b];
        const uint32_t nb = uint32_t(rb.v.size());
        uint32_t j = kNoNode;
        for (uint32_t k = 0; k < nb; ++k) {
            if (rb.across[k] == kNoNode || find(rb.across[k]) != a) continue;
            ++shared;
            if (rb.v[k] == c.v && rb.v[(k + 1) % nb] == c.u) j = k;
        }
        if (j == kNoNode || shared != 2) continue;  // one edge between them, the same both ways
        // Convex at both ends of the removed edge: at u (A's corner before it, B's after u) and
        // at v (B's corner before v, A's after it).
        const uint32_t a_prev = ra.v[(i + na - 1) % na], a_next = ra.v[(i + 2) % na];
        const uint32_t b_prev = rb.v[(j + nb - 1) % nb], b_next = rb.v[(j + 2) % nb];
        if (!convex(a_prev, c.u, b_next) || !convex(b_prev, c.v, a_next)) continue;
        if (na + nb - 2 > kMaxMergedCorners) continue;
        // No other corner in common (the union would pinch there).
        ++stamp;
        for (uint32_t v : ra.v) mark[v] = stamp;
        bool pinched = false;
        for (uint32_t k = 2; k < nb && !pinched; ++k) pinched = mark[rb.v[(j + k) % nb]] == stamp;
        if (pinched) continue;
        // The union: A from v round to u, whose edge is now B's edge out of u, then B on to v.
        Ring joined;
        joined.v.reserve(na + nb - 2);
        joined.across.reserve(na + nb - 2);
        for (uint32_t k = 1; k <= na; ++k) {
            const uint32_t ak = (i + k) % na;
            joined.v.push_back(ra.v[ak]);
            joined.across.push_back(ak == i ? rb.across[(j + 1) % nb] : ra.across[ak]);
        }
        for (uint32_t k = 2; k < nb; ++k) {
            joined.v.push_back(rb.v[(j + k) % nb]);
            joined.across.push_back(rb.across[(j + k) % nb]);
        }
        const uint32_t keep = std::min(a, b), gone = std::max(a, b);
        rings[keep] = std::move(joined);
        rings[gone] = {};
        rep[gone] = keep;
    }
    // The merged polygons numbered in the order of their smallest original id.
    std::vector<uint32_t> id_of(polys, kNoNode);
    uint32_t count = 0;
    for (uint32_t p = 0; p < polys; ++p)
        if (find(p) == p) id_of[p] = count++;
    merged_of_.resize(polys);
    for (uint32_t p = 0; p < polys; ++p) merged_of_[p] = id_of[find(p)];
    offsets_.assign(size_t(count) + 1, 0);
    ccw_vertices_.clear();
    ccw_neighbours_.clear();
    for (uint32_t p = 0; p < polys; ++p) {
        if (id_of[p] == kNoNode) continue;
        const Ring& r = rings[p];
        const uint32_t n = uint32_t(r.v.size());
        offsets_[id_of[p] + 1] = offsets_[id_of[p]] + n;
        for (uint32_t k = 0; k <= n; ++k) ccw_vertices_.push_back(r.v[k % n]);
        for (uint32_t q : r.across)
            ccw_neighbours_.push_back(q == kNoNode ? kNoNode : merged_of_[q]);
    }
}

void ExactMeshQuery::findDeadEnds() {
    const uint32_t polys = uint32_t(offsets_.size() - 1);
    // The distinct neighbours of each polygon; one with a link's take-off is never peeled.
    std::vector<uint32_t> degree(polys, 0), adjacent_offsets(size_t(polys) + 1, 0), adjacent;
    for (uint32_t p = 0; p < polys; ++p) {
        const size_t begin = adjacent.size();
        for (uint32_t k = offsets_[p]; k < offsets_[p + 1]; ++k) {
            const uint32_t q = ccw_neighbours_[k];
            if (q != kNoNode && q != p &&
                std::find(adjacent.begin() + begin, adjacent.end(), q) == adjacent.end())
                adjacent.push_back(q);
        }
        adjacent_offsets[p + 1] = uint32_t(adjacent.size());
        degree[p] = uint32_t(adjacent.size() - begin);
        if (link_offsets_[p] < link_offsets_[p + 1]) degree[p] += 2;
    }
    // Peel polygons with at most one neighbour left, in order; each hangs off that neighbour.
    branch_parent_.assign(polys, kNoNode);
    std::vector<uint8_t> peeled(polys, 0);
    std::vector<uint32_t> queue;
    for (uint32_t p = 0; p < polys; ++p)
        if (degree[p] <= 1) queue.push_back(p);
    for (size_t head = 0; head < queue.size(); ++head) {
        const uint32_t p = queue[head];
        peeled[p] = 1;
        for (uint32_t k = adjacent_offsets[p]; k < adjacent_offsets[p + 1]; ++k) {
            const uint32_t q = adjacent[k];
            if (peeled[q]) continue;
            branch_parent_[p] = q;
            if (--degree[q] == 1) queue.push_back(q);
        }
    }
    // Number each branch in depth-first order, so that the polygons below p are those numbered
    // branch_first_[p] .. branch_last_[p].
    std::vector<uint32_t> child_offsets(size_t(polys) + 1, 0), children(polys);
    for (uint32_t p = 0; p < polys; ++p)
        if (branch_parent_[p] != kNoNode) ++child_offsets[branch_parent_[p] + 1];
    for (uint32_t p = 0; p < polys; ++p) child_offsets[p + 1] += child_offsets[p];
    {
        std::vector<uint32_t> fill(child_offsets.begin(), child_offsets.end() - 1);
        for (uint32_t p = 0; p < polys; ++p)
            if (branch_parent_[p] != kNoNode) children[fill[branch_parent_[p]]++] = p;
    }
    branch_first_.assign(polys, 0);
    branch_last_.assign(polys, 0);
    uint32_t order = 0;
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // polygon, next child to visit
    for (uint32_t r = 0; r < polys; ++r) {
        if (branch_parent_[r] != kNoNode) continue;
        stack.push_back({r, child_offsets[r]});
        branch_first_[r] = order++;
        while (!stack.empty()) {
            auto& [p, next] = stack.back();
            if (next < child_offsets[p + 1]) {
                const uint32_t c = children[next++];
                branch_first_[c] = order++;
                stack.push_back({c, child_offsets[c]});
            } else {
                branch_last_[p] = order - 1;
                stack.pop_back();
            }
        }
    }
}

uint32_t ExactMeshQuery::vertexOf(uint32_t poly, uint32_t k) const {
    return ccw_vertices_[offsets_[poly] + poly + k];
}

uint32_t ExactMeshQuery::neighbourOf(uint32_t poly, uint32_t k) const {
    return ccw_neighbours_[offsets_[poly] + k];
}

uint32_t ExactMeshQuery::openEdge(uint32_t poly, uint32_t k, double a[2], double b[2]) const {
    const uint32_t next = neighbourOf(poly, k);
    if (next == kNoNode) return kNoNode;
    // Down into a dead-end branch without the goal.
    if (branch_parent_[next] == poly &&
        (goal_order_ < branch_first_[next] || goal_order_ > branch_last_[next]))
        return kNoNode;
    corner(poly, k, a);
    corner(poly, k + 1, b);
    return next;
}

void ExactMeshQuery::corner(uint32_t poly, uint32_t k, double out[2]) const {
    const double* v = &ring_xz_[2 * (size_t(offsets_[poly]) + poly + k)];
    out[0] = v[0];
    out[1] = v[1];
}

double ExactMeshQuery::heuristic(const double r[2], const double l[2], const double q[2]) const {
    double h = through(r, l, q, goal_);
    if (shortcuts_.empty()) return h;
    // Teleports: the way through a shortcut's entry is bounded below by the straight line to the
    // entry plus its bound (its cost and a lower bound from its exit on, set per goal).
    if (shortcuts_.size() > kMaxShortcutTerms) return std::min(h, min_shortcut_bound_);
    for (size_t k = 0; k < shortcuts_.size(); ++k)
        h = std::min(h, through(r, l, q, link_dirs_[shortcuts_[k]].e) + shortcut_bounds_[k]);
    return h;
}

double ExactMeshQuery::through(const double r[2], const double l[2], const double q[2],
                               const double target[2]) const {
    double g[2] = {target[0], target[1]};
    const double side_r = cross(l, q, r), side_g = cross(l, q, g);
    if ((side_r > 0 && side_g > 0) || (side_r < 0 && side_g < 0)) {  // reflect the goal
        const double ex = q[0] - l[0], ez = q[1] - l[1];
        const double len2 = ex * ex + ez * ez;
        if (len2 > 0) {
            const double t = ((g[0] - l[0]) * ex + (g[1] - l[1]) * ez) / len2;
            g[0] = 2 * (l[0] + t * ex) - g[0];
            g[1] = 2 * (l[1] + t * ez) - g[1];
        }
    }
    // Where r -> g crosses the interval's line, as a parameter along l -> q.
    const double dx = g[0] - r[0], dz = g[1] - r[1];
    const double ex = q[0] - l[0], ez = q[1] - l[1];
    const double denom = dx * ez - dz * ex;
    if (std::fabs(denom) > 1e-15) {
        const double u = ((l[0] - r[0]) * dz - (l[1] - r[1]) * dx) / denom;
        if (u >= 0 && u <= 1) return std::sqrt(dx * dx + dz * dz);
    }
    return std::min(dist(r, l) + dist(l, target), dist(r, q) + dist(q, target));
}

bool ExactMeshQuery::insertSeen(uint64_t hash) {
    if (hash == 0) hash = 1;
    if (2 * (seen_used_.size() + 1) > seen_mask_ + 1) {
        // Grow the part in use to keep the load under a half. Each search starts small, so a
        // short one stays in cache however large an earlier one grew the table.
        const size_t size = std::max<size_t>(kSeenStart, 2 * (seen_mask_ + 1));
        if (seen_.size() < size) seen_.resize(size, 0);
        std::vector<uint64_t> held;
        held.reserve(seen_used_.size());
        for (uint32_t i : seen_used_) {
            held.push_back(seen_[i]);
            seen_[i] = 0;
        }
        seen_used_.clear();
        seen_mask_ = size - 1;
        for (uint64_t h : held) insertSeen(h);
    }
    for (size_t i = (hash ^ (hash >> 29)) & seen_mask_;; i = (i + 1) & seen_mask_) {
        if (seen_[i] == hash) return false;
        if (seen_[i] == 0) {
            seen_[i] = hash;
            seen_used_.push_back(uint32_t(i));
            return true;
        }
    }
}

bool ExactMeshQuery::admit(const Node& node) {
    // A root reached cheaper before prunes the node (checked first: it is the cheaper test).
    if (node.root_vertex != kNoNode) {
        uint32_t& stamp = root_stamp_[node.root_vertex];
        double& best = root_g_[node.root_vertex];
        if (stamp == stamp_ && best < node.g - kEps) return false;  // reached cheaper
        if (stamp != stamp_ || node.g < best) best = node.g;
        stamp = stamp_;
    }
    if (!node.goal) {
        // The same node twice (equal root and g, polygon, edge and interval) adds nothing.
        // (Truncated to a micrometre: values a hair apart may hash apart, which only costs work.)
        // Values beyond int64 (a corrupt mesh's coordinates) hash by their bits instead.
        auto q = [](double v) {
            const double s = v * 1e6;
            return std::fabs(s) < 9.0e18 ? uint64_t(int64_t(s)) : std::bit_cast<uint64_t>(v);
        };
        uint64_t h = 1469598103934665603ull;
        for (uint64_t v : {uint64_t(node.root_vertex), uint64_t(node.poly), uint64_t(node.edge),
                           q(node.root[0]), q(node.root[1]), q(node.left[0]), q(node.left[1]),
                           q(node.right[0]), q(node.right[1]), q(node.g)})
            h = (h ^ v) * 1099511628211ull;
        if (!insertSeen(h)) return false;
    }
    // A bound on the work (a corrupt or pathological mesh): the search reports out_of_nodes.
    if (nodes_.size() + expansions_ >= 64 * size_t(graph_->nodeCount()) + 100000) {
        overflow_ = true;
        return false;
    }
    return true;
}

// A 4-ary heap: half the depth of a binary one, and a node's children side by side in memory.
// The order is total (f, then the index), so the nodes come out as from any heap.
void ExactMeshQuery::heapPush(HeapEntry entry) {
    size_t i = heap_.size();
    heap_.push_back(entry);
    while (i > 0) {
        const size_t parent = (i - 1) / 4;
        if (!Later{}(heap_[parent], entry)) break;
        heap_[i] = heap_[parent];
        i = parent;
    }
    heap_[i] = entry;
}

ExactMeshQuery::HeapEntry ExactMeshQuery::heapPop() {
    const HeapEntry top = heap_[0];
    const HeapEntry last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n == 0) return top;
    size_t i = 0;
    for (;;) {
        const size_t first = 4 * i + 1;
        if (first >= n) break;
        size_t best = first;
        for (size_t k = first + 1; k < std::min(first + 4, n); ++k)
            if (Later{}(heap_[best], heap_[k])) best = k;
        if (!Later{}(last, heap_[best])) break;
        heap_[i] = heap_[best];
        i = best;
    }
    heap_[i] = last;
    return top;
}

void ExactMeshQuery::push(Node node, bool add_heuristic) {
    if (!admit(node)) return;
    if (add_heuristic) {
        node.f = node.g + heuristic(node.root, node.left, node.right);
        if (cluster_ready_) {
            raiseByClusterBound(node);
        } else if (!portals_.empty()) {
            node.bound_at = -1;  // taken once the Dijkstra is started
        }
    }
    nodes_.push_back(node);
    heapPush({node.f, uint32_t(nodes_.size() - 1)});
}

namespace {
double pointBoxDistance(const double p[2], const double b[4]) {
    const double dx = std::max({0.0, b[0] - p[0], p[0] - b[2]});
    const double dz = std::max({0.0, b[1] - p[1], p[1] - b[3]});
    return std::sqrt(dx * dx + dz * dz);
}
// Distance in XZ from p to the segment a-b.
double pointSegmentDistance(const double p[2], const double a[2], const double b[2]) {
    const double ex = b[0] - a[0], ez = b[1] - a[1];
    const double len2 = ex * ex + ez * ez;
    double t = len2 > 0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ez) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const double dx = a[0] + t * ex - p[0], dz = a[1] + t * ez - p[1];
    return std::sqrt(dx * dx + dz * dz);
}
}  // namespace

bool ExactMeshQuery::floorsStack(const GraphView& g, const std::vector<uint32_t>& offsets,
                                 const std::vector<uint32_t>& ring) {
    const uint32_t polys = uint32_t(offsets.size() - 1);
    if (polys < 2) return false;
    // Per polygon: its XZ box and Y range (its ring: corners offsets[p] + p .. offsets[p + 1] + p,
    // the last repeating the first).
    struct Box {
        float x0, z0, x1, z1, y0, y1;
    };
    std::vector<Box> boxes(polys);
    float min_x = HUGE_VALF, min_z = HUGE_VALF, max_x = -HUGE_VALF, max_z = -HUGE_VALF;
    for (uint32_t p = 0; p < polys; ++p) {
        Box b{HUGE_VALF, HUGE_VALF, -HUGE_VALF, -HUGE_VALF, HUGE_VALF, -HUGE_VALF};
        for (uint32_t k = offsets[p] + p; k < offsets[p + 1] + p; ++k) {
            const float* v = g.mesh_vertices + 3 * size_t(ring[k]);
            b.x0 = std::min(b.x0, v[0]), b.x1 = std::max(b.x1, v[0]);
            b.y0 = std::min(b.y0, v[1]), b.y1 = std::max(b.y1, v[1]);
            b.z0 = std::min(b.z0, v[2]), b.z1 = std::max(b.z1, v[2]);
        }
        boxes[p] = b;
        min_x = std::min(min_x, b.x0), max_x = std::max(max_x, b.x1);
        min_z = std::min(min_z, b.z0), max_z = std::max(max_z, b.z1);
    }
    // A grid of at most 128 x 128 cells over them; per cell the lowest top and the highest bottom
    // of the polygons holding its centre (convex, counter-clockwise in XZ: the centre on the left
    // of every edge, or on it).
    // In double: the extent of finite floats far apart overflows a float (then inf / inf).
    constexpr int kCells = 128;
    const float cell_f = std::max({(max_x - min_x) / kCells, (max_z - min_z) / kCells, 1e-3f});
    const double cell = std::isfinite(cell_f) ? double(cell_f)
                                              : std::max((double(max_x) - min_x) / kCells,
                                                         (double(max_z) - min_z) / kCells);
    // The cell holding offset v from the minimum, clamped to [0, n - 1].
    auto cellOf = [&](double v, int n) {
        const double c = v / cell;
        return c >= double(n - 1) ? n - 1 : c > 0 ? int(c) : 0;
    };
    const int nx = std::min(kCells, cellOf(double(max_x) - min_x, kCells + 1) + 1);
    const int nz = std::min(kCells, cellOf(double(max_z) - min_z, kCells + 1) + 1);
    std::vector<float> lowest_top(size_t(nx) * size_t(nz), HUGE_VALF),
        highest_bottom(size_t(nx) * size_t(nz), -HUGE_VALF);
    for (uint32_t p = 0; p < polys; ++p) {
        const Box& b = boxes[p];
        const int cx0 = cellOf(double(b.x0) - min_x, nx);
        const int cx1 = cellOf(double(b.x1) - min_x, nx);
        const int cz0 = cellOf(double(b.z0) - min_z, nz);
        const int cz1 = cellOf(double(b.z1) - min_z, nz);
        for (int z = cz0; z <= cz1; ++z)
            for (int x = cx0; x <= cx1; ++x) {
                const double c[2] = {min_x + (x + 0.5) * cell, min_z + (z + 0.5) * cell};
                bool inside = true;
                for (uint32_t k = offsets[p] + p; inside && k < offsets[p + 1] + p; ++k) {
                    const float* u = g.mesh_vertices + 3 * size_t(ring[k]);
                    const float* w = g.mesh_vertices + 3 * size_t(ring[k + 1]);
                    const double a[2] = {u[0], u[2]}, e[2] = {w[0], w[2]};
                    inside = cross(a, e, c) >= 0;
                }
                if (!inside) continue;
                const size_t at = size_t(z) * size_t(nx) + size_t(x);
                lowest_top[at] = std::min(lowest_top[at], b.y1);
                highest_bottom[at] = std::max(highest_bottom[at], b.y0);
            }
    }
    const float height = g.header.agent_height > 0 ? g.header.agent_height : 2.0f;
    size_t occupied = 0, stacked = 0;
    for (size_t c = 0; c < lowest_top.size(); ++c) {
        if (lowest_top[c] == HUGE_VALF) continue;
        ++occupied;
        stacked += highest_bottom[c] - lowest_top[c] > height;
    }
    return double(stacked) >= kStackedShare * double(occupied);
}

void ExactMeshQuery::buildClusters(const GraphView& g) {
    const uint32_t polys = uint32_t(offsets_.size() - 1);
    cluster_of_.assign(polys, kNoNode);
    portals_.clear();
    cluster_portals_.clear();
    cluster_portal_offsets_.assign(1, 0);
    portal_edge_offsets_.assign(1, 0);
    portal_edges_.clear();
    cluster_ready_ = false;
    // Links join clusters no portal does: no bound with them.
    if (!link_dirs_.empty() || cluster_polygons_ == 0) return;
    if (!force_clusters_ && !floorsStack(g, offsets_, ccw_vertices_)) return;
    // Clusters grown breadth-first from the first polygon not in one, in polygon order.
    uint32_t clusters = 0;
    std::vector<uint32_t> queue;
    for (uint32_t seed = 0; seed < polys; ++seed) {
        if (cluster_of_[seed] != kNoNode) continue;
        queue.assign(1, seed);
        cluster_of_[seed] = clusters;
        for (size_t head = 0; head < queue.size() && queue.size() < cluster_polygons_; ++head)
            for (uint32_t k = offsets_[queue[head]]; k < offsets_[queue[head] + 1]; ++k) {
                const uint32_t q = ccw_neighbours_[k];
                if (q == kNoNode || cluster_of_[q] != kNoNode || queue.size() >= cluster_polygons_)
                    continue;
                cluster_of_[q] = clusters;
                queue.push_back(q);
            }
        ++clusters;
    }
    if (clusters < 2) return;
    // Portals: the edges between two clusters, per pair (lower cluster first), with their box.
    struct Edge {
        uint32_t a, b;  // clusters, a < b
        double box[4];
        double from[2], to[2];
    };
    std::vector<Edge> edges;
    for (uint32_t p = 0; p < polys; ++p)
        for (uint32_t k = 0; k + offsets_[p] < offsets_[p + 1]; ++k) {
            const uint32_t q = ccw_neighbours_[offsets_[p] + k];
            if (q == kNoNode || cluster_of_[q] == cluster_of_[p]) continue;
            double a[2], b[2];
            corner(p, k, a);
            corner(p, k + 1, b);
            edges.push_back({std::min(cluster_of_[p], cluster_of_[q]),
                             std::max(cluster_of_[p], cluster_of_[q]),
                             {std::min(a[0], b[0]), std::min(a[1], b[1]), std::max(a[0], b[0]),
                              std::max(a[1], b[1])},
                             {a[0], a[1]},
                             {b[0], b[1]}});
        }
    std::stable_sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    std::vector<std::pair<uint32_t, uint32_t>> ends;  // per portal: its two clusters
    std::vector<uint32_t> portal_first;               // per portal: its first edge in `edges`
    for (size_t i = 0; i < edges.size();) {
        portal_first.push_back(uint32_t(i));
        size_t j = i;
        Portal portal;
        std::copy(edges[i].box, edges[i].box + 4, portal.box);
        for (; j < edges.size() && edges[j].a == edges[i].a && edges[j].b == edges[i].b; ++j) {
            portal.box[0] = std::min(portal.box[0], edges[j].box[0]);
            portal.box[1] = std::min(portal.box[1], edges[j].box[1]);
            portal.box[2] = std::max(portal.box[2], edges[j].box[2]);
            portal.box[3] = std::max(portal.box[3], edges[j].box[3]);
        }
        portals_.push_back(portal);
        ends.push_back({edges[i].a, edges[i].b});
        i = j;
    }
    portal_first.push_back(uint32_t(edges.size()));
    // The distance between two portals' edge sets (segments: 0 where they cross, else the
    // nearest end to the other segment), at least their boxes'.
    auto segmentsDistance = [](const double* x0, const double* x1, const double* y0,
                               const double* y1) {
        const double c1 = cross(x0, x1, y0), c2 = cross(x0, x1, y1);
        const double c3 = cross(y0, y1, x0), c4 = cross(y0, y1, x1);
        if (((c1 > 0 && c2 < 0) || (c1 < 0 && c2 > 0)) &&
            ((c3 > 0 && c4 < 0) || (c3 < 0 && c4 > 0)))
            return 0.0;
        return std::min({pointSegmentDistance(x0, y0, y1), pointSegmentDistance(x1, y0, y1),
                         pointSegmentDistance(y0, x0, x1), pointSegmentDistance(y1, x0, x1)});
    };
    auto segmentDistance = [&](const Edge& x, const Edge& y) {
        return segmentsDistance(x.from, x.to, y.from, y.to);
    };
    auto portalDistance = [&](uint32_t x, uint32_t y) {
        double best = std::numeric_limits<double>::infinity();
        for (uint32_t i = portal_first[x]; i < portal_first[x + 1] && best > 0; ++i)
            for (uint32_t j = portal_first[y]; j < portal_first[y + 1] && best > 0; ++j)
                best = std::min(best, segmentDistance(edges[i], edges[j]));
        return best;
    };
    // Each cluster's portals, and the portal graph: two portals of one cluster joined.
    cluster_portal_offsets_.assign(size_t(clusters) + 1, 0);
    for (const auto& [a, b] : ends)
        ++cluster_portal_offsets_[a + 1], ++cluster_portal_offsets_[b + 1];
    for (uint32_t c = 0; c < clusters; ++c)
        cluster_portal_offsets_[c + 1] += cluster_portal_offsets_[c];
    cluster_portals_.resize(cluster_portal_offsets_[clusters]);
    {
        std::vector<uint32_t> fill(cluster_portal_offsets_.begin(),
                                   cluster_portal_offsets_.end() - 1);
        for (uint32_t i = 0; i < ends.size(); ++i) {
            cluster_portals_[fill[ends[i].first]++] = i;
            cluster_portals_[fill[ends[i].second]++] = i;
        }
    }
    // Within a cluster, a way from portal X to portal Y crosses a chain of its polygons, each
    // from one of its edges to another: at least the sum of those edges' distances. The least
    // such sum (a Dijkstra over the cluster's edges, polygon by polygon) bounds it as well as
    // the distance between X and Y themselves; the portal graph takes the larger.
    std::vector<uint32_t> cluster_poly_offsets(size_t(clusters) + 1, 0), cluster_polys(polys);
    for (uint32_t p = 0; p < polys; ++p) ++cluster_poly_offsets[cluster_of_[p] + 1];
    for (uint32_t c = 0; c < clusters; ++c) cluster_poly_offsets[c + 1] += cluster_poly_offsets[c];
    {
        std::vector<uint32_t> fill(cluster_poly_offsets.begin(), cluster_poly_offsets.end() - 1);
        for (uint32_t p = 0; p < polys; ++p) cluster_polys[fill[cluster_of_[p]]++] = p;
    }
    struct Side {                     // an open edge of one of the cluster's polygons
        uint32_t poly, next, portal;  // portal: kNoNode for an edge inside the cluster
        double a[2], b[2];
    };
    std::vector<Side> sides;
    std::vector<double> chain;  // per side, from the portal being searched
    std::vector<uint8_t> done;
    std::vector<std::vector<std::pair<uint32_t, double>>> adjacent(portals_.size());
    for (uint32_t c = 0; c < clusters; ++c) {
        sides.clear();
        for (uint32_t i = cluster_poly_offsets[c]; i < cluster_poly_offsets[c + 1]; ++i) {
            const uint32_t p = cluster_polys[i];
            for (uint32_t k = 0; k + offsets_[p] < offsets_[p + 1]; ++k) {
                const uint32_t q = ccw_neighbours_[offsets_[p] + k];
                if (q == kNoNode) continue;
                Side side{p, q, kNoNode, {0, 0}, {0, 0}};
                corner(p, k, side.a);
                corner(p, k + 1, side.b);
                if (cluster_of_[q] != c)
                    for (uint32_t j = cluster_portal_offsets_[c];
                         j < cluster_portal_offsets_[c + 1]; ++j) {
                        const uint32_t x = cluster_portals_[j];
                        const uint32_t other = ends[x].first == c ? ends[x].second : ends[x].first;
                        if (other == cluster_of_[q]) side.portal = x;
                    }
                sides.push_back(side);
            }
        }
        // Two sides are joined when they bound one polygon (the way across it) or face each
        // other across an edge inside the cluster (from one polygon into the next).
        auto weight = [&](const Side& u, const Side& v) {
            const bool joined = u.poly == v.poly || (u.next == v.poly && v.next == u.poly);
            return joined ? segmentsDistance(u.a, u.b, v.a, v.b)
                          : std::numeric_limits<double>::infinity();
        };
        for (uint32_t i = cluster_portal_offsets_[c]; i < cluster_portal_offsets_[c + 1]; ++i) {
            const uint32_t x = cluster_portals_[i];
            chain.assign(sides.size(), std::numeric_limits<double>::infinity());
            done.assign(sides.size(), 0);
            for (size_t k = 0; k < sides.size(); ++k)
                if (sides[k].portal == x) chain[k] = 0;
            for (;;) {  // (a few dozen sides: the simple Dijkstra)
                size_t u = sides.size();
                for (size_t k = 0; k < sides.size(); ++k)
                    if (!done[k] && chain[k] < std::numeric_limits<double>::infinity() &&
                        (u == sides.size() || chain[k] < chain[u]))
                        u = k;
                if (u == sides.size()) break;
                done[u] = 1;
                if (sides[u].portal != kNoNode && sides[u].portal != x) continue;  // left
                for (size_t k = 0; k < sides.size(); ++k)
                    if (!done[k])
                        chain[k] = std::min(chain[k], chain[u] + weight(sides[u], sides[k]));
            }
            for (uint32_t j = cluster_portal_offsets_[c]; j < cluster_portal_offsets_[c + 1]; ++j) {
                if (i == j) continue;
                const uint32_t y = cluster_portals_[j];
                double within = std::numeric_limits<double>::infinity();
                for (size_t k = 0; k < sides.size(); ++k)
                    if (sides[k].portal == y) within = std::min(within, chain[k]);
                // (within is finite: a cluster is grown over its polygons' own edges)
                const double apart = portalDistance(x, y);
                adjacent[x].push_back({y, within < std::numeric_limits<double>::infinity()
                                              ? std::max(apart, within)
                                              : apart});
            }
        }
    }
    for (const auto& list : adjacent) {
        portal_edges_.insert(portal_edges_.end(), list.begin(), list.end());
        portal_edge_offsets_.push_back(uint32_t(portal_edges_.size()));
    }
    portal_d_.assign(portals_.size(), PortalRecord{});
    portal_heap_.assign(portals_.size(), 0);
}

void ExactMeshQuery::startClusterBounds() {
    std::fill(portal_d_.begin(), portal_d_.end(), PortalRecord{});
    portal_heap_size_ = 0;
    const uint32_t goal_cluster = cluster_of_[goal_poly_];
    for (uint32_t i = cluster_portal_offsets_[goal_cluster];
         i < cluster_portal_offsets_[goal_cluster + 1]; ++i) {
        const uint32_t portal = cluster_portals_[i];
        portal_d_[portal].f = pointBoxDistance(goal_, portals_[portal].box);
        heap::push(portal_d_.data(), portal_heap_.data(), portal_heap_size_, portal);
    }
    portal_radius_ = 0;
    cluster_ready_ = true;
    settlePortals(0);
}

void ExactMeshQuery::settlePortals(double radius) {
    PortalRecord* records = portal_d_.data();
    while (portal_heap_size_ > 0) {
        const double d = records[portal_heap_[0]].f;
        if (d > radius) {
            portal_radius_ = d;
            return;
        }
        const uint32_t portal = heap::pop(records, portal_heap_.data(), portal_heap_size_);
        for (uint32_t e = portal_edge_offsets_[portal]; e < portal_edge_offsets_[portal + 1]; ++e) {
            const auto [next, w] = portal_edges_[e];
            PortalRecord& r = records[next];
            if (d + w >= r.f) continue;  // (a settled portal has no more than d)
            r.f = d + w;
            if (r.heap_index == heap::kNotInHeap)
                heap::push(records, portal_heap_.data(), portal_heap_size_, next);
            else
                heap::siftUp(records, portal_heap_.data(), next);
        }
    }
    portal_radius_ = std::numeric_limits<double>::infinity();
}

double ExactMeshQuery::clusterBound(const Node& node, bool& capped) const {
    capped = false;
    const uint32_t cluster = cluster_of_[node.poly];
    if (cluster == cluster_of_[goal_poly_]) return 0;
    // Out through portal P at y: |root - x| + ... >= max(|root - I|, |root - P's box|) + D(P),
    // D(P) at least min(tentative, radius) while P is not settled.
    const double to_interval = pointSegmentDistance(node.root, node.left, node.right);
    double best = std::numeric_limits<double>::infinity();
    for (uint32_t i = cluster_portal_offsets_[cluster]; i < cluster_portal_offsets_[cluster + 1];
         ++i) {
        const uint32_t portal = cluster_portals_[i];
        const bool settled = portal_d_[portal].f <= portal_radius_;
        const double d = settled ? portal_d_[portal].f : portal_radius_;
        if (d + to_interval >= best) continue;
        const double bound =
            std::max(to_interval, pointBoxDistance(node.root, portals_[portal].box)) + d;
        if (bound < best) {
            best = bound;
            capped = !settled;
        }
    }
    return best;
}

void ExactMeshQuery::raiseByClusterBound(Node& node) const {
    bool capped = false;
    node.f = std::max(node.f, node.g + clusterBound(node, capped));
    node.bound_at = capped ? portal_radius_ : std::numeric_limits<double>::infinity();
}

void ExactMeshQuery::expand(uint32_t index) {
    Node node = nodes_[index];
    for (;;) {
        children_.clear();
        successors(node, index);
        // Polyanya's intermediate pruning: a lone successor that keeps the root (it cannot
        // turn or end here) is expanded at once, without the heap (its f is no smaller).
        if (children_.size() == 1 && !children_[0].goal && children_[0].parent == node.parent &&
            children_[0].root_vertex == node.root_vertex && children_[0].g == node.g &&
            children_[0].poly != goal_poly_) {
            if (!admit(children_[0])) return;
            node = children_[0];
            ++expansions_;
            continue;
        }
        for (const Node& child : children_) push(child, !child.goal);
        return;
    }
}

ExactMeshQuery::Reach ExactMeshQuery::reach(const Node& node, uint32_t index, bool sees_all,
                                            const double target[2], Node& from) const {
    from = node;
    const double f_right = cross(node.root, node.right, target);
    const double f_left = cross(node.root, node.left, target);
    if (sees_all || (f_right >= -kEps && f_left <= kEps)) return Reach::in_sight;
    const bool right = f_right < 0 && node.right_vertex;
    const bool left = f_left > 0 && node.left_vertex;
    if (!right && !left) return Reach::none;
    const double* at = right ? node.right : node.left;
    from.root[0] = at[0];
    from.root[1] = at[1];
    from.root_vertex = vertexOf(node.poly, right ? node.edge + 1 : node.edge);
    from.g = node.g + dist(node.root, at);
    from.parent = index;
    return Reach::turned;
}

void ExactMeshQuery::addGoal(const Node& node, uint32_t index, bool sees_all) {
    Node final_node;
    if (reach(node, index, sees_all, goal_, final_node) == Reach::none) return;
    final_node.exit = false;
    final_node.goal = true;
    final_node.f = final_node.g + dist(final_node.root, goal_);
    children_.push_back(final_node);
}

void ExactMeshQuery::linkEntries(const Node& node, uint32_t index, bool sees_all) {
    const uint32_t q = node.poly;
    for (uint32_t k = link_offsets_[q]; k < link_offsets_[q + 1]; ++k) {
        const LinkDir& d = link_dirs_[k];
        Node exit;
        exit.exit = true;
        exit.poly = d.exit_poly;
        exit.root[0] = exit.left[0] = exit.right[0] = d.x[0];
        exit.root[1] = exit.left[1] = exit.right[1] = d.x[1];
        exit.root_vertex = graph_->mesh_vertex_count + k;
        Node from;  // the last root before the entry point
        const Reach how = reach(node, index, sees_all, d.e, from);
        if (how == Reach::none) continue;
        exit.parent = index;
        if (how == Reach::turned) {  // the turn is kept for the corners only
            nodes_.push_back(from);
            exit.parent = uint32_t(nodes_.size() - 1);
        }
        exit.g = from.g + dist(from.root, d.e) + d.cost;
        children_.push_back(exit);
    }
}

void ExactMeshQuery::successors(const Node& node, uint32_t index) {
    const uint32_t q = node.poly;
    const uint32_t n = offsets_[q + 1] - offsets_[q];
    if (node.exit) {
        // A point root in polygon q (the start, or where a link lands): it sees all of it, the
        // goal and link entries in it directly, and each portal whole.
        if (q == goal_poly_) addGoal(node, index, true);
        linkEntries(node, index, true);
        for (uint32_t j = 0; j < n; ++j) {
            double a[2], b[2];
            const uint32_t next = openEdge(q, j, a, b);
            if (next == kNoNode) continue;
            Node child = node;
            child.exit = false;
            child.left[0] = b[0], child.left[1] = b[1];
            child.right[0] = a[0], child.right[1] = a[1];
            if (!enter(next, q, j, child)) continue;
            // A root on this edge's line beyond it: the polygon's corner there is the way on.
            if (std::fabs(cross(a, b, node.root)) <= kEps * (1 + dist(a, b)) &&
                !onSegment(a, b, node.root))
                continue;
            children_.push_back(child);
        }
        return;
    }
    double entry_left[2], entry_right[2];
    corner(q, node.edge, entry_left);
    corner(q, node.edge + 1, entry_right);
    // A root on the entry edge (a corner reached along a straight boundary, or a start on a
    // polygon's side) sees all of this convex polygon: no cone to clip to, nothing hidden.
    const bool edge_on = onSegment(entry_left, entry_right, node.root);
    // The goal's polygon: the final node, straight from the root or turning at an end.
    if (q == goal_poly_) addGoal(node, index, edge_on);
    if (link_offsets_[q] < link_offsets_[q + 1]) linkEntries(node, index, edge_on);
    const bool right_corner = !edge_on && node.right_vertex && corner_[vertexOf(q, node.edge + 1)];
    const bool left_corner = !edge_on && node.left_vertex && corner_[vertexOf(q, node.edge)];
    for (uint32_t step = 1; step < n; ++step) {
        const uint32_t j = node.edge + step < n ? node.edge + step : node.edge + step - n;
        double a[2], b[2];
        const uint32_t next = openEdge(q, j, a, b);
        if (next == kNoNode) continue;
        struct Piece {
            double lo, hi;
            int turn;  // 0: the root sees it; 1: turn at the right end; -1: at the left end
        };
        Piece pieces[3];
        int count = 0;
        if (edge_on) {
            pieces[count++] = {0, 1, 0};
        } else {  // seen from the root: right of r->left, left of r->right
            double lo = 0, hi = 1;
            clip(cross(node.root, node.right, a), cross(node.root, node.right, b), -kEps, lo, hi);
            clip(-cross(node.root, node.left, a), -cross(node.root, node.left, b), -kEps, lo, hi);
            if (lo <= hi) pieces[count++] = {lo, hi, 0};
        }
        if (right_corner) {  // behind the right end: only seen from it
            double lo = 0, hi = 1;
            clip(-cross(node.root, node.right, a), -cross(node.root, node.right, b), 0, lo, hi);
            if (lo <= hi) pieces[count++] = {lo, hi, 1};
        }
        if (left_corner) {
            double lo = 0, hi = 1;
            clip(cross(node.root, node.left, a), cross(node.root, node.left, b), 0, lo, hi);
            if (lo <= hi) pieces[count++] = {lo, hi, -1};
        }
        if (count == 0) continue;
        const double edge_length = dist(a, b);
        for (int k = 0; k < count; ++k) {
            const Piece& piece = pieces[k];
            Node child;
            // Ends within a micrometre of a corner are that corner (a cone's side through a
            // vertex must keep it as a place to turn).
            double lo = std::clamp(piece.lo, 0.0, 1.0), hi = std::clamp(piece.hi, 0.0, 1.0);
            const double snap = 1e-6 / std::max(1e-9, edge_length);
            if (lo < snap) lo = 0;
            if (hi > 1 - snap) hi = 1;
            if (hi < lo) continue;
            lerp(a, b, hi, child.left);  // towards b: the next polygon's corner m
            lerp(a, b, lo, child.right);
            if (!enter(next, q, j, child)) continue;
            if (piece.turn == 0) {
                child.root[0] = node.root[0];
                child.root[1] = node.root[1];
                child.root_vertex = node.root_vertex;
                child.g = node.g;
                child.parent = node.parent;
            } else {
                const double* turn = piece.turn > 0 ? entry_right : entry_left;
                child.root[0] = turn[0];
                child.root[1] = turn[1];
                child.root_vertex = vertexOf(q, piece.turn > 0 ? node.edge + 1 : node.edge);
                child.g = node.g + dist(node.root, turn);
                child.parent = index;
            }
            // A root on the edge's line sees the interval edge-on: what lies beyond is reached by
            // turning at the edge's nearer end (a corner of this polygon, so in sight), from
            // which the next polygon is seen whole.
            if (std::fabs(cross(a, b, child.root)) <= kEps * (1 + edge_length) &&
                !onSegment(a, b, child.root)) {
                const bool at_b = dist(child.root, b) < dist(child.root, a);
                if (!(at_b ? child.left_vertex : child.right_vertex)) continue;
                const double* turn = at_b ? b : a;
                if (dist(child.root, turn) < 1e-9) {
                    // The root is that corner already: the child stands as it is.
                } else {
                    uint32_t parent = index;
                    if (piece.turn != 0) {  // keep the first turn in the chain
                        nodes_.push_back(child);
                        parent = uint32_t(nodes_.size() - 1);
                    }
                    child.g += dist(child.root, turn);
                    child.root[0] = turn[0];
                    child.root[1] = turn[1];
                    child.root_vertex = vertexOf(q, at_b ? j + 1 : j);
                    child.parent = parent;
                }
            }
            // An interval shrunk to a point (a ray through a vertex) is the closed edge of a
            // wider sibling's cone, or of the turn at that vertex, which carry every path along
            // it; kept, it would go round the ring of polygons at the vertex. Unless the root
            // is the point itself (it then sees the next polygon whole).
            if (dist(child.left, child.right) < 1e-9 && dist(child.root, child.left) >= 1e-9)
                continue;
            children_.push_back(child);
        }
    }
}

bool ExactMeshQuery::enter(uint32_t next, uint32_t from, uint32_t from_edge, Node& child) const {
    const uint32_t back = back_edges_[offsets_[from] + from_edge];
    if (back != kNoNode) {
        // The common case: the same edge on both sides. Ends on a corner become that corner.
        double pl[2], pr[2];
        corner(next, back, pl);
        corner(next, back + 1, pr);
        auto at = [](const double x[2], const double c[2]) {
            return (x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) < 1e-18;
        };
        child.left_vertex = at(child.left, pl);
        child.right_vertex = at(child.right, pr);
        if (child.left_vertex) child.left[0] = pl[0], child.left[1] = pl[1];
        if (child.right_vertex) child.right[0] = pr[0], child.right[1] = pr[1];
        child.poly = next;
        child.edge = back;
        return true;
    }
    // The next polygon's edge back to `from` on the line of the interval. Tiles split polygons
    // independently, so it may be only part of the edge the interval lies on (and use other
    // vertex ids): the interval is clipped to it, and its ends are corners only where they are
    // the next polygon's.
    const uint32_t n = offsets_[next + 1] - offsets_[next];
    for (uint32_t m = 0; m < n; ++m) {
        if (neighbourOf(next, m) != from) continue;
        double pl[2], pr[2];  // corner m (the left side) and corner m + 1
        corner(next, m, pl);
        corner(next, m + 1, pr);
        const double len = dist(pl, pr);
        if (len < 1e-12) continue;
        if (std::fabs(cross(pl, pr, child.left)) > 1e-6 * (1 + len) ||
            std::fabs(cross(pl, pr, child.right)) > 1e-6 * (1 + len))
            continue;
        auto along = [&](const double x[2]) {
            return ((x[0] - pl[0]) * (pr[0] - pl[0]) + (x[1] - pl[1]) * (pr[1] - pl[1])) /
                   (len * len);
        };
        double ul = along(child.left), ur = along(child.right);
        const double snap = 1e-6 / len;
        ul = std::max(0.0, ul);
        ur = std::min(1.0, ur);
        if (ul > ur + snap) continue;
        if (ul < snap) ul = 0;
        if (ur > 1 - snap) ur = 1;
        lerp(pl, pr, ul, child.left);
        lerp(pl, pr, std::max(ul, ur), child.right);
        child.left_vertex = ul == 0;
        child.right_vertex = ur == 1;
        child.poly = next;
        child.edge = m;
        return true;
    }
    return false;
}

PathStatus ExactMeshQuery::findPath(Vec3 from, uint32_t start, Vec3 to, uint32_t goal) {
    path_.clear();
    path_links_.clear();
    cost_ = 0;
    expansions_ = 0;
    if (graph_ == nullptr) return PathStatus::not_initialized;
    const GraphView& g = *graph_;
    if (start >= g.nodeCount()) return PathStatus::invalid_start;
    if (goal >= g.nodeCount()) return PathStatus::invalid_goal;
    if (g.components[start] != g.components[goal]) return PathStatus::no_path;
    goal_[0] = to.x;
    goal_[1] = to.z;
    goal_poly_ = merged_of_[goal];
    goal_order_ = branch_first_[goal_poly_];
    if (++stamp_ == 0) {
        std::fill(root_stamp_.begin(), root_stamp_.end(), 0);
        stamp_ = 1;
    }
    nodes_.clear();
    heap_.clear();
    for (uint32_t i : seen_used_) seen_[i] = 0;
    seen_used_.clear();
    seen_mask_ = seen_.empty() ? 0 : std::min(seen_.size(), kSeenStart) - 1;
    overflow_ = false;
    cluster_ready_ = false;
    const double s[2] = {from.x, from.z};
    if (merged_of_[start] == goal_poly_ &&
        shortcuts_.empty()) {  // one convex polygon  // (a teleport might still be shorter)
        path_ = {from, to};
        path_links_ = {fmt::kNoLink};
        cost_ = dist(s, goal_) * area_cost_;
        return PathStatus::found;
    }
    // Teleports: per shortcut, a lower bound on the cost from its entry to this goal (its cost,
    // then the straight line to the goal or on through other shortcuts).
    min_shortcut_bound_ = std::numeric_limits<double>::infinity();
    if (!shortcuts_.empty() && shortcuts_.size() <= kMaxShortcutTerms) {
        const size_t count = shortcuts_.size();
        for (size_t k = 0; k < count; ++k) {
            const LinkDir& d = link_dirs_[shortcuts_[k]];
            shortcut_bounds_[k] = d.cost + dist(d.x, goal_);
        }
        for (size_t round = 0; round < count; ++round)
            for (size_t k = 0; k < count; ++k)
                for (size_t j = 0; j < count; ++j) {
                    const LinkDir& d = link_dirs_[shortcuts_[k]];
                    shortcut_bounds_[k] = std::min(
                        shortcut_bounds_[k],
                        d.cost + dist(d.x, link_dirs_[shortcuts_[j]].e) + shortcut_bounds_[j]);
                }
    }
    for (uint32_t k : shortcuts_)
        min_shortcut_bound_ = std::min(min_shortcut_bound_, link_dirs_[k].cost);
    // The start: a point root that sees its whole polygon.
    Node seed;
    seed.exit = true;
    seed.poly = merged_of_[start];
    seed.root[0] = seed.left[0] = seed.right[0] = s[0];
    seed.root[1] = seed.left[1] = seed.right[1] = s[1];
    push(seed, true);
    while (!heap_.empty()) {
        const uint32_t index = heapPop().index;
        Node& node = nodes_[index];  // (expand() may grow nodes_: not used after it)
        if (node.root_vertex != kNoNode && root_stamp_[node.root_vertex] == stamp_ &&
            root_g_[node.root_vertex] < node.g - kEps)
            continue;  // a cheaper way to this root came later
        if (!cluster_ready_ && !portals_.empty() && expansions_ + 1 >= cluster_after_)
            startClusterBounds();
        if (cluster_ready_) {
            settlePortals(node.f);
            if (node.bound_at < portal_radius_) {  // a bound the radius cut short: again
                const double before = node.f;
                raiseByClusterBound(node);
                if (node.f > before) {
                    heapPush({node.f, index});
                    continue;
                }
            }
        }
        ++expansions_;
        if (node.goal) {
            // The corners: the goal, then each root back to the start.
            // A root where a link lands adds its landing and its take-off, the segment between
            // them that link's.
            path_.push_back(to);
            for (uint32_t i = index; i != kNoNode; i = nodes_[i].parent) {
                const Node& at = nodes_[i];
                uint32_t link = fmt::kNoLink;
                if (at.root_vertex == kNoNode) {
                    path_.push_back(from);
                } else if (at.root_vertex >= g.mesh_vertex_count) {
                    const LinkDir& d = link_dirs_[at.root_vertex - g.mesh_vertex_count];
                    path_.push_back(d.x3);
                    path_links_.push_back(fmt::kNoLink);
                    path_.push_back(d.e3);
                    link = d.link;
                } else {
                    const float* v = g.mesh_vertices + 3 * size_t(at.root_vertex);
                    path_.push_back({v[0], v[1], v[2]});
                }
                path_links_.push_back(link);
            }
            std::reverse(path_.begin(), path_.end());
            std::reverse(path_links_.begin(), path_links_.end());
            cost_ = node.f * area_cost_;
            return PathStatus::found;
        }
        expand(index);
    }
    return overflow_ ? PathStatus::out_of_nodes : PathStatus::no_path;
}

}  // namespace navrt
