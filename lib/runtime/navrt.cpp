#include "lib/runtime/navrt.h"

#include "formats/graph_sections.h"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace navrt {

static_assert(std::endian::native == std::endian::little,
              "navrt hands out in-place views of little-endian data; big-endian hosts would "
              "need byte swapping");

using nav::formats::Codec;
using nav::formats::Container;
using nav::formats::makeError;

namespace {

void* defaultAllocate(size_t size, void*) { return std::aligned_alloc(16, (size + 15) / 16 * 16); }
void defaultRelease(void* pointer, void*) { std::free(pointer); }

constexpr size_t alignUp(size_t v) { return (v + 15) / 16 * 16; }

}  // namespace

Allocator resolveAllocator(const Allocator& a) {
    if (a.allocate != nullptr && a.release != nullptr) return a;
    return Allocator{defaultAllocate, defaultRelease, nullptr};
}

Asset::~Asset() { reset(); }

Asset::Asset(Asset&& other) noexcept { *this = static_cast<Asset&&>(other); }

Asset& Asset::operator=(Asset&& other) noexcept {
    if (this == &other) return *this;
    reset();
    buffer_ = other.buffer_;
    allocator_ = other.allocator_;
    kind_ = other.kind_;
    kind_version_ = other.kind_version_;
    section_count_ = other.section_count_;
    std::memcpy(static_cast<void*>(sections_), other.sections_, sizeof(sections_));
    other.buffer_ = nullptr;
    other.section_count_ = 0;
    other.kind_ = 0;
    return *this;
}

void Asset::reset() {
    if (buffer_ != nullptr) allocator_.release(buffer_, allocator_.user);
    buffer_ = nullptr;
    section_count_ = 0;
    kind_ = 0;
    kind_version_ = 0;
}

SectionView Asset::section(uint32_t index) const {
    return index < section_count_ ? sections_[index] : SectionView{};
}

SectionView Asset::find(uint32_t id) const {
    for (uint32_t i = 0; i < section_count_; ++i)
        if (sections_[i].id == id) return sections_[i];
    return SectionView{};
}

Error Asset::require(uint32_t id, SectionView& view) const {
    view = find(id);
    return view.id == 0 ? nav::formats::missingSectionError(id) : Error{};
}

Error loadFromMemory(const void* data, size_t size, Asset& out, const LoadOptions& options) {
    out.reset();
    if (data == nullptr)
        return makeError(ErrorCode::invalid_argument, 0, 0, "null buffer passed to loadFromMemory");
    const auto* bytes = static_cast<const uint8_t*>(data);
    // Container is ~3 KB; keep it off small thread stacks.
    const Allocator allocator = resolveAllocator(options.allocator);
    auto* container =
        static_cast<Container*>(allocator.allocate(sizeof(Container), allocator.user));
    if (container == nullptr)
        return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate the section table");
    new (container) Container();
    struct Releaser {
        const Allocator& a;
        Container* c;
        ~Releaser() { a.release(c, a.user); }
    } releaser{allocator, container};

    if (Error e = nav::formats::parseContainer(bytes, size, *container)) return e;
    if (options.expected_kind != 0 && container->kind != options.expected_kind) {
        char found[5], wanted[5];
        nav::formats::fourccToString(container->kind, found);
        nav::formats::fourccToString(options.expected_kind, wanted);
        return makeError(ErrorCode::wrong_kind, 12, 0, "artifact is of kind '%s', expected '%s'",
                         found, wanted);
    }
    uint64_t total = 0;  // stays <= max_memory, so neither the sum nor alignUp can wrap
    for (uint32_t i = 0; i < container->section_count; ++i) {
        const uint64_t raw = container->sections[i].raw_size;
        if (raw > options.max_memory || raw > (uint64_t(1) << 62) ||
            alignUp(size_t(raw)) > options.max_memory - total)
            return makeError(ErrorCode::out_of_memory, 0, container->sections[i].id,
                             "asset decodes to more than the %llu-byte memory limit",
                             static_cast<unsigned long long>(options.max_memory));
        total += alignUp(size_t(raw));
    }
    uint8_t* buffer = nullptr;
    if (total > 0) {
        buffer = static_cast<uint8_t*>(allocator.allocate(size_t(total), allocator.user));
        if (buffer == nullptr)
            return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate %llu bytes",
                             static_cast<unsigned long long>(total));
    }
    size_t cursor = 0;
    for (uint32_t i = 0; i < container->section_count; ++i) {
        const nav::formats::SectionEntry& entry = container->sections[i];
        if (Error e = nav::formats::decodeSection(bytes, entry, buffer + cursor,
                                                  size_t(entry.raw_size))) {
            if (buffer != nullptr) allocator.release(buffer, allocator.user);
            return e;
        }
        out.sections_[i] = SectionView{entry.id, entry.codec, entry.stored_size, buffer + cursor,
                                       size_t(entry.raw_size)};
        cursor += alignUp(size_t(entry.raw_size));
    }
    out.buffer_ = buffer;
    out.allocator_ = allocator;
    out.kind_ = container->kind;
    out.kind_version_ = container->kind_version;
    out.section_count_ = container->section_count;
    return {};
}

Error load(const char* path, Asset& out, const LoadOptions& options) {
    out.reset();
    if (path == nullptr) return makeError(ErrorCode::invalid_argument, 0, 0, "null path");
    std::FILE* file = std::fopen(path, "rb");
    if (file == nullptr) return makeError(ErrorCode::io_error, 0, 0, "cannot open '%s'", path);
    long size = -1;
    if (std::fseek(file, 0, SEEK_END) == 0) size = std::ftell(file);
    if (size < 0 || std::fseek(file, 0, SEEK_SET) != 0) {
        std::fclose(file);
        return makeError(ErrorCode::io_error, 0, 0, "cannot determine the size of '%s'", path);
    }
    if (uint64_t(size) > options.max_memory) {
        std::fclose(file);
        return makeError(ErrorCode::out_of_memory, 0, 0,
                         "'%s' is %ld bytes, more than the memory limit", path, size);
    }
    const Allocator allocator = resolveAllocator(options.allocator);
    auto* bytes = static_cast<uint8_t*>(allocator.allocate(size_t(size) + 1, allocator.user));
    if (bytes == nullptr) {
        std::fclose(file);
        return makeError(ErrorCode::out_of_memory, 0, 0, "cannot allocate %ld bytes", size);
    }
    const size_t read = std::fread(bytes, 1, size_t(size), file);
    std::fclose(file);
    Error result;
    if (read != size_t(size))
        result =
            makeError(ErrorCode::io_error, read, 0, "read of '%s' stopped at byte %zu", path, read);
    else
        result = loadFromMemory(bytes, size_t(size), out, options);
    allocator.release(bytes, allocator.user);
    return result;
}

namespace {

Error requireKind(const Asset& asset, uint32_t kind, uint32_t max_version) {
    nav::formats::Container c;
    c.kind = asset.kind();
    c.kind_version = asset.kindVersion();
    return nav::formats::checkKind(c, kind, max_version);
}

}  // namespace

Error viewGeometry(const Asset& asset, GeometryView& out) {
    using namespace nav::formats;
    out = GeometryView{};
    if (Error e = requireKind(asset, kKindGeometry, kGeometryVersion)) return e;
    SectionView header, vertices, triangles, areas, area_table;
    if (Error e = asset.require(kSecGeometryHeader, header)) return e;
    if (Error e = asset.require(kSecVertices, vertices)) return e;
    if (Error e = asset.require(kSecTriangles, triangles)) return e;
    if (Error e = asset.require(kSecTriangleAreas, areas)) return e;
    if (Error e = asset.require(kSecAreas, area_table)) return e;
    GeometryHeader h;
    if (Error e = decodeGeometryHeader(header.data, header.size, h)) return e;
    uint32_t area_count = 0;
    if (Error e = decodeAreaCosts(area_table.data, area_table.size, area_count, nullptr)) return e;
    if (Error e = validateGeometrySections(h, vertices.data, vertices.size, triangles.data,
                                           triangles.size, areas.data, areas.size, area_count))
        return e;
    const auto* indices = reinterpret_cast<const uint32_t*>(triangles.data);
    out.header = h;
    out.vertices = reinterpret_cast<const float*>(vertices.data);
    out.triangles = indices;
    out.triangle_areas = areas.data;
    return {};
}

Error viewVoxelGrid(const Asset& asset, VoxelGridView& out) {
    using namespace nav::formats;
    out = VoxelGridView{};
    if (Error e = requireKind(asset, kKindVoxels, kVoxelsVersion)) return e;
    SectionView header, columns, spans, area_table;
    if (Error e = asset.require(kSecVoxelHeader, header)) return e;
    if (Error e = asset.require(kSecColumns, columns)) return e;
    if (Error e = asset.require(kSecSpans, spans)) return e;
    if (Error e = asset.require(kSecAreas, area_table)) return e;
    VoxelHeader h;
    if (Error e = decodeVoxelHeader(header.data, header.size, h)) return e;
    uint32_t area_count = 0;
    if (Error e = decodeAreaCosts(area_table.data, area_table.size, area_count, nullptr)) return e;
    if (Error e = validateVoxelSections(h, columns.data, columns.size, spans.data, spans.size,
                                        area_count))
        return e;
    out.header = h;
    out.column_offsets = reinterpret_cast<const uint32_t*>(columns.data);
    out.spans = spans.data;
    out.area_count = area_count;
    return {};
}

}  // namespace navrt
