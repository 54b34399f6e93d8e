// Detail height mesh (after the idea of Recast's rcBuildPolyMeshDetail, RecastMeshDetail.cpp;
// our own scheme).
//
// Per polygon, in cell units:
//   1. Each edge is sampled every sample_dist cells (from its lexicographically smaller end, so
//      the two polygons sharing an edge sample it identically). The floor is followed along the
//      edge a cell at a time, each step taking the candidate span (see FloorHeights) nearest the
//      previous step's height, so ridges and dips between samples are traced and stacked floors
//      never mixed up. Samples are kept, most deviating first, while their vertical distance to
//      the simplified edge exceeds max_error.
//   2. The polygon (strictly convex) is fanned from its first vertex, the kept edge samples are
//      inserted by splitting the boundary triangle they lie on, and edges are flipped until the
//      triangulation is Delaunay (Lawson's flip algorithm; boundary edges never flip).
//   3. Interior samples on a global lattice of spacing sample_dist (cell centres at least
//      min(sample_dist / 2, 1) cell inside the polygon), plus the cell centre nearest the
//      polygon's centroid, get their heights by walking each sample row across the polygon a
//      cell at a time from the traced floor where the row enters it. The sample whose height
//      deviates most from the current triangles is inserted (Delaunay insertion with flips),
//      repeatedly, while that deviation exceeds max_error (at most kMaxPoints points).
// Lawson's flips: C. L. Lawson, "Software for C1 surface interpolation", Mathematical Software
// III, 1977; incremental insertion as in Guibas & Stolfi, ACM TOG 4(2), 1985.
// Polygons are handed to the workers in runs of one region (fixed work items, outputs joined in
// polygon order), so the result does not depend on the thread count.
// With sample_dist 0 the polygon's own vertices are fanned. Triangles are counter-clockwise
// seen from +Y and written in world coordinates.
#include <algorithm>
#include <cmath>
#include <memory>

#include "lib/common/csr.h"
#include "lib/navmesh/navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {

constexpr int kMaxEdgeSegments = 32;
constexpr size_t kMaxPoints = 256;
constexpr double kFlipEpsilon = 1e-9;
constexpr double kInteriorMargin = 1.0;
constexpr size_t kChunkPolys =
    64;  // most polygons per work item  // [Units: cells] interior samples keep off the edges

struct DPoint {
    double x, z, y;  // [Units: cells, cell heights]
};

double cross(const DPoint& a, const DPoint& b, const DPoint& c) {
    return (b.z - a.z) * (c.x - a.x) - (b.x - a.x) * (c.z - a.z);
}

// Floor heights for the polygons of one region (after the idea of Recast's getHeightData): the
// spans of the region, plus those reached from it by a breadth-first walk of at most kReach span
// links (polygons reach a little past their region's cells, as simplified edges cut corners), are
// the candidates. A point reads the candidate spans of the columns it touches (up to four on cell
// borders; else rings 1..3 around it) and takes the top nearest to the height expected there,
// ignoring tops more than the agent height minus one cell away from it: walkable floors stacked
// in one column are at least the agent height apart, so where a region reaches two floors (a
// ramp winding onto a mezzanine) the expected height tells them apart, and a polygon that cuts
// past its floor's edge does not pick up the floor below.
// Spans of each region, in span order (shared by the workers).
struct RegionSpans {
    struct SpanAt {
        uint32_t span;
        int steps;  // links walked from the region (for FloorHeights' walk)
    };
    std::vector<uint32_t> start;  // region r: spans[start[r] .. start[r+1])
    std::vector<SpanAt> spans;

    explicit RegionSpans(const CompactField& f) {
        csrBuild<SpanAt>(
            size_t(f.region_count) + 1,
            [&](auto&& emit) {
                for (uint32_t i = 0; i < uint32_t(f.spanCount()); ++i) {
                    const uint32_t r = f.regions[i];
                    if (r != 0 && !(r & kBorderRegion)) emit(r, SpanAt{i, 0});
                }
            },
            start, spans);
    }
};

class FloorHeights {
public:
    using SpanAt = RegionSpans::SpanAt;

    FloorHeights(const CompactField& f, const RegionSpans& index)
        : f_(f), index_(index), window_(std::max(2, f.agent.height - 1)), mark_(f.spanCount(), 0) {}

    void select(uint32_t region) {
        if (region == region_ || region == 0 || region + 1 >= index_.start.size()) return;
        region_ = region;
        queue_.assign(index_.spans.begin() + index_.start[region],
                      index_.spans.begin() + index_.start[region + 1]);
        for (const SpanAt& s : queue_) mark_[s.span] = region;
        for (size_t head = 0; head < queue_.size(); ++head) {
            const SpanAt s = queue_[head];
            if (s.steps >= kReach) continue;
            for (int dir = 0; dir < 4; ++dir) {
                const uint32_t n = f_.next(s.span, dir);
                if (n == kNoSpan || mark_[n] == region) continue;
                mark_[n] = region;
                queue_.push_back({n, s.steps + 1});
            }
        }
    }

    double window() const { return window_; }

    // A span and the grid column it is in.
    struct Floor {
        uint32_t span = kNoSpan;
        int cx = 0, cz = 0;
    };

    // The candidate span nearest to `expected` (within `window`) in the columns the point touches
    // (up to four on cell borders), else in rings 1..3 around it; span kNoSpan when none.
    Floor find(double x, double z, double expected, double window) const {
        const int x0 = int(std::floor(x - 1e-6)), x1 = int(std::floor(x + 1e-6));
        const int z0 = int(std::floor(z - 1e-6)), z1 = int(std::floor(z + 1e-6));
        Floor best;
        double best_d = 0;
        auto consider = [&](int cx, int cz) {
            const int wx = cx - f_.x0, wz = cz - f_.z0;
            if (wx < 0 || wz < 0 || wx >= f_.width || wz >= f_.depth) return;
            const size_t cell = size_t(wz) * size_t(f_.width) + size_t(wx);
            for (uint32_t i = f_.cells[cell]; i < f_.cells[cell + 1]; ++i) {
                if (mark_[i] != region_) continue;
                const double d = std::abs(double(f_.y[i]) - expected);
                if (d > window) continue;
                if (best.span == kNoSpan || d < best_d) {
                    best = {i, cx, cz};
                    best_d = d;
                }
            }
        };
        for (int cz = z0; cz <= z1; ++cz)
            for (int cx = x0; cx <= x1; ++cx) consider(cx, cz);
        for (int ring = 1; ring <= 3 && best.span == kNoSpan; ++ring)
            for (int dz = -ring; dz <= ring; ++dz)
                for (int dx = -ring; dx <= ring; ++dx)
                    if (std::max(std::abs(dx), std::abs(dz)) == ring) consider(x1 + dx, z1 + dz);
        return best;
    }

    // The floor under (x, z) reached from `from` (a step of at most one column each way): along
    // the span links when they lead there, so a continuous floor is followed whatever its slope
    // or region; otherwise (a wall, a gap) searched near `from`'s height.
    Floor walk(const Floor& from, double x, double z, double window) const {
        const int cx = int(std::floor(x)), cz = int(std::floor(z));
        if (from.span == kNoSpan) return Floor{};
        const int dx = cx - from.cx, dz = cz - from.cz;
        if (dx == 0 && dz == 0) return from;
        if (std::abs(dx) <= 1 && std::abs(dz) <= 1) {
            auto go = [&](uint32_t s, int dir) { return s == kNoSpan ? kNoSpan : f_.next(s, dir); };
            const int dir_x = dx < 0 ? 0 : 2, dir_z = dz > 0 ? 1 : 3;
            uint32_t reached;
            if (dx != 0 && dz != 0) {
                reached = go(go(from.span, dir_x), dir_z);
                if (reached == kNoSpan) reached = go(go(from.span, dir_z), dir_x);
            } else {
                reached = go(from.span, dx != 0 ? dir_x : dir_z);
            }
            if (reached != kNoSpan) return {reached, cx, cz};
        }
        return find(x, z, f_.y[from.span], window);
    }

    double height(const Floor& floor) const { return f_.y[floor.span]; }

private:
    static constexpr int kReach = 3;  // [Units: span links]

    const CompactField& f_;
    const RegionSpans& index_;
    int window_;                  // [Units: cell heights]
    std::vector<uint32_t> mark_;  // region whose candidate the span is
    uint32_t region_ = 0;
    std::vector<SpanAt> queue_;
};

// An incremental Delaunay triangulation of a convex polygon and points inside it.
class DetailTriangulation {
public:
    struct Tri {
        int v[3];
        int n[3];  // across edge (v[k], v[k+1]); -1 on the boundary
    };

    std::vector<DPoint> points;
    std::vector<Tri> tris;
    std::vector<int> touched;  // triangles created or rewritten since the caller cleared it

    void clear() {
        points.clear();
        tris.clear();
        touched.clear();
    }

    // Fan over the first `count` points (a strictly convex polygon, counter-clockwise): triangle
    // t is (0, t+1, t+2); its edge (0, t+1) is shared with triangle t-1, (t+2, 0) with t+1.
    void fan(int count) {
        tris.clear();
        for (int t = 0; t + 2 < count; ++t)
            tris.push_back({{0, t + 1, t + 2}, {t - 1, -1, t + 3 < count ? t + 1 : -1}});
    }

    // Inserts point `p` (already in `points`) lying on boundary edge (a, b).
    void insertOnBoundary(int p, int a, int b) {
        for (size_t t = 0; t < tris.size(); ++t) {
            const int k = edgeIndex(tris[t], a, b);
            if (k < 0 || tris[t].n[k] != -1) continue;
            splitEdge(int(t), k, p);
            return;
        }
    }

    // Inserts point p (in `points`), which lies in triangle `t` (or on its edges).
    void insert(int p, int t) {
        const DPoint& q = points[size_t(p)];
        const Tri& tri = tris[size_t(t)];
        double w[3];
        for (int k = 0; k < 3; ++k)
            w[k] = cross(points[size_t(tri.v[k])], points[size_t(tri.v[(k + 1) % 3])], q);
        for (int k = 0; k < 3; ++k)
            if (std::abs(w[k]) <= 1e-9) {
                splitEdge(t, k, p);
                return;
            }
        splitTriangle(t, p);
    }

    // The triangle containing q and the height there; `t` -1 when none does.
    bool heightIn(int t, const DPoint& q, double& y) const {
        const Tri& tri = tris[size_t(t)];
        const DPoint& a = points[size_t(tri.v[0])];
        const DPoint& b = points[size_t(tri.v[1])];
        const DPoint& c = points[size_t(tri.v[2])];
        const double area = cross(a, b, c);
        if (area <= 0) return false;
        const double wa = cross(b, c, q) / area;
        const double wb = cross(c, a, q) / area;
        const double wc = cross(a, b, q) / area;
        if (wa < -1e-9 || wb < -1e-9 || wc < -1e-9) return false;
        y = wa * a.y + wb * b.y + wc * c.y;
        return true;
    }
    int locate(const DPoint& q, double& y) const {
        for (size_t t = 0; t < tris.size(); ++t)
            if (heightIn(int(t), q, y)) return int(t);
        return -1;
    }

    // Flips every non-Delaunay interior edge (Lawson), for the initial triangulation.
    void makeDelaunay() {
        for (int pass = 0; pass < 64; ++pass) {
            bool flipped = false;
            for (size_t t = 0; t < tris.size(); ++t)
                for (int k = 0; k < 3; ++k)
                    if (tryFlip(int(t), k)) flipped = true;
            if (!flipped) break;
        }
    }

private:
    static int edgeIndex(const Tri& t, int a, int b) {
        for (int k = 0; k < 3; ++k)
            if (t.v[k] == a && t.v[(k + 1) % 3] == b) return k;
        return -1;
    }

    // Makes triangle t's edge (a, b) and triangle u's edge (b, a) neighbours (u may be -1).
    void link(int t, int a, int b, int u) {
        const int kt = edgeIndex(tris[size_t(t)], a, b);
        if (kt < 0) return;
        tris[size_t(t)].n[kt] = u;
        if (u >= 0) {
            const int k = edgeIndex(tris[size_t(u)], b, a);
            if (k >= 0) tris[size_t(u)].n[k] = t;
        }
    }

    void splitTriangle(int t, int p) {
        const Tri old = tris[size_t(t)];
        const int a = old.v[0], b = old.v[1], c = old.v[2];
        const int t1 = int(tris.size()), t2 = t1 + 1;
        tris[size_t(t)] = {{a, b, p}, {-1, -1, -1}};
        tris.push_back({{b, c, p}, {-1, -1, -1}});
        tris.push_back({{c, a, p}, {-1, -1, -1}});
        touched.insert(touched.end(), {t, t1, t2});
        link(t, a, b, old.n[0]);
        link(t1, b, c, old.n[1]);
        link(t2, c, a, old.n[2]);
        link(t, b, p, t1);
        link(t1, c, p, t2);
        link(t2, a, p, t);
        legalize(t, a, b);
        legalize(t1, b, c);
        legalize(t2, c, a);
    }

    // Splits edge k of triangle t (and the triangle across it) at point p.
    void splitEdge(int t, int k, int p) {
        const Tri old = tris[size_t(t)];
        const int a = old.v[k], b = old.v[(k + 1) % 3], c = old.v[(k + 2) % 3];
        const int u = old.n[k];
        const int t_bc = old.n[(k + 1) % 3], t_ca = old.n[(k + 2) % 3];
        const int t2 = int(tris.size());
        tris[size_t(t)] = {{a, p, c}, {-1, -1, -1}};
        tris.push_back({{p, b, c}, {-1, -1, -1}});
        touched.insert(touched.end(), {t, t2});
        link(t, c, a, t_ca);
        link(t2, b, c, t_bc);
        link(t, p, c, t2);
        if (u >= 0) {
            const Tri uo = tris[size_t(u)];
            const int ku = edgeIndex(uo, b, a);
            const int d = uo.v[(ku + 2) % 3];
            const int u_ad = uo.n[(ku + 1) % 3], u_db = uo.n[(ku + 2) % 3];
            const int u2 = int(tris.size());
            tris[size_t(u)] = {{b, p, d}, {-1, -1, -1}};
            tris.push_back({{p, a, d}, {-1, -1, -1}});
            touched.insert(touched.end(), {u, u2});
            link(u, d, b, u_db);
            link(u2, a, d, u_ad);
            link(u, p, d, u2);
            link(t, a, p, u2);
            link(t2, p, b, u);
            legalize(u, d, b);
            legalize(u2, a, d);
        }
        legalize(t, c, a);
        legalize(t2, b, c);
    }

    // d strictly inside the circumcircle of counter-clockwise (seen from +Y) triangle (a, b, c).
    bool inCircle(const DPoint& a, const DPoint& b, const DPoint& c, const DPoint& d) const {
        const double adx = a.x - d.x, adz = a.z - d.z;
        const double bdx = b.x - d.x, bdz = b.z - d.z;
        const double cdx = c.x - d.x, cdz = c.z - d.z;
        const double det = (adx * adx + adz * adz) * (bdx * cdz - cdx * bdz) -
                           (bdx * bdx + bdz * bdz) * (adx * cdz - cdx * adz) +
                           (cdx * cdx + cdz * cdz) * (adx * bdz - bdx * adz);
        // Counter-clockwise seen from +Y is clockwise in (x, z): inside when det < 0.
        return det < -kFlipEpsilon;
    }

    // Flips edge k of triangle t when the triangle across violates the Delaunay condition.
    bool tryFlip(int t, int k) {
        const Tri tt = tris[size_t(t)];
        const int u = tt.n[k];
        if (u < 0) return false;
        const int a = tt.v[k], b = tt.v[(k + 1) % 3], p = tt.v[(k + 2) % 3];
        const Tri uu = tris[size_t(u)];
        const int ku = edgeIndex(uu, b, a);
        if (ku < 0) return false;
        const int d = uu.v[(ku + 2) % 3];
        const DPoint& pa = points[size_t(a)];
        const DPoint& pb = points[size_t(b)];
        const DPoint& pp = points[size_t(p)];
        const DPoint& pd = points[size_t(d)];
        if (!inCircle(pa, pb, pp, pd)) return false;
        if (cross(pp, pa, pd) <= kFlipEpsilon || cross(pp, pd, pb) <= kFlipEpsilon) return false;
        const int x_bp = tt.n[(k + 1) % 3], x_pa = tt.n[(k + 2) % 3];
        const int y_ad = uu.n[(ku + 1) % 3], y_db = uu.n[(ku + 2) % 3];
        tris[size_t(t)] = {{p, a, d}, {-1, -1, -1}};
        tris[size_t(u)] = {{p, d, b}, {-1, -1, -1}};
        touched.insert(touched.end(), {t, u});
        link(t, p, a, x_pa);
        link(t, a, d, y_ad);
        link(t, d, p, u);
        link(u, d, b, y_db);
        link(u, b, p, x_bp);
        return true;
    }

    // After inserting the point opposite edge (a, b) of t: restores the Delaunay condition.
    void legalize(int t, int a, int b) {
        stack_.clear();
        stack_.push_back({t, a, b});
        size_t guard = 0;
        while (!stack_.empty() && guard++ < 4096) {
            const Pending e = stack_.back();
            stack_.pop_back();
            const int k = edgeIndex(tris[size_t(e.t)], e.a, e.b);
            if (k < 0) continue;
            const int u = tris[size_t(e.t)].n[k];
            if (u < 0) continue;
            const Tri uu = tris[size_t(u)];
            const int ku = edgeIndex(uu, e.b, e.a);
            if (ku < 0) continue;
            const int d = uu.v[(ku + 2) % 3];
            if (!tryFlip(e.t, k)) continue;
            // t is now (p, a, d), u is (p, d, b): check the edges across from p.
            stack_.push_back({e.t, e.a, d});
            stack_.push_back({u, d, e.b});
        }
    }

    struct Pending {
        int t, a, b;
    };
    std::vector<Pending> stack_;
};

double pointSegmentDistanceSq(double px, double pz, const DPoint& a, const DPoint& b) {
    const double dx = b.x - a.x, dz = b.z - a.z;
    const double len = dx * dx + dz * dz;
    double t = len > 0 ? ((px - a.x) * dx + (pz - a.z) * dz) / len : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    const double ex = a.x + t * dx - px, ez = a.z + t * dz - pz;
    return ex * ex + ez * ez;
}

// The detail mesh of one polygon at a time, with its own scratch (one per worker thread).
class PolygonDetail {
public:
    PolygonDetail(const voxel::VoxelGrid& grid, const CompactField& f, const RegionSpans& index,
                  const DetailSettings& settings)
        : heights(f, index),
          cs(grid.cell_size),
          ch(grid.cell_height),
          ox(grid.origin[0]),
          oy(grid.origin[1]),
          oz(grid.origin[2]),
          sd(settings.sample_dist),
          max_error(settings.max_error),
          step_window(2.0 * f.agent.climb + 2.0) {}

    // Appends polygon p's triangles (9 floats each, world coordinates) to `out`.
    void build(const TileMesh& mesh, size_t p, std::vector<float>& out) {
        const uint32_t begin = mesh.poly_offsets[p], end = mesh.poly_offsets[p + 1];
        const int n = int(end - begin);
        poly.clear();
        for (uint32_t k = begin; k < end; ++k) {
            const int32_t* v = &mesh.vertices[3 * size_t(mesh.poly_vertices[k])];
            poly.push_back({double(v[0]), double(v[2]), double(v[1])});
        }
        dt.clear();
        dt.points = poly;
        dt.fan(n);
        if (sd > 0) {
            heights.select(mesh.poly_regions[p]);
            double centre_x = 0, centre_z = 0;
            for (const DPoint& v : poly) {
                centre_x += v.x / n;
                centre_z += v.z / n;
            }
            // 1. Edge samples, from a trace of the floor along each edge.
            trace.clear();
            for (int e = 0; e < n; ++e) {
                const DPoint& va = poly[size_t(e)];
                const DPoint& vb = poly[size_t((e + 1) % n)];
                const bool swap = vb.x < va.x || (vb.x == va.x && vb.z < va.z);
                const DPoint& a = swap ? vb : va;
                const DPoint& b = swap ? va : vb;
                const double len = std::sqrt((b.x - a.x) * (b.x - a.x) + (b.z - a.z) * (b.z - a.z));
                const int segments = std::min(kMaxEdgeSegments, 1 + int(std::floor(len / sd)));
                // Follow the floor along the edge in steps of at most a cell (see walk), each
                // point nudged a hair into the polygon so that it reads the polygon's side.
                edge.clear();
                valid.clear();
                const int steps_per_segment = std::max(1, int(std::ceil(len / segments)));
                const int total_steps = steps_per_segment * segments;
                const double inward =
                    1e-3 / std::max(1e-9, std::hypot(centre_x - 0.5 * (a.x + b.x),
                                                     centre_z - 0.5 * (a.z + b.z)));
                const double nx = (centre_x - 0.5 * (a.x + b.x)) * inward;
                const double nz = (centre_z - 0.5 * (a.z + b.z)) * inward;
                FloorHeights::Floor floor = heights.find(a.x + nx, a.z + nz, a.y, step_window);
                double current = a.y;
                bool traced = true;
                edge.push_back(a);
                valid.push_back(1);
                trace.push_back(a);
                for (int step = 1; step < total_steps; ++step) {
                    const double t = double(step) / total_steps;
                    const double x = a.x + (b.x - a.x) * t, z = a.z + (b.z - a.z) * t;
                    const FloorHeights::Floor next =
                        floor.span != kNoSpan ? heights.walk(floor, x + nx, z + nz, step_window)
                                              : heights.find(x + nx, z + nz, current, step_window);
                    if (next.span != kNoSpan) {
                        floor = next;
                        current = heights.height(floor);
                        trace.push_back({x, z, current});
                    } else {
                        traced = false;
                    }
                    if (step % steps_per_segment == 0) {
                        edge.push_back({x, z, current});
                        valid.push_back(traced);
                        traced = true;
                    }
                }
                edge.push_back(b);
                valid.push_back(1);
                if (segments < 2) continue;
                kept.assign({0, segments});
                for (size_t i = 0; i + 1 < kept.size();) {
                    const DPoint& s0 = edge[size_t(kept[i])];
                    const DPoint& s1 = edge[size_t(kept[i + 1])];
                    double worst = max_error;
                    int worst_k = -1;
                    for (int k = kept[i] + 1; k < kept[i + 1]; ++k) {
                        if (!valid[size_t(k)]) continue;
                        const double t = double(k - kept[i]) / (kept[i + 1] - kept[i]);
                        const double dev = std::abs(edge[size_t(k)].y - (s0.y + (s1.y - s0.y) * t));
                        if (dev > worst) {
                            worst = dev;
                            worst_k = k;
                        }
                    }
                    if (worst_k >= 0)
                        kept.insert(kept.begin() + ptrdiff_t(i) + 1, worst_k);
                    else
                        ++i;
                }
                // Insert in the polygon's own edge direction; endpoints exist already.
                const int ib = (e + 1) % n;
                int prev = e;
                for (size_t j = 1; j + 1 < kept.size(); ++j) {
                    const size_t at = swap ? kept.size() - 1 - j : j;
                    const int index = int(dt.points.size());
                    dt.points.push_back(edge[size_t(kept[at])]);
                    dt.insertOnBoundary(index, prev, ib);
                    prev = index;
                }
            }
            dt.makeDelaunay();

            // 2. Interior samples: cell centres on the lattice of spacing sample_dist at least
            // `margin` inside the polygon, plus the cell centre nearest the centroid (thin
            // polygons may hold no lattice point, yet their middle can dip away from their
            // edges). Their heights come from walking each sample row from the polygon's
            // boundary (the traced floor nearest to where the row enters) across, again a cell
            // at a time.
            double min_z = poly[0].z, max_z = poly[0].z;
            for (const DPoint& v : poly) {
                min_z = std::min(min_z, v.z);
                max_z = std::max(max_z, v.z);
            }
            const double margin = std::min(0.5 * sd, kInteriorMargin);
            auto insideWithMargin = [&](double cx, double cz) {
                for (int e = 0; e < n; ++e) {
                    const DPoint& a = poly[size_t(e)];
                    const DPoint& b = poly[size_t((e + 1) % n)];
                    if (cross(a, b, {cx, cz, 0}) <= 0 ||
                        pointSegmentDistanceSq(cx, cz, a, b) < margin * margin)
                        return false;
                }
                return true;
            };
            interior.clear();
            auto walkRow = [&](double zc, bool lattice, double extra_x) {
                double xl = 0, xr = 0;
                bool any = false;
                for (int e = 0; e < n; ++e) {
                    const DPoint& a = poly[size_t(e)];
                    const DPoint& b = poly[size_t((e + 1) % n)];
                    if ((a.z < zc) == (b.z < zc) || a.z == b.z) continue;
                    const double x = a.x + (zc - a.z) * (b.x - a.x) / (b.z - a.z);
                    xl = any ? std::min(xl, x) : x;
                    xr = any ? std::max(xr, x) : x;
                    any = true;
                }
                if (!any || xr <= xl) return;
                targets.clear();
                if (lattice)
                    for (int64_t ix = int64_t(std::ceil(xl / sd)); double(ix) * sd <= xr; ++ix)
                        targets.push_back(std::floor(double(ix) * sd) + 0.5);
                if (extra_x >= 0) targets.push_back(extra_x);
                std::sort(targets.begin(), targets.end());
                targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
                std::erase_if(targets, [&](double x) { return !insideWithMargin(x, zc); });
                if (targets.empty()) return;
                // Start from the traced boundary point nearest to (xl, zc).
                double current = poly[0].y, best = -1;
                for (const DPoint& q : trace) {
                    const double d = (q.x - xl) * (q.x - xl) + (q.z - zc) * (q.z - zc);
                    if (best < 0 || d < best) {
                        best = d;
                        current = q.y;
                    }
                }
                double x = xl + 1e-3;
                FloorHeights::Floor floor = heights.find(x, zc, current, step_window);
                for (double target : targets) {
                    bool found = false;
                    while (x < target) {
                        x = std::min(target, x + 1.0);
                        const FloorHeights::Floor next =
                            floor.span != kNoSpan ? heights.walk(floor, x, zc, step_window)
                                                  : heights.find(x, zc, current, step_window);
                        found = next.span != kNoSpan;
                        if (found) {
                            floor = next;
                            current = heights.height(floor);
                        }
                    }
                    if (found) interior.push_back({target, zc, current});
                }
            };
            const double centre_cx = std::floor(centre_x) + 0.5,
                         centre_cz = std::floor(centre_z) + 0.5;
            bool centre_done = false;
            for (int64_t iz = int64_t(std::ceil(min_z / sd)); double(iz) * sd <= max_z; ++iz) {
                const double zc = std::floor(double(iz) * sd) + 0.5;
                const bool centre_row = zc == centre_cz;
                centre_done = centre_done || centre_row;
                walkRow(zc, true, centre_row ? centre_cx : -1.0);
            }
            if (!centre_done) walkRow(centre_cz, false, centre_cx);
            // 3. Insert the worst sample while it deviates more than max_error. Each sample
            // remembers its triangle; after an insertion only the samples in the triangles it
            // rewrote are located again (among those triangles, which cover the same area).
            candidates.clear();
            for (const DPoint& q : interior) {
                double y = 0;
                const int t = dt.locate(q, y);
                if (t >= 0) candidates.push_back({q, t, std::abs(q.y - y), false});
            }
            while (dt.points.size() < kMaxPoints) {
                double worst = max_error;
                int worst_i = -1;
                for (size_t i = 0; i < candidates.size(); ++i)
                    if (!candidates[i].used && candidates[i].error > worst) {
                        worst = candidates[i].error;
                        worst_i = int(i);
                    }
                if (worst_i < 0) break;
                Candidate& c = candidates[size_t(worst_i)];
                c.used = true;
                const int index = int(dt.points.size());
                dt.points.push_back(c.p);
                dt.touched.clear();
                dt.insert(index, c.tri);
                touched_mark.resize(dt.tris.size(), 0);
                for (int t : dt.touched) touched_mark[size_t(t)] = 1;
                for (Candidate& other : candidates) {
                    if (other.used || !touched_mark[size_t(other.tri)]) continue;
                    double y = 0;
                    other.tri = -1;
                    for (int t : dt.touched)
                        if (dt.heightIn(t, other.p, y)) {
                            other.tri = t;
                            break;
                        }
                    if (other.tri < 0) other.tri = dt.locate(other.p, y);
                    if (other.tri < 0) {
                        other.used = true;
                        continue;
                    }
                    other.error = std::abs(other.p.y - y);
                }
                for (int t : dt.touched) touched_mark[size_t(t)] = 0;
            }
        }
        for (const auto& tri : dt.tris) {
            for (int k = 0; k < 3; ++k) {
                const DPoint& v = dt.points[size_t(tri.v[k])];
                out.push_back(float(ox + v.x * cs));
                out.push_back(float(oy + v.y * ch));
                out.push_back(float(oz + v.z * cs));
            }
        }
    }

private:
    FloorHeights heights;
    const double cs, ch, ox, oy, oz;
    const double sd;
    const double max_error;
    const double step_window;  // [Units: cell heights]
    DetailTriangulation dt;
    std::vector<DPoint> poly, edge, interior;
    std::vector<int> kept;
    std::vector<uint8_t> valid;
    std::vector<DPoint> trace;    // the floor traced along the polygon's edges
    std::vector<double> targets;  // sample x positions on one row
    struct Candidate {
        DPoint p;
        int tri;       // containing triangle
        double error;  // vertical distance to the current triangles
        bool used;
    };
    std::vector<Candidate> candidates;
    std::vector<uint8_t> touched_mark;
};

}  // namespace

void buildDetailMesh(const voxel::VoxelGrid& grid, const CompactField& f,
                     const DetailSettings& settings, int threads, TileMesh& mesh) {
    const RegionSpans index(f);
    const size_t polys = mesh.polyCount();
    // Work items: runs of polygons of one region (polygons come grouped by region), at most
    // kChunkPolys each, so a worker walks a region's floor once per item.
    std::vector<size_t> chunk_start;
    for (size_t p = 0; p < polys; ++p)
        if (p == 0 || mesh.poly_regions[p] != mesh.poly_regions[p - 1] ||
            p - chunk_start.back() >= kChunkPolys)
            chunk_start.push_back(p);
    const size_t chunks = chunk_start.size();
    chunk_start.push_back(polys);
    struct ChunkOut {
        std::vector<float> triangles;
        std::vector<uint32_t> counts;  // triangles per polygon
    };
    std::vector<ChunkOut> outs(chunks);
    std::vector<std::unique_ptr<PolygonDetail>> workers(
        std::min<size_t>(size_t(std::max(threads, 1)), std::max<size_t>(chunks, 1)));
    parallelFor(chunks, int(workers.size()), [&](size_t c, int worker) {
        auto& w = workers[size_t(worker)];
        if (!w) w = std::make_unique<PolygonDetail>(grid, f, index, settings);
        ChunkOut& out = outs[c];
        for (size_t p = chunk_start[c]; p < chunk_start[c + 1]; ++p) {
            const size_t before = out.triangles.size();
            w->build(mesh, p, out.triangles);
            out.counts.push_back(uint32_t((out.triangles.size() - before) / 9));
        }
    });
    mesh.detail_offsets.assign(1, 0);
    mesh.detail_triangles.clear();
    for (const ChunkOut& out : outs) {
        for (uint32_t count : out.counts)
            mesh.detail_offsets.push_back(mesh.detail_offsets.back() + count);
        mesh.detail_triangles.insert(mesh.detail_triangles.end(), out.triangles.begin(),
                                     out.triangles.end());
    }
}

}  // namespace nav::navmesh::internal
