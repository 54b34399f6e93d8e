#include "lib/nexthop/nexthop.h"

#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <thread>

#include "formats/bytes.h"
#include "formats/graph_sections.h"
#include "formats/jump_points.h"
#include "lib/common/csr.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"

namespace nav::nexthop {
namespace {

using formats::arrayBytes;
constexpr uint64_t kInfinity = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr int kZstdLevel = 6;

// The graph with integer costs, forward and backward.
struct IntGraph {
    uint32_t n = 0;
    std::vector<uint32_t> offsets, targets;
    std::vector<uint64_t> costs;
    CsrEdges<uint64_t> rev;  // reversed edges, for searches towards a target
    const uint32_t* components = nullptr;
    uint32_t max_degree = 0;

    CsrGraph<uint64_t> forward() const { return {offsets, targets, costs}; }
    CsrGraph<uint64_t> backward() const { return {rev.offsets, rev.targets, rev.costs}; }
};

Result<IntGraph> integerGraph(const graph::Graph& g) {
    if (g.header.flags & formats::kGraphFlagImplicitVolume)
        return inputError(
            "next-hop tables need an explicit graph; volume graphs (implicit "
            "26-connected voxels) are not supported");
    IntGraph ig;
    ig.n = uint32_t(g.nodeCount());
    ig.offsets = g.edge_offsets;
    ig.targets = g.edge_targets;
    ig.costs.resize(g.edge_costs.size());
    const double scale = std::ldexp(1.0, int(formats::kNextHopCostShift));
    uint64_t max_cost = 0;
    for (size_t e = 0; e < g.edge_costs.size(); ++e) {
        const double c = double(g.edge_costs[e]) * scale;
        if (!(c >= 0) || c > 1e15)
            return inputError("edge {} costs {}, too large for the table's integer costs", e,
                              g.edge_costs[e]);
        ig.costs[e] = std::max<uint64_t>(1, uint64_t(std::llround(c)));
        max_cost = std::max(max_cost, ig.costs[e]);
    }
    if (ig.n > 0 && max_cost > (uint64_t(1) << 62) / ig.n)
        return inputError(
            "edge costs up to {} over {} nodes could overflow the table's integer "
            "path costs",
            double(max_cost) / scale, ig.n);
    ig.rev = reverseEdges<uint64_t>(ig.offsets, ig.targets, ig.costs);
    for (uint32_t u = 0; u < ig.n; ++u)
        ig.max_degree = std::max(ig.max_degree, ig.offsets[u + 1] - ig.offsets[u]);
    ig.components = g.components.data();
    return ig;
}

uint32_t symbolBytes(const IntGraph& g) { return g.max_degree < 255 ? 1 : 2; }

// Move sets: bit k = edge k of the source starts a shortest path; sources of more edges take the
// canonical first move (nexthop.h). The top bit marks a target with no path.
constexpr uint32_t kMaskDegree = 63;
constexpr uint64_t kUnreachableBit = uint64_t(1) << 63;

// Dijkstra from s keeping, per node, the set of s's edges that start a shortest path to it: the
// union of its tight predecessors' sets (integer costs >= 1: they all settle before it).
struct MoveSetSearch {
    std::vector<uint64_t> dist, sets;
    std::vector<uint32_t> touched;
    RadixQueue<uint64_t> queue;

    void run(const IntGraph& g, uint32_t s) {
        if (dist.size() != g.n) {
            dist.assign(g.n, kInfinity);
            sets.assign(g.n, 0);
            touched.clear();
        }
        for (uint32_t v : touched) {
            dist[v] = kInfinity;
            sets[v] = 0;
        }
        touched.clear();
        queue.clear();
        dist[s] = 0;
        touched.push_back(s);
        queue.push(0, s);
        while (!queue.empty()) {
            const auto [d, u] = queue.pop();
            if (d != dist[u]) continue;
            const uint32_t first = g.offsets[u];
            for (uint32_t e = first; e < g.offsets[u + 1]; ++e) {
                const uint32_t v = g.targets[e];
                const uint64_t nd = d + g.costs[e];
                const uint64_t set = u == s ? uint64_t(1) << (e - first) : sets[u];
                if (nd < dist[v]) {
                    if (dist[v] == kInfinity) touched.push_back(v);
                    dist[v] = nd;
                    sets[v] = set;
                    queue.push(nd, v);
                } else if (nd == dist[v]) {
                    sets[v] |= set;
                }
            }
        }
    }
};

// Per-thread search memory.
struct Workspace {
    MoveSetSearch moves;
    // Sources of more than kMaskDegree edges: the canonical first move (the lowest-index edge of
    // the source that starts a shortest path; integer costs >= 1: every tight predecessor
    // settles before the node).
    Dijkstra<uint64_t, FirstMoveLabels, false, true> search;  // radix heap (search.h)
    std::vector<uint64_t> sets;                     // by rank: move sets (0 = no answer needed)
    std::vector<uint32_t> symbols;                  // by rank
    std::vector<uint32_t> run_starts, run_symbols;  // or the row as runs (runs_ready)
    bool runs_ready = false;
    std::vector<uint8_t> block;  // encoded rows of the block being built
    void ensure(uint32_t n) {
        if (symbols.size() != n) symbols.assign(n, 0);
        if (sets.size() != n) sets.assign(n, 0);
    }
};

// Nodes in rank order and the run groups: aligned stretches of 4^3 = 64 cells of the Hilbert
// curve (an 8 x 8 square of cells). The fewest-runs choice restarts at each group, so a row's
// symbols in a group depend on that group's targets only (what lets `update` re-choose the groups
// an edit touches).
constexpr uint32_t kGroupShift = 6;
struct RankOrder {
    std::vector<uint32_t> ranks;         // per node
    std::vector<uint32_t> order;         // node of each rank
    std::vector<uint32_t> group_starts;  // first rank of each group, then n
    std::vector<uint64_t> group_ids;     // per group: its Hilbert index >> kGroupShift
};

RankOrder rankOrder(const graph::Graph& graph) {
    RankOrder ro;
    std::vector<uint64_t> keys;
    ro.ranks = hilbertRanks(graph, &keys);
    const uint32_t n = uint32_t(ro.ranks.size());
    ro.order.resize(n);
    for (uint32_t v = 0; v < n; ++v) ro.order[ro.ranks[v]] = v;
    for (uint32_t r = 0; r < n; ++r)
        if (r == 0 || (keys[r] >> kGroupShift) != (keys[r - 1] >> kGroupShift)) {
            ro.group_starts.push_back(r);
            ro.group_ids.push_back(keys[r] >> kGroupShift);
        }
    ro.group_starts.push_back(n);
    return ro;
}

// FORMAT.md §9's fewest-runs choice over ranks [begin, end) of one group: each run extends while
// the intersection of its targets' move sets stays non-empty and takes the intersection's lowest
// edge (sets of 0 need no answer: kDontCare, skipped).
void chooseMoves(const uint64_t* sets, uint32_t begin, uint32_t end, uint32_t unreachable,
                 uint32_t* symbols) {
    uint32_t r = begin;
    while (r < end) {
        uint64_t common = ~uint64_t(0);
        uint32_t j = r;
        for (; j < end; ++j) {
            if (sets[j] == 0) continue;
            if ((common & sets[j]) == 0) break;
            common &= sets[j];
        }
        const uint32_t bit = uint32_t(std::countr_zero(common));
        const uint32_t symbol = bit == 63 ? unreachable : bit;
        for (uint32_t q = r; q < j; ++q) symbols[q] = sets[q] == 0 ? kDontCare : symbol;
        r = j;
    }
}

// Exact integer distances: the order of equal keys does not matter, so the radix heap.
using DistanceSearch = Dijkstra<uint64_t, NoLabels, false, true>;

// Backward integer Dijkstra: the distances d(x, target) of every x (valid until the next search).
std::span<const uint64_t> distancesTo(const IntGraph& g, uint32_t target, DistanceSearch& search) {
    search.reset(g.n);
    search.addSource(target);
    search.run(g.backward());
    return search.distances();
}

// Fills the don't-care entries of a row (by rank) canonically: each takes the previous answer
// in rank order; leading ones the first answer (0 when the row has none).
void fillDontCares(std::vector<uint32_t>& symbols) {
    uint32_t last = kDontCare;
    for (uint32_t v : symbols)
        if (v != kDontCare) {
            last = v;
            break;
        }
    if (last == kDontCare) last = 0;
    for (uint32_t& v : symbols) {
        if (v == kDontCare)
            v = last;
        else
            last = v;
    }
}

// The row of s by rank: the fewest-runs choice among shortest-path first moves (canonical for
// sources of more than kMaskDegree edges), the unreachable symbol inside s's component,
// don't-cares filled.
void rowSymbols(const IntGraph& g, uint32_t s, const RankOrder& ro, uint32_t unreachable,
                Workspace& w) {
    const uint32_t n = g.n;
    if (g.offsets[s + 1] - g.offsets[s] > kMaskDegree) {
        w.search.reset(n);
        w.search.addSource(s);
        w.search.run(g.forward());
        for (uint32_t t = 0; t < n; ++t) {
            uint32_t symbol;
            if (t == s || g.components[t] != g.components[s])
                symbol = kDontCare;
            else if (w.search.dist(t) == kInfinity)
                symbol = unreachable;
            else
                symbol = w.search.label(t);
            w.symbols[ro.ranks[t]] = symbol;
        }
    } else {
        w.moves.run(g, s);
        for (uint32_t r = 0; r < n; ++r) {
            const uint32_t t = ro.order[r];
            w.sets[r] = t == s || g.components[t] != g.components[s] ? 0
                        : w.moves.dist[t] == kInfinity               ? kUnreachableBit
                                                                     : w.moves.sets[t];
        }
        for (size_t k = 0; k + 1 < ro.group_starts.size(); ++k)
            chooseMoves(w.sets.data(), ro.group_starts[k], ro.group_starts[k + 1], unreachable,
                        w.symbols.data());
    }
    fillDontCares(w.symbols);
}

// Appends one encoded row from its runs: u32 run count, u32 run starts, symbols, padding to 4
// bytes.
uint64_t appendRuns(const std::vector<uint32_t>& starts, const std::vector<uint32_t>& symbols,
                    uint32_t symbol_bytes, std::vector<uint8_t>& out) {
    const size_t at = out.size();
    const size_t bytes = 4 + 4 * starts.size() + symbol_bytes * starts.size();
    out.resize(at + ((bytes + 3) & ~size_t(3)), 0);
    uint8_t* p = out.data() + at;
    formats::storeLe32(p, uint32_t(starts.size()));
    for (size_t i = 0; i < starts.size(); ++i) formats::storeLe32(p + 4 + 4 * i, starts[i]);
    uint8_t* sym = p + 4 + 4 * starts.size();
    for (size_t i = 0; i < starts.size(); ++i) {
        if (symbol_bytes == 1)
            sym[i] = uint8_t(symbols[i]);
        else
            formats::storeLe16(sym + 2 * i, uint16_t(symbols[i]));
    }
    return starts.size();
}

// A row built from its answers in rank order (don't-cares omitted): runs start where the answer
// changes, the first at rank 0 (leading don't-cares take the first answer, later ones the
// previous answer: fillDontCares' rule); a row without answers is one run of 0.
struct RunBuilder {
    std::vector<uint32_t>& starts;
    std::vector<uint32_t>& symbols;
    void clear() {
        starts.clear();
        symbols.clear();
    }
    void answer(uint32_t rank, uint32_t symbol) {
        if (symbols.empty()) {
            starts.push_back(0);
            symbols.push_back(symbol);
        } else if (symbols.back() != symbol) {
            starts.push_back(rank);
            symbols.push_back(symbol);
        }
    }
    void finish() {
        if (symbols.empty()) answer(0, 0);
    }
};

// Appends one encoded row from the workspace's symbols by rank (don't-cares filled), through its
// run vectors.
uint64_t appendSymbols(Workspace& w, uint32_t symbol_bytes, std::vector<uint8_t>& out) {
    RunBuilder runs{w.run_starts, w.run_symbols};
    runs.clear();
    for (uint32_t r = 0; r < w.symbols.size(); ++r) runs.answer(r, w.symbols[r]);
    return appendRuns(w.run_starts, w.run_symbols, symbol_bytes, out);
}

// Encodes and compresses one block from its rows (row(rank, workspace) fills workspace.symbols
// for the row of that rank, or its runs with runs_ready set). Returns the run count.
template <class RowFn>
uint64_t buildBlock(uint32_t block, uint32_t block_rows, uint32_t n, uint32_t symbol_bytes,
                    Workspace& w, RowFn&& row_symbols, std::vector<uint8_t>& compressed,
                    uint64_t* raw_bytes) {
    const uint32_t first = block * block_rows;
    const uint32_t rows = std::min(block_rows, n - first);
    w.block.assign(4 * (size_t(rows) + 1), 0);
    uint64_t runs = 0;
    for (uint32_t i = 0; i < rows; ++i) {
        formats::storeLe32(w.block.data() + 4 * i, uint32_t(w.block.size()));
        w.runs_ready = false;
        row_symbols(first + i, w);
        runs += w.runs_ready ? appendRuns(w.run_starts, w.run_symbols, symbol_bytes, w.block)
                             : appendSymbols(w, symbol_bytes, w.block);
    }
    formats::storeLe32(w.block.data() + 4 * rows, uint32_t(w.block.size()));
    if (raw_bytes) *raw_bytes = w.block.size();
    compressed.resize(ZSTD_compressBound(w.block.size()));
    const size_t size = ZSTD_compress(compressed.data(), compressed.size(), w.block.data(),
                                      w.block.size(), kZstdLevel);
    if (ZSTD_isError(size)) throw std::runtime_error("zstd failed on a next-hop block");
    compressed.resize(size);
    return runs;
}

// One decompressed block of a table.
struct BlockView {
    std::vector<uint8_t> data;
    uint32_t rows = 0;
};

Status decompressBlock(const Table& t, uint32_t stored_index, BlockView& out) {
    const uint8_t* src = t.blocks.data() + t.offsets[stored_index];
    const size_t size = size_t(t.offsets[stored_index + 1] - t.offsets[stored_index]);
    const unsigned long long raw = ZSTD_getFrameContentSize(src, size);
    if (raw == ZSTD_CONTENTSIZE_ERROR || raw == ZSTD_CONTENTSIZE_UNKNOWN || raw > (1ull << 31))
        return inputError("next-hop block {} is not a valid zstd frame", stored_index);
    out.data.resize(size_t(raw));
    const size_t written = ZSTD_decompress(out.data.data(), out.data.size(), src, size);
    if (ZSTD_isError(written) || written != raw)
        return inputError("next-hop block {} does not decompress", stored_index);
    const uint32_t block = t.header.first_block + stored_index;
    out.rows = std::min(t.header.block_rows, t.header.node_count - block * t.header.block_rows);
    return {};
}

// Row `row` (0-based inside the block) expanded into symbols by target rank.
Status expandRow(const Table& t, const BlockView& b, uint32_t row, std::vector<uint32_t>& out) {
    const uint32_t n = t.header.node_count, sb = t.header.symbol_bytes;
    formats::NextHopRow r;
    if (!formats::findNextHopRow(b.data.data(), b.data.size(), b.rows, row, sb, r))
        return inputError("next-hop row {} is malformed (row table, byte range or run count)", row);
    out.assign(n, 0);
    for (uint32_t i = 0; i < r.runs; ++i) {
        const uint32_t start = formats::loadLe32(r.starts + 4 * size_t(i));
        const uint32_t stop =
            i + 1 < r.runs ? formats::loadLe32(r.starts + 4 * (size_t(i) + 1)) : n;
        const uint8_t* sym = r.symbols + sb * size_t(i);
        const uint32_t value = sb == 1 ? *sym : formats::loadLe16(sym);
        if ((i == 0 && start != 0) || stop <= start || stop > n)
            return inputError("next-hop row {}: run {} is not ascending", row, i);
        std::fill(out.begin() + start, out.begin() + stop, value);
    }
    return {};
}

// Hilbert index of (x, y) in a 2^order square (order <= 16).
uint64_t hilbertIndex(uint32_t x, uint32_t y, uint32_t order) {
    uint64_t d = 0;
    for (uint32_t s = 1u << (order - 1); s > 0; s >>= 1) {
        const uint32_t rx = (x & s) ? 1 : 0, ry = (y & s) ? 1 : 0;
        d += uint64_t(s) * s * ((3 * rx) ^ ry);
        if (ry == 0) {  // rotate the quadrant
            if (rx == 1) {
                x = s - 1 - (x & (s - 1)) + (x & ~(s - 1));
                y = s - 1 - (y & (s - 1)) + (y & ~(s - 1));
                x &= (s << 1) - 1;
                y &= (s << 1) - 1;
            }
            std::swap(x, y);
        }
    }
    return d;
}

// Identity of a node across two versions of a level: its cell (tile graphs), else its position.
struct NodeKey {
    uint64_t a = 0, b = 0;
    bool operator<(const NodeKey& o) const { return a != o.a ? a < o.a : b < o.b; }
};
NodeKey nodeKey(const graph::Graph& g, uint32_t v) {
    if (!g.cells.empty())
        return {g.cells[v].column,
                (uint64_t(std::bit_cast<uint32_t>(float(g.cells[v].y))) << 32) |
                    uint64_t(std::bit_cast<uint32_t>(g.positions[3 * size_t(v) + 1]))};
    const uint32_t x = std::bit_cast<uint32_t>(g.positions[3 * size_t(v)]);
    const uint32_t y = std::bit_cast<uint32_t>(g.positions[3 * size_t(v) + 1]);
    const uint32_t z = std::bit_cast<uint32_t>(g.positions[3 * size_t(v) + 2]);
    return {(uint64_t(x) << 32) | y, z};
}

Table emptyTable(const IntGraph& g, const graph::Graph& graph, const RankOrder& ro,
                 uint32_t block_rows) {
    Table t;
    formats::NextHopHeader& h = t.header;
    h.node_count = g.n;
    h.edge_count = uint32_t(g.targets.size());
    h.block_rows = block_rows;
    h.block_count = (g.n + block_rows - 1) / block_rows;
    h.stored_blocks = h.block_count;
    h.symbol_bytes = symbolBytes(g);
    h.graph_fingerprint = graph::graphFingerprint(graph);
    h.flags = formats::kNextHopFlagFewestRuns;
    t.ranks = ro.ranks;
    return t;
}

// Joins per-block frames into the table's blob and offsets.
void collectBlocks(Table& t, std::vector<std::vector<uint8_t>>& frames) {
    t.offsets.assign(1, 0);
    t.blocks.clear();
    for (auto& f : frames) {
        t.blocks.insert(t.blocks.end(), f.begin(), f.end());
        t.offsets.push_back(t.blocks.size());
        std::vector<uint8_t>().swap(f);
    }
}

}  // namespace

std::vector<uint32_t> hilbertRanks(const graph::Graph& g, std::vector<uint64_t>* keys) {
    const formats::GraphHeader& h = g.header;
    const uint32_t n = uint32_t(g.nodeCount());
    uint32_t order = 1;
    while (order < 16 && (1u << order) < std::max(h.size_x, h.size_z)) ++order;
    const uint32_t limit = (1u << order) - 1;
    struct Item {
        uint64_t hilbert;
        float y;
        uint32_t node;
    };
    std::vector<Item> items(n);
    for (uint32_t v = 0; v < n; ++v) {
        uint32_t x, z;
        if (!g.cells.empty()) {
            x = g.cells[v].column % std::max(1u, h.size_x);
            z = g.cells[v].column / std::max(1u, h.size_x);
        } else {
            const double cx = (double(g.positions[3 * size_t(v)]) - h.origin[0]) / h.cell_size;
            const double cz = (double(g.positions[3 * size_t(v) + 2]) - h.origin[2]) / h.cell_size;
            x = uint32_t(std::clamp(cx, 0.0, double(limit)));
            z = uint32_t(std::clamp(cz, 0.0, double(limit)));
        }
        items[v] = {hilbertIndex(std::min(x, limit), std::min(z, limit), order),
                    g.positions[3 * size_t(v) + 1], v};
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        if (a.hilbert != b.hilbert) return a.hilbert < b.hilbert;
        if (a.y != b.y) return a.y < b.y;
        return a.node < b.node;
    });
    std::vector<uint32_t> ranks(n);
    for (uint32_t r = 0; r < n; ++r) ranks[items[r].node] = r;
    if (keys != nullptr) {
        keys->resize(n);
        for (uint32_t r = 0; r < n; ++r) (*keys)[r] = items[r].hilbert;
    }
    return ranks;
}

Result<Table> buildTable(const graph::Graph& graph, const BuildParams& params, Context& context,
                         BuildStats* stats) {
    const auto start = std::chrono::steady_clock::now();
    auto ig = integerGraph(graph);
    if (!ig) return ig.error();
    const IntGraph& g = *ig;
    if (params.block_rows == 0 || params.block_rows > 4096 ||
        (params.block_rows & (params.block_rows - 1)) != 0)
        return makeError(ErrorKind::usage, "rows per block must be a power of two up to 4096");
    if (params.shard_count > 0 && params.shard_index >= params.shard_count)
        return makeError(ErrorKind::usage, "--shard {}/{}: K must be below N", params.shard_index,
                         params.shard_count);
    const RankOrder ro = rankOrder(graph);
    Table t = emptyTable(g, graph, ro, params.block_rows);
    formats::NextHopHeader& h = t.header;
    const uint32_t n = g.n;
    const uint32_t unreachable = formats::nextHopUnreachable(h.symbol_bytes);

    // Size estimate from a sample of rows spread over the rank order, before any real work.
    uint64_t estimate = 0;
    if (n > 0) {
        Workspace w;
        w.ensure(n);
        const uint32_t samples = std::min<uint32_t>(n, 16);
        std::vector<uint8_t> encoded;
        for (uint32_t i = 0; i < samples; ++i) {
            const uint32_t rank = uint32_t(uint64_t(i) * n / samples);
            rowSymbols(g, ro.order[rank], ro, unreachable, w);
            appendSymbols(w, h.symbol_bytes, encoded);
        }
        const uint64_t per_row = (encoded.size() + samples - 1) / samples;
        // Encoded rows (zstd shrinks them further) + per-thread search memory + ranks.
        estimate = per_row * n + uint64_t(resolveThreads(params.threads)) * n * 24 + 8ull * n;
    }
    if (stats) stats->estimated_bytes = estimate;
    // The stage's budget and the table's own limit, whichever is lower.
    const uint64_t limit = tighterLimit(context.memoryLimit(), params.max_memory);
    if (Status s = checkMemoryBudget(
            fmt::format("the next-hop table of {} nodes", n),
            {estimate,
             fmt::format("sampled rows; the raw n^2 table would be {}",
                         humanBytes(uint64_t(n) * n * h.symbol_bytes)),
             "build the hierarchical table instead ('navbake nexthop GRAPH --clusters "
             "FILE.clu'), or shard it (--shard K/N)"},
            limit);
        !s)
        return Error{ErrorKind::out_of_memory, s.error().message};

    uint32_t first_block = 0, end_block = h.block_count;
    if (params.shard_count > 0) {
        first_block = uint32_t(uint64_t(h.block_count) * params.shard_index / params.shard_count);
        end_block =
            uint32_t(uint64_t(h.block_count) * (params.shard_index + 1) / params.shard_count);
        h.flags |= formats::kNextHopFlagPartial;
        h.first_block = first_block;
        h.stored_blocks = end_block - first_block;
        h.shard_index = params.shard_index;
        h.shard_count = params.shard_count;
    }
    const uint32_t blocks = end_block - first_block;
    std::vector<std::vector<uint8_t>> frames(blocks);
    std::vector<uint64_t> runs(blocks, 0), raw(blocks, 0);
    uint64_t progress = 0;
    Status s = runParallel("next-hop rows", blocks, resolveThreads(params.threads), context,
                           progress, blocks, [&](size_t task) {
                               if (context.cancelled()) throw StageCancelled{};
                               thread_local Workspace w;
                               w.ensure(n);
                               runs[task] = buildBlock(
                                   first_block + uint32_t(task), h.block_rows, n, h.symbol_bytes, w,
                                   [&](uint32_t rank, Workspace& ws) {
                                       rowSymbols(g, ro.order[rank], ro, unreachable, ws);
                                   },
                                   frames[task], &raw[task]);
                           });
    if (!s) return s.error();
    collectBlocks(t, frames);
    for (uint64_t r : runs) h.run_count += r;
    if (stats) {
        stats->rows = 0;
        for (uint32_t b = first_block; b < end_block; ++b)
            stats->rows += std::min(h.block_rows, n - b * h.block_rows);
        stats->raw_rle_bytes = 0;
        for (uint64_t r : raw) stats->raw_rle_bytes += r;
        stats->milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }
    return t;
}

Result<Table> mergeShards(const std::vector<Table>& parts,
                          const std::vector<std::filesystem::path>& paths) {
    if (parts.empty()) return makeError(ErrorKind::usage, "nexthop merge needs at least one part");
    const formats::NextHopHeader& first = parts[0].header;
    const uint32_t count = first.shard_count;
    std::vector<int> slot(std::max<uint32_t>(count, 1), -1);
    for (size_t i = 0; i < parts.size(); ++i) {
        const formats::NextHopHeader& h = parts[i].header;
        const std::string name = paths[i].string();
        if (!(h.flags & formats::kNextHopFlagPartial))
            return inputError("{} is a complete table, not a shard (made with --shard K/N)", name);
        if (h.shard_count != count || h.node_count != first.node_count ||
            h.graph_fingerprint != first.graph_fingerprint || h.block_rows != first.block_rows ||
            h.symbol_bytes != first.symbol_bytes || parts[i].ranks != parts[0].ranks)
            return inputError(
                "{} is shard {}/{} of another table than {} (shard {}/{}): graph or "
                "layout differ",
                name, h.shard_index, h.shard_count, paths[0].string(), first.shard_index,
                first.shard_count);
        if (slot[h.shard_index] >= 0)
            return inputError("{} and {} are both shard {}/{}", paths[slot[h.shard_index]].string(),
                              name, h.shard_index, count);
        slot[h.shard_index] = int(i);
    }
    for (uint32_t k = 0; k < count; ++k)
        if (slot[k] < 0) return inputError("shard {}/{} is missing", k, count);
    Table t;
    t.header = first;
    t.header.flags &= ~formats::kNextHopFlagPartial;
    t.header.first_block = t.header.shard_index = t.header.shard_count = 0;
    t.header.stored_blocks = t.header.block_count;
    t.header.run_count = 0;
    t.ranks = parts[0].ranks;
    t.offsets.assign(1, 0);
    uint32_t expected_block = 0;
    for (uint32_t k = 0; k < count; ++k) {
        const Table& p = parts[size_t(slot[k])];
        if (p.header.first_block != expected_block)
            return inputError("{} starts at block {}, expected {}", paths[size_t(slot[k])].string(),
                              p.header.first_block, expected_block);
        expected_block += p.header.stored_blocks;
        t.header.run_count += p.header.run_count;
        for (size_t b = 0; b < p.header.stored_blocks; ++b) {
            t.blocks.insert(t.blocks.end(), p.blocks.begin() + std::ptrdiff_t(p.offsets[b]),
                            p.blocks.begin() + std::ptrdiff_t(p.offsets[b + 1]));
            t.offsets.push_back(t.blocks.size());
        }
    }
    if (expected_block != t.header.block_count)
        return inputError("the shards hold {} of {} blocks", expected_block, t.header.block_count);
    return t;
}

Result<std::vector<uint32_t>> decodeRow(const Table& t, uint32_t source) {
    const formats::NextHopHeader& h = t.header;
    if (h.flags & formats::kNextHopFlagPartial)
        return inputError("decodeRow needs a complete table, not a shard");
    if (source >= h.node_count) return inputError("node {} out of range", source);
    const uint32_t rank = t.ranks[source];
    BlockView b;
    if (Status s = decompressBlock(t, rank / h.block_rows, b); !s) return s.error();
    std::vector<uint32_t> by_rank;
    if (Status s = expandRow(t, b, rank % h.block_rows, by_rank); !s) return s.error();
    std::vector<uint32_t> out(h.node_count);
    for (uint32_t v = 0; v < h.node_count; ++v) out[v] = by_rank[t.ranks[v]];
    return out;
}

NodeMatch matchNodes(const graph::Graph& old_graph, const graph::Graph& new_graph) {
    const uint32_t old_n = uint32_t(old_graph.nodeCount()), n = uint32_t(new_graph.nodeCount());
    std::map<NodeKey, uint32_t> old_index;
    for (uint32_t v = 0; v < old_n; ++v) old_index.emplace(nodeKey(old_graph, v), v);
    NodeMatch m;
    m.to_old.assign(n, kNone);
    m.to_new.assign(old_n, kNone);
    for (uint32_t v = 0; v < n; ++v) {
        auto it = old_index.find(nodeKey(new_graph, v));
        if (it != old_index.end() && m.to_new[it->second] == kNone) {
            m.to_old[v] = it->second;
            m.to_new[it->second] = v;
        }
    }
    return m;
}

Result<Table> updateTable(const Table& old_table, const graph::Graph& old_graph,
                          const graph::Graph& new_graph, const BuildParams& params,
                          Context& context, UpdateStats* stats) {
    const auto start = std::chrono::steady_clock::now();
    if (old_table.header.flags & formats::kNextHopFlagPartial)
        return inputError("update needs a complete table, not a shard (merge the shards first)");
    auto old_ig = integerGraph(old_graph);
    if (!old_ig) return old_ig.error();
    auto new_ig = integerGraph(new_graph);
    if (!new_ig) return new_ig.error();
    const IntGraph& og = *old_ig;
    const IntGraph& ng = *new_ig;
    if (old_table.header.node_count != og.n)
        return inputError("the old table holds {} nodes, the old graph {}",
                          old_table.header.node_count, og.n);
    const RankOrder ro = rankOrder(new_graph);
    Table t = emptyTable(ng, new_graph, ro, old_table.header.block_rows);
    formats::NextHopHeader& h = t.header;
    const uint32_t n = ng.n;
    const uint32_t unreachable = formats::nextHopUnreachable(h.symbol_bytes);
    const uint32_t old_unreachable = formats::nextHopUnreachable(old_table.header.symbol_bytes);

    // Match nodes across the versions.
    const NodeMatch match = matchNodes(old_graph, new_graph);
    const std::vector<uint32_t>& to_old = match.to_old;
    const std::vector<uint32_t>& to_new = match.to_new;
    UpdateStats st;
    for (uint32_t v = 0; v < n; ++v) st.nodes_added += to_old[v] == kNone;
    for (uint32_t v = 0; v < og.n; ++v) st.nodes_removed += to_new[v] == kNone;

    // Rows are reused only where the old table made the same choice over the same groups: a
    // table of the fewest-runs rule, the same Hilbert square and cells, and the same components
    // among the kept nodes (a target that changes between "another component" and "no path"
    // changes its group's choice).
    const formats::GraphHeader &ogh = old_graph.header, &ngh = new_graph.header;
    bool reusable = (old_table.header.flags & formats::kNextHopFlagFewestRuns) != 0 &&
                    ogh.size_x == ngh.size_x && ogh.size_z == ngh.size_z &&
                    ogh.cell_size == ngh.cell_size && ogh.origin[0] == ngh.origin[0] &&
                    ogh.origin[2] == ngh.origin[2];
    {
        std::map<uint32_t, uint32_t> old_to_new, new_to_old;
        for (uint32_t v = 0; v < n && reusable; ++v) {
            const uint32_t o = to_old[v];
            if (o == kNone) continue;
            const uint32_t a = og.components[o], b = ng.components[v];
            reusable = old_to_new.emplace(a, b).first->second == b &&
                       new_to_old.emplace(b, a).first->second == a;
        }
    }
    // Cheapest edge cost per (u, v) pair, old ids, in both versions.
    auto cheapest = [](const IntGraph& g, uint32_t u, uint32_t v,
                       const std::vector<uint32_t>* map) {
        uint64_t best = kInfinity;
        for (uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            const uint32_t w = map ? (*map)[g.targets[e]] : g.targets[e];
            if (w == v) best = std::min(best, g.costs[e]);
        }
        return best;
    };
    // The edit: kept nodes at either end of an edge that is gone, dearer, new or cheaper (old
    // ids), and the new nodes.
    std::vector<uint8_t> touched_old(og.n, 0);
    for (uint32_t u = 0; u < og.n; ++u)
        for (uint32_t e = og.offsets[u]; e < og.offsets[u + 1]; ++e) {
            const uint32_t v = og.targets[e];
            if (cheapest(og, u, v, nullptr) != og.costs[e]) continue;
            const uint64_t now = to_new[u] == kNone || to_new[v] == kNone
                                     ? kInfinity
                                     : cheapest(ng, to_new[u], v, &to_old);
            if (now > og.costs[e]) {
                touched_old[u] = touched_old[v] = 1;
                st.edges_changed += to_new[u] != kNone && to_new[v] != kNone;
            }
        }
    for (uint32_t u = 0; u < n; ++u)
        for (uint32_t e = ng.offsets[u]; e < ng.offsets[u + 1]; ++e) {
            const uint32_t ou = to_old[u], ov = to_old[ng.targets[e]];
            const uint64_t before =
                ou == kNone || ov == kNone ? kInfinity : cheapest(og, ou, ov, nullptr);
            if (ng.costs[e] < before) {
                if (ou != kNone) touched_old[ou] = 1;
                if (ov != kNone) touched_old[ov] = 1;
                st.edges_changed += ou != kNone && ov != kNone;
            }
        }
    // Near = the edit's nodes and every node within kNearHops edges of them (new ids). Targets
    // near the edit get their groups re-chosen. For a target t outside, a changed d(x, t)
    // means the last changed edge on a shortest path (old or new) to t is followed by a common
    // path that leaves Near at some outer boundary node b, and then d(x, b) changed too: so a
    // row needs recomputing for far targets only when the distances from the source, or from
    // one of its successors, to some boundary node b differ between the versions.
    // 8 hops, measured: on den520d 6 recomputes 11x more rows on some edits (the boundary's
    // distances change for more sources), on den312d and ht_chantry 4 does.
    constexpr int kNearHops = 8;
    std::vector<uint8_t> near(n, 0);
    std::vector<uint32_t> frontier, next_frontier;
    for (uint32_t v = 0; v < n; ++v)
        if (to_old[v] == kNone || touched_old[to_old[v]]) {
            near[v] = 1;
            frontier.push_back(v);
        }
    for (int hop = 0; hop < kNearHops; ++hop) {
        next_frontier.clear();
        for (uint32_t u : frontier) {
            auto visit = [&](uint32_t w) {
                if (!near[w]) {
                    near[w] = 1;
                    next_frontier.push_back(w);
                }
            };
            for (uint32_t e = ng.offsets[u]; e < ng.offsets[u + 1]; ++e) visit(ng.targets[e]);
            for (uint32_t e = ng.rev.offsets[u]; e < ng.rev.offsets[u + 1]; ++e)
                visit(ng.rev.targets[e]);
        }
        frontier.swap(next_frontier);
    }
    std::vector<uint32_t> near_nodes, boundary;
    for (uint32_t v = 0; v < n; ++v) {
        if (near[v]) {
            near_nodes.push_back(v);
            continue;
        }
        for (uint32_t e = ng.rev.offsets[v]; e < ng.rev.offsets[v + 1]; ++e)
            if (near[ng.rev.targets[e]]) {
                boundary.push_back(v);
                break;
            }
    }
    std::vector<std::atomic<uint8_t>> affected(og.n);
    for (auto& a : affected) a.store(0, std::memory_order_relaxed);
    uint64_t progress = 0;
    const bool edited = !near_nodes.empty() || og.n != n;
    const size_t searched = reusable ? boundary.size() : 0;  // else every row is recomputed
    Status s = runParallel("next-hop changes", searched, resolveThreads(params.threads), context,
                           progress, searched, [&](size_t i) {
                               if (context.cancelled()) throw StageCancelled{};
                               thread_local DistanceSearch old_search, new_search;
                               const auto before = distancesTo(og, to_old[boundary[i]], old_search);
                               const auto after = distancesTo(ng, boundary[i], new_search);
                               for (uint32_t x = 0; x < og.n; ++x)
                                   if (to_new[x] != kNone && before[x] != after[to_new[x]])
                                       affected[x].store(1, std::memory_order_relaxed);
                           });
    if (!s) return s.error();
    // Rows to recompute (new ids): new nodes, changed own edges, affected self or successor.
    std::vector<uint8_t> recompute(n, 0);
    for (uint32_t v = 0; v < n; ++v) {
        const uint32_t o = to_old[v];
        if (o == kNone) {
            recompute[v] = 1;
            continue;
        }
        bool same = og.offsets[o + 1] - og.offsets[o] == ng.offsets[v + 1] - ng.offsets[v];
        for (uint32_t k = 0; same && k < ng.offsets[v + 1] - ng.offsets[v]; ++k) {
            const uint32_t eo = og.offsets[o] + k, en = ng.offsets[v] + k;
            same = to_old[ng.targets[en]] == og.targets[eo] && ng.costs[en] == og.costs[eo];
        }
        bool hit = !same || affected[o].load(std::memory_order_relaxed);
        for (uint32_t e = ng.offsets[v]; e < ng.offsets[v + 1] && !hit; ++e) {
            const uint32_t w = to_old[ng.targets[e]];
            hit = w == kNone || affected[w].load(std::memory_order_relaxed);
        }
        recompute[v] = hit;
    }
    // Too large an edit: rebuilding every row is cheaper than re-choosing the groups.
    if (!reusable || (edited && near_nodes.size() > n / 4))
        std::fill(recompute.begin(), recompute.end(), 1);
    // The groups an edit touches: those holding a node near it or a removed node. Every target
    // of such a group gets its move sets from one backward search, and the reused rows re-choose
    // the group; other groups keep the old rows' symbols (their targets are far: same sets).
    std::vector<uint64_t> dirty_ids;
    RankOrder old_ro;
    if (reusable) {
        old_ro = rankOrder(old_graph);
        for (uint32_t v = 0; v < og.n; ++v)
            if (to_new[v] == kNone) {
                const auto at = std::upper_bound(old_ro.group_starts.begin(),
                                                 old_ro.group_starts.end(), old_ro.ranks[v]);
                dirty_ids.push_back(old_ro.group_ids[size_t(at - old_ro.group_starts.begin()) - 1]);
            }
        for (size_t k = 0; k + 1 < ro.group_starts.size(); ++k)
            for (uint32_t r = ro.group_starts[k]; r < ro.group_starts[k + 1]; ++r)
                if (near[ro.order[r]]) {
                    dirty_ids.push_back(ro.group_ids[k]);
                    break;
                }
        std::sort(dirty_ids.begin(), dirty_ids.end());
        dirty_ids.erase(std::unique(dirty_ids.begin(), dirty_ids.end()), dirty_ids.end());
    }
    std::vector<uint32_t> dirty_groups;           // indexes into ro.group_starts
    std::vector<uint32_t> dirty_index(n, kNone);  // per node of a dirty group: its slot
    uint32_t dirty_targets = 0;
    for (size_t k = 0; k + 1 < ro.group_starts.size(); ++k)
        if (std::binary_search(dirty_ids.begin(), dirty_ids.end(), ro.group_ids[k])) {
            dirty_groups.push_back(uint32_t(k));
            for (uint32_t r = ro.group_starts[k]; r < ro.group_starts[k + 1]; ++r)
                dirty_index[ro.order[r]] = dirty_targets++;
        }
    uint64_t recompute_count = 0;
    for (uint8_t r : recompute) recompute_count += r;
    // Never slower than a rebuild: a backward search per dirty target costs about a row.
    if (reusable && recompute_count + dirty_targets >= uint64_t(n) * 3 / 4) {
        std::fill(recompute.begin(), recompute.end(), 1);
        recompute_count = n;
    }
    if (recompute_count == n) {
        dirty_groups.clear();
        std::fill(dirty_index.begin(), dirty_index.end(), kNone);
        dirty_targets = 0;
    }
    context.debug(
        "next-hop update: {} nodes near the edit, {} boundary nodes, {} rows to recompute, "
        "{} "
        "targets in {} groups to re-choose",
        near_nodes.size(), boundary.size(), recompute_count, dirty_targets, dirty_groups.size());
    // The reused rows' symbols towards every target of the dirty groups: per group, the
    // move sets of every (row, target) from one backward search per target, then the
    // group's choice per row. Stored by (slot, row); symbols fit u16 (symbol_bytes <= 2).
    std::vector<uint16_t> dirty_symbols(size_t(dirty_targets) * n);
    s = runParallel("next-hop groups", dirty_groups.size(), resolveThreads(params.threads), context,
                    progress, dirty_groups.size(), [&](size_t i) {
                        if (context.cancelled()) throw StageCancelled{};
                        thread_local DistanceSearch search;
                        const uint32_t k = dirty_groups[i];
                        const uint32_t begin = ro.group_starts[k], end = ro.group_starts[k + 1];
                        const uint32_t size = end - begin;
                        std::vector<uint64_t> sets(size_t(size) * n);  // by (target in group, row)
                        for (uint32_t j = 0; j < size; ++j) {
                            const uint32_t z = ro.order[begin + j];
                            const auto dz = distancesTo(ng, z, search);
                            for (uint32_t x = 0; x < n; ++x) {
                                if (recompute[x] || x == z || ng.components[x] != ng.components[z])
                                    continue;
                                uint64_t set = 0;
                                if (dz[x] == kInfinity) {
                                    set = kUnreachableBit;
                                } else {
                                    const uint32_t first = ng.offsets[x];
                                    const bool canonical = ng.offsets[x + 1] - first > kMaskDegree;
                                    for (uint32_t e = first; e < ng.offsets[x + 1]; ++e)
                                        if (dz[ng.targets[e]] != kInfinity &&
                                            ng.costs[e] + dz[ng.targets[e]] == dz[x]) {
                                            // Canonical rows: the lowest tight edge, stored as its
                                            // index.
                                            if (canonical) {
                                                set = e - first;
                                                break;
                                            }
                                            set |= uint64_t(1) << (e - first);
                                        }
                                }
                                sets[size_t(j) * n + x] = set;
                            }
                        }
                        std::vector<uint32_t> symbols(size);
                        std::vector<uint64_t> row(size);
                        for (uint32_t x = 0; x < n; ++x) {
                            if (recompute[x]) continue;
                            // (Consecutive rows read consecutive entries of each target's column.)
                            for (uint32_t j = 0; j < size; ++j) row[j] = sets[size_t(j) * n + x];
                            if (ng.offsets[x + 1] - ng.offsets[x] > kMaskDegree) {
                                for (uint32_t j = 0; j < size; ++j)
                                    symbols[j] =
                                        row[j] == kUnreachableBit ? unreachable : uint32_t(row[j]);
                            } else {
                                chooseMoves(row.data(), 0, size, unreachable, symbols.data());
                            }
                            for (uint32_t j = 0; j < size; ++j)
                                dirty_symbols[size_t(dirty_index[ro.order[begin + j]]) * n + x] =
                                    uint16_t(symbols[j]);
                        }
                    });
    if (!s) return s.error();

    // Reused rows are spliced from the old rows' runs over segments of the new rank order:
    // the dirty groups (their symbols above), and stretches of clean groups whose nodes sit
    // in the same order in the old ranks at a fixed shift and share one component (other
    // groups, of mixed components: segments of their own, read target by target).
    struct Segment {
        uint32_t begin = 0, end = 0;  // new ranks
        int64_t shift = 0;            // old rank = new rank + shift (clean segments)
        bool dirty = false;
        uint32_t component = kNone;  // of every target, or kNone (mixed)
    };
    std::vector<Segment> segments;
    if (recompute_count < n) {
        size_t old_k = 0;
        for (size_t k = 0; k + 1 < ro.group_starts.size(); ++k) {
            Segment g;
            g.begin = ro.group_starts[k];
            g.end = ro.group_starts[k + 1];
            g.dirty = dirty_index[ro.order[g.begin]] != kNone;
            g.component = ng.components[ro.order[g.begin]];
            for (uint32_t r = g.begin; r < g.end; ++r)
                if (ng.components[ro.order[r]] != g.component) g.component = kNone;
            if (!g.dirty) {
                // The same group in the old order: same nodes, same order (clean groups
                // hold no node near the edit, added or removed).
                while (old_k < old_ro.group_ids.size() && old_ro.group_ids[old_k] < ro.group_ids[k])
                    ++old_k;
                bool same =
                    old_k < old_ro.group_ids.size() && old_ro.group_ids[old_k] == ro.group_ids[k] &&
                    old_ro.group_starts[old_k + 1] - old_ro.group_starts[old_k] == g.end - g.begin;
                for (uint32_t r = g.begin; same && r < g.end; ++r)
                    same = to_old[ro.order[r]] ==
                           old_ro.order[old_ro.group_starts[old_k] + (r - g.begin)];
                if (!same) return inputError("internal: a clean next-hop group changed");
                g.shift = int64_t(old_ro.group_starts[old_k]) - int64_t(g.begin);
            }
            Segment* last = segments.empty() ? nullptr : &segments.back();
            if (last != nullptr && !g.dirty && !last->dirty && last->shift == g.shift &&
                last->component == g.component && g.component != kNone)
                last->end = g.end;
            else
                segments.push_back(g);
        }
    }

    // The new table, block by block: recomputed rows, or old rows re-encoded in the new
    // order.
    std::vector<std::vector<uint8_t>> frames(h.block_count);
    std::vector<uint64_t> runs(h.block_count, 0);
    std::atomic<uint64_t> recomputed{0}, failed{0};
    s = runParallel(
        "next-hop rows", h.block_count, resolveThreads(params.threads), context, progress,
        h.block_count, [&](size_t task) {
            if (context.cancelled()) throw StageCancelled{};
            thread_local Workspace w;
            w.ensure(n);
            BlockView cached;
            uint32_t cached_block = kNone;
            runs[task] = buildBlock(
                uint32_t(task), h.block_rows, n, h.symbol_bytes, w,
                [&](uint32_t rank, Workspace& ws) {
                    const uint32_t v = ro.order[rank];
                    if (recompute[v]) {
                        recomputed.fetch_add(1, std::memory_order_relaxed);
                        rowSymbols(ng, v, ro, unreachable, ws);
                        return;
                    }
                    const uint32_t o = to_old[v];
                    const uint32_t old_rank = old_table.ranks[o];
                    const uint32_t block = old_rank / old_table.header.block_rows;
                    RunBuilder out{ws.run_starts, ws.run_symbols};
                    out.clear();
                    ws.runs_ready = true;
                    if (block != cached_block) {
                        if (!decompressBlock(old_table, block, cached)) {
                            failed.fetch_add(1);
                            cached_block = kNone;
                            out.finish();
                            return;
                        }
                        cached_block = block;
                    }
                    formats::NextHopRow old;
                    if (!formats::findNextHopRow(cached.data.data(), cached.data.size(),
                                                 cached.rows,
                                                 old_rank % old_table.header.block_rows,
                                                 old_table.header.symbol_bytes, old)) {
                        failed.fetch_add(1);
                        out.finish();
                        return;
                    }
                    const uint32_t osb = old_table.header.symbol_bytes;
                    auto old_start = [&](uint32_t i) {
                        return formats::loadLe32(old.starts + 4 * size_t(i));
                    };
                    bool ascending = old_start(0) == 0;
                    for (uint32_t i = 1; ascending && i < old.runs; ++i)
                        ascending = old_start(i) > old_start(i - 1) && old_start(i) < og.n;
                    if (!ascending) {
                        failed.fetch_add(1);
                        out.finish();
                        return;
                    }
                    auto old_symbol = [&](uint32_t i) {
                        const uint8_t* p = old.symbols + osb * size_t(i);
                        const uint32_t value = osb == 1 ? *p : formats::loadLe16(p);
                        return value == old_unreachable ? unreachable : value;
                    };
                    // The old run holding old rank r.
                    auto old_run = [&](uint32_t r) {
                        uint32_t lo = 0, hi = old.runs;
                        while (hi - lo > 1) {
                            const uint32_t mid = lo + (hi - lo) / 2;
                            if (old_start(mid) <= r)
                                lo = mid;
                            else
                                hi = mid;
                        }
                        return lo;
                    };
                    const uint32_t component = ng.components[v];
                    const uint32_t own = ro.ranks[v];
                    for (const Segment& seg : segments) {
                        if (seg.dirty) {
                            for (uint32_t r = seg.begin; r < seg.end; ++r) {
                                const uint32_t target = ro.order[r];
                                if (target == v || ng.components[target] != component) continue;
                                out.answer(r, dirty_symbols[size_t(dirty_index[target]) * n + v]);
                            }
                        } else if (seg.component == component) {
                            // Every target answers but the source itself: the old runs over
                            // the ranks before and after it, shifted.
                            auto copy = [&](uint32_t begin, uint32_t end) {
                                if (begin >= end) return;
                                const int64_t first = int64_t(begin) + seg.shift;
                                const int64_t stop = int64_t(end) + seg.shift;
                                uint32_t i = old_run(uint32_t(first));
                                out.answer(begin, old_symbol(i));
                                for (++i; i < old.runs && int64_t(old_start(i)) < stop; ++i)
                                    out.answer(uint32_t(int64_t(old_start(i)) - seg.shift),
                                               old_symbol(i));
                            };
                            if (own >= seg.begin && own < seg.end) {
                                copy(seg.begin, own);
                                copy(own + 1, seg.end);
                            } else {
                                copy(seg.begin, seg.end);
                            }
                        } else if (seg.component != kNone && seg.component != component) {
                            continue;  // another component: no answers
                        } else {
                            for (uint32_t r = seg.begin; r < seg.end; ++r) {
                                const uint32_t target = ro.order[r];
                                if (target == v || ng.components[target] != component) continue;
                                out.answer(r,
                                           old_symbol(old_run(uint32_t(int64_t(r) + seg.shift))));
                            }
                        }
                    }
                    out.finish();
                },
                frames[task], nullptr);
        });
    if (!s) return s.error();
    if (failed.load() > 0)
        return inputError("the old table's blocks do not decode ({} rows); rebuild it",
                          failed.load());
    collectBlocks(t, frames);
    for (uint64_t r : runs) h.run_count += r;
    st.rows_total = n;
    st.rows_recomputed = recomputed.load();
    st.rows_reused = n - st.rows_recomputed;
    st.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (stats) *stats = st;
    return t;
}

Result<std::vector<uint16_t>> buildGoalBounds(const graph::Graph& graph,
                                              const graph::JumpTable& jumps, int threads,
                                              Context& context) {
    auto ig = integerGraph(graph);
    if (!ig) return ig.error();
    const IntGraph& g = *ig;
    const formats::GraphHeader& h = graph.header;
    if (graph.cells.size() != g.n || h.size_x == 0)
        return inputError("goal bounds are for tile graphs (node cells)");
    if (h.size_x > 65536 || h.size_z > 65536)
        return inputError("a grid of {} x {} cells is too large for goal bounds (u16 cells)",
                          h.size_x, h.size_z);
    if (jumps.entries.size() != size_t(g.n) * formats::kJumpDirections)
        return inputError("the jump point table belongs to another graph");
    constexpr size_t kBox = formats::kJumpBoundValues;
    const size_t per_node = formats::kJumpDirections * kBox;
    std::vector<uint16_t> bounds(size_t(g.n) * per_node);
    std::vector<uint32_t> regular;
    for (uint32_t v = 0; v < g.n; ++v) {
        if (jumps.entries[size_t(v) * formats::kJumpDirections] != formats::kJumpSpecial) {
            regular.push_back(v);
            continue;
        }
        for (int d = 0; d < formats::kJumpDirections; ++d) {  // full boxes
            uint16_t* box = bounds.data() + size_t(v) * per_node + size_t(d) * kBox;
            box[0] = box[1] = 0;
            box[2] = box[3] = 0xFFFF;
        }
    }
    const uint32_t width = h.size_x;
    uint64_t progress = 0;
    Status s = runParallel(
        "goal bounds", regular.size(), resolveThreads(threads), context, progress, regular.size(),
        [&](size_t i) {
            if (context.cancelled()) throw StageCancelled{};
            thread_local MoveSetSearch search;
            const uint32_t u = regular[i];
            const uint32_t ux = graph.cells[u].column % width, uz = graph.cells[u].column / width;
            // The direction of each of u's edges (a regular node's edges are grid steps).
            int direction[kMaskDegree + 1] = {};
            const uint32_t first = g.offsets[u], degree = g.offsets[u + 1] - first;
            for (uint32_t k = 0; k < degree && k <= kMaskDegree; ++k) {
                const uint32_t column = graph.cells[g.targets[first + k]].column;
                const int64_t dx = int64_t(column % width) - ux, dz = int64_t(column / width) - uz;
                direction[k] =
                    formats::jumpDirectionOf(int((dx > 0) - (dx < 0)), int((dz > 0) - (dz < 0)));
            }
            uint32_t box[formats::kJumpDirections][kBox];
            for (auto& b : box) b[0] = b[1] = 0xFFFF, b[2] = b[3] = 0;
            search.run(g, u);
            for (uint32_t t : search.touched) {
                if (t == u) continue;
                const uint32_t tx = graph.cells[t].column % width;
                const uint32_t tz = graph.cells[t].column / width;
                for (uint64_t set = search.sets[t]; set != 0; set &= set - 1) {
                    const int k = std::countr_zero(set);
                    if (k >= int(degree) || direction[k] < 0) continue;
                    uint32_t* b = box[direction[k]];
                    b[0] = std::min(b[0], tx), b[1] = std::min(b[1], tz);
                    b[2] = std::max(b[2], tx), b[3] = std::max(b[3], tz);
                }
            }
            uint16_t* out = bounds.data() + size_t(u) * per_node;
            for (int d = 0; d < formats::kJumpDirections; ++d)
                for (size_t k = 0; k < kBox; ++k) out[size_t(d) * kBox + k] = uint16_t(box[d][k]);
        });
    if (!s) return s.error();
    return bounds;
}

void addGoalBoundsSection(formats::ContainerWriter& writer, const std::vector<uint16_t>& bounds) {
    writer.add(formats::kSecJumpBounds, arrayBytes(bounds));
}

void addNextHopSections(formats::ContainerWriter& writer, const Table& t) {
    std::vector<uint8_t> header(formats::kNextHopHeaderSize);
    formats::encodeNextHopHeader(t.header, header.data());
    writer.add(formats::kSecNextHopHeader, std::move(header), formats::Codec::raw);
    writer.add(formats::kSecNextHopRanks, arrayBytes(t.ranks));
    writer.add(formats::kSecNextHopOffsets, arrayBytes(t.offsets));
    writer.add(formats::kSecNextHopBlocks, t.blocks, formats::Codec::raw);
}

Status saveTable(const std::filesystem::path& path, const Table& t) {
    return saveTableContainer(
        path, formats::kKindNextHop, formats::kNextHopVersion,
        [&](formats::ContainerWriter& writer) { addNextHopSections(writer, t); });
}

Result<Table> loadTable(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindNextHop, formats::kNextHopVersion);
    if (!container) return container.error();
    Table t;
    if (Status s =
            container->header(formats::kSecNextHopHeader, formats::decodeNextHopHeader, t.header);
        !s)
        return s.error();
    const formats::NextHopHeader& h = t.header;
    auto ranks = container->section(formats::kSecNextHopRanks);
    if (!ranks) return ranks.error();
    auto offsets = container->section(formats::kSecNextHopOffsets);
    if (!offsets) return offsets.error();
    auto blocks = container->section(formats::kSecNextHopBlocks);
    if (!blocks) return blocks.error();
    // navrt's checks, plus that the ranks are a permutation (navrt has no scratch memory for it).
    std::vector<uint8_t> rank_seen(h.node_count, 0);
    if (formats::Error e = formats::validateNextHopSections(
            h, {ranks->data(), ranks->size(), true}, {offsets->data(), offsets->size(), true},
            blocks->size(), rank_seen.data()))
        return containerError(path, e);
    t.ranks.resize(h.node_count);
    if (!t.ranks.empty()) std::memcpy(t.ranks.data(), ranks->data(), ranks->size());
    t.offsets.resize(size_t(h.stored_blocks) + 1);
    std::memcpy(t.offsets.data(), offsets->data(), offsets->size());
    t.blocks = std::move(*blocks);
    return t;
}

Status checkMatches(const Table& t, const std::filesystem::path& table_path, const graph::Graph& g,
                    const std::filesystem::path& graph_path) {
    const uint64_t fingerprint = graph::graphFingerprint(g);
    if (t.header.node_count != g.nodeCount() || t.header.graph_fingerprint != fingerprint)
        return inputError(
            "{} was built for another graph ({} nodes, fingerprint {:016x}) than {} "
            "({} nodes, fingerprint {:016x}); rebuild it with 'navbake nexthop {}'",
            table_path.string(), t.header.node_count, t.header.graph_fingerprint,
            graph_path.string(), g.nodeCount(), fingerprint, graph_path.string());
    return {};
}

}  // namespace nav::nexthop
