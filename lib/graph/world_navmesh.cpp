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
//
// Links (authored, scene objects', generated drops and jumps) are resolved as the navmesh graph
// resolves them (resolveLinks), each lane end on the polygons of the tiles within its reach,
// looked up while the tiles are built. A lane inside one tile is that tile's link edge; a lane
// between tiles is a record (WLNK, WLTI) in the tile it leaves (and, two-way, the tile it
// arrives in), naming the polygon at each end; it is a portal pair of the portal graph.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "formats/bytes.h"
#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"
#include "lib/graph/world.h"

namespace nav::graph {
namespace {

// Where a path leaves or enters a tile: a border edge (its midpoint) or a link's end.
struct MeshExit {
    uint32_t poly = 0;
    std::array<float, 3> point{};
    uint32_t component = 0;  // the polygon's component in the tile
};

// What the stage keeps of each tile once it is built (or found in the cache).
struct MeshTileSummary {
    bool present = false, built = false;
    uint64_t content = 0;
    uint32_t polygons = 0, components = 0;
    std::vector<uint64_t> component_sizes;
    // Its border edges (WNBE order), and its exits: the border edges, then the ends of its links
    // between tiles (lane order); border_count and exit_count records at border_at and exits_at
    // of the stage's spill file (read back a tile or two at a time: together they grow with the
    // world).
    uint32_t border_count = 0, exit_count = 0;
    uint64_t border_at = 0, exits_at = 0;
    // Inside the tile, the polygon-graph cost from exit i to j (point to centroid, centroids
    // along the graph, centroid to point), for every pair that connects: inside_count
    // InsideCost records at inside_at of the stage's spill file (together they were as large as
    // the index they make; read back once, in tile order, as the index is made).
    uint64_t inside_at = 0;
    uint32_t inside_count = 0;
};
struct InsideCost {
    uint32_t from, to;  // exits
    float cost;
};
static_assert(sizeof(InsideCost) == 12);

// A link lane between two polygons of the world: its record (from_node / to_node: polygons of
// from_tile / to_tile).
Status saveMeshTile(const std::filesystem::path& path, const Graph& graph,
                    const formats::WorldTileHeader& header,
                    const std::vector<formats::BorderEdgeRecord>& border,
                    const std::vector<WorldLane>& cross, int compression) {
    formats::ContainerWriter writer = graphWriter(graph, formats::kKindNav, compression);
    std::vector<uint8_t> head(formats::kWorldTileHeaderSize);
    formats::encodeWorldTileHeader(header, head.data());
    writer.add(formats::kSecWorldTileHeader, std::move(head), formats::Codec::raw);
    std::vector<uint8_t> edges(border.size() * formats::kBorderEdgeRecordSize);
    for (size_t i = 0; i < border.size(); ++i)
        formats::encodeBorderEdge(border[i], edges.data() + i * formats::kBorderEdgeRecordSize);
    writer.add(formats::kSecWorldBorderEdges, std::move(edges));
    addWorldLinkSections(writer, cross, graph.link_type_names);
    return saveContainer(path, writer);
}

// The summary of a tile from its graph, border edges and the link ends `link_exits` in it.
Status summarise(const Graph& g, const std::vector<formats::BorderEdgeRecord>& border,
                 const std::vector<std::pair<uint32_t, std::array<float, 3>>>& link_exits,
                 SpillStore& spill, MeshTileSummary& s) {
    const navmesh::NavMesh& m = g.mesh;
    s.present = g.nodeCount() > 0;
    s.polygons = uint32_t(g.nodeCount());
    s.components = g.header.component_count;
    s.component_sizes.assign(s.components, 0);
    for (uint32_t c : g.components)
        if (c < s.components) ++s.component_sizes[c];
    std::vector<MeshExit> exits;
    for (const formats::BorderEdgeRecord& e : border) {
        const uint32_t first = m.poly_offsets[e.poly];
        const uint32_t n = m.poly_offsets[e.poly + 1] - first;
        const float* a = &m.vertices[3 * size_t(m.poly_vertices[first + e.edge])];
        const float* b = &m.vertices[3 * size_t(m.poly_vertices[first + (e.edge + 1) % n])];
        exits.push_back({e.poly,
                         {0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2])},
                         g.components[e.poly]});
    }
    for (const auto& [poly, point] : link_exits) exits.push_back({poly, point, g.components[poly]});
    // Costs between exits inside the tile.
    std::vector<InsideCost> inside;
    auto length = [](const float* a, const std::array<float, 3>& b) {
        const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        return std::sqrt(dx * dx + dy * dy + dz * dz);
    };
    auto toCentroid = [&](uint32_t i) {
        const uint32_t p = exits[i].poly;
        return length(&g.positions[3 * size_t(p)], exits[i].point) * g.areas[m.poly_areas[p]].cost;
    };
    const CsrGraph<float> csr{g.edge_offsets, g.edge_targets, g.edge_costs};
    Dijkstra<double> search;
    // Each search ends once every exit's polygon is settled (their costs are then final), as the
    // tile graph world's portal searches do.
    std::vector<uint8_t> is_exit(g.nodeCount(), 0);
    uint32_t distinct = 0;
    for (const MeshExit& e : exits)
        if (!is_exit[e.poly]) {
            is_exit[e.poly] = 1;
            ++distinct;
        }
    for (uint32_t i = 0; i < exits.size(); ++i) {
        search.reset(g.nodeCount());
        search.addSource(exits[i].poly);
        uint32_t left = distinct;  // exit polygons not settled yet (the source's included)
        search.run(csr, AnyNode{}, NoHook{},
                   [&](uint32_t u, double) { return is_exit[u] && --left == 0; });
        for (uint32_t j = 0; j < exits.size(); ++j) {
            if (j == i) continue;
            const double d = search.dist(exits[j].poly);
            if (!std::isfinite(d)) continue;
            double cost;
            if (exits[i].poly == exits[j].poly) {
                cost = length(exits[i].point.data(), exits[j].point) *
                       g.areas[m.poly_areas[exits[i].poly]].cost;
            } else {
                cost = toCentroid(i) + d + toCentroid(j);
            }
            inside.push_back({i, j, float(cost)});
        }
    }
    s.inside_count = uint32_t(inside.size());
    s.border_count = uint32_t(border.size());
    s.exit_count = uint32_t(exits.size());
    if (Status st = spill.appendArray<formats::BorderEdgeRecord>(border, s.border_at); !st)
        return st;
    if (Status st = spill.appendArray<MeshExit>(exits, s.exits_at); !st) return st;
    return spill.appendArray<InsideCost>(inside, s.inside_at);
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

// The world cell of tile `tile` holding a link's end (clamped into the tile).
uint32_t exitColumn(const WorldLayout& layout, const voxel::VoxelGrid& frame, uint32_t tile,
                    const std::array<float, 3>& p) {
    const uint32_t x0 = (tile % layout.tiles_x) * layout.tile_cells;
    const uint32_t z0 = (tile / layout.tiles_x) * layout.tile_cells;
    const uint32_t x1 = std::min(layout.size_x, x0 + layout.tile_cells);
    const uint32_t z1 = std::min(layout.size_z, z0 + layout.tile_cells);
    auto cell = [&](float v, float origin, uint32_t lo, uint32_t hi) {
        const double c = std::floor((double(v) - origin) / frame.cell_size);
        return uint32_t(std::clamp(c, double(lo), double(hi) - 1));
    };
    return cell(p[2], frame.origin[2], z0, z1) * layout.size_x +
           cell(p[0], frame.origin[0], x0, x1);
}

// The lane ends of a navmesh world's links, looked up on the tiles as they are built: each end
// on every tile within its reach (formats::meshLocate with the tolerance EndFinder gives it),
// the nearest answer kept (ties to the lower tile, then polygon: the stitched mesh's order).
// resolveLinks then asks for them by point (LinkEndFinder).
class MeshWorldEnds : public WorldLinkEnds {
public:
    MeshWorldEnds(const std::vector<LinkSpec>& links, const WorldLayout& layout,
                  const voxel::VoxelGrid& frame, float agent_radius)
        : layout_(layout),
          tile_queries_(size_t(layout.tiles_x) * layout.tiles_z),
          tile_near_(tile_queries_.size()),
          hits_(tile_queries_.size()),
          near_hits_(tile_queries_.size()) {
        cell_ = frame.cell_size;
        origin_x_ = frame.origin[0];
        origin_z_ = frame.origin[2];
        forEachEnd(
            links, formats::GraphType::navmesh, agent_radius, cell_,
            [&](const std::array<float, 3>& p, float snap, bool near) { add(p, snap, near); });
    }

    // Looks the ends within reach of tile `tile` up on its polygons (any thread, one call per
    // tile).
    void lookUp(uint32_t tile, const Graph& g) {
        if (tile_queries_[tile].empty() && tile_near_[tile].empty()) return;
        const formats::MeshArrays arrays = meshArraysOf(g);
        for (uint32_t q : tile_queries_[tile]) {
            const Query& query = queries_[q];
            const formats::MeshLocation at =
                formats::meshLocate(arrays, query.point.data(), tolerance(query.snap), kVertical);
            if (at.poly == formats::MeshLocation{}.poly) continue;
            hits_[tile].push_back(
                {q, at.poly, at.distance, {at.position[0], at.position[1], at.position[2]}});
        }
        for (uint32_t q : tile_near_[tile]) {
            const std::array<float, 3>& p = near_points_[q];
            NearHit best{q, std::numeric_limits<double>::infinity(), {}};
            for (uint32_t poly = 0; poly < g.mesh.polyCount(); ++poly) {
                float closest[3];
                formats::meshPolyDistance(arrays, poly, p.data(), closest);
                float y = closest[1];
                formats::meshPolyHeight(arrays, poly, closest[0], closest[2], y);
                const double dx = double(closest[0]) - p[0], dy = double(y) - p[1],
                             dz = double(closest[2]) - p[2];
                const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
                if (d < best.distance) best = {q, d, {closest[0], y, closest[2]}};
            }
            if (std::isfinite(best.distance)) near_hits_[tile].push_back(best);
        }
    }

    // Merges the tiles' answers in tile order; node ids are poly_base[tile] + polygon.
    void finish(const std::vector<uint32_t>& poly_base) {
        ends_.assign(queries_.size(), LinkEnd{});
        std::vector<float> distance(queries_.size(), std::numeric_limits<float>::infinity());
        nearest_.assign(near_points_.size(), LinkNearest{});
        for (size_t t = 0; t < hits_.size(); ++t) {
            for (const Hit& h : hits_[t])
                if (h.distance < distance[h.query]) {
                    distance[h.query] = h.distance;
                    ends_[h.query].node = poly_base[t] + h.poly;
                    std::copy(h.position.begin(), h.position.end(), ends_[h.query].point);
                }
            for (const NearHit& h : near_hits_[t])
                if (h.distance < nearest_[h.query].distance) {
                    nearest_[h.query].distance = h.distance;
                    std::copy(h.point.begin(), h.point.end(), nearest_[h.query].point);
                }
            hits_[t] = std::vector<Hit>();
            near_hits_[t] = std::vector<NearHit>();
        }
    }

    // The nearest surface is looked for on the 3 x 3 tiles around an end: a tile's width.
    double known(float) const override { return double(layout_.tile_cells) * cell_; }

private:
    static constexpr float kVertical = 1.0f;  // resolveLinks' vertical tolerance (attachLinks)
    struct Hit {
        uint32_t query, poly;
        float distance;
        std::array<float, 3> position;
    };
    struct NearHit {
        uint32_t query;
        double distance;
        std::array<float, 3> point;
    };
    // EndFinder::findPoly's horizontal tolerance.
    float tolerance(float snap) const { return std::max(snap, 2.0f * cell_); }

    // The tiles whose columns lie within `reach` metres of p horizontally (and one cell more).
    void tilesAround(const std::array<float, 3>& p, double reach, uint32_t& tx0, uint32_t& tz0,
                     uint32_t& tx1, uint32_t& tz1) const {
        const double tile_m = double(layout_.tile_cells) * cell_;
        auto range = [&](double v, double origin, uint32_t tiles, uint32_t& lo, uint32_t& hi) {
            const double a = std::floor((v - reach - cell_ - origin) / tile_m);
            const double b = std::floor((v + reach + cell_ - origin) / tile_m);
            lo = uint32_t(std::clamp(a, 0.0, double(tiles - 1)));
            hi = uint32_t(std::clamp(b, 0.0, double(tiles - 1)));
            return b >= 0 && a < tiles;
        };
        if (!std::isfinite(double(p[0])) || !std::isfinite(double(p[2])) ||
            !range(p[0], origin_x_, layout_.tiles_x, tx0, tx1) ||
            !range(p[2], origin_z_, layout_.tiles_z, tz0, tz1)) {
            tx0 = tz0 = 1;
            tx1 = tz1 = 0;  // none
        }
    }

    void add(const std::array<float, 3>& p, float snap, bool near) {
        if (const auto [q, fresh] = addQuery(p, snap); fresh) {
            uint32_t tx0, tz0, tx1, tz1;
            tilesAround(p, tolerance(snap), tx0, tz0, tx1, tz1);
            for (uint32_t tz = tz0; tz <= tz1; ++tz)
                for (uint32_t tx = tx0; tx <= tx1; ++tx)
                    tile_queries_[size_t(tz) * layout_.tiles_x + tx].push_back(q);
        }
        if (!near) return;
        const auto [k, fresh] = addNear(p);
        if (!fresh) return;
        uint32_t tx0, tz0, tx1, tz1;
        tilesAround(p, double(layout_.tile_cells) * cell_, tx0, tz0, tx1, tz1);
        for (uint32_t tz = tz0; tz <= tz1; ++tz)
            for (uint32_t tx = tx0; tx <= tx1; ++tx)
                tile_near_[size_t(tz) * layout_.tiles_x + tx].push_back(k);
    }

    const WorldLayout& layout_;
    float cell_ = 0, origin_x_ = 0, origin_z_ = 0;
    std::vector<std::vector<uint32_t>> tile_queries_, tile_near_;
    std::vector<std::vector<Hit>> hits_;
    std::vector<std::vector<NearHit>> near_hits_;
};

}  // namespace

Result<StageResult> runNavmeshWorld(const WorldStage::Inputs& inputs,
                                    const WorldStage::Params& params,
                                    const std::filesystem::path& output, Context& context,
                                    const std::vector<LinkSpec>* generated_links,
                                    const std::vector<uint32_t>& pruned) {
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
    auto spill = SpillStore::beside(output, "inside");
    if (!spill) return spill.error();
    // The links, their lane ends looked up on each tile as it is built.
    std::vector<LinkSpec> generated_out;
    auto gathered = worldLinkSpecs(inputs.voxels, frame, params, generated_links, pruned,
                                   generated_out, context);
    if (!gathered) return gathered.error();
    const std::vector<LinkSpec> specs = std::move(gathered).value();
    const Graph frame_graph = navmeshGraph(navmesh::NavMesh{}, frame);  // header, areas
    MeshWorldEnds ends(specs, layout, frame, frame_graph.header.agent_radius);
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
    sink.spill = spill->get();  // rows of tiles' windows beside the exits' costs
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
        ends.lookUp(tz * layout.tiles_x + tx, *graph);
        if (Status st = summarise(*graph, border, {}, **spill, s); !st)
            throw std::runtime_error(st.error().message);
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
                {}, params.compression);
            !st)
            return st;
        ends.lookUp(tile.tile_z * layout.tiles_x + tile.tile_x, graph);
        return summarise(graph, border, {}, **spill, s);
    };
    voxel::VoxelRowReader& rows = **reader;
    auto failed = navmesh::buildNavmeshTiles(
        frame, rows.spanCount(),
        [&](uint32_t keep_from, uint32_t need_to) { return rows.rows(keep_from, need_to); },
        mesh_params, sink, context);
    if (!failed) return failed.error();
    if (Status s = rows.finish(); !s) return s.error();

    // The links: resolved as resolveLinks resolves them on the navmesh graph (polygons numbered
    // tile by tile), then each tile with a lane end rewritten with its lanes: a lane inside it
    // as its link edge, a lane to or from another tile as a record of WLNK / WLTI.
    WorldLanes resolved(tile_count);  // the links' lanes
    if (!specs.empty()) {
        std::vector<uint32_t> poly_base(tile_count + 1, 0);
        for (uint32_t i = 0; i < tile_count; ++i)
            poly_base[i + 1] = poly_base[i] + (tiles[i].present ? tiles[i].polygons : 0);
        ends.finish(poly_base);
        auto records = resolveLinks(frame_graph, ends, specs, resolved.type_names, resolved.stats,
                                    1.0f, params.threads, &context);
        if (!records) return records.error();
        auto tileOf = [&](uint32_t node) {
            return uint32_t(std::upper_bound(poly_base.begin(), poly_base.end(), node) -
                            poly_base.begin() - 1);
        };
        for (formats::LinkRecord r : *records) {
            WorldLane lane;
            lane.from_tile = tileOf(r.from_node);
            lane.to_tile = tileOf(r.to_node);
            r.from_node -= poly_base[lane.from_tile];
            r.to_node -= poly_base[lane.to_tile];
            lane.record = r;
            resolved.add(lane);
        }
    }
    // Per lane between tiles: its exits (indices into the tiles' exits) at its two ends.
    std::vector<std::array<uint32_t, 2>> lane_exits(resolved.lanes.size(), {kNoNode, kNoNode});
    {
        std::vector<uint32_t> with_lanes;
        for (uint32_t i = 0; i < tile_count; ++i)
            if (!resolved.by_tile[i].empty()) with_lanes.push_back(i);
        uint64_t progress = 0;
        const Status linked = runParallel(
            "world links", with_lanes.size(), resolveThreads(params.threads), context, progress,
            with_lanes.size(), [&](size_t k) {
                const uint32_t t = with_lanes[k];
                MeshTileSummary& s = tiles[t];
                const std::vector<uint32_t>& mine = resolved.by_tile[t];
                const uint64_t parts[2] = {
                    s.content, worldLanesHash(resolved.lanes, mine, resolved.type_names)};
                const uint64_t content = formats::xxhash64(parts, sizeof parts, 0);
                std::vector<formats::LinkRecord> inside;
                std::vector<WorldLane> cross;
                std::vector<std::pair<uint32_t, std::array<float, 3>>> exits;
                for (uint32_t i : mine) {
                    const WorldLane& lane = resolved.lanes[i];
                    if (lane.from_tile == lane.to_tile) {
                        inside.push_back(lane.record);
                        continue;
                    }
                    const bool from_here = lane.from_tile == t;
                    const formats::LinkRecord& r = lane.record;
                    lane_exits[i][from_here ? 0 : 1] = uint32_t(s.border_count + exits.size());
                    exits.push_back(
                        from_here
                            ? std::pair{r.from_node, std::array{r.from[0], r.from[1], r.from[2]}}
                            : std::pair{r.to_node, std::array{r.to[0], r.to[1], r.to[2]}});
                    if (from_here || (r.flags & formats::kLinkFlagBidirectional))
                        cross.push_back(lane);
                }
                std::vector<formats::BorderEdgeRecord> border;
                if (Status st = (*spill)->readArray(s.border_at, s.border_count, border); !st)
                    throw std::runtime_error(st.error().message);
                const std::filesystem::path file = folder / worldTileFileName(content);
                auto loadGraph = [&](const std::filesystem::path& path) -> std::optional<Graph> {
                    if (!std::filesystem::exists(path)) return std::nullopt;
                    auto loaded = loadContainer(path, formats::kKindNav, formats::kNavVersion);
                    if (!loaded) return std::nullopt;
                    auto graph = decodeGraph(*loaded);
                    if (!graph) return std::nullopt;
                    return std::move(graph).value();
                };
                std::optional<Graph> graph = loadGraph(file);
                if (!graph) {
                    graph = loadGraph(folder / worldTileFileName(s.content));
                    if (!graph)
                        throw std::runtime_error(fmt::format(
                            "world tile ({}, {}): its navmesh tile is gone from the cache",
                            t % layout.tiles_x, t / layout.tiles_x));
                    graph->link_type_names = resolved.type_names;
                    if (Status st = addLinks(*graph, std::move(inside)); !st)
                        throw std::runtime_error(st.error().message);
                    if (Status st = saveMeshTile(
                            file, *graph,
                            worldTileHeader(layout, t % layout.tiles_x, t / layout.tiles_x,
                                            uint32_t(border.size())),
                            border, cross, params.compression);
                        !st)
                        throw std::runtime_error(st.error().message);
                    s.built = true;
                }
                s.content = content;
                if (Status st = summarise(*graph, border, exits, **spill, s); !st)
                    throw std::runtime_error(st.error().message);
            });
        if (!linked) return linked.error();
    }

    // World components: each tile's local components numbered in tile order, joined across
    // the joins and the lanes between tiles below.
    std::vector<uint32_t> component_base(tile_count + 1, 0);
    ComponentJoin join;
    for (uint32_t i = 0; i < tile_count; ++i) {
        join.add(tiles[i].present ? std::span<const uint64_t>(tiles[i].component_sizes)
                                  : std::span<const uint64_t>());
        component_base[i + 1] = join.size();
        tiles[i].component_sizes = std::vector<uint64_t>();
    }
    // A tile's border edges and exits, read back from the spill file.
    auto borderOf = [&](uint32_t i, std::vector<formats::BorderEdgeRecord>& out) {
        return (*spill)->readArray(tiles[i].border_at, tiles[i].border_count, out);
    };
    auto exitsOf = [&](uint32_t i, std::vector<MeshExit>& out) {
        return (*spill)->readArray(tiles[i].exits_at, tiles[i].exit_count, out);
    };
    // Border edges joined across tiles: each to the neighbour's edge of the smallest mismatch
    // (navrt's rule), found by (side, a0, a1) in the neighbour's sorted list (a tile and its
    // four neighbours read at a time).
    using Key = std::tuple<uint32_t, int32_t, int32_t, uint32_t>;  // side, a0, a1, edge
    struct Join {
        uint32_t from_tile, from_edge, to_tile, to_edge;
    };
    std::vector<Join> joins;
    {
        std::vector<formats::BorderEdgeRecord> border, other;
        std::vector<MeshExit> exits, other_exits;
        std::vector<Key> lookup;
        for (uint32_t i = 0; i < tile_count; ++i) {
            if (tiles[i].border_count == 0) continue;
            if (Status s = borderOf(i, border); !s) return s.error();
            if (Status s = exitsOf(i, exits); !s) return s.error();
            const uint32_t tx = i % layout.tiles_x, tz = i / layout.tiles_x;
            const int64_t dx[4] = {-1, 0, 1, 0}, dz[4] = {0, 1, 0, -1};  // by side
            for (uint32_t side = 0; side < 4; ++side) {
                const int64_t nx = int64_t(tx) + dx[side], nz = int64_t(tz) + dz[side];
                if (nx < 0 || nz < 0 || nx >= layout.tiles_x || nz >= layout.tiles_z) continue;
                const uint32_t j = uint32_t(nz) * layout.tiles_x + uint32_t(nx);
                bool read = false;
                for (uint32_t e = 0; e < border.size(); ++e) {
                    const formats::BorderEdgeRecord& r = border[e];
                    if (r.side != side) continue;
                    if (!read) {
                        if (Status s = borderOf(j, other); !s) return s.error();
                        if (Status s = exitsOf(j, other_exits); !s) return s.error();
                        lookup.clear();
                        for (uint32_t k = 0; k < other.size(); ++k)
                            lookup.push_back({other[k].side, other[k].a0, other[k].a1, k});
                        std::sort(lookup.begin(), lookup.end());
                        read = true;
                    }
                    const Key lo{(r.side + 2) & 3, r.a1, r.a0, 0};
                    int32_t best = -1;
                    uint32_t best_edge = 0;
                    for (auto it = std::lower_bound(lookup.begin(), lookup.end(), lo);
                         it != lookup.end() && std::get<0>(*it) == std::get<0>(lo) &&
                         std::get<1>(*it) == r.a1 && std::get<2>(*it) == r.a0;
                         ++it) {
                        const int32_t miss =
                            formats::borderEdgeMismatch(r, other[std::get<3>(*it)]);
                        if (miss >= 0 && (best < 0 || miss < best)) {
                            best = miss;
                            best_edge = std::get<3>(*it);
                        }
                    }
                    if (best < 0) continue;
                    joins.push_back({i, e, j, best_edge});
                    join.join(component_base[i] + exits[e].component,
                              component_base[j] + other_exits[best_edge].component);
                }
            }
        }
        // (In edge order within a tile, as the joins are read back below.)
        std::stable_sort(joins.begin(), joins.end(), [](const Join& a, const Join& b) {
            return std::pair{a.from_tile, a.from_edge} < std::pair{b.from_tile, b.from_edge};
        });
        for (uint32_t i = 0; i < resolved.lanes.size(); ++i) {
            const WorldLane& l = resolved.lanes[i];
            if (l.from_tile == l.to_tile) continue;
            if (Status s = exitsOf(l.from_tile, exits); !s) return s.error();
            if (Status s = exitsOf(l.to_tile, other_exits); !s) return s.error();
            join.join(component_base[l.from_tile] + exits[lane_exits[i][0]].component,
                      component_base[l.to_tile] + other_exits[lane_exits[i][1]].component);
        }
    }
    std::vector<uint64_t> island_sizes;
    const std::vector<uint32_t> world_component = join.number(island_sizes);
    // Portals: every border edge that joins (from either side), and both ends of every lane
    // between tiles, in tile and exit order.
    std::vector<std::vector<uint32_t>> portal_of(tile_count);
    for (uint32_t i = 0; i < tile_count; ++i) portal_of[i].assign(tiles[i].exit_count, kNoNode);
    for (const Join& j : joins) {
        portal_of[j.from_tile][j.from_edge] = 0;
        portal_of[j.to_tile][j.to_edge] = 0;
    }
    for (uint32_t i = 0; i < resolved.lanes.size(); ++i)
        if (resolved.lanes[i].from_tile != resolved.lanes[i].to_tile) {
            portal_of[resolved.lanes[i].from_tile][lane_exits[i][0]] = 0;
            portal_of[resolved.lanes[i].to_tile][lane_exits[i][1]] = 0;
        }
    uint32_t portal_count = 0;
    for (std::vector<uint32_t>& exits : portal_of)
        for (uint32_t& p : exits)
            if (p != kNoNode) p = portal_count++;
    // The portal graph encoded a tile at a time, in portal order: a tile's portals with their
    // edges (the joins and lanes leaving them, their costs inside the tile), then its summary
    // goes (at city32 the summaries and the graph held whole were as large as the index).
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> lanes_from(tile_count);  // (lane, end)
    for (uint32_t i = 0; i < resolved.lanes.size(); ++i) {
        const WorldLane& l = resolved.lanes[i];
        if (l.from_tile == l.to_tile) continue;
        lanes_from[l.from_tile].push_back({i, 0});
        if (l.record.flags & formats::kLinkFlagBidirectional)
            lanes_from[l.to_tile].push_back({i, 1});
    }
    WorldIndex index;
    {
        uint64_t edge_total = joins.size() + 2 * resolved.lanes.size();  // at most
        for (const MeshTileSummary& t : tiles) edge_total += t.inside_count;
        index.encoded.reserve(portal_count, edge_total);
    }
    uint64_t border_edges = 0;
    std::vector<InsideCost> inside;
    std::vector<std::vector<std::pair<uint32_t, float>>> edges;  // per exit of the tile
    std::vector<formats::BorderEdgeRecord> border;
    std::vector<MeshExit> exits;
    size_t next_join = 0;
    for (uint32_t i = 0; i < tile_count; ++i) {
        MeshTileSummary& t = tiles[i];
        if (Status s = borderOf(i, border); !s) return s.error();
        if (Status s = exitsOf(i, exits); !s) return s.error();
        edges.assign(exits.size(), {});
        for (; next_join < joins.size() && joins[next_join].from_tile == i; ++next_join) {
            const Join& j = joins[next_join];
            edges[j.from_edge].push_back({portal_of[j.to_tile][j.to_edge], 0.0f});
        }
        for (const auto& [lane, end] : lanes_from[i]) {
            const WorldLane& l = resolved.lanes[lane];
            if (end == 0)
                edges[lane_exits[lane][0]].push_back(
                    {portal_of[l.to_tile][lane_exits[lane][1]], l.record.cost});
            else
                edges[lane_exits[lane][1]].push_back(
                    {portal_of[l.from_tile][lane_exits[lane][0]], l.record.reverse_cost});
        }
        if (Status s = (*spill)->readArray(t.inside_at, t.inside_count, inside); !s)
            return s.error();
        for (const InsideCost& c : inside) {
            const uint32_t b = portal_of[i][c.to];
            if (portal_of[i][c.from] != kNoNode && b != kNoNode)
                edges[c.from].push_back({b, c.cost});
        }
        for (uint32_t e = 0; e < exits.size(); ++e) {
            if (portal_of[i][e] == kNoNode) continue;
            WorldIndex::Portal p;
            p.tile = i;
            const MeshExit& exit = exits[e];
            p.column = e < border.size()
                           ? borderColumn(layout, i % layout.tiles_x, i / layout.tiles_x, border[e])
                           : exitColumn(layout, frame, i, exit.point);
            p.y = int32_t(exit.poly);
            p.position = exit.point;
            index.encoded.add(p, edges[e]);
        }
        if (t.present) border_edges += border.size();
    }
    inside = std::vector<InsideCost>();
    edges = decltype(edges)();
    lanes_from = decltype(lanes_from)();
    portal_of = decltype(portal_of)();
    // The index.
    formats::WorldHeader& h = index.header;
    h = worldIndexHeader(layout, frame, uint32_t(formats::GraphType::navmesh));
    uint64_t polygons = 0, built = 0;
    for (uint32_t i = 0; i < tile_count; ++i) {
        if (!tiles[i].present) continue;
        built += tiles[i].built;
        polygons += tiles[i].polygons;
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
    {
        LinkTally tally;
        for (const WorldLane& lane : resolved.lanes) tally.add(lane.record);
        reportWorldLinks(specs, tally, resolved.lanes.size(), resolved.crossing, resolved.stats,
                         "link records, WLNK", result);
    }
    result.summary.push_back(fmt::format(
        "navmesh world: {} x {} tiles of {} cells ({} with polygons: {} built, {} reused), {} "
        "polygons, {} border edges ({} joined across tiles), {} portals -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, h.tile_count, built,
        h.tile_count - built, polygons, border_edges, joins.size(), h.portal_count,
        output.string()));
    return result;
}

}  // namespace nav::graph
