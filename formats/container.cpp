#include "formats/container.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "formats/bytes.h"
#include "formats/xxhash64.h"

namespace nav::formats {

void fourccToString(uint32_t code, char out[5]) {
    for (int i = 0; i < 4; ++i) {
        const auto c = char((code >> (8 * i)) & 0xFF);
        out[i] = (c >= 0x20 && c < 0x7F) ? c : '?';
    }
    out[4] = '\0';
}

const char* codecName(Codec codec) {
    switch (codec) {
        case Codec::raw: return "raw";
        case Codec::zstd: return "zstd";
        case Codec::zstd_delta32: return "zstd+delta32";
    }
    return "unknown";
}

const char* errorName(ErrorCode code) {
    switch (code) {
        case ErrorCode::ok: return "ok";
        case ErrorCode::io_error: return "io_error";
        case ErrorCode::truncated: return "truncated";
        case ErrorCode::bad_magic: return "bad_magic";
        case ErrorCode::newer_version: return "newer_version";
        case ErrorCode::bad_version: return "bad_version";
        case ErrorCode::bad_header: return "bad_header";
        case ErrorCode::checksum_mismatch: return "checksum_mismatch";
        case ErrorCode::trailing_data: return "trailing_data";
        case ErrorCode::bad_section_table: return "bad_section_table";
        case ErrorCode::unknown_codec: return "unknown_codec";
        case ErrorCode::decompress_failed: return "decompress_failed";
        case ErrorCode::wrong_kind: return "wrong_kind";
        case ErrorCode::missing_section: return "missing_section";
        case ErrorCode::bad_section: return "bad_section";
        case ErrorCode::out_of_memory: return "out_of_memory";
        case ErrorCode::invalid_argument: return "invalid_argument";
    }
    return "unknown_error";
}

Error makeError(ErrorCode code, uint64_t offset, uint32_t section, const char* format, ...) {
    Error error;
    error.code = code;
    error.offset = offset;
    error.section = section;
    va_list args;
    va_start(args, format);
    std::vsnprintf(error.message, sizeof(error.message), format, args);
    va_end(args);
    return error;
}

int Container::find(uint32_t id) const {
    for (uint32_t i = 0; i < section_count; ++i)
        if (sections[i].id == id) return int(i);
    return -1;
}

namespace {

bool allZero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != 0) return false;
    return true;
}

}  // namespace

uint64_t headerChecksum(const uint8_t* data, size_t table_bytes) {
    uint8_t header[kHeaderSize];
    std::memcpy(header, data, kHeaderSize);
    std::memset(header + 40, 0, 8);
    XxHash64 hash;
    hash.update(header, kHeaderSize);
    hash.update(data + kHeaderSize, table_bytes);
    return hash.digest();
}

namespace {
// parseContainer over the first `size` bytes of a file of `file_bytes` (size == file_bytes unless
// the last section is left on disk: `head`).
enum class Parse { whole, head, table };
Error parseContainerWith(const uint8_t* data, size_t size, uint64_t file_bytes, Parse mode,
                         Container& out, uint32_t tail_sections = 1);
}  // namespace

Error parseContainer(const uint8_t* data, size_t size, Container& out) {
    return parseContainerWith(data, size, size, Parse::whole, out);
}

Error parseContainerHead(const uint8_t* data, size_t size, uint64_t file_size, Container& out,
                         uint32_t tail_sections) {
    if (size > file_size)
        return makeError(ErrorCode::invalid_argument, 0, 0, "head of %zu bytes of a %llu-byte file",
                         size, static_cast<unsigned long long>(file_size));
    return parseContainerWith(data, size, file_size, Parse::head, out, tail_sections);
}

Error parseContainerTable(const uint8_t* data, size_t size, uint64_t file_size, Container& out) {
    return parseContainerWith(data, size, file_size, Parse::table, out);
}

namespace {
Error parseContainerWith(const uint8_t* data, size_t size, uint64_t file_bytes, Parse mode,
                         Container& out, uint32_t tail_sections) {
    out = Container{};
    if (data == nullptr && size > 0)
        return makeError(ErrorCode::invalid_argument, 0, 0, "null buffer of %zu bytes", size);
    if (size < kHeaderSize)
        return makeError(ErrorCode::truncated, size, 0,
                         "file is %zu bytes, shorter than the %zu-byte header", size, kHeaderSize);
    if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
        return makeError(ErrorCode::bad_magic, 0, 0,
                         "not a navbake artifact: magic bytes at offset 0 are wrong "
                         "(expected 89 4E 41 56 0D 0A 1A 0A)");
    out.version = loadLe32(data + 8);
    if (out.version == 0)
        return makeError(ErrorCode::bad_version, 8, 0, "container version 0 is invalid");
    if (out.version > kContainerVersion)
        return makeError(ErrorCode::newer_version, 8, 0,
                         "container version %u is newer than this reader supports (%u); "
                         "update navbake",
                         out.version, kContainerVersion);
    out.kind = loadLe32(data + 12);
    out.kind_version = loadLe32(data + 16);
    out.section_count = loadLe32(data + 20);
    out.file_size = loadLe64(data + 24);
    const uint64_t table_offset = loadLe64(data + 32);
    out.header_checksum = loadLe64(data + 40);

    if (out.section_count > kMaxSections)
        return makeError(ErrorCode::bad_header, 20, 0, "section count %u exceeds the maximum %u",
                         out.section_count, kMaxSections);
    if (table_offset != kHeaderSize)
        return makeError(ErrorCode::bad_header, 32, 0, "section table offset is %llu, expected %zu",
                         static_cast<unsigned long long>(table_offset), kHeaderSize);
    const size_t table_bytes = size_t(out.section_count) * kSectionEntrySize;
    const size_t table_end = kHeaderSize + table_bytes;
    if (size < table_end)
        return makeError(ErrorCode::truncated, size, 0,
                         "file is %zu bytes but its section table ends at %zu", size, table_end);
    const uint64_t checksum = headerChecksum(data, table_bytes);
    if (checksum != out.header_checksum)
        return makeError(ErrorCode::checksum_mismatch, 40, 0,
                         "header/section-table checksum mismatch (stored %016llx, computed "
                         "%016llx)",
                         static_cast<unsigned long long>(out.header_checksum),
                         static_cast<unsigned long long>(checksum));
    if (file_bytes < out.file_size)
        return makeError(ErrorCode::truncated, file_bytes, 0,
                         "file is truncated: %llu bytes present, header declares %llu",
                         static_cast<unsigned long long>(file_bytes),
                         static_cast<unsigned long long>(out.file_size));
    if (file_bytes > out.file_size)
        return makeError(ErrorCode::trailing_data, out.file_size, 0,
                         "%llu unexpected bytes after the declared end of file (%llu bytes)",
                         static_cast<unsigned long long>(file_bytes - out.file_size),
                         static_cast<unsigned long long>(out.file_size));
    if (!allZero(data + 48, 16))
        return makeError(ErrorCode::bad_header, 48, 0, "reserved header bytes 48..63 are not zero");

    uint64_t previous_end = table_end;
    for (uint32_t i = 0; i < out.section_count; ++i) {
        const uint8_t* p = data + kHeaderSize + size_t(i) * kSectionEntrySize;
        const uint64_t entry_offset = kHeaderSize + uint64_t(i) * kSectionEntrySize;
        SectionEntry& e = out.sections[i];
        e.id = loadLe32(p);
        const uint32_t codec = loadLe32(p + 4);
        e.offset = loadLe64(p + 8);
        e.stored_size = loadLe64(p + 16);
        e.raw_size = loadLe64(p + 24);
        e.checksum = loadLe64(p + 32);
        char name[5];
        fourccToString(e.id, name);
        if (codec > uint32_t(Codec::zstd_delta32))
            return makeError(ErrorCode::unknown_codec, entry_offset + 4, e.id,
                             "section '%s' uses unknown codec %u", name, codec);
        e.codec = Codec(codec);
        if (!allZero(p + 40, 8))
            return makeError(ErrorCode::bad_section_table, entry_offset + 40, e.id,
                             "section '%s': reserved entry bytes are not zero", name);
        if (e.offset % kSectionAlignment != 0)
            return makeError(ErrorCode::bad_section_table, entry_offset + 8, e.id,
                             "section '%s' offset %llu is not %zu-byte aligned", name,
                             static_cast<unsigned long long>(e.offset), kSectionAlignment);
        if (e.offset < previous_end)
            return makeError(ErrorCode::bad_section_table, entry_offset + 8, e.id,
                             "section '%s' at offset %llu overlaps the table or the previous "
                             "section (which ends at %llu)",
                             name, static_cast<unsigned long long>(e.offset),
                             static_cast<unsigned long long>(previous_end));
        if (e.offset > out.file_size || e.stored_size > out.file_size - e.offset)
            return makeError(ErrorCode::bad_section_table, entry_offset + 16, e.id,
                             "section '%s' (offset %llu, %llu bytes) extends past the end of the "
                             "file (%llu bytes)",
                             name, static_cast<unsigned long long>(e.offset),
                             static_cast<unsigned long long>(e.stored_size),
                             static_cast<unsigned long long>(out.file_size));
        // A head holds every byte but the tail's (the padding before its first section is
        // checked below; its later sections and their padding are their readers'); a table alone
        // holds none of the sections' bytes.
        const uint32_t tails = std::min(std::max(tail_sections, 1u), out.section_count);
        const bool tail = mode == Parse::head && i + tails >= out.section_count;
        const bool later_tail = tail && i + tails > out.section_count;
        if (mode != Parse::table && !later_tail &&
            (e.offset > size || (!tail && e.offset + e.stored_size > size)))
            return makeError(ErrorCode::truncated, size, e.id,
                             "section '%s' lies past the %zu bytes read", name, size);
        if (mode != Parse::table && !later_tail &&
            !allZero(data + previous_end, size_t(e.offset - previous_end)))
            return makeError(ErrorCode::bad_section_table, previous_end, e.id,
                             "padding before section '%s' (bytes %llu..%llu) is not zero", name,
                             static_cast<unsigned long long>(previous_end),
                             static_cast<unsigned long long>(e.offset));
        if (e.codec == Codec::raw && e.raw_size != e.stored_size)
            return makeError(ErrorCode::bad_section_table, entry_offset + 24, e.id,
                             "raw section '%s' declares %llu decoded bytes but stores %llu", name,
                             static_cast<unsigned long long>(e.raw_size),
                             static_cast<unsigned long long>(e.stored_size));
        // No zstd frame decodes to more than kMaxZstdExpansion bytes per stored byte: a larger
        // raw_size is a lie that would make a reader allocate (or overflow a sum) for nothing.
        if (e.codec != Codec::raw && e.raw_size / kMaxZstdExpansion > e.stored_size)
            return makeError(ErrorCode::bad_section_table, entry_offset + 24, e.id,
                             "section '%s' declares %llu decoded bytes, more than its %llu stored "
                             "bytes can hold (at most %llu per byte)",
                             name, static_cast<unsigned long long>(e.raw_size),
                             static_cast<unsigned long long>(e.stored_size),
                             static_cast<unsigned long long>(kMaxZstdExpansion));
        if (e.codec == Codec::zstd_delta32 && e.raw_size % 4 != 0)
            return makeError(ErrorCode::bad_section_table, entry_offset + 24, e.id,
                             "delta-coded section '%s' decodes to %llu bytes, not a multiple of 4",
                             name, static_cast<unsigned long long>(e.raw_size));
        for (uint32_t j = 0; j < i; ++j)
            if (out.sections[j].id == e.id)
                return makeError(ErrorCode::bad_section_table, entry_offset, e.id,
                                 "section '%s' appears twice", name);
        previous_end = e.offset + e.stored_size;
    }
    if (previous_end != out.file_size)
        return makeError(ErrorCode::bad_section_table, previous_end, 0,
                         "%llu bytes after the last section are not part of any section",
                         static_cast<unsigned long long>(out.file_size - previous_end));
    return {};
}
}  // namespace

Error checkKind(const Container& container, uint32_t kind, uint32_t max_kind_version) {
    if (container.kind != kind) {
        char found[5], wanted[5];
        fourccToString(container.kind, found);
        fourccToString(kind, wanted);
        return makeError(ErrorCode::wrong_kind, 12, 0, "artifact is of kind '%s', expected '%s'",
                         found, wanted);
    }
    if (container.kind_version == 0)
        return makeError(ErrorCode::bad_version, 16, 0, "kind version 0 is invalid");
    if (container.kind_version > max_kind_version) {
        char name[5];
        fourccToString(kind, name);
        return makeError(ErrorCode::newer_version, 16, 0,
                         "'%s' layout version %u is newer than this reader supports (%u); "
                         "update navbake",
                         name, container.kind_version, max_kind_version);
    }
    return {};
}

Error verifySection(const uint8_t* file, const SectionEntry& entry) {
    const uint64_t checksum = xxhash64(file + entry.offset, size_t(entry.stored_size));
    if (checksum != entry.checksum) {
        char name[5];
        fourccToString(entry.id, name);
        return makeError(ErrorCode::checksum_mismatch, entry.offset, entry.id,
                         "section '%s' (offset %llu, %llu bytes) is corrupt: checksum mismatch",
                         name, static_cast<unsigned long long>(entry.offset),
                         static_cast<unsigned long long>(entry.stored_size));
    }
    return {};
}

namespace {

// The window a zstd frame's header declares (RFC 8878 §3.1.1.1.2: Window_Descriptor), or
// `content` for a single-segment frame (whose window is its content). The header has been parsed
// (ZSTD_getFrameContentSize) before, so its first 6 bytes are there.
uint64_t zstdWindow(const uint8_t* frame, size_t size, uint64_t content) {
    if (size < 6 || (frame[4] & 0x20) != 0) return content;  // Single_Segment_flag
    const uint8_t descriptor = frame[5];
    const uint64_t base = uint64_t(1) << (10 + (descriptor >> 3));
    return base + (base / 8) * (descriptor & 7);
}

// A streaming decoder context that accepts any window a frame declares: its buffers are the
// smaller of the window and the frame's content (which raw_size bounds, and the container table
// bounds raw_size by the stored bytes, §1.4), so a frame with a window far larger than its
// content decodes streamed as it does whole (zstd's one-pass decoder ignores the window).
ZSTD_DCtx* createStreamContext() {
    ZSTD_DCtx* context = ZSTD_createDCtx();
    if (context != nullptr)
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax,
                               ZSTD_dParam_getBounds(ZSTD_d_windowLogMax).upperBound);
    return context;
}

// Decodes one zstd frame with zstd's streaming decoder, whose history is the frame's window (and
// the blocks in flight): a match reaching further back is corrupt. zstd's one-pass decoder
// (ZSTD_decompress, and ZSTD_decompressStream's shortcut to it when the whole frame and room for
// its content are given at once) only holds matches to the start of the output, so a crafted
// frame could decode whole yet fail streamed. The first byte goes in alone to stay off the
// shortcut (SectionStream::start does the same). Returns the bytes written or a zstd error code.
size_t decompressWindowed(uint8_t* dst, size_t dst_size, const uint8_t* src, size_t src_size) {
    ZSTD_DCtx* context = createStreamContext();
    if (context == nullptr) return size_t(-ZSTD_error_memory_allocation);
    ZSTD_outBuffer out{dst, dst_size, 0};
    ZSTD_inBuffer in{src, std::min<size_t>(src_size, 1), 0};
    size_t r = ZSTD_decompressStream(context, &out, &in);
    in.size = src_size;
    while (!ZSTD_isError(r) && r != 0) {
        const size_t in_before = in.pos, out_before = out.pos;
        r = ZSTD_decompressStream(context, &out, &in);
        if (!ZSTD_isError(r) && r != 0 && in.pos == in_before && out.pos == out_before)
            r = size_t(-ZSTD_error_srcSize_wrong);  // no progress: the frame is cut short
    }
    ZSTD_freeDCtx(context);
    return ZSTD_isError(r) ? r : out.pos;
}

}  // namespace

Error decodeSection(const uint8_t* file, const SectionEntry& entry, uint8_t* dst, size_t dst_size) {
    char name[5];
    fourccToString(entry.id, name);
    if (dst_size != entry.raw_size || (dst == nullptr && dst_size > 0))
        return makeError(ErrorCode::invalid_argument, entry.offset, entry.id,
                         "section '%s': destination holds %zu bytes, section decodes to %llu", name,
                         dst_size, static_cast<unsigned long long>(entry.raw_size));
    if (Error error = verifySection(file, entry)) return error;
    const uint8_t* src = file + entry.offset;
    if (entry.codec == Codec::raw) {
        if (dst_size > 0) std::memcpy(dst, src, dst_size);
        return {};
    }
    const unsigned long long frame_size = ZSTD_getFrameContentSize(src, size_t(entry.stored_size));
    if (frame_size == ZSTD_CONTENTSIZE_ERROR || frame_size != entry.raw_size)
        return makeError(ErrorCode::decompress_failed, entry.offset, entry.id,
                         "section '%s': zstd frame does not declare the expected %llu bytes", name,
                         static_cast<unsigned long long>(entry.raw_size));
    const size_t frame_bytes = ZSTD_findFrameCompressedSize(src, size_t(entry.stored_size));
    if (ZSTD_isError(frame_bytes) || frame_bytes != entry.stored_size)
        return makeError(ErrorCode::decompress_failed, entry.offset, entry.id,
                         "section '%s': its %llu stored bytes are not exactly one zstd frame", name,
                         static_cast<unsigned long long>(entry.stored_size));
    // A frame whose window is smaller than its content is decoded as a stream (see
    // decompressWindowed), so that whole and streamed reads accept the same frames.
    const size_t written =
        zstdWindow(src, size_t(entry.stored_size), entry.raw_size) < entry.raw_size
            ? decompressWindowed(dst, dst_size, src, size_t(entry.stored_size))
            : ZSTD_decompress(dst, dst_size, src, size_t(entry.stored_size));
    if (ZSTD_isError(written) || written != dst_size)
        return makeError(ErrorCode::decompress_failed, entry.offset, entry.id,
                         "section '%s': zstd decompression failed (%s)", name,
                         ZSTD_isError(written) ? ZSTD_getErrorName(written) : "size mismatch");
    if (entry.codec == Codec::zstd_delta32) {
        uint32_t running = 0;
        for (size_t i = 0; i + 4 <= dst_size; i += 4) {
            running += loadLe32(dst + i);
            storeLe32(dst + i, running);
        }
    }
    return {};
}

SectionStream::SectionStream(const uint8_t* file, const SectionEntry& entry)
    : file_(file), src_(file + entry.offset), entry_(entry) {}

SectionStream::SectionStream(const SectionEntry& entry, StoredBytes& source)
    : source_(&source), entry_(entry) {}

SectionStream::~SectionStream() {
    ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(context_));
    delete[] block_;
}

namespace {
constexpr size_t kStreamBlock = size_t(1) << 17;  // source mode: stored bytes read at a time

Error unreadable(const SectionEntry& e, uint64_t at) {
    char name[5];
    fourccToString(e.id, name);
    return makeError(ErrorCode::io_error, e.offset + at, e.id,
                     "section '%s': cannot read its bytes at offset %llu", name,
                     static_cast<unsigned long long>(e.offset + at));
}
}  // namespace

Error SectionStream::input(const uint8_t*& data, size_t& size, size_t& pos) {
    if (source_ == nullptr) {
        data = src_;
        size = size_t(entry_.stored_size);
        pos = size_t(in_pos_);
        return {};
    }
    if (in_pos_ >= block_base_ + block_size_ && in_pos_ < entry_.stored_size) {
        block_base_ = in_pos_;
        block_size_ = size_t(std::min<uint64_t>(kStreamBlock, entry_.stored_size - in_pos_));
        if (!source_->read(entry_.offset + block_base_, block_, block_size_))
            return unreadable(entry_, block_base_);
    }
    data = block_;
    size = block_size_;
    pos = size_t(in_pos_ - block_base_);
    return {};
}

void SectionStream::consumed(size_t pos) { in_pos_ = (source_ == nullptr ? 0 : block_base_) + pos; }

Error SectionStream::start() {
    char name[5];
    fourccToString(entry_.id, name);
    if (source_ == nullptr) {
        if (Error error = verifySection(file_, entry_)) return error;
    } else {
        // The checksum over the stored bytes, a block at a time.
        block_ = new (std::nothrow) uint8_t[kStreamBlock];
        if (block_ == nullptr)
            return makeError(ErrorCode::out_of_memory, entry_.offset, entry_.id,
                             "section '%s': cannot allocate its read block", name);
        XxHash64 hash;
        for (uint64_t at = 0; at < entry_.stored_size; at += kStreamBlock) {
            const size_t n = size_t(std::min<uint64_t>(kStreamBlock, entry_.stored_size - at));
            if (!source_->read(entry_.offset + at, block_, n)) return unreadable(entry_, at);
            hash.update(block_, n);
        }
        if (hash.digest() != entry_.checksum)
            return makeError(ErrorCode::checksum_mismatch, entry_.offset, entry_.id,
                             "section '%s' (offset %llu, %llu bytes) is corrupt: checksum mismatch",
                             name, static_cast<unsigned long long>(entry_.offset),
                             static_cast<unsigned long long>(entry_.stored_size));
        block_base_ = block_size_ = 0;
    }
    if (entry_.codec == Codec::raw) return {};
    if (entry_.codec != Codec::zstd && entry_.codec != Codec::zstd_delta32)
        return makeError(ErrorCode::invalid_argument, entry_.offset, entry_.id,
                         "section '%s': codec %u cannot be streamed", name, unsigned(entry_.codec));
    const uint8_t* data = nullptr;
    size_t size = 0, pos = 0;
    if (Error error = input(data, size, pos)) return error;
    const unsigned long long frame_size = ZSTD_getFrameContentSize(data + pos, size - pos);
    if (frame_size == ZSTD_CONTENTSIZE_ERROR || frame_size != entry_.raw_size)
        return makeError(ErrorCode::decompress_failed, entry_.offset, entry_.id,
                         "section '%s': zstd frame does not declare the expected %llu bytes", name,
                         static_cast<unsigned long long>(entry_.raw_size));
    context_ = createStreamContext();
    if (context_ == nullptr)
        return makeError(ErrorCode::decompress_failed, entry_.offset, entry_.id,
                         "section '%s': cannot create a zstd context", name);
    // The frame's first byte alone, with no room for output: a first read() of the whole content
    // would otherwise take zstd's one-pass shortcut, which does not hold matches to the window
    // (see decompressWindowed), and accept frames that a read in pieces refuses.
    ZSTD_outBuffer none{nullptr, 0, 0};
    ZSTD_inBuffer first{data, pos + 1, pos};
    const size_t r = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(context_), &none, &first);
    if (ZSTD_isError(r))
        return makeError(ErrorCode::decompress_failed, entry_.offset, entry_.id,
                         "section '%s': zstd decompression failed (%s)", name,
                         ZSTD_getErrorName(r));
    consumed(first.pos);
    return {};
}

Error SectionStream::read(uint8_t* dst, size_t size) {
    char name[5];
    fourccToString(entry_.id, name);
    if (out_pos_ + size > entry_.raw_size)
        return makeError(ErrorCode::invalid_argument, entry_.offset, entry_.id,
                         "section '%s': read past its %llu decoded bytes", name,
                         static_cast<unsigned long long>(entry_.raw_size));
    if (entry_.codec == Codec::raw) {
        if (size > 0) {
            if (source_ == nullptr)
                std::memcpy(dst, src_ + out_pos_, size);
            else if (!source_->read(entry_.offset + out_pos_, dst, size))
                return unreadable(entry_, out_pos_);
        }
        out_pos_ += size;
        return {};
    }
    const bool delta32 = entry_.codec == Codec::zstd_delta32;
    if (delta32 && size % 4 != 0)
        return makeError(ErrorCode::invalid_argument, entry_.offset, entry_.id,
                         "section '%s': zstd+delta32 read in pieces of whole u32s, not %zu bytes",
                         name, size);
    ZSTD_outBuffer out{dst, size, 0};
    while (out.pos < out.size) {
        const uint8_t* data = nullptr;
        size_t stored = 0, pos = 0;
        if (Error error = input(data, stored, pos)) return error;
        ZSTD_inBuffer in{data, stored, pos};
        const size_t before = out.pos;
        const size_t r = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(context_), &out, &in);
        const bool progress = out.pos > before || in.pos > pos;
        consumed(in.pos);
        frame_done_ = r == 0;
        if (ZSTD_isError(r) || (r == 0 && out.pos < out.size) || !progress)
            return makeError(ErrorCode::decompress_failed, entry_.offset, entry_.id,
                             "section '%s': zstd decompression failed (%s)", name,
                             ZSTD_isError(r) ? ZSTD_getErrorName(r) : "frame ended early");
    }
    if (delta32)
        for (size_t k = 0; k < size; k += 4) {
            sum_ += loadLe32(dst + k);
            storeLe32(dst + k, sum_);
        }
    out_pos_ += size;
    return {};
}

Error SectionStream::finish() {
    char name[5];
    fourccToString(entry_.id, name);
    if (out_pos_ != entry_.raw_size)
        return makeError(ErrorCode::invalid_argument, entry_.offset, entry_.id,
                         "section '%s': %llu of %llu bytes read", name,
                         static_cast<unsigned long long>(out_pos_),
                         static_cast<unsigned long long>(entry_.raw_size));
    if (entry_.codec == Codec::raw) return {};
    // The frame must end here: nothing more to decode, every stored byte used.
    uint8_t extra = 0;
    ZSTD_outBuffer out{&extra, 1, 0};
    size_t r = frame_done_ ? 0 : 1;
    for (uint64_t before = UINT64_MAX;
         !ZSTD_isError(r) && r != 0 && out.pos == 0 && in_pos_ != before;) {
        before = in_pos_;
        const uint8_t* data = nullptr;
        size_t stored = 0, pos = 0;
        if (Error error = input(data, stored, pos)) return error;
        ZSTD_inBuffer in{data, stored, pos};
        r = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(context_), &out, &in);
        consumed(in.pos);
    }
    if (ZSTD_isError(r) || r != 0 || out.pos != 0 || in_pos_ != entry_.stored_size)
        return makeError(ErrorCode::decompress_failed, entry_.offset, entry_.id,
                         "section '%s': zstd frame does not end after %llu bytes", name,
                         static_cast<unsigned long long>(entry_.raw_size));
    return {};
}

Error checkCsrOffsets(const uint32_t* offsets, uint64_t count, uint64_t total, uint32_t section) {
    char name[5];
    fourccToString(section, name);
    using ull = unsigned long long;
    if (offsets[0] != 0)
        return makeError(ErrorCode::bad_section, 0, section,
                         "section '%s': offsets start at %u, expected 0", name, offsets[0]);
    for (uint64_t i = 1; i <= count; ++i) {
        if (offsets[i] < offsets[i - 1])
            return makeError(ErrorCode::bad_section, 4 * i, section,
                             "section '%s': offset %llu (%u) is below the one before it (%u)", name,
                             ull(i), offsets[i], offsets[i - 1]);
        if (offsets[i] > total)
            return makeError(ErrorCode::bad_section, 4 * i, section,
                             "section '%s': offset %llu (%u) is past the %llu entries it indexes",
                             name, ull(i), offsets[i], ull(total));
    }
    if (offsets[count] != total)
        return makeError(ErrorCode::bad_section, 4 * count, section,
                         "section '%s': offsets end at %u, expected %llu (the entry count)", name,
                         offsets[count], ull(total));
    return {};
}

}  // namespace nav::formats
