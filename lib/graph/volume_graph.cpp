// Volume graph for flying agents: a free-voxel bitmap with implicit 26-neighbour adjacency under
// the MovingAI 3D movement rule, plus connected components.
#include <algorithm>
#include <array>
#include <cmath>

#include "formats/volume_moves.h"
#include "lib/graph/graph.h"

namespace nav::graph {
namespace {

using formats::VolumeMove;
constexpr auto neighbourBit = formats::volumeNeighbourBit;

// One erosion pass along an axis: out[i] = 1 when in[j] is 1 for every j within `radius` steps
// of i along the axis, all inside the grid. Lines are walked with a running count of zeros.
void erodeAxis(const std::vector<uint8_t>& in, std::vector<uint8_t>& out, size_t line_count,
               size_t line_length, size_t stride, auto&& lineStart, int radius) {
    const int64_t length = int64_t(line_length);
    for (size_t l = 0; l < line_count; ++l) {
        const size_t base = lineStart(l);
        // zeros in the window [i - radius, i + radius] that lies inside the line
        int64_t zeros = 0;
        for (int64_t j = 0; j < std::min<int64_t>(radius, length); ++j)
            zeros += in[base + size_t(j) * stride] == 0;
        for (int64_t i = 0; i < length; ++i) {
            const int64_t enter = i + radius;
            if (enter < length) zeros += in[base + size_t(enter) * stride] == 0;
            const int64_t leave = i - radius - 1;
            if (leave >= 0) zeros -= in[base + size_t(leave) * stride] == 0;
            const bool inside = i - radius >= 0 && i + radius < length;
            out[base + size_t(i) * stride] = uint8_t(inside && zeros == 0);
        }
    }
}

}  // namespace

Result<std::vector<uint8_t>> volumeFreeVoxels(const voxel::VoxelGrid& grid, float agent_radius,
                                              Context& context) {
    if (!std::isfinite(agent_radius) || agent_radius < 0)
        return makeError(ErrorKind::usage, "agent radius must be a finite number >= 0, got {}",
                         agent_radius);
    if (!(grid.cell_size > 0) || !(grid.cell_height > 0))
        return inputError("voxel grid has a cell size of {} x {}; both must be > 0", grid.cell_size,
                          grid.cell_height);
    const size_t sx = grid.size_x, sz = grid.size_z, sy = grid.size_y;
    const uint64_t total64 = uint64_t(sx) * sz * sy;
    if (total64 >= kNoNode)
        return inputError(
            "voxel grid of {} x {} x {} voxels is too large for a volume graph "
            "(fewer than 2^32 - 1 voxels)",
            sx, sy, sz);
    if (grid.column_offsets.size() != grid.columnCount() + 1 ||
        grid.column_offsets.back() != grid.spans.size())
        return makeError(ErrorKind::internal, "voxel grid column offsets are inconsistent");
    const size_t total = size_t(total64);
    const size_t layer = sx * sz;  // voxels per Y layer

    // 1. Non-solid voxels: everything outside the column spans (spans are clipped to the grid).
    std::vector<uint8_t> free(total, 1);
    for (size_t z = 0; z < sz; ++z) {
        for (size_t x = 0; x < sx; ++x) {
            const size_t cell = z * sx + x;
            for (const voxel::Span& span : grid.column(uint32_t(x), uint32_t(z))) {
                const size_t y_end = std::min<size_t>(span.y_max, sy);
                for (size_t y = span.y_min; y < y_end; ++y) free[y * layer + cell] = 0;
            }
        }
    }
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "graph cancelled");

    // 2. Agent clearance: a Chebyshev ball (an axis-aligned box) of r cells around the voxel
    //    must be non-solid and inside the grid, r = radius / cell size rounded up along X and Z
    //    and radius / cell height along Y (voxel::metresToCells). The box is separable: three 1D
    //    erosions.
    const int rxz =
        voxel::metresToCells(agent_radius, grid.cell_size, voxel::CellRounding::up, 1 << 20);
    const int ry =
        voxel::metresToCells(agent_radius, grid.cell_height, voxel::CellRounding::up, 1 << 20);
    if (rxz > 0 || ry > 0) {
        std::vector<uint8_t> scratch(total);
        erodeAxis(
            free, scratch, sy * sz, sx, 1, [&](size_t l) { return l * sx; }, rxz);
        erodeAxis(
            scratch, free, sy * sx, sz, sx, [&](size_t l) { return (l / sx) * layer + l % sx; },
            rxz);
        erodeAxis(
            free, scratch, layer, sy, layer, [](size_t l) { return l; }, ry);
        free.swap(scratch);
        if (context.cancelled()) return makeError(ErrorKind::cancelled, "graph cancelled");
    }

    return free;
}

formats::GraphHeader volumeGraphHeader(const voxel::VoxelGrid& grid, float agent_radius) {
    formats::GraphHeader h = headerForGrid(grid, GraphType::volume);
    h.flags = formats::kGraphFlagImplicitVolume;
    h.heuristic = formats::HeuristicKind::euclidean;
    h.min_cost_multiplier = 1.0f;
    h.agent_radius = agent_radius;
    return h;
}

Result<Graph> volumeGraphFromFree(const voxel::VoxelGrid& grid, float agent_radius,
                                  std::vector<uint8_t> free, Context& context) {
    const size_t sx = grid.size_x, sz = grid.size_z, sy = grid.size_y;
    const size_t total = sx * sz * sy;
    const size_t layer = sx * sz;  // voxels per Y layer
    if (free.size() != total)
        return makeError(ErrorKind::internal, "volume graph: {} free flags for {} voxels",
                         free.size(), total);
    Graph g;
    g.header = volumeGraphHeader(grid, agent_radius);
    formats::GraphHeader& h = g.header;
    h.node_count = uint32_t(total);
    h.edge_count = 0;
    g.areas = grid.areas;
    g.source_name = grid.source_name;

    g.free_voxels.assign((total + 63) / 64, 0);
    for (size_t v = 0; v < total; ++v)
        if (free[v]) g.free_voxels[v >> 6] |= uint64_t(1) << (v & 63);

    // 3. Components. A move is allowed when every voxel of the box it spans is free (the rule
    //    the runtime searches with); it is symmetric, so the undirected components are found by
    //    one scan in voxel order that unites each free voxel with its allowed neighbours of
    //    lower index (union-find; the root is always the lowest voxel of its set). The scan
    //    reads a copy of the free flags padded with one blocked voxel on every side, so the
    //    3x3x3 neighbourhood needs no bounds checks.
    static constexpr std::array<VolumeMove, 26> kMoves = formats::volumeMoves();
    const size_t px = sx + 2, pz = sz + 2, py = sy + 2;
    const size_t player = px * pz;
    std::vector<uint8_t> padded(px * pz * py, 0);
    for (size_t y = 0; y < sy; ++y)
        for (size_t z = 0; z < sz; ++z) {
            const uint8_t* src = free.data() + y * layer + z * sx;
            std::copy(src, src + sx, padded.data() + ((y + 1) * pz + z + 1) * px + 1);
        }
    free.clear();
    free.shrink_to_fit();
    int64_t offsets[27];  // padded-index offset of each neighbourhood bit
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx)
                offsets[neighbourBit(dx, dy, dz)] =
                    int64_t(dy) * int64_t(player) + int64_t(dz) * int64_t(px) + dx;
    // The 13 moves to lower voxel indices (the first half of kMoves) with their voxel offsets.
    uint32_t back_required[13];
    size_t back_offset[13];  // subtracted from the voxel index
    for (size_t k = 0; k < 13; ++k) {
        const VolumeMove& m = kMoves[k];
        back_required[k] = m.required;
        back_offset[k] =
            size_t(-(int64_t(m.dy) * int64_t(layer) + int64_t(m.dz) * int64_t(sx) + m.dx));
    }

    std::vector<uint32_t>& parent = g.components;  // union-find forest, then component ids
    parent.assign(total, kNoNode);
    auto find = [&](uint32_t v) {
        while (parent[v] != v) v = parent[v] = parent[parent[v]];  // path halving
        return v;
    };
    const size_t progress_step = size_t(1) << 16;
    size_t v = 0;
    for (size_t y = 0; y < sy; ++y) {
        for (size_t z = 0; z < sz; ++z) {
            if (v % progress_step < sx) {
                if (context.cancelled()) return makeError(ErrorKind::cancelled, "graph cancelled");
                context.progress("graph volume", v, total);
            }
            size_t p = ((y + 1) * pz + z + 1) * px + 1;
            for (size_t x = 0; x < sx; ++x, ++v, ++p) {
                if (!padded[p]) continue;
                uint32_t mask = 0;
                for (int b = 0; b < 27; ++b)
                    mask |= uint32_t(padded[size_t(int64_t(p) + offsets[b])]) << b;
                uint32_t root = uint32_t(v);  // root of v's set, kept current across the unions
                parent[v] = root;
                for (size_t k = 0; k < 13; ++k) {
                    if ((mask & back_required[k]) != back_required[k]) continue;
                    const uint32_t other = find(uint32_t(v - back_offset[k]));
                    if (other == root) continue;
                    if (other < root) {
                        parent[root] = other;
                        root = other;
                    } else {
                        parent[other] = root;
                    }
                }
                parent[v] = root;
            }
        }
    }
    // Roots are the lowest voxel of their component, so numbering in voxel order gives ids by
    // lowest voxel. Every voxel's parent is lower and already holds its id when it is reached.
    std::vector<uint32_t> sizes;
    size_t labelled = 0;
    for (size_t w = 0; w < total; ++w) {
        const uint32_t up = parent[w];
        if (up == kNoNode) continue;
        ++labelled;
        if (up == w) {
            parent[w] = uint32_t(sizes.size());
            sizes.push_back(1);
        } else {
            parent[w] = parent[up];
            ++sizes[parent[w]];
        }
    }
    context.progress("graph volume", total, total);
    h.component_count = uint32_t(sizes.size());
    h.largest_component = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    context.debug("graph volume: {} free voxels of {}, {} components (largest {})", labelled, total,
                  sizes.size(), h.largest_component);
    return g;
}

Result<Graph> buildVolumeGraph(const voxel::VoxelGrid& grid, float agent_radius, Context& context) {
    ScopedTimer timer(context, "graph volume");
    auto free = volumeFreeVoxels(grid, agent_radius, context);
    if (!free) return free.error();
    return volumeGraphFromFree(grid, agent_radius, std::move(free).value(), context);
}

}  // namespace nav::graph
