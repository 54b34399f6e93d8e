// The navmesh build driver: parameters, tiling, parallel tile bakes and stitching.
//
// Tiling. With tile_size > 0 the grid is cut into tile_size x tile_size column tiles. Each tile
// reads a border of agent radius + 3 columns around it (as Recast's tiled builds do), so its
// distance field and links near the tile edge see the neighbours' floors; the border spans are
// marked kBorderRegion | side and never join a region. With tile_size 0 there is one tile with no
// border.
//
// Two passes, each parallel over tiles on `threads` workers (results stored per tile, so the
// output is the same for any thread count):
//   1. compact field, distance field, regions, raw contours, and the tile's seam points: where its
//      contours change (region, area, connectivity) along each tile side;
//   2. contours simplified keeping both their own and the neighbour's seam points on each shared
//      side, so the two tiles put vertices at exactly the same places along their border; then
//      polygons and the detail mesh.
// A grid read from a .vox a band of rows at a time (RowFeed, streamed) is built a tile row at a
// time instead: reading a tile row's grid rows, pass 1 and pass 2 of each tile are tasks taken as
// soon as they can start (runDynamic: pass 2 once the tile and its neighbours are through pass 1,
// a read only while at most two tile rows and their borders are held), so no thread waits at a
// barrier and the memory is bounded whatever the level's size; same tasks, same output.
// Stitching, in tile index order: vertices on a tile side shared with another tile are welded
// with the vertices already emitted at the same corner (heights within the weld tolerance, 2
// cell heights as Recast's rcBuildPolyMesh uses); then polygon edges flagged as tile-border
// portals are sorted by their welded vertex pair and each links to the reversed edge from the
// other tile. Region ids are offset per tile, in tile order, so they are unique.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <zstd.h>

#include <cstring>
#include <stdexcept>

#include "formats/xxhash64.h"
#include "lib/common/parallel.h"
#include "lib/navmesh/navmesh_internal.h"

namespace nav::navmesh {
namespace {

using namespace internal;

constexpr int kWeldTolerance = 2;      // [Units: cell heights]
constexpr int kMinTileSize = 8;        // [Units: cells]
constexpr int kMaxTileSize = 1 << 16;  // [Units: cells]
// Below this many spans a one-tile build runs its stages on the calling thread alone: starting
// workers for each stage costs more than it saves (measured on the shared demo meshes).
constexpr size_t kParallelMinSpans = 64 * 1024;

// Thrown between the stages of a one-tile build when the context asks to stop.
using CancelledBuild = StageCancelled;

// The grid's header: cell sizes and dimensions.
Status checkGridHeader(const voxel::VoxelGrid& g) {
    if (!(std::isfinite(g.cell_size) && g.cell_size > 0 && std::isfinite(g.cell_height) &&
          g.cell_height > 0))
        return inputError(
            "navmesh: the voxel grid has cell size {} and cell height {} (both must "
            "be > 0)",
            g.cell_size, g.cell_height);
    if (g.size_x >= (1u << 30) || g.size_z >= (1u << 30))
        return inputError("navmesh: a {} x {} grid is too large", g.size_x, g.size_z);
    return {};
}

Status checkGrid(const voxel::VoxelGrid& g) {
    if (Status s = checkGridHeader(g); !s) return s;
    if (g.column_offsets.size() != g.columnCount() + 1 || g.column_offsets.back() != g.spans.size())
        return inputError(
            "navmesh: the voxel grid's column index does not match its {} x {} "
            "columns and {} spans",
            g.size_x, g.size_z, g.spans.size());
    for (size_t c = 0; c + 1 < g.column_offsets.size(); ++c)
        if (g.column_offsets[c] > g.column_offsets[c + 1])
            return inputError("navmesh: the voxel grid's column offsets decrease at column {}", c);
    return {};
}

// A field's regions in 16 bits a span: a region as it is (below 0xFFF0), a border region
// (kBorderRegion | side) as 0xFFF0 | side. False when one does not fit (then nothing is kept).
bool packRegions(const std::vector<uint32_t>& regions, std::vector<uint16_t>& out) {
    out.resize(regions.size());
    for (size_t i = 0; i < regions.size(); ++i) {
        const uint32_t r = regions[i];
        if (r & kBorderRegion) {
            if ((r & ~kBorderRegion) > 0xF) return out.clear(), false;
            out[i] = uint16_t(0xFFF0u | (r & 0xF));
        } else {
            if (r >= 0xFFF0u) return out.clear(), false;
            out[i] = uint16_t(r);
        }
    }
    return true;
}
void unpackRegions(const std::vector<uint16_t>& packed, std::vector<uint32_t>& out) {
    out.resize(packed.size());
    for (size_t i = 0; i < packed.size(); ++i)
        out[i] = packed[i] >= 0xFFF0u ? kBorderRegion | (packed[i] & 0xFu) : packed[i];
}

// What pass 1 leaves a tile for pass 2 when there are several tiles: its raw contours (per
// contour its region, area, vertex count and vertices, each coordinate as the difference from
// the vertex before) and its field's regions (16 bits a span where they fit: packRegions; else
// 32), zstd-compressed (level 1) into `out`. Held for two rows of tiles between the passes: on
// city32 the raw contours and regions were 5.4 MB of a 20.6 MB heap; packed they take a few
// times less, for a few percent of the tile's time.
void packPassOne(const std::vector<Contour>& raw, const std::vector<uint32_t>& regions,
                 std::vector<uint8_t>& out, size_t& raw_size, void*& context) {
    std::vector<uint8_t> bytes;
    auto put32 = [&](uint32_t v) {
        const size_t at = bytes.size();
        bytes.resize(at + 4);
        std::memcpy(bytes.data() + at, &v, 4);
    };
    put32(uint32_t(raw.size()));
    for (const Contour& c : raw) {
        put32(c.region);
        bytes.push_back(c.area);
        put32(uint32_t(c.vertices.size()));
        ContourVertex last{0, 0, 0, 0};
        for (const ContourVertex& v : c.vertices) {
            put32(uint32_t(v.x - last.x));
            put32(uint32_t(v.y - last.y));
            put32(uint32_t(v.z - last.z));
            put32(v.tag);
            last = v;
        }
    }
    std::vector<uint16_t> narrow;
    const bool fits = packRegions(regions, narrow);
    bytes.push_back(fits ? 16 : 32);
    put32(uint32_t(regions.size()));
    const size_t at = bytes.size();
    if (fits) {
        bytes.resize(at + narrow.size() * 2);
        if (!narrow.empty()) std::memcpy(bytes.data() + at, narrow.data(), narrow.size() * 2);
    } else {
        bytes.resize(at + regions.size() * 4);
        if (!regions.empty()) std::memcpy(bytes.data() + at, regions.data(), regions.size() * 4);
    }
    if (context == nullptr && (context = ZSTD_createCCtx()) == nullptr) throw std::bad_alloc();
    out.resize(ZSTD_compressBound(bytes.size()));
    const size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(context), out.data(), out.size(),
                                       bytes.data(), bytes.size(), 1);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    out.shrink_to_fit();
    raw_size = bytes.size();
}

void unpackPassOne(const std::vector<uint8_t>& in, size_t raw_size, std::vector<Contour>& raw,
                   std::vector<uint32_t>& regions) {
    std::vector<uint8_t> bytes(raw_size);
    const size_t n = ZSTD_decompress(bytes.data(), raw_size, in.data(), in.size());
    if (ZSTD_isError(n) || n != raw_size)
        throw std::runtime_error("navmesh: a tile's packed contours do not decode");
    const uint8_t* p = bytes.data();
    auto get32 = [&] {
        uint32_t v;
        std::memcpy(&v, p, 4);
        p += 4;
        return v;
    };
    raw.resize(get32());
    for (Contour& c : raw) {
        c.region = get32();
        c.area = *p++;
        c.vertices.resize(get32());
        ContourVertex last{0, 0, 0, 0};
        for (ContourVertex& v : c.vertices) {
            v.x = last.x + int32_t(get32());
            v.y = last.y + int32_t(get32());
            v.z = last.z + int32_t(get32());
            v.tag = get32();
            last = v;
        }
    }
    const bool narrow = *p++ == 16;
    regions.resize(get32());
    if (narrow) {
        std::vector<uint16_t> packed(regions.size());
        if (!packed.empty()) std::memcpy(packed.data(), p, packed.size() * 2);
        unpackRegions(packed, regions);
    } else if (!regions.empty()) {
        std::memcpy(regions.data(), p, regions.size() * 4);
    }
}

struct TileWork {
    TileBox box;
    CompactField field;
    std::vector<Contour> raw;
    SeamPoints seam;
    TileMesh mesh;
    uint32_t region_count = 0;
    int failed_contours = 0;
    uint64_t input_hash = 0;  // fieldHash of the tile's field (tile sinks)
    // Several tiles: the raw contours and the field's regions from pass 1, for pass 2 (which
    // rebuilds only the compact field), packed (packPassOne).
    std::vector<uint8_t> pass_one;
    size_t pass_one_size = 0;  // unpacked
};

}  // namespace

ParamIssues checkNavmeshParams(const NavmeshParams& p) {
    ParamCheck check;
    check.require(p.partition == Partition::watershed || p.partition == Partition::monotone,
                  "partition", std::to_string(int(p.partition)), "watershed or monotone");
    check.nonNegative("region_min_size", p.region_min_size);
    check.nonNegative("region_merge_size", p.region_merge_size);
    check.nonNegative("edge_max_len", p.edge_max_len);
    check.nonNegative("edge_max_error", p.edge_max_error);
    check.range("max_verts_per_poly", p.max_verts_per_poly, 3, 6);
    check.require(std::isfinite(p.detail_sample_dist) &&
                      (p.detail_sample_dist == 0 || p.detail_sample_dist >= 1),
                  "detail_sample_dist", fmt::format("{}", p.detail_sample_dist), "0 or >= 1 cell");
    check.nonNegative("detail_max_error", p.detail_max_error);
    check.require(p.tile_size == 0 || (p.tile_size >= kMinTileSize && p.tile_size <= kMaxTileSize),
                  "tile_size", std::to_string(p.tile_size),
                  fmt::format("0 for one tile, or {}..{} cells", kMinTileSize, kMaxTileSize));
    check.threads("threads", p.threads);
    if (check.issues.empty()) {
        check.require(double(p.region_min_size) * p.region_min_size <= 1e9, "region_min_size",
                      fmt::format("{}", p.region_min_size),
                      "at most 31622 (its square is an area)");
        check.require(double(p.region_merge_size) * p.region_merge_size <= 1e9, "region_merge_size",
                      fmt::format("{}", p.region_merge_size),
                      "at most 31622 (its square is an area)");
    }
    return check.issues;
}

void describeNavmeshParams(const NavmeshParams& n, StageKey& key) {
    key.add("partition", choiceName<Partition>(kPartitions, n.partition))
        .add("region_min_size", n.region_min_size)
        .add("region_merge_size", n.region_merge_size)
        .add("edge_max_len", n.edge_max_len)
        .add("edge_max_error", n.edge_max_error)
        .add("max_verts_per_poly", n.max_verts_per_poly)
        .add("detail_sample_dist", n.detail_sample_dist)
        .add("detail_max_error", n.detail_max_error)
        .add("tile_size", n.tile_size);
}

Status checkParams(const NavmeshParams& params) {
    return paramError("navmesh parameters", checkNavmeshParams(params));
}

Result<NavMesh> buildNavmesh(const voxel::VoxelGrid& grid, const NavmeshParams& params,
                             Context& context) {
    if (Status s = checkGrid(grid); !s) return s.error();
    const voxel::GridRows all = voxel::GridRows::whole(grid);
    return buildNavmesh(
        grid, uint32_t(grid.spans.size()),
        [&](uint32_t, uint32_t) -> Result<voxel::GridRows> { return all; }, false, params, context);
}

namespace {

// XXH64 of what a tile's first pass reads: its compact field (window, spans, heights, areas,
// links; the field is built from the grid's columns and the agent alone).
uint64_t fieldHash(const CompactField& f) {
    const int32_t frame[10] = {
        f.x0,       f.z0,       f.width,
        f.depth,    f.inner_x0, f.inner_z0,
        f.inner_x1, f.inner_z1, f.seam[0] | f.seam[1] << 1 | f.seam[2] << 2 | f.seam[3] << 3,
        0};
    uint64_t h = formats::xxhash64(frame, sizeof frame, 0);
    auto mix = [&](const auto& v) { h = formats::xxhash64(v.data(), v.size() * sizeof(v[0]), h); };
    mix(f.cells);
    mix(f.y);
    mix(f.area);
    mix(f.links);
    return h;
}

// A tile's mesh on its own: the vertices it uses in world coordinates, its border edges.
NavmeshTile standaloneTile(const voxel::VoxelGrid& grid, const TileMesh& m, uint32_t region_count,
                           int max_verts) {
    NavmeshTile out;
    NavMesh& mesh = out.mesh;
    mesh.areas = grid.areas;
    mesh.max_verts_per_poly = max_verts;
    mesh.region_count = region_count;
    std::vector<uint32_t> remap(m.vertices.size() / 3, UINT32_MAX);
    for (uint32_t v : m.poly_vertices) remap[v] = 0;
    uint32_t next = 0;
    for (size_t v = 0; v < remap.size(); ++v) {
        if (remap[v] == UINT32_MAX) continue;
        remap[v] = next++;
        mesh.vertices.push_back(
            float(double(grid.origin[0]) + double(m.vertices[3 * v]) * grid.cell_size));
        mesh.vertices.push_back(
            float(double(grid.origin[1]) + double(m.vertices[3 * v + 1]) * grid.cell_height));
        mesh.vertices.push_back(
            float(double(grid.origin[2]) + double(m.vertices[3 * v + 2]) * grid.cell_size));
    }
    mesh.poly_offsets.push_back(0);
    for (size_t p = 0; p < m.polyCount(); ++p) {
        const uint32_t pb = m.poly_offsets[p], pe = m.poly_offsets[p + 1];
        for (uint32_t k = pb; k < pe; ++k) {
            mesh.poly_vertices.push_back(remap[m.poly_vertices[k]]);
            mesh.poly_neighbours.push_back(m.poly_neighbours[k]);
            if (m.poly_neighbours[k] != kNoNeighbour || m.edge_kinds[k] >= 4) continue;
            const uint32_t side = m.edge_kinds[k];
            const int32_t* a = &m.vertices[3 * size_t(m.poly_vertices[k])];
            const int32_t* b = &m.vertices[3 * size_t(m.poly_vertices[k + 1 < pe ? k + 1 : pb])];
            const int along = side == 0 || side == 2 ? 2 : 0;
            out.border.push_back({uint32_t(p), k - pb, side, a[along], b[along], a[1], b[1]});
        }
        mesh.poly_offsets.push_back(uint32_t(mesh.poly_vertices.size()));
        mesh.poly_areas.push_back(m.poly_areas[p]);
        mesh.poly_regions.push_back(m.poly_regions[p] - 1);
        mesh.poly_tiles.push_back(0);
    }
    mesh.detail_offsets = m.detail_offsets;
    mesh.detail_triangles = m.detail_triangles;
    return out;
}

Result<NavMesh> buildTiles(const voxel::VoxelGrid& grid, uint32_t span_count, const RowFeed& feed,
                           bool streamed, const NavmeshParams& params, const TileSink* sink,
                           int& failed_contours, Context& context);

}  // namespace

Result<NavMesh> buildNavmesh(const voxel::VoxelGrid& grid, uint32_t span_count, const RowFeed& feed,
                             bool streamed, const NavmeshParams& params, Context& context) {
    int failed = 0;
    return buildTiles(grid, span_count, feed, streamed, params, nullptr, failed, context);
}

Result<int> buildNavmeshTiles(const voxel::VoxelGrid& grid, uint32_t span_count,
                              const RowFeed& feed, const NavmeshParams& params,
                              const TileSink& sink, Context& context) {
    if (params.tile_size <= 0)
        return makeError(ErrorKind::usage, "navmesh: tiles one by one need a tile size (got {})",
                         params.tile_size);
    int failed = 0;
    auto built = buildTiles(grid, span_count, feed, true, params, &sink, failed, context);
    if (!built) return built.error();
    return failed;
}

namespace {

Result<NavMesh> buildTiles(const voxel::VoxelGrid& grid, uint32_t span_count, const RowFeed& feed,
                           bool streamed, const NavmeshParams& params, const TileSink* sink,
                           int& failed_contours, Context& context) {
    if (Status s = checkParams(params); !s) return s.error();
    if (Status s = checkGridHeader(grid); !s) return s.error();
    ScopedTimer total_timer(context, "navmesh");

    const voxel::AgentCells agent = voxel::agentCells(grid.agent, grid.cell_size, grid.cell_height);
    const int threads = resolveThreads(params.threads);
    RegionSettings region_settings;
    region_settings.partition = params.partition;
    region_settings.min_area =
        int(std::lround(double(params.region_min_size) * params.region_min_size));
    region_settings.merge_area =
        int(std::lround(double(params.region_merge_size) * params.region_merge_size));
    ContourSettings contour_settings;
    contour_settings.max_error = params.edge_max_error;
    // Metres to whole cells, rounded down (12 m / 0.3 m is 40 cells), at least 1.
    contour_settings.max_edge_len =
        params.edge_max_len > 0
            ? std::max(1, voxel::metresToCells(params.edge_max_len, grid.cell_size,
                                               voxel::CellRounding::down, 1000000))
            : 0;
    contour_settings.weld_tolerance = kWeldTolerance;
    contour_settings.floor_gap = std::max(1, agent.height / 2);
    DetailSettings detail_settings;
    detail_settings.sample_dist = params.detail_sample_dist;
    detail_settings.max_error = params.detail_max_error;

    uint64_t params_hash = 0;
    if (sink) {
        const double p[9] = {
            double(params.partition),  params.region_min_size,  params.region_merge_size,
            params.edge_max_len,       params.edge_max_error,   double(params.max_verts_per_poly),
            params.detail_sample_dist, params.detail_max_error, double(params.tile_size)};
        params_hash = formats::xxhash64(p, sizeof p, 0);
    }
    NavMesh out;
    out.areas = grid.areas;
    out.max_verts_per_poly = params.max_verts_per_poly;
    out.poly_offsets.push_back(0);
    out.detail_offsets.push_back(0);

    // Tile layout.
    const int size_x = int(grid.size_x), size_z = int(grid.size_z);
    const int tile =
        params.tile_size > 0 ? params.tile_size : std::max(1, std::max(size_x, size_z));
    const int tiles_x = std::max(1, (size_x + tile - 1) / tile);
    const int tiles_z = std::max(1, (size_z + tile - 1) / tile);
    const int border = params.tile_size > 0 ? agent.radius + 3 : 0;
    out.tiles_x = uint32_t(tiles_x);
    out.tiles_z = uint32_t(tiles_z);
    const size_t tile_count = size_t(tiles_x) * size_t(tiles_z);
    std::vector<TileWork> work(tile_count);
    for (int tz = 0; tz < tiles_z; ++tz)
        for (int tx = 0; tx < tiles_x; ++tx) {
            TileBox& b = work[size_t(tz) * size_t(tiles_x) + size_t(tx)].box;
            b.x0 = tx * tile;
            b.z0 = tz * tile;
            b.x1 = std::min(size_x, b.x0 + tile);
            b.z1 = std::min(size_z, b.z0 + tile);
            b.border = border;
        }
    context.debug(
        "navmesh: {} x {} tiles of {} cells (border {}), {} threads, agent {} / {} / {} "
        "cells (height / climb / radius)",
        tiles_x, tiles_z, tile, border, threads, agent.height, agent.climb, agent.radius);
    if (span_count == 0 || size_x == 0 || size_z == 0) return out;

    // One-tile builds (run on the calling thread) log stage timings and check for
    // cancellation between stages; tiled builds check between tiles.
    auto stage = [&](const char* name, auto&& fn) {
        if (tile_count == 1) {
            if (context.cancelled()) throw CancelledBuild{};
            ScopedTimer stage_timer(context, fmt::format("navmesh: {}", name));
            fn();
        } else {
            fn();
        }
    };
    // One tile: the stages split their own work over the threads, when there is enough of it to
    // pay for starting them; several tiles: one tile per thread.
    const int inner_threads = tile_count == 1 && span_count >= kParallelMinSpans ? threads : 1;
    uint64_t progress_done = 0;
    const uint64_t progress_total = 2 * uint64_t(tile_count);

    // The rows the feed holds now (all of them unless streamed). Read by a tile only while it
    // builds its compact field (shared), replaced by the feed (exclusive) as tiles run.
    voxel::GridRows rows;
    std::shared_mutex rows_mutex;
    // A tile's compact field, distance field and regions.
    // Several tiles: each worker builds its tiles' fields in one field of its own, whose arrays
    // keep their room from tile to tile (fresh ones would be fresh pages, faulted in, every tile);
    // one tile: the field is the tile's, kept from pass 1 to pass 2.
    std::vector<CompactField> worker_fields(tile_count > 1 ? size_t(std::max(1, threads)) : 0);
    // Per worker: the compressor packPassOne reuses, freed however the build ends.
    std::vector<void*> zstd_contexts(size_t(std::max(1, threads)), nullptr);
    struct FreeContexts {
        std::vector<void*>& contexts;
        ~FreeContexts() {
            for (void* c : contexts) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(c));
        }
    } free_contexts{zstd_contexts};
    auto fieldOf = [&](TileWork& w, int worker) -> CompactField& {
        return tile_count > 1 ? worker_fields[size_t(worker)] : w.field;
    };
    // Streamed tiled builds hold each tile row's windows (a tile's columns and border)
    // zstd-compressed instead of the rows (voxel::TileRowWindows: a row of tiles at zstd's ratio
    // instead of two tile rows of the grid), two tile rows at once (a row is read only once the
    // row two before it is through pass 2), each tile's decoded for its two passes.
    const bool windowed = streamed && tile_count > 1;
    const voxel::TileWindowLayout window_layout{uint32_t(tile),    uint32_t(tiles_x),
                                                uint32_t(tiles_z), uint32_t(size_x),
                                                uint32_t(size_z),  uint32_t(border)};
    voxel::TileRowWindows row_windows[2], carry;  // carry: the rows the next row of tiles shares
    if (sink != nullptr && sink->spill != nullptr) {
        for (voxel::TileRowWindows& w : row_windows) w.spillTo(*sink->spill);
        carry.spillTo(*sink->spill);
    }
    std::vector<voxel::TileRowWindows::Decoded> decoded(windowed ? size_t(std::max(1, threads))
                                                                 : 0);
    // Tile t's compact field; `last`: its window is not decoded again.
    auto compact = [&](size_t t, int worker, CompactField& field, bool last) {
        TileWork& w = work[t];
        if (!windowed) {
            std::shared_lock<std::shared_mutex> reading(rows_mutex);
            buildCompactField(rows, agent, w.box, inner_threads, field);
            return;
        }
        const uint32_t tx = uint32_t(t % size_t(tiles_x)), tz = uint32_t(t / size_t(tiles_x));
        auto window =
            row_windows[tz % 2].window(window_layout, tx, tz, decoded[size_t(worker)], last);
        if (!window) throw std::runtime_error(window.error().message);
        buildCompactField(*window, agent, w.box, inner_threads, field);
    };
    auto partition = [&](size_t t, int worker, CompactField& field) {
        stage("compact", [&] { compact(t, worker, field, false); });
        if (params.partition == Partition::watershed)
            stage("distance field", [&] { buildDistanceField(field, inner_threads); });
        stage("partition", [&] { buildRegions(field, region_settings); });
    };
    // Pass 1.
    auto pass1 = [&](size_t t, int worker) {
        TileWork& w = work[t];
        CompactField& field = fieldOf(w, worker);
        partition(t, worker, field);
        stage("trace", [&] { traceContours(field, w.raw, w.seam); });
        if (sink) w.input_hash = fieldHash(field);
        // Several tiles: pass 2 builds the compact field again rather than every tile's field
        // being held at once (the same steps on the same input give the same field); the seam
        // points, the raw contours and the regions (2 bytes a span; the distance field and
        // watershed are most of a tile's work) wait for it.
        if (tile_count > 1) {
            w.region_count = field.region_count;
            packPassOne(w.raw, field.regions, w.pass_one, w.pass_one_size,
                        zstd_contexts[size_t(worker)]);
            w.raw = std::vector<Contour>();
        }
    };
    // Pass 2.
    auto pass2 = [&](size_t t, int worker) {
        TileWork& w = work[t];
        CompactField& field = fieldOf(w, worker);
        const int tx = int(t % size_t(tiles_x)), tz = int(t / size_t(tiles_x));
        uint64_t key = 0;
        if (sink) {
            // What the tile's polygons depend on: its field and its neighbours' (their seam
            // points), and the parameters.
            uint64_t parts[6] = {w.input_hash, 0, 0, 0, 0, params_hash};
            const int sx[4] = {tx - 1, tx, tx + 1, tx}, sz[4] = {tz, tz + 1, tz, tz - 1};
            for (int side = 0; side < 4; ++side)
                if (sx[side] >= 0 && sz[side] >= 0 && sx[side] < tiles_x && sz[side] < tiles_z)
                    parts[1 + side] =
                        work[size_t(sz[side]) * size_t(tiles_x) + size_t(sx[side])].input_hash;
            key = formats::xxhash64(parts, sizeof parts, 0);
            if (sink->cached && sink->cached(uint32_t(tx), uint32_t(tz), key)) {
                if (windowed) row_windows[size_t(tz) % 2].release(uint32_t(tx));
                w.raw = std::vector<Contour>();
                w.pass_one = std::vector<uint8_t>();
                return;
            }
        }
        SeamPoints neighbour_points;
        const int nx[4] = {tx - 1, tx, tx + 1, tx};
        const int nz[4] = {tz, tz + 1, tz, tz - 1};
        for (int side = 0; side < 4; ++side) {
            if (nx[side] < 0 || nz[side] < 0 || nx[side] >= tiles_x || nz[side] >= tiles_z)
                continue;
            const TileWork& other = work[size_t(nz[side]) * size_t(tiles_x) + size_t(nx[side])];
            neighbour_points[size_t(side)] = other.seam[size_t((side + 2) & 3)];
        }
        if (tile_count > 1) {
            compact(t, worker, field, true);
            field.region_count = w.region_count;
            unpackPassOne(w.pass_one, w.pass_one_size, w.raw, field.regions);
            w.pass_one = std::vector<uint8_t>();
        }
        std::vector<Contour> contours;
        stage("contours",
              [&] { buildContours(w.raw, neighbour_points, contour_settings, contours); });
        w.raw = std::vector<Contour>();
        stage("polygons", [&] {
            w.failed_contours =
                buildPolyMesh(field, contours, params.max_verts_per_poly, kWeldTolerance, w.mesh);
        });
        stage("detail",
              [&] { buildDetailMesh(grid, field, detail_settings, inner_threads, w.mesh); });
        w.region_count = field.region_count;
        if (tile_count == 1) w.field = CompactField{};
        if (sink) {
            NavmeshTile piece =
                standaloneTile(grid, w.mesh, w.region_count, params.max_verts_per_poly);
            piece.tile_x = uint32_t(tx);
            piece.tile_z = uint32_t(tz);
            w.mesh = TileMesh{};
            if (Status s = sink->take(std::move(piece), key); !s)
                throw std::runtime_error(s.error().message);
        }
    };
    if (!streamed || tile_count == 1) {
        // In memory: every tile's pass 1, then every tile's pass 2.
        ScopedTimer timer(context, "navmesh: tiles");
        auto held = feed(0, uint32_t(size_z));
        if (!held) return held.error();
        rows = *held;
        for (int pass : {1, 2}) {
            Status s = runParallelWorkers("navmesh", tile_count, threads, context, progress_done,
                                          progress_total, [&](size_t t, int worker) {
                                              if (pass == 1)
                                                  pass1(t, worker);
                                              else
                                                  pass2(t, worker);
                                          });
            if (!s) return s.error();
        }
    } else {
        // Streamed: tasks taken as soon as they can start (runDynamic, no barrier): read the
        // windows of tile row r (in order, while at most two tile rows are held: r <= the
        // oldest tile row whose pass 2 is not done + 1. Three, reading one row further ahead,
        // held 1-2 MiB more on the towers and city8 when rows were held whole; with two the
        // stage takes 4-5% longer on the towers, the same on the towns), pass 1 of a tile (in
        // order, once its row is read), pass 2 of a tile (in order, once it and its four
        // neighbours are through pass 1). Same tasks, same output.
        ScopedTimer timer(context, "navmesh: tiles");
        enum Kind : uint64_t { kRead = 0, kPass1 = 1, kPass2 = 2 };
        std::vector<uint8_t> pass1_done(tile_count, 0);
        std::vector<int> pass2_left(size_t(tiles_z), tiles_x);  // per tile row
        int rows_read = 0;                                      // tile rows [0, rows_read) read
        bool reading = false;                                   // a read is running
        int oldest = 0;                         // the first tile row with a pass 2 not done
        size_t next_pass1 = 0, next_pass2 = 0;  // tiles [0, next) taken
        auto through1 = [&](int tx, int tz) {
            return tx < 0 || tz < 0 || tx >= tiles_x || tz >= tiles_z ||
                   pass1_done[size_t(tz) * size_t(tiles_x) + size_t(tx)] != 0;
        };
        auto pick = [&](int) -> Pick {
            if (oldest == tiles_z) return Pick::finished();
            if (next_pass2 < tile_count) {
                const int tx = int(next_pass2 % size_t(tiles_x));
                const int tz = int(next_pass2 / size_t(tiles_x));
                if (through1(tx, tz) && through1(tx - 1, tz) && through1(tx + 1, tz) &&
                    through1(tx, tz - 1) && through1(tx, tz + 1))
                    return Pick::task(uint64_t(next_pass2++) << 2 | kPass2);
            }
            if (!reading && rows_read < tiles_z && rows_read <= oldest + 1) {
                reading = true;
                return Pick::task(uint64_t(rows_read) << 2 | kRead);
            }
            if (next_pass1 < tile_count && int(next_pass1 / size_t(tiles_x)) < rows_read)
                return Pick::task(uint64_t(next_pass1++) << 2 | kPass1);
            return Pick::later();
        };
        auto run = [&](uint64_t id, int worker) -> Status {
            const size_t index = size_t(id >> 2);
            switch (Kind(id & 3)) {
                case kRead:
                    // Row index: row two before it is through pass 2, its windows are free.
                    if (Status s = row_windows[index % 2].read(feed, window_layout, uint32_t(index),
                                                               {}, &carry);
                        !s)
                        return s;
                    break;
                case kPass1: pass1(index, worker); break;
                case kPass2: pass2(index, worker); break;
            }
            return {};
        };
        auto complete = [&](uint64_t id, int) {
            const size_t index = size_t(id >> 2);
            switch (Kind(id & 3)) {
                case kRead:
                    reading = false;
                    ++rows_read;
                    break;
                case kPass1: pass1_done[index] = 1; break;
                case kPass2:
                    --pass2_left[index / size_t(tiles_x)];
                    while (oldest < tiles_z && pass2_left[size_t(oldest)] == 0) ++oldest;
                    break;
            }
        };
        uint64_t progress_read = 0;
        Status s = runDynamic("navmesh", threads, context, progress_read,
                              progress_total + uint64_t(tiles_z), pick, run, complete);
        if (!s) return s.error();
        // The last rows let go before the tiles are stitched (the stitch held them beside every
        // tile's mesh and the output: tower60x6's peak).
        if (auto none = feed(size_z, size_z); !none) return none.error();
    }

    if (sink) {
        for (const TileWork& w : work) failed_contours += w.failed_contours;
        if (failed_contours > 0)
            context.warn("navmesh: {} contours could not be fully triangulated", failed_contours);
        context.progress("navmesh", progress_total, progress_total);
        return out;
    }
    // Stitch.
    ScopedTimer timer(context, "navmesh: stitch");
    struct Portal {
        uint32_t lo, hi, slot;
        bool forward;
    };
    std::vector<Portal> portals;
    std::unordered_map<uint64_t, std::vector<uint32_t>> seam_vertices;  // lookups only
    std::vector<int32_t> out_cells;  // x, y, z of each output vertex [cells]
    std::vector<uint32_t> remap;
    int failed = 0;
    for (size_t t = 0; t < tile_count; ++t) {
        TileWork& w = work[t];
        const TileMesh& m = w.mesh;
        const TileBox& b = w.box;
        failed += w.failed_contours;
        const uint32_t poly_base = uint32_t(out.poly_areas.size());
        const uint32_t region_base = out.region_count;
        remap.assign(m.vertices.size() / 3, UINT32_MAX);
        for (uint32_t v : m.poly_vertices) remap[v] = 0;  // used
        for (size_t v = 0; v < remap.size(); ++v) {
            if (remap[v] == UINT32_MAX) continue;
            const int32_t x = m.vertices[3 * v], y = m.vertices[3 * v + 1],
                          z = m.vertices[3 * v + 2];
            const bool on_seam = (x == b.x0 && b.x0 > 0) || (x == b.x1 && b.x1 < size_x) ||
                                 (z == b.z0 && b.z0 > 0) || (z == b.z1 && b.z1 < size_z);
            uint32_t id = UINT32_MAX;
            std::vector<uint32_t>* bucket = nullptr;
            if (on_seam) {
                bucket = &seam_vertices[(uint64_t(uint32_t(x)) << 32) | uint32_t(z)];
                for (uint32_t candidate : *bucket)
                    if (std::abs(out_cells[3 * size_t(candidate) + 1] - y) <= kWeldTolerance) {
                        id = candidate;
                        break;
                    }
            }
            if (id == UINT32_MAX) {
                id = uint32_t(out_cells.size() / 3);
                out_cells.insert(out_cells.end(), {x, y, z});
                if (bucket) bucket->push_back(id);
            }
            remap[v] = id;
        }
        for (size_t p = 0; p < m.polyCount(); ++p) {
            const uint32_t pb = m.poly_offsets[p], pe = m.poly_offsets[p + 1];
            for (uint32_t k = pb; k < pe; ++k) {
                const uint32_t slot = uint32_t(out.poly_vertices.size());
                const uint32_t v0 = remap[m.poly_vertices[k]];
                const uint32_t v1 = remap[m.poly_vertices[k + 1 < pe ? k + 1 : pb]];
                out.poly_vertices.push_back(v0);
                const uint32_t n = m.poly_neighbours[k];
                out.poly_neighbours.push_back(n == kNoNeighbour ? kNoNeighbour : poly_base + n);
                if (n == kNoNeighbour && m.edge_kinds[k] < 4)
                    portals.push_back({std::min(v0, v1), std::max(v0, v1), slot, v0 < v1});
            }
            out.poly_offsets.push_back(uint32_t(out.poly_vertices.size()));
            out.poly_areas.push_back(m.poly_areas[p]);
            out.poly_regions.push_back(region_base + m.poly_regions[p] - 1);
            out.poly_tiles.push_back(uint32_t(t));
        }
        const uint32_t detail_base = uint32_t(out.detail_triangles.size() / 9);
        for (size_t p = 1; p < m.detail_offsets.size(); ++p)
            out.detail_offsets.push_back(detail_base + m.detail_offsets[p]);
        out.detail_triangles.insert(out.detail_triangles.end(), m.detail_triangles.begin(),
                                    m.detail_triangles.end());
        out.region_count = region_base + w.region_count;
        w.mesh = TileMesh{};
    }

    // Portals across tile borders.
    std::vector<uint32_t> owner(out.poly_vertices.size());
    for (uint32_t p = 0; p + 1 < out.poly_offsets.size(); ++p)
        for (uint32_t k = out.poly_offsets[p]; k < out.poly_offsets[p + 1]; ++k) owner[k] = p;
    std::sort(portals.begin(), portals.end(), [](const Portal& a, const Portal& b) {
        if (a.lo != b.lo) return a.lo < b.lo;
        if (a.hi != b.hi) return a.hi < b.hi;
        if (a.forward != b.forward) return a.forward;
        return a.slot < b.slot;
    });
    size_t linked = 0;
    for (size_t g = 0; g < portals.size();) {
        size_t e = g;
        while (e < portals.size() && portals[e].lo == portals[g].lo &&
               portals[e].hi == portals[g].hi)
            ++e;
        size_t fwd = g, bwd = g;
        while (bwd < e && portals[bwd].forward) ++bwd;
        const size_t fwd_end = bwd;
        for (; fwd < fwd_end && bwd < e; ++fwd, ++bwd) {
            const uint32_t pa = owner[portals[fwd].slot], pb = owner[portals[bwd].slot];
            if (out.poly_tiles[pa] == out.poly_tiles[pb]) continue;
            out.poly_neighbours[portals[fwd].slot] = pb;
            out.poly_neighbours[portals[bwd].slot] = pa;
            ++linked;
        }
        g = e;
    }

    // World coordinates.
    out.vertices.resize(out_cells.size());
    for (size_t v = 0; v < out_cells.size(); v += 3) {
        out.vertices[v] = float(double(grid.origin[0]) + double(out_cells[v]) * grid.cell_size);
        out.vertices[v + 1] =
            float(double(grid.origin[1]) + double(out_cells[v + 1]) * grid.cell_height);
        out.vertices[v + 2] =
            float(double(grid.origin[2]) + double(out_cells[v + 2]) * grid.cell_size);
    }
    if (failed > 0) context.warn("navmesh: {} contours could not be fully triangulated", failed);
    context.debug(
        "navmesh: {} polygons, {} vertices, {} regions, {} tile-border links ({} "
        "tile-border edges without a partner)",
        out.polyCount(), out.vertexCount(), out.region_count, linked, portals.size() - 2 * linked);
    context.progress("navmesh", progress_total, progress_total);
    return out;
}

}  // namespace
}  // namespace nav::navmesh
