// Peer benchmark: navbake's navigation mesh against Recast/Detour 1.5.1 (Debian librecast-dev) on
// the same triangles and the same parameters. Only this program links Recast/Detour; the product
// never does. Built when CMake finds the headers and libraries (tests/CMakeLists.txt); `make bench`
// installs librecast-dev first (target bench-setup) and runs it through run_benchmarks.sh.
//
//   bench_recast [SHARED_DATA [SAMPLE_LEVELS [OUT.json]]] [--runs N] [--pairs N] [--seed S]
//   defaults:     ../shared/data  sample_levels  bench_recast.json    7          10000     20240611
//
// Levels: SHARED_DATA/meshes/*.obj (dungeon, nav_test, undulating) and SAMPLE_LEVELS/
// indoor_two_floors.glb and terrain.obj. Each file is imported once with
// nav::importer::importScene (default tag rules); both sides then start from that triangle soup.
//
// Parameters (Recast demo defaults, the same on both sides): cell size 0.3 m, cell height 0.2 m,
// agent height 2.0 m, radius 0.6 m, max climb 0.9 m, max slope 45 deg, region min size 8 (area
// 64 cells), region merge size 20 (400 cells), edge max length 12 m (40 cells), edge max error 1.3
// cells, 6 vertices per polygon, detail sample distance 6 cells (1.8 m), detail max error 1 cell
// height (0.2 m), watershed partition, one tile (Recast's "solo" build, border size 0). The agent
// sizes in cells come from nav::voxel::agentCells for both sides (height 10, climb 4, radius 2), so
// float rounding of 0.6 / 0.3 etc. cannot make them differ.
//
// WHAT IS MEASURED
//
// 1. Bake time, median over N runs (default 7) of each side, interleaved in one process: run i
//    does Recast, ours (all cores), ours (1 thread) in a rotating order so that neither side
//    always runs on a warm or a cold cache.
//    - Recast: the solo pipeline of the demo ("Step 1..7") written here against the API:
//      rcCalcBounds, rcCalcGridSize, rcCreateHeightfield, area marking (rcMarkWalkableTriangles,
//      then our tags: see below), rcRasterizeTriangles (flagMergeThr = walkable climb),
//      rcFilterLowHangingWalkableObstacles, rcFilterLedgeSpans, rcFilterWalkableLowHeightSpans,
//      rcBuildCompactHeightfield, rcErodeWalkableArea, rcBuildDistanceField, rcBuildRegions,
//      rcBuildContours (RC_CONTOUR_TESS_WALL_EDGES), rcBuildPolyMesh, rcBuildPolyMeshDetail,
//      dtCreateNavMeshData (with BV tree) and dtNavMesh::init. Intermediate structures are freed
//      inside the timed region as the demo does; freeing the final dtNavMesh is not timed.
//      rcContext(false): no logging or timers. Single-threaded (Recast has no threading).
//    - ours: nav::voxel::voxelize (threads = 0, all cores) then nav::graph::buildNavmeshGraph
//      (NavmeshParams above, threads = 0): the mesh, its polygon graph, components and the XZ grid
//      index used by locateOnMesh. The "ours 1 thr" column repeats it with threads = 1 for a
//      single-core comparison (this machine: see "hardware threads" at the end). Freeing the
//      results is not timed. The ratio column is ours (all cores) / Recast.
//    Not timed on either side: import, the int/float copies Recast's API needs, saving and
//    loading our .nav (needed for navrt queries; Detour uses its in-memory mesh).
// 2. Polygon and vertex counts: rcPolyMesh npolys / nverts vs NavMesh polyCount / vertexCount
//    (both meshes share vertices between polygons), and in the JSON the XZ area the polygons
//    cover (m^2, total and per area type), which shows how much walkable surface each side kept.
// 3. Queries: P (default 10,000) start/goal pairs drawn with dtNavMeshQuery::findRandomPoint on
//    Recast's mesh (polygons weighted by area) with std::mt19937(seed) as frand (its 24 high bits
//    / 2^24, so the sequence is the same on every platform); the RNG is reseeded per level. For
//    each pair, timed separately (the order of the two sides alternates between pairs):
//    - Detour: findNearestPoly for start and goal (half extents 0.5, 1.0, 0.5 m) + findPath
//      (node pool 65535, path buffer 65535 polygons) + findStraightPath (no options) from the
//      nearest point to the nearest point + its 3D length. Found = findPath succeeded without
//      DT_PARTIAL_RESULT (a partial path to the closest reachable polygon counts as not found).
//      dtQueryFilter: every polygon included, area costs = our area table's costs (water x3 ...).
//    - ours: navrt::locateOnMesh for start and goal (horizontal tolerance 0.5 m, vertical
//      tolerance 1.0 m: the same box as Detour's extents) + PathQuery::findPathBetween (no
//      expansion budget) + smoothedLength (the funnel straight path, 3D length).
//    Reported: both found (%), disagreements (%) = pairs one side solves and the other does not,
//    split into detour_only / ours_only, and ours_locate_failed (pairs where our locate found no
//    polygon for start or goal; these are a subset of detour_only when Detour solved the pair;
//    the JSON splits the failed points into height_mismatch, a polygon within 0.5 m whose floor
//    is more than 1 m away, and no_polygon_within_tolerance);
//    our length / Detour's length over the pairs both solved (mean, max, min; pairs where
//    Detour's length < 1 mm are left out of the ratio), mean microseconds per query for both.
//    The first pairs of each kind of disagreement go into the JSON with coordinates, polygons
//    and components, to explain them.
//
// Output: a Markdown table on stdout (one row per level) and all figures as JSON (OUT.json).
//
// STAGES THAT CANNOT BE MATCHED EXACTLY (our own implementation follows Recast's methods, but is
// not a port, so the meshes differ in detail; these are the known structural differences):
//  - Grid size: Recast rounds (bmax - bmin) / cs to the nearest cell, we round up; our grid has
//    one extra cell of room below the lowest vertex (same quantization, shifted origin).
//  - Rasterization: Recast clips each triangle to each column it overlaps and floors/ceils the
//    Y range; columns a triangle only touches on a border may get spans. We clip exactly and keep
//    only overlaps of positive area (positive length for vertical faces), and a face on a column
//    border belongs to the cell behind it. Thin walls and floor edges can differ by a cell.
//  - Obstacles: our obstacle-tagged triangles (area 0) are RC_NULL_AREA for Recast, as asked;
//    but Recast merges a span's area within flagMergeThr (climb) of its top by taking the larger
//    area id, so an obstacle surface within climb above a walkable one loses to it and becomes
//    walkable; rcFilterLowHangingWalkableObstacles also lifts obstacle spans (it cannot tell an
//    obstacle from a steep face). In ours an obstacle surface near the top always wins and
//    obstacles are never made walkable. Detour has no separate "obstacle" notion otherwise.
//  - Area ids: Recast marks walkable-slope triangles RC_WALKABLE_AREA (63); we then give them
//    our area id (1 ground, 2+ water, mud ...), so both meshes carry the same ids and costs.
//  - Erosion: Recast erodes the compact heightfield (rcErodeWalkableArea), we erode inside
//    voxelize before the compact field is built; both use the 2/3 chamfer distance and the same
//    threshold, but the span connectivity they see can differ where the filters above differ.
//  - Regions, contours, polygons, detail mesh: the same algorithms re-implemented; watershed
//    flood order, region merging, hole bridging, vertex removal at region borders and the
//    detail-sample selection differ in detail, hence different polygon and vertex counts.
//  - Bake output: Detour's tile (BV tree, links, 16-bit quantized vertices) vs our polygon graph
//    (centroid nodes, portal edges, components, grid index). Neither is serialised in the timing.
//  - Threads: Recast is single-threaded; ours uses all cores (threads = 0) in the ratio column
//    and one core in the "ours 1 thr" column.
//  - Queries: Detour finds polygons through its BV tree and a box query, we through a grid
//    index and a distance tolerance. Random points lie on Recast's polygons, so Detour always
//    locates them while our locate can miss where our mesh does not cover Recast's (eroded
//    borders, obstacles handled differently, small regions one side dropped, detail heights
//    more than 1 m apart). Both A* use Detour's cost (distance between successive portal
//    midpoints x area cost), then a funnel straight path; neither is the Euclidean shortest
//    path. Detour fixes a polygon's search position at the midpoint of the portal it was first
//    reached through (and may reopen closed polygons); ours moves it to the portal of the
//    improving parent (closed polygons stay closed); heuristic scale 0.999 vs the smallest area
//    cost x a safety factor. So corridors around obstacles can differ even on one and the same
//    mesh: fed Recast's own polygons (a throwaway check, not part of this file) our runtime
//    agreed on every pair's reachability with length ratio mean 0.999..1.001 per level, but
//    single pairs ranged from 0.47 to 1.91. Read max / min as corridor-choice outliers and the
//    mean as the quality figure.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <DetourCommon.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourNavMeshQuery.h>
#include <DetourStatus.h>
#include <Recast.h>
#include <nlohmann/json.hpp>

#include "formats/layouts.h"
#include "lib/common/context.h"
#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/navmesh/navmesh.h"
#include "lib/runtime/navrt.h"
#include "lib/runtime/navrt_exact.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxelize.h"
#include "tests/bench/recast_tiles.h"

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

// ---- shared parameters ----------------------------------------------------------------------
struct Settings {
    float cell_size = 0.3f;
    float cell_height = 0.2f;
    nav::voxel::AgentParams agent;     // 2.0 / 0.6 / 0.9 / 45 deg
    nav::navmesh::NavmeshParams mesh;  // demo defaults, watershed, one tile
    float horizontal_tolerance = 0.5f;
    float vertical_tolerance = 1.0f;
    int runs = 7;
    int pairs = 10000;
    uint32_t seed = 20240611u;
    int tile = 0;  // large levels (--large): Recast tiled (this many cells, layers), ours too
};

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
double usSince(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}
double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// ---- Recast side --------------------------------------------------------------------------------
struct RecastInput {
    std::vector<float> vertices;
    std::vector<int> triangles;
    std::vector<uint8_t> triangle_areas;  // our area ids
    std::vector<uint8_t> area_blocked;    // per our area id: obstacle or not walkable
    int vertex_count = 0;
    int triangle_count = 0;
};

struct HeightfieldDeleter {
    void operator()(rcHeightfield* p) const { rcFreeHeightField(p); }
};
struct CompactDeleter {
    void operator()(rcCompactHeightfield* p) const { rcFreeCompactHeightfield(p); }
};
struct ContourDeleter {
    void operator()(rcContourSet* p) const { rcFreeContourSet(p); }
};
struct PolyMeshDeleter {
    void operator()(rcPolyMesh* p) const { rcFreePolyMesh(p); }
};
struct DetailDeleter {
    void operator()(rcPolyMeshDetail* p) const { rcFreePolyMeshDetail(p); }
};
struct NavMeshDeleter {
    void operator()(dtNavMesh* p) const { dtFreeNavMesh(p); }
};
struct QueryDeleter {
    void operator()(dtNavMeshQuery* p) const { dtFreeNavMeshQuery(p); }
};
using NavMeshPtr = std::unique_ptr<dtNavMesh, NavMeshDeleter>;

struct RecastBake {
    NavMeshPtr navmesh;
    int polys = 0;
    int vertices = 0;
    int detail_triangles = 0;
    int grid_width = 0, grid_height = 0;
    std::string error;  // empty on success
};

rcConfig recastConfig(const Settings& s) {
    const nav::voxel::AgentCells cells =
        nav::voxel::agentCells(s.agent, s.cell_size, s.cell_height);
    rcConfig cfg;
    std::memset(&cfg, 0, sizeof(cfg));
    cfg.cs = s.cell_size;
    cfg.ch = s.cell_height;
    cfg.walkableSlopeAngle = s.agent.max_slope_deg;
    cfg.walkableHeight = cells.height;
    cfg.walkableClimb = cells.climb;
    cfg.walkableRadius = cells.radius;
    cfg.maxEdgeLen = int(s.mesh.edge_max_len / s.cell_size);
    cfg.maxSimplificationError = s.mesh.edge_max_error;
    cfg.minRegionArea = int(s.mesh.region_min_size * s.mesh.region_min_size);
    cfg.mergeRegionArea = int(s.mesh.region_merge_size * s.mesh.region_merge_size);
    cfg.maxVertsPerPoly = s.mesh.max_verts_per_poly;
    cfg.detailSampleDist =
        s.mesh.detail_sample_dist < 0.9f ? 0 : s.cell_size * s.mesh.detail_sample_dist;
    cfg.detailSampleMaxError = s.cell_height * s.mesh.detail_max_error;
    cfg.borderSize = 0;  // solo build (bakeRecastTiled sets its border)
    cfg.tileSize = s.tile;
    return cfg;
}

// The whole solo pipeline, from the triangle soup to a dtNavMesh.
RecastBake bakeRecast(const RecastInput& in, rcConfig cfg) {
    RecastBake out;
    rcContext ctx(false);
    auto fail = [&](const char* what) {
        out.error = what;
        return std::move(out);
    };
    // Step 1: grid.
    rcCalcBounds(in.vertices.data(), in.vertex_count, cfg.bmin, cfg.bmax);
    rcCalcGridSize(cfg.bmin, cfg.bmax, cfg.cs, &cfg.width, &cfg.height);
    out.grid_width = cfg.width;
    out.grid_height = cfg.height;
    // Step 2: rasterize. Walkable slope -> RC_WALKABLE_AREA, then our tags: obstacle and
    // non-walkable area types -> RC_NULL_AREA, walkable ones keep our area id.
    std::unique_ptr<rcHeightfield, HeightfieldDeleter> solid(rcAllocHeightfield());
    if (!solid || !rcCreateHeightfield(&ctx, *solid, cfg.width, cfg.height, cfg.bmin, cfg.bmax,
                                       cfg.cs, cfg.ch))
        return fail("rcCreateHeightfield");
    std::vector<unsigned char> areas(size_t(in.triangle_count), RC_NULL_AREA);
    rcMarkWalkableTriangles(&ctx, cfg.walkableSlopeAngle, in.vertices.data(), in.vertex_count,
                            in.triangles.data(), in.triangle_count, areas.data());
    for (int t = 0; t < in.triangle_count; ++t) {
        const uint8_t ours = in.triangle_areas[size_t(t)];
        if (in.area_blocked[ours])
            areas[size_t(t)] = RC_NULL_AREA;
        else if (areas[size_t(t)] == RC_WALKABLE_AREA)
            areas[size_t(t)] = ours;
    }
    if (!rcRasterizeTriangles(&ctx, in.vertices.data(), in.vertex_count, in.triangles.data(),
                              areas.data(), in.triangle_count, *solid, cfg.walkableClimb))
        return fail("rcRasterizeTriangles");
    // Step 3: filters.
    rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *solid);
    rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid);
    rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *solid);
    // Step 4: compact heightfield, erosion, regions (watershed).
    std::unique_ptr<rcCompactHeightfield, CompactDeleter> chf(rcAllocCompactHeightfield());
    if (!chf ||
        !rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid, *chf))
        return fail("rcBuildCompactHeightfield");
    solid.reset();
    if (!rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf)) return fail("rcErodeWalkableArea");
    if (!rcBuildDistanceField(&ctx, *chf)) return fail("rcBuildDistanceField");
    if (!rcBuildRegions(&ctx, *chf, cfg.borderSize, cfg.minRegionArea, cfg.mergeRegionArea))
        return fail("rcBuildRegions");
    // Step 5: contours.
    std::unique_ptr<rcContourSet, ContourDeleter> cset(rcAllocContourSet());
    if (!cset || !rcBuildContours(&ctx, *chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *cset,
                                  RC_CONTOUR_TESS_WALL_EDGES))
        return fail("rcBuildContours");
    // Step 6: polygons.
    std::unique_ptr<rcPolyMesh, PolyMeshDeleter> pmesh(rcAllocPolyMesh());
    if (!pmesh || !rcBuildPolyMesh(&ctx, *cset, cfg.maxVertsPerPoly, *pmesh))
        return fail("rcBuildPolyMesh");
    cset.reset();
    // Step 7: detail mesh.
    std::unique_ptr<rcPolyMeshDetail, DetailDeleter> dmesh(rcAllocPolyMeshDetail());
    if (!dmesh || !rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, cfg.detailSampleDist,
                                         cfg.detailSampleMaxError, *dmesh))
        return fail("rcBuildPolyMeshDetail");
    chf.reset();
    out.polys = pmesh->npolys;
    out.vertices = pmesh->nverts;
    out.detail_triangles = dmesh->ntris;
    if (pmesh->npolys == 0) return fail("empty mesh (no polygons)");
    // Step 8: Detour data and navmesh.
    std::vector<unsigned short> flags(size_t(pmesh->npolys), 1);
    dtNavMeshCreateParams params = detourParams(*pmesh, *dmesh, cfg, flags.data());
    unsigned char* data = nullptr;
    int data_size = 0;
    if (!dtCreateNavMeshData(&params, &data, &data_size)) return fail("dtCreateNavMeshData");
    NavMeshPtr navmesh(dtAllocNavMesh());
    if (!navmesh) {
        dtFree(data);
        return fail("dtAllocNavMesh");
    }
    if (dtStatusFailed(navmesh->init(data, data_size, DT_TILE_FREE_DATA))) {
        dtFree(data);
        return fail("dtNavMesh::init");
    }
    out.navmesh = std::move(navmesh);
    return out;
}

// Recast's tiled pipeline (RecastDemo's Sample_TileMesh) for the large levels: per tile of
// cfg.tileSize cells the triangles overlapping it with a border of radius + 3 cells, the solo
// steps up to the compact heightfield, then layer regions (rcBuildLayerRegions), contours,
// polygons, detail, and the tile added to one multi-tile dtNavMesh.
RecastBake bakeRecastTiled(const RecastInput& in, rcConfig cfg) {
    RecastBake out;
    rcContext ctx(false);
    float bmin[3], bmax[3];
    rcCalcBounds(in.vertices.data(), in.vertex_count, bmin, bmax);
    rcCalcGridSize(bmin, bmax, cfg.cs, &out.grid_width, &out.grid_height);
    const int ts = cfg.tileSize;
    cfg.borderSize = cfg.walkableRadius + 3;
    cfg.width = cfg.height = ts + 2 * cfg.borderSize;
    const int tw = (out.grid_width + ts - 1) / ts, th = (out.grid_height + ts - 1) / ts;
    const float tcs = float(ts) * cfg.cs, pad = float(cfg.borderSize) * cfg.cs;
    const std::vector<std::vector<int>> bins = binTriangles(
        in.vertices.data(), in.triangles.data(), in.triangle_count, bmin, tcs, pad, tw, th);
    NavMeshPtr navmesh(dtAllocNavMesh());
    dtNavMeshParams nm;
    std::memset(&nm, 0, sizeof(nm));
    rcVcopy(nm.orig, bmin);
    nm.tileWidth = nm.tileHeight = tcs;
    unsigned tile_bits = 0;
    while ((1u << tile_bits) < unsigned(tw * th)) ++tile_bits;
    tile_bits = std::min(tile_bits, 14u);
    nm.maxTiles = 1 << tile_bits;
    nm.maxPolys = 1 << (22 - tile_bits);
    if (!navmesh || dtStatusFailed(navmesh->init(&nm))) {
        out.error = "dtNavMesh::init (tiled)";
        return out;
    }
    std::vector<int> tris;
    std::vector<unsigned char> areas;
    for (int ty = 0; ty < th; ++ty) {
        for (int tx = 0; tx < tw; ++tx) {
            const std::vector<int>& bin = bins[size_t(ty) * size_t(tw) + size_t(tx)];
            if (bin.empty()) continue;
            const rcConfig tc = tileConfig(cfg, bmin, bmax, tx, ty);
            std::unique_ptr<rcHeightfield, HeightfieldDeleter> solid(rcAllocHeightfield());
            rcCreateHeightfield(&ctx, *solid, tc.width, tc.height, tc.bmin, tc.bmax, tc.cs, tc.ch);
            tris.clear();
            for (int t : bin)
                for (int k = 0; k < 3; ++k) tris.push_back(in.triangles[size_t(3 * t + k)]);
            areas.assign(bin.size(), RC_NULL_AREA);
            rcMarkWalkableTriangles(&ctx, tc.walkableSlopeAngle, in.vertices.data(),
                                    in.vertex_count, tris.data(), int(bin.size()), areas.data());
            for (size_t i = 0; i < bin.size(); ++i) {
                const uint8_t ours = in.triangle_areas[size_t(bin[i])];
                if (in.area_blocked[ours])
                    areas[i] = RC_NULL_AREA;
                else if (areas[i] == RC_WALKABLE_AREA)
                    areas[i] = ours;
            }
            rcRasterizeTriangles(&ctx, in.vertices.data(), in.vertex_count, tris.data(),
                                 areas.data(), int(bin.size()), *solid, tc.walkableClimb);
            rcFilterLowHangingWalkableObstacles(&ctx, tc.walkableClimb, *solid);
            rcFilterLedgeSpans(&ctx, tc.walkableHeight, tc.walkableClimb, *solid);
            rcFilterWalkableLowHeightSpans(&ctx, tc.walkableHeight, *solid);
            std::unique_ptr<rcCompactHeightfield, CompactDeleter> chf(rcAllocCompactHeightfield());
            rcBuildCompactHeightfield(&ctx, tc.walkableHeight, tc.walkableClimb, *solid, *chf);
            solid.reset();
            rcErodeWalkableArea(&ctx, tc.walkableRadius, *chf);
            rcBuildLayerRegions(&ctx, *chf, tc.borderSize, tc.minRegionArea);
            std::unique_ptr<rcContourSet, ContourDeleter> cset(rcAllocContourSet());
            rcBuildContours(&ctx, *chf, tc.maxSimplificationError, tc.maxEdgeLen, *cset,
                            RC_CONTOUR_TESS_WALL_EDGES);
            std::unique_ptr<rcPolyMesh, PolyMeshDeleter> pmesh(rcAllocPolyMesh());
            rcBuildPolyMesh(&ctx, *cset, tc.maxVertsPerPoly, *pmesh);
            std::unique_ptr<rcPolyMeshDetail, DetailDeleter> dmesh(rcAllocPolyMeshDetail());
            rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, tc.detailSampleDist, tc.detailSampleMaxError,
                                  *dmesh);
            if (pmesh->npolys == 0) continue;
            std::vector<unsigned short> flags(size_t(pmesh->npolys), 1);
            dtNavMeshCreateParams params = detourParams(*pmesh, *dmesh, tc, flags.data(), tx, ty);
            unsigned char* data = nullptr;
            int size = 0;
            if (!dtCreateNavMeshData(&params, &data, &size)) continue;
            if (dtStatusFailed(navmesh->addTile(data, size, DT_TILE_FREE_DATA, 0, nullptr))) {
                dtFree(data);
                continue;
            }
            out.polys += pmesh->npolys;
            out.vertices += pmesh->nverts;
            out.detail_triangles += dmesh->ntris;
        }
    }
    if (out.polys == 0) {
        out.error = "empty mesh (no polygons)";
        return out;
    }
    out.navmesh = std::move(navmesh);
    return out;
}

double polygonAreaXZ(const float* const* corners, int n) {
    double twice = 0;
    for (int i = 0; i < n; ++i) {
        const float* a = corners[i];
        const float* b = corners[(i + 1) % n];
        twice += double(a[0]) * b[2] - double(b[0]) * a[2];
    }
    return std::abs(twice) * 0.5;
}

// XZ area covered by the polygons [m^2], per area id.
std::vector<double> detourAreas(const dtNavMesh& navmesh) {
    std::vector<double> areas(DT_MAX_AREAS, 0.0);
    const dtMeshTile* tile = navmesh.getTile(0);
    if (tile == nullptr || tile->header == nullptr) return areas;
    for (int p = 0; p < tile->header->polyCount; ++p) {
        const dtPoly& poly = tile->polys[p];
        if (poly.getType() != DT_POLYTYPE_GROUND) continue;
        const float* corners[DT_VERTS_PER_POLYGON];
        for (int k = 0; k < poly.vertCount; ++k) corners[k] = &tile->verts[3 * poly.verts[k]];
        areas[poly.getArea()] += polygonAreaXZ(corners, poly.vertCount);
    }
    return areas;
}

std::vector<double> oursAreas(const nav::navmesh::NavMesh& mesh) {
    std::vector<double> areas(256, 0.0);
    std::vector<const float*> corners;
    for (size_t p = 0; p < mesh.polyCount(); ++p) {
        corners.clear();
        for (uint32_t k = mesh.poly_offsets[p]; k < mesh.poly_offsets[p + 1]; ++k)
            corners.push_back(&mesh.vertices[3 * size_t(mesh.poly_vertices[k])]);
        areas[mesh.poly_areas[p]] += polygonAreaXZ(corners.data(), int(corners.size()));
    }
    return areas;
}

// {"total": m^2, "by_area": {"ground": m^2, "water": m^2, ...}} with our area names.
json areaJson(const std::vector<double>& areas, const std::vector<nav::geometry::AreaType>& table) {
    json by_area = json::object();
    double total = 0;
    for (size_t a = 0; a < areas.size(); ++a) {
        if (areas[a] == 0) continue;
        total += areas[a];
        by_area[a < table.size() ? table[a].name : "area_" + std::to_string(a)] = areas[a];
    }
    return {{"total", total}, {"by_area", by_area}};
}

// ---- ours
// -----------------------------------------------------------------------------------------
struct OursBake {
    nav::graph::Graph graph;
    std::string error;
};

OursBake bakeOurs(const nav::geometry::Geometry& geometry, const Settings& s, int threads) {
    OursBake out;
    nav::Context context;
    nav::voxel::VoxelizeParams vp;
    vp.cell_size = s.cell_size;
    vp.cell_height = s.cell_height;
    vp.agent = s.agent;
    vp.threads = threads;
    auto grid = nav::voxel::voxelize(geometry, vp, context);
    if (!grid) {
        out.error = "voxelize: " + grid.error().message;
        return out;
    }
    nav::navmesh::NavmeshParams mp = s.mesh;
    mp.threads = threads;
    mp.tile_size = s.tile;
    auto graph = nav::graph::buildNavmeshGraph(*grid, mp, context);
    if (!graph) {
        out.error = "navmesh: " + graph.error().message;
        return out;
    }
    out.graph = std::move(graph).value();
    return out;
}

// ---- random points ------------------------------------------------------------------------------
std::mt19937 g_rng;  // Detour's frand is a plain function pointer
float frand() { return float(g_rng() >> 8) * (1.0f / 16777216.0f); }  // [0, 1), 24 bits

double length3(const float* points, int count) {
    double total = 0;
    for (int i = 1; i < count; ++i) {
        const double dx = double(points[3 * i]) - points[3 * i - 3];
        const double dy = double(points[3 * i + 1]) - points[3 * i - 2];
        const double dz = double(points[3 * i + 2]) - points[3 * i - 1];
        total += std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    return total;
}

// Length in the XZ metric (the exact method's): both peers' straight paths compared on it.
double lengthXZ(const float* points, int count) {
    double total = 0;
    for (int i = 1; i < count; ++i)
        total += std::hypot(double(points[3 * i]) - points[3 * i - 3],
                            double(points[3 * i + 2]) - points[3 * i - 1]);
    return total;
}

json point(const float* p) { return json::array({p[0], p[1], p[2]}); }

struct LevelResult {
    std::string name;
    bool ok = false;
    std::string error;
    size_t triangles = 0;
    double recast_ms = 0, ours_ms = 0, ours_1t_ms = 0;
    int recast_polys = 0, recast_verts = 0;
    size_t ours_polys = 0, ours_verts = 0;
    size_t pairs = 0, both = 0, disagree = 0, locate_failed = 0;
    double ratio_mean = 0, ratio_max = 0, ratio_min = 0;
    double detour_us = 0, ours_us = 0;
    // --method exact (Polyanya): XZ length / Detour's XZ length over the pairs all three solved
    // (mean, p95, max), mean µs per query (locate included), pairs where it was longer than
    // A* + funnel (never, if exact), and pairs A* solved that it did not.
    double exact_mean = 0, exact_p95 = 0, exact_max = 0, exact_us = 0, astar_xz_mean = 0;
    // Over the same pairs: A* + funnel / Detour, and each side's length over the exact optimum
    // (A* + funnel / exact, Detour / exact): mean, p95, max.
    std::array<double, 3> astar_over_detour{}, astar_over_exact{}, detour_over_exact{};
    double astar_expansions = 0, exact_expansions = 0;  // means over the pairs both found
    size_t exact_longer = 0, exact_missed = 0;
    bool exact_run = false;
    bool queried = false;
};

std::string fmtMs(double ms) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), ms >= 100 ? "%.0f" : ms >= 10 ? "%.1f" : "%.2f", ms);
    return buffer;
}

LevelResult runLevel(const std::filesystem::path& file, const Settings& s, json& level_json) {
    LevelResult r;
    r.name = file.filename().string();
    level_json["level"] = r.name;
    level_json["path"] = file.string();
    nav::Context context;
    auto geometry = nav::importer::importScene(file, {}, context);
    if (!geometry) {
        r.error = "import: " + geometry.error().message;
        level_json["error"] = r.error;
        return r;
    }
    r.triangles = geometry->triangleCount();
    level_json["triangles"] = r.triangles;
    level_json["vertices"] = geometry->vertexCount();

    RecastInput in;
    in.vertices = geometry->vertices;
    in.triangles.assign(geometry->triangles.begin(), geometry->triangles.end());
    in.triangle_areas = geometry->triangle_areas;
    in.area_blocked.assign(256, 1);
    for (size_t a = 0; a < geometry->areas.size(); ++a)
        in.area_blocked[a] = a == nav::geometry::kObstacleArea || !geometry->areas[a].walkable;
    in.vertex_count = int(geometry->vertexCount());
    in.triangle_count = int(geometry->triangleCount());
    size_t obstacle_triangles = 0;
    for (uint8_t a : in.triangle_areas) obstacle_triangles += in.area_blocked[a];
    level_json["obstacle_triangles"] = obstacle_triangles;
    const rcConfig cfg = recastConfig(s);

    // ---- bake timing, interleaved ----
    std::vector<double> recast_times, ours_times, ours_1t_times;
    RecastBake recast;
    OursBake ours;
    for (int run = 0; run < s.runs; ++run) {
        for (int slot = 0; slot < 3; ++slot) {
            const int which = (slot + run) % 3;  // rotate the order every run
            if (which == 0) {
                const auto start = Clock::now();
                RecastBake bake = s.tile > 0 ? bakeRecastTiled(in, cfg) : bakeRecast(in, cfg);
                recast_times.push_back(msSince(start));
                recast = std::move(bake);
            } else {
                const int threads = which == 1 ? 0 : 1;
                const auto start = Clock::now();
                OursBake bake = bakeOurs(*geometry, s, threads);
                (which == 1 ? ours_times : ours_1t_times).push_back(msSince(start));
                if (which == 1) ours = std::move(bake);
            }
        }
    }
    r.recast_ms = median(recast_times);
    r.ours_ms = median(ours_times);
    r.ours_1t_ms = median(ours_1t_times);
    r.recast_polys = recast.polys;
    r.recast_verts = recast.vertices;
    json& jr = level_json["recast"];
    jr["bake_ms_median"] = r.recast_ms;
    jr["bake_ms_runs"] = recast_times;
    jr["grid"] = {recast.grid_width, recast.grid_height};
    jr["polys"] = recast.polys;
    jr["vertices"] = recast.vertices;
    jr["detail_triangles"] = recast.detail_triangles;
    if (recast.navmesh) jr["area_m2"] = areaJson(detourAreas(*recast.navmesh), geometry->areas);
    if (!recast.error.empty()) jr["error"] = recast.error;
    json& jo = level_json["ours"];
    jo["bake_ms_median"] = r.ours_ms;
    jo["bake_ms_runs"] = ours_times;
    jo["bake_ms_1thread_median"] = r.ours_1t_ms;
    jo["bake_ms_1thread_runs"] = ours_1t_times;
    if (ours.error.empty()) {
        const nav::navmesh::NavMesh& mesh = ours.graph.mesh;
        r.ours_polys = mesh.polyCount();
        r.ours_verts = mesh.vertexCount();
        jo["grid"] = {ours.graph.header.size_x, ours.graph.header.size_z};
        jo["polys"] = r.ours_polys;
        jo["vertices"] = r.ours_verts;
        jo["detail_triangles"] = mesh.detail_triangles.size() / 9;
        jo["regions"] = mesh.region_count;
        jo["components"] = ours.graph.header.component_count;
        jo["area_m2"] = areaJson(oursAreas(mesh), geometry->areas);
    } else {
        jo["error"] = ours.error;
    }
    level_json["bake_ratio_ours_over_recast"] = r.recast_ms > 0 ? r.ours_ms / r.recast_ms : 0.0;
    level_json["bake_ratio_ours_1thread_over_recast"] =
        r.recast_ms > 0 ? r.ours_1t_ms / r.recast_ms : 0.0;
    if (!recast.navmesh || !ours.error.empty()) {
        r.error = !recast.error.empty() ? "recast: " + recast.error : ours.error;
        level_json["error"] = r.error;
        return r;
    }
    r.ok = true;

    // ---- our runtime view ----
    const auto nav_path = std::filesystem::temp_directory_path() /
                          ("navbake_bench_recast_" + std::to_string(::getpid()) + ".nav");
    navrt::Asset asset;
    navrt::GraphView view;
    navrt::PathQuery query;
    navrt::ExactMeshQuery exact;
    if (auto saved = nav::graph::saveGraph(nav_path, ours.graph, nav::formats::kKindNav);
        !saved.ok()) {
        r.error = "save .nav: " + saved.error().message;
    } else if (navrt::Error e = navrt::load(nav_path.c_str(), asset)) {
        r.error = std::string("navrt::load: ") + e.message;
    } else if (navrt::Error e2 = navrt::viewGraph(asset, view)) {
        r.error = std::string("navrt::viewGraph: ") + e2.message;
    } else if (navrt::Error e3 = query.init(view)) {
        r.error = std::string("PathQuery::init: ") + e3.message;
    } else {
        r.exact_run = !exact.init(view);  // refused on assets with links
    }
    std::error_code ignored;
    std::filesystem::remove(nav_path, ignored);
    if (!r.error.empty()) {
        level_json["error"] = r.error;
        return r;
    }

    // ---- Detour query ----
    std::unique_ptr<dtNavMeshQuery, QueryDeleter> dq(dtAllocNavMeshQuery());
    if (!dq || dtStatusFailed(dq->init(recast.navmesh.get(), 65535))) {
        r.error = "dtNavMeshQuery::init";
        level_json["error"] = r.error;
        return r;
    }
    dtQueryFilter filter;
    filter.setIncludeFlags(0xffff);
    filter.setExcludeFlags(0);
    for (size_t a = 0; a < geometry->areas.size() && a < size_t(DT_MAX_AREAS); ++a)
        filter.setAreaCost(int(a), geometry->areas[a].cost);

    // Points: all drawn first, so both sides answer exactly the same pairs.
    g_rng.seed(s.seed);
    std::vector<float> points;
    points.reserve(size_t(s.pairs) * 6);
    size_t random_failures = 0;
    while (points.size() < size_t(s.pairs) * 6) {
        dtPolyRef ref = 0;
        float p[3];
        if (dtStatusFailed(dq->findRandomPoint(&filter, frand, &ref, p)) || ref == 0) {
            if (++random_failures > 1000) break;
            continue;
        }
        points.insert(points.end(), p, p + 3);
    }
    const size_t pair_count = points.size() / 6;
    r.pairs = pair_count;
    r.queried = true;

    constexpr int kMaxPath = 65535;
    constexpr int kMaxStraight = 65535;
    std::vector<dtPolyRef> path(kMaxPath);
    std::vector<float> straight(size_t(kMaxStraight) * 3);
    const float extents[3] = {s.horizontal_tolerance, s.vertical_tolerance, s.horizontal_tolerance};
    size_t detour_found = 0, ours_found = 0, detour_only = 0, ours_only = 0, buffer_small = 0;
    size_t detour_locate_failed = 0, ratio_count = 0, detour_partial = 0;
    size_t locate_height = 0, locate_coverage = 0;  // points, not pairs
    double detour_us_sum = 0, ours_us_sum = 0, ratio_sum = 0;
    double ratio_max = 0, ratio_min = 0;
    size_t ratio_max_pair = 0, ratio_min_pair = 0;
    json ex_detour_only = json::array(), ex_ours_only = json::array(), ex_locate = json::array();
    constexpr size_t kExamples = 8;
    std::vector<double> detour_lengths(pair_count, -1), ours_lengths(pair_count, -1);
    std::vector<double> exact_ratios, astar_xz_ratios, astar_exact_ratios, detour_exact_ratios;
    double exact_us_sum = 0, astar_expansion_sum = 0, exact_expansion_sum = 0;
    size_t expansion_pairs = 0;
    std::vector<float> funnel_points(size_t(kMaxStraight) * 3);

    for (size_t i = 0; i < pair_count; ++i) {
        const float* a = &points[6 * i];
        const float* b = &points[6 * i + 3];
        // Detour
        bool d_found = false, d_partial = false;
        double d_len = 0, d_len_xz = 0;
        dtPolyRef d_start = 0, d_goal = 0;
        auto runDetour = [&] {
            const auto start = Clock::now();
            float sp[3], gp[3];
            dq->findNearestPoly(a, extents, &filter, &d_start, sp);
            dq->findNearestPoly(b, extents, &filter, &d_goal, gp);
            if (d_start && d_goal) {
                int count = 0;
                const dtStatus st =
                    dq->findPath(d_start, d_goal, sp, gp, &filter, path.data(), &count, kMaxPath);
                buffer_small += (st & DT_BUFFER_TOO_SMALL) != 0;
                d_partial = dtStatusSucceed(st) && (st & DT_PARTIAL_RESULT);
                if (dtStatusSucceed(st) && !d_partial && count > 0) {
                    int straight_count = 0;
                    const dtStatus ss =
                        dq->findStraightPath(sp, gp, path.data(), count, straight.data(), nullptr,
                                             nullptr, &straight_count, kMaxStraight);
                    if (dtStatusSucceed(ss)) {
                        d_found = true;
                        d_len = length3(straight.data(), straight_count);
                        d_len_xz = lengthXZ(straight.data(), straight_count);
                    }
                }
            }
            detour_us_sum += usSince(start);
        };
        // ours
        bool o_found = false;
        double o_len = 0;
        navrt::MeshPoint o_start, o_goal;
        navrt::PathStatus o_status = navrt::PathStatus::no_path;
        auto runOurs = [&] {
            const auto start = Clock::now();
            o_start = navrt::locateOnMesh(view, {a[0], a[1], a[2]}, s.horizontal_tolerance,
                                          s.vertical_tolerance);
            o_goal = navrt::locateOnMesh(view, {b[0], b[1], b[2]}, s.horizontal_tolerance,
                                         s.vertical_tolerance);
            if (o_start.poly != navrt::kNoNode && o_goal.poly != navrt::kNoNode) {
                o_status = query.findPathBetween(o_start.position, o_start.poly, o_goal.position,
                                                 o_goal.poly);
                if (o_status == navrt::PathStatus::found) {
                    o_found = true;
                    o_len = query.smoothedLength();
                }
            }
            ours_us_sum += usSince(start);
        };
        // The exact method: locate and search, timed like ours.
        bool e_found = false;
        double e_len = 0;
        auto runExact = [&] {
            if (!r.exact_run) return;
            const auto start = Clock::now();
            const navrt::MeshPoint ea = navrt::locateOnMesh(
                view, {a[0], a[1], a[2]}, s.horizontal_tolerance, s.vertical_tolerance);
            const navrt::MeshPoint eb = navrt::locateOnMesh(
                view, {b[0], b[1], b[2]}, s.horizontal_tolerance, s.vertical_tolerance);
            if (ea.poly != navrt::kNoNode && eb.poly != navrt::kNoNode &&
                exact.findPath(ea.position, ea.poly, eb.position, eb.poly) ==
                    navrt::PathStatus::found) {
                e_found = true;
            }
            exact_us_sum += usSince(start);
            if (e_found) {
                e_len = 0;
                for (uint32_t k = 1; k < exact.pointCount(); ++k)
                    e_len += std::hypot(double(exact.points()[k].x) - exact.points()[k - 1].x,
                                        double(exact.points()[k].z) - exact.points()[k - 1].z);
            }
        };
        // Alternating order, so neither side always runs on a warm cache.
        switch (i % 3) {
            case 0: runDetour(), runOurs(), runExact(); break;
            case 1: runOurs(), runExact(), runDetour(); break;
            default: runExact(), runDetour(), runOurs(); break;
        }
        if (r.exact_run && o_found) {
            // A* + funnel's straight path in XZ, against the exact one and Detour's.
            const uint32_t count = query.smooth(
                reinterpret_cast<navrt::Vec3*>(funnel_points.data()), uint32_t(kMaxStraight));
            const double o_xz = lengthXZ(funnel_points.data(), int(count));
            if (!e_found) ++r.exact_missed;
            if (e_found && e_len > o_xz + 1e-4) ++r.exact_longer;
            if (e_found) {
                astar_expansion_sum += query.expansions();
                exact_expansion_sum += exact.expansions();
                ++expansion_pairs;
            }
            if (e_found && d_found && d_len_xz >= 1e-3) {
                exact_ratios.push_back(e_len / d_len_xz);
                astar_xz_ratios.push_back(o_xz / d_len_xz);
                if (e_len >= 1e-3) {
                    astar_exact_ratios.push_back(o_xz / e_len);
                    detour_exact_ratios.push_back(d_len_xz / e_len);
                }
            }
        }
        detour_locate_failed += d_start == 0 || d_goal == 0;
        // Why our locate failed (not timed): a polygon within the horizontal tolerance whose floor
        // is more than the vertical tolerance away (height), or no polygon near at all (coverage).
        for (const auto& [located, p] : {std::pair{o_start.poly != navrt::kNoNode, a},
                                         std::pair{o_goal.poly != navrt::kNoNode, b}}) {
            if (located) continue;
            const navrt::MeshPoint any =
                navrt::locateOnMesh(view, {p[0], p[1], p[2]}, s.horizontal_tolerance, 1e30f);
            ++(any.poly != navrt::kNoNode ? locate_height : locate_coverage);
        }
        detour_partial += d_partial;
        const bool o_located = o_start.poly != navrt::kNoNode && o_goal.poly != navrt::kNoNode;
        r.locate_failed += !o_located;
        detour_found += d_found;
        ours_found += o_found;
        if (d_found) detour_lengths[i] = d_len;
        if (o_found) ours_lengths[i] = o_len;
        auto example = [&] {
            json e;
            e["pair"] = i;
            e["start"] = point(a);
            e["goal"] = point(b);
            e["detour"] = {{"start_poly", d_start},
                           {"goal_poly", d_goal},
                           {"found", d_found},
                           {"partial", d_partial},
                           {"length", d_len}};
            json o = {
                {"start_poly", o_start.poly == navrt::kNoNode ? json(nullptr) : json(o_start.poly)},
                {"goal_poly", o_goal.poly == navrt::kNoNode ? json(nullptr) : json(o_goal.poly)},
                {"status", o_located ? navrt::pathStatusName(o_status) : "locate_failed"},
                {"length", o_len}};
            if (o_start.poly != navrt::kNoNode)
                o["start_component"] = view.components[o_start.poly];
            if (o_goal.poly != navrt::kNoNode) o["goal_component"] = view.components[o_goal.poly];
            e["ours"] = o;
            return e;
        };
        if (d_found && o_found) {
            ++r.both;
            if (d_len >= 1e-3) {
                const double ratio = o_len / d_len;
                ratio_sum += ratio;
                if (ratio_count == 0 || ratio > ratio_max) ratio_max = ratio, ratio_max_pair = i;
                if (ratio_count == 0 || ratio < ratio_min) ratio_min = ratio, ratio_min_pair = i;
                ++ratio_count;
            }
        } else if (d_found && !o_found) {
            ++detour_only;
            if (!o_located) {
                if (ex_locate.size() < kExamples) ex_locate.push_back(example());
            } else if (ex_detour_only.size() < kExamples) {
                ex_detour_only.push_back(example());
            }
        } else if (!d_found && o_found) {
            ++ours_only;
            if (ex_ours_only.size() < kExamples) ex_ours_only.push_back(example());
        }
    }
    r.disagree = detour_only + ours_only;
    r.ratio_mean = ratio_count ? ratio_sum / double(ratio_count) : 0;
    r.ratio_max = ratio_max;
    r.ratio_min = ratio_min;
    r.detour_us = pair_count ? detour_us_sum / double(pair_count) : 0;
    r.ours_us = pair_count ? ours_us_sum / double(pair_count) : 0;
    r.exact_us = pair_count ? exact_us_sum / double(pair_count) : 0;
    if (expansion_pairs > 0) {
        r.astar_expansions = astar_expansion_sum / double(expansion_pairs);
        r.exact_expansions = exact_expansion_sum / double(expansion_pairs);
    }
    // Mean, p95 and max of a list of ratios (zeros when it is empty).
    auto spread = [](std::vector<double> v) {
        std::array<double, 3> out{};
        if (v.empty()) return out;
        double sum = 0;
        for (double x : v) sum += x;
        std::sort(v.begin(), v.end());
        out = {sum / double(v.size()), v[size_t(0.95 * double(v.size() - 1))], v.back()};
        return out;
    };
    const std::array<double, 3> exact_spread = spread(exact_ratios);
    r.exact_mean = exact_spread[0];
    r.exact_p95 = exact_spread[1];
    r.exact_max = exact_spread[2];
    r.astar_over_detour = spread(astar_xz_ratios);
    r.astar_xz_mean = r.astar_over_detour[0];
    r.astar_over_exact = spread(astar_exact_ratios);
    r.detour_over_exact = spread(detour_exact_ratios);

    json& q = level_json["queries"];
    q["pairs"] = pair_count;
    if (r.exact_run)
        q["exact"] = {{"length_xz_over_detour",
                       {{"pairs", exact_ratios.size()},
                        {"mean", r.exact_mean},
                        {"p95", r.exact_p95},
                        {"max", r.exact_max}}},
                      {"astar_funnel_xz_over_detour_mean", r.astar_xz_mean},
                      {"astar_funnel_xz_over_detour_p95_max",
                       {r.astar_over_detour[1], r.astar_over_detour[2]}},
                      {"astar_funnel_xz_over_exact", r.astar_over_exact},
                      {"detour_xz_over_exact", r.detour_over_exact},
                      {"us", r.exact_us},
                      {"expansions_mean", r.exact_expansions},
                      {"astar_expansions_mean", r.astar_expansions},
                      {"longer_than_astar_funnel", r.exact_longer},
                      {"missed_where_astar_found", r.exact_missed}};
    q["seed"] = s.seed;
    q["random_point_failures"] = random_failures;
    q["detour_found"] = detour_found;
    q["ours_found"] = ours_found;
    q["both_found"] = r.both;
    q["both_found_fraction"] = pair_count ? double(r.both) / double(pair_count) : 0.0;
    q["disagreements"] = r.disagree;
    q["disagreement_fraction"] = pair_count ? double(r.disagree) / double(pair_count) : 0.0;
    q["detour_only"] = detour_only;
    q["ours_only"] = ours_only;
    q["ours_locate_failed"] = r.locate_failed;
    q["ours_locate_failed_points"] = {{"height_mismatch", locate_height},
                                      {"no_polygon_within_tolerance", locate_coverage}};
    q["detour_locate_failed"] = detour_locate_failed;
    q["detour_partial"] = detour_partial;
    q["detour_buffer_too_small"] = buffer_small;
    q["length_ratio"] = {{"pairs", ratio_count},       {"mean", r.ratio_mean},
                         {"max", r.ratio_max},         {"min", r.ratio_min},
                         {"max_pair", ratio_max_pair}, {"min_pair", ratio_min_pair}};
    if (ratio_count) {
        q["length_ratio"]["max_example"] = {{"start", point(&points[6 * ratio_max_pair])},
                                            {"goal", point(&points[6 * ratio_max_pair + 3])},
                                            {"detour", detour_lengths[ratio_max_pair]},
                                            {"ours", ours_lengths[ratio_max_pair]}};
        q["length_ratio"]["min_example"] = {{"start", point(&points[6 * ratio_min_pair])},
                                            {"goal", point(&points[6 * ratio_min_pair + 3])},
                                            {"detour", detour_lengths[ratio_min_pair]},
                                            {"ours", ours_lengths[ratio_min_pair]}};
    }
    q["detour_us_mean"] = r.detour_us;
    q["ours_us_mean"] = r.ours_us;
    q["examples"] = {{"detour_only_ours_located", ex_detour_only},
                     {"detour_only_ours_locate_failed", ex_locate},
                     {"ours_only", ex_ours_only}};
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    Settings s;
    std::vector<std::string> positional;
    std::vector<std::filesystem::path> large;  // --large LEVEL: tiled, 1 bake run, 2,000 pairs
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char* name) -> long {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_recast: %s needs a value\n", name);
                std::exit(2);
            }
            char* end = nullptr;
            const long v = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || v <= 0) {
                std::fprintf(stderr, "bench_recast: bad value for %s: %s\n", name, argv[i]);
                std::exit(2);
            }
            return v;
        };
        if (arg == "--runs")
            s.runs = int(value("--runs"));
        else if (arg == "--pairs")
            s.pairs = int(value("--pairs"));
        else if (arg == "--seed")
            s.seed = uint32_t(value("--seed"));
        else if (arg == "--large" && i + 1 < argc)
            large.push_back(argv[++i]);
        else if (arg == "-h" || arg == "--help") {
            std::printf(
                "usage: bench_recast [SHARED_DATA [SAMPLE_LEVELS [OUT.json]]] [--runs N] "
                "[--pairs N] [--seed S] [--large LEVEL.obj]...\n");
            return 0;
        } else
            positional.push_back(arg);
    }
    const std::filesystem::path shared = positional.size() > 0 ? positional[0] : "../shared/data";
    const std::filesystem::path samples = positional.size() > 1 ? positional[1] : "sample_levels";
    const std::filesystem::path out_path =
        positional.size() > 2 ? positional[2] : "bench_recast.json";

    std::vector<std::filesystem::path> levels;
    if (std::filesystem::is_directory(shared / "meshes"))
        for (const auto& entry : std::filesystem::directory_iterator(shared / "meshes"))
            if (entry.path().extension() == ".obj") levels.push_back(entry.path());
    std::sort(levels.begin(), levels.end());
    for (const char* name : {"indoor_two_floors.glb", "terrain.obj"})
        if (std::filesystem::exists(samples / name)) levels.push_back(samples / name);
    if (levels.empty()) {
        std::printf("bench_recast: no levels found (%s/meshes, %s)\n", shared.c_str(),
                    samples.c_str());
        return 0;
    }

    json doc;
    doc["benchmark"] = "bench_recast";
    doc["recast_version"] = "1.5.1 (Debian librecast-dev)";
    doc["hardware_threads"] = std::thread::hardware_concurrency();
    doc["parameters"] = {{"cell_size", s.cell_size},
                         {"cell_height", s.cell_height},
                         {"agent_height", s.agent.height},
                         {"agent_radius", s.agent.radius},
                         {"agent_climb", s.agent.climb},
                         {"max_slope_deg", s.agent.max_slope_deg},
                         {"region_min_size", s.mesh.region_min_size},
                         {"region_merge_size", s.mesh.region_merge_size},
                         {"edge_max_len", s.mesh.edge_max_len},
                         {"edge_max_error", s.mesh.edge_max_error},
                         {"max_verts_per_poly", s.mesh.max_verts_per_poly},
                         {"detail_sample_dist", s.mesh.detail_sample_dist},
                         {"detail_max_error", s.mesh.detail_max_error},
                         {"partition", "watershed"},
                         {"tiles", "solo"},
                         {"locate_horizontal_tolerance", s.horizontal_tolerance},
                         {"locate_vertical_tolerance", s.vertical_tolerance},
                         {"runs", s.runs},
                         {"pairs", s.pairs},
                         {"seed", s.seed}};
    doc["levels"] = json::array();

    std::vector<LevelResult> results;
    for (const auto& level : levels) {
        std::fprintf(stderr, "bench_recast: %s ...\n", level.filename().c_str());
        json level_json;
        results.push_back(runLevel(level, s, level_json));
        doc["levels"].push_back(std::move(level_json));
    }
    // Large generated levels: both sides tiled (64 cells; Recast with layer regions), one bake
    // (bench_large.py times whole processes), 2,000 pairs.
    for (const auto& level : large) {
        std::fprintf(stderr, "bench_recast: %s (large, tiled) ...\n", level.filename().c_str());
        Settings tiled = s;
        tiled.tile = 64;
        tiled.runs = 1;
        tiled.pairs = std::min(s.pairs, 2000);
        json level_json;
        level_json["tiled"] = tiled.tile;
        results.push_back(runLevel(level, tiled, level_json));
        results.back().name += " (tiled)";
        doc["levels"].push_back(std::move(level_json));
    }

    std::printf(
        "navbake navmesh vs Recast/Detour 1.5.1: demo defaults, watershed, solo; bake = "
        "median of %d interleaved runs;\n%d random Detour point pairs per level (seed %u), "
        "locate tolerance %.1f m horizontal / %.1f m vertical.\n\n",
        s.runs, s.pairs, s.seed, double(s.horizontal_tolerance), double(s.vertical_tolerance));
    std::printf(
        "| level | tris | bake ms Recast | ours | ours/Recast | ours 1 thr | polys Recast / ours "
        "| verts Recast / ours | both found | disagree | our locate failed | length ours/Detour "
        "mean / max / min | query us Detour / ours |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const LevelResult& r : results) {
        if (r.recast_ms == 0 && r.ours_ms == 0) {
            std::printf("| %s | error: %s |||||||||||\n", r.name.c_str(), r.error.c_str());
            continue;
        }
        std::printf("| %s | %zu | %s | %s | %.2f | %s | %d / %zu | %d / %zu |", r.name.c_str(),
                    r.triangles, fmtMs(r.recast_ms).c_str(), fmtMs(r.ours_ms).c_str(),
                    r.recast_ms > 0 ? r.ours_ms / r.recast_ms : 0.0, fmtMs(r.ours_1t_ms).c_str(),
                    r.recast_polys, r.ours_polys, r.recast_verts, r.ours_verts);
        if (!r.queried) {
            std::printf(" error: %s |||||\n", r.error.c_str());
            continue;
        }
        const double n = r.pairs ? double(r.pairs) : 1.0;
        std::printf(" %.1f%% | %.2f%% | %.2f%% | %.3f / %.2f / %.2f | %.1f / %.1f |\n",
                    100.0 * double(r.both) / n, 100.0 * double(r.disagree) / n,
                    100.0 * double(r.locate_failed) / n, r.ratio_mean, r.ratio_max, r.ratio_min,
                    r.detour_us, r.ours_us);
    }
    std::printf(
        "\nExact paths (query --method exact, Polyanya; XZ lengths, the pairs all three solved):\n"
        "| level | exact/Detour mean / p95 / max | A* + funnel/Detour mean / p95 / max | A* + "
        "funnel/exact mean / p95 / max | Detour/exact mean / p95 / max | query us Detour / A* / "
        "exact | expansions A* / exact | exact longer than A* | exact missed |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const LevelResult& r : results) {
        if (!r.queried) continue;
        if (!r.exact_run) {
            std::printf("| %s | (exact: not run) ||||||||\n", r.name.c_str());
            continue;
        }
        auto three = [](const std::array<double, 3>& v) {
            char text[64];
            std::snprintf(text, sizeof(text), "%.4f / %.4f / %.4f", v[0], v[1], v[2]);
            return std::string(text);
        };
        std::printf("| %s | %s | %s | %s | %s | %.1f / %.1f / %.1f | %.0f / %.0f | %zu | %zu |\n",
                    r.name.c_str(), three({r.exact_mean, r.exact_p95, r.exact_max}).c_str(),
                    three(r.astar_over_detour).c_str(), three(r.astar_over_exact).c_str(),
                    three(r.detour_over_exact).c_str(), r.detour_us, r.ours_us, r.exact_us,
                    r.astar_expansions, r.exact_expansions, r.exact_longer, r.exact_missed);
    }
    std::printf("\n(hardware threads: %u; JSON: %s)\n", std::thread::hardware_concurrency(),
                out_path.c_str());

    std::ofstream out(out_path);
    out << doc.dump(2) << '\n';
    if (!out) {
        std::fprintf(stderr, "bench_recast: cannot write %s\n", out_path.c_str());
        return 1;
    }
    return 0;
}
