#include "lib/voxel/voxel_grid.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/bytes.h"
#include "lib/common/memory.h"

namespace nav::voxel {

size_t VoxelGrid::walkableCount() const {
    return size_t(
        std::count_if(spans.begin(), spans.end(), [](const Span& s) { return s.walkable; }));
}

bool VoxelGrid::operator==(const VoxelGrid& o) const {
    return size_x == o.size_x && size_z == o.size_z && size_y == o.size_y && source == o.source &&
           std::equal(origin, origin + 3, o.origin) && cell_size == o.cell_size &&
           cell_height == o.cell_height && agent.height == o.agent.height &&
           agent.radius == o.agent.radius && agent.climb == o.agent.climb &&
           agent.max_slope_deg == o.agent.max_slope_deg && column_offsets == o.column_offsets &&
           spans == o.spans && areas == o.areas && source_name == o.source_name && links == o.links;
}

void addColumnStats(VoxelStats& stats, std::span<const Span> spans,
                    std::span<const uint32_t> counts) {
    size_t k = 0;
    for (uint32_t count : counts) {
        size_t layers = 0;
        for (uint32_t e = 0; e < count; ++e, ++k) {
            const Span& span = spans[k];
            if (!span.walkable) continue;
            ++layers;
            ++stats.walkable_spans;
            if (span.area >= stats.walkable_per_area.size())
                stats.walkable_per_area.resize(size_t(span.area) + 1, 0);
            ++stats.walkable_per_area[span.area];
        }
        if (layers > 0) ++stats.walkable_columns;
        if (layers > 1) ++stats.multi_layer_columns;
        stats.max_walkable_layers = std::max(stats.max_walkable_layers, layers);
    }
}

VoxelStats computeStats(const VoxelGrid& grid) {
    VoxelStats stats;
    stats.columns = grid.columnCount();
    stats.spans = grid.spans.size();
    std::vector<uint32_t> counts(grid.columnCount());
    for (size_t c = 0; c < counts.size(); ++c)
        counts[c] = grid.column_offsets[c + 1] - grid.column_offsets[c];
    addColumnStats(stats, grid.spans, counts);
    stats.walkable_per_area.resize(grid.areas.size());
    return stats;
}

namespace {
constexpr int kVoxelZstdLevel = 3;  // an intermediate, large on big levels (as .geo)
}

VoxelWriter::VoxelWriter(size_t column_count)
    : column_count_(column_count),
      columns_stream_(std::make_unique<formats::ZstdSectionStream>(kVoxelZstdLevel, true,
                                                                   formats::StreamWindow::narrow)),
      spans_stream_(std::make_unique<formats::ZstdSectionStream>(kVoxelZstdLevel)) {
    uint8_t zero[4] = {0, 0, 0, 0};
    columns_stream_->write(zero, 4);  // COLS[0]
}

// The spans' spill file (a formats::SpillSink on a SpillFile).
struct VoxelWriter::Spill : formats::SpillSink {
    SpillFile file;
    Status failure;
    bool writeAt(uint64_t offset, const uint8_t* bytes, size_t size) override {
        Status s = nav::writeAt(file.fd, bytes, size, offset, file.path);
        if (!s) failure = s;
        return s.ok();
    }
    bool readAt(uint64_t offset, uint8_t* bytes, size_t size) override {
        Status s = nav::readAt(file.fd, bytes, size, offset, file.path);
        if (!s) failure = s;
        return s.ok();
    }
    ~Spill() override {
        if (file.fd >= 0) ::close(file.fd);
        std::error_code ec;
        if (!file.path.empty()) std::filesystem::remove(file.path, ec);
    }
};

VoxelWriter::~VoxelWriter() = default;

Status VoxelWriter::spillBeside(const std::filesystem::path& output) {
    const std::filesystem::path folder =
        output.parent_path().empty() ? std::filesystem::path(".") : output.parent_path();
    for (const char* what : {"spans", "columns"}) {
        const std::string prefix = fmt::format(".{}.{}-", output.filename().string(), what);
        removeOrphanedTemporaries(folder, prefix);
        auto file = createSpillFile(folder, prefix);
        if (!file) return file.error();
        auto spill = std::make_unique<Spill>();
        spill->file = *file;
        (std::string_view(what) == "spans" ? spill_ : columns_spill_) = std::move(spill);
    }
    spans_stream_->spillTo(*spill_);
    columns_stream_->spillTo(*columns_spill_);
    return {};
}

Status VoxelWriter::addColumns(std::span<const Span> spans, std::span<const uint32_t> counts) {
    uint64_t total = 0;
    for (uint32_t count : counts) total += count;
    if (total != spans.size() || stats_.columns + counts.size() > column_count_)
        return makeError(ErrorKind::internal, "voxel writer: {} columns of {} spans given {} spans",
                         counts.size(), total, spans.size());
    if (stats_.spans + total > UINT32_MAX)
        return makeError(ErrorKind::usage,
                         "voxelize: more than {} spans exceed the format's limit; use larger cells",
                         UINT32_MAX);
    // Encoded 8,192 offsets or spans (32 or 64 KiB) at a time: the streams' frames depend only
    // on the bytes, and a chunk of a large level's rows would otherwise be encoded whole beside
    // itself.
    constexpr size_t kPiece = 8192;
    uint64_t offset = stats_.spans;
    for (size_t first = 0; first < counts.size(); first += kPiece) {
        const size_t n = std::min(kPiece, counts.size() - first);
        scratch_.resize(n * 4);
        for (size_t c = 0; c < n; ++c) {
            offset += counts[first + c];
            formats::storeLe32(scratch_.data() + 4 * c, uint32_t(offset));
        }
        columns_stream_->write(scratch_.data(), scratch_.size());
    }
    for (size_t first = 0; first < spans.size(); first += kPiece) {
        const size_t n = std::min(kPiece, spans.size() - first);
        scratch_.resize(n * formats::kSpanRecordSize);
        for (size_t i = 0; i < n; ++i) {
            const Span& s = spans[first + i];
            formats::encodeSpan(
                {s.y_min, s.y_max, s.area, uint8_t(s.walkable ? formats::kSpanFlagWalkable : 0)},
                scratch_.data() + i * formats::kSpanRecordSize);
        }
        spans_stream_->write(scratch_.data(), scratch_.size());
    }
    stats_.spans += total;
    stats_.columns += counts.size();
    addColumnStats(stats_, spans, counts);
    if (!columns_stream_->error().empty() || !spans_stream_->error().empty())
        return makeError(ErrorKind::internal, "voxel writer: {}{}", columns_stream_->error(),
                         spans_stream_->error());
    return {};
}

VoxelStats VoxelWriter::stats(size_t area_count) const {
    VoxelStats stats = stats_;
    stats.walkable_per_area.resize(area_count, 0);
    return stats;
}

Status VoxelWriter::finish(const std::filesystem::path& path, const VoxelGrid& grid) {
    if (stats_.columns != column_count_ || grid.columnCount() != column_count_)
        return makeError(ErrorKind::internal, "{}: voxel grid column offsets are inconsistent",
                         path.string());
    formats::VoxelHeader header;
    header.size_x = grid.size_x;
    header.size_z = grid.size_z;
    header.size_y = grid.size_y;
    header.source = grid.source;
    std::copy(grid.origin, grid.origin + 3, header.origin);
    header.cell_size = grid.cell_size;
    header.cell_height = grid.cell_height;
    header.agent_height = grid.agent.height;
    header.agent_radius = grid.agent.radius;
    header.agent_climb = grid.agent.climb;
    header.max_slope_deg = grid.agent.max_slope_deg;
    header.span_count = uint32_t(stats_.spans);
    header.walkable_count = uint32_t(stats_.walkable_spans);
    std::vector<uint8_t> header_bytes(formats::kVoxelHeaderSize);
    formats::encodeVoxelHeader(header, header_bytes.data());

    // v1 without links (the layout before links existed, byte-identical), v2 with them.
    formats::ContainerWriter writer(
        formats::kKindVoxels,
        geometry::sceneKindVersion(!grid.links.empty(), !grid.markers.empty()));
    writer.setCompressionLevel(kVoxelZstdLevel);
    writer.add(formats::kSecVoxelHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, geometry::encodeAreaTable(grid.areas), formats::Codec::raw);
    // The spans last: VoxelRowReader leaves them on disk.
    if (!grid.source_name.empty())
        writer.add(formats::kSecSourceName,
                   std::vector<uint8_t>(grid.source_name.begin(), grid.source_name.end()),
                   formats::Codec::raw);
    geometry::addLinkSpecSections(writer, grid.links);
    geometry::addMarkerSection(writer, grid.markers);
    // The columns then the spans, each a tail when spilled and large (the spans always last:
    // VoxelRowReader leaves them on disk, and the columns too when they come right before).
    if (!(columns_spill_ ? columns_stream_->addTailTo(writer, formats::kSecColumns)
                         : columns_stream_->addTo(writer, formats::kSecColumns)) ||
        !(spill_ ? spans_stream_->addTailTo(writer, formats::kSecSpans)
                 : spans_stream_->addTo(writer, formats::kSecSpans))) {
        for (const auto* spill : {spill_.get(), columns_spill_.get()})
            if (spill && !spill->failure) return spill->failure.error();
        return makeError(ErrorKind::internal, "{}: {}{}", path.string(), columns_stream_->error(),
                         spans_stream_->error());
    }
    // The tails' stored bytes follow from the spill files (their first tailSize() bytes: all).
    std::vector<std::filesystem::path> tails;
    if (columns_spill_ && columns_stream_->tailSize() > 0)
        tails.push_back(columns_spill_->file.path);
    if (spill_ && spans_stream_->tailSize() > 0) tails.push_back(spill_->file.path);
    Status saved = tails.empty() ? saveContainer(path, writer) : saveContainer(path, writer, tails);
    spill_.reset();
    columns_spill_.reset();
    return saved;
}

Status saveVoxels(const std::filesystem::path& path, const VoxelGrid& grid) {
    if (grid.column_offsets.size() != grid.columnCount() + 1 ||
        grid.column_offsets.back() != grid.spans.size())
        return makeError(ErrorKind::internal, "{}: voxel grid column offsets are inconsistent",
                         path.string());
    VoxelWriter writer(grid.columnCount());
    std::vector<uint32_t> counts(grid.columnCount());
    for (size_t c = 0; c < counts.size(); ++c)
        counts[c] = grid.column_offsets[c + 1] - grid.column_offsets[c];
    if (Status s = writer.addColumns(grid.spans, counts); !s) return s;
    return writer.finish(path, grid);
}

namespace {

// Everything of a .vox but its columns and spans: header, areas, source name, links, markers.
Status decodeGridHeader(const LoadedContainer& c, formats::VoxelHeader& header, VoxelGrid& grid) {
    if (Status s = c.header(formats::kSecVoxelHeader, formats::decodeVoxelHeader, header); !s)
        return s;
    auto area_bytes = c.section(formats::kSecAreas);
    if (!area_bytes) return area_bytes.error();
    auto areas = geometry::decodeAreaTable(*area_bytes, c.path);
    if (!areas) return areas.error();
    grid.size_x = header.size_x;
    grid.size_z = header.size_z;
    grid.size_y = header.size_y;
    grid.source = header.source;
    std::copy(header.origin, header.origin + 3, grid.origin);
    grid.cell_size = header.cell_size;
    grid.cell_height = header.cell_height;
    grid.agent = {header.agent_height, header.agent_radius, header.agent_climb,
                  header.max_slope_deg};
    grid.areas = std::move(areas).value();
    if (c.has(formats::kSecSourceName)) {
        auto name = c.section(formats::kSecSourceName);
        if (!name) return name.error();
        grid.source_name.assign(name->begin(), name->end());
    }
    auto links = geometry::decodeLinkSpecSections(c);
    if (!links) return links.error();
    grid.links = std::move(links).value();
    auto markers = geometry::decodeMarkerSection(c);
    if (!markers) return markers.error();
    grid.markers = std::move(markers).value();
    return {};
}

// The COLS section, checked against the header and the SPAN section's size.
Result<std::vector<uint32_t>> decodeColumns(const LoadedContainer& c,
                                            const formats::VoxelHeader& header) {
    auto columns = c.array<uint32_t>(formats::kSecColumns);
    if (!columns) return columns.error();
    auto spans_size = c.rawSize(formats::kSecSpans);
    if (!spans_size) return spans_size.error();
    if (formats::Error e = formats::validateVoxelColumnOffsets(
            header, reinterpret_cast<const uint8_t*>(columns->data()), columns->size() * 4,
            *spans_size))
        return containerError(c.path, e);
    return columns;
}

// Decodes the spans of columns [c0, c1) from `stream` (checked; walkable ones counted) into `out`,
// `group` columns at a time (their records held meanwhile).
Status readSpans(const LoadedContainer& c, const formats::VoxelHeader& header,
                 const std::vector<uint32_t>& columns, uint32_t area_count,
                 formats::SectionStream& stream, uint64_t c0, uint64_t c1, uint64_t group,
                 std::vector<uint8_t>& records, Span* out, uint32_t& walkable) {
    const uint8_t* column_bytes = reinterpret_cast<const uint8_t*>(columns.data());
    for (uint64_t g0 = c0; g0 < c1; g0 += group) {
        const uint64_t g1 = std::min<uint64_t>(c1, g0 + group);
        const uint32_t first = columns[g0], end = columns[g1];
        records.resize(size_t(end - first) * formats::kSpanRecordSize);
        if (formats::Error e = stream.read(records.data(), records.size()))
            return containerError(c.path, e);
        if (formats::Error e = formats::validateVoxelSpans(header, column_bytes, g0, g1,
                                                           records.data(), area_count, walkable))
            return containerError(c.path, e);
        for (uint32_t i = first; i < end; ++i) {
            const formats::SpanRecord r =
                formats::decodeSpan(records.data() + size_t(i - first) * formats::kSpanRecordSize);
            *out++ = {r.y_min, r.y_max, r.area, (r.flags & formats::kSpanFlagWalkable) != 0};
        }
    }
    return {};
}

}  // namespace

Result<VoxelGrid> decodeVoxels(const LoadedContainer& c) {
    formats::VoxelHeader header;
    VoxelGrid grid;
    if (Status s = decodeGridHeader(c, header, grid); !s) return s.error();
    // COLS decoded into place; SPAN decoded, checked and converted a group of columns at a time
    // (8 bytes a span on disk beside 6 in memory would otherwise double the peak).
    auto columns = decodeColumns(c, header);
    if (!columns) return columns.error();
    grid.spans.resize(header.span_count);
    formats::SectionStream stream(c.bytes.data(),
                                  c.container.sections[c.container.find(formats::kSecSpans)]);
    if (formats::Error e = stream.start()) return containerError(c.path, e);
    std::vector<uint8_t> records;
    uint32_t walkable = 0;
    if (Status s = readSpans(c, header, *columns, uint32_t(grid.areas.size()), stream, 0,
                             grid.columnCount(), 1 << 16, records, grid.spans.data(), walkable);
        !s)
        return s.error();
    if (formats::Error e = stream.finish()) return containerError(c.path, e);
    if (formats::Error e = formats::validateVoxelWalkableCount(header, walkable))
        return containerError(c.path, e);
    grid.column_offsets = std::move(columns).value();
    return grid;
}

Result<std::unique_ptr<VoxelRowReader>> VoxelRowReader::open(const std::filesystem::path& path) {
    // The column offsets and the spans stay on disk when they are the file's last two sections
    // (as VoxelWriter writes them): a world bake reads a large grid a band of rows at a time
    // without its compressed spans or column index in memory. With the spans alone last, they
    // alone stay; files with sections after them are read whole.
    auto container = loadContainerHead(path, formats::kKindVoxels, formats::kVoxelsVersion, 2);
    if (!container) return container.error();
    const formats::Container& table = container->container;
    const uint32_t count = table.section_count;
    const bool tail = count > 0 && table.sections[count - 1].id == formats::kSecSpans;
    const bool columns_tail =
        tail && count > 1 && table.sections[count - 2].id == formats::kSecColumns;
    if (tail && !columns_tail) {
        container = loadContainerHead(path, formats::kKindVoxels, formats::kVoxelsVersion);
        if (!container) return container.error();
    }
    if (!tail) {
        container = loadContainer(path, formats::kKindVoxels, formats::kVoxelsVersion);
        if (!container) return container.error();
    }
    std::unique_ptr<VoxelRowReader> r(new VoxelRowReader());
    r->container_ = std::move(container).value();
    if (tail) {
        auto file = FileBytes::open(path);
        if (!file) return file.error();
        r->file_ = std::move(file).value();
    }
    const LoadedContainer& c = r->container_;
    if (Status s = decodeGridHeader(c, r->file_header_, r->header_); !s) return s.error();
    // The sections' sizes now; the offsets as their rows are read.
    const formats::VoxelHeader& h = r->file_header_;
    auto columns_size = c.rawSize(formats::kSecColumns);
    if (!columns_size) return columns_size.error();
    if (auto spans_size = c.rawSize(formats::kSecSpans); !spans_size) return spans_size.error();
    const formats::SectionEntry& spans = c.container.sections[c.container.find(formats::kSecSpans)];
    if (formats::Error e = formats::validateVoxelSectionSizes(h, *columns_size, spans.raw_size))
        return containerError(c.path, e);
    const formats::SectionEntry& columns =
        c.container.sections[c.container.find(formats::kSecColumns)];
    r->columns_stream_ = columns_tail
                             ? std::make_unique<formats::SectionStream>(columns, *r->file_)
                             : std::make_unique<formats::SectionStream>(c.bytes.data(), columns);
    if (formats::Error e = r->columns_stream_->start()) return containerError(c.path, e);
    r->stream_ = r->file_ ? std::make_unique<formats::SectionStream>(spans, *r->file_)
                          : std::make_unique<formats::SectionStream>(c.bytes.data(), spans);
    if (formats::Error e = r->stream_->start()) return containerError(c.path, e);
    // Column 0's offset, which must be 0.
    r->columns_.resize(1);
    if (formats::Error e =
            r->columns_stream_->read(reinterpret_cast<uint8_t*>(r->columns_.data()), 4))
        return containerError(c.path, e);
    if (formats::Error e = formats::validateVoxelColumnRange(
            h, reinterpret_cast<const uint8_t*>(r->columns_.data()), 0, 0))
        return containerError(c.path, e);
    return r;
}

VoxelRowReader::~VoxelRowReader() = default;

Status VoxelRowReader::readTo(uint32_t row) {
    row = std::min(row, header_.size_z);
    if (row <= row1_) return {};
    const uint64_t size_x = header_.size_x;
    const uint64_t column_base = uint64_t(row0_) * size_x;
    const uint64_t c0 = uint64_t(row1_) * size_x, c1 = uint64_t(row) * size_x;
    // The offsets of columns (c0, c1], checked as validateVoxelColumnOffsets checks them.
    const size_t have = columns_.size();
    columns_.resize(have + size_t(c1 - c0));
    if (formats::Error e = columns_stream_->read(reinterpret_cast<uint8_t*>(columns_.data() + have),
                                                 size_t(c1 - c0) * 4))
        return containerError(container_.path, e);
    if (formats::Error e = formats::validateVoxelColumnRange(
            file_header_, reinterpret_cast<const uint8_t*>(columns_.data() + (c0 - column_base)),
            c0, c1))
        return containerError(container_.path, e);
    // Their spans (relative column indices: the window's offsets).
    const size_t before = spans_.size();
    const uint32_t* window = columns_.data();
    spans_.resize(before + (window[c1 - column_base] - window[c0 - column_base]));
    if (Status s = readSpans(container_, file_header_, columns_, uint32_t(header_.areas.size()),
                             *stream_, c0 - column_base, c1 - column_base, 4096, records_,
                             spans_.data() + before, walkable_);
        !s)
        return s;
    row1_ = row;
    return {};
}

void VoxelRowReader::releaseRows() {
    spans_ = std::vector<Span>();  // (`= {}` would keep the room)
    columns_ = std::vector<uint32_t>();
    records_ = std::vector<uint8_t>();
}

Result<GridRows> VoxelRowReader::rows(uint32_t keep_from, uint32_t need_to) {
    keep_from = std::min(keep_from, header_.size_z);
    const uint64_t size_x = header_.size_x;
    if (keep_from > row0_) {
        if (row1_ < keep_from)  // rows skipped over: read (and checked), not kept
            if (Status s = readTo(keep_from); !s) return s.error();
        const uint64_t dropped = uint64_t(keep_from - row0_) * size_x;
        const uint32_t first = columns_[size_t(dropped)];
        spans_.erase(spans_.begin(), spans_.begin() + (first - span_base_));
        columns_.erase(columns_.begin(), columns_.begin() + ptrdiff_t(dropped));
        span_base_ = first;
        row0_ = keep_from;
        if (row0_ == header_.size_z) releaseRows();  // none kept, none to come
    }
    if (Status s = readTo(need_to); !s) return s.error();
    GridRows rows;
    rows.size_x = header_.size_x;
    rows.size_z = header_.size_z;
    rows.row0 = row0_;
    rows.row1 = row1_;
    rows.column_offsets = columns_.data();
    rows.column_base = uint64_t(row0_) * size_x;
    rows.spans = spans_.data();
    rows.span_base = span_base_;
    return rows;
}

Status VoxelRowReader::finish() {
    if (Status s = readTo(header_.size_z); !s) return s;  // (the last offset checked there)
    releaseRows();
    span_base_ = file_header_.span_count;
    row0_ = row1_;
    if (formats::Error e = columns_stream_->finish()) return containerError(container_.path, e);
    if (formats::Error e = stream_->finish()) return containerError(container_.path, e);
    if (formats::Error e = formats::validateVoxelWalkableCount(file_header_, walkable_))
        return containerError(container_.path, e);
    return {};
}

Result<formats::VoxelHeader> loadVoxelHeader(const std::filesystem::path& path) {
    return loadHeader(path, formats::kKindVoxels, formats::kVoxelsVersion, formats::kSecVoxelHeader,
                      formats::decodeVoxelHeader);
}

Result<VoxelGrid> loadVoxels(const std::filesystem::path& path) {
    auto container = loadContainer(path, formats::kKindVoxels, formats::kVoxelsVersion);
    if (!container) return container.error();
    return decodeVoxels(*container);
}

int metresToCells(double metres, double cell, CellRounding rounding, int limit) {
    if (!(cell > 0) || !std::isfinite(metres)) return 0;
    double v = metres / cell;
    if (std::abs(v - std::round(v)) <= kCellSnap) v = std::round(v);
    const double r = rounding == CellRounding::up ? std::ceil(v) : std::floor(v);
    return int(std::clamp(r, 0.0, double(limit)));
}

VoxelGrid cropHeader(const VoxelGrid& frame, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1) {
    VoxelGrid g;
    g.size_x = x1 - x0;
    g.size_z = z1 - z0;
    g.size_y = frame.size_y;
    g.source = frame.source;
    g.origin[0] = frame.origin[0] + float(x0) * frame.cell_size;
    g.origin[1] = frame.origin[1];
    g.origin[2] = frame.origin[2] + float(z0) * frame.cell_size;
    g.cell_size = frame.cell_size;
    g.cell_height = frame.cell_height;
    g.agent = frame.agent;
    g.areas = frame.areas;
    g.source_name = frame.source_name;
    return g;
}

VoxelGrid cropGrid(const VoxelGrid& frame, const GridRows& rows, uint32_t x0, uint32_t z0,
                   uint32_t x1, uint32_t z1) {
    VoxelGrid g = cropHeader(frame, x0, z0, x1, z1);
    g.column_offsets.reserve(g.columnCount() + 1);
    size_t spans = 0;  // (sized once: grown by doubling, up to half its room went unused)
    if (x1 > x0)
        for (uint32_t z = z0; z < z1; ++z)
            spans += rows.end(size_t(z) * frame.size_x + x1 - 1) -
                     rows.begin(size_t(z) * frame.size_x + x0);
    g.spans.reserve(spans);
    for (uint32_t z = z0; z < z1; ++z)
        for (uint32_t x = x0; x < x1; ++x) {
            g.column_offsets.push_back(uint32_t(g.spans.size()));
            const size_t c = size_t(z) * frame.size_x + x;
            for (uint32_t i = rows.begin(c); i < rows.end(c); ++i) g.spans.push_back(rows.span(i));
        }
    g.column_offsets.push_back(uint32_t(g.spans.size()));
    return g;
}

void TileWindowLayout::window(uint32_t tx, uint32_t tz, uint32_t& x0, uint32_t& z0, uint32_t& x1,
                              uint32_t& z1) const {
    const uint64_t cx0 = uint64_t(tx) * tile_cells, cz0 = uint64_t(tz) * tile_cells;
    x0 = uint32_t(cx0 > border ? cx0 - border : 0);
    z0 = uint32_t(cz0 > border ? cz0 - border : 0);
    x1 = uint32_t(std::min<uint64_t>(size_x, cx0 + tile_cells + border));
    z1 = uint32_t(std::min<uint64_t>(size_z, cz0 + tile_cells + border));
}

Status TileRowWindows::read(const RowSource& source, const TileWindowLayout& layout, uint32_t tz,
                            const std::function<bool(uint32_t)>& wanted, TileRowWindows* carry) {
    tiles_.assign(layout.tiles_x, Pending());
    uint32_t x0, z0, x1, z1;
    layout.window(0, tz, x0, z0, x1, z1);
    // The next row of tiles' windows start before this one's end: those rows stay (or go to the
    // carry).
    uint32_t next = layout.size_z;
    if (tz + 1 < layout.tiles_z) {
        uint32_t nx0, nx1, nz1;
        layout.window(0, tz + 1, nx0, next, nx1, nz1);
    }
    if (carry != nullptr && (wanted || carry->spill_ != spill_ || carry == this))
        return makeError(ErrorKind::internal, "tiles: a carry needs every tile and the same store");
    uint32_t start = z0;
    if (carry != nullptr && carry->carried_row_ == tz) {
        tiles_ = std::move(carry->tiles_);
        start = carry->carried_to_;
    }
    const bool carrying = carry != nullptr && tz + 1 < layout.tiles_z;
    if (carry != nullptr) {
        carry->tiles_.assign(carrying ? layout.tiles_x : 0, Pending());
        carry->carried_row_ = carrying ? tz + 1 : kNone;
        carry->carried_to_ = z1;
    }
    if (context_ == nullptr) context_ = ZSTD_createCCtx();
    if (context_ == nullptr)
        return makeError(ErrorKind::internal, "tiles: cannot create a zstd context");
    // Per tile its columns [x0, x1), in this row of tiles and the next.
    std::vector<std::pair<uint32_t, uint32_t>> columns(layout.tiles_x), next_columns;
    for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
        uint32_t a, b, c, d;
        layout.window(tx, tz, a, b, c, d);
        columns[tx] = {a, c};
        if (!carrying) continue;
        layout.window(tx, tz + 1, a, b, c, d);
        next_columns.push_back({a, c});
    }
    auto append = [&](Pending& t, const GridRows& rows, uint32_t z,
                      std::pair<uint32_t, uint32_t> range, bool last) -> Status {
        const size_t c0 = size_t(z) * layout.size_x + range.first;
        const size_t c1 = size_t(z) * layout.size_x + range.second;
        for (size_t c = c0; c < c1; ++c) t.counts.push_back(rows.end(c) - rows.begin(c));
        if (c1 > c0 && rows.end(c1 - 1) > rows.begin(c0)) {
            const Span* first = &rows.span(rows.begin(c0));
            t.spans.insert(t.spans.end(), first, first + (rows.end(c1 - 1) - rows.begin(c0)));
        }
        if (t.counts.size() * 4 + t.spans.size() * sizeof(Span) >= kChunkBytes || last)
            return flush(t);
        return {};
    };
    for (uint32_t z = start; z < z1; ++z) {
        auto rows = source(carry != nullptr ? z : std::min(z, next), z + 1);
        if (!rows) return rows.error();
        for (uint32_t tx = 0; tx < layout.tiles_x; ++tx) {
            if (wanted && !wanted(tx)) continue;
            // The window's columns of this row: their spans lie together.
            if (Status s = append(tiles_[tx], *rows, z, columns[tx], z + 1 == z1); !s) return s;
            if (carrying && z >= next)
                if (Status s = append(carry->tiles_[tx], *rows, z, next_columns[tx], z + 1 == z1);
                    !s)
                    return s;
        }
    }
    return {};
}

Status TileRowWindows::flush(Pending& t) {
    if (t.counts.empty()) return {};
    // One frame: the column count, the counts (u16: a column holds at most 32,768 spans), then the
    // spans as planes (their bottoms, heights, areas, walkable flags: each plane's values alike,
    // which zstd's fast level finds where the interleaved records hid it).
    const size_t n = t.counts.size(), m = t.spans.size();
    std::vector<uint8_t> raw(4 + n * 2 + m * 6);
    const uint32_t columns = uint32_t(n);
    std::memcpy(raw.data(), &columns, 4);
    uint8_t* out = raw.data() + 4;
    for (uint32_t c : t.counts) {
        const uint16_t v = uint16_t(c);
        std::memcpy(out, &v, 2);
        out += 2;
    }
    uint8_t* bottoms = out;
    uint8_t* heights = bottoms + 2 * m;
    uint8_t* areas = heights + 2 * m;
    uint8_t* flags = areas + m;
    for (size_t i = 0; i < m; ++i) {
        const Span& s = t.spans[i];
        const uint16_t height = uint16_t(s.y_max - s.y_min);
        std::memcpy(bottoms + 2 * i, &s.y_min, 2);
        std::memcpy(heights + 2 * i, &height, 2);
        areas[i] = s.area;
        flags[i] = s.walkable;
    }
    std::vector<uint8_t> frame(ZSTD_compressBound(raw.size()));
    const size_t size = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(context_), frame.data(),
                                          frame.size(), raw.data(), raw.size(), 1);
    if (ZSTD_isError(size))
        return makeError(ErrorKind::internal, "tiles: zstd: {}", ZSTD_getErrorName(size));
    frame.resize(size);
    if (spill_ != nullptr) {
        uint64_t at = 0;
        if (Status s = spill_->append(frame, at); !s) return s;
        t.spilled.push_back({at, frame.size()});
    } else {
        frame.shrink_to_fit();
        t.frames.push_back(std::move(frame));
    }
    t.raw_sizes.push_back(raw.size());
    t.counts = std::vector<uint32_t>();
    t.spans = std::vector<Span>();
    return {};
}

Result<GridRows> TileRowWindows::window(const TileWindowLayout& layout, uint32_t tx, uint32_t tz,
                                        Decoded& out, bool release) {
    Pending& t = tiles_[tx];
    uint32_t x0, z0, x1, z1;
    layout.window(tx, tz, x0, z0, x1, z1);
    out.offsets.assign(1, 0);
    out.spans.clear();
    for (size_t f = 0; f < t.raw_sizes.size(); ++f) {
        const uint8_t* frame = nullptr;
        size_t frame_size = 0;
        if (spill_ != nullptr) {
            const auto [at, size] = t.spilled[f];
            out.stored.resize(size);
            if (Status s = spill_->read(at, out.stored.data(), size); !s) return s.error();
            frame = out.stored.data();
            frame_size = size;
        } else {
            frame = t.frames[f].data();
            frame_size = t.frames[f].size();
        }
        out.raw.resize(t.raw_sizes[f]);
        const size_t got = ZSTD_decompress(out.raw.data(), out.raw.size(), frame, frame_size);
        uint32_t n = 0;
        if (ZSTD_isError(got) || got != out.raw.size() || got < 4 ||
            (std::memcpy(&n, out.raw.data(), 4), 4 + size_t(n) * 2 > got) ||
            (got - 4 - size_t(n) * 2) % 6 != 0)
            return makeError(ErrorKind::internal, "tile ({}, {}): its columns do not decode", tx,
                             tz);
        const uint8_t* counts = out.raw.data() + 4;
        for (uint32_t i = 0; i < n; ++i) {
            uint16_t count;
            std::memcpy(&count, counts + 2 * size_t(i), 2);
            out.offsets.push_back(out.offsets.back() + count);
        }
        const size_t m = (got - 4 - size_t(n) * 2) / 6;
        const uint8_t* bottoms = counts + 2 * size_t(n);
        const uint8_t* heights = bottoms + 2 * m;
        const uint8_t* areas = heights + 2 * m;
        const uint8_t* flags = areas + m;
        const size_t at = out.spans.size();
        out.spans.resize(at + m);
        for (size_t i = 0; i < m; ++i) {
            Span& s = out.spans[at + i];
            uint16_t height;
            std::memcpy(&s.y_min, bottoms + 2 * i, 2);
            std::memcpy(&height, heights + 2 * i, 2);
            s.y_max = uint16_t(s.y_min + height);
            s.area = areas[i];
            s.walkable = flags[i] != 0;
        }
    }
    if (release) t = Pending();  // decoded for the last time: its room goes
    if (out.offsets.size() != size_t(x1 - x0) * (z1 - z0) + 1 ||
        out.offsets.back() != out.spans.size())
        return makeError(ErrorKind::internal, "tile ({}, {}): its columns do not decode", tx, tz);
    GridRows rows;
    rows.size_x = layout.size_x;
    rows.size_z = layout.size_z;
    rows.row0 = z0;
    rows.row1 = z1;
    rows.column_offsets = out.offsets.data();
    rows.spans = out.spans.data();
    rows.x0 = x0;
    rows.width = x1 - x0;
    return rows;
}

size_t TileRowWindows::bytes() const {
    size_t total = 0;
    for (const Pending& t : tiles_)
        for (const auto& f : t.frames) total += f.capacity();
    return total;
}

TileRowWindows::~TileRowWindows() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context_)); }

}  // namespace nav::voxel
