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
        std::string cache, stage, shard;
        uint32_t merge_shards = 0;
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
    sub->add_option("--cache", options->cache,
                    "Distributed builds: the artifacts' folder (default OUTPUT/.cache)");
    sub->add_option("--stage", options->stage,
                    "Distributed builds: run only this stage (its name or key, as 'navbake plan' "
                    "lists them), whose inputs are already in the cache; writes only its artifact");
    sub->add_option("--shard", options->shard,
                    "With --stage: only shard K of N (K/N) of a stage that splits (flat next-hop "
                    "tables; world tiles, by rows of tiles), into ARTIFACT.part-K-of-N");
    sub->add_option("--merge-shards", options->merge_shards,
                    "With --stage: join the N shards of the stage into its artifact")
        ->check(CLI::PositiveNumber);
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto config = pipeline::loadLevelConfig(options->config);
            if (!config) return reportFailure(context, config.error());
            pipeline::BuildOptions build_options;
            build_options.jobs = options->jobs;
            build_options.force = options->force;
            build_options.check = options->check;
            build_options.cache = options->cache;
            build_options.stage = options->stage;
            build_options.merge_shards = options->merge_shards;
            if (!options->shard.empty() &&
                !parseShard(options->shard, build_options.shard_index, build_options.shard_count))
                return reportFailure(
                    context, makeError(ErrorKind::usage, "--shard '{}' is not K/N with 0 <= K < N",
                                       options->shard));
            auto report = pipeline::runBuild(*config, build_options, context);
            if (!report) return reportFailure(context, report.error());
            if (!options->stage.empty()) return kExitOk;
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
            context.event(
                LogLevel::info,
                fmt::format("{} stages: {} built, {} up to date; {} warnings; {:.0f} ms",
                            report->stages.size(), built, skipped, warnings, report->milliseconds),
                {{"event", std::string("build")},
                 {"stages", int64_t(report->stages.size())},
                 {"built", int64_t(built)},
                 {"up_to_date", int64_t(skipped)},
                 {"warnings", int64_t(warnings)},
                 {"ms", std::round(report->milliseconds * 10) / 10}});
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
                context.event(
                    LogLevel::info, fmt::format("  output: {}", (config->output / o).string()),
                    {{"event", std::string("output")}, {"path", (config->output / o).string()}});
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

void registerPlan(CLI::App& app, CommandBody& body) {
    struct Options {
        std::string config, cache;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "plan",
        "Print the stage graph of a level config: per stage its command, inputs, artifact, cache "
        "key, memory estimate and whether it splits into shards, for running the stages on a "
        "cluster (tools/navbake-dask, Slurm job arrays)");
    sub->add_option("CONFIG", options->config, "Level config (.json)")->required();
    sub->add_option("--cache", options->cache, "The artifacts' folder (default OUTPUT/.cache)");
    sub->add_flag("--json", options->json, "Print the plan as JSON (for drivers)");
    sub->callback([&body, options] {
        body = [options](Context& context) {
            auto config = pipeline::loadLevelConfig(options->config);
            if (!config) return reportFailure(context, config.error());
            pipeline::BuildOptions build_options;
            build_options.cache = options->cache;
            std::error_code ec;
            std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
            auto plan = pipeline::planBuild(*config, build_options,
                                            ec ? std::string("navbake") : self.string());
            if (!plan) return reportFailure(context, plan.error());
            if (options->json) {
                std::printf("%s\n", plan->dump(2).c_str());
                return kExitOk;
            }
            std::printf("%-32s %-10s %-7s %12s  %s\n", "stage", "kind", "cached", "memory",
                        "depends on");
            for (const auto& st : (*plan)["stages"]) {
                std::string deps;
                for (const auto& d : st["depends_on"])
                    deps += (deps.empty() ? "" : ", ") + d.get<std::string>();
                const std::string memory =
                    st["memory_estimate"].is_null()
                        ? std::string("(later)")
                        : humanBytes(st["memory_estimate"]["bytes"].get<uint64_t>());
                std::printf("%-32s %-10s %-7s %12s  %s%s\n", st["name"].get<std::string>().c_str(),
                            st["kind"].get<std::string>().c_str(),
                            st["cached"].get<bool>() ? "yes" : "no", memory.c_str(),
                            deps.empty() ? "-" : deps.c_str(),
                            st["shards"].is_null() ? "" : "  [splits into shards]");
            }
            std::printf("outputs:");
            for (const auto& o : (*plan)["outputs"])
                std::printf(" %s", o.get<std::string>().c_str());
            std::printf(
                "\nmemory: '(later)' = estimated once the stages it depends on are "
                "built\n");
            return kExitOk;
        };
    });
}

}  // namespace nav::navbake
