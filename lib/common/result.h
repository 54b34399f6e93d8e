// Errors as values for the offline library: a Result<T> holds either a value or an Error whose
// message already says where (file, object, line or byte offset) and what was expected.
// Errors travel up to tools/, the only place that turns them into exit codes.
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>
#include <variant>

namespace nav {

// What kind of failure, so the CLI can pick the exit code and tests can check the cause.
enum class ErrorKind {
    bad_input,      // the input file or its content is wrong (exit 1)
    io,             // a file could not be read or written (exit 1)
    usage,          // parameters out of range (exit 2)
    cancelled,      // the user interrupted the run
    out_of_memory,  // a stage's memory estimate is above the budget, or memory ran out (exit 1)
    internal,       // a bug or resource failure
};

struct Error {
    ErrorKind kind = ErrorKind::bad_input;
    std::string message;
};

template <class... Args>
Error makeError(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
    return Error{kind, fmt::format(format, std::forward<Args>(args)...)};
}
template <class... Args>
Error inputError(fmt::format_string<Args...> format, Args&&... args) {
    return Error{ErrorKind::bad_input, fmt::format(format, std::forward<Args>(args)...)};
}

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : state_(std::move(value)) {}
    Result(Error error) : state_(std::move(error)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(state_); }
    const T& value() const& { return std::get<0>(state_); }
    T&& value() && { return std::get<0>(std::move(state_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }

    const Error& error() const { return std::get<1>(state_); }

private:
    std::variant<T, Error> state_;
};

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error)), failed_(true) {}
    static Status success() { return {}; }

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return error_; }

private:
    Error error_;
    bool failed_ = false;
};

}  // namespace nav
