// Levels the navigator and C API tests share: a floor with three platforms, a wall, drops and
// jumps generated off the ledges and three teleports (the exact-navmesh link test's level).
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/hierarchy.h"
#include "lib/graph/graph.h"
#include "lib/nexthop/nexthop.h"
#include "tests/graph_test_support.h"
#include "tests/level_builder.h"

namespace nav::test {

inline voxel::VoxelGrid platformsGrid() {
    LevelBuilder b;
    b.box({0, -0.2, 0}, {34, 0, 14});
    const double heights[3] = {1.2, 2.0, 3.0};
    for (int k = 0; k < 3; ++k) b.box({4.0 + 10 * k, 0, 4}, {9.0 + 10 * k, heights[k], 10});
    b.box({12, 0, 11}, {22, 2.5, 11.3});  // a wall to go round
    return voxelizeOk(b.g, voxelParams());
}

// The platforms' drops and jumps, and three teleports (custom links far cheaper than their
// length, one two-way), attached to `g`; how many links were specified.
inline size_t attachPlatformLinks(const voxel::VoxelGrid& grid, graph::Graph& g) {
    std::vector<geometry::LinkSpec> specs = generatedDrops(grid, 3.2f, 1.3f);
    const float teleports[3][6] = {
        {1, 0, 1, 33, 0, 13}, {33, 0, 1, 26.5f, 3, 7}, {1, 0, 13, 16, 0, 13}};
    for (int k = 0; k < 3; ++k) {
        geometry::LinkSpec l;
        l.name = "teleport " + std::to_string(k);
        l.id = 900 + uint32_t(k);
        l.type = formats::LinkType::custom;
        l.bidirectional = k == 2;
        l.cost = 1.5f;
        for (int c = 0; c < 3; ++c) l.from[c] = teleports[k][c], l.to[c] = teleports[k][3 + c];
        specs.push_back(l);
    }
    graph::LinkResolveStats stats;
    Context context;
    const Status attached = graph::attachLinks(g, specs, 1, stats, context);
    REQUIRE_MESSAGE(attached.ok(), attached.error().message);
    return specs.size();
}

inline graph::Graph platformsMesh() {
    const voxel::VoxelGrid grid = platformsGrid();
    Context context;
    auto mesh = graph::buildNavmeshGraph(grid, {}, context);
    REQUIRE(mesh.ok());
    attachPlatformLinks(grid, *mesh);
    return std::move(mesh).value();
}

// A 60 x 60 m floor crossed by nine walls with a gap at alternating ends: a serpentine whose paths
// cross many polygons.
inline voxel::VoxelGrid serpentineGrid() {
    LevelBuilder b;
    b.box({0, -0.2, 0}, {60, 0, 60});
    for (int k = 1; k <= 9; ++k) {
        const double z = 6.0 * k;
        if (k % 2)
            b.box({0, 0, z}, {52, 2.5, z + 0.4});
        else
            b.box({8, 0, z}, {60, 2.5, z + 0.4});
    }
    return voxelizeOk(b.g, voxelParams());
}

// A rooms map's tile graph with every table packed (clusters of 10, a hierarchy, a flat next-hop
// table), saved at `path` and viewed.
inline void packRoomsWithTables(unsigned seed, const std::filesystem::path& path,
                                PackedAsset& out) {
    const graph::Graph rooms = tileGraphOfText(roomsMapText(seed), "rooms.map");
    Context context;
    cluster::ClusterParams cp;
    cp.cluster_size = 10;
    auto clusters = cluster::buildClusters(rooms, cp, context);
    REQUIRE(clusters.ok());
    auto hierarchy = cluster::buildHierarchy(rooms, *clusters, {}, context);
    REQUIRE(hierarchy.ok());
    auto table = nexthop::buildTable(rooms, {}, context);
    REQUIRE(table.ok());
    packAsset(rooms, path, out, [&](formats::ContainerWriter& w) {
        cluster::addClusterSections(w, *clusters);
        cluster::addHierarchySections(w, *hierarchy);
        nexthop::addNextHopSections(w, *table);
    });
    REQUIRE_FALSE(out.error);
}

}  // namespace nav::test
