// Fuzz target: the bake side's readers of every artifact kind on untrusted bytes — what
// `navbake inspect`, the stages and `navbake build` read back (.geo, .vox, .graph, .clu, .nh,
// .nhh, .hier, .nav): inspectArtifact (every kind's decoder and statistics, rendered as text)
// and each kind's loader. A bad file must give an error, never a crash, leak or bad_alloc.
#include <cstdint>

#include "lib/cluster/cluster.h"
#include "lib/cluster/hierarchy.h"
#include "lib/geometry/geometry.h"
#include "lib/graph/graph.h"
#include "lib/inspect/inspect.h"
#include "lib/nexthop/nexthop.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/fuzz/fuzz_support.h"

NAVBAKE_FUZZ_CONTAINER_MUTATOR()

namespace {
using nav::fuzz::g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = nav::fuzz::writeTempFile({data, size}, "artifact.bin");
    if (auto report = nav::inspect::inspectArtifact(path); report.ok())
        g_sink += nav::inspect::renderText(report.value().report).size();
    if (auto g = nav::geometry::loadGeometry(path); g.ok()) g_sink += g.value().vertices.size();
    if (auto v = nav::voxel::loadVoxels(path); v.ok()) g_sink += v.value().spans.size();
    auto graph = nav::graph::loadGraph(path);
    if (graph.ok()) g_sink += graph.value().nodeCount();
    if (auto c = nav::cluster::loadClusters(path); c.ok()) g_sink += c.value().node_clusters.size();
    if (auto t = nav::nexthop::loadTable(path); t.ok()) g_sink += t.value().ranks.size();
    if (auto t = nav::nexthop::loadHierTable(path); t.ok()) g_sink += 1;
    return 0;
}
