#include "lib/cluster/hierarchy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>
#include <thread>

#include "formats/bytes.h"
#include "formats/xxhash64.h"
#include "lib/common/csr.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"

namespace nav::cluster {
namespace {

using formats::arrayBytes;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = 0xFFFFFFFFu;

// One abstract level under construction: the group of every node (local ids) and the groups'
// adjacency (sorted, unique).
struct Level {
    uint32_t count = 0;
    std::vector<uint32_t> node_group;
    std::vector<uint32_t> offsets, targets;  // local ids
    std::vector<uint32_t> reps;              // representative node per group
};

void levelAdjacency(const graph::Graph& g, Level& level) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t u = 0; u + 1 < g.edge_offsets.size(); ++u)
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
            const uint32_t a = level.node_group[u], b = level.node_group[g.edge_targets[e]];
            if (a != b) pairs.push_back({a, b});
        }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    csrBuild<uint32_t>(
        level.count,
        [&](auto&& emit) {
            for (const auto& [a, b] : pairs) emit(a, b);
        },
        level.offsets, level.targets);
}

// The node of each group closest to the group's centroid (lowest id on ties).
void levelRepresentatives(const graph::Graph& g, Level& level) {
    std::vector<double> sum(size_t(level.count) * 3, 0.0);
    std::vector<uint32_t> size(level.count, 0);
    const size_t n = g.nodeCount();
    for (size_t v = 0; v < n; ++v) {
        const uint32_t c = level.node_group[v];
        for (int k = 0; k < 3; ++k) sum[3 * c + k] += g.positions[3 * v + k];
        ++size[c];
    }
    std::vector<double> best(level.count, kInf);
    level.reps.assign(level.count, kNone);
    for (size_t v = 0; v < n; ++v) {
        const uint32_t c = level.node_group[v];
        double d = 0;
        for (int k = 0; k < 3; ++k) {
            const double delta = g.positions[3 * v + k] - sum[3 * c + k] / size[c];
            d += delta * delta;
        }
        if (d < best[c]) {
            best[c] = d;
            level.reps[c] = uint32_t(v);
        }
    }
}

double repDistance(const graph::Graph& g, uint32_t a, uint32_t b) {
    double d = 0;
    for (int k = 0; k < 3; ++k) {
        const double delta =
            double(g.positions[3 * size_t(a) + k]) - g.positions[3 * size_t(b) + k];
        d += delta * delta;
    }
    return std::sqrt(d);
}

// Groups the groups of `below` into about count / fanout parents: seeds in id order absorb the
// nearest (by representative distance) unassigned neighbours reachable through already absorbed
// ones until a parent holds `fanout` children; a parent left with a single child joins the
// smallest neighbouring parent. Parents are connected and numbered by their lowest child.
std::vector<uint32_t> groupLevel(const graph::Graph& g, const Level& below, uint32_t fanout) {
    const uint32_t count = below.count;
    std::vector<uint32_t> parent(count, kNone);
    std::vector<uint32_t> sizes;
    using Item = std::pair<double, uint32_t>;
    for (uint32_t seed = 0; seed < count; ++seed) {
        if (parent[seed] != kNone) continue;
        const uint32_t id = uint32_t(sizes.size());
        sizes.push_back(0);
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> frontier;
        frontier.push({0.0, seed});
        while (!frontier.empty() && sizes[id] < fanout) {
            const uint32_t c = frontier.top().second;
            frontier.pop();
            if (parent[c] != kNone) continue;
            parent[c] = id;
            ++sizes[id];
            for (uint32_t e = below.offsets[c]; e < below.offsets[c + 1]; ++e) {
                const uint32_t d = below.targets[e];
                if (parent[d] == kNone)
                    frontier.push({repDistance(g, below.reps[seed], below.reps[d]), d});
            }
        }
    }
    // Singletons join their smallest neighbouring parent (lowest id on ties).
    for (uint32_t c = 0; c < count; ++c) {
        if (sizes[parent[c]] != 1) continue;
        uint32_t best = kNone;
        for (uint32_t e = below.offsets[c]; e < below.offsets[c + 1]; ++e) {
            const uint32_t p = parent[below.targets[e]];
            if (p == parent[c]) continue;
            if (best == kNone || sizes[p] < sizes[best] || (sizes[p] == sizes[best] && p < best))
                best = p;
        }
        if (best == kNone) continue;
        --sizes[parent[c]];
        parent[c] = best;
        ++sizes[best];
    }
    // Renumber by lowest child.
    std::vector<uint32_t> renumber(sizes.size(), kNone);
    uint32_t next = 0;
    for (uint32_t c = 0; c < count; ++c) {
        if (renumber[parent[c]] == kNone) renumber[parent[c]] = next++;
        parent[c] = renumber[parent[c]];
    }
    return parent;
}

// The three 4.6.1 costs of every abstract edge A -> B of `level` (in its CSR order): min = the
// cheapest graph edge from A to B; for each entry node x of A (a node some edge from outside A
// enters), d(x) = the cheapest path inside A from x out to B (exit edge included); maximin = the
// largest, avgmin = the mean d(x) over entries reaching B (A without entries: d at its
// representative; none reaching B: min).
Status levelCosts(const graph::Graph& g, const CsrGraph<float>& reverse, const Level& level,
                  int threads, Context& context, std::vector<float>& costs) {
    costs.assign(size_t(level.targets.size()) * 3, 0.0f);
    std::vector<uint32_t> offsets, members;
    groupElements(level.node_group, level.count, offsets, members);
    uint64_t progress = 0;
    return runParallel(
        "hierarchy costs", level.count, threads, context, progress, level.count, [&](size_t task) {
            if (context.cancelled()) throw StageCancelled{};
            thread_local Dijkstra<double> search;  // many small searches: touched-list reset
            const uint32_t a = uint32_t(task);
            const uint32_t* label = level.node_group.data();
            std::vector<uint32_t> entries;
            for (uint32_t i = offsets[a]; i < offsets[a + 1]; ++i) {
                const uint32_t x = members[i];
                for (uint32_t e = reverse.offsets[x]; e < reverse.offsets[x + 1]; ++e)
                    if (label[reverse.targets[e]] != a) {
                        entries.push_back(x);
                        break;
                    }
            }
            if (entries.empty()) entries.push_back(level.reps[a]);
            for (uint32_t k = level.offsets[a]; k < level.offsets[a + 1]; ++k) {
                const uint32_t b = level.targets[k];
                std::vector<std::pair<uint32_t, double>> exits;
                double min_edge = kInf;
                for (uint32_t i = offsets[a]; i < offsets[a + 1]; ++i) {
                    const uint32_t u = members[i];
                    double best = kInf;
                    for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
                        if (label[g.edge_targets[e]] == b)
                            best = std::min(best, double(g.edge_costs[e]));
                    if (best < kInf) exits.push_back({u, best});
                    min_edge = std::min(min_edge, best);
                }
                // Backwards from the exits (at their exit edge's cost), inside A.
                search.reset(g.nodeCount());
                for (const auto& [u, cost] : exits) search.addSource(u, cost);
                search.run(reverse, SameLabel{label, a});
                double worst = 0, sum = 0;
                uint32_t reached = 0;
                for (uint32_t x : entries) {
                    const double d = search.dist(x);
                    if (d == kInf) continue;
                    worst = std::max(worst, d);
                    sum += d;
                    ++reached;
                }
                float* out = costs.data() + 3 * size_t(k);
                out[0] = float(min_edge);
                out[1] = reached > 0 ? float(worst) : float(min_edge);
                out[2] = reached > 0 ? float(sum / reached) : float(min_edge);
            }
        });
}

// Entrance nodes (HPA*): per cluster A and neighbour B, the nodes of A with an edge into B form
// stretches (connected through A's edges); each stretch gives one transition (the node nearest
// its centroid) or, above 5 nodes, two (the node farthest from the centroid and the node farthest
// from that one), each with its cheapest edge into B; both ends become entrances. With spacing
// S > 0 a stretch of more than 2 nodes gives its two ends and every S-th node in order of
// distance from the first end (stopping S / 2 before the other end).
std::vector<uint8_t> sparseEntrances(const graph::Graph& g, const std::vector<uint32_t>& cluster,
                                     uint32_t count, const std::vector<uint32_t>& offsets,
                                     const std::vector<uint32_t>& members, uint32_t spacing) {
    const size_t n = g.nodeCount();
    std::vector<uint8_t> mark(n, 0);
    std::vector<uint32_t> in_set(n, kNone);  // stamp: (neighbour cluster) the node borders now
    std::vector<uint32_t> seen(n, kNone);
    std::vector<uint32_t> neighbours, stretch, stack;
    auto pos = [&](uint32_t v, int k) { return double(g.positions[3 * size_t(v) + k]); };
    for (uint32_t a = 0; a < count; ++a) {
        neighbours.clear();
        for (uint32_t i = offsets[a]; i < offsets[a + 1]; ++i) {
            const uint32_t u = members[i];
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
                if (cluster[g.edge_targets[e]] != a)
                    neighbours.push_back(cluster[g.edge_targets[e]]);
        }
        std::sort(neighbours.begin(), neighbours.end());
        neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
        for (uint32_t b : neighbours) {
            // Border set of A towards B; stamp with a unique key per (a, b).
            const uint32_t key = b;
            std::vector<uint32_t> border;
            for (uint32_t i = offsets[a]; i < offsets[a + 1]; ++i) {
                const uint32_t u = members[i];
                for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
                    if (cluster[g.edge_targets[e]] == b) {
                        border.push_back(u);
                        in_set[u] = key;
                        seen[u] = kNone;
                        break;
                    }
            }
            for (uint32_t s : border) {
                if (seen[s] != kNone) continue;
                stretch.clear();
                stack.push_back(s);
                seen[s] = s;
                while (!stack.empty()) {
                    const uint32_t u = stack.back();
                    stack.pop_back();
                    stretch.push_back(u);
                    for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                        const uint32_t w = g.edge_targets[e];
                        if (in_set[w] == key && cluster[w] == a && seen[w] == kNone) {
                            seen[w] = s;
                            stack.push_back(w);
                        }
                    }
                }
                std::sort(stretch.begin(), stretch.end());
                double centre[3] = {0, 0, 0};
                for (uint32_t u : stretch)
                    for (int k = 0; k < 3; ++k) centre[k] += pos(u, k) / double(stretch.size());
                auto farthest = [&](const double* from, bool nearest) {
                    uint32_t best = stretch[0];
                    double best_d = nearest ? kInf : -1.0;
                    for (uint32_t u : stretch) {
                        double d = 0;
                        for (int k = 0; k < 3; ++k)
                            d += (pos(u, k) - from[k]) * (pos(u, k) - from[k]);
                        if (nearest ? d < best_d : d > best_d) {
                            best_d = d;
                            best = u;
                        }
                    }
                    return best;
                };
                std::vector<uint32_t> picks;
                // HPA* gives a stretch of up to 5 nodes one transition; with spacing, one of
                // more than 2 nodes gets both ends (a path through a doorway then keeps to
                // its side instead of the middle: ht_chantry 2.5 % -> 1.1 % above optimal).
                if (stretch.size() <= (spacing > 0 ? 2u : 5u)) {
                    picks.push_back(farthest(centre, true));
                } else {
                    picks.push_back(farthest(centre, false));
                    const double p[3] = {pos(picks[0], 0), pos(picks[0], 1), pos(picks[0], 2)};
                    picks.push_back(farthest(p, false));
                    if (spacing > 0) {
                        std::vector<std::pair<double, uint32_t>> order;
                        for (uint32_t u : stretch) {
                            double d = 0;
                            for (int k = 0; k < 3; ++k)
                                d += (pos(u, k) - p[k]) * (pos(u, k) - p[k]);
                            order.push_back({d, u});
                        }
                        std::sort(order.begin(), order.end());
                        for (size_t i = spacing; i + spacing / 2 < order.size(); i += spacing)
                            picks.push_back(order[i].second);
                    }
                }
                for (uint32_t u : picks) {
                    if (u == kNone) continue;
                    uint32_t target = kNone;
                    float cost = 0;
                    for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                        const uint32_t w = g.edge_targets[e];
                        if (cluster[w] != b) continue;
                        if (target == kNone || g.edge_costs[e] < cost ||
                            (g.edge_costs[e] == cost && w < target)) {
                            target = w;
                            cost = g.edge_costs[e];
                        }
                    }
                    mark[u] = 1;
                    mark[target] = 1;
                }
            }
            for (uint32_t u : border) in_set[u] = kNone;
        }
    }
    return mark;
}

// Entrance edges: from each entrance x of cluster C, the exact distance inside C to every other
// entrance of C, and every graph edge from x to an entrance of another cluster.
Status entranceEdges(const graph::Graph& g, const CsrGraph<float>& forward,
                     const std::vector<uint32_t>& cluster, Hierarchy& h, int threads,
                     Context& context) {
    const size_t n = g.nodeCount();
    const uint32_t count = h.header.cluster_count;
    std::vector<uint32_t> index(n, kNone);
    for (uint32_t i = 0; i < h.entrances.size(); ++i) index[h.entrances[i]] = i;
    std::vector<std::vector<std::pair<uint32_t, float>>> edges(h.entrances.size());
    uint64_t progress = 0;
    Status s =
        runParallel("entrance graph", count, threads, context, progress, count, [&](size_t task) {
            if (context.cancelled()) throw StageCancelled{};
            thread_local Dijkstra<double> search;  // many small searches: touched-list reset
            const uint32_t c = uint32_t(task);
            const uint32_t first = h.entrance_offsets[c], m = h.entrance_offsets[c + 1] - first;
            std::vector<double> dist(size_t(m) * m);  // [i * m + j]: entrance i to entrance j
            for (uint32_t i = 0; i < m; ++i) {
                search.reset(n);
                search.addSource(h.entrances[first + i]);
                search.run(forward, SameLabel{cluster.data(), c});
                for (uint32_t j = 0; j < m; ++j)
                    dist[size_t(i) * m + j] = search.dist(h.entrances[first + j]);
            }
            for (uint32_t i = first; i < first + m; ++i) {
                const uint32_t x = h.entrances[i];
                auto& out = edges[i];
                const double* row = dist.data() + size_t(i - first) * m;
                for (uint32_t j = 0; j < m; ++j) {
                    const double d = row[j];
                    if (j == i - first || !(d < kInf)) continue;
                    // Dominated: another entrance z lies on a shortest path (ties within 1e-9),
                    // so x -> z -> y keeps the cost and this edge only widens the search.
                    bool dominated = false;
                    for (uint32_t z = 0; z < m && !dominated; ++z)
                        dominated = z != j && z != i - first && row[z] > 0 &&
                                    dist[size_t(z) * m + j] > 0 &&
                                    row[z] + dist[size_t(z) * m + j] <= d * (1 + 1e-9);
                    if (!dominated) out.push_back({first + j, float(d)});
                }
                for (uint32_t e = g.edge_offsets[x]; e < g.edge_offsets[x + 1]; ++e) {
                    const uint32_t w = g.edge_targets[e];
                    if (cluster[w] != c && index[w] != kNone)
                        out.push_back({index[w], g.edge_costs[e]});
                }
                std::sort(out.begin(), out.end());
            }
        });
    if (!s) return s;
    h.entrance_edge_offsets.assign(h.entrances.size() + 1, 0);
    for (size_t i = 0; i < edges.size(); ++i) {
        h.entrance_edge_offsets[i + 1] = h.entrance_edge_offsets[i] + uint32_t(edges[i].size());
        for (const auto& [target, cost] : edges[i]) {
            h.entrance_edge_targets.push_back(target);
            h.entrance_edge_costs.push_back(cost);
        }
    }
    return {};
}

// Entrance distance tables: per cluster, one backward search inside it from each entrance gives
// every member's cost to that entrance.
Status entranceTables(const CsrGraph<float>& reverse, const std::vector<uint32_t>& cluster,
                      Hierarchy& h, int threads, Context& context) {
    const size_t n = cluster.size();
    const uint32_t count = h.header.cluster_count;
    const auto& mo = h.member_offsets;
    const auto& eo = h.entrance_offsets;
    h.table_local.assign(n, 0);
    h.table_offsets.assign(size_t(count) + 1, 0);
    for (uint32_t c = 0; c < count; ++c) {
        for (uint32_t i = mo[c]; i < mo[c + 1]; ++i) h.table_local[h.members[i]] = i - mo[c];
        h.table_offsets[c + 1] =
            h.table_offsets[c] + uint64_t(mo[c + 1] - mo[c]) * (eo[c + 1] - eo[c]);
    }
    h.table.assign(h.table_offsets[count], float(kInf));
    uint64_t progress = 0;
    return runParallel("entrance tables", count, threads, context, progress, count,
                       [&](size_t task) {
                           if (context.cancelled()) throw StageCancelled{};
                           thread_local Dijkstra<double> search;
                           const uint32_t c = uint32_t(task);
                           const uint32_t m = eo[c + 1] - eo[c];
                           float* block = h.table.data() + h.table_offsets[c];
                           for (uint32_t j = 0; j < m; ++j) {
                               search.reset(n);
                               search.addSource(h.entrances[eo[c] + j]);
                               search.run(reverse, SameLabel{cluster.data(), c});
                               for (uint32_t i = mo[c]; i < mo[c + 1]; ++i) {
                                   const double d = search.dist(h.members[i]);
                                   if (d < kInf) block[uint64_t(i - mo[c]) * m + j] = float(d);
                               }
                           }
                       });
}

// Group costs of manual clusters: every abstract edge of level 1 (its clusters) from a cluster of
// room `from` to one of room `to` takes the designer's cost as all three of its costs.
void applyGroupCosts(const Clusters& clusters, const Level& level, std::vector<float>& costs,
                     Hierarchy& h) {
    for (const RoomGroupCost& cost : clusters.group_costs) {
        uint32_t edges = 0;
        for (uint32_t a = 0; a < level.count; ++a) {
            if (clusters.cluster_rooms[a] != cost.from) continue;
            for (uint32_t k = level.offsets[a]; k < level.offsets[a + 1]; ++k) {
                if (clusters.cluster_rooms[level.targets[k]] != cost.to) continue;
                std::fill_n(costs.begin() + 3 * ptrdiff_t(k), 3, cost.cost);
                ++edges;
            }
        }
        h.room_cost_edges += edges;
        if (edges == 0)
            h.warnings.push_back(fmt::format(
                "group cost from room '{}' to room '{}' ({}) not applied: no edge leads from one "
                "to the other (the rooms are not adjacent)",
                clusters.rooms[cost.from].name, clusters.rooms[cost.to].name, cost.where));
    }
}

}  // namespace

uint32_t Hierarchy::levelStart(uint32_t level) const {
    uint32_t start = 0;
    for (uint32_t l = 1; l < level && l <= group_counts.size(); ++l) start += group_counts[l - 1];
    return start;
}

uint64_t clustersFingerprint(const Clusters& clusters) {
    const std::vector<uint8_t> bytes = arrayBytes(clusters.node_clusters);
    return formats::xxhash64(bytes.data(), bytes.size(), 0);
}

Result<Hierarchy> buildHierarchy(const graph::Graph& g, const Clusters& clusters,
                                 const HierarchyParams& params, Context& context) {
    if (Status s = paramError("hierarchy parameters", checkHierarchyParams(params)); !s)
        return s.error();
    const size_t n = g.nodeCount();
    if (clusters.node_clusters.size() != n || n == 0)
        return inputError("the clusters hold {} nodes, the graph {}", clusters.node_clusters.size(),
                          n);
    ScopedTimer timer(context, "hierarchy");
    const int threads = resolveThreads(params.threads);
    const CsrGraph<float> forward{g.edge_offsets, g.edge_targets, g.edge_costs};
    const CsrEdges<float> reversed =
        reverseEdges<float>(g.edge_offsets, g.edge_targets, g.edge_costs);
    const CsrGraph<float> reverse{reversed.offsets, reversed.targets, reversed.costs};

    // Levels: 1 = clusters, then grouping until few groups remain (or `levels` are built).
    std::vector<Level> levels(1);
    levels[0].count = clusters.count();
    levels[0].node_group = clusters.node_clusters;
    uint32_t room_representatives = 0;
    for (;;) {
        Level& top = levels.back();
        levelAdjacency(g, top);
        levelRepresentatives(g, top);
        // Manual rooms: a designer's representative replaces the centroid's (before grouping,
        // which measures distances between representatives).
        if (levels.size() == 1)
            for (const ClusterRoom& room : clusters.rooms)
                if (room.representative != graph::kNoNode) {
                    top.reps[clusters.node_clusters[room.representative]] = room.representative;
                    ++room_representatives;
                }
        const bool enough =
            params.levels > 0 ? levels.size() >= params.levels : top.count < kTopGroups;
        if (enough || levels.size() >= formats::kMaxHierLevels) break;
        std::vector<uint32_t> parent = groupLevel(g, top, params.fanout);
        const uint32_t parents =
            parent.empty() ? 0 : *std::max_element(parent.begin(), parent.end()) + 1;
        if (parents >= top.count) {
            if (params.levels > 0)
                context.warn(
                    "only {} hierarchy levels: the {} groups of level {} do not merge "
                    "further (disconnected parts)",
                    levels.size(), top.count, levels.size());
            break;
        }
        Level next;
        next.count = parents;
        next.node_group.resize(n);
        for (size_t v = 0; v < n; ++v) next.node_group[v] = parent[top.node_group[v]];
        levels.push_back(std::move(next));
    }
    const uint32_t level_count = uint32_t(levels.size());

    Hierarchy h;
    h.room_representatives = room_representatives;
    formats::HierarchyHeader& hh = h.header;
    hh.level_count = level_count;
    hh.node_count = uint32_t(n);
    hh.cluster_count = clusters.count();
    hh.default_cost = params.cost;
    hh.entrance_mode = params.entrances;
    hh.group_fanout = params.fanout;
    hh.graph_fingerprint = graph::graphFingerprint(g);
    hh.clusters_fingerprint = clustersFingerprint(clusters);
    std::vector<uint32_t> starts(level_count + 1, 0);
    for (uint32_t l = 0; l < level_count; ++l) {
        h.group_counts.push_back(levels[l].count);
        starts[l + 1] = starts[l] + levels[l].count;
    }
    hh.group_count = starts[level_count];
    // Parents: the level above's group of any node of the group (the representative's).
    for (uint32_t l = 0; l + 1 < level_count; ++l)
        for (uint32_t c = 0; c < levels[l].count; ++c)
            h.parents.push_back(starts[l + 1] + levels[l + 1].node_group[levels[l].reps[c]]);
    h.edge_offsets.push_back(0);
    for (uint32_t l = 0; l < level_count; ++l) {
        const Level& level = levels[l];
        std::vector<float> costs;
        if (Status s = levelCosts(g, reverse, level, threads, context, costs); !s) return s.error();
        if (l == 0) applyGroupCosts(clusters, level, costs, h);
        for (uint32_t c = 0; c < level.count; ++c) {
            h.representatives.push_back(level.reps[c]);
            h.edge_offsets.push_back(h.edge_offsets.back() + level.offsets[c + 1] -
                                     level.offsets[c]);
        }
        for (uint32_t t : level.targets) h.edge_targets.push_back(starts[l] + t);
        h.edge_costs.insert(h.edge_costs.end(), costs.begin(), costs.end());
        context.progress("hierarchy levels", l + 1, level_count);
    }
    hh.abstract_edge_count = uint32_t(h.edge_targets.size());

    // Members and entrances of the clusters.
    groupElements(clusters.node_clusters, hh.cluster_count, h.member_offsets, h.members);
    std::vector<uint8_t> mark;
    // Sparse entrances (one or two per border stretch) keep every connection only when each
    // edge has a reverse: a stretch is then strongly connected, so reaching one of its nodes
    // reaches them all. On directed graphs (one-way edges, links) every border node is an
    // entrance, which keeps HPA* complete and, as with `all`, exact.
    if (params.entrances == formats::EntranceMode::sparse &&
        graph::edgeSymmetry(g) == graph::Symmetry::directed) {
        hh.entrance_mode = formats::EntranceMode::all;
        context.info(
            "hierarchy: the graph has one-way edges; every border node is an entrance "
            "(sparse entrances need edges both ways)");
    }
    if (hh.entrance_mode == formats::EntranceMode::all) {
        mark.assign(n, 0);
        for (uint32_t u = 0; u < n; ++u)
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t w = g.edge_targets[e];
                if (clusters.node_clusters[w] != clusters.node_clusters[u]) mark[u] = mark[w] = 1;
            }
    } else {
        mark = sparseEntrances(g, clusters.node_clusters, hh.cluster_count, h.member_offsets,
                               h.members, params.spacing);
    }
    h.entrance_offsets.assign(size_t(hh.cluster_count) + 1, 0);
    for (uint32_t c = 0; c < hh.cluster_count; ++c) {
        for (uint32_t i = h.member_offsets[c]; i < h.member_offsets[c + 1]; ++i)
            if (mark[h.members[i]]) h.entrances.push_back(h.members[i]);
        h.entrance_offsets[c + 1] = uint32_t(h.entrances.size());
    }
    hh.entrance_count = uint32_t(h.entrances.size());
    if (Status s = entranceEdges(g, forward, clusters.node_clusters, h, threads, context); !s)
        return s.error();
    hh.entrance_edge_count = uint32_t(h.entrance_edge_targets.size());
    if (params.tables)
        if (Status s = entranceTables(reverse, clusters.node_clusters, h, threads, context); !s)
            return s.error();
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "hierarchy cancelled");
    return h;
}

void addHierarchySections(formats::ContainerWriter& writer, const Hierarchy& h) {
    std::vector<uint8_t> header(formats::kHierarchyHeaderSize);
    formats::encodeHierarchyHeader(h.header, header.data());
    writer.add(formats::kSecHierHeader, std::move(header), formats::Codec::raw);
    using formats::Codec;
    const std::pair<const std::vector<uint32_t>*, Codec> u32s[] = {
        {&h.group_counts, Codec::zstd},
        {&h.parents, Codec::zstd},
        {&h.representatives, Codec::zstd},
        {&h.edge_offsets, Codec::zstd_delta32},
        {&h.edge_targets, Codec::zstd},
        {nullptr, Codec::zstd},
        {&h.member_offsets, Codec::zstd_delta32},
        {&h.members, Codec::zstd},
        {&h.entrance_offsets, Codec::zstd_delta32},
        {&h.entrances, Codec::zstd},
        {&h.entrance_edge_offsets, Codec::zstd_delta32},
        {&h.entrance_edge_targets, Codec::zstd},
        {nullptr, Codec::zstd}};
    for (uint32_t s = 0; s < formats::kHierSectionCount; ++s) {
        std::vector<uint8_t> bytes;
        if (s == formats::kHierEdgeCosts)
            bytes = arrayBytes(h.edge_costs);
        else if (s == formats::kHierEntranceEdgeCosts)
            bytes = arrayBytes(h.entrance_edge_costs);
        else
            bytes = arrayBytes(*u32s[s].first);
        writer.add(formats::kHierSectionIds[s], std::move(bytes), u32s[s].second);
    }
    if (!h.table_local.empty()) {
        writer.add(formats::kSecHierTableLocal, arrayBytes(h.table_local), Codec::zstd);
        writer.add(formats::kSecHierTableOffsets, arrayBytes(h.table_offsets), Codec::zstd);
        // zstd level 9: floats gain little from 19, which took seconds on den520d.
        writer.add(formats::kSecHierTableDistances, arrayBytes(h.table), Codec::zstd, 9);
    }
}

Status saveHierarchy(const std::filesystem::path& path, const Hierarchy& h) {
    return saveTableContainer(
        path, formats::kKindHierarchy, formats::kHierarchyVersion,
        [&](formats::ContainerWriter& writer) { addHierarchySections(writer, h); });
}

Result<Hierarchy> loadHierarchy(const std::filesystem::path& path, const Clusters& clusters,
                                const std::filesystem::path& clusters_path) {
    auto container = loadContainer(path, formats::kKindHierarchy, formats::kHierarchyVersion);
    if (!container) return container.error();
    const std::string file = path.string();
    Hierarchy h;
    if (Status s =
            container->header(formats::kSecHierHeader, formats::decodeHierarchyHeader, h.header);
        !s)
        return s.error();
    if (h.header.node_count != clusters.node_clusters.size() ||
        h.header.cluster_count != clusters.count() ||
        h.header.clusters_fingerprint != clustersFingerprint(clusters) ||
        h.header.graph_fingerprint != clusters.header.graph_fingerprint)
        return inputError(
            "{} was built on other clusters ({} nodes, {} clusters, fingerprint "
            "{:016x}) than {} ({} nodes, {} clusters, fingerprint {:016x}); rebuild "
            "it with 'navbake hierarchy GRAPH --clusters {}'",
            file, h.header.node_count, h.header.cluster_count, h.header.clusters_fingerprint,
            clusters_path.string(), clusters.node_clusters.size(), clusters.count(),
            clustersFingerprint(clusters), clusters_path.string());
    std::vector<std::vector<uint8_t>> bytes(formats::kHierSectionCount);
    formats::HierarchyArrays arrays;
    arrays.header = h.header;
    for (uint32_t s = 0; s < formats::kHierSectionCount; ++s) {
        auto section = container->section(formats::kHierSectionIds[s]);
        if (!section) return section.error();
        bytes[s] = std::move(*section);
        static const uint8_t kEmpty[4] = {0, 0, 0, 0};
        arrays.data[s] = bytes[s].empty() ? kEmpty : bytes[s].data();
        arrays.size[s] = bytes[s].size();
    }
    if (formats::Error e = formats::checkHierarchy(arrays, clusters.node_clusters.data()))
        return containerError(path, e);
    // The optional entrance distance tables: all three sections or none.
    std::vector<uint8_t> tables[3];
    const uint32_t table_ids[3] = {formats::kSecHierTableLocal, formats::kSecHierTableOffsets,
                                   formats::kSecHierTableDistances};
    int present = 0;
    for (int i = 0; i < 3; ++i)
        if (container->has(table_ids[i])) {
            auto section = container->section(table_ids[i]);
            if (!section) return section.error();
            tables[i] = std::move(*section);
            ++present;
        }
    if (present != 0 && present != 3)
        return inputError("{}: the entrance distance tables need all of 'HTLI', 'HTOF' and 'HTDN'",
                          file);
    if (present == 3) {
        static const uint8_t kEmpty[8] = {};
        auto bytesOf = [&](int i) { return tables[i].empty() ? kEmpty : tables[i].data(); };
        if (formats::Error e =
                formats::checkHierarchyTables(arrays, bytesOf(0), tables[0].size(), bytesOf(1),
                                              tables[1].size(), bytesOf(2), tables[2].size()))
            return containerError(path, e);
        auto copyBytes = [](const std::vector<uint8_t>& from, auto& out) {
            out.resize(from.size() / sizeof(out[0]));
            if (!out.empty()) std::memcpy(out.data(), from.data(), from.size());
        };
        copyBytes(tables[0], h.table_local);
        copyBytes(tables[1], h.table_offsets);
        copyBytes(tables[2], h.table);
    }
    auto copy = [&](uint32_t s, auto& out) {
        out.resize(bytes[s].size() / 4);
        if (!out.empty()) std::memcpy(out.data(), bytes[s].data(), bytes[s].size());
    };
    copy(formats::kHierGroupCounts, h.group_counts);
    copy(formats::kHierParents, h.parents);
    copy(formats::kHierRepresentatives, h.representatives);
    copy(formats::kHierEdgeOffsets, h.edge_offsets);
    copy(formats::kHierEdgeTargets, h.edge_targets);
    copy(formats::kHierEdgeCosts, h.edge_costs);
    copy(formats::kHierMemberOffsets, h.member_offsets);
    copy(formats::kHierMembers, h.members);
    copy(formats::kHierEntranceOffsets, h.entrance_offsets);
    copy(formats::kHierEntrances, h.entrances);
    copy(formats::kHierEntranceEdgeOffsets, h.entrance_edge_offsets);
    copy(formats::kHierEntranceEdgeTargets, h.entrance_edge_targets);
    copy(formats::kHierEntranceEdgeCosts, h.entrance_edge_costs);
    return h;
}

}  // namespace nav::cluster
