#include "lib/runtime/navrt_hier.h"

#include "lib/runtime/navrt_heap.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace navrt {

using nav::formats::makeError;
namespace fmt = nav::formats;

using heap::kClosed;
using heap::kNotInHeap;

HierarchicalQuery::~HierarchicalQuery() { release(); }

void HierarchicalQuery::release() {
    if (allocator_.release != nullptr) {
        for (void* p : {static_cast<void*>(records_), static_cast<void*>(heap_),
                        static_cast<void*>(cluster_marks_), static_cast<void*>(plans_),
                        static_cast<void*>(chain_), static_cast<void*>(start_costs_),
                        static_cast<void*>(goal_costs_), static_cast<void*>(scratch_),
                        static_cast<void*>(path_)})
            if (p != nullptr) allocator_.release(p, allocator_.user);
    }
    records_ = nullptr;
    heap_ = cluster_marks_ = plans_ = chain_ = path_ = scratch_ = nullptr;
    start_costs_ = goal_costs_ = nullptr;
    path_capacity_ = path_length_ = scratch_capacity_ = 0;
    graph_ = nullptr;
    hier_ = nullptr;
}

Error HierarchicalQuery::init(const GraphView& graph, const Allocator& allocator) {
    release();
    if (!graph.hasHierarchy())
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "hierarchical search needs an asset with hierarchy sections (navbake "
                         "pack --clusters FILE.clu --hierarchy FILE.hier)");
    allocator_ = resolveAllocator(allocator);
    if (Error e = low_.init(graph, 0, allocator_)) return e;
    const fmt::HierarchyHeader& h = graph.hierarchy.header;
    const size_t groups = h.group_count, entrances = h.entrance_count;
    const size_t records = groups > entrances + 2 ? groups : entrances + 2;
    const size_t n = graph.nodeCount();
    auto get = [&](size_t bytes) {
        return allocator_.allocate(bytes > 0 ? bytes : 16, allocator_.user);
    };
    records_ = static_cast<Record*>(get(sizeof(Record) * records));
    heap_ = static_cast<uint32_t*>(get(4 * records));
    cluster_marks_ = static_cast<uint32_t*>(get(4 * size_t(h.cluster_count)));
    plans_ = static_cast<uint32_t*>(get(4 * groups));
    chain_ = static_cast<uint32_t*>(get(4 * (entrances + 2)));
    start_costs_ = static_cast<double*>(get(8 * entrances));
    goal_costs_ = static_cast<double*>(get(8 * entrances));
    path_capacity_ = uint32_t(n + 1);
    path_ = static_cast<uint32_t*>(get(4 * size_t(path_capacity_)));
    const uint32_t* member_offsets = graph.hierarchy.u32(fmt::kHierMemberOffsets);
    uint32_t largest = 0;
    for (uint32_t c = 0; c < h.cluster_count; ++c)
        if (member_offsets[c + 1] - member_offsets[c] > largest)
            largest = member_offsets[c + 1] - member_offsets[c];
    scratch_capacity_ = largest + 1;
    scratch_ = static_cast<uint32_t*>(get(4 * size_t(scratch_capacity_)));
    if (!records_ || !heap_ || !cluster_marks_ || !plans_ || !chain_ || !start_costs_ ||
        !goal_costs_ || !path_ || !scratch_) {
        release();
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "cannot allocate hierarchical search memory");
    }
    std::memset(static_cast<void*>(records_), 0, sizeof(Record) * records);
    std::memset(cluster_marks_, 0, 4 * size_t(h.cluster_count));
    record_count_ = uint32_t(records);
    stamp_ = mark_ = 0;
    graph_ = &graph;
    hier_ = &graph.hierarchy;
    return {};
}

uint32_t HierarchicalQuery::groupOf(uint32_t node, uint32_t level) const {
    uint32_t group = graph_->node_clusters[node];
    const uint32_t* parents = hier_->u32(fmt::kHierParents);
    for (uint32_t l = 1; l < level; ++l) group = parents[group];
    return group;
}

void HierarchicalQuery::heapDecrease(uint32_t id) { heap::siftUp(records_, heap_, id); }
void HierarchicalQuery::heapPush(uint32_t id) { heap::push(records_, heap_, heap_size_, id); }
uint32_t HierarchicalQuery::heapPop() { return heap::pop(records_, heap_, heap_size_); }

// A* over abstract ids (groups or entrances) with a consistent bound: expand(u, relax(v, cost)).
template <class Expand, class Bound>
bool HierarchicalQuery::abstractSearch(uint32_t source, uint32_t target, Expand&& expand,
                                       Bound&& bound) {
    if (++stamp_ == 0) {
        std::memset(static_cast<void*>(records_), 0, sizeof(Record) * record_count_);
        stamp_ = 1;
    }
    heap_size_ = 0;
    records_[source] = Record{0.0, kNoNode, stamp_, kNotInHeap, 0, bound(source)};
    heapPush(source);
    while (heap_size_ > 0) {
        const uint32_t u = heapPop();
        ++abstract_expansions_;
        if (u == target) return true;
        const double g_u = records_[u].g;
        expand(u, [&](uint32_t v, double cost) {
            const double g = g_u + cost;
            Record& r = records_[v];
            if (r.stamp != stamp_) {
                r = Record{g, u, stamp_, kNotInHeap, 0, g + bound(v)};
                heapPush(v);
            } else if (g < r.g) {  // reopens a closed id: bounds need only be admissible
                r.f += g - r.g;
                r.g = g;
                r.parent = u;
                if (r.heap_index == kClosed) {
                    r.heap_index = kNotInHeap;
                    heapPush(v);
                } else {
                    heapDecrease(v);
                }
            }
        });
    }
    return false;
}

uint32_t HierarchicalQuery::abstractChain(uint32_t target, uint32_t* out) {
    uint32_t count = 0;
    for (uint32_t v = target; v != kNoNode; v = records_[v].parent) out[count++] = v;
    for (uint32_t i = 0; i < count / 2; ++i) {
        const uint32_t t = out[i];
        out[i] = out[count - 1 - i];
        out[count - 1 - i] = t;
    }
    return count;
}

bool HierarchicalQuery::append(const uint32_t* nodes, uint32_t count, double cost) {
    if (path_length_ + uint64_t(count) > path_capacity_) {
        uint64_t capacity = 2 * uint64_t(path_capacity_);
        if (capacity < path_length_ + uint64_t(count)) capacity = path_length_ + uint64_t(count);
        if (capacity > 0xFFFFFFF0u) return false;
        auto* grown = static_cast<uint32_t*>(allocator_.allocate(4 * capacity, allocator_.user));
        if (grown == nullptr) return false;
        std::memcpy(grown, path_, 4 * size_t(path_length_));
        allocator_.release(path_, allocator_.user);
        path_ = grown;
        path_capacity_ = uint32_t(capacity);
    }
    std::memcpy(path_ + path_length_, nodes, 4 * size_t(count));
    path_length_ += count;
    cost_ += cost;
    if (count > 0) current_ = nodes[count - 1];
    return true;
}

PathStatus HierarchicalQuery::lowLeg(uint32_t target, uint32_t cluster_a, uint32_t cluster_b,
                                     uint32_t stop) {
    const uint32_t* marks = nullptr;
    if (cluster_a != kNoNode) {
        if (++mark_ == 0) {
            std::memset(cluster_marks_, 0, 4 * size_t(hier_->header.cluster_count));
            mark_ = 1;
        }
        cluster_marks_[cluster_a] = cluster_marks_[cluster_b] = mark_;
        marks = cluster_marks_;
    }
    PathStatus status = low_.findPathWithin(current_, target, marks, mark_, stop);
    low_expansions_ += low_.expansions();
    if (status == PathStatus::no_path && marks != nullptr) {  // confinement too tight: widen
        status = low_.findPathWithin(current_, target, nullptr, 0, stop);
        low_expansions_ += low_.expansions();
    }
    if (status != PathStatus::found) return status;
    if (!append(low_.path() + 1, low_.pathLength() - 1, low_.cost()))
        return PathStatus::out_of_nodes;
    ++legs_;
    if (options_.first_leg && low_.pathLength() > 1) stop_ = true;
    return PathStatus::found;
}

bool HierarchicalQuery::planGroups(uint32_t level, uint32_t from, uint32_t to, uint32_t allow_a,
                                   uint32_t allow_b, uint32_t* out, uint32_t& length) {
    if (from == to) {
        out[0] = from;
        length = 1;
        return true;
    }
    const uint32_t* offsets = hier_->u32(fmt::kHierEdgeOffsets);
    const uint32_t* targets = hier_->u32(fmt::kHierEdgeTargets);
    const float* costs = hier_->f32(fmt::kHierEdgeCosts);
    const uint32_t* parents = hier_->u32(fmt::kHierParents);
    const bool confined = allow_a != kNoNode && level < hier_->header.level_count;
    const uint32_t cost_index = cost_index_;
    const bool found = abstractSearch(
        from, to,
        [&](uint32_t u, auto&& relax) {
            for (uint32_t e = offsets[u]; e < offsets[u + 1]; ++e) {
                const uint32_t v = targets[e];
                if (confined && parents[v] != allow_a && parents[v] != allow_b) continue;
                relax(v, double(costs[3 * size_t(e) + cost_index]));
            }
        },
        [](uint32_t) { return 0.0; });
    if (!found) return false;
    length = abstractChain(to, out);
    return true;
}

PathStatus HierarchicalQuery::refine(uint32_t level, const uint32_t* plan, uint32_t length,
                                     bool to_goal) {
    const uint32_t* reps = hier_->u32(fmt::kHierRepresentatives);
    const uint32_t* parents = hier_->u32(fmt::kHierParents);
    const bool confine = options_.exclusions;
    uint32_t* below = level > 1 ? plans_ + hier_->level_start[level - 1] : nullptr;
    if (length == 1) {  // already in the goal's group: descend towards the goal
        if (!to_goal) return PathStatus::found;
        if (level == 1) return lowLeg(goal_, confine ? plan[0] : kNoNode, plan[0], kNoNode);
        uint32_t sub = 0;
        const uint32_t from = groupOf(current_, level - 1), to = groupOf(goal_, level - 1);
        if (!planGroups(level - 1, from, to, confine ? plan[0] : kNoNode, plan[0], below, sub) &&
            !planGroups(level - 1, from, to, kNoNode, kNoNode, below, sub))
            return PathStatus::no_path;
        return refine(level - 1, below, sub, true);
    }
    for (uint32_t i = 1; i < length; ++i) {
        const bool last = to_goal && i + 1 == length;
        const uint32_t target = last ? goal_ : reps[plan[i]];
        PathStatus status;
        if (level == 1) {
            status =
                lowLeg(target, confine ? plan[i - 1] : kNoNode, plan[i], last ? kNoNode : plan[i]);
        } else {
            uint32_t sub = 0;
            const uint32_t from = groupOf(current_, level - 1), to = groupOf(target, level - 1);
            if (!planGroups(level - 1, from, to, confine ? plan[i - 1] : kNoNode, plan[i], below,
                            sub) &&
                !planGroups(level - 1, from, to, kNoNode, kNoNode, below, sub))
                return PathStatus::no_path;
            if (!last)  // cut where the plan enters plan[i]
                for (uint32_t k = 0; k < sub; ++k)
                    if (parents[below[k]] == plan[i]) {
                        sub = k + 1;
                        break;
                    }
            status = refine(level - 1, below, sub, last);
        }
        if (status != PathStatus::found || stop_) return status;
    }
    return PathStatus::found;
}

bool HierarchicalQuery::tablesUsable() const {
    return hier_->hasTables() && graph_->edge_offsets != nullptr && !low_.restricted();
}

const float* HierarchicalQuery::tableRow(uint32_t node) const {
    const uint32_t c = graph_->node_clusters[node];
    const uint32_t* entrance_offsets = hier_->u32(fmt::kHierEntranceOffsets);
    return hier_->table + hier_->table_offsets[c] +
           uint64_t(hier_->table_local[node]) * (entrance_offsets[c + 1] - entrance_offsets[c]);
}

bool HierarchicalQuery::descend(uint32_t from, uint32_t entrance, uint32_t& count, double& cost) {
    const GraphView& g = *graph_;
    const uint32_t* entrance_offsets = hier_->u32(fmt::kHierEntranceOffsets);
    const uint32_t c = g.node_clusters[from];
    const uint32_t target = hier_->u32(fmt::kHierEntrances)[entrance];
    if (entrance < entrance_offsets[c] || entrance >= entrance_offsets[c + 1]) return false;
    const uint32_t j = entrance - entrance_offsets[c];
    const uint32_t m = entrance_offsets[c + 1] - entrance_offsets[c];
    const float* block = hier_->table + hier_->table_offsets[c];
    count = 0;
    cost = 0;
    uint32_t u = from;
    float left = block[uint64_t(hier_->table_local[u]) * m + j];
    while (u != target) {
        // Each step goes to the in-cluster neighbour with the least edge + remaining cost and
        // must lower the remaining cost, so a wrong table ends the walk within the cluster size.
        if (!(left < HUGE_VALF) || count + 1 >= scratch_capacity_) return false;
        uint32_t best = kNoNode;
        double best_total = HUGE_VAL;
        float best_edge = 0, best_left = 0;
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t v = g.edgeTarget(u, e);
            if (g.node_clusters[v] != c) continue;
            const float rest = block[uint64_t(hier_->table_local[v]) * m + j];
            const double total = double(g.edge_costs[e]) + double(rest);
            if (total < best_total) {
                best_total = total;
                best = v;
                best_edge = g.edge_costs[e];
                best_left = rest;
            }
        }
        if (best == kNoNode || !(best_left < left)) return false;
        scratch_[count++] = best;
        cost += double(best_edge);
        left = best_left;
        u = best;
    }
    return true;
}

PathStatus HierarchicalQuery::findEntrancePath(uint32_t start, uint32_t goal) {
    const GraphView& g = *graph_;
    const uint32_t* entrances = hier_->u32(fmt::kHierEntrances);
    const uint32_t* entrance_offsets = hier_->u32(fmt::kHierEntranceOffsets);
    const uint32_t* edge_offsets = hier_->u32(fmt::kHierEntranceEdgeOffsets);
    const uint32_t* edge_targets = hier_->u32(fmt::kHierEntranceEdgeTargets);
    const float* edge_costs = hier_->f32(fmt::kHierEntranceEdgeCosts);
    const uint32_t count_entrances = hier_->header.entrance_count;
    const uint32_t source = count_entrances, target = count_entrances + 1;
    const uint32_t sc = g.node_clusters[start], gc = g.node_clusters[goal];
    auto confine = [&](uint32_t c) {
        if (++mark_ == 0) {
            std::memset(cluster_marks_, 0, 4 * size_t(hier_->header.cluster_count));
            mark_ = 1;
        }
        cluster_marks_[c] = mark_;
    };
    for (uint32_t c : {sc, gc})
        for (uint32_t i = entrance_offsets[c]; i < entrance_offsets[c + 1]; ++i)
            start_costs_[i] = goal_costs_[i] = HUGE_VAL;
    const bool tables = tablesUsable();
    const bool symmetric = (g.cluster_header.flags & fmt::kClusterFlagSymmetric) != 0;
    // Start: distances inside its cluster to its entrances (its table row, or a search).
    if (tables) {
        const float* row = tableRow(start);
        for (uint32_t i = entrance_offsets[sc]; i < entrance_offsets[sc + 1]; ++i)
            start_costs_[i] = double(row[i - entrance_offsets[sc]]);
    } else {
        confine(sc);
        low_.findPathWithin(start, kNoNode, cluster_marks_, mark_);
        low_expansions_ += low_.expansions();
        for (uint32_t i = entrance_offsets[sc]; i < entrance_offsets[sc + 1]; ++i)
            start_costs_[i] = low_.settledCost(entrances[i]);
    }
    // Goal: distances inside its cluster from its entrances (when every edge has its reverse,
    // the goal's table row or one backward search, else one search per entrance).
    confine(gc);
    if (tables && symmetric) {
        const float* row = tableRow(goal);
        for (uint32_t i = entrance_offsets[gc]; i < entrance_offsets[gc + 1]; ++i)
            goal_costs_[i] = double(row[i - entrance_offsets[gc]]);
    } else if (symmetric) {
        low_.findPathWithin(goal, kNoNode, cluster_marks_, mark_);
        low_expansions_ += low_.expansions();
        for (uint32_t i = entrance_offsets[gc]; i < entrance_offsets[gc + 1]; ++i)
            goal_costs_[i] = low_.settledCost(entrances[i]);
    } else {
        for (uint32_t i = entrance_offsets[gc]; i < entrance_offsets[gc + 1]; ++i) {
            if (low_.findPathWithin(entrances[i], goal, cluster_marks_, mark_) == PathStatus::found)
                goal_costs_[i] = low_.cost();
            low_expansions_ += low_.expansions();
        }
    }
    // Start and goal in the same or neighbouring clusters: the best path inside the two is a
    // candidate too (sparse entrances may force a detour through a distant transition).
    double direct = HUGE_VAL;
    bool neighbours = sc == gc;
    for (uint32_t i = entrance_offsets[sc]; i < entrance_offsets[sc + 1] && !neighbours; ++i)
        for (uint32_t e = edge_offsets[i]; e < edge_offsets[i + 1] && !neighbours; ++e)
            neighbours = g.node_clusters[entrances[edge_targets[e]]] == gc;
    if (neighbours) {
        cluster_marks_[sc] = mark_;
        if (low_.findPathWithin(start, goal, cluster_marks_, mark_) == PathStatus::found)
            direct = low_.cost();
        low_expansions_ += low_.expansions();
    }
    const bool found = abstractSearch(
        source, target,
        [&](uint32_t u, auto&& relax) {
            if (u == source) {
                for (uint32_t i = entrance_offsets[sc]; i < entrance_offsets[sc + 1]; ++i)
                    if (start_costs_[i] != HUGE_VAL) relax(i, start_costs_[i]);
                return;
            }
            for (uint32_t e = edge_offsets[u]; e < edge_offsets[u + 1]; ++e)
                relax(edge_targets[e], double(edge_costs[e]));
            if (g.node_clusters[entrances[u]] == gc && goal_costs_[u] != HUGE_VAL)
                relax(target, goal_costs_[u]);
        },
        [&](uint32_t u) {
            if (u == target) return 0.0;
            return low_.landmarkLowerBound(u == source ? start : entrances[u], goal);
        });
    if (!found && direct == HUGE_VAL) return PathStatus::no_path;
    if (!found || direct <= records_[target].g) return lowLeg(goal, sc, gc, kNoNode);
    const uint32_t length = abstractChain(target, chain_);
    for (uint32_t k = 1; k < length; ++k) {
        const uint32_t next = chain_[k] == target ? goal : entrances[chain_[k]];
        if (next == current_) continue;
        const uint32_t from_cluster = g.node_clusters[current_], to_cluster = g.node_clusters[next];
        if (tables && from_cluster != to_cluster && chain_[k] != target) {
            // An entrance edge between clusters is a graph edge: its cheapest one.
            uint32_t edge = kNoNode;
            for (uint32_t e = g.edge_offsets[current_]; e < g.edge_offsets[current_ + 1]; ++e)
                if (g.edgeTarget(current_, e) == next &&
                    (edge == kNoNode || g.edge_costs[e] < g.edge_costs[edge]))
                    edge = e;
            if (edge != kNoNode) {
                if (!append(&next, 1, double(g.edge_costs[edge]))) return PathStatus::out_of_nodes;
                if (options_.first_leg) {
                    stop_ = true;
                    return PathStatus::found;
                }
                continue;
            }
        }
        if (tables && from_cluster == to_cluster) {
            // Refine by the table: down to the next entrance or, on symmetric graphs, from the
            // goal down to the entrance we stand on, reversed.
            uint32_t count = 0;
            double cost = 0;
            const bool to_goal = chain_[k] == target;
            const bool walked = to_goal ? symmetric && chain_[k - 1] < count_entrances &&
                                              descend(goal, chain_[k - 1], count, cost)
                                        : descend(current_, chain_[k], count, cost);
            if (walked && count > 0) {
                if (to_goal) {  // goal, ..., current_ -> the nodes after current_, goal last
                    for (uint32_t i = 0, j = count - 2; i + 1 < count && i < j; ++i, --j) {
                        const uint32_t t = scratch_[i];
                        scratch_[i] = scratch_[j];
                        scratch_[j] = t;
                    }
                    scratch_[count - 1] = goal;
                }
                if (!append(scratch_, count, cost)) return PathStatus::out_of_nodes;
                if (options_.first_leg) {
                    stop_ = true;
                    return PathStatus::found;
                }
                continue;
            }
        }
        const PathStatus status = lowLeg(next, from_cluster, to_cluster, kNoNode);
        if (status != PathStatus::found || stop_) return status;
    }
    return PathStatus::found;
}

PathStatus HierarchicalQuery::findPath(uint32_t start, uint32_t goal, const HierOptions& options) {
    path_length_ = 0;
    cost_ = 0;
    low_expansions_ = abstract_expansions_ = 0;
    plan_level_ = legs_ = 0;
    complete_ = stop_ = false;
    if (graph_ == nullptr) return PathStatus::not_initialized;
    const GraphView& g = *graph_;
    if (start >= g.nodeCount()) return PathStatus::invalid_start;
    if (goal >= g.nodeCount()) return PathStatus::invalid_goal;
    if (g.components[start] != g.components[goal]) return PathStatus::no_path;
    options_ = options;
    const fmt::HierarchyHeader& h = hier_->header;
    cost_index_ = options.cost < fmt::kHierCostCount ? options.cost : uint32_t(h.default_cost);
    current_ = start;
    goal_ = goal;
    if (!append(&start, 1, 0.0)) return PathStatus::out_of_nodes;
    PathStatus status = PathStatus::found;
    if (start != goal) {
        uint32_t top = 0;
        for (uint32_t l = h.level_count; l >= 1 && top == 0; --l)
            if (groupOf(start, l) != groupOf(goal, l)) top = l;
        plan_level_ = top;
        if (options.mode == HierMode::entrances) {
            status = findEntrancePath(start, goal);
        } else if (top == 0) {
            const uint32_t c = g.node_clusters[start];
            status = lowLeg(goal, options.exclusions ? c : kNoNode, c, kNoNode);
        } else {
            uint32_t* plan = plans_ + hier_->level_start[top];
            uint32_t length = 0;
            if (planGroups(top, groupOf(start, top), groupOf(goal, top), kNoNode, kNoNode, plan,
                           length))
                status = refine(top, plan, length, true);
            else  // the abstract graph misses a connection the graph has: plain A*
                status = lowLeg(goal, kNoNode, kNoNode, kNoNode);
            if (status == PathStatus::no_path && current_ != start) {
                // Directed graphs: a group reached on the way may be a one-way dead end (its
                // nodes need not reach each other, nor the goal). Start over with plain A*, which
                // finds a path whenever one exists.
                path_length_ = 0;
                cost_ = 0;
                legs_ = 0;
                stop_ = false;
                current_ = start;
                if (!append(&start, 1, 0.0)) return PathStatus::out_of_nodes;
                status = lowLeg(goal, kNoNode, kNoNode, kNoNode);
            }
        }
    }
    if (status != PathStatus::found) {
        path_length_ = 0;
        cost_ = 0;
        return status;
    }
    complete_ = current_ == goal;
    return PathStatus::found;
}

}  // namespace navrt
