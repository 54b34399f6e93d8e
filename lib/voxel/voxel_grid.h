// The voxel grid (.vox artifact): a 3D occupancy grid stored as per-column solid spans (a
// heightfield, as in Recast's rcHeightfield), each span's top face marked walkable or not and
// tagged with an area type. Grid maps import straight into it; voxelization fills it from meshes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "formats/container_writer.h"
#include "formats/layouts.h"
#include "lib/common/file_io.h"
#include "lib/common/result.h"
#include "lib/geometry/geometry.h"
#include "lib/geometry/link_spec.h"

namespace nav::voxel {

// Agent the walkable surface is computed for. Defaults match Recast's demo.
struct AgentParams {
    float height = 2.0f;          // [Units: m] clearance needed above a floor
    float radius = 0.6f;          // [Units: m] kept away from walls and ledges
    float climb = 0.9f;           // [Units: m] largest step up or down
    float max_slope_deg = 45.0f;  // [Units: degrees] steepest walkable slope
};

// Solid cells [y_min, y_max) of one column [Units: cell heights]; the top face may be walkable.
struct Span {
    uint16_t y_min = 0;
    uint16_t y_max = 0;
    uint8_t area = 0;
    bool walkable = false;
    bool operator==(const Span&) const = default;
};

struct VoxelGrid {
    uint32_t size_x = 0;  // [Units: cells]
    uint32_t size_z = 0;  // [Units: cells]
    uint32_t size_y = 0;  // [Units: cell heights]
    formats::VoxelSource source = formats::VoxelSource::mesh;
    float origin[3] = {0, 0, 0};  // minimum corner [Units: m]
    float cell_size = 0.3f;       // [Units: m]
    float cell_height = 0.2f;     // [Units: m]
    AgentParams agent;
    std::vector<uint32_t> column_offsets;  // size_x * size_z + 1; column index z * size_x + x
    std::vector<Span> spans;
    std::vector<geometry::AreaType> areas = geometry::defaultAreaTable();
    std::string source_name;  // base name of the source file (e.g. "den520d.map"), may be empty
    std::vector<geometry::LinkSpec> links;  // links from scene objects (tag rules), for graphs
    // Scene markers the graph and later stages use (seeds, points of interest, waypoints,
    // clusters), copied from the .geo; bounds and volumes are applied by voxelize and dropped.
    std::vector<geometry::SceneMarker> markers;

    size_t columnCount() const { return size_t(size_x) * size_z; }
    std::span<const Span> column(uint32_t x, uint32_t z) const {
        const size_t c = size_t(z) * size_x + x;
        return {spans.data() + column_offsets[c], spans.data() + column_offsets[c + 1]};
    }
    // World Y of a span's top face.
    float topY(const Span& span) const { return origin[1] + span.y_max * cell_height; }
    size_t walkableCount() const;

    bool operator==(const VoxelGrid& other) const;
};

// Metres to whole cells, the one rounding every stage uses: the ratio metres / cell is snapped to
// a whole number when within kCellSnap of one (so 0.6 m / 0.3 m is 2 cells, not 3, and 12 m /
// 0.3 m is 40), then rounded down or up and clamped to 0..limit. Non-finite values and cells <= 0
// give 0.
inline constexpr double kCellSnap = 1e-4;  // [Units: cells]
enum class CellRounding { down, up };
int metresToCells(double metres, double cell, CellRounding rounding, int limit);

struct VoxelStats {
    size_t columns = 0;
    size_t spans = 0;
    size_t walkable_spans = 0;
    size_t walkable_columns = 0;     // columns with at least one walkable span
    size_t multi_layer_columns = 0;  // columns with two or more walkable spans
    size_t max_walkable_layers = 0;
    std::vector<size_t> walkable_per_area;  // indexed by area id
};
VoxelStats computeStats(const VoxelGrid& grid);

// The statistics of consecutive columns (their spans, `counts` spans each) added to `stats`;
// computeStats is this over the whole grid (with columns and spans counted).
void addColumnStats(VoxelStats& stats, std::span<const Span> spans,
                    std::span<const uint32_t> counts);

// Writes a .vox file column by column in grid order (z, then x), compressing as it goes, so a
// grid's spans need never be all in memory: voxelize streams large grids through it, saveVoxels
// writes a whole grid with it (same bytes however the columns are split into calls).
class VoxelWriter {
public:
    explicit VoxelWriter(size_t column_count);
    // Spilling the compressed column offsets and spans to temporary files beside `output` as
    // they come (a large level's are then never held, compressed or not); the files are removed
    // by finish or the destructor, and a killed process's by the next writer's. Call before
    // addColumns.
    Status spillBeside(const std::filesystem::path& output);
    ~VoxelWriter();
    VoxelWriter(const VoxelWriter&) = delete;
    VoxelWriter& operator=(const VoxelWriter&) = delete;
    // The next columns: their spans in order, `counts` spans each.
    Status addColumns(std::span<const Span> spans, std::span<const uint32_t> counts);
    // Writes the file atomically: `header` gives everything but the columns and spans (sizes,
    // origin, agent, areas, source name, links, markers); every column must have been added.
    Status finish(const std::filesystem::path& path, const VoxelGrid& header);
    // The statistics of what was added, for a grid with `area_count` areas.
    VoxelStats stats(size_t area_count) const;

private:
    size_t column_count_;
    std::unique_ptr<formats::ZstdSectionStream> columns_stream_, spans_stream_;
    struct Spill;
    std::unique_ptr<Spill> spill_, columns_spill_;  // spillBeside's files
    VoxelStats stats_;  // of the columns added so far (columns, spans, walkable spans, ...)
    std::vector<uint8_t> scratch_;
};

Status saveVoxels(const std::filesystem::path& path, const VoxelGrid& grid);
Result<VoxelGrid> loadVoxels(const std::filesystem::path& path);
// The header section alone (for memory estimates); errors name the file.
Result<formats::VoxelHeader> loadVoxelHeader(const std::filesystem::path& path);
Result<VoxelGrid> decodeVoxels(const LoadedContainer& container);

// Rows [row0, row1) of a grid, as a stage that works a band of rows at a time reads them: the
// column offsets of those rows' columns and the one after them (column c's is
// column_offsets[c - column_base]), and their spans (span i is spans[i - span_base]).
struct GridRows {
    uint32_t size_x = 0, size_z = 0;
    uint32_t row0 = 0, row1 = 0;
    const uint32_t* column_offsets = nullptr;
    const Span* spans = nullptr;
    uint32_t span_base = 0;
    uint64_t column_base = 0;  // row0 * size_x

    // Only columns [x0, x0 + width) of each row, in row order (width 0: whole rows): a window
    // of the rows (a world tile's columns and border). Columns outside it must not be asked for.
    uint32_t x0 = 0, width = 0;

    // All rows of a grid in memory.
    static GridRows whole(const VoxelGrid& grid) {
        return {grid.size_x,       grid.size_z, 0, grid.size_z, grid.column_offsets.data(),
                grid.spans.data(), 0,           0};
    }
    size_t index(size_t column) const {
        if (width == 0) return size_t(column - column_base);
        return (column / size_x - row0) * size_t(width) + (column % size_x - x0);
    }
    uint32_t begin(size_t column) const { return column_offsets[index(column)]; }
    uint32_t end(size_t column) const { return column_offsets[index(column) + 1]; }
    // Where column (x, z)'s offsets are: begin and end of column (x + i, z) are [i] and [i + 1],
    // for the columns of the row that are held (no division per column, as index() takes).
    const uint32_t* rowOffsets(uint32_t x, uint32_t z) const {
        return column_offsets + index(size_t(z) * size_x + x);
    }
    const Span& span(uint32_t i) const { return spans[i - span_base]; }
};

// The columns [x0, x1) x [z0, z1) of a grid (frame: its header; rows: its spans, those rows read)
// as a grid of their own, its origin moved by whole cells (links and markers are not copied).
VoxelGrid cropGrid(const VoxelGrid& frame, const GridRows& rows, uint32_t x0, uint32_t z0,
                   uint32_t x1, uint32_t z1);
// The same grid's header alone (no columns or spans).
VoxelGrid cropHeader(const VoxelGrid& frame, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1);

// A .vox file read a band of rows at a time, so that a stage working row by row (the tiled
// navmesh) never holds the whole grid: the column offsets and the spans are decoded (and checked,
// as loadVoxels checks them) as rows are asked for, and let go with the rows.
class VoxelRowReader {
public:
    static Result<std::unique_ptr<VoxelRowReader>> open(const std::filesystem::path& path);
    ~VoxelRowReader();
    // The grid without spans (column_offsets empty; links, markers, areas and names as loaded).
    const VoxelGrid& header() const { return header_; }
    uint32_t spanCount() const { return file_header_.span_count; }
    // Rows [keep_from, need_to) (clamped to the grid); rows are asked for in increasing order
    // (keep_from and need_to never decrease): rows before keep_from are let go.
    Result<GridRows> rows(uint32_t keep_from, uint32_t need_to);
    // Reads whatever rows are left (checking them) and checks the section's end and counts.
    Status finish();

private:
    VoxelRowReader() = default;
    Status readTo(uint32_t row);
    void releaseRows();          // every row let go, with the room they took
    LoadedContainer container_;  // without the spans when file_ holds them
    std::unique_ptr<FileBytes> file_;
    VoxelGrid header_;
    formats::VoxelHeader file_header_;
    // Column offsets of columns [row0_ * size_x, row1_ * size_x] (the last one: where the next
    // row begins), as the COLS section stores them (little-endian, as the loader assumes).
    std::vector<uint32_t> columns_;
    std::unique_ptr<formats::SectionStream> columns_stream_, stream_;
    std::vector<Span> spans_;  // rows [row0_, row1_)
    std::vector<uint8_t> records_;
    uint32_t row0_ = 0, row1_ = 0, span_base_ = 0, walkable_ = 0;
};

// A tiling of a grid's columns for stages that build tile by tile: tiles of `tile_cells` columns,
// each read as a window of its columns and `border` columns around them (clipped to the grid).
struct TileWindowLayout {
    uint32_t tile_cells = 0, tiles_x = 0, tiles_z = 0;
    uint32_t size_x = 0, size_z = 0;  // the grid [Units: cells]
    uint32_t border = 1;              // [Units: cells]
    // Tile (tx, tz)'s window: columns [x0, x1) x [z0, z1).
    void window(uint32_t tx, uint32_t tz, uint32_t& x0, uint32_t& z0, uint32_t& x1,
                uint32_t& z1) const;
};
// Where rows come from: rows [keep_from, need_to) of a grid, asked for in increasing order (rows
// before keep_from are let go), as VoxelRowReader::rows gives them.
using RowSource = std::function<Result<GridRows>(uint32_t keep_from, uint32_t need_to)>;

// A row of tiles' windows read a grid row at a time and held zstd-compressed per tile until it is
// decoded: a tiled stage holds a row of tiles at zstd's ratio instead of the world-wide band of
// their rows.
class TileRowWindows {
public:
    TileRowWindows() = default;
    ~TileRowWindows();
    TileRowWindows(const TileRowWindows&) = delete;
    TileRowWindows& operator=(const TileRowWindows&) = delete;
    // Keeps the compressed windows in `store` (a stage's spill file beside its output) instead of
    // memory: a row of tiles' windows then costs a file's bytes, not the process's. Call before
    // read(); `store` must outlive the windows.
    void spillTo(SpillStore& store) { spill_ = &store; }
    // Reads the rows of row of tiles tz's windows (the next row of tiles' first rows stay in the
    // source), keeping the tiles `wanted` says (all when empty). With `carry` (all tiles wanted;
    // rows of tiles read in order; the same spill store as this): the rows this row of tiles
    // shares with the next go, compressed, into carry's windows as they are read, and the next
    // row's read (into any TileRowWindows given the same carry) starts from them: the source keeps
    // no row, and no band of rows across the world is held decoded.
    Status read(const RowSource& source, const TileWindowLayout& layout, uint32_t tz,
                const std::function<bool(uint32_t)>& wanted = {}, TileRowWindows* carry = nullptr);
    // Tile tx's window as GridRows restricted to its columns, its data in `out`; with `release`
    // its compressed data is let go (it cannot be decoded again). Safe to call for different
    // tiles at once.
    struct Decoded {
        std::vector<uint32_t> offsets;
        std::vector<Span> spans;
        std::vector<uint8_t> raw, stored;  // scratch
    };
    Result<GridRows> window(const TileWindowLayout& layout, uint32_t tx, uint32_t tz, Decoded& out,
                            bool release = true);
    // Lets tile tx's compressed data go without decoding it. Safe beside window() for other
    // tiles.
    void release(uint32_t tx) { tiles_[tx] = Pending(); }
    // Compressed bytes held.
    size_t bytes() const;

private:
    // Raw bytes per compressed frame: every tile of the row holds up to this much uncompressed
    // while its rows are read (16 KiB: a row of 42 tiles ~0.7 MiB; zstd's ratio barely moves).
    static constexpr size_t kChunkBytes = size_t(1) << 14;
    struct Pending {
        std::vector<uint32_t> counts;                      // spans per column, not compressed yet
        std::vector<Span> spans;                           // and theirs
        std::vector<std::vector<uint8_t>> frames;          // compressed, in order (not spilled)
        std::vector<std::pair<uint64_t, size_t>> spilled;  // or (offset, size) in spill_
        std::vector<size_t> raw_sizes;
    };
    Status flush(Pending& tile);
    std::vector<Pending> tiles_;
    // As a carry: the row of tiles its windows begin (kNone: none) and the grid row they reach.
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t carried_row_ = kNone, carried_to_ = 0;
    void* context_ = nullptr;  // ZSTD_CCtx
    SpillStore* spill_ = nullptr;
};

}  // namespace nav::voxel
