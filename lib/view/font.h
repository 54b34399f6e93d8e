// Private to lib/view: the bitmap font the PNG writer draws its annotation text with (the SVG
// writer uses <text>), and the text metrics both writers lay the annotations out by. Each glyph is
// 5 x 7 pixels above the baseline (capitals, digits) and one descender row below it (g, j, p, q,
// y), in a 6 px advance (one blank column between characters); `scale` draws every font pixel as
// a scale x scale block. Printable ASCII, the en dash (U+2013) and the middle dot (U+00B7)
// have glyphs; anything else is drawn as '?'.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace nav::view::font {

inline constexpr uint32_t kGlyphWidth = 5;   // [Units: font px]
inline constexpr uint32_t kGlyphHeight = 7;  // [Units: font px] above the baseline
inline constexpr uint32_t kGlyphRows = 8;    // [Units: font px] with the descender row
inline constexpr uint32_t kAdvance = 6;      // [Units: font px] glyph plus the gap after it

// Rows top to bottom; bit 4 is the leftmost column, bit 0 the rightmost.
using Rows = std::array<uint8_t, kGlyphRows>;

// Whether `code` has a glyph of its own.
bool hasGlyph(char32_t code);
// The glyph of `code` ('?' when it has none).
const Rows& glyph(char32_t code);

// UTF-8 to code points; a byte that does not start a valid sequence becomes U+FFFD.
std::u32string decodeUtf8(std::string_view text);
// [Units: px] width of `text` drawn at `scale`: the advances less the last gap (0 when empty).
uint32_t textWidth(std::string_view text, uint32_t scale);

}  // namespace nav::view::font
