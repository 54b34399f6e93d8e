// navrt: the runtime loader for navbake artifacts. Links nothing but zstd and formats/.
//
// Loading = read the header, check the section table, verify checksums, decode every section
// into one owned, 16-byte aligned buffer and hand out read-only views into it. No exceptions,
// no iostreams, no logging: every failure is returned as an navrt::Error value whose code is
// stable and whose message says where (byte offset, section) and what was expected.
// Memory comes from an optional allocator hook.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/container.h"
#include "formats/layouts.h"

namespace navrt {

using nav::formats::Error;
using nav::formats::ErrorCode;
using nav::formats::errorName;
using nav::formats::fourcc;

// Memory hook. `allocate` returns memory aligned to at least 16 bytes, or null.
struct Allocator {
    void* (*allocate)(size_t size, void* user) = nullptr;
    void (*release)(void* pointer, void* user) = nullptr;
    void* user = nullptr;
};
// `allocator` when both hooks are set, else the default (malloc-based, 16-byte aligned).
Allocator resolveAllocator(const Allocator& allocator);

struct LoadOptions {
    Allocator allocator;                      // default: malloc-based, 16-byte aligned
    uint64_t max_memory = uint64_t(4) << 30;  // refuse assets that decode to more than this
    uint32_t expected_kind = 0;               // when non-zero, other kinds give wrong_kind
};

struct SectionView {
    uint32_t id = 0;
    nav::formats::Codec codec = nav::formats::Codec::raw;
    uint64_t stored_size = 0;       // bytes in the file
    const uint8_t* data = nullptr;  // decoded bytes (16-byte aligned), valid while the Asset lives
    size_t size = 0;                // decoded size
};

// A loaded artifact. Move-only; frees its buffer on destruction.
class Asset {
public:
    Asset() = default;
    ~Asset();
    Asset(Asset&& other) noexcept;
    Asset& operator=(Asset&& other) noexcept;
    Asset(const Asset&) = delete;
    Asset& operator=(const Asset&) = delete;

    bool loaded() const { return buffer_ != nullptr || section_count_ > 0; }
    uint32_t kind() const { return kind_; }
    uint32_t kindVersion() const { return kind_version_; }
    uint32_t sectionCount() const { return section_count_; }
    SectionView section(uint32_t index) const;  // index < sectionCount()
    // The section with this id, or a view with data == nullptr and id == 0 when absent.
    SectionView find(uint32_t id) const;
    // find(), with ErrorCode::missing_section naming the section when it is absent.
    Error require(uint32_t id, SectionView& view) const;
    // Frees the buffer; the asset is then empty.
    void reset();

private:
    friend Error loadFromMemory(const void*, size_t, Asset&, const LoadOptions&);

    uint8_t* buffer_ = nullptr;
    Allocator allocator_;
    uint32_t kind_ = 0;
    uint32_t kind_version_ = 0;
    uint32_t section_count_ = 0;
    SectionView sections_[nav::formats::kMaxSections];
};

// Loads from a file. On error `out` is left empty.
Error load(const char* path, Asset& out, const LoadOptions& options = {});
// Loads from a caller-owned buffer (which may be freed after the call returns).
Error loadFromMemory(const void* data, size_t size, Asset& out, const LoadOptions& options = {});

// ---- Typed views --------------------------------------------------------------------------------
// Each view checks the sections it uses completely when created, so its accessors need no
// further checks.

struct GeometryView {
    nav::formats::GeometryHeader header;
    const float* vertices = nullptr;      // 3 per vertex
    const uint32_t* triangles = nullptr;  // 3 per triangle, each < header.vertex_count
    const uint8_t* triangle_areas = nullptr;
};
Error viewGeometry(const Asset& asset, GeometryView& out);

struct VoxelGridView {
    nav::formats::VoxelHeader header;
    const uint32_t* column_offsets = nullptr;  // size_x * size_z + 1
    const uint8_t* spans = nullptr;            // kSpanRecordSize bytes each
    uint32_t area_count = 0;

    uint32_t columnBegin(uint32_t x, uint32_t z) const {
        return column_offsets[size_t(z) * header.size_x + x];
    }
    uint32_t columnEnd(uint32_t x, uint32_t z) const {
        return column_offsets[size_t(z) * header.size_x + x + 1];
    }
    nav::formats::SpanRecord span(uint32_t index) const {
        return nav::formats::decodeSpan(spans + size_t(index) * nav::formats::kSpanRecordSize);
    }
};
Error viewVoxelGrid(const Asset& asset, VoxelGridView& out);

}  // namespace navrt
