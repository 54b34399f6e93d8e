// The MovingAI 3D move rule of volume graphs, shared by the bake (components) and navrt (search):
// a move from voxel v by (dx, dy, dz), each in {-1, 0, 1}, is allowed when every voxel of the box
// {0, dx} x {0, dy} x {0, dz} around v but v itself is free.
#pragma once

#include <array>
#include <cstdint>

namespace nav::formats {

// Bit of a 3x3x3 neighbourhood mask for offset (dx, dy, dz).
constexpr int volumeNeighbourBit(int dx, int dy, int dz) {
    return (dy + 1) * 9 + (dz + 1) * 3 + (dx + 1);
}

// A move and the neighbourhood bits that must all be free for it.
struct VolumeMove {
    int dx, dy, dz;
    uint32_t required;
};

// The 26 moves in (dy, dz, dx) order from (-1, -1, -1): the first 13 go to lower voxel indices.
constexpr std::array<VolumeMove, 26> volumeMoves() {
    std::array<VolumeMove, 26> moves{};
    size_t count = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx) {
                if (dx == 0 && dy == 0 && dz == 0) continue;
                uint32_t required = 0;
                for (int by = 0; by <= 1; ++by)
                    for (int bz = 0; bz <= 1; ++bz)
                        for (int bx = 0; bx <= 1; ++bx)
                            required |= 1u << volumeNeighbourBit(bx * dx, by * dy, bz * dz);
                required &= ~(1u << volumeNeighbourBit(0, 0, 0));
                moves[count++] = {dx, dy, dz, required};
            }
    return moves;
}

}  // namespace nav::formats
