// Stage 3: navigation mesh. From the walkable surface of a voxel grid: region partitioning
// (watershed on a distance field, or monotone), contour tracing and simplification, convex
// polygons merged from a triangulation, polygon adjacency with shared-edge portals, and a detail
// height mesh per polygon so points project onto the real floor. Optionally tiled, tiles baked in
// parallel and stitched so polygons connect across tile borders.
//
// Methods after Recast (M. Mononen): rcBuildDistanceField / rcBuildRegions (watershed),
// rcBuildRegionsMonotone, rcBuildContours (Douglas-Peucker style simplification with max error and
// max edge length), rcBuildPolyMesh (ear-clipping triangulation, greedy convex merging),
// rcBuildPolyMeshDetail. Our own implementation.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/geometry.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::navmesh {

enum class Partition { watershed, monotone };
inline constexpr Choice<Partition> kPartitions[] = {{"watershed", Partition::watershed},
                                                    {"monotone", Partition::monotone}};

// Parameters mirror Recast's names and its demo's defaults.
struct NavmeshParams {
    Partition partition = Partition::watershed;
    float region_min_size = 8;  // [Units: cells] regions smaller than size^2 cells are dropped
    float region_merge_size =
        20;                   // [Units: cells] regions smaller than size^2 merge into neighbours
    float edge_max_len = 12;  // [Units: m] longest contour edge (0 = unlimited)
    float edge_max_error = 1.3f;   // [Units: cells] contour simplification tolerance
    int max_verts_per_poly = 6;    // 3..6
    float detail_sample_dist = 6;  // [Units: cells] detail mesh sample spacing (0 = no samples)
    float detail_max_error = 1;    // [Units: cell heights] detail mesh tolerance
    int tile_size = 0;             // [Units: cells] 0 = one tile for the whole level
    int threads = 0;               // 0 = all cores; output identical for any value
};
// Every bad field, named as the members are (region_min_size, tile_size, ...).
ParamIssues checkNavmeshParams(const NavmeshParams& params);
// The same as one ErrorKind::usage error naming every bad field.
Status checkParams(const NavmeshParams& params);
// Adds every parameter but threads to a stage's cache key.
void describeNavmeshParams(const NavmeshParams& params, StageKey& key);

inline constexpr uint32_t kNoNeighbour = 0xFFFFFFFFu;

// A convex polygon mesh in world coordinates. Vertices are shared between polygons (also across
// tile borders after stitching); polygons wind counter-clockwise seen from above (+Y).
struct NavMesh {
    std::vector<float> vertices;            // x, y, z per vertex [Units: m]
    std::vector<uint32_t> poly_offsets;     // polygon p uses poly_vertices[poly_offsets[p] ..
    std::vector<uint32_t> poly_vertices;    //   poly_offsets[p+1]), 3..max_verts_per_poly of them
    std::vector<uint32_t> poly_neighbours;  // parallel to poly_vertices: the polygon across edge
                                            //   (v[i], v[i+1 mod n]), or kNoNeighbour
    std::vector<uint8_t> poly_areas;        // area id per polygon
    std::vector<uint32_t> poly_regions;     // region id per polygon (unique across tiles)
    std::vector<uint32_t> poly_tiles;       // tile index per polygon
    // Detail height mesh: polygon p's floor is the triangles detail_offsets[p] .. [p+1) of
    // detail_triangles, each 9 floats (3 world-space corners). Their XZ projection covers the
    // polygon; Y follows the real floor within detail_max_error.
    std::vector<uint32_t> detail_offsets;
    std::vector<float> detail_triangles;
    std::vector<geometry::AreaType> areas;  // area table (from the voxel grid)
    uint32_t region_count = 0;
    uint32_t tiles_x = 1, tiles_z = 1;
    int max_verts_per_poly = 6;

    size_t polyCount() const { return poly_areas.size(); }
    size_t vertexCount() const { return vertices.size() / 3; }
};

// Builds the navigation mesh from the walkable spans of `grid` (the grid must come from
// voxelization or a grid map: spans with walkable flags). Deterministic for any thread count.
Result<NavMesh> buildNavmesh(const voxel::VoxelGrid& grid, const NavmeshParams& params,
                             Context& context);

// The same mesh from a grid whose rows are handed over a band at a time (a .vox read as the build
// goes, voxel::VoxelRowReader): `grid` is the grid without spans, `span_count` its spans, and
// feed(keep_from, need_to) returns rows [keep_from, need_to) at least (both never decrease). With
// `streamed` the tiles are built a tile row at a time, so that only the rows of three tile rows
// and their borders are asked for at once; otherwise the feed is asked once for everything.
// Byte-identical to the build from the whole grid.
using RowFeed = std::function<Result<voxel::GridRows>(uint32_t keep_from, uint32_t need_to)>;
Result<NavMesh> buildNavmesh(const voxel::VoxelGrid& grid, uint32_t span_count, const RowFeed& feed,
                             bool streamed, const NavmeshParams& params, Context& context);

// ---- Tiles one by one (world tiles) ------------------------------------------------------------
// A polygon edge on a side of its tile that borders another tile (where the stitched mesh links
// it to the neighbour's edge with the same ends): its polygon and edge (v[edge] -> v[edge + 1]),
// the side (0: -x, 1: +z, 2: +x, 3: -z), and its two ends in whole-grid cells: a0 / a1 along the
// side (z on sides 0 and 2, x on sides 1 and 3), y0 / y1 their heights [cell heights].
struct BorderEdge {
    uint32_t poly = 0;
    uint32_t edge = 0;
    uint32_t side = 0;
    int32_t a0 = 0, a1 = 0;
    int32_t y0 = 0, y1 = 0;
};
// The heights two border edges' ends may differ by and still be joined (the stitch's weld).
inline constexpr int kBorderWeldTolerance = 2;  // [Units: cell heights]
struct NavmeshTile {
    uint32_t tile_x = 0, tile_z = 0;
    NavMesh mesh;  // this tile's polygons alone (neighbours within it; tiles_x = tiles_z = 1)
    std::vector<BorderEdge> border;
};
// What buildNavmeshTiles hands its tiles to (called from the worker threads, any order).
struct TileSink {
    // Before a tile's second pass: `key` hashes everything its polygons depend on (its columns
    // and border, and the four neighbours' with theirs, and the parameters; not the grid's
    // frame). True: the caller holds this tile already, the pass is skipped and take() not called.
    std::function<bool(uint32_t tile_x, uint32_t tile_z, uint64_t key)> cached;
    std::function<Status(NavmeshTile&& tile, uint64_t key)> take;
    // Where a streamed build keeps its rows of tiles' compressed windows (null: in memory).
    SpillStore* spill = nullptr;
};
// The tiled build (params.tile_size > 0) without the stitch: each tile's mesh on its own, with
// vertices where the stitched mesh has them before welding (the welded mesh keeps the first
// tile's heights along a border). Returns the number of contours not fully triangulated.
Result<int> buildNavmeshTiles(const voxel::VoxelGrid& grid, uint32_t span_count,
                              const RowFeed& feed, const NavmeshParams& params,
                              const TileSink& sink, Context& context);

}  // namespace nav::navmesh
