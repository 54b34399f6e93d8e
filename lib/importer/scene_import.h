// The scene importer's walk of an Assimp scene, on its own: what importScene does with the scene
// Assimp's parser gives it. Exposed for the fuzz target `scene` (tests/fuzz/fuzz_scene.cpp), which
// builds adversarial scenes without a parser; everything else imports files with importScene.
#pragma once

#include <string>

#include "lib/importer/assimp_library.h"
#include "lib/importer/import.h"

namespace nav::importer {

// Flattens `scene` as importScene does after Assimp's Triangulate, SortByPType and
// ValidateDataStructure steps (the scene's invariants: every mesh and vertex index in range,
// faces of 1 to 3 corners, an acyclic node tree): node transforms, the up axis and scale,
// triangles and lines, tag rules, links and markers, merged vertices. The unit is metres.
// Errors are importScene's, naming `file`.
Result<geometry::Geometry> flattenAssimpScene(const AssimpLibrary& assimp, const aiScene& scene,
                                              const ImportParams& params, const std::string& file,
                                              Context& context);

}  // namespace nav::importer
