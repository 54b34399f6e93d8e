#include "lib/runtime/navrt_nexthop.h"

#include <zstd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "formats/bytes.h"
#include "formats/graph_sections.h"

namespace navrt {

using nav::formats::makeError;
namespace fmt = nav::formats;

NextHopQuery::~NextHopQuery() { release(); }

void NextHopQuery::release() {
    if (allocator_.release != nullptr)
        for (void* p : {static_cast<void*>(cache_), static_cast<void*>(slot_block_),
                        static_cast<void*>(slot_size_), static_cast<void*>(path_),
                        static_cast<void*>(block_at_), static_cast<void*>(row_at_),
                        static_cast<void*>(runs_)})
            if (p != nullptr) allocator_.release(p, allocator_.user);
    if (zstd_ != nullptr) ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_));
    zstd_ = nullptr;
    cache_ = nullptr;
    slot_block_ = slot_size_ = path_ = nullptr;
    block_at_ = nullptr;
    row_at_ = runs_ = nullptr;
    symbol_bits_ = run_mask_ = 0;
    memory_bytes_ = 0;
    graph_ = nullptr;
    slots_ = 0;
    path_length_ = 0;
}

namespace {

uint32_t maxDegree(const GraphView& g) {
    uint32_t most = 0;
    for (uint32_t v = 0; v < g.nodeCount(); ++v) {
        const uint32_t d = g.edge_offsets[v + 1] - g.edge_offsets[v];
        most = d > most ? d : most;
    }
    return most;
}

// The decompressed size of flat-table block b, as its zstd frame declares it (at most 1 GiB).
Error frameSize(const GraphView& g, uint32_t b, uint64_t& raw) {
    const uint8_t* src = g.next_hop_blocks + g.next_hop_offsets[b];
    const size_t size = size_t(g.next_hop_offsets[b + 1] - g.next_hop_offsets[b]);
    const unsigned long long declared = ZSTD_getFrameContentSize(src, size);
    if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN ||
        declared > (1ull << 30))
        return makeError(ErrorCode::bad_section, g.next_hop_offsets[b], fmt::kSecNextHopBlocks,
                         "block %u is not a zstd frame of a known size", b);
    raw = declared;
    return {};
}

}  // namespace

uint64_t NextHopQuery::decodedBytes(const GraphView& graph) {
    if (graph.next_hop_ranks == nullptr || graph.implicitVolume()) return 0;
    return fmt::nextHopDecodedBytes(graph.nodeCount(), graph.next_hop_header.run_count,
                                    maxDegree(graph));
}

// Decompresses every block once into runs_ (by node: row_at_), checking each row: runs ascending
// from 0 below node_count, symbols naming an edge of the row's node or no path.
Error NextHopQuery::decodeTable(const GraphView& g, uint32_t max_degree) {
    const fmt::NextHopHeader& h = g.next_hop_header;
    const uint32_t n = g.nodeCount();
    symbol_bits_ = fmt::nextHopDecodedSymbolBits(max_degree);
    run_mask_ = (uint32_t(1) << symbol_bits_) - 1;
    const uint32_t sb = h.symbol_bytes, unreachable = fmt::nextHopUnreachable(sb);
    auto allocate = [&](uint64_t bytes) {
        memory_bytes_ += bytes;
        return allocator_.allocate(size_t(bytes), allocator_.user);
    };
    size_t largest = 0;
    for (uint32_t b = 0; b < h.block_count; ++b) {
        uint64_t raw = 0;
        if (Error e = frameSize(g, b, raw)) return e;
        if (raw > largest) largest = size_t(raw);
    }
    // Scratch: one decompressed block and the node of each rank, released before returning.
    uint8_t* scratch = static_cast<uint8_t*>(allocator_.allocate(largest + 16, allocator_.user));
    uint32_t* node_of =
        static_cast<uint32_t*>(allocator_.allocate(4 * size_t(n) + 4, allocator_.user));
    row_at_ = static_cast<uint32_t*>(allocate(4 * (uint64_t(n) + 1)));
    struct Scratch {
        const Allocator& a;
        void* p[2];
        ~Scratch() {
            for (void* q : p)
                if (q != nullptr) a.release(q, a.user);
        }
    } hold{allocator_, {scratch, node_of}};
    if (scratch == nullptr || node_of == nullptr || row_at_ == nullptr)
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "cannot allocate the decoded next-hop table");
    for (uint32_t r = 0; r < n; ++r) node_of[r] = kNoNode;
    for (uint32_t v = 0; v < n; ++v) {
        if (node_of[g.next_hop_ranks[v]] != kNoNode)
            return makeError(ErrorCode::bad_section, 4 * uint64_t(v), fmt::kSecNextHopRanks,
                             "node %u has rank %u, which another node has too", v,
                             g.next_hop_ranks[v]);
        node_of[g.next_hop_ranks[v]] = v;
    }
    // Two passes over the blocks: run counts (row offsets by node), then the runs.
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            uint64_t total = 0;
            for (uint32_t v = 0; v <= n; ++v) {
                const uint32_t count = row_at_[v];
                row_at_[v] = uint32_t(total);
                total += count;
            }
            if (total > 0xFFFFFFFFull)
                return makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                                 "%llu runs do not fit the decoded form",
                                 static_cast<unsigned long long>(total));
            runs_ = static_cast<uint32_t*>(allocate(total > 0 ? 4 * total : 4));
            if (runs_ == nullptr)
                return makeError(ErrorCode::out_of_memory, 0, 0,
                                 "cannot allocate the decoded next-hop table");
        } else {
            for (uint32_t v = 0; v <= n; ++v) row_at_[v] = 0;
        }
        for (uint32_t b = 0; b < h.block_count; ++b) {
            const uint8_t* src = g.next_hop_blocks + g.next_hop_offsets[b];
            const size_t size = size_t(g.next_hop_offsets[b + 1] - g.next_hop_offsets[b]);
            const size_t written =
                ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(zstd_), scratch,
                                    size_t(ZSTD_getFrameContentSize(src, size)), src, size);
            if (ZSTD_isError(written))
                return makeError(ErrorCode::bad_section, g.next_hop_offsets[b],
                                 fmt::kSecNextHopBlocks, "block %u does not decompress", b);
            const uint32_t first = b * h.block_rows;
            const uint32_t rows = h.block_rows < n - first ? h.block_rows : n - first;
            for (uint32_t i = 0; i < rows; ++i) {
                const uint32_t v = node_of[first + i];
                fmt::NextHopRow row;
                if (!fmt::findNextHopRow(scratch, written, rows, i, sb, row))
                    return makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                                     "block %u: row %u is malformed", b, i);
                if (pass == 0) {
                    row_at_[v] = row.runs;
                    continue;
                }
                const uint32_t degree = g.edge_offsets[v + 1] - g.edge_offsets[v];
                uint32_t* out = runs_ + row_at_[v];
                for (uint32_t k = 0; k < row.runs; ++k) {
                    const uint32_t start = fmt::loadLe32(row.starts + 4 * size_t(k));
                    const uint8_t* at = row.symbols + sb * size_t(k);
                    const uint32_t symbol = sb == 1 ? *at : fmt::loadLe16(at);
                    if (start >= n || (k == 0) != (start == 0) ||
                        (k > 0 && start <= (out[k - 1] >> symbol_bits_)))
                        return makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                                         "block %u: row %u: run %u is not ascending", b, i, k);
                    // (A node without edges is alone in its component: its row holds only
                    // don't-cares, stored as 0, and is never read.)
                    if (symbol != unreachable && symbol >= degree && !(degree == 0 && symbol == 0))
                        return makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                                         "block %u: row %u names edge %u of a node with %u edges",
                                         b, i, symbol, degree);
                    out[k] = (start << symbol_bits_) | (symbol == unreachable ? run_mask_ : symbol);
                }
            }
        }
    }
    return {};
}

Error NextHopQuery::init(const GraphView& graph, uint64_t cache_bytes, const Allocator& allocator,
                         NextHopForm form) {
    release();
    if (!graph.hasNextHop() || graph.implicitVolume())
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "next-hop lookups need an asset with next-hop sections (navbake pack "
                         "--nexthop FILE.nh)");
    hierarchical_ = graph.next_hop_ranks == nullptr;
    allocator_ = resolveAllocator(allocator);
    // Flat tables: the decoded form's size (0 when it does not fit 32-bit runs).
    const uint32_t max_degree = hierarchical_ ? 0 : maxDegree(graph);
    const uint64_t decoded_bytes =
        hierarchical_ ? 0
                      : fmt::nextHopDecodedBytes(graph.nodeCount(), graph.next_hop_header.run_count,
                                                 max_degree);
    if (form == NextHopForm::decoded && decoded_bytes == 0)
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         hierarchical_ ? "a hierarchical next-hop table has no decoded form"
                                       : "the next-hop table's runs do not fit the decoded form");
    if (form == NextHopForm::decoded ||
        (form == NextHopForm::fastest && decoded_bytes > 0 && decoded_bytes <= cache_bytes)) {
        zstd_ = ZSTD_createDCtx();
        path_ = static_cast<uint32_t*>(
            allocator_.allocate(4 * (size_t(graph.nodeCount()) + 1), allocator_.user));
        memory_bytes_ = 4 * (uint64_t(graph.nodeCount()) + 1);
        if (zstd_ == nullptr || path_ == nullptr) {
            release();
            return makeError(ErrorCode::out_of_memory, 0, 0,
                             "cannot allocate the next-hop path buffer");
        }
        if (Error e = decodeTable(graph, max_degree)) {
            release();
            return e;
        }
        // The zstd context is needed no more.
        ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_));
        zstd_ = nullptr;
        graph_ = &graph;
        decompressions_ = 0;
        error_ = Error{};
        return {};
    }
    // One pass over the frames: the largest decompressed block sizes every cache slot, and each
    // block's place in the whole-table arena is kept in case the whole table fits.
    const fmt::NextHopHeader& h = graph.next_hop_header;
    size_t largest = 0;
    uint64_t total = 0;
    if (!hierarchical_) {
        block_at_ = static_cast<uint64_t*>(
            allocator_.allocate(8 * size_t(h.block_count) + 8, allocator_.user));
        if (block_at_ == nullptr)
            return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate the next-hop cache");
    }
    for (uint32_t b = 0; !hierarchical_ && b < h.block_count; ++b) {
        uint64_t raw = 0;
        if (Error e = frameSize(graph, b, raw)) {
            release();
            return e;
        }
        if (raw > largest) largest = size_t(raw);
        block_at_[b] = total;
        total += (raw + 15) / 16 * 16;
    }
    slot_bytes_ = (largest + 15) / 16 * 16;
    const bool whole = !hierarchical_ && total <= cache_bytes;
    if (!whole && block_at_ != nullptr) {
        allocator_.release(block_at_, allocator_.user);
        block_at_ = nullptr;
    }
    const uint64_t fit = slot_bytes_ > 0 ? cache_bytes / slot_bytes_ : 1;
    slots_ = whole || hierarchical_ ? (h.block_count > 0 ? h.block_count : 1)
                                    : uint32_t(fit < 1               ? 1
                                               : fit > h.block_count ? h.block_count
                                                                     : fit);
    const size_t n = graph.nodeCount();
    const uint64_t arena = hierarchical_ ? 16
                           : whole       ? total + 16
                                         : uint64_t(slots_) * slot_bytes_ + 16;
    cache_ = static_cast<uint8_t*>(allocator_.allocate(size_t(arena), allocator_.user));
    slot_block_ = static_cast<uint32_t*>(allocator_.allocate(4 * size_t(slots_), allocator_.user));
    slot_size_ = static_cast<uint32_t*>(allocator_.allocate(4 * size_t(slots_), allocator_.user));
    path_ = static_cast<uint32_t*>(allocator_.allocate(4 * (n + 1), allocator_.user));
    zstd_ = ZSTD_createDCtx();
    if (!cache_ || !slot_block_ || !slot_size_ || !path_ || !zstd_) {
        release();
        return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate the next-hop cache");
    }
    memory_bytes_ = arena + 8 * uint64_t(slots_) + 4 * (uint64_t(n) + 1) +
                    (block_at_ != nullptr ? 8 * uint64_t(h.block_count) + 8 : 0);
    for (uint32_t i = 0; i < slots_; ++i) {
        slot_block_[i] = kNoNode;
        slot_size_[i] = 0;
    }
    graph_ = &graph;
    decompressions_ = 0;
    error_ = Error{};
    return {};
}

// The decompressed block (slot = block mod slots); null on a corrupt frame.
const uint8_t* NextHopQuery::block(uint32_t index) {
    const uint32_t slot = index % slots_;
    uint8_t* dst = block_at_ ? cache_ + block_at_[index] : cache_ + size_t(slot) * slot_bytes_;
    if (slot_block_[slot] == index) return dst;
    const GraphView& g = *graph_;
    const uint8_t* src = g.next_hop_blocks + g.next_hop_offsets[index];
    const size_t size = size_t(g.next_hop_offsets[index + 1] - g.next_hop_offsets[index]);
    // Capacity = the frame's exact size (at most slot_bytes_, checked by init): zstd may use
    // spare output capacity as scratch space, which would overwrite the next block.
    const size_t capacity = size_t(ZSTD_getFrameContentSize(src, size));
    const size_t written =
        ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(zstd_), dst, capacity, src, size);
    ++decompressions_;
    if (ZSTD_isError(written)) {
        slot_block_[slot] = kNoNode;
        error_ = makeError(ErrorCode::bad_section, g.next_hop_offsets[index],
                           fmt::kSecNextHopBlocks, "block %u does not decompress", index);
        return nullptr;
    }
    slot_block_[slot] = index;
    slot_size_[slot] = uint32_t(written);
    return dst;
}

uint32_t NextHopQuery::intraSymbol(uint32_t cluster, uint32_t from, uint32_t to) const {
    const GraphView& g = *graph_;
    const uint32_t* local = reinterpret_cast<const uint32_t*>(g.hier_hop[fmt::kHopLocal]);
    const uint32_t* mo = reinterpret_cast<const uint32_t*>(g.hier_hop[fmt::kHopMemberOffsets]);
    const uint64_t* io = reinterpret_cast<const uint64_t*>(g.hier_hop[fmt::kHopIntraOffsets]);
    const uint32_t sb = g.hier_hop_header.symbol_bytes;
    const uint64_t size = mo[cluster + 1] - mo[cluster];
    const uint8_t* p =
        g.hier_hop[fmt::kHopIntra] + io[cluster] + (uint64_t(local[from]) * size + local[to]) * sb;
    const uint32_t symbol = sb == 1 ? *p : fmt::loadLe16(p);
    if (symbol == (sb == 1 ? 0xFFu : 0xFFFFu) ||
        symbol >= g.edge_offsets[from + 1] - g.edge_offsets[from])
        return kNoNode;
    return symbol;
}

// Cost of the intra-cluster path from `from` to `to` (+infinity when none or corrupt).
double NextHopQuery::intraDistance(uint32_t cluster, uint32_t from, uint32_t to) const {
    const GraphView& g = *graph_;
    const uint32_t* mo = reinterpret_cast<const uint32_t*>(g.hier_hop[fmt::kHopMemberOffsets]);
    const uint32_t* clusters = reinterpret_cast<const uint32_t*>(g.hier_hop[fmt::kHopClusters]);
    const uint32_t limit = mo[cluster + 1] - mo[cluster];
    double cost = 0;
    uint32_t current = from;
    for (uint32_t steps = 0; current != to; ++steps) {
        const uint32_t symbol = steps < limit ? intraSymbol(cluster, current, to) : kNoNode;
        if (symbol == kNoNode) return HUGE_VAL;
        const uint32_t e = g.edge_offsets[current] + symbol;
        cost += double(g.edge_costs[e]);
        current = g.edgeTarget(current, e);
        if (clusters[current] != cluster) return HUGE_VAL;
    }
    return cost;
}

uint32_t NextHopQuery::hierEdge(uint32_t from, uint32_t to) {
    const GraphView& g = *graph_;
    const fmt::HierNextHopHeader& h = g.hier_hop_header;
    auto u32 = [&](uint32_t s) { return reinterpret_cast<const uint32_t*>(g.hier_hop[s]); };
    auto f32 = [&](uint32_t s) { return reinterpret_cast<const float*>(g.hier_hop[s]); };
    const uint32_t* clusters = u32(fmt::kHopClusters);
    const uint32_t* local = u32(fmt::kHopLocal);
    const uint32_t* mo = u32(fmt::kHopMemberOffsets);
    const uint32_t* eo = u32(fmt::kHopEntranceOffsets);
    const uint32_t* entrances = u32(fmt::kHopEntrances);
    const uint64_t* dofs = reinterpret_cast<const uint64_t*>(g.hier_hop[fmt::kHopDistanceOffsets]);
    const float* to_entrance = f32(fmt::kHopNodeToEntrance);
    const float* from_entrance = f32(fmt::kHopEntranceToNode);
    const float* between = f32(fmt::kHopEntranceDistances);
    const uint32_t* next = u32(fmt::kHopEntranceNext);
    const uint32_t cs = clusters[from], ct = clusters[to];
    const uint64_t ents = h.entrance_count;
    // The best plan: direct inside a shared cluster, else entrance a -> entrance b.
    double best = cs == ct ? intraDistance(cs, from, to) : HUGE_VAL;
    uint32_t best_a = kNoNode, best_b = kNoNode;
    const uint32_t sa = eo[cs + 1] - eo[cs], tb = eo[ct + 1] - eo[ct];
    const uint32_t ts = mo[ct + 1] - mo[ct];
    const float* row = to_entrance + dofs[cs] + uint64_t(local[from]) * sa;
    for (uint32_t a = 0; a < sa; ++a) {
        const double da = row[a];
        if (!(da < HUGE_VAL)) continue;
        const uint64_t ga = eo[cs] + a;
        for (uint32_t b = 0; b < tb; ++b) {
            const double db = from_entrance[dofs[ct] + uint64_t(b) * ts + local[to]];
            const double mid = between[ga * ents + eo[ct] + b];
            const double total = da + mid + db;
            if (total < best) {
                best = total;
                best_a = uint32_t(ga);
                best_b = eo[ct] + b;
            }
        }
    }
    if (!(best < HUGE_VAL)) return kNoNode;
    if (best_a == kNoNode) return intraSymbol(cs, from, to);
    if (from != entrances[best_a]) return intraSymbol(cs, from, entrances[best_a]);
    if (best_a == best_b) return intraSymbol(cs, from, to);  // from is the entrance b itself
    const uint32_t hop = next[uint64_t(best_a) * ents + best_b];
    if (hop == kNoNode) return kNoNode;
    const uint32_t node = entrances[hop];
    if (clusters[node] == cs) return intraSymbol(cs, from, node);
    for (uint32_t e = g.edge_offsets[from]; e < g.edge_offsets[from + 1]; ++e)
        if (g.edgeTarget(from, e) == node) return e - g.edge_offsets[from];
    error_ = makeError(ErrorCode::bad_section, 0, fmt::kHierHopSectionIds[fmt::kHopEntranceNext],
                       "entrance %u has no edge to entrance %u", best_a, hop);
    return kNoNode;
}

uint32_t NextHopQuery::nextEdge(uint32_t from, uint32_t to) {
    if (graph_ == nullptr) return kNoNode;
    const GraphView& g = *graph_;
    const uint32_t n = g.nodeCount();
    if (from >= n || to >= n || from == to || g.components[from] != g.components[to])
        return kNoNode;
    if (hierarchical_) return hierEdge(from, to);
    if (runs_ != nullptr) {
        const uint32_t symbol = decodedSymbol(from, g.next_hop_ranks[to]);
        return symbol == run_mask_ ? kNoNode : symbol;
    }
    const fmt::NextHopHeader& h = g.next_hop_header;
    const uint32_t rank = g.next_hop_ranks[from];
    const uint32_t index = rank / h.block_rows, row = rank % h.block_rows;
    const uint8_t* data = block(index);
    if (data == nullptr) return kNoNode;
    const size_t bytes = slot_size_[index % slots_];
    const uint32_t rows =
        h.block_rows < n - index * h.block_rows ? h.block_rows : n - index * h.block_rows;
    const uint32_t sb = h.symbol_bytes;
    fmt::NextHopRow r;
    if (!fmt::findNextHopRow(data, bytes, rows, row, sb, r)) {
        error_ = makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                           "block %u: row %u is malformed", index, row);
        return kNoNode;
    }
    // The last run starting at or before the target's rank.
    const uint32_t target = g.next_hop_ranks[to];
    uint32_t lo = 0, hi = r.runs;  // invariant: start[lo] <= target < start[hi]
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (fmt::loadLe32(r.starts + 4 * size_t(mid)) <= target)
            lo = mid;
        else
            hi = mid;
    }
    const uint8_t* symbol = r.symbols + sb * size_t(lo);
    const uint32_t edge = sb == 1 ? *symbol : fmt::loadLe16(symbol);
    if (edge == fmt::nextHopUnreachable(sb)) return kNoNode;
    if (edge >= g.edge_offsets[from + 1] - g.edge_offsets[from]) {
        error_ = makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                           "block %u: row %u names edge %u of a node with %u edges", index, row,
                           edge, g.edge_offsets[from + 1] - g.edge_offsets[from]);
        return kNoNode;
    }
    return edge;
}

uint32_t NextHopQuery::nextHop(uint32_t from, uint32_t to) {
    if (graph_ != nullptr && from == to && from < graph_->nodeCount()) return from;
    const uint32_t edge = nextEdge(from, to);
    if (edge == kNoNode) return kNoNode;
    return graph_->edgeTarget(from, graph_->edge_offsets[from] + edge);
}

PathStatus NextHopQuery::pathByNextHop(uint32_t from, uint32_t to) {
    path_length_ = 0;
    cost_ = 0;
    if (graph_ == nullptr) return PathStatus::not_initialized;
    const GraphView& g = *graph_;
    const uint32_t n = g.nodeCount();
    if (from >= n) return PathStatus::invalid_start;
    if (to >= n) return PathStatus::invalid_goal;
    // Decoded form: the components checked and the target's rank found once; each step is one
    // row search (rows were checked by init).
    const bool decoded = runs_ != nullptr;
    if (decoded && g.components[from] != g.components[to]) return PathStatus::no_path;
    const uint32_t rank = decoded ? g.next_hop_ranks[to] : 0;
    double cost = 0;
    uint32_t length = 0, current = from;
    path_[length++] = from;
    while (current != to) {
        uint32_t edge;
        if (decoded) {
            edge = decodedSymbol(current, rank);
            if (edge == run_mask_) edge = kNoNode;
        } else {
            edge = nextEdge(current, to);
        }
        if (edge == kNoNode || length > n) {  // no path, corrupt table, or a cycle
            if (length > n)
                error_ = makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                                   "next hops from %u to %u do not reach the goal", from, to);
            return PathStatus::no_path;
        }
        const uint32_t e = g.edge_offsets[current] + edge;
        cost += double(g.edge_costs[e]);
        current = g.edgeTarget(current, e);
        path_[length++] = current;
    }
    path_length_ = length;
    cost_ = cost;
    return PathStatus::found;
}

}  // namespace navrt
