// Navmesh world tiles: the tiled navmesh (Recast's tiles, M. Mononen: a border of agent radius + 3
// columns, seam points shared along each side) written a tile at a time as world tiles, without
// the stitch. Each tile is a navmesh runtime asset of its own polygons plus its border edges
// (WNBE): the polygon edges on its sides that the stitched mesh would link to the neighbour's
// edge with the same ends. navrt::World joins them when both tiles are loaded (as Detour's
// dtNavMesh::connectExtLinks joins tiles by their border edges).
//
// A tile's polygons depend on its compact field and its four neighbours' (their seam points), so
// a tile is rebuilt when its own or a side neighbour's columns (with their borders) change: the
// key the navmesh build hands the sink. The portal graph over tiles (HPA*'s abstract graph, Botea,
// Mueller and Schaeffer 2004) has a portal per border edge that joins, and inside a tile the
// shortest polygon-graph costs between them.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <mutex>

#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"
#include "lib/graph/world.h"

namespace nav::graph {
namespace {

// What the stage keeps of each tile once it is built (or found in the cache).
struct MeshTileSummary {
    bool present = false, built = false;
    uint64_t content = 0;
    uint32_t polygons = 0, components = 0;
    std::vector<uint64_t> component_sizes;
    std::vector<formats::BorderEdgeRecord> border;  // WNBE order
    std::vector<uint32_t> border_component;         // per border edge: its polygon's component
    std::vector<std::array<float, 3>> border_mid;   // per border edge: its midpoint [m]
    // Inside the tile, the polygon-graph cost from border edge i to j (midpoint to centroid,
    // centroids along the graph, centroid to midpoint), for every pair that connects.
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, float>> inside;
};

Status saveMeshTile(const std::filesystem::path& path, const Graph& graph,
                    const formats::WorldTileHeader& header,
                    const std::vector<formats::BorderEdgeRecord>& border, int compression) {
    formats::ContainerWriter writer = graphWriter(graph, formats::kKindNav, compression);
    std::vector<uint8_t> head(formats::kWorldTileHeaderSize);
    formats::encodeWorldTileHeader(header, head.data());
    writer.add(formats::kSecWorldTileHeader, std::move(head), formats::Codec::raw);
    std::vector<uint8_t> edges(border.size() * formats::kBorderEdgeRecordSize);
    for (size_t i = 0; i < border.size(); ++i)
        formats::encodeBorderEdge(border[i], edges.data() + i * formats::kBorderEdgeRecordSize);
    writer.add(formats::kSecWorldBorderEdges, std::move(edges));
    return saveContainer(path, writer);
}

// The summary of a tile from its graph and border edges.
void summarise(const Graph& g, const std::vector<formats::BorderEdgeRecord>& border,
               MeshTileSummary& s) {
    const navmesh::NavMesh& m = g.mesh;
    s.present = g.nodeCount() > 0;
    s.polygons = uint32_t(g.nodeCount());
    s.components = g.header.component_count;
    s.component_sizes.assign(s.components, 0);
    for (uint32_t c : g.components)
        if (c < s.components) ++s.component_sizes[c];
    s.border = border;
    s.border_component.clear();
    s.border_mid.clear();
    for (const formats::BorderEdgeRecord& e : border) {
        s.border_component.push_back(g.components[e.poly]);
        const uint32_t first = m.poly_offsets[e.poly];
        const uint32_t n = m.poly_offsets[e.poly + 1] - first;
        const float* a = &m.vertices[3 * size_t(m.poly_vertices[first + e.edge])];
        const float* b = &m.vertices[3 * size_t(m.poly_vertices[first + (e.edge + 1) % n])];
        s.border_mid.push_back({0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2])});
    }
    // Costs between border edges inside the tile.
    s.inside.clear();
    auto toCentroid = [&](uint32_t i) {
        const uint32_t p = border[i].poly;
        const float* c = &g.positions[3 * size_t(p)];
        const auto& q = s.border_mid[i];
        const double dx = c[0] - q[0], dy = c[1] - q[1], dz = c[2] - q[2];
        return std::sqrt(dx * dx + dy * dy + dz * dz) * g.areas[m.poly_areas[p]].cost;
    };
    const CsrGraph<float> csr{g.edge_offsets, g.edge_targets, g.edge_costs};
    Dijkstra<double> search;
    for (uint32_t i = 0; i < border.size(); ++i) {
        search.reset(g.nodeCount());
        search.addSource(border[i].poly);
        search.run(csr, AnyNode{}, NoHook{}, [](uint32_t, double) { return false; });
        for (uint32_t j = 0; j < border.size(); ++j) {
            if (j == i) continue;
            const double d = search.dist(border[j].poly);
            if (!std::isfinite(d)) continue;
            double cost;
            if (border[i].poly == border[j].poly) {
                const auto &a = s.border_mid[i], &b = s.border_mid[j];
                const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
                cost = std::sqrt(dx * dx + dy * dy + dz * dz) *
                       g.areas[m.poly_areas[border[i].poly]].cost;
            } else {
                cost = toCentroid(i) + d + toCentroid(j);
            }
            s.inside.push_back({{i, j}, float(cost)});
        }
    }
}

// The world cell just inside tile (tx, tz) at a border edge's middle.
uint32_t borderColumn(const WorldLayout& layout, uint32_t tx, uint32_t tz,
                      const formats::BorderEdgeRecord& e) {
    const uint32_t x0 = tx * layout.tile_cells, z0 = tz * layout.tile_cells;
    const uint32_t x1 = std::min(layout.size_x, x0 + layout.tile_cells);
    const uint32_t z1 = std::min(layout.size_z, z0 + layout.tile_cells);
    const int64_t mid = (int64_t(e.a0) + e.a1) / 2;
    auto clamp = [](int64_t v, uint32_t lo, uint32_t hi) {
        return uint32_t(std::clamp<int64_t>(v, lo, int64_t(hi) - 1));
    };
    uint32_t x, z;
    if (e.side == 0 || e.side == 2) {
        x = e.side == 0 ? x0 : x1 - 1;
        z = clamp(mid, z0, z1);
    } else {
        z = e.side == 3 ? z0 : z1 - 1;
        x = clamp(mid, x0, x1);
    }
    return z * layout.size_x + x;
}

}  // namespace

Result<StageResult> runNavmeshWorld(const WorldStage::Inputs& inputs,
                                    const WorldStage::Params& params,
                                    const std::filesystem::path& output, Context& context) {
    if (params.shard_count > 0)
        return makeError(ErrorKind::usage,
                         "world: navmesh world tiles are built in one run (a tile's polygons "
                         "read its neighbours' regions); --shard splits tile-graph worlds");
    const auto start = std::chrono::steady_clock::now();
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid& frame = (*reader)->header();
    const WorldLayout layout = worldLayout(frame, params.tile_size);
    const std::filesystem::path folder = output.parent_path();
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    navmesh::NavmeshParams mesh_params = params.navmesh;
    mesh_params.tile_size = int(layout.tile_cells);
    mesh_params.threads = params.threads;
    std::vector<MeshTileSummary> tiles(tile_count);
    // A tile's cache file: its navmesh key (columns, neighbours, parameters), the world frame
    // (positions are in it) and the zstd level.
    auto contentOf = [&](uint64_t key) {
        const uint64_t parts[6] = {key,
                                   layout.fingerprint,
                                   uint64_t(params.compression),
                                   uint64_t(layout.tile_cells),
                                   std::bit_cast<uint32_t>(params.uphill),
                                   std::bit_cast<uint32_t>(params.downhill)};
        return formats::xxhash64(parts, sizeof parts, 0);
    };
    navmesh::TileSink sink;
    sink.cached = [&](uint32_t tx, uint32_t tz, uint64_t key) {
        MeshTileSummary& s = tiles[size_t(tz) * layout.tiles_x + tx];
        s.content = contentOf(key);
        const std::filesystem::path file = folder / worldTileFileName(s.content);
        if (!std::filesystem::exists(file)) return false;
        auto loaded = loadContainer(file, formats::kKindNav, formats::kNavVersion);
        if (!loaded) return false;
        auto graph = decodeGraph(*loaded);
        auto raw = loaded->section(formats::kSecWorldBorderEdges);
        if (!graph || !raw || raw->size() % formats::kBorderEdgeRecordSize != 0) return false;
        std::vector<formats::BorderEdgeRecord> border;
        for (size_t i = 0; i < raw->size(); i += formats::kBorderEdgeRecordSize)
            border.push_back(formats::decodeBorderEdge(raw->data() + i));
        for (const formats::BorderEdgeRecord& e : border)
            if (e.poly >= graph->nodeCount()) return false;
        summarise(*graph, border, s);
        return true;
    };
    sink.take = [&](navmesh::NavmeshTile&& tile, uint64_t key) -> Status {
        MeshTileSummary& s = tiles[size_t(tile.tile_z) * layout.tiles_x + tile.tile_x];
        s.content = contentOf(key);
        s.built = true;
        if (tile.mesh.polyCount() == 0) return {};
        Graph graph = navmeshGraph(std::move(tile.mesh), frame);
        addGradientCosts(graph, params.uphill, params.downhill);  // edges inside the tile
        std::vector<formats::BorderEdgeRecord> border;
        for (const navmesh::BorderEdge& e : tile.border)
            border.push_back({e.poly, e.edge, e.side, e.a0, e.a1, e.y0, e.y1});
        if (Status st = saveMeshTile(
                folder / worldTileFileName(s.content), graph,
                worldTileHeader(layout, tile.tile_x, tile.tile_z, uint32_t(border.size())), border,
                params.compression);
            !st)
            return st;
        summarise(graph, border, s);
        return {};
    };
    voxel::VoxelRowReader& rows = **reader;
    auto failed = navmesh::buildNavmeshTiles(
        frame, rows.spanCount(),
        [&](uint32_t keep_from, uint32_t need_to) { return rows.rows(keep_from, need_to); },
        mesh_params, sink, context);
    if (!failed) return failed.error();
    if (Status s = rows.finish(); !s) return s.error();

    // Border edges joined across tiles: each to the neighbour's edge of the smallest mismatch
    // (navrt's rule), found by (side, a0, a1) in the neighbour's sorted list.
    using Key = std::tuple<uint32_t, int32_t, int32_t, uint32_t>;  // side, a0, a1, edge
    std::vector<std::vector<Key>> lookup(tile_count);
    for (uint32_t i = 0; i < tile_count; ++i) {
        for (uint32_t e = 0; e < tiles[i].border.size(); ++e) {
            const formats::BorderEdgeRecord& r = tiles[i].border[e];
            lookup[i].push_back({r.side, r.a0, r.a1, e});
        }
        std::sort(lookup[i].begin(), lookup[i].end());
    }
    struct Join {
        uint32_t from_tile, from_edge, to_tile, to_edge;
    };
    std::vector<Join> joins;
    for (uint32_t i = 0; i < tile_count; ++i) {
        const uint32_t tx = i % layout.tiles_x, tz = i / layout.tiles_x;
        for (uint32_t e = 0; e < tiles[i].border.size(); ++e) {
            const formats::BorderEdgeRecord& r = tiles[i].border[e];
            const int64_t nx = int64_t(tx) + (r.side == 2) - (r.side == 0);
            const int64_t nz = int64_t(tz) + (r.side == 1) - (r.side == 3);
            if (nx < 0 || nz < 0 || nx >= layout.tiles_x || nz >= layout.tiles_z) continue;
            const uint32_t j = uint32_t(nz) * layout.tiles_x + uint32_t(nx);
            const Key lo{(r.side + 2) & 3, r.a1, r.a0, 0};
            int32_t best = -1;
            uint32_t best_edge = 0;
            for (auto it = std::lower_bound(lookup[j].begin(), lookup[j].end(), lo);
                 it != lookup[j].end() && std::get<0>(*it) == std::get<0>(lo) &&
                 std::get<1>(*it) == r.a1 && std::get<2>(*it) == r.a0;
                 ++it) {
                const int32_t miss =
                    formats::borderEdgeMismatch(r, tiles[j].border[std::get<3>(*it)]);
                if (miss >= 0 && (best < 0 || miss < best)) {
                    best = miss;
                    best_edge = std::get<3>(*it);
                }
            }
            if (best >= 0) joins.push_back({i, e, j, best_edge});
        }
    }
    lookup = decltype(lookup)();
    // World components.
    std::vector<uint32_t> component_base(tile_count + 1, 0);
    ComponentJoin join;
    std::vector<uint64_t> component_sizes;  // per global component: its polygons
    for (uint32_t i = 0; i < tile_count; ++i) {
        join.add(tiles[i].present ? tiles[i].components : 0);
        component_base[i + 1] = join.size();
        if (tiles[i].present)
            component_sizes.insert(component_sizes.end(), tiles[i].component_sizes.begin(),
                                   tiles[i].component_sizes.end());
    }
    for (const Join& j : joins)
        join.join(component_base[j.from_tile] + tiles[j.from_tile].border_component[j.from_edge],
                  component_base[j.to_tile] + tiles[j.to_tile].border_component[j.to_edge]);
    const std::vector<uint32_t> world_component = join.number();
    const std::vector<uint64_t> island_sizes =
        ComponentJoin::sizes(world_component, component_sizes);
    // Portals: every border edge that joins (from either side), in tile and WNBE order.
    std::vector<std::vector<uint32_t>> portal_of(tile_count);
    for (uint32_t i = 0; i < tile_count; ++i) portal_of[i].assign(tiles[i].border.size(), kNoNode);
    for (const Join& j : joins) {
        portal_of[j.from_tile][j.from_edge] = 0;
        portal_of[j.to_tile][j.to_edge] = 0;
    }
    WorldIndex index;
    for (uint32_t i = 0; i < tile_count; ++i)
        for (uint32_t e = 0; e < portal_of[i].size(); ++e) {
            if (portal_of[i][e] == kNoNode) continue;
            portal_of[i][e] = uint32_t(index.portals.size());
            WorldIndex::Portal& p = index.portals.emplace_back();
            p.tile = i;
            p.column =
                borderColumn(layout, i % layout.tiles_x, i / layout.tiles_x, tiles[i].border[e]);
            p.y = int32_t(tiles[i].border[e].poly);
            p.position = tiles[i].border_mid[e];
        }
    for (const Join& j : joins)
        index.portals[portal_of[j.from_tile][j.from_edge]].edges.push_back(
            {portal_of[j.to_tile][j.to_edge], 0.0f});
    for (uint32_t i = 0; i < tile_count; ++i)
        for (const auto& [pair, cost] : tiles[i].inside) {
            const uint32_t a = portal_of[i][pair.first], b = portal_of[i][pair.second];
            if (a != kNoNode && b != kNoNode) index.portals[a].edges.push_back({b, cost});
        }
    // The index.
    formats::WorldHeader& h = index.header;
    h = worldIndexHeader(layout, frame, uint32_t(formats::GraphType::navmesh));
    uint64_t polygons = 0, border_edges = 0, built = 0;
    for (uint32_t i = 0; i < tile_count; ++i) {
        if (!tiles[i].present) continue;
        built += tiles[i].built;
        polygons += tiles[i].polygons;
        border_edges += tiles[i].border.size();
        addIndexTile(index, i, tiles[i].polygons, tiles[i].content, world_component,
                     component_base[i], tiles[i].components);
    }
    if (Status s = saveWorldIndex(output, index); !s) return s.error();

    StageResult result = worldStageResult(h, built, start,
                                          {{"polygons", polygons},
                                           {"border_edges", border_edges},
                                           {"border_edges_joined", joins.size()}});
    if (*failed > 0) result.count("contours_not_triangulated", uint64_t(*failed));
    reportIslands(island_sizes, result);
    result.summary.push_back(fmt::format(
        "navmesh world: {} x {} tiles of {} cells ({} with polygons: {} built, {} reused), {} "
        "polygons, {} border edges ({} joined across tiles), {} portals -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, h.tile_count, built,
        h.tile_count - built, polygons, border_edges, joins.size(), h.portal_count,
        output.string()));
    return result;
}

}  // namespace nav::graph
