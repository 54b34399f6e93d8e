#include "lib/common/memory.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>

#include "lib/common/file_io.h"

namespace nav {

std::string humanBytes(uint64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    return unit == 0 ? fmt::format("{} bytes", bytes)
                     : fmt::format("{:.1f} {}", value, units[unit]);
}

namespace {

// cgroup v2 (memory.max) or v1 (memory.limit_in_bytes) of this process; 0 when none applies.
uint64_t cgroupLimit() {
    for (const char* path :
         {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
        std::ifstream in(path);
        std::string text;
        if (!(in >> text) || text == "max") continue;
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && value > 0) return value;
    }
    return 0;
}

}  // namespace

Result<uint64_t> containerRawBytes(const std::filesystem::path& path) {
    auto c = loadContainer(path);
    if (!c) return c.error();
    uint64_t total = 0;
    for (uint32_t k = 0; k < c->container.section_count; ++k)
        total += std::min(c->container.sections[k].raw_size, UINT64_MAX - total);  // saturates
    return total;
}

uint64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t physical = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
    const uint64_t cgroup = cgroupLimit();
    if (cgroup > 0 && (physical == 0 || cgroup < physical)) physical = cgroup;
    return physical;
}

uint64_t defaultMemoryLimit() {
    return uint64_t(double(physicalMemoryBytes()) * kDefaultMemoryFraction);
}

bool parseMemorySize(std::string_view text, uint64_t& bytes) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || !std::isfinite(value) || value <= 0) return false;
    std::string unit(end, text.data() + text.size());
    for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
    double scale = 1;
    if (unit == "%") {
        if (value > 100) return false;
        scale = double(physicalMemoryBytes()) / 100;
    } else if (unit.empty() || unit == "B") {
        scale = 1;
    } else {
        static constexpr const char* prefixes = "KMGT";
        const size_t at = unit.size() >= 1 ? std::string_view(prefixes).find(unit[0]) : 0;
        if (at == std::string_view::npos ||
            !(unit.size() == 1 || unit.substr(1) == "B" || unit.substr(1) == "IB"))
            return false;
        scale = std::ldexp(1.0, 10 * int(at + 1));
    }
    const double total = value * scale;
    if (!(total >= 1) || total > 0x1p62) return false;
    bytes = uint64_t(total);
    return true;
}

Status checkMemoryBudget(std::string_view what, const MemoryEstimate& estimate, uint64_t limit) {
    if (limit == 0 || estimate.bytes <= limit) return {};
    return inputError(
        "{} needs an estimated {} ({}), above the memory limit {} (--max-memory; default {:.0f}% "
        "of the {} of physical memory): {}, or raise --max-memory",
        what, humanBytes(estimate.bytes), estimate.basis, humanBytes(limit),
        kDefaultMemoryFraction * 100, humanBytes(physicalMemoryBytes()), estimate.advice);
}

Error outOfMemoryError(std::string_view what, const MemoryEstimate& estimate, uint64_t limit) {
    return makeError(ErrorKind::out_of_memory,
                     "{} ran out of memory (estimated {} ({}); memory limit {}; physical "
                     "memory {}): {}, or free memory for it",
                     what, humanBytes(estimate.bytes), estimate.basis,
                     limit ? humanBytes(limit) : std::string("none"),
                     humanBytes(physicalMemoryBytes()), estimate.advice);
}

}  // namespace nav
