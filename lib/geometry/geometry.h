// The imported level geometry (.geo artifact): a flat triangle soup in world space (Y up, metres),
// each triangle tagged with an area type and the object it came from.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "formats/container_writer.h"
#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/common/result.h"
#include "lib/geometry/link_spec.h"
#include "lib/geometry/strips.h"

namespace nav {
class JsonReader;
}

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

// A plane n.p + d = 0 with |n| = 1; the inside of a convex volume is where n.p + d <= 0.
using Plane = std::array<float, 4>;

// A designer's marker from a scene object that a tag rule gave a marker tag (importer/import.h,
// "Markers"): a bake bound, a modifier volume, a seed, a point of interest, a Dirichlet-domain
// waypoint or a manual cluster. Config entries of the same kinds are not markers: they stay in
// the stage parameters. Markers travel .geo -> .vox (FORMAT.md §4.5) to the stage that uses them.
enum class MarkerKind : uint8_t {
    bounds = 1,             // box: a bake bound
    volume = 2,             // box (and planes): a modifier volume
    seed = 3,               // position: a seed point
    point_of_interest = 4,  // position, label = its kind
    waypoint = 5,           // position, weight: a Dirichlet-domain waypoint
    cluster = 6,            // box (and planes), label = its name: a manual cluster (a room)
};
inline constexpr MarkerKind kLastMarkerKind = MarkerKind::cluster;
// "bounds", "volume", "seed", "point_of_interest", "waypoint", "cluster": the tag names.
const char* markerKindName(MarkerKind kind);

struct SceneMarker {
    MarkerKind kind = MarkerKind::seed;
    std::string name;    // for messages and reports: "FILE: object 'NAME'"
    std::string object;  // the object's name ("NAME")
    Bounds box;          // [Units: m] world bounds of the object's vertices (an empty: its origin)
    std::array<float, 3> position{0, 0, 0};  // [Units: m] an empty's origin, else the box's
                                             // bottom centre (a marker standing on the floor)
    std::vector<Plane> planes;  // volume, cluster: a convex hull inside the box (empty = the box)
    std::string label;          // point_of_interest: its kind; cluster: its name
    // volume only (voxel::ModifierVolume has the same fields):
    std::string area;                       // the area the surface inside becomes ("" = keep)
    float cost_factor = 1;                  // multiplies the cost inside (> 0)
    bool forbid = false;                    // the surface inside is not walkable
    std::vector<std::string> agents;        // the agents it applies to (empty = every agent)
    std::vector<std::string> walkable_for;  // forbidden for every agent but these (empty = none)
    float weight = 0;                       // waypoint: its head start [m] (>= 0)

    bool operator==(const SceneMarker&) const = default;
};

// The half-spaces whose intersection is the convex hull of `points` [Units: m]: every plane
// through three of the points with all points on or inside it (1 mm tolerance), duplicates
// merged, in a deterministic order. At most kMaxHullPoints distinct points. Errors (a message
// without the source): too many points, or points that span no volume (all on one plane).
inline constexpr size_t kMaxHullPoints = 128;
Result<std::vector<Plane>> convexHullPlanes(const std::vector<std::array<float, 3>>& points);
// Whether (x, y, z) is inside every plane (1 mm tolerance).
bool insidePlanes(const std::vector<Plane>& planes, double x, double y, double z);
// The bounds of `points` (not empty).
Bounds boundsOf(const std::vector<std::array<float, 3>>& points);
// A region of a config entry that `r` reads (at JSON path `at`): "points" (4 or more [x, y, z]:
// their convex hull, `box` its bounds) or "min" and "max" (a box; `planes` left empty). Errors name
// the JSON path: both forms given, neither, a bad point, a hull without volume. The box's order
// (min < max) is the caller's check.
Status readRegion(JsonReader& r, const std::string& at, Bounds& box, std::vector<Plane>& planes);

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
    std::vector<SceneMarker> markers;  // from scene objects matched by marker tag rules

    size_t vertexCount() const { return vertices.size() / 3; }
    size_t triangleCount() const { return triangles.size() / 3; }
    Bounds bounds() const;  // of the vertices; all zero when empty

    bool operator==(const Geometry&) const = default;
};

// The part of the geometry inside `box` (metres): triangles inside are kept as they are, those
// that cross its faces are clipped to it (the pieces fan-triangulated, same area and object),
// those outside dropped; unused vertices are dropped. Everything else (objects, areas, links) is
// copied.
// (triangle_objects stays empty when the geometry's is.)
Geometry clipToBox(const Geometry& geometry, const Bounds& box);

// The per-triangle arrays of a geometry (triangles, triangle_areas, triangle_objects) compressed
// as they are made, for saveGeometry: an importer that writes its triangles here never holds them
// whole (on a large level they are most of its memory: 13 bytes a triangle).
class TriangleStreams {
public:
    TriangleStreams();
    ~TriangleStreams();
    TriangleStreams(const TriangleStreams&) = delete;
    TriangleStreams& operator=(const TriangleStreams&) = delete;
    void add(uint32_t a, uint32_t b, uint32_t c, uint8_t area, uint32_t object) {
        if (block_.size() + 3 > kBlock) flush();
        block_.insert(block_.end(), {a, b, c});
        areas_.push_back(area);
        objects_.push_back(object);
        ++per_area_[area];
    }
    uint64_t count() const { return count_ + areas_.size(); }
    // Triangles per area id (256 entries).
    const std::vector<uint64_t>& perArea() const { return per_area_; }
    // Renumbers the vertices of every triangle written (vertex v becomes new_index[v]): what was
    // compressed is decoded, renumbered and compressed again (an importer that dropped vertices).
    Status renumber(const std::vector<uint32_t>& new_index);
    // Adds the three sections to `writer` (the streams are spent).
    Status addTo(formats::ContainerWriter& writer);

private:
    static constexpr size_t kBlock = 3 * 16384;
    void flush();
    std::unique_ptr<formats::ZstdSectionStream> triangles_, areas_stream_, objects_stream_;
    std::vector<uint32_t> block_, objects_;
    std::vector<uint8_t> areas_;
    std::vector<uint64_t> per_area_ = std::vector<uint64_t>(256, 0);
    uint64_t count_ = 0;               // triangles flushed
    std::vector<uint8_t> renumbered_;  // after renumber: the triangles, whole (u32 LE)
    bool taken_ = false;               // renumbered: triangles_ is spent
};

// Writes the .geo artifact atomically: kind version 1 without links or markers (the layout before
// links existed, byte-identical), 2 with SLNK/SLNM sections when there are links, 3 with an SMRK
// section when there are markers. With `streams` the per-triangle arrays come from them (the
// geometry's own are empty).
Status saveGeometry(const std::filesystem::path& path, const Geometry& geometry,
                    TriangleStreams* streams = nullptr);
// The strips layout (kind version 4, FORMAT.md §4.6): the triangles are `strips`' (the geometry's
// vertex and triangle arrays are not written), the rest as above.
Status saveGeometry(const std::filesystem::path& path, const Geometry& geometry,
                    StripWriter& strips);
// Reads and fully validates a .geo artifact (indices in range, finite vertices, known areas).
// GeometryParts::without_objects leaves triangle_objects empty (voxelize does not use them; on a
// large level they are 4 bytes a triangle).
enum class GeometryParts { all, without_objects };
Result<Geometry> loadGeometry(const std::filesystem::path& path,
                              GeometryParts parts = GeometryParts::all);
Result<Geometry> decodeGeometry(const LoadedContainer& container,
                                GeometryParts parts = GeometryParts::all);

// A .geo's per-triangle arrays TRIS and TARE kept as the file stores them (compressed: 13 bytes a
// triangle decoded, a small fraction of that stored) and decoded a block at a time, as often as
// asked, with decodeGeometry's checks: for a stage that visits the triangles in a few passes but
// need not hold them (voxelize).
class StoredTriangles {
public:
    uint64_t count() const { return header_.triangle_count; }
    // A .geo in the strips layout: its strips (forEach and decodeInto then fail: there are no
    // vertex indices), the bounds from its header. Null for the other layouts.
    const std::shared_ptr<StoredStrips>& strips() const { return strips_; }
    Bounds bounds() const;
    // Calls visit(first, corners, areas) for consecutive blocks of triangles, the first from
    // triangle 0: 3 vertex indices a triangle in `corners`, its area id in `areas`. Returns the
    // first error of the file (naming it, the section and the byte) or of visit.
    using Visit = std::function<Status(uint64_t first, std::span<const uint32_t> corners,
                                       std::span<const uint8_t> areas)>;
    static constexpr uint64_t kBlock = 16384;  // triangles a block
    Status forEach(const Visit& visit) const;
    // Decodes them whole into `g`'s triangles and triangle_areas (for work that needs them all at
    // once, e.g. clipping to bake bounds).
    Status decodeInto(Geometry& g) const;

private:
    friend Result<Geometry> loadGeometry(const std::filesystem::path& path,
                                         StoredTriangles& triangles);
    std::filesystem::path file_;
    formats::GeometryHeader header_;
    uint32_t area_count_ = 0;
    formats::SectionEntry corners_entry_, areas_entry_;  // offsets into their own bytes (0)
    std::vector<uint8_t> corners_bytes_, areas_bytes_;
    std::shared_ptr<StoredStrips> strips_;
};
// Loads a .geo without its per-triangle arrays (triangles, triangle_areas and triangle_objects
// stay empty): TRIS and TARE are kept stored in `triangles`, checked for their sizes here and
// for their contents as they are visited. A .geo in the strips layout loads too (no vertices;
// StoredTriangles::strips()); the other loaders refuse it with a message saying so.
Result<Geometry> loadGeometry(const std::filesystem::path& path, StoredTriangles& triangles);
// The geometry's own triangles, in StoredTriangles::forEach's blocks (views of its arrays).
Status forEachTriangleBlock(const Geometry& g, const StoredTriangles::Visit& visit);

// The optional link spec sections of .geo and .vox (FORMAT.md §4.4): SLNK + SLNM when `links` is
// not empty, nothing otherwise.
void addLinkSpecSections(formats::ContainerWriter& writer, const std::vector<LinkSpec>& links);
// Reads them back (none when both are absent). Errors name the file: one section without the
// other, links in a kind version 1 file, or a bad record (decodeLinkSpecs: byte offset).
Result<std::vector<LinkSpec>> decodeLinkSpecSections(const LoadedContainer& container);

// The optional marker section of .geo, .vox (FORMAT.md §4.5) and .graph (§6.7): SMRK when
// `markers` is not empty. Its reader names the file and byte offset of a bad record (unknown
// kind, non-finite number, a box with min > max, a string too long, trailing bytes) and refuses
// it in a file of kind version < `first_kind_version`, the first layout of the container's kind
// that may hold it (3 for .geo and .vox; 1 for .graph, where it was optional from the start).
void addMarkerSection(formats::ContainerWriter& writer, const std::vector<SceneMarker>& markers);
Result<std::vector<SceneMarker>> decodeMarkerSection(const LoadedContainer& container,
                                                     uint32_t first_kind_version = 3);
// The kind version a .geo or .vox with these links and markers is written with (1, 2 or 3).
uint32_t sceneKindVersion(bool has_links, bool has_markers);

}  // namespace nav::geometry
