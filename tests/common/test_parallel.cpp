#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lib/common/parallel.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

using namespace nav;

TEST_SUITE("common") {
    TEST_CASE("runParallelWorkers: every task once, on a worker in range, progress to the end") {
        for (int threads : {1, 2, 5}) {
            struct Progress : Context {
                uint64_t last = 0, total = 0;
                void progress(std::string_view, uint64_t done, uint64_t of) override {
                    last = done;
                    total = of;
                }
            } context;
            std::vector<std::atomic<int>> runs(200);
            std::vector<int> worker_of(200, -1);
            uint64_t progress = 0;
            const Status s = runParallelWorkers("test", runs.size(), threads, context, progress,
                                                runs.size(), [&](size_t i, int worker) {
                                                    ++runs[i];
                                                    worker_of[i] = worker;
                                                });
            REQUIRE(s.ok());
            for (size_t i = 0; i < runs.size(); ++i) {
                CHECK(runs[i] == 1);
                CHECK(worker_of[i] >= 0);
                CHECK(worker_of[i] < threads);
            }
            CHECK(progress == runs.size());
            CHECK(context.last == runs.size());
            CHECK(context.total == runs.size());
        }
    }

    TEST_CASE("runParallelWorkers: a failing task or a cancelled context stops the loop") {
        Context context;
        uint64_t progress = 0;
        const Status failed =
            runParallelWorkers("test", 50, 2, context, progress, 50, [](size_t i, int) {
                if (i == 7) throw std::runtime_error("boom");
            });
        REQUIRE_FALSE(failed.ok());
        CHECK(failed.error().message == "test: boom");
        context.requestCancel();
        std::atomic<int> ran{0};
        const Status cancelled =
            runParallelWorkers("test", 50, 2, context, progress, 50, [&](size_t, int) { ++ran; });
        REQUIRE_FALSE(cancelled.ok());
        CHECK(cancelled.error().kind == ErrorKind::cancelled);
        CHECK(ran == 0);
    }

    TEST_CASE("runDynamic: tasks start only when picked, in the order the picker allows") {
        // A chain: "make" i may start once make i-1 completed; "use" i (only on worker 0, in
        // order) once make i completed. The uses must see every make done and come in order.
        for (int threads : {1, 2, 5}) {
            struct Progress : Context {
                uint64_t last = 0;
                void progress(std::string_view, uint64_t done, uint64_t) override { last = done; }
            } context;
            constexpr uint64_t kCount = 60;
            std::vector<uint8_t> made(kCount, 0);  // written by runs, read under the lock
            std::vector<uint64_t> used;
            std::vector<int> use_worker;
            uint64_t next_make = 0, made_prefix = 0, next_use = 0;
            bool using_now = false;
            std::atomic<int> concurrent{0}, most{0};
            uint64_t progress = 0;
            const Status s = runDynamic(
                "test", threads, context, progress, 2 * kCount,
                [&](int worker) -> Pick {
                    if (next_use == kCount) return Pick::finished();
                    if (worker == 0 && !using_now && next_use < made_prefix) {
                        using_now = true;
                        return Pick::task(2 * next_use + 1);
                    }
                    if (next_make < kCount && next_make <= made_prefix)
                        return Pick::task(2 * next_make++);
                    return Pick::later();
                },
                [&](uint64_t id, int worker) -> Status {
                    const int now = ++concurrent;
                    int seen = most.load();
                    while (now > seen && !most.compare_exchange_weak(seen, now)) {
                    }
                    std::this_thread::sleep_for(std::chrono::microseconds(200));
                    if (id % 2 == 1) {
                        CHECK(made[id / 2] == 1);
                        used.push_back(id / 2);
                        use_worker.push_back(worker);
                    }
                    --concurrent;
                    return {};
                },
                [&](uint64_t id, int) {
                    if (id % 2 == 0) {
                        made[id / 2] = 1;
                        while (made_prefix < kCount && made[made_prefix]) ++made_prefix;
                    } else {
                        using_now = false;
                        ++next_use;
                    }
                });
            REQUIRE(s.ok());
            REQUIRE(used.size() == kCount);
            for (uint64_t i = 0; i < kCount; ++i) CHECK(used[i] == i);
            for (int w : use_worker) CHECK(w == 0);
            CHECK(progress == 2 * kCount);
            CHECK(context.last == 2 * kCount);
            CHECK(most <= std::min(threads, 2));  // a make beside a use at most, never two makes
        }
    }

    TEST_CASE("runDynamic: a failing task, a stall or a cancelled context stops the loop") {
        Context context;
        uint64_t progress = 0;
        uint64_t next = 0;
        auto pickAll = [&](int) { return next < 100 ? Pick::task(next++) : Pick::finished(); };
        auto none = [](uint64_t, int) {};
        const Status failed = runDynamic(
            "test", 2, context, progress, 100, pickAll,
            [](uint64_t id, int) -> Status {
                if (id == 7) return makeError(ErrorKind::bad_input, "seven");
                return {};
            },
            none);
        REQUIRE_FALSE(failed.ok());
        CHECK(failed.error().message == "seven");
        next = 0;
        const Status thrown = runDynamic(
            "test", 3, context, progress, 100, pickAll,
            [](uint64_t id, int) -> Status {
                if (id == 9) throw std::runtime_error("boom");
                return {};
            },
            none);
        REQUIRE_FALSE(thrown.ok());
        CHECK(thrown.error().message == "test: boom");
        // Nothing can ever start: an error, not a hang.
        for (int threads : {1, 2, 4}) {
            const Status stalled = runDynamic(
                "test", threads, context, progress, 1, [](int) { return Pick::later(); },
                [](uint64_t, int) -> Status { return {}; }, none);
            REQUIRE_FALSE(stalled.ok());
            CHECK(stalled.error().kind == ErrorKind::internal);
        }
        context.requestCancel();
        next = 0;
        std::atomic<int> ran{0};
        const Status cancelled = runDynamic(
            "test", 2, context, progress, 100, pickAll,
            [&](uint64_t, int) -> Status {
                ++ran;
                return {};
            },
            none);
        REQUIRE_FALSE(cancelled.ok());
        CHECK(cancelled.error().kind == ErrorKind::cancelled);
        CHECK(ran == 0);
    }

    TEST_CASE("errorFromException: cancelled, out of memory, a message, anything else") {
        auto from = [](auto thrown) {
            try {
                throw thrown;
            } catch (...) {
                return errorFromException("stage", std::current_exception());
            }
        };
        const Error cancelled = from(StageCancelled{});
        CHECK(cancelled.kind == ErrorKind::cancelled);
        CHECK(cancelled.message == "stage: cancelled");
        const Error memory = from(std::bad_alloc{});
        CHECK(memory.kind == ErrorKind::out_of_memory);
        CHECK(memory.message == "stage: out of memory");
        const Error message = from(std::runtime_error("a bad thing"));
        CHECK(message.kind == ErrorKind::internal);
        CHECK(message.message == "stage: a bad thing");
        const Error other = from(42);
        CHECK(other.kind == ErrorKind::internal);
        CHECK(other.message == "stage: unknown failure in a worker");
    }

    TEST_CASE("StopAndJoin: waiting helpers are told to stop and joined however a scope ends") {
        std::mutex mutex;
        std::condition_variable changed;
        bool stop = false;
        std::atomic<int> left{0};
        std::vector<std::thread> helpers;
        auto scope = [&] {
            const StopAndJoin join{helpers, mutex, changed, stop};
            for (int i = 0; i < 3; ++i)
                helpers.emplace_back([&] {
                    std::unique_lock<std::mutex> lock(mutex);
                    changed.wait(lock, [&] { return stop; });
                    ++left;
                });
            throw std::runtime_error("the scope ends early");
        };
        CHECK_THROWS_AS(scope(), std::runtime_error);
        CHECK(stop);
        CHECK(left == 3);
        for (const std::thread& t : helpers) CHECK_FALSE(t.joinable());
    }

    TEST_CASE("IdlePriority: the thread runs at idle priority while it lives") {
#if defined(__linux__) && defined(SCHED_IDLE)
        std::thread t([] {
            int policy = -1;
            sched_param param{};
            {
                const IdlePriority idle;
                REQUIRE(pthread_getschedparam(pthread_self(), &policy, &param) == 0);
                CHECK(policy == SCHED_IDLE);
            }
            // Back to the policy it had (restoring may need privileges; then it stays idle).
            REQUIRE(pthread_getschedparam(pthread_self(), &policy, &param) == 0);
            CHECK((policy == SCHED_OTHER || policy == SCHED_IDLE));
        });
        t.join();
#else
        MESSAGE("no SCHED_IDLE on this platform: IdlePriority changes nothing");
#endif
    }
}
