// Tiled worlds: a level's tile graph baked as a grid of world tiles, each its own runtime asset,
// plus a small world index, so a game streams the tiles it needs (navrt::World) and a bake of one
// edited tile rebuilds only the tiles that depend on what changed.
//
// Tiles follow Detour's tiled navigation meshes (M. Mononen, Recast/Detour, 2009-2016: tiles on
// one world grid, joined where they meet when both are loaded); the portal graph over them is
// HPA*'s abstract graph (A. Botea, M. Mueller, J. Schaeffer, "Near optimal hierarchical
// path-finding", Journal of Game Development 1(1), 2004): one entrance per run of border cells
// that cross into a neighbour, joined across the border and, inside a tile, by exact costs.
//
// Exactness: a tile-graph node's edges depend only on its own column and the 8 beside it, so a
// tile built from its columns and a one-column border has exactly the nodes, edges and costs of the
// whole world's graph inside it (positions are computed in the world frame, so they are bitwise
// equal too); the edges into the border become seam edges naming the world cell they reach. The
// union of all tiles with their seams is the whole world's tile graph.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "lib/graph/seeds.h"
#include "lib/navmesh/navmesh.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {

struct WorldLayout {
    uint32_t tile_cells = 0;  // tile edge [Units: cells]
    uint32_t tiles_x = 0, tiles_z = 0;
    uint32_t size_x = 0, size_z = 0;  // the world grid [Units: cells]
    uint64_t fingerprint = 0;         // the world grid (origin, cell sizes, size, agent, areas)
};
// tile_size [Units: m] rounded to whole cells (at least 8).
WorldLayout worldLayout(const voxel::VoxelGrid& world, double tile_size);
// The tile index (tile_z * tiles_x + tile_x) holding a world column.
uint32_t tileOfColumn(const WorldLayout& layout, uint32_t column);

// Tile (tx, tz)'s columns and, around them, a ring of one column of its neighbours' (a tile
// graph's border, a volume tile's ring), clipped to the world.
struct WorldWindow {
    uint32_t x0, z0, x1, z1;      // interior [x0, x1) x [z0, z1), world columns
    uint32_t bx0, bz0, bx1, bz1;  // with the one-column ring, clipped to the world
};
WorldWindow tileWindow(const WorldLayout& layout, uint32_t tx, uint32_t tz);
// Tile (tx, tz)'s WTHD with `seam_count` records (WSEM seams, or WNBE border edges).
formats::WorldTileHeader worldTileHeader(const WorldLayout& layout, uint32_t tx, uint32_t tz,
                                         uint32_t seam_count);

// The layout of tileWindow's windows (a tile's columns and a ring of one column) for
// voxel::TileRowWindows.
voxel::TileWindowLayout tileWindowLayout(const WorldLayout& layout);
// A .vox reader as TileRowWindows' row source.
voxel::RowSource rowSource(voxel::VoxelRowReader& reader);

// XXH64 of `prefix` followed by the spans of the world columns [x0, x1) x [z0, z1) (`rows` holds
// them).
uint64_t columnsHash(const voxel::VoxelGrid& frame, const voxel::GridRows& rows, uint32_t x0,
                     uint32_t z0, uint32_t x1, uint32_t z1, std::vector<uint8_t> prefix);
// What tile (tx, tz) of `world` depends on (its columns, a one-column border, the areas and the
// world frame): tiles whose hash is unchanged are not rebuilt.
uint64_t tileContentHash(const voxel::VoxelGrid& world, const WorldLayout& layout, uint32_t tx,
                         uint32_t tz);
// The same from the world's header and the rows read so far (they must hold the tile's rows and
// its border rows).
uint64_t tileContentHash(const voxel::VoxelGrid& frame, const voxel::GridRows& rows,
                         const WorldLayout& layout, uint32_t tx, uint32_t tz);

// A world's links (authored and scene-object links, as the graph stage joins them), resolved on
// the world's cells (resolveWorldLinks): per lane its record (from_node / to_node unused) and its
// two ends as world cells. Links within a tile become its edges (LINK, ELNK), links between tiles
// its seams (WSEM), both directions of a two-way link.
struct WorldLinks {
    struct Lane {
        formats::LinkRecord record;
        uint32_t from_column = 0, to_column = 0;  // world columns (z * size_x + x)
        int32_t from_y = 0, to_y = 0;             // cell tops [cell heights]
    };
    std::vector<Lane> lanes;  // by link id, lanes in order
    std::vector<std::string> type_names;
    LinkResolveStats stats;
};
// Resolves `links` on the world `voxels` (read again, only the rows of tiles holding link ends):
// the records the whole world's tile graph would get (its EndFinder on the columns around each
// end).
Result<WorldLinks> resolveWorldLinks(const std::filesystem::path& voxels, const WorldLayout& layout,
                                     const std::vector<LinkSpec>& links, int threads,
                                     Context& context);

// One world tile: the tile graph of its columns (a runtime asset's graph) and its seam edges.
struct WorldTile {
    Graph graph;
    formats::WorldTileHeader header;
    std::vector<formats::SeamRecord> seams;
    // Seams that are links between tiles: per seam kNoLink or (record << 1 | reverse) (WSLK),
    // and the records (WLNK). Empty when no seam is a link.
    std::vector<uint32_t> seam_links;
    std::vector<formats::LinkRecord> cross_links;
    // More sections, written after the others (POV tiles' WPNB, WPED, WPEL, WLNK, WLTY).
    struct Section {
        uint32_t id = 0;
        std::vector<uint8_t> bytes;
        formats::Codec codec = formats::Codec::zstd;
    };
    std::vector<Section> extra;
};
Result<WorldTile> buildWorldTile(const voxel::VoxelGrid& world, const WorldLayout& layout,
                                 uint32_t tx, uint32_t tz, Context& context);
Result<WorldTile> buildWorldTile(const voxel::VoxelGrid& frame, const voxel::GridRows& rows,
                                 const WorldLayout& layout, uint32_t tx, uint32_t tz,
                                 Context& context);
// Adds the lanes of `links` with an end in the tile: edges when both ends are in it, seams when
// one leaves it (from its from end; a two-way link's way back from its to end).
Status attachWorldTileLinks(WorldTile& tile, const WorldLayout& layout, const WorldLinks& links);
// Gradient costs on a tile's edges and seams, from its nodes' positions and the seams' target
// cells (at their tops in `frame`, as the whole graph places them); before its links are
// attached (the graph stage adds them before the links: a link costs what it says). Returns the
// edges and seams changed.
uint64_t addWorldTileGradients(WorldTile& tile, const voxel::VoxelGrid& frame, float uphill,
                               float downhill);
// The tile's runtime asset (a .nav of kind NAVA with WTHD and WSEM).
Status saveWorldTile(const std::filesystem::path& path, const WorldTile& tile,
                     int compression = 19);

// ---- The world stage ---------------------------------------------------------------------------
// `navbake build` with `world.tile_size`: every tile of the agent's tile graph, and the index.
struct WorldStage {
    static constexpr std::string_view kName = "world";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    struct Params {
        // What each tile holds: the tile graph of its columns, (navmesh) its navmesh polygons,
        // tiled as `navbake navmesh --tile-size` tiles them, with its border edges (WNBE), or
        // (volume) the free voxels of its columns and a ring of its neighbours', (dirichlet)
        // the waypoint graph with the domain cells of its columns, or (pov) the layer cells of
        // its columns, the corners on them and their taut edges (both cut from Inputs::graph).
        GraphKind kind = GraphKind::tile;
        float agent_radius = 0;          // [Units: m] volume: distance kept from solid voxels
        navmesh::NavmeshParams navmesh;  // navmesh: Recast's parameters (tile_size, threads: ours)
        double tile_size = 64;  // [Units: m] tile edge, rounded to whole cells (at least 8)
        int threads = 0;        // tiles built at once (0 = all cores); outputs do not depend on it
        // zstd level of the tiles' sections (1..19; 19 = `navbake pack`'s): lower bakes faster
        // for larger tiles (city5: level 6 bakes the world stage 5x faster, tiles 45% larger).
        int compression = 19;
        // Distributed builds: only the tiles of the rows of tiles tz with tz % N == K, into the
        // cache beside `output`, which then lists them (a part file, not an index); the stage run
        // whole afterwards reuses them. 0 = the whole world and its index.
        uint32_t shard_index = 0, shard_count = 0;
        // Authored links (config, links file), joined with the scene-object links the .vox
        // carries and the links generated from the agent's abilities (GraphStage's rules).
        std::vector<LinkSpec> links;
        LinkGenParams generate;           // read from the .vox a band of rows at a time
        bool scene_links_shared = false;  // see GraphStage::Params
        // Gradient costs (GraphStage::Params::uphill, downhill) [Units: m per m]: on the tiles'
        // edges, seams and links as on the whole graph's.
        float uphill = 0, downhill = 0;
        // Seeds and points of interest (GraphStage::Params; tile graph and navmesh worlds): the
        // surface no seed reaches across the world's tiles is pruned as the graph stage prunes
        // it, points are checked on the world (warnings).
        std::vector<std::array<float, 3>> seeds;
        std::vector<PointOfInterest> points;
    };
    struct Inputs {
        std::filesystem::path voxels;  // .vox of the whole world
        // (dirichlet, pov) the agent's graph of that kind (.graph), cut into the world's tiles
        std::filesystem::path graph = {};
    };
    static ParamIssues check(const Params& params);
    static void describe(const Params& params, StageKey& key);
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Writes the index to `output` and each tile beside it as worldtile-<content hash>.nav (kept
    // when present: tiles whose content is unchanged are reused). Counts: tiles, tiles_built,
    // tiles_reused, nodes, seams, portals, portal_edges.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

// World components: each tile's local components get consecutive global ids (add), joined
// across tiles by union-find (join); number() gives each its world component, numbered by first
// appearance (so the ids depend only on the world), and sizes() sums per world component.
class ComponentJoin {
public:
    // The first global id of `sizes.size()` new components of those sizes (nodes, polygons or
    // voxels each).
    uint32_t add(std::span<const uint64_t> sizes);
    void join(uint32_t a, uint32_t b);
    uint32_t size() const { return uint32_t(parent_.size()); }
    // Per global id its world component (numbered in order of first member), and per world
    // component its size in `island_sizes`. Lets the join's arrays go: call it once, last.
    std::vector<uint32_t> number(std::vector<uint64_t>& island_sizes);

private:
    uint32_t root(uint32_t a);
    uint64_t sizeOf(uint32_t a) const;
    void setSize(uint32_t a, uint64_t size);
    std::vector<uint32_t> parent_;
    // Per root its members' sum: 32 bits (a town's tiles have many small islands: ~524 k local
    // components at city32), the rare sum past them in big_, exactly.
    std::vector<uint32_t> size_;
    std::unordered_map<uint32_t, uint64_t> big_;
};

// The index header of a world of `layout` over `frame` (counts filled by saveWorldIndex).
formats::WorldHeader worldIndexHeader(const WorldLayout& layout, const voxel::VoxelGrid& frame,
                                      uint32_t graph_type);

// A world index's content (kind WRLD, FORMAT.md §11.3); saveWorldIndex fills the header's
// counts, sorts each portal's edges, and lets the portals and tiles go as it writes them (only
// the header is left).
struct WorldIndex {
    formats::WorldHeader header;
    struct Tile {
        uint32_t index = 0;  // tile_z * tiles_x + tile_x
        uint32_t nodes = 0;
        uint64_t content = 0;              // its cache file: worldTileFileName(content)
        std::vector<uint32_t> components;  // world component of each local component
    };
    std::vector<Tile> tiles;  // tiles with nodes, in index order
    struct Portal {
        uint32_t tile = 0, column = 0;
        int32_t y = 0;
        std::array<float, 3> position{};
        std::vector<std::pair<uint32_t, float>> edges;  // (target portal, cost)
    };
    std::vector<Portal> portals;
    // Or the portal graph encoded as it is made, a portal at a time in index order (a world
    // whose portal graph is megabytes makes it tile by tile instead of holding `portals`):
    // saveWorldIndex then takes it (portals must be empty).
    struct EncodedPortals {
        uint32_t count = 0, edge_count = 0;
        std::vector<uint8_t> records, offsets, targets, costs;  // WPRT, WPOF (but the last), ...
        // Room for `portal_count` portals and `edges` edges (at most), so the arrays do not
        // double as they grow.
        void reserve(size_t portal_count, size_t edges);
        // The next portal; its edges are sorted here.
        void add(const Portal& portal, std::vector<std::pair<uint32_t, float>>& portal_edges);
    } encoded;
};
Status saveWorldIndex(const std::filesystem::path& output, WorldIndex& index);
// Joins the portals of each tile that share a component by straight lines (a portal graph for
// planning only): `by_tile` lists per tile its (portal, component) pairs.
void joinPortalsByLines(WorldIndex& index,
                        const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& by_tile);
// Puts the portals in (tile, column, y) order (ties: the order they were added), their edges
// renumbered, as every world's index has them.
void sortPortals(WorldIndex& index);
// Appends a tile with `nodes` to the index, its local components [base, base + count) numbered
// by `world_component`.
void addIndexTile(WorldIndex& index, uint32_t tile, uint64_t nodes, uint64_t content,
                  const std::vector<uint32_t>& world_component, uint32_t base, uint32_t count);
// A world stage's result: its time since `start`, tiles (built, reused), the kind's own counts,
// portals and portal edges.
StageResult worldStageResult(const formats::WorldHeader& header, uint64_t built,
                             std::chrono::steady_clock::time_point start,
                             std::initializer_list<std::pair<const char*, uint64_t>> counts);
std::string worldTileFileName(uint64_t content);

// A shard's part file (WorldStage::Params::shard_count > 0): the cache files of the tiles it
// built or found (those present), one per line.
struct WorldShardTile {
    bool present = false, built = false;
    uint64_t content = 0;
};
Result<StageResult> writeWorldShardPart(const std::filesystem::path& output,
                                        const WorldStage::Params& params,
                                        const std::vector<WorldShardTile>& tiles);

// The links a world stage resolves: the authored ones, the scene objects' (the .vox's), then
// the generated ones (`generated` when given, else made from `voxels` when the params ask; those
// made are moved to `generated_out`), less the links whose ids `pruned` (sorted) lists.
Result<std::vector<LinkSpec>> worldLinkSpecs(
    const std::filesystem::path& voxels, const voxel::VoxelGrid& frame,
    const WorldStage::Params& params, const std::vector<LinkSpec>* generated,
    const std::vector<uint32_t>& pruned, std::vector<LinkSpec>& generated_out, Context& context);
// The links a world's lanes belong to, counted by id (a wide link's lanes are one link), and the
// generated ones among them (as the graph stage counts them: links with a lane on the graph).
struct LinkTally {
    std::set<uint32_t> ids, generated;
    void add(const formats::LinkRecord& lane) {
        ids.insert(lane.id);
        if (lane.flags & formats::kLinkFlagGenerated) generated.insert(lane.id);
    }
};
// A world stage's link counts, summary line, named inputs and warnings (nothing without specs).
// `crossing_as`: what a lane between tiles became ("seams").
void reportWorldLinks(const std::vector<LinkSpec>& specs, const LinkTally& tally, uint64_t lanes,
                      uint64_t crossing, const LinkResolveStats& stats, const char* crossing_as,
                      StageResult& result);

// A lane of a navmesh or volume world's links: its record (from_node: the node in from_tile's
// own numbering, to_node in to_tile's) and its two tiles (tile_z * tiles_x + tile_x; equal for a
// lane inside one tile, which becomes that tile's LINK edge).
struct WorldLane {
    formats::LinkRecord record;
    uint32_t from_tile = 0, to_tile = 0;
};
// A navmesh or volume world's resolved lanes: the records, the world's user type names,
// resolveLinks' counts, per tile the lanes with an end in it, and how many lie between tiles.
struct WorldLanes {
    std::vector<WorldLane> lanes;
    std::vector<std::string> type_names;
    LinkResolveStats stats;
    std::vector<std::vector<uint32_t>> by_tile;
    uint64_t crossing = 0;
    explicit WorldLanes(uint32_t tile_count) : by_tile(tile_count) {}
    // Appends `lane` and lists it in its tiles.
    void add(const WorldLane& lane);
};
// What a tile's lanes `mine` (indices into `lanes`) hash to, with the world's user type names:
// its cache file changes with them.
uint64_t worldLanesHash(const std::vector<WorldLane>& lanes, const std::vector<uint32_t>& mine,
                        const std::vector<std::string>& type_names);
// A tile's lanes between tiles as sections: their records (WLNK), their tiles (WLTI) and the
// world's user type names (WLTY); nothing without lanes.
void addWorldLinkSections(formats::ContainerWriter& writer, const std::vector<WorldLane>& cross,
                          const std::vector<std::string>& type_names);

// The lane ends a navmesh or volume world resolves itself, on its tiles, and hands resolveLinks by
// point: each distinct (point, snap) of the links' lanes is one query, and each point link's end
// (not generated) a point whose nearest surface messages name. The kind looks them up on its
// tiles and fills ends_ (per query) and nearest_ (per near point).
class WorldLinkEnds : public LinkEndFinder {
public:
    LinkEnd find(const float p[3], float snap, uint32_t& hint) const override;
    LinkNearest nearest(const float p[3]) const override;
    bool empty() const { return queries_.empty(); }

protected:
    struct Query {
        std::array<float, 3> point;
        float snap;  // [m] linkSnap's
    };
    // Calls add(point, snap, near) for both ends of every lane resolveLinks looks up for `links`
    // on a graph of `kind` (near: a point link's, not generated).
    template <class Add>
    static void forEachEnd(const std::vector<LinkSpec>& links, formats::GraphType kind,
                           float agent_radius, float cell_size, Add&& add) {
        for (const LinkSpec& l : links) {
            const float snap = linkSnap(l, agent_radius, cell_size);
            const auto lanes = resolvedLanesOf(l, kind, cell_size);
            const bool near = !l.generated && lanes.size() == 1;
            for (const auto& [a, b] : lanes) {
                add(a, snap, near);
                add(b, snap, near);
            }
        }
    }
    // The query of (p, snap) and the near point of p, registered when new: (index, new).
    std::pair<uint32_t, bool> addQuery(const std::array<float, 3>& p, float snap);
    std::pair<uint32_t, bool> addNear(const std::array<float, 3>& p);

    std::vector<Query> queries_;
    std::vector<std::array<float, 3>> near_points_;
    std::vector<LinkEnd> ends_;         // per query, once looked up
    std::vector<LinkNearest> nearest_;  // per near point, once looked up

private:
    using Key = std::array<uint32_t, 4>;  // the point's and the snap's bits
    struct KeyHash {
        size_t operator()(const Key& k) const;
    };
    static Key keyOf(const float p[3], float snap);
    std::unordered_map<Key, uint32_t, KeyHash> index_, near_index_;
};

// The navmesh world (WorldStage with kind navmesh; world_navmesh.cpp). `generated` / `pruned`
// as worldLinkSpecs takes them (the seeds' second run).
Result<StageResult> runNavmeshWorld(const WorldStage::Inputs& inputs,
                                    const WorldStage::Params& params,
                                    const std::filesystem::path& output, Context& context,
                                    const std::vector<LinkSpec>* generated = nullptr,
                                    const std::vector<uint32_t>& pruned = {});

// The volume world (WorldStage with kind volume; world_volume.cpp).
Result<StageResult> runVolumeWorld(const WorldStage::Inputs& inputs,
                                   const WorldStage::Params& params,
                                   const std::filesystem::path& output, Context& context);

// The Dirichlet and POV worlds (WorldStage with kind dirichlet or pov; world_cut.cpp):
// Inputs::graph cut into tiles.
Result<StageResult> runDirichletWorld(const WorldStage::Inputs& inputs,
                                      const WorldStage::Params& params,
                                      const std::filesystem::path& output, Context& context);
Result<StageResult> runPovWorld(const WorldStage::Inputs& inputs, const WorldStage::Params& params,
                                const std::filesystem::path& output, Context& context);

// The tile files an index names (beside it), in WTIL order, with their tile coordinates.
struct WorldTileFile {
    uint32_t tile_x = 0, tile_z = 0;
    std::filesystem::path path;
};
Result<std::vector<WorldTileFile>> worldTileFiles(const std::filesystem::path& index);

}  // namespace nav::graph
