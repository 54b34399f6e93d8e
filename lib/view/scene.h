// Private to lib/view: the scene a view is drawn from, shared by the SVG, PNG and GLB writers.
// Shapes keep world coordinates (for the GLB); the top-down writers project them with the
// scene's Projection. Sizes that only exist on paper (line widths, dot radii) are in output
// pixels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/common/result.h"
#include "lib/view/view.h"

namespace nav::view {

// Drawing order, bottom to top; also names the GLB meshes.
enum class Group : uint8_t { geometry, surface, fill, edges, nodes, links, paths, markers };
inline constexpr uint32_t kGroupCount = 8;
const char* groupName(Group group);

struct Point3 {
    float x = 0, y = 0, z = 0;
};

enum class ShapeKind : uint8_t { polygon, line, disc, polyline };

struct Shape {
    ShapeKind kind = ShapeKind::polygon;
    Group group = Group::geometry;
    Colour fill;          // polygon, disc
    Colour stroke;        // outline (polygon, disc), the line itself (line, polyline)
    float stroke_px = 0;  // [Units: px] 0 = no outline
    float radius_px = 0;  // [Units: px] disc
    uint32_t first = 0;   // points [first, first + count) in Scene::points
    uint32_t count = 0;
    float sort_y = 0;  // [Units: m] height the shape is sorted and shaded by
};

// World XZ -> output pixels: X right, Z down, `margin` px around the content.
struct Projection {
    float min_x = 0, min_z = 0;
    float scale = 1;  // [Units: px / m]
    float margin = 8;
    uint32_t width = 1, height = 1;
    float px(float x) const { return margin + (x - min_x) * scale; }
    float py(float z) const { return margin + (z - min_z) * scale; }
};
// The projection fitting [min_x, max_x] x [min_z, max_z] into `size` px on the longer side.
Projection fitProjection(float min_x, float min_z, float max_x, float max_z, uint32_t size);

struct Scene {
    std::vector<Point3> points;
    std::vector<Shape> shapes;  // in drawing order (writers draw them as they come)
    Projection projection;
    Colour background{250, 250, 250, 255};
    std::string title;

    uint32_t add(Point3 p) {
        points.push_back(p);
        return uint32_t(points.size() - 1);
    }
};

// Each writer returns the file's bytes; the caller writes them atomically.
std::vector<uint8_t> renderSvg(const Scene& scene);
Result<std::vector<uint8_t>> renderPng(const Scene& scene);
std::vector<uint8_t> renderGlb(const Scene& scene, size_t* meshes, size_t* vertices);

// RGB or RGBA 8-bit rows (top row first) as a PNG file (libpng).
Result<std::vector<uint8_t>> encodePng(const uint8_t* pixels, uint32_t width, uint32_t height,
                                       bool alpha);

}  // namespace nav::view
