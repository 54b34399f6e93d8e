// The baker's one shortest-path search: Dijkstra's algorithm (E. W. Dijkstra, "A note on two
// problems in connexion with graphs", Numerische Mathematik 1, 269-271, 1959) over a binary heap
// with lazy deletion (a node whose cost drops is pushed again; stale entries are skipped when
// popped). The cluster table, the region growth of `cluster --method regions`, the hierarchy's
// abstract costs and entrance edges, and both next-hop tables all run on it; each caller brings
// only what is its own:
//  - Cost, the type distances accumulate in: double, or uint64_t for the next-hop table's exact
//    integer costs. Every edge cost is converted with Cost(c) before it is added, so float edge
//    costs accumulate in double.
//  - the adjacency: a CsrGraph view (forward edges, or a reversed copy for backward searches),
//    or an EdgeCallback; both hand over (target, cost, edge label) for every edge of a node.
//  - confinement: a predicate a node must pass to be entered (SameLabel: the nodes of one
//    cluster), and an optional stop once a node is settled.
//  - what is recorded: distances and the touched list always (a new search clears only what the
//    last one touched, so many small searches over a large graph stay cheap); labels (first moves,
//    nearest seeds) through a label policy; parents when asked.
//
// Determinism. The heap orders its entries by (cost, node), or (cost, label, node) for policies
// that keep the label in the key, compared lexicographically. Entries that compare equal are
// identical, so the order of the pops depends neither on the heap's implementation nor on the
// order in which sources were added: equal-cost nodes settle by ascending id (then label). A
// node's edges are relaxed in adjacency order, and a distance is replaced only by a strictly
// smaller one, so each distance is the Cost sum along the first shortest path met in that fixed
// order (this matters for floating point, where sums along different paths may differ in the last
// bit). Labels: a node without one (a source in a first-move search) passes on its edge's label,
// a labelled node its own; on equal cost the policy keeps the smaller. With positive edge costs
// every tight predecessor of v settles before v, so v's label is the smallest over all its
// shortest paths, whatever the visiting order. Which key the heap uses is the caller's choice
// (the label policy), so each search keeps the settle order it always had: region growth orders by
// (cost, label, node), every other search by (cost, node). A search is sequential; parallel
// callers run independent searches with per-thread instances, so no output depends on the thread
// count. No caller needs a heuristic, so there is no A* here.
//
// Integer costs may use a radix heap instead (kRadix; R. K. Ahuja, K. Mehlhorn, J. B. Orlin and
// R. E. Tarjan, "Faster algorithms for the shortest path problem", JACM 37(2), 213-223, 1990):
// 65 buckets by the highest bit in which a key differs from the last key popped, each entry moved
// at most 64 times, no comparisons on push. It pops equal keys in another (still deterministic)
// order than the binary heap, so it is only for searches whose results do not depend on that
// order: exact integer distances, and first-move labels (kInKey = false), without parents or an
// early stop. The next-hop table's row searches (one per node of the graph) use it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace nav {

inline constexpr uint32_t kNoLabel = 0xFFFFFFFFu;  // no label, no parent

// CSR adjacency: the edges of node u are [offsets[u], offsets[u + 1]) of targets and costs. An
// edge's label is its index among u's edges (the symbol a next-hop table stores).
template <class EdgeCost>
struct CsrGraph {
    std::span<const uint32_t> offsets, targets;
    std::span<const EdgeCost> costs;

    size_t nodeCount() const { return offsets.empty() ? 0 : offsets.size() - 1; }
    template <class Visit>
    void forEachEdge(uint32_t u, Visit&& visit) const {
        const uint32_t begin = offsets[u], end = offsets[u + 1];
        for (uint32_t e = begin; e < end; ++e) visit(targets[e], costs[e], e - begin);
    }
};

// Adjacency given by a function: expand(u, visit) calls visit(v, cost, label) for every edge
// u -> v, for graphs that are not one CSR or whose edge labels are not edge indices.
template <class Expand>
struct EdgeCallback {
    Expand expand;
    template <class Visit>
    void forEachEdge(uint32_t u, Visit&& visit) const {
        expand(u, visit);
    }
};
template <class Expand>
EdgeCallback(Expand) -> EdgeCallback<Expand>;

// Confinement: every node may be entered.
struct AnyNode {
    bool operator()(uint32_t) const { return true; }
};

// Confinement to the nodes whose label (cluster, group) is `allowed`.
struct SameLabel {
    const uint32_t* labels;
    uint32_t allowed;
    bool operator()(uint32_t v) const { return labels[v] == allowed; }
};

// Hook that does nothing (improved(v, cost): called whenever v's cost drops).
struct NoHook {
    template <class... Args>
    void operator()(Args&&...) const {}
};

// Early stop that never stops (stop(u, cost): called when u settles; true ends the run).
struct NeverStop {
    template <class... Args>
    bool operator()(Args&&...) const {
        return false;
    }
};

// Label policy: no labels.
struct NoLabels {
    static constexpr bool kRecords = false;
    static constexpr bool kInKey = false;
};

// Label policy: the smallest label over the shortest paths. A node without a label passes on the
// label of the edge it leaves by, a labelled node its own; on equal cost the smaller label wins.
//  - kInKey = false (FirstMoveLabels): the label is improved in place and the node is not queued
//    again. Sources carry no label, so labels are first moves: nexthop.h's canonical first move,
//    the lowest-index edge of s that starts a shortest path to v.
//  - kInKey = true (SeedLabels): sources carry labels and the heap orders by (cost, label, node);
//    a smaller label at equal cost queues the node again, so it settles with its final label.
//    Labels name the nearest source (the lowest-numbered one on ties): region growth from seeds.
template <bool kLabelInKey>
struct MinLabels {
    static constexpr bool kRecords = true;
    static constexpr bool kInKey = kLabelInKey;
    static uint32_t pass(uint32_t from, uint32_t edge_label) {
        return from == kNoLabel ? edge_label : from;
    }
    static bool better(uint32_t a, uint32_t b) { return a < b; }
};
using FirstMoveLabels = MinLabels<false>;
using SeedLabels = MinLabels<true>;

// Monotone priority queue of (unsigned integer key, node): every key pushed is at least the last
// key popped (Dijkstra with non-negative costs). See the top of this file.
template <class Key>
class RadixQueue {
    static_assert(std::is_unsigned_v<Key> && sizeof(Key) <= 8);

public:
    void clear() {
        for (auto& b : buckets_) b.clear();
        size_ = 0;
        last_ = 0;
    }
    bool empty() const { return size_ == 0; }
    void push(Key key, uint32_t node) {
        buckets_[bucket(key)].emplace_back(key, node);
        ++size_;
    }
    // The entry with the smallest key (one of them).
    std::pair<Key, uint32_t> pop() {
        if (buckets_[0].empty()) {
            size_t i = 1;
            while (buckets_[i].empty()) ++i;
            std::vector<std::pair<Key, uint32_t>>& from = buckets_[i];
            Key least = from[0].first;
            for (const auto& e : from) least = std::min(least, e.first);
            last_ = least;
            // Each entry now differs from last_ only below bit i - 1: it moves to a lower bucket.
            for (const auto& e : from) buckets_[bucket(e.first)].push_back(e);
            from.clear();
        }
        const std::pair<Key, uint32_t> top = buckets_[0].back();
        buckets_[0].pop_back();
        --size_;
        return top;
    }

private:
    size_t bucket(Key key) const {
        return key == last_ ? 0 : size_t(std::bit_width(uint64_t(key ^ last_)));
    }
    std::array<std::vector<std::pair<Key, uint32_t>>, 65> buckets_;
    Key last_ = 0;
    size_t size_ = 0;
};

// One search's state, reused between runs: reset() before a new search, addSource() for every
// source, run() over an adjacency. Sources added after a run (without a reset) continue from the
// distances it left: a multi-source search grown one source at a time.
template <class Cost, class Labels = NoLabels, bool kParents = false, bool kRadix = false>
class Dijkstra {
    static_assert(!kRadix || (std::is_unsigned_v<Cost> && !Labels::kInKey && !kParents),
                  "the radix heap is for integer costs whose results do not depend on the order "
                  "of equal keys");

public:
    static constexpr Cost kUnreached = std::numeric_limits<Cost>::has_infinity
                                           ? std::numeric_limits<Cost>::infinity()
                                           : std::numeric_limits<Cost>::max();

    // Ready for a new search over nodes [0, n): clears only what the last run touched (everything
    // when n changes).
    void reset(size_t n) {
        if (dist_.size() != n) {
            dist_.assign(n, kUnreached);
            if constexpr (Labels::kRecords) labels_.assign(n, kNoLabel);
            if constexpr (kParents) parents_.assign(n, kNoLabel);
        } else {
            for (uint32_t v : touched_) {
                dist_[v] = kUnreached;
                if constexpr (Labels::kRecords) labels_[v] = kNoLabel;
                if constexpr (kParents) parents_[v] = kNoLabel;
            }
        }
        touched_.clear();
        heap_.clear();
        if constexpr (kRadix) radix_.clear();
    }

    // A source at cost d (with a label for label-carrying policies); kept only when it improves on
    // what v already has.
    void addSource(uint32_t v, Cost d = Cost(0), uint32_t label = kNoLabel) {
        if (d < dist_[v] || improvesLabel(d, v, label)) {
            record(v, d, label, kNoLabel);
            push(d, label, v);
        }
    }

    // Runs until the heap is empty (or stop(u, cost) returns true as u settles). Only nodes with
    // enter(v) are entered; sources are not checked. improved(v, cost) is called whenever the cost
    // of v drops (not for sources).
    template <class Graph, class Enter = AnyNode, class Improved = NoHook, class Stop = NeverStop>
    void run(const Graph& graph, Enter enter = {}, Improved improved = {}, Stop stop = {}) {
        const std::greater<Item> later;
        while (queued()) {
            Item top;
            if constexpr (kRadix) {
                top = radix_.pop();
            } else {
                std::pop_heap(heap_.begin(), heap_.end(), later);
                top = heap_.back();
                heap_.pop_back();
            }
            const Cost d = std::get<0>(top);
            const uint32_t u = std::get<kNodeField>(top);
            if (d > dist_[u]) continue;
            uint32_t from = kNoLabel;  // the label u passes on
            if constexpr (Labels::kRecords) {
                from = labels_[u];
                if (Labels::kInKey && std::get<1>(top) != from) continue;
            }
            if (stop(u, d)) return;
            graph.forEachEdge(u, [&](uint32_t v, auto edge_cost, uint32_t edge_label) {
                if (!enter(v)) return;
                const Cost nd = d + Cost(edge_cost);
                uint32_t move = kNoLabel;
                if constexpr (Labels::kRecords) move = Labels::pass(from, edge_label);
                if (nd < dist_[v] || improvesLabel(nd, v, move)) {
                    record(v, nd, move, u);
                    push(nd, move, v);
                    improved(v, nd);
                } else if constexpr (Labels::kRecords && !Labels::kInKey) {
                    if (nd == dist_[v] && Labels::better(move, labels_[v])) {
                        labels_[v] = move;
                        if constexpr (kParents) parents_[v] = u;
                    }
                }
            });
        }
    }

    Cost dist(uint32_t v) const { return dist_[v]; }
    std::span<const Cost> distances() const { return dist_; }
    // The label v settled with (kNoLabel: a source without one, or not reached).
    uint32_t label(uint32_t v) const requires(Labels::kRecords) { return labels_[v]; }
    // The predecessor on the path that gave v its cost and label (kNoLabel: a source or not
    // reached).
    uint32_t parent(uint32_t v) const requires(kParents) { return parents_[v]; }
    // The nodes this search has reached, in the order they were first reached.
    std::span<const uint32_t> touched() const { return touched_; }

private:
    static constexpr size_t kNodeField = Labels::kInKey ? 2 : 1;
    using Item = std::conditional_t<Labels::kInKey, std::tuple<Cost, uint32_t, uint32_t>,
                                    std::pair<Cost, uint32_t>>;

    bool queued() const {
        if constexpr (kRadix)
            return !radix_.empty();
        else
            return !heap_.empty();
    }
    // Whether (d, label) improves on v at the same cost, for policies that queue label gains.
    bool improvesLabel(Cost d, uint32_t v, uint32_t label) const {
        if constexpr (Labels::kInKey)
            return d == dist_[v] && Labels::better(label, labels_[v]);
        else
            return false;
    }
    void record(uint32_t v, Cost d, [[maybe_unused]] uint32_t label,
                [[maybe_unused]] uint32_t parent) {
        if (dist_[v] == kUnreached) touched_.push_back(v);
        dist_[v] = d;
        if constexpr (Labels::kRecords) labels_[v] = label;
        if constexpr (kParents) parents_[v] = parent;
    }
    void push(Cost d, [[maybe_unused]] uint32_t label, uint32_t v) {
        if constexpr (kRadix)
            radix_.push(d, v);
        else if constexpr (Labels::kInKey)
            heap_.emplace_back(d, label, v);
        else
            heap_.emplace_back(d, v);
        if constexpr (!kRadix) std::push_heap(heap_.begin(), heap_.end(), std::greater<Item>{});
    }

    std::vector<Cost> dist_;
    std::vector<uint32_t> labels_, parents_, touched_;
    std::vector<Item> heap_;
    [[no_unique_address]] std::conditional_t<kRadix, RadixQueue<Cost>, std::tuple<>> radix_;
};

}  // namespace nav
