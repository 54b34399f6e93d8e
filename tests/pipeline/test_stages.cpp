// The stage layer (lib/common/stage.h): every stage runs without the CLI, its check() names every
// bad field at once, its cache-key description follows its Params, its run() refuses inputs that
// do not belong together, and the pipeline gives a config the same errors as the command line.
#include <doctest/doctest.h>

#include "lib/cluster/hierarchy.h"
#include "lib/common/context.h"
#include "lib/graph/graph.h"
#include "lib/graph/world.h"
#include "lib/importer/import.h"
#include "lib/nexthop/nexthop.h"
#include "lib/pack/pack.h"
#include "lib/pipeline/pipeline.h"
#include "lib/voxel/voxelize.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

const char* kMapA = "type octile\nheight 4\nwidth 6\nmap\n......\n.@@@..\n......\n......\n";
const char* kMapB = "type octile\nheight 4\nwidth 6\nmap\n......\n......\n..@...\n......\n";

template <class S>
std::string keyOf(const typename S::Params& params) {
    return stageKeyText<S>(params);
}

// The algorithm version of every stage is in its cache key, so a bump changes the key.
template <class S>
void checkVersioned() {
    INFO(std::string(S::kName));
    const typename S::Params params{};
    const std::string key = stageKeyText<S>(params);
    CHECK(key.find(fmt::format("\nversion={}\n", S::kVersion)) != std::string::npos);
    CHECK(key.rfind(std::string(S::kName) + "\n", 0) == 0);
    CHECK(stageKeyText<S>(params, S::kVersion + 1) != key);
}

bool mentions(const Status& s, const std::string& text) {
    return !s.ok() && s.error().message.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("stage checks report every bad field at once, named by the caller") {
    voxel::VoxelizeParams voxelize;
    voxelize.cell_size = -1;
    voxelize.agent.max_slope_deg = 95;
    voxelize.threads = -2;
    const ParamIssues issues = voxel::VoxelizeStage::check(voxelize);
    REQUIRE(issues.size() == 3);
    CHECK(issues[0].field == "cell_size");
    CHECK(issues[1].field == "max_slope");
    CHECK(issues[2].field == "threads");
    const Status cli = checkStage<voxel::VoxelizeStage>(voxelize, optionFieldName);
    CHECK(cli.error().kind == ErrorKind::usage);
    CHECK(
        cli.error().message ==
        "invalid voxelize parameters: --cell-size = -1 (must be > 0); --max-slope = 95 (must be in "
        "0..90 degrees); --threads = -2 (must be 0 for all cores, or 1..1024)");
    CHECK(mentions(checkStage<voxel::VoxelizeStage>(voxelize), "cell size = -1 (must be > 0)"));

    voxel::VoxelizeParams tiny;
    tiny.agent.height = 0.1f;
    CHECK(mentions(checkStage<voxel::VoxelizeStage>(tiny),
                   "agent height = 0.1 (must be at least one cell height"));

    cluster::HierarchyParams hierarchy;
    hierarchy.fanout = 65;
    hierarchy.levels = 99;
    CHECK(cluster::HierarchyStage::check(hierarchy).size() == 2);
    hierarchy.fanout = 1;
    CHECK(mentions(checkStage<cluster::HierarchyStage>(hierarchy, optionFieldName),
                   "--fanout = 1 (must be in 2..64)"));

    cluster::ClusterParams clusters;
    clusters.cluster_size = 0;
    CHECK(mentions(checkStage<cluster::ClusterStage>(clusters),
                   "cluster size = 0 (must be in 1..4096 cells)"));

    nexthop::BuildParams next_hop;
    next_hop.block_rows = 48;
    next_hop.shard_index = 2;
    next_hop.shard_count = 2;
    CHECK(nexthop::NextHopStage::check(next_hop).size() == 2);

    graph::GraphStage::Params graph;
    graph.kind = graph::GraphKind::navmesh;
    graph.navmesh.max_verts_per_poly = 9;
    graph.agent_radius = -1;
    CHECK(graph::GraphStage::check(graph).size() == 2);
    graph.kind = graph::GraphKind::tile;  // navmesh fields only count for navmesh graphs
    CHECK(graph::GraphStage::check(graph).size() == 1);
    CHECK(importer::ImportStage::check({importer::UpAxis::y, 0.0f, {}}).size() == 1);
}

TEST_CASE("cache-key descriptions follow the Params that change the output, not thread counts") {
    graph::GraphStage::Params a;
    a.kind = graph::GraphKind::navmesh;
    graph::GraphStage::Params b = a;
    b.threads = 3;
    CHECK(keyOf<graph::GraphStage>(a) == keyOf<graph::GraphStage>(b));
    b.navmesh.detail_sample_dist = 0;
    CHECK(keyOf<graph::GraphStage>(a) != keyOf<graph::GraphStage>(b));
    b = a;
    b.navmesh.partition = navmesh::Partition::monotone;
    CHECK(keyOf<graph::GraphStage>(a) != keyOf<graph::GraphStage>(b));

    voxel::VoxelizeParams v;
    voxel::VoxelizeParams w = v;
    w.threads = 1;
    CHECK(keyOf<voxel::VoxelizeStage>(v) == keyOf<voxel::VoxelizeStage>(w));
    w.agent.climb = 0.5f;
    CHECK(keyOf<voxel::VoxelizeStage>(v) != keyOf<voxel::VoxelizeStage>(w));

    cluster::HierarchyParams h;
    cluster::HierarchyParams k = h;
    k.cost = formats::HierCost::maximin;
    CHECK(keyOf<cluster::HierarchyStage>(h) != keyOf<cluster::HierarchyStage>(k));
    nexthop::BuildParams n;
    nexthop::BuildParams m = n;
    m.block_rows = 8;
    CHECK(keyOf<nexthop::NextHopStage>(n) != keyOf<nexthop::NextHopStage>(m));
}

TEST_CASE("every stage's cache key holds its algorithm version") {
    checkVersioned<importer::ImportStage>();
    checkVersioned<voxel::VoxelizeStage>();
    checkVersioned<graph::GraphStage>();
    checkVersioned<cluster::ClusterStage>();
    checkVersioned<cluster::HierarchyStage>();
    checkVersioned<nexthop::NextHopStage>();
    checkVersioned<pack::PackStage>();
    checkVersioned<graph::WorldStage>();
}

TEST_CASE("stages run without the CLI and pack refuses parts of another graph") {
    test::TempDir dir;
    Context context;
    test::writeText(dir / "a.map", kMapA);
    test::writeText(dir / "b.map", kMapB);
    for (const char* name : {"a", "b"}) {
        const std::string n = name;
        auto imported =
            importer::ImportStage::run({{dir / (n + ".map")}}, {}, dir / (n + ".vox"), context);
        REQUIRE(imported.ok());
        CHECK(imported->counts.at(0).first == "cells");
        CHECK(imported->counts.at(0).second == 24);
        graph::GraphStage::Params tile;
        auto graph =
            graph::GraphStage::run({dir / (n + ".vox")}, tile, dir / (n + ".graph"), context);
        REQUIRE(graph.ok());
        cluster::ClusterParams cp;
        cp.cluster_size = 3;
        REQUIRE(cluster::ClusterStage::run({dir / (n + ".graph")}, cp, dir / (n + ".clu"), context)
                    .ok());
        REQUIRE(nexthop::NextHopStage::run({dir / (n + ".graph"), dir / (n + ".clu")}, {},
                                           dir / (n + ".nhh"), context)
                    .ok());
        REQUIRE(
            nexthop::NextHopStage::run({dir / (n + ".graph"), {}}, {}, dir / (n + ".nh"), context)
                .ok());
    }
    // Whole asset: graph, clusters, hierarchy, flat next-hop table.
    REQUIRE(
        cluster::HierarchyStage::run({dir / "a.graph", dir / "a.clu"}, {}, dir / "a.hier", context)
            .ok());
    auto packed = pack::PackStage::run(
        {dir / "a.graph", dir / "a.clu", dir / "a.hier", dir / "a.nh"}, {}, dir / "a.nav", context);
    REQUIRE(packed.ok());
    CHECK(packed->summary.at(0).find("clusters, 1 hierarchy levels, next-hop table") !=
          std::string::npos);
    // Parts of graph b packed with graph a: each refused, naming both files, nothing written.
    const std::filesystem::path out = dir / "x.nav";
    auto foreign_clusters =
        pack::PackStage::run({dir / "a.graph", dir / "b.clu", {}, {}}, {}, out, context);
    REQUIRE_FALSE(foreign_clusters.ok());
    CHECK(foreign_clusters.error().message.find("b.clu was built for another graph") !=
          std::string::npos);
    auto foreign_table =
        pack::PackStage::run({dir / "a.graph", {}, {}, dir / "b.nh"}, {}, out, context);
    REQUIRE_FALSE(foreign_table.ok());
    CHECK(foreign_table.error().message.find("b.nh") != std::string::npos);
    auto foreign_hier_table =
        pack::PackStage::run({dir / "a.graph", {}, {}, dir / "b.nhh"}, {}, out, context);
    REQUIRE_FALSE(foreign_hier_table.ok());
    CHECK(foreign_hier_table.error().message.find("b.nhh was built for another graph than") !=
          std::string::npos);
    auto foreign_hierarchy =
        cluster::HierarchyStage::run({dir / "a.graph", dir / "b.clu"}, {}, dir / "y.hier", context);
    REQUIRE_FALSE(foreign_hierarchy.ok());
    CHECK_FALSE(std::filesystem::exists(out));
    // A hierarchical table above its memory limit is refused by the stage itself.
    nexthop::BuildParams tight;
    tight.max_memory = 16;
    auto too_big =
        nexthop::NextHopStage::run({dir / "a.graph", dir / "a.clu"}, tight, dir / "t.nhh", context);
    REQUIRE_FALSE(too_big.ok());
    CHECK(too_big.error().message.find("above the memory limit") != std::string::npos);
}

TEST_CASE("a level config reports the stage's own check, fields named by JSON path") {
    test::TempDir dir;
    test::writeText(dir / "a.map", kMapA);
    auto parse = [&](const std::string& text) {
        return pipeline::parseLevelConfig(text, dir / "level.json");
    };
    auto fanout = parse(
        R"({"input": "a.map", "agents": [{"graphs": ["tile"], "clusters": true, "hierarchy": {"fanout": 65}}]})");
    REQUIRE_FALSE(fanout.ok());
    CHECK(
        fanout.error().message.find(
            "invalid hierarchy parameters: $.agents[0].hierarchy.fanout = 65 (must be in 2..64)") !=
        std::string::npos);
    auto block_rows = parse(R"({"input": "a.map", "agents": [{"nexthop": {"block_rows": 3}}]})");
    REQUIRE_FALSE(block_rows.ok());
    CHECK(block_rows.error().message.find("$.agents[0].nexthop.block_rows = 3") !=
          std::string::npos);
    auto partition = parse(R"({"input": "a.map", "navmesh": {"partition": "mono"}})");
    REQUIRE_FALSE(partition.ok());
    CHECK(partition.error().message.find(
              "$.navmesh.partition: 'mono' is not one of: watershed, monotone") !=
          std::string::npos);
    // .3dmap inputs are accepted; a grid map among other inputs is not.
    test::writeText(dir / "v.3dmap", "voxel 2 2 2\n0 0 0\n");
    auto voxels = parse(R"({"input": "v.3dmap", "agents": [{"graphs": ["volume"]}]})");
    REQUIRE(voxels.ok());
    CHECK(voxels->grid_map);
    auto mixed = parse(R"({"input": ["v.3dmap", "a.map"]})");
    REQUIRE_FALSE(mixed.ok());
    CHECK(mixed.error().message.find("$.input[0]: ") != std::string::npos);
    CHECK(mixed.error().message.find("must be the only input") != std::string::npos);
}
