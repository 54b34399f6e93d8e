// Running navrt queries from the bake side: single queries, batches of point pairs and MovingAI
// scenario files, with timing and conformance figures. Used by `navbake query` / `navbake scen`,
// the conformance tests and the benchmarks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/runtime/navrt_navigator.h"

namespace nav::query {

// How far a point may be from the graph, and how far it may be moved onto it (navrt's).
using Tolerance = navrt::LocateOptions;

using Outcome = navrt::NavStatus;
inline const char* outcomeName(Outcome outcome) { return navrt::navStatusName(outcome); }

struct QueryRecord {
    Outcome outcome = Outcome::no_path;
    uint32_t start_node = navrt::kNoNode;
    uint32_t goal_node = navrt::kNoNode;
    double cost = 0;             // A* path cost (area multipliers included)
    double smoothed_length = 0;  // length of the string-pulled path [m]
    uint32_t path_nodes = 0;
    uint32_t expansions = 0;
    double micros = 0;  // locate + A* time
    // Tolerance::snap: how far the start / goal was moved onto the surface (< 0: not moved), and
    // where to.
    double start_moved = -1, goal_moved = -1;
    navrt::Vec3 start_at{}, goal_at{};
};

// Search method (navrt::Method): astar = A* with the standard heuristic (octile / Euclidean);
// cluster = A* with the cluster heuristic table packed into the asset (navrt::Heuristic::cluster);
// hier = navrt::HierarchicalQuery over the packed hierarchy (groups or HPA* entrances; not
// optimal in general); nexthop = chained lookups in the packed next-hop table (optimal); exact =
// navmesh assets, the shortest path in the XZ metric (navrt::ExactMeshQuery, Polyanya).
using Method = navrt::Method;
using navrt::methodName;
using navrt::returnsShortestPaths;
// Parses "astar", "cluster", "hier", "nexthop", "exact" or "jps"; false otherwise.
bool parseMethod(std::string_view name, Method& out);
struct SearchMethod {
    Method method = Method::astar;
    navrt::HierOptions hier;                                                 // Method::hier
    SearchMethod(Method m = Method::astar, navrt::HierOptions options = {})  // NOLINT: implicit
        : method(m), hier(options) {}
};
// navrt::checkMethod, as an error that names `asset` and says how to build what is missing.
Status checkMethod(const navrt::GraphView& graph, Method method, const std::string& asset);

// The way from `from` to the nearest point of interest of `kind`, read from the asset's
// point-of-interest tables (navbake graph --poi-tables): no search. `from` is located like a
// query's start (snapped within tolerance.snap). Errors (bad_input, naming `asset`): no tables,
// an unknown kind (listing the asset's), `from` off the graph.
struct NearestPoi {
    bool reachable = false;
    double cost = 0;                // the table's distance from the start node
    std::vector<uint32_t> nodes;    // start node .. the point's node
    std::vector<navrt::Vec3> path;  // the nodes' positions
    double snapped = 0;             // how far `from` moved onto the graph [m]
    double micros = 0;
};
Result<NearestPoi> nearestPoi(const navrt::GraphView& graph, const std::string& kind,
                              navrt::Vec3 from, const Tolerance& tolerance,
                              const std::string& asset);

// One query by A* (astar, or cluster when the graph has the table) with a PathQuery the caller
// set up on `graph` (a navrt::Navigator on it); `smooth` = false leaves smoothed_length 0.
QueryRecord runQuery(const navrt::GraphView& graph, navrt::PathQuery& query, navrt::Vec3 from,
                     navrt::Vec3 to, const Tolerance& tolerance, bool smooth = true,
                     Method method = Method::astar);

// A step of a path that takes a link: from path node `step` to the next one, which is segment
// `segment` of the path Searcher::lastPath() returns (its points `segment` and `segment + 1` are
// where the link starts and ends in the direction taken).
struct LinkStep {
    uint32_t step = 0;
    uint32_t segment = 0;
    formats::LinkRecord link;
    std::string type;      // "drop", or the user type's name
    bool reverse = false;  // taken to -> from (a bidirectional link's way back)
};

// A navrt::Navigator set up for one method on one graph, with errors that name the asset and
// results as the bake side keeps them. Not copyable: it holds navrt's per-query buffers.
class Searcher {
public:
    Searcher() = default;
    Searcher(const Searcher&) = delete;
    Searcher& operator=(const Searcher&) = delete;
    // checkMethod (errors name `asset`), then sets up the searches `method` uses.
    Status init(const navrt::GraphView& graph, const SearchMethod& method,
                const std::string& asset);
    // One query; A* paths are smoothed, hierarchical and next-hop paths are not.
    QueryRecord run(navrt::Vec3 from, navrt::Vec3 to, const Tolerance& tolerance);
    // After a found run: the straight path (navrt::Navigator::straightPath).
    std::vector<navrt::Vec3> lastPath() const;
    // After a found run on a graph with links: the steps of the path that take a link.
    std::vector<LinkStep> lastLinks() const;
    const SearchMethod& method() const { return method_; }
    const navrt::Navigator& navigator() const { return navigator_; }

private:
    SearchMethod method_;
    navrt::Navigator navigator_;
};

struct PointPair {
    navrt::Vec3 from, to;
    uint32_t line = 0;
};
// One "sx sy sz gx gy gz" per line; blank lines and lines starting with '#' are skipped.
Result<std::vector<PointPair>> loadPairs(const std::filesystem::path& path);

// One query of a batch, with what its method adds.
struct BatchEntry {
    QueryRecord record;
    // Method::hier, found: the level the plan was made on, the low-level searches it took,
    // whether the whole path was refined (false with first_leg), the abstract expansions.
    uint32_t plan_level = 0;
    uint32_t legs = 0;
    bool complete = true;
    uint32_t abstract_expansions = 0;
    uint32_t block_decompressions = 0;  // Method::nexthop: table blocks this query decompressed
    std::vector<navrt::Vec3> path;      // with keep_paths, found: Searcher::lastPath()
    std::vector<LinkStep> links;        // found, on graphs with links: Searcher::lastLinks()
};
struct BatchReport {
    std::vector<BatchEntry> entries;  // in the order of the pairs
    size_t found = 0;
    double mean_micros = 0;
    double mean_expansions = 0;
};
// Runs every pair with `method` on `graph` (`navbake query`); errors name `asset`. Cancellable
// and reporting progress through `context`.
Result<BatchReport> runBatch(const navrt::GraphView& graph, const std::vector<PointPair>& pairs,
                             const Tolerance& tolerance, const SearchMethod& method,
                             const std::string& asset, bool keep_paths, Context& context);

struct ScenarioFailure {
    uint32_t line = 0;
    std::string what;
};

struct ScenarioReport {
    size_t total = 0;
    size_t solved = 0;   // a path was found
    size_t optimal = 0;  // |cost - listed optimum| <= 1e-3
    double max_abs_error = 0;
    // Grid graphs: (cost - listed optimum) / optimum over the solved scenarios [%].
    double mean_suboptimality = 0;
    double max_suboptimality = 0;
    double mean_micros = 0;
    double mean_expansions = 0;
    // Grid graphs (exact = true): smoothed length / cost. Navmesh graphs (exact = false): straight
    // path length / listed grid optimum, and `optimal` counts paths not longer than the optimum
    // (+1e-3). POV graphs (exact = false, any_angle = true): exact any-angle length / listed
    // octile optimum, and `optimal` counts paths not longer than optimum * (1 + 1e-6).
    double mean_smoothed_ratio = 0;
    double max_length_ratio = 0;
    double min_length_ratio = 0;  // navmesh and POV: the largest saving over the grid optimum
    double mean_length = 0;       // navmesh and POV: mean path length of the solved scenarios
    bool exact = true;
    bool any_angle = false;                 // POV graphs: optimal any-angle paths
    bool shortest_paths = true;             // returnsShortestPaths of the method on the graph
    std::vector<ScenarioFailure> failures;  // the first few unsolved or non-optimal entries
    // Graphs with links: the solved paths that take at least one, and their link steps by type.
    size_t via_links = 0;
    std::map<std::string, size_t> link_steps_by_type;

    // The pass rule (`navbake scen`'s exit code): every scenario solved; and every one optimal
    // where that is promised: exact any-angle paths (POV), and shortest-path methods on grid
    // graphs (not navmesh paths, not hierarchical searches, which are near-optimal by design).
    bool passed() const {
        if (solved != total) return false;
        if (any_angle) return optimal == total;
        return !exact || !shortest_paths || optimal == total;
    }
};

// Runs a MovingAI scenario file (.scen, 2D: cell (x, y) = world (x + 0.5, 0, y + 0.5)) against
// the graph. Errors (with the line number): malformed lines, a scenario naming another map or a
// map of other dimensions than the graph's.
// The asset must pass checkMethod for `method` (else an error naming `asset`, by default the
// source the graph was built from).
Result<ScenarioReport> runScenarioFile(const navrt::GraphView& graph,
                                       const std::filesystem::path& path, Context& context,
                                       const SearchMethod& method = {},
                                       const std::string& asset = {});

}  // namespace nav::query
