#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "tests/test_support.h"

using nav::formats::xxhash64;
using nav::formats::XxHash64;

TEST_SUITE("formats") {
    TEST_CASE("xxhash64 matches the reference vectors") {
        // Vectors published with the xxHash reference implementation.
        CHECK(xxhash64("", 0) == 0xEF46DB3751D8E999ull);
        CHECK(xxhash64("a", 1) == 0xD24EC4F1A98C6E5Bull);
        CHECK(xxhash64("abc", 3) == 0x44BC2CF5AD770999ull);
        const std::string long_text = "Nobody inspects the spammish repetition";
        CHECK(xxhash64(long_text.data(), long_text.size()) == 0xFBCEA83C8A378BF1ull);
    }

    TEST_CASE("xxhash64 streaming equals one-shot for every split point") {
        std::vector<uint8_t> data(300);
        for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 131 + 7);
        for (size_t length : {0, 1, 3, 4, 7, 8, 31, 32, 33, 64, 100, 300}) {
            const uint64_t expected = xxhash64(data.data(), length, 42);
            for (size_t split = 0; split <= length; split += 5) {
                XxHash64 h(42);
                h.update(data.data(), split);
                h.update(data.data() + split, length - split);
                CHECK(h.digest() == expected);
            }
        }
    }

    TEST_CASE("hashFile streams a file larger than its chunk to the one-shot hash") {
        nav::test::TempDir dir;
        std::vector<uint8_t> bytes((size_t(1) << 20) * 2 + 12345);
        uint32_t x = 7;
        for (uint8_t& b : bytes) b = uint8_t((x = x * 1103515245u + 12345u) >> 24);
        REQUIRE(nav::writeFileAtomic(dir / "big.bin", bytes).ok());
        auto h = nav::hashFile(dir / "big.bin");
        REQUIRE(h.ok());
        CHECK(*h == xxhash64(bytes.data(), bytes.size(), 0));
        REQUIRE(nav::writeFileAtomic(dir / "empty.bin", std::vector<uint8_t>{}).ok());
        auto empty = nav::hashFile(dir / "empty.bin");
        REQUIRE(empty.ok());
        CHECK(*empty == xxhash64(nullptr, 0, 0));
        auto missing = nav::hashFile(dir / "missing.bin");
        REQUIRE_FALSE(missing.ok());
        CHECK(missing.error().message.find("missing.bin: cannot open") != std::string::npos);
        CHECK_FALSE(nav::hashFile(dir.path()).ok());
    }
}

TEST_SUITE("formats") {
    TEST_CASE("checkContainerFile checks a container's header and table without its sections") {
        nav::test::TempDir dir;
        nav::formats::ContainerWriter writer(nav::formats::fourcc("TEST"), 1);
        writer.add(nav::formats::fourcc("AAAA"), std::vector<uint8_t>(5000, 7));
        writer.add(nav::formats::fourcc("BBBB"), std::vector<uint8_t>(300, 1),
                   nav::formats::Codec::raw);
        REQUIRE(nav::saveContainer(dir / "good.bin", writer).ok());
        CHECK(nav::checkContainerFile(dir / "good.bin").ok());
        std::vector<uint8_t> bytes = nav::test::readBytes(dir / "good.bin");
        // A flipped byte inside a section: not looked at (the stage reading it verifies it).
        std::vector<uint8_t> flipped = bytes;
        flipped.back() ^= 1;
        REQUIRE(nav::writeFileAtomic(dir / "flipped.bin", flipped).ok());
        CHECK(nav::checkContainerFile(dir / "flipped.bin").ok());
        // Truncated, grown, a table entry changed (header checksum), not there: errors naming it.
        std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 10);
        REQUIRE(nav::writeFileAtomic(dir / "cut.bin", cut).ok());
        std::vector<uint8_t> grown = bytes;
        grown.push_back(0);
        REQUIRE(nav::writeFileAtomic(dir / "grown.bin", grown).ok());
        std::vector<uint8_t> table = bytes;
        table[nav::formats::kHeaderSize + 16] ^= 1;
        REQUIRE(nav::writeFileAtomic(dir / "table.bin", table).ok());
        for (const char* name : {"cut.bin", "grown.bin", "table.bin", "missing.bin"}) {
            CAPTURE(name);
            const nav::Status s = nav::checkContainerFile(dir / name);
            REQUIRE_FALSE(s.ok());
            CHECK(s.error().message.find(name) != std::string::npos);
        }
    }
}
