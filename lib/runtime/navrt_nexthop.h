// navrt next-hop lookups over the NHOP sections of a .nav (navbake pack --nexthop): "where do I
// go next?" in one block lookup and a binary search, and whole paths by chaining next hops.
//
// Hierarchical tables (HNHD, built with clusters): per lookup the entrance pair (a in the
// source's cluster, b in the target's) minimising d(s, a) + D(a, b) + d(b, t), or the direct path
// inside a shared cluster, then the move towards it; no cache, nothing to decompress.
//
// A row (one per source node) is stored as runs over the targets in rank order; rows sit in
// independently zstd-compressed blocks. A NextHopQuery holds the table in one of two forms, set
// up by init() (lookups allocate nothing; one query object per thread):
//  - decoded: init() decompresses every block once into packed runs, 4 bytes each, and an offset
//    per node (FORMAT.md §9.2); a lookup is a binary search of the source's row, a path follows
//    rows without re-locating the target. The fastest; memory = memoryBytes().
//  - blocks: the last few decompressed blocks in a cache (plus one zstd decompression context,
//    from malloc); a lookup may decompress a block.
#pragma once

#include <cstdint>

#include "lib/runtime/navrt_query.h"

namespace navrt {

enum class NextHopForm : uint8_t {
    fastest,  // decoded when its size (decodedBytes) fits cache_bytes, else blocks
    decoded,  // decoded whatever cache_bytes says (invalid_argument when runs do not fit 32 bits)
    blocks,   // the block cache of cache_bytes
};

class NextHopQuery {
public:
    NextHopQuery() = default;
    ~NextHopQuery();
    NextHopQuery(const NextHopQuery&) = delete;
    NextHopQuery& operator=(const NextHopQuery&) = delete;

    // The graph must hold next-hop sections (invalid_argument otherwise) and outlive the query.
    // cache_bytes: memory for decompressed blocks: when the whole decompressed table fits, every
    // block gets its own place (each decompressed at most once); otherwise blocks share
    // direct-mapped slots (block mod slots) of the largest block's size.
    // form: see NextHopForm.
    Error init(const GraphView& graph, uint64_t cache_bytes = uint64_t(32) << 20,
               const Allocator& allocator = {}, NextHopForm form = NextHopForm::fastest);
    // Bytes the decoded form of the graph's flat table takes (0: hierarchical, none, or runs
    // that do not fit 32 bits).
    static uint64_t decodedBytes(const GraphView& graph);

    // The node after `from` on a shortest path to `to` (`to` when they are neighbours; `from`
    // when from == to); kNoNode when there is no path, a node is out of range, or the table is
    // corrupt (lastError() then says where).
    uint32_t nextHop(uint32_t from, uint32_t to);
    // The same as the index of the outgoing edge of `from` to take; kNoNode as above.
    uint32_t nextEdge(uint32_t from, uint32_t to);

    // Follows next hops from `from` to `to`; path()/pathLength()/cost() then hold the nodes and
    // the sum of their edge costs (a shortest path's cost).
    PathStatus pathByNextHop(uint32_t from, uint32_t to);
    const uint32_t* path() const { return path_; }
    uint32_t pathLength() const { return path_length_; }
    double cost() const { return cost_; }
    uint32_t blockDecompressions() const { return decompressions_; }
    const Error& lastError() const { return error_; }

    bool hierarchical() const { return hierarchical_; }
    bool decoded() const { return runs_ != nullptr; }
    // Memory init() allocated from the allocator (tables, cache, path), zstd's context aside.
    uint64_t memoryBytes() const { return memory_bytes_; }

private:
    const uint8_t* block(uint32_t index);
    Error decodeTable(const GraphView& graph, uint32_t max_degree);
    // Decoded form: the edge index of `from` towards the target of rank `rank` (run_mask_ = none).
    uint32_t decodedSymbol(uint32_t from, uint32_t rank) const {
        const uint32_t* base = runs_ + row_at_[from];
        uint32_t length = row_at_[from + 1] - row_at_[from];
        const uint32_t key = (rank + 1) << symbol_bits_;  // runs starting at or before rank
        while (length > 1) {
            const uint32_t half = length / 2;
            base = base[half] < key ? base + half : base;
            length -= half;
        }
        return *base & run_mask_;
    }
    uint32_t hierEdge(uint32_t from, uint32_t to);
    uint32_t intraSymbol(uint32_t cluster, uint32_t from, uint32_t to) const;
    double intraDistance(uint32_t cluster, uint32_t from, uint32_t to) const;
    void release();

    const GraphView* graph_ = nullptr;
    Allocator allocator_{};
    uint32_t slots_ = 0;
    size_t slot_bytes_ = 0;
    uint8_t* cache_ = nullptr;        // slots_ x slot_bytes_
    uint32_t* slot_block_ = nullptr;  // block held by each slot (kNoNode = none)
    uint32_t* slot_size_ = nullptr;   // decompressed bytes
    uint64_t* block_at_ = nullptr;    // whole-table mode: each block's place in cache_ (else null)
    void* zstd_ = nullptr;            // ZSTD_DCtx, reused by every decompression
    uint32_t* path_ = nullptr;
    uint32_t path_length_ = 0;
    double cost_ = 0;
    uint32_t decompressions_ = 0;
    Error error_{};
    bool hierarchical_ = false;   // the asset holds the hierarchical table (HNHD)
    uint32_t* row_at_ = nullptr;  // decoded form: per node + 1, its first run in runs_
    uint32_t* runs_ = nullptr;    // decoded form: (start rank << symbol_bits_) | symbol
    uint32_t symbol_bits_ = 0, run_mask_ = 0;
    uint64_t memory_bytes_ = 0;
};

}  // namespace navrt
