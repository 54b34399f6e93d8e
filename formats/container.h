// The navbake container: one file layout for every artifact (.geo, .vox, .graph, .nav).
//
//   header (64 bytes) | section table (48 bytes per section) | sections, each 16-byte aligned
//
// Every byte is specified in formats/FORMAT.md. This header holds the reader, which is shared by
// the bake side and the runtime loader (navrt): it never allocates, never throws, and checks every
// size, offset and count against the buffer before using it. The writer is in container_writer.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nav::formats {

inline constexpr uint8_t kMagic[8] = {0x89, 'N', 'A', 'V', 0x0D, 0x0A, 0x1A, 0x0A};
// Version of the container layout itself (header + section table). Bumped on any change.
inline constexpr uint32_t kContainerVersion = 1;
inline constexpr size_t kHeaderSize = 64;
inline constexpr size_t kSectionEntrySize = 48;
inline constexpr size_t kSectionAlignment = 16;
inline constexpr uint32_t kMaxSections = 64;

// Four-character codes, stored as the four ASCII bytes in file order (so 'GEOM' reads "GEOM"
// in a hex dump); as a number that is the little-endian u32 of those bytes.
constexpr uint32_t fourcc(const char (&s)[5]) {
    return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
           uint32_t(uint8_t(s[3])) << 24;
}
// Writes the four characters of `code` into out[0..3] and a terminator into out[4];
// non-printable bytes become '?'.
void fourccToString(uint32_t code, char out[5]);

// raw: stored as is. zstd: one zstd frame. zstd_delta32: the section is an array of u32 (size a
// multiple of 4); the stored frame holds the wrapping differences of consecutive values (the first
// against 0), which makes monotone arrays such as CSR offsets compress far better.
enum class Codec : uint32_t { raw = 0, zstd = 1, zstd_delta32 = 2 };
// The most a zstd stream expands: a block decodes to at most 128 KiB and takes at least 4 stored
// bytes (an RLE block), so raw_size <= 32768 x stored_size for any valid zstd section.
inline constexpr uint64_t kMaxZstdExpansion = 32768;
const char* codecName(Codec codec);

enum class ErrorCode : uint32_t {
    ok = 0,
    io_error,           // could not open or read the file
    truncated,          // the file is shorter than its header says (or than a header)
    bad_magic,          // not a navbake file
    newer_version,      // written by a newer navbake: container or kind version unknown here
    bad_version,        // version 0, which no writer produces
    bad_header,         // header fields out of range or reserved bytes not zero
    checksum_mismatch,  // header/table or a section's bytes do not match their checksum
    trailing_data,      // bytes after the end the header declares
    bad_section_table,  // a section entry is out of bounds, misaligned, overlapping or duplicated
    unknown_codec,      // a section uses a codec this reader does not know
    decompress_failed,  // zstd rejected a section's stream or produced the wrong size
    wrong_kind,         // the artifact is of another kind than the caller asked for
    missing_section,    // a section the kind requires is absent
    bad_section,        // a section's contents are inconsistent (counts, indices, sizes)
    out_of_memory,      // an allocation failed or exceeded the caller's limit
    invalid_argument,   // the caller passed an invalid argument (null buffer, ...)
};
const char* errorName(ErrorCode code);

// An error as a value: a stable code, where it happened, and a readable sentence.
struct Error {
    ErrorCode code = ErrorCode::ok;
    uint64_t offset = 0;   // byte offset in the file (or in the section, see message) it concerns
    uint32_t section = 0;  // fourcc of the section concerned, 0 if none
    char message[256] = {};

    explicit operator bool() const { return code != ErrorCode::ok; }
};
// Builds an Error with a printf-style message.
Error makeError(ErrorCode code, uint64_t offset, uint32_t section, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

// Checks a CSR offset array of `count` + 1 u32 values against the `total` entries it indexes:
// offsets[0] = 0, never decreasing, never past `total`, offsets[count] = total. The first wrong
// value is reported as `bad_section` of `section` at its byte offset. Once it passes, rows
// offsets[i] .. offsets[i + 1] may be read without further bounds checks.
Error checkCsrOffsets(const uint32_t* offsets, uint64_t count, uint64_t total, uint32_t section);

struct SectionEntry {
    uint32_t id = 0;
    Codec codec = Codec::raw;
    uint64_t offset = 0;       // from the start of the file, multiple of 16
    uint64_t stored_size = 0;  // bytes in the file
    uint64_t raw_size = 0;     // bytes after decoding
    uint64_t checksum = 0;     // XXH64 (seed 0) of the stored bytes
};

struct Container {
    uint32_t version = 0;
    uint32_t kind = 0;
    uint32_t kind_version = 0;
    uint64_t file_size = 0;
    uint64_t header_checksum = 0;
    uint32_t section_count = 0;
    SectionEntry sections[kMaxSections];

    // Index of the section with this id, or -1.
    int find(uint32_t id) const;
};

// The header checksum (FORMAT.md 1.1): XXH64 over the 64 header bytes at `data` with the
// checksum field (bytes 40..47) taken as zero, followed by the `table_bytes` of the section table.
uint64_t headerChecksum(const uint8_t* data, size_t table_bytes);

// Validates the header and the section table of `size` bytes at `data` and fills `out`.
// Section payloads are not touched (see verifySection / decodeSection).
Error parseContainer(const uint8_t* data, size_t size, Container& out);
// The same for the head of a file of `file_size` bytes whose last `tail_sections` sections (its
// tail, e.g. a large level's triangle strips, a large grid's columns and spans) the reader leaves
// on disk: `data` holds the file up to at least the first of them. Every check but the tail's
// bytes and the padding between its sections (read and verified by their own readers).
Error parseContainerHead(const uint8_t* data, size_t size, uint64_t file_size, Container& out,
                         uint32_t tail_sections = 1);
// The header and section table alone (`data`: at least the table), against a file of
// `file_size` bytes: every check that does not read a section's bytes or the padding between.
Error parseContainerTable(const uint8_t* data, size_t size, uint64_t file_size, Container& out);

// Checks that the artifact is of `kind`, with a kind version this reader supports.
Error checkKind(const Container& container, uint32_t kind, uint32_t max_kind_version);

// Verifies a section's checksum. `file` is the whole file already checked by parseContainer.
Error verifySection(const uint8_t* file, const SectionEntry& entry);

// Verifies and decodes a section into `dst`, which must hold exactly entry.raw_size bytes.
Error decodeSection(const uint8_t* file, const SectionEntry& entry, uint8_t* dst, size_t dst_size);

// Decodes a raw or zstd section piece by piece, for sections too large to decode whole (the spans
// of a large voxel grid): the checksum is verified first, then read() hands out the next bytes;
// finish() checks that every byte was read and the frame ended. Same checks and errors as
// decodeSection. A zstd+delta32 section is read in whole u32s (sizes multiples of 4), its
// differences summed as they come.
// Where a streamed section's stored bytes come from when the reader leaves them on disk (the
// tail of a container read with its head only: a large voxel grid's spans).
class StoredBytes {
public:
    virtual ~StoredBytes() = default;
    // Copies `size` bytes at file offset `offset` into dst; false when they cannot be read.
    virtual bool read(uint64_t offset, uint8_t* dst, size_t size) = 0;
};

class SectionStream {
public:
    // The section's stored bytes in memory: `file` is the whole file (or its head holding them).
    SectionStream(const uint8_t* file, const SectionEntry& entry);
    // The stored bytes read from `source` a block at a time (start() reads them once more
    // first, for the checksum); `source` must outlive the stream.
    SectionStream(const SectionEntry& entry, StoredBytes& source);
    ~SectionStream();
    SectionStream(const SectionStream&) = delete;
    SectionStream& operator=(const SectionStream&) = delete;
    Error start();                          // checksum and frame header
    Error read(uint8_t* dst, size_t size);  // the next `size` decoded bytes
    Error finish();

private:
    // The next stored bytes as zstd's input, from memory or the source's block (refilled when
    // used up); `consumed` is how far zstd got.
    Error input(const uint8_t*& data, size_t& size, size_t& pos);
    void consumed(size_t pos);
    const uint8_t* file_ = nullptr;
    const uint8_t* src_ = nullptr;
    StoredBytes* source_ = nullptr;
    uint8_t* block_ = nullptr;  // source mode: stored bytes [block_base_, + block_size_)
    uint64_t block_base_ = 0;
    size_t block_size_ = 0;
    SectionEntry entry_;
    void* context_ = nullptr;  // ZSTD_DCtx
    uint64_t in_pos_ = 0;      // stored bytes consumed
    uint64_t out_pos_ = 0;     // decoded bytes handed out
    bool frame_done_ = false;  // zstd reported the frame's end
    uint32_t sum_ = 0;         // zstd+delta32: the last value handed out
};

}  // namespace nav::formats
