#include "lib/common/parallel.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
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

StopAndJoin::~StopAndJoin() {
    {
        std::lock_guard<std::mutex> lock(mutex);
        stop = true;
    }
    changed.notify_all();
    for (std::thread& t : threads)
        if (t.joinable()) t.join();
}

Error errorFromException(std::string_view stage, std::exception_ptr exception) {
    try {
        std::rethrow_exception(exception);
    } catch (const StageCancelled&) {
        return makeError(ErrorKind::cancelled, "{}: cancelled", stage);
    } catch (const std::bad_alloc&) {
        return makeError(ErrorKind::out_of_memory, "{}: out of memory", stage);
    } catch (const std::exception& e) {
        return makeError(ErrorKind::internal, "{}: {}", stage, e.what());
    } catch (...) {
        return makeError(ErrorKind::internal, "{}: unknown failure in a worker", stage);
    }
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
    } catch (...) {
        return errorFromException(stage, std::current_exception());
    }
    progress_done += count;
    if (context.cancelled()) return makeError(ErrorKind::cancelled, "{}: cancelled", stage);
    context.progress(stage, progress_done, progress_total);
    return {};
}

Status runDynamic(std::string_view stage, int threads, Context& context, uint64_t& progress_done,
                  uint64_t progress_total, const std::function<Pick(int)>& pick,
                  const std::function<Status(uint64_t, int)>& run,
                  const std::function<void(uint64_t, int)>& complete) {
    std::mutex mutex;
    std::condition_variable changed;
    bool stop = false;
    int alive = 0;    // workers in the loop
    int running = 0;  // tasks being run
    // Stalled = nothing running and every worker in the loop told to wait since the last task
    // completed (one told so before it may find work now).
    uint64_t generation = 0;  // tasks completed so far
    int stuck = 0;            // workers told to wait in this generation
    std::vector<uint64_t> waited_at(size_t(std::max(threads, 1)), UINT64_MAX);
    uint64_t completed = 0;
    std::optional<Error> error;
    auto fail = [&](Error e) {  // under the lock
        if (!error) error = std::move(e);
        stop = true;
    };
    auto work = [&](int worker) {
        std::unique_lock<std::mutex> lock(mutex);
        while (!stop) {
            if (context.cancelled()) {
                fail(makeError(ErrorKind::cancelled, "{}: cancelled", stage));
                break;
            }
            const Pick next = pick(worker);
            if (next.kind == Pick::done) break;
            if (next.kind == Pick::wait) {
                if (waited_at[size_t(worker)] != generation) {
                    waited_at[size_t(worker)] = generation;
                    ++stuck;
                }
                if (running == 0 && stuck >= alive) {
                    fail(makeError(ErrorKind::internal, "{}: no task can start (stalled)", stage));
                    break;
                }
                changed.wait(lock);
                continue;
            }
            ++running;
            lock.unlock();
            Status status;
            try {
                status = run(next.id, worker);
            } catch (...) {
                status = errorFromException(stage, std::current_exception());
            }
            lock.lock();
            --running;
            if (!status) {
                fail(status.error());
                break;
            }
            complete(next.id, worker);
            ++completed;
            ++generation;
            stuck = 0;
            changed.notify_all();
            if (worker == 0) {
                const uint64_t done = progress_done + completed;
                lock.unlock();
                context.progress(stage, done, progress_total);
                lock.lock();
            }
        }
        --alive;
        changed.notify_all();
    };
    std::vector<std::thread> workers;
    {
        // The workers start on the lock, so `alive` counts them all before any picks.
        std::lock_guard<std::mutex> lock(mutex);
        for (int i = 1; i < std::max(threads, 1); ++i) {
            try {
                workers.emplace_back(work, i);
            } catch (const std::system_error&) {
                break;  // fewer threads than asked; the result is the same
            }
        }
        alive = int(workers.size()) + 1;
    }
    work(0);
    for (std::thread& worker : workers) worker.join();
    if (error) return *error;
    progress_done += completed;
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

void configureAllocator() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, int(std::max(1u, std::thread::hardware_concurrency())));
#endif
}

}  // namespace nav
