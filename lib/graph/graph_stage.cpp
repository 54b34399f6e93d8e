// The graph stage: one definition shared by `navbake graph KIND` and `navbake build`.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include "lib/common/file_io.h"
#include "lib/common/parallel.h"
#include "lib/graph/graph.h"
#include "lib/graph/seeds.h"
#include "lib/voxel/voxel_grid.h"

namespace nav::graph {

void reportIslands(const std::vector<uint64_t>& sizes, StageResult& result) {
    uint64_t components = 0, largest = 0, total = 0;
    for (uint64_t n : sizes) {
        if (n == 0) continue;
        ++components;
        largest = std::max(largest, n);
        total += n;
    }
    result.count("components", components);
    if (components <= 1) return;
    result.warnings.push_back(
        fmt::format("{} walkable islands ({} nodes) are unreachable from the "
                    "largest component ({} nodes)",
                    components - 1, total - largest, largest));
}
namespace {

// Walkable islands: a warning when more than one component holds nodes.
void islandWarning(const Graph& g, StageResult& result) {
    std::map<uint32_t, uint64_t> sizes;
    for (uint32_t c : g.components)
        if (c != kNoNode) ++sizes[c];
    std::vector<uint64_t> counts;
    for (const auto& [c, n] : sizes) counts.push_back(n);
    reportIslands(counts, result);
}

std::string summary(const Graph& graph, GraphKind kind, double ms,
                    const std::filesystem::path& output) {
    const formats::GraphHeader& h = graph.header;
    if (h.type == formats::GraphType::navmesh) {
        const navmesh::NavMesh& m = graph.mesh;
        return fmt::format(
            "navmesh: {} polygons, {} vertices, {} regions, {} x {} tiles, {} portal "
            "edges, {} components (largest {}), {:.1f} ms -> {}",
            m.polyCount(), m.vertexCount(), m.region_count, m.tiles_x, m.tiles_z, h.edge_count,
            h.component_count, h.largest_component, ms, output.string());
    }
    if (h.type == formats::GraphType::pov) {
        const formats::PovStats& st = graph.pov_stats;
        return fmt::format(
            "pov graph: {} corners ({} any-direction), {} visibility edges before "
            "pruning, {} taut edges after ({:.1f}%), {} layer cells, {} components "
            "(largest {} corners), {:.1f} ms -> {}",
            st.corner_count, st.any_direction_corners, st.visibility_edges, st.taut_edges,
            st.visibility_edges ? 100.0 * double(st.taut_edges) / double(st.visibility_edges)
                                : 100.0,
            st.layer_cell_count, h.component_count, h.largest_component, ms, output.string());
    }
    if (h.flags & formats::kGraphFlagImplicitVolume) {
        size_t free_voxels = 0;
        for (uint64_t word : graph.free_voxels) free_voxels += size_t(std::popcount(word));
        return fmt::format(
            "volume graph: {} x {} x {} voxels, {} free for the agent (implicit "
            "26-connected edges), {} components (largest {}), {:.1f} ms -> {}",
            h.size_x, h.size_y, h.size_z, free_voxels, h.component_count, h.largest_component, ms,
            output.string());
    }
    return fmt::format(
        "{} graph: {} nodes, {} edges, {} components (largest {} nodes), {:.1f} ms -> {}",
        choiceName<GraphKind>(kGraphKinds, kind), h.node_count, h.edge_count, h.component_count,
        h.largest_component, ms, output.string());
}

}  // namespace

ParamIssues GraphStage::check(const Params& params) {
    ParamCheck check;
    check.nonNegative("agent_radius", params.agent_radius);
    check.threads("threads", params.threads);
    geometry::checkLinkSpecs(params.links, check);
    checkSurfaceParams(params.seeds, params.points, check);
    for (size_t i = 0; i < params.waypoints.size(); ++i) {
        const Waypoint& w = params.waypoints[i];
        const std::string field = fmt::format("waypoints[{}]", i);
        check.require(!w.name.empty(), field + ".name", "\"\"", "a name");
        check.require(std::isfinite(w.position[0]) && std::isfinite(w.position[1]) &&
                          std::isfinite(w.position[2]),
                      field + ".position",
                      fmt::format("({}, {}, {})", w.position[0], w.position[1], w.position[2]),
                      "a finite point");
        check.range(field + ".weight", w.weight, 0.0f, 1e6f, "m");
        for (size_t k = 0; k < i; ++k)
            check.require(params.waypoints[k].name != w.name, field + ".name", w.name,
                          fmt::format("unique (waypoints[{}] has it too)", k));
    }
    check.range("uphill", params.uphill, 0.0f, 1000.0f, "m per m");
    check.range("downhill", params.downhill, 0.0f, 1000.0f, "m per m");
    for (ParamIssue& issue : checkLinkGenParams(params.generate))
        check.issues.push_back(std::move(issue));
    if (params.kind == GraphKind::navmesh) {
        navmesh::NavmeshParams navmesh = params.navmesh;
        navmesh.threads = params.threads;
        for (ParamIssue& issue : navmesh::checkNavmeshParams(navmesh))
            if (issue.field != "threads") check.issues.push_back(std::move(issue));
    }
    return check.issues;
}

void GraphStage::describe(const Params& params, StageKey& key) {
    key.add("kind", choiceName<GraphKind>(kGraphKinds, params.kind));
    if (params.kind == GraphKind::volume) key.add("agent_radius", params.agent_radius);
    if (params.kind == GraphKind::pov) key.add("prune", params.prune);
    geometry::describeLinks(params.links, key);
    describeLinkGen(params.generate, key);
    if (params.scene_links_shared) key.add("scene_links_shared", true);
    describeSurface(
        params.kind != GraphKind::volume ? params.seeds : std::vector<std::array<float, 3>>{},
        params.points, key);
    if (params.uphill > 0 || params.downhill > 0)
        key.add("uphill", params.uphill).add("downhill", params.downhill);
    if (params.poi_tables) key.add("poi_tables", true);
    if (params.kind == GraphKind::dirichlet)
        for (const Waypoint& w : params.waypoints)
            key.add("waypoint", w.name)
                .add("waypoint_x", w.position[0])
                .add("waypoint_y", w.position[1])
                .add("waypoint_z", w.position[2])
                .add("weight", w.weight);
    if (params.kind == GraphKind::navmesh) navmesh::describeNavmeshParams(params.navmesh, key);
}

namespace {

// "3 drop, 1 ladder" from counts by type word.
std::string byType(const std::map<std::string, uint64_t>& counts) {
    std::string text;
    for (const auto& [name, n] : counts)
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, name);
    return text;
}

std::string typeWord(const Graph& g, formats::LinkType type) {
    if (const char* name = formats::linkTypeName(type)) return name;
    const uint32_t k = uint32_t(type) - formats::kLinkTypeUserFirst;
    return k < g.link_type_names.size() ? g.link_type_names[k] : "?";
}

// What links did to a graph: counts, the summary lines and warnings.
void reportLinks(const Graph& graph, const std::vector<uint32_t>& component_before,
                 uint32_t components_before, const LinkResolveStats& resolved,
                 StageResult& result) {
    if (graph.links.empty()) return;
    // Links are counted by id (a wide link's lanes are one link).
    std::map<std::string, uint64_t> by_type;
    uint64_t links = 0, generated = 0;
    for (size_t i = 0; i < graph.links.size(); ++i) {
        const formats::LinkRecord& l = graph.links[i];
        if (i > 0 && graph.links[i - 1].id == l.id) continue;
        ++links;
        ++by_type[typeWord(graph, l.type)];
        generated += (l.flags & formats::kLinkFlagGenerated) != 0;
    }
    result.count("links", links);
    result.count("link_lanes", graph.links.size());
    result.count("links_generated", generated);
    result.count("links_generated_off_graph", resolved.generated_dropped);
    result.count("components_before_links", components_before);
    for (const auto& [name, n] : by_type) result.count("links_" + name, n);
    const bool implicit_volume = (graph.header.flags & formats::kGraphFlagImplicitVolume) != 0;
    result.summary.push_back(fmt::format(
        "links: {} ({}){}{}{}{}; components {} before links, {} with them (undirected)", links,
        byType(by_type),
        graph.links.size() != links ? fmt::format(", {} lanes", graph.links.size()) : "",
        resolved.lanes_dropped
            ? fmt::format(", {} lanes off the surface dropped", resolved.lanes_dropped)
            : "",
        resolved.duplicates ? fmt::format(", {} repeated lanes merged", resolved.duplicates) : "",
        resolved.generated_dropped ? fmt::format(", {} generated links off this graph's surface",
                                                 resolved.generated_dropped)
                                   : "",
        components_before,
        graph.header.type == GraphType::pov ? graph.pov_stats.layer_component_count
                                            : graph.header.component_count));
    // Which links join walkable islands that the surface alone leaves apart.
    // Islands before links: components of nodes (voxels on volume graphs); on POV graphs, of
    // layer cells (link-end vertices are new nodes, and corners are not the surface).
    const bool pov = graph.header.type == GraphType::pov;
    const char* unit = pov ? "cells" : (implicit_volume ? "voxels" : "nodes");
    auto islandOf = [&](uint32_t v) {
        return pov ? component_before[graph.corners[v].cell] : component_before[v];
    };
    std::map<uint32_t, uint64_t> island_size;
    for (uint32_t c : component_before)
        if (c != kNoNode) ++island_size[c];
    std::string joins;
    size_t joining = 0;
    for (size_t i = 0; i < graph.links.size(); ++i) {
        const formats::LinkRecord& l = graph.links[i];
        if (i > 0 && graph.links[i - 1].id == l.id) continue;
        const uint32_t a = islandOf(l.from_node), b = islandOf(l.to_node);
        if (a == b) continue;
        if (++joining <= 8)
            joins += fmt::format(
                "{}link {} ({}) {} the island of {} {} {} that of {}", joins.empty() ? "" : "; ",
                l.id, typeWord(graph, l.type),
                (l.flags & formats::kLinkFlagBidirectional) ? "joins" : "leads from",
                island_size[a], unit, (l.flags & formats::kLinkFlagBidirectional) ? "and" : "to",
                island_size[b]);
    }
    result.count("links_joining_islands", joining);
    if (joining > 0)
        result.summary.push_back(
            fmt::format("links joining islands: {}{}", joins,
                        joining > 8 ? fmt::format(" (and {} more)", joining - 8) : ""));
    if (implicit_volume) return;
    // One-way links: nodes outside the largest strongly connected region of their walkable
    // component can be entered but not left back (below a one-way drop), or the reverse.
    const std::vector<uint32_t> strong = stronglyConnected(graph);
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> region_size;  // (component, scc)
    for (uint32_t v = 0; v < graph.nodeCount(); ++v)
        ++region_size[{graph.components[v], strong[v]}];
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> main_region;  // component -> (size, scc)
    for (const auto& [key, size] : region_size) {
        auto& best = main_region[key.first];
        if (size > best.first) best = {size, key.second};
    }
    uint64_t one_way = 0;
    size_t places = 0;
    for (const auto& [key, size] : region_size)
        if (main_region[key.first].second != key.second) one_way += size, ++places;
    result.count("one_way_nodes", one_way);
    if (one_way > 0)
        result.warnings.push_back(fmt::format(
            "one-way links: {} nodes in {} {} cannot both reach and be reached from the "
            "main region of their walkable area (e.g. below a one-way drop with no way back)",
            one_way, places, places == 1 ? "place" : "places"));
}

}  // namespace

namespace {

GraphStage::Params effectiveParams(const voxel::VoxelGrid& grid, const GraphStage::Params& given) {
    GraphStage::Params p = given;
    for (const geometry::SceneMarker& m : grid.markers) {
        if (m.kind == geometry::MarkerKind::seed) p.seeds.push_back(m.position);
        if (m.kind == geometry::MarkerKind::point_of_interest)
            p.points.push_back({m.object, m.label, m.position, m.name});
        if (m.kind == geometry::MarkerKind::waypoint)
            p.waypoints.push_back({m.object, m.position, m.weight, m.name});
    }
    return p;
}

}  // namespace

Result<MemoryEstimate> GraphStage::estimateMemory(const Inputs& inputs, const Params& params) {
    auto header = voxel::loadVoxelHeader(inputs.voxels);
    if (!header) return header.error();
    const formats::VoxelHeader& h = *header;
    // Per walkable span (= per node of tile graphs), measured on the shared meshes, towns and
    // cities (within 5% across them): tile ~165 bytes, POV ~146, navmesh ~59; volume graphs ~12.6
    // bytes per free voxel. The grid itself: 4 bytes per column and 8 per span when loaded whole.
    const uint64_t columns = uint64_t(h.size_x) * h.size_z, spans = h.span_count,
                   walkable = h.walkable_count;
    const uint64_t grid = columns * 4 + spans * 8;
    const bool whole = params.generate.enabled() || !params.seeds.empty() ||
                       !params.points.empty() || params.kind != GraphKind::navmesh ||
                       params.navmesh.tile_size == 0;
    uint64_t bytes =
        kStageBaseBytes + (whole ? grid : 0) + (params.generate.enabled() ? walkable * 16 : 0);
    std::string advice = "a larger cell size, bake bounds or world tiles";
    switch (params.kind) {
        case GraphKind::tile:
        case GraphKind::dirichlet: bytes += walkable * 180; break;
        case GraphKind::pov: bytes += walkable * 160; break;
        case GraphKind::navmesh:
            if (params.navmesh.tile_size > 0) {
                // Three rows of tiles at a time, and a tile per thread in flight.
                const uint64_t band =
                    std::min<uint64_t>(columns, uint64_t(3) * params.navmesh.tile_size * h.size_x);
                const double per_column = columns ? double(spans) / double(columns) : 0;
                bytes += uint64_t(double(band) * per_column * 64) +
                         uint64_t(resolveThreads(params.threads)) * params.navmesh.tile_size *
                             params.navmesh.tile_size * 256;
            } else {
                bytes += walkable * 64;
                advice =
                    "--tile-size (navmesh tiles bake in bands of rows), a larger cell size or "
                    "world tiles";
            }
            break;
        case GraphKind::volume: {
            const uint64_t voxels = columns * h.size_y;
            bytes += voxels * 13;
            return MemoryEstimate{bytes,
                                  fmt::format("{} x {} x {} voxels", h.size_x, h.size_z, h.size_y),
                                  "a larger cell size or cell height, bake bounds or world tiles"};
        }
    }
    return MemoryEstimate{
        bytes, fmt::format("{} columns, {} spans, {} walkable", columns, spans, walkable), advice};
}

Result<StageResult> GraphStage::run(const Inputs& inputs, const Params& given,
                                    const std::filesystem::path& output, Context& context) {
    if (Status s = checkStage<GraphStage>(given); !s) return s.error();
    // A tiled navmesh reads the grid a band of rows at a time (voxel::VoxelRowReader) when nothing
    // else needs it whole (no generated links, seeds or points of interest): the peak is then the
    // rows of three tile rows, not the level's spans. Everything else loads the whole grid.
    std::unique_ptr<voxel::VoxelRowReader> rows;
    Result<voxel::VoxelGrid> grid = voxel::VoxelGrid{};
    if (given.kind == GraphKind::navmesh && given.navmesh.tile_size > 0) {
        auto reader = voxel::VoxelRowReader::open(inputs.voxels);
        if (!reader) return reader.error();
        rows = std::move(reader).value();
        grid = rows->header();
    } else {
        grid = voxel::loadVoxels(inputs.voxels);
        if (!grid) return grid.error();
    }
    // Seeds and points of interest placed in the scene join the config's.
    const Params params = effectiveParams(*grid, given);
    if (params.points.size() != given.points.size() ||
        params.waypoints.size() != given.waypoints.size())
        if (Status s = checkStage<GraphStage>(params); !s) return s.error();
    const auto start = std::chrono::steady_clock::now();
    LinkGenParams generate = params.generate;
    if (generate.threads == 0) generate.threads = params.threads;
    // Seeds: the surface no seed reaches (walking or through any of the level's links, generated
    // ones included, so those are made first) is pruned from a copy of the grid.
    const bool seeded = !params.seeds.empty() && params.kind != GraphKind::volume;
    const bool checked = (seeded || !params.points.empty()) && params.kind != GraphKind::volume;
    if (rows && (generate.enabled() || checked)) {
        rows.reset();
        grid = voxel::loadVoxels(inputs.voxels);
        if (!grid) return grid.error();
    }
    // Generated links need the voxel grid alone: a thread at idle priority makes them beside the
    // graph's build (on the cores it leaves idle), the rest is made after it on every thread.
    // The result does not depend on how the work was shared.
    LinkGeneration generation(*grid, generate);
    std::thread beside;
    struct Join {
        LinkGeneration& job;
        std::thread& thread;
        ~Join() {
            job.stop();
            if (thread.joinable()) thread.join();
        }
    } join{generation, beside};
    if (generate.enabled()) {
        try {
            beside = std::thread([&] {
                const IdlePriority idle;
                generation.help(context);
            });
        } catch (const std::system_error&) {
            // No thread to spare: everything is generated after the graph.
        }
    }
    Result<GeneratedLinks> made = GeneratedLinks{};
    voxel::VoxelGrid pruned;
    const voxel::VoxelGrid* surface = &*grid;
    SurfaceCheck seeding;
    if (checked) {
        if (generate.enabled()) {
            made = generation.finish(context);
            if (!made) return made.error();
        }
        std::vector<LinkSpec> all = params.links;
        all.insert(all.end(), grid->links.begin(), grid->links.end());
        all.insert(all.end(), made->links.begin(), made->links.end());
        pruned = *grid;
        auto seeds =
            checkSurface(pruned, seeded ? params.seeds : std::vector<std::array<float, 3>>{},
                         params.points, all, params.threads, context);
        if (!seeds) return seeds.error();
        seeding = std::move(seeds).value();
        surface = &pruned;
    }
    Result<Graph> graph = Graph{};
    switch (params.kind) {
        case GraphKind::tile:
        case GraphKind::dirichlet: graph = buildTileGraph(*surface, context); break;
        case GraphKind::navmesh: {
            navmesh::NavmeshParams navmesh = params.navmesh;
            navmesh.threads = params.threads;
            if (rows) {
                graph = buildNavmeshGraph(*rows, navmesh, context);
                rows.reset();
            } else {
                graph = buildNavmeshGraph(*surface, navmesh, context);
            }
            break;
        }
        case GraphKind::pov: {
            PovParams pov;
            pov.prune = params.prune;
            pov.threads = unsigned(params.threads);
            graph = buildPovGraph(*surface, pov, context);
            break;
        }
        case GraphKind::volume:
            graph = buildVolumeGraph(*grid, params.agent_radius, context);
            break;
    }
    if (!checked && generate.enabled() && graph) made = generation.finish(context);
    uint64_t gradient_edges = 0;
    if (graph && (params.kind == GraphKind::tile || params.kind == GraphKind::navmesh ||
                  params.kind == GraphKind::dirichlet))
        gradient_edges = addGradientCosts(*graph, params.uphill, params.downhill);
    if (!graph) return graph.error();
    StageResult result;
    if (seeded) {
        result.count("seeds_on_surface", seeding.seeds_on_surface);
        result.count("seed_pruned_cells", seeding.pruned_cells);
        result.summary.push_back(fmt::format(
            "seeds: {} of {} on the walkable surface; {} walkable cells ({:.1f} m^2) no seed "
            "reaches pruned",
            seeding.seeds_on_surface, params.seeds.size(), seeding.pruned_cells,
            double(seeding.pruned_cells) * grid->cell_size * grid->cell_size));
        for (const std::string& off : seeding.off_surface) result.warnings.push_back(off);
    } else if (!params.seeds.empty()) {
        result.summary.push_back("seeds: not used by volume graphs (flyers have no surface)");
    }
    if (params.uphill > 0 || params.downhill > 0) {
        result.count("gradient_edges", gradient_edges);
        result.summary.push_back(
            fmt::format("gradient costs: + {} per m climbed, + {} per m descended, on {} edges{}",
                        params.uphill, params.downhill, gradient_edges,
                        params.kind != GraphKind::pov && params.kind != GraphKind::volume
                            ? ""
                            : " (not used by this graph kind)"));
    }
    if (checked && !params.points.empty()) {
        result.count("points_reachable", seeding.points_reachable);
        result.count("points_unreachable", seeding.points_unreachable);
        result.count("points_off_surface", seeding.points_off_surface);
        result.summary.push_back(fmt::format(
            "points of interest: {} of {} reachable ({}){}", seeding.points_reachable,
            params.points.size(), seeded ? "from a seed" : "in the largest walkable area",
            seeding.point_problems.empty()
                ? ""
                : fmt::format("; {} unreachable, {} off the surface", seeding.points_unreachable,
                              seeding.points_off_surface)));
        for (const std::string& problem : seeding.point_problems)
            result.warnings.push_back(problem);
    }
    const bool pov = graph->header.type == GraphType::pov;
    const uint32_t components_before =
        pov ? graph->pov_stats.layer_component_count : graph->header.component_count;
    const std::vector<uint32_t> component_before =
        pov ? graph->layer_components : graph->components;
    // The level's links: authored (config / links file), from scene objects (carried by the
    // .vox), generated from the agent's abilities.
    std::vector<LinkSpec> links = params.links;
    links.insert(links.end(), grid->links.begin(), grid->links.end());
    if (generate.enabled()) {
        if (!made) return made.error();
        const LinkGenStats& st = made->stats;
        result.count("ledge_samples", st.ledge_samples);
        result.count("ledge_samples_linked", st.samples_linked);
        for (size_t r = 0; r < st.rejected.size(); ++r)
            result.count(std::string("ledge_rejected_") + kLinkRejectNames[r], st.rejected[r]);
        std::string rejected;
        for (size_t r = 0; r < st.rejected.size(); ++r)
            if (st.rejected[r] > 0)
                rejected += fmt::format("{}{} {}", rejected.empty() ? "" : ", ", st.rejected[r],
                                        kLinkRejectNames[r]);
        result.summary.push_back(fmt::format(
            "generated links: {} ({}), {} two-way; {} ledge samples, {} linked, rejected: {}; "
            "{:.1f} ms of work (partly beside the graph's build)",
            made->links.size(), byType(st.links_by_type), st.two_way, st.ledge_samples,
            st.samples_linked, rejected.empty() ? "none" : rejected, st.milliseconds));
        links.insert(links.end(), made->links.begin(), made->links.end());
    }
    // Volume graphs (flyers) take teleports, and links that name their agent.
    if (params.kind == GraphKind::volume) keepVolumeLinks(links);
    for (LinkSpec& l : links)
        if (l.scene) l.shared = params.scene_links_shared;
    // Links leading from or to surface no seed reaches are left out (said for authored ones).
    if (!seeding.pruned_links.empty()) {
        std::erase_if(links, [&](const LinkSpec& l) {
            if (!std::binary_search(seeding.pruned_links.begin(), seeding.pruned_links.end(), l.id))
                return false;
            if (!l.generated)
                result.warnings.push_back(fmt::format(
                    "{}: left out, it leads from or to surface no seed reaches", l.name));
            return true;
        });
    }
    LinkResolveStats resolved;
    {
        ScopedTimer timer(context, "graph: attach links");
        if (Status s = attachLinks(*graph, links, params.threads, resolved, context); !s)
            return s.error();
    }
    reportLinkUse(links, resolved, result);
    // Rooms drawn in the scene travel on to the cluster stage (method manual) in the .graph.
    if (params.kind != GraphKind::volume && params.kind != GraphKind::dirichlet)
        for (const geometry::SceneMarker& m : grid->markers)
            if (m.kind == geometry::MarkerKind::cluster) graph->rooms.push_back(m);
    if (!graph->rooms.empty()) {
        result.count("scene_rooms", graph->rooms.size());
        std::string names;
        for (const geometry::SceneMarker& m : graph->rooms)
            names += (names.empty() ? "" : ", ") + m.label;
        result.summary.push_back(
            fmt::format("scene rooms: {} cluster markers kept for manual clusters ({})",
                        graph->rooms.size(), names));
    }
    // Dirichlet graphs: the domains of the tile graph just built (its links connect them too).
    const Graph* saved = &*graph;
    Graph domains;
    std::vector<uint32_t> dirichlet_owners;
    if (params.kind == GraphKind::dirichlet) {
        DirichletReport report;
        auto built = buildDirichletGraph(*graph, *surface, params.waypoints, context, &report);
        if (!built) return built.error();
        domains = std::move(built).value();
        saved = &domains;
        for (std::string& moved : report.moved) result.warnings.push_back(std::move(moved));
        dirichlet_owners = std::move(report.owners);
        uint64_t empty = 0;
        for (size_t i = 0; i < params.waypoints.size(); ++i)
            if (report.cells_per_waypoint[i] == 0) {
                ++empty;
                result.warnings.push_back(fmt::format(
                    "{}waypoint '{}' owns no cells: a waypoint with a larger weight claims its "
                    "surroundings",
                    params.waypoints[i].where.empty() ? "" : params.waypoints[i].where + ": ",
                    params.waypoints[i].name));
            }
        result.count("waypoints", params.waypoints.size());
        result.count("domain_cells", domains.layer_cells.size());
        result.count("cells_outside_domains", report.unassigned_cells);
        if (report.unassigned_cells > 0)
            result.warnings.push_back(fmt::format(
                "{} walkable cells ({:.1f} m^2) lie in no Dirichlet domain: no waypoint reaches "
                "them",
                report.unassigned_cells,
                double(report.unassigned_cells) * grid->cell_size * grid->cell_size));
        std::string each;
        for (size_t i = 0; i < params.waypoints.size() && i < 12; ++i)
            each += fmt::format(
                "{}{} {} ({:.1f} m^2)", i ? ", " : "", params.waypoints[i].name,
                report.cells_per_waypoint[i],
                double(report.cells_per_waypoint[i]) * grid->cell_size * grid->cell_size);
        result.summary.push_back(fmt::format(
            "Dirichlet domains: {} waypoints ({} empty), cells per domain: {}{}; {} connections{}",
            params.waypoints.size(), empty, each, params.waypoints.size() > 12 ? ", ..." : "",
            domains.edgeCount(),
            report.dropped_connections > 0
                ? fmt::format(" ({} touching pairs without a path between their waypoints)",
                              report.dropped_connections)
                : ""));
    }
    if (params.poi_tables && !params.points.empty()) {
        ScopedTimer timer(context, "graph: point-of-interest tables");
        const GraphKind kind = params.kind;
        if (kind == GraphKind::pov || kind == GraphKind::volume) {
            result.summary.push_back(
                "point-of-interest tables: not for POV and volume graphs (tile, navmesh, "
                "dirichlet)");
        } else {
            std::vector<std::pair<std::string, uint32_t>> targets;
            const formats::MeshArrays mesh =
                kind == GraphKind::navmesh ? meshArraysOf(*graph) : formats::MeshArrays{};
            for (const PointOfInterest& p : params.points) {
                uint32_t node = kNoNode;
                if (kind == GraphKind::navmesh) {
                    const formats::MeshLocation at =
                        formats::meshLocate(mesh, p.position.data(), 2.0f * grid->cell_size, 1.0f);
                    if (at.poly != formats::MeshLocation{}.poly) node = at.poly;
                } else {
                    node = surfaceNode(*graph, *surface, p.position);  // the tile graph
                    if (kind == GraphKind::dirichlet && node != kNoNode)
                        node = dirichlet_owners[node];
                }
                if (node != kNoNode) targets.push_back({p.kind.empty() ? "poi" : p.kind, node});
            }
            Graph& tables = params.kind == GraphKind::dirichlet ? domains : *graph;
            buildPoiTables(tables, targets);
            result.count("poi_kinds", tables.poi_kinds.size());
            std::string kinds;
            for (const std::string& k : tables.poi_kinds) kinds += (kinds.empty() ? "" : ", ") + k;
            result.summary.push_back(fmt::format(
                "point-of-interest tables: {} kinds ({}), {} of {} points on this graph, {} nodes",
                tables.poi_kinds.size(), kinds.empty() ? "none" : kinds, targets.size(),
                params.points.size(), tables.nodeCount()));
        }
    }
    // The grid's columns are not needed any more: freed before the graph is compressed, whose
    // encoders then take their place instead of adding to them (the peak of a large level).
    generation.stop();
    if (beside.joinable()) beside.join();
    for (voxel::VoxelGrid* g : {&*grid, &pruned}) {
        std::vector<uint32_t>().swap(g->column_offsets);
        std::vector<voxel::Span>().swap(g->spans);
    }
    {
        ScopedTimer timer(context, "graph: save");
        if (Status s = saveGraph(output, *saved); !s) return s.error();
    }
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.count("nodes", saved->nodeCount());
    result.count("edges", saved->edgeCount());
    if (graph->header.type == GraphType::navmesh) result.count("polygons", graph->nodeCount());
    if (params.kind != GraphKind::volume) islandWarning(*saved, result);
    result.summary.push_back(summary(*saved, params.kind, result.milliseconds, output));
    {
        ScopedTimer timer(context, "graph: link report");
        reportLinks(*graph, component_before, components_before, resolved, result);
    }
    return result;
}

}  // namespace nav::graph
