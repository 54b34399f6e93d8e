#include "tests/fuzz/fuzz_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "formats/bytes.h"
#include "formats/container.h"
#include "formats/container_writer.h"
#include "formats/xxhash64.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace nav::fuzz {
namespace fmt = nav::formats;

uint64_t g_sink = 0;

namespace {

// Sections decode to at most this many bytes each in the mutator (larger ones are kept as they
// are stored, never mutated), so one input cannot make the mutator itself slow.
constexpr size_t kMaxMutatedSection = size_t(4) << 20;

struct Section {
    uint32_t id = 0;
    fmt::Codec codec = fmt::Codec::raw;
    std::vector<uint8_t> bytes;  // decoded
};
struct Decoded {
    uint32_t kind = 0;
    uint32_t kind_version = 0;
    std::vector<Section> sections;
};

bool decodeAll(const uint8_t* data, size_t size, Decoded& out) {
    fmt::Container c;
    if (fmt::parseContainer(data, size, c)) return false;
    out.kind = c.kind;
    out.kind_version = c.kind_version;
    for (uint32_t i = 0; i < c.section_count; ++i) {
        const fmt::SectionEntry& e = c.sections[i];
        if (e.raw_size > kMaxMutatedSection) return false;
        Section s;
        s.id = e.id;
        s.codec = e.codec;
        s.bytes.resize(size_t(e.raw_size));
        if (fmt::decodeSection(data, e, s.bytes.data(), s.bytes.size())) return false;
        out.sections.push_back(std::move(s));
    }
    return true;
}

bool encodeAll(const Decoded& d, std::vector<uint8_t>& out) {
    fmt::ContainerWriter writer(d.kind, d.kind_version);
    writer.setCompressionLevel(1);
    for (const Section& s : d.sections) {
        fmt::Codec codec = s.codec;
        if (codec == fmt::Codec::zstd_delta32 && s.bytes.size() % 4 != 0) codec = fmt::Codec::zstd;
        writer.add(s.id, std::span<const uint8_t>(s.bytes), codec);
    }
    std::string error;
    out.clear();
    return writer.finish(out, error);
}

// One mutation of the decoded containers; false when it did nothing.
bool mutateDecoded(std::vector<Decoded>& all, std::mt19937& rng) {
    std::vector<size_t> with_sections;
    for (size_t i = 0; i < all.size(); ++i)
        if (!all[i].sections.empty()) with_sections.push_back(i);
    const uint32_t action = rng() % 100;
    if (action < 75 && !with_sections.empty()) {
        // A section's decoded bytes, by libFuzzer's own byte mutations.
        Decoded& d = all[with_sections[rng() % with_sections.size()]];
        Section& s = d.sections[rng() % d.sections.size()];
        const size_t size = s.bytes.size();
        const size_t room = std::min(kMaxMutatedSection, size + size / 2 + 64);
        s.bytes.resize(room);
        const size_t n = LLVMFuzzerMutate(s.bytes.data(), size, room);
        s.bytes.resize(n);
        return true;
    }
    Decoded& d = all[rng() % all.size()];
    switch (rng() % 6) {
        case 0:  // drop a section
            if (d.sections.empty()) return false;
            d.sections.erase(d.sections.begin() + std::ptrdiff_t(rng() % d.sections.size()));
            return true;
        case 1:  // swap two sections' order
            if (d.sections.size() < 2) return false;
            std::swap(d.sections[rng() % d.sections.size()], d.sections[rng() % d.sections.size()]);
            return true;
        case 2:  // another kind version (older, newer, or absurd)
            d.kind_version =
                rng() % 4 == 0 ? uint32_t(rng()) : d.kind_version + (rng() % 2 ? 1 : -1);
            return true;
        case 3: {  // another codec for one section
            if (d.sections.empty()) return false;
            d.sections[rng() % d.sections.size()].codec = fmt::Codec(rng() % 3);
            return true;
        }
        case 4: {  // one section's bytes cut short or grown by zeros
            if (d.sections.empty()) return false;
            Section& s = d.sections[rng() % d.sections.size()];
            s.bytes.resize(rng() % 2 ? s.bytes.size() / 2 : s.bytes.size() + 4 * (1 + rng() % 16));
            return true;
        }
        default: {  // a section copied from another container of the input (a tile's into another)
            const Decoded& from = all[rng() % all.size()];
            if (from.sections.empty()) return false;
            const Section& s = from.sections[rng() % from.sections.size()];
            for (Section& t : d.sections)
                if (t.id == s.id) {
                    t.bytes = s.bytes;
                    return true;
                }
            return false;
        }
    }
}

}  // namespace

std::vector<Piece> splitContainers(std::span<const uint8_t> data) {
    std::vector<Piece> pieces;
    size_t at = 0;
    while (data.size() - at >= fmt::kHeaderSize &&
           std::memcmp(data.data() + at, fmt::kMagic, sizeof(fmt::kMagic)) == 0) {
        const uint64_t size = fmt::loadLe64(data.data() + at + 24);
        if (size < fmt::kHeaderSize || size > data.size() - at) break;
        pieces.push_back({at, size_t(size)});
        at += size_t(size);
    }
    return pieces;
}

void fixChecksums(std::span<uint8_t> bytes) {
    for (const Piece& p : splitContainers(bytes)) {
        uint8_t* h = bytes.data() + p.offset;
        const uint32_t count = fmt::loadLe32(h + 20);
        if (count > fmt::kMaxSections ||
            fmt::kHeaderSize + size_t(count) * fmt::kSectionEntrySize > p.size)
            continue;
        for (uint32_t i = 0; i < count; ++i) {
            uint8_t* e = h + fmt::kHeaderSize + size_t(i) * fmt::kSectionEntrySize;
            const uint64_t offset = fmt::loadLe64(e + 8), stored = fmt::loadLe64(e + 16);
            if (offset <= p.size && stored <= p.size - offset)
                fmt::storeLe64(e + 32, fmt::xxhash64(h + offset, size_t(stored)));
        }
        fmt::storeLe64(h + 40, fmt::headerChecksum(h, size_t(count) * fmt::kSectionEntrySize));
    }
}

size_t mutateContainers(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
    std::mt19937 rng(seed);
    const std::vector<Piece> pieces = splitContainers({data, size});
    std::vector<Decoded> decoded(pieces.size());
    std::vector<size_t> good;  // the containers that decoded; the others are kept byte for byte
    for (size_t i = 0; i < pieces.size(); ++i)
        if (decodeAll(data + pieces[i].offset, pieces[i].size, decoded[i])) good.push_back(i);
    if (good.empty()) return LLVMFuzzerMutate(data, size, max_size);

    const uint32_t way = rng() % 100;
    if (way < 15) {
        // Raw bytes (header, table, stored sections) with every checksum made right again: the
        // table and header checks see well-checksummed nonsense.
        const size_t n = LLVMFuzzerMutate(data, size, max_size);
        fixChecksums({data, n});
        return n;
    }
    std::vector<Decoded> work;
    for (size_t i : good) work.push_back(decoded[i]);
    bool changed = false;
    for (int tries = 0; tries < 4 && !changed; ++tries) changed = mutateDecoded(work, rng);
    if (!changed) return LLVMFuzzerMutate(data, size, max_size);

    std::vector<uint8_t> out, piece;
    size_t next_good = 0, at = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
        if (next_good < good.size() && good[next_good] == i) {
            if (!encodeAll(work[next_good], piece)) return LLVMFuzzerMutate(data, size, max_size);
            out.insert(out.end(), piece.begin(), piece.end());
            ++next_good;
        } else {
            out.insert(out.end(), data + pieces[i].offset,
                       data + pieces[i].offset + pieces[i].size);
        }
        at = pieces[i].offset + pieces[i].size;
    }
    out.insert(out.end(), data + at, data + size);  // what followed the last container
    if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, out.data(), out.size());
    return out.size();
}

std::filesystem::path writeTempFile(std::span<const uint8_t> bytes, const std::string& name) {
    static const std::filesystem::path folder = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::filesystem::path f = std::filesystem::path(tmp != nullptr && *tmp ? tmp : "/tmp") /
                                  ("navbake-fuzz-" + std::to_string(getpid()));
        std::filesystem::create_directories(f);
        static const std::string removed = f.string();
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(removed, ec);
        });
        return f;
    }();
    const std::filesystem::path path = folder / name;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) std::abort();
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
        std::abort();
    std::fclose(f);
    return path;
}

}  // namespace nav::fuzz
