// navrt::Navigator: one object that answers a game's questions on any navbake graph asset. It
// locates points (the nearest node or polygon within a search box, with a coherence hint: the
// node the agent was on last frame, Millington, "AI for Games" 3rd ed., §4.4 "Localization"),
// finds paths with any method the asset supports, and hands out the straight path with the link
// each segment takes. It owns the search objects the method needs (PathQuery, HierarchicalQuery,
// NextHopQuery, ExactMeshQuery), set up once by init(), so a query allocates nothing (the exact
// search grows its pools to the largest search so far).
//
// Threads: a GraphView (and the Asset behind it) is immutable and may be shared by any number of
// threads; a Navigator is not: use one per thread.
//
// Methods (not every asset supports every one; checkMethod says why not):
//   astar    A* over the graph: tile graphs (octile heuristic), volume graphs, navmesh polygons
//            (Detour-style portal costs, then the funnel), POV graphs (optimal any-angle paths);
//   cluster  A* with the cluster heuristic table packed into a tile graph (pack --clusters);
//   hier     the packed hierarchy (groups or HPA* entrances; near-optimal by design);
//   nexthop  chained lookups in the packed next-hop table (optimal);
//   exact    navmesh graphs: the Euclidean shortest path (Polyanya; see navrt_exact.h).
#pragma once

#include <cstdint>

#include "lib/runtime/navrt_exact.h"
#include "lib/runtime/navrt_hier.h"
#include "lib/runtime/navrt_nexthop.h"
#include "lib/runtime/navrt_query.h"

namespace navrt {

enum class Method : uint8_t { astar, cluster, hier, nexthop, exact, jps };
inline constexpr uint32_t kMethodCount = 6;
const char* methodName(Method method);
// "astar", "cluster", "hier", "nexthop", "exact" or "jps" (`length` bytes); false otherwise.
bool parseMethod(const char* name, size_t length, Method& out);
// Whether `graph` supports `method`: cluster, hier and nexthop need their packed sections
// (missing_section) on a tile graph (invalid_argument otherwise), exact a navmesh graph
// (invalid_argument). The message says what is missing.
Error checkMethod(const GraphView& graph, Method method);
// Whether `method` returns shortest paths on `graph`: false for hierarchical searches and for
// next-hop lookups in a hierarchical table (near-optimal by design), true otherwise.
bool returnsShortestPaths(const GraphView& graph, Method method);

// Where a point may be from the graph. A point counts as on the graph when a node's cell
// (navmesh: a polygon) is within `horizontal` metres of it in XZ and its floor within `vertical`
// metres of its height; when none is and `snap` > 0, the nearest surface within `snap` metres
// (both ways: Detour's findNearestPoly box) is taken instead and the point moved onto it.
struct LocateOptions {
    float horizontal = 0.0f;  // [m]
    float vertical = 1.0f;    // [m]
    float snap = 0.0f;        // [m] 0: off-graph points are not moved
};

// A located point. node: tile and volume graphs the node, navmesh graphs the polygon, POV graphs
// the layer cell (kNoNode when the point is off the graph). position: the point a search starts or
// ends at: navmesh points projected onto their polygon's floor, other points as given unless
// snapped (then the node's position; POV: the cell's centre). moved: how far snapping moved the
// point [m], or -1 when it was on the graph as given.
struct Location {
    uint32_t node = kNoNode;
    Vec3 position;
    double moved = -1.0;
};

// The index of the link whose stable id (LinkRecord::id, what the level named) is `id`, or
// kNoNode.
uint32_t findLink(const GraphView& graph, uint32_t id);

// The node under `point` within the tolerances, without snapping: navmesh graphs the polygon
// (locateOnMesh, with `hint`) and the point on its floor; tile and volume graphs the node and its
// position; POV graphs the layer cell and its centre. poly = kNoNode when none.
MeshPoint locatePoint(const GraphView& graph, Vec3 point, float horizontal, float vertical,
                      uint32_t hint = kNoNode);

enum class NavStatus : uint8_t {
    found = 0,
    no_path = 1,          // start and goal are not connected
    start_off_graph = 2,  // the start is not within the locate options of the graph
    goal_off_graph = 3,
    // The search stopped before the goal: the expansion budget ran out, or finish() ended a
    // sliced search early. The path is the best partial one (partial()): to the expanded node
    // nearest the goal by the heuristic.
    out_of_nodes = 4,
    in_progress = 6,  // a sliced search (beginPath, step) has more to do
};
const char* navStatusName(NavStatus status);

struct NavigatorOptions {
    Method method = Method::astar;
    HierOptions hier;             // Method::hier
    uint32_t max_expansions = 0;  // A* budget; 0: none
    // Method::nexthop: memory for the table. With NextHopForm::fastest the table is decoded
    // when its decoded form fits (NextHopQuery::decodedBytes), else blocks share this cache.
    uint64_t next_hop_cache_bytes = uint64_t(32) << 20;
    NextHopForm next_hop_form = NextHopForm::fastest;
    Allocator allocator;  // default: malloc
};

// Where moveAlongSurface ended.
struct SurfaceMove {
    Vec3 position;            // on the surface, as near the target as the walls allow
    uint32_t poly = kNoNode;  // the polygon it is on
    uint32_t visited = 0;     // polygons looked at
    bool reached = false;     // the target itself (no wall in the way)
};

// A step of the last path that takes a link (drop, jump, ladder, door, teleport).
struct PathLink {
    uint32_t link = 0;     // index into the graph's LINK records (GraphView::link decodes it)
    uint32_t step = 0;     // node path step: nodes()[step] -> nodes()[step + 1] (exact: segment)
    uint32_t segment = 0;  // straight-path segment it is: points[segment] -> points[segment + 1]
    bool reverse = false;  // taken to -> from (a bidirectional link's way back)
};

class Navigator {
public:
    Navigator() = default;
    ~Navigator();
    Navigator(const Navigator&) = delete;
    Navigator& operator=(const Navigator&) = delete;

    // checkMethod, then sets up the searches `options.method` uses. `graph` must outlive the
    // navigator.
    Error init(const GraphView& graph, const NavigatorOptions& options = {});
    // A navigator that runs A* (astar / cluster heuristic) with a PathQuery the caller owns
    // (initialised on `graph`, outliving the navigator).
    Error initWith(const GraphView& graph, PathQuery& query, Method method = Method::astar);
    bool ready() const { return graph_ != nullptr; }
    const GraphView& graph() const { return *graph_; }
    Method method() const { return method_; }

    // The point on the graph for `point` (see Location). `hint` (navmesh graphs): the polygon the
    // agent was on; when the point is over it within the vertical tolerance it is kept without a
    // search, so an agent stays on its floor where floors overlap. Other graphs ignore it.
    Location locate(Vec3 point, const LocateOptions& options = {}, uint32_t hint = kNoNode) const;

    // Locates both points and searches between them with the navigator's method.
    NavStatus findPath(Vec3 from, Vec3 to, const LocateOptions& options = {},
                       uint32_t start_hint = kNoNode, uint32_t goal_hint = kNoNode);

    // Area costs and dynamic obstacles for later searches (null: none; they must outlive their
    // use); see QueryFilter and Blocking in navrt_query.h. astar and cluster honour them in the
    // search (the cluster heuristic stays admissible); hier refines its legs with them and
    // searches the whole graph with A* when a leg finds no way; nexthop follows the table while
    // each move is open and searches with A* from the first blocked one, so it never returns a
    // blocked move (with a filter: A* throughout, the table holding the unfiltered costs'
    // moves); exact runs A* and the funnel while either applies.
    Error setFilter(const QueryFilter* filter);
    Error setBlocking(const Blocking* blocking);
    // Whether the last path came from the A* fallback of a method above.
    bool fellBack() const { return via_astar_; }

    // Open goal (Millington, "AI for Games", §4.7.1): the cheapest path from `from` to any of
    // `goals` (`count` points, located like findPath's goal), by the method's cost; ties go to
    // the earlier goal. Goals are tried in order of a lower bound on their cost (the XZ distance
    // times the cheapest area cost), and the search stops once that bound reaches the best cost
    // found, so far goals cost nothing (on graphs with links cheaper than their length, every
    // goal is searched). goalIndex() names the winner; the results are its path's.
    // goal_off_graph when no goal is on the graph; no_path when none is reachable.
    NavStatus findPathToAny(Vec3 from, const Vec3* goals, uint32_t count,
                            const LocateOptions& options = {}, uint32_t start_hint = kNoNode);
    uint32_t goalIndex() const { return goal_index_; }

    // ---- Surface queries (Detour's findRandomPoint, raycast, closestPointOnPoly,
    // moveAlongSurface). ----
    // A random point on the surface from three uniform numbers in [0, 1) (the caller's random
    // source; the same numbers give the same point). Navmesh: a polygon chosen in proportion to
    // its area, then a point uniformly inside it, on its floor (the polygons' cumulative areas
    // are made at the first call). Tile and Dirichlet graphs: a node's cell (uniform), a point in
    // it; volume graphs: a free voxel's centre; POV graphs: a layer cell's centre. node = kNoNode
    // on an empty graph.
    Location randomPoint(float u0, float u1, float u2) const;
    // Navmesh graphs: walks the surface from `from` (located, with `hint`) straight towards `to`
    // in XZ and reports the wall it hits (t, normal) or the polygon reached (navrt::raycast).
    // Other graphs, or `from` off the mesh: no hit, last_poly kNoNode.
    RaycastHit raycast(Vec3 from, Vec3 to, const LocateOptions& options = {},
                       uint32_t hint = kNoNode) const;
    // Navmesh graphs: the point of polygon `poly` nearest to `point` in XZ, on its floor.
    Location closestPoint(uint32_t poly, Vec3 point) const;
    // Navmesh graphs: moves from `from` on polygon `start` towards `to`, constrained to the
    // surface: through portals (not links) within the circle over from-to, sliding along walls;
    // the result is the target when nothing is in the way, else the reachable point nearest it.
    // Blocked polygons (setBlocking) are walls. Allocates a mark and a queue entry per polygon
    // at the first call.
    SurfaceMove moveAlongSurface(uint32_t start, Vec3 from, Vec3 to) const;

    // ---- Time-sliced search (Millington, "AI for Games", §4.7.5; Detour's sliced queries). ----
    // beginPath locates both points and sets the search up (in_progress, or the result when no
    // search is needed); step(n) runs at most n expansions and returns in_progress until the
    // search ends, with the same result findPath gives; finish() ends a search in progress with
    // its best partial path (out_of_nodes) and returns the status otherwise. astar and cluster
    // searches are sliced; exact, hier and nexthop run whole in beginPath.
    NavStatus beginPath(Vec3 from, Vec3 to, const LocateOptions& options = {},
                        uint32_t start_hint = kNoNode, uint32_t goal_hint = kNoNode);
    NavStatus step(uint32_t max_iterations);
    NavStatus finish();

    // ---- Results of the last search (valid until the next one). ----
    NavStatus status() const { return status_; }
    // The path stops short of the goal (out_of_nodes): nodes() and straightPath() lead to the
    // expanded node nearest the goal.
    bool partial() const { return partial_; }
    const Location& start() const { return start_; }
    const Location& goal() const { return goal_; }
    // The path's cost: edge costs with area multipliers (astar, cluster, hier, nexthop); the
    // navmesh A* its portal-midpoint cost; exact and POV the length times the area cost.
    double cost() const { return cost_; }
    uint32_t expansions() const { return expansions_; }
    // The node path (nodes, polygons, POV corners with the virtual start nodeCount() and goal
    // nodeCount() + 1); none for exact, whose path is its straight path.
    const uint32_t* nodes() const { return nodes_; }
    uint32_t nodeCount() const { return node_count_; }
    // The straight path: A* paths string-pulled (no corner cutting, both ends of every link
    // taken), exact paths as found, hier and nexthop paths their nodes' positions (not pulled).
    // Writes up to `capacity` points (and, when `links` is given, per segment i the link it takes
    // or nav::formats::kNoLink in links[i]); returns how many the path has (more than capacity:
    // call again with room for them all).
    uint32_t straightPath(Vec3* points, uint32_t capacity, uint32_t* links = nullptr) const;
    // Length of the straight path [m], in 3D (links as the straight segments between their
    // ends; hier and nexthop: the polyline through the path's nodes).
    double pathLength() const;
    // The steps that take a link, in order; writes up to `capacity`, returns how many there are.
    uint32_t pathLinks(PathLink* out, uint32_t capacity) const;

    // The search objects, for figures a method adds (hier: levels and legs; nexthop: blocks).
    const PathQuery& pathQuery() const { return *query_; }
    const HierarchicalQuery& hierarchical() const { return hierarchical_; }
    const NextHopQuery& nextHop() const { return next_hop_; }
    const ExactMeshQuery& exact() const { return exact_; }

private:
    bool tableMethod() const { return method_ == Method::hier || method_ == Method::nexthop; }
    bool sliced() const { return method_ == Method::astar || method_ == Method::cluster; }
    // Clears the results and locates the two points; false when one is off the graph.
    bool startSearch(Vec3 from, Vec3 to, const LocateOptions& options, uint32_t start_hint,
                     uint32_t goal_hint);
    // The results of an A* search that ended with `status` (a partial path when out of nodes).
    NavStatus endAStar(PathStatus status);
    // Runs a whole search of a method that is not sliced.
    NavStatus runWhole();
    // The A* search from the located points to its end (the fallback of hier, nexthop, exact).
    NavStatus runAStar();
    // nexthop with obstacles: table moves while open, then A* from the first blocked one.
    NavStatus runNextHopAround();
    bool reserveHops(uint32_t need);
    void findShortcuts();
    // Room in the scratch below for `need` points (allocator_); false when it cannot be had.
    bool reservePulled(uint32_t need) const;
    // The A* path's straight path, pulled into the scratch at the first call after a search;
    // its point count (0 when the scratch cannot be had).
    uint32_t pull() const;
    void release();

    const GraphView* graph_ = nullptr;
    Method method_ = Method::astar;
    HierOptions hier_options_;
    PathQuery own_query_;
    PathQuery* query_ = &own_query_;
    HierarchicalQuery hierarchical_;
    NextHopQuery next_hop_;
    ExactMeshQuery exact_;
    Allocator allocator_{};
    // The straight path of A* methods (straightPath copies it, pathLinks numbers its link
    // segments): points and segment links, grown to the longest path so far (2 x path nodes + 4:
    // the most smooth() writes).
    mutable Vec3* pulled_ = nullptr;
    mutable uint32_t* pulled_links_ = nullptr;
    mutable uint32_t pulled_capacity_ = 0;
    mutable uint32_t pulled_count_ =
        kNoNode;  // points pulled for the last search (kNoNode: not yet)

    NavStatus status_ = NavStatus::no_path;
    uint32_t goal_index_ = kNoNode;
    bool shortcuts_ = false;  // a link costs less than the distance between its ends
    bool partial_ = false;
    bool via_astar_ = false;  // the result is query_'s (a fallback)
    // nexthop around obstacles: the path (table moves, then the A* tail).
    uint32_t* hops_ = nullptr;
    uint32_t hop_capacity_ = 0;
    // randomPoint on navmeshes: cumulative polygon areas; moveAlongSurface: a mark per polygon.
    mutable double* cumulative_areas_ = nullptr;
    mutable uint32_t* surface_marks_ = nullptr;
    mutable uint32_t* surface_queue_ = nullptr;  // a polygon count of entries
    mutable uint32_t surface_stamp_ = 0;
    // findPathToAny: the goals' order and lower bounds (2 x 4 bytes a goal).
    uint32_t* goal_scratch_ = nullptr;
    uint32_t goal_capacity_ = 0;
    Location start_, goal_;
    double cost_ = 0;
    uint32_t expansions_ = 0;
    const uint32_t* nodes_ = nullptr;
    uint32_t node_count_ = 0;
};

}  // namespace navrt
