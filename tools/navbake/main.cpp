// navbake: the command-line front end. Parses arguments, sets up logging, runs one subcommand and
// turns its result into an exit code (0 success, 1 bad input or failed stage, 2 usage error).
#include <csignal>
#include <cstdio>

#include "formats/container.h"
#include "lib/common/parallel.h"
#include "tools/navbake/cli.h"
#include "tools/navbake/version.h"

namespace {

nav::Context* g_context = nullptr;

extern "C" void onInterrupt(int) {
    if (g_context != nullptr) g_context->requestCancel();
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

}  // namespace

int main(int argc, char** argv) {
    using namespace nav::navbake;
    nav::configureAllocator();
    CLI::App app{
        "navbake: bakes level geometry into navigation data (voxel grids, graphs, navigation "
        "meshes, lookup tables) packed into compact, checksummed runtime assets.",
        "navbake"};
    app.set_version_flag("--version", std::string("navbake ") + NAVBAKE_VERSION +
                                          " (container format " +
                                          std::to_string(nav::formats::kContainerVersion) + ")");
    app.require_subcommand(1);
    app.fallthrough();

    GlobalOptions options;
    std::string log_format = "text";
    app.add_flag("-v,--verbose", options.verbose, "Log debug details and stage timings");
    app.add_flag("-q,--quiet", options.quiet, "Only log warnings and errors; no summaries")
        ->excludes(app.get_option("--verbose"));
    app.add_option("--log-format", log_format, "Log line format on stderr")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    std::string max_memory = "80%";
    app.add_option("--max-memory", max_memory,
                   "Memory budget of each stage: a stage whose estimated peak is above it refuses "
                   "to start (exit 1, with the estimate and what to change). A size (512M, 4G), a "
                   "share of physical memory (50%) or 'none'")
        ->capture_default_str();

    CommandBody body;
    registerBuild(app, body);
    registerPlan(app, body);
    registerImport(app, body);
    registerVoxelize(app, body);
    registerGraph(app, body);
    registerCluster(app, body);
    registerHierarchy(app, body);
    registerNextHop(app, body);
    registerPack(app, body);
    registerQuery(app, body);
    registerScen(app, body);
    registerInspect(app, body);
    registerView(app, body);
    app.footer(
        "Exit codes: 0 success, 1 bad input or failed stage, 2 usage error.\n"
        "Run 'navbake SUBCOMMAND --help' for the options of each stage.\n");

    // Usage errors are JSON lines too with --log-format json (looked up in the arguments: a
    // parse error may come before the option is read).
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--log-format=json" ||
            (arg == "--log-format" && i + 1 < argc && std::string_view(argv[i + 1]) == "json"))
            json = true;
    }
    auto usageError = [&](const std::string& message) {
        if (json)
            std::fprintf(
                stderr, "%s\n",
                jsonLogLine("error", message,
                            {{"event", std::string("usage")}, {"exit", int64_t(kExitUsage)}})
                    .c_str());
        else
            std::fprintf(stderr, "error: %s\n", message.c_str());
        return kExitUsage;
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (json && e.get_exit_code() != 0) return usageError(e.what());
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    }
    options.log_format = log_format == "json" ? LogFormat::json : LogFormat::text;
    if (max_memory != "none" && !nav::parseMemorySize(max_memory, options.max_memory))
        return usageError("--max-memory '" + max_memory +
                          "' is not a size like 512M, 4G or 50%, or 'none'");

    CliContext context(options);
    context.setMemoryLimit(options.max_memory);
    g_context = &context;
    std::signal(SIGINT, onInterrupt);
    int code = kExitFailure;
    try {
        code = body ? body(context) : kExitUsage;
    } catch (const std::exception& e) {
        context.log(nav::LogLevel::error, std::string("internal error: ") + e.what());
        code = kExitFailure;
    }
    g_context = nullptr;
    return code;
}
