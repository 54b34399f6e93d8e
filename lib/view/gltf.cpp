// GLB writer (glTF 2.0 binary container, https://registry.khronos.org/glTF/specs/2.0/): a 12-byte
// header, a JSON chunk padded with spaces and a BIN chunk padded with zeros, both to 4 bytes.
// Every mesh has one non-indexed primitive with POSITION (VEC3 float, with the min / max the
// spec requires) and COLOR_0 (VEC4 float, linear): polygons become triangle fans, edges and
// polygon outlines LINES, dots POINTS, paths LINE_STRIPs. Geometry uses a lit material; the
// debug layers are unlit (KHR_materials_unlit) so their colours read as drawn, the translucent
// ones (the A* fill, edges) with alphaMode BLEND. All numbers are little-endian.
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "scene.h"

namespace nav::view {
namespace {

using Json = nlohmann::ordered_json;

static_assert(std::endian::native == std::endian::little, "the GLB writer assumes little-endian");

constexpr uint32_t kGltfMagic = 0x46546C67;  // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
constexpr int kModePoints = 0, kModeLines = 1, kModeLineStrip = 3, kModeTriangles = 4;
constexpr int kMaterialLit = 0, kMaterialUnlit = 1, kMaterialBlend = 2;

// Height a group is lifted by so that it is not hidden in the surface below [Units: m].
float liftOf(Group group) {
    switch (group) {
        case Group::geometry: return 0.0f;
        case Group::surface: return 0.02f;
        case Group::fill: return 0.04f;
        case Group::edges:
        case Group::nodes: return 0.06f;
        case Group::paths:
        case Group::markers: return 0.10f;
    }
    return 0.0f;
}

float linear(uint8_t srgb) {
    const float c = float(srgb) / 255.0f;
    return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

struct Primitive {
    Primitive(std::string name_, int mode_, bool lit_ = false)
        : name(std::move(name_)), mode(mode_), lit(lit_) {}

    std::string name;
    int mode = kModeTriangles;
    bool lit = false;
    std::vector<float> positions;  // 3 per vertex
    std::vector<float> colours;    // 4 per vertex
    bool translucent = false;

    void vertex(const Point3& p, float lift, Colour c) {
        positions.insert(positions.end(), {p.x, p.y + lift, p.z});
        colours.insert(colours.end(), {linear(c.r), linear(c.g), linear(c.b), float(c.a) / 255.0f});
        translucent |= c.a != 255;
    }
    size_t vertexCount() const { return positions.size() / 3; }
};

void appendBytes(std::vector<uint8_t>& out, const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    out.insert(out.end(), p, p + size);
}
void appendU32(std::vector<uint8_t>& out, uint32_t v) { appendBytes(out, &v, 4); }

}  // namespace

std::vector<uint8_t> renderGlb(const Scene& scene, size_t* meshes_out, size_t* vertices_out) {
    // Gather primitives group by group, in drawing order.
    std::vector<Primitive> primitives;
    for (uint32_t gi = 0; gi < kGroupCount; ++gi) {
        const Group group = Group(gi);
        const float lift = liftOf(group);
        const std::string base = groupName(group);
        Primitive triangles{base + "_triangles", kModeTriangles, group == Group::geometry};
        Primitive lines{base + "_lines", kModeLines};
        Primitive points{base + "_points", kModePoints};
        size_t strips = 0;
        for (const Shape& s : scene.shapes) {
            if (s.group != group) continue;
            const Point3* p = scene.points.data() + s.first;
            switch (s.kind) {
                case ShapeKind::polygon:
                    for (uint32_t i = 1; i + 1 < s.count; ++i) {
                        triangles.vertex(p[0], lift, s.fill);
                        triangles.vertex(p[i], lift, s.fill);
                        triangles.vertex(p[i + 1], lift, s.fill);
                    }
                    // Outlines of navmesh polygons (geometry is shaded by the viewer instead).
                    if (s.stroke_px > 0 && group != Group::geometry)
                        for (uint32_t i = 0, j = s.count - 1; i < s.count; j = i++) {
                            lines.vertex(p[j], lift + 0.005f, s.stroke);
                            lines.vertex(p[i], lift + 0.005f, s.stroke);
                        }
                    break;
                case ShapeKind::line:
                    lines.vertex(p[0], lift, s.stroke);
                    lines.vertex(p[1], lift, s.stroke);
                    break;
                case ShapeKind::disc:
                    points.vertex(p[0], lift, s.fill);
                    break;
                case ShapeKind::polyline: {
                    Primitive strip{fmt::format("path_{}", strips++), kModeLineStrip};
                    for (uint32_t i = 0; i < s.count; ++i) strip.vertex(p[i], lift, s.stroke);
                    primitives.push_back(std::move(strip));
                    break;
                }
            }
        }
        for (Primitive* prim : {&triangles, &lines, &points})
            if (prim->vertexCount() > 0) primitives.push_back(std::move(*prim));
    }

    Json unlit = {{"KHR_materials_unlit", Json::object()}};
    Json json;
    json["asset"] = {{"version", "2.0"}, {"generator", "navbake view"}};
    json["extensionsUsed"] = Json::array({"KHR_materials_unlit"});
    json["scene"] = 0;
    Json materials = Json::array();
    materials.push_back({{"name", "geometry"},
                         {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}},
                         {"doubleSided", true}});
    materials.push_back({{"name", "debug"},
                         {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}},
                         {"doubleSided", true},
                         {"extensions", unlit}});
    materials.push_back({{"name", "debug_translucent"},
                         {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}},
                         {"alphaMode", "BLEND"},
                         {"doubleSided", true},
                         {"extensions", unlit}});
    json["materials"] = materials;

    std::vector<uint8_t> bin;
    Json meshes = Json::array(), accessors = Json::array(), views = Json::array();
    Json nodes = Json::array();
    Json children = Json::array();
    size_t vertices = 0;
    auto addView = [&](const std::vector<float>& data) {
        views.push_back({{"buffer", 0},
                         {"byteOffset", bin.size()},
                         {"byteLength", data.size() * sizeof(float)},
                         {"target", 34962}});  // ARRAY_BUFFER
        appendBytes(bin, data.data(), data.size() * sizeof(float));
        return views.size() - 1;
    };
    for (const Primitive& prim : primitives) {
        const size_t count = prim.vertexCount();
        vertices += count;
        float lo[3], hi[3];
        for (int k = 0; k < 3; ++k) lo[k] = hi[k] = prim.positions[size_t(k)];
        for (size_t v = 0; v < count; ++v)
            for (size_t k = 0; k < 3; ++k) {
                lo[k] = std::min(lo[k], prim.positions[3 * v + k]);
                hi[k] = std::max(hi[k], prim.positions[3 * v + k]);
            }
        const size_t position_view = addView(prim.positions);
        accessors.push_back({{"bufferView", position_view},
                             {"componentType", 5126},  // FLOAT
                             {"count", count},
                             {"type", "VEC3"},
                             {"min", {lo[0], lo[1], lo[2]}},
                             {"max", {hi[0], hi[1], hi[2]}}});
        const size_t position_accessor = accessors.size() - 1;
        const size_t colour_view = addView(prim.colours);
        accessors.push_back(
            {{"bufferView", colour_view}, {"componentType", 5126}, {"count", count}, {"type", "VEC4"}});
        const size_t colour_accessor = accessors.size() - 1;
        const int material = prim.lit ? kMaterialLit : prim.translucent ? kMaterialBlend : kMaterialUnlit;
        meshes.push_back({{"name", prim.name},
                          {"primitives",
                           Json::array({{{"attributes", {{"POSITION", position_accessor},
                                                         {"COLOR_0", colour_accessor}}},
                                         {"mode", prim.mode},
                                         {"material", material}}})}});
        children.push_back(meshes.size());  // node 0 is the root
    }
    Json root = {{"name", scene.title.empty() ? std::string("navbake view") : scene.title}};
    if (!children.empty()) root["children"] = children;
    nodes.push_back(root);
    for (size_t m = 0; m < meshes.size(); ++m)
        nodes.push_back({{"name", meshes[m]["name"]}, {"mesh", m}});
    json["scenes"] = Json::array({{{"name", "navbake view"}, {"nodes", {0}}}});
    json["nodes"] = nodes;
    if (!meshes.empty()) {
        json["meshes"] = meshes;
        json["accessors"] = accessors;
        json["bufferViews"] = views;
        json["buffers"] = Json::array({{{"byteLength", bin.size()}}});
    }

    std::string text = json.dump();
    while (text.size() % 4) text += ' ';
    while (bin.size() % 4) bin.push_back(0);
    const bool with_bin = !bin.empty();
    const size_t total = 12 + 8 + text.size() + (with_bin ? 8 + bin.size() : 0);
    std::vector<uint8_t> out;
    out.reserve(total);
    appendU32(out, kGltfMagic);
    appendU32(out, 2);
    appendU32(out, uint32_t(total));
    appendU32(out, uint32_t(text.size()));
    appendU32(out, kChunkJson);
    appendBytes(out, text.data(), text.size());
    if (with_bin) {
        appendU32(out, uint32_t(bin.size()));
        appendU32(out, kChunkBin);
        appendBytes(out, bin.data(), bin.size());
    }
    if (meshes_out) *meshes_out = meshes.size();
    if (vertices_out) *vertices_out = vertices;
    return out;
}

}  // namespace nav::view
