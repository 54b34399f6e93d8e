#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/bytes.h"
#include "formats/graph_sections.h"

namespace formats = nav::formats;
using formats::GraphSection;

namespace {

formats::SectionSpan spanOf(const std::vector<uint8_t>& bytes) {
    return {bytes.data(), bytes.size(), true};
}

template <class T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    return formats::arrayBytes(values);
}

}  // namespace

// Offsets that lie past their total (or wrap in u32) used to be followed before a later offset
// gave them away; the shared validators refuse them first.
TEST_SUITE("formats") {
    TEST_CASE("CSR offsets: one check, the first wrong entry named at its byte offset") {
        auto check = [](std::vector<uint32_t> offsets, uint64_t total) {
            return formats::checkCsrOffsets(offsets.data(), offsets.size() - 1, total,
                                            formats::kSecEdgeOffsets);
        };
        CHECK_FALSE(check({0, 2, 2, 5}, 5));
        CHECK_FALSE(check({0}, 0));
        const formats::Error start = check({1, 2, 5}, 5);
        CHECK(start.offset == 0);
        CHECK(std::string(start.message).find("start at 1, expected 0") != std::string::npos);
        const formats::Error down = check({0, 3, 2, 5}, 5);
        CHECK(down.offset == 8);
        CHECK(std::string(down.message).find("below the one before it") != std::string::npos);
        const formats::Error past = check({0, 9, 9, 5}, 5);  // refused before row 1 is read
        CHECK(past.offset == 4);
        const formats::Error end = check({0, 2, 4}, 5);
        CHECK(end.offset == 8);
        CHECK(end.code == formats::ErrorCode::bad_section);
        CHECK(end.section == formats::kSecEdgeOffsets);
        CHECK(std::string(end.message).find("end at 4, expected 5") != std::string::npos);
    }

    TEST_CASE("graph section validators refuse offsets that run past their arrays") {
        SUBCASE("POV layer columns past the cell count") {
            formats::GraphHeader h;
            h.type = formats::GraphType::pov;
            h.size_x = 2;
            h.size_z = 1;
            h.size_y = 4;
            formats::PovStats stats;
            stats.layer_cell_count = 1;
            stats.layer_component_count = 1;
            std::vector<uint8_t> psta(formats::kPovStatsSize), lcel(formats::kNodeCellSize);
            formats::encodePovStats(stats, psta.data());
            formats::encodeNodeCell({0, 1, 1}, lcel.data());  // one cell, on column 0
            const std::vector<uint8_t> lcol = bytesOf(std::vector<uint32_t>{0, 5, 1});
            const std::vector<uint8_t> lnb4 = bytesOf(std::vector<uint32_t>(4, 0xFFFFFFFFu));
            const std::vector<uint8_t> lcmp = bytesOf(std::vector<uint32_t>{0});
            const std::vector<uint8_t> none;
            formats::GraphSections s;
            s[GraphSection::pov_stats] = spanOf(psta);
            s[GraphSection::pov_corners] = spanOf(none);
            s[GraphSection::layer_cells] = spanOf(lcel);
            s[GraphSection::layer_columns] = spanOf(lcol);
            s[GraphSection::layer_neighbours] = spanOf(lnb4);
            s[GraphSection::layer_components] = spanOf(lcmp);
            formats::PovStats out;
            const formats::Error e = formats::validatePovSections(h, s, 2, out);
            CHECK(e.code == formats::ErrorCode::bad_section);
            CHECK(e.section == formats::kSecLayerColumns);
            CHECK(e.offset == 4);  // the byte offset of the offending entry, 5 of 1 cell
            CHECK(std::string(e.message).find("past the 1 entries") != std::string::npos);
        }
        SUBCASE("navmesh polygon offsets that wrap around 2^32") {
            formats::GraphHeader h;
            h.type = formats::GraphType::navmesh;
            h.node_count = 2;
            const std::vector<uint8_t> vertices = bytesOf(std::vector<float>(9, 0.0f));
            const std::vector<uint8_t> offsets = bytesOf(std::vector<uint32_t>{0, 0xFFFFFFFEu, 6});
            const std::vector<uint8_t> corners = bytesOf(std::vector<uint32_t>(6, 0));
            const std::vector<uint8_t> none;
            formats::GraphSections s;
            for (GraphSection part :
                 {GraphSection::poly_areas, GraphSection::detail_offsets,
                  GraphSection::detail_triangles, GraphSection::mesh_index_header,
                  GraphSection::mesh_index_offsets, GraphSection::mesh_index_polys,
                  GraphSection::poly_info})
                s[part] = spanOf(none);
            s[GraphSection::mesh_vertices] = spanOf(vertices);
            s[GraphSection::poly_offsets] = spanOf(offsets);
            s[GraphSection::poly_vertices] = spanOf(corners);
            s[GraphSection::poly_neighbours] = spanOf(corners);
            formats::MeshIndexHeader index;
            const formats::Error e = formats::validateNavmeshSections(h, s, 2, index);
            CHECK(e.code == formats::ErrorCode::bad_section);
            CHECK(e.section == formats::kSecPolyOffsets);
            CHECK(e.offset == 4);
        }
        SUBCASE("a next-hop row whose start wraps around 2^32") {
            std::vector<uint8_t> block(16, 0);
            formats::storeLe32(block.data(), 0xFFFFFFFDu);  // row 0 begins "after" its end
            formats::storeLe32(block.data() + 4, 8);
            formats::NextHopRow row;
            CHECK_FALSE(formats::findNextHopRow(block.data(), block.size(), 1, 0, 1, row));
            // Well-formed: row table {8, 17}, then 1 run: start 0, symbol 7.
            std::vector<uint8_t> good(17, 0);
            formats::storeLe32(good.data(), 8);
            formats::storeLe32(good.data() + 4, 17);
            formats::storeLe32(good.data() + 8, 1);
            good[16] = 7;
            REQUIRE(formats::findNextHopRow(good.data(), good.size(), 1, 0, 1, row));
            CHECK(row.runs == 1);
            CHECK(formats::loadLe32(row.starts) == 0);
            CHECK(row.symbols[0] == 7);
        }
    }
}
