// Volume world tiles (flying agents): the implicit volume graph (a free-voxel bitmap with the
// MovingAI 3D move rule, graph.h) cut into tiles of columns at full height. A tile holds the free
// flags of its columns plus a ring of one column of its neighbours', so every move out of one of
// its voxels is decided by the tile alone (the move's box lies within the ring); the free flags
// are computed on a window of the world's grid that reaches the agent's clearance beyond the ring,
// so they are the whole world's, bit for bit. A move into the ring enters the neighbour's voxel
// when that tile is loaded (navrt::World). The portal graph over tiles (HPA*'s abstract graph,
// Botea, Mueller and Schaeffer 2004) has one portal pair per pair of components that meet across
// a tile border, joined inside a tile by straight lines (planning only; findPath is exact).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>

#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/graph/world.h"

namespace nav::graph {
namespace {

// What the stage keeps of a tile: its components (interior voxel counts), the components of the
// interior rim voxels on its +z and +x sides (what the rings of the tiles built after it reach:
// the next row's and its right neighbour's), and its free ring voxels with their components
// (joined with the rims of the tiles built before it).
struct VolumeTileSummary {
    bool present = false, built = false;
    uint64_t content = 0;
    uint64_t free_voxels = 0;  // interior
    uint32_t components = 0;
    std::vector<uint64_t> component_sizes;
    std::vector<uint32_t> rim_z, rim_x;  // rimComponent's order; kNoNode where not free
    struct RingVoxel {
        uint32_t x, y, z;
        uint32_t component;
    };
    std::vector<RingVoxel> ring;
};

// The component of interior rim voxel (x, y, z) of box b on its +z side (z = z1 - 1) or, else,
// its +x side (x = x1 - 1): the sides the rings of later tiles reach.
uint32_t rimComponent(const VolumeTileSummary& s, const WorldWindow& b, uint32_t x, uint32_t y,
                      uint32_t z) {
    if (z + 1 == b.z1) return s.rim_z[size_t(y) * (b.x1 - b.x0) + (x - b.x0)];
    return s.rim_x[size_t(y) * (b.z1 - b.z0) + (z - b.z0)];
}

void summarise(const Graph& g, const WorldWindow& b, VolumeTileSummary& s) {
    const uint32_t sx = g.header.size_x, sz = g.header.size_z, sy = g.header.size_y;
    s.components = g.header.component_count;
    s.component_sizes.assign(s.components, 0);
    s.rim_z.assign(size_t(b.x1 - b.x0) * sy, kNoNode);
    s.rim_x.assign(size_t(b.z1 - b.z0) * sy, kNoNode);
    s.ring.clear();
    s.free_voxels = 0;
    for (uint32_t y = 0; y < sy; ++y)
        for (uint32_t lz = 0; lz < sz; ++lz)
            for (uint32_t lx = 0; lx < sx; ++lx) {
                const size_t v = (size_t(y) * sz + lz) * sx + lx;
                const uint32_t c = g.components[v];
                if (c == kNoNode) continue;
                const uint32_t x = b.bx0 + lx, z = b.bz0 + lz;
                const bool inside = x >= b.x0 && x < b.x1 && z >= b.z0 && z < b.z1;
                if (!inside) {
                    s.ring.push_back({x, y, z, c});
                    continue;
                }
                ++s.free_voxels;
                ++s.component_sizes[c];
                if (z + 1 == b.z1) s.rim_z[size_t(y) * (b.x1 - b.x0) + (x - b.x0)] = c;
                if (x + 1 == b.x1) s.rim_x[size_t(y) * (b.z1 - b.z0) + (z - b.z0)] = c;
            }
    s.present = s.free_voxels > 0;
}

}  // namespace

Result<StageResult> runVolumeWorld(const WorldStage::Inputs& inputs,
                                   const WorldStage::Params& params,
                                   const std::filesystem::path& output, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid& frame = (*reader)->header();
    const WorldLayout layout = worldLayout(frame, params.tile_size);
    const std::filesystem::path folder = output.parent_path();
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    const uint32_t sy = frame.size_y;
    if (uint64_t(layout.tile_cells + 2) * (layout.tile_cells + 2) * sy >= kNoNode)
        return inputError(
            "world: a volume tile of {} x {} columns and {} layers is too large "
            "(fewer than 2^32 - 1 voxels; use smaller world tiles)",
            layout.tile_cells, layout.tile_cells, sy);
    // The window a tile's free flags are computed on: the ring and the clearance beyond it.
    const int clearance = voxel::metresToCells(params.agent_radius, frame.cell_size,
                                               voxel::CellRounding::up, 1 << 20);
    const uint32_t margin = uint32_t(clearance) + 1;
    std::vector<VolumeTileSummary> tiles(tile_count);
    uint64_t progress = 0;
    const int threads = resolveThreads(params.threads);
    voxel::GridRows rows;
    uint32_t tz = 0;
    auto tileTask = [&](size_t tile_in_row) {
        const uint32_t tx = uint32_t(tile_in_row);
        VolumeTileSummary& s = tiles[size_t(tz) * layout.tiles_x + tx];
        const WorldWindow b = tileWindow(layout, tx, tz);
        const uint32_t wx0 = b.x0 > margin ? b.x0 - margin : 0;
        const uint32_t wz0 = b.z0 > margin ? b.z0 - margin : 0;
        const uint32_t wx1 = std::min(layout.size_x, b.x1 + margin);
        const uint32_t wz1 = std::min(layout.size_z, b.z1 + margin);
        std::vector<uint8_t> prefix;
        for (uint64_t v : {layout.fingerprint, uint64_t(layout.tile_cells), uint64_t(tx),
                           uint64_t(tz), uint64_t(std::bit_cast<uint32_t>(params.agent_radius)),
                           uint64_t(params.compression), uint64_t(3)})  // 3: volume
            for (int k = 0; k < 8; ++k) prefix.push_back(uint8_t(v >> (8 * k)));
        s.content = columnsHash(frame, rows, wx0, wz0, wx1, wz1, std::move(prefix));
        const std::filesystem::path file = folder / worldTileFileName(s.content);
        if (std::filesystem::exists(file)) {
            auto loaded = loadContainer(file, formats::kKindNav, formats::kNavVersion);
            auto graph = loaded ? decodeGraph(*loaded) : Result<Graph>(loaded.error());
            if (graph && graph->header.type == GraphType::volume &&
                graph->header.size_x == b.bx1 - b.bx0 && graph->header.size_z == b.bz1 - b.bz0 &&
                graph->header.size_y == sy) {
                summarise(*graph, b, s);
                return;
            }
        }
        Context quiet;
        const voxel::VoxelGrid window = voxel::cropGrid(frame, rows, wx0, wz0, wx1, wz1);
        auto free = volumeFreeVoxels(window, params.agent_radius, quiet);
        if (!free) throw std::runtime_error(free.error().message);
        // The box's flags out of the window's.
        const voxel::VoxelGrid box = voxel::cropGrid(frame, rows, b.bx0, b.bz0, b.bx1, b.bz1);
        const size_t bw = b.bx1 - b.bx0, bd = b.bz1 - b.bz0, ww = wx1 - wx0, wd = wz1 - wz0;
        std::vector<uint8_t> flags(bw * bd * sy);
        for (uint32_t y = 0; y < sy; ++y)
            for (size_t lz = 0; lz < bd; ++lz)
                std::copy_n(
                    free->data() + (size_t(y) * wd + (b.bz0 - wz0 + lz)) * ww + (b.bx0 - wx0), bw,
                    flags.data() + (size_t(y) * bd + lz) * bw);
        *free = std::vector<uint8_t>();
        auto graph = volumeGraphFromFree(box, params.agent_radius, std::move(flags), quiet);
        if (!graph) throw std::runtime_error(graph.error().message);
        s.built = true;
        summarise(*graph, b, s);
        if (!s.present) return;
        formats::ContainerWriter writer =
            graphWriter(*graph, formats::kKindNav, params.compression);
        std::vector<uint8_t> head(formats::kWorldTileHeaderSize);
        formats::encodeWorldTileHeader(worldTileHeader(layout, tx, tz, 0), head.data());
        writer.add(formats::kSecWorldTileHeader, std::move(head), formats::Codec::raw);
        if (Status st = saveContainer(file, writer); !st)
            throw std::runtime_error(st.error().message);
    };
    // World components and portals, a row of tiles at a time as rows finish: each tile's ring
    // voxels joined with the rims of the tiles built before it (its row's left part and the row
    // before); the tiles after it join theirs with its rim.
    std::vector<uint32_t> component_base(tile_count + 1, 0);
    ComponentJoin join;
    std::vector<uint64_t> component_sizes;  // per global component: its free voxels
    struct PortalKey {
        uint32_t a_tile, b_tile, a_component, b_component;
        bool operator<(const PortalKey& o) const {
            return std::tie(a_tile, b_tile, a_component, b_component) <
                   std::tie(o.a_tile, o.b_tile, o.a_component, o.b_component);
        }
    };
    struct PortalVoxel {
        uint32_t tile, component, x, y, z;
    };
    std::map<PortalKey, std::pair<PortalVoxel, PortalVoxel>> meetings;
    for (tz = 0; tz < layout.tiles_z; ++tz) {
        // A shard builds the tiles of every shard_count-th row of tiles into the cache; the run
        // without a shard reuses them.
        if (params.shard_count > 0 && tz % params.shard_count != params.shard_index) continue;
        const uint32_t z0 = tz * layout.tile_cells;
        const uint32_t z1 = std::min(layout.size_z, z0 + layout.tile_cells);
        auto band =
            (*reader)->rows(z0 > margin ? z0 - margin : 0, std::min(layout.size_z, z1 + margin));
        if (!band) return band.error();
        rows = std::move(*band);
        if (Status s = runParallel("world volume tiles", layout.tiles_x, threads, context, progress,
                                   tile_count, tileTask);
            !s)
            return s.error();
        if (params.shard_count > 0) continue;
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            const uint32_t i = tz * layout.tiles_x + tx;
            VolumeTileSummary& a = tiles[i];
            join.add(a.present ? a.components : 0);
            component_base[i + 1] = join.size();
            if (a.present)
                component_sizes.insert(component_sizes.end(), a.component_sizes.begin(),
                                       a.component_sizes.end());
            if (!a.present) {
                a.ring = decltype(a.ring)();
                continue;
            }
            for (const VolumeTileSummary::RingVoxel& r : a.ring) {
                const uint32_t j =
                    (r.z / layout.tile_cells) * layout.tiles_x + r.x / layout.tile_cells;
                if (j > i || !tiles[j].present) continue;  // built later: it joins with a's rim
                const WorldWindow bj = tileWindow(layout, j % layout.tiles_x, j / layout.tiles_x);
                const uint32_t cb = rimComponent(tiles[j], bj, r.x, r.y, r.z);
                if (cb == kNoNode) continue;  // not free for j (cannot be: the same flags)
                join.join(component_base[i] + r.component, component_base[j] + cb);
                const WorldWindow bi = tileWindow(layout, tx, tz);
                const PortalVoxel in_a{i, r.component, std::clamp(r.x, bi.x0, bi.x1 - 1), r.y,
                                       std::clamp(r.z, bi.z0, bi.z1 - 1)};
                meetings.emplace(PortalKey{i, j, r.component, cb},
                                 std::pair{in_a, PortalVoxel{j, cb, r.x, r.y, r.z}});
            }
            a.ring = decltype(a.ring)();
        }
        // The +x rims were for this row, the +z rims of the row before for this row: no longer
        // read.
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            tiles[tz * layout.tiles_x + tx].rim_x = std::vector<uint32_t>();
            if (tz > 0) tiles[(tz - 1) * layout.tiles_x + tx].rim_z = std::vector<uint32_t>();
        }
    }
    if (params.shard_count > 0) {
        std::vector<WorldShardTile> listed;
        for (const VolumeTileSummary& t : tiles) listed.push_back({t.present, t.built, t.content});
        return writeWorldShardPart(output, params, listed);
    }
    if (Status s = (*reader)->finish(); !s) return s.error();
    const std::vector<uint32_t> world_component = join.number();
    const std::vector<uint64_t> island_sizes =
        ComponentJoin::sizes(world_component, component_sizes);
    // Portals: both voxels of each meeting; edges across (the move's length) and, inside a tile,
    // straight lines between the portals of one component.
    WorldIndex index;
    auto centre = [&](const PortalVoxel& v) {
        return std::array<float, 3>{frame.origin[0] + (float(v.x) + 0.5f) * frame.cell_size,
                                    frame.origin[1] + (float(v.y) + 0.5f) * frame.cell_height,
                                    frame.origin[2] + (float(v.z) + 0.5f) * frame.cell_size};
    };
    auto distance = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
        const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        return float(std::sqrt(dx * dx + dy * dy + dz * dz));
    };
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> by_tile(tile_count);  // (portal, comp)
    auto addPortal = [&](const PortalVoxel& v) {
        const uint32_t id = uint32_t(index.portals.size());
        WorldIndex::Portal& p = index.portals.emplace_back();
        p.tile = v.tile;
        p.column = v.z * layout.size_x + v.x;
        p.y = int32_t(v.y);
        p.position = centre(v);
        by_tile[v.tile].push_back({id, v.component});
        return id;
    };
    for (const auto& [key, pair] : meetings) {
        const uint32_t a = addPortal(pair.first), b = addPortal(pair.second);
        const float d = distance(index.portals[a].position, index.portals[b].position);
        index.portals[a].edges.push_back({b, d});
        index.portals[b].edges.push_back({a, d});
    }
    meetings.clear();
    for (const auto& mine : by_tile)
        for (const auto& [p, cp] : mine)
            for (const auto& [q, cq] : mine)
                if (p != q && cp == cq)
                    index.portals[p].edges.push_back(
                        {q, distance(index.portals[p].position, index.portals[q].position)});
    // Portals in (tile, column, y) order, as the other worlds'.
    {
        std::vector<uint32_t> order(index.portals.size());
        for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            const auto &p = index.portals[a], &q = index.portals[b];
            return std::tie(p.tile, p.column, p.y, a) < std::tie(q.tile, q.column, q.y, b);
        });
        std::vector<uint32_t> renumber(order.size());
        for (uint32_t k = 0; k < order.size(); ++k) renumber[order[k]] = k;
        std::vector<WorldIndex::Portal> sorted;
        sorted.reserve(order.size());
        for (uint32_t k : order) {
            sorted.push_back(std::move(index.portals[k]));
            for (auto& [t, c] : sorted.back().edges) t = renumber[t];
        }
        index.portals = std::move(sorted);
    }
    formats::WorldHeader& h = index.header;
    h = worldIndexHeader(layout, frame, uint32_t(formats::GraphType::volume));
    uint64_t voxels = 0, built = 0;
    for (uint32_t i = 0; i < tile_count; ++i) {
        if (!tiles[i].present) continue;
        built += tiles[i].built;
        voxels += tiles[i].free_voxels;
        addIndexTile(index, i, tiles[i].free_voxels, tiles[i].content, world_component,
                     component_base[i], tiles[i].components);
    }
    if (Status s = saveWorldIndex(output, index); !s) return s.error();

    StageResult result = worldStageResult(h, built, start, {{"free_voxels", voxels}});
    reportIslands(island_sizes, result);
    result.summary.push_back(fmt::format(
        "volume world: {} x {} tiles of {} columns and {} layers ({} with free voxels: {} built, "
        "{} reused), {} free voxels, {} portals -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, sy, h.tile_count, built,
        h.tile_count - built, voxels, h.portal_count, output.string()));
    return result;
}

}  // namespace nav::graph
