// Links as graph edges: a link is a directed connection between two nodes beyond the walkable
// surface's own edges (Millington & Funge, "Artificial Intelligence for Games", 2nd ed., §4.1.3:
// directed, weighted graphs, where a character "can easily drop from A to B but will not be able to
// jump back up", and two connections may join the same pair of nodes). Wide links (Detour's
// off-mesh connections are points; Unity's NavMeshLink has a width) become one lane per cell.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "formats/navmesh_locate.h"
#include "lib/common/csr.h"
#include "lib/common/parallel.h"
#include "lib/graph/graph.h"
#include "lib/graph/links.h"

namespace nav::graph {
namespace {

double length3(const float a[3], const float b[3]) {
    const double dx = double(a[0]) - b[0], dy = double(a[1]) - b[1], dz = double(a[2]) - b[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

using End = LinkEnd;
using Nearest = LinkNearest;

// A coordinate for messages: rounded to the millimetre (no 8.940697e-08 for a floor at 0).
double mm(float v) { return std::round(double(v) * 1000.0) / 1000.0 + 0.0; }

// `known` [m]: how far around the point the graph holds every cell (infinity: the whole graph; a
// world's sparse graph holds only the cells around the links' ends), so a nearer cell is named
// only when it is known to be the nearest.
std::string describeMiss(const LinkSpec& l, const char* end, const float p[3], float vertical,
                         float snap, const Nearest& nearest, double known) {
    std::string where =
        snap > 0 ? fmt::format("no walkable surface within {} m horizontally and {} m vertically",
                               snap, vertical)
                 : fmt::format("no walkable cell under it within {} m", vertical);
    if (std::isfinite(known) && !(nearest.distance <= known))
        return fmt::format(
            "{}: its {} ({}, {}, {}) is not on the walkable surface ({}); no walkable cell lies "
            "within {:.1f} m of it",
            l.name, end, mm(p[0]), mm(p[1]), mm(p[2]), where, known);
    if (!std::isfinite(nearest.distance))
        return fmt::format(
            "{}: its {} ({}, {}, {}) is not on the walkable surface ({}); the graph "
            "has no nodes",
            l.name, end, mm(p[0]), mm(p[1]), mm(p[2]), where);
    return fmt::format(
        "{}: its {} ({}, {}, {}) is not on the walkable surface ({}); the nearest is {:.2f} m away "
        "at ({}, {}, {})",
        l.name, end, mm(p[0]), mm(p[1]), mm(p[2]), where, nearest.distance, mm(nearest.point[0]),
        mm(nearest.point[1]), mm(nearest.point[2]));
}

// Resolves points on one graph: by kind, through its spatial index.
class EndFinder : public LinkEndFinder {
public:
    EndFinder(const Graph& g, float vertical, const SparseColumns* sparse = nullptr)
        : g_(g), vertical_(vertical), sparse_(sparse) {
        const formats::GraphHeader& h = g.header;
        if (h.type == GraphType::navmesh) mesh_ = meshArraysOf(g);
    }

    // The end of a lane at `p`; node = kNoNode when none qualifies. `slot` (0 for starts, 1
    // for ends) keeps a coherence hint per kind of end.
    End find(const float p[3], float snap, uint32_t& hint) const override {
        const formats::GraphHeader& h = g_.header;
        if (h.flags & formats::kGraphFlagImplicitVolume) return findVoxel(p, snap);
        if (h.type == GraphType::navmesh) return findPoly(p, snap, hint);
        return findCell(p, snap);
    }

    // The nearest node or cell to `p` (any distance), for messages.
    Nearest nearest(const float p[3]) const override {
        Nearest best;
        const formats::GraphHeader& h = g_.header;
        auto consider = [&](const float q[3]) {
            const double d = length3(p, q);
            if (d < best.distance) {
                best.distance = d;
                std::copy(q, q + 3, best.point);
            }
        };
        if (h.flags & formats::kGraphFlagImplicitVolume) {
            for (uint32_t v = 0; v < g_.nodeCount(); ++v)
                if (voxelFree(v)) {
                    float q[3];
                    voxelCentre(v, q);
                    consider(q);
                }
        } else if (h.type == GraphType::navmesh) {
            for (uint32_t poly = 0; poly < g_.mesh.polyCount(); ++poly) {
                float closest[3];
                formats::meshPolyDistance(mesh_, poly, p, closest);
                float y = closest[1];
                formats::meshPolyHeight(mesh_, poly, closest[0], closest[2], y);
                closest[1] = y;
                consider(closest);
            }
        } else {
            const size_t cells = layerCells();
            for (size_t c = 0; c < cells; ++c) {
                float q[3];
                cellCentre(uint32_t(c), q);
                consider(q);
            }
        }
        return best;
    }

    // A sparse graph holds every cell within the snap distance and two cells of each lane end
    // (resolveWorldLinks): the nearest cell is known within one cell less.
    double known(float snap) const override {
        return sparse_ != nullptr ? std::max(0.0, double(snap)) + double(g_.header.cell_size)
                                  : std::numeric_limits<double>::infinity();
    }

private:
    bool pov() const { return g_.header.type == GraphType::pov; }
    size_t layerCells() const { return pov() ? g_.layer_cells.size() : g_.cells.size(); }
    const formats::NodeCell& cell(uint32_t c) const {
        return pov() ? g_.layer_cells[c] : g_.cells[c];
    }
    void cellCentre(uint32_t c, float q[3]) const {
        const formats::GraphHeader& h = g_.header;
        const formats::NodeCell& nc = cell(c);
        q[0] = h.origin[0] + (float(nc.column % h.size_x) + 0.5f) * h.cell_size;
        q[1] = pov() ? h.origin[1] + float(nc.y) * h.cell_height : g_.positions[3 * size_t(c) + 1];
        q[2] = h.origin[2] + (float(nc.column / h.size_x) + 0.5f) * h.cell_size;
    }

    // Tile graphs: nodes; POV graphs: layer cells. The cell holding the point, else (snap > 0)
    // the nearest cell within snap horizontally.
    End findCell(const float p[3], float snap) const {
        const formats::GraphHeader& h = g_.header;
        const std::vector<uint32_t>& columns = pov() ? g_.layer_columns : g_.column_nodes;
        End out;
        if (columns.empty() && sparse_ == nullptr) return out;
        const double fx = (double(p[0]) - h.origin[0]) / h.cell_size;
        const double fz = (double(p[2]) - h.origin[2]) / h.cell_size;
        if (!std::isfinite(fx) || !std::isfinite(fz)) return out;
        const int cx = int(std::floor(fx)), cz = int(std::floor(fz));
        const int reach = snap > 0 ? int(std::ceil(snap / h.cell_size)) : 0;
        double best = std::numeric_limits<double>::infinity();
        double best_horizontal = 0;
        // A point on a cell border counts as inside both cells (the lower id wins a tie).
        const double edge = 1e-4 / h.cell_size;
        for (int z = cz - reach - 1; z <= cz + reach + 1; ++z) {
            for (int x = cx - reach - 1; x <= cx + reach + 1; ++x) {
                if (x < 0 || z < 0 || uint32_t(x) >= h.size_x || uint32_t(z) >= h.size_z) continue;
                const double ex = std::max({0.0, double(x) - fx - edge, fx - double(x + 1) - edge});
                const double ez = std::max({0.0, double(z) - fz - edge, fz - double(z + 1) - edge});
                const double horizontal = std::sqrt(ex * ex + ez * ez) * h.cell_size;
                if (horizontal > snap) continue;
                const size_t column = size_t(z) * h.size_x + size_t(x);
                const auto [begin, end] = nodesOf(columns, column);
                for (uint32_t c = begin; c < end; ++c) {
                    float q[3];
                    cellCentre(c, q);
                    const double dy = std::fabs(double(q[1]) - p[1]);
                    if (dy > vertical_) continue;
                    const double score = horizontal * horizontal + dy * dy;
                    if (score < best) {
                        best = score;
                        best_horizontal = horizontal;
                        out.node = c;
                        std::copy(q, q + 3, out.point);
                    }
                }
            }
        }
        // A point inside its cell stays as given on tile graphs (POV link ends are the cell
        // centres, where their vertices stand; snapped points move to the cell's centre).
        if (out.node != kNoNode && best_horizontal == 0 && !pov()) std::copy(p, p + 3, out.point);
        return out;
    }

    // Navmesh: the polygon under the point, or the nearest within the tolerance; the point is
    // moved into it and onto its floor. The contours that bound polygons simplify the walkable
    // cells' outline, so a cell centre at the border may lie up to about a cell outside every
    // polygon: two cells of tolerance are always allowed.
    End findPoly(const float p[3], float snap, uint32_t& hint) const {
        End out;
        if (g_.mesh.polyCount() == 0) return out;
        const float tolerance = std::max(snap, 2.0f * g_.header.cell_size);
        // Coherence: the lanes of a wide link fall in a row, mostly on the polygon of the one
        // before. A point inside that polygon whose floor there is within half the agent's height
        // has no better candidate (another floor over or under it lies at least that far away).
        if (hint != kNoNode) {
            float closest[3];
            float y = 0;
            const bool inside = formats::meshPolyDistance(mesh_, hint, p, closest) == 0 &&
                                formats::meshPolyHeight(mesh_, hint, p[0], p[2], y);
            if (inside && std::fabs(double(y) - p[1]) < 0.5 * g_.header.agent_height &&
                std::fabs(double(y) - p[1]) <= vertical_) {
                out.node = hint;
                out.point[0] = p[0], out.point[1] = y, out.point[2] = p[2];
                return out;
            }
        }
        const formats::MeshLocation at = formats::meshLocate(mesh_, p, tolerance, vertical_);
        if (at.poly == formats::MeshLocation{}.poly) return out;
        out.node = at.poly;
        std::copy(at.position, at.position + 3, out.point);
        hint = at.poly;
        return out;
    }

    // The nodes (layer cells) of a column: from the dense index, or the sparse one.
    std::pair<uint32_t, uint32_t> nodesOf(const std::vector<uint32_t>& columns,
                                          size_t column) const {
        if (sparse_ == nullptr) return {columns[column], columns[column + 1]};
        const auto it =
            std::lower_bound(sparse_->columns.begin(), sparse_->columns.end(), uint32_t(column));
        if (it == sparse_->columns.end() || *it != column) return {0, 0};
        const size_t i = size_t(it - sparse_->columns.begin());
        return {sparse_->first[i], sparse_->first[i + 1]};
    }

    bool voxelFree(uint32_t v) const { return (g_.free_voxels[v >> 6] >> (v & 63)) & 1; }
    void voxelCentre(uint32_t v, float q[3]) const {
        const formats::GraphHeader& h = g_.header;
        const uint32_t x = v % h.size_x, rest = v / h.size_x;
        const uint32_t z = rest % h.size_z, y = rest / h.size_z;
        VoxelEndRule::centre(h.origin, h.cell_size, h.cell_height, x, y, z, q);
    }

    // Volume graphs: VoxelEndRule over the graph's voxels.
    End findVoxel(const float p[3], float snap) const {
        const formats::GraphHeader& h = g_.header;
        const VoxelEndRule rule(h.origin, h.cell_size, h.cell_height, p, snap, vertical_);
        End out;
        if (!rule.finite) return out;
        auto index = [&](int64_t x, int64_t y, int64_t z) -> int64_t {
            if (x < 0 || y < 0 || z < 0 || x >= h.size_x || y >= h.size_y || z >= h.size_z)
                return -1;
            return (y * h.size_z + z) * h.size_x + x;
        };
        if (const int64_t v = index(rule.cx, rule.cy, rule.cz); v >= 0 && voxelFree(uint32_t(v))) {
            out.node = uint32_t(v);
            std::copy(p, p + 3, out.point);
            return out;
        }
        double best = std::numeric_limits<double>::infinity();
        for (int64_t y = rule.cy - rule.ry; y <= rule.cy + rule.ry; ++y)
            for (int64_t z = rule.cz - rule.rx; z <= rule.cz + rule.rx; ++z)
                for (int64_t x = rule.cx - rule.rx; x <= rule.cx + rule.rx; ++x) {
                    const int64_t v = index(x, y, z);
                    float q[3];
                    double d;
                    if (v < 0 || !voxelFree(uint32_t(v)) || !rule.accepts(x, y, z, q, d) ||
                        !(d < best))
                        continue;
                    best = d;
                    out.node = uint32_t(v);
                    std::copy(q, q + 3, out.point);
                }
        return out;
    }

    const Graph& g_;
    float vertical_;
    const SparseColumns* sparse_;
    formats::MeshArrays mesh_;
};

// The distance the search heuristic assumes between a lane's two ends (before its safety factor):
// octile distance between the cells on tile graphs, else the 3D distance between the points.
float floorDistance(const Graph& g, const End& a, const End& b) {
    const formats::GraphHeader& h = g.header;
    double d = 0;
    if (h.type == GraphType::tile && !g.cells.empty()) {
        d = formats::heuristicDistance(h, true, g.cells[a.node].column, g.cells[b.node].column,
                                       &g.positions[3 * size_t(a.node)],
                                       &g.positions[3 * size_t(b.node)]);
    } else {
        d = length3(a.point, b.point);
    }
    return float(d * double(h.min_cost_multiplier));
}

constexpr size_t kNavmeshLaneStep = 2;

}  // namespace

std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> lanesOf(const LinkSpec& l,
                                                                           float cell_size) {
    std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> lanes;
    const std::array<float, 3> from = {l.from[0], l.from[1], l.from[2]};
    const std::array<float, 3> to = {l.to[0], l.to[1], l.to[2]};
    if (!(l.width > 0)) {
        lanes.push_back({from, to});
        return lanes;
    }
    const double dx = double(to[0]) - from[0], dz = double(to[2]) - from[2];
    const double len = std::sqrt(dx * dx + dz * dz);
    const double px = -dz / len, pz = dx / len;  // across the link, horizontal
    const int count = std::max(1, int(std::lround(double(l.width) / cell_size)));
    for (int k = 0; k < count; ++k) {
        const double t = (double(k) - 0.5 * double(count - 1)) * cell_size;
        lanes.push_back({{float(from[0] + px * t), from[1], float(from[2] + pz * t)},
                         {float(to[0] + px * t), to[1], float(to[2] + pz * t)}});
    }
    return lanes;
}

float linkDefaultCost(const LinkSpec& link, const float from[3], const float to[3],
                      float floor_cost) {
    const float l = float(length3(from, to));
    float cost = l;
    switch (link.type) {
        case formats::LinkType::jump: cost = 1.5f * l; break;
        case formats::LinkType::climb: cost = 2.0f * l; break;
        case formats::LinkType::ladder: cost = (to[1] > from[1] ? 2.0f : 1.5f) * l; break;
        case formats::LinkType::door: cost = l + 1.0f; break;
        case formats::LinkType::teleport: return 1.0f;
        case formats::LinkType::custom:
            cost = link.user_type.empty() ? l : link.type_factor * l;
            break;
        case formats::LinkType::drop: break;
    }
    // Never below what the heuristic assumes (the next float up, so rounding cannot undercut it).
    const float floor_up = std::nextafter(floor_cost, std::numeric_limits<float>::infinity());
    return std::max({cost, floor_up, std::numeric_limits<float>::min()});
}

std::vector<std::pair<std::array<float, 3>, std::array<float, 3>>> resolvedLanesOf(
    const LinkSpec& l, formats::GraphType kind, float cell_size) {
    auto lanes = lanesOf(l, cell_size);
    // Navmesh lanes attach to polygons, not cells: one every kNavmeshLaneStep cells (and the
    // last) is enough to pick where a path takes a wide link to within half that, and keeps the
    // graph small.
    if (kind == GraphType::navmesh && lanes.size() > kNavmeshLaneStep) {
        decltype(lanes) kept;
        for (size_t k = 0; k < lanes.size(); ++k)
            if (k % kNavmeshLaneStep == 0 || k + 1 == lanes.size()) kept.push_back(lanes[k]);
        lanes = std::move(kept);
    }
    return lanes;
}

float linkSnap(const LinkSpec& l, float agent_radius, float cell_size) {
    return l.snap == geometry::kSnapAuto ? agent_radius + 2.0f * cell_size : l.snap;
}

VoxelEndRule::VoxelEndRule(const float origin[3], float cell_size, float cell_height,
                           const float p[3], float snap, float vertical)
    : cell_size_(cell_size), cell_height_(cell_height), vertical_(vertical) {
    std::copy(origin, origin + 3, origin_);
    std::copy(p, p + 3, p_);
    const double fx = (double(p[0]) - origin[0]) / cell_size;
    const double fy = (double(p[1]) - origin[1]) / cell_height;
    const double fz = (double(p[2]) - origin[2]) / cell_size;
    finite = std::isfinite(fx) && std::isfinite(fy) && std::isfinite(fz) && std::fabs(fx) < 1e15 &&
             std::fabs(fy) < 1e15 && std::fabs(fz) < 1e15;
    if (!finite) return;
    cx = int64_t(std::floor(fx));
    cy = int64_t(std::floor(fy));
    cz = int64_t(std::floor(fz));
    horizontal_ = std::max(snap, cell_size);
    rx = int64_t(std::ceil(horizontal_ / cell_size));
    ry = int64_t(std::ceil(vertical / cell_height));
}

bool VoxelEndRule::accepts(int64_t x, int64_t y, int64_t z, float q[3], double& d) const {
    centre(origin_, cell_size_, cell_height_, x, y, z, q);
    const double dx = double(q[0]) - p_[0], dz = double(q[2]) - p_[2];
    if (std::sqrt(dx * dx + dz * dz) > horizontal_ + 1e-6 ||
        std::fabs(double(q[1]) - p_[1]) > vertical_ + 1e-6)
        return false;
    d = length3(p_, q);
    return true;
}

Result<std::vector<formats::LinkRecord>> resolveLinks(const Graph& g, const LinkEndFinder& finder,
                                                      const std::vector<LinkSpec>& links,
                                                      std::vector<std::string>& type_names,
                                                      LinkResolveStats& stats, float vertical,
                                                      int threads, Context* context) {
    type_names.clear();
    if (links.empty()) return std::vector<formats::LinkRecord>{};
    for (const LinkSpec& l : links)
        if (!l.user_type.empty() &&
            std::find(type_names.begin(), type_names.end(), l.user_type) == type_names.end())
            type_names.push_back(l.user_type);
    std::sort(type_names.begin(), type_names.end());
    if (type_names.size() > formats::kMaxUserLinkTypes)
        return inputError("the links use {} user link types; at most {}", type_names.size(),
                          formats::kMaxUserLinkTypes);
    // One id per link: lanes share it, two links may not.
    std::map<uint32_t, const LinkSpec*> ids;
    for (const LinkSpec& l : links) {
        auto [it, fresh] = ids.emplace(l.id, &l);
        if (!fresh)
            return inputError("{}: id {} is already used by {}", l.name, l.id, it->second->name);
    }
    // One link at a time, in chunks on the worker threads (each with its own finder and its
    // own results, merged in link order: the same records at any thread count).
    struct Chunk {
        std::vector<formats::LinkRecord> records;
        LinkResolveStats stats;
        std::optional<Error> error;
        uint32_t hints[2] = {kNoNode, kNoNode};  // the finder's coherence, starts and ends
    };
    constexpr size_t kLinksPerChunk = 64;
    const size_t chunks = (links.size() + kLinksPerChunk - 1) / kLinksPerChunk;
    std::vector<Chunk> results(chunks);
    auto resolveOne = [&](const LinkSpec& l, Chunk& chunk) {
        std::vector<formats::LinkRecord>& out = chunk.records;
        LinkResolveStats& counts = chunk.stats;
        formats::LinkRecord base;
        base.id = l.id;
        base.user_data = l.user_data;
        base.type = l.user_type.empty()
                        ? l.type
                        : formats::LinkType(formats::kLinkTypeUserFirst +
                                            uint32_t(std::find(type_names.begin(), type_names.end(),
                                                               l.user_type) -
                                                     type_names.begin()));
        base.flags = (l.bidirectional ? formats::kLinkFlagBidirectional : 0) |
                     (l.generated ? formats::kLinkFlagGenerated : 0);
        const auto lanes = resolvedLanesOf(l, g.header.type, g.header.cell_size);
        const float snap = linkSnap(l, g.header.agent_radius, g.header.cell_size);
        const double known = finder.known(snap);
        size_t made = 0;
        const size_t first = out.size();
        std::string miss;  // why the link cannot be used (no lane made)
        for (const auto& [from_point, to_point] : lanes) {
            const End from = finder.find(from_point.data(), snap, chunk.hints[0]);
            const End to = finder.find(to_point.data(), snap, chunk.hints[1]);
            if (from.node == kNoNode || to.node == kNoNode || from.node == to.node) {
                if (lanes.size() > 1) {
                    ++counts.lanes_dropped;
                    continue;
                }
                if (l.generated)  // dropped quietly below: no message to build
                    break;
                if (from.node == kNoNode)
                    miss = describeMiss(l, "start", from_point.data(), vertical, snap,
                                        finder.nearest(from_point.data()), known);
                else if (to.node == kNoNode)
                    miss = describeMiss(l, "end", to_point.data(), vertical, snap,
                                        finder.nearest(to_point.data()), known);
                else
                    miss = fmt::format(
                        "{}: both ends are on the same {} ({}); a link joins two", l.name,
                        g.header.type == GraphType::navmesh
                            ? "polygon"
                            : (g.header.type == GraphType::pov ? "layer cell" : "node"),
                        from.node);
                break;
            }
            // Tile and POV lanes landing on the same two nodes as an earlier lane are the same
            // edge; navmesh lanes keep their own points (where the path crosses matters).
            if (g.header.type != GraphType::navmesh) {
                bool repeated = false;
                for (size_t k = first; k < out.size() && !repeated; ++k)
                    repeated = out[k].from_node == from.node && out[k].to_node == to.node;
                if (repeated) {
                    ++counts.duplicates;
                    continue;
                }
            }
            formats::LinkRecord r = base;
            r.from_node = from.node;
            r.to_node = to.node;
            std::copy(from.point, from.point + 3, r.from);
            std::copy(to.point, to.point + 3, r.to);
            const float floor = floorDistance(g, from, to);
            r.cost = l.cost > 0 ? l.cost : linkDefaultCost(l, r.from, r.to, floor);
            if (l.bidirectional)
                r.reverse_cost =
                    l.reverse_cost > 0 ? l.reverse_cost : linkDefaultCost(l, r.to, r.from, floor);
            out.push_back(r);
            ++made;
        }
        if (made == 0 && miss.empty() && !l.generated) {
            const auto& [from_point, to_point] = lanes[lanes.size() / 2];
            miss = fmt::format(
                "{}: none of its {} lanes has both ends on the walkable surface (the middle one: "
                "start {}, end {})",
                l.name, lanes.size(),
                finder.find(from_point.data(), snap, chunk.hints[0]).node == kNoNode ? "off" : "on",
                finder.find(to_point.data(), snap, chunk.hints[0]).node == kNoNode ? "off" : "on");
        }
        if (made == 0) {
            // Generated links come from the voxels; a graph that leaves their cells out (a
            // navmesh dropping a region too small to keep) simply has no use for them.
            if (l.generated) {
                ++counts.generated_dropped;
                return;
            }
            if (!l.shared) {
                chunk.error = inputError("{}", miss);
                return;
            }
            counts.unusable.push_back({l.name, miss});
            return;
        }
        counts.lanes += made;
    };
    uint64_t progress = 0;
    Context quiet;
    Context& ctx = context != nullptr ? *context : quiet;
    const Status ran = runParallel(
        "graph links", chunks, resolveThreads(threads), ctx, progress, chunks, [&](size_t c) {
            if (ctx.cancelled()) throw StageCancelled{};
            const size_t end = std::min(links.size(), (c + 1) * kLinksPerChunk);
            for (size_t i = c * kLinksPerChunk; i < end; ++i) {
                resolveOne(links[i], results[c]);
                if (results[c].error) return;
            }
        });
    if (!ran) return ran.error();
    std::vector<formats::LinkRecord> out;
    for (Chunk& c : results) {
        if (c.error) return *c.error;
        out.insert(out.end(), c.records.begin(), c.records.end());
        stats.lanes += c.stats.lanes;
        stats.lanes_dropped += c.stats.lanes_dropped;
        stats.duplicates += c.stats.duplicates;
        stats.generated_dropped += c.stats.generated_dropped;
        stats.unusable.insert(stats.unusable.end(), c.stats.unusable.begin(),
                              c.stats.unusable.end());
    }
    return out;
}
Result<std::vector<formats::LinkRecord>> resolveLinks(const Graph& g,
                                                      const std::vector<LinkSpec>& links,
                                                      std::vector<std::string>& type_names,
                                                      LinkResolveStats& stats, float vertical,
                                                      int threads, Context* context) {
    const EndFinder finder(g, vertical);
    return resolveLinks(g, finder, links, type_names, stats, vertical, threads, context);
}

Result<std::vector<formats::LinkRecord>> resolveLinks(const Graph& g, const SparseColumns& sparse,
                                                      const std::vector<LinkSpec>& links,
                                                      std::vector<std::string>& type_names,
                                                      LinkResolveStats& stats, float vertical,
                                                      int threads, Context* context) {
    const EndFinder finder(g, vertical, &sparse);
    return resolveLinks(g, finder, links, type_names, stats, vertical, threads, context);
}

Status addLinks(Graph& g, std::vector<formats::LinkRecord> links) {
    if (!g.links.empty()) return inputError("the graph already has {} links", g.links.size());
    if (links.empty()) return {};
    std::stable_sort(
        links.begin(), links.end(),
        [](const formats::LinkRecord& a, const formats::LinkRecord& b) { return a.id < b.id; });
    const bool implicit_volume = (g.header.flags & formats::kGraphFlagImplicitVolume) != 0;
    const size_t n = g.nodeCount();
    for (size_t i = 0; i < links.size(); ++i) {
        const formats::LinkRecord& l = links[i];
        if (i > 0 && links[i - 1].id == l.id &&
            (links[i - 1].type != l.type || links[i - 1].flags != l.flags ||
             links[i - 1].user_data != l.user_data))
            return inputError("link id {} is used by two links (of other type, flags or user data)",
                              l.id);
        if (l.from_node >= n || l.to_node >= n)
            return inputError("link {}: an end names node {} of {}", l.id,
                              std::max(l.from_node, l.to_node), n);
        if (l.from_node == l.to_node)
            return inputError("link {}: both ends are on node {} (the link would go nowhere)", l.id,
                              l.from_node);
        if (implicit_volume) {
            auto free = [&](uint32_t v) { return (g.free_voxels[v >> 6] >> (v & 63)) & 1; };
            if (!free(l.from_node) || !free(l.to_node))
                return inputError("link {}: an end is a voxel the agent cannot occupy", l.id);
        }
        if (formats::isUserLinkType(l.type) &&
            uint32_t(l.type) - formats::kLinkTypeUserFirst >= g.link_type_names.size())
            return inputError("link {}: user type {} has no name", l.id,
                              uint32_t(l.type) - formats::kLinkTypeUserFirst);
        // The record's own checks (type, flags, finite ends, costs), with the same text navrt
        // gives.
        uint8_t bytes[formats::kLinkRecordSize];
        formats::encodeLinkRecord(l, bytes);
        formats::LinkRecord check;
        if (formats::Error e = formats::decodeLinkRecord(bytes, sizeof(bytes), check))
            return inputError("{}", e.message);
    }
    if (implicit_volume) {
        // No edges: navrt expands a voxel's links beside its 26 moves. Components merge across
        // links (undirected), renumbered by their lowest voxel.
        std::vector<uint32_t> parent(g.header.component_count);
        std::iota(parent.begin(), parent.end(), 0u);
        auto find = [&](uint32_t v) {
            while (parent[v] != v) v = parent[v] = parent[parent[v]];
            return v;
        };
        for (const formats::LinkRecord& l : links) {
            const uint32_t a = find(g.components[l.from_node]), b = find(g.components[l.to_node]);
            if (a != b) parent[std::max(a, b)] = std::min(a, b);
        }
        std::vector<uint32_t> renumber(parent.size(), kNoNode), sizes;
        for (uint32_t& c : g.components) {
            if (c == kNoNode) continue;
            const uint32_t root = find(c);
            if (renumber[root] == kNoNode) {
                renumber[root] = uint32_t(sizes.size());
                sizes.push_back(0);
            }
            c = renumber[root];
            ++sizes[c];
        }
        g.header.component_count = uint32_t(sizes.size());
        g.header.largest_component =
            sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
        g.links = std::move(links);
        return {};
    }
    // Per source node: its own edges, then its link edges in record order.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> extra(n);  // (link index, target)
    for (uint32_t i = 0; i < links.size(); ++i) {
        extra[links[i].from_node].push_back({i, links[i].to_node});
        if (links[i].flags & formats::kLinkFlagBidirectional)
            extra[links[i].to_node].push_back({i, links[i].from_node});
    }
    // Navmesh link edges add the walk from the polygon's centre to the link's start and from its
    // end to the next polygon's centre, as portal edges go through the portal's midpoint.
    const bool navmesh = g.header.type == GraphType::navmesh;
    auto polyCost = [&](uint32_t poly) { return double(g.areas[g.mesh.poly_areas[poly]].cost); };
    auto edgeCost = [&](const formats::LinkRecord& l, bool forward) {
        const float cost = forward ? l.cost : l.reverse_cost;
        if (!navmesh) return cost;
        const uint32_t a = forward ? l.from_node : l.to_node, b = forward ? l.to_node : l.from_node;
        const float* pa = forward ? l.from : l.to;
        const float* pb = forward ? l.to : l.from;
        const double legs = length3(&g.positions[3 * size_t(a)], pa) * polyCost(a) +
                            length3(pb, &g.positions[3 * size_t(b)]) * polyCost(b);
        return std::max(cost, float(double(cost) + legs));
    };
    std::vector<uint32_t> offsets(n + 1, 0), targets, owners;
    std::vector<float> costs;
    const size_t total = g.edge_targets.size() + links.size() * 2;
    targets.reserve(total);
    costs.reserve(total);
    owners.reserve(total);
    for (size_t v = 0; v < n; ++v) {
        for (uint32_t e = g.edge_offsets[v]; e < g.edge_offsets[v + 1]; ++e) {
            targets.push_back(g.edge_targets[e]);
            costs.push_back(g.edge_costs[e]);
            owners.push_back(formats::kNoLink);
        }
        for (const auto& [index, target] : extra[v]) {
            const formats::LinkRecord& l = links[index];
            const bool forward = v == l.from_node && target == l.to_node;
            targets.push_back(target);
            costs.push_back(edgeCost(l, forward));
            owners.push_back(index);
        }
        offsets[v + 1] = uint32_t(targets.size());
    }
    g.edge_offsets = std::move(offsets);
    g.edge_targets = std::move(targets);
    g.edge_costs = std::move(costs);
    g.edge_links = std::move(owners);
    g.links = std::move(links);
    finalizeGraph(g);
    return {};
}

void reportLinkUse(const std::vector<LinkSpec>& links, const LinkResolveStats& stats,
                   StageResult& result) {
    for (const LinkSpec& l : links) {
        if (l.generated) continue;
        const bool unusable = std::any_of(stats.unusable.begin(), stats.unusable.end(),
                                          [&](const auto& entry) { return entry.first == l.name; });
        result.named_inputs.push_back({l.name, !unusable});
    }
    for (const auto& [name, why] : stats.unusable)
        result.warnings.push_back(fmt::format("this agent cannot use {}", why));
}

void keepVolumeLinks(std::vector<LinkSpec>& links) {
    std::erase_if(links, [](const LinkSpec& l) {
        return l.type != formats::LinkType::teleport && l.agents.empty();
    });
}

Status attachLinks(Graph& g, const std::vector<LinkSpec>& links, int threads,
                   LinkResolveStats& stats, Context& context) {
    if (links.empty()) return {};
    std::vector<std::string> names;
    auto records = resolveLinks(g, links, names, stats, 1.0f, threads, &context);
    if (!records) return records.error();
    g.link_type_names = std::move(names);
    if (g.header.type == GraphType::pov)
        return addPovLinks(g, std::move(records).value(), threads, context);
    return addLinks(g, std::move(records).value());
}

std::vector<uint32_t> stronglyConnected(const Graph& g) {
    const uint32_t n = uint32_t(g.nodeCount());
    // 1. Finish order of an iterative depth-first search on the forward edges.
    std::vector<uint32_t> order;
    order.reserve(n);
    std::vector<uint8_t> seen(n, 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next edge)
    for (uint32_t s = 0; s < n; ++s) {
        if (seen[s]) continue;
        seen[s] = 1;
        stack.push_back({s, g.edge_offsets[s]});
        while (!stack.empty()) {
            auto& [u, e] = stack.back();
            if (e < g.edge_offsets[u + 1]) {
                const uint32_t v = g.edge_targets[e++];
                if (!seen[v]) {
                    seen[v] = 1;
                    stack.push_back({v, g.edge_offsets[v]});
                }
            } else {
                order.push_back(u);
                stack.pop_back();
            }
        }
    }
    // 2. Search the reversed edges in reverse finish order: each search is one component.
    const CsrEdges<float> reverse =
        reverseEdges<float>(g.edge_offsets, g.edge_targets, g.edge_costs);
    std::vector<uint32_t> label(n, kNoNode);
    std::vector<uint32_t> todo;
    uint32_t count = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (label[*it] != kNoNode) continue;
        label[*it] = count;
        todo.push_back(*it);
        while (!todo.empty()) {
            const uint32_t u = todo.back();
            todo.pop_back();
            for (uint32_t e = reverse.offsets[u]; e < reverse.offsets[u + 1]; ++e)
                if (label[reverse.targets[e]] == kNoNode) {
                    label[reverse.targets[e]] = count;
                    todo.push_back(reverse.targets[e]);
                }
        }
        ++count;
    }
    // Renumber by each component's lowest node.
    std::vector<uint32_t> renumber(count, kNoNode);
    uint32_t next = 0;
    for (uint32_t v = 0; v < n; ++v) {
        if (renumber[label[v]] == kNoNode) renumber[label[v]] = next++;
        label[v] = renumber[label[v]];
    }
    return label;
}

}  // namespace nav::graph
