#include "lib/cluster/cluster.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <queue>
#include <span>
#include <thread>
#include <tuple>

#include "formats/bytes.h"
#include "formats/graph_sections.h"
#include "lib/common/csr.h"
#include "lib/common/parallel.h"
#include "lib/common/search.h"

namespace nav::cluster {
namespace {

using formats::arrayBytes;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = 0xFFFFFFFFu;

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

// ---- Regions: room-like clusters split at chokepoints. ----
// The partition follows Recast's region building (rcBuildDistanceField + rcBuildRegions in
// recastnavigation's Recast/Source/RecastRegion.cpp): a clearance field (distance to the nearest
// boundary) is flooded from its maxima, so regions grow out of room centres and meet where the
// clearance is low (doorways, corridor mouths); regions that are too small are merged into a
// neighbour. The flood is the priority-flood watershed (Meyer, "Topographic distance and watershed
// lines", 1994; Barnes, Lehman & Mulla, "Priority-Flood", 2014).

// The adjacency the region pass floods: the graph's own edges (tile, navmesh), or for a POV graph
// its layer grid (walkable cells, 4 cardinal links, cost 1 per step): the corners all stand on
// obstacles, so they say nothing about open space. Spans point into the graph or into own_*.
struct Field {
    std::span<const uint32_t> offsets, targets;
    std::span<const float> costs;
    std::span<const float> positions;  // x, y, z per node (any one unit per field)
    std::vector<uint32_t> own_offsets, own_targets;
    std::vector<float> own_costs, own_positions;

    Field() = default;
    Field(const Field&) = delete;
    Field& operator=(const Field&) = delete;
    size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
    CsrGraph<float> edges() const { return {offsets, targets, costs}; }
};

void graphField(const graph::Graph& g, Field& f) {
    f.offsets = g.edge_offsets;
    f.targets = g.edge_targets;
    f.costs = g.edge_costs;
    f.positions = g.positions;
}

void layerField(const graph::Graph& g, Field& f) {
    const size_t cells = g.layer_cells.size();
    f.own_offsets.assign(cells + 1, 0);
    f.own_targets.clear();
    for (size_t c = 0; c < cells; ++c) {
        for (int k = 0; k < formats::kLayerDirections; ++k) {
            const uint32_t t = g.layer_neighbours[size_t(k) * cells + c];
            if (t != graph::kNoNode) f.own_targets.push_back(t);
        }
        f.own_offsets[c + 1] = uint32_t(f.own_targets.size());
    }
    f.own_costs.assign(f.own_targets.size(), 1.0f);
    f.own_positions.resize(3 * cells);  // [Units: cells]
    for (size_t c = 0; c < cells; ++c) {
        f.own_positions[3 * c] = float(g.layer_cells[c].column % g.header.size_x);
        f.own_positions[3 * c + 1] = float(g.layer_cells[c].y);
        f.own_positions[3 * c + 2] = float(g.layer_cells[c].column / g.header.size_x);
    }
    f.offsets = f.own_offsets;
    f.targets = f.own_targets;
    f.costs = f.own_costs;
    f.positions = f.own_positions;
}

// Clearance of every field node: its distance (edge costs) from the nearest boundary node, a node
// with fewer out-edges than the largest out-degree in the field (8 on a tile graph: a wall, a
// ledge or the map edge is next to it; 4 on the layer grid). Nodes no boundary node reaches, and
// every node of a field without a boundary (all degrees equal), get 0.
std::vector<double> clearanceField(const Field& f) {
    const size_t n = f.size();
    uint32_t max_degree = 0;
    for (size_t v = 0; v < n; ++v)
        max_degree = std::max(max_degree, f.offsets[v + 1] - f.offsets[v]);
    Dijkstra<double> search;
    search.reset(n);
    for (uint32_t v = 0; v < n; ++v)
        if (f.offsets[v + 1] - f.offsets[v] < max_degree) search.addSource(v);
    search.run(f.edges());
    std::vector<double> dist(search.distances().begin(), search.distances().end());
    for (double& d : dist)
        if (!std::isfinite(d)) d = 0;
    return dist;
}

// Watershed of `height` (priority flood): nodes are taken from the highest down; a popped node
// hands its region to every unlabelled neighbour, so a node joins the region of its highest
// labelled neighbour (first queued on ties: plateaus are shared out breadth-first). When the
// highest unlabelled node (lowest id on ties) is above everything queued, it is a local maximum
// and starts a new region. Regions therefore meet along the valleys of the field. Returns the
// region count; labels are numbered in seeding order.
uint32_t watershed(const Field& f, const std::vector<double>& height,
                   std::vector<uint32_t>& label) {
    const size_t n = f.size();
    std::vector<uint32_t> order(n);
    for (uint32_t v = 0; v < n; ++v) order[v] = v;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return height[a] > height[b] || (height[a] == height[b] && a < b);
    });
    struct Flood {
        double height;
        uint64_t sequence;
        uint32_t node;
        bool operator<(const Flood& o) const {  // the queue's top: highest, then first queued
            return height < o.height || (height == o.height && sequence > o.sequence);
        }
    };
    std::priority_queue<Flood> queue;
    uint64_t sequence = 0;
    label.assign(n, kNone);
    uint32_t count = 0;
    size_t next = 0;  // every node before order[next] is labelled
    for (;;) {
        while (next < n && label[order[next]] != kNone) ++next;
        if (next < n && (queue.empty() || height[order[next]] > queue.top().height)) {
            const uint32_t seed = order[next];
            label[seed] = count++;
            queue.push({height[seed], sequence++, seed});
            continue;
        }
        if (queue.empty()) break;
        const uint32_t u = queue.top().node;
        queue.pop();
        for (uint32_t e = f.offsets[u]; e < f.offsets[u + 1]; ++e) {
            const uint32_t w = f.targets[e];
            if (label[w] != kNone) continue;
            label[w] = label[u];
            queue.push({height[w], sequence++, w});
        }
    }
    return count;
}

// Root of r in a union-find forest (path halving).
uint32_t findRoot(std::vector<uint32_t>& parent, uint32_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
}

// Relabels every node with its region's root, numbered 0, 1, ... by lowest node; returns the count.
uint32_t applyMerges(std::vector<uint32_t>& parent, std::vector<uint32_t>& label) {
    std::vector<uint32_t> renumber(parent.size(), kNone);
    uint32_t merged = 0;
    for (uint32_t& l : label) {
        const uint32_t r = findRoot(parent, l);
        if (renumber[r] == kNone) renumber[r] = merged++;
        l = renumber[r];
    }
    return merged;
}

// Merges the watershed regions that no chokepoint separates (persistence simplification:
// Edelsbrunner, Letscher & Zomorodian, "Topological persistence and simplification", 2002; as in
// ToMATo, Chazal et al. 2013). Each region has a peak (its seed's height); two neighbours meet at a
// saddle, the highest min(height(u), height(w)) over the edges between them. Saddles are taken from
// the highest down; the region with the lower peak (the later seed on ties) joins the other when
// the saddle is above `ratio` x its peak or less than `drop` below it: a bump on a ridge or a
// slight narrowing, not a doorway. Returns the new count (labels renumbered by lowest node).
uint32_t mergeShallow(const Field& f, const std::vector<double>& height,
                      std::vector<uint32_t>& label, uint32_t count, double ratio, double drop) {
    const size_t n = f.size();
    std::vector<double> peak(count, -kInf);
    for (size_t v = 0; v < n; ++v) peak[label[v]] = std::max(peak[label[v]], height[v]);
    struct Saddle {
        double height;
        uint32_t a, b;  // a < b
    };
    std::vector<Saddle> saddles;
    for (uint32_t u = 0; u < n; ++u) {
        for (uint32_t e = f.offsets[u]; e < f.offsets[u + 1]; ++e) {
            const uint32_t w = f.targets[e];
            if (label[u] == label[w]) continue;
            saddles.push_back({std::min(height[u], height[w]), std::min(label[u], label[w]),
                               std::max(label[u], label[w])});
        }
    }
    std::sort(saddles.begin(), saddles.end(), [](const Saddle& x, const Saddle& y) {
        return x.height > y.height ||
               (x.height == y.height && std::tie(x.a, x.b) < std::tie(y.a, y.b));
    });
    std::vector<uint32_t> parent(count);
    for (uint32_t r = 0; r < count; ++r) parent[r] = r;
    for (const Saddle& s : saddles) {
        uint32_t a = findRoot(parent, s.a), b = findRoot(parent, s.b);
        if (a == b) continue;
        if (peak[a] > peak[b] || (peak[a] == peak[b] && a < b)) std::swap(a, b);  // a: the lower
        if (s.height > ratio * peak[a] || peak[a] - s.height < drop) parent[a] = b;
    }
    return applyMerges(parent, label);
}

// Merges regions until none weighs less than `min_weight` and at most `target_count` remain
// (regions without a neighbour excepted): the lightest region (lowest id on ties) joins the
// neighbour it shares the most edges with (then the lighter, then the lower id), so regions meeting
// through a wide opening go together before those meeting at a doorway. `weight` is per field node
// (empty: 1 each). Labels come back numbered 0 .. count-1 by their lowest node; returns the count.
uint32_t mergeRegions(const Field& f, const std::vector<double>& weight,
                      std::vector<uint32_t>& label, uint32_t count, double min_weight,
                      uint32_t target_count) {
    const size_t n = f.size();
    std::vector<double> total(count, 0.0);
    for (size_t v = 0; v < n; ++v) total[label[v]] += weight.empty() ? 1.0 : weight[v];
    std::vector<std::map<uint32_t, uint64_t>> border(count);  // region -> neighbour -> edges
    for (uint32_t u = 0; u < n; ++u) {
        for (uint32_t e = f.offsets[u]; e < f.offsets[u + 1]; ++e) {
            const uint32_t a = label[u], b = label[f.targets[e]];
            if (a == b) continue;
            ++border[a][b];
            ++border[b][a];
        }
    }
    std::vector<uint32_t> parent(count);
    for (uint32_t r = 0; r < count; ++r) parent[r] = r;
    using Item = std::pair<double, uint32_t>;                                   // weight, region
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> lightest;  // stale: skipped
    for (uint32_t r = 0; r < count; ++r) lightest.push({total[r], r});
    uint32_t alive = count;
    while (!lightest.empty()) {
        const auto [w, r] = lightest.top();
        lightest.pop();
        if (parent[r] != r || w != total[r]) continue;
        if (w >= min_weight && alive <= target_count) break;
        if (border[r].empty()) continue;  // nothing to merge with
        uint32_t s = kNone;
        uint64_t best = 0;
        for (const auto& [t, edges] : border[r]) {  // ascending t: lowest id wins ties
            if (s == kNone || edges > best || (edges == best && total[t] < total[s])) {
                s = t;
                best = edges;
            }
        }
        parent[r] = s;
        total[s] += total[r];
        --alive;
        border[s].erase(r);
        for (const auto& [t, edges] : border[r]) {
            if (t == s) continue;
            border[s][t] += edges;
            border[t].erase(r);
            border[t][s] += edges;
        }
        border[r].clear();
        lightest.push({total[s], s});
    }
    return applyMerges(parent, label);
}

// Splits every region into round(nodes / target_nodes) pieces when that is 2 or more (fewer when
// the total would pass `limit`). Seeds: farthest-point sampling inside the region
// (the first is the node farthest from the region's lowest node; then the node farthest from
// every seed, +inf first, lowest id on ties); pieces: one multi-source Dijkstra restricted to the
// region (a node joins the seed with the smaller (distance, seed index)). Farthest points sit on
// the region's rim and give sliver-shaped pieces, so a few Lloyd steps (Lloyd 1982, k-means on the
// graph) then move every seed to its piece's node nearest the piece's centroid and regrow.
// Returns the new region count.
uint32_t splitRegions(const Field& f, std::vector<uint32_t>& label, uint32_t count,
                      double target_nodes, uint32_t limit, Context& context) {
    constexpr int kLloydSteps = 4;
    std::vector<uint32_t> offsets, members;
    groupElements(label, count, offsets, members);
    const CsrGraph<float> edges = f.edges();
    Dijkstra<double> spread;             // distance from the nearest seed
    Dijkstra<double, SeedLabels> owner;  // label: the index of the nearest seed
    struct Far {
        double distance;
        uint32_t node;
        bool operator<(const Far& o) const {  // the queue's top: farthest, then lowest id
            return distance < o.distance || (distance == o.distance && node > o.node);
        }
    };
    const uint32_t original = count;
    for (uint32_t r = 0; r < original; ++r) {
        const uint32_t* region = members.data() + offsets[r];
        const uint32_t size = offsets[r + 1] - offsets[r];
        const uint32_t pieces =
            uint32_t(std::max(0.0, std::min<double>({std::round(double(size) / target_nodes),
                                                     double(size), double(limit) - count + 1})));
        if (pieces < 2) continue;
        context.progress("cluster regions", r, original);
        const SameLabel inside{label.data(), r};
        spread.reset(f.size());
        spread.addSource(region[0]);
        spread.run(edges, inside);
        uint32_t first = region[0];
        for (uint32_t i = 0; i < size; ++i) {
            const double d = spread.dist(region[i]);
            if (std::isfinite(d) && d > spread.dist(first)) first = region[i];
        }
        spread.reset(f.size());
        std::vector<uint32_t> seeds{first};
        spread.addSource(first);
        spread.run(edges, inside);
        std::priority_queue<Far> farthest;  // stale entries (distance above dist) skipped
        for (uint32_t i = 0; i < size; ++i) farthest.push({spread.dist(region[i]), region[i]});
        while (seeds.size() < pieces) {
            while (!farthest.empty() && farthest.top().distance != spread.dist(farthest.top().node))
                farthest.pop();
            if (farthest.empty() || farthest.top().distance == 0) break;  // every node a seed
            const uint32_t seed = farthest.top().node;
            seeds.push_back(seed);
            // The search goes on from the distances it has: only what the new seed brings closer
            // changes, and those nodes are queued again.
            spread.addSource(seed);
            spread.run(edges, inside, [&](uint32_t v, double d) { farthest.push({d, v}); });
        }
        // Pieces: every node joins the seed with the smaller (distance, seed index).
        auto grow = [&] {
            owner.reset(f.size());
            for (uint32_t i = 0; i < seeds.size(); ++i) owner.addSource(seeds[i], 0.0, i);
            owner.run(edges, inside);
        };
        grow();
        std::vector<double> centroid(3 * seeds.size());
        std::vector<uint32_t> nodes(seeds.size());
        std::vector<double> nearest(seeds.size());
        for (int step = 0; step < kLloydSteps; ++step) {
            std::fill(centroid.begin(), centroid.end(), 0.0);
            std::fill(nodes.begin(), nodes.end(), 0);
            for (uint32_t i = 0; i < size; ++i) {
                const uint32_t v = region[i], s = owner.label(v);
                if (s == kNoLabel) continue;
                for (int k = 0; k < 3; ++k) centroid[3 * s + k] += f.positions[3 * v + k];
                ++nodes[s];
            }
            for (size_t s = 0; s < seeds.size(); ++s)
                for (int k = 0; k < 3; ++k) centroid[3 * s + k] /= std::max(1u, nodes[s]);
            std::fill(nearest.begin(), nearest.end(), kInf);
            std::vector<uint32_t> moved = seeds;
            for (uint32_t i = 0; i < size; ++i) {  // ascending ids: lowest id wins ties
                const uint32_t v = region[i], s = owner.label(v);
                if (s == kNoLabel) continue;
                double d2 = 0;
                for (int k = 0; k < 3; ++k) {
                    const double d = f.positions[3 * v + k] - centroid[3 * s + k];
                    d2 += d * d;
                }
                if (d2 < nearest[s]) {
                    nearest[s] = d2;
                    moved[s] = v;
                }
            }
            if (moved == seeds) break;
            seeds = moved;
            grow();
        }
        // Seed 0 keeps the label r (so do nodes no seed reaches: the final split separates them).
        for (uint32_t i = 0; i < size; ++i) {
            const uint32_t v = region[i], s = owner.label(v);
            if (s != kNoLabel && s > 0) label[v] = count + s - 1;
        }
        count += uint32_t(seeds.size()) - 1;
    }
    return count;
}

// XZ area of navmesh polygon p in cells.
double polygonCells(const graph::Graph& g, uint32_t p) {
    const navmesh::NavMesh& m = g.mesh;
    const uint32_t begin = m.poly_offsets[p], end = m.poly_offsets[p + 1];
    double twice = 0;
    for (uint32_t i = begin; i < end; ++i) {
        const uint32_t a = m.poly_vertices[i], b = m.poly_vertices[i + 1 < end ? i + 1 : begin];
        twice += double(m.vertices[3 * a]) * m.vertices[3 * b + 2] -
                 double(m.vertices[3 * b]) * m.vertices[3 * a + 2];
    }
    const double cell = double(g.header.cell_size);
    return std::abs(twice) / 2 / (cell * cell);
}

// Watershed regions separated by less than this are merged (mergeShallow): the saddle between them
// above kShallowRatio x the lower peak, or less than kShallowDrop cells below it.
constexpr double kShallowRatio = 0.65;
constexpr double kShallowDrop = 1.5;

// Region label per node (connected or not; the caller splits into connected pieces). The target
// is `clusters` regions, else one per cluster_size^2 cells of walkable surface (tile graphs: one
// cell per node; POV: the layer grid's cells; navmesh: the polygons' XZ area).
//  - navmesh: the mesh's regions (each split into its connected pieces), merged while lighter
//    than a quarter of the target area or more than the target count.
//  - tile, POV: watershed of the clearance field, shallow regions merged (mergeShallow), the same
//    merging by size, then regions of 1.5 target sizes or more split (splitRegions). POV corners
//    take their layer cell's region.
std::vector<uint32_t> regionLabels(const graph::Graph& g, const ClusterParams& params,
                                   Context& context) {
    ScopedTimer timer(context, "cluster regions");
    const size_t n = g.nodeCount();
    const double per = double(params.cluster_size) * params.cluster_size;
    auto targetCount = [&](double surface) {
        if (params.clusters > 0) return params.clusters;
        return uint32_t(std::clamp(std::round(surface / per), 1.0, double(n)));
    };
    Field f;
    std::vector<uint32_t> label;
    if (g.header.type == graph::GraphType::navmesh) {
        graphField(g, f);
        std::vector<double> area(n);
        double surface = 0;
        for (uint32_t p = 0; p < n; ++p) surface += area[p] = polygonCells(g, p);
        const uint32_t count = splitConnected(g, g.mesh.poly_regions, label);
        const uint32_t target = targetCount(surface);
        mergeRegions(f, area, label, count, surface / target / 4, target);
        return label;
    }
    const bool pov = g.header.type == graph::GraphType::pov;
    if (pov)
        layerField(g, f);
    else
        graphField(g, f);
    const size_t cells = f.size();
    context.progress("cluster regions", 0, 1);
    const std::vector<double> clearance = clearanceField(f);
    uint32_t count = watershed(f, clearance, label);
    double step = kInf;  // the shortest edge: one cell
    for (float c : f.costs)
        if (c > 0) step = std::min(step, double(c));
    if (!std::isfinite(step)) step = 1;
    count = mergeShallow(f, clearance, label, count, kShallowRatio, kShallowDrop * step);
    const uint32_t target = targetCount(double(cells));
    const double target_nodes = double(cells) / target;
    count = mergeRegions(f, {}, label, count, target_nodes / 4, target);
    // Splitting stops at the cluster limit when the target is within it; a target beyond it is
    // left to fail with the usual error.
    const uint32_t limit =
        target <= formats::kMaxClusters ? formats::kMaxClusters : uint32_t(cells);
    splitRegions(f, label, count, target_nodes, limit, context);
    if (!pov) return label;
    // Corners take their cell's region. Sight lines do not join every corner of a region, so the
    // connected pieces are merged again (lightest first) down to the target count.
    std::vector<uint32_t> corner_label(n), pieces;
    for (uint32_t v = 0; v < n; ++v) corner_label[v] = label[g.corners[v].cell];
    Field corners;
    graphField(g, corners);
    const uint32_t piece_count = splitConnected(g, corner_label, pieces);
    mergeRegions(corners, {}, pieces, piece_count, 0, target);
    return pieces;
}

// ---- Manual: rooms drawn by a level designer (Millington & Funge 4.3.8). ----

// The rooms of a manual partition: the graph's scene rooms, then the config's. Errors: none at
// all, a nameless room, two rooms of one name.
Result<std::vector<Room>> manualRooms(const graph::Graph& g, const ClusterParams& params) {
    std::vector<Room> rooms;
    for (const geometry::SceneMarker& m : g.rooms) {
        Room room;
        room.name = m.label;
        room.where = m.name;
        room.box = m.box;
        room.planes = m.planes;
        rooms.push_back(std::move(room));
    }
    rooms.insert(rooms.end(), params.rooms.begin(), params.rooms.end());
    if (rooms.empty())
        return inputError(
            "method manual needs rooms: the graph holds no scene rooms (objects named "
            "nav_cluster*, or matched by a tag rule with \"tag\": \"cluster\") and none were "
            "given (\"rooms\" in the agent's \"clusters\", or --rooms FILE)");
    for (size_t i = 0; i < rooms.size(); ++i) {
        if (rooms[i].name.empty()) return inputError("{}: a room without a name", rooms[i].where);
        for (size_t k = 0; k < i; ++k)
            if (rooms[k].name == rooms[i].name)
                return inputError("{}: room '{}' is also {}: room names must be unique",
                                  rooms[i].where, rooms[i].name, rooms[k].where);
    }
    return rooms;
}

// The group costs by room index. Errors name the entry: a name that is no room, one pair given
// twice.
Result<std::vector<RoomGroupCost>> resolveGroupCosts(const std::vector<Room>& rooms,
                                                     const std::vector<GroupCost>& costs) {
    auto find = [&](const std::string& name) {
        for (uint32_t r = 0; r < rooms.size(); ++r)
            if (rooms[r].name == name) return r;
        return kNoRoom;
    };
    std::string names;
    for (const Room& room : rooms) names += (names.empty() ? "'" : ", '") + room.name + "'";
    std::vector<RoomGroupCost> out;
    for (size_t i = 0; i < costs.size(); ++i) {
        const GroupCost& c = costs[i];
        const uint32_t from = find(c.from), to = find(c.to);
        if (from == kNoRoom)
            return inputError("{}.from: '{}' is not a room (rooms: {})", c.where, c.from, names);
        if (to == kNoRoom)
            return inputError("{}.to: '{}' is not a room (rooms: {})", c.where, c.to, names);
        if (from == to)
            return inputError("{}: \"from\" and \"to\" are both room '{}'", c.where, c.from);
        for (size_t k = 0; k < out.size(); ++k)
            if (out[k].from == from && out[k].to == to)
                return inputError("{}: a second cost from '{}' to '{}' (the first is {})", c.where,
                                  c.from, c.to, out[k].where);
        out.push_back({from, to, c.cost, c.where});
    }
    return out;
}

// Node labels of a manual partition: the index of the first room holding the node's position,
// else room_count + its grid block (navmesh graphs: room_count + its polygon region). Returns the
// number of nodes in no room.
uint32_t manualLabels(const graph::Graph& g, const std::vector<Room>& rooms, uint32_t size,
                      std::vector<uint32_t>& label) {
    const size_t n = g.nodeCount();
    const uint32_t room_count = uint32_t(rooms.size());
    const bool navmesh = g.header.type == graph::GraphType::navmesh;
    const auto xz = navmesh ? std::vector<std::pair<uint32_t, uint32_t>>() : nodeColumns(g);
    const uint32_t blocks_x = (g.header.size_x + size - 1) / size;
    label.assign(n, kNone);
    uint32_t outside = 0;
    for (size_t v = 0; v < n; ++v) {
        const double x = g.positions[3 * v], y = g.positions[3 * v + 1], z = g.positions[3 * v + 2];
        for (uint32_t r = 0; r < room_count; ++r)
            if (rooms[r].contains(x, y, z)) {
                label[v] = r;
                break;
            }
        if (label[v] != kNone) continue;
        ++outside;
        label[v] = room_count + (navmesh ? g.mesh.poly_regions[v]
                                         : (xz[v].second / size) * blocks_x + xz[v].first / size);
    }
    return outside;
}

// The rooms as the .clu stores them: each room's representative (its node nearest the
// representative point, 3D distance, lowest id on ties), every cluster's room, and the warnings
// about rooms that hold no node or whose nodes are not connected.
void resolveManual(const graph::Graph& g, const std::vector<Room>& rooms,
                   const std::vector<uint32_t>& label, Clusters& out) {
    const uint32_t room_count = uint32_t(rooms.size());
    const uint32_t count = uint32_t(out.cluster_nodes.size());
    out.cluster_rooms.assign(count, kNoRoom);
    for (size_t v = 0; v < label.size(); ++v)
        if (label[v] < room_count) out.cluster_rooms[out.node_clusters[v]] = label[v];
    std::vector<uint32_t> nodes(room_count, 0), pieces(room_count, 0);
    for (size_t v = 0; v < label.size(); ++v)
        if (label[v] < room_count) ++nodes[label[v]];
    for (uint32_t c = 0; c < count; ++c)
        if (out.cluster_rooms[c] != kNoRoom) ++pieces[out.cluster_rooms[c]];
    std::vector<double> best(room_count, kInf);
    out.rooms.resize(room_count);
    for (uint32_t r = 0; r < room_count; ++r) {
        out.rooms[r].name = rooms[r].name;
        out.rooms[r].where = rooms[r].where;
    }
    for (size_t v = 0; v < label.size(); ++v) {
        const uint32_t r = label[v];
        if (r >= room_count || !rooms[r].has_representative) continue;
        double d = 0;
        for (int k = 0; k < 3; ++k) {
            const double delta = double(g.positions[3 * v + k]) - rooms[r].representative[k];
            d += delta * delta;
        }
        if (d < best[r]) {
            best[r] = d;
            out.rooms[r].representative = uint32_t(v);
        }
    }
    for (uint32_t r = 0; r < room_count; ++r) {
        if (nodes[r] == 0)
            out.warnings.push_back(fmt::format("room '{}' ({}) holds no node of this graph",
                                               rooms[r].name, rooms[r].where));
        else if (pieces[r] > 1)
            out.warnings.push_back(fmt::format(
                "room '{}' ({}) is split into {} clusters: its {} nodes are not connected inside "
                "it",
                rooms[r].name, rooms[r].where, pieces[r], nodes[r]));
    }
}

}  // namespace

double Clusters::bound(uint32_t a, uint32_t b) const {
    const uint16_t q = table[size_t(a) * header.cluster_count + b];
    return q == formats::kClusterUnreachable ? kInf : double(q) * double(header.scale);
}

std::vector<double> exactTable(const graph::Graph& g, const std::vector<uint32_t>& node_clusters,
                               uint32_t cluster_count, int threads, Context& context) {
    std::vector<uint32_t> offsets, members;
    groupElements(node_clusters, cluster_count, offsets, members);
    const CsrGraph<float> forward{g.edge_offsets, g.edge_targets, g.edge_costs};
    std::vector<double> table(size_t(cluster_count) * cluster_count, kInf);
    uint64_t progress = 0;
    Status s = runParallel("cluster table", cluster_count, resolveThreads(threads), context,
                           progress, cluster_count, [&](size_t a) {
                               if (context.cancelled()) throw StageCancelled{};
                               // Row a: one search from all the nodes of cluster a; each cluster's
                               // nearest node.
                               thread_local Dijkstra<double> search;
                               search.reset(g.nodeCount());
                               for (uint32_t i = offsets[a]; i < offsets[a + 1]; ++i)
                                   search.addSource(members[i]);
                               search.run(forward);
                               double* row = table.data() + a * cluster_count;
                               for (uint32_t v : search.touched())
                                   row[node_clusters[v]] =
                                       std::min(row[node_clusters[v]], search.dist(v));
                           });
    if (!s) table.clear();
    return table;
}

namespace {

// ALT landmarks by farthest selection (Goldberg & Harrelson 2005, "Computing the shortest path:
// A* search meets graph theory", §6): each landmark is the node farthest from those chosen (by
// distance from them); a node no landmark reaches yet starts a new component, whose landmark is
// the node farthest from it. Distances from each landmark (and, on directed graphs, to it) are
// quantised down to u16 units of one scale for all.
void buildLandmarks(const graph::Graph& g, uint32_t count, int threads, Context& context,
                    Clusters& out) {
    const size_t n = g.nodeCount();
    const CsrGraph<float> forward{g.edge_offsets, g.edge_targets, g.edge_costs};
    const bool directed = graph::edgeSymmetry(g) != graph::Symmetry::symmetric;
    const uint32_t k = uint32_t(std::min<size_t>(count, n));
    // Distances as floats rounded down (a lower bound stays one), 4 bytes per node and landmark.
    std::vector<std::vector<float>> from(k), to(directed ? k : 0);
    auto down = [](double d) {
        if (!(d < kInf)) return std::numeric_limits<float>::infinity();
        float f = float(d);
        if (double(f) > d) f = std::nextafter(f, 0.0f);
        return f;
    };
    std::vector<double> nearest(n, kInf);  // distance from the nearest landmark chosen
    Dijkstra<double> search;
    auto distancesFrom = [&](uint32_t source, std::vector<float>& dist) {
        search.reset(n);
        search.addSource(source);
        search.run(forward);
        dist.resize(n);
        for (size_t v = 0; v < n; ++v) dist[v] = down(search.dist(uint32_t(v)));
    };
    for (uint32_t l = 0; l < k; ++l) {
        if (context.cancelled()) return;
        uint32_t pick = 0;
        for (uint32_t v = 1; v < n; ++v)
            if (nearest[v] > nearest[pick]) pick = v;
        if (nearest[pick] == kInf) {  // unreached: the farthest node from it, in its component
            distancesFrom(pick, from[l]);
            for (uint32_t v = 0; v < n; ++v)  // not a landmark already (directed graphs)
                if (from[l][v] < kInf && from[l][v] > from[l][pick] && nearest[v] >= 0) pick = v;
        }
        out.landmark_nodes.push_back(pick);
        distancesFrom(pick, from[l]);
        for (size_t v = 0; v < n; ++v) nearest[v] = std::min(nearest[v], double(from[l][v]));
        nearest[pick] = -1;  // never picked twice
        context.progress("landmarks", l + 1, k);
    }
    if (directed) {
        const CsrEdges<float> reversed =
            reverseEdges<float>(g.edge_offsets, g.edge_targets, g.edge_costs);
        const CsrGraph<float> reverse{reversed.offsets, reversed.targets, reversed.costs};
        uint64_t progress = 0;
        Status s =
            runParallel("landmarks (reverse)", k, threads, context, progress, k, [&](size_t l) {
                thread_local Dijkstra<double> back;
                back.reset(n);
                back.addSource(out.landmark_nodes[l]);
                back.run(reverse);
                to[l].resize(n);
                for (size_t v = 0; v < n; ++v) to[l][v] = down(back.dist(uint32_t(v)));
            });
        if (!s) return;
    }
    double largest = 0;
    for (const auto* tables : {&from, &to})
        for (const auto& dist : *tables)
            for (float d : dist)
                if (d < kInf) largest = std::max(largest, double(d));
    constexpr double kMaxUnits = formats::kLandmarkUnreachable - 1;
    float scale = largest > 0 ? float(largest / kMaxUnits) : 1.0f;
    if (double(scale) * kMaxUnits < largest) scale = std::nextafter(scale, 2 * scale + 1);
    if (!(scale > 0)) scale = std::numeric_limits<float>::min();
    out.landmark_scale = scale;
    auto quantise = [&](const std::vector<std::vector<float>>& dist, std::vector<uint16_t>& q) {
        q.assign(n * k, formats::kLandmarkUnreachable);
        for (uint32_t l = 0; l < dist.size(); ++l)
            for (size_t v = 0; v < n; ++v) {
                const double d = double(dist[l][v]);
                if (!(d < kInf)) continue;
                double units = std::min(std::floor(d / double(scale)), kMaxUnits);
                while (units > 0 && units * double(scale) > d) units -= 1;
                q[v * k + l] = uint16_t(units);
            }
    };
    quantise(from, out.landmark_from);
    if (directed) quantise(to, out.landmark_to);
}

// CLLM bytes (FORMAT.md §7.3).
std::vector<uint8_t> encodeLandmarks(const Clusters& c) {
    formats::ByteWriter out;
    out.u32(uint32_t(c.landmark_nodes.size()));
    out.u32(c.landmark_to.empty() ? 0 : formats::kLandmarkFlagDirected);
    out.f32(c.landmark_scale);
    out.u32(0);
    for (uint32_t v : c.landmark_nodes) out.u32(v);
    for (const auto* table : {&c.landmark_from, &c.landmark_to})
        for (uint16_t q : *table) out.u16(q);
    return out.take();
}

}  // namespace

Result<Clusters> buildClusters(const graph::Graph& g, const ClusterParams& params,
                               Context& context) {
    const formats::GraphHeader& h = g.header;
    if (h.flags & formats::kGraphFlagImplicitVolume)
        return inputError(
            "cluster tables need an explicit graph; volume graphs (implicit "
            "26-connected voxels) are not supported");
    if (h.type == formats::GraphType::dirichlet)
        return inputError(
            "cluster tables are for large graphs; a Dirichlet graph has one node per waypoint "
            "(its domains are the designer's clusters already): search it as it is");
    const size_t n = g.nodeCount();
    if (n == 0) return inputError("the graph has no nodes to cluster");
    if (Status s = paramError("cluster parameters", checkClusterParams(params)); !s)
        return s.error();
    if (params.clusters > n)
        return makeError(ErrorKind::usage, "--clusters {} exceeds the graph's {} nodes",
                         params.clusters, n);
    ScopedTimer timer(context, "cluster");
    Clusters out;
    uint32_t count = 0;
    std::vector<Room> manual_rooms;      // manual: the rooms (scene, then params)
    std::vector<uint32_t> manual_label;  // manual: room index or room count + grid block
    if (params.method == ClusterParams::grid) {
        if (h.type == graph::GraphType::navmesh) {
            // The navmesh's regions are the initial partition.
            if (params.clusters > 0)
                context.warn(
                    "navmesh graphs: grid clusters are the mesh's regions; --clusters is "
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
                    if (gridPartition(g, xz, mid, trial) <= params.clusters)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                size = lo;
            }
            out.header.cluster_size = size;
            count = gridPartition(g, xz, size, out.node_clusters);
        }
    } else if (params.method == ClusterParams::regions) {
        out.header.cluster_size = params.cluster_size;
        count = splitConnected(g, regionLabels(g, params, context), out.node_clusters);
    } else {
        auto rooms = manualRooms(g, params);
        if (!rooms) return rooms.error();
        auto costs = resolveGroupCosts(*rooms, params.group_costs);
        if (!costs) return costs.error();
        manual_rooms = std::move(rooms).value();
        out.group_costs = std::move(costs).value();
        const uint32_t size = std::max<uint32_t>(1, params.cluster_size);
        if (h.type != graph::GraphType::navmesh) out.header.cluster_size = size;
        out.nodes_outside_rooms = manualLabels(g, manual_rooms, size, manual_label);
        count = splitConnected(g, manual_label, out.node_clusters);
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
        if (std::isfinite(c))
            max_cost = std::max(max_cost, c);
        else
            ++unreachable;
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
    if (params.method == ClusterParams::manual) resolveManual(g, manual_rooms, manual_label, out);
    formats::ClusterHeader& ch = out.header;
    ch.method = params.method == ClusterParams::grid      ? formats::ClusterMethod::grid
                : params.method == ClusterParams::regions ? formats::ClusterMethod::regions
                                                          : formats::ClusterMethod::manual;
    ch.cluster_count = count;
    ch.node_count = uint32_t(n);
    ch.edge_count = uint32_t(g.edgeCount());
    ch.requested_clusters = params.clusters;
    ch.scale = scale;
    ch.min_cluster_nodes = *std::min_element(out.cluster_nodes.begin(), out.cluster_nodes.end());
    ch.max_cluster_nodes = *std::max_element(out.cluster_nodes.begin(), out.cluster_nodes.end());
    ch.unreachable_pairs = unreachable;
    ch.graph_fingerprint = graph::graphFingerprint(g);
    ch.flags =
        graph::edgeSymmetry(g) == graph::Symmetry::symmetric ? formats::kClusterFlagSymmetric : 0;
    if (params.landmarks > 0) {
        buildLandmarks(g, params.landmarks, resolveThreads(params.threads), context, out);
        if (context.cancelled()) return makeError(ErrorKind::cancelled, "cluster cancelled");
    }
    return out;
}

void addClusterSections(formats::ContainerWriter& writer, const Clusters& c) {
    std::vector<uint8_t> header(formats::kClusterHeaderSize);
    formats::encodeClusterHeader(c.header, header.data());
    writer.add(formats::kSecClusterHeader, std::move(header), formats::Codec::raw);
    writer.add(formats::kSecNodeClusters, arrayBytes(c.node_clusters));
    writer.add(formats::kSecClusterTable, arrayBytes(c.table));
    if (!c.landmark_nodes.empty()) writer.add(formats::kSecClusterLandmarks, encodeLandmarks(c));
}

namespace {

// CLRM (FORMAT.md §7.2): u32 room count, u32 group cost count; per room u32 representative
// node, name, where; per cluster u32 room; per group cost u32 from, u32 to, f32 cost, where.
std::vector<uint8_t> encodeRooms(const Clusters& c) {
    formats::ByteWriter out;
    out.u32(uint32_t(c.rooms.size()));
    out.u32(uint32_t(c.group_costs.size()));
    for (const ClusterRoom& room : c.rooms) {
        out.u32(room.representative);
        out.str(room.name);
        out.str(room.where);
    }
    for (uint32_t room : c.cluster_rooms) out.u32(room);
    for (const RoomGroupCost& cost : c.group_costs) {
        out.u32(cost.from);
        out.u32(cost.to);
        out.f32(cost.cost);
        out.str(cost.where);
    }
    return out.take();
}

// Reads CLRM into `out` (whose header and CLND are checked already). Errors name the file, the
// section and the byte offset.
Status decodeRooms(const std::vector<uint8_t>& bytes, const std::string& file, Clusters& out) {
    constexpr uint32_t kMaxString = 4096;
    formats::ByteReader in(bytes.data(), bytes.size());
    auto bad = [&](size_t at, std::string_view what) {
        return inputError("{}: section 'CLRM' at byte {}: {}", file, at, what);
    };
    const uint32_t room_count = in.u32(), cost_count = in.u32();
    // Each room takes 12 bytes at least, each cost 16: counts the bytes cannot hold are refused
    // before anything is allocated.
    if (!in.ok() ||
        uint64_t(room_count) * 12 + uint64_t(cost_count) * 16 + uint64_t(out.count()) * 4 >
            in.remaining())
        return bad(0, fmt::format("{} rooms and {} group costs do not fit in its {} bytes",
                                  room_count, cost_count, bytes.size()));
    const uint32_t nodes = uint32_t(out.node_clusters.size());
    out.rooms.resize(room_count);
    std::vector<size_t> room_at(room_count);
    for (uint32_t r = 0; r < room_count; ++r) {
        ClusterRoom& room = out.rooms[r];
        const size_t at = room_at[r] = in.position();
        room.representative = in.u32();
        room.name = std::string(in.str(kMaxString));
        room.where = std::string(in.str(kMaxString));
        if (!in.ok()) return bad(at, "truncated room");
        if (room.name.empty()) return bad(at, "a room without a name");
        if (room.representative != graph::kNoNode && room.representative >= nodes)
            return bad(at, fmt::format("representative node {} of {}", room.representative, nodes));
    }
    out.cluster_rooms.resize(out.count());
    for (uint32_t& room : out.cluster_rooms) {
        const size_t at = in.position();
        room = in.u32();
        if (room != kNoRoom && room >= room_count)
            return bad(at, fmt::format("room {} of {}", room, room_count));
    }
    for (uint32_t r = 0; r < room_count; ++r) {
        const uint32_t rep = out.rooms[r].representative;
        if (rep != graph::kNoNode && out.cluster_rooms[out.node_clusters[rep]] != r)
            return bad(room_at[r], fmt::format("representative node {} is not in room {}", rep, r));
    }
    out.group_costs.resize(cost_count);
    for (RoomGroupCost& cost : out.group_costs) {
        const size_t at = in.position();
        cost.from = in.u32();
        cost.to = in.u32();
        cost.cost = in.f32();
        cost.where = std::string(in.str(kMaxString));
        if (!in.ok()) return bad(at, "truncated group cost");
        if (cost.from >= room_count || cost.to >= room_count || cost.from == cost.to)
            return bad(at, fmt::format("a cost from room {} to room {} of {}", cost.from, cost.to,
                                       room_count));
        if (!(std::isfinite(cost.cost) && cost.cost > 0))
            return bad(at + 8, "a cost that is not positive and finite");
    }
    if (in.remaining() != 0)
        return bad(in.position(), fmt::format("{} unexpected bytes", in.remaining()));
    return {};
}

}  // namespace

Status saveClusters(const std::filesystem::path& path, const Clusters& c) {
    return saveTableContainer(path, formats::kKindClusters, formats::kClustersVersion,
                              [&](formats::ContainerWriter& writer) {
                                  addClusterSections(writer, c);
                                  if (c.header.method == formats::ClusterMethod::manual)
                                      writer.add(formats::kSecClusterRooms, encodeRooms(c));
                              });
}

Result<Clusters> decodeClusters(const LoadedContainer& container) {
    const std::string file = container.path.string();
    Clusters out;
    if (Status s =
            container.header(formats::kSecClusterHeader, formats::decodeClusterHeader, out.header);
        !s)
        return s.error();
    const formats::ClusterHeader& h = out.header;
    auto nodes = container.section(formats::kSecNodeClusters);
    if (!nodes) return nodes.error();
    auto table = container.section(formats::kSecClusterTable);
    if (!table) return table.error();
    // navrt's checks (sizes, ids, diagonal), then the bake's own: no cluster is empty (clusters
    // are built that way; navrt's queries do not depend on it, so it does not check).
    if (formats::Error e = formats::validateClusterSections(h, {nodes->data(), nodes->size(), true},
                                                            {table->data(), table->size(), true}))
        return containerError(container.path, e);
    out.node_clusters.resize(h.node_count);
    if (h.node_count > 0) std::memcpy(out.node_clusters.data(), nodes->data(), nodes->size());
    out.cluster_nodes.assign(h.cluster_count, 0);
    for (uint32_t cluster : out.node_clusters) ++out.cluster_nodes[cluster];
    for (uint32_t a = 0; a < h.cluster_count; ++a)
        if (out.cluster_nodes[a] == 0)
            return inputError("{}: section 'CLND': cluster {} has no nodes", file, a);
    const size_t entries = size_t(h.cluster_count) * h.cluster_count;
    out.table.resize(entries);
    if (entries > 0) std::memcpy(out.table.data(), table->data(), table->size());
    for (uint16_t q : out.table)
        if (q != formats::kClusterUnreachable)
            out.max_cost = std::max(out.max_cost, double(q) * double(h.scale));
    if (container.has(formats::kSecClusterLandmarks)) {
        auto bytes = container.section(formats::kSecClusterLandmarks);
        if (!bytes) return bytes.error();
        formats::LandmarkView view;
        if (formats::Error e =
                formats::viewLandmarks(bytes->data(), bytes->size(), h.node_count, view))
            return containerError(container.path, e);
        out.landmark_nodes.assign(view.nodes, view.nodes + view.count);
        out.landmark_scale = view.scale;
        const size_t landmark_entries = size_t(h.node_count) * view.count;
        out.landmark_from.assign(view.from, view.from + landmark_entries);
        if (view.flags & formats::kLandmarkFlagDirected)
            out.landmark_to.assign(view.to, view.to + landmark_entries);
    }
    // Manual rooms: in a .clu always, in a .nav never (pack leaves them out).
    const bool manual = h.method == formats::ClusterMethod::manual;
    if (container.has(formats::kSecClusterRooms)) {
        if (!manual)
            return inputError("{}: section 'CLRM' in clusters of another method than manual", file);
        auto rooms = container.section(formats::kSecClusterRooms);
        if (!rooms) return rooms.error();
        if (Status s = decodeRooms(*rooms, file, out); !s) return s.error();
    } else if (manual && container.container.kind == formats::kKindClusters) {
        return inputError("{}: manual clusters without their rooms (section 'CLRM')", file);
    }
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
        return inputError(
            "{} was built for another graph ({} nodes, fingerprint {:016x}) than {} "
            "({} nodes, fingerprint {:016x}); rebuild it with 'navbake cluster {}'",
            clusters_path.string(), c.header.node_count, c.header.graph_fingerprint,
            graph_path.string(), g.nodeCount(), fingerprint, graph_path.string());
    return {};
}

}  // namespace nav::cluster
