#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/navbake/cli.h"

namespace nav::navbake {

bool parseXYZ(const std::string& text, float out[3]) {
    float v[3];
    char extra;
    if (std::sscanf(text.c_str(), "%f,%f,%f%c", &v[0], &v[1], &v[2], &extra) != 3) return false;
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) return false;
    std::copy(v, v + 3, out);
    return true;
}

bool parseBox(const std::string& text, geometry::Bounds& box) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos) return false;
    return parseXYZ(text.substr(0, colon), box.min.data()) &&
           parseXYZ(text.substr(colon + 1), box.max.data());
}

CliContext::CliContext(const GlobalOptions& options) : options_(options) {
    tty_ = ::isatty(STDERR_FILENO) != 0 && options.log_format == LogFormat::text;
    auto logger = spdlog::stderr_logger_st("navbake");
    logger->set_pattern(options.log_format == LogFormat::json ? "%v" : "%^%l%$: %v");
    logger->set_level(options.quiet     ? spdlog::level::warn
                      : options.verbose ? spdlog::level::debug
                                        : spdlog::level::info);
    spdlog::set_default_logger(logger);
}

CliContext::~CliContext() {
    std::lock_guard<std::mutex> lock(mutex_);
    clearProgressLine();
}

void CliContext::clearProgressLine() {
    if (progress_shown_) {
        std::fputs("\r\033[K", stderr);
        progress_shown_ = false;
    }
}

namespace {
spdlog::level::level_enum toSpdlog(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return spdlog::level::debug;
        case LogLevel::info: return spdlog::level::info;
        case LogLevel::warn: return spdlog::level::warn;
        case LogLevel::error: return spdlog::level::err;
    }
    return spdlog::level::info;
}
const char* levelName(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return "debug";
        case LogLevel::info: return "info";
        case LogLevel::warn: return "warning";
        case LogLevel::error: return "error";
    }
    return "info";
}
}  // namespace

void CliContext::log(LogLevel level, std::string_view message) {
    std::lock_guard<std::mutex> lock(mutex_);
    write(level, message, {});
}

void CliContext::event(LogLevel level, std::string_view message, const LogFields& fields) {
    std::lock_guard<std::mutex> lock(mutex_);
    write(level, message, fields);
}

std::string jsonLogLine(std::string_view level, std::string_view message, const LogFields& fields) {
    const auto now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    nlohmann::ordered_json line = {
        {"time", now}, {"level", std::string(level)}, {"message", std::string(message)}};
    for (const auto& [key, value] : fields)
        std::visit([&, &key = key](const auto& v) { line[key] = v; }, value);
    return line.dump();
}

void CliContext::write(LogLevel level, std::string_view message, const LogFields& fields) {
    const auto spd_level = toSpdlog(level);
    if (!spdlog::default_logger()->should_log(spd_level)) return;
    clearProgressLine();
    if (options_.log_format == LogFormat::json)
        spdlog::log(spd_level, "{}", jsonLogLine(levelName(level), message, fields));
    else
        spdlog::log(spd_level, "{}", message);
}

// "12 s", "3 min 05 s", "2 h 10 min".
std::string formatDuration(double seconds) {
    const uint64_t s = uint64_t(std::max(0.0, seconds) + 0.5);
    if (s < 60) return fmt::format("{} s", s);
    if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
    return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

void CliContext::progress(std::string_view stage, uint64_t done, uint64_t total) {
    if (options_.quiet) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    const bool finished = done >= total;
    // Time left, from the rate since this stage's first report (after a second of it).
    std::string eta;
    {
        auto [it, fresh] = started_.try_emplace(std::string(stage), now, done);
        if (!fresh && done < it->second.second) it->second = {now, done};  // the stage restarted
        const double elapsed = std::chrono::duration<double>(now - it->second.first).count();
        const uint64_t since = done - it->second.second;
        if (!finished && elapsed >= 1 && since > 0)
            eta = ", " + formatDuration(elapsed / double(since) * double(total - done)) + " left";
        if (finished) started_.erase(it);
    }
    if (tty_) {
        if (!finished && now - last_progress_ < std::chrono::milliseconds(100)) return;
        last_progress_ = now;
        const double fraction = total == 0 ? 1.0 : double(done) / double(total);
        const int width = 30;
        const int filled = int(fraction * width);
        std::fprintf(stderr, "\r\033[K%.*s [%s%s] %3d%% (%llu/%llu%s)", int(stage.size()),
                     stage.data(), std::string(size_t(filled), '#').c_str(),
                     std::string(size_t(width - filled), '.').c_str(), int(fraction * 100),
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                     eta.c_str());
        progress_shown_ = !finished;
        if (finished) std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        return;
    }
    // Not a terminal: a log line at most every 2 seconds.
    if (last_progress_ == std::chrono::steady_clock::time_point{}) last_progress_ = now;
    if (finished || now - last_progress_ < std::chrono::seconds(2)) return;
    last_progress_ = now;
    write(LogLevel::info,
          fmt::format("{}: {}/{} ({:.0f}%{})", stage, done, total,
                      total == 0 ? 100.0 : 100.0 * double(done) / double(total), eta),
          {{"event", std::string("progress")},
           {"stage", std::string(stage)},
           {"done", int64_t(done)},
           {"total", int64_t(total)}});
}

int reportFailure(Context& context, const Error& error) {
    const int code = error.kind == ErrorKind::usage ? kExitUsage : kExitFailure;
    context.event(LogLevel::error, error.message,
                  {{"event", std::string(error.kind == ErrorKind::usage ? "usage" : "error")},
                   {"exit", int64_t(code)}});
    return code;
}

}  // namespace nav::navbake

namespace nav::navbake {

bool parseShard(const std::string& text, uint32_t& index, uint32_t& count) {
    unsigned k = 0, n = 0;
    char extra;
    if (std::sscanf(text.c_str(), "%u/%u%c", &k, &n, &extra) != 2 || n == 0 || k >= n) return false;
    index = k;
    count = n;
    return true;
}

void printStageResult(Context& context, const StageResult& result) {
    for (const std::string& line : result.summary) context.info("{}", line);
    for (const std::string& warning : result.warnings) context.warn("{}", warning);
}

}  // namespace nav::navbake
