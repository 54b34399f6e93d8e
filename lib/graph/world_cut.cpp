// World tiles cut from a whole graph: Dirichlet domains and points of visibility, whose tiles
// cannot be decided from their columns and a border as a tile graph's can.
//
// Dirichlet domains (Millington & Funge, "Artificial Intelligence for Games", 2nd ed. 2009,
// section 4.4.2; built by dirichlet.cpp): a cell's domain depends on walking distances across
// the whole world (a waypoint claims cells up to wherever a nearer one takes over, however far).
// Each tile holds the whole waypoint graph (a few nodes per designer's waypoint) and the domain
// cells of its own columns, so the tiles of a query's two ends answer it (FORMAT.md §11.6).
//
// Points of visibility (Lozano-Perez & Wesley 1979, taut edges after Oh & Leong 2017; built by
// pov_graph.cpp): a visibility edge may span any number of tiles. Each tile holds the layer cells
// of its columns with their links (those into another tile as WPNB records), the corners on its
// cells, and their taut edges (those to another tile's corners as WPED records); navrt joins the
// loaded tiles into one POV graph (FORMAT.md §11.7).
//
// The graph stage bakes both whole, exactly, and this stage splits them: the tiles together hold
// exactly the whole graph, in its order. A tile is rewritten only when its content changes (its
// cache file is named by the hash of its content).
#include <algorithm>
#include <array>
#include <bit>
#include <set>
#include <unordered_map>

#include "formats/bytes.h"
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

// The whole graph a world is cut from, with the world's frame and tiling.
struct CutSource {
    std::unique_ptr<voxel::VoxelRowReader> reader;  // its header() is the world's frame
    WorldLayout layout;
    Graph graph;
};

Result<CutSource> openCut(const WorldStage::Inputs& inputs, const WorldStage::Params& params,
                          GraphType type, const char* kind) {
    if (inputs.graph.empty())
        return inputError(
            "a {} world is cut from the agent's {} graph: none was given (bake it with `navbake "
            "graph`, or through `navbake build`)",
            kind, kind);
    CutSource src;
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    src.reader = std::move(reader).value();
    const voxel::VoxelGrid& frame = src.reader->header();
    src.layout = worldLayout(frame, params.tile_size);
    auto loaded = loadGraph(inputs.graph);
    if (!loaded) return loaded.error();
    src.graph = std::move(loaded).value();
    const Graph& g = src.graph;
    if (g.header.type != type)
        return inputError("{}: not a {} graph (a world of {} tiles is cut from one)",
                          inputs.graph.string(), kind, kind);
    if (g.header.size_x != src.layout.size_x || g.header.size_z != src.layout.size_z ||
        g.header.cell_size != frame.cell_size || g.header.cell_height != frame.cell_height)
        return inputError(
            "{}: its grid ({} x {} cells of {} m) is not the world's {} ({} x {} of {} m)",
            inputs.graph.string(), g.header.size_x, g.header.size_z, g.header.cell_size,
            inputs.voxels.string(), src.layout.size_x, src.layout.size_z, frame.cell_size);
    return src;
}

// The whole graph's layer cells in window w's columns, in its order (by world row, then column,
// then height): their ids in `ids`, and in `t` as the tile's cells (columns in the tile's grid)
// with its column index.
void cutLayer(const Graph& g, const WorldLayout& layout, const WorldWindow& w,
              std::vector<uint32_t>& ids, Graph& t) {
    const uint32_t width = w.x1 - w.x0, depth = w.z1 - w.z0;
    ids.clear();
    t.layer_cells.clear();
    t.layer_columns.assign(size_t(width) * depth + 1, 0);
    for (uint32_t lz = 0; lz < depth; ++lz)
        for (uint32_t lx = 0; lx < width; ++lx) {
            const size_t column = size_t(w.z0 + lz) * layout.size_x + (w.x0 + lx);
            for (uint32_t k = g.layer_columns[column]; k < g.layer_columns[column + 1]; ++k) {
                formats::NodeCell cell = g.layer_cells[k];
                cell.column = lz * width + lx;
                t.layer_cells.push_back(cell);
                ids.push_back(k);
            }
            t.layer_columns[size_t(lz) * width + lx + 1] = uint32_t(t.layer_cells.size());
        }
}

// The whole graph's header over tile window w's columns.
formats::GraphHeader tileHeader(const Graph& g, const voxel::VoxelGrid& frame,
                                const WorldWindow& w) {
    const formats::GraphHeader crop =
        headerForGrid(voxel::cropHeader(frame, w.x0, w.z0, w.x1, w.z1), g.header.type);
    formats::GraphHeader h = g.header;
    h.size_x = crop.size_x;
    h.size_z = crop.size_z;
    std::copy(crop.origin, crop.origin + 3, h.origin);
    return h;
}

uint64_t cellsHash(const std::vector<formats::NodeCell>& cells, uint64_t seed) {
    std::vector<uint8_t> bytes(cells.size() * formats::kNodeCellSize);
    for (size_t i = 0; i < cells.size(); ++i)
        formats::encodeNodeCell(cells[i], bytes.data() + i * formats::kNodeCellSize);
    return formats::xxhash64(bytes.data(), bytes.size(), seed);
}

// Writes `tile` as its cache file beside `output` unless one of that content is there; true when
// written.
Result<bool> keepTile(const std::filesystem::path& output, uint64_t content, WorldTile& tile,
                      int compression) {
    const std::filesystem::path file = output.parent_path() / worldTileFileName(content);
    if (std::filesystem::exists(file)) return false;
    if (Status s = saveWorldTile(file, tile, compression); !s) return s.error();
    return true;
}

std::vector<uint8_t> povRecords(const std::vector<std::array<uint32_t, 4>>& records) {
    std::vector<uint8_t> out(records.size() * formats::kWorldPovRecordSize);
    for (size_t i = 0; i < records.size(); ++i)
        for (int k = 0; k < 4; ++k)
            formats::storeLe32(out.data() + i * formats::kWorldPovRecordSize + 4 * k,
                               records[i][k]);
    return out;
}

}  // namespace

Result<StageResult> runDirichletWorld(const WorldStage::Inputs& inputs,
                                      const WorldStage::Params& params,
                                      const std::filesystem::path& output, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    auto src = openCut(inputs, params, GraphType::dirichlet, "Dirichlet");
    if (!src) return src.error();
    const WorldLayout& layout = src->layout;
    const voxel::VoxelGrid& frame = src->reader->header();
    const Graph& g = src->graph;
    const uint64_t shared = waypointGraphHash(g, layout, params.compression);
    WorldIndex index;
    index.header = worldIndexHeader(layout, frame, uint32_t(GraphType::dirichlet));
    std::vector<uint32_t> identity(g.header.component_count);
    for (uint32_t c = 0; c < identity.size(); ++c) identity[c] = c;
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    uint64_t built = 0, cells_total = 0, progress = 0;
    WorldTile tile;
    Graph& t = tile.graph;  // one tile at a time; the waypoint graph is the whole graph's
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
    std::vector<uint32_t> ids;
    for (uint32_t tz = 0; tz < layout.tiles_z; ++tz) {
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            if (context.cancelled())
                return makeError(ErrorKind::cancelled, "world dirichlet: cancelled");
            context.progress("world dirichlet", ++progress, tile_count);
            const WorldWindow w = tileWindow(layout, tx, tz);
            cutLayer(g, layout, w, ids, t);
            if (t.layer_cells.empty()) continue;  // no domain reaches it: no tile
            t.domain_owners.resize(ids.size());
            for (size_t i = 0; i < ids.size(); ++i) t.domain_owners[i] = g.domain_owners[ids[i]];
            t.header = tileHeader(g, frame, w);
            uint64_t content = shared;
            for (uint64_t v : {uint64_t(tx), uint64_t(tz)})
                content = formats::xxhash64(&v, sizeof v, content);
            content = hashOf(t.domain_owners, cellsHash(t.layer_cells, content));
            tile.header = worldTileHeader(layout, tx, tz, 0);
            auto kept = keepTile(output, content, tile, params.compression);
            if (!kept) return kept.error();
            built += *kept;
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

Result<StageResult> runPovWorld(const WorldStage::Inputs& inputs, const WorldStage::Params& params,
                                const std::filesystem::path& output, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    auto src = openCut(inputs, params, GraphType::pov, "POV");
    if (!src) return src.error();
    const WorldLayout& layout = src->layout;
    const voxel::VoxelGrid& frame = src->reader->header();
    const Graph& g = src->graph;
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    const size_t cells = g.layer_cells.size(), corners = g.corners.size();
    // Per whole cell and corner: its tile, and its index there (both keep the whole order).
    std::vector<uint32_t> cell_tile(cells), cell_local(cells), corner_tile(corners),
        corner_local(corners);
    std::vector<std::vector<uint32_t>> tile_corners(tile_count);
    {
        // The whole graph's cells run by world row, then column: a tile's come in its own row
        // order among them, so counting per tile numbers them as cutLayer lists them.
        std::vector<uint32_t> counted(tile_count, 0);
        for (size_t k = 0; k < cells; ++k) {
            const uint32_t tile = tileOfColumn(layout, g.layer_cells[k].column);
            cell_tile[k] = tile;
            cell_local[k] = counted[tile]++;
        }
        for (uint32_t c = 0; c < corners; ++c) {
            const uint32_t tile = cell_tile[g.corners[c].cell];
            corner_tile[c] = tile;
            corner_local[c] = uint32_t(tile_corners[tile].size());
            tile_corners[tile].push_back(c);
        }
    }
    // Links (their edges join link-end vertices): those with both ends in one tile are its own
    // LINK records; the others are WLNK records of the tiles their edges leave.
    std::vector<std::vector<uint32_t>> tile_links(tile_count);
    for (uint32_t l = 0; l < g.links.size(); ++l) {
        const uint32_t a = corner_tile[g.links[l].from_node], b = corner_tile[g.links[l].to_node];
        if (a == b) tile_links[a].push_back(l);
    }
    std::vector<uint32_t> link_local(g.links.size(), kNoNode), cross_local(g.links.size(), kNoNode);
    WorldIndex index;
    index.header = worldIndexHeader(layout, frame, uint32_t(GraphType::pov));
    // The portal graph (planning across tiles not loaded): per pair of tiles and layer component
    // that a taut edge joins, the first such edge (in corner order) makes a portal of each end,
    // joined at its cost; inside a tile, a component's portals are joined by straight lines.
    std::set<std::array<uint32_t, 3>> joined;          // (tile, other tile, component)
    std::unordered_map<uint32_t, uint32_t> portal_of;  // whole corner -> portal
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> by_tile(tile_count);
    auto portal = [&](uint32_t corner) {
        auto [it, added] = portal_of.try_emplace(corner, uint32_t(index.portals.size()));
        if (added) {
            const uint32_t cell = g.corners[corner].cell;
            WorldIndex::Portal& p = index.portals.emplace_back();
            p.tile = corner_tile[corner];
            p.column = g.layer_cells[cell].column;
            p.y = g.layer_cells[cell].y;
            std::copy_n(&g.positions[3 * size_t(corner)], 3, p.position.begin());
            by_tile[p.tile].push_back({it->second, g.layer_components[cell]});
        }
        return it->second;
    };
    uint64_t built = 0, progress = 0, cells_total = 0, crossing_links = 0, crossing_edges = 0;
    const uint32_t components = g.pov_stats.layer_component_count;
    std::vector<uint32_t> local_component(components, kNoNode),
        corner_component(components, kNoNode);
    // World components: the whole graph's layer components, numbered by first appearance in
    // tile order (so the index's ids stay below its count of records).
    std::vector<uint32_t> world_id(components, kNoNode);
    uint32_t world_components = 0;
    std::vector<uint32_t> ids;
    WorldTile tile;
    Graph& t = tile.graph;
    for (uint32_t tz = 0; tz < layout.tiles_z; ++tz) {
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            if (context.cancelled()) return makeError(ErrorKind::cancelled, "world pov: cancelled");
            context.progress("world pov", ++progress, tile_count);
            const uint32_t me = tz * layout.tiles_x + tx;
            const WorldWindow w = tileWindow(layout, tx, tz);
            cutLayer(g, layout, w, ids, t);
            if (t.layer_cells.empty()) continue;  // no walkable cell: no tile
            t.header = tileHeader(g, frame, w);
            t.areas = g.areas;
            t.source_name = g.source_name;
            const size_t n_cells = ids.size();
            // Layer components (LCMP), numbered in the tile by first appearance; the index maps
            // them to world components.
            std::vector<uint32_t> layer_of;  // per local layer component: the whole graph's id
            t.layer_components.resize(n_cells);
            for (size_t i = 0; i < n_cells; ++i) {
                uint32_t& local = local_component[g.layer_components[ids[i]]];
                if (local == kNoNode) {
                    local = uint32_t(layer_of.size());
                    layer_of.push_back(g.layer_components[ids[i]]);
                }
                t.layer_components[i] = local;
            }
            std::vector<uint32_t> world_of(layer_of.size());
            for (size_t k = 0; k < layer_of.size(); ++k) {
                if (world_id[layer_of[k]] == kNoNode) world_id[layer_of[k]] = world_components++;
                world_of[k] = world_id[layer_of[k]];
            }
            // The corners' components (NCMP): their cells' layer components, numbered among them.
            std::vector<uint32_t> corner_of;
            // Layer links: inside the tile by its cell ids, into another tile as WPNB records.
            std::vector<std::array<uint32_t, 4>> links_out;
            t.layer_neighbours.assign(4 * n_cells, kNoNode);
            for (size_t i = 0; i < n_cells; ++i)
                for (uint32_t k = 0; k < uint32_t(formats::kLayerDirections); ++k) {
                    const uint32_t target = g.layer_neighbours[k * cells + ids[i]];
                    if (target == kNoNode) continue;
                    if (cell_tile[target] == me)
                        t.layer_neighbours[k * n_cells + i] = cell_local[target];
                    else
                        links_out.push_back(
                            {uint32_t(i), k, cell_tile[target], cell_local[target]});
                }
            // Corners on its cells, and their edges: inside the tile, or WPED records.
            const std::vector<uint32_t>& mine = tile_corners[me];
            std::vector<std::array<uint32_t, 4>> edges_out;
            t.links.clear();
            t.edge_links.clear();
            t.link_type_names.clear();
            for (uint32_t l : tile_links[me]) {
                link_local[l] = uint32_t(t.links.size());
                formats::LinkRecord r = g.links[l];
                r.from_node = corner_local[r.from_node];
                r.to_node = corner_local[r.to_node];
                t.links.push_back(r);
            }
            if (!t.links.empty()) t.link_type_names = g.link_type_names;
            std::vector<uint32_t> edge_link_out;  // WPEL, per WPED record
            std::vector<formats::LinkRecord> cross;
            std::vector<uint32_t> cross_ids;
            t.corners.clear();
            t.positions.clear();
            t.components.clear();
            t.edge_offsets.assign(1, 0);
            t.edge_targets.clear();
            t.edge_costs.clear();
            uint32_t any_direction = 0;
            std::vector<uint32_t> component_size;
            for (uint32_t u = 0; u < mine.size(); ++u) {
                const uint32_t whole = mine[u];
                formats::PovCorner c = g.corners[whole];
                c.cell = cell_local[c.cell];
                any_direction += c.flags != 0;
                t.corners.push_back(c);
                t.positions.insert(t.positions.end(), &g.positions[3 * size_t(whole)],
                                   &g.positions[3 * size_t(whole)] + 3);
                uint32_t& local = corner_component[t.layer_components[c.cell]];
                if (local == kNoNode) {
                    local = uint32_t(corner_of.size());
                    corner_of.push_back(t.layer_components[c.cell]);
                    component_size.push_back(0);
                }
                t.components.push_back(local);
                ++component_size[local];
                for (uint32_t e = g.edge_offsets[whole]; e < g.edge_offsets[whole + 1]; ++e) {
                    const uint32_t v = g.edge_targets[e];
                    const uint32_t l = g.edge_links.empty() ? formats::kNoLink : g.edge_links[e];
                    if (corner_tile[v] == me) {
                        t.edge_targets.push_back(corner_local[v]);
                        t.edge_costs.push_back(g.edge_costs[e]);
                        if (!t.links.empty())
                            t.edge_links.push_back(l == formats::kNoLink ? formats::kNoLink
                                                                         : link_local[l]);
                    } else {
                        edges_out.push_back({u, corner_tile[v], corner_local[v],
                                             std::bit_cast<uint32_t>(g.edge_costs[e])});
                        uint32_t taken = formats::kNoLink;
                        if (l != formats::kNoLink) {
                            if (cross_local[l] == kNoNode) {
                                cross_local[l] = uint32_t(cross.size());
                                cross_ids.push_back(l);
                                formats::LinkRecord r = g.links[l];
                                r.from_node = r.to_node = formats::kNoLink;  // in two tiles
                                cross.push_back(r);
                            }
                            taken = cross_local[l] * 2 + (g.links[l].to_node == whole);
                        }
                        edge_link_out.push_back(taken);
                        const uint32_t component = g.layer_components[g.corners[whole].cell];
                        if (me < corner_tile[v] &&
                            joined.insert({me, corner_tile[v], component}).second) {
                            const uint32_t a = portal(whole), b = portal(v);
                            index.portals[a].edges.push_back({b, g.edge_costs[e]});
                            index.portals[b].edges.push_back({a, g.edge_costs[e]});
                        }
                    }
                }
                t.edge_offsets.push_back(uint32_t(t.edge_targets.size()));
            }
            for (uint32_t whole : layer_of) local_component[whole] = kNoNode;
            for (uint32_t local : corner_of) corner_component[local] = kNoNode;
            for (uint32_t l : tile_links[me]) link_local[l] = kNoNode;
            for (uint32_t l : cross_ids) cross_local[l] = kNoNode;
            t.header.component_count = uint32_t(corner_of.size());
            t.header.largest_component =
                component_size.empty()
                    ? 0
                    : *std::max_element(component_size.begin(), component_size.end());
            formats::PovStats& st = t.pov_stats;
            st = g.pov_stats;
            st.corner_count = uint32_t(mine.size());
            st.layer_cell_count = uint32_t(n_cells);
            st.layer_component_count = uint32_t(layer_of.size());
            st.any_direction_corners = any_direction;
            st.visibility_edges = uint64_t(t.edge_targets.size() + edges_out.size());
            st.taut_edges = uint64_t(t.edge_targets.size());
            tile.extra.clear();
            tile.extra.push_back({formats::kSecWorldPovNeighbours, povRecords(links_out)});
            tile.extra.push_back({formats::kSecWorldPovEdges, povRecords(edges_out)});
            if (!cross.empty()) {
                std::vector<uint8_t> taken(edge_link_out.size() * 4);
                for (size_t i = 0; i < edge_link_out.size(); ++i)
                    formats::storeLe32(taken.data() + 4 * i, edge_link_out[i]);
                tile.extra.push_back({formats::kSecWorldPovEdgeLinks, std::move(taken)});
                tile.extra.push_back({formats::kSecWorldLinks, encodeLinkRecords(cross)});
                if (!g.link_type_names.empty())
                    tile.extra.push_back({formats::kSecWorldLinkTypes,
                                          encodeLinkTypeNames(g.link_type_names),
                                          formats::Codec::raw});
            }
            tile.header = worldTileHeader(layout, tx, tz, 0);
            // Its content: the world's frame, this tile, and every array it is written from.
            uint64_t content = layout.fingerprint;
            for (uint64_t v : {uint64_t(layout.tile_cells), uint64_t(params.compression),
                               uint64_t(3), uint64_t(tx), uint64_t(tz)})
                content = formats::xxhash64(&v, sizeof v, content);
            std::vector<uint8_t> header(formats::kGraphHeaderSize);
            formats::encodeGraphHeader(t.header, header.data());
            content = formats::xxhash64(header.data(), header.size(), content);
            content = cellsHash(t.layer_cells, content);
            std::vector<uint8_t> corner_bytes(t.corners.size() * formats::kPovCornerSize);
            for (size_t i = 0; i < t.corners.size(); ++i)
                formats::encodePovCorner(t.corners[i],
                                         corner_bytes.data() + i * formats::kPovCornerSize);
            content = formats::xxhash64(corner_bytes.data(), corner_bytes.size(), content);
            for (const auto* v :
                 {&t.layer_neighbours, &t.layer_components, &t.edge_offsets, &t.edge_targets})
                content = hashOf(*v, content);
            content = hashOf(t.positions, hashOf(t.edge_costs, content));
            for (const WorldTile::Section& section : tile.extra)
                content = hashOf(section.bytes, content ^ section.id);
            for (const geometry::AreaType& a : g.areas) {
                content = formats::xxhash64(a.name.data(), a.name.size(), content);
                content = formats::xxhash64(&a.cost, sizeof a.cost, content);
            }
            if (!t.links.empty()) {
                content = hashOf(t.edge_links, hashOf(encodeLinkRecords(t.links), content));
                for (const std::string& name : t.link_type_names)
                    content = formats::xxhash64(name.data(), name.size() + 1, content);
            }
            auto kept = keepTile(output, content, tile, params.compression);
            if (!kept) return kept.error();
            built += *kept;
            cells_total += n_cells;
            crossing_links += links_out.size();
            crossing_edges += edges_out.size();
            addIndexTile(index, me, mine.size(), content, world_of, 0, uint32_t(world_of.size()));
        }
    }
    if (cells_total != cells)
        return makeError(ErrorKind::internal, "POV world: {} cells in tiles, {} in the graph",
                         cells_total, cells);
    joinPortalsByLines(index, by_tile);
    sortPortals(index);
    if (Status s = saveWorldIndex(output, index); !s) return s.error();
    const formats::WorldHeader& h = index.header;
    StageResult result = worldStageResult(h, built, start,
                                          {{"corners", corners},
                                           {"layer_cells", cells},
                                           {"edges", g.edgeCount()},
                                           {"edges_between_tiles", crossing_edges},
                                           {"layer_links_between_tiles", crossing_links}});
    result.summary.push_back(fmt::format(
        "POV world: {} x {} tiles of {} columns ({} with walkable cells: {} built, {} reused), "
        "{} corners, {} taut edges ({} between tiles) -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, h.tile_count, built,
        h.tile_count - built, corners, g.edgeCount(), crossing_edges, output.string()));
    return result;
}

}  // namespace nav::graph
