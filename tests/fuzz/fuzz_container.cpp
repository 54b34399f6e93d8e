// Fuzz target: the container reader shared by navrt and the bake side (formats/container.h):
// header and section table, head-only parsing (a file whose last sections stay on disk), kind
// checks, checksums, and decoding of every codec, whole and streamed.
#include <cstdint>
#include <cstring>
#include <vector>

#include "formats/container.h"
#include "tests/fuzz/fuzz_support.h"

NAVBAKE_FUZZ_CONTAINER_MUTATOR()

namespace fmt = nav::formats;

namespace {

using nav::fuzz::g_sink;

class MemoryBytes : public fmt::StoredBytes {
public:
    MemoryBytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    bool read(uint64_t offset, uint8_t* dst, size_t size) override {
        if (offset > size_ || size > size_ - offset) return false;
        std::copy(data_ + offset, data_ + offset + size, dst);
        return true;
    }

private:
    const uint8_t* data_;
    size_t size_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fmt::Container c;
    for (uint32_t tail = 1; tail <= 2; ++tail) {
        // The head alone: everything up to the first tail section, which stays "on disk".
        fmt::Container head;
        if (!fmt::parseContainerTable(data, size, size, head) && head.section_count >= tail) {
            const size_t head_size = size_t(head.sections[head.section_count - tail].offset);
            if (head_size <= size)
                g_sink += !fmt::parseContainerHead(data, head_size, size, head, tail);
        }
    }
    if (fmt::parseContainer(data, size, c)) return 0;
    for (uint32_t kind : {fmt::fourcc("GEOM"), fmt::fourcc("VOXL"), fmt::fourcc("GRPH"),
                          fmt::fourcc("NAVA"), c.kind})
        g_sink += !fmt::checkKind(c, kind, 2);
    MemoryBytes stored(data, size);
    for (uint32_t i = 0; i < c.section_count; ++i) {
        const fmt::SectionEntry& e = c.sections[i];
        if (e.raw_size > (uint64_t(64) << 20)) continue;
        std::vector<uint8_t> out(size_t(e.raw_size));
        if (fmt::decodeSection(data, e, out.data(), out.size())) continue;
        // The same section streamed in small pieces must give the same bytes.
        fmt::SectionStream stream(e, stored);
        if (stream.start()) __builtin_trap();  // decodeSection accepted it
        // Pieces of an odd size (whole u32s for delta32) cross zstd's block boundaries.
        std::vector<uint8_t> piece(e.codec == fmt::Codec::zstd_delta32 ? 4092 : 4093);
        size_t at = 0;
        while (at < out.size()) {
            const size_t n = std::min(piece.size(), out.size() - at);
            if (stream.read(piece.data(), n)) __builtin_trap();
            if (std::memcmp(piece.data(), out.data() + at, n) != 0) __builtin_trap();
            at += n;
        }
        if (stream.finish()) __builtin_trap();
    }
    return 0;
}
