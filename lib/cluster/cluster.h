// Clusters and the cluster heuristic table (Millington, "AI for Games", 4.3.8): the nodes of an
// explicit graph are partitioned into connected clusters, and for every ordered pair of clusters
// (A, B) the table holds the exact minimum path cost from any node of A to any node of B,
// quantized down. max(table[cluster(n)][cluster(goal)], geometric heuristic) never overestimates,
// so A* with it stays optimal; an unreachable entry lets a query fail without expanding a node.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/layouts.h"
#include "lib/common/context.h"
#include "lib/common/file_io.h"
#include "lib/common/json_reader.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/geometry.h"
#include "lib/graph/graph.h"

namespace nav::cluster {

// A room a level designer drew (Millington & Funge 4.3.8: "often, clustering is manual"): the
// nodes whose position lies inside it form its cluster(s). From a scene cluster marker
// (geometry::MarkerKind::cluster, carried .geo -> .vox -> .graph) or a config / rooms file entry.
struct Room {
    std::string name;      // unique among the level's rooms; scene: the object's name
    std::string where;     // for messages: "level.json: $...rooms[1]", "a.obj: object 'X'"
    geometry::Bounds box;  // [Units: m] min <= max on every axis
    std::vector<geometry::Plane> planes;  // a convex hull inside the box (empty = the box)
    bool has_representative = false;      // the hierarchy's representative: the room's node
    std::array<float, 3> representative{0, 0, 0};  // [Units: m] nearest this point
    bool operator==(const Room&) const = default;
    bool contains(double x, double y, double z) const {
        return box.contains(x, y, z) && geometry::insidePlanes(planes, x, y, z);
    }
};

// A designer's cost between two rooms: replaces the computed connection costs (all three) of
// the hierarchy's level-1 abstract edges from a cluster of `from` to an adjacent cluster of `to`
// (one direction; give both for a two-way cost).
struct GroupCost {
    std::string from, to;  // room names (scene rooms included)
    float cost = 1;        // > 0, finite
    std::string where;     // for messages: "level.json: $...group_costs[0]"
    bool operator==(const GroupCost&) const = default;
};

struct ClusterParams {
    enum Method { grid, regions, manual } method = grid;
    // [Units: cells] grid: block edge; regions: ~cluster_size^2 nodes each; manual: the block
    // edge of the grid clusters of the nodes outside every room; 1..4096
    uint32_t cluster_size = 16;
    uint32_t clusters = 0;  // target count (0..kMaxClusters), overrides cluster_size when > 0;
                            // grid and regions only
    // ALT landmarks (Goldberg & Harrelson 2005) stored beside the table (CLLM): the cluster
    // heuristic becomes max(table, landmark bound, octile). 0 = none; at most kMaxLandmarks.
    uint32_t landmarks = 8;
    int threads = 0;  // 0 = all hardware threads; the output does not depend on it
    // manual only: rooms after the graph's scene rooms (a node joins the first room holding it),
    // and group costs for the hierarchy.
    std::vector<Room> rooms;
    std::vector<GroupCost> group_costs;
};
inline constexpr Choice<ClusterParams::Method> kClusterMethods[] = {
    {"grid", ClusterParams::grid},
    {"regions", ClusterParams::regions},
    {"manual", ClusterParams::manual}};
inline constexpr uint32_t kMaxClusterSize = 4096;
// Every bad field (cluster_size, clusters, threads; rooms[i] boxes, planes, names and
// representatives, group_costs[i] names and costs; rooms or group costs without method manual,
// clusters with it).
ParamIssues checkClusterParams(const ClusterParams& params);

// Rooms and group costs as a level config's "clusters" object or a rooms file writes them, read
// from `reader` (keys "rooms" and "group_costs"): {"name", "min": [x, y, z], "max": [...]} boxes
// or {"name", "points": [[x, y, z], ...]} convex hulls, each with an optional "representative":
// [x, y, z]; {"from", "to", "cost"}. Entries are named "FILE: PATH". Errors name the JSON path:
// wrong types, unknown keys, an empty or repeated name, a box with min > max, a flat hull, a
// cost that is not > 0.
Status parseRooms(JsonReader& reader, ClusterParams& out);
// A rooms file {"rooms": [...], "group_costs": [...]}, for `navbake cluster --rooms`.
Status loadRoomsFile(const std::filesystem::path& file, ClusterParams& out);

// The manual clusters' rooms as resolved on one graph (stored in a .clu's CLRM).
inline constexpr uint32_t kNoRoom = 0xFFFFFFFFu;
struct ClusterRoom {
    std::string name, where;
    uint32_t representative = graph::kNoNode;  // its node nearest the representative point
    bool operator==(const ClusterRoom&) const = default;
};
struct RoomGroupCost {
    uint32_t from = 0, to = 0;  // room indices
    float cost = 1;
    std::string where;
    bool operator==(const RoomGroupCost&) const = default;
};

struct Clusters {
    formats::ClusterHeader header;        // counts, scale, fingerprint of the graph
    std::vector<uint32_t> node_clusters;  // cluster id per node, clusters numbered by lowest node
    std::vector<uint16_t> table;          // [a * cluster_count + b], kClusterUnreachable = none
    std::vector<uint32_t> cluster_nodes;  // nodes per cluster (statistics, not stored)
    double max_cost = 0;                  // largest finite table entry before quantization
    // Method manual (CLRM; empty otherwise): the graph's scene rooms then the config's, the room
    // of every cluster (kNoRoom: grid clusters of nodes outside every room), the group costs.
    std::vector<ClusterRoom> rooms;
    std::vector<uint32_t> cluster_rooms;
    std::vector<RoomGroupCost> group_costs;
    // Statistics of the build, not stored: nodes in no room; what a user should read (rooms
    // holding no node, rooms split into several clusters).
    uint32_t nodes_outside_rooms = 0;
    std::vector<std::string> warnings;
    // Landmarks (CLLM, FORMAT.md §7.3; empty without ClusterParams::landmarks): the nodes, then
    // per node and landmark the distance from the landmark and, on directed graphs, to it, in
    // u16 units of landmark_scale rounded down (kLandmarkUnreachable = none).
    std::vector<uint32_t> landmark_nodes;
    float landmark_scale = 1;
    std::vector<uint16_t> landmark_from, landmark_to;

    uint32_t count() const { return header.cluster_count; }
    // Lower bound on the cost from cluster a to cluster b (+inf when unreachable).
    double bound(uint32_t a, uint32_t b) const;
};

// Partitions `graph` (tile, navmesh or POV; volume graphs are refused) and computes the table.
// grid: blocks of cluster_size x cluster_size columns (navmesh graphs: polygon regions), each
// split into its connected pieces. regions: rooms cut at chokepoints (watershed of the clearance
// field, shallow borders merged, then merged and split towards the target size; navmesh graphs:
// their regions, merged), split into connected pieces. manual: every node (by its position: tile
// cell centre, polygon centroid, POV corner) joins the first room holding it, the graph's scene
// rooms (graph.rooms) before params.rooms; nodes in no room are grid-clustered; then the same
// split into connected pieces (a room whose nodes are not connected becomes several clusters, a
// warning, as is a room holding no node). Usage errors: cluster_size 0, clusters above the node
// count, more than kMaxClusters clusters. Input errors (manual): no room at all, two rooms of one
// name, a group cost naming no room or one room twice, two costs for one pair.
Result<Clusters> buildClusters(const graph::Graph& graph, const ClusterParams& params,
                               Context& context);

// Exact cluster-to-cluster minimum costs (+inf = unreachable), row-major, before quantization;
// for tests.
std::vector<double> exactTable(const graph::Graph& graph,
                               const std::vector<uint32_t>& node_clusters, uint32_t cluster_count,
                               int threads, Context& context);

// Appends the CLHD, CLND and CLTB sections (what pack adds to a .nav).
void addClusterSections(formats::ContainerWriter& writer, const Clusters& clusters);
// Writes the .clu: those three, then CLRM when the clusters are manual.
Status saveClusters(const std::filesystem::path& path, const Clusters& clusters);
Result<Clusters> loadClusters(const std::filesystem::path& path);
Result<Clusters> decodeClusters(const LoadedContainer& container);

// Error naming both files unless `clusters` was built for `graph` (node count and fingerprint).
Status checkMatches(const Clusters& clusters, const std::filesystem::path& clusters_path,
                    const graph::Graph& graph, const std::filesystem::path& graph_path);

// The cluster stage (lib/common/stage.h): .graph -> .clu.
struct ClusterStage {
    static constexpr std::string_view kName = "cluster";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    using Params = ClusterParams;
    struct Inputs {
        std::filesystem::path graph;
    };
    static ParamIssues check(const Params& params) { return checkClusterParams(params); }
    static void describe(const Params& params, StageKey& key);
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: clusters; manual: rooms, rooms_without_nodes, rooms_split, nodes_outside_rooms.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::cluster
