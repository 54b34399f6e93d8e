#include "formats/jump_points.h"

#include <bit>
#include <cmath>

#include "formats/bytes.h"
#include "formats/graph_sections.h"

namespace nav::formats {

void encodeJumpHeader(const JumpHeader& h, uint8_t out[kJumpHeaderSize]) {
    storeLe32(out, std::bit_cast<uint32_t>(h.straight_cost));
    storeLe32(out + 4, std::bit_cast<uint32_t>(h.diagonal_cost));
    storeLe32(out + 8, h.regular);
    storeLe32(out + 12, h.special);
}

Error decodeJumpHeader(const uint8_t* data, size_t size, JumpHeader& out) {
    if (size != kJumpHeaderSize)
        return makeError(ErrorCode::bad_section, 0, kSecJumpHeader,
                         "section 'JPSH': %zu bytes, expected %zu", size, kJumpHeaderSize);
    out.straight_cost = std::bit_cast<float>(loadLe32(data));
    out.diagonal_cost = std::bit_cast<float>(loadLe32(data + 4));
    out.regular = loadLe32(data + 8);
    out.special = loadLe32(data + 12);
    if (!(out.straight_cost > 0) || !std::isfinite(out.straight_cost) || !(out.diagonal_cost > 0) ||
        !std::isfinite(out.diagonal_cost))
        return makeError(ErrorCode::bad_section, 0, kSecJumpHeader,
                         "section 'JPSH': step costs are not positive and finite");
    return {};
}

Error validateJumpEntries(const GraphHeader& g, const JumpHeader& h, const uint8_t* cells,
                          const uint32_t* column_nodes, const uint32_t* edge_offsets,
                          const uint32_t* edge_targets, const float* edge_costs,
                          const int16_t* entries, size_t entries_size) {
    auto bad = [](uint64_t offset, const char* what) {
        return makeError(ErrorCode::bad_section, offset, kSecJumpEntries, "section 'JPSE': %s",
                         what);
    };
    if (g.type != GraphType::tile || cells == nullptr || column_nodes == nullptr)
        return bad(0, "jump point tables are for tile graphs");
    const uint64_t n = g.node_count;
    if (entries_size != n * kJumpDirections * 2)
        return bad(0, "size is not 8 entries of 2 bytes per node");
    const uint64_t width = g.size_x, depth = g.size_z;
    // The node at the column one step from v's along d at v's height, joined to v by an edge of
    // the step's cost; 0xFFFFFFFF when there is none.
    auto next = [&](uint32_t v, int d) -> uint32_t {
        const NodeCell c = decodeNodeCell(cells + size_t(v) * kNodeCellSize);
        const int64_t x = int64_t(c.column % width) + jumpDx(d);
        const int64_t z = int64_t(c.column / width) + jumpDz(d);
        if (x < 0 || z < 0 || uint64_t(x) >= width || uint64_t(z) >= depth) return 0xFFFFFFFFu;
        const uint64_t column = uint64_t(z) * width + uint64_t(x);
        const float cost = jumpIsDiagonal(d) ? h.diagonal_cost : h.straight_cost;
        const uint32_t u = columnNodeAt(column_nodes, cells, column, c.y);
        if (u == 0xFFFFFFFFu) return u;
        for (uint32_t e = edge_offsets[v]; e < edge_offsets[v + 1]; ++e)
            if (v + edge_targets[e] == u && edge_costs[e] == cost) return u;
        return 0xFFFFFFFFu;
    };
    uint64_t special = 0;
    for (uint32_t v = 0; v < n; ++v) {
        const int16_t* e = entries + size_t(v) * kJumpDirections;
        int marked = 0;
        for (int d = 0; d < kJumpDirections; ++d) marked += e[d] == kJumpSpecial;
        if (marked == kJumpDirections) {
            ++special;
            continue;
        }
        if (marked != 0)
            return bad(uint64_t(v) * kJumpDirections * 2, "a node is special in some directions");
        for (int d = 0; d < kJumpDirections; ++d) {
            const int16_t k = e[d];
            if (k == 0) continue;
            const uint64_t at = (uint64_t(v) * kJumpDirections + uint64_t(d)) * 2;
            const uint32_t y = next(v, d);
            if (y == 0xFFFFFFFFu) return bad(at, "a jump's first step has no node or edge");
            if (k == 1) continue;  // y is the jump point
            const int16_t want = k > 0 ? int16_t(k - 1) : int16_t(k + 1);
            if (entries[size_t(y) * kJumpDirections + size_t(d)] != want)
                return bad(at, "a jump's count does not continue on its next node");
        }
    }
    if (special != h.special || n - special != h.regular)
        return makeError(ErrorCode::bad_section, 8, kSecJumpHeader,
                         "section 'JPSH': %u regular and %u special nodes, JPSE has %llu and %llu",
                         h.regular, h.special, static_cast<unsigned long long>(n - special),
                         static_cast<unsigned long long>(special));
    return {};
}

Error validateJumpBounds(const GraphHeader& g, size_t size) {
    const uint64_t want = uint64_t(g.node_count) * kJumpDirections * kJumpBoundValues * 2;
    if (size != want)
        return makeError(ErrorCode::bad_section, 0, kSecJumpBounds,
                         "section 'JPSB': %zu bytes, expected %llu (8 boxes of 4 u16 per node)",
                         size, static_cast<unsigned long long>(want));
    if (g.size_x > 65536 || g.size_z > 65536)
        return makeError(ErrorCode::bad_section, 0, kSecJumpBounds,
                         "section 'JPSB': a grid of %u x %u cells has no u16 cell coordinates",
                         g.size_x, g.size_z);
    return {};
}

}  // namespace nav::formats
