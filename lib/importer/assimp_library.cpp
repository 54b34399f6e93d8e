#include "lib/importer/assimp_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace nav::importer {

Result<const AssimpLibrary*> assimpLibrary() {
    static std::once_flag once;
    static AssimpLibrary library;
    static std::string failure;
    std::call_once(once, [] {
        // The soname CMake found Assimp under (libassimp.so.5 on Debian 12).
        void* handle = dlopen(NAVBAKE_ASSIMP_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            failure = std::string("cannot load Assimp (") + NAVBAKE_ASSIMP_LIBRARY +
                      "), which reads every scene format but OBJ: " + (why ? why : "not found") +
                      "; install it (Debian: libassimp5, `make setup`)";
            return;
        }
        bool ok = true;
        auto find = [&](auto& slot, const char* name) {
            slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
            if (slot == nullptr && ok) {
                ok = false;
                failure = std::string(NAVBAKE_ASSIMP_LIBRARY) + " has no function " + name +
                          ": an Assimp older than 5 is not supported";
            }
        };
        find(library.import_file, "aiImportFileExWithProperties");
        find(library.error_string, "aiGetErrorString");
        find(library.release_import, "aiReleaseImport");
        find(library.create_property_store, "aiCreatePropertyStore");
        find(library.release_property_store, "aiReleasePropertyStore");
        find(library.set_import_property_integer, "aiSetImportPropertyInteger");
        find(library.get_material_string, "aiGetMaterialString");
        // The handle stays open for the process's life: scenes point into the library's heap.
    });
    if (!failure.empty()) return makeError(ErrorKind::io, "{}", failure);
    return &library;
}

}  // namespace nav::importer
