// `navbake build LEVEL.json`: the one command the asset pipeline and CI call.
#include <cstdio>

#include "lib/pipeline/pipeline.h"
#include "tools/navbake/cli.h"

namespace nav::navbake {

void registerBuild(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string config;
        int jobs = 0;
        bool force = false, check = false, strict = false;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "build",
        "Bake a level from its JSON config (inputs, agents, graphs, clusters, hierarchy, next-hop "
        "tables): only the stages whose inputs or parameters changed run; writes the .nav assets "
        "and LEVEL.report.json into the output folder");
    sub->add_option("CONFIG", options->config,
                    "Level config (.json; schema: formats/level.schema.json)")
        ->required();
    sub->add_option("-j,--jobs", options->jobs,
                    "Stages run at once (0 = all cores); outputs do not depend on it")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_flag("--force", options->force, "Rebuild every stage, ignoring the cache");
    sub->add_flag("--check", options->check,
                  "CI: exit 1 naming what is stale when the outputs do not match what the current "
                  "inputs and config would produce; writes nothing");
    sub->add_flag("--strict", options->strict,
                  "CI: exit 1 when the build warns (points of interest off the surface or "
                  "unreachable, seeds off it, islands, links an agent cannot use, ...); the "
                  "outputs and the report are still written");
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto config = pipeline::loadLevelConfig(options->config);
            if (!config) return reportFailure(context, config.error());
            pipeline::BuildOptions build_options;
            build_options.jobs = options->jobs;
            build_options.force = options->force;
            build_options.check = options->check;
            auto report = pipeline::runBuild(*config, build_options, context);
            if (!report) return reportFailure(context, report.error());
            if (options->check) {
                context.info("{}: outputs in {} are up to date", options->config,
                             config->output.string());
                return kExitOk;
            }
            size_t built = 0, skipped = 0, warnings = 0;
            for (const pipeline::StageReport& st : report->stages) {
                (st.skipped ? skipped : built) += 1;
                warnings += st.warnings.size();
            }
            context.info("{} stages: {} built, {} up to date; {} warnings; {:.0f} ms",
                         report->stages.size(), built, skipped, warnings, report->milliseconds);
            for (const pipeline::StageReport& st : report->stages) {
                std::string counts;
                for (auto it = st.counts.begin(); it != st.counts.end(); ++it)
                    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", it.value().dump(),
                                          it.key());
                context.info("  {:<28} {:>10}  {:>8.0f} ms  {}", st.name,
                             st.skipped ? "up to date" : "built", st.milliseconds, counts);
            }
            for (const pipeline::StageReport& st : report->stages)
                for (const std::string& w : st.warnings) context.info("  warning: {}", w);
            for (const std::string& o : report->outputs)
                context.info("  output: {}", (config->output / o).string());
            context.info(
                "report: {}",
                (config->output / (config->file.stem().string() + ".report.json")).string());
            if (options->strict && warnings > 0) {
                context.log(LogLevel::error,
                            fmt::format("--strict: the build gave {} warning{}; failing", warnings,
                                        warnings == 1 ? "" : "s"));
                return kExitFailure;
            }
            return kExitOk;
        };
    });
}

}  // namespace nav::navbake
