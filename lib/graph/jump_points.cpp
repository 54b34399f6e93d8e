// Jump point tables (JPS+); see jump_points.h for the papers and the rules.
#include "lib/graph/jump_points.h"

#include <cmath>
#include <map>

#include "formats/bytes.h"
#include "formats/layouts.h"

namespace nav::graph {

namespace fmt_ = nav::formats;
using formats::kJumpDirections;

std::vector<uint32_t> jumpNeighbours(const Graph& g) {
    const size_t n = g.nodeCount();
    std::vector<uint32_t> next(n * kJumpDirections, kNoNode);
    const int64_t width = g.header.size_x;
    for (uint32_t v = 0; v < n; ++v) {
        const int64_t vx = g.cells[v].column % width, vz = g.cells[v].column / width;
        uint8_t seen = 0, twice = 0;
        for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e) {
            const uint32_t u = g.edge_targets[e];
            const int64_t dx = int64_t(g.cells[u].column % width) - vx;
            const int64_t dz = int64_t(g.cells[u].column / width) - vz;
            const int d = dx >= -1 && dx <= 1 && dz >= -1 && dz <= 1
                              ? fmt_::jumpDirectionOf(int(dx), int(dz))
                              : -1;
            if (d < 0) continue;
            if (seen & (1u << d)) twice |= uint8_t(1u << d);
            seen |= uint8_t(1u << d);
            next[kJumpDirections * size_t(v) + size_t(d)] = u;
        }
        for (int d = 0; d < kJumpDirections; ++d)  // two edges one way: not a grid step
            if (twice & (1u << d)) next[kJumpDirections * size_t(v) + size_t(d)] = kNoNode;
    }
    return next;
}

namespace {

// The most frequent edge cost among the straight (or diagonal) steps between nodes at the same
// height; 0 when there is none. Ties: the smallest.
float modeCost(const Graph& g, const std::vector<uint32_t>& next, bool diagonal) {
    std::map<float, uint64_t> counts;
    const size_t n = g.nodeCount();
    for (uint32_t v = 0; v < n; ++v)
        for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e) {
            const uint32_t u = g.edge_targets[e];
            if (g.cells[u].y != g.cells[v].y) continue;
            for (int d = diagonal ? 4 : 0; d < (diagonal ? 8 : 4); ++d)
                if (next[kJumpDirections * size_t(v) + size_t(d)] == u) ++counts[g.edge_costs[e]];
        }
    float best = 0;
    uint64_t most = 0;
    for (const auto& [cost, count] : counts)
        if (count > most) {
            best = cost;
            most = count;
        }
    return best;
}

}  // namespace

Result<JumpTable> buildJumpTable(const Graph& g) {
    if (g.header.type != GraphType::tile)
        return makeError(ErrorKind::usage,
                         "jump point tables are for tile graphs (this graph is not one)");
    const size_t n = g.nodeCount();
    const std::vector<uint32_t> next = jumpNeighbours(g);
    auto step = [&](uint32_t v, int d) { return next[kJumpDirections * size_t(v) + size_t(d)]; };
    JumpTable table;
    table.straight_cost = modeCost(g, next, false);
    table.diagonal_cost = modeCost(g, next, true);
    // JPS's pruning holds for diagonal steps of sqrt 2 straight ones (octile costs).
    const bool octile =
        table.straight_cost > 0 && table.diagonal_cost > 0 &&
        std::fabs(double(table.diagonal_cost) - double(table.straight_cost) * std::sqrt(2.0)) <=
            1e-5 * double(table.straight_cost);
    // Regular nodes.
    std::vector<uint8_t> regular(n, 0);
    const bool links = !g.edge_links.empty();
    for (uint32_t v = 0; v < n && octile; ++v) {
        bool ok = true;
        uint32_t steps = 0;
        for (uint32_t e = g.edge_offsets[v]; ok && e < g.edge_offsets[v + 1]; ++e) {
            const uint32_t u = g.edge_targets[e];
            if (links && g.edge_links[e] != formats::kNoLink) ok = false;
            int d = -1;
            for (int k = 0; k < kJumpDirections; ++k)
                if (step(v, k) == u) d = k;
            if (d < 0 || g.cells[u].y != g.cells[v].y) {
                ok = false;
                break;
            }
            ++steps;
            const float want = fmt_::jumpIsDiagonal(d) ? table.diagonal_cost : table.straight_cost;
            if (g.edge_costs[e] != want) ok = false;
        }
        if (!ok || steps != g.edge_offsets[v + 1] - g.edge_offsets[v]) continue;
        // Both ways, at the same cost (the way back is checked from the other node's side).
        for (int d = 0; ok && d < kJumpDirections; ++d) {
            const uint32_t u = step(v, d);
            if (u != kNoNode && step(u, fmt_::jumpOpposite(d)) != v) ok = false;
        }
        // Diagonals exactly where both straight steps are possible and meet.
        for (int d = 4; ok && d < kJumpDirections; ++d) {
            const uint32_t a = step(v, fmt_::jumpFirstCardinal(d));
            const uint32_t b = step(v, fmt_::jumpSecondCardinal(d));
            const uint32_t via_a = a != kNoNode ? step(a, fmt_::jumpSecondCardinal(d)) : kNoNode;
            const uint32_t via_b = b != kNoNode ? step(b, fmt_::jumpFirstCardinal(d)) : kNoNode;
            const uint32_t corner = via_a != kNoNode && via_a == via_b ? via_a : kNoNode;
            if (step(v, d) != corner) ok = false;
        }
        regular[v] = ok;
    }
    // Special: not regular, or a neighbour that is not.
    std::vector<uint8_t> special(n, 0);
    for (uint32_t v = 0; v < n; ++v) {
        bool s = !regular[v];
        for (int d = 0; !s && d < kJumpDirections; ++d) {
            const uint32_t u = step(v, d);
            if (u != kNoNode && !regular[u]) s = true;
        }
        special[v] = s;
        table.special += s;
        table.regular += !s;
    }
    table.entries.assign(n * kJumpDirections, 0);
    std::vector<uint8_t> known(n * kJumpDirections, 0);
    for (uint32_t v = 0; v < n; ++v)
        if (special[v]) {
            for (int d = 0; d < kJumpDirections; ++d) {
                table.entries[kJumpDirections * size_t(v) + size_t(d)] = formats::kJumpSpecial;
                known[kJumpDirections * size_t(v) + size_t(d)] = 1;
            }
        }
    // A straight step onto y along d (from p): y has a forced neighbour when a side of the
    // line is closed at p and open at y.
    auto forced = [&](uint32_t p, uint32_t y, int d) {
        for (int c : {(d + 1) % 4, (d + 3) % 4})
            if (step(p, c) == kNoNode && step(y, c) != kNoNode) return true;
        return false;
    };
    auto entry = [&](uint32_t v, int d) -> int16_t& {
        return table.entries[kJumpDirections * size_t(v) + size_t(d)];
    };
    // Straight directions first (a diagonal's entries read them), each line from its end: the
    // entry of v follows from the next node's along d.
    std::vector<uint32_t> chain;
    auto resolve = [&](uint32_t start, int d) {
        chain.clear();
        uint32_t v = start;
        // Walk until the entry of the next node is known or the walk ends there.
        while (!known[kJumpDirections * size_t(v) + size_t(d)]) {
            chain.push_back(v);
            const uint32_t y = step(v, d);
            if (y == kNoNode || special[y]) break;
            const bool stop = fmt_::jumpIsDiagonal(d)
                                  ? entry(y, fmt_::jumpFirstCardinal(d)) > 0 ||
                                        entry(y, fmt_::jumpSecondCardinal(d)) > 0
                                  : forced(v, y, d);
            if (stop) break;
            v = y;
        }
        for (size_t i = chain.size(); i-- > 0;) {
            const uint32_t u = chain[i];
            const uint32_t y = step(u, d);
            int16_t value;
            if (y == kNoNode) {
                value = 0;
            } else if (special[y]) {
                value = 1;
            } else if (fmt_::jumpIsDiagonal(d) ? entry(y, fmt_::jumpFirstCardinal(d)) > 0 ||
                                                     entry(y, fmt_::jumpSecondCardinal(d)) > 0
                                               : forced(u, y, d)) {
                value = 1;
            } else {
                const int16_t r = entry(y, d);
                // Past the table's reach: y becomes a jump point (an extra stop costs nothing).
                if (r == formats::kJumpMaxSteps || r == -formats::kJumpMaxSteps)
                    value = 1;
                else
                    value = r > 0 ? int16_t(r + 1) : int16_t(r - 1);
            }
            entry(u, d) = value;
            known[kJumpDirections * size_t(u) + size_t(d)] = 1;
        }
    };
    for (int d = 0; d < kJumpDirections; ++d)  // straight ones (0..3) before the diagonals
        for (uint32_t v = 0; v < n; ++v) resolve(v, d);
    return table;
}

void addJumpSections(formats::ContainerWriter& writer, const JumpTable& table) {
    formats::JumpHeader h;
    h.straight_cost = table.straight_cost;
    h.diagonal_cost = table.diagonal_cost;
    h.regular = table.regular;
    h.special = table.special;
    std::vector<uint8_t> header(formats::kJumpHeaderSize);
    formats::encodeJumpHeader(h, header.data());
    writer.add(formats::kSecJumpHeader, std::move(header), formats::Codec::raw);
    std::vector<uint8_t> entries(table.entries.size() * 2);
    for (size_t i = 0; i < table.entries.size(); ++i)
        formats::storeLe16(entries.data() + 2 * i, uint16_t(table.entries[i]));
    writer.add(formats::kSecJumpEntries, std::move(entries));
}

}  // namespace nav::graph
