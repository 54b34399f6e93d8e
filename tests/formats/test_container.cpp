#include <doctest/doctest.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/bytes.h"
#include "formats/container.h"
#include "formats/container_writer.h"
#include "formats/xxhash64.h"
#include "tests/test_support.h"

using namespace nav::formats;

namespace {

constexpr uint32_t kTestKind = fourcc("TEST");

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint8_t((i / 7) * seed + (i % 3));
    return v;
}

// A monotone u32 array, as CSR offsets are.
std::vector<uint8_t> offsets() {
    ByteWriter w;
    uint32_t value = 0;
    for (uint32_t i = 0; i < 3000; ++i) w.u32(value += 1 + (i * 7919) % 5);
    return w.take();
}

std::vector<uint8_t> sampleContainer() {
    ContainerWriter writer(kTestKind, 3);
    writer.add(fourcc("AAAA"), pattern(5000, 3));        // compressible -> zstd
    writer.add(fourcc("BBBB"), {1, 2, 3}, Codec::raw);   // tiny, raw
    writer.add(fourcc("CCCC"), std::vector<uint8_t>{});  // empty
    writer.add(fourcc("DDDD"), pattern(777, 11), Codec::raw);
    writer.add(fourcc("EEEE"), offsets(), Codec::zstd_delta32);
    std::vector<uint8_t> out;
    std::string error;
    REQUIRE(writer.finish(out, error));
    return out;
}

// An input fuzz_container once failed on (tests/fuzz/regressions/container/).
std::vector<uint8_t> containerRegression(const std::string& name) {
    const std::vector<uint8_t> bytes = nav::test::readBytes(
        std::filesystem::path(NAVBAKE_TEST_DATA) / "../fuzz/regressions/container" / name);
    REQUIRE_FALSE(bytes.empty());
    return bytes;
}

// The window a zstd frame's header declares (RFC 8878 Window_Descriptor); 0 for a
// single-segment frame (whose window is its content).
uint64_t declaredWindow(const uint8_t* frame) {
    if ((frame[4] & 0x20) != 0) return 0;
    const uint64_t base = uint64_t(1) << (10 + (frame[5] >> 3));
    return base + base / 8 * (frame[5] & 7);
}

// Section `e` of `file` read through SectionStream in pieces of `piece` bytes into `out` (sized
// to its raw size): the first error of start, a read or finish.
Error readStreamed(const uint8_t* file, const SectionEntry& e, size_t piece,
                   std::vector<uint8_t>& out) {
    out.assign(size_t(e.raw_size), 0);
    SectionStream stream(file, e);
    if (Error error = stream.start()) return error;
    for (size_t at = 0; at < out.size(); at += piece)
        if (Error error = stream.read(out.data() + at, std::min(piece, out.size() - at)))
            return error;
    return stream.finish();
}

void rewriteHeaderChecksum(std::vector<uint8_t>& bytes) {
    const uint32_t count = loadLe32(bytes.data() + 20);
    storeLe64(bytes.data() + 40, headerChecksum(bytes.data(), count * kSectionEntrySize));
}

}  // namespace

TEST_SUITE("formats") {
    TEST_CASE("container round trip: sections decode to what was written") {
        const std::vector<uint8_t> bytes = sampleContainer();
        Container c;
        REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
        CHECK(c.kind == kTestKind);
        CHECK(c.kind_version == 3);
        REQUIRE(c.section_count == 5);
        CHECK(c.sections[4].codec == Codec::zstd_delta32);
        CHECK(c.sections[4].stored_size < 12000 / 20);
        CHECK(c.sections[0].codec == Codec::zstd);
        CHECK(c.sections[0].stored_size < 5000);
        CHECK(c.sections[1].codec == Codec::raw);
        CHECK(c.sections[2].raw_size == 0);
        const std::vector<uint8_t> expected[5] = {
            pattern(5000, 3), {1, 2, 3}, {}, pattern(777, 11), offsets()};
        for (uint32_t i = 0; i < 5; ++i) {
            CHECK(c.sections[i].offset % kSectionAlignment == 0);
            std::vector<uint8_t> out(c.sections[i].raw_size);
            CHECK_FALSE(decodeSection(bytes.data(), c.sections[i], out.data(), out.size()));
            CHECK(out == expected[i]);
        }
        CHECK(c.find(fourcc("DDDD")) == 3);
        CHECK(c.find(fourcc("ZZZZ")) == -1);
    }

    TEST_CASE("container writing is deterministic") {
        CHECK(sampleContainer() == sampleContainer());
    }

    TEST_CASE("a section's own zstd level is used for it alone, and decodes the same") {
        // Structured, compressible data where the fastest and the strongest levels differ.
        std::vector<uint8_t> data;
        uint32_t x = 12345;
        for (int i = 0; i < 60000; ++i) {
            x = x * 1103515245u + 12345u;
            data.push_back(uint8_t((i % 64) < 40 ? (i / 64) & 0xFF : (x >> 24) & 0x0F));
        }
        auto make = [&](int section_level) {
            ContainerWriter writer(kTestKind, 1);
            writer.setCompressionLevel(19);
            writer.add(fourcc("AAAA"), data, Codec::zstd, section_level);
            writer.add(fourcc("BBBB"), data);
            std::vector<uint8_t> out;
            std::string error;
            REQUIRE(writer.finish(out, error));
            return out;
        };
        const std::vector<uint8_t> fast = make(1), writer_level = make(0);
        Container a, b;
        REQUIRE_FALSE(parseContainer(fast.data(), fast.size(), a));
        REQUIRE_FALSE(parseContainer(writer_level.data(), writer_level.size(), b));
        // Level 1 for AAAA only; BBBB (the writer's level) is the same in both files.
        CHECK(a.sections[0].stored_size != b.sections[0].stored_size);
        CHECK(a.sections[1].stored_size == b.sections[1].stored_size);
        CHECK(b.sections[0].stored_size == b.sections[1].stored_size);
        for (const auto& [c, bytes] : {std::pair{&a, &fast}, std::pair{&b, &writer_level}})
            for (uint32_t i = 0; i < 2; ++i) {
                std::vector<uint8_t> decoded(c->sections[i].raw_size);
                CHECK_FALSE(
                    decodeSection(bytes->data(), c->sections[i], decoded.data(), decoded.size()));
                CHECK(decoded == data);
            }
    }

    TEST_CASE("container writer rejects a delta-coded section that is not u32s") {
        ContainerWriter writer(kTestKind, 1);
        writer.add(fourcc("AAAA"), {1, 2, 3}, Codec::zstd_delta32);
        std::vector<uint8_t> out;
        std::string error;
        CHECK_FALSE(writer.finish(out, error));
        CHECK(error.find("not an array of u32") != std::string::npos);
    }

    TEST_CASE("container writer rejects duplicate section ids") {
        ContainerWriter writer(kTestKind, 1);
        writer.add(fourcc("AAAA"), {1});
        writer.add(fourcc("AAAA"), {2});
        std::vector<uint8_t> out;
        std::string error;
        CHECK_FALSE(writer.finish(out, error));
        CHECK(error.find("duplicate") != std::string::npos);
    }

    TEST_CASE("each container error has its own code") {
        const std::vector<uint8_t> good = sampleContainer();
        Container c;

        SUBCASE("bad magic") {
            auto bytes = good;
            bytes[1] = 'X';
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code == ErrorCode::bad_magic);
        }
        SUBCASE("newer container version") {
            auto bytes = good;
            storeLe32(bytes.data() + 8, kContainerVersion + 1);
            const Error e = parseContainer(bytes.data(), bytes.size(), c);
            CHECK(e.code == ErrorCode::newer_version);
            CHECK(std::string(e.message).find("newer") != std::string::npos);
        }
        SUBCASE("newer kind version") {
            REQUIRE_FALSE(parseContainer(good.data(), good.size(), c));
            CHECK(checkKind(c, kTestKind, 2).code == ErrorCode::newer_version);
            CHECK_FALSE(checkKind(c, kTestKind, 3));
            CHECK(checkKind(c, fourcc("OTHR"), 3).code == ErrorCode::wrong_kind);
        }
        SUBCASE("header checksum mismatch") {
            auto bytes = good;
            bytes[16] ^= 1;  // kind version, covered by the header checksum
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code ==
                  ErrorCode::checksum_mismatch);
        }
        SUBCASE("section checksum mismatch") {
            auto bytes = good;
            REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
            bytes[c.sections[3].offset + 10] ^= 0x40;
            REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));  // table still fine
            std::vector<uint8_t> out(c.sections[3].raw_size);
            const Error e = decodeSection(bytes.data(), c.sections[3], out.data(), out.size());
            CHECK(e.code == ErrorCode::checksum_mismatch);
            CHECK(e.section == fourcc("DDDD"));
            CHECK(e.offset == c.sections[3].offset);
        }
        SUBCASE("truncated") {
            for (size_t cut :
                 {size_t(0), size_t(10), size_t(63), size_t(64), size_t(100), good.size() - 1}) {
                const Error e = parseContainer(good.data(), cut, c);
                CHECK_MESSAGE(e.code == ErrorCode::truncated, "cut at ", cut);
            }
        }
        SUBCASE("trailing data") {
            auto bytes = good;
            bytes.push_back(0);
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code == ErrorCode::trailing_data);
        }
        SUBCASE("section out of bounds (with a valid header checksum)") {
            auto bytes = good;
            storeLe64(bytes.data() + 64 + 3 * kSectionEntrySize + 16, 1u << 20);  // stored size
            rewriteHeaderChecksum(bytes);
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code ==
                  ErrorCode::bad_section_table);
        }
        SUBCASE("unknown codec (with a valid header checksum)") {
            auto bytes = good;
            storeLe32(bytes.data() + 64 + 4, 9);
            rewriteHeaderChecksum(bytes);
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code == ErrorCode::unknown_codec);
        }
        SUBCASE("overlapping sections (with a valid header checksum)") {
            auto bytes = good;
            REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
            storeLe64(bytes.data() + 64 + 1 * kSectionEntrySize + 8, c.sections[0].offset);
            rewriteHeaderChecksum(bytes);
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code ==
                  ErrorCode::bad_section_table);
        }
        SUBCASE("a zstd section declaring more than its bytes can hold") {
            // Found by fuzz_asset (tests/fuzz/regressions/asset/raw-size-wraps-sum): raw sizes
            // near 2^64 wrapped navrt's sum of section sizes, which then decoded past its buffer.
            auto bytes = good;
            REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
            REQUIRE(c.sections[0].codec == Codec::zstd);
            const uint64_t most = c.sections[0].stored_size * kMaxZstdExpansion;
            for (uint64_t raw : {most + kMaxZstdExpansion, UINT64_MAX - 61483, UINT64_MAX}) {
                storeLe64(bytes.data() + 64 + 24, raw);
                rewriteHeaderChecksum(bytes);
                const Error e = parseContainer(bytes.data(), bytes.size(), c);
                CHECK(e.code == ErrorCode::bad_section_table);
                CHECK(std::string(e.message).find("more than its") != std::string::npos);
            }
            storeLe64(bytes.data() + 64 + 24, most);  // possible: the table accepts it
            rewriteHeaderChecksum(bytes);
            REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
            std::vector<uint8_t> out(4);  // (the frame then says otherwise)
            CHECK(decodeSection(bytes.data(), c.sections[0], out.data(), out.size()).code ==
                  ErrorCode::invalid_argument);
        }
        SUBCASE("non-zero padding between sections") {
            auto bytes = good;
            REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
            uint64_t gap = 0;
            for (uint32_t i = 0; i + 1 < c.section_count && gap == 0; ++i) {
                const uint64_t end = c.sections[i].offset + c.sections[i].stored_size;
                if (end < c.sections[i + 1].offset) gap = end;
            }
            REQUIRE(gap != 0);  // there is padding to corrupt
            bytes[gap] = 0xFF;
            CHECK(parseContainer(bytes.data(), bytes.size(), c).code ==
                  ErrorCode::bad_section_table);
        }
    }

    TEST_CASE("every prefix of a valid container is rejected") {
        const std::vector<uint8_t> good = sampleContainer();
        Container c;
        for (size_t n = 0; n < good.size(); ++n) {
            const Error e = parseContainer(good.data(), n, c);
            REQUIRE_MESSAGE(e.code == ErrorCode::truncated, "prefix ", n);
        }
    }

    TEST_CASE("every single-byte corruption is detected") {
        const std::vector<uint8_t> good = sampleContainer();
        for (size_t offset = 0; offset < good.size(); ++offset) {
            auto bytes = good;
            bytes[offset] ^= 0x5A;
            Container c;
            bool rejected = bool(parseContainer(bytes.data(), bytes.size(), c));
            for (uint32_t i = 0; !rejected && i < c.section_count; ++i) {
                std::vector<uint8_t> out(c.sections[i].raw_size);
                rejected = bool(decodeSection(bytes.data(), c.sections[i], out.data(), out.size()));
            }
            REQUIRE_MESSAGE(rejected, "flip at offset ", offset, " went unnoticed");
        }
    }
}

TEST_CASE("ZstdSectionStream: streamed sections decode like added ones, whole or piece by piece") {
    // 3 MiB: past the held 256 KiB, so the frame is streamed and its content size patched in.
    std::vector<uint8_t> big = pattern(3u << 20, 13);
    std::vector<uint8_t> small = pattern(5000, 3);
    std::vector<uint8_t> values;  // monotone u32s, for zstd+delta32
    {
        ByteWriter w;
        uint32_t v = 0;
        for (uint32_t i = 0; i < 400000; ++i) w.u32(v += i % 3);
        values = w.take();
    }
    ContainerWriter streamed(kTestKind, 1), added(kTestKind, 1);
    ZstdSectionStream s_big(3), s_small(3), s_values(3, true);
    for (size_t i = 0; i < big.size(); i += 65536)  // uneven pieces
        REQUIRE(s_big.write(big.data() + i, std::min<size_t>(65536, big.size() - i)));
    REQUIRE(s_small.write(small.data(), small.size()));
    for (size_t i = 0; i < values.size(); i += 4 * 1000)
        REQUIRE(s_values.write(values.data() + i, std::min<size_t>(4000, values.size() - i)));
    REQUIRE(s_big.addTo(streamed, fourcc("BIGS")));
    REQUIRE(s_small.addTo(streamed, fourcc("SMAL")));
    REQUIRE(s_values.addTo(streamed, fourcc("VALS")));
    added.setCompressionLevel(3);
    added.add(fourcc("SMAL"), small);
    std::vector<uint8_t> a, b;
    std::string error;
    REQUIRE(streamed.finish(a, error));
    REQUIRE(added.finish(b, error));
    Container c;
    REQUIRE_FALSE(parseContainer(a.data(), a.size(), c));
    REQUIRE(c.section_count == 3);
    // Small sections are added as add() would: same stored bytes.
    Container d;
    REQUIRE_FALSE(parseContainer(b.data(), b.size(), d));
    CHECK(c.sections[1].stored_size == d.sections[0].stored_size);
    CHECK(std::memcmp(a.data() + c.sections[1].offset, b.data() + d.sections[0].offset,
                      size_t(d.sections[0].stored_size)) == 0);
    // Whole decoding.
    std::vector<uint8_t> out(big.size());
    CHECK(c.sections[0].codec == Codec::zstd);
    CHECK(c.sections[0].stored_size < big.size());
    REQUIRE_FALSE(decodeSection(a.data(), c.sections[0], out.data(), out.size()));
    CHECK(out == big);
    std::vector<uint8_t> decoded_values(values.size());
    CHECK(c.sections[2].codec == Codec::zstd_delta32);
    REQUIRE_FALSE(
        decodeSection(a.data(), c.sections[2], decoded_values.data(), decoded_values.size()));
    CHECK(decoded_values == values);
    // zstd+delta32 piece by piece, in whole u32s: the running sums carry across pieces.
    SectionStream value_stream(a.data(), c.sections[2]);
    REQUIRE_FALSE(value_stream.start());
    std::vector<uint8_t> value_pieces(values.size());
    CHECK(value_stream.read(value_pieces.data(), 6).code == ErrorCode::invalid_argument);
    for (size_t at = 0, n = 4; at < values.size(); at += n, n = std::min<size_t>(n * 3, 1 << 20))
        REQUIRE_FALSE(value_stream.read(value_pieces.data() + at, std::min(n, values.size() - at)));
    CHECK_FALSE(value_stream.finish());
    CHECK(value_pieces == values);
    // Piece by piece.
    SectionStream stream(a.data(), c.sections[0]);
    REQUIRE_FALSE(stream.start());
    std::vector<uint8_t> pieces;
    for (size_t n : {size_t(1), size_t(100000), size_t(2u << 20)}) {
        std::vector<uint8_t> part(n);
        REQUIRE_FALSE(stream.read(part.data(), n));
        pieces.insert(pieces.end(), part.begin(), part.end());
    }
    CHECK(stream.finish().code == ErrorCode::invalid_argument);  // not all read yet
    std::vector<uint8_t> rest(big.size() - pieces.size());
    REQUIRE_FALSE(stream.read(rest.data(), rest.size()));
    pieces.insert(pieces.end(), rest.begin(), rest.end());
    CHECK(pieces == big);
    uint8_t extra = 0;
    CHECK(stream.read(&extra, 1).code == ErrorCode::invalid_argument);
    CHECK_FALSE(stream.finish());
    // A damaged stored byte fails the checksum before any decoding.
    a[size_t(c.sections[0].offset) + 100] ^= 0x40;
    SectionStream damaged(a.data(), c.sections[0]);
    CHECK(damaged.start().code == ErrorCode::checksum_mismatch);
}

namespace {
// A spill sink and a stored-bytes source over one vector (what a temporary file does).
struct MemoryFile : nav::formats::SpillSink, nav::formats::StoredBytes {
    std::vector<uint8_t> bytes;
    bool fail_reads = false;
    bool writeAt(uint64_t offset, const uint8_t* data, size_t size) override {
        if (bytes.size() < offset + size) bytes.resize(size_t(offset + size));
        std::memcpy(bytes.data() + offset, data, size);
        return true;
    }
    bool readAt(uint64_t offset, uint8_t* data, size_t size) override {
        if (offset + size > bytes.size()) return false;
        std::memcpy(data, bytes.data() + offset, size);
        return true;
    }
    bool read(uint64_t offset, uint8_t* data, size_t size) override {
        return !fail_reads && readAt(offset, data, size);
    }
};
}  // namespace

TEST_CASE(
    "ZstdSectionStream spilled to a sink is a tail with the same bytes, and SectionStream reads "
    "it from a source block by block") {
    // 6 MiB of a poorly compressible pattern: several MiB spilled as they come.
    const std::vector<uint8_t> big = pattern(6u << 20, 29);
    std::vector<uint8_t> values;
    {
        ByteWriter w;
        uint32_t v = 0;
        for (uint32_t i = 0; i < 900000; ++i) w.u32(v += i % 7);
        values = w.take();
    }
    for (const bool delta : {false, true}) {
        CAPTURE(delta);
        const std::vector<uint8_t>& input = delta ? values : big;
        ContainerWriter held(kTestKind, 1), spilled(kTestKind, 1);
        held.add(fourcc("HEAD"), pattern(100, 1), Codec::raw);
        spilled.add(fourcc("HEAD"), pattern(100, 1), Codec::raw);
        ZstdSectionStream a(3, delta), b(3, delta);
        MemoryFile file;
        b.spillTo(file);
        for (size_t i = 0; i < input.size(); i += 40000) {
            const size_t n = std::min<size_t>(40000, input.size() - i);
            REQUIRE(a.write(input.data() + i, n));
            REQUIRE(b.write(input.data() + i, n));
        }
        REQUIRE(a.addTo(held, fourcc("DATA")));
        REQUIRE(b.addTailTo(spilled, fourcc("DATA")));
        REQUIRE(b.tailSize() > 0);
        CHECK(b.tailSize() == file.bytes.size());
        std::vector<uint8_t> whole, head;
        std::string error;
        REQUIRE(held.finish(whole, error));
        REQUIRE(spilled.finish(head, error));
        head.insert(head.end(), file.bytes.begin(), file.bytes.end());
        CHECK(head == whole);  // the head and the spill file make the same file
        // Read back from the file as a source, a block at a time.
        Container c;
        REQUIRE_FALSE(parseContainer(whole.data(), whole.size(), c));
        MemoryFile source;
        source.bytes = whole;
        SectionStream stream(c.sections[1], source);
        REQUIRE_FALSE(stream.start());
        std::vector<uint8_t> out(input.size());
        for (size_t at = 0, n = 4; at < out.size(); at += n, n = std::min<size_t>(n * 5, 3 << 20))
            REQUIRE_FALSE(stream.read(out.data() + at, std::min(n, out.size() - at)));
        CHECK_FALSE(stream.finish());
        CHECK(out == input);
        // A flipped byte: the checksum; a source that cannot read: an I/O error.
        source.bytes[size_t(c.sections[1].offset + c.sections[1].stored_size / 2)] ^= 1;
        SectionStream flipped(c.sections[1], source);
        CHECK(flipped.start().code == ErrorCode::checksum_mismatch);
        source.fail_reads = true;
        SectionStream unreadable(c.sections[1], source);
        CHECK(unreadable.start().code == ErrorCode::io_error);
    }
}

TEST_CASE("a zstd frame is decoded within its window, whole or streamed, in one piece or many") {
    // 3 MiB at level 1: a frame whose declared window (512 KiB) is smaller than its content, the
    // case decodeSection decodes as a stream.
    const std::vector<uint8_t> input = pattern(3u << 20, 17);
    ContainerWriter writer(kTestKind, 1);
    writer.add(fourcc("DATA"), input, Codec::zstd, 1);
    std::vector<uint8_t> bytes;
    std::string error;
    REQUIRE(writer.finish(bytes, error));
    Container c;
    REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
    const SectionEntry& e = c.sections[0];
    const uint8_t* frame = bytes.data() + e.offset;
    const uint64_t window = declaredWindow(frame);
    REQUIRE(window > 0);  // not single-segment: the window is declared
    REQUIRE(window < e.raw_size);
    std::vector<uint8_t> out(input.size());
    REQUIRE_FALSE(decodeSection(bytes.data(), e, out.data(), out.size()));
    CHECK(out == input);
    for (const size_t piece : {out.size(), size_t(4093)}) {
        CAPTURE(piece);
        std::vector<uint8_t> streamed;
        REQUIRE_FALSE(readStreamed(bytes.data(), e, piece, streamed));
        CHECK(streamed == input);
    }

    // Found by fuzz_container (tests/fuzz/regressions/container/zstd-match-beyond-window): a
    // frame declaring a 26 KiB window whose matches reach further back. zstd's one-pass decoder
    // took it, its streaming decoder did not; every way of reading it now refuses it.
    const std::vector<uint8_t> crafted = containerRegression("zstd-match-beyond-window");
    Container bad;
    REQUIRE_FALSE(parseContainer(crafted.data(), crafted.size(), bad));
    REQUIRE(bad.section_count == 1);
    const SectionEntry& b = bad.sections[0];
    std::vector<uint8_t> decoded(size_t(b.raw_size));
    CHECK(decodeSection(crafted.data(), b, decoded.data(), decoded.size()).code ==
          ErrorCode::decompress_failed);
    for (const size_t piece : {decoded.size(), size_t(4093)}) {
        CAPTURE(piece);
        CHECK(readStreamed(crafted.data(), b, piece, decoded).code == ErrorCode::decompress_failed);
    }

    // A section of two frames (the second empty): the one-pass decoder would read both; a
    // section is exactly one frame.
    std::vector<uint8_t> empty_frame(ZSTD_compressBound(0));
    empty_frame.resize(ZSTD_compress(empty_frame.data(), empty_frame.size(), nullptr, 0, 1));
    ContainerWriter two(kTestKind, 1);
    std::vector<uint8_t> stored(frame, frame + e.stored_size);
    stored.insert(stored.end(), empty_frame.begin(), empty_frame.end());
    two.addEncoded(fourcc("DATA"), Codec::zstd, e.raw_size, stored);
    std::vector<uint8_t> two_bytes;
    REQUIRE(two.finish(two_bytes, error));
    Container t;
    REQUIRE_FALSE(parseContainer(two_bytes.data(), two_bytes.size(), t));
    const Error two_frames = decodeSection(two_bytes.data(), t.sections[0], out.data(), out.size());
    CHECK(two_frames.code == ErrorCode::decompress_failed);
    CHECK(std::string(two_frames.message).find("not exactly one zstd frame") != std::string::npos);
}

TEST_CASE("a zstd frame declaring a window far beyond its content decodes streamed as whole") {
    // Found by fuzz_container (tests/fuzz/regressions/container/zstd-window-beyond-content): a
    // frame of 999,132 bytes declaring a 192 MiB window. zstd's one-pass decoder ignores the
    // window; its streaming decoder refused windows over 128 MiB ("Frame requires too much memory
    // for decoding") although its buffers are bounded by the content. Both now decode it.
    const std::vector<uint8_t> bytes = containerRegression("zstd-window-beyond-content");
    Container c;
    REQUIRE_FALSE(parseContainer(bytes.data(), bytes.size(), c));
    REQUIRE(c.section_count == 1);
    const SectionEntry& e = c.sections[0];
    REQUIRE(declaredWindow(bytes.data() + e.offset) > (uint64_t(128) << 20));
    std::vector<uint8_t> whole(size_t(e.raw_size));
    REQUIRE_FALSE(decodeSection(bytes.data(), e, whole.data(), whole.size()));
    for (const size_t piece : {whole.size(), size_t(4093)}) {
        CAPTURE(piece);
        std::vector<uint8_t> streamed;
        REQUIRE_FALSE(readStreamed(bytes.data(), e, piece, streamed));
        CHECK(streamed == whole);
    }
}
