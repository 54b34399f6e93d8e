#include "cluster.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>
#include <thread>
#include <tuple>

#include "../../formats/bytes.h"
#include "../common/parallel.h"

namespace nav::cluster {
namespace {

using formats::arrayBytes;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = 0xFFFFFFFFu;

int threadCount(int threads) {
    return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
}

// Splits a labelling into connected pieces: nodes joined by an edge whose ends carry the same
// label share a piece. Pieces are numbered by their lowest node, so the result is canonical.
uint32_t splitConnected(const graph::Graph& g, const std::vector<uint32_t>& label,
                        std::vector<uint32_t>& out) {
    const size_t n = label.size();
    out.assign(n, kNone);
    std::vector<uint32_t> stack;
    uint32_t count = 0;
    for (uint32_t s = 0; s < n; ++s) {
        if (out[s] != kNone) continue;
        out[s] = count;
        stack.push_back(s);
        while (!stack.empty()) {
            const uint32_t u = stack.back();
            stack.pop_back();
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t w = g.edge_targets[e];
                if (out[w] == kNone && label[w] == label[s]) {
                    out[w] = count;
                    stack.push_back(w);
                }
            }
        }
        ++count;
    }
    return count;
}

// Column (z * size_x + x) of a node: its NCEL cell, else its position quantized to the grid.
std::vector<std::pair<uint32_t, uint32_t>> nodeColumns(const graph::Graph& g) {
    const formats::GraphHeader& h = g.header;
    const size_t n = g.nodeCount();
    std::vector<std::pair<uint32_t, uint32_t>> xz(n);
    for (size_t v = 0; v < n; ++v) {
        if (!g.cells.empty()) {
            xz[v] = {g.cells[v].column % h.size_x, g.cells[v].column / h.size_x};
            continue;
        }
        auto cell = [&](float p, float origin, uint32_t size) {
            const double c = std::floor((double(p) - origin) / h.cell_size);
            return uint32_t(std::clamp(c, 0.0, double(size > 0 ? size - 1 : 0)));
        };
        xz[v] = {cell(g.positions[3 * v], h.origin[0], h.size_x),
                 cell(g.positions[3 * v + 2], h.origin[2], h.size_z)};
    }
    return xz;
}

uint32_t gridPartition(const graph::Graph& g, const std::vector<std::pair<uint32_t, uint32_t>>& xz,
                       uint32_t size, std::vector<uint32_t>& out) {
    const uint32_t blocks_x = (g.header.size_x + size - 1) / size;
    std::vector<uint32_t> label(xz.size());
    for (size_t v = 0; v < xz.size(); ++v)
        label[v] = (xz[v].second / size) * blocks_x + xz[v].first / size;
    return splitConnected(g, label, out);
}

// Dijkstra over the forward edges from every node of `sources` (distance 0). `dist` is n long.
void dijkstra(const graph::Graph& g, const uint32_t* sources, size_t source_count,
              std::vector<double>& dist) {
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::fill(dist.begin(), dist.end(), kInf);
    for (size_t i = 0; i < source_count; ++i) {
        dist[sources[i]] = 0;
        heap.push({0.0, sources[i]});
    }
    while (!heap.empty()) {
        const auto [d, u] = heap.top();
        heap.pop();
        if (d > dist[u]) continue;
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t w = g.edge_targets[e];
            const double nd = d + double(g.edge_costs[e]);
            if (nd < dist[w]) {
                dist[w] = nd;
                heap.push({nd, w});
            }
        }
    }
}

// Farthest-point seeds, then multi-source Dijkstra growth (ties by seed index); nodes no seed
// reaches keep kNone (the split turns them into their own pieces).
std::vector<uint32_t> regionLabels(const graph::Graph& g, uint32_t seed_count, Context& context) {
    const size_t n = g.nodeCount();
    std::vector<double> dist(n, kInf);
    std::vector<uint32_t> seeds;
    // First seed: the node farthest from node 0 (lowest id on ties).
    {
        const uint32_t zero = 0;
        dijkstra(g, &zero, 1, dist);
        uint32_t best = 0;
        for (uint32_t v = 0; v < n; ++v)
            if (std::isfinite(dist[v]) && dist[v] > dist[best]) best = v;
        seeds.push_back(best);
        dijkstra(g, &best, 1, dist);
    }
    using Item = std::pair<double, uint32_t>;
    while (seeds.size() < seed_count) {
        if ((seeds.size() & 63) == 0) context.progress("cluster seeds", seeds.size(), seed_count);
        uint32_t best = 0;
        for (uint32_t v = 1; v < n; ++v)
            if (dist[v] > dist[best]) best = v;  // +inf (not yet reached) first
        if (dist[best] == 0) break;              // every node is a seed
        seeds.push_back(best);
        // Incremental: only nodes now closer to the new seed are visited.
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
        dist[best] = 0;
        heap.push({0.0, best});
        while (!heap.empty()) {
            const auto [d, u] = heap.top();
            heap.pop();
            if (d > dist[u]) continue;
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t w = g.edge_targets[e];
                const double nd = d + double(g.edge_costs[e]);
                if (nd < dist[w]) {
                    dist[w] = nd;
                    heap.push({nd, w});
                }
            }
        }
    }
    // Growth: key (distance, seed index), lexicographic.
    std::vector<uint32_t> owner(n, kNone);
    std::fill(dist.begin(), dist.end(), kInf);
    using Grow = std::tuple<double, uint32_t, uint32_t>;  // distance, seed index, node
    std::priority_queue<Grow, std::vector<Grow>, std::greater<Grow>> heap;
    for (uint32_t i = 0; i < seeds.size(); ++i) {
        dist[seeds[i]] = 0;
        owner[seeds[i]] = i;
        heap.push({0.0, i, seeds[i]});
    }
    while (!heap.empty()) {
        const auto [d, s, u] = heap.top();
        heap.pop();
        if (d != dist[u] || s != owner[u]) continue;
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t w = g.edge_targets[e];
            const double nd = d + double(g.edge_costs[e]);
            if (nd < dist[w] || (nd == dist[w] && s < owner[w])) {
                dist[w] = nd;
                owner[w] = s;
                heap.push({nd, s, w});
            }
        }
    }
    return owner;
}

// Row `a` of the exact table: minimum cost from cluster a to every cluster.
void exactRow(const graph::Graph& g, const std::vector<uint32_t>& node_clusters,
              const std::vector<uint32_t>& member_offsets, const std::vector<uint32_t>& members,
              uint32_t a, std::vector<double>& dist, double* row, uint32_t cluster_count) {
    dijkstra(g, members.data() + member_offsets[a], member_offsets[a + 1] - member_offsets[a], dist);
    std::fill(row, row + cluster_count, kInf);
    for (size_t v = 0; v < dist.size(); ++v)
        row[node_clusters[v]] = std::min(row[node_clusters[v]], dist[v]);
}

void clusterMembers(const std::vector<uint32_t>& node_clusters, uint32_t count,
                    std::vector<uint32_t>& offsets, std::vector<uint32_t>& members) {
    offsets.assign(size_t(count) + 1, 0);
    for (uint32_t c : node_clusters) ++offsets[c + 1];
    for (uint32_t c = 0; c < count; ++c) offsets[c + 1] += offsets[c];
    members.resize(node_clusters.size());
    std::vector<uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (uint32_t v = 0; v < node_clusters.size(); ++v) members[next[node_clusters[v]]++] = v;
}

// Whether every edge u -> v has a reverse edge v -> u of exactly the same cost.
bool symmetric(const graph::Graph& g) {
    for (uint32_t u = 0; u + 1 < g.edge_offsets.size(); ++u) {
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t v = g.edge_targets[e];
            bool found = false;
            for (uint32_t f = g.edge_offsets[v]; f < g.edge_offsets[v + 1] && !found; ++f)
                found = g.edge_targets[f] == u && g.edge_costs[f] == g.edge_costs[e];
            if (!found) return false;
        }
    }
    return true;
}

}  // namespace

double Clusters::bound(uint32_t a, uint32_t b) const {
    const uint16_t q = table[size_t(a) * header.cluster_count + b];
    return q == formats::kClusterUnreachable ? kInf : double(q) * double(header.scale);
}

std::vector<double> exactTable(const graph::Graph& g, const std::vector<uint32_t>& node_clusters,
                               uint32_t cluster_count, int threads, Context& context) {
    std::vector<uint32_t> offsets, members;
    clusterMembers(node_clusters, cluster_count, offsets, members);
    std::vector<double> table(size_t(cluster_count) * cluster_count, kInf);
    uint64_t progress = 0;
    Status s = runParallel("cluster table", cluster_count, threadCount(threads), context, progress,
                           cluster_count, [&](size_t a) {
        if (context.cancelled()) throw StageCancelled{};
        std::vector<double> dist(g.nodeCount());
        exactRow(g, node_clusters, offsets, members, uint32_t(a), dist,
                 table.data() + a * cluster_count, cluster_count);
    });
    if (!s) table.clear();
    return table;
}

Result<Clusters> buildClusters(const graph::Graph& g, const ClusterParams& params,
                               Context& context) {
    const formats::GraphHeader& h = g.header;
    if (h.flags & formats::kGraphFlagImplicitVolume)
        return inputError("cluster tables need an explicit graph; volume graphs (implicit "
                          "26-connected voxels) are not supported");
    const size_t n = g.nodeCount();
    if (n == 0) return inputError("the graph has no nodes to cluster");
    if (params.clusters == 0 && params.cluster_size == 0)
        return makeError(ErrorKind::usage, "--cluster-size must be at least 1");
    if (params.clusters > n)
        return makeError(ErrorKind::usage, "--clusters {} exceeds the graph's {} nodes",
                         params.clusters, n);
    ScopedTimer timer(context, "cluster");
    Clusters out;
    uint32_t count = 0;
    if (params.method == ClusterParams::grid) {
        if (h.type == graph::GraphType::navmesh) {
            // The navmesh's regions are the initial partition.
            if (params.clusters > 0)
                context.warn("navmesh graphs: grid clusters are the mesh's regions; --clusters is "
                             "ignored");
            count = splitConnected(g, g.mesh.poly_regions, out.node_clusters);
        } else {
            const auto xz = nodeColumns(g);
            uint32_t size = std::max<uint32_t>(1, params.cluster_size);
            if (params.clusters > 0) {
                // The smallest block edge giving at most the requested count.
                uint32_t lo = 1, hi = std::max({h.size_x, h.size_z, 1u});
                while (lo < hi) {
                    const uint32_t mid = lo + (hi - lo) / 2;
                    std::vector<uint32_t> trial;
                    if (gridPartition(g, xz, mid, trial) <= params.clusters) hi = mid;
                    else lo = mid + 1;
                }
                size = lo;
            }
            out.header.cluster_size = size;
            count = gridPartition(g, xz, size, out.node_clusters);
        }
    } else {
        const double per = double(params.cluster_size) * params.cluster_size;
        const uint32_t seeds = params.clusters > 0
                                   ? params.clusters
                                   : uint32_t(std::clamp(std::round(double(n) / per), 1.0, double(n)));
        out.header.cluster_size = params.cluster_size;
        count = splitConnected(g, regionLabels(g, seeds, context), out.node_clusters);
    }
    if (count > formats::kMaxClusters)
        return makeError(ErrorKind::usage,
                         "{} clusters exceed the limit of {} (a table of {} MiB); use a larger "
                         "--cluster-size or fewer --clusters",
                         count, formats::kMaxClusters,
                         (uint64_t(formats::kMaxClusters) * formats::kMaxClusters * 2) >> 20);
    std::vector<double> exact = exactTable(g, out.node_clusters, count, params.threads, context);
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "clustering cancelled");
    if (exact.empty()) return makeError(ErrorKind::internal, "cluster table failed");

    // Quantize down: q = floor(cost / scale) <= 65534, so q * scale never exceeds the cost.
    double max_cost = 0;
    uint32_t unreachable = 0;
    for (double c : exact) {
        if (std::isfinite(c)) max_cost = std::max(max_cost, c);
        else ++unreachable;
    }
    constexpr double kMaxUnits = formats::kClusterUnreachable - 1;
    float scale = max_cost > 0 ? float(max_cost / kMaxUnits) : 1.0f;
    if (double(scale) * kMaxUnits < max_cost) scale = std::nextafter(scale, 2 * scale + 1);
    if (!(scale > 0)) scale = std::numeric_limits<float>::min();
    out.table.resize(exact.size());
    for (size_t i = 0; i < exact.size(); ++i) {
        if (!std::isfinite(exact[i])) {
            out.table[i] = formats::kClusterUnreachable;
            continue;
        }
        double q = std::min(std::floor(exact[i] / double(scale)), kMaxUnits);
        while (q > 0 && q * double(scale) > exact[i]) q -= 1;
        out.table[i] = uint16_t(q);
    }
    out.max_cost = max_cost;
    out.cluster_nodes.assign(count, 0);
    for (uint32_t c : out.node_clusters) ++out.cluster_nodes[c];
    formats::ClusterHeader& ch = out.header;
    ch.method = params.method == ClusterParams::grid ? formats::ClusterMethod::grid
                                                     : formats::ClusterMethod::regions;
    ch.cluster_count = count;
    ch.node_count = uint32_t(n);
    ch.edge_count = uint32_t(g.edgeCount());
    ch.requested_clusters = params.clusters;
    ch.scale = scale;
    ch.min_cluster_nodes = *std::min_element(out.cluster_nodes.begin(), out.cluster_nodes.end());
    ch.max_cluster_nodes = *std::max_element(out.cluster_nodes.begin(), out.cluster_nodes.end());
    ch.unreachable_pairs = unreachable;
    ch.graph_fingerprint = graph::graphFingerprint(g);
    ch.flags = symmetric(g) ? formats::kClusterFlagSymmetric : 0;
    return out;
}

void addClusterSections(formats::ContainerWriter& writer, const Clusters& c) {
    std::vector<uint8_t> header(formats::kClusterHeaderSize);
    formats::encodeClusterHeader(c.header, header.data());
    writer.add(formats::kSecClusterHeader, std::move(header), formats::Codec::raw);
    writer.add(formats::kSecNodeClusters, arrayBytes(c.node_clusters));
    writer.add(formats::kSecClusterTable, arrayBytes(c.table));
}

Status saveClusters(const std::filesystem::path& path, const Clusters& c) {
    formats::ContainerWriter writer(formats::kKindClusters, formats::kClustersVersion);
    writer.setCompressionLevel(19);
    addClusterSections(writer, c);
    return saveContainer(path, writer);
}

Result<Clusters> decodeClusters(const LoadedContainer& container) {
    const std::string file = container.path.string();
    Clusters out;
    auto header = container.section(formats::kSecClusterHeader);
    if (!header) return header.error();
    if (formats::Error e = formats::decodeClusterHeader(header->data(), header->size(), out.header))
        return containerError(container.path, e);
    const formats::ClusterHeader& h = out.header;
    auto nodes = container.section(formats::kSecNodeClusters);
    if (!nodes) return nodes.error();
    if (nodes->size() != size_t(h.node_count) * 4)
        return inputError("{}: section 'CLND' holds {} bytes, expected {} for {} nodes", file,
                          nodes->size(), size_t(h.node_count) * 4, h.node_count);
    out.node_clusters.resize(h.node_count);
    if (h.node_count > 0) std::memcpy(out.node_clusters.data(), nodes->data(), nodes->size());
    out.cluster_nodes.assign(h.cluster_count, 0);
    for (size_t v = 0; v < out.node_clusters.size(); ++v) {
        if (out.node_clusters[v] >= h.cluster_count)
            return inputError("{}: section 'CLND': node {} is in cluster {}, only {} exist", file, v,
                              out.node_clusters[v], h.cluster_count);
        ++out.cluster_nodes[out.node_clusters[v]];
    }
    auto table = container.section(formats::kSecClusterTable);
    if (!table) return table.error();
    const size_t entries = size_t(h.cluster_count) * h.cluster_count;
    if (table->size() != entries * 2)
        return inputError("{}: section 'CLTB' holds {} bytes, expected {} for {} clusters", file,
                          table->size(), entries * 2, h.cluster_count);
    out.table.resize(entries);
    if (entries > 0) std::memcpy(out.table.data(), table->data(), table->size());
    for (uint32_t a = 0; a < h.cluster_count; ++a) {
        if (out.cluster_nodes[a] == 0)
            return inputError("{}: section 'CLND': cluster {} has no nodes", file, a);
        if (out.table[size_t(a) * h.cluster_count + a] != 0)
            return inputError("{}: section 'CLTB': cluster {} to itself is not 0", file, a);
    }
    for (uint16_t q : out.table)
        if (q != formats::kClusterUnreachable)
            out.max_cost = std::max(out.max_cost, double(q) * double(h.scale));
    return out;
}

Result<Clusters> loadClusters(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindClusters, formats::kClustersVersion);
    if (!container) return container.error();
    return decodeClusters(*container);
}

Status checkMatches(const Clusters& c, const std::filesystem::path& clusters_path,
                    const graph::Graph& g, const std::filesystem::path& graph_path) {
    const uint64_t fingerprint = graph::graphFingerprint(g);
    if (c.header.node_count != g.nodeCount() || c.header.graph_fingerprint != fingerprint)
        return inputError("{} was built for another graph ({} nodes, fingerprint {:016x}) than {} "
                          "({} nodes, fingerprint {:016x}); rebuild it with 'navbake cluster {}'",
                          clusters_path.string(), c.header.node_count, c.header.graph_fingerprint,
                          graph_path.string(), g.nodeCount(), fingerprint, graph_path.string());
    return {};
}

}  // namespace nav::cluster
