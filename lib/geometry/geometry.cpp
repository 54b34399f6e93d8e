#include "lib/geometry/geometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/bytes.h"
#include "formats/layouts.h"
#include "lib/common/json_reader.h"

namespace nav::geometry {

std::vector<AreaType> defaultAreaTable() {
    return {AreaType{"obstacle", 1.0f, false}, AreaType{"ground", 1.0f, true}};
}

std::vector<uint8_t> encodeAreaTable(const std::vector<AreaType>& areas) {
    formats::ByteWriter out;
    out.u32(uint32_t(areas.size()));
    for (const AreaType& area : areas) {
        out.u8(area.walkable ? formats::kAreaFlagWalkable : 0);
        out.u8(0);
        out.u16(0);
        out.f32(area.cost);
        out.str(area.name);
    }
    return out.take();
}

Result<std::vector<AreaType>> decodeAreaTable(const std::vector<uint8_t>& bytes,
                                              const std::filesystem::path& file) {
    auto table = std::make_unique<formats::AreaTable>();
    if (formats::Error error = formats::decodeAreaTable(bytes.data(), bytes.size(), *table))
        return containerError(file, error);
    std::vector<AreaType> areas;
    for (uint32_t i = 0; i < table->count; ++i) {
        const formats::AreaRecord& r = table->areas[i];
        areas.push_back({r.name, r.cost, (r.flags & formats::kAreaFlagWalkable) != 0});
    }
    return areas;
}

Bounds Geometry::bounds() const {
    Bounds b;
    if (vertices.empty()) return b;
    for (int axis = 0; axis < 3; ++axis) b.min[axis] = b.max[axis] = vertices[axis];
    for (size_t i = 0; i < vertices.size(); i += 3) {
        for (int axis = 0; axis < 3; ++axis) {
            b.min[axis] = std::min(b.min[axis], vertices[i + axis]);
            b.max[axis] = std::max(b.max[axis], vertices[i + axis]);
        }
    }
    return b;
}

Geometry clipToBox(const Geometry& g, const Bounds& box) {
    Geometry out = g;  // objects, areas, counts and links as they are; triangles below
    out.vertices.clear();
    out.triangles.clear();
    out.triangle_areas.clear();
    out.triangle_objects.clear();
    std::vector<uint32_t> remap(g.vertexCount(), UINT32_MAX);
    auto keep = [&](uint32_t v) {
        if (remap[v] == UINT32_MAX) {
            remap[v] = uint32_t(out.vertexCount());
            out.vertices.insert(out.vertices.end(), g.vertices.begin() + 3 * ptrdiff_t(v),
                                g.vertices.begin() + 3 * ptrdiff_t(v) + 3);
        }
        return remap[v];
    };
    auto inside = [&](const float* p) { return box.contains(p[0], p[1], p[2]); };
    using Point = std::array<double, 3>;
    std::vector<Point> polygon, clipped;
    for (size_t t = 0; t < g.triangleCount(); ++t) {
        const uint32_t* tri = &g.triangles[3 * t];
        const float* p[3] = {&g.vertices[3 * size_t(tri[0])], &g.vertices[3 * size_t(tri[1])],
                             &g.vertices[3 * size_t(tri[2])]};
        bool outside = false;
        for (int a = 0; a < 3 && !outside; ++a)
            outside = std::max({p[0][a], p[1][a], p[2][a]}) < box.min[size_t(a)] ||
                      std::min({p[0][a], p[1][a], p[2][a]}) > box.max[size_t(a)];
        if (outside) continue;
        if (inside(p[0]) && inside(p[1]) && inside(p[2])) {
            for (int k = 0; k < 3; ++k) out.triangles.push_back(keep(tri[k]));
            out.triangle_areas.push_back(g.triangle_areas[t]);
            if (!g.triangle_objects.empty()) out.triangle_objects.push_back(g.triangle_objects[t]);
            continue;
        }
        // Sutherland-Hodgman against the six faces.
        polygon.clear();
        for (int k = 0; k < 3; ++k) polygon.push_back({p[k][0], p[k][1], p[k][2]});
        for (int face = 0; face < 6 && !polygon.empty(); ++face) {
            const int a = face / 2;
            const double bound = face % 2 == 0 ? box.min[size_t(a)] : box.max[size_t(a)];
            const double side = face % 2 == 0 ? 1.0 : -1.0;
            clipped.clear();
            for (size_t i = 0, j = polygon.size() - 1; i < polygon.size(); j = i++) {
                const double da = (polygon[j][size_t(a)] - bound) * side;
                const double db = (polygon[i][size_t(a)] - bound) * side;
                if ((da > 0 && db < 0) || (da < 0 && db > 0)) {
                    const double s = da / (da - db);
                    Point q;
                    for (int c = 0; c < 3; ++c)
                        q[size_t(c)] = polygon[j][size_t(c)] +
                                       (polygon[i][size_t(c)] - polygon[j][size_t(c)]) * s;
                    q[size_t(a)] = bound;
                    clipped.push_back(q);
                }
                if (db >= 0) clipped.push_back(polygon[i]);
            }
            polygon.swap(clipped);
        }
        if (polygon.size() < 3) continue;
        const uint32_t first = uint32_t(out.vertexCount());
        for (const Point& q : polygon)
            for (int c = 0; c < 3; ++c) out.vertices.push_back(float(q[size_t(c)]));
        for (uint32_t k = 1; k + 1 < polygon.size(); ++k) {
            out.triangles.insert(out.triangles.end(), {first, first + k, first + k + 1});
            out.triangle_areas.push_back(g.triangle_areas[t]);
            if (!g.triangle_objects.empty()) out.triangle_objects.push_back(g.triangle_objects[t]);
        }
    }
    return out;
}

namespace {

using formats::arrayBytes;

template <class T>
bool bytesToPod(const std::vector<uint8_t>& bytes, size_t count, std::vector<T>& out) {
    if (bytes.size() != count * sizeof(T)) return false;
    out.resize(count);
    if (count > 0) std::memcpy(out.data(), bytes.data(), bytes.size());
    return true;
}

}  // namespace

void addLinkSpecSections(formats::ContainerWriter& writer, const std::vector<LinkSpec>& links) {
    if (links.empty()) return;
    std::vector<uint8_t> records, names;
    encodeLinkSpecs(links, records, names);
    writer.add(formats::kSecLinkSpecs, std::move(records));
    writer.add(formats::kSecLinkSpecNames, std::move(names));
}

Result<std::vector<LinkSpec>> decodeLinkSpecSections(const LoadedContainer& c) {
    const bool records = c.has(formats::kSecLinkSpecs), names = c.has(formats::kSecLinkSpecNames);
    if (!records && !names) return std::vector<LinkSpec>{};
    if (records != names)
        return inputError("{}: section '{}' without section '{}' (both or neither)",
                          c.path.string(), records ? "SLNK" : "SLNM", records ? "SLNM" : "SLNK");
    if (c.container.kind_version < 2)
        return inputError("{}: sections 'SLNK'/'SLNM' in a kind version {} file (links need 2)",
                          c.path.string(), c.container.kind_version);
    auto record_bytes = c.section(formats::kSecLinkSpecs);
    if (!record_bytes) return record_bytes.error();
    auto name_bytes = c.section(formats::kSecLinkSpecNames);
    if (!name_bytes) return name_bytes.error();
    return decodeLinkSpecs(*record_bytes, *name_bytes, c.path);
}

const char* markerKindName(MarkerKind kind) {
    switch (kind) {
        case MarkerKind::bounds: return "bounds";
        case MarkerKind::volume: return "volume";
        case MarkerKind::seed: return "seed";
        case MarkerKind::point_of_interest: return "point_of_interest";
        case MarkerKind::waypoint: return "waypoint";
        case MarkerKind::cluster: return "cluster";
    }
    return "?";
}

// Brute force over point triples: a plane through three points is a face plane of the hull when
// no point lies outside it. O(n^4) for n <= kMaxHullPoints (128: at most 4.4e7 point tests), which
// a designer's proxy volume (a box, a wedge, a cylinder of 32 sides) never comes near; it needs no
// orientation or degeneracy handling beyond the tolerance.
Result<std::vector<Plane>> convexHullPlanes(const std::vector<std::array<float, 3>>& input) {
    std::vector<std::array<double, 3>> points;
    for (const auto& p : input) {
        const std::array<double, 3> q{p[0], p[1], p[2]};
        if (std::find(points.begin(), points.end(), q) == points.end()) points.push_back(q);
    }
    if (points.size() > kMaxHullPoints)
        return inputError("{} distinct points, more than the {} a convex volume may have",
                          points.size(), kMaxHullPoints);
    constexpr double kTolerance = 1e-3;  // [m]
    std::vector<Plane> planes;
    const size_t n = points.size();
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j)
            for (size_t k = j + 1; k < n; ++k) {
                const auto& a = points[i];
                const auto& b = points[j];
                const auto& c = points[k];
                const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
                const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                double normal[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                                    u[0] * v[1] - u[1] * v[0]};
                const double length = std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] +
                                                normal[2] * normal[2]);
                if (length < 1e-9) continue;  // collinear
                for (double& x : normal) x /= length;
                double d = -(normal[0] * a[0] + normal[1] * a[1] + normal[2] * a[2]);
                int above = 0, below = 0;
                for (const auto& p : points) {
                    const double side = normal[0] * p[0] + normal[1] * p[1] + normal[2] * p[2] + d;
                    above += side > kTolerance;
                    below += side < -kTolerance;
                    if (above > 0 && below > 0) break;
                }
                if (above > 0 && below > 0) continue;
                if (above > 0) {  // face outwards: the points lie on the side n.p + d <= 0
                    for (double& x : normal) x = -x;
                    d = -d;
                }
                const Plane plane{float(normal[0]), float(normal[1]), float(normal[2]), float(d)};
                const bool known = std::any_of(planes.begin(), planes.end(), [&](const Plane& q) {
                    return std::abs(q[0] - plane[0]) < 1e-4f && std::abs(q[1] - plane[1]) < 1e-4f &&
                           std::abs(q[2] - plane[2]) < 1e-4f &&
                           std::abs(q[3] - plane[3]) < float(kTolerance);
                });
                if (!known) planes.push_back(plane);
            }
    // A volume has two opposite planes at least; points on one plane give only that plane (and its
    // opposite, since all points are on it): refuse them.
    bool solid = false;
    for (const auto& p : points)
        for (const Plane& q : planes)
            solid = solid || q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] < -kTolerance;
    if (planes.size() < 4 || !solid)
        return inputError("the {} points span no volume (they lie on one plane or line)",
                          points.size());
    std::sort(planes.begin(), planes.end());
    return planes;
}

bool insidePlanes(const std::vector<Plane>& planes, double x, double y, double z) {
    for (const Plane& q : planes)
        if (q[0] * x + q[1] * y + q[2] * z + q[3] > 1e-3) return false;
    return true;
}

Bounds boundsOf(const std::vector<std::array<float, 3>>& points) {
    Bounds box;
    box.min = box.max = points.front();
    for (const auto& p : points)
        for (size_t a = 0; a < 3; ++a) {
            box.min[a] = std::min(box.min[a], p[a]);
            box.max[a] = std::max(box.max[a], p[a]);
        }
    return box;
}

Status readRegion(JsonReader& r, const std::string& at, Bounds& box, std::vector<Plane>& planes) {
    planes.clear();
    if (!r.has("points")) {
        if (!r.has("min") && !r.has("max"))
            return r.fail(at,
                          "missing its volume: \"min\" and \"max\" (a box) or \"points\" (a "
                          "convex hull)");
        if (Status s = r.point("min", box.min.data(), true); !s) return s;
        return r.point("max", box.max.data(), true);
    }
    if (r.has("min") || r.has("max"))
        return r.fail(at, "either \"min\"/\"max\" (a box) or \"points\" (a hull), not both");
    const nlohmann::json& points = r.get("points");
    const std::string points_at = r.at("points");
    if (!points.is_array() || points.size() < 4)
        return r.typeError(points_at, "an array of 4 or more [x, y, z] points", points);
    std::vector<std::array<float, 3>> hull(points.size());
    for (size_t k = 0; k < points.size(); ++k)
        if (!JsonReader::toPoint(points[k], hull[k].data()))
            return r.typeError(JsonReader::at(points_at, k), "[x, y, z] (three numbers, metres)",
                               points[k]);
    auto found = convexHullPlanes(hull);
    if (!found) return r.fail(points_at, found.error().message);
    planes = std::move(found).value();
    box = boundsOf(hull);
    return {};
}

uint32_t sceneKindVersion(bool has_links, bool has_markers) {
    return has_markers ? 3 : has_links ? 2 : 1;
}

// SMRK (FORMAT.md §4.5): u32 count, then per marker a fixed part and its strings.
void addMarkerSection(formats::ContainerWriter& writer, const std::vector<SceneMarker>& markers) {
    if (markers.empty()) return;
    formats::ByteWriter out;
    out.u32(uint32_t(markers.size()));
    for (const SceneMarker& m : markers) {
        out.u8(uint8_t(m.kind));
        out.u8(m.forbid ? 1 : 0);
        out.u16(uint16_t(m.planes.size()));
        for (float v : m.box.min) out.f32(v);
        for (float v : m.box.max) out.f32(v);
        for (float v : m.position) out.f32(v);
        out.f32(m.cost_factor);
        out.f32(m.weight);
        for (const Plane& q : m.planes)
            for (float v : q) out.f32(v);
        out.str(m.name);
        out.str(m.object);
        out.str(m.label);
        out.str(m.area);
        for (const auto* names : {&m.agents, &m.walkable_for}) {
            out.u32(uint32_t(names->size()));
            for (const std::string& name : *names) out.str(name);
        }
    }
    writer.add(formats::kSecMarkers, out.take());
}

Result<std::vector<SceneMarker>> decodeMarkerSection(const LoadedContainer& c,
                                                     uint32_t first_kind_version) {
    if (!c.has(formats::kSecMarkers)) return std::vector<SceneMarker>{};
    const std::string file = c.path.string();
    if (c.container.kind_version < first_kind_version)
        return inputError("{}: section 'SMRK' in a kind version {} file (markers need {})", file,
                          c.container.kind_version, first_kind_version);
    auto bytes = c.section(formats::kSecMarkers);
    if (!bytes) return bytes.error();
    formats::ByteReader in(bytes->data(), bytes->size());
    constexpr uint32_t kMaxString = 4096, kMaxNames = 256;
    const uint32_t count = in.u32();
    std::vector<SceneMarker> markers;
    for (uint32_t i = 0; in.ok() && i < count; ++i) {
        const size_t at = in.position();
        const auto bad = [&](std::string_view what) {
            return inputError("{}: section 'SMRK' at byte {} (marker {}): {}", file, at, i, what);
        };
        SceneMarker m;
        const uint8_t kind = in.u8();
        const uint8_t flags = in.u8();
        const uint16_t plane_count = in.u16();
        for (float& v : m.box.min) v = in.f32();
        for (float& v : m.box.max) v = in.f32();
        for (float& v : m.position) v = in.f32();
        m.cost_factor = in.f32();
        m.weight = in.f32();
        if (!in.have(size_t(plane_count) * 16)) break;
        m.planes.resize(plane_count);
        for (Plane& q : m.planes)
            for (float& v : q) v = in.f32();
        m.name = std::string(in.str(kMaxString));
        m.object = std::string(in.str(kMaxString));
        m.label = std::string(in.str(kMaxString));
        m.area = std::string(in.str(kMaxString));
        for (auto* names : {&m.agents, &m.walkable_for}) {
            const uint32_t n = in.u32();
            if (n > kMaxNames) return bad(fmt::format("{} agent names (at most {})", n, kMaxNames));
            for (uint32_t k = 0; in.ok() && k < n; ++k) names->emplace_back(in.str(kMaxString));
        }
        if (!in.ok()) break;
        if (kind < 1 || kind > uint8_t(kLastMarkerKind))
            return bad(fmt::format("unknown kind {}", kind));
        m.kind = MarkerKind(kind);
        if (flags > 1) return bad(fmt::format("unknown flags 0x{:02x}", flags));
        m.forbid = flags != 0;
        bool finite = std::isfinite(m.cost_factor) && std::isfinite(m.weight);
        for (size_t a = 0; a < 3; ++a)
            finite = finite && std::isfinite(m.box.min[a]) && std::isfinite(m.box.max[a]) &&
                     std::isfinite(m.position[a]);
        for (const Plane& q : m.planes)
            for (float v : q) finite = finite && std::isfinite(v);
        if (!finite) return bad("a non-finite number");
        for (size_t a = 0; a < 3; ++a)
            if (m.box.min[a] > m.box.max[a]) return bad("a box with min > max");
        if (!(m.cost_factor > 0) || !(m.weight >= 0))
            return bad("cost_factor must be > 0 and weight >= 0");
        markers.push_back(std::move(m));
    }
    if (!in.ok())
        return inputError("{}: section 'SMRK' is truncated at byte {} ({} markers expected)", file,
                          in.position(), count);
    if (in.remaining() != 0)
        return inputError("{}: section 'SMRK' has {} unexpected bytes after the last marker", file,
                          in.remaining());
    return markers;
}

namespace {
constexpr int kGeometryZstdLevel = 3;
}

TriangleStreams::TriangleStreams()
    : triangles_(std::make_unique<formats::ZstdSectionStream>(kGeometryZstdLevel, true,
                                                              formats::StreamWindow::narrow)),
      areas_stream_(std::make_unique<formats::ZstdSectionStream>(kGeometryZstdLevel, false,
                                                                 formats::StreamWindow::narrow)),
      objects_stream_(std::make_unique<formats::ZstdSectionStream>(kGeometryZstdLevel, false,
                                                                   formats::StreamWindow::narrow)) {
    block_.reserve(kBlock);
}

TriangleStreams::~TriangleStreams() = default;

void TriangleStreams::flush() {
    if (areas_.empty()) return;
    triangles_->write(reinterpret_cast<const uint8_t*>(block_.data()), block_.size() * 4);
    areas_stream_->write(areas_.data(), areas_.size());
    objects_stream_->write(reinterpret_cast<const uint8_t*>(objects_.data()), objects_.size() * 4);
    count_ += areas_.size();
    block_.clear();
    areas_.clear();
    objects_.clear();
}

Status TriangleStreams::renumber(const std::vector<uint32_t>& new_index) {
    flush();
    renumbered_ = triangles_->takeRaw();
    if (!triangles_->error().empty())
        return makeError(ErrorKind::internal, "geometry: {}", triangles_->error());
    taken_ = true;
    for (size_t k = 0; k + 4 <= renumbered_.size(); k += 4)
        formats::storeLe32(&renumbered_[k], new_index[formats::loadLe32(&renumbered_[k])]);
    return {};
}

Status TriangleStreams::addTo(formats::ContainerWriter& writer) {
    flush();
    if (taken_) {  // renumbered: added whole
        writer.add(formats::kSecTriangles, std::move(renumbered_), formats::Codec::zstd_delta32);
        renumbered_ = std::vector<uint8_t>();
    }
    if ((!taken_ && !triangles_->addTo(writer, formats::kSecTriangles)) ||
        !areas_stream_->addTo(writer, formats::kSecTriangleAreas) ||
        !objects_stream_->addTo(writer, formats::kSecTriangleObjects))
        return makeError(ErrorKind::internal, "geometry: {}{}{}", triangles_->error(),
                         areas_stream_->error(), objects_stream_->error());
    return {};
}

namespace {
// GHDR with the geometry's object, mesh and drop counts (the caller set the vertex and triangle
// counts and the bounds).
std::vector<uint8_t> encodeHeaderOf(const Geometry& g, formats::GeometryHeader header) {
    header.object_count = uint32_t(g.objects.size());
    header.source_mesh_count = g.source_mesh_count;
    header.dropped_degenerate = g.dropped_degenerate;
    header.dropped_ignored = g.dropped_ignored;
    std::vector<uint8_t> bytes(formats::kGeometryHeaderSize);
    formats::encodeGeometryHeader(header, bytes.data());
    return bytes;
}
// OBJN (the objects' names and materials), and the links' and markers' sections when there are
// any: what every layout writes after its triangles.
void addSceneSections(formats::ContainerWriter& writer, const Geometry& g) {
    formats::ByteWriter names;
    for (const SceneObject& object : g.objects) {
        names.str(object.name);
        names.str(object.material);
    }
    writer.add(formats::kSecObjectNames, names.take());
    addLinkSpecSections(writer, g.links);
    addMarkerSection(writer, g.markers);
}
}  // namespace

Status saveGeometry(const std::filesystem::path& path, const Geometry& g,
                    TriangleStreams* streams) {
    formats::GeometryHeader header;
    header.vertex_count = uint32_t(g.vertexCount());
    header.triangle_count = uint32_t(streams != nullptr ? streams->count() : g.triangleCount());
    const Bounds b = g.bounds();
    for (int i = 0; i < 3; ++i) {
        header.bounds_min[i] = b.min[i];
        header.bounds_max[i] = b.max[i];
    }
    std::vector<uint8_t> header_bytes = encodeHeaderOf(g, header);

    formats::ContainerWriter writer(formats::kKindGeometry,
                                    sceneKindVersion(!g.links.empty(), !g.markers.empty()));
    // An intermediate artifact, and the largest (a few million triangles on big levels): zstd
    // level 3 writes it several times faster than the default 9 for a few percent more bytes.
    writer.setCompressionLevel(kGeometryZstdLevel);
    writer.add(formats::kSecGeometryHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, encodeAreaTable(g.areas), formats::Codec::raw);
    // The arrays compressed in place (little-endian hosts, as the loader assumes): no copies.
    // Vertices at level 1: float coordinates compress about as well as at 3 (on the generated
    // towns 1.4% smaller, on the demo meshes up to 14% larger, a few KiB), at about 0.6x the time
    // (on the 3 M-triangle town the import took 0.85x as long).
    writer.add(formats::kSecVertices, formats::byteView(g.vertices), formats::Codec::zstd, 1);
    if (streams != nullptr) {
        if (Status s = streams->addTo(writer); !s) return s;
    } else {
        writer.add(formats::kSecTriangles, formats::byteView(g.triangles),
                   formats::Codec::zstd_delta32);
        writer.add(formats::kSecTriangleAreas, formats::byteView(g.triangle_areas));
        writer.add(formats::kSecTriangleObjects, formats::byteView(g.triangle_objects));
    }
    addSceneSections(writer, g);
    return saveContainer(path, writer);
}

Status saveGeometry(const std::filesystem::path& path, const Geometry& g, StripWriter& strips) {
    formats::GeometryHeader header;
    header.vertex_count = 0;
    header.triangle_count = uint32_t(strips.count());
    strips.bounds(header.bounds_min, header.bounds_max);
    std::vector<uint8_t> header_bytes = encodeHeaderOf(g, header);
    formats::ContainerWriter writer(formats::kKindGeometry, formats::kGeometryStripExtentsVersion);
    writer.setCompressionLevel(kGeometryZstdLevel);
    writer.add(formats::kSecGeometryHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, encodeAreaTable(g.areas), formats::Codec::raw);
    addSceneSections(writer, g);
    if (Status s = strips.finish(writer); !s) return s;
    return saveContainer(path, writer, strips.tailPath());
}

namespace {

// decodeGeometry, its header in `header`; without `triangles` the per-triangle arrays are left
// out (their sizes checked).
Result<Geometry> decodeGeometryWith(const LoadedContainer& c, GeometryParts parts, bool triangles,
                                    formats::GeometryHeader& header) {
    const std::string file = c.path.string();
    const bool strips = c.container.kind_version >= formats::kGeometryStripsVersion;
    if (strips && triangles)
        return inputError(
            "{}: this .geo holds its triangles in strips (kind version 4 or 5, made by world "
            "builds "
            "for voxelize); only voxelize and inspect read it: import the level without world "
            "tiles to view or clip it",
            file);
    if (Status s = c.header(formats::kSecGeometryHeader, formats::decodeGeometryHeader, header); !s)
        return s.error();
    if (strips && header.vertex_count != 0)
        return inputError("{}: a strips layout declares {} vertices in 'GHDR' (it has none)", file,
                          header.vertex_count);

    Geometry g;
    g.source_mesh_count = header.source_mesh_count;
    g.dropped_degenerate = header.dropped_degenerate;
    g.dropped_ignored = header.dropped_ignored;

    auto areas = c.section(formats::kSecAreas);
    if (!areas) return areas.error();
    auto area_table = decodeAreaTable(*areas, c.path);
    if (!area_table) return area_table.error();
    g.areas = std::move(area_table).value();

    // Decoded straight into the arrays (no byte copies beside them: on a large level these are
    // most of the stage's memory).
    auto vertices = strips ? std::vector<float>() : c.array<float>(formats::kSecVertices);
    if (!vertices) return vertices.error();
    if (!strips) {
        auto corners_size = c.rawSize(formats::kSecTriangles);
        if (!corners_size) return corners_size.error();
        auto areas_size = c.rawSize(formats::kSecTriangleAreas);
        if (!areas_size) return areas_size.error();
        if (formats::Error e = formats::validateGeometrySizes(header, vertices->size() * 4,
                                                              *corners_size, *areas_size))
            return containerError(c.path, e);
        if (formats::Error e = formats::validateGeometryVertices(
                header, reinterpret_cast<const uint8_t*>(vertices->data())))
            return containerError(c.path, e);
    }
    g.vertices = std::move(vertices).value();
    if (triangles) {
        auto corners = c.array<uint32_t>(formats::kSecTriangles);
        if (!corners) return corners.error();
        auto tri_areas = c.section(formats::kSecTriangleAreas);
        if (!tri_areas) return tri_areas.error();
        if (formats::Error e = formats::validateGeometryTriangles(
                header, 0, header.triangle_count, reinterpret_cast<const uint8_t*>(corners->data()),
                tri_areas->data(), uint32_t(g.areas.size())))
            return containerError(c.path, e);
        g.triangles = std::move(corners).value();
        g.triangle_areas = std::move(tri_areas).value();
    }
    if (triangles && parts == GeometryParts::all) {
        auto tri_objects = c.section(formats::kSecTriangleObjects);
        if (!tri_objects) return tri_objects.error();
        if (!bytesToPod(*tri_objects, header.triangle_count, g.triangle_objects))
            return inputError("{}: section 'TOBJ' holds {} bytes, expected {} from the GHDR counts",
                              file, tri_objects->size(), size_t(header.triangle_count) * 4);
    }

    auto names = c.section(formats::kSecObjectNames);
    if (!names) return names.error();
    formats::ByteReader reader(names->data(), names->size());
    for (uint32_t i = 0; i < header.object_count; ++i) {
        SceneObject object;
        object.name = std::string(reader.str(4096));
        object.material = std::string(reader.str(4096));
        if (!reader.ok())
            return inputError("{}: section 'OBJN' is truncated at byte {} (object {} of {})", file,
                              reader.position(), i, header.object_count);
        g.objects.push_back(std::move(object));
    }
    if (reader.remaining() != 0)
        return inputError("{}: section 'OBJN' has {} unexpected bytes after the last object", file,
                          reader.remaining());

    for (size_t t = 0; t < g.triangle_objects.size(); ++t)
        if (g.triangle_objects[t] >= header.object_count)
            return inputError("{}: section 'TOBJ': triangle {} has object {}, only {} exist", file,
                              t, g.triangle_objects[t], header.object_count);
    auto links = decodeLinkSpecSections(c);
    if (!links) return links.error();
    g.links = std::move(links).value();
    auto markers = decodeMarkerSection(c);
    if (!markers) return markers.error();
    g.markers = std::move(markers).value();
    return g;
}

}  // namespace

Result<Geometry> decodeGeometry(const LoadedContainer& c, GeometryParts parts) {
    formats::GeometryHeader header;
    return decodeGeometryWith(c, parts, true, header);
}

Result<Geometry> loadGeometry(const std::filesystem::path& path, GeometryParts parts) {
    auto container =
        loadContainer(path, formats::kKindGeometry, formats::kGeometryStripExtentsVersion);
    if (!container) return container.error();
    return decodeGeometry(*container, parts);
}

Result<Geometry> loadGeometry(const std::filesystem::path& path, StoredTriangles& triangles) {
    // The head first: a strips layout's tail (its triangles) stays on disk.
    auto head =
        loadContainerHead(path, formats::kKindGeometry, formats::kGeometryStripExtentsVersion);
    if (!head) return head.error();
    if (head->container.kind_version >= formats::kGeometryStripsVersion) {
        StoredTriangles stored;
        auto g = decodeGeometryWith(*head, GeometryParts::without_objects, false, stored.header_);
        if (!g) return g.error();
        stored.file_ = path;
        stored.area_count_ = uint32_t(g->areas.size());
        auto strips = StoredStrips::open(*head, stored.area_count_);
        if (!strips) return strips.error();
        stored.strips_ = std::move(strips).value();
        triangles = std::move(stored);
        return g;
    }
    auto container = loadContainer(path, formats::kKindGeometry, formats::kGeometryVersion);
    if (!container) return container.error();
    StoredTriangles stored;
    auto g = decodeGeometryWith(*container, GeometryParts::without_objects, false, stored.header_);
    if (!g) return g.error();
    stored.file_ = path;
    stored.area_count_ = uint32_t(g->areas.size());
    // Only the two sections' stored bytes are kept (the rest of the file is dropped).
    auto keep = [&](uint32_t id, formats::SectionEntry& entry, std::vector<uint8_t>& bytes) {
        entry = container->container.sections[size_t(container->container.find(id))];
        const uint8_t* at = container->bytes.data() + entry.offset;
        bytes.assign(at, at + entry.stored_size);
        entry.offset = 0;
    };
    keep(formats::kSecTriangles, stored.corners_entry_, stored.corners_bytes_);
    keep(formats::kSecTriangleAreas, stored.areas_entry_, stored.areas_bytes_);
    triangles = std::move(stored);
    return g;
}

Status forEachTriangleBlock(const Geometry& g, const StoredTriangles::Visit& visit) {
    const std::span<const uint32_t> corners = g.triangles;
    const std::span<const uint8_t> areas = g.triangle_areas;
    for (size_t first = 0; first < areas.size(); first += StoredTriangles::kBlock) {
        const size_t n = std::min<size_t>(StoredTriangles::kBlock, areas.size() - first);
        if (Status s = visit(first, corners.subspan(3 * first, 3 * n), areas.subspan(first, n)); !s)
            return s;
    }
    return {};
}

Status StoredTriangles::decodeInto(Geometry& g) const {
    if (strips_) {  // each triangle once (its first strip's copy), its corners as new vertices
        g.vertices.clear();
        g.triangles.clear();
        g.triangle_areas.clear();
        return strips_->forEachTriangle([&](const StripTriangle& t) {
            const uint32_t v = uint32_t(g.vertices.size() / 3);
            g.vertices.insert(g.vertices.end(), t.p.begin(), t.p.end());
            g.triangles.insert(g.triangles.end(), {v, v + 1, v + 2});
            g.triangle_areas.push_back(t.area);
        });
    }
    g.triangles.clear();
    g.triangle_areas.clear();
    g.triangles.reserve(3 * size_t(count()));
    g.triangle_areas.reserve(size_t(count()));
    return forEach(
        [&](uint64_t, std::span<const uint32_t> corners, std::span<const uint8_t> areas) -> Status {
            g.triangles.insert(g.triangles.end(), corners.begin(), corners.end());
            g.triangle_areas.insert(g.triangle_areas.end(), areas.begin(), areas.end());
            return {};
        });
}

Bounds StoredTriangles::bounds() const {
    Bounds b;
    for (int a = 0; a < 3; ++a) {
        b.min[size_t(a)] = header_.bounds_min[a];
        b.max[size_t(a)] = header_.bounds_max[a];
    }
    return b;
}

Status StoredTriangles::forEach(const Visit& visit) const {
    if (strips_)
        return makeError(ErrorKind::internal, "{}: strips hold no indexed triangles",
                         file_.string());
    formats::SectionStream corners(corners_bytes_.data(), corners_entry_);
    formats::SectionStream areas(areas_bytes_.data(), areas_entry_);
    if (formats::Error e = corners.start()) return containerError(file_, e);
    if (formats::Error e = areas.start()) return containerError(file_, e);
    std::vector<uint32_t> block_corners;
    std::vector<uint8_t> block_areas;
    for (uint64_t first = 0; first < count(); first += kBlock) {
        const uint64_t n = std::min(kBlock, count() - first);
        block_corners.resize(3 * n);
        block_areas.resize(n);
        if (formats::Error e =
                corners.read(reinterpret_cast<uint8_t*>(block_corners.data()), 12 * n))
            return containerError(file_, e);
        if (formats::Error e = areas.read(block_areas.data(), n)) return containerError(file_, e);
        if (formats::Error e = formats::validateGeometryTriangles(
                header_, first, n, reinterpret_cast<const uint8_t*>(block_corners.data()),
                block_areas.data(), area_count_))
            return containerError(file_, e);
        if (Status s = visit(first, block_corners, block_areas); !s) return s;
    }
    if (formats::Error e = corners.finish()) return containerError(file_, e);
    if (formats::Error e = areas.finish()) return containerError(file_, e);
    return {};
}

}  // namespace nav::geometry
