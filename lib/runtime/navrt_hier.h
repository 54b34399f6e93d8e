// navrt hierarchical pathfinding over the hierarchy sections of a .nav (navbake pack
// --hierarchy). Two planners:
//
// groups (Millington, "AI for Games", 4.6.2): plan over the groups of the highest level where
// start and goal lie in different groups (Dijkstra over the abstract graph with the chosen
// connection cost), then refine level by level: each step of a plan becomes a plan one level
// down towards the next group's representative node, cut where it enters that group; at level 1
// the step is a low-level A* that ends on entering the next cluster (the last one at the goal).
// With exclusions (4.6.3) every refinement is confined to the two groups of its step. Paths are
// valid but not optimal; the first leg alone is what a moving character needs next.
//
// entrances (HPA*, Botea et al. 2004): the start and goal are linked to the entrances of their
// clusters by a search inside the cluster, A* (octile / Euclidean heuristic) over the entrance
// graph, then each entrance edge is refined inside its clusters. With every border node an
// entrance (navbake hierarchy --entrances all) the result is a shortest path; with sparse
// entrances it is near-optimal. With the entrance distance tables (FORMAT.md §8.2) the links
// are table rows and each refinement walks down the table (no search), unless an area filter or
// blocking is set.
//
// A HierarchicalQuery owns its memory (sized by init(); the path buffer grows when a path
// exceeds the node count); use one per thread.
#pragma once

#include <cstdint>

#include "lib/runtime/navrt_query.h"

namespace navrt {

enum class HierMode : uint8_t { groups, entrances };
inline constexpr uint8_t kAssetDefaultCost = 0xFF;

struct HierOptions {
    // entrances: near-optimal (exact with all entrances) and, with the entrance tables, the
    // faster of the two on the shared maps (README, "Hierarchical pathfinding").
    HierMode mode = HierMode::entrances;
    uint8_t cost = kAssetDefaultCost;  // nav::formats::HierCost, or the asset's default
    bool exclusions = true;            // groups: confine refinements to the step's two groups
    bool first_leg = false;            // stop after the first refined leg
};

class HierarchicalQuery {
public:
    HierarchicalQuery() = default;
    ~HierarchicalQuery();
    HierarchicalQuery(const HierarchicalQuery&) = delete;
    HierarchicalQuery& operator=(const HierarchicalQuery&) = delete;

    // The graph must have hierarchy sections (invalid_argument otherwise) and outlive the query.
    Error init(const GraphView& graph, const Allocator& allocator = {});

    // Start and goal are nodes. found: path() runs from start to goal (or, with first_leg, to
    // where the first leg ends: complete() is then false unless that is the goal).
    PathStatus findPath(uint32_t start, uint32_t goal, const HierOptions& options = {});

    const uint32_t* path() const { return path_; }
    uint32_t pathLength() const { return path_length_; }
    double cost() const { return cost_; }  // sum of the edge costs along path()
    uint32_t expansions() const { return low_expansions_ + abstract_expansions_; }
    uint32_t lowExpansions() const { return low_expansions_; }
    uint32_t abstractExpansions() const { return abstract_expansions_; }
    uint32_t planLevel() const { return plan_level_; }  // 0: start and goal share a cluster
    uint32_t legs() const { return legs_; }             // low-level searches that built the path
    bool complete() const { return complete_; }
    // The low-level search (e.g. for smooth() over the last leg's graph).
    const PathQuery& lowLevel() const { return low_; }
    // Area filter and dynamic obstacles for the low-level searches that refine each leg (see
    // PathQuery::setFilter / setBlocking). The abstract plan ignores them, so a leg may find no
    // way: navrt::Navigator then searches the whole graph with A*.
    Error setFilter(const QueryFilter* filter) { return low_.setFilter(filter); }
    Error setBlocking(const Blocking* blocking) { return low_.setBlocking(blocking); }

private:
    struct Record {
        double g;
        uint32_t parent;
        uint32_t stamp;
        uint32_t heap_index;
        uint32_t reserved;
        double f;
    };
    uint32_t groupOf(uint32_t node, uint32_t level) const;
    template <class Expand, class Bound>
    bool abstractSearch(uint32_t source, uint32_t target, Expand&& expand, Bound&& bound);
    uint32_t abstractChain(uint32_t target, uint32_t* out);  // parents back from target
    void heapPush(uint32_t id);
    void heapDecrease(uint32_t id);
    uint32_t heapPop();

    // groups planner
    bool planGroups(uint32_t level, uint32_t from_group, uint32_t to_group, uint32_t allow_a,
                    uint32_t allow_b, uint32_t* out, uint32_t& length);
    PathStatus refine(uint32_t level, const uint32_t* plan, uint32_t length, bool to_goal);
    PathStatus lowLeg(uint32_t target, uint32_t cluster_a, uint32_t cluster_b, uint32_t stop);
    // entrances planner
    PathStatus findEntrancePath(uint32_t start, uint32_t goal);
    // Entrance distance tables: usable when the asset has them, edges are explicit and no area
    // filter or blocking changes costs. tableRow: node's costs to its cluster's entrances.
    bool tablesUsable() const;
    const float* tableRow(uint32_t node) const;
    // Follows the table from `from` down to entrance `entrance` (global index) inside its
    // cluster, writing the nodes after `from` to scratch_; false when the table leads nowhere
    // (then the caller searches).
    bool descend(uint32_t from, uint32_t entrance, uint32_t& count, double& cost);
    bool append(const uint32_t* nodes, uint32_t count, double cost);
    void release();

    const GraphView* graph_ = nullptr;
    const nav::formats::HierarchyArrays* hier_ = nullptr;
    Allocator allocator_{};
    PathQuery low_;
    HierOptions options_{};
    uint32_t cost_index_ = 0;
    Record* records_ = nullptr;  // max(groups, entrances + 2)
    uint32_t* heap_ = nullptr;
    uint32_t heap_size_ = 0;
    uint32_t record_count_ = 0;
    uint32_t stamp_ = 0;
    uint32_t* cluster_marks_ = nullptr;  // per cluster
    uint32_t mark_ = 0;
    uint32_t* plans_ = nullptr;      // plan buffers: level l at level_start[l] (groups)
    uint32_t* chain_ = nullptr;      // entrance chains (entrances + 2)
    double* start_costs_ = nullptr;  // per entrance (stamped by entrance_stamp_)
    double* goal_costs_ = nullptr;
    uint32_t* entrance_stamps_ = nullptr;
    uint32_t entrance_stamp_ = 0;
    uint32_t* scratch_ = nullptr;  // a descent's nodes (largest cluster + 1)
    uint32_t scratch_capacity_ = 0;
    uint32_t* path_ = nullptr;
    uint32_t path_capacity_ = 0;
    uint32_t path_length_ = 0;
    uint32_t current_ = kNoNode;  // where the path built so far ends
    uint32_t goal_ = kNoNode;
    double cost_ = 0;
    uint32_t low_expansions_ = 0, abstract_expansions_ = 0;
    uint32_t plan_level_ = 0, legs_ = 0;
    bool complete_ = false, stop_ = false;
};

}  // namespace navrt
