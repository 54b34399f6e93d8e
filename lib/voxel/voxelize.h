// Stage 2: voxelization. Rasterizes the imported triangle soup (geo::Geometry) into a span
// heightfield (VoxelGrid) and marks the top faces an agent can stand on: slope and area rules,
// then Recast-style filters (low obstacles, ledges, low ceilings) and erosion by the agent radius.
// The result is byte-identical for any thread count. Rules and methods: see voxelize.cpp.
#pragma once

#include <cstdint>

#include "../common/context.h"
#include "../common/result.h"
#include "../geometry/geometry.h"
#include "voxel_grid.h"

namespace nav::vox {

struct VoxelizeParams {
    float cell_size = 0.3f;    // [Units: m] XZ size of a column, > 0
    float cell_height = 0.2f;  // [Units: m] Y size of a cell, > 0
    AgentParams agent;
    int threads = 0;  // worker threads (the caller's included); 0 = all cores
};

inline constexpr uint64_t kMaxColumns = uint64_t(1) << 28;  // size_x * size_z limit (FORMAT.md)
inline constexpr uint32_t kMaxCellsY = 65535;                // size_y limit (u16 span heights)
inline constexpr int kMaxThreads = 1024;

// The agent's dimensions in cells, as voxelize uses them (Recast's rounding): height rounded up,
// climb rounded down (both in cell heights), radius rounded up (in cell sizes). Ratios within
// 1e-4 of a whole number count as that number, so 0.6 m / 0.3 m is 2 cells, not 3.
struct AgentCells {
    int height = 0;
    int climb = 0;
    int radius = 0;
};
AgentCells agentCells(const AgentParams& agent, float cell_size, float cell_height);

// Checks every field and reports all bad ones in one ErrorKind::usage error.
Status checkParams(const VoxelizeParams& params);

// Voxelizes the geometry. Errors: bad parameters or a grid too large for them (usage), empty or
// inconsistent geometry (bad_input), context.cancelled() (cancelled), out of memory (internal).
Result<VoxelGrid> voxelize(const geo::Geometry& geometry, const VoxelizeParams& params,
                           Context& context);

}  // namespace nav::vox
