// Compact walkable field (after Recast's rcBuildCompactHeightfield): the walkable spans of a
// window of grid columns, each with a link to at most one walkable span in each of its four
// neighbour columns.
//
// Link rule (the one voxelize's erosion and the tile graph use): a walkable span in a neighbour
// column is a candidate when the step between the two tops is at most `climb` and the shared
// clearance min(ceilings) - max(floors) is at least the agent height (a ceiling is the bottom of
// the next solid span above, unbounded for the topmost span); the candidate with the smallest
// step wins, ties go to the lower span. Links are then made mutual (a link is kept only when the
// neighbour links back), so contour walks are reversible; with height > 2 * climb, as at the
// defaults, the rule is symmetric already and nothing is dropped.
//
// Spans of area 0 (obstacle) are never part of the field even when flagged walkable.
// The rows the window reads must be in `grid` (a whole grid, or the band of rows the streamed
// build holds). Work is split into fixed bands of rows (each writes only its own columns), so the
// field is the same for any thread count.
#include <algorithm>
#include <cstdlib>

#include "lib/navmesh/navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {
constexpr int kUnbounded = 1 << 24;
}

void buildCompactField(const voxel::GridRows& grid, const voxel::AgentCells& agent,
                       const TileBox& box, int threads, CompactField& f) {
    const int gx0 = std::max(0, box.x0 - box.border);
    const int gz0 = std::max(0, box.z0 - box.border);
    const int gx1 = std::min(int(grid.size_x), box.x1 + box.border);
    const int gz1 = std::min(int(grid.size_z), box.z1 + box.border);
    f.x0 = gx0;
    f.z0 = gz0;
    f.width = gx1 - gx0;
    f.depth = gz1 - gz0;
    f.inner_x0 = box.x0 - gx0;
    f.inner_z0 = box.z0 - gz0;
    f.inner_x1 = box.x1 - gx0;
    f.inner_z1 = box.z1 - gz0;
    f.seam[0] = box.x0 > 0;
    f.seam[1] = box.z1 < int(grid.size_z);
    f.seam[2] = box.x1 < int(grid.size_x);
    f.seam[3] = box.z0 > 0;
    f.agent = agent;

    const size_t cell_count = size_t(f.width) * size_t(f.depth);
    const size_t bands = size_t((f.depth + kBandRows - 1) / kBandRows);
    // fn(x, z, cell, offsets): offsets[0] and [1] are the column's first span and its end.
    auto forBand = [&](size_t band, auto&& fn) {
        const int z0 = int(band) * kBandRows, z1 = std::min(f.depth, z0 + kBandRows);
        for (int z = z0; z < z1; ++z) {
            const uint32_t* row = grid.rowOffsets(uint32_t(gx0), uint32_t(gz0 + z));
            for (int x = 0; x < f.width; ++x)
                fn(x, z, size_t(z) * size_t(f.width) + size_t(x), row + x);
        }
    };
    auto included = [&](const voxel::Span& s) {
        return s.walkable && s.area != geometry::kObstacleArea;
    };

    // 1. Count the walkable spans of each column; 2. place them.
    f.cells.assign(cell_count + 1, 0);
    parallelFor(bands, threads, [&](size_t band, int) {
        forBand(band, [&](int, int, size_t cell, const uint32_t* offsets) {
            uint32_t count = 0;
            for (uint32_t s = offsets[0]; s < offsets[1]; ++s) count += included(grid.span(s));
            f.cells[cell + 1] = count;
        });
    });
    for (size_t c = 0; c < cell_count; ++c) f.cells[c + 1] += f.cells[c];
    const size_t span_count = f.cells[cell_count];
    f.y.resize(span_count);
    f.area.resize(span_count);
    std::vector<int32_t> ceiling(span_count);
    parallelFor(bands, threads, [&](size_t band, int) {
        forBand(band, [&](int, int, size_t cell, const uint32_t* offsets) {
            uint32_t at = f.cells[cell];
            const uint32_t stop = f.cells[cell + 1];
            const uint32_t end = offsets[1];
            for (uint32_t s = offsets[0]; s < end && at < stop; ++s) {
                const voxel::Span& span = grid.span(s);
                if (!included(span)) continue;
                f.y[at] = span.y_max;
                f.area[at] = span.area;
                ceiling[at] = s + 1 < end ? int(grid.span(s + 1).y_min) : kUnbounded;
                ++at;
            }
        });
    });

    // 3. Links, per pair of neighbouring columns (each column with the one at +x and at +z):
    // the best candidate of each span on either side (the rule in the file comment), kept when
    // the two choose each other. A pair is handled by the band of its lower column; the bytes it
    // writes (direction +x / +z of one column, -x / -z of the other) belong to that pair alone.
    f.links.assign(4 * span_count, kNoSpan);
    // Whether spans i and k (in neighbouring columns) share the agent's height of clearance.
    auto room = [&](uint32_t i, uint32_t k) {
        return std::min(ceiling[i], ceiling[k]) - std::max<int>(f.y[i], f.y[k]) >= agent.height;
    };
    auto bestIn = [&](uint32_t i, uint32_t nb, uint32_t ne) -> uint32_t {
        const int floor = f.y[i];
        uint32_t best = kNoSpan;
        int best_step = kUnbounded;
        // Floors rise through a column: the candidates (within a climb of this floor) are a run
        // of it, found by bisection (a column of many floors is not read whole for every span).
        const auto first = std::lower_bound(f.y.begin() + nb, f.y.begin() + ne, floor - agent.climb,
                                            [](uint16_t y, int v) { return int(y) < v; });
        for (uint32_t k = uint32_t(first - f.y.begin()); k < ne; ++k) {
            const int n_floor = f.y[k];
            if (n_floor > floor + agent.climb) break;
            const int step = std::abs(n_floor - floor);
            if (step >= best_step || !room(i, k)) continue;
            best = k;
            best_step = step;
        }
        return best;
    };
    auto linkPair = [&](size_t a, size_t b, int dir) {
        const uint32_t ab = f.cells[a], ae = f.cells[a + 1];
        const uint32_t bb = f.cells[b], be = f.cells[b + 1];
        if (ab == ae || bb == be) return;
        const int back = (dir + 2) & 3;
        if (ae - ab == 1 && be - bb == 1) {  // the common case: one floor each (bestIn's test)
            if (std::abs(int(f.y[bb]) - int(f.y[ab])) <= agent.climb && room(ab, bb)) {
                f.links[4 * size_t(ab) + size_t(dir)] = bb;
                f.links[4 * size_t(bb) + size_t(back)] = ab;
            }
            return;
        }
        for (uint32_t i = ab; i < ae; ++i) {
            const uint32_t k = bestIn(i, bb, be);
            if (k == kNoSpan || bestIn(k, ab, ae) != i) continue;
            f.links[4 * size_t(i) + size_t(dir)] = k;
            f.links[4 * size_t(k) + size_t(back)] = i;
        }
    };
    parallelFor(bands, threads, [&](size_t band, int) {
        forBand(band, [&](int x, int z, size_t cell, const uint32_t*) {
            if (x + 1 < f.width) linkPair(cell, cell + 1, 2);
            if (z + 1 < f.depth) linkPair(cell, cell + size_t(f.width), 1);
        });
    });
}

}  // namespace nav::navmesh::internal
