#include "query.h"

#include <charconv>
#include <chrono>
#include <cmath>

#include "../common/file_io.h"
#include "../import/scenario.h"

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

QueryRecord runQuery(const navrt::GraphView& graph, navrt::PathQuery& query, navrt::Vec3 from,
                     navrt::Vec3 to, const Tolerance& tolerance, bool smooth) {
    QueryRecord record;
    const auto start_time = std::chrono::steady_clock::now();
    record.start_node = navrt::locate(graph, from, tolerance.horizontal, tolerance.vertical);
    record.goal_node = navrt::locate(graph, to, tolerance.horizontal, tolerance.vertical);
    navrt::PathStatus status = navrt::PathStatus::no_path;
    if (record.start_node == navrt::kNoNode) {
        record.outcome = Outcome::start_off_graph;
    } else if (record.goal_node == navrt::kNoNode) {
        record.outcome = Outcome::goal_off_graph;
    } else {
        status = query.findPath(record.start_node, record.goal_node);
        record.outcome = status == navrt::PathStatus::found          ? Outcome::found
                         : status == navrt::PathStatus::out_of_nodes ? Outcome::out_of_nodes
                                                                     : Outcome::no_path;
    }
    record.micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                              start_time).count();
    record.expansions = query.expansions();
    if (record.outcome == Outcome::found) {
        record.cost = query.cost();
        record.path_nodes = query.pathLength();
        if (smooth) record.smoothed_length = query.smoothedLength();
    }
    return record;
}

namespace {

bool parseFloat(std::string_view text, float& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

}  // namespace

Result<std::vector<PointPair>> loadPairs(const std::filesystem::path& path) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    std::vector<PointPair> pairs;
    size_t start = 0;
    uint32_t line_number = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
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
        pairs.push_back({{values[0], values[1], values[2]}, {values[3], values[4], values[5]},
                         line_number});
    }
    return pairs;
}

Result<ScenarioReport> runScenarioFile(const navrt::GraphView& graph,
                                       const std::filesystem::path& path, Context& context) {
    auto scenarios = importer::loadScenarios(path);
    if (!scenarios) return scenarios.error();
    const std::string built_from =
        graph.source_name ? std::string(graph.source_name, graph.source_name_length) : std::string();
    for (const importer::Scenario& s : *scenarios) {
        const std::string map_name = std::filesystem::path(s.map).filename().string();
        if (!built_from.empty() && map_name != built_from)
            return inputError("{}: line {}: scenario is for map '{}', but the asset was built from "
                              "'{}'",
                              path.string(), s.line, s.map, built_from);
        if (s.map_width != graph.header.size_x || s.map_height != graph.header.size_z)
            return inputError("{}: line {}: scenario map is {} x {}, the asset's grid is {} x {}",
                              path.string(), s.line, s.map_width, s.map_height,
                              graph.header.size_x, graph.header.size_z);
    }

    navrt::PathQuery query;
    if (navrt::Error e = query.init(graph))
        return makeError(ErrorKind::internal, "cannot set up the search: {}", e.message);
    ScenarioReport report;
    double total_micros = 0, total_expansions = 0, total_ratio = 0;
    const float y = graph.header.origin[1] + graph.header.cell_height;  // floor of a grid map
    const Tolerance tolerance{0.0f, 0.5f};
    for (size_t i = 0; i < scenarios->size(); ++i) {
        if ((i & 255) == 0) {
            if (context.cancelled()) return makeError(ErrorKind::cancelled, "scenarios cancelled");
            context.progress("scen", i, scenarios->size());
        }
        const importer::Scenario& s = (*scenarios)[i];
        const navrt::Vec3 from{float(s.start_x) + 0.5f, y, float(s.start_y) + 0.5f};
        const navrt::Vec3 to{float(s.goal_x) + 0.5f, y, float(s.goal_y) + 0.5f};
        const QueryRecord r = runQuery(graph, query, from, to, tolerance);
        ++report.total;
        total_micros += r.micros;
        total_expansions += r.expansions;
        if (r.outcome != Outcome::found) {
            if (report.failures.size() < 10)
                report.failures.push_back({s.line, outcomeName(r.outcome)});
            continue;
        }
        ++report.solved;
        const double error = std::fabs(r.cost - s.optimal_length);
        report.max_abs_error = std::max(report.max_abs_error, error);
        if (error <= 1e-3) {
            ++report.optimal;
        } else if (report.failures.size() < 10) {
            report.failures.push_back(
                {s.line, fmt::format("cost {:.8f}, listed optimum {:.8f}", r.cost, s.optimal_length)});
        }
        if (r.cost > 0) total_ratio += r.smoothed_length / r.cost;
    }
    context.progress("scen", report.total, report.total);
    if (report.total > 0) {
        report.mean_micros = total_micros / double(report.total);
        report.mean_expansions = total_expansions / double(report.total);
    }
    if (report.solved > 0) report.mean_smoothed_ratio = total_ratio / double(report.solved);
    return report;
}

}  // namespace nav::query
