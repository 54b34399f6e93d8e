// The one reader of JSON inputs (level configs, tag rules): walks an object, remembers which keys
// were read so the others can be reported unknown, and names every error by file and JSON path in
// one syntax ($.agents[0].height). It checks types only; ranges are the stages' check()s, so a
// config and the command line give the same text for the same value.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/common/result.h"
#include "lib/common/stage.h"

namespace nav {

// Parses `text` (errors: file, byte offset and what the parser expected).
Result<nlohmann::json> parseJson(std::string_view text, const std::filesystem::path& file);
// Reads and parses a JSON file (errors name it: unreadable, not valid JSON).
Result<nlohmann::json> loadJson(const std::filesystem::path& file);

class JsonReader {
public:
    // `value` must outlive the reader; `path` is its JSON path ("$", "$.agents[0]").
    JsonReader(const nlohmann::json& value, std::string path, std::filesystem::path file);

    // A reader of `value`, an element of this reader's document at JSON path `path` (same file).
    JsonReader child(const nlohmann::json& value, std::string path) const {
        return JsonReader(value, std::move(path), file_);
    }

    Status expectObject() const;
    bool has(std::string_view key) const { return value_.contains(key); }
    std::string at(std::string_view key) const { return path_ + "." + std::string(key); }
    static std::string at(const std::string& array_path, size_t index) {
        return array_path + "[" + std::to_string(index) + "]";
    }
    const std::string& path() const { return path_; }
    // What an entry read here is called in messages: "FILE: $.path" (the path alone without a
    // file).
    std::string where() const;
    const nlohmann::json& get(std::string_view key);  // marks the key read

    // Each reads `key` when present (absent: `out` keeps its default) and checks its type.
    Status number(std::string_view key, float& out);
    Status number(std::string_view key, double& out);
    Status integer(std::string_view key, uint32_t& out);
    Status integer(std::string_view key, int& out);
    Status boolean(std::string_view key, bool& out);
    // A JSON [x, y, z] of numbers (metres); `required`: missing is an error.
    Status point(std::string_view key, float* out3, bool required = false);
    // An array of strings (each named by its JSON path when it is not one): `item` says what
    // one is ("an agent name").
    Status strings(std::string_view key, std::vector<std::string>& out, std::string_view item);
    // The same for a value of its own (an array element): false when it is not [x, y, z].
    static bool toPoint(const nlohmann::json& value, float* out3);
    Status string(std::string_view key, std::string& out);
    template <class E>
    Status choice(std::string_view key, std::span<const Choice<E>> choices, E& out) {
        std::string text;
        if (Status s = string(key, text); !s || !has(key)) return s;
        if (!parseChoice(choices, text, out)) return fail(at(key), notAChoice(choices, text));
        return {};
    }
    // The first unknown key (in the document's order) with the keys allowed here.
    Status finish(std::initializer_list<std::string_view> allowed) const;
    Status finish(std::span<const std::string_view> allowed) const;

    // `array` (an element of this document at JSON path `path`) as an array of objects: each
    // element, read at "PATH[i]", goes to read(item). Errors name the path: not an array (or an
    // empty one when `non_empty`), `expected` saying what was wanted; an element not an object.
    template <class Read>
    Status objects(const nlohmann::json& array, const std::string& path, std::string_view expected,
                   bool non_empty, Read&& read) const {
        if (!array.is_array() || (non_empty && array.empty()))
            return typeError(path, expected, array);
        for (size_t i = 0; i < array.size(); ++i) {
            JsonReader item = child(array[i], at(path, i));
            if (Status s = item.expectObject(); !s) return s;
            if (Status s = read(item); !s) return s;
        }
        return {};
    }

    Status fail(const std::string& path, const std::string& what) const;
    Status typeError(const std::string& path, std::string_view expected,
                     const nlohmann::json& got) const;

private:
    const nlohmann::json& value_;
    std::string path_;
    std::filesystem::path file_;
    std::set<std::string, std::less<>> seen_;
};

}  // namespace nav
