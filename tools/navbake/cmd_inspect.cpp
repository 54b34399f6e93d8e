#include <cstdio>

#include "lib/inspect/inspect.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerInspect(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string input;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "inspect",
        "Show what an artifact holds: kind, versions, sections (codec, sizes, checksum) and "
        "kind-specific statistics. Exits 1 if anything is corrupt");
    sub->add_option("FILE", options->input, "Any navbake artifact (.geo, .vox, .graph, .nav)")
        ->required();
    sub->add_flag("--json", options->json, "Print the report as JSON on stdout");
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto inspection = inspect::inspectArtifact(options->input);
            if (!inspection) return reportFailure(context, inspection.error());
            const std::string text = options->json ? inspection->report.dump(2) + "\n"
                                                   : inspect::renderText(inspection->report);
            std::fwrite(text.data(), 1, text.size(), stdout);
            if (!inspection->all_checksums_ok) {
                context.log(LogLevel::error, options->input + ": artifact is corrupt (see errors)");
                return kExitFailure;
            }
            return kExitOk;
        };
    });
}

}  // namespace nav::navbake
