// Builds a navbake container in memory (bake side only; the runtime never writes).
// Output depends only on the sections added and their order: no timestamps, no paths.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/container.h"

namespace nav::formats {

class ContainerWriter {
public:
    ContainerWriter(uint32_t kind, uint32_t kind_version)
        : kind_(kind), kind_version_(kind_version) {}

    // Adds a section. With Codec::zstd the bytes are compressed, unless compression does not make
    // them smaller, in which case they are stored raw. Section ids must be unique. `level` > 0
    // compresses this section at that zstd level instead of the writer's. Sections are encoded
    // here, as they are added, so the writer holds only their stored bytes (a large raw array is
    // not kept beside its compressed form until finish).
    void add(uint32_t id, std::vector<uint8_t> bytes, Codec codec = Codec::zstd, int level = 0);
    // The same for bytes the caller keeps (a large array viewed in place, not copied to be
    // compressed): only what is stored is kept.
    void add(uint32_t id, std::span<const uint8_t> bytes, Codec codec = Codec::zstd, int level = 0);
    // Adds a section already encoded by the caller (e.g. compressed as a stream,
    // ZstdSectionStream): `stored` is kept as it is, with `raw_size` the size it decodes to.
    void addEncoded(uint32_t id, Codec codec, uint64_t raw_size, std::vector<uint8_t> stored);

    // A last section, raw, written by the caller after finish's bytes (a section too large to
    // hold: its `size` bytes, with XXH64 `checksum`, streamed from a file): finish then leaves out
    // only its bytes, and the output ends where they begin. Several tails follow each other in
    // the order they were set, each at the section alignment (zero bytes between).
    // A compressed tail (ZstdSectionStream::addTailTo) gives its codec and decoded size.
    void setTail(uint32_t id, uint64_t size, uint64_t checksum, Codec codec = Codec::raw,
                 uint64_t raw_size = UINT64_MAX) {
        tails_.push_back(Tail{id, size, checksum, codec, raw_size == UINT64_MAX ? size : raw_size});
    }
    // The stored sizes of the tails, in order.
    std::vector<uint64_t> tailSizes() const {
        std::vector<uint64_t> sizes;
        for (const Tail& t : tails_) sizes.push_back(t.size);
        return sizes;
    }
    // zstd level used for compressed sections (1..19) added after this call. Single-threaded,
    // hence deterministic.
    void setCompressionLevel(int level) { level_ = level; }
    // Caps the compressor's match tables at 2^log entries each (hash and chain) for sections
    // added after this call (0: the level's own, which grow with a large section to tens of
    // MiB): a bounded-memory stage writing a large table.
    void setTableLog(int log) { table_log_ = log; }

    // Serialises header, table and sections. Returns false and sets `error` on failure
    // (duplicate id, too many sections, compression failure).
    bool finish(std::vector<uint8_t>& out, std::string& error) const;

private:
    struct Encoded {
        uint32_t id;
        Codec codec;        // as stored (raw when compression did not pay)
        uint64_t raw_size;  // bytes after decoding
        std::vector<uint8_t> stored;
    };
    // Compresses `input` into `out`; false when that does not make it smaller or fails (error_).
    bool compress(std::span<const uint8_t> input, int level, std::vector<uint8_t>& out);
    uint32_t kind_;
    uint32_t kind_version_;
    int level_ = 9;
    int table_log_ = 0;
    std::vector<Encoded> sections_;
    struct Tail {
        uint32_t id = 0;
        uint64_t size = 0, checksum = 0;
        Codec codec = Codec::raw;
        uint64_t raw_size = 0;
    };
    std::vector<Tail> tails_;
    std::string error_;  // the first failure of add, reported by finish
};

// One section written as a stream (the rows of a voxel grid as they are made), for a section too
// large to hold raw. Bytes are held until there are more than `hold` of them; a section that ends
// by then is added as ContainerWriter::add would (raw where compression does not pay), a larger one
// is compressed as it comes into one zstd frame that declares its content size (FORMAT.md §1.3),
// like ZSTD_compress's, so readers see no difference. The frame depends only on the bytes written,
// not on how they were split into calls. `delta32` gives the zstd+delta32 codec (feed whole u32s).
// `window` sizes the compressor's memory (see StreamWindow).
enum class StreamWindow {
    wide,    // 256 KiB of history, 2^14-entry match tables: a context of ~1.1 MiB
    narrow,  // 64 KiB, 2^12: ~0.5 MiB. For sections whose repeats are near (per-column counts,
             // per-triangle ids): as small within a few % on the levels here
};
// Where a stream spills its compressed bytes instead of holding them (a temporary file).
class SpillSink {
public:
    virtual ~SpillSink() = default;
    virtual bool writeAt(uint64_t offset, const uint8_t* bytes, size_t size) = 0;
    virtual bool readAt(uint64_t offset, uint8_t* bytes, size_t size) = 0;
};

class ZstdSectionStream {
public:
    // (256 KiB: the held bytes and the context that takes them are both resident as it starts.)
    static constexpr size_t kHoldBytes = size_t(1) << 18;
    explicit ZstdSectionStream(int level, bool delta32 = false,
                               StreamWindow window = StreamWindow::wide, size_t hold = kHoldBytes);
    ~ZstdSectionStream();
    ZstdSectionStream(const ZstdSectionStream&) = delete;
    ZstdSectionStream& operator=(const ZstdSectionStream&) = delete;

    // False once compression failed (see error()).
    bool write(const uint8_t* bytes, size_t size);
    // Ends the section and adds it to `writer` as `id`. False (error() set) on failure.
    bool addTo(ContainerWriter& writer, uint32_t id);
    // Spills the compressed frame to `sink` as it comes (call before the first write; `sink`
    // must outlive the stream): a large section's bytes are not held. addTailTo then ends it.
    void spillTo(SpillSink& sink) { sink_ = &sink; }
    // Ends a spilling section: one that outgrew `hold` becomes `writer`'s tail (its stored bytes
    // are the sink's first tailSize() bytes: write them after the writer's); a smaller one is
    // added as addTo adds it (tailSize() 0). False (error() set) on failure.
    bool addTailTo(ContainerWriter& writer, uint32_t id);
    uint64_t tailSize() const { return tail_size_; }
    // Ends the section and returns every byte written, decoded (empty with error() set on
    // failure); the stream is spent. For a writer that must change what it wrote (a rare case).
    std::vector<uint8_t> takeRaw();
    const std::string& error() const { return error_; }

private:
    bool start();
    bool pump(const uint8_t* bytes, size_t size, bool end);
    bool feed(const uint8_t* bytes, size_t size);  // delta-codes, then pumps
    void* context_ = nullptr;                      // ZSTD_CCtx, once streaming
    int level_;
    bool delta32_;
    StreamWindow window_;
    size_t hold_;
    uint32_t previous_ = 0;
    uint64_t raw_size_ = 0;
    std::vector<uint8_t> held_;  // raw bytes, until there are more than hold_
    std::vector<uint8_t> out_;
    // Spilling: the frame's first 6 bytes (patched at the end), the bytes after them written to
    // the sink from offset 14 (room for those 6 and the content size field).
    SpillSink* sink_ = nullptr;
    std::vector<uint8_t> head_;
    uint64_t spilled_ = 0, tail_size_ = 0;
    bool spill();  // out_ to the sink (past the head)
    std::vector<uint8_t> scratch_;
    std::string error_;
};

}  // namespace nav::formats
