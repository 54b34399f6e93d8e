#include <doctest/doctest.h>

#include <new>
#include <string>

#include "lib/common/memory.h"
#include "lib/common/parallel.h"
#include "lib/common/stage.h"

using namespace nav;

namespace {

// A stage whose estimate is given and whose run does what the test says.
struct FakeStage {
    static constexpr std::string_view kName = "fake";
    struct Params {
        uint64_t estimate = 1000;
        enum class Then { succeed, throw_bad_alloc, worker_bad_alloc } then = Then::succeed;
    };
    struct Inputs {};
    static inline int runs = 0;
    static Result<MemoryEstimate> estimateMemory(const Inputs&, const Params& p) {
        return MemoryEstimate{p.estimate, "3 widgets", "fewer widgets"};
    }
    static Result<StageResult> run(const Inputs&, const Params& p, const std::filesystem::path&,
                                   Context& context) {
        ++runs;
        if (p.then == Params::Then::throw_bad_alloc) throw std::bad_alloc();
        if (p.then == Params::Then::worker_bad_alloc) {
            uint64_t progress = 0;
            Status s = runParallel("fake rows", 4, 2, context, progress, 4, [](size_t i) {
                if (i == 2) throw std::bad_alloc();
            });
            if (!s) return s.error();
        }
        StageResult r;
        r.count("widgets", 3);
        return r;
    }
};

}  // namespace

TEST_SUITE("memory") {
    TEST_CASE("memory sizes: units, shares of physical memory, and what is refused") {
        uint64_t b = 0;
        CHECK(parseMemorySize("512", b));
        CHECK(b == 512);
        CHECK(parseMemorySize("64K", b));
        CHECK(b == 64 * 1024);
        CHECK(parseMemorySize("1.5GiB", b));
        CHECK(b == uint64_t(1.5 * 1073741824.0));
        CHECK(parseMemorySize("2g", b));
        CHECK(b == (uint64_t(2) << 30));
        CHECK(parseMemorySize("300MB", b));
        CHECK(b == uint64_t(300) << 20);
        REQUIRE(physicalMemoryBytes() > 0);
        CHECK(parseMemorySize("50%", b));
        CHECK(b == uint64_t(double(physicalMemoryBytes()) * 0.5));
        CHECK(defaultMemoryLimit() < physicalMemoryBytes());
        for (const char* bad : {"", "0", "-1", "abc", "12Q", "5 M", "101%", "1e400", "0.1", "K"})
            CHECK_MESSAGE(!parseMemorySize(bad, b), bad);
        CHECK(humanBytes(512) == "512 bytes");
        CHECK(humanBytes(3 << 20) == "3.0 MiB");
    }

    TEST_CASE("a stage over its budget refuses before it runs, naming estimate, limit, advice") {
        Context context;
        FakeStage::runs = 0;
        FakeStage::Params p;
        p.estimate = uint64_t(3) << 20;
        context.setMemoryLimit(uint64_t(1) << 20);
        auto refused = runWithinBudget<FakeStage>({}, p, "out", context);
        REQUIRE_FALSE(refused.ok());
        CHECK(FakeStage::runs == 0);
        CHECK(refused.error().kind == ErrorKind::out_of_memory);
        const std::string& m = refused.error().message;
        CHECK(m.find("the fake stage needs an estimated 3.0 MiB (3 widgets)") != std::string::npos);
        CHECK(m.find("above the memory limit 1.0 MiB") != std::string::npos);
        CHECK(m.find("fewer widgets, or raise --max-memory") != std::string::npos);
        // Within the budget, and with no budget, it runs.
        context.setMemoryLimit(uint64_t(4) << 20);
        CHECK(runWithinBudget<FakeStage>({}, p, "out", context).ok());
        context.setMemoryLimit(0);
        CHECK(runWithinBudget<FakeStage>({}, p, "out", context).ok());
        CHECK(FakeStage::runs == 2);
    }

    TEST_CASE("memory that runs out anyway is an error naming the stage, never a bare bad_alloc") {
        Context context;
        context.setMemoryLimit(uint64_t(1) << 30);
        for (auto then : {FakeStage::Params::Then::throw_bad_alloc,
                          FakeStage::Params::Then::worker_bad_alloc}) {
            FakeStage::Params p;
            p.then = then;
            auto result = runWithinBudget<FakeStage>({}, p, "out", context);
            REQUIRE_FALSE(result.ok());
            CHECK(result.error().kind == ErrorKind::out_of_memory);
            CHECK(result.error().message.find("the fake stage ran out of memory (estimated "
                                              "1000 bytes (3 widgets); memory limit 1.0 GiB") !=
                  std::string::npos);
            CHECK(result.error().message.find("fewer widgets") != std::string::npos);
        }
    }
}
