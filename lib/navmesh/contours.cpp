// Region contours (after Recast's rcBuildContours, RecastContour.cpp; our own implementation).
//
// Tracing. Every region span has a bit per direction whose edge is a region boundary. From each
// span with a bit left, the boundary is walked with the region on the left (seen from +Y): at a
// boundary edge emit its start corner and turn right, otherwise step across and turn left. So
// outlines come out counter-clockwise seen from +Y and holes clockwise. A corner's height is the
// highest span top among the spans linked to the walking span around that corner (the 2x2
// columns, walked both ways round), so the spans on both sides of an edge agree on it.
// Each vertex carries a tag for the edge it starts: what lies across (0 = wall or nothing,
// a region, or kBorderRegion | side = the tile border), plus kTagAreaBorder when the span across
// is of another area.
//
// Simplification (Recast's simplifyContour idea: Douglas-Peucker-like insertion):
//   1. keep the vertices where the tag changes (region, area or tile-border side), plus, on tile
//      borders, the points where the neighbouring tile's contours change (its seam points), so
//      that both tiles put vertices at the same places along their shared border;
//      with no such vertex, keep the lowest-left and highest-right corners;
//   2. wall and area-border edges: insert the raw vertex farthest from its simplified edge while
//      that distance exceeds max_error; edges between regions and tile-border edges stay straight;
//   3. wall and area-border edges longer than max_edge_len are split at their middle raw vertex.
// Searches run in a canonical direction along each edge (from its lexicographically smaller
// end), so the two regions on either side of an area border simplify it identically.
// Consecutive vertices at the same XZ point are then removed.
//
// Holes (a region around an obstacle) are spliced into the outline that contains them through a
// bridge from a hole vertex (the leftmost first) to the nearest outline vertex whose segment lies
// in the outline's cone there and crosses no contour edge (O'Rourke, "Computational Geometry in
// C", 2nd ed., section 1.6, for the cone and crossing tests).
#include <algorithm>
#include <cmath>

#include "lib/common/csr.h"
#include "lib/navmesh/navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {

bool isRegion(uint32_t r) { return r != 0 && (r & kBorderRegion) == 0; }
uint32_t regionPart(uint32_t tag) { return tag & kTagRegionMask; }

// Highest span top around the start corner of edge `dir` of span i (see the file comment).
int cornerHeight(const CompactField& f, uint32_t i, int dir) {
    const int dm = (dir + 3) & 3;
    int top = f.y[i];
    auto chain = [&](int first, int second, int third) {
        uint32_t s = i;
        for (int d : {first, second, third}) {
            s = f.next(s, d);
            if (s == kNoSpan) return;
            top = std::max<int>(top, f.y[s]);
        }
    };
    chain(dir, dm, (dir + 2) & 3);
    chain(dm, dir, (dm + 2) & 3);
    return top;
}

uint32_t edgeTag(const CompactField& f, uint32_t i, int dir) {
    const uint32_t n = f.next(i, dir);
    if (n == kNoSpan) return 0;
    const uint32_t r = f.regions[n];
    if (r & kBorderRegion) return r;  // a tile-border portal: never refined
    if (r == 0) return 0;
    return r | (f.area[n] != f.area[i] ? kTagAreaBorder : 0u);
}

bool mandatory(uint32_t prev, uint32_t cur) {
    return regionPart(prev) != regionPart(cur) || (prev & kTagAreaBorder) != (cur & kTagAreaBorder);
}

// Start corner of edge `dir` of a cell, as an offset from the cell's minimum corner.
constexpr int kCornerX[4] = {0, 0, 1, 1};
constexpr int kCornerZ[4] = {0, 1, 1, 0};

}  // namespace

void traceContours(const CompactField& f, std::vector<Contour>& raw, SeamPoints& seam_points) {
    raw.clear();
    for (auto& side : seam_points) side.clear();
    const size_t n = f.spanCount();
    std::vector<uint8_t> flags(n, 0);
    for (int cell = 0; cell < f.width * f.depth; ++cell) {
        for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
            const uint32_t r = f.regions[i];
            if (!isRegion(r)) continue;
            uint8_t mask = 0;
            for (int dir = 0; dir < 4; ++dir) {
                const uint32_t a = f.next(i, dir);
                const uint32_t across = a == kNoSpan ? 0 : f.regions[a];
                if (across != r) mask = uint8_t(mask | (1 << dir));
            }
            flags[i] = mask;
        }
    }
    for (int cell = 0; cell < f.width * f.depth; ++cell) {
        const int cx = cell % f.width;
        const int cz = cell / f.width;
        for (uint32_t start = f.cells[size_t(cell)]; start < f.cells[size_t(cell) + 1]; ++start) {
            if (flags[start] == 0) continue;
            Contour contour;
            contour.region = f.regions[start];
            contour.area = f.area[start];
            int dir = 0;
            while (!(flags[start] & (1 << dir))) ++dir;
            const int start_dir = dir;
            uint32_t i = start;
            int x = cx, z = cz;
            size_t guard = 4 * n + 16;
            while (guard-- > 0) {
                if (flags[i] & (1 << dir)) {
                    contour.vertices.push_back({f.x0 + x + kCornerX[dir], cornerHeight(f, i, dir),
                                                f.z0 + z + kCornerZ[dir], edgeTag(f, i, dir)});
                    flags[i] = uint8_t(flags[i] & ~(1 << dir));
                    dir = (dir + 1) & 3;
                } else {
                    i = f.next(i, dir);
                    x += kDx[dir];
                    z += kDz[dir];
                    dir = (dir + 3) & 3;
                }
                if (i == start && dir == start_dir) break;
            }
            // Seam points: where the tag changes next to a tile-border edge.
            const size_t count = contour.vertices.size();
            for (size_t k = 0; k < count; ++k) {
                const ContourVertex& v = contour.vertices[k];
                const uint32_t prev = contour.vertices[(k + count - 1) % count].tag;
                if (!mandatory(prev, v.tag)) continue;
                for (uint32_t t : {prev, v.tag})
                    if (t & kBorderRegion) seam_points[t & 3].push_back({v.x, v.z, v.y});
            }
            raw.push_back(std::move(contour));
        }
    }
    for (auto& side : seam_points) {
        std::sort(side.begin(), side.end());
        side.erase(std::unique(side.begin(), side.end(),
                               [](const SeamPoint& a, const SeamPoint& b) {
                                   return a.x == b.x && a.z == b.z && a.y == b.y;
                               }),
                   side.end());
    }
}

namespace {

bool lexLess(const ContourVertex& a, const ContourVertex& b) {
    return a.x != b.x ? a.x < b.x : a.z < b.z;
}

// Squared XZ distance from p to segment (a, b).
double distanceToSegmentSq(const ContourVertex& p, const ContourVertex& a, const ContourVertex& b) {
    const double dx = double(b.x) - a.x, dz = double(b.z) - a.z;
    const double px = double(p.x) - a.x, pz = double(p.z) - a.z;
    const double len = dx * dx + dz * dz;
    double t = len > 0 ? (px * dx + pz * dz) / len : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    const double ex = a.x + t * dx - p.x, ez = a.z + t * dz - p.z;
    return ex * ex + ez * ez;
}

// The raw vertex strictly between kept vertices a and b (cyclic) farthest from segment (a, b),
// or -1 when there is none. Searched from the lexicographically smaller end, so both regions
// along a shared edge pick the same vertex.
int64_t farthestBetween(const std::vector<ContourVertex>& raw, uint32_t a, uint32_t b,
                        double& best_d) {
    const size_t n = raw.size();
    size_t steps = (b + n - a) % n;
    if (steps == 0) steps = n;  // a single kept vertex: the whole loop
    int64_t best = -1;
    best_d = 0;
    const bool forward = !lexLess(raw[b], raw[a]);
    const ContourVertex& s0 = forward ? raw[a] : raw[b];
    const ContourVertex& s1 = forward ? raw[b] : raw[a];
    for (size_t k = 1; k < steps; ++k) {
        const size_t idx = forward ? (a + k) % n : (b + n - k) % n;
        const double d = distanceToSegmentSq(raw[idx], s0, s1);
        if (d > best_d || best < 0) {
            best_d = d;
            best = int64_t(idx);
        }
    }
    return best;
}

class Simplifier {
public:
    Simplifier(const SeamPoints& seam, const ContourSettings& settings)
        : seam_(seam), settings_(settings) {}

    // The raw vertices kept, in contour order.
    void run(const std::vector<ContourVertex>& raw, std::vector<uint32_t>& keep) {
        const size_t n = raw.size();
        keep.clear();
        bool connected = false;
        for (const ContourVertex& v : raw) connected = connected || regionPart(v.tag) != 0;
        if (connected) {
            for (size_t k = 0; k < n; ++k) {
                const uint32_t prev = raw[(k + n - 1) % n].tag;
                const uint32_t cur = raw[k].tag;
                if (mandatory(prev, cur) || onNeighbourSeam(raw[k], prev) ||
                    onNeighbourSeam(raw[k], cur))
                    keep.push_back(uint32_t(k));
            }
        }
        if (keep.size() < 2) {
            keep.clear();
            size_t lo = 0, hi = 0;
            for (size_t k = 1; k < n; ++k) {
                if (lexLess(raw[k], raw[lo])) lo = k;
                if (lexLess(raw[hi], raw[k])) hi = k;
            }
            keep.push_back(uint32_t(std::min(lo, hi)));
            if (hi != lo) keep.push_back(uint32_t(std::max(lo, hi)));
        }

        // 2. Refine wall and area-border edges by distance.
        const double max_error_sq = double(settings_.max_error) * settings_.max_error;
        for (size_t i = 0; i < keep.size();) {
            const uint32_t a = keep[i];
            const uint32_t b = keep[(i + 1) % keep.size()];
            const uint32_t tag = raw[a].tag;
            const bool refine = regionPart(tag) == 0 || (tag & kTagAreaBorder);
            double best_d = 0;
            const int64_t best = refine ? farthestBetween(raw, a, b, best_d) : -1;
            if (best >= 0 && best_d > max_error_sq) {
                keep.insert(keep.begin() + ptrdiff_t(i) + 1, uint32_t(best));
            } else {
                ++i;
            }
        }

        // 3. Split long wall and area-border edges.
        if (settings_.max_edge_len > 0) {
            const int64_t max_len_sq = int64_t(settings_.max_edge_len) * settings_.max_edge_len;
            for (size_t i = 0; i < keep.size();) {
                const uint32_t a = keep[i];
                const uint32_t b = keep[(i + 1) % keep.size()];
                const uint32_t tag = raw[a].tag;
                const bool split = regionPart(tag) == 0 || (tag & kTagAreaBorder);
                const int64_t dx = raw[b].x - raw[a].x, dz = raw[b].z - raw[a].z;
                size_t steps = (b + n - a) % n;
                if (steps == 0) steps = n;
                if (split && dx * dx + dz * dz > max_len_sq && steps > 1) {
                    const size_t half = lexLess(raw[a], raw[b]) ? steps / 2 : (steps + 1) / 2;
                    keep.insert(keep.begin() + ptrdiff_t(i) + 1, uint32_t((a + half) % n));
                } else {
                    ++i;
                }
            }
        }
    }

private:
    bool onNeighbourSeam(const ContourVertex& v, uint32_t tag) const {
        if (!(tag & kBorderRegion)) return false;
        const std::vector<SeamPoint>& points = seam_[tag & 3];
        const SeamPoint key{v.x, v.z, v.y - settings_.weld_tolerance};
        auto it = std::lower_bound(points.begin(), points.end(), key);
        return it != points.end() && it->x == v.x && it->z == v.z &&
               it->y <= v.y + settings_.weld_tolerance;
    }

    const SeamPoints& seam_;
    const ContourSettings& settings_;
};

// Drops vertices at the same XZ point as the next one (the later keeps its outgoing tag).
void removeDegenerate(std::vector<ContourVertex>& v) {
    for (size_t k = 0; v.size() > 1 && k < v.size();) {
        const ContourVertex& next = v[(k + 1) % v.size()];
        if (v[k].x == next.x && v[k].z == next.z) {
            v.erase(v.begin() + ptrdiff_t(k));
            if (k > 0) --k;
        } else {
            ++k;
        }
    }
}

int64_t signedArea2(const std::vector<ContourVertex>& v) {
    int64_t area = 0;
    for (size_t i = 0, j = v.size() - 1; i < v.size(); j = i++)
        area += int64_t(v[j].z) * v[i].x - int64_t(v[j].x) * v[i].z;
    return area;  // positive = counter-clockwise seen from +Y (see cross2)
}

int64_t crossV(const ContourVertex& a, const ContourVertex& b, const ContourVertex& c) {
    return cross2(a.x, a.z, b.x, b.z, c.x, c.z);
}
bool sameXZ(const ContourVertex& a, const ContourVertex& b) { return a.x == b.x && a.z == b.z; }

// Closed segments (a, b) and (c, d) share a point.
bool segmentsTouch(const ContourVertex& a, const ContourVertex& b, const ContourVertex& c,
                   const ContourVertex& d) {
    auto sign = [](int64_t v) { return (v > 0) - (v < 0); };
    const int o1 = sign(crossV(a, b, c)), o2 = sign(crossV(a, b, d));
    const int o3 = sign(crossV(c, d, a)), o4 = sign(crossV(c, d, b));
    if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    auto within = [](const ContourVertex& p, const ContourVertex& q, const ContourVertex& r) {
        return std::min(p.x, q.x) <= r.x && r.x <= std::max(p.x, q.x) &&
               std::min(p.z, q.z) <= r.z && r.z <= std::max(p.z, q.z);
    };
    if (o1 == 0 && within(a, b, c)) return true;
    if (o2 == 0 && within(a, b, d)) return true;
    if (o3 == 0 && within(c, d, a)) return true;
    if (o4 == 0 && within(c, d, b)) return true;
    return false;
}

// The segment from outline vertex `o` to p points into the outline (O'Rourke's InCone).
bool inCone(const std::vector<ContourVertex>& poly, size_t o, const ContourVertex& p) {
    const size_t n = poly.size();
    const ContourVertex& a = poly[o];
    const ContourVertex& a0 = poly[(o + n - 1) % n];
    const ContourVertex& a1 = poly[(o + 1) % n];
    if (crossV(a0, a, a1) >= 0) return crossV(a, p, a0) > 0 && crossV(p, a, a1) > 0;
    return !(crossV(a, p, a1) >= 0 && crossV(p, a, a0) >= 0);
}

// No edge of the given polygons crosses segment (a, b), other than at a or b themselves.
bool segmentClear(const ContourVertex& a, const ContourVertex& b,
                  const std::vector<const std::vector<ContourVertex>*>& polys) {
    for (const std::vector<ContourVertex>* poly : polys) {
        const size_t n = poly->size();
        for (size_t i = 0, j = n - 1; i < n; j = i++) {
            const ContourVertex& p = (*poly)[j];
            const ContourVertex& q = (*poly)[i];
            if (sameXZ(p, a) || sameXZ(q, a) || sameXZ(p, b) || sameXZ(q, b)) continue;
            if (segmentsTouch(a, b, p, q)) return false;
        }
    }
    return true;
}

size_t leftmost(const std::vector<ContourVertex>& v) {
    size_t best = 0;
    for (size_t k = 1; k < v.size(); ++k)
        if (lexLess(v[k], v[best])) best = k;
    return best;
}

// Splices the holes into the outline. Returns the number of holes that found no bridge.
int mergeHoles(std::vector<ContourVertex>& outline,
               std::vector<std::vector<ContourVertex>>& holes) {
    std::vector<size_t> order(holes.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const ContourVertex& va = holes[a][leftmost(holes[a])];
        const ContourVertex& vb = holes[b][leftmost(holes[b])];
        if (va.x != vb.x || va.z != vb.z) return lexLess(va, vb);
        return a < b;
    });
    int failed = 0;
    struct Candidate {
        int64_t dist;
        size_t index;
    };
    std::vector<Candidate> candidates;
    for (size_t h = 0; h < order.size(); ++h) {
        std::vector<ContourVertex>& hole = holes[order[h]];
        std::vector<const std::vector<ContourVertex>*> blockers{&outline};
        for (size_t r = h; r < order.size(); ++r) blockers.push_back(&holes[order[r]]);
        const size_t nh = hole.size();
        const size_t first = leftmost(hole);
        bool merged = false;
        for (size_t t = 0; t < nh && !merged; ++t) {
            const size_t hv = (first + t) % nh;
            const ContourVertex& p = hole[hv];
            candidates.clear();
            for (size_t o = 0; o < outline.size(); ++o) {
                const int64_t dx = outline[o].x - p.x, dz = outline[o].z - p.z;
                if ((dx == 0 && dz == 0) || inCone(outline, o, p))
                    candidates.push_back({dx * dx + dz * dz, o});
            }
            std::sort(candidates.begin(), candidates.end(),
                      [](const Candidate& a, const Candidate& b) {
                          return a.dist != b.dist ? a.dist < b.dist : a.index < b.index;
                      });
            for (const Candidate& c : candidates) {
                if (c.dist != 0 && !segmentClear(outline[c.index], p, blockers)) continue;
                std::vector<ContourVertex> spliced;
                spliced.reserve(outline.size() + nh + 2);
                spliced.insert(spliced.end(), outline.begin(),
                               outline.begin() + ptrdiff_t(c.index) + 1);
                spliced.back().tag = kTagBridge;  // outline vertex -> hole
                for (size_t k = 0; k <= nh; ++k) spliced.push_back(hole[(hv + k) % nh]);
                spliced.back().tag = kTagBridge;  // hole vertex -> back to the outline
                spliced.insert(spliced.end(), outline.begin() + ptrdiff_t(c.index), outline.end());
                outline.swap(spliced);
                merged = true;
                break;
            }
        }
        if (!merged) ++failed;
    }
    return failed;
}

// Crossing-number test, strict interior only counts approximately (boundary is ambiguous).
bool pointInPolygon(const std::vector<ContourVertex>& poly, int64_t px, int64_t pz) {
    bool inside = false;
    for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
        const ContourVertex& u = poly[j];
        const ContourVertex& v = poly[i];
        if ((u.z > pz) == (v.z > pz)) continue;
        const int64_t lhs = (px - u.x) * (int64_t(v.z) - u.z);
        const int64_t rhs = (pz - u.z) * (int64_t(v.x) - u.x);
        if (v.z > u.z ? lhs < rhs : lhs > rhs) inside = !inside;
    }
    return inside;
}

}  // namespace

namespace {

// Simplified contours whose edges cross or overlap (a contour pinched against itself, or two
// contours of one floor squeezed against a thin wall: both can be simplified past each other by up
// to max_error) would give overlapping polygons. Such edges are found through a grid of buckets
// and refined (their farthest raw vertex kept) until none conflict. Only wall edges are refined:
// region and area borders are shared with the contour on the other side, and tile-border edges
// with the neighbouring tile, which must keep the same vertices (raw contours, and therefore
// fully refined walls, never cross, and nothing crosses a tile border edge).
void untangle(const std::vector<const Contour*>& raws, std::vector<std::vector<uint32_t>>& keeps,
              int floor_gap) {
    struct Segment {
        uint32_t piece, index;  // edge keeps[piece][index] -> next
        int32_t x0, z0, x1, z1, y_lo, y_hi;
        bool wall;
    };
    constexpr int kBucket = 16;  // [Units: cells]
    // Two edges conflict when they cross, overlap along a line, or one ends inside the other
    // (touching at shared end points is fine: contours pinch at single corners).
    auto conflict = [](const Segment& a, const Segment& b) {
        const int64_t o1 = cross2(a.x0, a.z0, a.x1, a.z1, b.x0, b.z0);
        const int64_t o2 = cross2(a.x0, a.z0, a.x1, a.z1, b.x1, b.z1);
        const int64_t o3 = cross2(b.x0, b.z0, b.x1, b.z1, a.x0, a.z0);
        const int64_t o4 = cross2(b.x0, b.z0, b.x1, b.z1, a.x1, a.z1);
        if (o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0)
            return (o1 > 0) != (o2 > 0) && (o3 > 0) != (o4 > 0);
        const bool same = a.x0 == b.x0 && a.z0 == b.z0 && a.x1 == b.x1 && a.z1 == b.z1;
        const bool reversed = a.x0 == b.x1 && a.z0 == b.z1 && a.x1 == b.x0 && a.z1 == b.z0;
        if (same || reversed) return true;  // a wall squeezed to nothing between two polygons
        // Point (px, pz), on the line of segment (x0, z0)-(x1, z1), strictly inside it.
        auto inside = [](int64_t x0, int64_t z0, int64_t x1, int64_t z1, int64_t px, int64_t pz) {
            const int64_t t = (px - x0) * (x1 - x0) + (pz - z0) * (z1 - z0);
            const int64_t len = (x1 - x0) * (x1 - x0) + (z1 - z0) * (z1 - z0);
            return t > 0 && t < len;
        };
        if (o1 == 0 && inside(a.x0, a.z0, a.x1, a.z1, b.x0, b.z0)) return true;
        if (o2 == 0 && inside(a.x0, a.z0, a.x1, a.z1, b.x1, b.z1)) return true;
        if (o3 == 0 && inside(b.x0, b.z0, b.x1, b.z1, a.x0, a.z0)) return true;
        if (o4 == 0 && inside(b.x0, b.z0, b.x1, b.z1, a.x1, a.z1)) return true;
        return false;
    };
    std::vector<Segment> segments;
    std::vector<uint32_t> bucket_start, bucket_items;
    std::vector<std::vector<uint8_t>> marked(keeps.size());
    for (int round = 0; round < 64; ++round) {
        segments.clear();
        int32_t min_x = INT32_MAX, min_z = INT32_MAX, max_x = INT32_MIN, max_z = INT32_MIN;
        for (uint32_t p = 0; p < keeps.size(); ++p) {
            const std::vector<ContourVertex>& v = raws[p]->vertices;
            const std::vector<uint32_t>& keep = keeps[p];
            for (uint32_t i = 0; i < keep.size(); ++i) {
                const ContourVertex& a = v[keep[i]];
                const ContourVertex& b = v[keep[(i + 1) % keep.size()]];
                segments.push_back({p, i, a.x, a.z, b.x, b.z, std::min(a.y, b.y),
                                    std::max(a.y, b.y), regionPart(a.tag) == 0});
                min_x = std::min({min_x, a.x, b.x});
                max_x = std::max({max_x, a.x, b.x});
                min_z = std::min({min_z, a.z, b.z});
                max_z = std::max({max_z, a.z, b.z});
            }
        }
        if (segments.size() < 2) return;
        // Buckets (CSR) of the segments' bounding boxes.
        const int bx = (max_x - min_x) / kBucket + 1, bz = (max_z - min_z) / kBucket + 1;
        auto forBuckets = [&](const Segment& sg, auto&& fn) {
            const int x0 = (std::min(sg.x0, sg.x1) - min_x) / kBucket;
            const int x1 = (std::max(sg.x0, sg.x1) - min_x) / kBucket;
            const int z0 = (std::min(sg.z0, sg.z1) - min_z) / kBucket;
            const int z1 = (std::max(sg.z0, sg.z1) - min_z) / kBucket;
            for (int z = z0; z <= z1; ++z)
                for (int x = x0; x <= x1; ++x) fn(size_t(z) * size_t(bx) + size_t(x));
        };
        csrBuild<uint32_t>(
            size_t(bx) * size_t(bz),
            [&](auto&& emit) {
                for (uint32_t k = 0; k < segments.size(); ++k)
                    forBuckets(segments[k], [&](size_t b) { emit(b, k); });
            },
            bucket_start, bucket_items);
        for (size_t p = 0; p < keeps.size(); ++p) marked[p].assign(keeps[p].size(), 0);
        bool any = false;
        for (size_t b = 0; b + 1 < bucket_start.size(); ++b) {
            for (uint32_t i = bucket_start[b]; i < bucket_start[b + 1]; ++i) {
                const Segment& s1 = segments[bucket_items[i]];
                for (uint32_t j = i + 1; j < bucket_start[b + 1]; ++j) {
                    const Segment& s2 = segments[bucket_items[j]];
                    if (!s1.wall && !s2.wall) continue;
                    if (s1.y_hi + floor_gap < s2.y_lo || s2.y_hi + floor_gap < s1.y_lo) continue;
                    if (!conflict(s1, s2)) continue;
                    if (s1.wall) marked[s1.piece][s1.index] = 1;
                    if (s2.wall) marked[s2.piece][s2.index] = 1;
                    any = true;
                }
            }
        }
        if (!any) return;
        bool refined = false;
        for (size_t p = 0; p < keeps.size(); ++p) {
            std::vector<uint32_t>& keep = keeps[p];
            for (size_t i = keep.size(); i-- > 0;) {
                if (!marked[p][i]) continue;
                double d = 0;
                const int64_t best =
                    farthestBetween(raws[p]->vertices, keep[i], keep[(i + 1) % keep.size()], d);
                if (best < 0 || d <= 0) continue;
                keep.insert(keep.begin() + ptrdiff_t(i) + 1, uint32_t(best));
                refined = true;
            }
        }
        if (!refined) return;
    }
}

}  // namespace

void buildContours(const std::vector<Contour>& raw, const SeamPoints& neighbour_points,
                   const ContourSettings& settings, std::vector<Contour>& contours) {
    contours.clear();
    Simplifier simplifier(neighbour_points, settings);
    std::vector<const Contour*> raws;
    std::vector<std::vector<uint32_t>> keeps;
    for (const Contour& r : raw) {
        if (r.vertices.size() < 3) continue;
        raws.push_back(&r);
        keeps.emplace_back();
        simplifier.run(r.vertices, keeps.back());
    }
    untangle(raws, keeps, settings.floor_gap);

    struct Piece {
        std::vector<ContourVertex> vertices;
        uint32_t region;
        uint8_t area;
        int64_t area2;
    };
    std::vector<Piece> pieces;
    pieces.reserve(raws.size());
    std::vector<ContourVertex> simplified;
    for (size_t k = 0; k < raws.size(); ++k) {
        simplified.clear();
        for (uint32_t i : keeps[k]) simplified.push_back(raws[k]->vertices[i]);
        removeDegenerate(simplified);
        if (simplified.size() < 3) continue;
        const int64_t a2 = signedArea2(simplified);
        if (a2 == 0) continue;
        pieces.push_back({simplified, raws[k]->region, raws[k]->area, a2});
    }
    // Group by region (stable: raw contours come in span order).
    std::vector<size_t> order(pieces.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return pieces[a].region < pieces[b].region; });
    for (size_t g = 0; g < order.size();) {
        size_t e = g;
        while (e < order.size() && pieces[order[e]].region == pieces[order[g]].region) ++e;
        std::vector<size_t> outlines, holes;
        for (size_t k = g; k < e; ++k)
            (pieces[order[k]].area2 > 0 ? outlines : holes).push_back(order[k]);
        std::vector<std::vector<std::vector<ContourVertex>>> holes_of(outlines.size());
        for (size_t h : holes) {
            if (outlines.empty()) break;
            size_t target = 0;
            if (outlines.size() > 1) {
                int best_votes = -1;
                for (size_t o = 0; o < outlines.size(); ++o) {
                    int votes = 0;
                    for (const ContourVertex& v : pieces[h].vertices)
                        votes += pointInPolygon(pieces[outlines[o]].vertices, v.x, v.z);
                    if (votes > best_votes) {
                        best_votes = votes;
                        target = o;
                    }
                }
                if (best_votes == 0) continue;  // not inside any outline: drop it
            }
            holes_of[target].push_back(std::move(pieces[h].vertices));
        }
        for (size_t o = 0; o < outlines.size(); ++o) {
            Piece& piece = pieces[outlines[o]];
            if (!holes_of[o].empty()) {
                mergeHoles(piece.vertices, holes_of[o]);
                removeDegenerate(piece.vertices);
                if (piece.vertices.size() < 3) continue;
            }
            Contour c;
            c.vertices = std::move(piece.vertices);
            c.region = piece.region;
            c.area = piece.area;
            contours.push_back(std::move(c));
        }
        g = e;
    }
}

}  // namespace nav::navmesh::internal
