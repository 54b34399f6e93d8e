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
        if (!hit && rule.target != MatchTarget::object)
            hit = globMatch(rule.pattern, material_name);
        if (!hit) continue;
        if (rule.tag == kTagIgnore) return -1;
        if (rule.tag == kTagObstacle) return geometry::kObstacleArea;
        for (size_t i = 0; i < config.areas.size(); ++i)
            if (config.areas[i].name == rule.tag) return int(i);
    }
    return geometry::kGroundArea;
}

namespace {

inline constexpr Choice<MatchTarget> kMatchTargets[] = {{"object", MatchTarget::object},
                                                        {"material", MatchTarget::material},
                                                        {"any", MatchTarget::any}};

// An array member of `r` (absent: empty), each element an object read by `read`.
template <class Read>
Status readObjects(JsonReader& r, std::string_view key, const std::filesystem::path& file,
                   Read&& read) {
    if (!r.has(key)) return {};
    const nlohmann::json& items = r.get(key);
    if (!items.is_array()) return r.typeError(r.at(key), "an array", items);
    for (size_t i = 0; i < items.size(); ++i) {
        JsonReader item(items[i], JsonReader::at(r.at(key), i), file);
        if (Status s = item.expectObject(); !s) return s;
        if (Status s = read(item); !s) return s;
    }
    return {};
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

    Status areas = readObjects(r, "areas", source, [&](JsonReader& entry) -> Status {
        std::string name;
        double cost = 0;
        if (!entry.has("name")) return entry.fail(entry.at("name"), "missing (the area's name)");
        if (!entry.has("cost")) return entry.fail(entry.at("cost"), "missing (the area's cost)");
        if (Status s = entry.string("name", name); !s) return s;
        if (Status s = entry.number("cost", cost); !s) return s;
        if (Status s = entry.finish({"name", "cost"}); !s) return s;
        if (name.empty() || name.size() > 64)
            return entry.fail(entry.at("name"), "must be 1..64 characters");
        if (name == kTagIgnore || name == kTagObstacle || name == "ground")
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

    Status rules = readObjects(r, "rules", source, [&](JsonReader& entry) -> Status {
        TagRule rule;
        if (!entry.has("match")) return entry.fail(entry.at("match"), "missing (a glob pattern)");
        if (!entry.has("tag"))
            return entry.fail(entry.at("tag"), "missing (ignore, obstacle or an area)");
        if (Status s = entry.string("match", rule.pattern); !s) return s;
        if (Status s = entry.string("tag", rule.tag); !s) return s;
        if (Status s = entry.choice<MatchTarget>("on", kMatchTargets, rule.target); !s) return s;
        if (Status s = entry.finish({"match", "on", "tag"}); !s) return s;
        const bool known =
            rule.tag == kTagIgnore || rule.tag == kTagObstacle ||
            std::any_of(config.areas.begin(), config.areas.end(),
                        [&](const geometry::AreaType& a) { return a.name == rule.tag; });
        if (!known) {
            std::vector<std::string> names = {std::string(kTagIgnore), std::string(kTagObstacle)};
            for (size_t a = 1; a < config.areas.size(); ++a) names.push_back(config.areas[a].name);
            return entry.fail(entry.at("tag"), fmt::format("unknown tag '{}' (known: {})", rule.tag,
                                                           fmt::join(names, ", ")));
        }
        config.rules.push_back(std::move(rule));
        return {};
    });
    if (!rules) return rules.error();
    if (Status s = r.finish({"use_defaults", "areas", "rules"}); !s) return s.error();
    if (use_defaults)
        config.rules.insert(config.rules.end(), defaults.rules.begin(), defaults.rules.end());
    return config;
}

Result<TagConfig> loadTagConfig(const std::filesystem::path& path) {
    return parseTextFile(path, parseTagConfig);
}

}  // namespace nav::importer
