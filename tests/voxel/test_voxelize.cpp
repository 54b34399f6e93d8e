// Voxelization (stage 2): rasterization against an independent exact reference, border rules,
// walkability filters, erosion, multi-floor levels, determinism, the sample levels and the shared
// Recast demo meshes.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "formats/container_writer.h"
#include "lib/geometry/geometry.h"
#include "lib/importer/import.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"
#include "tests/level_builder.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

using test::V3;

using Builder = test::LevelBuilder;
using test::voxelizeOk;

voxel::VoxelizeParams makeParams(float cell_size = 0.3f, float cell_height = 0.2f,
                                 float radius = 0.6f) {
    return test::voxelParams(cell_size, cell_height, radius);
}

// ---- Independent rasterization reference ------------------------------------------------------
// Computes, per column, whether a triangle touches it and the Y range of the part over it, by
// enumerating the vertices of (triangle x column prism) directly in double precision: triangle
// corners inside, crossings of triangle edges with the column's border lines, column corners
// inside the triangle. "Touches" follows the documented border rule: a positive-area overlap of
// the XZ footprint with the column's square; for vertical faces positive length of the footprint
// segment; a face exactly on a border line goes to the column behind it (away from its normal).

struct P3 {
    double x, y, z;
};

struct RefTriangle {
    P3 v[3];
    double normal[3];
};

double snapCell(double v) {  // the documented 1e-4-cell snapping of vertex coordinates
    const double r = std::round(v);
    return std::abs(v - r) <= 1e-4 ? r : v;
}

RefTriangle refTriangle(const geometry::Geometry& g, size_t t, const voxel::VoxelGrid& grid) {
    RefTriangle r;
    double w[3][3];
    for (int k = 0; k < 3; ++k) {
        const float* p = &g.vertices[3 * size_t(g.triangles[3 * t + size_t(k)])];
        for (int a = 0; a < 3; ++a) w[k][a] = p[a];
        r.v[k] = {snapCell((double(p[0]) - grid.origin[0]) / grid.cell_size),
                  snapCell((double(p[1]) - grid.origin[1]) / grid.cell_height),
                  snapCell((double(p[2]) - grid.origin[2]) / grid.cell_size)};
    }
    const double e0[3] = {w[1][0] - w[0][0], w[1][1] - w[0][1], w[1][2] - w[0][2]};
    const double e1[3] = {w[2][0] - w[0][0], w[2][1] - w[0][1], w[2][2] - w[0][2]};
    r.normal[0] = e0[1] * e1[2] - e0[2] * e1[1];
    r.normal[1] = e0[2] * e1[0] - e0[0] * e1[2];
    r.normal[2] = e0[0] * e1[1] - e0[1] * e1[0];
    return r;
}

double hullArea(std::vector<std::pair<double, double>> pts) {
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    if (pts.size() < 3) return 0.0;
    auto cross = [](auto o, auto a, auto b) {
        return (a.first - o.first) * (b.second - o.second) -
               (a.second - o.second) * (b.first - o.first);
    };
    std::vector<std::pair<double, double>> hull(2 * pts.size());
    size_t k = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
        hull[k++] = pts[i];
    }
    for (size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
        hull[k++] = pts[i];
    }
    hull.resize(k - 1);
    double area = 0;
    for (size_t i = 0; i < hull.size(); ++i) {
        const auto& a = hull[i];
        const auto& b = hull[(i + 1) % hull.size()];
        area += a.first * b.second - b.first * a.second;
    }
    return std::abs(area) / 2;
}

// Column (or row) of a coordinate lying on a line of the footprint, by the border rule.
int cellOf(double v, bool prefer_lower, uint32_t size) {
    double c = std::floor(v);
    if (v == c && prefer_lower) c -= 1;
    return int(std::clamp(c, 0.0, double(size) - 1));
}

struct RefColumn {
    bool touched = false;
    bool ambiguous = false;  // within rounding noise of the touch threshold
    double y_lo = 0, y_hi = 0;
};

constexpr double kTouchEps = 1e-7;  // [Units: cells or cells^2]
constexpr double kZeroEps = 1e-12;

RefColumn refColumn(const RefTriangle& t, int cx, int cz, const voxel::VoxelGrid& grid) {
    const double x0 = cx, x1 = cx + 1.0, z0 = cz, z1 = cz + 1.0;
    auto inSquare = [&](double x, double z) { return x >= x0 && x <= x1 && z >= z0 && z <= z1; };
    const P3* v = t.v;
    std::vector<P3> pts;
    for (int k = 0; k < 3; ++k)
        if (inSquare(v[k].x, v[k].z)) pts.push_back(v[k]);
    for (int k = 0; k < 3; ++k) {
        const P3& p = v[k];
        const P3& q = v[(k + 1) % 3];
        for (double X : {x0, x1}) {
            if (p.x == q.x) continue;
            const double s = (X - p.x) / (q.x - p.x);
            const double z = p.z + (q.z - p.z) * s;
            if (s >= 0 && s <= 1 && z >= z0 && z <= z1)
                pts.push_back({X, p.y + (q.y - p.y) * s, z});
        }
        for (double Z : {z0, z1}) {
            if (p.z == q.z) continue;
            const double s = (Z - p.z) / (q.z - p.z);
            const double x = p.x + (q.x - p.x) * s;
            if (s >= 0 && s <= 1 && x >= x0 && x <= x1)
                pts.push_back({x, p.y + (q.y - p.y) * s, Z});
        }
    }
    RefColumn r;
    const double ex[2] = {v[1].x - v[0].x, v[2].x - v[0].x};
    const double ez[2] = {v[1].z - v[0].z, v[2].z - v[0].z};
    const double det = ex[0] * ez[1] - ez[0] * ex[1];
    if (std::abs(det) > kZeroEps) {
        for (double X : {x0, x1}) {
            for (double Z : {z0, z1}) {
                const double dx = X - v[0].x, dz = Z - v[0].z;
                const double l1 = (dx * ez[1] - dz * ex[1]) / det;
                const double l2 = (ex[0] * dz - ez[0] * dx) / det;
                if (l1 >= -1e-12 && l2 >= -1e-12 && l1 + l2 <= 1 + 1e-12)
                    pts.push_back({X, v[0].y + l1 * (v[1].y - v[0].y) + l2 * (v[2].y - v[0].y), Z});
            }
        }
        std::vector<std::pair<double, double>> xz;
        for (const P3& p : pts) xz.push_back({p.x, p.z});
        const double area = hullArea(xz);
        r.touched = area > kTouchEps;
        r.ambiguous = !r.touched && area > kZeroEps;
    } else {
        // Vertical face: the footprint is a segment (or a point).
        int a = 0, b = 1;
        double best = -1;
        for (int i = 0; i < 3; ++i)
            for (int j = i + 1; j < 3; ++j) {
                const double d = std::hypot(v[i].x - v[j].x, v[i].z - v[j].z);
                if (d > best) best = d, a = i, b = j;
            }
        const P3& s0 = v[a];
        const P3& s1 = v[b];
        double length = 0;
        if (best <= kZeroEps) {
            r.touched = cellOf(s0.x, t.normal[0] > 0, grid.size_x) == cx &&
                        cellOf(s0.z, t.normal[2] > 0, grid.size_z) == cz;
            pts.assign(v, v + 3);
            length = r.touched ? 1.0 : 0.0;
        } else if (s0.x == s1.x) {
            if (cellOf(s0.x, t.normal[0] > 0, grid.size_x) == cx)
                length = std::min(std::max(s0.z, s1.z), z1) - std::max(std::min(s0.z, s1.z), z0);
        } else if (s0.z == s1.z) {
            if (cellOf(s0.z, t.normal[2] > 0, grid.size_z) == cz)
                length = std::min(std::max(s0.x, s1.x), x1) - std::max(std::min(s0.x, s1.x), x0);
        } else {
            // Liang-Barsky: the part of the segment inside the closed square.
            double t0 = 0, t1 = 1;
            const double d[2] = {s1.x - s0.x, s1.z - s0.z};
            const double o[2] = {s0.x, s0.z};
            const double lo[2] = {x0, z0}, hi[2] = {x1, z1};
            for (int axis = 0; axis < 2; ++axis) {
                double ta = (lo[axis] - o[axis]) / d[axis];
                double tb = (hi[axis] - o[axis]) / d[axis];
                if (ta > tb) std::swap(ta, tb);
                t0 = std::max(t0, ta);
                t1 = std::min(t1, tb);
            }
            length = (t1 - t0) * best;
        }
        r.touched = length > kTouchEps;
        r.ambiguous = !r.touched && length > kZeroEps;
    }
    if (r.touched) {
        if (pts.empty()) {
            r.ambiguous = true;
            return r;
        }
        r.y_lo = r.y_hi = pts[0].y;
        for (const P3& p : pts) {
            r.y_lo = std::min(r.y_lo, p.y);
            r.y_hi = std::max(r.y_hi, p.y);
        }
    }
    return r;
}

// The documented span of a Y range: [floor(lo), ceil(hi)); no height -> the cell behind the face.
std::pair<int, int> spanOf(double lo, double hi, bool facing_down) {
    int l = int(std::floor(lo));
    int h = int(std::ceil(hi));
    if (h <= l) {
        if (facing_down)
            h = l + 1;
        else
            l = h - 1;
    }
    return {l, h};
}

struct RefCheck {
    size_t mismatches = 0;
    size_t ambiguous = 0;
    size_t touched = 0;
    std::string first;
};

// Compares the grid's span geometry (not the flags) with the reference. Exact mode: spans of all
// triangles merged as documented (overlapping or touching intervals join). Tolerant mode (one
// triangle with arbitrary coordinates): Y values within 1e-9 of a cell boundary may round either
// way.
RefCheck checkAgainstReference(const geometry::Geometry& g, const voxel::VoxelGrid& grid,
                               bool tolerant) {
    RefCheck out;
    std::vector<RefTriangle> tris;
    for (size_t t = 0; t < g.triangleCount(); ++t) tris.push_back(refTriangle(g, t, grid));
    if (tolerant) REQUIRE(tris.size() == 1);
    for (uint32_t z = 0; z < grid.size_z; ++z) {
        for (uint32_t x = 0; x < grid.size_x; ++x) {
            const auto column = grid.column(x, z);
            std::vector<std::pair<int, int>> expected;
            std::vector<std::pair<int, int>> alternatives;
            bool ambiguous = false;
            for (const RefTriangle& t : tris) {
                const RefColumn c = refColumn(t, int(x), int(z), grid);
                ambiguous |= c.ambiguous;
                if (!c.touched) continue;
                expected.push_back(spanOf(c.y_lo, c.y_hi, t.normal[1] < 0));
                if (tolerant)
                    for (double dl : {-1e-9, 0.0, 1e-9})
                        for (double dh : {-1e-9, 0.0, 1e-9})
                            alternatives.push_back(
                                spanOf(c.y_lo + dl, c.y_hi + dh, t.normal[1] < 0));
            }
            if (ambiguous) {
                ++out.ambiguous;
                continue;
            }
            if (!expected.empty()) ++out.touched;
            std::sort(expected.begin(), expected.end());
            std::vector<std::pair<int, int>> merged;
            for (const auto& s : expected) {
                if (!merged.empty() && s.first <= merged.back().second)
                    merged.back().second = std::max(merged.back().second, s.second);
                else
                    merged.push_back(s);
            }
            bool ok = merged.size() == column.size();
            for (size_t i = 0; ok && i < merged.size(); ++i) {
                const std::pair<int, int> actual{column[i].y_min, column[i].y_max};
                ok = actual == merged[i] ||
                     (tolerant && std::find(alternatives.begin(), alternatives.end(), actual) !=
                                      alternatives.end());
            }
            if (!ok) {
                if (out.mismatches == 0) {
                    out.first =
                        "column (" + std::to_string(x) + ", " + std::to_string(z) + "): expected";
                    for (const auto& s : merged)
                        out.first +=
                            " [" + std::to_string(s.first) + "," + std::to_string(s.second) + ")";
                    out.first += ", got";
                    for (const voxel::Span& s : column)
                        out.first +=
                            " [" + std::to_string(s.y_min) + "," + std::to_string(s.y_max) + ")";
                }
                ++out.mismatches;
            }
        }
    }
    return out;
}

// ---- Grid queries ------------------------------------------------------------------------------

struct Cell {
    uint32_t x, z;
};
Cell cellAt(const voxel::VoxelGrid& grid, double wx, double wz) {
    const double x = std::floor((wx - grid.origin[0]) / grid.cell_size);
    const double z = std::floor((wz - grid.origin[2]) / grid.cell_size);
    REQUIRE(x >= 0);
    REQUIRE(z >= 0);
    REQUIRE(x < grid.size_x);
    REQUIRE(z < grid.size_z);
    return {uint32_t(x), uint32_t(z)};
}

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// Index (in grid.spans) of the span of the column at (wx, wz) whose top is nearest to wy, within
// `tolerance` metres, or kNone.
size_t spanAt(const voxel::VoxelGrid& grid, double wx, double wz, double wy,
              double tolerance = 0.15) {
    const Cell c = cellAt(grid, wx, wz);
    const size_t column = size_t(c.z) * grid.size_x + c.x;
    size_t best = kNone;
    double best_d = tolerance;
    for (size_t i = grid.column_offsets[column]; i < grid.column_offsets[column + 1]; ++i) {
        const double d = std::abs(grid.topY(grid.spans[i]) - wy);
        if (d <= best_d) best = i, best_d = d;
    }
    return best;
}
bool walkableAt(const voxel::VoxelGrid& grid, double wx, double wz, double wy) {
    const size_t i = spanAt(grid, wx, wz, wy);
    return i != kNone && grid.spans[i].walkable;
}
size_t walkableSpansInColumn(const voxel::VoxelGrid& grid, double wx, double wz) {
    const Cell c = cellAt(grid, wx, wz);
    size_t n = 0;
    for (const voxel::Span& s : grid.column(c.x, c.z)) n += s.walkable;
    return n;
}

// Walkable spans reachable from `start` by 4-neighbour moves with |step| <= climb and a shared
// gap >= agent height (our own reading of the connection rule, independent of voxelize's code).
std::vector<uint8_t> flood(const voxel::VoxelGrid& grid, size_t start) {
    const voxel::AgentCells agent = voxel::agentCells(grid.agent, grid.cell_size, grid.cell_height);
    std::vector<Cell> column_of(grid.spans.size());
    for (uint32_t z = 0; z < grid.size_z; ++z)
        for (uint32_t x = 0; x < grid.size_x; ++x) {
            const size_t c = size_t(z) * grid.size_x + x;
            for (size_t i = grid.column_offsets[c]; i < grid.column_offsets[c + 1]; ++i)
                column_of[i] = {x, z};
        }
    auto ceiling = [&](size_t i) {
        const Cell c = column_of[i];
        const size_t end = grid.column_offsets[size_t(c.z) * grid.size_x + c.x + 1];
        return i + 1 < end ? int(grid.spans[i + 1].y_min) : 1 << 20;
    };
    std::vector<uint8_t> seen(grid.spans.size(), 0);
    std::deque<size_t> queue{start};
    seen[start] = 1;
    while (!queue.empty()) {
        const size_t i = queue.front();
        queue.pop_front();
        const Cell c = column_of[i];
        const int dx[4] = {-1, 1, 0, 0}, dz[4] = {0, 0, -1, 1};
        for (int d = 0; d < 4; ++d) {
            const int64_t nx = int64_t(c.x) + dx[d], nz = int64_t(c.z) + dz[d];
            if (nx < 0 || nz < 0 || nx >= grid.size_x || nz >= grid.size_z) continue;
            const size_t col = size_t(nz) * grid.size_x + size_t(nx);
            for (size_t k = grid.column_offsets[col]; k < grid.column_offsets[col + 1]; ++k) {
                if (seen[k] || !grid.spans[k].walkable) continue;
                const int step = int(grid.spans[k].y_max) - int(grid.spans[i].y_max);
                const int gap = std::min(ceiling(i), ceiling(k)) -
                                std::max(int(grid.spans[i].y_max), int(grid.spans[k].y_max));
                if (std::abs(step) > agent.climb || gap < agent.height) continue;
                seen[k] = 1;
                queue.push_back(k);
            }
        }
    }
    return seen;
}

double columnCenterX(const voxel::VoxelGrid& g, uint32_t x) {
    return g.origin[0] + (x + 0.5) * g.cell_size;
}
double columnCenterZ(const voxel::VoxelGrid& g, uint32_t z) {
    return g.origin[2] + (z + 0.5) * g.cell_size;
}

class RecordingContext : public Context {
public:
    void progress(std::string_view stage, uint64_t done, uint64_t total) override {
        CHECK(stage == "voxelize");
        CHECK(done <= total);
        if (!calls.empty()) CHECK(done >= calls.back().first);
        calls.push_back({done, total});
        if (cancel_at_first) requestCancel();
    }
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    bool cancel_at_first = false;
};

}  // namespace

TEST_SUITE("voxel") {
    TEST_CASE("rasterization matches an exact reference for random triangles of every shape") {
        std::mt19937 rng(20240611u);
        auto uniform = [&](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        auto point = [&](V3 base, double size, double height) {
            return V3{base[0] + uniform(0, size), base[1] + uniform(0, height),
                      base[2] + uniform(0, size)};
        };
        const char* kinds[] = {
            "generic", "sliver", "needle", "vertical diagonal wall", "vertical axis wall",
            "steep",   "tiny",   "huge"};
        for (int kind = 0; kind < 8; ++kind) {
            const int count = kind == 7 ? 6 : 40;
            size_t touched = 0;
            for (int i = 0; i < count; ++i) {
                const V3 base{uniform(-60, 60), uniform(-5, 5), uniform(-60, 60)};
                V3 a = point(base, 3, 1), b = point(base, 3, 1), c = point(base, 3, 1);
                switch (kind) {
                    case 1: {  // sliver: c next to the middle of a-b
                        const double side = uniform(-1, 1) > 0 ? 1e-3 : -2e-2;
                        c = {(a[0] + b[0]) / 2 + side * (b[2] - a[2]), (a[1] + b[1]) / 2,
                             (a[2] + b[2]) / 2 - side * (b[0] - a[0])};
                        break;
                    }
                    case 2:  // needle: a and b almost coincide
                        b = {a[0] + uniform(-2e-3, 2e-3), a[1] + uniform(0, 0.5),
                             a[2] + uniform(-2e-3, 2e-3)};
                        break;
                    case 3:  // vertical face, footprint a diagonal segment
                        c = {a[0], a[1] + uniform(0.5, 3), a[2]};
                        break;
                    case 4:  // vertical face along x or z
                        if (i % 2) {
                            b[0] = a[0];
                            c = {a[0], b[1] + 2, uniform(base[2], base[2] + 3)};
                        } else {
                            b[2] = a[2];
                            c = {uniform(base[0], base[0] + 3), b[1] + 2, a[2]};
                        }
                        break;
                    case 5:  // steep
                        a[1] += 4;
                        break;
                    case 6:  // tiny
                        b = point(a, 0.15, 0.1);
                        c = point(a, 0.15, 0.1);
                        break;
                    case 7:  // huge
                        a = point(base, 60, 5);
                        b = point(base, 60, 5);
                        c = point(base, 60, 5);
                        break;
                    default: break;
                }
                Builder builder;
                builder.tri(a, b, c);
                const voxel::VoxelGrid grid = voxelizeOk(builder.g, makeParams());
                const RefCheck r = checkAgainstReference(builder.g, grid, true);
                INFO(std::string(kinds[kind]) << " #" << i << ": " << r.first);
                CHECK(r.mismatches == 0);
                CHECK(r.ambiguous <= 2);
                CHECK(r.touched >= 1);  // every triangle leaves a trace, however small
                touched += r.touched;
            }
            MESSAGE(std::string(kinds[kind])
                    << ": " << count << " triangles, " << touched << " columns checked");
        }
    }

    TEST_CASE("faces exactly on cell borders follow the documented border rule") {
        // Cell size 0.5 and height 0.25 are exact in binary, so every coordinate below lies exactly
        // on a border. Two small marker floors pin the grid to x 0 .. 3.5, z 0 .. 3.0 (7 x 6
        // columns, markers in columns (0, 5) and (6, 0)) and its bottom to Y = 0.5 (origin Y 0.25).
        auto withMarker = [](Builder& b) {
            b.rect(0.0, 2.5, 0.5, 3.0, 0.5);
            b.rect(3.0, 0.0, 3.5, 0.5, 0.5);
        };
        auto isMarker = [](uint32_t x, uint32_t z) {
            return (x == 0 && z == 5) || (x == 6 && z == 0);
        };
        const auto params = makeParams(0.5f, 0.25f, 0.0f);

        SUBCASE("a floor ending on borders covers exactly its columns; its top is the surface") {
            Builder b;
            withMarker(b);
            b.rect(0.0, 0.0, 2.0, 1.5, 1.0);
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            CHECK(grid.size_x == 7);
            CHECK(grid.size_z == 6);
            CHECK(grid.origin[1] == 0.25f);  // bounds min 0.5, one cell lower
            for (uint32_t z = 0; z < 6; ++z)
                for (uint32_t x = 0; x < 7; ++x) {
                    const auto col = grid.column(x, z);
                    if (x < 4 && z < 3) {
                        REQUIRE(col.size() == 1);
                        CHECK(grid.topY(col[0]) == 1.0f);
                        CHECK(col[0].y_max - col[0].y_min == 1);
                    } else if (isMarker(x, z)) {
                        CHECK(col.size() == 1);
                    } else {
                        CHECK(col.empty());
                    }
                }
            const RefCheck r = checkAgainstReference(b.g, grid, false);
            INFO(r.first);
            CHECK(r.mismatches == 0);
            CHECK(r.ambiguous == 0);
        }
        SUBCASE("a single-sided wall on a border line goes to the column behind it") {
            for (int facing = 0; facing < 2; ++facing) {
                Builder b;
                withMarker(b);
                // Wall in the plane x = 1.0 (between columns 1 and 2), z 0.25 .. 1.75.
                if (facing == 0)  // normal -x: behind it is +x -> column 2
                    b.quad({1, 0.5, 0.25}, {1, 0.5, 1.75}, {1, 2, 1.75}, {1, 2, 0.25});
                else  // normal +x: behind it is -x -> column 1
                    b.quad({1, 0.5, 0.25}, {1, 2, 0.25}, {1, 2, 1.75}, {1, 0.5, 1.75});
                const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
                const uint32_t wall_x = facing == 0 ? 2 : 1;
                for (uint32_t z = 0; z < 6; ++z)
                    for (uint32_t x = 0; x < 7; ++x) {
                        const bool expect = x == wall_x && z <= 3;  // rows 0..3 (z 0.25 .. 1.75)
                        if (isMarker(x, z)) continue;
                        INFO("facing " << facing << " column " << x << ", " << z);
                        CHECK(grid.column(x, z).size() == (expect ? 1u : 0u));
                    }
                const RefCheck r = checkAgainstReference(b.g, grid, false);
                INFO(r.first);
                CHECK(r.mismatches == 0);
            }
        }
        SUBCASE("a box aligned to the grid fills exactly its own cells") {
            Builder b;
            withMarker(b);
            b.box({1.0, 0.5, 0.5}, {1.5, 1.5, 1.0});
            b.box({2.0, 2.0, 2.0}, {3.0, 2.5, 2.5});  // a slab: its bottom face is on a boundary
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            size_t columns_with_spans = 0;
            for (uint32_t z = 0; z < grid.size_z; ++z)
                for (uint32_t x = 0; x < grid.size_x; ++x)
                    columns_with_spans += !grid.column(x, z).empty();
            CHECK(columns_with_spans == 1 + 2 + 2);
            const auto box = grid.column(2, 1);
            REQUIRE(box.size() == 1);
            CHECK(box[0].y_min == 1);  // y 0.5 (origin 0.25)
            CHECK(box[0].y_max == 5);  // y 1.5
            for (uint32_t x : {4u, 5u}) {
                const auto slab = grid.column(x, 4);
                REQUIRE(slab.size() == 1);
                CHECK(slab[0].y_min == 7);  // y 2.0: the bottom face takes the cell above it
                CHECK(slab[0].y_max == 9);  // y 2.5
            }
            const RefCheck r = checkAgainstReference(b.g, grid, false);
            INFO(r.first);
            CHECK(r.mismatches == 0);
        }
        SUBCASE("a vertical wall through grid corners touches only the columns it crosses") {
            Builder b;
            withMarker(b);
            b.quad({0, 0.5, 0}, {1.5, 0.5, 1.5}, {1.5, 1.5, 1.5}, {0, 1.5, 0});
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            for (uint32_t z = 0; z < 6; ++z)
                for (uint32_t x = 0; x < 7; ++x) {
                    if (isMarker(x, z)) continue;
                    INFO("column " << x << ", " << z);
                    CHECK(grid.column(x, z).size() == (x == z && x < 3 ? 1u : 0u));
                }
            const RefCheck r = checkAgainstReference(b.g, grid, false);
            INFO(r.first);
            CHECK(r.mismatches == 0);
        }
        SUBCASE("edges through grid corners at many slopes add no sliver columns") {
            // Cell size 0.3 is not exact in binary: clipping these edges where they cross a grid
            // corner yields coordinates a few ulps off the border, which must not count as overlap.
            size_t checked = 0;
            for (int p = 1; p <= 7; ++p)
                for (int q = 1; q <= 7; ++q) {
                    if (std::gcd(p, q) != 1) continue;
                    const int k = 12 / std::max(p, q) + 1;
                    Builder b;
                    const double x1 = 0.3 * q * k, z1 = 0.3 * p * k;
                    b.tri({0, 0.4, 0}, {0, 0.4, z1}, {x1, 0.4, z1});  // hypotenuse through corners
                    b.tri({0, 1.0, 0}, {x1, 1.0, z1}, {x1, 1.0, 0});  // the other half, higher
                    const voxel::VoxelGrid grid = voxelizeOk(b.g, makeParams(0.3f, 0.2f, 0.0f));
                    const RefCheck r = checkAgainstReference(b.g, grid, false);
                    INFO("slope " << p << "/" << q << ": " << r.first);
                    CHECK(r.mismatches == 0);
                    CHECK(r.ambiguous == 0);
                    checked += r.touched;
                }
            CHECK(checked > 1000);
        }
        SUBCASE(
            "triangles with an edge along a border, slivers and tiny ones against the reference") {
            Builder b;
            withMarker(b);
            b.tri({0, 1, 0}, {0, 1, 2}, {1.5, 1.75, 0});               // legs on borders, sloped
            b.tri({0.5, 2, 0.5}, {3.0, 2, 0.5}, {3.0, 2.01, 0.5001});  // sliver along a border line
            b.tri({0.6, 1, 2.1}, {0.7, 1.05, 2.1}, {0.6, 1.1, 2.2});   // tiny, inside one column
            b.tri({1.0, 0.5, 2.0}, {2.5, 2.5, 2.0}, {1.0, 2.5, 3.0});  // steep, vertices on borders
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            const RefCheck r = checkAgainstReference(b.g, grid, false);
            INFO(r.first);
            CHECK(r.mismatches == 0);
            CHECK(r.ambiguous == 0);
            CHECK(r.touched > 10);
            CHECK(grid.column(1, 4).size() == 1);  // the tiny triangle
        }
    }

    TEST_CASE("thin and vertical walls leave no walkable connection through them") {
        struct WallCase {
            const char* name;
            std::function<void(Builder&)> add;
            std::function<double(double, double)> side;  // > 0 on one side, < 0 on the other
        };
        const std::vector<WallCase> cases = {
            {"single quad on the line x = 4.5 (a border)",
             [](Builder& b) {
                 b.quad({4.5, 0, 0}, {4.5, 0, 9}, {4.5, 2, 9}, {4.5, 2, 0});
             },
             [](double x, double) { return x - 4.5; }},
            {"single quad at x = 4.6",
             [](Builder& b) {
                 b.quad({4.6, 0, 0}, {4.6, 2, 0}, {4.6, 2, 9}, {4.6, 0, 9});
             },
             [](double x, double) { return x - 4.6; }},
            {"single quad along a 45 degree diagonal through grid corners",
             [](Builder& b) {
                 b.quad({0, 0, 0}, {9, 0, 9}, {9, 2, 9}, {0, 2, 0});
             },
             [](double x, double z) { return x - z; }},
            {"single quad at a shallow angle",
             [](Builder& b) {
                 b.quad({3.1, 0, 0}, {5.93, 0, 9}, {5.93, 2, 9}, {3.1, 2, 0});
             },
             [](double x, double z) { return ((x - 3.1) * 9 - z * 2.83) / 9.434; }},
            {"5 cm box wall",
             [](Builder& b) {
                 b.box({4.47, -0.2, 0}, {4.52, 2, 9});
             },
             [](double x, double) { return x - 4.495; }},
        };
        for (const WallCase& wall : cases) {
            Builder b;
            b.rect(0, 0, 9, 9, 0);
            wall.add(b);
            const voxel::VoxelGrid grid = voxelizeOk(b.g, makeParams(0.3f, 0.2f, 0.0f));
            // Start on the negative side, well away from the wall.
            size_t start = kNone;
            std::vector<size_t> positive_side;
            for (uint32_t z = 1; z + 1 < grid.size_z; ++z)
                for (uint32_t x = 1; x + 1 < grid.size_x; ++x) {
                    const double s = wall.side(columnCenterX(grid, x), columnCenterZ(grid, z));
                    const size_t c = size_t(z) * grid.size_x + x;
                    for (size_t i = grid.column_offsets[c]; i < grid.column_offsets[c + 1]; ++i) {
                        if (!grid.spans[i].walkable || grid.topY(grid.spans[i]) > 0.5f) continue;
                        if (s > 1.0 && start == kNone) start = i;
                        if (s < -1.0) positive_side.push_back(i);
                    }
                }
            INFO(wall.name);
            REQUIRE(start != kNone);
            REQUIRE(positive_side.size() > 100);  // both sides are walkable floor
            const std::vector<uint8_t> reached = flood(grid, start);
            size_t leaked = 0;
            for (size_t i : positive_side) leaked += reached[i];
            CHECK(leaked == 0);
            size_t same_side = 0;
            for (size_t i = 0; i < reached.size(); ++i) same_side += reached[i];
            CHECK(same_side > 100);
        }
    }

    TEST_CASE("a gap between grid-aligned walls is neither narrowed nor closed") {
        // Walls x 1.5..1.8 and 2.7..3.0 (columns 5 and 9 at 0.3 m; 1.8 / 0.3 is 5.999... in floats
        // and snaps to 6), floor between: columns 6, 7 and 8 stay walkable floor.
        Builder b;
        b.box({0, -0.2, 0}, {4.5, 0, 3});
        b.box({1.5, 0, 0}, {1.8, 2.6, 3});
        b.box({2.7, 0, 0}, {3.0, 2.6, 3});
        const voxel::VoxelGrid grid = voxelizeOk(b.g, makeParams(0.3f, 0.2f, 0.0f));
        for (uint32_t z = 1; z + 1 < grid.size_z; ++z) {
            INFO("row " << z);
            for (uint32_t x : {5u, 9u}) {
                const auto col = grid.column(x, z);
                REQUIRE(col.size() == 1);
                CHECK_FALSE(col[0].walkable);
                CHECK(grid.topY(col[0]) == doctest::Approx(2.6).epsilon(1e-3));
            }
            for (uint32_t x : {4u, 6u, 7u, 8u, 10u}) {
                const auto col = grid.column(x, z);
                REQUIRE(col.size() == 1);
                CHECK(col[0].walkable);
                CHECK(grid.topY(col[0]) == doctest::Approx(0.0).epsilon(1e-3));
            }
        }
    }

    TEST_CASE("slopes: gentle ramps are walkable, steep ones and ceilings are not") {
        for (double degrees : {20.0, 40.0, 50.0, 70.0}) {
            Builder b;
            const double rise = 4.5 * std::tan(degrees * 3.14159265358979 / 180.0);
            b.quad({0, 0, 0}, {0, rise, 4.5}, {6, rise, 4.5},
                   {6, 0, 0});  // rises along +z, faces up
            const voxel::VoxelGrid grid = voxelizeOk(b.g, makeParams(0.3f, 0.2f, 0.0f));
            size_t interior = 0, walkable = 0;
            for (uint32_t z = 2; z + 2 < grid.size_z; ++z)
                for (uint32_t x = 2; x + 2 < grid.size_x; ++x) {
                    ++interior;
                    for (const voxel::Span& s : grid.column(x, z)) walkable += s.walkable;
                }
            INFO(degrees << " degrees: " << walkable << " of " << interior);
            REQUIRE(interior > 100);
            if (degrees < 45)
                CHECK(walkable == interior);
            else
                CHECK(grid.walkableCount() == 0);
        }
        // The same slope at 40 degrees with max slope 35: not walkable.
        Builder b;
        b.quad({0, 0, 0}, {0, 3 * std::tan(40 * 3.14159265358979 / 180), 3},
               {6, 3 * std::tan(40 * 3.14159265358979 / 180), 3}, {6, 0, 0});
        auto params = makeParams(0.3f, 0.2f, 0.0f);
        params.agent.max_slope_deg = 35;
        CHECK(voxelizeOk(b.g, params).walkableCount() == 0);
        // A ceiling (facing down) is never walkable; the same plane facing up is.
        Builder up, down;
        up.rect(0, 0, 3, 3, 1);
        down.rect(0, 0, 3, 3, 1, geometry::kGroundArea, true);
        CHECK(voxelizeOk(up.g, makeParams(0.3f, 0.2f, 0.0f)).walkableCount() > 50);
        CHECK(voxelizeOk(down.g, makeParams(0.3f, 0.2f, 0.0f)).walkableCount() == 0);
    }

    TEST_CASE("tiny and huge triangles") {
        Builder tiny;
        tiny.tri({0.01, 0, 0.01}, {0.01, 0, 0.02}, {0.03, 0, 0.01});  // facing up
        const voxel::VoxelGrid t = voxelizeOk(tiny.g, makeParams());
        CHECK(t.size_x == 1);
        CHECK(t.size_z == 1);
        REQUIRE(t.spans.size() == 1);
        CHECK(t.topY(t.spans[0]) == doctest::Approx(0.0).epsilon(1e-4));

        // 300 m right triangle at 0.3 m: 1000 x 1000 columns, half of them covered.
        Builder huge;
        huge.tri({0, 0, 0}, {0, 0, 300}, {300, 0, 0});
        const voxel::VoxelGrid h = voxelizeOk(huge.g, makeParams());
        CHECK(h.size_x == 1000);
        CHECK(h.size_z == 1000);
        size_t covered = 0;
        for (uint32_t z = 0; z < h.size_z; ++z)
            for (uint32_t x = 0; x < h.size_x; ++x) {
                const auto col = h.column(x, z);
                covered += !col.empty();
                // Exactly the columns with positive overlap: x + z < 1000 - 1 strictly inside, plus
                // the diagonal ones the hypotenuse crosses (x + z == 999); x + z >= 1000 only touch
                // it at a corner or not at all.
                if (x + z <= 999) CHECK(col.size() == 1);
                if (x + z >= 1000) CHECK(col.empty());
            }
        CHECK(covered == 1000 * 1001 / 2);
    }

    TEST_CASE(
        "multi-floor: a slab over a floor gives two walkable layers when the clearance allows") {
        for (double clearance : {2.8, 1.5}) {
            Builder b;
            b.box({0, -0.2, 0}, {12, 0, 12});
            b.box({3, clearance, 3}, {9, clearance + 0.2, 9});
            const voxel::VoxelGrid grid = voxelizeOk(b.g, makeParams());
            INFO("clearance " << clearance);
            const auto col = grid.column(cellAt(grid, 6, 6).x, cellAt(grid, 6, 6).z);
            REQUIRE(col.size() == 2);
            CHECK(grid.topY(col[0]) == doctest::Approx(0.0).epsilon(1e-4));
            // Conservative: the slab's top rounds up, its bottom down (exact when on cell
            // boundaries, as 2.8 m is with the origin at Y = -0.4; 1.5 m is half a cell off).
            const double slab_top = grid.topY(col[1]);
            const double gap = (col[1].y_min - col[0].y_max) * double(grid.cell_height);
            CHECK(slab_top >= clearance + 0.2 - 1e-4);
            CHECK(slab_top < clearance + 0.2 + 0.2 - 1e-4);
            CHECK(gap <= clearance + 1e-4);
            CHECK(gap > clearance - 0.2 + 1e-4);
            if (clearance == 2.8) CHECK(gap == doctest::Approx(2.8).epsilon(1e-4));
            CHECK(col[1].walkable);
            CHECK(col[0].walkable == (clearance >= 2.0));
            const voxel::VoxelStats stats = voxel::computeStats(grid);
            if (clearance >= 2.0) {
                CHECK(stats.multi_layer_columns >
                      150);  // the slab's 20 x 20 columns, eroded on top
                // The floor under the slab is one walkable region with the floor around it.
                const std::vector<uint8_t> reached = flood(grid, spanAt(grid, 1.5, 1.5, 0.0));
                CHECK(reached[spanAt(grid, 6, 6, 0.0)]);
            } else {
                CHECK(stats.multi_layer_columns == 0);
            }
        }
    }

    TEST_CASE("erosion keeps the agent radius away from walls") {
        Builder b;
        b.box({0, -0.2, 0}, {9, 0, 9});
        b.box({4.5, 0, 0}, {4.8, 2.5, 9});  // wall: column 15 exactly
        const voxel::VoxelGrid plain = voxelizeOk(b.g, makeParams(0.3f, 0.2f, 0.0f));
        const voxel::VoxelGrid eroded = voxelizeOk(b.g, makeParams(0.3f, 0.2f, 0.6f));
        const uint32_t z = 15;
        auto walkableTop = [](const voxel::VoxelGrid& g, uint32_t x, uint32_t row) {
            const auto col = g.column(x, row);
            return col.size() == 1 && col[0].walkable;
        };
        // Radius 0: everything but the wall and the grid's edge columns (ledges).
        for (uint32_t x = 1; x < 29; ++x) CHECK(walkableTop(plain, x, z) == (x != 15));
        CHECK_FALSE(walkableTop(plain, 0, z));
        // Radius 0.6 m = 2 cells: two more columns lost on each side of the wall and at the edges.
        for (uint32_t x = 0; x < 30; ++x) {
            const bool expect = (x >= 3 && x <= 12) || (x >= 18 && x <= 26);
            INFO("column " << x);
            CHECK(walkableTop(eroded, x, z) == expect);
        }
        // Every walkable span of the eroded grid is at least 2 columns from any unwalkable column.
        for (uint32_t row = 0; row < eroded.size_z; ++row)
            for (uint32_t x = 0; x < eroded.size_x; ++x) {
                if (!walkableTop(eroded, x, row)) continue;
                for (int dz = -2; dz <= 2; ++dz)
                    for (int dx = -2; dx <= 2; ++dx) {
                        if (std::abs(dx) + std::abs(dz) > 2) continue;
                        const int64_t nx = int64_t(x) + dx, nz = int64_t(row) + dz;
                        REQUIRE(nx >= 0);
                        REQUIRE(nz >= 0);
                        REQUIRE(nx < eroded.size_x);
                        REQUIRE(nz < eroded.size_z);
                        CHECK(walkableTop(plain, uint32_t(nx), uint32_t(nz)));
                    }
            }
        CHECK(eroded.walkableCount() < plain.walkableCount());
        CHECK(eroded.agent.radius == 0.6f);
    }

    TEST_CASE("steps, curbs and obstacles: the merge rule and the low-obstacle filter") {
        const auto params = makeParams(0.3f, 0.2f, 0.0f);
        SUBCASE("a 0.4 m step is walkable on top, a 0.4 m obstacle-tagged box is not") {
            for (uint8_t area : {geometry::kGroundArea, geometry::kObstacleArea}) {
                Builder b;
                b.box({0, -0.2, 0}, {6, 0, 6});
                b.box({2.1, 0, 2.1}, {3.9, 0.4, 3.9}, area);
                const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
                const size_t top = spanAt(grid, 3, 3, 0.4);
                REQUIRE(top != kNone);
                CHECK(grid.spans[top].walkable == (area != geometry::kObstacleArea));
                CHECK(grid.spans[top].area == area);
                CHECK(walkableAt(grid, 1, 1, 0.0));
                // The step's edge is still walkable (a 0.4 m drop is within the 0.9 m climb).
                CHECK(walkableAt(grid, 2.2, 3, 0.4) == (area != geometry::kObstacleArea));
            }
        }
        SUBCASE("a 1.5 m platform is walkable inside, not on its edge (ledge)") {
            Builder b;
            b.box({0, -0.2, 0}, {6, 0, 6});
            b.box({2.1, 0, 2.1}, {3.9, 1.5, 3.9});
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            CHECK(walkableAt(grid, 3, 3, 1.5));
            CHECK_FALSE(walkableAt(grid, 2.2, 3, 1.5));  // a drop of 1.5 m next to it
            CHECK_FALSE(walkableAt(grid, 3.8, 3, 1.5));
            CHECK_FALSE(walkableAt(grid, 3, 2.2, 1.5));
            CHECK(walkableAt(grid, 1.5, 3, 0.0));
        }
        SUBCASE("a thin water sheet on the ground: the higher-priority area wins within climb") {
            Builder b;
            b.box({0, -0.2, 0}, {6, 0, 6});
            b.g.areas.push_back({"water", 3.0f, true});
            b.rect(1.5, 1.5, 4.5, 4.5, 0.01, 2);
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            const size_t s = spanAt(grid, 3, 3, 0.2);
            REQUIRE(s != kNone);
            CHECK(grid.spans[s].walkable);
            CHECK(grid.areas[grid.spans[s].area].name == "water");
            const size_t ground = spanAt(grid, 1, 1, 0.0);
            REQUIRE(ground != kNone);
            CHECK(grid.spans[ground].area == geometry::kGroundArea);
        }
        SUBCASE("a floating knee-high rail becomes walkable on top, a head-high one does not") {
            for (double top : {0.6, 1.4}) {
                Builder b;
                b.box({0, -0.2, 0}, {6, 0, 6});
                // A vertical (steep, so not walkable by slope) sheet starting 0.2 m above the
                // floor.
                b.quad({1, 0.2, 3.05}, {5, 0.2, 3.05}, {5, top, 3.05}, {1, top, 3.05});
                const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
                const size_t rail = spanAt(grid, 3, 3.05, top);
                REQUIRE(rail != kNone);
                INFO("rail top " << top);
                CHECK(grid.spans[rail].walkable == (top < 0.9));
                // The floor under the rail has no clearance.
                CHECK_FALSE(walkableAt(grid, 3, 3.05, 0.0));
            }
        }
        SUBCASE("a walkable floor under a 1.0 m ceiling is not walkable (low height)") {
            Builder b;
            b.box({0, -0.2, 0}, {6, 0, 6});
            b.box({2, 1.0, 2}, {4, 1.2, 4});
            const voxel::VoxelGrid grid = voxelizeOk(b.g, params);
            CHECK_FALSE(walkableAt(grid, 3, 3, 0.0));
            CHECK(walkableAt(grid, 3, 3, 1.2));
            CHECK(walkableAt(grid, 1, 1, 0.0));
        }
    }

    TEST_CASE("voxelize is deterministic for any thread count") {
        Context context;
        auto level =
            importer::importScene(test::sampleLevels() / "indoor_two_floors.glb", {}, context);
        REQUIRE(level.ok());
        // Plus some random soup, so that bands hold many overlapping triangles.
        geometry::Geometry g = *level;
        std::mt19937 rng(7u);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        for (int i = 0; i < 300; ++i) {
            const uint32_t base = uint32_t(g.vertexCount());
            const float cx = u(rng) * 29, cy = u(rng) * 3.5f, cz = u(rng) * 19;
            for (int k = 0; k < 3; ++k) {
                g.vertices.push_back(cx + u(rng));
                g.vertices.push_back(cy + u(rng) * 0.5f);
                g.vertices.push_back(cz + u(rng));
            }
            g.triangles.insert(g.triangles.end(), {base, base + 1, base + 2});
            g.triangle_areas.push_back(uint8_t(i % 3 == 0 ? 0 : 1));
            g.triangle_objects.push_back(0);
        }
        test::TempDir dir;
        std::vector<uint8_t> first_bytes;
        voxel::VoxelGrid first;
        for (int threads : {1, 2, 3, 8}) {
            auto params = makeParams();
            params.threads = threads;
            const voxel::VoxelGrid grid = voxelizeOk(g, params);
            const std::string name = "t" + std::to_string(threads) + ".vox";
            REQUIRE(voxel::saveVoxels(dir / name, grid).ok());
            const std::vector<uint8_t> bytes = test::readBytes(dir / name);
            if (threads == 1) {
                first = grid;
                first_bytes = bytes;
                CHECK(grid.walkableCount() > 1000);
                continue;
            }
            INFO("threads " << threads);
            CHECK(grid == first);
            CHECK(bytes == first_bytes);
        }
        // And the saved grid loads back equal.
        auto loaded = voxel::loadVoxels(dir / "t1.vox");
        REQUIRE(loaded.ok());
        CHECK(*loaded == first);
    }

    TEST_CASE("the sample indoor level: two floors, ramp, stairs, crates, water") {
        Context context;
        auto level =
            importer::importScene(test::sampleLevels() / "indoor_two_floors.glb", {}, context);
        REQUIRE(level.ok());
        const auto start = std::chrono::steady_clock::now();
        const voxel::VoxelGrid grid = voxelizeOk(*level, voxel::VoxelizeParams{});
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const voxel::VoxelStats stats = voxel::computeStats(grid);
        MESSAGE("indoor_two_floors: " << grid.size_x << " x " << grid.size_z << " x " << grid.size_y
                                      << ", " << stats.spans << " spans, " << stats.walkable_spans
                                      << " walkable, " << stats.multi_layer_columns
                                      << " multi-layer columns, " << ms << " ms");
        CHECK(grid.source == formats::VoxelSource::mesh);
        CHECK(grid.areas == level->areas);
        CHECK(grid.origin[0] == level->bounds().min[0]);
        CHECK(grid.origin[1] == doctest::Approx(level->bounds().min[1] - 0.2f));
        CHECK(grid.cell_size == 0.3f);

        // Mezzanine overhang: columns with walkable floor at Y = 0 and at Y = 3.0.
        size_t two_floors = 0;
        for (uint32_t z = 0; z < grid.size_z; ++z)
            for (uint32_t x = 0; x < grid.size_x; ++x) {
                const double wx = columnCenterX(grid, x), wz = columnCenterZ(grid, z);
                bool ground = false, upper = false;
                for (const voxel::Span& s : grid.column(x, z)) {
                    if (!s.walkable) continue;
                    ground |= std::abs(grid.topY(s)) < 0.05;
                    upper |= std::abs(grid.topY(s) - 3.0) < 0.05;
                }
                if (ground && upper) {
                    ++two_floors;
                    CHECK(wx > 0.3);
                    CHECK(wx < 15.8);
                    CHECK(wz > 8.05);
                    CHECK(wz < 19.8);
                }
            }
        MESSAGE("columns walkable at Y = 0 and Y = 3: " << two_floors);
        CHECK(two_floors > 1000);
        CHECK(walkableAt(grid, 8, 15, 0.0));
        CHECK(walkableAt(grid, 8, 15, 3.0));

        // Ramp (x 4..6, z 1.6..8, 25 degrees up to Y = 3): walkable at intermediate heights that
        // follow the slope.
        size_t ramp = 0;
        for (uint32_t z = 0; z < grid.size_z; ++z)
            for (uint32_t x = 0; x < grid.size_x; ++x) {
                const double wx = columnCenterX(grid, x), wz = columnCenterZ(grid, z);
                if (wx < 4 || wx > 6 || wz < 1.6 || wz > 8) continue;
                for (const voxel::Span& s : grid.column(x, z)) {
                    const double y = grid.topY(s);
                    if (!s.walkable || y < 0.3 || y > 2.7) continue;
                    ++ramp;
                    CHECK(std::abs(y - (wz - 1.6) * 3.0 / 6.4) < 0.35);
                }
            }
        MESSAGE("walkable ramp spans: " << ramp);
        CHECK(ramp >= 20);

        // Crates (1 m, obstacle-tagged): solid, top not walkable.
        for (const auto& [cx, cz] : {std::pair{14.0, 3.0}, {13.0, 14.0}, {2.5, 15.0}}) {
            INFO("crate at " << cx << ", " << cz);
            const size_t s = spanAt(grid, cx, cz, 1.0);
            REQUIRE(s != kNone);
            CHECK_FALSE(grid.spans[s].walkable);
            CHECK(grid.spans[s].area == geometry::kObstacleArea);
            CHECK_FALSE(walkableAt(grid, cx, cz, 0.0));
        }
        // Water pool: walkable, area "water".
        const size_t water = spanAt(grid, 25.5, 4.25, 0.1, 0.2);
        REQUIRE(water != kNone);
        CHECK(grid.spans[water].walkable);
        CHECK(grid.areas[grid.spans[water].area].name == "water");
        // Interior wall tops (3 m) are not walkable; neither is anything in a wall's column.
        CHECK(walkableSpansInColumn(grid, 10.0, 2.0) == 0);
        CHECK(walkableSpansInColumn(grid, 20.0, 14.0) == 0);
        // Stairs platform at Y = 1.0 is reachable from the ground floor of room d; the upper floor
        // is reachable from room a through the ramp.
        const size_t platform = spanAt(grid, 28.0, 16.0, 1.0);
        REQUIRE(platform != kNone);
        CHECK(grid.spans[platform].walkable);
        const size_t room_d = spanAt(grid, 23.0, 12.0, 0.0);
        REQUIRE(room_d != kNone);
        CHECK(flood(grid, room_d)[platform]);
        const size_t room_a = spanAt(grid, 2.0, 3.0, 0.0);
        const size_t upper = spanAt(grid, 8.0, 15.0, 3.0);
        REQUIRE(room_a != kNone);
        REQUIRE(upper != kNone);
        CHECK(flood(grid, room_a)[upper]);
    }

    TEST_CASE("the sample terrain: slopes, cliff, rocks and pond") {
        Context context;
        auto level = importer::importScene(test::sampleLevels() / "terrain.obj", {}, context);
        REQUIRE(level.ok());
        const auto start = std::chrono::steady_clock::now();
        const voxel::VoxelGrid grid = voxelizeOk(*level, voxel::VoxelizeParams{});
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const voxel::VoxelStats stats = voxel::computeStats(grid);
        MESSAGE("terrain: " << grid.size_x << " x " << grid.size_z << " x " << grid.size_y << ", "
                            << stats.spans << " spans, " << stats.walkable_spans << " walkable, "
                            << ms << " ms");
        CHECK(stats.walkable_spans > 30000);
        CHECK(stats.walkable_spans < grid.columnCount() - 1000);  // slopes, rocks and edges are not
        // Pond: walkable water.
        CHECK(walkableSpansInColumn(grid, -12.0, 10.0) == 1);
        const Cell pond = cellAt(grid, -12.0, 10.0);
        CHECK(grid.areas[grid.column(pond.x, pond.z)[0].area].name == "water");
        // Rocks (obstacles) and the steep flank of the mound (> 45 degrees) are not walkable.
        CHECK(walkableSpansInColumn(grid, -6.0, -8.0) == 0);
        CHECK(walkableSpansInColumn(grid, 8.0, 2.0) == 0);
        CHECK(walkableSpansInColumn(grid, 14.0 + 2.2, -12.0) == 0);
        CHECK(walkableSpansInColumn(grid, 14.0, -12.0 - 2.2) == 0);
        // The cliff at x ~ 18 is steep where the terrain below it is low (z ~ 10 and z > 22); where
        // the hills reach 2.4 m (z 14 .. 20) it is a gentle, walkable rise.
        for (double z : {10.0, 12.0, 24.0, 26.0, 28.0}) {
            INFO("cliff at z " << z);
            for (double x : {17.5, 17.8, 18.1}) CHECK(walkableSpansInColumn(grid, x, z) == 0);
        }
        CHECK(walkableSpansInColumn(grid, 17.8, 18.0) == 1);
        // Plateau and hills around are walkable.
        CHECK(walkableSpansInColumn(grid, 25.0, 20.0) == 1);
        CHECK(walkableSpansInColumn(grid, 0.0, -20.0) == 1);
    }

    TEST_CASE("the shared Recast demo meshes voxelize fast with plausible walkable areas") {
        const std::filesystem::path shared = test::sharedData();
        if (shared.empty()) {
            MESSAGE("../shared/data is absent: skipping the shared meshes");
            return;
        }
        struct Expect {
            const char* name;
            size_t min_walkable;
        };
        for (const Expect& e :
             {Expect{"dungeon", 10000}, Expect{"nav_test", 30000}, Expect{"undulating", 60000}}) {
            const auto path = shared / "meshes" / (std::string(e.name) + ".obj");
            if (!std::filesystem::exists(path)) {
                MESSAGE(path.string() << " is absent: skipped");
                continue;
            }
            Context context;
            auto geometry = importer::importScene(path, {}, context);
            REQUIRE(geometry.ok());
            const auto start = std::chrono::steady_clock::now();
            const voxel::VoxelGrid grid = voxelizeOk(*geometry, voxel::VoxelizeParams{});
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
            const voxel::VoxelStats stats = voxel::computeStats(grid);
            MESSAGE(std::string(e.name)
                    << ": " << geometry->triangleCount() << " triangles -> " << grid.size_x << " x "
                    << grid.size_z << " x " << grid.size_y << ", " << stats.spans << " spans, "
                    << stats.walkable_spans << " walkable spans in " << stats.walkable_columns
                    << " columns, " << stats.multi_layer_columns << " multi-layer, " << ms
                    << " ms");
            INFO(std::string(e.name));
            CHECK(stats.walkable_spans > e.min_walkable);
            CHECK(stats.walkable_spans < stats.spans);
            if (std::string(e.name) == "nav_test") CHECK(stats.multi_layer_columns > 1000);
        }
    }

    TEST_CASE("voxelize parameters and errors") {
        SUBCASE("checkParams reports every bad field at once") {
            voxel::VoxelizeParams p;
            CHECK(voxel::checkParams(p).ok());
            p.cell_size = 0;
            p.cell_height = -1;
            p.agent.radius = std::numeric_limits<float>::quiet_NaN();
            p.agent.max_slope_deg = 95;
            p.threads = -2;
            p.column_block = 8;
            const Status s = voxel::checkParams(p);
            REQUIRE_FALSE(s.ok());
            CHECK(s.error().kind == ErrorKind::usage);
            for (const char* field : {"cell size = 0", "cell height = -1", "agent radius = nan",
                                      "max slope = 95", "threads = -2", "column block = 8"}) {
                INFO(field);
                CHECK(s.error().message.find(field) != std::string::npos);
            }
            CHECK(s.error().message.find("climb") == std::string::npos);
        }
        SUBCASE("agent sizes in cells follow Recast's rounding, tolerant to float noise") {
            const voxel::AgentCells a = voxel::agentCells(voxel::AgentParams{}, 0.3f, 0.2f);
            CHECK(a.height == 10);
            CHECK(a.climb == 4);   // 0.9 / 0.2 = 4.5, rounded down
            CHECK(a.radius == 2);  // 0.6 / 0.3 = 2.0000001 in floats
            const voxel::AgentCells b =
                voxel::agentCells(voxel::AgentParams{2.1f, 0.3f, 0.59f, 45}, 0.3f, 0.2f);
            CHECK(b.height == 11);
            CHECK(b.climb == 2);  // 0.59 / 0.2 = 2.95
            CHECK(b.radius == 1);
        }
        SUBCASE("grids that are too large or too tall ask for larger cells") {
            Builder wide;
            wide.rect(0, 0, 20000, 20000, 0);
            Context context;
            auto r = voxel::voxelize(wide.g, makeParams(), context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::usage);
            CHECK(r.error().message.find("larger cell size") != std::string::npos);
            Builder tall;
            tall.quad({0, 0, 0}, {1, 0, 0}, {1, 20000, 0}, {0, 20000, 0});
            r = voxel::voxelize(tall.g, makeParams(), context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::usage);
            CHECK(r.error().message.find("larger cell height") != std::string::npos);
            auto p = makeParams();
            p.cell_height = 0.5f;
            CHECK(voxel::voxelize(tall.g, p, context).ok());
        }
        SUBCASE("empty or inconsistent geometry is bad input") {
            Context context;
            geometry::Geometry empty;
            auto r = voxel::voxelize(empty, makeParams(), context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::bad_input);
            Builder b;
            b.rect(0, 0, 1, 1, 0);
            b.g.triangles[4] = 99;
            r = voxel::voxelize(b.g, makeParams(), context);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().message.find("vertex 99") != std::string::npos);
        }
        SUBCASE("progress is reported in order and cancellation stops the run") {
            Builder b;
            b.box({0, -0.2, 0}, {30, 0, 30});
            RecordingContext progress;
            REQUIRE(voxel::voxelize(b.g, makeParams(), progress).ok());
            REQUIRE_FALSE(progress.calls.empty());
            CHECK(progress.calls.back().first == progress.calls.back().second);
            RecordingContext cancel;
            cancel.cancel_at_first = true;
            auto p = makeParams();
            p.threads = 1;
            auto r = voxel::voxelize(b.g, p, cancel);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::cancelled);
            Context already;
            already.requestCancel();
            r = voxel::voxelize(b.g, p, already);
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().kind == ErrorKind::cancelled);
        }
        SUBCASE("the grid records the parameters and the area table") {
            Builder b;
            b.g.areas.push_back({"mud", 2.0f, true});
            b.rect(0, 0, 3, 3, 1, 2);
            auto p = makeParams(0.25f, 0.1f, 0.0f);
            p.agent.height = 1.8f;
            p.agent.climb = 0.5f;
            p.agent.max_slope_deg = 30;
            const voxel::VoxelGrid grid = voxelizeOk(b.g, p);
            CHECK(grid.cell_size == 0.25f);
            CHECK(grid.cell_height == 0.1f);
            CHECK(grid.agent.height == 1.8f);
            CHECK(grid.agent.climb == 0.5f);
            CHECK(grid.agent.max_slope_deg == 30);
            CHECK(grid.areas == b.g.areas);
            CHECK(grid.size_y >= 2 + 18);  // the floor plus the agent's clearance above it
            CHECK(grid.walkableCount() > 0);
            for (const voxel::Span& s : grid.spans)
                if (s.walkable) CHECK(s.area == 2);
        }
    }
}

// Voxelize streams the grid: rows are finished chunk by chunk from a window of row bands with a
// halo (filters one column, erosion the radius). Nothing may depend on where chunks begin.
namespace {

// A level spanning many chunks along Z: bumpy terrain (ledges within and beyond climb), walls,
// pillars and a platform with a floor under it (multi-layer columns), deterministic.
test::LevelBuilder streamedLevel(double size, double z_shift) {
    Builder b;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double step = 2.0;
    for (double x = 0; x < size; x += step)
        for (double z = 0; z < size; z += step) {
            const double y = (u(rng) < 0.15 ? 0.6 : 0.0) + (u(rng) < 0.05 ? 1.5 : 0.0);
            b.rect(x, z + z_shift, x + step, z + step + z_shift, y);
        }
    for (int i = 0; i < 40; ++i) {
        const double x = u(rng) * (size - 8), z = u(rng) * (size - 8) + z_shift;
        if (i % 3 == 0)
            b.box({x, 0, z}, {x + 6, 3, z + 0.4});  // wall
        else if (i % 3 == 1)
            b.box({x, 0, z}, {x + 0.5, 4, z + 0.5});  // pillar
        else
            b.box({x, 2.6, z}, {x + 7, 2.9, z + 5});  // platform over the ground
    }
    return b;
}

}  // namespace

TEST_CASE("voxelize: results do not depend on where the streamed chunks and blocks begin") {
    // Shifting the whole level by whole rows in Z (or columns in X) and adding a small far marker
    // triangle south (west) of it moves the chunk borders (the borders of the column blocks a
    // chunk is finished in, 256 columns wide: the level is 434 wide) across the level; every
    // column must stay the same.
    for (float radius : {0.6f, 3.0f, 6.5f}) {  // halo of 1, 2 and 4 bands at 0.3 m cells
        CAPTURE(radius);
        const voxel::VoxelizeParams params = makeParams(0.3f, 0.2f, radius);
        Builder base = streamedLevel(130.0, 0.0);
        const voxel::VoxelGrid reference = voxelizeOk(base.g, params);
        REQUIRE(reference.size_z > 3 * 32);  // several chunks
        REQUIRE(reference.size_x > 256);     // two blocks
        for (bool along_x : {false, true})
            for (int shift : {1, 7, 16, 37, 100}) {
                CAPTURE(along_x);
                CAPTURE(shift);
                Builder shifted = streamedLevel(130.0, 0.0);
                // A tiny ledge far to the west or south: the grid's origin moves by `shift` cells.
                const double w0 = -0.3 * shift;
                if (along_x)
                    shifted.tri({w0, 0, 0}, {w0, 0, 0.1}, {w0 + 0.1, 0, 0});
                else
                    shifted.tri({0, 0, w0}, {0, 0, w0 + 0.1}, {0.1, 0, w0});
                const voxel::VoxelGrid grid = voxelizeOk(shifted.g, params);
                const uint32_t dx = along_x ? uint32_t(shift) : 0;
                const uint32_t dz = along_x ? 0 : uint32_t(shift);
                REQUIRE(grid.size_x == reference.size_x + dx);
                REQUIRE(grid.size_z == reference.size_z + dz);
                size_t differing = 0;
                for (uint32_t z = 0; z < reference.size_z; ++z)
                    for (uint32_t x = 0; x < reference.size_x; ++x) {
                        const auto a = reference.column(x, z);
                        const auto c = grid.column(x + dx, z + dz);
                        if (!std::equal(a.begin(), a.end(), c.begin(), c.end()) &&
                            !(x < 2 && z < 2))  // the marker's own corner
                            ++differing;
                    }
                CHECK(differing == 0);
            }
    }
}

TEST_CASE(
    "voxelize: triangles left stored in the .geo give the same .vox, and bad ones are refused") {
    Builder b = streamedLevel(60.0, 0.0);
    const voxel::VoxelizeParams params = makeParams();
    test::TempDir dir;
    REQUIRE(geometry::saveGeometry(dir / "level.geo", b.g).ok());
    Context context;
    voxel::VoxelizeCounts counts;
    auto whole = voxel::voxelizeToFile(b.g, params, context, &counts, dir / "whole.vox", "level");
    REQUIRE(whole.ok());
    geometry::StoredTriangles stored;
    auto bare = geometry::loadGeometry(dir / "level.geo", stored);
    REQUIRE(bare.ok());
    CHECK(bare->triangles.empty());
    CHECK(bare->triangle_areas.empty());
    CHECK(stored.count() == b.g.triangleCount());
    CHECK(bare->vertices == b.g.vertices);
    auto from_stored = voxel::voxelizeToFile(*bare, &stored, params, context, &counts,
                                             dir / "stored.vox", "level");
    REQUIRE(from_stored.ok());
    CHECK(test::readBytes(dir / "whole.vox") == test::readBytes(dir / "stored.vox"));
    CHECK(from_stored->stats.spans > 1000);
    // Visited in blocks: every triangle once, in order, as the arrays hold them.
    std::vector<uint32_t> corners;
    std::vector<uint8_t> areas;
    REQUIRE(stored
                .forEach([&](uint64_t first, std::span<const uint32_t> c,
                             std::span<const uint8_t> a) -> Status {
                    CHECK(first == areas.size());
                    corners.insert(corners.end(), c.begin(), c.end());
                    areas.insert(areas.end(), a.begin(), a.end());
                    return {};
                })
                .ok());
    CHECK(corners == b.g.triangles);
    CHECK(areas == b.g.triangle_areas);
    // Decoded whole (as bake bounds need them): the geometry as saved.
    geometry::Geometry decoded = *bare;
    REQUIRE(stored.decodeInto(decoded).ok());
    CHECK(decoded.triangles == b.g.triangles);
    CHECK(decoded.triangle_areas == b.g.triangle_areas);
    // A vertex index out of range, found only when the triangles are visited: named by file,
    // section, triangle and byte.
    geometry::Geometry bad = b.g;
    const size_t t = bad.triangleCount() - 7;
    bad.triangles[3 * t + 1] = uint32_t(bad.vertexCount());
    REQUIRE(geometry::saveGeometry(dir / "bad.geo", bad).ok());
    geometry::StoredTriangles bad_stored;
    auto bad_bare = geometry::loadGeometry(dir / "bad.geo", bad_stored);
    REQUIRE(bad_bare.ok());
    auto refused = voxel::voxelizeToFile(*bad_bare, &bad_stored, params, context, &counts,
                                         dir / "bad.vox", "bad");
    REQUIRE_FALSE(refused.ok());
    const std::string& message = refused.error().message;
    CHECK(message.find("bad.geo") != std::string::npos);
    CHECK(message.find("section 'TRIS'") != std::string::npos);
    CHECK(message.find(fmt::format("triangle {} uses vertex {}", t, bad.vertexCount())) !=
          std::string::npos);
    CHECK(message.find(fmt::format("byte {}", 12 * t + 4)) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "bad.vox"));
    // Bake bounds need the triangles whole: the stored form is refused, not mis-clipped.
    voxel::VoxelizeParams bounded = params;
    bounded.bounds = {{{0, -1, 0}, {20, 5, 20}}};
    CHECK_FALSE(voxel::voxelizeToFile(*bare, &stored, bounded, context, &counts,
                                      dir / "bounded.vox", "level")
                    .ok());
}

TEST_CASE("voxelize: the streamed .vox equals saveVoxels of the grid, byte for byte") {
    // Large enough that the spans (and columns) go through the zstd stream, not the held path.
    Builder b = streamedLevel(120.0, 0.0);
    voxel::VoxelizeParams params = makeParams();
    voxel::ModifierVolume mud;  // cost factors add derived areas in the order they are met
    mud.name = "mud";
    mud.box = {{10, -1, 10}, {50, 5, 90}};
    mud.cost_factor = 3;
    voxel::ModifierVolume no_go;
    no_go.name = "no_go";
    no_go.box = {{70, -1, 20}, {90, 5, 40}};
    no_go.forbid = true;
    params.volumes = {mud, no_go};
    Context context;
    voxel::VoxelizeCounts memory_counts, file_counts;
    auto grid = voxel::voxelize(b.g, params, context, &memory_counts);
    REQUIRE(grid.ok());
    REQUIRE(grid->spans.size() * 8 > formats::ZstdSectionStream::kHoldBytes);
    test::TempDir dir;
    grid->source_name = "streamed.obj";
    REQUIRE(voxel::saveVoxels(dir / "whole.vox", *grid).ok());
    auto streamed = voxel::voxelizeToFile(b.g, params, context, &file_counts, dir / "streamed.vox",
                                          "streamed.obj");
    REQUIRE(streamed.ok());
    CHECK(test::readBytes(dir / "whole.vox") == test::readBytes(dir / "streamed.vox"));
    // The spans were spilled beside the output as they came; the spill file is gone.
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        CAPTURE(entry.path());
        ++files;
    }
    CHECK(files == 2);
    CHECK(file_counts.in_volumes == memory_counts.in_volumes);
    CHECK(memory_counts.in_volumes[0] > 0);
    CHECK(memory_counts.in_volumes[1] > 0);
    const voxel::VoxelStats stats = voxel::computeStats(*grid);
    CHECK(streamed->stats.spans == stats.spans);
    CHECK(streamed->stats.walkable_spans == stats.walkable_spans);
    CHECK(streamed->stats.walkable_per_area == stats.walkable_per_area);
    CHECK(streamed->stats.multi_layer_columns == stats.multi_layer_columns);
    CHECK(stats.multi_layer_columns > 0);
    auto loaded = voxel::loadVoxels(dir / "streamed.vox");
    REQUIRE(loaded.ok());
    CHECK(*loaded == *grid);
}
