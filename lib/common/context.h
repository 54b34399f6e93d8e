// The bake context: the one channel through which stages log, report progress and learn that
// they should stop. The base class does nothing, so tests pass a plain Context; the CLI passes one
// that forwards to spdlog and draws progress.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nav {

enum class LogLevel { debug, info, warn, error };

// Structured fields of a log event ("stage", "agent", "status", "ms", ...): machine-readable
// logs (`--log-format json`) carry them as keys beside the message; text logs show the message.
using LogValue = std::variant<std::string, int64_t, double, bool>;
using LogFields = std::vector<std::pair<std::string, LogValue>>;

class Context {
public:
    virtual ~Context() = default;

    virtual void log(LogLevel level, std::string_view message) {
        (void)level;
        (void)message;
    }
    // A log line with structured fields; the base class logs the message alone.
    virtual void event(LogLevel level, std::string_view message, const LogFields& fields) {
        (void)fields;
        log(level, message);
    }
    // Long stages call this with done <= total; a UI may throttle it.
    virtual void progress(std::string_view stage, uint64_t done, uint64_t total) {
        (void)stage;
        (void)done;
        (void)total;
    }

    // The memory budget of stages [Units: bytes], 0 = none: each stage refuses to start when its
    // estimate is above it (lib/common/memory.h). The CLI sets it from --max-memory.
    uint64_t memoryLimit() const { return memory_limit_; }
    void setMemoryLimit(uint64_t bytes) { memory_limit_ = bytes; }

    // Long loops check this between chunks and return ErrorKind::cancelled.
    bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }
    void requestCancel() { cancel_.store(true, std::memory_order_relaxed); }

    template <class... Args>
    void debug(fmt::format_string<Args...> format, Args&&... args) {
        log(LogLevel::debug, fmt::format(format, std::forward<Args>(args)...));
    }
    template <class... Args>
    void info(fmt::format_string<Args...> format, Args&&... args) {
        log(LogLevel::info, fmt::format(format, std::forward<Args>(args)...));
    }
    template <class... Args>
    void warn(fmt::format_string<Args...> format, Args&&... args) {
        log(LogLevel::warn, fmt::format(format, std::forward<Args>(args)...));
    }

private:
    std::atomic<bool> cancel_{false};
    uint64_t memory_limit_ = 0;
};

// Logs "<what>: <ms> ms" at debug level when the scope ends.
class ScopedTimer {
public:
    ScopedTimer(Context& context, std::string what)
        : context_(context), what_(std::move(what)), start_(std::chrono::steady_clock::now()) {}
    ~ScopedTimer() {
        const auto elapsed = std::chrono::steady_clock::now() - start_;
        context_.debug("{}: {:.1f} ms", what_,
                       std::chrono::duration<double, std::milli>(elapsed).count());
    }
    ScopedTimer(const ScopedTimer&) = delete;
    ScopedTimer& operator=(const ScopedTimer&) = delete;

private:
    Context& context_;
    std::string what_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace nav
