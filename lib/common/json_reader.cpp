#include "lib/common/json_reader.h"

#include "lib/common/file_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace nav {

using Json = nlohmann::json;

Result<Json> parseJson(std::string_view text, const std::filesystem::path& file) {
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        return inputError("{}: not valid JSON at byte {}: {}", file.string(), e.byte, e.what());
    } catch (const Json::exception& e) {
        // A number too large for a double ("1e999") is out_of_range, thrown while parsing.
        return inputError("{}: not valid JSON: {}", file.string(), e.what());
    }
}

Result<Json> loadJson(const std::filesystem::path& file) {
    auto text = readTextFile(file);
    if (!text) return text.error();
    return parseJson(*text, file);
}

JsonReader::JsonReader(const Json& value, std::string path, std::filesystem::path file)
    : value_(value), path_(std::move(path)), file_(std::move(file)) {}

Status JsonReader::expectObject() const {
    if (!value_.is_object()) return typeError(path_, "an object", value_);
    return {};
}

const Json& JsonReader::get(std::string_view key) {
    seen_.insert(std::string(key));
    return value_.at(std::string(key));
}

Status JsonReader::number(std::string_view key, double& out) {
    if (!has(key)) return {};
    const Json& v = get(key);
    if (!v.is_number()) return typeError(at(key), "a number", v);
    out = v.get<double>();
    if (!std::isfinite(out)) return typeError(at(key), "a finite number", v);
    return {};
}

Status JsonReader::number(std::string_view key, float& out) {
    double value = out;
    if (Status s = number(key, value); !s) return s;
    if (!has(key)) return {};
    if (std::abs(value) > double(std::numeric_limits<float>::max()))
        return typeError(at(key), "a number within single precision", value_.at(std::string(key)));
    out = value_.at(std::string(key)).get<float>();
    return {};
}

std::string JsonReader::where() const {
    return file_.empty() ? path_ : fmt::format("{}: {}", file_.filename().string(), path_);
}

Status JsonReader::point(std::string_view key, float* out3, bool required) {
    if (!has(key)) {
        if (required) return fail(at(key), "missing (expected [x, y, z] in metres)");
        return {};
    }
    const Json& v = get(key);
    if (!toPoint(v, out3)) return typeError(at(key), "[x, y, z] (three numbers, metres)", v);
    return {};
}

Status JsonReader::strings(std::string_view key, std::vector<std::string>& out,
                           std::string_view item) {
    if (!has(key)) return {};
    const Json& list = get(key);
    if (!list.is_array())
        return typeError(at(key), fmt::format("an array of {}s", item.substr(item.find(' ') + 1)),
                         list);
    for (size_t k = 0; k < list.size(); ++k) {
        if (!list[k].is_string()) return typeError(at(at(key), k), item, list[k]);
        out.push_back(list[k].get<std::string>());
    }
    return {};
}

bool JsonReader::toPoint(const Json& v, float* out3) {
    auto finite = [](const Json& n) {
        return n.is_number() &&
               std::abs(n.get<double>()) <= double(std::numeric_limits<float>::max());
    };
    if (!v.is_array() || v.size() != 3 || !finite(v[0]) || !finite(v[1]) || !finite(v[2]))
        return false;
    for (size_t k = 0; k < 3; ++k) out3[k] = v[k].get<float>();
    return true;
}

Status JsonReader::integer(std::string_view key, uint32_t& out) {
    if (!has(key)) return {};
    const Json& v = get(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > int64_t(UINT32_MAX))
        return typeError(at(key), "a whole number >= 0", v);
    out = uint32_t(v.get<int64_t>());
    return {};
}

Status JsonReader::integer(std::string_view key, int& out) {
    if (!has(key)) return {};
    const Json& v = get(key);
    if (!v.is_number_integer() || v.get<int64_t>() < std::numeric_limits<int>::min() ||
        v.get<int64_t>() > std::numeric_limits<int>::max())
        return typeError(at(key), "a whole number", v);
    out = int(v.get<int64_t>());
    return {};
}

Status JsonReader::boolean(std::string_view key, bool& out) {
    if (!has(key)) return {};
    const Json& v = get(key);
    if (!v.is_boolean()) return typeError(at(key), "true or false", v);
    out = v.get<bool>();
    return {};
}

Status JsonReader::string(std::string_view key, std::string& out) {
    if (!has(key)) return {};
    const Json& v = get(key);
    if (!v.is_string()) return typeError(at(key), "a string", v);
    out = v.get<std::string>();
    return {};
}

Status JsonReader::finish(std::initializer_list<std::string_view> allowed) const {
    return finish(std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

Status JsonReader::finish(std::span<const std::string_view> allowed) const {
    for (auto it = value_.begin(); it != value_.end(); ++it)
        if (!seen_.count(it.key()) &&
            std::none_of(allowed.begin(), allowed.end(),
                         [&](std::string_view a) { return it.key() == a; })) {
            std::string list;
            for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            return fail(at(it.key()), list.empty()
                                          ? std::string("unknown key (none is allowed here)")
                                          : fmt::format("unknown key (allowed here: {})", list));
        }
    return {};
}

Status JsonReader::fail(const std::string& path, const std::string& what) const {
    return inputError("{}: {}: {}", file_.string(), path, what);
}

Status JsonReader::typeError(const std::string& path, std::string_view expected,
                             const Json& got) const {
    return fail(path, fmt::format("expected {}, got {} {}", expected, got.type_name(),
                                  got.dump().substr(0, 40)));
}

}  // namespace nav
