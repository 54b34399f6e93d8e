// The strips layout of a .geo (kind version 4, FORMAT.md §4.6): for world builds of levels too
// large to hold, the triangles with their corners inline (no shared vertex array), sorted into
// strips of `strip_size` metres on Z by the world's own grid (strip k holds z in
// [k, k + 1) x strip_size), a triangle copied into every strip its Z extent meets. The strips'
// blocks are spilled to disk as the import makes them and copied into the file's tail section
// (never whole in memory); a stage reads a strip at a time (voxelize: a window of rows).
// A band of rows that reads strips [a, b] takes each triangle once: from strip max(first, a),
// where `first` is the strip of the triangle's lowest Z (stripOf), which every copy can compute.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "formats/container_writer.h"
#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/common/result.h"

namespace nav::geometry {

struct Bounds;

// One triangle as a strip holds it: 3 corners x (x, y, z) [Units: m], and its area id.
struct StripTriangle {
    std::array<float, 9> p;
    uint8_t area = 0;
};
inline constexpr size_t kStripRecordSize = 37;  // 9 x f32 + u8, packed (FORMAT.md §4.6)

// The strip that holds Z (metres) for strips of `size` metres: floor(z / size), in double,
// clamped to +-2^62 (NaN to -2^62): no level reaches that far, a corrupt file's values may.
int64_t stripOf(float z, float size);
// Whether a copy of `t` in strip `strip` is the one a band reading strips from `first_read` on
// takes (see the file comment).
bool takesCopy(const StripTriangle& t, float size, int64_t strip, int64_t first_read);

// The strips of one import, built as triangles are added (in a deterministic order: the file's),
// their blocks compressed and spilled to a temporary file beside `output` (removed with the
// writer). A strip's open block is held kChunkRecords records at a time: its full chunks wait in
// slots of a second temporary file (reused as blocks close), so a deep level's many strips do not
// each hold a block's room. Holds a chunk per strip and the block table.
class StripWriter {
public:
    StripWriter(float strip_size, const std::filesystem::path& output);
    ~StripWriter();
    StripWriter(const StripWriter&) = delete;
    StripWriter& operator=(const StripWriter&) = delete;
    // A triangle (finite corners; the caller's checks) into every strip its Z extent meets.
    Status add(const StripTriangle& t);
    uint64_t count() const { return count_; }    // triangles added
    uint64_t copies() const { return copies_; }  // records in all strips
    size_t stripCount() const { return strips_.size(); }
    const std::vector<uint64_t>& perArea() const { return per_area_; }  // 256 entries
    // The corners' bounds (all zero when nothing was added).
    void bounds(float min[3], float max[3]) const;
    float stripSize() const { return size_; }
    // Flushes the open blocks, adds GSTR to `writer` and sets its tail (GSTP); the file is then
    // written with saveContainer(path, writer, tailPath()).
    Status finish(formats::ContainerWriter& writer);
    const std::filesystem::path& tailPath() const { return spill_path_; }

    static constexpr size_t kBlockRecords = 512;  // ~18.5 KiB raw a block
    static constexpr size_t kChunkRecords = 64;   // ~2.3 KiB: what a strip holds in memory

private:
    Status flush(int64_t index);
    struct Block {
        uint64_t offset = 0;
        uint32_t stored = 0, records = 0;
        float x_min = 0, x_max = 0;  // its records' corners' X extent
    };
    struct Strip {
        std::vector<uint32_t> staged;  // the open block's full chunks: their staging slots
        std::vector<uint8_t> open;     // its records after them
        float x_min = 0, x_max = 0;    // the open block's
        std::vector<Block> blocks;
    };
    Status stage(Strip& strip);  // the strip's full chunk into a staging slot
    float size_;
    std::map<int64_t, Strip> strips_;
    std::filesystem::path spill_path_, staging_path_;
    int fd_ = -1, staging_fd_ = -1;
    uint64_t spilled_ = 0;
    uint32_t slots_ = 0;  // staging slots made
    std::vector<uint32_t> free_slots_;
    formats::XxHash64 hash_;
    std::vector<uint8_t> block_, compressed_;
    void* context_ = nullptr;  // ZSTD_CCtx, kept across blocks (a fresh one is cleared each time)
    uint64_t count_ = 0, copies_ = 0;
    std::vector<uint64_t> per_area_ = std::vector<uint64_t>(256, 0);
    float min_[3] = {0, 0, 0}, max_[3] = {0, 0, 0};
    Status error_;
};

// The strips of a .geo in the strips layout, read a strip at a time from the file's tail.
class StoredStrips {
public:
    // Opened from the head container (loadContainerHead) of `path`: GSTR decoded and checked,
    // the tail's checksum verified by one pass over it. `area_count` bounds the records' areas.
    static Result<std::shared_ptr<StoredStrips>> open(const LoadedContainer& head,
                                                      uint32_t area_count);
    ~StoredStrips();
    float stripSize() const { return size_; }
    size_t stripCount() const { return strips_.size(); }
    int64_t stripIndex(size_t i) const { return strips_[i].index; }
    uint64_t copies() const { return copies_; }
    // The strip's records, a block at a time, checked (finite corners, area in the table, a Z
    // extent that meets the strip, X within the block's extent). Only the blocks whose X extent
    // meets [x_lo, x_hi] (metres) are read (a file of kind version 4 has none: every block is).
    // Safe to call from one thread at a time.
    using Visit = std::function<Status(std::span<const StripTriangle>)>;
    Status forEach(size_t strip, const Visit& visit,
                   float x_lo = -std::numeric_limits<float>::infinity(),
                   float x_hi = std::numeric_limits<float>::infinity()) const;
    // Blocks read and skipped by forEach so far.
    uint64_t blocksRead() const { return blocks_read_; }
    uint64_t blocksSkipped() const { return blocks_skipped_; }
    // Every triangle once (its first strip's copy), in strip order.
    Status forEachTriangle(const std::function<void(const StripTriangle&)>& visit) const;

private:
    StoredStrips() = default;
    struct Block {
        uint64_t offset = 0;
        uint32_t stored = 0, records = 0;
        float x_min = -std::numeric_limits<float>::infinity();
        float x_max = std::numeric_limits<float>::infinity();
    };
    struct Strip {
        int64_t index = 0;
        uint32_t first_block = 0, block_count = 0;
    };
    mutable uint64_t blocks_read_ = 0, blocks_skipped_ = 0;
    std::filesystem::path path_;
    int fd_ = -1;
    uint64_t tail_offset_ = 0, tail_size_ = 0;
    float size_ = 0;
    uint32_t area_count_ = 0;
    uint64_t copies_ = 0;
    std::vector<Strip> strips_;
    std::vector<Block> blocks_;
    mutable std::vector<uint8_t> stored_, raw_;
    mutable void* context_ = nullptr;  // ZSTD_DCtx
    mutable std::vector<StripTriangle> records_;
};

}  // namespace nav::geometry
