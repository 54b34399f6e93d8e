// Stage 1: import. Reads level geometry in any format Assimp reads into a flat, tagged triangle
// soup (geometry::Geometry), MovingAI grid maps into a plain GridMap and MovingAI 3D voxel maps
// into a VoxelMap3D.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/geometry.h"
#include "lib/geometry/link_spec.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::importer {

// ---- Tag rules --------------------------------------------------------------------------------
// A rule matches a glob pattern (`*` any run, `?` one character, case-insensitive) against an
// object's name (node or mesh name), its material's name, or either. The first rule that matches
// decides the triangle's tag: "ignore" (dropped), "obstacle" (solid, never walkable), "link" (the
// object is a link, see LinkRule) or the name of an area type. Triangles no rule matches are
// "ground".
enum class MatchTarget { object, material, any };

// How a "link" rule turns the objects it matches into links (geometry::LinkSpec):
//   line    each line segment of the object is a link from its first point to its second; the
//           object's triangles (if any) are dropped, counted as ignored
//   ladder  one link from the centre of the bottom of the object's world bounding box to the
//           centre of its top; its triangles are dropped (a proxy), counted as ignored
//   door    one link through the box along its thinner horizontal axis, at the box's bottom
//           height; its triangles stay, as obstacles, so only the link crosses the doorway
enum class LinkShape { line, ladder, door };
inline constexpr Choice<LinkShape> kLinkShapes[] = {
    {"line", LinkShape::line}, {"ladder", LinkShape::ladder}, {"door", LinkShape::door}};

struct LinkRule {
    LinkShape shape = LinkShape::line;
    // A built-in link type or one of TagConfig::link_types. Empty: "ladder" / "door" for those
    // shapes; lines take the word after "link_" in the object's name ("link_jump_3" -> jump).
    std::string type;
    // Absent: ladders and doors are two-way, lines when the name contains "_twoway".
    std::optional<bool> bidirectional;
    float width = 0;         // [Units: m] > 0 makes a wide link (geometry::LinkSpec::width)
    float cost = 0;          // from -> to; 0 = the type's default
    float reverse_cost = 0;  // to -> from; 0 = the type's default
    uint32_t user_data = 0;  // handed back to the game with the path
};

// How a marker rule (tags "bounds", "volume", "seed", "point_of_interest", "waypoint",
// "cluster": geometry::markerKindName) turns the objects it matches into geometry::SceneMarker:
// the meshes of one node form one marker, their triangles dropped (a proxy, counted as ignored).
// Bounds, volumes and clusters take the object's world box (or, with `hull`, the convex hull of
// its vertices); seeds, points of interest and waypoints a point: a node without meshes (an
// "empty") gives its origin, a mesh the bottom centre of its box. Field names are the config's.
struct MarkerRule {
    bool hull = false;  // volume, cluster: the convex hull of the vertices instead of the box
    // volume: as voxel::ModifierVolume. Without area, cost_factor, forbid and walkable_for the
    // object's name decides: the word after "volume_" names an area, or is "forbid".
    std::string area;
    float cost_factor = 1;
    bool forbid = false;
    std::vector<std::string> agents;
    std::vector<std::string> walkable_for;
    // point_of_interest: its kind; "" = the word after "poi_" in the name ("nav_poi_health_2"
    // -> "health"), else "poi".
    std::string kind;
    float weight = 0;  // waypoint: its head start [m] (>= 0; graph::Waypoint::weight)
};

struct TagRule {
    std::string pattern;
    MatchTarget target = MatchTarget::any;
    std::string tag;
    LinkRule link;      // used when tag is "link"
    MarkerRule marker;  // used when tag is a marker kind
};
// The marker kind a tag names, or false.
bool markerTag(std::string_view tag, geometry::MarkerKind& kind);

struct TagConfig {
    std::vector<geometry::AreaType> areas;  // area table; [0] obstacle, [1] ground, then the rest
    std::vector<TagRule> rules;             // tried in order
    std::vector<geometry::LinkTypeDef> link_types;  // user link types scene links may name
};

inline constexpr std::string_view kTagIgnore = "ignore";
inline constexpr std::string_view kTagObstacle = "obstacle";
inline constexpr std::string_view kTagLink = "link";

// Built-in rules and areas (see README, "Tag rules"): the link rules `link_*`, `ladder_*` and
// `door_*` and the marker rules `nav_bounds*`, `nav_volume*`, `nav_seed*`, `nav_poi*`,
// `nav_waypoint*`, `nav_cluster*` (object names only) come first, then the ignore, obstacle,
// water and mud rules.
TagConfig defaultTagConfig();

// Reads a tags JSON file. Its rules come before the built-in ones (unless "use_defaults" is
// false), its areas are added to (or override the cost of) the built-in ones, its "link_types"
// declare user link types. Unknown keys, wrong types and unknown tags or link types are errors
// naming the file and the JSON path.
Result<TagConfig> loadTagConfig(const std::filesystem::path& path);
Result<TagConfig> parseTagConfig(std::string_view json_text, const std::string& source_name);

// The first rule matching the object (node or mesh name) or material, or null when none does.
// `matched_name`, when given, receives the name the rule matched: the node or mesh name, or
// for a material match the node name (the mesh name when the node has none).
const TagRule* matchTagRule(const TagConfig& config, std::string_view object_name,
                            std::string_view mesh_name, std::string_view material_name,
                            std::string_view* matched_name = nullptr);

// Returns the area id for a triangle of this object/material, or -1 for "ignore" (and for the
// triangles of line and ladder link objects; door link objects are obstacles).
int resolveTag(const TagConfig& config, std::string_view object_name, std::string_view mesh_name,
               std::string_view material_name);

// The link type word an object's name gives: the characters after the first "link_"
// (case-insensitive) up to the next '_' or any character a type name cannot hold (Blender's
// ".001"), lower-cased: "Link_Jump_twoway_2" -> "jump". Empty when the name has no "link_".
std::string linkTypeWordFromName(std::string_view name);
// The same for any prefix: the word after the first `prefix` (case-insensitive), lower-cased.
std::string wordAfter(std::string_view name, std::string_view prefix);

bool globMatch(std::string_view pattern, std::string_view text);

// ---- Scene import -----------------------------------------------------------------------------
enum class UpAxis { y, z };
inline constexpr Choice<UpAxis> kUpAxes[] = {{"y", UpAxis::y}, {"z", UpAxis::z}};

// What a file's coordinates are measured in. file: the unit the file states, where its format
// has one (FBX UnitScaleFactor, in centimetres; glTF is metres); metres: FBX coordinates are
// metres whatever the file says. Collada's <unit> is always applied (Assimp 5.2's reader does it
// and has no switch); other formats state no unit (metres).
enum class Units { file, metres };
inline constexpr Choice<Units> kUnits[] = {{"file", Units::file}, {"metres", Units::metres}};

struct ImportParams {
    UpAxis up = UpAxis::y;  // source file's up axis; Z-up files are rotated to Y-up
    float scale = 1.0f;     // multiplies every coordinate (e.g. 0.01 for centimetre files)
    Units units = Units::file;
    bool flip_winding = false;  // reverse every triangle (meshes wound clockwise)
    bool double_sided = false;  // faces count from either side: those facing down are turned up
    TagConfig tags = defaultTagConfig();
    int threads = 0;  // OBJ files: 1 reads and parses on the calling thread; else on a second one
    // OBJ files: where the positions read so far may be spilled (ObjPositions::spillTo); empty:
    // they are held in memory.
    std::filesystem::path spill_folder;
};

// What importing a file applied, for the report.
struct ImportReport {
    double unit_scale = 1.0;  // metres per file unit applied (before `scale`)
    std::string units;        // how the unit was decided, in words
    uint64_t turned_up = 0;   // double_sided: triangles turned to face up
};

// Loads the file (Assimp, or obj_reader for OBJ), flattens the node hierarchy with its transforms,
// triangulates, merges coincident vertices, drops degenerate triangles (counted), points and lines
// (but those of link objects), and applies tag rules. Objects matched by "link" rules become
// geometry::Geometry::links (scene = true, snap = kSnapAuto, named "<file name>: object '<name>'",
// plus " segment k" for the k-th (1-based) of several line segments, id sceneLinkId(name)), in
// world space like the triangles.
// Errors: unreadable file or format, empty scene, non-finite vertex (names mesh and node), a link
// object without a line (line shape), with an unknown type word, or two scene links with one id.
// OBJ files are read by obj_reader (one streaming pass, a fraction of Assimp's time and memory)
// into the same scene Assimp would make; every other format by Assimp.
// With `streams` the triangles go there (compressed as they come, for saveGeometry) and the
// geometry's per-triangle arrays stay empty: the import stage of a single file. With `strips` the
// triangles go there with their corners' points instead (the strips layout; the geometry keeps
// no vertices or triangles), added to what it holds (several files into one).
Result<geometry::Geometry> importScene(const std::filesystem::path& path,
                                       const ImportParams& params, Context& context,
                                       ImportReport* report = nullptr,
                                       geometry::TriangleStreams* streams = nullptr,
                                       geometry::StripWriter* strips = nullptr);
// The same with Assimp for every format, OBJ included (what importScene did before obj_reader;
// the tests compare the two).
Result<geometry::Geometry> importSceneAssimp(const std::filesystem::path& path,
                                             const ImportParams& params, Context& context,
                                             ImportReport* report = nullptr);

// The id of the scene link named `name`: kSceneLinkIdFirst + XXH64(name) mod 2^30, so it stays the
// same when other objects of the level change.
uint32_t sceneLinkId(std::string_view name);
// Two scene links with the same id (an object name used twice, or a hash collision) are an error
// naming both.
Status checkSceneLinkIds(const std::vector<geometry::LinkSpec>& links);

// ---- MovingAI grid maps ------------------------------------------------------------------------
// https://movingai.com/benchmarks/formats.html: "type octile", "height H", "width W", "map",
// then H rows of W characters. '.', 'G', 'S' are passable; '@', 'O', 'T', 'W' are blocked.
struct GridMap {
    uint32_t width = 0;
    uint32_t height = 0;
    std::vector<uint8_t> passable;  // width * height, row-major (index y * width + x)

    bool isPassable(uint32_t x, uint32_t y) const { return passable[size_t(y) * width + x] != 0; }
    size_t passableCount() const;
};

Result<GridMap> parseMovingAiMap(std::string_view text, const std::string& source_name);
Result<GridMap> loadMovingAiMap(const std::filesystem::path& path);

// A MovingAI grid as a voxel grid: cell size 1, cell (x, y) is the column [x, x+1] x [y, y+1]
// on the X-Z plane; passable cells are a walkable floor whose top is at Y = 0, blocked cells a
// 3 m wall. Point agent (radius 0).
voxel::VoxelGrid gridFromMap(const GridMap& map);

// ---- MovingAI 3D voxel maps and scenarios -------------------------------------------------------
// https://movingai.com/benchmarks/voxels.html (the Warframe set). A `.3dmap` is a header line
// `voxel W H D`, then one `x y z` line per blocked voxel (repeats allowed); file axes x, y, z are
// our X, Y (up), Z, one voxel per 1 m cell. Blank lines and '\r' line ends are accepted.
inline constexpr uint64_t kMaxVoxelMapVoxels = uint64_t(1) << 30;  // W * H * D cap

struct VoxelMap3D {
    uint32_t width = 0;            // along X
    uint32_t height = 0;           // along Y (up)
    uint32_t depth = 0;            // along Z
    std::vector<uint8_t> blocked;  // 1 = blocked; index (y * depth + z) * width + x

    bool isBlocked(uint32_t x, uint32_t y, uint32_t z) const {
        return blocked[(size_t(y) * depth + z) * width + x] != 0;
    }
    size_t blockedCount() const;
};

// Errors name the line: bad header, sizes of 0 or too large (height <= 65535, W x D <= 2^28,
// W x H x D <= 2^30), non-numeric or out-of-range coordinates, wrong field counts.
Result<VoxelMap3D> parseVoxelMap3D(std::string_view text, const std::string& source_name);
Result<VoxelMap3D> loadVoxelMap3D(const std::filesystem::path& path);

// A MovingAI 3D voxel map as a voxel grid: cell size and height 1, origin (0, 0, 0), size_x =
// width, size_y = height, size_z = depth; each column's spans are its maximal runs of blocked
// voxels (area 0, not walkable). Point agent occupying one voxel (height 1, radius 0, climb 0).
voxel::VoxelGrid gridFromVoxelMap(const VoxelMap3D& map);

// A `.3dscen`: `version 1`, a line naming the map file, then one line per problem:
// `sx sy sz gx gy gz optimal_length ratio` (ratio = optimal length / straight-line distance).
struct Scenario3D {
    uint32_t start[3] = {0, 0, 0};  // voxel x, y, z
    uint32_t goal[3] = {0, 0, 0};
    double optimal_length = 0;
    double ratio = 0;
    uint32_t line = 0;  // 1-based line in the file, for messages
};
struct ScenarioFile3D {
    std::string map_name;
    std::vector<Scenario3D> entries;
};

Result<ScenarioFile3D> parseScenario3D(std::string_view text, const std::string& source_name);
Result<ScenarioFile3D> loadScenario3D(const std::filesystem::path& path);

// ---- The import stage ----------------------------------------------------------------------
// One definition shared by `navbake import` and `navbake build` (lib/common/stage.h). Inputs are
// one or more scene files, merged into one .geo (every input gets the same tag rules), or exactly
// one MovingAI .map / .3dmap, which becomes a .vox directly.
struct ImportStage {
    static constexpr std::string_view kName = "import";
    static constexpr uint32_t kVersion = 1;  // bump when its output changes (stage.h)
    struct Params {
        UpAxis up = UpAxis::y;      // up axis of the scene files (Z-up is rotated to Y-up)
        float scale = 1.0f;         // multiplies every coordinate, > 0
        Units units = Units::file;  // the file's own unit where its format states one
        bool flip_winding = false;  // reverse every triangle
        bool double_sided = false;  // faces count from either side
        std::filesystem::path
            tags;         // tag rules (JSON) tried before the built-in ones; empty = none
        int threads = 0;  // worker threads (OBJ files: 1 = the file read on the calling thread)
        // [Units: m] > 0: the .geo in the strips layout (FORMAT.md §4.6), strips of this size on
        // Z, for world builds of levels too large to hold (the import and voxelize stages then
        // hold a window of the level, not all of it); 0 (default): vertices and indexed
        // triangles, which every stage reads.
        float strip_size = 0;
    };
    struct Inputs {
        std::vector<std::filesystem::path> sources;
    };
    enum class Output { geometry, voxels };  // .geo, or .vox for MovingAI maps

    static ParamIssues check(const Params& params);
    static void describe(const Params& params, StageKey& key);
    // What the inputs import to. Errors: no input; a .map or .3dmap together with other inputs
    // (index of the offending input in `bad_input` when given).
    static Result<Output> output(const Inputs& inputs, size_t* bad_input = nullptr);
    // Peak memory from the inputs' headers and sizes (lib/common/memory.h).
    static Result<MemoryEstimate> estimateMemory(const Inputs& inputs, const Params& params);
    // Counts: triangles, vertices, objects (scenes); cells, passable (grids); voxels, blocked.
    static Result<StageResult> run(const Inputs& inputs, const Params& params,
                                   const std::filesystem::path& output, Context& context);
};

}  // namespace nav::importer
