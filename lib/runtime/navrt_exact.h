// Exact Euclidean shortest paths on a navigation mesh (Polyanya: M. Cui, D. Harabor and
// A. Grastien, "Compromise-free Pathfinding on a Navigation Mesh", IJCAI 2017). A search node is
// an interval of a polygon edge together with a root (the start, a mesh vertex or a link's
// landing) that sees all of it; expanding one projects the interval through the next polygon,
// keeping the root for what it sees and turning at an interval end that is a mesh vertex for what
// it does not. With the straight-line heuristic through the interval, A* over these nodes returns
// the shortest path; nothing is precomputed.
//
// Our meshes are 2.5D (floors over floors, ramps): the search runs on the polygons' XZ
// projections joined by their portals only, so each floor is its own sheet and the path is the
// shortest in the XZ metric along the surface; heights come from the mesh vertices (turns) and
// the two end points. Exact when every polygon has the same area cost (the length is then scaled
// by it). With several costs the search still returns the shortest path and cost() is its length
// (uniformCosts() false): its true cost is at most c_max / c_min times the cheapest path's (it is
// at most c_max x its length, which is at most the cheapest path's length, itself at most the
// cheapest cost / c_min).
//
// Links (drops, jumps, ladders, doors): a link's entry point is a target like the goal (seen
// from a root, or from the interval end it turns at); taking it makes a node rooted at the
// landing point, which sees its whole polygon, with g raised by the link's cost. The path then
// runs ... -> take-off -> landing -> ..., segmentLink() naming the link. Links cheaper than the
// straight line between their ends (teleports) would make the straight-line heuristic
// overestimate: h is then the minimum of it and, per teleport, the way through its entry plus a
// per-goal bound (its cost and a lower bound on from its exit; up to 16 teleports, beyond that
// the cheapest teleport's cost), so the search stays optimal.
//
// The search runs on a coarser mesh made in init(): neighbouring polygons of one area joined while
// the union stays convex (the greedy removal of inessential edges of S. Hertel and K. Mehlhorn,
// "Fast triangulation of simple polygons", FCT 1983), longest shared edge first. Fewer, larger
// polygons mean fewer intervals per path (0.63-0.83x the polygons on the large generated levels,
// 0.60-0.76x the expansions); the paths and costs are the same.
//
// Memory: the query keeps its node pool and heap between calls (they grow to the largest search
// so far), unlike PathQuery, which sizes everything in init().
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "lib/runtime/navrt_heap.h"
#include "lib/runtime/navrt_query.h"

namespace navrt {

class ExactMeshQuery {
public:
    // Errors: not a navmesh asset.
    Error init(const GraphView& graph);
    // From `from` in polygon `start` to `to` in polygon `goal` (as locateOnMesh gives them).
    PathStatus findPath(Vec3 from, uint32_t start, Vec3 to, uint32_t goal);
    // After a found path: its length in the XZ metric times the area cost, its corners (from,
    // the turning vertices, to), and the search nodes expanded.
    double cost() const { return cost_; }
    uint32_t pointCount() const { return uint32_t(path_.size()); }
    const Vec3* points() const { return path_.data(); }
    uint32_t expansions() const { return expansions_; }
    // The link segment i (points()[i] -> points()[i + 1]) takes (an index into the graph's LINK
    // records), or nav::formats::kNoLink.
    uint32_t segmentLink(uint32_t i) const {
        return i < path_links_.size() ? path_links_[i] : nav::formats::kNoLink;
    }
    bool uniformCosts() const { return uniform_costs_; }
    // The cluster bound's settings (see below), for tests and tuning; before init(): polygons
    // a cluster at most (0: no bound) and the expansions a search makes before using it;
    // Whether init() set the cluster bound up for this mesh (floors stack, no links).
    bool usesClusterBound() const { return !portals_.empty(); }
    // force: on every mesh, stacked floors or not.
    void setClusterBound(uint32_t polygons, uint32_t after, bool force = false) {
        cluster_polygons_ = polygons;
        cluster_after_ = after;
        force_clusters_ = force;
    }
    // The polygons the search runs on (the asset's, merged while convex: see below).
    uint32_t searchPolygonCount() const {
        return uint32_t(offsets_.empty() ? 0 : offsets_.size() - 1);
    }

private:
    struct Node {
        double g = 0, f = 0;
        double root[2] = {0, 0};         // XZ
        uint32_t root_vertex = kNoNode;  // kNoNode: the start point
        double left[2] = {0, 0}, right[2] = {0, 0};
        bool left_vertex = false, right_vertex = false;  // an end is the entry edge's vertex
        uint32_t poly = kNoNode;                         // the polygon the interval leads into
        uint32_t edge = 0;          // index in `poly` of the entry edge (its vertex k is left's)
        uint32_t parent = kNoNode;  // the node whose root led here (for the turning points)
        bool goal = false;          // a final node: root -> the goal
        bool exit = false;  // a point root in `poly` not expanded yet (the start, a link's exit)
        // The cluster bound in f: taken with the portal Dijkstra at this radius (see
        // portal_radius_), to be taken again once it has grown; +inf: final (or none to take).
        double bound_at = std::numeric_limits<double>::infinity();
    };
    // A link taken one way: from its entry point (in entry_poly) to its exit (in exit_poly).
    struct LinkDir {
        uint32_t entry_poly = 0, exit_poly = 0, link = 0;
        double e[2] = {0, 0}, x[2] = {0, 0};  // XZ
        Vec3 e3, x3;
        double cost = 0;        // in length units (the link's cost / the area cost)
        bool shortcut = false;  // cheaper than the straight line between its ends (a teleport)
    };
    // How a target point in node.poly (the goal, a link's entry) is reached from `node` (stored
    // at `index`): in sight of its root (sees_all: the root sees the whole polygon), by turning
    // at an end of the interval that is a mesh corner, or not from this node. `from` receives
    // the node whose root is the last before the target (node itself, or the turn).
    enum class Reach { none, in_sight, turned };
    Reach reach(const Node& node, uint32_t index, bool sees_all, const double target[2],
                Node& from) const;
    // The final node when node.poly holds the goal.
    void addGoal(const Node& node, uint32_t index, bool sees_all);
    // The links whose entry is in node.poly: an exit node for each whose entry the root sees
    // (sees_all: the whole polygon) or sees by turning at an end of the interval.
    void linkEntries(const Node& node, uint32_t index, bool sees_all);
    // The straight-line lower bound from root r through the interval l-q to `target`.
    double through(const double r[2], const double l[2], const double q[2],
                   const double target[2]) const;
    // Adds the node unless pruned; add_heuristic: its f is g + the heuristic (computed only for a
    // node that is kept).
    void push(Node node, bool add_heuristic = false);
    // Heap order: the node to expand later (larger f; ties to the later pushed, so the search is
    // deterministic).
    struct HeapEntry {
        double f;
        uint32_t index;  // in nodes_
    };
    void heapPush(HeapEntry entry);
    HeapEntry heapPop();  // the next node to expand (the heap is not empty)
    struct Later {
        bool operator()(const HeapEntry& a, const HeapEntry& b) const {
            return a.f > b.f || (a.f == b.f && a.index > b.index);
        }
    };
    // Fills child.poly / edge and clips its interval (on counter-clockwise edge `from_edge` of
    // `from`) to `next`'s edge back to `from`; false when they share no part of it.
    bool enter(uint32_t next, uint32_t from, uint32_t from_edge, Node& child) const;
    // Whether a node is worth keeping: not seen before, its root not reached cheaper (and the work
    // bound not reached); records its root's g.
    bool admit(const Node& node);
    void expand(uint32_t index);
    // The successors of `node` (stored at `index`, or expanded on from it) into children_; goal
    // nodes come with their f, the others without.
    void successors(const Node& node, uint32_t index);
    std::vector<Node> children_;
    double heuristic(const double root[2], const double left[2], const double right[2]) const;
    void corner(uint32_t poly, uint32_t k, double out[2]) const;
    // Counter-clockwise corner k (0 <= k <= n, n = corner 0) of `poly`.
    uint32_t vertexOf(uint32_t poly, uint32_t k) const;
    // The polygon across counter-clockwise edge k of `poly` with the edge's corners (a = corner
    // k, b = k + 1), or kNoNode for a wall or the way down a dead-end branch the goal is not in
    // (see branch_parent_).
    uint32_t openEdge(uint32_t poly, uint32_t k, double a[2], double b[2]) const;
    // The polygon across counter-clockwise edge k (k < n) of `poly`, or kNoNode (a wall).
    uint32_t neighbourOf(uint32_t poly, uint32_t k) const;

    // Joins neighbouring polygons of one area into larger convex ones, so a search crosses
    // fewer edges (see init()): fills offsets_, merged_of_, ccw_vertices_ and ccw_neighbours_
    // from the original polygons' rings.
    void mergeConvex(const GraphView& g);
    // A merged polygon's corners at most (each expansion scans its polygon's edges).
    static constexpr uint32_t kMaxMergedCorners = 32;

    const GraphView* graph_ = nullptr;
    // The polygons searched: per merged polygon its first edge (its corners at offsets_[p] + p,
    // n + 1 of them); per original polygon the merged one holding it.
    std::vector<uint32_t> offsets_, merged_of_;
    // Per merged polygon (at offsets_[p] + p): its n + 1 corners counter-clockwise; (at
    // offsets_[p]) the merged polygon across each counter-clockwise edge or kNoNode. Vertex XZ.
    std::vector<uint32_t> ccw_vertices_, ccw_neighbours_;
    std::vector<uint32_t> back_edges_;  // per edge (as ccw_neighbours_): see init()
    std::vector<double> xz_;
    std::vector<double> ring_xz_;  // XZ of each corner of ccw_vertices_, in its order
    // Per mesh vertex: a corner of the walls (see init()). Taut paths bend only there, so turns
    // anywhere else are not generated (Polyanya's pruning of non-corner roots).
    std::vector<uint8_t> corner_;
    std::vector<Node> nodes_;
    std::vector<HeapEntry> heap_;
    std::vector<double> root_g_;  // per mesh vertex: the best g seen with it as root
    // Hashes of the nodes pushed this search (root and g, polygon, entry edge, interval ends to a
    // micrometre): a root
    // at a corner shared by a ring of polygons sees each of them whole, and would go round.
    // An open-addressing set (0 = empty slot; a zero hash is stored as 1), its used slots reset
    // at the start of each search; only the first seen_mask_ + 1 slots are in use.
    std::vector<uint64_t> seen_;
    std::vector<uint32_t> seen_used_;
    size_t seen_mask_ = 0;
    static constexpr size_t kSeenStart = 1024;
    bool insertSeen(uint64_t hash);
    // Dead-end branches (Polyanya's dead-end pruning carried to whole trees): polygons that
    // peel off when those with at most one neighbour are removed again and again, each below the
    // neighbour it had left (branch_parent_, kNoNode for the rest). A path never goes down a
    // branch and back up through the same portal, so a search enters a branch only when the goal
    // is below: branch_first_ .. branch_last_ number the polygons below each, depth first.
    // Polygons with a link's take-off are never peeled.
    std::vector<uint32_t> branch_parent_, branch_first_, branch_last_;
    uint32_t goal_order_ = 0;
    void findDeadEnds();
    bool overflow_ = false;
    std::vector<uint32_t> root_stamp_;
    uint32_t stamp_ = 0;
    double goal_[2] = {0, 0};
    uint32_t goal_poly_ = kNoNode;
    double area_cost_ = 1;
    bool uniform_costs_ = true;
    double cost_ = 0;
    uint32_t expansions_ = 0;
    std::vector<Vec3> path_;
    std::vector<uint32_t> path_links_;    // per segment of path_
    std::vector<LinkDir> link_dirs_;      // sorted by entry polygon
    std::vector<uint32_t> link_offsets_;  // per polygon: its entries in link_dirs_
    // Cluster bound (a lower bound beside the straight line, for multi-storey levels where the
    // goal is straight above or below and the way is round by the stairs): the search polygons
    // are grouped into clusters of up to cluster_polygons_ neighbours (grown breadth-first, in
    // polygon order); a portal is all the edges between two clusters, kept as their XZ bounding
    // box. Per search, a Dijkstra from the goal over the portals (two portals of one cluster
    // joined, in init(), by the larger of the distance between their edges and the least sum of
    // edge-to-edge distances over a chain of the cluster's polygons from one to the other, which
    // a way between them inside the cluster must cross: on tower40x4 expansions 1,974 -> 1,569,
    // exact 1.63-1.77x Detour's instead of 2.0-2.15x in the same runs, init() 20-30 ms longer
    // on tower60x6's 24,443 polygons; the goal's cluster's by
    // the distance from the goal to their boxes; boxes for the edges were 1.12x the expansions)
    // gives each portal a lower bound on the way on from any of its points. A path from a node's
    // interval leaves its polygon's cluster (unless it is the goal's) through one of its portals
    // P, so g + the smallest over them of (the larger of the root's distances to the interval
    // and to P's box) + P's bound is a lower bound too, and f takes the larger.
    // The Dijkstra runs only as far as the search needs: before a node is expanded, until every
    // portal within its f of the goal is settled (portal_radius_: the smallest distance not
    // settled; no portal left has less, so min(tentative, radius) bounds any portal). A node
    // whose bound a radius cut short, or that was pushed before the Dijkstra started (bound_at),
    // takes it again when popped after the radius grew, and goes back to the heap if its f rose:
    // a node is expanded only at f <= the path's cost, and by then the radius is at least that,
    // so the bound is as good as the whole Dijkstra's where it matters, and only the portals
    // within the path's cost of the goal are settled. Started from the first expansion (after
    // the 128th with the whole Dijkstra, the nodes pushed before never bounded: on tower40x4
    // expansions 2,381 -> 1,974, 0.91x the time, 1.9-2.05x Detour's instead of 2.1-2.2x in the
    // same runs). Not with links (they join clusters no portal does). Only where most floors
    // stack (see floorsStack(): 84% of tower40x4's cells, where expansions went 4,306 -> 1,569;
    // 21-28% of the generated towns' (building interiors under roofs, bridges), where the
    // straight line is nearly as good: city8's expansions -4%, its queries 1.25x slower).
    // (Also tried: the interval's distance to the portal's box added to the root's distance to
    // the interval: expansions -2.6%, 1.2x the time.)
    // (12: 1.10x the expansions on tower40x4, 16: 1.20x, 5 and 6: the same, no faster)
    uint32_t cluster_polygons_ = 8;
    uint32_t cluster_after_ = 1;
    bool force_clusters_ = false;
    struct Portal {
        double box[4] = {0, 0, 0, 0};  // XZ bounding box of its edges: min x, min z, max x, max z
    };
    void buildClusters(const GraphView& g);
    // Whether floors stack: on a coarse XZ grid, the share of occupied cells where one polygon
    // lies wholly more than the agent height above another is at least kStackedShare.
    static bool floorsStack(const GraphView& g, const std::vector<uint32_t>& offsets,
                            const std::vector<uint32_t>& ring);
    static constexpr double kStackedShare = 0.5;
    void startClusterBounds();          // per search: the Dijkstra seeded from the goal
    void settlePortals(double radius);  // on until every portal within `radius` is settled
    // The node's cluster bound with the portals settled so far; `capped`: a portal not settled
    // gave it (a larger radius may raise it).
    double clusterBound(const Node& node, bool& capped) const;
    // f raised to g + the cluster bound where that is more, and bound_at set.
    void raiseByClusterBound(Node& node) const;
    bool cluster_ready_ = false;        // this search's Dijkstra is started
    std::vector<uint32_t> cluster_of_;  // per search polygon
    std::vector<Portal> portals_;
    std::vector<uint32_t> cluster_portal_offsets_, cluster_portals_;  // per cluster: its portals
    std::vector<uint32_t> portal_edge_offsets_;                       // per portal: its edges
    std::vector<std::pair<uint32_t, double>> portal_edges_;           // (portal, box distance)
    // Per portal: its tentative distance in f (settled where at most portal_radius_) and its
    // place in portal_heap_ (navrt_heap.h; g unused).
    struct PortalRecord {
        double f = std::numeric_limits<double>::infinity();
        double g = 0;
        uint32_t heap_index = heap::kNotInHeap;
    };
    std::vector<PortalRecord> portal_d_;
    std::vector<uint32_t> portal_heap_;
    uint32_t portal_heap_size_ = 0;
    double portal_radius_ = 0;
    std::vector<uint32_t> shortcuts_;      // link_dirs_ indices of the teleports
    std::vector<double> shortcut_bounds_;  // per shortcut, for the current goal
    double min_shortcut_bound_ = 0;
    // With more teleports than this, h = min(straight line, the cheapest teleport's cost).
    static constexpr size_t kMaxShortcutTerms = 16;
};

}  // namespace navrt
