#include "lib/query/query.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <memory>

#include "lib/common/file_io.h"
#include "lib/common/text.h"
#include "lib/importer/import.h"
#include "lib/importer/scenario.h"

namespace nav::query {

const char* outcomeName(Outcome outcome) {
    switch (outcome) {
        case Outcome::found: return "found";
        case Outcome::no_path: return "no_path";
        case Outcome::start_off_graph: return "start_off_graph";
        case Outcome::goal_off_graph: return "goal_off_graph";
        case Outcome::out_of_nodes: return "out_of_nodes";
    }
    return "unknown";
}

const char* methodName(Method method) {
    switch (method) {
        case Method::astar: return "astar";
        case Method::cluster: return "cluster";
        case Method::hier: return "hier";
        case Method::nexthop: return "nexthop";
        case Method::exact: return "exact";
    }
    return "unknown";
}

bool parseMethod(std::string_view name, Method& out) {
    for (Method m : {Method::astar, Method::cluster, Method::hier, Method::nexthop, Method::exact})
        if (name == methodName(m)) {
            out = m;
            return true;
        }
    return false;
}

bool returnsShortestPaths(const navrt::GraphView& graph, Method method) {
    if (method == Method::hier) return false;
    return method != Method::nexthop || graph.next_hop_ranks != nullptr;
}

Status checkMethod(const navrt::GraphView& graph, Method method, const std::string& asset) {
    // What each method beyond plain A* needs packed into the asset, and how to build it.
    bool present = true;
    const char* sections = "";
    const char* how = "";
    switch (method) {
        case Method::astar: return {};
        case Method::exact:
            if (!graph.isNavmesh())
                return makeError(ErrorKind::usage,
                                 "{}: --method exact needs a navigation mesh asset (graph navmesh)",
                                 asset);
            return {};
        case Method::cluster:
            present = graph.hasClusters();
            sections = "cluster";
            how =
                "'navbake cluster GRAPH -o FILE.clu', then 'navbake pack GRAPH --clusters "
                "FILE.clu'";
            break;
        case Method::hier:
            present = graph.hasHierarchy();
            sections = "hierarchy";
            how =
                "'navbake hierarchy GRAPH --clusters FILE.clu -o FILE.hier', then 'navbake "
                "pack GRAPH --clusters FILE.clu --hierarchy FILE.hier'";
            break;
        case Method::nexthop:
            present = graph.hasNextHop();
            sections = "next-hop";
            how =
                "'navbake nexthop GRAPH -o FILE.nh', then 'navbake pack GRAPH --nexthop "
                "FILE.nh'";
            break;
    }
    if (!present)
        return inputError(
            "{}: --method {} needs {} sections, and this asset has none (build them with {})",
            asset, methodName(method), sections, how);
    if (graph.header.type != formats::GraphType::tile)
        return inputError(
            "{}: --method {} applies to tile graphs; navmesh and POV point queries use their "
            "own costs",
            asset, methodName(method));
    return {};
}

navrt::MeshPoint locatePoint(const navrt::GraphView& graph, navrt::Vec3 p, float horizontal,
                             float vertical) {
    if (graph.isNavmesh()) return navrt::locateOnMesh(graph, p, horizontal, vertical);
    // Tile and volume graphs: the node under the point. POV graphs: the layer cell under it
    // (findPathBetween places the point on that cell and connects it to the corners).
    navrt::MeshPoint m{navrt::locate(graph, p, horizontal, vertical), p};
    if (m.poly == navrt::kNoNode) return m;
    if (graph.header.type == formats::GraphType::pov) {
        const formats::NodeCell c =
            formats::decodeNodeCell(graph.layer_cells + size_t(m.poly) * formats::kNodeCellSize);
        const formats::GraphHeader& h = graph.header;
        m.position = {h.origin[0] + (float(c.column % h.size_x) + 0.5f) * h.cell_size,
                      h.origin[1] + float(c.y) * h.cell_height,
                      h.origin[2] + (float(c.column / h.size_x) + 0.5f) * h.cell_size};
    } else {
        m.position = graph.position(m.poly);
    }
    return m;
}

namespace {

// `p` located within the tolerances; when it is off the graph and tolerance.snap > 0, located
// again within the snap distance and `moved` set to how far it moved (left as it is otherwise).
navrt::MeshPoint placePoint(const navrt::GraphView& graph, navrt::Vec3 p,
                            const Tolerance& tolerance, double& moved) {
    navrt::MeshPoint m = locatePoint(graph, p, tolerance.horizontal, tolerance.vertical);
    if (m.poly != navrt::kNoNode || !(tolerance.snap > 0)) return m;
    m = locatePoint(graph, p, std::max(tolerance.horizontal, tolerance.snap),
                    std::max(tolerance.vertical, tolerance.snap));
    if (m.poly != navrt::kNoNode) {
        const double dx = double(m.position.x) - p.x, dy = double(m.position.y) - p.y,
                     dz = double(m.position.z) - p.z;
        moved = std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    return m;
}

}  // namespace

Result<NearestPoi> nearestPoi(const navrt::GraphView& graph, const std::string& kind,
                              navrt::Vec3 from, const Tolerance& tolerance,
                              const std::string& asset) {
    if (graph.poi_kind_count == 0)
        return inputError(
            "{}: the asset has no point-of-interest tables (build its graph with "
            "--poi-tables, or \"poi_tables\": true in the agent)",
            asset);
    const uint32_t k = navrt::poiKind(graph, kind.data(), kind.size());
    if (k == navrt::kNoNode) {
        std::string kinds;
        for (uint32_t i = 0; i < graph.poi_kind_count; ++i)
            kinds += fmt::format(
                "{}{}", i ? ", " : "",
                std::string(graph.poi_kind_names + size_t(i) * formats::kPoiKindNameSize,
                            strnlen(graph.poi_kind_names + size_t(i) * formats::kPoiKindNameSize,
                                    formats::kPoiKindNameSize)));
        return inputError("{}: no points of interest of kind '{}' (its kinds: {})", asset, kind,
                          kinds);
    }
    const auto start = std::chrono::steady_clock::now();
    NearestPoi out;
    double moved = -1;
    const navrt::MeshPoint m = placePoint(graph, from, tolerance, moved);
    if (moved >= 0) out.snapped = moved;
    if (m.poly == navrt::kNoNode || graph.isPov())
        return inputError("{}: ({}, {}, {}) is not on the graph", asset, from.x, from.y, from.z);
    const uint32_t n = graph.nodeCount();
    out.cost = graph.poi_distances[size_t(k) * n + m.poly];
    out.nodes.resize(n);
    out.nodes.resize(navrt::walkToNearestPoi(graph, k, m.poly, out.nodes.data(), n));
    out.reachable = !out.nodes.empty();
    for (uint32_t v : out.nodes) out.path.push_back(graph.position(v));
    out.micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    return out;
}

QueryRecord runQuery(const navrt::GraphView& graph, navrt::PathQuery& query, navrt::Vec3 from,
                     navrt::Vec3 to, const Tolerance& tolerance, bool smooth,
                     const SearchMethod& search, navrt::HierarchicalQuery* hierarchical,
                     navrt::NextHopQuery* next_hop, navrt::ExactMeshQuery* exact) {
    Method method = search.method;
    if ((method == Method::hier && hierarchical == nullptr) ||
        (method == Method::nexthop && next_hop == nullptr) ||
        (method == Method::exact && exact == nullptr))
        method = Method::astar;
    (void)query.setHeuristic(method == Method::cluster ? navrt::Heuristic::cluster
                                                       : navrt::Heuristic::standard);
    QueryRecord record;
    const auto start_time = std::chrono::steady_clock::now();
    auto place = [&](navrt::Vec3 p, double& moved, navrt::Vec3& at) {
        navrt::MeshPoint m = placePoint(graph, p, tolerance, moved);
        if (m.poly == navrt::kNoNode) return m;
        if (moved >= 0) {
            at = m.position;
        } else if (!graph.isNavmesh()) {
            // On the surface: navmesh points are projected onto their polygon's floor, the
            // others stay as given (findPathBetween connects them).
            m.position = p;
        }
        return m;
    };
    const navrt::MeshPoint start = place(from, record.start_moved, record.start_at);
    const navrt::MeshPoint goal = place(to, record.goal_moved, record.goal_at);
    record.start_node = start.poly;
    record.goal_node = goal.poly;
    navrt::PathStatus status = navrt::PathStatus::no_path;
    if (record.start_node == navrt::kNoNode) {
        record.outcome = Outcome::start_off_graph;
    } else if (record.goal_node == navrt::kNoNode) {
        record.outcome = Outcome::goal_off_graph;
    } else if (method == Method::hier) {
        status = hierarchical->findPath(start.poly, goal.poly, search.hier);
    } else if (method == Method::nexthop) {
        status = next_hop->pathByNextHop(start.poly, goal.poly);
    } else if (method == Method::exact) {
        status = exact->findPath(start.position, start.poly, goal.position, goal.poly);
    } else {
        status = query.findPathBetween(start.position, start.poly, goal.position, goal.poly);
    }
    if (record.start_node != navrt::kNoNode && record.goal_node != navrt::kNoNode)
        record.outcome = status == navrt::PathStatus::found          ? Outcome::found
                         : status == navrt::PathStatus::out_of_nodes ? Outcome::out_of_nodes
                                                                     : Outcome::no_path;
    record.micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_time)
            .count();
    if (method == Method::nexthop) {
        record.expansions = next_hop->pathLength() > 0 ? next_hop->pathLength() - 1 : 0;
        if (record.outcome == Outcome::found) {
            record.cost = next_hop->cost();
            record.path_nodes = next_hop->pathLength();
            record.smoothed_length = record.cost;
        }
        return record;
    }
    if (method == Method::exact) {
        record.expansions = exact->expansions();
        if (record.outcome == Outcome::found) {
            record.cost = exact->cost();
            record.path_nodes = exact->pointCount();
            record.smoothed_length = record.cost;
        }
        return record;
    }
    if (method == Method::hier) {
        record.expansions = hierarchical->expansions();
        if (record.outcome == Outcome::found) {
            record.cost = hierarchical->cost();
            record.path_nodes = hierarchical->pathLength();
            record.smoothed_length = record.cost;
        }
        return record;
    }
    record.expansions = query.expansions();
    if (record.outcome == Outcome::found) {
        record.cost = query.cost();
        record.path_nodes = query.pathLength();
        if (smooth) record.smoothed_length = query.smoothedLength();
    }
    return record;
}

Status Searcher::init(const navrt::GraphView& graph, const SearchMethod& method,
                      const std::string& asset) {
    graph_ = &graph;
    method_ = method;
    if (Status s = checkMethod(graph, method.method, asset); !s) return s;
    if (navrt::Error e = query_.init(graph))
        return makeError(ErrorKind::internal, "{}: cannot set up the search: {}", asset, e.message);
    if (method.method == Method::hier)
        if (navrt::Error e = hierarchical_.init(graph))
            return makeError(ErrorKind::internal, "{}: cannot set up the hierarchical search: {}",
                             asset, e.message);
    if (method.method == Method::exact)
        if (navrt::Error e = exact_.init(graph))
            return makeError(ErrorKind::bad_input, "{}: --method exact: {}", asset, e.message);
    if (method.method == Method::nexthop)
        if (navrt::Error e = next_hop_.init(graph))
            return makeError(ErrorKind::internal, "{}: cannot set up the next-hop lookups: {}",
                             asset, e.message);
    return {};
}

QueryRecord Searcher::run(navrt::Vec3 from, navrt::Vec3 to, const Tolerance& tolerance) {
    return runQuery(*graph_, query_, from, to, tolerance, !tableMethod(), method_, &hierarchical_,
                    &next_hop_, &exact_);
}

std::span<const uint32_t> Searcher::nodePath() const {
    switch (method_.method) {
        case Method::hier: return {hierarchical_.path(), hierarchical_.pathLength()};
        case Method::nexthop: return {next_hop_.path(), next_hop_.pathLength()};
        case Method::astar:
        case Method::cluster:
        case Method::exact: break;
    }
    return {query_.path(), query_.pathLength()};
}

bool Searcher::tableMethod() const {
    return method_.method == Method::hier || method_.method == Method::nexthop;
}

std::vector<navrt::Vec3> Searcher::lastPath() {
    std::vector<navrt::Vec3> points;
    if (method_.method == Method::exact)
        return {exact_.points(), exact_.points() + exact_.pointCount()};
    if (tableMethod()) {
        for (uint32_t node : nodePath()) points.push_back(graph_->position(node));
        return points;
    }
    points.resize(query_.pathLength());
    points.resize(query_.smooth(points.data(), uint32_t(points.size())));
    return points;
}

std::vector<LinkStep> Searcher::lastLinks() const {
    std::vector<LinkStep> steps;
    const navrt::GraphView& g = *graph_;
    if (g.link_count == 0) return steps;
    auto typeOf = [&](const formats::LinkRecord& link) {
        size_t length = 0;
        const char* name = g.linkTypeName(link.type, length);
        return name != nullptr ? std::string(name, length) : std::string("?");
    };
    if (method_.method == Method::exact) {
        // No node path: a step is a segment of the straight path.
        for (uint32_t i = 0; i + 1 < exact_.pointCount(); ++i) {
            const uint32_t link = exact_.segmentLink(i);
            if (link == formats::kNoLink) continue;
            LinkStep step;
            step.step = step.segment = i;
            step.link = g.link(link);
            step.reverse = exact_.points()[i].x != step.link.from[0] ||
                           exact_.points()[i].z != step.link.from[2];
            step.type = typeOf(step.link);
            steps.push_back(step);
        }
        return steps;
    }
    const std::span<const uint32_t> nodes = nodePath();
    auto add = [&](uint32_t k, uint32_t link) {
        LinkStep step;
        step.step = k;
        step.segment = k;
        step.link = g.link(link);
        step.reverse = nodes[k] != step.link.from_node;
        step.type = typeOf(step.link);
        steps.push_back(step);
    };
    if (tableMethod()) {
        // Tables return nodes: the cheapest edge of each step.
        for (uint32_t k = 0; k + 1 < nodes.size(); ++k) {
            uint32_t edge = navrt::kNoNode;
            float best = HUGE_VALF;
            for (uint32_t e = g.edge_offsets[nodes[k]]; e < g.edge_offsets[nodes[k] + 1]; ++e)
                if (g.edgeTarget(nodes[k], e) == nodes[k + 1] && g.edge_costs[e] < best)
                    best = g.edge_costs[e], edge = e;
            if (edge != navrt::kNoNode && g.edgeLink(edge) != formats::kNoLink)
                add(k, g.edgeLink(edge));
        }
        return steps;
    }
    for (uint32_t k = 0; k + 1 < nodes.size(); ++k)
        if (const uint32_t link = query_.pathLink(k); link != formats::kNoLink) add(k, link);
    // The straight path has one segment per link step, in order: number them.
    std::vector<navrt::Vec3> points(2 * nodes.size() + 4);
    std::vector<uint32_t> segment_links(points.size());
    const uint32_t count =
        query_.smooth(points.data(), uint32_t(points.size()), segment_links.data());
    size_t next = 0;
    for (uint32_t i = 0; i + 1 < count && next < steps.size(); ++i)
        if (segment_links[i] != formats::kNoLink) steps[next++].segment = i;
    return steps;
}

Result<BatchReport> runBatch(const navrt::GraphView& graph, const std::vector<PointPair>& pairs,
                             const Tolerance& tolerance, const SearchMethod& method,
                             const std::string& asset, bool keep_paths, Context& context) {
    auto searcher = std::make_unique<Searcher>();
    if (Status s = searcher->init(graph, method, asset); !s) return s.error();
    BatchReport report;
    report.entries.reserve(pairs.size());
    double micros = 0, expansions = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
        if ((i & 255) == 0) {
            if (context.cancelled()) return makeError(ErrorKind::cancelled, "queries cancelled");
            context.progress("query", i, pairs.size());
        }
        BatchEntry entry;
        entry.record = searcher->run(pairs[i].from, pairs[i].to, tolerance);
        const bool found = entry.record.outcome == Outcome::found;
        if (method.method == Method::hier && found) {
            const navrt::HierarchicalQuery& h = searcher->hierarchical();
            entry.plan_level = h.planLevel();
            entry.legs = h.legs();
            entry.complete = h.complete();
            entry.abstract_expansions = h.abstractExpansions();
        }
        if (method.method == Method::nexthop)
            entry.block_decompressions = searcher->nextHop().blockDecompressions();
        if (keep_paths && found) entry.path = searcher->lastPath();
        if (found) entry.links = searcher->lastLinks();
        report.found += found;
        micros += entry.record.micros;
        expansions += entry.record.expansions;
        report.entries.push_back(std::move(entry));
    }
    context.progress("query", pairs.size(), pairs.size());
    if (!pairs.empty()) {
        report.mean_micros = micros / double(pairs.size());
        report.mean_expansions = expansions / double(pairs.size());
    }
    return report;
}

namespace {

bool parseFloat(std::string_view text, float& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

}  // namespace

Result<std::vector<PointPair>> loadPairs(const std::filesystem::path& path) {
    auto content = readTextFile(path);
    if (!content) return content.error();
    const std::string_view text = *content;
    std::vector<PointPair> pairs;
    LineReader reader(text);
    for (std::string_view line; reader.next(line);) {
        const uint32_t line_number = uint32_t(reader.number());
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos || line[first] == '#') continue;
        float values[6];
        int count = 0;
        size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ',')) ++i;
            const size_t token_start = i;
            while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ',') ++i;
            if (i == token_start) break;
            if (count == 6 || !parseFloat(line.substr(token_start, i - token_start), values[count]))
                return inputError("{}: line {}: expected six numbers 'sx sy sz gx gy gz', got '{}'",
                                  path.string(), line_number, line);
            ++count;
        }
        if (count != 6)
            return inputError("{}: line {}: expected six numbers 'sx sy sz gx gy gz', got {}",
                              path.string(), line_number, count);
        pairs.push_back(
            {{values[0], values[1], values[2]}, {values[3], values[4], values[5]}, line_number});
    }
    return pairs;
}

namespace {

// A scenario reduced to what the runner needs: two world points and the listed optimum.
struct Problem {
    navrt::Vec3 from, to;
    double optimal;
    uint32_t line;
};

// 2D .scen: cell (x, y) is the column [x, x+1] x [y, y+1] at the grid map's floor (Y = 0).
Result<std::vector<Problem>> problems2d(const navrt::GraphView& graph,
                                        const std::string& built_from,
                                        const std::filesystem::path& path) {
    auto scenarios = importer::loadScenarios(path);
    if (!scenarios) return scenarios.error();
    const formats::GraphHeader& h = graph.header;
    const float floor_y = h.origin[1] + h.cell_height;
    std::vector<Problem> problems;
    for (const importer::Scenario& s : *scenarios) {
        const std::string map_name = std::filesystem::path(s.map).filename().string();
        if (!built_from.empty() && map_name != built_from)
            return inputError(
                "{}: line {}: scenario is for map '{}', but the asset was built from "
                "'{}'",
                path.string(), s.line, s.map, built_from);
        if (s.map_width != h.size_x || s.map_height != h.size_z)
            return inputError("{}: line {}: scenario map is {} x {}, the asset's grid is {} x {}",
                              path.string(), s.line, s.map_width, s.map_height, h.size_x, h.size_z);
        auto centre = [&](uint32_t x, uint32_t y) {
            return navrt::Vec3{h.origin[0] + (float(x) + 0.5f) * h.cell_size, floor_y,
                               h.origin[2] + (float(y) + 0.5f) * h.cell_size};
        };
        problems.push_back(
            {centre(s.start_x, s.start_y), centre(s.goal_x, s.goal_y), s.optimal_length, s.line});
    }
    return problems;
}

// .3dscen: voxel (x, y, z) is the cell [x, x+1] x [y, y+1] x [z, z+1]; points are voxel centres.
Result<std::vector<Problem>> problems3d(const navrt::GraphView& graph,
                                        const std::string& built_from,
                                        const std::filesystem::path& path) {
    auto file = importer::loadScenario3D(path);
    if (!file) return file.error();
    const std::string map_name = std::filesystem::path(file->map_name).filename().string();
    if (!built_from.empty() && map_name != built_from)
        return inputError(
            "{}: line 2: scenarios are for map '{}', but the asset was built from '{}'",
            path.string(), file->map_name, built_from);
    if (!graph.implicitVolume())
        return inputError("{}: 3D scenarios need a volume graph; this asset holds another kind",
                          path.string());
    const formats::GraphHeader& h = graph.header;
    std::vector<Problem> problems;
    for (const importer::Scenario3D& s : file->entries) {
        for (const uint32_t* p : {s.start, s.goal})
            if (p[0] >= h.size_x || p[1] >= h.size_y || p[2] >= h.size_z)
                return inputError(
                    "{}: line {}: voxel ({}, {}, {}) lies outside the {} x {} x {} grid",
                    path.string(), s.line, p[0], p[1], p[2], h.size_x, h.size_y, h.size_z);
        auto centre = [&](const uint32_t* v) {
            return navrt::Vec3{h.origin[0] + (float(v[0]) + 0.5f) * h.cell_size,
                               h.origin[1] + (float(v[1]) + 0.5f) * h.cell_height,
                               h.origin[2] + (float(v[2]) + 0.5f) * h.cell_size};
        };
        problems.push_back({centre(s.start), centre(s.goal), s.optimal_length, s.line});
    }
    return problems;
}

}  // namespace

Result<ScenarioReport> runScenarioFile(const navrt::GraphView& graph,
                                       const std::filesystem::path& path, Context& context,
                                       const SearchMethod& method, const std::string& asset) {
    const std::string built_from = graph.source_name
                                       ? std::string(graph.source_name, graph.source_name_length)
                                       : std::string();
    auto searcher = std::make_unique<Searcher>();
    const std::string asset_name = !asset.empty()       ? asset
                                   : built_from.empty() ? std::string("asset")
                                                        : built_from;
    if (Status s = searcher->init(graph, method, asset_name); !s) return s.error();
    const bool three_d = path.extension() == ".3dscen";
    auto problems =
        three_d ? problems3d(graph, built_from, path) : problems2d(graph, built_from, path);
    if (!problems) return problems.error();

    double total_suboptimality = 0;
    ScenarioReport report;
    double total_micros = 0, total_expansions = 0, total_ratio = 0, total_length = 0;
    // Points are cell centres: no horizontal slack; vertically within half a cell (2D: the floor).
    // Navmesh polygons follow contours simplified within edge_max_error (1.3 cells by default),
    // so a cell centre in a concave corner may lie outside them: allow 1.5 cells sideways there.
    const Tolerance tolerance{graph.isNavmesh() ? 1.5f * graph.header.cell_size : 0.0f,
                              three_d ? 0.0f : 0.5f};
    for (size_t i = 0; i < problems->size(); ++i) {
        if ((i & 255) == 0) {
            if (context.cancelled()) return makeError(ErrorKind::cancelled, "scenarios cancelled");
            context.progress("scen", i, problems->size());
        }
        const Problem& s = (*problems)[i];
        const QueryRecord r = searcher->run(s.from, s.to, tolerance);
        ++report.total;
        total_micros += r.micros;
        total_expansions += r.expansions;
        if (r.outcome != Outcome::found) {
            if (report.failures.size() < 10)
                report.failures.push_back({s.line, outcomeName(r.outcome)});
            continue;
        }
        ++report.solved;
        if (graph.link_count > 0) {
            const std::vector<LinkStep> steps = searcher->lastLinks();
            report.via_links += !steps.empty();
            for (const LinkStep& step : steps) ++report.link_steps_by_type[step.type];
        }
        if (graph.isNavmesh() || graph.isPov()) {
            // Navmesh and POV paths are any-angle: compare their length with the grid optimum.
            // POV paths are the exact Euclidean shortest paths, so never longer than it (the
            // octile path is itself an any-angle path); navmesh paths are approximations.
            const double ratio = s.optimal > 0 ? r.smoothed_length / s.optimal : 1.0;
            report.max_length_ratio = std::max(report.max_length_ratio, ratio);
            report.min_length_ratio =
                report.solved == 1 ? ratio : std::min(report.min_length_ratio, ratio);
            total_ratio += ratio;
            total_length += r.smoothed_length;
            const bool within = graph.isPov() ? r.smoothed_length <= s.optimal * (1 + 1e-6)
                                              : r.smoothed_length <= s.optimal + 1e-3;
            if (within) {
                ++report.optimal;
            } else if (graph.isPov() && report.failures.size() < 10) {
                report.failures.push_back(
                    {s.line, fmt::format("any-angle length {:.8f} exceeds the "
                                         "listed optimum {:.8f}",
                                         r.smoothed_length, s.optimal)});
            }
            continue;
        }
        const double error = std::fabs(r.cost - s.optimal);
        report.max_abs_error = std::max(report.max_abs_error, error);
        const double excess = s.optimal > 0 ? 100.0 * (r.cost - s.optimal) / s.optimal : 0.0;
        total_suboptimality += excess;
        report.max_suboptimality = std::max(report.max_suboptimality, excess);
        if (error <= 1e-3) {
            ++report.optimal;
        } else if (report.failures.size() < 10 && returnsShortestPaths(graph, method.method)) {
            report.failures.push_back(
                {s.line, fmt::format("cost {:.8f}, listed optimum {:.8f}", r.cost, s.optimal)});
        }
        if (r.cost > 0) total_ratio += r.smoothed_length / r.cost;
    }
    context.progress("scen", report.total, report.total);
    if (report.total > 0) {
        report.mean_micros = total_micros / double(report.total);
        report.mean_expansions = total_expansions / double(report.total);
    }
    if (report.solved > 0) {
        report.mean_smoothed_ratio = total_ratio / double(report.solved);
        report.mean_suboptimality = total_suboptimality / double(report.solved);
        report.mean_length = total_length / double(report.solved);
    }
    report.exact = !graph.isNavmesh() && !graph.isPov();
    report.any_angle = graph.isPov();
    report.shortest_paths = returnsShortestPaths(graph, method.method);
    return report;
}

}  // namespace nav::query
