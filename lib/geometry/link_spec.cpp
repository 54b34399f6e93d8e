#include "lib/geometry/link_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "formats/bytes.h"
#include "lib/common/file_io.h"
#include "lib/common/json_reader.h"

namespace nav::geometry {
namespace {

constexpr size_t kSpecRecordSize = 64;
constexpr uint32_t kSpecFlagBidirectional = 1;
constexpr uint32_t kSpecFlagGenerated = 2;
constexpr uint32_t kSpecFlagScene = 4;

}  // namespace

std::vector<LinkSpec> linksForAgent(const std::vector<LinkSpec>& links, const std::string& agent) {
    std::vector<LinkSpec> out;
    for (const LinkSpec& l : links)
        if (l.agents.empty() ||
            std::find(l.agents.begin(), l.agents.end(), agent) != l.agents.end())
            out.push_back(l);
    return out;
}

bool resolveLinkType(const std::string& word, const std::vector<LinkTypeDef>& types,
                     LinkSpec& link) {
    formats::LinkType builtin{};
    if (parseChoice<formats::LinkType>(kLinkTypes, word, builtin)) {
        link.type = builtin;
        link.user_type.clear();
        link.type_factor = 1.0f;
        return true;
    }
    for (const LinkTypeDef& t : types)
        if (t.name == word) {
            link.type = formats::LinkType::custom;
            link.user_type = t.name;
            link.type_factor = t.cost_factor;
            return true;
        }
    return false;
}

std::string linkTypeWord(const LinkSpec& link) {
    if (!link.user_type.empty()) return link.user_type;
    return std::string(choiceName<formats::LinkType>(kLinkTypes, link.type));
}

std::map<std::string, uint64_t> linksByType(const std::vector<LinkSpec>& links) {
    std::map<std::string, uint64_t> counts;
    for (const LinkSpec& l : links) ++counts[linkTypeWord(l)];
    return counts;
}

std::string linksByTypeText(const std::vector<LinkSpec>& links) {
    std::string text;
    for (const auto& [word, n] : linksByType(links))
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, word);
    return text;
}

std::string notALinkType(const std::string& word, const std::vector<LinkTypeDef>& types) {
    std::string user;
    for (const LinkTypeDef& t : types) user += (user.empty() ? "" : ", ") + t.name;
    return fmt::format("'{}' is not a link type ({}{})", word,
                       choiceNames<formats::LinkType>(kLinkTypes),
                       user.empty() ? ", or a name declared in \"link_types\""
                                    : ", or one of the level's link_types: " + user);
}

Status parseLinkTypes(const nlohmann::json& array, const std::string& path,
                      const std::filesystem::path& file, std::vector<LinkTypeDef>& out) {
    JsonReader top(array, path, file);
    if (!array.is_array()) return top.typeError(path, "an array of link types", array);
    for (size_t i = 0; i < array.size(); ++i) {
        const std::string at = JsonReader::at(path, i);
        JsonReader r(array[i], at, file);
        if (Status s = r.expectObject(); !s) return s;
        LinkTypeDef type;
        if (!r.has("name")) return r.fail(r.at("name"), "missing (the type's name)");
        if (Status s = r.string("name", type.name); !s) return s;
        if (!formats::validLinkTypeName(type.name.data(), type.name.size()))
            return r.fail(r.at("name"),
                          fmt::format("'{}' must be 1-31 characters a-z, 0-9, '_' or '-', and no "
                                      "built-in type ({})",
                                      type.name, choiceNames<formats::LinkType>(kLinkTypes)));
        for (const LinkTypeDef& other : out)
            if (other.name == type.name)
                return r.fail(r.at("name"), fmt::format("'{}' is declared twice", type.name));
        if (Status s = r.number("cost_factor", type.cost_factor); !s) return s;
        if (!(std::isfinite(type.cost_factor) && type.cost_factor > 0))
            return r.fail(r.at("cost_factor"),
                          fmt::format("{} must be > 0 (cost per metre of the link's length)",
                                      type.cost_factor));
        if (Status s = r.finish({"name", "cost_factor"}); !s) return s;
        out.push_back(type);
    }
    if (out.size() > formats::kMaxUserLinkTypes)
        return top.fail(
            path, fmt::format("{} link types; at most {}", out.size(), formats::kMaxUserLinkTypes));
    return {};
}

Status parseLinks(const nlohmann::json& array, const std::string& path,
                  const std::filesystem::path& file, const std::vector<LinkTypeDef>& types,
                  std::vector<LinkSpec>& out) {
    const JsonReader top(array, path, file);
    return top.objects(array, path, "an array of links", false, [&](JsonReader& r) -> Status {
        LinkSpec spec;
        spec.name = r.where();
        if (Status s = r.point("from", spec.from, true); !s) return s;
        if (Status s = r.point("to", spec.to, true); !s) return s;
        std::string type;
        if (Status s = r.string("type", type); !s) return s;
        if (r.has("type") && !resolveLinkType(type, types, spec))
            return r.fail(r.at("type"), notALinkType(type, types));
        if (Status s = r.boolean("bidirectional", spec.bidirectional); !s) return s;
        if (Status s = r.number("width", spec.width); !s) return s;
        if (Status s = r.number("snap", spec.snap); !s) return s;
        if (Status s = r.number("cost", spec.cost); !s) return s;
        if (Status s = r.number("reverse_cost", spec.reverse_cost); !s) return s;
        if (Status s = r.integer("id", spec.id); !s) return s;
        if (spec.id >= kSceneLinkIdFirst)
            return r.fail(r.at("id"),
                          fmt::format("{} is not below {} (higher ids belong to scene-object and "
                                      "generated links)",
                                      spec.id, kSceneLinkIdFirst));
        if (Status s = r.integer("user_data", spec.user_data); !s) return s;
        if (Status s = r.strings("agents", spec.agents, "an agent name"); !s) return s;
        if (Status s = r.finish({"from", "to", "type", "bidirectional", "width", "snap", "cost",
                                 "reverse_cost", "id", "user_data", "agents"});
            !s)
            return s;
        // Values: the same rules as the stage's check, reported here by JSON path (bad input,
        // not a usage error).
        ParamCheck check;
        checkLinkSpecs({spec}, check);
        if (!check.issues.empty()) {
            const ParamIssue& issue = check.issues.front();
            const std::string key = issue.field.substr(issue.field.rfind('.') + 1);
            return r.fail(r.at(key), fmt::format("{} (must be {})", issue.value, issue.rule));
        }
        if (spec.id == 0) spec.id = uint32_t(out.size() + 1);
        out.push_back(spec);
        return {};
    });
}

Result<LinksFile> loadLinksFile(const std::filesystem::path& file) {
    auto document = loadJson(file);
    if (!document) return document.error();
    JsonReader r(*document, "$", file);
    if (Status s = r.expectObject(); !s) return s.error();
    LinksFile out;
    if (r.has("link_types"))
        if (Status s = parseLinkTypes(r.get("link_types"), "$.link_types", file, out.types); !s)
            return s.error();
    if (!r.has("links")) return r.fail("$.links", "missing (expected an array of links)").error();
    if (Status s = parseLinks(r.get("links"), "$.links", file, out.types, out.links); !s)
        return s.error();
    if (Status s = r.finish({"$schema", "link_types", "links"}); !s) return s.error();
    return out;
}

void checkLinkSpecs(const std::vector<LinkSpec>& links, ParamCheck& check) {
    for (const LinkSpec& l : links) {
        for (int k = 0; k < 3; ++k) {
            check.require(std::isfinite(l.from[k]), l.name + ".from", fmt::format("{}", l.from[k]),
                          "finite");
            check.require(std::isfinite(l.to[k]), l.name + ".to", fmt::format("{}", l.to[k]),
                          "finite");
        }
        check.nonNegative(l.name + ".cost", l.cost);
        check.nonNegative(l.name + ".reverse_cost", l.reverse_cost);
        check.require(l.bidirectional || l.reverse_cost == 0, l.name + ".reverse_cost",
                      fmt::format("{}", l.reverse_cost), "only with \"bidirectional\": true");
        check.range(l.name + ".width", l.width, 0.0f, 1000.0f, "m");
        check.require(
            l.snap == kSnapAuto || (std::isfinite(l.snap) && l.snap >= 0 && l.snap <= 100),
            l.name + ".snap", fmt::format("{}", l.snap), "in 0..100 m");
        const double dx = double(l.to[0]) - l.from[0], dz = double(l.to[2]) - l.from[2];
        check.require(!(l.width > 0) || std::sqrt(dx * dx + dz * dz) > 1e-3, l.name + ".width",
                      fmt::format("{}", l.width),
                      "0 when the ends are not apart horizontally (a wide link spreads across "
                      "the direction from -> to)");
        check.require(std::isfinite(l.type_factor) && l.type_factor > 0, l.name + ".type",
                      fmt::format("cost_factor {}", l.type_factor), "> 0");
    }
}

void checkLinkTypes(const std::vector<LinkTypeDef>& types, ParamCheck& check) {
    for (const LinkTypeDef& t : types) {
        check.require(formats::validLinkTypeName(t.name.data(), t.name.size()), "link_types",
                      t.name, "1-31 characters a-z, 0-9, '_', '-', no built-in name");
        check.positive("link_types." + t.name + ".cost_factor", t.cost_factor);
    }
    check.require(types.size() <= formats::kMaxUserLinkTypes, "link_types",
                  fmt::format("{} types", types.size()),
                  fmt::format("at most {}", formats::kMaxUserLinkTypes));
}

void describeLinks(const std::vector<LinkSpec>& links, StageKey& key) {
    if (links.empty()) return;
    key.add("links", uint64_t(links.size()));
    for (const LinkSpec& l : links) {
        key.add("link_type", linkTypeWord(l))
            .add("link_type_factor", l.type_factor)
            .add("link_bidirectional", l.bidirectional)
            .add("link_width", l.width)
            .add("link_cost", l.cost)
            .add("link_reverse_cost", l.reverse_cost)
            .add("link_id", l.id)
            .add("link_user_data", l.user_data)
            .add("link_generated", l.generated)
            .add("link_scene", l.scene)
            .add("link_snap", l.snap)
            .add("link_shared", l.shared)
            .add("link_name", l.name);
        for (const std::string& agent : l.agents) key.add("link_agent", agent);
        for (int k = 0; k < 3; ++k) key.add("link_from", l.from[k]).add("link_to", l.to[k]);
    }
}

void encodeLinkSpecs(const std::vector<LinkSpec>& links, std::vector<uint8_t>& records,
                     std::vector<uint8_t>& names) {
    formats::ByteWriter w;
    names.clear();
    for (const LinkSpec& l : links) {
        for (float v : l.from) w.f32(v);
        for (float v : l.to) w.f32(v);
        w.u32(uint32_t(l.type));
        w.u32((l.bidirectional ? kSpecFlagBidirectional : 0) |
              (l.generated ? kSpecFlagGenerated : 0) | (l.scene ? kSpecFlagScene : 0));
        w.f32(l.width);
        w.f32(l.cost);
        w.f32(l.reverse_cost);
        w.u32(l.id);
        w.u32(l.user_data);
        w.f32(l.type_factor);
        w.f32(l.snap);
        const size_t name = std::min<size_t>(l.name.size(), 0xFFFF);
        const size_t user = std::min<size_t>(l.user_type.size(), 0xFF);
        w.u16(uint16_t(name));
        w.u8(uint8_t(user));
        w.u8(0);
        names.insert(names.end(), l.name.begin(), l.name.begin() + ptrdiff_t(name));
        names.insert(names.end(), l.user_type.begin(), l.user_type.begin() + ptrdiff_t(user));
    }
    records = w.take();
}

Result<std::vector<LinkSpec>> decodeLinkSpecs(const std::vector<uint8_t>& records,
                                              const std::vector<uint8_t>& names,
                                              const std::filesystem::path& file) {
    if (records.size() % kSpecRecordSize != 0)
        return inputError("{}: section 'SLNK' is {} bytes, not a whole number of {}-byte records",
                          file.string(), records.size(), kSpecRecordSize);
    std::vector<LinkSpec> out;
    size_t name_at = 0;
    for (size_t at = 0; at < records.size(); at += kSpecRecordSize) {
        formats::ByteReader r(records.data() + at, kSpecRecordSize);
        LinkSpec l;
        for (float& v : l.from) v = r.f32();
        for (float& v : l.to) v = r.f32();
        l.type = formats::LinkType(r.u32());
        const uint32_t flags = r.u32();
        l.width = r.f32();
        l.cost = r.f32();
        l.reverse_cost = r.f32();
        l.id = r.u32();
        l.user_data = r.u32();
        l.type_factor = r.f32();
        l.snap = r.f32();
        const size_t name = r.u16(), user = r.u8(), reserved = r.u8();
        auto bad = [&](const char* what) {
            return inputError("{}: section 'SLNK' at byte {}: {}", file.string(), at, what);
        };
        if (formats::linkTypeName(l.type) == nullptr) return bad("unknown link type");
        if ((flags & ~(kSpecFlagBidirectional | kSpecFlagGenerated | kSpecFlagScene)) != 0 ||
            reserved != 0)
            return bad("unknown flags or a reserved byte not zero");
        if (name_at + name + user > names.size())
            return bad("its name runs past the end of section 'SLNM'");
        l.bidirectional = (flags & kSpecFlagBidirectional) != 0;
        l.generated = (flags & kSpecFlagGenerated) != 0;
        l.scene = (flags & kSpecFlagScene) != 0;
        l.name.assign(names.begin() + ptrdiff_t(name_at),
                      names.begin() + ptrdiff_t(name_at + name));
        l.user_type.assign(names.begin() + ptrdiff_t(name_at + name),
                           names.begin() + ptrdiff_t(name_at + name + user));
        name_at += name + user;
        if (!l.user_type.empty() &&
            (l.type != formats::LinkType::custom ||
             !formats::validLinkTypeName(l.user_type.data(), l.user_type.size())))
            return bad("a user link type that is not a valid name, or not of type custom");
        ParamCheck check;
        checkLinkSpecs({l}, check);
        if (!check.issues.empty()) return bad("a link with bad values");
        out.push_back(std::move(l));
    }
    if (name_at != names.size())
        return inputError("{}: section 'SLNM' has {} bytes no link names", file.string(),
                          names.size() - name_at);
    return out;
}

}  // namespace nav::geometry
