#include "lib/common/parallel.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace nav {

int resolveThreads(int requested) {
    return requested > 0 ? requested : int(std::max(1u, std::thread::hardware_concurrency()));
}

void parallelFor(size_t count, int threads, const std::function<void(size_t, int)>& task) {
    const size_t wanted = std::min<size_t>(size_t(std::max(threads, 1)), count);
    if (wanted <= 1) {
        for (size_t i = 0; i < count; ++i) task(i, 0);
        return;
    }
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex error_mutex;
    std::exception_ptr error;
    auto work = [&](int worker) {
        while (!failed.load(std::memory_order_relaxed)) {
            const size_t index = next.fetch_add(1, std::memory_order_relaxed);
            if (index >= count) return;
            try {
                task(index, worker);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                failed.store(true);
            }
        }
    };
    std::vector<std::thread> workers;
    for (size_t i = 1; i < wanted; ++i) {
        try {
            workers.emplace_back(work, int(i));
        } catch (const std::system_error&) {
            break;  // fewer threads than asked; the result is the same
        }
    }
    work(0);
    for (std::thread& worker : workers) worker.join();
    if (error) std::rethrow_exception(error);
}

Status runParallel(std::string_view stage, size_t count, int threads, Context& context,
                   uint64_t& progress_done, uint64_t progress_total,
                   const std::function<void(size_t)>& task) {
    return runParallelWorkers(stage, count, threads, context, progress_done, progress_total,
                              [&](size_t index, int) { task(index); });
}

Status runParallelWorkers(std::string_view stage, size_t count, int threads, Context& context,
                          uint64_t& progress_done, uint64_t progress_total,
                          const std::function<void(size_t, int)>& task) {
    std::atomic<uint64_t> completed{0};
    try {
        parallelFor(count, threads, [&](size_t index, int worker) {
            if (context.cancelled()) throw StageCancelled{};
            task(index, worker);
            const uint64_t done = completed.fetch_add(1, std::memory_order_relaxed) + 1;
            if (worker == 0) context.progress(stage, progress_done + done, progress_total);
        });
    } catch (const StageCancelled&) {
        return makeError(ErrorKind::cancelled, "{}: cancelled", stage);
    } catch (const std::bad_alloc&) {
        return makeError(ErrorKind::internal, "{}: out of memory", stage);
    } catch (const std::exception& e) {
        return makeError(ErrorKind::internal, "{}: {}", stage, e.what());
    } catch (...) {
        return makeError(ErrorKind::internal, "{}: unknown failure in a worker", stage);
    }
    progress_done += count;
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "{}: cancelled", stage);
    context.progress(stage, progress_done, progress_total);
    return {};
}

IdlePriority::IdlePriority() {
#if defined(__linux__) && defined(SCHED_IDLE)
    sched_param param{};
    if (pthread_getschedparam(pthread_self(), &policy_, &param) != 0) return;
    priority_ = param.sched_priority;
    sched_param idle{};
    idle.sched_priority = 0;
    changed_ = pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) == 0;
#endif
}

IdlePriority::~IdlePriority() {
#if defined(__linux__) && defined(SCHED_IDLE)
    if (!changed_) return;
    sched_param param{};
    param.sched_priority = priority_;
    pthread_setschedparam(pthread_self(), policy_, &param);
#endif
}

void returnLargeBlocksToSystem() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

}  // namespace nav
