// Stage 2: voxelization and walkable-surface extraction.
//
// Methods (re-implemented here from their published descriptions, no code taken):
//   * Span heightfield and conservative triangle rasterization by polygon clipping: Recast
//     (M. Mononen, recastnavigation, RecastRasterization.cpp: rcRasterizeTriangles / rcAddSpan).
//     Clipping a convex polygon against a half-plane: Sutherland & Hodgman, "Reentrant polygon
//     clipping", CACM 17(1), 1974.
//   * Walkability filters: Recast's rcFilterLowHangingWalkableObstacles, rcFilterLedgeSpans and
//     rcFilterWalkableLowHeightSpans (RecastFilter.cpp).
//   * Erosion by the agent radius: Recast's rcErodeWalkableArea (RecastArea.cpp), a two-pass
//     chamfer distance transform with weights 2 (edge) / 3 (diagonal) (G. Borgefors, "Distance
//     transformations in digital images", CVGIP 34, 1986).
//
// Design
// ------
// Frame. Origin = geometry bounds min, except Y, which is one cell lower, so that a floor lying
// exactly on the bounds' bottom still gets a full cell under its top face. size_x/size_z = the
// bounds' extent in cells rounded up (at least 1); size_y = the bounds' top in cells + 1 (a
// downward face on the top boundary takes the cell above it) + the agent height in cells, so that
// the topmost surface has room for its clearance. Vertices are converted
// to cell units once in double precision, and any coordinate within kSnap (1e-4 cell) of a whole
// number is snapped onto it: level geometry authored on cell borders (in floats) then lands on
// them exactly, which makes the border rule below apply as intended.
//
// Rasterization (conservative, exact clipping). Each triangle is clipped (Sutherland-Hodgman, in
// cell units) to the strip of each row it covers, and that piece to each column it covers (cut off
// one border after another, the rest carried on, as Recast's dividePoly does); the clipped
// polygon's Y range [y_lo, y_hi] gives the span [floor(y_lo), ceil(y_hi)).
// Border rule: which columns a triangle touches, with F its XZ footprint:
//   * F has an area (any non-vertical triangle): the columns whose square meets F in a region of
//     positive area. Touching a border or a corner only does not count, so a floor that ends on a
//     cell border does not spill into the next column, and no gap is narrowed.
//   * F is a segment (a vertical face): the columns in which F has positive length. A face
//     crossing a grid corner is not dilated into the two side columns (4-neighbour moves cannot
//     slip through a diagonal chain of blocked columns, so walls stay closed).
//   * A face lying exactly on a border (a vertical face on a column border line, or a flat face
//     on a cell boundary in Y, i.e. a span with no height) goes to the cell *behind* it, the side
//     its normal points away from: the inside of a closed, outward-facing mesh. So a box aligned
//     to the grid fills exactly its own cells (floor tops and slab bottoms land exactly on the
//     surfaces), and a single-sided wall on a border still blocks. Faces without a normal
//     (degenerate) go to the + side in X/Z and to the cell below in Y.
//   * The grid's outer borders are closed: anything at the max edge falls in the last column.
// This is computed per row/column from the clipped piece's own extent: cells floor(min) ..
// ceil(max) - 1, or, when the extent is zero, the cell containing it (behind it if on a border).
// Extents within kNoise (1e-9 cell) of a border count as on it: clipping an edge that passes
// exactly through a grid corner must not invent a sliver in the next column.
//
// Surface classes. A triangle is an obstacle when its area id is 0 or its area type is not
// walkable; otherwise walkable when its normal (v1 - v0) x (v2 - v0) points up within the max
// slope (normal.y >= cos(slope) * |normal|; counter-clockwise from above, as Recast; faces that
// point down are never walkable); otherwise steep. Each raw span carries a priority key:
// obstacle > walkable > steep, then the larger area id.
//
// Merge rule. The raw spans of one column that overlap or touch are merged into one span (the
// union). Its top face takes the key of the highest-priority raw span whose top lies within
// `climb` cells of the merged top (Recast merges flags within walkableClimb and keeps the larger
// area id; here an obstacle surface near the top always wins, so an obstacle-tagged object is
// never walkable). This is a function of the set of raw spans, so it does not depend on triangle
// order at all.
//
// Filters (per column, reading only the neighbours' span heights, so order-independent):
//   1. low-hanging obstacles: a non-walkable, non-obstacle span whose top is at most `climb`
//      above the top of the (originally) walkable span just below it becomes walkable (curbs);
//   2. ledges: a walkable span with a neighbour (4-neighbourhood; outside the grid counts as a
//      drop) whose floor, reachable through a gap >= agent height, is more than `climb` lower,
//      or whose reachable neighbour floors within `climb` spread over more than `climb`, is not
//      walkable;
//   3. low height: clearance (next span's bottom - top; unlimited above the topmost span) below
//      the agent height -> not walkable.
// A "gap" between two spans in neighbouring columns is min(ceilings) - max(floors).
//
// Erosion. Walkable spans are connected to a walkable span in each of the 4 neighbour columns
// when |step| <= climb and the shared gap >= agent height (the closest step wins, then the lower
// span). Spans with fewer than 4 connections are the boundary (distance 0); a chamfer transform
// (2 per edge step, 3 per diagonal step taken through a connected edge neighbour, two raster
// passes) gives every walkable span its distance to the boundary, and spans with distance
// < 2 * radius_cells lose the walkable flag, radius_cells = ceil(radius / cell_size). So with
// radius 2 cells the boundary span and the one next to it are cleared. Radius 0 = no erosion.
//
// Parallelism. Rows are cut into fixed bands of kBandRows rows. Each band rasterizes, in
// triangle index order, the triangles whose row range overlaps it, and merges its own columns;
// chunks of bands are then filtered and eroded from a window of the bands around them, and handed
// on in order. The three kinds of task run as soon as each can start (runDynamic: no barrier
// between phases, so one thread does not idle while the other ends a phase). Every result is a
// function of the input alone, so the output is byte-identical for any thread count. Only the
// calling thread logs, reports progress and hands rows on.
#include "lib/voxel/voxelize.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numbers>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include <zstd.h>

#include "lib/common/csr.h"
#include "lib/common/file_io.h"
#include "lib/common/parallel.h"

namespace nav::voxel {
namespace {

constexpr double kSnap = 1e-4;            // [Units: cells] snapping tolerance for cell coordinates
constexpr double kNoise = 1e-9;           // [Units: cells] rounding noise of clipped coordinates
constexpr uint32_t kBandRows = 8;         // rows per work item
constexpr uint32_t kPassRows = 4;         // rows a band's rasterization holds the raw spans of
constexpr uint32_t kFinishColumns = 256;  // columns a block when a chunk is finished
constexpr uint32_t kCutColumns = 64;      // columns a rasterization segment (rasterizeTriangle)
constexpr int kUnbounded = 1 << 24;       // a ceiling above any grid [Units: cell heights]
constexpr int kMaxAreas = 64;             // area ids fit in 6 bits of the priority key
constexpr uint16_t kFar = 0xffff;         // distance of spans not yet reached

double snapToGrid(double v) {
    // The nearest whole number wherever it matters (within kSnap of v; halves are never snapped),
    // by floor, which compiles inline where round is a library call.
    const double r = std::floor(v + 0.5);
    return std::abs(v - r) <= kSnap ? r : v;
}

// ---- Rasterization ----------------------------------------------------------------------------

struct Vec3d {
    double x, y, z;  // [Units: cells]
};

enum SurfaceClass : uint8_t { kSteep = 0, kWalkableSurface = 1, kObstacleSurface = 2 };

uint8_t surfaceKey(SurfaceClass surface_class, uint8_t area) {
    return uint8_t((surface_class << 6) | area);
}

// One triangle's contribution to one column, before merging. Packed: 9 bytes where alignment
// would make 12 (a band of a multi-storey level holds a few hundred thousand, twice: raw and
// grouped by column, per worker).
struct [[gnu::packed]] RawSpan {
    uint32_t column;  // within the band
    uint16_t y_min;
    uint16_t y_max;
    uint8_t key;
};
static_assert(sizeof(RawSpan) == 9);
// A raw span grouped by column (its column is its group's): 5 bytes.
struct [[gnu::packed]] ColumnSpan {
    uint16_t y_min;
    uint16_t y_max;
    uint8_t key;
};
static_assert(sizeof(ColumnSpan) == 5);

// A triangle clipped by four half-planes has at most 7 corners; the margin (and the guard in
// clipPolygon) covers nearly collinear pieces whose rounding could add a crossing or two.
constexpr int kMaxPolygon = 16;

// Keeps the part of the convex polygon where (p.axis - bound) * side >= 0 (axis 0 = x, 2 = z).
// New corners lie exactly on the bound. Returns the corner count (0 when nothing is left).
int clipPolygon(const Vec3d* in, int n, Vec3d* out, int axis, double bound, double side) {
    auto distance = [&](const Vec3d& p) { return ((axis == 0 ? p.x : p.z) - bound) * side; };
    int m = 0;
    for (int i = 0, j = n - 1; i < n && m + 2 <= kMaxPolygon; j = i++) {
        const Vec3d& a = in[j];
        const Vec3d& b = in[i];
        const double da = distance(a);
        const double db = distance(b);
        if ((da > 0 && db < 0) || (da < 0 && db > 0)) {
            const double t = da / (da - db);
            Vec3d p{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
            (axis == 0 ? p.x : p.z) = bound;
            out[m++] = p;
        }
        if (db >= 0) out[m++] = b;
    }
    return m;
}

// Splits the convex polygon at (p.axis = bound) into the part at or below it (`below`) and the part
// at or above it (`above`), in one pass: each is exactly what clipPolygon makes with side -1 and +1
// (the same crossings, computed from the same corners: negating both distances leaves t as it is).
void dividePolygon(const Vec3d* in, int n, int axis, double bound, Vec3d* below, int& nb,
                   Vec3d* above, int& na) {
    nb = na = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        const Vec3d& a = in[j];
        const Vec3d& b = in[i];
        const double da = (axis == 0 ? a.x : a.z) - bound;
        const double db = (axis == 0 ? b.x : b.z) - bound;
        if ((da > 0 && db < 0) || (da < 0 && db > 0)) {
            const double t = da / (da - db);
            Vec3d p{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
            (axis == 0 ? p.x : p.z) = bound;
            if (nb + 2 <= kMaxPolygon) below[nb++] = p;
            if (na + 2 <= kMaxPolygon) above[na++] = p;
        }
        if (db <= 0 && nb + 2 <= kMaxPolygon) below[nb++] = b;
        if (db >= 0 && na + 2 <= kMaxPolygon) above[na++] = b;
    }
}

// First and last cell an extent [lo, hi] covers by the border rule (see the file comment).
void cellRange(double lo, double hi, uint32_t size, bool prefer_lower, uint32_t& first,
               uint32_t& last) {
    double f = std::floor(lo + kNoise);
    double l = std::ceil(hi - kNoise) - 1.0;
    if (l < f) {  // no extent, exactly on a border
        if (prefer_lower) f -= 1.0;
        l = f;
    }
    const double max_index = double(size) - 1.0;
    first = uint32_t(std::clamp(f, 0.0, max_index));
    last = uint32_t(std::clamp(l, 0.0, max_index));
}

// The columns one voxelizeRows call works on: it rasterizes [raster0, raster1) and finishes and
// hands on [out0, out1), which lie at least the halo (agent radius + 3 cells) inside the
// rasterized ones wherever those stop short of the grid's sides (see voxelizeRows). raster0 is a
// multiple of kCutColumns.
struct ColumnRange {
    uint32_t raster0 = 0, raster1 = 0;
    uint32_t out0 = 0, out1 = 0;
    uint32_t width() const { return raster1 - raster0; }
};

struct Frame {
    uint32_t size_x = 0;
    uint32_t size_z = 0;
    int top_cells = 0;  // highest possible span top
    AgentCells agent;
    double origin[3] = {0, 0, 0};  // [Units: m]
    double cell_size = 1;          // [Units: m]
    double cell_height = 1;        // [Units: m]
    double cos_slope = 0;          // of the steepest walkable slope
    std::vector<uint8_t> blocked;  // per area id: an obstacle or unwalkable area
};

// A coordinate [m] on `axis` (0 x, 1 y, 2 z) in cells of the frame, snapped.
double toCell(const Frame& frame, int axis, double v) {
    return snapToGrid((v - frame.origin[axis]) / (axis == 1 ? frame.cell_height : frame.cell_size));
}

// Which side a face lying exactly on a cell border goes to (see the file comment).
constexpr uint8_t kLowerX = 1;  // normal +x: the solid is on the -x side
constexpr uint8_t kUpperY = 2;  // normal -y: the solid is above
constexpr uint8_t kLowerZ = 4;  // normal +z: the solid is on the -z side

// One triangle as rasterization sees it, derived from the geometry when needed (nothing per
// vertex or triangle is kept beside the geometry: on a large level that would double it).
struct TriangleInfo {
    Vec3d v[3];         // [Units: cells], snapped
    uint8_t key = 0;    // surfaceKey
    uint8_t sides = 0;  // kLowerX | kUpperY | kLowerZ
    uint32_t row0 = 0;  // first and last row it covers
    uint32_t row1 = 0;
    uint32_t col0 = 0;  // and column
    uint32_t col1 = 0;
    bool up = false;    // faces up within the max slope
    bool down = false;  // faces down within it
};

// One triangle as the band lists hold it: its corners (vertex indices) and area id.
struct TriangleRef {
    uint32_t corner[3];
    uint8_t area;
};

// The triangles to rasterize, visited in order a block at a time, as often as asked: the
// geometry's own arrays, or a .geo's stored ones decoded as they are visited.
using TriangleBlocks = std::function<Status(const geometry::StoredTriangles::Visit&)>;

// Band list format: segments, each a LEB128 varint of its byte length and then, per triangle,
// LEB128 varints of the zigzagged (wrapping u32) differences first corner - the segment's
// previous first corner (times 2, plus 1 when the area differs from the segment's previous
// triangle's, 0 before the first), second - first and third - first, then the area byte only
// when it differs: 3-8 bytes a triangle on real levels, where neighbouring triangles share
// corners and areas, against 13 for the arrays (which need not be held at all). A segment is
// what one piece of consecutive triangles gives the band, so pieces are encoded in parallel.
uint32_t zigzag(uint32_t d) { return (d << 1) ^ uint32_t(int32_t(d) >> 31); }
uint32_t unzigzag(uint32_t z) { return (z >> 1) ^ (0u - (z & 1)); }
void putVarint(uint8_t*& out, uint64_t v) {
    for (; v >= 0x80; v >>= 7) *out++ = uint8_t(v | 0x80);
    *out++ = uint8_t(v);
}
uint64_t getVarint(const uint8_t*& in) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        const uint8_t byte = *in++;
        v |= uint64_t(byte & 0x7f) << shift;
        if (byte < 0x80) return v;
    }
}

// The band lists: per band, its bytes in pages (appended in triangle order, handed back once the
// band is rasterized). Pages keep the lists from being sized in a pass of their own or regrown.
class BandLists {
public:
    explicit BandLists(uint32_t band_count) : bands_(band_count) {}
    void append(uint32_t band, const uint8_t* data, size_t n) {
        Band& b = bands_[band];
        while (n > 0) {
            if (b.size == b.pages.size() * kPage)
                b.pages.push_back(std::make_unique_for_overwrite<uint8_t[]>(kPage));
            const size_t at = b.size % kPage;
            const size_t take = std::min(n, kPage - at);
            std::memcpy(b.pages.back().get() + at, data, take);
            b.size += take, data += take, n -= take;
        }
    }
    // The band's bytes, contiguous in `out`.
    void gather(uint32_t band, std::vector<uint8_t>& out) const {
        const Band& b = bands_[band];
        out.resize(b.size);
        for (size_t p = 0; p < b.pages.size(); ++p)
            std::memcpy(out.data() + p * kPage, b.pages[p].get(),
                        std::min(kPage, b.size - p * kPage));
    }
    void release(uint32_t band) { bands_[band] = Band{}; }

private:
    static constexpr size_t kPage = 4096;
    struct Band {
        std::vector<std::unique_ptr<uint8_t[]>> pages;
        size_t size = 0;
    };
    std::vector<Band> bands_;
};

// A triangle's normal (corners p, counter-clockwise = front) and whether it faces up or down
// within the max slope.
struct Facing {
    double n[3];
    bool up, down;
};
Facing facingOf(const Frame& frame, const float* const p[3]) {
    Facing f;
    const double e0[3] = {double(p[1][0]) - p[0][0], double(p[1][1]) - p[0][1],
                          double(p[1][2]) - p[0][2]};
    const double e1[3] = {double(p[2][0]) - p[0][0], double(p[2][1]) - p[0][1],
                          double(p[2][2]) - p[0][2]};
    const double n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2],
                         e0[0] * e1[1] - e0[1] * e1[0]};
    const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    f.n[0] = n[0], f.n[1] = n[1], f.n[2] = n[2];
    f.up = length > 0 && n[1] >= frame.cos_slope * length;
    f.down = length > 0 && -n[1] >= frame.cos_slope * length;
    return f;
}

// A vertex in cells (toCell on each axis), remembered for the next triangles that use it: a
// direct-mapped cache per worker (neighbouring triangles share corners; three divisions saved
// each time one is found).
class CellCache {
public:
    CellCache() : entries_(kSize) {}
    const Vec3d& at(const Frame& frame, const std::vector<float>& vertices, uint32_t vertex) {
        Entry& e = entries_[vertex & (kSize - 1)];
        if (e.vertex != vertex) {
            const float* p = &vertices[3 * size_t(vertex)];
            e.vertex = vertex;
            e.cell = {toCell(frame, 0, p[0]), toCell(frame, 1, p[1]), toCell(frame, 2, p[2])};
        }
        return e.cell;
    }

private:
    static constexpr size_t kSize = 4096;
    struct Entry {
        uint32_t vertex = UINT32_MAX;
        Vec3d cell{0, 0, 0};
    };
    std::vector<Entry> entries_;
};

// A triangle with corners p (metres) and v (the same in cells, snapped), of area `area`.
TriangleInfo describeCorners(const Frame& frame, const float* const p[3], const Vec3d v[3],
                             uint8_t area) {
    TriangleInfo info;
    for (int k = 0; k < 3; ++k) info.v[k] = v[k];
    const Facing facing = facingOf(frame, p);
    const double* n = facing.n;
    info.up = facing.up;
    info.down = facing.down;
    const SurfaceClass surface = frame.blocked[area] ? kObstacleSurface
                                 : info.up           ? kWalkableSurface
                                                     : kSteep;
    info.key = surfaceKey(surface, area);
    info.sides =
        uint8_t((n[0] > 0 ? kLowerX : 0) | (n[1] < 0 ? kUpperY : 0) | (n[2] > 0 ? kLowerZ : 0));
    const double z_lo = std::min({info.v[0].z, info.v[1].z, info.v[2].z});
    const double z_hi = std::max({info.v[0].z, info.v[1].z, info.v[2].z});
    cellRange(z_lo, z_hi, frame.size_z, (info.sides & kLowerZ) != 0, info.row0, info.row1);
    const double x_lo = std::min({info.v[0].x, info.v[1].x, info.v[2].x});
    const double x_hi = std::max({info.v[0].x, info.v[1].x, info.v[2].x});
    cellRange(x_lo, x_hi, frame.size_x, (info.sides & kLowerX) != 0, info.col0, info.col1);
    return info;
}

TriangleInfo describeTriangle(const Frame& frame, const std::vector<float>& vertices,
                              const TriangleRef& ref, CellCache& cells) {
    const float* p[3];
    Vec3d v[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = &vertices[3 * size_t(ref.corner[k])];
        v[k] = cells.at(frame, vertices, ref.corner[k]);
    }
    return describeCorners(frame, p, v, ref.area);
}

// The same for a triangle of a strip (its corners inline): the same numbers from the same floats.
TriangleInfo describeTriangle(const Frame& frame, const geometry::StripTriangle& t) {
    const float* p[3] = {&t.p[0], &t.p[3], &t.p[6]};
    Vec3d v[3];
    for (int k = 0; k < 3; ++k)
        v[k] = {toCell(frame, 0, p[k][0]), toCell(frame, 1, p[k][1]), toCell(frame, 2, p[k][2])};
    return describeCorners(frame, p, v, t.area);
}

// What the band lists need of a triangle: the rows it covers (describeTriangle's row0 and row1)
// and whether it faces up or down within the max slope (for the winding warning), for less.
void triangleRows(const Frame& frame, const std::vector<float>& vertices, const TriangleRef& ref,
                  uint32_t& row0, uint32_t& row1, bool& up, bool& down) {
    const float* p[3];
    double z[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = &vertices[3 * size_t(ref.corner[k])];
        z[k] = toCell(frame, 2, p[k][2]);
    }
    const Facing facing = facingOf(frame, p);
    up = facing.up;
    down = facing.down;
    cellRange(std::min({z[0], z[1], z[2]}), std::max({z[0], z[1], z[2]}), frame.size_z,
              facing.n[2] > 0, row0, row1);
}

// A polygon cut into pieces one border at a time (rows, then a row's columns), the rest kept in
// one of two buffers while the next cut fills the other.
struct Cutter {
    Cutter(const Vec3d* polygon, int count) : rest(polygon), n(count) {}
    const Vec3d* rest;
    int n;
    Vec3d buffers[2][kMaxPolygon];  // (not cleared: only what a cut writes is read)
    // Starts from the part of `polygon` at or above `bound` on `axis`.
    void start(const Vec3d* polygon, int count, int axis, double bound) {
        n = clipPolygon(polygon, count, buffers[0], axis, bound, 1.0);
        rest = buffers[0];
    }
    // The piece at or below `bound` (into `piece`), the rest kept; or, when `last` (the rest lies
    // wholly at or below it, so the cut would give it whole), all that is left.
    const Vec3d* next(int axis, double bound, bool last, Vec3d* piece, int& count) {
        if (last) {
            count = n;
            n = 0;
            return rest;
        }
        Vec3d* other = rest == buffers[0] ? buffers[1] : buffers[0];
        dividePolygon(rest, n, axis, bound, piece, count, other, n);
        rest = other;
        return piece;
    }
};

// The triangle's spans in rows emit0 .. emit1-1 of its band (band_row0 ..) and the range's
// rasterized columns, each span's column counted from row emit0 and the range's first column. It is
// cut from the band's first row whatever rows it emits, so the spans of a row do not depend on
// which rows are emitted together.
void rasterizeTriangle(const Frame& frame, const ColumnRange& range, const TriangleInfo& info,
                       uint32_t band_row0, uint32_t emit0, uint32_t emit1,
                       std::vector<RawSpan>& raw) {
    const Vec3d* tri = info.v;
    const uint8_t key = info.key;
    const uint8_t sides = info.sides;
    const uint32_t row0 = std::max(info.row0, band_row0);
    const uint32_t row1 = std::min(info.row1, emit1 - 1);
    // Rows and then columns are cut off the rest of the polygon one after another, Recast's way
    // (one divide per border instead of two clips of the whole). A cut that would leave the
    // polygon whole (every corner on the kept side: the first border below all of it, the last
    // above) is not made: the polygon is the piece, the same corners in the same order, exactly
    // what the cut gives. Most triangles of a large level cover a few cells, so this skips most
    // cuts. (The rest's top corner is always the triangle's own, as is the row piece's rightmost
    // corner in what is left of it, so their extents need no new scan.)
    Vec3d row_piece[kMaxPolygon], cell[kMaxPolygon];
    const double z_min = std::min({tri[0].z, tri[1].z, tri[2].z});
    const double z_max = std::max({tri[0].z, tri[1].z, tri[2].z});
    Cutter rows(tri, 3);
    if (z_min < double(row0)) rows.start(tri, 3, 2, double(row0));
    for (uint32_t row = row0; row <= row1 && rows.n > 0; ++row) {
        int n = 0;
        // The last row: all that is left.
        const Vec3d* piece =
            rows.next(2, double(row) + 1.0, z_max <= double(row) + 1.0, row_piece, n);
        if (n == 0 || row < emit0) continue;
        double x_lo = piece[0].x, x_hi = piece[0].x;
        for (int i = 1; i < n; ++i) {
            x_lo = std::min(x_lo, piece[i].x);
            x_hi = std::max(x_hi, piece[i].x);
        }
        uint32_t col0, col1;
        cellRange(x_lo, x_hi, frame.size_x, (sides & kLowerX) != 0, col0, col1);
        if (col1 < range.raster0 || col0 >= range.raster1) continue;
        // Columns are cut a segment of kCutColumns at a time, each segment's first cut made from
        // the row piece (as a band's first row is cut from the triangle), so a column's spans do
        // not depend on which segments a call rasterizes.
        const uint32_t first = std::max(col0, range.raster0);
        const uint32_t last = std::min(col1, range.raster1 - 1);
        Cutter columns(piece, n);
        for (uint32_t col = first; col <= last; ++col) {
            if (col == first || col % kCutColumns == 0) {
                columns.rest = piece;
                columns.n = n;
                if (x_lo < double(col)) columns.start(piece, n, 0, double(col));
            } else if (columns.n == 0) {
                col = (col / kCutColumns + 1) * kCutColumns - 1;  // on to the next segment
                continue;
            }
            if (columns.n == 0) continue;
            int m = 0;
            const Vec3d* cell_at =
                columns.next(0, double(col) + 1.0, x_hi <= double(col) + 1.0, cell, m);
            if (m == 0) continue;
            double y_lo = cell_at[0].y, y_hi = cell_at[0].y;
            for (int i = 1; i < m; ++i) {
                y_lo = std::min(y_lo, cell_at[i].y);
                y_hi = std::max(y_hi, cell_at[i].y);
            }
            int lo = int(std::floor(y_lo + kNoise));
            int hi = int(std::ceil(y_hi - kNoise));
            if (hi <= lo) {  // a flat face on a cell boundary: the cell behind it
                if (sides & kUpperY)
                    hi = lo + 1;
                else
                    lo = hi - 1;
            }
            lo = std::clamp(lo, 0, frame.top_cells - 1);
            hi = std::clamp(hi, lo + 1, frame.top_cells);
            const uint32_t column = (row - emit0) * range.width() + (col - range.raster0);
            raw.push_back({column, uint16_t(lo), uint16_t(hi), key});
        }
    }
}

struct BandOutput {
    std::vector<Span> spans;
    std::vector<uint32_t> offsets;  // per column of the band its first span, then the end
};

// Per-worker buffers kept across bands and chunks (a large level would otherwise allocate and
// fault in fresh ones for every band).
struct Scratch {
    std::vector<RawSpan> raw;
    std::vector<ColumnSpan> sorted;
    std::vector<uint8_t> list;   // a band's list, gathered
    std::vector<uint8_t> later;  // per triangle of the list: whether it reaches the next pass
    CellCache cells;
    std::vector<uint32_t> start;
    VoxelGrid local;
    std::vector<uint8_t> walkable;
    std::vector<uint16_t> links, dist;
};

// Empties `v` with room for `n`: exactly, unless the room it has is within 1/8 over that.
template <class T>
void reserveExactly(std::vector<T>& v, size_t n) {
    if (v.capacity() < n || v.capacity() - n > n / 8) v = std::vector<T>();
    v.clear();
    v.reserve(n);
}

// Merges the raw spans of columns column_base .. column_base + column_count - 1 of a band (those
// before them merged already; raw's columns counted from column_base) by the merge rule in the
// file comment. The band's span array is sized to what it holds (reserveExactly): grown by
// doubling, up to half of every held band's room was unused.
void mergeBand(std::vector<RawSpan>& raw, uint32_t column_count, int climb, uint32_t column_base,
               BandOutput& out, Scratch& scratch) {
    std::vector<uint32_t>& start = scratch.start;
    std::vector<ColumnSpan>& sorted = scratch.sorted;
    csrBuild<ColumnSpan>(
        column_count,
        [&](auto&& emit) {
            for (const RawSpan& r : raw) emit(r.column, ColumnSpan{r.y_min, r.y_max, r.key});
        },
        start, sorted);
    // Each column's spans by their bottom, and the number of merged spans they make.
    auto mergedEnd = [](std::vector<ColumnSpan>::iterator i, std::vector<ColumnSpan>::iterator end,
                        int& hi) {
        hi = i->y_max;
        auto j = i + 1;
        for (; j != end && j->y_min <= hi; ++j) hi = std::max<int>(hi, j->y_max);
        return j;
    };
    size_t merged = 0;
    for (uint32_t c = 0; c < column_count; ++c) {
        const auto begin = sorted.begin() + start[c];
        const auto end = sorted.begin() + start[c + 1];
        std::sort(begin, end,
                  [](const ColumnSpan& a, const ColumnSpan& b) { return a.y_min < b.y_min; });
        int hi = 0;
        for (auto i = begin; i != end; i = mergedEnd(i, end, hi)) ++merged;
    }
    if (column_base == 0)
        reserveExactly(out.spans, merged);
    else
        out.spans.reserve(out.spans.size() + merged);
    out.offsets.resize(size_t(column_base) + column_count + 1);
    for (uint32_t c = 0; c < column_count; ++c) {
        const auto begin = sorted.begin() + start[c];
        const auto end = sorted.begin() + start[c + 1];
        out.offsets[column_base + c] = uint32_t(out.spans.size());
        int hi = 0;
        for (auto i = begin; i != end;) {
            const auto j = mergedEnd(i, end, hi);
            uint8_t key = 0;
            for (auto k = i; k != j; ++k)
                if (k->y_max + climb >= hi) key = std::max(key, k->key);
            out.spans.push_back(
                Span{i->y_min, uint16_t(hi), uint8_t(key & 63), (key >> 6) == kWalkableSurface});
            i = j;
        }
    }
    out.offsets[column_base + column_count] = uint32_t(out.spans.size());
}

// ---- Filters and erosion ----------------------------------------------------------------------

constexpr int kDx[4] = {-1, 0, 1, 0};  // direction 0: -x, 1: +z, 2: +x, 3: -z
constexpr int kDz[4] = {0, 1, 0, -1};

struct GridView {
    const VoxelGrid& grid;
    int ceilingOf(size_t span, size_t column_end) const {
        return span + 1 < column_end ? int(grid.spans[span + 1].y_min) : kUnbounded;
    }
    bool neighbour(uint32_t x, uint32_t z, int dir, size_t& begin, size_t& end) const {
        const int64_t nx = int64_t(x) + kDx[dir];
        const int64_t nz = int64_t(z) + kDz[dir];
        if (nx < 0 || nz < 0 || nx >= int64_t(grid.size_x) || nz >= int64_t(grid.size_z))
            return false;
        const size_t c = size_t(nz) * grid.size_x + size_t(nx);
        begin = grid.column_offsets[c];
        end = grid.column_offsets[c + 1];
        return true;
    }
};

// Filters 1-3 for one column; writes the new flags of its spans into `walkable`.
void filterColumn(const GridView& view, const std::vector<uint8_t>& blocked_area, uint32_t x,
                  uint32_t z, const AgentCells& agent, std::vector<uint8_t>& walkable) {
    const VoxelGrid& g = view.grid;
    const size_t c = size_t(z) * g.size_x + x;
    const size_t begin = g.column_offsets[c];
    const size_t end = g.column_offsets[c + 1];
    // 1. Low-hanging obstacles, judged on the flags as rasterized.
    bool below_walkable = false;
    int below_top = 0;
    for (size_t i = begin; i < end; ++i) {
        const Span& s = g.spans[i];
        bool w = s.walkable;
        if (!w && below_walkable && !blocked_area[s.area] &&
            int(s.y_max) - below_top <= agent.climb)
            w = true;
        below_walkable = s.walkable;
        below_top = s.y_max;
        walkable[i] = w;
    }
    // 2. Ledges and 3. low height. A neighbour span can give the agent room only when it ends
    // below this span's ceiling less the height and its own ceiling is at least the height above
    // this floor: a run of the neighbour's spans that moves up with this span (a cursor per side,
    // so a column of many layers is not compared with every layer of its neighbours).
    size_t nb[4], ne[4], cursor[4];
    bool inside[4];
    for (int dir = 0; dir < 4; ++dir) {
        inside[dir] = view.neighbour(x, z, dir, nb[dir], ne[dir]);
        cursor[dir] = inside[dir] ? nb[dir] : 0;
    }
    for (size_t i = begin; i < end; ++i) {
        if (!walkable[i]) continue;
        const int floor = g.spans[i].y_max;
        const int ceiling = view.ceilingOf(i, end);
        if (ceiling - floor < agent.height) {
            walkable[i] = 0;
            continue;
        }
        bool ledge = false;
        int reach_min = floor, reach_max = floor;
        for (int dir = 0; dir < 4 && !ledge; ++dir) {
            if (!inside[dir]) {
                ledge = true;  // the grid's edge is a drop into the void
                break;
            }
            // The open space under the neighbour's lowest span is a bottomless drop.
            const size_t n_begin = nb[dir], n_end = ne[dir];
            const int under = n_begin < n_end ? int(g.spans[n_begin].y_min) : kUnbounded;
            if (std::min(ceiling, under) - floor >= agent.height) {
                ledge = true;
                break;
            }
            size_t& k0 = cursor[dir];
            while (k0 < n_end && view.ceilingOf(k0, n_end) - floor < agent.height) ++k0;
            for (size_t k = k0; k < n_end; ++k) {
                const int n_floor = g.spans[k].y_max;
                if (ceiling - n_floor < agent.height) break;  // and every span above it
                const int n_ceiling = view.ceilingOf(k, n_end);
                if (std::min(ceiling, n_ceiling) - std::max(floor, n_floor) < agent.height)
                    continue;
                const int step = n_floor - floor;
                if (step < -agent.climb) {
                    ledge = true;
                    break;
                }
                if (std::abs(step) <= agent.climb) {
                    reach_min = std::min(reach_min, n_floor);
                    reach_max = std::max(reach_max, n_floor);
                }
            }
        }
        if (ledge || reach_max - reach_min > agent.climb) walkable[i] = 0;
    }
}

// A span's walkable connection in one direction: the neighbour's index within its column
// (columns hold at most 32,768 spans: heights are 16-bit), kNoLink when none. 8 bytes a span
// where span indices took 16.
constexpr uint16_t kNoLink = 0xFFFF;

// Walkable connections of the walkable spans of one column, 4 per span (the neighbours that can
// give room found with a cursor per side, as in filterColumn).
void connectColumn(const GridView& view, uint32_t x, uint32_t z, const AgentCells& agent,
                   const std::vector<uint8_t>& walkable, std::vector<uint16_t>& links) {
    const VoxelGrid& g = view.grid;
    const size_t c = size_t(z) * g.size_x + x;
    const size_t end = g.column_offsets[c + 1];
    size_t nb[4], ne[4], cursor[4];
    bool inside[4];
    for (int dir = 0; dir < 4; ++dir) {
        inside[dir] = view.neighbour(x, z, dir, nb[dir], ne[dir]);
        cursor[dir] = inside[dir] ? nb[dir] : 0;
    }
    for (size_t i = g.column_offsets[c]; i < end; ++i) {
        if (!walkable[i]) continue;
        const int floor = g.spans[i].y_max;
        const int ceiling = view.ceilingOf(i, end);
        for (int dir = 0; dir < 4; ++dir) {
            uint16_t best = kNoLink;
            int best_step = kUnbounded;
            if (inside[dir]) {
                const size_t n_end = ne[dir];
                size_t& k0 = cursor[dir];
                while (k0 < n_end && view.ceilingOf(k0, n_end) - floor < agent.height) ++k0;
                for (size_t k = k0; k < n_end; ++k) {
                    const int n_floor = g.spans[k].y_max;
                    if (ceiling - n_floor < agent.height) break;  // and every span above it
                    if (!walkable[k]) continue;
                    const int n_ceiling = view.ceilingOf(k, n_end);
                    if (std::min(ceiling, n_ceiling) - std::max(floor, n_floor) < agent.height)
                        continue;
                    const int step = std::abs(n_floor - floor);
                    if (step <= agent.climb && step < best_step) {
                        best = uint16_t(k - nb[dir]);
                        best_step = step;
                    }
                }
            }
            links[4 * i + size_t(dir)] = best;
        }
    }
}

// Chamfer 2/3 distance to the boundary, then clears spans closer than the radius.
// `dist`: room for the distances (its capacity kept by the caller).
void erode(const GridView& view, const std::vector<uint16_t>& links, int radius_cells,
           std::vector<uint8_t>& walkable, std::vector<uint16_t>& dist) {
    const VoxelGrid& g = view.grid;
    dist.assign(g.spans.size(), kFar);
    for (size_t i = 0; i < g.spans.size(); ++i) {
        if (!walkable[i]) continue;
        for (int dir = 0; dir < 4; ++dir)
            if (links[4 * i + size_t(dir)] == kNoLink) dist[i] = 0;
    }
    // The span linked from span i of column (x, z) in direction dir, or false.
    auto linked = [&](uint32_t x, uint32_t z, size_t i, int dir, size_t& out) {
        const uint16_t l = links[4 * i + size_t(dir)];
        size_t nb, ne;
        if (l == kNoLink || !view.neighbour(x, z, dir, nb, ne)) return false;
        out = nb + l;
        return true;
    };
    auto relax = [&](uint32_t x, uint32_t z, size_t i, int dir, int diagonal_dir) {
        size_t n, d;
        if (!linked(x, z, i, dir, n)) return;
        dist[i] = uint16_t(std::min<uint32_t>(dist[i], uint32_t(dist[n]) + 2));
        if (!linked(uint32_t(int64_t(x) + kDx[dir]), uint32_t(int64_t(z) + kDz[dir]), n,
                    diagonal_dir, d))
            return;
        dist[i] = uint16_t(std::min<uint32_t>(dist[i], uint32_t(dist[d]) + 3));
    };
    for (uint32_t z = 0; z < g.size_z; ++z) {
        for (uint32_t x = 0; x < g.size_x; ++x) {
            const size_t c = size_t(z) * g.size_x + x;
            for (size_t i = g.column_offsets[c]; i < g.column_offsets[c + 1]; ++i) {
                if (!walkable[i]) continue;
                relax(x, z, i, 0, 3);  // (-1, 0), then (-1, -1)
                relax(x, z, i, 3, 2);  // (0, -1), then (+1, -1)
            }
        }
    }
    for (uint32_t z = g.size_z; z-- > 0;) {
        for (uint32_t x = g.size_x; x-- > 0;) {
            const size_t c = size_t(z) * g.size_x + x;
            for (size_t i = g.column_offsets[c + 1]; i-- > g.column_offsets[c];) {
                if (!walkable[i]) continue;
                relax(x, z, i, 2, 1);  // (+1, 0), then (+1, +1)
                relax(x, z, i, 1, 0);  // (0, +1), then (-1, +1)
            }
        }
    }
    const uint32_t threshold = uint32_t(std::min(2 * radius_cells, int(kFar)));
    for (size_t i = 0; i < g.spans.size(); ++i)
        if (walkable[i] && dist[i] < threshold) walkable[i] = 0;
}

// With `stored`, the triangles are those (checked as they are decoded), not the geometry's.
Status checkGeometry(const geometry::Geometry& g, const geometry::StoredTriangles* stored) {
    if (g.vertices.size() % 3 != 0 || g.triangles.size() % 3 != 0 ||
        g.triangle_areas.size() != g.triangleCount() ||
        (stored != nullptr && !g.triangle_areas.empty()))
        return inputError(
            "geometry: inconsistent array sizes ({} vertex floats, {} indices, {} "
            "triangle areas)",
            g.vertices.size(), g.triangles.size(), g.triangle_areas.size());
    if ((stored != nullptr ? stored->count() : g.triangleCount()) == 0)
        return inputError("geometry has no triangles; nothing to voxelize");
    if (g.areas.empty() || g.areas.size() > size_t(kMaxAreas))
        return inputError("geometry: {} area types (1 to {} supported)", g.areas.size(), kMaxAreas);
    for (size_t i = 0; i < g.vertices.size(); ++i)
        if (!std::isfinite(g.vertices[i]))
            return inputError("geometry: vertex {} has a non-finite coordinate", i / 3);
    const size_t vertex_count = g.vertexCount();
    for (size_t t = 0; t < g.triangleCount(); ++t) {
        for (int k = 0; k < 3; ++k)
            if (g.triangles[3 * t + size_t(k)] >= vertex_count)
                return inputError("geometry: triangle {} uses vertex {} of {}", t,
                                  g.triangles[3 * t + size_t(k)], vertex_count);
        if (g.triangle_areas[t] >= g.areas.size())
            return inputError("geometry: triangle {} has area id {} of {}", t, g.triangle_areas[t],
                              g.areas.size());
    }
    return {};
}

// A box (bake bounds, modifier volume) as a parameter: finite, min < max on every axis.
void checkBox(ParamCheck& check, const std::string& field, const geometry::Bounds& b) {
    bool ok = true;
    for (size_t a = 0; a < 3; ++a)
        ok = ok && std::isfinite(b.min[a]) && std::isfinite(b.max[a]) && b.min[a] < b.max[a];
    check.require(ok, field,
                  fmt::format("min ({}, {}, {}) max ({}, {}, {})", b.min[0], b.min[1], b.min[2],
                              b.max[0], b.max[1], b.max[2]),
                  "finite, min < max on every axis");
}

}  // namespace

AgentCells agentCells(const AgentParams& agent, float cell_size, float cell_height) {
    AgentCells a;
    a.height =
        std::max(1, metresToCells(agent.height, cell_height, CellRounding::up, int(kMaxCellsY)));
    a.climb = metresToCells(agent.climb, cell_height, CellRounding::down, int(kMaxCellsY));
    a.radius = metresToCells(agent.radius, cell_size, CellRounding::up, 30000);
    return a;
}

ParamIssues checkVoxelizeParams(const VoxelizeParams& p) {
    ParamCheck check;
    check.positive("cell_size", p.cell_size);
    check.positive("cell_height", p.cell_height);
    check.positive("agent_height", p.agent.height);
    check.nonNegative("agent_radius", p.agent.radius);
    check.nonNegative("agent_climb", p.agent.climb);
    check.range("max_slope", p.agent.max_slope_deg, 0.0f, 90.0f, "degrees");
    check.threads("threads", p.threads);
    check.require(p.column_block >= 16, "column_block", fmt::format("{}", p.column_block),
                  ">= 16 cells");
    for (size_t i = 0; i < p.bounds.size(); ++i)
        checkBox(check, fmt::format("bounds[{}]", i), p.bounds[i]);
    for (const auto& [name, cost] : p.area_costs) check.positive("area_costs." + name, cost);
    for (size_t i = 0; i < p.volumes.size(); ++i) {
        const std::string field = fmt::format("volumes[{}]", i);
        checkBox(check, field, p.volumes[i].box);
        check.positive(field + ".cost_factor", p.volumes[i].cost_factor);
        bool finite = true;
        for (const geometry::Plane& q : p.volumes[i].planes)
            for (float v : q) finite = finite && std::isfinite(v);
        check.require(finite, field + ".planes", "a non-finite plane", "finite numbers");
    }
    for (size_t i = 0; i < p.area_mask.size(); ++i)
        for (size_t k = 0; k < i; ++k)
            check.require(p.area_mask[k] != p.area_mask[i], "area_mask", p.area_mask[i],
                          "each area once");
    if (check.issues.empty()) {
        // Agent sizes that the grid's integer heights cannot represent.
        check.require(p.agent.height >= p.cell_height, "agent_height",
                      fmt::format("{}", p.agent.height),
                      fmt::format("at least one cell height ({} m): no agent that small can be "
                                  "represented",
                                  p.cell_height));
        check.require(double(p.agent.height) / p.cell_height <= kMaxCellsY, "agent_height",
                      fmt::format("{}", p.agent.height),
                      fmt::format("at most {} cells of {} m", kMaxCellsY, p.cell_height));
        check.require(double(p.agent.climb) / p.cell_height <= kMaxCellsY, "agent_climb",
                      fmt::format("{}", p.agent.climb),
                      fmt::format("at most {} cells of {} m", kMaxCellsY, p.cell_height));
        check.require(double(p.agent.radius) / p.cell_size <= 30000, "agent_radius",
                      fmt::format("{}", p.agent.radius),
                      fmt::format("at most 30000 cells of {} m", p.cell_size));
    }
    return check.issues;
}

Status checkParams(const VoxelizeParams& params) {
    return paramError("voxelization parameters", checkVoxelizeParams(params));
}

namespace {

// Rows of the finished grid, in order: the spans of columns row0 .. row1-1 (z) times x0 .. x1-1
// (x; the whole rows, 0 .. size_x-1, wherever a stage sees them), and the number of spans of each.
struct FinishedRows {
    uint32_t row0 = 0;
    uint32_t row1 = 0;
    uint32_t x0 = 0, x1 = 0;
    std::vector<Span> spans;
    std::vector<uint32_t> counts;
};
using RowSink = std::function<Status(FinishedRows&)>;

// The grid a geometry voxelizes into (no spans yet) and the frame rasterization works in.
struct Shape {
    VoxelGrid grid;
    Frame frame;
};

Result<Shape> gridShape(const geometry::Geometry& geometry, const geometry::StoredTriangles* stored,
                        const VoxelizeParams& params) {
    if (Status s = checkGeometry(geometry, stored); !s) return s.error();
    const double cs = params.cell_size;
    const double ch = params.cell_height;
    // (A strips layout has no vertices: its header's bounds are its corners'.)
    const geometry::Bounds bounds =
        stored != nullptr && stored->strips() ? stored->bounds() : geometry.bounds();
    Shape shape;
    VoxelGrid& grid = shape.grid;
    grid.source = formats::VoxelSource::mesh;
    grid.origin[0] = bounds.min[0];
    grid.origin[1] = bounds.min[1] - params.cell_height;
    grid.origin[2] = bounds.min[2];
    grid.cell_size = params.cell_size;
    grid.cell_height = params.cell_height;
    grid.agent = params.agent;
    grid.areas = geometry.areas;
    grid.links = geometry.links;  // scene-object links travel on to the graph stage
    for (const geometry::SceneMarker& m : geometry.markers)  // so do the markers later stages use
        if (m.kind != geometry::MarkerKind::bounds && m.kind != geometry::MarkerKind::volume)
            grid.markers.push_back(m);

    Frame& frame = shape.frame;
    for (int a = 0; a < 3; ++a) frame.origin[a] = grid.origin[a];
    frame.cell_size = cs;
    frame.cell_height = ch;
    frame.cos_slope = std::cos(double(params.agent.max_slope_deg) * std::numbers::pi / 180.0);
    frame.blocked.resize(geometry.areas.size());
    for (size_t a = 0; a < frame.blocked.size(); ++a)
        frame.blocked[a] = a == geometry::kObstacleArea || !geometry.areas[a].walkable;

    frame.agent = agentCells(params.agent, params.cell_size, params.cell_height);
    const double size_x = std::max(1.0, std::ceil(toCell(frame, 0, bounds.max[0])));
    const double size_z = std::max(1.0, std::ceil(toCell(frame, 2, bounds.max[2])));
    const double top_cells = std::max(1.0, std::ceil(toCell(frame, 1, bounds.max[1])));
    if (size_x * size_z > double(kMaxColumns))
        return makeError(ErrorKind::usage,
                         "voxelize: the level is {:.1f} x {:.1f} m; at cell size {} m that is {} x "
                         "{} = {} columns, more than the limit of {}; use a larger cell size",
                         bounds.max[0] - bounds.min[0], bounds.max[2] - bounds.min[2],
                         params.cell_size, size_x, size_z, size_x * size_z, kMaxColumns);
    if (top_cells + 1 + frame.agent.height > double(kMaxCellsY))
        return makeError(ErrorKind::usage,
                         "voxelize: the level is {:.1f} m tall; at cell height {} m it needs {} "
                         "cells (plus {} for the agent's clearance), more than the limit of {}; "
                         "use a larger cell height",
                         bounds.max[1] - bounds.min[1], params.cell_height, top_cells,
                         frame.agent.height, kMaxCellsY);
    grid.size_x = uint32_t(size_x);
    grid.size_z = uint32_t(size_z);
    frame.size_x = grid.size_x;
    frame.size_z = grid.size_z;
    frame.top_cells = int(top_cells) + 1;  // room for a downward face on the top boundary
    grid.size_y = uint32_t(frame.top_cells + frame.agent.height);
    return shape;
}

// The winding warning: triangles face down within the max slope and none up.
void warnIfWoundClockwise(Context& context, uint64_t up, uint64_t down) {
    if (up == 0 && down > 0)
        context.warn(
            "voxelize: no triangle faces up within the max slope but {} face down; is the mesh "
            "wound clockwise (normals flipped)?",
            down);
}

// Rasterizes, filters and erodes the geometry row band by row band and hands the finished rows
// to `sink` in order. Only a window of bands is held: a chunk of 4 bands (or twice the halo) is
// finished from the bands within `halo` rows of it (filters look one column away, erosion by the
// radius less than radius columns, each through the walkable flags of the columns beside), so its
// result equals the whole grid's; the bands before the window are dropped. Peak memory is the
// geometry, the triangles' band lists and the window, however large the level. (Bands of 8 rows
// in chunks of 4: on the large generated levels bands of 16 in chunks of 8 took 1.1-1.8x the
// memory and no less time; bands of 4 rows were 1.1-1.2x slower.)
// The tasks voxelizeRows runs (its progress steps).
uint64_t rowTasks(const Frame& frame, const geometry::StoredStrips* strips) {
    const uint32_t band_count = (frame.size_z + kBandRows - 1) / kBandRows;
    const uint32_t halo_bands = (uint32_t(frame.agent.radius) + 3 + kBandRows - 1) / kBandRows;
    const uint32_t chunk_bands = std::max<uint32_t>(4, 2 * halo_bands);
    const uint32_t chunk_count = (band_count + chunk_bands - 1) / chunk_bands;
    return uint64_t(band_count) + 2 * uint64_t(chunk_count) +
           (strips != nullptr ? strips->stripCount() : 0);
}

// Only `range`'s columns: the strips' triangles that meet its rasterized columns, and its
// handed-on columns to `sink` (the geometry's own triangles: the whole rows only). Progress goes
// on from progress_done towards progress_total; with strips, the triangles facing up and down
// within the max slope are counted into `facing` (for the winding warning; the other layout
// warns itself).
Status voxelizeRows(const std::vector<float>& vertices, const TriangleBlocks& blocks,
                    const geometry::StoredStrips* strips, const Frame& frame,
                    const ColumnRange& range, int threads, Context& context,
                    uint64_t& progress_done, uint64_t progress_total, uint64_t facing[2],
                    const RowSink& sink) {
    if (strips == nullptr && (range.raster0 != 0 || range.raster1 != frame.size_x))
        return makeError(ErrorKind::internal, "voxelize: column ranges need the strips layout");
    const uint32_t width = range.width();
    const uint32_t band_count = (frame.size_z + kBandRows - 1) / kBandRows;
    const bool erode_radius = frame.agent.radius > 0;
    const uint32_t halo_rows = uint32_t(frame.agent.radius) + 3;
    const uint32_t halo_bands = (halo_rows + kBandRows - 1) / kBandRows;
    const uint32_t chunk_bands = std::max<uint32_t>(4, 2 * halo_bands);
    const uint32_t chunk_count = (band_count + chunk_bands - 1) / chunk_bands;
    auto windowOf = [&](uint32_t chunk, uint32_t& lo, uint32_t& b0, uint32_t& b1, uint32_t& hi) {
        b0 = chunk * chunk_bands;
        b1 = std::min(band_count, b0 + chunk_bands);
        lo = b0 > halo_bands ? b0 - halo_bands : 0;
        hi = std::min(band_count, b1 + halo_bands);
    };
    const uint64_t strip_count = strips != nullptr ? strips->stripCount() : 0;

    // ---- Each band's triangles (those whose rows meet it), in ascending index order, as
    // TriangleRef records (band list format above), from one pass over the triangles in blocks:
    // each block's pieces encoded in parallel, their segments appended in order. ----
    BandLists band_lists(band_count);
    if (strips == nullptr) {
        ScopedTimer timer(context, "voxelize: prepare");
        constexpr size_t kPiece = 2048;  // triangles a segment at most
        // One band's segment of a piece: the band, its bytes, and the previous triangle's first
        // corner and area (what the next one is coded against).
        struct Segment {
            uint32_t band = 0;
            std::vector<uint8_t> bytes;
            uint32_t last = 0;
            uint8_t last_area = 0;
        };
        struct Piece {
            std::vector<int32_t> slot;      // per band: its segment in `segments`, -1 none
            std::vector<Segment> segments;  // [0, used) in use (the rest keep their room)
            size_t used = 0;
            uint64_t up = 0, down = 0;
        };
        // Two blocks in flight: while the calling thread decodes the next block (the visitor's
        // caller), helper threads encode the pieces of the one before; the calling thread then
        // helps finish them and appends them to the band lists, in order.
        struct Slot {
            std::vector<uint32_t> corners;  // the block's, copied (a visit's spans do not last)
            std::vector<uint8_t> areas;
            std::vector<Piece> pieces;
            size_t piece_count = 0, next_piece = 0, done_pieces = 0;
            uint64_t block = 0;  // its number, for oldest-first hand-out
        };
        Slot slots[2];
        std::mutex mutex;
        std::condition_variable changed;
        bool closing = false;
        std::exception_ptr failure;
        auto encodePiece = [&](Slot& slot, size_t index) {
            Piece& piece = slot.pieces[index];
            piece.used = 0;
            piece.up = piece.down = 0;
            const std::vector<uint32_t>& corners = slot.corners;
            const std::vector<uint8_t>& areas = slot.areas;
            const size_t end = std::min(areas.size(), (index + 1) * kPiece);
            for (size_t i = index * kPiece; i < end; ++i) {
                const TriangleRef ref{{corners[3 * i], corners[3 * i + 1], corners[3 * i + 2]},
                                      areas[i]};
                uint32_t row0, row1;
                bool up, down;
                triangleRows(frame, vertices, ref, row0, row1, up, down);
                piece.up += up;
                piece.down += down;
                const uint32_t second = zigzag(ref.corner[1] - ref.corner[0]);
                const uint32_t third = zigzag(ref.corner[2] - ref.corner[0]);
                for (uint32_t b = row0 / kBandRows; b <= row1 / kBandRows; ++b) {
                    int32_t& at_band = piece.slot[b];
                    if (at_band < 0) {
                        at_band = int32_t(piece.used++);
                        if (piece.segments.size() < piece.used) piece.segments.emplace_back();
                        Segment& fresh = piece.segments[size_t(at_band)];
                        fresh.band = b;
                        fresh.bytes.clear();
                        fresh.last = 0;
                        fresh.last_area = 0;
                    }
                    Segment& segment = piece.segments[size_t(at_band)];
                    const bool new_area = ref.area != segment.last_area;
                    const uint64_t lead =
                        uint64_t(zigzag(ref.corner[0] - segment.last)) << 1 | uint64_t(new_area);
                    segment.last = ref.corner[0];
                    segment.last_area = ref.area;
                    std::vector<uint8_t>& bytes = segment.bytes;
                    const size_t at = bytes.size();
                    bytes.resize(at + 16);
                    uint8_t* out = bytes.data() + at;
                    for (uint64_t v : {lead, uint64_t(second), uint64_t(third)}) putVarint(out, v);
                    if (new_area) *out++ = ref.area;
                    bytes.resize(size_t(out - bytes.data()));
                }
            }
        };
        // Takes the next piece to encode (oldest block first) under the lock, or nullptr.
        auto takePiece = [&](size_t& index) -> Slot* {
            Slot* oldest = nullptr;
            for (Slot& slot : slots)
                if (slot.next_piece < slot.piece_count && (!oldest || slot.block < oldest->block))
                    oldest = &slot;
            if (oldest) index = oldest->next_piece++;
            return oldest;
        };
        // Encodes one taken piece and records it (any thread); a failure is kept for the caller.
        auto encodeTaken = [&](Slot& slot, size_t index, std::unique_lock<std::mutex>& lock) {
            lock.unlock();
            std::exception_ptr error;
            try {
                encodePiece(slot, index);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            if (error && !failure) failure = error;
            ++slot.done_pieces;
            changed.notify_all();
        };
        std::vector<std::thread> helpers;
        auto helper = [&] {
            std::unique_lock<std::mutex> lock(mutex);
            while (true) {
                size_t index = 0;
                Slot* slot = nullptr;
                changed.wait(lock, [&] { return closing || (slot = takePiece(index)) != nullptr; });
                if (!slot) return;
                encodeTaken(*slot, index, lock);
            }
        };
        for (int i = 1; i < threads; ++i) {
            try {
                helpers.emplace_back(helper);
            } catch (const std::system_error&) {
                break;  // fewer helpers; the same bytes
            }
        }
        const StopAndJoin join{helpers, mutex, changed, closing};  // however prepare ends
        uint64_t facing_up = 0, facing_down = 0;
        uint64_t block_count = 0;
        // Block `block`'s pieces all encoded (the calling thread helping), then appended.
        auto complete = [&](uint64_t block) -> Status {
            Slot& slot = slots[block % 2];
            {
                std::unique_lock<std::mutex> lock(mutex);
                while (slot.next_piece < slot.piece_count) {
                    const size_t index = slot.next_piece++;
                    encodeTaken(slot, index, lock);
                }
                changed.wait(lock, [&] { return slot.done_pieces == slot.piece_count; });
                if (failure) return errorFromException("voxelize", failure);
            }
            for (size_t index = 0; index < slot.piece_count; ++index) {
                Piece& piece = slot.pieces[index];
                facing_up += piece.up;
                facing_down += piece.down;
                for (size_t k = 0; k < piece.used; ++k) {
                    const Segment& segment = piece.segments[k];
                    uint8_t header[10];
                    uint8_t* out = header;
                    putVarint(out, segment.bytes.size());
                    band_lists.append(segment.band, header, size_t(out - header));
                    band_lists.append(segment.band, segment.bytes.data(), segment.bytes.size());
                    piece.slot[segment.band] = -1;
                }
            }
            return {};
        };
        Status s = blocks([&](uint64_t, std::span<const uint32_t> corners,
                              std::span<const uint8_t> areas) -> Status {
            if (context.cancelled()) return makeError(ErrorKind::cancelled, "voxelize: cancelled");
            const uint64_t block = block_count++;
            Slot& slot = slots[block % 2];  // free: its block was completed two visits ago
            slot.corners.assign(corners.begin(), corners.end());
            slot.areas.assign(areas.begin(), areas.end());
            const size_t piece_count = (areas.size() + kPiece - 1) / kPiece;
            while (slot.pieces.size() < piece_count)
                slot.pieces.push_back({std::vector<int32_t>(band_count, -1), {}, 0, 0, 0});
            {
                std::lock_guard<std::mutex> lock(mutex);
                slot.block = block;
                slot.piece_count = piece_count;
                slot.next_piece = slot.done_pieces = 0;
            }
            changed.notify_all();
            return block > 0 ? complete(block - 1) : Status{};
        });
        if (s && block_count > 0) s = complete(block_count - 1);
        if (!s) return s.error();
        warnIfWoundClockwise(context, facing_up, facing_down);
    }

    // ---- The strips layout: the band lists are filled a strip at a time, just ahead of the
    // bands that need it (a distribute task, one at a time, in strip order): each triangle of a
    // strip goes to the lists of the bands its rows meet, as a record with its corners inline, from
    // the one strip of its copies that the band takes (geometry::takesCopy; a band reads the
    // strips its rows meet, grown by a cell each way). A band is rasterized once every strip up to
    // its last is distributed; later strips give it nothing. ----
    std::vector<uint32_t> strips_needed(band_count, 0);  // per band: strips [0, n) distributed
    std::vector<int64_t> band_first_strip(band_count, 0);
    uint64_t strip_up = 0, strip_down = 0;
    if (strips != nullptr) {
        const double size = strips->stripSize();
        for (uint32_t b = 0; b < band_count; ++b) {
            const double z0 = frame.origin[2] + (double(b * kBandRows) - 1.0) * frame.cell_size;
            const double z1 =
                frame.origin[2] +
                (double(std::min(frame.size_z, (b + 1) * kBandRows)) + 1.0) * frame.cell_size;
            band_first_strip[b] = int64_t(std::floor(z0 / size));
            const int64_t last = int64_t(std::floor(z1 / size));
            uint32_t n = b > 0 ? strips_needed[b - 1] : 0;  // (bands' ends only grow)
            while (n < strips->stripCount() && strips->stripIndex(n) <= last) ++n;
            strips_needed[b] = n;
        }
    }
    std::vector<uint8_t> distribute_record(geometry::kStripRecordSize);
    // The strips' blocks that can meet the rasterized columns (a cell of margin each way; a side
    // of the grid: no bound).
    const float inf = std::numeric_limits<float>::infinity();
    const float x_lo =
        range.raster0 == 0
            ? -inf
            : float(frame.origin[0] + (double(range.raster0) - 1.0) * frame.cell_size);
    const float x_hi =
        range.raster1 == frame.size_x
            ? inf
            : float(frame.origin[0] + (double(range.raster1) + 1.0) * frame.cell_size);
    auto distribute = [&](uint32_t number) -> Status {
        const int64_t strip = strips->stripIndex(number);
        const float size = strips->stripSize();
        return strips->forEach(
            number,
            [&](std::span<const geometry::StripTriangle> records) {
                for (const geometry::StripTriangle& t : records) {
                    // (Those far beside the columns first, by their X in metres: cheaper than
                    // describing them.)
                    if (std::max({t.p[0], t.p[3], t.p[6]}) < x_lo ||
                        std::min({t.p[0], t.p[3], t.p[6]}) > x_hi)
                        continue;
                    const TriangleInfo info = describeTriangle(frame, t);
                    if (info.col1 < range.raster0 || info.col0 >= range.raster1) continue;
                    if (strip == geometry::stripOf(std::min({t.p[2], t.p[5], t.p[8]}), size)) {
                        strip_up += info.up;
                        strip_down += info.down;
                    }
                    std::memcpy(distribute_record.data(), t.p.data(), 36);
                    distribute_record[36] = t.area;
                    for (uint32_t b = info.row0 / kBandRows; b <= info.row1 / kBandRows; ++b)
                        if (geometry::takesCopy(t, size, strip, band_first_strip[b]))
                            band_lists.append(b, distribute_record.data(),
                                              distribute_record.size());
                }
                return Status{};
            },
            x_lo, x_hi);
    };

    std::vector<BandOutput> bands(band_count);  // only the window's are filled
    std::vector<uint8_t> blocked_area(256, 1);
    for (size_t a = 0; a < frame.blocked.size(); ++a) blocked_area[a] = frame.blocked[a];
    std::vector<Scratch> scratch(size_t(std::max(1, threads)));
    // One chunk's rows, finished from the bands of its window (all rasterized), a block of
    // kFinishColumns columns at a time: each block's window holds halo_rows rows and halo_rows
    // columns beyond it on every side (as far as the grid goes), which is as far as the filters
    // and erosion carry a grid edge's effect (see voxelizeRows), so the block's flags equal the
    // whole grid's. (Whole rows at once held a window of the level's width per thread: on the
    // towers 3-4 MiB more, and no faster.)
    // A finished chunk: its spans' final flags (1 byte a span, in the order of its bands' spans)
    // until it is handed on; its spans stay in the bands, which are kept until then.
    struct FinishedChunk {
        std::vector<uint8_t> walkable;
        std::vector<uint32_t> band_base;  // per band of the chunk: its first span's flag
    };
    auto finishChunk = [&](uint32_t chunk, FinishedChunk& done, Scratch& work) {
        uint32_t lo, b0, b1, hi;
        windowOf(chunk, lo, b0, b1, hi);
        const uint32_t window0 = b0 * kBandRows > halo_rows ? b0 * kBandRows - halo_rows : 0;
        const uint32_t window1 = std::min(frame.size_z, b1 * kBandRows + halo_rows);
        const uint32_t row0 = b0 * kBandRows;
        const uint32_t row1 = std::min(frame.size_z, b1 * kBandRows);
        std::vector<uint32_t>& band_base = done.band_base;
        band_base.clear();
        size_t chunk_spans = 0;
        for (uint32_t b = b0; b < b1; ++b) {
            band_base.push_back(uint32_t(chunk_spans));
            chunk_spans += bands[b].spans.size();
        }
        reserveExactly(done.walkable, chunk_spans);
        done.walkable.resize(chunk_spans);
        VoxelGrid& local = work.local;
        for (uint32_t x0 = range.out0; x0 < range.out1; x0 += kFinishColumns) {
            const uint32_t x1 = std::min(range.out1, x0 + kFinishColumns);
            const uint32_t wx0 = std::max(range.raster0, x0 > halo_rows ? x0 - halo_rows : 0);
            const uint32_t wx1 = std::min(range.raster1, x1 + halo_rows);
            // ---- The block's window as a grid of its own. ----
            local.spans.clear();
            local.column_offsets.clear();
            local.size_x = wx1 - wx0;
            local.size_z = window1 - window0;
            local.column_offsets.reserve(local.columnCount() + 1);
            for (uint32_t z = window0; z < window1; ++z) {
                const BandOutput& band = bands[z / kBandRows];
                const size_t c0 = size_t(z % kBandRows) * width - range.raster0;
                const uint32_t s0 = band.offsets[c0 + wx0], s1 = band.offsets[c0 + wx1];
                const uint32_t base = uint32_t(local.spans.size()) - s0;
                for (size_t c = c0 + wx0; c < c0 + wx1; ++c)
                    local.column_offsets.push_back(base + band.offsets[c]);
                local.spans.insert(local.spans.end(), band.spans.begin() + ptrdiff_t(s0),
                                   band.spans.begin() + ptrdiff_t(s1));
            }
            local.column_offsets.push_back(uint32_t(local.spans.size()));
            // ---- Filters, connectivity and erosion on the window. ----
            const GridView view{local};
            std::vector<uint8_t>& walkable = work.walkable;
            walkable.assign(local.spans.size(), 0);
            for (uint32_t z = 0; z < local.size_z; ++z)
                for (uint32_t x = 0; x < local.size_x; ++x)
                    filterColumn(view, blocked_area, x, z, frame.agent, walkable);
            if (erode_radius) {
                std::vector<uint16_t>& links = work.links;
                links.assign(4 * local.spans.size(), kNoLink);
                for (uint32_t z = 0; z < local.size_z; ++z)
                    for (uint32_t x = 0; x < local.size_x; ++x)
                        connectColumn(view, x, z, frame.agent, walkable, links);
                erode(view, links, frame.agent.radius, walkable, work.dist);
            }
            // ---- The block's flags into the chunk's. ----
            for (uint32_t z = row0; z < row1; ++z) {
                const BandOutput& band = bands[z / kBandRows];
                const size_t c0 = size_t(z % kBandRows) * width - range.raster0;
                const uint32_t out = band_base[z / kBandRows - b0] + band.offsets[c0 + x0];
                const size_t lc = size_t(z - window0) * local.size_x + (x0 - wx0);
                const uint32_t from = local.column_offsets[lc];
                const uint32_t to = local.column_offsets[lc + (x1 - x0)];
                for (uint32_t i = from; i < to; ++i) done.walkable[out + (i - from)] = walkable[i];
            }
        }
    };

    // Three kinds of task, each taken as soon as it can start (no barrier between phases):
    // rasterize band b (in order, at most the windows of `ahead` chunks past the oldest unfinished
    // one: that bounds the bands held), finish chunk c (in order, once its window's bands are
    // rasterized and one of `slots` result slots is free: its spans' flags go there) and hand
    // chunk c's rows on (in order, on the calling thread, which also logs; a band at a time, from
    // the bands, kept until then, and the chunk's flags: a copy of the chunk's spans per slot
    // held 0.8-2 MiB more). Each result depends on its band or chunk alone.
    // (ahead = threads: on 2 threads one less was 1.3x slower, a worker starved waiting for the
    // oldest chunk; one more was no faster and held more bands. Against the waves of one chunk
    // per thread with a barrier after each phase this was: 0.8x the wall time on the towers.)
    const uint32_t workers = uint32_t(std::max(1, threads));
    const uint32_t ahead = workers;
    const uint32_t slots = workers + 1;
    enum Kind : uint64_t { kRaster = 0, kFinish = 1, kSink = 2, kDistribute = 3 };
    std::vector<FinishedChunk> finished(slots);
    FinishedRows band_rows;  // a band of a chunk handed on: its spans with their final flags
    std::vector<uint8_t> band_done(band_count, 0), chunk_done(chunk_count, 0);
    uint32_t next_band = 0;        // bands [0, next_band) taken
    uint32_t bands_ready = 0;      // bands [0, bands_ready) rasterized
    uint32_t next_finish = 0;      // chunks [0, next_finish) taken to be finished
    uint32_t chunks_finished = 0;  // chunks [0, chunks_finished) finished
    uint32_t next_sink = 0;        // chunks [0, next_sink) handed on
    uint32_t dropped = 0;          // bands [0, dropped) dropped
    bool sinking = false;
    std::vector<BandOutput> spare;  // dropped bands' offset arrays, their room kept for new ones
    std::vector<double> task_ms(4, 0.0);
    uint32_t strips_done = 0;  // strips [0, strips_done) distributed
    bool distributing = false;
    std::mutex time_mutex;
    auto windowHi = [&](uint32_t chunk) {
        uint32_t lo, b0, b1, hi;
        windowOf(std::min(chunk, chunk_count - 1), lo, b0, b1, hi);
        return hi;
    };
    auto pick = [&](int worker) -> Pick {
        if (next_sink == chunk_count) return Pick::finished();
        if (worker == 0 && !sinking && chunk_done[next_sink]) {
            sinking = true;
            return Pick::task(uint64_t(next_sink) << 2 | kSink);
        }
        if (next_finish < chunk_count && next_finish < next_sink + slots &&
            bands_ready >= windowHi(next_finish))
            return Pick::task(uint64_t(next_finish++) << 2 | kFinish);
        const uint32_t band_limit = std::min(band_count, windowHi(chunks_finished + ahead - 1));
        if (strips != nullptr && !distributing && strips_done < strip_count &&
            next_band < band_limit && strips_done < strips_needed[band_limit - 1]) {
            distributing = true;
            return Pick::task(uint64_t(strips_done) << 2 | kDistribute);
        }
        if (next_band < band_limit &&
            (strips == nullptr || strips_done >= strips_needed[next_band])) {
            if (!spare.empty()) {
                bands[next_band] = std::move(spare.back());
                spare.pop_back();
            }
            return Pick::task(uint64_t(next_band++) << 2 | kRaster);
        }
        return Pick::later();
    };
    auto run = [&](uint64_t id, int worker) -> Status {
        const uint32_t index = uint32_t(id >> 2);
        const auto t0 = std::chrono::steady_clock::now();
        Scratch& work = scratch[size_t(worker)];
        switch (Kind(id & 3)) {
            case kRaster: {
                // The band's rows in two passes over its list (each pass's raw spans merged
                // before the next: half the raw spans held), each triangle cut from the band's
                // first row as in one pass, so the spans are the same.
                const uint32_t b = index;
                const uint32_t row0 = b * kBandRows;
                const uint32_t row1 = std::min(frame.size_z, row0 + kBandRows);
                std::vector<uint8_t>& list = work.list;
                band_lists.gather(b, list);
                band_lists.release(b);
                // Per triangle of the list: whether it reaches past the current pass (only those
                // are described again in the next).
                std::vector<uint8_t>& later = work.later;
                later.clear();
                for (uint32_t pass0 = row0; pass0 < row1; pass0 += kPassRows) {
                    const uint32_t pass1 = std::min(row1, pass0 + kPassRows);
                    std::vector<RawSpan>& raw = work.raw;
                    raw.clear();
                    const uint8_t* in = list.data();
                    const uint8_t* const end = in + list.size();
                    size_t triangle = 0;
                    auto take = [&](const TriangleInfo& info) {
                        if (pass0 == row0) later.push_back(0);
                        later[triangle++] = info.row1 >= pass1;
                        if (info.row0 < pass1 && info.row1 >= pass0)
                            rasterizeTriangle(frame, range, info, row0, pass0, pass1, raw);
                    };
                    if (strips != nullptr) {  // records with their corners inline
                        geometry::StripTriangle t;
                        for (; in < end; in += geometry::kStripRecordSize) {
                            if (pass0 > row0 && !later[triangle]) {
                                ++triangle;
                                continue;
                            }
                            std::memcpy(t.p.data(), in, 36);
                            t.area = in[36];
                            take(describeTriangle(frame, t));
                        }
                    }
                    while (in < end) {
                        const uint64_t length = getVarint(in);
                        const uint8_t* const segment_end = in + length;
                        TriangleRef ref{{0, 0, 0}, 0};
                        while (in < segment_end) {
                            const uint64_t lead = getVarint(in);
                            ref.corner[0] += unzigzag(uint32_t(lead >> 1));
                            ref.corner[1] = ref.corner[0] + unzigzag(uint32_t(getVarint(in)));
                            ref.corner[2] = ref.corner[0] + unzigzag(uint32_t(getVarint(in)));
                            if (lead & 1) ref.area = *in++;
                            if (pass0 > row0 && !later[triangle]) {
                                ++triangle;
                                continue;
                            }
                            take(describeTriangle(frame, vertices, ref, work.cells));
                        }
                    }
                    mergeBand(raw, (pass1 - pass0) * width, frame.agent.climb,
                              (pass0 - row0) * width, bands[b], work);
                }
                break;
            }
            case kFinish: finishChunk(index, finished[index % slots], work); break;
            case kDistribute:
                if (Status d = distribute(index); !d) return d;
                break;
            case kSink: {
                // The chunk's bands one at a time, each with the chunk's flags.
                FinishedChunk& chunk = finished[index % slots];
                uint32_t lo, b0, b1, hi;
                windowOf(index, lo, b0, b1, hi);
                for (uint32_t b = b0; b < b1; ++b) {
                    const BandOutput& band = bands[b];
                    band_rows.row0 = b * kBandRows;
                    band_rows.row1 = std::min(frame.size_z, band_rows.row0 + kBandRows);
                    band_rows.x0 = range.out0;
                    band_rows.x1 = range.out1;
                    // Each row's handed-on columns (all of the band's when it rasterized only
                    // those), their spans with the chunk's flags.
                    const uint8_t* flags = chunk.walkable.data() + chunk.band_base[b - b0];
                    const uint32_t skip = range.out0 - range.raster0;
                    const uint32_t columns = range.out1 - range.out0;
                    size_t total = 0;
                    for (uint32_t r = 0; r < band_rows.row1 - band_rows.row0; ++r) {
                        const uint32_t* at = band.offsets.data() + size_t(r) * width + skip;
                        total += at[columns] - at[0];
                    }
                    reserveExactly(band_rows.spans, total);
                    band_rows.counts.resize(size_t(band_rows.row1 - band_rows.row0) * columns);
                    for (uint32_t r = 0; r < band_rows.row1 - band_rows.row0; ++r) {
                        const uint32_t* at = band.offsets.data() + size_t(r) * width + skip;
                        for (uint32_t c = 0; c < columns; ++c)
                            band_rows.counts[size_t(r) * columns + c] = at[c + 1] - at[c];
                        const size_t first = band_rows.spans.size();
                        band_rows.spans.insert(band_rows.spans.end(),
                                               band.spans.begin() + ptrdiff_t(at[0]),
                                               band.spans.begin() + ptrdiff_t(at[columns]));
                        for (uint32_t i = at[0]; i < at[columns]; ++i)
                            band_rows.spans[first + (i - at[0])].walkable = flags[i] != 0;
                    }
                    if (Status out = sink(band_rows); !out) return out;
                }
                return {};
            }
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        std::lock_guard<std::mutex> lock(time_mutex);
        task_ms[size_t(id & 3)] += ms;
        return {};
    };
    // Bands below the oldest unfinished chunk's window and the oldest chunk not handed on (whose
    // spans the hand-on reads from its bands) are done with.
    auto dropDone = [&] {
        uint32_t keep = uint32_t(std::min<uint64_t>(band_count, uint64_t(next_sink) * chunk_bands));
        if (chunks_finished < chunk_count) {
            uint32_t lo, b0, b1, hi;
            windowOf(chunks_finished, lo, b0, b1, hi);
            keep = std::min(keep, lo);
        }
        for (; dropped < keep; ++dropped) {
            spare.push_back(std::move(bands[dropped]));
            spare.back().spans = std::vector<Span>();  // sized anew for each band (mergeBand)
            bands[dropped] = BandOutput{};
        }
    };
    auto complete = [&](uint64_t id, int) {
        const uint32_t index = uint32_t(id >> 2);
        switch (Kind(id & 3)) {
            case kRaster:
                band_done[index] = 1;
                while (bands_ready < band_count && band_done[bands_ready]) ++bands_ready;
                break;
            case kFinish:
                chunk_done[index] = 1;
                while (chunks_finished < chunk_count && chunk_done[chunks_finished])
                    ++chunks_finished;
                dropDone();
                break;
            case kSink:
                sinking = false;
                ++next_sink;
                dropDone();
                break;
            case kDistribute:
                distributing = false;
                ++strips_done;
                break;
        }
    };
    if (Status s = runDynamic("voxelize", int(workers), context, progress_done, progress_total,
                              pick, run, complete);
        !s)
        return s.error();
    context.debug(
        "voxelize: rasterize: {:.1f} ms; filters and erosion: {:.1f} ms; strips: {:.1f} ms "
        "(summed over threads)",
        task_ms[kRaster], task_ms[kFinish], task_ms[kDistribute]);
    facing[0] += strip_up;
    facing[1] += strip_down;
    return {};
}

// The whole grid's rows, in order, to `sink`. A level in the strips layout wider than
// `block` columns and a half is voxelized a block of `block` columns at a time, each block
// rasterizing its columns and the halo beside them (see ColumnRange) from the strips' triangles
// that meet them, so what a block holds is bounded by the block's width however wide the level
// is. Each block's bands are compressed (zstd level 1) into a spill file beside `spill_beside`
// and the blocks' bands are then joined into whole rows, a band at a time. The rows are the same
// as the whole grid's: a column's spans depend on its 64-column segment alone (rasterizeTriangle)
// and its flags on the halo around it.
Status voxelizeColumns(const std::vector<float>& vertices, const TriangleBlocks& blocks,
                       const geometry::StoredStrips* strips, const Frame& frame, int threads,
                       uint32_t block, Context& context, const std::filesystem::path& spill_beside,
                       uint32_t* blocks_out, const RowSink& sink) {
    uint64_t facing[2] = {0, 0};
    const uint64_t tasks = rowTasks(frame, strips);
    uint64_t progress_done = 0;
    if (strips == nullptr || spill_beside.empty() || frame.size_x <= block + block / 2) {
        if (Status s =
                voxelizeRows(vertices, blocks, strips, frame, {0, frame.size_x, 0, frame.size_x},
                             threads, context, progress_done, tasks, facing, sink);
            !s)
            return s;
        if (strips != nullptr) warnIfWoundClockwise(context, facing[0], facing[1]);
        return {};
    }
    const uint32_t halo = uint32_t(frame.agent.radius) + 3;
    const uint32_t block_count = (frame.size_x + block - 1) / block;
    if (blocks_out != nullptr) *blocks_out = block_count;
    auto blockWidth = [&](uint32_t k) { return std::min(block, frame.size_x - k * block); };
    const uint32_t band_count = (frame.size_z + kBandRows - 1) / kBandRows;
    context.debug("voxelize: {} blocks of {} columns", block_count, block);
    auto spill = SpillStore::beside(spill_beside, "blocks");
    if (!spill) return spill.error();
    struct Spilled {
        uint64_t offset = 0;
        uint32_t stored = 0, raw = 0;
    };
    std::vector<Spilled> frames(size_t(block_count) * band_count);  // [band][block]
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> zstd(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!zstd) throw std::bad_alloc();
    std::vector<uint8_t> raw, packed;
    for (uint32_t k = 0; k < block_count; ++k) {
        ColumnRange range;
        range.out0 = k * block;
        range.out1 = std::min(frame.size_x, range.out0 + block);
        range.raster0 = range.out0 > halo ? (range.out0 - halo) / kCutColumns * kCutColumns : 0;
        range.raster1 = std::min(frame.size_x, range.out1 + halo);
        Status s = voxelizeRows(
            vertices, blocks, strips, frame, range, threads, context, progress_done,
            tasks * block_count + band_count, facing, [&](FinishedRows& rows) -> Status {
                const size_t counts = rows.counts.size() * sizeof(uint32_t);
                raw.resize(counts + rows.spans.size() * sizeof(Span));
                std::memcpy(raw.data(), rows.counts.data(), counts);
                if (!rows.spans.empty())
                    std::memcpy(raw.data() + counts, rows.spans.data(),
                                rows.spans.size() * sizeof(Span));
                packed.resize(ZSTD_compressBound(raw.size()));
                const size_t n = ZSTD_compressCCtx(zstd.get(), packed.data(), packed.size(),
                                                   raw.data(), raw.size(), 1);
                if (ZSTD_isError(n))
                    return makeError(ErrorKind::internal, "voxelize: zstd: {}",
                                     ZSTD_getErrorName(n));
                uint64_t at = 0;
                if (Status w = (*spill)->append({packed.data(), n}, at); !w) return w;
                frames[size_t(rows.row0 / kBandRows) * block_count + k] = {at, uint32_t(n),
                                                                           uint32_t(raw.size())};
                return {};
            });
        if (!s) return s;
    }
    warnIfWoundClockwise(context, facing[0], facing[1]);
    context.debug("voxelize: the strips' blocks read {} times, skipped {} times (X extents)",
                  strips->blocksRead(), strips->blocksSkipped());
    // ---- The blocks' bands joined into whole rows, a band at a time. ----
    FinishedRows whole;
    std::vector<std::vector<uint8_t>> decoded(block_count);
    for (uint32_t b = 0; b < band_count; ++b) {
        whole.row0 = b * kBandRows;
        whole.row1 = std::min(frame.size_z, whole.row0 + kBandRows);
        whole.x0 = 0;
        whole.x1 = frame.size_x;
        const uint32_t rows = whole.row1 - whole.row0;
        size_t span_total = 0;
        for (uint32_t k = 0; k < block_count; ++k) {
            const Spilled& f = frames[size_t(b) * block_count + k];
            packed.resize(f.stored);
            if (Status r = (*spill)->read(f.offset, packed.data(), f.stored); !r) return r;
            decoded[k].resize(f.raw);
            const size_t n = ZSTD_decompress(decoded[k].data(), f.raw, packed.data(), f.stored);
            if (ZSTD_isError(n) || n != f.raw)
                return makeError(ErrorKind::io,
                                 "voxelize: a spilled block of columns does not decode");
            span_total += (f.raw - size_t(rows) * blockWidth(k) * 4) / sizeof(Span);
        }
        whole.counts.resize(size_t(rows) * frame.size_x);
        reserveExactly(whole.spans, span_total);
        std::vector<size_t> at(block_count, 0);  // spans of each block taken
        for (uint32_t z = 0; z < rows; ++z)
            for (uint32_t k = 0; k < block_count; ++k) {
                const uint32_t w = blockWidth(k);
                const uint32_t* counts =
                    reinterpret_cast<const uint32_t*>(decoded[k].data()) + size_t(z) * w;
                const Span* spans =
                    reinterpret_cast<const Span*>(decoded[k].data() + size_t(rows) * w * 4);
                size_t n = 0;
                for (uint32_t x = 0; x < w; ++x) n += counts[x];
                std::memcpy(whole.counts.data() + size_t(z) * frame.size_x + size_t(k) * block,
                            counts, size_t(w) * 4);
                whole.spans.insert(whole.spans.end(), spans + at[k], spans + at[k] + n);
                at[k] += n;
            }
        if (Status s = sink(whole); !s) return s;
        context.progress("voxelize", ++progress_done, tasks * block_count + band_count);
    }
    return {};
}

// What voxelize applies to the finished rows of every agent's grid, in order: the bake bounds,
// the modifier volumes, the agent's area mask. Area costs change only the table.
struct SurfaceRules {
    const VoxelizeParams& params;
    std::vector<uint8_t> allowed;  // per area: this agent may walk on it
    std::vector<int> targets;      // per volume: the area it gives, -1 = keep
    std::map<std::pair<uint8_t, float>, uint8_t> derived;  // (area, factor) -> derived area

    // Applies them to `rows` of `grid` (whose table gains derived areas), counting into `out`.
    Status apply(VoxelGrid& grid, FinishedRows& rows, VoxelizeCounts& out) {
        const bool bounded = !params.bounds.empty();
        const bool masked = !params.area_mask.empty();
        if (!bounded && params.volumes.empty() && !masked) return {};
        size_t k = 0;
        for (uint32_t z = rows.row0; z < rows.row1; ++z)
            for (uint32_t x = 0; x < grid.size_x; ++x) {
                const uint32_t count = rows.counts[size_t(z - rows.row0) * grid.size_x + x];
                const double wx = grid.origin[0] + (x + 0.5) * grid.cell_size;
                const double wz = grid.origin[2] + (z + 0.5) * grid.cell_size;
                for (uint32_t e = 0; e < count; ++e, ++k) {
                    Span& span = rows.spans[k];
                    if (!span.walkable) continue;
                    const double wy = double(grid.topY(span));
                    // Walkable only inside a box: the top of the span at its column's centre.
                    if (bounded && std::none_of(params.bounds.begin(), params.bounds.end(),
                                                [&](const geometry::Bounds& b) {
                                                    return b.contains(wx, wy, wz);
                                                })) {
                        span.walkable = false, ++out.outside_bounds;
                        continue;
                    }
                    for (size_t i = 0; i < params.volumes.size() && span.walkable; ++i) {
                        const ModifierVolume& v = params.volumes[i];
                        if (!v.contains(wx, wy, wz)) continue;
                        ++out.in_volumes[i];
                        if (v.forbid) {
                            span.walkable = false;
                            break;
                        }
                        if (targets[i] >= 0) span.area = uint8_t(targets[i]);
                        if (v.cost_factor == 1.0f) continue;
                        auto [it, added] = derived.try_emplace({span.area, v.cost_factor}, 0);
                        if (added) {
                            if (grid.areas.size() >= formats::kMaxAreas)
                                return inputError(
                                    "{}: cost factors need more than {} areas in all; use fewer "
                                    "distinct factors",
                                    v.name, formats::kMaxAreas);
                            geometry::AreaType d = grid.areas[span.area];
                            d.name = fmt::format("{} x{}", d.name, v.cost_factor);
                            d.cost *= v.cost_factor;
                            it->second = uint8_t(grid.areas.size());
                            grid.areas.push_back(d);
                        }
                        span.area = it->second;
                    }
                    if (masked && span.walkable &&
                        (span.area >= allowed.size() || !allowed[span.area]))
                        span.walkable = false, ++out.masked;
                }
            }
        return {};
    }
};

// voxelize and voxelizeToFile: the grid's header (no spans; its area table final) after every
// finished row went through the rules to `sink`.
// With `stored` the triangles are those (the geometry's arrays are empty), and there must be no
// bake bounds (clipping to them needs the triangles whole).
Result<VoxelGrid> voxelizeWith(const geometry::Geometry& geometry,
                               const geometry::StoredTriangles* stored, const VoxelizeParams& given,
                               Context& context, VoxelizeCounts* counts,
                               const std::filesystem::path& spill_beside,
                               const std::function<Status(const VoxelGrid&, FinishedRows&)>& sink) {
    if (Status s = checkParams(given); !s) return s.error();
    const VoxelizeParams params = effectiveParams(geometry, given);
    if (stored != nullptr && !params.bounds.empty())
        return makeError(ErrorKind::internal,
                         "voxelize: bake bounds need the triangles in memory, not stored");
    // Area names first: a typo fails before the work.
    auto areaIndex = [&](const std::string& name) -> Result<size_t> {
        for (size_t a = 0; a < geometry.areas.size(); ++a)
            if (geometry.areas[a].name == name) return a;
        std::string names;
        for (const geometry::AreaType& a : geometry.areas)
            names += (names.empty() ? "" : ", ") + a.name;
        return inputError("voxelize: '{}' is not an area of this level (its areas: {})", name,
                          names);
    };
    SurfaceRules rules{params, {}, {}, {}};
    rules.allowed.assign(geometry.areas.size(), params.area_mask.empty() ? 1 : 0);
    // Unknown names are named where the agent gave them ("level.json: $.agents[1].area_mask[0]").
    for (size_t i = 0; i < params.area_mask.size(); ++i) {
        auto a = areaIndex(params.area_mask[i]);
        if (!a) return inputError("{}[{}]: {}", params.area_mask_where, i, a.error().message);
        rules.allowed[*a] = 1;
    }
    std::vector<std::pair<size_t, float>> costs;
    for (const auto& [name, cost] : params.area_costs) {
        auto a = areaIndex(name);
        if (!a) return inputError("{}.{}: {}", params.area_costs_where, name, a.error().message);
        costs.push_back({*a, cost});
    }
    for (const ModifierVolume& v : params.volumes) {
        rules.targets.push_back(-1);
        if (v.area.empty()) continue;
        auto a = areaIndex(v.area);
        if (!a) return inputError("{}: {}", v.name, a.error().message);
        rules.targets.back() = int(*a);
    }
    VoxelizeCounts local;
    VoxelizeCounts& out = counts != nullptr ? *counts : local;
    out = {};
    out.in_volumes.assign(params.volumes.size(), 0);

    // With bake bounds, only the geometry within the agent's reach of them: the boxes' union,
    // grown by the agent's reach, the geometry clipped to it.
    geometry::Geometry inside;
    if (!params.bounds.empty()) {
        geometry::Bounds reach = params.bounds[0];
        for (const geometry::Bounds& b : params.bounds)
            for (size_t a = 0; a < 3; ++a) {
                reach.min[a] = std::min(reach.min[a], b.min[a]);
                reach.max[a] = std::max(reach.max[a], b.max[a]);
            }
        const AgentCells cells = agentCells(params.agent, params.cell_size, params.cell_height);
        const float grow_xz = float(cells.radius + 2) * params.cell_size;
        const float grow_y = float(cells.height + cells.climb + 2) * params.cell_height;
        for (size_t a = 0; a < 3; ++a) {
            const float grow = a == 1 ? grow_y : grow_xz;
            reach.min[a] -= grow;
            reach.max[a] += grow;
        }
        inside = geometry::clipToBox(geometry, reach);
        if (inside.triangleCount() == 0) {
            const geometry::Bounds all = geometry.bounds();
            return makeError(ErrorKind::bad_input,
                             "voxelize: the bake bounds hold none of the geometry (it spans ({}, "
                             "{}, {}) to ({}, {}, {}))",
                             all.min[0], all.min[1], all.min[2], all.max[0], all.max[1],
                             all.max[2]);
        }
    }
    const geometry::Geometry& source = params.bounds.empty() ? geometry : inside;
    auto shape = gridShape(source, stored, params);
    if (!shape) return shape.error();
    VoxelGrid& grid = shape->grid;
    {
        ScopedTimer total_timer(context, "voxelize");
        context.debug(
            "voxelize: {} x {} x {} cells, agent {} / {} / {} cells (height / climb / radius), "
            "{} threads",
            grid.size_x, grid.size_z, grid.size_y, shape->frame.agent.height,
            shape->frame.agent.climb, shape->frame.agent.radius, resolveThreads(params.threads));
        // The triangles a block at a time (the arrays' blocks are views, the stored ones decoded).
        const TriangleBlocks blocks = [&](const geometry::StoredTriangles::Visit& visit) {
            return stored != nullptr ? stored->forEach(visit)
                                     : geometry::forEachTriangleBlock(source, visit);
        };
        Status s = voxelizeColumns(
            source.vertices, blocks, stored != nullptr ? stored->strips().get() : nullptr,
            shape->frame, resolveThreads(params.threads), params.column_block, context,
            spill_beside, &out.column_blocks, [&](FinishedRows& rows) -> Status {
                if (Status r = rules.apply(grid, rows, out); !r) return r;
                return sink(grid, rows);
            });
        if (!s) return s.error();
    }
    for (const auto& [a, cost] : costs) grid.areas[a].cost = cost;
    return std::move(grid);
}

}  // namespace

Result<VoxelGrid> voxelize(const geometry::Geometry& geometry, const VoxelizeParams& params,
                           Context& context) {
    return voxelize(geometry, params, context, nullptr);
}

VoxelizeParams effectiveParams(const geometry::Geometry& geometry, const VoxelizeParams& given) {
    VoxelizeParams p = given;
    std::vector<ModifierVolume> volumes;
    for (const geometry::SceneMarker& m : geometry.markers) {
        if (m.kind == geometry::MarkerKind::bounds) p.bounds.push_back(m.box);
        if (m.kind == geometry::MarkerKind::volume)
            volumes.push_back({m.name, m.box, m.planes, m.area, m.cost_factor, m.forbid, m.agents,
                               m.walkable_for});
    }
    volumes.insert(volumes.end(), given.volumes.begin(), given.volumes.end());
    p.volumes.clear();
    const auto named = [&](const std::vector<std::string>& names) {
        return std::find(names.begin(), names.end(), given.agent_name) != names.end();
    };
    for (ModifierVolume& v : volumes) {
        if (!v.agents.empty() && !named(v.agents)) continue;
        if (!v.walkable_for.empty() && !named(v.walkable_for)) v.forbid = true;
        if (v.area.empty() && v.cost_factor == 1.0f && !v.forbid) continue;  // walkable for it
        v.agents.clear();
        v.walkable_for.clear();
        p.volumes.push_back(std::move(v));
    }
    return p;
}

Result<VoxelGrid> voxelize(const geometry::Geometry& geometry, const VoxelizeParams& given,
                           Context& context, VoxelizeCounts* counts) {
    std::vector<uint32_t> offsets{0};
    std::vector<Span> spans;
    auto grid = voxelizeWith(geometry, nullptr, given, context, counts, {},
                             [&](const VoxelGrid&, FinishedRows& rows) -> Status {
                                 if (spans.size() + rows.spans.size() > UINT32_MAX)
                                     return makeError(ErrorKind::usage,
                                                      "voxelize: more than {} spans exceed the "
                                                      "format's limit; use larger cells",
                                                      UINT32_MAX);
                                 for (uint32_t count : rows.counts)
                                     offsets.push_back(offsets.back() + count);
                                 spans.insert(spans.end(), rows.spans.begin(), rows.spans.end());
                                 return {};
                             });
    if (!grid) return grid.error();
    grid->column_offsets = std::move(offsets);
    grid->spans = std::move(spans);
    return grid;
}

Result<VoxelizedFile> voxelizeToFile(const geometry::Geometry& geometry,
                                     const VoxelizeParams& params, Context& context,
                                     VoxelizeCounts* counts, const std::filesystem::path& path,
                                     const std::string& source_name) {
    return voxelizeToFile(geometry, nullptr, params, context, counts, path, source_name);
}

Result<VoxelizedFile> voxelizeToFile(const geometry::Geometry& geometry,
                                     const geometry::StoredTriangles* stored,
                                     const VoxelizeParams& params, Context& context,
                                     VoxelizeCounts* counts, const std::filesystem::path& path,
                                     const std::string& source_name) {
    std::optional<VoxelWriter> writer;
    VoxelizedFile result;
    auto grid = voxelizeWith(geometry, stored, params, context, counts, path,
                             [&](const VoxelGrid& header, FinishedRows& rows) -> Status {
                                 if (!writer) {
                                     writer.emplace(header.columnCount());
                                     if (Status s = writer->spillBeside(path); !s) return s;
                                 }
                                 return writer->addColumns(rows.spans, rows.counts);
                             });
    if (!grid) return grid.error();
    grid->source_name = source_name;
    ScopedTimer timer(context, "voxelize: save");
    if (Status s = writer->finish(path, *grid); !s) return s.error();
    result.stats = writer->stats(grid->areas.size());
    result.header = std::move(grid).value();
    return result;
}

}  // namespace nav::voxel
