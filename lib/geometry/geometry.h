// The imported level geometry (.geo artifact): a flat triangle soup in world space (Y up, metres),
// each triangle tagged with an area type and the object it came from.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/common/file_io.h"
#include "lib/common/result.h"
#include "lib/geometry/link_spec.h"

namespace nav::geometry {

// An area type: what walking on a surface costs. Area id = index in the area table.
// Id 0 is always the obstacle area (solid, never walkable); id 1 is plain ground (cost 1).
struct AreaType {
    std::string name;
    float cost = 1.0f;  // traversal cost multiplier, > 0
    bool walkable = true;

    bool operator==(const AreaType&) const = default;
};
inline constexpr uint8_t kObstacleArea = 0;
inline constexpr uint8_t kGroundArea = 1;
std::vector<AreaType> defaultAreaTable();

// Area table (de)serialisation, shared by every artifact that carries area ids.
std::vector<uint8_t> encodeAreaTable(const std::vector<AreaType>& areas);
Result<std::vector<AreaType>> decodeAreaTable(const std::vector<uint8_t>& bytes,
                                              const std::filesystem::path& file);

struct SceneObject {
    std::string name;      // node/object name in the source file
    std::string material;  // material name ("" if none)
    bool operator==(const SceneObject&) const = default;
};

struct Bounds {
    std::array<float, 3> min{0, 0, 0};
    std::array<float, 3> max{0, 0, 0};
    bool operator==(const Bounds&) const = default;
    // Whether (x, y, z) lies in the box, faces included.
    bool contains(double x, double y, double z) const {
        return x >= min[0] && x <= max[0] && y >= min[1] && y <= max[1] && z >= min[2] &&
               z <= max[2];
    }
};

struct Geometry {
    std::vector<float> vertices;             // x, y, z per vertex [Units: m]
    std::vector<uint32_t> triangles;         // a, b, c vertex indices per triangle
    std::vector<uint8_t> triangle_areas;     // area id per triangle
    std::vector<uint32_t> triangle_objects;  // object index per triangle
    std::vector<SceneObject> objects;
    std::vector<AreaType> areas = defaultAreaTable();
    uint32_t source_mesh_count = 0;
    uint32_t dropped_degenerate = 0;
    uint32_t dropped_ignored = 0;
    std::vector<LinkSpec> links;  // from scene objects matched by "link" tag rules (scene = true)

    size_t vertexCount() const { return vertices.size() / 3; }
    size_t triangleCount() const { return triangles.size() / 3; }
    Bounds bounds() const;  // of the vertices; all zero when empty

    bool operator==(const Geometry&) const = default;
};

// The part of the geometry inside `box` (metres): triangles inside are kept as they are, those
// that cross its faces are clipped to it (the pieces fan-triangulated, same area and object),
// those outside dropped; unused vertices are dropped. Everything else (objects, areas, links) is
// copied.
Geometry clipToBox(const Geometry& geometry, const Bounds& box);

// Writes the .geo artifact atomically: kind version 1 without links (the layout before links
// existed, byte-identical), 2 with SLNK/SLNM sections when there are.
Status saveGeometry(const std::filesystem::path& path, const Geometry& geometry);
// Reads and fully validates a .geo artifact (indices in range, finite vertices, known areas).
Result<Geometry> loadGeometry(const std::filesystem::path& path);
Result<Geometry> decodeGeometry(const LoadedContainer& container);

// The optional link spec sections of .geo and .vox (FORMAT.md §4.4): SLNK + SLNM when `links` is
// not empty, nothing otherwise.
void addLinkSpecSections(formats::ContainerWriter& writer, const std::vector<LinkSpec>& links);
// Reads them back (none when both are absent). Errors name the file: one section without the
// other, links in a kind version 1 file, or a bad record (decodeLinkSpecs: byte offset).
Result<std::vector<LinkSpec>> decodeLinkSpecSections(const LoadedContainer& container);

}  // namespace nav::geometry
