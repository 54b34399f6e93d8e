#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "lib/query/query.h"
#include "lib/runtime/navrt.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {
namespace {

using Json = nlohmann::ordered_json;

bool parsePoint(const std::string& text, navrt::Vec3& out) {
    float v[3];
    if (!parseXYZ(text, v)) return false;
    out = {v[0], v[1], v[2]};
    return true;
}

// Loads a .nav (or .graph) into an asset and a validated graph view, reporting errors by file.
struct LoadedNav {
    navrt::Asset asset;
    navrt::GraphView graph;
};
Result<std::unique_ptr<LoadedNav>> loadNav(const std::string& path) {
    auto loaded = std::make_unique<LoadedNav>();
    if (navrt::Error e = navrt::load(path.c_str(), loaded->asset))
        return inputError("{}: {} [{}]", path, e.message, navrt::errorName(e.code));
    if (navrt::Error e = navrt::viewGraph(loaded->asset, loaded->graph))
        return inputError("{}: {} [{}]", path, e.message, navrt::errorName(e.code));
    return loaded;
}

Json recordJson(const query::QueryRecord& r) {
    Json j = {{"status", query::outcomeName(r.outcome)}};
    if (r.outcome == query::Outcome::found) {
        j["cost"] = r.cost;
        j["smoothed_length"] = r.smoothed_length;
        j["path_nodes"] = r.path_nodes;
    }
    j["expansions"] = r.expansions;
    j["micros"] = r.micros;
    if (r.start_moved >= 0)
        j["start_snapped"] = {{"distance", r.start_moved},
                              {"to", {r.start_at.x, r.start_at.y, r.start_at.z}}};
    if (r.goal_moved >= 0)
        j["goal_snapped"] = {{"distance", r.goal_moved},
                             {"to", {r.goal_at.x, r.goal_at.y, r.goal_at.z}}};
    return j;
}

// "start moved 0.42 m onto the surface, to (x, y, z)" lines for the text output.
std::string snappedText(const query::QueryRecord& r) {
    std::string text;
    auto line = [&](const char* what, double moved, navrt::Vec3 at) {
        if (moved >= 0)
            text +=
                fmt::format("  {} moved {:.2f} m onto the surface, to ({:.3f}, {:.3f}, {:.3f})\n",
                            what, moved, at.x, at.y, at.z);
    };
    line("start", r.start_moved, r.start_at);
    line("goal", r.goal_moved, r.goal_at);
    return text;
}

// --method and the hierarchical search options, shared by query and scen.
struct MethodOptions {
    // astar by default: on the large bench levels the exact method is 4-7x slower than A* +
    // funnel, whose paths are within 0.5% of the shortest there (README, Navmesh vs Recast).
    std::string method = "astar";
    std::string hier_mode = "entrances";
    std::string hier_cost = "asset";
    bool no_exclusions = false;
    bool first_leg = false;

    void add(CLI::App* sub, bool with_first_leg) {
        sub->add_option("--method", method,
                        "astar: standard heuristic; cluster: cluster heuristic table (pack "
                        "--clusters); hier: hierarchical search (pack --hierarchy); nexthop: chain "
                        "next-hop table lookups (pack --nexthop); exact: navmesh assets, the "
                        "shortest path (Polyanya; length in the XZ metric); jps: JPS+ over the "
                        "jump point table (pack --jump-points; tile graphs, A*'s costs)")
            ->check(CLI::IsMember({"astar", "cluster", "hier", "nexthop", "exact", "jps"}))
            ->capture_default_str();
        sub->add_option("--hier-mode", hier_mode,
                        "hier: entrances = HPA* over the cluster entrances (exact with all "
                        "entrances, near-optimal with sparse ones); groups = plan over groups, "
                        "refine level by level (Millington 4.6.2)")
            ->check(CLI::IsMember({"groups", "entrances"}))
            ->capture_default_str();
        sub->add_option("--hier-cost", hier_cost,
                        "hier groups: connection cost between groups (asset = the one chosen at "
                        "'navbake hierarchy')")
            ->check(CLI::IsMember({"asset", "min", "maximin", "avgmin"}))
            ->capture_default_str();
        sub->add_flag("--no-exclusions", no_exclusions,
                      "hier groups: do not confine refinements to the groups of the plan step "
                      "(Millington 4.6.3)");
        if (with_first_leg)
            sub->add_flag("--first-leg", first_leg,
                          "hier: return only the first refined leg (what a moving character needs "
                          "next)");
    }
    query::SearchMethod resolve() const {
        query::SearchMethod m;
        query::parseMethod(method, m.method);
        m.hier.mode =
            hier_mode == "entrances" ? navrt::HierMode::entrances : navrt::HierMode::groups;
        m.hier.cost = hier_cost == "min"       ? uint8_t(formats::HierCost::min)
                      : hier_cost == "maximin" ? uint8_t(formats::HierCost::maximin)
                      : hier_cost == "avgmin"  ? uint8_t(formats::HierCost::avgmin)
                                               : navrt::kAssetDefaultCost;
        m.hier.exclusions = !no_exclusions;
        m.hier.first_leg = first_leg;
        return m;
    }
};

}  // namespace

void registerQuery(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input;
        std::string from, to, pairs, nearest;
        bool json = false;
        double horizontal = 0.0, vertical = 1.0, snap = 2.0;
        MethodOptions method;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "query", "Find paths on a runtime asset (.nav) between points, or a batch of point pairs");
    sub->add_option("LEVEL", options->input, "Runtime asset (.nav)")->required();
    auto* from = sub->add_option("--from", options->from, "Start point X,Y,Z [m]");
    auto* to = sub->add_option("--to", options->to, "Goal point X,Y,Z [m]");
    auto* pairs_option = sub->add_option("--pairs", options->pairs,
                                         "File of point pairs, one 'sx sy sz gx gy gz' per line");
    auto* nearest = sub->add_option(
        "--nearest", options->nearest,
        "With --from: the way to the nearest point of interest of this kind, read from the "
        "asset's point-of-interest tables (graph --poi-tables), no search");
    to->needs(from);
    nearest->needs(from)->excludes(to);
    pairs_option->excludes(from)->excludes(to)->excludes(nearest);
    sub->add_option("--horizontal-tolerance", options->horizontal,
                    "How far beside the navigation data a point may be [m]")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("--vertical-tolerance", options->vertical,
                    "How far above or below a floor a point may be [m]")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("--snap", options->snap,
                    "A point off the surface (by the tolerances above) moves to the nearest "
                    "surface within this distance across and up or down [m], and the result "
                    "says how far; 0 = no snapping")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_flag("--json", options->json, "Print results as JSON on stdout");
    options->method.add(sub, true);
    sub->callback([&body, options] {
        body = [options](Context& context) {
            if (options->pairs.empty() && options->from.empty())
                return reportFailure(
                    context, makeError(ErrorKind::usage, "give --from and --to, or --pairs FILE"));
            if (!options->from.empty() && options->to.empty() && options->nearest.empty())
                return reportFailure(context,
                                     makeError(ErrorKind::usage, "--from needs --to or --nearest"));
            if (!options->nearest.empty()) {
                navrt::Vec3 start;
                if (!parsePoint(options->from, start))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--from '{}' is not X,Y,Z", options->from));
                auto nav = loadNav(options->input);
                if (!nav) return reportFailure(context, nav.error());
                const query::Tolerance tolerance{float(options->horizontal),
                                                 float(options->vertical), float(options->snap)};
                auto way = query::nearestPoi((*nav)->graph, options->nearest, start, tolerance,
                                             options->input);
                if (!way) return reportFailure(context, way.error());
                std::string text;
                if (options->json) {
                    Json path = Json::array();
                    for (const navrt::Vec3& p : way->path) path.push_back({p.x, p.y, p.z});
                    Json j = {{"kind", options->nearest},
                              {"status", way->reachable ? "found" : "no_path"},
                              {"path_nodes", way->nodes.size()},
                              {"micros", way->micros},
                              {"path", path}};
                    if (way->reachable) j["cost"] = way->cost;
                    if (way->snapped > 0) j["start_snapped"] = way->snapped;
                    text = j.dump(2) + "\n";
                } else if (way->reachable) {
                    const navrt::Vec3& end = way->path.back();
                    text = fmt::format(
                        "nearest {}: cost {:.4f}  nodes {}  at ({:.2f}, {:.2f}, {:.2f})  {:.1f} "
                        "us{}\n",
                        options->nearest, way->cost, way->nodes.size(), end.x, end.y, end.z,
                        way->micros,
                        way->snapped > 0 ? fmt::format("  (start snapped {:.2f} m)", way->snapped)
                                         : "");
                } else {
                    text = fmt::format("nearest {}: none reachable\n", options->nearest);
                }
                std::fwrite(text.data(), 1, text.size(), stdout);
                return kExitOk;
            }
            std::vector<query::PointPair> pairs;
            if (!options->pairs.empty()) {
                auto loaded = query::loadPairs(options->pairs);
                if (!loaded) return reportFailure(context, loaded.error());
                pairs = std::move(loaded).value();
            } else {
                query::PointPair pair;
                if (!parsePoint(options->from, pair.from))
                    return reportFailure(
                        context,
                        makeError(ErrorKind::usage, "--from '{}' is not X,Y,Z", options->from));
                if (!parsePoint(options->to, pair.to))
                    return reportFailure(context, makeError(ErrorKind::usage,
                                                            "--to '{}' is not X,Y,Z", options->to));
                pairs.push_back(pair);
            }
            auto nav = loadNav(options->input);
            if (!nav) return reportFailure(context, nav.error());
            const query::SearchMethod method = options->method.resolve();
            const bool hier = method.method == query::Method::hier;
            const bool table = method.method == query::Method::nexthop;
            const query::Tolerance tolerance{float(options->horizontal), float(options->vertical),
                                             float(options->snap)};
            auto batch = query::runBatch((*nav)->graph, pairs, tolerance, method, options->input,
                                         options->json && pairs.size() == 1, context);
            if (!batch) return reportFailure(context, batch.error());
            Json results = Json::array();
            std::string text;
            for (size_t i = 0; i < batch->entries.size(); ++i) {
                const query::BatchEntry& entry = batch->entries[i];
                const query::QueryRecord& r = entry.record;
                const bool found = r.outcome == query::Outcome::found;
                std::string via;
                for (const query::LinkStep& step : entry.links)
                    via +=
                        fmt::format("{}{} {}{} (step {})", via.empty() ? "  via " : ", ", step.type,
                                    step.link.id, step.reverse ? " back" : "", step.step);
                if (options->json) {
                    Json j = recordJson(r);
                    if (hier && found) {
                        j["plan_level"] = entry.plan_level;
                        j["legs"] = entry.legs;
                        j["complete"] = entry.complete;
                        j["abstract_expansions"] = entry.abstract_expansions;
                    }
                    if (!entry.links.empty()) {
                        Json links = Json::array();
                        for (const query::LinkStep& step : entry.links) {
                            const float* a = step.reverse ? step.link.to : step.link.from;
                            const float* b = step.reverse ? step.link.from : step.link.to;
                            links.push_back({{"step", step.step},
                                             {"segment", step.segment},
                                             {"id", step.link.id},
                                             {"type", step.type},
                                             {"user_data", step.link.user_data},
                                             {"reverse", step.reverse},
                                             {"from", {a[0], a[1], a[2]}},
                                             {"to", {b[0], b[1], b[2]}},
                                             {"generated", (step.link.flags &
                                                            formats::kLinkFlagGenerated) != 0}});
                        }
                        j["links"] = links;
                    }
                    if (!entry.path.empty()) {
                        Json path = Json::array();
                        for (const navrt::Vec3& p : entry.path) path.push_back({p.x, p.y, p.z});
                        j[hier || table ? "path" : "smoothed_path"] = path;
                    }
                    results.push_back(j);
                } else if (found && table) {
                    text += fmt::format(
                        "pair {}: found  cost {:.4f}  nodes {}  lookups {}  block "
                        "decompressions {}  {:.1f} us\n",
                        i + 1, r.cost, r.path_nodes, r.expansions, entry.block_decompressions,
                        r.micros);
                } else if (found && hier) {
                    text += fmt::format(
                        "pair {}: found  cost {:.4f}  nodes {}  {}plan level {}  "
                        "legs {}  expansions {} (abstract {})  {:.1f} us\n",
                        i + 1, r.cost, r.path_nodes, entry.complete ? "" : "first leg only  ",
                        entry.plan_level, entry.legs, r.expansions, entry.abstract_expansions,
                        r.micros);
                } else if (found) {
                    text += fmt::format(
                        "pair {}: found  cost {:.4f}  smoothed {:.4f} m  nodes {}  "
                        "expansions {}  {:.1f} us{}\n",
                        i + 1, r.cost, r.smoothed_length, r.path_nodes, r.expansions, r.micros,
                        via);
                } else {
                    text += fmt::format("pair {}: {}  expansions {}  {:.1f} us\n", i + 1,
                                        query::outcomeName(r.outcome), r.expansions, r.micros);
                }
                if (!options->json) text += snappedText(r);
            }
            if (options->json) {
                Json report = {{"results", results},
                               {"method", query::methodName(method.method)},
                               {"total", pairs.size()},
                               {"found", batch->found},
                               {"mean_micros", batch->mean_micros},
                               {"mean_expansions", batch->mean_expansions}};
                text = report.dump(2) + "\n";
            } else {
                text += fmt::format(
                    "total {}  found {}  mean {:.1f} us  mean expansions {:.1f}  method {}\n",
                    pairs.size(), batch->found, batch->mean_micros, batch->mean_expansions,
                    query::methodName(method.method));
            }
            std::fwrite(text.data(), 1, text.size(), stdout);
            return kExitOk;
        };
    });
}

void registerScen(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input, scenarios;
        bool json = false;
        MethodOptions method;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "scen",
        "Run a MovingAI scenario file (.scen or .3dscen) on a runtime asset and report "
        "solved / optimal counts, error and timing (POV assets: any-angle length against "
        "the octile optimum)");
    sub->add_option("LEVEL", options->input, "Runtime asset (.nav)")->required();
    sub->add_option("SCENARIOS", options->scenarios, "Scenario file (.scen, .3dscen)")->required();
    sub->add_flag("--json", options->json, "Print the report as JSON on stdout");
    options->method.add(sub, false);
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto nav = loadNav(options->input);
            if (!nav) return reportFailure(context, nav.error());
            const query::SearchMethod method = options->method.resolve();
            auto report = query::runScenarioFile((*nav)->graph, options->scenarios, context, method,
                                                 options->input);
            if (!report) return reportFailure(context, report.error());
            const query::ScenarioReport& r = *report;
            std::string text;
            if (options->json) {
                Json failures = Json::array();
                for (const auto& f : r.failures)
                    failures.push_back({{"line", f.line}, {"what", f.what}});
                Json j = {{"scenarios", options->scenarios},
                          {"total", r.total},
                          {"solved", r.solved},
                          {"optimal", r.optimal},
                          {"max_abs_error", r.max_abs_error},
                          {"mean_suboptimality_percent", r.mean_suboptimality},
                          {"max_suboptimality_percent", r.max_suboptimality},
                          {"mean_micros", r.mean_micros},
                          {"mean_expansions", r.mean_expansions},
                          {"mean_smoothed_ratio", r.mean_smoothed_ratio},
                          {"max_length_ratio", r.max_length_ratio},
                          {"exact", r.exact},
                          {"any_angle", r.any_angle},
                          {"failures", failures}};
                if (!r.exact) {
                    j["min_length_ratio"] = r.min_length_ratio;
                    j["mean_length"] = r.mean_length;
                }
                if ((*nav)->graph.link_count > 0) {
                    j["paths_via_links"] = r.via_links;
                    j["link_steps_by_type"] = r.link_steps_by_type;
                }
                text = j.dump(2) + "\n";
            } else {
                if (r.exact && !r.shortest_paths)
                    text = fmt::format(
                        "{}: {} scenarios, {} solved, {} optimal, suboptimality mean {:.2f}% max "
                        "{:.2f}%, mean {:.1f} us, mean expansions {:.1f}\n",
                        options->scenarios, r.total, r.solved, r.optimal, r.mean_suboptimality,
                        r.max_suboptimality, r.mean_micros, r.mean_expansions);
                else if (r.exact)
                    text = fmt::format(
                        "{}: {} scenarios, {} solved, {} optimal, max abs error {:.3g}, mean "
                        "{:.1f} "
                        "us, mean expansions {:.1f}, smoothed/optimal length {:.4f}\n",
                        options->scenarios, r.total, r.solved, r.optimal, r.max_abs_error,
                        r.mean_micros, r.mean_expansions, r.mean_smoothed_ratio);
                else if (r.any_angle)
                    text = fmt::format(
                        "{}: {} scenarios, {} solved, {} no longer than the octile optimum, exact "
                        "any-angle length mean {:.4f}, any-angle / octile optimum mean {:.4f} max "
                        "{:.4f} min {:.4f} (mean {:.2f}% shorter), mean {:.1f} us, mean expansions "
                        "{:.1f}\n",
                        options->scenarios, r.total, r.solved, r.optimal, r.mean_length,
                        r.mean_smoothed_ratio, r.max_length_ratio, r.min_length_ratio,
                        100.0 * (1.0 - r.mean_smoothed_ratio), r.mean_micros, r.mean_expansions);
                else
                    text = fmt::format(
                        "{}: {} scenarios, {} solved, {} no longer than the grid optimum, straight "
                        "path / grid optimum mean {:.4f} max {:.4f}, mean {:.1f} us, mean "
                        "expansions "
                        "{:.1f}\n",
                        options->scenarios, r.total, r.solved, r.optimal, r.mean_smoothed_ratio,
                        r.max_length_ratio, r.mean_micros, r.mean_expansions);
                if ((*nav)->graph.link_count > 0) {
                    std::string types;
                    for (const auto& [type, n] : r.link_steps_by_type)
                        types += fmt::format("{}{} {}", types.empty() ? "" : ", ", n, type);
                    text += fmt::format("  {} of {} paths take links{}\n", r.via_links, r.solved,
                                        types.empty() ? "" : " (" + types + ")");
                }
                for (const auto& f : r.failures)
                    text += fmt::format("  line {}: {}\n", f.line, f.what);
            }
            std::fwrite(text.data(), 1, text.size(), stdout);
            return r.passed() ? kExitOk : kExitFailure;
        };
    });
}

}  // namespace nav::navbake
