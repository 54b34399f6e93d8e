// Test levels built by hand from triangles and boxes (Y up, metres), voxelized with the real
// stage: the known-answer levels of the voxel, link and graph tests.
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "lib/common/context.h"
#include "lib/geometry/geometry.h"
#include "lib/voxel/voxel_grid.h"
#include "lib/voxel/voxelize.h"

namespace nav::test {

using V3 = std::array<double, 3>;

struct LevelBuilder {
    geometry::Geometry g;

    LevelBuilder() { g.objects.push_back({"test", ""}); }

    // Later triangles belong to a new object of this name.
    void object(const std::string& name) {
        g.objects.push_back({name, ""});
        current = uint32_t(g.objects.size() - 1);
    }
    void tri(V3 a, V3 b, V3 c, uint8_t area = geometry::kGroundArea) {
        for (const V3& p : {a, b, c}) {
            g.triangles.push_back(uint32_t(g.vertexCount()));
            for (double v : p) g.vertices.push_back(float(v));
        }
        g.triangle_areas.push_back(area);
        g.triangle_objects.push_back(current);
    }
    void quad(V3 a, V3 b, V3 c, V3 d, uint8_t area = geometry::kGroundArea) {
        tri(a, b, c, area);
        tri(a, c, d, area);
    }
    // Horizontal rectangle at height y; facing up unless `down`.
    void rect(double x0, double z0, double x1, double z1, double y,
              uint8_t area = geometry::kGroundArea, bool down = false) {
        if (down)
            quad({x0, y, z0}, {x1, y, z0}, {x1, y, z1}, {x0, y, z1}, area);
        else
            quad({x0, y, z0}, {x0, y, z1}, {x1, y, z1}, {x1, y, z0}, area);
    }
    // Closed axis-aligned box, faces pointing out.
    void box(V3 lo, V3 hi, uint8_t area = geometry::kGroundArea) {
        const auto [x0, y0, z0] = lo;
        const auto [x1, y1, z1] = hi;
        rect(x0, z0, x1, z1, y1, area);
        rect(x0, z0, x1, z1, y0, area, true);
        quad({x1, y0, z0}, {x1, y1, z0}, {x1, y1, z1}, {x1, y0, z1}, area);  // +x
        quad({x0, y0, z0}, {x0, y0, z1}, {x0, y1, z1}, {x0, y1, z0}, area);  // -x
        quad({x0, y0, z1}, {x1, y0, z1}, {x1, y1, z1}, {x0, y1, z1}, area);  // +z
        quad({x0, y0, z0}, {x0, y1, z0}, {x1, y1, z0}, {x1, y0, z0}, area);  // -z
    }

    uint32_t current = 0;
};

inline voxel::VoxelizeParams voxelParams(float cell_size = 0.3f, float cell_height = 0.2f,
                                         float radius = 0.6f) {
    voxel::VoxelizeParams p;
    p.cell_size = cell_size;
    p.cell_height = cell_height;
    p.agent.radius = radius;
    return p;
}

inline voxel::VoxelGrid voxelizeOk(const geometry::Geometry& g,
                                   const voxel::VoxelizeParams& params) {
    Context context;
    auto grid = voxel::voxelize(g, params, context);
    if (!grid) FAIL("voxelize failed: " << grid.error().message);
    return std::move(grid).value();
}

// The top of every walkable span: its column's centre, its top [m] and its area.
struct WalkableTop {
    double x, y, z;
    uint8_t area;
};
inline std::vector<WalkableTop> walkableTops(const voxel::VoxelGrid& g) {
    std::vector<WalkableTop> out;
    for (uint32_t z = 0; z < g.size_z; ++z)
        for (uint32_t x = 0; x < g.size_x; ++x)
            for (const voxel::Span& s : g.column(x, z))
                if (s.walkable)
                    out.push_back({g.origin[0] + (x + 0.5) * g.cell_size, g.topY(s),
                                   g.origin[2] + (z + 0.5) * g.cell_size, s.area});
    return out;
}

}  // namespace nav::test
