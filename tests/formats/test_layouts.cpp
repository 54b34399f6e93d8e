#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/layouts.h"

namespace formats = nav::formats;

namespace {

// Every byte of a fixed-size header either belongs to a field (changing it changes what decodes,
// so encoding the decoded header gives the changed bytes back) or is reserved (changing it is
// refused); the decoder never silently ignores a byte.
template <class H, size_t N, class Encode, class Decode>
void checkEveryByteCounts(const H& sample, Encode encode, Decode decode) {
    uint8_t bytes[N];
    encode(sample, bytes);
    H decoded;
    REQUIRE_FALSE(decode(bytes, N, decoded));
    uint8_t again[N];
    encode(decoded, again);
    CHECK(std::memcmp(bytes, again, N) == 0);

    H wrong;
    const formats::Error short_error = decode(bytes, N - 1, wrong);
    CHECK(short_error.code == formats::ErrorCode::bad_section);
    CHECK(std::string(short_error.message).find("bytes, expected") != std::string::npos);

    for (size_t i = 0; i < N; ++i)
        for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80)}) {
            uint8_t changed[N];
            std::memcpy(changed, bytes, N);
            changed[i] ^= flip;
            H out;
            if (decode(changed, N, out)) continue;
            uint8_t encoded[N];
            encode(out, encoded);
            INFO("byte ", i, " flipped by ", int(flip), " was accepted");
            CHECK(std::memcmp(changed, encoded, N) == 0);
        }
}

}  // namespace

TEST_SUITE("formats") {
    TEST_CASE("header layouts: every byte is a field or a reserved byte that must be zero") {
        SUBCASE("GHDR") {
            formats::GeometryHeader h;
            h.vertex_count = 30, h.triangle_count = 10, h.object_count = 2, h.source_mesh_count = 3;
            h.bounds_min[0] = -1, h.bounds_max[1] = 4, h.dropped_degenerate = 1,
            h.dropped_ignored = 2;
            checkEveryByteCounts<formats::GeometryHeader, formats::kGeometryHeaderSize>(
                h, formats::encodeGeometryHeader, formats::decodeGeometryHeader);
        }
        SUBCASE("VHDR") {
            formats::VoxelHeader h;
            h.size_x = 40, h.size_z = 30, h.size_y = 20, h.source = formats::VoxelSource::grid_map;
            h.origin[2] = 1.5f, h.cell_size = 0.3f, h.cell_height = 0.2f, h.agent_height = 2;
            h.agent_radius = 0.6f, h.agent_climb = 0.9f, h.max_slope_deg = 45;
            h.span_count = 1000, h.walkable_count = 600;
            checkEveryByteCounts<formats::VoxelHeader, formats::kVoxelHeaderSize>(
                h, formats::encodeVoxelHeader, formats::decodeVoxelHeader);
            uint8_t bytes[formats::kVoxelHeaderSize];
            formats::encodeVoxelHeader(h, bytes);
            bytes[61] = 7;
            formats::VoxelHeader out;
            const formats::Error e = formats::decodeVoxelHeader(bytes, sizeof bytes, out);
            CHECK(e.offset == 61);
            CHECK(std::string(e.message) == "section 'VHDR': reserved byte 61 is not zero");
        }
        SUBCASE("GRHD") {
            formats::GraphHeader h;
            h.type = formats::GraphType::pov, h.node_count = 100, h.edge_count = 400;
            h.component_count = 2, h.largest_component = 90;
            h.heuristic = formats::HeuristicKind::euclidean, h.min_cost_multiplier = 0.5f;
            h.size_x = 10, h.size_z = 12, h.size_y = 3, h.cell_size = 1, h.cell_height = 1;
            h.agent_height = 2, h.flags = 0;
            checkEveryByteCounts<formats::GraphHeader, formats::kGraphHeaderSize>(
                h, formats::encodeGraphHeader, formats::decodeGraphHeader);
            // The implicit-volume flag goes with the volume type, both ways (fuzz_asset found a
            // volume header without it: views then read voxel bits that were never there).
            uint8_t bytes[formats::kGraphHeaderSize];
            formats::GraphHeader out;
            for (auto [type, flags] : {std::pair{formats::GraphType::volume, 0u},
                                       std::pair{formats::GraphType::tile, 1u}}) {
                h.type = type, h.flags = flags;
                formats::encodeGraphHeader(h, bytes);
                const formats::Error e = formats::decodeGraphHeader(bytes, sizeof bytes, out);
                CHECK(e.code == formats::ErrorCode::bad_section);
                CHECK(std::string(e.message).find("implicit-volume flag") != std::string::npos);
            }
            h.type = formats::GraphType::volume, h.flags = formats::kGraphFlagImplicitVolume;
            formats::encodeGraphHeader(h, bytes);
            CHECK_FALSE(formats::decodeGraphHeader(bytes, sizeof bytes, out));
        }
        SUBCASE("MGHD") {
            formats::MeshIndexHeader h;
            h.cells_x = 8, h.cells_z = 9, h.min_x = -3, h.min_z = 2, h.cell = 4, h.region_count = 5;
            h.tiles_x = 2, h.tiles_z = 3;
            checkEveryByteCounts<formats::MeshIndexHeader, formats::kMeshIndexHeaderSize>(
                h, formats::encodeMeshIndexHeader, formats::decodeMeshIndexHeader);
        }
        SUBCASE("PSTA") {
            formats::PovStats h;
            h.corner_count = 50, h.layer_cell_count = 70, h.layer_component_count = 4;
            h.any_direction_corners = 3, h.visibility_edges = 900, h.taut_edges = 300;
            checkEveryByteCounts<formats::PovStats, formats::kPovStatsSize>(
                h, formats::encodePovStats, formats::decodePovStats);
        }
        SUBCASE("CLHD") {
            formats::ClusterHeader h;
            h.method = formats::ClusterMethod::regions, h.cluster_count = 10, h.node_count = 500;
            h.edge_count = 2000, h.cluster_size = 16, h.requested_clusters = 10, h.scale = 0.25f;
            h.min_cluster_nodes = 20, h.max_cluster_nodes = 80, h.unreachable_pairs = 4;
            h.graph_fingerprint = 0x0123456789ABCDEFull, h.flags = formats::kClusterFlagSymmetric;
            checkEveryByteCounts<formats::ClusterHeader, formats::kClusterHeaderSize>(
                h, formats::encodeClusterHeader, formats::decodeClusterHeader);
        }
        SUBCASE("HRHD") {
            formats::HierarchyHeader h;
            h.level_count = 3, h.node_count = 500, h.cluster_count = 20, h.group_count = 26;
            h.abstract_edge_count = 70, h.entrance_count = 40, h.entrance_edge_count = 300;
            h.default_cost = formats::HierCost::avgmin,
            h.entrance_mode = formats::EntranceMode::all;
            h.group_fanout = 4, h.graph_fingerprint = 11, h.clusters_fingerprint = 12;
            checkEveryByteCounts<formats::HierarchyHeader, formats::kHierarchyHeaderSize>(
                h, formats::encodeHierarchyHeader, formats::decodeHierarchyHeader);
        }
        SUBCASE("NHHD") {
            formats::NextHopHeader h;
            h.node_count = 1000, h.edge_count = 5000, h.block_rows = 64, h.block_count = 16;
            h.first_block = 4, h.stored_blocks = 4, h.shard_index = 1, h.shard_count = 4;
            h.symbol_bytes = 2, h.graph_fingerprint = 99, h.run_count = 12345;
            h.flags = formats::kNextHopFlagPartial;
            checkEveryByteCounts<formats::NextHopHeader, formats::kNextHopHeaderSize>(
                h, formats::encodeNextHopHeader, formats::decodeNextHopHeader);
        }
        SUBCASE("LINK record") {
            formats::LinkRecord l;
            l.id = 12, l.user_data = 0xABCD, l.from_node = 3, l.to_node = 9;
            l.from[0] = 1.5f, l.from[1] = 2.0f, l.from[2] = -3.25f;
            l.to[0] = 4.5f, l.to[1] = -1.0f, l.to[2] = 0.75f;
            l.cost = 2.5f, l.reverse_cost = 7.0f, l.type = formats::LinkType::ladder;
            l.flags = formats::kLinkFlagBidirectional | formats::kLinkFlagGenerated;
            checkEveryByteCounts<formats::LinkRecord, formats::kLinkRecordSize>(
                l, formats::encodeLinkRecord, formats::decodeLinkRecord);
        }
        SUBCASE("HNHD") {
            formats::HierNextHopHeader h;
            h.node_count = 1000, h.edge_count = 5000, h.cluster_count = 30, h.entrance_count = 200;
            h.symbol_bytes = 1, h.graph_fingerprint = 5, h.clusters_fingerprint = 6;
            h.intra_symbols = 70000, h.distance_entries = 40000;
            checkEveryByteCounts<formats::HierNextHopHeader, formats::kHierNextHopHeaderSize>(
                h, formats::encodeHierNextHopHeader, formats::decodeHierNextHopHeader);
            uint8_t bytes[formats::kHierNextHopHeaderSize];
            formats::encodeHierNextHopHeader(h, bytes);
            bytes[21] = 1;
            formats::HierNextHopHeader out;
            CHECK(formats::decodeHierNextHopHeader(bytes, sizeof bytes, out).offset == 21);
        }
    }
}
