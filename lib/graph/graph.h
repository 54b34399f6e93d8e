// Stage 3: graphs. A Graph is what the runtime searches: nodes with world positions and the grid
// cell each stands on, and either explicit CSR adjacency (tile, POV, navmesh graphs) or implicit
// 26-neighbour adjacency over a free-voxel bitmap (volume graphs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "formats/layouts.h"
#include "formats/navmesh_locate.h"
#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/geometry.h"
#include "lib/graph/dirichlet.h"
#include "lib/graph/links.h"
#include "lib/graph/seeds.h"
#include "lib/navmesh/navmesh.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {

using formats::GraphType;
inline constexpr uint32_t kNoNode = 0xFFFFFFFFu;

struct Graph {
    formats::GraphHeader header;           // counts are filled in by finalize()/save
    std::vector<float> positions;          // x, y, z per node [Units: m]
    std::vector<formats::NodeCell> cells;  // per node
    std::vector<uint32_t> column_nodes;    // tile: first node of each column, +1 (CSR)
    std::vector<uint32_t> edge_offsets;    // first edge of each node, +1 (CSR)
    std::vector<uint32_t> edge_targets;
    std::vector<float> edge_costs;
    std::vector<uint32_t> components;  // component id per node, numbered by first node
    // Implicit volume graphs (header.flags & kGraphFlagImplicitVolume): node id = voxel index
    // (y * size_z + z) * size_x + x; a set bit marks a voxel the agent can occupy. positions,
    // cells and edges are then empty, and components holds kNoNode for blocked voxels.
    std::vector<uint64_t> free_voxels;
    std::vector<geometry::AreaType> areas;
    std::string source_name;  // base name of the level's source file, may be empty
    // Navmesh graphs: node p = polygon p of `mesh`, plus the XZ grid index locate() uses.
    navmesh::NavMesh mesh;
    formats::MeshIndexHeader mesh_index;
    std::vector<uint32_t> index_offsets;
    std::vector<uint32_t> index_polys;
    // POV graphs: node v = corner v (PCRN), and the layer grid (the walkable cells of the tile
    // graph with their 4 cardinal connections) that locate() and line of sight use.
    std::vector<formats::PovCorner> corners;
    std::vector<formats::NodeCell> layer_cells;
    std::vector<uint32_t> layer_columns;     // first layer cell of each column, +1 (CSR)
    std::vector<uint32_t> layer_neighbours;  // 4 planes (+X, -X, +Z, -Z) of layer_cells.size()
    std::vector<uint32_t> layer_components;  // tile-graph component per layer cell
    formats::PovStats pov_stats;
    // Dirichlet-domain graphs: node i = waypoint i; the layer cells (with layer_columns) are the
    // cells of the domains, domain_owners the node each belongs to (DOWN).
    std::vector<uint32_t> domain_owners;
    // Point-of-interest tables (explicit graphs, optional; PKND / PDST / PHOP): per kind k and
    // node v, the cost of the cheapest path from v to a point of interest of kind k (+inf when
    // none is reachable) and the next node on it (kNoNode at the point and where unreachable).
    std::vector<std::string> poi_kinds;
    std::vector<float> poi_distances;  // [k * node_count + v]
    std::vector<uint32_t> poi_next;    // [k * node_count + v]
    // Links (explicit graphs, optional): sorted by id; edge_links names each edge's link
    // (formats::kNoLink for the walkable surface's own edges). Empty when the graph has none.
    std::vector<formats::LinkRecord> links;
    std::vector<uint32_t> edge_links;
    std::vector<std::string> link_type_names;  // user link types (LTYP), type 256 + index
    // Manual cluster rooms drawn in the scene (explicit graphs, optional): the .vox's cluster
    // markers, carried to the cluster stage (SMRK, FORMAT.md §6.7). Written to .graph files only:
    // a .nav never holds them.
    std::vector<geometry::SceneMarker> rooms;

    size_t nodeCount() const {
        if (header.flags & formats::kGraphFlagImplicitVolume)
            return size_t(header.size_x) * header.size_z * header.size_y;
        return positions.size() / 3;
    }
    size_t edgeCount() const { return edge_targets.size(); }
};

// A graph header describing `grid` (dimensions, origin, cell sizes, agent); counts left zero.
formats::GraphHeader headerForGrid(const voxel::VoxelGrid& grid, GraphType type);

// Tile graph (2.5D, multi-floor): a node per walkable span; edges to the 8 neighbour columns
// when the step is <= climb and the shared clearance >= agent height; a diagonal only when both
// cardinal moves are possible (no corner cutting). Cost = 3D distance between the cell centres
// on their floors x the mean area cost multiplier of the two cells (exactly 1 and sqrt(2) on a
// MovingAI grid).
Result<Graph> buildTileGraph(const voxel::VoxelGrid& grid, Context& context);

// Adds gradient costs to the graph's edges (GraphStage::Params::uphill, downhill): + uphill x the
// rise of a rising edge, + downhill x the fall of a falling one, from node to node. Returns the
// number of edges whose cost changed.
uint64_t addGradientCosts(Graph& graph, float uphill, float downhill);

// Volume graph (flying agents, implicit): a voxel is solid inside a span of its column; it is
// free for the agent when no voxel of the box of r = ceil(agent_radius / cell_size) cells
// around it (Chebyshev ball; ceil(agent_radius / cell_height) along Y) is solid or outside the
// grid (radius 0: free = not solid). Movement (MovingAI 3D rule): from voxel v to v + (dx, dy,
// dz), each in {-1, 0, 1}, when every voxel of the box {x, x+dx} x {y, y+dy} x {z, z+dz} is
// free; cost = distance between the voxel centres. Fills free_voxels, components (kNoNode for
// non-free voxels, ids by lowest voxel index) and the header counts; no positions/cells/edges.
Result<Graph> buildVolumeGraph(const voxel::VoxelGrid& grid, float agent_radius, Context& context);
// Its two steps: the free flags of `grid`'s voxels (1 byte each, node order), and the graph of
// given free flags over `grid`'s box (grid: its frame and size; world tiles cut the flags of a
// larger window down to a tile).
// A volume graph's header over `grid` (implicit voxels, Euclidean costs; counts left zero).
formats::GraphHeader volumeGraphHeader(const voxel::VoxelGrid& grid, float agent_radius);
Result<std::vector<uint8_t>> volumeFreeVoxels(const voxel::VoxelGrid& grid, float agent_radius,
                                              Context& context);
Result<Graph> volumeGraphFromFree(const voxel::VoxelGrid& grid, float agent_radius,
                                  std::vector<uint8_t> free, Context& context);

// Navmesh graph: bakes the navigation mesh of `grid`; a node per polygon (at its centroid), an
// edge per shared portal with cost = |centroid(a) - portal midpoint| x cost(a) + |portal midpoint
// - centroid(b)| x cost(b). Also builds the spatial index. An empty walkable surface gives an
// empty graph and a warning.
Result<Graph> buildNavmeshGraph(const voxel::VoxelGrid& grid, const navmesh::NavmeshParams& params,
                                Context& context);
// The same from a .vox read a band of rows at a time (tiled navmeshes hold the rows of three
// tile rows, not the whole grid); the reader's remaining rows are checked after the build.
Result<Graph> buildNavmeshGraph(voxel::VoxelRowReader& reader, const navmesh::NavmeshParams& params,
                                Context& context);

struct PovParams {
    // false keeps every visible corner pair (all corners marked kPovCornerAnyDirection): the full
    // visibility graph, for comparisons; true keeps only taut edges (Oh & Leong 2017).
    bool prune = true;
    unsigned threads = 0;  // 0 = all hardware threads; the output does not depend on it
};

// Points-of-visibility graph (Lozano-Perez & Wesley 1979) over the walkable surface of `grid`:
// nodes are the convex obstacle corners of every layer (grid vertices where three quadrant cells
// are walkable and connected and the diagonal one is not), edges join corners that see each
// other (formats::povCornersVisible) and, with params.prune, are taut at both ends; cost = 3D
// distance between the corners. Also stores the layer grid and bake statistics (PSTA).
Result<Graph> buildPovGraph(const voxel::VoxelGrid& grid, const PovParams& params,
                            Context& context);

// The graph of an already built navmesh (grid supplies dimensions, agent and area table).
Graph navmeshGraph(navmesh::NavMesh mesh, const voxel::VoxelGrid& grid);

// The navmesh arrays of a navmesh graph, for formats/navmesh_locate.h.
formats::MeshArrays meshArraysOf(const Graph& graph);

// Fills graph.poi_kinds / poi_distances / poi_next: for each kind (in first-seen order of
// `targets`), a Dijkstra over the reversed edges from every target node of that kind (Fine's
// "distance to the nearest health-pack", Millington & Funge 6.1 on tactical lookups), next hops
// by the settled edge, ties to the lower node. Targets are (kind, node); kinds 1..31 printable
// characters, at most formats::kMaxPoiKinds.
void buildPoiTables(Graph& graph, const std::vector<std::pair<std::string, uint32_t>>& targets);

// Labels connected components (undirected view) and fills the header's counts.
void finalizeGraph(Graph& graph);

// Strongly connected components of an explicit graph (Kosaraju's algorithm, S. R. Kosaraju 1978 /
// M. Sharir, "A strong-connectivity algorithm and its applications in data flow analysis", 1981):
// an id per node, ids in order of each component's lowest node. On a graph whose edges all have
// reverses they equal `components`.
std::vector<uint32_t> stronglyConnected(const Graph& graph);

// How far an explicit graph is from undirected. symmetric: every edge u -> v has a reverse v -> u
// of exactly the same cost (what BPMX needs); two_way: every edge has a reverse, costs may differ
// (what connectivity arguments need: weakly connected sets are then strongly connected); directed:
// some edge has no reverse (one-way edges, links). Implicit volume graphs are symmetric.
enum class Symmetry { symmetric, two_way, directed };
Symmetry edgeSymmetry(const Graph& graph);

Status saveGraph(const std::filesystem::path& path, const Graph& graph,
                 uint32_t kind = formats::kKindGraph);
// User link type names as LTYP stores them (and a world tile's WLTY): 32 zero-padded bytes each.
std::vector<uint8_t> encodeLinkTypeNames(const std::vector<std::string>& names);
// Link records as LINK / WLNK store them (kLinkRecordSize bytes each, in order).
std::vector<uint8_t> encodeLinkRecords(const std::vector<formats::LinkRecord>& links);

// The container saveGraph writes, for callers that add sections (pack --clusters).
// `level`: the zstd level of its compressed sections (0 = the kind's: 19 for runtime assets, 3 for
// .graph files).
formats::ContainerWriter graphWriter(const Graph& graph, uint32_t kind = formats::kKindGraph,
                                     int level = 0);
// formats::graphFingerprint of the GRHD, EOFF, EDST and ECST bytes saveGraph writes for `graph`.
uint64_t graphFingerprint(const Graph& graph);
// The header section alone (for estimates and plans); errors name the file.
Result<formats::GraphHeader> loadGraphHeader(const std::filesystem::path& path);
Result<Graph> loadGraph(const std::filesystem::path& path);
// Decodes a GRPH or NAVA container (the graph sections are the same).
Result<Graph> decodeGraph(const LoadedContainer& container);

// ---- The graph stage -----------------------------------------------------------------------
// One definition shared by `navbake graph KIND` and `navbake build` (lib/common/stage.h).
enum class GraphKind { tile, navmesh, pov, volume, dirichlet };
inline constexpr Choice<GraphKind> kGraphKinds[] = {{"tile", GraphKind::tile},
                                                    {"navmesh", GraphKind::navmesh},
                                                    {"pov", GraphKind::pov},
                                                    {"volume", GraphKind::volume},
                                                    {"dirichlet", GraphKind::dirichlet}};

// Walkable islands, given each component's node count: counts `components` (those with nodes),
// and warns when there is more than one (the graph stage; the world stage over world components).
void reportIslands(const std::vector<uint64_t>& sizes, StageResult& result);

struct GraphStage {
    static constexpr std::string_view kName = "graph";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    struct Params {
        GraphKind kind = GraphKind::tile;
        float agent_radius = 0;  // [Units: m] volume: distance kept from solid voxels (0 = a point)
        navmesh::NavmeshParams navmesh;  // navmesh: Recast's parameters (its threads are `threads`)
        bool prune = true;  // pov: keep only taut edges (false: the full visibility graph)
        int threads = 0;    // navmesh, pov, links: 0 = all cores; the output does not depend on it
        // Authored links (config, links file), added with the scene-object links the .vox
        // carries; generated ones come from `generate` (off unless drop_height or
        // jump_distance is set).
        std::vector<LinkSpec> links;
        LinkGenParams generate;
        // Set by a build with several agents: scene-object links whose ends miss this agent's
        // surface are reported unusable for it (the build fails only if no agent can use one).
        bool scene_links_shared = false;
        // Seed points [Units: m] (tile, navmesh, pov): the walkable surface no seed reaches,
        // walking or through the links, is pruned before the graph is built (graph/seeds.h).
        std::vector<std::array<float, 3>> seeds;
        // Points of interest (tile, navmesh, pov): each must be on the surface and reachable
        // (from a seed, or in the largest walkable area); problems are warnings.
        std::vector<PointOfInterest> points;
        // Gradient costs (tile, navmesh) [Units: m of walking per m climbed / descended]: an edge
        // rising by dy costs uphill x dy more, one falling by dy costs downhill x dy more, so
        // the graph becomes directed (Millington & Funge 4.4.1: going downhill costs less).
        // Both >= 0 (costs only grow: the heuristic stays admissible); 0 = none.
        float uphill = 0, downhill = 0;
        // Dirichlet graphs: the designer's waypoints (scene waypoint markers the .vox carries are
        // added after these). Unique names, finite positions, weights >= 0.
        std::vector<Waypoint> waypoints;
        // Point-of-interest tables (tile, navmesh, dirichlet): per node and kind of `points`,
        // the cost to the nearest one and the next node towards it, packed into the asset.
        bool poi_tables = false;
    };
    struct Inputs {
        std::filesystem::path voxels;  // .vox
    };
    static ParamIssues check(const Params& params);
    static void describe(const Params& params, StageKey& key);
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: nodes, edges, polygons (navmesh), components; with links: links and lanes by type,
    // generated links and rejected ledge samples by reason, components before and after links,
    // links joining islands, nodes one-way links cut off; with seeds: seeds_on_surface,
    // seed_pruned_cells; with points of interest: points_reachable, points_unreachable,
    // points_off_surface. Warns about walkable islands that the
    // largest component cannot reach, nodes one-way links strand, and (as `skipped`) shared
    // links this agent cannot use.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::graph
