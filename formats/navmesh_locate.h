// Point location on a navigation mesh, shared by the bake (links attach to the polygons under
// their ends, lib/graph) and navrt (locate, heights, raycasts): one implementation, so the bake and
// the runtime agree on which polygon a point lies on. Runtime-safe: no exceptions, no allocation.
#pragma once

#include <cstdint>

#include "formats/layouts.h"

namespace nav::formats {

// The mesh arrays as stored (MVRT, MPOF, MPVI, MDOF, MDTR, MGHD, MGOF, MGPL), validated by
// validateNavmeshSections or built consistently.
struct MeshArrays {
    const float* vertices = nullptr;         // 3 per vertex
    const uint32_t* poly_offsets = nullptr;  // polygon p's corners: [poly_offsets[p], [p+1])
    const uint32_t* poly_vertices = nullptr;
    const uint32_t* detail_offsets = nullptr;  // polygon p's floor triangles
    const float* detail_triangles = nullptr;   // 9 floats each
    MeshIndexHeader index;
    const uint32_t* index_offsets = nullptr;
    const uint32_t* index_polys = nullptr;
};

// +1 or -1: the sign of the XZ cross product (b - a) x (c - a) for points c inside polygon p.
double meshPolyOrientation(const MeshArrays& mesh, uint32_t poly);
// Distance in XZ from `point` to polygon `poly` (0 inside) and the closest point (y unchanged).
double meshPolyDistance(const MeshArrays& mesh, uint32_t poly, const float point[3],
                        float closest[3]);
// Floor height of polygon `poly` at (x, z) from its detail triangles (the corners' mean when it
// has none); false when (x, z) is outside the polygon.
bool meshPolyHeight(const MeshArrays& mesh, uint32_t poly, float x, float z, float& y);

struct MeshLocation {
    uint32_t poly = 0xFFFFFFFFu;    // none
    float position[3] = {0, 0, 0};  // the point moved into the polygon and onto its floor
    float distance = 0;             // from the point to `position` [m]
};
// The polygon under `point`: candidates from the grid index; a polygon qualifies when the point
// is inside it in XZ (or within `horizontal_tolerance` of it) and its floor there is within
// `vertical_tolerance` (the search box of Detour's findNearestPoly: half-extents horizontal,
// vertical, horizontal); the nearest (horizontal^2 + vertical^2, then the lower id) wins.
// `hint` (coherence, e.g. the polygon an agent stood on last frame): when the point is inside it
// in XZ with its floor within `vertical_tolerance`, it is the answer at once (no index walk, and
// an agent on one of two overlapping floors stays on its own).
MeshLocation meshLocate(const MeshArrays& mesh, const float point[3], float horizontal_tolerance,
                        float vertical_tolerance, uint32_t hint = 0xFFFFFFFFu,
                        uint32_t poly_count = 0);

}  // namespace nav::formats
