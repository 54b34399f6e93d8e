#include "lib/runtime/navrt_world.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <queue>
#include <unordered_map>

#include "formats/bytes.h"
#include "formats/graph_sections.h"
#include "formats/volume_moves.h"

namespace navrt {
namespace fmt = nav::formats;

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr float kVertical = 2.0f;
constexpr int kAroundCells = 2;
constexpr uint32_t kMaxShortcuts =
    64;  // navmesh and volume worlds: shortcuts chained per search (PathQuery's)
// A link or seam is a shortcut (caps the heuristic) when it costs less than this share of the
// octile distance it spans: the plain edges and seams cost that distance exactly, up to the
// rounding of their costs and positions, which must not make each of them a shortcut (the cap
// would then be one cell's cost and A* a Dijkstra).
constexpr float kShortcutSlack = 1 - 1e-3f;

struct Tile {
    Asset asset;
    GraphView graph;
    fmt::WorldTileHeader header;
    std::vector<uint32_t> seam_offsets;  // per node + 1
    std::vector<fmt::SeamRecord> seams;  // by source node
    // Per seam (as `seams`): kNoLink, or the link between tiles it takes (WSLK: record << 1 |
    // reverse); empty when no seam is a link. The records (WLNK).
    std::vector<uint32_t> seam_links;
    std::vector<fmt::LinkRecord> cross_links;
    const char* cross_type_names = nullptr;  // WLTY: kLinkTypeNameSize bytes per user type
    uint64_t cross_type_count = 0;
    // The cheapest link edge or seam that costs less than the heuristic across it (a teleport):
    // while the tile is loaded the heuristic is capped by it, so it stays admissible (infinity:
    // none).
    float shortcut = std::numeric_limits<float>::infinity();
    // Navmesh worlds: the border edges (WNBE); per polygon + 1 where its edges start in
    // border_by_poly; the edges sorted by (side, a0, a1, index) for the neighbours' lookups.
    std::vector<fmt::BorderEdgeRecord> border;
    std::vector<uint32_t> border_offsets, border_by_poly, border_sorted;
    // Navmesh worlds: the links between tiles (cross_links, WLNK) and their two tiles (WLTI);
    // per polygon + 1 where the ones it takes start in cross_by_poly (record << 1 | reverse).
    std::vector<std::pair<uint32_t, uint32_t>> cross_tiles;
    std::vector<uint32_t> cross_offsets, cross_by_poly;
    std::vector<uint32_t> via;  // findPath on polygons: kNone (walked in) or its link step
    // Navmesh worlds: its links (inside it, and between tiles from it) that cost less than the
    // heuristic across them, both ways of two-way ones: take-off, landing, cost.
    struct PointShortcut {
        Vec3 from, to;
        double cost;
    };
    std::vector<PointShortcut> point_shortcuts;
    // Volume worlds: the tile's box (its columns and the ring of one column around them, clipped
    // to the world): first world column and size [cells], layers.
    uint32_t box_x0 = 0, box_z0 = 0, box_w = 0, box_d = 0, box_h = 0;
    // Volume worlds: the links its voxels take, as (voxel, link << 2 | between tiles << 1 |
    // reverse) sorted by voxel: a LINK record inside the tile, or a WLNK record (cross_links).
    std::vector<std::pair<uint32_t, uint32_t>> voxel_links;
    // POV worlds: the layer links into other tiles (WPNB: cell, direction, tile, cell) and the
    // visibility edges to other tiles' corners (WPED: corner, tile, corner, cost bits), with
    // per corner + 1 where its WPED records start.
    std::vector<std::array<uint32_t, 4>> pov_links, pov_edges;
    std::vector<uint32_t> pov_edge_offsets;
    std::vector<uint32_t> pov_edge_links;  // WPEL per WPED record (empty: none takes a link)
    std::vector<Vec3> entry;  // findPath on polygons: where the search entered each one
    std::vector<double> f;    // and its cost so far plus the heuristic from there
    // findPath's per-node state, valid where seen == the search's number (no clearing between
    // searches): cost so far, parent (tile index << 32 | node), closed.
    std::vector<double> g;
    std::vector<uint64_t> parent;
    std::vector<uint32_t> seen, closed;
};

struct Portal {
    uint32_t tile, column;
    int32_t y;
    float position[3];
};

double distance3(Vec3 a, Vec3 b) {
    const double dx = double(a.x) - b.x, dy = double(a.y) - b.y, dz = double(a.z) - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

float octile(float ax, float az, float bx, float bz) {
    const float dx = std::fabs(ax - bx), dz = std::fabs(az - bz);
    return std::max(dx, dz) + (std::sqrt(2.0f) - 1.0f) * std::min(dx, dz);
}

// A volume search's records by (tile << 32 | voxel): open addressing with linear probing, the
// slots of earlier searches told apart by a search number (no clearing between searches).
// A volume world's move (formats/volume_moves.h) and its cost.
struct VolumeMove {
    fmt::VolumeMove move;
    double cost;
};

class VoxelRecords {
public:
    struct Record {
        double g;
        uint64_t parent;
        bool closed;
        uint32_t via;  // kNone (a move), or the link taken from parent (Tile::voxel_links' entry)
    };
    void start() {
        count_ = 0;
        if (++search_ == 0) {
            std::fill(stamps_.begin(), stamps_.end(), 0);
            search_ = 1;
        }
        if (keys_.empty()) grow(1 << 12);
    }
    Record* find(uint64_t key) {
        for (size_t i = slot(key);; i = (i + 1) & mask_) {
            if (stamps_[i] != search_) return nullptr;
            if (keys_[i] == key) return &records_[i];
        }
    }
    // A new key's record (the key must not be there).
    Record& insert(uint64_t key) {
        if (2 * (count_ + 1) > keys_.size()) grow(2 * keys_.size());
        size_t i = slot(key);
        while (stamps_[i] == search_) i = (i + 1) & mask_;
        stamps_[i] = search_;
        keys_[i] = key;
        ++count_;
        return records_[i];
    }
    size_t bytes() const { return keys_.size() * (8 + 4 + sizeof(Record)); }

private:
    size_t slot(uint64_t key) const {
        return size_t((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
    }
    void grow(size_t capacity) {
        std::vector<uint64_t> keys(capacity);
        std::vector<uint32_t> stamps(capacity, 0);
        std::vector<Record> records(capacity);
        const size_t old_mask = mask_;
        mask_ = capacity - 1;
        shift_ = 64 - unsigned(std::countr_zero(capacity));
        for (size_t i = 0; i < keys_.size() && old_mask != 0; ++i) {
            if (stamps_[i] != search_) continue;
            size_t j = slot(keys_[i]);
            while (stamps[j] == search_) j = (j + 1) & mask_;
            stamps[j] = search_;
            keys[j] = keys_[i];
            records[j] = records_[i];
        }
        keys_.swap(keys);
        stamps_.swap(stamps);
        records_.swap(records);
    }
    std::vector<uint64_t> keys_;
    std::vector<uint32_t> stamps_;
    std::vector<Record> records_;
    size_t mask_ = 0, count_ = 0;
    unsigned shift_ = 64;
    uint32_t search_ = 0;
};

}  // namespace

struct World::Impl {
    Asset index;
    fmt::WorldHeader header;
    bool mesh = false;    // the tiles are navmeshes (WIHD graph_type): nodes are polygons
    bool volume = false;  // the tiles are volume graphs: nodes are voxels of a tile's box
    // The tiles are Dirichlet domains: each holds the whole waypoint graph and the domain cells
    // of its columns; nodes are waypoints (shared by all tiles), locate() returns a cell's owner.
    bool domains = false;
    // The tiles are POV graphs: locate() names a layer cell; findPath searches the loaded tiles
    // joined into one POV graph (`merged`, rebuilt after tiles come or go).
    bool pov = false;
    struct PovMerged {
        bool dirty = true;
        std::vector<uint32_t> cell_base, corner_base;  // per tile index; kNone: not loaded
        std::vector<uint8_t> cells, corners;           // LCEL (world columns), PCRN records
        std::vector<uint32_t> neighbours, layer_components, components, offsets, targets;
        std::vector<float> positions, costs;
        std::vector<uint8_t> links;         // LINK records, their nodes the merged corners
        std::vector<uint32_t> edge_links;   // per merged edge (empty: no links)
        std::vector<uint32_t> link_tile;    // per merged record: the tile whose record it is
        std::vector<uint8_t> link_between;  // per merged record: a link between tiles
        GraphView view;
        PathQuery query;
    } merged;
    std::vector<Portal> portals;
    std::vector<uint32_t> portal_offsets, portal_targets;
    std::vector<float> portal_costs;
    std::vector<std::vector<uint32_t>> tile_portals;  // per tile index
    // World components: per tile index, where its local components start in `components`
    // (kNone: the tile has no nodes) and how many it has.
    std::vector<uint32_t> component_base, component_count;
    std::vector<uint32_t> components;
    std::vector<std::unique_ptr<Tile>> tiles;  // per tile index; null = not loaded
    uint32_t loaded = 0;
    // Search results and scratch.
    std::vector<Vec3> path;
    std::vector<WorldPathLink> path_links;
    float cost = 0;
    uint32_t expanded = 0;
    uint32_t search = 0;         // findPath's number (Tile::seen, closed)
    VoxelRecords voxel_records;  // volume worlds' findPath records, kept between searches
    // Navmesh worlds' findPath: the link steps relaxed so far (Tile::via names them).
    struct MeshStep {
        fmt::LinkRecord link;
        bool reverse;
    };
    std::vector<MeshStep> mesh_steps;
    // Navmesh and volume worlds' heuristic: the loaded tiles' point shortcuts with their bounds
    // for the goal.
    struct Shortcut {
        Vec3 from, to;
        double cost, bound;
    };
    std::vector<Shortcut> shortcuts;
    std::vector<VolumeMove> volume_moves;

    uint32_t tileIndex(uint32_t column) const {
        const uint32_t x = column % header.world_size_x, z = column / header.world_size_x;
        return (z / header.tile_cells) * header.tiles_x + x / header.tile_cells;
    }
    // Node of the loaded tile `t` at world column / cell top y, or kNone.
    uint32_t nodeAt(const Tile& t, uint32_t column, int32_t y) const {
        const uint32_t x = column % header.world_size_x, z = column / header.world_size_x;
        if (x < t.header.x0 || z < t.header.z0) return kNone;
        const uint32_t lx = x - t.header.x0, lz = z - t.header.z0;
        if (lx >= t.graph.header.size_x || lz >= t.graph.header.size_z) return kNone;
        return fmt::columnNodeAt(t.graph.column_nodes, t.graph.cells,
                                 lz * t.graph.header.size_x + lx, y);
    }
    // Navmesh worlds: the edge of the loaded neighbour across border edge e of tile ti that it
    // joins (formats::borderEdgeMismatch: the smallest mismatch, the first in WNBE order on
    // ties), as (tile index, edge); false when none or the neighbour is not loaded.
    bool across(uint32_t ti, uint32_t e, uint32_t& other, uint32_t& edge) const {
        const fmt::BorderEdgeRecord& r = tiles[ti]->border[e];
        const int64_t nx = int64_t(ti % header.tiles_x) + (r.side == 2) - (r.side == 0);
        const int64_t nz = int64_t(ti / header.tiles_x) + (r.side == 1) - (r.side == 3);
        if (nx < 0 || nz < 0 || nx >= int64_t(header.tiles_x) || nz >= int64_t(header.tiles_z))
            return false;
        other = uint32_t(nz) * header.tiles_x + uint32_t(nx);
        const Tile* o = tiles[other].get();
        if (!o) return false;
        const auto wanted = std::make_tuple((r.side + 2) & 3, r.a1, r.a0);
        auto it = std::lower_bound(o->border_sorted.begin(), o->border_sorted.end(), wanted,
                                   [&](uint32_t i, const auto& want) {
                                       const fmt::BorderEdgeRecord& b = o->border[i];
                                       return std::make_tuple(b.side, b.a0, b.a1) < want;
                                   });
        int32_t best = -1;
        for (; it != o->border_sorted.end(); ++it) {
            const fmt::BorderEdgeRecord& b = o->border[*it];
            if (std::make_tuple(b.side, b.a0, b.a1) != wanted) break;
            const int32_t miss = fmt::borderEdgeMismatch(r, b);
            if (miss >= 0 && (best < 0 || miss < best)) {
                best = miss;
                edge = *it;
            }
        }
        return best >= 0;
    }
    // Navmesh worlds: the polygon under p (locateOnMesh in p's tile, loaded, and the loaded tiles
    // within `horizontal` of p), the nearest; its tile index and p on its floor.
    bool locateMesh(Vec3 p, float vertical, float horizontal, uint32_t& ti, uint32_t& poly,
                    Vec3& at) const {
        int64_t cx, cz;
        if (header.tiles_x == 0 || !columnOf(p, cx, cz) ||
            !tiles[tileIndex(uint32_t(cz) * header.world_size_x + uint32_t(cx))])
            return false;
        const int64_t reach = int64_t(std::ceil(horizontal / header.cell_size)) + 1;
        const int64_t tc = header.tile_cells;
        float best = std::numeric_limits<float>::infinity();
        for (int64_t tz = (cz - reach) / tc; tz <= (cz + reach) / tc; ++tz)
            for (int64_t tx = (cx - reach) / tc; tx <= (cx + reach) / tc; ++tx) {
                if (tx < 0 || tz < 0 || tx >= int64_t(header.tiles_x) ||
                    tz >= int64_t(header.tiles_z))
                    continue;
                const uint32_t i = uint32_t(tz) * header.tiles_x + uint32_t(tx);
                const Tile* t = tiles[i].get();
                if (!t) continue;
                const MeshPoint m = locateOnMesh(t->graph, p, horizontal, vertical);
                if (m.poly == kNoNode || !(m.distance < best)) continue;
                best = m.distance;
                ti = i;
                poly = m.poly;
                at = m.position;
            }
        return std::isfinite(best);
    }
    // Volume worlds: tile `ti`'s box (its columns and the ring of one column around them,
    // clipped to the world): first world column and size [cells].
    void boxOf(uint32_t ti, uint32_t& x0, uint32_t& z0, uint32_t& w, uint32_t& d) const {
        const uint32_t cx = (ti % header.tiles_x) * header.tile_cells;
        const uint32_t cz = (ti / header.tiles_x) * header.tile_cells;
        const uint32_t x1 = std::min(header.world_size_x, cx + header.tile_cells);
        const uint32_t z1 = std::min(header.world_size_z, cz + header.tile_cells);
        x0 = cx > 0 ? cx - 1 : 0;
        z0 = cz > 0 ? cz - 1 : 0;
        w = std::min(header.world_size_x, x1 + 1) - x0;
        d = std::min(header.world_size_z, z1 + 1) - z0;
    }
    // The centre of voxel `local` of tile ti's box (loaded or not).
    Vec3 boxVoxelCentre(uint32_t ti, uint32_t local) const {
        uint32_t x0, z0, bw, bd;
        boxOf(ti, x0, z0, bw, bd);
        return voxelCentre(int64_t(x0 + local % bw), int64_t(local / (uint64_t(bw) * bd)),
                           int64_t(z0 + (local / bw) % bd));
    }
    // Volume worlds: world voxel (x, y, z) as (tile index, voxel of its box) of the loaded tile
    // whose columns hold it; false when outside the world or that tile is not loaded.
    bool ownerVoxel(int64_t x, int64_t y, int64_t z, uint32_t& ti, uint32_t& local) const {
        if (x < 0 || z < 0 || x >= int64_t(header.world_size_x) ||
            z >= int64_t(header.world_size_z) || y < 0)
            return false;
        ti = tileIndex(uint32_t(z) * header.world_size_x + uint32_t(x));
        const Tile* t = tiles[ti].get();
        if (!t || y >= int64_t(t->box_h)) return false;
        local = boxVoxel(*t, x, y, z);
        return true;
    }
    static uint32_t boxVoxel(const Tile& t, int64_t x, int64_t y, int64_t z) {
        return uint32_t((uint64_t(y) * t.box_d + uint64_t(z - t.box_z0)) * t.box_w +
                        uint64_t(x - t.box_x0));
    }
    // Whether world voxel (x, y, z) is free as tile t's box holds it (false outside the box).
    static bool boxFree(const Tile& t, int64_t x, int64_t y, int64_t z) {
        if (x < int64_t(t.box_x0) || z < int64_t(t.box_z0) || y < 0 ||
            x >= int64_t(t.box_x0 + t.box_w) || z >= int64_t(t.box_z0 + t.box_d) ||
            y >= int64_t(t.box_h))
            return false;
        return t.graph.isFree(boxVoxel(t, x, y, z));
    }
    // World voxel of voxel `local` of tile t's box.
    static void worldVoxel(const Tile& t, uint32_t local, int64_t& x, int64_t& y, int64_t& z) {
        x = int64_t(t.box_x0 + local % t.box_w);
        z = int64_t(t.box_z0 + (local / t.box_w) % t.box_d);
        y = int64_t(local / (uint64_t(t.box_w) * t.box_d));
    }
    Vec3 voxelCentre(int64_t x, int64_t y, int64_t z) const {
        return {header.origin[0] + (float(x) + 0.5f) * header.cell_size,
                header.origin[1] + (float(y) + 0.5f) * header.cell_height,
                header.origin[2] + (float(z) + 0.5f) * header.cell_size};
    }
    // Volume worlds: the free voxel nearest p within `cells` columns around it and `vertical`
    // metres up or down, in loaded tiles (p's own column's tile must be loaded).
    bool locateVoxel(Vec3 p, float vertical, int cells, uint32_t& ti, uint32_t& local) const {
        int64_t cx, cz;
        if (header.tiles_x == 0 || !columnOf(p, cx, cz) ||
            !tiles[tileIndex(uint32_t(cz) * header.world_size_x + uint32_t(cx))])
            return false;
        const int64_t cy =
            int64_t(std::floor((double(p.y) - header.origin[1]) / header.cell_height));
        const double ky = std::ceil(double(vertical) / header.cell_height);
        // The layers within reach, clipped to the tile's (a huge tolerance is the whole column).
        const int64_t layers =
            int64_t(tiles[tileIndex(uint32_t(cz) * header.world_size_x + uint32_t(cx))]->box_h);
        const int64_t y0 = int64_t(std::max(0.0, double(cy) - ky));
        const int64_t y1 = int64_t(std::min(double(layers - 1), double(cy) + ky));
        float best = std::numeric_limits<float>::infinity();
        for (int64_t z = cz - cells; z <= cz + cells; ++z)
            for (int64_t x = cx - cells; x <= cx + cells; ++x)
                for (int64_t y = y0; y <= y1; ++y) {
                    uint32_t t, v;
                    if (!ownerVoxel(x, y, z, t, v) || !tiles[t]->graph.isFree(v)) continue;
                    const Vec3 c = voxelCentre(x, y, z);
                    const float d = (c.x - p.x) * (c.x - p.x) + (c.y - p.y) * (c.y - p.y) +
                                    (c.z - p.z) * (c.z - p.z);
                    if (d < best) {
                        best = d;
                        ti = t;
                        local = v;
                    }
                }
        return std::isfinite(best);
    }
    // Dirichlet and POV worlds: the layer cell nearest p (navrt::locate's rule on a Dirichlet or
    // POV graph, in the world's frame: the smallest horizontal distance to the cell's column
    // squared plus the height difference to its floor squared, within the tolerances, the first
    // in column order on ties) among the loaded tiles' cells; p's own column's tile must be
    // loaded.
    bool locateCell(Vec3 p, float vertical_tolerance, float horizontal_tolerance, uint32_t& ti,
                    uint32_t& cell) const {
        int64_t px, pz;
        if (header.tiles_x == 0 || !columnOf(p, px, pz) ||
            !tiles[tileIndex(uint32_t(pz) * header.world_size_x + uint32_t(px))] ||
            !std::isfinite(p.y))
            return false;
        const double fx = (double(p.x) - header.origin[0]) / header.cell_size;
        const double fz = (double(p.z) - header.origin[2]) / header.cell_size;
        const int radius =
            horizontal_tolerance > 0 ? int(std::ceil(horizontal_tolerance / header.cell_size)) : 0;
        const int cx = int(std::floor(fx)), cz = int(std::floor(fz));
        bool found = false;
        double best_score = 0;
        for (int z = cz - radius; z <= cz + radius; ++z) {
            for (int x = cx - radius; x <= cx + radius; ++x) {
                if (x < 0 || z < 0 || uint32_t(x) >= header.world_size_x ||
                    uint32_t(z) >= header.world_size_z)
                    continue;
                const uint32_t at = tileIndex(uint32_t(z) * header.world_size_x + uint32_t(x));
                const Tile* t = tiles[at].get();
                if (!t) continue;
                const uint32_t lx = uint32_t(x) - t->header.x0, lz = uint32_t(z) - t->header.z0;
                if (lx >= t->graph.header.size_x || lz >= t->graph.header.size_z) continue;
                const double ex = std::max({0.0, double(x) - fx, fx - double(x + 1)});
                const double ez = std::max({0.0, double(z) - fz, fz - double(z + 1)});
                const double horizontal = std::sqrt(ex * ex + ez * ez) * header.cell_size;
                const size_t c = size_t(lz) * t->graph.header.size_x + lx;
                for (uint32_t n = t->graph.layer_columns[c]; n < t->graph.layer_columns[c + 1];
                     ++n) {
                    const fmt::NodeCell k =
                        fmt::decodeNodeCell(t->graph.layer_cells + size_t(n) * fmt::kNodeCellSize);
                    const double floor_y =
                        double(header.origin[1] + float(k.y) * header.cell_height);
                    const double vertical = std::fabs(floor_y - p.y);
                    if (horizontal > horizontal_tolerance || vertical > vertical_tolerance)
                        continue;
                    const double score = horizontal * horizontal + vertical * vertical;
                    if (!found || score < best_score) {
                        found = true;
                        best_score = score;
                        ti = at;
                        cell = n;
                    }
                }
            }
        }
        return found;
    }
    bool columnOf(Vec3 p, int64_t& x, int64_t& z) const {
        x = int64_t(std::floor((double(p.x) - header.origin[0]) / header.cell_size));
        z = int64_t(std::floor((double(p.z) - header.origin[2]) / header.cell_size));
        return x >= 0 && z >= 0 && x < int64_t(header.world_size_x) &&
               z < int64_t(header.world_size_z);
    }
};

World::World() : impl_(std::make_unique<Impl>()) {}
World::~World() = default;

namespace {

Error badSection(uint32_t id, const char* what) {
    Error e;
    e.code = ErrorCode::bad_section;
    e.section = id;
    std::snprintf(e.message, sizeof(e.message), "%s", what);
    return e;
}

}  // namespace

// Decodes the index asset into `w` (which holds it).
static Error decodeIndex(World::Impl& w, uint64_t max_memory);

Error World::initFile(const char* path, const LoadOptions& options) {
    impl_ = std::make_unique<Impl>();
    LoadOptions o = options;
    o.expected_kind = fmt::kKindWorld;
    if (Error e = load(path, impl_->index, o)) return e;
    return decodeIndex(*impl_, o.max_memory);
}

Error World::init(const void* index, size_t size, const LoadOptions& options) {
    impl_ = std::make_unique<Impl>();
    LoadOptions o = options;
    o.expected_kind = fmt::kKindWorld;
    if (Error e = loadFromMemory(index, size, impl_->index, o)) return e;
    return decodeIndex(*impl_, o.max_memory);
}

static Error decodeIndex(World::Impl& w, uint64_t max_memory) {
    SectionView view;
    if (Error e = w.index.require(fmt::kSecWorldHeader, view)) return e;
    if (Error e = fmt::decodeWorldHeader(view.data, view.size, w.header)) return e;
    // The per-tile tables below (a grid may have up to 2^28 tiles) within the memory limit: a
    // world far larger than its tiles is refused here, not by an allocation failing.
    const uint64_t grid_tiles = uint64_t(w.header.tiles_x) * w.header.tiles_z;
    constexpr uint64_t kPerTile = sizeof(decltype(w.tiles)::value_type) +
                                  sizeof(decltype(w.tile_portals)::value_type) +
                                  2 * sizeof(decltype(w.component_base)::value_type);
    if (grid_tiles * kPerTile > max_memory) {
        Error e;
        e.code = ErrorCode::out_of_memory;
        std::snprintf(e.message, sizeof(e.message),
                      "world index: a grid of %u x %u tiles needs %llu bytes of tile tables, "
                      "more than the %llu-byte memory limit",
                      w.header.tiles_x, w.header.tiles_z,
                      static_cast<unsigned long long>(grid_tiles * kPerTile),
                      static_cast<unsigned long long>(max_memory));
        return e;
    }
    SectionView portals, offsets, targets, costs;
    if (Error e = w.index.require(fmt::kSecWorldPortals, portals)) return e;
    if (Error e = w.index.require(fmt::kSecWorldPortalOffsets, offsets)) return e;
    if (Error e = w.index.require(fmt::kSecWorldPortalTargets, targets)) return e;
    if (Error e = w.index.require(fmt::kSecWorldPortalCosts, costs)) return e;
    const fmt::WorldHeader& h = w.header;
    w.mesh = h.graph_type == uint32_t(fmt::GraphType::navmesh);
    w.volume = h.graph_type == uint32_t(fmt::GraphType::volume);
    w.domains = h.graph_type == uint32_t(fmt::GraphType::dirichlet);
    w.pov = h.graph_type == uint32_t(fmt::GraphType::pov);
    w.merged.dirty = true;
    w.volume_moves.clear();  // their costs follow the cell sizes
    if (portals.size != size_t(h.portal_count) * fmt::kPortalRecordSize)
        return badSection(fmt::kSecWorldPortals,
                          "world index: section 'WPNT' does not hold 24 bytes per portal");
    if (offsets.size != (size_t(h.portal_count) + 1) * 4 ||
        targets.size != size_t(h.portal_edge_count) * 4 ||
        costs.size != size_t(h.portal_edge_count) * 4)
        return badSection(fmt::kSecWorldPortalOffsets,
                          "world index: the portal graph's sections disagree with WIHD's counts");
    const uint32_t tile_count = h.tiles_x * h.tiles_z;
    w.tile_portals.assign(tile_count, {});
    w.tiles.clear();
    w.tiles.resize(tile_count);
    w.loaded = 0;
    w.portals.resize(h.portal_count);
    for (uint32_t p = 0; p < h.portal_count; ++p) {
        const uint8_t* r = portals.data + size_t(p) * fmt::kPortalRecordSize;
        Portal& q = w.portals[p];
        q.tile = fmt::loadLe32(r);
        q.column = fmt::loadLe32(r + 4);
        q.y = int32_t(fmt::loadLe32(r + 8));
        std::memcpy(q.position, r + 12, 12);
        if (q.tile >= tile_count ||
            uint64_t(q.column) >= uint64_t(h.world_size_x) * h.world_size_z ||
            w.tileIndex(q.column) != q.tile)
            return badSection(fmt::kSecWorldPortals, "world index: a portal lies outside its tile");
        w.tile_portals[q.tile].push_back(p);
    }
    w.portal_offsets.resize(size_t(h.portal_count) + 1);
    std::memcpy(w.portal_offsets.data(), offsets.data, offsets.size);
    w.portal_targets.resize(h.portal_edge_count);
    if (targets.size) std::memcpy(w.portal_targets.data(), targets.data, targets.size);
    w.portal_costs.resize(h.portal_edge_count);
    if (costs.size) std::memcpy(w.portal_costs.data(), costs.data, costs.size);
    for (uint32_t p = 0; p < h.portal_count; ++p)
        if (w.portal_offsets[p] > w.portal_offsets[p + 1])
            return badSection(fmt::kSecWorldPortalOffsets, "world index: portal offsets decrease");
    if (w.portal_offsets[0] != 0 || w.portal_offsets[h.portal_count] != h.portal_edge_count)
        return badSection(fmt::kSecWorldPortalOffsets,
                          "world index: portal offsets do not span the edges");
    for (uint32_t e = 0; e < h.portal_edge_count; ++e)
        if (w.portal_targets[e] >= h.portal_count || !(w.portal_costs[e] >= 0) ||
            !std::isfinite(w.portal_costs[e]))
            return badSection(fmt::kSecWorldPortalTargets,
                              "world index: a portal edge is out of range");
    // Tiles and their world components.
    SectionView records, component_offsets, components;
    if (Error e = w.index.require(fmt::kSecWorldTiles, records)) return e;
    if (Error e = w.index.require(fmt::kSecWorldComponentOffsets, component_offsets)) return e;
    if (Error e = w.index.require(fmt::kSecWorldComponents, components)) return e;
    if (records.size != size_t(h.tile_count) * 16 ||
        component_offsets.size != (size_t(h.tile_count) + 1) * 4 || components.size % 4 != 0)
        return badSection(fmt::kSecWorldTiles,
                          "world index: sections 'WTIL', 'WCOF' and 'WCID' disagree with WIHD");
    w.component_base.assign(tile_count, kNone);
    w.component_count.assign(tile_count, 0);
    w.components.resize(components.size / 4);
    if (components.size) std::memcpy(w.components.data(), components.data, components.size);
    const uint32_t total = uint32_t(w.components.size());
    for (uint32_t i = 0; i < h.tile_count; ++i) {
        const uint32_t tile = fmt::loadLe32(records.data + 16 * size_t(i));
        const uint32_t first = fmt::loadLe32(component_offsets.data + 4 * size_t(i));
        const uint32_t end = fmt::loadLe32(component_offsets.data + 4 * size_t(i) + 4);
        // Offsets from 0, each range with at least one component (every listed tile has nodes;
        // a POV tile's range is its layer components).
        if (tile >= tile_count || w.component_base[tile] != kNone || (i == 0 && first != 0) ||
            first >= end || end > total || (i + 1 == h.tile_count && end != total))
            return badSection(fmt::kSecWorldComponentOffsets,
                              "world index: a tile record or its component range is out of range");
        w.component_base[tile] = first;
        w.component_count[tile] = end - first;
    }
    for (uint32_t c : w.components)
        if (c >= total)
            return badSection(fmt::kSecWorldComponents,
                              "world index: a world component id is out of range");
    return {};
}

// A tile's links between tiles: the records of WLNK (`rv`, whole records) and the user type names
// of WLTY when present, each record checked against them.
Error readCrossLinks(Tile& tile, const SectionView& rv) {
    if (const SectionView tv = tile.asset.find(fmt::kSecWorldLinkTypes); tv.data != nullptr) {
        if (Error e = fmt::validateLinkTypeNames(fmt::kSecWorldLinkTypes, tv.data, tv.size,
                                                 tile.cross_type_count))
            return e;
        tile.cross_type_names = reinterpret_cast<const char*>(tv.data);
    }
    tile.cross_links.resize(rv.size / fmt::kLinkRecordSize);
    for (size_t i = 0; i < tile.cross_links.size(); ++i) {
        if (Error e = fmt::decodeLinkRecord(rv.data + i * fmt::kLinkRecordSize,
                                            fmt::kLinkRecordSize, tile.cross_links[i]))
            return e;
        const fmt::LinkRecord& l = tile.cross_links[i];
        if (fmt::isUserLinkType(l.type) &&
            uint32_t(l.type) - fmt::kLinkTypeUserFirst >= tile.cross_type_count)
            return badSection(fmt::kSecWorldLinks,
                              "world: a link between tiles names a user type 'WLTY' does not");
    }
    return {};
}

// A tile graph's seams (WSEM) and links between tiles (WSLK, WLNK, WLTY), by source node, and
// its shortcut.
Error readSeams(World::Impl& w, Tile& tile, uint32_t index) {
    const fmt::WorldTileHeader& h = tile.header;
    const uint32_t n = tile.graph.header.node_count;
    SectionView sv;
    if (Error e = tile.asset.require(fmt::kSecWorldSeams, sv)) return e;
    if (sv.size != size_t(h.seam_count) * fmt::kSeamRecordSize)
        return badSection(fmt::kSecWorldSeams,
                          "world: section 'WSEM' does not hold 16 bytes per "
                          "seam of WTHD's count");
    std::vector<fmt::SeamRecord> seams(h.seam_count);
    const uint64_t world_columns = uint64_t(h.world_size_x) * h.world_size_z;
    for (uint32_t i = 0; i < h.seam_count; ++i) {
        seams[i] = fmt::decodeSeam(sv.data + size_t(i) * fmt::kSeamRecordSize);
        if (seams[i].from >= n || seams[i].column >= world_columns || !(seams[i].cost > 0) ||
            !std::isfinite(seams[i].cost) || w.tileIndex(seams[i].column) == index)
            return badSection(fmt::kSecWorldSeams, "world: a seam edge is out of range");
    }
    // Links between tiles (optional): which seams take one, and their records.
    std::vector<uint32_t> seam_links;
    if (const SectionView lv = tile.asset.find(fmt::kSecWorldSeamLinks); lv.data != nullptr) {
        SectionView rv;
        if (Error e = tile.asset.require(fmt::kSecWorldLinks, rv)) return e;
        if (lv.size != size_t(h.seam_count) * 4 || rv.size % fmt::kLinkRecordSize != 0)
            return badSection(fmt::kSecWorldSeamLinks,
                              "world: section 'WSLK' does not hold 4 bytes per seam, or 'WLNK' "
                              "not whole link records");
        const size_t records = rv.size / fmt::kLinkRecordSize;
        if (Error e = readCrossLinks(tile, rv)) return e;
        seam_links.resize(h.seam_count);
        for (uint32_t i = 0; i < h.seam_count; ++i) {
            seam_links[i] = fmt::loadLe32(lv.data + 4 * size_t(i));
            if (seam_links[i] != fmt::kNoLink && (seam_links[i] >> 1) >= records)
                return badSection(fmt::kSecWorldSeamLinks,
                                  "world: a seam names a link 'WLNK' does not hold");
        }
    }
    // By source node (stable: the file's order within a node).
    tile.seam_offsets.assign(size_t(n) + 1, 0);
    for (const fmt::SeamRecord& s : seams) ++tile.seam_offsets[s.from + 1];
    for (uint32_t v = 0; v < n; ++v) tile.seam_offsets[v + 1] += tile.seam_offsets[v];
    tile.seams.resize(seams.size());
    if (!seam_links.empty()) tile.seam_links.resize(seams.size());
    std::vector<uint32_t> at(tile.seam_offsets.begin(), tile.seam_offsets.end() - 1);
    for (size_t i = 0; i < seams.size(); ++i) {
        const uint32_t slot = at[seams[i].from]++;
        tile.seams[slot] = seams[i];
        if (!seam_links.empty()) tile.seam_links[slot] = seam_links[i];
    }
    // Shortcuts: link edges (and seams, which links between tiles are) cheaper than the octile
    // distance scaled by the tile's cheapest area; the plain edges never are.
    {
        const float scale = tile.graph.header.min_cost_multiplier;
        const float* p = tile.graph.positions;
        for (uint32_t u = 0; u < n; ++u) {
            for (uint32_t e = tile.graph.edge_offsets[u]; e < tile.graph.edge_offsets[u + 1]; ++e) {
                if (tile.graph.edgeLink(e) == fmt::kNoLink) continue;
                const uint32_t v = tile.graph.edgeTarget(u, e);
                const float cost = tile.graph.edge_costs[e];
                if (cost <
                    octile(p[3 * u], p[3 * u + 2], p[3 * v], p[3 * v + 2]) * scale * kShortcutSlack)
                    tile.shortcut = std::min(tile.shortcut, cost);
            }
            for (uint32_t s = tile.seam_offsets[u]; s < tile.seam_offsets[u + 1]; ++s) {
                const fmt::SeamRecord& seam = tile.seams[s];
                const float x = w.header.origin[0] +
                                (float(seam.column % h.world_size_x) + 0.5f) * w.header.cell_size;
                const float z = w.header.origin[2] +
                                (float(seam.column / h.world_size_x) + 0.5f) * w.header.cell_size;
                if (seam.cost < octile(p[3 * u], p[3 * u + 2], x, z) * scale * kShortcutSlack)
                    tile.shortcut = std::min(tile.shortcut, seam.cost);
            }
        }
    }
    return {};
}

// A navmesh tile's border edges (WNBE): by polygon, and sorted for the neighbours' lookups.
Error readBorderEdges(Tile& tile) {
    const fmt::WorldTileHeader& h = tile.header;
    const uint32_t n = tile.graph.header.node_count;
    SectionView bv;
    if (Error e = tile.asset.require(fmt::kSecWorldBorderEdges, bv)) return e;
    if (bv.size != size_t(h.seam_count) * fmt::kBorderEdgeRecordSize)
        return badSection(fmt::kSecWorldBorderEdges,
                          "world: section 'WNBE' does not hold 28 bytes per border edge of "
                          "WTHD's count");
    tile.border.resize(h.seam_count);
    tile.border_offsets.assign(size_t(n) + 1, 0);
    for (uint32_t i = 0; i < h.seam_count; ++i) {
        const fmt::BorderEdgeRecord e =
            fmt::decodeBorderEdge(bv.data + size_t(i) * fmt::kBorderEdgeRecordSize);
        if (e.poly >= n || e.side > 3 ||
            e.edge >= tile.graph.poly_offsets[e.poly + 1] - tile.graph.poly_offsets[e.poly])
            return badSection(
                fmt::kSecWorldBorderEdges,
                "world: a border edge in 'WNBE' names a polygon, edge or side out of range");
        tile.border[i] = e;
        ++tile.border_offsets[e.poly + 1];
    }
    for (uint32_t v = 0; v < n; ++v) tile.border_offsets[v + 1] += tile.border_offsets[v];
    tile.border_by_poly.resize(h.seam_count);
    std::vector<uint32_t> at(tile.border_offsets.begin(), tile.border_offsets.end() - 1);
    for (uint32_t i = 0; i < h.seam_count; ++i) tile.border_by_poly[at[tile.border[i].poly]++] = i;
    tile.border_sorted.resize(h.seam_count);
    for (uint32_t i = 0; i < h.seam_count; ++i) tile.border_sorted[i] = i;
    std::sort(tile.border_sorted.begin(), tile.border_sorted.end(), [&](uint32_t a, uint32_t b) {
        const fmt::BorderEdgeRecord &x = tile.border[a], &y = tile.border[b];
        return std::tie(x.side, x.a0, x.a1, a) < std::tie(y.side, y.a0, y.a1, b);
    });
    tile.entry.resize(n);
    tile.f.resize(n);
    tile.via.resize(n);
    return {};
}

// A navmesh or volume tile's links between tiles (WLNK with their tiles in WLTI, WLTY; optional)
// into tile.cross_links and cross_tiles, each checked: both tiles in the world and different,
// leaving this tile or a two-way link arriving in it, and this tile's end a node `own` accepts
// (the other tile's is checked when that tile is there). `node` names the nodes in messages.
template <class Own>
Error readLinkTiles(const World::Impl& w, Tile& tile, uint32_t index, const char* node, Own&& own) {
    const SectionView rv = tile.asset.find(fmt::kSecWorldLinks);
    if (rv.data == nullptr) return {};
    SectionView tv;
    if (Error e = tile.asset.require(fmt::kSecWorldLinkTiles, tv)) return e;
    const size_t records = rv.size / fmt::kLinkRecordSize;
    if (rv.size % fmt::kLinkRecordSize != 0 || tv.size != records * 8)
        return badSection(fmt::kSecWorldLinkTiles,
                          "world: section 'WLNK' does not hold whole link records, or 'WLTI' "
                          "not 8 bytes per record");
    if (Error e = readCrossLinks(tile, rv)) return e;
    const uint32_t tile_count = w.header.tiles_x * w.header.tiles_z;
    tile.cross_tiles.resize(records);
    for (size_t i = 0; i < records; ++i) {
        const fmt::LinkRecord& l = tile.cross_links[i];
        const uint32_t from = fmt::loadLe32(tv.data + 8 * i),
                       to = fmt::loadLe32(tv.data + 8 * i + 4);
        tile.cross_tiles[i] = {from, to};
        const bool two_way = (l.flags & fmt::kLinkFlagBidirectional) != 0;
        if (from >= tile_count || to >= tile_count || from == to ||
            !(from == index || (to == index && two_way)) || (from == index && !own(l.from_node)) ||
            (to == index && !own(l.to_node))) {
            Error e = badSection(fmt::kSecWorldLinkTiles, "");
            std::snprintf(e.message, sizeof(e.message),
                          "world: a link between tiles in 'WLTI' names a tile or %s out of range",
                          node);
            return e;
        }
    }
    return {};
}

// A navmesh tile's links between tiles (WLNK, WLTI, WLTY; optional), by the polygon that takes
// them, and its shortcut (links, inside it or between tiles, cheaper than the heuristic across
// them: teleports).
Error readMeshLinks(const World::Impl& w, Tile& tile, uint32_t index) {
    const uint32_t n = tile.graph.header.node_count;
    const float scale = tile.graph.header.min_cost_multiplier * kShortcutSlack;
    auto shortcut = [&](const float* a, const float* b, float cost) {
        const double dx = double(a[0]) - b[0], dy = double(a[1]) - b[1], dz = double(a[2]) - b[2];
        if (!(cost < std::sqrt(dx * dx + dy * dy + dz * dz) * scale)) return;
        tile.shortcut = std::min(tile.shortcut, cost);
        tile.point_shortcuts.push_back({{a[0], a[1], a[2]}, {b[0], b[1], b[2]}, double(cost)});
    };
    for (uint32_t i = 0; i < tile.graph.link_count; ++i) {
        const fmt::LinkRecord l = tile.graph.link(i);
        shortcut(l.from, l.to, l.cost);
        if (l.flags & fmt::kLinkFlagBidirectional) shortcut(l.to, l.from, l.reverse_cost);
    }
    tile.cross_offsets.assign(size_t(n) + 1, 0);
    if (Error e = readLinkTiles(w, tile, index, "polygon", [&](uint32_t poly) { return poly < n; }))
        return e;
    const size_t records = tile.cross_links.size();
    for (size_t i = 0; i < records; ++i) {
        const fmt::LinkRecord& l = tile.cross_links[i];
        const auto [from, to] = tile.cross_tiles[i];
        const bool two_way = (l.flags & fmt::kLinkFlagBidirectional) != 0;
        if (from == index) {
            ++tile.cross_offsets[l.from_node + 1];
            shortcut(l.from, l.to, l.cost);
        }
        if (to == index && two_way) {
            ++tile.cross_offsets[l.to_node + 1];
            shortcut(l.to, l.from, l.reverse_cost);
        }
    }
    for (uint32_t v = 0; v < n; ++v) tile.cross_offsets[v + 1] += tile.cross_offsets[v];
    tile.cross_by_poly.resize(tile.cross_offsets[n]);
    std::vector<uint32_t> at(tile.cross_offsets.begin(), tile.cross_offsets.end() - 1);
    for (uint32_t i = 0; i < records; ++i) {
        const fmt::LinkRecord& l = tile.cross_links[i];
        if (tile.cross_tiles[i].first == index) tile.cross_by_poly[at[l.from_node]++] = i << 1;
        if (tile.cross_tiles[i].second == index) tile.cross_by_poly[at[l.to_node]++] = i << 1 | 1;
    }
    return {};
}

// A volume tile's links (LINK inside it; WLNK / WLTI / WLTY between tiles, optional) by the voxel
// that takes them, and its shortcuts (links cheaper than the straight line between the centres
// of their voxels, which the search's costs run between).
Error readVolumeLinks(const World::Impl& w, Tile& tile, uint32_t index) {
    const uint32_t n = tile.graph.header.node_count;
    auto shortcut = [&](Vec3 a, Vec3 b, float cost) {
        if (!(double(cost) < distance3(a, b) * kShortcutSlack)) return;
        tile.shortcut = std::min(tile.shortcut, cost);
        tile.point_shortcuts.push_back({a, b, double(cost)});
    };
    for (uint32_t i = 0; i < tile.graph.link_count; ++i) {
        const fmt::LinkRecord l = tile.graph.link(i);
        const Vec3 a = w.boxVoxelCentre(index, l.from_node), b = w.boxVoxelCentre(index, l.to_node);
        tile.voxel_links.push_back({l.from_node, i << 2});
        shortcut(a, b, l.cost);
        if (l.flags & fmt::kLinkFlagBidirectional) {
            tile.voxel_links.push_back({l.to_node, i << 2 | 1});
            shortcut(b, a, l.reverse_cost);
        }
    }
    // Its end in this tile must be a free voxel of the box; the other end is checked when the
    // search takes the link.
    if (Error e = readLinkTiles(w, tile, index, "voxel",
                                [&](uint32_t v) { return v < n && tile.graph.isFree(v); }))
        return e;
    for (uint32_t i = 0; i < tile.cross_links.size(); ++i) {
        const fmt::LinkRecord& l = tile.cross_links[i];
        const auto [from, to] = tile.cross_tiles[i];
        const bool two_way = (l.flags & fmt::kLinkFlagBidirectional) != 0;
        const Vec3 a = w.boxVoxelCentre(from, l.from_node), b = w.boxVoxelCentre(to, l.to_node);
        if (from == index) {
            tile.voxel_links.push_back({l.from_node, i << 2 | 2});
            shortcut(a, b, l.cost);
        }
        if (to == index && two_way) {
            tile.voxel_links.push_back({l.to_node, i << 2 | 3});
            shortcut(b, a, l.reverse_cost);
        }
    }
    std::sort(tile.voxel_links.begin(), tile.voxel_links.end());
    return {};
}

// POV worlds: tile `index`'s WPNB and WPED records, checked in themselves, and against every
// loaded tile they name (both ways: the loaded tiles' records that name this one too), so the
// merged graph's links always join adjacent cells and its edges real corners.
static Error readPovRecords(World::Impl& w, Tile& tile, uint32_t index) {
    const uint32_t tile_count = w.header.tiles_x * w.header.tiles_z;
    auto records = [&](uint32_t id, std::vector<std::array<uint32_t, 4>>& out) -> Error {
        SectionView v;
        if (Error e = tile.asset.require(id, v)) return e;
        if (v.size % fmt::kWorldPovRecordSize != 0)
            return badSection(id, "world: a POV tile's WPNB / WPED is not 16-byte records");
        out.resize(v.size / fmt::kWorldPovRecordSize);
        for (size_t i = 0; i < out.size(); ++i)
            for (int k = 0; k < 4; ++k)
                out[i][k] = fmt::loadLe32(v.data + i * fmt::kWorldPovRecordSize + 4 * k);
        return {};
    };
    if (Error e = records(fmt::kSecWorldPovNeighbours, tile.pov_links)) return e;
    if (Error e = records(fmt::kSecWorldPovEdges, tile.pov_edges)) return e;
    const GraphView& g = tile.graph;
    for (size_t i = 0; i < tile.pov_links.size(); ++i) {
        const auto& r = tile.pov_links[i];
        if (r[0] >= g.layer_cell_count || r[1] >= 4 || r[2] >= tile_count || r[2] == index ||
            (i > 0 && tile.pov_links[i - 1][0] > r[0]))
            return badSection(fmt::kSecWorldPovNeighbours,
                              "world: a WPNB record is out of range or out of order");
    }
    tile.pov_edge_offsets.assign(size_t(g.header.node_count) + 1, 0);
    for (size_t i = 0; i < tile.pov_edges.size(); ++i) {
        const auto& r = tile.pov_edges[i];
        const float cost = std::bit_cast<float>(r[3]);
        if (r[0] >= g.header.node_count || r[1] >= tile_count || r[1] == index || !(cost > 0) ||
            !std::isfinite(cost) || (i > 0 && tile.pov_edges[i - 1][0] > r[0]))
            return badSection(fmt::kSecWorldPovEdges,
                              "world: a WPED record is out of range or out of order");
        ++tile.pov_edge_offsets[r[0] + 1];
    }
    for (size_t u = 0; u < g.header.node_count; ++u)
        tile.pov_edge_offsets[u + 1] += tile.pov_edge_offsets[u];
    // Links its WPED edges take (WPEL, WLNK, WLTY).
    if (const SectionView lv = tile.asset.find(fmt::kSecWorldPovEdgeLinks); lv.data != nullptr) {
        SectionView rv;
        if (Error e = tile.asset.require(fmt::kSecWorldLinks, rv)) return e;
        if (rv.size % fmt::kLinkRecordSize != 0)
            return badSection(fmt::kSecWorldLinks,
                              "world: section 'WLNK' is not a whole number of link records");
        if (Error e = readCrossLinks(tile, rv)) return e;
        if (lv.size != tile.pov_edges.size() * 4)
            return badSection(fmt::kSecWorldPovEdgeLinks,
                              "world: section 'WPEL' does not hold 4 bytes per WPED record");
        tile.pov_edge_links.resize(tile.pov_edges.size());
        for (size_t i = 0; i < tile.pov_edge_links.size(); ++i) {
            const uint32_t v = fmt::loadLe32(lv.data + 4 * i);
            if (v != fmt::kNoLink && (v >> 1) >= tile.cross_links.size())
                return badSection(fmt::kSecWorldPovEdgeLinks,
                                  "world: a WPEL entry names no WLNK record");
            tile.pov_edge_links[i] = v;
        }
    }
    // World column of a cell of a tile.
    auto columnOf = [&](const Tile& t, uint32_t cell) {
        const uint32_t lc =
            fmt::decodeNodeCell(t.graph.layer_cells + size_t(cell) * fmt::kNodeCellSize).column;
        return std::pair<int64_t, int64_t>{t.header.x0 + lc % t.graph.header.size_x,
                                           t.header.z0 + lc / t.graph.header.size_x};
    };
    auto check = [&](const Tile& from, const Tile& to, uint32_t to_index) -> Error {
        for (const auto& r : from.pov_links) {
            if (r[2] != to_index) continue;
            if (r[3] >= to.graph.layer_cell_count)
                return badSection(fmt::kSecWorldPovNeighbours,
                                  "world: a WPNB record names a cell its tile does not have");
            const auto [x, z] = columnOf(from, r[0]);
            const auto [tx, tz] = columnOf(to, r[3]);
            if (tx != x + fmt::kLayerDx[r[1]] || tz != z + fmt::kLayerDz[r[1]])
                return badSection(fmt::kSecWorldPovNeighbours,
                                  "world: a WPNB record links cells that are not adjacent");
        }
        for (const auto& r : from.pov_edges)
            if (r[1] == to_index && r[2] >= to.graph.header.node_count)
                return badSection(fmt::kSecWorldPovEdges,
                                  "world: a WPED record names a corner its tile does not have");
        return {};
    };
    for (uint32_t other = 0; other < tile_count; ++other) {
        const Tile* o = w.tiles[other].get();
        if (!o) continue;
        if (Error e = check(tile, *o, other)) return e;
        if (Error e = check(*o, tile, index)) return e;
    }
    return {};
}

static Error addLoadedTile(World::Impl& w, Asset asset) {
    if (w.header.tiles_x == 0) {
        Error e;
        e.code = ErrorCode::invalid_argument;
        std::snprintf(e.message, sizeof(e.message), "world: init() the index before adding tiles");
        return e;
    }
    auto tile = std::make_unique<Tile>();
    tile->asset = std::move(asset);
    if (Error e = viewGraph(tile->asset, tile->graph)) return e;
    SectionView hv;
    if (Error e = tile->asset.require(fmt::kSecWorldTileHeader, hv)) return e;
    if (Error e = fmt::decodeWorldTileHeader(hv.data, hv.size, tile->header)) return e;
    const fmt::WorldTileHeader& h = tile->header;
    if (h.world_fingerprint != w.header.world_fingerprint || h.tiles_x != w.header.tiles_x ||
        h.tiles_z != w.header.tiles_z || h.tile_cells != w.header.tile_cells ||
        h.world_size_x != w.header.world_size_x || h.world_size_z != w.header.world_size_z)
        return badSection(fmt::kSecWorldTileHeader,
                          "world: the tile belongs to another world (its fingerprint or grid "
                          "differs from the index's); rebake the world");
    if (w.mesh && !tile->graph.isNavmesh())
        return badSection(fmt::kSecGraphHeader, "world: a navmesh world's tile must be a navmesh");
    if (w.volume) {
        // Its columns and the ring around them, clipped to the world, at full height.
        w.boxOf(h.tile_z * w.header.tiles_x + h.tile_x, tile->box_x0, tile->box_z0, tile->box_w,
                tile->box_d);
        tile->box_h = tile->graph.header.size_y;
        if (!tile->graph.implicitVolume() || tile->graph.header.size_x != tile->box_w ||
            tile->graph.header.size_z != tile->box_d || h.seam_count != 0 ||
            h.x0 != h.tile_x * h.tile_cells || h.z0 != h.tile_z * h.tile_cells)
            return badSection(fmt::kSecGraphHeader,
                              "world: a volume world's tile must be a volume graph of its "
                              "columns and the ring of one column around them");
    }
    if (w.domains) {
        bool same = tile->graph.isDirichlet() && h.seam_count == 0 &&
                    tile->graph.header.size_x <= h.tile_cells &&
                    tile->graph.header.size_z <= h.tile_cells && h.x0 == h.tile_x * h.tile_cells &&
                    h.z0 == h.tile_z * h.tile_cells;
        // Every tile carries the one waypoint graph: the loaded ones must agree on it.
        auto equal = [](const void* a, const void* b, size_t n) {
            return n == 0 || std::memcmp(a, b, n) == 0;
        };
        for (const auto& other : w.tiles)
            if (same && other) {
                const GraphView& a = tile->graph;
                const GraphView& b = other->graph;
                same =
                    a.header.node_count == b.header.node_count &&
                    a.header.edge_count == b.header.edge_count &&
                    equal(a.positions, b.positions, 12 * size_t(a.header.node_count)) &&
                    equal(a.edge_offsets, b.edge_offsets, 4 * (size_t(a.header.node_count) + 1)) &&
                    equal(a.edge_targets, b.edge_targets, 4 * size_t(a.header.edge_count)) &&
                    equal(a.edge_costs, b.edge_costs, 4 * size_t(a.header.edge_count));
                break;
            }
        if (!same)
            return badSection(fmt::kSecGraphHeader,
                              "world: a Dirichlet world's tile must be a Dirichlet graph of at "
                              "most one tile's columns, with the waypoint graph of the tiles "
                              "already loaded; rebake the world");
    }
    if (w.pov &&
        (!tile->graph.isPov() || h.seam_count != 0 || tile->graph.header.size_x > h.tile_cells ||
         tile->graph.header.size_z > h.tile_cells || h.x0 != h.tile_x * h.tile_cells ||
         h.z0 != h.tile_z * h.tile_cells))
        return badSection(fmt::kSecGraphHeader,
                          "world: a POV world's tile must be a POV graph of at most one tile's "
                          "columns");
    if (!w.mesh && !w.volume && !w.domains && !w.pov &&
        (tile->graph.header.type != fmt::GraphType::tile || !tile->graph.column_nodes ||
         tile->graph.header.size_x > h.tile_cells || tile->graph.header.size_z > h.tile_cells))
        return badSection(fmt::kSecGraphHeader,
                          "world: a world tile must be a tile graph of at "
                          "most one tile's columns");
    const uint32_t index = h.tile_z * h.tiles_x + h.tile_x;
    if (w.tiles[index]) {
        Error e;
        e.code = ErrorCode::invalid_argument;
        std::snprintf(e.message, sizeof(e.message), "world: tile (%u, %u) is already loaded",
                      h.tile_x, h.tile_z);
        return e;
    }
    // (A POV tile's index range maps its layer components, LCMP, to world components.)
    const uint32_t local_components =
        w.pov ? tile->graph.pov_stats.layer_component_count : tile->graph.header.component_count;
    if (w.component_base[index] == kNone || local_components != w.component_count[index] ||
        (!tile->graph.components && tile->graph.header.node_count > 0))
        return badSection(fmt::kSecWorldTileHeader,
                          "world: the tile's components do not match the index's; rebake the "
                          "world");
    for (uint32_t v = 0; v < tile->graph.header.node_count; ++v)
        if (tile->graph.components[v] >= w.component_count[index] &&
            !(w.volume && tile->graph.components[v] == kNone && !tile->graph.isFree(v)))
            return badSection(fmt::kSecComponents, "world: a node's component is out of range");
    const uint32_t n = tile->graph.header.node_count;
    if (w.pov) {
        if (Error e = readPovRecords(w, *tile, index)) return e;
        w.merged.dirty = true;
    }
    if (!w.volume && !w.domains && !w.pov)
        if (Error e = w.mesh ? readBorderEdges(*tile) : readSeams(w, *tile, index)) return e;
    if (w.mesh)
        if (Error e = readMeshLinks(w, *tile, index)) return e;
    if (w.volume)
        if (Error e = readVolumeLinks(w, *tile, index)) return e;
    if (!w.volume) {  // volume searches keep their records in a map (a tile has ~10^6 voxels)
        tile->g.assign(n, 0);
        tile->parent.assign(n, 0);
        tile->seen.assign(n, 0);
        tile->closed.assign(n, 0);
    }
    w.tiles[index] = std::move(tile);
    ++w.loaded;
    return {};
}

Error World::addTile(const void* data, size_t size, const LoadOptions& options) {
    Asset a;
    LoadOptions o = options;
    o.expected_kind = fmt::kKindNav;
    if (Error e = loadFromMemory(data, size, a, o)) return e;
    return addLoadedTile(*impl_, std::move(a));
}

Error World::addTileFile(const char* path, const LoadOptions& options) {
    Asset a;
    LoadOptions o = options;
    o.expected_kind = fmt::kKindNav;
    if (Error e = load(path, a, o)) return e;
    return addLoadedTile(*impl_, std::move(a));
}

bool World::removeTile(uint32_t tile_x, uint32_t tile_z) {
    Impl& w = *impl_;
    if (tile_x >= w.header.tiles_x || tile_z >= w.header.tiles_z) return false;
    auto& slot = w.tiles[size_t(tile_z) * w.header.tiles_x + tile_x];
    if (!slot) return false;
    slot.reset();
    --w.loaded;
    w.merged.dirty = true;
    return true;
}

bool World::loaded(uint32_t tile_x, uint32_t tile_z) const {
    const Impl& w = *impl_;
    return tile_x < w.header.tiles_x && tile_z < w.header.tiles_z &&
           w.tiles[size_t(tile_z) * w.header.tiles_x + tile_x] != nullptr;
}
uint32_t World::loadedCount() const { return impl_->loaded; }
uint32_t World::tilesX() const { return impl_->header.tiles_x; }
uint32_t World::tilesZ() const { return impl_->header.tiles_z; }

bool World::tileAt(Vec3 p, uint32_t& tile_x, uint32_t& tile_z) const {
    int64_t x, z;
    if (impl_->header.tiles_x == 0 || !impl_->columnOf(p, x, z)) return false;
    tile_x = uint32_t(x) / impl_->header.tile_cells;
    tile_z = uint32_t(z) / impl_->header.tile_cells;
    return true;
}

void World::extent(float& min_x, float& min_z, float& max_x, float& max_z) const {
    const fmt::WorldHeader& h = impl_->header;
    min_x = h.origin[0];
    min_z = h.origin[2];
    max_x = float(double(h.origin[0]) + double(h.world_size_x) * h.cell_size);
    max_z = float(double(h.origin[2]) + double(h.world_size_z) * h.cell_size);
}

size_t World::memoryBytes() const {
    const Impl& w = *impl_;
    size_t bytes = sizeof(Impl) + w.portals.size() * sizeof(Portal) +
                   (w.portal_offsets.size() + w.portal_targets.size()) * 4 +
                   w.portal_costs.size() * 4 + w.tiles.size() * sizeof(void*) +
                   w.voxel_records.bytes();
    for (uint32_t i = 0; i < w.index.sectionCount(); ++i) bytes += w.index.section(i).size;
    for (const auto& t : w.tiles) {
        if (!t) continue;
        bytes +=
            sizeof(Tile) + t->seam_offsets.size() * 4 + t->seams.size() * sizeof(fmt::SeamRecord) +
            t->seam_links.size() * 4 + t->border.size() * (sizeof(fmt::BorderEdgeRecord) + 8) +
            t->border_offsets.size() * 4 + t->entry.size() * (sizeof(Vec3) + 8) +
            t->cross_links.size() * (sizeof(fmt::LinkRecord) + 8) +
            (t->cross_offsets.size() + t->cross_by_poly.size() + t->via.size()) * 4 +
            t->point_shortcuts.size() * sizeof(Tile::PointShortcut) + t->voxel_links.size() * 8 +
            t->g.size() * (sizeof(double) + sizeof(uint64_t) + 2 * sizeof(uint32_t)) +
            (t->pov_links.size() + t->pov_edges.size()) * 16 +
            (t->pov_edge_offsets.size() + t->pov_edge_links.size()) * 4;
        for (uint32_t i = 0; i < t->asset.sectionCount(); ++i) bytes += t->asset.section(i).size;
    }
    // POV worlds: the loaded tiles joined, and its search's records (~48 bytes a corner).
    const Impl::PovMerged& m = w.merged;
    bytes +=
        m.cells.size() + m.corners.size() + m.links.size() + m.link_between.size() +
        (m.cell_base.size() + m.corner_base.size() + m.neighbours.size() +
         m.layer_components.size() + m.components.size() + m.offsets.size() + m.targets.size() +
         m.positions.size() + m.costs.size() + m.edge_links.size() + m.link_tile.size()) *
            4 +
        (m.dirty ? 0 : size_t(m.view.header.node_count) * 48);
    return bytes;
}

bool World::locate(Vec3 p, float vertical, int cells, uint32_t& tile_x, uint32_t& tile_z,
                   uint32_t& node) const {
    const Impl& w = *impl_;
    if (w.volume) {
        uint32_t ti = 0;
        if (!w.locateVoxel(p, vertical, cells, ti, node)) return false;
        tile_x = ti % w.header.tiles_x;
        tile_z = ti / w.header.tiles_x;
        return true;
    }
    if (w.mesh) {
        uint32_t ti = 0;
        Vec3 at;
        if (!w.locateMesh(p, vertical, float(cells) * w.header.cell_size, ti, node, at))
            return false;
        tile_x = ti % w.header.tiles_x;
        tile_z = ti / w.header.tiles_x;
        return true;
    }
    if (w.domains || w.pov) {
        uint32_t ti = 0, cell = 0;
        if (!w.locateCell(p, vertical, float(cells) * w.header.cell_size, ti, cell)) return false;
        tile_x = ti % w.header.tiles_x;
        tile_z = ti / w.header.tiles_x;
        node = w.domains ? w.tiles[ti]->graph.domain_owners[cell] : cell;
        return true;
    }
    int64_t cx, cz;
    // A point over a tile that is not loaded is on no loaded surface (no snapping across into a
    // loaded neighbour).
    if (w.header.tiles_x == 0 || !w.columnOf(p, cx, cz) ||
        !w.tiles[w.tileIndex(uint32_t(cz) * w.header.world_size_x + uint32_t(cx))])
        return false;
    float best = std::numeric_limits<float>::infinity();
    bool found = false;
    for (int64_t z = cz - cells; z <= cz + cells; ++z)
        for (int64_t x = cx - cells; x <= cx + cells; ++x) {
            if (x < 0 || z < 0 || x >= int64_t(w.header.world_size_x) ||
                z >= int64_t(w.header.world_size_z))
                continue;
            const uint32_t column = uint32_t(z) * w.header.world_size_x + uint32_t(x);
            const uint32_t ti = w.tileIndex(column);
            const Tile* t = w.tiles[ti].get();
            if (!t) continue;
            const uint32_t lx = uint32_t(x) - t->header.x0, lz = uint32_t(z) - t->header.z0;
            if (lx >= t->graph.header.size_x || lz >= t->graph.header.size_z) continue;
            const uint32_t c = lz * t->graph.header.size_x + lx;
            for (uint32_t n = t->graph.column_nodes[c]; n < t->graph.column_nodes[c + 1]; ++n) {
                const float* q = t->graph.positions + 3 * size_t(n);
                if (std::fabs(q[1] - p.y) > vertical) continue;
                const float d = (q[0] - p.x) * (q[0] - p.x) + (q[1] - p.y) * (q[1] - p.y) +
                                (q[2] - p.z) * (q[2] - p.z);
                if (d < best) {
                    best = d;
                    tile_x = ti % w.header.tiles_x;
                    tile_z = ti / w.header.tiles_x;
                    node = n;
                    found = true;
                }
            }
        }
    return found;
}

Vec3 World::position(uint32_t tile_x, uint32_t tile_z, uint32_t node) const {
    const Tile* t = loaded(tile_x, tile_z)
                        ? impl_->tiles[size_t(tile_z) * impl_->header.tiles_x + tile_x].get()
                        : nullptr;
    if (t && impl_->pov) {  // a layer cell: its centre on its floor
        if (node >= t->graph.layer_cell_count) return {};
        const fmt::WorldHeader& h = impl_->header;
        const fmt::NodeCell c =
            fmt::decodeNodeCell(t->graph.layer_cells + size_t(node) * fmt::kNodeCellSize);
        return {h.origin[0] +
                    (float(t->header.x0 + c.column % t->graph.header.size_x) + 0.5f) * h.cell_size,
                h.origin[1] + float(c.y) * h.cell_height,
                h.origin[2] +
                    (float(t->header.z0 + c.column / t->graph.header.size_x) + 0.5f) * h.cell_size};
    }
    if (!t || node >= t->graph.header.node_count) return {};
    if (impl_->volume) {
        int64_t x, y, z;
        Impl::worldVoxel(*t, node, x, y, z);
        return impl_->voxelCentre(x, y, z);
    }
    const float* p = t->graph.positions + 3 * size_t(node);
    return {p[0], p[1], p[2]};
}

namespace {

// A new search's number (Tile::seen, closed); when the numbers wrap, every tile's marks are
// cleared once.
uint32_t nextSearch(World::Impl& w) {
    if (++w.search == 0) {
        for (auto& t : w.tiles)
            if (t) {
                std::fill(t->seen.begin(), t->seen.end(), 0);
                std::fill(t->closed.begin(), t->closed.end(), 0);
            }
        w.search = 1;
    }
    return w.search;
}

Vec3 meshVertex(const GraphView& g, uint32_t poly, uint32_t k) {
    const uint32_t first = g.poly_offsets[poly], n = g.poly_offsets[poly + 1] - first;
    const float* v = g.mesh_vertices + 3 * size_t(g.poly_vertices[first + k % n]);
    return {v[0], v[1], v[2]};
}

// findPath over navmesh tiles: navrt's polygon A* (navrt_navmesh.cpp: each polygon entered where
// a taut path from the parent's entry towards the goal crosses its portal, reopened when a
// better entry is found), across tiles through the border edges that join and the links (inside
// a tile: its link edges; between tiles: its WLNK records, while the other tile is loaded), then
// the funnel over the portals, cut at every link as PathQuery::funnel cuts it.
// A navmesh or volume world search's heuristic towards `goal`: the distance scaled by `scale`,
// or the way through the loaded tiles' point shortcuts (links cheaper than the distance they
// span), chained as PathQuery chains them; past kMaxShortcuts, capped by the cheapest of them.
// `safety` (just below 1) keeps rounding from making it overestimate.
class ShortcutHeuristic {
public:
    ShortcutHeuristic(World::Impl& w, Vec3 goal, double scale, double safety)
        : goal_(goal), scale_(scale * safety), safety_(safety) {
        w.shortcuts.clear();
        for (const auto& t : w.tiles)
            if (t) {
                cap_ = std::min(cap_, double(t->shortcut));
                for (const Tile::PointShortcut& c : t->point_shortcuts)
                    if (w.shortcuts.size() <= kMaxShortcuts)
                        w.shortcuts.push_back({c.from, c.to, c.cost, 0.0});
            }
        list_ = w.shortcuts.data();
        count_ = uint32_t(w.shortcuts.size());
        if (count_ > kMaxShortcuts) {
            count_ = 0;
            return;
        }
        cap_ = std::numeric_limits<double>::infinity();
        World::Impl::Shortcut* list = list_;
        const double s = scale_;
        chainShortcutBounds<kMaxShortcuts>(
            list, count_, safety, [&](uint32_t i) { return distance3(list[i].to, goal) * s; },
            [&](uint32_t i, uint32_t j) { return distance3(list[i].to, list[j].from) * s; });
    }
    double operator()(Vec3 p) const {
        double best = std::fmin(distance3(p, goal_) * scale_, cap_ * safety_);
        for (uint32_t k = 0; k < count_; ++k)
            best = std::fmin(best, distance3(p, list_[k].from) * scale_ + list_[k].bound);
        return best;
    }

private:
    Vec3 goal_;
    double scale_, safety_;
    double cap_ = std::numeric_limits<double>::infinity();
    World::Impl::Shortcut* list_ = nullptr;
    uint32_t count_ = 0;
};

PathStatus findMeshPath(World::Impl& w, Vec3 from, Vec3 to) {
    uint32_t st = 0, sp = 0, gt = 0, gp = 0;
    Vec3 start_at, goal_at;
    const float around = float(kAroundCells) * w.header.cell_size;
    if (!w.locateMesh(from, kVertical, around, st, sp, start_at)) return PathStatus::invalid_start;
    if (!w.locateMesh(to, kVertical, around, gt, gp, goal_at)) return PathStatus::invalid_goal;
    {
        const uint32_t cs = w.components[w.component_base[st] + w.tiles[st]->graph.components[sp]];
        const uint32_t cg = w.components[w.component_base[gt] + w.tiles[gt]->graph.components[gp]];
        if (cs != cg) return PathStatus::no_path;
    }
    const uint32_t search = nextSearch(w);
    w.mesh_steps.clear();
    auto key = [](uint32_t tile, uint32_t node) { return (uint64_t(tile) << 32) | node; };
    const uint64_t start = key(st, sp), goal = key(gt, gp);
    auto tileOf = [&](uint64_t k) -> Tile& { return *w.tiles[uint32_t(k >> 32)]; };
    auto areaCost = [](const Tile& t, uint32_t poly) {
        return double(t.graph.area_costs[t.graph.poly_areas[poly]]);
    };
    // The heuristic: the distance to the goal scaled by the cheapest area, or through the
    // loaded tiles' shortcuts (links cheaper than the distance they span: teleports).
    float min_cost = 1;
    for (const auto& t : w.tiles)
        if (t) min_cost = std::min(min_cost, t->graph.header.min_cost_multiplier);
    const ShortcutHeuristic h(w, goal_at, double(min_cost), 1.0 - 1e-6);
    // Whether `v` is `u` or one of its parents (a reopened polygon must not make them a cycle).
    auto ancestorOf = [&](uint64_t v, uint64_t u) {
        for (uint64_t k = u;; k = tileOf(k).parent[uint32_t(k)]) {
            if (k == v) return true;
            if (k == start) return false;
        }
    };
    using Item = std::pair<double, uint64_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    {
        Tile& t = tileOf(start);
        const double g0 = start == goal ? distance3(start_at, goal_at) * areaCost(t, sp) : 0.0;
        t.seen[sp] = search;
        t.closed[sp] = 0;
        t.g[sp] = g0;
        t.f[sp] = g0 + (start == goal ? 0 : h(start_at));
        t.parent[sp] = start;
        t.entry[sp] = start_at;
        t.via[sp] = kNone;
        open.push({t.f[sp], start});
    }
    bool reached = false;
    while (!open.empty()) {
        // Not a structured binding: the lambdas below capture u (clang < 16 cannot capture one).
        const auto fu = open.top().first;
        const auto u = open.top().second;
        open.pop();
        const uint32_t ti = uint32_t(u >> 32), n = uint32_t(u);
        Tile& t = *w.tiles[ti];
        if (t.closed[n] == search || fu != t.f[n]) continue;  // closed, or a stale entry
        t.closed[n] = search;
        ++w.expanded;
        if (u == goal) {
            reached = true;
            break;
        }
        const Vec3 at = t.entry[n];
        const double gu = t.g[n], cost_u = areaCost(t, n);
        // Enter polygon v of tile o at `mid` after `step` (kNone: walking; else the link step).
        auto enter = [&](uint32_t oi, Tile& o, uint32_t v, Vec3 mid, double step, uint32_t via,
                         const World::Impl::MeshStep* link) {
            const uint64_t kv = key(oi, v);
            double hv = h(mid);
            if (kv == goal) {
                step += distance3(mid, goal_at) * areaCost(o, v);
                hv = 0;
            }
            const double g = gu + step;
            if (o.seen[v] == search && !(g + hv < o.f[v] - 1e-9 && !ancestorOf(kv, u))) return;
            if (link != nullptr) {
                via = uint32_t(w.mesh_steps.size());
                w.mesh_steps.push_back(*link);
            }
            o.seen[v] = search;
            o.closed[v] = 0;
            o.g[v] = g;
            o.f[v] = g + hv;
            o.parent[v] = u;
            o.entry[v] = mid;
            o.via[v] = via;
            open.push({o.f[v], kv});
        };
        auto relax = [&](uint32_t oi, Tile& o, uint32_t v, Vec3 a, Vec3 b) {
            const Vec3 mid = portalCrossing(at, goal_at, a, b);
            enter(oi, o, v, mid, distance3(at, mid) * cost_u, kNone, nullptr);
        };
        // Walk to the link's take-off, take it, enter where it lands.
        auto takeLink = [&](uint32_t oi, Tile& o, uint32_t v, const fmt::LinkRecord& l,
                            bool reverse) {
            const float* a = reverse ? l.to : l.from;
            const float* b = reverse ? l.from : l.to;
            const Vec3 take_off{a[0], a[1], a[2]}, landing{b[0], b[1], b[2]};
            const World::Impl::MeshStep step{l, reverse};
            enter(oi, o, v, landing,
                  distance3(at, take_off) * cost_u + double(reverse ? l.reverse_cost : l.cost),
                  kNone, &step);
        };
        for (uint32_t e = t.graph.edge_offsets[n]; e < t.graph.edge_offsets[n + 1]; ++e) {
            const uint32_t v = t.graph.edgeTarget(n, e);
            if (const uint32_t l = t.graph.edgeLink(e); l != fmt::kNoLink) {
                const fmt::LinkRecord link = t.graph.link(l);
                takeLink(ti, t, v, link, link.from_node != n);
                continue;
            }
            Vec3 a, b;
            if (portalBetween(t.graph, n, v, a, b)) relax(ti, t, v, a, b);
        }
        for (uint32_t k = t.border_offsets[n]; k < t.border_offsets[n + 1]; ++k) {
            const uint32_t e = t.border_by_poly[k];
            uint32_t other = 0, edge = 0;
            if (!w.across(ti, e, other, edge)) continue;
            Tile& o = *w.tiles[other];
            relax(other, o, o.border[edge].poly, meshVertex(t.graph, n, t.border[e].edge),
                  meshVertex(t.graph, n, t.border[e].edge + 1));
        }
        for (uint32_t k = t.cross_offsets[n]; k < t.cross_offsets[n + 1]; ++k) {
            const uint32_t r = t.cross_by_poly[k] >> 1;
            const bool reverse = (t.cross_by_poly[k] & 1) != 0;
            const fmt::LinkRecord& l = t.cross_links[r];
            const uint32_t other = reverse ? t.cross_tiles[r].first : t.cross_tiles[r].second;
            const uint32_t v = reverse ? l.from_node : l.to_node;
            Tile* o = w.tiles[other].get();
            if (o == nullptr || v >= o->graph.header.node_count) continue;
            takeLink(other, *o, v, l, reverse);
        }
    }
    if (!reached) return PathStatus::no_path;
    w.cost = float(tileOf(goal).g[gp]);
    std::vector<uint64_t> steps;
    for (uint64_t k = goal;; k = tileOf(k).parent[uint32_t(k)]) {
        steps.push_back(k);
        if (k == start) break;
    }
    std::reverse(steps.begin(), steps.end());
    // The funnel over a run of polygons [first, last] from `begin` to `end`: the portal from
    // each polygon into the next.
    auto funnel = [&](uint32_t first, uint32_t last, Vec3 begin, Vec3 end) {
        const uint32_t polys = last - first + 1;
        auto portal = [&](uint32_t i, Vec3& left, Vec3& right) {
            if (i == 0) {
                left = right = begin;
                return;
            }
            if (i >= polys) {
                left = right = end;
                return;
            }
            const uint32_t ti = uint32_t(steps[first + i - 1] >> 32);
            const uint32_t u = uint32_t(steps[first + i - 1]);
            const uint32_t tj = uint32_t(steps[first + i] >> 32), v = uint32_t(steps[first + i]);
            const Tile& t = *w.tiles[ti];
            Vec3 a, b;
            bool found = false;
            if (ti == tj) {
                found = portalBetween(t.graph, u, v, a, b);
            } else {
                for (uint32_t k = t.border_offsets[u]; k < t.border_offsets[u + 1] && !found; ++k) {
                    const uint32_t e = t.border_by_poly[k];
                    uint32_t other = 0, edge = 0;
                    if (!w.across(ti, e, other, edge) || other != tj ||
                        w.tiles[other]->border[edge].poly != v)
                        continue;
                    a = meshVertex(t.graph, u, t.border[e].edge);
                    b = meshVertex(t.graph, u, t.border[e].edge + 1);
                    found = true;
                }
            }
            if (!found) {
                left = right = w.tiles[tj]->graph.position(v);
                return;
            }
            orientPortal(t.graph.position(u), a, b, left, right);
        };
        stringPull(polys + 1, portal, [&](Vec3 p) {
            const Vec3& last_point = w.path.back();
            if (last_point.x != p.x || last_point.y != p.y || last_point.z != p.z)
                w.path.push_back(p);
        });
    };
    // Cut at every link step: the funnel up to its take-off, the link one segment, the next
    // funnel from where it lands.
    w.path.push_back(start_at);
    uint32_t first = 0;
    Vec3 begin = start_at;
    for (uint32_t k = 1; k < steps.size(); ++k) {
        const uint32_t via = tileOf(steps[k]).via[uint32_t(steps[k])];
        if (via == kNone) continue;
        const World::Impl::MeshStep& step = w.mesh_steps[via];
        const float* a = step.reverse ? step.link.to : step.link.from;
        const float* b = step.reverse ? step.link.from : step.link.to;
        const Vec3 take_off{a[0], a[1], a[2]}, landing{b[0], b[1], b[2]};
        funnel(first, k - 1, begin, take_off);
        WorldPathLink found;
        found.segment = uint32_t(w.path.size() - 1);
        const uint32_t ti = uint32_t(steps[k - 1] >> 32);
        found.tile_x = ti % w.header.tiles_x;
        found.tile_z = ti / w.header.tiles_x;
        found.link = step.link;
        found.reverse = step.reverse;
        w.path_links.push_back(found);
        w.path.push_back(landing);
        first = k;
        begin = landing;
    }
    funnel(first, uint32_t(steps.size() - 1), begin, goal_at);
    return PathStatus::found;
}

// findPath over volume tiles: A* over the loaded tiles' voxels with the MovingAI 3D move rule (a
// move's box of voxels all free, as the tile's box says: its ring holds the neighbours' flags),
// a move into another tile's columns entering that tile's voxel when it is loaded, and the
// links (inside a tile, or to a loaded tile); costs the distance between voxel centres and the
// links' costs, the Euclidean heuristic through the loaded tiles' shortcuts (ShortcutHeuristic).
// Optimal over the loaded tiles.
PathStatus findVolumePath(World::Impl& w, Vec3 from, Vec3 to) {
    uint32_t st = 0, sv = 0, gt = 0, gv = 0;
    if (!w.locateVoxel(from, kVertical, kAroundCells, st, sv)) return PathStatus::invalid_start;
    if (!w.locateVoxel(to, kVertical, kAroundCells, gt, gv)) return PathStatus::invalid_goal;
    {
        const uint32_t cs = w.components[w.component_base[st] + w.tiles[st]->graph.components[sv]];
        const uint32_t cg = w.components[w.component_base[gt] + w.tiles[gt]->graph.components[gv]];
        if (cs != cg) return PathStatus::no_path;
    }
    auto key = [](uint32_t tile, uint32_t voxel) { return (uint64_t(tile) << 32) | voxel; };
    const uint64_t start = key(st, sv), goal = key(gt, gv);
    int64_t gx, gy, gz;
    World::Impl::worldVoxel(*w.tiles[gt], gv, gx, gy, gz);
    const double cs = w.header.cell_size, ch = w.header.cell_height;
    // With links, the distance scaled by kShortcutSlack: a link that is no shortcut costs at
    // least that share of the distance it spans, so the heuristic stays consistent across it
    // (the search closes voxels for good).
    const ShortcutHeuristic shortcuts(w, w.voxelCentre(gx, gy, gz), double(kShortcutSlack),
                                      1.0 - 1e-9);
    const bool linked = !w.shortcuts.empty();
    auto h = [&](int64_t x, int64_t y, int64_t z) {
        if (linked) return shortcuts(w.voxelCentre(x, y, z));
        const double dx = double(x - gx) * cs, dy = double(y - gy) * ch, dz = double(z - gz) * cs;
        return std::sqrt(dx * dx + dy * dy + dz * dz) * (1.0 - 1e-9);
    };
    // The 26 moves: offsets, the neighbourhood bits their box needs free (all but u), costs
    // (made once per world).
    std::vector<VolumeMove>& moves = w.volume_moves;
    if (moves.empty())
        for (const fmt::VolumeMove& m : fmt::volumeMoves()) {
            const double mx = m.dx * cs, my = m.dy * ch, mz = m.dz * cs;
            moves.push_back({m, std::sqrt(mx * mx + my * my + mz * mz)});
        }
    VoxelRecords& records = w.voxel_records;
    records.start();
    using Record = VoxelRecords::Record;
    // Ties on f go to the larger g (deeper first), as navrt's heap breaks them: on a voxel grid
    // most nodes tie, and without it A* expands whole fronts of them.
    struct Item {
        double f, g;
        uint64_t key;
        bool operator>(const Item& o) const {
            if (f != o.f) return f > o.f;
            if (g != o.g) return g < o.g;
            return key > o.key;
        }
    };
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    records.insert(start) = {0.0, start, false, kNone};
    {
        int64_t x, y, z;
        World::Impl::worldVoxel(*w.tiles[st], sv, x, y, z);
        open.push({h(x, y, z), 0.0, start});
    }
    bool reached = false;
    while (!open.empty()) {
        const uint64_t u = open.top().key;
        open.pop();
        Record& ru = *records.find(u);
        if (ru.closed) continue;
        ru.closed = true;
        ++w.expanded;
        if (u == goal) {
            reached = true;
            break;
        }
        const double gu = ru.g;
        const Tile& t = *w.tiles[uint32_t(u >> 32)];
        int64_t x, y, z;
        World::Impl::worldVoxel(t, uint32_t(u), x, y, z);
        // The free voxels of u's 3 x 3 x 3 neighbourhood (bit (dy+1)*9 + (dz+1)*3 + dx+1), then
        // each move whose box is free.
        uint32_t mask = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dz = -1; dz <= 1; ++dz)
                for (int dx = -1; dx <= 1; ++dx)
                    if (World::Impl::boxFree(t, x + dx, y + dy, z + dz))
                        mask |= 1u << fmt::volumeNeighbourBit(dx, dy, dz);
        auto relax = [&](uint32_t ot, uint32_t ov, int64_t vx, int64_t vy, int64_t vz, double cost,
                         uint32_t via) {
            const uint64_t kv = key(ot, ov);
            const double g = gu + cost;
            Record* r = records.find(kv);
            if (r == nullptr) {
                records.insert(kv) = Record{g, u, false, via};
            } else {
                if (r->closed || r->g <= g) return;
                *r = Record{g, u, false, via};
            }
            open.push({g + h(vx, vy, vz), g, kv});
        };
        for (const auto& [m, cost] : moves) {
            if ((mask & m.required) != m.required) continue;
            uint32_t ot, ov;
            if (!w.ownerVoxel(x + m.dx, y + m.dy, z + m.dz, ot, ov)) continue;
            relax(ot, ov, x + m.dx, y + m.dy, z + m.dz, cost, kNone);
        }
        // Its links: inside the tile, or to a loaded tile (its voxel must be free there).
        const uint32_t ti = uint32_t(u >> 32), local = uint32_t(u);
        for (auto it =
                 std::lower_bound(t.voxel_links.begin(), t.voxel_links.end(), std::pair{local, 0u});
             it != t.voxel_links.end() && it->first == local; ++it) {
            const uint32_t entry = it->second;
            const bool reverse = (entry & 1) != 0;
            uint32_t ot = ti, ov;
            float cost;
            if (entry & 2) {
                const fmt::LinkRecord& l = t.cross_links[entry >> 2];
                const auto [from_tile, to_tile] = t.cross_tiles[entry >> 2];
                ot = reverse ? from_tile : to_tile;
                ov = reverse ? l.from_node : l.to_node;
                cost = reverse ? l.reverse_cost : l.cost;
                const Tile* o = w.tiles[ot].get();
                if (!o || ov >= o->graph.header.node_count || !o->graph.isFree(ov)) continue;
            } else {
                const fmt::LinkRecord l = t.graph.link(entry >> 2);
                ov = reverse ? l.from_node : l.to_node;
                cost = reverse ? l.reverse_cost : l.cost;
            }
            int64_t vx, vy, vz;
            World::Impl::worldVoxel(*w.tiles[ot], ov, vx, vy, vz);
            relax(ot, ov, vx, vy, vz, double(cost), entry);
        }
    }
    if (!reached) return PathStatus::no_path;
    w.cost = float(records.find(goal)->g);
    for (uint64_t k = goal;;) {
        int64_t x, y, z;
        World::Impl::worldVoxel(*w.tiles[uint32_t(k >> 32)], uint32_t(k), x, y, z);
        w.path.push_back(w.voxelCentre(x, y, z));
        if (k == start) break;
        const Record& r = *records.find(k);
        if (r.via != kNone) {  // the step into k took a link of its parent's tile
            const uint32_t ti = uint32_t(r.parent >> 32);
            const Tile& t = *w.tiles[ti];
            WorldPathLink step;
            step.segment = uint32_t(w.path.size());  // counted from the goal: fixed below
            step.tile_x = ti % w.header.tiles_x;
            step.tile_z = ti / w.header.tiles_x;
            step.link = (r.via & 2) ? t.cross_links[r.via >> 2] : t.graph.link(r.via >> 2);
            step.reverse = (r.via & 1) != 0;
            w.path_links.push_back(step);
        }
        k = r.parent;
    }
    std::reverse(w.path.begin(), w.path.end());
    std::reverse(w.path_links.begin(), w.path_links.end());
    // A step found with the path i voxels long (from the goal) goes from path()[n - 1 - i] to
    // path()[n - i].
    for (WorldPathLink& step : w.path_links)
        step.segment = uint32_t(w.path.size()) - 1 - step.segment;
    return PathStatus::found;
}

}  // namespace

// Dirichlet worlds: the domains of the cells nearest from and to (their tiles must be loaded),
// then the waypoint graph's shortest path between them (every tile holds it; the start tile's is
// searched), waypoint to waypoint: what navrt's query on the whole Dirichlet graph answers.
PathStatus findDomainPath(World::Impl& w, Vec3 from, Vec3 to) {
    const float around = float(kAroundCells) * w.header.cell_size;
    uint32_t st, sc, gt, gc;
    if (!w.locateCell(from, kVertical, around, st, sc)) return PathStatus::invalid_start;
    if (!w.locateCell(to, kVertical, around, gt, gc)) return PathStatus::invalid_goal;
    const GraphView& g = w.tiles[st]->graph;
    PathQuery query;
    if (query.init(g)) return PathStatus::out_of_nodes;
    const PathStatus status =
        query.findPath(g.domain_owners[sc], w.tiles[gt]->graph.domain_owners[gc]);
    w.expanded = query.expansions();
    if (status != PathStatus::found) return status;
    for (uint32_t k = 0; k < query.pathLength(); ++k) {
        const float* p = g.positions + 3 * size_t(query.path()[k]);
        w.path.push_back({p[0], p[1], p[2]});
    }
    w.cost = float(query.cost());
    return status;
}

// POV worlds: the loaded tiles as one POV graph: their layer cells (columns in the world's
// grid), their links inside each tile and, where both tiles are loaded, between them (WPNB);
// their corners and taut edges inside each tile and, where both are loaded, between them (WPED);
// layer components as world components. The grid is the world's, so exact coordinates
// (povSubdivision) and sight lines are the whole graph's; a sight line stops at a tile not
// loaded.
Error mergePov(World::Impl& w) {
    World::Impl::PovMerged& m = w.merged;
    const fmt::WorldHeader& wh = w.header;
    const uint32_t tile_count = wh.tiles_x * wh.tiles_z;
    m.cell_base.assign(tile_count, kNone);
    m.corner_base.assign(tile_count, kNone);
    size_t cells = 0, corners = 0, edges = 0;
    const Tile* first = nullptr;
    for (uint32_t i = 0; i < tile_count; ++i)
        if (const Tile* t = w.tiles[i].get()) {
            if (!first) first = t;
            m.cell_base[i] = uint32_t(cells);
            m.corner_base[i] = uint32_t(corners);
            cells += t->graph.layer_cell_count;
            corners += t->graph.header.node_count;
            edges += t->graph.header.edge_count + t->pov_edges.size();
        }
    if (cells >= kNone || corners + 2 >= kNone || edges >= kNone) {
        Error e;
        e.code = ErrorCode::out_of_memory;
        std::snprintf(e.message, sizeof(e.message), "world: too many loaded POV cells or corners");
        return e;
    }
    m.cells.assign(cells * fmt::kNodeCellSize, 0);
    m.neighbours.assign(4 * cells, kNone);
    m.layer_components.assign(cells, 0);
    m.corners.assign(corners * fmt::kPovCornerSize, 0);
    m.positions.assign(3 * corners, 0);
    m.components.assign(corners, 0);
    m.offsets.assign(corners + 1, 0);
    m.targets.clear();
    m.costs.clear();
    m.links.clear();
    m.edge_links.clear();
    m.link_tile.clear();
    m.link_between.clear();
    bool any_links = false;
    const char* type_names = nullptr;
    uint32_t type_count = 0;
    for (uint32_t i = 0; i < tile_count; ++i)
        if (const Tile* t = w.tiles[i].get()) {
            any_links = any_links || t->graph.link_count > 0 || !t->pov_edge_links.empty();
            if (!type_names && t->graph.link_type_count > 0) {
                type_names = t->graph.link_type_names;
                type_count = t->graph.link_type_count;
            }
            if (!type_names && t->cross_type_count > 0) {
                type_names = t->cross_type_names;
                type_count = uint32_t(t->cross_type_count);
            }
        }
    auto addLink = [&](const fmt::LinkRecord& l, uint32_t tile, bool between) {
        const size_t at = m.links.size();
        m.links.resize(at + fmt::kLinkRecordSize);
        fmt::encodeLinkRecord(l, m.links.data() + at);
        m.link_tile.push_back(tile);
        m.link_between.push_back(between);
        return uint32_t(m.link_tile.size() - 1);
    };
    fmt::PovStats stats;
    for (uint32_t i = 0; i < tile_count; ++i) {
        const Tile* t = w.tiles[i].get();
        if (!t) continue;
        const GraphView& g = t->graph;
        const uint32_t cb = m.cell_base[i], vb = m.corner_base[i], n = g.layer_cell_count;
        for (uint32_t c = 0; c < n; ++c) {
            fmt::NodeCell cell =
                fmt::decodeNodeCell(g.layer_cells + size_t(c) * fmt::kNodeCellSize);
            cell.column = (t->header.z0 + cell.column / g.header.size_x) * wh.world_size_x +
                          t->header.x0 + cell.column % g.header.size_x;
            fmt::encodeNodeCell(cell, m.cells.data() + size_t(cb + c) * fmt::kNodeCellSize);
            m.layer_components[cb + c] = w.components[w.component_base[i] + g.layer_components[c]];
            for (uint32_t k = 0; k < 4; ++k) {
                const uint32_t to = g.layer_neighbours[size_t(k) * n + c];
                if (to != kNone) m.neighbours[k * cells + cb + c] = cb + to;
            }
        }
        for (const auto& r : t->pov_links)
            if (m.cell_base[r[2]] != kNone)
                m.neighbours[r[1] * cells + cb + r[0]] = m.cell_base[r[2]] + r[3];
        const uint32_t link_base = uint32_t(m.link_tile.size());
        for (uint32_t l = 0; l < g.link_count; ++l) {
            fmt::LinkRecord r = g.link(l);
            r.from_node += vb;
            r.to_node += vb;
            addLink(r, i, false);
        }
        for (uint32_t u = 0; u < g.header.node_count; ++u) {
            const uint32_t v = vb + u;
            fmt::PovCorner corner =
                fmt::decodePovCorner(g.pov_corners + size_t(u) * fmt::kPovCornerSize);
            corner.cell += cb;
            stats.any_direction_corners += corner.flags != 0;
            fmt::encodePovCorner(corner, m.corners.data() + size_t(v) * fmt::kPovCornerSize);
            std::memcpy(&m.positions[3 * size_t(v)], g.positions + 3 * size_t(u), 12);
            m.components[v] = m.layer_components[corner.cell];
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                m.targets.push_back(vb + g.edgeTarget(u, e) - v);  // relative, as EDST
                m.costs.push_back(g.edge_costs[e]);
                if (any_links) {
                    const uint32_t l = g.edgeLink(e);
                    m.edge_links.push_back(l == fmt::kNoLink ? l : link_base + l);
                }
            }
            for (uint32_t k = t->pov_edge_offsets[u]; k < t->pov_edge_offsets[u + 1]; ++k) {
                const auto& r = t->pov_edges[k];
                if (m.corner_base[r[1]] == kNone) continue;
                const uint32_t to = m.corner_base[r[1]] + r[2];
                m.targets.push_back(to - v);
                m.costs.push_back(std::bit_cast<float>(r[3]));
                if (!any_links) continue;
                const uint32_t taken =
                    t->pov_edge_links.empty() ? fmt::kNoLink : t->pov_edge_links[k];
                if (taken == fmt::kNoLink) {
                    m.edge_links.push_back(taken);
                    continue;
                }
                // The link between the two tiles, its ends these two corners.
                fmt::LinkRecord l = t->cross_links[taken >> 1];
                l.from_node = (taken & 1) ? to : v;
                l.to_node = (taken & 1) ? v : to;
                m.edge_links.push_back(addLink(l, i, true));
            }
            m.offsets[v + 1] = uint32_t(m.targets.size());
        }
    }
    GraphView& view = m.view;
    view = GraphView{};
    view.header = first ? first->graph.header : fmt::GraphHeader{};
    view.header.type = fmt::GraphType::pov;
    view.header.size_x = wh.world_size_x;
    view.header.size_z = wh.world_size_z;
    std::copy(wh.origin, wh.origin + 3, view.header.origin);
    view.header.node_count = uint32_t(corners);
    view.header.edge_count = uint32_t(m.targets.size());
    view.header.component_count = uint32_t(w.components.size());
    view.header.flags = 0;
    view.positions = m.positions.data();
    view.edge_offsets = m.offsets.data();
    view.edge_targets = m.targets.data();
    view.edge_costs = m.costs.data();
    view.components = m.components.data();
    view.pov_corners = m.corners.data();
    view.layer_cell_count = uint32_t(cells);
    view.layer_cells = m.cells.data();
    view.layer_neighbours = m.neighbours.data();
    view.layer_components = m.layer_components.data();
    if (any_links) {
        view.links = m.links.data();
        view.link_count = uint32_t(m.link_tile.size());
        view.edge_links = m.edge_links.data();
        view.link_type_names = type_names;
        view.link_type_count = type_count;
    }
    stats.corner_count = uint32_t(corners);
    stats.layer_cell_count = uint32_t(cells);
    stats.layer_component_count = uint32_t(w.components.size());
    stats.taut_edges = view.header.edge_count;
    view.pov_stats = stats;
    if (Error e = m.query.init(view)) return e;
    m.dirty = false;
    return {};
}

PathStatus findPovPath(World::Impl& w, Vec3 from, Vec3 to) {
    const float around = float(kAroundCells) * w.header.cell_size;
    uint32_t st, sc, gt, gc;
    if (!w.locateCell(from, kVertical, around, st, sc)) return PathStatus::invalid_start;
    if (!w.locateCell(to, kVertical, around, gt, gc)) return PathStatus::invalid_goal;
    World::Impl::PovMerged& m = w.merged;
    if (m.dirty)
        if (mergePov(w)) return PathStatus::out_of_nodes;
    const PathStatus status =
        m.query.findPathBetween(from, m.cell_base[st] + sc, to, m.cell_base[gt] + gc);
    w.expanded = m.query.expansions();
    if (status != PathStatus::found) return status;
    w.path.resize(m.query.pathLength());
    w.path.resize(m.query.smooth(w.path.data(), uint32_t(w.path.size())));
    w.cost = float(m.query.cost());
    // The links the path takes (its steps are the search's: start, corners, goal).
    for (uint32_t k = 0; k + 1 < m.query.pathLength(); ++k) {
        const uint32_t l = m.query.pathLink(k);
        if (l == fmt::kNoLink) continue;
        WorldPathLink step;
        step.segment = k;
        const uint32_t tile = m.link_tile[l];
        step.tile_x = tile % w.header.tiles_x;
        step.tile_z = tile / w.header.tiles_x;
        step.link = m.view.link(l);
        step.reverse = m.query.path()[k] != step.link.from_node;
        if (m.link_between[l]) {
            step.link.from_node = step.link.to_node = fmt::kNoLink;
        } else {
            step.link.from_node -= m.corner_base[tile];
            step.link.to_node -= m.corner_base[tile];
        }
        w.path_links.push_back(step);
    }
    return status;
}

PathStatus World::findPath(Vec3 from, Vec3 to) {
    Impl& w = *impl_;
    w.path.clear();
    w.path_links.clear();
    w.cost = 0;
    w.expanded = 0;
    if (w.mesh) return findMeshPath(w, from, to);
    if (w.volume) return findVolumePath(w, from, to);
    if (w.domains) return findDomainPath(w, from, to);
    if (w.pov) return findPovPath(w, from, to);
    uint32_t sx, sz, sn, gx, gz, gn;
    if (!locate(from, kVertical, kAroundCells, sx, sz, sn)) return PathStatus::invalid_start;
    if (!locate(to, kVertical, kAroundCells, gx, gz, gn)) return PathStatus::invalid_goal;
    {
        // Different world components: no path in any set of loaded tiles.
        const uint32_t st = sz * w.header.tiles_x + sx, gt = gz * w.header.tiles_x + gx;
        const uint32_t cs = w.components[w.component_base[st] + w.tiles[st]->graph.components[sn]];
        const uint32_t cg = w.components[w.component_base[gt] + w.tiles[gt]->graph.components[gn]];
        if (cs != cg) return PathStatus::no_path;
    }
    const uint32_t search = nextSearch(w);
    const uint32_t tx = w.header.tiles_x;
    auto key = [](uint32_t tile, uint32_t node) { return (uint64_t(tile) << 32) | node; };
    const uint64_t start = key(sz * tx + sx, sn), goal = key(gz * tx + gx, gn);
    auto tileOf = [&](uint64_t k) -> Tile& { return *w.tiles[uint32_t(k >> 32)]; };
    const float* gp = tileOf(goal).graph.positions + 3 * size_t(gn);
    float min_cost = 1;
    float shortcut = std::numeric_limits<float>::infinity();
    for (const auto& t : w.tiles)
        if (t) {
            min_cost = std::min(min_cost, t->graph.header.min_cost_multiplier);
            shortcut = std::min(shortcut, t->shortcut);
        }
    // Octile distance, capped by the cheapest shortcut (a path that takes one costs at least
    // that), both scaled by kShortcutSlack (a path of edges each at least that share of its
    // octile length costs at least that share of the whole): admissible and consistent.
    auto h = [&](const float* p) {
        return double(std::min(octile(p[0], p[2], gp[0], gp[2]) * min_cost, shortcut) *
                      kShortcutSlack * (1 - 1e-6f));
    };
    using Item = std::pair<double, uint64_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    {
        Tile& t = tileOf(start);
        t.seen[sn] = search;
        t.g[sn] = 0;
        t.parent[sn] = start;
        open.push({h(t.graph.positions + 3 * size_t(sn)), start});
    }
    bool reached = false;
    while (!open.empty()) {
        const uint64_t u = open.top().second;
        open.pop();
        const uint32_t ti = uint32_t(u >> 32), n = uint32_t(u);
        Tile& t = *w.tiles[ti];
        if (t.closed[n] == search) continue;
        t.closed[n] = search;
        ++w.expanded;
        if (u == goal) {
            reached = true;
            break;
        }
        const double gu = t.g[n];
        auto relax = [&](Tile& o, uint32_t oi, uint32_t v, double c) {
            if (o.closed[v] == search) return;
            if (o.seen[v] == search && o.g[v] <= gu + c) return;
            o.seen[v] = search;
            o.g[v] = gu + c;
            o.parent[v] = u;
            open.push({gu + c + h(o.graph.positions + 3 * size_t(v)), key(oi, v)});
        };
        const uint32_t e0 = t.graph.edge_offsets[n], e1 = t.graph.edge_offsets[n + 1];
        for (uint32_t e = e0; e < e1; ++e)
            relax(t, ti, n + t.graph.edge_targets[e], double(t.graph.edge_costs[e]));
        for (uint32_t s = t.seam_offsets[n]; s < t.seam_offsets[n + 1]; ++s) {
            const fmt::SeamRecord& seam = t.seams[s];
            const uint32_t other = w.tileIndex(seam.column);
            Tile* o = w.tiles[other].get();
            if (!o) continue;
            const uint32_t v = w.nodeAt(*o, seam.column, seam.y);
            if (v != kNone) relax(*o, other, v, double(seam.cost));
        }
    }
    if (!reached) return PathStatus::no_path;
    w.cost = float(tileOf(goal).g[gn]);
    std::vector<uint64_t> steps;
    for (uint64_t k = goal;;) {
        Tile& t = tileOf(k);
        const float* p = t.graph.positions + 3 * size_t(uint32_t(k));
        w.path.push_back({p[0], p[1], p[2]});
        steps.push_back(k);
        if (k == start) break;
        k = t.parent[uint32_t(k)];
    }
    std::reverse(w.path.begin(), w.path.end());
    std::reverse(steps.begin(), steps.end());
    // The links the path takes: per step, the edge or seam whose cost is the step's (the
    // cheapest way between the two cells, as the search took it).
    for (uint32_t i = 0; i + 1 < steps.size(); ++i) {
        const uint32_t ti = uint32_t(steps[i] >> 32), u = uint32_t(steps[i]);
        const uint32_t tj = uint32_t(steps[i + 1] >> 32), v = uint32_t(steps[i + 1]);
        const Tile& t = *w.tiles[ti];
        const double step = tileOf(steps[i + 1]).g[v] - t.g[u];
        double best = HUGE_VAL;
        WorldPathLink found;
        bool link = false;
        if (ti == tj) {
            for (uint32_t e = t.graph.edge_offsets[u]; e < t.graph.edge_offsets[u + 1]; ++e) {
                if (u + t.graph.edge_targets[e] != v) continue;
                const double miss = std::fabs(double(t.graph.edge_costs[e]) - step);
                if (miss >= best) continue;
                best = miss;
                const uint32_t l = t.graph.edgeLink(e);
                link = l != fmt::kNoLink;
                if (link) {
                    found.link = t.graph.link(l);
                    found.reverse = found.link.from_node != u;  // the edge to_node -> from_node
                }
            }
        } else {
            const Tile& o = *w.tiles[tj];
            for (uint32_t s = t.seam_offsets[u]; s < t.seam_offsets[u + 1]; ++s) {
                const fmt::SeamRecord& seam = t.seams[s];
                if (w.tileIndex(seam.column) != tj || w.nodeAt(o, seam.column, seam.y) != v)
                    continue;
                const double miss = std::fabs(double(seam.cost) - step);
                if (miss >= best) continue;
                best = miss;
                const uint32_t l = t.seam_links.empty() ? fmt::kNoLink : t.seam_links[s];
                link = l != fmt::kNoLink;
                if (link) {
                    found.link = t.cross_links[l >> 1];
                    found.reverse = (l & 1) != 0;
                }
            }
        }
        if (!link) continue;
        found.segment = i;
        found.tile_x = ti % w.header.tiles_x;
        found.tile_z = ti / w.header.tiles_x;
        w.path_links.push_back(found);
    }
    return PathStatus::found;
}

const std::vector<Vec3>& World::path() const { return impl_->path; }
const std::vector<WorldPathLink>& World::pathLinks() const { return impl_->path_links; }

const char* World::linkTypeName(uint32_t tile_x, uint32_t tile_z, fmt::LinkType type,
                                size_t& length) const {
    length = 0;
    if (!loaded(tile_x, tile_z)) return nullptr;
    const Tile& t = *impl_->tiles[size_t(tile_z) * impl_->header.tiles_x + tile_x];
    // WLTY (links between tiles) when the tile has it, else its own LTYP: the same names.
    if (t.cross_type_names != nullptr)
        return navrt::linkTypeName(type, t.cross_type_names, t.cross_type_count, length);
    return t.graph.linkTypeName(type, length);
}
float World::cost() const { return impl_->cost; }
uint32_t World::expanded() const { return impl_->expanded; }

PathStatus World::planTiles(Vec3 from, Vec3 to, std::vector<uint32_t>& tiles) const {
    const Impl& w = *impl_;
    tiles.clear();
    uint32_t sx, sz, gx, gz;
    if (!tileAt(from, sx, sz)) return PathStatus::invalid_start;
    if (!tileAt(to, gx, gz)) return PathStatus::invalid_goal;
    const uint32_t st = sz * w.header.tiles_x + sx, gt = gz * w.header.tiles_x + gx;
    if (st == gt) {
        tiles.push_back(st);
        return PathStatus::found;
    }
    if (w.domains) {
        // Every tile holds the waypoint graph: the two ends' tiles answer the query.
        tiles = {st, gt};
        return PathStatus::found;
    }
    // Costs from `p` to the portals of its tile: exact in a loaded tile (Dijkstra over it), else
    // straight lines.
    auto joins = [&](Vec3 p, uint32_t tile, bool reverse) {
        std::vector<std::pair<uint32_t, double>> out;
        const Tile* t = w.tiles[tile].get();
        uint32_t lx, lz, node;
        if (t && !w.volume && !w.pov && locate(p, kVertical, kAroundCells, lx, lz, node) &&
            lz * w.header.tiles_x + lx == tile) {
            // Dijkstra inside the tile (forward from p, or backward to p for the goal).
            const uint32_t n = t->graph.header.node_count;
            std::vector<double> dist(n, std::numeric_limits<double>::infinity());
            std::vector<std::vector<std::pair<uint32_t, float>>> back;
            if (reverse) {
                back.resize(n);
                for (uint32_t u = 0; u < n; ++u)
                    for (uint32_t e = t->graph.edge_offsets[u]; e < t->graph.edge_offsets[u + 1];
                         ++e)
                        back[t->graph.edgeTarget(u, e)].push_back({u, t->graph.edge_costs[e]});
            }
            using Item = std::pair<double, uint32_t>;
            std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
            dist[node] = 0;
            open.push({0, node});
            while (!open.empty()) {
                const double d = open.top().first;  // captured below: no structured binding
                const uint32_t u = open.top().second;
                open.pop();
                if (d > dist[u]) continue;
                auto relax = [&](uint32_t v, double c) {
                    if (d + c < dist[v]) {
                        dist[v] = d + c;
                        open.push({dist[v], v});
                    }
                };
                if (reverse)
                    for (const auto& [v, c] : back[u]) relax(v, c);
                else
                    for (uint32_t e = t->graph.edge_offsets[u]; e < t->graph.edge_offsets[u + 1];
                         ++e)
                        relax(t->graph.edgeTarget(u, e), t->graph.edge_costs[e]);
            }
            for (uint32_t p2 : w.tile_portals[tile]) {
                // A navmesh world's portal names its polygon in y (FORMAT.md §11.3).
                const uint32_t v =
                    w.mesh ? (uint32_t(w.portals[p2].y) < n ? uint32_t(w.portals[p2].y) : kNone)
                           : w.nodeAt(*t, w.portals[p2].column, w.portals[p2].y);
                if (v != kNone && std::isfinite(dist[v])) out.push_back({p2, dist[v]});
            }
            return out;
        }
        for (uint32_t p2 : w.tile_portals[tile]) {
            const float* q = w.portals[p2].position;
            out.push_back(
                {p2, double(std::sqrt((q[0] - p.x) * (q[0] - p.x) + (q[2] - p.z) * (q[2] - p.z)))});
        }
        return out;
    };
    const auto starts = joins(from, st, false), goals = joins(to, gt, true);
    const uint32_t count = uint32_t(w.portals.size());
    std::vector<double> goal_cost(count, -1);
    for (const auto& [p, c] : goals) goal_cost[p] = c;
    // Dijkstra over the portal graph; the goal is reached through a portal of the goal tile.
    std::vector<double> dist(count, std::numeric_limits<double>::infinity());
    std::vector<uint32_t> parent(count, kNone);
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    for (const auto& [p, c] : starts)
        if (c < dist[p]) {
            dist[p] = c;
            open.push({c, p});
        }
    double best = std::numeric_limits<double>::infinity();
    uint32_t best_portal = kNone;
    while (!open.empty()) {
        const auto [d, u] = open.top();
        open.pop();
        if (d > dist[u] || d >= best) continue;
        if (goal_cost[u] >= 0 && d + goal_cost[u] < best) {
            best = d + goal_cost[u];
            best_portal = u;
        }
        for (uint32_t e = w.portal_offsets[u]; e < w.portal_offsets[u + 1]; ++e) {
            const uint32_t v = w.portal_targets[e];
            const double nd = d + w.portal_costs[e];
            if (nd < dist[v]) {
                dist[v] = nd;
                parent[v] = u;
                open.push({nd, v});
            }
        }
    }
    if (best_portal == kNone) return PathStatus::no_path;
    std::vector<uint32_t> chain;
    for (uint32_t p = best_portal; p != kNone; p = parent[p]) chain.push_back(w.portals[p].tile);
    chain.push_back(st);
    std::reverse(chain.begin(), chain.end());
    chain.push_back(gt);
    for (uint32_t t : chain)
        if (tiles.empty() || tiles.back() != t) tiles.push_back(t);
    return PathStatus::found;
}

}  // namespace navrt
