#include "formats/container_writer.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "formats/bytes.h"
#include "formats/xxhash64.h"

namespace nav::formats {

namespace {
size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }
// A wide stream's zstd window: 256 KiB (its context ~1.1 MiB at level 3, against ~3.3 MiB with
// the level's own 2 MiB window), and match tables of 2^14 entries each where level 3 takes 2^17
// and 2^16. A narrow one: 64 KiB and 2^12 (~0.5 MiB), for the sections whose repeats are near
// (a .vox's column counts, a .geo's triangles, areas and objects). Against every stream at a
// 512 KiB window, .vox files of the generated levels are +1.4% (city4) to -4.6% (tower40x4) in
// size, .geo files within 1%, and a .vox stage holds 1.2 MiB less, a .geo stage 2.7 MiB.
constexpr int kWideWindowLog = 18;
constexpr int kWideTableLog = 14;
constexpr int kNarrowWindowLog = 16;
constexpr int kNarrowTableLog = 12;

std::string sectionName(uint32_t id) {
    char name[5];
    fourccToString(id, name);
    return name;
}
}  // namespace

bool ContainerWriter::compress(std::span<const uint8_t> input, int level,
                               std::vector<uint8_t>& out) {
    // Into a buffer of the bound's size that is not zero-filled: the pages zstd never writes
    // (most of them: the bound is the input's size) are never touched, so never resident.
    const size_t bound = ZSTD_compressBound(input.size());
    std::unique_ptr<uint8_t[]> buffer(new (std::nothrow) uint8_t[bound]);
    if (!buffer) {
        error_ =
            "out of memory compressing a section of " + std::to_string(input.size()) + " bytes";
        return false;
    }
    const int use_level = level > 0 ? level : level_;
    size_t n;
    if (table_log_ == 0) {
        n = ZSTD_compress(buffer.get(), bound, input.data(), input.size(), use_level);
    } else {
        // The level with its match tables set to 2^table_log_ entries (zstd shrinks them
        // further for a small section).
        std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
        if (!cctx ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, use_level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_hashLog, table_log_)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_chainLog, table_log_))) {
            error_ = "zstd: cannot create a compression context";
            return false;
        }
        n = ZSTD_compress2(cctx.get(), buffer.get(), bound, input.data(), input.size());
    }
    if (ZSTD_isError(n)) {
        error_ = std::string("zstd compression failed: ") + ZSTD_getErrorName(n);
        return false;
    }
    if (n >= input.size()) return false;
    out.assign(buffer.get(), buffer.get() + n);
    return true;
}

void ContainerWriter::add(uint32_t id, std::vector<uint8_t> bytes, Codec codec, int level) {
    if (!error_.empty()) return;
    Encoded e{id, Codec::raw, bytes.size(), {}};
    if (codec == Codec::zstd_delta32 && bytes.size() % 4 != 0) {
        error_ = "section '" + sectionName(id) + "' is delta-coded but not an array of u32";
        return;
    }
    if (codec != Codec::raw && bytes.size() > 64) {
        if (codec == Codec::zstd_delta32) {  // in place: the raw values are not kept
            uint32_t previous = 0;
            for (size_t k = 0; k < bytes.size(); k += 4) {
                const uint32_t value = loadLe32(bytes.data() + k);
                storeLe32(bytes.data() + k, value - previous);
                previous = value;
            }
        }
        if (compress(bytes, level, e.stored)) {
            e.codec = codec;
        } else if (!error_.empty()) {
            return;
        } else if (codec == Codec::zstd_delta32) {  // stored raw: undo the deltas
            uint32_t sum = 0;
            for (size_t k = 0; k < bytes.size(); k += 4) {
                sum += loadLe32(bytes.data() + k);
                storeLe32(bytes.data() + k, sum);
            }
        }
    }
    if (e.codec == Codec::raw) e.stored = std::move(bytes);
    sections_.push_back(std::move(e));
}

void ContainerWriter::add(uint32_t id, std::span<const uint8_t> bytes, Codec codec, int level) {
    if (codec != Codec::zstd || bytes.size() <= 64) {  // raw, tiny or delta-coded: via a copy
        add(id, std::vector<uint8_t>(bytes.begin(), bytes.end()), codec, level);
        return;
    }
    if (!error_.empty()) return;
    Encoded e{id, Codec::zstd, bytes.size(), {}};
    if (!compress(bytes, level, e.stored)) {
        if (!error_.empty()) return;
        e.codec = Codec::raw;
        e.stored.assign(bytes.begin(), bytes.end());
    }
    sections_.push_back(std::move(e));
}

void ContainerWriter::addEncoded(uint32_t id, Codec codec, uint64_t raw_size,
                                 std::vector<uint8_t> stored) {
    if (!error_.empty()) return;
    sections_.push_back({id, codec, raw_size, std::move(stored)});
}

bool ContainerWriter::finish(std::vector<uint8_t>& out, std::string& error) const {
    if (!error_.empty()) {
        error = error_;
        return false;
    }
    const size_t count = sections_.size() + tails_.size();
    auto idOf = [&](size_t i) {
        return i < sections_.size() ? sections_[i].id : tails_[i - sections_.size()].id;
    };
    if (count > kMaxSections) {
        error = "too many sections (" + std::to_string(count) + ", at most " +
                std::to_string(kMaxSections) + ")";
        return false;
    }
    for (size_t i = 0; i < count; ++i)
        for (size_t j = 0; j < i; ++j) {
            const uint32_t a = idOf(j);
            const uint32_t b = idOf(i);
            if (a == b) {
                error = "duplicate section id '" + sectionName(b) + "'";
                return false;
            }
        }
    const std::vector<Encoded>& encoded = sections_;

    const size_t table_end = kHeaderSize + count * kSectionEntrySize;
    std::vector<uint64_t> offsets(count);
    uint64_t cursor = table_end;
    for (size_t i = 0; i < count; ++i) {
        cursor = alignUp(cursor, kSectionAlignment);
        offsets[i] = cursor;
        cursor += i < encoded.size() ? encoded[i].stored.size() : tails_[i - encoded.size()].size;
    }
    const uint64_t file_size = cursor;

    out.assign(tails_.empty() ? size_t(file_size) : size_t(offsets[encoded.size()]), 0);
    uint8_t* h = out.data();
    std::memcpy(h, kMagic, sizeof(kMagic));
    storeLe32(h + 8, kContainerVersion);
    storeLe32(h + 12, kind_);
    storeLe32(h + 16, kind_version_);
    storeLe32(h + 20, uint32_t(count));
    storeLe64(h + 24, file_size);
    storeLe64(h + 32, kHeaderSize);
    for (size_t i = 0; i < count; ++i) {
        uint8_t* p = h + kHeaderSize + i * kSectionEntrySize;
        if (i >= encoded.size()) {  // a tail
            const Tail& tail = tails_[i - encoded.size()];
            storeLe32(p, tail.id);
            storeLe32(p + 4, uint32_t(tail.codec));
            storeLe64(p + 8, offsets[i]);
            storeLe64(p + 16, tail.size);
            storeLe64(p + 24, tail.raw_size);
            storeLe64(p + 32, tail.checksum);
            continue;
        }
        const auto& e = encoded[i];
        const std::vector<uint8_t>& stored = e.stored;
        storeLe32(p, e.id);
        storeLe32(p + 4, uint32_t(e.codec));
        storeLe64(p + 8, offsets[i]);
        storeLe64(p + 16, stored.size());
        storeLe64(p + 24, e.raw_size);
        storeLe64(p + 32, xxhash64(stored.data(), stored.size()));
        if (!stored.empty()) std::memcpy(h + offsets[i], stored.data(), stored.size());
    }
    // Header checksum last: it covers the header (checksum field as zero) and the table.
    storeLe64(h + 40, headerChecksum(h, count * kSectionEntrySize));
    return true;
}

}  // namespace nav::formats

namespace nav::formats {

ZstdSectionStream::ZstdSectionStream(int level, bool delta32, StreamWindow window, size_t hold)
    : level_(level), delta32_(delta32), window_(window), hold_(hold) {}

ZstdSectionStream::~ZstdSectionStream() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context_)); }

bool ZstdSectionStream::start() {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    context_ = cctx;
    const bool wide = window_ == StreamWindow::wide;
    const int window_log = wide ? kWideWindowLog : kNarrowWindowLog;
    const int table_log = wide ? kWideTableLog : kNarrowTableLog;
    if (cctx == nullptr ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level_)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, table_log)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_chainLog, table_log))) {
        error_ = "zstd: cannot create a compression context";
        return false;
    }
    std::vector<uint8_t> held = std::move(held_);
    held_ = std::vector<uint8_t>();
    return feed(held.data(), held.size());
}

bool ZstdSectionStream::pump(const uint8_t* bytes, size_t size, bool end) {
    ZSTD_CCtx* cctx = static_cast<ZSTD_CCtx*>(context_);
    ZSTD_inBuffer in{bytes, size, 0};
    const size_t chunk = ZSTD_CStreamOutSize();
    // Spilling: out_ holds at most kSpillAt bytes and a chunk, its room sized once (not doubled
    // as it grows).
    constexpr size_t kSpillAt = size_t(1) << 18;
    if (sink_ != nullptr && out_.capacity() < kSpillAt + chunk) out_.reserve(kSpillAt + chunk);
    for (;;) {
        const size_t used = out_.size();
        out_.resize(used + chunk);
        ZSTD_outBuffer out{out_.data() + used, chunk, 0};
        const size_t left =
            ZSTD_compressStream2(cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        out_.resize(used + out.pos);
        if (ZSTD_isError(left)) {
            error_ = std::string("zstd compression failed: ") + ZSTD_getErrorName(left);
            return false;
        }
        if (end ? left == 0 : in.pos == in.size) break;
        if (sink_ != nullptr && out_.size() >= kSpillAt && !spill()) return false;
    }
    // Spilling: 256 KiB of frame at a time goes to the sink.
    if (sink_ != nullptr && (end || out_.size() >= kSpillAt)) return spill();
    return true;
}

bool ZstdSectionStream::spill() {
    if (head_.empty()) {
        if (out_.size() < 6) return true;  // (the header comes first, whole, from zstd)
        head_.assign(out_.begin(), out_.begin() + 6);
        out_.erase(out_.begin(), out_.begin() + 6);
    }
    if (!out_.empty() && !sink_->writeAt(14 + spilled_, out_.data(), out_.size())) {
        error_ = "zstd section stream: cannot write its spill file";
        return false;
    }
    spilled_ += out_.size();
    out_.clear();
    return true;
}

bool ZstdSectionStream::addTailTo(ContainerWriter& writer, uint32_t id) {
    tail_size_ = 0;
    if (sink_ == nullptr || context_ == nullptr) return addTo(writer, id);
    if (!error_.empty() || !pump(nullptr, 0, true)) return false;
    scratch_ = std::vector<uint8_t>();
    // The content size declared as addTo declares it (see there): the header's 6 bytes, patched,
    // and the 8-byte field in the 14 bytes kept free at the sink's start.
    if (head_.size() != 6 ||
        ZSTD_getFrameContentSize(head_.data(), 6) != ZSTD_CONTENTSIZE_UNKNOWN ||
        (head_[4] & 0xE3) != 0) {
        error_ = "zstd section stream: unexpected frame header";
        return false;
    }
    uint8_t head[14];
    std::memcpy(head, head_.data(), 6);
    head[4] = uint8_t(head[4] | 0xC0);
    storeLe64(head + 6, raw_size_);
    if (ZSTD_getFrameContentSize(head, sizeof head) != raw_size_ ||
        !sink_->writeAt(0, head, sizeof head)) {
        error_ = "zstd section stream: could not declare the content size";
        return false;
    }
    tail_size_ = 14 + spilled_;
    // The checksum of the stored bytes, read back a MiB at a time.
    XxHash64 hash;
    std::vector<uint8_t> chunk(size_t(1) << 20);
    for (uint64_t at = 0; at < tail_size_; at += chunk.size()) {
        const size_t n = size_t(std::min<uint64_t>(chunk.size(), tail_size_ - at));
        if (!sink_->readAt(at, chunk.data(), n)) {
            error_ = "zstd section stream: cannot read its spill file back";
            return false;
        }
        hash.update(chunk.data(), n);
    }
    out_ = std::vector<uint8_t>();
    writer.setTail(id, tail_size_, hash.digest(), delta32_ ? Codec::zstd_delta32 : Codec::zstd,
                   raw_size_);
    return true;
}

bool ZstdSectionStream::feed(const uint8_t* bytes, size_t size) {
    if (!delta32_) return pump(bytes, size, false);
    // Delta-coded 64 KiB at a time (the compressor sees the same bytes in the same order).
    constexpr size_t kPiece = size_t(1) << 16;
    for (size_t at = 0; at < size; at += kPiece) {
        const size_t n = std::min(kPiece, size - at);
        scratch_.resize(n);
        for (size_t k = 0; k < n; k += 4) {
            const uint32_t value = loadLe32(bytes + at + k);
            storeLe32(scratch_.data() + k, value - previous_);
            previous_ = value;
        }
        if (!pump(scratch_.data(), n, false)) return false;
    }
    return true;
}

bool ZstdSectionStream::write(const uint8_t* bytes, size_t size) {
    if (!error_.empty()) return false;
    if (delta32_ && size % 4 != 0) {
        error_ = "zstd+delta32 section stream fed a partial u32";
        return false;
    }
    raw_size_ += size;
    if (context_ == nullptr) {
        if (held_.size() + size <= hold_) {
            // Past its first page, room for all it may hold at once: no copies while it grows,
            // and only the pages written are ever resident (a small section stays small).
            if (held_.capacity() < hold_ && held_.size() + size > 4096) held_.reserve(hold_);
            held_.insert(held_.end(), bytes, bytes + size);
            return true;
        }
        if (!start()) return false;
    }
    return feed(bytes, size);
}

bool ZstdSectionStream::addTo(ContainerWriter& writer, uint32_t id) {
    if (!error_.empty()) return false;
    const Codec codec = delta32_ ? Codec::zstd_delta32 : Codec::zstd;
    if (context_ == nullptr) {  // small: as add would store it
        writer.add(id, std::move(held_), codec, level_);
        held_ = {};
        return true;
    }
    if (!pump(nullptr, 0, true)) return false;
    scratch_ = std::vector<uint8_t>();  // (`= {}` would keep the room)
    // A frame begun without knowing its size leaves the content size out of its header (RFC
    // 8878 §3.1.1.1: Frame_Content_Size_flag 0, no Single_Segment_flag, so a Window_Descriptor
    // follows the descriptor). Readers here require it: it goes in as an 8-byte field (flag 3)
    // after the window descriptor (no dictionary id here); decoders then check the size made.
    if (out_.size() < 6 ||
        ZSTD_getFrameContentSize(out_.data(), out_.size()) != ZSTD_CONTENTSIZE_UNKNOWN ||
        (out_[4] & 0xE3) != 0) {
        error_ = "zstd section stream: unexpected frame header";
        return false;
    }
    uint8_t field[8];
    storeLe64(field, raw_size_);
    out_[4] = uint8_t(out_[4] | 0xC0);
    out_.insert(out_.begin() + 6, field, field + 8);
    if (ZSTD_getFrameContentSize(out_.data(), out_.size()) != raw_size_) {
        error_ = "zstd section stream: could not declare the content size";
        return false;
    }
    out_.shrink_to_fit();
    writer.addEncoded(id, codec, raw_size_, std::move(out_));
    out_ = {};
    return true;
}

std::vector<uint8_t> ZstdSectionStream::takeRaw() {
    if (!error_.empty()) return {};
    if (context_ == nullptr) return std::move(held_);
    if (!pump(nullptr, 0, true)) return {};
    std::vector<uint8_t> raw(raw_size_);
    const size_t n = ZSTD_decompress(raw.data(), raw.size(), out_.data(), out_.size());
    out_ = {};
    if (ZSTD_isError(n) || n != raw_size_) {
        error_ = "zstd section stream: cannot decode what was written";
        return {};
    }
    if (delta32_) {
        uint32_t sum = 0;
        for (size_t k = 0; k + 4 <= raw.size(); k += 4) {
            sum += loadLe32(raw.data() + k);
            storeLe32(raw.data() + k, sum);
        }
    }
    return raw;
}

}  // namespace nav::formats
