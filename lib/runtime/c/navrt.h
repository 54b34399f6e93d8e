/* navrt C API: load a navbake asset (.nav, .graph) and query it from C, C#, GDExtension, Lua...
 *
 * A thin layer over the C++ runtime (navrt::Asset, navrt::GraphView, navrt::Navigator): same
 * results, no exceptions across the boundary (navrt is built without them), every failure a
 * navrt_status code with a message.
 *
 * Handles and threads:
 *   navrt_asset      a loaded, validated asset. Immutable once loaded: any number of threads may
 *                    share one, and every navigator made from it, for reading.
 *   navrt_navigator  the search state of one query at a time (the C++ navrt::Navigator). Use one
 *                    per thread; it must be freed before its asset.
 *   navrt_world      a world streamed tile by tile (the C++ navrt::World): its index and the
 *                    tiles loaded; one thread at a time.
 *
 * Memory: every allocation (the asset's decoded sections, the navigator's search arrays) goes
 * through the allocator passed at load / create (NULL: malloc). The exact navmesh search keeps
 * its node pool in the C++ heap and grows it to the largest search so far.
 *
 * Errors: functions that can fail return a navrt_status; load and create also fill an optional
 * navrt_error with the byte offset, the section and a sentence ("LINK: record 3 at byte 168: cost
 * -1 is not positive"). Queries never fail on valid handles: a point off the graph or an
 * unreachable goal is a path status, not an error.
 *
 * Versioning: NAVRT_VERSION is the version of this header; navrt_version() that of the library
 * linked. The ABI is stable within a major version: handles are opaque, structs passed in begin
 * with their size (set by the *_init functions) so later minor versions can add fields at their
 * end, and enum values are never renumbered.
 */
#ifndef NAVRT_H
#define NAVRT_H

#include <stddef.h>
#include <stdint.h>

#define NAVRT_VERSION_MAJOR 1
#define NAVRT_VERSION_MINOR 1
#define NAVRT_VERSION_PATCH 0
#define NAVRT_VERSION \
    ((NAVRT_VERSION_MAJOR * 10000) + (NAVRT_VERSION_MINOR * 100) + NAVRT_VERSION_PATCH)

#if defined(_WIN32) && defined(NAVRT_SHARED)
#if defined(NAVRT_BUILDING)
#define NAVRT_API __declspec(dllexport)
#else
#define NAVRT_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define NAVRT_API __attribute__((visibility("default")))
#else
#define NAVRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* No node / polygon / link. */
#define NAVRT_NONE 0xFFFFFFFFu

typedef enum navrt_status {
    NAVRT_OK = 0,
    NAVRT_IO_ERROR = 1,           /* could not open or read the file */
    NAVRT_TRUNCATED = 2,          /* shorter than its header says */
    NAVRT_BAD_MAGIC = 3,          /* not a navbake file */
    NAVRT_NEWER_VERSION = 4,      /* written by a newer navbake */
    NAVRT_BAD_VERSION = 5,        /* version 0 */
    NAVRT_BAD_HEADER = 6,         /* header fields out of range */
    NAVRT_CHECKSUM_MISMATCH = 7,  /* bytes do not match their checksum */
    NAVRT_TRAILING_DATA = 8,      /* bytes after the declared end */
    NAVRT_BAD_SECTION_TABLE = 9,  /* a section entry out of bounds, overlapping, ... */
    NAVRT_UNKNOWN_CODEC = 10,     /* a section codec this library does not know */
    NAVRT_DECOMPRESS_FAILED = 11, /* zstd rejected a section */
    NAVRT_WRONG_KIND = 12,        /* not a graph asset */
    NAVRT_MISSING_SECTION = 13,   /* a required section (or one a method needs) is absent */
    NAVRT_BAD_SECTION = 14,       /* a section's contents are inconsistent */
    NAVRT_OUT_OF_MEMORY = 15,     /* an allocation failed or passed the caller's limit */
    NAVRT_INVALID_ARGUMENT = 16   /* a null handle, an unknown method, ... */
} navrt_status;

/* Stable name of a status ("ok", "checksum_mismatch", ...). */
NAVRT_API const char* navrt_status_name(navrt_status status);

typedef struct navrt_error {
    navrt_status status;
    uint64_t offset;  /* byte offset in the file (or section) it concerns */
    uint32_t section; /* fourcc of the section concerned, 0 if none */
    char message[256];
} navrt_error;

/* The library's NAVRT_VERSION (compare with the header's to catch a mismatched library). */
NAVRT_API uint32_t navrt_version(void);

typedef struct navrt_allocator {
    /* Returns memory aligned to at least 16 bytes, or NULL. */
    void* (*allocate)(size_t size, void* user);
    void (*release)(void* pointer, void* user);
    void* user;
} navrt_allocator;

typedef struct navrt_vec3 {
    float x, y, z;
} navrt_vec3;

/* ---- Assets ---------------------------------------------------------------------------------- */

typedef struct navrt_asset navrt_asset;

typedef enum navrt_graph_type {
    NAVRT_GRAPH_TILE = 1,
    NAVRT_GRAPH_VOLUME = 2,
    NAVRT_GRAPH_POV = 3,
    NAVRT_GRAPH_NAVMESH = 4,
    NAVRT_GRAPH_DIRICHLET = 5
} navrt_graph_type;

typedef struct navrt_load_options {
    uint32_t struct_size; /* sizeof(navrt_load_options): navrt_load_options_init sets it */
    const navrt_allocator* allocator; /* NULL: malloc */
    uint64_t max_memory;              /* refuse assets that decode to more bytes (default 4 GiB) */
} navrt_load_options;
NAVRT_API void navrt_load_options_init(navrt_load_options* options);

/* Loads and validates a graph asset (.nav or .graph); `options` and `error` may be NULL. On
 * failure *out is NULL. */
NAVRT_API navrt_status navrt_asset_load(const char* path, const navrt_load_options* options,
                                        navrt_asset** out, navrt_error* error);
/* The same from a caller's buffer (which may be freed once this returns). */
NAVRT_API navrt_status navrt_asset_load_memory(const void* data, size_t size,
                                               const navrt_load_options* options, navrt_asset** out,
                                               navrt_error* error);
/* Frees the asset (NULL: nothing). Its navigators must have been freed. */
NAVRT_API void navrt_asset_free(navrt_asset* asset);

NAVRT_API navrt_graph_type navrt_asset_graph_type(const navrt_asset* asset);
NAVRT_API uint32_t navrt_asset_node_count(const navrt_asset* asset);
NAVRT_API uint32_t navrt_asset_link_count(const navrt_asset* asset);
/* The position of node `node` (tile and volume: the cell's floor centre; navmesh: the polygon's
 * centre; POV: the corner). False when out of range. */
NAVRT_API int navrt_asset_node_position(const navrt_asset* asset, uint32_t node, navrt_vec3* out);

typedef enum navrt_link_type {
    NAVRT_LINK_DROP = 1,
    NAVRT_LINK_JUMP = 2,
    NAVRT_LINK_CLIMB = 3,
    NAVRT_LINK_LADDER = 4,
    NAVRT_LINK_DOOR = 5,
    NAVRT_LINK_TELEPORT = 6,
    NAVRT_LINK_CUSTOM = 7
    /* 16 and up: a user type, named by navrt_link.type_name */
} navrt_link_type;

typedef struct navrt_link {
    uint32_t id;        /* stable id the level gave it */
    uint32_t user_data; /* opaque to navbake */
    uint32_t from_node, to_node;
    navrt_vec3 from, to; /* where it starts and ends, on the surface */
    float cost;          /* from -> to */
    float reverse_cost;  /* to -> from when bidirectional, else 0 */
    uint32_t type;       /* navrt_link_type, or a user type */
    uint32_t bidirectional;
    char type_name[32]; /* "drop", ..., or the user type's name */
} navrt_link;
/* Link `index` (< navrt_asset_link_count) of the asset. */
NAVRT_API navrt_status navrt_asset_link(const navrt_asset* asset, uint32_t index, navrt_link* out);

/* The index of the link with this id (the level's stable id, navrt_link.id), or NAVRT_NONE. */
NAVRT_API uint32_t navrt_asset_find_link(const navrt_asset* asset, uint32_t id);

/* ---- Navigators ------------------------------------------------------------------------------ */

typedef struct navrt_navigator navrt_navigator;

typedef enum navrt_method {
    NAVRT_METHOD_ASTAR = 0,   /* A* over the graph (navmesh: polygons, then the funnel) */
    NAVRT_METHOD_CLUSTER = 1, /* A* with the packed cluster heuristic (tile graphs) */
    NAVRT_METHOD_HIER = 2,    /* the packed hierarchy (tile graphs; near-optimal) */
    NAVRT_METHOD_NEXTHOP = 3, /* the packed next-hop table (tile graphs) */
    NAVRT_METHOD_EXACT = 4,   /* navmesh: the Euclidean shortest path (Polyanya) */
    NAVRT_METHOD_JPS = 5      /* JPS+ over the packed jump point table (tile graphs) */
} navrt_method;

/* Stable name of a method ("astar", ...), and the method a name stands for (false: none). */
NAVRT_API const char* navrt_method_name(navrt_method method);
NAVRT_API int navrt_method_parse(const char* name, navrt_method* out);
/* NAVRT_OK when the asset supports the method; else why not (in `error`, may be NULL). */
NAVRT_API navrt_status navrt_asset_supports(const navrt_asset* asset, navrt_method method,
                                            navrt_error* error);

typedef struct navrt_navigator_options {
    uint32_t
        struct_size;     /* sizeof(navrt_navigator_options): navrt_navigator_options_init sets it */
    navrt_method method; /* default NAVRT_METHOD_ASTAR */
    uint32_t max_expansions;          /* A* node budget, 0 = none */
    uint64_t next_hop_cache_bytes;    /* NEXTHOP: memory for the table (default 32 MiB): decoded
                                         runs when they fit, else decompressed blocks */
    const navrt_allocator* allocator; /* NULL: malloc */
} navrt_navigator_options;
NAVRT_API void navrt_navigator_options_init(navrt_navigator_options* options);

/* A navigator for `asset` (`options` NULL: A*). On failure *out is NULL and `error` says why. */
NAVRT_API navrt_status navrt_navigator_create(const navrt_asset* asset,
                                              const navrt_navigator_options* options,
                                              navrt_navigator** out, navrt_error* error);
NAVRT_API void navrt_navigator_free(navrt_navigator* navigator);

/* Where a point may be from the graph: within `horizontal` m (XZ) of a node's cell or polygon and
 * `vertical` m of its floor; else, with `snap` > 0, moved to the nearest surface within `snap` m.
 */
typedef struct navrt_locate_options {
    float horizontal; /* default 0 */
    float vertical;   /* default 1 */
    float snap;       /* default 0: off-graph points are not moved */
} navrt_locate_options;
NAVRT_API void navrt_locate_options_init(navrt_locate_options* options);

typedef struct navrt_location {
    uint32_t node; /* node, polygon (navmesh) or layer cell (POV); NAVRT_NONE: off the graph */
    navrt_vec3 position; /* the point a search uses (navmesh: on the polygon's floor) */
    double moved;        /* how far snapping moved it [m], -1 when not moved */
} navrt_location;

/* The point on the graph for `point` (`options` NULL: the defaults). `hint`: the node or polygon
 * the agent was on last frame (navmesh: kept when the point is over it, so an agent stays on its
 * floor where floors overlap), or NAVRT_NONE. */
NAVRT_API navrt_location navrt_locate(const navrt_navigator* navigator, navrt_vec3 point,
                                      const navrt_locate_options* options, uint32_t hint);

typedef enum navrt_path_status {
    NAVRT_PATH_FOUND = 0,
    NAVRT_PATH_NONE = 1,            /* start and goal are not connected */
    NAVRT_PATH_START_OFF_GRAPH = 2, /* the start is not on the graph */
    NAVRT_PATH_GOAL_OFF_GRAPH = 3,
    /* Stopped before the goal (the expansion budget ran out, or navrt_finish ended a sliced
     * search): the path is the best partial one, to the expanded node nearest the goal. */
    NAVRT_PATH_OUT_OF_NODES = 4,
    NAVRT_PATH_INVALID = 5,    /* a null navigator */
    NAVRT_PATH_IN_PROGRESS = 6 /* a sliced search has more to do */
} navrt_path_status;
NAVRT_API const char* navrt_path_status_name(navrt_path_status status);

/* Locates both points and searches with the navigator's method. The results below hold until the
 * next search on this navigator. */
NAVRT_API navrt_path_status navrt_find_path(navrt_navigator* navigator, navrt_vec3 from,
                                            navrt_vec3 to, const navrt_locate_options* options,
                                            uint32_t start_hint, uint32_t goal_hint);

/* ---- Surface queries (Detour's findRandomPoint, raycast, closestPointOnPoly, moveAlongSurface) */

/* A random point on the surface from three uniform numbers in [0, 1) (the same numbers give the
 * same point). Navmesh: a polygon in proportion to its area, a point uniformly inside it; tile
 * graphs: a node's cell, a point in it; volume: a free voxel's centre; POV: a layer cell's. */
NAVRT_API navrt_location navrt_random_point(const navrt_navigator* navigator, float u0, float u1,
                                            float u2);

typedef struct navrt_raycast_hit {
    uint32_t hit;       /* a wall stopped the ray */
    float t;            /* fraction of from -> to travelled (1: nothing hit) */
    navrt_vec3 normal;  /* the wall's normal in XZ, when hit */
    uint32_t last_poly; /* the polygon the ray ended on (NAVRT_NONE: from is off the mesh) */
    uint32_t visited;   /* polygons crossed */
} navrt_raycast_hit;
/* Navmesh assets: walks the surface from `from` (located with `options` and `hint`) straight
 * towards `to` in XZ. */
NAVRT_API navrt_raycast_hit navrt_raycast(const navrt_navigator* navigator, navrt_vec3 from,
                                          navrt_vec3 to, const navrt_locate_options* options,
                                          uint32_t hint);
/* Navmesh assets: the point of polygon `poly` nearest to `point` (XZ), on its floor. */
NAVRT_API navrt_location navrt_closest_point(const navrt_navigator* navigator, uint32_t poly,
                                             navrt_vec3 point);

typedef struct navrt_surface_move {
    navrt_vec3 position; /* as near the target as the walls allow, on the surface */
    uint32_t poly;       /* the polygon it is on */
    uint32_t visited;    /* polygons looked at */
    uint32_t reached;    /* the target itself: nothing was in the way */
} navrt_surface_move;
/* Navmesh assets: moves an agent on polygon `start` at `from` towards `to`, constrained to the
 * surface (walls and blocked polygons stop it; it slides along them): Detour's
 * moveAlongSurface, for steering and player movement. */
NAVRT_API navrt_surface_move navrt_move_along_surface(const navrt_navigator* navigator,
                                                      uint32_t start, navrt_vec3 from,
                                                      navrt_vec3 to);

/* ---- Dynamic obstacles and per-query costs -------------------------------------------------- */

/* Nodes (navmesh: polygons), links (a door, a ladder) and areas blocked at run time, without
 * rebuilding. A search never enters a blocked node or area (it may leave the one it starts in)
 * and never takes a blocked link; every method honours it (hier refines its legs with it and
 * searches the whole graph when a leg finds no way; nexthop follows the table while each move is
 * open and searches from the first blocked one; exact runs A* while anything is blocked). One
 * blocking may serve many navigators (threads): change it only while none of them searches. */
typedef struct navrt_blocking navrt_blocking;
NAVRT_API navrt_status navrt_blocking_create(const navrt_asset* asset,
                                             const navrt_allocator* allocator, navrt_blocking** out,
                                             navrt_error* error);
NAVRT_API void navrt_blocking_free(navrt_blocking* blocking);
/* `blocked` non-zero blocks, zero opens; ids out of range are ignored. */
NAVRT_API void navrt_blocking_set_node(navrt_blocking* blocking, uint32_t node, int blocked);
NAVRT_API void navrt_blocking_set_link(navrt_blocking* blocking, uint32_t link, int blocked);
NAVRT_API void navrt_blocking_set_area(navrt_blocking* blocking, uint32_t area, int blocked);
NAVRT_API void navrt_blocking_clear(navrt_blocking* blocking);
/* Nodes, links and areas blocked now. */
NAVRT_API uint32_t navrt_blocking_count(const navrt_blocking* blocking);
/* The navigator's later searches honour `blocking` (NULL: none), which must outlive that use and
 * belong to the navigator's asset (NAVRT_INVALID_ARGUMENT otherwise). */
NAVRT_API navrt_status navrt_navigator_set_blocking(navrt_navigator* navigator,
                                                    const navrt_blocking* blocking);

#define NAVRT_MAX_AREAS 64
/* Per-query area costs (Detour's query filter): per area id, a multiplier on the asset's cost of
 * that area; 0 excludes the area. Tile and navmesh assets (the others have no areas). */
typedef struct navrt_filter {
    float area_multiplier[NAVRT_MAX_AREAS];
} navrt_filter;
/* Every multiplier 1. */
NAVRT_API void navrt_filter_init(navrt_filter* filter);
/* The navigator's later searches use a copy of `filter` (NULL: none). */
NAVRT_API navrt_status navrt_navigator_set_filter(navrt_navigator* navigator,
                                                  const navrt_filter* filter, navrt_error* error);

/* Time-sliced search (a frame budget for path finding): navrt_begin_path locates both points and
 * sets the search up, returning NAVRT_PATH_IN_PROGRESS (or the result when no search is needed);
 * navrt_step runs at most `max_iterations` expansions per call and returns IN_PROGRESS until the
 * search ends with the result navrt_find_path gives; navrt_finish ends a search in progress with
 * its best partial path (OUT_OF_NODES). astar and cluster are sliced; exact, hier and nexthop run
 * whole in navrt_begin_path. */
NAVRT_API navrt_path_status navrt_begin_path(navrt_navigator* navigator, navrt_vec3 from,
                                             navrt_vec3 to, const navrt_locate_options* options,
                                             uint32_t start_hint, uint32_t goal_hint);
NAVRT_API navrt_path_status navrt_step(navrt_navigator* navigator, uint32_t max_iterations);
NAVRT_API navrt_path_status navrt_finish(navrt_navigator* navigator);

/* Open goal: the cheapest path from `from` to any of the `count` goals (by the method's cost;
 * ties to the earlier goal); *winner (may be NULL) receives the index of the goal reached, or
 * NAVRT_NONE. Far goals are pruned by a lower bound, so many goals cost little more than one. The
 * results below are the winner's path. */
NAVRT_API navrt_path_status navrt_find_path_to_any(navrt_navigator* navigator, navrt_vec3 from,
                                                   const navrt_vec3* goals, uint32_t count,
                                                   const navrt_locate_options* options,
                                                   uint32_t start_hint, uint32_t* winner);

typedef struct navrt_path_info {
    navrt_path_status status;
    navrt_location start, goal;
    double cost;          /* edge costs with area multipliers (exact: length x area cost) */
    double length;        /* the straight path's length in 3D [m] (hier, nexthop: through nodes) */
    uint32_t expansions;  /* nodes the search expanded (nexthop: lookups) */
    uint32_t node_count;  /* nodes of the node path (exact: 0) */
    uint32_t point_count; /* points of the straight path */
    uint32_t link_count;  /* steps that take a link */
    uint32_t partial;     /* the path stops short of the goal (OUT_OF_NODES) */
} navrt_path_info;
NAVRT_API navrt_path_info navrt_path_result(const navrt_navigator* navigator);

/* The node path (nodes, polygons, POV corners): writes up to `capacity`, returns how many. */
NAVRT_API uint32_t navrt_path_nodes(const navrt_navigator* navigator, uint32_t* nodes,
                                    uint32_t capacity);
/* The straight path: writes up to `capacity` points and, when `links` is not NULL, per segment i
 * the link it takes (an index for navrt_asset_link) or NAVRT_NONE; returns how many points the
 * path has (more than `capacity`: call again with room for them all). */
NAVRT_API uint32_t navrt_straight_path(const navrt_navigator* navigator, navrt_vec3* points,
                                       uint32_t* links, uint32_t capacity);

typedef struct navrt_path_link {
    uint32_t link;    /* index for navrt_asset_link */
    uint32_t step;    /* node path step (exact: the segment) */
    uint32_t segment; /* straight-path segment: points[segment] -> points[segment + 1] */
    uint32_t reverse; /* taken to -> from */
} navrt_path_link;
/* The steps of the path that take a link, in order: writes up to `capacity`, returns how many. */
NAVRT_API uint32_t navrt_path_links(const navrt_navigator* navigator, navrt_path_link* links,
                                    uint32_t capacity);

/* ---- Streamed worlds (navrt::World) --------------------------------------------------------
 *
 * A world baked in tiles (navbake build with "world": {"tile_size": M}): the index
 * (AGENT.tile.world) is loaded once; tiles (AGENT.tile.X_Z.nav) are added and removed at run time,
 * from files or memory, in any order; their seams join neighbouring tiles while both are loaded.
 * navrt_world_find_path is the exact shortest path over the loaded tiles (the whole world's when
 * every tile is loaded); navrt_world_plan_tiles names the tiles a trip crosses, loaded or not, from
 * the index's portal graph (what to stream in ahead of an agent). The same calls serve navmesh
 * worlds (AGENT.navmesh.world: nodes are polygons, paths funnelled across tile borders), volume
 * worlds (AGENT.volume.world: nodes are voxels), Dirichlet worlds (AGENT.dirichlet.world: nodes
 * are waypoints) and POV worlds (AGENT.pov.world: any-angle paths over the loaded tiles' corners),
 * as navrt::World (navrt_world.h).
 *
 * Threads: one world is for one thread at a time (queries keep their scratch). Memory: the handle
 * and every tile's decoded sections go through the allocator of the load options; the seam tables
 * and the search state are in the C++ heap (navrt_world_memory_bytes counts both). */
typedef struct navrt_world navrt_world;

/* Loads a world index (kind WRLD); `options` (allocator, max_memory per asset) also applies to the
 * tiles added later. On failure *out is NULL. */
NAVRT_API navrt_status navrt_world_load(const char* index_path, const navrt_load_options* options,
                                        navrt_world** out, navrt_error* error);
NAVRT_API navrt_status navrt_world_load_memory(const void* data, size_t size,
                                               const navrt_load_options* options, navrt_world** out,
                                               navrt_error* error);
NAVRT_API void navrt_world_free(navrt_world* world);

/* Adds a tile of this world (the bytes are copied). Errors: not a world tile, a tile of another
 * world or bake, a tile already loaded, a corrupt asset. */
NAVRT_API navrt_status navrt_world_add_tile(navrt_world* world, const char* path,
                                            navrt_error* error);
NAVRT_API navrt_status navrt_world_add_tile_memory(navrt_world* world, const void* data,
                                                   size_t size, navrt_error* error);
/* Removes tile (tile_x, tile_z): 1, or 0 when it was not loaded. */
NAVRT_API int navrt_world_remove_tile(navrt_world* world, uint32_t tile_x, uint32_t tile_z);
NAVRT_API int navrt_world_tile_loaded(const navrt_world* world, uint32_t tile_x, uint32_t tile_z);
NAVRT_API uint32_t navrt_world_loaded_count(const navrt_world* world);
/* The tile grid: tiles_x x tiles_z (either pointer may be NULL). */
NAVRT_API void navrt_world_tiles(const navrt_world* world, uint32_t* tiles_x, uint32_t* tiles_z);
/* The tile holding point p: 1, or 0 when p is outside the world's grid. */
NAVRT_API int navrt_world_tile_at(const navrt_world* world, navrt_vec3 p, uint32_t* tile_x,
                                  uint32_t* tile_z);
/* The world grid's XZ rectangle [m]: out[0] min x, out[1] min z, out[2] max x, out[3] max z. */
NAVRT_API void navrt_world_extent(const navrt_world* world, float out[4]);
/* Bytes the index and the loaded tiles hold. */
NAVRT_API size_t navrt_world_memory_bytes(const navrt_world* world);

/* The exact shortest path over the loaded tiles between the cells nearest `from` and `to` (2 m
 * up or down, 2 columns around): FOUND, NONE (the loaded tiles do not connect them),
 * START_OFF_GRAPH / GOAL_OFF_GRAPH (no loaded tile's cell there), INVALID (a null world). */
NAVRT_API navrt_path_status navrt_world_find_path(navrt_world* world, navrt_vec3 from,
                                                  navrt_vec3 to);
/* The last path's points (the centres of its cells, from the start's cell to the goal's): writes
 * up to `capacity`, returns how many there are. */
NAVRT_API uint32_t navrt_world_path(const navrt_world* world, navrt_vec3* points,
                                    uint32_t capacity);
NAVRT_API float navrt_world_path_cost(const navrt_world* world);
/* A step of the last world path that takes a link. */
typedef struct navrt_world_path_link {
    uint32_t segment;        /* points[segment] -> points[segment + 1] of navrt_world_path */
    uint32_t tile_x, tile_z; /* the tile the step starts in */
    uint32_t reverse;        /* taken to -> from (a two-way link's way back) */
    navrt_link
        link; /* from_node / to_node: the tile's nodes, NAVRT_NONE for a link between tiles */
} navrt_world_path_link;
/* The steps of the last path that take links, in order: writes up to `capacity`, returns how
 * many there are. */
NAVRT_API uint32_t navrt_world_path_links(const navrt_world* world, navrt_world_path_link* links,
                                          uint32_t capacity);
NAVRT_API uint32_t navrt_world_expanded(const navrt_world* world);
/* The tiles (tile_z * tiles_x + tile_x) a path from `from` to `to` crosses, in order: writes up to
 * `capacity` into `tiles` and their number into *count (more than `capacity`: call again with room
 * for them all). FOUND or NONE. */
NAVRT_API navrt_path_status navrt_world_plan_tiles(const navrt_world* world, navrt_vec3 from,
                                                   navrt_vec3 to, uint32_t* tiles,
                                                   uint32_t capacity, uint32_t* count);

#ifdef __cplusplus
}
#endif

#endif /* NAVRT_H */
