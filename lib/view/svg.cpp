// SVG writer: one <g> per group in drawing order; every polygon (triangle, cell, navmesh polygon,
// fill cell) is a <polygon>, every edge a <line>, every dot a <circle>, every path a <polyline>,
// so the element counts match ViewStats. Coordinates are output pixels with 2 decimals.
// With annotations the drawing is a nested <svg> placed (and clipped) in the image, followed by
// <g id="annotations"> holding <rect> and <text> elements only (monospace, sized like the PNG's
// bitmap font: a 10 px font per font scale step, baseline at the glyph box's bottom).
#include <fmt/format.h>

#include <string>

#include "lib/view/font.h"
#include "lib/view/scene.h"

namespace nav::view {
namespace {

std::string hex(Colour c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

std::string escapeXml(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

void appendPaint(std::string& out, const char* what, Colour c) {
    fmt::format_to(std::back_inserter(out), " {}=\"{}\"", what, hex(c));
    if (c.a != 255)
        fmt::format_to(std::back_inserter(out), " {}-opacity=\"{:.3f}\"", what, c.a / 255.0);
}

void appendStroke(std::string& out, const Shape& s) {
    if (s.stroke_px <= 0) return;
    appendPaint(out, "stroke", s.stroke);
    fmt::format_to(std::back_inserter(out), " stroke-width=\"{:.2f}\"", s.stroke_px);
}

void appendAnnotations(std::string& out, const Annotations& a) {
    const float glyph_h = float(font::kGlyphHeight * a.text_scale);
    fmt::format_to(std::back_inserter(out),
                   "<g id=\"annotations\" font-family=\"monospace\" font-size=\"{}\" "
                   "fill=\"{}\">\n",
                   10 * a.text_scale, hex(a.text_colour));
    for (const OverlayRect& r : a.rects) {
        fmt::format_to(std::back_inserter(out),
                       "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"", r.x,
                       r.y, r.w, r.h);
        if (r.round) fmt::format_to(std::back_inserter(out), " rx=\"{:.2f}\"", r.w / 2);
        appendPaint(out, "fill", r.fill);
        out += "/>\n";
    }
    for (const OverlayText& t : a.texts) {
        fmt::format_to(std::back_inserter(out), "<text x=\"{:.2f}\" y=\"{:.2f}\"{}>{}</text>\n",
                       t.x, t.y + glyph_h,
                       t.anchor == Anchor::middle ? " text-anchor=\"middle\""
                       : t.anchor == Anchor::end  ? " text-anchor=\"end\""
                                                  : "",
                       escapeXml(t.text));
    }
    out += "</g>\n";
}

}  // namespace

std::vector<uint8_t> renderSvg(const Scene& scene) {
    const Projection& p = scene.projection;
    const Annotations& notes = scene.annotations;
    std::string out;
    out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    fmt::format_to(std::back_inserter(out),
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                   "viewBox=\"0 0 {0} {1}\">\n",
                   notes.on ? notes.width : p.width, notes.on ? notes.height : p.height);
    fmt::format_to(std::back_inserter(out), "<title>{}</title>\n", escapeXml(scene.title));
    out += "<rect width=\"100%\" height=\"100%\"";
    appendPaint(out, "fill", scene.background);
    out += "/>\n";
    if (notes.on)
        fmt::format_to(std::back_inserter(out),
                       "<svg id=\"drawing\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "viewBox=\"0 0 {} {}\">\n",
                       notes.left, notes.top, p.width, p.height, p.width, p.height);
    bool open = false;
    Group current = Group::geometry;
    auto point = [&](uint32_t i) {
        const Point3& q = scene.points[i];
        return fmt::format("{:.2f},{:.2f}", p.px(q.x), p.py(q.z));
    };
    for (const Shape& s : scene.shapes) {
        if (!open || s.group != current) {
            if (open) out += "</g>\n";
            fmt::format_to(std::back_inserter(out), "<g id=\"{}\"{}>\n", groupName(s.group),
                           s.group == Group::paths || s.group == Group::links
                               ? " fill=\"none\" stroke-linejoin=\"round\" "
                                 "stroke-linecap=\"round\""
                               : "");
            open = true;
            current = s.group;
        }
        switch (s.kind) {
            case ShapeKind::polygon: {
                out += "<polygon points=\"";
                for (uint32_t i = 0; i < s.count; ++i) {
                    if (i) out += ' ';
                    out += point(s.first + i);
                }
                out += '"';
                appendPaint(out, "fill", s.fill);
                appendStroke(out, s);
                out += "/>\n";
                break;
            }
            case ShapeKind::line: {
                const Point3& a = scene.points[s.first];
                const Point3& b = scene.points[s.first + 1];
                fmt::format_to(std::back_inserter(out),
                               "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\"",
                               p.px(a.x), p.py(a.z), p.px(b.x), p.py(b.z));
                appendStroke(out, s);
                out += "/>\n";
                break;
            }
            case ShapeKind::disc: {
                const Point3& c = scene.points[s.first];
                fmt::format_to(std::back_inserter(out),
                               "<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:.2f}\"", p.px(c.x),
                               p.py(c.z), s.radius_px);
                appendPaint(out, "fill", s.fill);
                appendStroke(out, s);
                out += "/>\n";
                break;
            }
            case ShapeKind::polyline: {
                out += "<polyline points=\"";
                for (uint32_t i = 0; i < s.count; ++i) {
                    if (i) out += ' ';
                    out += point(s.first + i);
                }
                out += "\" fill=\"none\"";
                appendStroke(out, s);
                out += "/>\n";
                break;
            }
        }
    }
    if (open) out += "</g>\n";
    if (notes.on) {
        out += "</svg>\n";
        appendAnnotations(out, notes);
    }
    out += "</svg>\n";
    return {out.begin(), out.end()};
}

}  // namespace nav::view
