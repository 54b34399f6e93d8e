// Jump point tables of tile graphs (JPS+), shared by the bake (lib/graph/jump_points.cpp) and
// navrt's search: the eight directions and what a table entry means (FORMAT.md, JPS+ section).
//
// Directions d = 0..7 on the X-Z grid of columns: the cardinals 0 (+X), 1 (+Z), 2 (-X), 3 (-Z),
// then the diagonals 4 + c between cardinals c and c + 1 (mod 4): 4 (+X+Z), 5 (-X+Z),
// 6 (-X-Z), 7 (+X-Z).
//
// An entry for node v and direction d (int16): k > 0: the jump from v along d meets its first
// jump point k steps away; k <= 0: it meets none and the line ends (a wall, a ledge) after -k
// steps (0: no step at all). kJumpSpecial in every entry: v is not a uniform grid cell (or one
// is beside it), so a search expands it by its edges instead of jumping.
#pragma once

#include <cstdint>

namespace nav::formats {

inline constexpr int kJumpDirections = 8;
inline constexpr int16_t kJumpSpecial = INT16_MIN;
inline constexpr int16_t kJumpMaxSteps = INT16_MAX;

constexpr int jumpDx(int d) {
    constexpr int dx[kJumpDirections] = {1, 0, -1, 0, 1, -1, -1, 1};
    return dx[d];
}
constexpr int jumpDz(int d) {
    constexpr int dz[kJumpDirections] = {0, 1, 0, -1, 1, 1, -1, -1};
    return dz[d];
}
constexpr bool jumpIsDiagonal(int d) { return d >= 4; }
// The opposite direction.
constexpr int jumpOpposite(int d) { return d < 4 ? (d + 2) % 4 : 4 + (d - 4 + 2) % 4; }
// A diagonal's two cardinals (d = 4 + c: c and c + 1 mod 4).
constexpr int jumpFirstCardinal(int d) { return d - 4; }
constexpr int jumpSecondCardinal(int d) { return (d - 4 + 1) % 4; }
// The direction of a step by (dx, dz), each in {-1, 0, 1}, not both 0; -1 otherwise.
constexpr int jumpDirectionOf(int dx, int dz) {
    for (int d = 0; d < kJumpDirections; ++d)
        if (jumpDx(d) == dx && jumpDz(d) == dz) return d;
    return -1;
}

}  // namespace nav::formats
