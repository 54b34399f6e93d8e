#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace nav {

int resolveThreads(int requested) {
    return requested > 0 ? requested : int(std::max(1u, std::thread::hardware_concurrency()));
}

Status runParallel(std::string_view stage, size_t count, int threads, Context& context,
                   uint64_t& progress_done, uint64_t progress_total,
                   const std::function<void(size_t)>& task) {
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> completed{0};
    std::atomic<bool> failed{false};
    std::mutex error_mutex;
    std::exception_ptr error;
    auto take = [&]() -> bool {  // runs one task; false when there is nothing left to do
        if (failed.load(std::memory_order_relaxed) || context.cancelled()) return false;
        const size_t index = next.fetch_add(1, std::memory_order_relaxed);
        if (index >= count) return false;
        try {
            task(index);
        } catch (...) {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
            failed.store(true);
            return false;
        }
        completed.fetch_add(1, std::memory_order_relaxed);
        return true;
    };
    std::vector<std::thread> workers;
    const size_t wanted = std::min<size_t>(size_t(std::max(threads, 1)), count);
    for (size_t i = 1; i < wanted; ++i) {
        try {
            workers.emplace_back([&] {
                while (take()) continue;
            });
        } catch (const std::system_error&) {
            break;  // fewer threads than asked; the result is the same
        }
    }
    while (take()) context.progress(stage, progress_done + completed.load(), progress_total);
    for (std::thread& worker : workers) worker.join();
    progress_done += count;
    if (error) {
        try {
            std::rethrow_exception(error);
        } catch (const StageCancelled&) {
            return makeError(ErrorKind::cancelled, "{}: cancelled", stage);
        } catch (const std::bad_alloc&) {
            return makeError(ErrorKind::internal, "{}: out of memory", stage);
        } catch (const std::exception& e) {
            return makeError(ErrorKind::internal, "{}: {}", stage, e.what());
        } catch (...) {
            return makeError(ErrorKind::internal, "{}: unknown failure in a worker", stage);
        }
    }
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "{}: cancelled", stage);
    context.progress(stage, progress_done, progress_total);
    return {};
}

}  // namespace nav
