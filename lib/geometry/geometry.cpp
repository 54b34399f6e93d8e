#include "lib/geometry/geometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/bytes.h"
#include "formats/layouts.h"

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
            out.triangle_objects.push_back(g.triangle_objects[t]);
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
            out.triangle_objects.push_back(g.triangle_objects[t]);
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

Status saveGeometry(const std::filesystem::path& path, const Geometry& g) {
    formats::GeometryHeader header;
    header.vertex_count = uint32_t(g.vertexCount());
    header.triangle_count = uint32_t(g.triangleCount());
    header.object_count = uint32_t(g.objects.size());
    header.source_mesh_count = g.source_mesh_count;
    const Bounds b = g.bounds();
    for (int i = 0; i < 3; ++i) {
        header.bounds_min[i] = b.min[i];
        header.bounds_max[i] = b.max[i];
    }
    header.dropped_degenerate = g.dropped_degenerate;
    header.dropped_ignored = g.dropped_ignored;
    std::vector<uint8_t> header_bytes(formats::kGeometryHeaderSize);
    formats::encodeGeometryHeader(header, header_bytes.data());

    formats::ByteWriter names;
    for (const SceneObject& object : g.objects) {
        names.str(object.name);
        names.str(object.material);
    }

    formats::ContainerWriter writer(formats::kKindGeometry,
                                    g.links.empty() ? 1 : formats::kGeometryVersion);
    writer.add(formats::kSecGeometryHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, encodeAreaTable(g.areas), formats::Codec::raw);
    writer.add(formats::kSecVertices, arrayBytes(g.vertices));
    writer.add(formats::kSecTriangles, arrayBytes(g.triangles));
    writer.add(formats::kSecTriangleAreas, arrayBytes(g.triangle_areas));
    writer.add(formats::kSecTriangleObjects, arrayBytes(g.triangle_objects));
    writer.add(formats::kSecObjectNames, names.take());
    addLinkSpecSections(writer, g.links);
    return saveContainer(path, writer);
}

Result<Geometry> decodeGeometry(const LoadedContainer& c) {
    const std::string file = c.path.string();
    formats::GeometryHeader header;
    if (Status s = c.header(formats::kSecGeometryHeader, formats::decodeGeometryHeader, header); !s)
        return s.error();

    Geometry g;
    g.source_mesh_count = header.source_mesh_count;
    g.dropped_degenerate = header.dropped_degenerate;
    g.dropped_ignored = header.dropped_ignored;

    auto areas = c.section(formats::kSecAreas);
    if (!areas) return areas.error();
    auto area_table = decodeAreaTable(*areas, c.path);
    if (!area_table) return area_table.error();
    g.areas = std::move(area_table).value();

    auto vertices = c.section(formats::kSecVertices);
    if (!vertices) return vertices.error();
    auto triangles = c.section(formats::kSecTriangles);
    if (!triangles) return triangles.error();
    auto tri_areas = c.section(formats::kSecTriangleAreas);
    if (!tri_areas) return tri_areas.error();
    if (formats::Error e = formats::validateGeometrySections(
            header, vertices->data(), vertices->size(), triangles->data(), triangles->size(),
            tri_areas->data(), tri_areas->size(), uint32_t(g.areas.size())))
        return containerError(c.path, e);
    (void)bytesToPod(*vertices, size_t(header.vertex_count) * 3, g.vertices);
    (void)bytesToPod(*triangles, size_t(header.triangle_count) * 3, g.triangles);
    g.triangle_areas = std::move(tri_areas).value();
    auto tri_objects = c.section(formats::kSecTriangleObjects);
    if (!tri_objects) return tri_objects.error();
    if (!bytesToPod(*tri_objects, header.triangle_count, g.triangle_objects))
        return inputError("{}: section 'TOBJ' holds {} bytes, expected {} from the GHDR counts",
                          file, tri_objects->size(), size_t(header.triangle_count) * 4);

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
    return g;
}

Result<Geometry> loadGeometry(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindGeometry, formats::kGeometryVersion);
    if (!container) return container.error();
    return decodeGeometry(*container);
}

}  // namespace nav::geometry
