#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "../common/file_io.h"
#include "import.h"

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
    config.areas = geo::defaultAreaTable();
    config.areas.push_back({"water", 3.0f, true});
    config.areas.push_back({"mud", 2.0f, true});
    const auto add = [&](const char* pattern, const char* tag) {
        config.rules.push_back({pattern, MatchTarget::any, tag});
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

int resolveTag(const TagConfig& config, std::string_view object_name, std::string_view mesh_name,
               std::string_view material_name) {
    for (const TagRule& rule : config.rules) {
        bool hit = false;
        if (rule.target != MatchTarget::material)
            hit = globMatch(rule.pattern, object_name) || globMatch(rule.pattern, mesh_name);
        if (!hit && rule.target != MatchTarget::object) hit = globMatch(rule.pattern, material_name);
        if (!hit) continue;
        if (rule.tag == kTagIgnore) return -1;
        if (rule.tag == kTagObstacle) return geo::kObstacleArea;
        for (size_t i = 0; i < config.areas.size(); ++i)
            if (config.areas[i].name == rule.tag) return int(i);
    }
    return geo::kGroundArea;
}

namespace {

using nlohmann::json;

// Rejects keys other than `allowed` with the JSON path of the offender.
Status checkKeys(const json& object, std::initializer_list<std::string_view> allowed,
                 const std::string& where, const std::string& source) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
            return inputError("{}: unknown key '{}/{}' (allowed here: {})", source, where,
                              it.key(), fmt::join(allowed, ", "));
    }
    return {};
}

}  // namespace

Result<TagConfig> parseTagConfig(std::string_view json_text, const std::string& source) {
    json document;
    try {
        document = json::parse(json_text);
    } catch (const json::parse_error& e) {
        return inputError("{}: invalid JSON at byte {}: {}", source, e.byte, e.what());
    }
    if (!document.is_object()) return inputError("{}: expected a JSON object at the top", source);
    if (Status s = checkKeys(document, {"use_defaults", "areas", "rules"}, "", source); !s)
        return s.error();

    bool use_defaults = true;
    if (document.contains("use_defaults")) {
        if (!document["use_defaults"].is_boolean())
            return inputError("{}: '/use_defaults' must be true or false", source);
        use_defaults = document["use_defaults"].get<bool>();
    }
    const TagConfig defaults = defaultTagConfig();
    TagConfig config;
    config.areas = use_defaults ? defaults.areas : geo::defaultAreaTable();

    if (document.contains("areas")) {
        const json& areas = document["areas"];
        if (!areas.is_array()) return inputError("{}: '/areas' must be an array", source);
        for (size_t i = 0; i < areas.size(); ++i) {
            const std::string where = fmt::format("/areas/{}", i);
            const json& entry = areas[i];
            if (!entry.is_object()) return inputError("{}: '{}' must be an object", source, where);
            if (Status s = checkKeys(entry, {"name", "cost"}, where, source); !s) return s.error();
            if (!entry.contains("name") || !entry["name"].is_string())
                return inputError("{}: '{}/name' must be a string", source, where);
            if (!entry.contains("cost") || !entry["cost"].is_number())
                return inputError("{}: '{}/cost' must be a number", source, where);
            const std::string name = entry["name"].get<std::string>();
            const double cost = entry["cost"].get<double>();
            if (name.empty() || name.size() > 64)
                return inputError("{}: '{}/name' must be 1..64 characters", source, where);
            if (name == kTagIgnore || name == kTagObstacle || name == "ground")
                return inputError("{}: '{}/name': '{}' is reserved", source, where, name);
            if (!std::isfinite(cost) || cost <= 0 || cost > 1e6)
                return inputError("{}: '{}/cost' must be a number in (0, 1e6], got {}", source,
                                  where, cost);
            auto existing = std::find_if(config.areas.begin(), config.areas.end(),
                                         [&](const geo::AreaType& a) { return a.name == name; });
            if (existing != config.areas.end()) {
                existing->cost = float(cost);
            } else {
                if (config.areas.size() >= 64)
                    return inputError("{}: '{}': at most 64 area types", source, where);
                config.areas.push_back({name, float(cost), true});
            }
        }
    }

    if (document.contains("rules")) {
        const json& rules = document["rules"];
        if (!rules.is_array()) return inputError("{}: '/rules' must be an array", source);
        for (size_t i = 0; i < rules.size(); ++i) {
            const std::string where = fmt::format("/rules/{}", i);
            const json& entry = rules[i];
            if (!entry.is_object()) return inputError("{}: '{}' must be an object", source, where);
            if (Status s = checkKeys(entry, {"match", "on", "tag"}, where, source); !s)
                return s.error();
            if (!entry.contains("match") || !entry["match"].is_string())
                return inputError("{}: '{}/match' must be a string (a glob pattern)", source,
                                  where);
            if (!entry.contains("tag") || !entry["tag"].is_string())
                return inputError("{}: '{}/tag' must be a string", source, where);
            TagRule rule;
            rule.pattern = entry["match"].get<std::string>();
            rule.tag = entry["tag"].get<std::string>();
            if (entry.contains("on")) {
                const std::string on = entry["on"].is_string() ? entry["on"].get<std::string>() : "";
                if (on == "object") rule.target = MatchTarget::object;
                else if (on == "material") rule.target = MatchTarget::material;
                else if (on == "any") rule.target = MatchTarget::any;
                else
                    return inputError("{}: '{}/on' must be \"object\", \"material\" or \"any\"",
                                      source, where);
            }
            const bool known =
                rule.tag == kTagIgnore || rule.tag == kTagObstacle ||
                std::any_of(config.areas.begin(), config.areas.end(),
                            [&](const geo::AreaType& a) { return a.name == rule.tag; });
            if (!known) {
                std::vector<std::string> names = {std::string(kTagIgnore), std::string(kTagObstacle)};
                for (size_t a = 1; a < config.areas.size(); ++a) names.push_back(config.areas[a].name);
                return inputError("{}: '{}/tag': unknown tag '{}' (known: {})", source, where,
                                  rule.tag, fmt::join(names, ", "));
            }
            config.rules.push_back(std::move(rule));
        }
    }
    if (use_defaults)
        config.rules.insert(config.rules.end(), defaults.rules.begin(), defaults.rules.end());
    return config;
}

Result<TagConfig> loadTagConfig(const std::filesystem::path& path) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    return parseTagConfig(text, path.string());
}

}  // namespace nav::importer
