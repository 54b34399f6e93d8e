// The hierarchical next-hop table (see nexthop.h).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "formats/bytes.h"
#include "formats/graph_sections.h"
#include "lib/cluster/hierarchy.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"
#include "lib/nexthop/nexthop.h"

namespace nav::nexthop {
namespace {

using formats::arrayBytes;
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kMaxEntrances = 30000;  // the entrance table holds entrances^2 entries

}  // namespace

uint64_t HierTable::bytes() const {
    uint64_t total =
        intra.size() + 8 * (intra_offsets.size() + distance_offsets.size()) +
        4 * (node_to_entrance.size() + entrance_to_node.size() + entrance_distances.size());
    for (const auto& a : arrays) total += 4 * a.size();
    return total;
}

namespace {

// The table an update starts from, its graph and the node match.
struct Previous {
    const HierTable& table;
    const graph::Graph& graph;
    const NodeMatch& match;
};

// Whether the old table holds cluster c of the table `t` being built over `g` and `h` unchanged
// (see updateHierTable): then its old cluster.
uint32_t sameOldCluster(const graph::Graph& g, const cluster::Hierarchy& h, const HierTable& t,
                        uint32_t c, const Previous& old) {
    const HierTable& o = old.table;
    const auto& omo = o.arrays[formats::kHopMemberOffsets];
    const auto& oclusters = o.arrays[formats::kHopClusters];
    const auto& olocal = o.arrays[formats::kHopLocal];
    const auto& oeo = o.arrays[formats::kHopEntranceOffsets];
    const auto& oentrances = o.arrays[formats::kHopEntrances];
    const auto& to_old = old.match.to_old;
    const graph::Graph& og = old.graph;
    const auto& mo = h.member_offsets;
    const auto& eo = h.entrance_offsets;
    if (o.header.symbol_bytes != t.header.symbol_bytes || mo[c + 1] == mo[c]) return kNone;
    const uint32_t first = to_old[h.members[mo[c]]];
    if (first == kNone) return kNone;
    const uint32_t oc = oclusters[first];
    if (omo[oc + 1] - omo[oc] != mo[c + 1] - mo[c] || oeo[oc + 1] - oeo[oc] != eo[c + 1] - eo[c])
        return kNone;
    for (uint32_t i = mo[c]; i < mo[c + 1]; ++i) {
        const uint32_t v = h.members[i], ov = to_old[v];
        if (ov == kNone || oclusters[ov] != oc || olocal[ov] != i - mo[c]) return kNone;
        const uint32_t degree = g.edge_offsets[v + 1] - g.edge_offsets[v];
        if (og.edge_offsets[ov + 1] - og.edge_offsets[ov] != degree) return kNone;
        for (uint32_t k = 0; k < degree; ++k) {
            const uint32_t e = g.edge_offsets[v] + k, oe = og.edge_offsets[ov] + k;
            if (to_old[g.edge_targets[e]] != og.edge_targets[oe] ||
                std::bit_cast<uint32_t>(g.edge_costs[e]) !=
                    std::bit_cast<uint32_t>(og.edge_costs[oe]))
                return kNone;
        }
    }
    for (uint32_t a = eo[c]; a < eo[c + 1]; ++a)
        if (to_old[h.entrances[a]] != oentrances[oeo[oc] + (a - eo[c])]) return kNone;
    return oc;
}

Result<HierTable> assembleHierTable(const graph::Graph& g, const cluster::Clusters& clusters,
                                    const BuildParams& params, Context& context, BuildStats* stats,
                                    const Previous* old, uint64_t* computed_nodes) {
    const auto start = std::chrono::steady_clock::now();
    if (g.header.flags & formats::kGraphFlagImplicitVolume)
        return inputError(
            "next-hop tables need an explicit graph; volume graphs are not supported");
    cluster::HierarchyParams hp;
    hp.levels = 1;
    hp.spacing = 0;  // HPA*'s transitions: the entrance table holds entrances^2 entries
    hp.tables = false;
    hp.threads = params.threads;
    auto hierarchy = cluster::buildHierarchy(g, clusters, hp, context);
    if (!hierarchy) return hierarchy.error();
    const cluster::Hierarchy& h = *hierarchy;
    const uint32_t n = uint32_t(g.nodeCount()), k = clusters.count();
    const uint32_t entrances = uint32_t(h.entrances.size());
    if (entrances > kMaxEntrances)
        return inputError(
            "{} entrances would need an entrance table of {} entries; use larger "
            "clusters ('navbake cluster --cluster-size')",
            entrances, uint64_t(entrances) * entrances);
    uint32_t max_degree = 0;
    for (uint32_t v = 0; v < n; ++v)
        max_degree = std::max(max_degree, g.edge_offsets[v + 1] - g.edge_offsets[v]);

    HierTable t;
    formats::HierNextHopHeader& hh = t.header;
    hh.node_count = n;
    hh.edge_count = uint32_t(g.edgeCount());
    hh.cluster_count = k;
    hh.entrance_count = entrances;
    hh.symbol_bytes = max_degree < 255 ? 1 : 2;
    hh.graph_fingerprint = graph::graphFingerprint(g);
    hh.clusters_fingerprint = cluster::clustersFingerprint(clusters);
    const uint32_t none_symbol = hh.symbol_bytes == 1 ? 0xFFu : 0xFFFFu;

    auto& node_cluster = t.arrays[formats::kHopClusters];
    auto& local = t.arrays[formats::kHopLocal];
    node_cluster = clusters.node_clusters;
    local.assign(n, 0);
    t.arrays[formats::kHopMemberOffsets] = h.member_offsets;
    t.arrays[formats::kHopMembers] = h.members;
    t.arrays[formats::kHopEntranceOffsets] = h.entrance_offsets;
    t.arrays[formats::kHopEntrances] = h.entrances;
    const auto& mo = h.member_offsets;
    const auto& eo = h.entrance_offsets;
    for (uint32_t c = 0; c < k; ++c)
        for (uint32_t i = mo[c]; i < mo[c + 1]; ++i) local[h.members[i]] = i - mo[c];
    t.intra_offsets.assign(size_t(k) + 1, 0);
    t.distance_offsets.assign(size_t(k) + 1, 0);
    for (uint32_t c = 0; c < k; ++c) {
        const uint64_t size = mo[c + 1] - mo[c], ents = eo[c + 1] - eo[c];
        t.intra_offsets[c + 1] = t.intra_offsets[c] + size * size * hh.symbol_bytes;
        t.distance_offsets[c + 1] = t.distance_offsets[c] + size * ents;
    }
    hh.intra_symbols = t.intra_offsets[k] / hh.symbol_bytes;
    hh.distance_entries = t.distance_offsets[k];
    t.intra.assign(t.intra_offsets[k], 0);
    t.node_to_entrance.assign(t.distance_offsets[k], 0.0f);
    t.entrance_to_node.assign(t.distance_offsets[k], 0.0f);

    // Per cluster: one Dijkstra inside it from every member; symbols are first moves (the index of
    // the edge among the member's graph edges).
    const CsrGraph<float> forward{g.edge_offsets, g.edge_targets, g.edge_costs};
    std::vector<uint8_t> computed(k, old == nullptr ? 1 : 0);
    uint64_t progress = 0;
    Status s = runParallel(
        "next-hop clusters", k, resolveThreads(params.threads), context, progress, k,
        [&](size_t task) {
            if (context.cancelled()) throw StageCancelled{};
            const uint32_t c = uint32_t(task);
            if (old != nullptr) {  // an update: copy an unchanged cluster's blocks
                const uint32_t oc = sameOldCluster(g, h, t, c, *old);
                if (oc != kNone) {
                    const HierTable& o = old->table;
                    std::memcpy(t.intra.data() + t.intra_offsets[c],
                                o.intra.data() + o.intra_offsets[oc],
                                t.intra_offsets[c + 1] - t.intra_offsets[c]);
                    const uint64_t entries = t.distance_offsets[c + 1] - t.distance_offsets[c];
                    std::copy_n(o.node_to_entrance.begin() + ptrdiff_t(o.distance_offsets[oc]),
                                entries,
                                t.node_to_entrance.begin() + ptrdiff_t(t.distance_offsets[c]));
                    std::copy_n(o.entrance_to_node.begin() + ptrdiff_t(o.distance_offsets[oc]),
                                entries,
                                t.entrance_to_node.begin() + ptrdiff_t(t.distance_offsets[c]));
                    return;
                }
                computed[c] = 1;
            }
            thread_local Dijkstra<double, FirstMoveLabels> search;
            const std::vector<uint32_t> nodes(h.members.begin() + mo[c],
                                              h.members.begin() + mo[c + 1]);
            const uint32_t size = uint32_t(nodes.size()), ents = eo[c + 1] - eo[c];
            for (uint32_t i = 0; i < size; ++i) {
                const uint32_t src = nodes[i];
                search.reset(n);
                search.addSource(src);
                search.run(forward, SameLabel{node_cluster.data(), c});
                uint8_t* row =
                    t.intra.data() + t.intra_offsets[c] + uint64_t(i) * size * hh.symbol_bytes;
                for (uint32_t j = 0; j < size; ++j) {
                    const uint32_t first = search.label(nodes[j]);
                    const uint32_t symbol = first == kNoLabel ? none_symbol : first;
                    if (hh.symbol_bytes == 1)
                        row[j] = uint8_t(symbol);
                    else
                        formats::storeLe16(row + 2 * j, uint16_t(symbol));
                }
                float* to_entrance =
                    t.node_to_entrance.data() + t.distance_offsets[c] + uint64_t(i) * ents;
                for (uint32_t a = 0; a < ents; ++a)
                    to_entrance[a] = float(search.dist(h.entrances[eo[c] + a]));
                // An entrance's row: its distances to every member.
                const auto it = std::lower_bound(h.entrances.begin() + eo[c],
                                                 h.entrances.begin() + eo[c + 1], src);
                if (it != h.entrances.begin() + eo[c + 1] && *it == src) {
                    const uint32_t a = uint32_t(it - (h.entrances.begin() + eo[c]));
                    float* from_entrance =
                        t.entrance_to_node.data() + t.distance_offsets[c] + uint64_t(a) * size;
                    for (uint32_t j = 0; j < size; ++j)
                        from_entrance[j] = float(search.dist(nodes[j]));
                }
            }
        });
    if (!s) return s.error();

    // Entrance graph: all-pairs distances and next entrance.
    t.entrance_distances.assign(uint64_t(entrances) * entrances, 0.0f);
    auto& next = t.arrays[formats::kHopEntranceNext];
    next.assign(uint64_t(entrances) * entrances, kNone);
    // An entrance edge's label is the entrance it leads to: the next entrance of the path.
    const EdgeCallback entrance_edges{[&](uint32_t u, auto&& visit) {
        for (uint32_t e = h.entrance_edge_offsets[u]; e < h.entrance_edge_offsets[u + 1]; ++e)
            visit(h.entrance_edge_targets[e], h.entrance_edge_costs[e], h.entrance_edge_targets[e]);
    }};
    s = runParallel(
        "next-hop entrances", entrances, resolveThreads(params.threads), context, progress,
        entrances, [&](size_t task) {
            if (context.cancelled()) throw StageCancelled{};
            thread_local Dijkstra<double, FirstMoveLabels> search;
            const uint32_t src = uint32_t(task);
            search.reset(entrances);
            search.addSource(src);
            search.run(entrance_edges);
            for (uint32_t j = 0; j < entrances; ++j) {
                t.entrance_distances[uint64_t(src) * entrances + j] = float(search.dist(j));
                next[uint64_t(src) * entrances + j] = j == src ? kNone : search.label(j);
            }
        });
    if (!s) return s.error();
    if (computed_nodes != nullptr) {
        *computed_nodes = 0;
        for (uint32_t c = 0; c < k; ++c)
            if (computed[c]) *computed_nodes += mo[c + 1] - mo[c];
    }
    if (stats) {
        stats->rows = n;
        stats->raw_rle_bytes = t.bytes();
        stats->milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }
    return t;
}

}  // namespace

Result<HierTable> buildHierTable(const graph::Graph& g, const cluster::Clusters& clusters,
                                 const BuildParams& params, Context& context, BuildStats* stats) {
    return assembleHierTable(g, clusters, params, context, stats, nullptr, nullptr);
}

Result<HierTable> updateHierTable(const HierTable& old_table, const graph::Graph& old_graph,
                                  const graph::Graph& graph, const cluster::Clusters& clusters,
                                  const BuildParams& params, Context& context, UpdateStats* stats) {
    const auto start = std::chrono::steady_clock::now();
    if (old_table.header.node_count != old_graph.nodeCount() ||
        old_table.header.graph_fingerprint != graph::graphFingerprint(old_graph))
        return inputError(
            "the old hierarchical table was built for another graph than the old one");
    const NodeMatch match = matchNodes(old_graph, graph);
    const Previous previous{old_table, old_graph, match};
    uint64_t computed = 0;
    auto table = assembleHierTable(graph, clusters, params, context, nullptr, &previous, &computed);
    if (!table) return table.error();
    if (stats != nullptr) {
        *stats = UpdateStats{};
        stats->rows_total = graph.nodeCount();
        stats->rows_recomputed = computed;
        stats->rows_reused = graph.nodeCount() - computed;
        for (uint32_t v : match.to_old) stats->nodes_added += v == kNone;
        for (uint32_t v : match.to_new) stats->nodes_removed += v == kNone;
        stats->milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }
    return table;
}

void addHierTableSections(formats::ContainerWriter& writer, const HierTable& t) {
    std::vector<uint8_t> header(formats::kHierNextHopHeaderSize);
    formats::encodeHierNextHopHeader(t.header, header.data());
    writer.add(formats::kSecHierHopHeader, std::move(header), formats::Codec::raw);
    for (uint32_t s = 0; s < formats::kHopSectionCount; ++s) {
        std::vector<uint8_t> bytes;
        formats::Codec codec = formats::Codec::zstd;
        switch (s) {
            case formats::kHopIntraOffsets: bytes = arrayBytes(t.intra_offsets); break;
            case formats::kHopDistanceOffsets: bytes = arrayBytes(t.distance_offsets); break;
            case formats::kHopIntra: bytes = t.intra; break;
            case formats::kHopNodeToEntrance: bytes = arrayBytes(t.node_to_entrance); break;
            case formats::kHopEntranceToNode: bytes = arrayBytes(t.entrance_to_node); break;
            case formats::kHopEntranceDistances: bytes = arrayBytes(t.entrance_distances); break;
            default:
                bytes = arrayBytes(t.arrays[s]);
                if (s == formats::kHopMemberOffsets || s == formats::kHopEntranceOffsets)
                    codec = formats::Codec::zstd_delta32;
        }
        writer.add(formats::kHierHopSectionIds[s], std::move(bytes), codec);
    }
}

Status saveHierTable(const std::filesystem::path& path, const HierTable& t) {
    return saveTableContainer(
        path, formats::kKindHierNextHop, formats::kHierNextHopVersion,
        [&](formats::ContainerWriter& writer) { addHierTableSections(writer, t); });
}

Result<HierTable> loadHierTable(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindHierNextHop, formats::kHierNextHopVersion);
    if (!container) return container.error();
    HierTable t;
    if (Status s = container->header(formats::kSecHierHopHeader, formats::decodeHierNextHopHeader,
                                     t.header);
        !s)
        return s.error();
    std::vector<uint8_t> bytes[formats::kHopSectionCount];
    const uint8_t* data[formats::kHopSectionCount];
    size_t size[formats::kHopSectionCount];
    for (uint32_t s = 0; s < formats::kHopSectionCount; ++s) {
        auto section = container->section(formats::kHierHopSectionIds[s]);
        if (!section) return section.error();
        bytes[s] = std::move(*section);
        data[s] = bytes[s].data();
        size[s] = bytes[s].size();
    }
    // The checks navrt makes on the same sections (a .nhh is packed into a .nav unchanged).
    if (formats::Error e = formats::validateHierNextHopSections(t.header, data, size))
        return containerError(path, e);
    for (uint32_t s = 0; s < formats::kHopSectionCount; ++s) {
        auto copy = [&](auto& out) {
            using T = typename std::decay_t<decltype(out)>::value_type;
            out.resize(bytes[s].size() / sizeof(T));
            if (!out.empty()) std::memcpy(out.data(), bytes[s].data(), out.size() * sizeof(T));
        };
        switch (s) {
            case formats::kHopIntraOffsets: copy(t.intra_offsets); break;
            case formats::kHopDistanceOffsets: copy(t.distance_offsets); break;
            case formats::kHopIntra: t.intra = std::move(bytes[s]); break;
            case formats::kHopNodeToEntrance: copy(t.node_to_entrance); break;
            case formats::kHopEntranceToNode: copy(t.entrance_to_node); break;
            case formats::kHopEntranceDistances: copy(t.entrance_distances); break;
            default: copy(t.arrays[s]);
        }
        std::vector<uint8_t>().swap(bytes[s]);
    }
    return t;
}

}  // namespace nav::nexthop
