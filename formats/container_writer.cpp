#include "formats/container_writer.h"

#include <zstd.h>

#include <cstring>

#include "formats/bytes.h"
#include "formats/xxhash64.h"

namespace nav::formats {

void ContainerWriter::add(uint32_t id, std::vector<uint8_t> bytes, Codec codec, int level) {
    sections_.push_back({id, codec, std::move(bytes), level});
}

namespace {
size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace

bool ContainerWriter::finish(std::vector<uint8_t>& out, std::string& error) const {
    if (sections_.size() > kMaxSections) {
        error = "too many sections (" + std::to_string(sections_.size()) + ", at most " +
                std::to_string(kMaxSections) + ")";
        return false;
    }
    struct Encoded {
        uint32_t id;
        Codec codec;
        std::vector<uint8_t> compressed;  // empty when stored raw
        const std::vector<uint8_t>* raw;
    };
    std::vector<Encoded> encoded;
    encoded.reserve(sections_.size());
    for (size_t i = 0; i < sections_.size(); ++i) {
        const Pending& s = sections_[i];
        for (size_t j = 0; j < i; ++j) {
            if (sections_[j].id == s.id) {
                char name[5];
                fourccToString(s.id, name);
                error = std::string("duplicate section id '") + name + "'";
                return false;
            }
        }
        Encoded e{s.id, Codec::raw, {}, &s.bytes};
        if (s.codec == Codec::zstd_delta32 && s.bytes.size() % 4 != 0) {
            char name[5];
            fourccToString(s.id, name);
            error = std::string("section '") + name + "' is delta-coded but not an array of u32";
            return false;
        }
        if (s.codec != Codec::raw && s.bytes.size() > 64) {
            const std::vector<uint8_t>* input = &s.bytes;
            std::vector<uint8_t> deltas;
            if (s.codec == Codec::zstd_delta32) {
                deltas.resize(s.bytes.size());
                uint32_t previous = 0;
                for (size_t k = 0; k < s.bytes.size(); k += 4) {
                    const uint32_t value = loadLe32(s.bytes.data() + k);
                    storeLe32(deltas.data() + k, value - previous);
                    previous = value;
                }
                input = &deltas;
            }
            std::vector<uint8_t> buffer(ZSTD_compressBound(s.bytes.size()));
            const size_t n = ZSTD_compress(buffer.data(), buffer.size(), input->data(),
                                           input->size(), s.level > 0 ? s.level : level_);
            if (ZSTD_isError(n)) {
                error = std::string("zstd compression failed: ") + ZSTD_getErrorName(n);
                return false;
            }
            if (n < s.bytes.size()) {
                buffer.resize(n);
                buffer.shrink_to_fit();  // the bound's spare capacity back before the next one
                e.codec = s.codec;
                e.compressed = std::move(buffer);
            }
        }
        encoded.push_back(std::move(e));
    }

    const size_t table_end = kHeaderSize + encoded.size() * kSectionEntrySize;
    std::vector<uint64_t> offsets(encoded.size());
    size_t cursor = table_end;
    for (size_t i = 0; i < encoded.size(); ++i) {
        cursor = alignUp(cursor, kSectionAlignment);
        offsets[i] = cursor;
        const auto& e = encoded[i];
        cursor += e.codec != Codec::raw ? e.compressed.size() : e.raw->size();
    }
    const size_t file_size = cursor;

    out.assign(file_size, 0);
    uint8_t* h = out.data();
    std::memcpy(h, kMagic, sizeof(kMagic));
    storeLe32(h + 8, kContainerVersion);
    storeLe32(h + 12, kind_);
    storeLe32(h + 16, kind_version_);
    storeLe32(h + 20, uint32_t(encoded.size()));
    storeLe64(h + 24, file_size);
    storeLe64(h + 32, kHeaderSize);
    for (size_t i = 0; i < encoded.size(); ++i) {
        const auto& e = encoded[i];
        const std::vector<uint8_t>& stored = e.codec != Codec::raw ? e.compressed : *e.raw;
        uint8_t* p = h + kHeaderSize + i * kSectionEntrySize;
        storeLe32(p, e.id);
        storeLe32(p + 4, uint32_t(e.codec));
        storeLe64(p + 8, offsets[i]);
        storeLe64(p + 16, stored.size());
        storeLe64(p + 24, e.raw->size());
        storeLe64(p + 32, xxhash64(stored.data(), stored.size()));
        if (!stored.empty()) std::memcpy(h + offsets[i], stored.data(), stored.size());
    }
    // Header checksum last: it covers the header (checksum field as zero) and the table.
    XxHash64 hash;
    hash.update(h, kHeaderSize);
    hash.update(h + kHeaderSize, encoded.size() * kSectionEntrySize);
    storeLe64(h + 40, hash.digest());
    return true;
}

}  // namespace nav::formats
