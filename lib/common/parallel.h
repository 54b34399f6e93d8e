// The one worker loop of the bake stages: fixed task indices handed out from a shared counter, so
// a stage whose tasks write disjoint outputs gives the same result at any thread count.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "lib/common/context.h"
#include "lib/common/result.h"

namespace nav {

// The one place that turns a requested worker count into a real one: requested > 0 is used as
// given; 0 (or less) means every hardware thread, at least 1. Outputs never depend on the result.
int resolveThreads(int requested);

// Thrown by a task to stop the stage as cancelled (e.g. after checking Context::cancelled()).
struct StageCancelled {};

// The one worker loop: runs task(index, worker) for index 0..count-1 on up to `threads` threads,
// the caller's included (worker 0; fewer when threads cannot be started, with the same result).
// Indices are handed out in order from a shared counter, so which worker runs an index varies: a
// task's output must depend on its index alone (per-worker scratch is fine), and callers merge
// results in index order. The first exception thrown by a task is rethrown here once every worker
// has stopped. For the inner loops of a stage; stages themselves use runParallel.
void parallelFor(size_t count, int threads,
                 const std::function<void(size_t index, int worker)>& task);

// Stops and joins helper threads however the scope that started them ends: sets `stop` under
// `mutex`, wakes every waiter on `changed` (the threads leave once they see it), joins each.
struct StopAndJoin {
    std::vector<std::thread>& threads;
    std::mutex& mutex;
    std::condition_variable& changed;
    bool& stop;
    ~StopAndJoin();
};

// The error for an exception a worker threw (caught with catch (...)): StageCancelled gives
// ErrorKind::cancelled, std::bad_alloc "out of memory", other exceptions their message
// (ErrorKind::internal), each prefixed with `stage`.
Error errorFromException(std::string_view stage, std::exception_ptr exception);

// parallelFor with the context: runs tasks 0..count-1 on up to `threads` threads (the caller's
// included; fewer when threads cannot be started, with the same result). Only the calling thread
// reports progress, as `stage`, advancing `progress_done` by one per task towards `progress_total`.
// Stops handing out tasks when the context is cancelled or a task throws: StageCancelled gives
// ErrorKind::cancelled, std::bad_alloc "out of memory", other exceptions their message
// (ErrorKind::internal).
Status runParallel(std::string_view stage, size_t count, int threads, Context& context,
                   uint64_t& progress_done, uint64_t progress_total,
                   const std::function<void(size_t)>& task);
// runParallel whose tasks also get the worker running them (0 .. threads-1), for per-worker
// scratch; as with parallelFor, a task's output must depend on its index alone.
Status runParallelWorkers(std::string_view stage, size_t count, int threads, Context& context,
                          uint64_t& progress_done, uint64_t progress_total,
                          const std::function<void(size_t index, int worker)>& task);

// What a dynamic loop's `pick` gives a worker: a task to run (its id), nothing yet (wait until a
// running task completes), or nothing ever again (every task is done).
struct Pick {
    enum Kind { run, wait, done } kind = done;
    uint64_t id = 0;
    static Pick task(uint64_t id) { return {run, id}; }
    static Pick later() { return {wait, 0}; }
    static Pick finished() { return {done, 0}; }
};

// The worker loop for tasks that depend on one another (a chunk needs its bands, rows must be
// written in order): no barrier between phases, each worker takes whatever can start. On up to
// `threads` threads, the caller's included (worker 0; fewer when threads cannot be started, with
// the same result). `pick(worker)` chooses the next task, `complete(id, worker)` records one that
// ran; both are called under the loop's lock, so they may share plain state. `run(id, worker)`
// runs the task outside it; a non-ok Status, a thrown exception (as runParallelWorkers: cancelled,
// out of memory, internal) or a cancelled context stops the loop, and the first such error is
// returned once every worker has stopped. The caller must make `pick` give a task whenever none
// is running and not all are done (or the loop fails as stalled rather than hanging). Only the
// calling thread reports progress, one step per completed task. A task's output must depend on
// its id alone for results to be the same at any thread count.
Status runDynamic(std::string_view stage, int threads, Context& context, uint64_t& progress_done,
                  uint64_t progress_total, const std::function<Pick(int worker)>& pick,
                  const std::function<Status(uint64_t id, int worker)>& run,
                  const std::function<void(uint64_t id, int worker)>& complete);

// Tunes the heap for bounded stages (glibc; elsewhere a no-op). Called once by the CLI at start.
// - Large blocks (256 KiB and up) come from and go back to the system at once (a fixed mmap
//   threshold instead of the adaptive one, which after the first large block is freed serves
//   later ones from the heap and keeps them there): the streamed stages free their large buffers
//   as they go (voxelize's row windows, an OBJ's index blocks), and the process's peak resident
//   memory follows what they hold.
// - At most one heap arena per core (glibc's default is 8 per core): the parallel loops start
//   their threads anew for each batch (a row of tiles), and with many arenas each batch's
//   threads kept memory of their own in arenas the next batch's did not reuse. A 2-thread tile
//   world stage at city32: 29.6 -> 20.9 MiB, and 40 -> 26 s of CPU time (less heap trimming).
void configureAllocator();

// While alive, the calling thread (and the threads it starts) runs only on otherwise idle CPUs
// (Linux SCHED_IDLE; elsewhere nothing changes): for work done beside a stage's own, so it takes
// the cores that stage leaves idle instead of slowing it. Restores the policy when destroyed.
class IdlePriority {
public:
    IdlePriority();
    ~IdlePriority();
    IdlePriority(const IdlePriority&) = delete;
    IdlePriority& operator=(const IdlePriority&) = delete;

private:
    bool changed_ = false;
    int policy_ = 0;
    int priority_ = 0;
};

}  // namespace nav
