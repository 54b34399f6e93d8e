#include "lib/graph/world.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include "formats/bytes.h"
#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"
#include "lib/voxel/voxelize.h"

namespace nav::graph {
namespace {

template <class T>
void appendBytes(std::vector<uint8_t>& out, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    out.insert(out.end(), p, p + sizeof(T));
}

using Window = WorldWindow;

}  // namespace

WorldWindow tileWindow(const WorldLayout& layout, uint32_t tx, uint32_t tz) {
    WorldWindow w;
    w.x0 = tx * layout.tile_cells;
    w.z0 = tz * layout.tile_cells;
    w.x1 = std::min(layout.size_x, w.x0 + layout.tile_cells);
    w.z1 = std::min(layout.size_z, w.z0 + layout.tile_cells);
    w.bx0 = w.x0 > 0 ? w.x0 - 1 : 0;
    w.bz0 = w.z0 > 0 ? w.z0 - 1 : 0;
    w.bx1 = std::min(layout.size_x, w.x1 + 1);
    w.bz1 = std::min(layout.size_z, w.z1 + 1);
    return w;
}

namespace {

std::string tileFileName(uint64_t content) { return fmt::format("worldtile-{:016x}.nav", content); }

// A tile's content hash with the gradient costs it was built with (unchanged without).
uint64_t withGradients(uint64_t content, const WorldStage::Params& params) {
    if (!(params.uphill > 0) && !(params.downhill > 0)) return content;
    const double parts[3] = {std::bit_cast<double>(content), double(params.uphill),
                             double(params.downhill)};
    return formats::xxhash64(parts, sizeof parts, 1);
}

}  // namespace

voxel::TileWindowLayout tileWindowLayout(const WorldLayout& layout) {
    return {layout.tile_cells, layout.tiles_x, layout.tiles_z, layout.size_x, layout.size_z, 1};
}

voxel::RowSource rowSource(voxel::VoxelRowReader& reader) {
    return
        [&reader](uint32_t keep_from, uint32_t need_to) { return reader.rows(keep_from, need_to); };
}

uint32_t tileOfColumn(const WorldLayout& layout, uint32_t column) {
    const uint32_t x = column % layout.size_x, z = column / layout.size_x;
    return (z / layout.tile_cells) * layout.tiles_x + x / layout.tile_cells;
}

namespace {

// The world columns within `radius` metres of p's column, and two more (EndFinder looks one
// column beyond its reach), clipped to the world.
void columnsAround(const voxel::VoxelGrid& frame, const float p[3], double radius,
                   std::vector<uint32_t>& out) {
    const double fx = (double(p[0]) - frame.origin[0]) / frame.cell_size;
    const double fz = (double(p[2]) - frame.origin[2]) / frame.cell_size;
    if (!std::isfinite(fx) || !std::isfinite(fz) || !std::isfinite(radius)) return;
    const int64_t reach = int64_t(std::ceil(radius / frame.cell_size)) + 2;
    const int64_t cx = int64_t(std::floor(fx)), cz = int64_t(std::floor(fz));
    for (int64_t z = std::max<int64_t>(0, cz - reach);
         z <= std::min<int64_t>(int64_t(frame.size_z) - 1, cz + reach); ++z)
        for (int64_t x = std::max<int64_t>(0, cx - reach);
             x <= std::min<int64_t>(int64_t(frame.size_x) - 1, cx + reach); ++x)
            out.push_back(uint32_t(z * frame.size_x + x));
}

}  // namespace

WorldLayout worldLayout(const voxel::VoxelGrid& world, double tile_size) {
    WorldLayout l;
    l.tile_cells = uint32_t(std::max(8.0, std::round(tile_size / double(world.cell_size))));
    l.size_x = world.size_x;
    l.size_z = world.size_z;
    l.tiles_x = (world.size_x + l.tile_cells - 1) / l.tile_cells;
    l.tiles_z = (world.size_z + l.tile_cells - 1) / l.tile_cells;
    std::vector<uint8_t> frame;
    for (uint32_t v : {world.size_x, world.size_z, world.size_y}) appendBytes(frame, v);
    for (float v :
         {world.origin[0], world.origin[1], world.origin[2], world.cell_size, world.cell_height,
          world.agent.height, world.agent.radius, world.agent.climb, world.agent.max_slope_deg})
        appendBytes(frame, v);
    for (const geometry::AreaType& a : world.areas) {
        appendBytes(frame, a.cost);
        appendBytes(frame, uint8_t(a.walkable));
    }
    l.fingerprint = formats::xxhash64(frame.data(), frame.size(), 0);
    return l;
}

uint64_t columnsHash(const voxel::VoxelGrid& frame, const voxel::GridRows& rows, uint32_t x0,
                     uint32_t z0, uint32_t x1, uint32_t z1, std::vector<uint8_t> bytes) {
    for (uint32_t z = z0; z < z1; ++z)
        for (uint32_t x = x0; x < x1; ++x) {
            const size_t c = size_t(z) * frame.size_x + x;
            appendBytes(bytes, rows.end(c) - rows.begin(c));
            for (uint32_t i = rows.begin(c); i < rows.end(c); ++i) {
                const voxel::Span& s = rows.span(i);
                appendBytes(bytes, s.y_min);
                appendBytes(bytes, s.y_max);
                appendBytes(bytes, s.area);
                appendBytes(bytes, uint8_t(s.walkable));
            }
        }
    return formats::xxhash64(bytes.data(), bytes.size(), 0);
}

uint64_t tileContentHash(const voxel::VoxelGrid& frame, const voxel::GridRows& rows,
                         const WorldLayout& layout, uint32_t tx, uint32_t tz) {
    const Window w = tileWindow(layout, tx, tz);
    std::vector<uint8_t> bytes;
    bytes.reserve(4 * sizeof(uint64_t));
    for (uint64_t v : {layout.fingerprint, uint64_t(layout.tile_cells), uint64_t(tx), uint64_t(tz)})
        appendBytes(bytes, v);
    return columnsHash(frame, rows, w.bx0, w.bz0, w.bx1, w.bz1, std::move(bytes));
}

uint64_t tileContentHash(const voxel::VoxelGrid& world, const WorldLayout& layout, uint32_t tx,
                         uint32_t tz) {
    return tileContentHash(world, voxel::GridRows::whole(world), layout, tx, tz);
}

Result<WorldTile> buildWorldTile(const voxel::VoxelGrid& world, const WorldLayout& layout,
                                 uint32_t tx, uint32_t tz, Context& context) {
    return buildWorldTile(world, voxel::GridRows::whole(world), layout, tx, tz, context);
}

Result<WorldTile> buildWorldTile(const voxel::VoxelGrid& world, const voxel::GridRows& rows,
                                 const WorldLayout& layout, uint32_t tx, uint32_t tz,
                                 Context& context) {
    const Window w = tileWindow(layout, tx, tz);
    voxel::VoxelGrid crop = voxel::cropGrid(world, rows, w.bx0, w.bz0, w.bx1, w.bz1);
    auto built = buildTileGraph(crop, context);
    if (!built) return built.error();
    crop = voxel::VoxelGrid();  // (the graph is built: its spans go)
    const Graph& b = *built;
    const uint32_t cw = w.bx1 - w.bx0;
    const uint32_t iw = w.x1 - w.x0, id = w.z1 - w.z0;
    auto worldColumn = [&](uint32_t local) {
        return std::pair<uint32_t, uint32_t>{w.bx0 + local % cw, w.bz0 + local / cw};
    };
    auto interior = [&](uint32_t node) {
        const auto [x, z] = worldColumn(b.cells[node].column);
        return x >= w.x0 && x < w.x1 && z >= w.z0 && z < w.z1;
    };
    std::vector<uint32_t> renumber(b.cells.size(), kNoNode);
    WorldTile tile;
    Graph& g = tile.graph;
    g.header = headerForGrid(voxel::cropHeader(world, w.x0, w.z0, w.x1, w.z1), GraphType::tile);
    g.header.heuristic = b.header.heuristic;
    g.header.min_cost_multiplier = b.header.min_cost_multiplier;
    g.areas = b.areas;
    g.source_name = b.source_name;
    // Nodes in the whole graph's order (column by column, z-major, bottom to top), positions in
    // the world frame (the whole graph's expression, so bitwise equal).
    g.column_nodes.assign(size_t(iw) * id + 1, 0);
    g.cells.reserve(b.cells.size());
    g.positions.reserve(b.positions.size());
    for (uint32_t n = 0; n < b.cells.size(); ++n) {
        if (!interior(n)) continue;
        const auto [x, z] = worldColumn(b.cells[n].column);
        renumber[n] = uint32_t(g.cells.size());
        formats::NodeCell cell = b.cells[n];
        cell.column = (z - w.z0) * iw + (x - w.x0);
        g.cells.push_back(cell);
        g.positions.insert(
            g.positions.end(),
            {world.origin[0] + (float(x) + 0.5f) * world.cell_size, b.positions[3 * size_t(n) + 1],
             world.origin[2] + (float(z) + 0.5f) * world.cell_size});
        g.column_nodes[cell.column + 1] = uint32_t(g.cells.size());
    }
    for (size_t c = 1; c < g.column_nodes.size(); ++c)
        g.column_nodes[c] = std::max(g.column_nodes[c], g.column_nodes[c - 1]);
    g.edge_offsets.reserve(g.cells.size() + 1);
    // (At most the window's edges: sized once instead of grown by doubling.)
    g.edge_targets.reserve(b.edge_targets.size());
    g.edge_costs.reserve(b.edge_costs.size());
    for (uint32_t n = 0; n < b.cells.size(); ++n) {
        if (renumber[n] == kNoNode) continue;
        g.edge_offsets.push_back(uint32_t(g.edge_targets.size()));
        for (uint32_t e = b.edge_offsets[n]; e < b.edge_offsets[n + 1]; ++e) {
            const uint32_t t = b.edge_targets[e];
            if (renumber[t] != kNoNode) {
                g.edge_targets.push_back(renumber[t]);
                g.edge_costs.push_back(b.edge_costs[e]);
            } else {
                const auto [x, z] = worldColumn(b.cells[t].column);
                tile.seams.push_back(
                    {renumber[n], z * layout.size_x + x, b.cells[t].y, b.edge_costs[e]});
            }
        }
    }
    g.edge_offsets.push_back(uint32_t(g.edge_targets.size()));
    finalizeGraph(g);
    tile.header = worldTileHeader(layout, tx, tz, uint32_t(tile.seams.size()));
    return tile;
}

formats::WorldTileHeader worldTileHeader(const WorldLayout& layout, uint32_t tx, uint32_t tz,
                                         uint32_t seam_count) {
    formats::WorldTileHeader h;
    h.tile_x = tx;
    h.tile_z = tz;
    h.tiles_x = layout.tiles_x;
    h.tiles_z = layout.tiles_z;
    h.tile_cells = layout.tile_cells;
    h.world_size_x = layout.size_x;
    h.world_size_z = layout.size_z;
    h.x0 = tx * layout.tile_cells;
    h.z0 = tz * layout.tile_cells;
    h.seam_count = seam_count;
    h.world_fingerprint = layout.fingerprint;
    return h;
}

uint64_t addWorldTileGradients(WorldTile& tile, const voxel::VoxelGrid& frame, float uphill,
                               float downhill) {
    if (!(uphill > 0) && !(downhill > 0)) return 0;
    uint64_t changed = addGradientCosts(tile.graph, uphill, downhill);
    for (formats::SeamRecord& s : tile.seams) {
        // The target's position as the whole graph computes it (grid.topY of its span).
        const float target_y = frame.origin[1] + float(s.y) * frame.cell_height;
        const double dy = double(target_y) - double(tile.graph.positions[3 * size_t(s.from) + 1]);
        const double extra = dy > 0 ? uphill * dy : downhill * -dy;
        if (extra > 0) {
            s.cost = float(double(s.cost) + extra);
            ++changed;
        }
    }
    return changed;
}

Status saveWorldTile(const std::filesystem::path& path, const WorldTile& tile, int compression) {
    formats::ContainerWriter writer = graphWriter(tile.graph, formats::kKindNav, compression);
    std::vector<uint8_t> header(formats::kWorldTileHeaderSize);
    formats::encodeWorldTileHeader(tile.header, header.data());
    writer.add(formats::kSecWorldTileHeader, std::move(header), formats::Codec::raw);
    std::vector<uint8_t> seams(tile.seams.size() * formats::kSeamRecordSize);
    for (size_t i = 0; i < tile.seams.size(); ++i)
        formats::encodeSeam(tile.seams[i], seams.data() + i * formats::kSeamRecordSize);
    writer.add(formats::kSecWorldSeams, std::move(seams));
    for (const WorldTile::Section& section : tile.extra)
        writer.add(section.id, section.bytes, section.codec);
    if (!tile.seam_links.empty()) {
        std::vector<uint8_t> records = encodeLinkRecords(tile.cross_links);
        std::vector<uint8_t> seam_links(tile.seam_links.size() * 4);
        for (size_t i = 0; i < tile.seam_links.size(); ++i)
            formats::storeLe32(seam_links.data() + 4 * i, tile.seam_links[i]);
        writer.add(formats::kSecWorldSeamLinks, std::move(seam_links));
        writer.add(formats::kSecWorldLinks, std::move(records));
        if (!tile.graph.link_type_names.empty())
            writer.add(formats::kSecWorldLinkTypes, encodeLinkTypeNames(tile.graph.link_type_names),
                       formats::Codec::raw);
    }
    return saveContainer(path, writer);
}

// ---- The stage ---------------------------------------------------------------------------------

ParamIssues WorldStage::check(const Params& params) {
    ParamCheck check;
    if (params.kind == GraphKind::navmesh)
        for (ParamIssue& issue : navmesh::checkNavmeshParams(params.navmesh))
            if (issue.field != "tile_size" && issue.field != "threads")
                check.issues.push_back(std::move(issue));
    check.nonNegative("agent_radius", params.agent_radius);
    checkSurfaceParams(params.seeds, params.points, check);
    check.require(
        params.kind != GraphKind::volume || (params.seeds.empty() && params.points.empty()),
        "seeds", fmt::format("{} seeds, {} points", params.seeds.size(), params.points.size()),
        "none on volume world tiles (flyers have no surface)");
    check.require((params.kind != GraphKind::dirichlet && params.kind != GraphKind::pov) ||
                      (params.seeds.empty() && params.points.empty()),
                  "seeds",
                  fmt::format("{} seeds, {} points", params.seeds.size(), params.points.size()),
                  "none on a Dirichlet or POV world (the whole graph it is cut from takes them)");
    check.positive("tile_size", params.tile_size);
    check.range("uphill", params.uphill, 0.0f, 1000.0f, "m per m");
    check.range("downhill", params.downhill, 0.0f, 1000.0f, "m per m");
    check.threads("threads", params.threads);
    check.range("compression", params.compression, 1, 19);
    geometry::checkLinkSpecs(params.links, check);
    for (ParamIssue& issue : checkLinkGenParams(params.generate))
        check.issues.push_back(std::move(issue));
    check.require(params.shard_count == 0 || params.shard_index < params.shard_count, "shard",
                  fmt::format("{}/{}", params.shard_index, params.shard_count),
                  "K/N with 0 <= K < N");
    return check.issues;
}

void WorldStage::describe(const Params& params, StageKey& key) {
    if (params.kind == GraphKind::dirichlet) key.add("kind", "dirichlet");
    if (params.kind == GraphKind::pov) key.add("kind", "pov");
    if (params.kind == GraphKind::volume)
        key.add("kind", "volume").add("radius", params.agent_radius);
    if (params.kind == GraphKind::navmesh) {
        key.add("kind", "navmesh");
        navmesh::NavmeshParams n = params.navmesh;
        n.tile_size = 0;  // the world's tile_size
        navmesh::describeNavmeshParams(n, key);
    }
    key.add("tile_size", params.tile_size);
    key.add("compression", params.compression);
    if (params.uphill > 0 || params.downhill > 0)
        key.add("uphill", params.uphill).add("downhill", params.downhill);
    describeSurface(params.seeds, params.points, key);
    geometry::describeLinks(params.links, key);
    describeLinkGen(params.generate, key);
    if (params.scene_links_shared) key.add("scene_links_shared", true);
}

Result<MemoryEstimate> WorldStage::estimateMemory(const Inputs& inputs, const Params& params) {
    auto header = voxel::loadVoxelHeader(inputs.voxels);
    if (!header) return header.error();
    const formats::VoxelHeader& h = *header;
    // The file (read whole, decoded by rows), a band of tile rows of the grid (4 bytes per
    // column, 8 per span), and per tile in flight its graph (the tile graph's ~180 bytes per
    // walkable span, measured) over its share of the walkable spans.
    const uint64_t columns = uint64_t(h.size_x) * h.size_z;
    const double cells = std::max(8.0, std::round(params.tile_size / double(h.cell_size)));
    const double per_column = columns ? double(h.span_count) / double(columns) : 0;
    const double band = std::min(double(columns), (cells + 2) * double(h.size_x));
    const double tile_share =
        std::min(1.0, cells * cells / double(std::max<uint64_t>(columns, 1)) * 2);
    const uint64_t threads = uint64_t(resolveThreads(params.threads));
    std::error_code ec;
    const uint64_t file = std::filesystem::file_size(inputs.voxels, ec);
    // Then the seam sources of two rows of tiles (an entry per border cell of a walkable layer,
    // ~48 bytes in a hash map; four borders), and a summary per tile.
    const double walkable_per_column = columns ? double(h.walkable_count) / double(columns) : 0;
    const double tiles = double(columns) / std::max(1.0, cells * cells);
    const uint64_t zstd_contexts = threads * (params.compression >= 16   ? uint64_t(20) << 20
                                              : params.compression >= 10 ? uint64_t(8) << 20
                                                                         : uint64_t(2) << 20);
    if (params.kind == GraphKind::pov) {
        // The POV graph read whole (its layer cells ~40 bytes each with their links, components
        // and the cut's maps; its corners and taut edges, estimated as the graph stage does: a
        // corner per 4 walkable cells, 24 edges each), a tile's share and its writer.
        std::error_code graph_ec;
        const uint64_t graph_file =
            inputs.graph.empty() ? 0 : std::filesystem::file_size(inputs.graph, graph_ec);
        const uint64_t bytes = kStageBaseBytes + uint64_t(h.walkable_count) * 48 + columns * 4 +
                               (graph_ec ? 0 : graph_file * 4) + zstd_contexts / threads;
        return MemoryEstimate{
            bytes, fmt::format("{} columns, {} walkable cells", columns, h.walkable_count),
            "a larger cell size or bake bounds"};
    }
    if (params.kind == GraphKind::dirichlet) {
        // The Dirichlet graph read whole (its domain cells: 8 bytes each, 4 for the owner, 4 a
        // column for the column index; its waypoint graph is small), one tile's cells and the
        // tile's writer.
        const uint64_t bytes = kStageBaseBytes + uint64_t(h.walkable_count) * 16 * 2 + columns * 4 +
                               uint64_t(cells * cells) * 16 * 2 + zstd_contexts / threads;
        return MemoryEstimate{
            bytes,
            fmt::format("{} columns, {} walkable cells in domains", columns, h.walkable_count),
            "a larger cell size or bake bounds"};
    }
    if (params.kind == GraphKind::volume) {
        // Per tile in flight its window's voxels (the clearance and ring around it; ~8 bytes a
        // voxel while its free flags and components are made), and per tile two rows of rim and
        // ring components (4 bytes a voxel of its four sides).
        const double window = (cells + 2 + 2 * 4) * (cells + 2 + 2 * 4) * double(h.size_y);
        const uint64_t bytes =
            kStageBaseBytes + (ec ? 0 : file) + uint64_t(band * (4 + per_column * 8)) +
            uint64_t(double(threads) * window * 8) +
            uint64_t(2 * double(h.size_x) / cells * 4 * cells * h.size_y * 8) + zstd_contexts;
        return MemoryEstimate{bytes,
                              fmt::format("{} columns, {} layers, volume tiles of {} columns",
                                          columns, h.size_y, cells),
                              "smaller world tiles, fewer --threads or a larger cell size"};
    }
    // The tile graph world's bake (the world itself, or a navmesh world's surface check).
    const uint64_t tile_world =
        kStageBaseBytes + (ec ? 0 : file) + uint64_t(band * (4 + per_column * 8)) +
        uint64_t(double(threads) * tile_share * double(h.walkable_count) * 180) +
        uint64_t(2 * 4 * double(h.size_x) * walkable_per_column * 48) + uint64_t(tiles * 512) +
        // and a zstd context per thread at the tiles' level (measured on city22: 15-20 MiB a
        // thread more at 19 than at 6)
        zstd_contexts;
    // Seeds: a byte per walkable cell of the world (reached), and up to 16 decoded tiles.
    const uint64_t surface =
        params.seeds.empty() && params.points.empty()
            ? 0
            : h.walkable_count + uint64_t(16 * cells * cells * walkable_per_column * 180);
    if (params.kind == GraphKind::navmesh) {
        // The navmesh's tiled build: two rows of tiles' windows (its columns and a border of
        // the agent's radius and 3 cells) held zstd-compressed (~4 bytes a span, a byte a
        // column), per thread a tile's window in flight (its compact field, distance field,
        // regions and contours: ~64 bytes a span), two rows of tiles' pass-1 results waiting for
        // their neighbours (regions and raw contours, ~8 bytes a span), and per tile a summary
        // (its border edges and their costs inside it, ~16 KiB). On city22 (1 thread): 57 MiB
        // estimated, 22 MiB measured.
        const double border = std::ceil(double(h.agent_radius) / double(h.cell_size)) + 3;
        const double window = cells + 2 * border;
        const double rows2 = std::min(double(columns), 2 * window * double(h.size_x));
        const double pending = std::min(double(columns), 2 * cells * double(h.size_x));
        const uint64_t mesh_world =
            kStageBaseBytes + (ec ? 0 : file) + uint64_t(rows2 * (per_column * 4 + 1)) +
            uint64_t(double(threads) * window * window * per_column * 64) +
            uint64_t(pending * per_column * 8) + uint64_t(tiles * 16384) + zstd_contexts;
        const uint64_t bytes = std::max(mesh_world, surface > 0 ? tile_world : 0) + surface;
        return MemoryEstimate{bytes,
                              fmt::format("{} columns, {} spans, navmesh tiles of {} cells",
                                          columns, h.span_count, cells),
                              "smaller world tiles, fewer --threads or a larger cell size"};
    }
    const uint64_t bytes = tile_world + surface;
    return MemoryEstimate{bytes,
                          fmt::format("{} columns, {} spans, {} walkable, tiles of {} cells",
                                      columns, h.span_count, h.walkable_count, cells),
                          "smaller world tiles, fewer --threads or a larger cell size"};
}

namespace {

// A portal: a walkable cell on a tile border with a seam edge.
struct PortalCell {
    uint32_t tile;    // tile index
    uint32_t column;  // world column
    int32_t y;
    bool operator<(const PortalCell& o) const {
        return std::tie(tile, column, y) < std::tie(o.tile, o.column, o.y);
    }
    bool operator==(const PortalCell& o) const = default;
};

// Cells (keys) with a value each, looked up by key: added, then sealed (sorted; of equal keys the
// one added last stands) before lookups. 12 bytes a cell where a hash map took ~40: the link
// ends of the world are held while its components are joined.
class CellTable {
public:
    void add(uint64_t key, uint32_t value) { entries_.push_back({key, value}); }
    void seal() {
        std::stable_sort(entries_.begin(), entries_.end(),
                         [](const Entry& a, const Entry& b) { return a.key < b.key; });
        size_t out = 0;
        for (size_t i = 0; i < entries_.size(); ++i) {
            if (i + 1 < entries_.size() && entries_[i + 1].key == entries_[i].key) continue;
            entries_[out++] = entries_[i];
        }
        entries_.resize(out);
    }
    // The value of `key`, or kNoNode.
    uint32_t find(uint64_t key) const {
        auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                   [](const Entry& e, uint64_t k) { return e.key < k; });
        return it != entries_.end() && it->key == key ? it->value : kNoNode;
    }
    void clear() { entries_.clear(); }
    void release() { entries_ = std::vector<Entry>(); }
    void swap(CellTable& other) { entries_.swap(other.entries_); }

private:
    struct [[gnu::packed]] Entry {
        uint64_t key;
        uint32_t value;
    };
    std::vector<Entry> entries_;
};

// What pass 1 keeps of each tile: its seams' representatives (one per run of border cells that
// cross into the same neighbour) and the tile's node count.
struct TileSummary {
    bool present = false;
    uint64_t content = 0;
    uint32_t nodes = 0, seams = 0;
    bool built = false;
    uint64_t gradient_edges = 0;  // edges and seams with gradient costs (tiles built only)
    struct Crossing {
        PortalCell from, to;
        float cost;
    };
    // Its crossings: crossing_count records at crossings_at of the stage's spill file (read back
    // twice, in tile order, as the portals are made: together they grow with the world).
    uint64_t crossings_at = 0;
    uint32_t crossing_count = 0;
    // World components: the tile's component count; per seam its source's component and the
    // cell it reaches (seam_link_count at seam_links_at of the spill file); per seam source its
    // cell and component, in cell order (source_count at sources_at: what the neighbours' seams
    // reach); the link ends in it (what links from any tile reach).
    uint32_t components = 0;
    std::vector<uint64_t> component_sizes;  // nodes per local component (until joined)
    struct SeamEnd {
        uint32_t column;
        int32_t y;
        uint32_t component;
    };
    struct SeamLink {
        uint32_t from;  // the source's local component
        SeamEnd to;     // the cell it reaches (component unused)
    };
    uint64_t seam_links_at = 0, sources_at = 0;
    uint32_t seam_link_count = 0, source_count = 0;
    std::vector<SeamEnd> link_sources;
};

uint64_t cellKey(uint32_t column, int32_t y) { return uint64_t(column) << 32 | uint32_t(y); }

// The world column of node `node` of a tile (the inverse of nodeAt's column).
uint32_t worldColumnOf(const Graph& g, const formats::WorldTileHeader& h, uint32_t node) {
    const uint32_t lc = g.cells[node].column;
    return (h.z0 + lc / g.header.size_x) * h.world_size_x + h.x0 + lc % g.header.size_x;
}

uint32_t nodeAt(const Graph& g, const formats::WorldTileHeader& h, uint32_t column, int32_t y) {
    const uint32_t x = column % h.world_size_x, z = column / h.world_size_x;
    if (x < h.x0 || z < h.z0) return kNoNode;
    const uint32_t lx = x - h.x0, lz = z - h.z0;
    const uint32_t width = g.header.size_x;
    if (lx >= width || lz >= g.header.size_z) return kNoNode;
    const uint32_t c = lz * width + lx;
    for (uint32_t n = g.column_nodes[c]; n < g.column_nodes[c + 1]; ++n)
        if (g.cells[n].y == y) return n;
    return kNoNode;
}

Result<formats::WorldTileHeader> tileHeaderOf(const LoadedContainer& c) {
    formats::WorldTileHeader h;
    if (Status s = c.header(formats::kSecWorldTileHeader, formats::decodeWorldTileHeader, h); !s)
        return s.error();
    return h;
}

// What a tile's bytes depend on beyond its columns: the lanes with an end in it (and the user
// type names their types index).
uint64_t tileLinksHash(const WorldLinks& links, const std::vector<uint32_t>& lanes) {
    std::vector<uint8_t> bytes;
    for (uint32_t i : lanes) {
        const WorldLinks::Lane& lane = links.lanes[i];
        uint8_t record[formats::kLinkRecordSize];
        formats::encodeLinkRecord(lane.record, record);
        bytes.insert(bytes.end(), record, record + sizeof(record));
        for (uint32_t v :
             {lane.from_column, lane.to_column, uint32_t(lane.from_y), uint32_t(lane.to_y)})
            appendBytes(bytes, v);
    }
    for (const std::string& name : links.type_names) {
        bytes.insert(bytes.end(), name.begin(), name.end());
        bytes.push_back(0);
    }
    return formats::xxhash64(bytes.data(), bytes.size(), 0);
}

}  // namespace

Result<WorldLinks> resolveWorldLinks(const std::filesystem::path& voxels, const WorldLayout& layout,
                                     const std::vector<LinkSpec>& links, int threads,
                                     Context& context) {
    WorldLinks out;
    if (links.empty()) return out;
    auto reader = voxel::VoxelRowReader::open(voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid& world = (*reader)->header();
    // The whole graph's frame and heuristic, holding only the columns around the links' ends.
    Graph sparse;
    sparse.header = headerForGrid(world, GraphType::tile);
    sparse.header.heuristic = formats::HeuristicKind::octile;
    sparse.areas = world.areas;
    std::vector<uint32_t> wanted;
    for (const LinkSpec& l : links) {
        const float snap = l.snap == geometry::kSnapAuto
                               ? sparse.header.agent_radius + 2.0f * world.cell_size
                               : l.snap;
        const double radius = std::max(0.0, double(snap));
        for (const auto& [from, to] : lanesOf(l, world.cell_size)) {
            columnsAround(world, from.data(), radius, wanted);
            columnsAround(world, to.data(), radius, wanted);
        }
    }
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    // Each tile holding wanted columns built once, its nodes in those columns kept with their
    // world cells and positions: by row of tiles (rows are read forward), the tiles of one row in
    // parallel.
    std::map<uint32_t, std::map<uint32_t, std::vector<uint32_t>>> by_row;
    for (uint32_t c : wanted) {
        const uint32_t tile = tileOfColumn(layout, c);
        by_row[tile / layout.tiles_x][tile % layout.tiles_x].push_back(c);
    }
    // The nodes found, each with its world column (a column's nodes come from one tile, in
    // order: sorted stably by column below, the same at any thread count).
    struct FoundNode {
        formats::NodeCell cell;
        float position[3];
    };
    std::vector<FoundNode> found;
    std::mutex found_mutex;
    float min_cost = sparse.header.min_cost_multiplier;
    uint64_t progress = 0, link_tiles = 0;
    for (const auto& [tz, row] : by_row) link_tiles += row.size();
    voxel::TileRowWindows windows;
    for (const auto& [tz, row] : by_row) {
        if (Status s = windows.read(rowSource(**reader), tileWindowLayout(layout), tz,
                                    [&row = row](uint32_t tx) { return row.count(tx) > 0; });
            !s)
            return s.error();
        const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> tiles(row.begin(), row.end());
        const uint32_t row_z = tz;
        const Status built_row = runParallel(
            "world links", tiles.size(), resolveThreads(threads), context, progress, link_tiles,
            [&](size_t i) {
                const auto& [tx, columns] = tiles[i];
                voxel::TileRowWindows::Decoded window;
                auto rows = windows.window(tileWindowLayout(layout), tx, row_z, window);
                if (!rows) throw std::runtime_error(rows.error().message);
                Context quiet;
                auto built = buildWorldTile(world, *rows, layout, tx, row_z, quiet);
                if (!built) throw std::runtime_error(built.error().message);
                const Graph& t = built->graph;
                std::vector<FoundNode> mine;
                for (uint32_t column : columns) {
                    const uint32_t x = column % layout.size_x, z = column / layout.size_x;
                    const uint32_t local =
                        (z - built->header.z0) * t.header.size_x + (x - built->header.x0);
                    for (uint32_t n = t.column_nodes[local]; n < t.column_nodes[local + 1]; ++n) {
                        FoundNode f{t.cells[n], {}};
                        f.cell.column = column;
                        std::copy(&t.positions[3 * size_t(n)], &t.positions[3 * size_t(n)] + 3,
                                  f.position);
                        mine.push_back(f);
                    }
                }
                std::lock_guard lock(found_mutex);
                min_cost = t.header.min_cost_multiplier;  // the same in every tile (area costs)
                found.insert(found.end(), mine.begin(), mine.end());
            });
        if (!built_row) return built_row.error();
    }
    sparse.header.min_cost_multiplier = min_cost;
    std::stable_sort(found.begin(), found.end(), [](const FoundNode& a, const FoundNode& b) {
        return a.cell.column < b.cell.column;
    });
    SparseColumns index;
    sparse.cells.reserve(found.size());
    sparse.positions.reserve(3 * found.size());
    for (const FoundNode& f : found) {
        if (index.columns.empty() || index.columns.back() != f.cell.column) {
            index.columns.push_back(f.cell.column);
            index.first.push_back(uint32_t(sparse.cells.size()));
        }
        sparse.cells.push_back(f.cell);
        sparse.positions.insert(sparse.positions.end(), f.position, f.position + 3);
    }
    std::vector<FoundNode>().swap(found);
    index.first.push_back(uint32_t(sparse.cells.size()));
    sparse.header.node_count = uint32_t(sparse.cells.size());
    auto records =
        resolveLinks(sparse, index, links, out.type_names, out.stats, 1.0f, threads, &context);
    if (!records) return records.error();
    for (const formats::LinkRecord& r : *records) {
        WorldLinks::Lane lane;
        lane.record = r;
        lane.from_column = sparse.cells[r.from_node].column;
        lane.from_y = sparse.cells[r.from_node].y;
        lane.to_column = sparse.cells[r.to_node].column;
        lane.to_y = sparse.cells[r.to_node].y;
        lane.record.from_node = lane.record.to_node = formats::kNoLink;  // ends in the world
        out.lanes.push_back(lane);
    }
    // By id (addLinks' order), lanes of one link in order.
    std::stable_sort(out.lanes.begin(), out.lanes.end(),
                     [](const WorldLinks::Lane& a, const WorldLinks::Lane& b) {
                         return a.record.id < b.record.id;
                     });
    return out;
}

Status attachWorldTileLinks(WorldTile& tile, const WorldLayout& layout, const WorldLinks& links) {
    const formats::WorldTileHeader& h = tile.header;
    const uint32_t index = h.tile_z * layout.tiles_x + h.tile_x;
    std::vector<formats::LinkRecord> inside;
    for (const WorldLinks::Lane& lane : links.lanes) {
        const bool from_here = tileOfColumn(layout, lane.from_column) == index;
        const bool to_here = tileOfColumn(layout, lane.to_column) == index;
        if (!from_here && !to_here) continue;
        const uint32_t a =
            from_here ? nodeAt(tile.graph, h, lane.from_column, lane.from_y) : kNoNode;
        const uint32_t b = to_here ? nodeAt(tile.graph, h, lane.to_column, lane.to_y) : kNoNode;
        if ((from_here && a == kNoNode) || (to_here && b == kNoNode))
            return inputError("world tile ({}, {}): link {} ends on a cell the tile does not have",
                              h.tile_x, h.tile_z, lane.record.id);
        if (from_here && to_here) {
            formats::LinkRecord r = lane.record;
            r.from_node = a;
            r.to_node = b;
            inside.push_back(r);
        } else if (from_here || (lane.record.flags & formats::kLinkFlagBidirectional)) {
            // A seam that is a link: its record (ends in two tiles: no node ids, as the lane's
            // record already has) and which way.
            if (tile.seam_links.empty())
                tile.seam_links.assign(tile.seams.size(), formats::kNoLink);
            tile.seam_links.push_back(uint32_t(tile.cross_links.size() << 1) |
                                      (from_here ? 0u : 1u));
            tile.cross_links.push_back(lane.record);
            if (from_here)
                tile.seams.push_back({a, lane.to_column, lane.to_y, lane.record.cost});
            else
                tile.seams.push_back({b, lane.from_column, lane.from_y, lane.record.reverse_cost});
        }
    }
    tile.header.seam_count = uint32_t(tile.seams.size());
    // The world's user type names: LTYP with the tile's own links, WLTY with its link seams.
    tile.graph.link_type_names = links.type_names;
    if (inside.empty()) return {};
    return addLinks(tile.graph, std::move(inside));
}

Result<std::vector<LinkSpec>> worldLinkSpecs(
    const std::filesystem::path& voxels, const voxel::VoxelGrid& frame,
    const WorldStage::Params& params, const std::vector<LinkSpec>* generated,
    const std::vector<uint32_t>& pruned, std::vector<LinkSpec>& generated_out, Context& context) {
    // Authored, then the scene objects', then the generated (GraphStage's order).
    std::vector<LinkSpec> specs = params.links;
    specs.insert(specs.end(), frame.links.begin(), frame.links.end());
    for (LinkSpec& l : specs)
        if (l.scene) l.shared = params.scene_links_shared;
    if (generated != nullptr) {
        specs.insert(specs.end(), generated->begin(), generated->end());
    } else if (params.generate.enabled()) {
        auto rows = voxel::VoxelRowReader::open(voxels);
        if (!rows) return rows.error();
        auto made = generateLinks(**rows, params.generate, context);
        if (!made) return made.error();
        specs.insert(specs.end(), made->links.begin(), made->links.end());
        generated_out = std::move(made->links);
    }
    // Links leading from or to surface no seed reaches (the seeds' second run).
    std::erase_if(specs, [&](const LinkSpec& l) {
        return std::binary_search(pruned.begin(), pruned.end(), l.id);
    });
    return specs;
}

void reportWorldLinks(const std::vector<LinkSpec>& specs, const LinkTally& tally, uint64_t lanes,
                      uint64_t crossing, const LinkResolveStats& stats, const char* crossing_as,
                      StageResult& result) {
    if (specs.empty()) return;
    const uint64_t links = tally.ids.size();
    result.count("links", links);
    result.count("link_lanes", lanes);
    result.count("link_lanes_crossing_tiles", crossing);
    result.count("links_generated", tally.generated.size());
    result.count("links_generated_off_graph", stats.generated_dropped);
    result.summary.push_back(fmt::format(
        "links: {} ({} lanes), {} lanes between tiles ({}), the rest edges inside a tile", links,
        lanes, crossing, crossing_as));
    reportLinkUse(specs, stats, result);
}

namespace {

// What a run of the tile graph world takes and gives beyond the stage's (the seeds' two runs).
struct TileWorldRun {
    const std::vector<LinkSpec>* generated = nullptr;  // these, instead of generating links
    std::vector<uint32_t> pruned_links;                // link ids left out (sorted)
    bool keep_lanes = false;
    std::vector<LinkSpec> generated_out;  // the links the run generated
    std::vector<WorldLinks::Lane> lanes;  // the lanes it resolved (keep_lanes)
};

Result<StageResult> runTileWorld(const WorldStage::Inputs& inputs, const WorldStage::Params& params,
                                 const std::filesystem::path& output, Context& context,
                                 TileWorldRun& run);
Result<StageResult> runSeededWorld(const WorldStage::Inputs& inputs,
                                   const WorldStage::Params& params,
                                   const std::filesystem::path& output, Context& context);

}  // namespace

Result<StageResult> WorldStage::run(const Inputs& inputs, const Params& params,
                                    const std::filesystem::path& output, Context& context) {
    if (Status s = checkStage<WorldStage>(params); !s) return s.error();
    if (params.kind == GraphKind::dirichlet)
        return runDirichletWorld(inputs, params, output, context);
    if (params.kind == GraphKind::pov) return runPovWorld(inputs, params, output, context);
    if (params.kind != GraphKind::volume && (!params.seeds.empty() || !params.points.empty()))
        return runSeededWorld(inputs, params, output, context);
    if (params.kind == GraphKind::navmesh) return runNavmeshWorld(inputs, params, output, context);
    if (params.kind == GraphKind::volume) return runVolumeWorld(inputs, params, output, context);
    TileWorldRun run;
    return runTileWorld(inputs, params, output, context, run);
}

namespace {

Result<StageResult> runTileWorld(const WorldStage::Inputs& inputs, const WorldStage::Params& params,
                                 const std::filesystem::path& output, Context& context,
                                 TileWorldRun& run) {
    const auto start = std::chrono::steady_clock::now();
    // The grid a band of tile rows at a time (with the one-row borders): the stage holds the
    // rows of one row of tiles, not the world's grid.
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid* world = &(*reader)->header();
    const WorldLayout layout = worldLayout(*world, params.tile_size);
    const std::filesystem::path folder = output.parent_path();
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    std::vector<TileSummary> tiles(tile_count);
    auto spill = SpillStore::beside(output, "crossings");
    if (!spill) return spill.error();
    uint64_t progress = 0;
    const int threads = resolveThreads(params.threads);
    // The level's links, resolved on the world's cells; each tile gets the lanes with an end in
    // it.
    auto gathered = worldLinkSpecs(inputs.voxels, *world, params, run.generated, run.pruned_links,
                                   run.generated_out, context);
    if (!gathered) return gathered.error();
    const std::vector<LinkSpec> specs = std::move(gathered).value();
    auto resolved = resolveWorldLinks(inputs.voxels, layout, specs, params.threads, context);
    if (!resolved) return resolved.error();
    const WorldLinks& links = *resolved;
    if (run.keep_lanes) run.lanes = links.lanes;
    std::vector<std::vector<uint32_t>> tile_lanes(tile_count);
    uint64_t crossing_lanes = 0;
    for (uint32_t i = 0; i < links.lanes.size(); ++i) {
        const uint32_t a = tileOfColumn(layout, links.lanes[i].from_column);
        const uint32_t b = tileOfColumn(layout, links.lanes[i].to_column);
        tile_lanes[a].push_back(i);
        if (b != a) {
            tile_lanes[b].push_back(i);
            ++crossing_lanes;
        }
    }
    // Pass 1: every tile built (or reused by its content hash), its crossings summarised; one row
    // of tiles at a time (read a grid row at a time, held compressed per tile in the spill file),
    // its tiles in parallel.
    voxel::TileRowWindows windows, carry;  // carry: the rows the next row of tiles shares
    windows.spillTo(**spill);
    carry.spillTo(**spill);
    uint32_t tz = 0;
    auto tileTask = [&](size_t tile_in_row) {
        const uint32_t tx = uint32_t(tile_in_row);
        const size_t index = size_t(tz) * layout.tiles_x + tx;
        TileSummary& summary = tiles[index];
        voxel::TileRowWindows::Decoded window;
        auto columns = windows.window(tileWindowLayout(layout), tx, tz, window);
        if (!columns) throw std::runtime_error(columns.error().message);
        const voxel::GridRows& rows = *columns;
        summary.content = tileContentHash(*world, rows, layout, tx, tz);
        // The tile's bytes depend on the zstd level and its links too (its cache file is named
        // by this hash).
        if (params.compression != 19) {
            const uint64_t parts[2] = {summary.content, uint64_t(params.compression)};
            summary.content = formats::xxhash64(parts, sizeof parts, 0);
        }
        if (!tile_lanes[index].empty()) {
            const uint64_t parts[2] = {summary.content, tileLinksHash(links, tile_lanes[index])};
            summary.content = formats::xxhash64(parts, sizeof parts, 0);
        }
        summary.content = withGradients(summary.content, params);
        const std::filesystem::path file = folder / tileFileName(summary.content);
        Graph graph;
        formats::WorldTileHeader header;
        std::vector<formats::SeamRecord> seams;
        auto cached = std::filesystem::exists(file)
                          ? loadContainer(file, formats::kKindNav, formats::kNavVersion)
                          : Result<LoadedContainer>(Error{});
        bool reused = false;
        if (cached.ok()) {
            auto decoded = decodeGraph(*cached);
            auto h = tileHeaderOf(*cached);
            auto raw = cached->section(formats::kSecWorldSeams);
            if (decoded && h && raw &&
                raw->size() == size_t(h->seam_count) * formats::kSeamRecordSize) {
                graph = std::move(decoded).value();
                header = *h;
                for (uint32_t i = 0; i < header.seam_count; ++i)
                    seams.push_back(
                        formats::decodeSeam(raw->data() + i * formats::kSeamRecordSize));
                reused = true;
            }
        }
        if (!reused) {
            Context quiet;
            auto tile = buildWorldTile(*world, rows, layout, tx, tz, quiet);
            if (!tile) throw std::runtime_error(tile.error().message);
            // Gradients before the links, as the graph stage adds them (a link costs what it
            // says).
            summary.gradient_edges =
                addWorldTileGradients(*tile, *world, params.uphill, params.downhill);
            if (!tile_lanes[index].empty())
                if (Status s = attachWorldTileLinks(*tile, layout, links); !s)
                    throw std::runtime_error(s.error().message);
            if (tile->graph.nodeCount() > 0)
                if (Status s = saveWorldTile(file, *tile, params.compression); !s)
                    throw std::runtime_error(s.error().message);
            graph = std::move(tile->graph);
            header = tile->header;
            seams = std::move(tile->seams);
            summary.built = true;
        }
        summary.present = graph.nodeCount() > 0;
        summary.nodes = uint32_t(graph.nodeCount());
        summary.seams = uint32_t(seams.size());
        summary.components = graph.header.component_count;
        summary.component_sizes.assign(summary.components, 0);
        for (uint32_t comp : graph.components)
            if (comp < summary.components) ++summary.component_sizes[comp];
        {
            std::vector<TileSummary::SeamLink> seam_links;
            std::vector<TileSummary::SeamEnd> sources;
            std::vector<uint8_t> listed(graph.nodeCount(), 0);
            for (const formats::SeamRecord& s : seams) {
                seam_links.push_back({graph.components[s.from], {s.column, s.y, 0}});
                if (listed[s.from]) continue;
                listed[s.from] = 1;
                sources.push_back({worldColumnOf(graph, header, s.from), graph.cells[s.from].y,
                                   graph.components[s.from]});
            }
            std::sort(sources.begin(), sources.end(), [](const auto& a, const auto& b) {
                return cellKey(a.column, a.y) < cellKey(b.column, b.y);
            });
            summary.seam_link_count = uint32_t(seam_links.size());
            summary.source_count = uint32_t(sources.size());
            if (Status st =
                    (*spill)->appendArray<TileSummary::SeamLink>(seam_links, summary.seam_links_at);
                !st)
                throw std::runtime_error(st.error().message);
            if (Status st =
                    (*spill)->appendArray<TileSummary::SeamEnd>(sources, summary.sources_at);
                !st)
                throw std::runtime_error(st.error().message);
            // Link ends here that a link from another tile lands on: other tiles' seams reach
            // them though they have no seam of their own.
            for (uint32_t i : tile_lanes[index]) {
                const WorldLinks::Lane& lane = links.lanes[i];
                for (const auto& [column, y] : {std::pair{lane.from_column, lane.from_y},
                                                std::pair{lane.to_column, lane.to_y}}) {
                    if (tileOfColumn(layout, column) != index) continue;
                    const uint32_t v = nodeAt(graph, header, column, y);
                    if (v != kNoNode)
                        summary.link_sources.push_back({column, y, graph.components[v]});
                }
            }
        }
        // Runs: seam sources crossing into the same neighbour tile, joined along the tile's own
        // edges; each run's first source (in node order) and its first crossing represent it.
        std::vector<TileSummary::Crossing> crossings;
        const uint32_t n = uint32_t(graph.nodeCount());
        std::vector<uint32_t> first_seam(n, kNoNode);
        std::vector<uint32_t> target_tile(n, kNoNode);
        for (uint32_t i = 0; i < seams.size(); ++i) {
            const formats::SeamRecord& s = seams[i];
            if (first_seam[s.from] != kNoNode) continue;
            first_seam[s.from] = i;
            target_tile[s.from] = tileOfColumn(layout, s.column);
        }
        std::vector<uint8_t> seen(n, 0);
        std::vector<uint32_t> stack;
        for (uint32_t v = 0; v < n; ++v) {
            if (first_seam[v] == kNoNode || seen[v]) continue;
            seen[v] = 1;
            stack.assign(1, v);
            while (!stack.empty()) {
                const uint32_t u = stack.back();
                stack.pop_back();
                for (uint32_t e = graph.edge_offsets[u]; e < graph.edge_offsets[u + 1]; ++e) {
                    const uint32_t t = graph.edge_targets[e];
                    if (!seen[t] && first_seam[t] != kNoNode && target_tile[t] == target_tile[v]) {
                        seen[t] = 1;
                        stack.push_back(t);
                    }
                }
            }
            const formats::SeamRecord& s = seams[first_seam[v]];
            crossings.push_back(
                {{uint32_t(index), worldColumnOf(graph, header, v), graph.cells[v].y},
                 {target_tile[v], s.column, s.y},
                 s.cost});
        }
        // Seams the runs do not stand for (links, which may reach any tile, and a source's
        // crossings into a second neighbour): a crossing each.
        for (const formats::SeamRecord& s : seams) {
            const uint32_t from = worldColumnOf(graph, header, s.from);
            const uint32_t x = from % layout.size_x, z = from / layout.size_x;
            const uint32_t tx2 = s.column % layout.size_x, tz2 = s.column / layout.size_x;
            const bool adjacent =
                std::max(x > tx2 ? x - tx2 : tx2 - x, z > tz2 ? z - tz2 : tz2 - z) <= 1;
            const uint32_t to_tile = tileOfColumn(layout, s.column);
            if (adjacent && to_tile == target_tile[s.from]) continue;
            crossings.push_back(
                {{uint32_t(index), from, graph.cells[s.from].y}, {to_tile, s.column, s.y}, s.cost});
        }
        summary.crossing_count = uint32_t(crossings.size());
        if (Status st =
                (*spill)->appendArray<TileSummary::Crossing>(crossings, summary.crossings_at);
            !st)
            throw std::runtime_error(st.error().message);
    };
    // World components: (tile, local component) joined by union-find across every seam. A seam
    // reaches a cell of a tile beside its own, or, a link's, any link end: a row of tiles' seams
    // are joined once the next row is built, against the sources of the tiles around each tile
    // (read back from the spill file, a few tiles held), and those that may reach a link end
    // against the link ends once every tile is built. Only the tiles around one tile and the link
    // ends are held, not rows of tiles. A query whose ends lie in different world components has
    // no path in any set of loaded tiles.
    std::vector<uint32_t> component_base(tile_count + 1, 0);
    ComponentJoin join;
    CellTable link_ends;
    std::vector<uint64_t> lane_ends;  // the cells links start or land on (sorted)
    for (const WorldLinks::Lane& lane : links.lanes) {
        lane_ends.push_back(cellKey(lane.from_column, lane.from_y));
        lane_ends.push_back(cellKey(lane.to_column, lane.to_y));
    }
    std::sort(lane_ends.begin(), lane_ends.end());
    struct PendingSeam {
        uint32_t from;  // global component
        TileSummary::SeamEnd to;
    };
    std::vector<PendingSeam> pending;  // seams onto link ends, joined last
    struct HeldSources {
        uint32_t tile;
        std::vector<TileSummary::SeamEnd> ends;
    };
    std::vector<HeldSources> held;
    std::vector<TileSummary::SeamLink> seam_links;
    auto joinRow = [&](uint32_t row) -> Status {
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            std::erase_if(held, [&](const HeldSources& h) {
                const uint32_t x = h.tile % layout.tiles_x, z = h.tile / layout.tiles_x;
                return x + 1 < tx || z + 1 < row;
            });
            const uint32_t i = row * layout.tiles_x + tx;
            if (Status s = (*spill)->readArray(tiles[i].seam_links_at, tiles[i].seam_link_count,
                                               seam_links);
                !s)
                return s;
            for (const TileSummary::SeamLink& l : seam_links) {
                const uint32_t from = component_base[i] + l.from;
                const uint64_t key = cellKey(l.to.column, l.to.y);
                const uint32_t t = tileOfColumn(layout, l.to.column);
                const uint32_t x = t % layout.tiles_x, z = t / layout.tiles_x;
                if (x + 1 >= tx && x <= tx + 1 && z + 1 >= row && z <= row + 1) {
                    auto it = std::find_if(held.begin(), held.end(),
                                           [&](const HeldSources& h) { return h.tile == t; });
                    if (it == held.end()) {
                        it = held.insert(held.end(), {t, {}});
                        if (Status s = (*spill)->readArray(tiles[t].sources_at,
                                                           tiles[t].source_count, it->ends);
                            !s)
                            return s;
                    }
                    auto e = std::lower_bound(it->ends.begin(), it->ends.end(), key,
                                              [](const TileSummary::SeamEnd& a, uint64_t k) {
                                                  return cellKey(a.column, a.y) < k;
                                              });
                    if (e != it->ends.end() && cellKey(e->column, e->y) == key) {
                        join.join(from, component_base[t] + e->component);
                        continue;
                    }
                }
                // Not a neighbour's seam source: a one-way seam (dropped), or a link's end.
                if (std::binary_search(lane_ends.begin(), lane_ends.end(), key))
                    pending.push_back({from, l.to});
            }
        }
        return {};
    };
    for (tz = 0; tz < layout.tiles_z; ++tz) {
        if (params.shard_count > 0 && tz % params.shard_count != params.shard_index) continue;
        if (Status s = windows.read(rowSource(**reader), tileWindowLayout(layout), tz, {}, &carry);
            !s)
            return s.error();
        if (Status s = runParallel("world tiles", layout.tiles_x, threads, context, progress,
                                   uint64_t(tile_count) * 2, tileTask);
            !s)
            return s.error();
        if (params.shard_count > 0) continue;
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            const uint32_t i = tz * layout.tiles_x + tx;
            TileSummary& t = tiles[i];
            const uint32_t base = join.add(t.present ? std::span<const uint64_t>(t.component_sizes)
                                                     : std::span<const uint64_t>());
            component_base[i + 1] = join.size();
            for (const TileSummary::SeamEnd& e : t.link_sources)
                link_ends.add(cellKey(e.column, e.y), base + e.component);
            // (`= {}` would keep their room: an initializer-list assignment.)
            t.link_sources = std::vector<TileSummary::SeamEnd>();
            t.component_sizes = std::vector<uint64_t>();
        }
        if (tz > 0)
            if (Status s = joinRow(tz - 1); !s) return s.error();
    }
    if (params.shard_count > 0) {
        std::vector<WorldShardTile> listed;
        for (const TileSummary& t : tiles) listed.push_back({t.present, t.built, t.content});
        return writeWorldShardPart(output, params, listed);
    }
    if (Status s = (*reader)->finish(); !s) return s.error();
    if (layout.tiles_z > 0)
        if (Status s = joinRow(layout.tiles_z - 1); !s) return s.error();
    held = std::vector<HeldSources>();
    seam_links = std::vector<TileSummary::SeamLink>();
    link_ends.seal();
    for (const PendingSeam& p : pending) {
        const uint32_t target = link_ends.find(cellKey(p.to.column, p.to.y));
        if (target != kNoNode) join.join(p.from, target);
    }
    pending = std::vector<PendingSeam>();
    link_ends.release();
    // Walkable islands over the world components (the graph stage's warning for one graph).
    std::vector<uint64_t> island_sizes;
    const std::vector<uint32_t> world_component = join.number(island_sizes);
    // Pass 2: the portal cells of each tile: both ends of every representative crossing,
    // numbered in cell order.
    std::vector<TileSummary::Crossing> crossings;
    auto readCrossings = [&](const TileSummary& t) {
        return (*spill)->readArray(t.crossings_at, t.crossing_count, crossings);
    };
    std::vector<PortalCell> portals;
    for (const TileSummary& t : tiles) {
        if (Status s = readCrossings(t); !s) return s.error();
        for (const TileSummary::Crossing& c : crossings) {
            portals.push_back(c.from);
            portals.push_back(c.to);
        }
    }
    std::sort(portals.begin(), portals.end());
    portals.erase(std::unique(portals.begin(), portals.end()), portals.end());
    portals.shrink_to_fit();
    auto portalId = [&](const PortalCell& cell) {
        return uint32_t(std::lower_bound(portals.begin(), portals.end(), cell) - portals.begin());
    };
    // Pass 3: inside each tile, exact costs between its portals (one Dijkstra per portal), and
    // the portals' positions: to the spill file, read back in tile order as the index is made.
    std::vector<uint32_t> first_portal(tile_count + 1, 0);  // per tile its portals' range
    for (const PortalCell& p : portals) ++first_portal[p.tile + 1];
    for (uint32_t i = 0; i < tile_count; ++i) first_portal[i + 1] += first_portal[i];
    struct InsideEdge {
        uint32_t from, to;  // portals
        float cost;
    };
    struct TilePortals {
        uint64_t inside_at = 0, positions_at = 0;
        uint32_t inside_count = 0;
    };
    std::vector<TilePortals> tile_portals(tile_count);
    Status pass3 = runParallel(
        "world portals", tile_count, threads, context, progress, uint64_t(tile_count) * 2,
        [&](size_t index) {
            std::vector<uint32_t> mine(first_portal[index + 1] - first_portal[index]);
            std::iota(mine.begin(), mine.end(), first_portal[index]);
            if (mine.empty() || !tiles[index].present) return;
            auto loaded = loadContainer(folder / tileFileName(tiles[index].content),
                                        formats::kKindNav, formats::kNavVersion);
            if (!loaded) throw std::runtime_error(loaded.error().message);
            auto graph = decodeGraph(*loaded);
            if (!graph) throw std::runtime_error(graph.error().message);
            auto header = tileHeaderOf(*loaded);
            if (!header) throw std::runtime_error(header.error().message);
            std::vector<uint32_t> nodes;
            std::vector<std::array<float, 3>> positions;
            for (uint32_t p : mine) {
                const uint32_t v = nodeAt(*graph, *header, portals[p].column, portals[p].y);
                if (v == kNoNode)
                    throw std::runtime_error(
                        fmt::format("world tile {}: no node at a portal", index));
                nodes.push_back(v);
                positions.push_back({graph->positions[3 * size_t(v)],
                                     graph->positions[3 * size_t(v) + 1],
                                     graph->positions[3 * size_t(v) + 2]});
            }
            const CsrGraph<float> csr{graph->edge_offsets, graph->edge_targets, graph->edge_costs};
            Dijkstra<double> search;
            std::vector<InsideEdge> found;
            // Each search ends once every other portal is settled (their costs are then final):
            // on city22 the searches to exhaustion were 29% of the stage.
            std::vector<uint8_t> is_portal(graph->nodeCount(), 0);
            uint32_t distinct = 0;
            for (uint32_t v : nodes)
                if (!is_portal[v]) {
                    is_portal[v] = 1;
                    ++distinct;
                }
            for (size_t i = 0; i < mine.size(); ++i) {
                search.reset(graph->nodeCount());
                search.addSource(nodes[i]);
                uint32_t left = distinct;  // portal nodes not settled yet (the source's included)
                search.run(csr, AnyNode{}, NoHook{},
                           [&](uint32_t u, double) { return is_portal[u] && --left == 0; });
                for (size_t j = 0; j < mine.size(); ++j)
                    if (j != i && std::isfinite(search.dist(nodes[j])))
                        found.push_back({mine[i], mine[j], float(search.dist(nodes[j]))});
            }
            TilePortals& out = tile_portals[index];
            out.inside_count = uint32_t(found.size());
            if (Status s = (*spill)->appendArray<InsideEdge>(found, out.inside_at); !s)
                throw std::runtime_error(s.error().message);
            if (Status s = (*spill)->appendArray<std::array<float, 3>>(positions, out.positions_at);
                !s)
                throw std::runtime_error(s.error().message);
        });
    if (!pass3) return pass3.error();
    // The index.
    WorldIndex index;
    formats::WorldHeader& h = index.header;
    h = worldIndexHeader(layout, *world, 0);
    uint64_t nodes = 0, seams = 0, built = 0, gradient_edges = 0;
    for (uint32_t i = 0; i < tile_count; ++i) {
        seams += tiles[i].seams;
        gradient_edges += tiles[i].gradient_edges;
        built += tiles[i].built && tiles[i].present;
        if (!tiles[i].present) continue;
        nodes += tiles[i].nodes;
        addIndexTile(index, i, tiles[i].nodes, tiles[i].content, world_component, component_base[i],
                     tiles[i].components);
    }
    // The portal graph, a tile at a time: its portals with their crossings and inside costs.
    {
        uint64_t edge_total = 0;
        for (uint32_t i = 0; i < tile_count; ++i)
            edge_total += tiles[i].crossing_count + tile_portals[i].inside_count;
        index.encoded.reserve(portals.size(), edge_total);
        std::vector<std::vector<std::pair<uint32_t, float>>> edges;  // per portal of the tile
        std::vector<InsideEdge> inside;
        std::vector<std::array<float, 3>> positions;
        for (uint32_t i = 0; i < tile_count; ++i) {
            const uint32_t first = first_portal[i], count = first_portal[i + 1] - first;
            if (count == 0) continue;
            edges.assign(count, {});
            if (Status s = readCrossings(tiles[i]); !s) return s.error();
            for (const TileSummary::Crossing& c : crossings)
                edges[portalId(c.from) - first].push_back({portalId(c.to), c.cost});
            const TilePortals& t = tile_portals[i];
            if (Status s = (*spill)->readArray(t.inside_at, t.inside_count, inside); !s)
                return s.error();
            for (const InsideEdge& e : inside) edges[e.from - first].push_back({e.to, e.cost});
            positions.assign(count, {0, 0, 0});
            if (tiles[i].present)
                if (Status s = (*spill)->readArray(t.positions_at, count, positions); !s)
                    return s.error();
            for (uint32_t k = 0; k < count; ++k) {
                const PortalCell& cell = portals[first + k];
                index.encoded.add({cell.tile, cell.column, cell.y, positions[k], {}}, edges[k]);
            }
        }
    }
    if (Status s = saveWorldIndex(output, index); !s) return s.error();

    StageResult result = worldStageResult(h, built, start, {{"nodes", nodes}, {"seams", seams}});
    reportIslands(island_sizes, result);
    if (params.uphill > 0 || params.downhill > 0)
        result.count("gradient_edges_built", gradient_edges);
    {
        LinkTally tally;
        for (const WorldLinks::Lane& lane : links.lanes) tally.add(lane.record);
        reportWorldLinks(specs, tally, links.lanes.size(), crossing_lanes, links.stats, "seams",
                         result);
    }
    result.summary.push_back(fmt::format(
        "world: {} x {} tiles of {} cells ({} with walkable cells: {} built, {} reused), {} nodes, "
        "{} seam edges, {} portals -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, h.tile_count, built,
        h.tile_count - built, nodes, seams, h.portal_count, output.string()));
    return result;
}

// The tiles of a world on disk, decoded on demand (a few kept: the seeds' searches and point
// lookups go back and forth between neighbours). A tile stays valid until the next get().
class TileGraphs {
public:
    struct Tile {
        uint32_t index = 0;
        uint64_t used = 0;
        Graph graph;
        formats::WorldTileHeader header;
        std::vector<formats::SeamRecord> seams;  // by source node (stable)
        std::vector<uint32_t> seam_offsets;      // per node + 1
    };
    explicit TileGraphs(std::vector<std::filesystem::path> files) : files_(std::move(files)) {}
    // Tile `index`, or null when it has no walkable cells.
    Result<const Tile*> get(uint32_t index) {
        if (files_[index].empty()) return static_cast<const Tile*>(nullptr);
        for (auto& held : held_)
            if (held->index == index) {
                held->used = ++clock_;
                return held.get();
            }
        auto c = loadContainer(files_[index], formats::kKindNav, formats::kNavVersion);
        if (!c) return c.error();
        auto g = decodeGraph(*c);
        if (!g) return g.error();
        auto h = tileHeaderOf(*c);
        if (!h) return h.error();
        auto raw = c->section(formats::kSecWorldSeams);
        if (!raw) return raw.error();
        if (held_.size() >= 16)
            held_.erase(
                std::min_element(held_.begin(), held_.end(),
                                 [](const auto& a, const auto& b) { return a->used < b->used; }));
        auto t = std::make_unique<Tile>();
        t->index = index;
        t->used = ++clock_;
        t->graph = std::move(g).value();
        t->header = *h;
        std::vector<formats::SeamRecord> seams;
        for (size_t i = 0; i + formats::kSeamRecordSize <= raw->size();
             i += formats::kSeamRecordSize)
            seams.push_back(formats::decodeSeam(raw->data() + i));
        const size_t n = t->graph.nodeCount();
        t->seam_offsets.assign(n + 1, 0);
        for (const formats::SeamRecord& sr : seams) {
            if (sr.from >= n)
                return inputError("{}: a seam names node {} of {}", files_[index].string(), sr.from,
                                  n);
            ++t->seam_offsets[sr.from + 1];
        }
        for (size_t v = 0; v < n; ++v) t->seam_offsets[v + 1] += t->seam_offsets[v];
        t->seams.resize(seams.size());
        std::vector<uint32_t> at(t->seam_offsets.begin(), t->seam_offsets.end() - 1);
        for (const formats::SeamRecord& sr : seams) t->seams[at[sr.from]++] = sr;
        held_.push_back(std::move(t));
        return held_.back().get();
    }

private:
    std::vector<std::filesystem::path> files_;
    std::vector<std::unique_ptr<Tile>> held_;
    uint64_t clock_ = 0;
};

// surfaceNode (seeds.h) on a world's tiles: its rule (pickSurfaceNode), so the same cell.
// (tile index, node) or kNoNode.
Result<std::pair<uint32_t, uint32_t>> worldSurfaceNode(TileGraphs& tiles, const WorldLayout& layout,
                                                       const voxel::VoxelGrid& frame,
                                                       const std::array<float, 3>& p) {
    std::pair<uint32_t, uint32_t> best{kNoNode, kNoNode};
    std::optional<Error> failed;
    const bool read =
        pickSurfaceNode(frame, p, best, [&](uint32_t x, uint32_t z, const auto& take) {
            const uint32_t t = tileOfColumn(layout, z * frame.size_x + x);
            auto held = tiles.get(t);
            if (!held) {
                failed = held.error();
                return false;
            }
            if (*held == nullptr) return true;
            const Graph& g = (*held)->graph;
            const formats::WorldTileHeader& h = (*held)->header;
            const uint32_t c = (z - h.z0) * g.header.size_x + (x - h.x0);
            for (uint32_t n = g.column_nodes[c]; n < g.column_nodes[c + 1]; ++n)
                take(std::pair{t, n}, &g.positions[3 * size_t(n)]);
            return true;
        });
    if (!read) return *failed;
    return best;
}

// " (the nearest is 2.68 m away)" over the tiles around p's (nearestSurfaceText's words).
Result<std::string> worldNearestText(TileGraphs& tiles, const WorldLayout& layout,
                                     const voxel::VoxelGrid& frame, const std::array<float, 3>& p) {
    const int64_t tx = int64_t(std::floor((double(p[0]) - frame.origin[0]) / frame.cell_size)) /
                       int64_t(layout.tile_cells);
    const int64_t tz = int64_t(std::floor((double(p[2]) - frame.origin[2]) / frame.cell_size)) /
                       int64_t(layout.tile_cells);
    double nearest = std::numeric_limits<double>::infinity();
    for (int64_t z = tz - 1; z <= tz + 1; ++z)
        for (int64_t x = tx - 1; x <= tx + 1; ++x) {
            if (x < 0 || z < 0 || x >= int64_t(layout.tiles_x) || z >= int64_t(layout.tiles_z))
                continue;
            auto held = tiles.get(uint32_t(z) * layout.tiles_x + uint32_t(x));
            if (!held) return held.error();
            if (*held == nullptr) continue;
            const Graph& g = (*held)->graph;
            for (size_t k = 0; k < g.nodeCount(); ++k) {
                const float* q = &g.positions[3 * k];
                nearest = std::min(nearest, std::hypot(double(q[0]) - p[0], double(q[1]) - p[1],
                                                       double(q[2]) - p[2]));
            }
        }
    return std::isfinite(nearest) ? fmt::format(" (the nearest is {:.2f} m away)", nearest)
                                  : std::string(" (there is none in the tiles around it)");
}

// Seeds and points of interest on a tile graph world (checkSurface's rules, seeds.h): the world
// baked as it is; the cells seeds reach, walking or through links, found tile by tile (a tile's
// search hands the cells its seams reach to their tiles, until none is left); the points
// checked; then, when some surface is left unreached, the grid with those cells unwalkable
// (written a row at a time) and the world baked again from it, without the links that lead from
// or to pruned surface. Tiles whose columns and border lost nothing are the first bake's.
Result<StageResult> runSeededWorld(const WorldStage::Inputs& inputs,
                                   const WorldStage::Params& params,
                                   const std::filesystem::path& output, Context& context) {
    WorldStage::Params plain = params;
    plain.seeds.clear();
    plain.points.clear();
    // A navmesh world's surface is checked on the tile graph world of the same grid (its index
    // beside the output, removed at the end; its tiles stay in the cache).
    const bool mesh = params.kind == GraphKind::navmesh;
    WorldStage::Params surface_params = plain;
    surface_params.kind = GraphKind::tile;
    const std::filesystem::path surface_index =
        mesh ? output.parent_path() / (output.filename().string() + ".surface.world") : output;
    struct RemoveIndex {
        std::filesystem::path path;
        ~RemoveIndex() {
            std::error_code ec;
            if (!path.empty()) std::filesystem::remove(path, ec);
        }
    } remove_surface{mesh ? surface_index : std::filesystem::path()};
    TileWorldRun first;
    first.keep_lanes = !params.seeds.empty();
    auto baked = runTileWorld(inputs, surface_params, surface_index, context, first);
    if (!baked) return baked;
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid& frame = (*reader)->header();
    const WorldLayout layout = worldLayout(frame, params.tile_size);
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    auto listed = worldTileFiles(surface_index);
    if (!listed) return listed.error();
    std::vector<std::filesystem::path> files(tile_count);
    for (const WorldTileFile& f : *listed) files[f.tile_z * layout.tiles_x + f.tile_x] = f.path;
    TileGraphs tiles(files);
    SurfaceCheck check;
    // Reached cells, per tile (node order; empty until the tile is first searched).
    std::vector<std::vector<uint8_t>> reached(tile_count);
    std::vector<std::vector<std::pair<uint32_t, int32_t>>> pending(tile_count);  // cells
    std::vector<std::vector<uint32_t>> pending_nodes(tile_count);
    std::set<uint32_t> queue;
    for (size_t i = 0; i < params.seeds.size(); ++i) {
        const std::array<float, 3>& p = params.seeds[i];
        auto at = worldSurfaceNode(tiles, layout, frame, p);
        if (!at) return at.error();
        if (at->first == kNoNode) {
            auto text = worldNearestText(tiles, layout, frame, p);
            if (!text) return text.error();
            check.off_surface.push_back(
                fmt::format("seeds[{}] ({}, {}, {}) is not on this agent's walkable surface{}", i,
                            p[0], p[1], p[2], *text));
            continue;
        }
        ++check.seeds_on_surface;
        pending_nodes[at->first].push_back(at->second);
        queue.insert(at->first);
    }
    if (!params.seeds.empty() && check.seeds_on_surface == 0)
        return inputError(
            "no seed is on this agent's walkable surface, so nothing would be left: {}",
            check.off_surface[0]);
    uint64_t searches = 0;
    while (!queue.empty()) {
        const uint32_t t = *queue.begin();
        queue.erase(queue.begin());
        auto held = tiles.get(t);
        if (!held) return held.error();
        if (*held == nullptr) continue;
        ++searches;
        const TileGraphs::Tile& tile = **held;  // no other tile is loaded during its search
        const Graph& graph = tile.graph;
        std::vector<uint8_t>& mine = reached[t];
        if (mine.empty()) mine.assign(graph.nodeCount(), 0);
        std::vector<uint32_t> frontier;
        for (uint32_t n : pending_nodes[t])
            if (!mine[n]) mine[n] = 1, frontier.push_back(n);
        for (const auto& [column, y] : pending[t]) {
            const uint32_t n = nodeAt(graph, tile.header, column, y);
            if (n != kNoNode && !mine[n]) mine[n] = 1, frontier.push_back(n);
        }
        pending[t] = decltype(pending)::value_type();  // (`= {}` would keep their room)
        pending_nodes[t] = std::vector<uint32_t>();
        while (!frontier.empty()) {
            const uint32_t n = frontier.back();
            frontier.pop_back();
            for (uint32_t e = graph.edge_offsets[n]; e < graph.edge_offsets[n + 1]; ++e) {
                const uint32_t v = graph.edge_targets[e];
                if (!mine[v]) mine[v] = 1, frontier.push_back(v);
            }
            for (uint32_t k = tile.seam_offsets[n]; k < tile.seam_offsets[n + 1]; ++k) {
                const formats::SeamRecord& sr = tile.seams[k];
                const uint32_t o = tileOfColumn(layout, sr.column);
                pending[o].push_back({sr.column, sr.y});
                queue.insert(o);
            }
        }
    }
    // Points of interest: reached from a seed, or (no seeds) in the largest world component.
    uint32_t largest = kNoNode;
    std::vector<std::vector<uint32_t>> world_components(tile_count);
    if (!params.points.empty() && params.seeds.empty()) {
        auto index = loadContainer(surface_index, formats::kKindWorld, formats::kWorldVersion);
        if (!index) return index.error();
        auto offsets = index->section(formats::kSecWorldComponentOffsets);
        auto ids = index->section(formats::kSecWorldComponents);
        if (!offsets || !ids) return inputError("{}: no world components", output.string());
        std::vector<uint64_t> sizes;
        uint32_t record = 0;
        for (uint32_t t = 0; t < tile_count; ++t) {
            if (files[t].empty()) continue;
            const uint32_t from = formats::loadLe32(offsets->data() + 4 * size_t(record));
            const uint32_t to = formats::loadLe32(offsets->data() + 4 * size_t(record) + 4);
            ++record;
            for (uint32_t c = from; c < to; ++c)
                world_components[t].push_back(formats::loadLe32(ids->data() + 4 * size_t(c)));
            auto g = tiles.get(t);
            if (!g) return g.error();
            for (uint32_t c : (*g)->graph.components) {
                const uint32_t w = world_components[t][c];
                if (w >= sizes.size()) sizes.resize(size_t(w) + 1, 0);
                ++sizes[w];
            }
        }
        if (!sizes.empty())
            largest = uint32_t(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    }
    for (const PointOfInterest& point : params.points) {
        const std::string what =
            fmt::format("{}point of interest '{}'{} at ({}, {}, {})",
                        point.where.empty() ? "" : point.where + ": ", point.name,
                        point.kind.empty() ? "" : " (" + point.kind + ")", point.position[0],
                        point.position[1], point.position[2]);
        auto at = worldSurfaceNode(tiles, layout, frame, point.position);
        if (!at) return at.error();
        bool ok = false;
        if (at->first != kNoNode) {
            if (params.seeds.empty()) {
                auto g = tiles.get(at->first);
                if (!g) return g.error();
                ok = world_components[at->first][(*g)->graph.components[at->second]] == largest;
            } else {
                ok = !reached[at->first].empty() && reached[at->first][at->second];
            }
        }
        if (at->first == kNoNode) {
            ++check.points_off_surface;
            auto text = worldNearestText(tiles, layout, frame, point.position);
            if (!text) return text.error();
            check.point_problems.push_back(
                fmt::format("{} is not on this agent's walkable surface{}", what, *text));
        } else if (!ok) {
            ++check.points_unreachable;
            check.point_problems.push_back(fmt::format(
                "{} cannot be reached: {}", what,
                params.seeds.empty() ? "it is outside the largest walkable area (links included)"
                                     : "no seed reaches it, walking or through links"));
        } else {
            ++check.points_reachable;
        }
    }
    StageResult result = std::move(baked).value();
    std::filesystem::path grid_for_mesh = inputs.voxels;  // the navmesh's grid (pruned or not)
    std::filesystem::path pruned;
    if (!params.seeds.empty()) {
        // The surface left unreached, and the links none of whose lanes joins two reached cells.
        uint64_t unreached = 0;
        for (uint32_t t = 0; t < tile_count; ++t) {
            if (files[t].empty()) continue;
            if (reached[t].empty()) {
                auto g = tiles.get(t);
                if (!g) return g.error();
                reached[t].assign((*g)->graph.nodeCount(), 0);
            }
            for (uint8_t r : reached[t]) unreached += r == 0;
        }
        check.pruned_cells = unreached;
        std::map<uint32_t, bool> link_kept;
        for (const WorldLinks::Lane& lane : first.lanes) {
            bool both = true;
            for (const auto& [column, y] :
                 {std::pair{lane.from_column, lane.from_y}, std::pair{lane.to_column, lane.to_y}}) {
                const uint32_t t = tileOfColumn(layout, column);
                auto g = tiles.get(t);
                if (!g) return g.error();
                const uint32_t n = *g ? nodeAt((*g)->graph, (*g)->header, column, y) : kNoNode;
                both = both && n != kNoNode && reached[t][n];
            }
            link_kept[lane.record.id] = link_kept[lane.record.id] || both;
        }
        for (const auto& [id, kept] : link_kept)
            if (!kept) check.pruned_links.push_back(id);
        if (unreached > 0) {
            // The grid without the unreached cells, a row at a time (a tile's nodes are its
            // columns' walkable spans in row order), then the world again.
            pruned = output.parent_path() / (output.filename().string() + ".pruned.vox");
            voxel::VoxelWriter writer(size_t(frame.size_x) * frame.size_z);
            std::vector<uint32_t> next(tile_count, 0);
            std::vector<voxel::Span> spans;
            std::vector<uint32_t> counts;
            for (uint32_t z = 0; z < frame.size_z; ++z) {
                auto row = (*reader)->rows(z, z + 1);
                if (!row) return row.error();
                spans.clear();
                counts.clear();
                for (uint32_t x = 0; x < frame.size_x; ++x) {
                    const size_t c = size_t(z) * frame.size_x + x;
                    const uint32_t t = tileOfColumn(layout, uint32_t(c));
                    counts.push_back(row->end(c) - row->begin(c));
                    for (uint32_t i = row->begin(c); i < row->end(c); ++i) {
                        voxel::Span span = row->span(i);
                        if (span.walkable) {
                            const uint32_t n = next[t]++;
                            if (n >= reached[t].size() || !reached[t][n]) span.walkable = false;
                        }
                        spans.push_back(span);
                    }
                }
                if (Status st = writer.addColumns(spans, counts); !st) return st.error();
            }
            if (Status st = (*reader)->finish(); !st) return st.error();
            if (Status st = writer.finish(pruned, frame); !st) return st.error();
            if (mesh) {
                grid_for_mesh = pruned;
            } else {
                TileWorldRun second;
                second.generated = &first.generated_out;
                second.pruned_links = check.pruned_links;
                auto again = runTileWorld({pruned}, plain, output, context, second);
                std::error_code ec;
                std::filesystem::remove(pruned, ec);
                if (!again) return again;
                result = std::move(again).value();  // links_generated: the first bake's links
            }
        }
    }
    if (mesh) {
        // The navmesh world from the grid the seeds left.
        auto navmesh_world = runNavmeshWorld(
            {grid_for_mesh}, plain, output, context,
            params.generate.enabled() ? &first.generated_out : nullptr, check.pruned_links);
        if (!pruned.empty()) {
            std::error_code ec;
            std::filesystem::remove(pruned, ec);
        }
        if (!navmesh_world) return navmesh_world;
        result = std::move(navmesh_world).value();
    }
    if (!params.seeds.empty()) {
        result.count("seeds_on_surface", check.seeds_on_surface);
        result.count("seed_pruned_cells", check.pruned_cells);
        result.count("seed_searches", searches);
        result.summary.push_back(fmt::format(
            "seeds: {} of {} on the walkable surface; {} walkable cells ({:.1f} m^2) no seed "
            "reaches pruned ({} tile searches)",
            check.seeds_on_surface, params.seeds.size(), check.pruned_cells,
            double(check.pruned_cells) * frame.cell_size * frame.cell_size, searches));
        for (const std::string& off : check.off_surface) result.warnings.push_back(off);
        for (const LinkSpec& l : params.links)
            if (std::binary_search(check.pruned_links.begin(), check.pruned_links.end(), l.id))
                result.warnings.push_back(fmt::format(
                    "{}: left out, it leads from or to surface no seed reaches", l.name));
    }
    if (!params.points.empty()) {
        result.count("points_reachable", check.points_reachable);
        result.count("points_unreachable", check.points_unreachable);
        result.count("points_off_surface", check.points_off_surface);
        result.summary.push_back(
            fmt::format("points of interest: {} of {} reachable ({}){}", check.points_reachable,
                        params.points.size(),
                        !params.seeds.empty() ? "from a seed" : "in the largest walkable area",
                        check.point_problems.empty()
                            ? ""
                            : fmt::format("; {} unreachable, {} off the surface",
                                          check.points_unreachable, check.points_off_surface)));
        for (const std::string& problem : check.point_problems) result.warnings.push_back(problem);
    }
    return result;
}

}  // namespace

void WorldLanes::add(const WorldLane& lane) {
    const uint32_t i = uint32_t(lanes.size());
    lanes.push_back(lane);
    by_tile[lane.from_tile].push_back(i);
    if (lane.to_tile == lane.from_tile) return;
    by_tile[lane.to_tile].push_back(i);
    ++crossing;
}

uint64_t worldLanesHash(const std::vector<WorldLane>& lanes, const std::vector<uint32_t>& mine,
                        const std::vector<std::string>& type_names) {
    std::vector<uint8_t> bytes;
    for (uint32_t i : mine) {
        uint8_t record[formats::kLinkRecordSize];
        formats::encodeLinkRecord(lanes[i].record, record);
        bytes.insert(bytes.end(), record, record + sizeof(record));
        appendBytes(bytes, lanes[i].from_tile);
        appendBytes(bytes, lanes[i].to_tile);
    }
    for (const std::string& name : type_names) {
        bytes.insert(bytes.end(), name.begin(), name.end());
        bytes.push_back(0);
    }
    return formats::xxhash64(bytes.data(), bytes.size(), 0);
}

void addWorldLinkSections(formats::ContainerWriter& writer, const std::vector<WorldLane>& cross,
                          const std::vector<std::string>& type_names) {
    if (cross.empty()) return;
    std::vector<uint8_t> records(cross.size() * formats::kLinkRecordSize), tiles;
    for (size_t i = 0; i < cross.size(); ++i) {
        formats::encodeLinkRecord(cross[i].record, records.data() + i * formats::kLinkRecordSize);
        for (uint32_t t : {cross[i].from_tile, cross[i].to_tile}) {
            tiles.resize(tiles.size() + 4);
            formats::storeLe32(tiles.data() + tiles.size() - 4, t);
        }
    }
    writer.add(formats::kSecWorldLinks, std::move(records));
    writer.add(formats::kSecWorldLinkTiles, std::move(tiles));
    if (!type_names.empty())
        writer.add(formats::kSecWorldLinkTypes, encodeLinkTypeNames(type_names),
                   formats::Codec::raw);
}

LinkEnd WorldLinkEnds::find(const float p[3], float snap, uint32_t&) const {
    const auto it = index_.find(keyOf(p, snap));
    return it == index_.end() || it->second >= ends_.size() ? LinkEnd{} : ends_[it->second];
}

LinkNearest WorldLinkEnds::nearest(const float p[3]) const {
    const auto it = near_index_.find(keyOf(p, 0.0f));
    return it == near_index_.end() || it->second >= nearest_.size() ? LinkNearest{}
                                                                    : nearest_[it->second];
}

std::pair<uint32_t, bool> WorldLinkEnds::addQuery(const std::array<float, 3>& p, float snap) {
    const auto [it, fresh] = index_.emplace(keyOf(p.data(), snap), uint32_t(queries_.size()));
    if (fresh) queries_.push_back({p, snap});
    return {it->second, fresh};
}

std::pair<uint32_t, bool> WorldLinkEnds::addNear(const std::array<float, 3>& p) {
    const auto [it, fresh] =
        near_index_.emplace(keyOf(p.data(), 0.0f), uint32_t(near_points_.size()));
    if (fresh) near_points_.push_back(p);
    return {it->second, fresh};
}

size_t WorldLinkEnds::KeyHash::operator()(const Key& k) const {
    return formats::xxhash64(k.data(), sizeof k, 0);
}

WorldLinkEnds::Key WorldLinkEnds::keyOf(const float p[3], float snap) {
    return {std::bit_cast<uint32_t>(p[0]), std::bit_cast<uint32_t>(p[1]),
            std::bit_cast<uint32_t>(p[2]), std::bit_cast<uint32_t>(snap)};
}

std::string worldTileFileName(uint64_t content) { return tileFileName(content); }

void addIndexTile(WorldIndex& index, uint32_t tile, uint64_t nodes, uint64_t content,
                  const std::vector<uint32_t>& world_component, uint32_t base, uint32_t count) {
    WorldIndex::Tile& entry = index.tiles.emplace_back();
    entry.index = tile;
    entry.nodes = uint32_t(std::min<uint64_t>(nodes, kNoNode - 1));
    entry.content = content;
    for (uint32_t c = 0; c < count; ++c) entry.components.push_back(world_component[base + c]);
}

StageResult worldStageResult(const formats::WorldHeader& h, uint64_t built,
                             std::chrono::steady_clock::time_point start,
                             std::initializer_list<std::pair<const char*, uint64_t>> counts) {
    StageResult result;
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.count("tiles", h.tile_count);
    result.count("tiles_built", built);
    result.count("tiles_reused", h.tile_count - built);
    for (const auto& [name, value] : counts) result.count(name, value);
    result.count("portals", h.portal_count);
    result.count("portal_edges", h.portal_edge_count);
    return result;
}

uint32_t ComponentJoin::add(std::span<const uint64_t> sizes) {
    const uint32_t base = uint32_t(parent_.size());
    for (uint32_t c = 0; c < sizes.size(); ++c) {
        parent_.push_back(base + c);
        size_.push_back(0);
        setSize(base + c, sizes[c]);
    }
    return base;
}

uint64_t ComponentJoin::sizeOf(uint32_t a) const {
    if (size_[a] != UINT32_MAX) return size_[a];
    return big_.at(a);
}

void ComponentJoin::setSize(uint32_t a, uint64_t size) {
    if (size < UINT32_MAX) {
        size_[a] = uint32_t(size);
        return;
    }
    size_[a] = UINT32_MAX;
    big_[a] = size;
}

uint32_t ComponentJoin::root(uint32_t a) {
    while (parent_[a] != a) a = parent_[a] = parent_[parent_[a]];
    return a;
}

void ComponentJoin::join(uint32_t a, uint32_t b) {
    a = root(a);
    b = root(b);
    if (a == b) return;
    if (a > b) std::swap(a, b);
    parent_[b] = a;
    setSize(a, sizeOf(a) + sizeOf(b));
}

std::vector<uint32_t> ComponentJoin::number(std::vector<uint64_t>& island_sizes) {
    // Roots are numbered where they stand (a root is its members' smallest id, so it is met
    // first), each member takes its root's number; then the arrays go.
    std::vector<uint32_t> world(parent_.size());
    island_sizes.clear();
    for (uint32_t c = 0; c < parent_.size(); ++c) {
        const uint32_t r = root(c);
        if (r == c) {
            world[c] = uint32_t(island_sizes.size());
            island_sizes.push_back(sizeOf(c));
        } else {
            world[c] = world[r];
        }
    }
    parent_ = std::vector<uint32_t>();
    size_ = std::vector<uint32_t>();
    big_ = decltype(big_)();
    return world;
}

formats::WorldHeader worldIndexHeader(const WorldLayout& layout, const voxel::VoxelGrid& frame,
                                      uint32_t graph_type) {
    formats::WorldHeader h;
    h.tiles_x = layout.tiles_x;
    h.tiles_z = layout.tiles_z;
    h.tile_cells = layout.tile_cells;
    h.world_size_x = layout.size_x;
    h.world_size_z = layout.size_z;
    for (int a = 0; a < 3; ++a) h.origin[a] = frame.origin[a];
    h.cell_size = frame.cell_size;
    h.cell_height = frame.cell_height;
    h.graph_type = graph_type;
    h.world_fingerprint = layout.fingerprint;
    return h;
}

Result<StageResult> writeWorldShardPart(const std::filesystem::path& output,
                                        const WorldStage::Params& params,
                                        const std::vector<WorldShardTile>& tiles) {
    // A shard: its tiles are in the cache; the part lists them (no index, no portals).
    std::string text;
    uint64_t built = 0, present = 0;
    for (const WorldShardTile& t : tiles)
        if (t.present) {
            ++present;
            built += t.built;
            text += tileFileName(t.content) + "\n";
        }
    if (Status s = writeFileAtomic(
            output,
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        !s)
        return s.error();
    StageResult result;
    result.count("tiles", present);
    result.count("tiles_built", built);
    result.summary.push_back(fmt::format("world shard {}/{}: {} tiles ({} built) -> {}",
                                         params.shard_index, params.shard_count, present, built,
                                         output.string()));
    return result;
}

void joinPortalsByLines(WorldIndex& index,
                        const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& by_tile) {
    auto distance = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
        const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        return float(std::sqrt(dx * dx + dy * dy + dz * dz));
    };
    for (const auto& mine : by_tile)
        for (const auto& [p, cp] : mine)
            for (const auto& [q, cq] : mine)
                if (p != q && cp == cq)
                    index.portals[p].edges.push_back(
                        {q, distance(index.portals[p].position, index.portals[q].position)});
}

void sortPortals(WorldIndex& index) {
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

void WorldIndex::EncodedPortals::reserve(size_t portal_count, size_t edges) {
    records.reserve(portal_count * formats::kPortalRecordSize);
    offsets.reserve((portal_count + 1) * 4);
    targets.reserve(edges * 4);
    costs.reserve(edges * 4);
}

void WorldIndex::EncodedPortals::add(const Portal& p,
                                     std::vector<std::pair<uint32_t, float>>& portal_edges) {
    appendBytes(records, p.tile);
    appendBytes(records, p.column);
    appendBytes(records, p.y);
    for (float v : p.position) appendBytes(records, v);
    std::sort(portal_edges.begin(), portal_edges.end());
    appendBytes(offsets, edge_count);
    for (const auto& [t, c] : portal_edges) {
        appendBytes(targets, t);
        appendBytes(costs, c);
    }
    edge_count += uint32_t(portal_edges.size());
    ++count;
}

Status saveWorldIndex(const std::filesystem::path& output, WorldIndex& index) {
    formats::WorldHeader& h = index.header;
    WorldIndex::EncodedPortals& encoded = index.encoded;
    if (!index.portals.empty() && encoded.count > 0)
        return makeError(ErrorKind::internal, "{}: a world index with portals made twice",
                         output.string());
    // Portals held: encoded here, each one's edges let go as it is (not held twice).
    for (WorldIndex::Portal& p : index.portals) {
        encoded.add(p, p.edges);
        p.edges = std::vector<std::pair<uint32_t, float>>();
    }
    index.portals = std::vector<WorldIndex::Portal>();
    h.tile_count = uint32_t(index.tiles.size());
    h.portal_count = encoded.count;
    h.portal_edge_count = encoded.edge_count;
    formats::ContainerWriter writer(formats::kKindWorld, formats::kWorldVersion);
    // The index grows with the world (a summary per tile): its compressor's tables are capped
    // so that writing it stays within the stage's bounded memory (2^14 entries: ~0.1 MiB where
    // level 9's own take ~1 MiB on a large world's index, for an index ~2% larger at city32).
    writer.setTableLog(14);
    std::vector<uint8_t> header_bytes(formats::kWorldHeaderSize);
    formats::encodeWorldHeader(h, header_bytes.data());
    writer.add(formats::kSecWorldHeader, std::move(header_bytes), formats::Codec::raw);
    std::vector<uint8_t> tile_records;
    tile_records.reserve(index.tiles.size() * 16);
    for (const WorldIndex::Tile& t : index.tiles) {
        appendBytes(tile_records, t.index);
        appendBytes(tile_records, t.nodes);
        appendBytes(tile_records, t.content);
    }
    writer.add(formats::kSecWorldTiles, std::move(tile_records));
    // (The writer keeps only what it stores of each.)
    appendBytes(encoded.offsets, encoded.edge_count);
    writer.add(formats::kSecWorldPortals, std::move(encoded.records));
    writer.add(formats::kSecWorldPortalOffsets, std::move(encoded.offsets));
    writer.add(formats::kSecWorldPortalTargets, std::move(encoded.targets));
    writer.add(formats::kSecWorldPortalCosts, std::move(encoded.costs));
    encoded = {};
    // WCOF: per WTIL record + 1, the first of its components in WCID; WCID: world component per
    // (tile, local component).
    std::vector<uint8_t> component_offsets, component_ids;
    uint32_t at = 0;
    size_t component_total = 0;
    for (const WorldIndex::Tile& t : index.tiles) component_total += t.components.size();
    component_offsets.reserve((index.tiles.size() + 1) * 4);
    component_ids.reserve(component_total * 4);
    for (const WorldIndex::Tile& t : index.tiles) {
        appendBytes(component_offsets, at);
        for (uint32_t c : t.components) appendBytes(component_ids, c);
        at += uint32_t(t.components.size());
    }
    index.tiles = std::vector<WorldIndex::Tile>();
    appendBytes(component_offsets, at);
    writer.add(formats::kSecWorldComponentOffsets, std::move(component_offsets));
    writer.add(formats::kSecWorldComponents, std::move(component_ids));
    return saveContainer(output, writer);
}

Result<std::vector<WorldTileFile>> worldTileFiles(const std::filesystem::path& index) {
    auto c = loadContainer(index, formats::kKindWorld, formats::kWorldVersion);
    if (!c) return c.error();
    formats::WorldHeader h;
    if (Status s = c->header(formats::kSecWorldHeader, formats::decodeWorldHeader, h); !s)
        return s.error();
    auto tiles = c->section(formats::kSecWorldTiles);
    if (!tiles) return tiles.error();
    if (tiles->size() != size_t(h.tile_count) * 16)
        return inputError("{}: section 'WTIL' holds {} bytes, expected {} (16 per tile)",
                          index.string(), tiles->size(), size_t(h.tile_count) * 16);
    std::vector<WorldTileFile> files;
    for (uint32_t i = 0; i < h.tile_count; ++i) {
        const uint8_t* p = tiles->data() + 16 * size_t(i);
        const uint32_t tile = formats::loadLe32(p);
        const uint64_t content = formats::loadLe64(p + 8);
        if (tile >= h.tiles_x * h.tiles_z)
            return inputError("{}: tile record {} names tile {} of {}", index.string(), i, tile,
                              h.tiles_x * h.tiles_z);
        files.push_back(
            {tile % h.tiles_x, tile / h.tiles_x, index.parent_path() / tileFileName(content)});
    }
    return files;
}

}  // namespace nav::graph
