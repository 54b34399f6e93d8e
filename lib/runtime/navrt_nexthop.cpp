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
                        static_cast<void*>(block_at_)})
            if (p != nullptr) allocator_.release(p, allocator_.user);
    if (zstd_ != nullptr) ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_));
    zstd_ = nullptr;
    cache_ = nullptr;
    slot_block_ = slot_size_ = path_ = nullptr;
    block_at_ = nullptr;
    graph_ = nullptr;
    slots_ = 0;
    path_length_ = 0;
}

Error NextHopQuery::init(const GraphView& graph, uint64_t cache_bytes, const Allocator& allocator) {
    release();
    if (!graph.hasNextHop() || graph.implicitVolume())
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "next-hop lookups need an asset with next-hop sections (navbake pack "
                         "--nexthop FILE.nh)");
    hierarchical_ = graph.next_hop_ranks == nullptr;
    allocator_ = resolveAllocator(allocator);
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
        const uint8_t* src = graph.next_hop_blocks + graph.next_hop_offsets[b];
        const size_t size = size_t(graph.next_hop_offsets[b + 1] - graph.next_hop_offsets[b]);
        const unsigned long long raw = ZSTD_getFrameContentSize(src, size);
        if (raw == ZSTD_CONTENTSIZE_ERROR || raw == ZSTD_CONTENTSIZE_UNKNOWN ||
            raw > (1ull << 30)) {
            release();
            return makeError(ErrorCode::bad_section, graph.next_hop_offsets[b],
                             fmt::kSecNextHopBlocks, "block %u is not a zstd frame of a known size",
                             b);
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
    path_[path_length_++] = from;
    uint32_t current = from;
    while (current != to) {
        const uint32_t edge = nextEdge(current, to);
        if (edge == kNoNode || path_length_ > n) {  // no path, corrupt table, or a cycle
            if (path_length_ > n)
                error_ = makeError(ErrorCode::bad_section, 0, fmt::kSecNextHopBlocks,
                                   "next hops from %u to %u do not reach the goal", from, to);
            path_length_ = 0;
            cost_ = 0;
            return PathStatus::no_path;
        }
        const uint32_t e = g.edge_offsets[current] + edge;
        cost_ += double(g.edge_costs[e]);
        current = g.edgeTarget(current, e);
        path_[path_length_++] = current;
    }
    return PathStatus::found;
}

}  // namespace navrt
