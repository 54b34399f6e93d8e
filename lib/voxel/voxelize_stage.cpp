// The voxelize stage: one definition shared by `navbake voxelize` and `navbake build`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/geometry/geometry.h"
#include "lib/voxel/voxelize.h"

namespace nav::voxel {

void VoxelizeStage::describe(const Params& p, StageKey& key) {
    key.add("cell_size", p.cell_size)
        .add("cell_height", p.cell_height)
        .add("agent_height", p.agent.height)
        .add("agent_radius", p.agent.radius)
        .add("agent_climb", p.agent.climb)
        .add("max_slope", p.agent.max_slope_deg);
    if (!p.bounds.empty()) {
        key.add("bounds", uint64_t(p.bounds.size()));
        for (const geometry::Bounds& b : p.bounds)
            for (size_t a = 0; a < 3; ++a)
                key.add("bound_min", b.min[a]).add("bound_max", b.max[a]);
    }
    for (const auto& [name, cost] : p.area_costs) key.add("area_cost", name).add("cost", cost);
    for (const std::string& name : p.area_mask) key.add("area_mask", name);
    for (const ModifierVolume& v : p.volumes) {
        key.add("volume", v.name).add("area", v.area).add("cost_factor", v.cost_factor);
        key.add("forbid", uint64_t(v.forbid)).add("planes", uint64_t(v.planes.size()));
        for (size_t a = 0; a < 3; ++a)
            key.add("volume_min", v.box.min[a]).add("volume_max", v.box.max[a]);
        for (const geometry::Plane& q : v.planes)
            for (float x : q) key.add("plane", x);
        for (const std::string& name : v.agents) key.add("volume_agent", name);
        for (const std::string& name : v.walkable_for) key.add("walkable_for", name);
    }
    // Scene volumes may name agents: the .geo (in the key by its bytes) and this name decide.
    if (!p.agent_name.empty()) key.add("agent", p.agent_name);
}

Result<MemoryEstimate> VoxelizeStage::estimateMemory(const Inputs& inputs, const Params& params) {
    auto head = loadContainerHead(inputs.geometry, formats::kKindGeometry,
                                  formats::kGeometryStripExtentsVersion);
    if (!head) return head.error();
    formats::GeometryHeader h;
    if (Status s = head->header(formats::kSecGeometryHeader, formats::decodeGeometryHeader, h); !s)
        return s.error();
    // The strips layout: the band lists hold the triangles of the strips around the bands in
    // flight (37 bytes a copy): the share of the level's depth that ~2 strips and a window of
    // rows cover, per thread.
    double share = 1.0;
    if (head->container.kind_version >= formats::kGeometryStripsVersion) {
        auto table = head->section(formats::kSecGeometryStrips);
        if (!table) return table.error();
        float strip = 0;
        if (table->size() >= 4) std::memcpy(&strip, table->data(), 4);
        const double depth = std::max(1.0, double(h.bounds_max[2]) - h.bounds_min[2]);
        const int threads = std::max(1, resolveThreads(params.threads));
        if (std::isfinite(strip) && strip > 0)
            share = std::min(1.0, threads * (2.0 * strip + 20.0) / depth);
    }
    // Triangles are kept compressed and decoded whole only under bake bounds; rows of spans are
    // streamed to the file in bands, so the grid is never whole (measured: city4's 362 k
    // triangles peak at 8 MB over the base).
    const double cell = params.cell_size > 0 ? params.cell_size : 0.3;
    const double width = std::max(0.0, double(h.bounds_max[0]) - h.bounds_min[0]);
    const uint64_t size_x = uint64_t(std::min(width / cell + 1, 1e9));
    const uint64_t triangles = h.triangle_count;
    // A wide strips layout is voxelized a block of columns at a time (and its halo): the band
    // lists and rows then hold the block's share, plus a band of whole rows as blocks are joined.
    uint64_t held = size_x, joined = 0;
    if (head->container.kind_version >= formats::kGeometryStripsVersion &&
        size_x > uint64_t(params.column_block) * 3 / 2) {
        held = params.column_block + 64;
        share = std::min(1.0, share * double(held) / double(size_x));
        joined = size_x * 256;
    }
    uint64_t bytes =
        kStageBaseBytes + uint64_t(double(triangles) * 48 * share) + held * 256 * 16 + joined;
    if (!params.bounds.empty()) bytes += triangles * 36;
    return MemoryEstimate{bytes, fmt::format("{} triangles, {} columns across", triangles, size_x),
                          "bake bounds, a larger cell size or world tiles"};
}

Result<StageResult> VoxelizeStage::run(const Inputs& inputs, const Params& params,
                                       const std::filesystem::path& output, Context& context) {
    if (Status s = checkStage<VoxelizeStage>(params); !s) return s.error();
    // The triangles stay stored (compressed) and are decoded as voxelize visits them, unless
    // bake bounds clip the geometry (which needs them whole).
    geometry::StoredTriangles stored;
    auto geometry = [&] {
        ScopedTimer timer(context, "voxelize: load");
        return geometry::loadGeometry(inputs.geometry, stored);
    }();
    if (!geometry) return geometry.error();
    const VoxelizeParams applied = effectiveParams(*geometry, params);
    const bool whole = !applied.bounds.empty();
    // (A strips layout's triangles then become vertices and triangles of their own: whole, as
    // bake bounds need them.)
    if (whole)
        if (Status s = stored.decodeInto(*geometry); !s) return s.error();
    const auto start = std::chrono::steady_clock::now();
    VoxelizeCounts counts;
    // Streamed to the file as rows are finished: the grid is never all in memory.
    auto voxelized = voxelizeToFile(*geometry, whole ? nullptr : &stored, params, context, &counts,
                                    output, inputs.source_name);
    if (!voxelized) return voxelized.error();
    const uint64_t outside_bounds = counts.outside_bounds;
    const size_t triangle_count = size_t(stored.count());

    StageResult result;
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const VoxelGrid& g = voxelized->header;
    const VoxelStats& stats = voxelized->stats;
    result.count("columns", stats.columns);
    result.count("spans", stats.spans);
    result.count("walkable_spans", stats.walkable_spans);
    result.count("walkable_columns", stats.walkable_columns);
    if (counts.column_blocks > 1) result.count("column_blocks", counts.column_blocks);
    const AgentCells cells = agentCells(g.agent, g.cell_size, g.cell_height);
    result.summary.push_back(fmt::format(
        "{}: {} triangles -> {} x {} x {} cells (x, z, y) of {} x {} m, origin ({:.3f}, {:.3f}, "
        "{:.3f})",
        inputs.geometry.string(), triangle_count, g.size_x, g.size_z, g.size_y, g.cell_size,
        g.cell_height, g.origin[0], g.origin[1], g.origin[2]));
    result.summary.push_back(fmt::format(
        "agent: height {} m ({} cells), radius {} m ({} cells), climb {} m ({} cells), max slope "
        "{} degrees",
        g.agent.height, cells.height, g.agent.radius, cells.radius, g.agent.climb, cells.climb,
        g.agent.max_slope_deg));
    std::string per_area;
    for (size_t a = 0; a < stats.walkable_per_area.size(); ++a)
        if (stats.walkable_per_area[a] > 0)
            per_area += fmt::format("{}{} {}", per_area.empty() ? "" : ", ",
                                    stats.walkable_per_area[a], g.areas[a].name);
    result.summary.push_back(fmt::format(
        "{} spans, {} walkable ({}); {} walkable columns, {} multi-layer (up to {} layers)",
        stats.spans, stats.walkable_spans, per_area.empty() ? "none" : per_area,
        stats.walkable_columns, stats.multi_layer_columns, stats.max_walkable_layers));
    if (!applied.bounds.empty()) {
        result.count("walkable_outside_bounds", outside_bounds);
        result.summary.push_back(fmt::format(
            "bake bounds: {} {}; {} walkable spans outside them left unwalkable ({:.1f} m^2)",
            applied.bounds.size(), applied.bounds.size() == 1 ? "box" : "boxes", outside_bounds,
            double(outside_bounds) * g.cell_size * g.cell_size));
    }
    if (!applied.volumes.empty()) {
        uint64_t changed = 0;
        std::string each;
        for (size_t i = 0; i < applied.volumes.size(); ++i) {
            const ModifierVolume& v = applied.volumes[i];
            changed += counts.in_volumes[i];
            each +=
                fmt::format("{}{} ({}{}{})", each.empty() ? "" : "; ", v.name, counts.in_volumes[i],
                            v.forbid ? " forbidden" : "", v.area.empty() ? "" : " -> " + v.area);
        }
        result.count("walkable_in_volumes", changed);
        result.summary.push_back(
            fmt::format("modifier volumes: {} walkable spans changed: {}", changed, each));
    }
    if (!params.area_costs.empty() || !params.area_mask.empty()) {
        std::string costs;
        for (const auto& [name, cost] : params.area_costs)
            costs += fmt::format("{}{} {}", costs.empty() ? "" : ", ", name, cost);
        std::string mask;
        for (const std::string& name : params.area_mask) mask += (mask.empty() ? "" : ", ") + name;
        if (!params.area_mask.empty()) result.count("walkable_masked", counts.masked);
        result.summary.push_back(fmt::format(
            "this agent's areas: {}{}", costs.empty() ? "table costs" : "costs " + costs,
            mask.empty() ? std::string()
                         : fmt::format("; walks only on {} ({} walkable spans of other areas left "
                                       "unwalkable)",
                                       mask, counts.masked)));
    }
    if (!g.links.empty()) {
        result.count("links", g.links.size());
        result.summary.push_back(fmt::format("links from scene objects: {} ({}), for the graphs",
                                             g.links.size(), geometry::linksByTypeText(g.links)));
    }
    result.summary.push_back(
        fmt::format("voxelized in {:.3f} s -> {}", result.milliseconds / 1000.0, output.string()));
    if (stats.walkable_spans == 0)
        result.warnings.push_back(fmt::format(
            "the agent fits nowhere: no walkable surface (height {} m, radius {} m, climb {} m, "
            "max slope {} degrees); check the agent parameters, the up axis and the tags",
            params.agent.height, params.agent.radius, params.agent.climb,
            params.agent.max_slope_deg));
    return result;
}

}  // namespace nav::voxel
