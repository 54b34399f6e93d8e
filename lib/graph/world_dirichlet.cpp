// Dirichlet-domain world tiles: the agent's Dirichlet graph (Millington & Funge, "Artificial
// Intelligence for Games", 2nd ed. 2009, section 4.4.2; built by dirichlet.cpp) cut into world
// tiles, each the waypoint graph with the domain cells of its own columns (FORMAT.md §11.6).
//
// Why cut and not bake tile by tile: a cell's domain depends on walking distances across the
// whole world (a waypoint claims cells up to wherever a nearer one takes over, however far), so
// no tile's cells can be decided from its columns and a border, as a tile graph's can. The graph
// stage bakes the domains whole (exactly, one multi-source Dijkstra) and this stage splits them:
// the tiles together hold exactly the whole graph's cells and owners, in its order, and every
// tile holds the whole waypoint graph (a few nodes per designer's waypoint), so a tile answers a
// query from its own cell to any waypoint and the streaming runtime needs only the tiles of a
// query's two ends. A tile is rewritten only when its bytes change (its cache file is named by
// the hash of its content).
#include <algorithm>
#include <bit>

#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/graph/world.h"

namespace nav::graph {

namespace {

template <class T>
uint64_t hashOf(const std::vector<T>& v, uint64_t seed) {
    return formats::xxhash64(v.data(), v.size() * sizeof(T), seed);
}

// What every tile of the world repeats: the waypoint graph (header, positions, edges,
// components, areas, point-of-interest tables) and the world's frame.
uint64_t waypointGraphHash(const Graph& g, const WorldLayout& layout, int compression) {
    std::vector<uint8_t> header(formats::kGraphHeaderSize);
    formats::encodeGraphHeader(g.header, header.data());
    uint64_t h = formats::xxhash64(header.data(), header.size(), layout.fingerprint);
    for (uint64_t v : {uint64_t(layout.tile_cells), uint64_t(compression), uint64_t(5)})
        h = formats::xxhash64(&v, sizeof v, h);
    h = hashOf(g.positions, h);
    h = hashOf(g.edge_offsets, h);
    h = hashOf(g.edge_targets, h);
    h = hashOf(g.edge_costs, h);
    h = hashOf(g.components, h);
    for (const geometry::AreaType& a : g.areas) {
        h = formats::xxhash64(a.name.data(), a.name.size(), h);
        h = formats::xxhash64(&a.cost, sizeof a.cost, h);
    }
    for (const std::string& k : g.poi_kinds) h = formats::xxhash64(k.data(), k.size() + 1, h);
    h = hashOf(g.poi_distances, h);
    h = hashOf(g.poi_next, h);
    return h;
}

}  // namespace

Result<StageResult> runDirichletWorld(const WorldStage::Inputs& inputs,
                                      const WorldStage::Params& params,
                                      const std::filesystem::path& output, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    if (inputs.graph.empty())
        return inputError(
            "a Dirichlet world is cut from the agent's Dirichlet graph: none was given (bake it "
            "with `navbake graph dirichlet`, or through `navbake build`)");
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid& frame = (*reader)->header();
    const WorldLayout layout = worldLayout(frame, params.tile_size);
    auto loaded = loadGraph(inputs.graph);
    if (!loaded) return loaded.error();
    Graph& g = *loaded;
    if (g.header.type != GraphType::dirichlet)
        return inputError(
            "{}: not a Dirichlet graph (a world of Dirichlet domains is cut from one)",
            inputs.graph.string());
    if (g.header.size_x != layout.size_x || g.header.size_z != layout.size_z ||
        g.header.cell_size != frame.cell_size || g.header.cell_height != frame.cell_height)
        return inputError(
            "{}: its grid ({} x {} cells of {} m) is not the world's {} ({} x {} of {} m)",
            inputs.graph.string(), g.header.size_x, g.header.size_z, g.header.cell_size,
            inputs.voxels.string(), layout.size_x, layout.size_z, frame.cell_size);
    const std::filesystem::path folder = output.parent_path();
    const uint64_t shared = waypointGraphHash(g, layout, params.compression);
    WorldIndex index;
    index.header = worldIndexHeader(layout, frame, uint32_t(GraphType::dirichlet));
    std::vector<uint32_t> identity(g.header.component_count);
    for (uint32_t c = 0; c < identity.size(); ++c) identity[c] = c;
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    uint64_t built = 0, cells_total = 0, progress = 0;
    Graph t;  // one tile at a time; the waypoint graph is the whole graph's
    t.positions = g.positions;
    t.edge_offsets = g.edge_offsets;
    t.edge_targets = g.edge_targets;
    t.edge_costs = g.edge_costs;
    t.components = g.components;
    t.areas = g.areas;
    t.source_name = g.source_name;
    t.poi_kinds = g.poi_kinds;
    t.poi_distances = g.poi_distances;
    t.poi_next = g.poi_next;
    for (uint32_t tz = 0; tz < layout.tiles_z; ++tz) {
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            if (context.cancelled())
                return makeError(ErrorKind::cancelled, "world dirichlet: cancelled");
            const WorldWindow w = tileWindow(layout, tx, tz);
            const uint32_t width = w.x1 - w.x0, depth = w.z1 - w.z0;
            t.layer_cells.clear();
            t.domain_owners.clear();
            t.layer_columns.assign(size_t(width) * depth + 1, 0);
            for (uint32_t lz = 0; lz < depth; ++lz)
                for (uint32_t lx = 0; lx < width; ++lx) {
                    const size_t column = size_t(w.z0 + lz) * layout.size_x + (w.x0 + lx);
                    for (uint32_t k = g.layer_columns[column]; k < g.layer_columns[column + 1];
                         ++k) {
                        formats::NodeCell cell = g.layer_cells[k];
                        cell.column = lz * width + lx;
                        t.layer_cells.push_back(cell);
                        t.domain_owners.push_back(g.domain_owners[k]);
                    }
                    t.layer_columns[size_t(lz) * width + lx + 1] = uint32_t(t.layer_cells.size());
                }
            context.progress("world dirichlet", ++progress, tile_count);
            if (t.layer_cells.empty()) continue;  // no domain reaches it: no tile
            const formats::GraphHeader crop = headerForGrid(
                voxel::cropHeader(frame, w.x0, w.z0, w.x1, w.z1), GraphType::dirichlet);
            t.header = g.header;
            t.header.size_x = crop.size_x;
            t.header.size_z = crop.size_z;
            std::copy(crop.origin, crop.origin + 3, t.header.origin);
            uint64_t content = shared;
            for (uint64_t v : {uint64_t(tx), uint64_t(tz)})
                content = formats::xxhash64(&v, sizeof v, content);
            std::vector<uint8_t> cells(t.layer_cells.size() * formats::kNodeCellSize);
            for (size_t i = 0; i < t.layer_cells.size(); ++i)
                formats::encodeNodeCell(t.layer_cells[i],
                                        cells.data() + i * formats::kNodeCellSize);
            content = formats::xxhash64(cells.data(), cells.size(), content);
            content = hashOf(t.domain_owners, content);
            const std::filesystem::path file = folder / worldTileFileName(content);
            if (!std::filesystem::exists(file)) {
                WorldTile tile;
                tile.graph = std::move(t);
                tile.header = worldTileHeader(layout, tx, tz, 0);
                const Status saved = saveWorldTile(file, tile, params.compression);
                t = std::move(tile.graph);
                if (!saved) return saved.error();
                ++built;
            }
            cells_total += t.layer_cells.size();
            addIndexTile(index, tz * layout.tiles_x + tx, t.layer_cells.size(), content, identity,
                         0, uint32_t(identity.size()));
        }
    }
    if (cells_total != g.layer_cells.size())
        return makeError(ErrorKind::internal, "Dirichlet world: {} cells in tiles, {} in the graph",
                         cells_total, g.layer_cells.size());
    if (Status s = saveWorldIndex(output, index); !s) return s.error();
    const formats::WorldHeader& h = index.header;
    StageResult result = worldStageResult(
        h, built, start, {{"waypoints", g.nodeCount()}, {"domain_cells", cells_total}});
    result.summary.push_back(fmt::format(
        "Dirichlet world: {} x {} tiles of {} columns ({} with domain cells: {} built, {} "
        "reused), {} waypoints and {} connections in each, {} domain cells -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, h.tile_count, built,
        h.tile_count - built, g.nodeCount(), g.edgeCount(), cells_total, output.string()));
    return result;
}

}  // namespace nav::graph
