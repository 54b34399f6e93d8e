// Points-of-visibility graph: the visibility graph of Lozano-Perez & Wesley 1979 over the convex
// obstacle corners of the walkable surface, pruned to taut edges (Oh & Leong 2017, "Edge N-Level
// Sparse Visibility Graphs": an edge can only be on a shortest path when the path bends around
// the obstacle at both of its ends).
//
// The surface is the tile graph's cells (one per walkable span, so every floor is its own layer)
// and their cardinal links, which already encode climb and clearance. Visibility and the taut
// rule are the exact integer predicates of formats/pov_sight.h (povSegmentVisible,
// povCornerAdmits), which navrt uses too, run on the very arrays that are saved, so the bake and
// the runtime can never disagree about a sight line.
#include <algorithm>
#include <cmath>
#include <thread>

#include "formats/pov_sight.h"
#include "lib/common/csr.h"
#include "lib/common/parallel.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"

namespace nav::graph {
namespace {

// LNB4 plane of a step of sign s along X (+X = 0, -X = 1) and along Z (+Z = 2, -Z = 3).
inline int planeX(int s) { return s > 0 ? 0 : 1; }
inline int planeZ(int s) { return s > 0 ? 2 : 3; }

// Sources per task of the pair scan; results are stored per source, so the order in which threads
// take tasks does not change the output.
constexpr uint32_t kChunk = 16;

}  // namespace

Result<Graph> buildPovGraph(const voxel::VoxelGrid& grid, const PovParams& params,
                            Context& context) {
    ScopedTimer timer(context, "graph pov");
    auto tile = buildTileGraph(grid, context);
    if (!tile) return tile.error();
    Graph g;
    g.header = headerForGrid(grid, GraphType::pov);
    g.header.heuristic = formats::HeuristicKind::euclidean;
    g.header.min_cost_multiplier = 1.0f;  // costs are plain distances
    g.areas = grid.areas;
    g.source_name = grid.source_name;

    // ---- Layer grid: the tile graph's cells and their cardinal links. ----
    const size_t cells = tile->cells.size();
    g.layer_cells = tile->cells;
    g.layer_columns = tile->column_nodes;
    g.layer_components = tile->components;
    g.layer_neighbours.assign(4 * cells, kNoNode);
    for (size_t n = 0; n < cells; ++n) {
        const int64_t x = tile->cells[n].column % grid.size_x,
                      z = tile->cells[n].column / grid.size_x;
        for (uint32_t e = tile->edge_offsets[n]; e < tile->edge_offsets[n + 1]; ++e) {
            const uint32_t t = tile->edge_targets[e];
            const int64_t tx = tile->cells[t].column % grid.size_x,
                          tz = tile->cells[t].column / grid.size_x;
            for (int k = 0; k < formats::kLayerDirections; ++k)
                if (tx == x + formats::kLayerDx[k] && tz == z + formats::kLayerDz[k] &&
                    g.layer_neighbours[k * cells + n] == kNoNode)
                    g.layer_neighbours[k * cells + n] = t;
        }
    }
    auto link = [&](uint32_t cell, int plane) {
        return cell == kNoNode ? kNoNode : g.layer_neighbours[size_t(plane) * cells + cell];
    };

    // ---- Corners: vertex of cell c towards (bx, bz) where c links to its neighbours cx (along X)
    // and cz (along Z) but the diagonal quadrant is not reached from both of them as one cell. ----
    uint32_t any_direction = 0;
    for (size_t n = 0; n < cells; ++n) {
        for (int bz : {-1, 1}) {
            for (int bx : {-1, 1}) {
                const uint32_t cx = link(uint32_t(n), planeX(bx)),
                               cz = link(uint32_t(n), planeZ(bz));
                if (cx == kNoNode || cz == kNoNode) continue;  // a wall side: no convex corner
                const uint32_t via_x = link(cx, planeZ(bz)), via_z = link(cz, planeX(bx));
                if (via_x != kNoNode && via_x == via_z) continue;  // all four connected: open
                formats::PovCorner corner{uint32_t(n), int8_t(bx), int8_t(bz), 0};
                // Diagonal reached from one side only (a ledge ending at the vertex) or as two
                // different floors: the obstacle is not a quadrant, keep every direction.
                if (via_x != kNoNode || via_z != kNoNode || !params.prune)
                    corner.flags = formats::kPovCornerAnyDirection;
                any_direction += corner.flags != 0;
                g.corners.push_back(corner);
                const int64_t x = tile->cells[n].column % grid.size_x + (bx > 0);
                const int64_t z = tile->cells[n].column / grid.size_x + (bz > 0);
                g.positions.insert(g.positions.end(), {grid.origin[0] + float(x) * grid.cell_size,
                                                       tile->positions[3 * n + 1],
                                                       grid.origin[2] + float(z) * grid.cell_size});
            }
        }
    }
    const size_t corner_count = g.corners.size();
    if (corner_count + 2 >= kNoNode - 2) return inputError("too many corners for one graph");

    // ---- The arrays the sight predicates walk, exactly as they will be saved. ----
    std::vector<uint8_t> cell_bytes(cells * formats::kNodeCellSize);
    for (size_t i = 0; i < cells; ++i)
        formats::encodeNodeCell(g.layer_cells[i], cell_bytes.data() + i * formats::kNodeCellSize);
    std::vector<uint8_t> corner_bytes(corner_count * formats::kPovCornerSize);
    for (size_t i = 0; i < corner_count; ++i)
        formats::encodePovCorner(g.corners[i], corner_bytes.data() + i * formats::kPovCornerSize);
    const formats::PovGrid sight = formats::povGrid(g.header, uint32_t(cells), cell_bytes.data(),
                                                    g.layer_neighbours.data(), corner_bytes.data());

    // ---- Visibility between corners of one layer component: each pair once (u < v). ----
    std::vector<uint32_t> component_of(corner_count);
    uint32_t component_count = tile->header.component_count;
    std::vector<std::vector<uint32_t>> members(component_count);
    std::vector<uint32_t> rank(corner_count);  // position of the corner in its component's list
    for (uint32_t u = 0; u < corner_count; ++u) {
        component_of[u] = g.layer_components[g.corners[u].cell];
        rank[u] = uint32_t(members[component_of[u]].size());
        members[component_of[u]].push_back(u);
    }
    std::vector<formats::PovPoint> points(corner_count);
    for (uint32_t u = 0; u < corner_count; ++u) points[u] = formats::povCornerPoint(sight, u);
    std::vector<std::vector<uint32_t>> kept(corner_count);  // taut visible v > u, ascending
    std::vector<uint64_t> visible(corner_count, 0);         // visible v > u
    const size_t chunks = (corner_count + kChunk - 1) / kChunk;
    uint64_t progress = 0;
    const int threads = resolveThreads(int(params.threads));
    Status scanned =
        runParallel("graph pov", chunks, threads, context, progress, chunks, [&](size_t chunk) {
            if (context.cancelled()) throw StageCancelled{};
            const uint32_t end = uint32_t(std::min<size_t>(corner_count, (chunk + 1) * kChunk));
            for (uint32_t u = uint32_t(chunk * kChunk); u < end; ++u) {
                const std::vector<uint32_t>& list = members[component_of[u]];
                const formats::PovPoint pu = points[u];
                for (size_t i = rank[u] + 1; i < list.size(); ++i) {
                    const uint32_t v = list[i];
                    const formats::PovPoint pv = points[v];
                    if (!formats::povSegmentVisible(sight, g.corners[u].cell, pu, g.corners[v].cell,
                                                    pv))
                        continue;
                    ++visible[u];
                    if (formats::povCornerAdmits(sight, u, pv.x - pu.x, pv.z - pu.z) &&
                        formats::povCornerAdmits(sight, v, pu.x - pv.x, pu.z - pv.z))
                        kept[u].push_back(v);
                }
            }
        });
    if (!scanned) return scanned.error();

    // ---- Symmetric CSR, targets ascending per node. ----
    uint64_t visible_pairs = 0;
    for (uint32_t u = 0; u < corner_count; ++u) visible_pairs += visible[u];
    g.edge_offsets = csrOffsets(corner_count, [&](auto&& add) {
        for (uint32_t u = 0; u < corner_count; ++u)
            for (uint32_t v : kept[u]) {
                add(u);
                add(v);
            }
    });
    const uint32_t edges = g.edge_offsets[corner_count];
    if (edges >= kNoNode) return inputError("too many visibility edges for one graph");
    g.edge_targets.assign(edges, 0);
    g.edge_costs.assign(edges, 0.0f);
    CsrCursor slot(g.edge_offsets);
    auto cost = [&](uint32_t a, uint32_t b) {
        const float* p = &g.positions[3 * size_t(a)];
        const float* q = &g.positions[3 * size_t(b)];
        const double dx = double(p[0]) - q[0], dy = double(p[1]) - q[1], dz = double(p[2]) - q[2];
        return std::max(float(std::sqrt(dx * dx + dy * dy + dz * dz)), 1e-6f);
    };
    for (uint32_t u = 0; u < corner_count; ++u) {
        for (uint32_t v : kept[u]) {
            const float c = cost(u, v);
            const uint32_t forward = slot(u), backward = slot(v);
            g.edge_targets[forward] = v;
            g.edge_costs[forward] = c;
            g.edge_targets[backward] = u;
            g.edge_costs[backward] = c;
        }
    }
    finalizeGraph(g);
    formats::PovStats& stats = g.pov_stats;
    stats.corner_count = uint32_t(corner_count);
    stats.layer_cell_count = uint32_t(cells);
    stats.layer_component_count = component_count;
    stats.any_direction_corners = any_direction;
    stats.visibility_edges = 2 * visible_pairs;
    stats.taut_edges = g.edgeCount();
    return g;
}

Status addPovLinks(Graph& g, std::vector<formats::LinkRecord> links, int threads,
                   Context& context) {
    if (g.header.type != GraphType::pov) return inputError("addPovLinks needs a POV graph");
    if (links.empty()) return {};
    std::stable_sort(
        links.begin(), links.end(),
        [](const formats::LinkRecord& a, const formats::LinkRecord& b) { return a.id < b.id; });
    const formats::GraphHeader& h = g.header;
    const size_t cells = g.layer_cells.size();
    const uint32_t old_count = uint32_t(g.corners.size());
    // ---- One link-end vertex per layer cell a link starts or ends on, at the cell's centre. ----
    std::vector<uint32_t> vertex_of_cell(cells, kNoNode);
    for (formats::LinkRecord& l : links) {
        for (uint32_t* end : {&l.from_node, &l.to_node}) {
            if (*end >= cells) return inputError("link {}: layer cell {} of {}", l.id, *end, cells);
            uint32_t& v = vertex_of_cell[*end];
            if (v == kNoNode) {
                v = uint32_t(g.corners.size());
                const formats::NodeCell& c = g.layer_cells[*end];
                g.corners.push_back(
                    {*end, 1, 1,
                     uint8_t(formats::kPovCornerAnyDirection | formats::kPovCornerLinkEnd)});
                g.positions.insert(
                    g.positions.end(),
                    {h.origin[0] + (float(c.column % h.size_x) + 0.5f) * h.cell_size,
                     h.origin[1] + float(c.y) * h.cell_height,
                     h.origin[2] + (float(c.column / h.size_x) + 0.5f) * h.cell_size});
            }
            *end = v;
        }
        // The record's points are where its vertices stand.
        std::copy(&g.positions[3 * size_t(l.from_node)], &g.positions[3 * size_t(l.from_node)] + 3,
                  l.from);
        std::copy(&g.positions[3 * size_t(l.to_node)], &g.positions[3 * size_t(l.to_node)] + 3,
                  l.to);
    }
    const uint32_t count = uint32_t(g.corners.size());
    if (size_t(count) + 2 >= kNoNode - 2) return inputError("too many corners for one graph");
    // ---- Visibility from each new vertex to every earlier node of its layer component. ----
    std::vector<uint8_t> cell_bytes(cells * formats::kNodeCellSize);
    for (size_t i = 0; i < cells; ++i)
        formats::encodeNodeCell(g.layer_cells[i], cell_bytes.data() + i * formats::kNodeCellSize);
    std::vector<uint8_t> corner_bytes(size_t(count) * formats::kPovCornerSize);
    for (size_t i = 0; i < count; ++i)
        formats::encodePovCorner(g.corners[i], corner_bytes.data() + i * formats::kPovCornerSize);
    const formats::PovGrid sight = formats::povGrid(g.header, uint32_t(cells), cell_bytes.data(),
                                                    g.layer_neighbours.data(), corner_bytes.data());
    std::vector<formats::PovPoint> points(count);
    for (uint32_t u = 0; u < count; ++u) points[u] = formats::povCornerPoint(sight, u);
    const uint32_t added = count - old_count;
    std::vector<std::vector<uint32_t>> seen(added);  // per new vertex: earlier nodes it sees
    uint64_t progress = 0;
    const size_t chunks = (added + kChunk - 1) / kChunk;
    Status scanned = runParallel(
        "graph pov links", chunks, resolveThreads(threads), context, progress, chunks,
        [&](size_t chunk) {
            if (context.cancelled()) throw StageCancelled{};
            const uint32_t end = uint32_t(std::min<size_t>(added, (chunk + 1) * kChunk));
            for (uint32_t k = uint32_t(chunk * kChunk); k < end; ++k) {
                const uint32_t v = old_count + k;
                const uint32_t cv = g.corners[v].cell;
                for (uint32_t u = 0; u < v; ++u) {
                    const uint32_t cu = g.corners[u].cell;
                    if (g.layer_components[cu] != g.layer_components[cv]) continue;
                    const formats::PovPoint pu = points[u], pv = points[v];
                    if (pu.x == pv.x && pu.z == pv.z && cu == cv) continue;
                    if (!formats::povCornerAdmits(sight, u, pv.x - pu.x, pv.z - pu.z)) continue;
                    if (!formats::povSegmentVisible(sight, cu, pu, cv, pv)) continue;
                    seen[k].push_back(u);
                }
            }
        });
    if (!scanned) return scanned.error();
    // ---- Merge into the CSR, targets ascending per node; costs are distances. ----
    std::vector<std::vector<uint32_t>> extra(count);
    uint64_t new_pairs = 0;
    for (uint32_t k = 0; k < added; ++k)
        for (uint32_t u : seen[k]) {
            extra[u].push_back(old_count + k);
            extra[old_count + k].push_back(u);
            ++new_pairs;
        }
    std::vector<uint32_t> offsets(size_t(count) + 1, 0), targets;
    std::vector<float> costs;
    auto distance = [&](uint32_t a, uint32_t b) {
        const float* p = &g.positions[3 * size_t(a)];
        const float* q = &g.positions[3 * size_t(b)];
        const double dx = double(p[0]) - q[0], dy = double(p[1]) - q[1], dz = double(p[2]) - q[2];
        return std::max(float(std::sqrt(dx * dx + dy * dy + dz * dz)), 1e-6f);
    };
    for (uint32_t u = 0; u < count; ++u) {
        std::vector<uint32_t> list;
        if (u < old_count)
            list.assign(g.edge_targets.begin() + g.edge_offsets[u],
                        g.edge_targets.begin() + g.edge_offsets[u + 1]);
        list.insert(list.end(), extra[u].begin(), extra[u].end());
        std::sort(list.begin(), list.end());
        for (uint32_t v : list) {
            targets.push_back(v);
            costs.push_back(distance(u, v));
        }
        offsets[u + 1] = uint32_t(targets.size());
    }
    g.edge_offsets = std::move(offsets);
    g.edge_targets = std::move(targets);
    g.edge_costs = std::move(costs);
    // ---- Layer components merge across links (the runtime's no-path test reads them). ----
    std::vector<uint32_t> parent(g.pov_stats.layer_component_count);
    for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto find = [&](uint32_t c) {
        while (parent[c] != c) c = parent[c] = parent[parent[c]];
        return c;
    };
    for (const formats::LinkRecord& l : links) {
        const uint32_t a = find(g.layer_components[g.corners[l.from_node].cell]);
        const uint32_t b = find(g.layer_components[g.corners[l.to_node].cell]);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
    std::vector<uint32_t> renumber(parent.size(), kNoNode);
    uint32_t next = 0;
    for (uint32_t& c : g.layer_components) {
        const uint32_t root = find(c);
        if (renumber[root] == kNoNode) renumber[root] = next++;
        c = renumber[root];
    }
    formats::PovStats& stats = g.pov_stats;
    stats.layer_component_count = next;
    stats.corner_count = count;
    stats.any_direction_corners += added;
    stats.visibility_edges += 2 * new_pairs;
    const size_t surface_edges = g.edgeCount();
    if (Status s = addLinks(g, std::move(links)); !s) return s;
    // PSTA counts link edges with the visibility and taut edges (taut = GRHD's edge count).
    stats.visibility_edges += g.edgeCount() - surface_edges;
    stats.taut_edges = g.edgeCount();
    context.debug("graph pov: {} link-end vertices, {} visibility edges to them", added,
                  2 * new_pairs);
    return {};
}

}  // namespace nav::graph
