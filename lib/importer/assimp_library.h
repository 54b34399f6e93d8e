// Assimp, loaded the first time a scene needs it (OBJ files have their own reader): its shared
// library is opened with dlopen and its C interface (assimp/cimport.h) looked up, so that a stage
// that never imports such a scene (voxelize, graph, ... and import of OBJ files) does not map and
// relocate it: 3.3 MiB of resident memory (Assimp and the libraries it pulls in) and the time to
// load them, in every navbake process. The scene structures are Assimp's own (assimp/scene.h).
#pragma once

#include <assimp/cimport.h>
#include <assimp/scene.h>

#include "lib/common/result.h"

namespace nav::importer {

// The Assimp functions the importer calls (the C interface, the same ABI as linking them).
struct AssimpLibrary {
    decltype(&aiImportFileExWithProperties) import_file = nullptr;
    decltype(&aiGetErrorString) error_string = nullptr;
    decltype(&aiReleaseImport) release_import = nullptr;
    decltype(&aiCreatePropertyStore) create_property_store = nullptr;
    decltype(&aiReleasePropertyStore) release_property_store = nullptr;
    decltype(&aiSetImportPropertyInteger) set_import_property_integer = nullptr;
    decltype(&aiGetMaterialString) get_material_string = nullptr;
};

// The library, loaded once (thread-safe); an error says which library or function is missing and
// what to install.
Result<const AssimpLibrary*> assimpLibrary();

}  // namespace nav::importer
