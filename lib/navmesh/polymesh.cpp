// Convex polygons from contours (after Recast's rcBuildPolyMesh, RecastMesh.cpp; our own code).
//
// 1. Each contour is triangulated by ear clipping on its integer XZ coordinates (O'Rourke,
//    "Computational Geometry in C", 2nd ed., 1.6: a vertex is an ear when the segment joining its
//    neighbours is a diagonal: inside the cone at the first neighbour and crossing no edge).
//    Among the current ears the one with the shortest diagonal is clipped first (ties: the first
//    in contour order), which avoids slivers. Ear tips must turn strictly left, so no triangle is
//    degenerate. Edges touching the diagonal only at a shared point (pinched contours, hole
//    bridges) do not block it. If no ear is found a looser test (proper crossings only) is tried;
//    if that fails too, the rest of the contour is dropped and counted.
// 2. Vertices are welded within the tile: same XZ corner and heights within weld_tolerance.
// 3. Triangles of one contour merge greedily into convex polygons: among all pairs of polygons
//    sharing an edge whose union is strictly convex with at most max_verts vertices, the pair
//    with the longest shared edge merges first (ties: lower polygon ids), via a priority queue
//    with lazy invalidation, until no pair qualifies.
// 4. Adjacency: polygon edges are sorted by their vertex pair; an edge and its reverse link.
// Each polygon edge remembers what it lies on: a wall (never linked: where a wall thinner than the
// simplification error separates two polygons, their edges can coincide, and linking them would
// let paths through the wall), a tile-border portal (the tile side, which tiles.cpp stitches
// across) or the inside of the tile.
#include <algorithm>
#include <queue>

#include "lib/navmesh/navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {

constexpr int kMaxVerts = 6;

struct P2 {
    int64_t x, z;
};
inline int64_t cross(const P2& a, const P2& b, const P2& c) {
    return cross2(a.x, a.z, b.x, b.z, c.x, c.z);
}
inline bool same(const P2& a, const P2& b) { return a.x == b.x && a.z == b.z; }

bool between(const P2& a, const P2& b, const P2& c) {  // c on segment ab, given collinear
    if (a.x != b.x) return (a.x <= c.x && c.x <= b.x) || (a.x >= c.x && c.x >= b.x);
    return (a.z <= c.z && c.z <= b.z) || (a.z >= c.z && c.z >= b.z);
}

bool properCross(const P2& a, const P2& b, const P2& c, const P2& d) {
    const int64_t o1 = cross(a, b, c), o2 = cross(a, b, d), o3 = cross(c, d, a),
                  o4 = cross(c, d, b);
    if (o1 == 0 || o2 == 0 || o3 == 0 || o4 == 0) return false;
    return ((o1 > 0) != (o2 > 0)) && ((o3 > 0) != (o4 > 0));
}

bool touches(const P2& a, const P2& b, const P2& c, const P2& d) {
    if (properCross(a, b, c, d)) return true;
    if (cross(a, b, c) == 0 && between(a, b, c)) return true;
    if (cross(a, b, d) == 0 && between(a, b, d)) return true;
    if (cross(c, d, a) == 0 && between(c, d, a)) return true;
    if (cross(c, d, b) == 0 && between(c, d, b)) return true;
    return false;
}

class EarClipper {
public:
    // Triangulates polygon `pts` (counter-clockwise seen from +Y); appends index triples.
    bool run(const std::vector<P2>& pts, std::vector<uint32_t>& tris) {
        pts_ = &pts;
        const size_t n = pts.size();
        idx_.resize(n);
        for (size_t k = 0; k < n; ++k) idx_[k] = uint32_t(k);
        ear_.assign(n, 0);
        for (size_t k = 0; k < n; ++k) ear_[k] = isEar(k, false);
        while (idx_.size() > 3) {
            size_t best = findEar();
            if (best == SIZE_MAX) {
                for (size_t k = 0; k < idx_.size(); ++k) ear_[k] = isEar(k, true);
                best = findEar();
                if (best == SIZE_MAX) return false;
            }
            const size_t m = idx_.size();
            tris.push_back(idx_[(best + m - 1) % m]);
            tris.push_back(idx_[best]);
            tris.push_back(idx_[(best + 1) % m]);
            idx_.erase(idx_.begin() + ptrdiff_t(best));
            ear_.erase(ear_.begin() + ptrdiff_t(best));
            const size_t mm = idx_.size();
            const size_t prev = (best + mm - 1) % mm;
            const size_t next = best % mm;
            ear_[prev] = isEar(prev, false);
            ear_[next] = isEar(next, false);
        }
        if (cross(at(0), at(1), at(2)) > 0) {
            tris.push_back(idx_[0]);
            tris.push_back(idx_[1]);
            tris.push_back(idx_[2]);
        }
        return true;
    }

private:
    const P2& at(size_t pos) const { return (*pts_)[idx_[pos]]; }

    size_t findEar() const {
        size_t best = SIZE_MAX;
        int64_t best_len = 0;
        const size_t m = idx_.size();
        for (size_t k = 0; k < m; ++k) {
            if (!ear_[k]) continue;
            const P2& a = at((k + m - 1) % m);
            const P2& b = at((k + 1) % m);
            const int64_t len = (b.x - a.x) * (b.x - a.x) + (b.z - a.z) * (b.z - a.z);
            if (best == SIZE_MAX || len < best_len) {
                best = k;
                best_len = len;
            }
        }
        return best;
    }

    // Vertex at position k is an ear: its tip turns strictly left and (k-1, k+1) is a diagonal.
    uint8_t isEar(size_t k, bool loose) const {
        const size_t m = idx_.size();
        const size_t i = (k + m - 1) % m, j = (k + 1) % m;
        const P2& a = at(i);
        const P2& b = at(j);
        if (cross(a, at(k), b) <= 0) return 0;
        // In the cone at a.
        const P2& a0 = at((i + m - 1) % m);
        const P2& a1 = at(k);
        bool in_cone;
        if (cross(a0, a, a1) >= 0)
            in_cone = loose ? cross(a, b, a0) >= 0 && cross(b, a, a1) >= 0
                            : cross(a, b, a0) > 0 && cross(b, a, a1) > 0;
        else
            in_cone = !(cross(a, b, a1) >= 0 && cross(b, a, a0) >= 0);
        if (!in_cone) return 0;
        // Crosses no edge (edges sharing a point with the diagonal's ends do not count).
        for (size_t e = 0; e < m; ++e) {
            const size_t e1 = (e + 1) % m;
            if (e == i || e1 == i || e == j || e1 == j) continue;
            const P2& p = at(e);
            const P2& q = at(e1);
            if (same(p, a) || same(p, b) || same(q, a) || same(q, b)) continue;
            if (loose ? properCross(a, b, p, q) : touches(a, b, p, q)) return 0;
        }
        return 1;
    }

    const std::vector<P2>* pts_ = nullptr;
    std::vector<uint32_t> idx_;
    std::vector<uint8_t> ear_;
};

struct MergePoly {
    uint32_t v[kMaxVerts];
    uint8_t kind[kMaxVerts];  // of edge (v[k], v[k+1])
    int n = 0;
    uint32_t version = 0;
    bool alive = true;
    std::vector<uint32_t> neighbours;
};

class PolyMerger {
public:
    PolyMerger(const std::vector<int32_t>& vertices, int max_verts)
        : vertices_(vertices), max_verts_(max_verts) {}

    // Merges polys (all of one contour) in place; dead ones are flagged.
    void run(std::vector<MergePoly>& polys) {
        polys_ = &polys;
        // Initial adjacency through shared edges.
        edges_.clear();
        for (uint32_t p = 0; p < polys.size(); ++p)
            for (int k = 0; k < polys[p].n; ++k) {
                const uint32_t a = polys[p].v[k], b = polys[p].v[(k + 1) % polys[p].n];
                edges_.push_back({std::min(a, b), std::max(a, b), p});
            }
        std::sort(edges_.begin(), edges_.end());
        for (size_t e = 0; e + 1 < edges_.size(); ++e) {
            if (edges_[e].lo != edges_[e + 1].lo || edges_[e].hi != edges_[e + 1].hi) continue;
            const uint32_t p = edges_[e].poly, q = edges_[e + 1].poly;
            if (p == q) continue;
            addNeighbour(polys[p], q);
            addNeighbour(polys[q], p);
        }
        heap_ = {};
        for (uint32_t p = 0; p < polys.size(); ++p)
            for (uint32_t q : polys[p].neighbours)
                if (p < q) consider(p, q);
        while (!heap_.empty()) {
            const Candidate c = heap_.top();
            heap_.pop();
            MergePoly& a = polys[c.a];
            MergePoly& b = polys[c.b];
            if (!a.alive || !b.alive || a.version != c.version_a || b.version != c.version_b)
                continue;
            int ea, eb;
            if (mergeValue(a, b, ea, eb) < 0) continue;
            merge(a, b, ea, eb);
            b.alive = false;
            ++a.version;
            for (uint32_t n : b.neighbours) {
                if (n == c.a) continue;
                addNeighbour(a, n);
                MergePoly& other = polys[n];
                std::replace(other.neighbours.begin(), other.neighbours.end(), c.b, c.a);
                std::sort(other.neighbours.begin(), other.neighbours.end());
                other.neighbours.erase(
                    std::unique(other.neighbours.begin(), other.neighbours.end()),
                    other.neighbours.end());
            }
            a.neighbours.erase(std::remove(a.neighbours.begin(), a.neighbours.end(), c.b),
                               a.neighbours.end());
            b.neighbours.clear();
            for (uint32_t n : a.neighbours) consider(std::min(c.a, n), std::max(c.a, n));
        }
    }

private:
    struct EdgeKey {
        uint32_t lo, hi, poly;
        bool operator<(const EdgeKey& o) const {
            return lo != o.lo ? lo < o.lo : hi != o.hi ? hi < o.hi : poly < o.poly;
        }
    };
    struct Candidate {
        int64_t value;
        uint32_t a, b, version_a, version_b;
        bool operator<(const Candidate& o) const {  // max-heap: larger value, then lower ids
            if (value != o.value) return value < o.value;
            if (a != o.a) return a > o.a;
            return b > o.b;
        }
    };

    static void addNeighbour(MergePoly& p, uint32_t q) {
        if (std::find(p.neighbours.begin(), p.neighbours.end(), q) == p.neighbours.end())
            p.neighbours.push_back(q);
    }

    P2 xz(uint32_t v) const { return {vertices_[3 * size_t(v)], vertices_[3 * size_t(v) + 2]}; }

    // Squared length of the shared edge when merging keeps the polygon strictly convex with at
    // most max_verts vertices; -1 otherwise. ea/eb: the shared edge's index in a and in b.
    int64_t mergeValue(const MergePoly& a, const MergePoly& b, int& ea, int& eb) const {
        if (a.n + b.n - 2 > max_verts_) return -1;
        ea = eb = -1;
        for (int i = 0; i < a.n && ea < 0; ++i) {
            const uint32_t va0 = a.v[i], va1 = a.v[(i + 1) % a.n];
            for (int j = 0; j < b.n; ++j)
                if (b.v[j] == va1 && b.v[(j + 1) % b.n] == va0) {
                    ea = i;
                    eb = j;
                    break;
                }
        }
        if (ea < 0) return -1;
        if (cross(xz(a.v[(ea + a.n - 1) % a.n]), xz(a.v[ea]), xz(b.v[(eb + 2) % b.n])) <= 0)
            return -1;
        if (cross(xz(b.v[(eb + b.n - 1) % b.n]), xz(b.v[eb]), xz(a.v[(ea + 2) % a.n])) <= 0)
            return -1;
        const P2 p = xz(a.v[ea]), q = xz(a.v[(ea + 1) % a.n]);
        return (q.x - p.x) * (q.x - p.x) + (q.z - p.z) * (q.z - p.z);
    }

    void consider(uint32_t p, uint32_t q) {
        int ea, eb;
        const int64_t value = mergeValue((*polys_)[p], (*polys_)[q], ea, eb);
        if (value < 0) return;
        heap_.push({value, p, q, (*polys_)[p].version, (*polys_)[q].version});
    }

    static void merge(MergePoly& a, const MergePoly& b, int ea, int eb) {
        MergePoly out;
        for (int k = 1; k < a.n; ++k) {
            out.v[out.n] = a.v[(ea + k) % a.n];
            out.kind[out.n++] = a.kind[(ea + k) % a.n];
        }
        for (int k = 1; k < b.n; ++k) {
            out.v[out.n] = b.v[(eb + k) % b.n];
            out.kind[out.n++] = b.kind[(eb + k) % b.n];
        }
        std::copy(out.v, out.v + out.n, a.v);
        std::copy(out.kind, out.kind + out.n, a.kind);
        a.n = out.n;
    }

    const std::vector<int32_t>& vertices_;
    int max_verts_;
    std::vector<MergePoly>* polys_ = nullptr;
    std::vector<EdgeKey> edges_;
    std::priority_queue<Candidate> heap_;
};

}  // namespace

int buildPolyMesh(const CompactField& f, const std::vector<Contour>& contours, int max_verts,
                  int weld_tolerance, TileMesh& mesh) {
    max_verts = std::clamp(max_verts, 3, kMaxVerts);
    // Vertex welding: chains of vertices per corner of the field's window.
    const int corners_x = f.width + 1;
    std::vector<uint32_t> head(size_t(corners_x) * size_t(f.depth + 1), UINT32_MAX);
    std::vector<uint32_t> chain;
    auto weld = [&](const ContourVertex& cv) -> uint32_t {
        const size_t corner = size_t(cv.z - f.z0) * size_t(corners_x) + size_t(cv.x - f.x0);
        for (uint32_t v = head[corner]; v != UINT32_MAX; v = chain[v])
            if (std::abs(mesh.vertices[3 * size_t(v) + 1] - cv.y) <= weld_tolerance) return v;
        const uint32_t v = uint32_t(mesh.vertices.size() / 3);
        mesh.vertices.insert(mesh.vertices.end(), {cv.x, cv.y, cv.z});
        chain.push_back(head[corner]);
        head[corner] = v;
        return v;
    };

    int failed = 0;
    EarClipper clipper;
    PolyMerger merger(mesh.vertices, max_verts);
    std::vector<P2> pts;
    std::vector<uint32_t> tris, ids;
    std::vector<MergePoly> polys;
    for (const Contour& contour : contours) {
        const size_t n = contour.vertices.size();
        if (n < 3) continue;
        pts.resize(n);
        for (size_t k = 0; k < n; ++k) pts[k] = {contour.vertices[k].x, contour.vertices[k].z};
        tris.clear();
        if (!clipper.run(pts, tris)) ++failed;
        if (tris.empty()) continue;
        ids.resize(n);
        for (size_t k = 0; k < n; ++k) ids[k] = weld(contour.vertices[k]);
        polys.clear();
        for (size_t t = 0; t < tris.size(); t += 3) {
            MergePoly p;
            p.n = 3;
            bool degenerate = false;
            for (int k = 0; k < 3; ++k) {
                const uint32_t a = tris[t + size_t(k)], b = tris[t + size_t((k + 1) % 3)];
                p.v[k] = ids[a];
                p.kind[k] = kInnerEdge;
                if (b == (a + 1) % n) {  // a contour edge
                    const uint32_t tag = contour.vertices[a].tag;
                    if (tag & kBorderRegion)
                        p.kind[k] = uint8_t(tag & 3);
                    else if ((tag & (kTagRegionMask | kTagBridge)) == 0)
                        p.kind[k] = kWallEdge;
                }
            }
            degenerate = p.v[0] == p.v[1] || p.v[1] == p.v[2] || p.v[0] == p.v[2];
            if (!degenerate) polys.push_back(p);
        }
        if (max_verts > 3) merger.run(polys);
        for (const MergePoly& p : polys) {
            if (!p.alive) continue;
            for (int k = 0; k < p.n; ++k) {
                mesh.poly_vertices.push_back(p.v[k]);
                mesh.edge_kinds.push_back(p.kind[k]);
            }
            mesh.poly_offsets.push_back(uint32_t(mesh.poly_vertices.size()));
            mesh.poly_areas.push_back(contour.area);
            mesh.poly_regions.push_back(contour.region);
        }
    }

    // Adjacency within the tile.
    struct Edge {
        uint32_t lo, hi;
        uint32_t slot;  // index into poly_vertices
        bool forward;
    };
    std::vector<Edge> edges;
    edges.reserve(mesh.poly_vertices.size());
    std::vector<uint32_t> owner(mesh.poly_vertices.size());
    for (uint32_t p = 0; p + 1 < mesh.poly_offsets.size(); ++p) {
        const uint32_t b = mesh.poly_offsets[p], e = mesh.poly_offsets[p + 1];
        for (uint32_t k = b; k < e; ++k) {
            owner[k] = p;
            const uint32_t v0 = mesh.poly_vertices[k];
            const uint32_t v1 = mesh.poly_vertices[k + 1 < e ? k + 1 : b];
            if (mesh.edge_kinds[k] == kWallEdge) continue;
            edges.push_back({std::min(v0, v1), std::max(v0, v1), k, v0 < v1});
        }
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
        if (a.lo != b.lo) return a.lo < b.lo;
        if (a.hi != b.hi) return a.hi < b.hi;
        if (a.forward != b.forward) return a.forward;
        return a.slot < b.slot;
    });
    mesh.poly_neighbours.assign(mesh.poly_vertices.size(), kNoNeighbour);
    for (size_t g = 0; g < edges.size();) {
        size_t e = g;
        while (e < edges.size() && edges[e].lo == edges[g].lo && edges[e].hi == edges[g].hi) ++e;
        size_t fwd = g, bwd = g;
        while (bwd < e && edges[bwd].forward) ++bwd;
        const size_t fwd_end = bwd;
        for (; fwd < fwd_end && bwd < e; ++fwd, ++bwd) {
            const uint32_t sa = edges[fwd].slot, sb = edges[bwd].slot;
            if (owner[sa] == owner[sb]) continue;
            mesh.poly_neighbours[sa] = owner[sb];
            mesh.poly_neighbours[sb] = owner[sa];
        }
        g = e;
    }
    return failed;
}

}  // namespace nav::navmesh::internal
