// Private to lib/navmesh: the per-tile intermediate data of the navmesh build and the stage
// functions that produce it. A tile is baked in two passes (tiles.cpp drives them):
//   pass 1: compact field -> distance field -> regions -> raw contours -> seam points;
//   pass 2: simplified contours (with the neighbours' seam points) -> polygons -> detail mesh.
// All coordinates below are in grid cells (x, z) and cell heights (y) of the whole voxel grid,
// except inside CompactField, which indexes its own window of columns.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/common/parallel.h"
#include "lib/navmesh/navmesh.h"
#include "lib/voxel/voxelize.h"

namespace nav::navmesh::internal {

constexpr int kDx[4] = {-1, 0, 1, 0};  // direction 0: -x, 1: +z, 2: +x, 3: -z (as voxelize)
constexpr int kDz[4] = {0, 1, 0, -1};

constexpr uint32_t kNoSpan = 0xFFFFFFFFu;        // no linked span in that direction
constexpr uint32_t kBorderRegion = 0x80000000u;  // region of a span in a tile's border zone,
                                                 //   | side (0..3, the direction it lies in)
constexpr uint32_t kRegionMask = 0x7FFFFFFFu;

// Inner parallel loops use nav::parallelFor (lib/common/parallel.h).
using nav::parallelFor;

// Rows per work item of the stages that split a field into row bands.
constexpr int kBandRows = 16;

// A tile: the inner box [x0, x1) x [z0, z1) of grid columns it owns, and the width of the border
// zone around it that is read (for distances and connectivity) but belongs to the neighbours.
struct TileBox {
    int x0 = 0, z0 = 0, x1 = 0, z1 = 0;
    int border = 0;
};

// The walkable spans of a window of columns, with their 4-neighbour links (after Recast's
// rcCompactHeightfield). The spans of column (x, z) (window coordinates) are
// cells[z * width + x] .. cells[z * width + x + 1].
struct CompactField {
    int x0 = 0, z0 = 0;        // grid column of window column (0, 0)
    int width = 0, depth = 0;  // window size [Units: cells]
    int inner_x0 = 0, inner_z0 = 0, inner_x1 = 0, inner_z1 = 0;  // tile box, window coordinates
    bool seam[4] = {false, false, false, false};  // side d of the tile box borders another tile
    voxel::AgentCells agent;
    std::vector<uint32_t> cells;  // width * depth + 1
    std::vector<uint16_t> y;      // span top [Units: cell heights]
    std::vector<uint8_t> area;
    std::vector<uint32_t> links;    // 4 per span: the span linked in direction d, or kNoSpan
    std::vector<uint16_t> dist;     // distance to the walkable boundary (chamfer 2/3, blurred)
    std::vector<uint32_t> regions;  // 0 = none, 1.. = region, kBorderRegion | side
    uint16_t max_dist = 0;
    uint32_t region_count = 0;  // regions are 1..region_count

    size_t spanCount() const { return y.size(); }
    int dirOffset(int dir) const { return kDx[dir] + kDz[dir] * width; }
    // The span linked to `span` in direction `dir`, or kNoSpan.
    uint32_t next(size_t span, int dir) const { return links[4 * span + size_t(dir)]; }
};

// Partitioning settings in cells.
struct RegionSettings {
    Partition partition = Partition::watershed;
    int min_area = 64;     // [Units: cells] region_min_size^2
    int merge_area = 400;  // [Units: cells] region_merge_size^2
};

void buildCompactField(const voxel::GridRows& grid, const voxel::AgentCells& agent,
                       const TileBox& box, int threads, CompactField& field);
void buildDistanceField(CompactField& field, int threads);
void buildRegions(CompactField& field, const RegionSettings& settings);

// ---- Contours ----------------------------------------------------------------------------------

// Tag of the contour edge that starts at a vertex: what lies across it.
constexpr uint32_t kTagAreaBorder = 0x40000000u;  // | region: across is another area
constexpr uint32_t kTagBridge = 0x20000000u;      // a hole bridge (interior diagonal)
constexpr uint32_t kTagRegionMask = 0x1FFFFFFFu | kBorderRegion;  // region part (0 = wall)

struct ContourVertex {
    int32_t x, y, z;  // grid corner coordinates [Units: cells, cell heights]
    uint32_t tag;     // of the edge from this vertex to the next
};
struct Contour {
    std::vector<ContourVertex> vertices;  // counter-clockwise seen from +Y for outlines
    uint32_t region = 0;
    uint8_t area = 0;
};

// Vertices on a tile side where the neighbouring tile's contours must also place a vertex
// (where regions, areas or connectivity change along the shared border).
struct SeamPoint {
    int32_t x, z, y;
    bool operator<(const SeamPoint& o) const {
        return x != o.x ? x < o.x : z != o.z ? z < o.z : y < o.y;
    }
};
using SeamPoints = std::array<std::vector<SeamPoint>, 4>;  // per side of the tile box

void traceContours(const CompactField& field, std::vector<Contour>& raw, SeamPoints& seam_points);

struct ContourSettings {
    float max_error = 1.3f;  // [Units: cells]
    int max_edge_len = 0;    // [Units: cells] 0 = unlimited
    int weld_tolerance = 2;  // [Units: cell heights]
    int floor_gap = 5;       // [Units: cell heights] edges this far apart in height are on
                             //   different floors and may cross in plan
};
// Simplifies the raw contours (keeping the neighbours' seam points, per side), merges holes
// into their outlines and returns one simple polygon per outline.
void buildContours(const std::vector<Contour>& raw, const SeamPoints& neighbour_points,
                   const ContourSettings& settings, std::vector<Contour>& contours);

// ---- Polygons -----------------------------------------------------------------------------------

// What a polygon edge lies on: 0..3 = the tile side (a portal to the neighbouring tile), or:
constexpr uint8_t kInnerEdge = 0xFF;  // between two polygons of the tile (a diagonal, a region
                                      //   border, a hole bridge)
constexpr uint8_t kWallEdge = 0xFE;   // a wall: never linked, even to an edge on the same line

// A tile's polygon mesh in grid coordinates; vertices welded within the tile.
struct TileMesh {
    std::vector<int32_t> vertices;  // x, y, z per vertex (grid corners)
    std::vector<uint32_t> poly_offsets{0};
    std::vector<uint32_t> poly_vertices;
    std::vector<uint32_t> poly_neighbours;  // within the tile, kNoNeighbour otherwise
    std::vector<uint8_t> edge_kinds;        // per edge: tile side, kInnerEdge or kWallEdge
    std::vector<uint8_t> poly_areas;
    std::vector<uint32_t> poly_regions;  // tile-local region ids (1..)
    std::vector<uint32_t> detail_offsets{0};
    std::vector<float> detail_triangles;  // world coordinates, 9 floats per triangle

    size_t polyCount() const { return poly_areas.size(); }
};

// Triangulates each contour, merges triangles into convex polygons of up to max_verts vertices
// and links polygons that share an edge. Returns the number of contours that could not be fully
// triangulated.
int buildPolyMesh(const CompactField& field, const std::vector<Contour>& contours, int max_verts,
                  int weld_tolerance, TileMesh& mesh);

struct DetailSettings {
    float sample_dist = 6;  // [Units: cells] 0 = polygon vertices only
    float max_error = 1;    // [Units: cell heights]
};
void buildDetailMesh(const voxel::VoxelGrid& grid, const CompactField& field,
                     const DetailSettings& settings, int threads, TileMesh& mesh);

// ---- Integer geometry on the XZ plane ----------------------------------------------------------

// Twice the signed area of triangle (a, b, c) in XZ; positive when a -> b -> c turns
// counter-clockwise seen from +Y.
inline int64_t cross2(int64_t ax, int64_t az, int64_t bx, int64_t bz, int64_t cx, int64_t cz) {
    return (bz - az) * (cx - ax) - (bx - ax) * (cz - az);
}

}  // namespace nav::navmesh::internal
