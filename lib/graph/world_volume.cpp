// Volume world tiles (flying agents): the implicit volume graph (a free-voxel bitmap with the
// MovingAI 3D move rule, graph.h) cut into tiles of columns at full height. A tile holds the free
// flags of its columns plus a ring of one column of its neighbours', so every move out of one of
// its voxels is decided by the tile alone (the move's box lies within the ring); the free flags
// are computed on a window of the world's grid that reaches the agent's clearance beyond the ring,
// so they are the whole world's, bit for bit. A move into the ring enters the neighbour's voxel
// when that tile is loaded (navrt::World). The portal graph over tiles (HPA*'s abstract graph,
// Botea, Mueller and Schaeffer 2004) has one portal pair per pair of components that meet across
// a tile border, joined inside a tile by straight lines (planning only; findPath is exact).
//
// Links (teleports for flyers, and any other link the level gives): each lane end is the voxel
// the one volume graph's rule gives it (VoxelEndRule), looked up on the free voxels of the tiles
// within its reach before the tiles are built; a lane inside one tile is that tile's LINK record
// (its components merge across it, as addLinks merges the whole graph's), a lane between tiles a
// WLNK / WLTI record in the tile it leaves (and in the tile it arrives in when two-way), and a
// portal pair of the portal graph; world components join across lanes between tiles.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include <zstd.h>

#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/graph/world.h"

namespace nav::graph {
namespace {

// What the stage keeps of a tile: its components (interior voxel counts), the components of the
// interior rim voxels on its +z and +x sides (what the rings of the tiles built after it reach:
// the next row's and its right neighbour's), and the components of its ring voxels in the tiles
// built before it (joined with their rims): the ring's row before its first row (z = z0 - 1,
// x over the box) and its column before its first column (x = x0 - 1, z over the interior), per
// layer, kNoNode where not free (4 bytes a ring voxel; the ring on the +x and +z sides, which the
// tiles built after it reach from their side, is not kept).
// A tile's rim or ring components, held from its build to the joins that read them (a row of
// tiles' worth, each side a full height of voxels): zstd-compressed (level 1; along a side the
// voxels of one component come in long runs).
class PackedComponents {
public:
    void pack(std::vector<uint32_t>& values) {  // `values` is emptied
        count_ = values.size();
        bytes_.clear();
        if (!values.empty()) {
            bytes_.resize(ZSTD_compressBound(values.size() * 4));
            const size_t n =
                ZSTD_compress(bytes_.data(), bytes_.size(), values.data(), values.size() * 4, 1);
            if (ZSTD_isError(n))
                throw std::runtime_error(std::string("world: zstd: ") + ZSTD_getErrorName(n));
            bytes_.resize(n);
            bytes_.shrink_to_fit();
        }
        values = std::vector<uint32_t>();
    }
    void unpack(std::vector<uint32_t>& out) const {
        out.resize(count_);
        if (count_ == 0) return;
        const size_t n = ZSTD_decompress(out.data(), count_ * 4, bytes_.data(), bytes_.size());
        if (ZSTD_isError(n) || n != count_ * 4)
            throw std::runtime_error("world: a tile's rim components do not decode");
    }
    bool empty() const { return count_ == 0; }
    void release() { *this = PackedComponents(); }

private:
    std::vector<uint8_t> bytes_;
    size_t count_ = 0;
};

struct VolumeTileSummary {
    bool present = false, built = false;
    uint64_t content = 0;
    uint64_t free_voxels = 0;  // interior
    uint32_t components = 0;
    std::vector<uint64_t> component_sizes;
    PackedComponents rim_z, rim_x;  // rimComponent's order; kNoNode where not free
    PackedComponents ring_z;        // [y * (bx1 - bx0) + (x - bx0)], empty when z0 = 0
    PackedComponents ring_x;        // [y * (z1 - z0) + (z - z0)], empty when x0 = 0
    // Per lane of the tile (the world's tile_lanes order): the components of its ends in the
    // tile (kNoNode for an end elsewhere).
    std::vector<std::array<uint32_t, 2>> lane_components;
};

// The component of interior rim voxel (x, y, z) of box b on its +z side (z = z1 - 1) or, else,
// its +x side (x = x1 - 1): the sides the rings of later tiles reach (rim_z, rim_x unpacked).
uint32_t rimComponent(const std::vector<uint32_t>& rim_z, const std::vector<uint32_t>& rim_x,
                      const WorldWindow& b, uint32_t x, uint32_t y, uint32_t z) {
    if (z + 1 == b.z1) return rim_z[size_t(y) * (b.x1 - b.x0) + (x - b.x0)];
    return rim_x[size_t(y) * (b.z1 - b.z0) + (z - b.z0)];
}

void summarise(const Graph& g, const WorldWindow& b, const std::vector<WorldLane>& lanes,
               const std::vector<uint32_t>& mine, uint32_t tile, VolumeTileSummary& s) {
    s.lane_components.clear();
    for (uint32_t i : mine) {
        const WorldLane& l = lanes[i];
        s.lane_components.push_back(
            {l.from_tile == tile ? g.components[l.record.from_node] : kNoNode,
             l.to_tile == tile ? g.components[l.record.to_node] : kNoNode});
    }
    const uint32_t sx = g.header.size_x, sz = g.header.size_z, sy = g.header.size_y;
    s.components = g.header.component_count;
    s.component_sizes.assign(s.components, 0);
    std::vector<uint32_t> rim_z(size_t(b.x1 - b.x0) * sy, kNoNode);
    std::vector<uint32_t> rim_x(size_t(b.z1 - b.z0) * sy, kNoNode);
    std::vector<uint32_t> ring_z(b.bz0 < b.z0 ? size_t(b.bx1 - b.bx0) * sy : 0, kNoNode);
    std::vector<uint32_t> ring_x(b.bx0 < b.x0 ? size_t(b.z1 - b.z0) * sy : 0, kNoNode);
    s.free_voxels = 0;
    for (uint32_t y = 0; y < sy; ++y)
        for (uint32_t lz = 0; lz < sz; ++lz)
            for (uint32_t lx = 0; lx < sx; ++lx) {
                const size_t v = (size_t(y) * sz + lz) * sx + lx;
                const uint32_t c = g.components[v];
                if (c == kNoNode) continue;
                const uint32_t x = b.bx0 + lx, z = b.bz0 + lz;
                const bool inside = x >= b.x0 && x < b.x1 && z >= b.z0 && z < b.z1;
                if (!inside) {
                    if (z < b.z0)
                        ring_z[size_t(y) * (b.bx1 - b.bx0) + (x - b.bx0)] = c;
                    else if (x < b.x0 && z < b.z1)
                        ring_x[size_t(y) * (b.z1 - b.z0) + (z - b.z0)] = c;
                    continue;
                }
                ++s.free_voxels;
                ++s.component_sizes[c];
                if (z + 1 == b.z1) rim_z[size_t(y) * (b.x1 - b.x0) + (x - b.x0)] = c;
                if (x + 1 == b.x1) rim_x[size_t(y) * (b.z1 - b.z0) + (z - b.z0)] = c;
            }
    s.present = s.free_voxels > 0;
    s.rim_z.pack(rim_z);
    s.rim_x.pack(rim_x);
    s.ring_z.pack(ring_z);
    s.ring_x.pack(ring_x);
}

// The lane ends of a volume world's links (VoxelEndRule), looked up on the free voxels of the
// tiles within their reach: each tile answers for the voxels of its columns, and the answers
// merge as the one volume graph's scan takes them (the voxel holding the point; else the
// nearest, ties to the first in (y, z, x) order). Node ids number the voxels chosen in that
// order. resolveLinks then asks for them by point (LinkEndFinder).
class VolumeWorldEnds : public WorldLinkEnds {
public:
    VolumeWorldEnds(const std::vector<LinkSpec>& links, const WorldLayout& layout,
                    const voxel::VoxelGrid& frame, float agent_radius)
        : layout_(layout), cell_(frame.cell_size), height_(frame.cell_height) {
        std::copy(frame.origin, frame.origin + 3, origin_);
        forEachEnd(
            links, formats::GraphType::volume, agent_radius, cell_,
            [&](const std::array<float, 3>& p, float snap, bool near) { add(p, snap, near); });
    }
    // The tiles some end reaches, ascending.
    std::vector<uint32_t> tiles() const {
        std::vector<uint32_t> out;
        for (const auto& [t, work] : work_) out.push_back(t);
        return out;
    }

    // Looks the ends within reach of tile `tile` (box b, `layers` high) up on the free voxels of
    // its columns, free(x, y, z) in world voxels (any thread, one call per tile).
    template <class Free>
    void lookUp(uint32_t tile, const WorldWindow& b, uint32_t layers, Free&& free) {
        TileWork& work = work_.at(tile);
        auto clip = [](int64_t lo, int64_t hi, int64_t a, int64_t z) {
            return std::pair{std::max(lo, a), std::min(hi, z)};
        };
        for (uint32_t q : work.queries) {
            const Query& query = queries_[q];
            const VoxelEndRule rule(origin_, cell_, height_, query.point.data(), query.snap,
                                    kVertical);
            if (!rule.finite) continue;
            const bool mine = rule.cx >= b.x0 && rule.cx < b.x1 && rule.cz >= b.z0 &&
                              rule.cz < b.z1 && rule.cy >= 0 && rule.cy < layers;
            if (mine && free(rule.cx, rule.cy, rule.cz)) {
                work.hits.push_back({q, true, 0.0, uint32_t(rule.cx), uint32_t(rule.cy),
                                     uint32_t(rule.cz), query.point});
                continue;
            }
            Hit best{q, false, std::numeric_limits<double>::infinity(), 0, 0, 0, {}};
            const auto [y0, y1] =
                clip(0, int64_t(layers) - 1, rule.cy - rule.ry, rule.cy + rule.ry);
            const auto [z0, z1] =
                clip(b.z0, int64_t(b.z1) - 1, rule.cz - rule.rx, rule.cz + rule.rx);
            const auto [x0, x1] =
                clip(b.x0, int64_t(b.x1) - 1, rule.cx - rule.rx, rule.cx + rule.rx);
            for (int64_t y = y0; y <= y1; ++y)
                for (int64_t z = z0; z <= z1; ++z)
                    for (int64_t x = x0; x <= x1; ++x) {
                        float c[3];
                        double d;
                        if (!free(x, y, z) || !rule.accepts(x, y, z, c, d) || !(d < best.distance))
                            continue;
                        best = {
                            q, false, d, uint32_t(x), uint32_t(y), uint32_t(z), {c[0], c[1], c[2]}};
                    }
            if (std::isfinite(best.distance)) work.hits.push_back(best);
        }
        for (uint32_t k : work.near) {
            const std::array<float, 3>& point = near_points_[k];
            Hit best{k, false, std::numeric_limits<double>::infinity(), 0, 0, 0, {}};
            int64_t lo[3], hi[3];
            if (!nearBox(point, near_reach_[k], lo, hi)) continue;
            const auto [y0, y1] = clip(0, int64_t(layers) - 1, lo[1], hi[1]);
            const auto [z0, z1] = clip(b.z0, int64_t(b.z1) - 1, lo[2], hi[2]);
            const auto [x0, x1] = clip(b.x0, int64_t(b.x1) - 1, lo[0], hi[0]);
            for (int64_t y = y0; y <= y1; ++y)
                for (int64_t z = z0; z <= z1; ++z)
                    for (int64_t x = x0; x <= x1; ++x) {
                        if (!free(x, y, z)) continue;
                        float c[3];
                        VoxelEndRule::centre(origin_, cell_, height_, x, y, z, c);
                        const double dx = double(c[0]) - point[0], dy = double(c[1]) - point[1],
                                     dz = double(c[2]) - point[2];
                        const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
                        if (d < best.distance)
                            best = {k,
                                    false,
                                    d,
                                    uint32_t(x),
                                    uint32_t(y),
                                    uint32_t(z),
                                    {c[0], c[1], c[2]}};
                    }
            if (std::isfinite(best.distance)) work.near_hits.push_back(best);
        }
    }

    // Merges the tiles' answers (after every lookUp) and numbers the voxels chosen.
    void finish() {
        std::vector<Hit> best(queries_.size());
        std::vector<Hit> near_best(near_points_.size());
        for (auto& [t, work] : work_) {
            for (const Hit& h : work.hits)
                if (h.before(best[h.query])) best[h.query] = h;
            for (const Hit& h : work.near_hits)
                if (h.before(near_best[h.query])) near_best[h.query] = h;
            work = TileWork{};
        }
        for (const Hit& h : best)
            if (std::isfinite(h.distance)) voxels_.push_back({h.y, h.z, h.x});
        std::sort(voxels_.begin(), voxels_.end());
        voxels_.erase(std::unique(voxels_.begin(), voxels_.end()), voxels_.end());
        ends_.assign(queries_.size(), LinkEnd{});
        for (uint32_t q = 0; q < queries_.size(); ++q) {
            const Hit& h = best[q];
            if (!std::isfinite(h.distance)) continue;
            ends_[q].node =
                uint32_t(std::lower_bound(voxels_.begin(), voxels_.end(), Voxel{h.y, h.z, h.x}) -
                         voxels_.begin());
            std::copy(h.point.begin(), h.point.end(), ends_[q].point);
        }
        nearest_.assign(near_points_.size(), LinkNearest{});
        for (uint32_t k = 0; k < near_points_.size(); ++k) {
            if (!std::isfinite(near_best[k].distance)) continue;
            nearest_[k].distance = near_best[k].distance;
            std::copy(near_best[k].point.begin(), near_best[k].point.end(), nearest_[k].point);
        }
    }

    // World voxel (x, y, z) of node `node`.
    std::array<uint32_t, 3> voxel(uint32_t node) const {
        const Voxel& v = voxels_[node];
        return {std::get<2>(v), std::get<0>(v), std::get<1>(v)};
    }

    // The nearest free voxel is looked for within reach(snap) of an end.
    double known(float snap) const override { return reach(snap); }

private:
    static constexpr float kVertical = 1.0f;    // resolveLinks' vertical tolerance (attachLinks)
    static constexpr double kNearBeyond = 2.0;  // [m] messages look this much beyond the snap
    using Voxel = std::tuple<uint32_t, uint32_t, uint32_t>;  // (y, z, x): the scan's order
    struct Hit {
        uint32_t query = 0;
        bool exact = false;
        double distance = std::numeric_limits<double>::infinity();
        uint32_t x = 0, y = 0, z = 0;
        std::array<float, 3> point{};
        // The one graph's choice between two answers: the voxel holding the point, else the
        // nearer, else the first in (y, z, x) order.
        bool before(const Hit& o) const {
            if (exact != o.exact) return exact;
            if (distance != o.distance) return distance < o.distance;
            return std::tie(y, z, x) < std::tie(o.y, o.z, o.x);
        }
    };
    struct TileWork {
        std::vector<uint32_t> queries, near;
        std::vector<Hit> hits, near_hits;
    };
    double reach(float snap) const { return double(std::max(snap, cell_)) + kNearBeyond; }
    // The voxels within a near point's reach (a box; false when the point is not finite).
    bool nearBox(const std::array<float, 3>& p, double reach, int64_t lo[3], int64_t hi[3]) const {
        const double size[3] = {cell_, height_, cell_};
        for (int k = 0; k < 3; ++k) {
            const double a = std::floor((double(p[k]) - reach - origin_[k]) / size[k]);
            const double b = std::floor((double(p[k]) + reach - origin_[k]) / size[k]);
            if (!std::isfinite(a) || !std::isfinite(b) || std::fabs(a) > 1e15 ||
                std::fabs(b) > 1e15)
                return false;
            lo[k] = int64_t(a);
            hi[k] = int64_t(b);
        }
        return true;
    }
    // Registers the tiles whose columns [x0, x1] x [z0, z1] reach.
    template <class Add>
    void forTiles(int64_t x0, int64_t x1, int64_t z0, int64_t z1, Add&& add) {
        x0 = std::max<int64_t>(x0, 0);
        z0 = std::max<int64_t>(z0, 0);
        x1 = std::min<int64_t>(x1, int64_t(layout_.size_x) - 1);
        z1 = std::min<int64_t>(z1, int64_t(layout_.size_z) - 1);
        if (x0 > x1 || z0 > z1) return;
        const int64_t c = layout_.tile_cells;
        for (int64_t tz = z0 / c; tz <= z1 / c; ++tz)
            for (int64_t tx = x0 / c; tx <= x1 / c; ++tx)
                add(work_[uint32_t(tz * layout_.tiles_x + tx)]);
    }
    void add(const std::array<float, 3>& p, float snap, bool near) {
        // No structured bindings here: the lambdas capture them (clang < 16 cannot).
        if (const auto added = addQuery(p, snap); added.second) {
            const auto q = added.first;
            const VoxelEndRule rule(origin_, cell_, height_, p.data(), snap, kVertical);
            if (rule.finite)
                forTiles(rule.cx - rule.rx, rule.cx + rule.rx, rule.cz - rule.rx, rule.cz + rule.rx,
                         [&](TileWork& w) { w.queries.push_back(q); });
        }
        if (!near) return;
        const auto near_added = addNear(p);
        const auto k = near_added.first;
        if (near_added.second) near_reach_.push_back(0.0);
        if (reach(snap) <= near_reach_[k]) return;
        // Registered again with the larger reach (a tile that has it already keeps one entry).
        near_reach_[k] = reach(snap);
        int64_t lo[3], hi[3];
        if (!nearBox(p, near_reach_[k], lo, hi)) return;
        forTiles(lo[0], hi[0], lo[2], hi[2], [&](TileWork& w) {
            if (std::find(w.near.begin(), w.near.end(), k) == w.near.end()) w.near.push_back(k);
        });
    }

    WorldLayout layout_;
    float origin_[3];
    float cell_, height_;
    std::vector<double> near_reach_;     // [m] per near point: the largest of its queries'
    std::map<uint32_t, TileWork> work_;  // per tile within some end's reach
    std::vector<Voxel> voxels_;          // the voxels chosen, in (y, z, x) order: node ids
};

}  // namespace

Result<StageResult> runVolumeWorld(const WorldStage::Inputs& inputs,
                                   const WorldStage::Params& params,
                                   const std::filesystem::path& output, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    auto reader = voxel::VoxelRowReader::open(inputs.voxels);
    if (!reader) return reader.error();
    const voxel::VoxelGrid& frame = (*reader)->header();
    const WorldLayout layout = worldLayout(frame, params.tile_size);
    const std::filesystem::path folder = output.parent_path();
    const uint32_t tile_count = layout.tiles_x * layout.tiles_z;
    const uint32_t sy = frame.size_y;
    if (uint64_t(layout.tile_cells + 2) * (layout.tile_cells + 2) * sy >= kNoNode)
        return inputError(
            "world: a volume tile of {} x {} columns and {} layers is too large "
            "(fewer than 2^32 - 1 voxels; use smaller world tiles)",
            layout.tile_cells, layout.tile_cells, sy);
    // The window a tile's free flags are computed on: the ring and the clearance beyond it.
    const int clearance = voxel::metresToCells(params.agent_radius, frame.cell_size,
                                               voxel::CellRounding::up, 1 << 20);
    const uint32_t margin = uint32_t(clearance) + 1;
    const int threads = resolveThreads(params.threads);
    uint64_t progress = 0;
    // The free flags of tile (tx, tz)'s columns, computed on the window that reaches the agent's
    // clearance beyond its ring (`rows`: the window, as `windows` holds it): the window's flags
    // and size.
    struct FreeWindow {
        std::vector<uint8_t> flags;
        uint32_t x0, z0, width, depth;
        bool free(int64_t x, int64_t y, int64_t z) const {
            return flags[(size_t(y) * depth + size_t(z - z0)) * width + size_t(x - x0)] != 0;
        }
    };
    auto freeWindow = [&](const voxel::GridRows& rows, const WorldWindow& b) {
        FreeWindow w;
        w.x0 = b.x0 > margin ? b.x0 - margin : 0;
        w.z0 = b.z0 > margin ? b.z0 - margin : 0;
        const uint32_t x1 = std::min(layout.size_x, b.x1 + margin);
        const uint32_t z1 = std::min(layout.size_z, b.z1 + margin);
        w.width = x1 - w.x0;
        w.depth = z1 - w.z0;
        Context quiet;
        const voxel::VoxelGrid window = voxel::cropGrid(frame, rows, w.x0, w.z0, x1, z1);
        auto free = volumeFreeVoxels(window, params.agent_radius, quiet);
        if (!free) throw std::runtime_error(free.error().message);
        w.flags = std::move(free).value();
        return w;
    };

    // Each row of tiles' windows (a tile's columns, ring and clearance beyond) held compressed
    // until its tiles take them.
    const voxel::TileWindowLayout window_layout{layout.tile_cells, layout.tiles_x, layout.tiles_z,
                                                layout.size_x,     layout.size_z,  margin};

    // The links: each lane end looked up on the tiles within its reach (their rows read again),
    // then resolved as resolveLinks resolves them on the one volume graph; a lane's ends are
    // voxels of its two tiles' boxes.
    std::vector<LinkSpec> generated_out;
    auto gathered =
        worldLinkSpecs(inputs.voxels, frame, params, nullptr, {}, generated_out, context);
    if (!gathered) return gathered.error();
    std::vector<LinkSpec> specs = std::move(gathered).value();
    keepVolumeLinks(specs);           // as the graph stage keeps them for a volume graph
    WorldLanes resolved(tile_count);  // the links' lanes
    if (!specs.empty()) {
        VolumeWorldEnds ends(specs, layout, frame, params.agent_radius);
        std::map<uint32_t, std::vector<uint32_t>> by_row;
        for (uint32_t t : ends.tiles()) by_row[t / layout.tiles_x].push_back(t % layout.tiles_x);
        auto again = voxel::VoxelRowReader::open(inputs.voxels);
        if (!again) return again.error();
        uint64_t looked = 0, reached = 0;
        for (const auto& [row, txs] : by_row) reached += txs.size();
        voxel::TileRowWindows windows;
        for (const auto& [row, txs] : by_row) {
            const uint32_t tz_row = row;
            const std::vector<uint32_t>& in_row = txs;
            if (Status s = windows.read(rowSource(**again), window_layout, tz_row,
                                        [&](uint32_t tx) {
                                            return std::binary_search(in_row.begin(), in_row.end(),
                                                                      tx);
                                        });
                !s)
                return s.error();
            if (Status s = runParallel(
                    "world links", in_row.size(), threads, context, looked, reached,
                    [&](size_t k) {
                        const uint32_t tx = in_row[k];
                        const WorldWindow b = tileWindow(layout, tx, tz_row);
                        voxel::TileRowWindows::Decoded decoded;
                        auto rows = windows.window(window_layout, tx, tz_row, decoded);
                        if (!rows) throw std::runtime_error(rows.error().message);
                        const FreeWindow w = freeWindow(*rows, b);
                        ends.lookUp(
                            tz_row * layout.tiles_x + tx, b, sy,
                            [&](int64_t x, int64_t y, int64_t z) { return w.free(x, y, z); });
                    });
                !s)
                return s.error();
        }
        ends.finish();
        Graph frame_graph;  // the one volume graph's header: costs, snap and messages
        frame_graph.header = volumeGraphHeader(frame, params.agent_radius);
        frame_graph.areas = frame.areas;
        auto records = resolveLinks(frame_graph, ends, specs, resolved.type_names, resolved.stats,
                                    1.0f, params.threads, &context);
        if (!records) return records.error();
        // A world voxel as (tile, voxel of its box).
        auto place = [&](uint32_t node, uint32_t& tile) {
            const auto [x, y, z] = ends.voxel(node);
            const uint32_t tx = x / layout.tile_cells, tz = z / layout.tile_cells;
            tile = tz * layout.tiles_x + tx;
            const WorldWindow b = tileWindow(layout, tx, tz);
            return uint32_t((uint64_t(y) * (b.bz1 - b.bz0) + (z - b.bz0)) * (b.bx1 - b.bx0) +
                            (x - b.bx0));
        };
        for (formats::LinkRecord r : *records) {
            WorldLane lane;
            r.from_node = place(r.from_node, lane.from_tile);
            r.to_node = place(r.to_node, lane.to_tile);
            lane.record = r;
            resolved.add(lane);
        }
    }

    std::vector<VolumeTileSummary> tiles(tile_count);
    // A row of tiles' windows, compressed, in a spill file beside the index.
    auto spill = SpillStore::beside(output, "windows");
    if (!spill) return spill.error();
    voxel::TileRowWindows windows, carry;  // carry: the rows the next row of tiles shares
    windows.spillTo(**spill);
    carry.spillTo(**spill);
    uint32_t tz = 0;
    auto tileTask = [&](size_t tile_in_row) {
        const uint32_t tx = uint32_t(tile_in_row);
        voxel::TileRowWindows::Decoded decoded;
        auto window = windows.window(window_layout, tx, tz, decoded);
        if (!window) throw std::runtime_error(window.error().message);
        const voxel::GridRows& rows = *window;
        const uint32_t i = tz * layout.tiles_x + tx;
        VolumeTileSummary& s = tiles[i];
        const WorldWindow b = tileWindow(layout, tx, tz);
        const uint32_t wx0 = b.x0 > margin ? b.x0 - margin : 0;
        const uint32_t wz0 = b.z0 > margin ? b.z0 - margin : 0;
        const uint32_t wx1 = std::min(layout.size_x, b.x1 + margin);
        const uint32_t wz1 = std::min(layout.size_z, b.z1 + margin);
        std::vector<uint8_t> prefix;
        for (uint64_t v : {layout.fingerprint, uint64_t(layout.tile_cells), uint64_t(tx),
                           uint64_t(tz), uint64_t(std::bit_cast<uint32_t>(params.agent_radius)),
                           uint64_t(params.compression), uint64_t(3)})  // 3: volume
            for (int k = 0; k < 8; ++k) prefix.push_back(uint8_t(v >> (8 * k)));
        s.content = columnsHash(frame, rows, wx0, wz0, wx1, wz1, std::move(prefix));
        const std::vector<uint32_t>& mine = resolved.by_tile[i];
        if (!mine.empty()) {  // and its lanes
            const uint64_t parts[2] = {s.content,
                                       worldLanesHash(resolved.lanes, mine, resolved.type_names)};
            s.content = formats::xxhash64(parts, sizeof parts, 0);
        }
        const std::filesystem::path file = folder / worldTileFileName(s.content);
        if (std::filesystem::exists(file)) {
            auto loaded = loadContainer(file, formats::kKindNav, formats::kNavVersion);
            auto graph = loaded ? decodeGraph(*loaded) : Result<Graph>(loaded.error());
            if (graph && graph->header.type == GraphType::volume &&
                graph->header.size_x == b.bx1 - b.bx0 && graph->header.size_z == b.bz1 - b.bz0 &&
                graph->header.size_y == sy) {
                summarise(*graph, b, resolved.lanes, mine, i, s);
                return;
            }
        }
        Context quiet;
        FreeWindow free = freeWindow(rows, b);
        // The box's flags out of the window's.
        const voxel::VoxelGrid box = voxel::cropGrid(frame, rows, b.bx0, b.bz0, b.bx1, b.bz1);
        const size_t bw = b.bx1 - b.bx0, bd = b.bz1 - b.bz0;
        std::vector<uint8_t> flags(bw * bd * sy);
        for (uint32_t y = 0; y < sy; ++y)
            for (size_t lz = 0; lz < bd; ++lz)
                std::copy_n(free.flags.data() +
                                (size_t(y) * free.depth + (b.bz0 - free.z0 + lz)) * free.width +
                                (b.bx0 - free.x0),
                            bw, flags.data() + (size_t(y) * bd + lz) * bw);
        free = FreeWindow();
        auto graph = volumeGraphFromFree(box, params.agent_radius, std::move(flags), quiet);
        if (!graph) throw std::runtime_error(graph.error().message);
        // Its lanes: those inside it as its links (its components merge across them), those
        // between tiles as WLNK records (leaving it, or arriving when two-way).
        std::vector<formats::LinkRecord> inside;
        std::vector<WorldLane> cross;
        for (uint32_t l : mine) {
            const WorldLane& lane = resolved.lanes[l];
            if (lane.from_tile == lane.to_tile)
                inside.push_back(lane.record);
            else if (lane.from_tile == i || (lane.record.flags & formats::kLinkFlagBidirectional))
                cross.push_back(lane);
        }
        if (!mine.empty()) {
            graph->link_type_names = resolved.type_names;
            if (Status st = addLinks(*graph, std::move(inside)); !st)
                throw std::runtime_error(
                    fmt::format("world tile ({}, {}): {}", tx, tz, st.error().message));
        }
        s.built = true;
        summarise(*graph, b, resolved.lanes, mine, i, s);
        if (!s.present) return;
        formats::ContainerWriter writer =
            graphWriter(*graph, formats::kKindNav, params.compression);
        std::vector<uint8_t> head(formats::kWorldTileHeaderSize);
        formats::encodeWorldTileHeader(worldTileHeader(layout, tx, tz, 0), head.data());
        writer.add(formats::kSecWorldTileHeader, std::move(head), formats::Codec::raw);
        addWorldLinkSections(writer, cross, resolved.type_names);
        if (Status st = saveContainer(file, writer); !st)
            throw std::runtime_error(st.error().message);
    };
    // World components and portals, a row of tiles at a time as rows finish: each tile's ring
    // voxels joined with the rims of the tiles built before it (its row's left part and the row
    // before); the tiles after it join theirs with its rim.
    std::vector<uint32_t> component_base(tile_count + 1, 0);
    ComponentJoin join;
    struct PortalKey {
        uint32_t a_tile, b_tile, a_component, b_component;
        bool operator<(const PortalKey& o) const {
            return std::tie(a_tile, b_tile, a_component, b_component) <
                   std::tie(o.a_tile, o.b_tile, o.a_component, o.b_component);
        }
    };
    struct PortalVoxel {
        uint32_t tile, component, x, y, z;
    };
    std::map<PortalKey, std::pair<PortalVoxel, PortalVoxel>> meetings;
    for (tz = 0; tz < layout.tiles_z; ++tz) {
        // A shard builds the tiles of every shard_count-th row of tiles into the cache; the run
        // without a shard reuses them.
        if (params.shard_count > 0 && tz % params.shard_count != params.shard_index) continue;
        if (Status s = windows.read(rowSource(**reader), window_layout, tz, {}, &carry); !s)
            return s.error();
        if (Status s = runParallel("world volume tiles", layout.tiles_x, threads, context, progress,
                                   tile_count, tileTask);
            !s)
            return s.error();
        if (params.shard_count > 0) continue;
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            const uint32_t i = tz * layout.tiles_x + tx;
            VolumeTileSummary& a = tiles[i];
            join.add(a.present ? std::span<const uint64_t>(a.component_sizes)
                               : std::span<const uint64_t>());
            component_base[i + 1] = join.size();
            a.component_sizes = std::vector<uint64_t>();
            // Its ring voxels in the tiles built before it, in voxel order (y, z, x): per layer
            // the row before its first row, then the column before its first column.
            const WorldWindow bi = tileWindow(layout, tx, tz);
            // The rims of the tiles it meets, unpacked once each for this tile.
            std::map<uint32_t, std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> rims;
            auto rimsOf = [&](uint32_t j) -> const auto& {
                auto [it, fresh] = rims.try_emplace(j);
                if (fresh) {
                    tiles[j].rim_z.unpack(it->second.first);
                    tiles[j].rim_x.unpack(it->second.second);
                }
                return it->second;
            };
            auto meet = [&](uint32_t x, uint32_t y, uint32_t z, uint32_t component) {
                if (component == kNoNode) return;
                const uint32_t j = (z / layout.tile_cells) * layout.tiles_x + x / layout.tile_cells;
                if (!tiles[j].present) return;
                const WorldWindow bj = tileWindow(layout, j % layout.tiles_x, j / layout.tiles_x);
                const auto& [rim_z, rim_x] = rimsOf(j);
                const uint32_t cb = rimComponent(rim_z, rim_x, bj, x, y, z);
                if (cb == kNoNode) return;  // not free for j (cannot be: the same flags)
                join.join(component_base[i] + component, component_base[j] + cb);
                const PortalVoxel in_a{i, component, std::clamp(x, bi.x0, bi.x1 - 1), y,
                                       std::clamp(z, bi.z0, bi.z1 - 1)};
                meetings.emplace(PortalKey{i, j, component, cb},
                                 std::pair{in_a, PortalVoxel{j, cb, x, y, z}});
            };
            if (a.present) {
                std::vector<uint32_t> ring_z, ring_x;
                a.ring_z.unpack(ring_z);
                a.ring_x.unpack(ring_x);
                const uint32_t wz = bi.bx1 - bi.bx0, wx = bi.z1 - bi.z0;
                for (uint32_t y = 0; y < sy; ++y) {
                    if (!ring_z.empty())
                        for (uint32_t x = bi.bx0; x < bi.bx1; ++x)
                            meet(x, y, bi.z0 - 1, ring_z[size_t(y) * wz + (x - bi.bx0)]);
                    if (!ring_x.empty())
                        for (uint32_t z = bi.z0; z < bi.z1; ++z)
                            meet(bi.x0 - 1, y, z, ring_x[size_t(y) * wx + (z - bi.z0)]);
                }
            }
            a.ring_z.release();
            a.ring_x.release();
        }
        // The +x rims were for this row, the +z rims of the row before for this row: no longer
        // read.
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            tiles[tz * layout.tiles_x + tx].rim_x.release();
            if (tz > 0) tiles[(tz - 1) * layout.tiles_x + tx].rim_z.release();
        }
    }
    if (params.shard_count > 0) {
        std::vector<WorldShardTile> listed;
        for (const VolumeTileSummary& t : tiles) listed.push_back({t.present, t.built, t.content});
        return writeWorldShardPart(output, params, listed);
    }
    if (Status s = (*reader)->finish(); !s) return s.error();
    // Lanes between tiles join the components of their ends.
    std::vector<std::array<uint32_t, 2>> lane_components(resolved.lanes.size(), {kNoNode, kNoNode});
    for (uint32_t i = 0; i < tile_count; ++i)
        for (size_t k = 0; k < resolved.by_tile[i].size() && k < tiles[i].lane_components.size();
             ++k)
            for (int end = 0; end < 2; ++end)
                if (tiles[i].lane_components[k][end] != kNoNode)
                    lane_components[resolved.by_tile[i][k]][end] =
                        component_base[i] + tiles[i].lane_components[k][end];
    for (uint32_t l = 0; l < resolved.lanes.size(); ++l) {
        if (resolved.lanes[l].from_tile == resolved.lanes[l].to_tile) continue;
        if (lane_components[l][0] == kNoNode || lane_components[l][1] == kNoNode)
            return makeError(ErrorKind::internal, "world: link {} lost an end between tiles",
                             resolved.lanes[l].record.id);
        join.join(lane_components[l][0], lane_components[l][1]);
    }
    std::vector<uint64_t> island_sizes;
    const std::vector<uint32_t> world_component = join.number(island_sizes);
    // Portals: both voxels of each meeting; edges across (the move's length) and, inside a tile,
    // straight lines between the portals of one component.
    WorldIndex index;
    auto centre = [&](const PortalVoxel& v) {
        return std::array<float, 3>{frame.origin[0] + (float(v.x) + 0.5f) * frame.cell_size,
                                    frame.origin[1] + (float(v.y) + 0.5f) * frame.cell_height,
                                    frame.origin[2] + (float(v.z) + 0.5f) * frame.cell_size};
    };
    auto distance = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
        const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        return float(std::sqrt(dx * dx + dy * dy + dz * dz));
    };
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> by_tile(tile_count);  // (portal, comp)
    auto addPortal = [&](const PortalVoxel& v) {
        const uint32_t id = uint32_t(index.portals.size());
        WorldIndex::Portal& p = index.portals.emplace_back();
        p.tile = v.tile;
        p.column = v.z * layout.size_x + v.x;
        p.y = int32_t(v.y);
        p.position = centre(v);
        by_tile[v.tile].push_back({id, v.component});
        return id;
    };
    for (const auto& [key, pair] : meetings) {
        const uint32_t a = addPortal(pair.first), b = addPortal(pair.second);
        const float d = distance(index.portals[a].position, index.portals[b].position);
        index.portals[a].edges.push_back({b, d});
        index.portals[b].edges.push_back({a, d});
    }
    meetings.clear();
    // A portal pair per lane between tiles: its two end voxels, the link's cost (and the way
    // back's when two-way).
    for (uint32_t l = 0; l < resolved.lanes.size(); ++l) {
        const WorldLane& lane = resolved.lanes[l];
        if (lane.from_tile == lane.to_tile) continue;
        auto end = [&](uint32_t tile, uint32_t local, uint32_t component) {
            const WorldWindow b = tileWindow(layout, tile % layout.tiles_x, tile / layout.tiles_x);
            const uint32_t bw = b.bx1 - b.bx0, bd = b.bz1 - b.bz0;
            return PortalVoxel{tile, component, b.bx0 + local % bw, local / (bw * bd),
                               b.bz0 + (local / bw) % bd};
        };
        const uint32_t a = addPortal(end(lane.from_tile, lane.record.from_node,
                                         lane_components[l][0] - component_base[lane.from_tile]));
        const uint32_t c = addPortal(end(lane.to_tile, lane.record.to_node,
                                         lane_components[l][1] - component_base[lane.to_tile]));
        index.portals[a].edges.push_back({c, lane.record.cost});
        if (lane.record.flags & formats::kLinkFlagBidirectional)
            index.portals[c].edges.push_back({a, lane.record.reverse_cost});
    }
    joinPortalsByLines(index, by_tile);
    sortPortals(index);
    formats::WorldHeader& h = index.header;
    h = worldIndexHeader(layout, frame, uint32_t(formats::GraphType::volume));
    uint64_t voxels = 0, built = 0;
    for (uint32_t i = 0; i < tile_count; ++i) {
        if (!tiles[i].present) continue;
        built += tiles[i].built;
        voxels += tiles[i].free_voxels;
        addIndexTile(index, i, tiles[i].free_voxels, tiles[i].content, world_component,
                     component_base[i], tiles[i].components);
    }
    if (Status s = saveWorldIndex(output, index); !s) return s.error();

    StageResult result = worldStageResult(h, built, start, {{"free_voxels", voxels}});
    reportIslands(island_sizes, result);
    {
        LinkTally tally;
        for (const WorldLane& lane : resolved.lanes) tally.add(lane.record);
        reportWorldLinks(specs, tally, resolved.lanes.size(), resolved.crossing, resolved.stats,
                         "link records, WLNK", result);
    }
    result.summary.push_back(fmt::format(
        "volume world: {} x {} tiles of {} columns and {} layers ({} with free voxels: {} built, "
        "{} reused), {} free voxels, {} portals -> {}",
        layout.tiles_x, layout.tiles_z, layout.tile_cells, sy, h.tile_count, built,
        h.tile_count - built, voxels, h.portal_count, output.string()));
    return result;
}

}  // namespace nav::graph
