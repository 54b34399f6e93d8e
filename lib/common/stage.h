// The shape every bake stage shares, so the command line (tools/navbake) and the pipeline
// (lib/pipeline) call one definition of each stage and cannot drift apart.
//
// A stage is a struct with static members (see import.h, voxelize.h, graph.h, cluster.h,
// hierarchy.h, nexthop.h, pack.h):
//   kName                    the stage kind ("voxelize"), also the first line of its cache key
//   kVersion                 its algorithm version, the second line of its cache key: bumped by
//                            any change to the bytes the stage writes for the same inputs and
//                            Params (a fix, a new default section) that is not a format bump, so
//                            no build keeps serving an artifact the old code made
//   Params                   its parameters, each with units and a documented default
//   Inputs                   the artifact files (and source files) it reads
//   check(params)            every bad field at once (ParamIssues); empty when fine
//   describe(params, key)    the fields of Params that change the output, for the cache key
//   estimateMemory(inputs, params) -> MemoryEstimate
//                            its peak memory, from the inputs' headers and sizes alone (cheap)
//   run(inputs, params, output, context) -> StageResult
//                            reads the inputs, checks that they belong together, bakes, writes
//                            `output` atomically and says what it made (counts, warnings, summary)
// Params fields are named in issues by their snake_case name ("cell_size"); the CLI shows them as
// options (--cell-size) and the pipeline as JSON paths ($.voxel.cell_size), with the same text.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/memory.h"
#include "lib/common/result.h"

namespace nav {

// ---- Parameter checks --------------------------------------------------------------------------

// One bad field: rendered "<name> = <value> (must be <rule>)".
struct ParamIssue {
    std::string field;  // snake_case name of the Params member ("cell_size", "agent_height")
    std::string value;  // the value given, as text
    std::string rule;   // what it must be ("> 0", "in 0..90 degrees")
};
using ParamIssues = std::vector<ParamIssue>;

// Collects the issues of one check.
class ParamCheck {
public:
    void require(bool ok, std::string_view field, const std::string& value, std::string_view rule) {
        if (!ok) issues.push_back({std::string(field), value, std::string(rule)});
    }
    // finite and > 0
    template <class T>
    void positive(std::string_view field, T value) {
        require(std::isfinite(double(value)) && value > 0, field, fmt::format("{}", value), "> 0");
    }
    // finite and >= 0
    template <class T>
    void nonNegative(std::string_view field, T value) {
        require(std::isfinite(double(value)) && value >= 0, field, fmt::format("{}", value),
                ">= 0");
    }
    // finite and low <= value <= high
    template <class T>
    void range(std::string_view field, T value, T low, T high, std::string_view unit = {}) {
        require(std::isfinite(double(value)) && value >= low && value <= high, field,
                fmt::format("{}", value),
                fmt::format("in {}..{}{}{}", low, high, unit.empty() ? "" : " ", unit));
    }
    // 0 (all cores) or 1..kMaxThreads
    void threads(std::string_view field, int value);
    ParamIssues issues;
};

inline constexpr int kMaxThreads = 1024;

// How a caller names fields: the CLI by option, the pipeline by JSON path.
using FieldNamer = std::function<std::string(std::string_view field)>;
// "cell_size" -> "cell size" (the library's own wording, for callers that name nothing).
std::string plainFieldName(std::string_view field);
// "cell_size" -> "--cell-size".
std::string optionFieldName(std::string_view field);

// One ErrorKind::usage error naming every issue: "invalid <what>: a = 1 (must be > 0); ...".
// Success when `issues` is empty.
Status paramError(std::string_view what, const ParamIssues& issues,
                  const FieldNamer& name = plainFieldName);

// A stage's check() as one usage error: "invalid <kind> parameters: ...", fields named by `name`.
template <class S>
Status checkStage(const typename S::Params& params, const FieldNamer& name = plainFieldName) {
    return paramError(std::string(S::kName) + " parameters", S::check(params), name);
}

// ---- Named choices (enums spelled the same on the command line and in a config) ----------------

template <class E>
struct Choice {
    std::string_view name;
    E value;
};

// "grid, regions"
template <class E>
std::string choiceNames(std::span<const Choice<E>> choices) {
    std::string list;
    for (const Choice<E>& c : choices) list += (list.empty() ? "" : ", ") + std::string(c.name);
    return list;
}
// Finds `text` (exact spelling); false when it is none of the choices.
template <class E>
bool parseChoice(std::span<const Choice<E>> choices, std::string_view text, E& out) {
    for (const Choice<E>& c : choices)
        if (c.name == text) {
            out = c.value;
            return true;
        }
    return false;
}
template <class E>
std::string_view choiceName(std::span<const Choice<E>> choices, E value) {
    for (const Choice<E>& c : choices)
        if (c.value == value) return c.name;
    return "?";
}
// The one message for a word that is not a choice: "'x' is not one of: grid, regions".
template <class E>
std::string notAChoice(std::span<const Choice<E>> choices, std::string_view text) {
    return fmt::format("'{}' is not one of: {}", text, choiceNames(choices));
}

// ---- Cache keys and results --------------------------------------------------------------------

// The text a stage's cache key hashes: "name=value" lines of the Params fields that change the
// output (thread counts never do). Numbers are written exactly (shortest round-trip form).
class StageKey {
public:
    StageKey& add(std::string_view name, std::string_view value);
    StageKey& add(std::string_view name, double value);
    StageKey& add(std::string_view name, int64_t value);
    StageKey& add(std::string_view name, uint64_t value) { return add(name, int64_t(value)); }
    StageKey& add(std::string_view name, uint32_t value) { return add(name, int64_t(value)); }
    StageKey& add(std::string_view name, int value) { return add(name, int64_t(value)); }
    StageKey& add(std::string_view name, float value) { return add(name, double(value)); }
    StageKey& add(std::string_view name, bool value) { return add(name, value ? "true" : "false"); }
    StageKey& add(std::string_view name, const char* value) {
        return add(name, std::string_view(value));
    }
    const std::string& text() const { return text_; }

private:
    std::string text_;
};

// The text a stage's cache key hashes (besides its inputs' keys): kind, algorithm version, then
// the Params fields describe() lists. `version` is S::kVersion but for tests.
template <class S>
std::string stageKeyText(const typename S::Params& params, uint32_t version = S::kVersion) {
    StageKey key;
    S::describe(params, key);
    return fmt::format("{}\nversion={}\n{}", S::kName, version, key.text());
}

// What a stage made: counts for reports ("nodes", "edges"), warnings a user should read
// (walkable islands, an agent that fits nowhere), and the summary lines the CLI prints.
struct StageResult {
    std::vector<std::pair<std::string, uint64_t>> counts;
    std::vector<std::string> warnings;
    std::vector<std::string> summary;
    // Named inputs the stage was given and whether it could use them (authored and scene-object
    // links: "level.json: $.links[2]" -> false when this agent's surface misses an end), for
    // checks across stages: a build fails when no agent can use a link. Kept in the build report.
    std::vector<std::pair<std::string, bool>> named_inputs;
    double milliseconds = 0;  // baking time, without loading the inputs

    void count(std::string name, uint64_t value) { counts.emplace_back(std::move(name), value); }
};

// ---- Running a stage within the memory budget ---------------------------------------------------

// The one way the CLI and the pipeline run a stage: estimates its memory, refuses when the
// estimate is above context.memoryLimit() (ErrorKind::out_of_memory: the estimate, the limit and
// what to change), then runs it. A bad_alloc that still escapes (other processes took the memory)
// becomes the same kind of error, naming the stage and its estimate, never a bare bad_alloc.
template <class S>
Result<StageResult> runWithinBudget(const typename S::Inputs& inputs,
                                    const typename S::Params& params,
                                    const std::filesystem::path& output, Context& context) {
    auto estimate = S::estimateMemory(inputs, params);
    if (!estimate) return estimate.error();
    const std::string what = std::string("the ") + std::string(S::kName) + " stage";
    if (Status s = checkMemoryBudget(what, *estimate, context.memoryLimit()); !s) {
        Error e = s.error();
        e.kind = ErrorKind::out_of_memory;
        return e;
    }
    try {
        auto result = S::run(inputs, params, output, context);
        if (!result && result.error().kind == ErrorKind::out_of_memory &&
            result.error().message.find("estimated") == std::string::npos)
            return outOfMemoryError(what, *estimate, context.memoryLimit());
        return result;
    } catch (const std::bad_alloc&) {
        return outOfMemoryError(what, *estimate, context.memoryLimit());
    }
}

}  // namespace nav
