// Fuzz target: the designers' definition files: links (links.json: link types and links) and
// modifier volumes (volumes.json), read by the same code as the level config's "links",
// "link_types" and "volumes".
#include <cstdint>

#include "lib/geometry/link_spec.h"
#include "lib/voxel/voxelize.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = nav::fuzz::writeTempFile({data, size}, "definitions.json");
    if (auto links = nav::geometry::loadLinksFile(path); links.ok())
        (void)nav::geometry::linksByTypeText(links.value().links);
    (void)nav::voxel::loadVolumesFile(path).ok();
    return 0;
}
