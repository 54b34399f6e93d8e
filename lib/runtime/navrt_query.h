// navrt queries over a packed graph (.nav): locate a position on the graph, A* between nodes,
// and string-pulled smoothing; on points-of-visibility graphs, optimal any-angle paths. A PathQuery
// owns all search memory, sized once by init(), so a query allocates nothing; use one PathQuery per
// thread.
//
// A* (Hart, Nilsson, Raphael 1968) with node-array records and an indexed binary heap; f ties
// prefer the larger g (deeper node), then the lower node id, so results are deterministic.
// Heuristics: octile distance on tile graphs, Euclidean elsewhere, both scaled by the graph's
// smallest area cost multiplier, hence admissible and A* optimal.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>

#include "formats/navmesh_locate.h"
#include "formats/pov_sight.h"
#include "lib/runtime/navrt.h"

namespace navrt {

inline constexpr uint32_t kNoNode = 0xFFFFFFFFu;

struct Vec3 {
    float x = 0, y = 0, z = 0;
};

// Validated, read-only view of the graph sections of a .nav (or .graph) asset.
struct GraphView {
    nav::formats::GraphHeader header;
    const float* positions = nullptr;        // 3 per node (null for implicit volume graphs)
    const uint8_t* cells = nullptr;          // kNodeCellSize per node (null for volume graphs)
    const uint32_t* column_nodes = nullptr;  // columns + 1, or null
    const uint32_t* edge_offsets = nullptr;  // nodes + 1 (explicit graphs)
    const uint32_t* edge_targets = nullptr;  // relative: target = source + value (mod 2^32)
    const float* edge_costs = nullptr;
    const uint32_t* components = nullptr;   // per node; kNoNode for blocked volume voxels
    const uint64_t* free_voxels = nullptr;  // implicit volume graphs
    const char* source_name = nullptr;      // base name of the level's source file (not
    size_t source_name_length = 0;          // terminated); null when the asset has none
    // Navmesh graphs: node p = polygon p.
    const float* mesh_vertices = nullptr;  // 3 per vertex
    uint32_t mesh_vertex_count = 0;
    const uint32_t* poly_offsets = nullptr;  // polygon p's corners: [poly_offsets[p], [p+1])
    const uint32_t* poly_vertices = nullptr;
    const uint32_t* poly_neighbours = nullptr;  // per corner: polygon across edge (i, i+1)
    const uint8_t* poly_areas = nullptr;
    const uint32_t* detail_offsets = nullptr;  // polygon p's floor triangles
    const float* detail_triangles = nullptr;   // 9 floats each
    nav::formats::MeshIndexHeader mesh_index;
    const uint32_t* index_offsets = nullptr;
    const uint32_t* index_polys = nullptr;
    float area_costs[nav::formats::kMaxAreas] = {};
    // POV graphs: node v = corner v; the layer grid is what locate() returns cells of and what
    // line of sight walks (povGrid() hands it to formats/pov_sight.h).
    const uint8_t* pov_corners = nullptr;  // kPovCornerSize per node (PCRN)
    uint32_t layer_cell_count = 0;
    const uint8_t* layer_cells = nullptr;        // kNodeCellSize per layer cell (LCEL)
    const uint32_t* layer_columns = nullptr;     // columns + 1: cells of column c (LCOL)
    const uint32_t* layer_neighbours = nullptr;  // plane k (+X, -X, +Z, -Z) at k * layer_cell_count
    const uint32_t* layer_components = nullptr;  // per layer cell (LCMP)
    nav::formats::PovStats pov_stats;
    // Dirichlet-domain graphs: node i = waypoint i; layer_cells / layer_columns are the cells of
    // the domains and domain_owners (DOWN) the node each belongs to: locate() returns the owner.
    const uint32_t* domain_owners = nullptr;
    // Point-of-interest tables (PKND / PDST / PHOP, from `navbake graph --poi-tables`), validated:
    // per kind k and node v, poi_distances[k * node_count + v] is the cost of the cheapest path to
    // a point of interest of kind k (+inf: none reachable) and poi_next[...] the next node on it
    // (kNoNode at the point itself). See poiKind() and walkToNearestPoi().
    uint32_t poi_kind_count = 0;
    const char* poi_kind_names = nullptr;  // nav::formats::kPoiKindNameSize bytes per kind
    const float* poi_distances = nullptr;
    const uint32_t* poi_next = nullptr;
    // Cluster heuristic table (CLHD/CLND/CLTB, from `navbake pack --clusters`); null when absent.
    // Validated against the graph: node count and the GRHD/EOFF/EDST/ECST fingerprint.
    nav::formats::ClusterHeader cluster_header;
    uint32_t cluster_count = 0;
    const uint32_t* node_clusters = nullptr;  // per node, < cluster_count
    const uint16_t* cluster_table = nullptr;  // [a * cluster_count + b]
    // ALT landmark distances (CLLM, optional beside the cluster table; FORMAT.md §7.3).
    nav::formats::LandmarkView landmarks;

    // Hierarchy (HRHD and its 13 arrays, from `navbake pack --hierarchy`; needs the cluster
    // sections): checked by nav::formats::checkHierarchy against this graph and its clusters.
    nav::formats::HierarchyArrays hierarchy;
    bool has_hierarchy = false;

    // Next-hop table (NHHD/NHRK/NHBO/NHBL, from `navbake pack --nexthop`): validated against the
    // graph; blocks are checked when a NextHopQuery decompresses them.
    nav::formats::NextHopHeader next_hop_header;
    const uint32_t* next_hop_ranks = nullptr;    // per node
    const uint64_t* next_hop_offsets = nullptr;  // per block + 1
    const uint8_t* next_hop_blocks = nullptr;
    size_t next_hop_blocks_size = 0;

    // Hierarchical next-hop table (HNHD + 13 arrays, from `navbake pack --nexthop FILE.nhh`),
    // validated against the graph; data[s] / size[s] indexed by nav::formats::HierHopSection.
    nav::formats::HierNextHopHeader hier_hop_header;
    const uint8_t* hier_hop[nav::formats::kHopSectionCount] = {};
    size_t hier_hop_size[nav::formats::kHopSectionCount] = {};
    bool has_hier_hop = false;

    // Links (LINK + ELNK, optional): drops, jumps, ladders, doors, teleports as directed edges.
    // edge_links[e] is the link edge e stands for, nav::formats::kNoLink for surface edges.
    const uint8_t* links = nullptr;  // link_count records of nav::formats::kLinkRecordSize bytes
    uint32_t link_count = 0;
    const uint32_t* edge_links = nullptr;  // per edge; null without links and on volume graphs
    // Jump point table (JPS+, formats/jump_points.h): 8 entries per node; null when absent.
    const int16_t* jump_entries = nullptr;
    float jump_straight_cost = 0, jump_diagonal_cost = 0;
    // Goal bounds (JPSB, optional with the jump table): 8 boxes of 4 u16 per node; null when
    // absent.
    const uint16_t* jump_bounds = nullptr;
    const char* link_type_names = nullptr;  // LTYP: kLinkTypeNameSize bytes per user type
    uint32_t link_type_count = 0;

    bool hasClusters() const { return node_clusters != nullptr; }
    bool hasNextHop() const { return next_hop_ranks != nullptr || has_hier_hop; }
    bool hasHierarchy() const { return has_hierarchy; }
    bool isNavmesh() const { return header.type == nav::formats::GraphType::navmesh; }
    bool isPov() const { return header.type == nav::formats::GraphType::pov; }
    bool isDirichlet() const { return header.type == nav::formats::GraphType::dirichlet; }

    bool implicitVolume() const {
        return (header.flags & nav::formats::kGraphFlagImplicitVolume) != 0;
    }
    uint32_t nodeCount() const { return header.node_count; }
    uint32_t edgeTarget(uint32_t source, uint32_t edge) const {
        return source + edge_targets[edge];
    }
    Vec3 position(uint32_t node) const;
    bool isFree(uint32_t node) const;  // volume: voxel free; explicit graphs: always true
    // The link edge `edge` stands for, or nav::formats::kNoLink (also for graphs without links).
    uint32_t edgeLink(uint32_t edge) const {
        return edge_links != nullptr ? edge_links[edge] : nav::formats::kNoLink;
    }
    // Link `index` (< link_count), decoded from its validated record.
    nav::formats::LinkRecord link(uint32_t index) const;
    // The name of a link type ("drop", or a user type from LTYP; not terminated: `length`
    // bytes), or null for a value that names none.
    const char* linkTypeName(nav::formats::LinkType type, size_t& length) const;
};
// Checks every count, offset and index of the graph sections before handing out the view.
Error viewGraph(const Asset& asset, GraphView& out);
// The name of a link type: built-in, or user type k from `user_names` (LTYP's layout, `user_count`
// names; `length` bytes, not terminated); null for a value that names none.
const char* linkTypeName(nav::formats::LinkType type, const char* user_names, uint64_t user_count,
                         size_t& length);

enum class PathStatus : uint8_t {
    found,
    no_path,        // start and goal are not connected
    invalid_start,  // start is not a node of the graph
    invalid_goal,
    out_of_nodes,  // the expansion budget given to init() ran out
    not_initialized,
    in_progress,  // a sliced search (beginPath..., step) has more to do
};
const char* pathStatusName(PathStatus status);

// A* heuristic of a PathQuery. standard: octile / Euclidean (above). cluster: max(cluster table
// entry, standard) (Millington, "AI for Games", 4.3.8), and the ALT landmark bound when the
// clusters carry landmarks (Goldberg & Harrelson 2005): admissible but not consistent, so the
// search then reopens closed nodes reached by a cheaper path and stays optimal; a goal whose
// cluster the start's cannot reach gives no_path with 0 expansions. Applies to searches over
// graph edges (findPath on tile and navmesh graphs, findPathBetween on tile graphs); navmesh
// point queries and POV searches use their own costs and keep the standard heuristic.
enum class Heuristic : uint8_t { standard, cluster };

// The node under `position`: the nearest node whose cell is within `horizontal_tolerance` (m)
// of the point and whose floor is within `vertical_tolerance` (m) of its height. kNoNode when
// the position is not on the navigation data. Tile graphs: a lookup in the column grid; volume
// graphs: the voxel containing the point (it must be free). POV graphs: the *layer cell* under
// the point (not a corner id), the argument findPathBetween takes.
uint32_t locate(const GraphView& graph, Vec3 position, float horizontal_tolerance = 0.0f,
                float vertical_tolerance = 1.0f);

// The index of the point-of-interest kind named `name` (`length` bytes), or kNoNode.
uint32_t poiKind(const GraphView& graph, const char* name, size_t length);
// Follows the next hops from `node` to the nearest point of interest of `kind`: writes the nodes
// (from `node` to the point, both included) to `out` up to `capacity` and returns how many the
// walk has (0 when none is reachable or the arguments are out of range). No search, no memory.
uint32_t walkToNearestPoi(const GraphView& graph, uint32_t kind, uint32_t node, uint32_t* out,
                          uint32_t capacity);

// A point on a navmesh: the polygon under it and the point projected onto the polygon's floor.
struct MeshPoint {
    uint32_t poly = kNoNode;
    Vec3 position;
    float distance = 0;  // from the point asked for to `position` [m]
};
// The polygon under `position` (navmesh graphs): candidates come from the grid index; a polygon
// qualifies when the point is inside it in XZ (or within `horizontal_tolerance` of it) and its
// floor there is within `vertical_tolerance` (Detour's findNearestPoly box, half-extents
// horizontal / vertical); the nearest wins. poly = kNoNode when none does. `hint`: a polygon to
// try first (the one the agent was on): when the point is over it within the vertical tolerance,
// it is returned without a search, so an agent stays on its floor where floors overlap.
MeshPoint locateOnMesh(const GraphView& graph, Vec3 position, float horizontal_tolerance = 0.0f,
                       float vertical_tolerance = 1.0f, uint32_t hint = kNoNode);
// The mesh arrays of a navmesh view, as formats/navmesh_locate.h takes them.
nav::formats::MeshArrays meshArrays(const GraphView& graph);
// Floor height of polygon `poly` at (x, z) from its detail triangles; false when (x, z) is
// outside the polygon.
bool polyHeight(const GraphView& graph, uint32_t poly, float x, float z, float& y);

// The portal (shared edge) from polygon a into its neighbour b: false when they share none.
bool portalBetween(const GraphView& graph, uint32_t a, uint32_t b, Vec3& p, Vec3& q);
// The point of portal [a, b] minimising |from - x| + |x - goal| in XZ (where a taut path through
// it crosses), kept a hair inside its ends; height interpolated along the portal.
Vec3 portalCrossing(Vec3 from, Vec3 goal, Vec3 a, Vec3 b);
// A portal's ends as left and right seen from `before` (the centroid of the polygon before it).
void orientPortal(Vec3 before, Vec3 a, Vec3 b, Vec3& left, Vec3& right);
// The funnel over portals 0 .. count - 1 (portal(i, left, right); the first is the start point,
// the last the end point, both as left = right): emit() gets each corner of the taut path after
// the start, and the end.
void stringPull(uint32_t portal_count, const std::function<void(uint32_t, Vec3&, Vec3&)>& portal,
                const std::function<void(Vec3)>& emit);

// Shortcuts (links cheaper than the heuristic across them: teleports) and the heuristic around
// them: fills each one's `bound` (any type with `cost` and `bound`) by a Dijkstra over the
// shortcuts, backwards from the goal: bound(S) = cost(S) x safety + min(to_goal(S), min over S'
// of between(S, S') + bound(S')), where to_goal(i) bounds the way from shortcut i's exit to the
// goal and between(i, j) the way from its exit to shortcut j's entry. A point p's lower bound is
// then min(plain(p), min over S of plain(p, S's entry) + bound(S)). O(K^2) for K <= Max;
// allocates nothing.
template <uint32_t Max, class S, class ToGoal, class Between>
void chainShortcutBounds(S* shortcuts, uint32_t count, double safety, ToGoal&& to_goal,
                         Between&& between) {
    bool settled[Max] = {};
    for (uint32_t i = 0; i < count; ++i)
        shortcuts[i].bound = shortcuts[i].cost * safety + to_goal(i);
    for (uint32_t round = 0; round < count; ++round) {
        uint32_t best = 0xFFFFFFFFu;
        for (uint32_t i = 0; i < count; ++i)
            if (!settled[i] && (best == 0xFFFFFFFFu || shortcuts[i].bound < shortcuts[best].bound))
                best = i;
        settled[best] = true;
        for (uint32_t i = 0; i < count; ++i) {
            if (settled[i]) continue;
            const double via =
                shortcuts[i].cost * safety + between(i, best) + shortcuts[best].bound;
            if (via < shortcuts[i].bound) shortcuts[i].bound = via;
        }
    }
}

struct RaycastHit {
    bool hit = false;              // a wall (polygon edge without neighbour) stops the ray
    float t = 1.0f;                // fraction of the segment travelled (1 when nothing was hit)
    Vec3 normal;                   // wall normal in XZ when hit
    uint32_t last_poly = kNoNode;  // polygon where the ray ended
    uint32_t visited = 0;          // polygons crossed
};
// Walks the mesh from `from` (on polygon `start`) towards `to` along the straight XZ segment.
RaycastHit raycast(const GraphView& graph, uint32_t start, Vec3 from, Vec3 to);

// ---- Points-of-visibility graphs (navrt_pov.cpp) ------------------------------------------------
// Geometry: every layer cell is the closed square [x, x+1] x [z, z+1] (cells) of its column at its
// floor height; two cells touch across a side when LNB4 links them. Line of sight and the taut
// corner rule are nav::formats::povSegmentVisible / povCornerAdmits (formats/pov_sight.h, shared
// with the bake) on exact integer points in units of 1 / povSubdivision() cell.
using PovPoint = nav::formats::PovPoint;
// The layer grid of a POV graph as the formats/pov_sight.h predicates take it.
nav::formats::PovGrid povGrid(const GraphView& graph);
uint32_t povCornerCell(const GraphView& graph, uint32_t corner);
// `point` moved into the square of layer cell `cell` (nearest point) and onto its floor; `fixed`
// receives its exact coordinates for the visibility tests.
Vec3 povPlacePoint(const GraphView& graph, uint32_t cell, Vec3 point, PovPoint* fixed = nullptr);
// Line of sight between two world points on their layer cells (each is placed first).
bool povLineOfSight(const GraphView& graph, uint32_t from_cell, Vec3 from, uint32_t to_cell,
                    Vec3 to);

// Per-query area costs (Detour's dtQueryFilter): a multiplier per area id on top of the asset's
// cost of that area; 0 (or less, or not finite) excludes the area: no path enters it. Applies to
// the graphs whose nodes have areas (tile: an edge's cost scales by its two ends' weighted
// multipliers; navmesh: a polygon's walking cost by its own); links keep their cost. Multipliers
// below 1 scale every heuristic down by the smallest, so searches stay optimal.
struct QueryFilter {
    float area_multiplier[nav::formats::kMaxAreas];
    QueryFilter() {
        for (float& m : area_multiplier) m = 1.0f;
    }
    void exclude(uint32_t area) {
        if (area < nav::formats::kMaxAreas) area_multiplier[area] = 0.0f;
    }
    bool excludes(uint32_t area) const {
        const float m = area_multiplier[area];
        return !(m > 0.0f) || m == HUGE_VALF;
    }
};

// Dynamic obstacles set at run time without rebuilding: nodes (navmesh: polygons; volume:
// voxels; POV: corners), links (a door, a ladder) and whole areas, blocked and unblocked by the
// game. A search never enters a blocked node or area (it may leave the one it starts in) and never
// takes a blocked link. Blocking only removes ways, so the standard and cluster heuristics stay
// admissible. Threads: queries only read it; change it only while no query that uses it runs.
class Blocking {
public:
    Blocking() = default;
    ~Blocking();
    Blocking(const Blocking&) = delete;
    Blocking& operator=(const Blocking&) = delete;
    // Sized for `graph` (its nodes and links); everything open. Allocation through `allocator`.
    Error init(const GraphView& graph, const Allocator& allocator = {});
    // Out-of-range ids are ignored (false from the queries).
    void setNode(uint32_t node, bool blocked = true) { set(node, blocked); }
    void setLink(uint32_t link, bool blocked = true) {
        if (link < link_count_) set(node_count_ + link, blocked);
    }
    void setArea(uint32_t area, bool blocked = true);
    bool node(uint32_t node) const { return node < node_count_ && get(node); }
    bool link(uint32_t link) const { return link < link_count_ && get(node_count_ + link); }
    bool area(uint32_t area) const {
        return area < nav::formats::kMaxAreas && ((areas_[area >> 6] >> (area & 63)) & 1) != 0;
    }
    // Nodes, links and areas blocked now (0: searches skip every check).
    uint32_t count() const { return count_; }
    void clear();
    uint32_t nodeCount() const { return node_count_; }
    uint32_t linkCount() const { return link_count_; }

private:
    void set(uint64_t bit, bool blocked);
    bool get(uint64_t bit) const { return ((bits_[bit >> 6] >> (bit & 63)) & 1) != 0; }
    Allocator allocator_{};
    uint64_t* bits_ = nullptr;  // nodes, then links
    uint32_t node_count_ = 0, link_count_ = 0;
    uint64_t areas_[(nav::formats::kMaxAreas + 63) / 64] = {};
    uint32_t count_ = 0;
};

class PathQuery {
public:
    PathQuery() = default;
    ~PathQuery();
    PathQuery(const PathQuery&) = delete;
    PathQuery& operator=(const PathQuery&) = delete;

    // Allocates the search arrays for `graph` (which must outlive the query). max_expansions = 0
    // means no budget. Allocation goes through `allocator` (default malloc).
    Error init(const GraphView& graph, uint32_t max_expansions = 0,
               const Allocator& allocator = {});

    // POV graphs: the any-angle path between the two corners (findPathBetween at their vertices).
    PathStatus findPath(uint32_t start, uint32_t goal);
    // Tile graphs with a jump point table: findPath by JPS+ (the same cost; the path may differ
    // among equal-cost ones): jumps over the regular nodes, edges around the special ones. Falls
    // back to A* (findPath) without a table, with a filter or blocking, or with the cluster
    // heuristic.
    PathStatus findPathJumping(uint32_t start, uint32_t goal);
    // Area costs and dynamic obstacles for later searches (null: none). Both must outlive their
    // use; a Blocking must be sized for this graph (invalid_argument otherwise). Volume and POV
    // graphs have no areas: a filter there is invalid_argument (blocking nodes and links is not).
    Error setFilter(const QueryFilter* filter);
    Error setBlocking(const Blocking* blocking);
    const QueryFilter* filter() const { return filter_; }
    const Blocking* blocking() const { return blocking_; }
    // Whether a filter or a blocking with anything blocked applies.
    bool restricted() const { return filter_ != nullptr || (blocking_ && blocking_->count() > 0); }
    // The factor the filter scales every heuristic by (1 without one).
    double heuristicScale() const { return filter_scale_; }
    // Whether a search may enter `node`: not blocked, nor its area (blocked or excluded).
    bool canEnter(uint32_t node) const { return enters(node); }

    // Selects the heuristic for later queries; cluster needs a graph with cluster sections
    // (invalid_argument otherwise, and the mode is left unchanged).
    Error setHeuristic(Heuristic heuristic);
    Heuristic heuristicMode() const { return heuristic_; }
    // A* over graph edges (tile and navmesh graphs) confined to the nodes whose cluster c has
    // cluster_marks[c] == mark (cluster_marks null: no limit). When stop_cluster is not kNoNode
    // the search ends at the first node it expands in that cluster (goal then only steers the
    // heuristic); goal = kNoNode with no stop cluster settles every reachable node (Dijkstra),
    // for settledCost(). Needs cluster sections when marks or a stop cluster are given.
    PathStatus findPathWithin(uint32_t start, uint32_t goal, const uint32_t* cluster_marks,
                              uint32_t mark, uint32_t stop_cluster = kNoNode);
    // Cost of the cheapest path to `node` found by the last search when it was settled, else
    // +infinity.
    double settledCost(uint32_t node) const;
    // The standard heuristic (octile / Euclidean, admissible) from node to goal.
    double lowerBound(uint32_t node, uint32_t goal) const { return standardHeuristic(node, goal); }
    // The larger of lowerBound and the landmark bound when the asset has landmarks (admissible;
    // consistent up to one landmark unit).
    double landmarkLowerBound(uint32_t node, uint32_t goal) const;
    // Path between two points on their nodes. Navmesh graphs: A* over polygons with Detour-style
    // costs (distance between successive portal midpoints, from `from` to `to`, times area cost),
    // and smooth() returns the funnel-pulled straight path between the two points. POV graphs:
    // `start` and `goal` are layer cells (from locate()); the points are placed on them; the
    // shortest any-angle path: different layer components -> no_path; goal visible -> the
    // straight segment; else A* (Euclidean heuristic) over the corners plus the start (linked to
    // the corners it sees that admit the direction back to it) and the goal (reached from each
    // expanded corner that sees it and admits the direction). path() is then the virtual start
    // id nodeCount(), the corners, and the virtual goal id nodeCount() + 1; cost() the length.
    // Other graphs: findPath(start, goal).
    PathStatus findPathBetween(Vec3 from, uint32_t start, Vec3 to, uint32_t goal);

    // ---- Time-sliced search (Millington, "AI for Games", §4.7.5 interruptible pathfinding;
    // Detour's sliced queries). beginPath / beginPathBetween set up the same search findPath /
    // findPathBetween would run and return in_progress (or the result when no search is needed:
    // invalid ends, different components, a visible POV goal); step(n) then runs at most n
    // expansions and returns in_progress until the search ends with the result findPath would
    // have given (the same path, cost and expansions: the same steps in the same order). A new
    // begin (or findPath) abandons a search in progress.
    PathStatus beginPath(uint32_t start, uint32_t goal);
    PathStatus beginPathBetween(Vec3 from, uint32_t start, Vec3 to, uint32_t goal);
    PathStatus step(uint64_t max_iterations);
    bool searching() const { return active_ != Active::none; }
    // The best partial path of the last search (one that ran out of nodes, or is still in
    // progress, which this ends): to the expanded node with the smallest heuristic estimate to
    // the goal (Detour's partial result). Sets path() (navmesh and POV: ending at where that node
    // was entered) and returns found, or no_path when nothing was expanded; partial() then says
    // the path does not reach the goal.
    PathStatus finishPartial();
    bool partial() const { return partial_; }

    // Results of the last findPath (valid until the next one).
    const uint32_t* path() const { return path_; }
    uint32_t pathLength() const { return path_length_; }
    // After a search on an explicit graph: the edge the path takes from path()[k] to
    // path()[k + 1] (an index into edge_targets, the very edge the search relaxed), or kNoNode
    // (implicit volume graphs, k out of range, a POV step from the start point or to the goal
    // point). graph.edgeLink() of it names the link a step uses.
    uint32_t pathEdge(uint32_t k) const;
    // The link step k takes (an index into the graph's LINK records, graph.link() decodes it), or
    // nav::formats::kNoLink for a step on the walkable surface (every graph kind).
    uint32_t pathLink(uint32_t k) const;
    double cost() const { return cost_; }
    uint32_t expansions() const { return expansions_; }

    // String-pulls the last path by line of sight over the graph (no corner cutting, respects
    // steps and floors) and writes up to `capacity` world points; returns how many there are.
    // The straight path never cuts across a link: both ends of every link it takes are points,
    // and when `segment_links` is given (capacity entries) segment_links[i] receives the link the
    // segment from points[i] to points[i + 1] takes (an index into LINK), or kNoLink.
    uint32_t smooth(Vec3* points, uint32_t capacity, uint32_t* segment_links = nullptr) const;
    // Length of the smoothed path (sum of its segment lengths).
    double smoothedLength() const;
    // Whether an agent can walk straight from node a to node b (tile, volume and navmesh graphs;
    // POV graphs: between corners; use povLineOfSight for points).
    bool lineOfSight(uint32_t a, uint32_t b) const;

private:
    struct Record {
        double g;
        double f;
        uint32_t parent;
        uint32_t stamp;       // search generation the record belongs to
        uint32_t heap_index;  // position in the heap, or kClosed
        uint32_t via;         // explicit graphs: the edge from parent; volume: the link, or kNoNode
    };
    // A link cheaper than the heuristic's distance between its ends (a teleport): the standard
    // heuristic would overestimate across it, so h = min(plain h to the goal, min over shortcuts
    // of plain h to its entry + `bound`), bound = its cost + a lower bound from its exit to the
    // goal (shortcuts chained), computed once per goal (O(K^2), K <= kMaxShortcuts; beyond that
    // h = min(plain h, cheapest shortcut), still admissible).
    struct Shortcut {
        uint32_t from = 0, to = 0;  // nodes (node-level list)
        Vec3 from_point, to_point;  // navmesh point searches
        double cost = 0;
        double bound = 0;  // cost + lower bound from `to` to the current goal
    };
    static constexpr uint32_t kMaxShortcuts = 64;
    enum class Active : uint8_t { none, nodes, volume, mesh, pov, jumps };
    // Clears the last result and the per-search heuristic state before a new search.
    void beginSearch(bool have_points);
    // A new search generation with an empty heap (records of older ones are stale).
    void startRecords();
    // Pushes `start` as the first record of a node search towards `goal`.
    void startNodes(uint32_t start, uint32_t goal);
    // The expansion loop of node searches: at most `budget` expansions.
    template <class Expand>
    PathStatus searchLoop(uint64_t budget, Expand&& expand);
    template <class Expand>
    PathStatus search(uint32_t start, uint32_t goal, Expand&& expand);
    // Ends the search in progress with `status`.
    PathStatus endSearch(PathStatus status) {
        active_ = Active::none;
        return status;
    }
    // Whether `a` is `v` or one of its parents in this search.
    bool ancestorOf(uint32_t a, uint32_t v) const {
        for (uint32_t steps = 0; v != kNoNode && steps < record_count_; ++steps) {
            if (v == a) return true;
            v = records_[v].parent;
        }
        return false;
    }
    // Keeps u as the partial path's end when its estimate to the goal is the smallest so far.
    void noteBest(uint32_t u) {
        const double h = records_[u].f - records_[u].g;
        if (h < best_h_) best_h_ = h, best_node_ = u;
    }
    template <class Relax>
    void expandEdges(uint32_t u, Relax&& relax) const;
    // Whether a search may enter node v (blocking and filter); its area's filter multiplier.
    bool enters(uint32_t v) const;
    double areaFactor(uint32_t area) const {
        return filter_ != nullptr ? double(filter_->area_multiplier[area]) : 1.0;
    }
    template <class Relax>
    void expandVolume(uint32_t u, Relax&& relax) const;
    double heuristic(uint32_t node, uint32_t goal) const;
    // Shortcut-aware (see Shortcut) lower bound from node to goal.
    double standardHeuristic(uint32_t node, uint32_t goal) const;
    // Octile / Euclidean lower bound ignoring shortcuts.
    double plainHeuristic(uint32_t node, uint32_t goal) const;
    // Navmesh point searches: Euclidean lower bound from a point to to_, shortcut-aware.
    double pointHeuristic(Vec3 point) const;
    template <class ToGoal, class Between>
    static void chainShortcuts(Shortcut* shortcuts, uint32_t count, double safety, ToGoal&& to_goal,
                               Between&& between) {
        chainShortcutBounds<kMaxShortcuts>(shortcuts, count, safety, to_goal, between);
    }
    void prepareShortcuts(uint32_t goal) const;  // bounds for `goal` (node-level list)
    void preparePointShortcuts() const;          // bounds for to_ (navmesh point list)
    Error initLinks(const GraphView& graph);
    // Volume graphs: the links leaving voxel v (both directions of bidirectional ones).
    template <class Relax>
    void expandVolumeLinks(uint32_t v, Relax&& relax) const;
    // Fills path_ by following parents back from the goal, sets the cost; returns found.
    PathStatus finishPath(uint32_t goal);
    // JPS+: the search loop (at most `budget` expansions: jump points, the goal where a jump
    // passes it, or a special node's edges); the node at column `column` at height y (kNoNode:
    // none); the path between jump points filled in.
    PathStatus jumpLoop(uint64_t budget);
    // An entry of JPS+'s open list.
    struct JumpOpen {
        double f, g;
        uint32_t node;
        uint32_t x, z;  // its cell (no division by the grid width when it is expanded)
        uint16_t y;     // and height (NodeCell::y)
    };
    void jumpPush(const JumpOpen& entry);
    // The next live entry (its node closed); false when none is left.
    bool jumpPop(JumpOpen& out);
    uint32_t nodeAt(uint32_t column, uint32_t y) const;
    uint32_t jumpTarget(uint32_t column, uint32_t y) const;
    void fillJumps();
    void heapPush(uint32_t node);
    void heapDecrease(uint32_t node);
    void heapIncrease(uint32_t node);
    uint32_t heapPop();
    bool before(uint32_t a, uint32_t b) const;
    void release();
    uint32_t smoothedIndices(uint32_t* out, uint32_t* links) const;
    uint32_t funnel(Vec3* out, uint32_t capacity) const;
    // The funnel over polygons path_[first .. last] from point a to point b, appended to out.
    void funnelRange(uint32_t first, uint32_t last, Vec3 a, Vec3 b, Vec3* out, uint32_t capacity,
                     uint32_t& count) const;
    // Link record `index` taken from node `from`: its take-off and landing points and cost in
    // the direction it is taken.
    void linkStep(uint32_t index, uint32_t from, Vec3& take_off, Vec3& landing, double& cost) const;
    PathStatus beginMesh(uint32_t start, uint32_t goal);
    PathStatus meshLoop(uint64_t budget);
    PathStatus beginPov(Vec3 from, PovPoint from_fixed, uint32_t start_cell, Vec3 to,
                        PovPoint to_fixed, uint32_t goal_cell);
    PathStatus povLoop(uint64_t budget);
    Vec3 entryPoint(uint32_t v) const {
        return {entry_points_[3 * size_t(v)], entry_points_[3 * size_t(v) + 1],
                entry_points_[3 * size_t(v) + 2]};
    }
    void setEntryPoint(uint32_t v, Vec3 p) {
        entry_points_[3 * size_t(v)] = p.x;
        entry_points_[3 * size_t(v) + 1] = p.y;
        entry_points_[3 * size_t(v) + 2] = p.z;
    }
    uint32_t povPolyline(Vec3* out, uint32_t capacity) const;

    const GraphView* graph_ = nullptr;
    Allocator allocator_{};
    Record* records_ = nullptr;
    uint32_t* heap_ = nullptr;
    JumpOpen* jump_open_ = nullptr;  // JPS+'s open list (graphs with a jump point table)
    uint32_t jump_open_size_ = 0;
    uint32_t* path_ = nullptr;
    mutable uint32_t* scratch_ = nullptr;
    float* entry_points_ = nullptr;  // navmesh: where the search entered each polygon
    mutable Vec3* funnel_points_ = nullptr;
    mutable uint32_t* segment_scratch_ = nullptr;  // smoothing: link per output segment
    mutable Shortcut* shortcuts_ = nullptr;        // node-level list
    uint32_t shortcut_count_ = 0;
    mutable Shortcut* point_shortcuts_ = nullptr;  // navmesh point list
    uint32_t point_shortcut_count_ = 0;
    mutable uint32_t shortcut_goal_ = kNoNode;  // goal the node-level bounds were made for
    mutable bool point_shortcuts_ready_ = false;
    double shortcut_floor_ = 0;  // more than kMaxShortcuts: the cheapest shortcut's cost
    double point_shortcut_floor_ = 0;
    uint32_t* volume_links_ = nullptr;  // volume: (voxel, link | 0x80000000 when reversed) pairs
    uint32_t volume_link_count_ = 0;    // pairs, sorted by voxel
    Vec3 from_{}, to_{};
    bool have_points_ = false;
    uint32_t heap_size_ = 0;
    uint32_t record_count_ = 0;  // node records allocated (nodes + 2: POV virtual start and goal)
    uint32_t stamp_ = 0;
    Heuristic heuristic_ = Heuristic::standard;
    // The search in progress (sliced) and what its loop needs.
    Active active_ = Active::none;
    uint32_t search_goal_ = kNoNode;  // node searches; POV: the virtual goal
    double step_cost_[26] = {};       // volume graphs: the 26 step lengths
    PovPoint pov_from_{}, pov_to_{};  // POV: the placed points, their cells and component
    uint32_t pov_start_cell_ = 0, pov_goal_cell_ = 0, pov_component_ = 0;
    bool pov_visible_ = false;  // the goal is visible from the start
    uint32_t best_node_ = kNoNode;
    double best_h_ = 0;
    bool partial_ = false;
    const QueryFilter* filter_ = nullptr;
    const Blocking* blocking_ = nullptr;
    double filter_scale_ = 1.0;  // min(1, smallest allowed multiplier): scales the heuristics
    bool use_clusters_ = false;  // this search uses the cluster table
    bool jumped_ = false;        // this search jumps (JPS+): its paths are filled in
    int64_t jump_goal_x_ = 0, jump_goal_z_ = 0;  // ... to the goal's column and height
    uint32_t jump_goal_y_ = 0;
    bool bpmx_ = false;                      // ... on a symmetric graph: BPMX propagation
    uint32_t stop_cluster_ = kNoNode;        // findPathWithin: stop on entering this cluster
    const uint16_t* goal_column_ = nullptr;  // cluster_table + goal cluster (stride cluster_count)
    double cluster_scale_ = 0;               // table unit x safety factor
    bool use_landmarks_ = false;             // the cluster heuristic also takes the ALT bound
    double landmark_scale_ = 0;              // landmark unit x safety x filter scale
    uint32_t max_expansions_ = 0;
    uint32_t path_length_ = 0;
    uint32_t expansions_ = 0;
    double cost_ = 0;
};

}  // namespace navrt
