#include "lib/voxel/voxel_grid.h"

#include <algorithm>
#include <cmath>

#include "formats/bytes.h"

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

VoxelStats computeStats(const VoxelGrid& grid) {
    VoxelStats stats;
    stats.columns = grid.columnCount();
    stats.spans = grid.spans.size();
    stats.walkable_per_area.assign(grid.areas.size(), 0);
    for (uint32_t z = 0; z < grid.size_z; ++z) {
        for (uint32_t x = 0; x < grid.size_x; ++x) {
            size_t layers = 0;
            for (const Span& span : grid.column(x, z)) {
                if (!span.walkable) continue;
                ++layers;
                ++stats.walkable_spans;
                if (span.area < stats.walkable_per_area.size())
                    ++stats.walkable_per_area[span.area];
            }
            if (layers > 0) ++stats.walkable_columns;
            if (layers > 1) ++stats.multi_layer_columns;
            stats.max_walkable_layers = std::max(stats.max_walkable_layers, layers);
        }
    }
    return stats;
}

Status saveVoxels(const std::filesystem::path& path, const VoxelGrid& grid) {
    if (grid.column_offsets.size() != grid.columnCount() + 1 ||
        grid.column_offsets.back() != grid.spans.size())
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
    header.span_count = uint32_t(grid.spans.size());
    header.walkable_count = uint32_t(grid.walkableCount());
    std::vector<uint8_t> header_bytes(formats::kVoxelHeaderSize);
    formats::encodeVoxelHeader(header, header_bytes.data());

    formats::ByteWriter columns;
    for (uint32_t offset : grid.column_offsets) columns.u32(offset);
    std::vector<uint8_t> spans(grid.spans.size() * formats::kSpanRecordSize);
    for (size_t i = 0; i < grid.spans.size(); ++i) {
        const Span& s = grid.spans[i];
        formats::encodeSpan(
            {s.y_min, s.y_max, s.area, uint8_t(s.walkable ? formats::kSpanFlagWalkable : 0)},
            spans.data() + i * formats::kSpanRecordSize);
    }
    // v1 without links (the layout before links existed, byte-identical), v2 with them.
    formats::ContainerWriter writer(
        formats::kKindVoxels,
        geometry::sceneKindVersion(!grid.links.empty(), !grid.markers.empty()));
    writer.setCompressionLevel(3);  // an intermediate, large on big levels (as .geo)
    writer.add(formats::kSecVoxelHeader, std::move(header_bytes), formats::Codec::raw);
    writer.add(formats::kSecAreas, geometry::encodeAreaTable(grid.areas), formats::Codec::raw);
    writer.add(formats::kSecColumns, columns.take(), formats::Codec::zstd_delta32);
    writer.add(formats::kSecSpans, std::move(spans));
    if (!grid.source_name.empty())
        writer.add(formats::kSecSourceName,
                   std::vector<uint8_t>(grid.source_name.begin(), grid.source_name.end()),
                   formats::Codec::raw);
    geometry::addLinkSpecSections(writer, grid.links);
    geometry::addMarkerSection(writer, grid.markers);
    return saveContainer(path, writer);
}

Result<VoxelGrid> decodeVoxels(const LoadedContainer& c) {
    formats::VoxelHeader header;
    if (Status s = c.header(formats::kSecVoxelHeader, formats::decodeVoxelHeader, header); !s)
        return s.error();
    auto area_bytes = c.section(formats::kSecAreas);
    if (!area_bytes) return area_bytes.error();
    auto areas = geometry::decodeAreaTable(*area_bytes, c.path);
    if (!areas) return areas.error();
    auto columns = c.section(formats::kSecColumns);
    if (!columns) return columns.error();
    auto spans = c.section(formats::kSecSpans);
    if (!spans) return spans.error();
    if (formats::Error e =
            formats::validateVoxelSections(header, columns->data(), columns->size(), spans->data(),
                                           spans->size(), uint32_t(areas->size())))
        return containerError(c.path, e);

    VoxelGrid grid;
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
    grid.column_offsets.resize(grid.columnCount() + 1);
    for (size_t i = 0; i < grid.column_offsets.size(); ++i)
        grid.column_offsets[i] = formats::loadLe32(columns->data() + 4 * i);
    grid.spans.resize(header.span_count);
    for (size_t i = 0; i < grid.spans.size(); ++i) {
        const formats::SpanRecord r =
            formats::decodeSpan(spans->data() + i * formats::kSpanRecordSize);
        grid.spans[i] = {r.y_min, r.y_max, r.area, (r.flags & formats::kSpanFlagWalkable) != 0};
    }
    auto links = geometry::decodeLinkSpecSections(c);
    if (!links) return links.error();
    grid.links = std::move(links).value();
    auto markers = geometry::decodeMarkerSection(c);
    if (!markers) return markers.error();
    grid.markers = std::move(markers).value();
    return grid;
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

}  // namespace nav::voxel
