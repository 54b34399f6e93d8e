// Shared by the Recast peer programs (bench_recast, recast_peer): the Detour tile parameters of a
// Recast poly mesh, and triangles binned by the tiles they overlap (RecastDemo's Sample_TileMesh
// selects each tile's triangles with its chunky mesh; a plain per-tile list does the same here).
#pragma once

#include <DetourNavMeshBuilder.h>
#include <Recast.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

// dtCreateNavMeshData's input for one tile (tx, ty) of `pmesh` (flags: one per polygon).
inline dtNavMeshCreateParams detourParams(const rcPolyMesh& pmesh, const rcPolyMeshDetail& dmesh,
                                          const rcConfig& cfg, const unsigned short* flags,
                                          int tx = 0, int ty = 0) {
    dtNavMeshCreateParams params;
    std::memset(&params, 0, sizeof(params));
    params.verts = pmesh.verts;
    params.vertCount = pmesh.nverts;
    params.polys = pmesh.polys;
    params.polyAreas = pmesh.areas;
    params.polyFlags = flags;
    params.polyCount = pmesh.npolys;
    params.nvp = pmesh.nvp;
    params.detailMeshes = dmesh.meshes;
    params.detailVerts = dmesh.verts;
    params.detailVertsCount = dmesh.nverts;
    params.detailTris = dmesh.tris;
    params.detailTriCount = dmesh.ntris;
    params.walkableHeight = float(cfg.walkableHeight) * cfg.ch;
    params.walkableRadius = float(cfg.walkableRadius) * cfg.cs;
    params.walkableClimb = float(cfg.walkableClimb) * cfg.ch;
    params.tileX = tx;
    params.tileY = ty;
    rcVcopy(params.bmin, pmesh.bmin);
    rcVcopy(params.bmax, pmesh.bmax);
    params.cs = cfg.cs;
    params.ch = cfg.ch;
    params.buildBvTree = true;
    return params;
}

// The configuration of tile (tx, ty) of a level bounded by bmin / bmax: its box grown by the
// border (cfg.tileSize and cfg.borderSize in cells).
inline rcConfig tileConfig(const rcConfig& cfg, const float bmin[3], const float bmax[3], int tx,
                           int ty) {
    const float tile = float(cfg.tileSize) * cfg.cs, pad = float(cfg.borderSize) * cfg.cs;
    rcConfig tc = cfg;
    tc.bmin[0] = bmin[0] + float(tx) * tile - pad;
    tc.bmin[1] = bmin[1];
    tc.bmin[2] = bmin[2] + float(ty) * tile - pad;
    tc.bmax[0] = bmin[0] + float(tx + 1) * tile + pad;
    tc.bmax[1] = bmax[1];
    tc.bmax[2] = bmin[2] + float(ty + 1) * tile + pad;
    return tc;
}

// Per tile (tw x th tiles of `tile` metres from bmin, row-major), the triangles whose XZ bounds
// overlap it grown by `pad` metres.
inline std::vector<std::vector<int>> binTriangles(const float* vertices, const int* triangles,
                                                  int triangle_count, const float bmin[3],
                                                  float tile, float pad, int tw, int th) {
    std::vector<std::vector<int>> bins(size_t(tw) * size_t(th));
    for (int t = 0; t < triangle_count; ++t) {
        float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
        for (int k = 0; k < 3; ++k) {
            const float* v = &vertices[size_t(triangles[3 * t + k]) * 3];
            lo[0] = std::min(lo[0], v[0]), hi[0] = std::max(hi[0], v[0]);
            lo[1] = std::min(lo[1], v[2]), hi[1] = std::max(hi[1], v[2]);
        }
        const int x0 = std::max(0, int(std::floor((lo[0] - pad - bmin[0]) / tile)));
        const int x1 = std::min(tw - 1, int(std::floor((hi[0] + pad - bmin[0]) / tile)));
        const int z0 = std::max(0, int(std::floor((lo[1] - pad - bmin[2]) / tile)));
        const int z1 = std::min(th - 1, int(std::floor((hi[1] + pad - bmin[2]) / tile)));
        for (int z = z0; z <= z1; ++z)
            for (int x = x0; x <= x1; ++x) bins[size_t(z) * size_t(tw) + size_t(x)].push_back(t);
    }
    return bins;
}
