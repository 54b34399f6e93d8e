// A lean Wavefront OBJ reader for large levels: one streaming pass, positions and index lists
// only (no per-corner vertex copies, no per-face allocations), about 25 bytes per triangle where
// Assimp's OBJ importer needed ~200. It reproduces the scene Assimp builds from an OBJ file as the
// flattener sees it (scene_import.cpp): one node per object (`o NAME`, or `g NAME` when the name
// changes; "defaultobject" for faces before either), within it one mesh per run of faces with one
// material (the first named after the object, later ones after their material; `usemtl` persists
// across objects; "DefaultMaterial" before any), triangles and quads cut as Assimp's Triangulate
// step cuts them (a quad from its concave corner), larger polygons by ear clipping, faces of two
// corners and `l` polylines as line segments, points dropped. Numbers are read correctly rounded
// (std::from_chars; Assimp's fast_atof can be an ulp off). Texture coordinates, normals, smoothing
// groups and material libraries are skipped (navbake uses positions and names only).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lib/common/result.h"

namespace nav::importer {

struct ObjMesh {
    std::string name;
    std::string material;
    std::vector<uint32_t> triangles;  // 0-based position indices, 3 per triangle
    std::vector<uint32_t> lines;      // 2 per segment
};
struct ObjObject {
    std::string name;
    std::vector<ObjMesh> meshes;  // in the order they were started; none empty
};
struct ObjScene {
    std::vector<float> positions;  // 3 per `v`
    std::vector<ObjObject> objects;
};

// Errors name the file and the line: a malformed number, a vertex index out of range.
Result<ObjScene> readObj(const std::filesystem::path& path);

}  // namespace nav::importer
