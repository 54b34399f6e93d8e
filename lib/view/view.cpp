// Builds the scene of a debug view from an artifact (see view.h for the layers) and hands it to
// the SVG, PNG or GLB writer. The A* fill is read back from the PathQuery after each search:
// settledCost() is finite exactly for the nodes the last search closed, i.e. expanded.
#include "lib/view/view.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>

#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/geometry/geometry.h"
#include "lib/runtime/navrt_query.h"
#include "lib/view/scene.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::view {

const char* layerName(Layer layer) {
    switch (layer) {
        case Layer::geometry: return "geometry";
        case Layer::walkable: return "walkable";
        case Layer::graph: return "graph";
        case Layer::navmesh: return "navmesh";
        case Layer::clusters: return "clusters";
        case Layer::paths: return "paths";
    }
    return "unknown";
}

bool parseLayer(std::string_view name, Layer& out) {
    for (uint32_t i = 0; i < kLayerCount; ++i)
        if (name == layerName(Layer(i))) {
            out = Layer(i);
            return true;
        }
    return false;
}

std::string layerNames(uint32_t layers) {
    std::string names;
    for (uint32_t i = 0; i < kLayerCount; ++i) {
        if (!(layers & layerBit(Layer(i)))) continue;
        if (!names.empty()) names += ", ";
        names += layerName(Layer(i));
    }
    return names.empty() ? "none" : names;
}

const char* groupName(Group group) {
    switch (group) {
        case Group::geometry: return "geometry";
        case Group::surface: return "surface";
        case Group::fill: return "fill";
        case Group::edges: return "graph_edges";
        case Group::nodes: return "graph_nodes";
        case Group::links: return "links";
        case Group::paths: return "paths";
        case Group::markers: return "markers";
    }
    return "unknown";
}

Result<ViewFormat> formatFromPath(const std::filesystem::path& out) {
    std::string ext = out.extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".svg") return ViewFormat::svg;
    if (ext == ".png") return ViewFormat::png;
    if (ext == ".glb") return ViewFormat::glb;
    return makeError(ErrorKind::usage,
                     "{}: unknown view format '{}' (the extension picks it: .svg, .png or .glb)",
                     out.string(), ext.empty() ? "no extension" : ext);
}

namespace {

bool parsePoint(std::string_view text, navrt::Vec3& out) {
    const std::string s(text);
    float v[3];
    char extra;
    if (std::sscanf(s.c_str(), "%f,%f,%f%c", &v[0], &v[1], &v[2], &extra) != 3) return false;
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) return false;
    out = {v[0], v[1], v[2]};
    return true;
}

}  // namespace

bool parsePathSpec(std::string_view text, PathRequest& out) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
        return false;
    return parsePoint(text.substr(0, colon), out.from) &&
           parsePoint(text.substr(colon + 1), out.to);
}

Status checkOptions(const ViewOptions& options) {
    std::string problems;
    auto problem = [&](std::string text) {
        if (!problems.empty()) problems += "; ";
        problems += text;
    };
    if (options.size < 16 || options.size > 16384)
        problem(fmt::format("size {} px is outside 16..16384", options.size));
    if (options.floor_filter &&
        (!std::isfinite(options.floor_min) || !std::isfinite(options.floor_max) ||
         options.floor_min > options.floor_max))
        problem(fmt::format("floor range {}:{} is not a finite YMIN:YMAX with YMIN <= YMAX",
                            options.floor_min, options.floor_max));
    if (options.crop &&
        (!std::isfinite(options.crop_min[0]) || !std::isfinite(options.crop_min[1]) ||
         !std::isfinite(options.crop_max[0]) || !std::isfinite(options.crop_max[1]) ||
         !(options.crop_min[0] < options.crop_max[0]) ||
         !(options.crop_min[1] < options.crop_max[1])))
        problem(fmt::format(
            "crop box {},{}:{},{} is not a finite MINX,MINZ:MAXX,MAXZ with MIN < "
            "MAX",
            options.crop_min[0], options.crop_min[1], options.crop_max[0], options.crop_max[1]));
    if (!(options.tolerance.horizontal >= 0) || !std::isfinite(options.tolerance.horizontal))
        problem(fmt::format("horizontal tolerance {} m is not >= 0", options.tolerance.horizontal));
    if (!(options.tolerance.vertical >= 0) || !std::isfinite(options.tolerance.vertical))
        problem(fmt::format("vertical tolerance {} m is not >= 0", options.tolerance.vertical));
    if (problems.empty()) return {};
    return makeError(ErrorKind::usage, "view options: {}", problems);
}

Colour pathColour(size_t path_index) {
    static constexpr Colour kPaths[] = {
        {220, 20, 60, 255}, {0, 90, 230, 255}, {150, 0, 200, 255}, {235, 110, 0, 255}};
    return kPaths[path_index % 4];
}

Colour clusterColour(uint32_t cluster) {
    // Golden-ratio hue steps keep neighbouring ids apart; saturation and value cycle with
    // periods 3 and 2 so that ids with close hues still differ.
    const double hue = std::fmod(0.07 + double(cluster) * 0.6180339887498949, 1.0) * 6.0;
    const double saturation = 0.45 + 0.15 * double(cluster % 3);
    const double value = cluster % 2 ? 0.80 : 0.93;
    const int sector = int(hue);
    const double f = hue - sector;
    const double p = value * (1 - saturation), q = value * (1 - saturation * f),
                 t = value * (1 - saturation * (1 - f));
    double r = value, g = t, b = p;
    switch (sector) {
        case 1: r = q, g = value, b = p; break;
        case 2: r = p, g = value, b = t; break;
        case 3: r = p, g = q, b = value; break;
        case 4: r = t, g = p, b = value; break;
        case 5: r = value, g = p, b = q; break;
        default: break;
    }
    return {uint8_t(std::lround(r * 255)), uint8_t(std::lround(g * 255)),
            uint8_t(std::lround(b * 255)), 255};
}

Projection fitProjection(float min_x, float min_z, float max_x, float max_z, uint32_t size) {
    Projection p;
    p.min_x = min_x;
    p.min_z = min_z;
    const float extent = std::max(max_x - min_x, max_z - min_z);
    p.margin = std::min(p.margin, std::floor(float(size) / 32.0f));  // small views: no margin
    const float usable = std::max(1.0f, float(size) - 2 * p.margin);
    p.scale = extent > 0 ? usable / extent : 1.0f;
    p.width = uint32_t(std::max(1L, std::lround((max_x - min_x) * p.scale + 2 * p.margin)));
    p.height = uint32_t(std::max(1L, std::lround((max_z - min_z) * p.scale + 2 * p.margin)));
    return p;
}

namespace {

// Palette (sRGB).
constexpr Colour kGround{205, 205, 205, 255};
constexpr Colour kObstacle{150, 150, 150, 255};
constexpr Colour kWater{140, 185, 230, 255};
constexpr Colour kMud{185, 150, 110, 255};
constexpr Colour kOtherArea{215, 200, 160, 255};
constexpr Colour kGeometryStroke{160, 160, 160, 255};
constexpr Colour kWalkable{140, 205, 140, 255};
constexpr Colour kNavmesh{125, 200, 150, 255};
constexpr Colour kNavmeshStroke{40, 110, 60, 255};
constexpr Colour kFill{255, 160, 0, 140};
constexpr Colour kFillOverClusters{30, 30, 30, 110};  // orange would read as one more cluster
constexpr Colour kFillCorner{255, 140, 0, 230};
constexpr Colour kEdge{50, 70, 150, 120};
constexpr Colour kNode{30, 50, 140, 255};
constexpr Colour kTileEdge{50, 70, 150, 60};  // tile graphs are dense: lighter
constexpr Colour kTileNode{30, 50, 140, 150};
constexpr Colour kStart{0, 150, 0, 255};
constexpr Colour kGoal{25, 25, 25, 255};
constexpr Colour kMarkerStroke{255, 255, 255, 255};

constexpr float kPathWidth = 3.0f;  // [Units: px]
constexpr float kMarkerRadius = 5.5f;

// The artifact a view is drawn from. Heap-allocated and never moved: the graph view points
// into the asset.
struct Artifact {
    uint32_t kind = 0;
    std::string kind_name;
    uint32_t available = 0;  // layer bits
    geometry::Geometry geometry;
    voxel::VoxelGrid grid;
    navrt::Asset asset;
    navrt::GraphView graph;
    float min[3] = {0, 0, 0}, max[3] = {0, 0, 0};
};

std::string graphKindName(const navrt::GraphView& g) {
    if (g.isNavmesh()) return "navmesh graph";
    if (g.isPov()) return "POV graph";
    if (g.isDirichlet()) return "Dirichlet graph";
    if (g.implicitVolume()) return "volume graph";
    return "tile graph";
}

void growBounds(float min[3], float max[3], float x, float y, float z, bool& first) {
    const float v[3] = {x, y, z};
    for (int i = 0; i < 3; ++i) {
        min[i] = first ? v[i] : std::min(min[i], v[i]);
        max[i] = first ? v[i] : std::max(max[i], v[i]);
    }
    first = false;
}

Result<std::unique_ptr<Artifact>> loadArtifact(const std::filesystem::path& path) {
    auto container = loadContainer(path);
    if (!container) return container.error();
    auto a = std::make_unique<Artifact>();
    a->kind = container->container.kind;
    if (a->kind == formats::kKindGeometry) {
        auto geometry = geometry::decodeGeometry(*container);
        if (!geometry) return geometry.error();
        a->geometry = std::move(geometry).value();
        a->kind_name = "geometry artifact";
        a->available = layerBit(Layer::geometry);
        const geometry::Bounds b = a->geometry.bounds();
        for (int i = 0; i < 3; ++i) a->min[i] = b.min[size_t(i)], a->max[i] = b.max[size_t(i)];
        return a;
    }
    if (a->kind == formats::kKindVoxels) {
        auto grid = voxel::decodeVoxels(*container);
        if (!grid) return grid.error();
        a->grid = std::move(grid).value();
        a->kind_name = "voxel grid";
        a->available = layerBit(Layer::walkable);
        const voxel::VoxelGrid& g = a->grid;
        for (int i = 0; i < 3; ++i) a->min[i] = g.origin[i];
        a->max[0] = g.origin[0] + float(g.size_x) * g.cell_size;
        a->max[1] = g.origin[1] + float(g.size_y) * g.cell_height;
        a->max[2] = g.origin[2] + float(g.size_z) * g.cell_size;
        return a;
    }
    if (a->kind != formats::kKindGraph && a->kind != formats::kKindNav) {
        char name[5];
        formats::fourccToString(a->kind, name);
        return inputError(
            "{}: a {} artifact cannot be viewed; view the .geo, .vox, .graph or .nav "
            "it was made from",
            path.string(), name);
    }
    const std::vector<uint8_t>& bytes = container->bytes;
    if (navrt::Error e = navrt::loadFromMemory(bytes.data(), bytes.size(), a->asset))
        return inputError("{}: {} [{}]", path.string(), e.message, navrt::errorName(e.code));
    if (navrt::Error e = navrt::viewGraph(a->asset, a->graph))
        return inputError("{}: {} [{}]", path.string(), e.message, navrt::errorName(e.code));
    const navrt::GraphView& g = a->graph;
    a->kind_name = graphKindName(g);
    if (a->kind == formats::kKindNav) a->kind_name = "runtime asset (" + a->kind_name + ")";
    uint32_t layers = layerBit(Layer::graph) | layerBit(Layer::paths);
    if (g.isNavmesh())
        layers |= layerBit(Layer::navmesh);
    else
        layers |= layerBit(Layer::walkable);
    if (g.implicitVolume()) layers &= ~layerBit(Layer::graph);  // implicit 26-neighbour edges
    if (g.hasClusters() && (g.isNavmesh() || g.header.type == formats::GraphType::tile))
        layers |= layerBit(Layer::clusters);
    a->available = layers;
    const formats::GraphHeader& h = g.header;
    if (h.size_x > 0 && h.size_z > 0) {
        for (int i = 0; i < 3; ++i) a->min[i] = h.origin[i];
        a->max[0] = h.origin[0] + float(h.size_x) * h.cell_size;
        a->max[1] = h.origin[1] + float(h.size_y) * h.cell_height;
        a->max[2] = h.origin[2] + float(h.size_z) * h.cell_size;
    } else {
        bool first = true;
        for (uint32_t v = 0; v < g.mesh_vertex_count; ++v)
            growBounds(a->min, a->max, g.mesh_vertices[3 * v], g.mesh_vertices[3 * v + 1],
                       g.mesh_vertices[3 * v + 2], first);
        if (g.positions != nullptr)
            for (uint32_t n = 0; n < g.nodeCount(); ++n)
                growBounds(a->min, a->max, g.positions[3 * size_t(n)],
                           g.positions[3 * size_t(n) + 1], g.positions[3 * size_t(n) + 2], first);
    }
    return a;
}

// Adds shapes to a scene, dropping those outside the floor range.
class Builder {
public:
    Builder(Scene& scene, const ViewOptions& options) : scene_(scene), options_(options) {}

    bool keep(float y) const {
        return !options_.floor_filter || (y >= options_.floor_min && y <= options_.floor_max);
    }
    // The legend entry of the shapes added from now on.
    uint16_t key(const LegendKey& key) { return key_ = scene_.addKey(key); }
    void useKey(uint16_t key) { key_ = key; }

    void polygon(Group group, const Point3* corners, uint32_t count, Colour fill, Colour stroke,
                 float stroke_px, float sort_y) {
        Shape s;
        s.kind = ShapeKind::polygon;
        s.group = group;
        s.fill = fill;
        s.stroke = stroke;
        s.stroke_px = stroke_px;
        s.first = uint32_t(scene_.points.size());
        s.count = count;
        s.sort_y = sort_y;
        s.key = key_;
        for (uint32_t i = 0; i < count; ++i) scene_.add(corners[i]);
        scene_.shapes.push_back(s);
    }
    // The axis-aligned square [x0, x1] x [z0, z1] at height y.
    void quad(Group group, float x0, float z0, float x1, float z1, float y, Colour fill) {
        const Point3 corners[4] = {{x0, y, z0}, {x1, y, z0}, {x1, y, z1}, {x0, y, z1}};
        polygon(group, corners, 4, fill, {}, 0, y);
    }
    void line(Group group, Point3 a, Point3 b, Colour colour, float width_px) {
        Shape s;
        s.kind = ShapeKind::line;
        s.group = group;
        s.stroke = colour;
        s.stroke_px = width_px;
        s.first = scene_.add(a);
        scene_.add(b);
        s.count = 2;
        s.sort_y = std::max(a.y, b.y);
        s.key = key_;
        scene_.shapes.push_back(s);
    }
    void disc(Group group, Point3 centre, float radius_px, Colour fill, Colour stroke = {},
              float stroke_px = 0) {
        Shape s;
        s.kind = ShapeKind::disc;
        s.group = group;
        s.fill = fill;
        s.stroke = stroke;
        s.stroke_px = stroke_px;
        s.radius_px = radius_px;
        s.first = scene_.add(centre);
        s.count = 1;
        s.sort_y = centre.y;
        s.key = key_;
        scene_.shapes.push_back(s);
    }
    void polyline(Group group, const std::vector<Point3>& points, Colour colour, float width_px) {
        Shape s;
        s.kind = ShapeKind::polyline;
        s.group = group;
        s.stroke = colour;
        s.stroke_px = width_px;
        s.first = uint32_t(scene_.points.size());
        s.count = uint32_t(points.size());
        s.key = key_;
        for (const Point3& p : points) scene_.add(p);
        scene_.shapes.push_back(s);
    }

private:
    Scene& scene_;
    const ViewOptions& options_;
    uint16_t key_ = kNoKey;
};

Point3 toPoint(navrt::Vec3 v) { return {v.x, v.y, v.z}; }

Colour areaColour(const geometry::Geometry& g, uint8_t area) {
    if (area == geometry::kObstacleArea || area >= g.areas.size() || !g.areas[area].walkable)
        return kObstacle;
    const std::string& name = g.areas[area].name;
    if (name == "water") return kWater;
    if (name == "mud") return kMud;
    return area == geometry::kGroundArea ? kGround : kOtherArea;
}

void drawGeometry(Builder& b, const geometry::Geometry& g, ViewStats& stats) {
    // One legend key per area type, in id order (areas sharing a colour share an entry).
    std::vector<uint16_t> keys(256, kNoKey);
    auto keyOf = [&](uint8_t area) {
        if (keys[area] == kNoKey) {
            const std::string name = area < g.areas.size() && !g.areas[area].name.empty()
                                         ? g.areas[area].name
                                         : fmt::format("area {}", area);
            keys[area] = b.key({name, Swatch::box, areaColour(g, area), kGeometryStroke});
        }
        return keys[area];
    };
    for (size_t area = 0; area < std::min<size_t>(g.areas.size(), 256); ++area)
        keyOf(uint8_t(area));
    for (size_t t = 0; t < g.triangleCount(); ++t) {
        Point3 corners[3];
        float y = 0;
        for (int k = 0; k < 3; ++k) {
            const uint32_t v = g.triangles[3 * t + size_t(k)];
            corners[k] = {g.vertices[3 * size_t(v)], g.vertices[3 * size_t(v) + 1],
                          g.vertices[3 * size_t(v) + 2]};
            y += corners[k].y / 3;
        }
        if (!b.keep(y)) continue;
        b.useKey(keyOf(g.triangle_areas[t]));
        b.polygon(Group::geometry, corners, 3, areaColour(g, g.triangle_areas[t]), kGeometryStroke,
                  0.4f, y);
        ++stats.triangles;
    }
}

// Walkable surfaces coloured by area, so modifier volumes, area costs and masks show: plain
// ground in the walkable green, water blue, mud brown, any other area (a volume's "ground x2", a
// studio's "lava") its own palette colour; one legend entry per area drawn.
class AreaPalette {
public:
    explicit AreaPalette(std::vector<geometry::AreaType> areas) : areas_(std::move(areas)) {}
    Colour colour(uint8_t area) const {
        if (area >= areas_.size()) return kWalkable;
        const std::string& name = areas_[area].name;
        if (area == geometry::kGroundArea && areas_[area].cost == 1.0f) return kWalkable;
        if (name == "water" || name.starts_with("water x")) return kWater;
        if (name == "mud" || name.starts_with("mud x")) return kMud;
        return clusterColour(area * 7u + 3u);
    }
    // Selects (adding it once) the legend entry of `area`.
    void use(Builder& b, uint8_t area) {
        if (area == last_) return;
        last_ = area;
        auto it = std::find_if(keys_.begin(), keys_.end(),
                               [&](const auto& k) { return k.first == area; });
        if (it != keys_.end()) {
            b.useKey(it->second);
            return;
        }
        const std::string name =
            area < areas_.size() ? areas_[area].name : fmt::format("area {}", area);
        keys_.push_back({area, b.key({area == geometry::kGroundArea ? std::string("walkable")
                                                                    : "walkable: " + name,
                                      Swatch::box, colour(area), kNoColour})});
    }

private:
    std::vector<geometry::AreaType> areas_;
    std::vector<std::pair<uint8_t, uint16_t>> keys_;
    int last_ = -1;
};

// The area table of a graph asset (AREA), or the default one.
std::vector<geometry::AreaType> assetAreas(const navrt::Asset& asset) {
    const navrt::SectionView areas = asset.find(formats::kSecAreas);
    if (areas.data == nullptr) return geometry::defaultAreaTable();
    auto table = geometry::decodeAreaTable(
        std::vector<uint8_t>(areas.data, areas.data + areas.size), "asset");
    return table ? std::move(table).value() : geometry::defaultAreaTable();
}

void drawVoxelSurface(Builder& b, const voxel::VoxelGrid& g, ViewStats& stats) {
    AreaPalette palette(g.areas);
    for (uint32_t z = 0; z < g.size_z; ++z)
        for (uint32_t x = 0; x < g.size_x; ++x)
            for (const voxel::Span& span : g.column(x, z)) {
                if (!span.walkable) continue;
                const float y = g.topY(span);
                if (!b.keep(y)) continue;
                const float x0 = g.origin[0] + float(x) * g.cell_size;
                const float z0 = g.origin[2] + float(z) * g.cell_size;
                palette.use(b, span.area);
                b.quad(Group::surface, x0, z0, x0 + g.cell_size, z0 + g.cell_size, y,
                       palette.colour(span.area));
                ++stats.cells;
            }
}

// Footprint square and height of a grid cell record (tile node or POV layer cell).
struct CellRect {
    float x0, z0, x1, z1, y;
};
CellRect cellRect(const formats::GraphHeader& h, const uint8_t* record) {
    const formats::NodeCell c = formats::decodeNodeCell(record);
    const float x0 = h.origin[0] + float(c.column % h.size_x) * h.cell_size;
    const float z0 = h.origin[2] + float(c.column / h.size_x) * h.cell_size;
    return {x0, z0, x0 + h.cell_size, z0 + h.cell_size, h.origin[1] + float(c.y) * h.cell_height};
}
// Volume graphs: the voxel of `node` (x, y, z) as in navrt's node numbering.
CellRect voxelRect(const formats::GraphHeader& h, uint32_t node) {
    const uint32_t x = node % h.size_x, rest = node / h.size_x;
    const uint32_t y = rest / h.size_z, z = rest % h.size_z;
    const float x0 = h.origin[0] + float(x) * h.cell_size;
    const float z0 = h.origin[2] + float(z) * h.cell_size;
    return {x0, z0, x0 + h.cell_size, z0 + h.cell_size, h.origin[1] + float(y) * h.cell_height};
}

void polygonCorners(const navrt::GraphView& g, uint32_t poly, std::vector<Point3>& out, float& y) {
    out.clear();
    y = 0;
    for (uint32_t i = g.poly_offsets[poly]; i < g.poly_offsets[poly + 1]; ++i) {
        const uint32_t v = g.poly_vertices[i];
        out.push_back({g.mesh_vertices[3 * size_t(v)], g.mesh_vertices[3 * size_t(v) + 1],
                       g.mesh_vertices[3 * size_t(v) + 2]});
        y += out.back().y;
    }
    if (!out.empty()) y /= float(out.size());
}

// Walkable cells, navmesh polygons, POV layer cells or the volume footprint, in cluster colours
// when `clusters` is set.
void drawGraphSurface(Builder& b, const navrt::GraphView& g, AreaPalette& palette, bool clusters,
                      ViewStats& stats) {
    const formats::GraphHeader& h = g.header;
    auto colourOf = [&](uint32_t node, Colour plain) {
        if (!clusters) return plain;
        ++stats.clustered;
        return clusterColour(g.node_clusters[node]);
    };
    const uint16_t cluster_key = clusters ? b.key({fmt::format("clusters ({})", g.cluster_count),
                                                   Swatch::clusters, kNoColour, kNoColour})
                                          : kNoKey;
    if (clusters) b.useKey(cluster_key);
    if (g.isNavmesh()) {
        if (!clusters) b.key({"navmesh", Swatch::box, kNavmesh, kNavmeshStroke});
        std::vector<Point3> corners;
        for (uint32_t p = 0; p < g.nodeCount(); ++p) {
            float y;
            polygonCorners(g, p, corners, y);
            if (corners.size() < 3 || !b.keep(y)) continue;
            b.polygon(Group::surface, corners.data(), uint32_t(corners.size()),
                      colourOf(p, kNavmesh), kNavmeshStroke, 0.8f, y);
            ++stats.polygons;
        }
    } else if (g.isDirichlet()) {
        // Each domain in its own colour (the cluster palette), so the regions show.
        const uint16_t key = b.key({fmt::format("Dirichlet domains ({})", g.nodeCount()),
                                    Swatch::clusters, kNoColour, kNoColour});
        b.useKey(key);
        for (uint32_t c = 0; c < g.layer_cell_count; ++c) {
            const CellRect r = cellRect(h, g.layer_cells + size_t(c) * formats::kNodeCellSize);
            if (!b.keep(r.y)) continue;
            b.quad(Group::surface, r.x0, r.z0, r.x1, r.z1, r.y, clusterColour(g.domain_owners[c]));
            ++stats.cells;
        }
    } else if (g.isPov()) {
        b.key({"walkable", Swatch::box, kWalkable, kNoColour});
        for (uint32_t c = 0; c < g.layer_cell_count; ++c) {
            const CellRect r = cellRect(h, g.layer_cells + size_t(c) * formats::kNodeCellSize);
            if (!b.keep(r.y)) continue;
            b.quad(Group::surface, r.x0, r.z0, r.x1, r.z1, r.y, kWalkable);
            ++stats.cells;
        }
    } else if (g.implicitVolume()) {
        b.key({"free space (lowest)", Swatch::box, kWalkable, kNoColour});
        // Lowest free voxel of each column.
        std::vector<uint32_t> lowest(size_t(h.size_x) * h.size_z, navrt::kNoNode);
        const size_t words = (size_t(g.nodeCount()) + 63) / 64;
        for (size_t w = 0; w < words; ++w)
            for (uint64_t bits = g.free_voxels[w]; bits != 0; bits &= bits - 1) {
                const uint32_t node = uint32_t(w * 64 + size_t(std::countr_zero(bits)));
                if (node >= g.nodeCount()) break;
                const CellRect r = voxelRect(h, node);
                if (!b.keep(r.y)) continue;
                const size_t column =
                    size_t(node % h.size_x) + size_t((node / h.size_x) % h.size_z) * h.size_x;
                if (lowest[column] == navrt::kNoNode || node < lowest[column])
                    lowest[column] = node;
            }
        for (uint32_t node : lowest) {
            if (node == navrt::kNoNode) continue;
            const CellRect r = voxelRect(h, node);
            b.quad(Group::surface, r.x0, r.z0, r.x1, r.z1, r.y, kWalkable);
            ++stats.cells;
        }
    } else {
        for (uint32_t n = 0; n < g.nodeCount(); ++n) {
            const uint8_t* record = g.cells + size_t(n) * formats::kNodeCellSize;
            const CellRect r = cellRect(h, record);
            if (!b.keep(r.y)) continue;
            const uint8_t area = formats::decodeNodeCell(record).area;
            if (!clusters) palette.use(b, area);
            b.quad(Group::surface, r.x0, r.z0, r.x1, r.z1, r.y, colourOf(n, palette.colour(area)));
            ++stats.cells;
        }
    }
}

bool hasEdge(const navrt::GraphView& g, uint32_t from, uint32_t to) {
    for (uint32_t e = g.edge_offsets[from]; e < g.edge_offsets[from + 1]; ++e)
        if (g.edgeTarget(from, e) == to) return true;
    return false;
}

// Links as arcs from their start to their end (raised, and bent sideways so a top-down view
// separates them from the surface edges) with an arrowhead at each end they lead to; authored
// links orange, generated ones violet. A wide link (several lanes sharing its id) is drawn as a
// ribbon: the arcs of its two outer lanes and the lines joining their take-offs and landings.
void drawLinks(Builder& b, const navrt::GraphView& g, ViewStats& stats) {
    constexpr Colour kAuthored{235, 120, 20, 230};
    constexpr Colour kGenerated{150, 60, 200, 230};
    auto arcOf = [&](const formats::LinkRecord& l, Colour colour) {
        const Point3 a{l.from[0], l.from[1], l.from[2]}, c{l.to[0], l.to[1], l.to[2]};
        const float dx = c.x - a.x, dz = c.z - a.z;
        const float length = std::sqrt(dx * dx + dz * dz + (c.y - a.y) * (c.y - a.y));
        // Quadratic Bezier through a control point above the middle, offset to the left.
        const float flat = std::max(std::sqrt(dx * dx + dz * dz), 1e-6f);
        const Point3 control{0.5f * (a.x + c.x) - 0.15f * length * dz / flat,
                             0.5f * (a.y + c.y) + 0.25f * length,
                             0.5f * (a.z + c.z) + 0.15f * length * dx / flat};
        std::vector<Point3> arc;
        for (int k = 0; k <= 12; ++k) {
            const float t = float(k) / 12.0f, u = 1.0f - t;
            arc.push_back({u * u * a.x + 2 * u * t * control.x + t * t * c.x,
                           u * u * a.y + 2 * u * t * control.y + t * t * c.y,
                           u * u * a.z + 2 * u * t * control.z + t * t * c.z});
        }
        b.polyline(Group::links, arc, colour, 1.5f);
        // Arrowheads: two short strokes back along the arc's last (first) segment.
        auto head = [&](const Point3& tip, const Point3& before) {
            const float hx = before.x - tip.x, hz = before.z - tip.z;
            const float h = std::max(std::sqrt(hx * hx + hz * hz), 1e-6f);
            const float size = std::min(0.12f * length, 0.35f);
            for (float side : {-1.0f, 1.0f}) {
                const float rx = (hx * 0.94f - side * hz * 0.34f) / h;  // +-20 degrees
                const float rz = (hz * 0.94f + side * hx * 0.34f) / h;
                b.line(Group::links, tip, {tip.x + size * rx, tip.y, tip.z + size * rz}, colour,
                       1.5f);
            }
        };
        head(arc.back(), arc[arc.size() - 2]);
        if (l.flags & formats::kLinkFlagBidirectional) head(arc.front(), arc[1]);
    };
    const uint16_t authored_key = b.key({"link (authored)", Swatch::line, kAuthored, kNoColour});
    const uint16_t generated_key = b.key({"link (generated)", Swatch::line, kGenerated, kNoColour});
    for (uint32_t i = 0; i < g.link_count;) {
        uint32_t end = i + 1;
        const formats::LinkRecord first = g.link(i);
        while (end < g.link_count && g.link(end).id == first.id) ++end;
        const formats::LinkRecord last = g.link(end - 1);
        i = end;
        if (!b.keep(first.from[1]) && !b.keep(first.to[1])) continue;
        const bool generated = (first.flags & formats::kLinkFlagGenerated) != 0;
        const Colour colour = generated ? kGenerated : kAuthored;
        b.useKey(generated ? generated_key : authored_key);
        arcOf(first, colour);
        if (last.from[0] != first.from[0] || last.from[2] != first.from[2]) {  // lanes
            arcOf(last, colour);
            b.line(Group::links, {first.from[0], first.from[1], first.from[2]},
                   {last.from[0], last.from[1], last.from[2]}, colour, 1.5f);
            b.line(Group::links, {first.to[0], first.to[1], first.to[2]},
                   {last.to[0], last.to[1], last.to[2]}, colour, 1.5f);
        }
        ++stats.links;
    }
}

void drawGraph(Builder& b, const navrt::GraphView& g, const ViewOptions& options, float scale,
               ViewStats& stats) {
    const bool tile = g.header.type == formats::GraphType::tile;
    const float cell_px = g.header.cell_size * scale;
    const float radius = tile ? std::clamp(0.18f * cell_px, 0.5f, 2.5f) : 2.0f;
    const float width = tile ? std::clamp(0.08f * cell_px, 0.4f, 0.8f) : 0.8f;
    const uint32_t n = g.nodeCount();
    // Each undirected edge once: u -> v with u < v, or a one-way edge. Links are drawn apart.
    auto drawn = [&](uint32_t u, uint32_t v) { return u < v || !hasEdge(g, v, u); };
    size_t undirected = 0;
    for (uint32_t u = 0; u < n; ++u)
        for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e)
            undirected += g.edgeLink(e) == formats::kNoLink && drawn(u, g.edgeTarget(u, e));
    drawLinks(b, g, stats);
    b.key({"graph edges", Swatch::line, tile ? kTileEdge : kEdge, kNoColour});
    if (undirected > options.max_edges) {
        stats.skipped_edges = undirected;
    } else {
        for (uint32_t u = 0; u < n; ++u) {
            const navrt::Vec3 a = g.position(u);
            for (uint32_t e = g.edge_offsets[u]; e < g.edge_offsets[u + 1]; ++e) {
                const uint32_t v = g.edgeTarget(u, e);
                if (g.edgeLink(e) != formats::kNoLink || !drawn(u, v)) continue;
                const navrt::Vec3 c = g.position(v);
                if (!b.keep(a.y) || !b.keep(c.y)) continue;
                b.line(Group::edges, toPoint(a), toPoint(c), tile ? kTileEdge : kEdge, width);
                ++stats.edges;
            }
        }
    }
    if (n > options.max_nodes) {
        stats.skipped_nodes = n;
        return;
    }
    b.key({"graph nodes", Swatch::dot, tile ? kTileNode : kNode, kNoColour});
    for (uint32_t u = 0; u < n; ++u) {
        const navrt::Vec3 p = g.position(u);
        if (!b.keep(p.y)) continue;
        b.disc(Group::nodes, toPoint(p), radius, tile ? kTileNode : kNode);
        ++stats.nodes;
    }
}

// The nodes the last search of `search` expanded: cells, polygons or (POV) corner dots.
void drawFill(Builder& b, const navrt::GraphView& g, const navrt::PathQuery& search, Colour fill,
              ViewStats& stats) {
    if (search.expansions() == 0) return;  // no search ran (e.g. different components)
    if (g.isPov() || g.isDirichlet())
        b.key({"A* expanded", Swatch::dot, kFillCorner, kNoColour});
    else
        b.key({"A* expanded", Swatch::box, fill, kNoColour});
    std::vector<Point3> corners;
    for (uint32_t n = 0; n < g.nodeCount(); ++n) {
        if (!std::isfinite(search.settledCost(n))) continue;
        if (g.isNavmesh()) {
            float y;
            polygonCorners(g, n, corners, y);
            if (corners.size() < 3 || !b.keep(y)) continue;
            b.polygon(Group::fill, corners.data(), uint32_t(corners.size()), fill, {}, 0, y);
        } else if (g.isPov() || g.isDirichlet()) {
            const navrt::Vec3 p = g.position(n);
            if (!b.keep(p.y)) continue;
            b.disc(Group::fill, toPoint(p), 4.5f, kFillCorner);  // around the 2 px node dot
        } else {
            const CellRect r =
                g.implicitVolume()
                    ? voxelRect(g.header, n)
                    : cellRect(g.header, g.cells + size_t(n) * formats::kNodeCellSize);
            if (!b.keep(r.y)) continue;
            b.quad(Group::fill, r.x0, r.z0, r.x1, r.z1, r.y, fill);
        }
        ++stats.expanded;
    }
}

std::string pointText(navrt::Vec3 p) { return fmt::format("({}, {}, {})", p.x, p.y, p.z); }

Status drawPaths(Builder& b, const navrt::GraphView& g, const std::filesystem::path& artifact,
                 const ViewOptions& options, bool over_clusters, Context& context,
                 ViewStats& stats) {
    navrt::PathQuery search;
    if (navrt::Error e = search.init(g))
        return makeError(ErrorKind::internal, "{}: {}", artifact.string(), e.message);
    std::vector<navrt::Vec3> smoothed;
    for (size_t i = 0; i < options.paths.size(); ++i) {
        const PathRequest& request = options.paths[i];
        const query::QueryRecord record =
            query::runQuery(g, search, request.from, request.to, options.tolerance, false);
        if (record.outcome == query::Outcome::start_off_graph ||
            record.outcome == query::Outcome::goal_off_graph) {
            const bool start = record.outcome == query::Outcome::start_off_graph;
            return inputError(
                "path {}: the {} point {} is not on the navigation data of {} (within "
                "{} m horizontally and {} m vertically)",
                i + 1, start ? "start" : "goal", pointText(start ? request.from : request.to),
                artifact.string(), options.tolerance.horizontal, options.tolerance.vertical);
        }
        ++stats.paths;
        drawFill(b, g, search, over_clusters ? kFillOverClusters : kFill, stats);
        Point3 from = toPoint(request.from), to = toPoint(request.to);
        if (record.outcome == query::Outcome::found) {
            ++stats.paths_found;
            smoothed.resize(size_t(search.pathLength()) + 2);
            uint32_t count = search.smooth(smoothed.data(), uint32_t(smoothed.size()));
            if (count > smoothed.size()) {
                smoothed.resize(count);
                count = search.smooth(smoothed.data(), count);
            }
            std::vector<Point3> points;
            for (uint32_t k = 0; k < count; ++k) points.push_back(toPoint(smoothed[k]));
            if (points.size() >= 2) {
                b.key({options.paths.size() == 1 ? std::string("path")
                                                 : fmt::format("path {}", i + 1),
                       Swatch::line, pathColour(i), kNoColour});
                b.polyline(Group::paths, points, pathColour(i), kPathWidth);
                stats.path_points += points.size();
            }
            if (!points.empty()) from = points.front(), to = points.back();
        } else {
            context.warn("path {}: {} -> {}: {} after {} expansions; drawing the fill only", i + 1,
                         pointText(request.from), pointText(request.to),
                         query::outcomeName(record.outcome), record.expansions);
        }
        b.key({"start", Swatch::dot, kStart, kMarkerStroke});
        b.disc(Group::markers, from, kMarkerRadius, kStart, kMarkerStroke, 1.5f);
        b.key({"goal", Swatch::dot, kGoal, kMarkerStroke});
        b.disc(Group::markers, to, kMarkerRadius, kGoal, kMarkerStroke, 1.5f);
    }
    return {};
}

Colour shade(Colour c, float factor) {
    auto channel = [&](uint8_t v) {
        return uint8_t(std::lround(std::clamp(float(v) * factor, 0.0f, 255.0f)));
    };
    return {channel(c.r), channel(c.g), channel(c.b), c.a};
}

// Darkens lower surfaces (70% at the lowest, 100% at the highest) so floors read apart, then
// orders the shapes: by group, surfaces and the graph from low to high.
void finishScene(Scene& scene) {
    float lo = HUGE_VALF, hi = -HUGE_VALF;
    for (const Shape& s : scene.shapes)
        if (s.group == Group::geometry || s.group == Group::surface) {
            lo = std::min(lo, s.sort_y);
            hi = std::max(hi, s.sort_y);
        }
    scene.shaded = hi > lo;
    if (hi > lo)
        for (Shape& s : scene.shapes)
            if (s.group == Group::geometry || s.group == Group::surface) {
                const float factor = 0.7f + 0.3f * (s.sort_y - lo) / (hi - lo);
                s.fill = shade(s.fill, factor);
                s.stroke = shade(s.stroke, factor);
            }
    std::stable_sort(scene.shapes.begin(), scene.shapes.end(), [](const Shape& a, const Shape& b) {
        if (a.group != b.group) return a.group < b.group;
        const bool by_height =
            a.group != Group::paths && a.group != Group::links && a.group != Group::markers;
        return by_height && a.sort_y < b.sort_y;
    });
}

}  // namespace

Status writeView(const std::filesystem::path& artifact, const std::filesystem::path& out,
                 const ViewOptions& options, Context& context, ViewStats* stats_out) {
    if (Status s = checkOptions(options); !s) return s;
    auto format = formatFromPath(out);
    if (!format) return format.error();
    auto loaded = loadArtifact(artifact);
    if (!loaded) return loaded.error();
    const Artifact& a = **loaded;

    uint32_t layers = options.layers;
    if (layers == 0) {
        layers = a.available & ~layerBit(Layer::paths);
        if (!options.paths.empty()) layers |= layerBit(Layer::paths);
    }
    if (!options.paths.empty() && !(a.available & layerBit(Layer::paths)))
        return makeError(ErrorKind::usage,
                         "{}: paths need a graph or runtime asset (.graph, .nav), and this is a {}",
                         artifact.string(), a.kind_name);
    if (!options.paths.empty()) layers |= layerBit(Layer::paths);
    if (uint32_t missing = layers & ~a.available; missing != 0)
        return makeError(ErrorKind::usage, "{}: a {} has no {} layer (its layers: {})",
                         artifact.string(), a.kind_name, layerNames(missing),
                         layerNames(a.available));
    if ((layers & layerBit(Layer::paths)) && options.paths.empty())
        return makeError(ErrorKind::usage, "layer 'paths' needs at least one path (--path)");

    ViewStats stats;
    stats.kind = a.kind_name;
    stats.layers = layers;
    Scene scene;
    scene.title = options.title.empty() ? artifact.filename().string() : options.title;
    // [Units: m] the box on X and Z the drawing is fitted to.
    const float fit_min[2] = {options.crop ? options.crop_min[0] : a.min[0],
                              options.crop ? options.crop_min[1] : a.min[2]};
    const float fit_max[2] = {options.crop ? options.crop_max[0] : a.max[0],
                              options.crop ? options.crop_max[1] : a.max[2]};
    scene.projection = fitProjection(fit_min[0], fit_min[1], fit_max[0], fit_max[1], options.size);
    Builder builder(scene, options);
    if (layers & layerBit(Layer::geometry)) drawGeometry(builder, a.geometry, stats);
    if (a.kind == formats::kKindVoxels) {
        drawVoxelSurface(builder, a.grid, stats);
    } else if (a.kind == formats::kKindGraph || a.kind == formats::kKindNav) {
        const bool clusters = (layers & layerBit(Layer::clusters)) != 0;
        if (layers &
            (layerBit(Layer::walkable) | layerBit(Layer::navmesh) | layerBit(Layer::clusters))) {
            AreaPalette palette(assetAreas(a.asset));
            drawGraphSurface(builder, a.graph, palette, clusters, stats);
        }
        if (clusters) stats.clusters = a.graph.cluster_count;
        if (layers & layerBit(Layer::graph))
            drawGraph(builder, a.graph, options, scene.projection.scale, stats);
        if (layers & layerBit(Layer::paths))
            if (Status s = drawPaths(builder, a.graph, artifact, options, clusters, context, stats);
                !s)
                return s;
    }
    if (options.crop) {
        // Only the shapes that reach into the box (writers clip the rest of them).
        std::erase_if(scene.shapes, [&](const Shape& s) {
            float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
            for (uint32_t i = s.first; i < s.first + s.count; ++i) {
                const Point3& p = scene.points[i];
                lo[0] = std::min(lo[0], p.x), hi[0] = std::max(hi[0], p.x);
                lo[1] = std::min(lo[1], p.z), hi[1] = std::max(hi[1], p.z);
            }
            return hi[0] < options.crop_min[0] || lo[0] > options.crop_max[0] ||
                   hi[1] < options.crop_min[1] || lo[1] > options.crop_max[1];
        });
    }
    finishScene(scene);
    for (const Shape& s : scene.shapes) {
        stats.polygon_shapes += s.kind == ShapeKind::polygon;
        stats.line_shapes += s.kind == ShapeKind::line;
        stats.disc_shapes += s.kind == ShapeKind::disc;
        stats.polyline_shapes += s.kind == ShapeKind::polyline;
    }

    std::vector<uint8_t> bytes;
    if (*format == ViewFormat::glb) {
        bytes = renderGlb(scene, &stats.glb_meshes, &stats.glb_vertices);
    } else {
        stats.width = stats.drawing_width = scene.projection.width;
        stats.height = stats.drawing_height = scene.projection.height;
        if (options.annotations) annotate(scene, options, fit_min, fit_max, stats);
        if (*format == ViewFormat::svg) {
            bytes = renderSvg(scene);
        } else {
            auto png = renderPng(scene);
            if (!png) return png.error();
            bytes = std::move(png).value();
        }
    }
    if (Status s = writeFileAtomic(out, bytes); !s) return s;
    stats.bytes = bytes.size();
    if (stats_out) *stats_out = std::move(stats);
    return {};
}

}  // namespace nav::view
