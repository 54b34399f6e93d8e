// Links in graphs: the link specs of a level (geometry/link_spec.h: config, links file, scene
// objects) and the links generated from an agent's abilities, resolved to the nodes of each graph
// kind and added as directed edges (tile, navmesh, points of visibility) or as extra moves of an
// implicit volume graph (teleports).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/link_spec.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {

struct Graph;
using geometry::kLinkTypes;
using geometry::linksForAgent;
using geometry::LinkSpec;
using geometry::LinkTypeDef;

// Default cost of a link from `from` to `to` [m of walking]: its straight length L times a factor
// per type (drop 1, jump 1.5, climb 2, ladder 2 going up and 1.5 going down, custom 1, a user
// type its cost_factor), door L + 1, teleport 1 whatever the distance. Every type but teleport is
// kept at or above `floor_cost`, the distance the search heuristic assumes between the ends, so
// only teleports (and explicit costs below it) are shortcuts, which navrt's heuristic accounts for.
float linkDefaultCost(const LinkSpec& link, const float from[3], const float to[3],
                      float floor_cost);

// ---- Generated links
// ----------------------------------------------------------------------------- What an agent can
// do beyond walking (Unity's NavMesh link generation names, in metres).
struct LinkGenParams {
    float drop_height = 0;     // [Units: m] highest drop off a ledge; 0 = no drop links
    float jump_distance = 0;   // [Units: m] widest gap jumped across; 0 = no jump links
    float jump_up_height = 0;  // [Units: m] highest a jump rises: drops this low become two-way,
                               // jumps across a gap may land this much higher
    float spacing = 0;         // [Units: m] between samples along a ledge; 0 = every cell (exact)
    float max_width = 6.0f;    // [Units: m] widest segment link merged from neighbouring samples
    int threads = 0;           // 0 = all cores; the output does not depend on it

    bool enabled() const { return drop_height > 0 || jump_distance > 0; }
};
ParamIssues checkLinkGenParams(const LinkGenParams& params);
void describeLinkGen(const LinkGenParams& params, StageKey& key);

// Why ledge samples got no link (counted per sample, one reason each).
enum class LinkReject : uint8_t {
    too_high,         // the fall below the ledge is deeper than drop_height, no landing across
    gap_too_wide,     // nothing to land on within jump_distance (or beyond jump_up_height)
    no_landing_room,  // floor within reach, but no cell of it where the agent can stand
    blocked,          // the trajectory would pass through geometry (walls, ceilings)
    count
};
inline constexpr const char* kLinkRejectNames[] = {"too_high", "gap_too_wide", "no_landing_room",
                                                   "blocked"};

struct LinkGenStats {
    uint64_t ledge_samples = 0;  // walkable cells at a ledge x outward directions tested
    std::array<uint64_t, size_t(LinkReject::count)> rejected{};
    std::map<std::string, uint64_t> links_by_type;  // segment links made, by type word
    uint64_t samples_linked = 0;                    // ledge samples that got a link
    uint64_t two_way = 0;                           // drops made two-way (jump_up_height)
    double milliseconds = 0;  // generating, summed over the threads that worked on it, + merging
};

struct GeneratedLinks {
    std::vector<LinkSpec> links;  // generated = true, ids from kGeneratedLinkIdFirst
    LinkGenStats stats;
};

// Generates drop and jump links for the agent the walkable surface of `grid` was computed for
// (see link_generate.cpp for the method): ledges of the walkable surface are sampled, a landing
// is looked for below (drops) or across a gap (jumps), the agent's whole trajectory is checked
// for clearance against the voxel grid, and runs of neighbouring samples with the same landing
// merge into wide links. Deterministic at any thread count.
Result<GeneratedLinks> generateLinks(const voxel::VoxelGrid& grid, const LinkGenParams& params,
                                     Context& context);
// The same links from a .vox read a band of rows at a time (the rows within the samples' reach of
// each chunk of rows): world bakes generate without holding the world's grid. Single-threaded.
Result<GeneratedLinks> generateLinks(voxel::VoxelRowReader& reader, const LinkGenParams& params,
                                     Context& context);

// generateLinks as a job several threads share, row chunk by row chunk: help() (from any thread,
// concurrently) generates chunks nobody has claimed yet until none is left or stop() is called;
// finish() generates the rest on the params' threads, waits for chunks other threads are still
// on, and merges. The graph stage runs help() on a thread at idle priority while it builds the
// graph, then finish(). The result does not depend on who generated which chunk. `grid` must
// outlive the job, and every thread in help() must have returned before it is destroyed.
class LinkGeneration {
public:
    LinkGeneration(const voxel::VoxelGrid& grid, const LinkGenParams& params);
    ~LinkGeneration();
    LinkGeneration(const LinkGeneration&) = delete;
    LinkGeneration& operator=(const LinkGeneration&) = delete;
    void help(Context& context);
    void stop();
    Result<GeneratedLinks> finish(Context& context);

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The trajectory the generator checked for a link of `type` from `from` to `to` (points on the
// floor, metres): the polyline the agent's feet follow (the agent occupies a cylinder of its
// radius and height above each point). drop: along the take-off height to above the landing,
// then straight down; jump: a parabola through both ends whose apex lies a quarter of the
// horizontal distance above the higher end (a 45-degree launch), sampled every `step` metres.
std::vector<std::array<float, 3>> linkTrajectory(formats::LinkType type, const float from[3],
                                                 const float to[3], float step);

// ---- Resolution and edges
// ------------------------------------------------------------------------- What resolving a
// level's links did, for the stage report.
struct LinkResolveStats {
    uint64_t lanes = 0;          // records made (a wide link makes one per cell across it)
    uint64_t lanes_dropped = 0;  // lanes of wide links whose ends missed the surface
    uint64_t duplicates = 0;     // lanes joining the same two nodes as an earlier lane of the link
    uint64_t generated_dropped = 0;  // generated links with no lane on this graph (a navmesh
                                     // region too small to keep under their cells)
    // Shared links (LinkSpec::shared) this agent cannot use: the name, and why (the error text
    // an unshared link would have given).
    std::vector<std::pair<std::string, std::string>> unusable;
};

// Volume graphs' rule for a lane end at p: the free voxel holding p (cx, cy, cz; the record
// keeps p), else the nearest free voxel centre within max(snap, one cell) horizontally and
// `vertical` metres up or down, looked for in the box cx +- rx, cy +- ry, cz +- rx (the first in
// (y, z, x) order on ties; the record keeps the centre). Voxels of the frame of `origin` and the
// cell sizes; the same rule for the one volume graph and for a volume world's tiles.
class VoxelEndRule {
public:
    VoxelEndRule(const float origin[3], float cell_size, float cell_height, const float p[3],
                 float snap, float vertical);
    bool finite = false;  // p is a usable point (else no voxel qualifies)
    int64_t cx = 0, cy = 0, cz = 0, rx = 0, ry = 0;
    // Whether voxel (x, y, z) of the box is close enough: its centre q, its distance d to p.
    bool accepts(int64_t x, int64_t y, int64_t z, float q[3], double& d) const;
    // The centre of voxel (x, y, z) of a frame (the float steps every volume end rule takes).
    static void centre(const float origin[3], float cell_size, float cell_height, int64_t x,
                       int64_t y, int64_t z, float q[3]) {
        q[0] = origin[0] + (float(x) + 0.5f) * cell_size;
        q[1] = origin[1] + (float(y) + 0.5f) * cell_height;
        q[2] = origin[2] + (float(z) + 0.5f) * cell_size;
    }

private:
    float origin_[3], p_[3];
    float cell_size_, cell_height_, vertical_, horizontal_ = 0;
};

// Resolves each spec to graph records (LinkRecord: nodes, lane points, costs, flags): a point link
// is one record, a wide link one per cell across its width (navmesh graphs: every second cell and
// the last; lanes whose ends miss the surface are dropped, none left is an error). Ends are found
// per graph kind: tile graphs the node of the cell under the point (within `vertical` metres of its
// floor, the closest; within the spec's snap horizontally, the nearest), navmesh graphs the polygon
// under it (the point is moved onto it), POV graphs the layer cell (from_node/to_node are then
// layer cells; addPovLinks turns them into vertices), volume graphs the free voxel holding it (or
// the nearest within snap). Costs of 0 take linkDefaultCost. Errors name the link and say how far
// the end is from the surface. `type_names` receives the user types in LTYP order (sorted by name).
// Links are resolved on up to `threads` threads (0 = all cores); the records do not depend on it.
Result<std::vector<formats::LinkRecord>> resolveLinks(
    const Graph& graph, const std::vector<LinkSpec>& links, std::vector<std::string>& type_names,
    LinkResolveStats& stats, float vertical = 1.0f, int threads = 1, Context* context = nullptr);

// The lanes of a link (from and to points): the link itself, or one per cell across its width
// (cells of `cell_size` metres, centred on the link's line).
std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> lanesOf(const LinkSpec& link,
                                                                           float cell_size);

// A tile graph that holds only some columns of its frame (world tiles resolve their links on the
// columns around the links' ends, not on the whole world's graph): `columns` ascending, the nodes
// of columns[i] are first[i] .. first[i + 1] - 1 (first has one entry more). The graph's header is
// the whole frame's; its column_nodes is empty.
struct SparseColumns {
    std::vector<uint32_t> columns;
    std::vector<uint32_t> first;
};
// resolveLinks on such a graph: the same records the whole graph gives wherever `sparse` holds
// every column within the links' snap distances (plus one) of their ends.
Result<std::vector<formats::LinkRecord>> resolveLinks(
    const Graph& graph, const SparseColumns& sparse, const std::vector<LinkSpec>& links,
    std::vector<std::string>& type_names, LinkResolveStats& stats, float vertical = 1.0f,
    int threads = 1, Context* context = nullptr);

// Where a lane end lands, for resolvers that find ends their own way (navmesh world tiles look
// each end up on the polygons of the tiles around it): `node` (kNoNode: none qualifies) and the
// point the record keeps; `nearest` the nearest surface point at any distance (messages).
struct LinkEnd {
    uint32_t node = 0xFFFFFFFFu;
    float point[3] = {0, 0, 0};
};
struct LinkNearest {
    double distance = std::numeric_limits<double>::infinity();
    float point[3] = {0, 0, 0};
};
class LinkEndFinder {
public:
    virtual ~LinkEndFinder() = default;
    // The end of a lane at `p`. `hint`: the caller's coherence state (navmesh graphs: the polygon
    // the caller's last start, or last end, fell in; kNoNode at first), one per kind of end.
    virtual LinkEnd find(const float p[3], float snap, uint32_t& hint) const = 0;
    virtual LinkNearest nearest(const float p[3]) const = 0;
    // [m] how far around an end every node is known, so a nearer one is named only when known
    // to be the nearest (infinity: the whole graph).
    virtual double known(float snap) const = 0;
};
// resolveLinks with ends found by `finder` (shared by the worker threads: find and nearest must
// be safe to call concurrently); `graph` gives the header (kind, cell size, agent radius, cost
// multiplier; tile graphs also their cells for the heuristic's floor).
Result<std::vector<formats::LinkRecord>> resolveLinks(
    const Graph& graph, const LinkEndFinder& finder, const std::vector<LinkSpec>& links,
    std::vector<std::string>& type_names, LinkResolveStats& stats, float vertical = 1.0f,
    int threads = 1, Context* context = nullptr);
// The lane end points resolveLinks looks up for `link` on a graph of `kind` (navmesh graphs keep
// every second lane of a wide link, and the last).
std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> resolvedLanesOf(
    const LinkSpec& link, formats::GraphType kind, float cell_size);
// The snap distance of a link's ends [m] (kSnapAuto: the agent's radius and two cells).
float linkSnap(const LinkSpec& link, float agent_radius, float cell_size);

// Adds resolved links (explicit graphs: tile, navmesh) as edges: each node's own edges keep their
// order and its link edges follow, by record order; a bidirectional link also adds to_node ->
// from_node. Fills links and edge_links, then finalizeGraph. Implicit volume graphs keep the
// records (no edges) and merge components across them. Errors name the link by id.
Status addLinks(Graph& graph, std::vector<formats::LinkRecord> links);

// POV graphs: records whose from_node / to_node are layer cells (resolveLinks) become link-end
// vertices (kPovCornerLinkEnd, at their cell centres) with visibility edges to every corner and
// vertex they see in their layer component, then link edges (addLinks); layer components merge
// across links.
Status addPovLinks(Graph& graph, std::vector<formats::LinkRecord> links, int threads,
                   Context& context);

// A stage's report of which links (not generated) it could use: each as a named input, and a
// warning for each shared link this agent cannot use.
void reportLinkUse(const std::vector<LinkSpec>& links, const LinkResolveStats& stats,
                   StageResult& result);

// Drops the links a volume graph (flyers) does not take: it takes teleports, and the links that
// name their agent (the graph stage and volume world tiles keep the same).
void keepVolumeLinks(std::vector<LinkSpec>& links);

// Resolves `links` (and the user types) onto `graph` by its kind and adds them.
Status attachLinks(Graph& graph, const std::vector<LinkSpec>& links, int threads,
                   LinkResolveStats& stats, Context& context);

}  // namespace nav::graph
