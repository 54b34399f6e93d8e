#include "build.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "../../formats/layouts.h"
#include "../../formats/xxhash64.h"
#include "../common/file_io.h"
#include "../common/parallel.h"
#include "../geometry/geometry.h"
#include "../graph/graph.h"
#include "../nexthop/nexthop.h"
#include "../view/view.h"
#include "../voxel/voxel_grid.h"

namespace nav::build {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

// ---- Config parsing ----------------------------------------------------------------------------

// Walks one JSON object, remembering which keys were read so the rest can be reported unknown.
class Reader {
public:
    Reader(const Json& value, std::string path, const fs::path& file)
        : value_(value), path_(std::move(path)), file_(file) {}

    Status expectObject() const {
        if (!value_.is_object()) return typeError(path_, "an object", value_);
        return {};
    }
    bool has(const std::string& key) const { return value_.contains(key); }
    std::string at(const std::string& key) const { return path_ + "." + key; }
    const Json& get(const std::string& key) {
        seen_.insert(key);
        return value_.at(key);
    }

    Status number(const std::string& key, float& out, bool positive = false) {
        if (!has(key)) return {};
        const Json& v = get(key);
        if (!v.is_number()) return typeError(at(key), "a number", v);
        out = v.get<float>();
        if (!std::isfinite(out) || (positive && !(out > 0)))
            return fail(at(key), fmt::format("must be {}, got {}", positive ? "> 0" : "finite", v.dump()));
        return {};
    }
    Status unsignedInt(const std::string& key, uint32_t& out, uint32_t low, uint32_t high) {
        if (!has(key)) return {};
        const Json& v = get(key);
        if (!v.is_number_integer() || v.get<int64_t>() < low || v.get<int64_t>() > high)
            return typeError(at(key), fmt::format("an integer {}..{}", low, high), v);
        out = uint32_t(v.get<int64_t>());
        return {};
    }
    Status boolean(const std::string& key, bool& out) {
        if (!has(key)) return {};
        const Json& v = get(key);
        if (!v.is_boolean()) return typeError(at(key), "true or false", v);
        out = v.get<bool>();
        return {};
    }
    Status string(const std::string& key, std::string& out, std::initializer_list<const char*> allowed = {}) {
        if (!has(key)) return {};
        const Json& v = get(key);
        if (!v.is_string()) return typeError(at(key), "a string", v);
        out = v.get<std::string>();
        if (allowed.size() > 0 &&
            std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return out == a; })) {
            std::string list;
            for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
            return fail(at(key), fmt::format("'{}' is not one of: {}", out, list));
        }
        return {};
    }
    // Unknown keys: the first one (sorted) with the keys allowed here.
    Status finish(std::initializer_list<const char*> allowed) const {
        for (auto it = value_.begin(); it != value_.end(); ++it)
            if (!seen_.count(it.key()) &&
                std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return it.key() == a; })) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                return fail(at(it.key()), fmt::format("unknown key (allowed here: {})", list));
            }
        return {};
    }
    Status fail(const std::string& path, const std::string& what) const {
        return inputError("{}: {}: {}", file_.string(), path, what);
    }
    Status typeError(const std::string& path, const std::string& expected, const Json& got) const {
        return fail(path, fmt::format("expected {}, got {} {}", expected, got.type_name(),
                                      got.dump().substr(0, 40)));
    }

private:
    const Json& value_;
    std::string path_;
    const fs::path& file_;
    std::set<std::string> seen_;
};

Status parseAgent(const Json& value, const std::string& path, const fs::path& file,
                  size_t index, AgentConfig& out) {
    Reader r(value, path, file);
    if (Status s = r.expectObject(); !s) return s;
    out.name = index == 0 ? "default" : "agent" + std::to_string(index);
    if (Status s = r.string("name", out.name); !s) return s;
    if (out.name.empty() || out.name.size() > 64 ||
        !std::all_of(out.name.begin(), out.name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        }))
        return r.fail(r.at("name"), fmt::format("'{}' must be 1-64 letters, digits, '_' or '-' (it "
                                                "names output files)", out.name));
    if (Status s = r.number("height", out.agent.height, true); !s) return s;
    if (Status s = r.number("radius", out.agent.radius); !s) return s;
    if (Status s = r.number("climb", out.agent.climb); !s) return s;
    if (Status s = r.number("max_slope", out.agent.max_slope_deg); !s) return s;
    if (out.agent.radius < 0) return r.fail(r.at("radius"), "must be >= 0");
    if (out.agent.climb < 0) return r.fail(r.at("climb"), "must be >= 0");
    if (out.agent.max_slope_deg < 0 || out.agent.max_slope_deg >= 90)
        return r.fail(r.at("max_slope"), "must be in [0, 90) degrees");
    if (r.has("graphs")) {
        const Json& graphs = r.get("graphs");
        if (!graphs.is_array() || graphs.empty())
            return r.typeError(r.at("graphs"), "a non-empty array of graph kinds", graphs);
        out.graphs.clear();
        for (size_t i = 0; i < graphs.size(); ++i) {
            const std::string at = fmt::format("{}[{}]", r.at("graphs"), i);
            if (!graphs[i].is_string()) return r.typeError(at, "a string", graphs[i]);
            const std::string kind = graphs[i].get<std::string>();
            if (kind != "tile" && kind != "navmesh" && kind != "pov" && kind != "volume")
                return r.fail(at, fmt::format("'{}' is not one of: tile, navmesh, pov, volume", kind));
            if (std::find(out.graphs.begin(), out.graphs.end(), kind) != out.graphs.end())
                return r.fail(at, fmt::format("'{}' is listed twice", kind));
            out.graphs.push_back(kind);
        }
    }
    if (r.has("clusters")) {
        const Json& c = r.get("clusters");
        if (c.is_boolean()) {
            out.clusters = c.get<bool>();
        } else {
            Reader cr(c, r.at("clusters"), file);
            if (Status s = cr.expectObject(); !s) return s;
            out.clusters = true;
            std::string method = "grid";
            if (Status s = cr.string("method", method, {"grid", "regions"}); !s) return s;
            out.cluster.method = method == "regions" ? cluster::ClusterParams::regions
                                                     : cluster::ClusterParams::grid;
            if (Status s = cr.unsignedInt("cluster_size", out.cluster.cluster_size, 1, 4096); !s) return s;
            if (Status s = cr.unsignedInt("clusters", out.cluster.clusters, 1, formats::kMaxClusters); !s)
                return s;
            if (Status s = cr.finish({"method", "cluster_size", "clusters"}); !s) return s;
        }
    }
    if (r.has("hierarchy")) {
        const Json& h = r.get("hierarchy");
        if (h.is_boolean()) {
            out.hierarchy = h.get<bool>();
        } else {
            Reader hr(h, r.at("hierarchy"), file);
            if (Status s = hr.expectObject(); !s) return s;
            out.hierarchy = true;
            std::string cost = "min", entrances = "sparse";
            if (Status s = hr.unsignedInt("levels", out.hierarchy_params.levels, 0, formats::kMaxHierLevels); !s)
                return s;
            if (Status s = hr.unsignedInt("fanout", out.hierarchy_params.fanout, 2, 64); !s) return s;
            if (Status s = hr.string("cost", cost, {"min", "maximin", "avgmin"}); !s) return s;
            if (Status s = hr.string("entrances", entrances, {"sparse", "all"}); !s) return s;
            out.hierarchy_params.cost = cost == "maximin" ? formats::HierCost::maximin
                                        : cost == "avgmin" ? formats::HierCost::avgmin
                                                           : formats::HierCost::min;
            out.hierarchy_params.entrances = entrances == "all" ? formats::EntranceMode::all
                                                                : formats::EntranceMode::sparse;
            if (Status s = hr.finish({"levels", "fanout", "cost", "entrances"}); !s) return s;
        }
    }
    if (r.has("nexthop")) {
        const Json& n = r.get("nexthop");
        if (n.is_boolean()) {
            out.next_hop = n.get<bool>() ? AgentConfig::NextHop::flat : AgentConfig::NextHop::none;
        } else {
            Reader nr(n, r.at("nexthop"), file);
            if (Status s = nr.expectObject(); !s) return s;
            bool hierarchical = false;
            std::string budget;
            if (Status s = nr.boolean("hierarchical", hierarchical); !s) return s;
            if (Status s = nr.string("max_memory", budget); !s) return s;
            if (!budget.empty() && !nexthop::parseSize(budget, out.next_hop_max_memory))
                return nr.fail(nr.at("max_memory"), fmt::format("'{}' is not a size like 512M or 2G", budget));
            out.next_hop = hierarchical ? AgentConfig::NextHop::hierarchical : AgentConfig::NextHop::flat;
            if (Status s = nr.finish({"hierarchical", "max_memory"}); !s) return s;
        }
    }
    if (Status s = r.finish({"name", "height", "radius", "climb", "max_slope", "graphs", "clusters",
                             "hierarchy", "nexthop"});
        !s)
        return s;
    const bool explicit_graph = std::any_of(out.graphs.begin(), out.graphs.end(),
                                            [](const std::string& g) { return g != "volume"; });
    if ((out.clusters || out.hierarchy || out.next_hop != AgentConfig::NextHop::none) && !explicit_graph)
        return r.fail(path, "clusters, hierarchy and nexthop need a tile, navmesh or pov graph");
    if (out.hierarchy && !out.clusters)
        return r.fail(r.at("hierarchy"), "needs clusters (\"clusters\": true)");
    if (out.next_hop == AgentConfig::NextHop::hierarchical && !out.clusters)
        return r.fail(r.at("nexthop"), "a hierarchical table needs clusters (\"clusters\": true)");
    return {};
}

}  // namespace

Result<LevelConfig> parseLevelConfig(const std::string& text, const fs::path& path) {
    Json root;
    try {
        root = Json::parse(text);
    } catch (const Json::parse_error& e) {
        return inputError("{}: not valid JSON at byte {}: {}", path.string(), e.byte, e.what());
    }
    LevelConfig c;
    c.file = fs::absolute(path);
    const fs::path base = c.file.parent_path();
    Reader r(root, "$", path);
    if (Status s = r.expectObject(); !s) return s.error();
    r.has("$schema") ? (void)r.get("$schema") : (void)0;
    if (!r.has("input")) return r.fail("$.input", "missing (the level file(s) to bake)").error();
    const Json& input = r.get("input");
    std::vector<std::pair<std::string, std::string>> names;  // path in config, JSON path
    if (input.is_string()) {
        names.push_back({input.get<std::string>(), "$.input"});
    } else if (input.is_array() && !input.empty()) {
        for (size_t i = 0; i < input.size(); ++i) {
            if (!input[i].is_string())
                return r.typeError(fmt::format("$.input[{}]", i), "a file name", input[i]).error();
            names.push_back({input[i].get<std::string>(), fmt::format("$.input[{}]", i)});
        }
    } else {
        return r.typeError("$.input", "a file name or a non-empty array of them", input).error();
    }
    for (const auto& [name, at] : names) {
        const fs::path p = fs::absolute(base / name).lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            return r.fail(at, fmt::format("file '{}' not found (looked for {})", name, p.string())).error();
        c.inputs.push_back(p);
    }
    auto lower = [](fs::path p) {
        std::string e = p.extension().string();
        for (char& ch : e) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        return e;
    };
    c.grid_map = lower(c.inputs[0]) == ".map";
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (lower(c.inputs[i]) == ".3dmap")
            return r.fail(names[i].second, "MovingAI .3dmap files are not supported by build; use "
                                           "'navbake import' and 'navbake graph volume'").error();
        if ((lower(c.inputs[i]) == ".map") != c.grid_map || (c.grid_map && c.inputs.size() > 1))
            return r.fail(names[i].second, "a MovingAI .map must be the only input").error();
    }
    std::string output;
    if (Status s = r.string("output", output); !s) return s.error();
    c.output = output.empty() ? base / (c.file.stem().string() + ".navbake")
                              : fs::absolute(base / output).lexically_normal();
    if (Status s = r.boolean("debug_views", c.debug_views); !s) return s.error();
    if (r.has("import")) {
        Reader ir(r.get("import"), "$.import", path);
        if (Status s = ir.expectObject(); !s) return s.error();
        std::string up = "y", tags;
        if (Status s = ir.string("up", up, {"y", "z"}); !s) return s.error();
        c.up = up == "z" ? importer::UpAxis::z : importer::UpAxis::y;
        if (Status s = ir.number("scale", c.scale, true); !s) return s.error();
        if (Status s = ir.string("tags", tags); !s) return s.error();
        if (!tags.empty()) {
            c.tags = fs::absolute(base / tags).lexically_normal();
            std::error_code ec;
            if (!fs::is_regular_file(c.tags, ec))
                return ir.fail("$.import.tags", fmt::format("file '{}' not found", tags)).error();
        }
        if (Status s = ir.finish({"up", "scale", "tags"}); !s) return s.error();
    }
    if (r.has("voxel")) {
        Reader vr(r.get("voxel"), "$.voxel", path);
        if (Status s = vr.expectObject(); !s) return s.error();
        if (Status s = vr.number("cell_size", c.cell_size, true); !s) return s.error();
        if (Status s = vr.number("cell_height", c.cell_height, true); !s) return s.error();
        if (Status s = vr.finish({"cell_size", "cell_height"}); !s) return s.error();
    }
    if (r.has("navmesh")) {
        Reader nr(r.get("navmesh"), "$.navmesh", path);
        if (Status s = nr.expectObject(); !s) return s.error();
        uint32_t tile = 0, verts = uint32_t(c.navmesh.max_verts_per_poly);
        if (Status s = nr.unsignedInt("tile_size", tile, 0, 4096); !s) return s.error();
        if (Status s = nr.unsignedInt("max_verts_per_poly", verts, 3, 6); !s) return s.error();
        if (Status s = nr.number("edge_max_error", c.navmesh.edge_max_error, true); !s) return s.error();
        if (Status s = nr.number("region_min_size", c.navmesh.region_min_size); !s) return s.error();
        if (Status s = nr.number("region_merge_size", c.navmesh.region_merge_size); !s) return s.error();
        c.navmesh.tile_size = int(tile);
        c.navmesh.max_verts_per_poly = int(verts);
        if (Status s = nr.finish({"tile_size", "max_verts_per_poly", "edge_max_error",
                                  "region_min_size", "region_merge_size"});
            !s)
            return s.error();
    }
    if (r.has("agents")) {
        const Json& agents = r.get("agents");
        if (!agents.is_array() || agents.empty())
            return r.typeError("$.agents", "a non-empty array of agent profiles", agents).error();
        for (size_t i = 0; i < agents.size(); ++i) {
            AgentConfig a;
            if (Status s = parseAgent(agents[i], fmt::format("$.agents[{}]", i), path, i, a); !s)
                return s.error();
            for (const AgentConfig& other : c.agents)
                if (other.name == a.name)
                    return r.fail(fmt::format("$.agents[{}].name", i),
                                  fmt::format("'{}' is used by two agents", a.name)).error();
            c.agents.push_back(a);
        }
    } else {
        c.agents.push_back(AgentConfig{});
    }
    if (Status s = r.finish({"$schema", "input", "output", "debug_views", "import", "voxel",
                             "navmesh", "agents"});
        !s)
        return s.error();
    // Impossible agents: what voxelize would refuse, reported at the agent's path.
    for (size_t i = 0; i < c.agents.size() && !c.grid_map; ++i) {
        vox::VoxelizeParams p;
        p.cell_size = c.cell_size;
        p.cell_height = c.cell_height;
        p.agent = c.agents[i].agent;
        if (Status s = vox::checkParams(p); !s)
            return r.fail(fmt::format("$.agents[{}]", i), s.error().message).error();
        if (p.agent.height < c.cell_height)
            return r.fail(fmt::format("$.agents[{}].height", i),
                          fmt::format("{} m is below one cell height ({} m): no agent that small "
                                      "can be represented", p.agent.height, c.cell_height)).error();
    }
    return c;
}

// ---- The stage graph ---------------------------------------------------------------------------
namespace {

std::string hex(uint64_t v) { return fmt::format("{:016x}", v); }

uint64_t peakRss() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return uint64_t(usage.ru_maxrss) * 1024;  // Linux: kilobytes
}

std::string formatVersions() {
    return fmt::format("container {} geo {} vox {} graph {} nav {} clus {} hier {} nhop {} nhhi {}",
                       formats::kContainerVersion, formats::kGeometryVersion,
                       formats::kVoxelsVersion, formats::kGraphVersion, formats::kNavVersion,
                       formats::kClustersVersion, formats::kHierarchyVersion,
                       formats::kNextHopVersion, formats::kHierNextHopVersion);
}

struct Stage {
    std::string name, kind, agent, graph;
    std::vector<size_t> deps;
    OJson params = OJson::object();
    std::vector<fs::path> sources;  // hashed by their bytes
    uint64_t key = 0;
    fs::path artifact;
    std::function<Status(Stage&, Context&)> run;
    StageReport report;
};

Status fileHash(const fs::path& path, uint64_t& out) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    out = formats::xxhash64(bytes->data(), bytes->size(), 0);
    return {};
}

// Walkable islands of a graph: warning text when more than one component holds nodes.
void islandWarning(const graph::Graph& g, const std::string& what, StageReport& report) {
    std::map<uint32_t, uint64_t> sizes;
    for (uint32_t c : g.components)
        if (c != graph::kNoNode) ++sizes[c];
    report.counts["components"] = sizes.size();
    if (sizes.size() <= 1) return;
    uint64_t largest = 0, total = 0;
    for (const auto& [c, n] : sizes) {
        largest = std::max(largest, n);
        total += n;
    }
    report.warnings.push_back(fmt::format("{}: {} walkable islands ({} nodes) are unreachable from "
                                          "the largest component ({} nodes)",
                                          what, sizes.size() - 1, total - largest, largest));
}

void graphCounts(const graph::Graph& g, StageReport& report) {
    report.counts["nodes"] = g.nodeCount();
    report.counts["edges"] = g.edgeCount();
    if (g.header.type == graph::GraphType::navmesh) report.counts["polygons"] = g.nodeCount();
}

// The stages of the config, in dependency order.
std::vector<Stage> planStages(const LevelConfig& c) {
    std::vector<Stage> stages;
    const fs::path cache = c.output / ".cache";
    auto add = [&](Stage st, const std::string& ext) {
        st.report.name = st.name;
        st.report.kind = st.kind;
        st.report.agent = st.agent;
        stages.push_back(std::move(st));
        stages.back().artifact = cache / ext;  // completed with the key once known
        return stages.size() - 1;
    };
    std::vector<size_t> imports;
    for (const fs::path& input : c.inputs) {
        Stage st;
        st.kind = "import";
        st.name = "import " + input.filename().string();
        st.sources = {input};
        if (!c.tags.empty()) st.sources.push_back(c.tags);
        if (!c.grid_map) st.params = {{"up", c.up == importer::UpAxis::z ? "z" : "y"}, {"scale", c.scale}};
        st.run = [&c, input](Stage& self, Context& context) -> Status {
            if (c.grid_map) {
                auto map = importer::loadMovingAiMap(input);
                if (!map) return map.error();
                vox::VoxelGrid grid = vox::gridFromMap(*map);
                grid.source_name = input.filename().string();
                self.report.counts["cells"] = size_t(map->width) * map->height;
                self.report.counts["passable"] = map->passableCount();
                return vox::saveVoxels(self.artifact, grid);
            }
            importer::ImportParams params;
            params.up = c.up;
            params.scale = c.scale;
            if (!c.tags.empty()) {
                auto tags = importer::loadTagConfig(c.tags);
                if (!tags) return tags.error();
                params.tags = std::move(*tags);
            }
            auto geometry = importer::importScene(input, params, context);
            if (!geometry) return geometry.error();
            self.report.counts["triangles"] = geometry->triangleCount();
            self.report.counts["vertices"] = geometry->vertexCount();
            self.report.counts["objects"] = geometry->objects.size();
            return geo::saveGeometry(self.artifact, *geometry);
        };
        imports.push_back(add(std::move(st), c.grid_map ? "vox" : "geo"));
    }
    for (const AgentConfig& agent : c.agents) {
        size_t voxels = imports[0];
        if (!c.grid_map) {
            Stage st;
            st.kind = "voxelize";
            st.agent = agent.name;
            st.name = "voxelize " + agent.name;
            st.deps = imports;
            st.params = {{"cell_size", c.cell_size}, {"cell_height", c.cell_height},
                         {"height", agent.agent.height}, {"radius", agent.agent.radius},
                         {"climb", agent.agent.climb}, {"max_slope", agent.agent.max_slope_deg}};
            st.run = [&c, &agent, &stages](Stage& self, Context& context) -> Status {
                geo::Geometry merged;
                for (size_t d : self.deps) {
                    auto part = geo::loadGeometry(stages[d].artifact);
                    if (!part) return part.error();
                    if (d == self.deps[0]) {
                        merged = std::move(*part);
                        continue;
                    }
                    if (part->areas != merged.areas)
                        return inputError("{} uses another area table than {}; give every input "
                                          "the same tag rules", stages[d].name, stages[self.deps[0]].name);
                    const uint32_t base = uint32_t(merged.vertexCount());
                    const uint32_t objects = uint32_t(merged.objects.size());
                    merged.vertices.insert(merged.vertices.end(), part->vertices.begin(), part->vertices.end());
                    for (uint32_t v : part->triangles) merged.triangles.push_back(v + base);
                    merged.triangle_areas.insert(merged.triangle_areas.end(), part->triangle_areas.begin(),
                                                 part->triangle_areas.end());
                    for (uint32_t o : part->triangle_objects) merged.triangle_objects.push_back(o + objects);
                    merged.objects.insert(merged.objects.end(), part->objects.begin(), part->objects.end());
                }
                vox::VoxelizeParams params;
                params.cell_size = c.cell_size;
                params.cell_height = c.cell_height;
                params.agent = agent.agent;
                auto grid = vox::voxelize(merged, params, context);
                if (!grid) return grid.error();
                grid->source_name = c.inputs[0].filename().string();
                const vox::VoxelStats stats = vox::computeStats(*grid);
                self.report.counts["columns"] = stats.columns;
                self.report.counts["spans"] = stats.spans;
                self.report.counts["walkable_spans"] = stats.walkable_spans;
                self.report.counts["walkable_columns"] = stats.walkable_columns;
                if (stats.walkable_spans == 0)
                    self.report.warnings.push_back(fmt::format(
                        "agent '{}' fits nowhere: no walkable surface (height {} m, radius {} m, "
                        "climb {} m, max slope {} degrees)",
                        agent.name, agent.agent.height, agent.agent.radius, agent.agent.climb,
                        agent.agent.max_slope_deg));
                return vox::saveVoxels(self.artifact, *grid);
            };
            voxels = add(std::move(st), "vox");
        }
        for (const std::string& kind : agent.graphs) {
            Stage gs;
            gs.kind = "graph";
            gs.agent = agent.name;
            gs.graph = kind;
            gs.name = "graph " + kind + " " + agent.name;
            gs.deps = {voxels};
            gs.params = {{"graph", kind}};
            if (kind == "navmesh")
                gs.params["navmesh"] = {{"tile_size", c.navmesh.tile_size},
                                        {"max_verts_per_poly", c.navmesh.max_verts_per_poly},
                                        {"edge_max_error", c.navmesh.edge_max_error},
                                        {"region_min_size", c.navmesh.region_min_size},
                                        {"region_merge_size", c.navmesh.region_merge_size}};
            if (kind == "volume") gs.params["radius"] = agent.agent.radius;
            gs.run = [&c, &agent, kind, &stages](Stage& self, Context& context) -> Status {
                auto grid = vox::loadVoxels(stages[self.deps[0]].artifact);
                if (!grid) return grid.error();
                Result<graph::Graph> g = inputError("unknown graph kind");
                if (kind == "tile") g = graph::buildTileGraph(*grid, context);
                else if (kind == "navmesh") g = graph::buildNavmeshGraph(*grid, c.navmesh, context);
                else if (kind == "pov") g = graph::buildPovGraph(*grid, {}, context);
                else g = graph::buildVolumeGraph(*grid, agent.agent.radius, context);
                if (!g) return g.error();
                graphCounts(*g, self.report);
                if (kind != "volume") islandWarning(*g, fmt::format("{} graph of '{}'", kind, agent.name), self.report);
                return graph::saveGraph(self.artifact, *g);
            };
            const size_t graph_stage = add(std::move(gs), "graph");
            std::vector<size_t> pack_deps = {graph_stage};
            const bool explicit_graph = kind != "volume";
            size_t clusters = SIZE_MAX;
            if (agent.clusters && explicit_graph) {
                Stage cs;
                cs.kind = "cluster";
                cs.agent = agent.name;
                cs.graph = kind;
                cs.name = "cluster " + kind + " " + agent.name;
                cs.deps = {graph_stage};
                cs.params = {{"method", agent.cluster.method == cluster::ClusterParams::regions ? "regions" : "grid"},
                             {"cluster_size", agent.cluster.cluster_size},
                             {"clusters", agent.cluster.clusters}};
                cs.run = [&agent, &stages](Stage& self, Context& context) -> Status {
                    auto g = graph::loadGraph(stages[self.deps[0]].artifact);
                    if (!g) return g.error();
                    auto cl = cluster::buildClusters(*g, agent.cluster, context);
                    if (!cl) return cl.error();
                    self.report.counts["clusters"] = cl->count();
                    return cluster::saveClusters(self.artifact, *cl);
                };
                clusters = add(std::move(cs), "clu");
                pack_deps.push_back(clusters);
            }
            if (agent.hierarchy && clusters != SIZE_MAX) {
                Stage hs;
                hs.kind = "hierarchy";
                hs.agent = agent.name;
                hs.graph = kind;
                hs.name = "hierarchy " + kind + " " + agent.name;
                hs.deps = {graph_stage, clusters};
                hs.params = {{"levels", agent.hierarchy_params.levels},
                             {"fanout", agent.hierarchy_params.fanout},
                             {"cost", formats::hierCostName(agent.hierarchy_params.cost)},
                             {"entrances", agent.hierarchy_params.entrances == formats::EntranceMode::all ? "all" : "sparse"}};
                hs.run = [&agent, &stages](Stage& self, Context& context) -> Status {
                    auto g = graph::loadGraph(stages[self.deps[0]].artifact);
                    if (!g) return g.error();
                    auto cl = cluster::loadClusters(stages[self.deps[1]].artifact);
                    if (!cl) return cl.error();
                    auto h = cluster::buildHierarchy(*g, *cl, agent.hierarchy_params, context);
                    if (!h) return h.error();
                    self.report.counts["levels"] = h->levelCount();
                    self.report.counts["entrances"] = h->entrances.size();
                    return cluster::saveHierarchy(self.artifact, *h);
                };
                pack_deps.push_back(add(std::move(hs), "hier"));
            }
            if (agent.next_hop != AgentConfig::NextHop::none && explicit_graph) {
                const bool hierarchical = agent.next_hop == AgentConfig::NextHop::hierarchical;
                Stage ns;
                ns.kind = "nexthop";
                ns.agent = agent.name;
                ns.graph = kind;
                ns.name = "nexthop " + kind + " " + agent.name;
                ns.deps = {graph_stage};
                if (hierarchical) ns.deps.push_back(clusters);
                ns.params = {{"hierarchical", hierarchical}, {"max_memory", agent.next_hop_max_memory}};
                ns.run = [&agent, hierarchical, &stages](Stage& self, Context& context) -> Status {
                    auto g = graph::loadGraph(stages[self.deps[0]].artifact);
                    if (!g) return g.error();
                    nexthop::BuildParams params;
                    params.max_memory = agent.next_hop_max_memory;
                    if (hierarchical) {
                        auto cl = cluster::loadClusters(stages[self.deps[1]].artifact);
                        if (!cl) return cl.error();
                        auto t = nexthop::buildHierTable(*g, *cl, params, context);
                        if (!t) return t.error();
                        self.report.counts["table_bytes"] = t->bytes();
                        return nexthop::saveHierTable(self.artifact, *t);
                    }
                    auto t = nexthop::buildTable(*g, params, context);
                    if (!t) return t.error();
                    self.report.counts["runs"] = t->header.run_count;
                    self.report.counts["table_bytes"] = t->blocks.size();
                    return nexthop::saveTable(self.artifact, *t);
                };
                pack_deps.push_back(add(std::move(ns), hierarchical ? "nhh" : "nh"));
            }
            Stage ps;
            ps.kind = "pack";
            ps.agent = agent.name;
            ps.graph = kind;
            ps.name = "pack " + kind + " " + agent.name;
            ps.deps = pack_deps;
            ps.run = [&stages](Stage& self, Context&) -> Status {
                auto g = graph::loadGraph(stages[self.deps[0]].artifact);
                if (!g) return g.error();
                formats::ContainerWriter writer = graph::graphWriter(*g, formats::kKindNav);
                std::optional<cluster::Clusters> packed_clusters;
                for (size_t i = 1; i < self.deps.size(); ++i) {
                    const Stage& d = stages[self.deps[i]];
                    if (d.kind == "cluster") {
                        auto cl = cluster::loadClusters(d.artifact);
                        if (!cl) return cl.error();
                        cluster::addClusterSections(writer, *cl);
                        packed_clusters = std::move(*cl);
                    } else if (d.kind == "hierarchy") {
                        auto h = cluster::loadHierarchy(d.artifact, *packed_clusters, stages[self.deps[1]].artifact);
                        if (!h) return h.error();
                        cluster::addHierarchySections(writer, *h);
                    } else if (d.kind == "nexthop" && d.artifact.extension() == ".nhh") {
                        auto t = nexthop::loadHierTable(d.artifact);
                        if (!t) return t.error();
                        nexthop::addHierTableSections(writer, *t);
                    } else if (d.kind == "nexthop") {
                        auto t = nexthop::loadTable(d.artifact);
                        if (!t) return t.error();
                        nexthop::addNextHopSections(writer, *t);
                    }
                }
                if (Status s = saveContainer(self.artifact, writer); !s) return s;
                std::error_code ec;
                self.report.counts["bytes"] = fs::file_size(self.artifact, ec);
                return {};
            };
            add(std::move(ps), "nav");
        }
    }
    return stages;
}

std::string outputName(const Stage& st) { return st.agent + "." + st.graph + ".nav"; }

fs::path reportPath(const LevelConfig& c) { return c.output / (c.file.stem().string() + ".report.json"); }

// Keys in dependency order; sources hashed by bytes. Errors: unreadable sources.
Status computeKeys(std::vector<Stage>& stages) {
    const std::string versions = formatVersions();
    for (Stage& st : stages) {
        std::string text = st.kind + "\n" + st.params.dump() + "\n" + versions + "\n";
        for (const fs::path& source : st.sources) {
            uint64_t h = 0;
            if (Status s = fileHash(source, h); !s) return s;
            text += source.filename().string() + " " + hex(h) + "\n";
        }
        for (size_t d : st.deps) text += hex(stages[d].key) + "\n";
        st.key = formats::xxhash64(text.data(), text.size(), 0);
        const std::string ext = st.artifact.filename().string();
        st.artifact = st.artifact.parent_path() /
                      fmt::format("{}-{}{}{}.{}", st.kind, st.agent.empty() ? "" : st.agent + "-",
                                  st.graph.empty() ? "" : st.graph + "-", hex(st.key), ext);
        st.report.key = hex(st.key);
        st.report.artifact = fs::relative(st.artifact, st.artifact.parent_path().parent_path()).string();
    }
    return {};
}

}  // namespace

OJson BuildReport::toJson(const LevelConfig& c) const {
    OJson stages_json = OJson::array();
    std::vector<std::string> warnings;
    for (const StageReport& st : stages) {
        stages_json.push_back({{"name", st.name},
                               {"kind", st.kind},
                               {"agent", st.agent},
                               {"status", st.skipped ? "up to date" : "built"},
                               {"milliseconds", st.milliseconds},
                               {"peak_rss_bytes", st.peak_rss_bytes},
                               {"key", st.key},
                               {"artifact", st.artifact},
                               {"counts", st.counts},
                               {"warnings", st.warnings}});
        for (const std::string& w : st.warnings) warnings.push_back(w);
    }
    OJson outputs_json = OJson::array();
    for (const OJson& entry : output_entries) outputs_json.push_back(entry);
    return {{"config", c.file.filename().string()},
            {"navbake_format", formatVersions()},
            {"milliseconds", milliseconds},
            {"peak_rss_bytes", peakRss()},
            {"stages", stages_json},
            {"outputs", outputs_json},
            {"views", views},
            {"warnings", warnings}};
}

Result<BuildReport> runBuild(const LevelConfig& c, const BuildOptions& options, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Stage> stages = planStages(c);
    if (Status s = computeKeys(stages); !s) return s.error();
    BuildReport report;
    // The previous report: keys, counts and output hashes of the last build.
    OJson previous;
    if (auto bytes = readFile(reportPath(c))) {
        try {
            previous = OJson::parse(bytes->begin(), bytes->end());
        } catch (const std::exception&) {
            previous = OJson();
        }
    }
    std::map<std::string, const OJson*> previous_stage;
    if (previous.is_object() && previous.contains("stages") && previous["stages"].is_array())
        for (const OJson& st : previous["stages"])
            if (st.is_object() && st.contains("name") && st["name"].is_string())
                previous_stage[st["name"].get<std::string>()] = &st;

    if (options.check) {
        if (previous.is_null())
            return inputError("{}: no build report at {}: run 'navbake build {}' first",
                              c.file.string(), reportPath(c).string(), c.file.string());
        for (const Stage& st : stages) {
            auto it = previous_stage.find(st.name);
            if (it == previous_stage.end()) report.stale.push_back(st.name + " (new stage)");
            else if (!it->second->contains("key") || (*it->second)["key"] != hex(st.key))
                report.stale.push_back(st.name + " (inputs or parameters changed)");
        }
        std::map<std::string, std::string> recorded;
        if (previous.contains("outputs") && previous["outputs"].is_array())
            for (const OJson& o : previous["outputs"])
                if (o.contains("file") && o.contains("xxh64"))
                    recorded[o["file"].get<std::string>()] = o["xxh64"].get<std::string>();
        for (const Stage& st : stages) {
            if (st.kind != "pack") continue;
            const std::string name = outputName(st);
            uint64_t h = 0;
            if (!fs::exists(c.output / name) || !fileHash(c.output / name, h) ||
                recorded[name] != hex(h))
                report.stale.push_back(name + " (missing or modified output)");
        }
        if (!report.stale.empty()) {
            std::string list;
            for (const std::string& s : report.stale) list += "\n  " + s;
            return inputError("{}: the outputs in {} are stale:{}", c.file.string(),
                              c.output.string(), list);
        }
        return report;
    }

    std::error_code ec;
    fs::create_directories(c.output / ".cache", ec);
    if (ec) return makeError(ErrorKind::io, "cannot create {}: {}", (c.output / ".cache").string(), ec.message());

    // Scheduler: a stage runs once its dependencies are done; up to `jobs` at once.
    const size_t count = stages.size();
    std::vector<size_t> waiting(count);
    std::vector<std::vector<size_t>> dependents(count);
    for (size_t i = 0; i < count; ++i) {
        waiting[i] = stages[i].deps.size();
        for (size_t d : stages[i].deps) dependents[d].push_back(i);
    }
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<size_t> ready;
    for (size_t i = 0; i < count; ++i)
        if (waiting[i] == 0) ready.push_back(i);
    size_t finished = 0, running = 0;
    std::optional<Error> failure;
    auto work = [&]() {
        std::unique_lock lock(mutex);
        for (;;) {
            wake.wait(lock, [&] { return !ready.empty() || finished == count || failure || (running == 0 && ready.empty()); });
            if (failure || finished == count || ready.empty()) {
                wake.notify_all();
                return;
            }
            const size_t i = ready.front();
            ready.erase(ready.begin());
            ++running;
            lock.unlock();
            Stage& st = stages[i];
            const auto t0 = std::chrono::steady_clock::now();
            Status status;
            auto it = previous_stage.find(st.name);
            const bool cached = !options.force && fs::exists(st.artifact) && loadContainer(st.artifact).ok();
            if (context.cancelled()) {
                status = makeError(ErrorKind::cancelled, "build cancelled");
            } else if (cached) {
                st.report.skipped = true;
                if (it != previous_stage.end() && (*it->second).contains("counts") &&
                    (*it->second)["key"] == hex(st.key)) {
                    st.report.counts = (*it->second)["counts"];
                    if ((*it->second).contains("warnings"))
                        for (const auto& w : (*it->second)["warnings"]) st.report.warnings.push_back(w.get<std::string>());
                }
                context.info("up to date: {}", st.name);
            } else {
                status = st.run(st, context);
                if (status) context.info("built: {} ({:.0f} ms)", st.name,
                                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            }
            st.report.milliseconds =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            st.report.peak_rss_bytes = peakRss();
            for (const std::string& w : st.report.warnings)
                if (!st.report.skipped) context.warn("{}", w);
            lock.lock();
            --running;
            ++finished;
            if (!status) {
                if (!failure) failure = Error{status.error().kind,
                                              fmt::format("{}: {}", st.name, status.error().message)};
            } else {
                for (size_t d : dependents[i])
                    if (--waiting[d] == 0) ready.push_back(d);
            }
            wake.notify_all();
        }
    };
    const int jobs = resolveThreads(options.jobs);
    std::vector<std::thread> workers;
    for (int j = 1; j < jobs; ++j) workers.emplace_back(work);
    work();
    for (std::thread& t : workers) t.join();
    if (failure) return *failure;
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "build cancelled");

    // Publish the final assets (only when their bytes change) and the report, atomically.
    for (const Stage& st : stages) {
        report.stages.push_back(st.report);
        if (st.kind != "pack") continue;
        const std::string name = outputName(st);
        report.outputs.push_back(name);
        auto bytes = readFile(st.artifact);
        if (!bytes) return bytes.error();
        auto current = readFile(c.output / name);
        if (!current || *current != *bytes) {
            if (Status s = writeFileAtomic(c.output / name, *bytes); !s) return s.error();
            context.info("wrote {}", (c.output / name).string());
        }
        // The report's entry, from the bytes just published.
        OJson entry = {{"file", name},
                       {"bytes", bytes->size()},
                       {"xxh64", hex(formats::xxhash64(bytes->data(), bytes->size(), 0))}};
        auto parsed = parseContainerBytes(std::move(*bytes), c.output / name);
        if (!parsed) return parsed.error();
        OJson sections = OJson::object();
        for (uint32_t k = 0; k < parsed->container.section_count; ++k) {
            const formats::SectionEntry& e = parsed->container.sections[k];
            char id[5];
            formats::fourccToString(e.id, id);
            sections[id] = e.stored_size;
        }
        entry["sections"] = sections;
        report.output_entries.push_back(std::move(entry));
    }
    // Debug views: a top-down PNG and a 3D GLB per asset (and the imported geometry), redrawn
    // when missing or older than their asset.
    if (c.debug_views) {
        fs::create_directories(c.output / "views", ec);
        std::vector<std::pair<fs::path, std::string>> sources;
        if (!c.grid_map) sources.push_back({stages[0].artifact, "level.geometry"});
        for (const std::string& o : report.outputs) sources.push_back({c.output / o, fs::path(o).stem().string()});
        for (const auto& [artifact, stem] : sources) {
            for (const char* ext : {".png", ".glb"}) {
                const fs::path out = c.output / "views" / (stem + ext);
                std::error_code time_ec;
                if (fs::exists(out) && fs::last_write_time(out, time_ec) >= fs::last_write_time(artifact, time_ec) &&
                    !options.force) {
                    report.views.push_back(fs::relative(out, c.output).string());
                    continue;
                }
                view::ViewOptions vo;
                vo.size = 1024;
                if (Status s = view::writeView(artifact, out, vo, context); !s) return s.error();
                report.views.push_back(fs::relative(out, c.output).string());
            }
        }
    }
    report.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::string text = report.toJson(c).dump(2) + "\n";
    if (Status s = writeFileAtomic(reportPath(c), std::span<const uint8_t>(
                                       reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        !s)
        return s.error();
    return report;
}

Result<LevelConfig> loadLevelConfig(const fs::path& path) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    return parseLevelConfig(std::string(bytes->begin(), bytes->end()), path);
}

}  // namespace nav::build
