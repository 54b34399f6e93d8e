// navrt::World: a tiled world (navbake build with `world.tile_size`) streamed tile by tile.
//
// The world index (AGENT.tile.world) is loaded once and stays: the tile grid, and the portal
// graph over all tiles (one portal per run of border cells that cross into a neighbour, with exact
// costs inside each tile; HPA*'s abstract graph, Botea, Mueller and Schaeffer 2004). Tiles
// (AGENT.tile.X_Z.nav) are added and removed at run time, from memory or files, in any order
// (as Detour's dtNavMesh::addTile / removeTile, Mononen). A tile's seam edges (WSEM) join the
// neighbouring tile's cells while both are loaded, and leave with either.
//
//  - findPath: the exact shortest path over the tiles that are loaded (A* with the octile
//    heuristic scaled by the smallest area cost): the path the whole world's tile graph gives
//    when every tile is loaded, and the best path inside the loaded tiles otherwise.
//  - planTiles: the tiles a path from one point to another crosses, loaded or not, from the portal
//    graph: what a streaming system loads ahead of an agent.
//
// The index says what its tiles hold (WIHD graph_type, FORMAT.md §11):
//  - tile graphs (above): nodes are walkable cells;
//  - navmesh tiles (AGENT.navmesh.world): nodes are polygons; a tile's border edges (WNBE) join
//    the neighbour's matching edges while both are loaded; findPath is navrt's polygon A* (entry
//    points on the portals) across them and returns the funnelled path (start, corners, goal);
//    locate names the polygon under a point;
//  - volume tiles (AGENT.volume.world, flyers): nodes are the voxels of a tile's box (its columns
//    and a ring of one column around them); a move into the ring enters the neighbour's voxel
//    while it is loaded; findPath is the exact A* over the loaded voxels (voxel centres) and
//    their links (teleports: LINK inside a tile, WLNK to another tile while it is loaded), locate
//    the nearest free voxel;
//  - Dirichlet domains (AGENT.dirichlet.world): every tile holds the whole waypoint graph and the
//    domain cells of its columns; locate names the waypoint whose domain holds the cell nearest
//    p, findPath goes waypoint to waypoint between the domains of the cells nearest its two
//    points (only their tiles need be loaded), as navrt's query on the whole Dirichlet graph;
//    planTiles names those two tiles;
//  - POV tiles (AGENT.pov.world): each holds the layer cells of its columns and the corners on
//    them with their taut edges, and records of the links and edges into other tiles; the loaded
//    tiles are joined into one POV graph over the world's grid (rebuilt after tiles come or go:
//    a link or an edge counts while both its tiles are loaded, a sight line stops at a tile not
//    loaded), and findPath is navrt's any-angle POV search on it; locate names a layer cell.
//
// One World is for one thread at a time (queries keep their scratch); tiles are copied in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "lib/runtime/navrt.h"
#include "lib/runtime/navrt_query.h"

namespace navrt {

// A step of a world path that takes a link (a ladder, a door, a drop, a teleport...).
struct WorldPathLink {
    uint32_t segment = 0;             // path()[segment] -> path()[segment + 1]
    uint32_t tile_x = 0, tile_z = 0;  // the tile the step starts in (whose asset holds the link)
    // The link: id, user_data, type, flags, its two ends and costs. from_node / to_node are the
    // tile's nodes for a link inside one tile, kNoLink for a link between tiles.
    nav::formats::LinkRecord link;
    bool reverse = false;  // taken to -> from (a two-way link's way back)
};

class World {
public:
    World();
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    // Loads the world index (kind WRLD). Removes every tile.
    Error init(const void* index, size_t size, const LoadOptions& options = {});
    Error initFile(const char* path, const LoadOptions& options = {});

    // Adds a tile asset of this world (the bytes are copied). Errors: not a world tile, a tile of
    // another world (fingerprint), a tile already loaded, a corrupt asset.
    Error addTile(const void* data, size_t size, const LoadOptions& options = {});
    Error addTileFile(const char* path, const LoadOptions& options = {});
    // Removes tile (tile_x, tile_z); false when it was not loaded.
    bool removeTile(uint32_t tile_x, uint32_t tile_z);
    bool loaded(uint32_t tile_x, uint32_t tile_z) const;
    uint32_t loadedCount() const;
    uint32_t tilesX() const;
    uint32_t tilesZ() const;
    // The tile holding world point p (true), or false when p is outside the world's grid.
    bool tileAt(Vec3 p, uint32_t& tile_x, uint32_t& tile_z) const;
    // The world grid's XZ rectangle [m] (min x, min z, max x, max z).
    void extent(float& min_x, float& min_z, float& max_x, float& max_z) const;
    // Bytes the index and the loaded tiles hold (decoded sections and the seam tables).
    size_t memoryBytes() const;

    // The walkable cell nearest p within `vertical` metres up or down and `cells` columns around
    // it, in a loaded tile (navmesh worlds: the polygon under p within `cells` columns
    // horizontally; volume worlds: the nearest free voxel). False when none, or when p's own
    // column lies in a tile not loaded.
    bool locate(Vec3 p, float vertical, int cells, uint32_t& tile_x, uint32_t& tile_z,
                uint32_t& node) const;

    // The position of a node of a loaded tile (as locate() names it): a cell's top, a polygon's
    // centroid, a voxel's centre.
    Vec3 position(uint32_t tile_x, uint32_t tile_z, uint32_t node) const;

    // The shortest path over the loaded tiles between the cells nearest from and to (vertical
    // tolerance 2 m, 2 columns around). found: path() and cost(); no_path when the loaded tiles do
    // not connect them; invalid_start / invalid_goal when a point is on no loaded tile's cell.
    PathStatus findPath(Vec3 from, Vec3 to);
    const std::vector<Vec3>& path() const;
    // The steps of the last path that take links, in order (a user type's name: the tile's
    // linkTypeName, as navrt::GraphView names it).
    const std::vector<WorldPathLink>& pathLinks() const;
    // The name of a link type as tile (tile_x, tile_z) names it ("drop", or a user type from its
    // LTYP: `length` bytes, not terminated), or null (the tile is not loaded, or no such type).
    const char* linkTypeName(uint32_t tile_x, uint32_t tile_z, nav::formats::LinkType type,
                             size_t& length) const;
    float cost() const;
    uint32_t expanded() const;

    // The tiles (tile_z * tilesX() + tile_x) a path from `from` to `to` crosses, in order, from
    // the portal graph (loaded tiles or not). Where from's or to's tile is loaded its portals are
    // joined with exact costs inside it, else by straight lines. found, or no_path.
    PathStatus planTiles(Vec3 from, Vec3 to, std::vector<uint32_t>& tiles) const;

    struct Impl;  // private data (public only so the .cpp's helpers can name it)

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace navrt
