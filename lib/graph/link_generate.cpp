// Generated links: drops and jumps an agent can make, found on the voxel grid of its walkable
// surface. The method follows the ledge sampling of off-mesh link generators (Unity's NavMesh
// "Generate Links" with Drop Height and Jump Distance; the "jump link builder" of the Recast demo,
// recastnavigation issue #130 and its follow-ups), checked against the heightfield as Recast's
// filters read it (M. Mononen, RecastFilter.cpp):
//
// 1. Ledges. For every walkable span and each of the 4 cardinal directions, walk outward over the
//    columns beyond it: while a column holds a floor within `climb` of the span's top (the band
//    that erosion and the ledge filter made unwalkable, at most 2 x radius + 4 cells wide) keep
//    going; a walkable floor within climb ends the walk (the surface goes on: no ledge), and so
//    does a wall (solid between climb and the agent's height above the top). The first column
//    with neither is beyond the ledge: a ledge sample (span, direction).
// 2. Drops (drop_height > 0). The highest floor below the ledge's top in that column is where
//    the agent falls; deeper than drop_height: rejected (too_high). From there outward, the first
//    walkable span within climb of that floor (past the band eroded along the cliff foot) is the
//    landing; none within reach: no_landing_room.
// 3. Jumps (jump_distance > 0). Beyond the ledge, the first column with a floor no lower than
//    climb below the top (or lower, within drop_height, once a gap has been crossed) and no higher
//    than jump_up_height above it is the far edge; the gap between the two edges must be at most
//    jump_distance (else gap_too_wide). Past the far edge's band, the first walkable span within
//    climb of its floor is the landing.
// 4. Clearance. The agent (a cylinder of its radius and height) must fit along the whole
//    trajectory (linkTrajectory: walk-off then straight fall for drops, a 45-degree parabola for
//    jumps), swept piece by piece: no solid voxel of a column whose centre lies closer than the
//    radius to the path may overlap the body, from `climb` above its feet (steps it would walk
//    over) to its head (half a cell height of slack at both ends for the grid's quantization).
//    A hit rejects the sample (blocked). The swept columns and heights depend on the move alone
//    (landing offset and rise from a cell centre), so each move's are computed once as a stencil
//    and applied to every sample that makes it.
// 5. Merging. Samples of one direction along one straight ledge line (same take-off height, same
//    landing offset, same type and two-way-ness) on consecutive cells become one wide link, at
//    most max_width wide; its lanes (one per cell, graph/links.h) are exactly the samples.
//    A drop whose height is at most jump_up_height is two-way (the way back up costs like a
//    climb: 2 x its length).
//
// Deterministic: rows are processed in fixed chunks (each with its own tops of the rows it needs),
// merged in row order, runs sorted by their first cell; ids are kGeneratedLinkIdFirst + the run's
// index. The graph stage runs generation beside the graph's own build (it needs the voxel grid
// alone).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "lib/common/parallel.h"
#include "lib/graph/links.h"
#include "lib/voxel/voxelize.h"

namespace nav::graph {
namespace {

constexpr int kDx[4] = {1, -1, 0, 0};
constexpr int kDz[4] = {0, 0, 1, -1};
constexpr uint32_t kRowsPerChunk = 32;

struct Sample {
    uint32_t x = 0, z = 0;  // take-off column
    uint16_t top = 0;       // take-off span top [cell heights]
    uint8_t dir = 0;
    formats::LinkType type = formats::LinkType::drop;
    bool two_way = false;
    int land_dx = 0, land_dz = 0;  // landing column - take-off column
    int land_top = 0;              // landing span top [cell heights]
};

// The sample spacing in cells (at least 1; 0 m = every cell).
uint32_t spacingCells(const LinkGenParams& p, double cell_size) {
    if (!(p.spacing > 0)) return 1;
    return uint32_t(std::max(
        1, voxel::metresToCells(p.spacing, cell_size, voxel::CellRounding::down, 1 << 20)));
}

// The jump parabola y(t) = from.y + b t + c t^2 over t in [0, 1] (XZ moves linearly): through
// both ends, its apex a quarter of the horizontal distance above the higher end (a 45-degree
// launch). With u = to.y - from.y and H the apex's rise: c = u - b and from.y - b^2 / 4c =
// from.y + H give b = 2H + 2 sqrt(H (H - u)) (the root with the apex inside).
void jumpParabola(const float from[3], const float to[3], double& b, double& c) {
    const double dx = double(to[0]) - from[0], dz = double(to[2]) - from[2];
    const double horizontal = std::sqrt(dx * dx + dz * dz);
    const double y0 = from[1], y1 = to[1];
    const double u = y1 - y0, hh = std::max(y0, y1) + 0.25 * horizontal - y0;
    b = hh > 0 ? 2 * hh + 2 * std::sqrt(std::max(0.0, hh * (hh - u))) : u;
    c = u - b;
}

// One column under the agent's body along a trajectory (Generator::clearance): its offset from
// the take-off column and the heights, relative to the take-off top [cell heights], that no solid
// span may overlap (low, high exclusive).
struct StencilCell {
    int dx = 0, dz = 0, low = 0, high = 0;
};
// Stencils by (type, landing offset x, z, rise): every sample with the same move shares one.
using StencilCache = std::map<std::tuple<int, int, int, int>, std::vector<StencilCell>>;

// A worker's scratch: the tops of the rows of a chunk and those beside it, the marks of a row
// and the stencils it has made.
struct Scratch {
    std::vector<uint16_t> top_a, top_b;
    std::vector<uint8_t> marks;
    StencilCache stencils;
};

struct RowResult {
    std::vector<Sample> samples;
    uint64_t ledges = 0, linked = 0;
    std::array<uint64_t, size_t(LinkReject::count)> rejected{};
};

class Generator {
public:
    Generator(const voxel::VoxelGrid& grid, const LinkGenParams& params) : g_(grid), p_(params) {
        const voxel::AgentCells cells =
            voxel::agentCells(grid.agent, grid.cell_size, grid.cell_height);
        height_ = cells.height;
        climb_ = cells.climb;
        radius_ = cells.radius;
        band_ = 2 * radius_ + 4;
        drop_cells_ = voxel::metresToCells(params.drop_height, grid.cell_height,
                                           voxel::CellRounding::down, 1 << 20);
        up_cells_ = voxel::metresToCells(params.jump_up_height, grid.cell_height,
                                         voxel::CellRounding::down, 1 << 20);
        jump_cells_ = voxel::metresToCells(params.jump_distance, grid.cell_size,
                                           voxel::CellRounding::down, 1 << 20);
        spacing_cells_ = spacingCells(params, grid.cell_size);
    }

    // The ledge samples of rows z0 .. z1-1, in (z, x, span, direction) order. Most walkable spans
    // are inside the surface; the per-column tops of the first two walkable spans (tops()) settle
    // that without reading spans: a branch-free pass over three rows of tops (vectorised by the
    // compiler) marks, for each column with one walkable span, the directions whose neighbour has
    // no walkable span within climb (columns with several walkable spans, and those on the grid's
    // border, are marked kGeneral and checked span by span), and the loop below visits only the
    // marked columns.
    static constexpr uint8_t kGeneral = 0x10;
    void rows(uint32_t z0, uint32_t z1, RowResult& out, Scratch& scratch) const {
        const uint32_t first = z0 > 0 ? z0 - 1 : 0, last = std::min(z1 + 1, g_.size_z);
        tops(first, last, scratch);
        const size_t stride = g_.size_x;
        for (uint32_t z = z0; z < z1; ++z) {
            // Tops of row z (and, a stride away, of its neighbour rows).
            const uint16_t* a = scratch.top_a.data() + size_t(z - first) * stride;
            const uint16_t* b = scratch.top_b.data() + size_t(z - first) * stride;
            std::vector<uint8_t>& mark = scratch.marks;
            mark.resize(stride);
            uint8_t* marks = mark.data();  // locals only, so the pass below vectorises
            const int climb = climb_;
            const bool inner_row = z > 0 && z + 1 < g_.size_z;
            for (size_t x = 0; x < stride; ++x) marks[x] = uint8_t(a[x] != kNone ? kGeneral : 0);
            if (inner_row && stride > 2) {
                for (size_t x = 1; x + 1 < stride; ++x) {
                    const int t = a[x];
                    auto far = [&](const uint16_t* pa, const uint16_t* pb) {
                        return uint8_t((std::abs(int(*pa) - t) > climb) &
                                       (std::abs(int(*pb) - t) > climb));
                    };
                    const uint8_t dirs =
                        uint8_t(far(a + x + 1, b + x + 1) | (far(a + x - 1, b + x - 1) << 1) |
                                (far(a + x + stride, b + x + stride) << 2) |
                                (far(a + x - stride, b + x - stride) << 3));
                    const bool single = (t != kNone) & (b[x] == kNone);
                    marks[x] = single ? dirs : marks[x];
                }
            }
            for (uint32_t x = 0; x < stride; ++x) {
                if (marks[x] == 0) continue;
                const auto spans = g_.column(x, z);
                for (size_t i = 0; i < spans.size(); ++i) {
                    if (!spans[i].walkable) continue;
                    const int top = spans[i].y_max;
                    for (uint8_t d = 0; d < 4; ++d) {
                        if (marks[x] != kGeneral) {
                            if ((marks[x] >> d) & 1)
                                sample(x, z, spans, i, d, out, scratch.stencils);
                            continue;
                        }
                        const int nx = int(x) + kDx[d], nz = int(z) + kDz[d];
                        if (inGrid(nx, nz)) {
                            const ptrdiff_t n = ptrdiff_t(kDz[d]) * ptrdiff_t(stride) + nx;
                            if (std::abs(int(a[n]) - top) <= climb ||
                                std::abs(int(b[n]) - top) <= climb)
                                continue;  // the surface goes on that way
                        }
                        sample(x, z, spans, i, d, out, scratch.stencils);
                    }
                }
            }
        }
    }

    // Per column of rows first .. last-1: the tops of its first two walkable spans (kNone where
    // there are fewer; top_b is kSeveral with three or more, whose further tops the spans
    // themselves give).
    static constexpr int kNone = 0xFFFF, kSeveral = 0xFFFE;
    void tops(uint32_t first, uint32_t last, Scratch& scratch) const {
        const size_t begin = size_t(first) * g_.size_x, end = size_t(last) * g_.size_x;
        scratch.top_a.assign(end - begin, uint16_t(kNone));
        scratch.top_b.assign(end - begin, uint16_t(kNone));
        const uint32_t* offsets = g_.column_offsets.data();
        const voxel::Span* spans = g_.spans.data();
        uint16_t* top_a = scratch.top_a.data();
        uint16_t* top_b = scratch.top_b.data();
        for (size_t c = begin; c < end; ++c) {
            int count = 0;
            for (uint32_t k = offsets[c]; k < offsets[c + 1]; ++k) {
                if (!spans[k].walkable) continue;
                if (count == 0) top_a[c - begin] = spans[k].y_max;
                if (count == 1) top_b[c - begin] = spans[k].y_max;
                if (count == 2) top_b[c - begin] = uint16_t(kSeveral);
                ++count;
            }
        }
    }

private:
    bool inGrid(int x, int z) const {
        return x >= 0 && z >= 0 && uint32_t(x) < g_.size_x && uint32_t(z) < g_.size_z;
    }
    // Clearance above span i of a column [cell heights].
    static int ceilingOf(std::span<const voxel::Span> spans, size_t i) {
        return i + 1 < spans.size() ? int(spans[i + 1].y_min) : (1 << 24);
    }
    // The span of column (x, z) whose top is within `climb` of `top` with room for the agent above
    // (the closest top); -1 when none.
    int floorNear(int x, int z, int top, int below, int above) const {
        const auto spans = g_.column(uint32_t(x), uint32_t(z));
        int best = -1, best_gap = 1 << 30;
        for (size_t i = 0; i < spans.size(); ++i) {
            const int t = spans[i].y_max;
            if (t < top - below || t > top + above) continue;
            if (ceilingOf(spans, i) - t < height_) continue;
            const int gap = std::abs(t - top);
            if (gap < best_gap) best = int(i), best_gap = gap;
        }
        return best;
    }
    // Solid in column (x, z) overlapping heights (low, high) [cell heights, exclusive].
    bool solidBetween(int x, int z, int low, int high) const {
        for (const voxel::Span& s : g_.column(uint32_t(x), uint32_t(z)))
            if (int(s.y_min) < high && int(s.y_max) > low) return true;
        return false;
    }
    // The highest span top in column (x, z) strictly below `top` - climb; -1 when none.
    int floorBelow(int x, int z, int top) const {
        int best = -1;
        for (const voxel::Span& s : g_.column(uint32_t(x), uint32_t(z)))
            if (int(s.y_max) < top - climb_) best = std::max(best, int(s.y_max));
        return best;
    }
    // From column (x, z) outward in direction d, from `first` to `band_` columns: the first
    // walkable span within climb of `level`, stopping where the floor ends or at a wall. Sets the
    // column offset and top.
    bool landing(int x, int z, int d, int level, int first, int& offset, int& top) const {
        for (int j = first; j <= first + band_; ++j) {
            const int cx = x + j * kDx[d], cz = z + j * kDz[d];
            if (!inGrid(cx, cz)) return false;
            const auto spans = g_.column(uint32_t(cx), uint32_t(cz));
            int found = -1;
            for (size_t i = 0; i < spans.size(); ++i)
                if (spans[i].walkable && std::abs(int(spans[i].y_max) - level) <= climb_ &&
                    (found < 0 || std::abs(int(spans[i].y_max) - level) <
                                      std::abs(int(spans[size_t(found)].y_max) - level)))
                    found = int(i);
            if (found >= 0) {
                offset = j;
                top = spans[size_t(found)].y_max;
                return true;
            }
            if (floorNear(cx, cz, level, climb_, climb_) < 0) return false;  // the floor ended
            if (solidBetween(cx, cz, level + climb_, level + height_)) return false;  // a wall
        }
        return false;
    }

    // Whether the agent fits everywhere along the trajectory from the take-off (x, z, top) to
    // the landing `to` columns and cell heights away. The test depends on the relative move
    // alone, so it is made once per move as a stencil (clearance()) and applied here.
    bool clear(formats::LinkType type, uint32_t x, uint32_t z, int top, int land_dx, int land_dz,
               int rise, StencilCache& cache) const {
        const std::vector<StencilCell>& cells = stencil(type, land_dx, land_dz, rise, cache);
        for (const StencilCell& c : cells) {
            const int cx = int(x) + c.dx, cz = int(z) + c.dz;
            if (!inGrid(cx, cz)) continue;  // outside the grid there is no geometry
            const int low = top + c.low, high = top + c.high;
            for (const voxel::Span& s : g_.column(uint32_t(cx), uint32_t(cz)))
                if (int(s.y_min) < high && int(s.y_max) > low) return false;
        }
        return true;
    }

    const std::vector<StencilCell>& stencil(formats::LinkType type, int land_dx, int land_dz,
                                            int rise, StencilCache& cache) const {
        const auto key = std::make_tuple(int(type), land_dx, land_dz, rise);
        auto it = cache.find(key);
        if (it == cache.end())
            it = cache.emplace(key, clearance(type, land_dx, land_dz, rise)).first;
        return it->second;
    }

    // The columns under the agent's body along a trajectory, relative to the take-off column,
    // each with the heights (relative to the take-off top, exclusive) that must hold no solid:
    // swept rather than sampled. The trajectory's pieces run straight in XZ, so each column whose
    // centre lies closer than the radius to a piece (at least the columns it passes over) is
    // under the body for an interval of the piece, over the heights the feet take there; solid
    // from climb above the lowest of them to the agent's height above the highest blocks it.
    // Drops are two pieces (along the take-off height, then straight down), jumps one (the
    // parabola over its straight XZ line). Both are exact unions of the body's cylinders along
    // the trajectory.
    std::vector<StencilCell> clearance(formats::LinkType type, int land_dx, int land_dz,
                                       int rise) const {
        // Metres, relative to the take-off point (the parabola's shape is set in metres).
        const float from[3] = {0.0f, 0.0f, 0.0f};
        const float to[3] = {float(double(land_dx) * g_.cell_size),
                             float(double(rise) * g_.cell_height),
                             float(double(land_dz) * g_.cell_size)};
        std::vector<StencilCell> cells;
        if (type == formats::LinkType::jump) {
            double b = 0, c = 0;
            jumpParabola(from, to, b, c);
            sweep(from, to, cells, [&](double t0, double t1, double& low, double& high) {
                auto y = [&](double t) { return b * t + c * t * t; };
                low = std::min(y(t0), y(t1));
                high = std::max(y(t0), y(t1));
                if (c < 0) {  // the apex, where it falls inside
                    const double apex = -b / (2 * c);
                    if (apex > t0 && apex < t1) high = std::max(high, y(apex));
                }
            });
            return cells;
        }
        const float above[3] = {to[0], from[1], to[2]};
        auto linear = [](const float* a, const float* z) {
            return [a, z](double t0, double t1, double& low, double& high) {
                const double ya = a[1] + (double(z[1]) - a[1]) * t0;
                const double yb = a[1] + (double(z[1]) - a[1]) * t1;
                low = std::min(ya, yb);
                high = std::max(ya, yb);
            };
        };
        sweep(from, above, cells, linear(from, above));
        sweep(above, to, cells, linear(above, to));
        return cells;
    }

    // The piece a -> b (metres from the take-off's column centre and top; straight in XZ) adds
    // its columns to `cells`; heights(t0, t1, low, high) gives the feet's height range over the
    // parameters [t0, t1] of the piece.
    template <class Heights>
    void sweep(const float a[3], const float b[3], std::vector<StencilCell>& cells,
               Heights&& heights) const {
        const double cs = g_.cell_size;
        const double slack = 0.5 * g_.cell_height;
        const double step_over = double(climb_) * g_.cell_height;  // steps walking takes too
        // Columns at exactly the radius (an agent eroded off a wall stands there) are outside,
        // with a margin for rounding; never less than the columns the piece passes over.
        const double reach = std::max(double(g_.agent.radius) / cs - 1e-3, 0.7072);
        const double ax = double(a[0]) / cs, az = double(a[2]) / cs;
        const double bx = double(b[0]) / cs, bz = double(b[2]) / cs;
        const double dx = bx - ax, dz = bz - az, len2 = dx * dx + dz * dz;
        const int x0 = int(std::ceil(std::min(ax, bx) - reach)),
                  x1 = int(std::floor(std::max(ax, bx) + reach));
        const int z0 = int(std::ceil(std::min(az, bz) - reach)),
                  z1 = int(std::floor(std::max(az, bz) + reach));
        for (int z = z0; z <= z1; ++z)
            for (int x = x0; x <= x1; ++x) {
                // The parameters where the piece passes within `reach` of the column's centre.
                double t0 = 0, t1 = 1;
                if (len2 > 0) {
                    const double tc = ((x - ax) * dx + (z - az) * dz) / len2;
                    const double px = ax + tc * dx - x, pz = az + tc * dz - z;
                    const double d2 = px * px + pz * pz;
                    if (d2 >= reach * reach) continue;
                    const double w = std::sqrt((reach * reach - d2) / len2);
                    t0 = std::max(0.0, tc - w);
                    t1 = std::min(1.0, tc + w);
                    if (t0 > t1) continue;
                } else {
                    const double ex = x - ax, ez = z - az;
                    if (ex * ex + ez * ez >= reach * reach) continue;
                }
                double feet_low = 0, feet_high = 0;
                heights(t0, t1, feet_low, feet_high);
                // Solid spans are whole cells: y_min < high and y_max > low hold for integer
                // bounds exactly when they hold for ceil(high) and floor(low).
                const double low = (feet_low + step_over + slack) / g_.cell_height;
                const double high = (feet_high + g_.agent.height - slack) / g_.cell_height;
                cells.push_back({x, z, int(std::floor(low)), int(std::ceil(high))});
            }
    }

    void sample(uint32_t x, uint32_t z, std::span<const voxel::Span> spans, size_t i, uint8_t d,
                RowResult& out, StencilCache& cache) const {
        // With a spacing, only every spacing-th cell along the ledge line is tested.
        if (spacing_cells_ > 1 && (kDx[d] != 0 ? z : x) % spacing_cells_ != 0) return;
        const int top = spans[i].y_max;
        // 1. Walk out to the ledge.
        int edge = -1;  // columns from the take-off to the first one beyond the ledge
        for (int k = 1; k <= band_ + 1; ++k) {
            const int cx = int(x) + k * kDx[d], cz = int(z) + k * kDz[d];
            if (!inGrid(cx, cz)) {
                edge = k;  // the grid's border: nothing beyond (a drop into nothing)
                break;
            }
            const int f = floorNear(cx, cz, top, climb_, climb_);
            if (f >= 0) {
                if (g_.column(uint32_t(cx), uint32_t(cz))[size_t(f)].walkable) return;  // surface
                continue;  // the unwalkable band along the ledge
            }
            if (solidBetween(cx, cz, top + climb_, top + height_)) return;  // a wall
            edge = k;
            break;
        }
        if (edge < 0) return;
        ++out.ledges;
        const int ex = int(x) + edge * kDx[d], ez = int(z) + edge * kDz[d];
        bool linked = false, blocked = false, no_room = false, too_high = false;
        // 2. Drop.
        if (p_.drop_height > 0 && inGrid(ex, ez)) {
            const int below = floorBelow(ex, ez, top);
            if (below >= 0 && top - below <= drop_cells_) {
                // The agent falls once its body is clear of the ledge: its radius beyond it.
                int offset = 0, land_top = 0;
                if (landing(ex, ez, d, below, std::max(0, radius_ - 1), offset, land_top)) {
                    const int lx = ex + offset * kDx[d], lz = ez + offset * kDz[d];
                    if (clear(formats::LinkType::drop, x, z, top, lx - int(x), lz - int(z),
                              land_top - top, cache)) {
                        Sample s{x,
                                 z,
                                 uint16_t(top),
                                 d,
                                 formats::LinkType::drop,
                                 top - land_top <= up_cells_,
                                 lx - int(x),
                                 lz - int(z),
                                 land_top};
                        out.samples.push_back(s);
                        linked = true;
                    } else {
                        blocked = true;
                    }
                } else {
                    no_room = true;
                }
            } else if (below >= 0) {
                too_high = true;
            }
        }
        // 3. Jump across a gap: the first column beyond with a floor from climb below the top
        // to jump_up_height above it is the far edge.
        bool too_wide = p_.jump_distance > 0;
        if (p_.jump_distance > 0) {
            for (int j = 1; j <= jump_cells_ && inGrid(ex + j * kDx[d], ez + j * kDz[d]); ++j) {
                const int cx = ex + j * kDx[d], cz = ez + j * kDz[d];
                const int f = floorNear(cx, cz, top, climb_, up_cells_);
                if (f < 0) continue;
                const int far_top = g_.column(uint32_t(cx), uint32_t(cz))[size_t(f)].y_max;
                too_wide = false;
                int offset = 0, land_top = 0;
                if (!landing(cx, cz, d, far_top, 0, offset, land_top)) {
                    no_room = true;
                    break;
                }
                const int lx = cx + offset * kDx[d], lz = cz + offset * kDz[d];
                if (!clear(formats::LinkType::jump, x, z, top, lx - int(x), lz - int(z),
                           land_top - top, cache)) {
                    blocked = true;
                    break;
                }
                out.samples.push_back(Sample{x, z, uint16_t(top), d, formats::LinkType::jump, false,
                                             lx - int(x), lz - int(z), land_top});
                linked = true;
                break;
            }
        }
        if (linked) {
            ++out.linked;
            return;
        }
        LinkReject reason = LinkReject::gap_too_wide;
        if (blocked)
            reason = LinkReject::blocked;
        else if (no_room)
            reason = LinkReject::no_landing_room;
        else if (too_high)
            reason = LinkReject::too_high;
        else if (!too_wide && p_.jump_distance <= 0)
            reason = LinkReject::too_high;  // nothing below within reach, and no jumping
        ++out.rejected[size_t(reason)];
    }

public:
    // The farthest row from its take-off that a sample reads (see generateLinks by rows).
    int rowReach() const { return (band_ + 1) + jump_cells_ + (radius_ + band_) + radius_ + 2; }

private:
    const voxel::VoxelGrid& g_;
    const LinkGenParams& p_;
    int height_ = 0, climb_ = 0, radius_ = 0, band_ = 0;
    int drop_cells_ = 0, up_cells_ = 0, jump_cells_ = 0;
    uint32_t spacing_cells_ = 1;
};

// Step 5: the samples of every row chunk (in row order) merged into runs along each ledge line,
// numbered in the order of their first take-off cell. `grid` gives the frame (origin, cells).
void mergeSamples(const voxel::VoxelGrid& grid, const LinkGenParams& params,
                  const std::vector<RowResult>& results, GeneratedLinks& out) {
    // ---- Merge samples into runs along each ledge line. ----
    LinkGenStats& stats = out.stats;
    // Key: type, direction, the ledge line (x for +-X ledges, z for +-Z), take-off top, landing
    // offset and top difference, two-way; then the position along the line.
    using Key = std::tuple<int, int, uint32_t, int, int, int, int, bool>;
    std::vector<std::pair<Key, uint32_t>> placed;
    for (const RowResult& r : results) {
        stats.ledge_samples += r.ledges;
        stats.samples_linked += r.linked;
        for (size_t k = 0; k < r.rejected.size(); ++k) stats.rejected[k] += r.rejected[k];
        for (const Sample& s : r.samples) {
            const bool along_z = kDx[s.dir] != 0;  // +-X ledges run along Z
            placed.push_back({Key{int(s.type), int(s.dir), along_z ? s.x : s.z, int(s.top),
                                  s.land_dx, s.land_dz, s.land_top - int(s.top), s.two_way},
                              along_z ? s.z : s.x});
        }
    }
    std::sort(placed.begin(), placed.end());
    placed.erase(std::unique(placed.begin(), placed.end()), placed.end());
    const double cs = grid.cell_size;
    const uint32_t spacing_cells = spacingCells(params, cs);
    const uint32_t max_cells = std::max<uint32_t>(
        1,
        uint32_t(voxel::metresToCells(params.max_width, cs, voxel::CellRounding::down, 1 << 20)));
    // Runs of one line: neighbouring positions (with a spacing, only every spacing_cells-th
    // position was meant to be tested: the run covers the positions between two samples too),
    // at most max_cells wide.
    struct Run {
        uint32_t z, x;       // first take-off cell (for ordering)
        size_t first, last;  // range of `placed`
    };
    std::vector<Run> runs;
    for (size_t i = 0; i < placed.size();) {
        const Key& key = placed[i].first;
        size_t j = i + 1;
        while (j < placed.size() && placed[j].first == key &&
               placed[j].second - placed[j - 1].second <= spacing_cells &&
               placed[j].second - placed[i].second < max_cells)
            ++j;
        const bool along_z = kDx[std::get<1>(key)] != 0;
        const uint32_t line = std::get<2>(key), first = placed[i].second;
        runs.push_back({along_z ? first : line, along_z ? line : first, i, j - 1});
        i = j;
    }
    std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
        return std::tie(a.z, a.x) < std::tie(b.z, b.x);
    });
    out.links.reserve(runs.size());
    for (const Run& run : runs) {
        const auto [type, dir, line, top, land_dx, land_dz, rise, two_way] =
            placed[run.first].first;
        const uint32_t first = placed[run.first].second, last = placed[run.last].second;
        const bool along_z = kDx[dir] != 0;
        const double mid = 0.5 * (double(first) + double(last));
        const uint32_t cells = last - first + 1;
        LinkSpec& l = out.links.emplace_back();
        l.type = formats::LinkType(type);
        l.generated = true;
        l.bidirectional = two_way;
        const double fx = along_z ? double(line) : mid, fz = along_z ? mid : double(line);
        l.from[0] = float(grid.origin[0] + (fx + 0.5) * cs);
        l.from[1] = grid.origin[1] + float(top) * grid.cell_height;
        l.from[2] = float(grid.origin[2] + (fz + 0.5) * cs);
        l.to[0] = float(grid.origin[0] + (fx + land_dx + 0.5) * cs);
        l.to[1] = grid.origin[1] + float(top + rise) * grid.cell_height;
        l.to[2] = float(grid.origin[2] + (fz + land_dz + 0.5) * cs);
        l.width = cells > 1 ? float(double(cells) * cs) : 0.0f;
        if (two_way) {
            // The way back up is a climb: twice its length.
            const double ddx = double(l.to[0]) - l.from[0], ddy = double(l.to[1]) - l.from[1],
                         ddz = double(l.to[2]) - l.from[2];
            l.reverse_cost = float(2.0 * std::sqrt(ddx * ddx + ddy * ddy + ddz * ddz));
            ++stats.two_way;
        }
        l.id = geometry::kGeneratedLinkIdFirst + uint32_t(out.links.size() - 1);
        const std::string_view type_name = choiceName<formats::LinkType>(kLinkTypes, l.type);
        l.name = fmt::format("generated {} link {} at ({:.2f}, {:.2f}, {:.2f})", type_name, l.id,
                             l.from[0], l.from[1], l.from[2]);
        ++stats.links_by_type[std::string(type_name)];
    }
}

}  // namespace

ParamIssues checkLinkGenParams(const LinkGenParams& p) {
    ParamCheck check;
    check.range("drop_height", p.drop_height, 0.0f, 1000.0f, "m");
    check.range("jump_distance", p.jump_distance, 0.0f, 1000.0f, "m");
    check.range("jump_up_height", p.jump_up_height, 0.0f, 1000.0f, "m");
    check.range("link_spacing", p.spacing, 0.0f, 1000.0f, "m");
    check.range("link_max_width", p.max_width, 0.0f, 1000.0f, "m");
    check.threads("threads", p.threads);
    return check.issues;
}

void describeLinkGen(const LinkGenParams& p, StageKey& key) {
    if (!p.enabled()) return;
    key.add("drop_height", p.drop_height)
        .add("jump_distance", p.jump_distance)
        .add("jump_up_height", p.jump_up_height)
        .add("link_spacing", p.spacing)
        .add("link_max_width", p.max_width);
}

std::vector<std::array<float, 3>> linkTrajectory(formats::LinkType type, const float from[3],
                                                 const float to[3], float step) {
    std::vector<std::array<float, 3>> points;
    const double dx = double(to[0]) - from[0], dz = double(to[2]) - from[2];
    const double horizontal = std::sqrt(dx * dx + dz * dz);
    step = step > 0 ? step : 0.1f;
    if (type == formats::LinkType::jump) {
        const double y0 = from[1], y1 = to[1];
        const double apex = std::max(y0, y1) + 0.25 * horizontal;
        double b = 0, c = 0;
        jumpParabola(from, to, b, c);
        const double length = horizontal + 2 * (apex - std::min(y0, y1));
        const int n = std::max(2, int(std::ceil(length / step)));
        for (int i = 0; i <= n; ++i) {
            const double t = double(i) / n;
            points.push_back(
                {float(from[0] + dx * t), float(y0 + b * t + c * t * t), float(from[2] + dz * t)});
        }
        return points;
    }
    // Drop (and anything else): along the take-off height to above the landing, then down.
    const int n1 = std::max(1, int(std::ceil(horizontal / step)));
    for (int i = 0; i <= n1; ++i) {
        const double t = double(i) / n1;
        points.push_back({float(from[0] + dx * t), from[1], float(from[2] + dz * t)});
    }
    const double fall = double(from[1]) - to[1];
    const int n2 = std::max(1, int(std::ceil(std::fabs(fall) / step)));
    for (int i = 1; i <= n2; ++i) {
        const double t = double(i) / n2;
        points.push_back({to[0], float(from[1] - fall * t), to[2]});
    }
    return points;
}

struct LinkGeneration::State {
    State(const voxel::VoxelGrid& g, const LinkGenParams& p)
        : grid(g), params(p), generator(g, params) {}
    const voxel::VoxelGrid& grid;
    const LinkGenParams params;
    const Generator generator;
    Status valid;
    size_t chunks = 0;
    std::vector<RowResult> results;
    std::atomic<size_t> next{0};  // the next chunk to claim
    std::atomic<size_t> done{0};  // chunks finished (or given up on an error)
    std::atomic<bool> stopped{false};
    std::atomic<uint64_t> work_ns{0};  // time spent generating chunks, summed over threads
    std::mutex error_mutex;
    std::optional<Error> error;

    // Claims and generates chunks until none is left; `report` gives progress (one caller).
    void work(Context& context, bool report) {
        Scratch scratch;
        while (!stopped.load(std::memory_order_relaxed) && !context.cancelled()) {
            const size_t chunk = next.fetch_add(1);
            if (chunk >= chunks) return;
            const auto t0 = std::chrono::steady_clock::now();
            try {
                const uint32_t end =
                    uint32_t(std::min<size_t>(grid.size_z, (chunk + 1) * kRowsPerChunk));
                generator.rows(uint32_t(chunk * kRowsPerChunk), end, results[chunk], scratch);
            } catch (...) {
                fail(errorFromException("link generation", std::current_exception()));
            }
            work_ns.fetch_add(uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - t0)
                                           .count()));
            const size_t finished = done.fetch_add(1) + 1;
            done.notify_all();
            if (report) context.progress("link generation", finished, chunks);
        }
    }
    void fail(Error e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::move(e);
        stopped = true;
    }
};

LinkGeneration::LinkGeneration(const voxel::VoxelGrid& grid, const LinkGenParams& params)
    : state_(std::make_unique<State>(grid, params)) {
    state_->valid = paramError("link generation parameters", checkLinkGenParams(params));
    if (state_->valid && params.enabled() && grid.size_x > 0 && grid.size_z > 0)
        state_->chunks = (grid.size_z + kRowsPerChunk - 1) / kRowsPerChunk;
    state_->results.resize(state_->chunks);
}

LinkGeneration::~LinkGeneration() = default;

void LinkGeneration::help(Context& context) { state_->work(context, false); }

void LinkGeneration::stop() { state_->stopped = true; }

Result<GeneratedLinks> LinkGeneration::finish(Context& context) {
    State& st = *state_;
    if (!st.valid) return st.valid.error();
    ScopedTimer timer(context, "graph: link generation (what was left, and the merge)");
    GeneratedLinks out;
    if (st.chunks == 0) return out;
    const voxel::VoxelGrid& grid = st.grid;
    const LinkGenParams& params = st.params;
    // What is left, on up to `threads` threads (none started for a chunk or two).
    const size_t left = st.chunks - std::min(st.next.load(), st.chunks);
    const int threads = int(std::min<size_t>(size_t(resolveThreads(params.threads)), left / 2 + 1));
    parallelFor(size_t(threads), threads,
                [&](size_t, int worker) { st.work(context, worker == 0); });
    // Chunks other threads are still on.
    for (size_t d = st.done.load(); d < std::min(st.next.load(), st.chunks) && !st.stopped;
         d = st.done.load())
        st.done.wait(d);
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "link generation: cancelled");
    {
        std::lock_guard<std::mutex> lock(st.error_mutex);
        if (st.error) return *st.error;
    }
    if (st.stopped) return makeError(ErrorKind::cancelled, "link generation: stopped");
    const auto merge_start = std::chrono::steady_clock::now();
    mergeSamples(grid, params, st.results, out);
    LinkGenStats& stats = out.stats;
    // The chunks' time summed over the threads that made them, and the merge.
    stats.milliseconds =
        double(st.work_ns.load()) * 1e-6 +
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - merge_start)
            .count();
    context.debug("link generation: {} links from {} ledge samples ({} linked), {:.1f} ms",
                  out.links.size(), stats.ledge_samples, stats.samples_linked, stats.milliseconds);
    return out;
}

Result<GeneratedLinks> generateLinks(const voxel::VoxelGrid& grid, const LinkGenParams& params,
                                     Context& context) {
    LinkGeneration job(grid, params);
    return job.finish(context);
}

Result<GeneratedLinks> generateLinks(voxel::VoxelRowReader& reader, const LinkGenParams& params,
                                     Context& context) {
    if (Status s = paramError("link generation parameters", checkLinkGenParams(params)); !s)
        return s.error();
    GeneratedLinks out;
    const voxel::VoxelGrid& frame = reader.header();
    if (!params.enabled() || frame.size_x == 0 || frame.size_z == 0) return out;
    const auto start = std::chrono::steady_clock::now();
    // How far a sample reads from its take-off row: the walk to the ledge (band + 1), the jump
    // (jump cells), the landing search (radius + band), the body's radius around the trajectory,
    // and the rows of tops beside them.
    const Generator probe(frame, params);
    const uint32_t reach = uint32_t(probe.rowReach()) + 2;
    const size_t chunks = (frame.size_z + kRowsPerChunk - 1) / kRowsPerChunk;
    std::vector<RowResult> results(chunks);
    Scratch scratch;
    for (size_t chunk = 0; chunk < chunks; ++chunk) {
        if (context.cancelled())
            return makeError(ErrorKind::cancelled, "link generation: cancelled");
        const uint32_t z0 = uint32_t(chunk * kRowsPerChunk);
        const uint32_t z1 = uint32_t(std::min<size_t>(frame.size_z, z0 + kRowsPerChunk));
        const uint32_t first = z0 > reach ? z0 - reach : 0;
        const uint32_t last = std::min(frame.size_z, z1 + reach);
        auto rows = reader.rows(first, last);
        if (!rows) return rows.error();
        // The rows around the chunk as a grid of their own: its first and last rows are the
        // world's borders only where the world's are (every other border is `reach` rows away).
        const voxel::VoxelGrid band = voxel::cropGrid(frame, *rows, 0, first, frame.size_x, last);
        const Generator generator(band, params);
        generator.rows(z0 - first, z1 - first, results[chunk], scratch);
        for (Sample& s : results[chunk].samples) s.z += first;
        context.progress("link generation", chunk + 1, chunks);
    }
    mergeSamples(frame, params, results, out);
    out.stats.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace nav::graph
