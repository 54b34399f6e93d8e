#include <doctest/doctest.h>

#include <atomic>
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
