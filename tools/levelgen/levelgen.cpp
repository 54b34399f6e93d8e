// levelgen — deterministic sample-level generator for navbake.
//
// Usage: levelgen OUTDIR
//        levelgen --town N FILE.obj   (a benchmark town of N x N blocks, see "Town" below)
//        levelgen --city N FILE.obj   (large: a town on terrain, see "City and tower" below)
//        levelgen --tower N FLOORS FILE.obj   (large: a multi-storey maze, same section)
//
// Writes, byte-identical on every run (no clock, no system RNG, fixed float
// formatting, terrain noise built only from integer hashing, + - * / and sqrt,
// all of which are exactly reproducible under IEEE-754):
//
//   OUTDIR/indoor_two_floors.glb   binary glTF 2.0, Y up, metres
//   OUTDIR/terrain.obj             Wavefront OBJ height-field terrain
//   OUTDIR/terrain.mtl             materials referenced by terrain.obj
//   OUTDIR/designer_yard.obj       Wavefront OBJ: the designers' control walk-through (markers)
//   OUTDIR/links_course.obj        Wavefront OBJ: ledges, gaps, a pit, a walkway, ladder/door/link
//   objects OUTDIR/links_course.mtl        its materials OUTDIR/maze3d.3dmap            MovingAI 3D
//   voxel map: a hollow 3-storey maze OUTDIR/maze3d.3dscen           MovingAI 3D scenarios on it,
//   with optimal lengths
//
// indoor_two_floors.glb — a 30 m x 20 m building (X in [0,30], Z in [0,20]):
//   * ground slab (top Y=0), outer walls 4.5 m high, and four rooms separated
//     by 3.0 m interior walls, each with a 2.0 m x 2.4 m doorway built from
//     boxes around the opening  -> basic voxelization, wall erosion, portals;
//   * an upper floor (top Y=3.0, 0.2 m thick) over the back of room_a and
//     part of room_b, so many XZ columns hold walkable floor both at Y=0 and
//     Y=3.0 with 2.8 m clearance below  -> multi-floor spans, overhangs;
//   * a 1.0 m railing on the balcony's open edges, open where the ramp lands;
//   * a 2 m wide, ~25 degree ramp from Y=0 up to the balcony edge, flush with
//     the slab top  -> slope handling and floor-to-floor connectivity;
//   * four 0.2 m steps (0.35 m run) up to a 1.0 m platform; the platform is
//     taller than an agent's 0.9 m max climb, so only the stairs reach it
//     -> step/climb handling;
//   * a 1 cm water slab (material "water") -> area tagging;
//   * three 1 m crates (one rotated 45 degrees, one under the balcony)
//     -> obstacle carving;
//   * a node hierarchy with translations, 90 degree Y rotations (the walls
//     running along Z) and two-level nesting (room -> part), so importers
//     must compose node transforms; meshes are in node-local coordinates.
//
// terrain.obj — 60 m x 60 m height grid (61x61 vertices, 1 m spacing,
//   X,Z in [-30,30]) with rolling value-noise hills, a steep mound and a cliff
//   (slopes > 45 degrees -> unwalkable-slope filtering), a pond depression with
//   a flat water patch (area tagging) and a few rock obstacles.
//
// maze3d.3dmap / maze3d.3dscen — see "3D voxel maze" below.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/common/gltf_writer.h"

namespace levelgen {
namespace {

// ----------------------------------------------------------------------------
// Basic math
// ----------------------------------------------------------------------------

struct Vec3 {
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;
};

constexpr Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
constexpr Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
constexpr double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
constexpr Vec3 cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// glTF quaternion order: x, y, z, w.
struct Quat {
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;
    double w = 1.0;
};

// Rotations about +Y (right-handed): +90 degrees maps local +X to world -Z
// and local +Z to world +X. Constants are spelled out to stay reproducible.
constexpr Quat kRotateY90{0.0, 0.7071067811865476, 0.0, 0.7071067811865476};
constexpr Quat kRotateY45{0.0, 0.3826834323650898, 0.0, 0.9238795325112867};

constexpr double smoothStep(double edge0, double edge1, double x) {
    double t = (x - edge0) / (edge1 - edge0);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return t * t * (3.0 - 2.0 * t);
}

// ----------------------------------------------------------------------------
// Mesh building
// ----------------------------------------------------------------------------

struct Mesh {
    std::string name;
    std::string material;
    std::vector<Vec3> positions;
    std::vector<std::uint32_t> indices;
    std::vector<std::uint32_t> lines;  // index pairs (OBJ 'l'): link objects drawn as lines

    std::uint32_t addVertex(Vec3 p) {
        positions.push_back(p);
        return static_cast<std::uint32_t>(positions.size() - 1);
    }

    // Emits triangle (a, b, c), reversed if necessary so that it is CCW when
    // seen from the side `outward` points to (right-hand normal along outward).
    void addTriangle(std::uint32_t a, std::uint32_t b, std::uint32_t c, Vec3 outward) {
        const Vec3 normal = cross(positions[b] - positions[a], positions[c] - positions[a]);
        if (dot(normal, outward) >= 0.0) {
            indices.insert(indices.end(), {a, b, c});
        } else {
            indices.insert(indices.end(), {a, c, b});
        }
    }

    // a, b, c, d must be a planar convex quad in cyclic order (either way).
    void addQuad(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d, Vec3 outward) {
        addTriangle(a, b, c, outward);
        addTriangle(a, c, d, outward);
    }
};

Mesh makeMesh(std::string name, std::string material) {
    Mesh mesh;
    mesh.name = std::move(name);
    mesh.material = std::move(material);
    return mesh;
}

// The six faces of a box-like solid whose corner i lies at the x1 / y1 / z1 side when bit 0 / 1 / 2
// of i is set (the top may slope: see appendRampZ).
void appendBoxFaces(Mesh& mesh, const std::array<std::uint32_t, 8>& v) {
    mesh.addQuad(v[0], v[2], v[6], v[4], {-1.0, 0.0, 0.0});
    mesh.addQuad(v[1], v[3], v[7], v[5], {1.0, 0.0, 0.0});
    mesh.addQuad(v[0], v[1], v[5], v[4], {0.0, -1.0, 0.0});
    mesh.addQuad(v[2], v[3], v[7], v[6], {0.0, 1.0, 0.0});
    mesh.addQuad(v[0], v[1], v[3], v[2], {0.0, 0.0, -1.0});
    mesh.addQuad(v[4], v[5], v[7], v[6], {0.0, 0.0, 1.0});
}

// Axis-aligned box: 8 vertices, 12 outward-facing triangles.
void appendBox(Mesh& mesh, Vec3 lo, Vec3 hi) {
    std::array<std::uint32_t, 8> v{};
    for (int i = 0; i < 8; ++i) {
        v[i] =
            mesh.addVertex({(i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z});
    }
    appendBoxFaces(mesh, v);
}

// Wedge (ramp): base rectangle [x0,x1] x [z0,z1] at y0; the sloped top rises
// from y0 at z0 to y1 at z1, where a vertical back face closes it.
// 6 vertices, 8 outward-facing triangles.
void appendWedgeRisingZ(Mesh& mesh, double x0, double x1, double z0, double z1, double y0,
                        double y1) {
    const std::uint32_t front_left = mesh.addVertex({x0, y0, z0});
    const std::uint32_t front_right = mesh.addVertex({x1, y0, z0});
    const std::uint32_t back_left = mesh.addVertex({x0, y0, z1});
    const std::uint32_t back_right = mesh.addVertex({x1, y0, z1});
    const std::uint32_t top_left = mesh.addVertex({x0, y1, z1});
    const std::uint32_t top_right = mesh.addVertex({x1, y1, z1});
    mesh.addQuad(front_left, front_right, back_right, back_left, {0.0, -1.0, 0.0});
    mesh.addQuad(back_left, back_right, top_right, top_left, {0.0, 0.0, 1.0});
    mesh.addQuad(front_left, front_right, top_right, top_left, {0.0, z1 - z0, -(y1 - y0)});
    mesh.addTriangle(front_left, back_left, top_left, {-1.0, 0.0, 0.0});
    mesh.addTriangle(front_right, back_right, top_right, {1.0, 0.0, 0.0});
}

// Octahedron with per-axis radii, optionally rotated about Y by the angle
// whose cosine/sine are given (exact rational pairs keep output reproducible).
void appendOctahedron(Mesh& mesh, Vec3 center, Vec3 radii, double cos_a, double sin_a) {
    auto rotated = [&](double lx, double ly, double lz) {
        return Vec3{center.x + cos_a * lx + sin_a * lz, center.y + ly,
                    center.z - sin_a * lx + cos_a * lz};
    };
    const std::uint32_t px = mesh.addVertex(rotated(radii.x, 0.0, 0.0));
    const std::uint32_t nx = mesh.addVertex(rotated(-radii.x, 0.0, 0.0));
    const std::uint32_t py = mesh.addVertex(rotated(0.0, radii.y, 0.0));
    const std::uint32_t ny = mesh.addVertex(rotated(0.0, -radii.y, 0.0));
    const std::uint32_t pz = mesh.addVertex(rotated(0.0, 0.0, radii.z));
    const std::uint32_t nz = mesh.addVertex(rotated(0.0, 0.0, -radii.z));
    for (std::uint32_t sx : {px, nx}) {
        for (std::uint32_t sy : {py, ny}) {
            for (std::uint32_t sz : {pz, nz}) {
                const Vec3 face_center =
                    mesh.positions[sx] + mesh.positions[sy] + mesh.positions[sz];
                const Vec3 outward =
                    face_center - Vec3{3.0 * center.x, 3.0 * center.y, 3.0 * center.z};
                mesh.addTriangle(sx, sy, sz, outward);
            }
        }
    }
}

// Wall along local +X from x=0 to `length`, centred on z=0, standing on y=0,
// with a doorway whose centre is at x=`door_center`. Three boxes: left and
// right of the opening, and a lintel above it.
void appendWallWithDoorway(Mesh& mesh, double length, double height, double thickness,
                           double door_center, double door_width, double door_height) {
    const double half_t = 0.5 * thickness;
    const double door_lo = door_center - 0.5 * door_width;
    const double door_hi = door_center + 0.5 * door_width;
    appendBox(mesh, {0.0, 0.0, -half_t}, {door_lo, height, half_t});
    appendBox(mesh, {door_hi, 0.0, -half_t}, {length, height, half_t});
    appendBox(mesh, {door_lo, door_height, -half_t}, {door_hi, height, half_t});
}

// ----------------------------------------------------------------------------
// Scene graph
// ----------------------------------------------------------------------------

struct Placement {
    std::optional<Vec3> translation;
    std::optional<Quat> rotation;
};

Placement at(Vec3 translation) { return Placement{translation, std::nullopt}; }
Placement atRotated(Vec3 translation, Quat rotation) { return Placement{translation, rotation}; }

struct Node {
    std::string name;
    int mesh_index = -1;
    Placement placement;
    std::vector<int> children;
};

class Scene {
public:
    int addGroup(int parent, std::string name, Placement placement = {}) {
        Node node;
        node.name = std::move(name);
        node.placement = placement;
        return attach(parent, std::move(node));
    }

    // One mesh per object: the node takes the mesh's name.
    int addMeshNode(int parent, Mesh mesh, Placement placement = {}) {
        Node node;
        node.name = mesh.name;
        node.mesh_index = static_cast<int>(meshes_.size());
        node.placement = placement;
        meshes_.push_back(std::move(mesh));
        return attach(parent, std::move(node));
    }

    const std::vector<Node>& nodes() const { return nodes_; }
    const std::vector<Mesh>& meshes() const { return meshes_; }

private:
    int attach(int parent, Node node) {
        const int index = static_cast<int>(nodes_.size());
        nodes_.push_back(std::move(node));
        if (parent >= 0) {
            nodes_[static_cast<std::size_t>(parent)].children.push_back(index);
        }
        return index;
    }

    std::vector<Node> nodes_;
    std::vector<Mesh> meshes_;
};

// ----------------------------------------------------------------------------
// Indoor level layout (world coordinates, metres)
// ----------------------------------------------------------------------------

constexpr double kFootprintX = 30.0;
constexpr double kFootprintZ = 20.0;
constexpr double kSlabThickness = 0.2;
constexpr double kWallThickness = 0.2;
constexpr double kOuterWallHeight = 4.5;
constexpr double kStoreyWallHeight = 3.0;
constexpr double kDoorWidth = 2.0;  // wide enough for a 0.6 m radius agent after erosion
constexpr double kDoorHeight = 2.4;

// Interior walls: two along Z (x = 10, x = 20), one along X (z = 10, east part).
constexpr double kWallAbX = 10.0;  // between room_a and room_b
constexpr double kWallBcX = 20.0;  // between room_b and rooms c/d
constexpr double kWallCdZ = 10.0;  // between room_c (south) and room_d (north)
constexpr double kDoorAbZ = 4.0;   // doorway centres
constexpr double kDoorBcZ = 5.0;
constexpr double kDoorCdX = 25.0;

// Upper floor (balcony) and railing.
constexpr double kUpperFloorTop = 3.0;
constexpr double kUpperMinX = 0.2;
constexpr double kUpperMaxX = 16.0;
constexpr double kUpperMinZ = 8.0;
constexpr double kUpperMaxZ = 19.8;
constexpr double kRailingHeight = 1.0;
constexpr double kRailingThickness = 0.1;

// Ramp: rises along +Z and lands on the balcony's south edge (z = kUpperMinZ).
constexpr double kRampCenterX = 5.0;
constexpr double kRampWidth = 2.0;
constexpr double kRampRun = 6.4;  // atan(3.0 / 6.4) = 25.1 degrees

// Stairs (room_d): steps rise along +X towards a platform against the east wall.
constexpr double kStepRise = 0.2;
constexpr double kStepRun = 0.35;
constexpr int kStepCount = 4;
constexpr double kPlatformHeight = 1.0;
constexpr double kStairsStartX = 24.6;
constexpr double kStairsMinZ = 15.0;
constexpr double kStairsWidth = 2.0;
constexpr double kPlatformMinZ = 14.0;
constexpr double kPlatformDepthZ = 4.0;

// Water pool (room_c) and crates.
constexpr double kWaterTop = 0.01;
constexpr Vec3 kPoolCenter{25.5, 0.0, 4.25};
constexpr double kPoolSizeX = 5.0;
constexpr double kPoolSizeZ = 4.5;
constexpr double kCrateSize = 1.0;

// Room origins: each room node sits at its interior south-west corner.
constexpr Vec3 kRoomAOrigin{kWallThickness, 0.0, kWallThickness};
constexpr Vec3 kRoomBOrigin{kWallAbX + 0.5 * kWallThickness, 0.0, kWallThickness};
constexpr Vec3 kRoomCOrigin{kWallBcX + 0.5 * kWallThickness, 0.0, kWallThickness};
constexpr Vec3 kRoomDOrigin{kWallBcX + 0.5 * kWallThickness, 0.0, kWallCdZ + 0.5 * kWallThickness};

Mesh makeCrate(std::string name) {
    Mesh mesh = makeMesh(std::move(name), "obstacle_crate");
    const double half = 0.5 * kCrateSize;
    appendBox(mesh, {-half, 0.0, -half}, {half, kCrateSize, half});
    return mesh;
}

Scene buildIndoorLevel() {
    Scene scene;
    const int level = scene.addGroup(-1, "level");
    const double half_x = 0.5 * kFootprintX;
    const double half_z = 0.5 * kFootprintZ;
    const double half_wall = 0.5 * kWallThickness;

    // Ground slab, top at Y=0, defined around its centre.
    {
        Mesh mesh = makeMesh("floor_ground", "floor");
        appendBox(mesh, {-half_x, -kSlabThickness, -half_z}, {half_x, 0.0, half_z});
        scene.addMeshNode(level, std::move(mesh), at({half_x, 0.0, half_z}));
    }

    // Outer walls inside the footprint, each defined around its own centre line.
    {
        const int outer = scene.addGroup(level, "outer_walls");
        const double inner_half_z = half_z - kWallThickness;
        Mesh south = makeMesh("wall_outer_south", "wall");
        appendBox(south, {-half_x, 0.0, -half_wall}, {half_x, kOuterWallHeight, half_wall});
        scene.addMeshNode(outer, std::move(south), at({half_x, 0.0, half_wall}));
        Mesh north = makeMesh("wall_outer_north", "wall");
        appendBox(north, {-half_x, 0.0, -half_wall}, {half_x, kOuterWallHeight, half_wall});
        scene.addMeshNode(outer, std::move(north), at({half_x, 0.0, kFootprintZ - half_wall}));
        Mesh west = makeMesh("wall_outer_west", "wall");
        appendBox(west, {-half_wall, 0.0, -inner_half_z},
                  {half_wall, kOuterWallHeight, inner_half_z});
        scene.addMeshNode(outer, std::move(west), at({half_wall, 0.0, half_z}));
        Mesh east = makeMesh("wall_outer_east", "wall");
        appendBox(east, {-half_wall, 0.0, -inner_half_z},
                  {half_wall, kOuterWallHeight, inner_half_z});
        scene.addMeshNode(outer, std::move(east), at({kFootprintX - half_wall, 0.0, half_z}));
    }

    // Interior walls along Z: built along local +X and rotated +90 degrees about
    // Y (local +X -> world -Z), so the node sits at the wall's north end.
    const double z_wall_length = kFootprintZ - 2.0 * kWallThickness;
    const double north_inner_z = kFootprintZ - kWallThickness;

    // room_a: west room (x 0.2..9.9), back part under the balcony.
    {
        const int room_a = scene.addGroup(level, "room_a", at(kRoomAOrigin));
        Mesh wall = makeMesh("wall_room_a_east", "wall");
        appendWallWithDoorway(wall, z_wall_length, kStoreyWallHeight, kWallThickness,
                              north_inner_z - kDoorAbZ, kDoorWidth, kDoorHeight);
        scene.addMeshNode(room_a, std::move(wall),
                          atRotated(Vec3{kWallAbX, 0.0, north_inner_z} - kRoomAOrigin, kRotateY90));
        scene.addMeshNode(room_a, makeCrate("crate_3"),
                          atRotated(Vec3{2.5, 0.0, 15.0} - kRoomAOrigin, kRotateY45));
    }

    // room_b: middle room (x 10.1..19.9); its west part is under the balcony.
    {
        const int room_b = scene.addGroup(level, "room_b", at(kRoomBOrigin));
        Mesh wall = makeMesh("wall_room_b_east", "wall");
        appendWallWithDoorway(wall, z_wall_length, kStoreyWallHeight, kWallThickness,
                              north_inner_z - kDoorBcZ, kDoorWidth, kDoorHeight);
        scene.addMeshNode(room_b, std::move(wall),
                          atRotated(Vec3{kWallBcX, 0.0, north_inner_z} - kRoomBOrigin, kRotateY90));
        scene.addMeshNode(room_b, makeCrate("crate_1"), at(Vec3{14.0, 0.0, 3.0} - kRoomBOrigin));
        scene.addMeshNode(room_b, makeCrate("crate_2"), at(Vec3{13.0, 0.0, 14.0} - kRoomBOrigin));
    }

    // room_c: south-east room with the water pool; its north wall has a doorway
    // into room_d.
    {
        const int room_c = scene.addGroup(level, "room_c", at(kRoomCOrigin));
        const double wall_start_x = kWallBcX + half_wall;
        const double wall_length = kFootprintX - kWallThickness - wall_start_x;
        Mesh wall = makeMesh("wall_room_c_north", "wall");
        appendWallWithDoorway(wall, wall_length, kStoreyWallHeight, kWallThickness,
                              kDoorCdX - wall_start_x, kDoorWidth, kDoorHeight);
        scene.addMeshNode(room_c, std::move(wall),
                          at(Vec3{wall_start_x, 0.0, kWallCdZ} - kRoomCOrigin));

        Mesh pool = makeMesh("water_pool", "water");
        appendBox(pool, {-0.5 * kPoolSizeX, 0.0, -0.5 * kPoolSizeZ},
                  {0.5 * kPoolSizeX, kWaterTop, 0.5 * kPoolSizeZ});
        scene.addMeshNode(room_c, std::move(pool), at(kPoolCenter - kRoomCOrigin));
    }

    // room_d: north-east room with stairs up to a 1.0 m platform.
    {
        const int room_d = scene.addGroup(level, "room_d", at(kRoomDOrigin));
        Mesh stairs = makeMesh("stairs", "floor");
        for (int i = 0; i < kStepCount; ++i) {
            appendBox(stairs, {kStepRun * i, 0.0, 0.0},
                      {kStepRun * (i + 1), kStepRise * (i + 1), kStairsWidth});
        }
        scene.addMeshNode(room_d, std::move(stairs),
                          at(Vec3{kStairsStartX, 0.0, kStairsMinZ} - kRoomDOrigin));

        const double platform_min_x = kStairsStartX + kStepRun * kStepCount;
        const double platform_size_x = kFootprintX - kWallThickness - platform_min_x;
        Mesh platform = makeMesh("stairs_platform", "floor");
        appendBox(platform, {0.0, 0.0, 0.0}, {platform_size_x, kPlatformHeight, kPlatformDepthZ});
        scene.addMeshNode(room_d, std::move(platform),
                          at(Vec3{platform_min_x, 0.0, kPlatformMinZ} - kRoomDOrigin));
    }

    // Upper floor: node at (0, 3.0, balcony south edge); slab top is local y=0.
    {
        const Vec3 origin{0.0, kUpperFloorTop, kUpperMinZ};
        const int upper = scene.addGroup(level, "upper_floor", at(origin));
        const double depth = kUpperMaxZ - kUpperMinZ;
        Mesh slab = makeMesh("floor_upper", "floor");
        appendBox(slab, {kUpperMinX, -kSlabThickness, 0.0}, {kUpperMaxX, 0.0, depth});
        scene.addMeshNode(upper, std::move(slab));

        // Railing on the open south and east edges, with a gap where the ramp lands.
        const double ramp_min_x = kRampCenterX - 0.5 * kRampWidth;
        const double ramp_max_x = kRampCenterX + 0.5 * kRampWidth;
        Mesh rail_sw = makeMesh("railing_upper_south_west", "wall");
        appendBox(rail_sw, {kUpperMinX, 0.0, 0.0}, {ramp_min_x, kRailingHeight, kRailingThickness});
        scene.addMeshNode(upper, std::move(rail_sw));
        Mesh rail_se = makeMesh("railing_upper_south_east", "wall");
        appendBox(rail_se, {ramp_max_x, 0.0, 0.0}, {kUpperMaxX, kRailingHeight, kRailingThickness});
        scene.addMeshNode(upper, std::move(rail_se));
        Mesh rail_e = makeMesh("railing_upper_east", "wall");
        appendBox(rail_e, {kUpperMaxX - kRailingThickness, 0.0, kRailingThickness},
                  {kUpperMaxX, kRailingHeight, depth});
        scene.addMeshNode(upper, std::move(rail_e));
    }

    // Ramp: node at the top edge's centre (world (5, 0, 8)); wedge extends back
    // along -Z so its top edge is exactly at the slab's south edge and top.
    {
        Mesh ramp = makeMesh("ramp", "ramp");
        appendWedgeRisingZ(ramp, -0.5 * kRampWidth, 0.5 * kRampWidth, -kRampRun, 0.0, 0.0,
                           kUpperFloorTop);
        scene.addMeshNode(level, std::move(ramp), at({kRampCenterX, 0.0, kUpperMinZ}));
    }

    return scene;
}

// ----------------------------------------------------------------------------
// GLB (framed by the one glTF writer, lib/common/gltf_writer.h)
// ----------------------------------------------------------------------------

const std::array<const char*, 5> kGltfMaterialNames = {"floor", "wall", "ramp", "water",
                                                       "obstacle_crate"};
const std::array<std::array<double, 4>, 5> kGltfMaterialColors = {{
    {0.60, 0.58, 0.55, 1.0},
    {0.80, 0.78, 0.72, 1.0},
    {0.55, 0.45, 0.35, 1.0},
    {0.20, 0.40, 0.80, 1.0},
    {0.65, 0.45, 0.20, 1.0},
}};

constexpr int kGlTriangles = 4;

double roundTo4(double value) { return std::round(value * 10000.0) / 10000.0; }

int materialIndex(const std::string& name) {
    for (std::size_t i = 0; i < kGltfMaterialNames.size(); ++i) {
        if (name == kGltfMaterialNames[i]) {
            return static_cast<int>(i);
        }
    }
    throw std::runtime_error("unknown material: " + name);
}

std::vector<std::uint8_t> encodeGlb(const Scene& scene) {
    using Json = nlohmann::ordered_json;
    nav::GltfWriter writer;
    Json meshes = Json::array();

    for (const Mesh& mesh : scene.meshes()) {
        // POSITION (float32 VEC3, with exact float min/max) and indices (uint32 SCALAR).
        std::vector<float> positions;
        positions.reserve(mesh.positions.size() * 3);
        for (const Vec3& p : mesh.positions) {
            positions.push_back(static_cast<float>(p.x));
            positions.push_back(static_cast<float>(p.y));
            positions.push_back(static_cast<float>(p.z));
        }
        const std::size_t position_accessor = writer.addPositions(positions);
        const std::size_t index_accessor = writer.addIndices(mesh.indices);
        Json primitive{{"attributes", Json{{"POSITION", position_accessor}}},
                       {"indices", index_accessor},
                       {"material", materialIndex(mesh.material)},
                       {"mode", kGlTriangles}};
        meshes.push_back(Json{{"name", mesh.name}, {"primitives", Json::array({primitive})}});
    }

    Json nodes = Json::array();
    for (const Node& node : scene.nodes()) {
        Json entry{{"name", node.name}};
        if (!node.children.empty()) entry["children"] = node.children;
        if (node.mesh_index >= 0) entry["mesh"] = node.mesh_index;
        if (node.placement.rotation) {
            const Quat& q = *node.placement.rotation;
            entry["rotation"] = {q.x, q.y, q.z, q.w};
        }
        if (node.placement.translation) {
            // Rounded to 0.1 mm so the JSON shows clean decimals (layout is on a 5 cm grid).
            const Vec3& t = *node.placement.translation;
            entry["translation"] = {roundTo4(t.x), roundTo4(t.y), roundTo4(t.z)};
        }
        nodes.push_back(std::move(entry));
    }

    Json materials = Json::array();
    for (std::size_t i = 0; i < kGltfMaterialNames.size(); ++i) {
        const auto& c = kGltfMaterialColors[i];
        materials.push_back(
            Json{{"name", kGltfMaterialNames[i]},
                 {"pbrMetallicRoughness", Json{{"baseColorFactor", {c[0], c[1], c[2], c[3]}},
                                               {"metallicFactor", 0.0},
                                               {"roughnessFactor", 0.9}}}});
    }

    Json gltf{
        {"asset", Json{{"version", "2.0"}, {"generator", "navbake levelgen"}}},
        {"scene", 0},
        {"scenes", Json::array({Json{{"name", "indoor_two_floors"}, {"nodes", Json::array({0})}}})},
        {"nodes", std::move(nodes)},
        {"meshes", std::move(meshes)},
        {"materials", std::move(materials)}};
    return writer.finish(std::move(gltf));
}

// ----------------------------------------------------------------------------
// Terrain
// ----------------------------------------------------------------------------

constexpr int kTerrainCells = 60;  // 61 x 61 vertices
constexpr double kTerrainSpacing = 1.0;
constexpr double kTerrainMin = -30.0;  // X and Z span [-30, 30]

// Steep mound (flat-topped, ~3 m high, rising over 2 m).
constexpr double kMoundX = 14.0;
constexpr double kMoundZ = -12.0;
constexpr double kMoundHeight = 2.8;
constexpr double kMoundTopRadius = 1.2;
constexpr double kMoundFootRadius = 3.2;

// Plateau in the north-east (top ~3.6 m) with a west-facing cliff along
// x ~ 18 and a gentle slope down to the south.
constexpr double kCliffX = 18.0;
constexpr double kPlateauTop = 3.6;

// Pond: terrain flattened to kPondBottom inside kPondInnerRadius, blending
// back to the natural terrain at kPondOuterRadius; water slightly above.
constexpr double kPondX = -12.0;
constexpr double kPondZ = 10.0;
constexpr double kPondInnerRadius = 4.5;
constexpr double kPondOuterRadius = 9.0;
constexpr double kPondBottom = -1.0;
constexpr double kPondWaterY = -0.85;

// Integer mixing hash (own construction: multiply / xor-shift rounds).
std::uint32_t mixBits(std::uint32_t value) {
    value ^= value >> 15;
    value *= 0x2C1B3C6Du;
    value ^= value >> 12;
    value *= 0x297A2D39u;
    value ^= value >> 15;
    return value;
}

// Deterministic lattice value in [-1, 1].
double latticeValue(int ix, int iz, std::uint32_t seed) {
    std::uint32_t h = mixBits(seed ^ 0x9E3779B9u);
    h = mixBits(h ^ static_cast<std::uint32_t>(ix));
    h = mixBits(h + 0x632BE5ABu * static_cast<std::uint32_t>(iz));
    return static_cast<double>(h >> 8) * (2.0 / 16777216.0) - 1.0;
}

double quinticFade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

// Smooth value noise on a square lattice with spacing `cell`.
double valueNoise(double x, double z, double cell, std::uint32_t seed) {
    const double fx = x / cell;
    const double fz = z / cell;
    const double gx = std::floor(fx);
    const double gz = std::floor(fz);
    const int ix = static_cast<int>(gx);
    const int iz = static_cast<int>(gz);
    const double tx = quinticFade(fx - gx);
    const double tz = quinticFade(fz - gz);
    const double v00 = latticeValue(ix, iz, seed);
    const double v10 = latticeValue(ix + 1, iz, seed);
    const double v01 = latticeValue(ix, iz + 1, seed);
    const double v11 = latticeValue(ix + 1, iz + 1, seed);
    const double a = v00 + (v10 - v00) * tx;
    const double b = v01 + (v11 - v01) * tx;
    return a + (b - a) * tz;
}

double distance2d(double x0, double z0, double x1, double z1) {
    const double dx = x0 - x1;
    const double dz = z0 - z1;
    return std::sqrt(dx * dx + dz * dz);
}

double terrainHeight(double x, double z) {
    // Rolling hills: three octaves of value noise.
    double h = 1.0 + 1.6 * valueNoise(x, z, 16.0, 11u) + 0.6 * valueNoise(x, z, 8.0, 23u) +
               0.2 * valueNoise(x, z, 4.0, 37u);
    // Steep, flat-topped mound.
    h += kMoundHeight *
         smoothStep(kMoundFootRadius, kMoundTopRadius, distance2d(x, z, kMoundX, kMoundZ));
    // Plateau: cliff on its west side, gentle ramp down to the south.
    const double plateau = smoothStep(kCliffX - 0.6, kCliffX + 0.6, x) * smoothStep(2.0, 10.0, z);
    const double plateau_height = kPlateauTop + 0.3 * valueNoise(x, z, 6.0, 41u);
    h += (plateau_height - h) * plateau;
    // Pond depression.
    const double w =
        smoothStep(kPondOuterRadius, kPondInnerRadius, distance2d(x, z, kPondX, kPondZ));
    return h * (1.0 - w) + kPondBottom * w;
}

struct RockSpec {
    const char* name;
    double x;
    double z;
    Vec3 radii;
    double cos_a;
    double sin_a;
};

constexpr std::array<RockSpec, 4> kRocks = {{
    {"rock_1", -6.0, -8.0, {1.2, 1.4, 0.9}, 1.0, 0.0},
    {"rock_2", 4.0, 14.0, {1.5, 1.2, 1.0}, 0.8, 0.6},
    {"rock_3", -20.0, -18.0, {0.9, 1.6, 0.9}, 0.6, 0.8},
    {"rock_4", 8.0, 2.0, {1.0, 1.0, 1.4}, 1.0, 0.0},
}};
constexpr double kRockCenterLift = 0.2;  // centre above the ground at its XZ

std::vector<Mesh> buildTerrain() {
    std::vector<Mesh> meshes;
    const int verts_per_row = kTerrainCells + 1;
    auto gridX = [](int i) { return kTerrainMin + kTerrainSpacing * i; };

    std::vector<double> heights(static_cast<std::size_t>(verts_per_row * verts_per_row));
    for (int j = 0; j < verts_per_row; ++j) {
        for (int i = 0; i < verts_per_row; ++i) {
            heights[static_cast<std::size_t>(j * verts_per_row + i)] =
                terrainHeight(gridX(i), gridX(j));
        }
    }
    auto heightAtGrid = [&](int i, int j) {
        return heights[static_cast<std::size_t>(j * verts_per_row + i)];
    };

    // Ground: alternating diagonals, every triangle facing up (+Y).
    Mesh ground = makeMesh("terrain_ground", "grass");
    for (int j = 0; j < verts_per_row; ++j) {
        for (int i = 0; i < verts_per_row; ++i) {
            ground.addVertex({gridX(i), heightAtGrid(i, j), gridX(j)});
        }
    }
    const Vec3 up{0.0, 1.0, 0.0};
    for (int j = 0; j < kTerrainCells; ++j) {
        for (int i = 0; i < kTerrainCells; ++i) {
            const auto v00 = static_cast<std::uint32_t>(j * verts_per_row + i);
            const std::uint32_t v10 = v00 + 1;
            const auto v01 = static_cast<std::uint32_t>(v00 + verts_per_row);
            const std::uint32_t v11 = v01 + 1;
            if ((i + j) % 2 == 0) {
                ground.addTriangle(v00, v10, v11, up);
                ground.addTriangle(v00, v11, v01, up);
            } else {
                ground.addTriangle(v00, v10, v01, up);
                ground.addTriangle(v10, v11, v01, up);
            }
        }
    }
    meshes.push_back(std::move(ground));

    // Rocks: stretched octahedra poking out of the ground.
    for (const RockSpec& rock : kRocks) {
        Mesh mesh = makeMesh(rock.name, "obstacle_rock");
        const Vec3 center{rock.x, terrainHeight(rock.x, rock.z) + kRockCenterLift, rock.z};
        appendOctahedron(mesh, center, rock.radii, rock.cos_a, rock.sin_a);
        meshes.push_back(std::move(mesh));
    }

    // Pond: flat patch made of the grid cells near the pond centre whose
    // corners all lie below the water surface.
    Mesh pond = makeMesh("pond", "water");
    std::vector<std::int64_t> pond_vertex(heights.size(), -1);
    auto pondVertex = [&](int i, int j) {
        const auto key = static_cast<std::size_t>(j * verts_per_row + i);
        if (pond_vertex[key] < 0) {
            pond_vertex[key] = pond.addVertex({gridX(i), kPondWaterY, gridX(j)});
        }
        return static_cast<std::uint32_t>(pond_vertex[key]);
    };
    for (int j = 0; j < kTerrainCells; ++j) {
        for (int i = 0; i < kTerrainCells; ++i) {
            const double cx = gridX(i) + 0.5 * kTerrainSpacing;
            const double cz = gridX(j) + 0.5 * kTerrainSpacing;
            if (distance2d(cx, cz, kPondX, kPondZ) > kPondOuterRadius) continue;
            const double limit = kPondWaterY - 0.02;
            if (heightAtGrid(i, j) >= limit || heightAtGrid(i + 1, j) >= limit ||
                heightAtGrid(i, j + 1) >= limit || heightAtGrid(i + 1, j + 1) >= limit) {
                continue;
            }
            pond.addQuad(pondVertex(i, j), pondVertex(i + 1, j), pondVertex(i + 1, j + 1),
                         pondVertex(i, j + 1), up);
        }
    }
    meshes.push_back(std::move(pond));
    return meshes;
}

// Fixed-format number: "%.4f", with negative zero normalised.
std::string formatNumber(double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.4f", value);
    std::string result(text);
    if (result == "-0.0000") result = "0.0000";
    return result;
}

std::string encodeObj(const std::vector<Mesh>& meshes, const std::string& mtl_name,
                      const std::string& title) {
    std::string out;
    out += "# navbake levelgen: " + title + " (Y up, metres)\n";
    out += "mtllib " + mtl_name + "\n";
    std::size_t vertex_base = 1;
    for (const Mesh& mesh : meshes) {
        out += "o " + mesh.name + "\n";
        out += "usemtl " + mesh.material + "\n";
        for (const Vec3& p : mesh.positions) {
            out +=
                "v " + formatNumber(p.x) + " " + formatNumber(p.y) + " " + formatNumber(p.z) + "\n";
        }
        for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
            out += "f " + std::to_string(vertex_base + mesh.indices[t]) + " " +
                   std::to_string(vertex_base + mesh.indices[t + 1]) + " " +
                   std::to_string(vertex_base + mesh.indices[t + 2]) + "\n";
        }
        for (std::size_t l = 0; l + 1 < mesh.lines.size(); l += 2) {
            out += "l " + std::to_string(vertex_base + mesh.lines[l]) + " " +
                   std::to_string(vertex_base + mesh.lines[l + 1]) + "\n";
        }
        vertex_base += mesh.positions.size();
    }
    return out;
}

std::string encodeMtl() {
    return "# navbake levelgen: terrain materials\n"
           "newmtl grass\n"
           "Kd 0.3500 0.5500 0.2500\n"
           "\n"
           "newmtl obstacle_rock\n"
           "Kd 0.4500 0.4300 0.4000\n"
           "\n"
           "newmtl water\n"
           "Kd 0.2000 0.4000 0.8000\n";
}

// ----------------------------------------------------------------------------
// Links course (OBJ): what links are for
// ----------------------------------------------------------------------------
//
// links_course.obj — a 48 m x 28 m floor (X in [0,48], Z in [0,28], top Y=0) with the places an
//   agent needs more than walking, so `navbake build` shows generated and authored links:
//   * a 2.4 m wide, 12 m long walkway 3 m up (no stairs): reached by `ladder_walkway`, a ladder
//     box at its west end; one drops off its sides (generated drops);
//   * platforms 1.2 m and 2.0 m high: drop off them (the 1.2 m one both ways with a 1.3 m
//     jump), no other way up;
//   * a 6 x 6 m pit 2.4 m deep cut into the floor: one drops in, and `link_teleport_pit`, a line
//     from its floor to the floor outside, is the only way out;
//   * stairs up to a 1 m platform, then platforms across gaps of 1.5 m (jumped) and 3.0 m (too
//     wide: the last platform stays an island);
//   * a room (walls 3 m high) whose only doorway is closed by `door_room`: the door link.
// links_course.mtl — its materials.

Mesh boxMesh(std::string name, std::string material, Vec3 lo, Vec3 hi) {
    Mesh mesh = makeMesh(std::move(name), std::move(material));
    appendBox(mesh, lo, hi);
    return mesh;
}

std::vector<Mesh> buildLinksCourse() {
    std::vector<Mesh> meshes;
    // The floor, cut around the pit ([16, 22] x [12, 18]), and the pit.
    Mesh floor = makeMesh("floor", "floor");
    appendBox(floor, {0.0, -0.2, 0.0}, {16.0, 0.0, 28.0});
    appendBox(floor, {22.0, -0.2, 0.0}, {48.0, 0.0, 28.0});
    appendBox(floor, {16.0, -0.2, 0.0}, {22.0, 0.0, 12.0});
    appendBox(floor, {16.0, -0.2, 18.0}, {22.0, 0.0, 28.0});
    meshes.push_back(std::move(floor));
    Mesh pit = makeMesh("pit", "floor");
    appendBox(pit, {16.0, -2.6, 12.0}, {22.0, -2.4, 18.0});
    appendBox(pit, {15.8, -2.4, 12.0}, {16.0, -0.2, 18.0});
    appendBox(pit, {22.0, -2.4, 12.0}, {22.2, -0.2, 18.0});
    appendBox(pit, {16.0, -2.4, 11.8}, {22.0, -0.2, 12.0});
    appendBox(pit, {16.0, -2.4, 18.0}, {22.0, -0.2, 18.2});
    meshes.push_back(std::move(pit));
    meshes.push_back(boxMesh("walkway", "floor", {2.0, 2.8, 4.0}, {14.0, 3.0, 6.4}));
    meshes.push_back(boxMesh("ladder_walkway", "wall", {1.7, 0.0, 4.8}, {2.0, 3.0, 5.6}));
    meshes.push_back(boxMesh("platform_low", "wall", {16.0, 0.0, 2.0}, {20.0, 1.2, 6.0}));
    meshes.push_back(boxMesh("platform_high", "wall", {23.0, 0.0, 2.0}, {27.0, 2.0, 6.0}));
    // Stairs (five 0.2 m steps, 0.35 m runs) up the south side of the first 1 m platform.
    Mesh stairs = makeMesh("stairs", "floor");
    for (int k = 0; k < 5; ++k) {
        const double z0 = 6.0 + 0.35 * (4 - k);
        appendBox(stairs, {32.5, 0.0, z0}, {35.5, 0.2 * (k + 1), z0 + 0.35});
    }
    meshes.push_back(std::move(stairs));
    meshes.push_back(boxMesh("platform_gap_a", "wall", {32.0, 0.0, 2.0}, {36.0, 1.0, 6.0}));
    meshes.push_back(boxMesh("platform_gap_b", "wall", {37.5, 0.0, 2.0}, {41.5, 1.0, 6.0}));
    meshes.push_back(boxMesh("platform_gap_c", "wall", {44.5, 0.0, 2.0}, {48.0, 1.0, 6.0}));
    // The room: walls along z = 12 (doorway x in [38, 40]) and x = 30, door closing the doorway.
    Mesh walls = makeMesh("room_walls", "wall");
    appendBox(walls, {30.0, 0.0, 11.9}, {38.0, 3.0, 12.1});
    appendBox(walls, {40.0, 0.0, 11.9}, {48.0, 3.0, 12.1});
    appendBox(walls, {38.0, 2.4, 11.9}, {40.0, 3.0, 12.1});
    appendBox(walls, {29.9, 0.0, 12.1}, {30.1, 3.0, 28.0});
    meshes.push_back(std::move(walls));
    meshes.push_back(boxMesh("door_room", "wall", {38.0, 0.0, 11.9}, {40.0, 2.4, 12.1}));
    // A teleport out of the pit: a line from its floor to the floor by the walkway.
    Mesh teleport = makeMesh("link_teleport_pit", "wall");
    teleport.addVertex({19.0, -2.4, 15.0});
    teleport.addVertex({8.0, 0.0, 14.0});
    teleport.lines = {0, 1};
    meshes.push_back(std::move(teleport));
    return meshes;
}

// ----------------------------------------------------------------------------
// Designer yard (OBJ): the README's walk-through of designers' control
// ----------------------------------------------------------------------------
//
// designer_yard.obj — a 30 m x 20 m yard (top Y=0) with a shed (walls 3 m, a flat walkable roof at
//   3.2 m, a 2 m door on its south side), a pond (tagged water by its name), a crate, a sky
//   platform 50 m away, and the designer's markers as plain boxes named by the built-in marker
//   rules: nav_bounds_yard (bake bounds), nav_seed_spawn, nav_volume_mud_1 (becomes mud),
//   nav_volume_forbid_pit (unwalkable), four nav_poi_<kind>_* points of interest (one on the
//   roof, which the seed does not reach) and four nav_waypoint_* boxes (Dirichlet domains).

std::vector<Mesh> buildDesignerYard() {
    std::vector<Mesh> meshes;
    meshes.push_back(boxMesh("ground", "floor", {0.0, -0.2, 0.0}, {30.0, 0.0, 20.0}));
    meshes.push_back(boxMesh("pond_water", "floor", {4.0, -0.2, 12.0}, {10.0, 0.02, 18.0}));
    Mesh shed = makeMesh("shed_walls", "wall");
    appendBox(shed, {16.0, 0.0, 2.0}, {26.0, 3.0, 2.3});
    appendBox(shed, {16.0, 0.0, 8.7}, {21.0, 3.0, 9.0});
    appendBox(shed, {23.0, 0.0, 8.7}, {26.0, 3.0, 9.0});
    appendBox(shed, {16.0, 0.0, 2.0}, {16.3, 3.0, 9.0});
    appendBox(shed, {25.7, 0.0, 2.0}, {26.0, 3.0, 9.0});
    meshes.push_back(std::move(shed));
    meshes.push_back(boxMesh("shed_roof", "floor", {15.8, 3.0, 1.8}, {26.2, 3.2, 9.2}));
    meshes.push_back(boxMesh("crate_1", "wall", {12.0, 0.0, 4.0}, {13.2, 1.2, 5.2}));
    meshes.push_back(boxMesh("sky_platform", "floor", {60.0, 20.0, 60.0}, {70.0, 20.5, 70.0}));
    // The designer's markers (proxies: navbake drops their triangles).
    meshes.push_back(boxMesh("nav_bounds_yard", "wall", {-0.5, -1.0, -0.5}, {30.5, 5.0, 20.5}));
    meshes.push_back(boxMesh("nav_seed_spawn", "wall", {1.8, 0.0, 1.8}, {2.2, 0.4, 2.2}));
    meshes.push_back(boxMesh("nav_volume_mud_1", "wall", {2.0, -0.5, 3.0}, {8.0, 0.5, 8.0}));
    meshes.push_back(
        boxMesh("nav_volume_forbid_pit", "wall", {24.0, -0.5, 13.0}, {29.0, 0.5, 19.0}));
    meshes.push_back(
        boxMesh("nav_poi_objective_flag", "wall", {27.8, 0.0, 10.8}, {28.2, 1.0, 11.2}));
    meshes.push_back(boxMesh("nav_poi_health_1", "wall", {20.8, 0.0, 5.3}, {21.2, 0.3, 5.7}));
    meshes.push_back(boxMesh("nav_poi_health_2", "wall", {3.0, 0.0, 18.5}, {3.4, 0.3, 18.9}));
    meshes.push_back(boxMesh("nav_poi_secret_roof", "wall", {20.0, 3.2, 5.0}, {20.4, 3.5, 5.4}));
    meshes.push_back(boxMesh("nav_waypoint_yard", "wall", {5.8, 0.0, 5.8}, {6.2, 0.2, 6.2}));
    meshes.push_back(boxMesh("nav_waypoint_shed", "wall", {20.8, 0.0, 3.8}, {21.2, 0.2, 4.2}));
    meshes.push_back(boxMesh("nav_waypoint_east", "wall", {27.8, 0.0, 5.8}, {28.2, 0.2, 6.2}));
    meshes.push_back(boxMesh("nav_waypoint_south", "wall", {14.8, 0.0, 15.8}, {15.2, 0.2, 16.2}));
    return meshes;
}

// ----------------------------------------------------------------------------
// Town (OBJ, for benchmarks; `levelgen --town N FILE.obj`, not a sample level)
// ----------------------------------------------------------------------------
//
// An N x N grid of 40 x 40 m blocks with 10 m streets on one ground slab. Each block holds four
// 15 x 15 m lots; each lot a building (footprint 8..14 m, height 3, 4.5, 6, 9 or 12 m, flat roof),
// half of them with a 3 m annex on one side (a roof one can drop onto and from), some blocks a
// 1.2 m plaza with stairs, some streets a 4 m high footbridge between blocks. Every choice comes
// from integer hashing of the lot's indices, so the file is the same on every run.
std::uint32_t townHash(int a, int b, int c) {
    std::uint32_t h = mixBits(0x7A31C5E3u ^ static_cast<std::uint32_t>(a));
    h = mixBits(h + 0x9E3779B9u * static_cast<std::uint32_t>(b));
    return mixBits(h ^ (0x85EBCA6Bu * static_cast<std::uint32_t>(c)));
}

// Blocks and streets of the town and the city, and their buildings' heights.
constexpr double kBlock = 40.0, kStreet = 10.0, kPitch = kBlock + kStreet;
constexpr double kBuildingHeights[5] = {3.0, 4.5, 6.0, 9.0, 12.0};

// Lot `lot` (0..3) of block (bx, bz) whose corner is (x0, z0): a building's footprint, height and
// whether it has a 3 m annex on its east side.
struct Lot {
    double x = 0, z = 0, w = 0, d = 0, height = 0;
    bool annex = false;
};
Lot townLot(int bx, int bz, int lot, double x0, double z0) {
    const std::uint32_t h = townHash(bx, bz, lot);
    Lot l;
    l.x = x0 + (lot % 2) * 20.0 + 2.5;
    l.z = z0 + (lot / 2) * 20.0 + 2.5;
    l.w = 8.0 + double(h % 7);
    l.d = 8.0 + double((h >> 3) % 7);
    l.height = kBuildingHeights[(h >> 6) % 5];
    l.annex = (h >> 9) % 2 == 0 && l.height > 4.0;
    return l;
}

std::vector<Mesh> buildTown(int n) {
    std::vector<Mesh> meshes;
    const double size = n * kPitch + kStreet;
    meshes.push_back(boxMesh("ground", "floor", {0.0, -0.2, 0.0}, {size, 0.0, size}));
    Mesh buildings = makeMesh("buildings", "wall");
    Mesh plazas = makeMesh("plazas", "floor");
    Mesh bridges = makeMesh("footbridges", "floor");
    for (int bx = 0; bx < n; ++bx) {
        for (int bz = 0; bz < n; ++bz) {
            const double x0 = kStreet + bx * kPitch, z0 = kStreet + bz * kPitch;
            if (townHash(bx, bz, 99) % 4 == 0) {
                // A plaza: a 1.2 m platform over the whole block, stairs on its south side.
                appendBox(plazas, {x0, 0.0, z0}, {x0 + kBlock, 1.2, z0 + kBlock});
                for (int k = 0; k < 5; ++k) {  // five 0.2 m steps down to the street
                    const double z = z0 - 0.35 * (k + 1);
                    appendBox(plazas, {x0 + 16.0, 0.0, z}, {x0 + 24.0, 1.0 - 0.2 * k, z + 0.35});
                }
                continue;
            }
            for (int k = 0; k < 4; ++k) {
                const Lot l = townLot(bx, bz, k, x0, z0);
                appendBox(buildings, {l.x, 0.0, l.z}, {l.x + l.w, l.height, l.z + l.d});
                if (l.annex)  // a 3 m annex on the east side
                    appendBox(buildings, {l.x + l.w, 0.0, l.z}, {l.x + l.w + 4.0, 3.0, l.z + l.d});
            }
            // A footbridge 4 m up over the street east of the block, to the next block.
            if (bx + 1 < n && townHash(bx, bz, 7) % 3 == 0) {
                const double zc = z0 + 18.0;
                appendBox(bridges, {x0 + kBlock - 2.0, 3.8, zc},
                          {x0 + kPitch + 2.0, 4.0, zc + 2.4});
            }
        }
    }
    meshes.push_back(std::move(buildings));
    meshes.push_back(std::move(plazas));
    meshes.push_back(std::move(bridges));
    return meshes;
}

std::string encodeLinksCourseMtl() {
    return "# navbake levelgen: links course materials\n"
           "newmtl floor\n"
           "Kd 0.6000 0.5800 0.5500\n"
           "\n"
           "newmtl wall\n"
           "Kd 0.8000 0.7800 0.7200\n";
}

// ----------------------------------------------------------------------------
// 3D voxel maze (MovingAI .3dmap / .3dscen)
// ----------------------------------------------------------------------------
//
// maze3d.3dmap — a hollow 41 x 25 x 41 voxel maze for flying agents: three
//   storeys, each a different 10 x 10-cell 2D maze (3-voxel corridors, 1-voxel
//   walls, 7 voxels of headroom) carved by a depth-first walk with a fixed-seed
//   PRNG plus a few extra openings that make loops; two 3 x 3 shafts through
//   each floor slab link the storeys, so most routes climb and descend. One
//   cell of the bottom storey is a sealed chamber (its own component). A
//   1-voxel shell encloses everything.
// maze3d.3dscen — scenarios between random free voxels of the same component,
//   optimal lengths from Dijkstra under the MovingAI 3D movement rule: a move to
//   any of the 26 neighbours when every voxel of the box the two voxels span is
//   free; cost 1, sqrt(2) or sqrt(3).

constexpr int kMazeCells = 10;                          // cells per side
constexpr int kMazeCorridor = 3;                        // cell interior [voxels]
constexpr int kMazePitch = kMazeCorridor + 1;           // cell + one wall
constexpr int kMazeSide = kMazeCells * kMazePitch + 1;  // 41 voxels (X and Z)
constexpr int kMazeStoreys = 3;
constexpr int kMazeHeadroom = 7;                                     // air voxels per storey
constexpr int kMazeHeight = kMazeStoreys * (kMazeHeadroom + 1) + 1;  // 25 voxels
constexpr int kMazeShaftsPerSlab = 2;
constexpr int kMazeExtraOpenings = 6;  // loops per storey
constexpr int kMazeSealedCellX = 6;    // bottom storey
constexpr int kMazeSealedCellZ = 3;
constexpr int kMazeScenarios = 100;
constexpr std::uint64_t kMazeSeed = 0x6D617A6533640001ull;

// Own PRNG: 64-bit LCG (Knuth's MMIX constants) with an xor-shift/multiply
// output mix; only its exact integer arithmetic matters for reproducibility.
class MazeRandom {
public:
    explicit MazeRandom(std::uint64_t seed) : state_(seed) {}
    std::uint32_t next() {
        state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
        std::uint64_t x = state_;
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 32;
        return static_cast<std::uint32_t>(x);
    }
    // Uniform enough in [0, n) for n far below 2^32.
    std::uint32_t below(std::uint32_t n) { return next() % n; }

private:
    std::uint64_t state_;
};

struct VoxelVolume {
    int size_x = 0;
    int size_y = 0;
    int size_z = 0;
    std::vector<std::uint8_t> blocked;  // index (y * size_z + z) * size_x + x

    std::size_t index(int x, int y, int z) const {
        return (static_cast<std::size_t>(y) * size_z + z) * size_x + x;
    }
    bool inside(int x, int y, int z) const {
        return x >= 0 && y >= 0 && z >= 0 && x < size_x && y < size_y && z < size_z;
    }
    bool isFree(int x, int y, int z) const {
        return inside(x, y, z) && blocked[index(x, y, z)] == 0;
    }
    void fill(int x0, int x1, int y0, int y1, int z0, int z1, std::uint8_t value) {
        for (int y = y0; y < y1; ++y)
            for (int z = z0; z < z1; ++z)
                for (int x = x0; x < x1; ++x) blocked[index(x, y, z)] = value;
    }
};

// One storey's 2D maze: which walls between neighbouring cells are open.
struct Maze2D {
    std::vector<std::uint8_t> open_east;   // cell (i, j) <-> (i + 1, j)
    std::vector<std::uint8_t> open_south;  // cell (i, j) <-> (i, j + 1)
};

// An n x n maze carved depth-first from cell (0, 0), then `extra_openings` walls opened for
// loops; `sealed` (a cell index, or -1) is never entered.
Maze2D carveMaze(MazeRandom& random, int n, int sealed, int extra_openings) {
    const bool seal_cell = sealed >= 0;
    Maze2D maze;
    maze.open_east.assign(static_cast<std::size_t>(n * n), 0);
    maze.open_south.assign(static_cast<std::size_t>(n * n), 0);
    std::vector<std::uint8_t> visited(static_cast<std::size_t>(n * n), 0);
    if (seal_cell) visited[static_cast<std::size_t>(sealed)] = 1;
    // Iterative depth-first carving from cell (0, 0).
    std::vector<int> stack{0};
    visited[0] = 1;
    while (!stack.empty()) {
        const int cell = stack.back();
        const int i = cell % n;
        const int j = cell / n;
        int candidates[4];
        int count = 0;
        if (i + 1 < n && !visited[static_cast<std::size_t>(cell + 1)])
            candidates[count++] = cell + 1;
        if (i > 0 && !visited[static_cast<std::size_t>(cell - 1)]) candidates[count++] = cell - 1;
        if (j + 1 < n && !visited[static_cast<std::size_t>(cell + n)])
            candidates[count++] = cell + n;
        if (j > 0 && !visited[static_cast<std::size_t>(cell - n)]) candidates[count++] = cell - n;
        if (count == 0) {
            stack.pop_back();
            continue;
        }
        const int next = candidates[random.below(static_cast<std::uint32_t>(count))];
        if (next == cell + 1) maze.open_east[static_cast<std::size_t>(cell)] = 1;
        if (next == cell - 1) maze.open_east[static_cast<std::size_t>(next)] = 1;
        if (next == cell + n) maze.open_south[static_cast<std::size_t>(cell)] = 1;
        if (next == cell - n) maze.open_south[static_cast<std::size_t>(next)] = 1;
        visited[static_cast<std::size_t>(next)] = 1;
        stack.push_back(next);
    }
    // A few extra openings make loops (never into the sealed cell).
    for (int k = 0; k < extra_openings;) {
        const int cell = static_cast<int>(random.below(static_cast<std::uint32_t>(n * n)));
        const bool east = (random.next() & 1u) != 0;
        const int i = cell % n;
        const int j = cell / n;
        if (east ? i + 1 >= n : j + 1 >= n) continue;
        const int other = east ? cell + 1 : cell + n;
        if (seal_cell && (cell == sealed || other == sealed)) continue;
        std::uint8_t& wall =
            (east ? maze.open_east : maze.open_south)[static_cast<std::size_t>(cell)];
        if (wall) continue;
        wall = 1;
        ++k;
    }
    return maze;
}

VoxelVolume buildMaze3d() {
    VoxelVolume volume;
    volume.size_x = kMazeSide;
    volume.size_y = kMazeHeight;
    volume.size_z = kMazeSide;
    volume.blocked.assign(static_cast<std::size_t>(volume.size_x) * volume.size_y * volume.size_z,
                          1);
    MazeRandom random(kMazeSeed);
    const int n = kMazeCells;
    auto cellMin = [](int c) { return 1 + c * kMazePitch; };  // first interior voxel of a cell
    for (int storey = 0; storey < kMazeStoreys; ++storey) {
        const Maze2D maze =
            carveMaze(random, n, storey == 0 ? kMazeSealedCellZ * n + kMazeSealedCellX : -1,
                      kMazeExtraOpenings);
        const int y0 = 1 + storey * (kMazeHeadroom + 1);
        const int y1 = y0 + kMazeHeadroom;
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                const int x = cellMin(i);
                const int z = cellMin(j);
                volume.fill(x, x + kMazeCorridor, y0, y1, z, z + kMazeCorridor, 0);
                const auto cell = static_cast<std::size_t>(j * n + i);
                if (maze.open_east[cell])  // the wall column x + 3, along the cell's Z extent
                    volume.fill(x + kMazeCorridor, x + kMazePitch, y0, y1, z, z + kMazeCorridor, 0);
                if (maze.open_south[cell])
                    volume.fill(x, x + kMazeCorridor, y0, y1, z + kMazeCorridor, z + kMazePitch, 0);
            }
        }
    }
    // Shafts: a cell's interior cut through the slab above a storey.
    for (int slab = 0; slab + 1 < kMazeStoreys; ++slab) {
        const int y = (slab + 1) * (kMazeHeadroom + 1);
        for (int k = 0; k < kMazeShaftsPerSlab;) {
            const int i = static_cast<int>(random.below(static_cast<std::uint32_t>(n)));
            const int j = static_cast<int>(random.below(static_cast<std::uint32_t>(n)));
            if (slab == 0 && i == kMazeSealedCellX && j == kMazeSealedCellZ) continue;
            const int x = cellMin(i);
            const int z = cellMin(j);
            if (volume.isFree(x, y, z)) continue;  // already a shaft
            volume.fill(x, x + kMazeCorridor, y, y + 1, z, z + kMazeCorridor, 0);
            ++k;
        }
    }
    return volume;
}

// The 26 moves with the neighbourhood offsets each needs free (the box the
// two voxels span, without the start) and its cost.
struct MazeMove {
    int dx, dy, dz;
    double cost;
};

std::vector<MazeMove> mazeMoves() {
    std::vector<MazeMove> moves;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx) {
                const int axes = (dx != 0) + (dy != 0) + (dz != 0);
                if (axes == 0) continue;
                moves.push_back({dx, dy, dz, std::sqrt(static_cast<double>(axes))});
            }
    return moves;
}

bool moveAllowed(const VoxelVolume& v, int x, int y, int z, const MazeMove& m) {
    for (int by = 0; by <= 1; ++by)
        for (int bz = 0; bz <= 1; ++bz)
            for (int bx = 0; bx <= 1; ++bx)
                if (!v.isFree(x + bx * m.dx, y + by * m.dy, z + bz * m.dz)) return false;
    return true;
}

// Shortest path length from `start` to `goal` (voxel indices), or -1.
double mazeShortestPath(const VoxelVolume& v, const std::vector<MazeMove>& moves, std::size_t start,
                        std::size_t goal) {
    const double kUnreached = std::numeric_limits<double>::infinity();
    std::vector<double> distance(v.blocked.size(), kUnreached);
    using Entry = std::pair<double, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
    distance[start] = 0.0;
    open.push({0.0, start});
    const auto sx = static_cast<std::size_t>(v.size_x);
    const auto sz = static_cast<std::size_t>(v.size_z);
    while (!open.empty()) {
        const auto [d, cell] = open.top();
        open.pop();
        if (d > distance[cell]) continue;
        if (cell == goal) return d;
        const int x = static_cast<int>(cell % sx);
        const int z = static_cast<int>((cell / sx) % sz);
        const int y = static_cast<int>(cell / (sx * sz));
        for (const MazeMove& m : moves) {
            if (!moveAllowed(v, x, y, z, m)) continue;
            const std::size_t next = v.index(x + m.dx, y + m.dy, z + m.dz);
            const double nd = d + m.cost;
            if (nd < distance[next]) {
                distance[next] = nd;
                open.push({nd, next});
            }
        }
    }
    return -1.0;
}

// Component label per voxel (-1 for blocked) under the movement rule.
std::vector<int> mazeComponents(const VoxelVolume& v, const std::vector<MazeMove>& moves) {
    std::vector<int> label(v.blocked.size(), -1);
    int next_label = 0;
    std::vector<std::size_t> queue;
    const auto sx = static_cast<std::size_t>(v.size_x);
    const auto sz = static_cast<std::size_t>(v.size_z);
    for (std::size_t seed = 0; seed < v.blocked.size(); ++seed) {
        if (v.blocked[seed] || label[seed] >= 0) continue;
        label[seed] = next_label;
        queue.assign(1, seed);
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const std::size_t cell = queue[head];
            const int x = static_cast<int>(cell % sx);
            const int z = static_cast<int>((cell / sx) % sz);
            const int y = static_cast<int>(cell / (sx * sz));
            for (const MazeMove& m : moves) {
                if (!moveAllowed(v, x, y, z, m)) continue;
                const std::size_t next = v.index(x + m.dx, y + m.dy, z + m.dz);
                if (label[next] >= 0) continue;
                label[next] = next_label;
                queue.push_back(next);
            }
        }
        ++next_label;
    }
    return label;
}

std::string encodeVoxelMap(const VoxelVolume& v) {
    std::string out = "voxel " + std::to_string(v.size_x) + " " + std::to_string(v.size_y) + " " +
                      std::to_string(v.size_z) + "\n";
    for (int y = 0; y < v.size_y; ++y)
        for (int z = 0; z < v.size_z; ++z)
            for (int x = 0; x < v.size_x; ++x)
                if (v.blocked[v.index(x, y, z)])
                    out += std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(z) +
                           "\n";
    return out;
}

std::string formatFixed8(double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.8f", value);
    return text;
}

std::string encodeMazeScenarios(const VoxelVolume& v, const std::string& map_name) {
    const std::vector<MazeMove> moves = mazeMoves();
    const std::vector<int> label = mazeComponents(v, moves);
    std::vector<std::size_t> free_cells;
    for (std::size_t i = 0; i < v.blocked.size(); ++i)
        if (!v.blocked[i]) free_cells.push_back(i);
    if (free_cells.size() < 2) throw std::runtime_error("maze3d: fewer than two free voxels");
    const auto sx = static_cast<std::size_t>(v.size_x);
    const auto sz = static_cast<std::size_t>(v.size_z);
    auto coords = [&](std::size_t cell) {
        return std::array<int, 3>{static_cast<int>(cell % sx), static_cast<int>(cell / (sx * sz)),
                                  static_cast<int>((cell / sx) % sz)};
    };
    MazeRandom random(kMazeSeed ^ 0x5C3E0000ull);
    std::string out = "version 1\n" + map_name + "\n";
    for (int k = 0; k < kMazeScenarios;) {
        const auto count = static_cast<std::uint32_t>(free_cells.size());
        const std::size_t start = free_cells[random.below(count)];
        const std::size_t goal = free_cells[random.below(count)];
        if (start == goal || label[start] != label[goal]) continue;
        const double length = mazeShortestPath(v, moves, start, goal);
        if (length < 0.0) throw std::runtime_error("maze3d: same component but no path");
        const auto s = coords(start);
        const auto g = coords(goal);
        const double dx = g[0] - s[0];
        const double dy = g[1] - s[1];
        const double dz = g[2] - s[2];
        const double straight = std::sqrt(dx * dx + dy * dy + dz * dz);
        out += std::to_string(s[0]) + " " + std::to_string(s[1]) + " " + std::to_string(s[2]) +
               " " + std::to_string(g[0]) + " " + std::to_string(g[1]) + " " +
               std::to_string(g[2]) + " " + formatFixed8(length) + " " +
               formatFixed8(length / straight) + "\n";
        ++k;
    }
    return out;
}

void writeFile(const std::filesystem::path& path, const void* data, std::size_t size) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) throw std::runtime_error("cannot open for writing: " + path.string());
    file.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!file) throw std::runtime_error("write failed: " + path.string());
    std::cout << "wrote " << path.string() << " (" << size << " bytes)\n";
}

// ----------------------------------------------------------------------------
// City and tower (OBJ, large benchmark levels; not sample levels)
// ----------------------------------------------------------------------------
//
// `levelgen --city N FILE.obj`: N x N blocks of 40 m with 10 m streets on rolling terrain (a
// height grid of 0.5 m cells: 2 x (100 N + 20)^2 triangles, most of the file). Per block: four
// buildings (footprints 8..14 m, 3..12 m high, half with a 3 m annex) sunk into the terrain under
// them, or a 1.2 m plaza with steps; along the streets kerbs (0.15 m above the ground, in 5 m
// pieces that follow it), crates (0.5 m: within an agent's climb; 1.2 m: not) and rocks (low ones
// within climb, untagged, so a baker decides; the "obstacle_rock" material on the tall ones);
// some streets have a footbridge 4 m over them with ramps down to the ground at both ends.
// Triangles: N = 4: 0.36 M, 8: 1.4 M, 12: 3.0 M.
//
// `levelgen --tower N FLOORS FILE.obj`: a multi-storey maze, N x N cells of 4 m per storey,
// 0.25 m walls 3 m high, 0.3 m slabs; each storey its own maze (loops included), joined to the
// next by ramps (a cell-long 39 degree wedge under a hole in the slab above) in a few cells.

double cityGround(double x, double z) {
    return 2.5 * valueNoise(x, z, 70.0, 101u) + 0.8 * valueNoise(x, z, 17.0, 103u) +
           0.12 * valueNoise(x, z, 3.0, 107u);
}

// The lowest and highest ground over [x0, x1] x [z0, z1] (sampled every metre and at the ends).
std::pair<double, double> groundRange(double x0, double z0, double x1, double z1) {
    double lo = 1e300, hi = -1e300;
    const int nx = 1 + static_cast<int>(std::ceil(x1 - x0)),
              nz = 1 + static_cast<int>(std::ceil(z1 - z0));
    for (int i = 0; i <= nx; ++i) {
        for (int k = 0; k <= nz; ++k) {
            const double h = cityGround(x0 + (x1 - x0) * i / nx, z0 + (z1 - z0) * k / nz);
            lo = std::min(lo, h);
            hi = std::max(hi, h);
        }
    }
    return {lo, hi};
}

// A box standing on the ground: from below its lowest point to `height` above its highest.
void appendGroundBox(Mesh& mesh, double x0, double z0, double x1, double z1, double height) {
    const auto [lo, hi] = groundRange(x0, z0, x1, z1);
    appendBox(mesh, {x0, lo - 0.5, z0}, {x1, hi + height, z1});
}

// A ramp along Z over [x0, x1] x [z0, z1]: its top runs from y_a at z0 to y_b at z1; its bottom
// is flat at `base`.
void appendRampZ(Mesh& mesh, double x0, double x1, double z0, double z1, double y_a, double y_b,
                 double base) {
    std::array<std::uint32_t, 8> v{};
    for (int i = 0; i < 8; ++i) {
        const double x = (i & 1) ? x1 : x0, z = (i & 4) ? z1 : z0;
        v[i] = mesh.addVertex({x, (i & 2) ? ((i & 4) ? y_b : y_a) : base, z});
    }
    appendBoxFaces(mesh, v);
}

std::vector<Mesh> buildCity(int n) {
    constexpr double kCell = 0.5;  // the ground grid
    const double size = n * kPitch + kStreet;
    std::vector<Mesh> meshes;
    // The ground: a height grid.
    Mesh ground = makeMesh("ground", "grass");
    const int cells = static_cast<int>(std::lround(size / kCell));
    for (int k = 0; k <= cells; ++k)
        for (int i = 0; i <= cells; ++i)
            ground.addVertex({i * kCell, cityGround(i * kCell, k * kCell), k * kCell});
    const auto at = [&](int i, int k) { return static_cast<std::uint32_t>(k * (cells + 1) + i); };
    for (int k = 0; k < cells; ++k)
        for (int i = 0; i < cells; ++i)
            ground.addQuad(at(i, k), at(i + 1, k), at(i + 1, k + 1), at(i, k + 1), {0.0, 1.0, 0.0});
    meshes.push_back(std::move(ground));
    Mesh buildings = makeMesh("buildings", "wall");
    Mesh plazas = makeMesh("plazas", "floor");
    Mesh bridges = makeMesh("footbridges", "floor");
    Mesh kerbs = makeMesh("kerbs", "floor");
    Mesh crates = makeMesh("crates", "wall");
    Mesh low_rocks = makeMesh("rocks", "floor");
    Mesh tall_rocks = makeMesh("tall_rocks", "obstacle_rock");
    for (int bx = 0; bx < n; ++bx) {
        for (int bz = 0; bz < n; ++bz) {
            const double x0 = kStreet + bx * kPitch, z0 = kStreet + bz * kPitch;
            // Kerbs round the block: 0.15 m above the ground, in 5 m pieces, 0.4 m wide.
            for (int piece = 0; piece < 8; ++piece) {
                const double a = piece * 5.0;
                appendGroundBox(kerbs, x0 + a, z0 - 0.4, x0 + a + 5.0, z0, 0.15);
                appendGroundBox(kerbs, x0 + a, z0 + kBlock, x0 + a + 5.0, z0 + kBlock + 0.4, 0.15);
                appendGroundBox(kerbs, x0 - 0.4, z0 + a, x0, z0 + a + 5.0, 0.15);
                appendGroundBox(kerbs, x0 + kBlock, z0 + a, x0 + kBlock + 0.4, z0 + a + 5.0, 0.15);
            }
            // Street furniture on the street south of the block: crates and rocks.
            for (int item = 0; item < 6; ++item) {
                const std::uint32_t h = townHash(bx, bz, 200 + item);
                const double x = x0 + 2.0 + double(h % 3600) / 100.0;
                const double z = z0 - kStreet + 1.5 + double((h >> 12) % 600) / 100.0;
                switch ((h >> 24) % 4) {
                    case 0: appendGroundBox(crates, x, z, x + 0.8, z + 0.8, 0.5); break;
                    case 1: appendGroundBox(crates, x, z, x + 1.0, z + 1.0, 1.2); break;
                    case 2: {
                        const double y = cityGround(x, z);
                        appendOctahedron(low_rocks, {x, y, z}, {0.9, 0.45, 0.7}, 0.8, 0.6);
                        break;
                    }
                    default: {
                        const double y = cityGround(x, z);
                        appendOctahedron(tall_rocks, {x, y, z}, {1.2, 1.6, 1.0}, 0.6, 0.8);
                    }
                }
            }
            // A footbridge over the street north of the block, ramps down at both ends.
            if (bz + 1 < n && townHash(bx, bz, 17) % 4 == 0) {
                const double xb = x0 + 4.0, za = z0 + kBlock - 12.0, zb = z0 + kPitch + 12.0;
                const double deck = groundRange(xb, za, xb + 2.4, zb).second + 4.0;
                const double low_a = cityGround(xb + 1.2, za - 12.0);
                const double low_b = cityGround(xb + 1.2, zb + 12.0);
                appendBox(bridges, {xb, deck - 0.3, za}, {xb + 2.4, deck, zb});
                appendRampZ(bridges, xb, xb + 2.4, za - 12.0, za, low_a, deck, low_a - 1.0);
                appendRampZ(bridges, xb, xb + 2.4, zb, zb + 12.0, deck, low_b, low_b - 1.0);
            }
            if (townHash(bx, bz, 99) % 4 == 0) {
                // A plaza: 1.2 m over the block's highest ground, steps on its south side.
                const auto [ground_lo, ground_hi] = groundRange(x0, z0, x0 + kBlock, z0 + kBlock);
                const double top = ground_hi + 1.2, low = ground_lo - 0.5;
                appendBox(plazas, {x0, low, z0}, {x0 + kBlock, top, z0 + kBlock});
                const double foot = cityGround(x0 + 20.0, z0 - 2.0);
                const int steps = std::max(1, static_cast<int>(std::ceil((top - foot) / 0.2)));
                for (int k = 0; k < steps && k < 40; ++k) {
                    const double z = z0 - 0.35 * (k + 1);
                    appendBox(plazas, {x0 + 16.0, low, z},
                              {x0 + 24.0, top - 0.2 * (k + 1), z + 0.35});
                }
                continue;
            }
            for (int k = 0; k < 4; ++k) {
                const Lot l = townLot(bx, bz, k, x0, z0);
                appendGroundBox(buildings, l.x, l.z, l.x + l.w, l.z + l.d, l.height);
                if (l.annex)
                    appendGroundBox(buildings, l.x + l.w, l.z, l.x + l.w + 4.0, l.z + l.d, 3.0);
            }
        }
    }
    for (Mesh* mesh : {&buildings, &plazas, &bridges, &kerbs, &crates, &low_rocks, &tall_rocks})
        if (!mesh->indices.empty()) meshes.push_back(std::move(*mesh));
    return meshes;
}

std::vector<Mesh> buildTower(int n, int floors) {
    constexpr double kCellSize = 4.0, kWall = 0.25, kStorey = 3.3, kSlab = 0.3;
    MazeRandom random(0x746F776572000001ull + static_cast<std::uint64_t>(n * 131 + floors));
    Mesh slabs = makeMesh("slabs", "floor");
    Mesh walls = makeMesh("walls", "wall");
    Mesh ramps = makeMesh("ramps", "floor");
    const double size = n * kCellSize;
    // Per storey boundary (k, k + 1): the cells holding a ramp up (about one per 40 cells).
    std::vector<std::vector<int>> ramp_cells(static_cast<std::size_t>(floors));
    for (int k = 0; k + 1 < floors; ++k)
        for (int r = 0; r < std::max(2, n * n / 40); ++r)
            ramp_cells[static_cast<std::size_t>(k)].push_back(
                static_cast<int>(random.below(static_cast<std::uint32_t>(n * n))));
    for (int k = 0; k < floors; ++k) {
        const double y = k * kStorey;
        // The slab: one box per row of cells, split around the holes above the ramps below.
        const std::vector<int>& holes =
            k > 0 ? ramp_cells[static_cast<std::size_t>(k - 1)] : std::vector<int>{};
        for (int j = 0; j < n; ++j) {
            int start = 0;
            for (int i = 0; i <= n; ++i) {
                const bool hole =
                    i < n && std::find(holes.begin(), holes.end(), j * n + i) != holes.end();
                if (i == n || hole) {
                    if (i > start)
                        appendBox(slabs, {start * kCellSize, y - kSlab, j * kCellSize},
                                  {i * kCellSize, y, (j + 1) * kCellSize});
                    start = i + 1;
                }
            }
        }
        const Maze2D maze = carveMaze(random, n, -1, n * n / 8);
        const double top = y + kStorey - kSlab;
        // Walls: the outer ring, then the closed walls between cells.
        appendBox(walls, {-kWall, y, -kWall}, {size + kWall, top, 0.0});
        appendBox(walls, {-kWall, y, size}, {size + kWall, top, size + kWall});
        appendBox(walls, {-kWall, y, 0.0}, {0.0, top, size});
        appendBox(walls, {size, y, 0.0}, {size + kWall, top, size});
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                const std::size_t cell = static_cast<std::size_t>(j * n + i);
                if (i + 1 < n && !maze.open_east[cell])
                    appendBox(walls, {(i + 1) * kCellSize - kWall / 2, y, j * kCellSize},
                              {(i + 1) * kCellSize + kWall / 2, top, (j + 1) * kCellSize});
                if (j + 1 < n && !maze.open_south[cell])
                    appendBox(walls, {i * kCellSize, y, (j + 1) * kCellSize - kWall / 2},
                              {(i + 1) * kCellSize, top, (j + 1) * kCellSize + kWall / 2});
            }
        }
        if (k + 1 < floors) {
            // Ramps: up along +Z through the cell, onto the slab above beyond the hole's far edge.
            for (int cell : ramp_cells[static_cast<std::size_t>(k)]) {
                const int i = cell % n, j = cell / n;
                appendRampZ(ramps, i * kCellSize + 0.4, (i + 1) * kCellSize - 0.4, j * kCellSize,
                            (j + 1) * kCellSize, y, y + kStorey, y);
            }
        }
    }
    return {std::move(slabs), std::move(walls), std::move(ramps)};
}

}  // namespace

int run(int argc, char** argv) {
    if ((argc == 4 && std::string(argv[1]) == "--city") ||
        (argc == 5 && std::string(argv[1]) == "--tower")) {
        try {
            const bool city = std::string(argv[1]) == "--city";
            const int n = std::stoi(argv[2]);
            if (n < 1 || n > 200)
                throw std::runtime_error(std::string(argv[1]) + " N: N must be 1..200");
            const int floors = city ? 0 : std::stoi(argv[3]);
            if (!city && (floors < 1 || floors > 50))
                throw std::runtime_error("--tower N FLOORS: FLOORS must be 1..50");
            const std::string obj =
                city ? encodeObj(buildCity(n), "city.mtl",
                                 "city of " + std::to_string(n * n) + " blocks on terrain")
                     : encodeObj(buildTower(n, floors), "links_course.mtl",
                                 "tower maze of " + std::to_string(floors) + " storeys of " +
                                     std::to_string(n) + " x " + std::to_string(n) + " cells");
            writeFile(argv[city ? 3 : 4], obj.data(), obj.size());
        } catch (const std::exception& error) {
            std::cerr << "levelgen: " << error.what() << "\n";
            return 1;
        }
        return 0;
    }
    if (argc == 4 && std::string(argv[1]) == "--town") {
        try {
            const int n = std::stoi(argv[2]);
            if (n < 1 || n > 200) throw std::runtime_error("--town N: N must be 1..200");
            const std::string obj = encodeObj(buildTown(n), "links_course.mtl",
                                              "town of " + std::to_string(n * n) + " blocks");
            writeFile(argv[3], obj.data(), obj.size());
        } catch (const std::exception& error) {
            std::cerr << "levelgen: " << error.what() << "\n";
            return 1;
        }
        return 0;
    }
    const char* usage =
        "usage: levelgen OUTDIR\n       levelgen --town N FILE.obj   (a benchmark town of N x N "
        "blocks)\n       levelgen --city N FILE.obj   (N x N blocks on terrain, kerbs, crates, "
        "rocks, footbridges)\n       levelgen --tower N FLOORS FILE.obj   (a multi-storey maze "
        "of N x N cells)\n";
    if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::cout << usage;
        return 0;
    }
    // Anything else starting with '-' is an option this tool does not have, not a folder.
    if (argc != 2 || argv[1][0] == '-') {
        if (argc >= 2 && argv[1][0] == '-')
            std::cerr << "levelgen: unknown option or wrong arguments: " << argv[1] << "\n";
        std::cerr << usage;
        return 2;
    }
    try {
        const std::filesystem::path out_dir(argv[1]);
        std::filesystem::create_directories(out_dir);

        const std::vector<std::uint8_t> glb = encodeGlb(buildIndoorLevel());
        writeFile(out_dir / "indoor_two_floors.glb", glb.data(), glb.size());

        const std::string mtl_name = "terrain.mtl";
        const std::string obj = encodeObj(buildTerrain(), mtl_name, "outdoor terrain");
        writeFile(out_dir / "terrain.obj", obj.data(), obj.size());
        const std::string mtl = encodeMtl();
        writeFile(out_dir / mtl_name, mtl.data(), mtl.size());

        const std::string course_mtl = "links_course.mtl";
        const std::string course = encodeObj(buildLinksCourse(), course_mtl,
                                             "links course: ledges, gaps, a pit, a ladder, a door");
        writeFile(out_dir / "links_course.obj", course.data(), course.size());
        const std::string course_materials = encodeLinksCourseMtl();
        writeFile(out_dir / course_mtl, course_materials.data(), course_materials.size());

        const std::string yard = encodeObj(
            buildDesignerYard(), course_mtl,
            "designer yard: markers for bounds, seed, volumes, points of interest, waypoints");
        writeFile(out_dir / "designer_yard.obj", yard.data(), yard.size());

        const VoxelVolume maze = buildMaze3d();
        const std::string map_name = "maze3d.3dmap";
        const std::string map_text = encodeVoxelMap(maze);
        writeFile(out_dir / map_name, map_text.data(), map_text.size());
        const std::string scen_text = encodeMazeScenarios(maze, map_name);
        writeFile(out_dir / "maze3d.3dscen", scen_text.data(), scen_text.size());
    } catch (const std::exception& error) {
        std::cerr << "levelgen: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace levelgen

int main(int argc, char** argv) { return levelgen::run(argc, argv); }
