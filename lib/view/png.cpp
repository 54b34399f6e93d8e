// PNG writer: a small scanline rasteriser (even-odd polygon fill sampled at pixel centres, lines
// as quads, discs, "over" alpha blending) into an RGB canvas at 2x2 supersampling, box-filtered
// down to the output size, then encoded with libpng. Sampling at pixel centres with half-open
// spans means that polygons sharing an edge never cover a sample twice, so translucent cells
// tile without seams; a pixel wholly inside one opaque shape keeps its exact colour.
// Annotations are drawn at the output size around the finished drawing: rectangles snapped to
// whole pixels and text in the bitmap font (font.h), so they are crisp and their colours exact.
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lib/view/font.h"
#include "lib/view/scene.h"

namespace nav::view {
namespace {

class Canvas {
public:
    Canvas(uint32_t width, uint32_t height, Colour background)
        : width_(width), height_(height), rgb_(size_t(width) * height * 3) {
        for (size_t i = 0; i < rgb_.size(); i += 3) {
            rgb_[i] = background.r;
            rgb_[i + 1] = background.g;
            rgb_[i + 2] = background.b;
        }
    }
    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }
    const uint8_t* data() const { return rgb_.data(); }

    // Samples x in [x0, x1) of row y.
    void span(int64_t y, int64_t x0, int64_t x1, Colour c) {
        if (y < 0 || y >= int64_t(height_)) return;
        x0 = std::max<int64_t>(x0, 0);
        x1 = std::min<int64_t>(x1, int64_t(width_));
        if (x0 >= x1) return;
        uint8_t* p = rgb_.data() + (size_t(y) * width_ + size_t(x0)) * 3;
        if (c.a == 255) {
            for (int64_t x = x0; x < x1; ++x, p += 3) p[0] = c.r, p[1] = c.g, p[2] = c.b;
            return;
        }
        const uint32_t a = c.a, inv = 255 - a;
        for (int64_t x = x0; x < x1; ++x, p += 3) {
            p[0] = uint8_t((p[0] * inv + c.r * a + 127) / 255);
            p[1] = uint8_t((p[1] * inv + c.g * a + 127) / 255);
            p[2] = uint8_t((p[2] * inv + c.b * a + 127) / 255);
        }
    }

    // Even-odd fill of the polygon (x, y pairs) over the samples at pixel centres.
    void fillPolygon(const std::vector<float>& xy, Colour c) {
        const size_t n = xy.size() / 2;
        if (n < 3) return;
        float min_y = xy[1], max_y = xy[1];
        for (size_t i = 1; i < n; ++i) {
            min_y = std::min(min_y, xy[2 * i + 1]);
            max_y = std::max(max_y, xy[2 * i + 1]);
        }
        const int64_t row_begin = std::max<int64_t>(0, int64_t(std::ceil(min_y - 0.5f)));
        const int64_t row_end =
            std::min<int64_t>(int64_t(height_) - 1, int64_t(std::floor(max_y - 0.5f)));
        for (int64_t row = row_begin; row <= row_end; ++row) {
            const float yc = float(row) + 0.5f;
            crossings_.clear();
            for (size_t i = 0, j = n - 1; i < n; j = i++) {
                const float ax = xy[2 * j], ay = xy[2 * j + 1], bx = xy[2 * i], by = xy[2 * i + 1];
                if ((ay <= yc && yc < by) || (by <= yc && yc < ay))
                    crossings_.push_back(ax + (yc - ay) * (bx - ax) / (by - ay));
            }
            std::sort(crossings_.begin(), crossings_.end());
            for (size_t k = 0; k + 1 < crossings_.size(); k += 2)
                span(row, int64_t(std::ceil(crossings_[k] - 0.5f)),
                     int64_t(std::ceil(crossings_[k + 1] - 0.5f)), c);
        }
    }

    void fillDisc(float cx, float cy, float radius, Colour c) {
        radius = std::max(radius, 0.75f);
        const int64_t row_begin = int64_t(std::ceil(cy - radius - 0.5f));
        const int64_t row_end = int64_t(std::floor(cy + radius - 0.5f));
        for (int64_t row = row_begin; row <= row_end; ++row) {
            const float dy = float(row) + 0.5f - cy;
            const float half = std::sqrt(std::max(0.0f, radius * radius - dy * dy));
            span(row, int64_t(std::ceil(cx - half - 0.5f)), int64_t(std::ceil(cx + half - 0.5f)),
                 c);
        }
    }

    // A segment `width` samples wide with flat ends.
    void strokeSegment(float x0, float y0, float x1, float y1, float width, Colour c) {
        width = std::max(width, 1.0f);
        const float dx = x1 - x0, dy = y1 - y0;
        const float length = std::sqrt(dx * dx + dy * dy);
        if (length <= 0) return;
        const float nx = -dy / length * width * 0.5f, ny = dx / length * width * 0.5f;
        quad_ = {x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny};
        fillPolygon(quad_, c);
    }

private:
    uint32_t width_, height_;
    std::vector<uint8_t> rgb_;
    std::vector<float> crossings_;
    std::vector<float> quad_;
};

// libpng reports errors through a callback that must not return: it records the message and
// jumps back to encodeRows.
struct PngSink {
    std::vector<uint8_t>* out;
    char message[256];
};

void writeData(png_structp png, png_bytep data, png_size_t length) {
    auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
    sink->out->insert(sink->out->end(), data, data + length);
}
void flushData(png_structp) {}
void onError(png_structp png, png_const_charp message) {
    auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
    std::snprintf(sink->message, sizeof(sink->message), "%s", message);
    png_longjmp(png, 1);
}
void onWarning(png_structp, png_const_charp) {}

// Only trivially destructible locals live across setjmp here.
bool encodeRows(PngSink& sink, png_bytep* rows, uint32_t width, uint32_t height, bool alpha) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, onError, onWarning);
    if (png == nullptr) return false;
    png_infop info = png_create_info_struct(png);
    if (info == nullptr) {
        png_destroy_write_struct(&png, nullptr);
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_set_write_fn(png, &sink, writeData, flushData);
    png_set_IHDR(png, info, width, height, 8, alpha ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

// The RGB output image: the drawing (box-filtered from the canvas) and the annotations.
class Image {
public:
    Image(uint32_t width, uint32_t height, Colour background)
        : width_(width), height_(height), rgb_(size_t(width) * height * 3) {
        for (size_t i = 0; i < rgb_.size(); i += 3)
            rgb_[i] = background.r, rgb_[i + 1] = background.g, rgb_[i + 2] = background.b;
    }
    const uint8_t* data() const { return rgb_.data(); }

    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }
    uint8_t* at(uint32_t x, uint32_t y) { return rgb_.data() + (size_t(y) * width_ + x) * 3; }

    void blend(int64_t x, int64_t y, Colour c) {
        if (x < 0 || y < 0 || x >= int64_t(width_) || y >= int64_t(height_)) return;
        uint8_t* p = rgb_.data() + (size_t(y) * width_ + size_t(x)) * 3;
        const uint32_t a = c.a, inv = 255 - a;
        p[0] = uint8_t((p[0] * inv + c.r * a + 127) / 255);
        p[1] = uint8_t((p[1] * inv + c.g * a + 127) / 255);
        p[2] = uint8_t((p[2] * inv + c.b * a + 127) / 255);
    }

    // The pixels whose centres lie in the rectangle (at least one column and row), or in the
    // disc inscribed in it.
    void rect(const OverlayRect& r) {
        const int64_t x0 = std::lround(r.x), y0 = std::lround(r.y);
        const int64_t x1 = std::max(x0 + 1, int64_t(std::lround(r.x + r.w)));
        const int64_t y1 = std::max(y0 + 1, int64_t(std::lround(r.y + r.h)));
        const float cx = r.x + r.w / 2, cy = r.y + r.h / 2, radius = std::min(r.w, r.h) / 2;
        for (int64_t y = y0; y < y1; ++y)
            for (int64_t x = x0; x < x1; ++x) {
                const float dx = float(x) + 0.5f - cx, dy = float(y) + 0.5f - cy;
                if (!r.round || dx * dx + dy * dy <= radius * radius) blend(x, y, r.fill);
            }
    }

    // Text in the bitmap font, `scale` px per font pixel, anchored as the layout says.
    void text(const OverlayText& t, uint32_t scale, Colour c) {
        const float width = float(font::textWidth(t.text, scale));
        const float start = t.anchor == Anchor::start    ? t.x
                            : t.anchor == Anchor::middle ? t.x - width / 2
                                                         : t.x - width;
        int64_t x = std::lround(start);
        const int64_t y = std::lround(t.y);
        for (char32_t code : font::decodeUtf8(t.text)) {
            const font::Rows& rows = font::glyph(code);
            for (uint32_t gy = 0; gy < font::kGlyphRows; ++gy)
                for (uint32_t gx = 0; gx < font::kGlyphWidth; ++gx) {
                    if (!(rows[gy] >> (font::kGlyphWidth - 1 - gx) & 1)) continue;
                    for (uint32_t sy = 0; sy < scale; ++sy)
                        for (uint32_t sx = 0; sx < scale; ++sx)
                            blend(x + int64_t(gx * scale + sx), y + int64_t(gy * scale + sy), c);
                }
            x += int64_t(font::kAdvance * scale);
        }
    }

private:
    uint32_t width_, height_;
    std::vector<uint8_t> rgb_;
};

}  // namespace

Result<std::vector<uint8_t>> encodePng(const uint8_t* pixels, uint32_t width, uint32_t height,
                                       bool alpha) {
    const size_t stride = size_t(width) * (alpha ? 4 : 3);
    std::vector<png_bytep> rows(height);
    for (uint32_t y = 0; y < height; ++y) rows[y] = const_cast<png_bytep>(pixels + y * stride);
    std::vector<uint8_t> out;
    PngSink sink{&out, "out of memory"};
    if (!encodeRows(sink, rows.data(), width, height, alpha))
        return makeError(ErrorKind::internal, "PNG encoding failed: {}", sink.message);
    return out;
}

Result<std::vector<uint8_t>> renderPng(const Scene& scene) {
    const Projection& p = scene.projection;
    // 2x2 supersampling up to 4096 px; above that the canvas would pass 200 MB.
    const uint32_t ss = std::max(p.width, p.height) <= 4096 ? 2 : 1;
    const float k = float(ss);
    Canvas canvas(p.width * ss, p.height * ss, scene.background);
    std::vector<float> xy;
    auto at = [&](uint32_t i, float& x, float& y) {
        x = p.px(scene.points[i].x) * k;
        y = p.py(scene.points[i].z) * k;
    };
    for (const Shape& s : scene.shapes) {
        switch (s.kind) {
            case ShapeKind::polygon: {
                xy.resize(size_t(s.count) * 2);
                for (uint32_t i = 0; i < s.count; ++i) at(s.first + i, xy[2 * i], xy[2 * i + 1]);
                canvas.fillPolygon(xy, s.fill);
                if (s.stroke_px > 0) {
                    const std::vector<float> corners = xy;
                    for (uint32_t i = 0, j = s.count - 1; i < s.count; j = i++)
                        canvas.strokeSegment(corners[2 * j], corners[2 * j + 1], corners[2 * i],
                                             corners[2 * i + 1], s.stroke_px * k, s.stroke);
                }
                break;
            }
            case ShapeKind::line: {
                float x0, y0, x1, y1;
                at(s.first, x0, y0);
                at(s.first + 1, x1, y1);
                canvas.strokeSegment(x0, y0, x1, y1, s.stroke_px * k, s.stroke);
                break;
            }
            case ShapeKind::disc: {
                float x, y;
                at(s.first, x, y);
                if (s.stroke_px > 0) {
                    canvas.fillDisc(x, y, (s.radius_px + s.stroke_px * 0.5f) * k, s.stroke);
                    canvas.fillDisc(x, y, (s.radius_px - s.stroke_px * 0.5f) * k, s.fill);
                } else {
                    canvas.fillDisc(x, y, s.radius_px * k, s.fill);
                }
                break;
            }
            case ShapeKind::polyline: {
                const float width = s.stroke_px * k;
                for (uint32_t i = 0; i < s.count; ++i) {
                    float x1, y1;
                    at(s.first + i, x1, y1);
                    if (i > 0) {
                        float x0, y0;
                        at(s.first + i - 1, x0, y0);
                        canvas.strokeSegment(x0, y0, x1, y1, width, s.stroke);
                    }
                    canvas.fillDisc(x1, y1, width * 0.5f, s.stroke);  // round joins and caps
                }
                break;
            }
        }
    }
    // Box filter down to the output size, into the image at the drawing's place (the whole
    // image without annotations).
    const Annotations& a = scene.annotations;
    Image image(a.on ? a.width : p.width, a.on ? a.height : p.height, scene.background);
    uint8_t* rgb = image.at(a.on ? a.left : 0, a.on ? a.top : 0);
    const size_t stride = size_t(image.width()) * 3;
    const uint8_t* src = canvas.data();
    const uint32_t samples = ss * ss;
    for (uint32_t y = 0; y < p.height; ++y)
        for (uint32_t x = 0; x < p.width; ++x)
            for (uint32_t ch = 0; ch < 3; ++ch) {
                uint32_t sum = 0;
                for (uint32_t sy = 0; sy < ss; ++sy)
                    for (uint32_t sx = 0; sx < ss; ++sx)
                        sum +=
                            src[((size_t(y) * ss + sy) * canvas.width() + size_t(x) * ss + sx) * 3 +
                                ch];
                rgb[y * stride + size_t(x) * 3 + ch] = uint8_t((sum + samples / 2) / samples);
            }
    for (const OverlayRect& r : a.rects) image.rect(r);
    for (const OverlayText& t : a.texts) image.text(t, a.text_scale, a.text_colour);
    return encodePng(image.data(), image.width(), image.height(), false);
}

}  // namespace nav::view
