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
#include <algorithm>
#include <cstdlib>

#include "navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {
constexpr int kUnbounded = 1 << 24;
}

void buildCompactField(const vox::VoxelGrid& grid, const vox::AgentCells& agent,
                       const TileBox& box, CompactField& f) {
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
    f.cells.assign(cell_count + 1, 0);
    f.y.clear();
    f.area.clear();
    std::vector<int32_t> ceiling;
    for (int z = 0; z < f.depth; ++z) {
        for (int x = 0; x < f.width; ++x) {
            const size_t column = size_t(gz0 + z) * grid.size_x + size_t(gx0 + x);
            const uint32_t begin = grid.column_offsets[column];
            const uint32_t end = grid.column_offsets[column + 1];
            f.cells[size_t(z) * f.width + x] = uint32_t(f.y.size());
            uint32_t layers = 0;
            for (uint32_t s = begin; s < end && layers < kMaxLayers; ++s) {
                const vox::Span& span = grid.spans[s];
                if (!span.walkable || span.area == geo::kObstacleArea) continue;
                f.y.push_back(span.y_max);
                f.area.push_back(span.area);
                ceiling.push_back(s + 1 < end ? int(grid.spans[s + 1].y_min) : kUnbounded);
                ++layers;
            }
        }
    }
    f.cells[cell_count] = uint32_t(f.y.size());

    // Links, then keep the mutual ones.
    const size_t span_count = f.y.size();
    f.links.assign(span_count, 0xFFFFFFFFu);
    for (int z = 0; z < f.depth; ++z) {
        for (int x = 0; x < f.width; ++x) {
            const int cell = z * f.width + x;
            for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
                const int floor = f.y[i];
                const int top = ceiling[i];
                uint32_t packed = 0;
                for (int dir = 0; dir < 4; ++dir) {
                    const int nx = x + kDx[dir];
                    const int nz = z + kDz[dir];
                    uint32_t best = kNoLink;
                    if (nx >= 0 && nz >= 0 && nx < f.width && nz < f.depth) {
                        const size_t ncell = size_t(nz) * f.width + size_t(nx);
                        const uint32_t nb = f.cells[ncell];
                        const uint32_t ne = f.cells[ncell + 1];
                        int best_step = kUnbounded;
                        for (uint32_t k = nb; k < ne; ++k) {
                            const int n_floor = f.y[k];
                            if (std::min(top, ceiling[k]) - std::max(floor, n_floor) < agent.height)
                                continue;
                            const int step = std::abs(n_floor - floor);
                            if (step <= agent.climb && step < best_step) {
                                best = k - nb;
                                best_step = step;
                            }
                        }
                    }
                    packed |= best << (8 * dir);
                }
                f.links[i] = packed;
            }
        }
    }
    for (int z = 0; z < f.depth; ++z) {
        for (int x = 0; x < f.width; ++x) {
            const int cell = z * f.width + x;
            for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
                for (int dir = 0; dir < 4; ++dir) {
                    const uint32_t layer = f.link(i, dir);
                    if (layer == kNoLink) continue;
                    const uint32_t n = f.cells[size_t(cell + f.dirOffset(dir))] + layer;
                    const int back = (dir + 2) & 3;
                    if (f.link(n, back) != i - f.cells[size_t(cell)])
                        f.links[i] |= uint32_t(kNoLink) << (8 * dir);
                }
            }
        }
    }
}

}  // namespace nav::navmesh::internal
