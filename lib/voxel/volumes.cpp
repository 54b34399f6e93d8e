// Modifier volumes from JSON (level configs and `navbake voxelize --volumes` files): one parser.
#include <fmt/format.h>

#include "lib/common/json_reader.h"
#include "lib/voxel/voxelize.h"

namespace nav::voxel {

Status parseVolumes(const nlohmann::json& array, const std::string& path,
                    const std::filesystem::path& file, std::vector<ModifierVolume>& out) {
    const JsonReader top(array, path, file);
    return top.objects(
        array, path, "a non-empty array of volumes", true, [&](JsonReader& r) -> Status {
            ModifierVolume v;
            v.name = r.where();
            if (Status s = geometry::readRegion(r, r.path(), v.box, v.planes); !s) return s;
            if (Status s = r.string("area", v.area); !s) return s;
            if (Status s = r.number("cost_factor", v.cost_factor); !s) return s;
            if (Status s = r.boolean("forbid", v.forbid); !s) return s;
            if (Status s = r.strings("agents", v.agents, "an agent name"); !s) return s;
            if (Status s = r.strings("walkable_for", v.walkable_for, "an agent name"); !s) return s;
            if (Status s = r.finish({"min", "max", "points", "area", "cost_factor", "forbid",
                                     "agents", "walkable_for"});
                !s)
                return s;
            if (v.area.empty() && v.cost_factor == 1.0f && !v.forbid && v.walkable_for.empty())
                return r.fail(r.path(),
                              "changes nothing (give \"area\", \"cost_factor\", \"forbid\" or "
                              "\"walkable_for\")");
            out.push_back(v);
            return {};
        });
}

Result<std::vector<ModifierVolume>> loadVolumesFile(const std::filesystem::path& file) {
    auto document = loadJson(file);
    if (!document) return document.error();
    JsonReader r(*document, "$", file);
    if (Status s = r.expectObject(); !s) return s.error();
    if (!r.has("volumes"))
        return r.fail("$.volumes", "missing (expected an array of volumes)").error();
    std::vector<ModifierVolume> volumes;
    if (Status s = parseVolumes(r.get("volumes"), "$.volumes", file, volumes); !s) return s.error();
    if (Status s = r.finish({"$schema", "volumes"}); !s) return s.error();
    return volumes;
}

}  // namespace nav::voxel
