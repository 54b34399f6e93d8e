// The debug view as a GLB (framed by the one glTF writer, lib/common/gltf_writer.h).
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

#include "lib/common/gltf_writer.h"
#include "lib/view/scene.h"

namespace nav::view {
namespace {

using Json = nlohmann::ordered_json;

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
        case Group::links: return 0.08f;
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
                case ShapeKind::disc: points.vertex(p[0], lift, s.fill); break;
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
    materials.push_back(
        {{"name", "geometry"},
         {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}},
         {"doubleSided", true}});
    materials.push_back(
        {{"name", "debug"},
         {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}},
         {"doubleSided", true},
         {"extensions", unlit}});
    materials.push_back(
        {{"name", "debug_translucent"},
         {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}},
         {"alphaMode", "BLEND"},
         {"doubleSided", true},
         {"extensions", unlit}});
    json["materials"] = materials;

    GltfWriter writer;
    Json meshes = Json::array();
    Json nodes = Json::array();
    Json children = Json::array();
    size_t vertices = 0;
    for (const Primitive& prim : primitives) {
        vertices += prim.vertexCount();
        const size_t position_accessor = writer.addPositions(prim.positions);
        const size_t colour_accessor = writer.addFloats(prim.colours, 4);
        const int material = prim.lit           ? kMaterialLit
                             : prim.translucent ? kMaterialBlend
                                                : kMaterialUnlit;
        meshes.push_back(
            {{"name", prim.name},
             {"primitives",
              Json::array(
                  {{{"attributes", {{"POSITION", position_accessor}, {"COLOR_0", colour_accessor}}},
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
    if (!meshes.empty()) json["meshes"] = meshes;
    std::vector<uint8_t> out = writer.finish(std::move(json));
    if (meshes_out) *meshes_out = meshes.size();
    if (vertices_out) *vertices_out = vertices;
    return out;
}

}  // namespace nav::view
