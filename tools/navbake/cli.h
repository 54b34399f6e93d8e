// Shared pieces of the navbake command line: global options, the logging/progress context and the
// registration function of each subcommand. Subcommands only parse arguments, call lib/ and report.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "lib/common/context.h"
#include "lib/common/result.h"
#include "lib/common/stage.h"
#include "lib/geometry/geometry.h"

namespace nav::navbake {

// Exit codes (README, "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // bad input or a failed stage
inline constexpr int kExitUsage = 2;    // command-line usage error

enum class LogFormat { text, json };

struct GlobalOptions {
    bool verbose = false;
    bool quiet = false;
    LogFormat log_format = LogFormat::text;
    uint64_t max_memory = 0;  // stage memory budget [Units: bytes], 0 = none
};

// One `--log-format json` line: {"time", "level", "message"} and the event's fields.
std::string jsonLogLine(std::string_view level, std::string_view message, const LogFields& fields);

// Context that logs through spdlog (stderr) and shows progress: a redrawn line on a terminal,
// periodic log lines otherwise. Safe to call from several threads (build jobs, link generation
// beside a graph): one line at a time.
class CliContext : public Context {
public:
    explicit CliContext(const GlobalOptions& options);
    ~CliContext() override;
    void log(LogLevel level, std::string_view message) override;
    void event(LogLevel level, std::string_view message, const LogFields& fields) override;
    void progress(std::string_view stage, uint64_t done, uint64_t total) override;

private:
    // log() and event(), with mutex_ held.
    void write(LogLevel level, std::string_view message, const LogFields& fields);
    void clearProgressLine();
    std::mutex mutex_;
    GlobalOptions options_;
    bool tty_ = false;
    bool progress_shown_ = false;
    std::chrono::steady_clock::time_point last_progress_{};
    // Per stage: when its progress began and how much was done then (for the time left).
    std::map<std::string, std::pair<std::chrono::steady_clock::time_point, uint64_t>> started_;
};

// "X,Y,Z" (metres, finite) into out; false when the text is not that.
bool parseXYZ(const std::string& text, float out[3]);
// "X,Y,Z:X,Y,Z" (a box's min and max corners, metres) into box; false when the text is not that.
bool parseBox(const std::string& text, geometry::Bounds& box);

// "K/N" with 0 <= K < N (a shard of a table) into index and count; false otherwise.
bool parseShard(const std::string& text, uint32_t& index, uint32_t& count);

// Exit code for a failed Result/Status, after logging its message.
int reportFailure(Context& context, const Error& error);

// Prints what a stage made: its summary lines (info) and warnings.
void printStageResult(Context& context, const StageResult& result);

// The body of every stage command: checks the Params (usage error naming each bad option, exit 2),
// runs the stage's one definition, prints its result.
template <class S>
int runStage(Context& context, const typename S::Inputs& inputs, const typename S::Params& params,
             const std::filesystem::path& output) {
    if (Status s = checkStage<S>(params, optionFieldName); !s)
        return reportFailure(context, s.error());
    auto result = runWithinBudget<S>(inputs, params, output, context);
    if (!result) return reportFailure(context, result.error());
    printStageResult(context, *result);
    return kExitOk;
}

// An option taking one of `choices` (a stage's named enum): the same words and the same error
// text ("'x' is not one of: a, b") as in a level config.
template <class E>
CLI::Option* addChoice(CLI::App* app, const std::string& name, E& target,
                       std::span<const Choice<E>> choices, const std::string& help) {
    CLI::Option* option = app->add_option_function<std::string>(
        name, [&target, choices](const std::string& text) { parseChoice(choices, text, target); },
        help);
    option->check(CLI::Validator(
        [choices](std::string& text) {
            E value{};
            return parseChoice(choices, text, value) ? std::string() : notAChoice(choices, text);
        },
        "{" + choiceNames(choices) + "}"));
    option->default_str(std::string(choiceName(choices, target)));
    return option;
}

// A subcommand's body: runs after parsing, returns the exit code.
using CommandBody = std::function<int(Context&)>;

void registerImport(CLI::App& app, CommandBody& body);
void registerVoxelize(CLI::App& app, CommandBody& body);
void registerInspect(CLI::App& app, CommandBody& body);
void registerGraph(CLI::App& app, CommandBody& body);
void registerCluster(CLI::App& app, CommandBody& body);
void registerHierarchy(CLI::App& app, CommandBody& body);
void registerNextHop(CLI::App& app, CommandBody& body);
void registerBuild(CLI::App& app, CommandBody& body);
void registerPlan(CLI::App& app, CommandBody& body);
void registerPack(CLI::App& app, CommandBody& body);
void registerQuery(CLI::App& app, CommandBody& body);
void registerScen(CLI::App& app, CommandBody& body);
void registerView(CLI::App& app, CommandBody& body);

}  // namespace nav::navbake
