// The cluster and hierarchy stages: one definition each, shared by `navbake cluster`,
// `navbake hierarchy` and `navbake build`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "formats/graph_sections.h"
#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/common/file_io.h"

namespace nav::cluster {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

// What manual clusters made: per room its nodes, clusters and representative; the nodes outside
// every room; the group costs.
void reportRooms(const graph::Graph& g, const Clusters& c, StageResult& result) {
    const size_t rooms = c.rooms.size();
    std::vector<uint64_t> nodes(rooms, 0), pieces(rooms, 0);
    for (uint32_t cluster = 0; cluster < c.count(); ++cluster) {
        const uint32_t r = c.cluster_rooms[cluster];
        if (r == kNoRoom) continue;
        ++pieces[r];
        nodes[r] += c.cluster_nodes[cluster];
    }
    uint64_t empty = 0, split = 0;
    std::string each;
    for (size_t r = 0; r < rooms; ++r) {
        empty += nodes[r] == 0;
        split += pieces[r] > 1;
        std::string representative;
        const uint32_t v = c.rooms[r].representative;
        if (v != graph::kNoNode)
            representative = fmt::format(", representative node {} at ({:.2f}, {:.2f}, {:.2f})", v,
                                         g.positions[3 * size_t(v)], g.positions[3 * size_t(v) + 1],
                                         g.positions[3 * size_t(v) + 2]);
        each += fmt::format("{}'{}' {} nodes in {} cluster{}{}", each.empty() ? "" : "; ",
                            c.rooms[r].name, nodes[r], pieces[r], pieces[r] == 1 ? "" : "s",
                            representative);
    }
    uint32_t outside_clusters = 0;
    for (uint32_t r : c.cluster_rooms) outside_clusters += r == kNoRoom;
    result.count("rooms", rooms);
    result.count("rooms_without_nodes", empty);
    result.count("rooms_split", split);
    result.count("nodes_outside_rooms", c.nodes_outside_rooms);
    result.summary.push_back(fmt::format("rooms ({} from the scene): {}", g.rooms.size(), each));
    result.summary.push_back(
        fmt::format("{} nodes outside every room: {} grid clusters ({})", c.nodes_outside_rooms,
                    outside_clusters,
                    g.header.type == graph::GraphType::navmesh
                        ? std::string("the navmesh's polygon regions")
                        : fmt::format("blocks of {} x {} cells", c.header.cluster_size,
                                      c.header.cluster_size)));
    if (!c.group_costs.empty()) {
        std::string costs;
        for (const RoomGroupCost& cost : c.group_costs)
            costs += fmt::format("{}'{}' -> '{}' {}", costs.empty() ? "" : ", ",
                                 c.rooms[cost.from].name, c.rooms[cost.to].name, cost.cost);
        result.summary.push_back(fmt::format("group costs for the hierarchy: {}", costs));
    }
}

}  // namespace

ParamIssues checkClusterParams(const ClusterParams& params) {
    ParamCheck check;
    check.range("cluster_size", params.cluster_size, 1u, kMaxClusterSize, "cells");
    check.range("clusters", params.clusters, 0u, formats::kMaxClusters);
    check.range("landmarks", params.landmarks, 0u, formats::kMaxLandmarks);
    check.threads("threads", params.threads);
    const bool manual = params.method == ClusterParams::manual;
    if (manual)
        check.require(params.clusters == 0, "clusters", fmt::format("{}", params.clusters),
                      "0 with method manual: the rooms decide");
    check.require(manual || params.rooms.empty(), "rooms",
                  fmt::format("{} rooms", params.rooms.size()), "given with method manual only");
    check.require(manual || params.group_costs.empty(), "group_costs",
                  fmt::format("{} costs", params.group_costs.size()),
                  "given with method manual only");
    // The value checks of parseRooms, for callers that fill the rooms themselves.
    for (size_t i = 0; i < params.rooms.size(); ++i) {
        const Room& room = params.rooms[i];
        const std::string field = fmt::format("rooms[{}]", i);
        check.require(!room.name.empty(), field + ".name", "\"\"", "a name");
        for (size_t k = 0; k < i; ++k)
            check.require(params.rooms[k].name != room.name, field + ".name", room.name,
                          fmt::format("unique (rooms[{}] has it too)", k));
        bool box = true;
        for (size_t a = 0; a < 3; ++a)
            box = box && std::isfinite(room.box.min[a]) && std::isfinite(room.box.max[a]) &&
                  room.box.min[a] <= room.box.max[a];
        check.require(
            box, field,
            fmt::format("min ({}, {}, {}) max ({}, {}, {})", room.box.min[0], room.box.min[1],
                        room.box.min[2], room.box.max[0], room.box.max[1], room.box.max[2]),
            "finite, min <= max on every axis");
        bool planes = true;
        for (const geometry::Plane& q : room.planes)
            for (float v : q) planes = planes && std::isfinite(v);
        check.require(planes, field + ".points", "a non-finite plane", "finite numbers");
        const auto& p = room.representative;
        check.require(!room.has_representative ||
                          (std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2])),
                      field + ".representative", fmt::format("({}, {}, {})", p[0], p[1], p[2]),
                      "a finite point");
    }
    for (size_t i = 0; i < params.group_costs.size(); ++i) {
        const GroupCost& cost = params.group_costs[i];
        const std::string field = fmt::format("group_costs[{}]", i);
        check.require(!cost.from.empty(), field + ".from", "\"\"", "a room's name");
        check.require(!cost.to.empty(), field + ".to", "\"\"", "a room's name");
        check.require(cost.from != cost.to, field + ".to", cost.to, "another room than \"from\"");
        check.positive(field + ".cost", cost.cost);
    }
    return check.issues;
}

ParamIssues checkHierarchyParams(const HierarchyParams& params) {
    ParamCheck check;
    check.range("levels", params.levels, 0u, formats::kMaxHierLevels);
    check.range("fanout", params.fanout, 2u, kMaxFanout);
    check.range("entrance_spacing", params.spacing, 0u, kMaxSpacing);
    check.threads("threads", params.threads);
    return check.issues;
}

void ClusterStage::describe(const Params& params, StageKey& key) {
    key.add("method", choiceName<ClusterParams::Method>(kClusterMethods, params.method))
        .add("cluster_size", params.cluster_size)
        .add("clusters", params.clusters)
        .add("landmarks", params.landmarks);
    // Rooms and group costs (their names and where they were given are stored in the .clu).
    for (const Room& room : params.rooms) {
        key.add("room", room.name).add("where", room.where);
        for (size_t a = 0; a < 3; ++a)
            key.add("room_min", room.box.min[a]).add("room_max", room.box.max[a]);
        key.add("planes", uint64_t(room.planes.size()));
        for (const geometry::Plane& q : room.planes)
            for (float x : q) key.add("plane", x);
        if (room.has_representative)
            for (float x : room.representative) key.add("representative", x);
    }
    for (const GroupCost& cost : params.group_costs)
        key.add("group_cost_from", cost.from)
            .add("to", cost.to)
            .add("cost", cost.cost)
            .add("where", cost.where);
}

Result<MemoryEstimate> ClusterStage::estimateMemory(const Inputs& inputs, const Params& params) {
    auto h = graph::loadGraphHeader(inputs.graph);
    if (!h) return h.error();
    // Measured 170-360 bytes per node (the graph, its reverse, the per-thread searches) on the
    // shared maps and the generated city; the table holds 2 bytes per ordered cluster pair.
    const uint64_t n = h->node_count, e = h->edge_count;
    const uint64_t side = std::max<uint64_t>(1, params.cluster_size);
    uint64_t clusters = params.clusters > 0 ? params.clusters : n / (side * side) + 1;
    clusters = std::min<uint64_t>(clusters, formats::kMaxClusters);
    const uint64_t bytes = kStageBaseBytes + n * 400 + e * 8 + clusters * clusters * 4;
    return MemoryEstimate{bytes, fmt::format("{} nodes, {} edges, ~{} clusters", n, e, clusters),
                          "a larger cluster size or fewer clusters, or world tiles"};
}

Result<StageResult> ClusterStage::run(const Inputs& inputs, const Params& params,
                                      const std::filesystem::path& output, Context& context) {
    auto graph = graph::loadGraph(inputs.graph);
    if (!graph) return graph.error();
    const auto start = std::chrono::steady_clock::now();
    auto clusters = buildClusters(*graph, params, context);
    if (!clusters) return clusters.error();
    if (Status s = saveClusters(output, *clusters); !s) return s.error();
    StageResult result;
    result.milliseconds = millisecondsSince(start);
    result.count("clusters", clusters->count());
    uint64_t stored = 0;
    if (auto saved = loadContainer(output)) {
        const int index = saved->container.find(formats::kSecClusterTable);
        if (index >= 0) stored = saved->container.sections[index].stored_size;
    }
    const formats::ClusterHeader& h = clusters->header;
    result.summary.push_back(fmt::format(
        "{} clusters ({}), nodes per cluster min {} mean {:.1f} max {}; table {} x {}: {} bytes "
        "raw, "
        "{} compressed, scale {:.6g} per unit, max cost {:.3f}, {} unreachable pairs; {:.1f} ms -> "
        "{}",
        h.cluster_count, choiceName<ClusterParams::Method>(kClusterMethods, params.method),
        h.min_cluster_nodes, double(h.node_count) / double(h.cluster_count), h.max_cluster_nodes,
        h.cluster_count, h.cluster_count, clusters->table.size() * 2, stored, h.scale,
        clusters->max_cost, h.unreachable_pairs, result.milliseconds, output.string()));
    if (params.method == ClusterParams::manual)
        reportRooms(*graph, *clusters, result);
    else if (!graph->rooms.empty())
        result.summary.push_back(fmt::format(
            "the graph holds {} scene rooms (cluster markers): only method manual uses them",
            graph->rooms.size()));
    for (const std::string& w : clusters->warnings) result.warnings.push_back(w);
    return result;
}

void HierarchyStage::describe(const Params& params, StageKey& key) {
    key.add("levels", params.levels)
        .add("fanout", params.fanout)
        .add("cost", choiceName<formats::HierCost>(kHierCosts, params.cost))
        .add("entrances", choiceName<formats::EntranceMode>(kEntranceModes, params.entrances))
        .add("entrance_spacing", params.spacing)
        .add("entrance_tables", params.tables);
}

Result<MemoryEstimate> HierarchyStage::estimateMemory(const Inputs& inputs, const Params& params) {
    auto h = graph::loadGraphHeader(inputs.graph);
    if (!h) return h.error();
    auto clusters = loadHeader(inputs.clusters, formats::kKindClusters, formats::kClustersVersion,
                               formats::kSecClusterHeader, formats::decodeClusterHeader);
    if (!clusters) return clusters.error();
    const formats::ClusterHeader& c = *clusters;
    // Measured 250-300 bytes per node on the shared maps and the generated city, and up to
    // ~90 KiB per cluster (the entrance searches of links_course's directed graph).
    const uint64_t n = h->node_count, e = h->edge_count, k = c.cluster_count;
    // Entrance tables: 4 bytes per node and entrance of its cluster, written once more as
    // section bytes; ~32 border nodes per cluster with all entrances (den520d), ~4 sparse.
    const uint64_t tables =
        params.tables ? n * 8 * (params.entrances == formats::EntranceMode::all ? 48 : 8) : 0;
    return MemoryEstimate{kStageBaseBytes + n * 340 + e * 8 + k * (96 << 10) + tables,
                          fmt::format("{} nodes, {} edges, {} clusters", n, e, k),
                          "larger clusters, or world tiles"};
}

Result<StageResult> HierarchyStage::run(const Inputs& inputs, const Params& params,
                                        const std::filesystem::path& output, Context& context) {
    auto graph = graph::loadGraph(inputs.graph);
    if (!graph) return graph.error();
    auto clusters = loadClusters(inputs.clusters);
    if (!clusters) return clusters.error();
    if (Status s = checkMatches(*clusters, inputs.clusters, *graph, inputs.graph); !s)
        return s.error();
    const auto start = std::chrono::steady_clock::now();
    auto hierarchy = buildHierarchy(*graph, *clusters, params, context);
    if (!hierarchy) return hierarchy.error();
    if (Status s = saveHierarchy(output, *hierarchy); !s) return s.error();
    StageResult result;
    result.milliseconds = millisecondsSince(start);
    result.count("levels", hierarchy->levelCount());
    result.count("entrances", hierarchy->entrances.size());
    const formats::HierarchyHeader& h = hierarchy->header;
    std::string groups;
    for (uint32_t count : hierarchy->group_counts)
        groups += (groups.empty() ? "" : " > ") + std::to_string(count);
    std::error_code ec;
    result.summary.push_back(fmt::format(
        "{} levels (groups {}), {} abstract edges, {} entrances ({}), {} entrance edges, {} "
        "entrance table entries; {} bytes, {:.1f} ms -> {}",
        h.level_count, groups, h.abstract_edge_count, h.entrance_count,
        choiceName<formats::EntranceMode>(kEntranceModes, h.entrance_mode), h.entrance_edge_count,
        hierarchy->table.size(), std::filesystem::file_size(output, ec), result.milliseconds,
        output.string()));
    result.count("entrance_table_entries", hierarchy->table.size());
    if (!clusters->rooms.empty()) {
        result.count("room_representatives", hierarchy->room_representatives);
        result.count("room_cost_edges", hierarchy->room_cost_edges);
        result.summary.push_back(fmt::format(
            "manual clusters: {} representatives from rooms, {} level-1 abstract edges with a "
            "designer's cost ({} group costs)",
            hierarchy->room_representatives, hierarchy->room_cost_edges,
            clusters->group_costs.size()));
    }
    for (const std::string& w : hierarchy->warnings) result.warnings.push_back(w);
    return result;
}

}  // namespace nav::cluster
