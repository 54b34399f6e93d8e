#include "lib/pipeline/pipeline.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "formats/layouts.h"
#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/json_reader.h"
#include "lib/common/parallel.h"
#include "lib/pack/pack.h"
#include "lib/view/view.h"

namespace nav::pipeline {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

// The strips a world build's import makes when the config names none [Units: m]: voxelize then
// holds the triangles of a band of ~2 strips (and the rows it works on), whatever the level's
// depth. Measured on city32 (21 M triangles), voxelize on 2 threads: strips of 32 m 76 MiB,
// 16 m 57 MiB, 8 m 49 MiB, 4 m 47 MiB (the rows it works on are then the rest) for files of
// 218, 221, 228 and 243 MB.
constexpr float kWorldStripSize = 8.0f;

// ---- Config parsing ----------------------------------------------------------------------------
// Types are checked here; values by each stage's check(), with its fields named by JSON path.

// A stage's check() as one config error, each field named by `name`.
template <class S>
Status stageIssues(const fs::path& file, const typename S::Params& params, const FieldNamer& name) {
    if (Status s = checkStage<S>(params, name); !s)
        return inputError("{}: {}", file.string(), s.error().message);
    return {};
}

// $...graphs: a non-empty array of graph kinds, each once.
Status readGraphKinds(JsonReader& r, std::vector<graph::GraphKind>& out) {
    if (!r.has("graphs")) return {};
    const Json& graphs = r.get("graphs");
    if (!graphs.is_array() || graphs.empty())
        return r.typeError(r.at("graphs"), "a non-empty array of graph kinds", graphs);
    out.clear();
    for (size_t i = 0; i < graphs.size(); ++i) {
        const std::string at = JsonReader::at(r.at("graphs"), i);
        if (!graphs[i].is_string()) return r.typeError(at, "a string", graphs[i]);
        const std::string word = graphs[i].get<std::string>();
        graph::GraphKind kind{};
        if (!parseChoice<graph::GraphKind>(graph::kGraphKinds, word, kind))
            return r.fail(at, notAChoice<graph::GraphKind>(graph::kGraphKinds, word));
        if (std::find(out.begin(), out.end(), kind) != out.end())
            return r.fail(at, fmt::format("'{}' is listed twice", word));
        out.push_back(kind);
    }
    return {};
}

Status parseAgent(const Json& value, const std::string& path, const fs::path& file, size_t index,
                  AgentConfig& out) {
    JsonReader r(value, path, file);
    if (Status s = r.expectObject(); !s) return s;
    out.name = index == 0 ? "default" : "agent" + std::to_string(index);
    if (Status s = r.string("name", out.name); !s) return s;
    if (out.name.empty() || out.name.size() > 64 ||
        !std::all_of(out.name.begin(), out.name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        }))
        return r.fail(r.at("name"), fmt::format("'{}' must be 1-64 letters, digits, '_' or '-' (it "
                                                "names output files)",
                                                out.name));
    voxel::AgentParams& agent = out.voxelize.agent;
    if (Status s = r.number("height", agent.height); !s) return s;
    if (Status s = r.number("radius", agent.radius); !s) return s;
    if (Status s = r.number("climb", agent.climb); !s) return s;
    if (Status s = r.number("max_slope", agent.max_slope_deg); !s) return s;
    out.graph.agent_radius = agent.radius;
    out.voxelize.area_mask_where = r.where() + ".area_mask";
    out.voxelize.area_costs_where = r.where() + ".area_costs";
    if (r.has("area_costs")) {
        const Json& costs = r.get("area_costs");
        if (!costs.is_object())
            return r.typeError(r.at("area_costs"), "an object of area name: cost", costs);
        for (const auto& [name, cost] : costs.items()) {
            if (!cost.is_number())
                return r.typeError(r.at("area_costs") + "." + name, "a number", cost);
            out.voxelize.area_costs.push_back({name, cost.get<float>()});
        }
    }
    if (r.has("area_mask")) {
        const Json& mask = r.get("area_mask");
        if (!mask.is_array() || mask.empty())
            return r.typeError(r.at("area_mask"), "a non-empty array of area names", mask);
        for (size_t k = 0; k < mask.size(); ++k) {
            if (!mask[k].is_string())
                return r.typeError(JsonReader::at(r.at("area_mask"), k), "an area name", mask[k]);
            out.voxelize.area_mask.push_back(mask[k].get<std::string>());
        }
    }
    if (Status s = r.number("uphill", out.graph.uphill); !s) return s;
    if (Status s = r.number("downhill", out.graph.downhill); !s) return s;
    if (Status s = r.boolean("poi_tables", out.graph.poi_tables); !s) return s;
    if (Status s = r.boolean("jump_points", out.jump_points); !s) return s;
    if (Status s = r.boolean("goal_bounds", out.goal_bounds); !s) return s;
    graph::LinkGenParams& gen = out.graph.generate;
    if (Status s = r.number("drop_height", gen.drop_height); !s) return s;
    if (Status s = r.number("jump_distance", gen.jump_distance); !s) return s;
    if (Status s = r.number("jump_up_height", gen.jump_up_height); !s) return s;
    if (Status s = r.number("link_spacing", gen.spacing); !s) return s;
    if (Status s = r.number("link_max_width", gen.max_width); !s) return s;
    if (Status s = readGraphKinds(r, out.graphs); !s) return s;
    // clusters / hierarchy / nexthop: true, or an object of the stage's parameters.
    auto section = [&](std::string_view key, bool& enabled, auto&& read,
                       std::initializer_list<std::string_view> keys) -> Status {
        if (!r.has(key)) return {};
        const Json& v = r.get(key);
        if (v.is_boolean()) {
            enabled = v.get<bool>();
            return {};
        }
        JsonReader sr(v, r.at(key), file);
        if (Status s = sr.expectObject(); !s) return s;
        enabled = true;
        if (Status s = read(sr); !s) return s;
        return sr.finish(keys);
    };
    if (Status st = section(
            "clusters", out.clusters,
            [&](JsonReader& cr) -> Status {
                if (Status s = cr.choice<cluster::ClusterParams::Method>(
                        "method", cluster::kClusterMethods, out.cluster.method);
                    !s)
                    return s;
                if (Status s = cr.integer("cluster_size", out.cluster.cluster_size); !s) return s;
                if (Status s = cr.integer("clusters", out.cluster.clusters); !s) return s;
                if (Status s = cr.integer("landmarks", out.cluster.landmarks); !s) return s;
                if (Status s = cluster::parseRooms(cr, out.cluster); !s) return s;
                return cr.integer("threads", out.cluster.threads);
            },
            {"method", "cluster_size", "clusters", "landmarks", "rooms", "group_costs", "threads"});
        !st)
        return st;
    if (Status st = section(
            "hierarchy", out.hierarchy,
            [&](JsonReader& hr) -> Status {
                cluster::HierarchyParams& h = out.hierarchy_params;
                if (Status s = hr.integer("levels", h.levels); !s) return s;
                if (Status s = hr.integer("fanout", h.fanout); !s) return s;
                if (Status s = hr.choice<formats::HierCost>("cost", cluster::kHierCosts, h.cost);
                    !s)
                    return s;
                if (Status s = hr.choice<formats::EntranceMode>(
                        "entrances", cluster::kEntranceModes, h.entrances);
                    !s)
                    return s;
                if (Status s = hr.integer("entrance_spacing", h.spacing); !s) return s;
                if (Status s = hr.boolean("entrance_tables", h.tables); !s) return s;
                return hr.integer("threads", h.threads);
            },
            {"levels", "fanout", "cost", "entrances", "entrance_spacing", "entrance_tables",
             "threads"});
        !st)
        return st;
    bool next_hop = false, hierarchical = false;
    if (Status st = section("nexthop", next_hop,
                            [&](JsonReader& nr) -> Status {
                                nexthop::BuildParams& n = out.next_hop_params;
                                std::string budget;
                                if (Status s = nr.boolean("hierarchical", hierarchical); !s)
                                    return s;
                                if (Status s = nr.string("max_memory", budget); !s) return s;
                                if (!budget.empty() && !parseMemorySize(budget, n.max_memory))
                                    return nr.fail(
                                        nr.at("max_memory"),
                                        fmt::format("'{}' is not a size like 512M or 2G", budget));
                                if (Status s = nr.integer("block_rows", n.block_rows); !s) return s;
                                return nr.integer("threads", n.threads);
                            },
                            {"hierarchical", "max_memory", "block_rows", "threads"});
        !st)
        return st;
    out.next_hop = !next_hop      ? AgentConfig::NextHop::none
                   : hierarchical ? AgentConfig::NextHop::hierarchical
                                  : AgentConfig::NextHop::flat;
    if (Status s =
            r.finish({"name", "height", "radius", "climb", "max_slope", "area_costs", "area_mask",
                      "drop_height", "jump_distance", "jump_up_height", "link_spacing",
                      "link_max_width", "graphs", "clusters", "hierarchy", "nexthop"});
        !s)
        return s;
    const bool explicit_graph =
        std::any_of(out.graphs.begin(), out.graphs.end(),
                    [](graph::GraphKind g) { return g != graph::GraphKind::volume; });
    if ((out.clusters || out.hierarchy || out.next_hop != AgentConfig::NextHop::none) &&
        !explicit_graph)
        return r.fail(path, "clusters, hierarchy and nexthop need a tile, navmesh or pov graph");
    if (out.hierarchy && !out.clusters)
        return r.fail(r.at("hierarchy"), "needs clusters (\"clusters\": true)");
    if (out.goal_bounds && !out.jump_points)
        return r.fail(r.at("goal_bounds"), "needs the jump point table (\"jump_points\": true)");
    if (out.jump_points &&
        std::find(out.graphs.begin(), out.graphs.end(), graph::GraphKind::tile) == out.graphs.end())
        return r.fail(r.at("jump_points"),
                      "jump point tables are for tile graphs (\"graphs\": "
                      "[\"tile\", ...])");
    if (out.next_hop == AgentConfig::NextHop::hierarchical && !out.clusters)
        return r.fail(r.at("nexthop"), "a hierarchical table needs clusters (\"clusters\": true)");
    return {};
}

// Every stage's check() over the parsed config, fields named by their JSON path.
Status checkStages(const LevelConfig& c) {
    const std::string file = c.file.string();
    auto under = [](std::string prefix) {
        return [prefix](std::string_view field) { return prefix + "." + std::string(field); };
    };
    if (Status s = stageIssues<importer::ImportStage>(c.file, c.import, under("$.import")); !s)
        return s;
    for (size_t i = 0; i < c.agents.size(); ++i) {
        const AgentConfig& a = c.agents[i];
        const std::string agent = fmt::format("$.agents[{}]", i);
        if (!c.grid_map) {
            auto name = [&](std::string_view field) -> std::string {
                if (field == "cell_size" || field == "cell_height" || field == "threads" ||
                    field == "column_block")
                    return "$.voxel." + std::string(field);
                if (field.starts_with("bounds[")) return "$." + std::string(field);
                if (field.starts_with("agent_")) return agent + "." + std::string(field.substr(6));
                return agent + "." + std::string(field);
            };
            if (Status s = stageIssues<voxel::VoxelizeStage>(c.file, a.voxelize, name); !s)
                return s;
        }
        for (graph::GraphKind kind : a.graphs) {
            graph::GraphStage::Params params = a.graph;
            params.kind = kind;
            auto name = [&](std::string_view field) -> std::string {
                if (field == "agent_radius") return agent + ".radius";
                if (field.starts_with("seeds[") || field.starts_with("points_of_interest[") ||
                    field.starts_with("waypoints["))
                    return "$." + std::string(field);
                for (std::string_view own :
                     {"drop_height", "jump_distance", "jump_up_height", "link_spacing",
                      "link_max_width", "uphill", "downhill"})
                    if (field == own) return agent + "." + std::string(field);
                if (field.starts_with("$.")) return std::string(field);  // a link, named by path
                if (field.find(": ") != std::string_view::npos) return std::string(field);
                return "$.navmesh." + std::string(field);
            };
            if (Status s = stageIssues<graph::GraphStage>(c.file, params, name); !s) return s;
        }
        const bool tiles =
            std::find(a.graphs.begin(), a.graphs.end(), graph::GraphKind::tile) != a.graphs.end() &&
            c.worldTiles(graph::GraphKind::tile);
        const bool mesh_tiles = std::find(a.graphs.begin(), a.graphs.end(),
                                          graph::GraphKind::navmesh) != a.graphs.end() &&
                                c.worldTiles(graph::GraphKind::navmesh);
        const bool volume_tiles = std::find(a.graphs.begin(), a.graphs.end(),
                                            graph::GraphKind::volume) != a.graphs.end() &&
                                  c.worldTiles(graph::GraphKind::volume);
        bool cut_tiles = false;
        for (graph::GraphKind kind : {graph::GraphKind::dirichlet, graph::GraphKind::pov})
            cut_tiles |= std::find(a.graphs.begin(), a.graphs.end(), kind) != a.graphs.end() &&
                         c.worldTiles(kind);
        if (tiles || mesh_tiles || volume_tiles || cut_tiles) {
            std::vector<std::string> unsupported;
            if (a.graph.poi_tables) unsupported.push_back("point-of-interest tables");
            if (a.jump_points && tiles) unsupported.push_back("jump point tables");
            if (a.clusters || a.hierarchy || a.next_hop != AgentConfig::NextHop::none)
                unsupported.push_back("clusters, hierarchy or next-hop tables");
            if (!unsupported.empty()) {
                std::string list;
                for (const std::string& u : unsupported) list += (list.empty() ? "" : ", ") + u;
                return inputError(
                    "{}: $.world: world tiles carry the tile graph, navmesh polygons, volume "
                    "graphs with their links, Dirichlet domains and points of visibility; {} "
                    "has {} (bake those without $.world, or as "
                    "another graph kind)",
                    file, agent, list);
            }
        }
        if (a.clusters)
            if (Status s = stageIssues<cluster::ClusterStage>(c.file, a.cluster,
                                                              under(agent + ".clusters"));
                !s)
                return s;
        if (a.hierarchy)
            if (Status s = stageIssues<cluster::HierarchyStage>(c.file, a.hierarchy_params,
                                                                under(agent + ".hierarchy"));
                !s)
                return s;
        if (a.next_hop != AgentConfig::NextHop::none)
            if (Status s = stageIssues<nexthop::NextHopStage>(c.file, a.next_hop_params,
                                                              under(agent + ".nexthop"));
                !s)
                return s;
    }
    return {};
}

}  // namespace

Result<LevelConfig> parseLevelConfig(const std::string& text, const fs::path& path) {
    auto parsed = parseJson(text, path);
    if (!parsed) return parsed.error();
    const Json& root = *parsed;
    LevelConfig c;
    c.file = fs::absolute(path);
    const fs::path base = c.file.parent_path();
    JsonReader r(root, "$", path);
    if (Status s = r.expectObject(); !s) return s.error();
    if (r.has("$schema")) (void)r.get("$schema");
    if (!r.has("input")) return r.fail("$.input", "missing (the level file(s) to bake)").error();
    const Json& input = r.get("input");
    std::vector<std::pair<std::string, std::string>> names;  // path in config, JSON path
    if (input.is_string()) {
        names.push_back({input.get<std::string>(), "$.input"});
    } else if (input.is_array() && !input.empty()) {
        for (size_t i = 0; i < input.size(); ++i) {
            if (!input[i].is_string())
                return r.typeError(JsonReader::at("$.input", i), "a file name", input[i]).error();
            names.push_back({input[i].get<std::string>(), JsonReader::at("$.input", i)});
        }
    } else {
        return r.typeError("$.input", "a file name or a non-empty array of them", input).error();
    }
    for (const auto& [name, at] : names) {
        const fs::path p = fs::absolute(base / name).lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            return r.fail(at, fmt::format("file '{}' not found (looked for {})", name, p.string()))
                .error();
        c.inputs.push_back(p);
    }
    size_t bad_input = 0;
    auto output_kind = importer::ImportStage::output({c.inputs}, &bad_input);
    if (!output_kind) return r.fail(names[bad_input].second, output_kind.error().message).error();
    c.grid_map = *output_kind == importer::ImportStage::Output::voxels;
    std::string output;
    if (Status s = r.string("output", output); !s) return s.error();
    c.output = output.empty() ? base / (c.file.stem().string() + ".navbake")
                              : fs::absolute(base / output).lexically_normal();
    if (Status s = r.boolean("debug_views", c.debug_views); !s) return s.error();
    bool import_strip_size = false;  // $.import.strip_size given
    if (r.has("import")) {
        JsonReader ir(r.get("import"), "$.import", path);
        if (Status s = ir.expectObject(); !s) return s.error();
        std::string tags;
        if (Status s = ir.choice<importer::UpAxis>("up", importer::kUpAxes, c.import.up); !s)
            return s.error();
        if (Status s = ir.number("scale", c.import.scale); !s) return s.error();
        if (Status s = ir.choice<importer::Units>("units", importer::kUnits, c.import.units); !s)
            return s.error();
        if (Status s = ir.boolean("flip_winding", c.import.flip_winding); !s) return s.error();
        if (Status s = ir.boolean("double_sided", c.import.double_sided); !s) return s.error();
        if (Status s = ir.string("tags", tags); !s) return s.error();
        if (Status s = ir.integer("threads", c.import.threads); !s) return s.error();
        if (Status s = ir.number("strip_size", c.import.strip_size); !s) return s.error();
        import_strip_size = ir.has("strip_size");
        if (!tags.empty()) {
            c.import.tags = fs::absolute(base / tags).lexically_normal();
            std::error_code ec;
            if (!fs::is_regular_file(c.import.tags, ec))
                return ir.fail("$.import.tags", fmt::format("file '{}' not found", tags)).error();
        }
        if (Status s = ir.finish({"up", "scale", "units", "flip_winding", "double_sided", "tags",
                                  "threads", "strip_size"});
            !s)
            return s.error();
    }
    if (r.has("world")) {
        JsonReader wr(r.get("world"), "$.world", path);
        if (Status s = wr.expectObject(); !s) return s.error();
        c.world = true;
        if (Status s = wr.number("tile_size", c.world_params.tile_size); !s) return s.error();
        if (Status s = wr.integer("threads", c.world_params.threads); !s) return s.error();
        if (Status s = wr.integer("compression", c.world_params.compression); !s) return s.error();
        if (Status s = readGraphKinds(wr, c.world_graphs); !s) return s.error();
        for (size_t i = 0; i < c.world_graphs.size(); ++i)
            if (Status s = wr.finish({"tile_size", "threads", "compression", "graphs"}); !s)
                return s.error();
        // World builds import into strips (never the whole level in memory) unless told.
        if (!import_strip_size) c.import.strip_size = kWorldStripSize;
        if (Status s = stageIssues<graph::WorldStage>(
                path, c.world_params,
                [](std::string_view field) { return "$.world." + std::string(field); });
            !s)
            return s.error();
    }
    voxel::VoxelizeParams voxel;
    if (r.has("voxel")) {
        JsonReader vr(r.get("voxel"), "$.voxel", path);
        if (Status s = vr.expectObject(); !s) return s.error();
        if (Status s = vr.number("cell_size", voxel.cell_size); !s) return s.error();
        if (Status s = vr.number("cell_height", voxel.cell_height); !s) return s.error();
        if (Status s = vr.integer("threads", voxel.threads); !s) return s.error();
        if (Status s = vr.integer("column_block", voxel.column_block); !s) return s.error();
        if (Status s = vr.finish({"cell_size", "cell_height", "threads", "column_block"}); !s)
            return s.error();
    }
    graph::GraphStage::Params graph;
    if (r.has("navmesh")) {
        JsonReader nr(r.get("navmesh"), "$.navmesh", path);
        navmesh::NavmeshParams& n = graph.navmesh;
        if (Status s = nr.expectObject(); !s) return s.error();
        if (Status s =
                nr.choice<navmesh::Partition>("partition", navmesh::kPartitions, n.partition);
            !s)
            return s.error();
        if (Status s = nr.integer("tile_size", n.tile_size); !s) return s.error();
        if (Status s = nr.integer("max_verts_per_poly", n.max_verts_per_poly); !s) return s.error();
        if (Status s = nr.number("region_min_size", n.region_min_size); !s) return s.error();
        if (Status s = nr.number("region_merge_size", n.region_merge_size); !s) return s.error();
        if (Status s = nr.number("edge_max_len", n.edge_max_len); !s) return s.error();
        if (Status s = nr.number("edge_max_error", n.edge_max_error); !s) return s.error();
        if (Status s = nr.number("detail_sample_dist", n.detail_sample_dist); !s) return s.error();
        if (Status s = nr.number("detail_max_error", n.detail_max_error); !s) return s.error();
        if (Status s = nr.integer("threads", graph.threads); !s) return s.error();
        if (Status s = nr.finish({"partition", "tile_size", "max_verts_per_poly", "region_min_size",
                                  "region_merge_size", "edge_max_len", "edge_max_error",
                                  "detail_sample_dist", "detail_max_error", "threads"});
            !s)
            return s.error();
    }
    // Bake bounds and seed points: every agent's.
    if (r.has("bounds")) {
        const Json& boxes = r.get("bounds");
        if (!boxes.is_array() || boxes.empty())
            return r
                .typeError("$.bounds",
                           "a non-empty array of {\"min\": [x, y, z], \"max\": "
                           "[x, y, z]} boxes",
                           boxes)
                .error();
        for (size_t i = 0; i < boxes.size(); ++i) {
            JsonReader br(boxes[i], JsonReader::at("$.bounds", i), path);
            if (Status s = br.expectObject(); !s) return s.error();
            geometry::Bounds box;
            if (Status s = br.point("min", box.min.data(), true); !s) return s.error();
            if (Status s = br.point("max", box.max.data(), true); !s) return s.error();
            if (Status s = br.finish({"min", "max"}); !s) return s.error();
            voxel.bounds.push_back(box);
        }
    }
    if (r.has("seeds")) {
        const Json& seeds = r.get("seeds");
        if (!seeds.is_array() || seeds.empty())
            return r.typeError("$.seeds", "a non-empty array of [x, y, z] points", seeds).error();
        for (size_t i = 0; i < seeds.size(); ++i) {
            std::array<float, 3> seed{};
            if (!JsonReader::toPoint(seeds[i], seed.data()))
                return r
                    .typeError(JsonReader::at("$.seeds", i), "[x, y, z] (three numbers, metres)",
                               seeds[i])
                    .error();
            graph.seeds.push_back(seed);
        }
    }
    std::vector<voxel::ModifierVolume> volumes;
    if (r.has("volumes")) {
        if (Status s = voxel::parseVolumes(r.get("volumes"), "$.volumes", path, volumes); !s)
            return s.error();
        // Values checked here, by the config's own indices (each agent gets its share below).
        voxel::VoxelizeParams all;
        all.volumes = volumes;
        if (Status s = checkStage<voxel::VoxelizeStage>(
                all, [](std::string_view field) { return "$." + std::string(field); });
            !s)
            return inputError("{}: {}", path.string(), s.error().message);
    }
    // Named points (points of interest, waypoints): a non-empty array of objects, each with a
    // unique "name" and a "position", read by `read` (which reads the rest) in order.
    const auto namedPoints = [&](const char* key, std::string_view expected,
                                 auto&& read) -> Status {
        if (!r.has(key)) return {};
        return r.objects(r.get(key), std::string("$.") + key, expected, true,
                         [&](JsonReader& pr) -> Status {
                             if (!pr.has("name"))
                                 return pr.fail(pr.at("name"), "missing (a unique name)");
                             return read(pr);
                         });
    };
    if (Status points = namedPoints(
            "points_of_interest", "a non-empty array of {\"name\", \"position\", \"kind\"} points",
            [&](JsonReader& pr) -> Status {
                graph::PointOfInterest poi;
                poi.where = pr.where();
                if (Status s = pr.string("name", poi.name); !s) return s;
                if (Status s = pr.string("kind", poi.kind); !s) return s;
                if (Status s = pr.point("position", poi.position.data(), true); !s) return s;
                if (Status s = pr.finish({"name", "kind", "position"}); !s) return s;
                graph.points.push_back(poi);
                return {};
            });
        !points)
        return points.error();
    if (Status points = namedPoints(
            "waypoints", "a non-empty array of {\"name\", \"position\", \"weight\"} waypoints",
            [&](JsonReader& wr) -> Status {
                graph::Waypoint w;
                w.where = wr.where();
                if (Status s = wr.string("name", w.name); !s) return s;
                if (Status s = wr.point("position", w.position.data(), true); !s) return s;
                if (Status s = wr.number("weight", w.weight); !s) return s;
                if (Status s = wr.finish({"name", "position", "weight"}); !s) return s;
                graph.waypoints.push_back(w);
                return {};
            });
        !points)
        return points.error();
    std::vector<geometry::LinkTypeDef> link_types;
    if (r.has("link_types"))
        if (Status s =
                geometry::parseLinkTypes(r.get("link_types"), "$.link_types", path, link_types);
            !s)
            return s.error();
    if (r.has("links")) {
        if (Status s =
                geometry::parseLinks(r.get("links"), "$.links", path, link_types, graph.links);
            !s)
            return s.error();
    }
    if (r.has("agents")) {
        const Json& agents = r.get("agents");
        if (!agents.is_array() || agents.empty())
            return r.typeError("$.agents", "a non-empty array of agent profiles", agents).error();
        for (size_t i = 0; i < agents.size(); ++i) {
            AgentConfig a;
            a.voxelize = voxel;
            a.graph = graph;
            if (Status s = parseAgent(agents[i], JsonReader::at("$.agents", i), path, i, a); !s)
                return s.error();
            for (const AgentConfig& other : c.agents)
                if (other.name == a.name)
                    return r
                        .fail(JsonReader::at("$.agents", i) + ".name",
                              fmt::format("'{}' is used by two agents", a.name))
                        .error();
            c.agents.push_back(a);
        }
    } else {
        AgentConfig a;
        a.voxelize = voxel;
        a.graph = graph;
        a.graph.agent_radius = a.voxelize.agent.radius;
        c.agents.push_back(a);
    }
    // Links naming agents: each name must be an agent of this level; each agent's graphs get the
    // links that apply to it.
    for (size_t i = 0; i < graph.links.size(); ++i)
        for (size_t k = 0; k < graph.links[i].agents.size(); ++k) {
            const std::string& name = graph.links[i].agents[k];
            const bool known = std::any_of(c.agents.begin(), c.agents.end(),
                                           [&](const AgentConfig& a) { return a.name == name; });
            if (!known)
                return r
                    .fail(JsonReader::at(JsonReader::at("$.links", i) + ".agents", k),
                          fmt::format("'{}' is not an agent of this level", name))
                    .error();
        }
    // A link several agents share may be unusable for some of them (an ogre's surface is eroded
    // further from a ledge): each reports it, and the build fails only if none can use it.
    for (geometry::LinkSpec& l : graph.links) {
        const size_t users = l.agents.empty() ? c.agents.size() : l.agents.size();
        l.shared = users > 1;
    }
    // Volumes naming agents: the same rules.
    for (size_t i = 0; i < volumes.size(); ++i)
        for (const auto& [key, agent_names] :
             {std::pair<const char*, const std::vector<std::string>*>{"agents", &volumes[i].agents},
              {"walkable_for", &volumes[i].walkable_for}})
            for (size_t k = 0; k < agent_names->size(); ++k) {
                const std::string& name = (*agent_names)[k];
                if (std::none_of(c.agents.begin(), c.agents.end(),
                                 [&](const AgentConfig& a) { return a.name == name; }))
                    return r
                        .fail(JsonReader::at(JsonReader::at("$.volumes", i) + "." + key, k),
                              fmt::format("'{}' is not an agent of this level", name))
                        .error();
            }
    for (AgentConfig& a : c.agents) {
        a.voxelize.volumes = volumes;  // voxelize picks the ones for this agent by name
        a.voxelize.agent_name = a.name;
        a.graph.links = graph::linksForAgent(graph.links, a.name);
        a.graph.scene_links_shared = c.agents.size() > 1;
    }
    if (Status s = r.finish({"$schema", "input", "output", "debug_views", "import", "voxel",
                             "navmesh", "world", "bounds", "seeds", "points_of_interest",
                             "waypoints", "link_types", "links", "agents"});
        !s)
        return s.error();
    if (Status s = checkStages(c); !s) return s.error();
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

// One node of the stage graph: a stage definition with its Params and the nodes it reads.
struct Node {
    std::string name, kind, agent, graph;
    std::vector<size_t> deps;
    std::string key_text;           // the stage's kind and StageKey
    std::vector<fs::path> sources;  // hashed by their bytes
    uint64_t key = 0;
    fs::path artifact;  // OUTPUT/.cache/<kind>-<agent>-<graph>-<key>.<ext>
    // The last build's artifact of this stage when its key differed and the file is still in
    // the cache (flat next-hop tables update from it).
    fs::path previous_artifact;
    std::function<Result<StageResult>(const Node& self, const std::vector<Node>& nodes, Context&)>
        run;
    // The stage's memory estimate (its inputs must exist).
    std::function<Result<MemoryEstimate>(const Node& self, const std::vector<Node>& nodes)>
        estimate;
    // Stages that split into shards (flat next-hop tables, world tiles): shard K of N into
    // `output`, and the N shards' parts joined into the artifact.
    std::function<Result<StageResult>(const Node& self, const std::vector<Node>& nodes, uint32_t k,
                                      uint32_t n, const fs::path& output, Context&)>
        run_shard;
    std::function<Result<StageResult>(const Node& self, const std::vector<Node>& nodes,
                                      const std::vector<fs::path>& parts, Context&)>
        merge_shards;
    StageReport report;
};

// Adds stage S with `params`; `inputs` builds its Inputs from the artifacts of the nodes it reads.
template <class S>
size_t addStage(std::vector<Node>& nodes, const fs::path& cache, Node node,
                const typename S::Params& params,
                std::function<typename S::Inputs(const Node&, const std::vector<Node>&)> inputs,
                std::string_view ext) {
    node.kind = std::string(S::kName);
    node.key_text = stageKeyText<S>(params);
    node.artifact = cache / std::string(ext);  // completed with the key once known
    node.run = [params, inputs](const Node& self, const std::vector<Node>& all, Context& context) {
        return runWithinBudget<S>(inputs(self, all), params, self.artifact, context);
    };
    node.estimate = [params, inputs](const Node& self, const std::vector<Node>& all) {
        return S::estimateMemory(inputs(self, all), params);
    };
    node.report.name = node.name;
    node.report.kind = node.kind;
    node.report.agent = node.agent;
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
}

// The fields of a stage's log events (--log-format json): which stage, its status and time.
LogFields stageFields(const Node& st, std::string_view status, double ms) {
    return {{"event", std::string("stage")},
            {"stage", st.name},
            {"kind", st.kind},
            {"agent", st.agent},
            {"status", std::string(status)},
            {"ms", std::round(ms * 10) / 10}};
}

const fs::path& depArtifact(const Node& self, const std::vector<Node>& all, size_t i) {
    return all[self.deps[i]].artifact;
}

// The stages of the config, in dependency order.
std::vector<Node> planStages(const LevelConfig& c, const fs::path& cache) {
    std::vector<Node> nodes;
    Node import_node;
    import_node.name = "import";
    for (const fs::path& input : c.inputs) import_node.name += " " + input.filename().string();
    import_node.sources = c.inputs;
    if (!c.import.tags.empty()) import_node.sources.push_back(c.import.tags);
    const std::vector<fs::path> inputs = c.inputs;
    const size_t imported = addStage<importer::ImportStage>(
        nodes, cache, import_node, c.import,
        [inputs](const Node&, const std::vector<Node>&) {
            return importer::ImportStage::Inputs{inputs};
        },
        c.grid_map ? "vox" : "geo");
    const std::string source_name = c.inputs[0].filename().string();
    for (const AgentConfig& agent : c.agents) {
        size_t voxels = imported;
        if (!c.grid_map) {
            Node n;
            n.agent = agent.name;
            n.name = "voxelize " + agent.name;
            n.deps = {imported};
            voxels = addStage<voxel::VoxelizeStage>(
                nodes, cache, n, agent.voxelize,
                [source_name](const Node& self, const std::vector<Node>& all) {
                    return voxel::VoxelizeStage::Inputs{depArtifact(self, all, 0), source_name};
                },
                "vox");
        }
        for (graph::GraphKind kind : agent.graphs) {
            const std::string kind_name(choiceName<graph::GraphKind>(graph::kGraphKinds, kind));
            auto node = [&](std::string_view stage, std::vector<size_t> deps) {
                Node n;
                n.agent = agent.name;
                n.graph = kind_name;
                n.name = fmt::format("{} {} {}", stage, kind_name, agent.name);
                n.deps = std::move(deps);
                return n;
            };
            if (c.worldTiles(kind) &&
                (kind == graph::GraphKind::dirichlet || kind == graph::GraphKind::pov)) {
                // Dirichlet domains and points of visibility are decided on the whole world (a
                // cell's domain depends on walks of any length, a sight line may span any number
                // of tiles): the graph stage bakes them, the world stage cuts them into tiles.
                graph::GraphStage::Params graph_params = agent.graph;
                graph_params.kind = kind;
                const size_t whole = addStage<graph::GraphStage>(
                    nodes, cache, node("graph", {voxels}), graph_params,
                    [](const Node& self, const std::vector<Node>& all) {
                        return graph::GraphStage::Inputs{depArtifact(self, all, 0)};
                    },
                    "graph");
                graph::WorldStage::Params world = c.world_params;
                world.kind = kind;
                addStage<graph::WorldStage>(
                    nodes, cache, node("world", {voxels, whole}), world,
                    [](const Node& self, const std::vector<Node>& all) {
                        return graph::WorldStage::Inputs{depArtifact(self, all, 0),
                                                         depArtifact(self, all, 1)};
                    },
                    "world");
                continue;
            }
            if (c.worldTiles(kind)) {
                // World tiles: one stage writes the tiles and the index (checkStages refuses what
                // tiles do not carry yet).
                const Node n = node("world", {voxels});
                graph::WorldStage::Params world = c.world_params;
                world.kind = kind;
                world.navmesh = agent.graph.navmesh;
                world.links = agent.graph.links;
                world.generate = agent.graph.generate;
                world.scene_links_shared = agent.graph.scene_links_shared;
                world.agent_radius = agent.graph.agent_radius;
                if (kind != graph::GraphKind::volume) {  // flyers have no surface
                    world.seeds = agent.graph.seeds;
                    world.points = agent.graph.points;
                }
                world.uphill = agent.graph.uphill;
                world.downhill = agent.graph.downhill;
                auto world_inputs = [](const Node& self, const std::vector<Node>& all) {
                    return graph::WorldStage::Inputs{depArtifact(self, all, 0)};
                };
                const size_t at =
                    addStage<graph::WorldStage>(nodes, cache, n, world, world_inputs, "world");
                // Shards build the tiles of every N-th row of tiles into the cache (their part
                // file lists them); the merge runs the stage, which reuses every tile. (Navmesh
                // tiles read their neighbours' first pass: that stage runs whole.)
                if (kind == graph::GraphKind::navmesh) continue;
                nodes[at].run_shard = [world, world_inputs](
                                          const Node& self, const std::vector<Node>& all,
                                          uint32_t k, uint32_t count, const fs::path& output,
                                          Context& context) {
                    graph::WorldStage::Params shard = world;
                    shard.shard_index = k;
                    shard.shard_count = count;
                    return runWithinBudget<graph::WorldStage>(world_inputs(self, all), shard,
                                                              output, context);
                };
                nodes[at].merge_shards = [](const Node& self, const std::vector<Node>& all,
                                            const std::vector<fs::path>&, Context& context) {
                    return self.run(self, all, context);
                };
                continue;
            }
            graph::GraphStage::Params graph_params = agent.graph;
            graph_params.kind = kind;
            const size_t graph_node = addStage<graph::GraphStage>(
                nodes, cache, node("graph", {voxels}), graph_params,
                [](const Node& self, const std::vector<Node>& all) {
                    return graph::GraphStage::Inputs{depArtifact(self, all, 0)};
                },
                "graph");
            std::vector<size_t> pack_deps = {graph_node};
            const bool explicit_graph = kind != graph::GraphKind::volume;
            size_t clusters = SIZE_MAX, hierarchy = SIZE_MAX, next_hop = SIZE_MAX;
            if (agent.clusters && explicit_graph && kind != graph::GraphKind::dirichlet) {
                clusters = addStage<cluster::ClusterStage>(
                    nodes, cache, node("cluster", {graph_node}), agent.cluster,
                    [](const Node& self, const std::vector<Node>& all) {
                        return cluster::ClusterStage::Inputs{depArtifact(self, all, 0)};
                    },
                    "clu");
                pack_deps.push_back(clusters);
            }
            if (agent.hierarchy && clusters != SIZE_MAX) {
                hierarchy = addStage<cluster::HierarchyStage>(
                    nodes, cache, node("hierarchy", {graph_node, clusters}), agent.hierarchy_params,
                    [](const Node& self, const std::vector<Node>& all) {
                        return cluster::HierarchyStage::Inputs{depArtifact(self, all, 0),
                                                               depArtifact(self, all, 1)};
                    },
                    "hier");
                pack_deps.push_back(hierarchy);
            }
            if (agent.next_hop != AgentConfig::NextHop::none && explicit_graph) {
                const bool hierarchical = agent.next_hop == AgentConfig::NextHop::hierarchical;
                std::vector<size_t> deps = {graph_node};
                if (hierarchical) deps.push_back(clusters);
                auto next_hop_inputs = [](const Node& self, const std::vector<Node>& all) {
                    nexthop::NextHopStage::Inputs in{
                        depArtifact(self, all, 0),
                        self.deps.size() > 1 ? depArtifact(self, all, 1) : fs::path(),
                        {},
                        {}};
                    if (!self.previous_artifact.empty()) {
                        // The previous table and the graph it was built from (this build's when
                        // the graph did not change).
                        const Node& g = all[self.deps[0]];
                        in.previous_table = self.previous_artifact;
                        in.previous_graph =
                            g.previous_artifact.empty() ? g.artifact : g.previous_artifact;
                    }
                    return in;
                };
                next_hop = addStage<nexthop::NextHopStage>(nodes, cache, node("nexthop", deps),
                                                           agent.next_hop_params, next_hop_inputs,
                                                           hierarchical ? "nhh" : "nh");
                if (!hierarchical) {
                    nodes[next_hop].merge_shards = [](const Node& self, const std::vector<Node>&,
                                                      const std::vector<fs::path>& parts,
                                                      Context&) {
                        return nexthop::mergeShardFiles(parts, self.artifact);
                    };
                    nodes[next_hop].run_shard = [params = agent.next_hop_params, next_hop_inputs](
                                                    const Node& self, const std::vector<Node>& all,
                                                    uint32_t k, uint32_t n, const fs::path& output,
                                                    Context& context) {
                        nexthop::BuildParams shard = params;
                        shard.shard_index = k;
                        shard.shard_count = n;
                        return runWithinBudget<nexthop::NextHopStage>(next_hop_inputs(self, all),
                                                                      shard, output, context);
                    };
                }
                pack_deps.push_back(next_hop);
            }
            // Pack reads the graph and what was baked on it; positions of each in pack_deps.
            auto position = [&](size_t node_index) -> size_t {
                auto it = std::find(pack_deps.begin(), pack_deps.end(), node_index);
                return it == pack_deps.end() ? SIZE_MAX : size_t(it - pack_deps.begin());
            };
            const size_t at_clusters = position(clusters), at_hierarchy = position(hierarchy),
                         at_next_hop = position(next_hop);
            addStage<pack::PackStage>(
                nodes, cache, node("pack", pack_deps),
                pack::PackStage::Params{
                    kind == graph::GraphKind::tile && agent.jump_points,
                    kind == graph::GraphKind::tile && agent.jump_points && agent.goal_bounds},
                [at_clusters, at_hierarchy, at_next_hop](const Node& self,
                                                         const std::vector<Node>& all) {
                    auto at = [&](size_t i) {
                        return i == SIZE_MAX ? fs::path() : depArtifact(self, all, i);
                    };
                    return pack::PackStage::Inputs{depArtifact(self, all, 0), at(at_clusters),
                                                   at(at_hierarchy), at(at_next_hop)};
                },
                "nav");
        }
    }
    return nodes;
}

std::string outputName(const Node& st) { return st.agent + "." + st.graph + ".nav"; }

fs::path reportPath(const LevelConfig& c) {
    return c.output / (c.file.stem().string() + ".report.json");
}

Status fileHash(const fs::path& path, uint64_t& out) {
    auto hash = hashFile(path);
    if (!hash) return hash.error();
    out = *hash;
    return {};
}

// Keys in dependency order; sources hashed by bytes. Errors: unreadable sources.
Status computeKeys(std::vector<Node>& nodes) {
    const std::string versions = formatVersions();
    for (Node& st : nodes) {
        std::string text = st.key_text + versions + "\n";
        for (const fs::path& source : st.sources) {
            uint64_t h = 0;
            if (Status s = fileHash(source, h); !s) return s;
            text += source.filename().string() + " " + hex(h) + "\n";
        }
        for (size_t d : st.deps) text += hex(nodes[d].key) + "\n";
        st.key = formats::xxhash64(text.data(), text.size(), 0);
        const std::string ext = st.artifact.filename().string();
        st.artifact = st.artifact.parent_path() /
                      fmt::format("{}-{}{}{}.{}", st.kind, st.agent.empty() ? "" : st.agent + "-",
                                  st.graph.empty() ? "" : st.graph + "-", hex(st.key), ext);
        st.report.key = hex(st.key);
        st.report.artifact =
            fs::relative(st.artifact, st.artifact.parent_path().parent_path()).string();
    }
    return {};
}

}  // namespace

namespace {
OJson namedInputsJson(const std::vector<std::pair<std::string, bool>>& inputs) {
    OJson out = OJson::object();
    for (const auto& [name, used] : inputs) out[name] = used;
    return out;
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
                               {"named_inputs", namedInputsJson(st.named_inputs)},
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

namespace {

fs::path cacheFolder(const LevelConfig& c, const BuildOptions& options) {
    return options.cache.empty() ? c.output / ".cache" : options.cache;
}

// Beside each artifact, what its stage said (counts, warnings, named inputs): a cached stage
// reports them again, wherever it was built (here, or on a cluster worker by --stage).
fs::path resultPath(const Node& st) { return st.artifact.string() + ".result.json"; }

Status saveStageResult(const Node& st) {
    const std::string text = OJson{{"stage", st.name},
                                   {"key", hex(st.key)},
                                   {"counts", st.report.counts},
                                   {"warnings", st.report.warnings},
                                   {"named_inputs", namedInputsJson(st.report.named_inputs)}}
                                 .dump(1) +
                             "\n";
    return writeFileAtomic(
        resultPath(st),
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// Fills the report of a cached stage from its result file; false when there is none for its key.
bool loadStageResult(Node& st) {
    auto bytes = readFile(resultPath(st));
    if (!bytes) return false;
    OJson r;
    try {
        r = OJson::parse(bytes->begin(), bytes->end());
        if (!r.is_object() || r.value("key", std::string()) != hex(st.key)) return false;
        st.report.counts = r.at("counts");
        for (const auto& w : r.at("warnings")) st.report.warnings.push_back(w.get<std::string>());
        for (const auto& [name, used] : r.at("named_inputs").items())
            st.report.named_inputs.push_back({name, used.get<bool>()});
    } catch (const std::exception&) {
        st.report.counts = OJson::object();
        st.report.warnings.clear();
        st.report.named_inputs.clear();
        return false;
    }
    return true;
}

fs::path shardPath(const Node& st, uint32_t k, uint32_t n) {
    return st.artifact.string() + fmt::format(".part-{}-of-{}", k, n);
}

Result<size_t> findStage(const std::vector<Node>& stages, const LevelConfig& c,
                         const std::string& wanted) {
    std::string names;
    for (size_t i = 0; i < stages.size(); ++i) {
        if (stages[i].name == wanted || hex(stages[i].key) == wanted) return i;
        names += "\n  " + stages[i].name;
    }
    return makeError(ErrorKind::usage, "{}: no stage '{}' in this level; its stages are:{}",
                     c.file.string(), wanted, names);
}

// --stage: one stage whose inputs are in the cache folder (a shard of it, or its shards merged).
Result<BuildReport> runOneStage(const LevelConfig& c, std::vector<Node>& stages,
                                const BuildOptions& options, Context& context) {
    auto found = findStage(stages, c, options.stage);
    if (!found) return found.error();
    Node& st = stages[*found];
    for (size_t d : st.deps)
        if (!fs::exists(stages[d].artifact))
            return inputError("stage '{}' needs the artifact of '{}' ({}); run that stage first",
                              st.name, stages[d].name, stages[d].artifact.string());
    if ((options.merge_shards > 0 || options.shard_count > 0) && !st.run_shard)
        return makeError(ErrorKind::usage, "stage '{}' does not split into shards", st.name);
    std::error_code ec;
    fs::create_directories(st.artifact.parent_path(), ec);
    const auto t0 = std::chrono::steady_clock::now();
    Result<StageResult> result = StageResult{};
    if (options.merge_shards > 0) {
        std::vector<fs::path> parts;
        for (uint32_t k = 0; k < options.merge_shards; ++k) {
            parts.push_back(shardPath(st, k, options.merge_shards));
            if (!fs::exists(parts.back()))
                return inputError("stage '{}': shard {}/{} is missing ({})", st.name, k,
                                  options.merge_shards, parts.back().string());
        }
        result = st.merge_shards(st, stages, parts, context);
    } else if (options.shard_count > 0) {
        if (options.shard_index >= options.shard_count)
            return makeError(ErrorKind::usage, "--shard {}/{}: K must be below N",
                             options.shard_index, options.shard_count);
        result = st.run_shard(st, stages, options.shard_index, options.shard_count,
                              shardPath(st, options.shard_index, options.shard_count), context);
    } else {
        result = st.run(st, stages, context);
    }
    if (!result) return Error{result.error().kind, st.name + ": " + result.error().message};
    BuildReport report;
    for (const auto& [name, value] : result->counts) st.report.counts[name] = value;
    st.report.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    st.report.peak_rss_bytes = peakRss();
    st.report.named_inputs = result->named_inputs;
    for (const std::string& w : result->warnings)
        st.report.warnings.push_back(fmt::format("{}: {}", st.name, w));
    if (options.shard_count == 0)
        if (Status s = saveStageResult(st); !s) return s.error();
    report.stages.push_back(st.report);
    report.milliseconds = st.report.milliseconds;
    context.info("built: {} -> {}", st.name,
                 options.shard_count > 0
                     ? shardPath(st, options.shard_index, options.shard_count).string()
                     : st.artifact.string());
    return report;
}

}  // namespace

// A world stage's outputs: OUTPUT/AGENT.tile.world and each tile as AGENT.tile.X_Z.nav (tiles no
// longer in the world are removed), written only when their bytes change.
Status publishWorld(const LevelConfig& c, const Node& st, BuildReport& report, Context& context) {
    const std::string stem = st.agent + "." + st.graph;
    auto files = graph::worldTileFiles(st.artifact);
    if (!files) return files.error();
    std::vector<std::pair<fs::path, std::string>> copies = {{st.artifact, stem + ".world"}};
    for (const graph::WorldTileFile& f : *files)
        copies.push_back({f.path, fmt::format("{}.{}_{}.nav", stem, f.tile_x, f.tile_z)});
    std::set<std::string> keep;
    for (const auto& [from, name] : copies) {
        auto bytes = readFile(from);
        if (!bytes) return bytes.error();
        auto current = readFile(c.output / name);
        if (!current || *current != *bytes) {
            if (Status s = writeFileAtomic(c.output / name, *bytes); !s) return s;
            context.debug("wrote {}", (c.output / name).string());
        }
        report.outputs.push_back(name);
        report.output_entries.push_back(
            {{"file", name},
             {"bytes", bytes->size()},
             {"xxh64", hex(formats::xxhash64(bytes->data(), bytes->size(), 0))}});
        keep.insert(name);
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(c.output, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(stem + ".") && name.ends_with(".nav") && !keep.contains(name) &&
            name.find('_') != std::string::npos)
            fs::remove(entry.path(), ec);
    }
    context.info("wrote {} ({} tiles)", (c.output / (stem + ".world")).string(), files->size());
    return {};
}

Result<nlohmann::ordered_json> planBuild(const LevelConfig& c, const BuildOptions& options,
                                         const std::string& navbake) {
    std::vector<Node> stages = planStages(c, cacheFolder(c, options));
    if (Status s = computeKeys(stages); !s) return s.error();
    OJson list = OJson::array();
    for (const Node& st : stages) {
        OJson deps = OJson::array();
        bool inputs_ready = true;
        for (size_t d : st.deps) {
            deps.push_back(stages[d].name);
            inputs_ready = inputs_ready && fs::exists(stages[d].artifact);
        }
        OJson sources = OJson::array();
        for (const fs::path& source : st.sources) sources.push_back(source.string());
        const OJson command = {navbake, "build", c.file.string(), "--stage", st.name};
        OJson entry = {{"name", st.name},
                       {"kind", st.kind},
                       {"agent", st.agent},
                       {"graph", st.graph},
                       {"key", hex(st.key)},
                       {"artifact", st.artifact.filename().string()},
                       {"depends_on", deps},
                       {"sources", sources},
                       {"cached", fs::exists(st.artifact) && checkContainerFile(st.artifact).ok()},
                       {"command", command}};
        OJson memory = nullptr;
        if (inputs_ready) {
            auto estimate = st.estimate(st, stages);
            if (estimate)
                memory = {{"bytes", estimate->bytes},
                          {"basis", estimate->basis},
                          {"advice", estimate->advice}};
        }
        entry["memory_estimate"] = memory;
        if (st.run_shard) {
            OJson shard = command, merge = command;
            shard.push_back("--shard");
            shard.push_back("{k}/{n}");
            merge.push_back("--merge-shards");
            merge.push_back("{n}");
            entry["shards"] = {{"command", shard},
                               {"part", st.artifact.filename().string() + ".part-{k}-of-{n}"},
                               {"merge", merge}};
        } else {
            entry["shards"] = nullptr;
        }
        list.push_back(std::move(entry));
    }
    OJson outputs = OJson::array();
    for (const Node& st : stages)
        if (st.kind == "pack") outputs.push_back(outputName(st));
    return OJson{{"config", c.file.string()},
                 {"output", c.output.string()},
                 {"cache", cacheFolder(c, options).string()},
                 {"navbake_format", formatVersions()},
                 {"stages", list},
                 {"outputs", outputs},
                 {"finish", {navbake, "build", c.file.string()}}};
}

Result<BuildReport> runBuild(const LevelConfig& c, const BuildOptions& options, Context& context) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Node> stages = planStages(c, cacheFolder(c, options));
    if (Status s = computeKeys(stages); !s) return s.error();
    if (!options.stage.empty()) return runOneStage(c, stages, options, context);
    if (options.shard_count > 0 || options.merge_shards > 0)
        return makeError(ErrorKind::usage, "--shard and --merge-shards need --stage NAME");
    // One build at a time per output folder: a second one is refused (naming the holder's pid)
    // before it reads or writes anything there. The kernel drops the lock however a build ends.
    std::unique_ptr<FileLock> folder_lock;
    if (!options.check) {
        std::error_code made;
        fs::create_directories(c.output, made);
        if (made)
            return makeError(ErrorKind::io, "cannot create {}: {}", c.output.string(),
                             made.message());
        auto taken = FileLock::acquire(c.output / ".navbake.lock", "navbake build");
        if (!taken) return taken.error();
        folder_lock = std::move(taken).value();
        // What a killed build was writing: its temporary files (the artifacts it finished are
        // complete, written atomically, and reused). An external cache (--cache) may be shared
        // with other machines' builds, whose pids mean nothing here: left alone.
        size_t orphans = removeOrphanedAtomicTemporaries(c.output);
        if (options.cache.empty())
            orphans += removeOrphanedAtomicTemporaries(cacheFolder(c, options));
        if (orphans > 0)
            context.info("removed {} temporary files of an interrupted build in {}", orphans,
                         c.output.string());
    }
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

    for (Node& st : stages) {
        auto it = previous_stage.find(st.name);
        if (it == previous_stage.end()) continue;
        const OJson& p = *it->second;
        if (!p.contains("artifact") || !p["artifact"].is_string() ||
            p.value("key", std::string()) == hex(st.key))
            continue;
        const fs::path artifact = c.output / p["artifact"].get<std::string>();
        std::error_code ec;
        if (artifact.parent_path() == st.artifact.parent_path() &&
            fs::is_regular_file(artifact, ec))
            st.previous_artifact = artifact;
    }

    if (options.check) {
        if (previous.is_null())
            return inputError("{}: no build report at {}: run 'navbake build {}' first",
                              c.file.string(), reportPath(c).string(), c.file.string());
        for (const Node& st : stages) {
            auto it = previous_stage.find(st.name);
            if (it == previous_stage.end())
                report.stale.push_back(st.name + " (new stage)");
            else if (!it->second->contains("key") || (*it->second)["key"] != hex(st.key))
                report.stale.push_back(st.name + " (inputs or parameters changed)");
        }
        std::map<std::string, std::string> recorded;
        if (previous.contains("outputs") && previous["outputs"].is_array())
            for (const OJson& o : previous["outputs"])
                if (o.contains("file") && o.contains("xxh64"))
                    recorded[o["file"].get<std::string>()] = o["xxh64"].get<std::string>();
        auto checkOutput = [&](const std::string& name) {
            uint64_t h = 0;
            if (!fs::exists(c.output / name) || !fileHash(c.output / name, h) ||
                recorded[name] != hex(h))
                report.stale.push_back(name + " (missing or modified output)");
        };
        for (const Node& st : stages) {
            if (st.kind == "world") {
                // The index and every tile the last build published.
                const std::string stem = st.agent + "." + st.graph + ".";
                checkOutput(stem + "world");
                for (const auto& [name, hash] : recorded)
                    if (name.starts_with(stem) && name.ends_with(".nav")) checkOutput(name);
                continue;
            }
            if (st.kind != "pack") continue;
            checkOutput(outputName(st));
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
    fs::create_directories(cacheFolder(c, options), ec);
    if (ec)
        return makeError(ErrorKind::io, "cannot create {}: {}", cacheFolder(c, options).string(),
                         ec.message());

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
    auto work = [&](size_t) {
        std::unique_lock lock(mutex);
        for (;;) {
            wake.wait(lock, [&] {
                return !ready.empty() || finished == count || failure ||
                       (running == 0 && ready.empty());
            });
            if (failure || finished == count || ready.empty()) {
                wake.notify_all();
                return;
            }
            const size_t i = ready.front();
            ready.erase(ready.begin());
            ++running;
            lock.unlock();
            Node& st = stages[i];
            const auto t0 = std::chrono::steady_clock::now();
            Status status;
            auto it = previous_stage.find(st.name);
            const bool cached =
                !options.force && fs::exists(st.artifact) && checkContainerFile(st.artifact).ok();
            if (context.cancelled()) {
                status = makeError(ErrorKind::cancelled, "build cancelled");
            } else if (cached) {
                st.report.skipped = true;
                if (loadStageResult(st)) {
                    // Its result file (a build here, or a --stage run on a cluster worker).
                } else if (it != previous_stage.end() && (*it->second).contains("counts") &&
                           (*it->second)["key"] == hex(st.key)) {
                    st.report.counts = (*it->second)["counts"];
                    if ((*it->second).contains("warnings"))
                        for (const auto& w : (*it->second)["warnings"])
                            st.report.warnings.push_back(w.get<std::string>());
                    if ((*it->second).contains("named_inputs") &&
                        (*it->second)["named_inputs"].is_object())
                        for (const auto& [name, used] : (*it->second)["named_inputs"].items())
                            if (used.is_boolean())
                                st.report.named_inputs.push_back({name, used.get<bool>()});
                }
                context.event(LogLevel::info, fmt::format("up to date: {}", st.name),
                              stageFields(st, "up to date", 0));
            } else {
                auto result = st.run(st, stages, context);
                if (!result) {
                    status = result.error();
                } else {
                    for (const auto& [name, value] : result->counts) st.report.counts[name] = value;
                    st.report.named_inputs = result->named_inputs;
                    for (const std::string& w : result->warnings)
                        st.report.warnings.push_back(fmt::format("{}: {}", st.name, w));
                    for (const std::string& line : result->summary) context.debug("{}", line);
                    if (Status saved = saveStageResult(st); !saved) status = saved;
                    const double ms = std::chrono::duration<double, std::milli>(
                                          std::chrono::steady_clock::now() - t0)
                                          .count();
                    context.event(LogLevel::info, fmt::format("built: {} ({:.0f} ms)", st.name, ms),
                                  stageFields(st, "built", ms));
                }
            }
            st.report.milliseconds =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            st.report.peak_rss_bytes = peakRss();
            for (const std::string& w : st.report.warnings)
                if (!st.report.skipped)
                    context.event(LogLevel::warn, w,
                                  {{"event", std::string("warning")},
                                   {"stage", st.name},
                                   {"agent", st.agent},
                                   {"warning", w}});
            if (!status)
                context.event(LogLevel::debug, fmt::format("failed: {}", st.name),
                              stageFields(st, "failed", st.report.milliseconds));
            lock.lock();
            --running;
            ++finished;
            if (!status) {
                if (!failure)
                    failure = Error{status.error().kind,
                                    fmt::format("{}: {}", st.name, status.error().message)};
            } else {
                for (size_t d : dependents[i])
                    if (--waiting[d] == 0) ready.push_back(d);
            }
            wake.notify_all();
        }
    };
    // `jobs` workers, each taking ready stages until none is left, on the one worker loop.
    const size_t jobs = size_t(resolveThreads(options.jobs));
    uint64_t progress = 0;
    const Status workers = runParallel("build", jobs, int(jobs), context, progress, jobs, work);
    if (failure) return *failure;
    if (!workers) return workers.error();
    // Links every agent was given but none could use: an error in the level, not a choice.
    {
        std::map<std::string, bool> used;  // name -> some graph stage used it
        for (const Node& st : stages)
            for (const auto& [name, ok] : st.report.named_inputs) used[name] = used[name] || ok;
        std::string unusable;
        for (const auto& [name, ok] : used)
            if (!ok) unusable += "\n  " + name;
        if (!unusable.empty())
            return inputError(
                "{}: no agent of the level can use these links (each agent's "
                "warning says why):{}",
                c.file.string(), unusable);
    }
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "build cancelled");

    // Publish the final assets (only when their bytes change) and the report, atomically.
    for (const Node& st : stages) {
        report.stages.push_back(st.report);
        if (st.kind == "world") {
            if (Status s = publishWorld(c, st, report, context); !s) return s.error();
            continue;
        }
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
        // The geometry's view is titled by the level file, not by its cache file (whose name
        // holds the key).
        struct ViewSource {
            fs::path artifact;
            std::string stem, title;
        };
        std::vector<ViewSource> sources;
        if (!c.grid_map)
            sources.push_back(
                {stages[0].artifact, "level.geometry", c.inputs[0].filename().string()});
        for (const std::string& o : report.outputs)
            sources.push_back({c.output / o, fs::path(o).stem().string(), ""});
        for (const auto& [artifact, stem, title] : sources) {
            for (const char* ext : {".png", ".glb"}) {
                const fs::path out = c.output / "views" / (stem + ext);
                std::error_code time_ec;
                if (fs::exists(out) &&
                    fs::last_write_time(out, time_ec) >= fs::last_write_time(artifact, time_ec) &&
                    !options.force) {
                    report.views.push_back(fs::relative(out, c.output).string());
                    continue;
                }
                view::ViewOptions vo;
                vo.size = 1024;
                vo.title = title;
                if (Status s = view::writeView(artifact, out, vo, context); !s) return s.error();
                report.views.push_back(fs::relative(out, c.output).string());
            }
        }
    }
    report.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::string text = report.toJson(c).dump(2) + "\n";
    if (Status s = writeFileAtomic(
            reportPath(c),
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        !s)
        return s.error();
    return report;
}

Result<LevelConfig> loadLevelConfig(const fs::path& path) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    return parseLevelConfig(std::string(bytes->begin(), bytes->end()), path);
}

}  // namespace nav::pipeline
