// Stage 2: voxelization. Rasterizes the imported triangle soup (geometry::Geometry) into a span
// heightfield (VoxelGrid) and marks the top faces an agent can stand on: slope and area rules,
// then Recast-style filters (low obstacles, ledges, low ceilings) and erosion by the agent radius.
// The result is byte-identical for any thread count. Rules and methods: see voxelize.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/geometry.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::voxel {

// A modifier volume (designers' control): a box, or a convex hull within it, whose walkable
// surface (a span's top, at its column's centre, inside) gets another area, a cost factor, or no
// walking at all, for every agent or some of them.
struct ModifierVolume {
    std::string name;                       // for messages: "level.json: $.volumes[2]"
    geometry::Bounds box;                   // [Units: m]
    std::vector<geometry::Plane> planes;    // a convex hull inside the box (empty = the box)
    std::string area;                       // the area the surface inside becomes ("" = keep)
    float cost_factor = 1;                  // multiplies the cost of the surface inside (> 0)
    bool forbid = false;                    // the surface inside is not walkable
    std::vector<std::string> agents;        // the agents it applies to (empty = every agent)
    std::vector<std::string> walkable_for;  // not walkable for any agent but these (empty: no
                                            // such rule): a bridge only the light agents cross
    bool operator==(const ModifierVolume&) const = default;
    bool contains(double x, double y, double z) const {
        return box.contains(x, y, z) && geometry::insidePlanes(planes, x, y, z);
    }
};

struct VoxelizeParams {
    float cell_size = 0.3f;    // [Units: m] XZ size of a column, > 0
    float cell_height = 0.2f;  // [Units: m] Y size of a cell, > 0
    AgentParams agent;
    // Bake bounds [Units: m]: when given, only the surface inside one of these boxes is walkable
    // (a span's top, at its column's centre) and geometry farther than the agent's reach outside
    // all of them is not voxelized at all (triangles are clipped to the boxes' union grown by the
    // agent's radius + 2 cells and height + 2 cells, so filters and erosion near a bound see the
    // geometry beside it). Empty: everything is baked.
    std::vector<geometry::Bounds> bounds;
    // This agent's view of the level's areas (names from the area table): costs that replace the
    // table's, and the areas it may walk on (empty = every walkable area; the others' spans are
    // left unwalkable for it: an ogre keeps out of water, a boat only swims).
    std::vector<std::pair<std::string, float>> area_costs;
    std::vector<std::string> area_mask;
    // Where area_mask and area_costs were given, for messages about names the level lacks
    // ("level.json: $.agents[1].area_mask" -> "level.json: $.agents[1].area_mask[0]: ...",
    // "--area-cost" -> "--area-cost.lava: ..."); not in the key.
    std::string area_mask_where = "area_mask", area_costs_where = "area_costs";
    // Modifier volumes, applied in order after the walkable surface is found (and after the
    // bounds): a later volume wins where they overlap. Cost factors add derived areas to the
    // grid's table ("water x2"); area costs and the mask apply after the volumes.
    std::vector<ModifierVolume> volumes;
    // The agent profile's name: volumes naming agents (agents, walkable_for) apply by it; "" = an
    // unnamed agent, which volumes naming agents leave alone (walkable_for: forbid it).
    std::string agent_name;
    int threads = 0;  // worker threads (the caller's included); 0 = all cores
    // [Units: cells] A level in the strips layout wider than this and a half is voxelized a block
    // of this many columns at a time (memory bounded by the block, not the level's width; the
    // same grid). >= 16; not in the key (tests make it small).
    uint32_t column_block = 1024;
};

inline constexpr uint64_t kMaxColumns = uint64_t(1) << 28;  // size_x * size_z limit (FORMAT.md)
inline constexpr uint32_t kMaxCellsY = 65535;               // size_y limit (u16 span heights)

// The agent's dimensions in cells, as voxelize uses them (Recast's rounding): height rounded up,
// climb rounded down (both in cell heights), radius rounded up (in cell sizes). Ratios within
// 1e-4 of a whole number count as that number, so 0.6 m / 0.3 m is 2 cells, not 3.
struct AgentCells {
    int height = 0;
    int climb = 0;
    int radius = 0;
};
AgentCells agentCells(const AgentParams& agent, float cell_size, float cell_height);

// Every bad field, named cell_size, cell_height, agent_height, agent_radius, agent_climb,
// max_slope, threads, bounds[i] (finite, min < max on every axis), area_costs.NAME (> 0),
// area_mask (names given once); also agents the grid cannot
// represent (lower than one cell height, or more cells than the span heights hold).
ParamIssues checkVoxelizeParams(const VoxelizeParams& params);
// The same as one ErrorKind::usage error naming every bad field.
Status checkParams(const VoxelizeParams& params);

// Voxelizes the geometry. Errors: bad parameters or a grid too large for them (usage), empty or
// inconsistent geometry, or bounds that hold none of it (bad_input), context.cancelled()
// (cancelled), out of memory (internal), an area name in area_costs or area_mask that the level
// does not have (bad_input, listing its areas).
struct VoxelizeCounts {
    uint64_t outside_bounds = 0;       // walkable spans the bounds took away
    uint64_t masked = 0;               // walkable spans of areas outside area_mask
    std::vector<uint64_t> in_volumes;  // walkable spans each volume changed
    uint32_t column_blocks = 1;        // blocks of columns voxelized one after another
};
Result<VoxelGrid> voxelize(const geometry::Geometry& geometry, const VoxelizeParams& params,
                           Context& context, VoxelizeCounts* counts);
// The parameters voxelize applies to this geometry: the bounds and volumes of its scene markers
// added (scene volumes first, so the config's, given later, win where they overlap), then the
// volumes reduced to those that apply to params.agent_name, walkable_for turned into forbid.
// VoxelizeCounts::in_volumes counts these volumes.
VoxelizeParams effectiveParams(const geometry::Geometry& geometry, const VoxelizeParams& params);
Result<VoxelGrid> voxelize(const geometry::Geometry& geometry, const VoxelizeParams& params,
                           Context& context);

// voxelize, written straight to a .vox file as rows are finished: the grid's spans are never all
// in memory (the peak is the geometry and a window of row bands however large the level). The
// file's bytes equal saveVoxels of voxelize's grid with that source name. Returns the grid's
// header (no spans or column offsets) and its statistics.
struct VoxelizedFile {
    VoxelGrid header;
    VoxelStats stats;
};
Result<VoxelizedFile> voxelizeToFile(const geometry::Geometry& geometry,
                                     const VoxelizeParams& params, Context& context,
                                     VoxelizeCounts* counts, const std::filesystem::path& path,
                                     const std::string& source_name);
// The same for a geometry loaded with its triangles left stored (geometry::loadGeometry with
// StoredTriangles; its own triangle arrays empty): they are decoded a block at a time as they are
// visited, never whole, so a large level's 13 bytes a triangle are not held. Same bytes as the
// geometry with its triangles. Not for bake bounds (effectiveParams(...).bounds non-empty:
// clipping needs the triangles whole; an internal error).
Result<VoxelizedFile> voxelizeToFile(const geometry::Geometry& geometry,
                                     const geometry::StoredTriangles* stored,
                                     const VoxelizeParams& params, Context& context,
                                     VoxelizeCounts* counts, const std::filesystem::path& path,
                                     const std::string& source_name);

// Modifier volumes as a level config or a volumes file writes them: an array of {"min": [x, y,
// z], "max": [...]} boxes or {"points": [[x, y, z], ...]} convex hulls, each with "area": NAME,
// "cost_factor": F, "forbid": B, "agents": [NAMES], "walkable_for": [NAMES], at JSON path `path`
// of `file`. Each volume is named "FILE: PATH[i]". Errors name the JSON path.
Status parseVolumes(const nlohmann::json& array, const std::string& path,
                    const std::filesystem::path& file, std::vector<ModifierVolume>& out);
// A volumes file: {"volumes": [...]}, for `navbake voxelize --volumes`.
Result<std::vector<ModifierVolume>> loadVolumesFile(const std::filesystem::path& file);

// The voxelize stage (lib/common/stage.h): .geo -> .vox.
struct VoxelizeStage {
    static constexpr std::string_view kName = "voxelize";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    using Params = VoxelizeParams;
    struct Inputs {
        std::filesystem::path geometry;  // .geo
        std::string source_name;  // base name of the level file, stored in the grid (may be empty)
    };
    static ParamIssues check(const Params& params) { return checkVoxelizeParams(params); }
    static void describe(const Params& params, StageKey& key);
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: columns, spans, walkable_spans, walkable_columns. Warns when the agent fits nowhere.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::voxel
