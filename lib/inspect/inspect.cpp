#include "lib/inspect/inspect.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <map>

#include "formats/bytes.h"
#include "formats/jump_points.h"
#include "formats/layouts.h"
#include "lib/cluster/cluster.h"
#include "lib/common/file_io.h"
#include "lib/geometry/geometry.h"
#include "lib/graph/graph.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::inspect {
namespace {

using Json = nlohmann::ordered_json;

std::string fourccName(uint32_t code) {
    char name[5];
    formats::fourccToString(code, name);
    return name;
}

const char* kindDescription(uint32_t kind) {
    if (kind == formats::kKindGeometry) return "geometry";
    if (kind == formats::kKindVoxels) return "voxel grid";
    if (kind == formats::kKindGraph) return "graph";
    if (kind == formats::kKindNav) return "runtime navigation asset";
    if (kind == formats::kKindClusters) return "clusters and cluster heuristic table";
    if (kind == formats::kKindHierarchy) return "hierarchical graph and HPA* entrance graph";
    if (kind == formats::kKindNextHop) return "all-pairs next-hop table";
    if (kind == formats::kKindHierNextHop) return "hierarchical next-hop table";
    if (kind == formats::kKindWorld) return "tiled world index";
    return "unknown";
}

Json boundsJson(const float min[3], const float max[3]) {
    return Json{{"min", {min[0], min[1], min[2]}}, {"max", {max[0], max[1], max[2]}}};
}

// Where the walkable surface lies, for a designer looking for coordinates to query: its world
// bounds, its height range and its floors: the heights (to the centimetre) that hold at least 2%
// of the walkable points (cells, nodes or navmesh vertices), each with its XZ extent; slopes,
// ramps and stairs are the rest.
Json surfaceJson(const std::vector<std::array<float, 3>>& points) {
    if (points.empty()) return Json::object();
    float lo[3] = {points[0][0], points[0][1], points[0][2]}, hi[3] = {lo[0], lo[1], lo[2]};
    struct Level {
        size_t count = 0;
        float lo[2] = {0, 0}, hi[2] = {0, 0};
    };
    std::map<long, Level> levels;
    for (const auto& p : points) {
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], p[size_t(k)]);
            hi[k] = std::max(hi[k], p[size_t(k)]);
        }
        Level& l = levels[std::lround(double(p[1]) * 100.0)];
        if (l.count++ == 0) {
            l.lo[0] = l.hi[0] = p[0];
            l.lo[1] = l.hi[1] = p[2];
        }
        l.lo[0] = std::min(l.lo[0], p[0]), l.hi[0] = std::max(l.hi[0], p[0]);
        l.lo[1] = std::min(l.lo[1], p[2]), l.hi[1] = std::max(l.hi[1], p[2]);
    }
    Json floors = Json::array();
    size_t on_floors = 0;
    for (const auto& [cm, l] : levels) {
        if (l.count * 50 < points.size()) continue;
        on_floors += l.count;
        floors.push_back({{"y", double(cm) / 100.0},
                          {"points", l.count},
                          {"x", {l.lo[0], l.hi[0]}},
                          {"z", {l.lo[1], l.hi[1]}}});
    }
    return {{"bounds", boundsJson(lo, hi)},
            {"floors", floors},
            {"points_on_floors", on_floors},
            {"points_elsewhere", points.size() - on_floors}};
}

// Link specs carried by a .geo or .vox (scene objects), counted by type.
void linkSpecStats(const std::vector<geometry::LinkSpec>& links, Json& stats) {
    if (links.empty()) return;
    Json by_type = Json::object();
    for (const auto& [word, n] : geometry::linksByType(links)) by_type[word] = n;
    size_t bidirectional = 0;
    for (const geometry::LinkSpec& l : links) bidirectional += l.bidirectional ? 1 : 0;
    stats["links"] = {
        {"count", links.size()}, {"by_type", by_type}, {"bidirectional", bidirectional}};
}

Json geometryStats(const geometry::Geometry& g) {
    Json stats;
    stats["vertices"] = g.vertexCount();
    stats["triangles"] = g.triangleCount();
    stats["objects"] = g.objects.size();
    stats["source_meshes"] = g.source_mesh_count;
    stats["dropped_degenerate"] = g.dropped_degenerate;
    stats["dropped_ignored"] = g.dropped_ignored;
    const geometry::Bounds b = g.bounds();
    stats["bounds"] = boundsJson(b.min.data(), b.max.data());
    std::vector<size_t> per_area(g.areas.size(), 0);
    for (uint8_t a : g.triangle_areas) ++per_area[a];
    Json areas = Json::array();
    for (size_t i = 0; i < g.areas.size(); ++i)
        areas.push_back({{"id", i},
                         {"name", g.areas[i].name},
                         {"cost", g.areas[i].cost},
                         {"walkable", g.areas[i].walkable},
                         {"triangles", per_area[i]}});
    stats["areas"] = areas;
    linkSpecStats(g.links, stats);
    return stats;
}

// A .geo in the strips layout: geometryStats with the triangles counted in one pass over the
// strips (each once, from its first strip; every block decoded and checked), and the strips.
Result<Json> stripsGeometryStats(const std::filesystem::path& path) {
    geometry::StoredTriangles stored;
    auto g = geometry::loadGeometry(path, stored);
    if (!g) return g.error();
    const geometry::StoredStrips& strips = *stored.strips();
    std::vector<uint64_t> per_area(g->areas.size(), 0);
    uint64_t triangles = 0;
    if (Status s = strips.forEachTriangle([&](const geometry::StripTriangle& t) {
            ++per_area[t.area];
            ++triangles;
        });
        !s)
        return s.error();
    if (triangles != stored.count())
        return inputError("{}: the strips hold {} triangles, 'GHDR' says {}", path.string(),
                          triangles, stored.count());
    Json stats = geometryStats(*g);
    stats["layout"] = "strips";
    stats["triangles"] = triangles;
    const geometry::Bounds b = stored.bounds();
    stats["bounds"] = boundsJson(b.min.data(), b.max.data());
    for (size_t i = 0; i < per_area.size(); ++i) stats["areas"][i]["triangles"] = per_area[i];
    stats["strips"] = {{"count", strips.stripCount()},
                       {"size_m", strips.stripSize()},
                       {"triangle_copies", strips.copies()}};
    return stats;
}

const char* sourceName(formats::VoxelSource source) {
    switch (source) {
        case formats::VoxelSource::mesh: return "mesh";
        case formats::VoxelSource::grid_map: return "grid_map";
        case formats::VoxelSource::voxel_map: return "voxel_map";
    }
    return "unknown";
}

Json voxelStats(const voxel::VoxelGrid& grid) {
    const voxel::VoxelStats s = voxel::computeStats(grid);
    Json stats;
    stats["source"] = sourceName(grid.source);
    stats["size"] = {{"x", grid.size_x}, {"z", grid.size_z}, {"y", grid.size_y}};
    stats["cells"] = s.columns;
    if (grid.source == formats::VoxelSource::grid_map) {
        // The MovingAI view of the same numbers: width = columns along X, height = rows along Z.
        stats["grid"] = {{"width", grid.size_x},
                         {"height", grid.size_z},
                         {"passable", s.walkable_spans},
                         {"blocked", s.columns - s.walkable_columns}};
    }
    stats["cell_size"] = grid.cell_size;
    stats["cell_height"] = grid.cell_height;
    const float max[3] = {grid.origin[0] + float(grid.size_x) * grid.cell_size,
                          grid.origin[1] + float(grid.size_y) * grid.cell_height,
                          grid.origin[2] + float(grid.size_z) * grid.cell_size};
    stats["bounds"] = boundsJson(grid.origin, max);
    stats["agent"] = {{"height", grid.agent.height},
                      {"radius", grid.agent.radius},
                      {"climb", grid.agent.climb},
                      {"max_slope_deg", grid.agent.max_slope_deg}};
    std::vector<std::array<float, 3>> tops;
    for (uint32_t z = 0; z < grid.size_z; ++z)
        for (uint32_t x = 0; x < grid.size_x; ++x)
            for (const voxel::Span& span : grid.column(x, z))
                if (span.walkable)
                    tops.push_back({grid.origin[0] + (float(x) + 0.5f) * grid.cell_size,
                                    grid.topY(span),
                                    grid.origin[2] + (float(z) + 0.5f) * grid.cell_size});
    stats["walkable_surface"] = surfaceJson(tops);
    stats["spans"] = s.spans;
    stats["walkable_spans"] = s.walkable_spans;
    stats["walkable_columns"] = s.walkable_columns;
    stats["multi_layer_columns"] = s.multi_layer_columns;
    stats["max_walkable_layers"] = s.max_walkable_layers;
    Json areas = Json::array();
    for (size_t i = 0; i < grid.areas.size(); ++i)
        areas.push_back({{"id", i},
                         {"name", grid.areas[i].name},
                         {"cost", grid.areas[i].cost},
                         {"walkable_spans", s.walkable_per_area[i]}});
    stats["areas"] = areas;
    linkSpecStats(grid.links, stats);
    return stats;
}

const char* graphTypeName(formats::GraphType type) {
    switch (type) {
        case formats::GraphType::tile: return "tile";
        case formats::GraphType::volume: return "volume";
        case formats::GraphType::pov: return "pov";
        case formats::GraphType::navmesh: return "navmesh";
        case formats::GraphType::dirichlet: return "dirichlet";
    }
    return "unknown";
}

Json graphStats(const graph::Graph& g) {
    const formats::GraphHeader& h = g.header;
    Json stats;
    stats["graph_type"] = graphTypeName(h.type);
    if (!g.source_name.empty()) stats["source"] = g.source_name;
    const bool implicit = (h.flags & formats::kGraphFlagImplicitVolume) != 0;
    size_t nodes = g.nodeCount();
    if (implicit) {
        nodes = 0;
        for (uint64_t word : g.free_voxels) nodes += size_t(__builtin_popcountll(word));
        stats["storage"] = "implicit 26-connected voxel grid (1 bit per voxel)";
        stats["voxels"] = g.nodeCount();
    } else {
        stats["storage"] = "CSR adjacency";
    }
    stats["nodes"] = nodes;
    stats["edges"] = implicit ? Json("implicit") : Json(g.edgeCount());
    stats["components"] = h.component_count;
    stats["largest_component"] = h.largest_component;
    stats["heuristic"] = h.heuristic == formats::HeuristicKind::octile ? "octile" : "euclidean";
    stats["min_cost_multiplier"] = h.min_cost_multiplier;
    stats["grid"] = {{"x", h.size_x},
                     {"z", h.size_z},
                     {"y", h.size_y},
                     {"cell_size", h.cell_size},
                     {"cell_height", h.cell_height}};
    stats["agent"] = {{"height", h.agent_height},
                      {"radius", h.agent_radius},
                      {"climb", h.agent_climb},
                      {"max_slope_deg", h.max_slope_deg}};
    if (!implicit) {
        // Node points (navmesh: polygon vertices, which bound the surface; others: nodes).
        std::vector<std::array<float, 3>> points;
        if (h.type == formats::GraphType::navmesh)
            for (size_t v = 0; v < g.mesh.vertexCount(); ++v)
                points.push_back({g.mesh.vertices[3 * v], g.mesh.vertices[3 * v + 1],
                                  g.mesh.vertices[3 * v + 2]});
        else
            for (size_t n = 0; n < g.nodeCount(); ++n)
                points.push_back(
                    {g.positions[3 * n], g.positions[3 * n + 1], g.positions[3 * n + 2]});
        stats["walkable_surface"] = surfaceJson(points);
    }
    if (!g.links.empty()) {
        // Counted by id: a wide link's lanes (records sharing its id) are one link.
        Json by_type = Json::object();
        size_t count = 0, bidirectional = 0, generated = 0, shortcuts = 0;
        for (size_t i = 0; i < g.links.size(); ++i) {
            const formats::LinkRecord& l = g.links[i];
            const double length = std::sqrt(double(l.to[0] - l.from[0]) * (l.to[0] - l.from[0]) +
                                            double(l.to[1] - l.from[1]) * (l.to[1] - l.from[1]) +
                                            double(l.to[2] - l.from[2]) * (l.to[2] - l.from[2]));
            shortcuts += double(l.cost) < length * double(h.min_cost_multiplier);
            if (i > 0 && g.links[i - 1].id == l.id) continue;
            const char* builtin = formats::linkTypeName(l.type);
            const uint32_t user = uint32_t(l.type) - formats::kLinkTypeUserFirst;
            const std::string name = builtin != nullptr                ? builtin
                                     : user < g.link_type_names.size() ? g.link_type_names[user]
                                                                       : "?";
            by_type[name] = by_type.value(name, 0) + 1;
            ++count;
            bidirectional += (l.flags & formats::kLinkFlagBidirectional) != 0;
            generated += (l.flags & formats::kLinkFlagGenerated) != 0;
        }
        stats["links"] = {{"count", count},         {"lanes", g.links.size()},
                          {"by_type", by_type},     {"bidirectional", bidirectional},
                          {"generated", generated}, {"shortcut_lanes", shortcuts}};
        if (!g.link_type_names.empty()) stats["links"]["user_types"] = g.link_type_names;
    }
    if (!g.rooms.empty()) {
        Json rooms = Json::array();
        for (const geometry::SceneMarker& m : g.rooms) rooms.push_back(m.label);
        stats["scene_rooms"] = rooms;
    }
    if (h.type == formats::GraphType::navmesh) {
        const navmesh::NavMesh& m = g.mesh;
        size_t max_corners = 0;
        for (size_t p = 0; p < m.polyCount(); ++p)
            max_corners = std::max<size_t>(max_corners, m.poly_offsets[p + 1] - m.poly_offsets[p]);
        stats["navmesh"] = {
            {"polygons", m.polyCount()},
            {"vertices", m.vertexCount()},
            {"regions", m.region_count},
            {"tiles", {{"x", m.tiles_x}, {"z", m.tiles_z}}},
            {"max_corners", max_corners},
            {"detail_triangles", m.detail_triangles.size() / 9},
            {"index_cells", {{"x", g.mesh_index.cells_x}, {"z", g.mesh_index.cells_z}}}};
    }
    if (h.type == formats::GraphType::pov) {
        const formats::PovStats& st = g.pov_stats;
        size_t multi_layer_columns = 0;
        for (size_t c = 0; c + 1 < g.layer_columns.size(); ++c)
            multi_layer_columns += g.layer_columns[c + 1] - g.layer_columns[c] >= 2;
        stats["pov"] = {
            {"corners", st.corner_count},
            {"any_direction_corners", st.any_direction_corners},
            {"visibility_edges_before_pruning", st.visibility_edges},
            {"taut_edges_after_pruning", st.taut_edges},
            {"kept_percent", st.visibility_edges == 0
                                 ? 100.0
                                 : 100.0 * double(st.taut_edges) / double(st.visibility_edges)},
            {"layer_cells", st.layer_cell_count},
            {"multi_layer_columns", multi_layer_columns},
            {"layer_components", st.layer_component_count}};
    }
    if (!implicit && !g.edge_costs.empty()) {
        float lo = g.edge_costs[0], hi = g.edge_costs[0];
        for (float c : g.edge_costs) {
            lo = std::min(lo, c);
            hi = std::max(hi, c);
        }
        stats["edge_cost_range"] = {lo, hi};
    }
    return stats;
}

Json clusterStats(const cluster::Clusters& c, const LoadedContainer& loaded) {
    const formats::ClusterHeader& h = c.header;
    const int index = loaded.container.find(formats::kSecClusterTable);
    const char* method = h.method == formats::ClusterMethod::grid      ? "grid"
                         : h.method == formats::ClusterMethod::regions ? "regions"
                                                                       : "manual";
    Json stats = {
        {"method", method},
        {"clusters", h.cluster_count},
        {"nodes", h.node_count},
        {"cluster_size", h.cluster_size},
        {"requested_clusters", h.requested_clusters},
        {"nodes_per_cluster",
         {{"min", h.min_cluster_nodes},
          {"mean", h.cluster_count ? double(h.node_count) / h.cluster_count : 0.0},
          {"max", h.max_cluster_nodes}}},
        {"scale", h.scale},
        {"max_cost", c.max_cost},
        {"unreachable_pairs", h.unreachable_pairs},
        {"table_bytes_raw", c.table.size() * 2},
        {"table_bytes_stored", index >= 0 ? loaded.container.sections[index].stored_size : 0},
        {"graph_fingerprint", fmt::format("{:016x}", h.graph_fingerprint)}};
    // ALT landmarks (CLLM), when stored.
    const int landmarks = loaded.container.find(formats::kSecClusterLandmarks);
    stats["landmarks"] = c.landmark_nodes.size();
    if (landmarks >= 0) {
        stats["landmarks_directed"] = !c.landmark_to.empty();
        stats["landmark_bytes_raw"] = loaded.container.sections[landmarks].raw_size;
        stats["landmark_bytes_stored"] = loaded.container.sections[landmarks].stored_size;
    }
    if (!c.rooms.empty()) {
        Json rooms = Json::array();
        for (uint32_t r = 0; r < c.rooms.size(); ++r) {
            uint32_t clusters = 0;
            for (uint32_t room : c.cluster_rooms) clusters += room == r;
            Json room = {
                {"name", c.rooms[r].name}, {"where", c.rooms[r].where}, {"clusters", clusters}};
            if (c.rooms[r].representative != graph::kNoNode)
                room["representative"] = c.rooms[r].representative;
            rooms.push_back(room);
        }
        Json costs = Json::array();
        for (const cluster::RoomGroupCost& cost : c.group_costs)
            costs.push_back({{"from", c.rooms[cost.from].name},
                             {"to", c.rooms[cost.to].name},
                             {"cost", cost.cost}});
        stats["rooms"] = rooms;
        stats["group_costs"] = costs;
    }
    return stats;
}

// HRHD and HGCT of a .hier or a .nav packed with --hierarchy (the arrays are checked against
// their clusters by pack and navrt).
void hierarchyStats(const LoadedContainer& loaded, Json& out, Json& errors) {
    formats::HierarchyHeader h;
    if (Status s = loaded.header(formats::kSecHierHeader, formats::decodeHierarchyHeader, h); !s) {
        errors.push_back(s.error().message);
        return;
    }
    Json groups = Json::array();
    if (auto counts = loaded.section(formats::kSecHierGroupCounts)) {
        for (size_t i = 0; i + 4 <= counts->size(); i += 4) {
            uint32_t value;
            std::memcpy(&value, counts->data() + i, 4);
            groups.push_back(value);
        }
    }
    out = {{"levels", h.level_count},
           {"groups_per_level", groups},
           {"nodes", h.node_count},
           {"clusters", h.cluster_count},
           {"abstract_edges", h.abstract_edge_count},
           {"default_cost", formats::hierCostName(h.default_cost)},
           {"fanout", h.group_fanout},
           {"entrance_mode", h.entrance_mode == formats::EntranceMode::all ? "all" : "sparse"},
           {"entrances", h.entrance_count},
           {"entrance_edges", h.entrance_edge_count},
           {"graph_fingerprint", fmt::format("{:016x}", h.graph_fingerprint)},
           {"clusters_fingerprint", fmt::format("{:016x}", h.clusters_fingerprint)}};
    // Entrance distance tables: entries (4 bytes each in memory), or absent.
    const int table = loaded.container.find(formats::kSecHierTableDistances);
    out["entrance_table_entries"] =
        table >= 0 ? Json(loaded.container.sections[table].raw_size / 4) : Json(nullptr);
}

// NHHD or HNHD of a next-hop table (.nh, .nhh, or a .nav packed with --nexthop).
void nextHopStats(const LoadedContainer& loaded, Json& out, Json& errors) {
    if (loaded.has(formats::kSecNextHopHeader)) {
        formats::NextHopHeader h;
        if (Status s = loaded.header(formats::kSecNextHopHeader, formats::decodeNextHopHeader, h);
            !s) {
            errors.push_back(s.error().message);
            return;
        }
        const int index = loaded.container.find(formats::kSecNextHopBlocks);
        const uint64_t stored = index >= 0 ? loaded.container.sections[index].stored_size : 0;
        const double n = double(h.node_count);
        out = {{"table", "flat"},
               {"nodes", h.node_count},
               {"rows_per_block", h.block_rows},
               {"blocks", h.block_count},
               {"stored_blocks", h.stored_blocks},
               {"partial", (h.flags & formats::kNextHopFlagPartial) != 0},
               {"first_moves",
                (h.flags & formats::kNextHopFlagFewestRuns) ? "fewest runs" : "lowest index"},
               {"shard", fmt::format("{}/{}", h.shard_index, h.shard_count)},
               {"symbol_bytes", h.symbol_bytes},
               {"runs", h.run_count},
               {"runs_per_row", n > 0 ? double(h.run_count) / n : 0.0},
               {"block_bytes", stored},
               {"bytes_per_node", n > 0 ? double(stored) / n : 0.0},
               // navrt's decoded form (NextHopForm::decoded): what a table loaded for the
               // fastest lookups takes in memory, against block_bytes on disk.
               {"decoded_bytes", 4 * (uint64_t(h.node_count) + 1) + 4 * h.run_count},
               {"raw_table_bytes", n * n * h.symbol_bytes},
               {"graph_fingerprint", fmt::format("{:016x}", h.graph_fingerprint)}};
        return;
    }
    formats::HierNextHopHeader h;
    if (Status s = loaded.header(formats::kSecHierHopHeader, formats::decodeHierNextHopHeader, h);
        !s) {
        errors.push_back(s.error().message);
        return;
    }
    out = {{"table", "hierarchical"},
           {"nodes", h.node_count},
           {"clusters", h.cluster_count},
           {"entrances", h.entrance_count},
           {"intra_cluster_entries", h.intra_symbols},
           {"distance_entries", h.distance_entries},
           {"entrance_table_entries", uint64_t(h.entrance_count) * h.entrance_count},
           {"graph_fingerprint", fmt::format("{:016x}", h.graph_fingerprint)}};
}

}  // namespace

Result<Inspection> inspectArtifact(const std::filesystem::path& path) {
    auto loaded = loadContainer(path);
    if (!loaded) return loaded.error();
    const formats::Container& c = loaded->container;
    Inspection inspection;
    Json& r = inspection.report;
    r["file"] = path.string();
    r["kind"] = fourccName(c.kind);
    r["kind_description"] = kindDescription(c.kind);
    r["container_version"] = c.version;
    r["kind_version"] = c.kind_version;
    r["file_size"] = c.file_size;
    Json sections = Json::array();
    Json errors = Json::array();
    for (uint32_t i = 0; i < c.section_count; ++i) {
        const formats::SectionEntry& e = c.sections[i];
        const formats::Error check = formats::verifySection(loaded->bytes.data(), e);
        if (check) {
            inspection.all_checksums_ok = false;
            errors.push_back(containerError(path, check).message);
        }
        sections.push_back({{"id", fourccName(e.id)},
                            {"codec", formats::codecName(e.codec)},
                            {"offset", e.offset},
                            {"stored_size", e.stored_size},
                            {"raw_size", e.raw_size},
                            {"checksum", fmt::format("{:016x}", e.checksum)},
                            {"checksum_ok", !check}});
    }
    r["sections"] = sections;

    if (inspection.all_checksums_ok) {
        if (c.kind == formats::kKindGeometry) {
            if (c.kind_version == formats::kGeometryStripsVersion ||
                c.kind_version == formats::kGeometryStripExtentsVersion) {
                if (auto stats = stripsGeometryStats(loaded->path))
                    r["stats"] = std::move(stats).value();
                else
                    errors.push_back(stats.error().message);
            } else if (c.kind_version > formats::kGeometryVersion) {
                errors.push_back("geometry layout version is newer than this navbake");
            } else if (auto g = geometry::decodeGeometry(*loaded)) {
                r["stats"] = geometryStats(*g);
            } else {
                errors.push_back(g.error().message);
            }
        } else if (c.kind == formats::kKindGraph || c.kind == formats::kKindNav) {
            const uint32_t max_version =
                c.kind == formats::kKindNav ? formats::kNavVersion : formats::kGraphVersion;
            if (c.kind_version > max_version) {
                errors.push_back("graph layout version is newer than this navbake");
            } else if (auto g = graph::decodeGraph(*loaded)) {
                r["stats"] = graphStats(*g);
                if (loaded->has(formats::kSecClusterHeader)) {
                    auto clusters = cluster::decodeClusters(*loaded);
                    if (!clusters)
                        errors.push_back(clusters.error().message);
                    else
                        r["stats"]["clusters"] = clusterStats(*clusters, *loaded);
                }
                if (loaded->has(formats::kSecHierHeader))
                    hierarchyStats(*loaded, r["stats"]["hierarchy"], errors);
                if (loaded->has(formats::kSecNextHopHeader) ||
                    loaded->has(formats::kSecHierHopHeader))
                    nextHopStats(*loaded, r["stats"]["next_hop"], errors);
                if (loaded->has(formats::kSecJumpHeader)) {
                    formats::JumpHeader h;
                    auto raw = loaded->section(formats::kSecJumpHeader);
                    if (!raw) {
                        errors.push_back(raw.error().message);
                    } else if (formats::Error e =
                                   formats::decodeJumpHeader(raw->data(), raw->size(), h)) {
                        errors.push_back(e.message);
                    } else {
                        r["stats"]["jump_points"] = {
                            {"regular_nodes", h.regular},
                            {"special_nodes", h.special},
                            {"straight_cost", h.straight_cost},
                            {"diagonal_cost", h.diagonal_cost},
                            {"goal_bounds", loaded->has(formats::kSecJumpBounds)}};
                    }
                }
                if (loaded->has(formats::kSecWorldTileHeader)) {
                    formats::WorldTileHeader h;
                    if (Status s = loaded->header(formats::kSecWorldTileHeader,
                                                  formats::decodeWorldTileHeader, h);
                        !s)
                        errors.push_back(s.error().message);
                    else
                        r["stats"]["world_tile"] = {
                            {"tile", fmt::format("{} {} of {} x {}", h.tile_x, h.tile_z, h.tiles_x,
                                                 h.tiles_z)},
                            {"first_column", fmt::format("{} {}", h.x0, h.z0)},
                            {loaded->has(formats::kSecWorldBorderEdges) ? "border_edges" : "seams",
                             h.seam_count},
                            {"world_fingerprint", fmt::format("{:016x}", h.world_fingerprint)}};
                    // Seams that are links between tiles (WSLK), and their records (WLNK).
                    if (auto seam_links = loaded->section(formats::kSecWorldSeamLinks)) {
                        uint64_t link_seams = 0;
                        for (size_t i = 0; i + 4 <= seam_links->size(); i += 4)
                            link_seams +=
                                formats::loadLe32(seam_links->data() + i) != formats::kNoLink;
                        r["stats"]["world_tile"]["link_seams"] = link_seams;
                        if (auto records = loaded->section(formats::kSecWorldLinks))
                            r["stats"]["world_tile"]["links_between_tiles"] =
                                records->size() / formats::kLinkRecordSize;
                    }
                    // Navmesh and volume tiles: links between tiles are WLNK records with their
                    // tiles (WLTI), those leaving the tile and the two-way ones arriving in it.
                    if (loaded->has(formats::kSecWorldLinkTiles))
                        if (auto records = loaded->section(formats::kSecWorldLinks))
                            r["stats"]["world_tile"]["links_between_tiles"] =
                                records->size() / formats::kLinkRecordSize;
                }
            } else {
                errors.push_back(g.error().message);
            }
        } else if (c.kind == formats::kKindClusters) {
            if (c.kind_version > formats::kClustersVersion) {
                errors.push_back("cluster layout version is newer than this navbake");
            } else if (auto clusters = cluster::decodeClusters(*loaded)) {
                r["stats"] = clusterStats(*clusters, *loaded);
            } else {
                errors.push_back(clusters.error().message);
            }
        } else if (c.kind == formats::kKindNextHop || c.kind == formats::kKindHierNextHop) {
            const uint32_t newest = c.kind == formats::kKindNextHop ? formats::kNextHopVersion
                                                                    : formats::kHierNextHopVersion;
            if (c.kind_version > newest)
                errors.push_back("next-hop layout version is newer than this navbake");
            else
                nextHopStats(*loaded, r["stats"], errors);
        } else if (c.kind == formats::kKindWorld) {
            formats::WorldHeader h;
            if (c.kind_version > formats::kWorldVersion) {
                errors.push_back("world layout version is newer than this navbake");
            } else if (Status s =
                           loaded->header(formats::kSecWorldHeader, formats::decodeWorldHeader, h);
                       !s) {
                errors.push_back(s.error().message);
            } else {
                r["stats"] = {
                    {"graph",
                     h.graph_type == 0 ? "tile" : graphTypeName(formats::GraphType(h.graph_type))},
                    {"tiles", fmt::format("{} x {}", h.tiles_x, h.tiles_z)},
                    {"tile_cells", h.tile_cells},
                    {"tiles_with_nodes", h.tile_count},
                    {"world_cells", fmt::format("{} x {}", h.world_size_x, h.world_size_z)},
                    {"cell_size", h.cell_size},
                    {"portals", h.portal_count},
                    {"portal_edges", h.portal_edge_count},
                    {"world_fingerprint", fmt::format("{:016x}", h.world_fingerprint)}};
            }
        } else if (c.kind == formats::kKindHierarchy) {
            if (c.kind_version > formats::kHierarchyVersion)
                errors.push_back("hierarchy layout version is newer than this navbake");
            else
                hierarchyStats(*loaded, r["stats"], errors);
        } else if (c.kind == formats::kKindVoxels) {
            if (c.kind_version > formats::kVoxelsVersion) {
                errors.push_back("voxel layout version is newer than this navbake");
            } else if (auto v = voxel::decodeVoxels(*loaded)) {
                r["stats"] = voxelStats(*v);
            } else {
                errors.push_back(v.error().message);
            }
        }
    }
    r["errors"] = errors;
    if (!errors.empty()) inspection.all_checksums_ok = false;
    return inspection;
}

namespace {

std::string scalarText(const Json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_float()) return fmt::format("{:.6g}", value.get<double>());
    if (value.is_array()) {
        std::string text = "[";
        for (size_t i = 0; i < value.size(); ++i) text += (i ? ", " : "") + scalarText(value[i]);
        return text + "]";
    }
    return value.dump();
}

void renderValue(std::string& out, const Json& value, int indent, const std::string& key) {
    const std::string pad(size_t(indent) * 2, ' ');
    if (value.is_object()) {
        out += fmt::format("{}{}:\n", pad, key);
        for (auto it = value.begin(); it != value.end(); ++it)
            renderValue(out, it.value(), indent + 1, it.key());
    } else if (value.is_array() && !value.empty() && value.front().is_object()) {
        out += fmt::format("{}{}:\n", pad, key);
        for (const Json& item : value) {
            std::string line;
            for (auto it = item.begin(); it != item.end(); ++it)
                line += fmt::format("{}{}={}", line.empty() ? "" : "  ", it.key(),
                                    scalarText(it.value()));
            out += fmt::format("{}  - {}\n", pad, line);
        }
    } else {
        out += fmt::format("{}{}: {}\n", pad, key, scalarText(value));
    }
}

}  // namespace

std::string renderText(const Json& report) {
    std::string out;
    out += fmt::format("{}: {} ('{}'), container v{}, layout v{}, {} bytes\n",
                       report.value("file", ""), report.value("kind_description", ""),
                       report.value("kind", ""), report.value("container_version", 0),
                       report.value("kind_version", 0), report.value("file_size", 0));
    out += "sections:\n";
    for (const Json& s : report["sections"]) {
        const uint64_t raw = s["raw_size"].get<uint64_t>();
        const uint64_t stored = s["stored_size"].get<uint64_t>();
        out += fmt::format("  {}  {:<12}  {:>10} -> {:>10} bytes  ({:5.1f}%)  checksum {}\n",
                           s["id"].get<std::string>(), s["codec"].get<std::string>(), stored, raw,
                           raw == 0 ? 100.0 : 100.0 * double(stored) / double(raw),
                           s["checksum_ok"].get<bool>() ? "OK" : "MISMATCH");
    }
    if (report.contains("stats")) {
        for (auto it = report["stats"].begin(); it != report["stats"].end(); ++it)
            renderValue(out, it.value(), 0, it.key());
    }
    for (const Json& e : report["errors"]) out += fmt::format("error: {}\n", e.get<std::string>());
    return out;
}

}  // namespace nav::inspect
