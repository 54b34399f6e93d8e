// recast_peer: the tiled Recast bake as a process of its own, for the whole-process comparison in
// bench_large.py (wall, CPU, peak memory against navbake's import -> voxelize -> graph navmesh).
// Only built with librecast-dev (like bench_recast); the product never links Recast.
//
//   recast_peer LEVEL.obj [--tile CELLS] [--solo] [--out FILE.bin]
//
// Loads the OBJ the lean way (read line by line: `v` positions and `f` faces, polygons fanned;
// everything else ignored, as RecastDemo's loader does), then bakes it tile by tile as
// RecastDemo's Sample_TileMesh does (Recast 1.5.1, Debian librecast-dev): per tile the triangles
// overlapping it (binned once per tile), a heightfield with a border of radius + 3 cells,
// rcMarkWalkableTriangles, rasterize, the three filters, compact heightfield, erosion, layer
// regions (rcBuildLayerRegions, the "layers" partition, min region 8 x 8), contours, polygons (6
// vertices), detail mesh, dtCreateNavMeshData, added to one multi-tile dtNavMesh. Parameters:
// Recast demo defaults (cell 0.3 x 0.2 m, agent 2.0 / 0.6 / 0.9 m, 45 degrees, edge 12 m / 1.3
// cells, detail 6 cells / 1 cell), tile 64 cells. Single-threaded (Recast has no threading).
// --solo bakes the level as one tile without a border and with watershed regions
// (rcBuildDistanceField, rcBuildRegions; merge 20 x 20), as RecastDemo's Sample_SoloMesh does.
// Prints one JSON line: triangles, tiles, polygons, load and bake milliseconds, peak RSS (KiB).
// --out writes the tiles' Detour data (for a check that something real was built).
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <Recast.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/bench/recast_tiles.h"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Mesh {
    std::vector<float> vertices;
    std::vector<int> triangles;
};

// `v x y z` and `f a b c ...` (a may be a/t/n; negative = relative), polygons fanned.
bool loadObj(const char* path, Mesh& mesh) {
    FILE* file = std::fopen(path, "rb");
    if (file == nullptr) return false;
    char line[4096];
    std::vector<int> face;
    while (std::fgets(line, sizeof(line), file) != nullptr) {
        if (line[0] == 'v' && line[1] == ' ') {
            float x = 0, y = 0, z = 0;
            if (std::sscanf(line + 2, "%f %f %f", &x, &y, &z) == 3)
                mesh.vertices.insert(mesh.vertices.end(), {x, y, z});
        } else if (line[0] == 'f' && line[1] == ' ') {
            face.clear();
            char* p = line + 2;
            while (*p != 0) {
                while (*p == ' ' || *p == '\t') ++p;
                if (*p == 0 || *p == '\n' || *p == '\r') break;
                char* end = nullptr;
                long index = std::strtol(p, &end, 10);
                if (end == p) break;
                const long count = long(mesh.vertices.size() / 3);
                face.push_back(int(index < 0 ? count + index : index - 1));
                p = end;
                while (*p != 0 && *p != ' ' && *p != '\t') ++p;  // skip /t/n
            }
            for (size_t k = 2; k < face.size(); ++k)
                mesh.triangles.insert(mesh.triangles.end(), {face[0], face[k - 1], face[k]});
        }
    }
    std::fclose(file);
    return true;
}

unsigned nextPow2(unsigned v) {
    unsigned p = 1;
    while (p < v) p <<= 1;
    return p;
}
unsigned ilog2(unsigned v) {
    unsigned r = 0;
    while ((1u << (r + 1)) <= v) ++r;
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: recast_peer LEVEL.obj [--tile CELLS] [--solo] [--out FILE.bin]\n");
        return 2;
    }
    int tile_size = 64;
    bool solo = false;
    const char* out_path = nullptr;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--solo") {
            solo = true;
        } else if ((arg == "--tile" || arg == "--out") && i + 1 < argc) {
            if (arg == "--tile") tile_size = std::atoi(argv[i + 1]);
            if (arg == "--out") out_path = argv[i + 1];
            ++i;
        } else {
            std::fprintf(stderr, "recast_peer: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    const auto start = Clock::now();
    Mesh mesh;
    if (!loadObj(argv[1], mesh)) {
        std::fprintf(stderr, "recast_peer: cannot read %s\n", argv[1]);
        return 1;
    }
    const double load_ms = msSince(start);
    const auto bake_start = Clock::now();
    const int nverts = int(mesh.vertices.size() / 3), ntris = int(mesh.triangles.size() / 3);

    rcConfig cfg;
    std::memset(&cfg, 0, sizeof(cfg));
    cfg.cs = 0.3f;
    cfg.ch = 0.2f;
    cfg.walkableSlopeAngle = 45.0f;
    cfg.walkableHeight = int(std::ceil(2.0f / cfg.ch));
    cfg.walkableClimb = int(std::floor(0.9f / cfg.ch));
    cfg.walkableRadius = int(std::ceil(0.6f / cfg.cs));
    cfg.maxEdgeLen = int(12.0f / cfg.cs);
    cfg.maxSimplificationError = 1.3f;
    cfg.minRegionArea = 8 * 8;
    cfg.mergeRegionArea = 20 * 20;
    cfg.maxVertsPerPoly = 6;
    cfg.detailSampleDist = 6.0f * cfg.cs;
    cfg.detailSampleMaxError = 1.0f * cfg.ch;
    float bmin[3], bmax[3];
    rcCalcBounds(mesh.vertices.data(), nverts, bmin, bmax);
    int gw = 0, gh = 0;
    rcCalcGridSize(bmin, bmax, cfg.cs, &gw, &gh);
    if (solo) tile_size = std::max(gw, gh);
    cfg.tileSize = tile_size;
    cfg.borderSize = solo ? 0 : cfg.walkableRadius + 3;
    cfg.width = cfg.tileSize + 2 * cfg.borderSize;
    cfg.height = cfg.tileSize + 2 * cfg.borderSize;
    const int tw = (gw + tile_size - 1) / tile_size, th = (gh + tile_size - 1) / tile_size;
    const float tcs = float(tile_size) * cfg.cs;

    // Triangles binned by the tiles (with borders) their XZ bounds overlap.
    const float pad = float(cfg.borderSize) * cfg.cs;
    const std::vector<std::vector<int>> bins =
        binTriangles(mesh.vertices.data(), mesh.triangles.data(), ntris, bmin, tcs, pad, tw, th);
    dtNavMesh* navmesh = dtAllocNavMesh();
    dtNavMeshParams nm;
    std::memset(&nm, 0, sizeof(nm));
    rcVcopy(nm.orig, bmin);
    nm.tileWidth = tcs;
    nm.tileHeight = tcs;
    const unsigned tile_bits = std::min(ilog2(nextPow2(unsigned(tw * th))), 14u);
    nm.maxTiles = 1 << tile_bits;
    nm.maxPolys = 1 << (22 - tile_bits);
    if (dtStatusFailed(navmesh->init(&nm))) {
        std::fprintf(stderr, "recast_peer: dtNavMesh::init failed\n");
        return 1;
    }
    rcContext ctx(false);
    long polys = 0, tiles = 0;
    std::vector<int> tile_tris;
    std::vector<unsigned char> areas;
    FILE* out = out_path != nullptr ? std::fopen(out_path, "wb") : nullptr;
    for (int ty = 0; ty < th; ++ty) {
        for (int tx = 0; tx < tw; ++tx) {
            const std::vector<int>& bin = bins[size_t(ty) * size_t(tw) + size_t(tx)];
            if (bin.empty()) continue;
            const rcConfig tc = tileConfig(cfg, bmin, bmax, tx, ty);
            rcHeightfield* solid = rcAllocHeightfield();
            rcCreateHeightfield(&ctx, *solid, tc.width, tc.height, tc.bmin, tc.bmax, tc.cs, tc.ch);
            tile_tris.clear();
            for (int t : bin)
                for (int k = 0; k < 3; ++k) tile_tris.push_back(mesh.triangles[size_t(3 * t + k)]);
            areas.assign(bin.size(), 0);
            rcMarkWalkableTriangles(&ctx, tc.walkableSlopeAngle, mesh.vertices.data(), nverts,
                                    tile_tris.data(), int(bin.size()), areas.data());
            rcRasterizeTriangles(&ctx, mesh.vertices.data(), nverts, tile_tris.data(), areas.data(),
                                 int(bin.size()), *solid, tc.walkableClimb);
            rcFilterLowHangingWalkableObstacles(&ctx, tc.walkableClimb, *solid);
            rcFilterLedgeSpans(&ctx, tc.walkableHeight, tc.walkableClimb, *solid);
            rcFilterWalkableLowHeightSpans(&ctx, tc.walkableHeight, *solid);
            rcCompactHeightfield* chf = rcAllocCompactHeightfield();
            rcBuildCompactHeightfield(&ctx, tc.walkableHeight, tc.walkableClimb, *solid, *chf);
            rcFreeHeightField(solid);
            rcErodeWalkableArea(&ctx, tc.walkableRadius, *chf);
            if (solo) {
                rcBuildDistanceField(&ctx, *chf);
                rcBuildRegions(&ctx, *chf, 0, tc.minRegionArea, tc.mergeRegionArea);
            } else {
                rcBuildLayerRegions(&ctx, *chf, tc.borderSize, tc.minRegionArea);
            }
            rcContourSet* cset = rcAllocContourSet();
            rcBuildContours(&ctx, *chf, tc.maxSimplificationError, tc.maxEdgeLen, *cset);
            rcPolyMesh* pmesh = rcAllocPolyMesh();
            rcBuildPolyMesh(&ctx, *cset, tc.maxVertsPerPoly, *pmesh);
            rcFreeContourSet(cset);
            rcPolyMeshDetail* dmesh = rcAllocPolyMeshDetail();
            rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, tc.detailSampleDist, tc.detailSampleMaxError,
                                  *dmesh);
            rcFreeCompactHeightfield(chf);
            if (pmesh->npolys > 0) {
                std::vector<unsigned short> flags(size_t(pmesh->npolys), 1);
                for (int i = 0; i < pmesh->npolys; ++i)
                    if (pmesh->areas[i] == RC_WALKABLE_AREA) pmesh->areas[i] = 0;
                dtNavMeshCreateParams params =
                    detourParams(*pmesh, *dmesh, tc, flags.data(), tx, ty);
                unsigned char* data = nullptr;
                int size = 0;
                if (dtCreateNavMeshData(&params, &data, &size)) {
                    if (out != nullptr) std::fwrite(data, 1, size_t(size), out);
                    if (dtStatusFailed(navmesh->addTile(data, size, DT_TILE_FREE_DATA, 0, nullptr)))
                        dtFree(data);
                    polys += pmesh->npolys;
                    ++tiles;
                }
            }
            rcFreePolyMesh(pmesh);
            rcFreePolyMeshDetail(dmesh);
        }
    }
    if (out != nullptr) std::fclose(out);
    const double bake_ms = msSince(bake_start);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf(
        "{\"triangles\": %d, \"tiles\": %ld, \"polygons\": %ld, \"load_ms\": %.1f, "
        "\"bake_ms\": %.1f, \"peak_rss_kib\": %ld}\n",
        ntris, tiles, polys, load_ms, bake_ms, usage.ru_maxrss);
    dtFreeNavMesh(navmesh);
    return 0;
}
