#include "formats/navmesh_locate.h"

#include <algorithm>
#include <cmath>

namespace nav::formats {
namespace {

const float* vertexAt(const MeshArrays& m, uint32_t index) {
    return m.vertices + 3 * size_t(index);
}

// 2D cross product in XZ of (b - a) and (c - a).
double cross(const float* a, const float* b, const float* c) {
    return (double(b[0]) - a[0]) * (double(c[2]) - a[2]) -
           (double(b[2]) - a[2]) * (double(c[0]) - a[0]);
}

}  // namespace

double meshPolyOrientation(const MeshArrays& m, uint32_t p) {
    double area = 0;
    const uint32_t first = m.poly_offsets[p], n = m.poly_offsets[p + 1] - first;
    const float* o = vertexAt(m, m.poly_vertices[first]);
    for (uint32_t k = 1; k + 1 < n; ++k)
        area += cross(o, vertexAt(m, m.poly_vertices[first + k]),
                      vertexAt(m, m.poly_vertices[first + k + 1]));
    return area >= 0 ? 1.0 : -1.0;
}

double meshPolyDistance(const MeshArrays& m, uint32_t p, const float point[3], float closest[3]) {
    const uint32_t first = m.poly_offsets[p], n = m.poly_offsets[p + 1] - first;
    const double s = meshPolyOrientation(m, p);
    bool inside = true;
    double best = 1e300;
    closest[0] = point[0], closest[1] = point[1], closest[2] = point[2];
    for (uint32_t k = 0; k < n; ++k) {
        const float* a = vertexAt(m, m.poly_vertices[first + k]);
        const float* b = vertexAt(m, m.poly_vertices[first + (k + 1) % n]);
        if (s * cross(a, b, point) < 0) inside = false;
        const double ex = double(b[0]) - a[0], ez = double(b[2]) - a[2];
        const double len2 = ex * ex + ez * ez;
        double t =
            len2 > 0 ? ((double(point[0]) - a[0]) * ex + (double(point[2]) - a[2]) * ez) / len2 : 0;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        const double cx = a[0] + t * ex, cz = a[2] + t * ez;
        const double d = (cx - point[0]) * (cx - point[0]) + (cz - point[2]) * (cz - point[2]);
        if (d < best) {
            best = d;
            closest[0] = float(cx);
            closest[2] = float(cz);
        }
    }
    if (inside) {
        closest[0] = point[0], closest[2] = point[2];
        return 0;
    }
    return std::sqrt(best);
}

bool meshPolyHeight(const MeshArrays& m, uint32_t poly, float x, float z, float& y) {
    double best_score = -1e300, best_y = 0;
    for (uint32_t t = m.detail_offsets[poly]; t < m.detail_offsets[poly + 1]; ++t) {
        const float* v = m.detail_triangles + 9 * size_t(t);
        const double ax = v[0], az = v[2], bx = v[3], bz = v[5], cx = v[6], cz = v[8];
        const double det = (bz - cz) * (ax - cx) + (cx - bx) * (az - cz);
        if (std::fabs(det) < 1e-12) continue;
        const double l1 = ((bz - cz) * (x - cx) + (cx - bx) * (z - cz)) / det;
        const double l2 = ((cz - az) * (x - cx) + (ax - cx) * (z - cz)) / det;
        const double l3 = 1 - l1 - l2;
        const double score = std::fmin(l1, std::fmin(l2, l3));  // >= 0 inside
        if (score > best_score) {
            best_score = score;
            best_y = l1 * v[1] + l2 * v[4] + l3 * v[7];
        }
    }
    if (best_score == -1e300) {  // no detail triangles: average of the corners
        double sum = 0;
        const uint32_t first = m.poly_offsets[poly], n = m.poly_offsets[poly + 1] - first;
        for (uint32_t k = 0; k < n; ++k) sum += vertexAt(m, m.poly_vertices[first + k])[1];
        best_y = sum / n;
    }
    y = float(best_y);
    const float p[3] = {x, y, z};
    float closest[3];
    return meshPolyDistance(m, poly, p, closest) <= 1e-4;
}

MeshLocation meshLocate(const MeshArrays& m, const float p[3], float horizontal_tolerance,
                        float vertical_tolerance, uint32_t hint, uint32_t poly_count) {
    MeshLocation result;
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) return result;
    auto done = [&] {
        if (result.poly != 0xFFFFFFFFu) {
            const double dx = double(result.position[0]) - p[0],
                         dy = double(result.position[1]) - p[1],
                         dz = double(result.position[2]) - p[2];
            result.distance = float(std::sqrt(dx * dx + dy * dy + dz * dz));
        }
        return result;
    };
    if (hint < poly_count) {
        float y = 0;
        if (meshPolyHeight(m, hint, p[0], p[2], y) &&
            std::fabs(double(y) - p[1]) <= vertical_tolerance) {
            result.poly = hint;
            result.position[0] = p[0];
            result.position[1] = y;
            result.position[2] = p[2];
            return done();
        }
    }
    const MeshIndexHeader& ix = m.index;
    const double reach = horizontal_tolerance > 0 ? horizontal_tolerance : 0.0;
    const double i0 = std::floor((p[0] - reach - ix.min_x) / ix.cell),
                 i1 = std::floor((p[0] + reach - ix.min_x) / ix.cell);
    const double j0 = std::floor((p[2] - reach - ix.min_z) / ix.cell),
                 j1 = std::floor((p[2] + reach - ix.min_z) / ix.cell);
    if (i1 < 0 || j1 < 0 || i0 >= ix.cells_x || j0 >= ix.cells_z) return result;
    double best = 1e300;
    // A polygon listed in several of the cells is tested once (the result is the same: the best
    // score, ties to the lowest id); the last few tested are remembered, without allocating.
    constexpr size_t kRecent = 32;
    uint32_t recent[kRecent];
    size_t recent_count = 0;
    for (uint32_t j = uint32_t(std::fmax(j0, 0)); j <= uint32_t(std::fmin(j1, ix.cells_z - 1.0));
         ++j) {
        for (uint32_t i = uint32_t(std::fmax(i0, 0));
             i <= uint32_t(std::fmin(i1, ix.cells_x - 1.0)); ++i) {
            const size_t cell = size_t(j) * ix.cells_x + i;
            for (uint32_t k = m.index_offsets[cell]; k < m.index_offsets[cell + 1]; ++k) {
                const uint32_t poly = m.index_polys[k];
                if (std::find(recent, recent + std::min(recent_count, kRecent), poly) !=
                    recent + std::min(recent_count, kRecent))
                    continue;
                recent[recent_count++ % kRecent] = poly;
                float closest[3];
                const double d = meshPolyDistance(m, poly, p, closest);
                if (d > reach + 1e-6) continue;
                float y = 0;
                meshPolyHeight(m, poly, closest[0], closest[2], y);
                const double dy = std::fabs(double(y) - p[1]);
                if (dy > vertical_tolerance) continue;
                const double score = d * d + dy * dy;
                if (score < best || (score == best && poly < result.poly)) {
                    best = score;
                    result.poly = poly;
                    result.position[0] = closest[0];
                    result.position[1] = y;
                    result.position[2] = closest[2];
                }
            }
        }
    }
    return done();
}

}  // namespace nav::formats
