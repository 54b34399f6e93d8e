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

bool parseMethod(std::string_view name, Method& out) {
    return navrt::parseMethod(name.data(), name.size(), out);
}

Status checkMethod(const navrt::GraphView& graph, Method method, const std::string& asset) {
    const navrt::Error e = navrt::checkMethod(graph, method);
    if (!e) return {};
    if (method == Method::exact)
        return makeError(ErrorKind::usage,
                         "{}: --method exact needs a navigation mesh asset (graph navmesh)", asset);
    // navrt's message begins "method NAME": as the option it was given by.
    if (e.code != navrt::ErrorCode::missing_section)
        return inputError("{}: --{}", asset, e.message);
    // What each method beyond plain A* needs packed into the asset, and how to build it.
    const char* how = "";
    switch (method) {
        case Method::cluster:
            how =
                "'navbake cluster GRAPH -o FILE.clu', then 'navbake pack GRAPH --clusters "
                "FILE.clu'";
            break;
        case Method::hier:
            how =
                "'navbake hierarchy GRAPH --clusters FILE.clu -o FILE.hier', then 'navbake "
                "pack GRAPH --clusters FILE.clu --hierarchy FILE.hier'";
            break;
        case Method::nexthop:
            how =
                "'navbake nexthop GRAPH -o FILE.nh', then 'navbake pack GRAPH --nexthop "
                "FILE.nh'";
            break;
        case Method::jps: how = "'navbake pack GRAPH --jump-points'"; break;
        case Method::astar:
        case Method::exact: break;
    }
    return inputError("{}: --{} (build them with {})", asset, e.message, how);
}

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
    navrt::Navigator navigator;
    navrt::PathQuery unused;
    (void)navigator.initWith(graph, unused);
    const navrt::Location m = navigator.locate(from, tolerance);
    if (m.moved >= 0) out.snapped = m.moved;
    if (m.node == navrt::kNoNode || graph.isPov())
        return inputError("{}: ({}, {}, {}) is not on the graph", asset, from.x, from.y, from.z);
    const uint32_t n = graph.nodeCount();
    out.cost = graph.poi_distances[size_t(k) * n + m.node];
    out.nodes.resize(n);
    out.nodes.resize(navrt::walkToNearestPoi(graph, k, m.node, out.nodes.data(), n));
    out.reachable = !out.nodes.empty();
    for (uint32_t v : out.nodes) out.path.push_back(graph.position(v));
    out.micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    return out;
}

namespace {

// The record of the navigator's last findPath, which took `micros`; the smoothed length of A*
// paths only when `smooth`.
QueryRecord recordOf(const navrt::Navigator& navigator, double micros, bool smooth) {
    QueryRecord record;
    record.outcome = navigator.status();
    record.start_node = navigator.start().node;
    record.goal_node = navigator.goal().node;
    record.start_moved = navigator.start().moved;
    record.goal_moved = navigator.goal().moved;
    if (record.start_moved >= 0) record.start_at = navigator.start().position;
    if (record.goal_moved >= 0) record.goal_at = navigator.goal().position;
    record.micros = micros;
    record.expansions = navigator.expansions();
    if (record.outcome != Outcome::found) return record;
    record.cost = navigator.cost();
    const Method method = navigator.method();
    record.path_nodes =
        method == Method::exact ? navigator.exact().pointCount() : navigator.nodeCount();
    // A* methods (and JPS+, whose filled-in path is pulled the same way): the straight path's
    // length; the others, whose path is not pulled (hier, nexthop) or is measured in the XZ metric
    // (exact), their cost.
    if (method != Method::astar && method != Method::cluster && method != Method::jps)
        record.smoothed_length = record.cost;
    else if (smooth)
        record.smoothed_length = navigator.pathLength();
    return record;
}

double microsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace

QueryRecord runQuery(const navrt::GraphView& graph, navrt::PathQuery& query, navrt::Vec3 from,
                     navrt::Vec3 to, const Tolerance& tolerance, bool smooth, Method method) {
    navrt::Navigator navigator;
    if (method != Method::cluster || !graph.hasClusters()) method = Method::astar;
    (void)navigator.initWith(graph, query, method);
    const auto start = std::chrono::steady_clock::now();
    navigator.findPath(from, to, tolerance);
    return recordOf(navigator, microsSince(start), smooth);
}

Status Searcher::init(const navrt::GraphView& graph, const SearchMethod& method,
                      const std::string& asset) {
    method_ = method;
    if (Status s = checkMethod(graph, method.method, asset); !s) return s;
    navrt::NavigatorOptions options;
    options.method = method.method;
    options.hier = method.hier;
    if (navrt::Error e = navigator_.init(graph, options))
        return makeError(
            method.method == Method::exact ? ErrorKind::bad_input : ErrorKind::internal,
            "{}: cannot set up the {} search: {}", asset, methodName(method.method), e.message);
    return {};
}

QueryRecord Searcher::run(navrt::Vec3 from, navrt::Vec3 to, const Tolerance& tolerance) {
    const auto start = std::chrono::steady_clock::now();
    navigator_.findPath(from, to, tolerance);
    return recordOf(navigator_, microsSince(start), true);
}

std::vector<navrt::Vec3> Searcher::lastPath() const {
    std::vector<navrt::Vec3> points(navigator_.straightPath(nullptr, 0));
    points.resize(navigator_.straightPath(points.data(), uint32_t(points.size())));
    return points;
}

std::vector<LinkStep> Searcher::lastLinks() const {
    const navrt::GraphView& g = navigator_.graph();
    std::vector<navrt::PathLink> links(navigator_.pathLinks(nullptr, 0));
    links.resize(navigator_.pathLinks(links.data(), uint32_t(links.size())));
    std::vector<LinkStep> steps;
    for (const navrt::PathLink& l : links) {
        LinkStep step;
        step.step = l.step;
        step.segment = l.segment;
        step.link = g.link(l.link);
        step.reverse = l.reverse;
        size_t length = 0;
        const char* name = g.linkTypeName(step.link.type, length);
        step.type = name != nullptr ? std::string(name, length) : std::string("?");
        steps.push_back(std::move(step));
    }
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
            const navrt::HierarchicalQuery& h = searcher->navigator().hierarchical();
            entry.plan_level = h.planLevel();
            entry.legs = h.legs();
            entry.complete = h.complete();
            entry.abstract_expansions = h.abstractExpansions();
        }
        if (method.method == Method::nexthop)
            entry.block_decompressions = searcher->navigator().nextHop().blockDecompressions();
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
