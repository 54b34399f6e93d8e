// Annotations of top-down views (see view.h): axes with metre ticks, scale bar, caption and
// legend, laid out in image pixels around the drawing with the metrics of the bitmap font
// (font.h), which the SVG writer's monospace text matches closely (0.6 em advance).
//
// Image layout: [left margin: Z labels | drawing | right pad] over [top margin: titles, X labels]
// and under it the bottom panel (scale bar, caption, then the legend), rows wrapped at the
// drawing's right edge. Tick positions come from the drawing's own Projection, offset by where
// the drawing sits, so a label "10" is exactly where world coordinate 10 is drawn.
#include <algorithm>
#include <cmath>

#include "lib/view/font.h"
#include "lib/view/scene.h"

namespace nav::view {

double niceStep(double lo, double hi, uint32_t max_ticks, double min_step) {
    if (!(hi > lo)) hi = lo + 1;  // a single coordinate: steps as for a metre from it
    const double span = hi - lo;
    max_ticks = std::max<uint32_t>(max_ticks, 1);
    const double smallest = std::max(span / max_ticks, min_step);
    if (!(smallest > 0) || !std::isfinite(smallest)) return 1.0;
    // Steps below span / max_ticks cannot fit; start a decade under it and walk up.
    for (int exponent = int(std::floor(std::log10(smallest))) - 1;; ++exponent)
        for (double mantissa : {1.0, 2.0, 5.0}) {
            const double step = mantissa * std::pow(10.0, exponent);
            if (step < min_step * (1 - 1e-9)) continue;
            const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
            if (last - first + 1 <= double(max_ticks)) return step;
        }
}

std::vector<double> axisTicks(double lo, double hi, double step) {
    std::vector<double> ticks;
    if (!(step > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
    const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
    if (last - first > 10000) return ticks;  // not a sensible axis
    for (double k = first; k <= last; ++k) ticks.push_back(k * step);
    return ticks;
}

std::string tickLabel(double value, double step) {
    const int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
    std::string text = fmt::format("{:.{}f}", value, decimals);
    if (text[0] == '-' && text.find_first_not_of("0.", 1) == std::string::npos) text.erase(0, 1);
    return text;
}

double scaleBarLength(double width) {
    const double target = width / 5;
    if (!(target > 0) || !std::isfinite(target)) return 1.0;
    const double decade = std::pow(10.0, std::floor(std::log10(target)));
    double best = decade;
    for (double mantissa : {2.0, 5.0, 10.0}) {
        const double length = mantissa * decade;
        if (std::abs(std::log(length / target)) < std::abs(std::log(best / target))) best = length;
    }
    return best;
}

namespace {

constexpr Colour kText{32, 32, 32, 255};
constexpr Colour kFrame{160, 160, 160, 255};

// One legend line: the keys sharing a swatch and colours (their labels joined), and the group
// it is first drawn in.
struct LegendEntry {
    LegendKey key;
    Group group = Group::geometry;
    std::vector<std::string> labels;
};

// The legend keys the scene's shapes use, merged by swatch and colours, ordered by the group
// they are drawn in (bottom layer first), then by when they were made.
std::vector<LegendEntry> legendEntries(const Scene& scene) {
    std::vector<int> group_of(scene.keys.size(), -1);
    for (const Shape& s : scene.shapes)
        if (s.key != kNoKey && group_of[s.key] < 0) group_of[s.key] = int(s.group);
    std::vector<LegendEntry> entries;
    for (size_t k = 0; k < scene.keys.size(); ++k) {
        if (group_of[k] < 0) continue;
        const LegendKey& key = scene.keys[k];
        auto same = std::find_if(entries.begin(), entries.end(), [&](const LegendEntry& e) {
            return e.key.swatch == key.swatch && e.key.colour == key.colour &&
                   e.key.outline == key.outline;
        });
        if (same == entries.end()) {
            entries.push_back({key, Group(group_of[k]), {key.label}});
        } else if (std::find(same->labels.begin(), same->labels.end(), key.label) ==
                   same->labels.end()) {
            same->labels.push_back(key.label);
            same->key.label += ", " + key.label;
        }
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const LegendEntry& a, const LegendEntry& b) { return a.group < b.group; });
    return entries;
}

// "floors Y 0.0–3.0 m" with a floor range, else the heights of what was drawn (links, whose
// arcs rise above the floors, left out): "Y 0.0–3.2 m"; "" when nothing was drawn.
std::string heightText(const Scene& scene, const ViewOptions& options) {
    const char* dash = "\u2013";
    if (options.floor_filter)
        return fmt::format("floors Y {}{}{} m", tickLabel(options.floor_min, 0.1), dash,
                           tickLabel(options.floor_max, 0.1));
    float lo = INFINITY, hi = -INFINITY;
    for (const Shape& s : scene.shapes) {
        if (s.group == Group::links) continue;
        for (uint32_t i = s.first; i < s.first + s.count; ++i) {
            lo = std::min(lo, scene.points[i].y);
            hi = std::max(hi, scene.points[i].y);
        }
    }
    if (lo > hi) return "";
    return fmt::format("Y {}{}{} m", tickLabel(lo, 0.1), dash, tickLabel(hi, 0.1));
}

}  // namespace

void annotate(Scene& scene, const ViewOptions& options, const float fit_min[2],
              const float fit_max[2], ViewStats& stats) {
    const Projection& p = scene.projection;
    Annotations& a = scene.annotations;
    a = {};
    a.on = true;
    // Font pixels of 1 px up to a 700 px drawing, then one more per 700 px (at most 4).
    const uint32_t s = std::min<uint32_t>(4, 1 + options.size / 700);
    a.text_scale = s;
    a.text_colour = kText;
    const float fs = float(s);                              // [Units: px] one font pixel
    const float glyph_h = float(font::kGlyphHeight) * fs;   // [Units: px] text height
    const float advance = float(font::kAdvance) * fs;       // [Units: px] per character
    const float gap = 3 * fs, tick = 4 * fs, pad = 6 * fs;  // [Units: px]
    const float row = glyph_h + 5 * fs, spacing = 10 * fs;  // [Units: px] bottom panel
    auto width = [&](const std::string& text) { return float(font::textWidth(text, s)); };
    auto text = [&](float x, float y, std::string t, Anchor anchor = Anchor::start) {
        a.texts.push_back({x, y, std::move(t), anchor});
    };
    auto rect = [&](float x, float y, float w, float h, Colour fill, bool round = false) {
        a.rects.push_back({x, y, w, h, fill, round});
    };

    // Ticks on each axis: at most 10 over the fitted box, labels at least two characters apart
    // (X) or a text line apart (Z); a wider step when the labels need the room.
    struct Axis {
        double step = 1;
        std::vector<double> values;
        std::vector<std::string> labels;
        float widest = 0;  // [Units: px]
    };
    auto axisOf = [&](double lo, double hi, bool horizontal) {
        Axis axis;
        double min_step = 0;
        for (int attempt = 0; attempt < 8; ++attempt) {
            axis.step = niceStep(lo, hi, 10, min_step);
            axis.values = axisTicks(lo, hi, axis.step);
            axis.labels.clear();
            axis.widest = 0;
            for (double v : axis.values) {
                axis.labels.push_back(tickLabel(v, axis.step));
                axis.widest = std::max(axis.widest, width(axis.labels.back()));
            }
            const float room = horizontal ? axis.widest + 2 * advance : glyph_h + 4 * fs;
            if (axis.step * p.scale >= room) break;
            min_step = room / p.scale;
        }
        return axis;
    };
    const Axis x_axis = axisOf(fit_min[0], fit_max[0], true);
    const Axis z_axis = axisOf(fit_min[1], fit_max[1], false);

    const float dw = float(p.width), dh = float(p.height);
    const std::string z_title = "Z (m)", x_title = "X (m)";
    const float z_column = std::max(width(z_title), z_axis.widest);
    // The drawing's corner; the 1 px frame lies just outside it.
    const float left = std::ceil(pad + z_column + gap + tick + 1);
    const float title_y = pad, x_labels_y = pad + glyph_h + 2 * fs;
    const float top = std::ceil(x_labels_y + glyph_h + gap + tick + 1);
    a.left = uint32_t(left);
    a.top = uint32_t(top);
    float right = left + dw + 1;  // [Units: px] rightmost ink

    rect(left - 1, top - 1, dw + 2, 1, kFrame);
    rect(left - 1, top + dh, dw + 2, 1, kFrame);
    rect(left - 1, top, 1, dh, kFrame);
    rect(left + dw, top, 1, dh, kFrame);
    // Centred over the drawing, but never left of it (where the Z title is).
    const float x_title_at = std::max(left + dw / 2, left + width(x_title) / 2);
    text(x_title_at, title_y, x_title, Anchor::middle);
    right = std::max(right, x_title_at + width(x_title) / 2);
    const float z_labels_x = left - 1 - tick - gap;  // right edge of the Z labels
    text(z_labels_x, title_y, z_title, Anchor::end);
    for (size_t i = 0; i < x_axis.values.size(); ++i) {
        const float x = left + p.px(float(x_axis.values[i]));
        rect(x - fs / 2, top - 1 - tick, fs, tick, kText);
        text(x, x_labels_y, x_axis.labels[i], Anchor::middle);
        right = std::max(right, x + width(x_axis.labels[i]) / 2);
    }
    for (size_t i = 0; i < z_axis.values.size(); ++i) {
        const float y = top + p.py(float(z_axis.values[i]));
        rect(left - 1 - tick, y - fs / 2, tick, fs, kText);
        text(z_labels_x, y - glyph_h / 2, z_axis.labels[i], Anchor::end);
    }

    // Bottom panel: items flow left to right from the drawing's left edge and wrap at its right
    // edge (an item wider than that gets a row of its own and widens the image).
    float x = left, y = top + dh + 1 + 5 * fs;
    auto place = [&](float w) {
        if (x > left && x + w > left + dw) x = left, y += row;
        const float at = x;
        right = std::max(right, x + w);
        x += w + spacing;
        return at;
    };
    auto newRow = [&] {
        if (x > left) x = left, y += row;
    };

    const double bar_m = scaleBarLength(double(fit_max[0]) - double(fit_min[0]));
    const float bar_px = std::max(1.0f, float(bar_m) * p.scale);
    const std::string bar_label = tickLabel(bar_m, bar_m) + " m";
    {
        const float at = place(bar_px + 4 * fs + width(bar_label));
        rect(at, y + glyph_h / 2 - fs, bar_px, 2 * fs, kText);
        rect(at, y, fs, glyph_h, kText);
        rect(at + bar_px - fs, y, fs, glyph_h, kText);
        text(at + bar_px + 4 * fs, y, bar_label);
    }
    const std::string heights = heightText(scene, options);
    std::string caption = scene.title;
    if (!heights.empty()) caption += (caption.empty() ? "" : ", ") + heights;
    if (scene.shaded) caption += " (lower surfaces darker)";
    if (!caption.empty()) {
        const float at = place(width(caption));  // may start a row: y after it
        text(at, y, caption);
    }

    newRow();
    const std::vector<LegendEntry> entries = legendEntries(scene);
    const float swatch = 12 * fs;  // [Units: px] swatch width
    for (const LegendEntry& e : entries) {
        const LegendKey& k = e.key;
        const float at = place(swatch + 4 * fs + width(k.label));
        switch (k.swatch) {
            case Swatch::box:
                if (k.outline.a > 0) {
                    rect(at, y, swatch, glyph_h, k.outline);
                    rect(at + fs, y + fs, swatch - 2 * fs, glyph_h - 2 * fs, k.colour);
                } else {
                    rect(at, y, swatch, glyph_h, k.colour);
                }
                break;
            case Swatch::line: rect(at, y + glyph_h / 2 - fs, swatch, 2 * fs, k.colour); break;
            case Swatch::dot: {
                const float cx = at + (swatch - glyph_h) / 2;
                if (k.outline.a > 0) {
                    rect(cx, y, glyph_h, glyph_h, k.outline, true);
                    rect(cx + fs, y + fs, glyph_h - 2 * fs, glyph_h - 2 * fs, k.colour, true);
                } else {
                    rect(cx, y, glyph_h, glyph_h, k.colour, true);
                }
                break;
            }
            case Swatch::clusters:
                for (uint32_t c = 0; c < 3; ++c)
                    rect(at + float(c) * swatch / 3, y, swatch / 3, glyph_h, clusterColour(c));
                break;
        }
        text(at + swatch + 4 * fs, y, k.label);
        stats.legend.push_back(k.label);
    }

    a.width = uint32_t(std::ceil(std::max(left + dw + 1 + pad, right + pad)));
    a.height = uint32_t(std::ceil(y + glyph_h + pad));
    stats.width = a.width;
    stats.height = a.height;
    stats.drawing_left = a.left;
    stats.drawing_top = a.top;
    stats.x_ticks = x_axis.values;
    stats.z_ticks = z_axis.values;
    stats.x_step = x_axis.step;
    stats.z_step = z_axis.step;
    stats.ticks = x_axis.values.size() + z_axis.values.size();
    stats.scale_bar = bar_m;
    stats.legend_entries = stats.legend.size();
    stats.caption = caption;
    stats.texts = a.texts.size();
}

}  // namespace nav::view
