// SpillStore (lib/common/file_io.h): the spill file beside an output that the world stages and
// voxelize's blocks of columns append to and read back from.
#include <doctest/doctest.h>

#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "lib/common/file_io.h"
#include "tests/test_support.h"

using namespace nav;

namespace {
size_t spillFiles(const std::filesystem::path& dir) {
    size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        n += entry.path().filename().string().rfind(".out.world.parts-", 0) == 0;
    return n;
}
}  // namespace

TEST_SUITE("common") {
    TEST_CASE("a file lock is held once, names its holder's pid and goes with its holder") {
        test::TempDir dir;
        const std::filesystem::path path = dir / "out.lock";
        auto first = FileLock::acquire(path, "test build");
        REQUIRE(first.ok());
        auto second = FileLock::acquire(path, "test build");
        REQUIRE_FALSE(second.ok());
        CHECK(second.error().message.find("another test build holds the lock") !=
              std::string::npos);
        CHECK(second.error().message.find("(pid " + std::to_string(::getpid()) + ")") !=
              std::string::npos);
        first->reset();
        auto third = FileLock::acquire(path, "test build");
        CHECK(third.ok());
        auto bad = FileLock::acquire(dir / "missing" / "x.lock", "test build");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find("cannot open the lock file") != std::string::npos);
    }

    TEST_CASE(
        "SpillStore: appends from several threads read back exactly, and the file goes with it") {
        test::TempDir dir;
        // A killed process's spill (a pid that is gone) is removed when the next one is made.
        test::writeText(dir / ".out.world.parts-2147483646-0", "left over");
        {
            auto spill = SpillStore::beside(dir / "out.world", "parts");
            REQUIRE(spill.ok());
            CHECK_FALSE(std::filesystem::exists(dir / ".out.world.parts-2147483646-0"));
            CHECK(spillFiles(dir.path()) == 1);
            // Four threads append 200 blocks each, block k of thread t holding k + 1 bytes of
            // value t * 50 + k % 50.
            std::vector<std::vector<uint64_t>> at(4, std::vector<uint64_t>(200));
            std::vector<std::thread> threads;
            for (int t = 0; t < 4; ++t)
                threads.emplace_back([&, t] {
                    for (int k = 0; k < 200; ++k) {
                        const std::vector<uint8_t> block(size_t(k) + 1, uint8_t(t * 50 + k % 50));
                        REQUIRE((*spill)->append(block, at[size_t(t)][size_t(k)]).ok());
                    }
                });
            for (std::thread& t : threads) t.join();
            CHECK((*spill)->size() == 4 * (200 * 201 / 2));
            for (int t = 0; t < 4; ++t)
                for (int k = 0; k < 200; ++k) {
                    std::vector<uint8_t> back(size_t(k) + 1, 0xEE);
                    REQUIRE(
                        (*spill)->read(at[size_t(t)][size_t(k)], back.data(), back.size()).ok());
                    CHECK(back == std::vector<uint8_t>(size_t(k) + 1, uint8_t(t * 50 + k % 50)));
                }
            // Reading past the end is an error naming the file, not garbage.
            uint8_t byte = 0;
            auto past = (*spill)->read((*spill)->size(), &byte, 1);
            REQUIRE_FALSE(past.ok());
            CHECK(past.error().message.find(".out.world.parts-") != std::string::npos);
        }
        CHECK(spillFiles(dir.path()) == 0);
        // A folder that cannot be written: a clear error.
        auto nowhere = SpillStore::beside(dir / "missing" / "out.world", "parts");
        REQUIRE_FALSE(nowhere.ok());
        CHECK(nowhere.error().message.find("cannot create a temporary file") != std::string::npos);
    }
}
