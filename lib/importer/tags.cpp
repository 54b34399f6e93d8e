#include <algorithm>
#include <cctype>
#include <cmath>

#include "lib/common/file_io.h"
#include "lib/common/json_reader.h"
#include "lib/importer/import.h"

namespace nav::importer {

namespace {

char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

bool globMatch(std::string_view pattern, std::string_view text) {
    // Iterative wildcard matching with single-star backtracking: O(|pattern| * |text|) worst case.
    size_t p = 0, t = 0, star = std::string_view::npos, star_text = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || lower(pattern[p]) == lower(text[t]))) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            star_text = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++star_text;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

TagConfig defaultTagConfig() {
    TagConfig config;
    config.areas = geometry::defaultAreaTable();
    config.areas.push_back({"water", 3.0f, true});
    config.areas.push_back({"mud", 2.0f, true});
    // Link objects first: their prefixes are a naming convention an artist chose on purpose, and
    // the substring rules below would otherwise swallow names such as "link_jump_over_water" or
    // "door_mud_room" (the link silently lost). Object names only: a material called "door_oak"
    // must not turn every object painted with it into a door.
    const auto link = [&](const char* pattern, LinkShape shape) {
        TagRule rule{pattern, MatchTarget::object, std::string(kTagLink), {}, {}};
        rule.link.shape = shape;
        config.rules.push_back(std::move(rule));
    };
    link("link_*", LinkShape::line);
    link("ladder_*", LinkShape::ladder);
    link("door_*", LinkShape::door);
    const auto marker = [&](const char* pattern, geometry::MarkerKind kind) {
        config.rules.push_back(
            {pattern, MatchTarget::object, geometry::markerKindName(kind), {}, {}});
    };
    marker("nav_bounds*", geometry::MarkerKind::bounds);
    marker("nav_volume*", geometry::MarkerKind::volume);
    marker("nav_seed*", geometry::MarkerKind::seed);
    marker("nav_poi*", geometry::MarkerKind::point_of_interest);
    marker("nav_waypoint*", geometry::MarkerKind::waypoint);
    marker("nav_cluster*", geometry::MarkerKind::cluster);
    const auto add = [&](const char* pattern, const char* tag) {
        config.rules.push_back({pattern, MatchTarget::any, tag, {}, {}});
    };
    add("*ignore*", "ignore");
    add("*trigger*", "ignore");
    add("*nonav*", "ignore");
    add("*obstacle*", "obstacle");
    add("*nowalk*", "obstacle");
    add("*blocker*", "obstacle");
    add("*water*", "water");
    add("*mud*", "mud");
    return config;
}

const TagRule* matchTagRule(const TagConfig& config, std::string_view object_name,
                            std::string_view mesh_name, std::string_view material_name,
                            std::string_view* matched_name) {
    for (const TagRule& rule : config.rules) {
        std::string_view hit;
        bool matched = false;
        if (rule.target != MatchTarget::material) {
            if (globMatch(rule.pattern, object_name)) {
                hit = object_name;
                matched = true;
            } else if (globMatch(rule.pattern, mesh_name)) {
                hit = mesh_name;
                matched = true;
            }
        }
        if (!matched && rule.target != MatchTarget::object &&
            globMatch(rule.pattern, material_name)) {
            hit = object_name.empty() ? mesh_name : object_name;
            matched = true;
        }
        if (!matched) continue;
        if (matched_name != nullptr) *matched_name = hit;
        return &rule;
    }
    return nullptr;
}

int resolveTag(const TagConfig& config, std::string_view object_name, std::string_view mesh_name,
               std::string_view material_name) {
    const TagRule* rule = matchTagRule(config, object_name, mesh_name, material_name);
    if (rule == nullptr) return geometry::kGroundArea;
    if (rule->tag == kTagIgnore) return -1;
    if (rule->tag == kTagObstacle) return geometry::kObstacleArea;
    if (rule->tag == kTagLink)
        return rule->link.shape == LinkShape::door ? int(geometry::kObstacleArea) : -1;
    for (size_t i = 0; i < config.areas.size(); ++i)
        if (config.areas[i].name == rule->tag) return int(i);
    return geometry::kGroundArea;  // parseTagConfig refuses unknown tags
}

bool markerTag(std::string_view tag, geometry::MarkerKind& kind) {
    for (uint8_t k = 1; k <= uint8_t(geometry::kLastMarkerKind); ++k)
        if (tag == geometry::markerKindName(geometry::MarkerKind(k))) {
            kind = geometry::MarkerKind(k);
            return true;
        }
    return false;
}

std::string linkTypeWordFromName(std::string_view name) { return wordAfter(name, "link_"); }

std::string wordAfter(std::string_view name, std::string_view kPrefix) {
    for (size_t at = 0; at + kPrefix.size() <= name.size(); ++at) {
        bool prefix = true;
        for (size_t k = 0; k < kPrefix.size() && prefix; ++k)
            prefix = lower(name[at + k]) == kPrefix[k];
        if (!prefix) continue;
        std::string word;
        for (size_t k = at + kPrefix.size(); k < name.size(); ++k) {
            const char c = lower(name[k]);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) break;
            word += c;
        }
        return word;
    }
    return {};
}

namespace {

inline constexpr Choice<MatchTarget> kMatchTargets[] = {{"object", MatchTarget::object},
                                                        {"material", MatchTarget::material},
                                                        {"any", MatchTarget::any}};

// An array member of `r` (absent: empty), each element an object read by `read`.
template <class Read>
Status readObjects(JsonReader& r, std::string_view key, Read&& read) {
    if (!r.has(key)) return {};
    return r.objects(r.get(key), r.at(key), "an array", false, read);
}

// The "link" object of a rule: {"type", "shape", "bidirectional", "width", "cost",
// "reverse_cost", "user_data"}, all optional.
Status parseLinkRule(const nlohmann::json& value, const std::string& path,
                     const std::filesystem::path& file,
                     const std::vector<geometry::LinkTypeDef>& types, LinkRule& out) {
    JsonReader r(value, path, file);
    if (Status s = r.expectObject(); !s) return s;
    if (Status s = r.string("type", out.type); !s) return s;
    if (r.has("type")) {
        geometry::LinkSpec probe;
        if (!geometry::resolveLinkType(out.type, types, probe))
            return r.fail(r.at("type"), geometry::notALinkType(out.type, types));
    }
    if (Status s = r.choice<LinkShape>("shape", kLinkShapes, out.shape); !s) return s;
    if (r.has("bidirectional")) {
        bool two_way = false;
        if (Status s = r.boolean("bidirectional", two_way); !s) return s;
        out.bidirectional = two_way;
    }
    if (Status s = r.number("width", out.width); !s) return s;
    if (Status s = r.number("cost", out.cost); !s) return s;
    if (Status s = r.number("reverse_cost", out.reverse_cost); !s) return s;
    if (Status s = r.integer("user_data", out.user_data); !s) return s;
    if (Status s = r.finish(
            {"type", "shape", "bidirectional", "width", "cost", "reverse_cost", "user_data"});
        !s)
        return s;
    const auto inRange = [&](std::string_view key, float v, float high) -> Status {
        if (std::isfinite(v) && v >= 0 && v <= high) return {};
        return r.fail(r.at(key), fmt::format("{} must be in 0..{}", v, high));
    };
    if (Status s = inRange("width", out.width, 1000.0f); !s) return s;
    if (Status s = inRange("cost", out.cost, 1e9f); !s) return s;
    if (Status s = inRange("reverse_cost", out.reverse_cost, 1e9f); !s) return s;
    if (out.reverse_cost != 0 && out.bidirectional == false)
        return r.fail(r.at("reverse_cost"),
                      "only for two-way links (\"bidirectional\": false here)");
    return {};
}

std::string markerTagNames() {
    std::string names;
    for (uint8_t k = 1; k <= uint8_t(geometry::kLastMarkerKind); ++k)
        names += fmt::format("{}{}", k == 1 ? "" : ", ",
                             geometry::markerKindName(geometry::MarkerKind(k)));
    return names;
}

// A rule's "marker" object; only the fields of its kind are accepted.
Status parseMarkerRule(const nlohmann::json& value, const std::string& at,
                       const std::string& source, geometry::MarkerKind kind,
                       const std::vector<geometry::AreaType>& areas, MarkerRule& out) {
    JsonReader r(value, at, source);
    if (Status s = r.expectObject(); !s) return s;
    std::vector<std::string_view> keys;
    using geometry::MarkerKind;
    if (kind == MarkerKind::volume || kind == MarkerKind::cluster) {
        std::string shape = "box";
        if (Status s = r.string("shape", shape); !s) return s;
        if (shape != "box" && shape != "hull")
            return r.fail(r.at("shape"), fmt::format("'{}' is not box or hull", shape));
        out.hull = shape == "hull";
        keys.push_back("shape");
    }
    if (kind == MarkerKind::volume) {
        if (Status s = r.string("area", out.area); !s) return s;
        if (Status s = r.number("cost_factor", out.cost_factor); !s) return s;
        if (Status s = r.boolean("forbid", out.forbid); !s) return s;
        if (Status s = r.strings("agents", out.agents, "an agent name"); !s) return s;
        if (Status s = r.strings("walkable_for", out.walkable_for, "an agent name"); !s) return s;
        if (!(out.cost_factor > 0 && out.cost_factor <= 1e6))
            return r.fail(r.at("cost_factor"),
                          fmt::format("must be a number in (0, 1e6], got {}", out.cost_factor));
        if (!out.area.empty() &&
            std::none_of(areas.begin(), areas.end(),
                         [&](const geometry::AreaType& a) { return a.name == out.area; }))
            return r.fail(r.at("area"),
                          fmt::format("'{}' is not an area of this tags file", out.area));
        keys.insert(keys.end(), {"area", "cost_factor", "forbid", "agents", "walkable_for"});
    }
    if (kind == MarkerKind::point_of_interest) {
        if (Status s = r.string("kind", out.kind); !s) return s;
        keys.push_back("kind");
    }
    if (kind == MarkerKind::waypoint) {
        if (Status s = r.number("weight", out.weight); !s) return s;
        if (!(out.weight >= 0 && out.weight <= 1e6))
            return r.fail(r.at("weight"),
                          fmt::format("must be a number in [0, 1e6], got {}", out.weight));
        keys.push_back("weight");
    }
    return r.finish(keys);
}

}  // namespace

Result<TagConfig> parseTagConfig(std::string_view json_text, const std::string& source) {
    auto document = parseJson(json_text, source);
    if (!document) return document.error();
    JsonReader r(*document, "$", source);
    if (Status s = r.expectObject(); !s) return s.error();
    bool use_defaults = true;
    if (Status s = r.boolean("use_defaults", use_defaults); !s) return s.error();
    const TagConfig defaults = defaultTagConfig();
    TagConfig config;
    config.areas = use_defaults ? defaults.areas : geometry::defaultAreaTable();

    Status areas = readObjects(r, "areas", [&](JsonReader& entry) -> Status {
        std::string name;
        double cost = 0;
        if (!entry.has("name")) return entry.fail(entry.at("name"), "missing (the area's name)");
        if (!entry.has("cost")) return entry.fail(entry.at("cost"), "missing (the area's cost)");
        if (Status s = entry.string("name", name); !s) return s;
        if (Status s = entry.number("cost", cost); !s) return s;
        if (Status s = entry.finish({"name", "cost"}); !s) return s;
        if (name.empty() || name.size() > 64)
            return entry.fail(entry.at("name"), "must be 1..64 characters");
        geometry::MarkerKind unused;
        if (name == kTagIgnore || name == kTagObstacle || name == kTagLink || name == "ground" ||
            markerTag(name, unused))
            return entry.fail(entry.at("name"), fmt::format("'{}' is reserved", name));
        if (!(cost > 0 && cost <= 1e6))
            return entry.fail(entry.at("cost"),
                              fmt::format("must be a number in (0, 1e6], got {}", cost));
        auto existing = std::find_if(config.areas.begin(), config.areas.end(),
                                     [&](const geometry::AreaType& a) { return a.name == name; });
        if (existing != config.areas.end()) {
            existing->cost = float(cost);
        } else {
            if (config.areas.size() >= 64) return entry.fail(entry.path(), "at most 64 area types");
            config.areas.push_back({name, float(cost), true});
        }
        return {};
    });
    if (!areas) return areas.error();

    if (r.has("link_types"))
        if (Status s = geometry::parseLinkTypes(r.get("link_types"), "$.link_types", source,
                                                config.link_types);
            !s)
            return s.error();

    Status rules = readObjects(r, "rules", [&](JsonReader& entry) -> Status {
        TagRule rule;
        if (!entry.has("match")) return entry.fail(entry.at("match"), "missing (a glob pattern)");
        if (!entry.has("tag"))
            return entry.fail(entry.at("tag"), "missing (ignore, obstacle, link or an area)");
        if (Status s = entry.string("match", rule.pattern); !s) return s;
        if (Status s = entry.string("tag", rule.tag); !s) return s;
        if (Status s = entry.choice<MatchTarget>("on", kMatchTargets, rule.target); !s) return s;
        if (entry.has("link")) {
            if (rule.tag != kTagLink)
                return entry.fail(
                    entry.at("link"),
                    fmt::format("only with \"tag\": \"link\" (this rule's tag is '{}')", rule.tag));
            if (Status s = parseLinkRule(entry.get("link"), entry.at("link"), source,
                                         config.link_types, rule.link);
                !s)
                return s;
        }
        geometry::MarkerKind marker_kind{};
        const bool marker = markerTag(rule.tag, marker_kind);
        if (entry.has("marker")) {
            if (!marker)
                return entry.fail(
                    entry.at("marker"),
                    fmt::format("only with a marker tag ({}; this rule's tag is '{}')",
                                markerTagNames(), rule.tag));
            if (Status s = parseMarkerRule(entry.get("marker"), entry.at("marker"), source,
                                           marker_kind, config.areas, rule.marker);
                !s)
                return s;
        }
        if (Status s = entry.finish({"match", "on", "tag", "link", "marker"}); !s) return s;
        const bool known =
            marker || rule.tag == kTagIgnore || rule.tag == kTagObstacle || rule.tag == kTagLink ||
            std::any_of(config.areas.begin(), config.areas.end(),
                        [&](const geometry::AreaType& a) { return a.name == rule.tag; });
        if (!known) {
            std::vector<std::string> names = {std::string(kTagIgnore), std::string(kTagObstacle),
                                              std::string(kTagLink), markerTagNames()};
            for (size_t a = 1; a < config.areas.size(); ++a) names.push_back(config.areas[a].name);
            return entry.fail(entry.at("tag"), fmt::format("unknown tag '{}' (known: {})", rule.tag,
                                                           fmt::join(names, ", ")));
        }
        config.rules.push_back(std::move(rule));
        return {};
    });
    if (!rules) return rules.error();
    if (Status s = r.finish({"use_defaults", "areas", "link_types", "rules"}); !s) return s.error();
    if (use_defaults)
        config.rules.insert(config.rules.end(), defaults.rules.begin(), defaults.rules.end());
    return config;
}

Result<TagConfig> loadTagConfig(const std::filesystem::path& path) {
    return parseTextFile(path, parseTagConfig);
}

}  // namespace nav::importer
