// Private to lib/view: the scene a view is drawn from, shared by the SVG, PNG and GLB writers.
// Shapes keep world coordinates (for the GLB); the top-down writers project them with the
// scene's Projection. Sizes that only exist on paper (line widths, dot radii) are in output
// pixels. Top-down views may add annotations (axes, scale bar, legend, caption) in margins around
// the drawing: rectangles and text already laid out in image pixels (annotate.cpp).
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

// What a legend entry shows beside its label.
enum class Swatch : uint8_t { box, line, dot, clusters };
// A legend entry that shapes point to (Shape::key). Keys with the same colours and swatch are
// listed once, their labels joined ("obstacle, lava").
inline constexpr Colour kNoColour{0, 0, 0, 0};
struct LegendKey {
    std::string label;
    Swatch swatch = Swatch::box;
    Colour colour = kNoColour;   // box and dot fill, the line; unused by clusters
    Colour outline = kNoColour;  // box and dot, drawn when its alpha is not 0
    bool operator==(const LegendKey&) const = default;
};
inline constexpr uint16_t kNoKey = 0xffff;

struct Shape {
    ShapeKind kind = ShapeKind::polygon;
    Group group = Group::geometry;
    Colour fill;          // polygon, disc
    Colour stroke;        // outline (polygon, disc), the line itself (line, polyline)
    float stroke_px = 0;  // [Units: px] 0 = no outline
    float radius_px = 0;  // [Units: px] disc
    uint32_t first = 0;   // points [first, first + count) in Scene::points
    uint32_t count = 0;
    float sort_y = 0;       // [Units: m] height the shape is sorted and shaded by
    uint16_t key = kNoKey;  // Scene::keys entry (legend), kNoKey for none
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

// Annotation primitives, in image pixels (the drawing's top-left corner is at (left, top)).
enum class Anchor : uint8_t { start, middle, end };  // which point of the text x names
struct OverlayRect {
    float x = 0, y = 0, w = 0, h = 0;  // [Units: px]
    Colour fill;
    bool round = false;  // the disc inscribed in the rectangle (legend dots)
};
struct OverlayText {
    float x = 0, y = 0;  // [Units: px] anchor point on the glyph box's top edge
    std::string text;    // UTF-8
    Anchor anchor = Anchor::start;
};
struct Annotations {
    bool on = false;
    uint32_t left = 0, top = 0;      // [Units: px] the drawing's top-left corner in the image
    uint32_t width = 0, height = 0;  // [Units: px] the whole image
    uint32_t text_scale = 1;         // [Units: px] size of a font pixel (font.h)
    Colour text_colour;
    std::vector<OverlayRect> rects;  // drawn in order, then the texts
    std::vector<OverlayText> texts;
};

struct Scene {
    std::vector<Point3> points;
    std::vector<Shape> shapes;  // in drawing order (writers draw them as they come)
    std::vector<LegendKey> keys;
    Projection projection;  // the drawing, Projection::width x height px
    Annotations annotations;
    Colour background{250, 250, 250, 255};
    std::string title;
    bool shaded = false;  // surfaces shaded by height (lower darker): they lie at several heights

    uint32_t add(Point3 p) {
        points.push_back(p);
        return uint32_t(points.size() - 1);
    }
    // The index of `key` in keys (added when new).
    uint16_t addKey(const LegendKey& key) {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return uint16_t(i);
        keys.push_back(key);
        return uint16_t(keys.size() - 1);
    }
};

// Lays out the annotations of a top-down view around its drawing (scene.projection, fitted to
// [fit_min, fit_max] on X and Z [Units: m]) and records what they show in `stats` (ticks, scale
// bar, legend, caption, image and drawing sizes). Needs the finished scene (legend = the keys its
// shapes use).
void annotate(Scene& scene, const ViewOptions& options, const float fit_min[2],
              const float fit_max[2], ViewStats& stats);

// Each writer returns the file's bytes; the caller writes them atomically.
std::vector<uint8_t> renderSvg(const Scene& scene);
Result<std::vector<uint8_t>> renderPng(const Scene& scene);
std::vector<uint8_t> renderGlb(const Scene& scene, size_t* meshes, size_t* vertices);

// RGB or RGBA 8-bit rows (top row first) as a PNG file (libpng).
Result<std::vector<uint8_t>> encodePng(const uint8_t* pixels, uint32_t width, uint32_t height,
                                       bool alpha);

}  // namespace nav::view
