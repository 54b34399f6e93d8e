// Memory budgets for bakes. Every stage estimates its peak memory from its inputs' headers before
// it allocates anything large (S::estimateMemory, see stage.h), and refuses with a clear error
// when the estimate is above the budget (--max-memory, default a fraction of physical memory):
// the estimate, the limit and what to change, instead of a bare bad_alloc halfway through.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lib/common/result.h"

namespace nav {

// A stage's estimated peak, on top of what the process holds before the stage starts.
struct MemoryEstimate {
    uint64_t bytes = 0;
    std::string basis;   // what it follows from: "2.1 M spans, 0.8 M walkable"
    std::string advice;  // what lowers it: "a larger cell size, bake bounds or world tiles"
};

// What every stage's process holds besides its own data (code, libraries, allocator, log): the
// base of every estimate. The models' per-item coefficients were measured with peak RSS on the
// shared meshes and maps and generated towns, cities and towers (README, "Memory budgets"), and
// rounded up: `make bench` prints estimate / measured per stage.
inline constexpr uint64_t kStageBaseBytes = uint64_t(16) << 20;

// The decoded size of every section of a container (its table alone; nothing is decompressed).
// Errors name the file.
Result<uint64_t> containerRawBytes(const std::filesystem::path& path);

// "1.5 GiB", "12.0 MiB", "512 bytes".
std::string humanBytes(uint64_t bytes);

// Physical memory, or the cgroup's memory limit when that is lower (containers, CI runners).
uint64_t physicalMemoryBytes();

// The default budget: this fraction of physicalMemoryBytes().
inline constexpr double kDefaultMemoryFraction = 0.8;
uint64_t defaultMemoryLimit();

// "512M", "2G", "1.5GiB", "800K", "123" (bytes), or "75%" (of physical memory). False when the
// text is none of these, is zero or overflows.
bool parseMemorySize(std::string_view text, uint64_t& bytes);

// The lower of two limits, 0 meaning none (a stage's budget and a table's own limit).
inline uint64_t tighterLimit(uint64_t a, uint64_t b) {
    return a == 0 ? b : b == 0 ? a : (a < b ? a : b);
}

// "<what> needs an estimated X (<basis>), above the memory limit Y (--max-memory): <advice>, or
// raise --max-memory". Success when limit is 0 (no limit) or the estimate fits.
Status checkMemoryBudget(std::string_view what, const MemoryEstimate& estimate, uint64_t limit);

// The error for a std::bad_alloc that escaped a stage anyway (the estimate was too low, or other
// processes took the memory): names the stage, the estimate and the limit.
Error outOfMemoryError(std::string_view what, const MemoryEstimate& estimate, uint64_t limit);

}  // namespace nav
