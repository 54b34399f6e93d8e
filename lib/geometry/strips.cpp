#include "lib/geometry/strips.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <tuple>

#include "formats/bytes.h"
#include "formats/layouts.h"

namespace nav::geometry {
namespace {

constexpr int kStripZstdLevel = 3;  // as the other .geo arrays
constexpr size_t kStripHeaderSize = 16, kStripEntrySize = 16;
// A block's entry in GSTR: 16 bytes in kind version 4, 24 with its X extent in version 5.
constexpr size_t kBlockEntrySizeV4 = 16, kBlockEntrySize = 24;
constexpr uint32_t kMaxBlockRecords = 1u << 16;

void putRecord(std::vector<uint8_t>& out, const StripTriangle& t) {
    const size_t at = out.size();
    out.resize(at + kStripRecordSize);
    std::memcpy(out.data() + at, t.p.data(), 36);
    out[at + 36] = t.area;
}

}  // namespace

int64_t stripOf(float z, float size) {
    // Clamped to +-2^62 so that a corrupt file's far (or non-finite) coordinates over a tiny strip
    // size convert to a defined value; such records are refused by the readers' extent checks.
    constexpr double kLimit = 4611686018427387904.0;  // 2^62
    const double strip = std::floor(double(z) / double(size));
    if (!(strip > -kLimit)) return -int64_t(kLimit);  // (NaN included)
    return strip < kLimit ? int64_t(strip) : int64_t(kLimit);
}

bool takesCopy(const StripTriangle& t, float size, int64_t strip, int64_t first_read) {
    const float z_lo = std::min({t.p[2], t.p[5], t.p[8]});
    return strip == std::max(stripOf(z_lo, size), first_read);
}

StripWriter::StripWriter(float strip_size, const std::filesystem::path& output)
    : size_(strip_size) {
    const std::filesystem::path folder =
        output.has_parent_path() ? output.parent_path() : std::filesystem::path(".");
    // The blocks' file (the .geo's tail) and the open blocks' staging slots.
    for (auto [what, fd, path] : {std::tuple{"strips", &fd_, &spill_path_},
                                  std::tuple{"staging", &staging_fd_, &staging_path_}}) {
        auto file =
            createSpillFile(folder, fmt::format(".{}.{}-", output.filename().string(), what));
        if (!file) {
            error_ = makeError(ErrorKind::io, "{}: {}", output.string(), file.error().message);
            return;
        }
        *fd = file->fd;
        *path = std::move(file->path);
    }
}

StripWriter::~StripWriter() {
    ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context_));
    if (fd_ >= 0) ::close(fd_);
    if (staging_fd_ >= 0) ::close(staging_fd_);
    std::error_code ec;
    std::filesystem::remove(spill_path_, ec);
    if (!staging_path_.empty()) std::filesystem::remove(staging_path_, ec);
}

void StripWriter::bounds(float min[3], float max[3]) const {
    for (int a = 0; a < 3; ++a) min[a] = min_[a], max[a] = max_[a];
}

Status StripWriter::add(const StripTriangle& t) {
    if (!error_) return error_;
    for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 3; ++a) {
            const float v = t.p[size_t(3 * k + a)];
            if (count_ == 0 && k == 0) {
                min_[a] = max_[a] = v;
            } else {
                min_[a] = std::min(min_[a], v);
                max_[a] = std::max(max_[a], v);
            }
        }
    ++count_;
    ++per_area_[t.area];
    const int64_t first = stripOf(std::min({t.p[2], t.p[5], t.p[8]}), size_);
    const int64_t last = stripOf(std::max({t.p[2], t.p[5], t.p[8]}), size_);
    const float x_lo = std::min({t.p[0], t.p[3], t.p[6]});
    const float x_hi = std::max({t.p[0], t.p[3], t.p[6]});
    constexpr size_t kChunkBytes = kChunkRecords * kStripRecordSize;
    static_assert(kBlockRecords % kChunkRecords == 0);
    for (int64_t s = first; s <= last; ++s) {
        Strip& strip = strips_[s];
        if (strip.open.empty() && strip.staged.empty()) {
            strip.open.reserve(kChunkBytes);
            strip.x_min = x_lo, strip.x_max = x_hi;
        }
        strip.x_min = std::min(strip.x_min, x_lo);
        strip.x_max = std::max(strip.x_max, x_hi);
        putRecord(strip.open, t);
        ++copies_;
        if (strip.open.size() < kChunkBytes) continue;
        if ((strip.staged.size() + 1) * kChunkRecords == kBlockRecords) {
            if (Status st = flush(s); !st) return error_ = st;
        } else if (Status st = stage(strip); !st) {
            return error_ = st;
        }
    }
    return {};
}

Status StripWriter::stage(Strip& strip) {
    uint32_t slot = slots_;
    if (!free_slots_.empty()) {
        slot = free_slots_.back();
        free_slots_.pop_back();
    } else {
        ++slots_;
    }
    if (Status s = writeAt(staging_fd_, strip.open.data(), strip.open.size(),
                           uint64_t(slot) * kChunkRecords * kStripRecordSize, staging_path_);
        !s)
        return s;
    strip.staged.push_back(slot);
    strip.open.clear();
    return {};
}

Status StripWriter::flush(int64_t index) {
    Strip& strip = strips_[index];
    if (strip.open.empty() && strip.staged.empty()) return {};
    if (context_ == nullptr && (context_ = ZSTD_createCCtx()) == nullptr)
        return makeError(ErrorKind::internal, "strips: out of memory for the compressor");
    // The block: its staged chunks read back, then the open records.
    constexpr size_t kChunkBytes = kChunkRecords * kStripRecordSize;
    block_.resize(strip.staged.size() * kChunkBytes + strip.open.size());
    for (size_t c = 0; c < strip.staged.size(); ++c) {
        if (Status s = readAt(staging_fd_, block_.data() + c * kChunkBytes, kChunkBytes,
                              uint64_t(strip.staged[c]) * kChunkBytes, staging_path_);
            !s)
            return s;
        free_slots_.push_back(strip.staged[c]);
    }
    if (!strip.open.empty())
        std::memcpy(block_.data() + strip.staged.size() * kChunkBytes, strip.open.data(),
                    strip.open.size());
    compressed_.resize(ZSTD_compressBound(block_.size()));
    const size_t n =
        ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(context_), compressed_.data(), compressed_.size(),
                          block_.data(), block_.size(), kStripZstdLevel);
    if (ZSTD_isError(n))
        return makeError(ErrorKind::internal, "strips: compression failed: {}",
                         ZSTD_getErrorName(n));
    if (Status s = writeAll(fd_, std::span<const uint8_t>(compressed_.data(), n), spill_path_); !s)
        return s;
    hash_.update(compressed_.data(), n);
    strip.blocks.push_back({spilled_, uint32_t(n), uint32_t(block_.size() / kStripRecordSize),
                            strip.x_min, strip.x_max});
    spilled_ += n;
    strip.staged = std::vector<uint32_t>();
    strip.open.clear();
    strip.open.shrink_to_fit();  // a strip's next block may be far off: its room back meanwhile
    return {};
}

Status StripWriter::finish(formats::ContainerWriter& writer) {
    if (!error_) return error_;
    formats::ByteWriter table;
    uint32_t blocks = 0;
    for (auto& [index, strip] : strips_) {
        if (Status s = flush(index); !s) return error_ = s;
        blocks += uint32_t(strip.blocks.size());
    }
    table.f32(size_);
    table.u32(uint32_t(strips_.size()));
    table.u32(blocks);
    table.u32(0);
    uint32_t first = 0;
    for (const auto& [index, strip] : strips_) {
        table.u64(uint64_t(index));
        table.u32(first);
        table.u32(uint32_t(strip.blocks.size()));
        first += uint32_t(strip.blocks.size());
    }
    for (const auto& [index, strip] : strips_)
        for (const Block& b : strip.blocks) {
            table.u64(b.offset);
            table.u32(b.stored);
            table.u32(b.records);
            table.f32(b.x_min);
            table.f32(b.x_max);
        }
    writer.add(formats::kSecGeometryStrips, table.take());
    writer.setTail(formats::kSecGeometryStripBlocks, spilled_, hash_.digest());
    if (::fsync(fd_) != 0)
        return makeError(ErrorKind::io, "{}: flushing failed: {}", spill_path_.string(),
                         std::strerror(errno));
    return {};
}

StoredStrips::~StoredStrips() {
    ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(context_));
    if (fd_ >= 0) ::close(fd_);
}

Result<std::shared_ptr<StoredStrips>> StoredStrips::open(const LoadedContainer& head,
                                                         uint32_t area_count) {
    const formats::Container& c = head.container;
    const int tail = c.find(formats::kSecGeometryStripBlocks);
    if (tail < 0 || size_t(tail) + 1 != c.section_count)
        return makeError(ErrorKind::bad_input,
                         "{}: the strips layout needs section 'GSTP' last (its triangles)",
                         head.path.string());
    auto table = head.section(formats::kSecGeometryStrips);
    if (!table) return table.error();
    std::shared_ptr<StoredStrips> s(new StoredStrips());
    s->path_ = head.path;
    s->area_count_ = area_count;
    const formats::SectionEntry& entry = c.sections[size_t(tail)];
    s->tail_offset_ = entry.offset;
    s->tail_size_ = entry.stored_size;
    const std::string file = head.path.string();
    auto bad = [&](uint64_t at, std::string what) {
        return makeError(ErrorKind::bad_input, "{}: section 'GSTR' byte {}: {}", file, at, what);
    };
    const std::vector<uint8_t>& t = *table;
    if (t.size() < kStripHeaderSize) return bad(0, "shorter than its 16-byte header");
    float size;
    std::memcpy(&size, t.data(), 4);
    const uint32_t strip_count = formats::loadLe32(t.data() + 4);
    const uint32_t block_count = formats::loadLe32(t.data() + 8);
    if (!(std::isfinite(size) && size > 0))
        return bad(0, fmt::format("strip size {} is not a positive number", size));
    if (formats::loadLe32(t.data() + 12) != 0) return bad(12, "reserved bytes are not zero");
    const bool extents = head.container.kind_version >= formats::kGeometryStripExtentsVersion;
    const size_t block_entry = extents ? kBlockEntrySize : kBlockEntrySizeV4;
    const uint64_t expected = kStripHeaderSize + uint64_t(strip_count) * kStripEntrySize +
                              uint64_t(block_count) * block_entry;
    if (t.size() != expected)
        return bad(4, fmt::format("{} bytes for {} strips and {} blocks, expected {}", t.size(),
                                  strip_count, block_count, expected));
    s->size_ = size;
    uint64_t at = kStripHeaderSize;
    uint32_t next_block = 0;
    for (uint32_t i = 0; i < strip_count; ++i, at += kStripEntrySize) {
        Strip strip;
        strip.index = int64_t(formats::loadLe64(t.data() + at));
        strip.first_block = formats::loadLe32(t.data() + at + 8);
        strip.block_count = formats::loadLe32(t.data() + at + 12);
        if (i > 0 && strip.index <= s->strips_.back().index)
            return bad(at, "strips are not in increasing order");
        if (strip.first_block != next_block || strip.block_count == 0 ||
            strip.block_count > block_count - next_block)
            return bad(at + 8,
                       fmt::format("strip {} has blocks {}..+{}, expected from {} (of {})", i,
                                   strip.first_block, strip.block_count, next_block, block_count));
        next_block += strip.block_count;
        s->strips_.push_back(strip);
    }
    if (next_block != block_count)
        return bad(8, fmt::format("the strips hold {} blocks of {}", next_block, block_count));
    for (uint32_t i = 0; i < block_count; ++i, at += block_entry) {
        Block b;
        b.offset = formats::loadLe64(t.data() + at);
        b.stored = formats::loadLe32(t.data() + at + 8);
        b.records = formats::loadLe32(t.data() + at + 12);
        if (extents) {
            std::memcpy(&b.x_min, t.data() + at + 16, 4);
            std::memcpy(&b.x_max, t.data() + at + 20, 4);
            if (!(std::isfinite(b.x_min) && std::isfinite(b.x_max) && b.x_min <= b.x_max))
                return bad(at + 16,
                           fmt::format("block {} has the X extent [{}, {}]", i, b.x_min, b.x_max));
        }
        if (b.offset > s->tail_size_ || b.stored > s->tail_size_ - b.offset || b.stored == 0)
            return bad(at, fmt::format("block {} ({} bytes at {}) lies outside 'GSTP' ({} bytes)",
                                       i, b.stored, b.offset, s->tail_size_));
        if (b.records == 0 || b.records > kMaxBlockRecords)
            return bad(at + 12, fmt::format("block {} holds {} records (1..{})", i, b.records,
                                            kMaxBlockRecords));
        s->copies_ += b.records;
        s->blocks_.push_back(b);
    }
    s->fd_ = ::open(head.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (s->fd_ < 0)
        return makeError(ErrorKind::io, "{}: cannot open: {}", file, std::strerror(errno));
    // The tail's checksum, in one pass of 1 MiB reads.
    formats::XxHash64 hash;
    std::vector<uint8_t> chunk(size_t(1) << 20);
    for (uint64_t done = 0; done < s->tail_size_;) {
        const size_t n = size_t(std::min<uint64_t>(chunk.size(), s->tail_size_ - done));
        if (Status st = readAt(s->fd_, chunk.data(), n, s->tail_offset_ + done, head.path); !st)
            return st.error();
        hash.update(chunk.data(), n);
        done += n;
    }
    if (hash.digest() != entry.checksum)
        return makeError(ErrorKind::bad_input,
                         "{}: byte {} (section 'GSTP'): checksum mismatch (stored {:016x}, "
                         "computed {:016x}) [checksum_mismatch]",
                         file, s->tail_offset_, entry.checksum, hash.digest());
    return s;
}

Status StoredStrips::forEach(size_t strip_number, const Visit& visit, float x_lo,
                             float x_hi) const {
    const Strip& strip = strips_[strip_number];
    const std::string file = path_.string();
    for (uint32_t k = 0; k < strip.block_count; ++k) {
        const Block& b = blocks_[strip.first_block + k];
        if (b.x_max < x_lo || b.x_min > x_hi) {
            ++blocks_skipped_;
            continue;
        }
        ++blocks_read_;
        stored_.resize(b.stored);
        if (Status st = readAt(fd_, stored_.data(), b.stored, tail_offset_ + b.offset, path_); !st)
            return st;
        const size_t raw_size = size_t(b.records) * kStripRecordSize;
        raw_.resize(raw_size);
        if (context_ == nullptr && (context_ = ZSTD_createDCtx()) == nullptr)
            return makeError(ErrorKind::internal, "strips: out of memory for the decompressor");
        const size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(context_), raw_.data(),
                                             raw_size, stored_.data(), b.stored);
        if (ZSTD_isError(n) || n != raw_size)
            return makeError(ErrorKind::bad_input,
                             "{}: byte {} (section 'GSTP'): strip block {} does not decode to its "
                             "{} records",
                             file, tail_offset_ + b.offset, strip.first_block + k, b.records);
        records_.resize(b.records);
        for (uint32_t r = 0; r < b.records; ++r) {
            StripTriangle& t = records_[r];
            const uint8_t* in = raw_.data() + size_t(r) * kStripRecordSize;
            std::memcpy(t.p.data(), in, 36);
            t.area = in[36];
            bool finite = true;
            for (float v : t.p) finite = finite && std::isfinite(v);
            const int64_t lo = stripOf(std::min({t.p[2], t.p[5], t.p[8]}), size_);
            const int64_t hi = stripOf(std::max({t.p[2], t.p[5], t.p[8]}), size_);
            const bool inside = std::min({t.p[0], t.p[3], t.p[6]}) >= b.x_min &&
                                std::max({t.p[0], t.p[3], t.p[6]}) <= b.x_max;
            if (!finite || t.area >= area_count_ || lo > strip.index || hi < strip.index || !inside)
                return makeError(
                    ErrorKind::bad_input,
                    "{}: strip block {} record {}: {} (section 'GSTP', block at byte {})", file,
                    strip.first_block + k, r,
                    !finite ? "a corner is not finite"
                    : t.area >= area_count_
                        ? fmt::format("area {} is not in the table of {}", t.area, area_count_)
                    : !inside ? fmt::format("its X extent lies outside the block's [{}, {}]",
                                            b.x_min, b.x_max)
                              : fmt::format("its Z extent (strips {}..{}) misses strip {}", lo, hi,
                                            strip.index),
                    tail_offset_ + b.offset);
        }
        if (Status s = visit(records_); !s) return s;
    }
    return {};
}

Status StoredStrips::forEachTriangle(const std::function<void(const StripTriangle&)>& visit) const {
    for (size_t i = 0; i < strips_.size(); ++i) {
        const int64_t strip = strips_[i].index;
        Status s = forEach(i, [&](std::span<const StripTriangle> records) {
            for (const StripTriangle& t : records)
                if (takesCopy(t, size_, strip, INT64_MIN)) visit(t);
            return Status{};
        });
        if (!s) return s;
    }
    return {};
}

}  // namespace nav::geometry
